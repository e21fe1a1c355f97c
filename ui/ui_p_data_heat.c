/*
 * ui_p_data_heat.c: the Data panel's heatmap: the c2 picture with its
 * legend and time axis, the cursor read-out (t1, t2, age and lag, in
 * seconds or frames), zooming along the diagonal, and the chart below:
 * the one-time g2(tau), a cut at the cursor's age (g2 against lag, the
 * standard reading of a two-time map) or a cut at the cursor's lag (c2
 * against age: is the sample stationary?).
 *
 * Design: everything drawn here comes from the view the I/O thread
 * computed (grid, g2, age_lag: het_io.h); the panel only picks rows and
 * columns of it.  Zooming asks for a narrower frame window (data_request
 * with data_window), so the file is read again, off the loop thread, for
 * that window only; the windows zoomed out of are kept on a stack.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_p_data.h"

/* Block of index i among p blocks over n (inverse of het_io_block). */
size_t
data_block_of(size_t i, size_t p, size_t n)
{
	return ((i + 1) * p - 1) / n;
}

void
data_window(const struct ui *ui, const struct data_state *s, long *first,
    long *last)
{
	*first = s->zfirst > 0 ? s->zfirst : ui->ses.sel.first;
	*last = s->zfirst > 0 ? s->zlast : ui->ses.sel.last;
}

void
data_zoom_reset(struct data_state *s)
{
	s->zfirst = s->zlast = 0;
	s->nzoom = 0;
}

/* Times are in seconds when dt is known and f was not pressed. */
static int
in_seconds(const struct ui *ui, const struct data_state *s)
{
	return !s->frames_axis && ui->ses.meta->dt == ui->ses.meta->dt;
}

/*
 * A time of the view, t frames after its first frame (t may be a half
 * frame): seconds on the model's time grid, frame f at f dt (het_model.h,
 * and hetui report's axes), or the frame number (1-based, as everywhere
 * in hetui); with span, a duration of t frames (seconds, or "N fr").
 * unit 0 leaves the unit out.
 */
static void
fmt_t(const struct ui *ui, const struct data_state *s, double t, int span,
    int unit, char *buf, size_t len)
{
	double dt = ui->ses.meta->dt;
	double f = span ? t : (double)s->view->first + t;

	if (in_seconds(ui, s))
		snprintf(buf, len, "%.4g%s", f * dt, unit ? " s" : "");
	else
		snprintf(buf, len, "%.4g%s", f, span && unit ? " fr" : "");
}

/* The time axis under the heatmap: the first, middle and last frame. */
static void
draw_axis(struct ui *ui, struct data_state *s, WINDOW *w, int y)
{
	const struct het_io_view *v = s->view;
	char lo[32], mid[32], hi[32], lab[64];
	int wl, wm, wh, xm;

	fmt_t(ui, s, 0, 0, 1, lo, sizeof lo);
	fmt_t(ui, s, (double)(v->n - 1) / 2, 0, 1, mid, sizeof mid);
	fmt_t(ui, s, (double)(v->n - 1), 0, 1, hi, sizeof hi);
	wl = ui_strwidth(lo);
	wm = ui_strwidth(mid);
	wh = ui_strwidth(hi);
	ui_put(w, y, s->hx, wl, ui_color_attr(UI_C_DIM), lo);
	xm = s->hx + s->hw / 2 - wm / 2;
	if (xm > s->hx + wl + 1 && xm + wm < s->hx + s->hw - wh - 1)
		ui_put(w, y, xm, wm, ui_color_attr(UI_C_DIM), mid);
	if (s->hw - wh > wl + 1)
		ui_put(w, y, s->hx + s->hw - wh, wh, ui_color_attr(UI_C_DIM),
		    hi);
	snprintf(lab, sizeof lab, "%s", in_seconds(ui, s) ? "t1, t2" :
	    "frame");
	ui_put(w, y, s->hx + s->hw + 1, s->cols - s->hx - s->hw - 2,
	    ui_color_attr(UI_C_LABEL), lab);
}

/* The frames [lo, hi) of the cursor's row or column block, as text. */
static void
fmt_span(const struct ui *ui, const struct data_state *s, size_t lo,
    size_t hi, char *buf, size_t len)
{
	char a[32], b[32];

	if (hi - lo <= 1) {
		fmt_t(ui, s, (double)lo, 0, 1, buf, len);
		return;
	}
	fmt_t(ui, s, (double)lo, 0, 0, a, sizeof a);
	fmt_t(ui, s, (double)(hi - 1), 0, 1, b, sizeof b);
	snprintf(buf, len, "%s%s%s", a, ui->scr.term.g->dash, b);
}

