/*
 * t_engine_fit_ident.c: identifiability in the numbers (issue 17): the
 * degenerate flag, the NaN uncertainty and covariance of degenerate
 * parameters, and the identifiable combination with its uncertainty,
 * on simulated heterodyne data (40 frames x 3 angles = 2,340 pairs,
 * Gaussian noise sd 0.002 with a fixed seed, sigma given to the fit).
 *
 * Checks:
 *   - static_ref with alpha_ref fixed at 0: J = D0_ref + D_offset_ref,
 *     so D0_ref and D_offset_ref are flagged degenerate, have NaN
 *     uncertainty, covariance and correlation; the combination
 *     "D0_ref + D_offset_ref" is reported, its value within 4 of its
 *     sigmas of the truth, and its sigma equal to the one from a
 *     finite-difference Hessian of the cost over the identifiable
 *     parameters (D_offset_ref held at its fitted value) within 10 %
 *     (measured: 0.01 %);
 *   - two_component with f0, f1, f2 free (the other physics fixed):
 *     f0 and f2 degenerate, f1 not; the combination f0*exp(-f1*f2)
 *     reported, its sigma against the finite-difference Hessian with
 *     f2 held (within 10 %; measured 0.08 %);
 *   - two_component with beta fixed at 0, v0, v_offset and phi0 free:
 *     v0 and v_offset degenerate, "v0 + v_offset" reported, its sigma
 *     against the finite-difference one within 10 % (measured 0.08 %);
 *   - weak directions whose one-sigma steps span a bound range
 *     (static_ref at alpha_ref = 0.313 with alpha_ref bounded to
 *     [0.30, 0.315]: steps of 1.9 and 3.3 ranges, threshold 1):
 *     alpha_ref degenerate, and a warning says so;
 *   - the core's rank analysis on a 3 x 3 matrix: a weak direction
 *     kept, its one-sigma step, dropped as a ridge (flags, NaN, the
 *     sigma of a + b, the leak of a alone), and the error paths of
 *     het_nlsq_quality_drop;
 *   - no false positive: static_ref at alpha_ref = 0.313 (all three
 *     free: D0_ref +- 3900, a weak but curved direction, one-sigma step
 *     0.04 of a range, whose probe rose 2200-5800 times its quadratic
 *     prediction, against the thresholds 1 and 0.1) and two_component
 *     with velocity, fraction (f2 fixed) and phi0 free get no
 *     degenerate flag, finite uncertainties and no combination.  (With
 *     all 13 free at this size the fit lands in a wrong basin with
 *     one-sigma steps beyond the bounds: flagged degenerate, rightly,
 *     so not used here.)
 */
#include "config.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit.h"
#include "het_fitjob.h"
#include "tap.h"

#define NF	40
#define NA	3
#define NPAIR	(NA * NF * (NF - 1) / 2)
#define NOISE	0.002

static const double phi3[NA] = { -33.1, 21.7, 77.9 };

static void __attribute__((noreturn, format(printf, 1, 2)))
bail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("Bail out! ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_resid_eval	*ev;
	struct het_pair		 pairs[NPAIR];
	double			 y[NPAIR], mod[NPAIR];
	double			 truth[64], x0[64];
	size_t			 n, p;
};

