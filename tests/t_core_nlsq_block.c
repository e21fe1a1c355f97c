/*
 * t_core_nlsq_block.c: the block elimination of the TRF solver
 * (het_nlsq_set_blocks, het_nlsq_block.c) against its dense
 * eigen-decomposition path.
 *
 * Problem: NA angles x NT times of y = o_a + c_a exp(-D w_a t^alpha)
 * (w_a = 1 + 0.3 cos a) plus a fixed pseudo-noise: two physics columns
 * (D, alpha) that couple with everything, then the contrasts c_a and
 * offsets o_a, each pair coupling only with the physics and itself, as
 * a fit's per-angle scaling does.  alpha's upper bound sits near its
 * optimum, so reflective and step-back steps occur.
 *
 * Checks:
 *   - the same fit with and without declared blocks, iterate by iterate
 *     (linear and soft_l1 losses): every iteration takes the block path;
 *     the iterates agree to rounding (max relative difference below
 *     1e-9; measured 2026-11-26: 7.8e-14 linear, 1.5e-12 soft_l1), and so
 *     do the iteration and evaluation counts and the stopping reason;
 *   - the gate: a parameter without effect (a zero column: rank
 *     deficient) and blocks declared across angles (nonzero entries
 *     between blocks) both leave every iteration on the dense path, bit
 *     for bit the dense fit;
 *   - het_nlsq_set_blocks' errors (no tail, an id out of range, an
 *     empty block, a block larger than HET_NLSQ_BLOCK_MAX), each with
 *     its message; blk NULL removes the blocks.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_config.h"
#include "het_nlsq.h"
#include "tap.h"

#define NA	30
#define NT	24
#define NPH	3		/* D, alpha and an idle third physics column */

struct prob {
	enum het_nlsq_loss loss;
	double		 f_scale;
	size_t		 nd;	/* physics columns in use: 2, or 3 (idle) */
	size_t		 p, n;
	double		 y[NA * NT];
	double		*J, *r;
};

static double
tk(size_t k)
{
	return 0.05 * (double)(k + 1);
}

/* Model, residuals and dense Jacobian rows. */
static int
eval(void *ctx, const double *x, int want_jac, double *acc,
    struct het_error *err)
{
	struct prob *P = ctx;
	size_t a, k, row, p = P->p, nd = P->nd;
	double D = x[0], al = x[1], wa, t, e, m;

	(void)err;
	memset(acc, 0, het_nlsq_acc_len(p) * sizeof(double));
	memset(P->J, 0, P->n * p * sizeof(double));
	for (a = 0; a < NA; a++) {
		wa = 1.0 + 0.3 * cos((double)a);
		for (k = 0; k < NT; k++) {
			row = a * NT + k;
			t = tk(k);
			e = exp(-D * wa * pow(t, al));
			m = x[nd + NA + a] + x[nd + a] * e;
			P->r[row] = m - P->y[row];
			P->J[row * p + 0] = -x[nd + a] * e * wa * pow(t, al);
			P->J[row * p + 1] = -x[nd + a] * e * D * wa *
			    pow(t, al) * log(t);
			P->J[row * p + nd + a] = e;
			P->J[row * p + nd + NA + a] = 1.0;
		}
	}
	het_nlsq_acc_rows(P->loss, P->f_scale, P->n, p, P->r, P->J,
	    want_jac, acc);
	return HET_OK;
}

static void
prob_init(struct prob *P, size_t nd)
{
	double x[NPH + 2 * NA], *acc;
	size_t a, k;

	memset(P, 0, sizeof(*P));
	P->loss = HET_LOSS_LINEAR;
	P->f_scale = 1.0;
	P->nd = nd;
	P->p = nd + 2 * NA;
	P->n = NA * NT;
	P->J = calloc(P->n * P->p, sizeof(double));
	P->r = calloc(P->n, sizeof(double));
	x[0] = 3.0;
	x[1] = 0.8;
	if (nd > 2)
		x[2] = 0.0;
	for (a = 0; a < NA; a++) {
		x[nd + a] = 0.3 + 0.01 * (double)(a % 7);
		x[nd + NA + a] = 1.0 + 0.002 * (double)(a % 5);
	}
	/* y = model at x plus a fixed pseudo-noise of sd about 0.003 */
	for (k = 0; k < P->n; k++)
		P->y[k] = 0.0;
	acc = calloc(het_nlsq_acc_len(P->p), sizeof(double));
	eval(P, x, 0, acc, NULL);	/* r = model - 0 */
	free(acc);
	for (k = 0; k < P->n; k++)
		P->y[k] = P->r[k] + 0.005 * sin(12.9898 * (double)k + 78.233);
}

