/*
 * het_nlsq_qblock.c: the quality report of a fit by block elimination
 * (het_nlsq_quality_blocks), for joint fits with thousands of
 * contrast/offset columns.
 *
 * Design.  het_nlsq_quality decomposes the whole p x p normal matrix
 * (dsyevr, O(p^3): about 17 s of one core at p = 4003, three times in a
 * fit whose basin escape runs two rounds, and a SIGTERM waits for it).
 * When every direction is kept and none is weak, that analysis only
 * confirms what a cheaper computation can prove, and the covariance is
 * the plain inverse.  The normal matrix of a joint fit has a dense head
 * (the physics columns) and a block-diagonal tail (each angle's
 * contrast/offset pair), so its inverse is formed by Schur complement
 * with the factorisation of the solver's block path
 * (het_nlsq_blk_chol):
 *	M^-1 = [ S^-1  -U^T ; -U  B^-1 + U W^T ],  W = B^-1 C^T,
 *	U = W S^-1,  S = P - C W,
 * in O(ns^2 nd) (one dgemm) for nd head and ns tail columns.  The
 * proof that the eigen-analysis would have found nothing to drop or
 * probe uses the two norms of the solver's gate and the parameters'
 * own uncertainties (het_nlsq.h); it is exact arithmetic on rounded
 * numbers, as the gate's.  The scaled matrix is built in q->corr's
 * memory and the inverse in q->cov's, so the report needs no p x p
 * scratch beyond the dense report's own (one more for a tail whose
 * columns are not in block order).
 */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_nlsq_impl.h"
#include "het_util.h"

#define BM	HET_NLSQ_BLOCK_MAX

/* The block layout and the factorisation's arrays. */
struct qblk {
	struct het_nlsq_blkdesc bd;
	size_t	*bstart, *bcol;
	long	*bid;		/* p: block of a column, -1 head */
	double	*bL, *bW, *bS;
};

static void
qb_free(struct qblk *b)
{
	free(b->bstart);
	free(b->bcol);
	free(b->bid);
	free(b->bL);
	free(b->bW);
	free(b->bS);
}

/* The layout of blk: 1, 0 (malformed: not for blocks) or -1 (memory). */
static int
qb_layout(size_t p, size_t nd, const size_t *blk, size_t nb,
    struct qblk *b)
{
	size_t ns = p - nd, c, k;

	if (blk == NULL || nb == 0 || nd >= p)
		return 0;
	b->bstart = calloc(nb + 1, sizeof(size_t));
	b->bcol = calloc(ns, sizeof(size_t));
	b->bid = calloc(p, sizeof(long));
	b->bL = calloc(nb * BM * BM, sizeof(double));
	b->bW = calloc(ns * nd + 1, sizeof(double));
	b->bS = calloc(nd * nd + 1, sizeof(double));
	if (b->bstart == NULL || b->bcol == NULL || b->bid == NULL ||
	    b->bL == NULL || b->bW == NULL || b->bS == NULL)
		return -1;
	for (c = 0; c < ns; c++) {
		if (blk[c] >= nb)
			return 0;
		b->bstart[blk[c] + 1]++;
	}
	for (k = 0; k < nb; k++) {
		if (b->bstart[k + 1] == 0 || b->bstart[k + 1] > BM)
			return 0;
		b->bstart[k + 1] += b->bstart[k];
	}
	for (c = 0; c < nd; c++)
		b->bid[c] = -1;
	for (c = 0; c < ns; c++) {	/* stable: bstart[k] counts up */
		b->bcol[b->bstart[blk[c]]++] = nd + c;
		b->bid[nd + c] = (long)blk[c];
	}
	for (k = nb; k > 0; k--)	/* restore the offsets */
		b->bstart[k] = b->bstart[k - 1];
	b->bstart[0] = 0;
	b->bd = (struct het_nlsq_blkdesc){ p, nd, nb, b->bstart, b->bcol };
	return 1;
}

/*
 * M (p x p) = jtj scaled to unit diagonal by cn; returns ||M||_inf, or
 * -1 when an entry between two blocks is not exactly zero or an entry
 * is not finite.
 */
static double
qb_scaled(size_t p, const double *jtj, const double *cn, const long *bid,
    double *M)
{
	size_t i, j;
	double s, v, an = 0.0;

	for (i = 0; i < p; i++) {
		s = 0.0;
		for (j = 0; j < p; j++) {
			v = jtj[i * p + j];
			if (!isfinite(v) || (bid[i] >= 0 && bid[j] >= 0 &&
			    bid[i] != bid[j] && v != 0))
				return -1.0;
			M[i * p + j] = v / (cn[i] * cn[j]);
			s += fabs(M[i * p + j]);
		}
		an = fmax(an, s);
	}
	return an;
}

/* Row r of the inverse of block b's matrix into e (m values). */
static void
qb_block_row(const struct qblk *b, size_t k, size_t r, double *e)
{
	size_t c, m = b->bstart[k + 1] - b->bstart[k];

	for (c = 0; c < m; c++)
		e[c] = c == r ? 1.0 : 0.0;
	het_chol_solve(m, b->bL + k * BM * BM, e);
}

/*
 * Minv (p x p, full) from the factorisation at alpha = 0.  T: ns x ns
 * scratch, or NULL when the tail columns are nd .. p-1 in block order
 * (then U W^T goes straight into Minv).  HET_OK or HET_ENOMEM.
 */
