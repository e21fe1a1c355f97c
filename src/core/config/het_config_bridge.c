#include "config.h"

/*
 * het_config_bridge.c: configuration sections mapped onto the numerics'
 * option structs (see het_config_bridge.h).
 */

#include <string.h>

#include "het_config_bridge.h"
#include "het_scaling.h"

void
het_nlsq_params_from_config(struct het_nlsq_params *par,
    const struct het_config_nlsq *cfg)
{
	het_nlsq_default_params(par);
	par->loss = cfg->loss;
	par->f_scale = cfg->f_scale;
	par->ftol = cfg->ftol;
	par->xtol = cfg->xtol;
	par->gtol = cfg->gtol;
	par->x_scale_jac = cfg->x_scale_jac;
	par->max_nfev = cfg->max_nfev;
	par->max_iter = cfg->max_iterations;
}

void
het_shard_opts_from_cmc(const struct het_config_cmc *cmc,
    enum het_mode mode, struct het_shard_opts *o)
{
	memset(o, 0, sizeof *o);
	o->strategy = cmc->strategy;
	o->num_shards = cmc->num_shards;
	o->max_points_per_shard = cmc->max_points_per_shard;
	o->min_points_per_shard = cmc->min_points_per_shard;
	o->min_points_per_param = cmc->min_points_per_param;
	o->heterodyne = mode != HET_MODE_HOM_STATIC &&
	    mode != HET_MODE_HOM_LAMINAR;
	o->flow = mode != HET_MODE_HOM_STATIC;
	o->iterations = cmc->num_warmup + cmc->num_samples;
	o->seed = cmc->seed;
}

void
het_cons_gates_from_cmc(const struct het_config_cmc *cmc,
    struct het_cons_gates *g)
{
	g->max_r_hat = cmc->max_r_hat;
	g->min_ess = cmc->min_ess;
	g->min_bfmi = cmc->min_bfmi;
	g->max_divergence_rate = cmc->max_divergence_rate;
}

/* The prior and bounds of a configured parameter. */
static void
bridge_prior(const struct het_config_param *cp, struct het_post_prior *o)
{
	o->kind = cp->prior.kind;
	o->a = cp->prior.a;
	o->b = cp->prior.b;
	o->lo = cp->lo;
	o->hi = cp->hi;
}

int
het_post_priors_from_config(const struct het_config *cfg,
    const struct het_resid *r, const double *nlsq_x, const double *nlsq_sd,
    struct het_post_prior *out, struct het_error *err)
{
	const struct het_scaling	*sc = het_resid_scaling(r);
	enum het_scaling_mode		 mode = het_scaling_mode_of(sc);
	size_t				 i, k, p;
	long				 col;

	p = het_resid_nparams(r);
	for (i = 0, k = 0; i < HET_MAX_PHYS; i++)
		if (het_resid_phys_col(r, i) >= 0)
			k = i + 1;
	if (k > cfg->nphys)
		return het_error_set(err, HET_EINVAL, "the configuration's "
		    "mode %s has %zu physics parameters but the problem "
		    "varies parameter %zu; build both from the same mode",
		    het_mode_name(cfg->mode), cfg->nphys, k - 1);
	for (i = 0; i < cfg->nphys; i++) {
		if ((col = het_resid_phys_col(r, i)) < 0)
			continue;
		bridge_prior(&cfg->phys[i], &out[col]);
	}
	for (k = 0; k < het_scaling_nparams(sc); k++) {
		if ((col = het_resid_scal_col(r, k)) < 0)
			continue;
		if (mode == HET_SCALING_INDIVIDUAL ||
		    mode == HET_SCALING_AVERAGED) {
			bridge_prior(&cfg->scaling.p[strncmp(
			    het_scaling_param_name(sc, k), "contrast", 8) == 0 ?
			    HET_S_CONTRAST : HET_S_OFFSET], &out[col]);
		} else {
			out[col].kind = HET_PRIOR_UNIFORM;
			out[col].a = out[col].b = 0;
			het_scaling_param_bounds(sc, k, &out[col].lo,
			    &out[col].hi);
		}
	}
	if (cfg->cmc.nlsq_priors && nlsq_x != NULL && nlsq_sd != NULL)
		for (k = 0; k < p; k++)
			het_post_prior_nlsq(nlsq_x[k], nlsq_sd[k], out[k].lo,
			    out[k].hi, cfg->cmc.nlsq_prior_width_factor,
			    &out[k]);
	return HET_OK;
}
