/*
 * t_core_separable.c: the separable likelihood (het_separable) against
 * the pair kernel.
 *
 * For each problem the data are the model at a truth point plus a fixed
 * uniform noise of amplitude 0.01, and the likelihood is evaluated at
 * the truth and at NDRAW random points around it (physics within +-25 %,
 * contrast 0.2-0.5, offset 0.95-1.05 per angle):
 *   - het_separable_eval against het_resid_eval_lsq (the fused pair pass
 *     for heterodyne, Jacobian rows for homodyne): ss within 1e-9
 *     relative, every entry of gfree within 1e-8 of its largest entry,
 *     and of gcon and goff within 1e-8 of the largest of both (the sums
 *     are formed in another order and, for a complete triangle, from
 *     sums of products, so agreement is to rounding times the
 *     cancellation between sum y^2, sum y g and sum g^2: about 1e-11
 *     observed, 1e-14 for subsets; errors are printed as diagnostics;
 *     homodyne's g1 floor, g = 1e-20 with zero derivative below it, is
 *     not reproduced, which is why gcon is not compared on its own);
 *   - het_separable_loglik's gradient in x against -J^T r / sigma^2 from
 *     het_resid_eval_rows (1e-8 of the largest entry), and against
 *     fourth-order central differences of its own value (step 1e-4
 *     relative; 1e-6 of the largest entry).
 * (t_core_sepnormal holds the normal equations on the same problems.)
 * Problems (sep_fixture.c): two_component on a complete triangle and on a
 * random 40 %
 * subset of the pairs in random order; rates that cross zero inside the
 * window (floored at 0: the pairs inside a zero run carry the
 * reference's sabs factor) with fractions saturated at 0 and at 1; a
 * reference rate so large that q^2 Sr reaches ~2800 (about ten shift
 * blocks; unshifted e^{q^2 S} would overflow); static_ref and static_both
 * (their free sets); equal weights; constant scaling; homodyne static
 * complete, subset and with q^2 dt S_D to ~1000; 60 pairs on a
 * 30,000-frame grid.  Error paths: laminar_flow, unequal weights, a
 * repeated pair, a workspace of another problem, a gradient without
 * Jacobian tables, sigma <= 0 and a non-finite x.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_model.h"
#include "het_params.h"
#include "het_resid.h"
#include "het_scaling.h"
#include "het_separable.h"
#include "tap.h"

#include "sep_fixture.h"

struct lsq {
	struct het_model_lsq_out o;
	double gf[HET_MAX_PHYS], gc[8], go[8];
};

/* gcon and goff together, relative to the largest entry of either. */
static double
scal_err(const struct lsq *S, const struct lsq *R, size_t na)
{
	double e = 0, m = 0;
	size_t a;

	for (a = 0; a < na; a++) {
		e = fmax(e, fmax(fabs(S->gc[a] - R->gc[a]),
		    fabs(S->go[a] - R->go[a])));
		m = fmax(m, fmax(fabs(R->gc[a]), fabs(R->go[a])));
	}
	return m > 0 ? e / m : e;
}

static void
lsq_zero(struct lsq *L)
{
	memset(L, 0, sizeof(*L));
	L->o.gfree = L->gf;
	L->o.gcon = L->gc;
	L->o.goff = L->go;
}

/* -J^T r / sigma^2 from the Jacobian rows at x. */
static void
dense_grad(struct prob *P, const double *x, double *g)
{
	size_t k, c;

	het_resid_prepare(P->ev, x, 1, NULL);
	het_resid_eval_rows(P->ev, P->scr, 0, P->n, P->res, P->J);
	memset(g, 0, P->p * sizeof(*g));
	for (k = 0; k < P->n; k++)
		for (c = 0; c < P->p; c++)
			g[c] -= P->res[k] * P->J[k * P->p + c] /
			    (SIGMA * SIGMA);
}

/* Central differences of the separable log-likelihood at x. */
static double
fd_err(struct prob *P, const double *x, const double *g)
{
	static const double step[4] = { 1, -1, 2, -2 };
	double xp[PMAX], fd[PMAX], l[4], h;
	size_t k, m;

	for (k = 0; k < P->p; k++) {
		memcpy(xp, x, P->p * sizeof(*x));
		h = 1e-4 * fmax(fabs(x[k]), 1e-2);
		for (m = 0; m < 4; m++) {
			xp[k] = x[k] + step[m] * h;
			het_separable_loglik(P->sep, P->ev, xp, SIGMA, &l[m],
			    NULL, NULL);
		}
		/* the fourth-order stencil: truncation O(h^4) */
		fd[k] = (8 * (l[0] - l[1]) - (l[2] - l[3])) / (12 * h);
	}
	return vec_err(g, fd, P->p);
}

