/*
 * het_nlsq.h: a bounded trust-region nonlinear least-squares solver that
 * works from the normal equations, driven step by step.
 *
 * Module core/fit (the opening comment of this folder): the least-
 * squares problem and its solver: per-angle contrast and offset
 * (het_scaling), the residual problem over pairs (het_resid), its
 * separable sums (het_separable), the problem of a dataset window and
 * its noise estimate (het_problem), and the step-wise trust-region
 * solver with its report (het_nlsq*).  Options come in the solver's own
 * structs; configuration is mapped onto them by core/config's bridge.
 *
 * The solver minimises F(x) = 1/2 sum_k rho_k subject to lo <= x <= hi,
 * where rho_k = f_scale^2 rho((r_k / f_scale)^2) is the robust loss of
 * residual k (rho(z) = z for the linear loss, so F = 1/2 sum r_k^2).  It
 * is the Trust Region Reflective algorithm of Branch, Coleman and Li
 * (SIAM J. Sci. Comput. 21, 1999) in the form SciPy's
 * least_squares(method='trf', tr_solver='exact') implements it:
 * Coleman-Li scaling of the variables, optional x_scale ('jac': column
 * norms of J, never decreasing), the exact trust-region subproblem
 * solved by Moré's secular-equation iteration for the
 * Levenberg-Marquardt parameter, reflective and gradient steps with a
 * step-back theta = max(0.995, 1 - ||g||) so iterates stay strictly
 * inside the bounds, and SciPy's ftol / xtol / gtol / max_nfev tests.
 *
 * Unlike SciPy it never sees the Jacobian J (n x p, n up to 10^7): the
 * caller's evaluation function returns, at a point x, the cost, the raw
 * residual sum of squares and, when asked, the p x p matrix J^T J and the
 * gradient J^T r of the loss-scaled problem (each row of J and r scaled
 * as SciPy's scale_for_robust_loss_function does; het_nlsq_loss gives
 * the factors).  Everything the algorithm needs follows from the
 * eigendecomposition A = V S^2 V^T of the p x p scaled, Coleman-Li
 * augmented normal matrix (LAPACK dsyevr): Vᵀ J_hᵀ f is V^T g_h, so the
 * SVD quantities of SciPy's solve_lsq_trust_region are available without
 * J.  Eigenvalues below 100 p eps of the largest are treated as exact
 * zeros (the model has exact degeneracies), so steps are minimum-norm
 * on the identifiable subspace.  A caller whose J^T J has a dense head
 * and a block-diagonal tail may declare it (het_nlsq_set_blocks): a
 * full-rank iteration then solves by block elimination instead of the
 * O(p^3) decomposition, the same up to rounding.
 *
 * Shape (GSL, aesthetics-anchors §3): het_nlsq_alloc sizes a workspace
 * from p; het_nlsq_init evaluates the start; each het_nlsq_iterate does
 * one outer iteration (trial steps until one is accepted or a test
 * stops); het_nlsq_test says whether to continue.  Between iterations a
 * caller may cancel, report progress or read the state.  Nothing is
 * allocated after het_nlsq_alloc.  The core has no threads: the caller
 * may compute the sums on a thread pool inside its evaluation function.
 *
 * Thread: a workspace belongs to one thread at a time; different
 * workspaces are independent.
 */
#ifndef HET_NLSQ_H
#define HET_NLSQ_H

#include <stddef.h>

#include "het_error.h"

/* Robust loss rho(z) applied to z = (r / f_scale)^2 (scipy convention). */
enum het_nlsq_loss {
	HET_LOSS_LINEAR = 0,	/* rho = z, plain least squares */
	HET_LOSS_SOFT_L1,	/* rho = 2 (sqrt(1 + z) - 1) */
	HET_LOSS_HUBER,		/* rho = z (z <= 1), 2 sqrt(z) - 1 */
	HET_LOSS_CAUCHY,	/* rho = ln(1 + z) */
	HET_LOSS_ARCTAN,	/* rho = arctan(z) */
	HET_LOSS_COUNT
};

