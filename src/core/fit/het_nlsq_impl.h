/*
 * het_nlsq_impl.h: the workspace of the trust-region solver, shared by
 * het_nlsq.c (init, iterate, tests) and het_nlsq_step.c (trust-region
 * subproblem and step selection).  Not a public header.
 */
#ifndef HET_NLSQ_IMPL_H
#define HET_NLSQ_IMPL_H

#include <lapacke.h>

#include "het_nlsq.h"

struct het_nlsq {
	size_t		 p;
	size_t		 n;		/* residuals (rank test) */
	het_nlsq_eval_fn fn;
	void		*ctx;
	struct het_nlsq_params par;
	int		 ready;		/* init succeeded */
	double		*x;		/* current point */
	double		*lo, *hi;	/* bounds */
	double		*acc;		/* accumulator at a trial point */
	double		*jtj;		/* p*p full symmetric J^T J at x */
	double		*g;		/* J^T f at x */
	double		*scale;		/* x_scale */
	double		*scale_inv;	/* 1 / x_scale (jac: column norms) */
	double		*v, *dv;	/* Coleman-Li scaling vector and sign */
	double		*d;		/* v^(1/2) scale */
	double		*diag_h;	/* g dv scale */
	double		*g_h;		/* d g */
	double		*A;		/* p*p augmented scaled normal matrix */
	double		*M;		/* p*p copy of A destroyed by dsyevr */
	double		*lam;		/* eigenvalues of A, ascending */
	double		*Z;		/* p*p eigenvectors (column-major) */
	double		*s;		/* sqrt(lam), 0 when truncated */
	double		*suf;		/* V^T g_h, 0 when truncated */
	unsigned char	*keep;		/* eigen-direction kept */
	double		*p_h, *pst;	/* TR step (hat / original space) */
	double		*r_h, *rst;	/* reflected step */
	double		*ag_h, *ag;	/* gradient step */
	double		*tmp, *tmp2;	/* scratch p vectors */
	double		*step, *step_h;	/* chosen step */
	double		*x_new;
	double		*work;		/* dsyevr */
	lapack_int	*iwork, *isuppz;
	lapack_int	 lwork, liwork;
	/* Block elimination (het_nlsq_block.c); nb 0: none. */
	size_t		 nd, nb;	/* dense head columns, blocks */
	size_t		*bstart;	/* nb + 1 offsets into bcol */
	size_t		*bcol;		/* the tail columns, block by block */
	long		*bid;		/* p: block of a column, -1 head */
	double		*bL;		/* nb * BLOCK_MAX^2 Cholesky factors */
	double		*bW;		/* ns * nd: (B + alpha)^-1 C^T */
	double		*bS;		/* nd * nd Schur complement factor */
	double		*bt;		/* scratch */
	double		*bp, *bq;	/* p scratch vectors */
	double		 balpha;	/* alpha of the factorisation */
	int		 bvalid, bok;	/* factorisation cached, its status */
	int		 blk_on;	/* this iteration uses the blocks */
	int		 bfail;		/* a block factorisation failed */
	double		 bgate;		/* the last lam_min / lam_max bound */
	double		 cost;		/* F at x */
	double		 rss;		/* sum r^2 at x */
	double		 Delta;		/* trust radius */
	double		 alpha;		/* LM parameter */
	double		 step_norm;
	double		 reduction;
	double		 g_norm;
	long		 iter, nfev, njev, max_nfev;
	enum het_nlsq_reason reason;
};

/* ||a||_2 of p values. */
double het_nlsq_norm2(size_t p, const double *a);

/*
 * het_nlsq_solve_tr: SciPy's solve_lsq_trust_region on the eigen-quantities
 * (w->s, w->suf, w->Z, w->keep): the step into w->p_h, updating
 * w->alpha.
 */
void het_nlsq_solve_tr(struct het_nlsq *w, int full_rank);

/*
 * het_nlsq_select_step: SciPy's select_step: the best of the step-back
 * trust-region step, its reflection and the gradient step into w->step
 * and w->step_h; returns the predicted reduction.
 */
double het_nlsq_select_step(struct het_nlsq *w, double theta);

/*
 * Block elimination (het_nlsq_block.c).  het_nlsq_blk_gate: after A is
 * built, whether this iteration may use the blocks (exact zeros between
 * blocks, n >= p, factorisable, lam_min / lam_max provably far above
 * the rank threshold); sets w->bgate.  het_nlsq_blk_factor: factorise
 * A + alpha I (cached by alpha); 0 or -1.  het_nlsq_blk_solve: x = (A +
 * alpha I)^-1 rhs with the current factorisation.
 */
int het_nlsq_blk_gate(struct het_nlsq *w);

/*
 * A block structure of a p x p symmetric matrix: nd dense head columns
 * and nb blocks of the tail, block b being columns bcol[bstart[b]] ..
 * bcol[bstart[b + 1] - 1] (at most HET_NLSQ_BLOCK_MAX each).
 * het_nlsq_blk_chol: the factorisation of A + alpha I by Schur
 * complement: each block's Cholesky factor in bL (nb slots of
 * HET_NLSQ_BLOCK_MAX^2), W = (B + alpha)^-1 C^T in bW (ns x nd, rows in
 * bcol order) and the Cholesky factor of the Schur complement in bS
 * (nd x nd).  0, or -1 when a factor is not positive definite.  The
 * entries of A between different blocks are taken as zero (not read).
 * Thread: any (the arrays are the caller's).
 */
struct het_nlsq_blkdesc {
	size_t		 p, nd, nb;
	const size_t	*bstart, *bcol;
};
int het_nlsq_blk_chol(const struct het_nlsq_blkdesc *bd, const double *A,
    double alpha, double *bL, double *bW, double *bS);
int het_nlsq_blk_factor(struct het_nlsq *w, double alpha);
void het_nlsq_blk_solve(struct het_nlsq *w, const double *rhs, double *x);

/* Times p eps times lam_max: a numerically null direction. */
#define HET_NLSQ_QUAL_RTOL	1000.0

/*
 * The report's pieces shared by het_nlsq_stats.c and het_nlsq_qblock.c.
 * het_nlsq_quality_alloc: zero q and allocate its arrays for p
 * parameters (with eigen: lam, Z and cov_pinv too) and the owned copy
 * of cause; HET_OK or HET_ENOMEM (q empty).  het_nlsq_quality_bounds:
 * the at_bound flags of x (nothing when x, lo or hi is NULL).
 * het_nlsq_quality_warn: the report's warnings from the flags, corr
 * and the dropped directions; HET_OK or HET_ENOMEM.
 */
int het_nlsq_quality_alloc(struct het_nlsq_quality *q, size_t p, double s2,
    const char *const *cause, int eigen, struct het_error *err);
void het_nlsq_quality_bounds(struct het_nlsq_quality *q, const double *x,
    const double *lo, const double *hi);
int het_nlsq_quality_warn(const double *x, const double *lo,
    const double *hi, const char *const *names, struct het_nlsq_quality *q,
    struct het_error *err);

#endif /* HET_NLSQ_IMPL_H */
