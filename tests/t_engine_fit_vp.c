/*
 * t_engine_fit_vp.c: variable projection, speculative passes and
 * multistart screening of the fit driver (het_fit_vp.c, het_fit.c) on
 * simulated heterodyne data (50 frames x 3 angles = 3,675 pairs,
 * the mode's default free parameters, individual contrast/offset,
 * seeded noise).
 *
 * Checks:
 *   - the projected fit (default for the linear loss) and the joint fit
 *     (scaling_joint = 1) reach the same minimum: costs to 1e-10
 *     relative, every parameter to 1e-5 relative, with no more
 *     iterations for the projected one; its x is strictly inside the
 *     bounds and its cost is the cost at x;
 *   - a contrast whose best value lies beyond its upper bound ends just
 *     inside the bound in both fits, with the same cost (1e-8, the
 *     agreement asked of hetui and SciPy);
 *   - speculation: fewer data passes than cost plus normal-equation
 *     evaluations, the same result with and without a pool;
 *   - a robust loss never projects (bit-identical to scaling_joint);
 *   - screening: with screen_iter 3 and screen_keep 1, every start but
 *     the best and start 0 stops after 3 iterations as "screened", the
 *     best start converges; screen_iter -1 screens none;
 *   - the early-window pre-fit: 30 of 50 frames first, then the same
 *     minimum as without it (1e-10), progress records flagged by stage,
 *     bit-identical with and without a pool; a cancel during the pre-fit
 *     returns its last point with a consistent cost; no pre-fit for
 *     W >= N, for a window with fewer pairs than parameters, or (auto)
 *     below 600 frames;
 *   - the separable sums against the pair kernel (pair_kernel 1):
 *     projected, joint and per-angle fits reach the same minimum, the
 *     reported cost is the pairs' cost at x, the passes say which sums
 *     they used, a robust loss never uses them; a start too steep for
 *     the separable sums falls back to the pair kernel.
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
#include "het_params.h"
#include "tap.h"

#define NF	50
#define NA	3
#define NPAIR	(NA * NF * (NF - 1) / 2)

static const double phi3[NA] = { -33.1, 14.2, 61.7 };
static const double th[HET_P_HET_COUNT] = {
	12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.219, 12.7,
	0.413, 0.0519, 0.317, 0.1093, 3.31
};

struct sim {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		 pairs[NPAIR];
	double			 y[NPAIR];
	size_t			 p;
	double			 truth[32], x0[32], lo[32], hi[32];
};

static struct het_pool *pool2;

static struct sim *
sim_new(enum het_mode mode, double noise, double pert)
{
	static const double sgn[5] = { 1, -0.8, 0.6, -1, 0.9 };
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_resid_eval *ev;
	struct het_error err;
	struct sim *S = calloc(1, sizeof(*S));
	double s[2 * NA];
	unsigned char fr[HET_MAX_PHYS];
	size_t a, i, j, k, n = 0;
	gsl_rng *rng;

	memset(&ms, 0, sizeof(ms));
	ms.mode = mode;
	ms.q = 0.0102;
	ms.dt = 0.0123;
	ms.start_frame = 2;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi3;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, NA, phi3);
	if ((S->m = het_model_alloc(&ms, &err)) == NULL ||
	    (S->sc = het_scaling_alloc(&ss, &err)) == NULL) {
		diag("sim: %s", err.msg);
		exit(1);
	}
	for (a = 0; a < NA; a++) {
		s[a] = 0.29 + 0.041 * (double)a;
		s[NA + a] = 1.0 + 0.0093 * ((double)a - 1.0);
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, n++) {
				S->pairs[n].i = (uint32_t)i;
				S->pairs[n].j = (uint32_t)j;
				S->pairs[n].a = (uint32_t)a;
			}
	}
	for (k = 0; k < het_mode_nphys(mode); k++)
		fr[k] = (unsigned char)het_mode_default_vary(mode, k);
	memset(&rs, 0, sizeof(rs));
	rs.free = fr;
	rs.model = S->m;
	rs.scaling = S->sc;
	rs.theta = th;
	rs.s = s;
	rs.n = n;
	rs.pairs = S->pairs;
	rs.y = S->y;
	if ((S->r = het_resid_alloc(&rs, &err)) == NULL) {
		diag("sim: %s", err.msg);
		exit(1);
	}
	S->p = het_resid_nparams(S->r);
	het_resid_x0(S->r, S->truth);
	het_resid_bounds(S->r, S->lo, S->hi);
	ev = het_resid_eval_alloc(S->r, &err);
	het_resid_prepare(ev, S->truth, 0, &err);
	het_resid_eval_model(ev, 0, n, S->y);
	het_resid_eval_free(ev);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 4242);
	for (k = 0; k < n && noise > 0; k++)
		S->y[k] += gsl_ran_gaussian(rng, noise);
	gsl_rng_free(rng);
	for (k = 0; k < S->p; k++)
		S->x0[k] = fmin(fmax(S->truth[k] * (1 + pert * sgn[k % 5]),
		    S->lo[k]), S->hi[k]);
	return S;
}

static void
sim_free(struct sim *S)
{
	het_resid_free(S->r);
	het_scaling_free(S->sc);
	het_model_free(S->m);
	free(S);
}

static void
opts(struct het_fit_options *o)
{
	het_fit_default_options(o);
	o->nlsq.loss = HET_LOSS_LINEAR;
	o->nlsq.ftol = 1e-14;
	o->nlsq.xtol = 1e-14;
	o->nlsq.gtol = 1e-14;
	o->nlsq.max_nfev = 2000;
	o->chunk = 613;
}

/* 1/2 sum r^2 at x, evaluated directly. */
static double
cost_at(const struct sim *S, const double *x)
{
	static double res[NPAIR];
	struct het_resid_eval *ev;
	struct het_resid_scratch *scr;
	struct het_error err;
	double c = 0;
	size_t k;

	ev = het_resid_eval_alloc(S->r, &err);
	scr = het_resid_scratch_alloc(S->r, 256, &err);
	het_resid_prepare(ev, x, 0, &err);
	het_resid_eval_rows(ev, scr, 0, NPAIR, res, NULL);
	for (k = 0; k < NPAIR; k++)
		c += 0.5 * res[k] * res[k];
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
	return c;
}

