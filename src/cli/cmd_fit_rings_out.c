/*
 * cmd_fit_rings_out.c: the summary of a batch of fits (on stdout, or
 * into the result record of --wire), `hetui fit --all-rings` (one line
 * per ring, parameters against q) and `hetui fit --series` (one line
 * per file, parameters against the file index): a table, then every free
 * physics parameter as a small text plot with
 * its trend (het_rings), or all of it as JSON.
 *
 * The plot is a grid of cells filled in three layers: the error bars of
 * the converged rows, the fitted trend, then the rows' points.  The
 * rings' trend is a power law, drawn on log-log axes when every value
 * is positive (linear otherwise, and then no slope); a series' is a
 * straight line on linear axes.  Symbols are UTF-8 when the locale is
 * (cli_utf8), ASCII otherwise.  For a diffusion coefficient (a name
 * starting with "D0") the rings' summary gives the slope of its rate
 * Gamma = D0 q^2 too: the same fit, two higher, the number that XPCS
 * papers quote.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_fit.h"
#include "cmd_fit_rings.h"
#include "het_rings.h"

#define PLOT_W	48
#define PLOT_H	9

enum { CELL_EMPTY, CELL_BAR, CELL_LINE, CELL_POINT };

struct rings_sym {
	const char *cell[4];	/* by CELL_* */
	const char *pm, *inv_a, *vbar, *corner, *hbar;
};

static void
rings_symbols(struct rings_sym *s)
{
	static const struct rings_sym utf8 = {
		{ " ", "\xe2\x94\x82", "\xc2\xb7", "\xe2\x97\x8f" },
		"\xc2\xb1", "\xc3\x85\xe2\x81\xbb\xc2\xb9", "\xe2\x94\xa4",
		"\xe2\x94\x94", "\xe2\x94\x80"
	}, ascii = {
		{ " ", "|", ".", "o" }, "+-", "1/A", "|", "+", "-"
	};

	*s = cli_utf8() ? utf8 : ascii;
}

/* Whether row r of the table counts for plots and slopes. */
static int
rings_used(const struct het_rings *t, size_t r, size_t c)
{
	return strcmp(t->rows[r].status, HET_RINGS_CONVERGED) == 0 &&
	    isfinite(het_rings_value(t, r, c));
}

/* 1 when the rate Gamma = value q^2 is worth a line of its own. */
static int
rings_is_d0(const char *name)
{
	return strncmp(name, "D0", 2) == 0;
}

/* ---- the table ----------------------------------------------------------- */

static void
rings_table(const struct het_rings *t, const struct cli_batch_view *v,
    const struct rings_sym *s, FILE *out)
{
	char cell[64];
	size_t r, c;
	int pad;

	fprintf(out, "%s%-14s %9s", v->head, "status", "chi2_red");
	for (c = 0; c < t->ncols; c++)
		if (t->plot[c])
			fprintf(out, "  %-22s", t->names[c]);
	fprintf(out, "\n");
	for (r = 0; r < t->nrows; r++) {
		v->lead(t, r, out);
		fprintf(out, "%-14s ", t->rows[r].status);
		if (isfinite(t->rows[r].chi2_red))
			fprintf(out, "%9.4g", t->rows[r].chi2_red);
		else
			fprintf(out, "%9s", "-");
		for (c = 0; c < t->ncols; c++) {
			double x = het_rings_value(t, r, c),
			    u = het_rings_unc(t, r, c);

			if (!t->plot[c])
				continue;
			if (!isfinite(x))
				snprintf(cell, sizeof(cell), "-");
			else if (isfinite(u))
				snprintf(cell, sizeof(cell), "%.6g %s %.2g", x,
				    s->pm, u);
			else
				snprintf(cell, sizeof(cell), "%.6g", x);
			/* pad by columns, not bytes (the UTF-8 ±) */
			pad = 22 - (int)strlen(cell) + (isfinite(u) &&
			    isfinite(x) ? (int)strlen(s->pm) - 1 : 0);
			fprintf(out, "  %s%*s", cell, pad > 0 ? pad : 0, "");
		}
		fprintf(out, "\n");
		if (t->rows[r].message[0] != '\0')
			fprintf(out, "      %s\n", t->rows[r].message);
	}
}

