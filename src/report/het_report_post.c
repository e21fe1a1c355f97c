#include "config.h"

/*
 * het_report_post.c: the figures of a sampling run: the marginal
 * histogram of each physics parameter (the consensus draws, 40 bins,
 * the NLSQ value as a red line), the per-shard R-hat and bulk ESS
 * table, and the traces of every shard's chains.
 *
 * Design: the scaling parameters (contrast, offset) are left out of the
 * histograms and traces: one per angle, they would swamp the physics; the
 * shard table lists every sampled parameter.  Draws are those the run
 * wrote, in the file's order, so the figures are reproducible.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "het_report_impl.h"
#include "het_util.h"

#define POST_BINS	40

void
het_rep_post_header(cairo_t *cr, const struct het_results_run *run,
    const char *what)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
	het_rep_font(cr, 17, 1);
	het_rep_text(cr, 20, 30, -1, "%s", what);
	het_rep_font(cr, 13, 0);
	het_rep_text(cr, 20, 50, -1, "%s  CMC %s, %zu consensus draws, %zu "
	    "shards", run->mode, run->cmc_status, run->ndraw, run->nshard);
}

static void
post_hist(cairo_t *cr, const struct het_results_run *run, size_t m,
    double x, double y)
{
	size_t cnt[POST_BINS], i, b, top = 1;
	double lo = INFINITY, hi = -INFINITY, nl = run->nlsq[m], v;
	struct het_rep_axis a;

	for (i = 0; i < run->ndraw; i++) {
		v = run->draws[i * run->p + m];
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	if (isfinite(nl)) {
		lo = fmin(lo, nl);
		hi = fmax(hi, nl);
	}
	if (!(hi > lo)) {
		lo -= 0.5 * fmax(fabs(lo), 1e-12);
		hi += 0.5 * fmax(fabs(hi), 1e-12);
	}
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < run->ndraw; i++) {
		v = (run->draws[i * run->p + m] - lo) / (hi - lo);
		b = (size_t)(v * POST_BINS);
		cnt[b < POST_BINS ? b : POST_BINS - 1]++;
	}
	for (b = 0; b < POST_BINS; b++)
		top = cnt[b] > top ? cnt[b] : top;
	memset(&a, 0, sizeof(a));
	a.x = x + 80;
	a.y = y + 30;
	a.w = 290;
	a.h = 190;
	a.x0 = lo;
	a.x1 = hi;
	a.y0 = 0;
	a.y1 = (double)top * 1.08;
	cairo_set_source_rgb(cr, 0.27, 0.45, 0.70);
	for (b = 0; b < POST_BINS; b++) {
		double x0 = het_rep_px(&a, lo + (hi - lo) * (double)b /
		    POST_BINS), x1 = het_rep_px(&a, lo + (hi - lo) *
		    (double)(b + 1) / POST_BINS);

		cairo_rectangle(cr, x0, het_rep_py(&a, (double)cnt[b]),
		    x1 - x0, het_rep_py(&a, 0) - het_rep_py(&a,
		    (double)cnt[b]));
	}
	cairo_fill(cr);
	if (isfinite(nl)) {
		cairo_set_source_rgb(cr, 0.84, 0.10, 0.11);
		cairo_set_line_width(cr, 2);
		cairo_move_to(cr, het_rep_px(&a, nl), a.y);
		cairo_line_to(cr, het_rep_px(&a, nl), a.y + a.h);
		cairo_stroke(cr);
	}
	het_rep_axes(cr, &a, run->cmc_names[m], "draws");
	cairo_set_source_rgb(cr, 0, 0, 0);
	het_rep_font(cr, 13, 1);
	het_rep_text(cr, a.x + a.w / 2, y + 20, 0, "%s (NLSQ %s)",
	    run->cmc_names[m], isfinite(nl) ? "red" : "unknown");
}

static int
post_fig(cairo_t *cr, const struct het_results_run *run)
{
	size_t m, c = 0;

	het_rep_post_header(cr, run, "Posterior marginals (consensus), NLSQ "
	    "value in red");
	for (m = 0; m < run->p; m++) {
		if (!het_rep_physics(run->cmc_names[m]))
			continue;
		post_hist(cr, run, m, 400 * (double)(c % 3),
		    70 + 300 * (double)(c / 3));
		c++;
	}
	return HET_OK;
}

static int
shards_fig(cairo_t *cr, const struct het_results_run *run)
{
	size_t k, m;
	double x, y;
	char b[64], e[64];

	het_rep_post_header(cr, run, "Convergence per shard: R-hat / bulk ESS");
	het_rep_font(cr, 13, 1);
	het_rep_text(cr, 20, 100, -1, "parameter");
	for (k = 0; k < run->nshard; k++) {
		x = 260 + 190 * (double)k;
		het_rep_text(cr, x, 92, -1, "shard %ld", run->shard[k].id);
		het_rep_font(cr, 11, 0);
		het_rep_text(cr, x, 106, -1, "%s", run->shard[k].state);
		het_rep_font(cr, 13, 1);
	}
	het_rep_font(cr, 13, 0);
	for (m = 0; m < run->p; m++) {
		y = 100 + 22 * (double)(m + 1) + 8;
		if (m % 2 == 0) {
			cairo_set_source_rgb(cr, 0.94, 0.95, 0.97);
			cairo_rectangle(cr, 14, y - 16, 260 + 190 *
			    (double)run->nshard, 22);
			cairo_fill(cr);
		}
		cairo_set_source_rgb(cr, 0, 0, 0);
		het_rep_text(cr, 20, y, -1, "%s", run->cmc_names[m]);
		for (k = 0; k < run->nshard; k++) {
			const struct het_results_run_shard *s =
			    &run->shard[k];

			if (s->rhat == NULL)
				continue;
			het_rep_num(b, sizeof(b), s->rhat[m], 4);
			het_rep_num(e, sizeof(e), s->ess_bulk[m], 4);
			cairo_set_source_rgb(cr, s->rhat[m] > 1.1 ? 0.8 : 0,
			    0, 0);
			het_rep_text(cr, 260 + 190 * (double)k, y, -1,
			    "%s / %s", b, e);
		}
	}
	return HET_OK;
}

static int
traces_fig(cairo_t *cr, const struct het_results_run *run)
{
	size_t m, k, c, i, row = 0, total = 0, off;
	struct het_rep_axis a;

	het_rep_post_header(cr, run, "Traces per shard (chains in colour)");
	for (k = 0; k < run->nshard; k++)
		total += run->shard[k].ndraw;
	if (total < 2)
		return HET_OK;
	for (m = 0; m < run->p; m++) {
		double lo = INFINITY, hi = -INFINITY, v;

		if (!het_rep_physics(run->cmc_names[m]))
			continue;
		for (k = 0; k < run->nshard; k++) {
			const struct het_results_run_shard *s =
			    &run->shard[k];

			for (i = 0; s->draws != NULL &&
			    i < s->nchain * s->ndraw; i++) {
				v = s->draws[((i / s->ndraw) * run->p + m) *
				    s->ndraw + i % s->ndraw];
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
		if (!(hi > lo)) {
			lo -= 0.5;
			hi += 0.5;
		}
		memset(&a, 0, sizeof(a));
		a.x = 110;
		a.y = 80 + 170 * (double)row;
		a.w = 1060;
		a.h = 120;
		a.x0 = 0;
		a.x1 = (double)total;
		a.y0 = lo;
		a.y1 = hi;
		cairo_set_line_width(cr, 1);
		off = 0;
		for (k = 0; k < run->nshard; k++) {
			const struct het_results_run_shard *s =
			    &run->shard[k];

			for (c = 0; s->draws != NULL && c < s->nchain; c++) {
				const double *d = s->draws + (c * run->p + m) *
				    s->ndraw;

				het_rep_series(cr, c);
				for (i = 0; i < s->ndraw; i++)
					(i == 0 ? cairo_move_to :
					    cairo_line_to)(cr, het_rep_px(&a,
					    (double)(off + i)),
					    het_rep_py(&a, d[i]));
				cairo_stroke(cr);
			}
			off += s->ndraw;
			if (k + 1 < run->nshard) {
				cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
				cairo_move_to(cr, het_rep_px(&a, (double)off),
				    a.y);
				cairo_line_to(cr, het_rep_px(&a, (double)off),
				    a.y + a.h);
				cairo_stroke(cr);
			}
		}
		het_rep_axes(cr, &a,
		    "draw (shards side by side)", run->cmc_names[m]);
		row++;
	}
	return HET_OK;
}

int
het_rep_draw_post(cairo_t *cr, const struct het_results_run *run,
    const struct het_rep_fig *f, struct het_error *err)
{
	switch (f->kind) {
	case HET_REP_POST:
		return post_fig(cr, run);
	case HET_REP_SHARDS:
		return shards_fig(cr, run);
	case HET_REP_TRACES:
		return traces_fig(cr, run);
	case HET_REP_CORNER:
		return het_rep_draw_corner(cr, run, err);
	default:
		return het_error_set(err, HET_EINTERNAL, "unknown figure %s",
		    f->name);
	}
}
