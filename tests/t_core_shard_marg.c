/*
 * t_core_shard_marg.c: a shard's chains with contrast and offset
 * integrated out against the same shard sampling them.
 *
 * Problem: homodyne static (separable, rank 1), 24 frames x 3 angles,
 * D0 and alpha free (D_offset fixed), individual scaling: 2 physics and
 * 6 scaling parameters, Gaussian noise 0.01 from a fixed seed,
 * truncated-normal priors on contrast and offset (centred off the
 * truth) with K = 2 shards, so the tempering enters the marginal.
 *
 * Checks:
 *   - het_shard_run with marginalise on samples 2 coordinates, records
 *     HET_MARG_ON, and still returns all 8 parameters per draw; with it
 *     off, 8 coordinates and HET_MARG_OFF;
 *   - agreement of the two posteriors for every parameter: means within
 *     0.2 sd and sds within 15 %, each with 4 chains x (300 + 2500).
 *     The margins are checked to be at least 5 Monte Carlo sd from the
 *     runs' own bulk ESS (mean: sd sqrt(1/E1 + 1/E2); sd ratio:
 *     sqrt(1/(2 E1) + 1/(2 E2)), the normal-theory sd of an sd), so the
 *     comparison fails by chance less than once in 3 million per
 *     parameter on any CPU; observed ESS about 4,000 to 10,000;
 *   - same seed: the marginalised run again gives the same draws bit for
 *     bit (the conditional draws use the chain's rng);
 *   - the fallback: an upper contrast bound 3 conditional sd above the
 *     mean: HET_MARG_BOUND, 8 coordinates sampled, all draws inside the
 *     bounds; run in pieces with a second posterior for the chains
 *     (made with marginalise on, switched off by the job), the same
 *     draws bit for bit;
 *   - averaged scaling: HET_MARG_INELIGIBLE, sampled.
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

#define NF	24
#define NA	3
#define NMAX	(NA * NF * (NF - 1) / 2)
#define PMAX	(2 + 2 * NA)

static const double phi3[NA] = { 0.0, 45.0, 90.0 };
static const double truth[3] = { 2000.0, 0.4, 20.0 };
static const unsigned char hfree[3] = { 1, 1, 0 };

struct sim {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		 pairs[NMAX];
	double			 y[NMAX], x0[PMAX], lo[PMAX], hi[PMAX];
	struct het_post_prior	 pr[PMAX];
	size_t			 n, p;
};

static void
sim_fini(struct sim *S)
{
	het_resid_free(S->r);
	het_scaling_free(S->sc);
	het_model_free(S->m);
	memset(S, 0, sizeof *S);
}

static int
sim_init(struct sim *S, enum het_scaling_mode mode, struct het_error *err)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	struct het_resid_spec	 rs;
	struct het_resid_eval	*ev;
	double			 c2[NMAX];
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
	ms.phi = phi3;
	het_scaling_default_spec(&ss, HET_FAMILY_HOMODYNE, mode, NA, phi3);
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
	rs.n = S->n;
	rs.pairs = S->pairs;
	rs.y = S->y;
	if ((S->r = het_resid_alloc(&rs, err)) == NULL ||
	    (ev = het_resid_eval_alloc(S->r, err)) == NULL)
		return -1;
	S->p = het_resid_nparams(S->r);
	het_resid_x0(S->r, S->x0);
	het_resid_bounds(S->r, S->lo, S->hi);
	if (het_resid_prepare(ev, S->x0, 0, err) != HET_OK) {
		het_resid_eval_free(ev);
		return -1;
	}
	het_resid_eval_model(ev, 0, S->n, c2);
	het_resid_eval_free(ev);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 11);
	for (k = 0; k < S->n; k++)
		S->y[k] = c2[k] + gsl_ran_gaussian_ziggurat(rng, 0.01);
	gsl_rng_free(rng);
	for (k = 0; k < S->p; k++) {
		S->pr[k].lo = S->lo[k];
		S->pr[k].hi = S->hi[k];
		if (k < 2) {
			S->pr[k].kind = HET_PRIOR_UNIFORM;
			S->pr[k].a = S->pr[k].b = 0;
		} else {
			S->pr[k].kind = HET_PRIOR_TRUNCNORMAL;
			S->pr[k].a = S->x0[k] * 1.02;
			S->pr[k].b = 0.02;
		}
	}
	return 0;
}

static struct het_posterior *
sim_post(struct sim *S, int marg, struct het_error *err)
{
	struct het_post_spec ps;

	memset(&ps, 0, sizeof ps);
	ps.resid = S->r;
	ps.model = S->m;
	ps.sigma = 0.01;
	ps.priors = S->pr;
	ps.nshards = 2;
	ps.reparam = 1;
	ps.marginalise = marg;
	return het_posterior_alloc(&ps, err);
}

static int
same_draws(const struct het_shard_result *a, const struct het_shard_result *b)
{
	return a->p == b->p && a->nchain == b->nchain && a->ndraw == b->ndraw &&
	    memcmp(a->draws, b->draws, a->nchain * a->p * a->ndraw *
	    sizeof *a->draws) == 0;
}

static void
check_agreement(void)
{
	struct het_error	 err;
	struct het_shard_settings st;
	struct het_shard_result	 rm, rf, r2;
	struct het_posterior	*pm, *pf;
	struct sim		 S;
	const struct het_diag_summary *a, *b;
	double			 dmean = 0, dsd = 0, zm = HUGE_VAL, zs = HUGE_VAL;
	double			 e1, e2;
	size_t			 k;
	int			 rc1, rc2;

	if (sim_init(&S, HET_SCALING_INDIVIDUAL, &err) != 0) {
		ok(0, "problem: %s", err.msg);
		return;
	}
	pm = sim_post(&S, 1, &err);
	pf = sim_post(&S, 0, &err);
	ok(pm != NULL && pf != NULL && het_posterior_dim(pm) == 2 &&
	    het_posterior_dim(pf) == S.p, "posteriors: 2 and %zu sampled "
	    "coordinates", S.p);
	het_shard_settings_default(&st);
	st.num_warmup = 300;
	st.num_samples = 2500;
	st.seed = 5;
	rc1 = het_shard_run(pm, &st, 0, S.x0, NULL, NULL, &rm, &err);
	rc2 = het_shard_run(pf, &st, 0, S.x0, NULL, NULL, &rf, &err);
	if (!ok(rc1 == HET_OK && rc2 == HET_OK, "both runs finish")) {
		diag("%s", err.msg);
		goto out;
	}
	ok(rm.marginal == HET_MARG_ON && rf.marginal == HET_MARG_OFF &&
	    rm.p == S.p && rf.p == S.p, "marginal on and off recorded, %zu "
	    "parameters in both", S.p);
	for (k = 0; k < S.p; k++) {
		a = &rm.summary[k];
		b = &rf.summary[k];
		e1 = a->ess_bulk;
		e2 = b->ess_bulk;
		dmean = fmax(dmean, fabs(a->mean - b->mean) / b->sd);
		dsd = fmax(dsd, fabs(a->sd / b->sd - 1));
		zm = fmin(zm, 0.2 / sqrt(1 / e1 + 1 / e2));
		zs = fmin(zs, 0.15 / sqrt(0.5 / e1 + 0.5 / e2));
		diag("%-12s marg %.6g +- %.3g (ESS %.0f, R-hat %.3f)  full "
		    "%.6g +- %.3g (ESS %.0f, R-hat %.3f)", rm.names[k], a->mean,
		    a->sd, e1, a->rhat, b->mean, b->sd, e2, b->rhat);
	}
	diag("max |mean diff| %.3f sd, max |sd ratio - 1| %.3f; margins %.1f "
	    "and %.1f Monte Carlo sd", dmean, dsd, zm, zs);
	ok(zm >= 5 && zs >= 5, "the margins are at least 5 Monte Carlo sd");
	ok(dmean < 0.2, "means agree within 0.2 sd (%.3f)", dmean);
	ok(dsd < 0.15, "sds agree within 15 %% (%.3f)", dsd);
	diag("leapfrog per transition: marginal %.1f, full %.1f",
	    rm.leapfrog[0], rf.leapfrog[0]);
	/* reproducible */
	if (het_shard_run(pm, &st, 0, S.x0, NULL, NULL, &r2, &err) == HET_OK) {
		ok(same_draws(&rm, &r2), "the marginalised run is "
		    "reproducible bit for bit");
		het_shard_result_clear(&r2);
	} else
		ok(0, "rerun: %s", err.msg);
