/*
 * t_core_config.c: the configuration reader, validator and writer.
 *
 * Loads every file in tests/configs and checks each field against the
 * numbers written there; checks the defaults of every mode, the
 * precedence of the parameter layers, the synonyms of both reference
 * vocabularies, the warnings for unused keys (key and line), every error
 * path with its exact message, and that written files (templates and
 * plain saves) load back equal and without warnings.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_config.h"
#include "het_posterior.h"
#include "tap.h"

static char cfgdir[1024];
static char tmpdir[256];

static struct het_config *
load_file(const char *name, struct het_error *err)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s/%s", cfgdir, name);
	return het_config_load(path, err);
}

static struct het_config *
load_str(const char *yaml, struct het_error *err)
{
	het_error_clear(err);
	return het_config_load_string(yaml, strlen(yaml), "t.yaml", err);
}

/* A config that must fail with exactly this message. */
static void
fails(const char *yaml, int code, const char *msg, const char *what)
{
	struct het_config *cfg;
	struct het_error err;

	cfg = load_str(yaml, &err);
	ok(cfg == NULL && err.code == code, "%s: rejected with %s", what,
	    het_status_name(code));
	if (cfg == NULL)
		is_str(err.msg, msg, "%s: message", what);
	else
		ok(0, "%s: message (config was accepted)", what);
	het_config_free(cfg);
}

/* A warning with this key, line and message text fragment. */
static int
has_warning(const struct het_config *cfg, const char *key, int line,
    const char *frag)
{
	size_t i;

	for (i = 0; i < cfg->nwarnings; i++)
		if (strcmp(cfg->warnings[i].key, key) == 0 &&
		    cfg->warnings[i].line == line &&
		    strstr(cfg->warnings[i].msg, frag) != NULL)
			return 1;
	return 0;
}

static void
is_param(const struct het_config_param *p, double value, double lo, double hi,
    int vary, enum het_prior_kind kind, double a, double b, const char *name)
{
	is_double(p->value, value, 0, "%s value", name);
	ok(p->lo == lo && p->hi == hi, "%s bounds [%g, %g] (got [%g, %g])",
	    name, lo, hi, p->lo, p->hi);
	is_int(p->vary, vary, "%s vary", name);
	ok(p->prior.kind == kind && fabs(p->prior.a - a) <= 1e-12 *
	    fabs(a) && fabs(p->prior.b - b) <= 1e-12 * fabs(b),
	    "%s prior %s(%g, %g) (got %s(%g, %g))", name, het_prior_name(kind),
	    a, b, het_prior_name(p->prior.kind), p->prior.a, p->prior.b);
}

