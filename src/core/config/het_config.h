/*
 * het_config.h: analysis configurations: reading the heterodyne and
 * homodyne YAML schemas, validating them, building defaults and writing
 * them back.
 *
 * Module core/config (the opening comment of this folder): analysis
 * configurations: the schema table (het_config_table), the YAML reader
 * (het_config_yaml, _read, _opt, _params, _get), the validator, the
 * template writer, the unused-keys report, the settings editor of the
 * workstation (het_config_setting) and the bridge from a configuration
 * to the numerics' option structs (het_config_bridge, the only place the
 * two meet).
 *
 * A configuration says which model runs (analysis_mode), which data it
 * sees (file, frame window, q, angles), where every physics parameter
 * starts, how far it may move and which prior it has, how the per-angle
 * contrast and offset are handled, and how NLSQ and Consensus Monte Carlo
 * are tuned.  hetui reads both reference vocabularies (imewei/heterodyne
 * config_version 2.0.x and imewei/homodyne 2.x, see
 * ../shared/docs/heterodyne-spec.md §4 and homodyne-spec.md §1, §7, §8)
 * and maps their synonyms onto the one struct below.  Unlike the
 * references it honours analysis_mode, and it reports every key it does
 * not use as a warning with its line, and every invalid value as an
 * error naming key, line, value and the allowed range.  Nothing is
 * clamped silently.
 *
 * Parameter precedence, lowest first: the parameter table (het_params.h)
 * -> initial_parameters (parameter_names/values, active_parameters,
 * fixed_parameters, per_angle_scaling) -> parameters.<group>.<name>
 * (heterodyne) or parameter_space.bounds (homodyne) -> whatever the
 * caller changes afterwards (command-line overrides, TUI edits), checked
 * again with het_config_validate().
 *
 * The core never prints: warnings are returned in the config object, and
 * the CLI or TUI shows them.  Every function may be called from any
 * thread; a config object belongs to one thread at a time.
 */
#ifndef HET_CONFIG_H
#define HET_CONFIG_H

#include <stddef.h>

#include "het_consensus.h"
#include "het_error.h"
#include "het_nlsq.h"
#include "het_params.h"
#include "het_scaling.h"
#include "het_shard.h"

/*
 * The per-angle scaling modes (individual, constant, averaged, fourier,
 * and the configuration-only auto) are enum het_scaling_mode of
 * het_scaling.h, shared with the scaling layer.
 */

enum het_config_nlsq_method {
	HET_NLSQ_TRF = 0,	/* bounded trust region (reference default) */
	HET_NLSQ_LM,		/* Levenberg-Marquardt */
	HET_NLSQ_METHOD_COUNT
};

/* Where the likelihood noise sigma of CMC comes from. */
enum het_config_sigma {
	HET_SIGMA_DIAGONAL = 0,	/* heterodyne reference: scatter of the
				   corrected diagonal; hetui: the far-lag
				   noise estimate */
	HET_SIGMA_MAD,		/* homodyne reference: sampled, HalfNormal
				   scaled by 1.4826 MAD of the shard's c2;
				   hetui: the far-lag estimate, warned */
	HET_SIGMA_RESIDUAL,	/* RMS of the NLSQ residuals (needs a fit) */
	HET_SIGMA_COUNT
};

/* How cfg->mode was decided. */
enum het_config_mode_source {
	HET_MODE_FROM_KEY = 0,	/* an analysis_mode key (mode_key, line) */
	HET_MODE_INFERRED,	/* from the parameter names or sections */
	HET_MODE_DEFAULT	/* nothing to go on: two_component, or the
				   mode given to het_config_default() */
};

/*
 * One parameter: where it starts, its box, whether it varies, its prior.
 * Values are in the unit of the parameter table (het_params.h).
 */
struct het_config_param {
	double		 value;	/* start or fixed value, lo <= value <= hi */
	double		 lo, hi;	/* bounds, lo < hi */
	int		 vary;	/* 1: fitted and sampled, 0: held at value */
	struct het_prior prior;	/* CMC prior; uniform, truncated normal
				   and scaled beta live on [lo, hi] */
	double		 x_scale; /* NLSQ scale of this variable from
				   x_scale_map, 0 = use nlsq.x_scale */
};