static void
test_projection(void)
{
	struct sim *S = sim_new(HET_MODE_STATIC_BOTH, 0.002, 0.05);
	struct het_fit_options o;
	struct het_fit_result *vp = NULL, *jt = NULL, *np = NULL;
	struct het_error err;
	size_t k, inside = 1;
	double zmax = 0;
	int rc1, rc2, rc3;

	opts(&o);
	rc1 = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &vp, &err);
	rc3 = het_fit_run(NULL, S->r, S->x0, NULL, NULL, &o, &np, &err);
	o.scaling_joint = 1;
	rc2 = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &jt, &err);
	ok(rc1 == HET_OK && rc2 == HET_OK && rc3 == HET_OK && vp->converged &&
	    jt->converged, "projection: projected and joint fits converged "
	    "(%s / %s)", het_nlsq_reason_name(vp->reason),
	    het_nlsq_reason_name(jt->reason));
	is_rel(vp->cost, jt->cost, 1e-10, "projection: same minimum cost "
	    "(%.12g / %.12g)", vp->cost, jt->cost);
	for (k = 0; k < S->p; k++)
		zmax = fmax(zmax, fabs(vp->x[k] - jt->x[k]) / vp->unc[k]);
	ok(zmax < 1e-3, "projection: same x (max difference %.2g "
	    "uncertainties)", zmax);
	ok(vp->iterations <= jt->iterations, "projection: %ld iterations, "
	    "joint %ld", vp->iterations, jt->iterations);
	for (k = 0; k < S->p; k++)
		if (!(vp->x[k] > S->lo[k] && vp->x[k] < S->hi[k]))
			inside = 0;
	ok(inside, "projection: x strictly inside the bounds");
	is_rel(vp->cost, cost_at(S, vp->x), 1e-12, "projection: the cost "
	    "belongs to x");
	ok(vp->npass > 0 && vp->npass < vp->nfev + vp->njev,
	    "speculation: %ld data passes for %ld cost and %ld normal-"
	    "equation evaluations", vp->npass, vp->nfev, vp->njev);
	ok(memcmp(vp->x, np->x, S->p * sizeof(double)) == 0 &&
	    vp->cost == np->cost && vp->npass == np->npass,
	    "speculation: bit-identical with and without a pool");
	diag("projection: %ld iterations, %ld passes; joint: %ld iterations, "
	    "%ld passes", vp->iterations, vp->npass, jt->iterations,
	    jt->npass);
	het_fit_result_free(vp);
	het_fit_result_free(jt);
	het_fit_result_free(np);
	sim_free(S);
}

