/*
 * het_dataset.h: the XPCS dataset model: one two-time result file, its
 * (q, phi) bins, and streaming reads of one c2 matrix at a time.
 *
 * Module core/data (the opening comment of this folder): everything read
 * from or written to an XPCS data file: HDF5 set-up and helpers (het_h5,
 * the only code that includes hdf5.h), the LZF filter (het_lzf), the
 * NumPy .npy reader (het_npy), the dataset model with its loaders for
 * the APS-U, legacy and .npy layouts, frame and angle selection
 * (het_dataset*), and the writer of simulated data (het_dataset_write).
 *
 * A dataset is opened from an HDF5 result file in one of two layouts
 * (docs: xpcs-data-formats.md, man hetui(1) FILE FORMATS), or from a
 * NumPy .npy file (het_npy.h; its q, angles and dt given, see
 * het_dataset_open_meta below):
 *
 *   APS-U          /xpcs/qmap/dynamic_v_list_dim0 (q, 1/Angstrom),
 *                  /xpcs/qmap/dynamic_v_list_dim1 (phi, degrees),
 *                  /xpcs/twotime/processed_bins (1-based labels),
 *                  /xpcs/twotime/correlation_map/c2_NNNNN, where c2_k
 *                  belongs to processed_bins[k-1]; a label b is the cell
 *                  dynamic_index_mapping[b-1] (= q_idx * n_phi + phi_idx)
 *                  when the file has the mapping, b-1 otherwise.
 *   legacy 8-ID-I  /xpcs/dqlist, /xpcs/dphilist (one entry per label),
 *                  /exchange/C2T_all/g2_NNNNN (or c2_NNNNN), paired with
 *                  label NNNNN by the number in the name, so files that
 *                  processed only some bins are read correctly.
 *
 * het_dataset_open() reads metadata only.  Matrices are read one at a time
 * by het_dataset_read_c2(), which reads only the requested frame window
 * from the file, so a 27 GB file costs one matrix of memory.
 *
 * Units: q in 1/Angstrom, phi in degrees, dt in seconds, energy in keV,
 * distance in metres.  Frames are 1-based and windows inclusive, as in the
 * heterodyne and homodyne configs.  Matrices are row-major doubles,
 * c2[(i) * n + (j)] for frames first+i and first+j.
 *
 * Thread: a struct het_dataset may be used by one thread at a time (it
 * holds an open HDF5 file).  Different datasets may be used by different
 * threads at once.  Every call quiets HDF5's error printing in its thread.
 */
#ifndef HET_DATASET_H
#define HET_DATASET_H

#include <stddef.h>

#include "het_error.h"

struct het_dataset;	/* opaque */

enum het_layout {
	HET_LAYOUT_APSU = 1,	/* "aps-u" */
	HET_LAYOUT_LEGACY,	/* "aps-legacy" */
	HET_LAYOUT_NPY		/* "npy": NumPy matrices, het_npy.h */
};

/* Storage type of a matrix in the file (reads always yield doubles). */
enum het_dtype {
	HET_DTYPE_F32 = 1,	/* "float32" */
	HET_DTYPE_F64,		/* "float64" */
	HET_DTYPE_MIXED		/* file level only: bins differ */
};

enum het_compress {
	HET_COMPRESS_NONE = 0,	/* "none" */
	HET_COMPRESS_GZIP,	/* "gzip" (deflate; level in het_bin) */
	HET_COMPRESS_LZF,	/* "lzf" (filter 32000) */
	HET_COMPRESS_OTHER,	/* "filter-N": some other HDF5 filter */
	HET_COMPRESS_MIXED	/* file level only: bins differ */
};

/* HDF5 storage layout of a matrix dataset. */
enum het_h5store {
	HET_STORE_CONTIGUOUS = 0,	/* "contiguous" */
	HET_STORE_CHUNKED,		/* "chunked" */
	HET_STORE_COMPACT		/* "compact" */
};

/* Which triangle of a stored matrix holds the data (known after a read). */
enum het_tri {
	HET_TRI_UPPER = 1,	/* half storage, strict lower triangle zero */
	HET_TRI_LOWER,		/* half storage, strict upper triangle zero */
	HET_TRI_FULL		/* both triangles, symmetric */
};

