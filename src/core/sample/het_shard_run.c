#include "config.h"

/*
 * het_shard_run.c: the chains of one CMC shard, run one after the other
 * or one per caller thread, then their diagnostics (see het_shard_run.h).
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
#define RUN_START_TRIES	12	/* start draws, each half the last's scale */
#define RUN_COND_SD	6.0	/* conditional mean +- this many sd inside */

void
het_shard_settings_default(struct het_shard_settings *st)
{
	st->num_warmup = 500;
	st->num_samples = 1500;
	st->num_chains = 4;
	st->target_accept = 0.95;
	st->max_tree_depth = 10;
	st->dense_mass = 0;
	st->seed = 42;
	st->init_jitter = 0.01;
	st->laplace = 1;
	st->psis_draws = 200;
	st->marginalise = 0;
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
	free(res->leapfrog);
	free(res->leapfrog_warmup);
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
	    "shard acceptance", err)) == NULL ||
	    (res->leapfrog = het_alloc_array(nchain, sizeof *res->leapfrog,
	    "shard leapfrog counts", err)) == NULL ||
	    (res->leapfrog_warmup = het_alloc_array(nchain,
	    sizeof *res->leapfrog_warmup, "shard leapfrog counts", err)) ==
	    NULL) {
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
	if (st->psis_draws < 0 || (st->psis_draws > 0 && st->psis_draws < 20)
	    || st->psis_draws > 100000)
		return het_error_set(err, HET_EINVAL, "psis_draws is %ld; use "
		    "0 (none) or 20 to 100000", st->psis_draws);
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

void
het_shard_job_clear(struct het_shard_job *job)
{
	if (job == NULL)
		return;
	free(job->energy);
	free(job->x0);
	free(job->metric);
	het_laplace_clear(&job->lap);
	memset(job, 0, sizeof *job);
}

/*
 * After a Laplace attempt (rc its result): switch the power laws whose
 * exponent is clear of 0 to anchor coordinates, or back to share when
 * the attempt in anchor coordinates failed.  Returns 1 when the
 * coordinates changed (take the approximation again), else 0.
 */
static int
run_coords(struct het_shard_job *job, struct het_posterior *post, int rc)
{
	unsigned	mask;

	if (!job->st.laplace || het_posterior_ntriples(post) == 0 ||
	    job->coords_tries >= 2)
		return 0;
	job->coords_tries++;
	if (rc != HET_OK)
		mask = 0;
	else
		mask = het_posterior_anchor_choice(post, job->lap.mode,
		    job->lap.cov, HET_SHARD_ANCHOR_Z);
	if (mask == het_posterior_anchors(post) ||
	    het_posterior_set_anchors(post, mask, NULL) != HET_OK)
		return 0;
	return 1;
}

/*
 * The Laplace approximation at job->x0 and its k-hat into job and res.
 * A failure only means the chains start without it (res->laplace 0).
 */
static int
run_laplace(struct het_shard_job *job, struct het_posterior *post,
    struct het_shard_result *res, struct het_error *err)
{
	struct het_error e2;
	gsl_rng		*rng;
	double		*u;
	size_t		 k, p;
	int		 rc, urc;

again:
	p = job->d = het_posterior_dim(post);
	res->laplace_khat = res->laplace_ess = NAN;
	if ((u = het_alloc_array(p, sizeof *u, "start point", err)) == NULL)
		return HET_ENOMEM;
	urc = rc = het_posterior_to_u(post, job->x0, u, &e2);
	if (rc == HET_OK && job->st.laplace)
		rc = het_laplace_fit(het_posterior_nuts_logp, post, p, u, 0,
		    &job->lap, &e2);
	if (rc == HET_ENOMEM) {
		free(u);
		return het_error_set(err, rc, "%s", e2.msg);
	}
	/*
	 * The closed form ignores the bounds of contrast and offset: it
	 * holds while their conditional sits well inside them.  Check at
	 * the Laplace mode (else at the start) and sample them when not.
	 */
	if (urc == HET_OK && het_posterior_marginal(post) &&
	    het_posterior_cond_check(post, rc == HET_OK && job->st.laplace ?
	    job->lap.mode : u, RUN_COND_SD, &e2) != HET_OK) {
		free(u);
		het_laplace_clear(&job->lap);
		het_posterior_set_marginal(post, 0, NULL);
		res->marginal = HET_MARG_BOUND;
		goto again;
	}
	free(u);
	if (run_coords(job, post, rc) != 0) {
		het_laplace_clear(&job->lap);
		goto again;
	}
	res->anchors = job->anchors = het_posterior_anchors(post);
	if (rc != HET_OK || !job->st.laplace)
		return HET_OK;
	if ((job->metric = het_alloc_array(job->st.dense_mass ? p * p : p,
	    sizeof *job->metric, "metric", err)) == NULL)
		return HET_ENOMEM;
	if (job->st.dense_mass)
		memcpy(job->metric, job->lap.cov, p * p * sizeof *job->metric);
	else
		for (k = 0; k < p; k++)
			job->metric[k] = job->lap.cov[k * p + k];
	job->have_lap = res->laplace = 1;
	if (job->st.psis_draws == 0)
		return HET_OK;
	if ((rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory for a "
		    "random number generator");
	gsl_rng_set(rng, job->st.seed * 2654435761UL + (unsigned long)job->shard
	    + 7);
	rc = het_laplace_psis(het_posterior_nuts_logp, post, &job->lap, rng,
	    (size_t)job->st.psis_draws, 8, &res->laplace_khat,
	    &res->laplace_ess, &e2);
	gsl_rng_free(rng);
	if (rc == HET_ENOMEM)
		return het_error_set(err, rc, "%s", e2.msg);
	return HET_OK;
}

int
het_shard_begin(struct het_posterior *post,
    const struct het_shard_settings *st, long shard, const double *x0,
    struct het_shard_job *job, struct het_shard_result *res,
    struct het_error *err)
{
	size_t	k;
	int	rc;

	memset(job, 0, sizeof *job);
	memset(res, 0, sizeof *res);
	if ((rc = run_check(st, err)) != HET_OK)
		return rc;
	job->st = *st;
	job->shard = shard;
	job->p = het_posterior_nparams(post);
	job->nchain = (size_t)st->num_chains;
	job->ndraw = (size_t)st->num_samples;
	if ((rc = het_shard_result_alloc(res, job->p, job->nchain, job->ndraw,
	    err)) != HET_OK)
		return rc;
	for (k = 0; k < job->p; k++)
		if ((res->names[k] = het_strdup(het_posterior_name(post, k),
		    err)) == NULL)
			break;
	if (k < job->p || (job->energy = het_alloc_array(job->nchain *
	    job->ndraw, sizeof *job->energy, "energies", err)) == NULL ||
	    (job->x0 = het_alloc_array(job->p, sizeof *job->x0, "start point",
	    err)) == NULL) {
		rc = HET_ENOMEM;
		goto fail;
	}
	for (k = 0; k < job->p; k++)
		if (!isfinite(x0[k])) {
			rc = het_error_set(err, HET_ERANGE, "%s = %g: the start "
			    "point must be finite", het_posterior_name(post,
			    k), x0[k]);
			goto fail;
		}
	memcpy(job->x0, x0, job->p * sizeof *x0);
	het_posterior_interior(post, job->x0, HET_SHARD_INTERIOR);
	res->marginal = het_posterior_marg_status(post);
	if ((rc = run_laplace(job, post, res, err)) == HET_OK) {
		job->marg = het_posterior_marginal(post);
		return HET_OK;
	}
fail:
	het_shard_job_clear(job);
	het_shard_result_clear(res);
	return rc;
}

/* Work arrays of one chain. */
struct run_chain_buf {
	gsl_rng		*rng;
	double		*u0, *q, *x, *z;
	const double	**ptr;
};

static void
run_buf_free(struct run_chain_buf *b)
{
	if (b->rng != NULL)
		gsl_rng_free(b->rng);
	free(b->u0);
	free(b->q);
	free(b->x);
	free(b->z);
	free(b->ptr);
}

static int
run_buf_alloc(struct run_chain_buf *b, size_t d, size_t p, size_t nc,
    struct het_error *err)
{
	memset(b, 0, sizeof *b);
	if ((b->u0 = het_alloc_array(d, sizeof *b->u0, "start point", err)) ==
	    NULL || (b->q = het_alloc_array(d, sizeof *b->q, "start point",
	    err)) == NULL || (b->x = het_alloc_array(p, sizeof *b->x, "draw",
	    err)) == NULL || (b->z = het_alloc_array(p, sizeof *b->z,
	    "deviates", err)) == NULL || (b->ptr = het_alloc_array(nc, sizeof *b->ptr,
	    "chain pointers", err)) == NULL)
		return HET_ENOMEM;
	if ((b->rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory for a "
		    "random number generator");
	return HET_OK;
}

/* The transitions of chain c on sampler s; see het_shard_run_chain. */
static int
run_transitions(struct het_shard_job *job, struct het_posterior *post,
    struct het_nuts *s, size_t c, int sequential,
    struct run_chain_buf *b, het_shard_progress_fn cb, void *ctx,
    struct het_shard_result *res, struct het_error *err)
{
	const struct het_shard_settings *st = &job->st;
	struct het_nuts_stats	 ns;
	struct het_shard_progress pr;
	size_t			 p = job->p, nd = job->ndraw, k, i = 0;
	long			 it;
	double			 nl[2] = { 0, 0 };
	int			 rc;

	memset(&pr, 0, sizeof pr);
	pr.shard = job->shard;
	pr.total = st->num_warmup + st->num_samples;
	pr.chain = (long)c;
	pr.rhat = NAN;
	for (it = 0; het_nuts_test(s) == HET_CONTINUE; it++) {
		if ((rc = het_nuts_iterate(s, err)) != HET_OK)
			return het_error_prefix(err, "shard %ld chain %zu "
			    "transition %ld", job->shard, c, it + 1);
		het_nuts_get_stats(s, &ns);
		nl[it >= st->num_warmup] += (double)ns.n_leapfrog;
		if (it >= st->num_warmup && i < nd) {
			/* contrast and offset from their conditional, with
			 * this chain's rng: reproducible from the seed */
			for (k = 0; job->marg && k < p - job->d; k++)
				b->z[k] = gsl_ran_gaussian_ziggurat(b->rng, 1.0);
			if ((rc = het_posterior_complete(post,
			    het_nuts_position(s), b->z, b->x, err)) != HET_OK)
				return het_error_prefix(err, "shard %ld chain "
				    "%zu draw %zu", job->shard, c, i + 1);
			for (k = 0; k < p; k++)
				res->draws[(c * p + k) * nd + i] = b->x[k];
			job->energy[c * nd + i] = ns.energy;
			i++;
			if (sequential && c >= 1 && i >= RUN_RHAT_EVERY &&
			    i % RUN_RHAT_EVERY == 0)
				pr.rhat = run_rhat(res, c + 1, i, b->ptr);
		}
		pr.phase = it < st->num_warmup ? "warmup" : "sampling";
		pr.iteration = it + 1;
		pr.step_size = ns.step_size;
		pr.accept = ns.accept_mean;
		pr.divergences = ns.divergences;
		if (cb != NULL && cb(ctx, &pr) != 0)
			return het_error_set(err, HET_ECANCEL, "shard %ld was "
			    "cancelled in chain %zu at transition %ld",
			    job->shard, c, it + 1);
	}
	het_nuts_get_stats(s, &ns);
	res->divergences[c] = ns.divergences;
	res->accept[c] = ns.accept_mean;
	res->step_size[c] = het_nuts_step_size(s);
	res->leapfrog_warmup[c] = nl[0] / (double)st->num_warmup;
	res->leapfrog[c] = nl[1] / (double)st->num_samples;
	return HET_OK;
}

/*
 * Start chain s: from a draw of the Laplace approximation (halved in
 * scale until the posterior can be evaluated there, at last its mode) on
 * its metric, else from u0 moved by the jitter (halved likewise).
 */
static int
run_start(struct het_shard_job *job, struct het_nuts *s,
    struct run_chain_buf *b, struct het_error *err)
{
	double	scale = 1;
	size_t	k;
	int	t, rc = HET_EDATA;

	if (job->have_lap && (rc = het_nuts_set_metric(s, job->metric, err)) !=
	    HET_OK)
		return rc;
	for (t = 0; t <= RUN_START_TRIES; t++, scale *= 0.5) {
		if (t == RUN_START_TRIES)
			scale = 0;
		if (job->have_lap)
			het_laplace_draw(&job->lap, b->rng, scale, b->q);
		else
			for (k = 0; k < job->d; k++)
				b->q[k] = b->u0[k] + scale * job->st.init_jitter *
				    gsl_ran_gaussian_ziggurat(b->rng, 1.0);
		if ((rc = het_nuts_init(s, b->q, err)) != HET_EDATA)
			break;
	}
	return rc;
}

int
het_shard_run_chain(struct het_shard_job *job, struct het_posterior *post,
    size_t c, int sequential, het_shard_progress_fn cb, void *ctx,
    struct het_shard_result *res, struct het_error *err)
{
	const struct het_shard_settings *st = &job->st;
	struct het_nuts_config	 cfg;
	struct run_chain_buf	 b;
	struct het_nuts		*s = NULL;
	int			 rc;

	/* a chain thread's own posterior samples as the job decided */
	if (c >= job->nchain || het_posterior_nparams(post) != job->p ||
	    het_posterior_set_marginal(post, job->marg, NULL) != HET_OK ||
	    het_posterior_set_anchors(post, job->anchors, NULL) != HET_OK)
		return het_error_set(err, HET_EINVAL, "shard %ld: chain %zu "
		    "of %zu, or a posterior of %zu parameters for %zu",
		    job->shard, c, job->nchain, het_posterior_nparams(post),
		    job->p);
	if ((rc = run_buf_alloc(&b, job->d, job->p, job->nchain, err)) !=
	    HET_OK ||
	    (rc = het_posterior_to_u(post, job->x0, b.u0, err)) != HET_OK)
		goto out;
	het_nuts_config_default(&cfg);
	cfg.num_warmup = st->num_warmup;
	cfg.num_samples = st->num_samples;
	cfg.max_tree_depth = st->max_tree_depth;
	cfg.target_accept = st->target_accept;
	cfg.dense_metric = st->dense_mass;
	gsl_rng_set(b.rng, st->seed + 1000UL * (unsigned long)job->shard + c);
	if ((s = het_nuts_alloc(job->d, &cfg, het_posterior_nuts_logp, post,
	    b.rng, err)) == NULL) {
		rc = err != NULL ? err->code : HET_EINVAL;
		goto out;
	}
	if ((rc = run_start(job, s, &b, err)) != HET_OK) {
		het_error_prefix(err, "shard %ld chain %zu", job->shard, c);
		goto out;
	}
	rc = run_transitions(job, post, s, c, sequential, &b, cb, ctx, res,
	    err);
out:
	het_nuts_free(s);
	run_buf_free(&b);
	return rc;
}

int
het_shard_finish(struct het_shard_job *job, struct het_shard_result *res,
    struct het_error *err)
{
	int rc = run_summarise(res, job->energy, err);

	het_shard_job_clear(job);
	if (rc != HET_OK)
		het_shard_result_clear(res);
	return rc;
}

int
het_shard_run(struct het_posterior *post,
    const struct het_shard_settings *st, long shard, const double *x0,
    het_shard_progress_fn cb, void *ctx, struct het_shard_result *res,
    struct het_error *err)
{
	struct het_shard_job	job;
	size_t			c;
	int			rc;

	if ((rc = het_shard_begin(post, st, shard, x0, &job, res, err)) !=
	    HET_OK)
		return rc;
	for (c = 0; c < job.nchain; c++)
		if ((rc = het_shard_run_chain(&job, post, c, 1, cb, ctx, res,
		    err)) != HET_OK) {
			het_shard_job_clear(&job);
			het_shard_result_clear(res);
			return rc;
		}
	return het_shard_finish(&job, res, err);
}
