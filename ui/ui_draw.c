/*
 * ui_draw.c: layout and the render pass.
 *
 * Design: the screen is five windows (header, tab bar, panel body, status
 * line, key-hint footer) plus the help overlay.  The render pass redraws
 * only the windows whose dirty bit is set, each with werase() (never
 * wclear(), which would repaint the whole terminal and flicker), queues
 * them with wnoutrefresh() and sends everything with one doupdate().
 * Text goes through ui_put(), which truncates by display width (UTF-8
 * aware) so columns stay aligned and nothing wraps.  Below 80x24 the
 * windows are not drawn at all and a centred message says why.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"

#define UI_MIN_COLS	80
#define UI_MIN_LINES	24
#define UI_MODIFIED	"config modified"
#define UI_MODIFIED_SHORT "modified"

static const struct ui_hint global_head[] = {
	{ "?", "?", "Help" },
	{ "Tab", "Tab", "Panel" },
	{ NULL, NULL, NULL }
};
static const struct ui_hint global_tail = { "q", "q", "Quit" };

static const char global_help[] =
    "Tab  S-Tab\tnext / previous panel\n"
    "1 .. 9\tgo to panel N\n"
    "0\tgo to the Log (the last panel)\n"
    "o\topen another result file (browser)\n"
    "F\tfollow mode: load new files of this folder\n"
    "?\tthis help (any key closes it)\n"
    "q  F10\tquit (asks first while work runs or the\n"
    "\tconfiguration has unsaved edits)\n"
    "Ctrl-Z\tsuspend to the shell (fg resumes)\n"
    "Ctrl-L\trepaint the screen\n";

int
ui_strwidth(const char *s)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;
	int w = 0, cw;

	memset(&st, 0, sizeof(st));
	while (*s != '\0') {
		if (!ui_term_get()->utf8) {
			s++;
			w++;
			continue;
		}
		n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			s++;
			w++;
			continue;
		}
		cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
		s += n;
	}
	return w;
}

/*
 * prefix_bytes: the length of the longest prefix of s no wider than
 * width; *brk is the length up to the last space in it (0: none), *first
 * the length of the first character.
 */
static size_t
prefix_bytes(const char *s, int width, size_t *brk, size_t *first)
{
	mbstate_t st;
	wchar_t wc;
	size_t n, at = 0;
	int used = 0, cw;

	*brk = 0;
	*first = 1;
	memset(&st, 0, sizeof(st));
	while (s[at] != '\0') {
		n = 1;
		cw = 1;
		if (ui_term_get()->utf8) {
			n = mbrtowc(&wc, s + at, MB_CUR_MAX, &st);
			if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
				memset(&st, 0, sizeof(st));
				n = 1;
			} else if ((cw = wcwidth(wc)) < 0)
				cw = 1;
		}
		if (at == 0)
			*first = n;
		if (used + cw > width)
			break;
		if (s[at] == ' ')
			*brk = at + 1;
		used += cw;
		at += n;
	}
	return at;
}

/*
 * ui_wrap: the number of bytes of s that fill at most width columns,
 * ending after the last space that fits when the rest does not.
 */
size_t
ui_wrap(const char *s, int width)
{
	size_t at, brk, first;

	at = prefix_bytes(s, width, &brk, &first);
	if (s[at] == '\0')
		return at;
	return brk > 0 ? brk : (at > 0 ? at : first);
}

/* ui_put_wrapped: word-wrapped text; returns the lines used. */
int
ui_put_wrapped(WINDOW *w, int y, int x, int width, int maxlines,
    attr_t attr, const char *s)
{
	char line[1024];
	size_t n;
	int lines = 0;

	while (*s != '\0' && lines < maxlines) {
		n = ui_wrap(s, width);
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, s, n);
		line[n] = '\0';
		ui_put(w, y + lines, x, width, attr, line);
		lines++;
		s += n;
		while (*s == ' ')
			s++;
	}
	return lines;
}

/* A character that can be part of a printed number (1.5e-05, -3). */
static int
number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
	    c == '+' || c == '-';
}

