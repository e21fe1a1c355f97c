/*
 * t_engine_io_model.c: the fitted model the I/O thread carries in a view
 * for the Data panel's cuts (het_io.h: model, model_al, model_note).
 *
 * The float64 static_ref file of engine_fixture.h (angles 10 and 80) in
 * 40 frames is written,
 * fitted twice through the fit job (run A: both angles, frames 6-35;
 * run B: angle 10 only, every frame), then viewed through het_io:
 *   - the frames of run A: the model's age-lag means equal those of the
 *     fitted c2 read back independently, and lie within the noise of
 *     the data's;
 *   - every frame: blocks with a frame outside 6-35 are NAN, the rest
 *     equal the means of the fitted c2 placed at its frames;
 *   - frames the fit did not use, an angle run B did not fit, a folder
 *     that is no run, and a copy of the file at another path: no model,
 *     each with its sentence;
 *   - no model asked: none carried;
 *   - runs damaged after their fit (a bin index of -1, no data file
 *     named, frames that disagree with the matrix, a per-angle fit
 *     without one angle's group): no model, each with its sentence,
 *     and the per-angle run's remaining angle drawn.
 */
#include "config.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_fixture.h"
#include "het_fitjob.h"
#include "het_h5.h"
#include "het_io.h"
#include "het_results.h"
#include "tap.h"

#include <hdf5.h>

#define NF	40

/* Fit data (angles, frames; jointly or per angle) into out; 0: written. */
static int
fit(const char *data, const char *angles, long first, long last,
    const char *out, int per_angle)
{
	struct het_fitjob_result *res;
	char text[2048];
	int rc;

	snprintf(text, sizeof(text),
	    "analysis_mode: static_ref\n"
	    "experimental_data:\n  file_path: %s\n"
	    "analyzer_parameters:\n  start_frame: %ld\n  end_frame: %ld\n"
	    "  scattering:\n    wavevector_q: 0.01\n"
	    "    phi_angles: [%s]\n"
	    "parameters:\n  reference:\n"
	    "    D0_ref: {value: 3000.0, min: 100.0, max: 100000.0}\n"
	    "    alpha_ref: {value: 0.0, min: -1.0, max: 1.0}\n"
	    "    D_offset_ref: {value: 0.0, vary: false}\n"
	    "optimization:\n  nlsq:\n    loss: linear\n"
	    "    per_angle_mode: individual\n", data, first, last, angles);
	res = fx_fit_text(text, out, per_angle);
	if (res != NULL && !res->written)
		diag("fit into %s: %s", out, res->write_err.msg);
	rc = res != NULL && res->written ? 0 : -1;
	het_fitjob_result_free(res);
	return rc;
}

/* The next event of type want (others freed), its payload taken. */
static void *
wait_for(struct het_evq *q, int want)
{
	struct het_event ev;
	void *d;

	while (fx_next_event(q, &ev, 20000)) {
		if (ev.type == want) {
			d = ev.data;
			return d;
		}
		if (ev.type == HET_IO_EV_ERROR)
			diag("I/O error: %s",
			    ((struct het_io_failure *)ev.data)->err.msg);
		if (ev.data != NULL && ev.free_cb != NULL)
			ev.free_cb(ev.data);
	}
	return NULL;
}

static struct het_io_view *
view(struct het_io *io, struct het_evq *q, size_t bin, long first,
    long last, const char *model)
{
	struct het_io_view_req rq;
	struct het_error err;

	memset(&rq, 0, sizeof(rq));
	rq.bin = bin;
	rq.first = first;
	rq.last = last;
	rq.rows = rq.cols = 16;
	rq.model_dir = model;
	het_error_clear(&err);
	if (het_io_view(io, &rq, NULL, &err) != HET_OK) {
		diag("view: %s", err.msg);
		return NULL;
	}
	return wait_for(q, HET_IO_EV_VIEW);
}

