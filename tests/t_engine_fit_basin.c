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

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "basin_sim.h"
#include "het_fit.h"
#include "tap.h"

#define NF	100

/* A bench truth set and which of its drawn starts to use. */
struct set {
	struct basin_set	 ts;
	size_t			 start;
};

static const struct set setA = { { NF, 8, 0.01, 0.1, 0.005, 22, { 800.0,
    -0.2, 40.0, 3000.0, 0.4, 100.0, 300.0, -0.3, 10.0, 0.5, -0.02, 10.0,
    0.2, -3.0 } }, 0 };
static const struct set setB = { { NF, 12, 0.01, 0.1, 0.006, 55, {
    3000.0, 0.3, 100.0, 12000.0, -0.5, 200.0, 600.0, -0.2, 15.0, 0.4,
    -0.05, 2.0, 0.3, -5.0 } }, 9 };

static struct het_pool *pool2;

/* The problem of set z and its start (basin_sim.h). */
static struct basin_sim *
sim_new(const struct set *z, const double **x0)
{
	struct het_error err;
	struct basin_sim *S = basin_sim_new(&z->ts, z->start + 1, 0, &err);

	if (S == NULL) {
		diag("simulation: %s", err.msg);
		exit(1);
	}
	*x0 = S->X0 + z->start * S->p;
	return S;
}

static int
fit(const struct basin_sim *S, const struct set *z, const double *x0,
    int basin, struct het_fit_options *o, struct het_fit_result **res)
{
	struct het_error err;
	int rc;

	o->nlsq.loss = HET_LOSS_LINEAR;
	o->noise_sigma = z->ts.sigma;
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
	const double *x0;
	struct basin_sim *S = sim_new(&setA, &x0);
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
	rc = fit(S, &setA, x0, -1, &o, &lo);
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
	rc = fit(S, &setA, x0, 0, &o, &df);
	rd = df->cost / cmin;
	ok(rc == HET_OK && rd < 1.001, "A: the default fit reaches the true "
	    "minimum: %.6f (local %.4f)", rd, rl);
	ok(df->nstarts > 2 && df->best > 0 && df->best < df->nstarts,
	    "A: the escape starts are in the table (%zu starts, start %zu "
	    "won)", df->nstarts, df->best);
	ok(memcmp(df->starts[0].x0, x0, HET_P_HET_COUNT *
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
	o.noise_sigma = setA.ts.sigma;
	{
		struct het_error err;

		rc = het_fit_run(pool2, S->r, x0, S->lo, S->hi, &o, &c,
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
	basin_sim_free(S);
}

/* B: parameters stuck on a bound, the light escape. */
static void
check_set_b(void)
{
	struct het_fit_options o;
	struct het_fit_result *tr = NULL, *lo = NULL, *df = NULL, *ms = NULL;
	const double *x0;
	struct basin_sim *S = sim_new(&setB, &x0);
	double cmin, rl, rd;
	int rc;

	het_fit_default_options(&o);
	rc = fit(S, &setB, S->truth, 0, &o, &tr);
	cmin = tr->cost;
	ok(rc == HET_OK && tr->nstarts == 1 && tr->chi2_red < 1.05,
	    "B: from the truth no escape runs (%zu start, chi2_red %.4f)",
	    tr->nstarts, tr->chi2_red);
	het_fit_default_options(&o);
	rc |= fit(S, &setB, x0, -1, &o, &lo);
	rl = lo->cost / cmin;
	ok(rc == HET_OK, "B: one local fit: cost / true minimum %.5f, "
	    "chi2_red %.4f", rl, lo->chi2_red);
	if (rl > 1.003) {
		het_fit_default_options(&o);
		rc = fit(S, &setB, x0, 0, &o, &df);
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
	rc = fit(S, &setB, x0, -1, &o, &ms);
	ok(rc == HET_OK && ms->nstarts == 3, "B: basin -1 with multistart 3: "
	    "%zu starts", ms != NULL ? ms->nstarts : 0);
	het_fit_result_free(tr);
	het_fit_result_free(lo);
	het_fit_result_free(df);
	het_fit_result_free(ms);
	basin_sim_free(S);
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
