/*
 * ui_p_model.c: the Model panel: analysis mode, the parameter table
 * (value, bounds, vary flag, prior, unit) and the per-angle scaling.
 *
 * Design: the panel edits ui->ses.cfg, never in place: every change is made
 * on a copy (het_config_dup), checked with het_config_validate, and only
 * a valid copy replaces the configuration; the replaced one goes on a
 * small undo stack.  A refused edit leaves the configuration untouched
 * and shows the validator's sentence in the status line and under the
 * row, so nothing is ever clamped silently.  Cells are edited in the
 * status-line prompt with the current text selected.  A mode change
 * inside a family keeps the values and sets the vary flags of the new
 * mode; a change of family replaces the parameters with the new family's
 * defaults, after a y/n question.  Loading and saving are ui_config.c's.
 * Drawing is in ui_p_model_draw.c; the state is in ui_p_model.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_util.h"
#include "ui.h"
#include "ui_p_model.h"

static const char *const col_name[MC_COUNT] = { "value", "min", "max",
    "vary", "prior" };

static const struct ui_hint model_hints[] = {
	{ "\xe2\x86\x91\xe2\x86\x93\xe2\x86\x90\xe2\x86\x92", "arrows",
	    "Cell" },
	{ "\xe2\x8f\x8e", "Enter", "Edit" },
	{ "Spc", "Spc", "Vary" },
	{ "u", "u", "Undo" },
	{ "m", "m", "Mode" },
	{ "s", "s", "Scaling" },
	{ "a", "a A", "Per angle" },
	{ "S", "S", "Save" },
	{ "O", "O", "Open" },
	{ NULL, NULL, NULL }
};

static const char model_help[] =
    "Up Down  j k\tmove through the parameters\n"
    "Left Right  h l\tmove through the columns value, min, max,\n"
    "\tvary and prior\n"
    "Enter\tedit the cell (the text is selected: typing\n"
    "\treplaces it); on vary: toggle it\n"
    "\tPriors are written as a name and numbers:\n"
    "\tuniform, normal MEAN SD, truncated_normal LOC\n"
    "\tSCALE, lognormal MU SIGMA, halfnormal SCALE,\n"
    "\texponential RATE, beta_scaled A B\n"
    "Space\tswitch vary (fitted) / fixed\n"
    "u\tundo the last change (up to 32)\n"
    "m\tchoose the analysis mode; another family\n"
    "\t(heterodyne / homodyne) resets the parameters\n"
    "\tto its defaults after asking\n"
    "s\tcycle the NLSQ per-angle scaling mode\n"
    "a  A\tthe start contrast (a) or offset (A) of every\n"
    "\tangle, as numbers separated by blanks or commas;\n"
    "\tempty: none (the scaling's value for every angle)\n"
    "S\tsave the configuration (asks for the file)\n"
    "O\topen another configuration file\n"
    "\tAn edit that makes the configuration invalid is\n"
    "\trefused with the reason; nothing is clamped.\n";

static void *
model_init(struct ui *ui)
{
	struct model_state *s = ui_xcalloc(1, sizeof(*s));

	s->serial = ui->ses.cfg_serial;
	return s;
}

static void
undo_clear(struct model_state *s)
{
	while (s->nundo > 0)
		het_config_free(s->undo[--s->nundo].cfg);
}

static void
model_free(void *state)
{
	struct model_state *s = state;

	if (s == NULL)
		return;
	undo_clear(s);
	free(s);
}

static void
model_resize(struct ui *ui, void *state, int lines, int cols)
{
	struct model_state *s = state;
	int extra = cols - 80;

	(void)ui;
	s->rows = lines;
	s->cols = cols;
	s->wv = 10 + (extra > 0 ? extra / 6 : 0);
	if (s->wv > 14)
		s->wv = 14;
	s->wb = 9 + (extra > 0 ? extra / 8 : 0);
	if (s->wb > 12)
		s->wb = 12;
	s->wu = 9;	/* the rest is set per mode by mp_columns() */
}

