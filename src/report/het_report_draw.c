#include "config.h"

/*
 * het_report_draw.c: the plotting primitives of the report figures:
 * text, colour maps, axes with ticks, colour bars.
 *
 * Design: everything is drawn in pixels of a fixed-size figure, so a
 * figure has the same pixels wherever it is drawn.  Text uses cairo's
 * toy API with hinting off (glyph positions then do not depend on the
 * screen's font settings); numbers are printed with %g at fixed
 * precision.  The colour maps are tables interpolated linearly: viridis
 * (matplotlib's, 9 anchors) for values, blue-white-red for residuals.
 */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>

#include "het_report_impl.h"

void
het_rep_font(cairo_t *cr, double size, int bold)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	    bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

void
het_rep_text(cairo_t *cr, double x, double y, int align, const char *fmt,
    ...)
{
	cairo_text_extents_t te;
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cairo_text_extents(cr, buf, &te);
	if (align == 0)
		x -= te.x_advance / 2;
	else if (align > 0)
		x -= te.x_advance;
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, buf);
}

static void
rep_interp(const double (*tab)[3], size_t n, double t, double rgb[3])
{
	double f;
	size_t k, c;

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	f = t * (double)(n - 1);
	k = (size_t)f;
	if (k >= n - 1)
		k = n - 2;
	f -= (double)k;
	for (c = 0; c < 3; c++)
		rgb[c] = (tab[k][c] + f * (tab[k + 1][c] - tab[k][c])) / 255;
}

void
het_rep_cmap(double t, double rgb[3])
{
	static const double v[9][3] = {
		{ 68, 1, 84 }, { 71, 44, 122 }, { 59, 81, 139 },
		{ 44, 113, 142 }, { 33, 144, 141 }, { 39, 173, 129 },
		{ 92, 200, 99 }, { 170, 220, 50 }, { 253, 231, 37 } };

	rep_interp(v, 9, t, rgb);
}

void
het_rep_dmap(double t, double rgb[3])
{
	static const double d[5][3] = {
		{ 33, 102, 172 }, { 146, 197, 222 }, { 247, 247, 247 },
		{ 244, 165, 130 }, { 178, 24, 43 } };

	rep_interp(d, 5, (t + 1) / 2, rgb);
}

/* The fraction of the way from lo to hi of v, on a log scale or not. */
static double
rep_frac(double v, double lo, double hi, int lg)
{
	if (lg)
		return (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
	return (v - lo) / (hi - lo);
}

double
het_rep_px(const struct het_rep_axis *a, double v)
{
	return a->x + rep_frac(v, a->x0, a->x1, a->xlog) * a->w;
}

double
het_rep_py(const struct het_rep_axis *a, double v)
{
	return a->y + a->h - rep_frac(v, a->y0, a->y1, a->ylog) * a->h;
}

void
het_rep_num(char *buf, size_t len, double v, int prec)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*g", prec, v == 0 ? 0.0 : v);
}

double
het_rep_step(double range, double n)
{
	double s = pow(10, floor(log10(range / n))), r = range / n / s;

	return r >= 7.5 ? 10 * s : r >= 3.5 ? 5 * s : r >= 1.5 ? 2 * s : s;
}

/*
 * The number of a tick at v on an axis of tick step s: enough digits to
 * tell neighbouring ticks apart, and whole numbers below a million
 * without an exponent.
 */
static void
rep_ticknum(char *buf, size_t len, double v, double s)
{
	int prec = 4, d;

	if (fabs(v) < s * 1e-9)
		v = 0;
	if (v != 0 && s > 0) {
		d = (int)floor(log10(fabs(v))) - (int)floor(log10(s)) + 1;
		prec = d > prec ? d : prec;
		if (fabs(v) >= 1 && fabs(v) < 1e6)
			prec = (int)floor(log10(fabs(v))) + 1 > prec ?
			    (int)floor(log10(fabs(v))) + 1 : prec;
	}
	het_rep_num(buf, len, v, prec > 15 ? 15 : prec);
}

/* One tick at v (a label when buf is not NULL); vertical: the y axis. */
static void
rep_tick(cairo_t *cr, const struct het_rep_axis *a, int vertical, double v,
    double len, const char *buf)
{
	double p, fs = a->tick_px > 0 ? a->tick_px : 12;

	if (vertical) {
		p = het_rep_py(a, v);
		cairo_move_to(cr, a->x - len, p);
		cairo_line_to(cr, a->x, p);
		cairo_stroke(cr);
		if (buf != NULL && !(a->nolabel & HET_REP_NOY))
			het_rep_text(cr, a->x - 3 - len, p + fs / 3, 1, "%s",
			    buf);
	} else {
		p = het_rep_px(a, v);
		cairo_move_to(cr, p, a->y + a->h);
		cairo_line_to(cr, p, a->y + a->h + len);
		cairo_stroke(cr);
		if (buf != NULL && !(a->nolabel & HET_REP_NOX))
			het_rep_text(cr, p, a->y + a->h + 7 + fs, 0, "%s",
			    buf);
	}
}

/* Linear ticks of [lo, hi] at steps of s (at their log places if lg). */
static void
rep_linticks(cairo_t *cr, const struct het_rep_axis *a, int vertical,
    double lo, double hi, double s)
{
	char buf[32];
	double v;

	for (v = ceil(lo / s - 1e-9) * s; v <= hi + s * 1e-9; v += s) {
		rep_ticknum(buf, sizeof(buf), v, s);
		rep_tick(cr, a, vertical, v, 5, buf);
	}
}

