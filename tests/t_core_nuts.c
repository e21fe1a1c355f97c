/*
 * t_core_nuts.c: the NUTS sampler (het_nuts) and the bounded-parameter
 * transforms (het_transform).
 *
 * Statistical tests draw from targets with known moments and check them
 * against the Monte Carlo error the sampler's own ESS implies (5 MCSE),
 * so they fail when the sampler is biased, not by chance (the seeds are
 * fixed, so every run is identical).  Targets: a correlated 10-D
 * Gaussian (adjacent correlations up to 0.9, scales 0.08 to 11), Beta /
 * Gamma / reflected Gamma through the logit and log transforms, and
 * Neal's funnel centred (must diverge) and non-centred (must not).
 *
 * Margins (they must hold on any x86-64 CPU: libm chooses code paths at
 * run time, and a draw that differs in its last bit sends a chain
 * elsewhere, so every statistic below changes between machines).  Each
 * was measured over 80 to 160 seeds; "sd" is that seed-to-seed spread:
 *   - means and variances within 5 MCSE (largest |z| seen 4.1 of 3200);
 *     R-hat < 1.01 with 1000 draws per chain (mean 1.001, sd 0.001,
 *     largest 1.0065 in 1500: 8 sd);
 *   - accept stat in the terminal window 0.827 (sd 0.003) against
 *     0.80; sampling accept 0.911 (sd 0.008) in (0.80, 0.95): 5 sd;
 *     with a terminal window of 400, 0.867 (sd 0.005) within 0.05 of
 *     0.85: 6 sd; the step size at target 0.65 is 1.35 (sd 0.04) times
 *     that at 0.85, asserted above 1.15: 5 sd;
 *   - adapted variances / true variances 1.00 (sd 0.08 diagonal, 0.09
 *     dense) inside (0.5, 2): 5 sd below; the dense metric's (0, 1)
 *     correlation 0.901 (sd 0.012) within 0.06 of 0.9: 5 sd; its mean
 *     tree depth 2.91 (sd 0.02) against the diagonal's 3.79 (sd 0.03),
 *     asserted 0.5 shorter: 10 sd; E-BFMI 1.05 (sd 0.06) against 0.3;
 *   - divergences: none while sampling the Gaussians and the
 *     non-centred funnel (none in 160 seeds: their energy errors never
 *     approach 1000); the centred funnel, 4 chains of 2000 at target
 *     0.6, gave 10 to 390 (log-mean 4.5, log-sd 0.8: no divergence at
 *     all would be 6 log-sd below).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>

#include "het_diag.h"
#include "het_nuts.h"
#include "het_transform.h"
#include "tap.h"

#define GD	10	/* Gaussian dimension */

static const double g_mu[GD] = { 1.234, -3.71, 0.5, 12.3, -0.07, 2.9,
    -8.4, 0.33, 5.55, -1.1 };
static const double g_sd[GD] = { 0.37, 1.9, 5.3, 0.08, 2.2, 0.9, 11.0,
    0.45, 3.3, 1.4 };
/* correlation of y[i-1] and y[i] (i >= 1): a non-stationary AR(1) */
static const double g_r[GD] = { 0, 0.9, -0.6, 0.75, 0.3, -0.9, 0.5, 0.85,
    -0.2, 0.65 };

static int
gauss_logp(void *ctx, const double *q, double *lp, double *grad)
{
	double	x[GD], e[GD], s, gx, sum = 0;
	int	i;

	(void)ctx;
	for (i = 0; i < GD; i++)
		x[i] = (q[i] - g_mu[i]) / g_sd[i];
	for (i = 0; i < GD; i++) {
		s = i == 0 ? 1 : sqrt(1 - g_r[i] * g_r[i]);
		e[i] = (x[i] - (i == 0 ? 0 : g_r[i] * x[i - 1])) / s;
		sum += e[i] * e[i];
	}
	for (i = 0; i < GD; i++) {
		s = i == 0 ? 1 : sqrt(1 - g_r[i] * g_r[i]);
		gx = -e[i] / s;
		if (i + 1 < GD)
			gx += e[i + 1] * g_r[i + 1] /
			    sqrt(1 - g_r[i + 1] * g_r[i + 1]);
		grad[i] = gx / g_sd[i];
	}
	*lp = -0.5 * sum;
	return 0;
}

/* ---- a run of several chains ------------------------------------- */

