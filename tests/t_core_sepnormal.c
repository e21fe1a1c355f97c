/*
 * t_core_sepnormal.c: the Gauss-Newton normal equations of the separable
 * sums (het_separable_normal) against the pair kernel, on the problems
 * of sep_fixture.c at the truth and NDRAW random points around it.
 *
 * Checks, for every complete problem: the per-angle cost and contrast/
 * offset sums (1e-9), physics gradient (1e-8 of its largest entry), the
 * cross terms, the contrast/offset block and the physics J^T J (1e-8
 * of their largest entries; 1e-6 on the problems with rates floored at
 * 0, whose rho factor the matrix leaves out) against the sums of
 * het_resid_eval_compact's rows (the kernel's analytic Jacobian); a
 * view and a one-angle object give the same numbers bit for bit; the
 * first two thirds of the frames alone (het_separable_alloc_window)
 * against the pair kernel's sums over those pairs; a problem of 3
 * shift blocks taken, one of 9 refused with HET_ERANGE.  Refusals: an
 * incomplete angle, a point without Jacobian tables, an angle out of
 * range.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sep_fixture.h"
#include "tap.h"

/*
 * The pair kernel's per-angle normal equations at the prepared point
 * over the pairs whose frames lie below fw, in het_separable_normal's
 * layout (het_resid_eval_compact's rows).
 */
static void
dense_normal(struct prob *P, size_t fw, double *ref)
{
	size_t len = het_separable_normal_len(P->nfp), nf = P->nfp;
	size_t k, kk, nb, l, m, a;
	double jp[64 * HET_MAX_PHYS], res[64], dc[64], *o, w, *J;

	memset(ref, 0, P->na * len * sizeof(double));
	for (k = 0; k < P->n; k += nb) {
		nb = P->n - k < 64 ? P->n - k : 64;
		het_resid_eval_compact(P->ev, P->scr, k, nb, res, jp, dc);
		for (kk = 0; kk < nb; kk++) {
			if (P->pairs[k + kk].j >= fw)
				continue;
			a = P->pairs[k + kk].a;
			o = ref + a * len;
			w = het_resid_weight(P->r, k + kk);
			o[HET_SEPN_SS] += res[kk] * res[kk];
			o[HET_SEPN_CC] += dc[kk] * dc[kk];
			o[HET_SEPN_CO] += dc[kk] * w;
			o[HET_SEPN_OO] += w * w;
			o[HET_SEPN_GC] += res[kk] * dc[kk];
			o[HET_SEPN_GO] += res[kk] * w;
			J = o + HET_SEPN_HEAD + 3 * nf;
			for (l = 0; l < nf; l++) {
				o[HET_SEPN_HEAD + l] += res[kk] *
				    jp[kk * nf + l];
				o[HET_SEPN_HEAD + nf + l] += dc[kk] *
				    jp[kk * nf + l];
				o[HET_SEPN_HEAD + 2 * nf + l] += w *
				    jp[kk * nf + l];
				for (m = 0; m < nf; m++)
					J[l * nf + m] += jp[kk * nf + l] *
					    jp[kk * nf + m];
			}
		}
	}
}

/*
 * Largest error of each part of the normal equations: e[0] the cost and
 * gradient entries of the head (SS, GC, GO) one by one, e[1] .. e[4]
 * each nfp block relative to its largest entry over the angles, e[5]
 * the matrix entries of the head (CC, CO, OO) one by one.
 */
static void
normal_err(const struct prob *P, const double *s, const double *r,
    double e[6])
{
	size_t len = het_separable_normal_len(P->nfp), nf = P->nfp, a, k;
	size_t part, off[4] = { HET_SEPN_HEAD, HET_SEPN_HEAD + nf,
		HET_SEPN_HEAD + 2 * nf, HET_SEPN_HEAD + 3 * nf };
	size_t cnt[4] = { nf, nf, nf, nf * nf };
	double big, d;

	for (a = 0; a < P->na; a++)
		for (k = 0; k < HET_SEPN_HEAD; k++) {
			d = fabs(s[a * len + k] - r[a * len + k]) /
			    fmax(fabs(r[a * len + k]), 1e-300);
			part = k == HET_SEPN_CC || k == HET_SEPN_CO ||
			    k == HET_SEPN_OO ? 5 : 0;
			e[part] = fmax(e[part], d);
		}
	for (part = 0; part < 4; part++) {
		big = 0;
		d = 0;
		for (a = 0; a < P->na; a++)
			for (k = off[part]; k < off[part] + cnt[part]; k++) {
				big = fmax(big, fabs(r[a * len + k]));
				d = fmax(d, fabs(s[a * len + k] -
				    r[a * len + k]));
			}
		e[1 + part] = fmax(e[1 + part], big > 0 ? d / big : d);
	}
}

