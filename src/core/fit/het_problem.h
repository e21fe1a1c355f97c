/*
 * het_problem.h: data assembly for a fit: from a configuration and an
 * open dataset, everything the NLSQ engine (and later the sampler) needs.
 *
 * het_problem_build() does, in this order:
 *   1. Selection.  The q ring nearest to analyzer_parameters.scattering.
 *      wavevector_q (within HET_PROBLEM_Q_RTOL of it; a file with one
 *      ring needs no q); the angles of that ring (rules below); the frame
 *      window start_frame..end_frame (1-based, inclusive, -1 = last).
 *   2. Data.  Each selected matrix is read once (het_dataset_read_c2:
 *      symmetric, diagonal corrected) into one reused N x N buffer; its
 *      upper triangle i < j becomes pairs (angle-major, then row-major)
 *      and y values.  The diagonal is never a datum and no matrix is kept:
 *      memory is the pairs (12 bytes) and y (8 bytes) per datum, plus one
 *      matrix while reading.
 *   3. Noise.  Per angle, the far-lag noise estimate sigma_a (below).
 *   4. Model.  mode from the config; q = the selected ring's q as stored
 *      in the FILE; dt = --dt, else analyzer_parameters.dt, else the
 *      file's (het_dataset_dt); start_frame = the window's first frame;
 *      N = window length; angles = the selected bins' phi; gap from the
 *      config.
 *   5. Scaling.  het_config_scaling_resolve(cfg, n_angles, 0), with the
 *      config's contrast/offset values and bounds and Fourier order.
 *      Start values: the per-angle quantile estimates (het_scaling_
 *      estimate), projected onto the mode with het_scaling_project, unless
 *      initial_parameters.per_angle_scaling gives per-angle values (one
 *      value is broadcast to every angle), which are projected instead.
 *      A quantity held fixed (vary: false) and not given per angle uses
 *      parameters.scaling.<name>.value, as the reference CLI does.  The
 *      constant mode fixes the per-angle values the same way.
 *   6. Parameters.  Physics start values, bounds and vary flags from the
 *      config (bounds of the config override het_resid_bounds); every
 *      start is clipped into its bounds (with a warning).
 *
 * Angle rules (heterodyne-spec.md §3.3, adapted):
 *   - analyzer_parameters.scattering.phi_angles: each angle takes the bin
 *     of the ring at the smallest circular distance; a warning is issued
 *     when that distance exceeds phi_filtering.tolerance, or when two
 *     angles pick the same bin.
 *   - else, with phi_filtering.enabled: the bins whose phi, wrapped to
 *     [-180, 180), lies in a target range widened by tolerance on both
 *     sides (ranges wrapped to (-180, 180]; lo > hi wraps through 180).
 *     No bin in any range: every bin of the ring when
 *     fallback_to_all_angles (with a warning), else HET_ENOTFOUND listing
 *     the ring's angles.  (The reference falls back to phi = 0.)
 *   - else every bin of the ring.  (The reference uses phi = 0 only; the
 *     hetui config defines "no phi_angles" as "all".)
 *
 * Far-lag noise estimate (used for the reduced chi-square, heterodyne-
 * spec.md §5.4 replaced by a robust estimator): for each angle, with the
 * lag l = j - i of a pair, the far-lag region is l >= L, where L is the
 * smallest lag for which the pairs with lag >= L make at most
 * HET_PROBLEM_NOISE_FRAC (20 %) of the angle's pairs (the region the
 * quantile estimator takes the offset from).  Along each diagonal (a
 * fixed lag) of the region, neighbouring elements give a difference
 * d = c2[i+1][j+1] - c2[i][j].  Along a diagonal the lag is constant, so
 * everything in the model that depends on the lag alone (the decay and
 * the flow oscillation of an equilibrium sample, however fast) cancels
 * exactly, and a slow drift in absolute time (ageing, time-dependent
 * fractions) only shifts d by a nearly constant amount, which the median
 * removes.  Neighbours on a diagonal share no frame, so their noise is as
 * independent as c2 noise gets.  For independent noise of standard
 * deviation sigma, var d = 2 sigma^2, so
 *	sigma_a = 1.4826 MAD(d) / sqrt(2),
 * MAD being the median absolute deviation from the median (robust to
 * outliers and to the rare fast feature).  When the region holds fewer
 * than HET_PROBLEM_NOISE_MIN differences, L is lowered until it does (or
 * L = 1); with still too few (tiny N), sigma_a is NAN.  The pooled value
 * is sigma = sqrt(mean over angles of sigma_a^2) over the finite sigma_a.
 * Caveats, stated in the man page: positively correlated noise along a
 * diagonal makes the estimate low (the reduced chi-square then comes out
 * above 1); a model that changes quickly with absolute time within the
 * region makes it high.
 *
 * Ownership: a problem owns all its arrays, the model, the scaling and
 * the residual problem (which borrows the pairs and y from it).  It is
 * immutable after het_problem_build and may be shared by threads.
 */
