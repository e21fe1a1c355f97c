/*
 * het_multitau.h: the multitau one-time correlation g2(q, tau) of an
 * APS-U result file with its errors, as boost_corr writes it and
 * pyXpcsViewer's main view shows it.
 *
 * Purpose: a file of a multitau analysis holds no two-time matrix, so
 * the dataset model (het_dataset.h) refuses it; this reader gives the
 * workstation and `hetui inspect` what such a file does hold:
 *
 *   /xpcs/multitau/delay_list          (n_tau,) lags; boost_corr writes
 *                                      int64 frame counts (1, 2, ...,
 *                                      81920), pyXpcsViewer multiplies
 *                                      them by frame_time * stride *
 *                                      avg to get seconds
 *   /xpcs/multitau/normalized_g2       (n_tau, n_bins) float32 from
 *                                      boost_corr; some writers store
 *                                      (n_bins, n_tau)
 *   /xpcs/multitau/normalized_g2_err   the same shape: one standard
 *                                      error per point (0 where a bin
 *                                      had no photons)
 *   /xpcs/multitau/config/stride_frame, avg_frame   (optional)
 *   /entry/instrument/detector_1/frame_time          seconds
 *   /xpcs/qmap/dynamic_v_list_dim0 (q), _dim1 (phi, optional),
 *   dynamic_index_mapping (optional): the columns of normalized_g2 are
 *   the dynamic bin labels 1 .. n_bins, label b in the cell
 *   dynamic_index_mapping[b-1] = q_idx * n_phi + phi_idx (b-1 without
 *   the mapping), as for two-time files.
 *
 * Design: the whole content is small (61 delays x 36 bins in a real
 * file), so het_multitau_read reads and checks everything at once,
 * closes the file and returns a plain, immutable object that any thread
 * may read (the I/O thread builds it, the loop thread draws it).  It
 * shares the q map and frame-time readers of the two-time loader
 * (het_dataset_impl.h), so both read a file's q, phi and dt alike.
 *
 * Decisions, each refused with a sentence that says how to fix the file
 * when it cannot be made:
 *   orientation  the axis of normalized_g2 whose length is n_tau is the
 *                delay axis, the one of length n_bins the bin axis.  The
 *                NeXus XPCS attribute storage_mode on normalized_g2
 *                ("one_array_q_first": rows are bins; "one_array_q_last":
 *                rows are delays) decides when n_tau = n_bins, and must
 *                agree with the lengths otherwise.
 *   delay unit   seconds when delay_list has the attribute unit (or
 *                units) "s"; frames when it says "frames", when the
 *                dataset stores integers, or when every value is a whole
 *                number; seconds when the values are fractional.  Frames
 *                become seconds through frame_time x stride_frame x
 *                avg_frame; without a frame time they are refused.
 *   checks       delays finite, positive and strictly increasing; g2
 *                and errors finite; no negative error; g2_err the shape
 *                of g2.  A zero error is kept: it marks a point without
 *                an error estimate (boost_corr writes 0 where a bin saw
 *                no photons), which a fit leaves out.
 */
#ifndef HET_MULTITAU_H
#define HET_MULTITAU_H

#include <stddef.h>

#include "het_error.h"

#define HET_MT_GROUP	"/xpcs/multitau"
#define HET_MT_DELAY	"/xpcs/multitau/delay_list"
#define HET_MT_G2	"/xpcs/multitau/normalized_g2"
#define HET_MT_G2_ERR	"/xpcs/multitau/normalized_g2_err"
#define HET_MT_STRIDE	"/xpcs/multitau/config/stride_frame"
#define HET_MT_AVG	"/xpcs/multitau/config/avg_frame"

/* How normalized_g2 is stored. */
enum het_mt_orient {
	HET_MT_TAU_FIRST = 1,	/* (n_tau, n_bins): rows are delays */
	HET_MT_BIN_FIRST	/* (n_bins, n_tau): rows are bins */
};

/* The unit of delay_list as stored. */
enum het_mt_unit {
	HET_MT_FRAMES = 1,
	HET_MT_SECONDS
};

