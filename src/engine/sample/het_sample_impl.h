/*
 * het_sample_impl.h: what het_sample.c (the object, the phase machine on
 * the loop thread, accessors) and het_sample_work.c (the background
 * phases) share.  Engine-internal.
 *
 * Ownership rule: a background phase writes only the fields of its own
 * phase (listed below) and the progress record (under mu); the loop
 * thread reads them only after joining the thread.  Warnings of a phase
 * go to pend_warn and are merged into warn by the loop thread.
 */
#ifndef HET_SAMPLE_IMPL_H
#define HET_SAMPLE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include <jansson.h>

#include "het_consensus.h"
#include "het_results.h"
#include "het_loop.h"
#include "het_sample.h"
#include "het_shard.h"

struct het_sample {
	/* copies of the options */
	struct het_sample_opts	 o;		/* strings point below */
	struct het_config	*cfg;
	char			*data_path, *out_dir, *nlsq_dir, *resume_dir;
	char			*worker_path, *log_dir;
	int			 logs_made;	/* log_dir is OUT/worker-logs,
						   made by hs_worker_logs */
	int			 out_made;	/* ... which also made OUT */
	char			**worker_argv;	/* NULL-terminated */

	enum het_sample_phase	 phase;
	enum het_sample_verdict	 verdict;
	struct het_error	 err;		/* FAILED / SHARDS_FAILED */
	int			 cancelled;	/* het_sample_cancel seen */
	atomic_int		 cancel;	/* read by background phases */
	atomic_int		 cancel_req;	/* het_sample_cancel_async */
	double			 t0;		/* het_clock_now at start */

	/* background thread */
	struct het_wake		 wake;		/* thread -> loop */
	pthread_t		 thr;
	int			 thr_live;	/* created, not joined */
	atomic_int		 thr_done;
	int			 thr_rc;	/* the phase's status */
	struct het_error	 thr_err;
	pthread_mutex_t		 mu;		/* prog */
	struct het_sample_progress prog;
	char			**pend_warn;
	size_t			 npend;
	char			**warn;
	size_t			 nwarn;

	/* READING */
	struct het_problem	*pb;
	/* NLSQ */
	struct het_results_prev_cmc prev;	/* --resume: read first */
	int			 nlsq_from_resume; /* nlsq_dir is resume_dir */
	struct het_fit_result	*fit;		/* NULL when loaded */
	struct het_results_nlsq	 loaded;
	double			*nx, *nsd;	/* p, het_resid order */
	const char		**nnames;	/* p, borrowed from pb */
	struct het_sample_nlsq	 nlsq;
	/* PREPARING */
	double			 sigma;
	const char		*sigma_source;
	struct het_post_prior	*priors;	/* p, untempered */
	struct het_shard_plan	*plan;
	json_t			**payload;	/* K, stolen by het_cmc_add */
	size_t			 npayload;
	char			(*digest)[HET_RESULTS_DIGEST_LEN]; /* K */
	json_t			**reuse;	/* K: results to reuse (or
						   NULL), stolen by
						   het_cmc_add_done */
	double			*reuse_wall;	/* K: their wall times */
	long			 chain_threads;	/* chains of a shard at
						   once, from SAMPLING on */
	size_t			 nresume_warn;	/* the last warnings of
						   PREPARING are --resume's,
						   shown when SAMPLING
						   starts */
	struct het_shard_settings settings;
	/* SAMPLING */
	struct het_cmc		*cmc;
	double			 t_sampling;	/* start of SAMPLING */
	double			 sampling_wall;
	int			 cmc_status;	/* het_cmc_status */
	int			 pace_warned;	/* the timeout warning is out */
	struct hs_ckpt		*ckpt;		/* the checkpoint being
						   written (het_sample_ckpt.c),
						   NULL when none */
	size_t			 ckpt_ndone;	/* shards sampled by this run
						   in the last checkpoint */
	size_t			 ckpt_nsaved;	/* all finished shards in it */
	double			 ckpt_next;	/* earliest start of the next */
	int			 ckpt_warned;	/* a failure was reported */
	int			 ckpt_final;	/* the write after the last
						   shard was started */
	/* COMBINING */
	struct het_shard_result	*res;		/* K, queue order; p = 0
						   when no result */
	struct het_consensus	 cons;
	int			 have_cons;
	struct het_cons_gate_report gates;
	size_t			*gate_of;	/* K: index into gates.shard,
						   or (size_t)-1 */
	struct het_sample_param	*param;		/* p */
	struct het_sample_summary sum;
	int			 have_sum;
	/* WRITING */
	char			**files;	/* NULL-terminated */
};

/* Background phases (het_sample_work.c); each returns a het_status. */
int het_hs_read(struct het_sample *s, struct het_error *err);
int het_hs_nlsq(struct het_sample *s, struct het_error *err);
int het_hs_prepare(struct het_sample *s, struct het_error *err);
int het_hs_combine(struct het_sample *s, struct het_error *err);
int het_hs_write(struct het_sample *s, struct het_error *err);

/*
 * COMBINING, after the summary (het_sample_rw.c): with two or more
 * shards combined and cmc.reweight_draws > 0, importance-reweight the
 * consensus against the posterior of all the data and fill the rw_*
 * fields of the summary and its parameters; trouble is a warning.
 * Returns HET_OK or the status that stopped it (HET_ECANCEL included);
 * the run goes on either way.
 */
int het_hs_reweight(struct het_sample *s);

/*
 * What the results files and the checkpoint share (het_sample_post.c):
 * fills cm and res (res->cmc = cm, res->fits = fit) from the immutable
 * state of the pipeline; *starts is allocated (free it).  The caller
 * sets status, shards, consensus, summary, gates and warnings.  Any
 * thread once PREPARING has ended.
 */
int het_hs_describe(struct het_sample *s, struct het_results_cmc *cm,
    struct het_results *res, struct het_results_fit *fit,
    struct het_results_start **starts, struct het_error *err);
/* The failure reasons of a shard joined with "; " (allocated). */
char *het_hs_reasons(const struct het_cmc_shard *c);

/*
 * The checkpoint during SAMPLING (het_sample_ckpt.c), loop thread:
 * het_hs_ckpt_poll takes over a finished write and starts the next one when
 * shards finished since the last and the interval has passed;
 * het_hs_ckpt_busy says a write is in flight (SAMPLING ends only after it);
 * het_hs_ckpt_deadline is when het_hs_ckpt_poll next has work (-1: none);
 * het_hs_ckpt_free waits for a write in flight and releases it.
 */
void het_hs_ckpt_poll(struct het_sample *s, double now);
int het_hs_ckpt_busy(const struct het_sample *s);
double het_hs_ckpt_deadline(const struct het_sample *s);
void het_hs_ckpt_free(struct het_sample *s);

/* het_hs_warn: queue a warning of the running phase (background thread). */
void het_hs_warn(struct het_sample *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* het_hs_warn_now: add a warning and show it at once (loop thread,
   SAMPLING). */
void het_hs_warn_now(struct het_sample *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* HET_SAMPLE_IMPL_H */
