/*
 * ui_p_fit_draw.c: drawing of the Fit panel.
 *
 * Layout: the left column holds the fit's state (phase, cost, reduced
 * chi-square, trust radius, lambda, step norm, iterations, elapsed
 * time), the cost history as a chart on a log scale (braille dots, two
 * by four per cell, or '*' in ASCII mode) and the parameter table (live
 * values and start values while the fit runs; values, 1-sigma
 * uncertainties and flags after it).  The right column shows the data,
 * model and residual heatmaps of one angle side by side, data and model
 * on one colour scale and the residual (data - model) on the same ramp
 * centred on zero, and below them the fit's warnings in words.  The last
 * line says where the results were written.  Pure rendering of the
 * panel's state: nothing here computes a fit quantity.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_heat.h"
#include "ui_p_fit.h"

#define CHART_ROWS	4
#define TABLE_Y		(6 + CHART_ROWS)	/* title bar of the table */

static void
fmt_g(char *buf, size_t len, double v, int prec)
{
	double a = fabs(v);

	if (prec < 1 || prec > 17)	/* a double has at most 17 digits */
		prec = prec < 1 ? 1 : 17;
	if (v != v)
		snprintf(buf, len, "n/a");
	else if (a != 0 && (a < 1e-3 || a >= 1e6))
		snprintf(buf, len, "%.*e", prec > 1 ? prec - 1 : 1, v);
	else
		snprintf(buf, len, "%.*g", prec, v);
}

/* fmt_g in at most w characters: digits go before width. */
static void
fmt_fit(char *buf, size_t len, double v, int prec, int w)
{
	fmt_g(buf, len, v, prec);
	while ((int)strlen(buf) > w && prec > 1)
		fmt_g(buf, len, v, --prec);
}

int
fp_table_rows(const struct fit_state *s)
{
	int n = s->rows - 1 - (TABLE_Y + 2);

	return n > 1 ? n : 1;
}

void
fp_levels(struct ui *ui, struct fit_state *s)
{
	const struct het_fitjob_grid *g;
	struct ui_heat_scale sc;
	unsigned char *lv;
	double *buf;
	size_t n, k;

	free(s->lvl_data);
	free(s->lvl_model);
	free(s->lvl_resid);
	s->lvl_data = s->lvl_model = s->lvl_resid = NULL;
	if (s->res == NULL || s->res->grids == NULL)
		return;
	g = &s->res->grids[s->angle];
	n = g->side * g->side;
	s->side = g->side;
	s->lvl_angle = s->angle;
	s->nlev = ui_heat_mode_for(&ui->scr.term) == UI_HEAT_HALF ?
	    ui->scr.term.ramp_n : ui_heat_shade_levels();
	/* Data and model on one scale: level both at once. */
	buf = ui_xcalloc(2 * n + 2, sizeof(double));
	lv = ui_xcalloc(2 * n + 2, 1);
	memcpy(buf, g->data, n * sizeof(double));
	memcpy(buf + n, g->model, n * sizeof(double));
	memset(&sc, 0, sizeof(sc));
	sc.nlev = s->nlev;
	ui_heat_levels(buf, 2 * n, &sc, lv);
	s->dlo = sc.vlo;
	s->dhi = sc.vhi;
	s->lvl_data = ui_xcalloc(n, 1);
	s->lvl_model = ui_xcalloc(n, 1);
	memcpy(s->lvl_data, lv, n);
	memcpy(s->lvl_model, lv + n, n);
	/* The residual, centred: two sentinels fix the range at +-max. */
	s->rmax = 0;
	for (k = 0; k < n; k++)
		if (isfinite(g->resid[k]) && fabs(g->resid[k]) > s->rmax)
			s->rmax = fabs(g->resid[k]);
	if (s->rmax == 0)
		s->rmax = 1e-12;
	memcpy(buf, g->resid, n * sizeof(double));
	buf[n] = -s->rmax;
	buf[n + 1] = s->rmax;
	ui_heat_levels(buf, n + 2, &sc, lv);
	s->lvl_resid = ui_xcalloc(n, 1);
	memcpy(s->lvl_resid, lv, n);
	free(buf);
	free(lv);
}

/* ---- the cost chart ---------------------------------------------------- */

/* One braille cell (U+2800 + dots) as UTF-8. */
static void
braille(char *out, unsigned bits)
{
	unsigned cp = 0x2800 + bits;

	out[0] = (char)(0xe0 | (cp >> 12));
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	out[3] = '\0';
}