/*
 * The age-lag means the view should carry: run's fitted c2 of angle a
 * placed at its frames f0 .. f0 + m - 1 inside the window first .. last,
 * NAN elsewhere.  Returns the number of blocks that differ.
 */
static size_t
compare(const struct het_io_view *v, const char *run, size_t a, long f0)
{
	double *m = NULL, *w, *al;
	char file[512];
	size_t n = v->n, nm = 0, i, j, bad = 0;
	long fi, fj;
	struct het_error err;

	snprintf(file, sizeof(file), "%s/%s", run, HET_RESULTS_H5);
	het_error_clear(&err);
	if (het_results_load_matrix(file, "fit", "c2_fitted", a, &m, &nm,
	    &err) != HET_OK) {
		diag("load: %s", err.msg);
		return (size_t)-1;
	}
	w = calloc(n * n, sizeof(double));
	al = calloc(v->nage * n, sizeof(double));
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			fi = v->first + (long)i - f0;
			fj = v->first + (long)j - f0;
			w[i * n + j] = fi < 0 || fj < 0 || fi >= (long)nm ||
			    fj >= (long)nm ? NAN : m[fi * (long)nm + fj];
		}
	het_io_age_lag(w, n, v->nage, al);
	for (i = 0; i < v->nage * n; i++)
		if (isnan(al[i]) != isnan(v->model_al[i]) ||
		    (!isnan(al[i]) && al[i] != v->model_al[i]))
			bad++;
	free(m);
	free(w);
	free(al);
	return bad;
}

/* Mean |model - data| over the finite blocks at lags 1 .. n-1. */
static double
misfit(const struct het_io_view *v, size_t *cnt)
{
	double s = 0;
	size_t a, k;

	*cnt = 0;
	for (a = 0; a < v->nage; a++)
		for (k = 1; k < v->n; k++)
			if (isfinite(v->model_al[a * v->n + k]) &&
			    isfinite(v->age_lag[a * v->n + k])) {
				s += fabs(v->model_al[a * v->n + k] -
				    v->age_lag[a * v->n + k]);
				(*cnt)++;
			}
	return *cnt > 0 ? s / (double)*cnt : NAN;
}

static void
test_views(struct het_io *io, struct het_evq *q, const char *tmp,
    const char *runA, const char *runB)
{
	struct het_io_view *v;
	char none[1024];
	size_t bad, cnt, nnan, k;
	double d;

	v = view(io, q, 0, 6, 35, runA);
	ok(v != NULL, "a view of the fit's frames");
	if (v == NULL)
		return;
	is_int(v->model, HET_IO_MODEL_SHOWN, "the model is carried (%s)",
	    v->model_note);
	ok(v->model_al != NULL, "with its age-lag means");
	is_int(v->model_first, 6, "the fit's first frame");
	is_int(v->model_last, 35, "the fit's last frame");
	if (v->model_al != NULL) {
		bad = compare(v, runA, 0, 6);
		is_int((long long)bad, 0, "equal to the means of the fitted "
		    "c2 read back (%zu blocks differ)", bad);
		d = misfit(v, &cnt);
		ok(cnt > 100 && d < 0.002, "near the data's: mean |model - "
		    "data| %.4g over %zu blocks", d, cnt);
	}
	het_io_view_free(v);

	v = view(io, q, 1, 1, NF, runA);
	ok(v != NULL && v->model == HET_IO_MODEL_SHOWN && v->model_al !=
	    NULL, "every frame of angle 80: the model is carried");
	if (v != NULL && v->model_al != NULL) {
		bad = compare(v, runA, 1, 6);
		is_int((long long)bad, 0, "the frames outside 6-35 are NAN, "
		    "the rest the fitted c2's means (%zu differ)", bad);
		for (k = 0, nnan = 0; k < v->nage * v->n; k++)
			nnan += isnan(v->model_al[k]) &&
			    !isnan(v->age_lag[k]);
		ok(nnan > 0 && isnan(v->model_al[0 * v->n + 1]),
		    "blocks touching frames 1-5 have no model (%zu)", nnan);
	}
	het_io_view_free(v);

	v = view(io, q, 0, 36, NF, runA);
	ok(v != NULL && v->model == HET_IO_MODEL_OUTSIDE &&
	    v->model_al == NULL, "frames 36-40: outside the fit's");
	like(v != NULL ? v->model_note : "", "the fit used frames 6-35, "
	    "none of the frames 36-40 shown", "... and says so");
	het_io_view_free(v);

	v = view(io, q, 1, 0, 0, runB);
	ok(v != NULL && v->model == HET_IO_MODEL_NO_ANGLE &&
	    v->model_al == NULL, "run B did not fit angle 80");
	like(v != NULL ? v->model_note : "", "did not include this angle "
	    "(phi 80.00 deg): select it and fit again", "... and says so");
	het_io_view_free(v);
	v = view(io, q, 0, 0, 0, runB);
	ok(v != NULL && v->model == HET_IO_MODEL_SHOWN, "but angle 10");
	het_io_view_free(v);

	snprintf(none, sizeof(none), "%s/no_run", tmp);
	v = view(io, q, 0, 0, 0, none);
	ok(v != NULL && v->model == HET_IO_MODEL_UNREADABLE &&
	    v->model_al == NULL, "a folder without a run: unreadable");
	like(v != NULL ? v->model_note : "", "is not a run folder",
	    "... and says why");
	ok(v != NULL && v->age_lag != NULL && isfinite(v->gmax),
	    "the data are shown all the same");
	het_io_view_free(v);

	v = view(io, q, 0, 0, 0, NULL);
	ok(v != NULL && v->model == HET_IO_MODEL_NONE && v->model_al == NULL,
	    "no model asked: none carried");
	het_io_view_free(v);
}