static void
run_case(const struct pcase *C)
{
	struct prob P;
	struct het_error err;
	struct lsq R, S;
	double x[PMAX], gs[PMAX], gd[PMAX], ll, e, ess = 0, eg = 0, egx = 0;
	double efd = 0;
	int d, rc = 0;

	if (prob_init(&P, C, &err) != 0) {
		ok(0, "%s: problem built (%s)", C->name, err.msg);
		skip(4, "no problem");
		prob_fini(&P);
		return;
	}
	for (d = 0; d <= NDRAW; d++) {
		draw_x(&P, d, x);
		lsq_zero(&R);
		lsq_zero(&S);
		het_resid_prepare(P.ev, x, 1, NULL);
		het_resid_eval_lsq(P.ev, P.scr, 0, P.n, &R.o);
		rc |= het_separable_eval(P.sep, P.ev, 1, &S.o, &err);
		ess = fmax(ess, fabs(S.o.ss - R.o.ss) / R.o.ss);
		e = fmax(vec_err(S.gf, R.gf, P.nfp), scal_err(&S, &R, P.na));
		eg = fmax(eg, e);
		rc |= het_separable_loglik(P.sep, P.ev, x, SIGMA, &ll, gs,
		    &err);
		ess = fmax(ess, fabs(ll + 0.5 * R.o.ss / (SIGMA * SIGMA)) /
		    (0.5 * R.o.ss / (SIGMA * SIGMA)));
		dense_grad(&P, x, gd);
		egx = fmax(egx, vec_err(gs, gd, P.p));
		if (d < 3)
			efd = fmax(efd, fd_err(&P, x, gs));
	}
	diag("%s: %zu pairs, p %zu: ss %.2g, grad %.2g, grad x %.2g, "
	    "fd %.2g", C->name, P.n, P.p, ess, eg, egx, efd);
	ok(rc == HET_OK, "%s: every evaluation succeeds", C->name);
	ok(ess <= TOL_SS, "%s: ss and log-likelihood agree (%.2g)", C->name,
	    ess);
	ok(eg <= TOL_G, "%s: gfree, gcon, goff agree (%.2g)", C->name, eg);
	ok(egx <= TOL_G, "%s: gradient in x equals -J^T r/sigma^2 (%.2g)",
	    C->name, egx);
	ok(efd <= TOL_FD, "%s: gradient equals central differences (%.2g)",
	    C->name, efd);
	prob_fini(&P);
}

/* het_separable_alloc on a built problem must refuse with "not
 * separable" and the reason. */
static void
refused(struct prob *P, const char *why, const char *needle)
{
	struct het_error err;
	struct het_separable *s;

	memset(&err, 0, sizeof(err));
	s = het_separable_alloc(P->r, &err);
	ok(s == NULL && err.code == HET_EINVAL, "%s: refused with HET_EINVAL",
	    why);
	like(err.msg, "not separable: ", "%s: says not separable", why);
	like(err.msg, needle, "%s: says why", why);
	het_separable_free(s);
}

/*
 * A 30,000-frame grid with 60 pairs (a small window of a long series):
 * the incomplete rows take memory and time per pair, not per cell, and
 * the value and gradient equal the pair kernel's.
 */