/*
 * keep_numbers: where to cut s, given that the first n bytes fit.  A cut
 * inside a number would show another number (5.88e-0 for 5.88e-05, 2100
 * for 21000), so such a cut moves back to before the number, and before
 * the word it ends when it is glued to one (D0_ref12 is not cut to D0_r).
 */
static size_t
keep_numbers(const char *s, size_t n, int glued)
{
	size_t b = n, k;
	int digit = 0;

	/* glued: an ellipsis follows, and "0.0029…" reads as cut too. */
	if (n == 0 || s[n] == '\0' || (!glued && !number_char(s[n])) ||
	    !number_char(s[n - 1]))
		return n;
	while (b > 0 && number_char(s[b - 1]))
		b--;
	for (k = b; k <= n && s[k] != '\0'; k++)
		if (s[k] >= '0' && s[k] <= '9')
			digit = 1;
	if (!digit)
		return n;
	while (b > 0 && s[b - 1] != ' ' && s[b - 1] != '(' &&
	    s[b - 1] != '[' && s[b - 1] != '=' && s[b - 1] != '/')
		b--;
	return b;
}


int
ui_put(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *s)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;
	const char *end;
	size_t brk, first;
	int used = 0, cw;

	if (maxw <= 0 || y < 0 || x < 0 || y >= getmaxy(w) ||
	    x >= getmaxx(w))
		return 0;
	if (maxw > getmaxx(w) - x)
		maxw = getmaxx(w) - x;
	end = s + keep_numbers(s, prefix_bytes(s, maxw, &brk, &first), 0);
	wattrset(w, attr);
	wmove(w, y, x);
	memset(&st, 0, sizeof(st));
	while (s < end && used < maxw) {
		if (!ui_term_get()->utf8) {
			waddch(w, (unsigned char)*s >= 0x80 ||
			    (unsigned char)*s < 0x20 ? '?' : (chtype)*s);
			s++;
			used++;
			continue;
		}
		n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		if (n == 0 || n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			waddch(w, '?');
			s++;
			used++;
			continue;
		}
		cw = wcwidth(wc);
		if (cw < 0 || wc < 0x20) {
			waddch(w, '?');
			cw = 1;
		} else if (used + cw > maxw)
			break;
		else
			waddnstr(w, s, (int)n);
		used += cw;
		s += n;
	}
	wattrset(w, A_NORMAL);
	return used;
}

/* ui_put_trunc: like ui_put, ending in an ellipsis when cut short. */
int
ui_put_trunc(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *s)
{
	const char *ell = ui_term_get()->g->ellipsis;
	char buf[1024];
	size_t n;
	int ew = ui_strwidth(ell);

	if (ui_strwidth(s) <= maxw || maxw <= ew)
		return ui_put(w, y, x, maxw, attr, s);
	n = ui_wrap(s, maxw - ew);
	/* ui_wrap prefers a space; a hard cut keeps more of the text. */
	while (s[n] != '\0' && ui_strwidth(s) > 0) {
		snprintf(buf, sizeof(buf), "%.*s", (int)n + 1, s);
		if (ui_strwidth(buf) > maxw - ew)
			break;
		n++;
	}
	n = keep_numbers(s, n, 1);
	snprintf(buf, sizeof(buf), "%.*s%s", (int)n, s, ell);
	return ui_put(w, y, x, maxw, attr, buf);
}

int
ui_putf(WINDOW *w, int y, int x, int maxw, attr_t attr, const char *fmt,
    ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ui_put(w, y, x, maxw, attr, buf);
}

void
ui_fill(WINDOW *w, int y, int x, int n, attr_t attr)
{
	int i;

	if (y < 0 || y >= getmaxy(w))
		return;
	wattrset(w, attr);
	for (i = 0; i < n && x + i < getmaxx(w); i++)
		mvwaddch(w, y, x + i, ' ');
	wattrset(w, A_NORMAL);
}

static void
win_free(WINDOW **w)
{
	if (*w != NULL)
		delwin(*w);
	*w = NULL;
}