/* How many of m x 10^e (m in set, n of them) lie in [lo, hi]. */
static int
rep_logcount(double lo, double hi, const int *set, int n, int draw,
    cairo_t *cr, const struct het_rep_axis *a, int vertical, int label)
{
	double e, v;
	char buf[32];
	int k, c = 0;

	for (e = floor(log10(lo)); e <= ceil(log10(hi)); e++)
		for (k = 0; k < n; k++) {
			v = (double)set[k] * pow(10, e);
			if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
				continue;
			c++;
			if (!draw)
				continue;
			snprintf(buf, sizeof(buf), "%g", v);
			rep_tick(cr, a, vertical, v, label ? 6 : 3,
			    label ? buf : NULL);
		}
	return c;
}

/* The ticks of one axis (vertical: y), linear or logarithmic. */
static void
rep_ticks(cairo_t *cr, const struct het_rep_axis *a, int vertical)
{
	static const int one[1] = { 1 }, ots[3] = { 1, 2, 5 },
	    all[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 },
	    minor[8] = { 2, 3, 4, 5, 6, 7, 8, 9 };
	double lo = vertical ? a->y0 : a->x0, hi = vertical ? a->y1 : a->x1;
	double n = a->nticks > 0 ? a->nticks : 4, s;
	int lg = vertical ? a->ylog : a->xlog;

	if (!(hi > lo) || (lg && !(lo > 0)))
		return;
	if (!lg) {
		s = het_rep_step(hi - lo, n);
		if (!vertical && a->xstep > 0 && s < a->xstep)
			s = a->xstep;
		rep_linticks(cr, a, vertical, lo, hi, s);
		return;
	}
	if (rep_logcount(lo, hi, one, 1, 0, cr, a, vertical, 1) >= 2) {
		rep_logcount(lo, hi, one, 1, 1, cr, a, vertical, 1);
		rep_logcount(lo, hi, minor, 8, 1, cr, a, vertical, 0);
	} else if (rep_logcount(lo, hi, ots, 3, 0, cr, a, vertical, 1) >=
	    2) {
		rep_logcount(lo, hi, ots, 3, 1, cr, a, vertical, 1);
		rep_logcount(lo, hi, minor, 8, 1, cr, a, vertical, 0);
	} else if (rep_logcount(lo, hi, all, 9, 0, cr, a, vertical, 1) >=
	    2)
		rep_logcount(lo, hi, all, 9, 1, cr, a, vertical, 1);
	else
		rep_linticks(cr, a, vertical, lo, hi,
		    het_rep_step(hi - lo, n));
}

void
het_rep_axes(cairo_t *cr, const struct het_rep_axis *a, const char *xlabel,
    const char *ylabel)
{
	cairo_save(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, a->x + 0.5, a->y + 0.5, a->w, a->h);
	cairo_stroke(cr);
	het_rep_font(cr, a->tick_px > 0 ? a->tick_px : 12, 0);
	rep_ticks(cr, a, 0);
	rep_ticks(cr, a, 1);
	het_rep_font(cr, 14, 0);
	if (xlabel != NULL)
		het_rep_text(cr, a->x + a->w / 2, a->y + a->h + 40, 0, "%s",
		    xlabel);
	if (ylabel != NULL) {
		cairo_translate(cr, a->x - 50, a->y + a->h / 2);
		cairo_rotate(cr, -M_PI / 2);
		het_rep_text(cr, 0, 0, 0, "%s", ylabel);
	}
	cairo_restore(cr);
}

void
het_rep_bar(cairo_t *cr, double x, double y, double w, double h,
    double lo, double hi, int diverging)
{
	double rgb[3], t;
	struct het_rep_axis a;
	int k, n = (int)h;

	for (k = 0; k < n; k++) {
		t = (double)k / (n - 1);	/* 0 at the bottom row */
		if (diverging)
			het_rep_dmap(2 * t - 1, rgb);
		else
			het_rep_cmap(t, rgb);
		cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
		cairo_rectangle(cr, x, y + h - 1 - k, w, 1);
		cairo_fill(cr);
	}
	memset(&a, 0, sizeof(a));
	a.x = x + w;
	a.y = y;
	a.w = 0;
	a.h = h;
	a.y0 = lo;
	a.y1 = hi;
	cairo_save(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	het_rep_font(cr, 11, 0);
	if (hi > lo) {
		double s = het_rep_step(hi - lo, 4), v, p;
		char buf[32];

		for (v = ceil(lo / s - 1e-9) * s; v <= hi + s * 1e-9; v += s) {
			p = het_rep_py(&a, v);
			cairo_move_to(cr, x + w, p);
			cairo_line_to(cr, x + w + 4, p);
			cairo_stroke(cr);
			rep_ticknum(buf, sizeof(buf), v, s);
			het_rep_text(cr, x + w + 6, p + 4, -1, "%s", buf);
		}
	}
	cairo_restore(cr);
}

void
het_rep_series(cairo_t *cr, size_t k)
{
	static const double c[6][3] = {
		{ 0.12, 0.47, 0.71 }, { 1.0, 0.50, 0.05 },
		{ 0.17, 0.63, 0.17 }, { 0.84, 0.15, 0.16 },
		{ 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 } };

	cairo_set_source_rgb(cr, c[k % 6][0], c[k % 6][1], c[k % 6][2]);
}

int
het_rep_physics(const char *name)
{
	return strncmp(name, "contrast", 8) != 0 &&
	    strncmp(name, "offset", 6) != 0;
}
