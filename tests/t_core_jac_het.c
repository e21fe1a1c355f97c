/*
 * t_core_jac_het.c: analytic derivatives of the heterodyne kernel against
 * finite differences, derivative conventions at the non-smooth points,
 * column bookkeeping, pair-order and thread independence, error paths.
 *
 * Finite differences: a five-point stencil
 *	f' ~ (8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / (12 h)
 * with h = 1e-4 s_p, where s_p = max(|theta_p|, 1e-3 (hi_p - lo_p)) is
 * the parameter's own scale.  Its truncation error is O((h/s)^4) and its
 * rounding error about 2e-12 in units of g per relative change of the
 * parameter, so every element must satisfy
 *	|ana - fd| s_p <= 1e-6 |ana| s_p + 1e-10,
 * i.e. 1e-6 relative agreement wherever the derivative is visible at all.
 * A derivative that is wrong by one part in 1e5 fails.
 *
 * The stencil is only valid where no clip or floor changes regime inside
 * [theta - 2h, theta + 2h] at a grid time (a rate crossing zero, the
 * fraction reaching 0 or 1, the fraction exponent reaching +-100).  The
 * random parameter sets are therefore drawn again when such a crossing
 * is found; rates that cross zero *between* grid times and fractions that
 * saturate over part of the window are kept (and deliberately built in
 * the fixed cases), since there the finite differences are smooth.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_model.h"
#include "het_model_impl.h"
#include "het_params.h"
#include "tap.h"

#define NP	HET_P_HET_COUNT
#define REL_TOL	1e-6
#define ABS_TOL	1e-10

struct setup {
	double	 q, dt;
	long	 start_frame;
	size_t	 n;
	double	 phi[3];
	size_t	 na;
	int	 t_from_zero;	/* replace the grid by k dt (see below) */
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double
rng_unif(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) *
	    (1.0 / 9007199254740992.0);
}

static double
rng_range(double lo, double hi)
{
	return lo + (hi - lo) * rng_unif();
}

/*
 * The scale of parameter p at theta: its magnitude, at least 1e-3 of its
 * range; for the time shift f2 at most the e-folding time 1/|f1| of the
 * fraction (its range, 2e4 s, says nothing about how fast x_s varies).
 */
static double
pscale(size_t p, const double *th)
{
	size_t n;
	const struct het_param_def *d = het_params_table(HET_FAMILY_HETERODYNE,
	    &n);
	double s = fmax(fabs(th[p]), 1e-3 * (d[p].hi - d[p].lo));

	if (p == HET_P_F2 && th[HET_P_F1] != 0)
		s = fmin(s, fmax(fabs(th[p]), 1.0 / fabs(th[HET_P_F1])));
	return s;
}

static struct het_model *
make_model(const struct setup *s, enum het_mode mode)
{
	struct het_model_spec spec;
	struct het_model *m;
	struct het_error err;
	size_t k;

	memset(&spec, 0, sizeof(spec));
	spec.mode = mode;
	spec.q = s->q;
	spec.dt = s->dt;
	spec.start_frame = s->start_frame;
	spec.n_frames = s->n;
	spec.n_angles = s->na;
	spec.phi = s->phi;
	if ((m = het_model_alloc(&spec, &err)) == NULL)
		return NULL;
	/*
	 * A grid through t = 0 cannot be built through het_model_alloc
	 * (frames count from 1); reach the kernel's t <= 0 branch through
	 * the internal header, as t_core_golden_het does.
	 */
	if (s->t_from_zero)
		for (k = 0; k < s->n; k++)
			m->t[k] = (double)k * s->dt;
	return m;
}

/* Pairs (i < j) with the angle innermost (angle_inner) or outermost. */
static struct het_pair *
make_pairs(size_t n, size_t na, int angle_inner, size_t *np)
{
	struct het_pair *pr;
	size_t i, j, a, k = 0;

	*np = n * (n - 1) / 2 * na;
	if ((pr = calloc(*np, sizeof(*pr))) == NULL)
		return NULL;
	if (angle_inner) {
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				for (a = 0; a < na; a++) {
					pr[k].i = (uint32_t)i;
					pr[k].j = (uint32_t)j;
					pr[k++].a = (uint32_t)a;
				}
	} else {
		for (a = 0; a < na; a++)
			for (i = 0; i < n; i++)
				for (j = i + 1; j < n; j++) {
					pr[k].i = (uint32_t)i;
					pr[k].j = (uint32_t)j;
					pr[k++].a = (uint32_t)a;
				}
	}
	return pr;
}

