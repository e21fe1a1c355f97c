/*
 * het_results_cmc.c: the CMC part of the results files of `hetui
 * sample`: the /cmc group of hetui_results.h5 and the reference-
 * compatible cmc_summary.json and cmc_diagnostics.json.
 *
 * Design: the writer only formats what struct het_results_cmc describes
 * (the engine computed it); het_results.c commits the files atomically
 * with the rest.  The JSON documents carry the heterodyne package's keys
 * in its order (io/mcmc_writers.py), then hetui's own keys; a value that
 * is not finite is written as null, where the reference would fail.
 *
 * /cmc layout (attributes in brackets):
 *   /cmc [status, strategy, combine, sigma, sigma_source, reparam,
 *        nlsq_informed_priors, prior_width_factor, num_warmup, num_samples, num_chains,
 *        target_accept_prob, max_tree_depth, dense_mass, laplace_init,
 *        marginalise_scaling, seed,
 *        num_shards, max_r_hat, min_ess, min_bfmi, max_divergence_rate,
 *        gates_passed, wall_time]
 *   /cmc/parameter_names                 p strings (het_resid order)
 *   /cmc/gates_text                      sentences, "" when passed
 *   /cmc/priors/{kind,a,b,lower,upper}   the untempered priors
 *   /cmc/summary/{mean,sd,q2.5,q5,q50,q95,q97.5,r_hat,ess_bulk,ess_tail,
 *                nlsq,nlsq_sd,prior_sd,contraction,reweighted_mean,
 *                reweighted_sd}      p values each (the last two NaN
 *                unless a sharded run's consensus was reweighted
 *                against all the data; /cmc [reweight_khat,
 *                reweight_ess, reweight_draws])
 *   /cmc/consensus/{draws (ndraw x p), mean, sd, cov, gauss_mean,
 *                gauss_cov, used, outlier} [method, n_used, n_regularised,
 *                note]                   only when something was combined
 *   /cmc/shards/{id,n_pairs,state,attempts,reason,wall_time,used,outlier,
 *                reused}                 K entries, queue order
 *   /cmc/shard_NNNN/ for every shard with a result:
 *                draws (nchain*p x ndraw: row c*p + m is parameter m of
 *                chain c), mean, sd, q5, q50, q95, mcse_mean, ess_bulk,
 *                ess_tail, r_hat (p each), bfmi, divergences, step_size,
 *                accept (nchain each) [n_chains, n_draws, wall_time,
 *                input_digest, gates_passed, max_r_hat, min_ess,
 *                min_bfmi, divergence_rate, laplace_used, laplace_khat,
 *                laplace_ess, marginal_scaling: "on" when contrast and
 *                offset were integrated out, else "off" (not asked
 *                for), "ineligible" or "bound" (sampled instead)]
 * input_digest (16 hex digits) identifies everything the shard was
 * computed from; het_results_load_cmc reads the shards back for
 * `hetui sample --resume`, which reuses a shard only when its digest
 * matches.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "het_params.h"
#include "het_results_impl.h"
#include "het_util.h"

/* "g/name" into buf (RS_PATH_MAX bytes); returns buf. */
static const char *
rs_path_fmt(char *buf, const char *g, const char *name)
{
	snprintf(buf, RS_PATH_MAX, "%s/%s", g, name);
	return buf;
}

/* ---- JSON ---------------------------------------------------------------- */

