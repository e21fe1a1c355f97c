/*
 * ui_p_model.h: private to the Model panel (ui_p_model.c: keys and edits;
 * ui_p_model_draw.c: drawing).  Include after ui.h.  Loop thread only.
 */
#ifndef HET_UI_P_MODEL_H
#define HET_UI_P_MODEL_H

#define UNDO_MAX	32
#define FIXED_TOP	3	/* title, mode line, column heads */

enum mcol { MC_VALUE = 0, MC_MIN, MC_MAX, MC_VARY, MC_PRIOR, MC_COUNT };

/* Lines of the scrolling part of the table. */
enum mline { ML_PARAM, ML_ERROR, ML_BLANK, ML_STITLE, ML_SMODE, ML_ANGLE };

struct mline_ref {
	enum mline	 kind;
	size_t		 row;	/* ML_PARAM, ML_ERROR: parameter row;
				   ML_ANGLE: 0 contrast, 1 offset */
};

struct model_undo {
	struct het_config *cfg;
	char		 what[128];
};

struct model_state {
	int		 rows, cols;
	size_t		 row;		/* parameter row (physics, then
					   contrast and offset) */
	int		 col;		/* enum mcol */
	size_t		 top;		/* first scrolling line shown */
	int		 angles_offset;	/* the per-angle prompt edits the
					   offsets (A), not the contrasts */
	unsigned long	 serial;	/* ui->ses.cfg_serial of the stack */
	struct model_undo undo[UNDO_MAX];
	size_t		 nundo;
	int		 err_on;	/* a refused edit is shown */
	size_t		 err_row;
	char		 err[HET_ERROR_MSG_MAX + 16];
	size_t		 edit_row;	/* the cell being edited */
	int		 edit_col;
	int		 menu;		/* the mode list is open */
	int		 menu_pos;
	int		 confirm;	/* waiting for y/n on a family change */
	enum het_mode	 pending;
	/* Widths of the variable columns (name, value, bounds, prior,
	   unit). */
	int		 wn, wv, wb, wp, wu;
};

/* Rows: the mode's physics parameters, then contrast and offset. */
size_t	mp_nrows(const struct het_config *);
struct het_config_param *mp_row_param(struct het_config *, size_t row);
const struct het_param_def *mp_row_def(const struct het_config *,
	    size_t row);
/* v in at most w characters; a prior compact ("N(0,1)") or as edited. */
void	mp_fmt_fit(char *buf, size_t len, double v, int w);
void	mp_fmt_prior(char *buf, size_t len, const struct het_prior *pr,
	    int edit);
/* Drop the undo stack when another configuration was loaded. */
void	mp_sync(struct ui *, struct model_state *);
/* ui_p_model.c: the panel's state, an edit copy of the configuration and
   installing it (validated; refused with the reason otherwise, 0 when
   applied). */
struct model_state *mp_state(struct ui *);
struct het_config *mp_copy(struct ui *);
int	mp_commit(struct ui *, struct model_state *, struct het_config *c,
	    size_t row, const char *what);
/* ui_p_model_angles.c: a: the start contrast per angle, A: the offset. */
void	mp_angles_ask(struct ui *, int offset);
/* The panel's draw hook. */
void	mp_draw(struct ui *, void *state, WINDOW *w);

#endif /* HET_UI_P_MODEL_H */