static void
test_active_bound(void)
{
	struct sim *S = sim_new(HET_MODE_STATIC_REF, 0.002, 0.1);
	struct het_fit_options o;
	struct het_fit_result *vp = NULL, *jt = NULL;
	struct het_error err;
	double hi[32];
	size_t c1 = S->p - 2 * NA + 1;	/* contrast[1], truth 0.331 */
	int rc1, rc2;

	memcpy(hi, S->hi, sizeof(hi));
	hi[c1] = 0.3;
	S->x0[c1] = 0.25;
	opts(&o);
	rc1 = het_fit_run(pool2, S->r, S->x0, NULL, hi, &o, &vp, &err);
	o.scaling_joint = 1;
	rc2 = het_fit_run(pool2, S->r, S->x0, NULL, hi, &o, &jt, &err);
	ok(rc1 == HET_OK && rc2 == HET_OK, "active bound: both fits ran");
	diag("active bound: projected %ld iterations (%s), joint %ld (%s)",
	    vp->iterations, het_nlsq_reason_name(vp->reason), jt->iterations,
	    het_nlsq_reason_name(jt->reason));
	ok(vp->x[c1] < 0.3 && vp->x[c1] > 0.3 - 1e-8, "active bound: "
	    "projected %s = %.12g just inside its bound 0.3",
	    vp->names[c1], vp->x[c1]);
	ok(jt->x[c1] < 0.3 && jt->x[c1] > 0.3 - 1e-6, "active bound: joint "
	    "%s = %.12g at its bound", jt->names[c1], jt->x[c1]);
	is_rel(vp->cost, jt->cost, 1e-8, "active bound: same cost (%.12g / "
	    "%.12g)", vp->cost, jt->cost);
	het_fit_result_free(vp);
	het_fit_result_free(jt);
	sim_free(S);
}

static void
test_robust(void)
{
	struct sim *S = sim_new(HET_MODE_STATIC_REF, 0.002, 0.1);
	struct het_fit_options o;
	struct het_fit_result *a = NULL, *b = NULL;
	struct het_error err;

	opts(&o);
	o.nlsq.loss = HET_LOSS_SOFT_L1;
	o.nlsq.f_scale = 0.003;
	het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &a, &err);
	o.scaling_joint = 1;
	het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &b, &err);
	ok(a != NULL && b != NULL && memcmp(a->x, b->x, S->p *
	    sizeof(double)) == 0 && a->iterations == b->iterations,
	    "soft_l1: never projected (identical to scaling_joint)");
	het_fit_result_free(a);
	het_fit_result_free(b);
	sim_free(S);
}

