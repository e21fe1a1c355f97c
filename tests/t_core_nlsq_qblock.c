/*
 * t_core_nlsq_qblock.c: the quality report by blocks
 * (het_nlsq_quality_blocks) against the eigen-analysis
 * (het_nlsq_quality) on normal matrices with a fit's structure.
 *
 * Problem: J^T J of NR rows per block: NDH head columns (a fit's
 * physics, dense) and NB blocks of two columns (an angle's contrast and
 * offset), each row touching the head and one block; pseudo-random
 * entries from a fixed LCG.  Head columns 0 and 1 are nearly collinear
 * (correlation about 0.995: a warning), parameter 2 sits on its lower
 * bound (a warning).  Two layouts of the tail: a fit's (contrasts
 * NDH .. NDH+NB-1, then offsets: the blocks interleaved, the inverse
 * through the scratch matrix) and block order (straight into place).
 *
 * Checks:
 *   - both layouts: made (used 1, by_blocks, rank p, every direction
 *     kept, nothing degenerate); covariance, correlations and
 *     uncertainties within 1e-10 relative of the eigen-analysis's
 *     (measured 2026-11-27 below 1e-13); the same warnings, word for
 *     word; a combination's sd as het_nlsq_quality_combo gives it from
 *     the eigen-analysis; het_nlsq_quality_drop refuses (no
 *     eigen-directions), het_nlsq_quality_step gives 0;
 *   - soundness of the proof: head column 1 moved towards column 0 by
 *     eps = 1e-1 .. 1e-7: whenever the report by blocks is made, the
 *     eigen-analysis's lam_min / lam_max is >= the weak_rtol asked
 *     (1e-7); made at the well-conditioned end, refused at the
 *     collinear end;
 *   - refusals (used 0, q left empty): a zero column, an entry between
 *     two blocks, an uncertainty of 1 % of a bound range or more
 *     (made with weak_step Inf), s2 <= 0, malformed structures (a block
 *     id out of range, a block of 10 columns, blk NULL, no tail).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_nlsq.h"
#include "tap.h"

#define NDH	3
#define NB	40
#define NR	12
#define P	(NDH + 2 * NB)

static unsigned long lcg_state;

static double
lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005UL + 1442695040888963407UL;
	return (double)(lcg_state >> 11) / 9007199254740992.0 - 0.5;
}

/*
 * J^T J (P x P) with the tail in the fit layout (interleaved: column
 * of block b's contrast NDH + b, offset NDH + NB + b) or in block order
 * (NDH + 2b, NDH + 2b + 1); blk gets the block of each tail column.
 * eps: how far head column 1 stays from column 0.
 */
static void
build(double *jtj, size_t *blk, int interleaved, double eps)
{
	double row[P];
	size_t b, k, i, j, cc, co;

	memset(jtj, 0, P * P * sizeof(double));
	lcg_state = 12345;
	for (b = 0; b < NB; b++) {
		cc = interleaved ? NDH + b : NDH + 2 * b;
		co = interleaved ? NDH + NB + b : NDH + 2 * b + 1;
		blk[cc - NDH] = blk[co - NDH] = b;
		for (k = 0; k < NR; k++) {
			memset(row, 0, sizeof(row));
			row[0] = 1.0 + lcg();
			row[1] = row[0] + eps * lcg();
			row[2] = 0.3 * lcg();
			row[cc] = exp(-0.1 * (double)k) * (1.0 + 0.1 * lcg());
			row[co] = 1.0;
			for (i = 0; i < P; i++)
				for (j = 0; j < P; j++)
					jtj[i * P + j] += row[i] * row[j];
		}
	}
}

static double x[P], lo[P], hi[P];

static void
bounds(void)
{
	size_t k;

	for (k = 0; k < P; k++) {
		x[k] = 1.0;
		lo[k] = -1e6;
		hi[k] = 1e6;
	}
	x[2] = lo[2] = 0.5;	/* on its lower bound */
}

static double
max_rel(const double *a, const double *b, const double *scale, size_t n)
{
	double w = 0.0, d;
	size_t k;

	for (k = 0; k < n; k++) {
		d = fabs(a[k] - b[k]) / (scale != NULL ? scale[k] : 1.0);
		w = isnan(d) ? INFINITY : fmax(w, d);
	}
	return w;
}

