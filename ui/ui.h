/*
 * ui.h: the workstation's model and the panel interface.
 *
 * struct ui is the single UI model, owned by the loop thread: terminal
 * windows, the panel table, the session log, status messages, the open
 * dataset's metadata snapshot and the selection (ring, angles, frame
 * window) that later milestones (Model, Fit, Sampling) consume.
 *
 * Panels follow tmux's window_mode: a const table of operations, one file
 * per panel.  Handlers change the model and set dirty bits; only the
 * render pass draws (ui_draw.c), at most ~20 times a second.
 */
#ifndef HET_UI_H
#define HET_UI_H

#include <stddef.h>
#include <time.h>

#include "het_config.h"
#include "het_evq.h"
#include "het_io.h"
#include "ui_main.h"
#include "ui_term.h"

/* Keys: characters are their code point; function keys are offset. */
#define UI_KEYFN(k)	(0x110000 + (k))
#define UI_K_UP		UI_KEYFN(KEY_UP)
#define UI_K_DOWN	UI_KEYFN(KEY_DOWN)
#define UI_K_LEFT	UI_KEYFN(KEY_LEFT)
#define UI_K_RIGHT	UI_KEYFN(KEY_RIGHT)
#define UI_K_PGUP	UI_KEYFN(KEY_PPAGE)
#define UI_K_PGDN	UI_KEYFN(KEY_NPAGE)
#define UI_K_HOME	UI_KEYFN(KEY_HOME)
#define UI_K_END	UI_KEYFN(KEY_END)
#define UI_K_BTAB	UI_KEYFN(KEY_BTAB)
#define UI_K_ENTER	UI_KEYFN(KEY_ENTER)
#define UI_K_BACKSPACE	UI_KEYFN(KEY_BACKSPACE)
#define UI_K_F(n)	UI_KEYFN(KEY_F(n))
#define UI_K_ESC	0x1b

/* Dirty bits: what the next render pass must redraw. */
#define UI_DIRTY_HEAD	0x01
#define UI_DIRTY_TABS	0x02
#define UI_DIRTY_BODY	0x04
#define UI_DIRTY_STATUS	0x08
#define UI_DIRTY_FOOT	0x10
#define UI_DIRTY_ALL	0x1f

/* Message levels (log and status line). */
enum ui_level {
	UI_LOG_DEBUG = 0,
	UI_LOG_INFO,
	UI_LOG_WARN,
	UI_LOG_ERROR,
	UI_LOG_STDERR		/* a line captured from fd 2 */
};

struct ui_log_line {
	time_t		 when;
	enum ui_level	 level;
	char		*text;
};

#define UI_LOG_MAX	2000	/* lines kept in the Log panel */
#define UI_MAX_PANELS	8

struct ui;

/* A footer hint: key (UTF-8 and ASCII spellings) and its label. */
struct ui_hint {
	const char	*key;
	const char	*key_ascii;
	const char	*label;
};

/*
 * A panel.  All hooks run on the loop thread; draw is called only from the
 * render pass and must not change the model.
 */
struct pollfd;

struct ui_panel_ops {
	const char	*name;		/* tab title ("Data") */
	const struct ui_hint *hints;	/* footer hints, NULL-terminated */
	const char	*help;		/* help overlay text, lines of "key\tdoes" */
	/* The footer hints and the help text now, or NULL for hints and
	   help (a view that changes what the keys do); each may be NULL. */
	const struct ui_hint *(*hints_now)(const struct ui *,
		    const void *state);
	const char	*(*help_now)(const struct ui *, const void *state);
	void	*(*init)(struct ui *);	/* private state, or NULL */
	void	 (*free)(void *state);
	void	 (*draw)(struct ui *, void *state, WINDOW *w);
	/* Returns 1 when the key was consumed. */
	int	 (*key)(struct ui *, void *state, int key);
	/* The body window changed size (also called once after init). */
	void	 (*resize)(struct ui *, void *state, int lines, int cols);
	/*
	 * An engine event reached the loop; every panel sees every one.  A
	 * hook that keeps the payload takes it by setting ev->data to NULL.
	 */
	void	 (*event)(struct ui *, void *state, struct het_event *ev);
	/*
	 * Work in the event loop (het_loop.h): the loop adds every panel
	 * with pollfds, deadline or handle as a source.  pollfds fills at
	 * most max_fds entries and returns how many; deadline is the next
	 * time the panel must run (het_clock_now seconds, < 0 none);
	 * handle runs after every poll with the entries pollfds filled
	 * (also on a timeout).  busy: the panel runs work that quitting
	 * would stop (a fit, a sampling run).  wind_down: at exit, after
	 * the loop, drive that work to an end that keeps what finished;
	 * msg gets a sentence for stderr ("" for none).
	 */
	size_t	 max_fds;
	size_t	 (*pollfds)(struct ui *, void *state, struct pollfd *fds,
		    size_t cap);
	double	 (*deadline)(struct ui *, void *state);
	void	 (*handle)(struct ui *, void *state, const struct pollfd *fds,
		    size_t n);
	int	 (*busy)(const struct ui *, const void *state);
	void	 (*wind_down)(struct ui *, void *state, char *msg, size_t len);
};

