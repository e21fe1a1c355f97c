/*
 * het_io.h: the engine's I/O thread.  Every HDF5 read of the workstation
 * runs here, so the loop thread never blocks on a file.
 *
 * Module engine/io (the opening comment of this folder): file work off
 * the loop thread: the workstation's I/O thread (het_io), folder
 * listings and follow mode (het_scan*), and a finished run read back for
 * the Results panel (het_runload).
 *
 * Design: one thread serves two request slots, "open a file" and "show a
 * view of one bin" (read its c2 window, then compute a downsampled grid,
 * the one-time projection and a far-lag baseline).  An open also reads
 * the file's multitau g2, if it has one, and fits it (het_io_mt.c): a
 * file with multitau data only opens that way.  Each slot holds only
 * the latest request: a new view replaces a queued one, and an open drops
 * a queued view.  Every request gets a generation number from one
 * increasing counter; a result whose request was superseded while it was
 * computed is discarded instead of posted, and the consumer compares
 * generations too, so a stale result can never reach the screen.
 * Results and errors travel to the loop as het_evq events whose payload
 * the consumer owns.  The thread blocks every signal, so they land on the
 * loop thread, and quiets HDF5's error printing for itself.
 */
#ifndef HET_IO_H
#define HET_IO_H

#include <stddef.h>

#include "het_dataset.h"
#include "het_error.h"
#include "het_evq.h"
#include "het_mtfit.h"
#include "het_multitau.h"

/* het_event.type values posted by the I/O thread (job = 0). */
enum het_io_event {
	HET_IO_EV_OPENED = 0x100,	/* data: struct het_io_meta */
	HET_IO_EV_VIEW,			/* data: struct het_io_view */
	HET_IO_EV_ERROR,		/* data: struct het_io_failure */
	HET_IO_EV_MULTITAU		/* data: struct het_io_mt */
};

/* One bin as the UI needs it (a copy of struct het_bin's facts). */
struct het_io_bin {
	long		label;
	size_t		q_idx, phi_idx;
	double		q, phi;		/* 1/Angstrom, degrees */
};

/*
 * HET_IO_EV_OPENED: an immutable metadata snapshot of the opened file.
 * Every pointer is owned by the snapshot; free with het_io_meta_free.
 */
struct het_io_meta {
	unsigned long	 gen;
	char		*path;
	enum het_layout	 layout;
	enum het_dtype	 dtype;
	enum het_compress compression;
	size_t		 nbins, n_q, n_phi, frames;
	double		 dt;		/* seconds, NAN if unknown */
	char		*dt_source;
	double		 energy_kev;	/* NAN if absent */
	double		 distance_m;	/* NAN if absent */
	double		*q_list, *phi_list;
	struct het_io_bin *bins;	/* nbins */
};

/* What to show: one bin, a frame window, a grid size. */
struct het_io_view_req {
	size_t		bin;		/* 0 <= bin < nbins */
	long		first, last;	/* 1-based inclusive; 0, 0: all */
	size_t		rows, cols;	/* grid wanted (>= 1 each) */
	const char	*model_dir;	/* NULL, or a run folder (hetui fit,
					   the Fit panel, hetui sample) whose
					   fitted c2 of this bin the view
					   carries too (copied) */
};

/* What became of the model a view was asked to carry. */
enum het_io_model {
	HET_IO_MODEL_NONE = 0,	/* none was asked for */
	HET_IO_MODEL_SHOWN,	/* model_al holds it */
	HET_IO_MODEL_UNREADABLE, /* the run folder cannot be read */
	HET_IO_MODEL_OTHER_FILE, /* the run fitted another data file */
	HET_IO_MODEL_NO_ANGLE,	/* the run did not fit this bin */
	HET_IO_MODEL_OUTSIDE	/* the run's frames miss the window */
};

