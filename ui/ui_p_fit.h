/*
 * ui_p_fit.h: private to the Fit panel (ui_p_fit.c: jobs, events, keys
 * and the session's fit history; ui_p_fit_draw.c: drawing).  Include
 * after ui.h.  Loop thread only.
 */
#ifndef HET_UI_P_FIT_H
#define HET_UI_P_FIT_H

#include "het_fitjob.h"

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
};

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

#endif /* HET_UI_P_FIT_H */
