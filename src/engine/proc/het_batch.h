/*
 * het_batch.h: a batch of fits run for the workstation: `hetui fit
 * --all-rings` (every q ring of a file) or `hetui fit --series` (every
 * file of a series) as a child process, followed through its records.
 *
 * Design: the workstation does not run a batch itself; it runs the same
 * headless subcommand that a user would, so both share every line of the
 * batch (the rings, the warm starts of a series, the batch folder, the
 * summary files, the printed table and plots).  het_batch_start writes
 * the configuration to a temporary folder of its own and starts
 * `hetui fit -c THAT --wire --all-rings FILE` (or `--series FILES...`)
 * through het_proc: its own process group, stdin and stdout pipes,
 * stderr to a log in the temporary folder.  The child's records
 * (docs/wire-protocol.md, section 7) update a view that the caller
 * draws: the batch folder, each ring or file with its status and
 * reduced chi-square, the one being fitted (reading, iteration, cost),
 * the warnings, and at the end the status, the exit status and the
 * summary the command prints.  Cancelling closes the child's stdin (the
 * protocol's "shut down now"): the child cancels its fit as SIGTERM
 * would and still sends its summary.  The caller's loop polls the
 * descriptors of het_batch_pollfds and calls het_batch_handle after
 * every poll (also on SIGCHLD and on the deadline): reading, reaping
 * and the kill policy never block.
 *
 * Thread: the loop thread (one thread per batch).
 */
#ifndef HET_BATCH_H
#define HET_BATCH_H

#include <poll.h>
#include <stddef.h>

#include "het_config.h"
#include "het_error.h"

enum het_batch_kind {
	HET_BATCH_RINGS = 0,	/* --all-rings: every q ring of one file */
	HET_BATCH_SERIES	/* --series: files or folders */
};

/* What to run.  Every pointer is borrowed for the call. */
struct het_batch_spec {
	enum het_batch_kind kind;
	const struct het_config *cfg;	/* validated; written to a file */
	const char	*data_path;	/* rings: the file */
	const char *const *inputs;	/* series: files and folders */
	size_t		 ninputs;
	const char	*program;	/* hetui; NULL: this program
					   (/proc/self/exe) */
	const char	*tmpdir;	/* for the temporary folder; NULL:
					   $TMPDIR, else /tmp */
};

/* One ring or file of the batch, in the order they start. */
struct het_batch_member {
	char		*label;		/* "ring 2  q 0.0075" or the name */
	char		*dir;		/* its results folder */
	char		*status;	/* NULL while it runs; converged,
					   not_converged, cancelled, failed */
	double		 chi2_red;	/* NAN when none */
	char		*msg;		/* why it failed, or NULL */
	long		 from;		/* series: the file it started from
					   (1-based), 0: the configuration */
};

/* What the caller draws.  Owned by the batch; read-only. */
struct het_batch_view {
	enum het_batch_kind kind;
	int		 running;	/* the child has not ended */
	int		 cancelling;	/* het_batch_cancel was called */
	char		*batch_dir;	/* once the child names it */
	size_t		 of;		/* rings or files in the batch */
	struct het_batch_member *m;	/* nm started so far */
	size_t		 nm;
	/* the one being fitted (the last member, while status is NULL) */
	size_t		 bin, bins;	/* reading: bin of bins */
	int		 iterating;	/* iter, cost, chi2_red, who are set */
	long		 iter;
	double		 cost, chi2_red;
	char		 who[48];	/* "window", "start 2/4", ... */
	/* warnings and errors the child sent, oldest first */
	char		**notes;
	size_t		 nnotes;
	/* the end */
	int		 have_result;	/* the result record came */
	char		*status;	/* its status, or NULL */
	int		 exit_code;	/* its exit status */
	size_t		 n_fitted;
	char		*summary;	/* its table and plots, or NULL */
	char		*error;		/* why the batch failed without a
					   result, or NULL */
	double		 started, ended;	/* het_clock_now; ended 0
						   while running */
};

struct het_batch;

/*
 * het_batch_start: write spec->cfg to a new temporary folder and start
 * the child at time now.  Returns the batch, or NULL with err: HET_EINVAL
 * (no configuration, a rings batch without a file, a series without
 * inputs), HET_EIO (the folder, the file or the process cannot be made:
 * the message names it), HET_ENOMEM.
 */
struct het_batch *het_batch_start(const struct het_batch_spec *spec,
    double now, struct het_error *err);

/* het_batch_view: the state to draw (valid until the next call). */
const struct het_batch_view *het_batch_view(const struct het_batch *b);

/*
 * The loop: het_batch_pollfds fills at most cap entries (HET_BATCH_FDS
 * always suffice) and returns how many; het_batch_deadline is the next
 * time het_batch_handle must run (het_clock_now seconds; < 0 none);
 * het_batch_handle reads the child's records, reaps it and applies the
 * kill policy, and returns 1 when the view changed.  Never block.
 */
#define HET_BATCH_FDS	2
size_t het_batch_pollfds(struct het_batch *b, struct pollfd *fds,
    size_t cap);
double het_batch_deadline(const struct het_batch *b, double now);
int het_batch_handle(struct het_batch *b, const struct pollfd *fds,
    size_t n, double now);

/* het_batch_cancel: close the child's stdin: it cancels (idempotent). */
void het_batch_cancel(struct het_batch *b);

/*
 * het_batch_wind_down: at exit: cancel and wait at most wait seconds for
 * the child to write what finished and end, then kill it (SIGTERM, after
 * a grace period SIGKILL).  Blocks.
 */
void het_batch_wind_down(struct het_batch *b, double wait);

/*
 * het_batch_free: kill a child still running (SIGKILL) and reap it,
 * remove the temporary folder (kept when the child wrote to its log and
 * ended without a result or an error record: the error names the log),
 * free everything.
 * NULL is a no-op.
 */
void het_batch_free(struct het_batch *b);

#endif /* HET_BATCH_H */
