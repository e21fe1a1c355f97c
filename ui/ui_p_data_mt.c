/*
 * ui_p_data_mt.c: the Data panel's multitau view (issue 20): the
 * one-time g2(tau) of each q bin of a file's /xpcs/multitau with its
 * error bars on a log tau axis and the fitted curve, the fit's rate,
 * contrast, baseline, exponent and reduced chi-square, and a second
 * view of the rates against q^2 with the diffusion coefficient D, as
 * pyXpcsViewer's main view shows them.
 *
 * Design: everything drawn comes from the I/O thread's payload
 * (struct het_io_mt: the data, both models' fits of every bin, each fit
 * sampled on a log grid, D per model), so the view only places points:
 * it never fits, reads or blocks.  A file with multitau data only opens
 * in this view; beside two-time data the key m switches to it and back.
 * The left column keeps the Data panel's place for the file and the
 * bins (here with each bin's rate), the right one holds the plot, its
 * axis and the fit's numbers.  The curves are drawn with the Sampling
 * panel's line chart (braille dots), points and error bars over them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "ui_p_data.h"
#include "ui_p_sample.h"

#define MT_TABLE_Y	9	/* first bin row of the left table */
#define MT_YLAB		8	/* columns of the plot's value labels */
#define MT_TEXT_ROWS	5	/* the fit's numbers under the axis */
#define MT_ITEM		112	/* bytes of one "name value" item */

struct data_mt {
	struct het_io_mt *p;		/* the payload (owned) */
	int		 shown;		/* beside two-time data: m is on */
	size_t		 cur;		/* bin under the cursor */
	size_t		 top;		/* first table row shown */
	enum het_mtfit_model model;	/* the fits shown */
	int		 rates;		/* the rates against q^2 view */
};

/* Words and signs of the view, UTF-8 or ASCII. */
struct mt_sym {
	const char *point, *none, *bar, *pm, *gamma, *beta, *kappa;
	const char *chi, *chi_short, *inv_s, *a2, *q2, *inv_a2, *tau;
};

static void
mt_sym(const struct ui *ui, struct mt_sym *y)
{
	int u = ui->scr.term.utf8;

	y->point = u ? "\xe2\x97\x8f" : "o";
	y->none = ui->scr.term.g->times;
	y->bar = ui->scr.term.g->vline;
	y->pm = u ? "\xc2\xb1" : "+-";
	y->gamma = u ? "\xce\x93" : "Gamma";
	y->beta = u ? "\xce\xb2" : "beta";
	y->kappa = u ? "\xce\xba" : "kappa";
	y->chi = u ? "\xcf\x87\xc2\xb2/\xce\xbd" : "chi2/dof";
	y->chi_short = u ? y->chi : "chi2";
	y->inv_s = u ? "s\xe2\x81\xbb\xc2\xb9" : "1/s";
	y->a2 = u ? "\xc3\x85\xc2\xb2/s" : "A^2/s";
	y->q2 = u ? "q\xc2\xb2" : "q^2";
	y->inv_a2 = u ? "\xc3\x85\xe2\x81\xbb\xc2\xb2" : "1/A^2";
	y->tau = ui->scr.term.g->tau;
}

/* Beside two-time data m leads; without, the hints from the second. */
static const struct ui_hint mt_hints[] = {
	{ "m", "m", "Two-time" },
	{ "\xe2\x86\x91\xe2\x86\x93", "Up/Dn", "Bin" },
	{ "[]", "[]", "q" },
	{ "s", "s", "Stretched" },
	{ "d", "d", "Rates" },
	{ NULL, NULL, NULL }
};

/* Unreadable multitau data: only the way back. */
static const struct ui_hint mt_hints_error[] = {
	{ "m", "m", "Two-time" },
	{ NULL, NULL, NULL }
};

static const char mt_help[] =
    "\tThe multitau view: the one-time g2(tau) of each q\n"
    "\tbin of /xpcs/multitau with its error bars on a log\n"
    "\ttau axis and its fit g2 = b + beta exp(-2 (Gamma\n"
    "\ttau)^kappa); the table gives each bin's rate Gamma\n"
    "\tand marks the bins D is fitted from.\n"
    "Up Down  j k\tthe next or previous bin; PgUp PgDn a page,\n"
    "\tHome End the first and last\n"
    "[  ]\tthe previous / next q ring\n"
    "s\tsingle exponential (kappa 1) or stretched (kappa\n"
    "\tfree within 0.2 to 2) fits\n"
    "d\tg2(tau) of the bin, or the rates Gamma against\n"
    "\tq^2 with D from Gamma = D q^2 (through 0, and\n"
    "\twith an intercept Gamma0)\n"
    "m\tthe two-time view (a file with two-time data)\n";

