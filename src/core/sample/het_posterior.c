#include "config.h"

/*
 * het_posterior.c: log posterior of one CMC shard in unconstrained
 * coordinates (see het_posterior.h for the model).
 *
 * Design: the object owns every buffer an evaluation needs (physical
 * point, its gradient, one chunk of residuals, the resid workspace and
 * scratch), so het_posterior_logp allocates nothing.  The likelihood
 * gradient -J^T r / sigma^2 comes from het_resid_eval_lsq in factored
 * form: the sum over pairs of r dr/dtheta for the free physics, plus one
 * sum per angle of r dr/dcontrast_a and of r dr/doffset_a; the angle
 * sums go through the constant sparse scaling rows once per evaluation.
 * For the heterodyne kernel that pass accumulates the adjoints of the
 * per-frame tables instead of Jacobian rows, so a pair costs O(1) (no
 * row of nphys_free derivatives, let alone of p = 30 columns).  Pairs
 * that share (i, j) with the previous one are cheaper still: CMC shards
 * come cell by cell, angle innermost (het_shard_sort_cells).  When the
 * problem is separable (het_separable.h) the same sums come from
 * het_separable_eval instead, built once at het_posterior_alloc; a
 * problem it refuses keeps the pair pass.
 * The sampler's coordinates and their map to x live in
 * het_posterior_coords.c.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_posterior.h"
#include "het_posterior_impl.h"
#include "het_separable.h"
#include "het_transform.h"
#include "het_util.h"

#define POST_CHUNK	256

static const double log_sqrt_2pi = 0.91893853320467274178;

/*
 * ln B(a, b).  lgamma_r, not lgamma: lgamma writes the global signgam,
 * and hetui-worker evaluates priors on several threads at once.
 */
static double
post_lbeta(double a, double b)
{
	int sign;

	return lgamma_r(a, &sign) + lgamma_r(b, &sign) -
	    lgamma_r(a + b, &sign);
}

double
het_post_prior_logpdf(const struct het_post_prior *pr, double x,
    double *dlog)
{
	double	z, w;

	*dlog = 0;
	if (!isfinite(x) || x < pr->lo || x > pr->hi)
		return -HUGE_VAL;
	switch (pr->kind) {
	case HET_PRIOR_UNIFORM:
		return -log(pr->hi - pr->lo);
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
		/* Truncation normaliser to [lo, hi] dropped (a constant). */
		z = (x - pr->a) / pr->b;
		*dlog = -z / pr->b;
		return -0.5 * z * z - log(pr->b) - log_sqrt_2pi;
	case HET_PRIOR_LOGNORMAL:
		if (x <= 0)
			return -HUGE_VAL;
		z = (log(x) - pr->a) / pr->b;
		*dlog = -(1 + z / pr->b) / x;
		return -0.5 * z * z - log(pr->b) - log_sqrt_2pi - log(x);
	case HET_PRIOR_HALFNORMAL:
		if (x < 0)
			return -HUGE_VAL;
		z = x / pr->b;
		*dlog = -z / pr->b;
		return -0.5 * z * z - log(pr->b) - log_sqrt_2pi +
		    0.69314718055994530942;
	case HET_PRIOR_EXPONENTIAL:
		if (x < 0)
			return -HUGE_VAL;
		*dlog = -pr->a;
		return log(pr->a) - pr->a * x;
	case HET_PRIOR_BETA_SCALED:
		w = pr->hi - pr->lo;
		z = (x - pr->lo) / w;
		if (z <= 0 || z >= 1)
			return -HUGE_VAL;
		*dlog = ((pr->a - 1) / z - (pr->b - 1) / (1 - z)) / w;
		return (pr->a - 1) * log(z) + (pr->b - 1) * log1p(-z) -
		    post_lbeta(pr->a, pr->b) - log(w);
	default:
		return -HUGE_VAL;
	}
}

int
het_post_prior_check(const struct het_post_prior *pr, const char *name,
    struct het_error *err)
{
	const char	*kn;

