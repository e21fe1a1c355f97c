/*
 * het_sample_rw.c: a sharded run's consensus checked against the
 * posterior of all the data (COMBINING, background thread).
 *
 * A consensus of shard posteriors is exact only when they are Gaussian;
 * skewed shard posteriors bias it and shrink it (het_consensus.h).  So
 * when two or more shards were combined, the pipeline builds the
 * posterior of all the data (every datum's likelihood once, the prior
 * once, K = 1; het_posterior.h) in the sampler's coordinates (rates by
 * default, where it is closest to Gaussian), takes its Laplace
 * approximation from the consensus mean (and the power laws' anchor
 * choice, as a shard does), and importance-samples it from a Student-t
 * with 8 degrees of freedom on that approximation (het_psis_reweight):
 * the Pareto k-hat says whether the reweighted moments hold (<= 0.7),
 * and then they are the posterior of all the data up to Monte Carlo
 * error, whatever the shards did; the consensus means are compared with
 * them.  A proposal built from the consensus draws themselves was
 * measured and dropped: on the 30-parameter 300 x 8 problem with 8
 * shards its k-hat was 101 (ESS 1 of 1000 draws; docs/PERFORMANCE.md).
 * When the Laplace approximation cannot be taken, the consensus draws'
 * mean and covariance are the proposal.
 *
 * Costs the Laplace approximation (about 2 d + 10 gradients) and
 * cmc.reweight_draws evaluations of the full likelihood without
 * gradient (4000 by default), fewer when they would take longer than
 * cmc.reweight_seconds (120 by default).  Never fails the run: trouble is a
 * warning, and a cancel stops it quietly.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "het_laplace.h"
#include "het_posterior.h"
#include "het_problem.h"
#include "het_psis.h"
#include "het_sample_impl.h"
#include "het_shard_run.h"
#include "het_thread.h"
#include "het_util.h"

#define HS_RW_DOF	8.0	/* the proposal's degrees of freedom */
#define HS_RW_KHAT	0.7	/* above: the reweighting is not reliable */
#define HS_RW_SHIFT	0.5	/* sd: a consensus mean this far is named */

static void
hs_rw_map(void *ctx, const double *u, double *x)
{
	het_posterior_to_x(ctx, u, x);
}

/*
 * The mean and covariance (d x d) of the consensus draws in the
 * posterior's coordinates; draws on or outside a bound are left out.
 * Returns HET_OK, HET_EDATA (too few draws inside for a covariance)
 * or HET_ENOMEM.
 */
static int
hs_rw_moments(const struct het_posterior *post, const struct het_consensus *c,
    double *loc, double *cov, struct het_error *err)
{
	size_t d = c->p, s, n = 0;
	struct het_error e;
	double *v;

	if ((v = het_alloc_array(c->ndraw * d, sizeof(double),
	    "consensus draws", err)) == NULL)
		return HET_ENOMEM;
	for (s = 0; s < c->ndraw; s++)
		n += het_posterior_to_u(post, c->draws + s * d, v + n * d,
		    &e) == HET_OK;
	if (n > d)
		het_consensus_moments(v, n, d, loc, cov);
	free(v);
	if (n <= d)
		return het_error_set(err, HET_EDATA, "only %zu of the %zu "
		    "consensus draws lie inside the bounds (%zu needed)", n,
		    c->ndraw, d + 1);
	return HET_OK;
}

/* The posterior of all the data in the sampler's coordinates (K = 1). */
static struct het_posterior *
hs_rw_posterior(struct het_sample *s, struct het_error *err)
{
	struct het_post_spec ps;

	memset(&ps, 0, sizeof(ps));
	ps.resid = s->pb->resid;
	ps.model = s->pb->model;
	ps.sigma = s->sigma;
	ps.priors = s->priors;
	ps.nshards = 1;
	ps.reparam = het_config_coords(&s->cfg->cmc);
	return het_posterior_alloc(&ps, err);
}

