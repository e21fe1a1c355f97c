#include "config.h"
/*
 * t_report_corner.c: the corner plot of hetui report on posteriors of
 * known correlations (draws of correlated normals from a fixed
 * generator, no sampler): which parameters het_rep_corner_pick chooses
 * and in what order (the strong pairs strongest first; the limit of
 * six, with the pair that would pass it left out; the scaling
 * parameters never; ties by column; the strongest pairs when none is
 * strong, at most four; nothing below two physics parameters or two
 * draws; r of a constant column 0), the r it reports, and the figure:
 * its size, the NLSQ line where a value below every draw must be (4 %
 * of the span inside the panel), the upper cells tinted red for a
 * positive and blue for a negative r, dots for few draws and none for
 * many, the 2-D histogram's shading, white outside the panels, and the
 * same pixels twice.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "het_report_impl.h"
#include "tap.h"

#define MAXP	12

/*
 * Colours as cairo stores them in 8 bits (the 16-bit value d * 65535 +
 * 0.5, its high byte): the NLSQ red 0.84 0.10 0.11 is 215 25 28, the
 * dots' 0.10 0.10 0.30 is 25 25 76.
 */
/* A fixed generator: 64-bit LCG, standard normals by Box-Muller. */
static uint64_t seed = 88172645463325252ULL;

