/*
 * het_nlsq_block.c: the trust-region subproblem of the TRF solver by
 * block elimination, for normal matrices with a dense head and a
 * block-diagonal tail (het_nlsq_set_blocks): a fit's physics columns
 * and the contrast/offset pair of each angle.
 *
 * Design.  The dense path (het_nlsq.c) decomposes the p x p augmented
 * matrix A = V S^2 V^T (LAPACK dsyevr, O(p^3): 11 s of one core at
 * p = 4003, and not interruptible) and then evaluates, for each
 * Levenberg-Marquardt parameter alpha of the secular iteration,
 *	p(alpha) = -V (S^2 + alpha)^-1 V^T g_h = -(A + alpha I)^-1 g_h,
 *	||p||' = -p^T (A + alpha I)^-1 p / ||p||.
 * When every eigen-direction is kept (full rank) these are the only
 * quantities the step needs, and with
 *	A = [ P  C ; C^T  B ],  B block-diagonal (blocks of at most
 *	HET_NLSQ_BLOCK_MAX columns),
 * a solve with A + alpha I costs O(ns nd^2 + nd^3) by the Schur
 * complement S = P + alpha - C (B + alpha)^-1 C^T (nd head columns, ns
 * tail columns): Cholesky of each block and of S.  The two paths are
 * the same algebra; they differ by rounding only.
 *
 * Gate: the block path must make the dense path's rank decision (keep
 * every direction: lam_min > 100 p eps lam_max), so it runs only when a
 * rigorous bound shows lam_min / lam_max >= BLK_GATE (far above that
 * threshold, and low enough a condition number that the Schur
 * complement loses no more than a few digits): lam_max <= ||A||_inf and
 * lam_min >= 1 / ||A^-1||_inf, with A^-1 formed by blocks in
 * O(ns^2 nd).  It also checks that the entries between different
 * blocks are exactly zero and that n >= p.  Otherwise, or when a
 * Cholesky factorisation fails, the iteration takes the dense path.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_nlsq_impl.h"
#include "het_util.h"

#define BLK_GATE	1e-8	/* lam_min / lam_max bound of the block path */
#define BM		HET_NLSQ_BLOCK_MAX

int
het_nlsq_set_blocks(struct het_nlsq *w, size_t nd, const size_t *blk,
    size_t nb, struct het_error *err)
{
	size_t p = w->p, ns, c, b, *cnt = NULL;

	free(w->bstart); free(w->bcol); free(w->bid); free(w->bL);
	free(w->bW); free(w->bS); free(w->bt); free(w->bp); free(w->bq);
	w->bstart = w->bcol = NULL;
	w->bid = NULL;
	w->bL = w->bW = w->bS = w->bt = w->bp = w->bq = NULL;
	w->nd = w->nb = 0;
	w->blk_on = 0;
	if (blk == NULL)
		return HET_OK;
	if (nd >= p || nb == 0)
		return het_error_set(err, HET_EINVAL, "least squares: blocks "
		    "need a tail (%zu dense columns of %zu) and at least one "
		    "block (%zu)", nd, p, nb);
	ns = p - nd;
	if ((cnt = calloc(nb, sizeof(*cnt))) == NULL)
		return het_error_set(err, HET_ENOMEM, "least squares: out of "
		    "memory");
	for (c = 0; c < ns; c++) {
		if (blk[c] >= nb) {
			free(cnt);
			return het_error_set(err, HET_EINVAL, "least squares: "
			    "column %zu is in block %zu of %zu", nd + c,
			    blk[c], nb);
		}
		cnt[blk[c]]++;
	}
	for (b = 0; b < nb; b++)
		if (cnt[b] == 0 || cnt[b] > BM) {
			c = cnt[b];
			free(cnt);
			return het_error_set(err, HET_EINVAL, "least squares: "
			    "block %zu has %zu columns; each needs 1 to %d",
			    b, c, BM);
		}
	w->bstart = het_alloc_array(nb + 1, sizeof(size_t), "least squares",
	    err);
	w->bcol = het_alloc_array(ns, sizeof(size_t), "least squares", err);
	w->bid = het_alloc_array(p, sizeof(long), "least squares", err);
	w->bL = het_alloc_array(nb * BM * BM, sizeof(double),
	    "least squares", err);
	w->bW = het_alloc_array(ns * nd + 1, sizeof(double), "least squares",
	    err);
	w->bS = het_alloc_array(nd * nd + 1, sizeof(double), "least squares",
	    err);
	w->bt = het_alloc_array(nd + nd * nd + ns * nd + 1, sizeof(double),
	    "least squares", err);
	w->bp = het_alloc_array(p, sizeof(double), "least squares", err);
	w->bq = het_alloc_array(p, sizeof(double), "least squares", err);
	if (w->bstart == NULL || w->bcol == NULL || w->bid == NULL ||
	    w->bL == NULL || w->bW == NULL || w->bS == NULL || w->bt == NULL ||
	    w->bp == NULL || w->bq == NULL) {
		free(cnt);
		het_nlsq_set_blocks(w, 0, NULL, 0, NULL);
		return HET_ENOMEM;
	}
	w->bstart[0] = 0;
	for (b = 0; b < nb; b++)
		w->bstart[b + 1] = w->bstart[b] + cnt[b];
	memset(cnt, 0, nb * sizeof(*cnt));
	for (c = 0; c < nd; c++)
		w->bid[c] = -1;
	for (c = 0; c < ns; c++) {
		w->bcol[w->bstart[blk[c]] + cnt[blk[c]]++] = nd + c;
		w->bid[nd + c] = (long)blk[c];
	}
	free(cnt);
	w->nd = nd;
	w->nb = nb;
	return HET_OK;
}

