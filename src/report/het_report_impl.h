/*
 * het_report_impl.h: what the files of the report module share: the
 * list of figures, the drawing of each (het_report_fig.c, _post.c) and
 * the plotting primitives (het_report_draw.c).
 */
#ifndef HET_REPORT_IMPL_H
#define HET_REPORT_IMPL_H

#include <stddef.h>

#include <cairo.h>

#include "het_error.h"
#include "het_results_run.h"
#include "het_rings.h"

struct het_rep_axis;

/* UTF-8 symbols of the figures' text (DejaVu Sans has them). */
#define HET_REP_PM	"\xc2\xb1"		/* plus-minus */
#define HET_REP_GE	"\xe2\x89\xa5"	/* greater or equal */
#define HET_REP_GAMMA	"\xce\x93"		/* capital gamma */
#define HET_REP_SQ	"\xc2\xb2"		/* superscript two */
#define HET_REP_ANG	"\xc3\x85"		/* angstrom */

enum het_rep_kind {
	HET_REP_HEAT, HET_REP_G2, HET_REP_PARAMS, HET_REP_POST,
	HET_REP_CORNER, HET_REP_SHARDS, HET_REP_TRACES, HET_REP_BATCH
};

/* One figure: its file stem, pixel size and what it draws. */
struct het_rep_fig {
	char		 name[32];
	int		 w, h;
	enum het_rep_kind kind;
	size_t		 idx;		/* angle or table */
};

/* het_rep_figs: the figures of run into a new array (*n of them). */
int het_rep_figs(const struct het_results_run *run,
    struct het_rep_fig **out, size_t *n, struct het_error *err);

/* The matrices of the last angle drawn (zeroed to start). */
struct het_rep_cache {
	size_t		 angle, n;
	double		*model, *data, *resid;	/* n x n, NaN diagonals */
};
void het_rep_cache_fini(struct het_rep_cache *c);

/*
 * het_rep_draw: draw figure f of run on cr (white background first),
 * with the matrices of c or read into it.
 */
int het_rep_draw(cairo_t *cr, const struct het_results_run *run,
    const struct het_rep_fig *f, struct het_rep_cache *c,
    struct het_error *err);
int het_rep_draw_post(cairo_t *cr, const struct het_results_run *run,
    const struct het_rep_fig *f, struct het_error *err);

/* 1 when name is a physics parameter (not contrast or offset). */
int het_rep_physics(const char *name);
/* The title and the run line of a posterior figure. */
void het_rep_post_header(cairo_t *cr, const struct het_results_run *run,
    const char *what);

/* ---- the corner plot (het_report_corner.c) ---- */

#define HET_REP_CORNER_R	0.5	/* |r| of a strong pair */
#define HET_REP_CORNER_MAX	6	/* parameters shown at most */
#define HET_REP_CORNER_FEW	4	/* ... when no pair is strong */

/* The parameters a corner plot shows and why. */
struct het_rep_corner {
	size_t	 k;				/* parameters shown */
	size_t	 idx[HET_REP_CORNER_MAX];	/* their columns of the
						   draws, in order */
	double	 r[HET_REP_CORNER_MAX][HET_REP_CORNER_MAX];
	size_t	 nphys;				/* physics parameters */
	size_t	 npairs;			/* their pairs */
	size_t	 npass;				/* with |r| >= _R */
	int	 fallback;			/* 1: none passed */
	int	 cut;				/* 1: a passing pair was
						   left out (the limit) */
};

/*
 * het_rep_corner_pick: the parameters of run's corner plot, from the
 * correlation matrix of its consensus draws (het_report_corner.c says
 * how).  c->k is 0 when there are fewer than two physics parameters or
 * draws: no corner plot.  Returns HET_OK or HET_ENOMEM.
 */
int het_rep_corner_pick(const struct het_results_run *run,
    struct het_rep_corner *c, struct het_error *err);
/* het_rep_corner_size: the pixel size of a corner plot of k. */
void het_rep_corner_size(size_t k, int *w, int *h);
int het_rep_draw_corner(cairo_t *cr, const struct het_results_run *run,
    struct het_error *err);

/* ---- a batch folder (het_report_batch.c) ---- */

/*
 * het_rep_batch_figs: the figures of the batch table t read from file
 * (named in messages): one per plotted column with a converged value.
 * Returns HET_OK; HET_EDATA (no rows, or no converged value to draw);
 * HET_ENOMEM.
 */
int het_rep_batch_figs(const struct het_rings *t, const char *file,
    struct het_rep_fig **out, size_t *n, struct het_error *err);
int het_rep_draw_batch(cairo_t *cr, const struct het_rings *t,
    const char *file, const struct het_rep_fig *f, struct het_error *err);

/* ---- primitives (het_report_draw.c) ---- */

/*
 * A plot area in pixels and the data ranges it shows.  Zeroed, the
 * fields after the ranges give linear axes, their ticks numbered in 12
 * px type.
 */
struct het_rep_axis {
	double	 x, y, w, h;
	double	 x0, x1, y0, y1;
	int	 xlog, ylog;	/* logarithmic axes (ranges > 0) */
	double	 xstep;		/* > 0: the smallest x tick step (1 for
				   whole numbers) */
	int	 nolabel;	/* HET_REP_NOX, HET_REP_NOY: ticks without
				   numbers on that axis */
	double	 tick_px;	/* tick number size, 0: 12 px */
	double	 nticks;	/* the tick step is a nice number
				   near range / nticks, 0: 4 */
};

#define HET_REP_NOX	1
#define HET_REP_NOY	2

/* The font (sans, hinting off) at size px, bold or not. */
void het_rep_font(cairo_t *cr, double size, int bold);
/* Text at (x, y) baseline; align -1 left, 0 centre, 1 right. */
void het_rep_text(cairo_t *cr, double x, double y, int align,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The viridis map at t in [0, 1]; the diverging map at t in [-1, 1]. */
void het_rep_cmap(double t, double rgb[3]);
void het_rep_dmap(double t, double rgb[3]);
double het_rep_px(const struct het_rep_axis *a, double v);
double het_rep_py(const struct het_rep_axis *a, double v);
/*
 * The frame, ticks and tick labels of a, and the two axis labels (NULL:
 * none).  A logarithmic axis has decade ticks, or over less than two
 * decades 1-2-5 ticks, or over less than those linear steps at their
 * logarithmic places; tick numbers get the digits that tell them apart.
 */
void het_rep_axes(cairo_t *cr, const struct het_rep_axis *a,
    const char *xlabel, const char *ylabel);
/* A "nice" tick step (1, 2 or 5 times a power of ten) of about range / n. */
double het_rep_step(double range, double n);
/* A vertical colour bar at (x, y, w, h) from lo (bottom) to hi. */
void het_rep_bar(cairo_t *cr, double x, double y, double w, double h,
    double lo, double hi, int diverging);
/* The colour of series k (a fixed palette). */
void het_rep_series(cairo_t *cr, size_t k);
/* Shortest %g of v with at most prec digits, "-" when not finite. */
void het_rep_num(char *buf, size_t len, double v, int prec);

#endif /* HET_REPORT_IMPL_H */
