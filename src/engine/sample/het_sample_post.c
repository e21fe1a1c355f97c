/*
 * het_sample_post.c: the background phases of the sampling pipeline after
 * the coordinator: COMBINING (decode the shard results, consensus, gates,
 * the per-parameter summary) and WRITING (the results files).
 *
 * Design: COMBINING reads the coordinator's shard records (the loop
 * thread no longer changes them: the coordinator has finished) and fills
 * s->res, s->cons, s->gates, s->param and s->sum.  Shard results are kept
 * in queue order; a shard without a result has p = 0.  The combined R-hat
 * of a parameter is the largest over the shards that entered the
 * consensus and its ESS the sum over them (the heterodyne library's
 * rules); quantiles are of the combined draws (type 7).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_bridge.h"
#include "het_fitjob.h"
#include "het_sample_impl.h"
#include "het_util.h"
#include "het_wire_shard.h"

/* ---- COMBINING ----------------------------------------------------------- */


/* Type-7 quantile of sorted v[n]. */
static double
hs_quant(const double *v, size_t n, double q)
{
	double h, f;
	size_t i;

	if (n == 0)
		return NAN;
	h = q * (double)(n - 1);
	i = (size_t)floor(h);
	f = h - (double)i;
	return i + 1 < n ? v[i] + f * (v[i + 1] - v[i]) : v[n - 1];
}

/* The sd of the untempered prior, NAN when it has no simple one. */
static double
hs_prior_sd(const struct het_post_prior *pr)
{
	switch (pr->kind) {
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
		return pr->b;
	case HET_PRIOR_UNIFORM:
		return isfinite(pr->hi - pr->lo) ? (pr->hi - pr->lo) /
		    sqrt(12.0) : NAN;
	default:
		return NAN;
	}
}

static int
hs_summary(struct het_sample *s, const unsigned char *used,
    struct het_error *err)
{
	const struct het_consensus *c = &s->cons;
	struct het_sample_summary *sm = &s->sum;
	size_t p = c->p, m, k, d, K = het_cmc_nshards(s->cmc);
	double *col;

	s->param = het_alloc_array(p, sizeof(*s->param), "summary", err);
	col = het_alloc_array(c->ndraw > 0 ? c->ndraw : 1, sizeof(double),
	    "summary", err);
	if (s->param == NULL || col == NULL) {
		free(col);
		return HET_ENOMEM;
	}
	for (m = 0; m < p; m++) {
		struct het_sample_param *q = &s->param[m];

		for (d = 0; d < c->ndraw; d++)
			col[d] = c->draws[d * p + m];
		qsort(col, c->ndraw, sizeof(double), het_cmp_double);
		q->name = s->nnames[m];
		q->mean = c->mean[m];
		q->sd = c->sd[m];
		q->q025 = hs_quant(col, c->ndraw, 0.025);
		q->q5 = hs_quant(col, c->ndraw, 0.05);
		q->q50 = hs_quant(col, c->ndraw, 0.50);
		q->q95 = hs_quant(col, c->ndraw, 0.95);
		q->q975 = hs_quant(col, c->ndraw, 0.975);
		q->rhat = -HUGE_VAL;
		q->ess_bulk = q->ess_tail = 0;
		for (k = 0; k < K; k++) {
			const struct het_diag_summary *ds;

			if (!used[k])
				continue;
			ds = &s->res[k].summary[m];
			q->rhat = isnan(ds->rhat) || isnan(q->rhat) ? NAN :
			    fmax(q->rhat, ds->rhat);
			q->ess_bulk += ds->ess_bulk;
			q->ess_tail += ds->ess_tail;
		}
		q->nlsq = s->nx[m];
		q->nlsq_sd = s->nsd[m];
		q->prior_sd = hs_prior_sd(&s->priors[m]);
		q->contraction = isfinite(q->prior_sd) && q->prior_sd > 0 ?
		    1.0 - q->sd / q->prior_sd : NAN;
		q->rw_mean = q->rw_sd = NAN;
	}
	sm->rw_khat = sm->rw_ess = sm->rw_shift = NAN;
	sm->rw_ndraw = 0;
	sm->rw_param = NULL;
	free(col);
	sm->p = p;
	sm->param = s->param;
	sm->method = het_consensus_method_name(c->method);
	sm->nshards = K;
	sm->nused = c->nused;
	sm->ndraws = c->ndraw;
	sm->note = c->note;
	sm->sigma = s->sigma;
	sm->sigma_source = s->sigma_source;
	return HET_OK;
}