json_t *
het_rs_json_cmc_summary(const struct het_results_cmc *c, const char *stamp)
{
	json_t *o = json_object(), *names = json_array(), *mean = json_array(),
	    *sd = json_array(), *ci = json_object(), *map = json_array(), *one;
	size_t m;

	for (m = 0; m < c->p; m++) {
		const struct het_results_cmc_param *q = c->param != NULL ?
		    &c->param[m] : NULL;

		json_array_append_new(names, json_string(c->names[m]));
		json_array_append_new(mean, het_rs_num(q ? q->mean : NAN));
		json_array_append_new(sd, het_rs_num(q ? q->sd : NAN));
		json_array_append_new(map, het_rs_num(q ? q->mean : NAN));
		one = json_object();
		json_object_set_new(one, "2.5%", het_rs_num(q ? q->q025 : NAN));
		json_object_set_new(one, "97.5%", het_rs_num(
		    q ? q->q975 : NAN));
		json_object_set_new(ci, c->names[m], one);
	}
	json_object_set_new(o, "parameter_names", names);
	json_object_set_new(o, "posterior_mean", mean);
	json_object_set_new(o, "posterior_std", sd);
	json_object_set_new(o, "credible_intervals", ci);
	json_object_set_new(o, "map_estimate", map);
	json_object_set_new(o, "timestamp", json_string(stamp));
	json_object_set_new(o, "num_samples",
	    json_integer(c->settings.num_samples));
	json_object_set_new(o, "num_chains",
	    json_integer(c->settings.num_chains));
	/* hetui's own keys */
	json_object_set_new(o, "status", json_string(c->status));
	json_object_set_new(o, "combination_method", json_string(c->combine));
	json_object_set_new(o, "num_shards", json_integer((json_int_t)
	    c->nshards));
	json_object_set_new(o, "num_shards_used", json_integer((json_int_t)
	    (c->cons != NULL ? c->cons->nused : 0)));
	json_object_set_new(o, "num_draws", json_integer((json_int_t)
	    (c->cons != NULL ? c->cons->ndraw : 0)));
	json_object_set_new(o, "noise_sigma", het_rs_num(c->sigma));
	json_object_set_new(o, "noise_sigma_source",
	    json_string(c->sigma_source));
	json_object_set_new(o, "consensus_note", json_string(
	    c->cons != NULL && c->cons->note != NULL ? c->cons->note : ""));
	json_object_set_new(o, "reweight_draws", json_integer((json_int_t)
	    c->rw_ndraw));
	json_object_set_new(o, "reweight_khat", het_rs_num(c->rw_khat));
	json_object_set_new(o, "reweight_ess", het_rs_num(c->rw_ess));
	one = json_object();
	for (m = 0; m < c->p; m++) {
		const struct het_results_cmc_param *q = c->param != NULL ?
		    &c->param[m] : NULL;
		json_t *e = json_object();

		json_object_set_new(e, "5%", het_rs_num(q ? q->q05 : NAN));
		json_object_set_new(e, "50%", het_rs_num(q ? q->q50 : NAN));
		json_object_set_new(e, "95%", het_rs_num(q ? q->q95 : NAN));
		json_object_set_new(e, "nlsq_value", het_rs_num(
		    q ? q->nlsq : NAN));
		json_object_set_new(e, "nlsq_std", het_rs_num(q ? q->nlsq_sd :
		    NAN));
		json_object_set_new(e, "prior_std", het_rs_num(q ? q->prior_sd :
		    NAN));
		json_object_set_new(e, "posterior_contraction", het_rs_num(q ?
		    q->contraction : NAN));
		json_object_set_new(e, "reweighted_mean", het_rs_num(q ?
		    q->rw_mean : NAN));
		json_object_set_new(e, "reweighted_sd", het_rs_num(
		    q ? q->rw_sd :
		    NAN));
		json_object_set_new(e, "shard_skewness", het_rs_num(
		    c->cons != NULL && c->cons->skew != NULL ?
		    c->cons->skew[m] : NAN));
		json_object_set_new(e, "consensus_skew_bias", het_rs_num(
		    c->cons != NULL && c->cons->skew_bias != NULL ?
		    c->cons->skew_bias[m] : NAN));
		json_object_set_new(one, c->names[m], e);
	}
	json_object_set_new(o, "parameters", one);
	return o;
}

