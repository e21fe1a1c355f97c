/*
 * ui_p_model_draw.c: drawing of the Model panel (see ui_p_model.c).
 *
 * Design: three fixed lines (title, mode, column heads), then one
 * scrolling list of lines: the parameter rows, a refusal under the row it
 * concerns, the scaling section and the per-angle lists; the last line
 * describes the parameter under the cursor.  Columns are right-aligned
 * numbers of fixed width that grow a little with the terminal, as in
 * htop; the cell under the cursor is highlighted inside the cursor row.
 * Only the scroll position of the panel state changes here.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ui.h"
#include "ui_p_model.h"

/* The lines of the scrolling part; returns how many. */
static size_t
build_lines(const struct ui *ui, const struct model_state *s,
    struct mline_ref *l, size_t max)
{
	const struct het_config *c = ui->ses.cfg;
	size_t n = 0, i;

#define ADD(k, r) do { if (n < max) { l[n].kind = (k); l[n].row = (r); \
	n++; } } while (0)
	for (i = 0; i < mp_nrows(c); i++) {
		if (i == c->nphys) {
			ADD(ML_BLANK, 0);
			ADD(ML_STITLE, 0);
			ADD(ML_SMODE, 0);
		}
		ADD(ML_PARAM, i);
		if (s->err_on && s->err_row == i)
			ADD(ML_ERROR, i);
	}
	if (c->scaling.ninit_contrast > 0)
		ADD(ML_ANGLE, 0);
	if (c->scaling.ninit_offset > 0)
		ADD(ML_ANGLE, 1);
#undef ADD
	return n;
}

/*
 * Column widths: the name column fits the mode's longest name; the prior
 * column takes what the numbers and the unit leave, up to 26.
 */
static void
mp_columns(struct ui *ui, struct model_state *s)
{
	size_t i, n = mp_nrows(ui->ses.cfg);
	int len, fixed, avail;

	s->wn = 9;	/* "parameter" */
	for (i = 0; i < n; i++) {
		len = (int)strlen(mp_row_def(ui->ses.cfg, i)->name);
		if (len > s->wn)
			s->wn = len;
	}
	/* name, value, min, max, vary (4) and prior, a space after each */
	fixed = 1 + s->wn + 1 + s->wv + 1 + 2 * (s->wb + 1) + 4 + 1;
	avail = s->cols - fixed - 2;	/* prior and unit */
	s->wu = avail - 26;		/* the prior takes up to 26 ... */
	if (s->wu < avail - 12)		/* ... and gives up to 14 */
		s->wu = avail - 12;
	if (s->wu > 17)
		s->wu = 17;
	if (s->wu < 9)
		s->wu = 9;
	s->wp = avail - s->wu;
	if (s->wp > 26)
		s->wp = 26;
	if (s->wp < 8)
		s->wp = 8;
}

/* Text of a cell at width wd, right-aligned for numbers. */
static void
put_cell(WINDOW *w, int y, int x, int wd, attr_t a, const char *t,
    int right)
{
	int tw = ui_strwidth(t);

	ui_fill(w, y, x, wd, a);
	ui_put(w, y, right && tw < wd ? x + wd - tw : x, wd, a, t);
}

static void
draw_row(struct ui *ui, struct model_state *s, WINDOW *w, int y,
    size_t row)
{
	struct het_config_param *p = mp_row_param(ui->ses.cfg, row);
	const struct het_param_def *d = mp_row_def(ui->ses.cfg, row);
	const struct ui_glyphs *g = ui->scr.term.g;
	int cur = row == s->row && !s->menu, wd[MC_COUNT], i, x;
	attr_t ra, a;
	char cell[MC_COUNT][96];

	ra = cur ? ui_color_attr(UI_C_CURSOR_DIM) : p->vary ? A_NORMAL :
	    ui_color_attr(UI_C_DIM);
	if (cur)
		ui_fill(w, y, 0, s->cols, ra);
	ui_put(w, y, 1, s->wn, s->err_on && s->err_row == row && !cur ?
	    ui_color_attr(UI_C_ERROR) : ra, d->name);
	wd[MC_VALUE] = s->wv;
	wd[MC_MIN] = wd[MC_MAX] = s->wb;
	wd[MC_VARY] = 4;
	wd[MC_PRIOR] = s->wp;
	mp_fmt_fit(cell[MC_VALUE], sizeof(cell[0]), p->value, s->wv);
	mp_fmt_fit(cell[MC_MIN], sizeof(cell[0]), p->lo, s->wb);
	mp_fmt_fit(cell[MC_MAX], sizeof(cell[0]), p->hi, s->wb);
	snprintf(cell[MC_VARY], sizeof(cell[0]), "  %s", p->vary ?
	    g->mark_on : g->mark_off);
	mp_fmt_prior(cell[MC_PRIOR], sizeof(cell[0]), &p->prior, 0);
	x = s->wn + 2;
	for (i = 0; i < MC_COUNT; i++) {
		a = cur && i == s->col ? ui_color_attr(UI_C_CURSOR) : ra;
		if (i == MC_VARY && !cur)
			a = p->vary ? ui_color_attr(UI_C_MARK) : ra;
		if (i == MC_PRIOR && (int)strlen(cell[i]) > wd[i])
			ui_put_trunc(w, y, x, wd[i], a, cell[i]);
		else
			put_cell(w, y, x, wd[i], a, cell[i], i <= MC_MAX);
		x += wd[i] + 1;
	}
	ui_put_trunc(w, y, x, s->cols - x - 1, ra, ui->scr.term.utf8 ? d->unit :
	    d->ascii_unit);
}

