/*
 * ui_heat.h: drawing of the c2 heatmap, its colour legend and the
 * one-time projection sparkline.  Pure rendering: the numbers come from
 * the I/O thread's grid; nothing here reads files or allocates per frame
 * beyond what the caller hands in.  Loop thread only.
 */
#ifndef HET_UI_HEAT_H
#define HET_UI_HEAT_H

#include <stddef.h>

#include "ui_term.h"

/* Rendering mode of a heatmap pixel. */
enum ui_heat_mode {
	UI_HEAT_HALF = 1,	/* "▀" with fg/bg colours: 2 pixels per cell */
	UI_HEAT_SHADE		/* one ASCII shade per cell (coloured if able) */
};

/* The scale of a grid as shown: levels per cell and the label range. */
struct ui_heat_scale {
	int	nlev;		/* number of levels (ramp or shades) */
	int	logscale;	/* log10(c2 - offset) */
	double	offset;		/* subtracted in log mode */
	double	lo, hi;		/* range in display units (log10 in log) */
	double	vlo, vhi;	/* the same range in c2 (or c2-offset) units */
};

/* ui_heat_mode_for: the mode the terminal supports. */
enum ui_heat_mode ui_heat_mode_for(const struct ui_term *t);

/*
 * ui_heat_levels: map n grid values to levels 0 .. nlev-1 in lvl.
 * In log mode values <= offset map to level 0.  Fills sc->lo/hi/vlo/vhi.
 */
void ui_heat_levels(const double *grid, size_t n, struct ui_heat_scale *sc,
    unsigned char *lvl);

/*
 * ui_heat_draw: draw a rows x cols level grid into th x tw text cells at
 * (y, x) of w, nearest-neighbour scaled, grid row 0 at the bottom.  The
 * cell (cur_r, cur_c) is drawn in the cursor colour (or reversed).
 */
void ui_heat_draw(WINDOW *w, int y, int x, int th, int tw,
    enum ui_heat_mode mode, const unsigned char *lvl, size_t rows,
    size_t cols, int nlev, long cur_r, long cur_c);

/* ui_heat_legend: a vertical colour bar, maximum at the top. */
void ui_heat_legend(WINDOW *w, int y, int x, int th, int tw,
    enum ui_heat_mode mode, int nlev);

/* ui_heat_shade_levels: the number of levels of the ASCII shade ramp. */
int ui_heat_shade_levels(void);

/*
 * ui_spark: a h-row bar chart of vals[0 .. n-1] over wd columns, column k
 * showing the mean of the values whose log-spaced lag range falls in it
 * (lags 1 .. n; vals[i] is lag i + 1).  Range [lo, hi].  Non-finite
 * values are left out; a column with none is blank.
 * ui_spark_lin: the same on a linear axis (column k: the values with
 * index in [k n / wd, (k + 1) n / wd), at least one).
 */
void ui_spark(WINDOW *w, int y, int x, int h, int wd, const double *vals,
    size_t n, double lo, double hi);
void ui_spark_lin(WINDOW *w, int y, int x, int h, int wd,
    const double *vals, size_t n, double lo, double hi);

/*
 * ui_spark_marks: a second series over a chart of the same geometry:
 * in each column the model glyph (struct ui_glyphs) in the model colour
 * at the row of the column's mean, the same columns as ui_spark (logx)
 * or ui_spark_lin.  Returns the columns marked.
 */
int ui_spark_marks(WINDOW *w, int y, int x, int h, int wd,
    const double *vals, size_t n, double lo, double hi, int logx);

#endif /* HET_UI_HEAT_H */
