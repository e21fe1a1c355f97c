/*
 * ui_figs.c: the figures of a run folder written from a panel (see
 * ui_figs.h), as `hetui report RUN_DIR` would write them.
 *
 * Design: the panel never draws a figure: het_figjob runs the headless
 * command as a child (its own process group, its output to a log) and
 * the panel's loop hooks reap it; this file only turns the job's view
 * into words.  The start, the end (how many figures, in which folder)
 * and every refusal go to the status line and the Log; while a job
 * runs the status line (when it has nothing newer to say) and the tab
 * bar say so (ui_figs_note).  The jobs of both panels are registered in
 * the session, so that two never write the same folder at once.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_figs.h"

#define UI_FIGS_WIND_DOWN	10.0	/* s a quit lets the figures finish */

void
ui_figs_init(struct ui *ui, struct ui_figs *f, const char *panel)
{
	size_t k;

	memset(f, 0, sizeof(*f));
	f->ui = ui;
	f->panel = panel;
	for (k = 0; k < UI_FIGS_MAX; k++)
		if (ui->ses.figs[k] == NULL) {
			ui->ses.figs[k] = f;
			break;
		}
}

static void
figs_drop(struct ui_figs *f)
{
	het_figjob_free(f->job);	/* kills, reaps and tidies a child */
	f->job = NULL;
	free(f->what);
	f->what = NULL;
	f->said = 0;
}

void
ui_figs_fini(struct ui_figs *f)
{
	size_t k;

	figs_drop(f);
	for (k = 0; k < UI_FIGS_MAX; k++)
		if (f->ui->ses.figs[k] == f)
			f->ui->ses.figs[k] = NULL;
}

int
ui_figs_running(const struct ui_figs *f)
{
	return f->job != NULL &&
	    het_figjob_view(f->job)->end == HET_FIGJOB_RUNNING;
}

/* The running job of the session that writes dir's figures, or NULL. */
static const struct ui_figs *
figs_writing(const struct ui *ui, const char *dir)
{
	const struct het_figjob_view *v;
	size_t k, n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (k = 0; k < UI_FIGS_MAX; k++) {
		if (ui->ses.figs[k] == NULL ||
		    !ui_figs_running(ui->ses.figs[k]))
			continue;
		v = het_figjob_view(ui->ses.figs[k]->job);
		if (strlen(v->run_dir) == n && strncmp(v->run_dir, dir, n) ==
		    0)
			return ui->ses.figs[k];
	}
	return NULL;
}

int
ui_figs_start(struct ui_figs *f, const char *dir, const char *what)
{
	struct ui *ui = f->ui;
	const struct ui_figs *other;
	struct het_figjob_spec spec;
	struct het_figjob *j;
	struct het_error err;

	if (ui_figs_running(f)) {
		ui_msg(ui, UI_LOG_INFO, "the figures of %s are being written: "
		    "wait, or c cancels them", f->what);
		return 0;
	}
	if ((other = figs_writing(ui, dir)) != NULL) {
		ui_msg(ui, UI_LOG_INFO, "the %s panel writes the figures of "
		    "that run: wait for them", other->panel);
		return 0;
	}
	memset(&spec, 0, sizeof(spec));
	spec.run_dir = dir;
	het_error_clear(&err);
	if ((j = het_figjob_start(&spec, ui_now(), &err)) == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "figures not started: %s", err.msg);
		return 0;
	}
	figs_drop(f);
	f->job = j;
	f->what = ui_xstrdup(what);
	ui_msg(ui, UI_LOG_INFO, "writing the figures of %s %s/ (hetui "
	    "report; c cancels)", what, het_figjob_view(j)->run_dir);
	ui_dirty(ui, UI_DIRTY_TABS | UI_DIRTY_STATUS);
	return 1;
}

int
ui_figs_cancel(struct ui_figs *f)
{
	if (!ui_figs_running(f))
		return 0;
	if (het_figjob_view(f->job)->cancelling) {
		ui_msg(f->ui, UI_LOG_INFO, "the figures are being stopped");
		return 1;
	}
	het_figjob_cancel(f->job, ui_now());
	ui_msg(f->ui, UI_LOG_WARN, "cancelling the figures of %s", f->what);
	return 1;
}

double
ui_figs_deadline(const struct ui_figs *f)
{
	return ui_figs_running(f) ? het_figjob_deadline(f->job, ui_now()) :
	    -1.0;
}

/* The end of a job, in the status line and the Log. */
static void
figs_said(struct ui_figs *f)
{
	const struct het_figjob_view *v = het_figjob_view(f->job);
	struct ui *ui = f->ui;

	f->said = 1;
	switch (v->end) {
	case HET_FIGJOB_WRITTEN:
		ui_msg(ui, v->cancelling ? UI_LOG_WARN : UI_LOG_INFO, "%zu "
		    "figure%s written to %s/ (%.1f s)%s", v->nfig,
		    v->nfig == 1 ? "" : "s", v->out_dir, v->ended - v->started,
		    v->cancelling ? ", before the cancel took effect" : "");
		break;
	case HET_FIGJOB_FAILED:
		ui_msg(ui, UI_LOG_ERROR, "figures not written: %s%s%s%s",
		    v->error, v->log_path != NULL ? " (the whole "
		    "output: " : "", v->log_path != NULL ? v->log_path : "",
		    v->log_path != NULL ? ")" : "");
		break;
	case HET_FIGJOB_CANCELLED:
		ui_msg(ui, UI_LOG_WARN, "figures cancelled: %s/ %s",
		    v->out_dir, v->out_kept ? "keeps its earlier figures" :
		    "removed");
		break;
	case HET_FIGJOB_RUNNING:
		f->said = 0;
		break;
	}
}

void
ui_figs_handle(struct ui_figs *f)
{
	if (f->job == NULL || f->said)
		return;
	(void)het_figjob_reap(f->job, ui_now());
	if (!ui_figs_running(f))
		figs_said(f);
	/* the status line's elapsed time moves, the tab bar's mark goes */
	ui_dirty(f->ui, UI_DIRTY_TABS | UI_DIRTY_STATUS);
}

void
ui_figs_wind_down(struct ui_figs *f, char *msg, size_t len)
{
	const struct het_figjob_view *v;

	if (!ui_figs_running(f))
		return;
	het_figjob_wind_down(f->job, UI_FIGS_WIND_DOWN);
	v = het_figjob_view(f->job);
	if (v->end == HET_FIGJOB_WRITTEN)
		snprintf(msg, len, "the figures of %s/ were written to %s/",
		    v->run_dir, v->out_dir);
	else if (v->end == HET_FIGJOB_CANCELLED)
		snprintf(msg, len, "the figures of %s/ were stopped: %s/ %s",
		    v->run_dir, v->out_dir, v->out_kept ? "keeps its earlier "
		    "figures" : "removed");
	else
		snprintf(msg, len, "the figures of %s/ were not written: %s",
		    v->run_dir, v->error != NULL ? v->error : "");
}

const char *
ui_figs_note(const struct ui *ui, char *buf, size_t len)
{
	const struct het_figjob_view *v;
	size_t k;

	for (k = 0; k < UI_FIGS_MAX; k++) {
		if (ui->ses.figs[k] == NULL ||
		    !ui_figs_running(ui->ses.figs[k]))
			continue;
		v = het_figjob_view(ui->ses.figs[k]->job);
		snprintf(buf, len, "writing the figures of %s %s/ ... %.0f s "
		    "(c cancels)", ui->ses.figs[k]->what, v->run_dir,
		    ui_now() - v->started);
		return buf;
	}
	return NULL;
}
