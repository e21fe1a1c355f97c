/*
 * ui_figs.h: the figures of a run folder written from a panel (the Fit
 * panel's f: the fit or batch shown; the Results panel's f: the run
 * picked in the history) by a child hetui report (het_figjob).  Include
 * after ui.h.  Loop thread only.
 *
 * One job per panel at a time, and one per run folder in the session;
 * the panel's loop hooks call ui_figs_deadline and ui_figs_handle,
 * its busy hook ui_figs_running, its wind_down hook ui_figs_wind_down
 * and its free hook ui_figs_fini.
 */
#ifndef HET_UI_FIGS_H
#define HET_UI_FIGS_H

#include "het_figjob.h"

struct ui_figs {
	struct ui		*ui;
	const char		*panel;	/* "Fit", "Results" (static) */
	struct het_figjob	*job;	/* running or ended, or NULL */
	char			*what;	/* "the fit", ... (in messages) */
	int			 said;	/* its end was said */
};

/* Register f with the session (ui->ses.figs) for the panel named. */
void	ui_figs_init(struct ui *, struct ui_figs *f, const char *panel);
/* Stop a job still running (its folder tidied), unregister, free. */
void	ui_figs_fini(struct ui_figs *f);

/*
 * ui_figs_start: write the figures of the run or batch folder dir
 * (what: "the fit", "the batch", ... for the messages): refused, with
 * the reason in the status line, while this panel's job runs or another
 * panel's writes the same folder's.  Returns 1 when started.
 */
int	ui_figs_start(struct ui_figs *f, const char *dir, const char *what);
int	ui_figs_running(const struct ui_figs *f);
/* ui_figs_cancel: 1 when a job ran and was told to stop (c). */
int	ui_figs_cancel(struct ui_figs *f);

/* The loop: the next time ui_figs_handle is due (< 0: none); that
   reaps the child and says how it ended. */
double	ui_figs_deadline(const struct ui_figs *f);
void	ui_figs_handle(struct ui_figs *f);
/* At exit: let a running job finish (at most UI_FIGS_WIND_DOWN s),
   else stop it; a sentence for stderr in msg ("" for none). */
void	ui_figs_wind_down(struct ui_figs *f, char *msg, size_t len);

#endif /* HET_UI_FIGS_H */