/* A phi_filtering target range in degrees (lo > hi wraps through 180). */
struct het_config_phi_range {
	double	 lo, hi;	/* min_angle, max_angle */
	char	*label;		/* description, or NULL */
};

/* optimization.nlsq; the number after ';' is the default. */
/*
 * The most multistart starts (nlsq.multistart_n, and hetui fit
 * --multistart).  The starts run concurrently and each keeps its own
 * solver state and result (parameters, covariance, statistics): about
 * 46 kB per start for a 14-parameter heterodyne fit, so the cap alone is
 * about 4.6 GB; a larger value is refused rather than left to the
 * out-of-memory killer.
 */
#define HET_MULTISTART_MAX	100000

struct het_config_nlsq {
	enum het_config_nlsq_method method;	/* trf */
	enum het_nlsq_loss loss;		/* soft_l1 */
	double	f_scale;	/* > 0, residual scale of the loss; 1 */
	double	ftol;		/* in (0, 1), relative cost change; 1e-8 */
	double	xtol;		/* in (0, 1), relative step; 1e-8 */
	double	gtol;		/* in (0, 1), scaled gradient; 1e-8 */
	int	x_scale_jac;	/* 1: scale variables by Jacobian column
				   norms ("jac"); 0: use x_scale; 1 */
	double	x_scale;	/* > 0 when x_scale_jac is 0; 1 */
	long	max_nfev;	/* >= 1, or 0 = "auto" (100 x free); 0 */
	long	max_iterations;	/* >= 1; 1000 */
	int	multistart;	/* 1: Latin-hypercube restarts; 0 */
	long	multistart_n;	/* 1 to HET_MULTISTART_MAX starts, the
				   first is the configured one; 10 */
	unsigned long seed;	/* multistart random seed; 42 */
};

/* optimization.cmc; the number after ';' is the default. */
struct het_config_cmc {
	long	num_shards;	/* >= 1, or 0 = "auto"; 0 */
	long	max_points_per_shard; /* >= min_points_per_shard, or 0 =
				   "auto" (no cap); 0 */
	long	min_points_per_shard; /* >= 1 pairs; 10000 */
	long	min_points_per_param; /* >= 1 pairs per parameter in the
				   heterodyne modes' automatic count (14
				   parameters); 1500.  Homodyne configs do
				   not read it. */
	enum het_shard_strategy strategy;	/* random */
	long	num_warmup;	/* >= 1 per chain; 500 */
	long	num_samples;	/* >= 1 kept draws per chain; 1500 */
	long	num_chains;	/* >= 1 per shard; 4 */
	double	target_accept_prob; /* in (0, 1); 0.95 (hetui; the
				   references 0.85) */
	long	max_tree_depth;	/* 1..15; 10 */
	int	dense_mass;	/* 1: dense mass matrix; heterodyne 0,
				   homodyne 1 */
	int	laplace_init;	/* 1: chains start from the Laplace
				   approximation at the NLSQ optimum
				   (metric and start points); 1 */
	int	marginalise_scaling; /* 1: per-angle contrast and offset
				   integrated out in closed form when
				   the shard allows it; 0 (measured:
				   no gain yet, docs/PERFORMANCE.md) */
	long	psis_draws;	/* 0 or 20..100000 importance draws
				   for its PSIS k-hat; 200 */
	long	reweight_draws;	/* 0 or 20..100000 importance draws
				   of a sharded run's consensus against
				   all the data; 4000 */
	double	reweight_seconds; /* > 0: fewer draws when they would
				   take longer; 120 */
	int	chain_parallel;	/* chain_method: 1 parallel (a shard's
				   chains at once on the cores its worker
				   may use; "vectorized" too), 0
				   sequential; 1 */
	unsigned long seed;	/* base seed, chain c of shard k uses
				   seed + 1000 k + c; 42
				   (null in the YAML means 42 too: hetui
				   runs are reproducible) */
	enum het_config_sigma sigma;	/* heterodyne diagonal, homodyne mad */
	double	per_shard_timeout; /* > 0 s; 3600 */
	double	heartbeat_timeout; /* > 0 s, <= per_shard_timeout; 600 */
	double	min_success_rate; /* in (0, 1], fraction of shards that
				   must succeed; 0.90 */
	enum het_cons_method combine;	/* robust_consensus_mc */
	double	max_r_hat;	/* > 1, rank-normalised split R-hat; 1.1 */
	double	min_ess;	/* > 0, bulk ESS; 400 */
	double	min_bfmi;	/* >= 0; 0.3 */
	double	max_divergence_rate; /* in [0, 1]; 0.10 */
	int	use_reparam;	/* 1: power laws in the coordinates
				   below; 0: every parameter through its
				   log/logit (coordinates physical); 1 */
	int	coordinates;	/* enum het_coords (het_posterior.h)
				   while use_reparam: 2 rates (power-law
				   triples shifted or anchored), 1
				   power_law (ln A(t_ref) pairs only);
				   2 */
	int	nlsq_priors;	/* use_nlsq_informed_priors: 1 = every
				   free parameter's prior is the NLSQ-centred
				   truncated normal (when an NLSQ result is
				   there); 0 = the configured priors; 1 */
	double	nlsq_prior_width_factor; /* > 0, width of NLSQ-centred
				   priors in NLSQ standard errors; 2.0 */
	char	*worker_command; /* command that runs one shard (its
				   arguments follow), NULL = the installed
				   hetui-worker */
};

