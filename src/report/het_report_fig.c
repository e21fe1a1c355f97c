#include "config.h"

/*
 * het_report_fig.c: the figures of a fit: which figures a run has
 * (het_rep_figs), and the heatmaps, g2 cuts and parameter table.
 *
 * Design: each figure reads what it draws itself (the matrices of one
 * angle at a time, through het_results_load_matrix), so a report of
 * many angles holds one angle's matrices at once.  The data matrix is
 * the model minus the stored residual (model minus data, the
 * reference's sign); its diagonal is no datum and is drawn grey.  Colour
 * ranges are the 0.5 and 99.5 % quantiles of the data (data and model
 * share one bar) and of the absolute residual (symmetric bar), so a few
 * outliers do not wash a map out.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "het_report.h"
#include "het_report_impl.h"
#include "het_results.h"
#include "het_util.h"

#define HEAT_PANEL	400
#define HEAT_TOP	80
#define HEAT_LEFT	80
#define HEAT_STEP	550
#define RANGE_SAMPLE	20000

int
het_rep_figs(const struct het_results_run *run, struct het_rep_fig **out,
    size_t *n, struct het_error *err)
{
	struct het_rep_fig *f;
	size_t k, m = 0, cap = 2 * run->nangles + run->ntab + 4, nphys = 0;
	struct het_rep_corner cn;
	int rc;

	if ((f = het_alloc_array(cap, sizeof(*f), "figures", err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < run->nangles; k++) {
		snprintf(f[m].name, sizeof(f[m].name), "heat_%03zu", k);
		f[m].w = HET_REPORT_HEAT_W;
		f[m].h = HET_REPORT_HEAT_H;
		f[m].kind = HET_REP_HEAT;
		f[m++].idx = k;
		snprintf(f[m].name, sizeof(f[m].name), "g2_%03zu", k);
		f[m].w = 900;
		f[m].h = 600;
		f[m].kind = HET_REP_G2;
		f[m++].idx = k;
	}
	for (k = 0; k < run->ntab; k++) {
		if (run->per_angle)
			snprintf(f[m].name, sizeof(f[m].name),
			    "params_%03zu", k);
		else
			snprintf(f[m].name, sizeof(f[m].name), "params");
		f[m].w = 1000;
		f[m].h = 110 + 22 * (int)run->tab[k].n;
		f[m].kind = HET_REP_PARAMS;
		f[m++].idx = k;
	}
	for (k = 0; run->has_cmc && k < run->p; k++)
		nphys += het_rep_physics(run->cmc_names[k]) != 0;
	if (run->has_cmc && run->ndraw > 0 && nphys > 0) {
		snprintf(f[m].name, sizeof(f[m].name), "posterior");
		f[m].w = 1200;
		f[m].h = 70 + 300 * (int)((nphys + 2) / 3);
		f[m++].kind = HET_REP_POST;
	}
	if ((rc = het_rep_corner_pick(run, &cn, err)) != HET_OK) {
		free(f);
		return rc;
	}
	if (cn.k >= 2) {
		snprintf(f[m].name, sizeof(f[m].name), "corner");
		het_rep_corner_size(cn.k, &f[m].w, &f[m].h);
		f[m++].kind = HET_REP_CORNER;
	}
	if (run->has_cmc && run->nshard > 0) {
		snprintf(f[m].name, sizeof(f[m].name), "shards");
		f[m].w = 300 + 190 * (int)run->nshard;
		f[m].h = 130 + 22 * (int)run->p;
		f[m++].kind = HET_REP_SHARDS;
		if (nphys > 0) {
			snprintf(f[m].name, sizeof(f[m].name), "traces");
			f[m].w = 1200;
			f[m].h = 70 + 170 * (int)nphys;
			f[m++].kind = HET_REP_TRACES;
		}
	}
	*out = f;
	*n = m;
	return HET_OK;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The q and 1 - q quantiles of the finite values of v, from every k-th
 * value (at most about RANGE_SAMPLE of them: a colour range needs no
 * more, and sorting all of a large matrix would dominate the report).
 */