/*
 * The Laplace approximation of post from the consensus mean, with the
 * anchor choice of het_shard_run (the approximation taken again in the
 * chosen coordinates, at most twice).  Returns HET_OK with lap filled.
 */
static int
hs_rw_laplace(struct het_sample *s, struct het_posterior *post,
    struct het_laplace *lap, double *u, struct het_error *err)
{
	size_t d = s->cons.p;
	double *x = u + d;
	unsigned mask;
	int rc, tries;

	memcpy(x, s->cons.mean, d * sizeof(double));
	het_posterior_interior(post, x, HET_SHARD_INTERIOR);
	for (tries = 0; ; tries++) {
		if ((rc = het_posterior_to_u(post, x, u, err)) != HET_OK ||
		    (rc = het_laplace_fit(het_posterior_nuts_logp, post, d, u,
		    0, lap, err)) != HET_OK)
			return rc;
		if (tries == 2 || het_posterior_ntriples(post) == 0)
			return HET_OK;
		mask = het_posterior_anchor_choice(post, lap->mode, lap->cov,
		    HET_SHARD_ANCHOR_Z);
		if (mask == het_posterior_anchors(post))
			return HET_OK;
		/* restart from the mode, read in the old coordinates */
		het_posterior_to_x(post, lap->mode, x);
		if (het_posterior_set_anchors(post, mask, NULL) != HET_OK)
			return HET_OK;
		het_laplace_clear(lap);
	}
}

/* Fill the summary from r; warn when it is unreliable or far off. */
static void
hs_rw_report(struct het_sample *s, const struct het_psis_result *r)
{
	struct het_sample_summary *sm = &s->sum;
	size_t m, worst = 0;
	double z, big = -1;
	int good = r->khat <= HS_RW_KHAT;

	sm->rw_khat = r->khat;
	sm->rw_ess = r->ess;
	sm->rw_ndraw = r->ndraw;
	if (!good) {
		het_hs_warn(s,
		    "the consensus of %zu shards could not be checked "
		    "against all the data: importance sampling of that "
		    "posterior gave PSIS k-hat %.2f (> %.1f; %zu of %zu draws "
		    "outside the support), so neither it nor the consensus "
		    "can be vouched for; sample fewer, larger shards "
		    "(optimization.cmc.sharding.num_shards), on one machine "
		    "one posterior of all the data (num_shards: 1)", sm->nused,
		    r->khat, HS_RW_KHAT, r->nzero, r->ndraw);
		return;
	}
	for (m = 0; m < sm->p; m++) {
		s->param[m].rw_mean = r->mean[m];
		s->param[m].rw_sd = r->sd[m];
		z = r->sd[m] > 0 ? fabs(s->param[m].mean - r->mean[m]) /
		    r->sd[m] : 0;
		if (z > big) {
			big = z;
			worst = m;
		}
	}
	sm->rw_shift = big;
	sm->rw_param = s->param[worst].name;
	if (big > HS_RW_SHIFT)
		het_hs_warn(s, "the consensus mean of %s is %.2f sd from the "
		    "posterior of all the data (importance sampling, PSIS "
		    "k-hat %.2f): the shards' consensus is biased; quote the "
		    "reweighted moments (reweighted_mean and reweighted_sd in "
		    "sample --json and cmc_summary.json) or sample fewer, "
		    "larger shards", s->param[worst].name, big, r->khat);
}

size_t
het_sample_reweight_draws(size_t want, double pass_seconds, double budget)
{
	double n;

	if (!(pass_seconds > 0) || (double)want * pass_seconds <= budget)
		return want;
	n = floor(budget / pass_seconds);
	return n < HET_SAMPLE_REWEIGHT_MIN ? 0 : (size_t)n;
}

/*
 * The draws of the check: het_sample_reweight_draws with one pass over
 * all the data timed at loc; says so when the budget cut them.
 */
