#include "config.h"

/*
 * het_shard_run.c: the chains of one CMC shard, run one after the other,
 * then their diagnostics (see het_shard_run.h).
 *
 * Design: one het_nuts object per chain, driven transition by transition
 * so the caller sees every step (progress, cancellation).  Kept draws are
 * mapped back to physical coordinates at once and stored chain-major;
 * the energies of the sampling phase are kept for E-BFMI.  The running
 * R-hat, offered once a second chain has at least 50 draws, compares the
 * first m draws of every chain so far (m = the current chain's count,
 * every 50 draws): O(nchain p m log m) every 50 transitions, negligible
 * against the likelihood.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "het_nuts.h"
#include "het_shard_run.h"
#include "het_util.h"

#define RUN_RHAT_EVERY	50

void
het_shard_settings_default(struct het_shard_settings *st)
{
	st->num_warmup = 500;
	st->num_samples = 1500;
	st->num_chains = 4;
	st->target_accept = 0.85;
	st->max_tree_depth = 10;
	st->dense_mass = 0;
	st->seed = 42;
	st->init_jitter = 0.01;
}

void
het_shard_result_clear(struct het_shard_result *res)
{
	size_t	m;

	if (res == NULL)
		return;
	if (res->names != NULL)
		for (m = 0; m < res->p; m++)
			free(res->names[m]);
	free(res->names);
	free(res->draws);
	free(res->summary);
	free(res->bfmi);
	free(res->divergences);
	free(res->step_size);
	free(res->accept);
	memset(res, 0, sizeof *res);
}

int
het_shard_result_alloc(struct het_shard_result *res, size_t p, size_t nchain,
    size_t ndraw, struct het_error *err)
{
	memset(res, 0, sizeof *res);
	res->p = p;
	res->nchain = nchain;
	res->ndraw = ndraw;
	if (nchain != 0 && p > SIZE_MAX / nchain / (ndraw ? ndraw : 1)) {
		het_shard_result_clear(res);
		return het_error_set(err, HET_ENOMEM, "%zu chains of %zu "
		    "draws of %zu parameters do not fit in memory", nchain,
		    ndraw, p);
	}
	if ((res->names = het_alloc_array(p, sizeof *res->names,
	    "parameter names", err)) == NULL ||
	    (res->draws = het_alloc_array(nchain * p * ndraw,
	    sizeof *res->draws, "shard draws", err)) == NULL ||
	    (res->summary = het_alloc_array(p, sizeof *res->summary,
	    "shard summaries", err)) == NULL ||
	    (res->bfmi = het_alloc_array(nchain, sizeof *res->bfmi,
	    "shard BFMI", err)) == NULL ||
	    (res->divergences = het_alloc_array(nchain,
	    sizeof *res->divergences, "shard divergences", err)) == NULL ||
	    (res->step_size = het_alloc_array(nchain, sizeof *res->step_size,
	    "shard step sizes", err)) == NULL ||
	    (res->accept = het_alloc_array(nchain, sizeof *res->accept,
	    "shard acceptance", err)) == NULL) {
		het_shard_result_clear(res);
		return HET_ENOMEM;
	}
	return HET_OK;
}

static int
run_check(const struct het_shard_settings *st, struct het_error *err)
{
	if (st->num_warmup < 1)
		return het_error_set(err, HET_EINVAL, "num_warmup is %ld; a "
		    "shard needs at least 1 warmup transition",
		    st->num_warmup);
	if (st->num_samples < 4)
		return het_error_set(err, HET_EINVAL, "num_samples is %ld; "
		    "the diagnostics need at least 4 draws per chain",
		    st->num_samples);
	if (st->num_chains < 1 || st->num_chains > 1024)
		return het_error_set(err, HET_EINVAL, "num_chains is %ld; "
		    "use 1 to 1024 chains", st->num_chains);
	if (!(st->target_accept > 0 && st->target_accept < 1))
		return het_error_set(err, HET_EINVAL, "target_accept_prob "
		    "is %g; it must lie strictly between 0 and 1",
		    st->target_accept);
	if (st->max_tree_depth < 1 || st->max_tree_depth > 15)
		return het_error_set(err, HET_EINVAL, "max_tree_depth is %d; "
		    "use 1 to 15", st->max_tree_depth);
	if (!(st->init_jitter >= 0) || !isfinite(st->init_jitter))
		return het_error_set(err, HET_EINVAL, "init_jitter is %g; it "
		    "must be a finite value >= 0", st->init_jitter);
	return HET_OK;
}

/* Max R-hat over the parameters of the first m draws of chains 0..nc-1. */
static double
run_rhat(const struct het_shard_result *res, size_t nc, size_t m,
    const double **ptr)
{
	double	best = NAN, r;
	size_t	k, c;

	for (k = 0; k < res->p; k++) {
		for (c = 0; c < nc; c++)
			ptr[c] = res->draws + (c * res->p + k) * res->ndraw;
		if (het_diag_rhat(ptr, nc, m, NULL, NULL, &r, NULL) != HET_OK)
			return NAN;
		if (!isfinite(r))
			return NAN;
		if (isnan(best) || r > best)
			best = r;
	}
	return best;
}

