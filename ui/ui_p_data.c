/*
 * ui_p_data.c: the Data panel: file summary, the bins of one q ring, the
 * c2 heatmap of the bin under the cursor and its one-time projection.
 *
 * Design: the left column is the file summary and the bins table of the
 * current ring; the right column is the heatmap with its legend, the
 * cursor read-out and the g2(tau) sparkline.  The panel never reads the
 * file: whenever the wanted view (bin, frame window, grid size) differs
 * from the last request it asks the I/O thread for a new one and keeps
 * showing the previous picture until the answer arrives; answers whose
 * generation is not the latest are dropped.  The heatmap cursor lives in
 * frame coordinates, so it stays on the same frames when the grid is
 * resized or another bin of the ring is shown.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_nyquist.h"
#include "ui.h"
#include "ui_p_data.h"

static const struct ui_hint data_hints[] = {
	{ "\xe2\x86\x91\xe2\x86\x93", "Up/Dn", "Bin" },
	{ "Spc", "Spc", "Select" },
	{ "[]", "[]", "Ring" },
	{ "\xe2\x8f\x8e", "Enter", "Heatmap" },
	{ "w", "w", "Window" },
	{ "L", "L", "Log" },
	{ "c", "c", "Cuts" },
	{ "a", "a", "All" },
	{ NULL, NULL, NULL }
};

static const char data_help[] =
    "Up Down  j k\tmove through the bins of the ring\n"
    "PgUp PgDn\tmove a page; Home End: first, last bin\n"
    "Space\tselect or deselect the angle under the cursor\n"
    "a\tselect every angle of the ring (again: none)\n"
    "[  ]\tprevious / next q ring\n"
    "w\tset the frame window as first,last (1-based,\n"
    "\tinclusive; 'all' resets it)\n"
    "L\tcolour scale: linear c2, or log10(c2 - baseline)\n"
    "\twith the baseline taken at the far lags\n"
    "Enter\tmove the focus to the heatmap and back\n"
    "h j k l\tin the heatmap: move the cursor (arrows too);\n"
    "\tthe lines below show c2, t1, t2, age and lag there\n"
    "z Z\tin the heatmap: zoom in on the cursor's age (half\n"
    "\tthe window), zoom back out\n"
    "Esc\tleave the heatmap\n"
    "c\tchart: one-time g2(tau); g2(tau) at the cursor's\n"
    "\tage; c2 against age at its lag; with a fit's model\n"
    "f\ttimes in frames or in seconds\n"
    "\tThe heatmap shows block means of c2(t1, t2) with\n"
    "\tt1 across and t2 up; the one-time projection\n"
    "\tg2(tau) is the mean along each lag, log tau axis.\n"
    "m\tthe file's multitau g2 and fits (? there: keys)\n";

static void *
data_init(struct ui *ui)
{
	(void)ui;
	return ui_xcalloc(1, sizeof(struct data_state));
}

static void
data_free(void *state)
{
	struct data_state *s = state;

	if (s == NULL)
		return;
	het_io_view_free(s->view);
	data_mt_free(s);
	free(s->lvl);
	free(s->error);
	free(s->req_model);
	free(s->model_note);
	free(s);
}

static void
data_resize(struct ui *ui, void *state, int lines, int cols)
{
	struct data_state *s = state;
	enum ui_heat_mode mode = ui_heat_mode_for(&ui->scr.term);
	int rw, avail;

	s->rows = lines;
	s->cols = cols;
	s->left = LEFT_MIN + (cols - 80) / 4;
	if (s->left > 52)
		s->left = 52;
	rw = cols - s->left - 1;
	s->hy = 1;
	s->hx = s->left + 2;
	s->hh = lines - 1 - AXIS_ROWS - VALUE_ROWS - 1 - SPARK_ROWS;
	avail = rw - 2 - 1 - LEGEND_COLS - 1 - LEGEND_LABEL;
	/* Square pixels: a half block is as wide as half its height. */
	s->hw = 2 * s->hh;	/* half blocks and shades alike */
	if (s->hw > avail) {
		s->hw = avail;
		s->hh = s->hw / 2;
	}
	if (s->hh < 1)
		s->hh = 1;
	if (s->hw < 2)
		s->hw = 2;
	s->want_rows = mode == UI_HEAT_HALF ? 2 * (size_t)s->hh :
	    (size_t)s->hh;
	s->want_cols = (size_t)s->hw;
	data_request(ui, s);
}

