/*
 * ui_browse_draw.c: drawing the file browser overlay and the status
 * line's "follow: DIR" tag (see ui_browse.c for the design).
 *
 * Design: the overlay is a window over the panel body, drawn after the
 * render pass whenever the body was redrawn under it (ui_browse_render),
 * like the help overlay.  The name column is as wide as the longest name
 * so that an unreadable file's reason, which runs from the format column
 * to the edge, gets the rest; the line above the bottom border carries
 * the folder's note, a listing error or the reason of the file under the
 * cursor.  Drawing never changes the listing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui.h"
#include "ui_browse.h"

#define COL_TIME	19	/* "2026-11-23 10:40:12" */
#define COL_FORMAT	10
#define COL_BINS	6
#define COL_FRAMES	7
#define NAME_MIN	16

static const char browse_keys[] = " Enter open  Bksp up  / path  "
    "F follow  Esc close ";

static void
put_right(WINDOW *w, int y, int x, int wd, attr_t a, const char *s)
{
	int sw = ui_strwidth(s);

	if (sw < wd)
		x += wd - sw;
	ui_put(w, y, x, wd, a, s);
}

/* A path that fits wd columns: its end, after an ellipsis. */
static void
fit_path(char *out, size_t len, const char *path, int wd,
    const struct ui_glyphs *g)
{
	const char *p = path;

	if (ui_strwidth(path) <= wd) {
		snprintf(out, len, "%s", path);
		return;
	}
	while (*p != '\0' && ui_strwidth(p) > wd - 1)
		p++;
	snprintf(out, len, "%s%s", g->ellipsis, p);
}

/*
 * The name column fits the longest name (at least NAME_MIN, at most what
 * the fixed columns leave), so the reason of an unreadable file, which
 * runs from the format column to the edge, gets the rest.
 */
static int
name_width(const struct ui_browse *b, int iw)
{
	const struct het_scan_list *l = b->list;
	int most = iw - 2 - COL_TIME - COL_FORMAT - COL_BINS - COL_FRAMES - 5;
	int want = NAME_MIN, wd;
	size_t i;

	for (i = 0; l != NULL && i < l->nfiles; i++)
		if ((wd = ui_strwidth(l->files[i].name) + 1) > want)
			want = wd;
	for (i = 0; l != NULL && i < l->ndirs; i++)
		if ((wd = ui_strwidth(l->dirs[i].name) + 2) > want)
			want = wd;
	return want < most ? want : most;
}

static void
draw_row(struct ui *ui, WINDOW *w, int y, int iw, size_t row, int cur)
{
	struct ui_browse *b = ui->ses.browse;
	const struct het_scan_list *l = b->list;
	const struct het_scan_entry *e = NULL;
	const char *open = b->open_abs;
	int nw = b->nw, x = 1, dir = 0, isopen = 0;
	attr_t a = cur ? ui_color_attr(UI_C_CURSOR) : A_NORMAL;
	attr_t d = cur ? a : ui_color_attr(UI_C_DIM);
	char name[512], tbuf[32], buf[64], *full;
	struct tm tm;

	if (cur)
		ui_fill(w, y, 1, iw, a);
	if (row == 0) {
		ui_put(w, y, x + 2, nw, a, "../");
		ui_put(w, y, x + 2 + nw + 1 + COL_TIME + 1, iw - nw - 4 -
		    COL_TIME, d, "parent folder");
		return;
	}
	if (row <= l->ndirs) {
		e = &l->dirs[row - 1];
		dir = 1;
	} else
		e = &l->files[row - 1 - l->ndirs];
	if (!dir && open != NULL) {
		full = ui_browse_join(l->dir, e->name);
		isopen = strcmp(full, open) == 0;
		free(full);
	}
	if (isopen)
		ui_put(w, y, x, 2, cur ? a : ui_color_attr(UI_C_MARK),
		    ui->scr.term.g->mark_on);
	snprintf(name, sizeof(name), "%s%s", e->name, dir ? "/" : "");
	ui_put_trunc(w, y, x + 2, nw, dir ? a | A_BOLD : a, name);
	x += 2 + nw + 1;
	localtime_r(&e->mtime, &tm);
	strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S", &tm);
	ui_put(w, y, x, COL_TIME, d, tbuf);
	x += COL_TIME + 1;
	if (dir) {
		ui_put(w, y, x, COL_FORMAT, d, "folder");
		return;
	}
	if (!e->probed) {
		ui_put(w, y, x, COL_FORMAT, d, "reading");
		return;
	}
	if (!e->ok) {
		snprintf(name, sizeof(name), "unreadable: %s", e->error !=
		    NULL ? e->error : "?");
		ui_put(w, y, x, iw - x + 1, cur ? a :
		    ui_color_attr(UI_C_WARN), name);
		return;
	}
	ui_put(w, y, x, COL_FORMAT, a, e->multitau ? "multitau" :
	    het_layout_name(e->layout));
	x += COL_FORMAT + 1;
	snprintf(buf, sizeof(buf), "%zu", e->nbins);
	put_right(w, y, x, COL_BINS, a, buf);
	x += COL_BINS + 1;
	snprintf(buf, sizeof(buf), e->multitau ? "-" : "%zu", e->frames);
	put_right(w, y, x, COL_FRAMES, a, buf);
}

