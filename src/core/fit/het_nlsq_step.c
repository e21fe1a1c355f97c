/*
 * het_nlsq_step.c: the trust-region subproblem and the step selection of
 * the TRF solver (SciPy's solve_lsq_trust_region, select_step and their
 * helpers), on the eigendecomposition of the scaled normal matrix.
 *
 * Design: every quantity SciPy computes from the SVD of the augmented
 * scaled Jacobian is taken from A = V S^2 V^T and suf = V^T g_h (see
 * het_nlsq.c); quadratic model values use A directly.  All vectors live
 * in the workspace, so nothing here allocates.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "het_nlsq_impl.h"

#define TR_RTOL		0.01		/* secular equation tolerance */
#define TR_MAXIT	10		/* secular equation iterations */

/* ------------------------------------------------------------------ */
/* Small dense helpers (p is small). */

static double
dot(size_t p, const double *a, const double *b)
{
	double s = 0.0;
	size_t i;

	for (i = 0; i < p; i++)
		s += a[i] * b[i];
	return s;
}

double
het_nlsq_norm2(size_t p, const double *a)
{
	return sqrt(dot(p, a, a));
}

/* y = A x for the symmetric p x p matrix A. */
static void
symv(size_t p, const double *A, const double *x, double *y)
{
	size_t i, j;
	double s;

	for (i = 0; i < p; i++) {
		s = 0.0;
		for (j = 0; j < p; j++)
			s += A[i * p + j] * x[j];
		y[i] = s;
	}
}

/* SciPy evaluate_quadratic: 1/2 s^T A s + g_h^T s. */
static double
quad_value(struct het_nlsq *w, const double *s)
{
	symv(w->p, w->A, s, w->tmp2);
	return 0.5 * dot(w->p, s, w->tmp2) + dot(w->p, w->g_h, s);
}

/*
 * SciPy build_quadratic_1d: the model along s0 + t s as a t^2 + b t + c
 * (s0 may be NULL: then c = 0).
 */
static void
quad_1d(struct het_nlsq *w, const double *s, const double *s0, double *a,
    double *b, double *c)
{
	size_t p = w->p;

	symv(p, w->A, s, w->tmp2);
	*a = 0.5 * dot(p, s, w->tmp2);
	*b = dot(p, w->g_h, s);
	*c = 0.0;
	if (s0 != NULL) {
		*b += dot(p, s0, w->tmp2);
		symv(p, w->A, s0, w->tmp2);
		*c = 0.5 * dot(p, s0, w->tmp2) + dot(p, w->g_h, s0);
	}
}

/* SciPy minimize_quadratic_1d on [lb, ub]; returns t, *val the value. */
static double
min_quad_1d(double a, double b, double lb, double ub, double c, double *val)
{
	double t[3], y, best;
	int nt = 2, i, bi = 0;

	t[0] = lb;
	t[1] = ub;
	if (a != 0) {
		double ext = -0.5 * b / a;

		if (lb < ext && ext < ub)
			t[nt++] = ext;
	}
	best = INFINITY;
	for (i = 0; i < nt; i++) {
		y = t[i] * (a * t[i] + b) + c;
		if (i == 0 || y < best) {
			best = y;
			bi = i;
		}
	}
	*val = best;
	return t[bi];
}

/*
 * SciPy step_size_to_bound: the largest t with x + t s feasible; hits
 * (may be NULL) receives sign(s_i) where the bound of i is hit first.
 */
static double
step_to_bound(size_t p, const double *x, const double *s, const double *lo,
    const double *hi, double *hits)
{
	double m = INFINITY, t;
	size_t i;

	for (i = 0; i < p; i++) {
		if (s[i] == 0)
			continue;
		t = fmax((lo[i] - x[i]) / s[i], (hi[i] - x[i]) / s[i]);
		if (t < m)
			m = t;
	}
	if (hits != NULL)
		for (i = 0; i < p; i++) {
			hits[i] = 0;
			if (s[i] == 0)
				continue;
			t = fmax((lo[i] - x[i]) / s[i], (hi[i] - x[i]) / s[i]);
			if (t == m)
				hits[i] = s[i] > 0 ? 1 : -1;
		}
	return m;
}

