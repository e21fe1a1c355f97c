/*
 * bench_cmc.c: speed of the CMC shard sampler (`make bench`).
 *
 * Problem (issue 5): one shard of 5,000 upper-triangle pairs from a
 * 300-frame x 8-angle heterodyne data set, as `hetui sample`'s random
 * sharding makes it: 625 frame pairs (i, j) drawn at random (seeded),
 * each with all 8 angles, cell by cell (-p: 5,000 pairs drawn one by
 * one instead, the layout before cell sharding), mode
 * two_component with all 14 physics parameters free and individual
 * per-angle scaling (8 contrasts, 8 offsets): 30 parameters.  The data
 * are the physics core's c2 at a known truth plus Gaussian noise of sd
 * SIGMA; the likelihood uses the same sigma.
 *
 * Priors: what `hetui sample` uses by default, the NLSQ-informed
 * truncated normal of het_post_prior_nlsq (width factor 2) centred on
 * the optimum, here the truth, with the standard errors of the Laplace
 * approximation of this shard's own likelihood at the truth (a K-shard
 * run tempers the full-data prior by 1/K, which widens it by sqrt(K),
 * i.e. to about twice the shard's own standard error: the same thing).
 * The standard errors are computed as hetui's NLSQ report computes them
 * (het_nlsq_stats.c): sigma^2 times the pseudo-inverse of J^T J scaled
 * to unit diagonal, eigen-directions below 1000 p eps of the largest
 * eigenvalue dropped.  J^T J is exactly singular in (f0, f2) (the model
 * depends on them only through f0 exp(-f1 f2)), so their errors are
 * those of the identified combination, and the priors then close the
 * degenerate ridge as they do in a real `hetui sample`.  K = 1, reparam
 * on.
 *
 * Figures:
 *   1. gradient: het_posterior_logp with gradient at the truth, repeated
 *      (best of 5 blocks, CPU time); time per evaluation and per pair;
 *      also for a shard of the same size in the other layout (random
 *      pairs, or cells with -p).  With whole cells the kernel computes
 *      the angle-independent work once per cell.
 *   2. sampling: het_shard_run, 4 chains x (500 warmup + 1000 draws),
 *      seed 42, started at the truth, diagonal metric (-D: dense).
 * het_shard_run runs the chains one
 *      after the other on the calling thread, so the wall time is also
 *      the CPU time of one core: ESS/s/core = bulk ESS / wall time.
 *      Reported: wall and CPU time, min and median bulk ESS over the 30
 *      parameters, min bulk ESS per second, max R-hat, divergences,
 *      step sizes, and the number of gradient evaluations estimated as
 *      CPU time / gradient time (het_shard_run does not count them).
 * It writes two JSON files for the Stan peer (bench/peer_stan.R): the
 * shard (time grid, angles, pairs, data, sigma, priors, bounds, truth,
 * hetui's c2, log density and gradient at two points) and hetui's
 * posterior summary.
 *
 * Whole problems (-A, with -f FRAMES): every pair of an FRAMES x 8 grid
 * instead of a shard, the posterior `hetui sample` draws by default on
 * one node (one shard of all the data, issue 18); the complete triangle
 * then takes the separable likelihood.  Coordinates (-c): the sampled
 * posterior's, rates by default as `hetui sample`'s
 * (optimization.cmc.coordinates), power_law as before 8f64d5b.  The
 * shard file's check values always come from the power_law posterior
 * with contrast and offset sampled (Stan's coordinates, see
 * bench/stan/het_shard.stan): every choice samples that same density,
 * so the comparison with Stan is of ESS per CPU second on one density.
 *
 * Usage: bench_cmc [-ADLMnp] [-a PCT] [-c COORDS] [-f FRAMES] [-S SEED]
 *                  [-g REPS] [-w WARMUP] [-d DRAWS] [-s SHARD.json]
 *                  [-r RESULT.json]
 *   -A  every pair of the grid (default: a shard of NPAIR pairs);
 *   -c  rates, power_law or physical (default rates);
 *   -f  frames of the grid, 40 to 300 (default 300);
 *   -L  no Laplace start (the default before it: unit metric, x0 + jitter);
 *   -M  contrast and offset sampled (the default before the marginal:
 *       30 sampled coordinates instead of 14);
 *   -D  dense metric (dense_mass), for hetui and, through the result
 *       file's "metric", the comparison with Stan's dense_e;
 *   -a  target acceptance in percent (95, hetui's default since the
 *       small curved posteriors of docs/PERFORMANCE.md; Stan's
 *       adapt_delta is set alike by peer_stan.R --accept);
 *   -S  the chains' seed (42; peer_stan.R --seed);
 *   -n  no sampling: gradient timing and the shard file only;
 *   -p  the shard of pairs drawn one by one (default: whole cells);
 *   -g  evaluations per timing block (500; 5 blocks each);
 *   -w, -d  warmup transitions and draws per chain (500, 1000).
 * This is not a test: it never fails on speed.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "het_model.h"
#include "het_params.h"
#include "het_posterior.h"
#include "het_resid.h"
#include "het_scaling.h"
#include "het_shard_run.h"

#define NF_MAX		300	/* frames of the grid (-f: 40 to NF_MAX) */
#define NA		8
#define NPAIR		5000
#define NPHYS		HET_P_HET_COUNT
#define NP		(NPHYS + 2 * NA)
#define SIGMA		0.01
#define DT		0.1
#define QV		0.01
#define WIDTH		2.0