/* Simulate `mode` at theta with the free flags; start 5 % off. */
static struct prob *
prob_new(enum het_mode mode, const double *theta, const unsigned char *fr)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_error err;
	struct prob *P = calloc(1, sizeof(*P));
	double s[2 * NA];
	size_t a, i, j, k;
	gsl_rng *rng;

	memset(&ms, 0, sizeof(ms));
	ms.mode = mode;
	ms.q = 0.0102;
	ms.dt = 0.0123;
	ms.start_frame = 3;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi3;
	ms.gap = 2e6;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, NA, phi3);
	if ((P->m = het_model_alloc(&ms, &err)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, &err)) == NULL)
		bail("model: %s", err.msg);
	for (a = 0; a < NA; a++)
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, P->n++) {
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n].a = (uint32_t)a;
			}
	for (a = 0; a < NA; a++) {
		s[a] = 0.29 + 0.031 * (double)a;
		s[NA + a] = 1.0 + 0.009 * ((double)a - 1.0);
	}
	memset(&rs, 0, sizeof(rs));
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = theta;
	rs.free = fr;
	rs.s = s;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	if ((P->r = het_resid_alloc(&rs, &err)) == NULL ||
	    (P->ev = het_resid_eval_alloc(P->r, &err)) == NULL)
		bail("problem: %s", err.msg);
	P->p = het_resid_nparams(P->r);
	het_resid_x0(P->r, P->truth);
	het_resid_prepare(P->ev, P->truth, 0, &err);
	het_resid_eval_model(P->ev, 0, P->n, P->y);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 1717);
	for (k = 0; k < P->n; k++)
		P->y[k] += gsl_ran_gaussian(rng, NOISE);
	gsl_rng_free(rng);
	for (k = 0; k < P->p; k++)
		P->x0[k] = P->truth[k] * (1 + 0.05 * ((k % 2) ? -1 : 1));
	return P;
}

static void
prob_free(struct prob *P)
{
	het_resid_eval_free(P->ev);
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	free(P);
}

/* The cost 1/2 sum r^2 at x. */
static double
cost(struct prob *P, const double *x)
{
	struct het_error err;
	double F = 0, d;
	size_t k;

	het_resid_prepare(P->ev, x, 0, &err);
	het_resid_eval_model(P->ev, 0, P->n, P->mod);
	for (k = 0; k < P->n; k++) {
		d = P->y[k] - P->mod[k];
		F += 0.5 * d * d;
	}
	return F;
}

static int
col(const struct het_fit_result *res, const char *name)
{
	size_t k;

	for (k = 0; k < res->p; k++)
		if (strcmp(res->names[k], name) == 0)
			return (int)k;
	return -1;
}

/*
 * sigma of a combination with gradient g from the finite-difference
 * Hessian H of the cost over every fitted parameter except `held`:
 * sqrt(s2 g^T H^-1 g).  Central differences with steps of 0.3 of each
 * parameter's conditional sigma (found from a first, tiny-step diagonal).
 */
static double
fd_sigma(struct prob *P, const struct het_fit_result *res, int held,
    const double *g)
{
	size_t m = res->p - 1, i, j, a, b, *id = malloc(m * sizeof(size_t));
	double *x = malloc(res->p * sizeof(double)), *h = malloc(m *
	    sizeof(double)), F0, s2 = NOISE * NOISE, v, f[4], out = 0;
	gsl_matrix *H = gsl_matrix_alloc(m, m);
	gsl_vector *gv = gsl_vector_alloc(m), *u = gsl_vector_alloc(m);

	for (i = 0, j = 0; i < res->p; i++)
		if ((int)i != held)
			id[j++] = i;
	memcpy(x, res->x, res->p * sizeof(double));
	F0 = cost(P, x);
	for (i = 0; i < m; i++) {
		a = id[i];
		v = 1e-4 * fmax(fabs(res->x[a]), 1e-2);
		x[a] = res->x[a] + v;
		f[0] = cost(P, x);
		x[a] = res->x[a] - v;
		f[1] = cost(P, x);
		x[a] = res->x[a];
		h[i] = 0.3 * sqrt(s2 / ((f[0] + f[1] - 2 * F0) / (v * v)));
	}
	for (i = 0; i < m; i++)
		for (j = i; j < m; j++) {
			a = id[i];
			b = id[j];
			if (i == j) {
				x[a] = res->x[a] + h[i];
				f[0] = cost(P, x);
				x[a] = res->x[a] - h[i];
				f[1] = cost(P, x);
				x[a] = res->x[a];
				v = (f[0] + f[1] - 2 * F0) / (h[i] * h[i]);
			} else {
				x[a] = res->x[a] + h[i];
				x[b] = res->x[b] + h[j];
				f[0] = cost(P, x);
				x[b] = res->x[b] - h[j];
				f[1] = cost(P, x);
				x[a] = res->x[a] - h[i];
				f[3] = cost(P, x);
				x[b] = res->x[b] + h[j];
				f[2] = cost(P, x);
				x[a] = res->x[a];
				x[b] = res->x[b];
				v = (f[0] - f[1] - f[2] + f[3]) /
				    (4 * h[i] * h[j]);
			}
			gsl_matrix_set(H, i, j, v);
			gsl_matrix_set(H, j, i, v);
		}
	for (i = 0; i < m; i++)
		gsl_vector_set(gv, i, g[id[i]]);
	if (gsl_linalg_cholesky_decomp1(H) == 0 &&
	    gsl_linalg_cholesky_solve(H, gv, u) == 0) {
		gsl_blas_ddot(gv, u, &v);
		out = sqrt(s2 * v);
	}
	gsl_matrix_free(H);
	gsl_vector_free(gv);
	gsl_vector_free(u);
	free(id);
	free(x);
	free(h);
	return out;
}

