/*
 * t_core_consensus.c: combination of shard draws (het_consensus) against
 * the analytic product of Gaussians, simple averaging, the robust
 * outlier rule, the convergence gates with their messages, and the
 * skewness warning against the exact product of gamma shards.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "het_config_bridge.h"
#include "het_consensus.h"
#include "tap.h"

#define P	3
#define K	4
#define ND	20000

/* n draws of N(mu, S) (P x P, row-major) into x (n x P). */
static void
draw_gauss(gsl_rng *r, const double *mu, const double *S, size_t p,
    size_t n, double *x)
{
	gsl_matrix	*L = gsl_matrix_alloc(p, p);
	double		 z[8];
	size_t		 d, a, b;

	for (a = 0; a < p; a++)
		for (b = 0; b < p; b++)
			gsl_matrix_set(L, a, b, S[a * p + b]);
	gsl_linalg_cholesky_decomp1(L);
	for (d = 0; d < n; d++) {
		for (a = 0; a < p; a++)
			z[a] = gsl_ran_gaussian(r, 1.0);
		for (a = 0; a < p; a++) {
			double	v = mu[a];

			for (b = 0; b <= a; b++)
				v += gsl_matrix_get(L, a, b) * z[b];
			x[d * p + a] = v;
		}
	}
	gsl_matrix_free(L);
}

/* inv = S^-1 (P x P). */
static void
inverse(const double *S, double *inv)
{
	gsl_matrix	*L = gsl_matrix_alloc(P, P);
	size_t		 a, b;

	for (a = 0; a < P; a++)
		for (b = 0; b < P; b++)
			gsl_matrix_set(L, a, b, S[a * P + b]);
	gsl_linalg_cholesky_decomp1(L);
	gsl_linalg_cholesky_invert(L);
	for (a = 0; a < P; a++)
		for (b = 0; b < P; b++)
			inv[a * P + b] = gsl_matrix_get(L, a, b);
	gsl_matrix_free(L);
}

static const double mus[K][P] = {
	{ 1.0, -2.0, 0.5 }, { 1.2, -1.8, 0.4 },
	{ 0.9, -2.1, 0.6 }, { 1.1, -2.2, 0.45 }
};
static const double sds[K][P] = {
	{ 0.10, 0.30, 0.05 }, { 0.20, 0.25, 0.04 },
	{ 0.15, 0.20, 0.06 }, { 0.12, 0.35, 0.05 }
};
static const double rho[K] = { 0.5, -0.3, 0.2, 0.7 };

static void
shard_cov(size_t s, double *S)
{
	size_t	a, b;

	for (a = 0; a < P; a++)
		for (b = 0; b < P; b++)
			S[a * P + b] = sds[s][a] * sds[s][b] *
			    (a == b ? 1.0 : rho[s]);
}