#ifndef HET_PROBLEM_H
#define HET_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "het_config.h"
#include "het_dataset.h"
#include "het_error.h"
#include "het_model.h"
#include "het_resid.h"
#include "het_scaling.h"

/* The nearest q ring must lie within this fraction of the config's q. */
#define HET_PROBLEM_Q_RTOL	0.2
/* Fraction of an angle's pairs forming the far-lag noise region. */
#define HET_PROBLEM_NOISE_FRAC	0.2
/* Fewest differences the noise estimate accepts per angle. */
#define HET_PROBLEM_NOISE_MIN	50
/*
 * Effective degrees of freedom of sigma_a^2 per difference used: for
 * white Gaussian noise, var(sigma_a^2) / sigma^4 = 2 / (EFF m) with m
 * the differences (noise_count).  Measured over 4000 matrices each:
 * nu / m = 0.302 (N = 25, m = 55), 0.308 (50), 0.305 (100), 0.316
 * (300); below the 0.37 of a MAD of independent values because
 * neighbouring differences on a diagonal share an element.
 */
#define HET_PROBLEM_NOISE_EFF	0.30

/*
 * Progress of het_problem_build: called after bin k (0-based) of n has
 * been read; `bin` is the file's bin.  Return 0 to go on, non-zero to
 * cancel (the build then fails with HET_ECANCEL).
 */
typedef int (*het_problem_progress_fn)(void *arg, size_t k, size_t n,
    const struct het_bin *bin);

/* Overrides of the command line and callbacks; zero-initialise. */
struct het_problem_opts {
	double		 dt;		/* > 0 overrides config and file */
	const char	*dt_source;	/* its label, NULL gives "--dt" */
	het_problem_progress_fn progress;	/* NULL: none */
	void		*progress_arg;
	uint64_t	 mem_available;	/* bytes the window may take (see
					   het_memory.h); 0: probe */
};

/* How the angles were chosen (het_problem_angle_rule_name). */
enum het_problem_angle_rule {
	HET_ANGLES_LIST = 0,	/* scattering.phi_angles */
	HET_ANGLES_FILTER,	/* phi_filtering ranges */
	HET_ANGLES_FALLBACK,	/* phi_filtering matched nothing: all */
	HET_ANGLES_ALL		/* no angle setting: all */
};

/* Everything a fit needs.  Read-only after het_problem_build. */
struct het_problem {
	/* provenance and selection */
	char		*data_path;	/* the file as opened */
	enum het_layout	 layout;
	int		 q_set;		/* the config named a q */
	double		 q_target;	/* the config's q, NAN if none */
	double		 q;		/* the selected ring's q (file) */
	size_t		 q_idx;		/* index into the file's q list */
	size_t		 nangles;
	size_t		*bins;		/* nangles file bin indices */
	long		*labels;	/* nangles 1-based bin labels */
	double		*phi;		/* nangles phi of the bins (deg) */
	enum het_dtype	 dtype;		/* HET_DTYPE_F32 when every selected
					   matrix is float32, else F64 */
	enum het_problem_angle_rule angle_rule;
	long		 first_frame, last_frame; /* 1-based inclusive */
	size_t		 n_frames;	/* N */
	double		 dt;		/* s */
	char		*dt_source;	/* "config: analyzer_parameters.dt",
					   "--dt", "file: ..." */

	/* data: pairs of angle a are pair_first[a] .. pair_first[a+1]-1 */
	size_t		 npairs;
	struct het_pair	*pairs;
	double		*y;
	size_t		*pair_first;	/* nangles + 1 offsets */

	/* far-lag noise estimate */
	double		*sigma_angle;	/* nangles, NAN when too few data */
	double		 sigma;		/* pooled, NAN when no angle has one */
	long		*noise_lag;	/* nangles: the region's L */
	size_t		*noise_count;	/* nangles: differences used */

	/* model and scaling */
	struct het_model_spec spec;	/* spec.phi points at phi */
	struct het_model *model;
	struct het_scaling *scaling;
	enum het_scaling_mode scaling_mode;
	double		*est_contrast;	/* nangles quantile estimates */
	double		*est_offset;
	int		 scaling_from_config; /* start values were given per
					   angle in the config */