int
het_hs_combine(struct het_sample *s, struct het_error *err)
{
	size_t K = het_cmc_nshards(s->cmc), k, nd = 0, p = s->pb->p, ch, j, nleap;
	const double **draws = NULL;
	double **flat = NULL, *rbuf = NULL, *ebuf = NULL;
	size_t *ndraw = NULL, *map = NULL;
	unsigned char *used = NULL;
	struct het_cons_diag *dg = NULL;
	struct het_cons_gates g;
	struct het_sample_summary *sm = &s->sum;
	long id;
	int rc = HET_ENOMEM;

	s->res = het_alloc_array(K, sizeof(*s->res), "shard results", err);
	s->gate_of = het_alloc_array(K, sizeof(size_t), "gates", err);
	flat = het_alloc_array(K, sizeof(double *), "draws", err);
	draws = het_alloc_array(K, sizeof(double *), "draws", err);
	ndraw = het_alloc_array(K, sizeof(size_t), "draws", err);
	map = het_alloc_array(K, sizeof(size_t), "draws", err);
	used = het_alloc_array(K, 1, "draws", err);
	dg = het_alloc_array(K, sizeof(*dg), "diagnostics", err);
	rbuf = het_alloc_array(K * p, sizeof(double), "diagnostics", err);
	ebuf = het_alloc_array(K * p, sizeof(double), "diagnostics", err);
	if (s->res == NULL || s->gate_of == NULL || flat == NULL ||
	    draws == NULL || ndraw == NULL || map == NULL || used == NULL ||
	    dg == NULL || rbuf == NULL || ebuf == NULL)
		goto out;
	memset(s->res, 0, K * sizeof(*s->res));
	for (k = 0; k < K; k++) {
		const struct het_cmc_shard *sh = het_cmc_shard(s->cmc, k);

		s->gate_of[k] = (size_t)-1;
		if (sh->state != HET_CMC_DONE || sh->result == NULL)
			continue;
		if ((rc = het_wire_result_unpack(sh->result, &id, &s->res[k],
		    err)) != HET_OK) {
			het_error_prefix(err, "the result of shard %ld", sh->id);
			goto out;
		}
		if (s->res[k].p != p) {
			rc = het_error_set(err, HET_EPROTO, "the result of "
			    "shard %ld has %zu parameters, not %zu", sh->id,
			    s->res[k].p, p);
			goto out;
		}
		s->res[k].wall_time = sh->elapsed;
		if ((flat[nd] = het_consensus_flatten(&s->res[k], err)) ==
		    NULL) {
			rc = err->code;
			goto out;
		}
		draws[nd] = flat[nd];
		ndraw[nd] = s->res[k].nchain * s->res[k].ndraw;
		het_cons_diag_from_result(&s->res[k], rbuf + nd * p,
		    ebuf + nd * p, &dg[nd]);
		s->gate_of[k] = nd;
		map[nd++] = k;
	}
	memset(sm, 0, sizeof(*sm));
	sm->ndone = nd;
	if (nd == 0) {
		rc = HET_OK;
		goto out;
	}
	if ((rc = het_consensus_combine((int)s->cfg->cmc.combine, draws,
	    ndraw, nd, p, &s->cons, err)) != HET_OK) {
		het_error_prefix(err, "consensus");
		goto out;
	}
	s->have_cons = 1;
	if ((rc = het_consensus_skew_note(&s->cons, s->nnames, err)) !=
	    HET_OK)
		goto out;
	het_cons_gates_from_cmc(&s->cfg->cmc, &g);
	if ((rc = het_consensus_gates(&g, dg, nd, s->nnames, &s->gates,
	    err)) != HET_OK)
		goto out;
	memset(used, 0, K);
	for (j = 0; j < nd; j++)
		used[map[j]] = s->cons.used[j];
	if ((rc = hs_summary(s, used, err)) != HET_OK)
		goto out;
	sm->gates_pass = s->gates.pass;
	sm->gates_nfailed = s->gates.nfailed;
	sm->gates_text = s->gates.msg;
	sm->max_rhat = -HUGE_VAL;
	sm->min_ess = sm->min_bfmi = HUGE_VAL;
	sm->nlaplace = 0;
	sm->max_khat = NAN;
	sm->coords = het_config_coords(&s->cfg->cmc);
	sm->anchors = 0;
	sm->heterodyne = s->cfg->family == HET_FAMILY_HETERODYNE;
	sm->leapfrog = 0;
	nleap = 0;
	for (j = 0; j < nd; j++) {
		const struct het_cons_shard_gate *gt = &s->gates.shard[j];
		const struct het_shard_result *r = &s->res[map[j]];

		sm->max_rhat = isnan(gt->max_rhat) || isnan(sm->max_rhat) ?
		    NAN : fmax(sm->max_rhat, gt->max_rhat);
		sm->min_ess = isnan(gt->min_ess) || isnan(sm->min_ess) ? NAN :
		    fmin(sm->min_ess, gt->min_ess);
		sm->min_bfmi = isnan(gt->min_bfmi) || isnan(sm->min_bfmi) ?
		    NAN : fmin(sm->min_bfmi, gt->min_bfmi);
		for (ch = 0; ch < r->nchain; ch++) {
			sm->divergences += r->divergences[ch];
			if (r->leapfrog[ch] > 0) {
				sm->leapfrog += r->leapfrog[ch];
				nleap++;
			}
		}
		sm->nlaplace += r->laplace != 0;
		sm->anchors |= r->anchors;
		if (r->laplace && !isnan(r->laplace_khat) &&
		    !(r->laplace_khat <= sm->max_khat))
			sm->max_khat = r->laplace_khat;
	}
	sm->leapfrog = nleap > 0 ? sm->leapfrog / (double)nleap : NAN;
	(void)het_hs_reweight(s);
	s->have_sum = 1;
	rc = HET_OK;
out:
	for (k = 0; flat != NULL && k < nd; k++)
		free(flat[k]);
	free(flat);
	free(draws);
	free(ndraw);
	free(map);
	free(used);
	free(dg);
	free(rbuf);
	free(ebuf);
	return rc;
}