static void
draw_angles(struct ui *ui, struct model_state *s, WINDOW *w, int y,
    size_t which)
{
	const struct het_config_scaling *sc = &ui->ses.cfg->scaling;
	const double *v = which == 0 ? sc->init_contrast : sc->init_offset;
	size_t n = which == 0 ? sc->ninit_contrast : sc->ninit_offset, i;
	char buf[1024], num[32];
	int x;

	x = 3 + ui_putf(w, y, 3, 30, ui_color_attr(UI_C_LABEL), "%s per "
	    "angle (%zu)", which == 0 ? "contrast" : "offset", n);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		snprintf(num, sizeof(num), " %.4g", v[i]);
		strncat(buf, num, sizeof(buf) - strlen(buf) - 1);
	}
	ui_put_trunc(w, y, x, s->cols - x - 1, ui_color_attr(UI_C_VALUE),
	    buf);
}

static void
draw_smode(struct ui *ui, struct model_state *s, WINDOW *w, int y)
{
	const struct het_config_scaling *sc = &ui->ses.cfg->scaling;
	const struct ui_ring *r = ui_model_ring(ui);
	char buf[256];
	size_t na;
	int x;

	x = 3 + ui_put(w, y, 3, 10, ui_color_attr(UI_C_LABEL), "mode  ");
	snprintf(buf, sizeof(buf), "NLSQ %s",
	    het_config_scaling_name(sc->nlsq_mode));
	x += ui_put(w, y, x, s->cols - x, ui_color_attr(UI_C_VALUE), buf);
	if (sc->nlsq_mode == HET_SCALING_AUTO && r != NULL) {
		na = ui_model_ring_selected(ui, ui->ses.sel.ring);
		snprintf(buf, sizeof(buf), " (%s with %zu angle%s)",
		    het_config_scaling_name(het_config_scaling_resolve(
		    ui->ses.cfg, na, 0)), na, na == 1 ? "" : "s");
		x += ui_put(w, y, x, s->cols - x, ui_color_attr(UI_C_DIM),
		    buf);
	}
	snprintf(buf, sizeof(buf), "   CMC %s",
	    het_config_scaling_name(sc->cmc_mode));
	x += ui_put(w, y, x, s->cols - x, ui_color_attr(UI_C_VALUE), buf);
	ui_put(w, y, x, s->cols - x, ui_color_attr(UI_C_DIM), "   s cycles");
}

static void
draw_menu(struct ui *ui, struct model_state *s, WINDOW *w)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	int i, y0 = 2, x0 = 8, wd = 56;
	attr_t a;
	size_t k, nv;
	char buf[128];

	if (wd > s->cols - x0 - 2)
		wd = s->cols - x0 - 2;
	for (i = 0; i < HET_MODE_COUNT + 3; i++)
		ui_fill(w, y0 + i, x0, wd, ui_color_attr(UI_C_OVERLAY));
	ui_put(w, y0, x0 + 2, wd - 4, ui_color_attr(UI_C_OVERLAY) | A_BOLD,
	    "Analysis mode  (Enter chooses, Esc keeps)");
	for (i = 0; i < HET_MODE_COUNT; i++) {
		nv = 0;
		for (k = 0; k < het_mode_nphys((enum het_mode)i); k++)
			nv += het_mode_default_vary((enum het_mode)i, k) != 0;
		snprintf(buf, sizeof(buf), "%s %d %-14s %-10s %2zu parameters, "
		    "%2zu vary", i == (int)ui->ses.cfg->mode ? g->mark_on : " ",
		    i + 1, het_mode_name((enum het_mode)i),
		    het_mode_family((enum het_mode)i) == HET_FAMILY_HETERODYNE ?
		    "heterodyne" : "homodyne", het_mode_nphys((enum het_mode)i),
		    nv);
		a = i == s->menu_pos ? ui_color_attr(UI_C_CURSOR) :
		    ui_color_attr(UI_C_OVERLAY);
		ui_fill(w, y0 + 2 + i, x0 + 1, wd - 2, a);
		ui_put(w, y0 + 2 + i, x0 + 2, wd - 4, a, buf);
	}
}

