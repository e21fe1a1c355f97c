/*
 * ui_p_results.c: the Results panel: the consensus posterior of the last
 * sampling run and the session's run history.
 *
 * Design: pure view of two things other panels own: the sampling run
 * (ui->ses.sample, the Sampling panel's) and the run history (ui->ses.fit_hist,
 * filled by the Fit and Sampling panels).  The top part shows, once the run has combined its
 * shards, the gates in words, the posterior table (mean, sd, 5/50/95 %,
 * R-hat, ESS, the NLSQ value beside them and the contraction against the
 * prior), the marginal histogram and the trace of the combined draws of
 * the parameter under the cursor (the NLSQ value is marked under the
 * histogram), and where the results were written.  The bottom part lists
 * the runs of the session, newest first (time, file, fit or sample,
 * status, reduced chi-square and the first physics parameters, matched
 * by name), and `w` writes them all as CSV into the configuration's
 * output_dir (ui_p_results_csv.c).
 * `[` `]` pick a run and Enter shows it as its own folder's files say
 * (ui_p_results_run.c) in place of the posterior, and `f` writes its
 * figures through a child hetui report (ui_figs.c: c cancels them).
 * Keys move the cursor and scroll; nothing here computes a statistic or
 * draws a figure.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_sample_view.h"
#include "ui.h"
#include "ui_figs.h"
#include "ui_p_results.h"
#include "ui_p_sample.h"

struct results_state {
	int		 rows, cols;
	size_t		 sel;		/* parameter at the cursor */
	size_t		 top;		/* first parameter shown */
	size_t		 htop;		/* first history row */
	int		 trows;		/* table rows drawn */
	int		 hrows;		/* history rows drawn */
	size_t		 hsel;		/* history row picked, 0: newest */
	struct results_run run;		/* the picked run, when loaded */
	struct ui_figs	 figs;		/* the picked run's figures (f) */
};

static const struct ui_hint results_hints[] = {
	{ "\xe2\x86\x91\xe2\x86\x93", "Up/Dn", "Parameter" },
	{ "PgUp/PgDn", "PgUp/PgDn", "History" },
	{ "[]", "[]", "Pick run" },
	{ "f", "f", "Figures" },
	{ "Enter", "Enter", "Load run" },
	{ "w", "w", "Save history CSV" },
	{ NULL, NULL, NULL }
};

static const char results_help[] =
    "Up Down  j k\tchoose the parameter of the histogram and trace\n"
    "PgUp PgDn\tscroll the run history (Home: newest)\n"
    "[  ]\tpick the previous / next run of the history\n"
    "Enter\tload the picked run from its folder: its fit\n"
    "\t(and a sampling run's posterior mean and sd) as its\n"
    "\tfiles say; x returns to the posterior\n"
    "f\twrite the figures of the picked run (hetui report\n"
    "\tin a child process) into its folder's report/;\n"
    "\ta sampling run's posterior too; c cancels\n"
    "w\twrite the run history as CSV (hetui_fit_history.csv)\n"
    "\tin the configuration's output_dir, atomically\n"
    "\tPosterior: the consensus of the last sampling run\n"
    "\t(Sampling, 4): mean, sd, the 5/50/95 % quantiles\n"
    "\tof the combined draws, R-hat (largest over the\n"
    "\tshards, green below max_r_hat), bulk ESS (summed),\n"
    "\tthe NLSQ value the sampler started from, and the\n"
    "\tcontraction 1 - sd/prior sd (1: the data decide,\n"
    "\t0: the prior does).  Below: the marginal histogram\n"
    "\t(^ marks the NLSQ value) and the trace of the\n"
    "\tcombined draws of the parameter under the cursor;\n"
    "\tthe gates in words and the files written.\n"
    "\tRun history: every fit and sampling run of this\n"
    "\tsession, newest first: time, file, fit or sample,\n"
    "\tstatus, reduced chi-square and the first physics\n"
    "\tparameters; each run has its own folder (shown for\n"
    "\tthe picked one).\n";

