/*
 * t_engine_fit_cancel.c: the brief report of a cancelled fit (issue 19:
 * a SIGTERM must end a fit with thousands of parameters at once, so
 * after a cancel the report skips the eigen-analysis of the p x p
 * normal matrix, the identifiability probes and combinations, the floor
 * restarts and the basin escape).
 *
 * Problem: a two-component truth set of bench_basin (basin_sim.h), 40
 * frames x 4 angles, all 14 physics parameters free plus 8 contrast /
 * offset columns (p = 22), noise 0.005, its first perturbed start.
 *
 * Checks (behaviour, not timing):
 *   - soft_l1 (the joint solver on all 22 columns), cancelled from the
 *     progress callback after 2 iterations: HET_ECANCEL; reason
 *     cancelled; brief = 1; no covariance or correlation (NULL), rank
 *     0, every uncertainty NaN (written as null), nothing flagged
 *     degenerate, no combinations; the warnings say it was cancelled and
 *     that the uncertainties were not computed; x is bit for bit the
 *     point the progress callback saw at iteration 2 and the cost is
 *     its cost; the same fit stopped by max_iterations 2 instead (basin
 *     off) gets the full report (covariance, finite uncertainties);
 *   - a cancel that comes with the last iteration (max_iterations 2,
 *     the flag set at iteration 2): HET_ECANCEL with the brief report,
 *     the reason stays max_iterations;
 *   - variable projection (linear loss), multistart (3 starts) and a
 *     cancel before the first iteration: brief reports, x inside the
 *     bounds;
 *   - a cancel during the restart off a floor (a start with J_ref
 *     clipped at every time): HET_ECANCEL, the first fit's result with
 *     its full report, no basin escape;
 *   - per-angle mode, cancelled in angle 1: angle 0 has its full
 *     report, angle 1 the brief one, angles 2 and 3 none;
 *   - the report's eigen-analysis in a child process (option
 *     eigen_fork_min 1, het_fit_eigen.c): the same report bit for bit
 *     as in the fit's thread; a cancel once the child runs
 *     (eigen_started sets the flag): HET_ECANCEL, the brief report of
 *     the converged point, and no child left (killed and reaped);
 *     without a cancel flag no child.
 * All comparisons are on the same machine within one run, so exact.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "basin_sim.h"
#include "het_fit.h"
#include "tap.h"

static const struct basin_set set = { 40, 4, 0.01, 0.1, 0.005, 22, {
    800.0, -0.2, 40.0, 3000.0, 0.4, 100.0, 300.0, -0.3, 10.0, 0.5, -0.02,
    10.0, 0.2, -3.0 } };

static struct het_pool *pool2;

/* Cancel once `angle` (-2: any) reports iteration `at`; keep the
   point and cost it reported then. */
struct canc {
	atomic_int	 flag;
	long		 at, angle;
	double		 x[64], cost;
};

static void
progress(void *ctx, const struct het_fit_progress *pr)
{
	struct canc *c = ctx;

	if ((c->angle == -2 || pr->angle == c->angle) && pr->iter >= c->at &&
	    !atomic_load(&c->flag)) {
		memcpy(c->x, pr->x, pr->p * sizeof(double));
		c->cost = pr->cost;
		atomic_store(&c->flag, 1);
	}
}

static void
opts(struct het_fit_options *o, struct canc *c, enum het_nlsq_loss loss)
{
	het_fit_default_options(o);
	o->nlsq.loss = loss;
	o->noise_sigma = set.sigma;
	o->chunk = 500;
	if (c != NULL) {
		o->cancel = &c->flag;
		o->progress = progress;
		o->progress_ctx = c;
	}
}

static void
canc_init(struct canc *c, long at, long angle)
{
	atomic_init(&c->flag, 0);
	c->at = at;
	c->angle = angle;
}

