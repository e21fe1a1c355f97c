/*
 * ui_term.c: terminal ownership for the workstation.
 *
 * Design: signals never touch curses.  Each handler writes the signal
 * number as one byte to a non-blocking self-pipe that the loop polls; the
 * loop then does the real work (resize, suspend, quit).  The handlers are
 * installed before newterm(), so ncurses sees non-default dispositions
 * and installs none of its own (resizeterm(3X)).  While curses owns the
 * screen, fd 2 is a pipe read by the loop, so stray library output
 * (HDF5 diagnostics, assertions) lands in the session log instead of
 * tearing the display; ui_term_fini() puts the real stderr back, and
 * every exit path, including ui_fatal(), goes through it first (htop's
 * fail()).  Colour roles are resolved once into attributes, so drawing
 * code never asks whether colour is on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "ui_term.h"

static const char *const spark_utf8[9] = {
	" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
	"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"
};
static const char *const spark_ascii[9] = {
	" ", "_", "_", ".", ".", "o", "o", "#", "#"
};

static const struct ui_glyphs glyphs_utf8 = {
	"\xe2\x94\x82", "\xe2\x94\x80", "\xe2\x96\x80", "\xe2\x97\x8f",
	"\xc2\xb7", "\xe2\x96\xb6", "\xe2\x80\xa6", "\xe2\x86\x91\xe2\x86\x93",
	"\xe2\x86\x90\xe2\x86\x92", "\xe2\x8f\x8e", "\xcf\x84", "\xcf\x86",
	"\xc3\x85\xe2\x81\xbb\xc2\xb9", "\xc2\xb0", "\xc3\x97", "\xe2\x80\x93",
	spark_utf8, " .:-=+*#%@", "\xe2\x97\x86"
};
static const struct ui_glyphs glyphs_ascii = {
	"|", "-", NULL, "*", ".", ">", "~", "Up/Dn", "Lt/Rt", "Enter",
	"tau", "phi", "1/A", "", "x", "-", spark_ascii, " .:-=+*#%@", "+"
};

static int sig_pipe[2] = { -1, -1 };
static int err_pipe = -1;	/* read end of the stderr pipe */
static int saved_stderr = -1;	/* the real fd 2 while curses runs */
static int term_active;
static SCREEN *term_screen;
static struct ui_term term_state;
static attr_t role_attr[UI_C_NROLES];
static char err_buf[4096];	/* partial stderr line */
static size_t err_len;

static void
sig_handler(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	/* Non-blocking: a full pipe already holds a wake-up. */
	if (write(sig_pipe[1], &b, 1) < 0)
		(void)0;
	errno = saved;
}

static int
set_fd_flags(int fd, int nonblock)
{
	int fl;

	if (nonblock) {
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return -1;
	}
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int
ui_term_signals(void)
{
	static const int sigs[] = { SIGWINCH, SIGCHLD, SIGINT, SIGTERM,
	    SIGHUP, SIGTSTP, SIGCONT };
	struct sigaction sa;
	size_t i;

	if (sig_pipe[0] != -1)
		return sig_pipe[0];
	if (pipe(sig_pipe) != 0)
		return -1;
	if (set_fd_flags(sig_pipe[0], 1) != 0 ||
	    set_fd_flags(sig_pipe[1], 1) != 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) != 0)
			return -1;
	/* A closed terminal or log pipe must not kill us silently. */
	signal(SIGPIPE, SIG_IGN);
	return sig_pipe[0];
}

int
ui_term_signal_fd(void)
{
	return sig_pipe[0];
}

static void
role_set(enum ui_color role, short fg, short bg, attr_t extra, attr_t mono)
{
	if (term_state.color) {
		init_pair(role, fg, bg);
		role_attr[role] = COLOR_PAIR(role) | extra;
	} else
		role_attr[role] = mono;
}

/*
 * A viridis-like ramp in the xterm-256 palette.  Interpolating viridis
 * and taking the nearest cube colour collapses the dark blues into a few
 * greys, so the steps are picked by hand along the viridis hue path
 * (purple, blue, teal, green, yellow) with rising lightness.
 */
static const short ramp256[] = {
	53, 54, 55, 60, 25, 31, 30, 37, 36, 35, 71, 77, 113, 149, 185, 220,
	226
};
#define RAMP256_N ((int)(sizeof(ramp256) / sizeof(ramp256[0])))