void
mp_draw(struct ui *ui, void *state, WINDOW *w)
{
	struct model_state *s = state;
	const struct het_config *c = ui->ses.cfg;
	struct mline_ref l[HET_MAX_PHYS + 16];
	const struct het_param_def *d;
	size_t n, i, cl = 0, ce;
	int y, h, x, nv = 0;
	const char *base;
	char buf[512], eb[sizeof(s->err) + 8];

	mp_sync(ui, s);
	if (s->row >= mp_nrows(c))
		s->row = 0;
	ui_fill(w, 0, 0, s->cols, ui_color_attr(UI_C_TITLE));
	base = ui->ses.cfg_path != NULL && strrchr(ui->ses.cfg_path,
	    '/') != NULL ?
	    strrchr(ui->ses.cfg_path, '/') + 1 : ui->ses.cfg_path;
	snprintf(buf, sizeof(buf), "Model  config %s%s", base != NULL ? base :
	    "(defaults, not saved)", ui->ses.cfg_dirty ? "  modified" : "");
	ui_put(w, 0, 1, s->cols - 2, ui_color_attr(UI_C_TITLE), buf);
	for (i = 0; i < c->nphys; i++)
		nv += c->phys[i].vary != 0;
	x = 1 + ui_put(w, 1, 1, 6, ui_color_attr(UI_C_LABEL), "mode ");
	x += ui_put(w, 1, x, 20, ui_color_attr(UI_C_VALUE) | A_BOLD,
	    het_mode_name(c->mode));
	snprintf(buf, sizeof(buf), "  %s, %zu parameters, %d vary",
	    c->family == HET_FAMILY_HETERODYNE ? "heterodyne" : "homodyne",
	    c->nphys, nv);
	x += ui_put(w, 1, x, s->cols - x, A_NORMAL, buf);
	ui_put(w, 1, x, s->cols - x - 1, ui_color_attr(UI_C_DIM),
	    "   m changes");
	mp_columns(ui, s);
	snprintf(buf, sizeof(buf), "%-*s %*s %*s %*s vary %-*s %s",
	    s->wn, "parameter", s->wv, "value", s->wb, "min", s->wb, "max",
	    s->wp,
	    "prior", "unit");
	ui_put(w, 2, 1, s->cols - 2, ui_color_attr(UI_C_LABEL) | A_BOLD,
	    buf);
	n = build_lines(ui, s, l, sizeof(l) / sizeof(l[0]));
	for (i = 0; i < n; i++)
		if (l[i].kind == ML_PARAM && l[i].row == s->row) {
			cl = i;
			break;
		}
	ce = cl + 1 < n && l[cl + 1].kind == ML_ERROR ? cl + 1 : cl;
	if (s->row + 1 == mp_nrows(c))	/* the last row: show what follows */
		ce = n - 1;
	h = s->rows - FIXED_TOP - 1;
	if (h < 1)
		h = 1;
	if (cl < s->top)
		s->top = cl;
	if (ce >= s->top + (size_t)h)
		s->top = ce - (size_t)h + 1;
	if (s->top > 0 && n - s->top < (size_t)h)
		s->top = n > (size_t)h ? n - (size_t)h : 0;
	for (y = 0; y < h && s->top + (size_t)y < n; y++) {
		i = s->top + (size_t)y;
		switch (l[i].kind) {
		case ML_PARAM:
			draw_row(ui, s, w, FIXED_TOP + y, l[i].row);
			break;
		case ML_ERROR:
			snprintf(eb, sizeof(eb), "%s %s", ui->scr.term.utf8 ?
			    "\xe2\x94\x94" : "`-", s->err);
			ui_put_trunc(w, FIXED_TOP + y, 3, s->cols - 4,
			    ui_color_attr(UI_C_ERROR), eb);
			break;
		case ML_STITLE:
			ui_fill(w, FIXED_TOP + y, 0, s->cols,
			    ui_color_attr(UI_C_TITLE));
			ui_put(w, FIXED_TOP + y, 1, s->cols - 2,
			    ui_color_attr(UI_C_TITLE), "Scaling  per-angle "
			    "contrast and offset");
			break;
		case ML_SMODE:
			draw_smode(ui, s, w, FIXED_TOP + y);
			break;
		case ML_ANGLE:
			draw_angles(ui, s, w, FIXED_TOP + y, l[i].row);
			break;
		case ML_BLANK:
			break;
		}
	}
	if (n > (size_t)h) {
		snprintf(buf, sizeof(buf), " %zu-%zu of %zu ", s->top + 1,
		    s->top + (size_t)y, n);
		ui_put(w, s->rows - 2, s->cols - (int)strlen(buf) - 1,
		    (int)strlen(buf), ui_color_attr(UI_C_DIM), buf);
	}
	d = mp_row_def(c, s->row);
	snprintf(buf, sizeof(buf), "%s: %s", d->name, d->description);
	ui_put_trunc(w, s->rows - 1, 1, s->cols - 2, ui_color_attr(UI_C_DIM),
	    buf);
	if (s->menu)
		draw_menu(ui, s, w);
}