static struct het_fit_result *
fit_b(struct prob *P, const char *name, const double *lo, const double *hi)
{
	struct het_fit_options o;
	struct het_fit_result *res = NULL;
	struct het_error err;
	int rc;

	het_fit_default_options(&o);
	o.nlsq.loss = HET_LOSS_LINEAR;
	o.nlsq.max_nfev = 2000;
	o.noise_sigma = NOISE;
	o.window_frames = -1;
	rc = het_fit_run(NULL, P->r, P->x0, lo, hi, &o, &res, &err);
	ok(rc == HET_OK && res != NULL, "%s: fit ran (%s)", name,
	    rc == HET_OK ? res->message : err.msg);
	if (res == NULL)
		bail("no result");
	diag("%s: chi2_red %.4f, %ld iterations", name, res->chi2_red,
	    res->iterations);
	return res;
}

static struct het_fit_result *
fit(struct prob *P, const char *name)
{
	return fit_b(P, name, NULL, NULL);
}

static const struct het_nlsq_combo *
combo(const struct het_fit_result *res, const char *prefix)
{
	size_t k;

	for (k = 0; k < res->ncombos; k++)
		if (strncmp(res->combos[k].expr, prefix, strlen(prefix)) == 0)
			return &res->combos[k];
	return NULL;
}

/* No degenerate flag, finite uncertainties, no combination. */
static void
well_determined(const char *name, enum het_mode mode, const double *th,
    const unsigned char *fr)
{
	struct prob *P = prob_new(mode, th, fr);
	struct het_fit_result *res = fit(P, name);
	size_t k, nd = 0, nf = 0;

	for (k = 0; k < res->p; k++) {
		nd += res->degen[k] != 0;
		nf += isfinite(res->unc[k]) && res->unc[k] > 0;
	}
	is_int((long long)nd, 0, "%s: no parameter flagged degenerate",
	    name);
	is_int((long long)nf, (long long)res->p, "%s: all %zu "
	    "uncertainties finite", name, res->p);
	is_int((long long)res->ncombos, 0, "%s: no combination reported",
	    name);
	is_int((long long)res->rank, (long long)res->p, "%s: full rank",
	    name);
	het_fit_result_free(res);
	prob_free(P);
}

