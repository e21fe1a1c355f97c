/*
 * ui_p_results.h: the Results panel's loaded run (ui_p_results_run.c):
 * the run of the history the user picked, read back from its folder on
 * an engine thread (het_runload) and shown in place of the posterior.
 */
#ifndef UI_P_RESULTS_H
#define UI_P_RESULTS_H

#include "het_runload.h"
#include "ui.h"

struct results_run {
	struct het_runload	*load;	/* the read in flight, or NULL */
	int			 job;	/* id of the latest request */
	char			*want;	/* its folder (shown while loading) */
	struct het_runload_result *res;	/* the run shown, or NULL */
};

/* Start reading the run in dir (a history record's outdir); the panel
 * then shows "loading".  Loop thread. */
void	ui_results_run_pick(struct ui *, struct results_run *,
	    const char *dir);
/* A DONE of the latest request becomes the run shown. Loop thread. */
void	ui_results_run_event(struct ui *, struct results_run *,
	    struct het_event *ev);
/* Draw the run shown (or "loading") in rows from y; returns the next
 * free row.  Loop thread. */
int	ui_results_run_draw(struct ui *, const struct results_run *,
	    WINDOW *w, int y, int rows, int cols);
/* 1 when something is shown or loading. */
int	ui_results_run_active(const struct results_run *);
/* Back to the posterior: join any read, free the run.  Loop thread. */
void	ui_results_run_clear(struct results_run *);

/* The run history as CSV in the configuration's output_dir, atomically;
 * the outcome in the status line (ui_p_results_csv.c).  Loop thread. */
void	ui_results_csv_save(struct ui *);

#endif