/* ---- the plot ------------------------------------------------------------ */

struct rings_axes {
	int	 logx, logy;
	double	 x0, x1, y0, y1;	/* ranges in plot coordinates */
};

static double
rings_x(const struct rings_axes *a, double x)
{
	return a->logx ? log(x) : x;
}

static double
rings_y(const struct rings_axes *a, double v)
{
	return a->logy ? log(v) : v;
}

/* Cell row of plot coordinate y (0 at the top), or -1 outside. */
static int
rings_row(const struct rings_axes *a, double y)
{
	double f = (y - a->y0) / (a->y1 - a->y0);
	int i = (int)lround((1 - f) * (PLOT_H - 1));

	return isfinite(f) && i >= 0 && i < PLOT_H ? i : -1;
}

static int
rings_col(const struct rings_axes *a, double x)
{
	double f = (rings_x(a, x) - a->x0) / (a->x1 - a->x0);

	return (int)lround(f * (PLOT_W - 1));
}

/* The ranges of column c's converged values (with error bars). */
static void
rings_range(const struct het_rings *t, size_t c, struct rings_axes *a)
{
	double v, u, lo, hi, pad;
	size_t r;

	a->x0 = a->y0 = INFINITY;
	a->x1 = a->y1 = -INFINITY;
	for (r = 0; r < t->nrows; r++) {
		if (!rings_used(t, r, c))
			continue;
		v = het_rings_value(t, r, c);
		u = het_rings_unc(t, r, c);
		lo = isfinite(u) && (!a->logy || v - u > 0) ? v - u : v;
		hi = isfinite(u) ? v + u : v;
		a->y0 = fmin(a->y0, rings_y(a, lo));
		a->y1 = fmax(a->y1, rings_y(a, hi));
		a->x0 = fmin(a->x0, rings_x(a, het_rings_x(t, r)));
		a->x1 = fmax(a->x1, rings_x(a, het_rings_x(t, r)));
	}
	pad = a->y1 > a->y0 ? 0.05 * (a->y1 - a->y0) :
	    fmax(fabs(a->y0) * 0.01, 1e-300);
	a->y0 -= pad;
	a->y1 += pad;
	if (!(a->x1 > a->x0)) {
		a->x0 -= 0.1;
		a->x1 += 0.1;
	}
}

static void
rings_grid(const struct het_rings *t, size_t c, const struct rings_axes *a,
    const struct het_rings_line *ln, unsigned char g[PLOT_H][PLOT_W])
{
	double v, u;
	size_t r;
	int x, i, i0, i1;

	memset(g, CELL_EMPTY, PLOT_H * PLOT_W);
	for (r = 0; r < t->nrows; r++) {
		if (!rings_used(t, r, c) ||
		    !isfinite(u = het_rings_unc(t, r, c)))
			continue;
		v = het_rings_value(t, r, c);
		x = rings_col(a, het_rings_x(t, r));
		i0 = rings_row(a, rings_y(a, v + u));
		i1 = rings_row(a, a->logy && v - u <= 0 ? a->y0 :
		    rings_y(a, v - u));
		for (i = i0 < 0 ? 0 : i0; i1 >= 0 && i <= i1; i++)
			g[i][x] = CELL_BAR;
	}
	/* The trend is a line in these coordinates only on its own axes. */
	for (x = 0; a->logy == a->logx && isfinite(ln->slope) && x < PLOT_W;
	    x++) {
		double lx = a->x0 + (a->x1 - a->x0) * x / (PLOT_W - 1);

		if ((i = rings_row(a, ln->ln_a + ln->slope * lx)) >= 0 &&
		    g[i][x] == CELL_EMPTY)
			g[i][x] = CELL_LINE;
	}
	for (r = 0; r < t->nrows; r++)
		if (rings_used(t, r, c) && (i = rings_row(a, rings_y(a,
		    het_rings_value(t, r, c)))) >= 0)
			g[i][rings_col(a, het_rings_x(t, r))] = CELL_POINT;
}