/*
 * HET_IO_EV_VIEW: the computed view.  grid[r * cols + c] is the mean of
 * c2[i][j] over i in row block r and j in column block c, where block k of
 * p blocks over n frames is [k*n/p, (k+1)*n/p) (het_io_block).  rows and
 * cols never exceed n.  g2[k], k = 0..n-1, is the mean along lag k.
 * age_lag[a * n + k] is the mean of c2[i][i + k] over the pairs whose
 * age, in half frames h = 2 i + k, lies in age block a of nage over the
 * 2n - 1 half-frame ages (het_io_block(2n - 1, nage, a)); NAN where no
 * pair has that lag at those ages (a cut at fixed age is row a, the
 * standard reading of a two-time map; at fixed lag, column k: the
 * stability check).  nage = min(cols, 2n - 1).
 * With a model_dir in the request, model is what became of it and, when
 * it is HET_IO_MODEL_SHOWN, model_al the same age-lag means of the
 * run's fitted c2 of this bin (read from its hetui_results.h5: the
 * model of the fitted parameters with the angle's contrast and offset)
 * over the same window, NAN in a block with a pair outside the frames
 * the fit used (model_first .. model_last); model_note says why not in
 * a sentence otherwise.
 * Free with het_io_view_free.
 */
struct het_io_view {
	unsigned long	 gen;
	size_t		 bin;
	long		 first, last;	/* the resolved window */
	size_t		 n;		/* frames in the window */
	size_t		 rows, cols;
	double		*grid;
	double		 gmin, gmax;	/* range of grid */
	double		*g2;		/* n values */
	size_t		 nage;		/* age blocks of age_lag */
	double		*age_lag;	/* nage * n values */
	double		 baseline;	/* mean c2 at lags >= 3(n-1)/4, i != j */
	enum het_tri	 tri;		/* how the file stored the window */
	double		 seconds;	/* time spent reading and computing */
	enum het_io_model model;	/* the fitted model's fate */
	double		*model_al;	/* nage * n values, or NULL */
	long		 model_first, model_last; /* the fit's frames */
	char		 model_note[HET_ERROR_MSG_MAX];
};

enum het_io_req_kind {
	HET_IO_REQ_OPEN = 1,
	HET_IO_REQ_VIEW
};

/* HET_IO_EV_ERROR: a failed request.  Free with free(). */
struct het_io_failure {
	unsigned long	 gen;
	enum het_io_req_kind kind;
	size_t		 bin;		/* VIEW only */
	struct het_error err;
};

/* Points of each fitted curve of struct het_io_mt. */
#define HET_IO_MT_CURVE	192

/*
 * HET_IO_EV_MULTITAU: the multitau g2 of the file an open request read
 * (het_io_mt.c), with every bin fitted by both models and D from each
 * model's rates, computed on the I/O thread so that the Data panel only
 * draws.  A file with two-time matrices and multitau data gives
 * HET_IO_EV_OPENED, then this event (only 0); a multitau-only file gives
 * this event alone (only 1) as the result of its open, instead of
 * HET_IO_EV_ERROR; a file without multitau data gives none.  Every
 * pointer is owned by the payload; free with het_io_mt_free.
 */
struct het_io_mt {
	unsigned long	 gen;		/* the open's generation */
	int		 only;		/* no two-time matrices: the open's
					   result */
	struct het_multitau *mt;	/* NULL when unreadable (err) */
	struct het_error err;		/* why mt is NULL */
	struct het_error twotime;	/* only: why the file's two-time data
					   were not read, when it has some
					   (code HET_OK otherwise) */
	struct het_mtfit *fit[HET_MTFIT_NMODELS];	/* mt->nbins each */
	double		 curve_tau[HET_IO_MT_CURVE];	/* seconds,
					   log-spaced from the first delay to
					   the last */
	double		*curve[HET_MTFIT_NMODELS];	/* nbins *
					   HET_IO_MT_CURVE: each bin's fitted
					   g2 at curve_tau (NaN: no fit) */
	struct het_mtfit_diff diff[HET_MTFIT_NMODELS];	/* D per model */
	struct het_error diff_err[HET_MTFIT_NMODELS];	/* why D is NaN
					   (code HET_OK when it is not) */
	double		 seconds;	/* reading and fitting */
};