static void
data_levels(struct ui *ui, struct data_state *s)
{
	enum ui_heat_mode mode = ui_heat_mode_for(&ui->scr.term);
	size_t n;

	if (s->view == NULL)
		return;
	n = s->view->rows * s->view->cols;
	free(s->lvl);
	s->lvl = ui_xcalloc(n, 1);
	s->sc.nlev = mode == UI_HEAT_HALF ? ui->scr.term.ramp_n :
	    ui_heat_shade_levels();
	s->sc.logscale = s->logscale;
	s->sc.offset = s->view->baseline;
	ui_heat_levels(s->view->grid, n, &s->sc, s->lvl);
}

void
data_request(struct ui *ui, struct data_state *s)
{
	struct het_io_view_req rq;
	struct het_error err;

	if (ui->ses.meta == NULL || ui->ses.io == NULL || s->want_rows == 0)
		return;
	rq.bin = ui->ses.sel.cursor;
	data_window(ui, s, &rq.first, &rq.last);
	rq.rows = s->want_rows;
	rq.cols = s->want_cols;
	rq.model_dir = ui->ses.model_dir;	/* the cuts' model */
	if (s->requested && rq.bin == s->req_bin && rq.first ==
	    s->req_first && rq.last == s->req_last && rq.rows ==
	    s->req_rows && rq.cols == s->req_cols && (rq.model_dir == NULL ?
	    s->req_model == NULL : s->req_model != NULL &&
	    strcmp(rq.model_dir, s->req_model) == 0))
		return;
	het_error_clear(&err);
	if (het_io_view(ui->ses.io, &rq, &s->gen, &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
		return;
	}
	s->requested = 1;
	s->req_bin = rq.bin;
	s->req_first = rq.first;
	s->req_last = rq.last;
	s->req_rows = rq.rows;
	s->req_cols = rq.cols;
	free(s->req_model);
	s->req_model = rq.model_dir != NULL ? ui_xstrdup(rq.model_dir) : NULL;
	ui_dirty(ui, UI_DIRTY_TABS | UI_DIRTY_BODY);
}

/*
 * The cursor of a new view v: on the same frames of the file when the
 * old view had them and v shows them (a zoom, another bin), else the
 * middle of v.
 */
static void
keep_cursor(struct data_state *s, const struct het_io_view *v)
{
	long fi, fj;

	if (s->view != NULL) {
		fi = s->view->first + (long)s->ci;
		fj = s->view->first + (long)s->cj;
		if (fi >= v->first && fi <= v->last && fj >= v->first &&
		    fj <= v->last) {
			s->ci = (size_t)(fi - v->first);
			s->cj = (size_t)(fj - v->first);
			return;
		}
	}
	s->ci = s->cj = v->n / 2;
}

static void
data_event(struct ui *ui, void *state, struct het_event *ev)
{
	struct data_state *s = state;
	struct het_io_view *v;
	struct het_io_failure *f;

	switch (ev->type) {
	case HET_IO_EV_OPENED:
		if (ev->data != NULL || ui->ses.meta == NULL)
			return;	/* not taken by the model: stale */
		data_mt_free(s);	/* its own follows, if it has one */
		het_io_view_free(s->view);
		s->view = NULL;
		free(s->error);
		s->error = NULL;
		s->requested = 0;
		s->top = 0;
		data_zoom_reset(s);
		data_request(ui, s);
		break;
	case HET_IO_EV_VIEW:
		v = ev->data;
		if (v->gen != s->gen) {
			ui_log(ui, UI_LOG_DEBUG, "dropped a stale view of bin "
			    "%zu", v->bin);
			return;
		}
		ev->data = NULL;
		keep_cursor(s, v);
		het_io_view_free(s->view);
		s->view = v;
		free(s->error);
		s->error = NULL;
		data_levels(ui, s);
		data_cut_note(ui, s);
		ui_log(ui, UI_LOG_DEBUG, "bin #%zu frames %ld-%ld: %zux%zu "
		    "grid in %.3f s", v->bin + 1, v->first, v->last, v->rows,
		    v->cols, v->seconds);
		ui_dirty(ui, UI_DIRTY_BODY | UI_DIRTY_TABS);
		break;
	case HET_IO_EV_MULTITAU:
		data_mt_event(ui, s, ev);
		break;
	case HET_IO_EV_ERROR:
		f = ev->data;
		if (f->kind != HET_IO_REQ_VIEW || f->gen != s->gen)
			return;
		free(s->error);
		s->error = ui_xstrdup(f->err.msg);
		ui_msg(ui, UI_LOG_ERROR, "%s", f->err.msg);
		ui_dirty(ui, UI_DIRTY_BODY);
		break;
	}
}

/* Position of the cursor bin inside the current ring. */
static size_t
ring_pos(const struct ui *ui)
{
	const struct ui_ring *r = ui_model_ring(ui);
	size_t i;

	for (i = 0; r != NULL && i < r->nbins; i++)
		if (r->bins[i] == ui->ses.sel.cursor)
			return i;
	return 0;
}

void
data_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (v != v)
		snprintf(buf, len, "n/a");
	else if (a != 0 && (a < 1e-3 || a >= 1e5))
		snprintf(buf, len, "%.3e", v);
	else
		snprintf(buf, len, "%.5g", v);
}

