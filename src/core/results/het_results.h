/*
 * het_results.h: the results files of an NLSQ fit and of a CMC run
 * (hetui sample: the same files plus the /cmc group and the two cmc_*.json
 * files, see struct het_results_cmc below), and reading a fit back.
 *
 * Module core/results (the opening comment of this folder): what a run
 * leaves behind: the result files of a fit and of a sampling run (HDF5,
 * JSON, checkpoints), their loaders (het_results*), the folder of
 * each run so that no run replaces another's (het_rundir), and the
 * summary of a batch of per-ring fits (het_rings).
 *
 * het_results_write() writes, into an output directory (created if
 * missing):
 *   hetui_results.h5       everything: the config echo, the data
 *                          selection, every parameter with bounds and
 *                          flags, covariance and correlation, the
 *                          iteration history, every multistart start,
 *                          the fitted c2 and the residual matrix of each
 *                          angle (packed upper triangles, gzip, float32
 *                          for float32 data), all warnings;
 *   nlsq_parameters.json   and
 *   nlsq_metadata.json     the files of the heterodyne package
 *                          (heterodyne-spec.md §5.9), with its keys in
 *                          its order, so its tools read hetui's fit.
 * The layout of every dataset and key is in man hetui(1), OUTPUT FILES;
 * the mapping of hetui's joint fit onto the reference's per-phi files is
 * stated there too.  In short: a joint fit writes one nlsq_parameters.json
 * whose parameters are the fit's free parameters (physics, then scaling
 * such as "contrast[2]"), as the reference lists its varying parameters;
 * a per-angle fit with several angles writes nlsq_phi<int(phi)>_*.json
 * per angle (a suffix _<bin label> when two angles truncate to the same
 * integer, which the reference would silently overwrite).  NaN values
 * (a degenerate uncertainty) are written as JSON null, where the
 * reference would fail.  A cancelled fit's brief report computed no
 * uncertainty: all are null, the covariance and correlation datasets
 * are absent, and nlsq_metadata.json's metadata and the fit group's
 * attributes say "uncertainties_computed" false (0).
 *
 * Atomicity: every file is first written completely to a temporary name
 * beside its final name (het_tmp_path); only when all of them are
 * complete are they renamed over the old files, one after the other.  A
 * write that fails therefore removes its temporary files and leaves the
 * old results as they were.  (Between the renames a reader could see a
 * new HDF5 file next to an old JSON file for an instant; each file by
 * itself is always complete.)
 *
 * The writer takes a core-level description of the fit (struct
 * het_results_fit), filled by the front end from the engine's result, so
 * the core does not depend on the engine.  All pointers are borrowed.
 * Thread: any thread (HDF5 calls are serialised by libhdf5); one writer
 * per directory at a time.
 */
#ifndef HET_RESULTS_H
#define HET_RESULTS_H

#include <stddef.h>

#include "het_config.h"
#include "het_consensus.h"
#include "het_error.h"
#include "het_nlsq.h"
#include "het_posterior.h"
#include "het_problem.h"
#include "het_shard_run.h"

#define HET_RESULTS_H5		"hetui_results.h5"
#define HET_RESULTS_FORMAT	"hetui-nlsq-results"
#define HET_RESULTS_VERSION	2	/* 2: packed matrices */
/* "storage" attribute of the packed fitted and residual matrices. */
#define HET_RESULTS_UPPER_DIAG	"upper_triangle_with_diagonal"
#define HET_RESULTS_UPPER	"upper_triangle"
#define HET_RESULTS_CHECKPOINT	"hetui_checkpoint.h5"
#define HET_RESULTS_CMC_SUMMARY		"cmc_summary.json"
#define HET_RESULTS_CMC_DIAGNOSTICS	"cmc_diagnostics.json"

/* One iteration of one fit, as the progress callback saw it. */
struct het_results_iter {
	long	 angle;		/* -1 joint, else the angle of a per-angle fit */
	long	 start;		/* multistart index */
	long	 iter;		/* completed iterations, 0 = the start */
	long	 nfev;
	double	 cost;
	double	 chi2_red;
	double	 radius;
	double	 step_norm;
};

/* One multistart start. */
struct het_results_start {
	const double	*x0;		/* p values */
	const double	*x;		/* p values */
	double		 cost;
	double		 chi2_red;
	long		 iterations;
	long		 nfev;
	const char	*reason;	/* "gtol", "max_nfev", ... */
	int		 status;	/* HET_OK or the error of this start */
};