const char *
data_mt_help(const struct ui *ui, const void *state)
{
	return data_mt_shown(ui, state) ? mt_help : NULL;
}

void
data_mt_free(struct data_state *s)
{
	if (s->mt == NULL)
		return;
	het_io_mt_free(s->mt->p);
	free(s->mt);
	s->mt = NULL;
}

int
data_mt_shown(const struct ui *ui, const struct data_state *s)
{
	if (s->mt == NULL)
		return 0;
	if (ui->ses.mt_only)
		return s->mt->p->mt != NULL;
	return s->mt->shown && ui->ses.meta != NULL;
}

const struct ui_hint *
data_mt_hints(const struct ui *ui, const void *state)
{
	const struct data_state *s = state;

	if (!data_mt_shown(ui, s))
		return NULL;
	if (s->mt->p->mt == NULL)
		return mt_hints_error;
	return ui->ses.mt_only ? mt_hints + 1 : mt_hints;
}

void
data_mt_event(struct ui *ui, struct data_state *s, struct het_event *ev)
{
	struct het_io_mt *p = ev->data;

	if (p->gen != ui->ses.open_gen) {
		ui_log(ui, UI_LOG_DEBUG, "dropped the multitau g2 of a "
		    "superseded open");
		return;
	}
	ev->data = NULL;
	data_mt_free(s);
	s->mt = ui_xcalloc(1, sizeof(*s->mt));
	s->mt->p = p;
	if (p->mt == NULL) {
		ui_log(ui, UI_LOG_WARN, "the multitau g2 of this file cannot "
		    "be shown: %s", p->err.msg);
		return;
	}
	ui_log(ui, UI_LOG_INFO, "multitau g2: %zu bins at %zu delays, both "
	    "models fitted in %.3f s%s", p->mt->nbins, p->mt->ntau,
	    p->seconds, p->only ? "" : "; m shows them");
	ui_dirty(ui, UI_DIRTY_ALL);
}

/* ---- numbers ----------------------------------------------------------- */

static const struct het_mtfit *
mt_fit(const struct data_mt *m, size_t b)
{
	return &m->p->fit[m->model][b];
}

/* "0.7986 ± 0.015" in buf; a dash for an undetermined error. */
static void
mt_val(char *buf, size_t len, double v, double e, const struct mt_sym *y)
{
	char a[20], b[20];

	sp_fmt(a, sizeof(a), v, 4);
	sp_fmt(b, sizeof(b), e, 2);
	snprintf(buf, len, "%s %s %s", a, y->pm, isfinite(e) ? b : "-");
}

/* Is the bin among the rates D was fitted to? */
static int
mt_counted(const struct het_mtfit *f)
{
	return het_mtfit_skip(f) == NULL;
}

/* ---- left column ------------------------------------------------------- */

static void
mt_field(WINDOW *w, int y, int wd, const char *label, const char *val,
    attr_t va)
{
	ui_put(w, y, 1, 9, ui_color_attr(UI_C_LABEL), label);
	ui_put_trunc(w, y, 10, wd - 9, va, val);
}