struct run {
	size_t	 dim, nch, ns;
	double	*draws;		/* [k][c][i] */
	double	*energy;	/* [c][i] */
	long	 div_warm, div_samp;
	double	 accept;	/* mean over chains of the sampling mean */
	double	 accept_term;	/* same over the last 50 warmup iterations */
	int	 maxdepth;
	long	 maxleap;
	double	 minv[GD];	/* of chain 0 (first min(dim, GD)) */
	double	 eps;		/* mean over chains of the final step size */
	double	 depth;		/* mean tree depth while sampling */
	double	 cov01;		/* dense: adapted covariance (0, 1), chain 0 */
};

static double *
draw_ptr(struct run *r, size_t k, size_t c)
{
	return r->draws + (k * r->nch + c) * r->ns;
}

static int
run_chains(struct run *r, size_t dim, het_nuts_logp_fn fn, void *ctx,
    const struct het_nuts_config *cfg, size_t nch, unsigned long seed,
    double init_spread)
{
	struct het_nuts_stats st;
	struct het_nuts	*s;
	struct het_error err;
	gsl_rng		*rng;
	double		 q0[64];
	const double	*q;
	size_t		 c, k, i;

	memset(r, 0, sizeof *r);
	r->dim = dim;
	r->nch = nch;
	r->ns = (size_t)cfg->num_samples;
	r->draws = calloc(dim * nch * r->ns, sizeof *r->draws);
	r->energy = calloc(nch * r->ns, sizeof *r->energy);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	for (c = 0; c < nch; c++) {
		gsl_rng_set(rng, seed + 1000 * c);
		for (k = 0; k < dim; k++)
			q0[k] = init_spread * (2 * gsl_rng_uniform(rng) - 1);
		s = het_nuts_alloc(dim, cfg, fn, ctx, rng, &err);
		if (s == NULL || het_nuts_init(s, q0, &err) != HET_OK) {
			diag("chain %zu: %s", c, err.msg);
			het_nuts_free(s);
			gsl_rng_free(rng);
			return -1;
		}
		i = 0;
		while (het_nuts_test(s) == HET_CONTINUE) {
			if (het_nuts_iterate(s, &err) != HET_OK) {
				diag("chain %zu: %s", c, err.msg);
				het_nuts_free(s);
				gsl_rng_free(rng);
				return -1;
			}
			het_nuts_get_stats(s, &st);
			if (st.tree_depth > r->maxdepth)
				r->maxdepth = st.tree_depth;
			if (st.n_leapfrog > r->maxleap)
				r->maxleap = st.n_leapfrog;
			if (st.phase == HET_NUTS_WARMUP) {
				if (st.iteration > cfg->num_warmup - 50)
					r->accept_term += st.accept_stat /
					    (50.0 * (double)nch);
				continue;
			}
			r->depth += st.tree_depth / (double)(nch * r->ns);
			q = het_nuts_position(s);
			for (k = 0; k < dim; k++)
				draw_ptr(r, k, c)[i] = q[k];
			r->energy[c * r->ns + i] = st.energy;
			i++;
		}
		het_nuts_get_stats(s, &st);
		r->div_warm += st.divergences_warmup;
		r->div_samp += st.divergences;
		r->accept += st.accept_mean / (double)nch;
		r->eps += het_nuts_step_size(s) / (double)nch;
		for (k = 0; c == 0 && k < dim && k < GD; k++)
			r->minv[k] = het_nuts_inv_metric(s)[cfg->dense_metric ?
			    k * dim + k : k];
		if (c == 0 && cfg->dense_metric)
			r->cov01 = het_nuts_inv_metric(s)[1];
		het_nuts_free(s);
	}
	gsl_rng_free(rng);
	return 0;
}

static void
run_free(struct run *r)
{
	free(r->draws);
	free(r->energy);
}

/*
 * Check mean and variance of parameter k (after y = f(draw), f NULL for
 * identity) against the truth within 5 MCSE, and R-hat < rhat_max.
 */
static void
check_moments(struct run *r, size_t k, double (*f)(double), double mean,
    double var, double rhat_max, const char *name)
{
	struct het_diag_summary s, s2;
	const double *p[16];
	double	*sq, *y, ess2 = 0, v;
	size_t	 c, i, n = r->nch * r->ns;

	y = calloc(n, sizeof *y);
	sq = calloc(n, sizeof *sq);
	for (c = 0; c < r->nch; c++)
		for (i = 0; i < r->ns; i++) {
			v = draw_ptr(r, k, c)[i];
			y[c * r->ns + i] = f != NULL ? f(v) : v;
			sq[c * r->ns + i] = (y[c * r->ns + i] - mean) *
			    (y[c * r->ns + i] - mean);
		}
	for (c = 0; c < r->nch; c++)
		p[c] = y + c * r->ns;
	het_diag_summarise(p, r->nch, r->ns, &s, NULL);
	for (c = 0; c < r->nch; c++)
		p[c] = sq + c * r->ns;
	het_diag_summarise(p, r->nch, r->ns, &s2, NULL);
	het_diag_ess_basic(p, r->nch, r->ns, &ess2, NULL);
	ok(fabs(s.mean - mean) < 5 * s.mcse_mean, "%s: mean %.5g vs %.5g "
	    "(MCSE %.3g, ESS %.0f)", name, s.mean, mean, s.mcse_mean,
	    s.ess_bulk);
	ok(fabs(s2.mean - var) < 5 * s2.sd / sqrt(ess2), "%s: variance %.5g "
	    "vs %.5g (MCSE %.3g, ESS %.0f)", name, s2.mean, var,
	    s2.sd / sqrt(ess2), ess2);
	ok(s.rhat < rhat_max, "%s: R-hat %.4f < %.2f", name, s.rhat,
	    rhat_max);
	free(y);
	free(sq);
}

