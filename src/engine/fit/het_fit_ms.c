/*
 * het_fit_ms.c: the starts of a fit: Latin hypercube starts and
 * multistart with screening.
 *
 * Design.  Every start owns a slot (solver and evaluation state, see
 * het_fit_impl.h), so a start can be stopped after a number of
 * iterations and resumed later.  Multistart runs in two phases: every
 * start for at most run->screen iterations, then the screen_keep starts
 * of lowest cost (a quarter by default) and start 0 to their end; the
 * others end with reason HET_NLSQ_SCREENED.  Concurrent phases give one
 * whole start to each pool thread (het_pool_run, one chunk per start);
 * each start accumulates serially in the fixed chunk order, and the
 * choice between the phases depends on costs alone, so the result is
 * the same for any number of threads.
 */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_util.h"

/* ------------------------------------------------------------------ */
/* Starts. */

/*
 * Latin hypercube starts 1 .. n-1 inside the bounds (start 0 is x0):
 * per dimension a random permutation of the n-1 strata plus a uniform
 * jitter.  A range over three decades with lo > 0 is sampled in log
 * space; an infinite bound is replaced by x0 -+ 10 % (at least 0.1).
 */
int
het_fit_lhs_starts(const struct fit_prob *fp, unsigned long seed, size_t n,
    double *X, struct het_error *err)
{
	size_t m = n - 1, i, j, p = fp->p, *perm;
	double l, h, u, v, d;
	gsl_rng *rng;

	memcpy(X, fp->x0, p * sizeof(double));
	if (m == 0)
		return HET_OK;
	if ((perm = het_alloc_array(m, sizeof(size_t), "multistart",
	    err)) == NULL)
		return HET_ENOMEM;
	if ((rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL) {
		free(perm);
		return het_error_set(err, HET_ENOMEM, "multistart: out of "
		    "memory for the random generator");
	}
	gsl_rng_set(rng, seed);
	for (j = 0; j < p; j++) {
		for (i = 0; i < m; i++)
			perm[i] = i;
		gsl_ran_shuffle(rng, perm, m, sizeof(size_t));
		d = 0.1 * fmax(fabs(fp->x0[j]), 1.0);
		l = isfinite(fp->lo[j]) ? fp->lo[j] : fp->x0[j] - d;
		h = isfinite(fp->hi[j]) ? fp->hi[j] : fp->x0[j] + d;
		for (i = 0; i < m; i++) {
			u = ((double)perm[i] + gsl_rng_uniform(rng)) /
			    (double)m;
			if (l > 0 && h / l > 1e3)
				v = exp(log(l) + u * (log(h) - log(l)));
			else
				v = l + u * (h - l);
			if (v < fp->lo[j])
				v = fp->lo[j];
			if (v > fp->hi[j])
				v = fp->hi[j];
			X[(i + 1) * p + j] = v;
		}
	}
	gsl_rng_free(rng);
	free(perm);
	return HET_OK;
}

/* het_pool_run chunk function: one whole start per chunk. */
static int
start_chunk(void *ctx, size_t chunk, size_t worker, struct het_error *err)
{
	struct fit_run *run = ctx;
	size_t k = run->order[chunk];

	(void)err;
	(void)worker;
	het_fit_run_start(run, k, &run->slots[k], NULL, run->phase == 0,
	    run->phase == 0 ? run->screen : 0);
	return HET_OK;		/* a failed start is a result */
}

/* Run the n starts run->order[0 .. n) of the current phase. */
static int
run_phase(struct fit_run *run, struct het_pool *pool, size_t n,
    struct het_error *err)
{
	const atomic_int *cancel = run->opt->cancel;
	size_t c;

	if (het_pool_nthreads(pool) > 1)
		return het_pool_run(pool, n, start_chunk, run, cancel, NULL,
		    err);
	for (c = 0; c < n; c++) {
		if (cancel != NULL && atomic_load(cancel))
			return HET_ECANCEL;
		start_chunk(run, c, 0, NULL);
	}
	return HET_OK;
}

/*
 * Multistart: screening, then the kept starts to their end (see
 * het_fit.h).  Returns HET_OK, HET_ECANCEL or a pool error.
 */
int
het_fit_run_multistart(struct fit_run *run, struct het_pool *pool,
    struct het_error *err)
{
	const struct het_fit_options *opt = run->opt;
	struct het_fit_start *st = run->starts;
	size_t n = run->nstarts, keep, k, j, m, nk;
	int rc;

	for (k = 0; k < n; k++)
		run->order[k] = k;
	run->phase = 0;
	if ((rc = run_phase(run, pool, n, err)) != HET_OK || run->screen == 0)
		return rc;
	if (opt->cancel != NULL && atomic_load(opt->cancel))
		return HET_ECANCEL;
	/* Rank the starts that ran by cost (insertion sort, ties by
	   index); order[0 .. m) is the ranking. */
	m = 0;
	for (k = 0; k < n; k++) {
		if (st[k].status != HET_OK)
			continue;
		for (j = m; j > 0 && st[run->order[j - 1]].cost > st[k].cost;
		    j--)
			run->order[j] = run->order[j - 1];
		run->order[j] = k;
		m++;
	}
	keep = opt->screen_keep > 0 ? opt->screen_keep : (n + 3) / 4;
	if (keep > m)
		keep = m;
	/* The kept starts still running go on; start 0 always does. */
	nk = 0;
	for (j = 0; j < m; j++) {
		k = run->order[j];
		if (st[k].reason != HET_NLSQ_RUNNING)
			continue;
		if (j < keep || k == 0)
			run->order[nk++] = k;
		else
			st[k].reason = HET_NLSQ_SCREENED;
	}
	run->phase = 1;
	return run_phase(run, pool, nk, err);
}