static void
mt_summary(struct ui *ui, struct data_mt *m, WINDOW *w, int left,
    const struct mt_sym *y)
{
	const struct het_multitau *mt = m->p->mt;
	const struct het_mtfit_diff *d = &m->p->diff[m->model];
	const char *base = strrchr(mt->path, '/');
	attr_t v = ui_color_attr(UI_C_VALUE);
	int wd = left - 2;
	char buf[256], a[64], b[64];

	ui_fill(w, 0, 0, left, ui_color_attr(UI_C_TITLE));
	ui_put(w, 0, 1, left - 1, ui_color_attr(UI_C_TITLE), m->p->only ?
	    "Multitau g2  (no two-time matrices)" : "Multitau g2");
	mt_field(w, 1, wd, "file", base != NULL ? base + 1 : mt->path, v);
	sp_fmt(a, sizeof(a), mt->tau[0], 4);
	sp_fmt(b, sizeof(b), mt->tau[mt->ntau - 1], 4);
	snprintf(buf, sizeof(buf), "%zu  %s%s%s s", mt->ntau, a,
	    ui->scr.term.g->dash, b);
	mt_field(w, 2, wd, "delays", buf, v);
	if (mt->delay_unit == HET_MT_FRAMES)
		snprintf(buf, sizeof(buf), "frames %s %.6g s", y->none, mt->t0);
	else
		snprintf(buf, sizeof(buf), "stored in seconds");
	ui_put_trunc(w, 3, 10, wd - 9, ui_color_attr(UI_C_DIM), buf);
	snprintf(buf, sizeof(buf), "%zu = %zu q %s %zu %s", mt->nbins,
	    mt->n_q, ui->scr.term.g->times, mt->n_phi, ui->scr.term.g->phi);
	mt_field(w, 4, wd, "bins", buf, v);
	if (isfinite(d->D)) {
		mt_val(a, sizeof(a), d->D, d->D_err, y);
		snprintf(buf, sizeof(buf), "%s %s", a, y->a2);
		mt_field(w, 5, wd, "D", buf, v);
	} else
		mt_field(w, 5, wd, "D", "n/a: too few usable rates",
		    ui_color_attr(UI_C_WARN));
	snprintf(buf, sizeof(buf), "%s exponential", m->model ==
	    HET_MTFIT_SINGLE ? "single" : "stretched");
	mt_field(w, 6, wd, "fits", buf, v);
}

static void
mt_table(struct ui *ui, struct data_mt *m, WINDOW *w, int rows, int left,
    const struct mt_sym *y)
{
	const struct het_multitau *mt = m->p->mt;
	const struct ui_glyphs *g = ui->scr.term.g;
	const struct het_mtfit *f;
	int nrows = rows - MT_TABLE_Y, r;
	size_t b;
	attr_t a, cur = ui_color_attr(UI_C_CURSOR);
	char buf[128], gam[16], chi[16];

	ui_fill(w, MT_TABLE_Y - 2, 0, left, ui_color_attr(UI_C_TITLE));
	snprintf(buf, sizeof(buf), "Bins  %zu/%zu  %s = in D", m->cur + 1,
	    mt->nbins, g->mark_on);
	ui_put(w, MT_TABLE_Y - 2, 1, left - 1, ui_color_attr(UI_C_TITLE),
	    buf);
	snprintf(buf, sizeof(buf), "%-2s%3s %8s %6s%s %8s %5s", "", "#", "q",
	    g->phi, ui->scr.term.utf8 ? " " : "", y->gamma, y->chi_short);
	ui_put(w, MT_TABLE_Y - 1, 1, left - 1, ui_color_attr(UI_C_LABEL) |
	    A_BOLD, buf);
	if ((size_t)nrows < mt->nbins)
		nrows--;	/* the last row says which rows are shown */
	if (nrows < 1)
		return;
	if (m->cur < m->top)
		m->top = m->cur;
	if (m->cur >= m->top + (size_t)nrows)
		m->top = m->cur - (size_t)nrows + 1;
	for (r = 0; r < nrows && m->top + (size_t)r < mt->nbins; r++) {
		b = m->top + (size_t)r;
		f = mt_fit(m, b);
		a = b == m->cur ? cur : A_NORMAL;
		if (b == m->cur)
			ui_fill(w, MT_TABLE_Y + r, 0, left, cur);
		ui_put(w, MT_TABLE_Y + r, 1, 2, b == m->cur ? cur :
		    ui_color_attr(UI_C_MARK), mt_counted(f) ? g->mark_on :
		    g->mark_off);
		if (f->status == HET_MTFIT_FEW) {
			snprintf(gam, sizeof(gam), "-");
			snprintf(chi, sizeof(chi), "few");
		} else {
			sp_fmt_w(gam, sizeof(gam), f->x[HET_MTFIT_GAMMA], 4,
			    8);
			sp_fmt_w(chi, sizeof(chi), f->chi2_red, 3, 5);
		}
		snprintf(buf, sizeof(buf), "%3ld %8.5f %6.1f %8s %5s",
		    mt->bins[b].label, mt->bins[b].q, mt->bins[b].phi, gam,
		    chi);
		ui_put(w, MT_TABLE_Y + r, 3, left - 3, a, buf);
	}
	if (mt->nbins > (size_t)nrows) {
		snprintf(buf, sizeof(buf), " %zu-%zu of %zu ", m->top + 1,
		    m->top + (size_t)r, mt->nbins);
		ui_put(w, rows - 1, left - (int)strlen(buf) - 1,
		    (int)strlen(buf), ui_color_attr(UI_C_DIM), buf);
	}
}

