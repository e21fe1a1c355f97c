/*
 * ui_term.h: the terminal layer of the workstation: signal self-pipe,
 * curses set-up and tear-down, stderr capture, colour roles, glyph sets
 * and the fatal-error exit that gives the terminal back first.
 *
 * Everything here runs on the loop thread (the main thread) except the
 * signal handlers, which only write the signal number to the self-pipe.
 */
#ifndef HET_UI_TERM_H
#define HET_UI_TERM_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stddef.h>

/* Colour roles; each is one curses pair (A_* attributes in monochrome). */
enum ui_color {
	UI_C_NORMAL = 1,
	UI_C_HEADER,		/* header line background */
	UI_C_HEADER_KEY,	/* labels inside the header */
	UI_C_HEADER_VAL,	/* values inside the header */
	UI_C_TAB,		/* inactive tab */
	UI_C_TAB_ACTIVE,	/* active tab */
	UI_C_FOOT_KEY,		/* key of a footer hint ("q") */
	UI_C_FOOT_LABEL,	/* label of a footer hint ("Quit") */
	UI_C_TITLE,		/* section title bars inside panels */
	UI_C_LABEL,		/* field names ("layout") */
	UI_C_VALUE,		/* field values */
	UI_C_DIM,		/* secondary text */
	UI_C_CURSOR,		/* cursor row of a list */
	UI_C_CURSOR_DIM,	/* cursor row of an unfocused list */
	UI_C_MARK,		/* selection marks */
	UI_C_INFO,		/* status: information */
	UI_C_WARN,		/* status: warnings */
	UI_C_ERROR,		/* status: errors */
	UI_C_OVERLAY,		/* help overlay */
	UI_C_OVERLAY_KEY,	/* keys inside the help overlay */
	UI_C_PROMPT,		/* inline prompt */
	UI_C_GRAPH,		/* sparkline / chart */
	UI_C_MODEL,		/* a fitted model drawn over a chart */
	UI_C_NROLES
};

/* First pair of the heatmap ramp: pair = UI_PAIR_RAMP + top * n + bottom. */
#define UI_PAIR_RAMP	64

/* Glyphs: UTF-8 strings, or ASCII stand-ins in --ascii mode. */
struct ui_glyphs {
	const char	*vline;		/* vertical separator */
	const char	*hline;		/* horizontal rule */
	const char	*upper_half;	/* heatmap pixel pair, or NULL */
	const char	*mark_on;	/* selected */
	const char	*mark_off;	/* not selected */
	const char	*cursor;	/* list cursor */
	const char	*ellipsis;	/* truncated text */
	const char	*arrows_ud;	/* "↑↓" */
	const char	*arrows_lr;	/* "←→" */
	const char	*enter;		/* "⏎" */
	const char	*tau;		/* "τ" */
	const char	*phi;		/* "φ" */
	const char	*inv_angstrom;	/* "Å⁻¹" */
	const char	*deg;		/* "°" */
	const char	*times;		/* "×" */
	const char	*dash;		/* "–" range dash */
	const char	*const *spark;	/* 9 levels, " " to full block */
	const char	*shades;	/* ASCII shading ramp, dark to bright */
	const char	*model;		/* a model's point over a chart */
};

struct ui_term {
	int		 utf8;		/* UTF-8 drawing is on */
	int		 color;		/* colours are on */
	int		 colors256;	/* the 256-colour ramp is in use */
	int		 ramp_n;	/* levels in the heatmap ramp (0: none) */
	int		 ramp_cursor;	/* ramp index of the cursor colour */
	const struct ui_glyphs *g;
};

/*
 * ui_term_signals: create the self-pipe and install the handlers for
 * SIGWINCH, SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGTSTP and SIGCONT.  Must be
 * called before ui_term_init() so curses installs none of its own.
 * Returns the read end to poll (one byte per signal), or -1 with errno.
 */
int ui_term_signals(void);

/* ui_term_signal_fd: the read end of the self-pipe, or -1. */
int ui_term_signal_fd(void);

/*
 * ui_term_init: take over the terminal.
 *   want_utf8   0 forces ASCII glyphs; otherwise the locale decides.
 *   want_color  0 forces monochrome.
 * On success curses owns the screen, fd 2 goes into a pipe whose read end
 * is *errfd (poll it and call ui_term_read_stderr), and t is filled.
 * Returns 0, or -1 with a message in msg (the terminal is untouched).
 */
int ui_term_init(struct ui_term *t, int want_utf8, int want_color,
    int *errfd, char *msg, size_t msglen);

/*
 * ui_term_fini: give the terminal back (endwin) and restore fd 2.
 * Idempotent and safe before ui_term_init.  Anything still unread in the
 * stderr pipe is copied to the real stderr so nothing is lost.
 */
void ui_term_fini(void);

/* ui_term_suspend: SIGTSTP: give the terminal back and stop ourselves. */
void ui_term_suspend(void);

/* ui_term_resume: after SIGCONT: take the terminal again, repaint all. */
void ui_term_resume(void);

/*
 * ui_term_resize: read the size with TIOCGWINSZ and resizeterm().
 * Returns 1 when the size changed, 0 otherwise.
 */
int ui_term_resize(void);

/*
 * ui_term_read_stderr: read what is available from the stderr pipe and
 * call line_cb for every complete line (partial lines are kept).
 * Returns 0, or -1 at end of file.
 */
int ui_term_read_stderr(void (*line_cb)(void *, const char *), void *arg);

/* ui_color_attr: the attribute for a colour role (pair or A_* fallback). */
attr_t ui_color_attr(enum ui_color role);

/*
 * ui_ramp_pair: the colour pair number drawing a "▀" whose upper half has
 * ramp level top and lower half level bottom (0 .. ramp_n, ramp_n being
 * the cursor colour).  ui_ramp_fg: level as foreground on the default
 * background.  Both return 0 without a colour ramp.  Pair numbers above
 * 255 do not fit in an attr_t: draw them with setcchar()/wadd_wch().
 */
short ui_ramp_pair(int top, int bottom);
short ui_ramp_fg(int level);

/* ui_fatal: restore the terminal, print "hetui: MESSAGE", exit(1). */
void ui_fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/* Allocation that ends in ui_fatal (small, fixed-size UI objects only). */
void *ui_xcalloc(size_t n, size_t size);
char *ui_xstrdup(const char *s);

/* ui_term_get: the current terminal state (valid after ui_term_init). */
const struct ui_term *ui_term_get(void);

#endif /* HET_UI_TERM_H */
