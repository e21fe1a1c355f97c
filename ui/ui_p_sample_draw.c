/*
 * ui_p_sample_draw.c: drawing of the Sampling panel, and the trace and
 * histogram charts it shares with the Results panel.
 *
 * Layout: a title bar (file, phase, elapsed time); before a run (or with
 * s during one) the settings table with a refusal under its row, the
 * gate thresholds and what r will do.  During and after a run: the phase
 * line with the shard counts, the NLSQ line, then the shard table (one
 * row per shard in queue order, largest first, with a progress bar over
 * all its chains; a retried or failed shard gets a line with its reason
 * under it) and, below it, the detail of the shard under the cursor:
 * per-parameter R-hat (coloured against max_r_hat), ESS, mean, sd and
 * the trace of each chain side by side.  Enter gives the detail the
 * whole body.  The last line says what became of the run.  Pure
 * rendering: only the scroll positions of the panel state change here.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_proc.h"
#include "het_shard.h"
#include "het_util.h"
#include "ui.h"
#include "ui_p_sample.h"

#define BAR_FULL(u)	((u) ? "\xe2\x96\x88" : "#")
#define BAR_EMPTY(u)	((u) ? "\xe2\x96\x91" : ".")
#define TABLE_Y		3	/* column heads of the shard table */

/* ---- the settings view ---------------------------------------------- */

/* The smallest automatic shard of the heterodyne rule (het_shard.h). */
static long
ss_het_floor(const struct het_config_cmc *m)
{
	long	per_param = m->min_points_per_param > LONG_MAX /
		    HET_SHARD_HET_PARAMS ? LONG_MAX : HET_SHARD_HET_PARAMS *
		    m->min_points_per_param;

	return per_param > m->min_points_per_shard ? per_param :
	    m->min_points_per_shard;
}

/* A settings row's value (as the template writes it) and meaning. */
static void
set_value(struct ui *ui, struct sample_state *s, int i, char *val,
    size_t vlen, char *desc, size_t dlen)
{
	const struct het_config_cmc *m = &ui->ses.cfg->cmc;
	const struct sample_set_row *row = &sample_set_rows[i];
	struct het_error err;

	snprintf(desc, dlen, "%s", row->desc != NULL ? row->desc : "");
	if (row->key == NULL)	/* workers: the panel's own */
		snprintf(val, vlen, s->workers == 0 ? "auto" : "%ld",
		    s->workers);
	else if (het_config_setting_format(ui->ses.cfg, row->key, val, vlen,
	    &err) != HET_OK)
		snprintf(val, vlen, "?");
	if (i == SS_SHARDS && ui->ses.cfg->family == HET_FAMILY_HETERODYNE)
		snprintf(desc, dlen, "auto: one per angle, >= %ld pairs each",
		    ss_het_floor(m));
	else if (i == SS_SHARDS)
		snprintf(desc, dlen, "auto: by the data, >= %ld pairs each",
		    m->min_points_per_shard);
	else if (i == SS_CHAINS)
		snprintf(desc, dlen, "NUTS chains per shard, %s",
		    m->chain_parallel ? "at once when cores are free" :
		    "one after another (chain_method)");
}

