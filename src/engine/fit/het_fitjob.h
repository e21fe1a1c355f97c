/*
 * het_fitjob.h: a whole NLSQ fit as one engine job: read the selection of
 * a configuration from a result file (het_problem_build), fit it on the
 * pool (het_fit_run), describe the quality and write the results
 * directory (het_results_write, atomic).  `hetui fit` and the
 * workstation's Fit panel share this code path.
 *
 * Two ways to run it:
 *   - het_fitjob_execute() runs the fit on the calling thread with hooks
 *     (reading progress, "problem built", every iteration).  `hetui fit`
 *     uses it on its main thread and prints from the hooks.
 *   - het_fitjob_start() runs het_fitjob_execute() on a background thread
 *     that blocks every signal, and reports to a het_evq (design.md,
 *     aesthetics-anchors §6.6):
 *       HET_FITJOB_EV_PROGRESS  "the state changed; call het_fitjob_poll".
 *           Coalesced: at most one is queued at a time, whatever the rate
 *           of iterations, so the loop is never flooded.  Progress is
 *           state, not a stream: het_fitjob_poll returns the latest state
 *           and every iteration record from a given index on, so nothing
 *           of the cost history is lost.
 *       HET_FITJOB_EV_DONE      the fit ran (converged, not converged or
 *           cancelled): data is a struct het_fitjob_result.
 *       HET_FITJOB_EV_FAILED    it could not run (data: struct
 *           het_fitjob_failure with a sentence saying what and where).
 *     Exactly one of DONE and FAILED is posted per job, after the last
 *     PROGRESS; neither is ever dropped.  The loop thread never computes:
 *     even the display grids (data, model and residual block means of
 *     every angle) are made on the job thread.
 *
 * Cancellation is an atomic flag, read between bins while reading and
 * between iterations while fitting.  A fit cancelled while iterating ends
 * with a consistent partial result (the last accepted point, status
 * "cancelled"), which is written like any other; a job cancelled while
 * reading reports HET_ECANCEL without a result and writes nothing.
 *
 * Output directory (het_fitjob_default_outdir) when the caller names
 * none: a new folder for this run, made by het_rundir_make from the
 * configuration's output section (OUTPUT_DIR/<data file stem>/
 * fit-<UTC time>/ by default), only once the fit has ended and is about
 * to be written, and removed again if nothing could be written.
 */
#ifndef HET_FITJOB_H
#define HET_FITJOB_H

#include <stdatomic.h>
#include <stddef.h>

#include "het_config.h"
#include "het_dataset.h"
#include "het_error.h"
#include "het_evq.h"
#include "het_fit.h"
#include "het_problem.h"
#include "het_results.h"

/* het_event.type values of a fit job (het_event.job = the job's id). */
enum het_fitjob_event {
	HET_FITJOB_EV_PROGRESS = 0x200,	/* data: NULL */
	HET_FITJOB_EV_DONE,		/* data: struct het_fitjob_result */
	HET_FITJOB_EV_FAILED		/* data: struct het_fitjob_failure */
};

enum het_fitjob_phase {
	HET_FITJOB_STARTING = 0,	/* thread started, nothing read yet */
	HET_FITJOB_READING,		/* building the problem */
	HET_FITJOB_FITTING,		/* iterating */
	HET_FITJOB_WRITING,		/* grids and results files */
	HET_FITJOB_FINISHED		/* DONE or FAILED was posted */
};
#define HET_FITJOB_NPHASES	(HET_FITJOB_FINISHED + 1)

/* Side of the display grids when het_fitjob_spec.grid is 0. */
#define HET_FITJOB_GRID 64

/* Hooks of het_fitjob_execute; any may be NULL. */
struct het_fitjob_hooks {
	/* Bin k (0-based) of n was read. */
	void	(*read)(void *ctx, size_t k, size_t n,
		    const struct het_bin *bin);
	/* The problem is built: its warnings can be shown now. */
	void	(*built)(void *ctx, const struct het_problem *pb);
	/* An iteration record (het_fit's progress callback: serialised,
	   possibly on a pool thread; must return quickly). */
	void	(*iter)(void *ctx, const struct het_fit_progress *pr);
	/* The fit ended; grids and files are being made for outdir. */
	void	(*writing)(void *ctx, const char *outdir);
	void	*ctx;
};