json_t *
het_rs_json_cmc_diagnostics(const struct het_results_cmc *c)
{
	json_t *o = json_object(), *pd = json_object(), *bfmi = json_array(),
	    *si = json_object(), *sh = json_array(), *e;
	double maxr = -HUGE_VAL, mine = HUGE_VAL;
	size_t m, k, ch;
	int all_r = 1, bfmi_ok = 1, any = 0;

	json_object_set_new(o, "convergence_passed",
	    json_boolean(c->gates_pass && c->cons != NULL));
	for (m = 0; m < c->p; m++) {
		const struct het_results_cmc_param *q = c->param != NULL ?
		    &c->param[m] : NULL;
		double r = q ? q->rhat : NAN, es = q ? q->ess_bulk : NAN;

		e = json_object();
		json_object_set_new(e, "r_hat", het_rs_num(r));
		json_object_set_new(e, "r_hat_passed",
		    json_boolean(r < c->gates.max_r_hat));
		json_object_set_new(e, "ess_bulk", het_rs_num(es));
		json_object_set_new(e, "ess_tail", het_rs_num(q ? q->ess_tail :
		    NAN));
		json_object_set_new(pd, c->names[m], e);
		if (!(r < c->gates.max_r_hat))
			all_r = 0;
		/* NaN propagates: an unknown diagnostic is reported */
		maxr = isnan(r) || isnan(maxr) ? NAN : fmax(maxr, r);
		mine = isnan(es) || isnan(mine) ? NAN : fmin(mine, es);
	}
	json_object_set_new(o, "parameter_diagnostics", pd);
	json_object_set_new(o, "max_r_hat", het_rs_num(c->p > 0 ? maxr : NAN));
	json_object_set_new(o, "r_hat_threshold", json_real(
	    c->gates.max_r_hat));
	json_object_set_new(o, "all_r_hat_passed", json_boolean(all_r &&
	    c->param != NULL));
	json_object_set_new(o, "min_ess_bulk", het_rs_num(c->p > 0 ? mine :
	    NAN));
	for (k = 0; k < c->nshards; k++) {
		const struct het_shard_result *r = c->shards[k].res;

		for (ch = 0; r != NULL && c->shards[k].used &&
		    ch < r->nchain; ch++) {
			json_array_append_new(bfmi, het_rs_num(r->bfmi[ch]));
			any = 1;
			if (!(r->bfmi[ch] > c->gates.min_bfmi))
				bfmi_ok = 0;
		}
	}
	json_object_set_new(o, "bfmi", bfmi);
	json_object_set_new(o, "bfmi_passed", json_boolean(bfmi_ok && any));
	json_object_set_new(si, "num_warmup",
	    json_integer(c->settings.num_warmup));
	json_object_set_new(si, "num_samples",
	    json_integer(c->settings.num_samples));
	json_object_set_new(si, "num_chains",
	    json_integer(c->settings.num_chains));
	json_object_set_new(si, "wall_time_seconds", het_rs_num(c->wall_time));
	json_object_set_new(o, "sampling_info", si);
	/* hetui's own keys */
	json_object_set_new(o, "status", json_string(c->status));
	json_object_set_new(o, "gates", e = json_object());
	json_object_set_new(e, "max_r_hat", json_real(c->gates.max_r_hat));
	json_object_set_new(e, "min_ess", json_real(c->gates.min_ess));
	json_object_set_new(e, "min_bfmi", json_real(c->gates.min_bfmi));
	json_object_set_new(e, "max_divergence_rate",
	    json_real(c->gates.max_divergence_rate));
	json_object_set_new(e, "passed", json_boolean(c->gates_pass));
	json_object_set_new(e, "report", json_string(c->gates_text != NULL ?
	    c->gates_text : ""));
	json_object_set_new(o, "divergences", json_integer(c->divergences));
	for (k = 0; k < c->nshards; k++) {
		const struct het_results_cmc_shard *s = &c->shards[k];

		e = json_object();
		json_object_set_new(e, "shard", json_integer(s->id));
		json_object_set_new(e, "n_pairs", json_integer((json_int_t)
		    s->npairs));
		json_object_set_new(e, "state", json_string(s->state));
		json_object_set_new(e, "attempts", json_integer(s->attempts));
		json_object_set_new(e, "reason", json_string(s->reason !=
		    NULL ? s->reason : ""));
		json_object_set_new(e, "wall_time_seconds",
		    het_rs_num(s->wall_time));
		json_object_set_new(e, "used", json_boolean(s->used));
		json_object_set_new(e, "outlier", json_boolean(s->outlier));
		json_object_set_new(e, "reused", json_boolean(s->reused));
		if (s->res != NULL) {
			json_object_set_new(e, "laplace", json_pack("{s:b, "
			    "s:o, s:o}", "used", s->res->laplace, "khat",
			    het_rs_num(s->res->laplace_khat),
			    "effective_fraction",
			    het_rs_num(s->res->laplace_ess)));
			json_object_set_new(e, "marginal_scaling",
			    json_string(het_post_marg_name(
			    s->res->marginal)));
			json_object_set_new(e, "anchors", json_integer(
			    s->res->anchors));
			json_object_set_new(e, "leapfrog_per_transition",
			    het_rs_nums(s->res->leapfrog, s->res->nchain));
		}
		if (s->gate != NULL) {
			json_object_set_new(e, "convergence_passed",
			    json_boolean(s->gate->pass));
			json_object_set_new(e, "max_r_hat",
			    het_rs_num(s->gate->max_rhat));
			json_object_set_new(e, "min_ess_bulk",
			    het_rs_num(s->gate->min_ess));
			json_object_set_new(e, "min_bfmi",
			    het_rs_num(s->gate->min_bfmi));
			json_object_set_new(e, "divergence_rate",
			    het_rs_num(s->gate->div_rate));
		}
		json_array_append_new(sh, e);
	}
	json_object_set_new(o, "shard_diagnostics", sh);
	/* hetui's own keys, after the reference's */
	json_object_set_new(o, "reweight_khat", het_rs_num(c->rw_khat));
	json_object_set_new(o, "reweight_ess", het_rs_num(c->rw_ess));
	return o;
}

