/*
 * ui_p_fit_batch.c: the Fit panel's batches: e fits every q ring of the
 * open file, t a series of files, each with the current model and
 * settings, as `hetui fit --all-rings` and `hetui fit --series` do.
 *
 * Design: the panel runs the headless subcommand itself as a child
 * process (het_batch: the configuration as edited, with the Data
 * panel's angles and frame window, written to a temporary file; the
 * child's wire records read in the loop), so the workstation and the
 * command line share every line of a batch and its result folder; the
 * panel only turns the batch's view into lines (ui_p_fit_batch_draw.c)
 * and messages: each ring or file that ends, each warning, and the end
 * (the summary, where it went, or why it failed) go to the Log.  One
 * fit or batch runs at a time; c cancels a running batch (its stdin is
 * closed: the child cancels its fit and still writes and sends its
 * summary); v switches between the batch and the last fit.  A series is
 * the files follow mode loaded (two or more), else the open file's
 * folder.  Quitting waits for a cancelled batch to write what finished.
 */
#include "config.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_p_fit.h"

#define BATCH_WIND_DOWN	30.0	/* s a quit waits for a cancelled batch */

int
fp_batch_running(const struct fit_state *s)
{
	return s->batch != NULL && het_batch_view(s->batch)->running;
}

static void
batch_start(struct ui *ui, struct fit_state *s, enum het_batch_kind kind)
{
	const char *const *files, *in[1];
	struct het_batch_spec spec;
	struct het_batch *b;
	struct het_error err;
	struct het_config *cfg;
	char *dir = NULL, what[1024];
	size_t nf;

	if (fp_refuse_busy(ui, s))
		return;
	if ((cfg = ui_config_for_selection(ui, kind == HET_BATCH_RINGS ?
	    "batch of every ring" : "series")) == NULL)
		return;
	memset(&spec, 0, sizeof(spec));
	spec.kind = kind;
	spec.cfg = cfg;
	if (kind == HET_BATCH_RINGS) {
		spec.data_path = ui->ses.meta->path;
		snprintf(what, sizeof(what), "every q ring of %s (%zu)",
		    ui->ses.meta->path, ui->ses.nrings);
	} else if ((files = ui_browse_followed(ui, &nf)) != NULL && nf >= 2) {
		spec.inputs = files;
		spec.ninputs = nf;
		snprintf(what, sizeof(what), "the %zu files follow mode "
		    "loaded", nf);
	} else {
		dir = ui_dir_of(ui->ses.meta->path);
		in[0] = dir;
		spec.inputs = in;
		spec.ninputs = 1;
		snprintf(what, sizeof(what), "the series of the result files "
		    "in %s/", dir);
	}
	het_error_clear(&err);
	b = het_batch_start(&spec, ui_now(), &err);
	het_config_free(cfg);
	free(dir);
	if (b == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "batch not started: %s", err.msg);
		return;
	}
	fp_batch_free(s);
	s->batch = b;
	s->bwhat = ui_xstrdup(what);
	s->bshow = 1;
	ui->ses.batch_running = 1;
	ui_msg(ui, UI_LOG_INFO, "fitting %s, one after another in a child "
	    "hetui fit; c cancels, v shows the last fit", what);
	ui_dirty(ui, UI_DIRTY_ALL);
}