/* What to fit.  Zero-initialise, then fill. */
struct het_fitjob_spec {
	const struct het_config *cfg;	/* validated configuration */
	const char	*data_path;	/* NULL: the config's data file */
	const char	*outdir;	/* NULL: het_fitjob_default_outdir */
	double		 dt;		/* > 0 overrides config and file */
	int		 per_angle;	/* fit each angle alone */
	size_t		 threads;	/* pool threads, 0: one per core */
	/*
	 * Warm start (optional): values by parameter name, e.g. a previous
	 * result's names and x.  Every free parameter of the new problem
	 * whose name is found starts there (clipped into its bounds); the
	 * others start where the configuration says.
	 */
	const char *const *start_names;
	const double	*start_x;
	size_t		 nstart;
	size_t		 grid;		/* display grid side, 0: the default;
					   joint fits only */
	int		 no_grids;	/* 1: no display grids */
};

/* Block means of one angle's c2 over a side x side grid of frames. */
struct het_fitjob_grid {
	size_t		 side;		/* grid side, <= the frames */
	double		*data;		/* side * side; NAN where empty */
	double		*model;		/* the fitted model */
	double		*resid;		/* data - model */
};

/* A fit that ran.  Free with het_fitjob_result_free. */
struct het_fitjob_result {
	struct het_problem *pb;		/* selection, data, start, warnings */
	struct het_fit_result **fits;	/* nfits: 1 joint, else per angle
					   (NULL entries: angles not run) */
	size_t		 nfits;
	int		 per_angle;
	int		 status;	/* HET_OK or HET_ECANCEL */
	const char	*status_name;	/* "converged", "not_converged",
					   "cancelled" (static) */
	int		 converged;	/* every fit converged */
	struct het_results_iter *hist;	/* every iteration record */
	size_t		 nhist;
	int		 hist_incomplete; /* memory ran out while recording */
	char		*data_path;	/* the file fitted */
	char		*outdir;	/* where the files go */
	char		 outdir_note[512]; /* why there, or "" */
	int		 written;	/* 1: the results files are written */
	struct het_error write_err;	/* why not, when written == 0 */
	size_t		 nwarm;		/* parameters taken from the warm
					   start */
	double		 wall_time;	/* s, the whole job */
	size_t		 threads;	/* pool threads used */
	struct het_fitjob_grid *grids;	/* pb->nangles, or NULL */
};

/* A job that could not produce a fit.  Free with free(). */
struct het_fitjob_failure {
	enum het_fitjob_phase phase;	/* where it failed */
	struct het_error err;		/* HET_ECANCEL: cancelled while
					   reading */
};

/* The latest state of a running job, from het_fitjob_poll. */
struct het_fitjob_snap {
	enum het_fitjob_phase phase;
	/* s after the start when the job entered each phase, -1 for those
	   not reached yet: a job that went from reading to its end between
	   two polls still shows that it fitted, and for how long */
	double		 phase_at[HET_FITJOB_NPHASES];
	size_t		 bins_done, bins_total;	/* reading */
	double		 elapsed;	/* s since the job started */
	int		 iterating;	/* pr is valid */
	struct het_fit_progress pr;	/* the last record; pr.x == x */
	size_t		 p;		/* 0 until the problem is built */
	char		**names;	/* p names */
	double		*x;		/* p current values */
	double		*x0, *lo, *hi;	/* p start values and bounds */
	struct het_results_iter *hist;	/* records hist_from .. + nhist */
	size_t		 hist_from, nhist;
	size_t		 hist_total;	/* records so far */
};

struct het_fitjob;

/*
 * het_fitjob_execute: run a whole fit on the calling thread.
 *   spec    what to fit (borrowed for the call).
 *   hooks   NULL or progress hooks (see above).
 *   cancel  NULL or a flag; once non-zero the job stops at the next bin
 *           or iteration.
 *   out     on HET_OK and HET_ECANCEL-after-fitting, the result (caller
 *           frees with het_fitjob_result_free); otherwise NULL.  A result
 *           whose files could not be written has written = 0 and the
 *           reason in write_err; the call still returns its fit status.
 * Returns HET_OK (a fit ran to a stopping test; see result->converged);
 * HET_ECANCEL (with *out: cancelled while iterating, partial result; with
 * *out NULL: cancelled while reading, nothing written); or the error of
 * the data path, open, problem, pool or fit (HET_EINVAL, HET_EIO,
 * HET_ENOTFOUND, HET_ERANGE, HET_EDATA, HET_EFORMAT, HET_ENOMEM, ...) in
 * err.  Thread: any thread that is not a pool thread; it blocks.
 */
