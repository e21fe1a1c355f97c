/*
 * ui_config.c: the session's configuration: loading it (-c at start-up,
 * O in the Model panel), saving it, and telling the rest of the UI.
 *
 * Design: configuration files are a few kilobytes, so they are read and
 * written on the loop thread (het_config_load, het_config_write_yaml,
 * which writes atomically).  ui->ses.cfg is never NULL once the loop runs: a
 * file that cannot be read leaves the defaults of two_component (at
 * start-up) or the current configuration (later) in place, and says why
 * in the status line and the Log.  Every warning of the reader goes to the
 * Log as "config FILE:LINE: ...".  ui->ses.cfg_saved is a copy of what is on
 * disk, so the dirty flag is an honest comparison (het_config_equal), and
 * undoing back to the saved state clears it.  When a dataset is open, a
 * loaded configuration's q, angles and frame window are applied to the
 * Data panel's selection (ui_model_apply_config).  Loop thread only.
 */
#include "config.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

static void
ui_config_changed(struct ui *ui)
{
	ui->ses.cfg_dirty = ui->ses.cfg_saved == NULL ||
	    !het_config_equal(ui->ses.cfg, ui->ses.cfg_saved, NULL, 0);
	ui_dirty(ui, UI_DIRTY_HEAD | UI_DIRTY_BODY);
}

