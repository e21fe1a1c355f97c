#include "config.h"

/*
 * het_separable_pass.c: the passes of the separable likelihood over
 * frames and pairs (het_separable.h for the mathematics,
 * het_separable.c for their order).
 *
 * Layout: the components A_c, B_c and their adjoints are stored frame
 * by frame, SEP_NC doubles per frame, so that the loops over the pairs
 * of a row read four adjacent doubles per column and the compiler can
 * vectorise across components without reassociating any sum; each sum
 * over j runs in order.  Factors of block b are shifted by the L of the
 * block's first frame: A_c(i) = P exp(L(i) - L(b0)) trig, B_c(j) = Q
 * exp(L(b0) - L(j)) trig, so A_c(i) <= P e^300 on the block's rows and
 * B_c(j) <= Q for j >= b0.
 */

#include <math.h>
#include <string.h>

#include "het_separable_impl.h"

_Static_assert(SEP_NC == 4, "the pair loops hold a frame's components in "
    "two sep_v2");

/*
 * The components of the model's terms: one per term, the oscillating
 * one split into its cos and sin halves.  Returns the count.
 */
size_t
het_sep_components(struct het_separable *s)
{
	size_t t, c = 0;

	for (t = 0; t < s->fr.nterm; t++) {
		s->term[c] = (int)t;
		s->trig[c++] = (long)t == s->fr.osc ? TRIG_COS : TRIG_ONE;
		if ((long)t == s->fr.osc) {
			s->cosc = c - 1;
			s->term[c] = (int)t;
			s->trig[c++] = TRIG_SIN;
		}
	}
	return c;
}

/* Blocks [blk[b], blk[b + 1]) over which no L_t rises by more than
 * SEP_SHIFT_MAX; returns their number. */
size_t
het_sep_blocks(struct het_separable *s)
{
	size_t k, t, nb = 0;

	s->blk[0] = 0;
	for (k = 1; k < s->N; k++)
		for (t = 0; t < s->fr.nterm; t++)
			if (s->fr.L[t][k] - s->fr.L[t][s->blk[nb]] >
			    SEP_SHIFT_MAX) {
				s->blk[++nb] = k;
				break;
			}
	s->blk[++nb] = s->N;
	return nb;
}

/* exp(x), with the values below the double range set to 0 directly. */
static double
sep_exp(double x)
{
	return x < SEP_EXP_MIN ? 0.0 : exp(x);
}

/* The shifted exponentials of block [b0, b1): EA on its rows, EB on
 * every frame from b0 on. */
void
het_sep_shift(struct het_separable *s, size_t b0, size_t b1)
{
	const double *L;
	double sh;
	size_t t, k;

	for (t = 0; t < s->fr.nterm; t++) {
		L = s->fr.L[t];
		sh = L[b0];
		for (k = b0; k < b1; k++)
			s->EA[t * s->N + k] = exp(L[k] - sh);
		for (k = b0; k < s->N; k++)
			s->EB[t * s->N + k] = sep_exp(sh - L[k]);
	}
}

/* The trigonometric factor of component c at frame k of angle a. */
static double
sep_trig(const struct het_separable *s, int kind, size_t a, size_t k)
{
	if (kind == TRIG_COS)
		return s->cs[a * s->N + k];
	return kind == TRIG_SIN ? s->sn[a * s->N + k] : 1.0;
}