/* ---- HDF5 ---------------------------------------------------------------- */

static int
rc_attrs(struct rs_w *w, const struct het_results_cmc *c,
    struct het_error *err)
{
	const char *g = "/cmc";
	const struct het_shard_settings *st = &c->settings;
	int rc;

	if ((rc = het_rs_astr(w, g, "status", c->status, err)) ||
	    (rc = het_rs_astr(w, g, "strategy", c->strategy, err)) ||
	    (rc = het_rs_astr(w, g, "combine", c->combine, err)) ||
	    (rc = het_rs_af64(w, g, "sigma", c->sigma, err)) ||
	    (rc = het_rs_astr(w, g, "sigma_source", c->sigma_source, err)) ||
	    (rc = het_rs_ai64(w, g, "reparam", c->reparam, err)) ||
	    (rc = het_rs_ai64(w, g, "nlsq_informed_priors", c->nlsq_priors,
	    err)) ||
	    (rc = het_rs_af64(w, g, "prior_width_factor", c->prior_width,
	    err)) ||
	    (rc = het_rs_ai64(w, g, "num_warmup", st->num_warmup, err)) ||
	    (rc = het_rs_ai64(w, g, "num_samples", st->num_samples, err)) ||
	    (rc = het_rs_ai64(w, g, "num_chains", st->num_chains, err)) ||
	    (rc = het_rs_af64(w, g, "target_accept_prob", st->target_accept,
	    err)) ||
	    (rc = het_rs_ai64(w, g, "max_tree_depth", st->max_tree_depth,
	    err)) ||
	    (rc = het_rs_ai64(w, g, "dense_mass", st->dense_mass, err)) ||
	    (rc = het_rs_ai64(w, g, "laplace_init", st->laplace, err)) ||
	    (rc = het_rs_ai64(w, g, "marginalise_scaling", st->marginalise,
	    err)) ||
	    (rc = het_rs_ai64(w, g, "seed", (long)st->seed, err)) ||
	    (rc = het_rs_ai64(w, g, "num_shards", (long)c->nshards, err)) ||
	    (rc = het_rs_af64(w, g, "max_r_hat", c->gates.max_r_hat, err)) ||
	    (rc = het_rs_af64(w, g, "min_ess", c->gates.min_ess, err)) ||
	    (rc = het_rs_af64(w, g, "min_bfmi", c->gates.min_bfmi, err)) ||
	    (rc = het_rs_af64(w, g, "max_divergence_rate",
	    c->gates.max_divergence_rate, err)) ||
	    (rc = het_rs_ai64(w, g, "gates_passed", c->gates_pass, err)) ||
	    (rc = het_rs_af64(w, g, "wall_time", c->wall_time, err)) ||
	    (rc = het_rs_af64(w, g, "reweight_khat", c->rw_khat, err)) ||
	    (rc = het_rs_af64(w, g, "reweight_ess", c->rw_ess, err)) ||
	    (rc = het_rs_ai64(w, g, "reweight_draws", (long)c->rw_ndraw, err)))
		return rc;
	if ((rc = het_rs_strs(w, "/cmc/parameter_names", c->p, c->names, err)))
		return rc;
	return het_rs_str(w, "/cmc/gates_text", c->gates_text != NULL ?
	    c->gates_text : "", err);
}

