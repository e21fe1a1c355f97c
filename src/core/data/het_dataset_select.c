/*
 * het_dataset_select.c: choosing bins and frames from an open dataset,
 * and resolving dt.
 *
 * Rules (the contract is in het_dataset.h): a q target picks the nearest
 * ring, as homodyne does; phi targets pick, in each chosen ring, the bin
 * at the smallest circular distance, so 359 deg finds the 0 deg sector
 * (heterodyne's argmin |phi - target| does not wrap and, with several
 * rings, always lands in the lowest one).  Optional tolerances turn "the
 * nearest, however far" into "the nearest within", and an empty result is
 * an error that lists what the file offers.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_util.h"

/* Longest list of available values quoted in a message. */
#define HET_SEL_LIST_MAX 600

void
het_selection_init(struct het_selection *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->q = NAN;
	sel->dt = NAN;
}

void
het_pick_fini(struct het_pick *pick)
{
	if (pick == NULL)
		return;
	free(pick->bins);
	memset(pick, 0, sizeof(*pick));
}

static double
het_sel_phi_dist(double a, double b)
{
	double d = fmod(fabs(a - b), 360.0);

	return d > 180.0 ? 360.0 - d : d;
}

/* Append ", text" (or "text") to buf, or "..." once it is too long. */
static void
het_sel_append(char *buf, size_t len, int *first, const char *text)
{
	size_t used = strlen(buf);

	if (used >= HET_SEL_LIST_MAX) {
		if (used < 3 || strcmp(buf + used - 3, "...") != 0)
			snprintf(buf + used, len - used, ", ...");
		return;
	}
	snprintf(buf + used, len - used, "%s%s", *first ? "" : ", ", text);
	*first = 0;
}

/* "0.0054 (4 bins), 0.0108 (4 bins)": the rings that hold bins. */
static void
het_sel_list_rings(const struct het_dataset *ds, char *buf, size_t len)
{
	const struct het_dataset_info *in = &ds->info;
	char item[64];
	size_t r, k, count;
	int first = 1;

	buf[0] = '\0';
	for (r = 0; r < in->n_q; r++) {
		count = 0;
		for (k = 0; k < in->nbins; k++)
			if (ds->bins[k].q_idx == r)
				count++;
		if (count == 0)
			continue;
		snprintf(item, sizeof(item), "%.6g (%zu bin%s)", in->q_list[r],
		    count, count == 1 ? "" : "s");
		het_sel_append(buf, len, &first, item);
	}
}

/* "0, 90, 180": the phi of the bins of ring r. */
static void
het_sel_list_phi(const struct het_dataset *ds, size_t r, char *buf,
    size_t len)
{
	char item[64];
	size_t k;
	int first = 1;

	buf[0] = '\0';
	for (k = 0; k < ds->info.nbins; k++) {
		if (ds->bins[k].q_idx != r)
			continue;
		snprintf(item, sizeof(item), "%.6g", ds->bins[k].phi);
		het_sel_append(buf, len, &first, item);
	}
}

static int
het_sel_window(const struct het_dataset *ds, const struct het_selection *sel,
    struct het_pick *pick, struct het_error *err)
{
	long frames = (long)ds->info.frames, first, last;

	first = sel->first_frame == 0 ? 1 : sel->first_frame;
	last = sel->last_frame == 0 || sel->last_frame == -1 ? frames :
	    sel->last_frame;
	if (first < 1 || last < 1 || first > frames || last > frames)
		return het_error_set(err, HET_ERANGE,
		    "frame window %ld..%ld is out of range: the matrices have "
		    "%ld frames, numbered 1 to %ld (start_frame and end_frame "
		    "are 1-based and inclusive)", first, last, frames, frames);
	if (first > last)
		return het_error_set(err, HET_ERANGE,
		    "frame window %ld..%ld is reversed: the first frame must "
		    "not come after the last", first, last);
	if (last - first + 1 < 2)
		return het_error_set(err, HET_ERANGE,
		    "frame window %ld..%ld holds one frame; a two-time matrix "
		    "needs at least 2", first, last);
	pick->first_frame = first;
	pick->last_frame = last;
	pick->frames = (size_t)(last - first + 1);
	return HET_OK;
}

