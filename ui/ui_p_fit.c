/*
 * ui_p_fit.c: the Fit panel: start, follow and cancel an NLSQ fit of the
 * selected data, then show its result; and the session's fit history.
 *
 * Design: the panel never computes.  `r` turns the session into a fit
 * specification (the configuration as edited in the Model panel, with
 * the Data panel's q ring, angles and frame window, on the open file)
 * and hands it to het_fitjob_start, which copies it and runs the whole
 * fit on its own thread; `R` does the same starting from the values of
 * the last fit (by parameter name).  The job's PROGRESS events are
 * wake-ups: each one polls the latest state (iteration, cost, radius,
 * parameters) and the iteration records not seen yet, so the cost chart
 * has every point however the events were coalesced.  DONE brings the
 * result with display grids of data, model and residual computed on the
 * job thread; FAILED a sentence.  Only events of the current job id
 * count.  `c` sets the job's cancel flag; the DONE that follows holds
 * the partial result.  Quitting while a fit runs is confirmed by the
 * loop; the panel's free hook then cancels and joins the job.
 * Every finished fit is appended to ui->ses.fit_hist (file, time, chi2, the
 * physics parameters and the run's own results folder), which the
 * Results panel lists; the Sampling panel appends its runs there too.
 * `f` writes the figures of the fit shown (or of the batch shown) by a
 * child hetui report (ui_figs.c); one piece of work runs at a time, a
 * fit, a batch or figures, and `c` cancels it.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_loop.h"
#include "ui.h"
#include "ui_heat.h"
#include "ui_p_fit.h"

static const struct ui_hint fit_hints[] = {
	{ "r", "r", "Fit" },
	{ "R", "R", "From result" },
	{ "c", "c", "Cancel" },
	{ "f", "f", "Figures" },
	{ "p", "p", "Per angle" },
	{ "m", "m", "Multistart" },
	{ "[]", "[]", "Angle" },
	{ "\xe2\x86\x91\xe2\x86\x93", "Up/Dn", "Scroll" },
	{ "e", "e", "Rings" },
	{ "t", "t", "Series" },
	{ NULL, NULL, NULL }
};

static const char fit_help[] =
    "r\tfit: the configuration as edited in the Model\n"
    "\tpanel, on the Data panel's q ring, selected angles\n"
    "\tand frame window of the open file\n"
    "R\tthe same, starting from the values of the last fit\n"
    "\t(matched by parameter name)\n"
    "p\tthe next fits: every angle on its own (as the\n"
    "\treference packages do), or jointly (the default)\n"
    "m\tmultistart: the number of starts (1: off), the\n"
    "\tconfigured one and the rest from a Latin hypercube\n"
    "\tin the bounds (optimization.nlsq.multistart_n)\n"
    "c\tcancel the running fit; its last accepted point is\n"
    "\tkept and written as a partial result (a batch: the\n"
    "\tfinished rings or files are still summarised;\n"
    "\tfigures: they stop, and a new folder goes)\n"
    "f\twrite the figures of the fit shown, or of the batch\n"
    "\tshown, into its folder's report/ (hetui report in a\n"
    "\tchild process; again: hetui's figures refreshed)\n"
    "e\tfit every q ring of the open file with the model\n"
    "\tand settings above (hetui fit --all-rings in a child\n"
    "\tprocess): each ring as it ends, then the table and\n"
    "\teach parameter against q with its power-law slope\n"
    "t\tfit a series, each file from the last converged\n"
    "\tresult (hetui fit --series): the files follow mode\n"
    "\tloaded (two or more), else the open file's folder,\n"
    "\tby modification time; then each parameter against\n"
    "\tthe file index with its drift\n"
    "v\tshow the batch or the last fit; in the batch, Up\n"
    "\tDown PgUp PgDn Home End scroll, Left Right too\n"
    "[  ]\tprevious / next angle of the heatmaps\n"
    "Left Right\tthe same\n"
    "Up Down\tscroll the parameter table (PgUp PgDn, Home)\n"
    "\tLive: iteration, cost, reduced chi-square, trust\n"
    "\tradius, Levenberg-Marquardt lambda, step norm and\n"
    "\tthe cost of every iteration on a log scale.\n"
    "\tAfter: values with 1-sigma uncertainties and flags\n"
    "\t(at a bound, degenerate), the warnings in words,\n"
    "\tthe data | model | residual heatmaps of one angle\n"
    "\t(data and model share one colour scale; the\n"
    "\tresidual, data - model, is centred on zero) and\n"
    "\twhere the results were written: a new folder for\n"
    "\teach fit, OUTPUT_DIR/<file stem>/fit-<UTC time>/\n"
    "\t(the config's output section decides; see hetui(1)).\n";

/* ---- the session's fit history ------------------------------------- */