static void
field(WINDOW *w, int y, int x, int wd, const char *label, const char *val,
    attr_t va)
{
	ui_put(w, y, x, 9, ui_color_attr(UI_C_LABEL), label);
	ui_put(w, y, x + 9, wd - 9, va, val);
}

/*
 * The aliasing flag after dt: the largest phase step of the flow fringes
 * between two frames, for the configured parameters over the selection,
 * against its limit (het_nyquist.h).  Shown only when it is exceeded.
 */
static void
draw_nyquist(struct ui *ui, WINDOW *w, int y, int x, int right)
{
	struct het_nyquist ny;
	char buf[64];

	if (!ui_model_nyquist(ui, &ny) || !(ny.ratio > 1.0) || x >= right)
		return;
	snprintf(buf, sizeof(buf), "ALIASED %.3gx", ny.ratio);
	ui_put_trunc(w, y, x, right - x, ui_color_attr(UI_C_WARN) | A_BOLD,
	    buf);
}

static void
draw_summary(struct ui *ui, struct data_state *s, WINDOW *w)
{
	const struct het_io_meta *m = ui->ses.meta;
	const struct ui_glyphs *g = ui->scr.term.g;
	attr_t v = ui_color_attr(UI_C_VALUE), d = ui_color_attr(UI_C_DIM);
	const char *base = strrchr(m->path, '/');
	int wd = s->left - 2, x;
	char buf[256], e[32], dist[32];

	ui_fill(w, 0, 0, s->left, ui_color_attr(UI_C_TITLE));
	ui_put(w, 0, 1, s->left - 1, ui_color_attr(UI_C_TITLE), "File");
	ui_put(w, 1, 1, 9, ui_color_attr(UI_C_LABEL), "file");
	ui_put_trunc(w, 1, 10, wd - 9, v, base != NULL ? base + 1 : m->path);
	snprintf(buf, sizeof(buf), "%s %s %s %s %s",
	    het_layout_name(m->layout), g->vline,
	    het_compress_name(m->compression), g->vline,
	    het_dtype_name(m->dtype));
	field(w, 2, 1, wd, "layout", buf, v);
	if (m->dt == m->dt)
		snprintf(buf, sizeof(buf), "%.6g s", m->dt);
	else
		snprintf(buf, sizeof(buf), "unknown (set analyzer dt)");
	field(w, 3, 1, wd, "dt", buf, m->dt == m->dt ? v :
	    ui_color_attr(UI_C_WARN));
	draw_nyquist(ui, w, 3, 10 + ui_strwidth(buf) + 2, s->left - 1);
	ui_put_trunc(w, 4, 10, wd - 9, d, m->dt_source);
	data_fmt_num(e, sizeof(e), m->energy_kev);
	data_fmt_num(dist, sizeof(dist), m->distance_m);
	snprintf(buf, sizeof(buf), "%s%s", e, m->energy_kev == m->energy_kev ?
	    " keV" : "");
	field(w, 5, 1, wd, "energy", buf, v);
	ui_put(w, 5, 22, 5, ui_color_attr(UI_C_LABEL), "dist");
	snprintf(buf, sizeof(buf), "%s%s", dist,
	    m->distance_m == m->distance_m ? " m" : "");
	ui_put(w, 5, 27, s->left - 28, v, buf);
	snprintf(buf, sizeof(buf), "%zu", m->frames);
	field(w, 6, 1, wd, "frames", buf, v);
	x = 10 + ui_strwidth(buf) + 3;
	x += ui_put(w, 6, x, 5, ui_color_attr(UI_C_LABEL), "bins ");
	snprintf(buf, sizeof(buf), "%zu = %zu q %s %zu %s", m->nbins, m->n_q,
	    g->times, m->n_phi, g->phi);
	ui_put_trunc(w, 6, x, s->left - x - 1, v, buf);
}