static int
het_sel_check(const struct het_selection *sel, struct het_error *err)
{
	size_t i;

	if (isinf(sel->q) || (isfinite(sel->q) && sel->q <= 0))
		return het_error_set(err, HET_EINVAL,
		    "the q target %g is not a positive number of 1/Angstrom",
		    sel->q);
	if (!isfinite(sel->q_rtol) || sel->q_rtol < 0 ||
	    !isfinite(sel->phi_tol) || sel->phi_tol < 0)
		return het_error_set(err, HET_EINVAL,
		    "the q and phi tolerances must be finite and >= 0 (got "
		    "%g and %g)", sel->q_rtol, sel->phi_tol);
	if (sel->nphi > 0 && sel->phi == NULL)
		return het_error_set(err, HET_EINVAL,
		    "%zu phi targets announced but none given", sel->nphi);
	for (i = 0; i < sel->nphi; i++)
		if (!isfinite(sel->phi[i]))
			return het_error_set(err, HET_EINVAL,
			    "phi target %zu is %g; angles must be finite "
			    "degrees", i + 1, sel->phi[i]);
	return HET_OK;
}

/* The ring nearest to q (ties: the smaller q), among rings with bins. */
static size_t
het_sel_nearest_ring(const struct het_dataset *ds, double q)
{
	const struct het_bin *b, *best = &ds->bins[0];
	size_t k;
	double d, dbest = fabs(best->q - q);

	for (k = 1; k < ds->info.nbins; k++) {
		b = &ds->bins[k];
		d = fabs(b->q - q);
		if (d < dbest || (d == dbest && b->q < best->q)) {
			best = b;
			dbest = d;
		}
	}
	return best->q_idx;
}

/* Mark the bins of ring r nearest to each phi target. */
static void
het_sel_ring_phi(const struct het_dataset *ds, const struct het_selection *sel,
    size_t r, unsigned char *mark, unsigned char *hit)
{
	size_t t, k, best;
	double d, dbest;

	for (t = 0; t < sel->nphi; t++) {
		best = ds->info.nbins;
		dbest = INFINITY;
		for (k = 0; k < ds->info.nbins; k++) {
			if (ds->bins[k].q_idx != r)
				continue;
			d = het_sel_phi_dist(ds->bins[k].phi, sel->phi[t]);
			if (d < dbest) {
				dbest = d;
				best = k;
			}
		}
		if (best == ds->info.nbins ||
		    (sel->phi_tol > 0 && dbest > sel->phi_tol))
			continue;
		mark[best] = 1;
		hit[t] = 1;
	}
}

int
het_dataset_select(const struct het_dataset *ds,
    const struct het_selection *sel, struct het_pick *pick,
    struct het_error *err)
{
	const struct het_dataset_info *in = &ds->info;
	unsigned char *mark = NULL, *ring = NULL, *hit = NULL;
	char list[HET_SEL_LIST_MAX + 64];
	size_t k, r, t, n = 0, qr = 0;
	int rc;