static size_t
hs_rw_draws(struct het_sample *s, struct het_posterior *post,
    const double *loc)
{
	size_t want = (size_t)s->cfg->cmc.reweight_draws, n;
	double t0 = het_clock_now(), lp, per, budget;

	(void)het_posterior_nuts_logp(post, loc, &lp, NULL);
	per = fmax(het_clock_now() - t0, 1e-9);
	budget = s->cfg->cmc.reweight_seconds;
	if ((n = het_sample_reweight_draws(want, per, budget)) == 0)
		het_hs_warn(s, "the consensus was not checked against all the "
		    "data: one pass over them takes %.2g s, so even %d "
		    "importance draws would take more than the %g s of "
		    "optimization.cmc.combination.reweight_seconds", per,
		    HET_SAMPLE_REWEIGHT_MIN, budget);
	else if (n < want)
		het_hs_warn(s, "the consensus is checked against all the data "
		    "with %zu importance draws instead of %zu (one pass over "
		    "them takes %.2g s, and optimization.cmc.combination."
		    "reweight_seconds allows %g s): its k-hat is noisier", n,
		    want, per, budget);
	return n;
}

/* The proposal: the Laplace approximation, else the consensus draws. */
static int
hs_rw_proposal(struct het_sample *s, struct het_posterior *post,
    struct het_laplace *lap, double *loc, double *cov, double *u,
    struct het_error *err)
{
	size_t d = s->cons.p;

	if (hs_rw_laplace(s, post, lap, u, err) == HET_OK) {
		memcpy(loc, lap->mode, d * sizeof(double));
		memcpy(cov, lap->cov, d * d * sizeof(double));
		return HET_OK;
	}
	het_hs_warn(s, "the Laplace approximation of the posterior of all the "
	    "data could not be taken (%s); the consensus is checked from "
	    "its own draws' mean and covariance instead", err->msg);
	return hs_rw_moments(post, &s->cons, loc, cov, err);
}

int
het_hs_reweight(struct het_sample *s)
{
	struct het_posterior *post;
	struct het_laplace lap;
	struct het_psis_result r;
	struct het_error err;
	double *loc = NULL, *cov = NULL, *u = NULL;
	gsl_rng *rng = NULL;
	size_t d = s->cons.p, ndraw;
	int rc = HET_ENOMEM;

	if (s->cfg->cmc.reweight_draws <= 0 || s->cons.nused < 2 || d == 0)
		return HET_OK;
	memset(&lap, 0, sizeof(lap));
	het_error_clear(&err);
	if ((post = hs_rw_posterior(s, &err)) == NULL)
		goto warn;
	loc = het_alloc_array(d, sizeof(double), "reweighting", &err);
	cov = het_alloc_array(d * d, sizeof(double), "reweighting", &err);
	u = het_alloc_array(2 * d, sizeof(double), "reweighting", &err);
	if ((rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL)
		het_error_set(&err, HET_ENOMEM, "out of memory");
	if (loc == NULL || cov == NULL || u == NULL || rng == NULL)
		goto warn;
	if ((rc = hs_rw_proposal(s, post, &lap, loc, cov, u, &err)) !=
	    HET_OK)
		goto warn;
	if ((ndraw = hs_rw_draws(s, post, loc)) == 0)
		goto warn;
	gsl_rng_set(rng, (unsigned long)s->cfg->cmc.seed + 7919);
	rc = het_psis_reweight(het_posterior_nuts_logp, post, hs_rw_map,
	    post, d, d, loc, cov, HS_RW_DOF, ndraw, rng, &s->cancel, &r,
	    &err);
	if (rc == HET_OK) {
		hs_rw_report(s, &r);
		het_psis_result_clear(&r);
	}
warn:
	if (rc != HET_OK && rc != HET_ECANCEL)
		het_hs_warn(s, "the consensus was not checked against all the "
		    "data (importance sampling): %s", err.msg);
	het_laplace_clear(&lap);
	gsl_rng_free(rng);
	free(loc);
	free(cov);
	free(u);
	het_posterior_free(post);
	return rc;
}