static void
rec_free(struct ui_fit_record *r)
{
	size_t k;

	free(r->file);
	free(r->outdir);
	free(r->status);
	free(r->mode);
	for (k = 0; r->names != NULL && k < r->np; k++)
		free(r->names[k]);
	free(r->names);
	free(r->x);
	free(r->unc);
	memset(r, 0, sizeof(*r));
}

void
ui_fit_history_free(struct ui *ui)
{
	size_t i;

	for (i = 0; i < ui->ses.nfit_hist; i++)
		rec_free(&ui->ses.fit_hist[i]);
	free(ui->ses.fit_hist);
	ui->ses.fit_hist = NULL;
	ui->ses.nfit_hist = 0;
}

struct ui_fit_record *
ui_history_append(struct ui *ui)
{
	struct ui_fit_record *r;

	if (ui->ses.nfit_hist == UI_FIT_HISTORY_MAX) {
		rec_free(&ui->ses.fit_hist[0]);
		memmove(ui->ses.fit_hist, ui->ses.fit_hist + 1,
		    (ui->ses.nfit_hist - 1) * sizeof(*ui->ses.fit_hist));
		ui->ses.nfit_hist--;
	}
	if (ui->ses.fit_hist == NULL)
		ui->ses.fit_hist = ui_xcalloc(UI_FIT_HISTORY_MAX,
		    sizeof(*ui->ses.fit_hist));
	r = &ui->ses.fit_hist[ui->ses.nfit_hist++];
	memset(r, 0, sizeof(*r));
	r->when = time(NULL);
	return r;
}

/* The first fit of a result that ran (a per-angle fit's first angle). */
static const struct het_fit_result *
first_fit(const struct het_fitjob_result *res)
{
	size_t k;

	for (k = 0; k < res->nfits; k++)
		if (res->fits[k] != NULL)
			return res->fits[k];
	return NULL;
}

static void
history_add(struct ui *ui, const struct het_fitjob_result *res)
{
	const struct het_fit_result *fr = first_fit(res);
	const struct het_problem *pb = res->pb;
	struct ui_fit_record *r;
	size_t k, n = 0;
	long col;

	if (fr == NULL)		/* no angle ran: nothing to remember */
		return;
	r = ui_history_append(ui);
	r->analysis = "fit";
	r->file = ui_xstrdup(res->data_path);
	r->outdir = res->written ? ui_xstrdup(res->outdir) : NULL;
	r->status = ui_xstrdup(res->status_name);
	r->mode = ui_xstrdup(het_mode_name(pb->spec.mode));
	r->chi2_red = fr->chi2_red;
	r->iterations = fr->iterations;
	r->seconds = res->wall_time;
	r->names = ui_xcalloc(pb->nphys + 1, sizeof(char *));
	r->x = ui_xcalloc(pb->nphys + 1, sizeof(double));
	r->unc = ui_xcalloc(pb->nphys + 1, sizeof(double));
	for (k = 0; k < pb->nphys; k++) {
		if ((col = het_resid_phys_col(pb->resid, k)) < 0)
			continue;
		r->names[n] = ui_xstrdup(fr->names[col]);
		r->x[n] = fr->x[col];
		r->unc[n] = fr->unc[col];
		n++;
	}
	r->np = n;
}

/* ---- starting a fit ------------------------------------------------ */

const struct het_fit_result *
fp_shown_fit(const struct fit_state *s, const struct het_fitjob_result *res)
{
	if (res == NULL || res->nfits == 0)
		return NULL;
	return res->fits[res->nfits > 1 && s->angle < res->nfits ? s->angle :
	    0];
}

#define MS_KEY	"optimization.nlsq.multistart_n"