/* Per-angle contrast and offset. */
struct het_config_scaling {
	struct het_config_param p[HET_S_COUNT];	/* contrast, offset */
	enum het_scaling_mode nlsq_mode;	/* auto */
	enum het_scaling_mode cmc_mode;	/* auto = what NLSQ resolved to */
	long	fourier_order;	/* 1..8 harmonics; 2 */
	long	fourier_auto_threshold; /* >= 1; heterodyne auto uses
				   Fourier when n_phi > this; 6 */
	long	constant_threshold; /* >= 1; homodyne auto shares one
				   pair when n_phi >= this; 3 */
	double	*init_contrast;	/* start value per angle, or NULL */
	size_t	 ninit_contrast;
	double	*init_offset;	/* start value per angle, or NULL */
	size_t	 ninit_offset;
};

/* A diagnostic about the configuration that is not an error. */
struct het_config_warning {
	char	*key;		/* dotted key path, "a.b[2].c" */
	int	 line;		/* 1-based line in the file, 0 = none */
	char	*msg;		/* a sentence starting with the key */
};

struct het_config {
	enum het_mode	 mode;	/* analysis mode: kernel and defaults */
	enum het_family	 family; /* het_mode_family(mode) */
	enum het_config_mode_source mode_source;
	char		*mode_key; /* key the mode came from, or NULL */
	int		 mode_line; /* its line, 0 = none */
	char		*mode_note; /* one sentence: how the mode was
				   decided (for the CLI and the TUI) */

	char		*source; /* file or name loaded, NULL = defaults */
	char		*base_dir; /* directory that relative paths are
				   resolved against (the config file's),
				   NULL = the current directory */

	/* data selection */
	char		*data_file; /* as written: file_path, or
				   data_folder_path + data_file_name;
				   NULL = none (given on the command line) */
	int		 dt_set; /* 0: take dt from the data file */
	double		 dt;	/* frame interval in s, > 0 when set */
	long		 start_frame; /* first frame, 1-based; 1 */
	long		 end_frame; /* last frame, 1-based inclusive,
				   > start_frame; -1 = the last one; -1 */
	int		 q_set;	/* 0: any q ring of the file */
	double		 wavevector_q; /* q in 1/A, > 0 when set */
	double		*phi_angles; /* angles in degrees, in [-360, 360],
				   each picking the nearest bin; NULL = all */
	size_t		 nphi_angles;
	int		 phi_filter; /* phi_filtering.enabled; 0 */
	struct het_config_phi_range *phi_ranges; /* target_ranges */
	size_t		 nphi_ranges;
	double		 phi_tolerance; /* degrees added on both sides of
				   each range, in [0, 180); 3 */
	int		 phi_fallback; /* 1: all angles when no angle falls
				   in a range; 1 */
	int		 gap_set; /* 0: the default gap */
	double		 stator_rotor_gap; /* A, > 0, used by homodyne
				   laminar_flow; 2e6 */

