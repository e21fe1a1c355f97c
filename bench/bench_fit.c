/*
 * bench_fit.c: wall time and quality of the joint NLSQ fit (`make bench`).
 *
 * Problems (heterodyne-spec.md §1, mode two_component, all 14 physics
 * parameters free, individual contrast/offset per angle, linear loss):
 *	S  100 frames x  4 angles    19,800 pairs  22 parameters
 *	M  300 frames x  8 angles   358,800 pairs  30 parameters
 *	L 1000 frames x 23 angles 11,488,500 pairs  60 parameters
 * simulated in-process: q = 0.01 1/Å, dt = 0.1 s, start_frame 1, angles
 * spread over (-90, 90) degrees, one fixed truth (the sample decays
 * within about 3 s, the reference within about 10 s, two to three flow
 * fringes inside the sample decay for angles along the flow, the sample
 * fraction grows from 0.36 to 0.8 over 100 s), per-angle contrast near
 * 0.22 and offset near 1, and seeded Gaussian noise of sd SIGMA on every
 * pair.  The cost of the true parameters is then 1/2 sum noise^2 and
 * the reduced chi-square (against SIGMA) of the truth is about 1.
 *
 * Start: every physics parameter of the truth perturbed by a factor
 * 1 +- u, u uniform in [0.1, 0.3], random sign (seeded), clipped into
 * the table bounds; contrast and offset from the quantile estimate, as
 * `hetui fit` starts them.  Each problem is fitted on a pool of 2
 * threads with SciPy's default tolerances (ftol = xtol = gtol = 1e-8,
 * x_scale jac, max_nfev 100 p), once from that start (hetui's default
 * sums: the separable form), once from it with the pair kernel
 * (het_fit_options.pair_kernel: every pass over every pair, as all fits
 * ran before; a last table gives both side by side), and once with
 * multistart (the start plus Latin hypercube starts inside the table
 * bounds, 8 in all for S and M, 4 for L; the engine's default
 * screening: 20 iterations, then the best quarter and start 0 go on).
 * Each start is capped at 1000 iterations (S, M) or 60 (L: at about
 * 0.5 s per iteration the cap is 30 s, three times the target).  L has
 * 1000 frames, so the engine's early-window pre-fit (the first 300
 * frames) runs before its fit; wall time and passes include it.
 * Printed per fit: wall time, iterations, cost and normal-equation
 * passes, cost / truth cost, reduced chi-square and the stopping reason.
 *
 * With a directory argument, S and M are also written there for
 * bench/peer_fit.py (SciPy TRF on the same data and start): NAME.json
 * (setup, truth, start, bounds, hetui's numbers) and NAME.y (the data,
 * float64 in the machine's byte order, pairs angle-major then row-major
 * i < j).  This is not a test: it never fails on speed or quality.
 *
 * Environment (for development runs): BENCH_FIT_ONLY, letters of the
 * problems to run ("SM"); BENCH_FIT_MODES, "s" single start, "m"
 * multistart, "p" single start with the pair kernel (default "spm");
 * BENCH_FIT_TRACE set: every iteration on stderr;
 * BENCH_FIT_NA: the number of angles of every problem; BENCH_FIT_JOINT
 * set: no variable projection (scaling_joint); BENCH_FIT_XS set: x_scale
 * |x0| instead of jac; BENCH_FIT_R0: the initial radius factor.
 */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit.h"
#include "bench_util.h"

#define NTHREADS	2
#define SIGMA		0.003
#define SEED_NOISE	20261123UL
#define SEED_START	777UL

struct bench_prob {
	const char	*name;
	size_t		 nf, na;
	int		 peer;		/* dumped for the SciPy peer */
	long		 max_iter;	/* iteration cap of each start */
	long		 ms_n;		/* multistart starts */
};

static const struct bench_prob probs[] = {
	{ "S", 100, 4, 1, 1000, 8 },
	{ "M", 300, 8, 1, 1000, 8 },
	{ "L", 1000, 23, 0, 60, 4 },
};