static void
test_het_full(void)
{
	struct het_config *cfg;
	struct het_error err;
	char *path;

	cfg = load_file("het_full.yaml", &err);
	ok(cfg != NULL, "het_full.yaml loads (%s)", cfg ? "ok" : err.msg);
	if (cfg == NULL) {
		skip(99, "het_full.yaml did not load");
		return;
	}
	is_int(cfg->mode, HET_MODE_TWO_COMPONENT, "mode two_component");
	is_int(cfg->family, HET_FAMILY_HETERODYNE, "heterodyne family");
	is_int(cfg->mode_source, HET_MODE_FROM_KEY, "mode from a key");
	is_str(cfg->mode_key, "analysis_mode", "mode key");
	is_int(cfg->mode_line, 6, "mode line");
	is_str(cfg->data_file, "runs/sample_07_results.hdf", "file_path");
	path = het_config_resolve_path(cfg, cfg->data_file, &err);
	ok(path != NULL && strstr(path, "/tests/configs/runs/sample_07_"
	    "results.hdf") != NULL, "relative data path resolves against the "
	    "config's directory (%s)", path ? path : "NULL");
	free(path);
	ok(cfg->dt_set && cfg->dt == 0.0025, "dt 0.0025");
	is_int(cfg->start_frame, 11, "start_frame");
	is_int(cfg->end_frame, 410, "end_frame");
	ok(cfg->q_set && cfg->wavevector_q == 0.00731, "wavevector_q");
	ok(cfg->nphi_angles == 3 && cfg->phi_angles[0] == -4.5 &&
	    cfg->phi_angles[1] == 30.25 && cfg->phi_angles[2] == 87.0,
	    "phi_angles [-4.5, 30.25, 87]");
	ok(cfg->gap_set && cfg->stator_rotor_gap == 1750000, "gap");
	is_int(cfg->phi_filter, 1, "phi_filtering.enabled");
	is_int(cfg->nphi_ranges, 2, "two target ranges");
	ok(cfg->phi_ranges[0].lo == -12.5 && cfg->phi_ranges[0].hi == 12.5,
	    "range 0 [-12.5, 12.5]");
	is_str(cfg->phi_ranges[0].label, "along the flow", "range 0 label");
	ok(cfg->phi_ranges[1].lo == 172 && cfg->phi_ranges[1].hi == -172 &&
	    cfg->phi_ranges[1].label == NULL, "range 1 wraps, no label");
	is_double(cfg->phi_tolerance, 2.25, 0, "tolerance");
	is_int(cfg->phi_fallback, 0, "fallback_to_all_angles");
	is_int(cfg->nphys, 14, "14 physics parameters");
	is_param(&cfg->phys[HET_P_D0_REF], 2.5e4, 200, 5e5, 1,
	    HET_PRIOR_LOGNORMAL, 9.5, 1.25, "D0_ref");
	is_param(&cfg->phys[HET_P_ALPHA_REF], 0.35, -1.5, 1.75, 0,
	    HET_PRIOR_TRUNCNORMAL, 0, 1, "alpha_ref");
	is_param(&cfg->phys[HET_P_DOFF_REF], -12.5, -1e5, 1e5, 1,
	    HET_PRIOR_NORMAL, -10, 40, "D_offset_ref (mu/sigma synonyms)");
	is_param(&cfg->phys[HET_P_D0_SAMPLE], 3.3e4, 100, 1e6, 1,
	    HET_PRIOR_UNIFORM, 0, 0, "D0_sample");
	is_param(&cfg->phys[HET_P_ALPHA_SAMPLE], -0.2, -2, 2, 1,
	    HET_PRIOR_HALFNORMAL, 0, 0.75, "alpha_sample");
	is_param(&cfg->phys[HET_P_DOFF_SAMPLE], 4.5, -1e5, 1e5, 1,
	    HET_PRIOR_TRUNCNORMAL, 0, 1e3, "D_offset_sample (shorthand)");
	is_param(&cfg->phys[HET_P_V0], 640, 1, 9000, 1,
	    HET_PRIOR_EXPONENTIAL, 0.004, 0, "v0");
	is_param(&cfg->phys[HET_P_BETA], 0, -2, 2, 1,
	    HET_PRIOR_BETA_SCALED, 2.5, 3.5, "beta");
	is_param(&cfg->phys[HET_P_V_OFFSET], -3.75, -100, 100, 1,
	    HET_PRIOR_TRUNCNORMAL, -2, 6.5, "v_offset");
	is_param(&cfg->phys[HET_P_F0], 0.42, 0, 1, 1,
	    HET_PRIOR_TRUNCNORMAL, 0.5, 0.25, "f0");
	is_param(&cfg->phys[HET_P_F1], 0.015, -10, 10, 0,
	    HET_PRIOR_TRUNCNORMAL, 0, 5, "f1");
	is_param(&cfg->phys[HET_P_F2], -12, -500, 500, 1,
	    HET_PRIOR_TRUNCNORMAL, 0, 1e3, "f2 (value from initial_parameters)");
	is_param(&cfg->phys[HET_P_F3], 0.05, 0, 0.4, 1,
	    HET_PRIOR_TRUNCNORMAL, 0, 0.5, "f3");
	is_param(&cfg->phys[HET_P_PHI0], 1.5, -8, 8, 1,
	    HET_PRIOR_TRUNCNORMAL, 0, 5, "phi0");
	ok(cfg->phys[HET_P_D0_REF].x_scale == 5000 &&
	    cfg->phys[HET_P_F1].x_scale == 0.01 &&
	    cfg->phys[HET_P_V0].x_scale == 0, "x_scale_map");
	is_param(&cfg->scaling.p[HET_S_CONTRAST], 0.12, 0.01, 0.6, 1,
	    HET_PRIOR_TRUNCNORMAL, 0.5, 0.25, "contrast");
	is_param(&cfg->scaling.p[HET_S_OFFSET], 1.02, 0.9, 1.1, 0,
	    HET_PRIOR_TRUNCNORMAL, 1.0, 0.05, "offset (CamelCase prior)");
	is_int(cfg->scaling.nlsq_mode, HET_SCALING_INDIVIDUAL,
	    "independent means individual");
	is_int(cfg->scaling.cmc_mode, HET_SCALING_AVERAGED,
	    "constant_averaged means averaged");
	is_int(cfg->scaling.fourier_order, 3, "fourier_order");
	is_int(cfg->scaling.fourier_auto_threshold, 9, "fourier_auto_threshold");
	is_int(cfg->scaling.constant_threshold, 3, "constant threshold default");
	ok(cfg->scaling.ninit_contrast == 3 &&
	    cfg->scaling.init_contrast[1] == 0.125 &&
	    cfg->scaling.ninit_offset == 3 &&
	    cfg->scaling.init_offset[2] == 1.003, "per_angle_scaling lists");
	is_int(cfg->nlsq.method, HET_NLSQ_LM, "nlsq method lm");
	is_int(cfg->nlsq.loss, HET_LOSS_CAUCHY, "loss cauchy");
	is_double(cfg->nlsq.f_scale, 0.02, 0, "f_scale");
	is_double(cfg->nlsq.ftol, 2e-9, 0, "tolerance is ftol");
	is_double(cfg->nlsq.xtol, 3e-9, 0, "xtol");
	is_double(cfg->nlsq.gtol, 4e-7, 0, "gtol");
	ok(!cfg->nlsq.x_scale_jac && cfg->nlsq.x_scale == 0.5, "x_scale 0.5");
	is_int(cfg->nlsq.max_nfev, 2500, "max_nfev");
	is_int(cfg->nlsq.max_iterations, 321, "max_iterations");
	ok(cfg->nlsq.multistart && cfg->nlsq.multistart_n == 7 &&
	    cfg->nlsq.seed == 1234, "multistart, 7 starts, seed 1234");
	is_int(cfg->cmc.sigma, HET_SIGMA_RESIDUAL, "sigma_method");
	is_str(cfg->cmc.worker_command, "srun --exclusive -n 1 hetui-worker",
	    "worker_command");
	is_int(cfg->cmc.strategy, HET_SHARD_CONTIGUOUS, "sharding_strategy");
	is_int(cfg->cmc.num_shards, 12, "num_shards");
	is_int(cfg->cmc.max_points_per_shard, 60000, "max_points_per_shard");
	is_int(cfg->cmc.min_points_per_shard, 15000, "min_points_per_shard");
	is_int(cfg->cmc.min_points_per_param, 1200, "min_points_per_param");
	ok(cfg->cmc.num_warmup == 350 && cfg->cmc.num_samples == 900 &&
	    cfg->cmc.num_chains == 3, "warmup, samples, chains");
	is_double(cfg->cmc.target_accept_prob, 0.9, 0, "target_accept synonym");
	is_int(cfg->cmc.max_tree_depth, 8, "max_tree_depth");
	ok(cfg->cmc.dense_mass == 1 && cfg->cmc.seed == 77, "dense, seed 77");
	is_int(cfg->cmc.chain_parallel, 0, "chain_method sequential");
	ok(cfg->cmc.laplace_init == 0 && cfg->cmc.psis_draws == 500,
	    "laplace_init false, psis_draws 500");
	is_int(cfg->cmc.marginalise_scaling, 1, "marginalise_scaling true");
	ok(cfg->cmc.per_shard_timeout == 5400 &&
	    cfg->cmc.heartbeat_timeout == 240, "timeouts");
	is_int(cfg->cmc.combine, HET_COMBINE_CONSENSUS, "consensus_mc");
	is_double(cfg->cmc.min_success_rate, 0.75, 0, "min_success_rate");
	is_double(cfg->cmc.max_r_hat, 1.05, 0, "r_hat_threshold synonym");
	ok(cfg->cmc.min_ess == 250 && cfg->cmc.min_bfmi == 0.25 &&
	    cfg->cmc.max_divergence_rate == 0.02, "ess, bfmi, divergences");
	is_double(cfg->cmc.nlsq_prior_width_factor, 3.5, 0,
	    "prior_width_factor synonym");
	is_int(cfg->cmc.use_reparam, 0, "use_reparam");
	is_int(cfg->cmc.coordinates, HET_COORDS_POWER_LAW, "coordinates "
	    "power_law");
	is_int(cfg->cmc.nlsq_priors, 0, "use_nlsq_informed_priors false");
	is_str(cfg->output_dir, "results/sample_07", "output_dir");
	/* Four unused keys, two of them in optimization: three warnings,
	   one per top-level section, and the detail in cfg->unused. */
	is_int(cfg->nwarnings, 3, "four unused keys in three sections, three "
	    "warnings");
	ok(has_warning(cfg, "experimental_data.cache_compression", 11,
	    "not used by hetui"), "warning names cache_compression, line 11");
	ok(has_warning(cfg, "parameters.angle.phi0.unit", 87,
	    "parameters.angle.phi0.unit: not used by hetui"),
	    "warning names phi0.unit, line 87");
	ok(has_warning(cfg, "optimization.method", 99, "optimization: 2 keys "
	    "not used by hetui: method (the subcommand chooses NLSQ or CMC), "
	    "nlsq.enable_cmaes; `hetui config --check FILE -v` lists each"),
	    "optimization's two keys in one warning at the first one's line");
	ok(cfg->nwarnings == 3 && cfg->warnings[0].line == 11 &&
	    cfg->warnings[2].line == 99, "warnings in line order");
	ok(cfg->nunused == 4 && cfg->unused[0].line == 11 &&
	    cfg->unused[1].line == 87 && cfg->unused[2].line == 99 &&
	    cfg->unused[3].line == 120 &&
	    strcmp(cfg->unused[3].key, "optimization.nlsq.enable_cmaes") == 0 &&
	    strstr(cfg->unused[3].msg, "not used by hetui") != NULL,
	    "the detail lists the four keys with their lines");
	het_config_free(cfg);
}

static void
test_het_legacy(void)
{
	struct het_config *cfg;
	struct het_error err;
	size_t i;
	int others = 0;

	cfg = load_file("het_legacy.yaml", &err);
	ok(cfg != NULL, "het_legacy.yaml loads (%s)", cfg ? "ok" : err.msg);
	if (cfg == NULL) {
		skip(24, "het_legacy.yaml did not load");
		return;
	}
	is_int(cfg->mode, HET_MODE_STATIC_REF, "mode static_ref");
	is_str(cfg->mode_key, "optimization.nlsq.analysis_mode",
	    "mode read from optimization.nlsq.analysis_mode");
	is_int(cfg->mode_line, 36, "its line");
	is_str(cfg->data_file, "/beam/2024-3/A113_results.hdf",
	    "data_folder_path + data_file_name");
	ok(cfg->dt_set && cfg->dt == 0.05, "legacy temporal.dt");
	is_int(cfg->start_frame, 100, "t_start 99 is frame 100");
	is_int(cfg->end_frame, 699, "t_start + time_length is frame 699");
	ok(cfg->q_set && cfg->wavevector_q == 0.0042, "legacy scattering q");
	is_int(cfg->gap_set, 0, "no gap");
	is_param(&cfg->phys[HET_P_D0_REF], 8000, 500, 20000, 1,
	    HET_PRIOR_TRUNCNORMAL, 1e4, 5e3, "D0_ref");
	is_int(cfg->phys[HET_P_DOFF_REF].vary, 1, "active D_offset_ref");
	is_int(cfg->phys[HET_P_ALPHA_REF].vary, 0, "grouped vary false wins "
	    "over nothing");
	ok(cfg->phys[HET_P_V0].value == 120 && cfg->phys[HET_P_V0].vary == 0,
	    "static_ref holds v0 fixed despite vary: true");
	ok(cfg->phys[HET_P_F0].value == 0.61 && cfg->phys[HET_P_F0].vary == 0,
	    "fixed_parameters");
	for (i = HET_P_D0_SAMPLE; i < HET_P_HET_COUNT; i++)
		others += cfg->phys[i].vary;
	is_int(others, 0, "nothing else varies in static_ref");
	ok(cfg->scaling.p[HET_S_CONTRAST].vary == 0 &&
	    cfg->scaling.p[HET_S_OFFSET].vary == 1,
	    "active_parameters includes offset only");
	is_double(cfg->nlsq.ftol, 1e-10, 0, "ftol beats tolerance");
	ok(cfg->nlsq.x_scale_jac && cfg->nlsq.max_nfev == 0, "jac, auto");
	is_int(cfg->scaling.nlsq_mode, HET_SCALING_FOURIER,
	    "anti_degeneracy.per_angle_mode");
	ok(cfg->cmc.num_samples == 2222 && cfg->cmc.dense_mass == 1,
	    "flat num_samples beats per_shard_mcmc; dense_mass_matrix");
	ok(cfg->cmc.strategy == HET_SHARD_ANGLE_BALANCED &&
	    cfg->cmc.num_shards == 0, "stratified is angle_balanced; auto");
	ok(cfg->cmc.combine == HET_COMBINE_AVERAGE && cfg->cmc.max_r_hat == 1.2 &&
	    cfg->cmc.min_ess == 150 && cfg->cmc.nlsq_prior_width_factor == 1.5,
	    "homodyne CMC names");
	is_int(cfg->nwarnings, 5, "five warnings");
	ok(has_warning(cfg, "metadata", 7, "whole section is ignored") &&
	    has_warning(cfg, "metadata.analysis_mode", 8, "'two_component' is "
	    "ignored; optimization.nlsq.analysis_mode (line 36)") &&
	    has_warning(cfg, "parameters.velocity.v0.vary", 28, "analysis mode "
	    "static_ref holds v0 fixed at 120") &&
	    has_warning(cfg, "optimization.nlsq.tolerance", 37,
	    "optimization.nlsq.ftol (line 38)") &&
	    has_warning(cfg, "optimization.cmc.per_shard_mcmc.num_samples", 46,
	    "optimization.cmc.num_samples (line 44)"),
	    "each warning names its key and line");
	het_config_free(cfg);
}

