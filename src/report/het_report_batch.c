#include "config.h"

/*
 * het_report_batch.c: the figures of a batch folder (hetui fit
 * --all-rings, hetui fit --series): every free physics parameter against
 * q (rings) or against the file index (series), one figure each.
 *
 * Design: the table is the core's (het_rings_load reads rings.csv or
 * series.csv), and so are the rows that count and the trend
 * (het_rings_slope: converged rows with a value; a power law for the
 * rings, a straight line per file for a series), so the figure shows
 * the numbers hetui fit printed.  A ring's figure is log-log when every
 * value is positive (else linear, without a power law), with the fitted
 * power law as a line and, for a diffusion coefficient (a name starting
 * with D0), the slope of its rate Gamma = D0 q^2 and a dashed line of D0
 * constant in q: the diffusive scaling.  A series' figure has the file
 * index along the bottom and the seconds since the first file along
 * the top, with the drift per file as a line.  Points are the values,
 * bars their uncertainties (a bar that would reach zero on a log axis
 * stops at the axis).  The axes' ranges follow from the values alone
 * (batch_axes), so tests/t_report_batch.sh can say where a point must
 * be.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "het_params.h"
#include "het_report.h"
#include "het_report_impl.h"
#include "het_util.h"

/* 1 when row r of t counts for column c: converged, with a value. */
static int
batch_used(const struct het_rings *t, size_t r, size_t c)
{
	return strcmp(t->rows[r].status, HET_RINGS_CONVERGED) == 0 &&
	    isfinite(het_rings_value(t, r, c)) &&
	    isfinite(het_rings_x(t, r));
}

static size_t
batch_nused(const struct het_rings *t, size_t c)
{
	size_t r, n = 0;

	for (r = 0; r < t->nrows; r++)
		n += batch_used(t, r, c);
	return n;
}

static int
batch_series(const struct het_rings *t)
{
	return t->layout == &het_rings_layout_series;
}

int
het_rep_batch_figs(const struct het_rings *t, const char *file,
    struct het_rep_fig **out, size_t *n, struct het_error *err)
{
	struct het_rep_fig *f;
	size_t c, m = 0, k;
	const char *what = batch_series(t) ? "file" : "ring";

	*out = NULL;
	*n = 0;
	if (t->nrows == 0)
		return het_error_set(err, HET_EDATA, "%s has no rows: the "
		    "batch fitted no %s, so there is nothing to draw; run it "
		    "again (hetui fit %s)", file, what, batch_series(t) ?
		    "--series" : "--all-rings");
	if ((f = het_alloc_array(t->ncols + 1, sizeof(*f), "figures",
	    err)) == NULL)
		return HET_ENOMEM;
	for (c = 0; c < t->ncols; c++) {
		if (!t->plot[c] || batch_nused(t, c) == 0)
			continue;
		snprintf(f[m].name, sizeof(f[m].name), "%s_%s",
		    batch_series(t) ? "series" : "rings", t->names[c]);
		for (k = 0; f[m].name[k] != '\0'; k++)
			if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
			    "QRSTUVWXYZ0123456789_-", f[m].name[k]) == NULL)
				f[m].name[k] = '_';
		f[m].w = HET_REPORT_BATCH_W;
		f[m].h = HET_REPORT_BATCH_H;
		f[m].kind = HET_REP_BATCH;
		f[m++].idx = c;
	}
	if (m == 0) {
		free(f);
		return het_error_set(err, HET_EDATA, "none of the %zu rows of "
		    "%s is a converged fit with a value of a free physics "
		    "parameter (the first says %s): the figures show "
		    "converged fits only; see the message column, fix what "
		    "failed and run the batch again", t->nrows, file,
		    t->rows[0].status);
	}
	*out = f;
	*n = m;
	return HET_OK;
}

/* The figure's log y axis: a power law of positive values. */
static int
batch_logy(const struct het_rings *t, size_t c)
{
	size_t r;

	if (batch_series(t))
		return 0;
	for (r = 0; r < t->nrows; r++)
		if (batch_used(t, r, c) && !(het_rings_value(t, r, c) > 0))
			return 0;
	return 1;
}