static int
rep_range(const double *v, size_t n, double q, double *lo, double *hi,
    struct het_error *err)
{
	double *s;
	size_t k, m = 0;

	size_t step = n / RANGE_SAMPLE + 1;

	if ((s = het_alloc_array(n / step + 1, sizeof(double), "range",
	    err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < n; k += step)
		if (isfinite(v[k]))
			s[m++] = v[k];
	*lo = 0;
	*hi = 1;
	if (m > 0) {
		qsort(s, m, sizeof(double), dbl_cmp);
		*lo = s[(size_t)(q * (double)(m - 1))];
		*hi = s[(size_t)((1 - q) * (double)(m - 1) + 0.5)];
	}
	if (!(*hi > *lo)) {
		*lo -= 0.5;
		*hi += 0.5;
	}
	free(s);
	return HET_OK;
}

void
het_rep_cache_fini(struct het_rep_cache *c)
{
	free(c->model);
	free(c->data);
	free(c->resid);
	memset(c, 0, sizeof(*c));
}

static int rep_load(const struct het_results_run *run, size_t k,
    double **model, double **data, double **resid, size_t *n,
    struct het_error *err);

/*
 * The matrices of angle k: model, data, residual (NaN diagonals), kept
 * in c until another angle is asked for (the heatmaps and the cuts of
 * an angle are drawn one after the other).
 */
static int
rep_mats(const struct het_results_run *run, size_t k,
    struct het_rep_cache *c, struct het_error *err)
{
	int rc;

	if (c->model != NULL && c->angle == k)
		return HET_OK;
	het_rep_cache_fini(c);
	rc = rep_load(run, k, &c->model, &c->data, &c->resid, &c->n, err);
	if (rc != HET_OK)
		het_rep_cache_fini(c);
	else
		c->angle = k;
	return rc;
}

static int
rep_load(const struct het_results_run *run, size_t k, double **model,
    double **data, double **resid, size_t *n, struct het_error *err)
{
	const char *g = run->per_angle ? NULL : "fit";
	char grp[32];
	size_t nr = 0, i;
	int rc;

	*data = *resid = NULL;
	if (g == NULL) {
		snprintf(grp, sizeof(grp), "fit_angle_%03zu", k);
		g = grp;
	}
	if ((rc = het_results_load_matrix(run->file, g, "c2_fitted", k, model,
	    n, err)) != HET_OK)
		return rc;
	if ((rc = het_results_load_matrix(run->file, g, "residuals", k,
	    resid, &nr, err)) != HET_OK)
		return rc;
	if (nr != *n)
		return het_error_set(err, HET_EFORMAT, "%s: /%s: the residual "
		    "matrix of angle %zu has %zu frames, the fitted one %zu",
		    run->file, g, k, nr, *n);
	if ((*data = het_alloc_array(*n * *n, sizeof(double), "data",
	    err)) == NULL)
		return HET_ENOMEM;
	for (i = 0; i < *n * *n; i++)
		(*data)[i] = (*model)[i] - (*resid)[i];
	for (i = 0; i < *n; i++) {
		(*data)[i * *n + i] = NAN;
		(*resid)[i * *n + i] = NAN;
		(*model)[i * *n + i] = NAN;
	}
	return HET_OK;
}

/* The time of frame index i of the window (frame f at t = f dt). */
static double
rep_t(const struct het_results_run *run, double i)
{
	return ((double)run->first_frame + i) * run->dt;
}

/* One heatmap of the n x n matrix m at (x, y), t1 across, t2 up. */
static int
rep_heat(cairo_t *cr, const struct het_results_run *run, const double *m,
    size_t n, double x, double y, double lo, double hi, int div,
    const char *title)
{
	cairo_surface_t *img;
	struct het_rep_axis a;
	unsigned char *px;
	double rgb[3], v;
	size_t i, j;
	int stride;

	img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)n, (int)n);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return HET_ENOMEM;
	}
	cairo_surface_flush(img);
	px = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++) {
			uint32_t *p = (uint32_t *)(void *)(px + (size_t)stride *
			    (n - 1 - j)) + i;

			v = m[i * n + j];
			if (!isfinite(v)) {
				*p = 0xbfbfbfu;
				continue;
			}
			if (div)
				het_rep_dmap(v / hi, rgb);
			else
				het_rep_cmap((v - lo) / (hi - lo), rgb);
			*p = (uint32_t)lrint(rgb[0] * 255) << 16 |
			    (uint32_t)lrint(rgb[1] * 255) << 8 |
			    (uint32_t)lrint(rgb[2] * 255);
		}
	cairo_surface_mark_dirty(img);
	cairo_save(cr);
	cairo_rectangle(cr, x, y, HEAT_PANEL, HEAT_PANEL);
	cairo_clip(cr);
	cairo_translate(cr, x, y);
	cairo_scale(cr, (double)HEAT_PANEL / (double)n,
	    (double)HEAT_PANEL / (double)n);
	cairo_set_source_surface(cr, img, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
	cairo_paint(cr);
	cairo_restore(cr);
	cairo_surface_destroy(img);
	memset(&a, 0, sizeof(a));
	a.x = x;
	a.y = y;
	a.w = a.h = HEAT_PANEL;
	a.x0 = a.y0 = rep_t(run, -0.5);
	a.x1 = a.y1 = rep_t(run, (double)n - 0.5);
	het_rep_axes(cr, &a, "t1 (s)", "t2 (s)");
	het_rep_bar(cr, x + HEAT_PANEL + 10, y, 20, HEAT_PANEL, div ? -hi : lo,
	    hi, div);
	cairo_set_source_rgb(cr, 0, 0, 0);
	het_rep_font(cr, 15, 1);
	het_rep_text(cr, x + HEAT_PANEL / 2, y - 10, 0, "%s", title);
	return HET_OK;
}

