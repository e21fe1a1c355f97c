/*
 * het_config_table.c: the schema table of a configuration
 * (experimental_data, analyzer_parameters, phi_filtering, the parameter
 * blocks, optimization.nlsq, optimization.cmc, output): one entry per
 * setting, and one for the parameter blocks, which drives the reader
 * (het_cl_read_table), the template writer (het_config_write.c), the
 * validator's value checks and the editors (het_config_setting.c), so
 * that a setting is declared in one place.
 *
 * Design.  tmux's options-table.c is the model.  An entry names the
 * setting's canonical key (its provenance for the validator's messages),
 * its type and the field it fills (an offset into struct het_config),
 * its default as the template writes it (each family's where they
 * differ; het_cl_set_defaults applies them through the editors'
 * het_cl_set_text),
 * its candidate locations in precedence order (the references' synonyms:
 * a key written directly under cmc overrides the same key in a
 * sub-section, the heterodyne and homodyne spellings map onto one field),
 * the family that reads it, and where and with which comment the template
 * writes it.  The settings with a shape of their own (x_scale: "jac" or
 * a number; x_scale_map: a mapping; output_dir: the family's own
 * spelling in the template; the data file from its path or folder and
 * name; the legacy t_start/time_length; the phi ranges; the parameter
 * blocks with their priors, het_config_params.c) are typed handlers
 * named in the table.  Each entry also
 * carries the check the validator makes of its value (a range with open
 * or closed ends, a count, "auto" or 0 with a meaning); what crosses
 * fields (a cap below a floor, a heartbeat longer than the timeout)
 * stays in het_config_valid.c.  The entries are in the template's order,
 * which is also the reading and checking order.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

/* The word tables: the first word of each value is its canonical name. */
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

/* A word setting is stored through an int: its enum must be one. */
_Static_assert(sizeof(enum het_scaling_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum het_config_nlsq_method) == sizeof(int),
    "enum size");
_Static_assert(sizeof(enum het_nlsq_loss) == sizeof(int), "enum size");
_Static_assert(sizeof(enum het_shard_strategy) == sizeof(int), "enum size");
_Static_assert(sizeof(enum het_cons_method) == sizeof(int), "enum size");
_Static_assert(sizeof(enum het_config_sigma) == sizeof(int), "enum size");

const struct het_cl_section het_cl_sections[HET_CK_NSEC] = {
	[HET_CK_DATA] = { HET_CK_NSEC, "", "experimental_data",
	    "experimental_data", 0 },
	[HET_CK_AP] = { HET_CK_NSEC, "", "analyzer_parameters",
	    "analyzer_parameters", 0 },
	[HET_CK_AP_SC] = { HET_CK_AP, "analyzer_parameters", "scattering",
	    "analyzer_parameters.scattering", 1 },
	[HET_CK_AP_GE] = { HET_CK_AP, "analyzer_parameters", "geometry",
	    "analyzer_parameters.geometry", 1 },
	[HET_CK_AP_TP] = { HET_CK_AP, "analyzer_parameters", "temporal",
	    "analyzer_parameters.temporal", 1 },
	/* heterodyne's legacy top-level temporal: and scattering: */
	[HET_CK_TEMPORAL] = { HET_CK_NSEC, "", "temporal", "temporal", 0 },
	[HET_CK_SCATTERING] = { HET_CK_NSEC, "", "scattering", "scattering",
	    0 },
	[HET_CK_PHI] = { HET_CK_NSEC, "", "phi_filtering", "phi_filtering",
	    0 },
	[HET_CK_OPT] = { HET_CK_NSEC, "", "optimization", "optimization", 0 },
	[HET_CK_NLSQ] = { HET_CK_OPT, "optimization", "nlsq",
	    "optimization.nlsq", 1 },
	[HET_CK_NLSQ_MS] = { HET_CK_NLSQ, "optimization.nlsq", "multi_start",
	    "optimization.nlsq.multi_start", 2 },
	[HET_CK_NLSQ_AD] = { HET_CK_NLSQ, "optimization.nlsq",
	    "anti_degeneracy", "optimization.nlsq.anti_degeneracy", 2 },
	[HET_CK_CMC] = { HET_CK_OPT, "optimization", "cmc",
	    "optimization.cmc", 1 },
	[HET_CK_CMC_SH] = { HET_CK_CMC, "optimization.cmc", "sharding",
	    "optimization.cmc.sharding", 2 },
	[HET_CK_CMC_PS] = { HET_CK_CMC, "optimization.cmc", "per_shard_mcmc",
	    "optimization.cmc.per_shard_mcmc", 2 },
	[HET_CK_CMC_TO] = { HET_CK_CMC, "optimization.cmc", "timeout",
	    "optimization.cmc.timeout", 2 },
	[HET_CK_CMC_CO] = { HET_CK_CMC, "optimization.cmc", "combination",
	    "optimization.cmc.combination", 2 },
	[HET_CK_CMC_VA] = { HET_CK_CMC, "optimization.cmc", "validation",
	    "optimization.cmc.validation", 2 },
	[HET_CK_CMC_NL] = { HET_CK_CMC, "optimization.cmc", "nlsq",
	    "optimization.cmc.nlsq", 2 },
	[HET_CK_CMC_RE] = { HET_CK_CMC, "optimization.cmc",
	    "reparameterization", "optimization.cmc.reparameterization", 2 },
	[HET_CK_CMC_PA] = { HET_CK_CMC, "optimization.cmc", "per_angle",
	    "optimization.cmc.per_angle", 2 },
	[HET_CK_OUTPUT] = { HET_CK_NSEC, "", "output", "output", 0 },
};

