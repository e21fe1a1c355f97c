/*
 * het_transform.h: unconstrained parameterisation of bounded parameters
 * for gradient-based samplers.
 *
 * Each parameter x has a bound kind; the sampler works on u in R:
 *	HET_BOUND_NONE	x = u				log J = 0
 *	HET_BOUND_LOWER	x = lo + exp(u)			log J = u
 *	HET_BOUND_UPPER	x = hi - exp(u)			log J = u
 *	HET_BOUND_BOTH	x = lo + (hi - lo) s(u)		log J = log(hi - lo)
 *			s(u) = 1 / (1 + exp(-u))	  + log s(u) + log(1 - s(u))
 * A density p(x) becomes p(x(u)) |dx/du| on u; log J is that log-Jacobian.
 */
#ifndef HET_TRANSFORM_H
#define HET_TRANSFORM_H

#include <stddef.h>

#include "het_error.h"

enum het_bound_kind {
	HET_BOUND_NONE = 0,	/* (-inf, inf): identity */
	HET_BOUND_LOWER,	/* (lo, inf): log */
	HET_BOUND_UPPER,	/* (-inf, hi): log of (hi - x) */
	HET_BOUND_BOTH		/* (lo, hi): logit */
};

struct het_bound {
	int	kind;	/* enum het_bound_kind */
	double	lo;	/* used by LOWER and BOTH */
	double	hi;	/* used by UPPER and BOTH */
};

/*
 * het_transform_check: validate n bounds (known kind, finite bounds that
 * are used, lo < hi for BOTH).
 *   names  optional parameter names for the message (NULL: use indices).
 * Returns HET_OK or HET_EINVAL naming the parameter.  Thread: any.
 */
int het_transform_check(const struct het_bound *b, size_t n,
    const char *const *names, struct het_error *err);

/*
 * het_transform_forward: map unconstrained u[n] to constrained x[n].
 *   logjac   out (may be NULL): sum of the log-Jacobians.
 *   dx_du    out (may be NULL): n derivatives dx_i/du_i.
 *   dlj_du   out (may be NULL): n derivatives d(log J_i)/du_i.
 * Bounds must have passed het_transform_check.  For extreme u the result
 * saturates at a bound (x == lo or hi in floating point) while log J stays
 * finite and exact.  Thread: any.
 */
void het_transform_forward(const struct het_bound *b, size_t n,
    const double *u, double *x, double *logjac, double *dx_du,
    double *dlj_du);

/*
 * het_transform_inverse: map constrained x[n] to unconstrained u[n].
 * Returns HET_OK, or HET_ERANGE when some x is not strictly inside its
 * bounds (or not finite); the message names the parameter.  Thread: any.
 */
int het_transform_inverse(const struct het_bound *b, size_t n,
    const double *x, double *u, const char *const *names,
    struct het_error *err);

/*
 * het_transform_grad: chain rule for a log density.  Given gx[n] =
 * d log p / dx at x(u), writes gu[n] = gx * dx/du + d log J / du, the
 * gradient of log p(x(u)) + log J(u).  gu may alias gx.  Thread: any.
 */
void het_transform_grad(const struct het_bound *b, size_t n,
    const double *u, const double *gx, double *gu);

#endif /* HET_TRANSFORM_H */