/* The brief report's promises; returns how many failed. */
static int
check_brief(const struct het_fit_result *r, const char *what)
{
	size_t k, nfin = 0, ndeg = 0, inside = 1;
	int bad = 0, said = 0, nc = 0;

	if (r == NULL) {
		ok(0, "%s: a result", what);
		return 1;
	}
	for (k = 0; k < r->p; k++) {
		nfin += isfinite(r->unc[k]) != 0;
		ndeg += r->degen[k] != 0;
		inside &= r->x[k] >= r->lo[k] && r->x[k] <= r->hi[k];
	}
	for (k = 0; k < r->nwarnings; k++) {
		nc += strstr(r->warnings[k], "cancelled") != NULL;
		said += strstr(r->warnings[k], "uncertainties, the covariance "
		    "and the identifiability analysis were not computed") !=
		    NULL;
	}
	bad += !ok(r->brief == 1 && r->cov == NULL && r->corr == NULL &&
	    r->rank == 0 && r->ncombos == 0, "%s: brief report (brief %d, "
	    "no covariance, rank %zu, %zu combinations)", what, r->brief,
	    r->rank, r->ncombos);
	bad += !ok(nfin == 0 && ndeg == 0, "%s: every uncertainty not "
	    "computed (%zu finite), none flagged degenerate (%zu)", what,
	    nfin, ndeg);
	bad += !ok(said == 1 && nc >= 1, "%s: the warnings say it was "
	    "cancelled and the uncertainties not computed", what);
	bad += !ok(inside && isfinite(r->cost) && isfinite(r->chi2_red),
	    "%s: x inside the bounds, cost %.6g and chi2_red finite", what,
	    r->cost);
	return bad;
}

static void
test_joint(const struct basin_sim *S)
{
	struct het_fit_options o;
	struct het_fit_result *rc2 = NULL, *rm = NULL;
	struct het_error err;
	struct canc c;
	size_t k, nfin = 0;
	int rc;

	/* Cancelled after iteration 2 (soft_l1: all 22 columns). */
	canc_init(&c, 2, -2);
	opts(&o, &c, HET_LOSS_SOFT_L1);
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rc2, &err);
	is_int(rc, HET_ECANCEL, "soft_l1 cancelled at iteration 2: "
	    "HET_ECANCEL");
	ok(rc2 != NULL && rc2->reason == HET_NLSQ_CANCELLED &&
	    rc2->iterations == 2 && !rc2->converged, "... reason cancelled "
	    "after 2 iterations");
	check_brief(rc2, "soft_l1 cancelled");
	ok(rc2 != NULL && memcmp(rc2->x, c.x, S->p * sizeof(double)) == 0,
	    "the cancelled fit keeps its point: x is bit for bit the one "
	    "reported at iteration 2");
	ok(rc2 != NULL && fabs(rc2->cost - c.cost) <= 1e-12 * c.cost,
	    "... and its cost (%.10g, reported %.10g) belongs to it",
	    rc2 != NULL ? rc2->cost : NAN, c.cost);
	/* The same fit stopped by the iteration limit: full report. */
	opts(&o, NULL, HET_LOSS_SOFT_L1);
	o.nlsq.max_iterations = 2;
	o.basin = -1;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rm, &err);
	ok(rc == HET_OK && rm != NULL && rm->reason == HET_NLSQ_MAX_ITER &&
	    rm->brief == 0 && rm->cov != NULL && rm->corr != NULL &&
	    rm->rank > 0, "max_iterations 2, not cancelled: the full report "
	    "(rank %zu)", rm != NULL ? rm->rank : 0);
	for (k = 0; rm != NULL && k < rm->p; k++)
		nfin += isfinite(rm->unc[k]) != 0;
	ok(nfin > 0, "... with %zu finite uncertainties of %zu", nfin,
	    rm != NULL ? rm->p : 0);
	het_fit_result_free(rc2);
	het_fit_result_free(rm);

	/* The cancel comes with the last iteration. */
	canc_init(&c, 2, -2);
	opts(&o, &c, HET_LOSS_SOFT_L1);
	o.nlsq.max_iterations = 2;
	rc2 = NULL;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rc2, &err);
	is_int(rc, HET_ECANCEL, "cancel with the last iteration: "
	    "HET_ECANCEL");
	ok(rc2 != NULL && rc2->reason == HET_NLSQ_MAX_ITER, "... the reason "
	    "stays max_iterations");
	check_brief(rc2, "cancel with the last iteration");
	het_fit_result_free(rc2);
}

