/*
 * het_sample.h: the CMC sampling pipeline of `hetui sample` and of the
 * workstation's Sampling panel, as one engine object with explicit
 * phases.
 *
 * Module engine/sample (the opening comment of this folder): sampling:
 * the pipeline of hetui sample and the Sampling panel, its checkpoints
 * and read-only views (het_sample*), and the CMC coordinator that queues
 * shards on worker processes (het_cmc).
 *
 * Phases (enum het_sample_phase), in order:
 *   READING    open the data file and build the fit problem
 *              (het_problem_build)                        background thread
 *   NLSQ       fit it (het_fit_run), or load a previous result from
 *              nlsq_dir (nlsq_parameters.json, else the /fit group of
 *              hetui_results.h5), matched to the problem's parameters
 *              by name                                    background thread
 *   PREPARING  noise sigma, priors, shard plan, shard payloads
 *                                                         background thread
 *   SAMPLING   the coordinator (het_cmc) runs the shards on hetui-worker
 *              processes                                  loop thread
 *   COMBINING  unpack results, consensus, gates, summary  background thread
 *   WRITING    hetui_results.h5 (NLSQ + /cmc group), nlsq_*.json (unless
 *              loaded), cmc_summary.json, cmc_diagnostics.json, all
 *              atomically                                 background thread
 * then DONE (verdict passed, gates_failed or shards_failed), FAILED (error)
 * or CANCELLED.
 *
 * Two front ends drive it.  The CLI calls het_sample_run (blocks until
 * the end).  The TUI never blocks its loop thread: it calls
 * het_sample_start, adds het_sample_pollfds to its poll set, calls
 * het_sample_handle after every poll (also on timeout) and wakes no later
 * than het_sample_next_deadline.  The heavy phases run on one background
 * thread at a time; when a phase ends the thread writes a byte to a pipe
 * whose read end is among the pollfds, and het_sample_handle (loop
 * thread) joins it and starts the next phase.  The coordinator's worker
 * pipes are in the same pollfds during SAMPLING.
 *
 * Noise sigma (config optimization.cmc.sigma_method):
 *   diagonal  (heterodyne default) hetui's replacement of the reference's
 *             diagonal scatter: the far-lag noise estimate of the problem
 *             (het_problem.h; the corrected diagonal carries no noise
 *             information);
 *   residual  RMS of the NLSQ residuals at the NLSQ (or loaded) optimum;
 *   mad       (homodyne default; the reference samples sigma) not
 *             sampled by hetui: the far-lag estimate is used and a
 *             warning says so.
 *   A non-finite estimate falls back to the residual RMS (warning).
 * Priors: het_post_priors_from_config with the NLSQ values and standard
 * errors (NLSQ-informed truncated normals, width factor
 * cmc.nlsq_prior_width_factor); each shard uses prior^(1/K).
 * Start point of every chain: the NLSQ optimum, clamped strictly inside
 * the bounds.  Scaling: the NLSQ problem's per-angle mode (a cmc
 * per_angle_mode other than auto is reported in a warning and ignored).
 * Seeds: shard k, chain c uses seed + 1000 k + c (het_shard_run).
 *
 * Checkpoint (het_sample_ckpt.c): during SAMPLING, when a shard this
 * run sampled has finished, the finished shards are written to
 * out_dir/hetui_checkpoint.h5 (het_results_write_checkpoint) by a short
 * writer thread, at most every opts.checkpoint_interval seconds and no
 * sooner than opts.checkpoint_duty (20) times the last write's
 * duration, and once more when the last shard is in; SAMPLING ends
 * after a write in flight, and WRITING removes the file once the
 * results are complete.  A failed write is one warning.  READING fails
 * (HET_EINVAL) when out_dir holds the checkpoint of another run that
 * stopped before writing its results (het_results_checkpoint_pending),
 * unless this run
 * resumes out_dir; with opts.replace_checkpoint it warns instead.
 *
 * Resuming (opts.resume_dir, `hetui sample --resume DIR`): the output
 * directory defaults to DIR and the NLSQ result to the one the run in
 * DIR used (the /fit group of its file, het_results_resume_path: the
 * checkpoint of a killed run, else DIR/hetui_results.h5;
 * het_results_load_nlsq_h5).  NLSQ also reads the finished shards of
 * that file (het_results_load_cmc); PREPARING reuses a shard exactly
 * when the digest of its payload (het_wire_shard_digest: pairs, data,
 * model, priors, sigma, settings, seed, start point, hetui version)
 * equals the stored one.  Finished shards that do not match would be
 * sampled again: PREPARING fails rather than replace them in DIR
 * (HET_EINVAL, saying how to keep them); with another out_dir they are
 * sampled again, with a warning shown as SAMPLING starts.  A reused
 * shard enters the coordinator DONE (het_cmc_add_done, reused = 1), so
 * the result is exactly that of an uninterrupted run.
 *
 * Verdict (het_sample_verdict) and the CLI's exit codes:
 *   HET_VERDICT_PASSED        every done shard passed the gates     0
 *   HET_VERDICT_GATES_FAILED  results written, some gate failed      4
 *   HET_VERDICT_SHARDS_FAILED early abort or done/K below
 *                             min_success_rate (what finished is
 *                             combined and written when >= 1 shard)  5
 *   HET_VERDICT_CANCELLED     het_sample_cancel (same writing rule) 130
 *   HET_VERDICT_ERROR         anything else (het_sample_error)       1
 *
 * Threads: every function is for the loop thread (the one that called
 * het_sample_alloc) unless its contract says otherwise.  Accessors return
 * data owned by the object; pointers stay valid until het_sample_free,
 * and what a phase produces (problem, NLSQ result, summary) is immutable
 * once that phase has ended (het_sample_phase says so), so the UI may
 * draw it without locks.  The shard records (het_sample_shard) change
 * only inside het_sample_handle.  The process must ignore SIGPIPE.
 */
