/*
 * ui_p_data.h: private to the Data panel (ui_p_data.c: file summary, bins
 * table, requests, events and keys; ui_p_data_heat.c: the heatmap with
 * its time axis, cursor read-out, zoom and the chart below it;
 * ui_p_data_mt.c: the multitau view).  Include
 * after ui.h.  Loop thread only.
 */
#ifndef HET_UI_P_DATA_H
#define HET_UI_P_DATA_H

#include "het_io.h"
#include "ui_heat.h"

#define LEFT_MIN	40	/* left column width at 80 columns */
#define SUMMARY_ROWS	6
#define AXIS_ROWS	1	/* the time axis under the heatmap */
#define VALUE_ROWS	2	/* the cursor read-out */
#define SPARK_ROWS	3
#define LEGEND_COLS	2
#define LEGEND_LABEL	11
#define ZOOM_MAX	16	/* windows remembered for zooming out */
#define ZOOM_MIN	8	/* frames of the narrowest zoom */

struct data_mt;		/* the multitau view: ui_p_data_mt.c */

/* The chart under the heatmap (key c cycles them). */
enum data_chart {
	DC_ONETIME,	/* g2(tau): the mean along each lag */
	DC_AGE,		/* g2(tau) at the cursor's age */
	DC_LAG,		/* c2 against age at the cursor's lag */
	DC_COUNT
};

struct data_state {
	int		 rows, cols;	/* body size */
	int		 left;		/* left column width */
	int		 heat;		/* the heatmap has the focus */
	size_t		 top;		/* first table row shown (ring index) */
	/* Heatmap geometry (body coordinates) and the grid it wants. */
	int		 hy, hx, hh, hw;
	size_t		 want_rows, want_cols;
	/* Last request and the view on screen (owned). */
	unsigned long	 gen;
	size_t		 req_bin, req_rows, req_cols;
	long		 req_first, req_last;
	int		 requested;
	struct het_io_view *view;
	char		*error;		/* last view failure */
	/* Scale and levels of the view. */
	int		 logscale;
	struct ui_heat_scale sc;
	unsigned char	*lvl;
	/* Cursor in window frame indices (0 .. n-1). */
	size_t		 ci, cj;
	enum data_chart	 chart;
	int		 frames_axis;	/* frame numbers instead of seconds */
	/* Zoom: a frame window inside the selection's (0: none), and the
	   windows zoomed out of. */
	long		 zfirst, zlast;
	long		 zstack[ZOOM_MAX][2];
	int		 nzoom;
	struct data_mt	*mt;		/* the file's multitau g2, or NULL */
	/* The model the last request asked for (owned, NULL: none), and
	   the note of the last view, logged when it changes. */
	char		*req_model;
	char		*model_note;
};

/* ui_p_data.c */
void data_request(struct ui *ui, struct data_state *s);
void data_fmt_num(char *buf, size_t len, double v);

/* ui_p_data_heat.c */
size_t data_block_of(size_t i, size_t p, size_t n);
/* The cursor's age block and lag (frames) in the view's age_lag. */
void data_cursor_age_lag(const struct data_state *s, size_t *a, size_t *k);
void data_draw_heat(struct ui *ui, struct data_state *s, WINDOW *w);
int data_heat_key(struct ui *ui, struct data_state *s, int key);
void data_zoom_reset(struct data_state *s);
/* The frame window the panel shows: the zoom, else the selection's. */
void data_window(const struct ui *ui, const struct data_state *s,
    long *first, long *last);

/*
 * ui_p_data_mt.c: the multitau view (the file's g2(tau) per q bin with
 * its fits, and the rates against q^2 with D).  data_mt_event takes a
 * HET_IO_EV_MULTITAU payload; data_mt_shown says whether the view
 * replaces the two-time one (always for a multitau-only file, after m
 * beside two-time data); data_mt_key takes m and, while shown, the
 * view's keys (1 when taken); data_mt_hints and data_mt_help: the
 * footer and the help then (NULL otherwise); data_mt_free drops the
 * view.
 */
void data_mt_event(struct ui *ui, struct data_state *s,
    struct het_event *ev);
int data_mt_shown(const struct ui *ui, const struct data_state *s);
void data_mt_draw(struct ui *ui, struct data_state *s, WINDOW *w);
int data_mt_key(struct ui *ui, struct data_state *s, int key);
const struct ui_hint *data_mt_hints(const struct ui *ui, const void *state);
const char *data_mt_help(const struct ui *ui, const void *state);
void data_mt_free(struct data_state *s);

/*
 * ui_p_data_cut.c: the fitted model over a cut.  data_cut_model: the
 * model's values of the cut shown (the same row or column of the view's
 * model_al as the data's) in tmp (nage values), *n of them, widening
 * [*lo, *hi] to their range; NULL when the chart is no cut or the view
 * has no model.  data_cut_legend: the model's marks over the chart at
 * (sy, x) of h rows and wd columns, and the legend in the label column
 * lx: the model's glyph, or why there is none ("no fit yet", ...).
 * data_cut_note: log the view's note when it changed.
 */
const double *data_cut_model(const struct data_state *s, double *tmp,
    size_t *n, double *lo, double *hi);
void data_cut_legend(struct ui *ui, const struct data_state *s, WINDOW *w,
    int sy, int lx, const double *mvals, size_t n, int logx, double lo,
    double hi);
void data_cut_note(struct ui *ui, struct data_state *s);

#endif /* HET_UI_P_DATA_H */