/*
 * Regime signature of one time: signs of both raw rates, the state of
 * the fraction exponent clip and of the fraction clip (test's own
 * transcription of heterodyne-spec.md §1.1).
 */
static int
regime(const double *th, double t)
{
	double ts = t > 1e-10 ? t : 1e-10, pr, ps, arg, x;
	int r = 0;

	pr = t > 0 ? pow(ts, th[HET_P_ALPHA_REF]) : 0;
	ps = t > 0 ? pow(ts, th[HET_P_ALPHA_SAMPLE]) : 0;
	r |= th[HET_P_D0_REF] * pr + th[HET_P_DOFF_REF] > 0 ? 1 : 0;
	r |= th[HET_P_D0_SAMPLE] * ps + th[HET_P_DOFF_SAMPLE] > 0 ? 2 : 0;
	arg = th[HET_P_F1] * (t - th[HET_P_F2]);
	r |= arg > 100 ? 4 : arg < -100 ? 8 : 0;
	x = th[HET_P_F0] * exp(fmin(fmax(arg, -100), 100)) + th[HET_P_F3];
	r |= x > 1 ? 16 : x < 0 ? 32 : 0;
	return r;
}

/* Non-zero when some stencil point changes regime at some grid time. */
static int
near_kink(const struct het_model *m, const double *th)
{
	const double *t = het_model_time(m);
	size_t n = het_model_spec_of(m)->n_frames, p, k;
	double tp[NP];
	int sgn, st;

	for (p = 0; p < NP; p++)
		for (st = -2; st <= 2; st++) {
			memcpy(tp, th, sizeof(tp));
			tp[p] += st * 1e-4 * pscale(p, th);
			for (k = 0; k < n; k++) {
				sgn = regime(tp, t[k]);
				if (sgn != regime(th, t[k]))
					return 1;
			}
		}
	return 0;
}

struct jac_stats {
	double	max_rel;	/* worst |ana - fd| / |ana| where visible */
	double	max_err;	/* worst normalised error (must be <= 1) */
	size_t	nvisible;	/* elements with |ana| s_p > 1e-4 */
	size_t	worst_col;
};

/*
 * Compare the analytic Jacobian of `mode` (its default free set) with
 * finite differences on all pairs.  Returns the statistics in *js, or -1
 * on failure, including (with guard) a stencil that crosses a clip.
 */