/* A_c on the rows of the block, B_c from b0 on; zeroed adjoints. */
void
het_sep_factors(struct het_separable *s, size_t a, size_t b0, size_t b1,
    int grad)
{
	size_t c, k, t, N = s->N;
	double tr;

	memset(s->A + b0 * SEP_NC, 0, (b1 - b0) * SEP_NC * sizeof(double));
	memset(s->B + b0 * SEP_NC, 0, (N - b0) * SEP_NC * sizeof(double));
	for (c = 0; c < s->ncomp; c++) {
		t = (size_t)s->term[c];
		for (k = b0; k < N; k++) {
			tr = sep_trig(s, s->trig[c], a, k);
			if (k < b1)
				s->A[k * SEP_NC + c] = s->fr.P[t][k] *
				    s->EA[t * N + k] * tr;
			s->B[k * SEP_NC + c] = s->fr.Q[t][k] *
			    s->EB[t * N + k] * tr;
		}
	}
	if (!grad)
		return;
	memset(s->gA + b0 * SEP_NC, 0, (b1 - b0) * SEP_NC * sizeof(double));
	memset(s->gB + b0 * SEP_NC, 0, (N - b0) * SEP_NC * sizeof(double));
}

/*
 * Complete triangle, rows [b0, b1): sum y g into acc[0]; with gY = d f/d
 * (sum y g), the adjoints gY U B_c of A_c and gY U^T A_c of B_c.
 */
void
het_sep_pass_full(struct het_separable *s, const double *U, size_t b0,
    size_t b1, double gY, int grad, double *acc)
{
	const double *u, *Ai;
	const sep_v2 *B;
	sep_v2 *gB, uc0, uc1, al0, al1;
	double uc[SEP_NC], y;
	size_t i, k, c, n, N = s->N;

	for (i = b0; i < b1 && i + 1 < N; i++) {
		u = U + sep_row_off(N, i);
		n = N - i - 1;
		/* components 0-1 and 2-3 of frame k: B[2k], B[2k + 1] */
		B = (const sep_v2 *)(s->B + (i + 1) * SEP_NC);
		gB = (sep_v2 *)(s->gB + (i + 1) * SEP_NC);
		Ai = s->A + i * SEP_NC;
		uc0 = uc1 = (sep_v2){ 0, 0 };
		al0 = (sep_v2){ gY * Ai[0], gY * Ai[1] };
		al1 = (sep_v2){ gY * Ai[2], gY * Ai[3] };
		if (grad)
			for (k = 0; k < n; k++) {
				y = u[k];
				uc0 += y * B[2 * k];
				uc1 += y * B[2 * k + 1];
				gB[2 * k] += y * al0;
				gB[2 * k + 1] += y * al1;
			}
		else
			for (k = 0; k < n; k++) {
				uc0 += u[k] * B[2 * k];
				uc1 += u[k] * B[2 * k + 1];
			}
		uc[0] = uc0[0];
		uc[1] = uc0[1];
		uc[2] = uc1[0];
		uc[3] = uc1[1];
		for (c = 0; c < SEP_NC; c++) {
			acc[0] += Ai[c] * uc[c];
			if (grad)
				s->gA[i * SEP_NC + c] += gY * uc[c];
		}
	}
}

/*
 * Complete triangle, rows [b0, b1), each residual formed: r = dd + con
 * g - u of every pair, acc[0..2] += sum r^2, sum r g, sum r as the
 * incomplete pass gives them, and with the gradient e = ad[0] g + ad[1]
 * - ad[2] u onto the adjoints.  Twice the work of het_sep_pass_full and
 * the moments, without their cancellation: the sums of a noise-free fit
 * at its optimum are rounding, not rounding times sum u^2 (the least
 * squares' choice, het_separable_normal).
 */