/* D0_ref .. phi0 (het_params.h order). */
static const double truth_th[HET_P_HET_COUNT] = {
	1500.0, 0.25, 20.0, 6000.0, -0.3, 50.0, 500.0, 0.2, 5.0,
	0.35, 0.01, 30.0, 0.1, 4.0
};

struct sim {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		*pairs;
	double			*y, *phi;
	size_t			 n, p, na, nf;
	double			*truth, *x0, *lo, *hi;
	double			 cost_truth;
};

struct fit_line {
	double	 time, cpu, cost;
	long	 iter, nfev, njev, npass, nsep, wf, wi;
	double	 chi2;
	const char *reason;
	size_t	 nbelow, nstarts;	/* starts at or below the truth cost */
};

static void
die(const char *what, const struct het_error *err)
{
	fprintf(stderr, "bench_fit: %s: %s\n", what, err->msg);
	exit(1);
}

static void
sim_free(struct sim *S)
{
	if (S == NULL)
		return;
	het_resid_free(S->r);
	het_scaling_free(S->sc);
	het_model_free(S->m);
	free(S->pairs);
	free(S->y);
	free(S->phi);
	free(S->truth);
	free(S->x0);
	free(S->lo);
	free(S->hi);
	free(S);
}

static struct sim *
sim_new(const struct bench_prob *bp)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_resid_eval *ev;
	struct het_error err;
	struct sim *S;
	double *s, *con, *off, e, u, sum = 0.0;
	size_t a, i, j, k, nph = HET_P_HET_COUNT;
	gsl_rng *rng;

	if ((S = calloc(1, sizeof(*S))) == NULL)
		return NULL;
	S->na = bp->na;
	S->nf = bp->nf;
	S->n = bp->na * bp->nf * (bp->nf - 1) / 2;
	S->p = nph + 2 * bp->na;
	S->pairs = malloc(S->n * sizeof(*S->pairs));
	S->y = calloc(S->n, sizeof(double));	/* read by het_resid_alloc */
	S->phi = malloc(S->na * sizeof(double));
	S->truth = malloc(S->p * sizeof(double));
	S->x0 = malloc(S->p * sizeof(double));
	S->lo = malloc(S->p * sizeof(double));
	S->hi = malloc(S->p * sizeof(double));
	s = S->truth + nph;
	if (S->pairs == NULL || S->y == NULL || S->phi == NULL ||
	    S->truth == NULL || S->x0 == NULL || S->lo == NULL ||
	    S->hi == NULL) {
		sim_free(S);
		return NULL;
	}
	for (a = 0; a < S->na; a++) {
		S->phi[a] = -90.0 + 180.0 * ((double)a + 0.5) /
		    (double)S->na;
		s[a] = 0.22 + 0.03 * sin(1.3 * (double)a);
		s[S->na + a] = 1.0 + 0.002 * cos(0.7 * (double)a);
	}
	memcpy(S->truth, truth_th, sizeof(truth_th));
	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = S->nf;
	ms.n_angles = S->na;
	ms.phi = S->phi;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, S->na, S->phi);
	if ((S->m = het_model_alloc(&ms, &err)) == NULL)
		die("model", &err);
	if ((S->sc = het_scaling_alloc(&ss, &err)) == NULL)
		die("scaling", &err);
	k = 0;
	for (a = 0; a < S->na; a++)
		for (i = 0; i < S->nf; i++)
			for (j = i + 1; j < S->nf; j++, k++) {
				S->pairs[k].i = (uint32_t)i;
				S->pairs[k].j = (uint32_t)j;
				S->pairs[k].a = (uint32_t)a;
			}
	memset(&rs, 0, sizeof(rs));
	rs.model = S->m;
	rs.scaling = S->sc;
	rs.theta = truth_th;
	rs.s = s;
	rs.n = S->n;
	rs.pairs = S->pairs;
	rs.y = S->y;
	if ((S->r = het_resid_alloc(&rs, &err)) == NULL)
		die("problem", &err);
	het_resid_bounds(S->r, S->lo, S->hi);
	if ((ev = het_resid_eval_alloc(S->r, &err)) == NULL ||
	    het_resid_prepare(ev, S->truth, 0, &err) != HET_OK)
		die("model evaluation", &err);
	het_resid_eval_model(ev, 0, S->n, S->y);
	het_resid_eval_free(ev);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (rng == NULL) {
		fprintf(stderr, "bench_fit: out of memory\n");
		exit(1);
	}
	gsl_rng_set(rng, SEED_NOISE + S->nf);
	for (k = 0; k < S->n; k++) {
		e = gsl_ran_gaussian(rng, SIGMA);
		S->y[k] += e;
		sum += e * e;
	}
	S->cost_truth = 0.5 * sum;
	/* Start: physics perturbed by 10-30 %, scaling estimated. */
	gsl_rng_set(rng, SEED_START);
	for (k = 0; k < nph; k++) {
		u = 0.1 + 0.2 * gsl_rng_uniform(rng);
		if (gsl_rng_uniform(rng) < 0.5)
			u = -u;
		S->x0[k] = truth_th[k] * (1.0 + u);
		S->x0[k] = fmin(fmax(S->x0[k], S->lo[k]), S->hi[k]);
	}
	gsl_rng_free(rng);
	con = S->x0 + nph;
	off = con + S->na;
	if (het_scaling_estimate(S->sc, S->n, S->pairs, S->y, con, off,
	    &err) != HET_OK)
		die("scaling estimate", &err);
	for (k = nph; k < S->p; k++)
		S->x0[k] = fmin(fmax(S->x0[k], S->lo[k]), S->hi[k]);
	return S;
}