void
ui_layout(struct ui *ui)
{
	size_t i;
	int body;

	ui->scr.lines = LINES;
	ui->scr.cols = COLS;
	win_free(&ui->scr.w_head);
	win_free(&ui->scr.w_tabs);
	win_free(&ui->scr.w_body);
	win_free(&ui->scr.w_status);
	win_free(&ui->scr.w_foot);
	werase(stdscr);
	wnoutrefresh(stdscr);
	ui->scr.too_small = COLS < UI_MIN_COLS || LINES < UI_MIN_LINES;
	ui_dirty(ui, UI_DIRTY_ALL);
	if (ui->scr.too_small)
		return;
	body = LINES - 4;
	ui->scr.w_head = newwin(1, COLS, 0, 0);
	ui->scr.w_tabs = newwin(1, COLS, 1, 0);
	ui->scr.w_body = newwin(body, COLS, 2, 0);
	ui->scr.w_status = newwin(1, COLS, LINES - 2, 0);
	ui->scr.w_foot = newwin(1, COLS, LINES - 1, 0);
	if (ui->scr.w_head == NULL || ui->scr.w_tabs == NULL ||
	    ui->scr.w_body == NULL || ui->scr.w_status == NULL ||
	    ui->scr.w_foot == NULL)
		ui_fatal("cannot create the screen windows (%dx%d)", COLS,
		    LINES);
	for (i = 0; i < ui->npanels; i++)
		if (ui->panels[i]->resize != NULL)
			ui->panels[i]->resize(ui, ui->pstate[i], body, COLS);
}

/* Header: program, file, layout, ring, selection, window; size right. */
static void
draw_head(struct ui *ui)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	const struct ui_ring *ring = ui_model_ring(ui);
	WINDOW *w = ui->scr.w_head;
	attr_t bg = ui_color_attr(UI_C_HEADER);
	attr_t lab = ui_color_attr(UI_C_HEADER_KEY);
	attr_t val = ui_color_attr(UI_C_HEADER_VAL);
	char size[32], v[5][160], file[512];
	const char *l[5] = { NULL, NULL, NULL, NULL, NULL };
	const char *base;
	const char *modified;
	int x, need, room, i, n = 0, fw, mw, level;

	ui_fill(w, 0, 0, COLS, bg);
	snprintf(size, sizeof(size), "%dx%d", COLS, LINES);
	base = ui->ses.meta != NULL ? ui->ses.meta->path : ui->ses.data_path;
	if (base != NULL && strrchr(base, '/') != NULL)
		base = strrchr(base, '/') + 1;
	/*
	 * What to give up for room, least useful first: the layout, the
	 * ring number (q stays), the long form of the modified mark, the
	 * version; then whole fields from the end.  The frame window, q
	 * and the selection stay to the last (issue 19: at 80 columns the
	 * modified mark pushed them out).
	 */
	for (level = 0;; level++) {
		modified = level >= 3 ? UI_MODIFIED_SHORT : UI_MODIFIED;
		mw = ui->ses.cfg_dirty ? (int)strlen(modified) + 2 : 0;
		x = 1 + ui_strwidth(PACKAGE_NAME) + 1;
		if (level < 4)
			x += ui_strwidth(PACKAGE_VERSION) + 3;
		else
			x += 2;
		n = 0;
		if (ui->ses.meta != NULL && ring != NULL) {
			if (level == 0) {
				l[n] = "";
				snprintf(v[n++], sizeof(v[0]), "%s",
				    het_layout_name(ui->ses.meta->layout));
			}
			l[n] = level >= 2 ? "" : "ring ";
			if (level >= 2)
				snprintf(v[n++], sizeof(v[0]), "q=%.4g",
				    ring->q);
			else
				snprintf(v[n++], sizeof(v[0]), "%zu/%zu q=%.4g",
				    ui->ses.sel.ring + 1, ui->ses.nrings,
				    ring->q);
			l[n] = "sel ";
			snprintf(v[n++], sizeof(v[0]), "%zu/%zu %s",
			    ui_model_ring_selected(ui, ui->ses.sel.ring),
			    ring->nbins, g->phi);
			l[n] = "frames ";
			snprintf(v[n++], sizeof(v[0]), "%ld%s%ld",
			    ui->ses.sel.first, g->dash, ui->ses.sel.last);
		} else if (ui->ses.mt_only) {
			l[n] = "";
			snprintf(v[n++], sizeof(v[0]), "multitau g2 only");
		}
		/* The file name wants 16 columns, less when it is short. */
		fw = base != NULL ? ui_strwidth(base) + 2 : 0;
		need = 0;
		for (i = 0; i < n; i++)
			need += ui_strwidth(l[i]) + ui_strwidth(v[i]) + 2;
		room = COLS - x - need - (int)strlen(size) - 2 - mw;
		if (room >= (fw < 16 ? fw : 16) || level >= 4)
			break;
	}
	/* Drop fields from the end until the file name fits. */
	while (n > 0 && room < (fw < 16 ? fw : 16)) {
		n--;
		room += ui_strwidth(l[n]) + ui_strwidth(v[n]) + 2;
	}
	x = 1;
	x += ui_put(w, 0, x, COLS, val, PACKAGE_NAME) + 1;
	if (level < 4)
		x += ui_put(w, 0, x, COLS, lab, PACKAGE_VERSION) + 3;
	else
		x += 2;
	if (base != NULL && room > 0) {
		fw = ui_strwidth(base);
		if (fw > room - 2 && room > 4) {
			/* Keep the end of the name: it tells runs apart. */
			while (ui_strwidth(base) > room - 3 && *base != '\0')
				base++;
			snprintf(file, sizeof(file), "%s%s", g->ellipsis, base);
		} else
			snprintf(file, sizeof(file), "%s", base);
		x += ui_put(w, 0, x, room, ui->ses.data_error != NULL &&
		    ui->ses.meta == NULL ? ui_color_attr(UI_C_ERROR) : val,
		    file);
		x += 2;
	}
	for (i = 0; i < n; i++) {
		x += ui_put(w, 0, x, COLS - x, lab, l[i]);
		x += ui_put(w, 0, x, COLS - x, val, v[i]) + 2;
	}
	if (mw > 0)
		ui_put(w, 0, COLS - (int)strlen(size) - 1 - mw, mw - 2,
		    ui_color_attr(UI_C_WARN) | A_BOLD, modified);
	ui_put(w, 0, COLS - (int)strlen(size) - 1, (int)strlen(size), val,
	    size);
}