/*
 * The cost of records 0 .. n-1 on a log10 axis over h rows and wd
 * columns: braille gives 2 x 4 dots per cell; ASCII one '*' per cell.
 * The records are spread over the width and consecutive ones joined by a
 * straight run of dots, so a short history still fills the chart.
 */
static void
chart(struct ui *ui, WINDOW *w, int y, int x, int h, int wd,
    const double *v, size_t n, double *plo, double *phi)
{
	int utf8 = ui->scr.term.utf8, dx = utf8 ? 2 : 1, dy = utf8 ? 4 : 1;
	int W = wd * dx, H = h * dy, c, r, pc = -1, pr = -1, t, steps, cc, rr;
	static const unsigned bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 },
	    { 0x08, 0x10, 0x20, 0x80 } };
	unsigned char *cells;
	double lo = INFINITY, hi = -INFINITY, l;
	size_t k, i;
	char cell[8];

	*plo = *phi = NAN;
	for (k = 0; k < n; k++)
		if (v[k] > 0 && isfinite(v[k])) {
			l = log10(v[k]);
			lo = l < lo ? l : lo;
			hi = l > hi ? l : hi;
		}
	if (!(lo <= hi) || wd <= 0 || h <= 0)
		return;
	*plo = pow(10, lo);
	*phi = pow(10, hi);
	if (hi - lo < 1e-12) {
		lo -= 0.5;
		hi += 0.5;
	}
	cells = ui_xcalloc((size_t)(wd * h), 1);
	for (k = 0; k < n; k++) {
		if (!(v[k] > 0 && isfinite(v[k])))
			continue;
		c = n == 1 ? 0 : (int)((double)k * (W - 1) / (double)(n - 1) +
		    0.5);
		r = (int)((hi - log10(v[k])) / (hi - lo) * (H - 1) + 0.5);
		if (pc < 0) {
			pc = c;
			pr = r;
		}
		steps = abs(c - pc) > abs(r - pr) ? abs(c - pc) : abs(r - pr);
		for (t = 0; t <= steps; t++) {
			cc = steps == 0 ? c : pc + (c - pc) * t / steps;
			rr = steps == 0 ? r : pr + (r - pr) * t / steps;
			cells[(rr / dy) * wd + cc / dx] |= utf8 ?
			    bit[cc % 2][rr % 4] : 1;
		}
		pc = c;
		pr = r;
	}
	for (r = 0; r < h; r++)
		for (c = 0; c < wd; c++) {
			i = (size_t)(r * wd + c);
			if (cells[i] == 0)
				continue;
			if (utf8)
				braille(cell, cells[i]);
			else
				snprintf(cell, sizeof(cell), "*");
			ui_put(w, y + r, x + c, 1, ui_color_attr(UI_C_GRAPH),
			    cell);
		}
	free(cells);
}

/* ---- left column ------------------------------------------------------- */

static void
field(WINDOW *w, int y, int x, int wd, const char *label, const char *val)
{
	int used;

	used = ui_put(w, y, x, wd, ui_color_attr(UI_C_LABEL), label);
	ui_put(w, y, x + used + 1, wd - used - 1, ui_color_attr(UI_C_VALUE),
	    val);
}