/* One fit: the joint fit, or one angle of a per-angle fit. */
struct het_results_fit {
	long		 angle;		/* -1 joint, else the problem's angle */
	size_t		 p;		/* free parameters */
	const char *const *names;	/* p names, as het_resid_param_name */
	const double	*x, *x0;	/* p fitted and start values */
	const double	*unc;		/* p one-sigma uncertainties (NaN ok:
					   degenerate or no effect) */
	const unsigned char *degen;	/* p degenerate flags, or NULL */
	const struct het_nlsq_combo *combos;	/* ncombos identifiable
					   combinations, or NULL */
	size_t		 ncombos;
	const double	*lo, *hi;	/* p bounds used */
	const double	*cov, *corr;	/* p * p, or NULL */
	double		 cost, rss, chi2, chi2_red, sigma;
	long		 dof;
	long		 iterations, nfev, njev;
	double		 wall_time;	/* s */
	const char	*reason;	/* het_nlsq_reason_name */
	int		 converged;	/* 1, 0; -1 unknown (a loaded
					   result that does not say) */
	const char	*message;
	size_t		 rank;
	int		 unc_skipped;	/* 1: a cancelled fit's brief report:
					   no uncertainty or covariance was
					   computed (unc NaN, cov and corr
					   NULL); written as
					   "uncertainties_computed": false */
	const char *const *warnings;	/* the fit's own warnings */
	size_t		 nwarnings;
	const struct het_results_start *starts;
	size_t		 nstarts;
	size_t		 best;
};

/*
 * CMC results (hetui sample).  When het_results.cmc is set, the writer
 * adds the /cmc group to hetui_results.h5 and writes cmc_summary.json and
 * cmc_diagnostics.json (the heterodyne package's keys: parameter_names,
 * posterior_mean, posterior_std, credible_intervals {name: {"2.5%",
 * "97.5%"}}, map_estimate (the posterior mean), timestamp, num_samples,
 * num_chains; convergence_passed, parameter_diagnostics {name: {r_hat,
 * r_hat_passed, ess_bulk, ess_tail}}, max_r_hat, r_hat_threshold,
 * all_r_hat_passed, min_ess_bulk, bfmi, bfmi_passed, sampling_info
 * {num_warmup, num_samples, num_chains, wall_time_seconds}) followed by
 * hetui's own keys (cmc: shards, gates, consensus).  All in the same
 * atomic commit as the other files.
 */
struct het_results_cmc_shard {
	long		 id;		/* shard id */
	size_t		 npairs;
	const char	*state;		/* het_cmc_state_name */
	int		 attempts;
	const char	*reason;	/* failure reasons, "" when none */
	double		 wall_time;	/* s of the last attempt */
	const struct het_shard_result *res;	/* NULL unless done */
	const struct het_cons_shard_gate *gate;	/* NULL unless done */
	int		 used;		/* entered the consensus */
	int		 outlier;	/* dropped as an outlier */
	const char	*digest;	/* digest of the shard's inputs (the
					   wire payload), "" or NULL when
					   unknown: lets a later run reuse
					   the result (het_results_load_cmc) */
	int		 reused;	/* taken from a previous run */
};

/* Per-parameter summary of the combined posterior (p entries each). */
struct het_results_cmc_param {
	double	mean, sd, q025, q05, q50, q95, q975;
	double	rhat;		/* max over used shards */
	double	ess_bulk, ess_tail;	/* sums over used shards */
	double	nlsq, nlsq_sd, prior_sd, contraction;
	double	rw_mean, rw_sd;	/* reweighted against all the data;
				   NaN when not taken */
};

struct het_results_cmc {
	const char	*status;	/* "passed", "gates_failed",
					   "shards_failed", "cancelled" */
	struct het_shard_settings settings;
	const char	*strategy;	/* sharding strategy name */
	const char	*combine;	/* consensus method name */
	const char	*sigma_source;
	double		 sigma;
	int		 reparam;
	int		 nlsq_priors;	/* use_nlsq_informed_priors */
	double		 prior_width;	/* nlsq_prior_width_factor */
	struct het_cons_gates gates;
	size_t		 p;
	const char *const *names;	/* p */
	const struct het_post_prior *priors;	/* p (untempered) */
	const struct het_results_cmc_shard *shards;
	size_t		 nshards;	/* K */
	const struct het_consensus *cons;	/* NULL: nothing combined */
	const struct het_results_cmc_param *param;	/* p, or NULL with
							   cons */
	int		 gates_pass;
	const char	*gates_text;	/* sentences, "" */
	double		 max_rhat, min_ess, min_bfmi;
	long		 divergences;
	double		 wall_time;	/* s of the sampling */
	/* the consensus importance-reweighted against all the data
	   (sharded runs): k-hat, ESS, draws; NaN, NaN, 0 when not */
	double		 rw_khat, rw_ess;
	size_t		 rw_ndraw;
};