static void
test_agree(int interleaved)
{
	static double jtj[P * P], scale[P * P];
	static size_t blk[2 * NB];
	struct het_nlsq_quality qd, qb;
	struct het_error err;
	const char *lay = interleaved ? "fit layout" : "block order";
	double g[P], sd1, sd2, lk1, lk2, d[P];
	size_t i, j, same = 0;
	int used = -1;

	build(jtj, blk, interleaved, 0.1);
	bounds();
	is_int(het_nlsq_quality(P, jtj, 2.5e-5, x, lo, hi, NULL, &qd, &err),
	    HET_OK, "%s: the eigen-analysis", lay);
	is_int(het_nlsq_quality_blocks(P, jtj, 2.5e-5, x, lo, hi, NULL, NULL,
	    NDH, blk, NB, 1e-7, 0.01, &used, &qb, &err), HET_OK,
	    "%s: the report by blocks", lay);
	ok(used == 1 && qb.by_blocks == 1 && qb.rank == P && qd.rank == P,
	    "... made (rank %zu; the eigen-analysis's %zu, lam_min / lam_max "
	    "%.3g)", qb.rank, qd.rank, qd.lam[0] / qd.lmax);
	if (used != 1) {
		het_nlsq_quality_fini(&qd);
		return;
	}
	for (i = 0; i < P; i++)
		for (j = 0; j < P; j++)
			scale[i * P + j] = qd.unc[i] * qd.unc[j];
	ok(max_rel(qb.cov, qd.cov, scale, P * P) < 1e-10, "... covariance "
	    "within 1e-10 of sd_i sd_j (%.2g)", max_rel(qb.cov, qd.cov, scale,
	    P * P));
	ok(max_rel(qb.unc, qd.unc, qd.unc, P) < 1e-10, "... uncertainties "
	    "within 1e-10 relative (%.2g)", max_rel(qb.unc, qd.unc, qd.unc,
	    P));
	ok(max_rel(qb.corr, qd.corr, NULL, P * P) < 1e-10, "... correlations "
	    "within 1e-10 (%.2g)", max_rel(qb.corr, qd.corr, NULL, P * P));
	for (i = 0; i < P; i++)
		same += qb.degen[i] == 0 && qd.degen[i] == 0 &&
		    qb.at_bound[i] == qd.at_bound[i] && qb.zero_col[i] == 0;
	ok(same == P && qb.at_bound[2] == 1, "... the same flags (x[2] at "
	    "its lower bound, nothing degenerate)");
	for (i = 0, same = qb.nwarnings == qd.nwarnings && qb.nwarnings == 2;
	    same && i < qb.nwarnings; i++)
		same = strcmp(qb.warnings[i], qd.warnings[i]) == 0;
	ok(same, "... the same %zu warnings, word for word (bound, "
	    "correlation of x[0] and x[1])", qb.nwarnings);
	for (i = 0; i < P; i++)
		g[i] = lcg();
	het_nlsq_quality_combo(&qd, g, &sd1, &lk1);
	het_nlsq_quality_combo(&qb, g, &sd2, &lk2);
	ok(fabs(sd2 - sd1) < 1e-10 * sd1 && lk1 == 0 && lk2 == 0,
	    "... a combination's sd (%.6g, %.6g), no leak", sd2, sd1);
	is_int(het_nlsq_quality_drop(&qb, 0, HET_NLSQ_DIR_RIDGE, 2.0, x, lo,
	    hi, NULL, &err), HET_EINVAL, "... drop refused: no "
	    "eigen-directions");
	ok(het_nlsq_quality_step(&qb, 0, lo, hi, d) == 0 && d[0] == 0,
	    "... step 0");
	het_nlsq_quality_fini(&qb);
	het_nlsq_quality_fini(&qd);
}