/* Why an iteration stopped (or that it has not). */
enum het_nlsq_reason {
	HET_NLSQ_RUNNING = 0,	/* not stopped yet */
	HET_NLSQ_GTOL,		/* ||scaled gradient||_inf < gtol */
	HET_NLSQ_FTOL,		/* dF < ftol F on a good step */
	HET_NLSQ_XTOL,		/* ||dx|| < xtol (xtol + ||x||) */
	HET_NLSQ_FTOL_XTOL,	/* both ftol and xtol */
	HET_NLSQ_MAX_NFEV,	/* function evaluation limit reached */
	HET_NLSQ_MAX_ITER,	/* iteration limit reached */
	HET_NLSQ_CANCELLED,	/* stopped on request (set by a driver) */
	HET_NLSQ_FAILED,	/* an evaluation failed (set by a driver) */
	HET_NLSQ_SCREENED,	/* a multistart start dropped after its
				   screening iterations (set by a driver) */
	HET_NLSQ_REASON_COUNT
};

/* Short name ("gtol", "max_nfev", ...) and a sentence for a reason. */
const char *het_nlsq_reason_name(enum het_nlsq_reason reason);
const char *het_nlsq_reason_text(enum het_nlsq_reason reason);

/* 1 for the converged reasons (gtol, ftol, xtol, ftol_xtol), else 0. */
int het_nlsq_reason_converged(enum het_nlsq_reason reason);

/*
 * The accumulator an evaluation function fills, acc[0 ..
 * het_nlsq_acc_len(p)):
 *   acc[HET_NLSQ_ACC_COST]  F = 1/2 sum rho_k (loss cost)
 *   acc[HET_NLSQ_ACC_RSS]   sum r_k^2 (raw residuals, no loss)
 *   acc + HET_NLSQ_ACC_G    p values, g = Ĵ^T r̂ (loss-scaled)
 *   acc + het_nlsq_acc_jtj(p)  p * p values, Ĵ^T Ĵ row-major; only the
 *                           upper triangle (column >= row) is read.
 * Everything is a plain sum over residuals, so partial accumulators of
 * disjoint row sets add up (the engine reduces them in chunk order).
 */
#define HET_NLSQ_ACC_COST	0
#define HET_NLSQ_ACC_RSS	1
#define HET_NLSQ_ACC_G		2
#define het_nlsq_acc_jtj(p)	((size_t)2 + (p))
#define het_nlsq_acc_len(p)	((size_t)2 + (p) + (p) * (p))

/*
 * An evaluation function.
 *   ctx       the caller's context.
 *   x         p values, strictly inside the bounds.
 *   want_jac  0: fill COST and RSS only; 1: fill the whole accumulator.
 *   acc       on output the sums at x (input contents are garbage).
 * Returns HET_OK, or an error status with a message in err (the solver
 * stops and returns it).  A non-finite cost is not an error: the solver
 * shrinks the trust region, as SciPy does for non-finite residuals.
 */
typedef int (*het_nlsq_eval_fn)(void *ctx, const double *x, int want_jac,
    double *acc, struct het_error *err);

/* Tunables; het_nlsq_default_params gives SciPy's defaults. */
struct het_nlsq_params {
	enum het_nlsq_loss loss;	/* linear */
	double		 f_scale;	/* > 0, residual scale of the loss; 1 */
	double		 ftol;		/* >= 0; 1e-8 */
	double		 xtol;		/* >= 0; 1e-8 */
	double		 gtol;		/* >= 0; 1e-8 */
	int		 x_scale_jac;	/* 1: x_scale 'jac'; 1 */
	const double	*x_scale;	/* !x_scale_jac: NULL (all 1) or p
					   values > 0, borrowed until init */
	long		 max_nfev;	/* >= 1, or 0 = 100 p; 0 */
	long		 max_iter;	/* >= 1, or 0 = no limit; 0 */
	double		 radius0;	/* > 0: initial trust radius as a
					   fraction of SciPy's ||x0 / x_scale||
					   (Coleman-Li scaled); 0 = 1 */
};