static void
draw_settings(struct ui *ui, struct sample_state *s, WINDOW *w, int y)
{
	const struct het_config_cmc *m = &ui->ses.cfg->cmc;
	const struct ui_ring *r = ui_model_ring(ui);
	char val[64], desc[256], buf[640];
	const char *wp;
	int i, cur;
	attr_t a;

	ui_put(w, y++, 1, s->cols - 2, ui_color_attr(UI_C_LABEL) | A_BOLD,
	    "Settings  (Enter edits, r starts)");
	for (i = 0; i < SS_COUNT && y < s->rows - 1; i++) {
		set_value(ui, s, i, val, sizeof val, desc, sizeof desc);
		cur = i == s->srow;
		a = cur ? ui_color_attr(UI_C_CURSOR) : A_NORMAL;
		if (cur)
			ui_fill(w, y, 0, s->cols, a);
		ui_put(w, y, 2, 10, a, sample_set_rows[i].label);
		ui_put(w, y, 13, 20, cur ? a : ui_color_attr(UI_C_VALUE),
		    val);
		ui_put_trunc(w, y, 34, s->cols - 35, cur ? a :
		    ui_color_attr(UI_C_DIM), desc);
		y++;
		if (s->err_on && s->err_row == i && y < s->rows - 1)
			y += ui_put_wrapped(w, y, 4, s->cols - 6, 3,
			    ui_color_attr(UI_C_ERROR), s->err);
	}
	y++;
	if (y < s->rows - 1)
		ui_putf(w, y++, 2, s->cols - 3, ui_color_attr(UI_C_DIM),
		    "gates: max R-hat %.3g, min ESS %.4g, min BFMI %.3g, max "
		    "divergence rate %.3g", m->max_r_hat, m->min_ess,
		    m->min_bfmi, m->max_divergence_rate);
	y++;
	if (y >= s->rows - 1)
		return;
	if (ui->ses.meta == NULL)
		snprintf(buf, sizeof(buf), "No file is open. Start hetui with "
		    "a result file (and -c CONFIG) to sample it.");
	else
		snprintf(buf, sizeof(buf), "r fits %s (NLSQ) to ring %zu, q "
		    "%.4g, %zu selected angle%s, frames %ld-%ld, then samples "
		    "its posterior in shards on worker processes.",
		    het_mode_name(ui->ses.cfg->mode), ui->ses.sel.ring + 1,
		    r != NULL ?
		    r->q : 0, ui_model_ring_selected(ui, ui->ses.sel.ring),
		    ui_model_ring_selected(ui,
		    ui->ses.sel.ring) == 1 ? "" : "s",
		    ui->ses.sel.first, ui->ses.sel.last);
	y += ui_put_wrapped(w, y, 2, s->cols - 4, s->rows - 1 - y, A_NORMAL,
	    buf);
	wp = getenv("HETUI_WORKER");
	if (y < s->rows - 1)
		ui_putf(w, y++, 2, s->cols - 4, ui_color_attr(UI_C_DIM),
		    "worker: %s", m->worker_command != NULL ?
		    m->worker_command : wp != NULL && *wp != '\0' ? wp :
		    "hetui-worker (installed)");
}

/* ---- the run view ---------------------------------------------------- */

/* Lines of the shard table: a shard, or the reason line under it. */
struct sline {
	size_t	shard;
	int	reason;		/* 0: the shard row; 1: its reason */
};

static size_t
build_lines(struct ui *ui, struct sline *l, size_t max)
{
	const struct het_cmc_shard *sh;
	size_t k, n = 0, ns = het_sample_nshards(ui->ses.sample);

	/* l may be NULL: count only. */
	for (k = 0; k < ns && n < max; k++) {
		sh = het_sample_shard(ui->ses.sample, k);
		if (l != NULL) {
			l[n].shard = k;
			l[n].reason = 0;
		}
		n++;
		if (sh->nreasons > 0 && n < max && (sh->state ==
		    HET_CMC_RETRYING || sh->state == HET_CMC_FAILED ||
		    sh->attempts > 1)) {
			if (l != NULL) {
				l[n].shard = k;
				l[n].reason = 1;
			}
			n++;
		}
	}
	return n;
}

/* Rows for the shard table when the detail shares the body. */
int
sp_table_rows(const struct sample_state *s)
{
	int avail = s->rows - 1 - (TABLE_Y + 1);

	/* The detail keeps at least 7 rows once there is room for it. */
	if (avail > 12)
		avail -= 7;
	return avail > 1 ? avail : 1;
}

static const char *
state_word(const struct het_cmc_shard *sh)
{
	switch (sh->state) {
	case HET_CMC_QUEUED:
		return "QUEUED";
	case HET_CMC_RUNNING:
		return sh->attempts > 1 ? "RETRY#2" : "RUNNING";
	case HET_CMC_RETRYING:
		return "RETRYING";
	case HET_CMC_DONE:
		return sh->attempts > 1 ? "DONE#2" : "DONE";
	case HET_CMC_FAILED:
		return "FAILED";
	case HET_CMC_CANCELLED:
		return "CANCELLED";
	}
	return "?";
}

