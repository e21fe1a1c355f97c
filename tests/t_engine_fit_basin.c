/*
 * t_engine_fit_basin.c: the basin strategy of the fit driver
 * (het_fit_basin.c, option `basin`) on simulated two-component data
 * (100 frames x 8 or 12 angles, all 14 physics parameters free,
 * individual contrast/offset, linear loss, seeded noise; the truth sets
 * and starts of an earlier bench/bench_basin run, where a single local
 * fit from these starts was seen to stop in a wrong basin).
 *
 * Checks:
 *   - set A (8 angles, noise 0.005), its first start: one local fit
 *     (basin = -1) ends far above the true minimum (measured 3.01x; the
 *     test needs > 1.5x, else the premise is not reproduced on this CPU
 *     and the escape checks are skipped), with an improbable chi-square;
 *     the default fit ends at the true minimum (measured 1.0000; needs
 *     < 1.001x), its table holds the first fit's start and the escape
 *     starts, `best` points at an escape start whose cost is the
 *     result's, and the message names the escape;
 *   - set B (12 angles, noise 0.006), its tenth start: one local fit
 *     ends 0.88 % above the true minimum with parameters on a bound
 *     (premise > 0.3 %), a difference no chi-square test sees; the
 *     default fit's release of the stuck parameters ends at the true
 *     minimum (< 1.001x);
 *   - from the truth of B no escape runs (one start; A's true minimum
 *     has parameters on a bound, so its light escape runs there), and
 *     basin = -1 with multistart gives exactly the multistart starts;
 *   - a cancel during the escape returns HET_ECANCEL with the first
 *     fit's result kept (cost of the local fit, one start table).
 * The true minimum is the default fit started at the truth.  Margins:
 * the wrong basins sit at 3.01x and 1.0088x, the escapes at 1.0000x.
 */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit.h"
#include "tap.h"

#define NF	100
#define NAMAX	12
#define NPMAX	(NAMAX * NF * (NF - 1) / 2)

struct set {
	size_t		 na;
	double		 sigma;
	unsigned long	 seed;
	size_t		 start;		/* which drawn start */
	double		 th[HET_P_HET_COUNT];
};

static const struct set setA = { 8, 0.005, 22, 0, { 800.0, -0.2, 40.0,
    3000.0, 0.4, 100.0, 300.0, -0.3, 10.0, 0.5, -0.02, 10.0, 0.2, -3.0 } };
static const struct set setB = { 12, 0.006, 55, 9, { 3000.0, 0.3, 100.0,
    12000.0, -0.5, 200.0, 600.0, -0.2, 15.0, 0.4, -0.05, 2.0, 0.3,
    -5.0 } };
static const double blo[HET_P_HET_COUNT] = {
	1.0, -2.0, -1e3, 1.0, -2.0, -1e3, 1e-3, -2.0, -100.0, 0.0, -1.0,
	-100.0, 0.0, -10.0
};
static const double bhi[HET_P_HET_COUNT] = {
	1e5, 2.0, 1e3, 1e5, 2.0, 1e3, 1e4, 2.0, 100.0, 1.0, 1.0, 100.0, 1.0,
	10.0
};

struct sim {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		*pairs;
	double			*y;
	double			 phi[NAMAX];
	size_t			 n, p;
	double			 truth[64], x0[64], lo[64], hi[64];
};

static struct het_pool *pool2;

static void
fail_exit(const char *what, const struct het_error *err)
{
	diag("%s: %s", what, err->msg);
	exit(1);
}