static const double truth_phys[NPHYS] = {
	200, 0.5, 100,		/* D0_ref, alpha_ref, D_offset_ref */
	300, -0.5, 200,		/* D0_sample, alpha_sample, D_offset_sample */
	30, 0.4, 5,		/* v0, beta, v_offset */
	0.05, 0.08, 5, 0.3,	/* f0, f1, f2, f3 */
	3			/* phi0 */
};

/*
 * Bounds of the physics parameters: the registry's are 10^2 to 10^5
 * times wider than the posterior for D_offset, f2 and the prefactors,
 * which makes the first warmup window (unit metric) crawl at the
 * maximum tree depth in both samplers; a user would narrow them in the
 * config, and so does the bench (every truth is well inside).
 */
static const double phys_lo[NPHYS] = {
	10, -2, -1000, 10, -2, -1000, 1e-3, -2, -100, 0, -1, -100, 0, -10
};
static const double phys_hi[NPHYS] = {
	1e4, 2, 1000, 1e4, 2, 1000, 1e3, 2, 100, 1, 1, 100, 1, 10
};

struct bench {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_posterior	*post;
	size_t			 nf;		/* frames (-f) */
	size_t			 n;		/* pairs sampled: NPAIR, or
						   every pair with -A */
	struct het_pair		*pairs;		/* n of each */
	double			*y, *c2;
	struct het_posterior	*pchk;		/* the density in Stan's
						   coordinates (power_law,
						   30 sampled): the shard
						   file's check values */
	double			 phi[NA], x0[NP], lo[NP], hi[NP], sd[NP];
	struct het_post_prior	 pri[NP];
	/* the same shard size grouped by cell: NPAIR / NA random (i, j),
	   each with all NA angles, angle innermost (gradient timing only) */
	struct het_resid	*r2;
	struct het_posterior	*post2;
	struct het_posterior	*postm;		/* the sampled shard with
						   contrast and offset
						   integrated out */
	struct het_pair		 pairs2[NPAIR];
	double			 y2[NPAIR];
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
pair_cmp(const void *a, const void *b)
{
	const struct het_pair *p = a, *q = b;

	if (p->i != q->i)
		return p->i < q->i ? -1 : 1;
	if (p->j != q->j)
		return p->j < q->j ? -1 : 1;
	return p->a < q->a ? -1 : p->a > q->a;
}

/* NPAIR distinct random pairs (i < j, a) of nf frames, sorted by (i, j, a). */
static int
pick_pairs(struct het_pair *out, size_t nf, gsl_rng *rng)
{
	size_t		 ntri = nf * (nf - 1) / 2, tot = ntri * NA;
	unsigned char	*used;
	size_t		 k = 0, idx, t, i, j;

	if ((used = calloc(tot, 1)) == NULL)
		return -1;
	while (k < NPAIR) {
		idx = gsl_rng_uniform_int(rng, tot);
		if (used[idx])
			continue;
		used[idx] = 1;
		out[k].a = (uint32_t)(idx / ntri);
		t = idx % ntri;
		/* t-th pair of the row-major upper triangle */
		for (i = 0; t >= nf - 1 - i; i++)
			t -= nf - 1 - i;
		j = i + 1 + t;
		out[k].i = (uint32_t)i;
		out[k].j = (uint32_t)j;
		k++;
	}
	free(used);
	qsort(out, NPAIR, sizeof out[0], pair_cmp);
	return 0;
}

/*
 * NPAIR / NA distinct random cells (i < j), each with all NA angles,
 * angle innermost, cells sorted: what `hetui sample`'s random sharding
 * gives a shard (het_shard.h).
 */
static int
pick_cells(struct het_pair *out, size_t nf, gsl_rng *rng)
{
	size_t		 ntri = nf * (nf - 1) / 2, k = 0, t, i, a;
	size_t		 idx;
	unsigned char	*used;

	if ((used = calloc(ntri, 1)) == NULL)
		return -1;
	while (k < NPAIR) {
		idx = gsl_rng_uniform_int(rng, ntri);
		if (used[idx])
			continue;
		used[idx] = 1;
		for (i = 0, t = idx; t >= nf - 1 - i; i++)
			t -= nf - 1 - i;
		for (a = 0; a < NA; a++, k++) {
			out[k].i = (uint32_t)i;
			out[k].j = (uint32_t)(i + 1 + t);
			out[k].a = (uint32_t)a;
		}
	}
	free(used);
	qsort(out, NPAIR / NA, NA * sizeof out[0], pair_cmp);
	return 0;
}

/* Every pair of nf frames, each cell with all NA angles, angle innermost. */
static void
pick_all(struct het_pair *out, size_t nf)
{
	size_t	i, j, a, k = 0;

	for (i = 0; i < nf; i++)
		for (j = i + 1; j < nf; j++)
			for (a = 0; a < NA; a++, k++) {
				out[k].i = (uint32_t)i;
				out[k].j = (uint32_t)j;
				out[k].a = (uint32_t)a;
			}
}

/* Shard layouts: pairs drawn one by one, whole cells, every pair (-A). */
enum { LAY_PAIRS, LAY_CELLS, LAY_ALL };

/*
 * One shard's data: n pairs in the given layout (NPAIR pairs drawn one by
 * one or as whole cells, or every pair of the grid) from a generator
 * seeded with seed, the residual problem on them, c2 = the model at the
 * truth and y = c2 + noise of sd SIGMA (c2 may be y).  The generator is
 * used for the pairs first, then the noise.
 */
static int
shard_data(struct bench *B, int layout, unsigned long seed, const double *s,
    size_t n, struct het_pair *pairs, double *c2, double *y,
    struct het_resid **r, struct het_error *err)
{
	struct het_resid_spec	 rs;
	struct het_resid_eval	*ev = NULL;
	gsl_rng			*rng;
	size_t			 k;
	int			 rc = -1;

