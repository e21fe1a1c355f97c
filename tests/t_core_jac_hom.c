/*
 * t_core_jac_hom.c: analytic derivatives of the homodyne kernels against
 * finite differences, and the behaviour at every floor.
 *
 * Checks:
 *   - random high-entropy cases of both modes (N, angles, q, dt, all
 *     parameters), every upper-triangle pair including the t = 0 row:
 *     dg/dtheta against Richardson-extrapolated central differences,
 *     agreement |an - fd| <= 1e-6 max(|an|, |fd|) + the difference's own
 *     rounding noise (30 eps |g| / h);
 *   - phi0 - phi = 90 degrees (no shear phase): shear derivatives vanish,
 *     diffusion derivatives still agree;
 *   - the sinc Taylor region (|Phi| < 1e-4 for every pair), with a step
 *     large enough to resolve the tiny shear signal, and continuity of
 *     the derivative across the switch at |Phi| = 1e-4;
 *   - the t = 0 point: ts_0 = dt/2 (hand-computed value of g(0, 1)) and
 *     finite, correct derivatives for alpha < 0;
 *   - floors: D and gamma_dot floored everywhere, and g1 floored (decay
 *     beyond the -700 clip), give zero derivatives;
 *   - a subset of free parameters yields exactly the matching columns.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_model.h"
#include "tap.h"

#define NMAX	32
#define AMAX	4
#define PI	3.14159265358979323846

struct hcase {
	enum het_mode	mode;
	double		q, dt, gap;
	size_t		n, na;
	double		phi[AMAX];
	double		theta[HOM_P_COUNT];
};

struct fdstat {
	size_t	compared;	/* entries compared */
	size_t	resolved;	/* entries with 1e-6 |an| above the noise */
	size_t	failed;
	size_t	skipped;	/* floors touched */
	double	worst;		/* largest relative difference among
				   resolved entries */
};

static uint64_t rng_state = 0x2385a1f3c0de1234ULL;

