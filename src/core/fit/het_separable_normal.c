#include "config.h"

/*
 * het_separable_normal.c: the Gauss-Newton normal equations of the plain
 * least squares from the separable form (het_separable.h for what they
 * are, het_separable.c for the passes they reuse).
 *
 * Design.  Per angle, one residual-form evaluation with adjoints gives
 * the cost, the contrast/offset sums and the physics gradient (the
 * per-frame adjoints of that angle alone go through the model's
 * adjoint map).  It forms each residual (het_sep_pass_direct) rather
 * than the cheaper sums of products: a least-squares fit compares costs
 * that differ in their last digits near its optimum, and on noise-free
 * data the optimum's cost is 0, which the centred sums give only to
 * rounding times sum u^2.  The matrix follows column by column: for a free
 * parameter m the tangent of g is
 *	dg_ij = sum_c TA_c(i) B_c(j) + A_c(i) TB_c(j),
 * with TA_c, TB_c the tangents of the components (from the model's
 * per-frame tangents, het_model_eval_sep_tangent; the block's shift
 * cancels in every product, so its tangent is left out of both).  The
 * column sum_k dg_k/dtheta dg_k is the gradient of f = sum_k g_k dg_k
 * with dg held fixed, whose adjoints are
 *	d f/d A_d(i) = sum_c TA_c(i) SBB_cd(i) + A_c(i) STB_cd(i),
 *	d f/d B_d(j) = sum_c B_c(j) PTA_cd(j) + TB_c(j) PAA_cd(j),
 * with suffix sums over j > i (SBB = sum B_c B_d, STB = sum TB_c B_d)
 * and prefix sums over the block's rows i < j (PAA = sum A_c A_d, PTA =
 * sum TA_c A_d); folded onto the per-frame factors (het_sep_fold) and
 * mapped by the model's adjoint.  The same sums give sum dg g (= sum_i
 * A(i) . d f/d A(i)) and sum dg.  Cost per angle: O(nfp N SEP_NC^2) per
 * shift block for the sums (a point that needs more than HET_SEPN_MAXBLK
 * blocks is refused) and O(nfp^2 N) for the adjoint maps; no pass over
 * the pairs.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_separable.h"
#include "het_separable_impl.h"
#include "het_util.h"

void
het_sep_normal_free(struct het_separable *s)
{
	free(s->tan);
	free(s->tanbuf);
	free(s->TA);
	free(s->TB);
	free(s->dir);
	free(s->col);
	free(s->E);
	free(s->Eg);
	free(s->E1);
	s->tan = NULL;
	s->tanbuf = s->TA = s->TB = s->dir = s->col = NULL;
	s->E = s->Eg = s->E1 = NULL;
}

static int
sep_normal_alloc(struct het_separable *s, struct het_error *err)
{
	size_t m, nf = s->nfp, nb = het_sep_buflen(s), N = s->N;
	const char *what = "separable normal equations";

	if (s->tan != NULL)
		return HET_OK;
	if ((s->tan = het_alloc_array(nf, sizeof(*s->tan), what, err)) ==
	    NULL ||
	    (s->tanbuf = het_alloc_array(nf * nb, sizeof(double), what,
	    err)) == NULL ||
	    (s->TA = het_alloc_array(N * SEP_NC, sizeof(double), what, err)) ==
	    NULL ||
	    (s->TB = het_alloc_array(N * SEP_NC, sizeof(double), what, err)) ==
	    NULL ||
	    (s->dir = het_alloc_array(nf, sizeof(double), what, err)) ==
	    NULL ||
	    (s->col = het_alloc_array(nf, sizeof(double), what, err)) ==
	    NULL ||
	    (s->E = het_alloc_array(nf * nf, sizeof(double), what, err)) ==
	    NULL ||
	    (s->Eg = het_alloc_array(nf, sizeof(double), what, err)) ==
	    NULL ||
	    (s->E1 = het_alloc_array(nf, sizeof(double), what, err)) ==
	    NULL) {
		het_sep_normal_free(s);
		return HET_ENOMEM;
	}
	for (m = 0; m < nf; m++)
		het_sep_layout(&s->tan[m], s->tanbuf + m * nb, s->Nm);
	return HET_OK;
}

int
het_separable_complete(const struct het_separable *s, long angle)
{
	size_t a;

	if (angle >= 0)
		return (size_t)angle < s->na && s->U[angle] != NULL;
	for (a = 0; a < s->na; a++)
		if (s->cnt[a] > 0 && s->U[a] == NULL)
			return 0;
	return 1;
}

int
het_separable_exact(const struct het_separable *s)
{
	return !s->fix;
}

size_t
het_separable_blocks(const struct het_separable *s)
{
	return s->nblk;
}

/* The trigonometric factor of component c at frame k of angle a. */
static double
trig_of(const struct het_separable *s, size_t c, size_t a, size_t k)
{
	if (s->trig[c] == TRIG_COS)
		return s->cs[a * s->N + k];
	return s->trig[c] == TRIG_SIN ? s->sn[a * s->N + k] : 1.0;
}

