/*
 * het_fit.h: the NLSQ fit driver of the engine: a joint multi-angle
 * bounded trust-region fit (het_nlsq.h) whose normal equations are
 * accumulated on the thread pool, with multistart, per-angle mode,
 * cancellation, per-iteration progress and the quality report.
 *
 * Module engine/fit (the opening comment of this folder): fitting on the
 * thread pool: the fit driver with multistart, per-angle fits, the basin
 * and identifiability checks and the report (het_fit*), and the fit job
 * the workstation and hetui fit run (het_fitjob*).
 *
 * Design:
 *   - The data are the upper-triangle pairs of a struct het_resid (the
 *     problem built by the data-assembly layer).  They are cut into
 *     chunks of a fixed number of pairs (opt->chunk, default
 *     HET_FIT_CHUNK) that does not depend on the thread count.  For each
 *     chunk a pool thread evaluates residuals and the compact Jacobian in
 *     blocks (het_resid_eval_compact), applies the robust loss per row
 *     and accumulates J^T J and J^T r with BLAS: the physics block with
 *     dsyrk, and per angle only the 2 x 2 (contrast, offset) block, the
 *     physics x 2 cross block and 2 gradient entries; the scaling columns
 *     of every mode are fixed combinations of those two (het_scaling_rows),
 *     so the dense p x p matrix is assembled once per evaluation after
 *     the reduction.  The full Jacobian is never stored: memory beyond
 *     the data is per-thread scratch plus a fixed number of partial sums.
 *   - Partial sums are folded in chunk order by het_pool_reduce, so a fit
 *     is bit-identical for any thread count.  OpenBLAS must be
 *     single-threaded for that (call het_pool_blas_single_threaded() in
 *     main(), or set OPENBLAS_NUM_THREADS=1): a threaded OpenBLAS rounds
 *     differently even in the small LAPACK calls of the solver.
 *   - The solver is driven iteration by iteration; between iterations the
 *     cancel flag is read and the progress callback is called.  After a
 *     cancel the result gets a brief report (het_fit_result.brief).
 *   - Block elimination (option blocks): in a joint fit of all columns
 *     the normal matrix is the physics block, dense, and per angle a
 *     contrast/offset block coupled only to the physics; the solver is
 *     told (het_nlsq_set_blocks) and then solves its subproblem in O(p)
 *     instead of decomposing the p x p matrix (11 s per iteration at
 *     p = 4003) whenever that is exact up to rounding.
 *   - Multistart: start 0 is the given x0, starts 1 .. n-1 a Latin
 *     hypercube inside the bounds (gsl_rng mt19937 seeded with
 *     nlsq.seed; infinite bounds fall back to x0 +- 10 % there).  The
 *     starts run concurrently, one per pool thread (het_pool_run with one
 *     chunk per start), each accumulating serially in the same chunk
 *     order, so every start's result equals the same start run alone.
 *     The best is the lowest cost; all starts are reported.  Screening:
 *     every start first runs at most screen_iter iterations; then only
 *     the screen_keep starts of lowest cost (and start 0, the given
 *     start) go on to convergence; the others end with reason
 *     HET_NLSQ_SCREENED.  The choice depends on the costs alone, so it
 *     is the same for any thread count.
 *   - Variable projection (linear loss, default): the residuals are
 *     affine in the scaling columns (contrast, offset, Fourier
 *     coefficients), so for given physics the best scaling inside its
 *     bounds follows from per-angle sums of one data pass by a small
 *     box-constrained quadratic program.  The trust-region solver then
 *     works on the physics columns alone: cost min_s F(theta, s), its
 *     gradient (the physics gradient at the best s) and the Kaufman
 *     Gauss-Newton matrix (the Schur complement of the free scaling
 *     block).  Same minimum, fewer and better-conditioned iterations;
 *     robust losses, or scaling_joint = 1, fit all columns jointly.
 *   - Early-window pre-fit (window_frames): on long series the start is
 *     first fitted to the first W frames, then the whole fit runs from
 *     there.
 *   - Basin strategy (het_fit_basin.c, option basin) of a joint fit:
 *     after the fit, an improbable chi2_red or a physics parameter newly
 *     stuck on a bound starts escape starts (stuck parameters released,
 *     reference and sample swapped, restarts around the best point and
 *     the start), screened like multistart; the lowest cost wins and
 *     the escape starts follow the fit's own in the result's starts.
 *   - Per-angle mode fits each angle alone (physics plus that angle's
 *     contrast and offset; the other angles' columns are ignored), one
 *     after the other, each from the same x0 (heterodyne-spec §8 l.12).
 */
