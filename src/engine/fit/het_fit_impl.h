/*
 * het_fit_impl.h: internals shared by het_fit.c (driver, multistart,
 * report) and het_fit_acc.c (problem layout and pooled accumulation of
 * the normal equations).  Not a public header.
 */
#ifndef HET_FIT_IMPL_H
#define HET_FIT_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "het_fit.h"
#include "het_separable.h"

/* Pairs per het_resid evaluation block inside a chunk. */
#define HET_FIT_BLOCK 256

/*
 * One fitting problem as the solver sees it: a pair range of a
 * het_resid and a subset of its columns.  Immutable during a fit.
 *
 * Compact accumulator (what the pool reduces, clen doubles):
 *	[0]                   loss cost F
 *	[1 .. na]             sum r^2 per angle
 *	[off_g ..)            nfp physics gradient entries
 *	[off_jtj ..)          nfp * nfp physics J^T J, upper triangle
 *	[off_ang + a * astride ..) per angle a:
 *	      cc co oo gc go  (contrast/offset 2 x 2 block and gradient)
 *	      cross_c[nfp] cross_o[nfp]  (physics x contrast/offset)
 * The cost-only accumulator is the first 1 + na entries.
 */
struct fit_prob {
	const struct het_resid	 *r;
	const struct het_scaling *sc;
	const struct het_pair	 *pairs;
	size_t		 P;		/* columns of r */
	size_t		 nfp;		/* free physics columns (0 .. nfp-1) */
	size_t		 p;		/* fitted columns */
	size_t		 na;		/* angles */
	long		 angle;		/* -1 joint, else the angle */
	size_t		 first, n;	/* pair range */
	size_t		 chunk, nchunks;
	long		*fcol;		/* P: r column -> fitted column / -1 */
	size_t		*rcol;		/* p: fitted column -> r column */
	double		*xfull0;	/* P: values of the unfitted columns */
	double		*x0, *lo, *hi;	/* p */
	size_t		*npa;		/* na: pairs per angle in the range */
	size_t		*aoff;		/* na + 1 offsets into the lists */
	size_t		*acol;		/* fitted scaling column of an entry */
	double		*awc, *awo;	/* its d contrast_a, d offset_a */
	size_t		 clen, clen_cost;
	size_t		 off_g, off_jtj, off_ang, astride;
	/* FIT_FULL_PA: after the compact sums, per angle the physics
	   J^T J block (nfp * nfp, upper) and sum Jphys r (nfp). */
	size_t		 off_pa, pastride, clen_pa;
	enum het_nlsq_loss loss;
	double		 f_scale;
	const char	**names;	/* p, borrowed from r */
	int		 vp;		/* variable projection: the solver
					   sees the nfp physics columns */
	size_t		 ns;		/* scaling columns, p - nfp */
	/* Early-window problem (het_fit_prob_window): the pairs are the runs
	   seg_first[s] .. + (seg_v[s + 1] - seg_v[s]) of r, numbered
	   0 .. n-1 in run order; nseg 0: the range first .. first + n. */
	size_t		 nseg;
	size_t		*seg_first, *seg_v;
	/* The separable form's data (het_fit_sep.c), or NULL: the pair
	   kernel.  Owned; each evaluation reads it through a view. */
	struct het_separable *sep;
};

/* Evaluation modes of the chunk function. */
enum fit_mode {
	FIT_COST = 0,		/* cost and per-angle sum r^2 */
	FIT_FULL,		/* the whole compact accumulator */
	FIT_VP_COST,		/* cost pass of variable projection: per
				   angle sum r^2 and the 2 x 2 block and
				   gradient of contrast/offset (linear loss) */
	FIT_FULL_PA		/* FIT_FULL with the physics block and
				   gradient per angle instead of summed */
};

/*
 * Variable projection state of one running fit.  s_lin is the scaling
 * (ns values) the data passes are evaluated with: the best scaling of
 * the last normal-equation pass, i.e. of the solver's current point.
 * A cost pass at theta yields s_opt = argmin_s F(theta, s); th_opt
 * remembers theta so that the normal-equation pass at the same point
 * (an accepted step) does not repeat the cost pass.
 */
struct fit_vp {
	double		*s_lin, *s_opt, *th_opt;
	int		 opt_valid;
	double		 cost_opt;	/* min_s F(th_opt, s) */
	double		*H, *G, *ds, *L, *t, *dlo, *dhi, *tmp;
	size_t		*idx;		/* ns */
	unsigned char	*act;		/* ns: 1 lower, 2 upper bound active */
	double		*accf;		/* het_nlsq_acc_len(p) */
	double		*X;		/* ns * nfp */
	double		*spec;		/* het_nlsq_acc_len(nfp): projected
					   normal equations at th_opt */
	int		 spec_valid;
};