/* BENCH_FIT_TRACE: one line per iteration on stderr. */
static void
trace(void *ctx, const struct het_fit_progress *pr)
{
	size_t k;

	(void)ctx;
	fprintf(stderr, "%zu %ld %ld %.10g r %.3g l %.3g s %.3g g %.3g |",
	    pr->start, pr->iter, pr->nfev, pr->cost, pr->radius, pr->lambda,
	    pr->step_norm, pr->g_norm);
	for (k = 0; k < 14 && k < pr->p; k++)
		fprintf(stderr, " %.5g", pr->x[k]);
	fprintf(stderr, "\n");
}

static void
fit(struct het_pool *pool, const struct sim *S, const struct bench_prob *bp,
    int multistart, int pairs, struct fit_line *fl)
{
	struct het_fit_options o;
	struct het_fit_result *res;
	struct het_error err;
	size_t k;
	double c0;

	het_fit_default_options(&o);
	o.nlsq.loss = HET_LOSS_LINEAR;
	o.nlsq.max_iterations = bp->max_iter;
	o.nlsq.multistart = multistart;
	o.nlsq.multistart_n = bp->ms_n;
	o.noise_sigma = SIGMA;
	o.pair_kernel = pairs;
	if (getenv("BENCH_FIT_XS") != NULL) {
		static double xs[256];

		for (k = 0; k < S->p && k < 256; k++)
			xs[k] = fmax(fabs(S->x0[k]), 1e-3);
		o.nlsq.x_scale_jac = 0;
		o.x_scale = xs;
	}
	if (getenv("BENCH_FIT_JOINT") != NULL)
		o.scaling_joint = 1;
	if (getenv("BENCH_FIT_R0") != NULL)
		o.radius0 = atof(getenv("BENCH_FIT_R0"));
	if (getenv("BENCH_FIT_TRACE") != NULL)
		o.progress = trace;
	c0 = cpu_s();
	if (het_fit_run(pool, S->r, S->x0, NULL, NULL, &o, &res, &err) !=
	    HET_OK)
		die("fit", &err);
	fl->cpu = cpu_s() - c0;
	fl->time = res->wall_time;
	fl->npass = res->npass;
	fl->nsep = res->nsep;
	fl->wf = res->window_frames;
	fl->wi = res->window_iterations;
	fl->cost = res->cost;
	fl->iter = res->iterations;
	fl->nfev = res->nfev;
	fl->njev = res->njev;
	fl->chi2 = res->chi2_red;
	fl->reason = het_nlsq_reason_name(res->reason);
	fl->nstarts = res->nstarts;
	fl->nbelow = 0;
	for (k = 0; k < res->nstarts; k++)
		if (res->starts[k].cost <= S->cost_truth)
			fl->nbelow++;
	if (multistart)
		for (k = 0; k < res->nstarts; k++)
			printf("  start %zu: cost/truth %.6f, %ld iterations, "
			    "%s\n", k, res->starts[k].cost / S->cost_truth,
			    res->starts[k].iterations,
			    het_nlsq_reason_name(res->starts[k].reason));
	het_fit_result_free(res);
}