struct model_state *
mp_state(struct ui *ui)
{
	size_t i;

	for (i = 0; i < ui->npanels; i++)
		if (ui->panels[i] == &ui_panel_model)
			return ui->pstate[i];
	return NULL;
}

/* Rows: the mode's physics parameters, then contrast and offset. */
size_t
mp_nrows(const struct het_config *c)
{
	return c->nphys + HET_S_COUNT;
}

struct het_config_param *
mp_row_param(struct het_config *c, size_t row)
{
	return row < c->nphys ? &c->phys[row] :
	    &c->scaling.p[row - c->nphys];
}

const struct het_param_def *
mp_row_def(const struct het_config *c, size_t row)
{
	size_t n;

	if (row < c->nphys)
		return &het_params_table(c->family, &n)[row];
	return het_params_scaling(c->family,
	    (enum het_scaling_param)(row - c->nphys));
}

/* "1e+06" -> "1e6", "2.5e-05" -> "2.5e-5": shorter, and still read back. */
static void
trim_exp(char *buf)
{
	char *e = strchr(buf, 'e'), *d;

	if (e == NULL)
		return;
	d = e + 1;
	if (*d == '+')
		memmove(d, d + 1, strlen(d));
	else if (*d == '-')
		d++;
	while (*d == '0' && d[1] != '\0')
		memmove(d, d + 1, strlen(d));
}

/*
 * The shortest text that reads back as v, without an exponent for
 * numbers of ordinary size (9000, not 9e3).
 */