/*
 * A point whose exponentials need more shift blocks than the normal
 * equations take (th_big: q^2 Sr reaches ~2800): refused with
 * HET_ERANGE, so that a fit takes the pair kernel there.
 */
static void
normal_steep(struct prob *P, const struct pcase *C)
{
	struct het_error err;
	double *out = calloc(P->na * het_separable_normal_len(P->nfp),
	    sizeof(double));
	int rc = -1;

	memset(&err, 0, sizeof(err));
	het_resid_prepare(P->ev, P->x0, 1, NULL);
	if (out != NULL)
		rc = het_separable_normal(P->sep, P->ev, -1, 1, out, &err);
	ok(rc == HET_ERANGE && het_separable_blocks(P->sep) >
	    HET_SEPN_MAXBLK, "%s: %zu blocks refused with HET_ERANGE",
	    C->name, het_separable_blocks(P->sep));
	like(err.msg, "the pair kernel serves this point", "%s: says the "
	    "pair kernel takes it", C->name);
	free(out);
}

/*
 * het_separable_normal against the pair kernel's sums on a complete
 * case, at the truth and random points; per-angle objects and views
 * give the same numbers bit for bit.  The cost and gradient entries
 * agree as het_separable_eval's do; the matrix entries leave out the
 * rho factor of pairs inside a run of a rate floored at 0 (th_clip: a
 * relative 1e-9 on those pairs, documented in het_separable.h), so
 * there they agree to TOL_GN_RUNS of the largest entry, elsewhere to
 * rounding (TOL_G).
 */
static void
normal_case(const struct pcase *C)
{
	struct prob P;
	struct het_error err;
	struct het_separable *one = NULL, *view = NULL, *win = NULL;
	double x[PMAX], *sn, *rn, *s1, *sv, e[6] = { 0 }, ew[6] = { 0 }, tm;
	size_t len, a1, w;
	int d, rc = 0, same = 1;

	if (prob_init(&P, C, &err) != 0) {
		ok(0, "%s: problem built (%s)", C->name, err.msg);
		prob_fini(&P);
		return;
	}
	if (C->theta == th_big) {
		normal_steep(&P, C);
		prob_fini(&P);
		return;
	}
	len = het_separable_normal_len(P.nfp);
	a1 = P.na - 1;
	sn = calloc(P.na * len, sizeof(double));
	rn = calloc(P.na * len, sizeof(double));
	s1 = calloc(P.na * len, sizeof(double));
	sv = calloc(P.na * len, sizeof(double));
	one = het_separable_alloc_angle(P.r, (long)a1, &err);
	view = het_separable_view(P.sep, &err);
	w = 2 * C->nf / 3;
	win = het_separable_alloc_window(P.r, -1, w, &err);
	for (d = 0; d <= NDRAW && sn != NULL && rn != NULL && s1 != NULL &&
	    sv != NULL && one != NULL && view != NULL && win != NULL; d++) {
		draw_x(&P, d, x);
		het_resid_prepare(P.ev, x, 1, NULL);
		dense_normal(&P, w, rn);
		rc |= het_separable_normal(win, P.ev, -1, 1, sn, &err);
		normal_err(&P, sn, rn, ew);
		dense_normal(&P, C->nf, rn);
		rc |= het_separable_normal(P.sep, P.ev, -1, 1, sn, &err);
		rc |= het_separable_normal(one, P.ev, (long)a1, 1, s1, &err);
		rc |= het_separable_normal(view, P.ev, -1, 1, sv, &err);
		normal_err(&P, sn, rn, e);
		same &= memcmp(sn, sv, P.na * len * sizeof(double)) == 0 &&
		    memcmp(sn + a1 * len, s1 + a1 * len, len *
		    sizeof(double)) == 0;
	}
	ok(d > NDRAW, "%s: normal equations' objects made", C->name);
	diag("%s normal equations: cost %.2g, gradient %.2g, cross %.2g "
	    "%.2g, J^T J %.2g, scaling block %.2g", C->name, e[0], e[1],
	    e[2], e[3], e[4], e[5]);
	tm = C->theta == th_clip ? TOL_GN_RUNS : TOL_G;
	ok(rc == HET_OK, "%s: normal equations evaluate", C->name);
	ok(e[0] <= TOL_SS && e[1] <= TOL_G, "%s: cost and gradient entries "
	    "agree (%.2g %.2g)", C->name, e[0], e[1]);
	ok(e[2] <= tm && e[3] <= tm && e[5] <= tm, "%s: cross terms and "
	    "scaling block agree (%.2g %.2g %.2g)", C->name, e[2], e[3],
	    e[5]);
	ok(e[4] <= tm, "%s: J^T J of the physics agrees (%.2g)", C->name,
	    e[4]);
	ok(same, "%s: a view and a one-angle object give the same sums",
	    C->name);
	if (C->theta == th_mid)
		ok(het_separable_blocks(P.sep) > 1 && het_separable_blocks(
		    P.sep) <= HET_SEPN_MAXBLK, "%s: %zu shift blocks, within "
		    "what the normal equations take", C->name,
		    het_separable_blocks(P.sep));
	ok(ew[0] <= TOL_SS && ew[1] <= TOL_G && ew[2] <= tm && ew[3] <= tm &&
	    ew[4] <= tm && ew[5] <= tm, "%s: the first %zu frames alone "
	    "(window): every part agrees (%.2g %.2g %.2g %.2g %.2g %.2g)",
	    C->name, w, ew[0], ew[1], ew[2], ew[3], ew[4], ew[5]);
	het_separable_free(win);
	het_separable_free(one);
	het_separable_free(view);
	free(sn);
	free(rn);
	free(s1);
	free(sv);
	prob_fini(&P);
}