static void
draw_tabs(struct ui *ui)
{
	WINDOW *w = ui->scr.w_tabs;
	char t[64];
	size_t i;
	int x = 1;

	for (i = 0; i < ui->npanels; i++) {
		snprintf(t, sizeof(t), " %zu %s ", i + 1, ui->panels[i]->name);
		x += ui_put(w, 0, x, COLS - x, i == ui->view.cur ?
		    ui_color_attr(UI_C_TAB_ACTIVE) : ui_color_attr(UI_C_TAB),
		    t) + 1;
	}
	if (ui->ses.io != NULL && het_io_busy(ui->ses.io))
		ui_put(w, 0, COLS - 12, 11, ui_color_attr(UI_C_WARN),
		    "  reading  ");
	else if (ui->ses.fit_running || ui->ses.batch_running)
		ui_put(w, 0, COLS - 12, 11, ui_color_attr(UI_C_WARN),
		    ui->ses.fit_running ? "  fitting  " : "  batch    ");
	else if (ui_sample_running(ui))
		ui_put(w, 0, COLS - 12, 11, ui_color_attr(UI_C_WARN),
		    "  sampling ");
	else if (ui_figs_note(ui, t, sizeof(t)) != NULL)
		ui_put(w, 0, COLS - 12, 11, ui_color_attr(UI_C_WARN),
		    "  figures  ");
}