int
het_nlsq_blocks_used(const struct het_nlsq *w)
{
	return w->blk_on;
}

int
het_nlsq_blk_chol(const struct het_nlsq_blkdesc *bd, const double *A,
    double alpha, double *bL, double *bW, double *bS)
{
	size_t p = bd->p, nd = bd->nd, b, r, c, m, i, k, s0;
	double *L, t[BM], v;

	for (i = 0; i < nd; i++)
		for (k = 0; k < nd; k++)
			bS[i * nd + k] = A[i * p + k] + (i == k ? alpha : 0.0);
	for (b = 0; b < bd->nb; b++) {
		s0 = bd->bstart[b];
		m = bd->bstart[b + 1] - s0;
		L = bL + b * BM * BM;
		for (r = 0; r < m; r++)
			for (c = 0; c < m; c++)
				L[r * m + c] = A[bd->bcol[s0 + r] * p +
				    bd->bcol[s0 + c]] + (r == c ? alpha : 0.0);
		if (het_chol(m, L) != 0)
			return -1;
		for (k = 0; k < nd; k++) {
			for (r = 0; r < m; r++)
				t[r] = A[k * p + bd->bcol[s0 + r]];
			het_chol_solve(m, L, t);
			for (r = 0; r < m; r++)
				bW[(s0 + r) * nd + k] = t[r];
		}
		for (i = 0; i < nd; i++)
			for (k = 0; k < nd; k++) {
				v = 0.0;
				for (r = 0; r < m; r++)
					v += A[i * p + bd->bcol[s0 + r]] *
					    bW[(s0 + r) * nd + k];
				bS[i * nd + k] -= v;
			}
	}
	return het_chol(nd, bS) != 0 ? -1 : 0;
}

/*
 * Factorise A + alpha I (het_nlsq_blk_chol into the workspace), cached
 * by alpha until the next decompose.
 */
int
het_nlsq_blk_factor(struct het_nlsq *w, double alpha)
{
	struct het_nlsq_blkdesc bd = { w->p, w->nd, w->nb, w->bstart,
	    w->bcol };

	if (w->bvalid && w->balpha == alpha)
		return w->bok;
	w->bvalid = 1;
	w->balpha = alpha;
	w->bok = het_nlsq_blk_chol(&bd, w->A, alpha, w->bL, w->bW, w->bS);
	return w->bok;
}

/* x = (A + alpha I)^-1 rhs with the factorisation in place (x and rhs
   distinct). */