#define OFF(f)		offsetof(struct het_config, f)
#define WORDS(t)	(t), HET_ARRAY_LEN(t)
#define NOW		NULL, 0
#define BOTH		HET_CK_BOTH
/* The default as the template writes it, for both families, or the
   heterodyne's and the homodyne's; NODEF: none in the table. */
#define DEF(t)		(t), NULL
#define DEF2(t, h)	(t), (h)
#define NODEF		NULL, NULL
#define HET		HET_CK_HET
#define HOM		HET_CK_HOM
#define NL		HET_CK_NLSQ
#define MS		HET_CK_NLSQ_MS
#define AD		HET_CK_NLSQ_AD
#define CM		HET_CK_CMC
#define SH		HET_CK_CMC_SH
#define PS		HET_CK_CMC_PS
#define TO		HET_CK_CMC_TO
#define CO		HET_CK_CMC_CO
#define VA		HET_CK_CMC_VA
#define CN		HET_CK_CMC_NL
#define RE		HET_CK_CMC_RE
#define PA		HET_CK_CMC_PA
#define OU		HET_CK_OUTPUT
#define ED		HET_CK_DATA
#define AP		HET_CK_AP
#define SC		HET_CK_AP_SC
#define GE		HET_CK_AP_GE
#define TP		HET_CK_AP_TP
#define LT		HET_CK_TEMPORAL
#define LS		HET_CK_SCATTERING
#define PF		HET_CK_PHI
/* The validator's checks. */
#define NOCHECK		HET_CV_NONE, 0, 0, 0, 0, NULL, 0
#define NOCHECK_SET(o)	HET_CV_NONE, 0, 0, 0, 0, NULL, (o)
#define RANGE(lo, lo_open, hi, hi_open) \
			HET_CV_RANGE, (lo), (hi), (lo_open), (hi_open), NULL, 0
#define POSITIVE	RANGE(0, 1, INFINITY, 0)
#define OPEN01		RANGE(0, 1, 1, 1)
#define COUNT(lo, hi)	HET_CV_COUNT, (lo), (hi), 0, 0, NULL, 0
#define ATLEAST1	COUNT(1, 0x7fffffffL)
#define AUTO		HET_CV_AUTO, 1, 0x7fffffffL, 0, 0, NULL, 0
#define ZERO_OR(lo, hi, what) HET_CV_ZERO_OR, (lo), (hi), 0, 0, (what), 0