enum damage { BAD_BIN, NO_FILE, BAD_FRAMES, NO_ANGLE_GROUP };

/* Damage the results file of run as d says; 0 when done. */
static int
damage(const char *run, enum damage d)
{
	static const long long bins[2] = { -1, 1 }, nf = 29;
	char file[1024];
	hid_t fid, o, sp;
	herr_t rc = -1;

	snprintf(file, sizeof(file), "%s/%s", run, HET_RESULTS_H5);
	if ((fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT)) < 0)
		return -1;
	switch (d) {
	case BAD_BIN:
		if ((o = H5Dopen2(fid, "/data/bin_index", H5P_DEFAULT)) >= 0) {
			rc = H5Dwrite(o, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL,
			    H5P_DEFAULT, bins);
			H5Dclose(o);
		}
		break;
	case NO_FILE:
		rc = H5Adelete_by_name(fid, "/data", "file", H5P_DEFAULT);
		break;
	case BAD_FRAMES:	/* the attribute again, with another value */
		if (H5Adelete_by_name(fid, "/data", "n_frames",
		    H5P_DEFAULT) >= 0 && (sp = H5Screate(H5S_SCALAR)) >= 0) {
			if ((o = H5Acreate_by_name(fid, "/data", "n_frames",
			    H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT,
			    H5P_DEFAULT)) >= 0) {
				rc = H5Awrite(o, H5T_NATIVE_LLONG, &nf);
				H5Aclose(o);
			}
			H5Sclose(sp);
		}
		break;
	case NO_ANGLE_GROUP:
		rc = H5Ldelete(fid, "/fit_angle_001", H5P_DEFAULT);
		break;
	}
	H5Fclose(fid);
	return rc < 0 ? -1 : 0;
}