/* Everything het_results_write needs. */
struct het_results {
	const struct het_config	 *cfg;	/* echoed as YAML */
	const struct het_problem *pb;	/* selection, data, model */
	const char	*optimizer;	/* "local" or "multistart" */
	int		 per_angle;	/* fits are per angle */
	const struct het_results_fit *fits;	/* 1 joint, or nangles */
	size_t		 nfits;
	const struct het_results_iter *history;
	size_t		 nhistory;
	const char *const *warnings;	/* run-level warnings (the problem's
					   are added by the writer) */
	size_t		 nwarnings;
	const char	*status;	/* "converged", "not_converged",
					   "cancelled" */
	double		 wall_time;	/* s, the whole run */
	long		 threads;
	const char	*creator;	/* "hetui 0.1" */
	const char	*timestamp;	/* ISO 8601; NULL: local time now */
	const struct het_results_cmc *cmc;	/* NULL: an NLSQ fit only */
	int		 no_nlsq_json;	/* 1: do not write nlsq_*.json (the
					   NLSQ result was loaded) */
};

/*
 * het_results_write: write the results files into dir (see above).
 * Returns HET_OK; HET_EINVAL for an inconsistent description (a fit
 * whose parameter names are not parameters of the problem, a missing
 * array; the message names it); HET_EIO when the directory cannot be
 * created or a file cannot be written (the old files are left intact and
 * no temporary file remains); HET_ENOMEM.
 * Thread: see the top of this file.
 */
int het_results_write(const char *dir, const struct het_results *res,
    struct het_error *err);

/*
 * het_results_write_checkpoint: write the checkpoint of a running CMC run,
 * dir/hetui_checkpoint.h5 (het_results_ckpt.c has the design): res as
 * for het_results_write, with res->cmc set (status "running", cons and
 * param NULL, the finished shards with their results and digests); the
 * fitted matrices are left out.  Written to a temporary name, fsynced
 * and renamed over the previous checkpoint.
 * Returns HET_OK; HET_EINVAL (no cmc, an inconsistent description);
 * HET_EIO (the previous checkpoint is left intact, no temporary file
 * remains); HET_ENOMEM.  Thread: any; one writer per directory.
 */
int het_results_write_checkpoint(const char *dir,
    const struct het_results *res, struct het_error *err);

/*
 * het_results_checkpoint_pending: 1 when dir holds the checkpoint of a
 * run that stopped before writing its results: dir/hetui_checkpoint.h5
 * is a regular file and dir/hetui_results.h5 does not exist or is
 * older.  Thread: any.
 */
int het_results_checkpoint_pending(const char *dir);

/*
 * het_results_resume_path: the file a resume reads in dir (allocated):
 * the checkpoint when het_results_checkpoint_pending, else
 * dir/hetui_results.h5 (which need not exist).  NULL: HET_ENOMEM.
 */
char *het_results_resume_path(const char *dir, struct het_error *err);

/*
 * het_results_remove_checkpoint: remove dir/hetui_checkpoint.h5 (absent is
 * fine), and the temporary files of checkpoint writes whose process is
 * gone (so does a successful het_results_write_checkpoint).  Returns
 * HET_OK or HET_EIO (the message names the file).
 */
int het_results_remove_checkpoint(const char *dir, struct het_error *err);

/*
 * het_results_json_prefix: the prefix of the JSON files of fit k
 * ("nlsq" for a joint fit or a single angle, "nlsq_phi45" per angle)
 * into buf.  Thread: any.
 */
void het_results_json_prefix(const struct het_results *res, size_t k,
    char *buf, size_t len);

/* A previous joint NLSQ result, as het_results_load_nlsq reads it. */
struct het_results_nlsq {
	size_t	 p;
	char	**names;	/* p (owned) */
	double	*x;		/* p values */
	double	*unc;		/* p uncertainties, NaN where unknown */
	int	 converged;	/* 1, 0, or -1 when the files do not say */
	int	 unc_computed;	/* 0: a cancelled fit's brief report (no
				   uncertainties); 1 or -1 (not said) */
	double	 chi2_red;	/* NaN when unknown */
	char	*source;	/* the file it came from (owned) */
	/* What it was fitted on, when the files say (else NULL/0): */
	double	*phi;		/* nphi angles in degrees (owned) */
	size_t	 nphi;
	long	 first_frame, last_frame;	/* 1-based inclusive */
};