static void
test_others(const struct basin_sim *S)
{
	struct het_fit_options o;
	struct het_fit_result *r = NULL;
	struct het_error err;
	struct canc c;
	int rc;

	/* Variable projection: the solver sees the 14 physics columns. */
	canc_init(&c, 1, -2);
	opts(&o, &c, HET_LOSS_LINEAR);
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &r, &err);
	is_int(rc, HET_ECANCEL, "linear loss (projected scaling) cancelled: "
	    "HET_ECANCEL");
	check_brief(r, "projected, cancelled");
	het_fit_result_free(r);

	/* Multistart: three starts on the pool. */
	canc_init(&c, 1, -2);
	opts(&o, &c, HET_LOSS_LINEAR);
	o.nlsq.multistart = 1;
	o.nlsq.multistart_n = 3;
	r = NULL;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &r, &err);
	is_int(rc, HET_ECANCEL, "multistart cancelled: HET_ECANCEL");
	ok(r != NULL && r->nstarts == 3, "... every start in the table");
	check_brief(r, "multistart, cancelled");
	het_fit_result_free(r);

	/* Before the first iteration: the start itself. */
	canc_init(&c, 0, -2);
	atomic_store(&c.flag, 1);
	opts(&o, &c, HET_LOSS_SOFT_L1);
	r = NULL;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &r, &err);
	is_int(rc, HET_ECANCEL, "cancelled before the start: HET_ECANCEL");
	ok(r != NULL && memcmp(r->x, S->X0, S->p * sizeof(double)) == 0,
	    "... x is the start");
	check_brief(r, "cancelled before the start");
	het_fit_result_free(r);
}

/* Cancel at the second start of a fit (the restart off a floor). */
static void
cancel_restart(void *ctx, const struct het_fit_progress *pr)
{
	struct canc *c = ctx;

	if (pr->iter == 0 && ++c->at == 2)
		atomic_store(&c->flag, 1);
}

/*
 * A start behind the floor of the reference rate (D0_ref at its lower
 * bound, D_offset_ref at -999: J_ref(t) < 0, clipped, at every time):
 * the fit ends with those parameters without effect and restarts off
 * the floor; cancelled there, het_fit_run returns HET_ECANCEL with the
 * first fit's result and its full report, and no basin escape runs.
 */
static void
test_floor(const struct basin_sim *S)
{
	struct het_fit_options o;
	struct het_fit_result *r = NULL;
	struct het_error err;
	struct canc c;
	double x0[64];
	int rc;

	memcpy(x0, S->X0, S->p * sizeof(double));
	x0[0] = S->lo[0];
	x0[2] = -999.0;
	canc_init(&c, 0, -2);
	opts(&o, &c, HET_LOSS_LINEAR);
	o.progress = cancel_restart;
	rc = het_fit_run(pool2, S->r, x0, S->lo, S->hi, &o, &r, &err);
	is_int(rc, HET_ECANCEL, "cancelled during the restart off a floor: "
	    "HET_ECANCEL (%ld starts seen)", c.at);
	like(err.msg, "during its restart off a floor", "... the message "
	    "says where");
	ok(r != NULL && r->brief == 0 && r->reason != HET_NLSQ_CANCELLED &&
	    r->nstarts == 1, "... the result is the first fit's, with its "
	    "full report and no escape start");
	het_fit_result_free(r);
}

static void
test_per_angle(const struct basin_sim *S)
{
	struct het_fit_options o;
	struct het_fit_result **res = NULL;
	struct het_error err;
	struct canc c;
	size_t n = 0;
	int rc;

	canc_init(&c, 1, 1);
	opts(&o, &c, HET_LOSS_SOFT_L1);
	rc = het_fit_run_per_angle(pool2, S->r, S->X0, S->lo, S->hi, &o,
	    &res, &n, &err);
	is_int(rc, HET_ECANCEL, "per-angle, cancelled in angle 1: "
	    "HET_ECANCEL");
	ok(n == 4 && res != NULL && res[0] != NULL && res[0]->brief == 0 &&
	    res[0]->cov != NULL && res[0]->rank > 0, "angle 0 (finished) has "
	    "its full report");
	if (n == 4 && res != NULL) {
		check_brief(res[1], "angle 1, cancelled");
		ok(res[2] == NULL && res[3] == NULL, "angles 2 and 3 did not "
		    "start");
	} else
		skip(5, "no per-angle results");
	het_fit_results_free(res, n);
}