static void
draw_readout(struct ui *ui, struct data_state *s, WINDOW *w, int y, int x,
    int wd)
{
	const struct het_io_view *v = s->view;
	size_t r = data_block_of(s->ci, v->rows, v->n);
	size_t c = data_block_of(s->cj, v->cols, v->n);
	size_t rlo, rhi, clo, chi;
	double val = v->grid[r * v->cols + c], mi, mj;
	char buf[256], t1[64], t2[64], num[32], age[32], lag[32];
	int used;

	het_io_block(v->n, v->rows, r, &rlo, &rhi);
	het_io_block(v->n, v->cols, c, &clo, &chi);
	fmt_span(ui, s, clo, chi, t1, sizeof t1);
	fmt_span(ui, s, rlo, rhi, t2, sizeof t2);
	data_fmt_num(num, sizeof(num), val);
	snprintf(buf, sizeof(buf), "c2 = %s", num);
	used = ui_put(w, y, x, wd, ui_color_attr(UI_C_VALUE), buf);
	snprintf(buf, sizeof(buf), "  at t1 %s, t2 %s", t1, t2);
	ui_put(w, y, x + used, wd - used, A_NORMAL, buf);
	mi = (double)(clo + chi - 1) / 2;
	mj = (double)(rlo + rhi - 1) / 2;
	fmt_t(ui, s, (mi + mj) / 2, 0, 1, age, sizeof age);
	fmt_t(ui, s, fabs(mj - mi), 1, 1, lag, sizeof lag);
	snprintf(buf, sizeof(buf), "age %s  lag %s", age, lag);
	if (chi - clo > 1 || rhi - rlo > 1) {
		snprintf(num, sizeof(num), "  mean of %zu%s%zu", chi - clo,
		    ui->scr.term.g->times, rhi - rlo);
		strncat(buf, num, sizeof(buf) - strlen(buf) - 1);
	}
	ui_put(w, y + 1, x, wd, ui_color_attr(UI_C_DIM), buf);
}

/* Range of the finite values of v[0 .. n-1]; 0 when none is. */
static int
finite_range(const double *v, size_t n, double *lo, double *hi)
{
	size_t k;
	int any = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (k = 0; k < n; k++)
		if (isfinite(v[k])) {
			any = 1;
			*lo = v[k] < *lo ? v[k] : *lo;
			*hi = v[k] > *hi ? v[k] : *hi;
		}
	return any;
}

void
data_cursor_age_lag(const struct data_state *s, size_t *a, size_t *k)
{
	const struct het_io_view *v = s->view;
	size_t i = s->ci < s->cj ? s->ci : s->cj;

	*k = s->ci > s->cj ? s->ci - s->cj : s->cj - s->ci;
	*a = data_block_of(2 * i + *k, v->nage, 2 * v->n - 1);
}

/*
 * The values and the title of the chart: the one-time projection, row
 * a of age_lag (lags 1 .. n-1, log axis) or column k (every age block,
 * linear axis; gathered into tmp).  Returns the values, sets *n and
 * *logx.
 */
static const double *
chart_values(struct ui *ui, struct data_state *s, double *tmp, size_t *n,
    int *logx, char *title, size_t len)
{
	const struct het_io_view *v = s->view;
	const struct ui_glyphs *g = ui->scr.term.g;
	size_t a, k, lo, hi;
	char t0[32], t1[32];

	data_cursor_age_lag(s, &a, &k);
	*logx = s->chart != DC_LAG;
	*n = v->n - 1;
	if (s->chart == DC_ONETIME) {
		snprintf(title, len, "g2(%s) one-time  lag 1%s%zu fr, log  "
		    "[c: cuts]", g->tau, g->dash, v->n - 1);
		return v->g2 + 1;
	}
	if (s->chart == DC_AGE) {
		het_io_block(2 * v->n - 1, v->nage, a, &lo, &hi);
		fmt_t(ui, s, (double)lo / 2, 0, 0, t0, sizeof t0);
		fmt_t(ui, s, (double)(hi - 1) / 2, 0, 1, t1, sizeof t1);
		snprintf(title, len, "g2(%s) at age %s%s%s  lag 1%s%zu fr, log",
		    g->tau, t0, g->dash, t1, g->dash, v->n - 1);
		return v->age_lag + a * v->n + 1;
	}
	if (k == 0)
		k = 1;
	for (a = 0; a < v->nage; a++)
		tmp[a] = v->age_lag[a * v->n + k];
	*n = v->nage;
	fmt_t(ui, s, (double)k, 1, 1, t0, sizeof t0);
	snprintf(title, len, "c2 at lag %s against age, the whole window",
	    t0);
	return tmp;
}

