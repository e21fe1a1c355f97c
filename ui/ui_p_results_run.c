#include "config.h"
/*
 * ui_p_results_run.c: the run the user picked in the Results panel's
 * history, read back from its own folder.
 *
 * Design: picking a row starts het_runload on the run's folder; the
 * panel shows "loading DIR/" until the DONE event of that request
 * arrives (a later pick supersedes an earlier one by its job id).  The
 * shown run is what its files say, not what the session remembers: the
 * fit (status, reduced chi-square, frames and angles, every parameter
 * with its uncertainty) and, for a sampling run, the posterior mean and
 * sd from its cmc_summary.json beside the NLSQ value.  Nothing here
 * reads a file or computes.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui_p_results.h"

void
ui_results_run_clear(struct results_run *r)
{
	het_runload_free(r->load);
	r->load = NULL;
	het_runload_result_free(r->res);
	r->res = NULL;
	free(r->want);
	r->want = NULL;
}

int
ui_results_run_active(const struct results_run *r)
{
	return r->want != NULL;
}

void
ui_results_run_pick(struct ui *ui, struct results_run *r, const char *dir)
{
	struct het_error err;

	ui_results_run_clear(r);
	r->want = ui_xstrdup(dir);
	het_error_clear(&err);
	if ((r->load = het_runload_start(ui->ses.evq, ++r->job, dir, &err)) ==
	    NULL) {
		ui_msg(ui, UI_LOG_ERROR, "run not loaded: %s", err.msg);
		free(r->want);
		r->want = NULL;
		return;
	}
	ui_msg(ui, UI_LOG_INFO, "loading the run in %s/", dir);
}

void
ui_results_run_event(struct ui *ui, struct results_run *r,
    struct het_event *ev)
{
	struct het_runload_result *res;

	if (ev->type != HET_RUNLOAD_EV_DONE || ev->job != r->job ||
	    r->want == NULL)
		return;
	res = ev->data;
	ev->data = NULL;	/* ours now */
	het_runload_free(r->load);
	r->load = NULL;
	het_runload_result_free(r->res);
	r->res = res;
	if (res->code != HET_OK)
		ui_msg(ui, UI_LOG_ERROR, "run in %s/ not loaded: %s", res->dir,
		    res->err.msg);
	else {
		ui_msg(ui, UI_LOG_INFO, "run loaded from %s/ (x: back to the "
		    "posterior)", res->dir);
		ui_data_model(ui, res->dir);	/* over the Data cuts */
	}
	ui_dirty(ui, UI_DIRTY_BODY);
}

/* The posterior mean and sd of name in res, or 0. */
static int
post_of(const struct het_runload_result *res, const char *name,
    double *mean, double *sd)
{
	size_t k;

	for (k = 0; k < res->npost; k++)
		if (strcmp(res->post_names[k], name) == 0) {
			*mean = res->post_mean[k];
			*sd = res->post_sd[k];
			return 1;
		}
	return 0;
}

int
ui_results_run_draw(struct ui *ui, const struct results_run *r, WINDOW *w,
    int y, int rows, int cols)
{
	const struct het_runload_result *res = r->res;
	const struct het_results_nlsq *n;
	attr_t lab = ui_color_attr(UI_C_LABEL) | A_BOLD;
	double m, sd;
	size_t k;
	int i, post;
	char u[32];

	if (rows < 1)
		return y;
	if (res == NULL) {
		ui_putf(w, y, 1, cols - 2, ui_color_attr(UI_C_DIM), "loading "
		    "the run in %s/ ...", r->want);
		return y + 1;
	}
	if (res->code != HET_OK) {
		return y + ui_put_wrapped(w, y, 1, cols - 2, rows,
		    ui_color_attr(UI_C_ERROR), res->err.msg);
	}
	n = &res->nlsq;
	post = res->npost > 0;
	ui_putf(w, y++, 1, cols - 2, ui_color_attr(UI_C_VALUE), "run %s/  "
	    "%s  %s  chi2_red %.6g  frames %ld-%ld  %zu angle%s  (x: back)",
	    res->dir, post ? "sample" : "fit", n->converged == 1 ?
	    "converged" : n->converged == 0 ? "not converged" : "",
	    n->chi2_red, n->first_frame, n->last_frame, n->nphi,
	    n->nphi == 1 ? "" : "s");
	if (--rows < 1)
		return y;
	ui_putf(w, y++, 1, cols - 2, lab, "%-22s %14s %12s%s", "parameter",
	    post ? "NLSQ" : "value", "uncertainty", post ?
	    "   posterior mean        sd" : "");
	rows--;
	for (k = 0, i = 0; k < n->p && i < rows; k++, i++) {
		/* no finite uncertainty (degenerate): a dash, no "nan" */
		if (isfinite(n->unc[k]))
			snprintf(u, sizeof(u), "%12.4g", n->unc[k]);
		else
			snprintf(u, sizeof(u), "%11s%s", "", ui->scr.term.utf8 ?
			    "\xe2\x80\x94" : "-");
		if (post && post_of(res, n->names[k], &m, &sd))
			ui_putf(w, y++, 1, cols - 2, A_NORMAL, "%-22.22s "
			    "%14.6g %s %17.6g %10.4g", n->names[k],
			    n->x[k], u, m, sd);
		else
			ui_putf(w, y++, 1, cols - 2, A_NORMAL, "%-22.22s "
			    "%14.6g %s", n->names[k], n->x[k], u);
	}
	return y;
}
