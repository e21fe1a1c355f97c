/*
 * ui_model.c: the dataset snapshot and the selection.
 *
 * Design: when the I/O thread reports an opened file, its metadata
 * snapshot becomes ui->ses.meta (owned by the UI from then on) and the bins
 * are grouped into q rings (bins sharing q_idx, ordered by phi).  The
 * selection starts as "first ring, every angle, every frame"; the Data
 * panel edits it and later panels read it.  Frame windows are validated
 * here with messages that say what is allowed; nothing is clamped
 * silently.  Loop thread only.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_nyquist.h"
#include "ui.h"

static const struct het_io_meta *sort_meta;

static int
cmp_phi(const void *a, const void *b)
{
	double pa = sort_meta->bins[*(const size_t *)a].phi;
	double pb = sort_meta->bins[*(const size_t *)b].phi;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

void
ui_model_clear(struct ui *ui)
{
	size_t i;

	for (i = 0; i < ui->ses.nrings; i++)
		free(ui->ses.rings[i].bins);
	free(ui->ses.rings);
	ui->ses.rings = NULL;
	ui->ses.nrings = 0;
	free(ui->ses.sel.bin_on);
	memset(&ui->ses.sel, 0, sizeof(ui->ses.sel));
	het_io_meta_free(ui->ses.meta);
	ui->ses.meta = NULL;
}

void
ui_model_set_meta(struct ui *ui, struct het_io_meta *m)
{
	size_t i, k, nq = 0, *qslot, r;

	ui_model_clear(ui);
	ui->ses.meta = m;
	/* Rings in q_idx order; q_idx < n_q by the data layer's contract. */
	qslot = ui_xcalloc(m->n_q + 1, sizeof(*qslot));
	for (k = 0; k < m->nbins; k++)
		if (m->bins[k].q_idx < m->n_q && qslot[m->bins[k].q_idx]++ == 0)
			nq++;
	ui->ses.rings = ui_xcalloc(nq + 1, sizeof(*ui->ses.rings));
	for (i = 0, r = 0; i < m->n_q; i++) {
		if (qslot[i] == 0)
			continue;
		ui->ses.rings[r].q_idx = i;
		ui->ses.rings[r].q = m->q_list[i];
		ui->ses.rings[r].bins = ui_xcalloc(qslot[i], sizeof(size_t));
		for (k = 0; k < m->nbins; k++)
			if (m->bins[k].q_idx == i)
				ui->ses.rings[r].bins[
				    ui->ses.rings[r].nbins++] = k;
		sort_meta = m;
		qsort(ui->ses.rings[r].bins, ui->ses.rings[r].nbins,
		    sizeof(size_t),
		    cmp_phi);
		r++;
	}
	ui->ses.nrings = r;
	free(qslot);
	ui->ses.sel.bin_on = ui_xcalloc(m->nbins + 1, 1);
	for (k = 0; k < m->nbins; k++)
		ui->ses.sel.bin_on[k] = 1;
	ui->ses.sel.ring = 0;
	ui->ses.sel.cursor = ui->ses.nrings > 0 ? ui->ses.rings[0].bins[0] : 0;
	ui->ses.sel.first = 1;
	ui->ses.sel.last = (long)m->frames;
	ui_dirty(ui, UI_DIRTY_ALL);
}

const struct ui_ring *
ui_model_ring(const struct ui *ui)
{
	if (ui->ses.meta == NULL || ui->ses.sel.ring >= ui->ses.nrings)
		return NULL;
	return &ui->ses.rings[ui->ses.sel.ring];
}

size_t
ui_model_ring_selected(const struct ui *ui, size_t ring)
{
	size_t i, n = 0;

	if (ui->ses.meta == NULL || ring >= ui->ses.nrings)
		return 0;
	for (i = 0; i < ui->ses.rings[ring].nbins; i++)
		n += ui->ses.sel.bin_on[ui->ses.rings[ring].bins[i]] != 0;
	return n;
}

static int
parse_frame(const char **p, long *out)
{
	char *end;

	while (isspace((unsigned char)**p))
		(*p)++;
	if (!isdigit((unsigned char)**p) && **p != '-' && **p != '+')
		return -1;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (end == *p || errno != 0)
		return -1;
	*p = end;
	while (isspace((unsigned char)**p))
		(*p)++;
	return 0;
}