const struct het_cl_key het_cl_keys[] = {
	/* experimental_data, analyzer_parameters, phi_filtering (read
	   before the parameters; value checks in het_config_valid.c) */
	{ "data_file", HET_CK_DATA_FILE, OFF(data_file), NOW, BOTH, NODEF,
	    { { ED, "file_path" } }, ED, "file_path",
	    { "HDF5 result file (APS-U or legacy 8-ID-I); relative to this "
	    "file's directory; \"\" = give it on the command line." },
	    NOCHECK },
	{ "dt", HET_CK_NUM_SET, OFF(dt), NOW, BOTH, DEF("null"),
	    { { AP, "dt" }, { TP, "dt" }, { LT, "dt" } }, AP, "dt",
	    { "Frame interval [s], > 0; null = read dt from the data file." },
	    NOCHECK_SET(OFF(dt_set)) },
	{ "start_frame", HET_CK_LONG, OFF(start_frame), NOW, BOTH, DEF("1"),
	    { { AP, "start_frame" }, { TP, "start_frame" } }, AP,
	    "start_frame", { "First frame, 1-based inclusive, >= 1." },
	    NOCHECK },
	{ "end_frame", HET_CK_LONG, OFF(end_frame), NOW, BOTH, DEF("-1"),
	    { { AP, "end_frame" }, { TP, "end_frame" } }, AP, "end_frame",
	    { "Last frame, 1-based inclusive, > start_frame; -1 = the last "
	    "frame of the data." }, NOCHECK },
	/* t_start (0-based) and time_length when no frame key is given */
	{ "legacy_frames", HET_CK_LEGACY_FRAMES, 0, NOW, BOTH, NODEF,
	    { { AP, "start_frame" }, { AP, "end_frame" },
	    { TP, "start_frame" }, { TP, "end_frame" }, { LT, "t_start" } },
	    LT, NULL, { NULL }, NOCHECK },
	{ "wavevector_q", HET_CK_NUM_SET, OFF(wavevector_q), NOW, BOTH,
	    DEF("null"),
	    { { SC, "wavevector_q" }, { LS, "wavevector_q" } }, SC,
	    "wavevector_q",
	    { "Wavevector q [1/A], > 0; null = any q ring of the file may be "
	    "chosen." }, NOCHECK_SET(OFF(q_set)) },
	{ "phi_angles", HET_CK_NUMLIST, OFF(phi_angles), NOW, BOTH, NODEF,
	    { { SC, "phi_angles" }, { LS, "phi_angles" } }, SC, "phi_angles",
	    { "Angles phi [deg] to analyse, in [-360, 360], each picking the "
	    "nearest bin; null = all (or phi_filtering)." },
	    NOCHECK_SET(OFF(nphi_angles)) },
	{ "stator_rotor_gap", HET_CK_NUM_SET, OFF(stator_rotor_gap), NOW, BOTH,
	    DEF("null"),
	    { { GE, "stator_rotor_gap" } }, GE, "stator_rotor_gap",
	    { "Stator-rotor gap [A], > 0, enters the homodyne laminar_flow "
	    "model; null = 2000000 (200 um)." }, NOCHECK_SET(OFF(gap_set)) },
	{ "phi_filtering.enabled", HET_CK_BOOL, OFF(phi_filter), NOW, BOTH,
	    DEF("false"),
	    { { PF, "enabled" } }, PF, "enabled",
	    { "true: keep only the angles inside target_ranges." }, NOCHECK },
	{ "phi_filtering.target_ranges", HET_CK_PHI_RANGES, OFF(phi_ranges),
	    NOW, BOTH, NODEF, { { PF, "target_ranges" } }, PF, "target_ranges",
	    { "Ranges [deg] with min_angle, max_angle in [-360, 360] (min > "
	    "max wraps through 180) and an optional description,",
	    "e.g. - {min_angle: -10, max_angle: 10, description: \"parallel "
	    "to flow\"}" }, NOCHECK },
	{ "phi_filtering.tolerance", HET_CK_NUM, OFF(phi_tolerance), NOW,
	    BOTH, DEF("3"), { { PF, "tolerance" } }, PF, "tolerance",
	    { "Degrees added on both sides of every range, in [0, 180)." },
	    NOCHECK },
	{ "phi_filtering.fallback", HET_CK_BOOL, OFF(phi_fallback), NOW,
	    BOTH, DEF("true"), { { PF, "fallback_to_all_angles" } }, PF,
	    "fallback_to_all_angles",
	    { "true: use every angle when no angle falls in a range." },
	    NOCHECK },
	{ "phi_filtering.algorithm", HET_CK_PHI_ALGO, 0, NOW, BOTH, NODEF,
	    { { PF, "algorithm" } }, PF, NULL, { NULL }, NOCHECK },

	/* The parameter blocks (heterodyne: parameters, scaling,
	   initial_parameters; homodyne: initial_parameters,
	   parameter_space, per_angle_scaling), with their priors: one
	   typed handler reads them (het_cl_read_params) and one writes them
	   (het_config_write.c); their checks are het_config_valid.c's. */
	{ "parameters", HET_CK_PARAMS, 0, NOW, BOTH, NODEF, { { 0, NULL } }, ED,
	    NULL, { NULL }, NOCHECK },

	/* optimization.nlsq */
	{ "nlsq.method", HET_CK_WORD, OFF(nlsq.method), WORDS(method_words),
	    BOTH, DEF("trf"), { { NL, "method" } }, NL, "method",
	    { "trf (bounded trust region) or lm (Levenberg-Marquardt)." },
	    NOCHECK },
	{ "nlsq.loss", HET_CK_WORD, OFF(nlsq.loss), WORDS(loss_words), BOTH,
	    DEF("soft_l1"),
	    { { NL, "loss" } }, NL, "loss",
	    { "Robust loss: linear, soft_l1, huber, cauchy or arctan." },
	    NOCHECK },
	{ "nlsq.f_scale", HET_CK_NUM, OFF(nlsq.f_scale), NOW, BOTH, DEF("1"),
	    { { NL, "f_scale" } }, NL, "f_scale",
	    { "Residual scale of the robust loss, > 0 (units of c2)." },
	    POSITIVE },
	{ "nlsq.ftol", HET_CK_NUM, OFF(nlsq.ftol), NOW, BOTH, DEF("1e-8"),
	    { { NL, "ftol" }, { NL, "tolerance" } }, NL, "ftol",
	    { "Stopping tolerances on cost, step and gradient, in (0, 1)." },
	    OPEN01 },
	{ "nlsq.xtol", HET_CK_NUM, OFF(nlsq.xtol), NOW, BOTH, DEF("1e-8"),
	    { { NL, "xtol" } }, NL, "xtol", { NULL },
	    OPEN01 },
	{ "nlsq.gtol", HET_CK_NUM, OFF(nlsq.gtol), NOW, BOTH, DEF("1e-8"),
	    { { NL, "gtol" } }, NL, "gtol", { NULL },
	    OPEN01 },
	{ "nlsq.x_scale", HET_CK_X_SCALE, OFF(nlsq.x_scale), NOW, BOTH,
	    DEF("jac"),
	    { { NL, "x_scale" }, { NL, "nlsq_x_scale" } }, NL, "x_scale",
	    { "Variable scaling: jac (Jacobian column norms) or a number "
	    "> 0." },
	    NOCHECK },
	{ "nlsq.x_scale_map", HET_CK_X_SCALE_MAP, 0, NOW, BOTH, NODEF,
	    { { NL, "x_scale_map" } }, NL, "x_scale_map", { NULL },
	    NOCHECK },
	{ "nlsq.max_nfev", HET_CK_LONG_AUTO, OFF(nlsq.max_nfev), NOW, BOTH,
	    DEF("auto"),
	    { { NL, "max_nfev" } }, NL, "max_nfev",
	    { "Model evaluations allowed, >= 1; auto = 100 x the number of "
	    "free parameters." },
	    AUTO },
	{ "nlsq.max_iterations", HET_CK_LONG, OFF(nlsq.max_iterations), NOW,
	    BOTH, DEF("1000"),
	    { { NL, "max_iterations" } }, NL, "max_iterations",
	    { "Iterations allowed, >= 1." },
	    ATLEAST1 },
	{ "nlsq.multistart", HET_CK_BOOL, OFF(nlsq.multistart), NOW, BOTH,
	    DEF("false"),
	    { { NL, "multistart" }, { MS, "enable" } }, NL, "multistart",
	    { "true: also start from multistart_n - 1 Latin-hypercube points "
	    "inside the bounds (>= 1 starts)." },
	    NOCHECK },
	{ "nlsq.multistart_n", HET_CK_LONG, OFF(nlsq.multistart_n), NOW, BOTH,
	    DEF("10"),
	    { { NL, "multistart_n" }, { MS, "n_starts" } }, NL,
	    "multistart_n", { NULL },
	    COUNT(1, HET_MULTISTART_MAX) },
	{ "nlsq.seed", HET_CK_SEED, OFF(nlsq.seed), NOW, BOTH, DEF("42"),
	    { { NL, "seed" }, { MS, "seed" } }, NL, "seed",
	    { "Random seed of the multistart points, >= 0." },
	    NOCHECK },
	{ "scaling.nlsq_mode", HET_CK_WORD, OFF(scaling.nlsq_mode),
	    WORDS(scaling_words), BOTH, DEF("auto"),
	    { { NL, "per_angle_mode" }, { AD, "per_angle_mode" } }, NL,
	    "per_angle_mode",
	    { "Per-angle contrast/offset: auto, individual, constant, "
	    "averaged or fourier." },
	    NOCHECK },
	{ "scaling.fourier_order", HET_CK_LONG, OFF(scaling.fourier_order),
	    NOW, BOTH, DEF("2"),
	    { { NL, "fourier_order" }, { AD, "fourier_order" } },
	    NL, "fourier_order", { "Harmonics of the fourier mode, 1..8." },
	    COUNT(1, 8) },
	/* Each family's auto rule has its own threshold; heterodyne's flat
	   constant_scaling_threshold is a fraction with another meaning
	   and stays unused. */
	{ "scaling.fourier_auto_threshold", HET_CK_LONG,
	    OFF(scaling.fourier_auto_threshold), NOW, HET, DEF("6"),
	    { { NL, "fourier_auto_threshold" },
	    { AD, "fourier_auto_threshold" } }, NL, "fourier_auto_threshold",
	    { "auto picks fourier when there are more angles than this (and "
	    ">= 1 + 2 x order), >= 1." },
	    ATLEAST1 },
	{ "scaling.constant_threshold", HET_CK_LONG,
	    OFF(scaling.constant_threshold), NOW, HOM, DEF("3"),
	    { { NL, "constant_scaling_threshold" },
	    { AD, "constant_scaling_threshold" } }, NL,
	    "constant_scaling_threshold",
	    { "auto shares one contrast and offset when there are at least "
	    "this many angles, >= 1." },
	    ATLEAST1 },

	/* optimization.cmc */
	{ "scaling.cmc_mode", HET_CK_WORD, OFF(scaling.cmc_mode),
	    WORDS(scaling_words), BOTH, DEF("auto"),
	    { { CM, "per_angle_mode" }, { PA, "per_angle_mode" } }, CM,
	    "per_angle_mode",
	    { "Scaling mode of the sampler: CMC always uses the one NLSQ used "
	    "(other values: a warning)." },
	    NOCHECK },
	{ "cmc.sigma", HET_CK_WORD, OFF(cmc.sigma), WORDS(sigma_words), BOTH,
	    DEF2("diagonal", "mad"),
	    { { CM, "sigma_method" } }, CM, "sigma_method",
	    { "Likelihood noise: diagonal (the far-lag noise estimate), "
	    "residual (RMS of the NLSQ residuals)",
	    "or mad (sampled by the reference; hetui uses the far-lag "
	    "estimate, with a warning)." },
	    NOCHECK },
	{ "cmc.worker_command", HET_CK_STRING, OFF(cmc.worker_command), NOW,
	    BOTH, NODEF, { { CM, "worker_command" } }, CM, "worker_command",
	    { "Command that runs one shard; null = the installed "
	    "hetui-worker." },
	    NOCHECK },
	{ "cmc.strategy", HET_CK_WORD, OFF(cmc.strategy), WORDS(shard_words),
	    BOTH, DEF("random"),
	    { { CM, "sharding_strategy" }, { SH, "sharding_strategy" },
	    { SH, "strategy" } }, SH, "sharding_strategy",
	    { "random, angle_balanced or contiguous." },
	    NOCHECK },
	{ "cmc.num_shards", HET_CK_LONG_AUTO, OFF(cmc.num_shards), NOW, BOTH,
	    DEF("auto"),
	    { { CM, "num_shards" }, { SH, "num_shards" } }, SH, "num_shards",
	    { "Shards >= 1, or auto." },
	    AUTO },
	{ "cmc.max_points_per_shard", HET_CK_LONG_AUTO,
	    OFF(cmc.max_points_per_shard), NOW, BOTH, DEF("auto"),
	    { { CM, "max_points_per_shard" }, { SH, "max_points_per_shard" } },
	    SH, "max_points_per_shard",
	    { "Pairs per shard: a cap >= min_points_per_shard, or auto (no "
	    "cap); a floor >= 1." },
	    AUTO },
	{ "cmc.min_points_per_shard", HET_CK_LONG,
	    OFF(cmc.min_points_per_shard), NOW, BOTH, DEF("10000"),
	    { { CM, "min_points_per_shard" }, { SH, "min_points_per_shard" } },
	    SH, "min_points_per_shard", { NULL },
	    ATLEAST1 },
	/* Only the heterodyne rule has a per-parameter bound; a homodyne
	   config's key is reported as not used. */
	{ "cmc.min_points_per_param", HET_CK_LONG,
	    OFF(cmc.min_points_per_param), NOW, HET, DEF("1500"),
	    { { CM, "min_points_per_param" }, { SH, "min_points_per_param" } },
	    SH, "min_points_per_param",
	    { "Automatic count: one shard per angle (at least 2), at most one "
	    "per 14 x min_points_per_param pairs." },
	    ATLEAST1 },
	{ "cmc.num_warmup", HET_CK_LONG, OFF(cmc.num_warmup), NOW, BOTH,
	    DEF("500"),
	    { { CM, "num_warmup" }, { PS, "num_warmup" } }, PS, "num_warmup",
	    { "NUTS per shard: warm-up and kept draws per chain, chains, all "
	    ">= 1." },
	    ATLEAST1 },
	{ "cmc.num_samples", HET_CK_LONG, OFF(cmc.num_samples), NOW, BOTH,
	    DEF("1500"),
	    { { CM, "num_samples" }, { PS, "num_samples" } }, PS,
	    "num_samples", { NULL },
	    ATLEAST1 },
	{ "cmc.num_chains", HET_CK_LONG, OFF(cmc.num_chains), NOW, BOTH,
	    DEF("4"),
	    { { CM, "num_chains" }, { PS, "num_chains" } }, PS, "num_chains",
	    { NULL },
	    ATLEAST1 },
	{ "cmc.target_accept_prob", HET_CK_NUM, OFF(cmc.target_accept_prob),
	    NOW, BOTH, DEF("0.95"),
	    { { CM, "target_accept_prob" }, { CM, "target_accept" },
	    { PS, "target_accept_prob" }, { PS, "target_accept" } }, PS,
	    "target_accept_prob",
	    { "Step-size target acceptance, in (0, 1); tree depth 1..15; "
	    "dense (true) or diagonal mass matrix." },
	    OPEN01 },
	{ "cmc.max_tree_depth", HET_CK_LONG, OFF(cmc.max_tree_depth), NOW,
	    BOTH, DEF("10"),
	    { { CM, "max_tree_depth" }, { PS, "max_tree_depth" } }, PS,
	    "max_tree_depth", { NULL },
	    COUNT(1, 15) },
	{ "cmc.dense_mass", HET_CK_BOOL, OFF(cmc.dense_mass), NOW, BOTH,
	    DEF2("false", "true"),
	    { { CM, "dense_mass" }, { PS, "dense_mass" },
	    { PS, "dense_mass_matrix" } }, PS, "dense_mass", { NULL },
	    NOCHECK },
	{ "cmc.laplace_init", HET_CK_BOOL, OFF(cmc.laplace_init), NOW, BOTH,
	    DEF("true"),
	    { { CM, "laplace_init" }, { PS, "laplace_init" } }, PS,
	    "laplace_init",
	    { "Start the chains from the Laplace approximation at the NLSQ "
	    "optimum (metric and start points; false: a unit metric and the "
	    "optimum); importance draws for its PSIS k-hat (0 none, or "
	    "20..100000)." },
	    NOCHECK },
	{ "cmc.psis_draws", HET_CK_LONG, OFF(cmc.psis_draws), NOW, BOTH,
	    DEF("200"),
	    { { CM, "psis_draws" }, { PS, "psis_draws" } }, PS, "psis_draws",
	    { NULL },
	    ZERO_OR(20, 100000, "no k-hat") },
	{ "cmc.marginalise_scaling", HET_CK_BOOL,
	    OFF(cmc.marginalise_scaling), NOW, BOTH, DEF("false"),
	    { { CM, "marginalise_scaling" }, { PS, "marginalise_scaling" } },
	    PS, "marginalise_scaling",
	    { "Integrate each angle's contrast and offset out in closed form "
	    "(individual scaling, Gaussian or uniform priors; drawn from "
	    "their conditional afterwards); false: sample them." },
	    NOCHECK },
	{ "cmc.chain_method", HET_CK_WORD, OFF(cmc.chain_parallel),
	    WORDS(chain_words), BOTH, DEF("parallel"),
	    { { CM, "chain_method" }, { PS, "chain_method" } }, PS,
	    "chain_method",
	    { "parallel: a shard's chains at once when cores are free (the "
	    "same draws); sequential: one after another." },
	    NOCHECK },
	{ "cmc.seed", HET_CK_SEED, OFF(cmc.seed), NOW, BOTH, DEF("42"),
	    { { CM, "seed" }, { PS, "seed" } }, PS, "seed",
	    { "Base random seed >= 0; chain c of shard k uses seed + 1000 k + "
	    "c." },
	    NOCHECK },
	{ "cmc.per_shard_timeout", HET_CK_NUM, OFF(cmc.per_shard_timeout),
	    NOW, BOTH, DEF("3600"), { { CM, "per_shard_timeout" },
	    { TO, "per_shard_timeout" } }, TO, "per_shard_timeout",
	    { "Seconds > 0 a shard may run, and may stay silent (<= "
	    "per_shard_timeout), before it is stopped." },
	    POSITIVE },
	{ "cmc.heartbeat_timeout", HET_CK_NUM, OFF(cmc.heartbeat_timeout),
	    NOW, BOTH, DEF("600"), { { CM, "heartbeat_timeout" },
	    { TO, "heartbeat_timeout" } }, TO, "heartbeat_timeout",
	    { NULL },
	    POSITIVE },
	{ "cmc.combine", HET_CK_WORD, OFF(cmc.combine), WORDS(combine_words),
	    BOTH, DEF("robust_consensus_mc"),
	    { { CM, "combination_method" }, { CO, "combination_method" },
	    { CO, "method" } }, CO, "combination_method",
	    { "consensus_mc, robust_consensus_mc or simple_average." },
	    NOCHECK },
	{ "cmc.reweight_draws", HET_CK_LONG, OFF(cmc.reweight_draws), NOW,
	    BOTH, DEF("4000"),
	    { { CM, "reweight_draws" }, { CO, "reweight_draws" } }, CO,
	    "reweight_draws",
	    { "Importance draws weighing a sharded run's consensus against all "
	    "the data (PSIS k-hat, reweighted means and sds); 0: none, or "
	    "20..100000." },
	    ZERO_OR(20, 100000, "no reweighting") },
	{ "cmc.reweight_seconds", HET_CK_NUM, OFF(cmc.reweight_seconds), NOW,
	    BOTH, DEF("120"),
	    { { CM, "reweight_seconds" }, { CO, "reweight_seconds" } },
	    CO, "reweight_seconds",
	    { "Seconds > 0 the check may spend on passes over all the data "
	    "(fewer draws when they are slow)." },
	    POSITIVE },
	{ "cmc.min_success_rate", HET_CK_NUM, OFF(cmc.min_success_rate), NOW,
	    BOTH, DEF("0.9"),
	    { { CM, "min_success_rate" }, { CO, "min_success_rate" },
	    { VA, "min_success_rate" } }, CO, "min_success_rate",
	    { "Fraction of shards that must succeed, in (0, 1]." },
	    RANGE(0, 1, 1, 0) },
	{ "cmc.max_r_hat", HET_CK_NUM, OFF(cmc.max_r_hat), NOW, BOTH,
	    DEF("1.1"),
	    { { CM, "max_r_hat" }, { VA, "max_r_hat" },
	    { VA, "r_hat_threshold" }, { VA, "max_per_shard_rhat" } }, VA,
	    "max_r_hat",
	    { "Gates: split R-hat below max_r_hat (> 1), bulk ESS above "
	    "min_ess (> 0), BFMI above min_bfmi (>= 0),",
	    "divergent transitions at most max_divergence_rate (in [0, "
	    "1])." },
	    RANGE(1, 1, INFINITY, 0) },
	{ "cmc.min_ess", HET_CK_NUM, OFF(cmc.min_ess), NOW, BOTH, DEF("400"),
	    { { CM, "min_ess" }, { VA, "min_ess" },
	    { VA, "min_per_shard_ess" } },
	    VA, "min_ess", { NULL },
	    POSITIVE },
	{ "cmc.min_bfmi", HET_CK_NUM, OFF(cmc.min_bfmi), NOW, BOTH, DEF("0.3"),
	    { { CM, "min_bfmi" }, { VA, "min_bfmi" } }, VA, "min_bfmi",
	    { NULL },
	    RANGE(0, 0, INFINITY, 0) },
	{ "cmc.max_divergence_rate", HET_CK_NUM, OFF(cmc.max_divergence_rate),
	    NOW, BOTH, DEF("0.1"), { { CM, "max_divergence_rate" },
	    { VA, "max_divergence_rate" } }, VA, "max_divergence_rate",
	    { NULL },
	    RANGE(0, 0, 1, 0) },
	{ "cmc.nlsq_priors", HET_CK_BOOL, OFF(cmc.nlsq_priors), NOW, BOTH,
	    DEF("true"),
	    { { CM, "use_nlsq_informed_priors" },
	    { CN, "use_nlsq_informed_priors" },
	    { VA, "use_nlsq_informed_priors" } }, CN,
	    "use_nlsq_informed_priors",
	    { "true: every free parameter's prior is a truncated normal "
	    "centred on the NLSQ value, nlsq_prior_width_factor",
	    "NLSQ standard errors wide (> 0); false: the priors given under "
	    "parameters." },
	    NOCHECK },
	{ "cmc.nlsq_prior_width_factor", HET_CK_NUM,
	    OFF(cmc.nlsq_prior_width_factor), NOW, BOTH, DEF("2"),
	    { { CM, "nlsq_prior_width_factor" },
	    { CN, "nlsq_prior_width_factor" }, { CN, "prior_width_factor" },
	    { VA, "nlsq_prior_width_factor" } }, CN, "nlsq_prior_width_factor",
	    { NULL },
	    POSITIVE },
	{ "cmc.use_reparam", HET_CK_BOOL, OFF(cmc.use_reparam), NOW, BOTH,
	    DEF("true"),
	    { { CM, "use_reparam" }, { RE, "use_reparam" } }, RE,
	    "use_reparam",
	    { "true: sample the power laws in the coordinates below; false: "
	    "every parameter through its log or logit." },
	    NOCHECK },
	{ "cmc.coordinates", HET_CK_WORD, OFF(cmc.coordinates),
	    WORDS(coord_words), BOTH, DEF("rates"),
	    { { CM, "coordinates" }, { RE, "coordinates" } }, RE,
	    "coordinates",
	    { "rates: each power law with a varying offset as its rate at "
	    "t_ref (or at three anchor times when its exponent is clear of "
	    "0); power_law: (ln A(t_ref), exponent) only." },
	    NOCHECK },

	/* output */
	{ "output_dir", HET_CK_OUTPUT_DIR, OFF(output_dir), NOW, BOTH,
	    DEF2("./output", "./results"),
	    { { OU, "output_dir" }, { OU, "directory" } }, OU, "output_dir",
	    { "Directory results are written to." }, NOCHECK },
	{ "output.create_subdirs", HET_CK_BOOL, OFF(create_subdirs), NOW,
	    BOTH, DEF("true"),
	    { { OU, "create_subdirs" } }, OU, "create_subdirs",
	    { "Each run in its own folder OUTPUT_DIR/<data file stem>/"
	    "<fit|sample>-<UTC time>/; both false: straight into "
	    "OUTPUT_DIR." }, NOCHECK },
	{ "output.timestamp_dirs", HET_CK_BOOL, OFF(timestamp_dirs), NOW,
	    BOTH, DEF("true"),
	    { { OU, "timestamp_dirs" } }, OU, "timestamp_dirs",
	    { NULL }, NOCHECK },
};

