#include "config.h"

/*
 * het_laplace.c: Newton refinement of a mode, its finite-difference
 * Hessian and the Laplace approximation; Pareto-smoothed importance
 * sampling (k-hat) against it (see het_laplace.h).
 *
 * Design.  The Hessian is the central difference of the analytic
 * gradient, column by column, symmetrised.  -H is factored by a
 * symmetric eigendecomposition (LAPACKE_dsyev) rather than Cholesky so
 * that a saddle or a flat direction does not stop the refinement: the
 * Newton step uses |lambda| floored at 1e-12 max |lambda| ("saddle-free"
 * Newton), and the same floored spectrum gives the covariance.  The
 * Hessian is re-taken only when a step had to be damped or the
 * decrement fell by less than a factor 4 (a chord method otherwise:
 * each further step costs one gradient), and always at the final point.
 * The k-hat is het_psis_khat's (het_psis.c).
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <lapacke.h>

#include "het_laplace.h"
#include "het_util.h"

#define LAP_MAX_NEWTON	50
#define LAP_DECREMENT	1e-10	/* g^T C g: the mode within 1e-5 sd */
#define LAP_FLOOR	1e-12	/* eigenvalue floor relative to the largest */
#define LAP_STEP_SD	0.02	/* FD step in Laplace sd */
#define LAP_STEP_FIRST	1e-4	/* FD step before any scale is known */
#define LAP_SHORTEN	8	/* FD step shortenings at a support edge */

/* Work arrays of one fit. */
struct lap_work {
	het_nuts_logp_fn logp;
	void	*ctx;
	size_t	 p;
	long	*neval;
	double	*g, *u1, *g1, *g2, *step, *a, *w, *d, *un, *gn;
};

void
het_laplace_clear(struct het_laplace *lap)
{
	if (lap == NULL)
		return;
	free(lap->mode);
	free(lap->cov);
	free(lap->chol);
	memset(lap, 0, sizeof *lap);
}

static int
lap_eval(struct lap_work *wk, const double *u, double *lp, double *g)
{
	size_t	i;

	(*wk->neval)++;
	if (wk->logp(wk->ctx, u, lp, g) != 0 || !isfinite(*lp))
		return -1;
	for (i = 0; g != NULL && i < wk->p; i++)
		if (!isfinite(g[i]))
			return -1;
	return 0;
}

/*
 * -H at u into wk->a (p x p, symmetrised) by central differences of the
 * gradient with steps wk->step, each shortened 4-fold (up to 8 times)
 * while a side cannot be evaluated (a start near the edge of the
 * support).  Returns 0, or -1 when an evaluation still fails or a value
 * is not finite.
 */
static int
lap_neg_hessian(struct lap_work *wk, const double *u)
{
	size_t	i, k, p = wk->p;
	double	lp, h, v;
	int	t;

	for (k = 0; k < p; k++) {
		memcpy(wk->u1, u, p * sizeof *u);
		for (t = 0, h = wk->step[k]; t <= LAP_SHORTEN; t++, h *= 0.25) {
			wk->u1[k] = u[k] + h;
			if (lap_eval(wk, wk->u1, &lp, wk->g1) != 0)
				continue;
			wk->u1[k] = u[k] - h;
			if (lap_eval(wk, wk->u1, &lp, wk->g2) == 0)
				break;
		}
		if (t > LAP_SHORTEN)
			return -1;
		for (i = 0; i < p; i++)
			wk->a[i * p + k] = -(wk->g1[i] - wk->g2[i]) / (2 * h);
	}
	for (i = 0; i < p; i++)
		for (k = 0; k < i; k++) {
			v = 0.5 * (wk->a[i * p + k] + wk->a[k * p + i]);
			wk->a[i * p + k] = wk->a[k * p + i] = v;
		}
	for (i = 0; i < p * p; i++)
		if (!isfinite(wk->a[i]))
			return -1;
	return 0;
}

/*
 * Eigendecomposition of wk->a in place (columns: eigenvectors) with the
 * eigenvalues in wk->w floored; the count of floored ones in *nfloor.
 * Returns 0 or -1 (LAPACK failed, or -H is zero).
 */
static int
lap_eig(struct lap_work *wk, size_t *nfloor)
{
	size_t	k, p = wk->p;
	double	big = 0, floor_;

	if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)p, wk->a,
	    (lapack_int)p, wk->w) != 0)
		return -1;
	for (k = 0; k < p; k++)
		if (fabs(wk->w[k]) > big)
			big = fabs(wk->w[k]);
	if (!(big > 0) || !isfinite(big))
		return -1;
	floor_ = LAP_FLOOR * big;
	*nfloor = 0;
	for (k = 0; k < p; k++)
		if (!(wk->w[k] > floor_)) {
			(*nfloor)++;
			wk->w[k] = fabs(wk->w[k]) > floor_ ? fabs(wk->w[k]) :
			    floor_;
		}
	return 0;
}