static void
draw_status(struct ui *ui)
{
	WINDOW *w = ui->scr.w_status;
	static const enum ui_color lc[] = { UI_C_DIM, UI_C_INFO, UI_C_WARN,
	    UI_C_ERROR, UI_C_WARN };
	const char *text;
	char note[1024];
	int x, room;

	if (ui->view.prompt_on) {
		x = ui_put(w, 0, 1, COLS - 2, ui_color_attr(UI_C_PROMPT),
		    ui->view.prompt_label);
		/* A long text shows its end, where the typing happens. */
		room = COLS - x - 6;
		text = ui->view.prompt_buf;
		while (ui_strwidth(text) > room && *text != '\0')
			text++;
		x += 1 + ui_put(w, 0, x + 2, room,
		    ui->view.prompt_sel ? A_REVERSE :
		    A_NORMAL, text);
		ui_put(w, 0, x + 2, 1, A_REVERSE, " ");
		ui_put(w, 0, x + 4, COLS - x - 5, ui_color_attr(UI_C_DIM),
		    ui->view.prompt_sel ? "Enter accepts, typing replaces, Esc "
		    "cancels" : "Enter accepts, Esc cancels");
		return;
	}
	if (ui->view.confirm_quit) {
		ui_put(w, 0, 1, COLS - 2, ui_color_attr(UI_C_WARN),
		    ui_sample_running(ui) ? "Sampling is running. Quit, "
		    "stop it and write the finished shards? (y/n)" :
		    ui_work_running(ui) ? "Work is still running. Quit "
		    "anyway and stop it? (y/n)" : "The configuration has "
		    "unsaved edits (S saves them). Quit anyway? (y/n)");
		return;
	}
	if (ui->view.status[0] != '\0') {
		ui_put(w, 0, 1, COLS - 2,
		    ui_color_attr(lc[ui->view.status_level]),
		    ui->view.status);
		return;
	}
	if (ui_figs_note(ui, note, sizeof(note)) != NULL)
		ui_put(w, 0, 1, COLS - 2, ui_color_attr(UI_C_INFO), note);
	else if (ui->ses.opening)
		ui_putf(w, 0, 1, COLS - 2, ui_color_attr(UI_C_DIM),
		    "opening %s ...", ui->ses.data_path);
	else if (ui->ses.meta == NULL && ui->ses.data_error == NULL &&
	    !ui->ses.mt_only)
		ui_put(w, 0, 1, COLS - 2, ui_color_attr(UI_C_DIM),
		    "No file open. Press o to browse for a result file.");
	else if (ui->ses.meta != NULL || ui->ses.mt_only)
		ui_put(w, 0, 1, COLS - 2, ui_color_attr(UI_C_DIM), "Ready.");
}

static int
hint_width(const struct ui_hint *h, int ascii)
{
	return ui_strwidth(ascii ? h->key_ascii : h->key) +
	    ui_strwidth(h->label) + 3;
}

static int
draw_hint(WINDOW *w, int x, const struct ui_hint *h, int ascii)
{
	char lab[64];

	x += ui_put(w, 0, x, COLS - x, ui_color_attr(UI_C_FOOT_KEY),
	    ascii ? h->key_ascii : h->key);
	snprintf(lab, sizeof(lab), " %s  ", h->label);
	x += ui_put(w, 0, x, COLS - x, ui_color_attr(UI_C_FOOT_LABEL), lab);
	return x;
}

static void
draw_foot(struct ui *ui)
{
	const struct ui_panel_ops *p = ui->panels[ui->view.cur];
	const struct ui_hint *ph = p->hints_now != NULL ?
	    p->hints_now(ui, ui->pstate[ui->view.cur]) : NULL;
	WINDOW *w = ui->scr.w_foot;
	int ascii = !ui->scr.term.utf8, x = 0, room, i;

	if (ph == NULL)
		ph = p->hints;
	room = COLS - hint_width(&global_tail, ascii);
	for (i = 0; global_head[i].key != NULL; i++)
		x = draw_hint(w, x, &global_head[i], ascii);
	for (i = 0; ph != NULL && ph[i].key != NULL; i++) {
		if (x + hint_width(&ph[i], ascii) > room)
			break;
		x = draw_hint(w, x, &ph[i], ascii);
	}
	x = draw_hint(w, x, &global_tail, ascii);
	ui_fill(w, 0, x, COLS - x, ui_color_attr(UI_C_FOOT_LABEL));
}