#ifndef HET_FIT_H
#define HET_FIT_H

#include <stdatomic.h>
#include <stddef.h>

#include "het_config.h"
#include "het_error.h"
#include "het_nlsq.h"
#include "het_pool.h"
#include "het_resid.h"

/* Pairs per accumulation chunk when the options say 0. */
#define HET_FIT_CHUNK 4096
/* Multistart screening iterations when the options say 0. */
#define HET_FIT_SCREEN_ITER 20
/* Initial trust radius factor when the options say 0. */
#define HET_FIT_RADIUS0 1.0
/* Early-window frames when the options say 0 (used for N >= 2 W). */
#define HET_FIT_WINDOW 300
/* Fitted columns from which the block elimination is used by default
   (below, the dense eigen-decomposition costs little). */
#define HET_FIT_BLOCK_MIN 200
/* Parameters from which the report's eigen-analysis runs in a child
   process that a cancel can end (option eigen_fork_min). */
#define HET_FIT_EIGEN_FORK_MIN 1000

/* One iteration record, passed to the progress callback. */
struct het_fit_progress {
	long		 angle;		/* -1 for a joint fit, else the angle
					   of a per-angle fit */
	size_t		 start;		/* multistart index, 0 without */
	size_t		 nstarts;	/* 1 without multistart */
	long		 iter;		/* completed iterations (0: the start) */
	long		 nfev;		/* cost evaluations so far */
	long		 njev;		/* normal-equation evaluations so far */
	double		 cost;		/* loss cost F = 1/2 sum rho */
	double		 chi2_red;	/* sum r^2 / sigma^2 / dof, or sum
					   r^2 / dof when no sigma is given */
	double		 radius;	/* trust radius (scaled variables) */
	double		 lambda;	/* Levenberg-Marquardt parameter */
	double		 step_norm;	/* ||dx|| of this iteration, 0 when
					   it accepted no step */
	double		 g_norm;	/* ||scaled gradient||_inf */
	size_t		 p;		/* length of x */
	const double	*x;		/* current parameters, borrowed for
					   the duration of the call */
	int		 stage;		/* 1: the early-window pre-fit (its
					   cost covers fewer pairs), 0: the
					   fit itself */
};

/*
 * The progress callback.  Called once after the start is evaluated and
 * once after every iteration, on the thread running that fit: the caller
 * of het_fit_run, or a pool thread for concurrent multistart starts.
 * het_fit serialises the calls with a mutex, so the callback never runs
 * twice at once, but it must not block for long (post an event to
 * het_evq and return) and must not call back into the pool.
 */
typedef void (*het_fit_progress_fn)(void *ctx,
    const struct het_fit_progress *pr);