/* ---- tests --------------------------------------------------------- */

static void
test_gaussian(void)
{
	struct het_nuts_config cfg;
	struct run r;
	char	 name[64];
	double	 b, m0 = 0, m1 = 0, c01 = 0, v0 = 0, v1 = 0, a, bb, eps, acc;
	size_t	 k, c, i, n;
	int	 okm = 1, okb = 1;

	het_nuts_config_default(&cfg);
	ok(run_chains(&r, GD, gauss_logp, NULL, &cfg, 4, 42, 2) == 0,
	    "gaussian: 4 chains of 1000 + 1000 run");
	for (k = 0; k < GD; k++) {
		snprintf(name, sizeof name, "gaussian y%zu", k);
		check_moments(&r, k, NULL, g_mu[k], g_sd[k] * g_sd[k], 1.01,
		    name);
	}
	n = r.nch * r.ns;
	for (c = 0; c < r.nch; c++)
		for (i = 0; i < r.ns; i++) {
			m0 += draw_ptr(&r, 0, c)[i] / (double)n;
			m1 += draw_ptr(&r, 1, c)[i] / (double)n;
		}
	for (c = 0; c < r.nch; c++)
		for (i = 0; i < r.ns; i++) {
			a = draw_ptr(&r, 0, c)[i] - m0;
			bb = draw_ptr(&r, 1, c)[i] - m1;
			c01 += a * bb;
			v0 += a * a;
			v1 += bb * bb;
		}
	ok(fabs(c01 / sqrt(v0 * v1) - 0.9) < 0.03,
	    "gaussian: corr(y0, y1) = %.4f ~ 0.9", c01 / sqrt(v0 * v1));
	is_int(r.div_samp, 0, "gaussian: no divergences while sampling "
	    "(%ld in warmup, after window restarts)", r.div_warm);
	ok(fabs(r.accept_term - 0.85) < 0.05, "gaussian: accept stat %.4f "
	    "in the terminal window within 0.05 of the target 0.85",
	    r.accept_term);
	/*
	 * exp(x_bar) after a 50-iteration terminal window is conservative,
	 * as in Stan: sampling accepts a little above the target.
	 */
	ok(r.accept > 0.8 && r.accept < 0.95, "gaussian: sampling accept "
	    "stat %.4f in (0.80, 0.95)", r.accept);
	for (k = 0; k < GD; k++) {
		a = r.minv[k] / (g_sd[k] * g_sd[k]);
		if (!(a > 0.5 && a < 2)) {
			diag("inverse metric %zu: %g vs variance %g", k,
			    r.minv[k], g_sd[k] * g_sd[k]);
			okm = 0;
		}
	}
	ok(okm, "gaussian: adapted inverse metric ~ marginal variances");
	for (c = 0; c < r.nch; c++) {
		het_diag_bfmi(r.energy + c * r.ns, r.ns, &b, NULL);
		if (!(b > 0.3))
			okb = 0;
	}
	ok(okb, "gaussian: E-BFMI > 0.3 in every chain");
	ok(r.maxdepth <= 10 && r.maxdepth >= 2, "gaussian: tree depth %d",
	    r.maxdepth);
	run_free(&r);

	/*
	 * With a long terminal window dual averaging settles near the
	 * target; a lower target gives a larger step and lower acceptance.
	 */
	cfg.num_warmup = 1000;
	cfg.term_buffer = 400;
	cfg.num_samples = 500;
	run_chains(&r, GD, gauss_logp, NULL, &cfg, 4, 77, 2);
	ok(fabs(r.accept - 0.85) < 0.05, "gaussian, terminal window 400: "
	    "sampling accept stat %.4f within 0.05 of 0.85", r.accept);
	eps = r.eps;
	acc = r.accept;
	run_free(&r);
	cfg.target_accept = 0.65;
	run_chains(&r, GD, gauss_logp, NULL, &cfg, 4, 78, 2);
	ok(fabs(r.accept_term - 0.65) < 0.05, "gaussian, target 0.65: accept "
	    "stat %.4f at the end of warmup", r.accept_term);
	/* ratio 1.35, seed-to-seed sd 0.04: 1.15 is 5 sd below */
	ok(r.eps > 1.15 * eps && r.accept < acc - 0.05, "target 0.65: larger "
	    "step (%.4f vs %.4f), lower sampling accept (%.4f vs %.4f)",
	    r.eps, eps, r.accept, acc);
	run_free(&r);
}