static int
check_jac(const struct setup *s, enum het_mode mode, const double *th,
    int guard, struct jac_stats *js)
{
	unsigned char fr[NP];
	struct het_model *m;
	struct het_model_eval *ev = NULL;
	struct het_error err;
	struct het_pair *pr = NULL;
	double *g = NULL, *dg = NULL, *gs[4] = { NULL }, tp[NP], h, fd, an,
	    sp, e;
	size_t np = 0, nf = 0, p, c, k, st;
	static const int steps[4] = { 2, 1, -1, -2 };
	int rc = -1;

	memset(js, 0, sizeof(*js));
	for (p = 0; p < NP; p++)
		fr[p] = (unsigned char)het_mode_default_vary(mode, p);
	if ((m = make_model(s, mode)) == NULL ||
	    (ev = het_model_eval_alloc(m, &err)) == NULL ||
	    (pr = make_pairs(s->n, s->na, 1, &np)) == NULL)
		goto out;
	if (guard && near_kink(m, th)) {
		diag("the stencil crosses a clip or floor at a grid time");
		goto out;
	}
	if (het_model_eval_prepare(ev, th, fr, &err) != HET_OK)
		goto out;
	nf = het_model_eval_nfree(ev);
	g = calloc(np, sizeof(*g));
	dg = calloc(np * nf, sizeof(*dg));
	for (st = 0; st < 4; st++)
		gs[st] = calloc(np, sizeof(double));
	if (g == NULL || dg == NULL || gs[0] == NULL || gs[1] == NULL ||
	    gs[2] == NULL || gs[3] == NULL)
		goto out;
	het_model_eval_pairs(ev, np, pr, g, dg);
	for (c = 0, p = 0; p < NP; p++) {
		if (!fr[p])
			continue;
		sp = pscale(p, th);
		h = 1e-4 * sp;
		for (st = 0; st < 4; st++) {
			memcpy(tp, th, sizeof(tp));
			tp[p] = th[p] + steps[st] * h;
			if (het_model_eval_prepare(ev, tp, NULL, &err) != HET_OK)
				goto out;
			het_model_eval_pairs(ev, np, pr, gs[st], NULL);
		}
		for (k = 0; k < np; k++) {
			fd = (8.0 * (gs[1][k] - gs[2][k]) -
			    (gs[0][k] - gs[3][k])) / (12.0 * h);
			an = dg[k * nf + c];
			e = fabs(an - fd) * sp /
			    (REL_TOL * fabs(an) * sp + ABS_TOL);
			if (e > js->max_err) {
				js->max_err = e;
				js->worst_col = p;
			}
			if (fabs(an) * sp > 1e-4) {
				js->nvisible++;
				js->max_rel = fmax(js->max_rel,
				    fabs(an - fd) / fabs(an));
			}
		}
		c++;
	}
	rc = 0;
out:
	for (st = 0; st < 4; st++)
		free(gs[st]);
	free(g);
	free(dg);
	free(pr);
	het_model_eval_free(ev);
	het_model_free(m);
	return rc;
}

static void
report(const char *what, int rc, const struct jac_stats *js)
{
	size_t n;
	const struct het_param_def *d = het_params_table(HET_FAMILY_HETERODYNE,
	    &n);

	diag("%s: max rel err %.2e over %zu visible elements; worst "
	    "normalised %.3g (%s)", what, js->max_rel, js->nvisible,
	    js->max_err, d[js->worst_col].name);
	ok(rc == 0 && js->max_err <= 1.0, "%s: Jacobian matches finite "
	    "differences", what);
}

/* The golden "typical" parameters, used as a base for fixed cases. */
static const double typical[NP] = {
	1000, 0, 10, 3000, -0.2, 5, 50, 0, 5, 0.3, 0.05, 15, 0.2, 5
};

static void
base_setup(struct setup *s)
{
	memset(s, 0, sizeof(*s));
	s->q = 0.0123;
	s->dt = 0.0937;
	s->start_frame = 3;
	s->n = 30;
	s->na = 3;
	s->phi[0] = 23.85;
	s->phi[1] = -61.3;
	s->phi[2] = 85.0;
}

/* Draw a random parameter set and experiment (see the file comment). */
static void
draw(struct setup *s, double *th)
{
	double tmax;

	memset(s, 0, sizeof(*s));
	s->n = 12 + (size_t)(rng_unif() * 20);
	s->dt = exp(rng_range(log(1e-3), log(0.5)));
	s->start_frame = 1 + (long)(rng_unif() * 200);
	s->na = 3;
	s->phi[0] = rng_range(-180, 180);
	s->phi[1] = rng_range(-180, 180);
	s->phi[2] = rng_range(-180, 180);
	tmax = (double)(s->start_frame + (long)s->n) * s->dt;
	th[HET_P_D0_REF] = exp(rng_range(log(100), log(1e6)));
	th[HET_P_ALPHA_REF] = rng_range(-2, 2);
	th[HET_P_DOFF_REF] = rng_range(-0.3, 1) * th[HET_P_D0_REF];
	th[HET_P_D0_SAMPLE] = exp(rng_range(log(100), log(1e6)));
	th[HET_P_ALPHA_SAMPLE] = rng_range(-2, 2);
	th[HET_P_DOFF_SAMPLE] = rng_range(-0.3, 1) * th[HET_P_D0_SAMPLE];
	th[HET_P_V0] = exp(rng_range(log(1e-6), log(1e4)));
	th[HET_P_BETA] = rng_range(-2, 2);
	th[HET_P_V_OFFSET] = rng_range(-100, 100);
	th[HET_P_F0] = rng_range(0, 1);
	th[HET_P_F1] = rng_range(-10, 10) / fmax(tmax, 1.0);
	th[HET_P_F2] = rng_range(0, tmax);
	th[HET_P_F3] = rng_range(0, 0.6);
	th[HET_P_PHI0] = rng_range(-10, 10);
	/* q so that the transport decay spans a sizeable range */
	s->q = exp(rng_range(log(1e-3), log(0.1)));
}

