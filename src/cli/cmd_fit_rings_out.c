/*
 * cmd_fit_rings_out.c: the summary of `hetui fit --all-rings` on stdout:
 * a table with one line per ring, then every free physics parameter
 * against q as a small text plot with its power-law slope (het_rings),
 * or all of it as JSON.
 *
 * The plot is a grid of cells filled in three layers: the error bars of
 * the converged rings, the fitted power law, then the rings' points; on
 * log-log axes when every value is positive, linear otherwise (and then
 * no slope).  Symbols are UTF-8 when the locale is (cli_utf8), ASCII
 * otherwise.  For a diffusion coefficient (a name starting with "D0")
 * the slope of its rate Gamma = D0 q^2 is printed too: the same fit,
 * two higher, the number that XPCS papers quote.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
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
rings_table(const struct cli_rings *b, const struct rings_sym *s)
{
	const struct het_rings *t = &b->table;
	char cell[64];
	size_t r, c;
	int pad;

	printf("%4s  %-10s %-14s %9s", "ring", "q", "status", "chi2_red");
	for (c = 0; c < t->ncols; c++)
		if (t->plot[c])
			printf("  %-22s", t->names[c]);
	printf("\n");
	for (r = 0; r < t->nrows; r++) {
		printf("%4ld  %-10.6g %-14s ", t->rows[r].ring, t->rows[r].q,
		    t->rows[r].status);
		if (isfinite(t->rows[r].chi2_red))
			printf("%9.4g", t->rows[r].chi2_red);
		else
			printf("%9s", "-");
		for (c = 0; c < t->ncols; c++) {
			double v = het_rings_value(t, r, c),
			    u = het_rings_unc(t, r, c);

			if (!t->plot[c])
				continue;
			if (!isfinite(v))
				snprintf(cell, sizeof(cell), "-");
			else if (isfinite(u))
				snprintf(cell, sizeof(cell), "%.6g %s %.2g", v,
				    s->pm, u);
			else
				snprintf(cell, sizeof(cell), "%.6g", v);
			/* pad by columns, not bytes (the UTF-8 ±) */
			pad = 22 - (int)strlen(cell) + (isfinite(u) &&
			    isfinite(v) ? (int)strlen(s->pm) - 1 : 0);
			printf("  %s%*s", cell, pad > 0 ? pad : 0, "");
		}
		printf("\n");
		if (t->rows[r].message[0] != '\0')
			printf("      %s\n", t->rows[r].message);
	}
}

/* ---- the plot ------------------------------------------------------------ */

struct rings_axes {
	int	 logy;
	double	 x0, x1, y0, y1;	/* ranges in plot coordinates */
};

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
rings_col(const struct rings_axes *a, double q)
{
	double f = (log(q) - a->x0) / (a->x1 - a->x0);

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
		a->x0 = fmin(a->x0, log(t->rows[r].q));
		a->x1 = fmax(a->x1, log(t->rows[r].q));
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
		x = rings_col(a, t->rows[r].q);
		i0 = rings_row(a, rings_y(a, v + u));
		i1 = rings_row(a, a->logy && v - u <= 0 ? a->y0 :
		    rings_y(a, v - u));
		for (i = i0 < 0 ? 0 : i0; i1 >= 0 && i <= i1; i++)
			g[i][x] = CELL_BAR;
	}
	for (x = 0; a->logy && isfinite(ln->slope) && x < PLOT_W; x++) {
		double lq = a->x0 + (a->x1 - a->x0) * x / (PLOT_W - 1);

		if ((i = rings_row(a, ln->ln_a + ln->slope * lq)) >= 0 &&
		    g[i][x] == CELL_EMPTY)
			g[i][x] = CELL_LINE;
	}
	for (r = 0; r < t->nrows; r++)
		if (rings_used(t, r, c) && (i = rings_row(a, rings_y(a,
		    het_rings_value(t, r, c)))) >= 0)
			g[i][rings_col(a, t->rows[r].q)] = CELL_POINT;
}

static void
rings_draw(const struct het_rings *t, size_t c, const struct rings_axes *a,
    const struct het_rings_line *ln, const struct rings_sym *s)
{
	unsigned char g[PLOT_H][PLOT_W];
	double top = a->logy ? exp(a->y1) : a->y1,
	    bot = a->logy ? exp(a->y0) : a->y0;
	char lq[32];
	int i, x;

	rings_grid(t, c, a, ln, g);
	for (i = 0; i < PLOT_H; i++) {
		if (i == 0 || i == PLOT_H - 1)
			printf("  %10.4g %s", i == 0 ? top : bot, s->vbar);
		else
			printf("  %10s %s", "", s->cell[CELL_BAR]);
		for (x = 0; x < PLOT_W; x++)
			fputs(s->cell[g[i][x]], stdout);
		printf("\n");
	}
	printf("  %10s %s", "", s->corner);
	for (x = 0; x < PLOT_W; x++)
		fputs(s->hbar, stdout);
	snprintf(lq, sizeof(lq), "%.4g", exp(a->x0));
	printf("\n  %10s %-*s%*.4g  q [%s], log\n", "", (int)strlen(lq), lq,
	    PLOT_W - (int)strlen(lq), exp(a->x1), s->inv_a);
}