/*
 * het_results_load_nlsq: read the joint NLSQ result in dir: from
 * nlsq_parameters.json (parameter_names, parameters, uncertainties; null
 * is NaN) with nlsq_metadata.json when present (success,
 * reduced_chi_squared, uncertainties_computed and, under metadata,
 * phi_angle, start_frame and end_frame), else from hetui_results.h5
 * (/fit/free_names and the /fit/parameters table; attributes converged,
 * chi2_red and uncertainties_computed; /data/phi and
 * the /data attributes first_frame, last_frame).  Angles and frames are
 * optional (a foreign file may lack them): nphi 0, frames 0.
 *   out  zeroed on entry; filled on HET_OK (release with
 *        het_results_nlsq_clear, also after an error).
 * Returns HET_OK; HET_ENOTFOUND (neither file; a per-angle result,
 * nlsq_phi*.json only: the message says so and how to fix it); HET_EFORMAT
 * (a file that does not parse, a missing key or array, lengths that
 * differ, a non-number value; the message names the file and key);
 * HET_EIO; HET_ENOMEM.  Thread: any.
 */
int het_results_load_nlsq(const char *dir, struct het_results_nlsq *out,
    struct het_error *err);

/*
 * het_results_load_nlsq_h5: the same from the HDF5 file of a `hetui
 * sample` run in dir (het_results_resume_path: its checkpoint when it
 * stopped before writing its results, else hetui_results.h5): the NLSQ
 * result the run actually used (its /fit group, written also when the
 * run loaded the result from elsewhere), whatever nlsq_parameters.json
 * in dir says.  Same contract; a missing file is HET_ENOTFOUND.
 */
int het_results_load_nlsq_h5(const char *dir, struct het_results_nlsq *out,
    struct het_error *err);
void het_results_nlsq_clear(struct het_results_nlsq *n);

/*
 * het_results_load_matrix: one fitted or residual matrix of a results
 * file, rebuilt as the full symmetric N x N matrix (row-major doubles).
 *   file   a hetui_results.h5
 *   group  "fit", or "fit_angle_NNN" of a per-angle fit
 *   what   "c2_fitted" or "residuals"
 *   angle  the problem's angle index (the NNN of angle_NNN)
 *   out    *out: N * N values (malloc'd, the caller frees); *n: N
 * Reads the packed upper triangles of format_version 2 (float32 or
 * float64; the residual's diagonal is 0) and the full N x N matrices of
 * version 1.  Returns HET_OK; HET_ENOTFOUND (no such file or matrix);
 * HET_EFORMAT (a shape that does not match its n_frames or storage
 * attributes; the message names the file and path); HET_EIO; HET_ENOMEM.
 * Thread: any.
 */
int het_results_load_matrix(const char *file, const char *group,
    const char *what, size_t angle, double **out, size_t *n,
    struct het_error *err);

/* Length of a shard input digest with its NUL (16 hex digits). */
#define HET_RESULTS_DIGEST_LEN	17

/* One finished shard of a previous CMC run. */
struct het_results_prev_shard {
	long		 id;
	size_t		 npairs;
	char		 digest[HET_RESULTS_DIGEST_LEN];  /* "" when the file
						   has none (an older hetui) */
	struct het_shard_result res;	/* draws, BFMI, divergences, step
					   sizes, acceptance, wall time as
					   written; summaries recomputed from
					   the draws (bit for bit the
					   worker's) */
};

/* The finished shards of a previous CMC run (het_results_load_cmc). */
struct het_results_prev_cmc {
	char		*source;	/* the file read (owned) */
	size_t		 nshards;	/* K of its plan */
	struct het_results_prev_shard *shard;	/* n finished shards, in the
						   order of /cmc/shards */
	size_t		 n;
};

/*
 * het_results_load_cmc: read back the finished shards of the CMC run in
 * dir (het_results_resume_path: dir/hetui_checkpoint.h5 when the run
 * stopped before writing its results, else dir/hetui_results.h5), so
 * that `hetui sample --resume DIR` samples only the others.  A shard counts as finished when /cmc/shards/state says
 * "done" and its /cmc/shard_NNNN group holds draws (n_chains x p rows of
 * n_draws), bfmi, divergences, step_size and accept (n_chains each) and
 * the attributes n_chains and n_draws; wall_time (NaN when absent) and
 * input_digest ("" when absent: written by an older hetui) are read
 * too.
 *   out  zeroed on entry; filled on HET_OK (release with
 *        het_results_prev_cmc_clear, also after an error).  n may be 0
 *        (a run cancelled before any shard finished still has /cmc).
 * Returns HET_OK; HET_ENOTFOUND (neither file: the message says that a
 * run writes its checkpoint once a shard has finished); HET_EFORMAT (not HDF5,
 * no /cmc group, a missing or mis-shaped dataset, a non-finite draw; the
 * message names the file and the path); HET_ENOMEM.  Thread: any.
 */
int het_results_load_cmc(const char *dir, struct het_results_prev_cmc *out,
    struct het_error *err);
void het_results_prev_cmc_clear(struct het_results_prev_cmc *c);

#endif /* HET_RESULTS_H */