/* Per-thread scratch of the chunk function. */
struct fit_worker {
	struct het_resid_scratch *scr;
	double		*res, *Jp, *dcon, *jc, *jo, *f;
};

/* One running fit (one start): its evaluation resources. */
struct fit_eval {
	const struct fit_prob	*fp;
	struct het_pool		*pool;		/* NULL: serial */
	struct het_resid_eval	*ev;
	struct fit_worker	*wk;
	size_t			 nwk;
	struct het_pool_reducer	*red_full, *red_cost, *red_pa;
	double			*cacc;		/* clen */
	double			*xfull;		/* P */
	const atomic_int	*cancel;
	int			 want_jac;	/* enum fit_mode */
	struct fit_vp		 vp;		/* when fp->vp */
	/* The separable sums (het_fit_sep.c): a view of fp->sep per
	   worker and their per-angle output, NULL without; sepfix: per
	   chunk of a pass, its view's point was not exact; pairs 1: the
	   pair kernel for the next passes (a report at a floored rate). */
	struct het_separable	**sepv;
	double			*sepout;
	unsigned char		*sepfix;
	size_t			 nsepc;		/* chunks of the last pass */
	int			 sepfull;	/* its full flag */
	int			 pairs;
	long			 nsep;		/* passes made through them */
	/*
	 * Speculation: a cost evaluation that follows an accepted step
	 * computes the normal equations in the same pass (most trial
	 * steps are accepted, and the solver then asks for them at the
	 * same point); after a rejected trial the next one is cost only.
	 * The solver sees the same numbers either way.
	 */
	int			 pending;	/* last cost call not yet
						   followed by its Jacobian */
	double			*spec_x;	/* p: x of spec_acc */
	double			*spec_acc;	/* het_nlsq_acc_len(p) */
	int			 spec_valid;
	long			 npass;		/* data passes */
};

/*
 * het_fit_prob_init: the problem of angle `angle` (-1: joint) of r, from
 * full-layout x0/lo/hi (P values each).  HET_EINVAL (per-angle mode with
 * a coupling scaling, scattered pairs, fewer data than parameters) or
 * HET_ENOMEM.  het_fit_prob_fini frees.
 */
int het_fit_prob_init(struct fit_prob *fp, const struct het_resid *r,
    long angle, const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_error *err);
void het_fit_prob_fini(struct fit_prob *fp);

/*
 * het_fit_prob_window: restrict a joint problem to the pairs with both
 * frames below w (i < j < w).  HET_OK, HET_EINVAL (fewer such pairs
 * than parameters) or HET_ENOMEM; on error fp is unchanged.
 */
int het_fit_prob_window(struct fit_prob *fp, size_t w, struct het_error *err);

/*
 * het_fit_prob_blocks: the block structure of the scaling columns (each
 * angle's columns couple with each other and the physics only): blk
 * (fp->ns entries) gets the block of fitted column nfp + c, *nb the
 * number of blocks.  1 when every block has at most HET_NLSQ_BLOCK_MAX
 * columns (per-angle contrast/offset pairs; a constant scaling is one
 * block of two), 0 otherwise (Fourier coefficients shared by all
 * angles) or without scaling columns or memory.
 */
int het_fit_prob_blocks(const struct fit_prob *fp, size_t *blk, size_t *nb);

/*
 * het_fit_blocks_wanted: whether option blocks asks for the block
 * structure on fp (scaling columns, and blocks > 0, or 0 and p >=
 * HET_FIT_BLOCK_MIN); the solver (het_fit.c) and the report
 * (het_fit_result.c) add their own conditions.
 */
int het_fit_blocks_wanted(const struct fit_prob *fp,
    const struct het_fit_options *opt);

/* het_fit_eval_init: resources for nwk pool workers; het_fit_eval_fini. */
int het_fit_eval_init(struct fit_eval *fe, const struct fit_prob *fp,
    size_t nwk, struct het_error *err);
void het_fit_eval_fini(struct fit_eval *fe);

/* The het_nlsq_eval_fn of a fit (ctx is a struct fit_eval). */
int het_fit_eval_cb(void *ctx, const double *x, int want_jac, double *acc,
    struct het_error *err);

/*
 * het_fit_eval_pass: one pooled data pass at the full fitted vector x (p
 * values) in mode `mode`; the reduced compact sums are left in
 * fe->cacc.
 */
int het_fit_eval_pass(struct fit_eval *fe, const double *x, enum fit_mode mode,
    struct het_error *err);