static void
fmt_exact(char *buf, size_t len, double v)
{
	int p, e;

	for (p = 1; p < 17; p++) {
		snprintf(buf, len, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (v != 0 && fabs(v) >= 1e-4 && fabs(v) < 1e9) {
		e = (int)floor(log10(fabs(v))) + 1;
		if (e > p)
			snprintf(buf, len, "%.*g", e, v);
	}
	trim_exp(buf);
}

/* v in at most w characters, losing precision before width. */
void
mp_fmt_fit(char *buf, size_t len, double v, int w)
{
	int p;

	fmt_exact(buf, len, v);
	for (p = 6; p >= 1 && (int)strlen(buf) > w; p--) {
		snprintf(buf, len, "%.*g", p, v);
		trim_exp(buf);
	}
}

void
mp_fmt_prior(char *buf, size_t len, const struct het_prior *pr, int edit)
{
	char a[32], b[32];

	fmt_exact(a, sizeof(a), pr->a);
	fmt_exact(b, sizeof(b), pr->b);
	if (!edit) {
		snprintf(a, sizeof(a), "%.3g", pr->a);
		snprintf(b, sizeof(b), "%.3g", pr->b);
		trim_exp(a);
		trim_exp(b);
	}
	switch (pr->kind) {
	case HET_PRIOR_UNIFORM:
		snprintf(buf, len, edit ? "uniform" : "U[min,max]");
		break;
	case HET_PRIOR_NORMAL:
		snprintf(buf, len, edit ? "normal %s %s" : "N(%s,%s)", a, b);
		break;
	case HET_PRIOR_TRUNCNORMAL:
		snprintf(buf, len, edit ? "truncated_normal %s %s" :
		    "TN(%s,%s)", a, b);
		break;
	case HET_PRIOR_LOGNORMAL:
		snprintf(buf, len, edit ? "lognormal %s %s" : "LN(%s,%s)", a,
		    b);
		break;
	case HET_PRIOR_HALFNORMAL:
		snprintf(buf, len, edit ? "halfnormal %s" : "HN(%s)", b);
		break;
	case HET_PRIOR_EXPONENTIAL:
		snprintf(buf, len, edit ? "exponential %s" : "Exp(%s)", a);
		break;
	case HET_PRIOR_BETA_SCALED:
		snprintf(buf, len, edit ? "beta_scaled %s %s" : "Beta(%s,%s)",
		    a, b);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

/* Parse "name [x [y]]" into a prior; 0, or -1 with why. */
static int
parse_prior(const char *text, struct het_prior *pr, char *why, size_t len)
{
	struct het_error err;
	char kind[64], extra[64];
	double x[2];
	int n, want;
	enum het_prior_kind k;

	x[0] = x[1] = 0;
	n = sscanf(text, " %63[a-z_] %lf %lf %63s", kind, &x[0], &x[1],
	    extra);
	if (n < 1) {
		snprintf(why, len, "prior '%s' rejected: write a prior name "
		    "and its numbers, e.g. 'normal 0 1' or 'uniform'", text);
		return -1;
	}
	het_error_clear(&err);
	if (het_prior_parse(kind, &k, &err) != HET_OK) {
		snprintf(why, len, "%s", err.msg);
		return -1;
	}
	want = k == HET_PRIOR_UNIFORM ? 0 : k == HET_PRIOR_HALFNORMAL ||
	    k == HET_PRIOR_EXPONENTIAL ? 1 : 2;
	if (n - 1 != want) {
		snprintf(why, len, "prior '%s' rejected: a %s prior takes %d "
		    "number%s, found %d", text, kind, want, want == 1 ? "" :
		    "s", n > 3 ? 3 : n - 1);
		return -1;
	}
	pr->kind = k;
	pr->a = k == HET_PRIOR_HALFNORMAL ? 0 : x[0];
	pr->b = k == HET_PRIOR_HALFNORMAL ? x[0] : k ==
	    HET_PRIOR_EXPONENTIAL ? 0 : x[1];
	return 0;
}

/* Make s->undo current: another configuration was loaded. */
void
mp_sync(struct ui *ui, struct model_state *s)
{
	if (s->serial == ui->ses.cfg_serial)
		return;
	undo_clear(s);
	s->serial = ui->ses.cfg_serial;
	s->err_on = 0;
	s->row = 0;
	s->top = 0;
}

struct het_config *
mp_copy(struct ui *ui)
{
	struct het_config *c;
	struct het_error err;

	het_error_clear(&err);
	if ((c = het_config_dup(ui->ses.cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	return c;
}

/*
 * Install the edited copy c if it validates: the old configuration goes
 * on the undo stack.  Otherwise c is freed, the edit is refused and the
 * reason is shown.  Returns 0 when applied.
 */
int
mp_commit(struct ui *ui, struct model_state *s, struct het_config *c,
    size_t row, const char *what)
{
	struct het_error err;
	struct het_config *old;

	het_error_clear(&err);
	if (het_config_validate(c, &err) != HET_OK) {
		het_config_free(c);
		s->err_on = 1;
		s->err_row = row;
		snprintf(s->err, sizeof(s->err), "refused: %s", err.msg);
		ui_log(ui, UI_LOG_INFO, "refused: %s", what);
		ui_msg(ui, UI_LOG_ERROR, "refused: %s", err.msg);
		return -1;
	}
	old = ui_config_replace(ui, c);
	if (s->nundo == UNDO_MAX) {
		het_config_free(s->undo[0].cfg);
		memmove(&s->undo[0], &s->undo[1], sizeof(s->undo[0]) *
		    (UNDO_MAX - 1));
		s->nundo--;
	}
	s->undo[s->nundo].cfg = old;
	snprintf(s->undo[s->nundo].what, sizeof(s->undo[0].what), "%s",
	    what);
	s->nundo++;
	s->err_on = 0;
	return 0;
}

static void
edit_done(struct ui *ui, const char *text)
{
	struct model_state *s = mp_state(ui);
	struct het_config_param *p;
	struct het_config *c;
	struct het_error err;
	const char *name;
	char what[160], old[64], now[64], why[HET_ERROR_MSG_MAX];
	double v = 0, was = 0, *slot = NULL;
	int same;

	if (s == NULL || s->serial != ui->ses.cfg_serial ||
	    s->edit_row >= mp_nrows(ui->ses.cfg))
		return;
	ui_dirty(ui, UI_DIRTY_BODY);	/* the prompt is not the panel */
	name = mp_row_def(ui->ses.cfg, s->edit_row)->name;
	c = mp_copy(ui);
	p = mp_row_param(c, s->edit_row);
	if (s->edit_col == MC_PRIOR) {
		mp_fmt_prior(old, sizeof(old), &p->prior, 1);
		if (parse_prior(text, &p->prior, why, sizeof(why)) != 0) {
			het_config_free(c);
			s->err_on = 1;
			s->err_row = s->edit_row;
			snprintf(s->err, sizeof(s->err), "refused: %s", why);
			ui_msg(ui, UI_LOG_ERROR, "%s prior: %s", name, why);
			return;
		}
	} else {
		slot = s->edit_col == MC_VALUE ? &p->value : s->edit_col ==
		    MC_MIN ? &p->lo : &p->hi;
		fmt_exact(old, sizeof(old), *slot);
		was = *slot;
		het_error_clear(&err);
		snprintf(what, sizeof(what), "%s %s", name,
		    col_name[s->edit_col]);
		if (het_parse_double(text, what, &v, &err) != HET_OK) {
			het_config_free(c);
			s->err_on = 1;
			s->err_row = s->edit_row;
			snprintf(s->err, sizeof(s->err), "refused: %s",
			    err.msg);
			ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
			return;
		}
		*slot = v;
	}
	if (slot == NULL) {
		mp_fmt_prior(now, sizeof(now), &p->prior, 1);
		same = strcmp(now, old) == 0;
	} else
		same = v == was;
	if (same) {
		/* Accepting what was there is not an edit: no undo step. */
		het_config_free(c);
		s->err_on = 0;
		ui_msg(ui, UI_LOG_INFO, "%s %s unchanged (%s)", name,
		    col_name[s->edit_col], old);
		return;
	}
	snprintf(what, sizeof(what), "%s %s %s -> %s", name,
	    col_name[s->edit_col], old, text);
	if (mp_commit(ui, s, c, s->edit_row, what) == 0)
		ui_msg(ui, UI_LOG_INFO, "%s", what);
}

static void
edit_cell(struct ui *ui, struct model_state *s)
{
	struct het_config_param *p = mp_row_param(ui->ses.cfg, s->row);
	char label[64], init[128];
	double v;

	if (s->col == MC_VARY)
		return;
	if (s->col == MC_PRIOR)
		mp_fmt_prior(init, sizeof(init), &p->prior, 1);
	else {
		v = s->col == MC_VALUE ? p->value : s->col == MC_MIN ? p->lo :
		    p->hi;
		fmt_exact(init, sizeof(init), v);
	}
	snprintf(label, sizeof(label), "%s %s:", mp_row_def(ui->ses.cfg,
	    s->row)->name, col_name[s->col]);
	s->edit_row = s->row;
	s->edit_col = s->col;
	ui_prompt_open_sel(ui, label, init, edit_done);
}

static void
toggle_vary(struct ui *ui, struct model_state *s)
{
	struct het_config *c = mp_copy(ui);
	struct het_config_param *p = mp_row_param(c, s->row);
	char what[128];

	p->vary = !p->vary;
	snprintf(what, sizeof(what), "%s %s", mp_row_def(c, s->row)->name,
	    p->vary ? "varies" : "fixed");
	if (mp_commit(ui, s, c, s->row, what) == 0)
		ui_msg(ui, UI_LOG_INFO, "%s", what);
}

static void
cycle_scaling(struct ui *ui, struct model_state *s)
{
	static const char key[] = "optimization.nlsq.per_angle_mode";
	struct het_config *c = mp_copy(ui);
	struct het_error err;
	char what[128], val[32];

	/* The setting as the schema table reads, cycles and names it. */
	if (het_config_setting_next(c, key, &err) != HET_OK ||
	    het_config_setting_format(c, key, val, sizeof(val), &err) !=
	    HET_OK) {
		het_config_free(c);
		ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
		return;
	}
	snprintf(what, sizeof(what), "NLSQ scaling mode %s", val);
	if (mp_commit(ui, s, c, s->row, what) == 0)
		ui_msg(ui, UI_LOG_INFO, "%s", what);
}

static void
set_mode(struct ui *ui, struct model_state *s, enum het_mode m)
{
	struct het_config *c = mp_copy(ui), *def;
	const struct het_param_def *tab;
	struct het_error err;
	enum het_mode was = c->mode;
	char what[160];
	size_t i, n, oldn = c->nphys;

	if (het_mode_family(m) != c->family) {
		het_error_clear(&err);
		if ((def = het_config_default(m, &err)) == NULL)
			ui_fatal("%s", err.msg);
		memcpy(c->phys, def->phys, sizeof(c->phys));
		memcpy(c->scaling.p, def->scaling.p, sizeof(c->scaling.p));
		het_config_free(def);
		oldn = het_mode_nphys(m);
	}
	c->mode = m;
	c->family = het_mode_family(m);
	c->nphys = het_mode_nphys(m);
	tab = het_params_table(c->family, &n);
	for (i = 0; i < c->nphys && i < n; i++) {
		if (i >= oldn) {	/* not shown before: the table's */
			c->phys[i].value = tab[i].value;
			c->phys[i].lo = tab[i].lo;
			c->phys[i].hi = tab[i].hi;
			c->phys[i].prior = tab[i].prior;
			c->phys[i].x_scale = 0;
		}
		c->phys[i].vary = het_mode_default_vary(m, i);
	}
	snprintf(what, sizeof(what), "mode %s -> %s (%s, %zu parameters)",
	    het_mode_name(was), het_mode_name(m), c->family ==
	    HET_FAMILY_HETERODYNE ? "heterodyne" : "homodyne", c->nphys);
	if (mp_commit(ui, s, c, 0, what) == 0) {
		ui_msg(ui, UI_LOG_INFO, "%s", what);
		if (s->row >= mp_nrows(ui->ses.cfg))
			s->row = 0;
		s->top = 0;
	}
}

static void
choose_mode(struct ui *ui, struct model_state *s, enum het_mode m)
{
	s->menu = 0;
	ui_dirty(ui, UI_DIRTY_BODY);
	if (m == ui->ses.cfg->mode) {
		ui_msg(ui, UI_LOG_INFO, "the mode is already %s",
		    het_mode_name(m));
		return;
	}
	if (het_mode_family(m) == ui->ses.cfg->family) {
		set_mode(ui, s, m);
		return;
	}
	s->confirm = 1;
	s->pending = m;
	ui_msg(ui, UI_LOG_WARN, "Switch to %s (%s)? All %zu parameters are "
	    "reset to its defaults (u undoes). y/n", het_mode_name(m),
	    het_mode_family(m) == HET_FAMILY_HETERODYNE ? "heterodyne" :
	    "homodyne", ui->ses.cfg->nphys);
}

static void
save_done(struct ui *ui, const char *text)
{
	if (*text == '\0') {
		ui_msg(ui, UI_LOG_ERROR, "config not saved: no file name "
		    "given");
		return;
	}
	ui_config_save(ui, text);
}

static void
open_done(struct ui *ui, const char *text)
{
	int dirty = ui->ses.cfg_dirty;

	if (*text == '\0') {
		ui_msg(ui, UI_LOG_ERROR, "config not loaded: no file name "
		    "given");
		return;
	}
	if (ui_config_load(ui, text, 1) == 0 && dirty)
		ui_log(ui, UI_LOG_WARN, "the unsaved edits of the previous "
		    "configuration were discarded");
}

static void
undo(struct ui *ui, struct model_state *s)
{
	struct model_undo *u;

	if (s->nundo == 0) {
		ui_msg(ui, UI_LOG_INFO, "nothing to undo");
		return;
	}
	u = &s->undo[--s->nundo];
	het_config_free(ui_config_replace(ui, u->cfg));
	u->cfg = NULL;
	s->err_on = 0;
	if (s->row >= mp_nrows(ui->ses.cfg))
		s->row = 0;
	ui_msg(ui, UI_LOG_INFO, "undone: %s (%zu more)", u->what, s->nundo);
}

static int
menu_key(struct ui *ui, struct model_state *s, int key)
{
	switch (key) {
	case UI_K_UP:
	case 'k':
		s->menu_pos = (s->menu_pos + HET_MODE_COUNT - 1) %
		    HET_MODE_COUNT;
		break;
	case UI_K_DOWN:
	case 'j':
	case 'm':
		s->menu_pos = (s->menu_pos + 1) % HET_MODE_COUNT;
		break;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		choose_mode(ui, s, (enum het_mode)s->menu_pos);
		return 1;
	case UI_K_ESC:
	case 'q':
		s->menu = 0;
		ui_msg(ui, UI_LOG_INFO, "mode unchanged");
		break;
	default:
		if (key >= '1' && key < '1' + HET_MODE_COUNT) {
			choose_mode(ui, s, (enum het_mode)(key - '1'));
			return 1;
		}
	}
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

static int
model_key(struct ui *ui, void *state, int key)
{
	struct model_state *s = state;
	size_t n;

	mp_sync(ui, s);
	n = mp_nrows(ui->ses.cfg);
	if (s->confirm) {
		s->confirm = 0;
		if (key == 'y' || key == 'Y')
			set_mode(ui, s, s->pending);
		else
			ui_msg(ui, UI_LOG_INFO, "mode change cancelled");
		return 1;
	}
	if (s->menu)
		return menu_key(ui, s, key);
	switch (key) {
	case UI_K_UP:
	case 'k':
		s->row = s->row > 0 ? s->row - 1 : 0;
		break;
	case UI_K_DOWN:
	case 'j':
		s->row = s->row + 1 < n ? s->row + 1 : s->row;
		break;
	case UI_K_PGUP:
		s->row = s->row > 10 ? s->row - 10 : 0;
		break;
	case UI_K_PGDN:
		s->row = s->row + 10 < n ? s->row + 10 : n - 1;
		break;
	case UI_K_HOME:
		s->row = 0;
		break;
	case UI_K_END:
		s->row = n - 1;
		break;
	case UI_K_LEFT:
	case 'h':
		s->col = s->col > 0 ? s->col - 1 : 0;
		break;
	case UI_K_RIGHT:
	case 'l':
		s->col = s->col + 1 < MC_COUNT ? s->col + 1 : s->col;
		break;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		if (s->col == MC_VARY)
			toggle_vary(ui, s);
		else
			edit_cell(ui, s);
		break;
	case ' ':
		toggle_vary(ui, s);
		break;
	case 'u':
		undo(ui, s);
		break;
	case 'm':
		s->menu = 1;
		s->menu_pos = (int)ui->ses.cfg->mode;
		break;
	case 's':
		cycle_scaling(ui, s);
		break;
	case 'a':
	case 'A':
		mp_angles_ask(ui, key == 'A');
		break;
	case 'S':
		ui_prompt_open_sel(ui, "Save config to:", ui->ses.cfg_path,
		    save_done);
		break;
	case 'O':
		/* say so before unsaved edits are lost (Esc keeps them) */
		ui_prompt_open(ui,
		    ui->ses.cfg_dirty ? "Open config (unsaved edits "
		    "are discarded; Esc keeps them):" : "Open config:", "",
		    open_done);
		break;
	default:
		return 0;
	}
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

const struct ui_panel_ops ui_panel_model = {
	.name = "Model",
	.hints = model_hints,
	.help = model_help,
	.init = model_init,
	.free = model_free,
	.draw = mp_draw,
	.key = model_key,
	.resize = model_resize,
};
