/*
 * ui_p_sample.h: private to the Sampling panel (ui_p_sample.c: settings,
 * the run, keys; ui_p_sample_draw.c: drawing) and the Results panel
 * (ui_p_results.c), which share the plotting helpers and number
 * formatting below.  Include after ui.h.  Loop thread only.
 */
#ifndef HET_UI_P_SAMPLE_H
#define HET_UI_P_SAMPLE_H

#include "het_sample.h"
#include "het_sample_view.h"

/* Rows of the settings table, in display order. */
enum sset {
	SS_SHARDS = 0, SS_CHAINS, SS_WARMUP, SS_SAMPLES, SS_WORKERS,
	SS_STRATEGY, SS_COMBINE, SS_RHAT, SS_ESS, SS_DIV, SS_COUNT
};

/*
 * One row of the settings table (ui_p_sample_set.c): its label, the
 * configuration setting it edits (the schema table's dotted key; NULL
 * for the panel's own worker count), whether Enter cycles its words
 * instead of asking, and what it means.
 */
struct sample_set_row {
	const char	*label;
	const char	*key;
	int		 cycles;
	const char	*desc;
};
extern const struct sample_set_row sample_set_rows[SS_COUNT];

#define SAMPLE_MAX_WORKERS	64	/* keeps the poll set bounded */

/* What the panel remembers of each shard (queue order). */
struct sample_seen {
	int		 state;		/* last het_cmc_state seen + 1 */
	int		 attempts;
	int		 have_diag;	/* diag is filled */
	struct het_sample_shard_diag diag;
};

struct sample_state {
	struct ui	*ui;		/* for the free hook */
	int		 rows, cols;

	/* Settings (before a run): cursor, refused edit. */
	int		 srow;		/* enum sset */
	int		 edit_row;
	long		 workers;	/* 0: one per core */
	int		 err_on;
	int		 err_row;
	char		 err[HET_ERROR_MSG_MAX + 16];

	/* The run (ui->ses.sample) and what the panel keeps about it. */
	char		*file;		/* data file sampled */
	char		*outdir;	/* results directory */
	int		 outdir_made;	/* made for this run (rmdir if empty) */
	double		 t0, t_end;	/* ui_now(): start, end */
	long		 chains;	/* per shard */
	long		 total;		/* per chain: warmup + samples */
	int		 cancelling;
	int		 ended;		/* the end was reported */
	struct sample_seen *seen;
	size_t		 nseen;
	size_t		 nwarn_seen;	/* warnings logged */
	double		 last_tick;	/* last timed redraw */
	int		 show_settings;	/* s: the settings in a run */

	/* The shard table and the selected shard's detail. */
	size_t		 cur;		/* shard under the cursor */
	size_t		 top;		/* first shard row shown */
	int		 zoom;		/* Enter: detail on the body */
	size_t		 ptop;		/* first detail parameter */
	long		 dec_index;	/* shard in dec, or -1 */
	struct het_shard_result dec;	/* decoded in SAMPLING */
	int		 dec_failed;
	char		 dec_err[HET_ERROR_MSG_MAX];
};

/* ui_p_sample.c */
struct sample_state *sample_state_of(struct ui *);
/* The result of shard k for the detail view: borrowed, or NULL. */
const struct het_shard_result *sample_shard_result(struct ui *,
	    struct sample_state *, size_t k);

/* ui_p_sample_set.c: Enter on a settings row; cycle strategy/combine. */
void	sample_set_edit(struct ui *, struct sample_state *);
void	sample_set_cycle(struct ui *, struct sample_state *, int row);

/* ui_p_sample_draw.c */
void	sp_draw(struct ui *, void *state, WINDOW *w);
int	sp_table_rows(const struct sample_state *);

/* ui_p_sample_plot.c */
/* v in a short fixed form ("n/a" for NaN), at most prec digits. */
void	sp_fmt(char *buf, size_t len, double v, int prec);
/*
 * sp_fmt_w: v in at most w characters (sp_fmt with at most prec digits,
 * exponents without padding), losing digits before width, so a table
 * column never cuts it.
 */
void	sp_fmt_w(char *buf, size_t len, double v, int prec, int w);
/*
 * A line chart of v[0 .. n-1] (stride apart) in h rows and wd columns:
 * braille dots (2 x 4 per cell) in UTF-8, '*' otherwise; columns hold
 * the mean of their values; range [lo, hi] (lo >= hi: the data's).
 */
void	sp_trace(struct ui *, WINDOW *w, int y, int x, int h, int wd,
	    const double *v, size_t n, size_t stride, double lo, double hi,
	    attr_t a);
/* A one-row sparkline of v (stride apart) over wd columns, [lo, hi]. */
void	sp_spark(struct ui *, WINDOW *w, int y, int x, int wd,
	    const double *v, size_t n, size_t stride, double lo, double hi,
	    attr_t a);
/*
 * A histogram of v[0 .. n-1] (stride apart) in h rows and wd columns of
 * vertical bars (eighth blocks, or ASCII shades), one bin per column
 * over [lo, hi]; mark (if within) is drawn as a '|' marker row below.
 * Returns the largest bin count.
 */
size_t	sp_hist(struct ui *, WINDOW *w, int y, int x, int h, int wd,
	    const double *v, size_t n, size_t stride, double lo, double hi);
/* The attribute of an R-hat value against the threshold max_r_hat. */
attr_t	sp_rhat_attr(double rhat, double max_r_hat);

#endif /* HET_UI_P_SAMPLE_H */