const size_t het_cl_nkeys = HET_ARRAY_LEN(het_cl_keys);

const char *
het_cl_word_name(const struct het_cl_key *k, int value)
{
	size_t i;

	for (i = 0; i < k->nwords; i++)
		if (k->words[i].value == value)
			return k->words[i].name;
	return "unknown";
}

const char *
het_cl_canon_word(const char *canon, int value)
{
	size_t i;

	for (i = 0; i < het_cl_nkeys; i++)
		if (strcmp(het_cl_keys[i].canon, canon) == 0)
			return het_cl_word_name(&het_cl_keys[i], value);
	return "unknown";
}

int
het_cl_key_for(const struct het_cl_key *k, enum het_family family)
{
	return (k->family & (family == HET_FAMILY_HETERODYNE ? HET_CK_HET :
	    HET_CK_HOM)) != 0;
}

/* The seed: >= 0, named by its provenance when negative. */
static int
read_seed(struct cl_load *ld, const struct het_cl_key *k,
    const struct cl_cand *c, size_t n, unsigned long *out)
{
	const struct cl_prov *pv;
	long seed = -1;
	int rc;

	if ((rc = het_cl_pick_long(ld, c, n, k->canon, 0, &seed)) != HET_OK)
		return rc;
	if ((pv = het_cl_prov_find(ld, k->canon)) == NULL)
		return HET_OK;
	if (seed < 0)
		return het_cl_err(ld, HET_EINVAL, pv->line, pv->path,
		    "seed %ld must be >= 0", seed);
	*out = (unsigned long)seed;
	return HET_OK;
}