/* out = C v with C = V diag(1/w) V^T (V in wk->a); returns v^T C v. */
static double
lap_solve(const struct lap_work *wk, const double *v, double *out)
{
	size_t	i, k, p = wk->p;
	double	c, dec = 0;

	memset(out, 0, p * sizeof *out);
	for (k = 0; k < p; k++) {
		c = 0;
		for (i = 0; i < p; i++)
			c += wk->a[i * p + k] * v[i];
		dec += c * c / wk->w[k];
		c /= wk->w[k];
		for (i = 0; i < p; i++)
			out[i] += wk->a[i * p + k] * c;
	}
	return dec;
}

/* Hessian and eigendecomposition at u; next FD steps from its scales. */
static int
lap_curvature(struct lap_work *wk, const double *u, size_t *nfloor)
{
	size_t	i, k, p = wk->p;
	double	var, h;

	if (lap_neg_hessian(wk, u) != 0 || lap_eig(wk, nfloor) != 0)
		return -1;
	for (i = 0; i < p; i++) {
		var = 0;
		for (k = 0; k < p; k++)
			var += wk->a[i * p + k] * wk->a[i * p + k] / wk->w[k];
		h = LAP_STEP_SD * sqrt(var);
		wk->step[i] = isfinite(h) && h > 1e-10 ? (h < 0.1 ? h : 0.1) :
		    1e-10;
	}
	return 0;
}

/* cov = V diag(1/w) V^T and its Cholesky factor. */
static int
lap_finish(const struct lap_work *wk, struct het_laplace *lap)
{
	size_t	i, j, k, p = wk->p;
	double	v;

	for (i = 0; i < p; i++)
		for (j = 0; j <= i; j++) {
			v = 0;
			for (k = 0; k < p; k++)
				v += wk->a[i * p + k] * wk->a[j * p + k] /
				    wk->w[k];
			lap->cov[i * p + j] = lap->cov[j * p + i] = v;
		}
	memcpy(lap->chol, lap->cov, p * p * sizeof *lap->cov);
	if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)p, lap->chol,
	    (lapack_int)p) != 0)
		return -1;
	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
			lap->chol[i * p + j] = 0;
	return 0;
}

static void
lap_work_free(struct lap_work *wk)
{
	free(wk->g);
	free(wk->u1);
	free(wk->g1);
	free(wk->g2);
	free(wk->step);
	free(wk->a);
	free(wk->w);
	free(wk->d);
	free(wk->un);
	free(wk->gn);
}

static int
lap_alloc(struct lap_work *wk, struct het_laplace *lap, size_t p,
    struct het_error *err)
{
	double	**v[] = { &wk->g, &wk->u1, &wk->g1, &wk->g2, &wk->step,
		    &wk->w, &wk->d, &wk->un, &wk->gn, &lap->mode };
	size_t	i;

	for (i = 0; i < sizeof v / sizeof v[0]; i++)
		if ((*v[i] = het_alloc_array(p, sizeof **v[i],
		    "Laplace work vector", err)) == NULL)
			return HET_ENOMEM;
	if (p > SIZE_MAX / p / sizeof(double))
		return het_error_set(err, HET_ENOMEM, "a %zu x %zu Hessian "
		    "does not fit in memory", p, p);
	if ((wk->a = het_alloc_array(p * p, sizeof *wk->a, "Hessian",
	    err)) == NULL || (lap->cov = het_alloc_array(p * p,
	    sizeof *lap->cov, "Laplace covariance", err)) == NULL ||
	    (lap->chol = het_alloc_array(p * p, sizeof *lap->chol,
	    "Laplace Cholesky factor", err)) == NULL)
		return HET_ENOMEM;
	return HET_OK;
}

/*
 * One damped Newton step from (u, lp, g) along d = C g (C from the last
 * curvature).  Returns 1 when a step raised lp (u, lp, g replaced;
 * *damped set when t < 1), 0 when none did.
 */
static int
lap_step(struct lap_work *wk, double *u, double *lp, int *damped)
{
	double	t = 1, lpn;
	size_t	i, p = wk->p;
	int	h;

	lap_solve(wk, wk->g, wk->d);
	for (h = 0; h < 30; h++, t *= 0.5) {
		for (i = 0; i < p; i++)
			wk->un[i] = u[i] + t * wk->d[i];
		if (lap_eval(wk, wk->un, &lpn, wk->gn) == 0 && lpn > *lp) {
			memcpy(u, wk->un, p * sizeof *u);
			memcpy(wk->g, wk->gn, p * sizeof *u);
			*lp = lpn;
			*damped = h > 0;
			return 1;
		}
	}
	return 0;
}

static int
lap_refine(struct lap_work *wk, struct het_laplace *lap, int max_newton,
    struct het_error *err)
{
	double	dec, prev = HUGE_VAL;
	int	damped = 0, fresh = 1;