	/* parameters */
	size_t		 nphys;	/* het_mode_nphys(mode): 14, 7 or 3 */
	struct het_config_param phys[HET_MAX_PHYS]; /* het_params order */
	struct het_config_scaling scaling;

	struct het_config_nlsq nlsq;
	struct het_config_cmc cmc;

	char		*output_dir; /* heterodyne ./output, homodyne
				   ./results */
	int		 create_subdirs; /* output.create_subdirs, 1: each
				   run under output_dir/<data stem>/ */
	int		 timestamp_dirs; /* output.timestamp_dirs, 1: each
				   run in <analysis>-<UTC time>/ (see
				   het_rundir.h) */

	struct het_config_warning *warnings; /* in line order */
	size_t		 nwarnings;
	/*
	 * Every key hetui does not use, one entry each in line order.  The
	 * warnings above name them grouped, one sentence per top-level
	 * section (and one per key whose value changes the reference's
	 * results); this list is the detail (`hetui config --check FILE -v`).
	 */
	struct het_config_warning *unused;
	size_t		 nunused;
};

/*
 * het_config_default: a valid configuration with every default for
 * `mode`: the table's values, bounds and priors, vary flags from
 * het_mode_default_vary(), the option defaults documented above.
 * Returns a new object (free with het_config_free) or NULL with HET_ENOMEM
 * or HET_EINVAL (mode out of range) in err.
 */
struct het_config *het_config_default(enum het_mode mode,
    struct het_error *err);

/*
 * het_config_load: read and validate a YAML configuration file.
 *   path  file name; relative data paths in it are resolved against its
 *         directory.
 * Returns a new object (free with het_config_free) whose warnings list
 * every unused key and every setting hetui had to interpret, or NULL with
 * err set:
 *   HET_EIO      the file cannot be read ("PATH: cannot open: ...");
 *   HET_EFORMAT  malformed YAML or not a mapping ("PATH:LINE: ...");
 *   HET_EINVAL   a wrong type or invalid value ("PATH:LINE: key: ...");
 *   HET_ENOMEM.
 */
struct het_config *het_config_load(const char *path, struct het_error *err);

/*
 * het_config_load_string: het_config_load on text in memory.
 *   name  used in messages in place of a file name (not opened);
 *         relative paths resolve against the current directory.
 */
struct het_config *het_config_load_string(const char *text, size_t len,
    const char *name, struct het_error *err);

/* het_config_free: release a configuration; NULL is a no-op. */
void het_config_free(struct het_config *cfg);

/*
 * het_config_dup: a deep copy (warnings included), for snapshots handed to
 * jobs.  Returns NULL with HET_ENOMEM.
 */
struct het_config *het_config_dup(const struct het_config *cfg,
    struct het_error *err);

/*
 * het_config_validate: check every field (after the caller changed some):
 * bounds, values inside bounds, priors, the frame window, positive dt and
 * q, probabilities and counts.  Returns HET_OK or HET_EINVAL with a
 * message naming the key, the value and the allowed range.
 */
int het_config_validate(const struct het_config *cfg, struct het_error *err);

/*
 * het_config_equal: 1 when a and b hold the same settings (mode, data
 * selection, parameters, options; warnings, source and mode provenance
 * are not compared; data files compare after resolving relative paths
 * against each base_dir), else 0.  When they differ and what is non-NULL, the
 * first differing key is written there (NUL-terminated, truncated to
 * whatlen).
 */
int het_config_equal(const struct het_config *a, const struct het_config *b,
    char *what, size_t whatlen);

/* Flags of het_config_format. */
#define HET_CONFIG_COMMENTS	0x1	/* explain every key: unit, meaning,
					   allowed range (the template) */