static void
draw_state(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	const struct het_fitjob_snap *sn = s->snap;
	const struct het_fitjob_result *res = s->job == NULL ? s->res : NULL;
	const struct het_fit_result *fr = fp_shown_fit(s, res);
	const struct het_fit_progress *pr = sn != NULL && sn->iterating ?
	    &sn->pr : NULL;
	int L = s->left - 1, half = L / 2;
	char buf[256], v[64];
	attr_t a;

	if (s->job != NULL) {
		a = ui_color_attr(UI_C_WARN) | A_BOLD;
		if (s->cancelling)
			snprintf(buf, sizeof(buf), "cancelling ...");
		else if (sn == NULL || sn->phase <= HET_FITJOB_READING)
			snprintf(buf, sizeof(buf), "reading bin %zu/%zu",
			    sn != NULL ? sn->bins_done : 0,
			    sn != NULL ? sn->bins_total : 0);
		else if (sn->phase == HET_FITJOB_WRITING)
			snprintf(buf, sizeof(buf), "writing the results");
		else if (pr != NULL && pr->stage == 1)
			snprintf(buf, sizeof(buf),
			    "pre-fit of the early frames  "
			    "iteration %ld", pr->iter);
		else if (pr != NULL && pr->nstarts > 1)
			snprintf(buf, sizeof(buf), "running  iteration %ld  "
			    "start %zu/%zu", pr->iter, pr->start + 1,
			    pr->nstarts);
		else
			snprintf(buf, sizeof(buf), "running  iteration %ld",
			    pr != NULL ? pr->iter : 0L);
	} else if (fr != NULL) {
		a = ui_color_attr(res->converged && res->status == HET_OK ?
		    UI_C_INFO : UI_C_WARN) | A_BOLD;
		snprintf(buf, sizeof(buf), "%s (%s)  %ld iteration%s",
		    res->status == HET_ECANCEL ? "cancelled" : fr->converged ?
		    "converged" : "not converged",
		    het_nlsq_reason_name(fr->reason), fr->iterations,
		    fr->iterations == 1 ? "" : "s");
	} else {
		a = ui_color_attr(UI_C_DIM);
		snprintf(buf, sizeof(buf), "%s", s->error != NULL ? "failed" :
		    "no fit yet");
	}
	ui_put(w, 1, 1, L, s->error != NULL && s->job == NULL && fr == NULL ?
	    ui_color_attr(UI_C_ERROR) | A_BOLD : a, buf);
	if (fr == NULL && pr == NULL)
		return;
	fmt_g(v, sizeof(v), fr != NULL ? fr->cost : pr->cost, 5);
	field(w, 2, 1, half, "cost", v);
	fmt_g(v, sizeof(v), fr != NULL ? fr->chi2_red : pr->chi2_red, 5);
	field(w, 2, 1 + half, L - half, ui->scr.term.utf8 ?
	    "\xcf\x87\xc2\xb2_red" : "chi2_red", v);
	if (pr != NULL) {
		fmt_g(v, sizeof(v), pr->radius, 3);
		field(w, 3, 1, half, "radius", v);
		fmt_g(v, sizeof(v), pr->lambda, 3);
		field(w, 3, 1 + half, L - half, ui->scr.term.utf8 ?
		    "\xce\xbb" : "lambda", v);
		fmt_g(v, sizeof(v), pr->step_norm, 3);
		field(w, 4, 1, half, "step", v);
	}
	snprintf(v, sizeof(v), "%ld", fr != NULL ? fr->nfev : pr->nfev);
	field(w, 4, 1 + half, L - half, "evals", v);
	snprintf(v, sizeof(v), "%.1f s", res != NULL ? res->wall_time :
	    ui_now() - s->t_start);
	field(w, 5, 1, half, "elapsed", v);
	/* Say where the iteration count restarted and the cost jumped. */
	if (fr != NULL && fr->window_frames > 0) {
		/* Shorter forms before a number would be cut. */
		snprintf(v, sizeof(v), "first %ld fr, %ld it.",
		    fr->window_frames, fr->window_iterations);
		if ((int)strlen(v) + 9 > L - half)
			snprintf(v, sizeof(v), "%ld fr, %ld it.",
			    fr->window_frames, fr->window_iterations);
		if ((int)strlen(v) + 9 > L - half)
			snprintf(v, sizeof(v), "%ld it.",
			    fr->window_iterations);
	} else if (fr == NULL && s->prefit_iter >= 0 && pr != NULL &&
	    pr->stage == 0)
		snprintf(v, sizeof(v), "done, %ld it.", s->prefit_iter);
	else
		return;
	field(w, 5, 1 + half, L - half, "pre-fit", v);
}

static void
draw_chart(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	int L = s->left - 1, cw = L - 11, y = 6;
	double lo, hi;
	char a[32], b[32];

	if (s->ncost == 0)
		return;
	chart(ui, w, y, 1, CHART_ROWS, cw, s->cost, s->ncost, &lo, &hi);
	fmt_g(a, sizeof(a), hi, 3);
	fmt_g(b, sizeof(b), lo, 3);
	ui_put(w, y, cw + 2, 10, ui_color_attr(UI_C_DIM), a);
	ui_put(w, y + CHART_ROWS - 1, cw + 2, 10, ui_color_attr(UI_C_DIM), b);
	ui_putf(w, y + 1, cw + 2, 10, ui_color_attr(UI_C_DIM), "cost, log");
	ui_putf(w, y + 2, cw + 2, 10, ui_color_attr(UI_C_DIM), "%zu it.",
	    s->ncost);
}

/* Short flag words for the table (het_fitjob_flag says them in full). */
static const char *
short_flag(const char *f)
{
	if (strcmp(f, "at lower bound") == 0)
		return "at min";
	if (strcmp(f, "at upper bound") == 0)
		return "at max";
	if (strcmp(f, "at bound, degenerate") == 0)
		return "bound,degen";
	return f;
}

