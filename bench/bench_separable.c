/*
 * bench_separable.c: one gradient of the CMC posterior with the pair
 * kernel and with the separable likelihood (`make bench`).
 *
 * Problems: the heterodyne two_component data of bench/cmc_sample.yaml
 * (300 frames x 8 angles, q 0.01, dt 0.1, its truth and per-angle
 * scaling, all 14 physics and 16 scaling parameters free: 358,800 pairs,
 * cell by cell with the angle innermost) plus Gaussian noise of sd 0.01,
 * and the same model on 1000 frames x 23 angles (11,488,500 pairs).  For
 * each, three pair sets:
 *   - all pairs (the complete-triangle pass of het_separable);
 *   - all pairs but one per angle (the masked residual pass over the
 *     same cells: what a complete triangle would cost without the
 *     prefix sums);
 *   - one CMC shard: 1/8 of the frame-pair cells drawn at random, each
 *     with all angles (the masked pass over the whole triangle).
 * Each line gives ms per het_posterior_logp with gradient at the truth
 * (CPU time of this process, best of 5 blocks) for the pair kernel
 * (pair_kernel = 1) and the separable pass, their ratio, and the
 * largest difference between the two gradients relative to the largest
 * entry, and of the log densities.  Single thread.  Usage:
 * bench_separable [DIR] [-q] (DIR is ignored, as `make bench` passes
 * one; -q: the 300-frame problem only).
 * After each size, one NLSQ pass of all pairs: the pair kernel's rows
 * with dsyrk (what each fit pass formed before) against
 * het_separable_normal (cost, gradient and Gauss-Newton matrix), CPU ms
 * on one thread, best of 3.
 * This is not a test: it never fails on speed.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "het_model.h"
#include "het_params.h"
#include "het_posterior.h"
#include "het_resid.h"
#include "het_scaling.h"
#include "het_separable.h"

#define NAMAX	23
#define NP	(HET_P_HET_COUNT + 2 * NAMAX)
#define SIGMA	0.01

static const double truth[HET_P_HET_COUNT] = {
	200, 0.5, 100, 300, -0.5, 200, 30, 0.4, 5, 0.05, 0.08, 5, 0.3, 3
};

static uint64_t rng = 0x853c49e6748fea9bULL;

static double
unif(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((double)((rng * 0x2545f4914f6cdd1dULL) >> 11) + 0.5) *
	    (1.0 / 9007199254740992.0);
}

static double
gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { SET_ALL = 0, SET_ALL_BUT_ONE, SET_SHARD };

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		*pairs;
	double			*y;
	size_t			 n, p;
	double			 x0[NP];
	struct het_post_prior	 pri[NP];
};

static void
prob_fini(struct prob *P)
{
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	free(P->pairs);
	free(P->y);
}

/* The pairs of a set, cell by cell with the angle innermost. */
static void
prob_pairs(struct prob *P, size_t nf, size_t na, int set)
{
	size_t i, j, a;

	for (i = 0; i < nf; i++)
		for (j = i + 1; j < nf; j++) {
			if (set == SET_SHARD && unif() >= 0.125)
				continue;
			for (a = 0; a < na; a++) {
				/* one cell of each angle left out */
				if (set == SET_ALL_BUT_ONE && i == a && j == a + 1)
					continue;
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n++].a = (uint32_t)a;
			}
		}
}

static int
prob_init(struct prob *P, size_t nf, size_t na, int set)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_resid_eval *ev;
	double phi[NAMAX], lo[NP], hi[NP];
	size_t a, k, nmax = na * nf * (nf - 1) / 2;

	memset(P, 0, sizeof(*P));
	for (a = 0; a < na; a++)
		phi[a] = -60.0 + 25.0 * (double)a * 8.0 / (double)na;
	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = nf;
	ms.n_angles = na;
	ms.phi = phi;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, na, phi);
	if ((P->pairs = malloc(nmax * sizeof(*P->pairs))) == NULL ||
	    (P->y = calloc(nmax, sizeof(double))) == NULL ||
	    (P->m = het_model_alloc(&ms, NULL)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, NULL)) == NULL)
		return -1;
	prob_pairs(P, nf, na, set);
	memset(&rs, 0, sizeof(rs));
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = truth;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	if ((P->r = het_resid_alloc(&rs, NULL)) == NULL)
		return -1;
	P->p = het_resid_nparams(P->r);
	het_resid_x0(P->r, P->x0);
	for (a = 0; a < na; a++) {	/* cmc_sample.yaml's scaling */
		P->x0[HET_P_HET_COUNT + a] = 0.30 - 0.01 * (double)(a % 8);
		P->x0[HET_P_HET_COUNT + na + a] = 1.0 + 0.005 *
		    (double)(a % 8);
	}
	het_resid_bounds(P->r, lo, hi);
	for (k = 0; k < P->p; k++)
		het_post_prior_nlsq(P->x0[k], 0.01 * (hi[k] - lo[k]), lo[k],
		    hi[k], 2.0, &P->pri[k]);
	if ((ev = het_resid_eval_alloc(P->r, NULL)) == NULL)
		return -1;
	het_resid_prepare(ev, P->x0, 0, NULL);
	het_resid_eval_model(ev, 0, P->n, P->y);
	het_resid_eval_free(ev);
	for (k = 0; k < P->n; k++)
		P->y[k] += SIGMA * gauss();
	return 0;
}