extern const struct ui_panel_ops ui_panel_data;
extern const struct ui_panel_ops ui_panel_model;
extern const struct ui_panel_ops ui_panel_fit;
extern const struct ui_panel_ops ui_panel_sample;
extern const struct ui_panel_ops ui_panel_results;
extern const struct ui_panel_ops ui_panel_log;

/*
 * One finished fit of the session, newest last (the Fit panel records
 * each; the Results panel lists them).  Every pointer is owned by the
 * record; names, x and unc hold the fit's physics parameters.
 */
struct ui_fit_record {
	time_t		 when;		/* wall-clock end of the run */
	const char	*analysis;	/* "fit" or "sample" (static) */
	char		*file;		/* the data file fitted */
	char		*outdir;	/* where the results went, or NULL */
	char		*status;	/* fit: "converged", "not_converged",
					   "cancelled"; sample: the verdict
					   (het_sample_verdict_name) */
	char		*mode;		/* analysis mode name */
	double		 chi2_red;
	long		 iterations;
	double		 seconds;	/* wall time of the job */
	size_t		 np;
	char		**names;	/* np physics parameter names */
	double		*x, *unc;	/* np values and 1-sigma (NaN ok); a
					   sampling run: posterior mean, sd */
};

#define UI_FIT_HISTORY_MAX 500	/* the oldest record is dropped beyond */

struct ui_figs;
#define UI_FIGS_MAX	2	/* panels that write figures: Fit, Results */

/* The selection that later milestones consume. */
struct ui_sel {
	size_t		 ring;		/* current q ring (0 .. nrings-1) */
	unsigned char	*bin_on;	/* per bin: selected for analysis */
	size_t		 cursor;	/* bin under the table cursor */
	long		 first, last;	/* frame window, 1-based inclusive */
};

/* The q rings of the open dataset: bins grouped by q_idx, by phi. */
struct ui_ring {
	size_t		 q_idx;
	double		 q;
	size_t		*bins;		/* bin indices, increasing phi */
	size_t		 nbins;
};

/* The terminal: its size and the windows the layout cut it into. */
struct ui_screen {
	struct ui_term	 term;
	int		 lines, cols;	/* current terminal size */
	int		 too_small;	/* below 80x24: only a message */
	WINDOW		*w_head, *w_tabs, *w_body, *w_status, *w_foot;
};

/* What the screen shows: the panel, overlays, the prompt and status. */
struct ui_view {
	int		 dirty;		/* UI_DIRTY_* */
	size_t		 cur;		/* active panel */
	int		 help;		/* the help overlay is shown */
	int		 help_scroll;

	/* Inline prompt in the status line. */
	int		 prompt_on;
	char		 prompt_label[64];
	char		 prompt_buf[1024];
	size_t		 prompt_len;
	int		 prompt_sel;	/* the initial text is selected: the
					   first character typed replaces it */
	void		(*prompt_done)(struct ui *, const char *text);
	int		 confirm_quit;	/* "quit anyway? y/n" is showing */

	/* Status line message; errors stay until the next key. */
	char		 status[512];
	enum ui_level	 status_level;
	double		 status_until;	/* monotonic seconds; 0: sticky */
};

/* The session: the engine, the open file, the configuration, the work
   run and the log. */
struct ui_session {
	/* Session log (ring buffer of UI_LOG_MAX lines). */
	struct ui_log_line log[UI_LOG_MAX];
	size_t		 log_head, log_len;
	unsigned long	 log_serial;	/* bumps on every append */
	void		*log_file;	/* FILE * of $HETUI_LOG, or NULL */

	/* Engine. */
	struct het_evq	*evq;
	struct het_io	*io;
	unsigned long	 open_gen;	/* generation of the current open */
	int		 opening;	/* an open request is in flight */