/* Progress and state after init or an iteration. */
struct het_nlsq_info {
	long	 iter;		/* completed outer iterations */
	long	 nfev;		/* cost evaluations, the start included */
	long	 njev;		/* Jacobian (normal-equation) evaluations */
	double	 cost;		/* F at x */
	double	 rss;		/* sum r^2 at x (raw) */
	double	 radius;	/* trust radius Delta, scaled variables */
	double	 lambda;	/* Levenberg-Marquardt parameter alpha */
	double	 step_norm;	/* ||dx|| of the last accepted step, 0 if
				   the last iteration accepted none */
	double	 reduction;	/* F decrease of the last accepted step */
	double	 g_norm;	/* ||v g||_inf, the gtol measure */
	enum het_nlsq_reason reason;
};

struct het_nlsq;

/* het_nlsq_default_params: fill *par with the defaults above. */
void het_nlsq_default_params(struct het_nlsq_params *par);

/*
 * het_nlsq_loss: the robust loss of one residual r.
 *   out[0]  rho = f_scale^2 rho(z), z = (r / f_scale)^2 (cost term: F is
 *           half the sum of these);
 *   out[1]  the row factor sqrt(max(rho' + 2 rho'' r^2 / f_scale^2,
 *           eps)) that multiplies the Jacobian row;
 *   out[2]  the scaled residual r rho' / out[1].
 * For the linear loss out = {r^2, 1, r}.  Thread: any.
 */
void het_nlsq_loss(enum het_nlsq_loss loss, double f_scale, double r,
    double out[3]);

/*
 * het_nlsq_acc_rows: add n residuals r and their dense Jacobian rows J
 * (n x p row-major) to an accumulator, applying the loss.  J and r are
 * overwritten with their loss-scaled values.  acc must hold
 * het_nlsq_acc_len(p) values (added to, not cleared).  With want_jac 0
 * only COST and RSS are added and J may be NULL.  Uses BLAS dsyrk and
 * dgemv.  Thread: any.
 */
void het_nlsq_acc_rows(enum het_nlsq_loss loss, double f_scale, size_t n,
    size_t p, double *r, double *J, int want_jac, double *acc);

/*
 * het_nlsq_alloc: a workspace for problems of p >= 1 parameters.
 * Returns it (free with het_nlsq_free) or NULL with HET_EINVAL (p = 0)
 * or HET_ENOMEM.  Thread: any.
 */
struct het_nlsq *het_nlsq_alloc(size_t p, struct het_error *err);
void het_nlsq_free(struct het_nlsq *w);

/*
 * Block structure of the normal matrix (het_nlsq_block.c).  A fit's
 * physics columns couple with everything, but each angle's contrast
 * and offset only with the physics and each other: J^T J is a dense
 * head and a block-diagonal tail.  Declared, it lets an iteration solve
 * its trust-region subproblem by block elimination (O(p nd^2) per trial
 * instead of the O(p^3) eigen-decomposition) whenever that gives the
 * dense path's answer up to rounding: the entries between blocks are
 * exactly zero, n >= p, and a rigorous bound shows every eigen-direction
 * would be kept (lam_min / lam_max >= 1e-8); otherwise that iteration
 * decomposes densely as before.
 *
 * het_nlsq_set_blocks: columns 0 .. nd-1 dense; column nd + c in block
 * blk[c] (c < p - nd; ids 0 .. nb-1, each block 1 to HET_NLSQ_BLOCK_MAX
 * columns).  blk NULL removes the structure.  Call before init.
 * HET_OK, HET_EINVAL (nd >= p, an id out of range, an empty or too
 * large block: the message says which), HET_ENOMEM.
 * het_nlsq_blocks_used: 1 when the last iteration used the blocks.
 * Thread: as the workspace.
 */
#define HET_NLSQ_BLOCK_MAX 8
int het_nlsq_set_blocks(struct het_nlsq *w, size_t nd, const size_t *blk,
    size_t nb, struct het_error *err);
int het_nlsq_blocks_used(const struct het_nlsq *w);

/*
 * het_nlsq_init: start a fit.
 *   fn, ctx  the evaluation function (borrowed for the life of the fit).
 *   x0       p start values (copied); each must lie in [lo, hi]; it is
 *            moved strictly inside by 1e-10 max(1, |bound|) as SciPy
 *            does.
 *   lo, hi   p bounds each (copied), lo < hi; -INFINITY / INFINITY for
 *            none.
 *   par      tunables (copied).
 *   n        the number of residuals (for the rank test); >= 1.
 * Evaluates the cost and the normal equations at the start.
 * Returns HET_OK; HET_EINVAL for a bad bound, a start outside its bounds
 * or a bad tunable (the message names the parameter index or setting);
 * HET_EDATA when the cost at the start is not finite; or the status of
 * the evaluation function.
 */