/*
 * The separable sums (het_fit_sep.c).  het_fit_sep_prob: fp->sep when
 * the problem qualifies (het_fit_options.pair_kernel), else NULL; never
 * fails (a problem that does not qualify, or memory that is short,
 * keeps the pair kernel); _window: the same for the pairs of the first
 * w frames (an early-window problem).  het_fit_sep_exact: 0 when fe's
 * last separable pass left its matrix approximate
 * (het_separable_exact).  het_fit_sep_eval_init / _fini: the view and
 * output of one evaluation (HET_ENOMEM).  het_fit_sep_wanted: whether
 * a pass of fe in mode uses them.  het_fit_sep_pass: the compact
 * accumulator fe->cacc of that pass at the point fe->ev was prepared
 * on, as the pooled chunk function would leave it.
 */
void het_fit_sep_prob(struct fit_prob *fp, const struct het_resid *r,
    const struct het_fit_options *opt);
void het_fit_sep_prob_window(struct fit_prob *fp, const struct het_resid *r,
    const struct het_fit_options *opt, size_t w);
int het_fit_sep_exact(const struct fit_eval *fe);
int het_fit_sep_eval_init(struct fit_eval *fe, struct het_error *err);
void het_fit_sep_eval_fini(struct fit_eval *fe);
int het_fit_sep_wanted(const struct fit_eval *fe);
int het_fit_sep_pass(struct fit_eval *fe, enum fit_mode mode,
    struct het_error *err);

/* het_fit_expand: the dense accumulator of the p fitted columns from the
   compact sums ca (upper triangle of J^T J). */
void het_fit_expand(const struct fit_prob *fp, const double *ca, int want,
    double *acc);

/*
 * Variable projection (het_fit_vp.c).  het_fit_vp_init / het_fit_vp_fini: the
 * state in fe->vp (fe->fp->vp must be set).  het_fit_vp_start: begin a fit
 * whose scaling starts at s0 (ns values).  het_fit_eval_vp_cb: the
 * het_nlsq_eval_fn of the projected problem (x = nfp physics values).
 * het_fit_vp_scaling: the best scaling of the solver's current point.
 */
int het_fit_vp_init(struct fit_eval *fe, struct het_error *err);
/* het_fit_eval_spec: whether the next cost call should speculate, and note
   that a cost call (want_jac 0) or a Jacobian call (1) happens. */
int het_fit_eval_spec(struct fit_eval *fe, int want_jac);
void het_fit_vp_fini(struct fit_eval *fe);
void het_fit_vp_start(struct fit_eval *fe, const double *s0);
int het_fit_eval_vp_cb(void *ctx, const double *x, int want_jac, double *acc,
    struct het_error *err);
const double *het_fit_vp_scaling(const struct fit_eval *fe);

/* ------------------------------------------------------------------ */
/* The driver (het_fit.c) and its starts (het_fit_ms.c). */

/* Resources of one concurrently running start. */
struct fit_slot {
	struct fit_eval	 fe;
	struct het_nlsq	*w;
	double		*xf;		/* p: the full current point */
	long		 nblock;	/* iterations on the block path */
};

/* Everything the starts of one problem share. */
struct fit_run {
	const struct fit_prob	*fp;
	const struct het_fit_options *opt;
	struct het_nlsq_params	 par;
	double			*xs;		/* p x_scale values or NULL */
	size_t			*blk;		/* ns block ids or NULL */
	size_t			 nstarts;
	double			*X0;		/* nstarts * p starts */
	struct het_fit_start	*starts;
	struct het_error	*serr;		/* nstarts error records */
	struct fit_slot		*slots;		/* one per start (slot 0
						   also pools single fits) */
	size_t			 nslots;
	size_t			*order;		/* starts of a phase */
	int			 phase;		/* 0 screening, 1 the rest */
	long			 screen;	/* screening iterations, 0:
						   none */
	pthread_mutex_t		 mu;		/* serialises progress */
	double			 sig2;		/* sigma^2 in use, 0: none */
	long			 dof;
};

/*
 * het_fit_run_start (het_fit.c): run start k on a slot, accumulating on
 * pool (NULL: serially on this thread): initialise it when `begin`, then
 * iterate until a test fires or it has done `limit` iterations (0: no
 * limit).  Fills run->starts[k] (reason HET_NLSQ_RUNNING when the limit
 * stopped it); returns its status.
 */
int het_fit_run_start(struct fit_run *run, size_t k, struct fit_slot *slot,
    struct het_pool *pool, int begin, long limit);