/* A number that records that it was given (dt, q, the gap). */
static int
read_num_set(struct cl_load *ld, const struct het_cl_key *k,
    const struct cl_cand *c, size_t n)
{
	double x = 0.0;
	int rc;

	if ((rc = het_cl_pick_num(ld, c, n, k->canon, &x)) != HET_OK)
		return rc;
	if (het_cl_prov_find(ld, k->canon) != NULL) {
		*(double *)((char *)ld->cfg + k->off) = x;
		*(int *)((char *)ld->cfg + k->set_off) = 1;
	}
	return HET_OK;
}

/* A list of numbers with its count (phi_angles). */
static int
read_numlist(struct cl_load *ld, const struct het_cl_key *k,
    const struct cl_cand *c, size_t n)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	v = het_cl_pick(ld, c, n, path, &rc);
	if (rc != HET_OK || v == NULL)
		return rc;
	if ((rc = het_cl_numlist(ld, v, path, (double **)((char *)ld->cfg +
	    k->off), (size_t *)((char *)ld->cfg + k->set_off))) != HET_OK)
		return rc;
	return het_cl_prov_set(ld, k->canon, path, v->line);
}

/* One setting from its candidates (sec: the resolved section nodes). */
static int
read_key(struct cl_load *ld, const struct het_cl_key *k,
    struct het_ynode *const *sec)
{
	struct cl_cand c[HET_CK_MAXCAND];
	char *field = (char *)ld->cfg + k->off;
	size_t n;