	if ((rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL)
		return -1;
	gsl_rng_set(rng, seed);
	if (layout == LAY_ALL)
		pick_all(pairs, B->nf);
	else if ((layout == LAY_CELLS ? pick_cells : pick_pairs)(pairs,
	    B->nf, rng) != 0)
		goto out;
	memset(&rs, 0, sizeof rs);
	rs.model = B->m;
	rs.scaling = B->sc;
	rs.theta = truth_phys;
	rs.s = s;
	rs.n = n;
	rs.pairs = pairs;
	rs.y = y;
	if ((*r = het_resid_alloc(&rs, err)) == NULL ||
	    het_resid_nparams(*r) != NP ||
	    (ev = het_resid_eval_alloc(*r, err)) == NULL ||
	    het_resid_prepare(ev, B->x0, 0, err) != HET_OK)
		goto out;
	het_resid_eval_model(ev, 0, n, c2);
	for (k = 0; k < n; k++)
		y[k] = c2[k] + gsl_ran_gaussian_ziggurat(rng, SIGMA);
	rc = 0;
out:
	het_resid_eval_free(ev);
	gsl_rng_free(rng);
	return rc;
}

/* The shard posterior on r with the bench's priors: K = 1. */
static struct het_posterior *
shard_post(struct bench *B, const struct het_resid *r, int marg,
    int coords, struct het_error *err)
{
	struct het_post_spec	 ps;

	memset(&ps, 0, sizeof ps);
	ps.marginalise = marg;
	ps.resid = r;
	ps.model = B->m;
	ps.sigma = SIGMA;
	ps.priors = B->pri;
	ps.nshards = 1;
	ps.reparam = coords;
	return het_posterior_alloc(&ps, err);
}

/* Laplace standard errors of the shard likelihood at x0 (see top). */
#define QUAL_RTOL	1000.0
static int
laplace_sd(struct bench *B, struct het_error *err)
{
	struct het_resid_eval	*ev;
	struct het_resid_scratch *scr;
	gsl_matrix		*F, *V;
	gsl_vector		*ev_val;
	gsl_eigen_symmv_workspace *ws;
	double			*J, *res, w[NP], lmax, l, v, tol;
	size_t			 k, a, b, c;

	ev = het_resid_eval_alloc(B->r, err);
	scr = het_resid_scratch_alloc(B->r, 256, err);
	J = malloc(sizeof(double) * B->n * NP);
	res = malloc(sizeof(double) * B->n);
	F = gsl_matrix_calloc(NP, NP);
	V = gsl_matrix_alloc(NP, NP);
	ev_val = gsl_vector_alloc(NP);
	ws = gsl_eigen_symmv_alloc(NP);
	if (ev == NULL || scr == NULL || J == NULL || res == NULL ||
	    F == NULL || V == NULL || ev_val == NULL || ws == NULL ||
	    het_resid_prepare(ev, B->x0, 1, err) != HET_OK)
		return -1;
	het_resid_eval_rows(ev, scr, 0, B->n, res, J);
	for (k = 0; k < B->n; k++)
		for (a = 0; a < NP; a++)
			for (b = 0; b <= a; b++)
				*gsl_matrix_ptr(F, a, b) += J[k * NP + a] *
				    J[k * NP + b];
	for (a = 0; a < NP; a++)
		w[a] = 1 / sqrt(gsl_matrix_get(F, a, a));
	for (a = 0; a < NP; a++)
		for (b = 0; b <= a; b++) {
			v = gsl_matrix_get(F, a, b) * w[a] * w[b];
			gsl_matrix_set(F, a, b, v);
			gsl_matrix_set(F, b, a, v);
		}
	gsl_eigen_symmv(F, ev_val, V, ws);
	lmax = gsl_vector_max(ev_val);
	tol = QUAL_RTOL * NP * 2.220446049250313e-16 * lmax;
	for (a = 0; a < NP; a++) {
		v = 0;
		for (c = 0; c < NP; c++) {
			l = gsl_vector_get(ev_val, c);
			if (l > tol)
				v += gsl_matrix_get(V, a, c) *
				    gsl_matrix_get(V, a, c) / l;
		}
		B->sd[a] = SIGMA * w[a] * sqrt(v);
	}
	gsl_eigen_symmv_free(ws);
	gsl_vector_free(ev_val);
	gsl_matrix_free(V);
	gsl_matrix_free(F);
	free(J);
	free(res);
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
	return 0;
}

static int
setup(struct bench *B, int layout, int coords, struct het_error *err)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	double			 s[2 * NA];
	size_t			 a, k;