static attr_t
state_attr(const struct het_cmc_shard *sh)
{
	switch (sh->state) {
	case HET_CMC_RUNNING:
		return ui_color_attr(UI_C_WARN) | A_BOLD;
	case HET_CMC_RETRYING:
		return ui_color_attr(UI_C_WARN) | A_BOLD;
	case HET_CMC_DONE:
		return ui_color_attr(UI_C_INFO) | A_BOLD;
	case HET_CMC_FAILED:
		return ui_color_attr(UI_C_ERROR) | A_BOLD;
	default:
		return ui_color_attr(UI_C_DIM);
	}
}

/* Fraction of a shard's transitions done (all chains), 0 .. 1. */
static double
shard_frac(const struct sample_state *s, const struct het_cmc_shard *sh)
{
	if (sh->state == HET_CMC_DONE)
		return 1;
	if (sh->state != HET_CMC_RUNNING && sh->state != HET_CMC_FAILED &&
	    sh->state != HET_CMC_CANCELLED)
		return 0;
	return het_cmc_shard_progress(sh, s->chains, s->total);
}

static void
draw_bar(struct ui *ui, WINDOW *w, int y, int x, int wd, double f,
    attr_t a)
{
	int full = (int)(f * wd + 0.5), i;

	for (i = 0; i < wd; i++)
		ui_put(w, y, x + i, 1, i < full ? a : ui_color_attr(UI_C_DIM),
		    i < full ? BAR_FULL(ui->scr.term.utf8) :
		    BAR_EMPTY(ui->scr.term.utf8));
}

static void
draw_shard_row(struct ui *ui, struct sample_state *s, WINDOW *w, int y,
    size_t k, int bw, double max_r_hat)
{
	const struct het_cmc_shard *sh = het_sample_shard(ui->ses.sample, k);
	const struct sample_seen *sn = k < s->nseen ? &s->seen[k] : NULL;
	const struct het_wire_progress *pr = sh->has_progress &&
	    sh->state != HET_CMC_DONE ? &sh->progress : NULL;
	const struct het_sample_shard_diag *d = sn != NULL && sn->have_diag ?
	    &sn->diag : NULL;
	int cur = k == s->cur, x;
	attr_t ra = cur ? ui_color_attr(UI_C_CURSOR_DIM) : A_NORMAL;
	char step[16], acc[16], div[16], rh[16], ess[16], el[16], pid[16];
	double f = shard_frac(s, sh), rhat = NAN, elapsed;

	if (cur)
		ui_fill(w, y, 0, s->cols, ra);
	ui_putf(w, y, 0, 5, ra, "%c%3ld", cur ? '>' : ' ', sh->id);
	ui_put(w, y, 5, 9, cur ? ra | A_BOLD : state_attr(sh),
	    state_word(sh));
	ui_putf(w, y, 14, 8, ra, "%7zu", sh->npairs);
	draw_bar(ui, w, y, 23, bw, f, sh->state == HET_CMC_DONE ?
	    ui_color_attr(UI_C_INFO) : ui_color_attr(UI_C_GRAPH));
	x = 23 + bw;
	ui_putf(w, y, x, 5, ra, "%4.0f%%", f * 100);
	x += 5;
	/* Unknown is "-" in every cell; a blank could be read as 0. */
	snprintf(step, sizeof(step), "-");
	snprintf(acc, sizeof(acc), "-");
	snprintf(div, sizeof(div), "-");
	snprintf(rh, sizeof(rh), "-");
	snprintf(ess, sizeof(ess), "-");
	if (d != NULL) {
		sp_fmt_w(step, sizeof(step), d->step_size, 3, 6);
		snprintf(acc, sizeof(acc), "%.2f", d->accept);
		snprintf(div, sizeof(div), "%ld", d->divergences);
		rhat = d->max_rhat;
		snprintf(rh, sizeof(rh), "%.3f", rhat);
		snprintf(ess, sizeof(ess), "%.0f", d->min_ess);
	} else if (pr != NULL) {
		sp_fmt_w(step, sizeof(step), pr->step_size, 3, 6);
		snprintf(acc, sizeof(acc), "%.2f", pr->accept);
		snprintf(div, sizeof(div), "%ld", pr->divergences);
		rhat = pr->rhat;
		if (rhat == rhat)
			snprintf(rh, sizeof(rh), "%.3f", rhat);
	}
	ui_putf(w, y, x, 25, ra, " %6s %4s %4s", step, acc, div);
	x += 17;
	ui_putf(w, y, x, 7, cur ? ra : sp_rhat_attr(rhat, max_r_hat), "%7s",
	    rh);
	x += 7;
	ui_putf(w, y, x, 7, ra, "%6s", ess);
	x += 6;
	elapsed = sh->state == HET_CMC_RUNNING ? het_clock_now() -
	    sh->t_start : sh->elapsed;
	if (sh->state == HET_CMC_QUEUED || !(elapsed >= 0))
		snprintf(el, sizeof(el), "-");
	else
		snprintf(el, sizeof(el), "%.1fs", elapsed);
	ui_putf(w, y, x, 8, ra, " %6s", el);
	x += 7;
	if (sh->pid > 0 && sh->state == HET_CMC_RUNNING)
		snprintf(pid, sizeof(pid), "%ld", (long)sh->pid);
	else
		snprintf(pid, sizeof(pid), "-");
	ui_putf(w, y, x, s->cols - x, ra, " %6s", pid);
}