/*
 * TA on the block's rows, TB from b0 on: the tangents of A_c, B_c along
 * the direction whose factor tangents are t (het_separable_normal.c's
 * opening comment; A = P EA trig, dA = dP EA trig + dL A + phase).
 */
static void
tangent_factors(struct het_separable *s, const struct het_model_sep *t,
    size_t a, size_t b0, size_t b1)
{
	const double *A = s->A, *B = s->B;
	size_t c, k, tm, N = s->N, sc = s->cosc;
	double tr, th;

	memset(s->TA + b0 * SEP_NC, 0, (b1 - b0) * SEP_NC * sizeof(double));
	memset(s->TB + b0 * SEP_NC, 0, (N - b0) * SEP_NC * sizeof(double));
	for (c = 0; c < s->ncomp; c++) {
		tm = (size_t)s->term[c];
		for (k = b0; k < N; k++) {
			tr = trig_of(s, c, a, k);
			if (k < b1)
				s->TA[k * SEP_NC + c] = t->P[tm][k] *
				    s->EA[tm * N + k] * tr + t->L[tm][k] *
				    A[k * SEP_NC + c];
			s->TB[k * SEP_NC + c] = t->Q[tm][k] *
			    s->EB[tm * N + k] * tr - t->L[tm][k] *
			    B[k * SEP_NC + c];
		}
	}
	if (s->fr.osc < 0)
		return;
	/* d cos th = -sin th dth, d sin th = cos th dth */
	for (k = b0; k < N; k++) {
		th = t->qa[a] * s->fr.V[k] + s->fr.qa[a] * t->V[k];
		if (k < b1) {
			s->TA[k * SEP_NC + sc] -= th * A[k * SEP_NC + sc + 1];
			s->TA[k * SEP_NC + sc + 1] += th * A[k * SEP_NC + sc];
		}
		s->TB[k * SEP_NC + sc] -= th * B[k * SEP_NC + sc + 1];
		s->TB[k * SEP_NC + sc + 1] += th * B[k * SEP_NC + sc];
	}
}

/* X += x y^T over the first n components (SEP_NC x SEP_NC, row-major). */
static void
outer_add(double *X, const double *x, const double *y, size_t n)
{
	size_t c, d;

	for (c = 0; c < n; c++)
		for (d = 0; d < n; d++)
			X[c * SEP_NC + d] += x[c] * y[d];
}

/*
 * The adjoints gA (rows [b0, b1)) and gB (frames from b0) of f = sum g
 * dg over the block's pairs, and sum dg g, sum dg into *eg, *e1.
 */