static void
test_sound(void)
{
	static double jtj[P * P];
	static size_t blk[2 * NB];
	static const double eps[] = { 1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4,
	    1e-4, 3e-5, 1e-5, 1e-6, 1e-7 };
	struct het_nlsq_quality qd, qb;
	struct het_error err;
	size_t e, bad = 0, nused = 0;
	int used, first = 0, last = 1;
	double ratio;

	bounds();
	for (e = 0; e < sizeof(eps) / sizeof(eps[0]); e++) {
		build(jtj, blk, 1, eps[e]);
		if (het_nlsq_quality(P, jtj, 1e-4, x, lo, hi, NULL, &qd,
		    &err) != HET_OK || het_nlsq_quality_blocks(P, jtj, 1e-4, x,
		    lo, hi, NULL, NULL, NDH, blk, NB, 1e-7, INFINITY, &used,
		    &qb, &err) != HET_OK) {
			bad++;
			continue;
		}
		ratio = qd.lam[0] / qd.lmax;
		diag("eps %.0e: lam_min / lam_max %.3g, by blocks %d", eps[e],
		    ratio, used);
		bad += used && !(ratio >= 1e-7);
		nused += used;
		if (e == 0)
			first = used;
		last = used;
		het_nlsq_quality_fini(&qd);
		het_nlsq_quality_fini(&qb);
	}
	ok(bad == 0, "soundness: made only where lam_min / lam_max >= 1e-7 "
	    "(%zu of 11 made)", nused);
	ok(first == 1 && last == 0, "... made at eps 0.1, refused at 1e-7");
}

/* A refusal: HET_OK, used 0, q empty. */
static void
refused(const double *jtj, double s2, size_t nd, const size_t *blk,
    size_t nb, double step, const char *what)
{
	struct het_nlsq_quality q;
	struct het_error err;
	int used = -1;

	memset(&q, 0x5a, sizeof(q));
	is_int(het_nlsq_quality_blocks(P, jtj, s2, x, lo, hi, NULL, NULL, nd,
	    blk, nb, 1e-7, step, &used, &q, &err), HET_OK, "%s: HET_OK",
	    what);
	ok(used == 0 && q.cov == NULL && q.unc == NULL && q.p == 0,
	    "... not made, q empty");
}

static void
test_refusals(void)
{
	static double jtj[P * P], keep;
	static size_t blk[2 * NB], bad[2 * NB];
	struct het_nlsq_quality q;
	struct het_error err;
	size_t i, nd;
	int used = -1;

	bounds();
	build(jtj, blk, 0, 0.1);
	for (i = 0; i < P; i++)		/* a zero column: parameter 5 */
		jtj[i * P + 5] = jtj[5 * P + i] = 0.0;
	refused(jtj, 1e-4, NDH, blk, NB, 0.01, "a zero column");
	build(jtj, blk, 0, 0.1);
	keep = jtj[NDH * P + NDH + 2];
	jtj[NDH * P + NDH + 2] = jtj[(NDH + 2) * P + NDH] = 1e-3;
	refused(jtj, 1e-4, NDH, blk, NB, 0.01, "an entry between blocks 0 "
	    "and 1");
	jtj[NDH * P + NDH + 2] = jtj[(NDH + 2) * P + NDH] = keep;
	lo[0] = 0.0;		/* a range of 1 for x[0] */
	hi[0] = 1.0;
	is_int(het_nlsq_quality_blocks(P, jtj, 1e-4, x, lo, hi, NULL, NULL,
	    NDH, blk, NB, 1e-7, INFINITY, &used, &q, &err), HET_OK,
	    "x[0] in [0, 1], weak_step Inf: HET_OK");
	ok(used == 1 && q.unc[0] >= 0.01, "... made (unc %.3g)",
	    used == 1 ? q.unc[0] : NAN);
	het_nlsq_quality_fini(&q);
	refused(jtj, 1e-4, NDH, blk, NB, 0.01, "the same with weak_step "
	    "0.01 (a one-sigma step may span 1 % of x[0]'s range)");
	bounds();
	refused(jtj, 0.0, NDH, blk, NB, 0.01, "s2 = 0");
	memcpy(bad, blk, sizeof(bad));
	bad[7] = NB;
	refused(jtj, 1e-4, NDH, bad, NB, 0.01, "a block id out of range");
	for (i = 0; i < 2 * NB; i++)	/* columns 0-9 one block */
		bad[i] = i < 10 ? 0 : blk[i] - 4;
	refused(jtj, 1e-4, NDH, bad, NB - 4, 0.01, "a block of 10 columns");
	refused(jtj, 1e-4, NDH, NULL, NB, 0.01, "blk NULL");
	nd = P;
	refused(jtj, 1e-4, nd, blk, NB, 0.01, "no tail (nd = p)");
}

int
main(void)
{
	plan_lazy();
	test_agree(1);
	test_agree(0);
	test_sound();
	test_refusals();
	done_testing();
	return exit_status();
}