	if ((unsigned)pr->kind >= HET_PRIOR_COUNT)
		return het_error_set(err, HET_EINVAL, "the prior of %s has "
		    "unknown kind %d; use one of the kinds of het_params.h",
		    name, (int)pr->kind);
	kn = het_prior_name(pr->kind);
	if (isnan(pr->lo) || isnan(pr->hi) || !(pr->lo < pr->hi) ||
	    pr->lo == HUGE_VAL || pr->hi == -HUGE_VAL)
		return het_error_set(err, HET_EINVAL, "the %s prior of %s "
		    "has bounds [%g, %g]; the lower bound must be below the "
		    "upper one", kn, name, pr->lo, pr->hi);
	switch (pr->kind) {
	case HET_PRIOR_UNIFORM:
	case HET_PRIOR_BETA_SCALED:
		if (!isfinite(pr->lo) || !isfinite(pr->hi))
			return het_error_set(err, HET_EINVAL, "the %s prior "
			    "of %s needs finite bounds, not [%g, %g]; set "
			    "both bounds of the parameter", kn, name,
			    pr->lo, pr->hi);
		if (pr->kind == HET_PRIOR_BETA_SCALED && (!isfinite(pr->a) ||
		    !isfinite(pr->b) || pr->a <= 0 || pr->b <= 0))
			return het_error_set(err, HET_EINVAL, "the %s prior "
			    "of %s has concentrations a = %g, b = %g; both "
			    "must be positive and finite", kn, name, pr->a,
			    pr->b);
		break;
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
	case HET_PRIOR_LOGNORMAL:
	case HET_PRIOR_HALFNORMAL:
		if ((pr->kind != HET_PRIOR_HALFNORMAL && !isfinite(pr->a)) ||
		    !isfinite(pr->b) || pr->b <= 0)
			return het_error_set(err, HET_EINVAL, "the %s prior "
			    "of %s has location %g and scale %g; the scale "
			    "must be positive and both finite", kn, name,
			    pr->a, pr->b);
		break;
	case HET_PRIOR_EXPONENTIAL:
		if (!isfinite(pr->a) || pr->a <= 0)
			return het_error_set(err, HET_EINVAL, "the %s prior "
			    "of %s has rate %g; the rate must be positive "
			    "and finite", kn, name, pr->a);
		break;
	default:
		break;
	}
	if ((pr->kind == HET_PRIOR_LOGNORMAL ||
	    pr->kind == HET_PRIOR_HALFNORMAL ||
	    pr->kind == HET_PRIOR_EXPONENTIAL) && !(pr->lo >= 0))
		return het_error_set(err, HET_EINVAL, "the %s prior of %s "
		    "lives on x >= 0 but the lower bound is %g; raise the "
		    "lower bound to 0 or more, or choose another prior", kn,
		    name, pr->lo);
	return HET_OK;
}

void
het_post_prior_nlsq(double value, double sd, double lo, double hi,
    double width_factor, struct het_post_prior *pr)
{
	double	w = hi - lo, sc;

	sc = isfinite(sd) && sd > 0 ? width_factor * sd : 0.1 * w;
	if (!(sc >= 0.01 * w))
		sc = 0.01 * w;
	if (sc > 0.5 * w)
		sc = 0.5 * w;
	if (!isfinite(value))
		value = 0.5 * (lo + hi);
	pr->kind = HET_PRIOR_TRUNCNORMAL;
	pr->a = value < lo ? lo : value > hi ? hi : value;
	pr->b = sc;
	pr->lo = lo;
	pr->hi = hi;
}

void
het_posterior_free(struct het_posterior *post)
{
	if (post == NULL)
		return;
	het_resid_eval_free(post->ev);
	het_resid_scratch_free(post->scr);
	het_separable_free(post->sep);
	free(post->pri);
	free(post->bd);
	free(post->role);
	free(post->mate);
	free(post->x);
	free(post->gx);
	free(post->dxdu);
	free(post->dlj);
	free(post->res);
	free(post->gphys);
	free(post->gcon);
	free(post->goff);
	free(post->rc_n);
	free(post->ro_n);
	free(post->rc_col);
	free(post->ro_col);
	free(post->rc_w);
	free(post->ro_w);
	het_post_marg_free(post);
	free(post);
}

/*
 * Copy the scaling rows of every angle as (column of x, weight) lists,
 * dropping fixed scaling parameters, and the data weights.
 */