/* ---- the plots --------------------------------------------------------- */

/* The plot's frame: rows y0 .. y0+ph-1, columns x0 .. x0+pw-1. */
struct mt_box {
	int	y0, x0, ph, pw;
	double	xlo, xhi, lo, hi;	/* x range (ln tau or q^2), values */
};

static int
mt_col(const struct mt_box *bx, double x)
{
	double c = (x - bx->xlo) / (bx->xhi - bx->xlo) * (bx->pw - 1);

	return (int)fmin(fmax(floor(c + 0.5), 0), bx->pw - 1);
}

static int
mt_row(const struct mt_box *bx, double v)
{
	double r = (bx->hi - v) / (bx->hi - bx->lo) * (bx->ph - 1);

	return (int)fmin(fmax(floor(r + 0.5), 0), bx->ph - 1);
}

/* Widen [lo, hi] by 5% (or around a single value). */
static void
mt_pad(double *lo, double *hi)
{
	double pad = 0.05 * (*hi - *lo);

	if (!(pad > 0))
		pad = fmax(1e-3 * fabs(*hi), 1e-6);
	*lo -= pad;
	*hi += pad;
}

/* A point with its error bar (err <= 0: the no-error mark, no bar). */
static void
mt_point(WINDOW *w, const struct mt_box *bx, double x, double v, double e,
    attr_t pa, const struct mt_sym *y)
{
	int c = mt_col(bx, x), r, r0, r1;

	if (!isfinite(v) || v < bx->lo || v > bx->hi)
		return;
	if (e > 0) {
		r0 = mt_row(bx, v + e);
		r1 = mt_row(bx, v - e);
		for (r = r0; r <= r1; r++)
			ui_put(w, bx->y0 + r, bx->x0 + c, 1,
			    ui_color_attr(UI_C_DIM), y->bar);
	}
	ui_put(w, bx->y0 + mt_row(bx, v), bx->x0 + c, 1, pa, e > 0 ?
	    y->point : y->none);
}

/* The value labels left of the plot: top, middle, bottom. */
static void
mt_ylabels(WINDOW *w, const struct mt_box *bx)
{
	char a[32];
	int i, r;

	for (i = 0; i < 3; i++) {
		r = i == 0 ? 0 : i == 1 ? bx->ph / 2 : bx->ph - 1;
		if (i == 1 && bx->ph < 7)
			continue;
		sp_fmt_w(a, sizeof(a), bx->hi - (bx->hi - bx->lo) * r /
		    (bx->ph - 1), 5, MT_YLAB - 1);
		ui_put(w, bx->y0 + r, bx->x0 - MT_YLAB, MT_YLAB - 1,
		    ui_color_attr(UI_C_DIM), a);
	}
}

/* Decade ticks of a log tau axis under the plot, the unit after it. */
static void
mt_tau_axis(WINDOW *w, const struct mt_box *bx, int y,
    const struct mt_sym *sy)
{
	char lab[32];
	int p, x, last = -1, wl;

	for (p = (int)ceil(bx->xlo / M_LN10 - 1e-9);
	    p <= (int)floor(bx->xhi / M_LN10 + 1e-9); p++) {
		if (p >= -2 && p <= 2)
			snprintf(lab, sizeof(lab), "%g", pow(10, p));
		else
			snprintf(lab, sizeof(lab), "1e%d", p);
		wl = (int)strlen(lab);
		x = bx->x0 + mt_col(bx, p * M_LN10) - wl / 2;
		if (x < bx->x0)
			x = bx->x0;
		if (x <= last + 1 || x + wl > bx->x0 + bx->pw)
			continue;
		ui_put(w, y, x, wl, ui_color_attr(UI_C_DIM), lab);
		last = x + wl - 1;
	}
	snprintf(lab, sizeof(lab), "%s/s", sy->tau);
	ui_put(w, y, bx->x0 + bx->pw + 1, 5, ui_color_attr(UI_C_LABEL), lab);
}