static void
ui_config_snapshot(struct ui *ui)
{
	struct het_error err;

	het_config_free(ui->ses.cfg_saved);
	het_error_clear(&err);
	if ((ui->ses.cfg_saved = het_config_dup(ui->ses.cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	ui_config_changed(ui);
}

/* Install a freshly loaded (or default) configuration. */
static void
ui_config_install(struct ui *ui, struct het_config *cfg, const char *path)
{
	het_config_free(ui->ses.cfg);
	ui->ses.cfg = cfg;
	free(ui->ses.cfg_path);
	ui->ses.cfg_path = path != NULL ? ui_xstrdup(path) : NULL;
	ui->ses.cfg_serial++;
	ui_config_snapshot(ui);
}

static void
ui_config_open_data(struct ui *ui)
{
	struct het_error err;
	char *p;

	if (ui->ses.cfg->data_file == NULL)
		return;
	het_error_clear(&err);
	if ((p = het_config_resolve_path(ui->ses.cfg, ui->ses.cfg->data_file,
	    &err)) == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
		return;
	}
	ui_log(ui, UI_LOG_INFO, "the configuration names the data file %s",
	    p);
	ui_open_file(ui, p);
	free(p);
}

int
ui_config_load(struct ui *ui, const char *path, int open_data)
{
	struct het_config *cfg;
	struct het_error err;
	size_t i;

	het_error_clear(&err);
	if ((cfg = het_config_load(path, &err)) == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "config not loaded: %s", err.msg);
		return -1;
	}
	for (i = 0; i < cfg->nwarnings; i++) {
		if (cfg->warnings[i].line > 0)
			ui_log(ui, UI_LOG_WARN, "config %s:%d: %s", path,
			    cfg->warnings[i].line, cfg->warnings[i].msg);
		else
			ui_log(ui, UI_LOG_WARN, "config %s: %s", path,
			    cfg->warnings[i].msg);
	}
	ui_config_install(ui, cfg, path);
	if (cfg->nwarnings > 0)
		ui_msg(ui, UI_LOG_WARN, "config %s loaded: %s, %zu "
		    "parameters, %zu warning%s (see the Log panel)", path,
		    het_mode_name(cfg->mode), cfg->nphys, cfg->nwarnings,
		    cfg->nwarnings == 1 ? "" : "s");
	else
		ui_msg(ui, UI_LOG_INFO, "config %s loaded: %s, %zu "
		    "parameters", path, het_mode_name(cfg->mode), cfg->nphys);
	if (cfg->mode_note != NULL)
		ui_log(ui, UI_LOG_INFO, "config: %s", cfg->mode_note);
	if (ui->ses.meta != NULL) {
		ui_model_apply_config(ui, cfg);
		ui_data_refresh(ui);
	} else if (open_data && !ui->ses.opening)
		ui_config_open_data(ui);
	return 0;
}

void
ui_config_start(struct ui *ui)
{
	struct het_config *cfg;
	struct het_error err;
	const char *path = ui->opts.config_path;

	if (path != NULL && ui_config_load(ui, path,
	    ui->opts.data_path == NULL) == 0)
		return;
	het_error_clear(&err);
	if ((cfg = het_config_default(HET_MODE_TWO_COMPONENT, &err)) == NULL)
		ui_fatal("%s", err.msg);
	ui_config_install(ui, cfg, NULL);
	if (path != NULL)
		ui_log(ui, UI_LOG_WARN, "using the defaults of two_component "
		    "instead of %s", path);
}

/*
 * 1 when the file at path holds a YAML comment ('#' first on a line, or
 * after a blank): the writer makes the file anew and cannot keep it.
 */
static int
ui_config_has_comments(const char *path)
{
	char	 line[1024], *h;
	FILE	*fp = fopen(path, "r");
	int	 found = 0;

	if (fp == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, fp) != NULL)
		for (h = line; !found && (h = strchr(h, '#')) != NULL; h++)
			found = h == line || h[-1] == ' ' || h[-1] == '\t';
	fclose(fp);
	return found;
}

int
ui_config_save(struct ui *ui, const char *path)
{
	struct het_error err;
	int		 comments = ui_config_has_comments(path);

	het_error_clear(&err);
	if (het_config_write_yaml(ui->ses.cfg, path, &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "config not saved: %s", err.msg);
		return -1;
	}
	if (ui->ses.cfg_path == NULL || strcmp(ui->ses.cfg_path, path) != 0) {
		free(ui->ses.cfg_path);
		ui->ses.cfg_path = ui_xstrdup(path);
	}
	ui_config_snapshot(ui);
	ui_msg(ui, UI_LOG_INFO, "config saved to %s (%s)%s", path,
	    het_mode_name(ui->ses.cfg->mode), comments ? "; its comments were "
	    "not kept (hetui writes the whole file anew)" : "");
	return 0;
}

struct het_config *
ui_config_replace(struct ui *ui, struct het_config *cfg)
{
	struct het_config *old = ui->ses.cfg;

	ui->ses.cfg = cfg;
	ui_config_changed(ui);
	return old;
}

void
ui_config_free(struct ui *ui)
{
	het_config_free(ui->ses.cfg);
	het_config_free(ui->ses.cfg_saved);
	free(ui->ses.cfg_path);
	ui->ses.cfg = ui->ses.cfg_saved = NULL;
	ui->ses.cfg_path = NULL;
}

/* ---- the configuration of a run on the selection ------------------------ */

/*
 * The per-angle start values of the configuration, for the selected
 * angles: mapped by nearest phi through the configuration's own angle
 * list when it has one of the same length, else kept when there are as
 * many as selected angles, else dropped (the quantile estimates are
 * used) with a note in the Log.
 */
static void
ui_config_map_init(struct ui *ui, const char *run, double **vals,
    size_t *n, const double *oldphi, size_t noldphi, const double *phi,
    size_t nsel, const char *what)
{
	double *v;
	size_t a, i, best;

	if (*n <= 1)
		return;
	if (oldphi != NULL && noldphi == *n) {
		v = ui_xcalloc(nsel, sizeof(double));
		for (a = 0; a < nsel; a++) {
			for (best = 0, i = 1; i < noldphi; i++)
				if (ui_phi_dist(oldphi[i], phi[a]) <
				    ui_phi_dist(oldphi[best], phi[a]))
					best = i;
			v[a] = (*vals)[best];
		}
		free(*vals);
		*vals = v;
		*n = nsel;
		return;
	}
	if (*n == nsel)
		return;
	ui_log(ui, UI_LOG_WARN, "%s: the configuration gives %zu per-angle "
	    "%s start values for %zu selected angles; the quantile estimates "
	    "are used instead", run, *n, what, nsel);
	free(*vals);
	*vals = NULL;
	*n = 0;
}

struct het_config *
ui_config_for_selection(struct ui *ui, const char *run)
{
	const struct ui_ring *r = ui_model_ring(ui);
	struct het_config *cfg;
	struct het_error err;
	double *phi, *oldphi;
	size_t i, n = 0, nold;

	if (ui->ses.meta == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "no file is open: start hetui with a "
		    "result file (hetui FILE) to %s it", strcmp(run,
		    "sampling") == 0 ? "sample" : "fit");
		return NULL;
	}
	if (r == NULL || ui_model_ring_selected(ui, ui->ses.sel.ring) == 0) {
		ui_msg(ui, UI_LOG_ERROR, "no angle of ring %zu is selected: "
		    "select angles in the Data panel (1; Space, a)",
		    ui->ses.sel.ring + 1);
		return NULL;
	}
	het_error_clear(&err);
	if ((cfg = het_config_dup(ui->ses.cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	phi = ui_xcalloc(r->nbins, sizeof(double));
	for (i = 0; i < r->nbins; i++)
		if (ui->ses.sel.bin_on[r->bins[i]])
			phi[n++] = ui->ses.meta->bins[r->bins[i]].phi;
	oldphi = cfg->phi_angles;
	nold = cfg->nphi_angles;
	ui_config_map_init(ui, run, &cfg->scaling.init_contrast,
	    &cfg->scaling.ninit_contrast, oldphi, nold, phi, n, "contrast");
	ui_config_map_init(ui, run, &cfg->scaling.init_offset,
	    &cfg->scaling.ninit_offset, oldphi, nold, phi, n, "offset");
	free(oldphi);
	cfg->phi_angles = phi;
	cfg->nphi_angles = n;
	cfg->phi_filter = 0;
	cfg->q_set = 1;
	cfg->wavevector_q = r->q;
	cfg->start_frame = ui->ses.sel.first;
	cfg->end_frame = ui->ses.sel.last;
	if (het_config_validate(cfg, &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "%s not started: %s", run, err.msg);
		het_config_free(cfg);
		return NULL;
	}
	return cfg;
}