#ifndef HET_SAMPLE_H
#define HET_SAMPLE_H

#include <poll.h>
#include <stddef.h>

#include "het_cmc.h"
#include "het_config.h"
#include "het_consensus.h"
#include "het_error.h"
#include "het_fit.h"
#include "het_problem.h"

enum het_sample_phase {
	HET_SAMPLE_IDLE = 0,	/* allocated, not started */
	HET_SAMPLE_READING,
	HET_SAMPLE_NLSQ,
	HET_SAMPLE_PREPARING,
	HET_SAMPLE_SAMPLING,
	HET_SAMPLE_COMBINING,
	HET_SAMPLE_WRITING,
	HET_SAMPLE_DONE,	/* ended; see het_sample_verdict */
	HET_SAMPLE_FAILED,	/* ended with an error (het_sample_error) */
	HET_SAMPLE_CANCELLED	/* ended by het_sample_cancel */
};

enum het_sample_verdict {
	HET_VERDICT_PASSED = 0,
	HET_VERDICT_GATES_FAILED,
	HET_VERDICT_SHARDS_FAILED,
	HET_VERDICT_CANCELLED,
	HET_VERDICT_ERROR,
	HET_VERDICT_RUNNING	/* not ended yet */
};

/* What changed, for the on_change callback (loop thread). */
enum het_sample_what {
	HET_SAMPLE_CHANGED_PHASE = 0,	/* het_sample_phase() changed */
	HET_SAMPLE_CHANGED_SHARD,	/* shard `index` (queue order) changed */
	HET_SAMPLE_CHANGED_WARNING	/* warning `index` is to be shown now:
					   added during SAMPLING, or one of
					   --resume's, sent as SAMPLING starts
					   (the others are there when a phase
					   ends) */
};

struct het_sample;
typedef void (*het_sample_change_fn)(struct het_sample *s,
    enum het_sample_what what, size_t index, void *arg);