static void
test_hom_static(void)
{
	struct het_config *cfg;
	struct het_error err;

	cfg = load_file("hom_static.yaml", &err);
	ok(cfg != NULL, "hom_static.yaml loads (%s)", cfg ? "ok" : err.msg);
	if (cfg == NULL) {
		skip(40, "hom_static.yaml did not load");
		return;
	}
	is_int(cfg->mode, HET_MODE_HOM_STATIC, "static_isotropic is static");
	is_int(cfg->family, HET_FAMILY_HOMODYNE, "homodyne family");
	is_int(cfg->nphys, 3, "three parameters");
	is_str(cfg->data_file, "data/static/glass_042.hdf", "folder + name");
	ok(cfg->dt == 0.1 && cfg->start_frame == 1 && cfg->end_frame == -1,
	    "dt, frames (-1 = all)");
	is_double(cfg->wavevector_q, 0.0061, 0, "q");
	is_param(&cfg->phys[HOM_P_D0], 1500, 150, 50000, 1,
	    HET_PRIOR_LOGNORMAL, 7, 1.5, "D0");
	is_param(&cfg->phys[HOM_P_ALPHA], -0.8, -2, 1, 1, HET_PRIOR_NORMAL,
	    -1, 0.4, "alpha");
	is_param(&cfg->phys[HOM_P_DOFF], 2.5, -500, 500, 0,
	    HET_PRIOR_TRUNCNORMAL, 0, 250, "D_offset (prior from bounds)");
	is_param(&cfg->scaling.p[HET_S_CONTRAST], 0.5, 0, 0.5, 1,
	    HET_PRIOR_UNIFORM, 0, 0, "contrast (value 0.5 inside [0, 0.5])");
	is_param(&cfg->scaling.p[HET_S_OFFSET], 1, 0.8, 1.2, 1,
	    HET_PRIOR_TRUNCNORMAL, 1, 0.1, "offset (TruncatedNormal default)");
	ok(cfg->nlsq.ftol == 1e-9 && cfg->nlsq.loss == HET_LOSS_HUBER &&
	    cfg->nlsq.max_iterations == 150, "tolerance, loss, iterations");
	ok(cfg->nlsq.multistart == 1 && cfg->nlsq.multistart_n == 5 &&
	    cfg->nlsq.seed == 9, "multi_start block");
	ok(cfg->scaling.nlsq_mode == HET_SCALING_CONSTANT &&
	    cfg->scaling.constant_threshold == 4, "anti_degeneracy block");
	is_int(cfg->scaling.cmc_mode, HET_SCALING_INDIVIDUAL, "cmc per_angle");
	ok(cfg->cmc.per_shard_timeout == 1800 &&
	    cfg->cmc.heartbeat_timeout == 120, "flat timeouts");
	ok(cfg->cmc.strategy == HET_SHARD_RANDOM &&
	    cfg->cmc.max_points_per_shard == 0 &&
	    cfg->cmc.min_points_per_shard == 2000, "sharding block");
	ok(cfg->cmc.combine == HET_COMBINE_ROBUST && cfg->cmc.min_ess == 100 &&
	    cfg->cmc.max_r_hat == 1.15 && cfg->cmc.min_success_rate == 0.85 &&
	    cfg->cmc.max_divergence_rate == 0.05, "validation block");
	ok(cfg->cmc.dense_mass == 1 && cfg->cmc.sigma == HET_SIGMA_MAD,
	    "homodyne CMC defaults: dense mass, mad sigma");
	is_str(cfg->output_dir, "./static_results", "output.directory");
	is_int(cfg->nwarnings, 2, "two warnings");
	ok(has_warning(cfg, "parameter_space.bounds[5]", 51, "gamma_dot_t0 is "
	    "not a parameter of analysis mode static; ignored"),
	    "shear parameter in static mode is reported, line 51");
	ok(has_warning(cfg, "optimization.cmc.sharding.min_points_per_param",
	    75, "not used by hetui (the homodyne modes size shards by "
	    "min_points_per_shard alone)"), "the heterodyne-only "
	    "min_points_per_param is reported, line 75");
	is_int(cfg->cmc.min_points_per_param, 1500, "and left at its "
	    "default");
	ok(het_config_param(cfg, "gamma_dot_t0") == NULL &&
	    het_config_param(cfg, "alpha") == &cfg->phys[HOM_P_ALPHA],
	    "het_config_param follows the mode");
	het_config_free(cfg);
}

static void
test_hom_laminar(void)
{
	struct het_config *cfg;
	struct het_error err;
	char *path;

	cfg = load_file("hom_laminar.yaml", &err);
	ok(cfg != NULL, "hom_laminar.yaml loads (%s)", cfg ? "ok" : err.msg);
	if (cfg == NULL) {
		skip(22, "hom_laminar.yaml did not load");
		return;
	}
	is_int(cfg->mode, HET_MODE_HOM_LAMINAR, "laminar_flow inferred");
	is_int(cfg->mode_source, HET_MODE_INFERRED, "mode source inferred");
	ok(cfg->mode_key == NULL && cfg->mode_line == 0, "no mode key");
	like(cfg->mode_note, "laminar_flow inferred from", "note says how");
	path = het_config_resolve_path(cfg, cfg->data_file, &err);
	is_str(path, "/abs/path/couette_run3.hdf", "absolute path kept");
	free(path);
	ok(cfg->dt == 0.02 && cfg->start_frame == 5 && cfg->end_frame == 1004,
	    "dt and frames");
	ok(cfg->q_set == 0 && cfg->gap_set == 1 &&
	    cfg->stator_rotor_gap == 2.5e6, "no q, gap 2.5e6");
	is_int(cfg->nphys, 7, "seven parameters");
	is_param(&cfg->phys[HOM_P_D0], 4000, 2000, 8000, 1,
	    HET_PRIOR_TRUNCNORMAL, 5000, 1500,
	    "D0 default moved to the geometric middle");
	is_param(&cfg->phys[HOM_P_ALPHA], 0.25, -2, 2, 1,
	    HET_PRIOR_TRUNCNORMAL, 0.5, 0.5, "alpha");
	is_double(cfg->phys[HOM_P_DOFF].value, -5, 0, "D_offset");
	is_param(&cfg->phys[HOM_P_GAMMA0], 0.02, 1e-4, 0.2, 1,
	    HET_PRIOR_HALFNORMAL, 0, 0.05, "gamma_dot_0 alias");
	ok(cfg->phys[HOM_P_BETA].value == 0 && cfg->phys[HOM_P_BETA].vary == 0,
	    "fixed_parameters beats values for beta");
	is_double(cfg->phys[HOM_P_GAMMA_OFF].value, 0.001, 0,
	    "gamma_dot_offset alias");
	is_param(&cfg->phys[HOM_P_PHI0], 2, -20, 20, 1, HET_PRIOR_NORMAL, 0, 10,
	    "phi_0 alias, Normal prior from the bounds");
	ok(cfg->phys[HOM_P_GAMMA0].x_scale == 1e-4 &&
	    cfg->phys[HOM_P_PHI0].x_scale == 0.5, "x_scale_map with alias");
	ok(cfg->scaling.nlsq_mode == HET_SCALING_AUTO &&
	    cfg->scaling.fourier_order == 1, "anti_degeneracy fourier_order");
	ok(cfg->cmc.sigma == HET_SIGMA_DIAGONAL && cfg->cmc.dense_mass == 0,
	    "cmc settings");
	ok(cfg->scaling.ninit_contrast == 2 &&
	    cfg->scaling.init_contrast[1] == 0.21 &&
	    cfg->scaling.init_offset[1] == 1.001, "per-angle start values");
	is_str(cfg->output_dir, "./results", "homodyne output default");
	ok(cfg->nwarnings == 1 && has_warning(cfg,
	    "parameter_space.bounds[0].min", 28, "no value is given for D0 and "
	    "its default 1000 lies outside [2000, 8000]; it starts from 4000"),
	    "the moved default is reported at the bound's line");
	het_config_free(cfg);
}

