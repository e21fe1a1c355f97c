/*
 * het_config_bridge.h: the one place where the configuration meets the
 * numerics.  The solver (het_nlsq.h), the sharding (het_shard.h), the
 * consensus (het_consensus.h) and the posterior (het_posterior.h) take
 * their own option structs and know nothing of the YAML schema; these
 * functions map a het_config (or a section of it) onto them.  Callers
 * that start from a configuration (the engine's fit driver and sampling
 * pipeline, the worker, tests) include this header.  Thread: any; no
 * globals.
 */
#ifndef HET_CONFIG_BRIDGE_H
#define HET_CONFIG_BRIDGE_H

#include "het_config.h"
#include "het_consensus.h"
#include "het_error.h"
#include "het_model.h"
#include "het_nlsq.h"
#include "het_posterior.h"
#include "het_resid.h"
#include "het_shard.h"

/*
 * het_nlsq_params_from_config: the tunables of an optimization.nlsq
 * section (loss, f_scale, tolerances, x_scale, max_nfev,
 * max_iterations).  par->x_scale is set to NULL.
 */
void het_nlsq_params_from_config(struct het_nlsq_params *par,
    const struct het_config_nlsq *cfg);

/*
 * het_shard_opts_from_cmc: fill *o from the optimization.cmc section
 * for the analysis mode (which picks the automatic rule).
 */
void het_shard_opts_from_cmc(const struct het_config_cmc *cmc,
    enum het_mode mode, struct het_shard_opts *o);

/* het_cons_gates_from_cmc: the four thresholds of optimization.cmc. */
void het_cons_gates_from_cmc(const struct het_config_cmc *cmc,
    struct het_cons_gates *g);

/*
 * het_post_priors_from_config: one prior per entry of x of the problem r
 * (p = het_resid_nparams(r) entries into out).
 *   cfg      physics parameters: cfg->phys[i] (kind, a, b, lo, hi);
 *            per-angle contrast and offset (individual, averaged
 *            scaling): cfg->scaling.p[contrast or offset]; Fourier
 *            coefficients: uniform on het_scaling_param_bounds.
 *   nlsq_x, nlsq_sd  NULL, or p NLSQ values and standard errors (the
 *            order of x): then, when cfg->cmc.nlsq_priors is set (config
 *            use_nlsq_informed_priors, the default), every prior is the
 *            NLSQ-informed default of het_post_prior_nlsq with
 *            cfg->cmc.nlsq_prior_width_factor, on the bounds above.
 * Returns HET_OK, or HET_EINVAL when cfg's mode has another physics
 * length than the problem (the message says both).  The priors are not
 * validated here (het_posterior_alloc does).  Thread: any.
 */
int het_post_priors_from_config(const struct het_config *cfg,
    const struct het_resid *r, const double *nlsq_x, const double *nlsq_sd,
    struct het_post_prior *out, struct het_error *err);

#endif /* HET_CONFIG_BRIDGE_H */