static int
qb_inverse(const struct qblk *b, double *Minv, double *T)
{
	size_t p = b->bd.p, nd = b->bd.nd, ns = p - nd, i, k, l, r, c, m,
	    s0;
	double *U, e[BM];

	if ((U = calloc(ns * nd + 1, sizeof(double))) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < ns; k++) {		/* U = W S^-1, by rows */
		memcpy(U + k * nd, b->bW + k * nd, nd * sizeof(double));
		het_chol_solve(nd, b->bS, U + k * nd);
	}
	for (i = 0; i < nd; i++) {		/* S^-1, row by row */
		for (k = 0; k < nd; k++)
			Minv[i * p + k] = i == k ? 1.0 : 0.0;
		het_chol_solve(nd, b->bS, Minv + i * p);
	}
	for (k = 0; k < ns; k++)
		for (i = 0; i < nd; i++)
			Minv[i * p + b->bcol[k]] = Minv[b->bcol[k] * p + i] =
			    -U[k * nd + i];
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)ns, (int)ns,
	    (int)nd, 1.0, U, (int)nd, b->bW, (int)nd, 0.0,
	    T != NULL ? T : Minv + nd * p + nd, T != NULL ? (int)ns : (int)p);
	if (T != NULL)
		for (k = 0; k < ns; k++)
			for (l = 0; l < ns; l++)
				Minv[b->bcol[k] * p + b->bcol[l]] =
				    T[k * ns + l];
	for (k = 0; k < b->bd.nb; k++) {	/* + B^-1 on the blocks */
		s0 = b->bstart[k];
		m = b->bstart[k + 1] - s0;
		for (r = 0; r < m; r++) {
			qb_block_row(b, k, r, e);
			for (c = 0; c < m; c++)
				Minv[b->bcol[s0 + r] * p + b->bcol[s0 + c]] +=
				    e[c];
		}
	}
	free(U);
	return HET_OK;
}

/* ||A||_inf of a p x p matrix (NaN propagates). */
static double
qb_norm_inf(size_t p, const double *A)
{
	size_t i, j;
	double s, best = 0.0;

	for (i = 0; i < p; i++) {
		s = 0.0;
		for (j = 0; j < p; j++)
			s += fabs(A[i * p + j]);
		if (!(s <= best))
			best = s;
	}
	return best;
}

/*
 * From M^-1 in q->cov: the proof (1 when it holds), then the covariance,
 * uncertainties and correlations in place.
 */
static int
qb_finish(struct het_nlsq_quality *q, double an, const double *lo,
    const double *hi, double weak_rtol, double weak_step)
{
	size_t i, j, p = q->p;
	double in = qb_norm_inf(p, q->cov), need;

	need = fmax(weak_rtol, HET_NLSQ_QUAL_RTOL * (double)p * DBL_EPSILON);
	if (!(in > 0) || !isfinite(in) || !(1.0 / (an * in) >= need))
		return 0;
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			q->cov[i * p + j] *= q->s2 / (q->cn[i] * q->cn[j]);
	for (i = 0; i < p; i++) {
		q->unc[i] = sqrt(fabs(q->cov[i * p + i]));
		if (lo != NULL && hi != NULL && isfinite(hi[i] - lo[i]) &&
		    !(q->unc[i] < weak_step * (hi[i] - lo[i])))
			return 0;
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			q->corr[i * p + j] = q->cov[i * p + j] /
			    (q->unc[i] * q->unc[j]);
	q->lmax = an;
	q->rank = p;
	q->by_blocks = 1;
	for (i = 0; i < p; i++)
		q->flat[i] = 1.0;	/* dir[] stays KEPT (zeroed) */
	return 1;
}

int
het_nlsq_quality_blocks(size_t p, const double *jtj, double s2,
    const double *x, const double *lo, const double *hi,
    const char *const *names, const char *const *cause, size_t nd,
    const size_t *blk, size_t nb, double weak_rtol, double weak_step,
    int *used, struct het_nlsq_quality *q, struct het_error *err)
{
	struct qblk b;
	double an, *T = NULL;
	size_t i, ns = p - nd;
	int rc, lay, ok = 0;

	*used = 0;
	memset(&b, 0, sizeof(b));
	memset(q, 0, sizeof(*q));
	if (p == 0 || !(s2 > 0) || !isfinite(s2))
		return HET_OK;
	if ((lay = qb_layout(p, nd, blk, nb, &b)) <= 0) {
		qb_free(&b);
		return lay < 0 ? het_error_set(err, HET_ENOMEM, "fit report: "
		    "out of memory") : HET_OK;
	}
	if ((rc = het_nlsq_quality_alloc(q, p, s2, cause, 0, err)) != HET_OK)
		goto out;
	for (i = 0; i < p; i++) {
		q->cn[i] = jtj[i * p + i] > 0 && isfinite(jtj[i * p + i]) ?
		    sqrt(jtj[i * p + i]) : 0.0;
		if (q->cn[i] == 0)
			goto out;	/* a zero column: the dense report */
	}
	for (i = 0; i < ns && T == NULL; i++)
		if (b.bcol[i] != nd + i &&
		    (T = malloc(ns * ns * sizeof(double))) == NULL) {
			rc = het_error_set(err, HET_ENOMEM, "fit report: out "
			    "of memory");
			goto out;
		}
	an = qb_scaled(p, jtj, q->cn, b.bid, q->corr);
	if (!(an > 0) || het_nlsq_blk_chol(&b.bd, q->corr, 0.0, b.bL, b.bW,
	    b.bS) != 0)
		goto out;
	if ((rc = qb_inverse(&b, q->cov, T)) != HET_OK) {
		rc = het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
		goto out;
	}
	if ((ok = qb_finish(q, an, lo, hi, weak_rtol, weak_step)) == 0)
		goto out;
	het_nlsq_quality_bounds(q, x, lo, hi);
	rc = het_nlsq_quality_warn(x, lo, hi, names, q, err);
out:
	free(T);
	qb_free(&b);
	if (rc != HET_OK || !ok)
		het_nlsq_quality_fini(q);
	else
		*used = 1;
	return rc;
}