static void
draw_chart(struct ui *ui, struct data_state *s, WINDOW *w, int sy, int lx)
{
	double lo, hi, *tmp, *mtmp;
	const double *vals, *mvals;
	char buf[256], a[32], b[32];
	size_t n, nm = 0;
	int logx, any;

	if (s->view->n < 2)
		return;
	tmp = ui_xcalloc(s->view->nage, sizeof *tmp);
	mtmp = ui_xcalloc(s->view->nage, sizeof *mtmp);
	vals = chart_values(ui, s, tmp, &n, &logx, buf, sizeof buf);
	ui_put(w, sy, s->hx, s->cols - s->hx - 1, ui_color_attr(UI_C_LABEL),
	    buf);
	any = finite_range(vals, n, &lo, &hi);
	mvals = any ? data_cut_model(s, mtmp, &nm, &lo, &hi) : NULL;
	if (any) {
		(logx ? ui_spark : ui_spark_lin)(w, sy + 1, s->hx, SPARK_ROWS,
		    s->hw, vals, n, lo, hi);
		data_cut_legend(ui, s, w, sy + 1, lx, mvals, nm, logx, lo, hi);
		data_fmt_num(a, sizeof(a), hi);
		data_fmt_num(b, sizeof(b), lo);
		ui_put(w, sy + 1, lx, LEGEND_LABEL + 3, A_NORMAL, a);
		ui_put(w, sy + SPARK_ROWS, lx, LEGEND_LABEL + 3, A_NORMAL, b);
	} else
		ui_put(w, sy + 1, s->hx, s->hw, ui_color_attr(UI_C_DIM),
		    "no pair at this age and lag");
	free(tmp);
	free(mtmp);
}

static void
draw_legend(struct ui *ui, struct data_state *s, WINDOW *w, int lx)
{
	enum ui_heat_mode mode = ui_heat_mode_for(&ui->scr.term);
	char lo[32], hi[32];
	int ll = lx + LEGEND_COLS + 1;

	ui_heat_legend(w, s->hy, lx, s->hh, LEGEND_COLS, mode, s->sc.nlev);
	data_fmt_num(hi, sizeof(hi), s->sc.vhi);
	data_fmt_num(lo, sizeof(lo), s->sc.vlo);
	ui_put(w, s->hy, ll, LEGEND_LABEL, A_NORMAL, hi);
	ui_put(w, s->hy + s->hh - 1, ll, LEGEND_LABEL, A_NORMAL, lo);
	if (s->hh >= 5) {
		ui_put(w, s->hy + 1, ll, LEGEND_LABEL,
		    ui_color_attr(UI_C_DIM), "max");
		ui_put(w, s->hy + s->hh - 2, ll, LEGEND_LABEL,
		    ui_color_attr(UI_C_DIM), "min");
	}
	if (s->logscale && s->hh >= 7) {
		ui_put(w, s->hy + s->hh / 2, ll, LEGEND_LABEL,
		    ui_color_attr(UI_C_DIM), "c2-base");
		data_fmt_num(lo, sizeof(lo), s->sc.offset);
		ui_put(w, s->hy + s->hh / 2 + 1, ll, LEGEND_LABEL,
		    ui_color_attr(UI_C_DIM), lo);
	}
}

/* The title bar: bin, q, phi, scale, zoom and focus. */
static void
draw_title(struct ui *ui, struct data_state *s, WINDOW *w, int x0, int rw)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	const struct het_io_bin *b = &ui->ses.meta->bins[ui->ses.sel.cursor];
	attr_t ta = ui_color_attr(s->heat ? UI_C_CURSOR : UI_C_TITLE);
	char buf[256], z[64];

	ui_fill(w, 0, x0, rw, ta);
	snprintf(buf, sizeof(buf), "c2 #%zu  q %.4g  %s %.1f%s  %s",
	    ui->ses.sel.cursor + 1, b->q, g->phi, b->phi, g->deg,
	    s->logscale ? "log" : "lin");
	if (s->zfirst > 0) {	/* the axis shows the times either way */
		snprintf(z, sizeof z, "  zoom %ld%s%ld", s->zfirst, g->dash,
		    s->zlast);
		if (ui_strwidth(buf) + ui_strwidth(z) < rw - 1)
			strncat(buf, z, sizeof(buf) - strlen(buf) - 1);
	}
	if (s->heat && ui_strwidth(buf) + 8 < rw - 1)
		strncat(buf, "  cursor", sizeof(buf) - strlen(buf) - 1);
	ui_put(w, 0, x0 + 1, rw - 1, ta, buf);
}