static int
post_scaling_rows(struct het_posterior *post, struct het_error *err)
{
	const struct het_scaling *sc = het_resid_scaling(post->resid);
	struct het_scaling_row	 cr, orow;
	size_t			 a, c, ns, k;
	long			 col;

	post->na = het_scaling_nangles(sc);
	ns = het_scaling_nparams(sc);
	if (ns == 0)
		ns = 1;
	if ((post->gcon = het_alloc_array(post->na, sizeof *post->gcon,
	    "angle sums", err)) == NULL ||
	    (post->goff = het_alloc_array(post->na, sizeof *post->goff,
	    "angle sums", err)) == NULL ||
	    (post->rc_n = het_alloc_array(post->na, sizeof *post->rc_n,
	    "scaling rows", err)) == NULL ||
	    (post->ro_n = het_alloc_array(post->na, sizeof *post->ro_n,
	    "scaling rows", err)) == NULL ||
	    (post->rc_col = het_alloc_array(post->na * ns,
	    sizeof *post->rc_col, "scaling rows", err)) == NULL ||
	    (post->ro_col = het_alloc_array(post->na * ns,
	    sizeof *post->ro_col, "scaling rows", err)) == NULL ||
	    (post->rc_w = het_alloc_array(post->na * ns, sizeof *post->rc_w,
	    "scaling rows", err)) == NULL ||
	    (post->ro_w = het_alloc_array(post->na * ns, sizeof *post->ro_w,
	    "scaling rows", err)) == NULL)
		return HET_ENOMEM;
	for (a = 0; a < post->na; a++) {
		het_scaling_rows(sc, a, &cr, &orow);
		post->rc_n[a] = post->ro_n[a] = 0;
		for (c = 0; c < cr.n && c < ns; c++)
			if ((col = het_resid_scal_col(post->resid,
			    cr.idx[c])) >= 0) {
				k = a * ns + post->rc_n[a]++;
				post->rc_col[k] = col;
				post->rc_w[k] = cr.w[c];
			}
		for (c = 0; c < orow.n && c < ns; c++)
			if ((col = het_resid_scal_col(post->resid,
			    orow.idx[c])) >= 0) {
				k = a * ns + post->ro_n[a]++;
				post->ro_col[k] = col;
				post->ro_w[k] = orow.w[c];
			}
	}
	return HET_OK;
}