static void
draw_table(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	const struct het_fitjob_snap *sn = s->job != NULL ? s->snap : NULL;
	const struct het_fit_result *fr = s->job == NULL ?
	    fp_shown_fit(s, s->res) : NULL;
	int L = s->left, nw = L - 35, rows = fp_table_rows(s), y;
	size_t np = sn != NULL ? sn->p : fr != NULL ? fr->p : 0, k;
	const char *name, *flag;
	char buf[256], val[32], unc[32];
	attr_t ta = ui_color_attr(UI_C_TITLE);
	double x, lo, hi;

	if (nw < 12)
		nw = 12;
	ui_fill(w, TABLE_Y, 0, L, ta);
	ui_putf(w, TABLE_Y, 1, L - 1, ta, "Parameters  %zu free%s", np,
	    sn != NULL ? "  (live)" : "");
	if (np == 0)
		return;
	snprintf(buf, sizeof(buf), "%-*s %10s %10s %s", nw, "name", "value",
	    sn != NULL ? "start" : "\xc2\xb1 1\xcf\x83", "flags");
	if (!ui->scr.term.utf8)
		snprintf(buf, sizeof(buf), "%-*s %10s %10s %s", nw, "name",
		    "value", sn != NULL ? "start" : "+- 1sigma", "flags");
	ui_put(w, TABLE_Y + 1, 1, L - 1, ui_color_attr(UI_C_LABEL) | A_BOLD,
	    buf);
	if (s->top + (size_t)rows > np)
		s->top = np > (size_t)rows ? np - (size_t)rows : 0;
	for (y = 0; y < rows && s->top + (size_t)y < np; y++) {
		k = s->top + (size_t)y;
		name = sn != NULL ? sn->names[k] : fr->names[k];
		x = sn != NULL ? sn->x[k] : fr->x[k];
		lo = sn != NULL ? sn->lo[k] : fr->lo[k];
		hi = sn != NULL ? sn->hi[k] : fr->hi[k];
		/* 5.00538e-04 took 11 of 10 columns and cut the next. */
		fmt_fit(val, sizeof(val), x, 6, 10);
		if (sn != NULL) {
			fmt_fit(unc, sizeof(unc), sn->x0[k], 6, 10);
			flag = x <= lo + 1e-6 * (hi - lo) ? "at min" :
			    x >= hi - 1e-6 * (hi - lo) ? "at max" : "";
		} else {
			/* no finite uncertainty (degenerate): a dash */
			if (isfinite(fr->unc[k]))
				fmt_fit(unc, sizeof(unc), fr->unc[k], 3, 10);
			else
				snprintf(unc, sizeof(unc), "%9s%s", "",
				    ui->scr.term.utf8 ? "\xe2\x80\x94" : "-");
			flag = short_flag(het_fitjob_flag(fr, k));
		}
		ui_put_trunc(w, TABLE_Y + 2 + y, 1, nw, A_NORMAL,
		    name != NULL ? name : "?");
		ui_putf(w, TABLE_Y + 2 + y, 2 + nw, 21, ui_color_attr(
		    UI_C_VALUE), "%10s %10s", val, unc);
		ui_put(w, TABLE_Y + 2 + y, 24 + nw, L - 25 - nw, ui_color_attr(
		    *flag != '\0' ? UI_C_WARN : UI_C_DIM), flag);
	}
	if (np > (size_t)rows)
		ui_putf(w, TABLE_Y, L - 14, 13, ta, "%zu-%zu/%zu", s->top + 1,
		    s->top + (size_t)y, np);
}

/* ---- right column -------------------------------------------------- */