static void
draw_overlay(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;
	const struct het_scan_list *l = b->list;
	const struct ui_glyphs *g = ui->scr.term.g;
	int bl = getmaxy(ui->scr.w_body), wd, h, iw, y, nw, x;
	attr_t a = ui_color_attr(UI_C_OVERLAY), lab = ui_color_attr(UI_C_LABEL);
	size_t n = ui_browse_rows(b), i;
	char buf[1200], path[1100];
	const char *info = NULL;
	attr_t ia = ui_color_attr(UI_C_DIM);
	WINDOW *w;

	/* Narrow terminals: the whole width; wide ones: a framed window. */
	wd = COLS <= 100 ? COLS : COLS - 4 < 120 ? COLS - 4 : 120;
	h = bl;
	if (wd < 40 || h < 8)
		return;
	if ((w = newwin(h, wd, 2, (COLS - wd) / 2)) == NULL)
		return;
	iw = wd - 2;
	wbkgdset(w, ' ' | a);
	werase(w);
	wattrset(w, a);
	if (ui->scr.term.utf8)
		box(w, 0, 0);
	else
		wborder(w, '|', '|', '-', '-', '+', '+', '+', '+');
	ui_put(w, 0, 2, wd - 4, a | A_BOLD, " Open a result file ");
	free(b->open_abs);
	b->open_abs = ui->ses.meta != NULL ?
	    ui_browse_abs(ui->ses.meta->path) : NULL;
	snprintf(buf, sizeof(buf), "%zu result file%s", l != NULL ? l->nfiles :
	    0, l != NULL && l->nfiles == 1 ? "" : "s");
	if (l == NULL || b->loading)
		snprintf(buf, sizeof(buf), "reading folder ...");
	fit_path(path, sizeof(path), b->dir != NULL ? b->dir : ".", iw -
	    ui_strwidth(buf) - 4, g);
	ui_put(w, 1, 2, iw - 2, ui_color_attr(UI_C_VALUE) | A_BOLD, path);
	put_right(w, 1, 1, iw - 1, ui_color_attr(UI_C_DIM), buf);
	b->nw = name_width(b, iw);
	nw = b->nw;
	x = 3;
	ui_put(w, 2, x, nw, lab | A_BOLD, "name");
	x += nw + 1;
	ui_put(w, 2, x, COL_TIME, lab | A_BOLD, "modified");
	x += COL_TIME + 1;
	ui_put(w, 2, x, COL_FORMAT, lab | A_BOLD, "format");
	x += COL_FORMAT + 1;
	put_right(w, 2, x, COL_BINS, lab | A_BOLD, "bins");
	x += COL_BINS + 1;
	put_right(w, 2, x, COL_FRAMES, lab | A_BOLD, "frames");
	b->rows = h - 5;
	if (b->cur < b->top)
		b->top = b->cur;
	if (b->rows > 0 && b->cur >= b->top + (size_t)b->rows)
		b->top = b->cur - (size_t)b->rows + 1;
	for (y = 0, i = b->top; y < b->rows && i < n; y++, i++)
		draw_row(ui, w, 3 + y, iw, i, i == b->cur);
	if (b->error != NULL) {
		info = b->error;
		ia = ui_color_attr(UI_C_ERROR);
	} else if (l != NULL && l->note != NULL) {
		info = l->note;
		ia = ui_color_attr(UI_C_WARN);
	} else if (l != NULL && b->cur > l->ndirs && !l->files[b->cur - 1 -
	    l->ndirs].ok && l->files[b->cur - 1 - l->ndirs].error != NULL) {
		info = l->files[b->cur - 1 - l->ndirs].error;
		ia = ui_color_attr(UI_C_WARN);
	} else if (b->follow && b->follow_dir != NULL) {
		snprintf(buf, sizeof(buf), "following %s", b->follow_dir);
		info = buf;
	}
	if (info != NULL)
		ui_put_trunc(w, h - 2, 2, iw - 2, ia, info);
	if (n > (size_t)b->rows && b->rows > 0) {
		snprintf(buf, sizeof(buf), " %zu-%zu of %zu ", b->top + 1,
		    b->top + (size_t)y, n);
		put_right(w, h - 1, 1, iw - 1, a, buf);
	}
	ui_put(w, h - 1, 2, iw - 16, a, browse_keys);
	wnoutrefresh(w);
	delwin(w);
}

/* "follow: DIR" at the right end of the status line. */
static void
draw_follow(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;
	const struct ui_glyphs *g = ui->scr.term.g;
	WINDOW *w = ui->scr.w_status;
	int left, room;
	char path[1100], buf[1200];

	if (ui->view.prompt_on || ui->view.confirm_quit)
		return;
	if (ui->view.status[0] != '\0')
		left = ui_strwidth(ui->view.status) + 1;
	else if (ui->ses.opening)
		left = ui_strwidth(ui->ses.data_path) + 12;
	else
		left = ui->ses.meta != NULL ? 7 : 67;
	room = COLS - left - 3 - 8;
	if (room < 8)
		return;
	fit_path(path, sizeof(path), b->follow_dir, room, g);
	snprintf(buf, sizeof(buf), "follow: %s", path);
	put_right(w, 0, 0, COLS - 1, ui_color_attr(b->follow_ok ? UI_C_INFO :
	    UI_C_DIM) | A_BOLD, buf);
	wnoutrefresh(w);
}

void
ui_browse_render(struct ui *ui, int dirty)
{
	struct ui_browse *b = ui->ses.browse;
	int drawn = 0;

	if (b == NULL || ui->scr.too_small || dirty == 0)
		return;
	if (b->on && !ui->view.help && (dirty & UI_DIRTY_BODY)) {
		draw_overlay(ui);
		drawn = 1;
	}
	if (b->follow && b->follow_dir != NULL && (dirty & UI_DIRTY_STATUS)) {
		draw_follow(ui);
		drawn = 1;
	}
	if (drawn)
		doupdate();
}