int
het_shard_result_summarise(struct het_shard_result *res,
    struct het_error *err)
{
	const double	**ptr;
	size_t		  k, c;
	int		  rc = HET_OK;

	if ((ptr = het_alloc_array(res->nchain, sizeof *ptr, "chain pointers",
	    err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; rc == HET_OK && k < res->p; k++) {
		for (c = 0; c < res->nchain; c++)
			ptr[c] = res->draws + (c * res->p + k) * res->ndraw;
		rc = het_diag_summarise(ptr, res->nchain, res->ndraw,
		    &res->summary[k], err);
		if (rc != HET_OK)
			het_error_prefix(err, "parameter %s", res->names != NULL &&
			    res->names[k] != NULL ? res->names[k] : "?");
	}
	free(ptr);
	return rc;
}

/* Per-parameter summaries and per-chain BFMI. */
static int
run_summarise(struct het_shard_result *res, const double *energy,
    struct het_error *err)
{
	struct het_error	e2;
	size_t			c;
	int			rc;

	if ((rc = het_shard_result_summarise(res, err)) != HET_OK)
		return rc;
	for (c = 0; c < res->nchain; c++)
		if (het_diag_bfmi(energy + c * res->ndraw, res->ndraw,
		    &res->bfmi[c], &e2) != HET_OK)
			res->bfmi[c] = NAN;
	return HET_OK;
}

int
het_shard_run(struct het_posterior *post,
    const struct het_shard_settings *st, long shard, const double *x0,
    het_shard_progress_fn cb, void *ctx, struct het_shard_result *res,
    struct het_error *err)
{
	struct het_nuts_config	 cfg;
	struct het_nuts_stats	 ns;
	struct het_shard_progress pr;
	struct het_nuts		*s = NULL;
	gsl_rng			*rng = NULL;
	double			*u0 = NULL, *q = NULL, *x = NULL;
	double			*energy = NULL;
	const double		**ptr = NULL;
	size_t			 p, nc, nd, k, c, i;
	long			 it;
	int			 rc;

	memset(res, 0, sizeof *res);
	if ((rc = run_check(st, err)) != HET_OK)
		return rc;
	p = het_posterior_dim(post);
	nc = (size_t)st->num_chains;
	nd = (size_t)st->num_samples;
	if ((rc = het_shard_result_alloc(res, p, nc, nd, err)) != HET_OK)
		return rc;
	for (k = 0; k < p; k++)
		if ((res->names[k] = het_strdup(het_posterior_name(post, k),
		    err)) == NULL) {
			rc = HET_ENOMEM;
			goto out;
		}
	if ((u0 = het_alloc_array(p, sizeof *u0, "start point", err)) ==
	    NULL || (q = het_alloc_array(p, sizeof *q, "start point",
	    err)) == NULL || (x = het_alloc_array(p, sizeof *x,
	    "draw", err)) == NULL || (energy = het_alloc_array(nc * nd,
	    sizeof *energy, "energies", err)) == NULL || (ptr =
	    het_alloc_array(nc, sizeof *ptr, "chain pointers", err)) ==
	    NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if ((rc = het_posterior_to_u(post, x0, u0, err)) != HET_OK)
		goto out;
	if ((rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL) {
		rc = het_error_set(err, HET_ENOMEM, "out of memory for a "
		    "random number generator");
		goto out;
	}
	het_nuts_config_default(&cfg);
	cfg.num_warmup = st->num_warmup;
	cfg.num_samples = st->num_samples;
	cfg.max_tree_depth = st->max_tree_depth;
	cfg.target_accept = st->target_accept;
	cfg.dense_metric = st->dense_mass;
	memset(&pr, 0, sizeof pr);
	pr.shard = shard;
	pr.total = st->num_warmup + st->num_samples;
	for (c = 0; c < nc; c++) {
		gsl_rng_set(rng, st->seed + 1000UL * (unsigned long)shard + c);
		if ((s = het_nuts_alloc(p, &cfg, het_posterior_nuts_logp,
		    post, rng, err)) == NULL) {
			rc = err != NULL ? err->code : HET_EINVAL;
			goto out;
		}
		for (k = 0; k < p; k++)
			q[k] = u0[k] + st->init_jitter *
			    gsl_ran_gaussian_ziggurat(rng, 1.0);
		if ((rc = het_nuts_init(s, q, err)) != HET_OK) {
			het_error_prefix(err, "shard %ld chain %zu", shard, c);
			goto out;
		}
		pr.chain = (long)c;
		pr.rhat = NAN;
		i = 0;
		for (it = 0; het_nuts_test(s) == HET_CONTINUE; it++) {
			if ((rc = het_nuts_iterate(s, err)) != HET_OK) {
				het_error_prefix(err, "shard %ld chain %zu "
				    "transition %ld", shard, c, it + 1);
				goto out;
			}
			het_nuts_get_stats(s, &ns);
			if (it >= st->num_warmup && i < nd) {
				het_posterior_to_x(post, het_nuts_position(s),
				    x);
				for (k = 0; k < p; k++)
					res->draws[(c * p + k) * nd + i] =
					    x[k];
				energy[c * nd + i] = ns.energy;
				i++;
				if (c >= 1 && i >= RUN_RHAT_EVERY &&
				    i % RUN_RHAT_EVERY == 0)
					pr.rhat = run_rhat(res, c + 1, i, ptr);
			}
			pr.phase = it < st->num_warmup ? "warmup" :
			    "sampling";
			pr.iteration = it + 1;
			pr.step_size = ns.step_size;
			pr.accept = ns.accept_mean;
			pr.divergences = ns.divergences;
			if (cb != NULL && cb(ctx, &pr) != 0) {
				rc = het_error_set(err, HET_ECANCEL, "shard "
				    "%ld was cancelled in chain %zu at "
				    "transition %ld", shard, c, it + 1);
				goto out;
			}
		}
		het_nuts_get_stats(s, &ns);
		res->divergences[c] = ns.divergences;
		res->accept[c] = ns.accept_mean;
		res->step_size[c] = het_nuts_step_size(s);
		het_nuts_free(s);
		s = NULL;
	}
	rc = run_summarise(res, energy, err);
out:
	het_nuts_free(s);
	if (rng != NULL)
		gsl_rng_free(rng);
	free(u0);
	free(q);
	free(x);
	free(energy);
	free(ptr);
	if (rc != HET_OK)
		het_shard_result_clear(res);
	return rc;
}
