/*
 * t_core_shard_run.c: the chains of one CMC shard.
 *
 * A tiny homodyne static problem (30 frames x 2 angles, D0 and alpha
 * free, D_offset fixed, averaged scaling, Gaussian noise 0.01, made with het_model/het_scaling through
 * het_resid) is sampled with 4 short chains, with the power-law
 * reparameterisation.  Checks: result shapes and names; posterior means
 * within 4 posterior sd of the truth; R-hat < 1.05 and bulk ESS > 50 for
 * every parameter; BFMI, step sizes and divergence counts filled; one
 * progress callback per transition with phases, chain numbers and a
 * running R-hat once a second chain has 50 draws; the run is
 * reproducible bit for bit for a fixed seed and differs for another;
 * het_shard_begin / het_shard_run_chain (chains in reverse order) /
 * het_shard_finish give the same result bit for bit, without a running
 * R-hat, and refuse a chain index out of range;
 * cancellation and bad settings are errors with their messages.
 *
 * Margins (the draws differ between CPUs: libm and OpenBLAS choose code
 * paths at run time), measured over 40 chain seeds on these data: |z| of
 * the means at most 1.31 (Monte Carlo sd of z 0.07) against 4; R-hat
 * 1.011 (sd 0.008, largest 1.036) against 1.05, 5 sd; bulk ESS 316 to
 * 449 (sd 56 to 68, lowest 174), asserted above 50, 4.6 sd (100 was 3.7);
 * BFMI 1.05 (sd 0.13) against 0.3, 5.7 sd; acceptance 0.95 (sd 0.01)
 * against 0.5; the last running R-hat 1.014 (sd 0.007) in (0.9, 1.1).
 * Bit-identity is asserted only between runs in this process.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "het_shard_run.h"
#include "tap.h"

#define NF	30
#define NA	2
#define NMAX	(NA * NF * (NF - 1) / 2)
#define NP	4	/* free parameters */

static const double phi2[NA] = { 0.0, 90.0 };
/* D0, alpha, (D_offset, fixed), contrast, offset */
static const double truth[5] = { 2000.0, 0.4, 20.0, 0.3, 1.0 };
static const double xtrue[4] = { 2000.0, 0.4, 0.3, 1.0 };
static const unsigned char hfree[3] = { 1, 1, 0 };

struct sim {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_posterior	*post;
	struct het_pair		 pairs[NMAX];
	double			 y[NMAX];
	size_t			 n;
};

static void
sim_fini(struct sim *S)
{
	het_posterior_free(S->post);
	het_resid_free(S->r);
	het_scaling_free(S->sc);
	het_model_free(S->m);
}

static int
sim_init(struct sim *S, struct het_error *err)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	struct het_resid_spec	 rs;
	struct het_resid_eval	*ev;
	struct het_post_spec	 ps;
	struct het_post_prior	 pr[NP];
	double			 c2[NMAX], lo[NP], hi[NP];
	gsl_rng			*rng;
	size_t			 a, i, j, k;

	memset(S, 0, sizeof *S);
	memset(&ms, 0, sizeof ms);
	ms.mode = HET_MODE_HOM_STATIC;
	ms.q = 0.02;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi2;
	het_scaling_default_spec(&ss, HET_FAMILY_HOMODYNE,
	    HET_SCALING_AVERAGED, NA, phi2);
	if ((S->m = het_model_alloc(&ms, err)) == NULL ||
	    (S->sc = het_scaling_alloc(&ss, err)) == NULL)
		return -1;
	for (a = 0; a < NA; a++)
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, S->n++) {
				S->pairs[S->n].i = (uint32_t)i;
				S->pairs[S->n].j = (uint32_t)j;
				S->pairs[S->n].a = (uint32_t)a;
			}
	memset(&rs, 0, sizeof rs);
	rs.model = S->m;
	rs.scaling = S->sc;
	rs.theta = truth;
	rs.free = hfree;
	rs.s = truth + 3;
	rs.n = S->n;
	rs.pairs = S->pairs;
	rs.y = S->y;
	if ((S->r = het_resid_alloc(&rs, err)) == NULL ||
	    (ev = het_resid_eval_alloc(S->r, err)) == NULL)
		return -1;
	if (het_resid_prepare(ev, xtrue, 0, err) != HET_OK) {
		het_resid_eval_free(ev);
		return -1;
	}
	het_resid_eval_model(ev, 0, S->n, c2);
	het_resid_eval_free(ev);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 7);
	for (k = 0; k < S->n; k++)
		S->y[k] = c2[k] + gsl_ran_gaussian_ziggurat(rng, 0.01);
	gsl_rng_free(rng);
	het_resid_bounds(S->r, lo, hi);
	for (k = 0; k < NP; k++) {
		pr[k].kind = HET_PRIOR_UNIFORM;
		pr[k].a = pr[k].b = 0;
		pr[k].lo = lo[k];
		pr[k].hi = hi[k];
	}
	memset(&ps, 0, sizeof ps);
	ps.resid = S->r;
	ps.model = S->m;
	ps.sigma = 0.01;
	ps.priors = pr;
	ps.nshards = 1;
	ps.reparam = 1;
	if ((S->post = het_posterior_alloc(&ps, err)) == NULL)
		return -1;
	return 0;
}