/* ms per logp with gradient at u, best of 5 blocks of reps. */
static double
time_grad(struct het_posterior *post, const double *u, int reps,
    double *lp, double *g)
{
	double t, best = HUGE_VAL;
	int b, k;

	for (b = 0; b < 5; b++) {
		t = cpu_now();
		for (k = 0; k < reps; k++)
			het_posterior_logp(post, u, lp, g, NULL);
		t = (cpu_now() - t) / reps;
		if (t < best)
			best = t;
	}
	return 1e3 * best;
}

static void
run(size_t nf, size_t na, int set, int reps)
{
	static const char *names[] = { "all pairs", "all but one per angle",
		"a shard of 1/8 of the cells" };
	struct het_post_spec ps;
	struct het_posterior *pk = NULL, *sp = NULL;
	struct prob P;
	double u[NP], g1[NP], g2[NP], l1, l2, t1, t2, e = 0, s = 0;
	size_t k;

	if (prob_init(&P, nf, na, set) != 0) {
		printf("%zu x %zu %s: cannot build the problem\n", nf, na,
		    names[set]);
		prob_fini(&P);
		return;
	}
	memset(&ps, 0, sizeof(ps));
	ps.resid = P.r;
	ps.model = P.m;
	ps.sigma = SIGMA;
	ps.priors = P.pri;
	ps.nshards = 1;
	ps.reparam = 1;
	ps.pair_kernel = 1;
	pk = het_posterior_alloc(&ps, NULL);
	ps.pair_kernel = 0;
	sp = het_posterior_alloc(&ps, NULL);
	if (pk == NULL || sp == NULL || !het_posterior_separable(sp) ||
	    het_posterior_to_u(pk, P.x0, u, NULL) != HET_OK) {
		printf("%zu x %zu %s: no posterior\n", nf, na, names[set]);
		goto out;
	}
	t1 = time_grad(pk, u, reps, &l1, g1);
	t2 = time_grad(sp, u, reps * 8, &l2, g2);
	for (k = 0; k < P.p; k++) {
		e = fmax(e, fabs(g1[k] - g2[k]));
		s = fmax(s, fabs(g1[k]));
	}
	printf("%zu x %zu, %s (%zu pairs, p %zu): pair kernel %.2f ms, "
	    "separable %.3f ms per gradient (%.1fx); gradients differ by "
	    "%.2g of the largest, log densities by %.2g relative\n", nf, na,
	    names[set], P.n, P.p, t1, t2, t1 / t2, e / s,
	    fabs(l1 - l2) / fabs(l1));
out:
	het_posterior_free(pk);
	het_posterior_free(sp);
	prob_fini(&P);
}

/*
 * The pair kernel's normal equations of one NLSQ pass on one thread, as
 * the fit's chunk function forms them: residuals and physics rows of
 * blocks of 256 pairs (het_resid_eval_compact), J^T J by dsyrk, J^T r
 * by dgemv (the per-angle contrast/offset sums, a few multiply-adds per
 * pair, left out).  JtJ (nfp^2) and g (nfp) out.
 */