/* Runs damaged after the fit: each says what is wrong. */
static void
test_damaged(struct het_io *io, struct het_evq *q, const char *tmp,
    const char *data)
{
	static const struct {
		enum damage	 d;
		int		 per_angle;
		size_t		 bin;
		enum het_io_model want;
		const char	*note;
	} t[] = {
		{ BAD_BIN, 0, 0, HET_IO_MODEL_UNREADABLE, "/data/bin_index[0] "
		    "is -1, not a bin index; the file is damaged" },
		{ NO_FILE, 0, 0, HET_IO_MODEL_OTHER_FILE, "is of a file it "
		    "does not name, not of this file" },
		{ BAD_FRAMES, 0, 0, HET_IO_MODEL_UNREADABLE, "the fitted c2 of "
		    "angle 0 has 30 frames, the run says 29" },
		{ NO_ANGLE_GROUP, 1, 1, HET_IO_MODEL_UNREADABLE, "damaged3 has "
		    "no result for this angle (its fit did not run)" },
	};
	struct het_io_view *v;
	char run[700];
	size_t k;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		snprintf(run, sizeof(run), "%s/damaged%zu", tmp, k);
		ok(fit(data, "10.0, 80.0", 6, 35, run, t[k].per_angle) == 0 &&
		    damage(run, t[k].d) == 0, "run %zu fitted and damaged", k);
		v = view(io, q, t[k].bin, 6, 35, run);
		ok(v != NULL && v->model == t[k].want && v->model_al == NULL,
		    "damaged run %zu: no model (%d)", k, v != NULL ?
		    (int)v->model : -1);
		like(v != NULL ? v->model_note : "", t[k].note,
		    "... and the note says why");
		het_io_view_free(v);
	}
	/* the per-angle run's other angle is still drawn */
	v = view(io, q, 0, 6, 35, run);
	ok(v != NULL && v->model == HET_IO_MODEL_SHOWN && v->model_al != NULL,
	    "the per-angle run's angle 10 is drawn (%s)", v != NULL ?
	    v->model_note : "");
	het_io_view_free(v);
}

int
main(void)
{
	char tmp[512], data[600], copy[600], runA[600], runB[600], cmd[2048];
	struct het_io_meta *m;
	struct het_io_view *v;
	struct het_error err;
	struct het_evq *q;
	struct het_io *io;

	plan_lazy();
	het_error_clear(&err);
	if (het_h5_library_init(&err) != HET_OK ||
	    tap_tmpdir(tmp, sizeof(tmp), "io_model") == NULL) {
		ok(0, "set-up: %s", err.msg);
		done_testing();
		return exit_status();
	}
	snprintf(data, sizeof(data), "%s/data.h5", tmp);
	snprintf(copy, sizeof(copy), "%s/copy.h5", tmp);
	snprintf(runA, sizeof(runA), "%s/runA", tmp);
	snprintf(runB, sizeof(runB), "%s/runB", tmp);
	ok(fx_simulate(data, HET_DTYPE_F64, NF) == HET_OK &&
	    fx_simulate(copy, HET_DTYPE_F64, NF) == HET_OK, "fixtures");
	ok(fit(data, "10.0, 80.0", 6, 35, runA, 0) == 0, "run A fitted");
	ok(fit(data, "10.0", 1, -1, runB, 0) == 0, "run B fitted");

	q = het_evq_alloc(&err);
	io = q != NULL ? het_io_alloc(q, &err) : NULL;
	ok(io != NULL && het_io_start(io, &err) == HET_OK, "I/O thread");
	het_io_open(io, data, NULL, &err);
	m = wait_for(q, HET_IO_EV_OPENED);
	ok(m != NULL && m->nbins == FX_NA, "opened");
	het_io_meta_free(m);
	test_views(io, q, tmp, runA, runB);
	test_damaged(io, q, tmp, data);

	het_io_open(io, copy, NULL, &err);
	m = wait_for(q, HET_IO_EV_OPENED);
	het_io_meta_free(m);
	v = view(io, q, 0, 6, 35, runA);
	ok(v != NULL && v->model == HET_IO_MODEL_OTHER_FILE &&
	    v->model_al == NULL, "a copy at another path: another file");
	like(v != NULL ? v->model_note : "", "data.h5, not of this file",
	    "... which the note names");
	het_io_view_free(v);

	het_io_free(io);
	het_evq_free(q);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("cannot remove %s", tmp);
	done_testing();
	return exit_status();
}