/* One (q, phi) bin: one matrix dataset.  Borrowed from the dataset. */
struct het_bin {
	size_t		index;		/* 0-based position in the dataset */
	long		label;		/* 1-based dynamic bin label */
	size_t		q_idx;		/* index into info.q_list */
	size_t		phi_idx;	/* index into info.phi_list */
	double		q;		/* 1/Angstrom */
	double		phi;		/* degrees */
	size_t		frames;		/* matrix side length */
	enum het_dtype	dtype;
	enum het_compress compression;
	int		level;		/* gzip level, -1 otherwise */
	unsigned int	filter_id;	/* HDF5 filter id for OTHER, else 0 */
	int		shuffle;	/* byte shuffle filter present */
	enum het_h5store storage;
	size_t		chunk[2];	/* chunk shape, {0, 0} unless chunked */
	const char	*dataset;	/* HDF5 path of the matrix */
};

/* File-level facts.  Borrowed from the dataset; valid until close. */
struct het_dataset_info {
	const char	*path;		/* the file name as given to open */
	enum het_layout	layout;
	size_t		nbins;
	size_t		n_q, n_phi;	/* lengths of q_list and phi_list */
	const double	*q_list;	/* APS-U: dynamic_v_list_dim0; legacy:
					   the distinct dqlist values, sorted */
	const double	*phi_list;	/* same for phi */
	size_t		frames;		/* side of every matrix */
	enum het_dtype	dtype;		/* common dtype, or MIXED */
	enum het_compress compression;	/* common compression, or MIXED */
	double		dt;		/* seconds per frame; NAN if unknown */
	const char	*dt_source;	/* "file: frame_time * stride_frame *
					   avg_frame", ..., or "none" */
	double		frame_time;	/* the factors of dt (NAN, or 0 for */
	long		stride;		/* an absent stride or average, */
	long		avg;		/* which then count as 1) */
	double		energy_kev;	/* NAN if absent */
	const char	*energy_source;	/* HDF5 path, or NULL */
	double		distance_m;	/* NAN if absent or unit unknown */
	double		distance_raw;	/* value as stored, NAN if absent */
	const char	*distance_unit;	/* "m", "mm", or NULL if unrecorded */
	const char	*distance_source; /* HDF5 path, or NULL */
};

/*
 * het_dataset_open: open an XPCS two-time result file and read its
 * metadata: layout, bins, matrix shapes and storage, dt, energy and
 * distance.  No matrix is read.
 *   path  the file to open.
 * Returns a new dataset (free with het_dataset_close), or NULL with err
 * set.  The message starts with the file name and says what is wrong:
 *   HET_EIO       the file cannot be opened (errno in err->sys_errno);
 *   HET_EFORMAT   not HDF5, a truncated or corrupt file, neither layout
 *                 (the message lists the paths looked for), counts that do
 *                 not match, non-square or differently sized matrices,
 *                 unsupported types;
 *   HET_ENOMEM    out of memory.
 * Thread: any.
 */
struct het_dataset *het_dataset_open(const char *path, struct het_error *err);

/*
 * What a NumPy .npy file does not hold: its q, its angles and its frame
 * time.  They come from the caller (command-line options, or the
 * configuration of a fit) and, for what the caller leaves unset, from a
 * sidecar file beside the .npy file with the same stem (NAME.yaml,
 * NAME.yml or NAME.json, the first that exists; JSON is read as YAML):
 * a mapping with q (or wavevector_q, 1/Angstrom), phi (or phi_angles:
 * one number, or a list with one angle per matrix, degrees), dt
 * (seconds per frame) and, ignored, comment or note.  q and the angles
 * are required (open refuses a file without them, saying where to put
 * them); dt may come later (het_dataset_dt).  The caller's angles name
 * the matrices when there is one per matrix; a list of another length
 * next to a sidecar's full list leaves the sidecar's in place (the
 * caller's then only select, as a configuration's phi_angles do).  HDF5
 * files carry their own and ignore this.
 */
struct het_dataset_meta {
	double		 q;		/* > 0, or 0: not given */
	const double	*phi;		/* nphi angles (degrees), or NULL */
	size_t		 nphi;		/* 0: not given */
	double		 dt;		/* > 0, or 0: not given */
	const char	*source;	/* how they were given, for messages
					   and info ("--q/--phi/--dt") */
};

/*
 * het_dataset_open_meta: het_dataset_open with metadata for a .npy file
 * (meta may be NULL: the sidecar only).  Also HET_EFORMAT for a .npy
 * file without q or angles, angles that do not match its matrices, or a
 * sidecar that cannot be read (the message names the sidecar, the line
 * and the key).  Thread: any.
 */
struct het_dataset *het_dataset_open_meta(const char *path,
    const struct het_dataset_meta *meta, struct het_error *err);