static void
draw_table(struct ui *ui, struct data_state *s, WINDOW *w)
{
	const struct ui_ring *r = ui_model_ring(ui);
	const struct ui_glyphs *g = ui->scr.term.g;
	const struct het_io_bin *b;
	int y0 = SUMMARY_ROWS + 3, nrows = s->rows - y0, y;
	size_t pos = ring_pos(ui), i, k;
	attr_t a, cur;
	char buf[128], head[128];

	snprintf(buf, sizeof(buf), "Bins  ring %zu/%zu  q %.5g %s  %zu/%zu "
	    "selected", ui->ses.sel.ring + 1, ui->ses.nrings, r->q,
	    g->inv_angstrom,
	    ui_model_ring_selected(ui, ui->ses.sel.ring), r->nbins);
	if (ui_strwidth(buf) > s->left - 2)	/* the header has q */
		snprintf(buf, sizeof(buf), "Bins  ring %zu/%zu  %zu/%zu "
		    "selected", ui->ses.sel.ring + 1, ui->ses.nrings,
		    ui_model_ring_selected(ui, ui->ses.sel.ring), r->nbins);
	ui_fill(w, SUMMARY_ROWS + 1, 0, s->left, ui_color_attr(UI_C_TITLE));
	ui_put(w, SUMMARY_ROWS + 1, 1, s->left - 1,
	    ui_color_attr(UI_C_TITLE), buf);
	snprintf(head, sizeof(head), "%-2s%4s %5s %8s %7s%s %6s", "", "#",
	    "label", "q", g->phi, ui->scr.term.utf8 ? " " : "", "frames");
	ui_put(w, SUMMARY_ROWS + 2, 1, s->left - 1,
	    ui_color_attr(UI_C_LABEL) | A_BOLD, head);
	if (nrows < 1)
		return;
	if (pos < s->top)
		s->top = pos;
	if (pos >= s->top + (size_t)nrows)
		s->top = pos - (size_t)nrows + 1;
	cur = ui_color_attr(s->heat ? UI_C_CURSOR_DIM : UI_C_CURSOR);
	for (y = 0; y < nrows && s->top + (size_t)y < r->nbins; y++) {
		i = s->top + (size_t)y;
		k = r->bins[i];
		b = &ui->ses.meta->bins[k];
		a = i == pos ? cur : A_NORMAL;
		if (i == pos)
			ui_fill(w, y0 + y, 0, s->left, cur);
		ui_put(w, y0 + y, 1, 2, i == pos ? cur :
		    ui->ses.sel.bin_on[k] ? ui_color_attr(UI_C_MARK) :
		    ui_color_attr(UI_C_DIM),
		    ui->ses.sel.bin_on[k] ? g->mark_on :
		    g->mark_off);
		snprintf(buf, sizeof(buf), "%4zu %5ld %8.5f %7.2f %6zu",
		    k + 1, b->label, b->q, b->phi, ui->ses.meta->frames);
		ui_put(w, y0 + y, 3, s->left - 3, a, buf);
	}
	if (r->nbins > (size_t)nrows) {
		snprintf(buf, sizeof(buf), " %zu-%zu of %zu ", s->top + 1,
		    s->top + (size_t)y, r->nbins);
		ui_put(w, s->rows - 1, s->left - (int)strlen(buf) - 1,
		    (int)strlen(buf), ui_color_attr(UI_C_DIM), buf);
	}
}