static int
rc_priors(struct rs_w *w, const struct het_results_cmc *c,
    struct het_error *err)
{
	const char **kind;
	double *v[4];
	size_t m;
	int rc = HET_OK, i;
	static const char *const nm[4] = { "a", "b", "lower", "upper" };
	char path[RS_PATH_MAX];

	kind = het_alloc_array(c->p, sizeof(*kind), "priors", err);
	for (i = 0; i < 4; i++)
		v[i] = het_alloc_array(c->p, sizeof(double), "priors", err);
	if (kind == NULL || v[0] == NULL || v[1] == NULL || v[2] == NULL ||
	    v[3] == NULL)
		rc = HET_ENOMEM;
	for (m = 0; rc == HET_OK && m < c->p; m++) {
		kind[m] = het_prior_name(c->priors[m].kind);
		v[0][m] = c->priors[m].a;
		v[1][m] = c->priors[m].b;
		v[2][m] = c->priors[m].lo;
		v[3][m] = c->priors[m].hi;
	}
	if (rc == HET_OK)
		rc = het_rs_strs(w, "/cmc/priors/kind", c->p, kind, err);
	for (i = 0; rc == HET_OK && i < 4; i++) {
		snprintf(path, sizeof(path), "/cmc/priors/%s", nm[i]);
		rc = het_rs_f64(w, path, c->p, v[i], err);
	}
	free(kind);
	for (i = 0; i < 4; i++)
		free(v[i]);
	return rc;
}

static int
rc_summary(struct rs_w *w, const struct het_results_cmc *c,
    struct het_error *err)
{
	static const char *const nm[16] = { "mean", "sd", "q2.5", "q5",
	    "q50", "q95", "q97.5", "r_hat", "ess_bulk", "ess_tail", "nlsq",
	    "nlsq_sd", "prior_sd", "contraction", "reweighted_mean",
	    "reweighted_sd" };
	char path[RS_PATH_MAX];
	double *v;
	size_t m;
	int rc = HET_OK, i;

	if (c->param == NULL)
		return HET_OK;
	if ((v = het_alloc_array(c->p, sizeof(double), "summary", err)) ==
	    NULL)
		return HET_ENOMEM;
	for (i = 0; rc == HET_OK && i < 16; i++) {
		for (m = 0; m < c->p; m++) {
			const struct het_results_cmc_param *q = &c->param[m];
			const double all[16] = { q->mean, q->sd, q->q025,
			    q->q05, q->q50, q->q95, q->q975, q->rhat,
			    q->ess_bulk, q->ess_tail, q->nlsq, q->nlsq_sd,
			    q->prior_sd, q->contraction, q->rw_mean,
			    q->rw_sd };

			v[m] = all[i];
		}
		snprintf(path, sizeof(path), "/cmc/summary/%s", nm[i]);
		rc = het_rs_f64(w, path, c->p, v, err);
	}
	free(v);
	return rc;
}

static int
rc_consensus(struct rs_w *w, const struct het_results_cmc *c,
    struct het_error *err)
{
	const struct het_consensus *s = c->cons;
	const char *g = "/cmc/consensus";
	long *u = NULL, *o = NULL;
	size_t k;
	int rc;