struct het_fit_options {
	/* method, loss, f_scale, ftol/xtol/gtol, x_scale_jac/x_scale,
	   max_nfev, max_iterations, multistart, multistart_n, seed.
	   method "lm" runs the same trust-region Levenberg-Marquardt
	   iteration (the result's warnings say so). */
	struct het_config_nlsq nlsq;
	/* NULL, or p per-parameter scales (x_scale_map) used when
	   nlsq.x_scale_jac is 0; entries <= 0 mean nlsq.x_scale. */
	const double	*x_scale;
	/*
	 * Noise sigma of the observed c2 (the far-lag estimate), in the
	 * units of the residuals: chi2 = sum r^2 / sigma^2.  0 (or NaN):
	 * unknown; then chi2_red is the raw sum r^2 / dof, the covariance
	 * is scaled by sum r^2 / dof (curve_fit's default) and a warning
	 * says so.  Pass 1 when the problem's weights already are
	 * 1 / sigma_k.
	 */
	double		 noise_sigma;
	/* NULL, or n_angles per-angle sigmas overriding noise_sigma (the
	   joint chi2 sums each angle's sum r^2 / sigma_a^2). */
	const double	*noise_sigma_angle;
	/*
	 * How many far-lag differences each sigma rests on (the
	 * het_problem noise_count): noise_count for noise_sigma,
	 * noise_count_angle (NULL: none) for noise_sigma_angle.  0 (or
	 * NULL) treats that sigma as exact.  The reduced chi-square test
	 * of the warnings (het_fit_check.c) derives its threshold from
	 * them: an estimate from few differences scatters, and the
	 * chi-square with it.
	 */
	size_t		 noise_count;
	const size_t	*noise_count_angle;
	size_t		 chunk;		/* pairs per chunk, 0: HET_FIT_CHUNK */
	/* 0 (default): project the scaling columns out when the loss is
	   linear (see the top of this file); 1: always fit them jointly
	   with the physics in the trust region. */
	int		 scaling_joint;
	/*
	 * The sums of the normal equations: 0 (default) from the separable
	 * form of the model (het_separable_normal: O(N) per frame instead
	 * of a pass over the pairs per evaluation) when the loss is linear,
	 * the model separable (every heterodyne mode, homodyne static), the
	 * weights equal and every fitted angle has all its pairs; the
	 * pre-fit's frame window and the final pass of the report always
	 * use the pair kernel.  1: always the pair kernel.
	 */
	int		 pair_kernel;
	/* Multistart screening (see above): iterations per start before
	   the choice (0: HET_FIT_SCREEN_ITER; < 0: no screening, every
	   start runs to its end), and how many continue (0: a quarter of
	   the starts, rounded up; start 0 always continues). */
	long		 screen_iter;
	size_t		 screen_keep;
	/* Initial trust radius as a fraction of SciPy's (0: the engine
	   default HET_FIT_RADIUS0, see het_nlsq_params.radius0). */
	double		 radius0;
	/*
	 * Early-window pre-fit of a joint fit (not per-angle): the start
	 * is first fitted to the pairs with both frames below W, and the
	 * fit proper (every start of a multistart: start 0) begins from
	 * that point.  The early frames pin the fast dynamics cheaply
	 * (W^2 / N^2 of the pairs), so the full fit starts in the right
	 * basin and needs few of its expensive iterations.  0: W =
	 * HET_FIT_WINDOW when the data span at least 2 W frames, else
	 * none; < 0: never; > 0: W (none when W >= N).  A pre-fit that
	 * cannot run (too few pairs) is skipped.
	 */
	long		 window_frames;
	/*
	 * The basin strategy of a joint fit (het_fit_basin.c): 0 (default)
	 * on, < 0 off (one local fit from the start, plus the multistart
	 * starts when asked for); > 0 a mask of its levers (development
	 * and bench runs, see het_fit_basin.c).
	 */
	int		 basin;
	/*
	 * The block elimination of the trust-region subproblem in a joint
	 * fit of all columns (het_nlsq_set_blocks: the physics columns
	 * dense, each angle's contrast/offset a block): an iteration costs
	 * O(p) instead of the O(p^3) eigen-decomposition when every
	 * direction is identifiable, and is then the same as the dense one
	 * up to rounding.  0 (default): when p >= HET_FIT_BLOCK_MIN; < 0
	 * never; > 0 whenever the scaling has that structure.
	 */
	int		 blocks;
	const atomic_int *cancel;	/* NULL, or the job's cancel flag */
	/*
	 * With a cancel flag, the report's eigen-analysis of a fit with at
	 * least eigen_fork_min parameters (0: HET_FIT_EIGEN_FORK_MIN) runs
	 * in a child process, so that a cancel ends it at once (LAPACK
	 * cannot be interrupted: 17 s of one core at p = 4003) and the fit
	 * returns HET_ECANCEL with the brief report.  eigen_started, when
	 * not NULL, is called (with progress_ctx, on the fit's thread) once
	 * that process runs.
	 */
	size_t		 eigen_fork_min;
	void		(*eigen_started)(void *ctx);
	het_fit_progress_fn progress;	/* NULL, or see above */
	void		*progress_ctx;
};