void
data_draw_heat(struct ui *ui, struct data_state *s, WINDOW *w)
{
	const struct het_io_view *v = s->view;
	enum ui_heat_mode mode = ui_heat_mode_for(&ui->scr.term);
	int x0 = s->left + 1, rw = s->cols - x0, lx, y;
	long first, last;

	draw_title(ui, s, w, x0, rw);
	if (s->error != NULL && (v == NULL || v->bin != ui->ses.sel.cursor)) {
		ui_put(w, 2, s->hx, rw - 3, ui_color_attr(UI_C_ERROR),
		    "Cannot show this bin:");
		ui_put_wrapped(w, 3, s->hx, rw - 3, s->rows - 4, A_NORMAL,
		    s->error);
		return;
	}
	if (v == NULL) {
		ui_putf(w, 2, s->hx, rw - 3, ui_color_attr(UI_C_DIM),
		    "reading c2 of bin #%zu ...", ui->ses.sel.cursor + 1);
		return;
	}
	ui_heat_draw(w, s->hy, s->hx, s->hh, s->hw, mode, s->lvl, v->rows,
	    v->cols, s->sc.nlev, (long)data_block_of(s->ci, v->rows, v->n),
	    (long)data_block_of(s->cj, v->cols, v->n));
	lx = s->hx + s->hw + 1;
	draw_legend(ui, s, w, lx);
	y = s->hy + s->hh;
	draw_axis(ui, s, w, y);
	data_window(ui, s, &first, &last);
	if (v->bin != ui->ses.sel.cursor || v->first != first ||
	    v->last != last)
		ui_putf(w, y + AXIS_ROWS, s->hx, rw - 3, ui_color_attr(
		    UI_C_WARN), "reading bin #%zu ...", ui->ses.sel.cursor + 1);
	else
		draw_readout(ui, s, w, y + AXIS_ROWS, s->hx, s->cols - s->hx -
		    1);
	draw_chart(ui, s, w, y + AXIS_ROWS + VALUE_ROWS, lx);
}

/* z: half the window, centred on the cursor's age, at least ZOOM_MIN. */
static void
zoom_in(struct ui *ui, struct data_state *s)
{
	const struct het_io_view *v = s->view;
	long first, last, span, mid, nf, nl;

	/* from the window asked for, not the view on screen: keys may come
	   faster than views */
	data_window(ui, s, &first, &last);
	span = last - first + 1;
	if (span <= ZOOM_MIN || s->nzoom == ZOOM_MAX) {
		ui_msg(ui, UI_LOG_INFO, "cannot zoom further: %ld frames "
		    "shown (the narrowest zoom is %d)", span, ZOOM_MIN);
		return;
	}
	mid = v->first + (long)(s->ci + s->cj) / 2;
	nf = mid - span / 4;
	nl = nf + (span / 2 > ZOOM_MIN ? span / 2 : ZOOM_MIN) - 1;
	if (nf < first) {
		nl += first - nf;
		nf = first;
	}
	if (nl > last) {
		nf -= nl - last;
		nl = last;
	}
	/* the new window lies inside the zoomed one: [first, last] */
	s->zstack[s->nzoom][0] = s->zfirst;
	s->zstack[s->nzoom][1] = s->zlast;
	s->nzoom++;
	s->zfirst = nf;
	s->zlast = nl;
	ui_msg(ui, UI_LOG_INFO, "zoom: frames %ld-%ld (Z zooms out)", nf, nl);
	data_request(ui, s);
}

static void
zoom_out(struct ui *ui, struct data_state *s)
{
	if (s->nzoom == 0) {
		ui_msg(ui, UI_LOG_INFO, "not zoomed: z zooms in on the cursor");
		return;
	}
	s->nzoom--;
	s->zfirst = s->zstack[s->nzoom][0];
	s->zlast = s->zstack[s->nzoom][1];
	ui_msg(ui, UI_LOG_INFO, "zoom out: %s", s->zfirst > 0 ? "back one "
	    "step" : "the whole frame window");
	data_request(ui, s);
}

/* Keys with the focus in the heatmap; 1 when taken. */
int
data_heat_key(struct ui *ui, struct data_state *s, int key)
{
	const struct het_io_view *v = s->view;
	size_t r, c, lo, hi;

	if (v == NULL)
		return 0;
	r = data_block_of(s->ci, v->rows, v->n);
	c = data_block_of(s->cj, v->cols, v->n);
	switch (key) {
	case 'h':
	case UI_K_LEFT:
		c = c > 0 ? c - 1 : 0;
		break;
	case 'l':
	case UI_K_RIGHT:
		c = c + 1 < v->cols ? c + 1 : c;
		break;
	case 'k':
	case UI_K_UP:
		r = r + 1 < v->rows ? r + 1 : r;
		break;
	case 'j':
	case UI_K_DOWN:
		r = r > 0 ? r - 1 : 0;
		break;
	case UI_K_HOME:
		r = c = 0;
		break;
	case 'z':
		zoom_in(ui, s);
		return 1;
	case 'Z':
		zoom_out(ui, s);
		return 1;
	default:
		return 0;
	}
	het_io_block(v->n, v->rows, r, &lo, &hi);
	s->ci = (lo + hi - 1) / 2;
	het_io_block(v->n, v->cols, c, &lo, &hi);
	s->cj = (lo + hi - 1) / 2;
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}