static void
rings_draw(const struct het_rings *t, size_t c, const struct rings_axes *a,
    const struct het_rings_line *ln, const struct cli_batch_view *v,
    const struct rings_sym *s, FILE *out)
{
	unsigned char g[PLOT_H][PLOT_W];
	double top = a->logy ? exp(a->y1) : a->y1,
	    bot = a->logy ? exp(a->y0) : a->y0,
	    left = a->logx ? exp(a->x0) : a->x0,
	    right = a->logx ? exp(a->x1) : a->x1;
	char lq[32];
	int i, x;

	rings_grid(t, c, a, ln, g);
	for (i = 0; i < PLOT_H; i++) {
		if (i == 0 || i == PLOT_H - 1)
			fprintf(out, "  %10.4g %s", i == 0 ? top : bot,
			    s->vbar);
		else
			fprintf(out, "  %10s %s", "", s->cell[CELL_BAR]);
		for (x = 0; x < PLOT_W; x++)
			fputs(s->cell[g[i][x]], out);
		fprintf(out, "\n");
	}
	fprintf(out, "  %10s %s", "", s->corner);
	for (x = 0; x < PLOT_W; x++)
		fputs(s->hbar, out);
	snprintf(lq, sizeof(lq), "%.4g", left);
	fprintf(out, "\n  %10s %-*s%*.4g  %s\n", "", (int)strlen(lq), lq,
	    PLOT_W - (int)strlen(lq), right, v->x_label);
}

/* One free physics parameter: its trend and its plot. */
static void
rings_plot(const struct het_rings *t, size_t c,
    const struct cli_batch_view *v, const struct rings_sym *s, FILE *out)
{
	struct het_rings_line ln;
	struct rings_axes a;
	size_t r, n = 0;
	int rc, lg = t->layout->loglog;

	for (r = 0; r < t->nrows; r++)
		n += rings_used(t, r, c);
	rc = het_rings_slope(t, c, &ln);
	fprintf(out, "\n%s against %s (%zu converged %s%s", t->names[c],
	    v->x_name, n, v->unit, n == 1 ? "" : "s");
	if (rc == HET_OK && isfinite(ln.se))
		fprintf(out, "): %s %.4g %s %.2g", v->trend, ln.slope, s->pm,
		    ln.se);
	else if (rc == HET_OK)
		fprintf(out, "): %s %.4g", v->trend, ln.slope);
	else if (n < 2)
		fprintf(out, "): no %s (fewer than two %ss)", v->trend,
		    v->unit);
	else
		fprintf(out, "): no %s (%s)", v->trend, lg ? "a value is not "
		    "positive" : "every point at one x");
	/* How far from no trend: what a scientist looks at first. */
	if (rc == HET_OK && !lg && isfinite(ln.se) && ln.se > 0)
		fprintf(out, ", %.1f standard errors from none",
		    fabs(ln.slope) / ln.se);
	fprintf(out, "\n");
	if (n == 0)
		return;
	memset(&a, 0, sizeof(a));
	a.logx = lg;
	a.logy = lg && (rc == HET_OK || n < 2);
	for (r = 0; r < t->nrows; r++)
		if (rings_used(t, r, c) && het_rings_value(t, r, c) <= 0)
			a.logy = 0;
	rings_range(t, c, &a);
	rings_draw(t, c, &a, &ln, v, s, out);
	if (rc == HET_OK && lg && rings_is_d0(t->names[c]))
		fprintf(out, "  rate Gamma = %s q^2: power-law slope %.4g %s "
		    "%.2g\n", t->names[c], ln.slope + 2, s->pm, ln.se);
}

void
cli_batch_print(const struct het_rings *t, const struct cli_batch_view *v,
    FILE *out)
{
	struct rings_sym s;
	size_t c;

	rings_symbols(&s);
	rings_table(t, v, &s, out);
	for (c = 0; c < t->ncols; c++)
		if (t->plot[c])
			rings_plot(t, c, v, &s, out);
}

/* The ring and q of row r, under "ring  q         ". */
static void
rings_lead(const struct het_rings *t, size_t r, FILE *out)
{
	fprintf(out, "%4ld  %-10.6g ", t->rows[r].cell[0].i,
	    t->rows[r].cell[1].x);
}