/* Count lines of a help text. */
static int
help_lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static int
help_block(WINDOW *w, int y, int top, int bottom, int width,
    const char *text)
{
	char key[64], what[256];
	const char *p = text, *tab, *nl;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		tab = memchr(p, '\t', (size_t)(nl - p));
		if (tab == NULL)
			tab = nl;
		snprintf(key, sizeof(key), "%.*s", (int)(tab - p), p);
		snprintf(what, sizeof(what), "%.*s", tab < nl ?
		    (int)(nl - tab - 1) : 0, tab < nl ? tab + 1 : "");
		if (y >= top && y < bottom) {
			ui_put(w, y, 3, 14, ui_color_attr(UI_C_OVERLAY_KEY),
			    key);
			ui_put(w, y, 18, width - 20,
			    ui_color_attr(UI_C_OVERLAY), what);
		}
		y++;
		p = *nl != '\0' ? nl + 1 : nl;
	}
	return y;
}

static void
draw_help(struct ui *ui)
{
	const struct ui_panel_ops *p = ui->panels[ui->view.cur];
	const char *help = p->help_now != NULL ?
	    p->help_now(ui, ui->pstate[ui->view.cur]) : NULL;
	int h, wd, total, y, bl = getmaxy(ui->scr.w_body);
	attr_t a = ui_color_attr(UI_C_OVERLAY);
	WINDOW *w;
	char title[64];

	if (help == NULL)
		help = p->help;
	total = help_lines(help) + help_lines(global_help) + 3;
	wd = COLS - 8 < 76 ? COLS - 8 : 76;
	h = total + 2 < bl ? total + 2 : bl;
	w = newwin(h, wd, 2 + (bl - h) / 2, (COLS - wd) / 2);
	if (w == NULL)
		return;
	if (ui->view.help_scroll > total - (h - 2))
		ui->view.help_scroll = total - (h - 2) > 0 ?
		    total - (h - 2) : 0;
	wbkgdset(w, ' ' | a);
	werase(w);
	wattrset(w, a);
	if (ui->scr.term.utf8)
		box(w, 0, 0);
	else
		wborder(w, '|', '|', '-', '-', '+', '+', '+', '+');
	snprintf(title, sizeof(title), " Help: %s ", p->name);
	ui_put(w, 0, 2, wd - 4, a | A_BOLD, title);
	y = 1 - ui->view.help_scroll;
	y = help_block(w, y, 1, h - 1, wd, help);
	y++;
	if (y >= 1 && y < h - 1)
		ui_put(w, y, 3, wd - 6, a | A_BOLD, "Everywhere");
	y = help_block(w, y + 1, 1, h - 1, wd, global_help);
	ui_put(w, h - 1, wd - 22, 20, a, y > h - 1 ?
	    " more: Down/PgDn " : " any key closes ");
	wnoutrefresh(w);
	delwin(w);
}

static void
draw_too_small(struct ui *ui)
{
	char l1[128], l2[128];
	const char *l3 = "Enlarge the window, or press q to quit.";
	int y = LINES / 2 - 1;

	snprintf(l1, sizeof(l1), "Terminal too small: %dx%d", COLS, LINES);
	snprintf(l2, sizeof(l2), "hetui needs at least %dx%d.", UI_MIN_COLS,
	    UI_MIN_LINES);
	werase(stdscr);
	ui_put(stdscr, y, (COLS - (int)strlen(l1)) / 2, COLS,
	    ui_color_attr(UI_C_WARN), l1);
	ui_put(stdscr, y + 1, (COLS - (int)strlen(l2)) / 2, COLS, A_NORMAL,
	    l2);
	ui_put(stdscr, y + 2, (COLS - (int)strlen(l3)) / 2, COLS,
	    ui_color_attr(UI_C_DIM), l3);
	wnoutrefresh(stdscr);
}