static void
test_defaults(void)
{
	struct het_config *cfg, *back;
	struct het_error err;
	char *text, what[64];
	int m;

	for (m = 0; m < HET_MODE_COUNT; m++) {
		cfg = het_config_default((enum het_mode)m, &err);
		ok(cfg != NULL && het_config_validate(cfg, &err) == HET_OK,
		    "default %s is valid", het_mode_name((enum het_mode)m));
		text = cfg != NULL ? het_config_format(cfg, HET_CONFIG_COMMENTS,
		    &err) : NULL;
		back = text != NULL ? load_str(text, &err) : NULL;
		ok(back != NULL && back->nwarnings == 0, "template of %s loads "
		    "without warnings (%s)", het_mode_name((enum het_mode)m),
		    back != NULL ? "ok" : err.msg);
		ok(back != NULL && het_config_equal(cfg, back, what,
		    sizeof(what)), "template of %s reloads equal%s%s",
		    het_mode_name((enum het_mode)m), back != NULL &&
		    !het_config_equal(cfg, back, NULL, 0) ? ": differs at " : "",
		    back != NULL && !het_config_equal(cfg, back, NULL, 0) ?
		    what : "");
		ok(back != NULL && back->mode_source == HET_MODE_FROM_KEY &&
		    back->mode_line > 0, "template names its mode");
		free(text);
		het_config_free(back);
		het_config_free(cfg);
	}
	cfg = het_config_default(HET_MODE_STATIC_BOTH, &err);
	ok(cfg->phys[HET_P_DOFF_SAMPLE].vary == 1 &&
	    cfg->phys[HET_P_V0].vary == 0 && cfg->nphys == 14 &&
	    cfg->phys[HET_P_D0_REF].value == 1e4 &&
	    cfg->phys[HET_P_D0_REF].prior.b == 5e3,
	    "static_both: transport varies, flow fixed, table defaults");
	ok(!cfg->dt_set && cfg->start_frame == 1 && cfg->end_frame == -1 &&
	    !cfg->q_set && cfg->stator_rotor_gap == 2e6,
	    "data defaults: dt and q from the file, all frames");
	ok(cfg->nlsq.method == HET_NLSQ_TRF && cfg->nlsq.loss ==
	    HET_LOSS_SOFT_L1 && cfg->nlsq.ftol == 1e-8 && cfg->nlsq.x_scale_jac &&
	    cfg->nlsq.max_nfev == 0 && cfg->nlsq.multistart_n == 10 &&
	    cfg->nlsq.seed == 42, "nlsq defaults");
	ok(cfg->cmc.num_shards == 0 && cfg->cmc.min_points_per_shard == 10000 &&
	    cfg->cmc.num_warmup == 500 && cfg->cmc.num_samples == 1500 &&
	    cfg->cmc.num_chains == 4 && cfg->cmc.target_accept_prob == 0.95 &&
	    cfg->cmc.max_tree_depth == 10 && cfg->cmc.dense_mass == 0 &&
	    cfg->cmc.chain_parallel == 1 && cfg->cmc.laplace_init == 1 &&
	    cfg->cmc.psis_draws == 200 && cfg->cmc.marginalise_scaling == 0 &&
	    cfg->cmc.reweight_draws == 4000 &&
	    cfg->cmc.reweight_seconds == 120 &&
	    cfg->cmc.per_shard_timeout == 3600 &&
	    cfg->cmc.heartbeat_timeout == 600 &&
	    cfg->cmc.min_success_rate == 0.9 &&
	    cfg->cmc.combine == HET_COMBINE_ROBUST && cfg->cmc.max_r_hat == 1.1 &&
	    cfg->cmc.min_ess == 400 && cfg->cmc.min_bfmi == 0.3 &&
	    cfg->cmc.max_divergence_rate == 0.1 && cfg->cmc.use_reparam &&
	    cfg->cmc.coordinates == HET_COORDS_RATES &&
	    cfg->cmc.nlsq_prior_width_factor == 2.0 &&
	    cfg->cmc.nlsq_priors == 1 &&
	    cfg->cmc.sigma == HET_SIGMA_DIAGONAL &&
	    cfg->cmc.worker_command == NULL, "cmc defaults");
	is_str(cfg->output_dir, "./output", "heterodyne output default");
	het_config_free(cfg);
	cfg = het_config_default(HET_MODE_COUNT, &err);
	ok(cfg == NULL && err.code == HET_EINVAL, "mode out of range refused");
}

static void
test_round_trip(void)
{
	static const char *const files[] = { "het_full.yaml",
	    "het_legacy.yaml", "hom_static.yaml", "hom_laminar.yaml" };
	struct het_config *cfg, *back, *copy;
	struct het_error err;
	char path[1200], what[64];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		cfg = load_file(files[i], &err);
		snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
		ok(cfg != NULL && het_config_write_yaml(cfg, path, &err) ==
		    HET_OK, "%s written", files[i]);
		back = het_config_load(path, &err);
		what[0] = '\0';
		ok(back != NULL && back->nwarnings == 0, "%s reloads without "
		    "warnings (%s)", files[i], back ? "ok" : err.msg);
		ok(back != NULL && het_config_equal(cfg, back, what,
		    sizeof(what)), "%s reloads equal %s", files[i], what);
		copy = cfg != NULL ? het_config_dup(cfg, &err) : NULL;
		ok(copy != NULL && het_config_equal(cfg, copy, NULL, 0) &&
		    copy->nwarnings == cfg->nwarnings, "%s duplicates", files[i]);
		if (copy != NULL && copy->nphys > 0) {
			copy->phys[copy->nphys - 1].value += 1e-3;
			ok(!het_config_equal(cfg, copy, what, sizeof(what)),
			    "an edited copy differs (at %s)", what);
		} else
			ok(0, "an edited copy differs");
		het_config_free(copy);
		het_config_free(back);
		het_config_free(cfg);
	}
	/* A relative data path follows the file it is written into. */
	cfg = load_file("het_full.yaml", &err);
	snprintf(path, sizeof(path), "%s/moved.yaml", tmpdir);
	back = cfg != NULL && het_config_write_yaml(cfg, path, &err) ==
	    HET_OK ? het_config_load(path, &err) : NULL;
	ok(back != NULL && back->data_file[0] == '/' &&
	    strstr(back->data_file, "/tests/configs/runs/sample_07_results.hdf")
	    != NULL, "saved elsewhere, the data path is written resolved (%s)",
	    back != NULL ? back->data_file : err.msg);
	het_config_free(back);
	het_config_free(cfg);
	snprintf(path, sizeof(path), "%s/rel.yaml", tmpdir);
	cfg = load_str("experimental_data:\n  file_path: runs/a.hdf\n", &err);
	ok(cfg != NULL && het_config_write_yaml(cfg, path, &err) == HET_OK,
	    "rel.yaml written");
	het_config_free(cfg);
	cfg = het_config_load(path, &err);
	snprintf(path, sizeof(path), "%s/rel2.yaml", tmpdir);
	back = cfg != NULL && het_config_write_yaml(cfg, path, &err) ==
	    HET_OK ? het_config_load(path, &err) : NULL;
	ok(back != NULL && strcmp(back->data_file, "runs/a.hdf") == 0,
	    "saved beside its source, the data path stays relative");
	het_config_free(back);
	het_config_free(cfg);

	cfg = het_config_default(HET_MODE_TWO_COMPONENT, &err);
	ok(het_config_write_yaml(cfg, "/nonexistent-dir/x.yaml", &err) ==
	    HET_EIO, "writing into a missing directory fails with HET_EIO");
	het_config_free(cfg);
}