static void
draw_reason(struct ui *ui, struct sample_state *s, WINDOW *w, int y,
    size_t k)
{
	const struct het_cmc_shard *sh = het_sample_shard(ui->ses.sample, k);
	char buf[HET_ERROR_MSG_MAX + 64];

	snprintf(buf, sizeof(buf), "%s %s", sh->state == HET_CMC_FAILED ?
	    "failed:" : "attempt 1 failed:", sh->reason[sh->state ==
	    HET_CMC_FAILED ? sh->nreasons - 1 : 0]);
	ui_put_trunc(w, y, 6, s->cols - 7, ui_color_attr(sh->state ==
	    HET_CMC_FAILED ? UI_C_ERROR : UI_C_WARN), buf);
}

/* Append "  12% of the work, about 2.3 h left" while it means something. */
static void
draw_eta(struct ui *ui, char *buf, size_t len)
{
	double	done, left;
	size_t	n = strlen(buf);
	char	t[32];

	if (n < len && het_sample_view_eta(ui->ses.sample, het_clock_now(),
	    &done,
	    &left))
		snprintf(buf + n, len - n, "  %.0f%% of the work, about %s "
		    "left", 100 * done, het_format_duration(left, t,
		    sizeof(t)));
}

/* The phase line and the NLSQ line (rows 1 and 2). */
static void
draw_phase(struct ui *ui, struct sample_state *s, WINDOW *w)
{
	struct het_sample_progress pg;
	const struct het_sample_nlsq *nl = het_sample_nlsq(ui->ses.sample);
	const struct het_problem *pb = het_sample_problem(ui->ses.sample);
	const struct het_cmc *c = het_sample_coordinator(ui->ses.sample);
	enum het_sample_phase ph = het_sample_phase(ui->ses.sample);
	char buf[512];
	attr_t a = ui_color_attr(UI_C_WARN) | A_BOLD;

	het_sample_progress(ui->ses.sample, &pg);
	switch (ph) {
	case HET_SAMPLE_READING:
		snprintf(buf, sizeof(buf), "reading bin %zu/%zu",
		    pg.bins_read, pg.bins_total);
		break;
	case HET_SAMPLE_NLSQ:
		snprintf(buf, sizeof(buf), "NLSQ  iteration %ld  cost %.5g  "
		    "chi2_red %.4g", pg.nlsq_iter, pg.nlsq_cost,
		    pg.nlsq_chi2_red);
		break;
	case HET_SAMPLE_PREPARING:
		snprintf(buf, sizeof(buf), "preparing the shards");
		break;
	case HET_SAMPLE_SAMPLING:
	case HET_SAMPLE_COMBINING:
	case HET_SAMPLE_WRITING:
	case HET_SAMPLE_DONE:
	case HET_SAMPLE_FAILED:
	case HET_SAMPLE_CANCELLED:
		if (c == NULL) {
			snprintf(buf, sizeof(buf), "%s",
			    het_sample_phase_name(ph));
			break;
		}
		snprintf(buf, sizeof(buf), "%s  %zu/%zu done  %zu running  "
		    "%zu queued  %zu retrying  %zu failed",
		    ph == HET_SAMPLE_SAMPLING && s->cancelling ?
		    "cancelling" : het_sample_finished(ui->ses.sample) ?
		    het_sample_verdict_name(
		    het_sample_verdict(ui->ses.sample)) :
		    het_sample_phase_name(ph),
		    het_cmc_count(c, HET_CMC_DONE), het_cmc_nshards(c),
		    het_cmc_count(c, HET_CMC_RUNNING),
		    het_cmc_count(c, HET_CMC_QUEUED),
		    het_cmc_count(c, HET_CMC_RETRYING),
		    het_cmc_count(c, HET_CMC_FAILED));
		draw_eta(ui, buf, sizeof(buf));
		break;
	default:
		snprintf(buf, sizeof(buf), "%s", het_sample_phase_name(ph));
	}
	if (het_sample_finished(ui->ses.sample)) {
		enum het_sample_verdict v = het_sample_verdict(ui->ses.sample);

		a = ui_color_attr(v == HET_VERDICT_PASSED ? UI_C_INFO :
		    v == HET_VERDICT_GATES_FAILED ||
		    v == HET_VERDICT_CANCELLED ? UI_C_WARN : UI_C_ERROR) |
		    A_BOLD;
	}
	ui_put_trunc(w, 1, 1, s->cols - 2, a, buf);
	if (nl != NULL)
		snprintf(buf, sizeof(buf), "NLSQ %s: %s, chi2_red %.4g; %s, "
		    "%zu pairs, %zu parameters", nl->loaded ? nl->source :
		    "fit", nl->converged ? "converged" : "not converged",
		    nl->chi2_red, pb != NULL ? het_mode_name(pb->spec.mode) :
		    "?", pb != NULL ? pb->npairs : 0, nl->p);
	else if (pb != NULL)
		snprintf(buf, sizeof(buf), "%s, %zu angle%s, %zu pairs",
		    het_mode_name(pb->spec.mode), pb->nangles,
		    pb->nangles == 1 ? "" : "s", pb->npairs);
	else
		buf[0] = '\0';
	ui_put_trunc(w, 2, 1, s->cols - 2, ui_color_attr(UI_C_DIM), buf);
}