void
ui_render(struct ui *ui)
{
	const struct ui_panel_ops *p;

	if (ui->view.dirty == 0)
		return;
	if (ui->scr.too_small) {
		draw_too_small(ui);
		ui->view.dirty = 0;
		doupdate();
		return;
	}
	if (ui->view.dirty & UI_DIRTY_HEAD) {
		werase(ui->scr.w_head);
		draw_head(ui);
		wnoutrefresh(ui->scr.w_head);
	}
	if (ui->view.dirty & UI_DIRTY_TABS) {
		werase(ui->scr.w_tabs);
		draw_tabs(ui);
		wnoutrefresh(ui->scr.w_tabs);
	}
	if (ui->view.dirty & UI_DIRTY_BODY) {
		p = ui->panels[ui->view.cur];
		werase(ui->scr.w_body);
		p->draw(ui, ui->pstate[ui->view.cur], ui->scr.w_body);
		wnoutrefresh(ui->scr.w_body);
		if (ui->view.help)
			draw_help(ui);
	}
	if (ui->view.dirty & UI_DIRTY_STATUS) {
		werase(ui->scr.w_status);
		draw_status(ui);
		wnoutrefresh(ui->scr.w_status);
	}
	if (ui->view.dirty & UI_DIRTY_FOOT) {
		werase(ui->scr.w_foot);
		draw_foot(ui);
		wnoutrefresh(ui->scr.w_foot);
	}
	ui->view.dirty = 0;
	doupdate();
}

void
ui_prompt_open(struct ui *ui, const char *label, const char *init,
    void (*done)(struct ui *, const char *))
{
	snprintf(ui->view.prompt_label, sizeof(ui->view.prompt_label), "%s",
	    label);
	snprintf(ui->view.prompt_buf, sizeof(ui->view.prompt_buf), "%s",
	    init != NULL ? init : "");
	ui->view.prompt_len = strlen(ui->view.prompt_buf);
	ui->view.prompt_done = done;
	ui->view.prompt_on = 1;
	ui->view.prompt_sel = 0;
	ui_dirty(ui, UI_DIRTY_STATUS);
}

/* ui_prompt_open_sel: the same with init selected (typing replaces it). */
void
ui_prompt_open_sel(struct ui *ui, const char *label, const char *init,
    void (*done)(struct ui *, const char *))
{
	ui_prompt_open(ui, label, init, done);
	ui->view.prompt_sel = ui->view.prompt_len > 0;
}

int
ui_prompt_key(struct ui *ui, int key)
{
	void (*done)(struct ui *, const char *);
	char text[sizeof(ui->view.prompt_buf)];

	if (!ui->view.prompt_on)
		return 0;
	ui_dirty(ui, UI_DIRTY_STATUS);
	if (ui->view.prompt_sel) {
		/* The selected text goes on a character or on erasing. */
		ui->view.prompt_sel = 0;
		if ((key >= 0x20 && key < 0x7f) || key == UI_K_BACKSPACE ||
		    key == 0x7f || key == 0x08) {
			ui->view.prompt_len = 0;
			ui->view.prompt_buf[0] = '\0';
			if (key < 0x20 || key >= 0x7f)
				return 1;
		}
	}
	switch (key) {
	case UI_K_ESC:
		ui->view.prompt_on = 0;
		ui_msg(ui, UI_LOG_INFO, "%s cancelled", ui->view.prompt_label);
		return 1;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		ui->view.prompt_on = 0;
		snprintf(text, sizeof(text), "%s", ui->view.prompt_buf);
		done = ui->view.prompt_done;
		done(ui, text);
		return 1;
	case UI_K_BACKSPACE:
	case 0x7f:
	case 0x08:
		if (ui->view.prompt_len > 0)
			ui->view.prompt_buf[--ui->view.prompt_len] = '\0';
		return 1;
	case 0x15:	/* Ctrl-U */
		ui->view.prompt_len = 0;
		ui->view.prompt_buf[0] = '\0';
		return 1;
	}
	if (key >= 0x20 && key < 0x7f &&
	    ui->view.prompt_len + 1 < sizeof(ui->view.prompt_buf)) {
		ui->view.prompt_buf[ui->view.prompt_len++] = (char)key;
		ui->view.prompt_buf[ui->view.prompt_len] = '\0';
	}
	return 1;
}

const char *
ui_range_text(char *buf, size_t len, size_t top, size_t rows, size_t total,
    const char *whole)
{
	size_t last = top + rows < total ? top + rows : total;

	if (rows >= total)
		return whole;
	snprintf(buf, len, "%zu-%zu/%zu", top + 1, last, total);
	return buf;
}
