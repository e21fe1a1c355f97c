/*
 * ui_p_data_cut.c: the fitted model drawn over the Data panel's cuts
 * (g2 against lag at the cursor's age, c2 against age at its lag).
 *
 * Design: the session names the run folder of the fit to draw (the Fit
 * panel's last written fit or the run loaded in the Results panel,
 * ui_data_model); the panel asks the I/O thread for views that carry
 * that fit's model of the bin shown (het_io.h: model_al, the age-lag
 * means of its fitted c2 over the same window as the data's), so a cut
 * of the model is one row or column of a matrix computed off the loop
 * thread, like the data's.  The model is a second series over the bar
 * chart: one glyph per column, in its own colour, at the height of the
 * column's mean, with a legend in the label column; without a model
 * the legend says why ("no fit yet", "angle not fit", ...) and the Log
 * has the whole sentence.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_p_data.h"

void
ui_data_model(struct ui *ui, const char *dir)
{
	free(ui->ses.model_dir);
	ui->ses.model_dir = dir != NULL ? ui_xstrdup(dir) : NULL;
	ui_data_refresh(ui);
	ui_dirty(ui, UI_DIRTY_BODY);
}

const double *
data_cut_model(const struct data_state *s, double *tmp, size_t *n,
    double *lo, double *hi)
{
	const struct het_io_view *v = s->view;
	const double *m;
	size_t a, k;

	*n = 0;
	if (s->chart == DC_ONETIME || v->model != HET_IO_MODEL_SHOWN ||
	    v->model_al == NULL)
		return NULL;
	data_cursor_age_lag(s, &a, &k);
	if (s->chart == DC_AGE) {
		m = v->model_al + a * v->n + 1;
		*n = v->n - 1;
	} else {
		for (a = 0; a < v->nage; a++)
			tmp[a] = v->model_al[a * v->n + (k > 0 ? k : 1)];
		m = tmp;
		*n = v->nage;
	}
	for (k = 0; k < *n; k++)
		if (isfinite(m[k])) {
			*lo = m[k] < *lo ? m[k] : *lo;
			*hi = m[k] > *hi ? m[k] : *hi;
		}
	return m;
}

/* Why a cut has no model, in the few columns of the legend. */
static const char *
why_short(const struct ui *ui, const struct het_io_view *v)
{
	switch (v->model) {
	case HET_IO_MODEL_NONE:
		return ui->ses.model_dir == NULL ? "no fit yet" :
		    "reading fit";
	case HET_IO_MODEL_SHOWN:
		return "";
	case HET_IO_MODEL_UNREADABLE:
		return "fit unreadable";
	case HET_IO_MODEL_OTHER_FILE:
		return "other file";
	case HET_IO_MODEL_NO_ANGLE:
		return "angle not fit";
	case HET_IO_MODEL_OUTSIDE:
		return "outside fit";
	}
	return "";
}

void
data_cut_legend(struct ui *ui, const struct data_state *s, WINDOW *w,
    int sy, int lx, const double *mvals, size_t n, int logx, double lo,
    double hi)
{
	int wd = s->cols - lx - 1, used;

	if (s->chart == DC_ONETIME || wd < 1)
		return;
	if (mvals == NULL) {
		ui_put(w, sy + 1, lx, wd, ui_color_attr(UI_C_DIM),
		    why_short(ui, s->view));
		return;
	}
	if (ui_spark_marks(w, sy, s->hx, SPARK_ROWS, s->hw, mvals, n, lo, hi,
	    logx) == 0) {
		ui_put(w, sy + 1, lx, wd, ui_color_attr(UI_C_DIM),
		    "no model here");
		return;
	}
	used = ui_put(w, sy + 1, lx, wd, ui_color_attr(UI_C_MODEL),
	    ui->scr.term.g->model);
	ui_put(w, sy + 1, lx + used, wd - used, A_NORMAL, " model");
}

void
data_cut_note(struct ui *ui, struct data_state *s)
{
	const struct het_io_view *v = s->view;
	char buf[HET_ERROR_MSG_MAX + 64];

	if (v->model == HET_IO_MODEL_NONE)
		buf[0] = '\0';
	else if (v->model == HET_IO_MODEL_SHOWN)
		snprintf(buf, sizeof(buf), "the cuts (c) draw the fitted "
		    "model of %s/ over the data (frames %ld-%ld)",
		    s->req_model != NULL ? s->req_model : "?",
		    v->model_first, v->model_last);
	else
		snprintf(buf, sizeof(buf), "no model over the cuts: %s",
		    v->model_note);
	if (s->model_note != NULL && strcmp(s->model_note, buf) == 0)
		return;
	free(s->model_note);
	s->model_note = ui_xstrdup(buf);
	if (buf[0] != '\0')
		ui_log(ui, UI_LOG_INFO, "%s", buf);
}