static void
test_random(void)
{
	static const enum het_mode modes[] = {
		HET_MODE_STATIC_REF, HET_MODE_STATIC_BOTH,
		HET_MODE_TWO_COMPONENT
	};
	static const char *mnames[] = { "static_ref", "static_both",
	    "two_component" };
	struct setup s;
	struct jac_stats js;
	struct het_model *m;
	double th[NP], worst = 0, worst_rel = 0;
	size_t set, mi, redrawn = 0, nvis = 0;
	char what[96];
	int rc, bad = 0;

	for (set = 0; set < 12; set++) {
		for (;;) {
			draw(&s, th);
			m = make_model(&s, HET_MODE_TWO_COMPONENT);
			if (m == NULL || !near_kink(m, th)) {
				het_model_free(m);
				break;
			}
			het_model_free(m);
			redrawn++;
		}
		for (mi = 0; mi < 3; mi++) {
			rc = check_jac(&s, modes[mi], th, 1, &js);
			if (rc != 0 || js.max_err > 1.0) {
				snprintf(what, sizeof(what), "random set %zu, "
				    "%s", set, mnames[mi]);
				report(what, rc, &js);
				bad = 1;
			}
			worst = fmax(worst, js.max_err);
			worst_rel = fmax(worst_rel, js.max_rel);
			nvis += js.nvisible;
		}
	}
	diag("random sets: %zu redrawn near a clip; max rel err %.2e over "
	    "%zu visible elements, worst normalised error %.3g", redrawn,
	    worst_rel, nvis, worst);
	ok(!bad, "12 random parameter sets x 3 modes: Jacobian matches "
	    "finite differences");

	/* the guard itself: a rate 1e-7 above zero at a grid time is caught */
	base_setup(&s);
	memcpy(th, typical, sizeof(th));
	th[HET_P_ALPHA_REF] = 0.5;
	th[HET_P_D0_REF] = 1000.0;
	m = make_model(&s, HET_MODE_TWO_COMPONENT);
	rc = m != NULL;
	if (rc) {
		th[HET_P_DOFF_REF] = -1000.0 * sqrt(het_model_time(m)[5]) *
		    (1 - 1e-10);
		rc = near_kink(m, th);
		th[HET_P_DOFF_REF] = -1000.0 * sqrt(het_model_time(m)[5]) *
		    (1 - 1e-10) - 0.5 * 1000.0 * (sqrt(het_model_time(m)[6]) -
		    sqrt(het_model_time(m)[5]));
		rc = rc && !near_kink(m, th);
	}
	ok(rc, "the kink guard flags a rate 1e-7 from zero at a grid time "
	    "and passes one that crosses between grid times");
	het_model_free(m);
	ok(nvis > 10000, "the random sets exercise many visible derivatives "
	    "(%zu)", nvis);
}