/* The data and start of bench_basin (same generator and seeds). */
static struct sim *
sim_new(const struct set *ts)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_resid_eval *ev;
	struct het_error err;
	struct sim *S = calloc(1, sizeof(*S));
	double *s, u, x[64];
	size_t a, i, j, k, nph = HET_P_HET_COUNT, na = ts->na;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	if (S == NULL || rng == NULL)
		exit(1);
	S->n = na * NF * (NF - 1) / 2;
	S->p = nph + 2 * na;
	S->pairs = malloc(S->n * sizeof(*S->pairs));
	S->y = malloc(S->n * sizeof(double));
	if (S->pairs == NULL || S->y == NULL)
		exit(1);
	s = S->truth + nph;
	for (a = 0; a < na; a++) {
		S->phi[a] = -90.0 + 180.0 * ((double)a + 0.5) / (double)na;
		s[a] = 0.22 + 0.03 * sin(1.3 * (double)a + (double)ts->seed);
		s[na + a] = 1.0 + 0.002 * cos(0.7 * (double)a);
	}
	memcpy(S->truth, ts->th, sizeof(ts->th));
	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = NF;
	ms.n_angles = na;
	ms.phi = S->phi;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, na, S->phi);
	if ((S->m = het_model_alloc(&ms, &err)) == NULL ||
	    (S->sc = het_scaling_alloc(&ss, &err)) == NULL)
		fail_exit("sim", &err);
	k = 0;
	for (a = 0; a < na; a++)
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, k++) {
				S->pairs[k].i = (uint32_t)i;
				S->pairs[k].j = (uint32_t)j;
				S->pairs[k].a = (uint32_t)a;
			}
	memset(&rs, 0, sizeof(rs));
	rs.model = S->m;
	rs.scaling = S->sc;
	rs.theta = ts->th;
	rs.s = s;
	rs.n = S->n;
	rs.pairs = S->pairs;
	rs.y = S->y;
	if ((S->r = het_resid_alloc(&rs, &err)) == NULL)
		fail_exit("sim", &err);
	het_resid_bounds(S->r, S->lo, S->hi);
	memcpy(S->lo, blo, sizeof(blo));
	memcpy(S->hi, bhi, sizeof(bhi));
	if ((ev = het_resid_eval_alloc(S->r, &err)) == NULL ||
	    het_resid_prepare(ev, S->truth, 0, &err) != HET_OK)
		fail_exit("sim", &err);
	het_resid_eval_model(ev, 0, S->n, S->y);
	het_resid_eval_free(ev);
	gsl_rng_set(rng, 1000 + ts->seed);
	for (k = 0; k < S->n; k++)
		S->y[k] += gsl_ran_gaussian(rng, ts->sigma);
	/* Starts 0 .. ts->start drawn in order; the last one is used. */
	gsl_rng_set(rng, 2000 + ts->seed);
	for (i = 0; i <= ts->start; i++)
		for (k = 0; k < nph; k++) {
			u = 0.1 + 0.2 * gsl_rng_uniform(rng);
			if (gsl_rng_uniform(rng) < 0.5)
				u = -u;
			x[k] = fmin(fmax(ts->th[k] * (1.0 + u), S->lo[k]),
			    S->hi[k]);
		}
	gsl_rng_free(rng);
	memcpy(S->x0, x, nph * sizeof(double));
	if (het_scaling_estimate(S->sc, S->n, S->pairs, S->y, S->x0 + nph,
	    S->x0 + nph + na, &err) != HET_OK)
		fail_exit("scaling estimate", &err);
	for (k = nph; k < S->p; k++)
		S->x0[k] = fmin(fmax(S->x0[k], S->lo[k]), S->hi[k]);
	return S;
}

static void
sim_free(struct sim *S)
{
	het_resid_free(S->r);
	het_scaling_free(S->sc);
	het_model_free(S->m);
	free(S->pairs);
	free(S->y);
	free(S);
}

static int
fit(const struct sim *S, const struct set *ts, const double *x0, int basin,
    struct het_fit_options *o, struct het_fit_result **res)
{
	struct het_error err;
	int rc;

	o->nlsq.loss = HET_LOSS_LINEAR;
	o->noise_sigma = ts->sigma;
	o->basin = basin;
	rc = het_fit_run(pool2, S->r, x0, S->lo, S->hi, o, res, &err);
	if (rc != HET_OK)
		diag("fit: %s", err.msg);
	return rc;
}

/* Cancel the fit once the escape (more than one start) runs. */
static void
cancel_in_escape(void *ctx, const struct het_fit_progress *pr)
{
	if (pr->nstarts > 1)
		atomic_store((atomic_int *)ctx, 1);
}