/* One multistart start (also filled, as a single start, without). */
struct het_fit_start {
	double		*x0;		/* p start values */
	double		*x;		/* p final values */
	double		 cost;		/* final loss cost */
	double		 chi2_red;	/* as in het_fit_result */
	long		 iterations;
	long		 nfev, njev;	/* cost and normal-equation
					   evaluations of the solver */
	long		 npass;		/* data passes made (a pass after an
					   accepted step yields the cost and
					   the normal equations at once) */
	long		 nsep;		/* of them, from the separable sums
					   (het_fit_options.pair_kernel) */
	long		 nblock;	/* iterations that solved their
					   subproblem by block elimination
					   (option blocks) */
	enum het_nlsq_reason reason;
	int		 status;	/* HET_OK; HET_ECANCEL (cancelled, or
					   never started: cost +inf, x = x0);
					   or the error that stopped it (its
					   sentence is among the warnings) */
};

struct het_fit_result {
	long		 angle;		/* -1 joint, else the fitted angle */
	size_t		 p;		/* fitted parameters */
	size_t		 n;		/* data: unique upper-triangle pairs */
	char		**names;	/* p parameter names (owned) */
	double		*x;		/* p fitted values (best start) */
	double		*x0;		/* p start values of the best start */
	double		*lo, *hi;	/* p bounds used */
	double		 cost;		/* final loss cost F = 1/2 sum rho */
	double		 rss;		/* sum r^2 (raw residuals) */
	double		 chi2;		/* sum r^2 / sigma^2 (rss when no
					   sigma) */
	double		 chi2_red;	/* chi2 / dof */
	double		 sigma;		/* the noise sigma used, 0: unknown */
	long		 dof;		/* n - p, at least 1 */
	long		 iterations;	/* of the best start */
	long		 nfev, njev;	/* of the best start */
	long		 npass;		/* data passes of the best start */
	long		 nsep;		/* of them, from the separable sums */
	double		 wall_time;	/* s, the whole call */
	long		 window_frames;	/* W of the early-window pre-fit, 0:
					   none ran */
	long		 window_iterations; /* its iterations */
	enum het_nlsq_reason reason;	/* of the best start */
	int		 converged;	/* het_nlsq_reason_converged(reason) */
	char		 message[256];	/* one sentence on how it ended */
	/*
	 * From s^2 (J^T J)^+ at x (loss-scaled J, as SciPy's curve_fit),
	 * s^2 = sigma^2, or rss / dof without sigma, on the identifiable
	 * subspace: numerically null eigen-directions of the unit-diagonal
	 * normal matrix are dropped, and so are (in a converged fit) weak
	 * directions along which the cost, probed at +- 2 sigma, rises
	 * less than a tenth of its quadratic prediction (a ridge), or
	 * whose one-sigma step spans a bound range (het_fit_ident.c);
	 * rank counts the rest.  A
	 * parameter with a zero Jacobian column, or degenerate (a real
	 * share of its variance in a dropped direction, degen[k] = 1), has
	 * NaN in its unc entry and its cov / corr rows and columns:
	 * writers must map NaN to null.  Each dropped direction is named
	 * in a warning, and the combinations of degenerate parameters that
	 * the data do determine are in combos (and in a warning each).
	 */
	double		*cov;		/* p * p */
	double		*corr;		/* p * p */
	double		*unc;		/* p one-sigma uncertainties */
	size_t		 rank;		/* identifiable directions */
	unsigned char	*degen;		/* p flags: degenerate */
	struct het_nlsq_combo *combos;	/* ncombos identifiable
					   combinations */
	size_t		 ncombos;
	/*
	 * 1: the brief report of a cancelled fit (het_fit_run returned
	 * HET_ECANCEL): the eigen-analysis, identifiability probes and
	 * combinations were skipped so that the cancel takes effect at
	 * once.  unc is all NaN (not computed, written as null like a
	 * degenerate parameter's), cov and corr are NULL, rank is 0, no
	 * parameter is flagged degenerate, and a warning says so.  0: the
	 * full report above.
	 */
	int		 brief;
	/*
	 * 1: the report was made by blocks (het_nlsq_quality_blocks: a
	 * joint fit under option blocks whose normal matrix was proven to
	 * have every direction kept and none weak; the same numbers as
	 * the eigen-analysis up to rounding, in O(p^2) instead of O(p^3)).
	 */
	int		 report_blocks;
	char		**warnings;	/* nwarnings sentences (owned) */
	size_t		 nwarnings;
	struct het_fit_start *starts;	/* nstarts, in start order: the
					   given start, the multistart
					   ones, then the basin
					   strategy's escape starts */
	size_t		 nstarts;
	size_t		 best;		/* index of the best start */
};

