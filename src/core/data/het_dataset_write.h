/*
 * het_dataset_write.h: writing APS-U two-time result files, the layout
 * that boost_corr produces and pyXpcsViewer, homodyne, heterodyne and
 * hetui read (docs: xpcs-data-formats.md §5.1).  Used by `hetui simulate`
 * and by the tests.
 *
 * What gets written:
 *   /xpcs/qmap/dynamic_v_list_dim0      (n_q,) f8, attrs name="q",
 *                                       unit="Å⁻¹" (UTF-8), size (int64)
 *   /xpcs/qmap/dynamic_v_list_dim1      (n_phi,) f8, name="phi", unit="deg"
 *   /xpcs/qmap/dynamic_num_pts          int64 [n_q, n_phi]
 *   /xpcs/qmap/dynamic_index_mapping    uint16 (int64 if a cell >= 65536)
 *   /xpcs/qmap/map_names, map_units     vlen UTF-8 ["q", "phi"] and
 *                                       ["Å⁻¹", "deg"]
 *   /xpcs/twotime/processed_bins        int32 labels
 *   /xpcs/twotime/correlation_map/c2_%05d  (N, N) upper triangle incl. the
 *                                       diagonal, exact zeros below;
 *                                       float32 or float64; contiguous, or
 *                                       chunked (whole matrix up to 64 MiB,
 *                                       else row blocks) with gzip or LZF
 *   /xpcs/twotime/normalized_g2         (N, n_bins) f4, lag-diagonal means
 *   /entry/instrument/detector_1/frame_time  f8 scalar or (1, 1)
 *   /xpcs/twotime/config/stride_frame, avg_frame  int64 scalars
 *   /xpcs/qmap/energy and /entry/instrument/incident_beam/incident_energy
 *                                       keV, when given
 *   /xpcs/qmap/detector_distance and /entry/instrument/detector_1/distance
 *                                       m, when given
 * No time vector is written (real files have none).
 */
#ifndef HET_DATASET_WRITE_H
#define HET_DATASET_WRITE_H

#include <stddef.h>

#include "het_dataset.h"
#include "het_error.h"

/* c2_%05d caps the number of matrices of one file. */
#define HET_APSU_MAX_BINS 99999

/*
 * het_apsu_fill_fn: produce the full N x N matrix of the k-th bin
 * (0-based, in processed_bins order) into c2 (row-major).  Return HET_OK,
 * or an error code with err set; the write then stops and fails.
 */
typedef int (*het_apsu_fill_fn)(void *arg, size_t k, double *c2,
    struct het_error *err);

struct het_apsu_spec {
	size_t		n_q, n_phi;	/* q map size, both >= 1 */
	const double	*q;		/* n_q bin centres, 1/Angstrom, > 0 */
	const double	*phi;		/* n_phi centres, degrees, finite */
	size_t		nbins;		/* matrices, 1..HET_APSU_MAX_BINS */
	const long	*labels;	/* nbins processed_bins, 1-based and
					   increasing; NULL: 1..nbins */
	const long	*index_mapping;	/* label-1 -> cell q_idx*n_phi+phi_idx;
					   NULL: the identity over n_q*n_phi */
	size_t		n_mapping;	/* entries of index_mapping */
	size_t		frames;		/* N >= 2 */
	const double *const *c2;	/* nbins full N x N matrices, or NULL */
	het_apsu_fill_fn fill;		/* used when c2 is NULL */
	void		*fill_arg;
	enum het_dtype	dtype;		/* F32 (as real files) or F64 */
	enum het_compress compression;	/* NONE, GZIP or LZF */
	int		gzip_level;	/* 1..9 */
	double		frame_time;	/* seconds; NAN: not written */
	int		frame_time_2d;	/* store it as a (1, 1) array, as
					   averaged APS-U files do */
	long		stride_frame;	/* >= 1; 0: not written */
	long		avg_frame;	/* >= 1; 0: not written */
	double		energy_kev;	/* NAN: not written */
	double		distance_m;	/* NAN: not written */
	int		store_full;	/* for reader tests only: store full
					   symmetric matrices, not triu */
};

/*
 * het_apsu_spec_init: a spec with no data and the defaults: float32,
 * uncompressed, gzip level 4 if gzip is chosen, stride and average 1, no
 * frame time, energy or distance.  Thread: any.
 */
void het_apsu_spec_init(struct het_apsu_spec *spec);

/*
 * het_apsu_write: write an APS-U file atomically: into a temporary file
 * beside `path`, then renamed over it, so readers see the old file or the
 * complete new one.  Matrices are taken one at a time (from spec->c2 or
 * spec->fill), so memory stays at two matrices whatever nbins is.
 * Returns HET_OK; HET_EINVAL for an inconsistent spec (the message names
 * the field) or a non-finite or asymmetric input matrix; HET_EIO when the
 * file cannot be created or written (the old file is left untouched);
 * HET_ENOMEM; or the code returned by spec->fill.
 * Thread: any thread (HDF5 calls are serialised by libhdf5).
 */
int het_apsu_write(const char *path, const struct het_apsu_spec *spec,
    struct het_error *err);

#endif /* HET_DATASET_WRITE_H */