/* The answer to m: the number of starts, through the schema table. */
static void
multistart_done(struct ui *ui, const char *text)
{
	struct het_config *c;
	struct het_error err;

	het_error_clear(&err);
	if ((c = het_config_dup(ui->ses.cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	if (het_config_setting_parse(c, MS_KEY, text, &err) != HET_OK ||
	    (c->nlsq.multistart = c->nlsq.multistart_n > 1,
	    het_config_validate(c, &err)) != HET_OK) {
		het_config_free(c);
		ui_msg(ui, UI_LOG_ERROR, "refused: %s", err.msg);
		return;
	}
	het_config_free(ui_config_replace(ui, c));
	ui_msg(ui, UI_LOG_INFO, "multistart: %ld start%s%s",
	    ui->ses.cfg->nlsq.multistart_n, ui->ses.cfg->nlsq.multistart_n ==
	    1 ? "" : "s", ui->ses.cfg->nlsq.multistart_n == 1 ? " (off)" :
	    " (the configured one and Latin-hypercube points)");
}

static void
multistart_ask(struct ui *ui)
{
	char init[32];

	snprintf(init, sizeof init, "%ld", ui->ses.cfg->nlsq.multistart ?
	    ui->ses.cfg->nlsq.multistart_n : 1);
	ui_prompt_open_sel(ui, "Multistart starts (1: off):", init,
	    multistart_done);
}

int
fp_refuse_busy(struct ui *ui, const struct fit_state *s)
{
	if (s->job != NULL || fp_batch_running(s))
		ui_msg(ui, UI_LOG_WARN, "a %s is running: c cancels it",
		    s->job != NULL ? "fit" : "batch");
	else if (ui_figs_running(&s->figs))	/* their end soon replaces
						   this */
		ui_msg(ui, UI_LOG_INFO, "figures are being written: wait, or "
		    "c cancels them");
	else
		return 0;
	return 1;
}

static void
fit_start(struct ui *ui, struct fit_state *s, int warm)
{
	const struct het_fit_result *prev = NULL;
	struct het_fitjob_spec spec;
	struct het_config *cfg;
	struct het_error err;
	const struct ui_ring *r;

	if (fp_refuse_busy(ui, s))
		return;
	if (warm) {
		if (s->res == NULL || s->res->nfits != 1 ||
		    s->res->fits[0] == NULL) {
			ui_msg(ui, UI_LOG_ERROR, "no previous fit in this "
			    "session to start from: r fits from the Model "
			    "panel's values");
			return;
		}
		prev = s->res->fits[0];
	}
	if ((cfg = ui_config_for_selection(ui, "fit")) == NULL)
		return;
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.data_path = ui->ses.meta->path;
	spec.per_angle = s->per_angle;
	if (prev != NULL) {
		spec.start_names = (const char *const *)prev->names;
		spec.start_x = prev->x;
		spec.nstart = prev->p;
	}
	het_error_clear(&err);
	s->job = het_fitjob_start(ui->ses.evq, ++s->job_id, &spec, &err);
	het_config_free(cfg);
	if (s->job == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "fit not started: %s", err.msg);
		return;
	}
	s->warm = warm;
	s->cancelling = 0;
	s->t_start = ui_now();
	s->job_first = ui->ses.sel.first;
	s->job_last = ui->ses.sel.last;
	s->prefit_iter = -1;
	free(s->job_file);
	s->job_file = ui_xstrdup(ui->ses.meta->path);
	het_fitjob_snap_free(s->snap);
	s->snap = NULL;
	s->ncost = 0;
	free(s->error);
	s->error = NULL;
	s->bshow = 0;	/* the fit, not the last batch */
	ui->ses.fit_running = 1;
	r = ui_model_ring(ui);
	ui_msg(ui, UI_LOG_INFO, "fit started%s%s: %s, %s, ring %zu (q %.4g), "
	    "%zu angle%s, frames %ld-%ld", warm ? " from the last result" :
	    "", s->per_angle ? " per angle" : "",
	    het_mode_name(ui->ses.cfg->mode), ui->ses.meta->path,
	    ui->ses.sel.ring + 1, r->q,
	    ui_model_ring_selected(ui, ui->ses.sel.ring),
	    ui_model_ring_selected(ui, ui->ses.sel.ring) == 1 ? "" : "s",
	    ui->ses.sel.first, ui->ses.sel.last);
	ui_dirty(ui, UI_DIRTY_ALL);
}

/* ---- events -------------------------------------------------------- */

static void
on_progress(struct ui *ui, struct fit_state *s)
{
	struct het_fitjob_snap *snap;
	struct het_error err;
	size_t k;

	het_error_clear(&err);
	if ((snap = het_fitjob_poll(s->job, s->ncost, &err)) == NULL) {
		ui_log(ui, UI_LOG_WARN, "fit progress: %s", err.msg);
		return;
	}
	if (s->ncost + snap->nhist > s->capcost) {
		s->capcost = 2 * (s->ncost + snap->nhist) + 64;
		s->cost = realloc(s->cost, s->capcost * sizeof(double));
		if (s->cost == NULL)
			ui_fatal("out of memory for the cost history");
	}
	for (k = 0; k < snap->nhist; k++)
		s->cost[s->ncost++] = snap->hist[k].cost;
	/* The pre-fit's records come first, marked stage 1 (het_fit.h). */
	if (snap->iterating && snap->pr.stage == 1)
		s->prefit_iter = snap->pr.iter;
	het_fitjob_snap_free(s->snap);
	s->snap = snap;
	ui_dirty(ui, UI_DIRTY_BODY);
}

static void
job_over(struct ui *ui, struct fit_state *s)
{
	het_fitjob_free(s->job);	/* the thread has posted its last */
	s->job = NULL;
	ui->ses.fit_running = 0;
	ui_dirty(ui, UI_DIRTY_ALL);
}

static void
on_done(struct ui *ui, struct fit_state *s, struct het_fitjob_result *res)
{
	const struct het_fit_result *fr = first_fit(res);
	size_t k;
	int late;

	/* The last records may have come after the last poll. */
	if (s->ncost < res->nhist) {
		s->capcost = res->nhist + 64;
		s->cost = realloc(s->cost, s->capcost * sizeof(double));
		if (s->cost == NULL)
			ui_fatal("out of memory for the cost history");
		for (k = s->ncost; k < res->nhist; k++)
			s->cost[k] = res->hist[k].cost;
		s->ncost = res->nhist;
	}
	het_fitjob_result_free(s->res);
	s->res = res;
	if (s->angle >= res->pb->nangles)
		s->angle = 0;
	s->top = 0;
	job_over(ui, s);
	fp_levels(ui, s);
	history_add(ui, res);
	if (res->written && fr != NULL)
		ui_data_model(ui, res->outdir);	/* over the Data cuts */
	if (fr == NULL) {
		ui_msg(ui, UI_LOG_WARN, "the fit ended before any angle was "
		    "fitted (%s)", res->status_name);
		return;
	}
	for (k = 0; k < res->pb->nwarnings; k++)
		ui_log(ui, UI_LOG_WARN, "fit: %s", res->pb->warnings[k]);
	for (k = 0; k < fr->nwarnings; k++)
		ui_log(ui, UI_LOG_WARN, "fit: %s", fr->warnings[k]);
	if (res->nwarm > 0)
		ui_log(ui, UI_LOG_INFO, "fit: %zu of %zu parameters started "
		    "from the previous result", res->nwarm, fr->p);
	/* The CLI's words (cmd_fit.c): the cost jump is not a divergence. */
	if (fr->window_frames > 0)
		ui_log(ui, UI_LOG_INFO, "fit: started from a pre-fit of the "
		    "first %ld frames (%ld iteration%s)", fr->window_frames,
		    fr->window_iterations, fr->window_iterations == 1 ? "" :
		    "s");
	if (!res->written) {
		ui_msg(ui, UI_LOG_ERROR, "fit %s but the results were not "
		    "written: %s", res->status_name, res->write_err.msg);
		return;
	}
	ui_log(ui, UI_LOG_INFO, "fit results written to %s/%s%s", res->outdir,
	    res->outdir_note[0] != '\0' ? " " : "", res->outdir_note);
	/*
	 * c pressed during the last iteration or the writing: the fit ended
	 * on its own.  Say so at warning level, which replaces the
	 * "cancelling" warning (an information would not).
	 */
	late = s->cancelling && res->status != HET_ECANCEL;
	ui_msg(ui, res->converged && res->status == HET_OK && !late ?
	    UI_LOG_INFO : UI_LOG_WARN, "fit %s%s: chi2_red %.4g, %ld "
	    "iteration%s, %.2f s; results in %s/", res->status == HET_ECANCEL ?
	    "cancelled" : res->converged ? "converged" : "did not converge",
	    late ? " before the cancel took effect" : "", fr->chi2_red,
	    fr->iterations, fr->iterations == 1 ? "" : "s", res->wall_time,
	    res->outdir);
	s->cancelling = 0;
}

static void
fit_event(struct ui *ui, void *state, struct het_event *ev)
{
	struct fit_state *s = state;
	struct het_fitjob_failure *f;

	if (ev->type != HET_FITJOB_EV_PROGRESS &&
	    ev->type != HET_FITJOB_EV_DONE && ev->type != HET_FITJOB_EV_FAILED)
		return;
	if (s->job == NULL || ev->job != s->job_id) {
		ui_log(ui, UI_LOG_DEBUG, "dropped a stale fit event");
		return;
	}
	switch (ev->type) {
	case HET_FITJOB_EV_PROGRESS:
		on_progress(ui, s);
		break;
	case HET_FITJOB_EV_DONE:
		on_done(ui, s, ev->data);
		ev->data = NULL;
		break;
	case HET_FITJOB_EV_FAILED:
		f = ev->data;
		job_over(ui, s);
		free(s->error);
		s->error = ui_xstrdup(f->err.msg);
		if (f->err.code == HET_ECANCEL)
			ui_msg(ui, UI_LOG_WARN, "fit cancelled while reading "
			    "the data; nothing was fitted or written");
		else
			ui_msg(ui, UI_LOG_ERROR, "fit failed: %s", f->err.msg);
		break;
	}
}

/* ---- keys and the panel table ------------------------------------- */

/* f: the figures of the fit shown, or of the batch shown (v). */
static void
fit_figures(struct ui *ui, struct fit_state *s)
{
	const struct het_batch_view *v;

	if (s->job != NULL || fp_batch_running(s)) {
		ui_msg(ui, UI_LOG_WARN, "a %s is running: f writes its "
		    "figures once it ends (c cancels it)", s->job != NULL ?
		    "fit" : "batch");
		return;
	}
	if (s->bshow && s->batch != NULL) {
		v = het_batch_view(s->batch);
		if (v->batch_dir != NULL)
			ui_figs_start(&s->figs, v->batch_dir, "the batch");
		else
			ui_msg(ui, UI_LOG_ERROR, "the batch shown wrote no "
			    "folder: no figures to draw");
		return;
	}
	if (s->res == NULL)
		ui_msg(ui, UI_LOG_INFO, "no fit to draw yet: r fits (e, t: a "
		    "batch), then f writes its figures");
	else if (!s->res->written)
		ui_msg(ui, UI_LOG_ERROR, "the fit shown wrote no run folder: "
		    "no figures to draw");
	else
		ui_figs_start(&s->figs, s->res->outdir, "the fit");
}

static void
change_angle(struct ui *ui, struct fit_state *s, int delta)
{
	size_t n;

	if (s->res == NULL || (s->res->grids == NULL &&
	    !s->res->per_angle)) {
		ui_msg(ui, UI_LOG_INFO, "no fit result to show yet: r fits");
		return;
	}
	n = s->res->pb->nangles;
	s->angle = (s->angle + (delta > 0 ? 1 : n - 1)) % n;
	fp_levels(ui, s);
	ui_dirty(ui, UI_DIRTY_BODY);
}

static void
table_scroll(struct ui *ui, struct fit_state *s, long delta, size_t np)
{
	long top = (long)s->top + delta, rows = fp_table_rows(s);

	if (top > (long)np - rows)
		top = (long)np - rows;
	if (top < 0)
		top = 0;
	s->top = (size_t)top;
	ui_dirty(ui, UI_DIRTY_BODY);
}

static int
fit_key(struct ui *ui, void *state, int key)
{
	struct fit_state *s = state;
	const struct het_fit_result *shown = fp_shown_fit(s, s->res);
	size_t np = s->job != NULL && s->snap != NULL ? s->snap->p :
	    shown != NULL ? shown->p : 0;

	if (fp_batch_key(ui, s, key))	/* e, t, v; c and scrolling of a
					   batch */
		return 1;
	switch (key) {
	case 'r':
		fit_start(ui, s, 0);
		return 1;
	case 'R':
		fit_start(ui, s, 1);
		return 1;
	case 'p':
		s->per_angle = !s->per_angle;
		ui_msg(ui, UI_LOG_INFO, "next fits: %s", s->per_angle ?
		    "every angle on its own (p: jointly)" : "all angles "
		    "jointly (p: per angle)");
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case 'm':
		multistart_ask(ui);
		return 1;
	case 'f':
		fit_figures(ui, s);
		return 1;
	case 'c':
		if (s->job == NULL) {
			if (!ui_figs_cancel(&s->figs))
				ui_msg(ui, UI_LOG_INFO, "no fit is running");
			return 1;
		}
		if (s->snap != NULL && s->snap->phase == HET_FITJOB_WRITING) {
			/* Nothing left to cancel: the writing always ends. */
			ui_msg(ui, UI_LOG_INFO,
			    "the fit has ended; its results "
			    "are being written");
			return 1;
		}
		het_fitjob_cancel(s->job);
		s->cancelling = 1;
		ui_msg(ui, UI_LOG_WARN, "cancelling the fit: its last accepted "
		    "point will be kept");
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case '[':
	case UI_K_LEFT:
		change_angle(ui, s, -1);
		return 1;
	case ']':
	case UI_K_RIGHT:
		change_angle(ui, s, 1);
		return 1;
	case UI_K_UP:
	case 'k':
		table_scroll(ui, s, -1, np);
		return 1;
	case UI_K_DOWN:
	case 'j':
		table_scroll(ui, s, 1, np);
		return 1;
	case UI_K_PGUP:
		table_scroll(ui, s, -fp_table_rows(s), np);
		return 1;
	case UI_K_PGDN:
		table_scroll(ui, s, fp_table_rows(s), np);
		return 1;
	case UI_K_HOME:
		table_scroll(ui, s, -(long)np, np);
		return 1;
	}
	return 0;
}

static void *
fit_init(struct ui *ui)
{
	struct fit_state *s = ui_xcalloc(1, sizeof(*s));

	ui_figs_init(ui, &s->figs, "Fit");
	return s;
}

static void
fit_free(void *state)
{
	struct fit_state *s = state;

	if (s == NULL)
		return;
	het_fitjob_free(s->job);	/* cancels and joins a running fit */
	fp_batch_free(s);	/* kills and reaps a batch still running */
	ui_figs_fini(&s->figs);	/* and a figure job */
	het_fitjob_snap_free(s->snap);
	het_fitjob_result_free(s->res);
	free(s->job_file);
	free(s->cost);
	free(s->error);
	free(s->lvl_data);
	free(s->lvl_model);
	free(s->lvl_resid);
	free(s);
}

static void
fit_resize(struct ui *ui, void *state, int lines, int cols)
{
	struct fit_state *s = state;

	(void)ui;
	s->rows = lines;
	s->cols = cols;
	s->left = 46 + (cols - 80) / 4;
	if (s->left > 60)
		s->left = 60;
}

/* While a fit runs, the elapsed time of a slow iteration keeps moving;
   a batch's child is read, reaped and timed here too. */
static double
fit_deadline(struct ui *ui, void *state)
{
	struct fit_state *s = state;

	return het_loop_earlier(het_loop_earlier(fp_batch_deadline(s),
	    ui->ses.fit_running ? ui_now() + 0.5 : -1.0),
	    ui_figs_deadline(&s->figs));
}

static size_t
fit_pollfds(struct ui *ui, void *state, struct pollfd *fds, size_t cap)
{
	(void)ui;
	return fp_batch_pollfds(state, fds, cap);
}

static void
fit_handle(struct ui *ui, void *state, const struct pollfd *fds, size_t n)
{
	struct fit_state *s = state;

	fp_batch_handle(ui, s, fds, n);
	ui_figs_handle(&s->figs);
	if (ui->ses.fit_running)
		ui_dirty(ui, UI_DIRTY_BODY);
}

static int
fit_busy(const struct ui *ui, const void *state)
{
	const struct fit_state *s = state;

	return ui->ses.fit_running || fp_batch_running(s) ||
	    ui_figs_running(&s->figs);
}

/* At exit: a batch is cancelled and writes what finished; figures are
   let finish. */
static void
fit_wind_down(struct ui *ui, void *state, char *msg, size_t len)
{
	struct fit_state *s = state;
	char one[512] = "";
	size_t used;

	(void)ui;
	fp_batch_wind_down(s, msg, len);
	ui_figs_wind_down(&s->figs, one, sizeof(one));
	used = strlen(msg);
	if (one[0] != '\0' && used + 1 < len)
		snprintf(msg + used, len - used, "%s%s", used > 0 ? "; " : "",
		    one);
}

const struct ui_panel_ops ui_panel_fit = {
	.name = "Fit",
	.hints = fit_hints,
	.help = fit_help,
	.init = fit_init,
	.free = fit_free,
	.draw = fp_draw,
	.key = fit_key,
	.resize = fit_resize,
	.event = fit_event,
	.max_fds = HET_BATCH_FDS,
	.pollfds = fit_pollfds,
	.deadline = fit_deadline,
	.handle = fit_handle,
	.busy = fit_busy,
	.wind_down = fit_wind_down,
};