/* Scroll the batch view; 1 when the key was a scroll key. */
static int
batch_scroll(struct ui *ui, struct fit_state *s, int key)
{
	long top = (long)s->btop, page = 10;

	switch (key) {
	case UI_K_UP:
	case 'k':
		top--;
		break;
	case UI_K_DOWN:
	case 'j':
		top++;
		break;
	case UI_K_PGUP:
		top -= page;
		break;
	case UI_K_PGDN:
		top += page;
		break;
	case UI_K_HOME:
		top = 0;
		s->bleft = 0;
		break;
	case UI_K_END:
		top = 1L << 30;	/* the draw caps it at the last page */
		break;
	case UI_K_LEFT:
		s->bleft = s->bleft >= 8 ? s->bleft - 8 : 0;
		break;
	case UI_K_RIGHT:
		s->bleft += 8;
		break;
	default:
		return 0;
	}
	s->btop = top > 0 ? (size_t)top : 0;	/* the draw caps it */
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

int
fp_batch_key(struct ui *ui, struct fit_state *s, int key)
{
	switch (key) {
	case 'e':
		batch_start(ui, s, HET_BATCH_RINGS);
		return 1;
	case 't':
		batch_start(ui, s, HET_BATCH_SERIES);
		return 1;
	case 'v':
		if (s->batch == NULL) {
			ui_msg(ui, UI_LOG_INFO, "no batch in this session: e "
			    "fits every q ring, t a series");
			return 1;
		}
		s->bshow = !s->bshow;
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case 'c':
		if (!fp_batch_running(s))
			return 0;	/* the fit's cancel */
		if (het_batch_view(s->batch)->cancelling) {
			ui_msg(ui, UI_LOG_INFO, "the batch is cancelling: it "
			    "writes what finished");
			return 1;
		}
		het_batch_cancel(s->batch);
		ui_msg(ui, UI_LOG_WARN, "cancelling the batch: the fit running "
		    "keeps its last point, the finished ones are summarised");
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	}
	return s->bshow && s->batch != NULL && batch_scroll(ui, s, key);
}

size_t
fp_batch_pollfds(struct fit_state *s, struct pollfd *fds, size_t cap)
{
	return fp_batch_running(s) ? het_batch_pollfds(s->batch, fds, cap) :
	    0;
}

double
fp_batch_deadline(const struct fit_state *s)
{
	return fp_batch_running(s) ? het_batch_deadline(s->batch, ui_now()) :
	    -1.0;
}

/* The Log's lines of what changed: members that ended, notes. */
static void
batch_log(struct ui *ui, struct fit_state *s)
{
	const struct het_batch_view *v = het_batch_view(s->batch);
	const struct het_batch_member *m;

	for (; s->bnotes < v->nnotes; s->bnotes++)
		ui_log(ui, strncmp(v->notes[s->bnotes], "error", 5) == 0 ?
		    UI_LOG_ERROR : UI_LOG_WARN, "batch: %s",
		    v->notes[s->bnotes]);
	for (; s->bdone < v->nm && v->m[s->bdone].status != NULL;
	    s->bdone++) {
		m = &v->m[s->bdone];
		if (m->msg != NULL)
			ui_log(ui, UI_LOG_WARN, "batch: %s: %s: %s", m->label,
			    m->status, m->msg);
		else
			ui_log(ui, UI_LOG_INFO, "batch: %s: %s, chi2_red %.4g "
			    "(%s/)", m->label, m->status, m->chi2_red, m->dir);
	}
}

/* The end of the batch, in the status line and the Log. */
static void
batch_said(struct ui *ui, struct fit_state *s)
{
	const struct het_batch_view *v = het_batch_view(s->batch);
	const char *unit = v->kind == HET_BATCH_RINGS ? "ring" : "file";

	s->bsaid = 1;
	ui->ses.batch_running = 0;
	if (!v->have_result) {
		ui_msg(ui, UI_LOG_ERROR, "batch failed: %s", v->error != NULL ?
		    v->error : "no reason given");
		return;
	}
	ui_msg(ui, strcmp(v->status, "converged") == 0 ? UI_LOG_INFO :
	    UI_LOG_WARN, "batch %s: %zu of %zu %s%s fitted; summary in %s/",
	    v->status, v->n_fitted, v->of, unit, v->of == 1 ? "" : "s",
	    v->batch_dir != NULL ? v->batch_dir : "(nothing written)");
}

void
fp_batch_handle(struct ui *ui, struct fit_state *s,
    const struct pollfd *fds, size_t n)
{
	if (s->batch == NULL || s->bsaid)
		return;
	if (het_batch_handle(s->batch, fds, n, ui_now()))
		batch_log(ui, s);
	if (!het_batch_view(s->batch)->running)
		batch_said(ui, s);
	if (s->bshow)	/* the elapsed time moves */
		ui_dirty(ui, UI_DIRTY_BODY);
	ui_dirty(ui, UI_DIRTY_TABS);
}

void
fp_batch_wind_down(struct fit_state *s, char *msg, size_t len)
{
	const struct het_batch_view *v;

	if (!fp_batch_running(s))
		return;
	het_batch_wind_down(s->batch, BATCH_WIND_DOWN);
	v = het_batch_view(s->batch);
	if (v->have_result && v->batch_dir != NULL)
		snprintf(msg, len, "the batch was cancelled; %zu finished %s "
		    "summarised in %s/", v->n_fitted, v->n_fitted == 1 ?
		    "fit is" : "fits are", v->batch_dir);
	else
		snprintf(msg, len, "the batch was stopped before its summary"
		    "%s%s", v->error != NULL ? ": " : "", v->error != NULL ?
		    v->error : "");
}

void
fp_batch_free(struct fit_state *s)
{
	het_batch_free(s->batch);	/* kills and reaps a running child */
	s->batch = NULL;
	free(s->bwhat);
	s->bwhat = NULL;
	s->bshow = 0;
	s->btop = 0;
	s->bleft = 0;
	s->bnotes = s->bdone = 0;
	s->bsaid = 0;
}