	/* Dataset (NULL until HET_IO_EV_OPENED) and selection. */
	struct het_io_meta *meta;
	int		 mt_only;	/* the open file holds multitau g2
					   only (meta NULL; the Data panel
					   keeps the g2) */
	char		*data_path;	/* file given or being opened */
	char		*data_error;	/* last open failure, or NULL */
	struct ui_ring	*rings;
	size_t		 nrings;
	struct ui_sel	 sel;

	/*
	 * Configuration: never NULL after start-up (defaults without -c).
	 * cfg_saved is the state last loaded or saved; cfg_dirty says cfg
	 * differs from it.  cfg_serial bumps whenever another configuration
	 * is loaded, so panels can drop what referred to the old one.
	 */
	struct het_config *cfg;
	struct het_config *cfg_saved;
	char		*cfg_path;	/* its file, or NULL (defaults) */
	int		 cfg_dirty;
	unsigned long	 cfg_serial;

	/* File browser overlay and follow mode (ui_browse.c). */
	struct ui_browse *browse;

	/* Fits: one fit or batch may run at a time (ui_p_fit.c); finished
	   ones. */
	int		 fit_running;
	int		 batch_running;	/* a batch of fits (e, t) */
	struct ui_fit_record *fit_hist;
	size_t		 nfit_hist;

	/* The figure jobs of the Fit and Results panels (ui_figs.c), each
	   registered by its panel; NULL before. */
	struct ui_figs	*figs[UI_FIGS_MAX];

	/* The sampling run (owned by the Sampling panel), or NULL. */
	struct het_sample *sample;

	/*
	 * The fit whose model the Data panel's cuts draw over the data:
	 * the run folder of the Fit panel's last written fit or of the run
	 * loaded in the Results panel (the latest of the two), or NULL.
	 */
	char		*model_dir;
};

/*
 * The workstation: the panels and the three parts above (the terminal,
 * the view, the session).  Loop thread only.
 */
struct ui {
	struct ui_options opts;
	int		 quit;		/* leave the loop */
	int		 exit_status;

	const struct ui_panel_ops *panels[UI_MAX_PANELS];
	void		*pstate[UI_MAX_PANELS];
	size_t		 npanels;

	struct ui_screen scr;
	struct ui_view	 view;
	struct ui_session ses;
};

/* ui_main.c */
double	ui_now(void);
void	ui_dirty(struct ui *, int bits);
int	ui_work_running(const struct ui *);
void	ui_open_file(struct ui *, const char *path);