static void
test_precedence(void)
{
	struct het_config *cfg;
	struct het_error err;

	cfg = load_str(
	    "analysis_mode: two_component\n"
	    "initial_parameters:\n"
	    "  parameter_names: [D0_ref, v0, f3]\n"
	    "  values: [20000, 700, 0.2]\n"
	    "  active_parameters: [D0_ref, v0]\n"
	    "parameters:\n"
	    "  reference:\n"
	    "    D0_ref: {value: 30000}\n"
	    "  fraction:\n"
	    "    f0: {vary: true}\n", &err);
	ok(cfg != NULL, "precedence config loads");
	if (cfg == NULL) {
		skip(6, "no config");
		return;
	}
	is_double(cfg->phys[HET_P_D0_REF].value, 30000, 0,
	    "grouped value beats initial_parameters");
	is_double(cfg->phys[HET_P_V0].value, 700, 0,
	    "initial_parameters beats the table");
	is_double(cfg->phys[HET_P_F3].value, 0.2, 0, "f3 from values");
	is_double(cfg->phys[HET_P_ALPHA_REF].value, 0, 0, "table default");
	ok(cfg->phys[HET_P_D0_REF].vary && cfg->phys[HET_P_V0].vary &&
	    !cfg->phys[HET_P_F3].vary && !cfg->scaling.p[0].vary,
	    "active_parameters makes only the listed vary");
	is_int(cfg->phys[HET_P_F0].vary, 1, "grouped vary beats "
	    "active_parameters");
	het_config_free(cfg);

	/* a caller's override is checked by het_config_validate */
	cfg = het_config_default(HET_MODE_TWO_COMPONENT, &err);
	het_config_param(cfg, "D0_ref")->value = 50;
	ok(het_config_validate(cfg, &err) == HET_EINVAL, "override outside "
	    "the bounds is invalid");
	is_str(err.msg, "D0_ref.value: value 50 is outside the bounds [100, "
	    "1e+06] of D0_ref; choose a value inside them or widen min/max",
	    "validate names key, value and range");
	het_config_param(cfg, "D0_ref")->value = 5e4;
	cfg->cmc.heartbeat_timeout = 4000;
	ok(het_config_validate(cfg, &err) == HET_EINVAL &&
	    strcmp(err.msg, "optimization.cmc.timeout.heartbeat_timeout: 4000 s "
	    "exceeds per_shard_timeout 3600 s; a silent worker must be noticed "
	    "before its shard times out") == 0, "heartbeat above timeout (%s)",
	    err.msg);
	het_config_free(cfg);
}

static void
test_modes_inferred(void)
{
	struct het_config *cfg;
	struct het_error err;

	cfg = load_str("initial_parameters:\n  parameter_names: [D0, alpha, "
	    "D_offset]\n", &err);
	ok(cfg != NULL && cfg->mode == HET_MODE_HOM_STATIC &&
	    cfg->mode_source == HET_MODE_INFERRED, "three homodyne names: "
	    "static");
	het_config_free(cfg);
	cfg = load_str("parameters:\n  velocity:\n    v0: 50\n", &err);
	ok(cfg != NULL && cfg->mode == HET_MODE_TWO_COMPONENT &&
	    cfg->mode_source == HET_MODE_INFERRED &&
	    strstr(cfg->mode_note, "parameters.velocity") != NULL,
	    "heterodyne group: two_component");
	het_config_free(cfg);
	cfg = load_str("output:\n  output_dir: out\n", &err);
	ok(cfg != NULL && cfg->mode == HET_MODE_TWO_COMPONENT &&
	    cfg->mode_source == HET_MODE_DEFAULT, "nothing to go on: default");
	het_config_free(cfg);
	cfg = load_str("analysis_mode: static_anisotropic\n"
	    "parameter_space:\n  model: laminar_flow\n", &err);
	ok(cfg != NULL && cfg->mode == HET_MODE_HOM_STATIC && has_warning(cfg,
	    "parameter_space.model", 3, "'laminar_flow' is ignored; "
	    "analysis_mode (line 1) sets the analysis mode to static"),
	    "a disagreeing parameter_space.model is reported");
	het_config_free(cfg);
}

static void
test_scaling_rules(void)
{
	struct het_config *h, *m;
	struct het_error err;

	h = het_config_default(HET_MODE_TWO_COMPONENT, &err);
	m = het_config_default(HET_MODE_HOM_LAMINAR, &err);
	is_int(het_config_scaling_resolve(h, 7, 0), HET_SCALING_FOURIER,
	    "heterodyne auto, 7 angles: fourier");
	is_int(het_config_scaling_resolve(h, 6, 0), HET_SCALING_INDIVIDUAL,
	    "heterodyne auto, 6 angles: individual");
	h->scaling.fourier_order = 4;
	is_int(het_config_scaling_resolve(h, 8, 0), HET_SCALING_INDIVIDUAL,
	    "order 4 needs 9 angles");
	is_int(het_config_scaling_resolve(m, 3, 0), HET_SCALING_AVERAGED,
	    "homodyne auto, 3 angles: averaged");
	is_int(het_config_scaling_resolve(m, 2, 1), HET_SCALING_INDIVIDUAL,
	    "homodyne auto, 2 angles: individual, CMC follows");
	m->scaling.cmc_mode = HET_SCALING_CONSTANT;
	is_int(het_config_scaling_resolve(m, 2, 1), HET_SCALING_CONSTANT,
	    "explicit CMC mode wins");
	is_str(het_config_scaling_name(HET_SCALING_AVERAGED), "averaged",
	    "scaling names");
	is_str(het_config_sharding_name(HET_SHARD_ANGLE_BALANCED),
	    "angle_balanced", "sharding names");
	het_config_free(h);
	het_config_free(m);
}

/* per_angle_scaling: one number is the one-value list (issue 19). */
static void
test_scale_scalar(void)
{
	struct het_config *cfg, *back;
	struct het_error err;
	char *text;

	cfg = load_str("initial_parameters:\n  per_angle_scaling:\n"
	    "    contrast: 0.25\n    offset: [1.01]\n", &err);
	ok(cfg != NULL && cfg->scaling.ninit_contrast == 1 &&
	    cfg->scaling.init_contrast[0] == 0.25 &&
	    cfg->scaling.ninit_offset == 1 && cfg->scaling.init_offset[0] ==
	    1.01, "per_angle_scaling: contrast 0.25 (a number) and offset "
	    "[1.01] (a one-item list) both give one value for every angle");
	het_config_free(cfg);
	/* a number far beyond long long is written as a float (the fuzz
	   reproducer tests/fuzz/crashes/config/huge-number-to-long-long) */
	cfg = load_str("analyzer_parameters:\n  geometry:\n"
	    "    stator_rotor_gap: 1.75e120\n", &err);
	text = cfg != NULL ? het_config_format(cfg, 0, &err) : NULL;
	back = text != NULL ? load_str(text, &err) : NULL;
	ok(back != NULL && back->stator_rotor_gap == 1.75e120, "a gap of "
	    "1.75e120 is written and read back exactly");
	ok(text != NULL && strstr(text, "stator_rotor_gap: 1.75e+120") != NULL,
	    "... as a float, not a whole number");
	free(text);
	het_config_free(back);
	het_config_free(cfg);
	fails("initial_parameters:\n  per_angle_scaling:\n    contrast: "
	    "high\n", HET_EINVAL, "t.yaml:3: initial_parameters."
	    "per_angle_scaling.contrast: expected a number, found 'high'",
	    "per_angle_scaling: a word refused");
}