	if (s == NULL)
		return HET_OK;
	u = het_alloc_array(s->nshards, sizeof(long), "consensus", err);
	o = het_alloc_array(s->nshards, sizeof(long), "consensus", err);
	if (u == NULL || o == NULL) {
		free(u);
		free(o);
		return HET_ENOMEM;
	}
	for (k = 0; k < s->nshards; k++) {
		u[k] = s->used[k];
		o[k] = s->outlier[k];
	}
	if (!(rc = het_rs_mat(w, "/cmc/consensus/draws", s->ndraw, s->p,
	    s->draws, err)) &&
	    !(rc = het_rs_f64(w, "/cmc/consensus/mean", s->p, s->mean, err)) &&
	    !(rc = het_rs_f64(w, "/cmc/consensus/sd", s->p, s->sd, err)) &&
	    !(rc = het_rs_mat(w, "/cmc/consensus/cov", s->p, s->p, s->cov,
	    err)) &&
	    !(rc = het_rs_f64(w, "/cmc/consensus/gauss_mean", s->p,
	    s->gauss_mean, err)) &&
	    !(rc = het_rs_mat(w, "/cmc/consensus/gauss_cov", s->p, s->p,
	    s->gauss_cov, err)) &&
	    !(rc = het_rs_i64(w, "/cmc/consensus/used", s->nshards, u, NULL,
	    err)) &&
	    !(rc = het_rs_i64(w, "/cmc/consensus/outlier", s->nshards, o, NULL,
	    err)) &&
	    !(rc = het_rs_astr(w, g, "method", c->combine, err)) &&
	    !(rc = het_rs_ai64(w, g, "n_used", (long)s->nused, err)) &&
	    !(rc = het_rs_ai64(w, g, "n_regularised", (long)s->nregular, err)))
		rc = het_rs_astr(w, g, "note", s->note, err);
	free(u);
	free(o);
	return rc;
}

static int
rc_shard_table(struct rs_w *w, const struct het_results_cmc *c,
    struct het_error *err)
{
	size_t n = c->nshards, k;
	long *id, *att, *used, *outl, *reu;
	size_t *np;
	double *wall;
	const char **state, **reason;
	int rc = HET_ENOMEM;

	id = het_alloc_array(n, sizeof(long), "shards", err);
	att = het_alloc_array(n, sizeof(long), "shards", err);
	used = het_alloc_array(n, sizeof(long), "shards", err);
	outl = het_alloc_array(n, sizeof(long), "shards", err);
	reu = het_alloc_array(n, sizeof(long), "shards", err);
	np = het_alloc_array(n, sizeof(size_t), "shards", err);
	wall = het_alloc_array(n, sizeof(double), "shards", err);
	state = het_alloc_array(n, sizeof(char *), "shards", err);
	reason = het_alloc_array(n, sizeof(char *), "shards", err);
	if (id == NULL || att == NULL || used == NULL || outl == NULL ||
	    reu == NULL || np == NULL || wall == NULL || state == NULL || reason == NULL)
		goto out;
	for (k = 0; k < n; k++) {
		id[k] = c->shards[k].id;
		att[k] = c->shards[k].attempts;
		used[k] = c->shards[k].used;
		outl[k] = c->shards[k].outlier;
		reu[k] = c->shards[k].reused;
		np[k] = c->shards[k].npairs;
		wall[k] = c->shards[k].wall_time;
		state[k] = c->shards[k].state;
		reason[k] = c->shards[k].reason != NULL ?
		    c->shards[k].reason : "";
	}
	if (!(rc = het_rs_i64(w, "/cmc/shards/id", n, id, NULL, err)) &&
	    !(rc = het_rs_i64(w, "/cmc/shards/n_pairs", n, NULL, np, err)) &&
	    !(rc = het_rs_strs(w, "/cmc/shards/state", n, state, err)) &&
	    !(rc = het_rs_i64(w, "/cmc/shards/attempts", n, att, NULL, err)) &&
	    !(rc = het_rs_strs(w, "/cmc/shards/reason", n, reason, err)) &&
	    !(rc = het_rs_f64(w, "/cmc/shards/wall_time", n, wall, err)) &&
	    !(rc = het_rs_i64(w, "/cmc/shards/used", n, used, NULL, err)) &&
	    !(rc = het_rs_i64(w, "/cmc/shards/outlier", n, outl, NULL, err)))
		rc = het_rs_i64(w, "/cmc/shards/reused", n, reu, NULL, err);
out:
	free(id);
	free(att);
	free(used);
	free(outl);
	free(reu);
	free(np);
	free(wall);
	free(state);
	free(reason);
	return rc;
}

static int
rc_shard(struct rs_w *w, const struct het_results_cmc_shard *s,
    struct het_error *err)
{
	static const char *const nm[9] = { "mean", "sd", "q5", "q50", "q95",
	    "mcse_mean", "ess_bulk", "ess_tail", "r_hat" };
	const struct het_shard_result *r = s->res;
	char g[64], path[RS_PATH_MAX];
	double *v;
	size_t m;
	int rc = HET_OK, i;