struct het_posterior *
het_posterior_alloc(const struct het_post_spec *spec, struct het_error *err)
{
	struct het_posterior	*post;
	size_t			 m;
	const char		*nm;

	if (spec == NULL || spec->resid == NULL || spec->model == NULL ||
	    spec->priors == NULL) {
		het_error_set(err, HET_EINVAL, "a shard posterior needs a "
		    "fitting problem, its model and one prior per free "
		    "parameter; one of them is missing");
		return NULL;
	}
	if (!isfinite(spec->sigma) || spec->sigma <= 0) {
		het_error_set(err, HET_EINVAL, "the likelihood noise sigma "
		    "is %g; it must be positive and finite (estimate it from "
		    "the NLSQ residuals or the far-lag scatter)", spec->sigma);
		return NULL;
	}
	if (spec->nshards < 1) {
		het_error_set(err, HET_EINVAL, "the number of shards K is "
		    "%ld; it must be at least 1", spec->nshards);
		return NULL;
	}
	if ((post = calloc(1, sizeof *post)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for a shard "
		    "posterior");
		return NULL;
	}
	post->resid = spec->resid;
	post->p = het_resid_nparams(spec->resid);
	post->n = het_resid_ndata(spec->resid);
	post->nfp = het_resid_nphys_free(spec->resid);
	post->chunk = spec->chunk > 0 ? spec->chunk : POST_CHUNK;
	post->inv_s2 = 1 / (spec->sigma * spec->sigma);
	post->invk = 1.0 / (double)spec->nshards;
	if (post->p == 0) {
		het_error_set(err, HET_EINVAL, "the shard has no free "
		    "parameter; let at least one parameter vary");
		goto fail;
	}
	for (m = 0; m < post->p; m++) {
		nm = het_resid_param_name(spec->resid, m);
		if (het_post_prior_check(&spec->priors[m], nm, err) != HET_OK)
			goto fail;
	}
	if ((post->pri = het_alloc_array(post->p, sizeof *post->pri,
	    "shard priors", err)) == NULL ||
	    (post->bd = het_alloc_array(post->p, sizeof *post->bd,
	    "shard bounds", err)) == NULL ||
	    (post->role = het_alloc_array(post->p, sizeof *post->role,
	    "shard roles", err)) == NULL ||
	    (post->mate = het_alloc_array(post->p, sizeof *post->mate,
	    "shard pairs", err)) == NULL ||
	    (post->x = het_alloc_array(post->p, sizeof *post->x,
	    "shard point", err)) == NULL ||
	    (post->gx = het_alloc_array(post->p, sizeof *post->gx,
	    "shard gradient", err)) == NULL ||
	    (post->dxdu = het_alloc_array(post->p, sizeof *post->dxdu,
	    "shard transform", err)) == NULL ||
	    (post->dlj = het_alloc_array(post->p, sizeof *post->dlj,
	    "shard transform", err)) == NULL ||
	    (post->res = het_alloc_array(post->chunk, sizeof *post->res,
	    "shard residual chunk", err)) == NULL ||
	    (post->gphys = het_alloc_array(post->nfp ? post->nfp : 1,
	    sizeof *post->gphys, "shard gradient", err)) == NULL ||
	    post_scaling_rows(post, err) != HET_OK)
		goto fail;
	memcpy(post->pri, spec->priors, post->p * sizeof *post->pri);
	for (m = 0; m < post->p; m++) {
		post->bd[m].lo = post->pri[m].lo;
		post->bd[m].hi = post->pri[m].hi;
		if (isfinite(post->pri[m].lo) && isfinite(post->pri[m].hi))
			post->bd[m].kind = HET_BOUND_BOTH;
		else if (isfinite(post->pri[m].lo))
			post->bd[m].kind = HET_BOUND_LOWER;
		else if (isfinite(post->pri[m].hi))
			post->bd[m].kind = HET_BOUND_UPPER;
		else
			post->bd[m].kind = HET_BOUND_NONE;
	}
	het_post_coords_init(post, spec->model, spec->reparam);
	if ((post->ev = het_resid_eval_alloc(spec->resid, err)) == NULL ||
	    (post->scr = het_resid_scratch_alloc(spec->resid, post->chunk,
	    err)) == NULL)
		goto fail;
	/* a problem the separable pass refuses keeps the pair kernel */
	if (!spec->pair_kernel)
		post->sep = het_separable_alloc(spec->resid, NULL);
	if (het_post_marg_init(post, spec->marginalise, err) != HET_OK)
		goto fail;
	return post;
fail:
	het_posterior_free(post);
	return NULL;
}

int
het_posterior_separable(const struct het_posterior *post)
{
	return post->sep != NULL;
}

size_t
het_posterior_dim(const struct het_posterior *post)
{
	return post->d;
}

const char *
het_posterior_name(const struct het_posterior *post, size_t m)
{
	return het_resid_param_name(post->resid, m);
}

size_t
het_posterior_nreparam(const struct het_posterior *post)
{
	return post->nrep;
}

double
het_posterior_tref(const struct het_posterior *post)
{
	return post->tref;
}