void
het_sep_pass_direct(struct het_separable *s, const double *U, size_t b0,
    size_t b1, double dd, double con, const double *ad, int grad,
    double *acc)
{
	const double *u, *Ai;
	const sep_v2 *B;
	sep_v2 *gB, *gA, ga0, ga1, a0, a1, gv;
	double g, r, e, ss = 0, sg = 0, sr = 0;
	size_t i, k, n, N = s->N;

	for (i = b0; i < b1 && i + 1 < N; i++) {
		u = U + sep_row_off(N, i);
		n = N - i - 1;
		B = (const sep_v2 *)(s->B + (i + 1) * SEP_NC);
		gB = (sep_v2 *)(s->gB + (i + 1) * SEP_NC);
		Ai = s->A + i * SEP_NC;
		a0 = (sep_v2){ Ai[0], Ai[1] };
		a1 = (sep_v2){ Ai[2], Ai[3] };
		ga0 = ga1 = (sep_v2){ 0, 0 };
		for (k = 0; k < n; k++) {
			gv = a0 * B[2 * k] + a1 * B[2 * k + 1];
			g = gv[0] + gv[1];
			r = dd + con * g - u[k];
			ss += r * r;
			sg += r * g;
			sr += r;
			if (!grad)
				continue;
			e = ad[0] * g + ad[1] - ad[2] * u[k];
			ga0 += e * B[2 * k];
			ga1 += e * B[2 * k + 1];
			gB[2 * k] += e * a0;
			gB[2 * k + 1] += e * a1;
		}
		if (grad) {
			gA = (sep_v2 *)(s->gA + i * SEP_NC);
			gA[0] += ga0;
			gA[1] += ga1;
		}
	}
	acc[0] += ss;
	acc[1] += sg;
	acc[2] += sr;
}

/*
 * Complete triangle: sum g (acc[1]) and sum g^2 (acc[2]) over the pairs
 * whose row lies in [b0, b1), from prefix sums of A_c and A_c A_d over
 * the rows; with k1 = d f/d sum g and k2 = d f/d sum g^2, their
 * adjoints (suffix sums of B_c and B_c B_d for the rows).
 */
void
het_sep_moments(struct het_separable *s, size_t b0, size_t b1, double k1,
    double k2, int grad, double *acc)
{
	double T[SEP_NC] = { 0 }, TT[SEP_NC * SEP_NC] = { 0 }, be[SEP_NC];
	double *X, g1 = 0, g2 = 0;
	size_t i, j, c, d, N = s->N;

	for (j = b0; j < N; j++) {
		X = s->B + j * SEP_NC;
		for (c = 0; c < SEP_NC; c++) {
			be[c] = 0;
			for (d = 0; d < SEP_NC; d++)
				be[c] += TT[c * SEP_NC + d] * X[d];
			g1 += X[c] * T[c];
			g2 += X[c] * be[c];
			if (grad)
				s->gB[j * SEP_NC + c] += k1 * T[c] +
				    2.0 * k2 * be[c];
		}
		if (j >= b1)
			continue;
		X = s->A + j * SEP_NC;
		for (c = 0; c < SEP_NC; c++) {
			T[c] += X[c];
			for (d = 0; d < SEP_NC; d++)
				TT[c * SEP_NC + d] += X[c] * X[d];
		}
	}
	acc[1] += g1;
	acc[2] += g2;
	if (!grad)
		return;
	/* T, TT now hold the suffix sums of B over j > i */
	memset(T, 0, sizeof(T));
	memset(TT, 0, sizeof(TT));
	for (i = N; i-- > b0;) {
		if (i < b1)
			for (c = 0; c < SEP_NC; c++) {
				be[c] = 0;
				for (d = 0; d < SEP_NC; d++)
					be[c] += TT[c * SEP_NC + d] *
					    s->A[i * SEP_NC + d];
				s->gA[i * SEP_NC + c] += k1 * T[c] +
				    2.0 * k2 * be[c];
			}
		X = s->B + i * SEP_NC;
		for (c = 0; c < SEP_NC; c++) {
			T[c] += X[c];
			for (d = 0; d < SEP_NC; d++)
				TT[c * SEP_NC + d] += X[c] * X[d];
		}
	}
}

/*
 * Incomplete angle a, rows [b0, b1): the residual r = dd + con g - u of
 * each of its pairs, acc[0..2] += sum r^2, sum r g, sum r; with the
 * gradient, e = ad[0] g + ad[1] - ad[2] u is d f/d g and goes to the
 * adjoints of A_c, B_c (the residual form: ad = ce (con, dd, 1)).
 */