/* het_fit_lhs_starts: start 0 = fp->x0, starts 1 .. n-1 a Latin hypercube
   (X: n * p values).  HET_OK or HET_ENOMEM. */
int het_fit_lhs_starts(const struct fit_prob *fp, unsigned long seed, size_t n,
    double *X, struct het_error *err);

/* het_fit_run_multistart: screening, then the kept starts to their end.
   HET_OK, HET_ECANCEL or a pool error. */
int het_fit_run_multistart(struct fit_run *run, struct het_pool *pool,
    struct het_error *err);

/* ------------------------------------------------------------------ */
/* Statistical checks behind the warnings (het_fit_check.c). */

/* One-sided level of the reduced chi-square test (false alarms of a
   correct fit) and the smallest excess it ever reports. */
#define HET_FIT_CHI2_ALPHA	1e-3
#define HET_FIT_CHI2_SYS	0.03
/* Restarts off a floor of the model after a fit (het_fit.c). */
#define HET_FIT_FLOOR_RESTARTS	2
/* How the sentence of a successful floor restart begins: the history of
   the fit, carried onto a later result that replaces it (the basin
   strategy's escape). */
#define HET_FIT_FLOOR_NOTE	"The fit first stopped at cost"

/* The reduced chi-square test of a fit (see het_fit_check.c). */
struct fit_chi2 {
	double		 t;	/* rss / dof over the pooled sigma^2 */
	double		 lim;	/* its 1 - alpha point for a correct model */
	double		 d1, d2; /* effective degrees of freedom of the
				   residual and of the noise variance
				   (INFINITY: sigma taken as exact) */
};

/*
 * het_fit_chi2_check: the test for a fit of run with sum of squares rss
 * (raw residuals).  Returns 1 and fills out, or 0 (out NaN) when the
 * run has no noise sigma.  Thread: any.
 */
int het_fit_chi2_check(const struct fit_run *run, double rss,
    struct fit_chi2 *out);

/* The residual-structure test of a fit (see het_fit_check.c). */
struct fit_struct {
	int		 ran;		/* 0: not run (no sigma, a window) */
	double		 chi2_age, dof_age, lim_age; /* short-lag drift
					   with age t1 */
	double		 chi2_lag, dof_lag, lim_lag; /* structure across
					   lag */
	double		 zmin, zmax;	/* extreme age-bin z at short lag */
	double		 trend, lim_trend; /* z of the common linear trend
					   of short-lag residuals with age,
					   and its two-sided limit */
	double		 zlag;		/* largest |z| of a lag band */
	size_t		 nage, short_lag; /* age bins, largest short lag */
};

/*
 * het_fit_resid_structure: one residual pass of the fit of run at x (the
 * fitted vector) on pool (NULL: serial).  HET_OK (out->ran 0 when the
 * test does not apply), or HET_ENOMEM / a pool error.  Thread: the
 * fit's.
 */
int het_fit_resid_structure(const struct fit_run *run, struct het_pool *pool,
    const double *x, struct fit_struct *out, struct het_error *err);

/*
 * het_fit_check_warnings: the sentences of both tests for the converged
 * result res of run, appended to its warnings.  HET_OK, HET_ENOMEM or a
 * pool error.  Thread: the fit's.
 */
int het_fit_check_warnings(const struct fit_run *run,
    struct het_fit_result *res, struct het_error *err);

/* ------------------------------------------------------------------ */
/* Floors of the model (het_fit_floor.c). */

/*
 * het_fit_floor_causes: which physics parameters of r have no effect at the
 * full parameter vector xfull (het_resid_nparams values) because a floor
 * or clip of the model is active at every time of the data.  cause
 * (het_model_nphys entries) gets, per physics parameter, a sentence
 * naming the floor (static storage) or NULL.  Returns how many are set.
 * Thread: any.
 */
size_t het_fit_floor_causes(const struct het_resid *r, const double *xfull,
    const char **cause);

/*
 * het_fit_floor_columns: het_fit_floor_causes for the fitted vector x of fp
 * (fp->p values): cause (fp->p entries) per fitted column.  Returns how
 * many fitted columns sit behind a floor (0 also when out of memory).
 */
size_t het_fit_floor_columns(const struct fit_prob *fp, const double *x,
    const char **cause);

/*
 * het_fit_floor_restart: after a fit *out of fp (HET_OK), restart it
 * off a floor its physics parameters sit behind (see het_fit_floor.c);
 * Xs is the caller's start, X0 the start the fit used, L and H the
 * bounds (full layout).  *out may be replaced by the better result; a
 * warning says what happened.  HET_OK or HET_ENOMEM (*out stays valid).
 */