static void
test_dense(void)
{
	struct het_nuts_config cfg;
	struct run r, rd;
	char	 name[64];
	double	 a, rho, want = 0.9 * g_sd[0] * g_sd[1];
	size_t	 k;
	int	 okm = 1;

	het_nuts_config_default(&cfg);
	/* 1000 draws per chain: with 500, R-hat < 1.01 was only 3 sd */
	cfg.num_warmup = 1000;
	cfg.num_samples = 1000;
	run_chains(&rd, GD, gauss_logp, NULL, &cfg, 4, 321, 2);
	cfg.dense_metric = 1;
	ok(run_chains(&r, GD, gauss_logp, NULL, &cfg, 4, 321, 2) == 0,
	    "dense metric: 4 chains run");
	for (k = 0; k < GD; k++) {
		snprintf(name, sizeof name, "dense y%zu", k);
		check_moments(&r, k, NULL, g_mu[k], g_sd[k] * g_sd[k], 1.01,
		    name);
		/* ratio 1.00, sd 0.09 between seeds: 0.5 is 5 sd below */
		a = r.minv[k] / (g_sd[k] * g_sd[k]);
		if (!(a > 0.5 && a < 2)) {
			diag("dense metric %zu: %g vs variance %g", k,
			    r.minv[k], g_sd[k] * g_sd[k]);
			okm = 0;
		}
	}
	ok(okm, "dense: adapted variances within a factor 2 of the truth");
	/*
	 * The correlation, not the covariance: the covariance carries the
	 * noise of both variances (sd 10 % between seeds), the correlation
	 * 0.901 has sd 0.012, so 0.06 is 5 sd.
	 */
	rho = r.cov01 / sqrt(r.minv[0] * r.minv[1]);
	ok(fabs(rho - 0.9) < 0.06, "dense: adapted correlation (0, 1) %.4f "
	    "~ 0.9 (covariance %.4f ~ %.4f)", rho, r.cov01, want);
	is_int(r.div_samp, 0, "dense: no divergences while sampling");
	ok(r.depth < rd.depth - 0.5, "dense: shorter trajectories than "
	    "diagonal on a correlated target (mean depth %.2f vs %.2f)",
	    r.depth, rd.depth);
	ok(fabs(r.accept_term - 0.85) < 0.05, "dense: accept stat %.4f at "
	    "the end of warmup", r.accept_term);
	run_free(&r);
	run_free(&rd);
}

/* Beta(2.5, 4.2) on [0, 1]; Gamma(3.3, 0.7); 2 - Gamma(1.8, 1.5). */
static const struct het_bound bnd[3] = {
	{ HET_BOUND_BOTH, 0, 1 },
	{ HET_BOUND_LOWER, 0, 0 },
	{ HET_BOUND_UPPER, 0, 2 }
};

static int
bounded_logp(void *ctx, const double *u, double *lp, double *grad)
{
	double	x[3], gx[3], lj;

	(void)ctx;
	het_transform_forward(bnd, 3, u, x, &lj, NULL, NULL);
	if (!(x[0] > 0 && x[0] < 1 && x[1] > 0 && x[2] < 2))
		return -1;	/* saturated in floating point */
	*lp = 1.5 * log(x[0]) + 3.2 * log1p(-x[0]) +
	    2.3 * log(x[1]) - x[1] / 0.7 +
	    0.8 * log(2 - x[2]) - (2 - x[2]) / 1.5 + lj;
	gx[0] = 1.5 / x[0] - 3.2 / (1 - x[0]);
	gx[1] = 2.3 / x[1] - 1 / 0.7;
	gx[2] = -0.8 / (2 - x[2]) + 1 / 1.5;
	het_transform_grad(bnd, 3, u, gx, grad);
	return 0;
}

static double
to_beta(double u)
{
	return 1 / (1 + exp(-u));
}

static double
to_gamma(double u)
{
	return exp(u);
}

static double
to_upper(double u)
{
	return 2 - exp(u);
}