int het_nlsq_init(struct het_nlsq *w, het_nlsq_eval_fn fn, void *ctx,
    size_t n, const double *x0, const double *lo, const double *hi,
    const struct het_nlsq_params *par, struct het_error *err);

/*
 * het_nlsq_iterate: one outer iteration: solve the trust-region
 * subproblem, try steps (each one cost evaluation) until the cost
 * decreases or a stopping test fires, then, on a decrease, accept the
 * step and evaluate the normal equations there.
 * Returns HET_OK (call het_nlsq_test next), HET_EINVAL when called after
 * the fit stopped or before init, HET_EINTERNAL if LAPACK fails, or the
 * status of the evaluation function (the state is then that of the last
 * accepted point, still consistent).
 */
int het_nlsq_iterate(struct het_nlsq *w, struct het_error *err);

/*
 * het_nlsq_test: HET_CONTINUE while no test has fired; HET_OK when the
 * fit converged (gtol, ftol, xtol); HET_EMAXITER when max_nfev or
 * max_iter stopped it.  het_nlsq_reason tells which.
 */
int het_nlsq_test(const struct het_nlsq *w);
enum het_nlsq_reason het_nlsq_reason(const struct het_nlsq *w);

/*
 * Accessors of the current (last accepted) point; borrowed, valid until
 * the next init or iterate.  het_nlsq_jtj is the full symmetric Ĵ^T Ĵ
 * (p x p), het_nlsq_grad Ĵ^T r̂ (p values).
 */
const double *het_nlsq_x(const struct het_nlsq *w);
const double *het_nlsq_jtj(const struct het_nlsq *w);
const double *het_nlsq_grad(const struct het_nlsq *w);
void het_nlsq_info(const struct het_nlsq *w, struct het_nlsq_info *info);
size_t het_nlsq_nparams(const struct het_nlsq *w);

/*
 * Quality of a fit from its normal equations.
 *
 * het_nlsq_quality: covariance s2 (Ĵ^T Ĵ)^+ by a pseudo-inverse on the
 * identifiable subspace, with a rank-revealing analysis.  The matrix is
 * first scaled to unit diagonal (zero columns stay zero), so that its
 * eigenvalues lam_k and eigen-directions Z_k do not depend on parameter
 * units.  Directions with lam_k below 1000 p eps of the largest are
 * numerically null and dropped (HET_NLSQ_DIR_NULL); the caller may drop
 * more (het_nlsq_quality_drop), e.g. a direction along which the cost
 * was found to rise far less than its quadratic model predicts.
 *
 * A parameter is degenerate when the dropped directions hold a share of
 * its variance at least equal to that of the kept ones: its "leak"
 * sum over dropped k of s2 Z_ki^2 / (cn_i^2 lam'_k) is >= its
 * pseudo-inverse variance (lam'_k: lam_k divided by the caller's
 * flatness factor, at least 1000 p eps lam_max).  A degenerate parameter
 * has NaN in unc and in its cov and corr rows and columns (no finite
 * uncertainty: the data do not determine it); so has a parameter with a
 * zero Jacobian column.  cov_pinv keeps the unmasked pseudo-inverse for
 * combinations (het_nlsq_quality_combo).
 *   p, jtj   the full symmetric p x p matrix (not modified).
 *   s2       variance scale (sigma^2, or rss / dof).
 *   x, lo, hi, names  the solution, its bounds and parameter names (for
 *            the warnings; names may be NULL: "x[k]"; x, lo, hi may be
 *            NULL: no bound flags).
 * Fills q (free with het_nlsq_quality_fini): cov, corr (p x p), unc,
 * rank, at_bound, zero_col, degen, the eigen-analysis, and warnings in
 * words: a parameter at a bound; |correlation| > 0.99 between two
 * parameters; a zero-gradient parameter; each dropped direction (naming
 * its parameters).
 * Returns HET_OK, HET_ENOMEM, or HET_EINTERNAL when LAPACK fails.
 * Thread: any.
 */