static void
pairs_normal(const struct prob *P, struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t nfp, double *Jp, double *res,
    double *JtJ, double *g)
{
	size_t k, nb;

	memset(JtJ, 0, nfp * nfp * sizeof(double));
	memset(g, 0, nfp * sizeof(double));
	for (k = 0; k < P->n; k += nb) {
		nb = P->n - k < 256 ? P->n - k : 256;
		het_resid_eval_compact(ev, scr, k, nb, res, Jp, NULL);
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)nfp,
		    (int)nb, 1.0, Jp, (int)nfp, 1.0, JtJ, (int)nfp);
		cblas_dgemv(CblasRowMajor, CblasTrans, (int)nb, (int)nfp, 1.0,
		    Jp, (int)nfp, res, 1, 1.0, g, 1);
	}
}

/*
 * One NLSQ pass (cost, gradient and Gauss-Newton matrix) with the pair
 * kernel and with het_separable_normal, CPU ms per pass on one thread
 * (best of 3), and the largest difference of the physics J^T J and
 * gradient relative to their largest entries.
 */
static void
run_normal(size_t nf, size_t na)
{
	struct prob P;
	struct het_resid_eval *ev = NULL;
	struct het_resid_scratch *scr = NULL;
	struct het_separable *sep = NULL;
	double *Jp = NULL, *res = NULL, *out = NULL, JtJ[HET_MAX_PHYS *
	    HET_MAX_PHYS], g[HET_MAX_PHYS], J2[HET_MAX_PHYS * HET_MAX_PHYS],
	    g2[HET_MAX_PHYS], t, t1 = HUGE_VAL, t2 = HUGE_VAL, e[4] = { 0 };
	size_t nfp, len, a, i, j;
	int b;

	if (prob_init(&P, nf, na, SET_ALL) != 0)
		goto out;
	nfp = het_resid_nphys_free(P.r);
	len = het_separable_normal_len(nfp);
	ev = het_resid_eval_alloc(P.r, NULL);
	scr = het_resid_scratch_alloc(P.r, 256, NULL);
	sep = het_separable_alloc(P.r, NULL);
	Jp = malloc(256 * nfp * sizeof(double));
	res = malloc(256 * sizeof(double));
	out = malloc(na * len * sizeof(double));
	if (ev == NULL || scr == NULL || sep == NULL || Jp == NULL ||
	    res == NULL || out == NULL ||
	    het_resid_prepare(ev, P.x0, 1, NULL) != HET_OK)
		goto out;
	for (b = 0; b < 3; b++) {
		t = cpu_now();
		pairs_normal(&P, ev, scr, nfp, Jp, res, JtJ, g);
		t1 = fmin(t1, cpu_now() - t);
		t = cpu_now();
		het_separable_normal(sep, ev, -1, 1, out, NULL);
		t2 = fmin(t2, cpu_now() - t);
	}
	memset(J2, 0, sizeof(J2));
	memset(g2, 0, sizeof(g2));
	for (a = 0; a < na; a++)
		for (i = 0; i < nfp; i++) {
			g2[i] += out[a * len + HET_SEPN_HEAD + i];
			for (j = 0; j < nfp; j++)
				J2[i * nfp + j] += out[a * len + HET_SEPN_HEAD +
				    3 * nfp + i * nfp + j];
		}
	for (i = 0; i < nfp; i++) {
		e[0] = fmax(e[0], fabs(g[i] - g2[i]));
		e[1] = fmax(e[1], fabs(g[i]));
		for (j = i; j < nfp; j++) {
			e[2] = fmax(e[2], fabs(JtJ[i * nfp + j] -
			    J2[i * nfp + j]));
			e[3] = fmax(e[3], fabs(JtJ[i * nfp + j]));
		}
	}
	printf("%zu x %zu, one NLSQ pass (%zu pairs, %zu physics): pair "
	    "kernel %.1f ms, separable normal equations %.1f ms (%.1fx); "
	    "J^T r differs by %.2g, J^T J by %.2g of the largest\n", nf, na,
	    P.n, nfp, 1e3 * t1, 1e3 * t2, t1 / t2, e[0] / e[1], e[2] / e[3]);
out:
	free(Jp);
	free(res);
	free(out);
	het_separable_free(sep);
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
	prob_fini(&P);
}

int
main(int argc, char **argv)
{
	int k, quick = 0, set;

	for (k = 1; k < argc; k++)
		quick |= strcmp(argv[k], "-q") == 0;
	for (set = SET_ALL; set <= SET_SHARD; set++)
		run(300, 8, set, 10);
	run_normal(300, 8);
	if (quick)
		return 0;
	for (set = SET_ALL; set <= SET_SHARD; set++)
		run(1000, 23, set, 1);
	run_normal(1000, 23);
	return 0;
}
