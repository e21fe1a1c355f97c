/*
 * t_core_laplace.c: the Laplace approximation (het_laplace), the Pareto
 * k-hat of importance weights (het_psis_khat, het_laplace_psis) and a
 * NUTS chain started on the Laplace metric (het_nuts_set_metric).
 *
 * Deterministic targets with known modes and curvatures: a correlated
 * 4-D Gaussian with scales from 1e-4 to 30 (one Newton step must land on
 * the mode; the finite-difference Hessian is exact there up to
 * rounding), log-Gamma coordinates (non-quadratic: mode ln a, variance
 * 1/a), a flat direction (floored, counted) and a start next to a
 * minimum of lp (saddle-free steps climb to the mode).  The k-hat of
 * the weights of N(0, 1) importance-sampled from N(0, s^2) is 1 - s^2
 * for s < 1 (the weights' tail index); the margins below are 4-6 times
 * the seed-to-seed sd measured over 20 seeds (noted at each check), so
 * they hold on any CPU.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "het_laplace.h"
#include "het_nuts.h"
#include "tap.h"

#define GD	4

static const double g_mu[GD] = { 0.3, -2.0, 150.0, 1e-3 };
static const double g_sd[GD] = { 1e-4, 1.0, 30.0, 3e-3 };
static const double g_rho = 0.8;	/* correlation of y0, y1 and y2, y3 */

/* Covariance of the Gaussian target, entry (i, j). */
static double
g_cov(size_t i, size_t j)
{
	if (i == j)
		return g_sd[i] * g_sd[i];
	if (i / 2 == j / 2)
		return g_rho * g_sd[i] * g_sd[j];
	return 0;
}

/* Pairs (0,1), (2,3), each bivariate normal with correlation g_rho. */
static int
gauss_logp(void *ctx, const double *q, double *lp, double *grad)
{
	double	a, b, c = 1 / (1 - g_rho * g_rho);
	size_t	k;

	if (ctx != NULL)
		(*(long *)ctx)++;
	*lp = 0;
	for (k = 0; k < GD; k += 2) {
		a = (q[k] - g_mu[k]) / g_sd[k];
		b = (q[k + 1] - g_mu[k + 1]) / g_sd[k + 1];
		*lp += -0.5 * c * (a * a - 2 * g_rho * a * b + b * b);
		if (grad != NULL) {
			grad[k] = -c * (a - g_rho * b) / g_sd[k];
			grad[k + 1] = -c * (b - g_rho * a) / g_sd[k + 1];
		}
	}
	return 0;
}

static void
test_gaussian(void)
{
	struct het_laplace	lap;
	struct het_error	err;
	double			u0[GD], worst = 0, d;
	long			calls = 0;
	size_t			i, j;
	int			rc;

	for (i = 0; i < GD; i++)
		u0[i] = g_mu[i] + 2.5 * g_sd[i] * (i % 2 ? -1 : 1);
	rc = het_laplace_fit(gauss_logp, &calls, GD, u0, 0, &lap, &err);
	is_int(rc, HET_OK, "Gaussian: fit");
	ok(lap.converged && lap.newton_iter == 1, "one Newton step reaches "
	    "the mode of a Gaussian (%d steps, converged %d)",
	    lap.newton_iter, lap.converged);
	for (i = 0; i < GD; i++)
		if ((d = fabs(lap.mode[i] - g_mu[i]) / g_sd[i]) > worst)
			worst = d;
	ok(worst < 1e-8, "mode within 1e-8 sd in every coordinate (%.2e)",
	    worst);
	worst = 0;
	for (i = 0; i < GD; i++)
		for (j = 0; j < GD; j++)
			if ((d = fabs(lap.cov[i * GD + j] - g_cov(i, j)) /
			    (g_sd[i] * g_sd[j])) > worst)
				worst = d;
	ok(worst < 1e-7, "covariance within 1e-7 of the truth, in units of "
	    "sd_i sd_j, over scales 1e-4 to 30 (%.2e)", worst);
	is_int((long long)lap.n_floor, 0, "no eigenvalue floored");
	is_int(lap.n_eval, calls, "n_eval counts every evaluation");
	ok(lap.n_eval <= 4 * GD + 3, "at most two Hessians and a few steps "
	    "(%ld evaluations)", lap.n_eval);
	d = lap.chol[0] * lap.chol[0];
	is_rel(d, g_cov(0, 0), 1e-7, "chol: L L^T = cov (entry 0,0)");
	d = lap.chol[1 * GD + 0] * lap.chol[0];
	is_rel(d, g_cov(1, 0), 1e-7, "chol: L L^T = cov (entry 1,0)");
	ok(lap.chol[0 * GD + 1] == 0, "chol is lower triangular");
	het_laplace_clear(&lap);
	ok(lap.mode == NULL && lap.p == 0, "clear empties the record");
	het_laplace_clear(NULL);
}