static void
test_screening(void)
{
	struct sim *S = sim_new(HET_MODE_STATIC_BOTH, 0.0, 0.05);
	struct het_fit_options o;
	struct het_fit_result *res = NULL, *all = NULL;
	struct het_error err;
	size_t k, nscr = 0, bad = 0, nscr_all = 0;
	int rc;

	opts(&o);
	o.nlsq.multistart = 1;
	o.nlsq.multistart_n = 6;
	o.nlsq.max_nfev = 300;
	o.screen_iter = 3;
	o.screen_keep = 1;
	rc = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &res, &err);
	ok(rc == HET_OK, "screening: ran");
	for (k = 0; k < res->nstarts; k++) {
		const struct het_fit_start *st = &res->starts[k];

		diag("start %zu: cost %.4g, %ld iterations, %s", k, st->cost,
		    st->iterations, het_nlsq_reason_name(st->reason));
		if (st->reason == HET_NLSQ_SCREENED) {
			nscr++;
			if (st->iterations != 3 || k == 0 || k == res->best)
				bad++;
		} else if (k != 0 && k != res->best && st->status == HET_OK &&
		    st->iterations > 3)
			bad++;
	}
	ok(nscr >= 1 && bad == 0, "screening: %zu starts screened after 3 "
	    "iterations; only start 0 and the best went on", nscr);
	ok(res->converged && res->cost < 1e-20, "screening: the best start "
	    "converged (cost %.3g)", res->cost);
	like(het_nlsq_reason_text(HET_NLSQ_SCREENED), "screening",
	    "screening: the reason says why");
	is_str(het_nlsq_reason_name(HET_NLSQ_SCREENED), "screened",
	    "screening: reason name");
	o.screen_iter = -1;
	rc = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &all, &err);
	for (k = 0; rc == HET_OK && k < all->nstarts; k++)
		if (all->starts[k].reason == HET_NLSQ_SCREENED)
			nscr_all++;
	ok(rc == HET_OK && nscr_all == 0, "screening off: no start screened");
	het_fit_result_free(res);
	het_fit_result_free(all);
	sim_free(S);
}

static int nstage1, nstage0;

static void
count_stage(void *ctx, const struct het_fit_progress *pr)
{
	(void)ctx;
	if (pr->stage)
		nstage1++;
	else
		nstage0++;
}

static atomic_int stop_flag;

static void
stop_in_prefit(void *ctx, const struct het_fit_progress *pr)
{
	(void)ctx;
	if (pr->stage && pr->iter >= 2)
		atomic_store(&stop_flag, 1);
}

static void
test_window(void)
{
	struct sim *S = sim_new(HET_MODE_STATIC_BOTH, 0.002, 0.05);
	struct het_fit_options o;
	struct het_fit_result *w = NULL, *w1 = NULL, *plain = NULL;
	struct het_fit_result *big = NULL, *tiny = NULL;
	struct het_error err;
	int rc;

	opts(&o);
	o.window_frames = -1;
	het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &plain, &err);
	o.window_frames = 30;
	o.progress = count_stage;
	rc = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &w, &err);
	ok(rc == HET_OK && w->converged && w->window_frames == 30 &&
	    w->window_iterations > 0, "window: a %ld-iteration pre-fit on "
	    "the first 30 frames, then converged (%s)",
	    rc == HET_OK ? w->window_iterations : -1L,
	    rc == HET_OK ? het_nlsq_reason_name(w->reason) : err.msg);
	ok(nstage1 > 0 && nstage0 > 0, "window: progress marks the pre-fit "
	    "(%d records) and the fit (%d)", nstage1, nstage0);
	is_rel(w->cost, plain->cost, 1e-10, "window: same minimum as "
	    "without (%.12g)", plain->cost);
	ok(w->n == NPAIR && plain->window_frames == 0, "window: the result "
	    "covers all %d pairs; window_frames -1 runs no pre-fit", NPAIR);
	o.progress = NULL;
	het_fit_run(NULL, S->r, S->x0, NULL, NULL, &o, &w1, &err);
	ok(memcmp(w->x, w1->x, S->p * sizeof(double)) == 0 &&
	    w->cost == w1->cost, "window: bit-identical with and without "
	    "a pool");
	o.window_frames = NF;
	het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &big, &err);
	ok(big != NULL && big->window_frames == 0, "window: none when W "
	    ">= the frames");
	o.window_frames = 3;
	rc = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &tiny, &err);
	ok(rc == HET_OK && tiny->window_frames == 0 && tiny->converged,
	    "window: 3 frames (9 pairs < %zu parameters) are skipped",
	    S->p);
	/* Cancelled during the pre-fit: its last point, consistent. */
	o.window_frames = 30;
	o.progress = stop_in_prefit;
	o.cancel = &stop_flag;
	atomic_store(&stop_flag, 0);
	het_fit_result_free(w1);
	w1 = NULL;
	rc = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &w1, &err);
	ok(rc == HET_ECANCEL && w1 != NULL && w1->reason ==
	    HET_NLSQ_CANCELLED && w1->window_iterations == 2,
	    "window: a cancel in the pre-fit stops after its 2nd iteration");
	ok(w1 != NULL && memcmp(w1->x, w1->x0, S->p * sizeof(double)) ==
	    0 && memcmp(w1->x, S->x0, S->p * sizeof(double)) != 0,
	    "window: the result is the pre-fit's point");
	is_rel(w1 != NULL ? w1->cost : 0, cost_at(S, w1->x), 1e-12,
	    "window: its cost belongs to x");
	o.cancel = NULL;
	o.progress = NULL;
	o.window_frames = 0;
	het_fit_result_free(big);
	big = NULL;
	het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &big, &err);
	ok(big != NULL && big->window_frames == 0, "window: auto needs at "
	    "least %d frames", 2 * HET_FIT_WINDOW);
	het_fit_result_free(w);
	het_fit_result_free(w1);
	het_fit_result_free(plain);
	het_fit_result_free(big);
	het_fit_result_free(tiny);
	sim_free(S);
}

