/*
 * het_io_model.c: the fitted model of a run folder, for the Data panel's
 * cuts (het_io.h: a view's model_al).  I/O thread only.
 *
 * Design: the model drawn over the data is what the fit wrote, the
 * fitted c2 of each angle in its hetui_results.h5 (the model of the
 * fitted parameters with that angle's contrast and offset; the same
 * matrix hetui report draws), so a fit of the Fit panel and a run folder
 * loaded in the Results panel are one case and nothing is evaluated
 * again.  A run belongs to the open file when its /data file names the
 * same file (by its real path) and the bin's angle is the angle the run
 * recorded for it; the bin is found by the run's /data/bin_index (by
 * angle for a file that lacks it).  The run's frames are mapped onto the
 * view's window by frame number; frames outside them are NAN, which the
 * age-lag means carry into every block they touch, so a partial block
 * is never shown as if complete.  The run's selection and the last
 * angle's matrix are cached: a cursor, zoom or resize costs no read.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_io_impl.h"
#include "het_results.h"

void
het_io_model_clear(struct het_io_mcache *mc)
{
	free(mc->dir);
	het_results_run_clear(&mc->sel);
	free(mc->m);
	memset(mc, 0, sizeof(*mc));
	mc->angle = -1;
}

/* The run folder dir's selection, from the cache or read now. */
static int
mc_sel(struct het_io_mcache *mc, const char *dir)
{
	struct het_error err;

	if (mc->dir != NULL && strcmp(mc->dir, dir) == 0)
		return mc->code;
	het_io_model_clear(mc);
	het_error_clear(&err);
	if ((mc->dir = strdup(dir)) == NULL)
		mc->code = het_error_set(&err, HET_ENOMEM, "out of memory");
	else
		mc->code = het_results_run_load_sel(dir, &mc->sel, &err);
	snprintf(mc->why, sizeof(mc->why), "%s", err.msg);
	return mc->code;
}

/* Do two paths name one file (by real path; else as spelled)? */
static int
same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (realpath(a, ra) != NULL && realpath(b, rb) != NULL)
		return strcmp(ra, rb) == 0;
	return strcmp(a, b) == 0;
}

/* The run's angle of file bin `bin` at phi degrees, or -1. */
static long
mc_angle(const struct het_results_run *r, size_t bin, double phi)
{
	size_t a;

	for (a = 0; a < r->nangles; a++)
		if (r->bins != NULL ? r->bins[a] == bin :
		    fabs(r->phi[a] - phi) < 1e-6)
			return fabs(r->phi[a] - phi) < 1e-6 ? (long)a : -1;
	return -1;
}

/* Angle a's fitted c2 into the cache; HET_OK or the error in note. */
static int
mc_matrix(struct het_io_mcache *mc, long a, char *note, size_t len)
{
	const struct het_results_run *r = &mc->sel;
	struct het_error err;
	char grp[32];
	size_t n = 0;
	int rc;

	if (mc->m != NULL && mc->angle == a)
		return HET_OK;
	free(mc->m);
	mc->m = NULL;
	mc->angle = -1;
	if (r->per_angle)
		snprintf(grp, sizeof(grp), "fit_angle_%03ld", a);
	else
		snprintf(grp, sizeof(grp), "fit");
	het_error_clear(&err);
	rc = het_results_load_matrix(r->file, grp, "c2_fitted", (size_t)a,
	    &mc->m, &n, &err);
	if (rc == HET_OK && n != r->n_frames)
		rc = het_error_set(&err, HET_EFORMAT, "%s: the fitted c2 of "
		    "angle %ld has %zu frames, the run says %zu", r->file, a,
		    n, r->n_frames);
	if (rc == HET_OK) {
		mc->angle = a;
		return HET_OK;
	}
	free(mc->m);
	mc->m = NULL;
	if (rc == HET_ENOTFOUND && r->per_angle)
		snprintf(note, len, "the per-angle fit of %s has no result "
		    "for this angle (its fit did not run)", mc->dir);
	else
		snprintf(note, len, "the fitted model cannot be read: %s",
		    err.msg);
	return rc;
}

enum het_io_model
het_io_model_fill(struct het_io_mcache *mc, const char *dir,
    const char *data_path, size_t bin, double phi, long first, long last,
    double *out, char *note, size_t len)
{
	const struct het_results_run *r = &mc->sel;
	size_t n = (size_t)(last - first + 1), i, j;
	long a, fi, fj, f0, f1;

	note[0] = '\0';
	if (mc_sel(mc, dir) != HET_OK) {
		snprintf(note, len, "the fit's folder cannot be read: %s",
		    mc->why);
		return HET_IO_MODEL_UNREADABLE;
	}
	if (r->data_file == NULL || !same_file(r->data_file, data_path)) {
		snprintf(note, len, "the fit in %s is of %s, not of this "
		    "file", dir, r->data_file != NULL ? r->data_file :
		    "a file it does not name");
		return HET_IO_MODEL_OTHER_FILE;
	}
	if ((a = mc_angle(r, bin, phi)) < 0) {
		snprintf(note, len, "the fit in %s did not include this "
		    "angle (phi %.2f deg): select it and fit again", dir,
		    phi);
		return HET_IO_MODEL_NO_ANGLE;
	}
	f0 = r->first_frame;
	f1 = r->first_frame + (long)r->n_frames - 1;
	if (f1 < first || f0 > last) {
		snprintf(note, len, "the fit used frames %ld-%ld, none of "
		    "the frames %ld-%ld shown", f0, f1, first, last);
		return HET_IO_MODEL_OUTSIDE;
	}
	if (mc_matrix(mc, a, note, len) != HET_OK)
		return HET_IO_MODEL_UNREADABLE;
	for (i = 0; i < n; i++) {
		fi = first + (long)i - f0;
		for (j = 0; j < n; j++) {
			fj = first + (long)j - f0;
			out[i * n + j] = fi < 0 || fj < 0 ||
			    fi >= (long)r->n_frames ||
			    fj >= (long)r->n_frames ? NAN :
			    mc->m[(size_t)fi * r->n_frames + (size_t)fj];
		}
	}
	return HET_IO_MODEL_SHOWN;
}
