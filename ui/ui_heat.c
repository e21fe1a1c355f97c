/*
 * ui_heat.c: heatmap, legend and sparkline rendering.
 *
 * Design: the I/O thread delivers a grid of block means; this module maps
 * grid values to colour levels once per view (ui_heat_levels) and then
 * draws them by nearest-neighbour scaling into whatever text area the
 * layout gives.  With colour and UTF-8 each text cell is an upper half
 * block whose foreground is the upper pixel and background the lower
 * one, so pixels are square and the image has twice the vertical
 * resolution.  Without them each cell is one character of the ASCII
 * shade ramp " .:-=+*#%@", tinted when colour is available.  Colour
 * pairs above 255 do not fit in an attr_t, so cells are written as
 * cchar_t with an explicit pair.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"
#include "ui_heat.h"

#define SHADES " .:-=+*#%@"
#define NSHADES 10

enum ui_heat_mode
ui_heat_mode_for(const struct ui_term *t)
{
	return t->utf8 && t->ramp_n > 0 ? UI_HEAT_HALF : UI_HEAT_SHADE;
}

int
ui_heat_shade_levels(void)
{
	return NSHADES;
}

void
ui_heat_levels(const double *grid, size_t n, struct ui_heat_scale *sc,
    unsigned char *lvl)
{
	double lo = INFINITY, hi = -INFINITY, d, x;
	size_t i;
	int l;

	for (i = 0; i < n; i++) {
		d = grid[i];
		if (sc->logscale) {
			d -= sc->offset;
			if (!(d > 0))
				continue;
		}
		if (!isfinite(d))
			continue;
		if (d < lo)
			lo = d;
		if (d > hi)
			hi = d;
	}
	if (!(lo <= hi)) {	/* nothing positive (log) or empty */
		sc->vlo = sc->vhi = NAN;
		sc->lo = sc->hi = 0;
		memset(lvl, 0, n);
		return;
	}
	sc->vlo = lo;
	sc->vhi = hi;
	sc->lo = sc->logscale ? log10(lo) : lo;
	sc->hi = sc->logscale ? log10(hi) : hi;
	for (i = 0; i < n; i++) {
		d = grid[i];
		if (sc->logscale) {
			d -= sc->offset;
			if (!(d > 0)) {
				lvl[i] = 0;
				continue;
			}
			d = log10(d);
		}
		if (!isfinite(d) || sc->hi <= sc->lo)
			x = 0.5;
		else
			x = (d - sc->lo) / (sc->hi - sc->lo);
		l = (int)(x * (sc->nlev - 1) + 0.5);
		lvl[i] = (unsigned char)(l < 0 ? 0 : l >= sc->nlev ?
		    sc->nlev - 1 : l);
	}
}

static void
put_cell(WINDOW *w, int y, int x, wchar_t ch, attr_t attr, short pair)
{
	cchar_t cc;
	wchar_t ws[2];

	ws[0] = ch;
	ws[1] = L'\0';
	if (setcchar(&cc, ws, attr, pair, NULL) == OK)
		mvwadd_wch(w, y, x, &cc);
}

/* Shade cell: character for level l of nlev, tinted when colour is on. */
static void
shade_cell(WINDOW *w, int y, int x, int l, int nlev, int cursor)
{
	const struct ui_term *t = ui_term_get();
	int s = nlev > 1 ? l * (NSHADES - 1) / (nlev - 1) : 0;
	int r = t->ramp_n > 1 ? l * (t->ramp_n - 1) / (nlev > 1 ?
	    nlev - 1 : 1) : 0;

	if (cursor)
		put_cell(w, y, x, s == 0 ? L'+' : (wchar_t)SHADES[s],
		    A_REVERSE | A_BOLD, t->ramp_n > 0 ?
		    ui_ramp_fg(t->ramp_cursor) : 0);
	else
		put_cell(w, y, x, (wchar_t)SHADES[s], A_NORMAL,
		    ui_ramp_fg(r));
}

void
ui_heat_draw(WINDOW *w, int y, int x, int th, int tw, enum ui_heat_mode
    mode, const unsigned char *lvl, size_t rows, size_t cols, int nlev,
    long cur_r, long cur_c)
{
	const struct ui_term *t = ui_term_get();
	size_t prow, r0, r1, c;
	int ty, tx, top, bot;

	if (th <= 0 || tw <= 0 || rows == 0 || cols == 0)
		return;
	prow = mode == UI_HEAT_HALF ? 2 * (size_t)th : (size_t)th;
	for (ty = 0; ty < th; ty++) {
		for (tx = 0; tx < tw; tx++) {
			c = (size_t)tx * cols / (size_t)tw;
			if (mode == UI_HEAT_SHADE) {
				r0 = (prow - 1 - (size_t)ty) * rows / prow;
				shade_cell(w, y + ty, x + tx,
				    lvl[r0 * cols + c], nlev,
				    (long)r0 == cur_r && (long)c == cur_c);
				continue;
			}
			r0 = (prow - 1 - 2 * (size_t)ty) * rows / prow;
			r1 = (prow - 2 - 2 * (size_t)ty) * rows / prow;
			top = lvl[r0 * cols + c];
			bot = lvl[r1 * cols + c];
			if ((long)c == cur_c && (long)r0 == cur_r)
				top = t->ramp_cursor;
			if ((long)c == cur_c && (long)r1 == cur_r)
				bot = t->ramp_cursor;
			put_cell(w, y + ty, x + tx, 0x2580, A_NORMAL,
			    ui_ramp_pair(top, bot));
		}
	}
}