struct prog {
	long	calls, warmup, sampling, bad_order, rhat_seen;
	long	last_chain, last_iter;
	double	last_rhat;
	long	cancel_at;
};

static int
prog_cb(void *ctx, const struct het_shard_progress *pr)
{
	struct prog *g = ctx;

	g->calls++;
	if (strcmp(pr->phase, "warmup") == 0)
		g->warmup++;
	else if (strcmp(pr->phase, "sampling") == 0)
		g->sampling++;
	if (pr->chain == g->last_chain) {
		if (pr->iteration != g->last_iter + 1)
			g->bad_order++;
	} else if (pr->chain != g->last_chain + 1 || pr->iteration != 1)
		g->bad_order++;
	g->last_chain = pr->chain;
	g->last_iter = pr->iteration;
	if (!isnan(pr->rhat)) {
		g->rhat_seen++;
		g->last_rhat = pr->rhat;
		if (pr->chain < 1)
			g->bad_order++;
	}
	if (!(pr->step_size > 0) || pr->total != 500 || pr->shard != 2)
		g->bad_order++;
	return g->cancel_at > 0 && g->calls >= g->cancel_at;
}

/* Progress of chains run in pieces: no running R-hat. */
static int
nan_rhat_cb(void *ctx, const struct het_shard_progress *pr)
{
	int *nonnan = ctx;

	*nonnan += !isnan(pr->rhat);
	return 0;
}

/*
 * begin / run_chain (the chains in reverse order, as threads might) /
 * finish give het_shard_run's result bit for bit.
 */