void
het_nlsq_blk_solve(struct het_nlsq *w, const double *rhs, double *x)
{
	const double *A = w->A;
	size_t p = w->p, nd = w->nd, b, r, m, i, k, s0;
	double *t1 = w->bt, y[BM], v;

	for (i = 0; i < nd; i++)
		t1[i] = rhs[i];
	for (b = 0; b < w->nb; b++) {
		s0 = w->bstart[b];
		m = w->bstart[b + 1] - s0;
		for (r = 0; r < m; r++)
			y[r] = rhs[w->bcol[s0 + r]];
		het_chol_solve(m, w->bL + b * BM * BM, y);
		for (r = 0; r < m; r++)
			x[w->bcol[s0 + r]] = y[r];
		for (i = 0; i < nd; i++) {
			v = 0.0;
			for (r = 0; r < m; r++)
				v += A[i * p + w->bcol[s0 + r]] * y[r];
			t1[i] -= v;
		}
	}
	het_chol_solve(nd, w->bS, t1);
	for (i = 0; i < nd; i++)
		x[i] = t1[i];
	for (k = 0; k < p - nd; k++) {
		v = 0.0;
		for (i = 0; i < nd; i++)
			v += w->bW[k * nd + i] * x[i];
		x[w->bcol[k]] -= v;
	}
}

/*
 * ||A^-1||_inf from the factorisation at alpha = 0: with U = W S^-1,
 *	A^-1 = [ S^-1  -U^T ; -U  B^-1 + U W^T ].
 */
static double
inv_norm(struct het_nlsq *w)
{
	size_t nd = w->nd, ns = w->p - nd, b, r, c, m, i, k, l, s0;
	double *Si = w->bt + nd, *U = Si + nd * nd, e[BM], best = 0.0, s, v;
	const double *L;

	/* S^-1 column by column, U row by row (S symmetric). */
	for (k = 0; k < nd; k++) {
		for (i = 0; i < nd; i++)
			Si[k * nd + i] = i == k ? 1.0 : 0.0;
		het_chol_solve(nd, w->bS, Si + k * nd);
	}
	for (k = 0; k < ns; k++) {
		memcpy(U + k * nd, w->bW + k * nd, nd * sizeof(double));
		het_chol_solve(nd, w->bS, U + k * nd);
	}
	for (i = 0; i < nd; i++) {
		s = 0.0;
		for (k = 0; k < nd; k++)
			s += fabs(Si[i * nd + k]);
		for (k = 0; k < ns; k++)
			s += fabs(U[k * nd + i]);
		best = fmax(best, s);
	}
	for (b = 0; b < w->nb; b++) {
		s0 = w->bstart[b];
		m = w->bstart[b + 1] - s0;
		L = w->bL + b * BM * BM;
		for (r = 0; r < m; r++) {
			/* row r of B_b^-1 */
			for (c = 0; c < m; c++)
				e[c] = c == r ? 1.0 : 0.0;
			het_chol_solve(m, L, e);
			k = s0 + r;
			s = 0.0;
			for (i = 0; i < nd; i++)
				s += fabs(U[k * nd + i]);
			for (l = 0; l < ns; l++) {
				v = 0.0;
				for (i = 0; i < nd; i++)
					v += U[k * nd + i] * w->bW[l * nd + i];
				if (l >= s0 && l < s0 + m)
					v += e[l - s0];
				s += fabs(v);
			}
			best = fmax(best, s);
		}
	}
	return best;
}

int
het_nlsq_blk_gate(struct het_nlsq *w)
{
	const double *A = w->A;
	size_t p = w->p, nd = w->nd, i, j;
	double an = 0.0, s, v, in;

	w->bvalid = 0;
	w->bgate = 0.0;
	if (w->nb == 0 || w->n < p)
		return 0;
	for (i = 0; i < p; i++) {
		s = 0.0;
		for (j = 0; j < p; j++) {
			v = A[i * p + j];
			s += fabs(v);
			if (i >= nd && j >= nd && v != 0 &&
			    w->bid[i] != w->bid[j])
				return 0;
		}
		an = fmax(an, s);
	}
	if (!(an > 0) || !isfinite(an) || het_nlsq_blk_factor(w, 0.0) != 0)
		return 0;
	in = inv_norm(w);
	if (!(in > 0) || !isfinite(in))
		return 0;
	w->bgate = 1.0 / (an * in);
	return w->bgate >= BLK_GATE;
}
