/*
 * het_fit_impl.h: internals shared by het_fit.c (driver, multistart,
 * report) and het_fit_acc.c (problem layout and pooled accumulation of
 * the normal equations).  Not a public header.
 */
#ifndef HET_FIT_IMPL_H
#define HET_FIT_IMPL_H

#include <stdatomic.h>
#include <stddef.h>

#include "het_fit.h"

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
	enum het_config_loss loss;
	double		 f_scale;
	const char	**names;	/* p, borrowed from r */
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
	struct het_pool_reducer	*red_full, *red_cost;
	double			*cacc;		/* clen */
	double			*xfull;		/* P */
	const atomic_int	*cancel;
	int			 want_jac;
};

/*
 * fit_prob_init: the problem of angle `angle` (-1: joint) of r, from
 * full-layout x0/lo/hi (P values each).  HET_EINVAL (per-angle mode with
 * a coupling scaling, scattered pairs, fewer data than parameters) or
 * HET_ENOMEM.  fit_prob_fini frees.
 */
int fit_prob_init(struct fit_prob *fp, const struct het_resid *r,
    long angle, const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_error *err);
void fit_prob_fini(struct fit_prob *fp);

/* fit_eval_init: resources for nwk pool workers; fit_eval_fini. */
int fit_eval_init(struct fit_eval *fe, const struct fit_prob *fp,
    size_t nwk, struct het_error *err);
void fit_eval_fini(struct fit_eval *fe);

/* The het_nlsq_eval_fn of a fit (ctx is a struct fit_eval). */
int fit_eval_cb(void *ctx, const double *x, int want_jac, double *acc,
    struct het_error *err);

#endif /* HET_FIT_IMPL_H */