static void
test_errors(void)
{
	struct het_config *cfg;
	struct het_error err;

	fails("analysis_mode: diffusive\n", HET_EINVAL, "t.yaml:1: "
	    "analysis_mode: unknown analysis mode 'diffusive'; heterodyne modes "
	    "are static_ref, static_both and two_component, homodyne modes are "
	    "static (alias static_isotropic, static_anisotropic) and "
	    "laminar_flow", "unknown mode");
	fails("parameters:\n  reference:\n    D0_ref: {min: 5000, max: 100}\n",
	    HET_EINVAL, "t.yaml:3: parameters.reference.D0_ref.min: lower "
	    "bound 5000 is not below upper bound 100 of D0_ref; choose min < "
	    "max", "lower >= upper");
	fails("analysis_mode: laminar_flow\nparameter_space:\n  bounds:\n"
	    "    - {name: phi0, min: 3, max: 3}\n", HET_EINVAL, "t.yaml:4: "
	    "parameter_space.bounds[0].min: lower bound 3 is not below upper "
	    "bound 3 of phi0; choose min < max", "lower == upper (homodyne)");
	fails("parameters:\n  reference:\n    D0_ref:\n      value: 50\n",
	    HET_EINVAL, "t.yaml:4: parameters.reference.D0_ref.value: value 50 "
	    "is outside the bounds [100, 1e+06] of D0_ref; choose a value "
	    "inside them or widen min/max", "value outside bounds");
	fails("analysis_mode: static\ninitial_parameters:\n  values: [1000, 3, "
	    "0]\n", HET_EINVAL, "t.yaml:3: initial_parameters.values[1]: value "
	    "3 is outside the bounds [-2, 2] of alpha; choose a value inside "
	    "them or widen min/max", "values[] outside bounds");
	fails("parameters:\n  scaling:\n    contrast: {value: 0.5, max: 0.3}\n",
	    HET_EINVAL, "t.yaml:3: parameters.scaling.contrast.value: value 0.5 "
	    "is outside the bounds [0, 0.3] of contrast; choose a value inside "
	    "them or widen min/max", "explicit value outside narrowed bounds");
	fails("optimization:\n  cmc:\n    per_shard_mcmc:\n      "
	    "marginalise_scaling: 2\n", HET_EINVAL, "t.yaml:4: optimization."
	    "cmc.per_shard_mcmc.marginalise_scaling: expected true or false, "
	    "found '2'", "marginalise_scaling 2");
	fails("optimization:\n  cmc:\n    reparameterization:\n      "
	    "coordinates: anchors\n", HET_EINVAL, "t.yaml:4: optimization."
	    "cmc.reparameterization.coordinates: unknown value 'anchors'; "
	    "allowed: rates, power_law, physical", "coordinates anchors");
	fails("optimization:\n  cmc:\n    per_shard_mcmc:\n      psis_draws: 5\n",
	    HET_EINVAL, "t.yaml:4: optimization.cmc.per_shard_mcmc.psis_draws: "
	    "5: use 0 (no k-hat) or 20 to 100000 importance draws",
	    "psis_draws 5");
	fails("optimization:\n  cmc:\n    combination:\n      reweight_draws: "
	    "100001\n", HET_EINVAL, "t.yaml:4: optimization.cmc.combination."
	    "reweight_draws: 100001: use 0 (no reweighting) or 20 to 100000 "
	    "importance draws", "reweight_draws 100001");
	{
		struct het_error e;
		struct het_config *c = load_str("optimization:\n  cmc:\n    "
		    "combination:\n      reweight_seconds: 0\n", &e);

		ok(c == NULL && e.code == HET_EINVAL && strstr(e.msg,
		    "t.yaml:4: optimization.cmc.combination.reweight_seconds")
		    != NULL, "reweight_seconds 0 refused, naming the key and "
		    "line (%s)", e.msg);
		het_config_free(c);
	}
	{
		struct het_error e;
		struct het_config *c = load_str("optimization:\n  cmc:\n    "
		    "combination:\n      reweight_draws: 0\n", &e);

		ok(c != NULL && c->cmc.reweight_draws == 0, "reweight_draws "
		    "0 under combination: no reweighting (%s)", e.msg);
		het_config_free(c);
		c = load_str("optimization:\n  cmc:\n    reweight_draws: "
		    "250\n", &e);
		ok(c != NULL && c->cmc.reweight_draws == 250, "reweight_draws "
		    "250 directly under cmc (%s)", e.msg);
		het_config_free(c);
	}
	fails("parameters:\n  velocity:\n    v0: {prior: cauchy}\n", HET_EINVAL,
	    "t.yaml:3: parameters.velocity.v0.prior: unknown prior type "
	    "'cauchy'; allowed: uniform, normal, truncated_normal, lognormal, "
	    "halfnormal, exponential, beta_scaled", "unknown prior type");
	fails("analysis_mode: static\nparameter_space:\n  bounds:\n    - name: "
	    "D0\n      type: Gamma\n", HET_EINVAL, "t.yaml:5: "
	    "parameter_space.bounds[0].type: unknown prior type 'Gamma'; "
	    "allowed: Uniform, Normal, TruncatedNormal, LogNormal, HalfNormal, "
	    "Exponential, BetaScaled (or the snake_case names)",
	    "unknown prior type (homodyne)");
	fails("parameters:\n  fraction:\n    f1:\n      prior: normal\n"
	    "      prior_params: {loc: 0, scale: -2}\n", HET_EINVAL, "t.yaml:5: "
	    "parameters.fraction.f1.prior_params: a normal prior needs scale "
	    "(sigma) > 0, found -2", "negative prior scale");
	fails("parameters:\n  fraction:\n    f1:\n      prior: exponential\n"
	    "      prior_params: {rate: 0}\n", HET_EINVAL, "t.yaml:5: "
	    "parameters.fraction.f1.prior_params: an exponential prior needs "
	    "rate > 0, found 0", "zero exponential rate");
	fails("parameters:\n  fraction:\n    f0:\n      prior: beta_scaled\n"
	    "      prior_params: {concentration1: 2, concentration2: -1}\n",
	    HET_EINVAL, "t.yaml:5: parameters.fraction.f0.prior_params: a "
	    "beta_scaled prior needs concentration1 and concentration2 > 0, "
	    "found 2 and -1", "negative beta concentration");
	fails("analysis_mode: static\nparameter_space:\n  bounds:\n    - name: "
	    "alpha\n      prior_sigma: 0\n", HET_EINVAL, "t.yaml:5: "
	    "parameter_space.bounds[0].prior_sigma: a truncated_normal prior "
	    "needs scale (sigma) > 0, found 0", "zero prior_sigma");
	fails("parameters:\n  fraction:\n    f0:\n      prior: uniform\n"
	    "      prior_params: {low: 0.2, high: 1}\n", HET_EINVAL, "t.yaml:5: "
	    "parameters.fraction.f0.prior_params.low: 0.2 differs from the "
	    "parameter's min 0; hetui truncates every prior to [min, max], so "
	    "set min: 0.2 instead", "prior support differs from the bounds");
	fails("parameters:\n  fraction:\n    f0:\n      prior_params: {loc: "
	    "0}\n", HET_EINVAL, "t.yaml:4: parameters.fraction.f0.prior_params: "
	    "prior_params without a prior; add 'prior: truncated_normal' (or "
	    "another type) beside it", "prior_params without prior");
	fails("analyzer_parameters:\n  start_frame: 1\n  dt: fast\n",
	    HET_EINVAL, "t.yaml:3: analyzer_parameters.dt: expected a number, "
	    "found 'fast'", "string where a number is expected");
	fails("analyzer_parameters:\n  dt: [0.1]\n", HET_EINVAL, "t.yaml:2: "
	    "analyzer_parameters.dt: expected a number, found a list",
	    "list where a number is expected");
	fails("phi_filtering:\n  enabled: maybe\n", HET_EINVAL, "t.yaml:2: "
	    "phi_filtering.enabled: expected true or false, found 'maybe'",
	    "word where a boolean is expected");
	fails("analyzer_parameters: 0.1\n", HET_EINVAL, "t.yaml:1: "
	    "analyzer_parameters: expected a mapping of keys, found '0.1'",
	    "scalar where a section is expected");
	fails("optimization:\n  cmc:\n    per_shard_mcmc:\n      num_chains: "
	    "2.5\n", HET_EINVAL, "t.yaml:4: optimization.cmc.per_shard_mcmc."
	    "num_chains: expected a whole number, found '2.5'",
	    "fraction where a count is expected");
	fails("analyzer_parameters:\n  scattering:\n    phi_angles: 45\n",
	    HET_EINVAL, "t.yaml:3: analyzer_parameters.scattering.phi_angles: "
	    "expected a list ([a, b] or '- item' lines), found '45'",
	    "scalar where a list is expected");
	fails("analysis_mode: static\nanalyzer_parameters:\n  dt: [0.1\n"
	    "  start_frame: 1\n", HET_EFORMAT, "t.yaml:4: malformed YAML: did "
	    "not find expected ',' or ']' (while parsing a flow sequence, line "
	    "3); fix the indentation or quoting there", "malformed YAML");
	fails("a: 1\n  b: 2\n", HET_EFORMAT, "t.yaml:2: malformed YAML: "
	    "mapping values are not allowed in this context; fix the "
	    "indentation or quoting there", "bad indentation");
	fails("", HET_EFORMAT, "t.yaml: the file is empty; start from 'hetui "
	    "config --template MODE'", "empty text");
	fails("- a\n- b\n", HET_EFORMAT, "t.yaml:1: the top level must be a "
	    "mapping of sections (analysis_mode:, analyzer_parameters:, ...)",
	    "top level is a list");
	fails("output: {output_dir: a}\n---\noutput: {output_dir: b}\n",
	    HET_EFORMAT, "t.yaml:2: a second YAML document starts here; a "
	    "configuration is one document, remove the '---' separator",
	    "two documents");
	fails("analyzer_parameters:\n  dt: 0.1\n  dt: 0.2\n", HET_EFORMAT,
	    "t.yaml:3: key 'dt' appears twice in one mapping (first at line "
	    "2); keep one", "duplicate key");
	fails("parameters:\n  reference:\n    D0_sample: {value: 1e4}\n",
	    HET_EINVAL, "t.yaml:3: parameters.reference.D0_sample: D0_sample "
	    "belongs to group 'sample', not 'reference'; move it to "
	    "parameters.sample.D0_sample", "parameter in the wrong group");
	fails("parameters:\n  reference:\n    D1_ref: {value: 1e4}\n",
	    HET_EINVAL, "t.yaml:3: parameters.reference.D1_ref: unknown "
	    "parameter 'D1_ref' for analysis mode two_component; the names are "
	    "D0_ref, alpha_ref, D_offset_ref, D0_sample, alpha_sample, "
	    "D_offset_sample, v0, beta, v_offset, f0, f1, f2, f3, phi0, "
	    "contrast and offset", "unknown parameter name");
	fails("analysis_mode: laminar_flow\ninitial_parameters:\n  "
	    "active_parameters: [D0, gamma]\n", HET_EINVAL, "t.yaml:3: "
	    "initial_parameters.active_parameters[1]: unknown parameter 'gamma' "
	    "for analysis mode laminar_flow; the names are D0, alpha, D_offset, "
	    "gamma_dot_t0, beta, gamma_dot_t_offset, phi0, contrast and offset",
	    "unknown name in active_parameters");
	fails("analysis_mode: static\ninitial_parameters:\n  parameter_names: "
	    "[D0, alpha]\n  values: [1000]\n", HET_EINVAL, "t.yaml:4: "
	    "initial_parameters.values: 1 values for 2 parameters "
	    "(initial_parameters.parameter_names); give one value per name",
	    "values and names differ in length");
	fails("experimental_data:\n  file_format: npz\n", HET_EINVAL,
	    "t.yaml:2: experimental_data.file_format: 'npz' is not supported; "
	    "hetui reads HDF5 result files only (hdf5)", "npz data");
	fails("analyzer_parameters:\n  start_frame: 50\n  end_frame: 50\n",
	    HET_EINVAL, "t.yaml:3: analyzer_parameters.end_frame: 50 must be -1 "
	    "(the last frame) or greater than start_frame 50",
	    "empty frame window");
	fails("analyzer_parameters:\n  start_frame: 0\n", HET_EINVAL,
	    "t.yaml:2: analyzer_parameters.start_frame: 0 must be >= 1 (frames "
	    "are counted from 1)", "frame 0");
	fails("analyzer_parameters:\n  dt: -0.001\n", HET_EINVAL, "t.yaml:2: "
	    "analyzer_parameters.dt: -0.001 must be > 0", "negative dt");
	fails("scattering:\n  wavevector_q: 0\n", HET_EINVAL, "t.yaml:2: "
	    "scattering.wavevector_q: 0 must be > 0", "zero q (legacy key)");
	fails("optimization:\n  cmc:\n    per_shard_mcmc:\n      "
	    "target_accept_prob: 1.0\n", HET_EINVAL, "t.yaml:4: "
	    "optimization.cmc.per_shard_mcmc.target_accept_prob: 1 is outside "
	    "the allowed range (0, 1)", "probability of 1");
	fails("optimization:\n  cmc:\n    combination:\n      min_success_rate: "
	    "0\n", HET_EINVAL, "t.yaml:4: optimization.cmc.combination."
	    "min_success_rate: 0 is outside the allowed range (0, 1]",
	    "success rate 0");
	fails("optimization:\n  cmc:\n    num_chains: 0\n", HET_EINVAL,
	    "t.yaml:3: optimization.cmc.num_chains: 0 must be >= 1",
	    "zero chains");
	fails("optimization:\n  cmc:\n    sharding:\n      num_shards: 0\n",
	    HET_EINVAL, "t.yaml:4: optimization.cmc.sharding.num_shards: 0 must "
	    "be >= 1, or \"auto\"", "zero shards");
	fails("optimization:\n  cmc:\n    per_shard_mcmc:\n      "
	    "max_tree_depth: 20\n", HET_EINVAL, "t.yaml:4: optimization.cmc."
	    "per_shard_mcmc.max_tree_depth: 20 is outside the allowed range [1, "
	    "15]", "tree too deep");
	fails("optimization:\n  cmc:\n    timeout:\n      per_shard_timeout: "
	    "100\n      heartbeat_timeout: 200\n", HET_EINVAL, "t.yaml:5: "
	    "optimization.cmc.timeout.heartbeat_timeout: 200 s exceeds "
	    "per_shard_timeout 100 s; a silent worker must be noticed before "
	    "its shard times out", "heartbeat longer than the timeout");
	fails("optimization:\n  cmc:\n    validation:\n      max_r_hat: 1.0\n",
	    HET_EINVAL, "t.yaml:4: optimization.cmc.validation.max_r_hat: 1 "
	    "must be > 1", "R-hat gate of 1");
	fails("optimization:\n  cmc:\n    sharding:\n      "
	    "max_points_per_shard: 500\n", HET_EINVAL, "t.yaml:4: "
	    "optimization.cmc.sharding.max_points_per_shard: 500 is below "
	    "min_points_per_shard 10000; raise it or use \"auto\"",
	    "shard cap below the floor");
	fails("optimization:\n  cmc:\n    combination:\n      method: "
	    "weighted_gaussian\n", HET_EINVAL, "t.yaml:4: optimization.cmc."
	    "combination.method: unknown value 'weighted_gaussian'; allowed: "
	    "consensus_mc, robust_consensus_mc, simple_average",
	    "unknown combination method");
	fails("optimization:\n  cmc:\n    per_shard_mcmc:\n      chain_method: "
	    "threads\n", HET_EINVAL, "t.yaml:4: optimization.cmc."
	    "per_shard_mcmc.chain_method: unknown value 'threads'; allowed: "
	    "parallel, vectorized, sequential", "unknown chain_method");
	fails("optimization:\n  nlsq:\n    loss: l2\n", HET_EINVAL, "t.yaml:3: "
	    "optimization.nlsq.loss: unknown value 'l2'; allowed: linear, "
	    "soft_l1, huber, cauchy, arctan", "unknown loss");
	fails("optimization:\n  nlsq:\n    per_angle_mode: smooth\n",
	    HET_EINVAL, "t.yaml:3: optimization.nlsq.per_angle_mode: unknown "
	    "value 'smooth'; allowed: auto, individual, constant, averaged, "
	    "fourier, independent, constant_averaged", "unknown scaling mode");
	fails("optimization:\n  nlsq:\n    x_scale: wide\n", HET_EINVAL,
	    "t.yaml:3: optimization.nlsq.x_scale: expected \"jac\" or a number "
	    "> 0, found 'wide'", "bad x_scale");
	fails("optimization:\n  nlsq:\n    x_scale_map: {D0: 2}\n", HET_EINVAL,
	    "t.yaml:3: optimization.nlsq.x_scale_map.D0: 'D0' is not a "
	    "parameter of mode two_component", "x_scale_map of another family");
	fails("optimization:\n  nlsq:\n    ftol: 0\n", HET_EINVAL, "t.yaml:3: "
	    "optimization.nlsq.ftol: 0 is outside the allowed range (0, 1)",
	    "zero ftol");
	fails("optimization:\n  nlsq:\n    seed: -3\n", HET_EINVAL, "t.yaml:3: "
	    "optimization.nlsq.seed: seed -3 must be >= 0", "negative seed");
	fails("phi_filtering:\n  target_ranges:\n    - {min_angle: 5}\n",
	    HET_EINVAL, "t.yaml:3: phi_filtering.target_ranges[0]: a target "
	    "range needs both min_angle and max_angle (degrees)",
	    "half a range");
	fails("phi_filtering:\n  algorithm: nearest\n", HET_EINVAL, "t.yaml:2: "
	    "phi_filtering.algorithm: unknown value 'nearest'; allowed: "
	    "range_based", "unknown filter algorithm");
	fails("phi_filtering:\n  tolerance: 180\n", HET_EINVAL, "t.yaml:2: "
	    "phi_filtering.tolerance: 180 is outside the allowed range [0, "
	    "180)", "tolerance of half a turn");
	fails("initial_parameters:\n  per_angle_scaling:\n    offset: [1.0, "
	    "2.0]\n", HET_EINVAL, "t.yaml:3: initial_parameters."
	    "per_angle_scaling.offset: 2 is outside the allowed range [0.5, "
	    "1.5]", "per-angle start outside the bounds");
	fails("analysis_mode: static\nparameter_space:\n  bounds:\n    - min: "
	    "1\n", HET_EINVAL, "t.yaml:4: parameter_space.bounds[0]: a bounds "
	    "entry needs 'name: PARAMETER'", "bounds entry without name");
	fails("optimization:\n  cmc:\n    worker_command: \"\"\n", HET_EINVAL,
	    "t.yaml:3: optimization.cmc.worker_command: empty; remove the key "
	    "to use the installed hetui-worker", "empty worker command");

	het_error_clear(&err);
	cfg = het_config_load("/nonexistent/hetui.yaml", &err);
	ok(cfg == NULL && err.code == HET_EIO, "missing file: HET_EIO");
	is_str(err.msg, "/nonexistent/hetui.yaml: cannot open the "
	    "configuration: No such file or directory", "missing file message");
}