	memset(pick, 0, sizeof(*pick));
	if ((rc = het_sel_check(sel, err)) != HET_OK ||
	    (rc = het_sel_window(ds, sel, pick, err)) != HET_OK)
		return rc;
	mark = het_alloc_array(in->nbins, 1, "selection", err);
	ring = het_alloc_array(in->n_q, 1, "selection", err);
	hit = het_alloc_array(sel->nphi, 1, "selection", err);
	if (mark == NULL || ring == NULL || hit == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if (isnan(sel->q))
		for (k = 0; k < in->nbins; k++)
			ring[ds->bins[k].q_idx] = 1;
	else {
		qr = het_sel_nearest_ring(ds, sel->q);
		if (sel->q_rtol > 0 &&
		    fabs(in->q_list[qr] - sel->q) > sel->q_rtol * sel->q) {
			het_sel_list_rings(ds, list, sizeof(list));
			rc = het_error_set(err, HET_ENOTFOUND,
			    "no q ring within %g%% of q = %g 1/A (the nearest "
			    "is %.6g); available q rings: %s",
			    sel->q_rtol * 100, sel->q, in->q_list[qr], list);
			goto out;
		}
		ring[qr] = 1;
	}
	for (r = 0; r < in->n_q; r++) {
		if (!ring[r])
			continue;
		if (sel->nphi == 0) {
			for (k = 0; k < in->nbins; k++)
				if (ds->bins[k].q_idx == r)
					mark[k] = 1;
		} else
			het_sel_ring_phi(ds, sel, r, mark, hit);
	}
	for (t = 0; t < sel->nphi; t++) {
		if (hit[t])
			continue;
		if (isnan(sel->q)) {
			het_sel_list_rings(ds, list, sizeof(list));
			rc = het_error_set(err, HET_ENOTFOUND,
			    "no bin has phi within %g deg of %g in any q ring; "
			    "the rings are %s", sel->phi_tol, sel->phi[t],
			    list);
		} else {
			het_sel_list_phi(ds, qr, list, sizeof(list));
			rc = het_error_set(err, HET_ENOTFOUND,
			    "no bin of the q = %.6g ring has phi within %g deg "
			    "of %g; available phi (deg): %s", in->q_list[qr],
			    sel->phi_tol, sel->phi[t], list);
		}
		goto out;
	}
	for (k = 0; k < in->nbins; k++)
		n += mark[k];
	pick->bins = het_alloc_array(n, sizeof(*pick->bins), "selection",
	    err);
	if (pick->bins == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (k = 0, n = 0; k < in->nbins; k++)
		if (mark[k])
			pick->bins[n++] = k;
	pick->nbins = n;
	rc = HET_OK;
out:
	if (rc != HET_OK)
		het_pick_fini(pick);
	free(mark);
	free(ring);
	free(hit);
	return rc;
}

int
het_dataset_dt(const struct het_dataset *ds, const struct het_selection *sel,
    double *dt, const char **source, struct het_error *err)
{
	if (sel != NULL && (isinf(sel->dt) || sel->dt < 0))
		return het_error_set(err, HET_EINVAL,
		    "%s = %g is not a positive number of seconds",
		    sel->dt_source != NULL ? sel->dt_source : "dt", sel->dt);
	if (sel != NULL && sel->dt > 0 && (sel->dt < HET_DT_MIN ||
	    sel->dt > HET_DT_MAX))
		return het_error_set(err, HET_EINVAL,
		    "%s = %g s is outside the plausible %g to %g s of a frame "
		    "time; give the time between two frames in seconds",
		    sel->dt_source != NULL ? sel->dt_source : "dt", sel->dt,
		    HET_DT_MIN, HET_DT_MAX);
	if (sel != NULL && isfinite(sel->dt) && sel->dt > 0) {
		*dt = sel->dt;
		*source = sel->dt_source != NULL ? sel->dt_source : "override";
		return HET_OK;
	}
	if (isfinite(ds->info.dt) && ds->info.dt > 0) {
		*dt = ds->info.dt;
		*source = ds->info.dt_source;
		return HET_OK;
	}
	if (ds->info.layout == HET_LAYOUT_NPY)
		return het_error_set(err, HET_ENOTFOUND, "%s: dt is unknown: "
		    "a .npy file has none and %s; set it in the config "
		    "(analyzer_parameters.dt, seconds), with --dt, or as dt: "
		    "in the sidecar", ds->info.path, ds->sidecar != NULL ?
		    "its sidecar gives none" : "no sidecar gives it");
	return het_error_set(err, HET_ENOTFOUND,
	    "%s: dt is unknown: the file has no usable %s (%s); set it in the "
	    "config (analyzer_parameters.dt, seconds) or with --dt",
	    ds->info.path, ds->info.layout == HET_LAYOUT_APSU ?
	    HET_APSU_FRAME_TIME : HET_LEG_EXPOSURE, ds->info.dt_source);
}