	snprintf(g, sizeof(g), "/cmc/shard_%04ld", s->id);
	snprintf(path, sizeof(path), "%s/draws", g);
	if ((rc = het_rs_mat(w, path, r->nchain * r->p, r->ndraw, r->draws,
	    err)))
		return rc;
	if ((v = het_alloc_array(r->p, sizeof(double), "shard", err)) == NULL)
		return HET_ENOMEM;
	for (i = 0; rc == HET_OK && i < 9; i++) {
		for (m = 0; m < r->p; m++) {
			const struct het_diag_summary *d = &r->summary[m];
			const double all[9] = { d->mean, d->sd, d->q5, d->q50,
			    d->q95, d->mcse_mean, d->ess_bulk, d->ess_tail,
			    d->rhat };

			v[m] = all[i];
		}
		rc = het_rs_f64(w, rs_path_fmt(path, g, nm[i]), r->p, v, err);
	}
	free(v);
	if (rc == HET_OK)
		rc = het_rs_f64(w, rs_path_fmt(path, g, "bfmi"), r->nchain,
		    r->bfmi,
		    err);
	if (rc == HET_OK)
		rc = het_rs_i64(w, rs_path_fmt(path, g, "divergences"),
		    r->nchain,
		    r->divergences, NULL, err);
	if (rc == HET_OK)
		rc = het_rs_f64(w, rs_path_fmt(path, g, "step_size"), r->nchain,
		    r->step_size, err);
	if (rc == HET_OK)
		rc = het_rs_f64(w, rs_path_fmt(path, g, "accept"), r->nchain,
		    r->accept, err);
	if (rc == HET_OK && !(rc = het_rs_ai64(w, g, "n_chains", (
	    long)r->nchain,
	    err)) && !(rc = het_rs_ai64(w, g, "n_draws", (long)r->ndraw,
	    err)) &&
	    !(rc = het_rs_ai64(w, g, "laplace_used", r->laplace, err)) &&
	    !(rc = het_rs_af64(w, g, "laplace_khat", r->laplace_khat, err)) &&
	    !(rc = het_rs_af64(w, g, "laplace_ess", r->laplace_ess, err)) &&
	    !(rc = het_rs_astr(w, g, "marginal_scaling",
	    het_post_marg_name(r->marginal), err)) &&
	    !(rc = het_rs_ai64(w, g, "anchors", (long)r->anchors, err)) &&
	    !(rc = het_rs_af64(w, g, "wall_time", s->wall_time, err)) &&
	    (s->digest == NULL || s->digest[0] == '\0' ||
	    !(rc = het_rs_astr(w, g, "input_digest", s->digest, err))) &&
	    s->gate != NULL &&
	    !(rc = het_rs_ai64(w, g, "gates_passed", s->gate->pass, err)) &&
	    !(rc = het_rs_af64(w, g, "max_r_hat", s->gate->max_rhat, err)) &&
	    !(rc = het_rs_af64(w, g, "min_ess", s->gate->min_ess, err)) &&
	    !(rc = het_rs_af64(w, g, "min_bfmi", s->gate->min_bfmi, err)))
		rc = het_rs_af64(w, g, "divergence_rate", s->gate->div_rate,
		    err);
	return rc;
}

int
het_rs_h5_cmc(struct rs_w *w, const struct het_results_cmc *c,
    struct het_error *err)
{
	size_t k;
	int rc;

	if (c->p == 0 || c->names == NULL || c->priors == NULL ||
	    (c->nshards > 0 && c->shards == NULL))
		return het_error_set(err, HET_EINVAL, "results: the CMC "
		    "description lacks parameter names, priors or shards");
	if ((rc = rc_attrs(w, c, err)) || (rc = rc_priors(w, c, err)) ||
	    (rc = rc_summary(w, c, err)) || (rc = rc_consensus(w, c, err)) ||
	    (c->nshards > 0 && (rc = rc_shard_table(w, c, err))))
		return rc;
	for (k = 0; k < c->nshards; k++)
		if (c->shards[k].res != NULL &&
		    (rc = rc_shard(w, &c->shards[k], err)) != HET_OK)
			return rc;
	return HET_OK;
}
