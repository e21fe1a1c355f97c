#include "config.h"

/*
 * het_report_corner.c: the corner plot of a sampling run: the physics
 * parameters whose consensus draws are strongly correlated, pair by pair.
 *
 * Design: the parameters are chosen from the Pearson correlation matrix
 * of the combined draws (het_rep_corner_pick).  The pairs are ranked by
 * |r|, strongest first (ties by column, so the choice is reproducible);
 * a pair with |r| >= HET_REP_CORNER_R (one parameter then explains at
 * least a quarter of the other's variance, the usual line between a weak
 * and a strong correlation) brings its two parameters in, as long as at
 * most HET_REP_CORNER_MAX are shown (a pair that would pass the limit is
 * left out; a later pair that shares a parameter may still come in).
 * When no pair passes, the strongest pairs are shown all the same, with
 * at most HET_REP_CORNER_FEW parameters, and the figure says so.  The
 * scaling parameters (contrast, offset) are left out as in the other
 * posterior figures: their pairs would crowd out the physics.
 *
 * The grid has a panel per pair below the diagonal (a 2-D histogram of
 * the draws shaded white to blue, each draw a dot on top when there are
 * few), the marginal histogram on the diagonal, the NLSQ value in red
 * (lines across every panel of its parameter), and the correlation r
 * above the diagonal, the cell tinted by its sign and size.  Only the
 * outer panels carry numbers and names with units, as in corner.py.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "het_report_impl.h"
#include "het_util.h"

#define CORNER_LEFT	110	/* the grid's left edge */
#define CORNER_TOP	140	/* the grid's top edge */
#define CORNER_PANEL	210	/* a panel's side */
#define CORNER_GAP	14	/* between panels */
#define CORNER_BINS	30	/* of a marginal */
#define CORNER_DOTS	1500	/* at most this many draws are dots too */

/* One pair of the correlation matrix. */
struct corner_pair {
	size_t	 i, j;		/* physics indices, i < j */
	double	 a;		/* |r|, 0 when undefined */
};