/* u = ln x, x ~ Gamma(a_k, 1): lp = a u - e^u; mode ln a, -H = a. */
static const double lg_a[3] = { 2.0, 50.0, 1000.0 };

static int
lgamma_logp(void *ctx, const double *q, double *lp, double *grad)
{
	size_t	k;

	(void)ctx;
	*lp = 0;
	for (k = 0; k < 3; k++) {
		*lp += lg_a[k] * q[k] - exp(q[k]);
		if (grad != NULL)
			grad[k] = lg_a[k] - exp(q[k]);
	}
	return 0;
}

static void
test_lgamma(void)
{
	struct het_laplace	lap;
	struct het_error	err;
	double			u0[3];
	size_t			k;

	for (k = 0; k < 3; k++)
		u0[k] = log(lg_a[k]) + (k == 1 ? -1.5 : 1.0);
	is_int(het_laplace_fit(lgamma_logp, NULL, 3, u0, 0, &lap, &err),
	    HET_OK, "log-Gamma: fit");
	ok(lap.converged, "log-Gamma: converged in %d steps (decrement %.1e)",
	    lap.newton_iter, lap.decrement);
	for (k = 0; k < 3; k++) {
		/* converged: decrement < 1e-10, the mode within 1e-5 sd */
		is_double(lap.mode[k], log(lg_a[k]), 2e-5 / sqrt(lg_a[k]),
		    "log-Gamma a = %g: mode ln a within 2e-5 sd", lg_a[k]);
		/* FD step 0.02 sd: relative error of the curvature about
		   (0.02)^2 / 6 = 7e-5 */
		is_rel(lap.cov[k * 3 + k], 1 / lg_a[k], 2e-4,
		    "log-Gamma a = %g: variance 1/a", lg_a[k]);
	}
	het_laplace_clear(&lap);
}

/* Flat in u1; a double well in u0 (modes at +-1, minimum of lp at 0). */
static int
well_logp(void *ctx, const double *q, double *lp, double *grad)
{
	(void)ctx;
	*lp = -(q[0] * q[0] - 1) * (q[0] * q[0] - 1);
	if (grad != NULL) {
		grad[0] = -4 * q[0] * (q[0] * q[0] - 1);
		grad[1] = 0;
	}
	return 0;
}

/* Fails where q[0] > 0.5 (a support edge) and everywhere when ctx set. */
static int
edge_logp(void *ctx, const double *q, double *lp, double *grad)
{
	if (ctx != NULL || q[0] > 0.5)
		return 1;
	*lp = -0.5 * q[0] * q[0];
	if (grad != NULL)
		grad[0] = -q[0];
	return 0;
}

static void
test_degenerate(void)
{
	struct het_laplace	lap;
	struct het_error	err;
	double			u0[2] = { 0.1, 3.0 }, one = 0.4;
	int			flag = 1;

	is_int(het_laplace_fit(well_logp, NULL, 2, u0, 0, &lap, &err), HET_OK,
	    "double well from next to the minimum of lp: fit");
	is_double(lap.mode[0], 1.0, 2e-5 / sqrt(8), "saddle-free steps climb "
	    "to the mode at 1 (within 2e-5 sd)");
	is_double(lap.mode[1], 3.0, 0, "the flat coordinate does not move");
	is_int((long long)lap.n_floor, 1, "the flat direction is floored "
	    "and counted");
	is_rel(lap.cov[0], 1.0 / 8, 1e-3, "variance of u0 at the mode: 1/8");
	ok(isfinite(lap.cov[3]) && lap.cov[3] > 1e6, "the flat direction "
	    "gets a huge finite variance (%g)", lap.cov[3]);
	het_laplace_clear(&lap);

	is_int(het_laplace_fit(edge_logp, &flag, 1, &one, 0, &lap, &err),
	    HET_EDATA, "a start where the density fails: HET_EDATA");
	like(err.msg, "cannot be evaluated", "... %s", err.msg);
	ok(lap.mode == NULL, "... and nothing is kept");
	one = 0.49;
	is_int(het_laplace_fit(edge_logp, NULL, 1, &one, 0, &lap, &err),
	    HET_OK, "a start 0.01 sd inside a support edge");
	is_double(lap.mode[0], 0, 1e-9, "... Newton leaves the edge for the "
	    "mode");
	het_laplace_clear(&lap);
	is_int(het_laplace_fit(gauss_logp, NULL, 0, u0, 0, &lap, &err),
	    HET_EINVAL, "p = 0: HET_EINVAL");
	is_int(het_laplace_fit(NULL, NULL, 2, u0, 0, &lap, &err), HET_EINVAL,
	    "no callback: HET_EINVAL");
}