static void
check_pieces(struct sim *S, const struct het_shard_settings *st,
    const double *x0, const struct het_shard_result *ref)
{
	struct het_shard_job	 job;
	struct het_shard_result	 res;
	struct het_error	 err;
	size_t			 c, m, nd = (size_t)st->num_samples;
	int			 rc = HET_OK, nonnan = 0, same = 1;

	is_int(het_shard_begin(S->post, st, 2, x0, &job, &res, &err), HET_OK,
	    "het_shard_begin");
	is_int(het_shard_run_chain(&job, S->post, job.nchain, 0, NULL,
	    NULL, &res, &err), HET_EINVAL, "chain %zu of %zu refused",
	    job.nchain, job.nchain);
	for (c = job.nchain; c-- > 0 && rc == HET_OK; )
		rc = het_shard_run_chain(&job, S->post, c, 0, nan_rhat_cb,
		    &nonnan, &res, &err);
	is_int(rc, HET_OK, "the chains in reverse order");
	is_int(nonnan, 0, "no running R-hat when not sequential");
	is_int(het_shard_finish(&job, &res, &err), HET_OK, "het_shard_finish");
	ok(job.energy == NULL, "... releases the job");
	ok(memcmp(res.draws, ref->draws, ref->nchain * ref->p * nd *
	    sizeof(double)) == 0, "draws bit-identical to het_shard_run's");
	for (c = 0; c < ref->nchain; c++)
		same &= memcmp(&res.bfmi[c], &ref->bfmi[c], sizeof(double)) ==
		    0 && res.step_size[c] == ref->step_size[c] &&
		    res.accept[c] == ref->accept[c] &&
		    res.divergences[c] == ref->divergences[c];
	for (m = 0; m < ref->p; m++)
		same &= res.summary[m].mean == ref->summary[m].mean &&
		    res.summary[m].ess_bulk == ref->summary[m].ess_bulk &&
		    res.summary[m].rhat == ref->summary[m].rhat &&
		    strcmp(res.names[m], ref->names[m]) == 0;
	ok(same, "BFMI, step sizes, acceptance, divergences, summaries and "
	    "names identical");
	het_shard_result_clear(&res);
	het_shard_job_clear(&job);
	het_shard_job_clear(NULL);
}

/*
 * The Laplace start: used, its k-hat small on this near-Gaussian
 * posterior (4 parameters, 0.01 noise, 2000 importance draws: measured
 * 0.09 at this seed, effective fraction 0.92; the k-hat of 2000 draws
 * has a sd near 0.1, so 0.5, the PSIS line for "close to Gaussian", is
 * 4 sd away), and a start with D0 on its upper bound (an NLSQ optimum
 * left there; issue 19) samples the same posterior with or without it:
 * means within 4 sd of the truth.
 */
static void
check_laplace(struct sim *S, const struct het_shard_settings *st0,
    const double *x0, const struct het_shard_result *ref)
{
	struct het_shard_settings st = *st0;
	struct het_shard_result	res;
	struct het_error	err;
	double			lo[NP], hi[NP], edge[NP];
	int			rc, lap;

	ok(ref->laplace == 1, "the chains started from the Laplace "
	    "approximation");
	ok(isfinite(ref->laplace_khat) && ref->laplace_khat < 0.5, "its "
	    "PSIS k-hat says near-Gaussian (%.3f)", ref->laplace_khat);
	ok(ref->leapfrog[0] >= 1 && ref->leapfrog[0] <= 1023 &&
	    ref->leapfrog_warmup[3] >= 1 && ref->leapfrog_warmup[3] <= 1023,
	    "leapfrog steps per transition counted (%.1f sampling, %.1f "
	    "warmup)", ref->leapfrog[0], ref->leapfrog_warmup[3]);
	ok(ref->laplace_ess > 0.5 && ref->laplace_ess <= 1, "its importance "
	    "draws' effective fraction (%.3f)", ref->laplace_ess);
	het_resid_bounds(S->r, lo, hi);
	memcpy(edge, x0, sizeof edge);
	edge[0] = hi[0];
	for (lap = 1; lap >= 0; lap--) {
		st.laplace = lap;
		st.num_chains = 2;
		rc = het_shard_run(S->post, &st, 0, edge, NULL, NULL, &res,
		    &err);
		ok(rc == HET_OK, "D0 on its upper bound %g, Laplace %s: the "
		    "chains run (%s)", hi[0], lap ? "on" : "off",
		    rc == HET_OK ? "ok" : err.msg);
		if (rc != HET_OK)
			continue;
		ok(res.laplace == lap, "... res.laplace is %d", lap);
		ok(fabs(res.summary[0].mean - xtrue[0]) < 4 *
		    res.summary[0].sd, "... mean of D0 %.1f within 4 sd (%.1f) "
		    "of the truth", res.summary[0].mean, res.summary[0].sd);
		het_shard_result_clear(&res);
	}
	st.psis_draws = 5;
	is_int(het_shard_run(S->post, &st, 0, x0, NULL, NULL, &res, &err),
	    HET_EINVAL, "psis_draws 5 refused");
	like(err.msg, "psis_draws is 5", "... %s", err.msg);
	edge[0] = NAN;
	is_int(het_shard_run(S->post, st0, 0, edge, NULL, NULL, &res, &err),
	    HET_ERANGE, "a start that is not finite refused");
	like(err.msg, "must be finite", "... %s", err.msg);
}