/* SciPy intersect_trust_region: the larger root t of ||x + t s|| = D. */
static double
tr_intersect(size_t p, const double *x, const double *s, double Delta)
{
	double a = dot(p, s, s), b = dot(p, x, s);
	double c = dot(p, x, x) - Delta * Delta, d, q, t1, t2;

	if (a == 0)
		return 0.0;
	if (c > 0)
		c = 0;		/* on the boundary up to rounding */
	d = sqrt(b * b - a * c);
	q = -(b + copysign(d, b));
	if (q == 0)
		return 0.0;
	t1 = q / a;
	t2 = c / q;
	return t1 > t2 ? t1 : t2;
}

/*
 * Block path (het_nlsq_block.c): factorise A + alpha I; on failure
 * flag it (the iteration then goes dense) and return -1.
 */
static int
blk_alpha(struct het_nlsq *w, double alpha)
{
	if (het_nlsq_blk_factor(w, alpha) == 0)
		return 0;
	w->bfail = 1;
	return -1;
}

/* p_h = -sum_i Z_i suf_i / (s_i^2 + alpha) over kept directions
   (block path: -(A + alpha I)^-1 g_h, the same with every direction
   kept). */
static void
tr_step(struct het_nlsq *w, double alpha, double *out)
{
	size_t i, j, p = w->p;
	double c;

	memset(out, 0, p * sizeof(double));
	if (w->blk_on) {
		if (blk_alpha(w, alpha) != 0)
			return;
		het_nlsq_blk_solve(w, w->g_h, out);
		for (i = 0; i < p; i++)
			out[i] = -out[i];
		return;
	}
	for (i = 0; i < p; i++) {
		if (!w->keep[i])
			continue;
		c = -w->suf[i] / (w->s[i] * w->s[i] + alpha);
		for (j = 0; j < p; j++)
			out[j] += c * w->Z[i * p + j];
	}
}

/* phi(alpha) = ||p(alpha)|| - Delta and its derivative. */
static void
phi_deriv(struct het_nlsq *w, double alpha, double *phi, double *dphi)
{
	size_t i;
	double pn = 0.0, dd = 0.0, den, q;

	if (w->blk_on) {
		/* pn = ||(A + a)^-1 g_h||, dd = p^T (A + a)^-1 p */
		*phi = -w->Delta;
		*dphi = 0.0;
		if (blk_alpha(w, alpha) != 0)
			return;
		het_nlsq_blk_solve(w, w->g_h, w->bp);
		het_nlsq_blk_solve(w, w->bp, w->bq);
		for (i = 0; i < w->p; i++) {
			pn += w->bp[i] * w->bp[i];
			dd += w->bp[i] * w->bq[i];
		}
		pn = sqrt(pn);
		*phi = pn - w->Delta;
		*dphi = pn > 0 ? -dd / pn : 0.0;
		return;
	}
	for (i = 0; i < w->p; i++) {
		if (!w->keep[i])
			continue;
		den = w->s[i] * w->s[i] + alpha;
		q = w->suf[i] / den;
		pn += q * q;
		dd += w->suf[i] * w->suf[i] / (den * den * den);
	}
	pn = sqrt(pn);
	*phi = pn - w->Delta;
	*dphi = pn > 0 ? -dd / pn : 0.0;
}

/*
 * SciPy solve_lsq_trust_region on the eigen-quantities: the step p_h
 * (into w->p_h) and the updated alpha.
 */
void
het_nlsq_solve_tr(struct het_nlsq *w, int full_rank)
{
	size_t i, p = w->p;
	double Delta = w->Delta, alpha, lo, up, phi, dphi, ratio, sn, pn;
	int it;

	/* Gauss-Newton (minimum-norm when rank-deficient) step. */
	tr_step(w, 0.0, w->p_h);
	if (het_nlsq_norm2(p, w->p_h) <= Delta) {
		w->alpha = 0.0;
		return;
	}
	sn = 0.0;
	for (i = 0; i < p; i++)	/* block path: every direction kept */
		sn += w->blk_on ? w->g_h[i] * w->g_h[i] : w->suf[i] * w->suf[i];
	up = sqrt(sn) / Delta;
	if (full_rank) {
		phi_deriv(w, 0.0, &phi, &dphi);
		lo = -phi / dphi;
	} else
		lo = 0.0;
	alpha = w->alpha;
	if (!full_rank && alpha == 0)
		alpha = fmax(0.001 * up, sqrt(lo * up));
	for (it = 0; it < TR_MAXIT; it++) {
		if (alpha < lo || alpha > up)
			alpha = fmax(0.001 * up, sqrt(lo * up));
		phi_deriv(w, alpha, &phi, &dphi);
		if (phi < 0)
			up = alpha;
		ratio = phi / dphi;
		lo = fmax(lo, alpha - ratio);
		alpha -= (phi + Delta) * ratio / Delta;
		if (fabs(phi) < TR_RTOL * Delta)
			break;
	}
	tr_step(w, alpha, w->p_h);
	pn = het_nlsq_norm2(p, w->p_h);
	if (pn > 0)
		for (i = 0; i < p; i++)
			w->p_h[i] *= Delta / pn;
	w->alpha = alpha;
}