static void
draw_table(struct ui *ui, struct sample_state *s, WINDOW *w, int rows)
{
	struct het_cons_gates g;
	struct sline *l;
	size_t n, i, first = 0, last = 0,
	    ns = het_sample_nshards(ui->ses.sample);
	int bw = 8 + (s->cols - 80) / 3, y;
	attr_t ta = ui_color_attr(UI_C_TITLE);

	if (bw > 30)
		bw = 30;
	het_sample_view_gates(ui->ses.sample, &g);
	ui_fill(w, TABLE_Y, 0, s->cols, ta);
	ui_putf(w, TABLE_Y, 0, s->cols, ta, "  id state      pairs %-*s "
	    "  step  acc  div  R-hat   ESS   time    pid", bw + 4,
	    "progress");
	if (ns == 0) {
		ui_put_wrapped(w, TABLE_Y + 1, 2, s->cols - 4, rows,
		    ui_color_attr(UI_C_DIM), "The shards are made after the "
		    "NLSQ fit; each appears here with its worker.");
		return;
	}
	l = ui_xcalloc(2 * ns, sizeof(*l));
	n = build_lines(ui, l, 2 * ns);
	/* Keep the cursor's shard (and its reason) in view. */
	for (i = 0; i < n; i++)
		if (l[i].shard == s->cur) {
			if (!l[i].reason)
				first = i;
			last = i;
		}
	if (first < s->top)
		s->top = first;
	if (last >= s->top + (size_t)rows)
		s->top = last + 1 - (size_t)rows;
	if (s->top >= n)
		s->top = 0;
	for (y = 0; y < rows && s->top + (size_t)y < n; y++) {
		i = s->top + (size_t)y;
		if (l[i].reason)
			draw_reason(ui, s, w, TABLE_Y + 1 + y, l[i].shard);
		else
			draw_shard_row(ui, s, w, TABLE_Y + 1 + y, l[i].shard,
			    bw, g.max_r_hat);
	}
	if (n > (size_t)rows)
		ui_putf(w, TABLE_Y, s->cols - 12, 12, ta, "%zu-%zu/%zu",
		    s->top + 1, s->top + (size_t)y, n);
	free(l);
}