int
ui_model_set_window(struct ui *ui, const char *text, char *why,
    size_t whylen)
{
	const char *p = text;
	long first, last, frames;

	if (ui->ses.meta == NULL) {
		snprintf(why, whylen, "frame window: no file is open");
		return -1;
	}
	frames = (long)ui->ses.meta->frames;
	while (isspace((unsigned char)*p))
		p++;
	if (strcmp(p, "all") == 0) {
		ui->ses.sel.first = 1;
		ui->ses.sel.last = frames;
		ui_dirty(ui, UI_DIRTY_ALL);
		return 0;
	}
	if (parse_frame(&p, &first) != 0 || *p++ != ',' ||
	    parse_frame(&p, &last) != 0 || *p != '\0') {
		snprintf(why, whylen, "frame window '%s' rejected: write two "
		    "frame numbers as first,last (e.g. 1,%ld) or 'all'", text,
		    frames);
		return -1;
	}
	if (first < 1) {
		snprintf(why, whylen, "frame window %ld,%ld rejected: first "
		    "must be at least 1 (frames are numbered 1..%ld)", first,
		    last, frames);
		return -1;
	}
	if (last > frames) {
		snprintf(why, whylen, "frame window %ld,%ld rejected: last "
		    "must be at most %ld (the file has %ld frames)", first,
		    last, frames, frames);
		return -1;
	}
	if (first >= last) {
		snprintf(why, whylen, "frame window %ld,%ld rejected: first "
		    "must be below last (a window needs at least 2 frames)",
		    first, last);
		return -1;
	}
	ui->ses.sel.first = first;
	ui->ses.sel.last = last;
	ui_dirty(ui, UI_DIRTY_ALL);
	return 0;
}

double
ui_phi_dist(double a, double b)
{
	double d = fmod(fabs(a - b), 360.0);

	return d > 180.0 ? 360.0 - d : d;
}

#define CFG_Q_RTOL	0.05	/* a ring matches q within 5 % */
#define CFG_PHI_TOL	1.0	/* degrees before a nearest bin is reported */

/*
 * ui_model_apply_config: preselect the configuration's q ring, angles and
 * frame window in the open dataset.  Whatever does not match the file is
 * reported in the Log (and the status line) and that part of the
 * selection is left as it was; nothing is adjusted silently.
 */