/*
 * The single-start fits with the separable sums (hetui's default for the
 * linear loss) against the same fits with the pair kernel (what every
 * fit used before): wall, CPU, passes and their ratios.
 */
static void
sums_table(struct fit_line fl[3][sizeof(probs) / sizeof(probs[0])],
    const int *ran, const double *truth)
{
	const struct fit_line *s, *p;
	size_t b;

	printf("\n| problem | separable: wall (s) | cpu (s) | passes (of "
	    "them separable) | cost/truth | pair kernel: wall (s) | cpu (s) "
	    "| passes | cost/truth | wall ratio | cpu ratio |\n"
	    "|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (b = 0; b < sizeof(probs) / sizeof(probs[0]); b++) {
		s = &fl[0][b];
		p = &fl[2][b];
		if (!ran[b] || s->reason == NULL || p->reason == NULL)
			continue;
		printf("| %s %zux%zu | %.2f | %.2f | %ld (%ld) | %.4f | %.2f | "
		    "%.2f | %ld | %.4f | %.2f | %.2f |\n", probs[b].name,
		    probs[b].nf, probs[b].na, s->time, s->cpu, s->npass,
		    s->nsep, s->cost / truth[b], p->time, p->cpu, p->npass,
		    p->cost / truth[b], p->time / s->time, p->cpu / s->cpu);
	}
}