static void
mt_plot_g2(struct ui *ui, struct data_mt *m, WINDOW *w,
    const struct mt_box *frame, const struct mt_sym *y)
{
	const struct het_multitau *mt = m->p->mt;
	const double *g = mt->g2 + m->cur * mt->ntau;
	const double *e = mt->g2_err + m->cur * mt->ntau;
	const double *cv = m->p->curve[m->model] + m->cur * HET_IO_MT_CURVE;
	struct mt_box bx = *frame;
	size_t k;
	int any = 0;

	bx.xlo = log(mt->tau[0]);
	bx.xhi = log(mt->tau[mt->ntau - 1]);
	if (!(bx.xhi > bx.xlo))
		bx.xhi = bx.xlo + 1;
	bx.lo = INFINITY;
	bx.hi = -INFINITY;
	for (k = 0; k < mt->ntau; k++)
		if (e[k] > 0) {
			bx.lo = fmin(bx.lo, g[k] - e[k]);
			bx.hi = fmax(bx.hi, g[k] + e[k]);
			any = 1;
		}
	for (k = 0; k < HET_IO_MT_CURVE; k++)
		if (isfinite(cv[k])) {
			bx.lo = fmin(bx.lo, cv[k]);
			bx.hi = fmax(bx.hi, cv[k]);
		}
	for (k = 0; !any && k < mt->ntau; k++) {
		bx.lo = fmin(bx.lo, g[k]);
		bx.hi = fmax(bx.hi, g[k]);
	}
	mt_pad(&bx.lo, &bx.hi);
	if (isfinite(cv[0]))
		sp_trace(ui, w, bx.y0, bx.x0, bx.ph, bx.pw, cv,
		    HET_IO_MT_CURVE, 1, bx.lo, bx.hi, ui_color_attr(
		    UI_C_GRAPH));
	for (k = 0; k < mt->ntau; k++)
		mt_point(w, &bx, log(mt->tau[k]), g[k], e[k],
		    ui_color_attr(UI_C_VALUE) | A_BOLD, y);
	mt_ylabels(w, &bx);
	mt_tau_axis(w, &bx, bx.y0 + bx.ph, y);
}

static void
mt_plot_rates(struct ui *ui, struct data_mt *m, WINDOW *w,
    const struct mt_box *frame, const struct mt_sym *y)
{
	const struct het_multitau *mt = m->p->mt;
	const struct het_mtfit_diff *d = &m->p->diff[m->model];
	const struct het_mtfit *f;
	struct mt_box bx = *frame;
	double line[256], q2, v;
	char a[32];
	size_t b;
	int c, n;

	bx.xlo = 0;
	bx.xhi = bx.lo = 0;
	bx.hi = -INFINITY;
	for (b = 0; b < mt->nbins; b++) {
		f = mt_fit(m, b);
		bx.xhi = fmax(bx.xhi, mt->bins[b].q * mt->bins[b].q);
		if (mt_counted(f))
			bx.hi = fmax(bx.hi, f->x[HET_MTFIT_GAMMA] +
			    f->err[HET_MTFIT_GAMMA]);
	}
	if (isfinite(d->D))
		bx.hi = fmax(bx.hi, d->D * bx.xhi);
	if (!(bx.hi > 0))
		bx.hi = 1;
	bx.xhi *= 1.05;
	mt_pad(&bx.lo, &bx.hi);
	n = bx.pw * 2 < 256 ? bx.pw * 2 : 256;
	for (c = 0; isfinite(d->D) && c < n; c++)
		line[c] = d->D * bx.xhi * c / (n - 1);
	if (isfinite(d->D))
		sp_trace(ui, w, bx.y0, bx.x0, bx.ph, bx.pw, line, (size_t)n,
		    1, bx.lo, bx.hi, ui_color_attr(UI_C_GRAPH));
	for (b = 0; b < mt->nbins; b++) {
		f = mt_fit(m, b);
		q2 = mt->bins[b].q * mt->bins[b].q;
		v = f->x[HET_MTFIT_GAMMA];
		mt_point(w, &bx, q2, v, mt_counted(f) ?
		    f->err[HET_MTFIT_GAMMA] : 0, b == m->cur ?
		    ui_color_attr(UI_C_CURSOR) : mt_counted(f) ?
		    ui_color_attr(UI_C_VALUE) | A_BOLD :
		    ui_color_attr(UI_C_DIM), y);
	}
	mt_ylabels(w, &bx);
	ui_put(w, bx.y0 + bx.ph, bx.x0, 2, ui_color_attr(UI_C_DIM), "0");
	sp_fmt_w(a, sizeof(a), bx.xhi, 3, 9);
	ui_put(w, bx.y0 + bx.ph, bx.x0 + bx.pw - (int)strlen(a),
	    (int)strlen(a), ui_color_attr(UI_C_DIM), a);
	ui_put(w, bx.y0 + bx.ph, bx.x0 + bx.pw + 1, 5,
	    ui_color_attr(UI_C_LABEL), y->q2);
}