/* A: an improbable chi-square, the full escape. */
static void
check_set_a(void)
{
	struct het_fit_options o;
	struct het_fit_result *tr = NULL, *lo = NULL, *df = NULL, *c = NULL;
	struct sim *S = sim_new(&setA);
	double cmin, rl, rd;
	atomic_int cancel = 0;
	size_t k, nbad = 0;
	int rc;

	het_fit_default_options(&o);
	rc = fit(S, &setA, S->truth, 0, &o, &tr);
	ok(rc == HET_OK && tr->converged && tr->chi2_red < 1.05,
	    "A: from the truth: chi2_red %.4f (%zu starts: the true minimum "
	    "has alpha_ref and f3 on a bound, so the light escape runs)",
	    tr != NULL ? tr->chi2_red : NAN, tr != NULL ? tr->nstarts : 0);
	cmin = tr->cost;
	het_fit_default_options(&o);
	rc = fit(S, &setA, S->x0, -1, &o, &lo);
	rl = lo->cost / cmin;
	ok(rc == HET_OK && lo->nstarts == 1, "A: one local fit: cost / true "
	    "minimum %.4f, chi2_red %.4f", rl, lo->chi2_red);
	if (!(rl > 1.5)) {
		diag("A: local cost ratio %.4f", rl);
		skip(5, "A: the single local fit reached the true basin on "
		    "this CPU; the escape has nothing to show");
		goto cancel;
	}
	het_fit_default_options(&o);
	rc = fit(S, &setA, S->x0, 0, &o, &df);
	rd = df->cost / cmin;
	ok(rc == HET_OK && rd < 1.001, "A: the default fit reaches the true "
	    "minimum: %.6f (local %.4f)", rd, rl);
	ok(df->nstarts > 2 && df->best > 0 && df->best < df->nstarts,
	    "A: the escape starts are in the table (%zu starts, start %zu "
	    "won)", df->nstarts, df->best);
	ok(memcmp(df->starts[0].x0, S->x0, HET_P_HET_COUNT *
	    sizeof(double)) == 0 && fabs(df->starts[0].cost - lo->cost) <=
	    1e-9 * lo->cost, "A: start 0 is the given start and its cost "
	    "is the local fit's");
	ok(fabs(df->starts[df->best].cost - df->cost) <= 1e-9 * df->cost &&
	    strstr(df->message, "basin escape") != NULL,
	    "A: best start's cost is the result's; message: %s",
	    df->message);
	for (k = 0; k < df->nstarts; k++)
		if (df->starts[k].x == NULL || df->starts[k].x0 == NULL ||
		    df->starts[k].cost < df->cost * (1.0 - 1e-9)) {
			diag("start %zu: cost %.17g (best %.17g)", k,
			    df->starts[k].cost, df->cost);
			nbad++;
		}
	ok(nbad == 0, "A: every start has its vectors and none ends below "
	    "the best");
cancel:
	/* Cancel inside the escape: the first fit's result is kept. */
	het_fit_default_options(&o);
	o.cancel = &cancel;
	o.progress = cancel_in_escape;
	o.progress_ctx = &cancel;
	o.nlsq.loss = HET_LOSS_LINEAR;
	o.noise_sigma = setA.sigma;
	{
		struct het_error err;

		rc = het_fit_run(pool2, S->r, S->x0, S->lo, S->hi, &o, &c,
		    &err);
	}
	if (rl > 1.5)
		ok(rc == HET_ECANCEL && c != NULL && c->nstarts == 1 &&
		    fabs(c->cost - lo->cost) <= 1e-9 * lo->cost,
		    "A: a cancel in the escape returns HET_ECANCEL and the "
		    "first fit (rc %d)", rc);
	else
		skip(1, "A: no escape on this CPU");
	het_fit_result_free(tr);
	het_fit_result_free(lo);
	het_fit_result_free(df);
	het_fit_result_free(c);
	sim_free(S);
}

/* B: parameters stuck on a bound, the light escape. */
static void
check_set_b(void)
{
	struct het_fit_options o;
	struct het_fit_result *tr = NULL, *lo = NULL, *df = NULL, *ms = NULL;
	struct sim *S = sim_new(&setB);
	double cmin, rl, rd;
	int rc;

	het_fit_default_options(&o);
	rc = fit(S, &setB, S->truth, 0, &o, &tr);
	cmin = tr->cost;
	ok(rc == HET_OK && tr->nstarts == 1 && tr->chi2_red < 1.05,
	    "B: from the truth no escape runs (%zu start, chi2_red %.4f)",
	    tr->nstarts, tr->chi2_red);
	het_fit_default_options(&o);
	rc |= fit(S, &setB, S->x0, -1, &o, &lo);
	rl = lo->cost / cmin;
	ok(rc == HET_OK, "B: one local fit: cost / true minimum %.5f, "
	    "chi2_red %.4f", rl, lo->chi2_red);
	if (rl > 1.003) {
		het_fit_default_options(&o);
		rc = fit(S, &setB, S->x0, 0, &o, &df);
		rd = df->cost / cmin;
		ok(rc == HET_OK && rd < 1.001 && df->nstarts > 1,
		    "B: the default fit reaches the true minimum: %.6f "
		    "(local %.5f, %zu starts, start %zu won)", rd, rl,
		    df->nstarts, df->best);
	} else
		skip(1, "B: the single local fit reached the true basin on "
		    "this CPU");
	/* basin off: multistart gives exactly its starts. */
	het_fit_default_options(&o);
	o.nlsq.multistart = 1;
	o.nlsq.multistart_n = 3;
	rc = fit(S, &setB, S->x0, -1, &o, &ms);
	ok(rc == HET_OK && ms->nstarts == 3, "B: basin -1 with multistart 3: "
	    "%zu starts", ms != NULL ? ms->nstarts : 0);
	het_fit_result_free(tr);
	het_fit_result_free(lo);
	het_fit_result_free(df);
	het_fit_result_free(ms);
	sim_free(S);
}

int
main(void)
{
	struct het_error err;

	het_pool_blas_single_threaded();
	if ((pool2 = het_pool_alloc(2, &err)) == NULL) {
		diag("pool: %s", err.msg);
		return 1;
	}
	plan(12);
	check_set_a();
	check_set_b();
	het_pool_free(pool2);
	return exit_status();
}