static void
test_fixed(void)
{
	struct setup s;
	struct jac_stats js;
	double th[NP];
	int rc;

	memset(&s, 0, sizeof(s));
	s.q = 0.0123;
	s.dt = 0.0937;
	s.start_frame = 3;
	s.n = 30;
	s.na = 3;
	s.phi[0] = 23.85;
	s.phi[1] = -61.3;
	s.phi[2] = 85.0;	/* 90 deg with phi0 = 5 below */

	memcpy(th, typical, sizeof(th));
	th[HET_P_ALPHA_REF] = 0.62;
	th[HET_P_BETA] = -0.37;
	rc = check_jac(&s, HET_MODE_TWO_COMPONENT, th, 1, &js);
	report("typical, one angle at phi + phi0 = 90 deg", rc, &js);

	/* rates crossing zero between grid points, floored over part */
	memcpy(th, typical, sizeof(th));
	th[HET_P_ALPHA_REF] = 0.5;
	th[HET_P_D0_REF] = 1000.0;
	th[HET_P_DOFF_REF] = -1234.5;	/* J_r = 0 at t = 1.524 s */
	th[HET_P_ALPHA_SAMPLE] = -0.8;
	th[HET_P_D0_SAMPLE] = 2385.0;
	th[HET_P_DOFF_SAMPLE] = -3001.0;	/* J_s = 0 at t = 0.75 s */
	rc = check_jac(&s, HET_MODE_TWO_COMPONENT, th, 1, &js);
	report("both rates cross zero inside the window", rc, &js);
	rc = check_jac(&s, HET_MODE_STATIC_BOTH, th, 1, &js);
	report("both rates cross zero inside the window, static_both", rc,
	    &js);

	/* fraction saturating at 1 over the second half of the window */
	memcpy(th, typical, sizeof(th));
	th[HET_P_F0] = 0.15;
	th[HET_P_F1] = 1.3;
	th[HET_P_F2] = 0.7;
	th[HET_P_F3] = 0.35;
	rc = check_jac(&s, HET_MODE_TWO_COMPONENT, th, 1, &js);
	report("fraction saturated at 1 over part of the window", rc, &js);

	/* negative exponents, reversed flow */
	memcpy(th, typical, sizeof(th));
	th[HET_P_ALPHA_REF] = -1.7;
	th[HET_P_ALPHA_SAMPLE] = -1.2;
	th[HET_P_BETA] = -1.45;
	th[HET_P_V_OFFSET] = -80.0;
	th[HET_P_F1] = -0.9;
	rc = check_jac(&s, HET_MODE_TWO_COMPONENT, th, 1, &js);
	report("negative exponents and reversed flow", rc, &js);

	/* a grid through t = 0: P(0, a) = 0 and d P/d a = 0 there */
	s.t_from_zero = 1;
	memcpy(th, typical, sizeof(th));
	th[HET_P_ALPHA_REF] = 0.8;
	th[HET_P_ALPHA_SAMPLE] = 1.3;
	th[HET_P_BETA] = 0.45;
	rc = check_jac(&s, HET_MODE_TWO_COMPONENT, th, 1, &js);
	report("grid through t = 0", rc, &js);

	/*
	 * ... with D_offset = 0 both rates sit exactly on the floor at t = 0
	 * (J(0) = max(0, 0)): JAX's tie rule gives d J(0)/d D_offset = 1/2,
	 * which is also what the symmetric stencil sees.
	 */
	th[HET_P_DOFF_REF] = 0.0;
	th[HET_P_DOFF_SAMPLE] = 0.0;
	rc = check_jac(&s, HET_MODE_TWO_COMPONENT, th, 0, &js);
	report("grid through t = 0, both rates tied at the floor there", rc,
	    &js);
}

/* Prepared workspace plus all pairs and their g and dg, for the checks. */
struct evald {
	struct het_model	*m;
	struct het_model_eval	*ev;
	struct het_pair		*pr;
	size_t			 np, nf;
	double			*g, *dg;
};

static void
evald_free(struct evald *e)
{
	free(e->pr);
	free(e->g);
	free(e->dg);
	het_model_eval_free(e->ev);
	het_model_free(e->m);
	memset(e, 0, sizeof(*e));
}

static int
evald_run(struct evald *e, const struct setup *s, const double *th,
    const unsigned char *fr, int angle_inner)
{
	struct het_error err;

	memset(e, 0, sizeof(*e));
	if ((e->m = make_model(s, HET_MODE_TWO_COMPONENT)) == NULL ||
	    (e->ev = het_model_eval_alloc(e->m, &err)) == NULL ||
	    (e->pr = make_pairs(s->n, s->na, angle_inner, &e->np)) == NULL ||
	    het_model_eval_prepare(e->ev, th, fr, &err) != HET_OK)
		return -1;
	e->nf = het_model_eval_nfree(e->ev);
	e->g = calloc(e->np, sizeof(double));
	e->dg = calloc(e->np * (e->nf ? e->nf : 1), sizeof(double));
	if (e->g == NULL || e->dg == NULL)
		return -1;
	het_model_eval_pairs(e->ev, e->np, e->pr, e->g,
	    e->nf ? e->dg : NULL);
	return 0;
}