static double
unif(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/*
 * A run of p parameters named names, n draws: column k is
 * rho[k] * column of[k] + sqrt(1 - rho^2) * noise (of[k] < 0: noise),
 * scaled by 100 and shifted by 10 k; nlsq below every draw.
 */
static void
mkrun(struct het_results_run *run, size_t p, const char *const *names,
    size_t n, const int *of, const double *rho)
{
	size_t i, k;
	double lo;

	memset(run, 0, sizeof(*run));
	run->has_cmc = 1;
	run->p = p;
	run->ndraw = n;
	run->cmc_names = calloc(p, sizeof(char *));
	run->nlsq = calloc(p, sizeof(double));
	run->draws = calloc(n * p, sizeof(double));
	snprintf(run->mode, sizeof(run->mode), "two_component");
	snprintf(run->cmc_status, sizeof(run->cmc_status), "passed");
	for (k = 0; k < p; k++)
		run->cmc_names[k] = strdup(names[k]);
	for (i = 0; i < n; i++)
		for (k = 0; k < p; k++) {
			double z = normal(), *d = &run->draws[i * p];

			d[k] = of[k] < 0 ? z : rho[k] * d[of[k]] +
			    sqrt(fmax(0, 1 - rho[k] * rho[k])) * z;
		}
	for (i = 0; i < n; i++)
		for (k = 0; k < p; k++)
			run->draws[i * p + k] = 10 * (double)k + 100 *
			    run->draws[i * p + k];
	for (k = 0; k < p; k++) {
		for (i = 0, lo = INFINITY; i < n; i++)
			lo = fmin(lo, run->draws[i * p + k]);
		run->nlsq[k] = lo - 50;
	}
}

static const char *const phys[MAXP] = {
	"D0_ref", "alpha_ref", "D_offset_ref", "D0_sample", "alpha_sample",
	"D_offset_sample", "v0", "beta", "contrast[0]", "offset[0]", "f0",
	"f1"
};

/* The RGB of pixel (x, y) of an RGB24 surface. */
static void
px(cairo_surface_t *s, int x, int y, int rgb[3])
{
	uint32_t p = *(uint32_t *)(void *)(cairo_image_surface_get_data(s) +
	    (size_t)y * (size_t)cairo_image_surface_get_stride(s) +
	    (size_t)x * 4);

	rgb[0] = (int)(p >> 16 & 255);
	rgb[1] = (int)(p >> 8 & 255);
	rgb[2] = (int)(p & 255);
}

/* Pixels of [x0, x1) x [y0, y1): not white (white 0) or of rgb. */
static long
count(cairo_surface_t *s, int x0, int y0, int x1, int y1, int r, int g,
    int b)
{
	int x, y, c[3];
	long n = 0;

	for (y = y0; y < y1; y++)
		for (x = x0; x < x1; x++) {
			px(s, x, y, c);
			if (r < 0 ? !(c[0] == 255 && c[1] == 255 &&
			    c[2] == 255) : c[0] == r && c[1] == g && c[2] == b)
				n++;
		}
	return n;
}

static cairo_surface_t *
draw(const struct het_results_run *run, size_t k)
{
	struct het_error err;
	cairo_surface_t *s;
	cairo_t *cr;
	int w, h;

	het_rep_corner_size(k, &w, &h);
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cr = cairo_create(s);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	ok(het_rep_draw_corner(cr, run, &err) == HET_OK, "drawn");
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return s;
}

/* Panel (i, j)'s left and top edge. */
#define PX(j)	(110 + 224 * (j))
#define PY(i)	(140 + 224 * (i))

static void
test_strong(void)
{
	/* Pairs (0,1) r .95, (2,3) .85, (4,5) -.75, (6,7) .65; contrast[0]
	   follows column 0 with r .99; offset[0], f0, f1 are noise. */
	static const int of[MAXP] = { -1, 0, -1, 2, -1, 4, -1, 6, 0, -1, -1,
	    -1 };
	static const double rho[MAXP] = { 0, 0.95, 0, 0.85, 0, -0.75, 0,
	    0.65, 0.99, 0, 0, 0 };
	struct het_results_run run;
	struct het_rep_corner c;
	struct het_error err;
	cairo_surface_t *s, *s2;
	size_t k;
	long n;
	int rgb[3], w, h;

	mkrun(&run, MAXP, phys, 5000, of, rho);
	ok(het_rep_corner_pick(&run, &c, &err) == HET_OK, "pick");
	is_int((long long)c.nphys, 10, "10 physics parameters (contrast and "
	    "offset are not)");
	is_int((long long)c.npairs, 45, "45 pairs");
	is_int((long long)c.npass, 4, "4 pairs with |r| >= 0.5");
	ok(!c.fallback && c.cut, "no fallback; a passing pair left out by "
	    "the limit");
	is_int((long long)c.k, 6, "six parameters, the limit");
	for (k = 0; k < 6 && k < c.k; k++)
		is_int((long long)c.idx[k], (long long)k, "parameter %zu: %s",
		    k, phys[k]);
	is_double(c.r[0][1], 0.95, 0.01, "r of D0_ref, alpha_ref: 0.95");
	is_double(c.r[2][3], 0.85, 0.015, "r of D_offset_ref, D0_sample");
	is_double(c.r[4][5], -0.75, 0.02, "r of alpha_sample, "
	    "D_offset_sample: -0.75");
	is_double(c.r[1][0], c.r[0][1], 0, "symmetric");
	is_double(c.r[3][3], 1, 0, "1 on the diagonal");
	ok(fabs(c.r[0][2]) < 0.05, "independent pair: |r| < 0.05");

	s = draw(&run, c.k);
	het_rep_corner_size(6, &w, &h);
	is_int(cairo_image_surface_get_width(s), 1494, "width: 6 panels");
	is_int(cairo_image_surface_get_height(s), 1544, "height: 6 panels");
	/* nlsq = min - 50 with a span of about 750: the NLSQ line stands
	   0.04 / 1.08 of the panel (7.8 px) inside the left edge. */
	px(s, PX(0) + 7, PY(0) + 100, rgb);
	ok(rgb[0] == 215 && rgb[1] == 25 && rgb[2] == 28,
	    "the NLSQ line in the first marginal, 7 px in (%d %d %d)",
	    rgb[0], rgb[1], rgb[2]);
	px(s, PX(0) + 7, PY(3) + 100, rgb);
	ok(rgb[0] == 215 && rgb[1] == 25 && rgb[2] == 28,
	    "... and across the pair panel below it");
	px(s, PX(0) + 100, PY(1) + 210 - 8, rgb);
	ok(rgb[0] == 215 && rgb[1] == 25 && rgb[2] == 28,
	    "alpha_ref's NLSQ line across its panels, 8 px over the bottom");
	px(s, PX(1) + 4, PY(0) + 4, rgb);
	ok(rgb[0] > rgb[2] + 30, "r 0.95: the upper cell is red (%d %d %d)",
	    rgb[0], rgb[1], rgb[2]);
	px(s, PX(5) + 4, PY(4) + 4, rgb);
	ok(rgb[2] > rgb[0] + 30, "r -0.75: the upper cell is blue "
	    "(%d %d %d)", rgb[0], rgb[1], rgb[2]);
	px(s, PX(2) + 4, PY(0) + 4, rgb);
	ok(abs(rgb[0] - rgb[2]) < 30 && rgb[0] > 200 && rgb[0] < 255,
	    "r near 0: a pale grey cell (%d %d %d)", rgb[0], rgb[1], rgb[2]);
	is_int(count(s, PX(0) + 9, PY(1), PX(0) + 210, PY(1) + 200, 25, 25,
	    76), 0, "5000 draws: no dots");
	n = count(s, PX(0) + 9, PY(2), PX(0) + 210, PY(2) + 200, -1, 0, 0);
	ok(n > 12000 && n < 40200, "independent pair: the 2-D histogram "
	    "shades a disc (%ld of 40200 pixels)", n);
	is_int(count(s, PX(6), 130, 1494, 1544, -1, 0, 0), 0,
	    "white right of the grid");
	s2 = draw(&run, c.k);
	ok(memcmp(cairo_image_surface_get_data(s),
	    cairo_image_surface_get_data(s2), (size_t)h *
	    (size_t)cairo_image_surface_get_stride(s)) == 0,
	    "the same pixels twice");
	cairo_surface_destroy(s);
	cairo_surface_destroy(s2);
	het_results_run_clear(&run);
}

static void
test_weak(void)
{
	/* Three physics parameters, (1,2) r .3, the rest independent. */
	static const int of[4] = { -1, -1, 1, -1 };
	static const double rho[4] = { 0, 0, 0.3, 0 };
	static const char *const nm[4] = { "D0", "alpha", "D_offset",
	    "contrast[0]" };
	struct het_results_run run;
	struct het_rep_corner c;
	struct het_error err;
	cairo_surface_t *s;
	long n;

	mkrun(&run, 4, nm, 300, of, rho);
	ok(het_rep_corner_pick(&run, &c, &err) == HET_OK, "weak: pick");
	ok(c.fallback && c.npass == 0, "no pair is strong: the fallback");
	is_int((long long)c.k, 3, "the three parameters (at most four)");
	ok(c.k == 3 && c.idx[0] == 1 && c.idx[1] == 2 && c.idx[2] == 0,
	    "strongest pair first: alpha, D_offset, then D0");
	is_double(c.r[0][1], 0.3, 0.12, "r of alpha, D_offset about 0.3");
	s = draw(&run, c.k);
	is_int(cairo_image_surface_get_width(s), 1100, "width: at least "
	    "1100 for the text");
	is_int(cairo_image_surface_get_height(s), 872, "height: 3 panels");
	n = count(s, PX(0) + 9, PY(1), PX(0) + 210, PY(1) + 200, 25, 25, 76);
	ok(n > 100, "300 draws: a dot each (%ld pixels of the dots' "
	    "colour)", n);
	cairo_surface_destroy(s);
	het_results_run_clear(&run);
}

static void
test_edges(void)
{
	static const int of[4] = { -1, 0, -1, 2 };
	static const double rho[4] = { 0, 1, 0, 1 };
	static const char *const nm[4] = { "v0", "beta", "f0", "f1" };
	static const char *const one[2] = { "D0", "contrast[0]" };
	struct het_results_run run;
	struct het_rep_corner c;
	struct het_error err;
	size_t i;

	/* Two exact copies: two pairs of |r| = 1, ranked by column. */
	mkrun(&run, 4, nm, 200, of, rho);
	het_rep_corner_pick(&run, &c, &err);
	ok(c.k == 4 && c.idx[0] == 0 && c.idx[1] == 1 && c.idx[2] == 2 &&
	    c.idx[3] == 3, "ties of |r|: by column");
	is_double(c.r[0][1], 1, 1e-12, "a copy: r 1");
	/* A constant column: r 0, not NaN; f1, its copy, is left alone. */
	for (i = 0; i < run.ndraw; i++)
		run.draws[i * 4 + 2] = 5.5;
	het_rep_corner_pick(&run, &c, &err);
	ok(c.npass == 1 && c.k == 2 && !c.fallback, "a constant parameter: "
	    "one strong pair left");
	run.p = 2;
	for (i = 0; i < run.ndraw; i++) {
		run.draws[2 * i] = 5.5;
		run.draws[2 * i + 1] = run.draws[4 * i + 3];
	}
	het_rep_corner_pick(&run, &c, &err);
	ok(c.k == 2 && c.fallback && c.r[0][1] == 0 && c.r[1][0] == 0,
	    "a constant and another: r 0, not NaN (the fallback)");
	run.p = 4;
	run.ndraw = 1;
	het_rep_corner_pick(&run, &c, &err);
	is_int((long long)c.k, 0, "one draw: no corner plot");
	run.ndraw = 200;
	run.has_cmc = 0;
	het_rep_corner_pick(&run, &c, &err);
	is_int((long long)c.k, 0, "a fit: no corner plot");
	het_results_run_clear(&run);
	mkrun(&run, 2, one, 100, of, rho);
	het_rep_corner_pick(&run, &c, &err);
	ok(c.k == 0 && c.nphys == 1, "one physics parameter: none");
	het_results_run_clear(&run);
}

int
main(void)
{
	plan_lazy();
	test_strong();
	test_weak();
	test_edges();
	return exit_status();
}