/* The selected shard's detail from row y0 to the last row - 1. */
static void
draw_detail(struct ui *ui, struct sample_state *s, WINDOW *w, int y0)
{
	const struct het_cmc_shard *sh = het_sample_shard(ui->ses.sample,
	    s->cur);
	const struct het_shard_result *r;
	struct het_cons_gates g;
	attr_t ta = ui_color_attr(UI_C_TITLE), ra;
	int y = y0, bottom = s->rows - 1, tw, segw, c, x, rows;
	double lo, hi, v, minbfmi = INFINITY;
	size_t m, i, npar;
	long div = 0;
	char buf[2 * HET_ERROR_MSG_MAX + 64], a[16], b[16], e[16], f[16];
	char range[32];

	if (sh == NULL || y0 >= bottom - 1)
		return;
	het_sample_view_gates(ui->ses.sample, &g);
	r = sample_shard_result(ui, s, s->cur);
	ui_fill(w, y, 0, s->cols, ta);
	if (r == NULL) {
		ui_putf(w, y++, 1, s->cols - 2, ta, "Shard %ld  %zu pairs  %s",
		    sh->id, sh->npairs, het_cmc_state_name(sh->state));
		if (sh->state == HET_CMC_RUNNING && sh->has_progress &&
		    sh->progress.at_once)
			snprintf(buf, sizeof(buf), "its chains at once, %.0f%% "
			    "done on worker pid %ld (the chain furthest "
			    "behind: chain %ld/%ld, %s, iteration %ld/%ld). "
			    "The per-parameter R-hat, ESS and traces appear "
			    "when its result arrives.", 100 *
			    sh->progress.done, (long)sh->pid,
			    sh->progress.chain + 1, s->chains,
			    sh->progress.phase, sh->progress.iteration,
			    s->total);
		else if (sh->state == HET_CMC_RUNNING && sh->has_progress)
			snprintf(buf, sizeof(buf), "chain %ld/%ld, %s, "
			    "iteration %ld/%ld on worker pid %ld. The "
			    "per-parameter R-hat, ESS and traces appear when "
			    "its result arrives.", sh->progress.chain + 1,
			    s->chains, sh->progress.phase,
			    sh->progress.iteration, s->total,
			    (long)sh->pid);
		else if (sh->nreasons > 0)
			snprintf(buf, sizeof(buf), "%s%s%s", sh->reason[0],
			    sh->nreasons > 1 ? "  Then: " : "",
			    sh->nreasons > 1 ? sh->reason[1] : "");
		else if (s->dec_failed && s->dec_index == (long)s->cur)
			snprintf(buf, sizeof(buf), "its result cannot be "
			    "read: %s", s->dec_err);
		else
			snprintf(buf, sizeof(buf), "No result yet: the "
			    "per-parameter R-hat, ESS and traces appear when "
			    "it arrives.");
		ui_put_wrapped(w, y, 2, s->cols - 4, bottom - y,
		    sh->nreasons > 0 ? ui_color_attr(UI_C_ERROR) :
		    ui_color_attr(UI_C_DIM), buf);
		return;
	}
	for (c = 0; c < (int)r->nchain; c++) {
		div += r->divergences[c];
		if (r->bfmi[c] == r->bfmi[c])
			minbfmi = fmin(minbfmi, r->bfmi[c]);
	}
	ui_putf(w, y++, 1, s->cols - 2, ta, "Shard %ld  %zu pairs  %zu "
	    "chain%s %s %zu draws  %ld divergences  min BFMI %.3g  %.1f s",
	    sh->id, sh->npairs, r->nchain, r->nchain == 1 ? "" : "s",
	    ui->scr.term.g->times, r->ndraw, div, minbfmi, sh->elapsed);
	tw = s->cols - 62;
	npar = r->p;
	rows = bottom - y - 1;
	if (rows < 1)
		return;
	if (s->ptop + (size_t)rows > npar)
		s->ptop = npar > (size_t)rows ? npar - (size_t)rows : 0;
	/* The scroll range takes the first head, over no other text. */
	ui_putf(w, y++, 1, s->cols - 2, ui_color_attr(UI_C_LABEL) | A_BOLD,
	    "%-14s %7s %6s %6s %10s %9s  %s", ui_range_text(range,
	    sizeof(range), s->ptop, (size_t)rows, npar, "parameter"), "R-hat",
	    "bulk", "tail", "mean", "sd", "trace, chains side by side");
	segw = r->nchain > 0 ? (tw - (int)r->nchain + 1) / (int)r->nchain : 0;
	for (i = 0; i < (size_t)rows && s->ptop + i < npar; i++, y++) {
		m = s->ptop + i;
		sp_fmt_w(a, sizeof(a), r->summary[m].mean, 5,
		    10);
		sp_fmt_w(b, sizeof(b), r->summary[m].sd, 3, 9);
		snprintf(e, sizeof(e), "%.0f", r->summary[m].ess_bulk);
		snprintf(f, sizeof(f), "%.0f", r->summary[m].ess_tail);
		ui_put_trunc(w, y, 1, 14, A_NORMAL, r->names[m]);
		ui_putf(w, y, 16, 7, sp_rhat_attr(r->summary[m].rhat,
		    g.max_r_hat), "%7.4f", r->summary[m].rhat);
		ra = r->summary[m].ess_bulk > g.min_ess ? A_NORMAL :
		    ui_color_attr(UI_C_WARN);
		ui_putf(w, y, 24, 6, ra, "%6s", e);
		ui_putf(w, y, 31, 6, A_NORMAL, "%6s", f);
		ui_putf(w, y, 38, 21, ui_color_attr(UI_C_VALUE), "%10s %9s",
		    a, b);
		if (segw < 4)
			continue;
		/* One range for all chains, so they compare. */
		lo = INFINITY;
		hi = -INFINITY;
		for (c = 0; c < (int)r->nchain; c++)
			for (v = 0, x = 0; x < (int)r->ndraw; x++) {
				v = r->draws[((size_t)c * r->p + m) * r->ndraw +
				    (size_t)x];
				if (isfinite(v)) {
					lo = fmin(lo, v);
					hi = fmax(hi, v);
				}
			}
		if (!(lo < hi)) {
			lo -= 0.5;
			hi += 0.5;
		}
		for (c = 0; c < (int)r->nchain; c++)
			sp_spark(ui, w, y, 61 + c * (segw + 1), segw,
			    r->draws + ((size_t)c * r->p + m) * r->ndraw,
			    r->ndraw, 1, lo, hi, ui_color_attr(c % 2 == 0 ?
			    UI_C_GRAPH : UI_C_VALUE));
	}
}