int het_fitjob_execute(const struct het_fitjob_spec *spec,
    const struct het_fitjob_hooks *hooks, const atomic_int *cancel,
    struct het_fitjob_result **out, struct het_error *err);

/*
 * het_fitjob_start: snapshot spec (the configuration and every string
 * and array are copied) and run het_fitjob_execute on a new thread with
 * every signal blocked, posting to q (borrowed; it must outlive the job)
 * with het_event.job = id.
 * Returns the job (het_fitjob_free), or NULL with HET_EINVAL (no cfg),
 * HET_ENOMEM or HET_EINTERNAL (no thread) in err.  Thread: the loop.
 */
struct het_fitjob *het_fitjob_start(struct het_evq *q, int id,
    const struct het_fitjob_spec *spec, struct het_error *err);

/* het_fitjob_cancel: ask the job to stop (idempotent).  Thread: any. */
void het_fitjob_cancel(struct het_fitjob *job);

/* het_fitjob_finished: 1 once DONE or FAILED was posted.  Thread: any. */
int het_fitjob_finished(struct het_fitjob *job);

/*
 * het_fitjob_poll: a copy of the job's latest state, with the iteration
 * records from index hist_from on, and re-arm the PROGRESS event.
 * Returns a snapshot (free with het_fitjob_snap_free) or NULL with
 * HET_ENOMEM.  Thread: the loop (the consumer of q).
 */
struct het_fitjob_snap *het_fitjob_poll(struct het_fitjob *job,
    size_t hist_from, struct het_error *err);
void het_fitjob_snap_free(struct het_fitjob_snap *snap);

/*
 * het_fitjob_free: cancel the job, join its thread and free it.  Blocks
 * at most until the job notices the flag (one bin or iteration, plus the
 * writing of a partial result).  Events already posted stay queued.
 * NULL is a no-op.  Thread: the thread that started it.
 */
void het_fitjob_free(struct het_fitjob *job);

/* Free a result / its display grids (NULL is a no-op).  Thread: any. */
void het_fitjob_result_free(void *result);

/*
 * het_fitjob_default_outdir: make the folder of a new `analysis` run
 * ("fit", "sample") of data_path with cfg (het_rundir_make, at the time
 * of the call).
 *   made  out, may be NULL: 1 when the folder was created by this call.
 *   note  out: "" or a few words on the choice ("a new folder for this
 *         run"); may be NULL.
 * Returns a malloc'd path (caller frees) or NULL with err set (HET_ENOMEM,
 * HET_EIO: a folder cannot be created).  Thread: any; blocks on mkdir.
 */
char *het_fitjob_default_outdir(const struct het_config *cfg,
    const char *data_path, const char *analysis, int *made, char *note,
    size_t notelen, struct het_error *err);

/*
 * het_fitjob_flag: a parameter's flags in words: "at lower bound", "at
 * upper bound", "degenerate" (flagged by the identifiability analysis,
 * or no finite positive uncertainty), "at bound, degenerate", or "".
 * A cancelled fit's brief report (fr->brief) computed no uncertainty,
 * so it has the bound flags only.  Static string.  Thread: any.
 */
const char *het_fitjob_flag(const struct het_fit_result *fr, size_t k);

/* het_fitjob_unit: the ASCII unit of a physics parameter, "" otherwise. */
const char *het_fitjob_unit(const struct het_problem *pb, const char *name);

/*
 * het_fitjob_describe: the results-file description of one fit result.
 * Fills *f with pointers borrowed from fr (valid while fr lives) and
 * *starts with a calloc'd array of fr->nstarts start records that *f
 * points into (the caller frees *starts).  Returns 0, or -1 when out of
 * memory (*starts NULL).  Thread: any.
 */
struct het_results_fit;
struct het_results_start;
int het_fitjob_describe(const struct het_fit_result *fr,
    struct het_results_fit *f, struct het_results_start **starts);

#endif /* HET_FITJOB_H */