static void
test_bounded(void)
{
	struct het_nuts_config cfg;
	struct run r;
	const double a = 2.5, b = 4.2;

	het_nuts_config_default(&cfg);
	ok(run_chains(&r, 3, bounded_logp, NULL, &cfg, 4, 99, 1) == 0,
	    "bounded: 4 chains run");
	check_moments(&r, 0, to_beta, a / (a + b),
	    a * b / ((a + b) * (a + b) * (a + b + 1)), 1.01,
	    "Beta(2.5, 4.2) via logit");
	check_moments(&r, 1, to_gamma, 3.3 * 0.7, 3.3 * 0.49, 1.01,
	    "Gamma(3.3, 0.7) via log");
	check_moments(&r, 2, to_upper, 2 - 1.8 * 1.5, 1.8 * 2.25, 1.01,
	    "2 - Gamma(1.8, 1.5) via log(hi - x)");
	is_int(r.div_samp, 0, "bounded: no divergences while sampling");
	run_free(&r);
}

#define FD	10	/* funnel: v and 9 x */

static int
funnel_centred(void *ctx, const double *q, double *lp, double *grad)
{
	double	v = q[0], ev = exp(-q[0]), s = 0;
	int	i;

	(void)ctx;
	for (i = 1; i < FD; i++) {
		s += q[i] * q[i];
		grad[i] = -q[i] * ev;
	}
	*lp = -v * v / 18 - 0.5 * s * ev - 0.5 * (FD - 1) * v;
	grad[0] = -v / 9 + 0.5 * s * ev - 0.5 * (FD - 1);
	return 0;
}

static int
funnel_noncentred(void *ctx, const double *q, double *lp, double *grad)
{
	double	s = 0;
	int	i;

	(void)ctx;
	for (i = 0; i < FD; i++) {
		s += q[i] * q[i];
		grad[i] = -q[i];
	}
	*lp = -0.5 * s;
	return 0;
}

static double
to_v(double z)
{
	return 3 * z;
}

static void
test_funnel(void)
{
	struct het_nuts_config cfg;
	struct run r;

	/*
	 * 4 chains of 2000 at target 0.6, so that the neck is hit while
	 * sampling on any CPU: 2 chains of 1000 at 0.85 had none in 15 %
	 * of seeds; these had at least 10 in 100 seeds (see the header).
	 */
	het_nuts_config_default(&cfg);
	cfg.target_accept = 0.6;
	cfg.num_samples = 2000;
	ok(run_chains(&r, FD, funnel_centred, NULL, &cfg, 4, 5, 1) == 0,
	    "centred funnel: 4 chains run");
	ok(r.div_samp > 0, "centred funnel: divergences are reported while "
	    "sampling (%ld; %ld in warmup)", r.div_samp, r.div_warm);
	run_free(&r);

	het_nuts_config_default(&cfg);
	ok(run_chains(&r, FD, funnel_noncentred, NULL, &cfg, 4, 6, 2) == 0,
	    "non-centred funnel: 4 chains run");
	is_int(r.div_samp, 0, "non-centred funnel: no divergences while "
	    "sampling (%ld in warmup)", r.div_warm);
	check_moments(&r, 0, to_v, 0, 9, 1.01, "non-centred funnel v = 3 z0");
	run_free(&r);
}

