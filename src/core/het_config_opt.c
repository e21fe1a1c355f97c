/*
 * het_config_opt.c: the optimiser sections of a configuration:
 * optimization.nlsq (with the per-angle scaling mode), optimization.cmc
 * and output.
 *
 * Design: each setting is read from its candidate locations in the
 * references' vocabularies (heterodyne flat NLSQ keys and nested CMC
 * sections, homodyne multi_start, anti_degeneracy and flat CMC timeouts,
 * hetui's canonical names) with het_cl_pick(), so synonyms map onto one field
 * and a disagreeing synonym is reported.  Range checks are left to
 * het_cl_validate(), which names the key and line through the provenance
 * recorded here.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

static const struct het_cl_word scaling_words[] = {
	{ "auto", HET_SCALING_AUTO },
	{ "individual", HET_SCALING_INDIVIDUAL },
	{ "constant", HET_SCALING_CONSTANT },
	{ "averaged", HET_SCALING_AVERAGED },
	{ "fourier", HET_SCALING_FOURIER },
	{ "independent", HET_SCALING_INDIVIDUAL },
	{ "constant_averaged", HET_SCALING_AVERAGED },
};

static const struct het_cl_word method_words[] = {
	{ "trf", HET_NLSQ_TRF }, { "lm", HET_NLSQ_LM },
};

static const struct het_cl_word loss_words[] = {
	{ "linear", HET_LOSS_LINEAR }, { "soft_l1", HET_LOSS_SOFT_L1 },
	{ "huber", HET_LOSS_HUBER }, { "cauchy", HET_LOSS_CAUCHY },
	{ "arctan", HET_LOSS_ARCTAN },
};

static const struct het_cl_word shard_words[] = {
	{ "random", HET_SHARD_RANDOM },
	{ "angle_balanced", HET_SHARD_ANGLE_BALANCED },
	{ "contiguous", HET_SHARD_CONTIGUOUS },
	{ "stratified", HET_SHARD_ANGLE_BALANCED },
};

static const struct het_cl_word combine_words[] = {
	{ "consensus_mc", HET_COMBINE_CONSENSUS },
	{ "robust_consensus_mc", HET_COMBINE_ROBUST },
	{ "simple_average", HET_COMBINE_AVERAGE },
};

static const struct het_cl_word chain_words[] = {
	{ "parallel", 1 }, { "vectorized", 1 }, { "sequential", 0 },
};

static const struct het_cl_word coord_words[] = {
	{ "rates", 2 }, { "power_law", 1 }, { "physical", 0 },
};

static const struct het_cl_word sigma_words[] = {
	{ "diagonal", HET_SIGMA_DIAGONAL }, { "mad", HET_SIGMA_MAD },
	{ "residual", HET_SIGMA_RESIDUAL },
};

/* optimization.nlsq.x_scale_map: {name: scale > 0}. */
static int
rd_xscale_map(struct cl_load *ld, struct het_ynode *m, const char *path)
{
	struct het_config_param *p;
	char key[CL_PATH_MAX];
	size_t i;
	int rc;

	if ((rc = het_cl_want_map(ld, m, path)) != HET_OK)
		return rc;
	for (i = 0; i < m->n; i++) {
		m->keys[i]->used = 1;
		het_cl_path(key, path, m->keys[i]->text);
		p = het_config_param(ld->cfg, m->keys[i]->text);
		if (p == NULL)
			return het_cl_err(ld, HET_EINVAL, m->keys[i]->line, key,
			    "'%s' is not a parameter of mode %s",
			    m->keys[i]->text, het_mode_name(ld->cfg->mode));
		if ((rc = het_cl_num(ld, m->vals[i], key,
		    &p->x_scale)) != HET_OK)
			return rc;
		if (p->x_scale <= 0)
			return het_cl_err(ld, HET_EINVAL, m->vals[i]->line, key,
			    "scale %g must be > 0", p->x_scale);
	}
	return HET_OK;
}