void
cli_rings_print(const struct cli_rings *b, FILE *out)
{
	struct cli_batch_view v;
	struct rings_sym s;
	char label[32];

	rings_symbols(&s);
	snprintf(label, sizeof(label), "q [%s], log", s.inv_a);
	memset(&v, 0, sizeof(v));
	v.head = "ring  q          ";
	v.lead = rings_lead;
	v.unit = "ring";
	v.x_name = "q";
	v.x_label = label;
	v.trend = "power-law slope";
	fprintf(out, "hetui fit --all-rings: %s, %zu of %zu ring%s of %s, q in "
	    "%s\n\n", b->mode_name != NULL ? b->mode_name : "?",
	    b->table.nrows, b->nq, b->nq == 1 ? "" : "s", b->data_path,
	    s.inv_a);
	cli_batch_print(&b->table, &v, out);
	fprintf(out, "\nresults written to %s/ (%s, %s, one folder per ring)\n",
	    b->batch, HET_RINGS_CSV, HET_RINGS_H5);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *
rings_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
rings_json_row(const struct het_rings *t, size_t r)
{
	const struct het_rings_layout *l = t->layout;
	const struct het_rings_row *row = &t->rows[r];
	json_t *o = json_object(), *par = json_object(),
	    *unc = json_object();
	size_t c;

	for (c = 0; c < l->nlead; c++)
		json_object_set_new(o, l->lead[c].name,
		    l->lead[c].type == HET_RINGS_INT ?
		    json_integer(row->cell[c].i) :
		    l->lead[c].type == HET_RINGS_REAL ?
		    rings_num(row->cell[c].x) : json_string(row->cell[c].s));
	for (c = 0; c < t->ncols; c++) {
		json_object_set_new(par, t->names[c],
		    rings_num(het_rings_value(t, r, c)));
		json_object_set_new(unc, t->names[c],
		    rings_num(het_rings_unc(t, r, c)));
	}
	json_object_set_new(o, "status", json_string(row->status));
	json_object_set_new(o, "chi2_red", rings_num(row->chi2_red));
	json_object_set_new(o, "parameters", par);
	json_object_set_new(o, "uncertainties", unc);
	json_object_set_new(o, "run_dir", json_string(row->run_dir));
	json_object_set_new(o, "message", json_string(row->message));
	return o;
}

json_t *
cli_batch_json_rows(const struct het_rings *t)
{
	json_t *rows = json_array();
	size_t r;

	for (r = 0; r < t->nrows; r++)
		json_array_append_new(rows, rings_json_row(t, r));
	return rows;
}

json_t *
cli_batch_json_trends(const struct het_rings *t, const char *key,
    const char *nkey)
{
	struct het_rings_line ln;
	json_t *o = json_object(), *one;
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		if (!t->plot[c])
			continue;
		het_rings_slope(t, c, &ln);
		one = json_pack("{s:o, s:o, s:I}", key, rings_num(ln.slope),
		    "uncertainty", rings_num(ln.se), nkey, (json_int_t)ln.n);
		if (t->layout->loglog && rings_is_d0(t->names[c]))
			json_object_set_new(one, "rate_slope",
			    rings_num(ln.slope + 2));
		json_object_set_new(o, t->names[c], one);
	}
	return o;
}

const char *
cli_batch_status_name(int cancelled, int rc)
{
	static const char *const names[] = { "converged", "failed", "usage",
	    "not_converged" };

	return cancelled ? "cancelled" : rc >= 0 && rc <= 3 ? names[rc] :
	    "error";
}

void
cli_batch_json_print(json_t *root)
{
	char *text;

	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17));
	if (text != NULL)
		printf("%s\n", text);
	free(text);
	json_decref(root);
}

void
cli_rings_print_json(const struct cli_rings *b, int rc)
{
	json_t *root;

	root = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:[s, s]}",
	    "status", cli_batch_status_name(b->cancelled, rc),
	    "analysis_mode", b->mode_name != NULL ? b->mode_name : "", "file",
	    b->data_path, "batch_dir", b->batch, "n_rings", (json_int_t)b->nq,
	    "n_fitted", (json_int_t)b->table.nrows, "rings",
	    cli_batch_json_rows(&b->table), "slopes",
	    cli_batch_json_trends(&b->table, "slope", "n_rings"), "files",
	    HET_RINGS_CSV, HET_RINGS_H5);
	cli_batch_json_print(root);
}