/* One dynamic bin: one column of normalized_g2. */
struct het_mt_bin {
	long		label;		/* 1-based dynamic bin label */
	size_t		q_idx, phi_idx;	/* into q_list and phi_list */
	double		q;		/* 1/Angstrom */
	double		phi;		/* degrees */
	size_t		nused;		/* points with an error > 0: what a
					   fit of this bin can use */
};

/*
 * The multitau content of a file.  Every pointer is owned by the object;
 * nothing changes after het_multitau_read returns.
 */
struct het_multitau {
	char		*path;		/* the file name as given */
	size_t		 ntau;		/* delays, >= 1 */
	size_t		 nbins;		/* columns of normalized_g2, >= 1 */
	size_t		 n_q, n_phi;	/* lengths of q_list and phi_list */
	double		*delay;		/* ntau values as stored */
	double		*tau;		/* ntau delays in seconds, strictly
					   increasing */
	double		*g2;		/* nbins * ntau, bin-major:
					   g2[b * ntau + k] at tau[k] */
	double		*g2_err;	/* the same layout, >= 0 */
	double		*q_list;	/* n_q values, 1/Angstrom */
	double		*phi_list;	/* n_phi values, degrees */
	int		 has_phi;	/* the file lists phi (else one
					   sector at 0) */
	struct het_mt_bin *bins;	/* nbins */
	enum het_mt_orient orient;	/* as stored */
	char		 orient_why[192]; /* how it was decided */
	enum het_mt_unit delay_unit;	/* as stored */
	double		 t0;		/* seconds per delay unit (1 for
					   seconds) */
	char		 tau_source[320]; /* how tau was made, in words */
	double		 frame_time;	/* seconds; NAN if absent */
	long		 stride, avg;	/* 0 when absent (taken as 1) */
	size_t		 nzero_err;	/* points whose error is 0 */
	int		 has_twotime;	/* the file also has two-time data
					   (/xpcs/twotime/correlation_map) */
};

/*
 * het_multitau_read: read and check the multitau g2 of an HDF5 result
 * file (the layout and the rules above).
 *   path  the file.
 * Returns a new object (free with het_multitau_free), or NULL with err
 * set to "FILE: sentence":
 *   HET_ENOTFOUND  the file holds no multitau data: it has no
 *                  /xpcs/multitau group, or is not HDF5 at all (a .npy
 *                  matrix); callers take this as "not a multitau file";
 *   HET_EIO        the file cannot be opened (errno in err->sys_errno);
 *   HET_EFORMAT    not HDF5, damaged, a dataset missing, shapes that do
 *                  not match, an ambiguous orientation, a delay unit
 *                  that cannot be turned into seconds;
 *   HET_EDATA      a non-finite value, a negative error, delays that
 *                  are not positive or not increasing;
 *   HET_ENOMEM     out of memory.
 * Thread: any (HDF5 error printing is quieted in the calling thread).
 */
struct het_multitau *het_multitau_read(const char *path,
    struct het_error *err);

/*
 * het_multitau_why_not: the error to show for a file that neither
 * het_dataset_open (dserr) nor het_multitau_read (mterr) opened: dserr
 * when the file holds no multitau data (mterr->code HET_ENOTFOUND) or
 * both say the same (a damaged file), else the two sentences joined,
 * with the code of mterr ("FILE: no two-time matrices ...; its
 * multitau data cannot be shown either: delay_list is not
 * increasing ...").  Used by the workstation's I/O thread and `hetui
 * inspect`, so both word it alike.  out may be dserr or mterr.
 * Thread: any.
 */
void het_multitau_why_not(const struct het_error *dserr,
    const struct het_error *mterr, struct het_error *out);

/* het_multitau_free: free everything.  NULL is a no-op. */
void het_multitau_free(struct het_multitau *mt);

/*
 * het_mt_orient_name: "tau_first" or "bin_first"; het_mt_unit_name:
 * "frames" or "seconds" (the words of `hetui inspect --json`).
 * Thread: any.
 */
const char *het_mt_orient_name(enum het_mt_orient o);
const char *het_mt_unit_name(enum het_mt_unit u);

#endif /* HET_MULTITAU_H */