/* The last line: what became of the run, or where it goes. */
static void
draw_where(struct ui *ui, struct sample_state *s, WINDOW *w)
{
	const struct het_sample_summary *sm =
	    het_sample_summary(ui->ses.sample);
	enum het_sample_verdict v = het_sample_verdict(ui->ses.sample);
	const char *const *files = het_sample_files(ui->ses.sample);
	char buf[1200];
	attr_t a = ui_color_attr(UI_C_DIM);
	int y = s->rows - 1;

	if (!het_sample_finished(ui->ses.sample))
		snprintf(buf, sizeof(buf), "sampling %s; results to %s/",
		    s->file, het_sample_out_dir(ui->ses.sample));
	else if (v == HET_VERDICT_PASSED) {
		a = ui_color_attr(UI_C_INFO);
		snprintf(buf, sizeof(buf), "gates passed: every shard passed "
		    "(max R-hat %.3f); results in %s/; Results (5)",
		    sm->max_rhat, het_sample_out_dir(ui->ses.sample));
	} else if (v == HET_VERDICT_GATES_FAILED) {
		a = ui_color_attr(UI_C_WARN);
		snprintf(buf, sizeof(buf), "gates failed for %zu shard%s; "
		    "results in %s/; Results (5) says which",
		    sm->gates_nfailed, sm->gates_nfailed == 1 ? "" : "s",
		    het_sample_out_dir(ui->ses.sample));
	} else if (v == HET_VERDICT_CANCELLED) {
		a = ui_color_attr(UI_C_WARN);
		snprintf(buf, sizeof(buf), "cancelled%s%s%s", files[0] != NULL ?
		    "; what finished is in " : "; nothing was written",
		    files[0] != NULL ? het_sample_out_dir(ui->ses.sample) : "",
		    files[0] != NULL ? "/" : "");
	} else {
		a = ui_color_attr(UI_C_ERROR);
		snprintf(buf, sizeof(buf), "%s: %s", v ==
		    HET_VERDICT_SHARDS_FAILED ? "too few shards finished" :
		    "failed", het_sample_error(ui->ses.sample)->msg);
	}
	ui_put_trunc(w, y, 1, s->cols - 2, a, buf);
}