/* Largest |dg| of parameter column c over the pairs of angle a (-1: all). */
static double
colmax(const struct evald *e, size_t c, long a)
{
	double v = 0;
	size_t k;

	for (k = 0; k < e->np; k++)
		if (a < 0 || e->pr[k].a == (uint32_t)a)
			v = fmax(v, fabs(e->dg[k * e->nf + c]));
	return v;
}

static const unsigned char all_free[NP] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
};


static void
test_zero_columns(void)
{
	struct setup s;
	struct evald e;
	double th[NP];
	int rc;

	base_setup(&s);

	/* x_s = clip(0.8 exp(0.5 (t - 1)) + 0.5) = 1 at every grid time */
	memcpy(th, typical, sizeof(th));
	th[HET_P_F0] = 0.8;
	th[HET_P_F1] = 0.5;
	th[HET_P_F2] = 1.0;
	th[HET_P_F3] = 0.5;
	rc = evald_run(&e, &s, th, all_free, 1);
	ok(rc == 0 && colmax(&e, HET_P_F0, -1) == 0 &&
	    colmax(&e, HET_P_F1, -1) == 0 && colmax(&e, HET_P_F2, -1) == 0 &&
	    colmax(&e, HET_P_F3, -1) == 0,
	    "fraction saturated at 1 everywhere: f0..f3 columns exactly 0");
	ok(rc == 0 && colmax(&e, HET_P_D0_REF, -1) == 0 &&
	    colmax(&e, HET_P_V0, -1) == 0 && colmax(&e, HET_P_PHI0, -1) == 0,
	    "... and with x_r = 0 the reference, flow and phi0 columns too");
	ok(rc == 0 && colmax(&e, HET_P_D0_SAMPLE, -1) > 1e-6,
	    "... while the sample transport still acts (%.3g)",
	    rc == 0 ? colmax(&e, HET_P_D0_SAMPLE, -1) : 0);
	evald_free(&e);

	/* fraction exponent clipped at -100 everywhere: f1, f2 inert */
	memcpy(th, typical, sizeof(th));
	th[HET_P_F1] = -9.5;
	th[HET_P_F2] = -25.0;
	rc = evald_run(&e, &s, th, all_free, 1);
	ok(rc == 0 && colmax(&e, HET_P_F1, -1) == 0 &&
	    colmax(&e, HET_P_F2, -1) == 0 && colmax(&e, HET_P_F3, -1) > 1e-3,
	    "fraction exponent clipped at -100: f1, f2 columns exactly 0, "
	    "f3 active");
	evald_free(&e);

	/*
	 * sample log half-transport below -700 for every pair: the clip
	 * passes no derivative (without it the sample columns would be
	 * ~1e-307, not 0), the reference columns stay active.
	 */
	s.q = 0.1;
	s.dt = 0.5;
	memcpy(th, typical, sizeof(th));
	th[HET_P_D0_REF] = 100.0;
	th[HET_P_ALPHA_REF] = 0.0;
	th[HET_P_DOFF_REF] = 0.0;
	th[HET_P_D0_SAMPLE] = 1e6;
	th[HET_P_ALPHA_SAMPLE] = 1.5;
	th[HET_P_DOFF_SAMPLE] = 1e5;
	rc = evald_run(&e, &s, th, all_free, 1);
	ok(rc == 0 && colmax(&e, HET_P_D0_SAMPLE, -1) == 0 &&
	    colmax(&e, HET_P_ALPHA_SAMPLE, -1) == 0 &&
	    colmax(&e, HET_P_DOFF_SAMPLE, -1) == 0 &&
	    colmax(&e, HET_P_D0_REF, -1) > 1e-4,
	    "sample log half-transport clipped at -700: its columns exactly "
	    "0, reference columns active");
	evald_free(&e);
	base_setup(&s);

	/* reference rate floored at 0 everywhere */
	memcpy(th, typical, sizeof(th));
	th[HET_P_DOFF_REF] = -99999.0;
	rc = evald_run(&e, &s, th, all_free, 1);
	ok(rc == 0 && colmax(&e, HET_P_D0_REF, -1) == 0 &&
	    colmax(&e, HET_P_ALPHA_REF, -1) == 0 &&
	    colmax(&e, HET_P_DOFF_REF, -1) == 0,
	    "reference rate floored at 0: its three columns exactly 0");
	evald_free(&e);

	/* phi + phi0 = 90 deg on angle 2: no flow sensitivity there */
	memcpy(th, typical, sizeof(th));
	rc = evald_run(&e, &s, th, all_free, 1);
	ok(rc == 0 && colmax(&e, HET_P_V0, 2) <= 1e-12 *
	    colmax(&e, HET_P_V0, 0) && colmax(&e, HET_P_BETA, 2) <= 1e-12 *
	    colmax(&e, HET_P_BETA, 0) && colmax(&e, HET_P_V_OFFSET, 2) <=
	    1e-12 * colmax(&e, HET_P_V_OFFSET, 0),
	    "phi + phi0 = 90 deg: v0, beta, v_offset columns vanish (%.3g vs "
	    "%.3g at 23.85 deg)", rc == 0 ? colmax(&e, HET_P_V0, 2) : 0,
	    rc == 0 ? colmax(&e, HET_P_V0, 0) : 0);
	/* g is even in Phi and Phi = 0 there, so d g/d phi0 = 0 as well */
	ok(rc == 0 && colmax(&e, HET_P_PHI0, 2) <= 1e-12 *
	    colmax(&e, HET_P_PHI0, 0) && colmax(&e, HET_P_PHI0, 0) > 1e-4,
	    "... and so does phi0 (g is even in the phase): %.3g vs %.3g",
	    rc == 0 ? colmax(&e, HET_P_PHI0, 2) : 0,
	    rc == 0 ? colmax(&e, HET_P_PHI0, 0) : 0);
	evald_free(&e);
}