/* k-hat of N(0,1) weighted from n draws of N(0, s^2). */
static double
khat_normal(double s, size_t n, unsigned long seed)
{
	struct het_error err;
	gsl_rng		*rng = gsl_rng_alloc(gsl_rng_mt19937);
	double		*lw = malloc(n * sizeof *lw), x, k = NAN;
	size_t		 i;

	gsl_rng_set(rng, seed);
	for (i = 0; i < n; i++) {
		x = s * gsl_ran_gaussian_ziggurat(rng, 1.0);
		lw[i] = -0.5 * x * x + 0.5 * x * x / (s * s);
	}
	if (het_psis_khat(lw, n, &k, &err) != HET_OK)
		k = NAN;
	free(lw);
	gsl_rng_free(rng);
	return k;
}

static void
test_khat(void)
{
	struct het_error err;
	double		 k, lw[6] = { 0, -1, -HUGE_VAL, -2, -3, -4 };
	double		 dead[5] = { -HUGE_VAL, -HUGE_VAL, -HUGE_VAL,
			     -HUGE_VAL, -HUGE_VAL };

	/* 20 seeds, n 20000: s 0.5 gives 0.71 +- 0.07, s 0.8 gives
	   0.36 +- 0.05, s 2 gives -1.75 +- 0.06 (a bounded tail); the
	   bands are 4-5 sd wide on each side */
	k = khat_normal(0.5, 20000, 7);
	ok(k > 0.4 && k < 1.0, "k-hat of a proposal half as wide: heavy tail "
	    "(%.3f; theory 0.75)", k);
	k = khat_normal(0.8, 20000, 7);
	ok(k > 0.1 && k < 0.6, "k-hat of a proposal 0.8 as wide (%.3f; "
	    "theory 0.36)", k);
	k = khat_normal(2.0, 20000, 7);
	ok(k < 0, "k-hat of a wider proposal: bounded weights, k < 0 (%.3f)",
	    k);
	is_int(het_psis_khat(lw, 4, &k, &err), HET_EINVAL, "fewer than 5 "
	    "weights: HET_EINVAL");
	is_int(het_psis_khat(dead, 5, &k, &err), HET_OK, "every weight zero");
	ok(isinf(k) && k > 0, "... k-hat is +inf");
	is_int(het_psis_khat(lw, 6, &k, &err), HET_OK, "a tail of <= 4");
	ok(isinf(k) && k > 0, "... k-hat is +inf");
}

static void
test_psis(void)
{
	struct het_laplace	lap;
	struct het_error	err;
	gsl_rng			*rng = gsl_rng_alloc(gsl_rng_mt19937);
	double			u0[GD], k, ess, one = 0;
	size_t			i;
	int			flag = 1;

	gsl_rng_set(rng, 3);
	memcpy(u0, g_mu, sizeof u0);
	het_laplace_fit(gauss_logp, NULL, GD, u0, 0, &lap, &err);
	is_int(het_laplace_psis(gauss_logp, NULL, &lap, rng, 2000, 8, &k,
	    &ess, &err), HET_OK, "PSIS of a Gaussian from its Laplace t_8");
	/* bounded weights (t_8 is heavier than the target): 20 seeds gave
	   k -1.6 +- 0.1, effective fraction 0.919 +- 0.004 */
	ok(k < 0.2, "... k-hat < 0.2: the approximation is exact (%.3f)", k);
	ok(ess > 0.89 && ess < 0.95, "... effective fraction of the t_8 "
	    "weights (%.3f)", ess);
	het_laplace_clear(&lap);

	is_int(het_laplace_fit(edge_logp, NULL, 1, &one, 0, &lap, &err),
	    HET_OK, "1-D Gaussian behind an edge at 0.5 sd");
	is_int(het_laplace_psis(edge_logp, &flag, &lap, rng, 100, 8, &k,
	    &ess, &err), HET_OK, "PSIS where every draw fails");
	ok(isinf(k) && ess == 0, "... k-hat +inf, effective fraction 0");
	is_int(het_laplace_psis(edge_logp, NULL, &lap, rng, 10, 8, &k, &ess,
	    &err), HET_EINVAL, "fewer than 20 draws: HET_EINVAL");
	het_laplace_draw(&lap, rng, 0, &one);
	is_double(one, lap.mode[0], 0, "a draw of scale 0 is the mode");
	for (i = 0; i < 2; i++)
		het_laplace_draw(&lap, rng, 1, &one);
	ok(fabs(one) < 10, "a draw lands near the mode (%g)", one);
	het_laplace_clear(&lap);
	gsl_rng_free(rng);
}