int
main(void)
{
	struct sim			 S;
	struct het_shard_settings	 st;
	struct het_shard_result		 res, res2;
	struct het_error		 err;
	struct prog			 g;
	double				 x0[NP], bad[NP], z;
	size_t				 k, c, worst = 0;
	int				 rc;

	plan_lazy();
	if (sim_init(&S, &err) != 0) {
		ok(0, "simulated problem: %s", err.msg);
		return exit_status();
	}
	is_int((long long)het_posterior_dim(S.post), NP, "4 free parameters");
	is_int((long long)het_posterior_nreparam(S.post), 1, "(D0, alpha) "
	    "reparameterised");
	het_shard_settings_default(&st);
	is_int(st.num_samples, 1500, "default num_samples");
	st.num_warmup = 250;
	st.num_samples = 250;
	st.num_chains = 4;
	st.seed = 11;
	st.psis_draws = 2000;	/* k-hat's sd about 0.1 (tail of 135) */
	/* start near, not at, the truth (an NLSQ result would be used) */
	for (k = 0; k < NP; k++)
		x0[k] = xtrue[k] * (1 + 0.01 * (double)(k + 1));
	memset(&g, 0, sizeof g);
	g.last_chain = -1;
	rc = het_shard_run(S.post, &st, 2, x0, prog_cb, &g, &res, &err);
	ok(rc == HET_OK, "shard run: %s", rc == HET_OK ? "ok" : err.msg);
	if (rc != HET_OK)
		goto out;
	ok(res.p == NP && res.nchain == 4 && res.ndraw == 250, "shape 4 "
	    "chains x 4 parameters x 250 draws");
	ok(strcmp(res.names[0], "D0") == 0 &&
	    strcmp(res.names[2], "contrast") == 0, "names");
	for (k = 0; k < NP; k++) {
		z = (res.summary[k].mean - xtrue[k]) / res.summary[k].sd;
		ok(fabs(z) < 4, "%s: mean %.6g, sd %.3g, truth %g (z = %.2f)",
		    res.names[k], res.summary[k].mean, res.summary[k].sd,
		    xtrue[k], z);
		ok(res.summary[k].rhat < 1.05, "%s: R-hat %.4f < 1.05",
		    res.names[k], res.summary[k].rhat);
		/* ESS 316 or more, sd about 60 between seeds: 50 is 4.6 sd */
		ok(res.summary[k].ess_bulk > 50, "%s: bulk ESS %.0f > 50",
		    res.names[k], res.summary[k].ess_bulk);
		if (res.summary[k].rhat > res.summary[worst].rhat)
			worst = k;
	}
	for (c = 0; c < 4; c++) {
		ok(res.bfmi[c] > 0.3 && res.step_size[c] > 0 &&
		    res.divergences[c] >= 0 && res.accept[c] > 0.5,
		    "chain %zu: BFMI %.2f, step %.3g, %ld divergences, "
		    "accept %.2f", c, res.bfmi[c], res.step_size[c],
		    res.divergences[c], res.accept[c]);
	}
	is_int(g.calls, 4 * 500, "one progress call per transition");
	is_int(g.warmup, 4 * 250, "warmup transitions");
	is_int(g.sampling, 4 * 250, "sampling transitions");
	is_int(g.bad_order, 0, "chains and iterations in order, R-hat only "
	    "from chain 1 on");
	is_int(g.rhat_seen, 3 * 201, "running R-hat reported from the 50th "
	    "draw of chains 1..3");
	ok(g.last_rhat > 0.9 && g.last_rhat < 1.1, "last running R-hat "
	    "%.4f", g.last_rhat);
	/* reproducibility */
	rc = het_shard_run(S.post, &st, 2, x0, NULL, NULL, &res2, &err);
	ok(rc == HET_OK && memcmp(res.draws, res2.draws, 4 * NP * 250 *
	    sizeof(double)) == 0, "same seed: identical draws");
	het_shard_result_clear(&res2);
	check_pieces(&S, &st, x0, &res);
	st.seed = 12;
	rc = het_shard_run(S.post, &st, 2, x0, NULL, NULL, &res2, &err);
	ok(rc == HET_OK && memcmp(res.draws, res2.draws, 4 * NP * 250 *
	    sizeof(double)) != 0, "another seed: other draws");
	het_shard_result_clear(&res2);
	/* chain c of shard s is seeded seed + 1000 s + c */
	st.seed = 1011;
	st.num_chains = 1;
	rc = het_shard_run(S.post, &st, 1, x0, NULL, NULL, &res2, &err);
	ok(rc == HET_OK && memcmp(res.draws, res2.draws, NP * 250 *
	    sizeof(double)) == 0, "seed 1011, shard 1 reproduces chain 0 "
	    "of seed 11, shard 2");
	het_shard_result_clear(&res2);
	check_laplace(&S, &st, x0, &res);
	/* cancellation */
	st.num_chains = 2;
	memset(&g, 0, sizeof g);
	g.last_chain = -1;
	g.cancel_at = 510;
	rc = het_shard_run(S.post, &st, 2, x0, prog_cb, &g, &res2, &err);
	is_int(rc, HET_ECANCEL, "the callback cancels");
	like(err.msg, "shard 2 was cancelled in chain 1 at transition 10",
	    "cancel message");
	ok(res2.draws == NULL && res2.p == 0, "nothing kept on error");
	/* errors */
	st.num_samples = 3;
	is_int(het_shard_run(S.post, &st, 0, x0, NULL, NULL, &res2, &err),
	    HET_EINVAL, "3 draws refused");
	like(err.msg, "num_samples is 3", "message");
	st.num_samples = 10;
	st.target_accept = 1;
	is_int(het_shard_run(S.post, &st, 0, x0, NULL, NULL, &res2, &err),
	    HET_EINVAL, "target_accept 1 refused");
	like(err.msg, "target_accept_prob is 1", "message");
	st.target_accept = 0.8;
	st.num_chains = 0;
	is_int(het_shard_run(S.post, &st, 0, x0, NULL, NULL, &res2, &err),
	    HET_EINVAL, "0 chains refused");
	like(err.msg, "num_chains is 0", "message");
	st.num_chains = 1;
	st.max_tree_depth = 0;
	is_int(het_shard_run(S.post, &st, 0, x0, NULL, NULL, &res2, &err),
	    HET_EINVAL, "tree depth 0 refused");
	like(err.msg, "max_tree_depth is 0", "message");
	st.max_tree_depth = 10;
	st.init_jitter = -1;
	is_int(het_shard_run(S.post, &st, 0, x0, NULL, NULL, &res2, &err),
	    HET_EINVAL, "negative jitter refused");
	like(err.msg, "init_jitter is -1", "message");
	st.init_jitter = 0;
	st.num_warmup = 0;
	is_int(het_shard_run(S.post, &st, 0, x0, NULL, NULL, &res2, &err),
	    HET_EINVAL, "no warmup refused");
	like(err.msg, "num_warmup is 0", "message");
	st.num_warmup = 10;
	memcpy(bad, x0, sizeof bad);
	bad[1] = 5;
	is_int(het_shard_run(S.post, &st, 0, bad, NULL, NULL, &res2, &err),
	    HET_ERANGE, "start outside the bounds refused");
	like(err.msg, "alpha", "message names alpha");
	het_shard_result_clear(&res2);
	het_shard_result_clear(NULL);
out:
	het_shard_result_clear(&res);
	sim_fini(&S);
	return exit_status();
}