static void
test_columns_and_order(void)
{
	static const unsigned char some[NP] = {
		0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1
	};
	struct setup s;
	struct evald full, sub, outer, nod;
	double th[NP];
	size_t k, c, p, kk, n, a, i, j;
	int same = 1, rc;

	base_setup(&s);
	memcpy(th, typical, sizeof(th));
	th[HET_P_ALPHA_REF] = 0.62;
	rc = evald_run(&full, &s, th, all_free, 1);
	rc |= evald_run(&sub, &s, th, some, 1);
	rc |= evald_run(&outer, &s, th, all_free, 0);
	rc |= evald_run(&nod, &s, th, NULL, 1);
	ok(rc == 0 && full.nf == NP && sub.nf == 5 && nod.nf == 0,
	    "column counts follow the free flags (14, 5, 0)");
	if (rc != 0)
		goto out;
	for (k = 0; k < full.np; k++)
		for (c = 0, p = 0; p < NP; p++)
			if (some[p])
				same &= sub.dg[k * sub.nf + c++] ==
				    full.dg[k * NP + p];
	ok(same, "a free subset gives exactly the matching full columns");
	same = 1;
	for (k = 0; k < full.np; k++)
		same &= full.g[k] == nod.g[k] && full.g[k] == sub.g[k];
	ok(same, "g does not depend on which derivatives are asked for");

	/* angle-outer order: same numbers for the same (i, j, a) */
	same = 1;
	n = s.n;
	for (k = 0; k < outer.np; k++) {
		a = outer.pr[k].a;
		i = outer.pr[k].i;
		j = outer.pr[k].j;
		/* index of (i, j, a) in the angle-inner list */
		kk = (i * (2 * n - i - 1) / 2 + (j - i - 1)) * s.na + a;
		same &= full.pr[kk].i == i && full.pr[kk].j == j &&
		    outer.g[k] == full.g[kk] &&
		    memcmp(outer.dg + k * NP, full.dg + kk * NP,
		    NP * sizeof(double)) == 0;
	}
	ok(same, "pair order (angle inner or outer) does not change any bit");

	/* symmetry and the diagonal through het_model_eval_g */
	same = 1;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			same &= het_model_eval_g(full.ev, 1, i, j) ==
			    het_model_eval_g(full.ev, 1, j, i);
	ok(same, "het_model_eval_g is symmetric in i, j");
	ok(fabs(het_model_eval_g(full.ev, 0, 7, 7) - 1.0) < 1e-9,
	    "the diagonal is 1 up to the sabs bias (%.17g)",
	    het_model_eval_g(full.ev, 0, 7, 7));
out:
	evald_free(&full);
	evald_free(&sub);
	evald_free(&outer);
	evald_free(&nod);
}