static void
test_long_grid(void)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct prob P;
	struct het_pair pr[60];
	struct lsq R, S;
	double y[60], x[PMAX];
	size_t k;
	int rc = -1;

	memset(&P, 0, sizeof(P));
	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = 30000;
	ms.n_angles = 2;
	ms.phi = phi8;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, 2, phi8);
	for (k = 0; k < 60; k++) {
		pr[k].i = (uint32_t)(sep_unif() * 29000);
		pr[k].j = pr[k].i + 1 + (uint32_t)(sep_unif() * 900);
		pr[k].a = (uint32_t)(k % 2);
		y[k] = 1.1 + 0.2 * sep_unif();
	}
	memset(&rs, 0, sizeof(rs));
	rs.theta = th_gen;
	rs.n = 60;
	rs.pairs = pr;
	rs.y = y;
	if ((P.m = het_model_alloc(&ms, NULL)) != NULL &&
	    (P.sc = het_scaling_alloc(&ss, NULL)) != NULL) {
		rs.model = P.m;
		rs.scaling = P.sc;
		if ((P.r = het_resid_alloc(&rs, NULL)) != NULL &&
		    (P.ev = het_resid_eval_alloc(P.r, NULL)) != NULL &&
		    (P.scr = het_resid_scratch_alloc(P.r, 16, NULL)) != NULL &&
		    (P.sep = het_separable_alloc(P.r, NULL)) != NULL) {
			het_resid_x0(P.r, x);
			lsq_zero(&R);
			lsq_zero(&S);
			het_resid_prepare(P.ev, x, 1, NULL);
			het_resid_eval_lsq(P.ev, P.scr, 0, 60, &R.o);
			rc = het_separable_eval(P.sep, P.ev, 1, &S.o, NULL);
		}
	}
	ok(rc == HET_OK && fabs(S.o.ss - R.o.ss) <= TOL_SS * R.o.ss &&
	    vec_err(S.gf, R.gf, HET_P_HET_COUNT) <= TOL_G &&
	    scal_err(&S, &R, 2) <= TOL_G, "30000 frames, 60 pairs: the "
	    "pair kernel's value (%.2g) and gradient", rc == HET_OK ?
	    fabs(S.o.ss - R.o.ss) / R.o.ss : -1.0);
	prob_fini(&P);
}

static void
test_errors(void)
{
	struct pcase C = cases[0];
	struct prob P, Q;
	struct het_error err;
	struct lsq S;
	double x[PMAX], ll;
	int rc;

	C.nf = 12;
	C.mode = HET_MODE_HOM_LAMINAR;
	C.theta = th_gen;	/* 7 homodyne values */
	if (prob_build(&P, &C, &err) == 0)
		refused(&P, "laminar_flow", "laminar_flow has no separable");
	else
		ok(0, "laminar_flow problem built (%s)", err.msg);
	prob_fini(&P);

	C = cases[0];
	C.nf = 12;
	C.weight = 1.0;
	if (prob_build(&P, &C, &err) == 0) {
		P.w[5] = 1.25;	/* borrowed by the problem */
		refused(&P, "unequal weights", "datum 5 has weight 1.25");
		P.w[5] = 1.0;
		P.pairs[9] = P.pairs[2];	/* still a valid pair */
		refused(&P, "repeated pair", "datum 9 repeats the pair");
	} else
		ok(0, "weighted problem built (%s)", err.msg);
	prob_fini(&P);
	test_long_grid();

	C = cases[0];
	C.nf = 12;
	if (prob_init(&P, &C, &err) != 0 || prob_init(&Q, &C, &err) != 0) {
		ok(0, "two problems built (%s)", err.msg);
		return;
	}
	lsq_zero(&S);
	memcpy(x, P.x0, sizeof(x));
	rc = het_separable_eval(P.sep, Q.ev, 0, &S.o, &err);
	ok(rc == HET_EINVAL, "eval: a workspace of another problem is "
	    "refused");
	like(err.msg, "another fitting problem", "eval: says so");
	rc = het_separable_loglik(P.sep, Q.ev, x, SIGMA, &ll, NULL, &err);
	ok(rc == HET_EINVAL, "loglik: a workspace of another problem is "
	    "refused");
	het_resid_prepare(P.ev, x, 0, NULL);
	rc = het_separable_eval(P.sep, P.ev, 1, &S.o, &err);
	ok(rc == HET_EINVAL, "eval: a gradient without Jacobian tables is "
	    "refused");
	like(err.msg, "want_jac", "eval: says how to prepare");
	rc = het_separable_eval(P.sep, P.ev, 0, &S.o, &err);
	ok(rc == HET_OK && S.o.ss > 0, "eval: the value alone needs no "
	    "Jacobian tables");
	rc = het_separable_loglik(P.sep, P.ev, x, 0.0, &ll, NULL, &err);
	ok(rc == HET_EINVAL, "loglik: sigma 0 is refused");
	like(err.msg, "sigma is 0", "loglik: names sigma");
	x[1] = NAN;
	rc = het_separable_loglik(P.sep, P.ev, x, SIGMA, &ll, NULL, &err);
	ok(rc == HET_EINVAL, "loglik: a non-finite x is refused");
	like(err.msg, "alpha_ref", "loglik: names the parameter");
	prob_fini(&P);
	prob_fini(&Q);
}

int
main(void)
{
	size_t k;

	plan_lazy();
	for (k = 0; k < ncases; k++)
		run_case(&cases[k]);
	test_errors();
	done_testing();
	return exit_status();
}