static void
gn_block(struct het_separable *s, size_t b0, size_t b1, double *eg,
    double *e1)
{
	double SB[SEP_NC] = { 0 }, ST[SEP_NC] = { 0 };
	double X[SEP_NC * SEP_NC] = { 0 }, Y[SEP_NC * SEP_NC] = { 0 };
	const double *A, *B, *TA, *TB;
	double *g;
	size_t i, c, d, n = s->ncomp, N = s->N;

	/* suffix sums over j > i: X = sum B B^T, Y = sum TB B^T */
	for (i = N; i-- > b0;) {
		A = s->A + i * SEP_NC;
		TA = s->TA + i * SEP_NC;
		B = s->B + i * SEP_NC;
		TB = s->TB + i * SEP_NC;
		if (i < b1) {
			g = s->gA + i * SEP_NC;
			for (d = 0; d < n; d++) {
				g[d] = 0;
				for (c = 0; c < n; c++)
					g[d] += TA[c] * X[c * SEP_NC + d] +
					    A[c] * Y[c * SEP_NC + d];
				*eg += A[d] * g[d];
				*e1 += TA[d] * SB[d] + A[d] * ST[d];
			}
		}
		outer_add(X, B, B, n);
		outer_add(Y, TB, B, n);
		for (c = 0; c < n; c++) {
			SB[c] += B[c];
			ST[c] += TB[c];
		}
	}
	/* prefix sums over the rows i < j: X = sum A A^T, Y = sum TA A^T */
	memset(X, 0, sizeof(X));
	memset(Y, 0, sizeof(Y));
	for (i = b0; i < N; i++) {
		B = s->B + i * SEP_NC;
		TB = s->TB + i * SEP_NC;
		g = s->gB + i * SEP_NC;
		for (d = 0; d < n; d++) {
			g[d] = 0;
			for (c = 0; c < n; c++)
				g[d] += B[c] * Y[c * SEP_NC + d] +
				    TB[c] * X[c * SEP_NC + d];
		}
		if (i < b1) {
			outer_add(X, s->A + i * SEP_NC, s->A + i * SEP_NC, n);
			outer_add(Y, s->TA + i * SEP_NC, s->A + i * SEP_NC, n);
		}
	}
}

/* Zero the per-frame adjoints (het_sep_fold adds into them). */
static void
zero_adjoints(struct het_separable *s)
{
	memset(s->adbuf, 0, het_sep_buflen(s) * sizeof(double));
}

/*
 * Column m of angle a: E[. m] = sum dg/dtheta dg_m, Eg[m], E1[m].
 */
static void
gn_column(struct het_separable *s, const struct het_model_eval *mev,
    size_t a, size_t m)
{
	size_t b, b0, b1, l, nf = s->nfp;
	double eg = 0, e1 = 0;

	zero_adjoints(s);
	for (b = 0; b < s->nblk; b++) {
		b0 = s->blk[b];
		b1 = s->blk[b + 1];
		if (s->shift_b0 != b0) {
			het_sep_shift(s, b0, b1);
			s->shift_b0 = b0;
		}
		het_sep_factors(s, a, b0, b1, 0);
		tangent_factors(s, &s->tan[m], a, b0, b1);
		gn_block(s, b0, b1, &eg, &e1);
		het_sep_fold(s, a, b0, b1);
	}
	memset(s->col, 0, nf * sizeof(double));
	het_model_eval_sep_adjoint(mev, &s->ad, s->col);
	for (l = 0; l < nf; l++)
		s->E[l * nf + m] = s->col[l];
	s->Eg[m] = eg;
	s->E1[m] = e1;
}

/* The physics part of angle a's entries (o: its slot of out). */
static void
gn_angle(struct het_separable *s, const struct het_model_eval *mev,
    size_t a, double con, double *o)
{
	size_t m, l, nf = s->nfp;
	double w = s->w2 * con, *J = o + HET_SEPN_HEAD + 3 * nf;

	for (m = 0; m < nf; m++)
		gn_column(s, mev, a, m);
	for (m = 0; m < nf; m++) {
		o[HET_SEPN_HEAD + nf + m] = w * s->Eg[m];
		o[HET_SEPN_HEAD + 2 * nf + m] = w * s->E1[m];
		for (l = 0; l < nf; l++)
			J[l * nf + m] = 0.5 * w * con * (s->E[l * nf + m] +
			    s->E[m * nf + l]);
	}
}

/* Check that every angle of [a0, a1) is complete. */
static int
check_complete(const struct het_separable *s, size_t a0, size_t a1,
    struct het_error *err)
{
	size_t a;