int het_fit_floor_restart(struct het_pool *pool, const struct fit_prob *fp,
    const double *Xs, const double *X0, const double *L, const double *H,
    const struct het_fit_options *opt, struct het_fit_result **out,
    struct het_error *err);

/*
 * het_fit_make_result (het_fit_result.c): the result of run with start best
 * chosen, from acc, the accumulator of one full evaluation at its x (cost,
 * per-angle sums, J^T J); t0 the call's start (het_clock_now).  *brief
 * 1: the fit was cancelled: the brief report (het_fit_result.brief), and
 * acc need only hold the cost and the sum of squares; *brief is set to 1
 * also when a cancel comes during the report's eigen-analysis
 * (het_fit_eigen), which then gives way to the brief report.  On HET_OK *out
 * is owned by the caller and run->starts has moved into it.  HET_ENOMEM,
 * HET_EINTERNAL (the eigen-analysis failed) or an evaluation's error of
 * the identifiability probes.  Thread: the fit's.
 */
int het_fit_make_result(struct fit_run *run, size_t best, const double *acc,
    int *brief, double t0, struct het_fit_result **out,
    struct het_error *err);

/* ------------------------------------------------------------------ */
/*
 * The kept directions het_fit_ident_probe probes as weak: relative
 * eigenvalue below HET_FIT_IDENT_WEAK_RTOL, or a one-sigma step of at
 * least HET_FIT_IDENT_WEAK_STEP of some parameter's bound range (the
 * measurement behind them: het_fit_ident.c).  The report by blocks
 * (het_fit_result.c) is made only when it proves there is none.
 */
#define HET_FIT_IDENT_WEAK_RTOL	1e-7
#define HET_FIT_IDENT_WEAK_STEP	0.01

/*
 * The report's eigen-analysis (het_fit_eigen.c): het_fit_eigen is a
 * het_nlsq_eigen_fn; with ctx NULL, no cancel flag or p < min_p it is
 * het_nlsq_eigen, otherwise it runs in a child process that a cancel
 * kills at once (HET_ECANCEL); started(started_ctx), when not NULL, is
 * called once the child runs.  Thread: the fit's.
 */
struct het_fit_eigen_ctx {
	const atomic_int	*cancel;
	size_t			 min_p;
	void			(*started)(void *ctx);
	void			*started_ctx;
};
int het_fit_eigen(void *ctx, size_t p, double *M, double *lam, double *Z,
    struct het_error *err);

/*
 * Identifiability (het_fit_ident.c).  het_fit_ident_probe: probe the weak
 * kept directions of q with the cost at x (full fitted vector, a
 * converged optimum: elsewhere the cost falls along some directions;
 * passes on run->slots[0].fe) and drop the ridges and loose directions
 * from q.
 * het_fit_ident_combos: the identifiable combinations of the degenerate
 * parameters of q into res->combos, each with a warning.  HET_OK, or an
 * evaluation's or HET_ENOMEM.
 */
int het_fit_ident_probe(struct fit_run *run, const double *x,
    struct het_nlsq_quality *q, struct het_error *err);
int het_fit_ident_combos(const struct fit_prob *fp,
    const struct het_nlsq_quality *q, struct het_fit_result *res,
    struct het_error *err);

/* ------------------------------------------------------------------ */
/*
 * het_fit_problem (het_fit.c): fit one problem (joint or one angle) from
 * its start fp->x0 (plus the multistart starts when asked for), or,
 * when Xs is not NULL, from the nxs starts Xs (nxs * p values, screened
 * as multistart when nxs > 1).  t0: the call's start time (het_clock_now).  On
 * HET_OK / HET_ECANCEL *out is a result owned by the caller.
 */
int het_fit_problem(struct het_pool *pool, const struct fit_prob *fp,
    const struct het_fit_options *opt, const double *Xs, size_t nxs,
    double t0, struct het_fit_result **out, struct het_error *err);

/*
 * het_fit_basin (het_fit_basin.c): the basin strategy after the fit of a
 * joint problem: when the result *res looks like a wrong basin, fit
 * again from escape starts and, when one ends lower, replace *res by
 * that result (the starts of both in one table, `best` pointing at the
 * winner).  HET_OK (also when nothing was tried, nothing was better,
 * or the escape could not run: a warning says so), HET_ECANCEL
 * (cancelled during the escape: *res is the first fit's), or HET_ENOMEM
 * (*res freed and NULL).
 */
int het_fit_basin(struct het_pool *pool, const struct fit_prob *fp,
    const struct het_fit_options *opt, struct het_fit_result **res,
    struct het_error *err);

#endif /* HET_FIT_IMPL_H */