static int
draw_heat(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	enum ui_heat_mode mode = ui_heat_mode_for(&ui->scr.term);
	int x0 = s->left + 1, R = s->cols - x0, tw, th, i, x, y = 1;
	static const char *const title[3] = { "data", "model",
	    "residual" };
	const unsigned char *lv[3];
	char a[32], b[32], buf[160];

	tw = (R - 3) / 3;
	th = tw / 2;
	if (th > s->rows / 2 - 2)
		th = s->rows / 2 - 2;
	if (th < 2 || tw < 4 || s->lvl_data == NULL)
		return 1;
	lv[0] = s->lvl_data;
	lv[1] = s->lvl_model;
	lv[2] = s->lvl_resid;
	for (i = 0; i < 3; i++) {
		x = x0 + 1 + i * (tw + 1);
		ui_put(w, y, x, tw, ui_color_attr(UI_C_LABEL), title[i]);
		ui_heat_draw(w, y + 1, x, th, tw, mode, lv[i], s->side,
		    s->side, s->nlev, -1, -1);
	}
	fmt_g(a, sizeof(a), s->dlo, 4);
	fmt_g(b, sizeof(b), s->dhi, 4);
	snprintf(buf, sizeof(buf), "c2 %s%s%s", a, g->dash, b);
	ui_put(w, y + 1 + th, x0 + 1, 2 * tw + 1, ui_color_attr(UI_C_DIM),
	    buf);
	fmt_g(a, sizeof(a), s->rmax, 2);
	snprintf(buf, sizeof(buf), "%s%s", ui->scr.term.utf8 ? "\xc2\xb1" :
	    "+-", a);
	ui_put(w, y + 1 + th, x0 + 1 + 2 * (tw + 1), tw,
	    ui_color_attr(UI_C_DIM), buf);
	return y + 2 + th;
}

static void
draw_right(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	const struct het_fitjob_result *res = s->job == NULL ? s->res : NULL;
	const struct het_fit_result *fr = fp_shown_fit(s, res);
	const struct ui_glyphs *g = ui->scr.term.g;
	int x0 = s->left + 1, R = s->cols - x0, y, k, left;
	attr_t ta = ui_color_attr(UI_C_TITLE), wa = ui_color_attr(UI_C_WARN);
	size_t i;

	ui_fill(w, 0, x0, R, ta);
	if (res != NULL && res->per_angle) {
		ui_putf(w, 0, x0 + 1, R - 1, ta, "per angle: angle %zu/%zu  "
		    "%s %.4g%s  bin #%zu", s->angle + 1, res->pb->nangles,
		    g->phi, res->pb->phi[s->angle], g->deg,
		    res->pb->bins[s->angle] + 1);
		ui_put_wrapped(w, 2, x0 + 1, R - 2, 4, ui_color_attr(UI_C_DIM),
		    fr != NULL ? "Every angle was fitted on its own; the "
		    "table shows this angle's parameters ([ ] chooses the "
		    "angle, p fits jointly again).  Joint fits draw the data, "
		    "model and residual maps." : "This angle was not fitted "
		    "(the fit was cancelled before it).");
		return;
	}
	if (res == NULL || res->grids == NULL) {
		ui_put(w, 0, x0 + 1, R - 1, ta, "Data | model | residual");
		ui_put_wrapped(w, 2, x0 + 1, R - 2, 3, ui_color_attr(UI_C_DIM),
		    s->job != NULL ? "The heatmaps of data, model and "
		    "residual appear when the fit ends." : "After a fit: the "
		    "data, the fitted model and their difference for one "
		    "angle ([ ] chooses it).");
		return;
	}
	ui_putf(w, 0, x0 + 1, R - 1, ta, "angle %zu/%zu  %s %.4g%s  bin #%zu",
	    s->angle + 1, res->pb->nangles, g->phi, res->pb->phi[s->angle],
	    g->deg, res->pb->bins[s->angle] + 1);
	y = draw_heat(ui, s, w);
	left = s->rows - 1 - y - 1;
	if (left < 1)
		return;
	k = (int)(res->pb->nwarnings + fr->nwarnings);
	ui_fill(w, y, x0, R, ta);
	ui_putf(w, y++, x0 + 1, R - 1, ta, "Warnings  %d", k);
	if (k == 0) {
		ui_put(w, y, x0 + 1, R - 2, ui_color_attr(UI_C_DIM), "none");
		return;
	}
	for (i = 0; i < fr->nwarnings && y < s->rows - 1; i++)
		y += ui_put_wrapped(w, y, x0 + 1, R - 2, s->rows - 1 - y, wa,
		    fr->warnings[i]);
	for (i = 0; i < res->pb->nwarnings && y < s->rows - 1; i++)
		y += ui_put_wrapped(w, y, x0 + 1, R - 2, s->rows - 1 - y, wa,
		    res->pb->warnings[i]);
}