static void
test_consensus(gsl_rng *r)
{
	double			*x[K], S[P * P], Wi[P * P], lam[P * P];
	double			 lcov[P * P], wmu[P], mu[P];
	size_t			 nd[K], s, a, b;
	struct het_consensus	 c;
	struct het_error	 err;
	int			 rc, mok = 1, cok = 1;

	memset(lam, 0, sizeof lam);
	memset(wmu, 0, sizeof wmu);
	for (s = 0; s < K; s++) {
		x[s] = malloc(ND * P * sizeof *x[s]);
		nd[s] = ND;
		shard_cov(s, S);
		draw_gauss(r, mus[s], S, P, ND, x[s]);
		inverse(S, Wi);
		for (a = 0; a < P * P; a++)
			lam[a] += Wi[a];
		for (a = 0; a < P; a++)
			for (b = 0; b < P; b++)
				wmu[a] += Wi[a * P + b] * mus[s][b];
	}
	inverse(lam, lcov);
	for (a = 0; a < P; a++) {
		mu[a] = 0.0;
		for (b = 0; b < P; b++)
			mu[a] += lcov[a * P + b] * wmu[b];
	}
	rc = het_consensus_combine(HET_COMBINE_CONSENSUS,
	    (const double *const *)x, nd, K, P, &c, &err);
	ok(rc == HET_OK, "consensus_mc of 4 Gaussian shards");
	if (rc != HET_OK) {
		diag("%s", err.msg);
		return;
	}
	is_int((long long)c.ndraw, ND, "20000 combined draws");
	is_int((long long)c.nused, K, "all 4 shards used");
	is_int((long long)c.nregular, 0, "no covariance needed a ridge");
	for (a = 0; a < P; a++) {
		double	tol = 5.0 * sqrt(lcov[a * P + a] / ND);

		diag("param %zu: mean %.6f analytic %.6f (tol %.2g), sd %.6f "
		    "analytic %.6f", a, c.mean[a], mu[a], tol, c.sd[a],
		    sqrt(lcov[a * P + a]));
		if (fabs(c.mean[a] - mu[a]) > tol)
			mok = 0;
		for (b = 0; b < P; b++)
			if (fabs(c.cov[a * P + b] - lcov[a * P + b]) > 0.05 *
			    sqrt(lcov[a * P + a] * lcov[b * P + b]))
				cok = 0;
	}
	ok(mok, "combined mean = (sum W)^-1 sum W mu within 5 MC errors");
	ok(cok, "combined covariance = (sum Sigma_s^-1)^-1 within 5 %% of "
	    "the sds");
	is_double(c.mean[0], c.gauss_mean[0], 1e-10,
	    "draw mean equals the Gaussian-product mean (linear map)");
	is_rel(c.gauss_cov[4], lcov[4], 0.05, "gauss_cov[1][1] %.4g vs %.4g",
	    c.gauss_cov[4], lcov[4]);
	het_consensus_clear(&c);

	rc = het_consensus_combine(HET_COMBINE_AVERAGE,
	    (const double *const *)x, nd, K, P, &c, &err);
	ok(rc == HET_OK, "simple_average");
	if (rc == HET_OK) {
		double	am = 0.0, sv = 0.0, mean0 = 0.0;
		size_t	d;

		for (s = 0; s < K; s++) {
			am += mus[s][0] / K;
			sv += sds[s][0] * sds[s][0] / (K * K);
		}
		for (d = 0; d < ND; d++)
			mean0 += (x[0][d * P] + x[1][d * P] + x[2][d * P] +
			    x[3][d * P]) / 4.0 / ND;
		is_double(c.mean[0], mean0, 1e-12,
		    "average: mean is the mean of the aligned draws");
		is_double(c.mean[0], am, 5.0 * sqrt(sv / ND),
		    "average: mean %.5f = mean of the shard means %.5f",
		    c.mean[0], am);
		is_rel(c.cov[0], sv, 0.05, "average: variance %.4g = "
		    "sum sd^2 / K^2 = %.4g", c.cov[0], sv);
		is_rel(c.gauss_cov[0], sv, 0.05, "average: gauss_cov");
	}
	het_consensus_clear(&c);
	for (s = 0; s < K; s++)
		free(x[s]);
}

/*
 * Clean shards: 8 shards of 30 independent parameters whose shard
 * means scatter with the shard sd (as the posteriors of disjoint data
 * do), 20 repetitions.  The MAD z rule alone flags some shard in almost
 * every repetition; with the guard on the shard's own sd none is lost.
 */
#define CP	30
#define CK	8
#define CN	1000
static void
test_robust_clean(gsl_rng *r)
{
	double			*x[CK], mu[CP], col[CK], med, mad, d[CK];
	size_t			 nd[CK], s, m, i, rep, lost = 0, madflag = 0;
	struct het_consensus	 c;
	struct het_error	 err;
	int			 rc = HET_OK, flag;

	for (s = 0; s < CK; s++) {
		x[s] = malloc(CN * CP * sizeof *x[s]);
		nd[s] = CN;
	}
	for (rep = 0; rep < 20 && rc == HET_OK; rep++) {
		for (s = 0; s < CK; s++) {
			for (m = 0; m < CP; m++)
				mu[m] = gsl_ran_gaussian(r, 0.1);
			for (i = 0; i < CN; i++)
				for (m = 0; m < CP; m++)
					x[s][i * CP + m] = mu[m] +
					    gsl_ran_gaussian(r, 0.1);
		}
		rc = het_consensus_combine(HET_COMBINE_ROBUST,
		    (const double *const *)x, nd, CK, CP, &c, &err);
		if (rc != HET_OK)
			break;
		lost += CK - c.nused;
		/* What the z rule alone (on the draw means) would flag. */
		for (m = 0, flag = 0; m < CP; m++) {
			for (s = 0; s < CK; s++) {
				col[s] = 0.0;
				for (i = 0; i < CN; i++)
					col[s] += x[s][i * CP + m] / CN;
				d[s] = col[s];
			}
			gsl_sort(d, 1, CK);
			med = 0.5 * (d[CK / 2 - 1] + d[CK / 2]);
			for (s = 0; s < CK; s++)
				d[s] = fabs(col[s] - med);
			gsl_sort(d, 1, CK);
			mad = 0.5 * (d[CK / 2 - 1] + d[CK / 2]);
			for (s = 0; s < CK; s++)
				if (0.6745 * fabs(col[s] - med) / mad >= 3.5)
					flag = 1;
		}
		madflag += (size_t)flag;
		het_consensus_clear(&c);
	}
	ok(rc == HET_OK, "robust: 20 runs of 8 clean shards x 30 parameters");
	ok(madflag >= 15, "the z rule alone would drop shards in %zu of 20 "
	    "runs", madflag);
	/* The guard's family-wise rate is 1 % per run: 0.2 expected. */
	ok(lost <= 1, "with the guard at most one clean shard of 160 is "
	    "lost (%zu)", lost);
	for (s = 0; s < CK; s++)
		free(x[s]);
}