	for (;;) {
		dec = lap_solve(wk, wk->g, wk->d);
		if (dec < LAP_DECREMENT) {
			lap->converged = 1;
			break;
		}
		if (!fresh && (damped || dec > 0.25 * prev)) {
			if (lap_curvature(wk, lap->mode, &lap->n_floor) != 0)
				goto bad;
			fresh = 1;
			continue;
		}
		if (lap->newton_iter >= max_newton ||
		    !lap_step(wk, lap->mode, &lap->lp, &damped))
			break;
		lap->newton_iter++;
		fresh = 0;
		prev = dec;
	}
	if (!fresh && lap_curvature(wk, lap->mode, &lap->n_floor) != 0)
		goto bad;
	lap->decrement = lap_solve(wk, wk->g, wk->d);
	lap->converged = lap->decrement < LAP_DECREMENT;
	if (lap_finish(wk, lap) != 0)
		goto bad;
	return HET_OK;
bad:
	return het_error_set(err, HET_EDATA, "the Hessian of the log density "
	    "near its mode is not finite or not usable (after %d Newton "
	    "steps)", lap->newton_iter);
}

int
het_laplace_fit(het_nuts_logp_fn logp, void *ctx, size_t p,
    const double *u0, int max_newton, struct het_laplace *lap,
    struct het_error *err)
{
	struct lap_work	wk;
	size_t		i;
	int		rc;

	memset(lap, 0, sizeof *lap);
	memset(&wk, 0, sizeof wk);
	if (p == 0 || logp == NULL || u0 == NULL)
		return het_error_set(err, HET_EINVAL, "the Laplace "
		    "approximation needs a log density and a start point "
		    "of at least one parameter");
	wk.logp = logp;
	wk.ctx = ctx;
	wk.p = p;
	wk.neval = &lap->n_eval;
	lap->p = p;
	if ((rc = lap_alloc(&wk, lap, p, err)) != HET_OK)
		goto out;
	memcpy(lap->mode, u0, p * sizeof *u0);
	if (lap_eval(&wk, lap->mode, &lap->lp, wk.g) != 0) {
		rc = het_error_set(err, HET_EDATA, "the log density or its "
		    "gradient cannot be evaluated (or is not finite) at the "
		    "start of the Laplace approximation");
		goto out;
	}
	for (i = 0; i < p; i++)
		wk.step[i] = LAP_STEP_FIRST * (fabs(u0[i]) > 1 ? fabs(u0[i]) :
		    1);
	if (lap_curvature(&wk, lap->mode, &lap->n_floor) != 0) {
		rc = het_error_set(err, HET_EDATA, "the Hessian of the log "
		    "density at the start of the Laplace approximation is not "
		    "finite (a parameter at a bound, or a point where the "
		    "model cannot be evaluated)");
		goto out;
	}
	rc = lap_refine(&wk, lap, max_newton > 0 ? max_newton :
	    LAP_MAX_NEWTON, err);
out:
	lap_work_free(&wk);
	if (rc != HET_OK)
		het_laplace_clear(lap);
	return rc;
}

void
het_laplace_draw(const struct het_laplace *lap, gsl_rng *rng, double scale,
    double *u)
{
	size_t	i, k, p = lap->p;
	double	z;

	memcpy(u, lap->mode, p * sizeof *u);
	for (k = 0; k < p; k++) {
		z = scale * gsl_ran_gaussian_ziggurat(rng, 1.0);
		for (i = k; i < p; i++)
			u[i] += lap->chol[i * p + k] * z;
	}
}

/* ---- Pareto k-hat ------------------------------------------------- */

/*
 * The generalised Pareto shape of the n ascending exceedances x (> 0),
 * by Zhang and Stephens' profile posterior with arviz's weak prior.
 */
int
het_laplace_psis(het_nuts_logp_fn logp, void *ctx,
    const struct het_laplace *lap, gsl_rng *rng, size_t ndraw, double dof,
    double *khat, double *ess_frac, struct het_error *err)
{
	double	*lw, *u, *z, qt, sc, lp, big = -HUGE_VAL, s1 = 0, s2 = 0;
	size_t	s, p = lap->p;
	int	rc;

	if (ndraw < 20 || !(dof > 0) || p == 0)
		return het_error_set(err, HET_EINVAL, "PSIS needs >= 20 draws, "
		    "dof > 0 and a Laplace approximation (got %zu, %g, p %zu)",
		    ndraw, dof, p);
	lw = het_alloc_array(ndraw, sizeof *lw, "importance weights", err);
	u = het_alloc_array(p, sizeof *u, "importance draw", err);
	z = het_alloc_array(p, sizeof *z, "importance draw", err);
	if (lw == NULL || u == NULL || z == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (s = 0; s < ndraw; s++) {
		qt = het_psis_t_draw(lap->mode, lap->chol, p, dof, rng, z, u);
		lw[s] = logp(ctx, u, &lp, NULL) == 0 && isfinite(lp) ?
		    lp - lap->lp + qt : -HUGE_VAL;
		if (lw[s] > big)
			big = lw[s];
	}
	for (s = 0; isfinite(big) && s < ndraw; s++) {
		sc = exp(lw[s] - big);
		s1 += sc;
		s2 += sc * sc;
	}
	if (ess_frac != NULL)
		*ess_frac = s2 > 0 ? s1 * s1 / s2 / (double)ndraw : 0;
	rc = het_psis_khat(lw, ndraw, khat, err);
out:
	free(lw);
	free(u);
	free(z);
	return rc;
}