static void
prob_fini(struct prob *P)
{
	free(P->J);
	free(P->r);
}

/* Start, bounds. */
static void
start(const struct prob *P, double *x0, double *lo, double *hi)
{
	size_t c, a;

	for (c = 0; c < P->p; c++) {
		lo[c] = -INFINITY;
		hi[c] = INFINITY;
	}
	x0[0] = 1.5;
	lo[0] = 0.01;
	hi[0] = 100.0;
	x0[1] = 0.5;
	lo[1] = 0.1;
	hi[1] = 0.81;
	if (P->nd > 2) {
		x0[2] = 0.5;
		lo[2] = -1.0;
		hi[2] = 1.0;
	}
	for (a = 0; a < NA; a++) {
		x0[P->nd + a] = 0.25;
		lo[P->nd + a] = 0.0;
		hi[P->nd + a] = 1.0;
		x0[P->nd + NA + a] = 1.01;
	}
}

/* Block ids of the tail: angle a's contrast and offset (shift: pair
   contrast a with offset a + shift, which breaks the structure). */
static void
blocks(size_t *blk, size_t shift)
{
	size_t a;

	for (a = 0; a < NA; a++) {
		blk[a] = a;
		blk[NA + a] = (a + shift) % NA;
	}
}

/*
 * Run the dense and the blocked fit side by side.  Returns the largest
 * relative difference of the iterates; *nblk counts the blocked
 * iterations, *same says whether the counts and reasons agree, *bits
 * whether every iterate was bit-identical.
 */
static double
lockstep(struct prob *P, enum het_nlsq_loss loss, size_t shift,
    long *niter, long *nblk, int *same, int *bits)
{
	struct het_nlsq *w1, *w2;
	struct het_nlsq_params par;
	struct het_nlsq_info i1, i2;
	struct het_error err;
	double x0[NPH + 2 * NA], lo[NPH + 2 * NA], hi[NPH + 2 * NA], d, dmax = 0;
	size_t blk[2 * NA], c;
	int s1, s2;

	P->loss = loss;
	P->f_scale = loss == HET_LOSS_LINEAR ? 1.0 : 0.005;
	het_nlsq_default_params(&par);
	par.loss = loss;
	par.f_scale = P->f_scale;
	/* SciPy's tolerances (1e-8): the fit stops above the cost's rounding */
	start(P, x0, lo, hi);
	blocks(blk, shift);
	w1 = het_nlsq_alloc(P->p, &err);
	w2 = het_nlsq_alloc(P->p, &err);
	if (het_nlsq_set_blocks(w2, P->nd, blk, NA, &err) != HET_OK)
		diag("set_blocks: %s", err.msg);
	het_nlsq_init(w1, eval, P, P->n, x0, lo, hi, &par, &err);
	het_nlsq_init(w2, eval, P, P->n, x0, lo, hi, &par, &err);
	*nblk = *niter = 0;
	*bits = 1;
	do {
		s1 = het_nlsq_iterate(w1, &err) == HET_OK ? het_nlsq_test(w1) :
		    -99;
		s2 = het_nlsq_iterate(w2, &err) == HET_OK ? het_nlsq_test(w2) :
		    -99;
		*nblk += het_nlsq_blocks_used(w2);
		++*niter;
		for (c = 0; c < P->p; c++) {
			d = fabs(het_nlsq_x(w1)[c] - het_nlsq_x(w2)[c]) /
			    fmax(fabs(het_nlsq_x(w1)[c]), 1e-3);
			dmax = fmax(dmax, d);
		}
		if (memcmp(het_nlsq_x(w1), het_nlsq_x(w2), P->p *
		    sizeof(double)) != 0)
			*bits = 0;
		if (getenv("BLK_DEBUG") != NULL) {
			het_nlsq_info(w1, &i1);
			het_nlsq_info(w2, &i2);
			diag("it %ld: dmax %.3g cost %.17g %.17g step %.3g %.3g "
			    "alpha %.3g %.3g", *niter, dmax, i1.cost, i2.cost,
			    i1.step_norm, i2.step_norm, i1.lambda, i2.lambda);
		}
	} while (s1 == HET_CONTINUE && s2 == HET_CONTINUE && *niter < 500);
	het_nlsq_info(w1, &i1);
	het_nlsq_info(w2, &i2);
	*same = s1 == s2 && i1.iter == i2.iter && i1.nfev == i2.nfev &&
	    i1.reason == i2.reason && het_nlsq_reason_converged(i1.reason);
	het_nlsq_free(w1);
	het_nlsq_free(w2);
	return dmax;
}