	for (n = 0; n < HET_CK_MAXCAND && k->cand[n].key != NULL; n++) {
		c[n].map = sec[k->cand[n].sec];
		c[n].prefix = het_cl_sections[k->cand[n].sec].path;
		c[n].key = k->cand[n].key;
	}
	switch (k->type) {
	case HET_CK_NUM:
		return het_cl_pick_num(ld, c, n, k->canon, (double *)field);
	case HET_CK_LONG:
	case HET_CK_LONG_AUTO:
		return het_cl_pick_long(ld, c, n, k->canon,
		    k->type == HET_CK_LONG_AUTO, (long *)field);
	case HET_CK_BOOL:
		return het_cl_pick_bool(ld, c, n, (int *)field);
	case HET_CK_WORD:
		return het_cl_pick_word(ld, c, n, k->words, k->nwords,
		    (int *)field);
	case HET_CK_SEED:
		return read_seed(ld, k, c, n, (unsigned long *)field);
	case HET_CK_STRING:
		return het_cl_read_string(ld, k, c, n, (char **)field);
	case HET_CK_X_SCALE:
		return het_cl_read_x_scale(ld, c, n);
	case HET_CK_X_SCALE_MAP:
		return het_cl_read_x_scale_map(ld, &c[0]);
	case HET_CK_OUTPUT_DIR:
		return het_cl_read_output_dir(ld, c, n);
	case HET_CK_NUM_SET:
		return read_num_set(ld, k, c, n);
	case HET_CK_NUMLIST:
		return read_numlist(ld, k, c, n);
	case HET_CK_DATA_FILE:
		return het_cl_read_data_file(ld, &c[0]);
	case HET_CK_LEGACY_FRAMES:
		return het_cl_read_legacy_frames(ld, c);
	case HET_CK_PHI_ALGO:
		return het_cl_read_phi_algo(ld, &c[0]);
	case HET_CK_PHI_RANGES:
		return het_cl_read_phi_ranges(ld, &c[0]);
	case HET_CK_PARAMS:
		return het_cl_read_params(ld);
	}
	return het_error_set(ld->err, HET_EINTERNAL, "%s: no reader for "
	    "setting %s", ld->name, k->canon);
}