struct het_sample_opts {
	const struct het_config	*cfg;	/* copied (het_config_dup); the
					   caller may edit or free its own */
	const char	*data_path;	/* the data file (NULL: the config's
					   experimental_data.file_path) */
	const char	*out_dir;	/* NULL: resume_dir, else cfg
					   output_dir, else "output" */
	const char	*nlsq_dir;	/* NULL: run NLSQ (or resume_dir's
					   result); else load from it */
	const char	*resume_dir;	/* NULL: sample every shard; else
					   reuse the finished shards of the
					   run in it whose inputs are
					   unchanged (see "Resuming") */
	double		 dt;		/* > 0 overrides config and file */
	long		 threads;	/* NLSQ pool threads, 0: one per core */
	/* cmc overrides: */
	long		 workers;	/* max worker processes, 0: config or
					   one per core */
	int		 seed_set;
	unsigned long	 seed;		/* cmc.seed (sharding and chains) */
	/* Worker command, first match wins: worker_argv (e.g. from
	   --worker-command, split with het_cmc_split_command), the
	   config's cmc.worker_command, worker_path (a single program, e.g.
	   $HETUI_WORKER), het_sample_default_worker(). */
	char *const	*worker_argv;	/* borrowed, NULL-terminated */
	const char	*worker_path;	/* borrowed */
	const char	*log_dir;	/* worker stderr logs; NULL: see
					   worker_logs */
	int		 worker_logs;	/* with log_dir NULL: 1 = stderr of
					   worker N to OUT/worker-logs/
					   worker-N.log (made when sampling
					   starts; an empty log is removed
					   when its worker ends, the folder
					   (and OUT, if made for it) at
					   het_sample_free when left empty);
					   0 = /dev/null */
	double		 kill_grace;	/* s; 0: 2 */
	double		 checkpoint_interval; /* s between checkpoints (see
					   "Checkpoint"); 0: 30; < 0: none */
	double		 checkpoint_duty; /* the pause after a write, as a
					   multiple of its duration; 0: 20
					   (the disk's time spent on
					   checkpoints stays under 5 %) */
	int		 replace_checkpoint; /* 0: fail when out_dir holds
					   the checkpoint of another run;
					   1: warn and replace it */
	/* Callbacks (all may be NULL): */
	het_sample_change_fn	 on_change;	/* loop thread */
	void			*arg;
	/* The background thread calls these during READING and NLSQ; they
	   must not block and must not call into the het_sample object. */
	het_problem_progress_fn	 read_progress;	/* its return is ignored;
						   cancel with
						   het_sample_cancel */
	het_fit_progress_fn	 nlsq_progress;
	void			*progress_arg;
};

/* Latest progress of the background phases (copied under a lock). */
struct het_sample_progress {
	size_t		 bins_read, bins_total;		/* READING */
	long		 nlsq_iter, nlsq_nfev;		/* NLSQ */
	double		 nlsq_cost, nlsq_chi2_red;
};

/* The NLSQ result the sampler starts from (fitted or loaded). */
struct het_sample_nlsq {
	size_t		 p;
	const char *const *names;	/* p, het_resid order */
	const double	*x;		/* p values */
	const double	*sd;		/* p standard errors (NaN: unknown) */
	double		 chi2_red;	/* NaN when loaded without it */
	int		 converged;	/* loaded: the file's "success" */
	int		 loaded;	/* 1: read from nlsq_dir */
	const char	*source;	/* "fit" or the file it came from */
	const struct het_fit_result *fit; /* the engine result, NULL when
					   loaded */
};

/* One parameter of the consensus summary. */
struct het_sample_param {
	const char	*name;
	double		 mean, sd;	/* of the combined draws */
	double		 q5, q50, q95;
	double		 q025, q975;	/* 95 % interval */
	double		 rhat;		/* max over used shards */
	double		 ess_bulk;	/* sum over used shards */
	double		 ess_tail;	/* sum over used shards */
	double		 nlsq;		/* NLSQ value */
	double		 nlsq_sd;	/* NLSQ standard error */
	double		 prior_sd;	/* sd of the untempered prior (the
					   truncated normal's scale for the
					   NLSQ-informed kind; NaN when
					   unknown) */
	double		 contraction;	/* 1 - sd / prior_sd, NaN if unknown */
	double		 rw_mean, rw_sd; /* importance-reweighted against all
					   the data (sharded runs); NaN when
					   not taken */
};

/* The consensus summary (valid from COMBINING's end on). */
struct het_sample_summary {
	size_t		 p;
	const struct het_sample_param *param;	/* p */
	const char	*method;	/* "robust_consensus_mc", ... */
	size_t		 nshards;	/* K planned */
	size_t		 ndone;		/* shards with a result */
	size_t		 nused;		/* entered the combination */
	size_t		 ndraws;	/* combined draws */
	int		 gates_pass;	/* every done shard passed */
	size_t		 gates_nfailed;	/* done shards failing a gate */
	const char	*gates_text;	/* one sentence per failed gate of
					   each shard, "" if none */
	const char	*note;		/* consensus note (dropped shards) */
	double		 max_rhat;	/* over done shards and parameters */
	double		 min_ess;	/* bulk, over done shards */
	double		 min_bfmi;	/* over done shards' chains */
	long		 divergences;	/* total after warmup */
	size_t		 nlaplace;	/* done shards started from their
					   Laplace approximation */
	double		 max_khat;	/* the largest of their PSIS k-hats,
					   NaN when none was taken */
	int		 coords;	/* enum het_coords of the run */
	int		 heterodyne;	/* 1: heterodyne family's laws */
	unsigned	 anchors;	/* power laws on anchor coordinates
					   in some done shard (bit per law,
					   het_posterior_anchors) */
	double		 leapfrog;	/* mean leapfrog steps per transition
					   after warmup over the chains of
					   the done shards; NaN if unknown */
	/* The consensus reweighted against all the data (two or more
	   shards combined; het_sample_rw.c): NaN / 0 / NULL when not. */
	double		 rw_khat;	/* PSIS k-hat: > 0.7 unreliable */
	double		 rw_ess;	/* effective draws of the weights */
	size_t		 rw_ndraw;	/* importance draws */
	double		 rw_shift;	/* largest |mean - rw_mean| / rw_sd */
	const char	*rw_param;	/* ... its parameter */
	double		 sigma;		/* likelihood noise used */
	const char	*sigma_source;	/* "far-lag estimate", ... */
	double		 wall_time;	/* s, start to written */
};