/* ---- the posterior -------------------------------------------------- */

/* Gates and the combination in words; returns the next row. */
/*
 * A sharded run's consensus checked against all the data, as the CLI
 * says it; in the warning colour when it cannot be trusted or finds a
 * consensus mean off.
 */
static int
draw_reweight(struct results_state *s, WINDOW *w, int y,
    const struct het_sample_summary *sm, int maxl)
{
	char buf[512];
	int bad = het_sample_view_reweight(sm, buf, sizeof(buf));

	if (bad < 0)
		return y;
	return y + ui_put_wrapped(w, y, 1, s->cols - 2, maxl,
	    ui_color_attr(bad ? UI_C_WARN : UI_C_DIM), buf);
}

static int
draw_gates(struct ui *ui, struct results_state *s, WINDOW *w, int y,
    const struct het_sample_summary *sm)
{
	struct het_cons_gates g;
	char buf[2048];
	int maxl = s->rows / 6 > 1 ? s->rows / 6 : 1;

	het_sample_view_gates(ui->ses.sample, &g);
	if (sm->gates_pass)
		snprintf(buf, sizeof(buf), "gates passed: every shard passed "
		    "(max R-hat %.4g < %.3g, min ESS %.0f > %.4g, min BFMI "
		    "%.3g > %.3g, %ld divergences)", sm->max_rhat,
		    g.max_r_hat, sm->min_ess, g.min_ess, sm->min_bfmi,
		    g.min_bfmi, sm->divergences);
	else
		snprintf(buf, sizeof(buf), "gates FAILED for %zu of %zu "
		    "shards: %s", sm->gates_nfailed, sm->ndone,
		    sm->gates_text);
	y += ui_put_wrapped(w, y, 1, s->cols - 2, maxl,
	    ui_color_attr(sm->gates_pass ? UI_C_INFO : UI_C_ERROR) | A_BOLD,
	    buf);
	snprintf(buf, sizeof(buf), "%zu of %zu shards combined (%s), %zu "
	    "draws; noise sigma %.4g (%s)", sm->nused, sm->nshards,
	    sm->method, sm->ndraws, sm->sigma, sm->sigma_source);
	/* Two lines at 80 columns rather than a noise level left out. */
	y += ui_put_wrapped(w, y, 1, s->cols - 2, 2, ui_color_attr(UI_C_DIM),
	    buf);
	/* Dropped shards, skewed shard posteriors: worth reading in full. */
	if (sm->note != NULL && *sm->note != '\0')
		y += ui_put_wrapped(w, y, 1, s->cols - 2, maxl,
		    ui_color_attr(UI_C_WARN), sm->note);
	return draw_reweight(s, w, y, sm, maxl);
}