/* The last line: where the results are. */
static void
draw_where(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	const struct het_fitjob_result *res = s->job == NULL ? s->res : NULL;
	char buf[1200];
	int y = s->rows - 1;

	(void)ui;
	if (s->job != NULL) {
		snprintf(buf, sizeof(buf), "fitting %s", s->job_file);
		ui_put_trunc(w, y, 1, s->cols - 2, ui_color_attr(UI_C_DIM),
		    buf);
		return;
	}
	if (res == NULL)
		return;
	if (!res->written) {
		snprintf(buf, sizeof(buf), "results NOT written: %s",
		    res->write_err.msg);
		ui_put_trunc(w, y, 1, s->cols - 2, ui_color_attr(UI_C_ERROR),
		    buf);
		return;
	}
	snprintf(buf, sizeof(buf), "results: %s/%s%s%s", res->outdir,
	    res->outdir_note[0] != '\0' ? "  (" : "", res->outdir_note,
	    res->outdir_note[0] != '\0' ? ")" : "");
	ui_put_trunc(w, y, 1, s->cols - 2, ui_color_attr(UI_C_VALUE), buf);
}

static void
draw_idle(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	const struct ui_ring *r = ui_model_ring(ui);
	int x = 3, wd = s->left - 5, y = 2;
	char buf[512];

	if (s->error != NULL) {
		ui_put(w, y++, x, wd, ui_color_attr(UI_C_ERROR),
		    "The last fit failed:");
		y += ui_put_wrapped(w, y, x, wd, 5, A_NORMAL, s->error);
		y++;
	}
	if (ui->ses.meta == NULL) {
		ui_put_wrapped(w, y, x, wd, 4, A_NORMAL, "No file is open. "
		    "Start hetui with a result file (and -c CONFIG) to fit "
		    "it.");
		return;
	}
	snprintf(buf, sizeof(buf), "r fits %s (%s) to ring %zu, q %.4g, %zu "
	    "selected angle%s, frames %ld-%ld.",
	    het_mode_name(ui->ses.cfg->mode),
	    ui->ses.cfg_path != NULL ? "the edited configuration" :
	    "default parameters", ui->ses.sel.ring + 1, r != NULL ? r->q : 0,
	    ui_model_ring_selected(ui, ui->ses.sel.ring),
	    ui_model_ring_selected(ui, ui->ses.sel.ring) == 1 ? "" : "s",
	    ui->ses.sel.first, ui->ses.sel.last);
	y += ui_put_wrapped(w, y, x, wd, 4, A_NORMAL, buf) + 1;
	y += ui_put_wrapped(w, y, x, wd, 3, A_NORMAL, "e fits every q ring "
	    "of the file, t a series of files, in the same way.") + 1;
	ui_put_wrapped(w, y, x, wd, 5, ui_color_attr(UI_C_DIM), "Results go "
	    "to the configuration's output_dir when it is set, else to "
	    "hetui_<file stem>/ beside the data file, or to the current "
	    "directory when the data folder is not writable.");
}

void
fp_draw(struct ui *ui, void *state, WINDOW *w)
{
	struct fit_state *s = state;
	attr_t ta = ui_color_attr(UI_C_TITLE);
	const char *f = s->job != NULL ? s->job_file : s->res != NULL ?
	    s->res->data_path : NULL, *base;
	int y;

	if (s->bshow && s->batch != NULL) {
		fp_batch_draw(ui, s, w);	/* e, t: the whole body */
		return;
	}
	ui_fill(w, 0, 0, s->left, ta);
	base = f != NULL && strrchr(f, '/') != NULL ? strrchr(f, '/') + 1 : f;
	if (base != NULL && s->job == NULL && s->res != NULL)
		ui_putf(w, 0, 1, s->left - 2, ta, "Fit  %s  frames %ld%s%ld  "
		    "%zu %s", base, s->res->pb->first_frame,
		    ui->scr.term.g->dash,
		    s->res->pb->last_frame, s->res->pb->nangles,
		    ui->scr.term.g->phi);
	else if (base != NULL)
		ui_putf(w, 0, 1, s->left - 2, ta, "Fit  %s%s  frames %ld%s%ld",
		    s->job != NULL && s->warm ? "from last result  " : "",
		    base, s->job_first, ui->scr.term.g->dash, s->job_last);
	else
		ui_put(w, 0, 1, s->left - 2, ta, "Fit");
	for (y = 1; y < s->rows - 1; y++)
		ui_put(w, y, s->left, 1, ui_color_attr(UI_C_DIM),
		    ui->scr.term.g->vline);
	draw_state(ui, s, w);
	if (s->job == NULL && s->res == NULL)
		draw_idle(ui, s, w);
	else {
		draw_chart(ui, s, w);
		draw_table(ui, s, w);
	}
	draw_right(ui, s, w);
	draw_where(ui, s, w);
}