void
ui_heat_legend(WINDOW *w, int y, int x, int th, int tw,
    enum ui_heat_mode mode, int nlev)
{
	int ty, tx, top, bot, p = mode == UI_HEAT_HALF ? 2 * th : th;

	if (th <= 0 || p < 2)
		return;
	for (ty = 0; ty < th; ty++)
		for (tx = 0; tx < tw; tx++) {
			if (mode == UI_HEAT_SHADE) {
				top = (th - 1 - ty) * (nlev - 1) / (th - 1 > 0 ?
				    th - 1 : 1);
				shade_cell(w, y + ty, x + tx, top, nlev, 0);
				continue;
			}
			top = (p - 1 - 2 * ty) * (nlev - 1) / (p - 1);
			bot = (p - 2 - 2 * ty) * (nlev - 1) / (p - 1);
			put_cell(w, y + ty, x + tx, 0x2580, A_NORMAL,
			    ui_ramp_pair(top, bot));
		}
}

/* The mean of the finite vals[l0..l1] in [lo, hi] as 0..1; 0: none. */
static int
spark_mean(const double *vals, size_t l0, size_t l1, double lo, double hi,
    double *v)
{
	double s = 0;
	size_t k, cnt = 0;

	for (k = l0; k <= l1; k++)
		if (isfinite(vals[k])) {
			s += vals[k];
			cnt++;
		}
	if (cnt == 0)
		return 0;
	*v = s / (double)cnt;
	*v = hi > lo ? (*v - lo) / (hi - lo) : 0.5;
	if (!(*v >= 0))
		*v = 0;
	if (*v > 1)
		*v = 1;
	return 1;
}

/* One column of a bar chart: the mean of the finite vals[l0..l1]. */
static void
spark_col(WINDOW *w, int y, int x, int h, const double *vals, size_t l0,
    size_t l1, double lo, double hi)
{
	const struct ui_glyphs *g = ui_term_get()->g;
	double v;
	int row, eighths, part;

	if (!spark_mean(vals, l0, l1, lo, hi, &v))
		return;		/* nothing there: the column stays blank */
	eighths = (int)(v * h * 8 + 0.5);
	if (eighths < 1)
		eighths = 1;	/* keep the floor of the chart visible */
	for (row = 0; row < h; row++) {
		part = eighths - 8 * row;
		if (part <= 0)
			break;
		ui_put(w, y + h - 1 - row, x, 1, ui_color_attr(UI_C_GRAPH),
		    g->spark[part >= 8 ? 8 : part]);
	}
}

/*
 * The values [*l0, *l1] (0-based) of column col of wd over n values: on
 * the log axis of lags 1 .. n, or linear.
 */
static void
spark_range(int col, int wd, size_t n, int logx, size_t *l0, size_t *l1)
{
	double la, lb;

	if (!logx) {
		*l0 = (size_t)col * n / (size_t)wd;
		*l1 = ((size_t)col + 1) * n / (size_t)wd;
		if (*l1 > *l0)
			(*l1)--;
		return;
	}
	la = exp(log((double)n) * col / wd);
	lb = exp(log((double)n) * (col + 1) / wd);
	*l0 = (size_t)ceil(la - 1e-9);
	*l1 = (size_t)floor(lb + 1e-9);
	if (*l1 < *l0)
		*l0 = *l1 = (size_t)(la + 0.5);
	if (*l0 < 1)
		*l0 = 1;
	if (*l1 > n)
		*l1 = n;
	(*l0)--;
	(*l1)--;
}

static void
spark_draw(WINDOW *w, int y, int x, int h, int wd, const double *vals,
    size_t n, double lo, double hi, int logx)
{
	size_t l0, l1;
	int col;

	if (n == 0 || wd <= 0 || h <= 0)
		return;
	for (col = 0; col < wd; col++) {
		spark_range(col, wd, n, logx, &l0, &l1);
		spark_col(w, y, x + col, h, vals, l0, l1, lo, hi);
	}
}

void
ui_spark(WINDOW *w, int y, int x, int h, int wd, const double *vals,
    size_t n, double lo, double hi)
{
	spark_draw(w, y, x, h, wd, vals, n, lo, hi, 1);
}

void
ui_spark_lin(WINDOW *w, int y, int x, int h, int wd, const double *vals,
    size_t n, double lo, double hi)
{
	spark_draw(w, y, x, h, wd, vals, n, lo, hi, 0);
}

int
ui_spark_marks(WINDOW *w, int y, int x, int h, int wd, const double *vals,
    size_t n, double lo, double hi, int logx)
{
	const struct ui_glyphs *g = ui_term_get()->g;
	size_t l0, l1;
	double v;
	int col, row, drawn = 0;

	if (n == 0 || wd <= 0 || h <= 0)
		return 0;
	for (col = 0; col < wd; col++) {
		spark_range(col, wd, n, logx, &l0, &l1);
		if (!spark_mean(vals, l0, l1, lo, hi, &v))
			continue;
		row = (int)(v * h);
		if (row > h - 1)
			row = h - 1;
		ui_put(w, y + h - 1 - row, x + col, 1,
		    ui_color_attr(UI_C_MODEL), g->model);
		drawn++;
	}
	return drawn;
}