static void
draw_table(struct ui *ui, struct results_state *s, WINDOW *w, int y,
    int rows, const struct het_sample_summary *sm)
{
	struct het_cons_gates g;
	const struct het_sample_param *q;
	int nw = 11, cw = 7 + (s->cols - 80) / 9, x, i, cur;
	char v[8][32], range[32];
	attr_t ra;
	size_t k;

	if (cw > 11)
		cw = 11;
	het_sample_view_gates(ui->ses.sample, &g);
	if (s->sel >= sm->p)
		s->sel = 0;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + (size_t)rows)
		s->top = s->sel + 1 - (size_t)rows;
	/* The scroll range takes the first head, over no other text. */
	ui_putf(w, y++, 1, s->cols - 2, ui_color_attr(UI_C_LABEL) | A_BOLD,
	    "%-*s %*s %*s %*s %*s %*s %6s %5s %*s %5s", nw, ui_range_text(
	    range, sizeof(range), s->top, (size_t)rows, sm->p, "parameter"),
	    cw, "mean", cw, "sd", cw, "5%", cw, "50%", cw, "95%", "R-hat",
	    "ESS", cw, "NLSQ", "contr");
	for (i = 0; i < rows && s->top + (size_t)i < sm->p; i++, y++) {
		k = s->top + (size_t)i;
		q = &sm->param[k];
		cur = k == s->sel;
		ra = cur ? ui_color_attr(UI_C_CURSOR) : A_NORMAL;
		if (cur)
			ui_fill(w, y, 0, s->cols, ra);
		ui_put_trunc(w, y, 1, nw, ra, q->name);
		sp_fmt_w(v[0], sizeof(v[0]), q->mean, 5, cw);
		sp_fmt_w(v[1], sizeof(v[0]), q->sd, 5, cw);
		sp_fmt_w(v[2], sizeof(v[0]), q->q5, 5, cw);
		sp_fmt_w(v[3], sizeof(v[0]), q->q50, 5, cw);
		sp_fmt_w(v[4], sizeof(v[0]), q->q95, 5, cw);
		sp_fmt_w(v[5], sizeof(v[0]), q->nlsq, 5, cw);
		x = 1 + nw;
		ui_putf(w, y, x, 5 * (cw + 1), cur ? ra :
		    ui_color_attr(UI_C_VALUE), " %*s %*s %*s %*s %*s", cw,
		    v[0], cw, v[1], cw, v[2], cw, v[3], cw, v[4]);
		x += 5 * (cw + 1);
		ui_putf(w, y, x, 7, cur ? ra : sp_rhat_attr(q->rhat,
		    g.max_r_hat), " %6.4f", q->rhat);
		x += 7;
		ui_putf(w, y, x, 6, cur ? ra : q->ess_bulk > g.min_ess ?
		    A_NORMAL : ui_color_attr(UI_C_WARN), " %5.0f", q->ess_bulk);
		x += 6;
		if (q->contraction == q->contraction)
			snprintf(v[6], sizeof(v[0]), "%.2f", q->contraction);
		else
			snprintf(v[6], sizeof(v[0]), "-");
		ui_putf(w, y, x, s->cols - x, cur ? ra : ui_color_attr(
		    UI_C_DIM), " %*s %5s", cw, v[5], v[6]);
	}
}