struct half {
	const struct het_model_eval	*ev;
	const struct het_pair		*pr;
	size_t				 n, nf;
	double				*g, *dg;
};

static void *
half_run(void *arg)
{
	struct half *h = arg;

	het_model_eval_pairs(h->ev, h->n, h->pr, h->g, h->dg);
	return NULL;
}

static void
test_threads(void)
{
	struct setup s;
	struct evald e;
	struct half h[2];
	pthread_t tid[2];
	double th[NP], *g2 = NULL, *dg2 = NULL;
	size_t cut, k;
	int rc, t;

	base_setup(&s);
	s.n = 200;
	memcpy(th, typical, sizeof(th));
	rc = evald_run(&e, &s, th, all_free, 1);
	if (rc == 0) {
		g2 = calloc(e.np, sizeof(double));
		dg2 = calloc(e.np * e.nf, sizeof(double));
	}
	if (rc != 0 || g2 == NULL || dg2 == NULL) {
		ok(0, "threads: set up");
		goto out;
	}
	/* cut inside a run of pairs sharing (i, j) */
	cut = e.np / 2 + 1;
	for (k = 0; k < 2; k++) {
		h[k].ev = e.ev;
		h[k].nf = e.nf;
		h[k].pr = e.pr + (k ? cut : 0);
		h[k].n = k ? e.np - cut : cut;
		h[k].g = g2 + (k ? cut : 0);
		h[k].dg = dg2 + (k ? cut : 0) * e.nf;
	}
	for (t = 0; t < 2; t++)
		if (pthread_create(&tid[t], NULL, half_run, &h[t]) != 0) {
			ok(0, "threads: pthread_create");
			goto out;
		}
	for (t = 0; t < 2; t++)
		pthread_join(tid[t], NULL);
	ok(memcmp(g2, e.g, e.np * sizeof(double)) == 0 &&
	    memcmp(dg2, e.dg, e.np * e.nf * sizeof(double)) == 0,
	    "two threads on two halves (%zu pairs) give the one-pass bits",
	    e.np);
out:
	free(g2);
	free(dg2);
	evald_free(&e);
}

static void
test_errors(void)
{
	struct setup s;
	struct het_model *m;
	struct het_model_eval *ev = NULL;
	struct het_error err;
	double th[NP];

	base_setup(&s);
	m = make_model(&s, HET_MODE_TWO_COMPONENT);
	if (m == NULL || (ev = het_model_eval_alloc(m, &err)) == NULL) {
		ok(0, "errors: set up");
		goto out;
	}
	memcpy(th, typical, sizeof(th));
	th[HET_P_F2] = NAN;
	is_int(het_model_eval_prepare(ev, th, all_free, &err), HET_EINVAL,
	    "a NaN parameter is refused");
	like(err.msg, "parameter f2 is not finite", "and named");

	memcpy(th, typical, sizeof(th));
	th[HET_P_D0_SAMPLE] = 1e308;
	th[HET_P_ALPHA_SAMPLE] = 2.0;
	is_int(het_model_eval_prepare(ev, th, NULL, &err), HET_EINVAL,
	    "an overflowing rate integral is refused");
	like(err.msg, "the sample transport integral overflows over the "
	    "30-frame window", "the message names the integral and window");
	like(err.msg, "D0_sample 1e+308", "and shows the culprit values");

	memcpy(th, typical, sizeof(th));
	is_int(het_model_eval_prepare(ev, th, NULL, &err), HET_OK,
	    "the workspace is usable again after a refusal");
out:
	het_model_eval_free(ev);
	het_model_free(m);
}

int
main(void)
{
	plan_lazy();
	test_fixed();
	test_random();
	test_zero_columns();
	test_columns_and_order();
	test_threads();
	test_errors();
	return exit_status();
}