/* ---- the numbers under the plot ---------------------------------------- */

/*
 * Items ("name value") packed into lines of wd columns, two spaces
 * apart, from row y on, at most maxl lines.  Returns the lines used.
 */
static int
mt_pack(WINDOW *w, int y, int x, int wd, int maxl, char (*item)[MT_ITEM],
    int n, attr_t a)
{
	char line[512];
	int i, used = 0;

	line[0] = '\0';
	for (i = 0; i < n && used < maxl; i++) {
		if (line[0] != '\0' && ui_strwidth(line) + 2 +
		    ui_strwidth(item[i]) > wd) {
			ui_put(w, y + used++, x, wd, a, line);
			line[0] = '\0';
			if (used == maxl)
				break;
		}
		if (line[0] != '\0')
			strncat(line, "  ", sizeof(line) - strlen(line) - 1);
		strncat(line, item[i], sizeof(line) - strlen(line) - 1);
	}
	if (line[0] != '\0' && used < maxl)
		ui_put(w, y + used++, x, wd, a, line);
	return used;
}

static void
mt_text_g2(struct data_mt *m, WINDOW *w, int y0, int x, int wd,
    const struct mt_sym *y)
{
	const struct het_mtfit *f = mt_fit(m, m->cur);
	char it[5][MT_ITEM], a[48], b[48];
	int used;

	if (f->status == HET_MTFIT_FEW) {
		ui_put_wrapped(w, y0, x, wd, 2, ui_color_attr(UI_C_WARN),
		    f->note);
		return;
	}
	mt_val(a, sizeof(a), f->x[HET_MTFIT_GAMMA], f->err[HET_MTFIT_GAMMA],
	    y);
	snprintf(it[0], MT_ITEM, "%s = %s %s", y->gamma, a, y->inv_s);
	mt_val(a, sizeof(a), f->x[HET_MTFIT_BETA], f->err[HET_MTFIT_BETA], y);
	snprintf(it[1], MT_ITEM, "%s %s", y->beta, a);
	mt_val(a, sizeof(a), f->x[HET_MTFIT_B], f->err[HET_MTFIT_B], y);
	snprintf(it[2], MT_ITEM, "b %s", a);
	if (m->model == HET_MTFIT_SINGLE)
		snprintf(a, sizeof(a), "1 (single)");
	else
		mt_val(a, sizeof(a), f->x[HET_MTFIT_KAPPA],
		    f->err[HET_MTFIT_KAPPA], y);
	snprintf(it[3], MT_ITEM, "%s %s", y->kappa, a);
	sp_fmt(b, sizeof(b), f->chi2_red, 3);
	snprintf(it[4], MT_ITEM, "%s %s, %zu pts", y->chi, b, f->npts);
	used = mt_pack(w, y0, x, wd, MT_TEXT_ROWS - 1, it, 5,
	    ui_color_attr(UI_C_VALUE));
	if (f->note[0] != '\0')
		ui_put_trunc(w, y0 + used, x, wd, ui_color_attr(UI_C_WARN),
		    f->note);
}