	for (a = a0; a < a1; a++) {
		if (s->cnt[a] == 0 || s->U[a] != NULL)
			continue;
		return het_error_set(err, HET_EINVAL, "not complete: angle "
		    "%zu has %zu of the %zu pairs i < j of its %zu frames; "
		    "the separable normal equations need every pair (use "
		    "the pair kernel for a frame window or a shard)", a,
		    s->cnt[a], s->npk, s->N);
	}
	return HET_OK;
}

/* Angle a's entries into o, at the point of het_sep_point. */
static void
normal_angle(struct het_separable *s, const struct het_model_eval *mev,
    size_t a, const double *con, const double *off, int full, double *o)
{
	const double *acc = s->acc + SEP_NACC * a;
	double v[3];
	size_t b, len = het_separable_normal_len(s->nfp);

	memset(o, 0, len * sizeof(double));
	if (s->cnt[a] == 0)
		return;
	if (full)
		zero_adjoints(s);
	for (b = 0; b < s->nblk; b++)
		het_sep_angle_block(s, a, b, con, off, NULL, full);
	het_sep_close(s, a, con[a], off[a] - s->ybar[a], v);
	o[HET_SEPN_SS] = v[0];
	o[HET_SEPN_GC] = v[1];
	o[HET_SEPN_GO] = v[2];
	o[HET_SEPN_CC] = s->w2 * acc[7];
	o[HET_SEPN_CO] = s->w2 * acc[6];
	o[HET_SEPN_OO] = s->w2 * (double)s->cnt[a];
	if (!full || s->nfp == 0)
		return;
	het_model_eval_sep_adjoint(mev, &s->ad, o + HET_SEPN_HEAD);
	gn_angle(s, mev, a, con[a], o);
}

int
het_separable_normal_range(struct het_separable *s,
    const struct het_resid_eval *ev, size_t a0, size_t a1, int full,
    double *out, struct het_error *err)
{
	const struct het_model_eval *mev = het_resid_eval_mev(ev);
	const double *con, *off;
	size_t a, m, len = het_separable_normal_len(s->nfp);
	int rc, phys = full && s->nfp > 0;

	if (a0 > a1 || a1 > s->na)
		return het_error_set(err, HET_EINVAL, "separable normal "
		    "equations: angles %zu to %zu of %zu", a0, a1, s->na);
	if ((rc = het_sep_check_ev(s, ev, full, err)) != HET_OK ||
	    (rc = check_complete(s, a0, a1, err)) != HET_OK)
		return rc;
	if (phys && (rc = sep_normal_alloc(s, err)) != HET_OK)
		return rc;
	het_resid_angle_scaling(ev, &con, &off);
	s->direct = 1;
	het_sep_point(s, mev, full);
	if (s->nblk > HET_SEPN_MAXBLK) {
		s->direct = 0;
		return het_error_set(err, HET_ERANGE, "separable normal "
		    "equations: the transport integrals rise so steeply over "
		    "the %zu frames that the exponentials need %zu blocks "
		    "(more than %d); the pair kernel serves this point",
		    s->N, s->nblk, HET_SEPN_MAXBLK);
	}
	for (m = 0; phys && m < s->nfp; m++) {
		memset(s->dir, 0, s->nfp * sizeof(double));
		s->dir[m] = 1.0;
		het_model_eval_sep_tangent(mev, s->dir, &s->tan[m]);
	}
	for (a = a0; a < a1; a++)
		normal_angle(s, mev, a, con, off, full, out + a * len);
	s->direct = 0;
	return HET_OK;
}

int
het_separable_normal(struct het_separable *s,
    const struct het_resid_eval *ev, long angle, int full, double *out,
    struct het_error *err)
{
	size_t len = het_separable_normal_len(s->nfp);

	if (angle >= 0 && (size_t)angle >= s->na)
		return het_error_set(err, HET_EINVAL, "separable normal "
		    "equations: angle %ld of %zu", angle, s->na);
	memset(out, 0, s->na * len * sizeof(double));
	return angle < 0 ? het_separable_normal_range(s, ev, 0, s->na, full,
	    out, err) : het_separable_normal_range(s, ev, (size_t)angle,
	    (size_t)angle + 1, full, out, err);
}