static void
test_robust(gsl_rng *r)
{
	double			*x[6], mu[2], S[4] = { 0.01, 0, 0, 0.01 };
	size_t			 nd[6], s, n = 4000;
	struct het_consensus	 c;
	struct het_error	 err;
	int			 rc, others = 1;

	for (s = 0; s < 6; s++) {
		x[s] = malloc(n * 2 * sizeof *x[s]);
		nd[s] = n;
		mu[0] = s == 4 ? 5.0 : 0.02 * (double)s;
		mu[1] = 1.0 + 0.01 * (double)s;
		draw_gauss(r, mu, S, 2, n, x[s]);
	}
	rc = het_consensus_combine(HET_COMBINE_ROBUST,
	    (const double *const *)x, nd, 6, 2, &c, &err);
	ok(rc == HET_OK, "robust_consensus_mc of 6 shards, one planted at 5");
	ok(rc == HET_OK && c.outlier[4] && !c.used[4],
	    "robust: shard 4 flagged and dropped");
	for (s = 0; rc == HET_OK && s < 6; s++)
		if (s != 4 && (c.outlier[s] || !c.used[s]))
			others = 0;
	ok(others, "robust: the 5 good shards are kept");
	is_int(rc == HET_OK ? (long long)c.nused : -1, 5, "5 shards used");
	ok(rc == HET_OK && fabs(c.mean[0] - 0.04) < 0.02,
	    "robust: mean %.4f near the good shards' 0.04",
	    rc == HET_OK ? c.mean[0] : NAN);
	like(rc == HET_OK ? c.note : "", "Shard 4 was dropped as an outlier",
	    "robust: note says so");
	het_consensus_clear(&c);
	rc = het_consensus_combine(HET_COMBINE_CONSENSUS,
	    (const double *const *)x, nd, 6, 2, &c, &err);
	ok(rc == HET_OK && c.nused == 6 && c.mean[0] > 0.7,
	    "consensus_mc keeps the outlier: mean %.3f pulled towards 5",
	    rc == HET_OK ? c.mean[0] : NAN);
	het_consensus_clear(&c);
	/* Three shards, one outlier: only 2 inliers would remain. */
	rc = het_consensus_combine(HET_COMBINE_ROBUST,
	    (const double *const *)(x + 2), nd, 3, 2, &c, &err);
	ok(rc == HET_OK && c.nused == 3 && !c.outlier[2],
	    "robust, 3 shards with one outlier: all kept");
	like(rc == HET_OK ? c.note : "", "would leave 2 of 3 shards (fewer "
	    "than 3); all are kept", "note: %s", rc == HET_OK ? c.note : "");
	het_consensus_clear(&c);
	rc = het_consensus_combine(HET_COMBINE_ROBUST,
	    (const double *const *)x, nd, 2, 2, &c, &err);
	like(rc == HET_OK ? c.note : "", "only 2 usable shards, too few for "
	    "the outlier test (needs 3); both are kept.",
	    "robust, 2 shards: no test");
	het_consensus_clear(&c);
	rc = het_consensus_combine(HET_COMBINE_ROBUST,
	    (const double *const *)x, nd, 1, 2, &c, &err);
	ok(rc == HET_OK && c.note[0] == '\0',
	    "robust, a single shard: nothing to say");
	het_consensus_clear(&c);
	x[1][7] = NAN;
	rc = het_consensus_combine(HET_COMBINE_ROBUST,
	    (const double *const *)x, nd, 2, 2, &c, &err);
	like(rc == HET_OK ? c.note : "", "not finite. robust_consensus_mc: "
	    "only 1 usable shard, too few for the outlier test (needs 3); "
	    "it is kept.", "robust, 2 shards, one dropped: one left");
	het_consensus_clear(&c);
	/* Non-finite draw: dropped by every method. */
	rc = het_consensus_combine(HET_COMBINE_AVERAGE,
	    (const double *const *)x, nd, 2, 2, &c, &err);
	ok(rc == HET_OK && c.nused == 1 && !c.used[1],
	    "a shard with a NaN draw is dropped");
	like(rc == HET_OK ? c.note : "", "Shard 1 was dropped: draw 3 of "
	    "parameter 1 is not finite", "note names draw and parameter");
	het_consensus_clear(&c);
	rc = het_consensus_combine(HET_COMBINE_AVERAGE,
	    (const double *const *)(x + 1), nd, 1, 2, &c, &err);
	is_int(rc, HET_EDATA, "only non-finite shards: HET_EDATA");
	like(err.msg, "every one of the 1 shards has non-finite draws",
	    "message: %s", err.msg);
	/* A constant parameter makes a singular covariance: ridge. */
	for (s = 0; s < n; s++)
		x[0][s * 2 + 1] = 1.0;
	rc = het_consensus_combine(HET_COMBINE_CONSENSUS,
	    (const double *const *)x, nd, 1, 2, &c, &err);
	ok(rc == HET_OK && c.nregular == 1, "singular covariance regularised "
	    "(nregular %zu)", rc == HET_OK ? c.nregular : 0);
	ok(rc == HET_OK && fabs(c.mean[1] - 1.0) < 1e-9, "constant parameter "
	    "stays at 1");
	het_consensus_clear(&c);
	/* Error paths. */
	is_int(het_consensus_combine(HET_COMBINE_CONSENSUS,
	    (const double *const *)x, nd, 0, 2, &c, &err), HET_EINVAL,
	    "K = 0: HET_EINVAL");
	like(err.msg, "nothing to combine: 0 shards", "message: %s", err.msg);
	is_int(het_consensus_combine(7, (const double *const *)x, nd, 2, 2,
	    &c, &err), HET_EINVAL, "unknown method: HET_EINVAL");
	like(err.msg, "unknown combination method 7", "message");
	nd[0] = 1;
	is_int(het_consensus_combine(HET_COMBINE_CONSENSUS,
	    (const double *const *)x, nd, 2, 2, &c, &err), HET_EDATA,
	    "1 draw: HET_EDATA");
	like(err.msg, "shard 0 has 1 draws; combining needs at least 2",
	    "message: %s", err.msg);
	is_int(het_consensus_combine(HET_COMBINE_CONSENSUS, NULL, nd, 2, 2,
	    &c, &err), HET_EINVAL, "NULL draws: HET_EINVAL");
	for (s = 0; s < 6; s++)
		free(x[s]);
	is_str(het_consensus_method_name(HET_COMBINE_ROBUST),
	    "robust_consensus_mc", "method name");
	is_str(het_consensus_method_name(-1), "?", "bad method name");
}

