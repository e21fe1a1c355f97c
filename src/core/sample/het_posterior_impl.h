/*
 * het_posterior_impl.h: the shard posterior's object, shared by
 * het_posterior.c (density, transforms, priors) and het_posterior_marg.c
 * (contrast and offset integrated out).  Not for use outside src/core.
 */
#ifndef HET_POSTERIOR_IMPL_H
#define HET_POSTERIOR_IMPL_H

#include <stddef.h>

#include "het_posterior.h"
#include "het_separable.h"
#include "het_transform.h"

enum post_role {
	ROLE_PLAIN = 0,		/* x = T(u) by het_transform */
	ROLE_PREFACTOR,		/* u = ln A(t_ref); A = exp(u - e ln t_ref) */
	ROLE_EXPONENT,		/* x = T(u), and a prefactor depends on it */
	ROLE_TRIPLE,		/* a member of a power-law triple */
	ROLE_FRACTION		/* u = ln f0 + f1 (t_c - f2) */
};

#define POST_MAX_TRIPLES 3

/* A power law J(t) = A t^e + o sampled as a block (het_posterior_coords.c). */
struct post_triple {
	size_t	a, e, o;	/* columns of prefactor, exponent, offset */
	unsigned law;		/* the family's law: 0 reference / diffusion,
				   1 sample / shear, 2 velocity */
	int	anchor;		/* 1: (J1, J2, J3); 0: (v, logit e, w) */
};

/* The anchors' gradient scratch of one triple at the last point. */
struct post_tri_grad {
	double	m[9];		/* dJ/d(A, e, o), row-major */
	double	h[3];		/* d log J / d(A, e, o) */
};

struct het_posterior {
	const struct het_resid	*resid;
	struct het_resid_eval	*ev;
	struct het_resid_scratch *scr;
	struct het_separable	*sep;		/* NULL: the pair kernel */
	size_t			 p, n, chunk;
	double			 inv_s2;	/* 1 / sigma^2 */
	double			 invk;		/* 1 / K */
	struct het_post_prior	*pri;		/* p */
	struct het_bound	*bd;		/* p */
	int			*role;		/* p, enum post_role */
	size_t			*mate;		/* p: the pair's other member */
	size_t			 nrep;
	double			 tref, ltref;
	struct post_triple	 tri[POST_MAX_TRIPLES];
	struct post_tri_grad	 tg[POST_MAX_TRIPLES];
	size_t			 ntri;
	double			 lt1, lr;	/* ln of the first anchor time
						   and of the anchors' ratio
						   (lr 0: no anchors) */
	long			 fr0, fr1, fr2;	/* columns of f0, f1, f2 (-1:
						   fixed; fr0 -1: no fraction
						   coordinate) */
	double			 fix1, fix2;	/* f1, f2 when fixed */
	double			 tc;		/* t_c, mid-window */
	double			*x, *gx, *dxdu, *dlj;	/* p each */
	double			*res;		/* chunk residuals */
	double			*gphys;		/* nfp: sum r dr/dtheta */
	size_t			 nfp, na;	/* free physics, angles */
	double			*gcon, *goff;	/* na angle sums */
	size_t			*rc_n, *ro_n;	/* na: entries per row */
	long			*rc_col, *ro_col; /* na * nscal columns */
	double			*rc_w, *ro_w;	/* na * nscal weights */
	/* the marginal of contrast and offset (het_posterior_marg.c) */
	size_t			 d;		/* sampled dimension: p, or
						   nfp when marginalising */
	int			 marg;		/* 1: integrated out now */
	int			 marg_ok;	/* 1: the problem allows it */
	int			 marg_want;	/* the spec asked for it */
	char			 marg_why[200];	/* when not: why */
	size_t			*mcol;		/* 2 na: x columns of
						   contrast_a, offset_a */
	double			*mprec, *mmean;	/* 2 na: tempered prior
						   precision (0: flat) and
						   mean of each */
	double			 mconst;	/* the priors' constants */
	double			*mom;		/* na * HET_SEP_NMOM */
	double			*mcoef;		/* 3 na adjoint coefficients */
	double			*cmean, *ccov;	/* 2 na, 3 na: conditional */
};

/*
 * het_posterior_coords.c: het_post_coords_init marks the power-law pairs
 * (level HET_COORDS_POWER_LAW) or triples (HET_COORDS_RATES, where the
 * offset varies) and sets t_ref and the anchor times; needs pri filled.
 * het_post_forward maps u to x (d values), fills dxdu and dlj (d log J
 * / du) of the transformed columns when not NULL and the anchors'
 * scratch tg when not NULL, and returns the total log-Jacobian.
 * het_post_chain_grad (gx is overwritten) turns gx = d log p / dx at the
 * point het_post_forward (with dxdu = post->dxdu, dlj = post->dlj, tg =
 * post->tg) mapped into x = post->x into the gradient in u.
 */
void	het_post_coords_init(struct het_posterior *post,
	    const struct het_model *model, int level);
double	het_post_forward(const struct het_posterior *post, const double *u,
	    double *x, double *dxdu, double *dlj, struct post_tri_grad *tg);
void	het_post_chain_grad(const struct het_posterior *post, const double *u,
	    double *gx, double *grad);

/*
 * het_posterior_marg.c's part of het_posterior_alloc and _free: decide
 * whether the marginal is possible (marg_ok, else marg_why) and make its
 * buffers; post->marg is set to want when possible.  Returns HET_OK or
 * HET_ENOMEM.
 */
int	het_post_marg_init(struct het_posterior *post, int want,
	    struct het_error *err);
void	het_post_marg_free(struct het_posterior *post);

/*
 * The marginal log-likelihood (scaling priors included) at the prepared
 * point x of post->ev (prepared with want_jac when grad) and, with
 * grad, its derivative in the free physics added to post->gx (nfp
 * values).  Returns HET_OK, or HET_ERANGE
 * when an angle's 2 x 2 precision is singular.
 */
int	het_post_marg_loglik(struct het_posterior *post, int grad, double *ll,
	    struct het_error *err);

#endif /* HET_POSTERIOR_IMPL_H */