/* ---- WRITING ------------------------------------------------------------- */

static const char *
hs_status(const struct het_sample *s)
{
	if (s->cancelled)
		return "cancelled";
	if (s->cmc_status != HET_OK)
		return "shards_failed";
	return s->sum.gates_pass ? "passed" : "gates_failed";
}

/* The NLSQ part of the results description. */
static int
hs_fit_desc(struct het_sample *s, struct het_results_fit *f,
    struct het_results_start **starts, struct het_error *err)
{
	const struct het_fit_result *fr = s->fit;
	const struct het_problem *pb = s->pb;

	*starts = NULL;
	if (fr == NULL) {
		*f = (struct het_results_fit){
			.angle = -1, .p = pb->p, .names = s->nnames,
			.x = s->nx, .x0 = s->nx, .unc = s->nsd, .lo = pb->lo,
			.hi = pb->hi, .cost = NAN, .rss = NAN, .chi2 = NAN,
			.chi2_red = s->loaded.chi2_red, .sigma = pb->sigma,
			.dof = (long)(pb->npairs > pb->p ? pb->npairs - pb->p :
			    1),
			.wall_time = NAN, .reason = "loaded",
			.converged = s->loaded.converged,
			.message = s->loaded.source, .rank = pb->p
		};
		return HET_OK;
	}
	if (het_fitjob_describe(fr, f, starts) != 0)
		return het_error_set(err, HET_ENOMEM,
		    "out of memory describing the NLSQ starts");
	return HET_OK;
}

/* The failure reasons of shard c joined with "; " (allocated; NULL: ENOMEM). */
char *
het_hs_reasons(const struct het_cmc_shard *c)
{
	size_t len = 1;
	char *r;
	int a;

	for (a = 0; a < c->nreasons; a++)
		len += strlen(c->reason[a]) + 2;
	if ((r = calloc(len, 1)) == NULL)
		return NULL;
	for (a = 0; a < c->nreasons; a++) {
		if (a > 0)
			strcat(r, "; ");
		strcat(r, c->reason[a]);
	}
	return r;
}

static int
hs_add_file(struct het_sample *s, size_t *n, const char *name,
    struct het_error *err)
{
	char **v;

	if ((v = realloc(s->files, (*n + 2) * sizeof(*v))) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	s->files = v;
	if ((v[*n] = het_strdup(name, err)) == NULL)
		return HET_ENOMEM;
	v[++*n] = NULL;
	return HET_OK;
}

/*
 * What the results files and the checkpoint share: the CMC settings and
 * the NLSQ part (fit, starts: free *starts), the problem and config.
 * The caller adds status, shards, consensus, summary and gates.
 */
int
het_hs_describe(struct het_sample *s, struct het_results_cmc *cm,
    struct het_results *res, struct het_results_fit *fit,
    struct het_results_start **starts, struct het_error *err)
{
	int rc;

