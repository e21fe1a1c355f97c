/*
 * het_figjob.h: the figures of a run folder (or of a batch folder)
 * written for the workstation by a child `hetui report`.
 *
 * Design: the workstation draws no figure itself (cairo belongs to the
 * report library, which only the hetui command links, and a posterior's
 * figures take seconds); it runs the headless command a user would,
 * `hetui report --quiet -o RUN_DIR/report -- RUN_DIR`, through het_proc:
 * its own process group, stdout and stderr to a log in a temporary
 * folder of its own (out_to_log: the command speaks no wire protocol),
 * stdin closed.  The output is the command's default folder, so the
 * workstation and the command line share one set of figures and its
 * list (HET_FIGJOB_LIST): a second job refreshes hetui's own figures,
 * and a folder that holds files the user made is refused by the command
 * itself (the job never gives --force).  The end is the exit status: 0
 * gives the figures the list names that exist; anything else the
 * child's last line of output (its error) or how it ended.  Cancelling
 * sends SIGTERM to its group (SIGKILL after a grace period).  A child
 * that did not end in success leaves nothing half-written: its
 * temporary files (.NAME.tmp.PID, hetui's atomic writes) are removed,
 * and so is a folder that did not exist before the job, with the
 * figures its list names; a folder that existed keeps its figures (a
 * report renames each figure into place whole, and the same run folder
 * gives the same bytes).  Reaping and the kill policy never block.
 *
 * Thread: the loop thread (one thread per job).
 */
#ifndef HET_FIGJOB_H
#define HET_FIGJOB_H

#include <stddef.h>

#include "het_error.h"

/* The folder and list that hetui report writes (src/report's
   HET_REPORT_MARKER; the engine does not include the report's headers). */
#define HET_FIGJOB_OUT		"report"
#define HET_FIGJOB_LIST		".hetui-report"

/* What to draw.  Every pointer is borrowed for the call. */
struct het_figjob_spec {
	const char	*run_dir;	/* a run folder (hetui_results.h5) or a
					   batch folder (rings.csv,
					   series.csv) */
	const char	*program;	/* hetui; NULL: this program
					   (/proc/self/exe) */
	const char	*tmpdir;	/* for the log's folder; NULL: $TMPDIR,
					   else /tmp */
};

enum het_figjob_end {
	HET_FIGJOB_RUNNING = 0,
	HET_FIGJOB_WRITTEN,	/* exit 0: the figures are in out_dir */
	HET_FIGJOB_FAILED,	/* error says why */
	HET_FIGJOB_CANCELLED	/* stopped by het_figjob_cancel or
				   het_figjob_wind_down */
};

/* What the caller shows.  Owned by the job; read-only. */
struct het_figjob_view {
	enum het_figjob_end end;
	int		 cancelling;	/* het_figjob_cancel was called (a
					   child that ends in success anyway
					   is WRITTEN) */
	char		*run_dir;	/* as given, without a trailing '/' */
	char		*out_dir;	/* run_dir/report */
	size_t		 nfig;		/* WRITTEN: the figures in out_dir (its
					   list's that exist) */
	int		 exited;	/* the child exited (else a signal) */
	int		 status;	/* its exit status when exited */
	int		 signo;		/* the signal that ended it */
	char		*error;		/* FAILED: the child's last line of
					   output, else how it ended */
	char		*log_path;	/* FAILED with more output than that
					   line: the log, kept; else NULL */
	int		 out_kept;	/* not WRITTEN: out_dir is still there
					   (it held figures before the job) */
	double		 started, ended;	/* het_clock_now; ended 0
						   while running */
};

struct het_figjob;

/*
 * het_figjob_start: start the child at time now.  Returns the job, or
 * NULL with err: HET_EINVAL (no run folder), HET_EIO (the temporary
 * folder cannot be made, or the program cannot be run: the message
 * names it), HET_ENOMEM.
 */
struct het_figjob *het_figjob_start(const struct het_figjob_spec *spec,
    double now, struct het_error *err);

/* het_figjob_view: the state to show (valid until the next call). */
const struct het_figjob_view *het_figjob_view(const struct het_figjob *j);

/*
 * The child has no descriptor to poll (its output goes to the log, its
 * stdin is closed): its end wakes the caller's loop as SIGCHLD, or
 * het_figjob_deadline comes (het_clock_now seconds; < 0: the job has
 * ended).  het_figjob_reap, after every turn of that loop, reaps the
 * child and applies the kill policy; 1 when the view changed.  Neither
 * blocks.
 */
double het_figjob_deadline(const struct het_figjob *j, double now);
int het_figjob_reap(struct het_figjob *j, double now);

/* het_figjob_cancel: stop the child (SIGTERM, then SIGKILL): it ends
   CANCELLED unless it ended in success first.  Idempotent. */
void het_figjob_cancel(struct het_figjob *j, double now);

/*
 * het_figjob_wind_down: at exit: let the child finish for at most wait
 * seconds, then stop it as het_figjob_cancel does.  Blocks.  Afterwards
 * the job has ended; NULL or an ended job is a no-op.
 */
void het_figjob_wind_down(struct het_figjob *j, double wait);

/*
 * het_figjob_free: stop a child still running (SIGKILL) and reap it,
 * tidy as for a cancel, remove the temporary folder (but a kept log),
 * free everything.  NULL is a no-op.
 */
void het_figjob_free(struct het_figjob *j);

#endif /* HET_FIGJOB_H */