int
het_cl_section_root(int s)
{
	while (het_cl_sections[s].parent < HET_CK_NSEC)
		s = het_cl_sections[s].parent;
	return s;
}

/* The group of a section: that of its top-level section. */
static int
sec_group(int s)
{
	return het_cl_section_root(s) < HET_CK_OPT ? HET_CK_GROUP_DATA :
	    HET_CK_GROUP_OPT;
}

int
het_cl_key_group(const struct het_cl_key *k)
{
	return k->type == HET_CK_PARAMS ? HET_CK_GROUP_PARAMS :
	    sec_group(k->tsec);
}

/* The sections of one group into sec[], a parent before its children. */
static int
find_sections(struct cl_load *ld, int group, struct het_ynode **sec)
{
	char path[CL_PATH_MAX];
	size_t s;
	int rc;

	for (s = 0; s < HET_CK_NSEC; s++)
		if (sec_group((int)s) == group && (rc = het_cl_section(ld,
		    sec[het_cl_sections[s].parent],
		    het_cl_sections[s].parent_path, het_cl_sections[s].key,
		    &sec[s], path)) != HET_OK)
			return rc;
	return HET_OK;
}

int
het_cl_read_table(struct cl_load *ld)
{
	struct het_ynode *sec[HET_CK_NSEC + 1];
	size_t i;
	int rc, group = -1, g;

	memset(sec, 0, sizeof sec);
	sec[HET_CK_NSEC] = ld->root;
	for (i = 0; i < het_cl_nkeys; i++) {
		if (!het_cl_key_for(&het_cl_keys[i], ld->cfg->family))
			continue;
		if ((g = het_cl_key_group(&het_cl_keys[i])) != group &&
		    (rc = find_sections(ld, g, sec)) != HET_OK)
			return rc;
		group = g;
		if ((rc = read_key(ld, &het_cl_keys[i], sec)) != HET_OK)
			return rc;
	}
	return HET_OK;
}