static void
test_rate(void)
{
	double th[HET_P_HET_COUNT] = { 8713.0, 0.0, 381.0 };
	unsigned char fr[HET_P_HET_COUNT] = { 1, 0, 1 };
	struct prob *P = prob_new(HET_MODE_STATIC_REF, th, fr);
	struct het_fit_result *res = fit(P, "D0/D_offset at alpha 0");
	const struct het_nlsq_combo *c;
	int d = col(res, "D0_ref"), o = col(res, "D_offset_ref"), k;
	double g[64], sfd;

	ok(d >= 0 && o >= 0 && res->degen[d] && res->degen[o],
	    "D0_ref and D_offset_ref flagged degenerate");
	ok(isnan(res->unc[d]) && isnan(res->unc[o]), "their uncertainties "
	    "are NaN (no finite number)");
	ok(isnan(res->cov[d * res->p + o]) && isnan(res->corr[d * res->p +
	    o]) && isnan(res->cov[d * res->p + res->p - 1]), "their "
	    "covariance and correlation entries are NaN");
	ok(isfinite(res->unc[res->p - 1]) && !res->degen[res->p - 1],
	    "a scaling parameter keeps its uncertainty");
	is_str(het_fitjob_flag(res, (size_t)d), "degenerate", "the flags "
	    "column says degenerate");
	c = combo(res, "D0_ref + D_offset_ref");
	ok(c != NULL, "the combination D0_ref + D_offset_ref is reported");
	if (c == NULL)
		goto out;
	diag("%s = %.6g +- %.4g (truth %.6g)", c->expr, c->value, c->unc,
	    th[0] + th[2]);
	ok(fabs(c->value - (th[0] + th[2])) < 4 * c->unc, "its value is "
	    "within 4 sigma of the truth");
	memset(g, 0, sizeof(g));
	g[d] = g[o] = 1.0;
	sfd = fd_sigma(P, res, o, g);
	diag("sigma: report %.5g, finite differences %.5g", c->unc, sfd);
	ok(sfd > 0 && fabs(c->unc / sfd - 1) < 0.10, "its sigma %.4g equals "
	    "the finite-difference one %.4g within 10 %%", c->unc, sfd);
	for (k = 0; k < (int)res->nwarnings; k++)
		if (strstr(res->warnings[k], "D0_ref + D_offset_ref") != NULL)
			break;
	ok(k < (int)res->nwarnings, "a warning states the combination");
out:
	het_fit_result_free(res);
	prob_free(P);
}

static void
test_fraction(void)
{
	static const double th[HET_P_HET_COUNT] = {
		12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.219,
		12.7, 0.413, 0.519, 0.317, 0.1093, 3.31
	};
	unsigned char fr[HET_P_HET_COUNT] = { 0 };
	struct prob *P;
	struct het_fit_result *res;
	const struct het_nlsq_combo *c;
	int c0, c1, c2;
	double g[64], e, sfd;

	fr[9] = fr[10] = fr[11] = 1;
	P = prob_new(HET_MODE_TWO_COMPONENT, th, fr);
	res = fit(P, "f0/f2");
	c0 = col(res, "f0");
	c1 = col(res, "f1");
	c2 = col(res, "f2");
	ok(c0 >= 0 && c2 >= 0 && res->degen[c0] && res->degen[c2] &&
	    isnan(res->unc[c0]) && isnan(res->unc[c2]), "f0 and f2 "
	    "degenerate, uncertainties NaN");
	ok(c1 >= 0 && !res->degen[c1] && isfinite(res->unc[c1]), "f1 is "
	    "not degenerate (%.3g)", c1 >= 0 ? res->unc[c1] : NAN);
	c = combo(res, "f0*exp(-f1*f2)");
	ok(c != NULL, "the combination f0*exp(-f1*f2) is reported");
	if (c != NULL) {
		e = exp(-res->x[c1] * res->x[c2]);
		memset(g, 0, sizeof(g));
		g[c0] = e;
		g[c1] = -res->x[c2] * res->x[c0] * e;
		sfd = fd_sigma(P, res, c2, g);
		diag("%s = %.6g +- %.4g (truth %.6g); finite differences "
		    "%.4g", c->expr, c->value, c->unc, th[9] *
		    exp(-th[10] * th[11]), sfd);
		ok(fabs(c->value - th[9] * exp(-th[10] * th[11])) < 4 *
		    c->unc, "its value is within 4 sigma of the truth");
		ok(sfd > 0 && fabs(c->unc / sfd - 1) < 0.10, "its sigma "
		    "%.4g equals the finite-difference one %.4g within 10 %%",
		    c->unc, sfd);
	}
	het_fit_result_free(res);
	prob_free(P);
}

/* two_component with beta fixed at 0: v = v0 + v_offset at every time,
   so the velocity's prefactor and offset are degenerate. */