/*
 * Hostile sizes: each must be refused (or read) promptly; the test asserts
 * only that it completes with the right verdict, never a time.
 */
static void
test_hostile_sizes(void)
{
	struct het_config	*cfg;
	struct het_error	 err;
	size_t			 n = 100000, k, len = 0, cap;
	char			*y;

	/* a: [[[ ... ]]] nested 100,000 deep, about 200 KB */
	cap = 2 * n + 16;
	y = malloc(cap);
	len = (size_t)snprintf(y, cap, "a: ");
	memset(y + len, '[', n);
	memset(y + len + n, ']', n);
	len += 2 * n;
	y[len++] = '\n';
	y[len] = '\0';
	fails(y, HET_EFORMAT, "t.yaml:1: the YAML nests deeper than 64 levels "
	    "here; a configuration is never that deep", "100,000 nested "
	    "flow sequences");
	free(y);
	fails("a:\n b:\n  c: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	    "[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
	    "]]]]]]]]]]]]]]]\n", HET_EFORMAT, "t.yaml:3: the YAML nests "
	    "deeper than 64 levels here; a configuration is never that deep",
	    "65 levels");

	/* 100,000 keys in one mapping, two of them repeated late */
	cap = n * 16 + 64;
	y = malloc(cap);
	len = (size_t)snprintf(y, cap, "junk:\n");
	for (k = 0; k < n; k++)
		len += (size_t)snprintf(y + len, cap - len, "  k%zu: 1\n", k);
	len += (size_t)snprintf(y + len, cap - len, "  k99999: 3\n  k5: 2\n");
	fails(y, HET_EFORMAT, "t.yaml:100002: key 'k99999' appears twice in "
	    "one mapping (first at line 100001); keep one", "100,000 keys: "
	    "the first repeat in the file is named");
	/* without the repeats the same keys are read (not used: warned) */
	len -= strlen("  k99999: 3\n  k5: 2\n");
	y[len] = '\0';
	cfg = load_str(y, &err);
	ok(cfg != NULL, "100,000 distinct keys are read%s%s", cfg == NULL ?
	    ": " : "", cfg == NULL ? err.msg : "");
	het_config_free(cfg);
	free(y);

	fails("optimization:\n  nlsq:\n    multistart: true\n    "
	    "multistart_n: 1000000\n", HET_EINVAL, "t.yaml:4: optimization."
	    "nlsq.multistart_n: 1000000 is outside the allowed range [1, "
	    "100000]", "multistart_n of a million");
	cfg = load_str("optimization:\n  nlsq:\n    multistart: true\n    "
	    "multistart_n: 100000\n", &err);
	ok(cfg != NULL && cfg->nlsq.multistart_n == HET_MULTISTART_MAX,
	    "multistart_n 100000 (the cap) is read");
	het_config_free(cfg);
}

/*
 * Many unused keys in one section: one warning counting them all, naming
 * as many as fit and "and N more"; the detail keeps every key.  Unused
 * keys in every top-level section interleaved with the top-level ones.
 */
static void
test_unused_grouped(void)
{
	struct het_error err;
	struct het_config *cfg;
	size_t n = 0, i, cap = 64 * 1024;
	char *y = malloc(cap);
	const char *w;

	if (!ok(y != NULL, "buffer for 300 keys"))
		return;
	n += (size_t)snprintf(y + n, cap - n, "analysis_mode: static\n"
	    "alpha_top: 1\noptimization:\n  nlsq:\n");
	for (i = 0; i < 300; i++)
		n += (size_t)snprintf(y + n, cap - n, "    knob_%03zu: %zu\n",
		    i, i);
	n += (size_t)snprintf(y + n, cap - n, "omega_top: 2\n");
	cfg = load_str(y, &err);
	free(y);
	ok(cfg != NULL, "300 unused keys load");
	if (cfg == NULL) {
		diag("%s", err.msg);
		return;
	}
	is_int(cfg->nwarnings, 2, "two warnings: optimization, top level");
	is_int(cfg->nunused, 302, "the detail has all 302 keys");
	w = cfg->nwarnings == 2 ? cfg->warnings[1].msg : "";
	ok(strstr(w, "optimization: 300 keys not used by hetui: "
	    "nlsq.knob_000, nlsq.knob_001") != NULL && strstr(w, " more; ") !=
	    NULL && strlen(w) < HET_ERROR_MSG_MAX - 1, "one sentence counts "
	    "the 300, names the first, says how many more, and is not cut");
	ok(cfg->nwarnings == 2 && cfg->warnings[1].line == 5,
	    "... at the first key's line (5)");
	ok(cfg->nwarnings == 2 && strstr(cfg->warnings[0].msg, "2 top-level "
	    "sections and keys not used by hetui: alpha_top, omega_top;") !=
	    NULL && cfg->warnings[0].line == 2, "the two top-level keys, "
	    "apart in the file, share one warning at line 2");
	het_config_free(cfg);
}

int
main(void)
{
	const char *src = getenv("top_srcdir");
	char cmd[1200];

	plan_lazy();
	snprintf(cfgdir, sizeof(cfgdir), "%s/tests/configs",
	    src != NULL ? src : ".");
	if (tap_tmpdir(tmpdir, sizeof(tmpdir), "t_core_config") == NULL)
		return 1;
	test_het_full();
	test_het_legacy();
	test_hom_static();
	test_hom_laminar();
	test_defaults();
	test_round_trip();
	test_precedence();
	test_modes_inferred();
	test_scaling_rules();
	test_scale_scalar();
	test_errors();
	test_hostile_sizes();
	test_unused_grouped();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("could not remove %s", tmpdir);
	return exit_status();
}