/*
 * het_sample_reweight_draws: how many importance draws the check of a
 * sharded run's consensus against all the data takes (het_sample_rw.c):
 * want (cmc.reweight_draws), or as many as budget seconds
 * (cmc.reweight_seconds) allow at pass_seconds a pass over all the data,
 * or 0 (the check is skipped) when that is fewer than
 * HET_SAMPLE_REWEIGHT_MIN.  A pass_seconds that is not > 0 counts as
 * free.  Thread: any.
 */
#define HET_SAMPLE_REWEIGHT_MIN	200
size_t het_sample_reweight_draws(size_t want, double pass_seconds,
    double budget);

/*
 * het_sample_default_worker: the worker program to use when nothing else
 * is configured: HET_LIBEXECDIR/hetui-worker when it is executable, else
 * hetui-worker beside the running executable (/proc/self/exe; a build
 * tree), else "hetui-worker" (PATH).  Writes it into buf (len bytes).
 * Thread: any.
 */
void het_sample_default_worker(char *buf, size_t len);

/*
 * het_sample_alloc: a pipeline in phase IDLE.  Copies the config and the
 * strings of opts (worker_argv is copied too).  Returns NULL with
 * HET_EINVAL (no config, negative workers or threads) or HET_ENOMEM.
 * het_sample_free: cancels a running pipeline, kills and reaps its
 * workers, joins its thread (this may block until the current NLSQ
 * iteration ends), frees everything; NULL is a no-op.
 */
struct het_sample *het_sample_alloc(const struct het_sample_opts *opts,
    struct het_error *err);
void het_sample_free(struct het_sample *s);

/*
 * het_sample_start: enter READING (starts the background thread).
 * Returns HET_OK, HET_EINVAL (already started), HET_EIO (no pipe or
 * thread).
 */
int het_sample_start(struct het_sample *s, struct het_error *err);

/*
 * Poll-loop integration.  het_sample_pollfds fills fds (cap >=
 * het_sample_pollfds_max(s)) with the wake-up pipe (always fds[0], from
 * het_sample_start on) and, in SAMPLING, the coordinator's descriptors;
 * the set changes from call to call, so fill it before every poll.
 * het_sample_handle takes back exactly the n entries that pollfds filled,
 * in the same order, with their revents (a caller that polls other
 * descriptors too passes the sub-array; n = 0 is allowed, e.g. on a
 * timeout); it never blocks (it joins a background thread only after the
 * thread has signalled its end), advances the phases and calls on_change.
 * het_sample_next_deadline is the absolute time (het_clock_now base) of
 * the next timer, negative when none; during SAMPLING wake at least every
 * 0.1 s anyway to reap workers.  The longest het_sample_handle measured
 * in tests/t_engine_sample is well under 100 ms (it never runs NLSQ,
 * consensus or writing itself).
 */
size_t het_sample_pollfds_max(const struct het_sample *s);
int het_sample_pollfds(struct het_sample *s, struct pollfd *fds, size_t cap,
    size_t *n);
void het_sample_handle(struct het_sample *s, const struct pollfd *fds,
    size_t n, double now);
double het_sample_next_deadline(const struct het_sample *s);

/*
 * The pipeline as a het_loop source (obj: the struct het_sample; max_fds
 * het_sample_pollfds_max): its descriptors while it runs, its next
 * deadline or the progress tick (0.1 s in SAMPLING, 0.25 s before),
 * het_sample_handle.  All three do nothing once it has finished.  The
 * loop thread.
 */