static int
pair_cmp(const void *pa, const void *pb)
{
	const struct corner_pair *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a > b->a ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/*
 * The correlation matrix (np x np, into r) of the draws' columns ph;
 * 0 where a variance is 0 or not finite.
 */
static int
corner_corr(const struct het_results_run *run, const size_t *ph, size_t np,
    double *r, struct het_error *err)
{
	double *mean, *cov, d;
	size_t a, b, n;

	if ((mean = het_alloc_array(np + np * np, sizeof(double),
	    "correlations", err)) == NULL)
		return HET_ENOMEM;
	cov = mean + np;
	for (n = 0; n < run->ndraw; n++)
		for (a = 0; a < np; a++)
			mean[a] += run->draws[n * run->p + ph[a]];
	for (a = 0; a < np; a++)
		mean[a] /= (double)run->ndraw;
	for (n = 0; n < run->ndraw; n++)
		for (a = 0; a < np; a++) {
			d = run->draws[n * run->p + ph[a]] - mean[a];
			for (b = 0; b <= a; b++)
				cov[a * np + b] += d * (run->draws[n *
				    run->p + ph[b]] - mean[b]);
		}
	for (a = 0; a < np; a++)
		for (b = 0; b <= a; b++) {
			d = cov[a * np + b] / sqrt(cov[a * np + a] *
			    cov[b * np + b]);
			r[a * np + b] = r[b * np + a] = isfinite(d) ?
			    fmax(-1, fmin(1, d)) : 0;
		}
	free(mean);
	return HET_OK;
}

/* 1 when column m of the draws is among those c shows. */
static int
corner_has(const struct het_rep_corner *c, size_t m)
{
	size_t k;

	for (k = 0; k < c->k; k++)
		if (c->idx[k] == m)
			return 1;
	return 0;
}

/* Add physics index i to c unless there (c has room). */
static void
corner_take(struct het_rep_corner *c, const size_t *ph, size_t i)
{
	if (!corner_has(c, ph[i]))
		c->idx[c->k++] = ph[i];
}

/* Walk the ranked pairs (the first n of them) into c, up to limit. */
static void
corner_walk(struct het_rep_corner *c, const size_t *ph,
    const struct corner_pair *pr, size_t n, size_t limit)
{
	size_t k;

	for (k = 0; k < n; k++) {
		int new_i = !corner_has(c, ph[pr[k].i]),
		    new_j = !corner_has(c, ph[pr[k].j]);

		if (c->k + (size_t)new_i + (size_t)new_j > limit) {
			c->cut = 1;
			continue;
		}
		corner_take(c, ph, pr[k].i);
		corner_take(c, ph, pr[k].j);
	}
}

int
het_rep_corner_pick(const struct het_results_run *run,
    struct het_rep_corner *c, struct het_error *err)
{
	struct corner_pair *pr = NULL;
	size_t *ph = NULL, np = 0, m, a, b, n = 0;
	size_t pos[HET_REP_CORNER_MAX] = { 0 };
	double *r = NULL;
	int rc = HET_OK;

	memset(c, 0, sizeof(*c));
	for (m = 0; run->has_cmc && m < run->p; m++)
		np += het_rep_physics(run->cmc_names[m]) != 0;
	c->nphys = np;
	if (np < 2 || run->ndraw < 2 || run->draws == NULL)
		return HET_OK;
	ph = het_alloc_array(np, sizeof(*ph), "corner", err);
	r = het_alloc_array(np * np, sizeof(*r), "corner", err);
	pr = het_alloc_array(np * (np - 1) / 2, sizeof(*pr), "corner", err);
	if (ph == NULL || r == NULL || pr == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (m = 0, np = 0; m < run->p; m++)
		if (het_rep_physics(run->cmc_names[m]))
			ph[np++] = m;
	if ((rc = corner_corr(run, ph, np, r, err)) != HET_OK)
		goto out;
	for (a = 0; a < np; a++)
		for (b = a + 1; b < np; b++) {
			pr[n].i = a;
			pr[n].j = b;
			pr[n++].a = fabs(r[a * np + b]);
		}
	qsort(pr, n, sizeof(*pr), pair_cmp);
	c->npairs = n;
	while (c->npass < n && pr[c->npass].a >= HET_REP_CORNER_R)
		c->npass++;
	if (c->npass > 0)
		corner_walk(c, ph, pr, c->npass, HET_REP_CORNER_MAX);
	else {
		c->fallback = 1;
		corner_walk(c, ph, pr, n, HET_REP_CORNER_FEW);
	}
	/* The chosen parameters' correlations, in their order. */
	for (a = 0; a < c->k; a++)
		for (b = 0; b < np; b++)
			if (ph[b] == c->idx[a])
				pos[a] = b;
	for (a = 0; a < c->k; a++)
		for (b = 0; b < c->k; b++)
			c->r[a][b] = a == b ? 1 : r[pos[a] * np + pos[b]];
out:
	free(ph);
	free(r);
	free(pr);
	return rc;
}

void
het_rep_corner_size(size_t k, int *w, int *h)
{
	int side = CORNER_LEFT + (int)k * (CORNER_PANEL + CORNER_GAP) + 40;

	*w = side > 1100 ? side : 1100;
	*h = CORNER_TOP + (int)k * (CORNER_PANEL + CORNER_GAP) + 60;
}

/* The range of draws column m and its NLSQ value, padded 4 %. */
static void
corner_range(const struct het_results_run *run, size_t m, double *lo,
    double *hi)
{
	double v, pad;
	size_t n;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (n = 0; n < run->ndraw; n++) {
		v = run->draws[n * run->p + m];
		*lo = fmin(*lo, v);
		*hi = fmax(*hi, v);
	}
	if (isfinite(run->nlsq[m])) {
		*lo = fmin(*lo, run->nlsq[m]);
		*hi = fmax(*hi, run->nlsq[m]);
	}
	pad = *hi > *lo ? 0.04 * (*hi - *lo) : 0.5 * fmax(fabs(*lo), 1e-12);
	*lo -= pad;
	*hi += pad;
}

/* "name [unit]" of draws column m, the unit from the fit's table. */
static void
corner_label(const struct het_results_run *run, size_t m, char *buf,
    size_t len)
{
	const struct het_results_table *t = run->ntab > 0 ? &run->tab[0] :
	    NULL;
	size_t r;

	snprintf(buf, len, "%s", run->cmc_names[m]);
	for (r = 0; t != NULL && r < t->n; r++)
		if (strcmp(t->name[r], run->cmc_names[m]) == 0 &&
		    t->unit[r][0] != '\0')
			snprintf(buf, len, "%s [%s]", run->cmc_names[m],
			    t->unit[r]);
}

/* The axes of panel (i, j) of c into a. */
static void
corner_axis(const struct het_results_run *run,
    const struct het_rep_corner *c, size_t i, size_t j,
    struct het_rep_axis *a)
{
	memset(a, 0, sizeof(*a));
	a->x = CORNER_LEFT + (double)j * (CORNER_PANEL + CORNER_GAP);
	a->y = CORNER_TOP + (double)i * (CORNER_PANEL + CORNER_GAP);
	a->w = a->h = CORNER_PANEL;
	corner_range(run, c->idx[j], &a->x0, &a->x1);
	corner_range(run, c->idx[i], &a->y0, &a->y1);
	a->tick_px = 10;
	a->nticks = 2.5;
	a->nolabel = (i + 1 < c->k ? HET_REP_NOX : 0) |
	    (j > 0 || i == j ? HET_REP_NOY : 0);
}

/* The red NLSQ line of value v across a: vertical or not. */
static void
corner_nlsq(cairo_t *cr, const struct het_rep_axis *a, double v,
    int vertical)
{
	double p;

	if (!isfinite(v))
		return;
	cairo_set_source_rgb(cr, 0.84, 0.10, 0.11);
	cairo_set_line_width(cr, 2);
	if (vertical) {
		p = het_rep_px(a, v);
		cairo_move_to(cr, p, a->y);
		cairo_line_to(cr, p, a->y + a->h);
	} else {
		p = het_rep_py(a, v);
		cairo_move_to(cr, a->x, p);
		cairo_line_to(cr, a->x + a->w, p);
	}
	cairo_stroke(cr);
}

/* The marginal of draws column m on a (its y range set here). */
static void
corner_marg(cairo_t *cr, const struct het_results_run *run, size_t m,
    struct het_rep_axis *a)
{
	size_t cnt[CORNER_BINS], n, b, top = 1;
	double v, x0, x1;

	memset(cnt, 0, sizeof(cnt));
	for (n = 0; n < run->ndraw; n++) {
		v = (run->draws[n * run->p + m] - a->x0) / (a->x1 - a->x0);
		b = (size_t)fmax(0, v * CORNER_BINS);
		cnt[b < CORNER_BINS ? b : CORNER_BINS - 1]++;
	}
	for (b = 0; b < CORNER_BINS; b++)
		top = cnt[b] > top ? cnt[b] : top;
	a->y0 = 0;
	a->y1 = 1.1 * (double)top;
	cairo_set_source_rgb(cr, 0.27, 0.45, 0.70);
	for (b = 0; b < CORNER_BINS; b++) {
		x0 = a->x + a->w * (double)b / CORNER_BINS;
		x1 = a->x + a->w * (double)(b + 1) / CORNER_BINS;
		cairo_rectangle(cr, x0, het_rep_py(a, (double)cnt[b]),
		    x1 - x0, het_rep_py(a, 0) - het_rep_py(a,
		    (double)cnt[b]));
	}
	cairo_fill(cr);
	corner_nlsq(cr, a, run->nlsq[m], 1);
}

/* The bins per side of a pair's 2-D histogram: about sqrt(n) / 2. */
static size_t
corner_nbins(size_t n)
{
	size_t nb = (size_t)lround(sqrt((double)n) / 2);

	return nb < 10 ? 10 : nb > 40 ? 40 : nb;
}

/* The pair panel of columns mx (across) and my (up) on a. */
static int
corner_pair(cairo_t *cr, const struct het_results_run *run, size_t mx,
    size_t my, const struct het_rep_axis *a, struct het_error *err)
{
	size_t nb = corner_nbins(run->ndraw), *cnt, n, bx, by, top = 1;
	double fx, fy, t, cw = a->w / (double)nb, ch = a->h / (double)nb;

	if ((cnt = het_alloc_array(nb * nb, sizeof(*cnt), "corner", err)) ==
	    NULL)
		return HET_ENOMEM;
	for (n = 0; n < run->ndraw; n++) {
		fx = (run->draws[n * run->p + mx] - a->x0) / (a->x1 - a->x0);
		fy = (run->draws[n * run->p + my] - a->y0) / (a->y1 - a->y0);
		bx = (size_t)fmax(0, fx * (double)nb);
		by = (size_t)fmax(0, fy * (double)nb);
		bx = bx < nb ? bx : nb - 1;
		by = by < nb ? by : nb - 1;
		cnt[by * nb + bx]++;
	}
	for (n = 0; n < nb * nb; n++)
		top = cnt[n] > top ? cnt[n] : top;
	for (by = 0; by < nb; by++)
		for (bx = 0; bx < nb; bx++) {
			if (cnt[by * nb + bx] == 0)
				continue;
			t = (double)cnt[by * nb + bx] / (double)top;
			cairo_set_source_rgb(cr, 1 - 0.80 * t, 1 - 0.62 * t,
			    1 - 0.35 * t);
			cairo_rectangle(cr, a->x + cw * (double)bx, a->y +
			    a->h - ch * (double)(by + 1), cw, ch);
			cairo_fill(cr);
		}
	free(cnt);
	if (run->ndraw <= CORNER_DOTS) {
		cairo_set_source_rgb(cr, 0.10, 0.10, 0.30);
		for (n = 0; n < run->ndraw; n++) {
			cairo_arc(cr, het_rep_px(a, run->draws[n * run->p +
			    mx]), het_rep_py(a, run->draws[n * run->p + my]),
			    1.2, 0, 2 * M_PI);
			cairo_fill(cr);
		}
	}
	corner_nlsq(cr, a, run->nlsq[mx], 1);
	corner_nlsq(cr, a, run->nlsq[my], 0);
	return HET_OK;
}

/* The cell above the diagonal: r, tinted by its sign and size. */
static void
corner_r(cairo_t *cr, const struct het_rep_axis *a, double r)
{
	double rgb[3];

	het_rep_dmap(r, rgb);
	cairo_set_source_rgb(cr, 0.5 + 0.5 * rgb[0], 0.5 + 0.5 * rgb[1],
	    0.5 + 0.5 * rgb[2]);
	cairo_rectangle(cr, a->x, a->y, a->w, a->h);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	het_rep_font(cr, 22, fabs(r) >= HET_REP_CORNER_R);
	het_rep_text(cr, a->x + a->w / 2, a->y + a->h / 2 + 8, 0,
	    "r = %.2f", r);
}

/* What was chosen and why, under the title. */
static void
corner_why(cairo_t *cr, const struct het_rep_corner *c)
{
	het_rep_font(cr, 13, 0);
	if (!c->fallback)
		het_rep_text(cr, 20, 74, -1, "Chosen from the correlation "
		    "matrix of the draws: the pairs with |r| " HET_REP_GE
		    " %.1f (one parameter explains a quarter or more of the "
		    "other's variance),", HET_REP_CORNER_R);
	else
		het_rep_text(cr, 20, 74, -1, "No pair of the %zu physics "
		    "parameters has |r| " HET_REP_GE " %.1f (none explains a "
		    "quarter of another's variance):", c->nphys,
		    HET_REP_CORNER_R);
	if (!c->fallback)
		het_rep_text(cr, 20, 92, -1, "strongest first, at most %d "
		    "parameters: %zu of %zu pairs pass%s.", HET_REP_CORNER_MAX,
		    c->npass, c->npairs, c->cut ? "; pairs that would "
		    "pass the limit are left out" : "");
	else
		het_rep_text(cr, 20, 92, -1, "the strongest pairs by |r| are "
		    "shown all the same, at most %d parameters.",
		    HET_REP_CORNER_FEW);
	het_rep_text(cr, 20, 110, -1, "Below the diagonal: 2-D histograms "
	    "of the draws (each draw a dot too when at most %d); diagonal: "
	    "marginals; red: the NLSQ value; above: Pearson r.",
	    CORNER_DOTS);
}

int
het_rep_draw_corner(cairo_t *cr, const struct het_results_run *run,
    struct het_error *err)
{
	struct het_rep_corner c;
	struct het_rep_axis a;
	size_t i, j;
	char xl[96], yl[96];
	int rc;

	if ((rc = het_rep_corner_pick(run, &c, err)) != HET_OK)
		return rc;
	het_rep_post_header(cr, run, "Corner plot: the strongly correlated "
	    "physics parameters (consensus draws)");
	corner_why(cr, &c);
	for (i = 0; i < c.k; i++)
		for (j = 0; j < c.k; j++) {
			corner_axis(run, &c, i, j, &a);
			if (j > i) {
				corner_r(cr, &a, c.r[i][j]);
				continue;
			}
			if (i == j)
				corner_marg(cr, run, c.idx[i], &a);
			else if ((rc = corner_pair(cr, run, c.idx[j],
			    c.idx[i], &a, err)) != HET_OK)
				return rc;
			corner_label(run, c.idx[j], xl, sizeof(xl));
			corner_label(run, c.idx[i], yl, sizeof(yl));
			het_rep_axes(cr, &a, i + 1 == c.k ? xl : NULL,
			    j == 0 && i > 0 ? yl : NULL);
		}
	return HET_OK;
}