static void
test_flatten(void)
{
	struct het_shard_result	 res;
	double			 dr[12], *f;
	struct het_error	 err;
	size_t			 i;

	memset(&res, 0, sizeof res);
	res.p = 2;
	res.nchain = 2;
	res.ndraw = 3;
	for (i = 0; i < 12; i++)
		dr[i] = (double)i;	/* chain c, param m, draw d */
	res.draws = dr;
	f = het_consensus_flatten(&res, &err);
	/* row (c * 3 + d), col m = (c * 2 + m) * 3 + d */
	ok(f != NULL && f[0] == 0 && f[1] == 3 && f[2] == 1 && f[4 * 2] ==
	    7 && f[4 * 2 + 1] == 10, "flatten: chain-major to draw rows");
	free(f);
	res.ndraw = 0;
	ok(het_consensus_flatten(&res, &err) == NULL && err.code ==
	    HET_EINVAL, "flatten: empty result refused");
}

static void
test_gates(void)
{
	struct het_cons_gates		g = { 1.1, 400, 0.3, 0.10 };
	struct het_cons_gate_report	rep;
	struct het_cons_diag		d[3];
	struct het_error		err;
	const char			*names[2] = { "D0", "alpha" };
	double	rh0[2] = { 1.01, 1.02 }, es0[2] = { 900, 1200 };
	double	bf0[2] = { 0.8, 0.9 };
	double	rh1[2] = { 1.05, 1.2 }, es1[2] = { 100, 1000 };
	double	bf1[2] = { NAN, 0.7 };
	double	rh2[2] = { NAN, 1.0 }, es2[2] = { 500, 500 };
	struct het_config_cmc		cmc;

	memset(d, 0, sizeof d);
	d[0] = (struct het_cons_diag){ 2, rh0, es0, 2, bf0, 10, 2000 };
	d[1] = (struct het_cons_diag){ 2, rh1, es1, 2, bf1, 300, 2000 };
	d[2] = (struct het_cons_diag){ 2, rh2, es2, 2, bf0, 200, 2000 };
	ok(het_consensus_gates(&g, d, 1, names, &rep, &err) == HET_OK &&
	    rep.pass && rep.nfailed == 0 && rep.msg[0] == '\0',
	    "gates: a good shard passes with no message");
	is_double(rep.shard[0].max_rhat, 1.02, 0, "max R-hat 1.02");
	is_double(rep.shard[0].min_ess, 900, 0, "min ESS 900");
	is_double(rep.shard[0].div_rate, 0.005, 1e-15, "divergence rate");
	het_cons_gate_report_clear(&rep);
	ok(het_consensus_gates(&g, d, 3, names, &rep, &err) == HET_OK &&
	    !rep.pass && rep.nfailed == 2, "gates: shards 1 and 2 fail");
	diag("%s", rep.msg);
	ok(rep.shard[0].pass && !rep.shard[1].pass && !rep.shard[2].pass,
	    "per-shard verdicts");
	like(rep.msg, "Shard 1: R-hat of alpha is 1.2, not below max_r_hat "
	    "1.1", "R-hat sentence");
	like(rep.msg, "Shard 1: bulk ESS of D0 is 100, not above min_ess 400",
	    "ESS sentence");
	like(rep.msg, "Shard 1: the lowest E-BFMI is nan, not above min_bfmi "
	    "0.3", "NaN BFMI fails with a sentence");
	like(rep.msg, "Shard 1: 300 of 2000 draws diverged (rate 0.15), "
	    "above max_divergence_rate 0.1", "divergence sentence");
	like(rep.msg, "Shard 2: R-hat of D0 is nan", "NaN R-hat fails");
	ok(rep.shard[2].ess_ok && rep.shard[2].div_ok && rep.shard[2].bfmi_ok,
	    "shard 2 passes the other gates (rate 0.1 is allowed)");
	ok(strstr(rep.msg, "Shard 0") == NULL, "no sentence for shard 0");
	het_cons_gate_report_clear(&rep);
	d[0].nchain = 0;
	ok(het_consensus_gates(&g, d, 1, NULL, &rep, &err) == HET_OK &&
	    !rep.shard[0].bfmi_ok, "no chains: BFMI unknown, gate fails");
	het_cons_gate_report_clear(&rep);
	d[0].rhat = NULL;
	is_int(het_consensus_gates(&g, d, 1, NULL, &rep, &err), HET_EINVAL,
	    "missing diagnostics: HET_EINVAL");
	like(err.msg, "shard 0 has no diagnostics", "message");
	is_int(het_consensus_gates(&g, d, 0, NULL, &rep, &err), HET_EINVAL,
	    "no shards: HET_EINVAL");
	memset(&cmc, 0, sizeof cmc);
	cmc.max_r_hat = 1.2;
	cmc.min_ess = 100;
	cmc.min_bfmi = 0.2;
	cmc.max_divergence_rate = 0.05;
	het_cons_gates_from_cmc(&cmc, &g);
	ok(g.max_r_hat == 1.2 && g.min_ess == 100 && g.min_bfmi == 0.2 &&
	    g.max_divergence_rate == 0.05, "gates from optimization.cmc");
}