static void
test_velocity(void)
{
	static const double th[HET_P_HET_COUNT] = {
		12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.0,
		12.7, 0.413, 0.519, 0.317, 0.1093, 3.31
	};
	unsigned char fr[HET_P_HET_COUNT] = { 0 };
	struct prob *P;
	struct het_fit_result *res;
	const struct het_nlsq_combo *c;
	int cv, co;
	double g[64], sfd;

	fr[6] = fr[8] = fr[13] = 1;
	P = prob_new(HET_MODE_TWO_COMPONENT, th, fr);
	res = fit(P, "v0/v_offset at beta 0");
	cv = col(res, "v0");
	co = col(res, "v_offset");
	ok(cv >= 0 && co >= 0 && res->degen[cv] && res->degen[co] &&
	    isnan(res->unc[cv]) && isnan(res->unc[co]), "v0 and v_offset "
	    "degenerate, uncertainties NaN");
	ok(!res->degen[col(res, "phi0")], "phi0 is not degenerate");
	c = combo(res, "v0 + v_offset");
	ok(c != NULL && strcmp(c->expr, "v0 + v_offset") == 0, "the "
	    "combination v0 + v_offset is reported (%s)", c != NULL ?
	    c->expr : "none");
	if (c != NULL) {
		memset(g, 0, sizeof(g));
		g[cv] = g[co] = 1.0;
		sfd = fd_sigma(P, res, co, g);
		diag("%s = %.6g +- %.4g (truth %.6g); finite differences %.4g",
		    c->expr, c->value, c->unc, th[6] + th[8], sfd);
		ok(fabs(c->value - (th[6] + th[8])) < 4 * c->unc, "its value "
		    "is within 4 sigma of the truth");
		ok(sfd > 0 && fabs(c->unc / sfd - 1) < 0.10, "its sigma %.4g "
		    "equals the finite-difference one %.4g within 10 %%",
		    c->unc, sfd);
	}
	het_fit_result_free(res);
	prob_free(P);
}

/*
 * Weak directions whose one-sigma steps span a bound range: static_ref
 * at alpha_ref = 0.313 (alpha_ref +- 0.16 with the table bounds) with
 * alpha_ref bounded to [0.30, 0.315] (measured steps 1.9 and 3.3 of
 * the range).  alpha_ref is flagged degenerate and the warning says why.
 */
static void
test_loose(void)
{
	static const double th[HET_P_HET_COUNT] = { 12385.0, 0.313, 151.7 };
	unsigned char fr[HET_P_HET_COUNT] = { 1, 1, 1 };
	struct prob *P = prob_new(HET_MODE_STATIC_REF, th, fr);
	struct het_fit_result *res;
	double lo[64], hi[64];
	size_t k;
	int d, found = 0;

	het_resid_bounds(P->r, lo, hi);
	lo[1] = 0.30;
	hi[1] = 0.315;
	P->x0[1] = 0.31;
	res = fit_b(P, "alpha_ref bounded to [0.30, 0.315]", lo, hi);
	d = col(res, "alpha_ref");
	ok(d >= 0 && res->degen[d] && isnan(res->unc[d]), "alpha_ref: its "
	    "one-sigma range exceeds its bounds, flagged degenerate");
	for (k = 0; k < res->nwarnings; k++)
		found |= strstr(res->warnings[k], "whole bound range") != NULL;
	ok(found, "a warning says the direction spans a whole bound range");
	het_fit_result_free(res);
	prob_free(P);
}

/* The core's rank analysis on a 3 x 3 normal matrix whose first two
   columns are nearly collinear (correlation 1 - 1e-9). */