/*
 * The largest |a - b| in units of b's uncertainty over the parameters
 * that have one in both (a degenerate one may end anywhere along its
 * null direction at the same cost); NAN when none has.
 */
static double
zdiff(const struct het_fit_result *a, const struct het_fit_result *b)
{
	double z = NAN;
	size_t k;

	for (k = 0; k < a->p; k++)
		if (isfinite(a->unc[k]) && isfinite(b->unc[k]) &&
		    b->unc[k] > 0)
			z = fmax(z, fabs(a->x[k] - b->x[k]) / b->unc[k]);
	return z;
}

/*
 * The separable sums (het_fit_sep.c) against the pair kernel on the
 * same problem: projected, joint and per-angle fits reach the same
 * minimum (cost 1e-9 relative, x within 1e-3 uncertainties), the report
 * is the pair kernel's (its cost is the cost at x), and the passes say
 * which sums they used; a robust loss never uses them.
 */
static void
test_separable(void)
{
	struct sim *S = sim_new(HET_MODE_TWO_COMPONENT, 0.002, 0.1);
	struct het_fit_options o;
	struct het_fit_result *sp = NULL, *pk = NULL, *jt = NULL, *rb = NULL;
	struct het_fit_result *jp = NULL;
	struct het_fit_result **pa = NULL, **pb = NULL;
	struct het_error err;
	size_t na = 0, nb = 0, a;
	double zpa = 0, cpa = 0;
	int rc, sep_pa = 1;

	opts(&o);
	rc = het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &sp, &err);
	o.pair_kernel = 1;
	rc |= het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &pk, &err);
	rc |= het_fit_run_per_angle(pool2, S->r, S->x0, NULL, NULL, &o, &pb,
	    &nb, &err);
	o.pair_kernel = 0;
	rc |= het_fit_run_per_angle(pool2, S->r, S->x0, NULL, NULL, &o, &pa,
	    &na, &err);
	o.scaling_joint = 1;
	rc |= het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &jt, &err);
	o.pair_kernel = 1;
	rc |= het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &jp, &err);
	o.pair_kernel = 0;
	o.scaling_joint = 0;
	o.nlsq.loss = HET_LOSS_SOFT_L1;
	rc |= het_fit_run(pool2, S->r, S->x0, NULL, NULL, &o, &rb, &err);
	if (rc != HET_OK || na != NA || nb != NA) {
		ok(0, "separable: every fit runs (%s)", err.msg);
		goto out;
	}
	ok(sp->converged && pk->converged && jt->converged,
	    "separable: the fits converge (%s, %s, %s)",
	    het_nlsq_reason_name(sp->reason),
	    het_nlsq_reason_name(pk->reason),
	    het_nlsq_reason_name(jt->reason));
	ok(sp->nsep > 0 && sp->nsep == sp->npass && jt->nsep == jt->npass &&
	    pk->nsep == 0 && jp->nsep == 0 && rb->nsep == 0, "separable: "
	    "every pass of the linear loss (%ld of %ld; joint %ld), none with "
	    "pair_kernel or a robust loss", sp->nsep, sp->npass, jt->nsep);
	is_rel(sp->cost, pk->cost, 1e-9, "separable: the pair kernel's "
	    "minimum (%.12g / %.12g)", sp->cost, pk->cost);
	is_rel(jt->cost, jp->cost, 1e-9, "separable: joint fit, the pair "
	    "kernel's joint minimum");
	ok(zdiff(sp, pk) < 1e-3, "separable: the same x (%.2g "
	    "uncertainties)", zdiff(sp, pk));
	is_rel(sp->cost, cost_at(S, sp->x), 1e-12, "separable: the reported "
	    "cost is the pairs' cost at x");
	for (a = 0; a < NA; a++) {
		zpa = fmax(zpa, isnan(zdiff(pa[a], pb[a])) ? 1 :
		    zdiff(pa[a], pb[a]));
		cpa = fmax(cpa, fabs(pa[a]->cost - pb[a]->cost) /
		    pb[a]->cost);
		sep_pa &= pa[a]->nsep > 0 && pb[a]->nsep == 0;
	}
	ok(sep_pa && cpa < 1e-9 && zpa < 1e-3, "separable: per-angle fits "
	    "agree (cost %.2g, x %.2g uncertainties)", cpa, zpa);
	diag("separable: %ld iterations %ld passes; pair kernel %ld, %ld",
	    sp->iterations, sp->npass, pk->iterations, pk->npass);