void
ui_model_apply_config(struct ui *ui, const struct het_config *cfg)
{
	const struct ui_ring *r;
	size_t i, k, best, nmis = 0;
	double d, bd;
	long last;
	char text[64], why[256];
	unsigned char *pick;

	if (ui->ses.meta == NULL || ui->ses.nrings == 0)
		return;
	if (cfg->q_set) {
		best = 0;
		for (i = 1; i < ui->ses.nrings; i++)
			if (fabs(ui->ses.rings[i].q - cfg->wavevector_q) <
			    fabs(ui->ses.rings[best].q - cfg->wavevector_q))
				best = i;
		d = fabs(ui->ses.rings[best].q - cfg->wavevector_q) /
		    cfg->wavevector_q;
		if (d <= CFG_Q_RTOL) {
			ui->ses.sel.ring = best;
			ui->ses.sel.cursor = ui->ses.rings[best].bins[0];
			ui_log(ui, UI_LOG_INFO, "config q %.6g: ring %zu "
			    "(q %.6g) selected", cfg->wavevector_q, best + 1,
			    ui->ses.rings[best].q);
		} else {
			ui_msg(ui, UI_LOG_WARN, "config q %.6g matches no "
			    "ring of %s (nearest: ring %zu, q %.6g, %.0f%% "
			    "away); keeping ring %zu", cfg->wavevector_q,
			    ui->ses.meta->path, best + 1, ui->ses.rings[best].q,
			    d * 100, ui->ses.sel.ring + 1);
			nmis++;
		}
	}
	r = &ui->ses.rings[ui->ses.sel.ring];
	if (cfg->phi_angles != NULL && cfg->nphi_angles > 0) {
		pick = ui_xcalloc(r->nbins + 1, 1);
		for (k = 0; k < cfg->nphi_angles; k++) {
			best = 0;
			bd = INFINITY;
			for (i = 0; i < r->nbins; i++) {
				d = ui_phi_dist(
				    ui->ses.meta->bins[r->bins[i]].phi,
				    cfg->phi_angles[k]);
				if (d < bd) {
					bd = d;
					best = i;
				}
			}
			if (bd > CFG_PHI_TOL) {
				ui_log(ui, UI_LOG_WARN, "config angle %.6g: "
				    "no bin of ring %zu at that angle; the "
				    "nearest, bin #%zu at %.6g, is %.3g "
				    "degrees away and is selected instead",
				    cfg->phi_angles[k], ui->ses.sel.ring + 1,
				    r->bins[best] + 1,
				    ui->ses.meta->bins[r->bins[best]].phi, bd);
				nmis++;
			}
			if (pick[best])
				ui_log(ui, UI_LOG_WARN, "config angle %.6g "
				    "picks bin #%zu again", cfg->phi_angles[k],
				    r->bins[best] + 1);
			pick[best] = 1;
		}
		for (i = 0; i < r->nbins; i++)
			ui->ses.sel.bin_on[r->bins[i]] = pick[i];
		free(pick);
		ui_log(ui, UI_LOG_INFO, "config angles: %zu of %zu bins of "
		    "ring %zu selected", ui_model_ring_selected(ui,
		    ui->ses.sel.ring), r->nbins, ui->ses.sel.ring + 1);
	}
	last = cfg->end_frame < 0 ? (long)ui->ses.meta->frames : cfg->end_frame;
	if (cfg->start_frame == 1 && last == (long)ui->ses.meta->frames) {
		ui->ses.sel.first = 1;	/* every frame */
		ui->ses.sel.last = last;
	} else {
		snprintf(text, sizeof(text), "%ld,%ld", cfg->start_frame, last);
		if (ui_model_set_window(ui, text, why, sizeof(why)) != 0) {
			ui_msg(ui, UI_LOG_WARN, "config %s; keeping frames "
			    "%ld,%ld", why, ui->ses.sel.first,
			    ui->ses.sel.last);
			nmis++;
		} else
			ui_log(ui, UI_LOG_INFO, "config frame window %ld,%ld",
			    ui->ses.sel.first, ui->ses.sel.last);
	}
	if (nmis > 0)
		ui_msg(ui, UI_LOG_WARN, "the configuration's selection does "
		    "not fully match %s: %zu mismatch%s in the Log",
		    ui->ses.meta->path, nmis, nmis == 1 ? "" : "es");
	ui_dirty(ui, UI_DIRTY_ALL);
}

/*
 * ui_model_nyquist: the flow-fringe aliasing check (het_nyquist.h) of
 * the configured parameters over the current selection: the ring's q,
 * the selected angles, the frame window, dt from the config or the file.
 * Returns 1 with *out filled, 0 when there is nothing to check (no file,
 * no angle selected, unknown dt, fewer than two frames).
 */
int
ui_model_nyquist(const struct ui *ui, struct het_nyquist *out)
{
	const struct ui_ring *r = ui_model_ring(ui);
	const struct het_config *cfg = ui->ses.cfg;
	struct het_model_spec sp = { 0 };
	struct het_error err = { 0 };
	double theta[HET_MAX_PHYS], *phi;
	size_t i, k;
	int rc;

	if (r == NULL || cfg == NULL || ui->ses.sel.last <= ui->ses.sel.first)
		return 0;
	sp.dt = cfg->dt_set ? cfg->dt : ui->ses.meta->dt;
	if (!(sp.dt > 0.0) || (phi = calloc(r->nbins, sizeof(*phi))) == NULL)
		return 0;
	for (i = 0; i < r->nbins; i++)
		if (ui->ses.sel.bin_on[r->bins[i]])
			phi[sp.n_angles++] = ui->ses.meta->bins[r->bins[i]].phi;
	for (k = 0; k < cfg->nphys; k++)
		theta[k] = cfg->phys[k].value;
	sp.mode = cfg->mode;
	sp.q = r->q;
	sp.start_frame = ui->ses.sel.first;
	sp.n_frames = (size_t)(ui->ses.sel.last - ui->ses.sel.first + 1);
	sp.phi = phi;
	sp.gap = cfg->stator_rotor_gap;
	rc = sp.n_angles > 0 && het_nyquist_check(&sp, theta, out, &err) ==
	    HET_OK;
	free(phi);
	return rc;
}
