/*
 * bench_model.c: throughput of the heterodyne model kernel (`make bench`).
 *
 * Problem: 1000 frames x 23 angles, two_component, all 14 parameters
 * free, the golden "typical" parameter vector: 11,488,500 upper-triangle
 * pairs.  For 1 and 2 threads it times
 *   - prepare (the per-time tables, one thread),
 *   - a model pass (g only) and a model + Jacobian pass (g and 14
 *     derivative columns),
 * with the pair list in two orders: angle innermost (consecutive pairs
 * share (i, j), so the kernel reuses the transport factors) and angle
 * outermost (one angle's triangle after the other).  Each thread takes
 * one contiguous half of the pair list and evaluates it in chunks of
 * CHUNK pairs into its own buffers, so the output memory stays bounded
 * (CHUNK x 15 doubles per thread) however large the problem; the
 * consumer here only sums the values, as a stand-in for the residual and
 * normal-equation code that would read them.
 *
 * Times are the best of REPS runs (wall clock, CLOCK_MONOTONIC).  Output
 * is plain text; one line per figure, "key value unit", easy to grep.
 * This is not a test: it never fails on speed.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_model.h"
#include "het_params.h"

#define N_FRAMES	1000
#define N_ANGLES	23
#define CHUNK		4096
#define REPS		5

struct job {
	const struct het_model_eval	*ev;
	const struct het_pair		*pr;
	size_t				 n, nf;
	int				 deriv;
	double				 sum;	/* consumer stand-in */
	int				 failed;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *
job_run(void *arg)
{
	struct job *j = arg;
	double *g, *dg = NULL, s = 0;
	size_t k, m, e;

	g = malloc(CHUNK * sizeof(*g));
	if (j->deriv)
		dg = malloc(CHUNK * j->nf * sizeof(*dg));
	if (g == NULL || (j->deriv && dg == NULL)) {
		j->failed = 1;
		free(g);
		return NULL;
	}
	for (k = 0; k < j->n; k += CHUNK) {
		m = j->n - k < CHUNK ? j->n - k : CHUNK;
		het_model_eval_pairs(j->ev, m, j->pr + k, g, dg);
		for (e = 0; e < m; e++)
			s += g[e];
		if (dg != NULL)
			for (e = 0; e < m * j->nf; e++)
				s += dg[e];
	}
	j->sum = s;
	free(g);
	free(dg);
	return NULL;
}

/* One pass over all pairs on nth threads; returns seconds or -1. */
static double
pass(const struct het_model_eval *ev, const struct het_pair *pr, size_t np,
    int nth, int deriv, double *sum)
{
	struct job jobs[2];
	pthread_t tid[2];
	double t0, t1;
	size_t half = np / (size_t)nth;
	int t;

	memset(jobs, 0, sizeof(jobs));
	for (t = 0; t < nth; t++) {
		jobs[t].ev = ev;
		jobs[t].pr = pr + (size_t)t * half;
		jobs[t].n = t == nth - 1 ? np - (size_t)t * half : half;
		jobs[t].nf = het_model_eval_nfree(ev);
		jobs[t].deriv = deriv;
	}
	t0 = now();
	for (t = 0; t < nth; t++)
		if (pthread_create(&tid[t], NULL, job_run, &jobs[t]) != 0)
			return -1;
	for (t = 0; t < nth; t++)
		pthread_join(tid[t], NULL);
	t1 = now();
	*sum = 0;
	for (t = 0; t < nth; t++) {
		if (jobs[t].failed)
			return -1;
		*sum += jobs[t].sum;
	}
	return t1 - t0;
}

static struct het_pair *
make_pairs(size_t n, size_t na, int angle_inner, size_t *np)
{
	struct het_pair *pr;
	size_t i, j, a, k = 0;

	*np = n * (n - 1) / 2 * na;
	if ((pr = malloc(*np * sizeof(*pr))) == NULL)
		return NULL;
	for (a = 0; a < (angle_inner ? 1 : na); a++)
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				if (angle_inner) {
					size_t b;

					for (b = 0; b < na; b++) {
						pr[k].i = (uint32_t)i;
						pr[k].j = (uint32_t)j;
						pr[k++].a = (uint32_t)b;
					}
				} else {
					pr[k].i = (uint32_t)i;
					pr[k].j = (uint32_t)j;
					pr[k++].a = (uint32_t)a;
				}
			}
	return pr;
}

int
main(void)
{
	static const double theta[HET_P_HET_COUNT] = {
		1000, 0, 10, 3000, -0.2, 5, 50, 0, 5, 0.3, 0.05, 15, 0.2, 5
	};
	unsigned char all_free[HET_P_HET_COUNT];
	double phi[N_ANGLES], best, t, t0, sum, prep;
	struct het_model_spec spec;
	struct het_model *m;
	struct het_model_eval *ev;
	struct het_error err;
	struct het_pair *pr;
	size_t np, a;
	int order, nth, deriv, r;

	for (a = 0; a < N_ANGLES; a++)
		phi[a] = -180.0 + 360.0 * (double)a / N_ANGLES;
	memset(all_free, 1, sizeof(all_free));
	memset(&spec, 0, sizeof(spec));
	spec.mode = HET_MODE_TWO_COMPONENT;
	spec.q = 0.01;
	spec.dt = 0.1;
	spec.start_frame = 1;
	spec.n_frames = N_FRAMES;
	spec.n_angles = N_ANGLES;
	spec.phi = phi;
	if ((m = het_model_alloc(&spec, &err)) == NULL ||
	    (ev = het_model_eval_alloc(m, &err)) == NULL) {
		fprintf(stderr, "bench_model: %s\n", err.msg);
		return 1;
	}

	best = 1e30;
	for (r = 0; r < REPS * 10; r++) {
		t0 = now();
		if (het_model_eval_prepare(ev, theta, all_free, &err) != HET_OK) {
			fprintf(stderr, "bench_model: %s\n", err.msg);
			return 1;
		}
		t = now() - t0;
		best = t < best ? t : best;
	}
	prep = best;
	printf("problem %d frames x %d angles, two_component, 14 free\n",
	    N_FRAMES, N_ANGLES);
	printf("prepare_14_free %.3f ms\n", 1e3 * prep);

	for (order = 1; order >= 0; order--) {
		if ((pr = make_pairs(N_FRAMES, N_ANGLES, order, &np)) == NULL) {
			fprintf(stderr, "bench_model: out of memory\n");
			return 1;
		}
		printf("pairs %zu, order %s\n", np,
		    order ? "angle-inner" : "angle-outer");
		for (deriv = 0; deriv <= 1; deriv++)
			for (nth = 1; nth <= 2; nth++) {
				best = 1e30;
				for (r = 0; r < REPS; r++) {
					t = pass(ev, pr, np, nth, deriv, &sum);
					if (t < 0) {
						fprintf(stderr, "bench_model: "
						    "thread or memory failure\n");
						return 1;
					}
					best = t < best ? t : best;
				}
				printf("%s %s threads %d: %.3f s, %.1f Mpairs/s, "
				    "%.1f ns/pair (checksum %.6e)\n",
				    order ? "angle-inner" : "angle-outer",
				    deriv ? "model+jacobian" : "model",
				    nth, best + prep,
				    (double)np / (best + prep) /
				    1e6, 1e9 * best / (double)np * nth, sum);
			}
		free(pr);
	}
	het_model_eval_free(ev);
	het_model_free(m);
	return 0;
}