static void
draw_empty(struct ui *ui, struct data_state *s, WINDOW *w)
{
	int x = 3, wd = s->cols - 6, y = 2;

	ui_fill(w, 0, 0, s->cols, ui_color_attr(UI_C_TITLE));
	ui_put(w, 0, 1, s->cols - 1, ui_color_attr(UI_C_TITLE), "Data");
	if (ui->ses.opening) {
		ui_putf(w, y, x, wd, A_NORMAL, "Opening %s ...",
		    ui->ses.data_path);
		return;
	}
	if (ui->ses.data_error != NULL) {
		ui_putf(w, y++, x, wd, ui_color_attr(UI_C_ERROR),
		    " Cannot open %s ", ui->ses.data_path);
		y++;
		y += ui_put_wrapped(w, y, x, wd, 6, A_NORMAL,
		    ui->ses.data_error);
		y++;
	} else
		ui_put(w, y++, x, wd, ui_color_attr(UI_C_VALUE),
		    "No file open.");
	y++;
	y += ui_put_wrapped(w, y, x, wd, 2, A_NORMAL, "Press o to browse for "
	    "an XPCS two-time result file, or start hetui with one:");
	ui_put(w, y++, x + 4, wd - 4, ui_color_attr(UI_C_VALUE),
	    "hetui run42_results.hdf");
	y++;
	ui_put_wrapped(w, y, x, wd, 4, ui_color_attr(UI_C_DIM), "Readable "
	    "layouts: APS-U nexus (/xpcs/twotime/correlation_map, and the "
	    "multitau g2 of /xpcs/multitau) and legacy APS 8-ID-I "
	    "(/exchange/C2T_all). 'hetui inspect FILE' describes a file "
	    "without opening the workstation.");
}

static void
data_draw(struct ui *ui, void *state, WINDOW *w)
{
	struct data_state *s = state;
	int y;

	if (data_mt_shown(ui, s)) {
		data_mt_draw(ui, s, w);
		return;
	}
	if (ui->ses.meta == NULL) {
		draw_empty(ui, s, w);
		return;
	}
	draw_summary(ui, s, w);
	draw_table(ui, s, w);
	wattrset(w, ui_color_attr(UI_C_DIM));
	for (y = 1; y < s->rows; y++)
		ui_put(w, y, s->left, 1, ui_color_attr(UI_C_DIM),
		    ui->scr.term.g->vline);
	data_draw_heat(ui, s, w);
}

static void
move_bin(struct ui *ui, struct data_state *s, long delta)
{
	const struct ui_ring *r = ui_model_ring(ui);
	long pos = (long)ring_pos(ui) + delta;

	if (pos < 0)
		pos = 0;
	if (pos >= (long)r->nbins)
		pos = (long)r->nbins - 1;
	ui->ses.sel.cursor = r->bins[pos];
	data_request(ui, s);
	ui_dirty(ui, UI_DIRTY_BODY);
}

static void
change_ring(struct ui *ui, struct data_state *s, int delta)
{
	size_t pos = ring_pos(ui);
	const struct ui_ring *r;

	if (ui->ses.nrings < 2) {
		ui_msg(ui, UI_LOG_INFO, "this file has a single q ring");
		return;
	}
	ui->ses.sel.ring = (ui->ses.sel.ring +
	    (delta > 0 ? 1 : ui->ses.nrings - 1)) % ui->ses.nrings;
	r = ui_model_ring(ui);
	ui->ses.sel.cursor = r->bins[pos < r->nbins ? pos : r->nbins - 1];
	s->top = 0;
	data_request(ui, s);
	ui_dirty(ui, UI_DIRTY_HEAD | UI_DIRTY_BODY);
}

/* The selection changed outside the panel: ask for the view it needs. */
void
ui_data_refresh(struct ui *ui)
{
	struct data_state *s;
	size_t i;

	for (i = 0; i < ui->npanels; i++)
		if (ui->panels[i] == &ui_panel_data) {
			s = ui->pstate[i];
			/* a zoom outside a new frame window ends */
			if (s->zfirst > 0 && (s->zfirst < ui->ses.sel.first ||
			    s->zlast > ui->ses.sel.last))
				data_zoom_reset(s);
			data_request(ui, s);
		}
}

static void
window_done(struct ui *ui, const char *text)
{
	char why[256];

	if (ui_model_set_window(ui, text, why, sizeof(why)) != 0) {
		ui_msg(ui, UI_LOG_ERROR, "%s", why);
		return;
	}
	ui_msg(ui, UI_LOG_INFO, "frame window set to %ld,%ld (%ld frames)",
	    ui->ses.sel.first, ui->ses.sel.last,
	    ui->ses.sel.last - ui->ses.sel.first + 1);
	ui_data_refresh(ui);
}