/*
 * Settings by key: every setting of optimization.nlsq and
 * optimization.cmc (the schema table, het_config_table.c), named by the
 * dotted path the template writes it under, e.g.
 * "optimization.cmc.per_shard_mcmc.num_chains".  For editors: the value
 * is changed on cfg, not validated (call het_config_validate).
 *   het_config_setting_format: the value as the template writes it (a
 *     number, "auto", a word, true or false) into buf (len bytes).
 *   het_config_setting_parse: text read as that setting's kind (a
 *     decimal number, blanks around it allowed; "auto" where the setting
 *     has it; one of its words; true/false/yes/no) into cfg.
 *   het_config_setting_next: a word setting moved to its next canonical
 *     word (cycling), a boolean flipped.
 * Each returns HET_OK, or HET_EINVAL with a message that names the key
 * (an unknown key, text that is not a value of its kind, a mapping) or
 * HET_ENOMEM.  Thread: any (on a configuration the caller owns).
 */
int het_config_setting_format(const struct het_config *cfg,
    const char *path, char *buf, size_t len, struct het_error *err);
int het_config_setting_parse(struct het_config *cfg, const char *path,
    const char *text, struct het_error *err);
int het_config_setting_next(struct het_config *cfg, const char *path,
    struct het_error *err);

/*
 * het_config_format: the configuration as YAML text: heterodyne style
 * (parameters.<group>.<name>) for heterodyne modes, homodyne style
 * (initial_parameters + parameter_space.bounds) for homodyne modes.  Every
 * key hetui honours is written, so the text loads back, without warnings,
 * to a configuration equal to cfg.  Returns a malloc'd string (caller
 * frees) or NULL with HET_ENOMEM.
 */
char *het_config_format(const struct het_config *cfg, int flags,
    struct het_error *err);

/*
 * het_config_write_yaml: write het_config_format(cfg, 0) to path
 * atomically (a temporary file renamed over path).  A relative data_file
 * is written resolved against cfg->base_dir when path lies in another
 * directory, so the saved file still names the same data (without a
 * base_dir the path is written as it is).  Returns
 * HET_OK, HET_EIO (path untouched) or HET_ENOMEM.
 */
int het_config_write_yaml(const struct het_config *cfg, const char *path,
    struct het_error *err);

/*
 * het_config_param: the parameter called name (canonical name or alias of
 * the config's family, or "contrast"/"offset"); NULL when the mode has no
 * such parameter.  The pointer borrows from cfg.
 */
struct het_config_param *het_config_param(struct het_config *cfg,
    const char *name);

/*
 * het_config_scaling_resolve: the scaling mode to use with n_phi angles.
 *   cmc  0 for NLSQ, 1 for CMC.
 * Rules for auto (hetui's, following each reference): heterodyne family:
 * Fourier when n_phi > fourier_auto_threshold and n_phi >= 1 + 2 x
 * fourier_order, else individual; homodyne family: averaged when n_phi >=
 * constant_threshold, else individual.  CMC auto takes the NLSQ result, so
 * a warm start maps one to one.  Never returns HET_SCALING_AUTO.
 */
enum het_scaling_mode het_config_scaling_resolve(const struct het_config *cfg,
    size_t n_phi, int cmc);

/*
 * het_config_resolve_path: path made absolute against cfg->base_dir when
 * it is relative and base_dir is set; otherwise a copy.  Returns a malloc'd
 * string or NULL with HET_ENOMEM.
 */
char *het_config_resolve_path(const struct het_config *cfg, const char *path,
    struct het_error *err);

/* Canonical YAML names of the enums ("soft_l1", "angle_balanced", ...). */
const char *het_config_scaling_name(enum het_scaling_mode mode);
const char *het_config_method_name(enum het_config_nlsq_method method);
const char *het_config_loss_name(enum het_nlsq_loss loss);
const char *het_config_sharding_name(enum het_shard_strategy strategy);
const char *het_config_combine_name(enum het_cons_method combine);
const char *het_config_sigma_name(enum het_config_sigma sigma);
/* "physical", "power_law", "rates" for the levels 0, 1, 2 (het_coords). */
const char *het_config_coords_name(int level);

/*
 * het_config_coords: the sampler's coordinate level the configuration
 * asks for (enum het_coords, het_posterior.h): cmc.coordinates while
 * use_reparam, else 0 (physical).  Thread: any.
 */
int het_config_coords(const struct het_config_cmc *cmc);

#endif /* HET_CONFIG_H */