static void
test_agree(void)
{
	static const enum het_nlsq_loss loss[2] = { HET_LOSS_LINEAR,
	    HET_LOSS_SOFT_L1 };
	struct prob P;
	const char *ln;
	long n, nb;
	int same, bits, k;
	double d;

	prob_init(&P, 2);
	for (k = 0; k < 2; k++) {
		ln = het_config_loss_name(loss[k]);
		d = lockstep(&P, loss[k], 0, &n, &nb, &same, &bits);
		ok(nb == n && n > 3, "%s: the block path in every iteration "
		    "(%ld of %ld)", ln, nb, n);
		ok(d < 1e-9, "%s: iterates agree with the dense path to "
		    "rounding (max relative difference %.2g)", ln, d);
		ok(same, "%s: same iterations, evaluations and converged "
		    "reason", ln);
	}
	prob_fini(&P);
}

static void
test_gate(void)
{
	struct prob P;
	long n, nb;
	int same, bits;

	/* A third physics column without effect: rank deficient. */
	prob_init(&P, 3);
	lockstep(&P, HET_LOSS_LINEAR, 0, &n, &nb, &same, &bits);
	ok(nb == 0 && bits && same, "a zero column (rank deficient): every "
	    "iteration dense, bit for bit the dense fit (%ld blocked of "
	    "%ld)", nb, n);
	prob_fini(&P);
	/* Blocks that pair contrast a with offset a + 1. */
	prob_init(&P, 2);
	lockstep(&P, HET_LOSS_LINEAR, 1, &n, &nb, &same, &bits);
	ok(nb == 0 && bits && same, "entries between declared blocks: "
	    "every iteration dense, bit for bit (%ld blocked of %ld)", nb, n);
	prob_fini(&P);
}

static void
test_errors(void)
{
	struct het_nlsq *w = het_nlsq_alloc(10, NULL);
	struct het_error err;
	size_t blk[10] = { 0, 0, 1, 1, 2, 2, 3, 3, 4, 4 };
	size_t big[10] = { 0 };

	is_int(het_nlsq_set_blocks(w, 10, blk, 1, &err), HET_EINVAL,
	    "set_blocks: no tail: HET_EINVAL");
	like(err.msg, "need a tail", "... says so");
	is_int(het_nlsq_set_blocks(w, 0, blk, 4, &err), HET_EINVAL,
	    "set_blocks: an id out of range: HET_EINVAL");
	like(err.msg, "column 8 is in block 4 of 4", "... names it");
	is_int(het_nlsq_set_blocks(w, 0, blk, 6, &err), HET_EINVAL,
	    "set_blocks: an empty block: HET_EINVAL");
	like(err.msg, "block 5 has 0 columns", "... names it");
	is_int(het_nlsq_set_blocks(w, 1, big, 1, &err), HET_EINVAL,
	    "set_blocks: a block of 9 columns: HET_EINVAL");
	like(err.msg, "block 0 has 9 columns; each needs 1 to 8",
	    "... names it");
	is_int(het_nlsq_set_blocks(w, 0, blk, 5, &err), HET_OK,
	    "set_blocks: five pairs");
	is_int(het_nlsq_set_blocks(w, 0, NULL, 0, &err), HET_OK,
	    "set_blocks: NULL removes them");
	het_nlsq_free(w);
}

int
main(void)
{
	plan_lazy();
	test_agree();
	test_gate();
	test_errors();
	done_testing();
	return exit_status();
}