static int
data_key(struct ui *ui, void *state, int key)
{
	struct data_state *s = state;
	const struct ui_ring *r = ui_model_ring(ui);
	char init[64];
	size_t i, on;

	if (data_mt_key(ui, s, key))
		return 1;
	if (ui->ses.meta == NULL || r == NULL)
		return 0;
	if (s->heat) {
		if (key == '\r' || key == '\n' || key == ' ' ||
		    key == UI_K_ENTER || key == UI_K_ESC) {
			s->heat = 0;
			ui_dirty(ui, UI_DIRTY_BODY);
			return 1;
		}
		if (data_heat_key(ui, s, key))
			return 1;
	}
	switch (key) {
	case UI_K_UP:
	case 'k':
		move_bin(ui, s, -1);
		return 1;
	case UI_K_DOWN:
	case 'j':
		move_bin(ui, s, 1);
		return 1;
	case UI_K_PGUP:
		move_bin(ui, s, -(long)(s->rows - SUMMARY_ROWS - 3));
		return 1;
	case UI_K_PGDN:
		move_bin(ui, s, s->rows - SUMMARY_ROWS - 3);
		return 1;
	case UI_K_HOME:
		move_bin(ui, s, -(long)r->nbins);
		return 1;
	case UI_K_END:
		move_bin(ui, s, (long)r->nbins);
		return 1;
	case ' ':
		ui->ses.sel.bin_on[ui->ses.sel.cursor] ^= 1;
		ui_log(ui, UI_LOG_INFO, "bin #%zu (%s %.2f) %s",
		    ui->ses.sel.cursor + 1, ui->scr.term.g->phi,
		    ui->ses.meta->bins[ui->ses.sel.cursor].phi,
		    ui->ses.sel.bin_on[ui->ses.sel.cursor] ? "selected" :
		    "deselected");
		ui_dirty(ui, UI_DIRTY_HEAD | UI_DIRTY_BODY);
		return 1;
	case 'a':
		on = ui_model_ring_selected(ui, ui->ses.sel.ring) < r->nbins;
		for (i = 0; i < r->nbins; i++)
			ui->ses.sel.bin_on[r->bins[i]] = (unsigned char)on;
		ui_msg(ui, UI_LOG_INFO, "%s angles of ring %zu selected",
		    on ? "all" : "no", ui->ses.sel.ring + 1);
		ui_dirty(ui, UI_DIRTY_HEAD | UI_DIRTY_BODY);
		return 1;
	case '[':
		change_ring(ui, s, -1);
		return 1;
	case ']':
		change_ring(ui, s, 1);
		return 1;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		s->heat = s->view != NULL;
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case 'c':
		s->chart = (enum data_chart)((s->chart + 1) % DC_COUNT);
		ui_msg(ui, UI_LOG_INFO, "chart: %s", s->chart == DC_ONETIME ?
		    "one-time g2(tau)" : s->chart == DC_AGE ? "g2(tau) at "
		    "the cursor's age" : "c2 against age at the cursor's lag");
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case 'f':
		s->frames_axis = !s->frames_axis;
		ui_msg(ui, UI_LOG_INFO, "times in %s", s->frames_axis ?
		    "frames" : "seconds (frames when dt is unknown)");
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case 'L':
		s->logscale = !s->logscale;
		data_levels(ui, s);
		ui_msg(ui, UI_LOG_INFO, "colour scale: %s", s->logscale ?
		    "log10(c2 - far-lag baseline)" : "linear c2");
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	case 'w':
		snprintf(init, sizeof(init), "%ld,%ld", ui->ses.sel.first,
		    ui->ses.sel.last);
		ui_prompt_open_sel(ui, "Frame window (first,last):", init,
		    window_done);
		return 1;
	}
	return 0;
}

const struct ui_panel_ops ui_panel_data = {
	.name = "Data",
	.hints = data_hints,
	.help = data_help,
	.init = data_init,
	.free = data_free,
	.draw = data_draw,
	.key = data_key,
	.resize = data_resize,
	.event = data_event,
	.hints_now = data_mt_hints,
	.help_now = data_mt_help,
};