/* The plot area and ranges of column c's figure. */
static void
batch_axes(const struct het_rings *t, size_t c, struct het_rep_axis *a)
{
	double x, v, u, lo, hi, pad;
	size_t r;

	memset(a, 0, sizeof(*a));
	a->x = 110;
	a->y = 150;
	a->w = 820;
	a->h = 420;
	a->xlog = !batch_series(t);
	a->ylog = batch_logy(t, c);
	a->xstep = batch_series(t) ? 1 : 0;
	a->x0 = a->y0 = INFINITY;
	a->x1 = a->y1 = -INFINITY;
	for (r = 0; r < t->nrows; r++) {
		if (!batch_used(t, r, c))
			continue;
		x = het_rings_x(t, r);
		v = het_rings_value(t, r, c);
		u = het_rings_unc(t, r, c);
		lo = isfinite(u) && (!a->ylog || v - u > 0) ? v - u : v;
		hi = isfinite(u) ? v + u : v;
		a->x0 = fmin(a->x0, x);
		a->x1 = fmax(a->x1, x);
		a->y0 = fmin(a->y0, a->ylog ? log10(lo) : lo);
		a->y1 = fmax(a->y1, a->ylog ? log10(hi) : hi);
	}
	/* 8 % of the span on each side (of the decades on a log axis). */
	pad = a->y1 > a->y0 ? 0.08 * (a->y1 - a->y0) : a->ylog ? 0.05 :
	    fmax(0.05 * fabs(a->y0), 1e-300);
	a->y0 -= pad;
	a->y1 += pad;
	if (a->ylog) {
		a->y0 = pow(10, a->y0);
		a->y1 = pow(10, a->y1);
	}
	if (a->xlog) {
		a->x0 = pow(10, log10(a->x0) - 0.06);
		a->x1 = pow(10, log10(a->x1) + 0.06);
	} else {
		a->x0 -= 0.5;
		a->x1 += 0.5;
	}
}

/* "name [unit]", the unit from the parameter tables. */
static void
batch_label(const char *name, char *buf, size_t len)
{
	const struct het_param_def *tab;
	size_t n;
	int f, k;

	snprintf(buf, len, "%s", name);
	for (f = 0; f < 2; f++) {
		tab = het_params_table((enum het_family)f, &n);
		k = het_params_find((enum het_family)f, name);
		if (k >= 0 && (size_t)k < n && tab[k].unit[0] != '\0') {
			snprintf(buf, len, "%s [%s]", name, tab[k].unit);
			return;
		}
	}
}

/* The error bars, then the points, of column c on a (clipped). */
static void
batch_points(cairo_t *cr, const struct het_rings *t, size_t c,
    const struct het_rep_axis *a)
{
	double x, v, u, y0, y1;
	size_t r;

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1.5);
	for (r = 0; r < t->nrows; r++) {
		u = het_rings_unc(t, r, c);
		if (!batch_used(t, r, c) || !isfinite(u) || u == 0)
			continue;
		v = het_rings_value(t, r, c);
		x = het_rep_px(a, het_rings_x(t, r));
		y0 = a->ylog && v - u <= 0 ? a->y + a->h :
		    het_rep_py(a, v - u);
		y1 = het_rep_py(a, v + u);
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, y1);
		cairo_move_to(cr, x - 5, y1);
		cairo_line_to(cr, x + 5, y1);
		if (!(a->ylog && v - u <= 0)) {
			cairo_move_to(cr, x - 5, y0);
			cairo_line_to(cr, x + 5, y0);
		}
		cairo_stroke(cr);
	}
	het_rep_series(cr, 0);
	for (r = 0; r < t->nrows; r++) {
		if (!batch_used(t, r, c))
			continue;
		cairo_arc(cr, het_rep_px(a, het_rings_x(t, r)),
		    het_rep_py(a, het_rings_value(t, r, c)), 5, 0, 2 * M_PI);
		cairo_fill(cr);
	}
}

/* The trend across a: value = f(x) in 200 steps; dashed when asked. */
static void
batch_line(cairo_t *cr, const struct het_rep_axis *a,
    const struct het_rings_line *ln, int power, double flat)
{
	double x, v, f;
	int k;

	for (k = 0; k <= 200; k++) {
		f = (double)k / 200;
		x = a->xlog ? a->x0 * pow(a->x1 / a->x0, f) :
		    a->x0 + f * (a->x1 - a->x0);
		v = isfinite(flat) ? flat : power ? exp(ln->ln_a) *
		    pow(x, ln->slope) : ln->ln_a + ln->slope * x;
		(k == 0 ? cairo_move_to : cairo_line_to)(cr,
		    het_rep_px(a, x), het_rep_py(a, v));
	}
	cairo_stroke(cr);
}