/*
 * The normal equations' refusals: an incomplete angle (a subset), a
 * point without Jacobian tables, an angle out of range; a one-angle
 * object of a subset problem is complete when that angle is.
 */
static void
normal_errors(void)
{
	struct prob P;
	struct het_error err;
	double *out;
	int rc;

	if (prob_init(&P, &cases[1], &err) != 0) {
		ok(0, "normal refusals: problem built (%s)", err.msg);
		prob_fini(&P);
		return;
	}
	out = calloc(P.na * het_separable_normal_len(P.nfp), sizeof(double));
	het_resid_prepare(P.ev, P.x0, 1, NULL);
	memset(&err, 0, sizeof(err));
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, -1, 1, out,
	    &err);
	ok(rc == HET_EINVAL && !het_separable_complete(P.sep, -1),
	    "normal: an incomplete angle is refused");
	like(err.msg, "not complete: angle 0 has ", "normal: says which "
	    "angle is incomplete");
	like(err.msg, " of the 780 pairs i < j of its 40 frames", "normal: "
	    "and how many pairs it would need");
	prob_fini(&P);
	if (prob_init(&P, &cases[0], &err) != 0) {
		free(out);
		prob_fini(&P);
		return;
	}
	het_resid_prepare(P.ev, P.x0, 0, NULL);
	memset(&err, 0, sizeof(err));
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, -1, 1, out,
	    &err);
	ok(rc == HET_EINVAL, "normal: a point without Jacobian tables is "
	    "refused for the full equations");
	like(err.msg, "want_jac", "normal: says a Jacobian prepare is "
	    "needed");
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, -1, 0, out,
	    &err);
	ok(rc == HET_OK && out[HET_SEPN_OO] == 780.0, "normal: the head "
	    "alone needs no Jacobian (n = %g)", out == NULL ? 0 :
	    out[HET_SEPN_OO]);
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, 9, 0, out,
	    &err);
	ok(rc == HET_EINVAL && het_separable_complete(P.sep, 0),
	    "normal: angle 9 of 5 is refused");
	free(out);
	prob_fini(&P);
}

int
main(void)
{
	size_t k;

	plan_lazy();
	for (k = 0; k < ncases; k++)
		if (cases[k].keep >= 1)
			normal_case(&cases[k]);
	normal_errors();
	done_testing();
	return exit_status();
}