	for (a = 0; a < NA; a++) {
		B->phi[a] = -60.0 + 25.0 * (double)a;
		s[a] = 0.30 - 0.01 * (double)a;		/* contrast */
		s[NA + a] = 1.0 + 0.005 * (double)a;	/* offset */
	}
	memcpy(B->x0, truth_phys, sizeof truth_phys);
	memcpy(B->x0 + NPHYS, s, sizeof s);
	memset(&ms, 0, sizeof ms);
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = QV;
	ms.dt = DT;
	ms.start_frame = 1;
	ms.n_frames = B->nf;
	ms.n_angles = NA;
	ms.phi = B->phi;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, NA, B->phi);
	if ((B->m = het_model_alloc(&ms, err)) == NULL ||
	    (B->sc = het_scaling_alloc(&ss, err)) == NULL)
		return -1;
	B->n = layout == LAY_ALL ? B->nf * (B->nf - 1) / 2 * NA : NPAIR;
	B->pairs = malloc(B->n * sizeof B->pairs[0]);
	B->y = calloc(B->n, sizeof B->y[0]);
	B->c2 = malloc(B->n * sizeof B->c2[0]);
	if (B->pairs == NULL || B->y == NULL || B->c2 == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for %zu pairs",
		    B->n);
		return -1;
	}
	if (shard_data(B, layout, 20261123, s, B->n, B->pairs, B->c2, B->y,
	    &B->r, err) != 0)
		return -1;
	het_resid_bounds(B->r, B->lo, B->hi);
	memcpy(B->lo, phys_lo, sizeof phys_lo);
	memcpy(B->hi, phys_hi, sizeof phys_hi);
	if (laplace_sd(B, err) != 0)
		return -1;
	for (k = 0; k < NP; k++)
		het_post_prior_nlsq(B->x0[k], B->sd[k], B->lo[k], B->hi[k],
		    WIDTH, &B->pri[k]);
	if ((B->post = shard_post(B, B->r, 0, coords, err)) == NULL ||
	    (B->postm = shard_post(B, B->r, 1, coords, err)) == NULL ||
	    (B->pchk = shard_post(B, B->r, 0, HET_COORDS_POWER_LAW,
	    err)) == NULL)
		return -1;
	/*
	 * The other layout (gradient timing only): random pairs when the
	 * main shard is made of cells, cells otherwise; the same priors.
	 */
	if (shard_data(B, layout == LAY_PAIRS ? LAY_CELLS : LAY_PAIRS,
	    11235813, s, NPAIR, B->pairs2, B->y2, B->y2, &B->r2, err) != 0)
		return -1;
	return (B->post2 = shard_post(B, B->r2, 0, coords, err)) == NULL ?
	    -1 : 0;
}