/* The seconds since the first file above the index ticks. */
static void
batch_top(cairo_t *cr, const struct het_rings *t,
    const struct het_rep_axis *a)
{
	double s = het_rep_step(a->x1 - a->x0, 4), v, p;
	size_t r;
	char buf[32];

	if (s < 1)
		s = 1;
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	het_rep_font(cr, 12, 0);
	for (v = ceil(a->x0 / s - 1e-9) * s; v <= a->x1 + 1e-9; v += s)
		for (r = 0; r < t->nrows; r++) {
			if ((double)t->rows[r].cell[HET_SERIES_INDEX].i != v)
				continue;
			p = het_rep_px(a, v);
			cairo_move_to(cr, p, a->y);
			cairo_line_to(cr, p, a->y - 5);
			cairo_stroke(cr);
			het_rep_num(buf, sizeof(buf),
			    t->rows[r].cell[HET_SERIES_T].x, 6);
			het_rep_text(cr, p, a->y - 9, 0, "%s", buf);
			break;
		}
	het_rep_font(cr, 13, 0);
	het_rep_text(cr, a->x + a->w / 2, a->y - 28, 0, "t since the first "
	    "file (s)");
}

/* The lines under the title: what counts, the trend in numbers. */
static void
batch_says(cairo_t *cr, const struct het_rings *t, size_t c, int rc,
    const struct het_rings_line *ln, int logy, const char *file)
{
	size_t n = batch_nused(t, c);
	const char *unit = batch_series(t) ? "file" : "ring";

	het_rep_font(cr, 13, 0);
	het_rep_text(cr, 20, 50, -1, "%s: %zu of %zu %ss converged; only "
	    "those are drawn", file, n, t->nrows, unit);
	if (rc != HET_OK)
		het_rep_text(cr, 20, 72, -1, "no %s: %s", batch_series(t) ?
		    "drift" : "power law", n < 2 ? "fewer than two converged "
		    "rows" : !logy && !batch_series(t) ? "a value is not "
		    "positive (linear axes)" : "every point at one x");
	else if (batch_series(t))
		het_rep_text(cr, 20, 72, -1, "drift per file %.4g " HET_REP_PM
		    " %.2g (orange; least squares over %zu files), %.1f "
		    "standard errors from none", ln->slope, ln->se, ln->n,
		    ln->se > 0 ? fabs(ln->slope) / ln->se : INFINITY);
	else
		het_rep_text(cr, 20, 72, -1, "power-law slope %.4g " HET_REP_PM
		    " %.2g (orange; least squares of ln %s on ln q over %zu "
		    "rings)", ln->slope, ln->se, t->names[c], ln->n);
	if (rc == HET_OK && !batch_series(t) &&
	    strncmp(t->names[c], "D0", 2) == 0)
		het_rep_text(cr, 20, 92, -1, "rate " HET_REP_GAMMA " = %s q"
		    HET_REP_SQ ": slope %.4g " HET_REP_PM " %.2g; diffusion "
		    "gives 2 (grey dashes: %s constant in q)", t->names[c],
		    ln->slope + 2, ln->se, t->names[c]);
}

int
het_rep_draw_batch(cairo_t *cr, const struct het_rings *t,
    const char *file, const struct het_rep_fig *f, struct het_error *err)
{
	struct het_rings_line ln;
	struct het_rep_axis a;
	size_t c = f->idx;
	char yl[96];
	int rc;

	(void)err;
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	batch_axes(t, c, &a);
	rc = het_rings_slope(t, c, &ln);
	if (rc == HET_OK && !batch_series(t) && !a.ylog)
		rc = HET_ERANGE;
	cairo_set_source_rgb(cr, 0, 0, 0);
	het_rep_font(cr, 17, 1);
	het_rep_text(cr, 20, 30, -1, "%s against %s", t->names[c],
	    batch_series(t) ? "the file index" : "q");
	batch_says(cr, t, c, rc, &ln, a.ylog, file);
	cairo_save(cr);
	cairo_rectangle(cr, a.x, a.y, a.w, a.h);
	cairo_clip(cr);
	if (rc == HET_OK && !batch_series(t) &&
	    strncmp(t->names[c], "D0", 2) == 0) {
		double dash[2] = { 6, 4 };

		cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
		cairo_set_line_width(cr, 2);
		cairo_set_dash(cr, dash, 2, 0);
		batch_line(cr, &a, &ln, 1, exp(ln.ln_a) * pow(sqrt(a.x0 *
		    a.x1), ln.slope));
		cairo_set_dash(cr, NULL, 0, 0);
	}
	if (rc == HET_OK) {
		het_rep_series(cr, 1);
		cairo_set_line_width(cr, 2);
		batch_line(cr, &a, &ln, !batch_series(t), NAN);
	}
	batch_points(cr, t, c, &a);
	cairo_restore(cr);
	batch_label(t->names[c], yl, sizeof(yl));
	het_rep_axes(cr, &a, batch_series(t) ? "file index" :
	    "q [1/" HET_REP_ANG "]", yl);
	if (batch_series(t))
		batch_top(cr, t, &a);
	return HET_OK;
}