/*
 * k shards of nd draws: parameter 0 from Gamma(a, 1), parameter 1 from
 * N(0, 1), combined by consensus_mc, then het_consensus_skew_note.
 */
static int
skew_run(gsl_rng *r, size_t k, size_t nd, double a, const char *const *names,
    struct het_consensus *c)
{
	double			*x[20];
	size_t			 n[20], s, d;
	struct het_error	 err;
	int			 rc;

	for (s = 0; s < k; s++) {
		x[s] = malloc(nd * 2 * sizeof(double));
		n[s] = nd;
		for (d = 0; d < nd; d++) {
			x[s][2 * d] = gsl_ran_gamma(r, a, 1.0);
			x[s][2 * d + 1] = gsl_ran_gaussian(r, 1.0);
		}
	}
	rc = het_consensus_combine(HET_COMBINE_CONSENSUS,
	    (const double *const *)x, n, k, 2, c, &err);
	if (rc == HET_OK)
		rc = het_consensus_skew_note(c, names, &err);
	for (s = 0; s < k; s++)
		free(x[s]);
	return rc;
}

static void
test_skew(gsl_rng *r)
{
	struct het_consensus	 c;
	const char		*names[2] = { "D0", "alpha" };
	double			 exact_mean, exact_sd, bias;

	/*
	 * 20 shards of Gamma(4, 1) (skewness 1): the product of their
	 * densities is Gamma(20 * 3 + 1, 20), mean 3.05, sd sqrt(61) / 20;
	 * the consensus puts the mean near 4, about 2.4 sd off.
	 */
	ok(skew_run(r, 20, 20000, 4.0, names, &c) == HET_OK,
	    "skew: 20 gamma shards combined");
	is_double(c.skew[0], 1.0, 0.05, "mean shard skewness of Gamma(4) 1");
	ok(fabs(c.skew[1]) < 0.05, "Gaussian parameter: skewness near 0");
	is_double(c.skew_bias[0], 1.0 * sqrt(20.0) / 2.0, 0.12,
	    "bias estimate |skew| sqrt(K) / 2");
	exact_mean = 61.0 / 20.0;
	exact_sd = sqrt(61.0) / 20.0;
	bias = (c.mean[0] - exact_mean) / exact_sd;
	diag("actual bias %.3f sd, estimate %.3f sd", bias, c.skew_bias[0]);
	is_double(bias, 19.0 / sqrt(61.0), 0.1,
	    "the consensus mean is (1 - 1/K) / b off the product's");
	ok(fabs(c.skew_bias[0] / bias - 1.0) < 0.2,
	    "the estimate is within 20 %% of the actual bias");
	ok(c.skew_bias[1] < 0.2, "no bias estimated for the Gaussian one");
	diag("%s", c.note);
	like(c.note, "The shard posteriors of D0 (mean skewness 1.0",
	    "note names the skewed parameter");
	like(c.note, "sd off if all "
	    "shards are skewed alike) are skewed, and the consensus assumes "
	    "Gaussian shard posteriors: its combined mean and sd may be off. "
	    "Use at most 4 shards (optimization.cmc.num_shards: 4), or "
	    "fix that parameter.", "note gives the bias and the remedy: "
	    "K 0.5 / bias shards");
	ok(strstr(c.note, "alpha") == NULL, "the Gaussian one is not named");
	het_consensus_clear(&c);

	/* Gamma(0.5): skewness 2.83 over 4 shards wants a single shard. */
	ok(skew_run(r, 4, 20000, 0.5, NULL, &c) == HET_OK &&
	    c.skew_bias[0] > 2.0, "4 strongly skewed shards");
	like(c.note, "The shard posteriors of parameter 0 (mean skewness 2.",
	    "unnamed parameter");
	like(c.note, "Use at most 1 shard (optimization.cmc.num_shards: 1), "
	    "one NUTS run on all the data, or fix that parameter.",
	    "remedy: one shard");
	het_consensus_clear(&c);

	/* Near-Gaussian shards (Gamma(10^4)): no sentence. */
	ok(skew_run(r, 20, 20000, 1e4, names, &c) == HET_OK &&
	    c.note[0] == '\0' && c.skew_bias[0] < HET_CONS_SKEW_BIAS_MAX,
	    "Gaussian-like shards: no note");
	het_consensus_clear(&c);

	/* One shard: nothing to combine, no bias. */
	ok(skew_run(r, 1, 20000, 0.5, names, &c) == HET_OK &&
	    c.skew_bias[0] == 0.0 && c.note[0] == '\0',
	    "a single shard: no bias, no note");
	het_consensus_clear(&c);
}

int
main(void)
{
	gsl_rng	*r = gsl_rng_alloc(gsl_rng_mt19937);

	plan_lazy();
	gsl_rng_set(r, 20160101UL);
	test_consensus(r);
	test_robust(r);
	test_robust_clean(r);
	test_flatten();
	test_gates();
	test_skew(r);
	gsl_rng_free(r);
	done_testing();
	return exit_status();
}