out:
	het_shard_result_clear(&rm);
	het_shard_result_clear(&rf);
	het_posterior_free(pm);
	het_posterior_free(pf);
	sim_fini(&S);
}

static void
check_fallback(void)
{
	struct het_error	 err;
	struct het_shard_settings st;
	struct het_shard_result	 r1, r2;
	struct het_shard_job	 job;
	struct het_posterior	*pm, *pc;
	struct sim		 S;
	double			 u[PMAX], mean[2 * NA], cov[3 * NA], v;
	size_t			 c, k, i, out = 0;
	long			 kc = 2;	/* contrast[0] */

	sim_init(&S, HET_SCALING_INDIVIDUAL, &err);
	pm = sim_post(&S, 1, &err);
	het_posterior_to_u(pm, S.x0, u, &err);
	het_posterior_conditional(pm, u, mean, cov, &err);
	het_posterior_free(pm);
	ok(strcmp(het_resid_param_name(S.r, (size_t)kc), "contrast[0]") == 0,
	    "column 2 is contrast[0]");
	S.pr[kc].hi = mean[0] + 3 * sqrt(cov[0]);
	if (S.x0[kc] >= S.pr[kc].hi)
		S.x0[kc] = mean[0];
	pm = sim_post(&S, 1, &err);
	pc = sim_post(&S, 1, &err);
	het_shard_settings_default(&st);
	st.num_warmup = 150;
	st.num_samples = 200;
	st.num_chains = 2;
	if (!ok(het_shard_run(pm, &st, 1, S.x0, NULL, NULL, &r1, &err) ==
	    HET_OK, "near a bound: the run finishes")) {
		diag("%s", err.msg);
		goto out;
	}
	ok(r1.marginal == HET_MARG_BOUND && het_posterior_dim(pm) == S.p &&
	    r1.p == S.p, "near a bound: HET_MARG_BOUND, all %zu sampled",
	    S.p);
	for (c = 0; c < r1.nchain; c++)
		for (k = 0; k < S.p; k++)
			for (i = 0; i < r1.ndraw; i++) {
				v = r1.draws[(c * S.p + k) * r1.ndraw + i];
				out += !(v > S.pr[k].lo && v < S.pr[k].hi);
			}
	is_int((long long)out, 0, "near a bound: every draw inside the "
	    "bounds");
	/* in pieces: the chains' posterior switched off by the job */
	het_posterior_set_marginal(pm, 1, NULL);
	if (het_shard_begin(pm, &st, 1, S.x0, &job, &r2, &err) == HET_OK) {
		ok(job.marg == 0 && job.d == S.p && r2.marginal ==
		    HET_MARG_BOUND, "in pieces: the job samples everything");
		for (c = r2.nchain; c-- > 0;)
			if (het_shard_run_chain(&job, pc, c, 0, NULL, NULL, &r2,
			    &err) != HET_OK)
				break;
		ok(het_shard_finish(&job, &r2, &err) == HET_OK &&
		    same_draws(&r1, &r2), "in pieces with another posterior: "
		    "the same draws");
		ok(!het_posterior_marginal(pc), "the chains' posterior was "
		    "switched off");
		het_shard_result_clear(&r2);
	} else
		ok(0, "begin: %s", err.msg);
	het_shard_result_clear(&r1);
out:
	het_posterior_free(pm);
	het_posterior_free(pc);
	sim_fini(&S);
	/* averaged scaling: not eligible */
	sim_init(&S, HET_SCALING_AVERAGED, &err);
	for (k = 2; k < S.p; k++)
		S.pr[k].kind = HET_PRIOR_UNIFORM;
	pm = sim_post(&S, 1, &err);
	if (het_shard_run(pm, &st, 1, S.x0, NULL, NULL, &r1, &err) == HET_OK) {
		ok(r1.marginal == HET_MARG_INELIGIBLE && r1.p == S.p &&
		    het_posterior_dim(pm) == S.p, "averaged scaling: "
		    "HET_MARG_INELIGIBLE, sampled");
		het_shard_result_clear(&r1);
	} else
		ok(0, "averaged: %s", err.msg);
	het_posterior_free(pm);
	sim_fini(&S);
}

int
main(void)
{
	plan_lazy();
	check_agreement();
	check_fallback();
	return exit_status();
}