/* NAME.json and NAME.y for the SciPy peer. */
static int
dump(const char *dir, const char *name, const struct sim *S,
    const struct fit_line *fl)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.y", dir, name);
	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(S->y, sizeof(double), S->n, f) != S->n || fclose(f) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "{\n\"name\": \"%s\", \"n_frames\": %zu, \"n_angles\": "
	    "%zu,\n\"q\": 0.01, \"dt\": 0.1, \"start_frame\": 1, "
	    "\"sigma\": %.17g,\n", name, S->nf, S->na, SIGMA);
	print_array(f, "phi", S->phi, S->na);
	print_array(f, "truth", S->truth, S->p);
	print_array(f, "x0", S->x0, S->p);
	print_array(f, "lo", S->lo, S->p);
	print_array(f, "hi", S->hi, S->p);
	fprintf(f, "\"cost_truth\": %.17g,\n\"hetui\": {\"time\": %.6f, "
	    "\"iter\": %ld, \"nfev\": %ld, \"njev\": %ld, \"cost\": %.17g, "
	    "\"threads\": %d}\n}\n", S->cost_truth, fl->time, fl->iter,
	    fl->nfev, fl->njev, fl->cost, NTHREADS);
	return fclose(f) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct fit_line fl[3][sizeof(probs) / sizeof(probs[0])];
	struct bench_prob bp;
	double truth[sizeof(probs) / sizeof(probs[0])];
	int ran[sizeof(probs) / sizeof(probs[0])] = { 0 };
	struct het_pool *pool;
	struct het_error err;
	struct sim *S;
	size_t b, nb = sizeof(probs) / sizeof(probs[0]), m;
	const char *only = getenv("BENCH_FIT_ONLY");
	const char *modes = getenv("BENCH_FIT_MODES");

	het_pool_blas_single_threaded();
	if ((pool = het_pool_alloc(NTHREADS, &err)) == NULL)
		die("pool", &err);
	memset(fl, 0, sizeof(fl));
	for (b = 0; b < nb; b++) {
		if (only != NULL && strchr(only, probs[b].name[0]) == NULL)
			continue;
		bp = probs[b];
		if (getenv("BENCH_FIT_NA") != NULL)
			bp.na = (size_t)atol(getenv("BENCH_FIT_NA"));
		if ((S = sim_new(&bp)) == NULL) {
			fprintf(stderr, "bench_fit: out of memory\n");
			return 1;
		}
		printf("problem %s: %zu frames x %zu angles, %zu pairs, %zu "
		    "parameters, truth cost %.6g\n", probs[b].name, S->nf,
		    S->na, S->n, S->p, S->cost_truth);
		for (m = 0; m < 3; m++) {
			if (strchr(modes != NULL ? modes : "spm",
			    "smp"[m]) == NULL)
				continue;
			fit(pool, S, &bp, m == 1, m == 2, &fl[m][b]);
			printf("fit %s %s threads %d: %.3f s (cpu %.3f s), "
			    "%ld iterations, %ld cost evaluations, %ld "
			    "jacobians, %ld data passes (%ld separable), "
			    "cost/truth %.6f, chi2_red %.4f, %s",
			    probs[b].name, m == 1 ? "multistart" : m == 2 ?
			    "single, pair kernel" : "single", NTHREADS,
			    fl[m][b].time, fl[m][b].cpu, fl[m][b].iter,
			    fl[m][b].nfev, fl[m][b].njev, fl[m][b].npass,
			    fl[m][b].nsep, fl[m][b].cost / S->cost_truth,
			    fl[m][b].chi2, fl[m][b].reason);
			if (fl[m][b].wf > 0)
				printf(", after a %ld-iteration pre-fit on the "
				    "first %ld frames", fl[m][b].wi,
				    fl[m][b].wf);
			if (m == 1)
				printf(", %zu of %zu starts at or below the "
				    "truth cost", fl[m][b].nbelow,
				    fl[m][b].nstarts);
			printf("\n");
			fflush(stdout);
		}
		if (argc > 1 && probs[b].peer &&
		    dump(argv[1], probs[b].name, S, &fl[0][b]) != 0) {
			fprintf(stderr, "bench_fit: cannot write %s/%s.*\n",
			    argv[1], probs[b].name);
			return 1;
		}
		truth[b] = S->cost_truth;
		ran[b] = 1;
		sim_free(S);
	}
	het_pool_free(pool);
	printf("\n| problem | single: wall (s) | cpu (s) | iter | passes | "
	    "cost/truth | reason | multistart: wall (s) | cost/truth | "
	    "starts <= truth |\n|---|---|---|---|---|---|---|---|---|---|\n");
	for (b = 0; b < nb; b++) {
		if (!ran[b])
			continue;
		printf("| %s %zux%zu | %.2f | %.2f | %ld | %ld | %.4f | %s | ",
		    probs[b].name, probs[b].nf, probs[b].na, fl[0][b].time,
		    fl[0][b].cpu, fl[0][b].iter, fl[0][b].npass,
		    fl[0][b].cost / truth[b], fl[0][b].reason);
		if (fl[1][b].nstarts > 0)
			printf("%.2f | %.4f | %zu of %zu |\n", fl[1][b].time,
			    fl[1][b].cost / truth[b], fl[1][b].nbelow,
			    fl[1][b].nstarts);
		else
			printf("- | - | - |\n");
	}
	sums_table(fl, ran, truth);
	return 0;
}