/* One free physics parameter: its slope line and its plot. */
static void
rings_plot(const struct het_rings *t, size_t c, const struct rings_sym *s)
{
	struct het_rings_line ln;
	struct rings_axes a;
	size_t r, n = 0;
	int rc;

	for (r = 0; r < t->nrows; r++)
		n += rings_used(t, r, c);
	rc = het_rings_slope(t, c, &ln);
	printf("\n%s against q (%zu converged ring%s", t->names[c], n,
	    n == 1 ? "" : "s");
	if (rc == HET_OK && isfinite(ln.se))
		printf("): power-law slope %.4g %s %.2g\n", ln.slope, s->pm,
		    ln.se);
	else if (rc == HET_OK)
		printf("): power-law slope %.4g\n", ln.slope);
	else
		printf("): no power-law slope (%s)\n", n < 2 ?
		    "fewer than two rings" : "a value is not positive");
	if (n == 0)
		return;
	memset(&a, 0, sizeof(a));
	a.logy = rc == HET_OK || n < 2;
	for (r = 0; r < t->nrows; r++)
		if (rings_used(t, r, c) && het_rings_value(t, r, c) <= 0)
			a.logy = 0;
	rings_range(t, c, &a);
	rings_draw(t, c, &a, &ln, s);
	if (rc == HET_OK && rings_is_d0(t->names[c]))
		printf("  rate Gamma = %s q^2: power-law slope %.4g %s %.2g\n",
		    t->names[c], ln.slope + 2, s->pm, ln.se);
}

void
cli_rings_print(const struct cli_rings *b)
{
	const struct het_rings *t = &b->table;
	struct rings_sym s;
	size_t c;

	rings_symbols(&s);
	printf("hetui fit --all-rings: %s, %zu of %zu ring%s of %s, q in "
	    "%s\n\n", b->mode_name != NULL ? b->mode_name : "?", t->nrows,
	    b->nq, b->nq == 1 ? "" : "s", b->data_path, s.inv_a);
	rings_table(b, &s);
	for (c = 0; c < t->ncols; c++)
		if (t->plot[c])
			rings_plot(t, c, &s);
	printf("\nresults written to %s/ (%s, %s, one folder per ring)\n",
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
	const struct het_rings_row *row = &t->rows[r];
	json_t *o, *par = json_object(), *unc = json_object();
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		json_object_set_new(par, t->names[c],
		    rings_num(het_rings_value(t, r, c)));
		json_object_set_new(unc, t->names[c],
		    rings_num(het_rings_unc(t, r, c)));
	}
	o = json_pack("{s:I, s:f, s:f, s:s, s:o, s:o, s:o, s:s, s:s}",
	    "ring", (json_int_t)row->ring, "q", row->q, "q2", row->q * row->q,
	    "status", row->status, "chi2_red", rings_num(row->chi2_red),
	    "parameters", par, "uncertainties", unc, "run_dir", row->run_dir,
	    "message", row->message);
	return o;
}

static json_t *
rings_json_slopes(const struct het_rings *t)
{
	struct het_rings_line ln;
	json_t *o = json_object(), *one;
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		if (!t->plot[c])
			continue;
		het_rings_slope(t, c, &ln);
		one = json_pack("{s:o, s:o, s:I}", "slope",
		    rings_num(ln.slope), "uncertainty", rings_num(ln.se),
		    "n_rings", (json_int_t)ln.n);
		if (rings_is_d0(t->names[c]))
			json_object_set_new(one, "rate_slope",
			    rings_num(ln.slope + 2));
		json_object_set_new(o, t->names[c], one);
	}
	return o;
}

void
cli_rings_print_json(const struct cli_rings *b, int rc)
{
	static const char *const names[] = { "converged", "failed", "usage",
	    "not_converged" };
	json_t *root, *rows = json_array();
	size_t r;
	char *text;

	for (r = 0; r < b->table.nrows; r++)
		json_array_append_new(rows, rings_json_row(&b->table, r));
	root = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:[s, s]}",
	    "status", b->cancelled ? "cancelled" : rc >= 0 && rc <= 3 ?
	    names[rc] : "error", "analysis_mode", b->mode_name != NULL ?
	    b->mode_name : "", "file", b->data_path, "batch_dir", b->batch,
	    "n_rings", (json_int_t)b->nq, "n_fitted",
	    (json_int_t)b->table.nrows, "rings", rows, "slopes",
	    rings_json_slopes(&b->table), "files", HET_RINGS_CSV,
	    HET_RINGS_H5);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17));
	if (text != NULL)
		printf("%s\n", text);
	free(text);
	json_decref(root);
}