static double
urand(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static double
uni(double lo, double hi)
{
	return lo + (hi - lo) * urand();
}

static double
loguni(double lo, double hi)
{
	return exp(uni(log(lo), log(hi)));
}

/* Test-side replica of the floored time grid: ts_k for the homodyne grid. */
static double
ts_of(const struct hcase *c, size_t k)
{
	double t = (double)k * c->dt, eps = fmax(c->dt / 2, 1e-8);

	return t > eps ? t : eps;
}

/* Cumulative trapezoid of f_k = p0 ts^p1 + p2 (no floor) up to frame k. */
static double
cum_rate(const struct hcase *c, double p0, double p1, double p2, size_t k)
{
	double s = 0, fp = 0, f;
	size_t m;

	for (m = 0; m <= k; m++) {
		f = p0 * pow(ts_of(c, m), p1) + p2;
		if (m > 0)
			s += (fp + f) / 2;
		fp = f;
	}
	return s;
}

static double
min_pow(const struct hcase *c, double p)
{
	double v = INFINITY;
	size_t k;

	for (k = 0; k < c->n; k++)
		v = fmin(v, pow(ts_of(c, k), p));
	return v;
}

/* Largest |Phi| over the pairs of angle a (no floors involved). */
static double
max_phase(const struct hcase *c, size_t a)
{
	const double *th = c->theta;
	double B = c->q * c->gap * c->dt / (2 * PI), s;

	s = cum_rate(c, th[HOM_P_GAMMA0], th[HOM_P_BETA], th[HOM_P_GAMMA_OFF],
	    c->n - 1);
	return fabs(B * cos((th[HOM_P_PHI0] - c->phi[a]) * PI / 180) *
	    sqrt(s * s + 1e-12));
}

struct fixture {
	struct het_model	*m;
	struct het_model_eval	*ev;
	struct het_pair		 pairs[AMAX * NMAX * NMAX / 2];
	size_t			 np;
};

static int
fixture_init(struct fixture *f, const struct hcase *c)
{
	struct het_model_spec spec;
	struct het_error err;
	size_t a, i, j;

	memset(&spec, 0, sizeof(spec));
	spec.mode = c->mode;
	spec.q = c->q;
	spec.dt = c->dt;
	spec.start_frame = 7;	/* must not shift the homodyne clock */
	spec.n_frames = c->n;
	spec.n_angles = c->na;
	spec.phi = c->phi;
	spec.gap = c->gap;
	f->ev = NULL;
	if ((f->m = het_model_alloc(&spec, &err)) == NULL ||
	    (f->ev = het_model_eval_alloc(f->m, &err)) == NULL) {
		diag("model: %s", err.msg);
		het_model_free(f->m);
		return -1;
	}
	f->np = 0;
	for (a = 0; a < c->na; a++)
		for (i = 0; i < c->n; i++)
			for (j = i + 1; j < c->n; j++) {
				f->pairs[f->np].i = (uint32_t)i;
				f->pairs[f->np].j = (uint32_t)j;
				f->pairs[f->np++].a = (uint32_t)a;
			}
	return 0;
}

static void
fixture_fini(struct fixture *f)
{
	het_model_eval_free(f->ev);
	het_model_free(f->m);
}

static void
eval_at(struct fixture *f, const double *theta, double *g)
{
	struct het_error err;

	if (het_model_eval_prepare(f->ev, theta, NULL, &err) != HET_OK)
		diag("prepare: %s", err.msg);
	het_model_eval_pairs(f->ev, f->np, f->pairs, g, NULL);
}

/* Typical magnitude of each parameter, for steps at zero values. */
static const double typ[HOM_P_COUNT] = { 1, 0.1, 1, 1e-4, 0.1, 1e-5, 1 };

/* Steps rel * max(|theta_p|, typ_p) for every parameter. */
static void
steps(const struct hcase *c, double rel, double *h)
{
	size_t p;

	for (p = 0; p < HOM_P_COUNT; p++)
		h[p] = rel * fmax(fabs(c->theta[p]), typ[p]);
}

/*
 * Compare the analytic Jacobian (all parameters free) with central
 * differences.  step[p] is the absolute step of parameter p (0: skip the
 * parameter); rich selects Richardson extrapolation.  An entry passes when
 *	|an - fd| <= rtol max(|an|, |fd|) + 30 eps |g| / h
 *	             + 1e-10 |g| / max(|theta_p|, typ_p)
 * the second term being the rounding noise of the difference quotient and
 * the third a floor far below the natural scale g/theta of the
 * derivative, for entries that cancel to nearly zero (sinc extrema).
 */
static void
fd_check(const struct hcase *c, const double *step, int rich,
    struct fdstat *st, double rtol)
{
	static double g0[AMAX * NMAX * NMAX / 2], an[AMAX * NMAX * NMAX / 2 *
	    HOM_P_COUNT], gp[4][AMAX * NMAX * NMAX / 2];
	struct fixture f;
	struct het_error err;
	unsigned char fr[HOM_P_COUNT];
	double th[HOM_P_COUNT], h, fd, d1, d2, noise, gmax, rel, a;
	size_t np, nf, p, k, s;
	const double mul[4] = { 1, -1, 0.5, -0.5 };

	memset(st, 0, sizeof(*st));
	if (fixture_init(&f, c) != 0) {
		st->failed++;
		return;
	}
	nf = het_mode_nphys(c->mode);
	memset(fr, 1, sizeof(fr));
	np = f.np;
	if (het_model_eval_prepare(f.ev, c->theta, fr, &err) != HET_OK) {
		diag("prepare: %s", err.msg);
		st->failed++;
		fixture_fini(&f);
		return;
	}
	het_model_eval_pairs(f.ev, np, f.pairs, g0, an);
	for (p = 0; p < nf; p++) {
		if (step[p] == 0)
			continue;
		h = step[p];
		for (s = 0; s < (rich ? 4u : 2u); s++) {
			memcpy(th, c->theta, sizeof(th));
			th[p] += mul[s] * h;
			eval_at(&f, th, gp[s]);
		}
		for (k = 0; k < np; k++) {
			gmax = fabs(g0[k]);
			for (s = 0; s < (rich ? 4u : 2u); s++)
				gmax = fmax(gmax, fabs(gp[s][k]));
			if (fmin(g0[k], fmin(gp[0][k], gp[1][k])) <=
			    1.000001e-20) {
				st->skipped++;
				continue;
			}
			d1 = (gp[0][k] - gp[1][k]) / (2 * h);
			if (rich) {
				d2 = (gp[2][k] - gp[3][k]) / h;
				fd = (4 * d2 - d1) / 3;
			} else
				fd = d1;
			a = an[k * nf + p];
			noise = 30 * DBL_EPSILON * gmax / h + 1e-10 * gmax /
			    fmax(fabs(c->theta[p]), typ[p]);
			st->compared++;
			if (!isfinite(a) || fabs(a - fd) > rtol *
			    fmax(fabs(a), fabs(fd)) + noise) {
				if (st->failed++ < 3)
					diag("param %zu pair (%u,%u,a%u): "
					    "analytic %.10g fd %.10g", p,
					    f.pairs[k].i, f.pairs[k].j,
					    f.pairs[k].a, a, fd);
				continue;
			}
			if (rtol * fabs(a) > noise) {
				st->resolved++;
				rel = fabs(a - fd) / fmax(fabs(a), fabs(fd));
				st->worst = fmax(st->worst, rel);
			}
		}
	}
	fixture_fini(&f);
}

static void
random_case(struct hcase *c, enum het_mode mode)
{
	double target, base, *th = c->theta, B;
	size_t a;

	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->n = 8 + (size_t)(urand() * 21);
	c->na = 1 + (size_t)(urand() * 3);
	c->q = loguni(1e-3, 2e-2);
	c->dt = loguni(1e-3, 0.5);
	c->gap = 2e6;
	for (a = 0; a < c->na; a++)
		c->phi[a] = uni(-180, 180);
	/* Decay exp(-A S_D) of the longest pair between 0.05 and 3. */
	th[HOM_P_ALPHA] = uni(-1.6, 1.6);
	target = loguni(0.05, 3);
	base = cum_rate(c, 1, th[HOM_P_ALPHA], 0, c->n - 1);
	th[HOM_P_D0] = target / (c->q * c->q * c->dt / 2 * base);
	th[HOM_P_DOFF] = uni(-0.4, 1.0) * th[HOM_P_D0] *
	    min_pow(c, th[HOM_P_ALPHA]);
	if (mode != HET_MODE_HOM_LAMINAR)
		return;
	/* Largest shear phase between 0.3 and 20 (past sinc zeros). */
	th[HOM_P_BETA] = uni(-1.6, 1.6);
	th[HOM_P_PHI0] = uni(-10, 10);
	B = c->q * c->gap * c->dt / (2 * PI);
	target = loguni(0.3, 20);
	base = cum_rate(c, 1, th[HOM_P_BETA], 0, c->n - 1);
	th[HOM_P_GAMMA0] = target / (B * base);
	th[HOM_P_GAMMA_OFF] = uni(-0.4, 1.0) * th[HOM_P_GAMMA0] *
	    min_pow(c, th[HOM_P_BETA]);
}

static void
report(const char *label, const struct fdstat *st, size_t min_resolved)
{
	ok(st->failed == 0 && st->resolved >= min_resolved,
	    "%s: %zu entries agree with finite differences (%zu resolved to "
	    "1e-6, worst rel %.2g, %zu at floors)", label, st->compared,
	    st->resolved, st->worst, st->skipped);
	if (st->resolved < min_resolved)
		diag("only %zu entries resolved, want %zu", st->resolved,
		    min_resolved);
}

static void
test_random(void)
{
	double h[HOM_P_COUNT];
	struct hcase c;
	struct fdstat st;
	char label[96];
	int r;

	for (r = 0; r < 12; r++) {
		random_case(&c, HET_MODE_HOM_STATIC);
		steps(&c, 5e-5, h);
	fd_check(&c, h, 1, &st, 1e-6);
		snprintf(label, sizeof(label), "static random %d (N %zu, "
		    "alpha %.3f)", r, c.n, c.theta[HOM_P_ALPHA]);
		report(label, &st, st.compared * 4 / 5);
	}
	for (r = 0; r < 12; r++) {
		random_case(&c, HET_MODE_HOM_LAMINAR);
		steps(&c, 5e-5, h);
	fd_check(&c, h, 1, &st, 1e-6);
		snprintf(label, sizeof(label), "laminar random %d (N %zu, "
		    "%zu angles, max phase %.3g)", r, c.n, c.na,
		    max_phase(&c, 0));
		report(label, &st, st.compared / 2);
	}
}

/* phi0 - phi = 90 degrees: the flow is invisible at that angle. */
static void
test_perpendicular(void)
{
	double h[HOM_P_COUNT];
	struct hcase c;
	struct fdstat st;
	struct fixture f;
	struct het_error err;
	unsigned char fr[HOM_P_COUNT];
	static double g[NMAX * NMAX], dg[NMAX * NMAX * HOM_P_COUNT];
	double worst_shear = 0, worst_diff = 0;
	size_t k, p;

	random_case(&c, HET_MODE_HOM_LAMINAR);
	c.na = 1;
	c.theta[HOM_P_PHI0] = 2.385;
	c.phi[0] = 2.385 - 90;
	steps(&c, 5e-5, h);
	fd_check(&c, h, 1, &st, 1e-6);
	report("phi0 - phi = 90", &st, 1);
	if (fixture_init(&f, &c) != 0)
		return;
	memset(fr, 1, sizeof(fr));
	het_model_eval_prepare(f.ev, c.theta, fr, &err);
	het_model_eval_pairs(f.ev, f.np, f.pairs, g, dg);
	for (k = 0; k < f.np; k++) {
		for (p = HOM_P_GAMMA0; p < HOM_P_COUNT; p++)
			worst_shear = fmax(worst_shear,
			    fabs(dg[k * HOM_P_COUNT + p]) *
			    fmax(fabs(c.theta[p]), typ[p]) / g[k]);
		worst_diff = fmax(worst_diff, fabs(dg[k * HOM_P_COUNT +
		    HOM_P_D0]) * c.theta[HOM_P_D0] / g[k]);
	}
	ok(worst_shear < 1e-12 && worst_diff > 1e-3, "phi0 - phi = 90: shear "
	    "sensitivities vanish (%.2g) while diffusion's do not (%.2g)",
	    worst_shear, worst_diff);
	fixture_fini(&f);
}

/*
 * Row i = 0 of angle 0 against the series written out by hand:
 * g = (gd s^2)^2, s = 1 - x^2/6 + x^4/120, and with gamma_dot_t_offset = 0
 * dPhi/dgamma_dot_t0 = B c (dS/I) dS/gamma_dot_t0.
 */
static void
taylor_by_hand(const struct hcase *c)
{
	struct fixture f;
	struct het_error err;
	unsigned char fr[HOM_P_COUNT];
	const double *th = c->theta;
	static double g[AMAX * NMAX * NMAX / 2], dg[AMAX * NMAX * NMAX / 2 *
	    HOM_P_COUNT];
	double B, A, cs, sd, sg, ig, x, s, ds, gd, want, dwant, worst = 0;
	double worstd = 0;
	size_t k;

	if (fixture_init(&f, c) != 0)
		return;
	memset(fr, 1, sizeof(fr));
	het_model_eval_prepare(f.ev, th, fr, &err);
	het_model_eval_pairs(f.ev, f.np, f.pairs, g, dg);
	A = c->q * c->q * c->dt / 2;
	B = c->q * c->gap * c->dt / (2 * PI);
	cs = cos((th[HOM_P_PHI0] - c->phi[0]) * PI / 180);
	for (k = 0; k < f.np && f.pairs[k].i == 0 && f.pairs[k].a == 0; k++) {
		sd = cum_rate(c, th[HOM_P_D0], th[HOM_P_ALPHA], th[HOM_P_DOFF],
		    f.pairs[k].j);
		sg = cum_rate(c, th[HOM_P_GAMMA0], th[HOM_P_BETA], 0,
		    f.pairs[k].j);
		gd = exp(-A * sqrt(sd * sd + 1e-12));
		ig = sqrt(sg * sg + 1e-12);
		x = B * cs * ig;
		s = 1 - x * x / 6 + x * x * x * x / 120;
		ds = -x / 3 + x * x * x / 30;
		want = gd * gd * s * s * s * s;
		dwant = gd * gd * 4 * s * s * s * ds * B * cs * (sg / ig) *
		    sg / th[HOM_P_GAMMA0];
		worst = fmax(worst, fabs(g[k] - want) / want);
		worstd = fmax(worstd, fabs(dg[k * HOM_P_COUNT +
		    HOM_P_GAMMA0] - dwant) / fabs(dwant));
	}
	ok(k == c->n - 1 && worst < 1e-13 && worstd < 1e-9, "taylor region: "
	    "g and dg/dgamma_dot_t0 of row 0 equal the written-out series "
	    "(rel %.2g, %.2g)", worst, worstd);
	fixture_fini(&f);
}

/* Every pair inside |Phi| < 1e-4, and the switch itself. */
static void
test_taylor(void)
{
	double h[HOM_P_COUNT];
	struct hcase c;
	struct fdstat st;
	struct fixture f;
	struct het_error err;
	struct het_pair last;
	unsigned char fr[HOM_P_COUNT];
	double st_gamma[HOM_P_COUNT] = { 0 }, th[HOM_P_COUNT], phase;
	double below[HOM_P_COUNT], above[HOM_P_COUNT], g, worst = 0;
	size_t p;

	random_case(&c, HET_MODE_HOM_LAMINAR);
	c.na = 1;
	/* Phi proportional to gamma_dot_t0. */
	c.theta[HOM_P_GAMMA_OFF] = 0;
	phase = max_phase(&c, 0);
	c.theta[HOM_P_GAMMA0] *= 6e-5 / phase;
	ok(max_phase(&c, 0) < 1e-4 && max_phase(&c, 0) > 5e-5,
	    "taylor case: every |Phi| below 1e-4 (max %.3g)",
	    max_phase(&c, 0));
	/*
	 * The shear changes g by only ~Phi^2 ~ 1e-9 here, so a difference
	 * quotient of g resolves its derivative to ~1e-5 at best.  The step
	 * is large (with Phi linear in gamma_dot_t0, g is a polynomial in
	 * it, so a 40 % central difference is still accurate) and the
	 * tolerance 1e-4; the exact check is the hand formula below.
	 */
	st_gamma[HOM_P_GAMMA0] = 0.4 * c.theta[HOM_P_GAMMA0];
	fd_check(&c, st_gamma, 0, &st, 1e-4);
	ok(st.failed == 0 && st.resolved >= st.compared / 3, "taylor region: "
	    "d/d gamma_dot_t0 of %zu entries agree with finite differences "
	    "(%zu resolved to 1e-4, worst rel %.2g)", st.compared,
	    st.resolved, st.worst);
	taylor_by_hand(&c);
	steps(&c, 5e-5, h);
	fd_check(&c, h, 1, &st, 1e-6);
	report("taylor region, all parameters", &st, 1);

	/* Continuity of every derivative across |Phi| = 1e-4. */
	if (fixture_init(&f, &c) != 0)
		return;
	last.i = 0;
	last.j = (uint32_t)(c.n - 1);
	last.a = 0;
	memset(fr, 1, sizeof(fr));
	memcpy(th, c.theta, sizeof(th));
	th[HOM_P_GAMMA0] = c.theta[HOM_P_GAMMA0] * 1e-4 / max_phase(&c, 0) *
	    (1 - 1e-9);
	het_model_eval_prepare(f.ev, th, fr, &err);
	het_model_eval_pairs(f.ev, 1, &last, &g, below);
	th[HOM_P_GAMMA0] *= (1 + 1e-9) / (1 - 1e-9);
	het_model_eval_prepare(f.ev, th, fr, &err);
	het_model_eval_pairs(f.ev, 1, &last, &g, above);
	for (p = HOM_P_GAMMA0; p < HOM_P_COUNT; p++)
		worst = fmax(worst, fabs(above[p] - below[p]) /
		    fmax(fabs(above[p]), fabs(below[p])));
	ok(worst < 1e-7, "shear derivatives continuous across the series "
	    "switch (worst rel jump %.2g)", worst);
	fixture_fini(&f);
}

/* t_0 = 0 is replaced by dt/2 and negative exponents stay finite. */
static void
test_t0(void)
{
	double h[HOM_P_COUNT];
	struct hcase c;
	struct fdstat st;
	struct fixture f;
	struct het_error err;
	struct het_pair pr = { 0, 1, 0 };
	unsigned char fr[HOM_P_COUNT];
	double *th, g, dg[HOM_P_COUNT], s, A, want;
	size_t p;
	int finite = 1;

	memset(&c, 0, sizeof(c));
	c.mode = HET_MODE_HOM_LAMINAR;
	c.q = 0.0123;
	c.dt = 0.0371;
	c.gap = 2e6;
	c.n = 9;
	c.na = 1;
	c.phi[0] = 33.3;
	th = c.theta;
	th[HOM_P_D0] = 2385.0;
	th[HOM_P_ALPHA] = -1.7;
	th[HOM_P_DOFF] = 12.5;
	th[HOM_P_GAMMA0] = 0.0213;
	th[HOM_P_BETA] = -0.85;
	th[HOM_P_GAMMA_OFF] = 0.0041;
	th[HOM_P_PHI0] = -4.2;
	if (fixture_init(&f, &c) != 0)
		return;
	memset(fr, 1, sizeof(fr));
	het_model_eval_prepare(f.ev, th, fr, &err);
	het_model_eval_pairs(f.ev, 1, &pr, &g, dg);
	/* Static part by hand: S_D[1] = (D(dt/2) + D(dt)) / 2. */
	c.mode = HET_MODE_HOM_STATIC;
	fixture_fini(&f);
	if (fixture_init(&f, &c) != 0)
		return;
	het_model_eval_prepare(f.ev, th, NULL, &err);
	s = (th[0] * pow(c.dt / 2, th[1]) + th[2] + th[0] * pow(c.dt, th[1]) +
	    th[2]) / 2;
	A = c.q * c.q * c.dt / 2;
	want = exp(-A * sqrt(s * s + 1e-12));
	is_rel(het_model_eval_g(f.ev, 0, 0, 1), want * want, 1e-14,
	    "g(0, 1) uses ts_0 = dt/2");
	fixture_fini(&f);
	for (p = 0; p < HOM_P_COUNT; p++)
		finite = finite && isfinite(dg[p]) && dg[p] != 0;
	ok(finite, "alpha = -1.7, beta = -0.85: derivatives at t = 0 are "
	    "finite and nonzero");
	c.mode = HET_MODE_HOM_LAMINAR;
	steps(&c, 5e-5, h);
	fd_check(&c, h, 1, &st, 1e-6);
	report("negative exponents with the t = 0 row", &st,
	    st.compared * 4 / 5);
}

static void
test_floors(void)
{
	struct hcase c;
	struct fixture f;
	struct het_error err;
	unsigned char fr[HOM_P_COUNT];
	static double g[NMAX * NMAX], dg[NMAX * NMAX * HOM_P_COUNT];
	double *th = c.theta, zero = 0, want, worst = 0, phase;
	size_t k, p;

	memset(&c, 0, sizeof(c));
	c.mode = HET_MODE_HOM_LAMINAR;
	c.q = 0.0054;
	c.dt = 0.1;
	c.gap = 2e6;
	c.n = 12;
	c.na = 1;
	c.phi[0] = 21.7;
	th[HOM_P_D0] = 100;
	th[HOM_P_ALPHA] = 0.5;
	th[HOM_P_DOFF] = -1e5;		/* D floored at every frame */
	th[HOM_P_GAMMA0] = 1e-6;
	th[HOM_P_BETA] = 0.3;
	th[HOM_P_GAMMA_OFF] = -0.1;	/* gamma_dot floored too */
	th[HOM_P_PHI0] = 3.3;
	if (fixture_init(&f, &c) != 0)
		return;
	memset(fr, 1, sizeof(fr));
	het_model_eval_prepare(f.ev, th, fr, &err);
	het_model_eval_pairs(f.ev, f.np, f.pairs, g, dg);
	for (k = 0; k < f.np; k++)
		for (p = 0; p < 6; p++)
			zero = fmax(zero, fabs(dg[k * HOM_P_COUNT + p]));
	is_double(zero, 0, 0, "floored rates: zero derivative for D0, alpha, "
	    "D_offset, gamma_dot_t0, beta, gamma_dot_t_offset");
	/* Pair (2, 9): both integrals are 7 * 1e-10 steps. */
	want = exp(-c.q * c.q * c.dt / 2 * sqrt(49e-20 + 1e-12));
	phase = c.q * c.gap * c.dt / (2 * PI) * cos((3.3 - 21.7) * PI / 180) *
	    sqrt(49e-20 + 1e-12);
	want *= pow(sin(phase) / phase, 2);
	is_rel(het_model_eval_g(f.ev, 0, 2, 9), want * want, 1e-12,
	    "floored rates: g from 1e-10 rates (|Phi| = %.3g)", phase);
	fixture_fini(&f);

	/* Decay far beyond exp(-700): g1 floored, every derivative zero. */
	th[HOM_P_D0] = 1e5;
	th[HOM_P_ALPHA] = 1.5;
	th[HOM_P_DOFF] = 1e5;
	th[HOM_P_GAMMA0] = 0.01;
	th[HOM_P_GAMMA_OFF] = 0.01;
	c.q = 0.2;
	if (fixture_init(&f, &c) != 0)
		return;
	het_model_eval_prepare(f.ev, th, fr, &err);
	het_model_eval_pairs(f.ev, f.np, f.pairs, g, dg);
	zero = 0;
	for (k = 0; k < f.np; k++) {
		worst = fmax(worst, fabs(g[k] - 1e-10 * 1e-10));
		for (p = 0; p < HOM_P_COUNT; p++)
			zero = fmax(zero, fabs(dg[k * HOM_P_COUNT + p]));
	}
	ok(worst == 0 && zero == 0, "decay past the clip: g = (1e-10)^2 and "
	    "all derivatives zero for every pair (max |g - 1e-20| %.3g, max "
	    "|dg| %.3g)", worst, zero);
	fixture_fini(&f);
}

/* A subset of free parameters gives the same columns, in table order. */
static void
test_subset(void)
{
	struct hcase c;
	struct fixture f;
	struct het_error err;
	unsigned char all[HOM_P_COUNT], some[HOM_P_COUNT] =
	    { 0, 1, 0, 1, 0, 0, 1 };
	static double g1[AMAX * NMAX * NMAX / 2], g2[AMAX * NMAX * NMAX / 2],
	    g3[AMAX * NMAX * NMAX / 2], d1[AMAX * NMAX * NMAX / 2 * 7],
	    d2[AMAX * NMAX * NMAX / 2 * 3];
	const size_t cols[3] = { HOM_P_ALPHA, HOM_P_GAMMA0, HOM_P_PHI0 };
	size_t k, c3, bad = 0;

	random_case(&c, HET_MODE_HOM_LAMINAR);
	if (fixture_init(&f, &c) != 0)
		return;
	memset(all, 1, sizeof(all));
	het_model_eval_prepare(f.ev, c.theta, all, &err);
	het_model_eval_pairs(f.ev, f.np, f.pairs, g1, d1);
	het_model_eval_prepare(f.ev, c.theta, some, &err);
	is_int((long long)het_model_eval_nfree(f.ev), 3, "three free columns");
	het_model_eval_pairs(f.ev, f.np, f.pairs, g2, d2);
	het_model_eval_prepare(f.ev, c.theta, NULL, &err);
	het_model_eval_pairs(f.ev, f.np, f.pairs, g3, NULL);
	for (k = 0; k < f.np; k++) {
		bad += g1[k] != g2[k] || g1[k] != g3[k];
		for (c3 = 0; c3 < 3; c3++)
			bad += d2[k * 3 + c3] != d1[k * 7 + cols[c3]];
	}
	is_int((long long)bad, 0, "subset columns and values identical to the "
	    "full evaluation (%zu pairs)", f.np);
	fixture_fini(&f);
}

int
main(void)
{
	plan_lazy();
	test_random();
	test_perpendicular();
	test_taylor();
	test_t0();
	test_floors();
	test_subset();
	return exit_status();
}