int
het_cl_read_nlsq(struct cl_load *ld)
{
	struct het_config *cfg = ld->cfg;
	struct het_config_nlsq *n = &cfg->nlsq;
	struct het_ynode *op, *nl, *ms, *ad, *v;
	const char *P = "optimization.nlsq";
	const char *M = "optimization.nlsq.multi_start";
	const char *A = "optimization.nlsq.anti_degeneracy";
	char path[CL_PATH_MAX];
	int rc, w;

	if ((rc = het_cl_section(ld, ld->root, "", "optimization", &op,
	    path)) !=
	    HET_OK || (rc = het_cl_section(ld, op, "optimization", "nlsq", &nl,
	    path)) != HET_OK || nl == NULL)
		return rc;
	if ((rc = het_cl_section(ld, nl, P, "multi_start", &ms,
	    path)) != HET_OK ||
	    (rc = het_cl_section(ld, nl, P, "anti_degeneracy", &ad, path)) !=
	    HET_OK)
		return rc;
	{
		struct cl_cand meth[] = { { nl, P, "method" } };
		struct cl_cand loss[] = { { nl, P, "loss" } };
		struct cl_cand fs[] = { { nl, P, "f_scale" } };
		struct cl_cand ft[] = { { nl, P, "ftol" },
		    { nl, P, "tolerance" } };
		struct cl_cand xt[] = { { nl, P, "xtol" } };
		struct cl_cand gt[] = { { nl, P, "gtol" } };
		struct cl_cand mf[] = { { nl, P, "max_nfev" } };
		struct cl_cand mi[] = { { nl, P, "max_iterations" } };
		struct cl_cand mst[] = { { nl, P, "multistart" },
		    { ms, M, "enable" } };
		struct cl_cand msn[] = { { nl, P, "multistart_n" },
		    { ms, M, "n_starts" } };
		struct cl_cand sd[] = { { nl, P, "seed" }, { ms, M, "seed" } };
		long seed = -1;

		w = (int)n->method;
		if ((rc = het_cl_pick_word(ld, meth, 1, method_words,
		    NC(method_words), &w)) != HET_OK)
			return rc;
		n->method = (enum het_config_nlsq_method)w;
		w = (int)n->loss;
		if ((rc = het_cl_pick_word(ld, loss, 1, loss_words, NC(
		    loss_words),
		    &w)) != HET_OK)
			return rc;
		n->loss = (enum het_nlsq_loss)w;
		if ((rc = het_cl_pick_num(ld, fs, 1, "nlsq.f_scale",
		    &n->f_scale)) ||
		    (rc = het_cl_pick_num(ld, ft, 2, "nlsq.ftol", &n->ftol)) ||
		    (rc = het_cl_pick_num(ld, xt, 1, "nlsq.xtol", &n->xtol)) ||
		    (rc = het_cl_pick_num(ld, gt, 1, "nlsq.gtol", &n->gtol)) ||
		    (rc = het_cl_pick_long(ld, mf, 1, "nlsq.max_nfev", 1,
		    &n->max_nfev)) ||
		    (rc = het_cl_pick_long(ld, mi, 1, "nlsq.max_iterations", 0,
		    &n->max_iterations)) ||
		    (rc = het_cl_pick_bool(ld, mst, 2, &n->multistart)) ||
		    (rc = het_cl_pick_long(ld, msn, 2, "nlsq.multistart_n", 0,
		    &n->multistart_n)) ||
		    (rc = het_cl_pick_long(ld, sd, 2, "nlsq.seed", 0, &seed)))
			return rc;
		if (seed >= 0)
			n->seed = (unsigned long)seed;
		else if (het_cl_prov_find(ld, "nlsq.seed") != NULL)
			return het_cl_err(ld, HET_EINVAL,
			    het_cl_prov_find(ld, "nlsq.seed")->line,
			    het_cl_prov_find(ld, "nlsq.seed")->path, "seed %ld "
			    "must be >= 0", seed);
	}
	{
		static const char *const xs[] = { "x_scale", "nlsq_x_scale",
		    NULL };

		v = het_cl_alias(ld, nl, P, xs, path);
		if (v != NULL && !het_cl_is_null(v)) {
			if (v->kind == HET_Y_SCALAR &&
			    strcmp(v->text, "jac") == 0)
				n->x_scale_jac = 1;
			else {
				if (v->kind == HET_Y_SCALAR && (rc = het_cl_num(
				    ld,
				    v, path, &n->x_scale)) != HET_OK)
					return het_cl_err(ld, HET_EINVAL,
					    v->line,
					    path, "expected \"jac\" or a "
					    "number > 0, found '%s'", v->text);
				if (v->kind != HET_Y_SCALAR)
					return het_cl_err(ld, HET_EINVAL,
					    v->line,
					    path, "expected \"jac\" or a "
					    "number > 0 (per-parameter scales "
					    "go in x_scale_map)");
				n->x_scale_jac = 0;
				if ((rc = het_cl_prov_set(ld, "nlsq.x_scale",
				    path,
				    v->line)) != HET_OK)
					return rc;
			}
		}
		v = het_cl_get(nl, "x_scale_map");
		het_cl_path(path, P, "x_scale_map");
		if (!het_cl_is_null(v) && (rc = rd_xscale_map(ld, v, path)) !=
		    HET_OK)
			return rc;
	}
	{
		struct cl_cand pm[] = { { nl, P, "per_angle_mode" },
		    { ad, A, "per_angle_mode" } };
		struct cl_cand fo[] = { { nl, P, "fourier_order" },
		    { ad, A, "fourier_order" } };
		struct cl_cand ft[] = { { nl, P, "fourier_auto_threshold" },
		    { ad, A, "fourier_auto_threshold" } };
		struct cl_cand ct[] = { { nl, P, "constant_scaling_threshold" },
		    { ad, A, "constant_scaling_threshold" } };
		struct het_config_scaling *s = &cfg->scaling;

		w = (int)s->nlsq_mode;
		if ((rc = het_cl_pick_word(ld, pm, 2, scaling_words,
		    NC(scaling_words), &w)) != HET_OK)
			return rc;
		s->nlsq_mode = (enum het_scaling_mode)w;
		if ((rc = het_cl_pick_long(ld, fo, 2, "scaling.fourier_order",
		    0,
		    &s->fourier_order)) != HET_OK)
			return rc;
		/*
		 * Each family's auto rule has its own threshold; heterodyne's
		 * flat constant_scaling_threshold is a fraction with another
		 * meaning and stays unused.
		 */
		if (cfg->family == HET_FAMILY_HETERODYNE)
			rc = het_cl_pick_long(ld, ft, 2,
			    "scaling.fourier_auto_threshold", 0,
			    &s->fourier_auto_threshold);
		else
			rc = het_cl_pick_long(ld, ct, 2,
			    "scaling.constant_threshold", 0,
			    &s->constant_threshold);
		if (rc != HET_OK)
			return rc;
	}
	return HET_OK;
}