/* ui_log.c: messages go to the Log panel; msg also to the status line. */
void	ui_log(struct ui *, enum ui_level, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	ui_msg(struct ui *, enum ui_level, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	ui_log_free(struct ui *);
const struct ui_log_line *ui_log_get(const struct ui *, size_t i);

/* ui_model.c: dataset snapshot, rings and selection. */
void	ui_model_set_meta(struct ui *, struct het_io_meta *meta);
void	ui_model_clear(struct ui *);
const struct ui_ring *ui_model_ring(const struct ui *);
/* Distance between two angles in degrees, through the 360 wrap. */
double	ui_phi_dist(double a, double b);
size_t	ui_model_ring_selected(const struct ui *, size_t ring);
int	ui_model_set_window(struct ui *, const char *text, char *why,
	    size_t whylen);
void	ui_model_apply_config(struct ui *, const struct het_config *cfg);
struct het_nyquist;
int	ui_model_nyquist(const struct ui *, struct het_nyquist *out);

/* ui_p_fit.c: release the session's fit history. */
void	ui_fit_history_free(struct ui *);
/*
 * ui_history_append: a new, zeroed record at the end of the session's run
 * history (ui->ses.fit_hist; the oldest is dropped beyond UI_FIT_HISTORY_MAX)
 * with `when` set to now; the caller fills it.  Loop thread.
 */
struct ui_fit_record *ui_history_append(struct ui *);

/*
 * ui_p_sample.c: ui_sample_running: a sampling run is active (its loop
 * hooks are the panel's pollfds, deadline, handle, busy and wind_down;
 * the wind-down at exit cancels a run still going and drives it to its
 * end, so the shards that finished are combined and written).
 */
#define UI_SAMPLE_MAX_FDS	160
int	ui_sample_running(const struct ui *);

/*
 * ui_figs.c (the rest in ui_figs.h): a sentence about figures being
 * written ("writing the figures of ... 3 s"), in buf, or NULL when no
 * panel writes any.
 */
const char *ui_figs_note(const struct ui *, char *buf, size_t len);

/* ui_p_data.c: ask for the heatmap the current selection needs. */
void	ui_data_refresh(struct ui *);
/*
 * ui_data_model: the run folder whose fitted model the cuts draw from
 * now on (copied; NULL: none), and the views that carry it asked for.
 */
void	ui_data_model(struct ui *, const char *dir);

/*
 * ui_browse.c: the file browser overlay (o) and follow mode (F).
 * ui_browse_init starts the folder scanner thread (-1 with err set);
 * ui_browse_key takes every key while the browser is open (returns 1);
 * ui_browse_event handles the scanner's events; ui_browse_render draws
 * the overlay and the status line's "follow: DIR" after the render pass
 * (dirty: the bits that pass redrew).
 */
int	ui_browse_init(struct ui *, struct het_error *err);
void	ui_browse_free(struct ui *);
void	ui_browse_open(struct ui *);
void	ui_browse_follow_toggle(struct ui *);
int	ui_browse_key(struct ui *, int key);
void	ui_browse_event(struct ui *, struct het_event *ev);
void	ui_browse_render(struct ui *, int dirty);
/*
 * ui_browse_followed: the files follow mode loaded since it was last
 * started, oldest first (borrowed until the next event), *n of them.
 */
const char *const *ui_browse_followed(const struct ui *, size_t *n);
/* ui_dir_of: the folder of path, "." for a bare name (caller frees). */
char	*ui_dir_of(const char *path);

/*
 * ui_browse_keep.c: the selection carried from one file to the next.
 * ui_keep_take before the old metadata goes; ui_keep_apply after the new
 * one is in place (it logs what could not be kept and frees *k).
 */
struct ui_keep {
	int		 have;		/* a selection was taken */
	char		*from;		/* its file's name */
	size_t		 ring;
	double		 q;
	double		*phi;		/* angles of the selected bins */
	size_t		 nphi, nring;	/* selected, bins of the ring */
	double		 cursor_phi;
	long		 first, last;
	int		 all_frames;
};
void	ui_keep_take(struct ui *, struct ui_keep *k);
void	ui_keep_apply(struct ui *, struct ui_keep *k);

/*
 * ui_config.c: the configuration of the session.  ui_config_start runs
 * once at start-up (defaults, or -c CONFIG); ui_config_load reads another
 * file (0, or -1 with the reason in the status line and the Log);
 * ui_config_save writes cfg atomically; ui_config_replace installs cfg
 * (taking it) and returns the previous one (the caller owns it).
 */
void	ui_config_start(struct ui *);
int	ui_config_load(struct ui *, const char *path, int open_data);
int	ui_config_save(struct ui *, const char *path);
struct het_config *ui_config_replace(struct ui *, struct het_config *cfg);
void	ui_config_free(struct ui *);
/*
 * ui_config_for_selection: a copy of the session's configuration for a
 * run ("fit" or "sampling", which names it in messages) on the Data
 * panel's selection: its ring's q, the selected angles (per-angle start
 * values mapped to them by phi), the frame window, no phi_filtering.
 * NULL, with the reason in the status line, when no file is open, no
 * angle is selected or the result does not validate.  Caller frees.
 */
struct het_config *ui_config_for_selection(struct ui *, const char *run);

/* ui_draw.c: render pass and drawing helpers. */
void	ui_layout(struct ui *);
void	ui_render(struct ui *);
void	ui_prompt_open(struct ui *, const char *label, const char *init,
	    void (*done)(struct ui *, const char *));
void	ui_prompt_open_sel(struct ui *, const char *label, const char *init,
	    void (*done)(struct ui *, const char *));
int	ui_prompt_key(struct ui *, int key);
int	ui_put(WINDOW *w, int y, int x, int maxw, attr_t attr,
	    const char *utf8);
int	ui_put_trunc(WINDOW *w, int y, int x, int maxw, attr_t attr,
	    const char *utf8);
int	ui_putf(WINDOW *w, int y, int x, int maxw, attr_t attr,
	    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int	ui_strwidth(const char *utf8);
size_t	ui_wrap(const char *utf8, int width);
int	ui_put_wrapped(WINDOW *w, int y, int x, int width, int maxlines,
	    attr_t attr, const char *utf8);
void	ui_fill(WINDOW *w, int y, int x, int n, attr_t attr);
/*
 * ui_range_text: "4-9/28" for rows top .. top + rows - 1 of total (0-based
 * top) in buf, or whole when every row is shown.  Returns buf or whole.
 */
const char *ui_range_text(char *buf, size_t len, size_t top, size_t rows,
    size_t total, const char *whole);

#endif /* HET_UI_H */