/* Mean leapfrog steps of one chain on the 4-D Gaussian. */
static double
nuts_steps(const double *minv, double *mean0, struct het_error *err)
{
	struct het_nuts_config	cfg;
	struct het_nuts_stats	st;
	struct het_nuts		*s;
	gsl_rng			*rng = gsl_rng_alloc(gsl_rng_mt19937);
	double			 steps = 0, sum = 0;
	long			 n = 0;

	gsl_rng_set(rng, 5);
	het_nuts_config_default(&cfg);
	cfg.num_warmup = 150;
	cfg.num_samples = 2000;
	cfg.dense_metric = 1;
	s = het_nuts_alloc(GD, &cfg, gauss_logp, NULL, rng, err);
	if (s == NULL || het_nuts_set_metric(s, minv, err) != HET_OK ||
	    het_nuts_init(s, g_mu, err) != HET_OK) {
		het_nuts_free(s);
		gsl_rng_free(rng);
		return NAN;
	}
	while (het_nuts_test(s) == HET_CONTINUE) {
		if (het_nuts_iterate(s, err) != HET_OK)
			break;
		het_nuts_get_stats(s, &st);
		if (st.phase == HET_NUTS_SAMPLING ||
		    st.phase == HET_NUTS_DONE) {
			steps += (double)st.n_leapfrog;
			sum += het_nuts_position(s)[0];
			n++;
		}
	}
	*mean0 = sum / (double)n;
	het_nuts_free(s);
	gsl_rng_free(rng);
	return steps / (double)n;
}

static void
test_nuts_metric(void)
{
	struct het_laplace	lap;
	struct het_error	err;
	struct het_nuts_config	cfg;
	struct het_nuts		*s;
	gsl_rng			*rng = gsl_rng_alloc(gsl_rng_mt19937);
	double			 bad[GD * GD], lap_steps, unit_steps, m0;

	het_laplace_fit(gauss_logp, NULL, GD, g_mu, 0, &lap, &err);
	lap_steps = nuts_steps(lap.cov, &m0, &err);
	/* a whitened 4-D Gaussian: 5.6 steps per transition at this seed
	   (trees of depth 2-3; the bound 15 is depth 4 throughout); the
	   mean of y0 within 5 MCSE (ESS taken as 1000 of 2000 draws) */
	ok(lap_steps < 15, "NUTS on the Laplace metric: %.1f leapfrog steps "
	    "per transition", lap_steps);
	ok(fabs(m0 - g_mu[0]) < 5 * g_sd[0] / sqrt(1000), "... mean of the "
	    "1e-4-wide coordinate within 5 MCSE (%.3g)",
	    (m0 - g_mu[0]) / g_sd[0]);
	unit_steps = nuts_steps(NULL, &m0, &err);
	/* from the identity, 150 warmup iterations leave the metric shrunk
	   towards 1e-3 I: the 1e-4 coordinate forces small steps (732 steps
	   per transition at this seed, 130 times the Laplace chain's) */
	ok(unit_steps > 4 * lap_steps, "from the identity: %.1f steps per "
	    "transition, more than 4x", unit_steps);
	het_laplace_clear(&lap);

	het_nuts_config_default(&cfg);
	cfg.dense_metric = 1;
	s = het_nuts_alloc(GD, &cfg, gauss_logp, NULL, rng, &err);
	memset(bad, 0, sizeof bad);
	bad[0] = bad[5] = bad[10] = 1;
	bad[15] = -1;
	is_int(het_nuts_set_metric(s, bad, &err), HET_EINVAL, "a dense metric "
	    "that is not positive definite: HET_EINVAL");
	bad[15] = NAN;
	is_int(het_nuts_set_metric(s, bad, &err), HET_EINVAL, "a value that "
	    "is not finite: HET_EINVAL");
	is_int(het_nuts_set_metric(s, NULL, &err), HET_OK, "NULL returns to "
	    "the identity");
	het_nuts_free(s);
	cfg.dense_metric = 0;
	s = het_nuts_alloc(GD, &cfg, gauss_logp, NULL, rng, &err);
	bad[0] = 1;
	bad[1] = bad[2] = 1;
	bad[3] = 0;
	is_int(het_nuts_set_metric(s, bad, &err), HET_EINVAL, "a diagonal "
	    "metric with a variance of 0: HET_EINVAL");
	like(err.msg, "must be > 0", "... %s", err.msg);
	het_nuts_free(s);
	gsl_rng_free(rng);
}

int
main(void)
{
	plan_lazy();
	test_gaussian();
	test_lgamma();
	test_degenerate();
	test_khat();
	test_psis();
	test_nuts_metric();
	done_testing();
	return exit_status();
}
