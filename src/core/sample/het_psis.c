#include "config.h"

/*
 * het_psis.c: Pareto-smoothed importance sampling: k-hat, smoothing and
 * the reweighting of a log density from a Student-t proposal (see
 * het_psis.h).
 *
 * Design.  het_psis_khat and het_psis_smooth share one tail pass
 * (psis_tail): shift the log weights by their largest, order them, take
 * the tail above the cut and fit it; smoothing then writes the fitted
 * quantiles back through the order.  het_psis_reweight keeps the mapped
 * point of every draw (ndraw x p doubles) so that the moments are taken
 * once the weights are smoothed.
 */

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <lapacke.h>

#include "het_psis.h"
#include "het_util.h"

/*
 * The generalised Pareto fit of the n ascending exceedances x (> 0):
 * *sigma its scale and the return value its shape k with the weak prior
 * (b, lw: scratch of 30 + sqrt n doubles).
 */
static double
gpd_fit(const double *x, size_t n, double *b, double *lw, double *sigma)
{
	size_t	m = 30 + (size_t)sqrt((double)n), j, i;
	double	xq = x[(size_t)((double)n / 4 + 0.5) - 1], k, s, bpost = 0;
	double	wsum = 0, lmax = -HUGE_VAL;

	for (j = 0; j < m; j++) {
		b[j] = (1 - sqrt((double)m / ((double)j + 0.5))) / (3 * xq) +
		    1 / x[n - 1];
		s = 0;
		for (i = 0; i < n; i++)
			s += log1p(-b[j] * x[i]);
		k = s / (double)n;
		lw[j] = (double)n * (log(-b[j] / k) - k - 1);
		if (lw[j] > lmax)
			lmax = lw[j];
	}
	for (j = 0; j < m; j++) {
		lw[j] = exp(lw[j] - lmax);
		wsum += lw[j];
	}
	for (j = 0; j < m; j++)
		if (lw[j] / wsum >= 10 * DBL_EPSILON)
			bpost += b[j] * lw[j];
		else
			wsum -= lw[j];
	bpost /= wsum;
	s = 0;
	for (i = 0; i < n; i++)
		s += log1p(-bpost * x[i]);
	k = s / (double)n;
	*sigma = -k / bpost;
	return ((double)n * k + 10 * 0.5) / ((double)n + 10);
}

/* The quantile at q of the generalised Pareto (k, sigma) from 0. */
static double
gpd_quantile(double q, double k, double sigma)
{
	if (fabs(k) < 1e-12)
		return -sigma * log1p(-q);
	return sigma * expm1(-k * log1p(-q)) / k;
}

/*
 * The tail pass: *khat of the n log weights lw; with smooth, the tail
 * of lw replaced by the fitted quantiles, and lw shifted so that its
 * largest is 0.
 */
static int
psis_tail(double *lw, size_t n, int smooth, double *khat,
    struct het_error *err)
{
	struct het_rank_item *e;
	double	*x, *b, *sc, big = -HUGE_VAL, cut, sigma = NAN, q;
	size_t	 i, t, mtail, nt, m = 30 + (size_t)sqrt((double)n) + 1;
	int	 rc = HET_OK;

	*khat = HUGE_VAL;
	if (n < 5)
		return het_error_set(err, HET_EINVAL, "Pareto k-hat needs at "
		    "least 5 weights (got %zu)", n);
	for (i = 0; i < n; i++)
		if (lw[i] > big)
			big = lw[i];
	if (!isfinite(big))
		return HET_OK;
	e = het_alloc_array(n, sizeof *e, "importance weights", err);
	x = het_alloc_array(n, sizeof *x, "importance weights", err);
	b = het_alloc_array(m, sizeof *b, "Pareto fit", err);
	sc = het_alloc_array(m, sizeof *sc, "Pareto fit", err);
	if (e == NULL || x == NULL || b == NULL || sc == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		e[i].v = lw[i] - big;
		e[i].i = i;
		if (smooth)
			lw[i] -= big;
	}
	qsort(e, n, sizeof *e, het_cmp_rank);
	mtail = (size_t)ceil(fmin(0.2 * (double)n, 3 * sqrt((double)n)));
	cut = fmax(e[n - mtail - 1].v, log(DBL_MIN));
	for (i = n; i > 0 && e[i - 1].v > cut; i--)
		;
	nt = n - i;
	if (nt <= 4)
		goto out;
	for (t = 0; t < nt; t++)
		x[t] = exp(e[i + t].v) - exp(cut);
	*khat = gpd_fit(x, nt, b, sc, &sigma);
	if (!smooth || !isfinite(*khat) || !(sigma > 0))
		goto out;
	for (t = 0; t < nt; t++) {
		q = gpd_quantile(((double)t + 0.5) / (double)nt, *khat, sigma);
		lw[e[i + t].i] = fmin(log(q + exp(cut)), 0.0);
	}
out:
	free(e);
	free(x);
	free(b);
	free(sc);
	return rc;
}

int
het_psis_khat(const double *logw, size_t n, double *khat,
    struct het_error *err)
{
	double	*lw;
	int	 rc;

	*khat = HUGE_VAL;
	if (n < 5)
		return het_error_set(err, HET_EINVAL, "Pareto k-hat needs at "
		    "least 5 weights (got %zu)", n);
	if ((lw = het_alloc_array(n, sizeof *lw, "importance weights",
	    err)) == NULL)
		return HET_ENOMEM;
	memcpy(lw, logw, n * sizeof *lw);
	rc = psis_tail(lw, n, 0, khat, err);
	free(lw);
	return rc;
}

