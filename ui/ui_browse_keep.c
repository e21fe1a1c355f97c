/*
 * ui_browse_keep.c: carry the selection over when another file is opened
 * (from the browser, by follow mode, or any other way while a file is
 * open), so a refit between two measurements starts where the last one
 * was.
 *
 * Design: ui_keep_take copies the facts of the selection that mean the
 * same thing in any file (the q of the ring, the angles of the selected
 * bins, the angle under the cursor, the frame window) just before the old
 * metadata is dropped; ui_keep_apply maps them onto the new file: the
 * ring of nearest q, for each angle the bin of nearest phi (circular
 * distance), the window when it fits.  "Every angle" and "every frame"
 * stay "every" whatever the new counts are.  Whatever cannot be kept as
 * it was is written to the Log with what was chosen instead; nothing is
 * changed silently.  The model, its bounds and the configuration are not
 * touched by opening a file, so they are kept by construction.
 * Loop thread only.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define KEEP_Q_RTOL	0.05	/* a ring matches q within 5 % */
#define KEEP_PHI_TOL	1.0	/* degrees */

void
ui_keep_take(struct ui *ui, struct ui_keep *k)
{
	const struct ui_ring *r = ui_model_ring(ui);
	const char *base;
	size_t i;

	memset(k, 0, sizeof(*k));
	if (r == NULL || r->nbins == 0)
		return;
	k->have = 1;
	base = strrchr(ui->ses.meta->path, '/');
	k->from = ui_xstrdup(base != NULL ? base + 1 : ui->ses.meta->path);
	k->ring = ui->ses.sel.ring;
	k->q = r->q;
	k->nring = r->nbins;
	k->phi = ui_xcalloc(r->nbins, sizeof(double));
	for (i = 0; i < r->nbins; i++)
		if (ui->ses.sel.bin_on[r->bins[i]])
			k->phi[k->nphi++] = ui->ses.meta->bins[r->bins[i]].phi;
	k->cursor_phi = ui->ses.meta->bins[ui->ses.sel.cursor].phi;
	k->first = ui->ses.sel.first;
	k->last = ui->ses.sel.last;
	k->all_frames = ui->ses.sel.first == 1 &&
	    ui->ses.sel.last == (long)ui->ses.meta->frames;
}

/* Index in ring r of the bin nearest to phi; its distance in *d. */
static size_t
nearest(const struct ui *ui, const struct ui_ring *r, double phi, double *d)
{
	size_t i, best = 0;
	double x;

	*d = INFINITY;
	for (i = 0; i < r->nbins; i++) {
		x = ui_phi_dist(ui->ses.meta->bins[r->bins[i]].phi, phi);
		if (x < *d) {
			*d = x;
			best = i;
		}
	}
	return best;
}

static size_t
keep_angles(struct ui *ui, const struct ui_keep *k, const struct ui_ring *r)
{
	const struct ui_glyphs *g = ui->scr.term.g;
	unsigned char *pick;
	size_t i, j, nmis = 0;
	double d;

	if (k->nphi == k->nring)
		return 0;	/* every angle: every angle here too */
	pick = ui_xcalloc(r->nbins + 1, 1);
	for (i = 0; i < k->nphi; i++) {
		j = nearest(ui, r, k->phi[i], &d);
		if (d > KEEP_PHI_TOL) {
			ui_log(ui, UI_LOG_WARN, "kept selection: no bin at "
			    "%s %.6g%s in this file; bin #%zu at %.6g%s "
			    "(%.3g%s away) is selected instead", g->phi,
			    k->phi[i], g->deg, r->bins[j] + 1,
			    ui->ses.meta->bins[r->bins[j]].phi, g->deg, d,
			    g->deg);
			nmis++;
		} else if (pick[j]) {
			ui_log(ui, UI_LOG_WARN, "kept selection: %s %.6g%s "
			    "falls on bin #%zu again", g->phi, k->phi[i],
			    g->deg, r->bins[j] + 1);
			nmis++;
		}
		pick[j] = 1;
	}
	for (i = 0; i < r->nbins; i++)
		ui->ses.sel.bin_on[r->bins[i]] = pick[i];
	free(pick);
	return nmis;
}

void
ui_keep_apply(struct ui *ui, struct ui_keep *k)
{
	const struct ui_ring *r;
	const struct ui_glyphs *g = ui->scr.term.g;
	size_t i, best = 0, nmis = 0;
	long frames;
	double d;

	if (!k->have || ui->ses.meta == NULL || ui->ses.nrings == 0)
		goto out;
	for (i = 1; i < ui->ses.nrings; i++)
		if (fabs(ui->ses.rings[i].q - k->q) <
		    fabs(ui->ses.rings[best].q - k->q))
			best = i;
	d = fabs(ui->ses.rings[best].q - k->q) / k->q;
	ui->ses.sel.ring = best;
	r = &ui->ses.rings[best];
	if (d > KEEP_Q_RTOL) {
		ui_log(ui, UI_LOG_WARN, "kept selection: no ring at q %.6g "
		    "(ring %zu of %s) in this file; the nearest, ring %zu at "
		    "q %.6g (%.0f%% away), is selected", k->q, k->ring + 1,
		    k->from, best + 1, r->q, d * 100);
		nmis++;
	}
	nmis += keep_angles(ui, k, r);
	ui->ses.sel.cursor = r->bins[nearest(ui, r, k->cursor_phi, &d)];
	frames = (long)ui->ses.meta->frames;
	if (k->all_frames) {
		ui->ses.sel.first = 1;
		ui->ses.sel.last = frames;
	} else if (k->last <= frames) {
		ui->ses.sel.first = k->first;
		ui->ses.sel.last = k->last;
	} else {
		ui_log(ui, UI_LOG_WARN, "kept selection: the frame window "
		    "%ld,%ld does not fit (this file has %ld frames); every "
		    "frame is used", k->first, k->last, frames);
		nmis++;
	}
	ui_log(ui, UI_LOG_INFO, "kept from %s: ring %zu (q %.6g), %zu of %zu "
	    "angles, frames %ld%s%ld; the model and its bounds are "
	    "unchanged", k->from, ui->ses.sel.ring + 1, r->q,
	    ui_model_ring_selected(ui, ui->ses.sel.ring), r->nbins,
	    ui->ses.sel.first, g->dash, ui->ses.sel.last);
	if (nmis > 0)
		ui_msg(ui, UI_LOG_WARN, "%zu part%s of the selection could not "
		    "be kept as it was (see the Log)", nmis, nmis == 1 ? "" :
		    "s");
	ui_dirty(ui, UI_DIRTY_ALL);
out:
	free(k->from);
	free(k->phi);
	memset(k, 0, sizeof(*k));
}
