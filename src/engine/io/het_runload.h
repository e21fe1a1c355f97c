/*
 * het_runload.h: read a finished run's results back on a thread of its
 * own, for the workstation's Results panel, which must never block on a
 * file.
 *
 * Design: one short-lived thread per request (signals blocked, HDF5
 * error printing off) reads the run folder's hetui_results.h5 with
 * het_results_load_nlsq_h5 (the fit of a `hetui fit` run, the NLSQ start
 * of a `hetui sample` run) and, when the folder has one, the posterior
 * means and sds of cmc_summary.json, then posts exactly one
 * HET_RUNLOAD_EV_DONE to the queue.  het_runload_free joins the thread,
 * so the queue outlives every post.
 */
#ifndef HET_RUNLOAD_H
#define HET_RUNLOAD_H

#include <stddef.h>

#include "het_error.h"
#include "het_evq.h"
#include "het_results.h"

/* het_event.type of a load (het_event.job = the caller's id). */
enum het_runload_event {
	HET_RUNLOAD_EV_DONE = 0x700	/* data: struct het_runload_result */
};

/* What a load found; free with het_runload_result_free. */
struct het_runload_result {
	char		*dir;		/* the run folder read */
	int		 code;		/* HET_OK or the load's error */
	struct het_error err;		/* why not, when code != HET_OK */
	struct het_results_nlsq nlsq;	/* the fit in the folder */
	/* The posterior of a sampling run (cmc_summary.json), else 0: */
	size_t		 npost;
	char		**post_names;	/* npost (owned) */
	double		*post_mean, *post_sd;	/* npost */
};

struct het_runload;

/*
 * het_runload_start: start reading the run in dir (copied).  Returns the
 * handle, or NULL with err (HET_ENOMEM, HET_EINTERNAL: no thread).
 * Thread: the loop thread.
 */
struct het_runload *het_runload_start(struct het_evq *q, int job,
    const char *dir, struct het_error *err);

/* het_runload_free: join the thread (it never takes long) and free the
 * handle; the DONE event, if posted, stays the consumer's.  NULL is a
 * no-op.  Thread: the loop thread. */
void het_runload_free(struct het_runload *rl);

/* het_runload_result_free: free a result (NULL is a no-op).  Any thread. */
void het_runload_result_free(void *result);

#endif