/*
 * het_io_mt_load: what the I/O thread posts for a file: its multitau g2
 * (het_multitau_read), every bin fitted with both models (het_mtfit_bin,
 * default options), the curves and D (het_mtfit_diffusion).
 *   path  the file.
 * Returns a new payload (gen and only 0; free with het_io_mt_free) whose
 * mt is NULL with err set when the multitau data cannot be read or
 * fitted; NULL with err set when the file holds no multitau data
 * (HET_ENOTFOUND) or memory runs out (HET_ENOMEM).
 * Thread: any (the I/O thread calls it).
 */
struct het_io_mt *het_io_mt_load(const char *path, struct het_error *err);

struct het_io;

/*
 * het_io_alloc: an I/O server posting to q (borrowed; it must outlive the
 * server).  The thread is not started yet, so requests can be queued
 * first (tests use this to make supersession deterministic).
 * Returns NULL with HET_ENOMEM or HET_EINTERNAL in err.  Thread: any.
 */
struct het_io *het_io_alloc(struct het_evq *q, struct het_error *err);

/*
 * het_io_start: block all signals in the new thread (pthread_sigmask
 * around pthread_create) and start serving.  Returns HET_OK, or
 * HET_EINTERNAL when the thread cannot be created.  Call once.
 * Thread: the owner (loop) thread.
 */
int het_io_start(struct het_io *io, struct het_error *err);

/*
 * het_io_open: queue "open path" (copied), dropping any queued request.
 * The current dataset stays usable until the new one opens.
 *   gen  on success, the request's generation (may be NULL).
 * Returns HET_OK or HET_ENOMEM.  Thread: the owner thread.
 */
int het_io_open(struct het_io *io, const char *path, unsigned long *gen,
    struct het_error *err);

/*
 * het_io_view: queue a view of the open dataset, replacing a queued view.
 * Returns HET_OK, or HET_EINVAL for a zero grid size.  Without an open
 * dataset the request fails later with an HET_IO_EV_ERROR event.
 * Thread: the owner thread.
 */
int het_io_view(struct het_io *io, const struct het_io_view_req *req,
    unsigned long *gen, struct het_error *err);

/*
 * het_io_busy: non-zero while a request is queued or being served.
 * Thread: any.
 */
int het_io_busy(struct het_io *io);

/*
 * het_io_free: cancel queued work, ask a running computation to stop at
 * its next check, join the thread and close the dataset.  A read already
 * inside HDF5 finishes first.  Events already posted stay in the queue.
 * NULL is a no-op.  Thread: the owner thread.
 */
void het_io_free(struct het_io *io);

/* Payload destructors (NULL is a no-op); usable as het_event.free_cb. */
void het_io_meta_free(void *meta);
void het_io_view_free(void *view);
void het_io_mt_free(void *mt);

/* het_io_block: the frame range [*lo, *hi) of block k of p over n. */
void het_io_block(size_t n, size_t p, size_t k, size_t *lo, size_t *hi);

/*
 * het_io_grid: the block means of an n x n matrix into rows x cols
 * (rows, cols <= n), with their range.  Exposed for tests.  Thread: any.
 */
void het_io_grid(const double *c2, size_t n, size_t rows, size_t cols,
    double *grid, double *gmin, double *gmax);

/*
 * het_io_age_lag: the age-lag means of an n x n symmetric matrix into
 * al (nage * n values, layout of struct het_io_view's age_lag; nage <=
 * 2n - 1).  Returns 0, or -2 when memory runs out (al untouched).
 * Exposed for tests.  Thread: any.
 */
int het_io_age_lag(const double *c2, size_t n, size_t nage, double *al);

#endif /* HET_IO_H */