int
het_cl_read_cmc(struct cl_load *ld)
{
	struct het_config_cmc *c = &ld->cfg->cmc;
	struct het_ynode *op, *cm, *sh, *ps, *to, *co, *va, *nl, *re, *pa, *v;
	const char *P = "optimization.cmc";
	char path[CL_PATH_MAX];
	long seed = -1;
	int rc, w;

	if ((rc = het_cl_section(ld, ld->root, "", "optimization", &op,
	    path)) !=
	    HET_OK || (rc = het_cl_section(ld, op, "optimization", "cmc", &cm,
	    path)) != HET_OK || cm == NULL)
		return rc;
	if ((rc = het_cl_section(ld, cm, P, "sharding", &sh, path)) ||
	    (rc = het_cl_section(ld, cm, P, "per_shard_mcmc", &ps, path)) ||
	    (rc = het_cl_section(ld, cm, P, "timeout", &to, path)) ||
	    (rc = het_cl_section(ld, cm, P, "combination", &co, path)) ||
	    (rc = het_cl_section(ld, cm, P, "validation", &va, path)) ||
	    (rc = het_cl_section(ld, cm, P, "nlsq", &nl, path)) ||
	    (rc = het_cl_section(ld, cm, P, "reparameterization", &re, path)) ||
	    (rc = het_cl_section(ld, cm, P, "per_angle", &pa, path)))
		return rc;
	{
		const char *S = "optimization.cmc.sharding";
		const char *M = "optimization.cmc.per_shard_mcmc";
		const char *T = "optimization.cmc.timeout";
		const char *C = "optimization.cmc.combination";
		const char *V = "optimization.cmc.validation";
		const char *N = "optimization.cmc.nlsq";
		const char *R = "optimization.cmc.reparameterization";
		struct cl_cand ns[] = { { cm, P, "num_shards" },
		    { sh, S, "num_shards" } };
		struct cl_cand mx[] = { { cm, P, "max_points_per_shard" },
		    { sh, S, "max_points_per_shard" } };
		struct cl_cand mn[] = { { cm, P, "min_points_per_shard" },
		    { sh, S, "min_points_per_shard" } };
		struct cl_cand mp[] = { { cm, P, "min_points_per_param" },
		    { sh, S, "min_points_per_param" } };
		struct cl_cand st[] = { { cm, P, "sharding_strategy" },
		    { sh, S, "sharding_strategy" }, { sh, S, "strategy" } };
		struct cl_cand wu[] = { { cm, P, "num_warmup" },
		    { ps, M, "num_warmup" } };
		struct cl_cand sa[] = { { cm, P, "num_samples" },
		    { ps, M, "num_samples" } };
		struct cl_cand ch[] = { { cm, P, "num_chains" },
		    { ps, M, "num_chains" } };
		struct cl_cand ta[] = { { cm, P, "target_accept_prob" },
		    { cm, P, "target_accept" },
		    { ps, M, "target_accept_prob" },
		    { ps, M, "target_accept" } };
		struct cl_cand td[] = { { cm, P, "max_tree_depth" },
		    { ps, M, "max_tree_depth" } };
		struct cl_cand dm[] = { { cm, P, "dense_mass" },
		    { ps, M, "dense_mass" }, { ps, M, "dense_mass_matrix" } };
		struct cl_cand sd[] = { { cm, P, "seed" }, { ps, M, "seed" } };
		struct cl_cand li[] = { { cm, P, "laplace_init" },
		    { ps, M, "laplace_init" } };
		struct cl_cand ms[] = { { cm, P, "marginalise_scaling" },
		    { ps, M, "marginalise_scaling" } };
		struct cl_cand pd[] = { { cm, P, "psis_draws" },
		    { ps, M, "psis_draws" } };
		struct cl_cand cmt[] = { { cm, P, "chain_method" },
		    { ps, M, "chain_method" } };
		struct cl_cand sg[] = { { cm, P, "sigma_method" } };
		struct cl_cand pt[] = { { cm, P, "per_shard_timeout" },
		    { to, T, "per_shard_timeout" } };
		struct cl_cand ht[] = { { cm, P, "heartbeat_timeout" },
		    { to, T, "heartbeat_timeout" } };
		struct cl_cand sr[] = { { cm, P, "min_success_rate" },
		    { co, C, "min_success_rate" },
		    { va, V, "min_success_rate" } };
		struct cl_cand cb[] = { { cm, P, "combination_method" },
		    { co, C, "combination_method" }, { co, C, "method" } };
		struct cl_cand rw[] = { { cm, P, "reweight_draws" },
		    { co, C, "reweight_draws" } };
		struct cl_cand rws[] = { { cm, P, "reweight_seconds" },
		    { co, C, "reweight_seconds" } };
		struct cl_cand rh[] = { { cm, P, "max_r_hat" },
		    { va, V, "max_r_hat" }, { va, V, "r_hat_threshold" },
		    { va, V, "max_per_shard_rhat" } };
		struct cl_cand es[] = { { cm, P, "min_ess" },
		    { va, V, "min_ess" }, { va, V, "min_per_shard_ess" } };
		struct cl_cand bf[] = { { cm, P, "min_bfmi" },
		    { va, V, "min_bfmi" } };
		struct cl_cand dv[] = { { cm, P, "max_divergence_rate" },
		    { va, V, "max_divergence_rate" } };
		struct cl_cand ur[] = { { cm, P, "use_reparam" },
		    { re, R, "use_reparam" } };
		struct cl_cand crd[] = { { cm, P, "coordinates" },
		    { re, R, "coordinates" } };
		struct cl_cand wf[] = { { cm, P, "nlsq_prior_width_factor" },
		    { nl, N, "nlsq_prior_width_factor" },
		    { nl, N, "prior_width_factor" },
		    { va, V, "nlsq_prior_width_factor" } };
		struct cl_cand np[] = {
		    { cm, P, "use_nlsq_informed_priors" },
		    { nl, N, "use_nlsq_informed_priors" },
		    { va, V, "use_nlsq_informed_priors" } };
		struct cl_cand pm[] = { { cm, P, "per_angle_mode" },
		    { pa, "optimization.cmc.per_angle", "per_angle_mode" } };

		if ((rc = het_cl_pick_long(ld, ns, NC(ns), "cmc.num_shards", 1,
		    &c->num_shards)) ||
		    (rc = het_cl_pick_long(ld, mx, NC(mx),
		    "cmc.max_points_per_shard", 1,
		    &c->max_points_per_shard)) ||
		    (rc = het_cl_pick_long(ld, mn, NC(mn),
		    "cmc.min_points_per_shard", 0,
		    &c->min_points_per_shard)))
			return rc;
		/* Only the heterodyne rule has a per-parameter bound; a
		 * homodyne config's key is reported as not used. */
		if (ld->cfg->family == HET_FAMILY_HETERODYNE &&
		    (rc = het_cl_pick_long(ld, mp, NC(mp),
		    "cmc.min_points_per_param", 0,
		    &c->min_points_per_param)) != HET_OK)
			return rc;
		w = (int)c->strategy;
		if ((rc = het_cl_pick_word(ld, st, NC(st), shard_words,
		    NC(shard_words), &w)) != HET_OK)
			return rc;
		c->strategy = (enum het_shard_strategy)w;
		if ((rc = het_cl_pick_long(ld, wu, NC(wu), "cmc.num_warmup", 0,
		    &c->num_warmup)) ||
		    (rc = het_cl_pick_long(ld, sa, NC(sa), "cmc.num_samples", 0,
		    &c->num_samples)) ||
		    (rc = het_cl_pick_long(ld, ch, NC(ch), "cmc.num_chains", 0,
		    &c->num_chains)) ||
		    (rc = het_cl_pick_num(ld, ta, NC(ta),
		    "cmc.target_accept_prob",
		    &c->target_accept_prob)) ||
		    (rc = het_cl_pick_long(ld, td, NC(td), "cmc.max_tree_depth",
		    0,
		    &c->max_tree_depth)) ||
		    (rc = het_cl_pick_bool(ld, dm, NC(dm), &c->dense_mass)) ||
		    (rc = het_cl_pick_bool(ld, li, NC(li), &c->laplace_init)) ||
		    (rc = het_cl_pick_bool(ld, ms, NC(ms),
		    &c->marginalise_scaling)) ||
		    (rc = het_cl_pick_long(ld, pd, NC(pd), "cmc.psis_draws", 0,
		    &c->psis_draws)) ||
		    (rc = het_cl_pick_long(ld, sd, NC(sd), "cmc.seed", 0,
		    &seed)))
			return rc;
		if ((rc = het_cl_pick_word(ld, cmt, NC(cmt), chain_words,
		    NC(chain_words), &c->chain_parallel)) != HET_OK)
			return rc;
		if (het_cl_prov_find(ld, "cmc.seed") != NULL) {
			if (seed < 0)
				return het_cl_err(ld, HET_EINVAL,
				    het_cl_prov_find(ld, "cmc.seed")->line,
				    het_cl_prov_find(ld, "cmc.seed")->path,
				    "seed "
				    "%ld must be >= 0", seed);
			c->seed = (unsigned long)seed;
		}
		w = (int)c->sigma;
		if ((rc = het_cl_pick_word(ld, sg, NC(sg), sigma_words,
		    NC(sigma_words), &w)) != HET_OK)
			return rc;
		c->sigma = (enum het_config_sigma)w;
		if ((rc = het_cl_pick_num(ld, pt, NC(pt),
		    "cmc.per_shard_timeout",
		    &c->per_shard_timeout)) ||
		    (rc = het_cl_pick_num(ld, ht, NC(ht),
		    "cmc.heartbeat_timeout",
		    &c->heartbeat_timeout)) ||
		    (rc = het_cl_pick_num(ld, sr, NC(sr),
		    "cmc.min_success_rate",
		    &c->min_success_rate)))
			return rc;
		w = (int)c->combine;
		if ((rc = het_cl_pick_word(ld, cb, NC(cb), combine_words,
		    NC(combine_words), &w)) != HET_OK)
			return rc;
		c->combine = (enum het_cons_method)w;
		if ((rc = het_cl_pick_long(ld, rw, NC(rw), "cmc.reweight_draws",
		    0, &c->reweight_draws)) ||
		    (rc = het_cl_pick_num(ld, rws, NC(rws),
		    "cmc.reweight_seconds", &c->reweight_seconds)) ||
		    (rc = het_cl_pick_num(ld, rh, NC(rh), "cmc.max_r_hat",
		    &c->max_r_hat)) ||
		    (rc = het_cl_pick_num(ld, es, NC(es), "cmc.min_ess",
		    &c->min_ess)) ||
		    (rc = het_cl_pick_num(ld, bf, NC(bf), "cmc.min_bfmi",
		    &c->min_bfmi)) ||
		    (rc = het_cl_pick_num(ld, dv, NC(dv),
		    "cmc.max_divergence_rate",
		    &c->max_divergence_rate)) ||
		    (rc = het_cl_pick_bool(ld, ur, NC(ur), &c->use_reparam)) ||
		    (rc = het_cl_pick_word(ld, crd, NC(crd), coord_words,
		    NC(coord_words), &c->coordinates)) ||
		    (rc = het_cl_pick_bool(ld, np, NC(np), &c->nlsq_priors)) ||
		    (rc = het_cl_pick_num(ld, wf, NC(wf),
		    "cmc.nlsq_prior_width_factor",
		    &c->nlsq_prior_width_factor)))
			return rc;
		w = (int)ld->cfg->scaling.cmc_mode;
		if ((rc = het_cl_pick_word(ld, pm, NC(pm), scaling_words,
		    NC(scaling_words), &w)) != HET_OK)
			return rc;
		ld->cfg->scaling.cmc_mode = (enum het_scaling_mode)w;
	}
	v = het_cl_get(cm, "worker_command");
	het_cl_path(path, P, "worker_command");
	if (!het_cl_is_null(v) && ((rc = het_cl_str(ld, v, path,
	    &c->worker_command)) != HET_OK || (rc = het_cl_prov_set(ld,
	    "cmc.worker_command", path, v->line)) != HET_OK))
		return rc;
	return HET_OK;
}

int
het_cl_read_output(struct cl_load *ld)
{
	static const char *const keys[] = { "output_dir", "directory", NULL };
	struct het_ynode *out, *v;
	char path[CL_PATH_MAX];
	int rc;

	if ((rc = het_cl_section(ld, ld->root, "", "output", &out, path)) !=
	    HET_OK || out == NULL)
		return rc;
	v = het_cl_alias(ld, out, "output", keys, path);
	if (ld->err != NULL && ld->err->code != HET_OK)
		return ld->err->code;
	if (!het_cl_is_null(v) && (rc = het_cl_str(ld, v, path,
	    &ld->cfg->output_dir)) != HET_OK)
		return rc;
	v = het_cl_get(out, "create_subdirs");
	het_cl_path(path, "output", "create_subdirs");
	if (!het_cl_is_null(v) && (rc = het_cl_bool(ld, v, path,
	    &ld->cfg->create_subdirs)) != HET_OK)
		return rc;
	v = het_cl_get(out, "timestamp_dirs");
	het_cl_path(path, "output", "timestamp_dirs");
	if (!het_cl_is_null(v) && (rc = het_cl_bool(ld, v, path,
	    &ld->cfg->timestamp_dirs)) != HET_OK)
		return rc;
	return HET_OK;
}