static void
test_core(void)
{
	static const char *const nm[3] = { "a", "b", "c" };
	double c = 1 - 1e-9, jtj[9] = { 1, c, 0, c, 1, 0, 0, 0, 4 };
	double lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 }, x[3] = { 0 };
	double d[3], g[3], sd, leak, st;
	struct het_nlsq_quality q;
	struct het_error err;
	size_t k;
	int rc, found = 0;

	rc = het_nlsq_quality(3, jtj, 1e-12, x, lo, hi, nm, &q, &err);
	ok(rc == HET_OK && q.rank == 3 && !q.degen[0] && !q.degen[1],
	    "core: a weak but non-null direction is kept (rank %zu)", q.rank);
	ok(q.lam[0] / q.lmax > 1e-10 && q.lam[0] / q.lmax < 1e-9, "core: its "
	    "eigenvalue ratio is 2e-10/4 (%.3g)", q.lam[0] / q.lmax);
	st = het_nlsq_quality_step(&q, 0, lo, hi, d);
	is_rel(st, sqrt(1e-12 / q.lam[0]) / sqrt(2) / 2, 1e-3, "core: the "
	    "one-sigma step of the weak direction over the bound range");
	rc = het_nlsq_quality_drop(&q, 0, HET_NLSQ_DIR_RIDGE, 1e6, x, lo, hi,
	    nm, &err);
	ok(rc == HET_OK && q.rank == 2 && q.degen[0] && q.degen[1] &&
	    !q.degen[2], "core: dropped as a ridge, a and b degenerate, c "
	    "not");
	ok(isnan(q.unc[0]) && isnan(q.unc[1]) && isnan(q.cov[1]) &&
	    isnan(q.corr[2]), "core: NaN uncertainty, covariance and "
	    "correlation for a and b");
	is_double(q.unc[2], 0.5e-6, 1e-12, "core: c keeps its sigma "
	    "sqrt(1e-12 / 4)");
	for (k = 0; k < q.nwarnings; k++)
		found |= strstr(q.warnings[k], "a and b are not separately "
		    "identifiable") != NULL && strstr(q.warnings[k],
		    "ridge") != NULL;
	ok(found, "core: a warning names a and b and the ridge");
	g[0] = g[1] = 1;
	g[2] = 0;
	het_nlsq_quality_combo(&q, g, &sd, &leak);
	is_rel(sd, 1e-6, 1e-6, "core: a + b has sigma sqrt(s2 * 2 / 2)");
	ok(leak < 1e-6 * sd * sd, "core: and the dropped direction leaves "
	    "it determined (leak %.3g)", leak);
	g[1] = 0;
	het_nlsq_quality_combo(&q, g, &sd, &leak);
	ok(leak > sd * sd, "core: a alone is not determined");
	rc = het_nlsq_quality_drop(&q, 0, HET_NLSQ_DIR_LOOSE, 1, x, lo, hi,
	    nm, &err);
	ok(rc == HET_EINVAL && strstr(err.msg, "cannot be dropped"), "core: "
	    "dropping a dropped direction: HET_EINVAL (%s)", err.msg);
	rc = het_nlsq_quality_drop(&q, 3, HET_NLSQ_DIR_RIDGE, 1, x, lo, hi,
	    nm, &err);
	ok(rc == HET_EINVAL, "core: a direction out of range: HET_EINVAL");
	rc = het_nlsq_quality_drop(&q, 1, HET_NLSQ_DIR_NULL, 1, x, lo, hi,
	    nm, &err);
	ok(rc == HET_EINVAL, "core: dropping as 'null': HET_EINVAL");
	het_nlsq_quality_fini(&q);
}

int
main(void)
{
	static const double th[HET_P_HET_COUNT] = {
		12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.219,
		12.7, 0.413, 0.519, 0.317, 0.1093, 3.31
	};
	unsigned char fr3[HET_P_HET_COUNT] = { 1, 1, 1 }, frt[HET_P_HET_COUNT];
	size_t k;

	plan_lazy();
	test_core();
	test_rate();
	test_fraction();
	test_velocity();
	test_loose();
	well_determined("static_ref, alpha 0.313", HET_MODE_STATIC_REF, th,
	    fr3);
	/* velocity, fraction (f2 fixed) and phi0 free */
	for (k = 0; k < HET_P_HET_COUNT; k++)
		frt[k] = k == 6 || k == 7 || k == 9 || k == 10 || k == 12 ||
		    k == 13;
	well_determined("two_component, flow and fraction (f2 fixed)",
	    HET_MODE_TWO_COMPONENT, th, frt);
	return exit_status();
}