/*
 * CPU seconds per log density (+ gradient) evaluation at u, best of 5
 * blocks (CPU time: the machine may be shared).
 */
static double
time_grad(struct het_posterior *post, const double *u, int want_grad,
    long reps)
{
	double	g[NP], lp, t0, best = 1e30;
	long	r;
	int	blk;

	for (blk = 0; blk < 5; blk++) {
		t0 = cpu_now();
		for (r = 0; r < reps; r++)
			het_posterior_logp(post, u, &lp,
			    want_grad ? g : NULL, NULL);
		t0 = (cpu_now() - t0) / (double)reps;
		if (t0 < best)
			best = t0;
	}
	return best;
}

static void
json_array(FILE *fp, const char *key, const double *v, size_t n, int last)
{
	size_t	k;

	fprintf(fp, "\"%s\": [", key);
	for (k = 0; k < n; k++)
		fprintf(fp, "%s%.17g", k ? ", " : "", v[k]);
	fprintf(fp, "]%s\n", last ? "" : ",");
}

static int
dump_shard(struct bench *B, const char *path)
{
	FILE		*fp;
	double		 u[NP], u1[NP], g[NP], lp, v[NP];
	double		 pa[NP], pb[NP];
	const char	*q = "";
	size_t		 k;

	if ((fp = fopen(path, "w")) == NULL)
		return -1;
	fprintf(fp, "{\n\"N\": %zu, \"NA\": %d, \"n\": %zu, \"p\": %d,\n",
	    B->nf, NA, B->n, NP);
	fprintf(fp, "\"q\": %.17g, \"dt\": %.17g, \"sigma\": %.17g, "
	    "\"invk\": 1, \"tref\": %.17g,\n", QV, DT, SIGMA,
	    het_posterior_tref(B->pchk));
	json_array(fp, "t", het_model_time(B->m), B->nf, 0);
	json_array(fp, "phi", B->phi, NA, 0);
	for (k = 0; k < 3; k++) {
		static const char *key[3] = { "ii", "jj", "aa" };

		fprintf(fp, "\"%s\": [", key[k]);
		for (size_t e = 0; e < B->n; e++)
			fprintf(fp, "%s%u", e ? ", " : "",
			    1 + (k == 0 ? B->pairs[e].i : k == 1 ?
			    B->pairs[e].j : B->pairs[e].a));
		fprintf(fp, "],\n");
	}
	json_array(fp, "y", B->y, B->n, 0);
	json_array(fp, "c2_truth", B->c2, B->n, 0);
	fprintf(fp, "\"names\": [");
	for (k = 0; k < NP; k++)
		fprintf(fp, "%s\"%s\"", k ? ", " : "",
		    het_posterior_name(B->pchk, k));
	fprintf(fp, "],\n");
	for (k = 0; k < NP; k++) {
		pa[k] = B->pri[k].a;
		pb[k] = B->pri[k].b;
		if (B->pri[k].kind != HET_PRIOR_TRUNCNORMAL)
			q = "not all priors truncated normal";
	}
	if (*q != '\0') {
		fclose(fp);
		return -1;
	}
	json_array(fp, "prior_loc", pa, NP, 0);
	json_array(fp, "prior_scale", pb, NP, 0);
	json_array(fp, "lo", B->lo, NP, 0);
	json_array(fp, "hi", B->hi, NP, 0);
	json_array(fp, "laplace_sd", B->sd, NP, 0);
	json_array(fp, "truth", B->x0, NP, 0);
	/* log density and gradient at the truth and at a moved point */
	if (het_posterior_to_u(B->pchk, B->x0, u, NULL) != HET_OK ||
	    het_posterior_logp(B->pchk, u, &lp, g, NULL) != HET_OK) {
		fclose(fp);
		return -1;
	}
	json_array(fp, "u_truth", u, NP, 0);
	fprintf(fp, "\"lp_truth\": %.17g,\n", lp);
	json_array(fp, "grad_truth", g, NP, 0);
	for (k = 0; k < NP; k++)
		u1[k] = u[k] + 0.05 * sin(1.0 + (double)k);
	if (het_posterior_logp(B->pchk, u1, &lp, g, NULL) != HET_OK) {
		fclose(fp);
		return -1;
	}
	het_posterior_to_x(B->pchk, u1, v);
	json_array(fp, "u_moved", u1, NP, 0);
	json_array(fp, "x_moved", v, NP, 0);
	fprintf(fp, "\"lp_moved\": %.17g,\n", lp);
	json_array(fp, "grad_moved", g, NP, 1);
	fprintf(fp, "}\n");
	return fclose(fp) == 0 ? 0 : -1;
}