static void
rep_title(cairo_t *cr, const struct het_results_run *run, const char *what)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
	het_rep_font(cr, 17, 1);
	het_rep_text(cr, 20, 30, -1, "%s", what);
	het_rep_font(cr, 13, 0);
	het_rep_text(cr, 20, 50, -1, "%s  q = %.5g 1/A  frames %ld-%ld, "
	    "dt = %g s  (%s)", run->mode, run->q, run->first_frame,
	    run->first_frame + (long)run->n_frames - 1, run->dt, run->status);
}

static int
rep_fig_heat(cairo_t *cr, const struct het_results_run *run, size_t k,
    struct het_rep_cache *c, struct het_error *err)
{
	double lo, hi, rlo, rhi;
	size_t n;
	char t[64];
	int rc;

	snprintf(t, sizeof(t), "c2, angle %zu: phi = %.4g deg", k,
	    run->phi[k]);
	rep_title(cr, run, t);
	if ((rc = rep_mats(run, k, c, err)) != HET_OK)
		return rc;
	n = c->n;
	if ((rc = rep_range(c->data, n * n, 0.005, &lo, &hi, err)) != HET_OK ||
	    (rc = rep_range(c->resid, n * n, 0.005, &rlo, &rhi, err)) !=
	    HET_OK)
		return rc;
	rhi = fmax(fabs(rlo), fabs(rhi));
	if (rep_heat(cr, run, c->data, n, HEAT_LEFT, HEAT_TOP, lo, hi, 0,
	    "data") != HET_OK ||
	    rep_heat(cr, run, c->model, n, HEAT_LEFT + HEAT_STEP, HEAT_TOP, lo,
	    hi, 0, "model") != HET_OK ||
	    rep_heat(cr, run, c->resid, n, HEAT_LEFT + 2 * HEAT_STEP, HEAT_TOP,
	    rlo, rhi, 1, "residual (model - data)") != HET_OK)
		return het_error_set(err, HET_ENOMEM, "out of memory drawing "
		    "a heatmap");
	return HET_OK;
}