int
het_psis_smooth(double *logw, size_t n, double *khat,
    struct het_error *err)
{
	return psis_tail(logw, n, 1, khat, err);
}

void
het_psis_result_clear(struct het_psis_result *r)
{
	free(r->mean);
	free(r->sd);
	memset(r, 0, sizeof(*r));
}

/* The weighted mean and sd of the ndraw rows of y (p each) into r. */
static void
psis_moments(const double *lw, const double *y, size_t ndraw, size_t p,
    struct het_psis_result *r)
{
	double	 w, s1 = 0, s2 = 0, dv;
	size_t	 s, m;

	/* a draw of weight 0 may map to no point (NaN): left out */
	for (s = 0; s < ndraw; s++) {
		if (!((w = isfinite(lw[s]) ? exp(lw[s]) : 0) > 0))
			continue;
		s1 += w;
		s2 += w * w;
		for (m = 0; m < p; m++)
			r->mean[m] += w * y[s * p + m];
	}
	for (m = 0; m < p; m++)
		r->mean[m] /= s1;
	for (s = 0; s < ndraw; s++) {
		if (!((w = isfinite(lw[s]) ? exp(lw[s]) / s1 : 0) > 0))
			continue;
		for (m = 0; m < p; m++) {
			dv = y[s * p + m] - r->mean[m];
			r->sd[m] += w * dv * dv;
		}
	}
	for (m = 0; m < p; m++)
		r->sd[m] = sqrt(r->sd[m]);
	r->ess = s1 * s1 / s2;
}

double
het_psis_t_draw(const double *loc, const double *L, size_t d, double dof,
    gsl_rng *rng, double *z, double *u)
{
	double	 sc = sqrt(dof / gsl_ran_chisq(rng, dof)), r2 = 0;
	size_t	 i, k;

	for (k = 0; k < d; k++) {
		z[k] = sc * gsl_ran_gaussian_ziggurat(rng, 1.0);
		r2 += z[k] * z[k];
	}
	memcpy(u, loc, d * sizeof *u);
	for (k = 0; k < d; k++)
		for (i = k; i < d; i++)
			u[i] += L[i * d + k] * z[k];
	return 0.5 * (dof + (double)d) * log1p(r2 / dof);
}

int
het_psis_reweight(het_nuts_logp_fn logp, void *ctx,
    het_psis_map_fn map, void *map_ctx, size_t d, size_t p,
    const double *loc, const double *cov, double dof, size_t ndraw,
    gsl_rng *rng, const atomic_int *cancel, struct het_psis_result *out,
    struct het_error *err)
{
	double	*L = NULL, *lw = NULL, *y = NULL, *u = NULL, *z = NULL, lp, qt;
	size_t	 s;
	int	 rc = HET_ENOMEM;

	memset(out, 0, sizeof(*out));
	if (map == NULL)
		p = d;
	if (d == 0 || p == 0 || ndraw < 20 || !(dof > 0) || loc == NULL ||
	    cov == NULL)
		return het_error_set(err, HET_EINVAL, "importance reweighting "
		    "needs >= 20 draws, dof > 0 and a location and scale of "
		    "dimension >= 1 (got %zu draws, dof %g, dimension %zu)",
		    ndraw, dof, d);
	L = het_alloc_array(d * d, sizeof *L, "proposal scale", err);
	lw = het_alloc_array(ndraw, sizeof *lw, "importance weights", err);
	y = het_alloc_array(ndraw * p, sizeof *y, "importance draws", err);
	u = het_alloc_array(d, sizeof *u, "importance draw", err);
	z = het_alloc_array(d, sizeof *z, "importance draw", err);
	out->mean = het_alloc_array(p, sizeof(double), "moments", err);
	out->sd = het_alloc_array(p, sizeof(double), "moments", err);
	if (L == NULL || lw == NULL || y == NULL || u == NULL || z == NULL ||
	    out->mean == NULL || out->sd == NULL)
		goto out;
	memcpy(L, cov, d * d * sizeof *L);
	if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)d, L,
	    (lapack_int)d) != 0) {
		rc = het_error_set(err, HET_EINVAL, "importance reweighting: "
		    "the proposal's scale matrix is not positive definite");
		goto out;
	}
	out->p = p;
	out->ndraw = ndraw;
	for (s = 0; s < ndraw; s++) {
		if (cancel != NULL && atomic_load(cancel)) {
			rc = het_error_set(err, HET_ECANCEL, "importance "
			    "reweighting cancelled after %zu of %zu draws", s,
			    ndraw);
			goto out;
		}
		qt = het_psis_t_draw(loc, L, d, dof, rng, z, u);
		if (logp(ctx, u, &lp, NULL) == 0 && isfinite(lp))
			lw[s] = lp + qt;
		else {
			lw[s] = -HUGE_VAL;
			out->nzero++;
		}
		if (map != NULL)
			map(map_ctx, u, y + s * p);
		else
			memcpy(y + s * p, u, d * sizeof *u);
	}
	if (out->nzero == ndraw) {
		rc = het_error_set(err, HET_EDATA, "importance reweighting: the "
		    "log density failed at every one of %zu proposal draws",
		    ndraw);
		goto out;
	}
	if ((rc = het_psis_smooth(lw, ndraw, &out->khat, err)) != HET_OK)
		goto out;
	psis_moments(lw, y, ndraw, p, out);
	rc = HET_OK;
out:
	free(L);
	free(lw);
	free(y);
	free(u);
	free(z);
	if (rc != HET_OK)
		het_psis_result_clear(out);
	return rc;
}