	/* the physics and scaling vectors of het_resid */
	size_t		 nphys;
	double		 theta[HET_MAX_PHYS];	/* start (fixed) values */
	unsigned char	 phys_free[HET_MAX_PHYS];
	double		 phys_lo[HET_MAX_PHYS], phys_hi[HET_MAX_PHYS];
	size_t		 nscal;
	double		*s0;		/* nscal start values */
	unsigned char	*s_free;	/* nscal flags */

	/* the residual problem and its x-space (p free parameters) */
	struct het_resid *resid;
	size_t		 p;
	double		*x0;		/* p start values, inside bounds */
	double		*lo, *hi;	/* p bounds */

	/* diagnostics that are not errors, one sentence each */
	char		**warnings;
	size_t		 nwarnings;
};

/*
 * het_problem_dataset_open: open the data file path of a fit with
 * what the configuration says of a NumPy .npy file's metadata
 * (het_dataset_open_meta): q from wavevector_q, the angles from
 * phi_angles, dt from dt (`dt` > 0 overrides it, as --dt does); unset
 * ones come from the file's sidecar.  HDF5 files carry their own.
 * Returns the dataset or NULL with het_dataset_open_meta's errors.
 * Thread: any.
 */
struct het_dataset *het_problem_dataset_open(const struct het_config *cfg,
    const char *path, double dt, struct het_error *err);

/*
 * het_problem_data_path: the data file of a fit: `override` when not
 * NULL (used as given), else the config's data_file resolved against the
 * config's directory.  Returns a malloc'd string (caller frees), or NULL
 * with HET_EINVAL (no file anywhere: the message says to give FILE or
 * experimental_data.file_path) or HET_ENOMEM.  Thread: any.
 */
char *het_problem_data_path(const struct het_config *cfg,
    const char *override, struct het_error *err);

/*
 * het_problem_build: select, read and assemble (see the top of this file).
 *   cfg   a validated configuration (not kept).
 *   ds    the open dataset; read through, not kept.
 *   opts  may be NULL (no overrides, no progress).
 * Returns a new problem (free with het_problem_free), or NULL with err:
 *   HET_ENOTFOUND  no q ring within HET_PROBLEM_Q_RTOL of the config's q,
 *                  several rings and no q configured, no angle in any
 *                  phi_filtering range without fallback (each message
 *                  lists what the file offers), dt unknown;
 *   HET_ERANGE     the frame window lies outside the file;
 *   HET_EINVAL     per-angle scaling lists whose length is neither 1 nor
 *                  the number of selected angles, a scaling or model the
 *                  configuration cannot build (the message names the key);
 *   HET_EDATA, HET_EFORMAT  bad matrices (from the reader, prefixed with
 *                  the bin);
 *   HET_ECANCEL    the progress callback asked to stop;
 *   HET_ENOMEM.
 * Thread: the thread that currently uses ds.
 */
struct het_problem *het_problem_build(const struct het_config *cfg,
    struct het_dataset *ds, const struct het_problem_opts *opts,
    struct het_error *err);

/* het_problem_free: release everything; NULL is a no-op. */
void het_problem_free(struct het_problem *pb);

/*
 * het_problem_noise: the far-lag noise estimate of one full n x n matrix
 * (row-major; only the upper triangle is read), as defined above.
 *   lag, count  may be NULL; the region's L and the differences used.
 * Returns sigma, or NAN when fewer than HET_PROBLEM_NOISE_MIN
 * differences exist even at L = 1, or on memory exhaustion (count is then
 * 0).  Thread: any.
 */
double het_problem_noise(const double *c2, size_t n, long *lag,
    size_t *count);

/*
 * het_problem_chi2_red: the reduced chi-square of residuals r (npairs
 * values, unweighted model - data, as het_resid gives with w = 1):
 * sum_k (r_k / sigma_a(k))^2 / max(npairs - p, 1), with sigma_a the
 * angle's estimate (the pooled sigma where an angle has none).  Returns
 * NAN when the problem has no finite sigma.  Thread: any.
 */
double het_problem_chi2_red(const struct het_problem *pb, const double *r,
    size_t p);

/* "phi_angles", "phi_filtering", "fallback_to_all_angles", "all". */
const char *het_problem_angle_rule_name(enum het_problem_angle_rule rule);

#endif /* HET_PROBLEM_H */