enum het_nlsq_dir {
	HET_NLSQ_DIR_KEPT = 0,
	HET_NLSQ_DIR_NULL,	/* numerically zero eigenvalue */
	HET_NLSQ_DIR_RIDGE,	/* the cost barely rises along it (caller) */
	HET_NLSQ_DIR_LOOSE	/* its one-sigma step spans a parameter's
				   whole bound range (caller) */
};

struct het_nlsq_quality {
	size_t	  p;
	double	 *cov;		/* p * p, NaN rows of degenerate ones */
	double	 *corr;		/* p * p */
	double	 *unc;		/* p, NaN for degenerate parameters */
	size_t	  rank;		/* kept eigen-directions */
	unsigned char *at_bound; /* p flags: 0 free, 1 lower, 2 upper */
	unsigned char *zero_col; /* p flags */
	unsigned char *degen;	/* p flags: a share of the parameter's
				   variance lies in a dropped direction */
	/* The eigen-analysis of the unit-diagonal normal matrix. */
	double	 *lam;		/* p eigenvalues, ascending */
	double	 *Z;		/* p * p, row k = eigen-direction k */
	double	 *cn;		/* p column norms (the scaling) */
	unsigned char *dir;	/* p enum het_nlsq_dir per direction */
	double	 *flat;		/* p flatness factors (1: quadratic) */
	double	 *cov_pinv;	/* p * p, s2 (J^T J)^+ unmasked */
	char	**cause;	/* NULL or p owned fragments: why a zero
				   column is zero (het_nlsq_quality_eig) */
	double	  s2, lmax;
	int	  by_blocks;	/* made by het_nlsq_quality_blocks: every
				   direction kept, no eigen-analysis (lam, Z
				   and cov_pinv NULL; lmax a bound) */
	char	**warnings;	/* nwarnings sentences */
	size_t	  nwarnings;
};

int het_nlsq_quality(size_t p, const double *jtj, double s2,
    const double *x, const double *lo, const double *hi,
    const char *const *names, struct het_nlsq_quality *q,
    struct het_error *err);
void het_nlsq_quality_fini(struct het_nlsq_quality *q);

/*
 * het_nlsq_eigen_fn: the eigen-decomposition of the report: the
 * symmetric p x p matrix M (column-major, upper triangle read; may be
 * overwritten) into lam (p eigenvalues, ascending) and Z (p x p,
 * column-major: column k, i.e. Z + k p, the unit eigenvector of
 * lam[k]), as LAPACK's dsyevr gives them.  Returns HET_OK, HET_ECANCEL
 * (the caller gave up; no output) or another error with err set.
 * het_nlsq_eigen: the one of LAPACK (dsyevr; ctx unused); HET_OK,
 * HET_ENOMEM or HET_EINTERNAL.  Thread: any.
 */
typedef int (*het_nlsq_eigen_fn)(void *ctx, size_t p, double *M,
    double *lam, double *Z, struct het_error *err);
int het_nlsq_eigen(void *ctx, size_t p, double *M, double *lam, double *Z,
    struct het_error *err);

/*
 * het_nlsq_quality_eig: het_nlsq_quality with, for a zero Jacobian
 * column, the model's reason in its warning (cause: NULL or p entries,
 * each NULL or a sentence fragment such as "the diffusion rate ... is at
 * its floor at every time of the data", borrowed during the call; a zero
 * column without a cause gets a generic reason), and with the
 * eigen-decomposition made by eigen(ctx, ...) (NULL: het_nlsq_eigen),
 * e.g. in a process that a cancel can end at once.  Its error,
 * HET_ECANCEL included, is returned with q empty.  Thread: any.
 */
int het_nlsq_quality_eig(size_t p, const double *jtj, double s2,
    const double *x, const double *lo, const double *hi,
    const char *const *names, const char *const *cause,
    het_nlsq_eigen_fn eigen, void *ctx, struct het_nlsq_quality *q,
    struct het_error *err);