out:
	het_fit_result_free(sp);
	het_fit_result_free(pk);
	het_fit_result_free(jt);
	het_fit_result_free(jp);
	het_fit_result_free(rb);
	het_fit_results_free(pa, na);
	het_fit_results_free(pb, nb);
	sim_free(S);
}

/*
 * A start so steep (D0_ref 3e6 under a widened bound, alpha_ref -2: q^2
 * times the reference transport rises by thousands in the first frames)
 * that the separable sums refuse it (more than HET_SEPN_MAXBLK shift
 * blocks), and the fit stays in that region (the reference decays within
 * a frame there): every pass falls back to the pair kernel, and the fit
 * is the pair kernel's from the same start, bit for bit.
 */
static void
test_steep_start(void)
{
	struct sim *S = sim_new(HET_MODE_TWO_COMPONENT, 0.002, 0.1);
	struct het_fit_options o;
	struct het_fit_result *r = NULL, *pk = NULL;
	struct het_error err;
	double x0[32], hi[32];
	int rc;

	memcpy(x0, S->x0, sizeof(x0));
	memcpy(hi, S->hi, sizeof(hi));
	hi[HET_P_D0_REF] = 1e9;
	x0[HET_P_D0_REF] = 3e6;
	x0[HET_P_ALPHA_REF] = fmax(-2.0, S->lo[HET_P_ALPHA_REF]);
	opts(&o);
	rc = het_fit_run(pool2, S->r, x0, NULL, hi, &o, &r, &err);
	o.pair_kernel = 1;
	rc |= het_fit_run(pool2, S->r, x0, NULL, hi, &o, &pk, &err);
	ok(rc == HET_OK && r->nsep == 0 && r->npass > 0, "steep start: "
	    "every pass fell back to the pair kernel (%ld of %ld separable)",
	    rc == HET_OK ? r->nsep : -1L, rc == HET_OK ? r->npass : -1L);
	ok(rc == HET_OK && r->converged && r->cost == pk->cost &&
	    memcmp(r->x, pk->x, r->p * sizeof(double)) == 0, "steep start: "
	    "converged (%s), the pair kernel's fit bit for bit",
	    rc == HET_OK ? het_nlsq_reason_name(r->reason) : err.msg);
	het_fit_result_free(r);
	het_fit_result_free(pk);
	sim_free(S);
}

int
main(void)
{
	plan_lazy();
	het_pool_blas_single_threaded();
	pool2 = het_pool_alloc(2, NULL);
	test_projection();
	test_active_bound();
	test_robust();
	test_screening();
	test_window();
	test_separable();
	test_steep_start();
	het_pool_free(pool2);
	done_testing();
	return exit_status();
}