/* eigen_started: count, and cancel when eigen_cancel is set (ctx: the
   struct canc). */
static int eigen_calls, eigen_cancel;

static void
eigen_started(void *ctx)
{
	struct canc *c = ctx;

	eigen_calls++;
	if (eigen_cancel)
		atomic_store(&c->flag, 1);
}

/* The report's eigen-analysis in a child process (het_fit_eigen.c). */
static void
test_eigen_fork(const struct basin_sim *S)
{
	struct het_fit_options o;
	struct het_fit_result *rin = NULL, *rfk = NULL, *rcn = NULL,
	    *rnc = NULL;
	struct het_error err;
	struct canc c;
	int rc, st;
	size_t p = S->p;

	/* In this thread (eigen_fork_min above p), then forked. */
	canc_init(&c, 1000000, -2);
	opts(&o, &c, HET_LOSS_SOFT_L1);
	o.basin = -1;
	o.eigen_fork_min = p + 1;
	o.eigen_started = eigen_started;
	eigen_calls = 0;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rin, &err);
	ok(rc == HET_OK && rin != NULL && rin->converged && eigen_calls == 0,
	    "eigen_fork_min %zu > p: converged, no child (%d calls)", p + 1,
	    eigen_calls);
	o.eigen_fork_min = 1;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rfk, &err);
	ok(rc == HET_OK && rfk != NULL && eigen_calls == 1, "eigen_fork_min "
	    "1: the eigen-analysis ran in a child (%d call)", eigen_calls);
	ok(rin != NULL && rfk != NULL && rfk->brief == 0 &&
	    memcmp(rin->x, rfk->x, p * sizeof(double)) == 0 &&
	    memcmp(rin->unc, rfk->unc, p * sizeof(double)) == 0 &&
	    memcmp(rin->cov, rfk->cov, p * p * sizeof(double)) == 0 &&
	    rin->rank == rfk->rank && rin->nwarnings == rfk->nwarnings,
	    "... the same report bit for bit (rank %zu, %zu warnings)",
	    rfk != NULL ? rfk->rank : 0, rfk != NULL ? rfk->nwarnings : 0);
	/* Cancelled once the child runs. */
	canc_init(&c, 1000000, -2);
	eigen_cancel = 1;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rcn, &err);
	is_int(rc, HET_ECANCEL, "a cancel during the eigen-analysis: "
	    "HET_ECANCEL");
	if (check_brief(rcn, "... the brief report") == 0)
		ok(memcmp(rcn->x, rfk->x, p * sizeof(double)) == 0 &&
		    rcn->cost == rfk->cost && rcn->converged,
		    "... of the converged point (x and cost bit for bit, "
		    "reason %s)", het_nlsq_reason_text(rcn->reason));
	errno = 0;
	ok(waitpid(-1, &st, WNOHANG) == -1 && errno == ECHILD, "... the "
	    "child was killed and reaped (no child left)");
	/* No cancel flag: no child even at eigen_fork_min 1. */
	eigen_cancel = 0;
	o.cancel = NULL;
	eigen_calls = 0;
	rc = het_fit_run(pool2, S->r, S->X0, S->lo, S->hi, &o, &rnc, &err);
	ok(rc == HET_OK && rnc != NULL && eigen_calls == 0 &&
	    memcmp(rnc->unc, rin->unc, p * sizeof(double)) == 0,
	    "no cancel flag: in this thread, the same report");
	het_fit_result_free(rin);
	het_fit_result_free(rfk);
	het_fit_result_free(rcn);
	het_fit_result_free(rnc);
}

int
main(void)
{
	struct het_error err;
	struct basin_sim *S;

	het_pool_blas_single_threaded();
	plan_lazy();
	pool2 = het_pool_alloc(2, &err);
	if (pool2 == NULL || (S = basin_sim_new(&set, 1, 0, &err)) == NULL) {
		diag("setup: %s", err.msg);
		return 1;
	}
	ok(S->p == 22, "the problem has 22 columns (%zu)", S->p);
	test_joint(S);
	test_others(S);
	test_floor(S);
	test_per_angle(S);
	test_eigen_fork(S);
	basin_sim_free(S);
	het_pool_free(pool2);
	done_testing();
	return exit_status();
}