/* Histogram and trace of the selected parameter in h rows from y. */
static void
draw_plots(struct ui *ui, struct results_state *s, WINDOW *w, int y, int h,
    const struct het_sample_summary *sm)
{
	const struct het_sample_param *q = &sm->param[s->sel];
	const double *d;
	size_t nd, p, k;
	double lo = INFINITY, hi = -INFINITY, v;
	int hw = (s->cols - 3) / 2, tx = hw + 2, col;
	char a[32], b[32], buf[256];

	d = het_sample_view_draws(ui->ses.sample, &nd, &p);
	if (d == NULL || nd == 0 || p != sm->p || h < 2)
		return;
	for (k = 0; k < nd; k++) {
		v = d[k * p + s->sel];
		if (isfinite(v)) {
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	}
	if (!(lo < hi)) {
		lo -= 0.5;
		hi += 0.5;
	}
	snprintf(buf, sizeof(buf), "%s: marginal", q->name);
	ui_put(w, y, 1, hw - 1, ui_color_attr(UI_C_LABEL) | A_BOLD, buf);
	ui_putf(w, y, tx, s->cols - tx - 1, ui_color_attr(UI_C_LABEL) |
	    A_BOLD, "trace of the %zu combined draws", nd);
	sp_hist(ui, w, y + 1, 1, h - 2, hw - 1, d + s->sel, nd, p, lo, hi);
	sp_trace(ui, w, y + 1, tx, h - 2, s->cols - tx - 1, d + s->sel, nd, p,
	    lo, hi, ui_color_attr(UI_C_GRAPH));
	/* The axis: range and the NLSQ value (^). */
	sp_fmt_w(a, sizeof(a), lo, 5, 9);
	sp_fmt_w(b, sizeof(b), hi, 5, 9);
	ui_put(w, y + h - 1, 1, hw - 1, ui_color_attr(UI_C_DIM), a);
	ui_put(w, y + h - 1, hw - (int)strlen(b), (int)strlen(b),
	    ui_color_attr(UI_C_DIM), b);
	if (q->nlsq >= lo && q->nlsq <= hi) {
		col = (int)((q->nlsq - lo) / (hi - lo) * (hw - 1));
		if (col >= hw - 1)
			col = hw - 2;
		ui_put(w, y + h - 1, 1 + col, 1, ui_color_attr(UI_C_WARN) |
		    A_BOLD, "^");
	}
	ui_put(w, y + h - 1, tx, s->cols - tx - 1, ui_color_attr(UI_C_DIM),
	    "^ NLSQ value; trace range as the histogram");
}

static void
draw_written(struct ui *ui, struct results_state *s, WINDOW *w, int y)
{
	const char *const *f = het_sample_files(ui->ses.sample);
	char buf[2048];
	size_t k, used;

	if (f[0] == NULL) {
		ui_put_trunc(w, y, 1, s->cols - 2, ui_color_attr(UI_C_ERROR),
		    "the posterior was NOT written (see the Log)");
		return;
	}
	used = (size_t)snprintf(buf, sizeof(buf), "written: %s/ (",
	    het_sample_out_dir(ui->ses.sample));
	for (k = 0; f[k] != NULL && used + 4 < sizeof(buf); k++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
		    "%s%s", k > 0 ? ", " : "", f[k]);
	if (used + 2 < sizeof(buf))
		snprintf(buf + used, sizeof(buf) - used, ")");
	ui_put_trunc(w, y, 1, s->cols - 2, ui_color_attr(UI_C_VALUE), buf);
}

/* Why there is no posterior to show; returns the next row. */
static int
draw_none(struct ui *ui, struct results_state *s, WINDOW *w, int y)
{
	char buf[HET_ERROR_MSG_MAX + 128];
	attr_t a = ui_color_attr(UI_C_DIM);

	if (ui->ses.sample == NULL)
		snprintf(buf, sizeof(buf), "No sampling results yet: the "
		    "Sampling panel (4) runs NLSQ then Consensus Monte Carlo "
		    "(r); its posterior appears here.");
	else if (!het_sample_finished(ui->ses.sample))
		snprintf(buf, sizeof(buf), "Sampling is running (%s); the "
		    "posterior appears here when the shards are combined.",
		    het_sample_phase_name(het_sample_phase(ui->ses.sample)));
	else {
		a = ui_color_attr(UI_C_ERROR);
		snprintf(buf, sizeof(buf), "The last sampling run has no "
		    "posterior (%s): %s", het_sample_verdict_name(
		    het_sample_verdict(ui->ses.sample)),
		    het_sample_error(ui->ses.sample)->msg[0] != '\0' ?
		    het_sample_error(ui->ses.sample)->msg : "nothing finished");
	}
	return y + ui_put_wrapped(w, y, 1, s->cols - 2, 3, a, buf);
}

/* ---- the fit history ------------------------------------------------ */

/* The value of parameter `name` in r, or NaN. */
static double
rec_value(const struct ui_fit_record *r, const char *name)
{
	size_t k;

	for (k = 0; k < r->np; k++)
		if (strcmp(r->names[k], name) == 0)
			return r->x[k];
	return NAN;
}

static void
draw_history(struct ui *ui, struct results_state *s, WINDOW *w, int y,
    int rows)
{
	const struct ui_fit_record *last, *r;
	attr_t ta = ui_color_attr(UI_C_TITLE);
	int fw = 18 + (s->cols - 80) / 3, x, i, np, k, cw = 10;
	char tm[32], v[32], *base;
	attr_t pick;
	size_t idx;

	if (fw > 40)
		fw = 40;
	ui_fill(w, y, 0, s->cols, ta);
	if (s->hsel >= ui->ses.nfit_hist)
		s->hsel = ui->ses.nfit_hist > 0 ? ui->ses.nfit_hist - 1 : 0;
	r = ui->ses.nfit_hist > 0 ?
	    &ui->ses.fit_hist[ui->ses.nfit_hist - 1 - s->hsel] : NULL;
	ui_putf(w, y, 1, s->cols - 2, ta, "Run history  %zu run%s%s%s%s",
	    ui->ses.nfit_hist, ui->ses.nfit_hist == 1 ? "" : "s", r != NULL ?
	    "   picked: " : "", r == NULL ? "" : r->outdir != NULL ?
	    r->outdir : "(nothing written)", r != NULL && r->outdir != NULL ?
	    "/  Enter loads it" : "");
	y++;
	rows--;
	s->hrows = rows - 1;
	if (rows < 1)
		return;
	if (ui->ses.nfit_hist == 0) {
		ui_put_trunc(w, y, 1, s->cols - 2, ui_color_attr(UI_C_DIM),
		    "No run yet: the Fit panel (3) fits with r; each fit and "
		    "sampling run is listed here, newest first.");
		return;
	}
	last = &ui->ses.fit_hist[ui->ses.nfit_hist - 1];
	x = 1 + 8 + 1 + fw + 1 + 6 + 1 + 9 + 1 + 9;
	np = (s->cols - x - 1) / (cw + 1);
	if (np > (int)last->np)
		np = (int)last->np;
	ui_putf(w, y, 1, x, ui_color_attr(UI_C_LABEL) | A_BOLD,
	    "%-8s %-*s %-6s %-9s %9s", "time", fw, "file", "run", "status",
	    ui->scr.term.utf8 ? "\xcf\x87\xc2\xb2_red" : "chi2_red");
	for (k = 0; k < np; k++)
		ui_putf(w, y, x + k * (cw + 1), cw + 1, ui_color_attr(
		    UI_C_LABEL) | A_BOLD, " %*.*s", cw, cw, last->names[k]);
	y++;
	rows--;
	if (s->htop + (size_t)rows > ui->ses.nfit_hist)
		s->htop = ui->ses.nfit_hist > (size_t)rows ? ui->ses.nfit_hist -
		    (size_t)rows : 0;
	/* Keep the picked row in view. */
	if (s->hsel < s->htop)
		s->htop = s->hsel;
	else if (rows > 0 && s->hsel >= s->htop + (size_t)rows)
		s->htop = s->hsel - (size_t)rows + 1;
	for (i = 0; i < rows && s->htop + (size_t)i < ui->ses.nfit_hist; i++) {
		idx = ui->ses.nfit_hist - 1 - (s->htop + (size_t)i);
		r = &ui->ses.fit_hist[idx];
		strftime(tm, sizeof(tm), "%H:%M:%S", localtime(&r->when));
		base = strrchr(r->file, '/') != NULL ? strrchr(r->file, '/') +
		    1 : r->file;
		sp_fmt_w(v, sizeof(v), r->chi2_red, 5, 9);
		pick = s->htop + (size_t)i == s->hsel ? A_REVERSE : A_NORMAL;
		ui_putf(w, y + i, 1, 9, pick, "%-8s", tm);
		ui_put_trunc(w, y + i, 10, fw, pick, base);
		ui_putf(w, y + i, 11 + fw, 7, pick, "%-6s", r->analysis);
		ui_putf(w, y + i, 18 + fw, 10, ui_color_attr(strcmp(r->status,
		    "converged") == 0 || strcmp(r->status, "passed") == 0 ?
		    UI_C_INFO : UI_C_WARN), "%-9.9s", r->status);
		ui_putf(w, y + i, 28 + fw, 10, ui_color_attr(UI_C_VALUE),
		    "%9s", r->chi2_red == r->chi2_red ? v : "");
		for (k = 0; k < np; k++) {
			sp_fmt_w(v, sizeof(v), rec_value(r, last->names[k]),
			    5, cw);
			ui_putf(w, y + i, x + k * (cw + 1), cw + 1, A_NORMAL,
			    " %*s", cw, v);
		}
	}
	if (ui->ses.nfit_hist > (size_t)rows)
		ui_putf(w, y - 2, s->cols - 12, 11, ta, "%zu-%zu/%zu",
		    s->htop + 1, s->htop + (size_t)i, ui->ses.nfit_hist);
}

static void
results_draw(struct ui *ui, void *state, WINDOW *w)
{
	struct results_state *s = state;
	const struct het_sample_summary *sm = ui->ses.sample != NULL ?
	    het_sample_summary(ui->ses.sample) : NULL;
	attr_t ta = ui_color_attr(UI_C_TITLE);
	int y = 1, avail, hist, t, ph;
	const char *f = NULL;

	ui_fill(w, 0, 0, s->cols, ta);
	if (ui->ses.sample != NULL &&
	    het_sample_problem(ui->ses.sample) != NULL)
		f = het_sample_problem(ui->ses.sample)->data_path;
	ui_putf(w, 0, 1, s->cols - 2, ta, "Results  %s%s%s",
	    sm != NULL ? "posterior" : "", sm != NULL && f != NULL ? " of " :
	    "", sm != NULL && f != NULL ? (strrchr(f, '/') != NULL ?
	    strrchr(f, '/') + 1 : f) : "");
	if (ui_results_run_active(&s->run)) {
		y = ui_results_run_draw(ui, &s->run, w, y, s->rows - y - 2 -
		    (ui->ses.nfit_hist < 5 ? (int)ui->ses.nfit_hist : 5),
		    s->cols) + 1;
		s->trows = 0;
		draw_history(ui, s, w, y, s->rows - y);
		return;
	}
	if (sm == NULL || sm->p == 0) {
		y = draw_none(ui, s, w, y) + 1;
		s->trows = 0;
		draw_history(ui, s, w, y, s->rows - y);
		return;
	}
	y = draw_gates(ui, s, w, y, sm);
	/* Rows: table, plots, written line, history (2 + up to 5 fits). */
	avail = s->rows - y - 1 - 1;
	hist = 2 + (ui->ses.nfit_hist < 5 ? (int)(ui->ses.nfit_hist > 0 ?
	    ui->ses.nfit_hist : 1) : 5);
	t = avail - hist - 5;
	if (t > (int)sm->p)
		t = (int)sm->p;
	if (t < 2)
		t = 2;
	ph = avail - hist - t;
	if (ph > 8)
		ph = 8;
	if (ph < 3)
		ph = 3;
	s->trows = t;
	draw_table(ui, s, w, y, t, sm);
	y += 1 + t;
	draw_plots(ui, s, w, y, ph, sm);
	y += ph;
	draw_written(ui, s, w, y++);
	if (y < s->rows - 1)
		draw_history(ui, s, w, y, s->rows - y);
}

/* ---- keys and the panel table ------------------------------------------ */

/* Load the picked run of the history from its folder. */
static void
results_pick(struct ui *ui, struct results_state *s)
{
	const struct ui_fit_record *r;

	if (ui->ses.nfit_hist == 0) {
		ui_msg(ui, UI_LOG_INFO, "no run in this session yet");
		return;
	}
	if (s->hsel >= ui->ses.nfit_hist)
		s->hsel = ui->ses.nfit_hist - 1;
	r = &ui->ses.fit_hist[ui->ses.nfit_hist - 1 - s->hsel];
	if (r->outdir == NULL) {
		ui_msg(ui, UI_LOG_WARN, "that run wrote no results: nothing "
		    "to load");
		return;
	}
	ui_results_run_pick(ui, &s->run, r->outdir);
}

/* f: the figures of the picked run. */
static void
results_figures(struct ui *ui, struct results_state *s)
{
	const struct ui_fit_record *r;

	if (ui->ses.nfit_hist == 0) {
		ui_msg(ui, UI_LOG_INFO, "no run in this session yet: nothing "
		    "to draw (the Fit panel, 3, fits with r)");
		return;
	}
	if (s->hsel >= ui->ses.nfit_hist)
		s->hsel = ui->ses.nfit_hist - 1;
	r = &ui->ses.fit_hist[ui->ses.nfit_hist - 1 - s->hsel];
	if (r->outdir == NULL)
		ui_msg(ui, UI_LOG_WARN, "that run wrote no results: no "
		    "figures to draw");
	else
		ui_figs_start(&s->figs, r->outdir, strcmp(r->analysis,
		    "sample") == 0 ? "the sampling run" : "the fit");
}

static int
results_key(struct ui *ui, void *state, int key)
{
	struct results_state *s = state;
	const struct het_sample_summary *sm = ui->ses.sample != NULL ?
	    het_sample_summary(ui->ses.sample) : NULL;
	size_t p = sm != NULL ? sm->p : 0;
	long step = s->hrows > 1 ? s->hrows : 1;

	switch (key) {
	case UI_K_UP:
	case 'k':
		if (s->sel > 0)
			s->sel--;
		break;
	case UI_K_DOWN:
	case 'j':
		if (s->sel + 1 < p)
			s->sel++;
		break;
	case UI_K_PGUP:
		s->htop = s->htop > (size_t)step ? s->htop - (size_t)step : 0;
		break;
	case UI_K_PGDN:
		s->htop += (size_t)step;	/* clamped when drawn */
		break;
	case UI_K_HOME:
		s->htop = s->hsel = 0;
		break;
	case '[':
		if (s->hsel > 0)
			s->hsel--;
		break;
	case ']':
		if (s->hsel + 1 < ui->ses.nfit_hist)
			s->hsel++;
		break;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		results_pick(ui, s);
		break;
	case 'x':
		ui_results_run_clear(&s->run);
		break;
	case 'w':
		ui_results_csv_save(ui);
		break;
	case 'f':
		results_figures(ui, s);
		break;
	case 'c':
		if (!ui_figs_cancel(&s->figs))
			ui_msg(ui, UI_LOG_INFO, "nothing to cancel: c cancels "
			    "the figures f writes");
		break;
	default:
		return 0;
	}
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

static void *
results_init(struct ui *ui)
{
	struct results_state *s = ui_xcalloc(1, sizeof(*s));

	ui_figs_init(ui, &s->figs, "Results");
	return s;
}

static void
results_free(void *state)
{
	struct results_state *s = state;

	ui_results_run_clear(&s->run);
	ui_figs_fini(&s->figs);	/* stops and tidies a figure job */
	free(state);
}

/* The figure job in the loop: reaped, and let finish at exit. */
static double
results_deadline(struct ui *ui, void *state)
{
	(void)ui;
	return ui_figs_deadline(&((struct results_state *)state)->figs);
}

static void
results_handle(struct ui *ui, void *state, const struct pollfd *fds,
    size_t n)
{
	(void)ui;
	(void)fds;
	(void)n;
	ui_figs_handle(&((struct results_state *)state)->figs);
}

static int
results_busy(const struct ui *ui, const void *state)
{
	(void)ui;
	return ui_figs_running(&((const struct results_state *)state)->figs);
}

static void
results_wind_down(struct ui *ui, void *state, char *msg, size_t len)
{
	(void)ui;
	ui_figs_wind_down(&((struct results_state *)state)->figs, msg, len);
}

static void
results_event(struct ui *ui, void *state, struct het_event *ev)
{
	ui_results_run_event(ui, &((struct results_state *)state)->run, ev);
}

static void
results_resize(struct ui *ui, void *state, int lines, int cols)
{
	struct results_state *s = state;

	(void)ui;
	s->rows = lines;
	s->cols = cols;
}

const struct ui_panel_ops ui_panel_results = {
	.name = "Results",
	.hints = results_hints,
	.help = results_help,
	.init = results_init,
	.free = results_free,
	.draw = results_draw,
	.event = results_event,
	.key = results_key,
	.resize = results_resize,
	.deadline = results_deadline,
	.handle = results_handle,
	.busy = results_busy,
	.wind_down = results_wind_down,
};