size_t het_sample_loop_fds(void *obj, struct pollfd *fds, size_t cap);
double het_sample_loop_deadline(void *obj);
void het_sample_loop_handle(void *obj, const struct pollfd *fds, size_t n,
    double now);

/* het_sample_finished: 1 in DONE, FAILED and CANCELLED. */
int het_sample_finished(const struct het_sample *s);

/*
 * het_sample_cancel: stop (idempotent).  READING and NLSQ stop at the
 * next bin or iteration; SAMPLING kills the workers (what finished is
 * still combined and written); the pipeline then ends CANCELLED.  In
 * COMBINING and WRITING every shard has ended and the run completes as
 * if no cancel had come (the rest takes moments).
 * Thread: the loop thread; het_sample_cancel_async may be called from a
 * signal handler or any thread (it only sets a flag that the next
 * het_sample_handle acts upon, and wakes the loop).
 */
void het_sample_cancel(struct het_sample *s, double now);
void het_sample_cancel_async(struct het_sample *s);

/*
 * het_sample_run: the blocking driver of the CLI: start, poll, handle
 * until finished.  Returns het_sample_verdict (never RUNNING).
 */
enum het_sample_verdict het_sample_run(struct het_sample *s);

/* ---- read-only accessors (loop thread) ----------------------------------- */

enum het_sample_phase het_sample_phase(const struct het_sample *s);
enum het_sample_verdict het_sample_verdict(const struct het_sample *s);

/*
 * het_sample_error: the error that ended the pipeline (FAILED), or for
 * SHARDS_FAILED the coordinator's sentence listing the failed shards;
 * code HET_OK otherwise.  Borrowed.
 */
const struct het_error *het_sample_error(const struct het_sample *s);

/*
 * het_sample_checkpoint_shards: the finished shards (reused ones
 * included) in the last checkpoint this run wrote, 0 when it wrote
 * none; they are in het_sample_out_dir()/hetui_checkpoint.h5 unless the
 * results were written since.
 */
size_t het_sample_checkpoint_shards(const struct het_sample *s);

/* het_sample_progress: copy the latest READING / NLSQ progress. */
void het_sample_progress(struct het_sample *s, struct het_sample_progress *p);

/* The problem (NULL before READING ends). */
const struct het_problem *het_sample_problem(const struct het_sample *s);

/* The NLSQ result (NULL before NLSQ ends). */
const struct het_sample_nlsq *het_sample_nlsq(const struct het_sample *s);

/*
 * Shards (valid from SAMPLING on): the coordinator's records in queue
 * order (largest first), NULL before; het_sample_coordinator gives the
 * coordinator itself for het_cmc_count etc. (NULL before SAMPLING).
 */
size_t het_sample_nshards(const struct het_sample *s);
const struct het_cmc_shard *het_sample_shard(const struct het_sample *s,
    size_t index);
const struct het_cmc *het_sample_coordinator(const struct het_sample *s);

/*
 * het_sample_chain_threads: how many chains of a shard run at once
 * (chain_method parallel: the cores of this machine over the workers
 * that run, at most num_chains; 1 when sequential).  0 before SAMPLING.
 */
long het_sample_chain_threads(const struct het_sample *s);

/* The summary (NULL before COMBINING ends or when nothing finished). */
const struct het_sample_summary *het_sample_summary(const struct het_sample *s);

/*
 * Written results: the output directory (always set) and the NULL-
 * terminated list of the names (relative to it) of the files written:
 * hetui_results.h5, nlsq_parameters.json and nlsq_metadata.json (only
 * after a fit, not when loaded), cmc_summary.json, cmc_diagnostics.json;
 * an empty list before WRITING ends or when nothing was written.
 */
const char *het_sample_out_dir(const struct het_sample *s);
const char *const *het_sample_files(const struct het_sample *s);

/*
 * Warnings collected so far (problem, NLSQ, sigma, scaling), one sentence
 * each; the array grows only inside het_sample_handle.
 */
size_t het_sample_nwarnings(const struct het_sample *s);
const char *het_sample_warning(const struct het_sample *s, size_t k);

/* Names: "reading", "nlsq", ... and "passed", "gates_failed", ... */
const char *het_sample_phase_name(enum het_sample_phase ph);
const char *het_sample_verdict_name(enum het_sample_verdict v);

#endif /* HET_SAMPLE_H */
