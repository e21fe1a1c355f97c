/*
 * het_transform.c: the log / logit maps between bounded parameters and
 * the unconstrained space the NUTS sampler moves in.
 *
 * Design: everything is elementwise and allocation-free.  The logistic
 * function and log s(u), log(1 - s(u)) are evaluated in forms that do not
 * overflow for large |u| (log s(u) = -log1p(exp(-u)) for u > 0, and
 * u - log1p(exp(u)) otherwise), so the log-Jacobian stays exact in the
 * tails where x itself has saturated at a bound.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "het_transform.h"

static double
logistic(double u)
{
	double e;

	if (u >= 0) {
		e = exp(-u);
		return 1 / (1 + e);
	}
	e = exp(u);
	return e / (1 + e);
}

/* log s(u), stable. */
static double
log_logistic(double u)
{
	if (u > 0)
		return -log1p(exp(-u));
	return u - log1p(exp(u));
}

static const char *
pname(const char *const *names, size_t i, char *buf, size_t len)
{
	if (names != NULL && names[i] != NULL)
		return names[i];
	snprintf(buf, len, "#%zu", i);
	return buf;
}

int
het_transform_check(const struct het_bound *b, size_t n,
    const char *const *names, struct het_error *err)
{
	char	buf[32];
	size_t	i;

	for (i = 0; i < n; i++) {
		switch (b[i].kind) {
		case HET_BOUND_NONE:
			break;
		case HET_BOUND_LOWER:
			if (!isfinite(b[i].lo))
				goto notfinite;
			break;
		case HET_BOUND_UPPER:
			if (!isfinite(b[i].hi))
				goto notfinite;
			break;
		case HET_BOUND_BOTH:
			if (!isfinite(b[i].lo) || !isfinite(b[i].hi))
				goto notfinite;
			if (!(b[i].lo < b[i].hi))
				return het_error_set(err, HET_EINVAL,
				    "parameter %s has bounds [%g, %g] with "
				    "lower >= upper; give lower < upper",
				    pname(names, i, buf, sizeof buf),
				    b[i].lo, b[i].hi);
			break;
		default:
			return het_error_set(err, HET_EINVAL,
			    "parameter %s has unknown bound kind %d; use "
			    "HET_BOUND_NONE, _LOWER, _UPPER or _BOTH",
			    pname(names, i, buf, sizeof buf), b[i].kind);
		}
	}
	return HET_OK;
notfinite:
	return het_error_set(err, HET_EINVAL, "parameter %s has a non-finite "
	    "bound it uses (lower %g, upper %g); use a finite bound or a "
	    "bound kind without it", pname(names, i, buf, sizeof buf),
	    b[i].lo, b[i].hi);
}

void
het_transform_forward(const struct het_bound *b, size_t n,
    const double *u, double *x, double *logjac, double *dx_du,
    double *dlj_du)
{
	double	lj = 0, s, w, xi, d, dl, l;
	size_t	i;

	for (i = 0; i < n; i++) {
		switch (b[i].kind) {
		case HET_BOUND_LOWER:
			d = exp(u[i]);
			xi = b[i].lo + d;
			l = u[i];
			dl = 1;
			break;
		case HET_BOUND_UPPER:
			d = exp(u[i]);
			xi = b[i].hi - d;
			d = -d;
			l = u[i];
			dl = 1;
			break;
		case HET_BOUND_BOTH:
			w = b[i].hi - b[i].lo;
			s = logistic(u[i]);
			xi = b[i].lo + w * s;
			if (xi > b[i].hi)
				xi = b[i].hi;
			d = w * s * (1 - s);
			l = log(w) + log_logistic(u[i]) +
			    log_logistic(-u[i]);
			dl = 1 - 2 * s;
			break;
		default:
			xi = u[i];
			d = 1;
			l = 0;
			dl = 0;
			break;
		}
		x[i] = xi;
		lj += l;
		if (dx_du != NULL)
			dx_du[i] = d;
		if (dlj_du != NULL)
			dlj_du[i] = dl;
	}
	if (logjac != NULL)
		*logjac = lj;
}

int
het_transform_inverse(const struct het_bound *b, size_t n,
    const double *x, double *u, const char *const *names,
    struct het_error *err)
{
	char	buf[32];
	double	w, s;
	size_t	i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			goto out;
		switch (b[i].kind) {
		case HET_BOUND_LOWER:
			if (!(x[i] > b[i].lo))
				goto out;
			u[i] = log(x[i] - b[i].lo);
			break;
		case HET_BOUND_UPPER:
			if (!(x[i] < b[i].hi))
				goto out;
			u[i] = log(b[i].hi - x[i]);
			break;
		case HET_BOUND_BOTH:
			if (!(x[i] > b[i].lo && x[i] < b[i].hi))
				goto out;
			w = b[i].hi - b[i].lo;
			s = (x[i] - b[i].lo) / w;
			u[i] = log(s) - log1p(-s);
			break;
		default:
			u[i] = x[i];
			break;
		}
	}
	return HET_OK;
out:
	return het_error_set(err, HET_ERANGE, "parameter %s = %g is not "
	    "strictly inside its bounds (lower %g, upper %g); start the "
	    "sampler from an interior point",
	    pname(names, i, buf, sizeof buf), x[i],
	    b[i].kind == HET_BOUND_UPPER || b[i].kind == HET_BOUND_NONE ?
	    -INFINITY : b[i].lo,
	    b[i].kind == HET_BOUND_LOWER || b[i].kind == HET_BOUND_NONE ?
	    INFINITY : b[i].hi);
}

void
het_transform_grad(const struct het_bound *b, size_t n, const double *u,
    const double *gx, double *gu)
{
	double	s, e;
	size_t	i;

	for (i = 0; i < n; i++) {
		switch (b[i].kind) {
		case HET_BOUND_LOWER:
			gu[i] = gx[i] * exp(u[i]) + 1;
			break;
		case HET_BOUND_UPPER:
			e = exp(u[i]);
			gu[i] = -gx[i] * e + 1;
			break;
		case HET_BOUND_BOTH:
			s = logistic(u[i]);
			gu[i] = gx[i] * (b[i].hi - b[i].lo) * s * (1 - s) +
			    1 - 2 * s;
			break;
		default:
			gu[i] = gx[i];
			break;
		}
	}
}