static void
colors_init(void)
{
	static const short ramp8[6] = { COLOR_BLUE, COLOR_CYAN, COLOR_GREEN,
	    COLOR_YELLOW, COLOR_RED, COLOR_WHITE };
	short ramp[40];
	int n = 0, i, j, big;

	if (term_state.color) {
		start_color();
		use_default_colors();
	}
	big = term_state.color && COLORS >= 256;
	role_set(UI_C_NORMAL, -1, -1, 0, A_NORMAL);
	role_set(UI_C_HEADER, big ? 252 : COLOR_WHITE,
	    big ? 236 : COLOR_BLUE, 0, A_REVERSE);
	role_set(UI_C_HEADER_KEY, big ? 74 : COLOR_CYAN,
	    big ? 236 : COLOR_BLUE, 0, A_REVERSE);
	role_set(UI_C_HEADER_VAL, big ? 231 : COLOR_WHITE,
	    big ? 236 : COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD);
	role_set(UI_C_TAB, big ? 250 : COLOR_WHITE, -1, 0, A_NORMAL);
	role_set(UI_C_TAB_ACTIVE, COLOR_BLACK, COLOR_CYAN, A_BOLD,
	    A_REVERSE | A_BOLD);
	role_set(UI_C_FOOT_KEY, big ? 231 : COLOR_WHITE, -1, A_BOLD, A_BOLD);
	role_set(UI_C_FOOT_LABEL, COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE);
	role_set(UI_C_TITLE, COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE);
	role_set(UI_C_LABEL, big ? 74 : COLOR_CYAN, -1, 0, A_NORMAL);
	role_set(UI_C_VALUE, -1, -1, A_BOLD, A_BOLD);
	role_set(UI_C_DIM, big ? 244 : COLOR_WHITE, -1, big ? 0 : A_DIM,
	    A_DIM);
	role_set(UI_C_CURSOR, COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE);
	role_set(UI_C_CURSOR_DIM, COLOR_BLACK, big ? 250 : COLOR_WHITE, 0,
	    A_UNDERLINE);
	role_set(UI_C_MARK, COLOR_YELLOW, -1, A_BOLD, A_BOLD);
	role_set(UI_C_INFO, COLOR_GREEN, -1, 0, A_NORMAL);
	role_set(UI_C_WARN, COLOR_YELLOW, -1, A_BOLD, A_BOLD);
	role_set(UI_C_ERROR, big ? 231 : COLOR_WHITE, COLOR_RED, A_BOLD,
	    A_REVERSE | A_BOLD);
	role_set(UI_C_OVERLAY, big ? 252 : COLOR_WHITE,
	    big ? 237 : COLOR_BLUE, 0, A_NORMAL);
	role_set(UI_C_OVERLAY_KEY, big ? 221 : COLOR_YELLOW,
	    big ? 237 : COLOR_BLUE, A_BOLD, A_BOLD);
	role_set(UI_C_PROMPT, -1, -1, A_BOLD, A_BOLD);
	role_set(UI_C_GRAPH, big ? 114 : COLOR_GREEN, -1, 0, A_NORMAL);
	role_set(UI_C_MODEL, big ? 213 : COLOR_MAGENTA, -1, A_BOLD, A_BOLD);

	term_state.ramp_n = 0;
	term_state.colors256 = 0;
	if (!term_state.color)
		return;
	if (big && COLOR_PAIRS >= UI_PAIR_RAMP + (RAMP256_N + 2) *
	    (RAMP256_N + 1)) {
		n = RAMP256_N;
		for (i = 0; i < n; i++)
			ramp[i] = ramp256[i];
		ramp[n] = 196;		/* cursor: a red viridis never uses */
		term_state.colors256 = 1;
	} else if (COLOR_PAIRS >= UI_PAIR_RAMP + 8 * 7) {
		n = 6;
		for (i = 0; i < n; i++)
			ramp[i] = ramp8[i];
		ramp[n] = COLOR_MAGENTA;
	} else
		return;
	for (i = 0; i <= n; i++) {
		for (j = 0; j <= n; j++)
			init_pair((short)(UI_PAIR_RAMP + i * (n + 1) + j),
			    ramp[i], ramp[j]);
		init_pair((short)(UI_PAIR_RAMP + (n + 1) * (n + 1) + i),
		    ramp[i], -1);
	}
	term_state.ramp_n = n;
	term_state.ramp_cursor = n;
}