/*
 * SciPy select_step: the best of the (step-back) trust-region step, its
 * reflection at the first bound hit and the bounded gradient step, into
 * w->step / w->step_h; returns the predicted reduction.
 */
double
het_nlsq_select_step(struct het_nlsq *w, double theta)
{
	size_t i, p = w->p;
	double p_stride, to_tr, to_bound, r_stride, rl, ru, a, b, c;
	double r_value, p_value, ag_value, ag_stride, agn;
	int inb = 1;

	for (i = 0; i < p; i++) {
		w->pst[i] = w->d[i] * w->p_h[i];
		w->tmp[i] = w->x[i] + w->pst[i];
		if (w->tmp[i] < w->lo[i] || w->tmp[i] > w->hi[i])
			inb = 0;
	}
	if (inb) {
		memcpy(w->step, w->pst, p * sizeof(double));
		memcpy(w->step_h, w->p_h, p * sizeof(double));
		return -quad_value(w, w->p_h);
	}
	/* Reflected direction (hits in tmp). */
	p_stride = step_to_bound(p, w->x, w->pst, w->lo, w->hi, w->tmp);
	for (i = 0; i < p; i++) {
		w->r_h[i] = w->tmp[i] != 0 ? -w->p_h[i] : w->p_h[i];
		w->rst[i] = w->d[i] * w->r_h[i];
		w->pst[i] *= p_stride;
		w->p_h[i] *= p_stride;
		w->tmp[i] = w->x[i] + w->pst[i];	/* x on bound */
	}
	to_tr = tr_intersect(p, w->p_h, w->r_h, w->Delta);
	to_bound = step_to_bound(p, w->tmp, w->rst, w->lo, w->hi, NULL);
	r_stride = fmin(to_bound, to_tr);
	if (r_stride > 0) {
		rl = (1 - theta) * p_stride / r_stride;
		ru = r_stride == to_bound ? theta * to_bound : to_tr;
	} else {
		rl = 0;
		ru = -1;
	}
	if (rl <= ru) {
		quad_1d(w, w->r_h, w->p_h, &a, &b, &c);
		r_stride = min_quad_1d(a, b, rl, ru, c, &r_value);
		for (i = 0; i < p; i++) {
			w->r_h[i] = w->r_h[i] * r_stride + w->p_h[i];
			w->rst[i] = w->r_h[i] * w->d[i];
		}
	} else
		r_value = INFINITY;
	/* Step back from the bound. */
	for (i = 0; i < p; i++) {
		w->pst[i] *= theta;
		w->p_h[i] *= theta;
	}
	p_value = quad_value(w, w->p_h);
	/* Gradient step. */
	for (i = 0; i < p; i++) {
		w->ag_h[i] = -w->g_h[i];
		w->ag[i] = w->d[i] * w->ag_h[i];
	}
	agn = het_nlsq_norm2(p, w->ag_h);
	to_tr = agn > 0 ? w->Delta / agn : INFINITY;
	to_bound = step_to_bound(p, w->x, w->ag, w->lo, w->hi, NULL);
	ag_stride = to_bound < to_tr ? theta * to_bound : to_tr;
	if (!isfinite(ag_stride))
		ag_stride = 0;
	quad_1d(w, w->ag_h, NULL, &a, &b, &c);
	ag_stride = min_quad_1d(a, b, 0, ag_stride, 0.0, &ag_value);
	for (i = 0; i < p; i++) {
		w->ag_h[i] *= ag_stride;
		w->ag[i] *= ag_stride;
	}
	if (p_value < r_value && p_value < ag_value) {
		memcpy(w->step, w->pst, p * sizeof(double));
		memcpy(w->step_h, w->p_h, p * sizeof(double));
		return -p_value;
	}
	if (r_value < p_value && r_value < ag_value) {
		memcpy(w->step, w->rst, p * sizeof(double));
		memcpy(w->step_h, w->r_h, p * sizeof(double));
		return -r_value;
	}
	memcpy(w->step, w->ag, p * sizeof(double));
	memcpy(w->step_h, w->ag_h, p * sizeof(double));
	return -ag_value;
}