/* Progress on stderr every 250 transitions (CPU seconds so far). */
static int
progress_cb(void *ctx, const struct het_shard_progress *pr)
{
	const double *c0 = ctx;

	if (pr->iteration % 250 == 0)
		fprintf(stderr, "bench_cmc: chain %ld %s %ld/%ld step %.3g "
		    "accept %.2f divergences %ld cpu %.0f s\n", pr->chain,
		    pr->phase, pr->iteration, pr->total, pr->step_size,
		    pr->accept, pr->divergences, cpu_now() - *c0);
	return 0;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
run_chains(struct bench *B, long nwarm, long ndraw, int dense, long accept,
    unsigned long seed, int laplace, int marg, const char *rpath,
    struct het_error *err)
{
	struct het_shard_settings	 st;
	struct het_shard_result		 res;
	double				 t0, c0, wall, cpu, ess[NP], rmax = 0;
	long				 div = 0;
	size_t				 k, c;
	FILE				*fp;

	het_shard_settings_default(&st);
	st.num_warmup = nwarm;
	st.num_samples = ndraw;
	st.num_chains = 4;
	st.seed = seed;
	st.dense_mass = dense;
	st.laplace = laplace;
	st.target_accept = (double)accept / 100.0;
	t0 = now();
	c0 = cpu_now();
	if (het_shard_run(marg ? B->postm : B->post, &st, 0, B->x0,
	    progress_cb, &c0, &res,
	    err) != HET_OK)
		return -1;
	wall = now() - t0;
	cpu = cpu_now() - c0;
	for (k = 0; k < NP; k++) {
		ess[k] = res.summary[k].ess_bulk;
		if (res.summary[k].rhat > rmax)
			rmax = res.summary[k].rhat;
	}
	for (c = 0; c < res.nchain; c++)
		div += res.divergences[c];
	printf("sampling chains 4 warmup %ld draws %ld metric %s target "
	    "accept %.2f seed %lu (sequential, one thread)\n", nwarm, ndraw,
	    dense ? "dense" : "diagonal", st.target_accept, seed);
	printf("contrast and offset %s (sampled dimension %zu of %d)\n",
	    res.marginal == HET_MARG_ON ? "integrated out" :
	    res.marginal == HET_MARG_OFF ? "sampled (-M)" :
	    "sampled (marginal refused or at a bound)",
	    het_posterior_dim(marg ? B->postm : B->post), NP);
	printf("laplace %s k-hat %.3f effective fraction %.3f\n",
	    res.laplace ? "used" : "not used", res.laplace_khat,
	    res.laplace_ess);
	printf("power laws on anchor times (bit mask) %u\n", res.anchors);
	printf("sampling wall %.2f s\n", wall);
	printf("sampling cpu %.2f s\n", cpu);
	for (c = 0; c < res.nchain; c++)
		printf("chain %zu step_size %.4g accept %.3f divergences %ld "
		    "bfmi %.3f leapfrog/transition warmup %.1f sampling %.1f\n",
		    c, res.step_size[c], res.accept[c], res.divergences[c],
		    res.bfmi[c], res.leapfrog_warmup[c], res.leapfrog[c]);
	qsort(ess, NP, sizeof ess[0], cmp_dbl);
	printf("ess_bulk min %.0f median %.0f\n", ess[0],
	    0.5 * (ess[NP / 2 - 1] + ess[NP / 2]));
	printf("ess_bulk_per_cpu_s min %.4f median %.4f (chains run one "
	    "after the other on one core)\n", ess[0] / cpu,
	    0.5 * (ess[NP / 2 - 1] + ess[NP / 2]) / cpu);
	printf("ess_bulk_per_wall_s min %.4f\n", ess[0] / wall);
	printf("rhat max %.4f\n", rmax);
	printf("divergences %ld\n", div);
	printf("%-18s %12s %12s %12s %8s %8s\n", "parameter", "truth", "mean",
	    "sd", "ess", "rhat");
	for (k = 0; k < NP; k++)
		printf("%-18s %12.6g %12.6g %12.4g %8.0f %8.4f\n", res.names[k],
		    B->x0[k], res.summary[k].mean, res.summary[k].sd,
		    res.summary[k].ess_bulk, res.summary[k].rhat);
	if (rpath != NULL && (fp = fopen(rpath, "w")) != NULL) {
		double	v[NP];

		fprintf(fp, "{\n\"warmup\": %ld, \"draws\": %ld, "
		    "\"metric\": \"%s\", "
		    "\"wall\": %.6g, \"cpu\": %.6g, \"divergences\": %ld, "
		    "\"rhat_max\": %.6g,\n", nwarm, ndraw, dense ? "dense" :
		    "diag", wall, cpu, div, rmax);
		for (k = 0; k < NP; k++)
			v[k] = res.summary[k].mean;
		json_array(fp, "mean", v, NP, 0);
		for (k = 0; k < NP; k++)
			v[k] = res.summary[k].sd;
		json_array(fp, "sd", v, NP, 0);
		for (k = 0; k < NP; k++)
			v[k] = res.summary[k].ess_bulk;
		json_array(fp, "ess_bulk", v, NP, 0);
		for (k = 0; k < NP; k++)
			v[k] = res.summary[k].rhat;
		json_array(fp, "rhat", v, NP, 1);
		fprintf(fp, "}\n");
		fclose(fp);
	}
	het_shard_result_clear(&res);
	return 0;
}

int
main(int argc, char **argv)
{
	static struct bench	 B;
	struct het_error	 err;
	const char		*spath = "cmc_shard.json";
	const char		*rpath = "cmc_hetui.json";
	double			 u[NP], um[NP], tg, tv;
	long			 reps = 500, nwarm = 500, ndraw = 1000;
	int			 ch, nosample = 0, rc = 0, layout = LAY_CELLS;
	int			 dense = 0, no_laplace = 0, marg = 1;
	int			 coords = HET_COORDS_RATES, other;
	long			 accept = 95, nf = NF_MAX;
	unsigned long		 seed = 42;
	const char		*lay[3] = { "random-pair", "cell-grouped",
				    "every pair" };

	while ((ch = getopt(argc, argv, "ADLMS:a:c:d:f:g:npr:s:w:")) != -1) {
		switch (ch) {
		case 'A':
			layout = LAY_ALL;
			break;
		case 'c':
			if (strcmp(optarg, "rates") == 0)
				coords = HET_COORDS_RATES;
			else if (strcmp(optarg, "power_law") == 0)
				coords = HET_COORDS_POWER_LAW;
			else if (strcmp(optarg, "physical") == 0)
				coords = HET_COORDS_PHYSICAL;
			else {
				fprintf(stderr, "bench_cmc: -c takes rates, "
				    "power_law or physical, not '%s'\n",
				    optarg);
				return 2;
			}
			break;
		case 'f':
			nf = strtol(optarg, NULL, 10);
			if (nf < 40 || nf > NF_MAX) {
				fprintf(stderr, "bench_cmc: -f takes the "
				    "number of frames, 40 to %d\n", NF_MAX);
				return 2;
			}
			break;
		case 'S': {
			char *end;

			seed = strtoul(optarg, &end, 10);
			if (end == optarg || *end != '\0') {
				fprintf(stderr, "bench_cmc: -S takes a "
				    "non-negative integer seed, not '%s'\n",
				    optarg);
				return 2;
			}
			break;
		}
		case 'a':
			accept = strtol(optarg, NULL, 10);
			if (accept < 50 || accept > 99) {
				fprintf(stderr, "bench_cmc: -a takes the target "
				    "acceptance in percent, 50 to 99\n");
				return 2;
			}
			break;
		case 'L':
			no_laplace = 1;
			break;
		case 'M':
			marg = 0;
			break;

		case 'D':
			dense = 1;
			break;
		case 'p':
			layout = LAY_PAIRS;
			break;
		case 'd':
			ndraw = strtol(optarg, NULL, 10);
			break;
		case 'w':
			nwarm = strtol(optarg, NULL, 10);
			break;
		case 'g':
			reps = strtol(optarg, NULL, 10);
			if (reps < 1)
				reps = 1;
			break;
		case 'n':
			nosample = 1;
			break;
		case 'r':
			rpath = optarg;
			break;
		case 's':
			spath = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_cmc [-ADLMnp] [-a PCT] "
			    "[-c COORDS] [-f FRAMES] [-S SEED] [-g REPS] "
			    "[-w WARMUP] [-d DRAWS] [-s SHARD.json] "
			    "[-r RESULT.json]\n");
			return 2;
		}
	}
	memset(&err, 0, sizeof err);
	other = layout == LAY_PAIRS ? LAY_CELLS : LAY_PAIRS;
	B.nf = (size_t)nf;
	if (setup(&B, layout, coords, &err) != 0) {
		fprintf(stderr, "bench_cmc: setup failed: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	printf("shard pairs %zu (%s) frames %zu angles %d parameters %d "
	    "coordinates %s (power-law triples %zu)\n", B.n, lay[layout],
	    B.nf, NA, NP, coords == HET_COORDS_RATES ? "rates" :
	    coords == HET_COORDS_POWER_LAW ? "power_law" : "physical",
	    het_posterior_nreparam(B.post));
	if (het_posterior_to_u(B.post, B.x0, u, &err) != HET_OK) {
		fprintf(stderr, "bench_cmc: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	tg = time_grad(B.post, u, 1, reps);
	tv = time_grad(B.post, u, 0, reps);
	printf("%s gradient per_eval %.1f us per_pair %.1f ns (sampled "
	    "shard)\n", lay[layout], 1e6 * tg, 1e9 * tg / (double)B.n);
	printf("%s value per_eval %.1f us per_pair %.1f ns\n", lay[layout],
	    1e6 * tv, 1e9 * tv / (double)B.n);
	if (het_posterior_to_u(B.postm, B.x0, um, &err) == HET_OK) {
		tg = time_grad(B.postm, um, 1, reps);
		tv = time_grad(B.postm, um, 0, reps);
		printf("%s marginal (contrast and offset integrated out, %zu "
		    "coordinates) gradient per_eval %.1f us value per_eval "
		    "%.1f us\n", lay[layout], het_posterior_dim(B.postm),
		    1e6 * tg, 1e6 * tv);
	}
	tg = time_grad(B.post2, u, 1, reps);
	tv = time_grad(B.post2, u, 0, reps);
	printf("%s gradient per_eval %.1f us per_pair %.1f ns\n",
	    lay[other], 1e6 * tg, 1e9 * tg / NPAIR);
	printf("%s value per_eval %.1f us per_pair %.1f ns\n", lay[other],
	    1e6 * tv, 1e9 * tv / NPAIR);
	if (dump_shard(&B, spath) != 0) {
		fprintf(stderr, "bench_cmc: cannot write %s\n", spath);
		rc = 1;
		goto out;
	}
	printf("shard written to %s\n", spath);
	fflush(stdout);
	if (!nosample && run_chains(&B, nwarm, ndraw, dense, accept, seed,
	    !no_laplace, marg, rpath, &err) != 0) {
		fprintf(stderr, "bench_cmc: sampling failed: %s\n", err.msg);
		rc = 1;
	}
out:
	het_posterior_free(B.post);
	het_posterior_free(B.pchk);
	het_posterior_free(B.post2);
	het_posterior_free(B.postm);
	het_resid_free(B.r);
	het_resid_free(B.r2);
	free(B.pairs);
	free(B.y);
	free(B.c2);
	het_scaling_free(B.sc);
	het_model_free(B.m);
	return rc;
}