static void
mt_text_rates(struct data_mt *m, WINDOW *w, int y0, int x, int wd,
    const struct mt_sym *y)
{
	const struct het_mtfit_diff *d = &m->p->diff[m->model];
	const struct het_error *de = &m->p->diff_err[m->model];
	char it[4][MT_ITEM], a[48], b[48];
	int n = 2;

	if (!isfinite(d->D)) {
		ui_put_wrapped(w, y0, x, wd, 3, ui_color_attr(UI_C_WARN),
		    de->msg);
		return;
	}
	mt_val(a, sizeof(a), d->D, d->D_err, y);
	snprintf(it[0], MT_ITEM, "D = %s %s", a, y->a2);
	sp_fmt(b, sizeof(b), d->chi2_red, 3);
	if (d->nskip > 0)
		snprintf(it[1], MT_ITEM, "%zu bins (%zu left out: %s), %s %s",
		    d->n, d->nskip, y->none, y->chi, b);
	else
		snprintf(it[1], MT_ITEM, "%zu bins, %s %s", d->n, y->chi, b);
	if (isfinite(d->D1)) {
		mt_val(a, sizeof(a), d->D1, d->D1_err, y);
		snprintf(it[2], MT_ITEM, "with %s0: D = %s", y->gamma, a);
		mt_val(b, sizeof(b), d->G0, d->G0_err, y);
		snprintf(it[3], MT_ITEM, "%s0 = %s %s", y->gamma, b,
		    y->inv_s);
		n = 4;
	}
	mt_pack(w, y0, x, wd, MT_TEXT_ROWS, it, n, ui_color_attr(
	    UI_C_VALUE));
}

/* Beside two-time data, m on multitau data that cannot be read. */
static void
mt_draw_error(struct ui *ui, struct data_mt *m, WINDOW *w, int cols)
{
	int y = 2;

	ui_fill(w, 0, 0, cols, ui_color_attr(UI_C_TITLE));
	ui_put(w, 0, 1, cols - 1, ui_color_attr(UI_C_TITLE), "Multitau g2");
	ui_put(w, y++, 3, cols - 6, ui_color_attr(UI_C_ERROR),
	    " The multitau g2 of this file cannot be shown ");
	y++;
	y += ui_put_wrapped(w, y, 3, cols - 6, 8, A_NORMAL, m->p->err.msg);
	ui_put(w, y + 1, 3, cols - 6, ui_color_attr(UI_C_DIM), "m returns "
	    "to the two-time view; 'hetui inspect FILE' lists the file.");
	(void)ui;
}

void
data_mt_draw(struct ui *ui, struct data_state *s, WINDOW *w)
{
	struct data_mt *m = s->mt;
	const struct het_mt_bin *b;
	const struct ui_glyphs *g = ui->scr.term.g;
	int left = s->left, x0 = left + 1, rw = s->cols - x0, yy;
	struct mt_box bx;
	struct mt_sym y;
	char buf[256];

	if (m->p->mt == NULL) {
		mt_draw_error(ui, m, w, s->cols);
		return;
	}
	b = &m->p->mt->bins[m->cur];
	mt_sym(ui, &y);
	mt_summary(ui, m, w, left, &y);
	mt_table(ui, m, w, s->rows, left, &y);
	for (yy = 1; yy < s->rows; yy++)
		ui_put(w, yy, left, 1, ui_color_attr(UI_C_DIM), g->vline);
	ui_fill(w, 0, x0, rw, ui_color_attr(UI_C_TITLE));
	if (m->rates)
		snprintf(buf, sizeof(buf), "%s (%s) vs %s (%s)  %s",
		    y.gamma, y.inv_s, y.q2, y.inv_a2,
		    het_mtfit_name(m->model));
	else
		snprintf(buf, sizeof(buf), "g2(%s) #%ld  q %.4g %s  %s %.1f%s",
		    g->tau, b->label, b->q, g->inv_angstrom, g->phi, b->phi,
		    g->deg);
	ui_put(w, 0, x0 + 1, rw - 1, ui_color_attr(UI_C_TITLE), buf);
	bx.y0 = 1;
	bx.x0 = x0 + 1 + MT_YLAB;
	bx.ph = s->rows - 2 - MT_TEXT_ROWS;
	bx.pw = rw - MT_YLAB - 8;	/* the unit after the axis */
	if (bx.ph < 3 || bx.pw < 8)
		return;
	if (m->rates) {
		mt_plot_rates(ui, m, w, &bx, &y);
		mt_text_rates(m, w, bx.y0 + bx.ph + 1, x0 + 1, rw - 2, &y);
	} else {
		mt_plot_g2(ui, m, w, &bx, &y);
		mt_text_g2(m, w, bx.y0 + bx.ph + 1, x0 + 1, rw - 2, &y);
	}
}

/* ---- keys -------------------------------------------------------------- */

