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

double
het_rep_px(const struct het_rep_axis *a, double v)
{
	double f;

	if (a->xlog)
		f = (log10(v) - log10(a->x0)) / (log10(a->x1) - log10(a->x0));
	else
		f = (v - a->x0) / (a->x1 - a->x0);
	return a->x + f * a->w;
}

double
het_rep_py(const struct het_rep_axis *a, double v)
{
	return a->y + a->h - (v - a->y0) / (a->y1 - a->y0) * a->h;
}

void
het_rep_num(char *buf, size_t len, double v, int prec)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*g", prec, v == 0 ? 0.0 : v);
}

/* A "nice" tick step of about range / 5. */
static double
rep_step(double range)
{
	double s = pow(10, floor(log10(range / 4))), r = range / 4 / s;

	return r >= 7.5 ? 10 * s : r >= 3.5 ? 5 * s : r >= 1.5 ? 2 * s : s;
}

/* Linear ticks of [lo, hi] along one axis; vertical 1: the y axis. */
static void
rep_ticks(cairo_t *cr, const struct het_rep_axis *a, int vertical)
{
	double lo = vertical ? a->y0 : a->x0, hi = vertical ? a->y1 : a->x1;
	double s, v, p;
	char buf[32];

	if (!(hi > lo))
		return;
	s = rep_step(hi - lo);
	for (v = ceil(lo / s - 1e-9) * s; v <= hi + s * 1e-9; v += s) {
		het_rep_num(buf, sizeof(buf), fabs(v) < s * 1e-9 ? 0 : v, 4);
		if (vertical) {
			p = het_rep_py(a, v);
			cairo_move_to(cr, a->x - 5, p);
			cairo_line_to(cr, a->x, p);
			cairo_stroke(cr);
			het_rep_text(cr, a->x - 8, p + 4, 1, "%s", buf);
		} else {
			p = het_rep_px(a, v);
			cairo_move_to(cr, p, a->y + a->h);
			cairo_line_to(cr, p, a->y + a->h + 5);
			cairo_stroke(cr);
			het_rep_text(cr, p, a->y + a->h + 19, 0, "%s", buf);
		}
	}
}

/* Decade ticks of a logarithmic x axis. */
static void
rep_logticks(cairo_t *cr, const struct het_rep_axis *a)
{
	double e, p;
	int m;

	for (e = floor(log10(a->x0)); e <= ceil(log10(a->x1)); e++)
		for (m = 1; m < 10; m++) {
			double v = (double)m * pow(10, e);

			if (v < a->x0 * (1 - 1e-9) || v > a->x1 * (1 + 1e-9))
				continue;
			p = het_rep_px(a, v);
			cairo_move_to(cr, p, a->y + a->h);
			cairo_line_to(cr, p, a->y + a->h + (m == 1 ? 6 : 3));
			cairo_stroke(cr);
			if (m == 1)
				het_rep_text(cr, p, a->y + a->h + 19, 0, "%g",
				    v);
		}
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
	het_rep_font(cr, 12, 0);
	if (a->xlog)
		rep_logticks(cr, a);
	else
		rep_ticks(cr, a, 0);
	rep_ticks(cr, a, 1);
	het_rep_font(cr, 14, 0);
	het_rep_text(cr, a->x + a->w / 2, a->y + a->h + 40, 0, "%s", xlabel);
	cairo_translate(cr, a->x - 50, a->y + a->h / 2);
	cairo_rotate(cr, -M_PI / 2);
	het_rep_text(cr, 0, 0, 0, "%s", ylabel);
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
		double s = rep_step(hi - lo), v, p;
		char buf[32];

		for (v = ceil(lo / s - 1e-9) * s; v <= hi + s * 1e-9; v += s) {
			p = het_rep_py(&a, v);
			cairo_move_to(cr, x + w, p);
			cairo_line_to(cr, x + w + 4, p);
			cairo_stroke(cr);
			het_rep_num(buf, sizeof(buf), fabs(v) < s * 1e-9 ? 0 :
			    v, 4);
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