/* The cut of m at age index a: lag k pairs (a - k/2, a - k/2 + k). */
static size_t
rep_cut(const double *m, size_t n, size_t a, double *lag, double *v,
    double dt)
{
	size_t k, c = 0;

	for (k = 1; k < n; k++) {
		size_t i, j;

		if (k / 2 > a)
			break;
		i = a - k / 2;
		j = i + k;
		if (j >= n)
			break;
		lag[c] = (double)k * dt;
		v[c++] = m[i * n + j];
	}
	return c;
}

static int
rep_fig_g2(cairo_t *cr, const struct het_results_run *run, size_t k,
    struct het_rep_cache *cache, struct het_error *err)
{
	static const double frac[4] = { 0.2, 0.4, 0.6, 0.8 };
	double *model, *data, *lag = NULL, *v = NULL;
	double lo = INFINITY, hi = -INFINITY;
	struct het_rep_axis a;
	size_t n = 0, c, s, i, age[4];
	char t[64];
	int rc;

	snprintf(t, sizeof(t), "g2 cuts, angle %zu: phi = %.4g deg", k,
	    run->phi[k]);
	rep_title(cr, run, t);
	if ((rc = rep_mats(run, k, cache, err)) != HET_OK)
		return rc;
	model = cache->model;
	data = cache->data;
	n = cache->n;
	if ((lag = het_alloc_array(n, sizeof(double), "cut", err)) == NULL ||
	    (v = het_alloc_array(n, sizeof(double), "cut", err)) == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (s = 0; s < 4; s++) {
		age[s] = (size_t)(frac[s] * (double)(n - 1));
		for (i = 0; i < 2; i++) {
			size_t q, m = rep_cut(i ? model : data, n, age[s], lag,
			    v, run->dt);

			for (q = 0; q < m; q++)
				if (isfinite(v[q])) {
					lo = fmin(lo, v[q]);
					hi = fmax(hi, v[q]);
				}
		}
	}
	if (!(hi > lo)) {
		lo = isfinite(lo) ? lo - 0.5 : 0;
		hi = lo + 1;
	}
	memset(&a, 0, sizeof(a));
	a.x = 90;
	a.y = 70;
	a.w = 600;
	a.h = 450;
	a.xlog = 1;
	a.x0 = run->dt * 0.8;
	a.x1 = run->dt * (double)n;
	a.y0 = lo - 0.05 * (hi - lo);
	a.y1 = hi + 0.05 * (hi - lo);
	cairo_save(cr);
	cairo_rectangle(cr, a.x, a.y, a.w, a.h);
	cairo_clip(cr);
	cairo_set_line_width(cr, 1.5);
	for (s = 0; s < 4; s++) {
		het_rep_series(cr, s);
		c = rep_cut(data, n, age[s], lag, v, run->dt);
		for (i = 0; i < c; i++) {
			cairo_arc(cr, het_rep_px(&a, lag[i]),
			    het_rep_py(&a, v[i]), 2.2, 0, 2 * M_PI);
			cairo_fill(cr);
		}
		c = rep_cut(model, n, age[s], lag, v, run->dt);
		for (i = 0; i < c; i++) {
			if (i == 0)
				cairo_move_to(cr, het_rep_px(&a, lag[i]),
				    het_rep_py(&a, v[i]));
			else
				cairo_line_to(cr, het_rep_px(&a, lag[i]),
				    het_rep_py(&a, v[i]));
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	het_rep_axes(cr, &a, "lag t2 - t1 (s)", "c2 (g2 at the age)");
	het_rep_font(cr, 13, 0);
	for (s = 0; s < 4; s++) {
		het_rep_series(cr, s);
		cairo_arc(cr, 722, 100 + 26 * (double)s - 4, 3, 0, 2 * M_PI);
		cairo_fill(cr);
		cairo_move_to(cr, 732, 100 + 26 * (double)s - 4);
		cairo_line_to(cr, 752, 100 + 26 * (double)s - 4);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		het_rep_text(cr, 760, 100 + 26 * (double)s, -1, "age %.4g s",
		    rep_t(run, (double)age[s]));
	}
	het_rep_text(cr, 712, 220, -1, "points: data");
	het_rep_text(cr, 712, 240, -1, "lines: model");
	rc = HET_OK;
out:
	free(lag);
	free(v);
	return rc;
}

/* The flags of row r: held, degenerate, at a bound. */
static void
rep_flags(const struct het_results_table *t, size_t r, char *buf,
    size_t len)
{
	double span = t->hi[r] - t->lo[r], eps = 1e-6 * (isfinite(span) ?
	    fabs(span) : fmax(1, fabs(t->value[r])));

	buf[0] = '\0';
	if (t->vary[r] == 0)
		snprintf(buf, len, "held");
	else if (t->degen[r] != 0)
		snprintf(buf, len, "degenerate");
	if (t->vary[r] != 0 && (t->value[r] <= t->lo[r] + eps ||
	    t->value[r] >= t->hi[r] - eps))
		snprintf(buf + strlen(buf), len - strlen(buf), "%sat bound",
		    buf[0] != '\0' ? ", " : "");
}

static int
rep_fig_params(cairo_t *cr, const struct het_results_run *run, size_t k)
{
	static const char *const head[7] = { "parameter", "value",
	    "uncertainty", "lower", "upper", "unit", "flags" };
	static const double col[7] = { 20, 200, 330, 460, 580, 700, 800 };
	const struct het_results_table *t = &run->tab[k];
	char b[7][64], title[96];
	size_t r, c;
	double y;

	if (run->per_angle)
		snprintf(title, sizeof(title), "Parameters, angle %zu "
		    "(phi = %.4g deg)", k, run->phi[k]);
	else
		snprintf(title, sizeof(title), "Parameters of the joint fit");
	rep_title(cr, run, title);
	het_rep_font(cr, 13, 0);
	het_rep_text(cr, 20, 72, -1, "reduced chi-square %.5g, %s", t->chi2_red,
	    t->converged == 1 ? "converged" : t->converged == 0 ?
	    "not converged" : "convergence unknown");
	het_rep_font(cr, 13, 1);
	for (c = 0; c < 7; c++)
		het_rep_text(cr, col[c], 100, -1, "%s", head[c]);
	het_rep_font(cr, 13, 0);
	for (r = 0; r < t->n; r++) {
		y = 100 + 22 * (double)(r + 1);
		if (r % 2 == 0) {
			cairo_set_source_rgb(cr, 0.94, 0.95, 0.97);
			cairo_rectangle(cr, 14, y - 16, 972, 22);
			cairo_fill(cr);
		}
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(b[0], sizeof(b[0]), "%s", t->name[r]);
		het_rep_num(b[1], sizeof(b[1]), t->value[r], 6);
		het_rep_num(b[2], sizeof(b[2]), t->unc[r], 3);
		het_rep_num(b[3], sizeof(b[3]), t->lo[r], 4);
		het_rep_num(b[4], sizeof(b[4]), t->hi[r], 4);
		snprintf(b[5], sizeof(b[5]), "%s", t->unit[r]);
		rep_flags(t, r, b[6], sizeof(b[6]));
		for (c = 0; c < 7; c++)
			het_rep_text(cr, col[c], y, -1, "%s", b[c]);
	}
	return HET_OK;
}

int
het_rep_draw(cairo_t *cr, const struct het_results_run *run,
    const struct het_rep_fig *f, struct het_rep_cache *c,
    struct het_error *err)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	switch (f->kind) {
	case HET_REP_HEAT:
		return rep_fig_heat(cr, run, f->idx, c, err);
	case HET_REP_G2:
		return rep_fig_g2(cr, run, f->idx, c, err);
	case HET_REP_PARAMS:
		return rep_fig_params(cr, run, f->idx);
	default:
		return het_rep_draw_post(cr, run, f, err);
	}
}
