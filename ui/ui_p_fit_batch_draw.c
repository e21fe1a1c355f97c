/*
 * ui_p_fit_batch_draw.c: the Fit panel's view of a batch (e, t): a
 * title with what it fits and its state, the batch folder, one line per
 * ring or file (status and reduced chi-square, the one being fitted with
 * its reading or iteration, the reason of a failure), the warnings,
 * and at the end the summary the command prints (the table, and each
 * parameter plotted against q or the file index with its slope or
 * drift), or why the batch failed.
 *
 * Design: the view is lines made from het_batch's view at each draw
 * (nothing is kept between draws but the scroll position), shown from
 * the first line scrolled to and from the column scrolled to, so a wide
 * table can be read at 80 columns.  Loop thread only; no file is read.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"
#include "ui_p_fit.h"

struct bline {
	attr_t		 attr;
	char		*text;
};

struct blines {
	struct bline	*l;
	size_t		 n, cap;
};

static void __attribute__((format(printf, 3, 4)))
add(struct blines *b, attr_t attr, const char *fmt, ...)
{
	va_list ap;
	char *t;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		ui_fatal("out of memory drawing the batch");
	va_end(ap);
	if (b->n == b->cap) {
		b->cap = b->cap == 0 ? 64 : 2 * b->cap;
		if ((b->l = realloc(b->l, b->cap * sizeof(*b->l))) == NULL)
			ui_fatal("out of memory drawing the batch");
	}
	b->l[b->n].attr = attr;
	b->l[b->n++].text = t;
}

/* Each line of text (the summary) as lines of the view. */
static void
add_text(struct blines *b, attr_t attr, const char *text)
{
	const char *p = text, *nl;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		add(b, attr, "%.*s", (int)(nl != NULL ? nl - p : (long)
		    strlen(p)), p);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

/* A sentence word-wrapped to width columns, as lines of the view. */
static void
add_wrapped(struct blines *b, attr_t attr, const char *s, int width)
{
	size_t n;

	while (*s != '\0') {
		n = ui_wrap(s, width > 8 ? width : 8);
		add(b, attr, "%.*s", (int)n, s);
		s += n;
		while (*s == ' ')
			s++;
	}
}

/* The status column of member k. */
static void
status_of(const struct het_batch_view *v, size_t k, char *buf, size_t len,
    attr_t *attr)
{
	const struct het_batch_member *m = &v->m[k];

	*attr = A_NORMAL;
	if (m->status != NULL) {
		if (strcmp(m->status, "converged") != 0)
			*attr = ui_color_attr(UI_C_WARN);
		if (isfinite(m->chi2_red))
			snprintf(buf, len, "%-15s %9.4g", m->status,
			    m->chi2_red);
		else
			snprintf(buf, len, "%-15s %9s", m->status, "-");
		return;
	}
	*attr = ui_color_attr(UI_C_VALUE);
	if (!v->running)
		snprintf(buf, len, "%-15s", "ended");
	else if (v->iterating)
		snprintf(buf, len, "%s%siter %ld  chi2_red %.4g  cost %.3e",
		    v->who, v->who[0] != '\0' ? " " : "", v->iter,
		    v->chi2_red, v->cost);
	else if (v->bins > 0)
		snprintf(buf, len, "reading bin %zu/%zu", v->bin, v->bins);
	else
		snprintf(buf, len, "starting");
}

static void
lines_members(const struct het_batch_view *v, struct blines *b)
{
	const char *unit = v->kind == HET_BATCH_RINGS ? "ring" : "file";
	char st[160], from[32];
	attr_t a;
	size_t k;

	add(b, ui_color_attr(UI_C_LABEL), "folder   %s", v->batch_dir != NULL ?
	    v->batch_dir : "(not made yet)");
	add(b, ui_color_attr(UI_C_LABEL) | A_BOLD, "%4s  %-30s %-5s %-15s "
	    "%9s", "#", v->kind == HET_BATCH_RINGS ? "ring" : "file", v->kind ==
	    HET_BATCH_SERIES ? "from" : "", "status", "chi2_red");
	for (k = 0; k < v->nm; k++) {
		status_of(v, k, st, sizeof(st), &a);
		snprintf(from, sizeof(from), "%ld", v->m[k].from);
		add(b, a, "%4zu  %-30.30s %-5s %s", k + 1, v->m[k].label,
		    v->kind == HET_BATCH_SERIES && v->m[k].from > 0 ? from :
		    v->kind == HET_BATCH_SERIES ? "-" : "", st);
		if (v->m[k].msg != NULL)
			add(b, ui_color_attr(UI_C_WARN), "      %s",
			    v->m[k].msg);
	}
	if (v->of > v->nm)
		add(b, ui_color_attr(UI_C_DIM), "      %zu more %s%s %s", v->of -
		    v->nm, unit, v->of - v->nm == 1 ? "" : "s", v->running ?
		    "to go" : "not started");
}

static void
lines_batch(const struct fit_state *s, struct blines *b)
{
	const struct het_batch_view *v = het_batch_view(s->batch);
	size_t k;

	lines_members(v, b);
	if (v->nnotes > 0) {
		add(b, A_NORMAL, "%s", "");
		add(b, ui_color_attr(UI_C_LABEL) | A_BOLD, "Warnings %zu",
		    v->nnotes);
		for (k = 0; k < v->nnotes; k++)
			add(b, ui_color_attr(UI_C_WARN), "  %s", v->notes[k]);
	}
	if (v->running)
		return;
	add(b, A_NORMAL, "%s", "");
	if (!v->have_result) {
		add(b, ui_color_attr(UI_C_ERROR), "%s", " The batch failed ");
		add_wrapped(b, A_NORMAL, v->error != NULL ? v->error :
		    "no reason given", s->cols - 2);
		return;
	}
	add(b, ui_color_attr(UI_C_LABEL) | A_BOLD, "Summary (%s, exit "
	    "status %d)", v->status, v->exit_code);
	add_text(b, A_NORMAL, v->summary != NULL ? v->summary : "");
}

/* text from display column col on (one column per character). */
static const char *
from_col(const char *text, int col)
{
	mbstate_t st;
	size_t k;

	memset(&st, 0, sizeof(st));
	while (col-- > 0 && *text != '\0') {
		k = mbrlen(text, strlen(text), &st);
		text += k == 0 || k > 4 ? 1 : k;
	}
	return text;
}

static void
draw_title(struct ui *ui, const struct fit_state *s, WINDOW *w)
{
	const struct het_batch_view *v = het_batch_view(s->batch);
	attr_t ta = ui_color_attr(UI_C_TITLE);
	char st[96];
	double t = (v->running ? ui_now() : v->ended) - v->started;

	if (v->running)
		snprintf(st, sizeof(st), "%s %.0f s", v->cancelling ?
		    "cancelling" : "running", t);
	else
		snprintf(st, sizeof(st), "%s in %.0f s", v->have_result ?
		    v->status : "failed", t);
	ui_fill(w, 0, 0, s->cols, ta);
	ui_putf(w, 0, 1, s->cols - 2, ta, "Batch  %s  %s", st, s->bwhat);
}

void
fp_batch_draw(struct ui *ui, struct fit_state *s, WINDOW *w)
{
	struct blines b;
	size_t k, top, rows = s->rows > 1 ? (size_t)s->rows - 1 : 0;
	char range[48];

	memset(&b, 0, sizeof(b));
	lines_batch(s, &b);
	draw_title(ui, s, w);
	if (s->btop + rows > b.n)
		s->btop = b.n > rows ? b.n - rows : 0;
	top = s->btop;
	for (k = 0; k < rows && top + k < b.n; k++)
		ui_put_trunc(w, (int)k + 1, 1, s->cols - 2, b.l[top + k].attr,
		    from_col(b.l[top + k].text, s->bleft));
	if (b.n > rows) {	/* where the view is, in the title */
		ui_range_text(range, sizeof(range), top, rows, b.n, "");
		ui_put(w, 0, s->cols - ui_strwidth(range) - 2,
		    ui_strwidth(range) + 1, ui_color_attr(UI_C_TITLE), range);
	}
	for (k = 0; k < b.n; k++)
		free(b.l[k].text);
	free(b.l);
}