/*
 * het_fit_default_options: nlsq from the configuration defaults
 * (trf, soft_l1, f_scale 1, tolerances 1e-8, x_scale jac, max_nfev auto,
 * max_iterations 1000, no multistart, 10 starts, seed 42); no sigma,
 * default chunk, scaling projected (linear loss), default screening,
 * radius and early window (all 0), no cancel flag, no progress.
 * Thread: any.
 */
void het_fit_default_options(struct het_fit_options *opt);

/*
 * het_fit_run: fit a problem jointly (all angles at once).  A fit that
 * ends with physics parameters behind a floor of the model at every time
 * (a rate floored, a fraction clipped) is restarted off the floor and
 * the lower cost kept (het_fit_floor.c); a converged result's warnings
 * include the calibrated reduced chi-square test and the residual-
 * structure test (het_fit_check.c), each only when it fails.
 *   pool   the pool to accumulate on, or NULL to run on the calling
 *          thread.  Not one of the pool's own threads.
 *   r      the problem (borrowed; must not change during the call).
 *   x0     NULL (het_resid_x0) or p start values inside [lo, hi].
 *   lo,hi  NULL (het_resid_bounds) or p bounds each (configured bounds).
 *   opt    options (copied; the pointers in it are borrowed).
 *   out    on HET_OK or HET_ECANCEL, a result owned by the caller
 *          (het_fit_result_free); otherwise NULL.
 * Returns
 *   HET_OK       the fit ran to a stopping test: converged, or stopped by
 *                max_nfev / max_iterations (result->converged = 0 and a
 *                warning say so; non-convergence is a result);
 *   HET_ECANCEL  *opt->cancel was set: *out holds the last accepted point
 *                of every start (x inside the bounds, cost = F(x)) with
 *                reason HET_NLSQ_CANCELLED (cancelled during the
 *                early-window pre-fit: its last point, as start 0),
 *                and a brief report (result->brief: no uncertainties);
 *                no floor restart or basin escape runs after a cancel
 *                (cancelled during one: the fit before it, with its
 *                full report);
 *   HET_EINVAL   a bad option, start or bound (the message names it), or
 *                fewer data than parameters;
 *   HET_EDATA    the cost at the start is not finite;
 *   HET_ENOMEM, HET_EINTERNAL, or a pool error.
 * Thread: a job thread (it blocks); never the loop thread.
 */
int het_fit_run(struct het_pool *pool, const struct het_resid *r,
    const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_fit_result **out,
    struct het_error *err);

/*
 * het_fit_run_per_angle: fit every angle on its own, like the reference
 * packages: angle a uses its pairs only and the parameters physics +
 * that angle's contrast/offset columns (scaling columns of other angles
 * are not part of its result).  Needs individual or constant scaling and
 * the pairs grouped by angle (each angle's pairs contiguous), which is
 * how the data layer builds them; otherwise HET_EINVAL.
 *   x0, lo, hi  as for het_fit_run, in the joint layout of r.
 *   out         on HET_OK / HET_ECANCEL an array of *nout = n_angles
 *               results (free with het_fit_results_free); result a has
 *               angle = a and its own p, names and vectors.  After a
 *               cancel, angles not started have NULL entries.
 * Each angle's fit is restarted off a floor and checked as in
 * het_fit_run, its chi-square test with that angle's sigma and count.
 * Returns as het_fit_run (HET_ECANCEL if any angle was cancelled).
 * Thread: as het_fit_run.
 */
int het_fit_run_per_angle(struct het_pool *pool, const struct het_resid *r,
    const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_fit_result ***out,
    size_t *nout, struct het_error *err);

/* Free a result / an array of n results (NULL and NULL entries are
   fine). */
void het_fit_result_free(struct het_fit_result *res);
void het_fit_results_free(struct het_fit_result **res, size_t n);

#endif /* HET_FIT_H */