void
het_sep_pass_sparse(struct het_separable *s, size_t a, size_t b0, size_t b1,
    double dd, double con, const double *ad, int grad, double *acc)
{
	const struct sep_ent *en = s->ent[a];
	const size_t *rp = s->rp[a];
	const double *Ai, *Bj;
	const sep_v2 *Av, *Bv;
	sep_v2 *gB, *gA, ga0, ga1;
	double g, r, e, ss = 0, sg = 0, sr = 0;
	size_t i, k, c;

	for (i = b0; i < b1; i++) {
		Ai = s->A + i * SEP_NC;
		Av = (const sep_v2 *)Ai;
		ga0 = ga1 = (sep_v2){ 0, 0 };
		for (k = rp[i]; k < rp[i + 1]; k++) {
			Bj = s->B + (size_t)en[k].j * SEP_NC;
			g = 0;
			for (c = 0; c < SEP_NC; c++)
				g += Ai[c] * Bj[c];
			r = dd + con * g - en[k].u;
			ss += r * r;
			sg += r * g;
			sr += r;
			if (!grad)
				continue;
			e = ad[0] * g + ad[1] - ad[2] * en[k].u;
			Bv = (const sep_v2 *)Bj;
			gB = (sep_v2 *)(s->gB + (size_t)en[k].j * SEP_NC);
			ga0 += e * Bv[0];
			ga1 += e * Bv[1];
			gB[0] += e * Av[0];
			gB[1] += e * Av[1];
		}
		if (grad) {
			gA = (sep_v2 *)(s->gA + i * SEP_NC);
			gA[0] += ga0;
			gA[1] += ga1;
		}
	}
	acc[0] += ss;
	acc[1] += sg;
	acc[2] += sr;
}

/*
 * The factor rho of component c for pair (i, j): the product of
 * rho[t][k] over the keys k whose L_k is equal at i and j.
 */
static double
sep_rho(const struct het_separable *s, size_t c, size_t i, size_t j)
{
	double f = 1.0;
	size_t k;

	for (k = 0; k < s->fr.nterm; k++)
		if (s->fr.L[k][i] == s->fr.L[k][j])
			f *= s->fr.rho[s->term[c]][k];
	return f;
}

/*
 * One pair (i, j) with centred datum u inside a run of equal L_k
 * (het_model.h: the reference's sabs floor): the passes used g =
 * sum_c A_c B_c, the model's value is g' = sum_c rho_c A_c B_c.  Add
 * the differences of r^2, r g and r to acc[0..2] (r = dd + con g - u,
 * r' with g') and of the adjoints e' dg'/dA_c - e dg/dA_c (B_c alike)
 * with e = ad[0] g + ad[1] - ad[2] u, e' with g'.
 */
static void
sep_fix_pair(struct het_separable *s, size_t i, size_t j, double u,
    double dd, double con, const double *ad, int grad, double *acc)
{
	const double *Ai = s->A + i * SEP_NC, *Bj = s->B + j * SEP_NC;
	double rc[SEP_NC], g = 0, gp = 0, p, r, rp, e, ep, e0;
	size_t c;

	for (c = 0; c < s->ncomp; c++) {
		rc[c] = sep_rho(s, c, i, j);
		p = Ai[c] * Bj[c];
		g += p;
		gp += rc[c] * p;
	}
	r = dd + con * g - u;
	rp = dd + con * gp - u;
	acc[0] += rp * rp - r * r;
	acc[1] += rp * gp - r * g;
	acc[2] += rp - r;
	if (!grad)
		return;
	e0 = ad[0] * g + ad[1] - ad[2] * u;
	ep = ad[0] * gp + ad[1] - ad[2] * u;
	for (c = 0; c < s->ncomp; c++) {
		e = ep * rc[c] - e0;
		s->gA[i * SEP_NC + c] += e * Bj[c];
		s->gB[j * SEP_NC + c] += e * Ai[c];
	}
}