	memset(cm, 0, sizeof(*cm));
	cm->settings = s->settings;
	cm->strategy = het_shard_strategy_name(s->cfg->cmc.strategy);
	cm->combine = het_consensus_method_name((int)s->cfg->cmc.combine);
	cm->sigma_source = s->sigma_source;
	cm->sigma = s->sigma;
	cm->reparam = het_config_coords(&s->cfg->cmc);
	cm->nlsq_priors = s->cfg->cmc.nlsq_priors;
	cm->prior_width = s->cfg->cmc.nlsq_prior_width_factor;
	het_cons_gates_from_cmc(&s->cfg->cmc, &cm->gates);
	cm->p = s->pb->p;
	cm->names = s->nnames;
	cm->priors = s->priors;
	cm->rw_khat = cm->rw_ess = NAN;	/* the caller's, when taken */
	if ((rc = hs_fit_desc(s, fit, starts, err)) != HET_OK)
		return rc;
	memset(res, 0, sizeof(*res));
	res->cfg = s->cfg;
	res->pb = s->pb;
	res->optimizer = s->fit == NULL ? "loaded" : s->cfg->nlsq.multistart ?
	    "multistart" : "local";
	res->fits = fit;
	res->nfits = 1;
	res->wall_time = 0;
	res->threads = s->o.threads;
	res->creator = PACKAGE_NAME " " PACKAGE_VERSION;
	res->cmc = cm;
	res->no_nlsq_json = s->fit == NULL;
	return HET_OK;
}

int
het_hs_write(struct het_sample *s, struct het_error *err)
{
	size_t K = het_cmc_nshards(s->cmc), k, nf = 0;
	struct het_results_cmc_shard *sh = NULL;
	struct het_results_cmc_param *pr = NULL;
	struct het_results_start *starts = NULL;
	struct het_results_fit fit;
	struct het_results_cmc cm;
	struct het_results res;
	struct het_error e;
	char **reasons = NULL;
	int rc = HET_ENOMEM;

	sh = het_alloc_array(K, sizeof(*sh), "shards", err);
	reasons = het_alloc_array(K, sizeof(char *), "shards", err);
	pr = het_alloc_array(s->pb->p, sizeof(*pr), "summary", err);
	if (sh == NULL || reasons == NULL || pr == NULL)
		goto out;
	memset(reasons, 0, K * sizeof(char *));
	for (k = 0; k < K; k++) {
		const struct het_cmc_shard *c = het_cmc_shard(s->cmc, k);
		size_t g = s->gate_of[k];

		if ((reasons[k] = het_hs_reasons(c)) == NULL)
			goto out;
		sh[k] = (struct het_results_cmc_shard){ c->id, c->npairs,
		    het_cmc_state_name(c->state), c->attempts, reasons[k],
		    c->elapsed, g != (size_t)-1 ? &s->res[k] : NULL,
		    g != (size_t)-1 ? &s->gates.shard[g] : NULL,
		    g != (size_t)-1 && s->cons.used[g],
		    g != (size_t)-1 && s->cons.outlier[g],
		    (size_t)c->id < s->npayload ? s->digest[c->id] : NULL,
		    c->reused };
	}
	for (k = 0; k < s->pb->p; k++) {
		const struct het_sample_param *q = &s->param[k];

		pr[k] = (struct het_results_cmc_param){ q->mean, q->sd,
		    q->q025, q->q5, q->q50, q->q95, q->q975, q->rhat,
		    q->ess_bulk, q->ess_tail, q->nlsq, q->nlsq_sd,
		    q->prior_sd, q->contraction, q->rw_mean, q->rw_sd };
	}
	if ((rc = het_hs_describe(s, &cm, &res, &fit, &starts, err)) != HET_OK)
		goto out;
	cm.status = hs_status(s);
	cm.shards = sh;
	cm.nshards = K;
	cm.cons = &s->cons;
	cm.param = pr;
	cm.gates_pass = s->sum.gates_pass;
	cm.gates_text = s->sum.gates_text;
	cm.max_rhat = s->sum.max_rhat;
	cm.min_ess = s->sum.min_ess;
	cm.min_bfmi = s->sum.min_bfmi;
	cm.divergences = s->sum.divergences;
	cm.wall_time = s->sampling_wall;
	cm.rw_khat = s->sum.rw_khat;
	cm.rw_ess = s->sum.rw_ess;
	cm.rw_ndraw = s->sum.rw_ndraw;
	res.warnings = (const char *const *)s->warn;
	res.nwarnings = s->nwarn;
	res.status = cm.status;
	if ((rc = het_results_write(s->out_dir, &res, err)) != HET_OK)
		goto out;
	/* complete: the checkpoint of this run (or of one it replaced) has
	   served its purpose */
	het_error_clear(&e);
	if (het_results_remove_checkpoint(s->out_dir, &e) != HET_OK)
		het_hs_warn(s, "%s", e.msg);
	if ((rc = hs_add_file(s, &nf, HET_RESULTS_H5, err)) ||
	    (s->fit != NULL && ((rc = hs_add_file(s, &nf,
	    "nlsq_parameters.json", err)) || (rc = hs_add_file(s, &nf,
	    "nlsq_metadata.json", err)))) ||
	    (rc = hs_add_file(s, &nf, HET_RESULTS_CMC_SUMMARY, err)) ||
	    (rc = hs_add_file(s, &nf, HET_RESULTS_CMC_DIAGNOSTICS, err)))
		goto out;
out:
	for (k = 0; reasons != NULL && k < K; k++)
		free(reasons[k]);
	free(reasons);
	free(sh);
	free(pr);
	free(starts);
	return rc;
}