/* het_dataset_close: close the file and free everything.  NULL is a no-op. */
void het_dataset_close(struct het_dataset *ds);

/* het_dataset_info: the file-level facts (borrowed, never NULL). */
const struct het_dataset_info *het_dataset_info(const struct het_dataset *ds);

/* het_dataset_nbins: number of bins (matrices), >= 1. */
size_t het_dataset_nbins(const struct het_dataset *ds);

/*
 * het_dataset_bin: bin k (0 <= k < nbins) or NULL when k is out of range.
 * Bins are in file order: APS-U by c2 key number (= processed_bins order),
 * legacy by label.  Borrowed; valid until het_dataset_close.
 */
const struct het_bin *het_dataset_bin(const struct het_dataset *ds, size_t k);

/* Names for the enums, as used by `hetui inspect` and its JSON. */
const char *het_layout_name(enum het_layout layout);	/* "aps-u" */
const char *het_dtype_name(enum het_dtype dtype);	/* "float32" */
const char *het_compress_name(enum het_compress c);	/* "lzf" */
const char *het_h5store_name(enum het_h5store s);	/* "chunked" */
const char *het_tri_name(enum het_tri t);		/* "upper" */

/*
 * Selection of bins and frames (the data part of a heterodyne or homodyne
 * config).  Initialise with het_selection_init, then set fields.
 */
struct het_selection {
	double		q;		/* target q; NAN: every ring */
	double		q_rtol;		/* > 0: the nearest ring must lie
					   within q_rtol * q; 0: any distance */
	const double	*phi;		/* phi targets (degrees), or NULL */
	size_t		nphi;		/* 0: every phi of the chosen rings */
	double		phi_tol;	/* > 0: circular distance limit
					   (degrees); 0: nearest, however far */
	long		first_frame;	/* 1-based, inclusive; 0 means 1 */
	long		last_frame;	/* 1-based, inclusive; 0 or -1 means
					   the last frame */
	double		dt;		/* > 0 overrides the file's dt */
	const char	*dt_source;	/* label of the override ("config:
					   analyzer_parameters.dt", "--dt");
					   NULL gives "override" */
};

/* het_selection_init: every ring, every phi, every frame, dt from file. */
void het_selection_init(struct het_selection *sel);

/* The result of a selection; caller-owned storage (init/fini). */
struct het_pick {
	size_t	*bins;		/* nbins bin indices, increasing (malloc'd) */
	size_t	nbins;
	long	first_frame;	/* resolved window, 1-based inclusive */
	long	last_frame;
	size_t	frames;		/* last_frame - first_frame + 1 */
};

/*
 * het_dataset_select: choose bins and the frame window.
 *   Rings: with a finite sel->q, the ring (bins sharing q_idx) whose q is
 *   nearest (ties: the lower q); with NAN, every ring.
 *   Angles: with sel->nphi == 0 every bin of the chosen rings; otherwise,
 *   in each chosen ring and for each target, the bin at the smallest
 *   circular distance min(|a-b| mod 360, 360 - |a-b| mod 360) (ties: the
 *   lower bin index).  Duplicates are merged.
 *   pick  on input, storage (need not be initialised); on success, filled
 *         (release with het_pick_fini); on failure, left empty.
 * Returns HET_OK; HET_ENOTFOUND when nothing lies within the tolerances
 * (the message lists the available q rings or phi values); HET_ERANGE
 * for a frame window outside 1..frames, reversed, or under 2 frames;
 * HET_EINVAL for a non-finite target; HET_ENOMEM.
 * Thread: any (reads only metadata held in memory).
 */
int het_dataset_select(const struct het_dataset *ds,
    const struct het_selection *sel, struct het_pick *pick,
    struct het_error *err);

/* het_pick_fini: free pick->bins and empty *pick.  NULL is a no-op. */
void het_pick_fini(struct het_pick *pick);

/*
 * het_dataset_dt: the frame time to use: sel->dt when it is > 0 (source
 * sel->dt_source or "override"), else the file's (source info.dt_source).
 *   sel     may be NULL (file only).
 *   dt, source  on success, the value in seconds and a borrowed label.
 * Returns HET_OK; HET_EINVAL for a negative or infinite sel->dt (0 and
 * NAN mean "not set") or one outside [HET_DT_MIN, HET_DT_MAX]; HET_ENOTFOUND with a message that names the path
 * looked for and how to set dt (config analyzer_parameters.dt or --dt).
 * Thread: any.
 */