static void
test_reproducible(void)
{
	struct het_nuts_config cfg;
	struct run a, b, c;

	het_nuts_config_default(&cfg);
	cfg.num_warmup = 150;
	cfg.num_samples = 100;
	run_chains(&a, GD, gauss_logp, NULL, &cfg, 1, 11, 1);
	run_chains(&b, GD, gauss_logp, NULL, &cfg, 1, 11, 1);
	run_chains(&c, GD, gauss_logp, NULL, &cfg, 1, 12, 1);
	ok(memcmp(a.draws, b.draws, GD * 100 * sizeof *a.draws) == 0 &&
	    memcmp(a.energy, b.energy, 100 * sizeof *a.energy) == 0,
	    "same seed: bit-identical draws and energies");
	ok(memcmp(a.draws, c.draws, GD * 100 * sizeof *a.draws) != 0,
	    "different seed: different draws");
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/* Standard normal with a wall at q > 1.5 where the callback fails. */
static int
wall_logp(void *ctx, const double *q, double *lp, double *grad)
{
	int	*calls = ctx;

	(*calls)++;
	if (q[0] > 1.5)
		return -1;
	*lp = -0.5 * q[0] * q[0];
	grad[0] = -q[0];
	return 0;
}

static int
flat_logp(void *ctx, const double *q, double *lp, double *grad)
{
	(void)ctx;
	(void)q;
	*lp = 0;
	grad[0] = 0;
	return 0;
}

/* Succeeds on the first call only. */
static int
once_logp(void *ctx, const double *q, double *lp, double *grad)
{
	int	*calls = ctx;

	if ((*calls)++ > 0)
		return -1;
	*lp = -0.5 * q[0] * q[0];
	grad[0] = -q[0];
	return 0;
}

/*
 * N(0, 1) while *ctx is 0, then N(0, 1e160^2), whose variance overflows
 * a double once dual averaging has grown the step size to that scale.
 */
static int
huge_logp(void *ctx, const double *q, double *lp, double *grad)
{
	double	sc = *(int *)ctx ? 1e160 : 1, x = q[0] / sc;

	*lp = -0.5 * x * x;
	grad[0] = -x / sc;
	return 0;
}

static void
test_api_errors(gsl_rng *rng)
{
	struct het_nuts_config cfg;
	struct het_nuts	*s;
	struct het_error err;
	double		 q0 = 0.5;
	int		 calls = 0, rc = HET_OK;

	het_nuts_config_default(&cfg);
	cfg.num_warmup = -1;
	ok(het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "negative num_warmup is refused");
	like(err.msg, "num_warmup (-1) and num_samples (1000) must not be "
	    "negative", "message");
	het_nuts_config_default(&cfg);
	cfg.step_size = 0;
	ok(het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "step size 0 is refused");
	like(err.msg, "step_size (0) must be positive", "message");
	het_nuts_config_default(&cfg);
	cfg.base_window = 0;
	ok(het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "base_window 0 is refused");
	like(err.msg, "base_window >= 1 (got 75, 50, 0)", "message");
	het_nuts_config_default(&cfg);
	cfg.dense_metric = 1;
	ok(het_nuts_alloc(5000, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "a dense metric of 5000 parameters is refused");
	like(err.msg, "dense NUTS metric for 5000 parameters is too large",
	    "message");
	ok(het_nuts_alloc(1, &cfg, NULL, NULL, rng, &err) == NULL,
	    "no callback is refused");
	like(err.msg, "(got dim 1, no callback)", "message");

	het_nuts_config_default(&cfg);
	s = het_nuts_alloc(1, &cfg, once_logp, &calls, rng, &err);
	is_int(het_nuts_init(s, &q0, &err), HET_ERANGE, "a target that fails "
	    "everywhere but the start: no step size");
	like(err.msg, "no acceptably small step size", "message");
	het_nuts_free(s);

	cfg.max_tree_depth = 1;
	cfg.init_buffer = 20000;
	cfg.num_warmup = 20100;
	calls = 0;
	s = het_nuts_alloc(1, &cfg, huge_logp, &calls, rng, &err);
	is_int(het_nuts_init(s, &q0, &err), HET_OK, "init on N(0, 1)");
	calls = 1;
	while (het_nuts_test(s) == HET_CONTINUE &&
	    (rc = het_nuts_iterate(s, &err)) == HET_OK)
		;
	is_int(rc, HET_EDATA, "an overflowing variance stops the warmup");
	like(err.msg, "metric adapted at warmup iteration 20025 is not finite "
	    "or not positive definite", "message says where");
	het_nuts_free(s);
}

static void
test_api(void)
{
	struct het_nuts_config cfg;
	struct het_nuts_stats st;
	struct het_nuts	*s;
	struct het_error err;
	struct run	 r;
	gsl_rng		*rng;
	double		 q0 = 0, bad = 2, mx = -1;
	size_t		 i;
	int		 calls = 0;

	rng = gsl_rng_alloc(gsl_rng_mt19937);
	het_nuts_config_default(&cfg);
	ok(het_nuts_alloc(0, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "dim 0 is refused");
	like(err.msg, "at least one parameter", "dim 0 message");
	cfg.target_accept = 1.2;
	ok(het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err) == NULL &&
	    err.code == HET_EINVAL, "target_accept 1.2 is refused");
	like(err.msg, "target_accept_prob 1.2 is outside (0, 1)", "message");
	het_nuts_config_default(&cfg);
	cfg.max_tree_depth = 0;
	ok(het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "max_tree_depth 0 is refused");
	like(err.msg, "max_tree_depth 0 is outside 1..30", "message");
	het_nuts_config_default(&cfg);
	cfg.kappa = 0.4;
	ok(het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err) == NULL,
	    "kappa 0.4 is refused");
	like(err.msg, "kappa in (0.5, 1]", "message");

	het_nuts_config_default(&cfg);
	s = het_nuts_alloc(1, &cfg, flat_logp, NULL, rng, &err);
	is_int(het_nuts_test(s), HET_EINVAL, "test before init");
	is_int(het_nuts_iterate(s, &err), HET_EINVAL, "iterate before init");
	like(err.msg, "before het_nuts_init", "message says so");
	is_int(het_nuts_init(s, &q0, &err), HET_ERANGE, "flat target: init "
	    "fails");
	like(err.msg, "posterior looks improper", "and says why");
	het_nuts_free(s);

	cfg.num_warmup = 200;
	cfg.num_samples = 300;
	s = het_nuts_alloc(1, &cfg, wall_logp, &calls, rng, &err);
	is_int(het_nuts_init(s, &bad, &err), HET_EDATA, "init outside the "
	    "support fails");
	like(err.msg, "cannot be evaluated (or is not finite) at the initial "
	    "point", "message");
	is_int(het_nuts_init(s, &q0, &err), HET_OK, "init inside works");
	while (het_nuts_test(s) == HET_CONTINUE) {
		het_nuts_iterate(s, &err);
		if (het_nuts_position(s)[0] > mx)
			mx = het_nuts_position(s)[0];
	}
	het_nuts_get_stats(s, &st);
	ok(st.divergences + st.divergences_warmup > 0 && mx <= 1.5,
	    "callback errors act as divergences (%ld + %ld), draws stay "
	    "inside (max %.3f)", st.divergences_warmup, st.divergences, mx);
	is_int(st.phase, HET_NUTS_DONE, "phase is DONE at the end");
	is_int(st.iteration, 500, "500 transitions");
	is_int(het_nuts_test(s), HET_OK, "test says finished");
	is_int(het_nuts_iterate(s, &err), HET_EINVAL, "iterate after the end");
	like(err.msg, "after the last transition", "message");
	het_nuts_free(s);
	het_nuts_free(NULL);

	/* tree depth limit */
	het_nuts_config_default(&cfg);
	cfg.max_tree_depth = 2;
	cfg.num_warmup = 100;
	cfg.num_samples = 50;
	run_chains(&r, GD, gauss_logp, NULL, &cfg, 1, 3, 1);
	ok(r.maxdepth == 2 && r.maxleap <= 3, "max_tree_depth 2: depth %d, "
	    "at most %ld leapfrog steps", r.maxdepth, r.maxleap);
	ok(r.minv[3] < 0.1, "short warmup (100) still adapts the metric "
	    "(%.3g for variance 0.0064)", r.minv[3]);
	run_free(&r);
	cfg.max_tree_depth = 10;
	cfg.num_warmup = 15;
	run_chains(&r, GD, gauss_logp, NULL, &cfg, 1, 3, 1);
	for (i = 0; i < GD && r.minv[i] == 1; i++)
		;
	is_int(i, GD, "warmup under 20: the metric is not adapted");
	run_free(&r);
	test_api_errors(rng);
	gsl_rng_free(rng);
}

/* ---- transforms ---------------------------------------------------- */

static double
tf_target(const double *x)
{
	return -0.5 * (x[0] - 0.3) * (x[0] - 0.3) + 2 * x[1] - x[2] * x[2] +
	    sin(x[3]) + x[4];
}

static void
tf_target_grad(const double *x, double *g)
{
	g[0] = -(x[0] - 0.3);
	g[1] = 2;
	g[2] = -2 * x[2];
	g[3] = cos(x[3]);
	g[4] = 1;
}

static void
test_transform(void)
{
	static const struct het_bound b[5] = {
		{ HET_BOUND_BOTH, -1.5, 4.0 },
		{ HET_BOUND_LOWER, 2.0, 0 },
		{ HET_BOUND_UPPER, 0, -3.0 },
		{ HET_BOUND_NONE, 0, 0 },
		{ HET_BOUND_BOTH, 1e-3, 2e-3 }
	};
	static const char *const names[5] = { "D0", "alpha", "beta", "phi0",
	    "tiny" };
	const double u[5] = { 0.731, -1.27, 0.44, 2.9, -3.1 };
	struct het_bound bb[1];
	struct het_error err;
	double	x[5], u2[5], dx[5], dl[5], lj, g[5], gu[5], up[5], xp[5],
		xm[5], ljp, ljm, h = 1e-6, maxerr = 0, maxg = 0, fd;
	int	i, rc;

	is_int(het_transform_check(b, 5, names, &err), HET_OK, "valid bounds");
	het_transform_forward(b, 5, u, x, &lj, dx, dl);
	is_double(x[0], -1.5 + 5.5 / (1 + exp(-0.731)), 1e-14, "logit map");
	is_double(x[1], 2 + exp(-1.27), 1e-14, "log map (lower)");
	is_double(x[2], -3 - exp(0.44), 1e-14, "log map (upper)");
	is_double(x[3], 2.9, 0, "identity");
	rc = het_transform_inverse(b, 5, x, u2, names, &err);
	for (i = 0; i < 5; i++)
		maxerr = fmax(maxerr, fabs(u2[i] - u[i]));
	ok(rc == HET_OK && maxerr < 1e-12, "inverse round trip (%.2g)",
	    maxerr);
	/* log J and its derivative against central differences */
	maxerr = 0;
	for (i = 0; i < 5; i++) {
		memcpy(up, u, sizeof up);
		up[i] = u[i] + h;
		het_transform_forward(b, 5, up, xp, &ljp, NULL, NULL);
		up[i] = u[i] - h;
		het_transform_forward(b, 5, up, xm, &ljm, NULL, NULL);
		fd = (xp[i] - xm[i]) / (2 * h);
		maxerr = fmax(maxerr, fabs(fd - dx[i]) / fabs(dx[i]));
		maxg = fmax(maxg, fabs((ljp - ljm) / (2 * h) - dl[i]));
	}
	ok(maxerr < 1e-7, "dx/du matches finite differences (%.2g)", maxerr);
	ok(maxg < 1e-7, "d log J / du matches finite differences (%.2g)",
	    maxg);
	fd = 0;
	for (i = 0; i < 5; i++)
		fd += log(fabs(dx[i]));
	is_double(lj, fd, 1e-12, "log J = sum log |dx/du|");
	/* chain rule of het_transform_grad */
	tf_target_grad(x, g);
	het_transform_grad(b, 5, u, g, gu);
	maxerr = 0;
	for (i = 0; i < 5; i++) {
		memcpy(up, u, sizeof up);
		up[i] = u[i] + h;
		het_transform_forward(b, 5, up, xp, &ljp, NULL, NULL);
		up[i] = u[i] - h;
		het_transform_forward(b, 5, up, xm, &ljm, NULL, NULL);
		fd = ((tf_target(xp) + ljp) - (tf_target(xm) + ljm)) / (2 * h);
		maxerr = fmax(maxerr, fabs(fd - gu[i]) / fmax(1, fabs(fd)));
	}
	ok(maxerr < 1e-6, "gradient of log p(x(u)) + log J matches finite "
	    "differences (%.2g)", maxerr);
	memcpy(g, gu, sizeof g);
	tf_target_grad(x, g);
	het_transform_grad(b, 5, u, g, g);
	ok(memcmp(g, gu, sizeof g) == 0, "het_transform_grad may work in "
	    "place");
	/* saturation: x at the bound, log J still finite and exact */
	up[0] = 800;
	up[1] = up[2] = up[3] = up[4] = 0;
	het_transform_forward(b, 1, up, xp, &ljp, NULL, NULL);
	ok(xp[0] == 4.0 && isfinite(ljp) && fabs(ljp - (log(5.5) - 800)) <
	    1e-9, "u = 800: x saturates at 4, log J = %.6f", ljp);
	up[0] = -800;
	het_transform_forward(b, 1, up, xp, &ljp, NULL, NULL);
	ok(xp[0] == -1.5 && fabs(ljp - (log(5.5) - 800)) < 1e-9,
	    "u = -800: x saturates at -1.5, log J exact");

	/* errors */
	x[1] = 2.0;
	is_int(het_transform_inverse(b, 5, x, u2, names, &err), HET_ERANGE,
	    "x on its lower bound is refused");
	like(err.msg, "parameter alpha = 2 is not strictly inside its bounds "
	    "(lower 2, upper inf)", "message names it and its bounds");
	x[1] = 3;
	x[3] = NAN;
	is_int(het_transform_inverse(b, 5, x, u2, NULL, &err), HET_ERANGE,
	    "NaN is refused");
	like(err.msg, "parameter #3 = nan", "unnamed parameters by index");
	bb[0].kind = HET_BOUND_BOTH;
	bb[0].lo = 2;
	bb[0].hi = 1;
	is_int(het_transform_check(bb, 1, names, &err), HET_EINVAL,
	    "lower > upper is refused");
	like(err.msg, "parameter D0 has bounds [2, 1] with lower >= upper",
	    "message");
	bb[0].kind = HET_BOUND_LOWER;
	bb[0].lo = -INFINITY;
	is_int(het_transform_check(bb, 1, NULL, &err), HET_EINVAL,
	    "infinite lower bound is refused");
	like(err.msg, "non-finite bound", "message");
	bb[0].kind = 17;
	is_int(het_transform_check(bb, 1, NULL, &err), HET_EINVAL,
	    "unknown kind is refused");
	like(err.msg, "unknown bound kind 17", "message");
}

int
main(void)
{
	plan_lazy();
	test_transform();
	test_api();
	test_reproducible();
	test_gaussian();
	test_dense();
	test_bounded();
	test_funnel();
	done_testing();
	return exit_status();
}