int
het_posterior_logp(struct het_posterior *post, const double *u, double *lp,
    double *grad, struct het_error *err)
{
	double		*x = post->x, *gx = post->gx;
	double		 lj, lpr = 0, ll = 0, l, d;
	size_t		 m, first, nc, k, c, a, ns, p = post->d;
	struct het_model_lsq_out o;
	int		 rc;

	lj = het_post_forward(post, u, x, post->dxdu, post->dlj, post->tg);
	for (m = 0; m < p; m++) {
		l = het_post_prior_logpdf(&post->pri[m], x[m], &d);
		if (!isfinite(l))
			return het_error_set(err, HET_ERANGE, "%s = %g is "
			    "outside the support of its prior (bounds %g, "
			    "%g)", het_resid_param_name(post->resid, m), x[m],
			    post->pri[m].lo, post->pri[m].hi);
		lpr += l;
		gx[m] = post->invk * d;
	}
	lpr *= post->invk;
	if ((rc = het_resid_prepare(post->ev, x, grad != NULL, err)) != HET_OK)
		return rc;
	if (post->marg) {
		/* contrast and offset integrated out: no scaling columns */
		if ((rc = het_post_marg_loglik(post, grad != NULL, &ll, err)) !=
		    HET_OK)
			return rc;
	} else if (grad == NULL && post->sep != NULL) {
		o.ss = 0;
		if ((rc = het_separable_eval(post->sep, post->ev, 0, &o,
		    err)) != HET_OK)
			return rc;
		ll = o.ss;
	} else if (grad == NULL) {
		for (first = 0; first < post->n; first += nc) {
			nc = post->n - first < post->chunk ?
			    post->n - first : post->chunk;
			het_resid_eval_compact(post->ev, post->scr, first, nc,
			    post->res, NULL, NULL);
			for (k = 0; k < nc; k++)
				ll += post->res[k] * post->res[k];
		}
	} else {
		memset(post->gcon, 0, post->na * sizeof *post->gcon);
		memset(post->goff, 0, post->na * sizeof *post->goff);
		memset(post->gphys, 0, post->nfp * sizeof *post->gphys);
		o.ss = 0;
		o.gfree = post->gphys;
		o.gcon = post->gcon;
		o.goff = post->goff;
		if (post->sep != NULL) {
			if ((rc = het_separable_eval(post->sep, post->ev, 1,
			    &o, err)) != HET_OK)
				return rc;
		} else
			het_resid_eval_lsq(post->ev, post->scr, 0, post->n,
			    &o);
		ll = o.ss;
		/* gx holds d log prior / dx; the likelihood subtracts.
		 * The free physics are the first nfp columns of x. */
		for (c = 0; c < post->nfp; c++)
			gx[c] -= post->inv_s2 * post->gphys[c];
	}
	if (!post->marg)
		ll *= -0.5 * post->inv_s2;
	if (grad != NULL && !post->marg) {
		ns = het_scaling_nparams(het_resid_scaling(post->resid));
		if (ns == 0)
			ns = 1;
		for (a = 0; a < post->na; a++) {
			for (c = 0; c < post->rc_n[a]; c++)
				gx[post->rc_col[a * ns + c]] -= post->inv_s2 *
				    post->rc_w[a * ns + c] * post->gcon[a];
			for (c = 0; c < post->ro_n[a]; c++)
				gx[post->ro_col[a * ns + c]] -= post->inv_s2 *
				    post->ro_w[a * ns + c] * post->goff[a];
		}
	}
	*lp = ll + lpr + lj;
	if (!isfinite(*lp))
		return het_error_set(err, HET_ERANGE, "the log posterior is "
		    "not finite at this point");
	if (grad == NULL)
		return HET_OK;
	het_post_chain_grad(post, u, gx, grad);
	return HET_OK;
}

int
het_posterior_nuts_logp(void *ctx, const double *u, double *lp,
    double *grad)
{
	return het_posterior_logp(ctx, u, lp, grad, NULL) == HET_OK ? 0 : 1;
}

size_t
het_posterior_interior(const struct het_posterior *post, double *x,
    double frac)
{
	double	lo, hi, m, y;
	size_t	k, moved = 0;

	for (k = 0; k < post->p; k++) {
		lo = post->pri[k].lo;
		hi = post->pri[k].hi;
		if (!isfinite(x[k]) || x[k] < lo || x[k] > hi)
			continue;
		if (isfinite(lo) && isfinite(hi))
			m = frac * (hi - lo);
		else
			m = frac * fmax(fabs(isfinite(lo) ? lo : hi), 1.0);
		y = x[k];
		if (isfinite(lo) && y < lo + m)
			y = lo + m;
		if (isfinite(hi) && y > hi - m)
			y = hi - m;
		if (isfinite(lo) && isfinite(hi) && !(y > lo && y < hi))
			y = 0.5 * (lo + hi);
		if (y != x[k]) {
			x[k] = y;
			moved++;
		}
	}
	return moved;
}