static int
stderr_capture(int *errfd)
{
	int p[2];

	if (pipe(p) != 0)
		return -1;
	if (set_fd_flags(p[0], 1) != 0 || set_fd_flags(p[1], 0) != 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	fflush(stderr);
	saved_stderr = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (saved_stderr < 0 || dup2(p[1], 2) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	/* Writers must never block on a busy loop: losing text is better. */
	fcntl(2, F_SETFL, fcntl(2, F_GETFL) | O_NONBLOCK);
	err_pipe = p[0];
	*errfd = p[0];
	return 0;
}

int
ui_term_init(struct ui_term *t, int want_utf8, int want_color,
    int *errfd, char *msg, size_t msglen)
{
	const char *cs = nl_langinfo(CODESET);

	*errfd = -1;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(msg, msglen, "the workstation needs a terminal "
		    "(stdin or stdout is not a tty); run 'hetui inspect FILE' "
		    "for a text summary");
		return -1;
	}
	term_screen = newterm(NULL, stdout, stdin);
	if (term_screen == NULL) {
		snprintf(msg, msglen, "cannot drive the terminal type '%s'; "
		    "set TERM to a known type such as xterm-256color",
		    getenv("TERM") != NULL ? getenv("TERM") : "(unset)");
		return -1;
	}
	term_active = 1;
	term_state.utf8 = want_utf8 && cs != NULL &&
	    strcmp(cs, "UTF-8") == 0;
	term_state.g = term_state.utf8 ? &glyphs_utf8 : &glyphs_ascii;
	term_state.color = want_color && has_colors();
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colors_init();
	if (stderr_capture(errfd) != 0) {
		ui_term_fini();
		snprintf(msg, msglen, "cannot redirect stderr into the "
		    "session log: %s", strerror(errno));
		return -1;
	}
	*t = term_state;
	return 0;
}

void
ui_term_fini(void)
{
	char buf[4096];
	ssize_t n;

	if (term_active) {
		curs_set(1);	/* endwin() leaves the cursor as it was */
		endwin();
		term_active = 0;
	}
	if (saved_stderr >= 0) {
		fflush(stderr);
		dup2(saved_stderr, 2);
		close(saved_stderr);
		saved_stderr = -1;
		if (err_len > 0) {
			(void)!write(2, err_buf, err_len);
			(void)!write(2, "\n", 1);
			err_len = 0;
		}
		while (err_pipe >= 0 && (n = read(err_pipe, buf,
		    sizeof(buf))) > 0)
			(void)!write(2, buf, (size_t)n);
	}
	if (err_pipe >= 0) {
		close(err_pipe);
		err_pipe = -1;
	}
}

void
ui_term_suspend(void)
{
	if (!term_active)
		return;
	curs_set(1);
	endwin();
	/* SIGSTOP cannot be caught; the shell sees a normal job stop. */
	raise(SIGSTOP);
}

void
ui_term_resume(void)
{
	if (!term_active)
		return;
	reset_prog_mode();
	curs_set(0);
	clearok(curscr, TRUE);
	ui_term_resize();
}

int
ui_term_resize(void)
{
	struct winsize ws;

	if (!term_active)
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 &&
	    ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) != 0)
		return 0;
	if (ws.ws_row == 0 || ws.ws_col == 0)
		return 0;
	if (ws.ws_row == LINES && ws.ws_col == COLS)
		return 0;
	resizeterm(ws.ws_row, ws.ws_col);
	return 1;
}

int
ui_term_read_stderr(void (*line_cb)(void *, const char *), void *arg)
{
	char buf[2048];
	ssize_t n, i;

	if (err_pipe < 0)
		return -1;
	while ((n = read(err_pipe, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n' || err_len == sizeof(err_buf) - 1) {
				err_buf[err_len] = '\0';
				if (err_len > 0)
					line_cb(arg, err_buf);
				err_len = 0;
				if (buf[i] == '\n')
					continue;
			}
			err_buf[err_len++] = buf[i];
		}
	}
	if (n == 0)
		return -1;
	return 0;
}

short
ui_ramp_pair(int top, int bottom)
{
	int n = term_state.ramp_n;

	if (n == 0 || top < 0 || top > n || bottom < 0 || bottom > n)
		return 0;
	return (short)(UI_PAIR_RAMP + top * (n + 1) + bottom);
}

short
ui_ramp_fg(int level)
{
	int n = term_state.ramp_n;

	if (n == 0 || level < 0 || level > n)
		return 0;
	return (short)(UI_PAIR_RAMP + (n + 1) * (n + 1) + level);
}

attr_t
ui_color_attr(enum ui_color role)
{
	if (role <= 0 || role >= UI_C_NROLES)
		return A_NORMAL;
	return role_attr[role];
}

const struct ui_term *
ui_term_get(void)
{
	return &term_state;
}

void
ui_fatal(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ui_term_fini();
	fprintf(stderr, "hetui: fatal: %s\n", msg);
	fflush(stderr);
	/* Other threads may be inside HDF5: skip atexit handlers. */
	_exit(1);
}

void *
ui_xcalloc(size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		ui_fatal("internal error: zero-size allocation");
	p = calloc(n, size);
	if (p == NULL)
		ui_fatal("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

char *
ui_xstrdup(const char *s)
{
	char *p = strdup(s != NULL ? s : "");

	if (p == NULL)
		ui_fatal("out of memory copying a string");
	return p;
}
