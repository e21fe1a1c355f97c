/*
 * ui_p_log.c: the Log panel: the session log, newest at the bottom.
 *
 * Design: the panel keeps only a scroll position.  In follow mode (the
 * default, and again after End) the newest entry is pinned to the bottom
 * and new lines scroll in; scrolling up leaves follow mode so the text
 * under the reader does not move.  Entries wrap at the window width with
 * the time and level in a fixed column, so long error sentences stay
 * readable in full.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define LOG_PREFIX 17	/* "HH:MM:SS level  " */

struct log_state {
	size_t	top;		/* first entry shown when not following */
	int	follow;
	int	rows, cols;
};

static const struct ui_hint log_hints[] = {
	{ "\xe2\x86\x91\xe2\x86\x93", "Up/Dn", "Scroll" },
	{ "PgUp/Dn", "PgUp/Dn", "Page" },
	{ "End", "End", "Follow" },
	{ NULL, NULL, NULL }
};

static void *
log_init(struct ui *ui)
{
	struct log_state *s = ui_xcalloc(1, sizeof(*s));

	(void)ui;
	s->follow = 1;
	return s;
}

static void
log_free(void *state)
{
	free(state);
}

static void
log_resize(struct ui *ui, void *state, int lines, int cols)
{
	struct log_state *s = state;

	(void)ui;
	s->rows = lines;
	s->cols = cols;
}

/* Rows an entry takes at the current width. */
static int
entry_rows(const struct ui_log_line *l, int width)
{
	const char *p = l->text;
	int n = 0;

	if (*p == '\0')
		return 1;
	while (*p != '\0') {
		p += ui_wrap(p, width);
		while (*p == ' ')
			p++;
		n++;
	}
	return n;
}

/* The first entry such that it and everything after it fit in rows. */
static size_t
follow_top(struct ui *ui, int rows, int width)
{
	size_t i = ui->ses.log_len;
	int used = 0, h;

	while (i > 0) {
		h = entry_rows(ui_log_get(ui, i - 1), width);
		if (used + h > rows)
			break;
		used += h;
		i--;
	}
	return i;
}

static void
log_draw(struct ui *ui, void *state, WINDOW *w)
{
	static const char *const lv[] = { "debug", "info", "warn", "error",
	    "stderr" };
	static const enum ui_color lc[] = { UI_C_DIM, UI_C_INFO, UI_C_WARN,
	    UI_C_ERROR, UI_C_WARN };
	struct log_state *s = state;
	const struct ui_log_line *l;
	int rows = getmaxy(w) - 1, cols = getmaxx(w);
	int width = cols - LOG_PREFIX - 1, y = 1, h;
	struct tm tm;
	char stamp[16], title[128];
	size_t i;

	if (s->follow || s->top >= ui->ses.log_len)
		s->top = follow_top(ui, rows, width);
	snprintf(title, sizeof(title), " Session log: %zu line%s%s",
	    ui->ses.log_len,
	    ui->ses.log_len == 1 ? "" : "s", s->follow ? ", following new "
	    "lines" : ", scrolled (End follows)");
	ui_fill(w, 0, 0, cols, ui_color_attr(UI_C_TITLE));
	ui_put(w, 0, 0, cols, ui_color_attr(UI_C_TITLE), title);
	if (ui->ses.log_len == 0)
		ui_put(w, 2, 2, cols - 4, ui_color_attr(UI_C_DIM),
		    "Nothing logged yet.");
	for (i = s->top; i < ui->ses.log_len && y <= rows; i++) {
		l = ui_log_get(ui, i);
		localtime_r(&l->when, &tm);
		strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
		ui_put(w, y, 1, 8, ui_color_attr(UI_C_DIM), stamp);
		ui_put(w, y, 10, 6, ui_color_attr(lc[l->level]),
		    lv[l->level]);
		h = ui_put_wrapped(w, y, LOG_PREFIX, width, rows - y + 1,
		    l->level == UI_LOG_ERROR ? ui_color_attr(UI_C_VALUE) :
		    A_NORMAL, l->text);
		y += h > 0 ? h : 1;
	}
}

static int
log_key(struct ui *ui, void *state, int key)
{
	struct log_state *s = state;
	int rows = s->rows > 2 ? s->rows - 1 : 1;
	size_t last = follow_top(ui, rows, s->cols - LOG_PREFIX - 1);

	if (s->follow)
		s->top = last;
	switch (key) {
	case UI_K_UP:
	case 'k':
		if (s->top > 0)
			s->top--;
		s->follow = 0;
		break;
	case UI_K_DOWN:
	case 'j':
		if (s->top < last)
			s->top++;
		s->follow = s->top >= last;
		break;
	case UI_K_PGUP:
		s->top = s->top > (size_t)rows ? s->top - (size_t)rows : 0;
		s->follow = 0;
		break;
	case UI_K_PGDN:
		s->top += (size_t)rows;
		if (s->top >= last)
			s->top = last;
		s->follow = s->top >= last;
		break;
	case UI_K_HOME:
	case 'g':
		s->top = 0;
		s->follow = last == 0;
		break;
	case UI_K_END:
	case 'G':
		s->follow = 1;
		break;
	default:
		return 0;
	}
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

const struct ui_panel_ops ui_panel_log = {
	.name = "Log",
	.hints = log_hints,
	.help =
	    "Up Down  j k\tscroll one entry\n"
	    "PgUp PgDn\tscroll one page\n"
	    "Home  g\toldest entry\n"
	    "End  G\tnewest entry, and follow new ones\n"
	    "\tErrors, warnings and anything written to stderr\n"
	    "\twhile hetui runs are logged here; set HETUI_LOG=FILE\n"
	    "\tto keep a copy.\n",
	.init = log_init,
	.free = log_free,
	.draw = log_draw,
	.key = log_key,
	.resize = log_resize,
	.event = NULL,
};