int het_dataset_dt(const struct het_dataset *ds,
    const struct het_selection *sel, double *dt, const char **source,
    struct het_error *err);

/*
 * Plausible values of what a result file holds; a file outside them is
 * refused with the value, where it is and what to do, so damaged
 * metadata or data (or a flipped bit in an LZF chunk, which has no
 * checksum) is never fitted.
 *   q      finite, HET_Q_MIN < q < HET_Q_MAX 1/Å (XPCS reaches about
 *          1e-4 to 1 1/Å; beyond 10 there is no X-ray scattering).
 *   phi    finite, |phi| <= HET_PHI_MAX degrees as stored (before the
 *          selection reduces it to (-180, 180]): two turns either way.
 *   dt     (frame_time, and frame_time x stride x avg) finite, in
 *          [HET_DT_MIN, HET_DT_MAX] seconds: 1 ns to about 11.6 days.
 *   c2     finite, |c2| < HET_C2_MAX_ABS; values above HET_C2_UNUSUAL
 *          are read but counted (het_c2_info), since a normalised
 *          intensity correlation is close to 1.
 */
#define HET_Q_MIN	1e-6
#define HET_Q_MAX	10.0
#define HET_PHI_MAX	720.0
#define HET_DT_MIN	1e-9
#define HET_DT_MAX	1e6
#define HET_C2_MAX_ABS	1e3
#define HET_C2_UNUSUAL	10.0

/* What het_dataset_read_c2 learned about a matrix. */
struct het_c2_info {
	enum het_tri	tri;		/* how the window was stored */
	double		asymmetry;	/* FULL: max|M_ij - M_ji| / max|M|,
					   else 0 */
	size_t		nunusual;	/* values above HET_C2_UNUSUAL */
	double		maxval;		/* the largest value */
	size_t		max_i, max_j;	/* its frames (1-based, in the file) */
};

/* Full storage counts as symmetric up to this relative asymmetry. */
#define HET_C2_SYM_RTOL 1e-4

/*
 * het_dataset_read_c2: read the matrix of one bin, frames first..last.
 *   bin    0 <= bin < nbins.
 *   first, last  1-based inclusive frame window; 0, 0 means every frame.
 *   out    on output, n*n doubles (n = last - first + 1), row-major: the
 *          full symmetric matrix with its diagonal corrected.
 *   info   may be NULL; on success, how the matrix was stored.
 * Only the window's hyperslab is read from the file.  The stored window M
 * is classified (rule stated once, here):
 *   UPPER  every strictly-lower element is 0: full = M + M^T - diag(M);
 *   LOWER  otherwise, every strictly-upper element is 0: the same formula;
 *   FULL   both strict triangles hold non-zero values: the file stores
 *          full matrices, nothing is added; the upper triangle is kept
 *          and mirrored, so a full file and its triu() read identically.
 *          The two triangles must agree within HET_C2_SYM_RTOL * max|M|,
 *          else the matrix is ambiguous and the read fails.
 * Then the diagonal is replaced by the side-band mean of the reference
 * packages: d[0] = c[0][1], d[n-1] = c[n-2][n-1], d[i] = (c[i-1][i] +
 * c[i][i+1]) / 2.
 * Returns HET_OK; HET_EINVAL (bad bin index); HET_ERANGE (window outside
 * the file or under 2 frames); HET_EDATA (NaN or Inf, or |c2| >=
 * HET_C2_MAX_ABS: the message names the bin, the count and the first
 * frame pair); HET_EFORMAT (ambiguous
 * triangles, or HDF5 cannot read or decompress the data).  On failure the
 * content of out is unspecified.
 * Thread: the thread that currently uses ds.
 */
int het_dataset_read_c2(struct het_dataset *ds, size_t bin, long first,
    long last, double *out, struct het_c2_info *info, struct het_error *err);

/*
 * het_c2_correct_diagonal: the side-band diagonal correction above, in
 * place, on a full n x n matrix (n >= 2; n < 2 is left unchanged).
 * Thread: any.
 */
void het_c2_correct_diagonal(double *c2, size_t n);

/*
 * het_c2_lag_means: the one-time projection of a full n x n matrix: g[k]
 * = mean over i of c2[i][i+k], k = 0 .. n-1 (the mean along each lag
 * diagonal, what APS-U files store as normalized_g2).
 *   g  on output, n values.
 * Thread: any.
 */
void het_c2_lag_means(const double *c2, size_t n, double *g);

#endif /* HET_DATASET_H */
