/*
 * ui_p_results_csv.c: the Results panel's w: the session's run history
 * as CSV (hetui_fit_history.csv) in the configuration's output_dir,
 * written atomically (a temporary file renamed over the old one): a
 * row per run with its time, file, analysis, status, mode, reduced
 * chi-square, iterations, seconds and folder, then every physics
 * parameter of any run (first seen first) with its uncertainty.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_util.h"
#include "ui.h"
#include "ui_p_results.h"

#define CSV_NAME	"hetui_fit_history.csv"

static void
csv_num(FILE *fp, double v)
{
	if (v == v)
		fprintf(fp, ",%.17g", v);
	else
		fputs(",", fp);
}

/* Where the history goes: the configuration's output_dir, or ".". */
static const char *
csv_dir(struct ui *ui)
{
	if (ui->ses.cfg != NULL && ui->ses.cfg->output_dir != NULL &&
	    ui->ses.cfg->output_dir[0] != '\0')
		return ui->ses.cfg->output_dir;
	return ".";
}

void
ui_results_csv_save(struct ui *ui)
{
	struct het_error err;
	const struct ui_fit_record *r;
	const char **names = NULL;
	char path[4096], tm[64], *tmp;
	size_t nn = 0, i, k, j;
	FILE *fp;
	int bad;

	if (ui->ses.nfit_hist == 0) {
		ui_msg(ui, UI_LOG_INFO, "no run in this session yet: nothing "
		    "to save (the Fit panel, 3, fits with r)");
		return;
	}
	het_error_clear(&err);
	if (het_mkdirs(csv_dir(ui), "output directory", &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "history not saved: %s", err.msg);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", csv_dir(ui), CSV_NAME);
	het_error_clear(&err);
	if ((tmp = het_tmp_path(path, &err)) == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "history not saved: %s", err.msg);
		return;
	}
	/* Columns: every parameter name of any fit, first seen first. */
	names = ui_xcalloc(1, sizeof(*names));
	for (i = 0; i < ui->ses.nfit_hist; i++)
		for (k = 0; k < ui->ses.fit_hist[i].np; k++) {
			for (j = 0; j < nn; j++)
				if (strcmp(names[j],
				    ui->ses.fit_hist[i].names[k]) == 0)
					break;
			if (j < nn)
				continue;
			names = realloc(names, (nn + 1) * sizeof(*names));
			if (names == NULL)
				ui_fatal("out of memory for the history");
			names[nn++] = ui->ses.fit_hist[i].names[k];
		}
	if ((fp = fopen(tmp, "w")) == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "history not saved: cannot create %s: "
		    "%s", tmp, strerror(errno));
		free(tmp);
		free(names);
		return;
	}
	fputs("time,file,analysis,status,mode,chi2_red,iterations,seconds,"
	    "outdir", fp);
	for (j = 0; j < nn; j++) {
		fputc(',', fp);
		het_csv_field(fp, names[j]);
		fputc(',', fp);
		fprintf(fp, "%s_sd", names[j]);
	}
	fputc('\n', fp);
	for (i = 0; i < ui->ses.nfit_hist; i++) {
		r = &ui->ses.fit_hist[i];
		strftime(tm, sizeof(tm), "%Y-%m-%dT%H:%M:%S%z",
		    localtime(&r->when));
		fputs(tm, fp);
		fputc(',', fp);
		het_csv_field(fp, r->file);
		fputc(',', fp);
		het_csv_field(fp, r->analysis);
		fputc(',', fp);
		het_csv_field(fp, r->status);
		fputc(',', fp);
		het_csv_field(fp, r->mode);
		csv_num(fp, r->chi2_red);
		fprintf(fp, ",%ld", r->iterations);
		csv_num(fp, r->seconds);
		fputc(',', fp);
		het_csv_field(fp, r->outdir);
		for (j = 0; j < nn; j++) {
			for (k = 0; k < r->np; k++)
				if (strcmp(r->names[k], names[j]) == 0)
					break;
			csv_num(fp, k < r->np ? r->x[k] : NAN);
			/* a fitted parameter without an uncertainty
			   (degenerate): NaN; not in this run: empty */
			if (k < r->np && isnan(r->unc[k]))
				fputs(",NaN", fp);
			else
				csv_num(fp, k < r->np ? r->unc[k] : NAN);
		}
		fputc('\n', fp);
	}
	bad = ferror(fp);
	if (fclose(fp) != 0 || bad) {
		ui_msg(ui, UI_LOG_ERROR, "history not saved: writing %s failed",
		    tmp);
		remove(tmp);
		free(tmp);
		free(names);
		return;
	}
	if (het_commit_tmp(tmp, path, &err) != HET_OK)
		ui_msg(ui, UI_LOG_ERROR, "history not saved: %s", err.msg);
	else
		ui_msg(ui, UI_LOG_INFO, "run history (%zu run%s) saved to %s",
		    ui->ses.nfit_hist, ui->ses.nfit_hist == 1 ? "" : "s", path);
	free(tmp);
	free(names);
}