/* The first bin of the next (+1) or previous (-1) q ring. */
static void
mt_ring(struct data_mt *m, int dir)
{
	const struct het_multitau *mt = m->p->mt;
	size_t qi = mt->bins[m->cur].q_idx, b = m->cur;

	while (dir > 0 ? b + 1 < mt->nbins : b > 0) {
		b = dir > 0 ? b + 1 : b - 1;
		if (mt->bins[b].q_idx != qi)
			break;
	}
	/* backwards: to the first bin of that ring */
	while (dir < 0 && b > 0 && mt->bins[b - 1].q_idx == mt->bins[b].q_idx)
		b--;
	m->cur = b;
}

static void
mt_move(struct data_mt *m, long delta)
{
	long pos = (long)m->cur + delta, n = (long)m->p->mt->nbins;

	m->cur = (size_t)(pos < 0 ? 0 : pos >= n ? n - 1 : pos);
}

/* The m key: to the multitau view and back. */
static int
mt_toggle(struct ui *ui, struct data_state *s)
{
	long label;

	if (ui->ses.mt_only) {
		ui_msg(ui, UI_LOG_INFO, "this file holds multitau g2 only: "
		    "there is no two-time view");
		return 1;
	}
	if (ui->ses.meta == NULL)
		return 0;
	if (s->mt == NULL) {
		ui_msg(ui, UI_LOG_INFO, "this file has no multitau g2 (%s)",
		    HET_MT_GROUP);
		return 1;
	}
	s->mt->shown = !s->mt->shown;
	/* the same dynamic bin as the two-time cursor, when it has g2 */
	label = ui->ses.meta->bins[ui->ses.sel.cursor].label;
	if (s->mt->shown && s->mt->p->mt != NULL && label >= 1 &&
	    (size_t)label <= s->mt->p->mt->nbins)
		s->mt->cur = (size_t)label - 1;
	ui_msg(ui, UI_LOG_INFO, "%s", s->mt->shown ? "multitau view: g2(tau) "
	    "of each q bin and its fit (m: back)" : "two-time view");
	ui_dirty(ui, UI_DIRTY_ALL);
	return 1;
}

int
data_mt_key(struct ui *ui, struct data_state *s, int key)
{
	struct data_mt *m = s->mt;

	if (key == 'm')
		return mt_toggle(ui, s);
	if (!data_mt_shown(ui, s))
		return 0;
	if (m->p->mt == NULL)
		return key != 'q' && key != '?' && key != '\t' &&
		    key != UI_K_BTAB && !(key >= '0' && key <= '9') &&
		    key != 'o' && key != 'F';
	switch (key) {
	case UI_K_UP:
	case 'k':
		mt_move(m, -1);
		break;
	case UI_K_DOWN:
	case 'j':
		mt_move(m, 1);
		break;
	case UI_K_PGUP:
		mt_move(m, -(long)(s->rows - MT_TABLE_Y));
		break;
	case UI_K_PGDN:
		mt_move(m, s->rows - MT_TABLE_Y);
		break;
	case UI_K_HOME:
		m->cur = 0;
		break;
	case UI_K_END:
		m->cur = m->p->mt->nbins - 1;
		break;
	case '[':
	case ']':
		mt_ring(m, key == ']' ? 1 : -1);
		break;
	case 's':
		m->model = m->model == HET_MTFIT_SINGLE ? HET_MTFIT_STRETCHED :
		    HET_MTFIT_SINGLE;
		ui_msg(ui, UI_LOG_INFO, "fits: %s exponential",
		    het_mtfit_name(m->model));
		break;
	case 'd':
		m->rates = !m->rates;
		ui_msg(ui, UI_LOG_INFO, "%s", m->rates ? "rates against q^2, "
		    "with D" : "g2(tau) of the bin");
		break;
	case ' ':
	case 'a':
	case 'c':
	case 'f':
	case 'L':
	case 'w':
	case 'z':
	case 'Z':
		/* the two-time view's keys: said, not passed on */
		ui_msg(ui, UI_LOG_INFO, "%s", ui->ses.mt_only ? "this file "
		    "has no two-time matrices: that key has nothing to act "
		    "on" : "that key acts in the two-time view (m)");
		return 1;
	default:
		return 0;
	}
	ui_dirty(ui, UI_DIRTY_BODY | UI_DIRTY_FOOT);
	return 1;
}