/* The fix-up of every pair of angle a's rows [b0, b1) inside a run. */
void
het_sep_fixup(struct het_separable *s, size_t a, size_t b0, size_t b1,
    double dd, double con, const double *ad, int grad, double *acc)
{
	size_t i, j, k, jm, N = s->N;

	for (i = b0; i < b1; i++) {
		for (jm = i, k = 0; k < s->fr.nterm; k++)
			if (s->rend[k * N + i] > jm)
				jm = s->rend[k * N + i];
		if (jm == i)
			continue;
		if (s->U[a] != NULL)
			for (j = i + 1; j <= jm; j++)
				sep_fix_pair(s, i, j, s->U[a][sep_row_off(N,
				    i) + (j - i - 1)], dd, con, ad, grad, acc);
		else
			for (k = s->rp[a][i]; k < s->rp[a][i + 1]; k++)
				if (s->ent[a][k].j <= jm)
					sep_fix_pair(s, i, s->ent[a][k].j,
					    s->ent[a][k].u, dd, con, ad, grad,
					    acc);
	}
}

/*
 * The runs of equal L_k for the keys k that carry a rho factor: rend[k
 * N + i] is the last frame j >= i with L_k(j) == L_k(i) (i itself for
 * keys without a factor).  Sets s->fix when some run has two frames.
 */
void
het_sep_runs(struct het_separable *s)
{
	size_t k, t, i, N = s->N;
	int key;

	s->fix = 0;
	for (k = 0; k < s->fr.nterm; k++) {
		for (key = 0, t = 0; t < s->fr.nterm; t++)
			key |= s->fr.rho[t][k] != 1.0;
		s->rend[k * N + N - 1] = N - 1;
		for (i = N - 1; i-- > 0;) {
			s->rend[k * N + i] = key && s->fr.L[k][i] ==
			    s->fr.L[k][i + 1] ? s->rend[k * N + i + 1] : i;
			s->fix |= s->rend[k * N + i] > i;
		}
	}
}

/*
 * Fold the adjoints of A_c (rows [b0, b1)) and B_c (frames from b0) of
 * angle a onto P_t, Q_t, L_t, and through the phase onto V and qa_a:
 * A = P EA trig, so dA/dP = EA trig, dA/dL = A, d A_cos/d th = -A_sin,
 * d A_sin/d th = A_cos, d th/d V = qa_a, d th/d qa_a = V (B likewise,
 * with dB/dL = -B).
 */
void
het_sep_fold(struct het_separable *s, size_t a, size_t b0, size_t b1)
{
	const double *A = s->A, *B = s->B, *gA = s->gA, *gB = s->gB;
	size_t c, k, t, N = s->N;
	double tr, gth, aq = 0;

	for (c = 0; c < s->ncomp; c++) {
		t = (size_t)s->term[c];
		for (k = b0; k < N; k++) {
			tr = sep_trig(s, s->trig[c], a, k);
			if (k < b1) {
				s->ad.P[t][k] += gA[k * SEP_NC + c] *
				    s->EA[t * N + k] * tr;
				s->ad.L[t][k] += gA[k * SEP_NC + c] *
				    A[k * SEP_NC + c];
			}
			s->ad.Q[t][k] += gB[k * SEP_NC + c] *
			    s->EB[t * N + k] * tr;
			s->ad.L[t][k] -= gB[k * SEP_NC + c] * B[k * SEP_NC + c];
		}
	}
	if (s->fr.osc < 0)
		return;
	c = s->cosc;	/* its sin component is c + 1 */
	for (k = b0; k < N; k++) {
		gth = gB[k * SEP_NC + c + 1] * B[k * SEP_NC + c] -
		    gB[k * SEP_NC + c] * B[k * SEP_NC + c + 1];
		if (k < b1)
			gth += gA[k * SEP_NC + c + 1] * A[k * SEP_NC + c] -
			    gA[k * SEP_NC + c] * A[k * SEP_NC + c + 1];
		s->ad.V[k] += s->fr.qa[a] * gth;
		aq += gth * s->fr.V[k];
	}
	s->ad.qa[a] += aq;
}
