/*
 * ui_p_fit.h: private to the Fit panel (ui_p_fit.c: jobs, events, keys
 * and the session's fit history; ui_p_fit_draw.c: drawing;
 * ui_p_fit_batch.c: the batches of every q ring and of a series, run as
 * a child hetui fit; ui_p_fit_batch_draw.c: their view; the figures, f,
 * through ui_figs.h).  Include after ui.h.  Loop thread only.
 */
#ifndef HET_UI_P_FIT_H
#define HET_UI_P_FIT_H

#include "het_batch.h"
#include "het_fitjob.h"
#include "ui_figs.h"

struct fit_state {
	int		 rows, cols;	/* body size */
	int		 left;		/* left column width */

	/* The running job (NULL when idle) and its live state. */
	struct het_fitjob *job;
	int		 job_id;	/* events of other ids are stale */
	int		 warm;		/* started from the previous result */
	char		*job_file;	/* the data file being fitted */
	struct het_fitjob_snap *snap;	/* latest poll, or NULL */
	double		*cost;		/* cost of every iteration record */
	size_t		 ncost, capcost;
	int		 cancelling;	/* c was pressed */
	int		 per_angle;	/* p: the next fit per angle */
	double		 t_start;	/* ui_now() at the start */
	long		 job_first, job_last; /* its frame window */
	long		 prefit_iter;	/* iterations of its early-window
					   pre-fit seen so far, -1: none */

	/* The last finished fit (owned) or failure. */
	struct het_fitjob_result *res;
	char		*error;		/* last failure, or NULL */
	size_t		 angle;		/* angle shown in the heatmaps */
	size_t		 top;		/* first parameter row shown */

	/* Heat levels of the shown angle (data and model share a scale). */
	size_t		 lvl_angle;	/* angle the levels belong to */
	size_t		 side;
	unsigned char	*lvl_data, *lvl_model, *lvl_resid;
	double		 dlo, dhi;	/* data / model range */
	double		 rmax;		/* residual range is [-rmax, rmax] */
	int		 nlev;

	/* The last batch (e, t), running or ended, and its view. */
	struct het_batch *batch;
	char		*bwhat;		/* what it fits, in words */
	int		 bshow;		/* the panel shows the batch (v) */
	size_t		 btop;		/* first line shown */
	int		 bleft;		/* columns scrolled right */
	size_t		 bnotes;	/* its notes logged so far */
	size_t		 bdone;		/* its members whose end was logged */
	int		 bsaid;		/* its end was said */

	/* The figures of the fit or batch shown (f), by a child hetui
	   report. */
	struct ui_figs	 figs;
};

/*
 * fp_refuse_busy: 1, with the reason in the status line, while a fit, a
 * batch or figures are running: one piece of work at a time, which c
 * cancels.
 */
int	fp_refuse_busy(struct ui *, const struct fit_state *);

/*
 * fp_shown_fit: the fit the panel shows of a result: the only one of a
 * joint fit, the shown angle's of a per-angle fit (NULL when that angle
 * failed or res is NULL).
 */
const struct het_fit_result *fp_shown_fit(const struct fit_state *s,
    const struct het_fitjob_result *res);

/* The panel's draw hook (ui_p_fit_draw.c). */
void	fp_draw(struct ui *, void *state, WINDOW *w);
/* Levels of the shown angle; call after res or angle changed. */
void	fp_levels(struct ui *, struct fit_state *);
/* Rows of the parameter table that fit (for scrolling). */
int	fp_table_rows(const struct fit_state *);

/*
 * ui_p_fit_batch.c.  fp_batch_key: the batch keys (e, t, v, c while a
 * batch runs, and the scroll keys while it is shown); 1 when taken.
 * fp_batch_running: a batch runs.  The loop hooks of the panel call
 * fp_batch_pollfds, _deadline, _handle; fp_batch_wind_down at exit
 * (a sentence for stderr in msg); fp_batch_free from the free hook.
 */
int	fp_batch_key(struct ui *, struct fit_state *, int key);
int	fp_batch_running(const struct fit_state *);
size_t	fp_batch_pollfds(struct fit_state *, struct pollfd *fds, size_t cap);
double	fp_batch_deadline(const struct fit_state *);
void	fp_batch_handle(struct ui *, struct fit_state *,
	    const struct pollfd *fds, size_t n);
void	fp_batch_wind_down(struct fit_state *, char *msg, size_t len);
void	fp_batch_free(struct fit_state *);
/* ui_p_fit_batch_draw.c: the batch view over the whole body. */
void	fp_batch_draw(struct ui *, struct fit_state *, WINDOW *w);

#endif /* HET_UI_P_FIT_H */