/*
 * het_nlsq_quality_blocks: the same report without the eigen-analysis,
 * for a normal matrix with a dense head and a block-diagonal tail (as
 * het_nlsq_set_blocks: nd head columns, blk[c] the block of column
 * nd + c, nb blocks of 1 to HET_NLSQ_BLOCK_MAX columns), when it can
 * show that the eigen-analysis would keep every direction and find
 * none weak: then the covariance is s2 (J^T J)^-1, formed by Schur
 * complement in O(p^2 nd) instead of dsyevr's O(p^3) (17 s of one core
 * at p = 4003, and not interruptible).
 * The proof, on the unit-diagonal matrix M: lam_max <= ||M||_inf and
 * lam_min >= 1 / ||M^-1||_inf, so lam_min / lam_max >= weak_rtol
 * (and above the null threshold) holds for every eigenvalue; and the
 * one-sigma step of any eigen-direction moves parameter i by at most
 * its own uncertainty (Z_ki^2 / lam_k <= (M^-1)_ii), so unc_i <
 * weak_step (hi_i - lo_i) for every finitely bounded parameter means no
 * direction's step reaches weak_step of a range.
 * *used is 1 when q was filled (q->by_blocks set; then every direction
 * is kept: rank p, no degenerate parameter, warnings for bounds and
 * correlations as het_nlsq_quality's), 0 when the proof fails, a
 * column is zero, the entries between blocks are not exactly zero, a
 * factor is not positive definite or the structure is malformed: the
 * caller then calls het_nlsq_quality_eig (q left empty).
 * Returns HET_OK (either way) or HET_ENOMEM.  Thread: any.
 */
int het_nlsq_quality_blocks(size_t p, const double *jtj, double s2,
    const double *x, const double *lo, const double *hi,
    const char *const *names, const char *const *cause, size_t nd,
    const size_t *blk, size_t nb, double weak_rtol, double weak_step,
    int *used, struct het_nlsq_quality *q, struct het_error *err);

/*
 * het_nlsq_quality_step: the one-sigma step along eigen-direction k in
 * parameter units, d_i = Z_ki sqrt(s2 / lam_k) / cn_i (0 for zero
 * columns; Inf components when lam_k <= 0).  Returns the largest
 * |d_i| / (hi_i - lo_i) over parameters with finite bounds (0 when
 * lo/hi are NULL).  Thread: any.
 */
double het_nlsq_quality_step(const struct het_nlsq_quality *q, size_t k,
    const double *lo, const double *hi, double *d);

/*
 * het_nlsq_quality_drop: drop kept direction k as `why` (RIDGE or
 * LOOSE) with flatness factor flat >= 1 (how much flatter than its
 * quadratic model the cost was found; Inf for flat), then recompute
 * cov, corr, unc, degen, rank and the warnings (arguments as for
 * het_nlsq_quality).  HET_OK, HET_EINVAL (k out of range or not kept),
 * HET_ENOMEM.  Thread: any.
 */
int het_nlsq_quality_drop(struct het_nlsq_quality *q, size_t k,
    enum het_nlsq_dir why, double flat, const double *x, const double *lo,
    const double *hi, const char *const *names, struct het_error *err);

/* An identifiable combination of degenerate parameters (the fit's
   report and the results files). */
struct het_nlsq_combo {
	char		 expr[160];	/* e.g. "f0*exp(-f1*f2)" */
	double		 value;		/* at the solution */
	double		 unc;		/* one sigma */
};

/*
 * het_nlsq_quality_combo: the uncertainty of a combination of the
 * parameters whose gradient is g (p values) at the solution:
 * *sd = sqrt(g^T cov_pinv g), and *leak = the variance the dropped
 * directions would add (as for a parameter above; Inf along exactly
 * null directions it touches).  The combination is identifiable when
 * *leak is small against *sd^2.  Thread: any.
 */
void het_nlsq_quality_combo(const struct het_nlsq_quality *q,
    const double *g, double *sd, double *leak);

/*
 * het_nlsq_warning_add: append a printf-formatted sentence to a warning
 * list (*list, *n).  Returns HET_OK or HET_ENOMEM.  Thread: any.
 */
int het_nlsq_warning_add(char ***list, size_t *n, struct het_error *err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* het_nlsq_warnings_free: free a warning list of n strings. */
void het_nlsq_warnings_free(char **list, size_t n);

#endif /* HET_NLSQ_H */