void
sp_draw(struct ui *ui, void *state, WINDOW *w)
{
	struct sample_state *s = state;
	attr_t ta = ui_color_attr(UI_C_TITLE);
	const char *base = s->file;
	double el;
	int rows, used;

	ui_fill(w, 0, 0, s->cols, ta);
	if (base != NULL && strrchr(base, '/') != NULL)
		base = strrchr(base, '/') + 1;
	if (ui->ses.sample == NULL) {
		ui_put(w, 0, 1, s->cols - 2, ta, "Sampling  (Consensus Monte "
		    "Carlo)");
		draw_settings(ui, s, w, 2);
		return;
	}
	el = (s->ended ? s->t_end : ui_now()) - s->t0;
	ui_putf(w, 0, 1, s->cols - 2, ta, "Sampling  %s  %s  %.1f s",
	    base != NULL ? base : "", het_sample_finished(ui->ses.sample) ?
	    het_sample_verdict_name(het_sample_verdict(ui->ses.sample)) :
	    het_sample_phase_name(het_sample_phase(ui->ses.sample)), el);
	if (s->show_settings) {
		ui_put(w, 0, s->cols - 24, 23, ta, "s: back to the run");
		draw_settings(ui, s, w, 2);
		return;
	}
	draw_phase(ui, s, w);
	if (s->zoom && het_sample_nshards(ui->ses.sample) > 0) {
		draw_detail(ui, s, w, TABLE_Y);
		draw_where(ui, s, w);
		return;
	}
	rows = sp_table_rows(s);
	used = (int)build_lines(ui, NULL,
	    2 * het_sample_nshards(ui->ses.sample));
	if (used < rows)
		rows = used > 0 ? used : 2;
	draw_table(ui, s, w, rows);
	if (het_sample_nshards(ui->ses.sample) > 0)
		draw_detail(ui, s, w, TABLE_Y + 2 + rows);
	draw_where(ui, s, w);
}
