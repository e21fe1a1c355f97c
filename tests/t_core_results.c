/*
 * t_core_results.c: the results files of an NLSQ fit (het_results.h).
 *
 * A problem is built from a small APS-U fixture (2 angles, 12 frames)
 * and described by a hand-made fit result with high-entropy numbers; the
 * files are written and read back with the HDF5 C API and jansson.
 * Checks: every attribute and dataset of hetui_results.h5 (config echo
 * that loads back equal, selection, parameter table with fixed and free
 * entries, covariance, correlation, history, starts, warnings, the
 * fitted and residual matrices against an independent evaluation); the
 * JSON keys in the reference's order and their values (NaN as null);
 * per-angle file names, including the int(phi) collision; atomicity: a
 * write that fails while creating its last file leaves the old files
 * byte-identical and no temporary file; bad descriptions and a file in
 * the way of the directory are errors with messages; the checkpoint's
 * file choice (pending when newer than the results or alone, stale when
 * older, never a directory), its removal with the temporary files of
 * killed writes (only of processes that are gone), and its errors (no
 * CMC run, a directory in its place).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <jansson.h>

#include "fixture_h5.h"
#include "het_config.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_problem.h"
#include "het_results.h"
#include "tap.h"

#define NF	12
#define STAMP	"2026-05-01T12:34:56.123456"

static char *dir;
static double *mats[2];

static const char yaml[] =
    "analysis_mode: static_both\n"
    "analyzer_parameters:\n"
    "  dt: 0.05\n"
    "  start_frame: 2\n"
    "  end_frame: 11\n"
    "  scattering: {wavevector_q: 0.0071, phi_angles: [10.0, 80.0]}\n"
    "parameters:\n"
    "  scaling:\n"
    "    offset: {value: 1.0, vary: false}\n";

static int
fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	(void)arg;
	(void)err;
	memcpy(c2, mats[k], NF * NF * sizeof(double));
	return HET_OK;
}

static char *
write_fixture(void)
{
	static const double q = 0.0072, phi[2] = { 10.0, 80.0 };
	struct het_apsu_spec spec;
	struct het_error err;
	char *path = fx_path(dir, "in.h5");

	mats[0] = malloc(NF * NF * sizeof(double));
	mats[1] = malloc(NF * NF * sizeof(double));
	fx_matrix(NF, 3, mats[0]);
	fx_matrix(NF, 4, mats[1]);
	het_apsu_spec_init(&spec);
	spec.n_q = 1;
	spec.q = &q;
	spec.n_phi = 2;
	spec.phi = phi;
	spec.nbins = 2;
	spec.frames = NF;
	spec.fill = fill;
	spec.dtype = HET_DTYPE_F64;
	spec.frame_time = 0.1;
	if (het_apsu_write(path, &spec, &err) != HET_OK)
		diag("fixture: %s", err.msg);
	return path;
}

/* ---- reading back -------------------------------------------------------- */

static double *
rd_f64(hid_t f, const char *path, size_t *n)
{
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT), sp;
	hssize_t np;
	double *v = NULL;

	*n = 0;
	if (d < 0)
		return NULL;
	sp = H5Dget_space(d);
	np = H5Sget_simple_extent_npoints(sp);
	v = calloc((size_t)np + 1, sizeof(double));
	if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    v) < 0) {
		free(v);
		v = NULL;
	} else
		*n = (size_t)np;
	H5Sclose(sp);
	H5Dclose(d);
	return v;
}

static long long *
rd_i64(hid_t f, const char *path, size_t *n)
{
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT), sp;
	hssize_t np;
	long long *v;

	*n = 0;
	if (d < 0)
		return NULL;
	sp = H5Dget_space(d);
	np = H5Sget_simple_extent_npoints(sp);
	v = calloc((size_t)np + 1, sizeof(long long));
	H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
	*n = (size_t)np;
	H5Sclose(sp);
	H5Dclose(d);
	return v;
}

/* Strings joined by "|" (a scalar string dataset gives itself). */
static char *
rd_strs(hid_t f, const char *path, size_t *n)
{
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT), sp, t;
	hssize_t np;
	char **s, *out;
	size_t k, len = 1;

	*n = 0;
	if (d < 0)
		return strdup("(missing)");
	sp = H5Dget_space(d);
	np = H5Sget_simple_extent_npoints(sp);
	t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	s = calloc((size_t)np + 1, sizeof(char *));
	H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
	for (k = 0; k < (size_t)np; k++)
		len += strlen(s[k] != NULL ? s[k] : "") + 1;
	out = calloc(len, 1);
	for (k = 0; k < (size_t)np; k++) {
		if (k > 0)
			strcat(out, "|");
		strcat(out, s[k] != NULL ? s[k] : "");
	}
	H5Dvlen_reclaim(t, sp, H5P_DEFAULT, s);
	free(s);
	*n = (size_t)np;
	H5Tclose(t);
	H5Sclose(sp);
	H5Dclose(d);
	return out;
}

static double
rd_attr_f64(hid_t f, const char *obj, const char *name)
{
	double v = NAN;
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);

	if (a >= 0) {
		H5Aread(a, H5T_NATIVE_DOUBLE, &v);
		H5Aclose(a);
	}
	return v;
}

static long long
rd_attr_i64(hid_t f, const char *obj, const char *name)
{
	long long v = -999;
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);

	if (a >= 0) {
		H5Aread(a, H5T_NATIVE_LLONG, &v);
		H5Aclose(a);
	}
	return v;
}

static const char *
rd_attr_str(hid_t f, const char *obj, const char *name)
{
	static char buf[1024];
	char *s = NULL;
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT), t;

	strcpy(buf, "(missing)");
	if (a < 0)
		return buf;
	t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	if (H5Aread(a, t, &s) >= 0 && s != NULL) {
		snprintf(buf, sizeof(buf), "%s", s);
		H5free_memory(s);
	}
	H5Tclose(t);
	H5Aclose(a);
	return buf;
}

/* ---- the fit description ------------------------------------------------- */

struct fake {
	struct het_results_fit	 fit;
	struct het_results_start starts[2];
	struct het_results_iter	 hist[3];
	const char		*names[32];
	double			 x[32], x0[32], unc[32], lo[32], hi[32];
	double			 sx0[2][32], sx[2][32];
	double			 cov[32 * 32], corr[32 * 32];
	const char		*fw[1];
	const char		*rw[1];
	struct het_results	 res;
};

static void
fake_init(struct fake *fk, const struct het_config *cfg,
    const struct het_problem *pb)
{
	size_t p = pb->p, i, j;

	memset(fk, 0, sizeof(*fk));
	for (i = 0; i < p; i++) {
		fk->names[i] = het_resid_param_name(pb->resid, i);
		fk->x0[i] = pb->x0[i];
		fk->x[i] = pb->x0[i] + 0.001 * (double)(i + 1) *
		    (pb->hi[i] - pb->lo[i]) / 7.0;
		fk->unc[i] = i == 1 ? NAN : 1e-3 * (double)(i + 3) / 3.0;
		fk->lo[i] = pb->lo[i];
		fk->hi[i] = pb->hi[i];
		for (j = 0; j < p; j++) {
			fk->cov[i * p + j] = 0.37 / (1.0 + (double)(i + j)) +
			    (i == j ? 1.1 : 0);
			fk->corr[i * p + j] = i == j ? 1.0 :
			    -0.29 / (1.0 + (double)(i + 2 * j));
		}
		fk->sx0[0][i] = fk->x0[i];
		fk->sx0[1][i] = fk->x0[i] * 0.97;
		fk->sx[0][i] = fk->x[i];
		fk->sx[1][i] = fk->x[i] * 0.99;
	}
	fk->starts[0] = (struct het_results_start){ fk->sx0[0], fk->sx[0],
	    12.75, 1.0625, 17, 21, "ftol", HET_OK };
	fk->starts[1] = (struct het_results_start){ fk->sx0[1], fk->sx[1],
	    19.5, 1.625, 40, 55, "max_nfev", HET_OK };
	fk->hist[0] = (struct het_results_iter){ -1, 0, 0, 1, 100.5, 8.25,
	    1.5, 0 };
	fk->hist[1] = (struct het_results_iter){ -1, 0, 1, 3, 40.25, 3.125,
	    0.75, 0.0625 };
	fk->hist[2] = (struct het_results_iter){ -1, 1, 0, 1, 90.0, 7.5,
	    1.25, 0 };
	fk->fw[0] = "D0_sample is at its lower bound";
	fk->rw[0] = "a run-level warning";
	fk->fit = (struct het_results_fit){
		.angle = -1, .p = p, .names = fk->names, .x = fk->x,
		.x0 = fk->x0, .unc = fk->unc, .lo = fk->lo, .hi = fk->hi,
		.cov = fk->cov, .corr = fk->corr, .cost = 12.75, .rss = 25.5,
		.chi2 = 1.0625 * 300, .chi2_red = 1.0625, .sigma = 0.0123,
		.dof = 300, .iterations = 17, .nfev = 21, .njev = 18,
		.wall_time = 0.5, .reason = "ftol", .converged = 1,
		.message = "the cost changed by less than ftol", .rank = p,
		.warnings = fk->fw, .nwarnings = 1, .starts = fk->starts,
		.nstarts = 2, .best = 0
	};
	fk->res = (struct het_results){
		.cfg = cfg, .pb = pb, .optimizer = "multistart",
		.per_angle = 0, .fits = &fk->fit, .nfits = 1,
		.history = fk->hist, .nhistory = 3, .warnings = fk->rw,
		.nwarnings = 1, .status = "converged", .wall_time = 0.75,
		.threads = 2, .creator = "hetui test", .timestamp = STAMP
	};
}

/* ---- checks -------------------------------------------------------------- */

static void
check_h5(const char *out, const struct het_config *cfg,
    const struct het_problem *pb, const struct fake *fk)
{
	char *path = fx_path(out, HET_RESULTS_H5), *s, what[64];
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	struct het_config *back;
	struct het_error err;
	struct het_resid_eval *ev;
	double *v, *c2 = malloc(100 * sizeof(double));
	long long *l;
	size_t n, k, bad, i, j;

	ok(f >= 0, "hetui_results.h5 opens");
	is_str(rd_attr_str(f, "/", "format"), "hetui-nlsq-results",
	    "/ format");
	is_int(rd_attr_i64(f, "/", "format_version"), 2, "/ format_version");
	is_str(rd_attr_str(f, "/", "creator"), "hetui test", "/ creator");
	is_str(rd_attr_str(f, "/", "created"), STAMP, "/ created");
	is_str(rd_attr_str(f, "/", "status"), "converged", "/ status");
	is_str(rd_attr_str(f, "/", "optimizer"), "multistart", "/ optimizer");
	is_int(rd_attr_i64(f, "/", "threads"), 2, "/ threads");
	is_double(rd_attr_f64(f, "/", "wall_time"), 0.75, 0, "/ wall_time");
	is_str(rd_attr_str(f, "/config", "analysis_mode"), "static_both",
	    "/config analysis_mode");
	s = rd_strs(f, "/config/yaml", &n);
	back = het_config_load_string(s, strlen(s), "echo", &err);
	ok(back != NULL && het_config_equal(back, cfg, what, sizeof(what)),
	    "/config/yaml loads back to an equal config%s%s",
	    back == NULL ? ": " : "", back == NULL ? err.msg : "");
	het_config_free(back);
	free(s);

	is_str(rd_attr_str(f, "/data", "file"), pb->data_path, "/data file");
	is_str(rd_attr_str(f, "/data", "layout"), "aps-u", "/data layout");
	is_double(rd_attr_f64(f, "/data", "q"), 0.0072, 0, "/data q (file)");
	is_double(rd_attr_f64(f, "/data", "q_target"), 0.0071, 0,
	    "/data q_target (config)");
	ok(rd_attr_i64(f, "/data", "first_frame") == 2 &&
	    rd_attr_i64(f, "/data", "last_frame") == 11 &&
	    rd_attr_i64(f, "/data", "n_frames") == 10, "/data window 2..11, "
	    "N 10");
	is_double(rd_attr_f64(f, "/data", "dt"), 0.05, 0, "/data dt");
	is_str(rd_attr_str(f, "/data", "dt_source"),
	    "config: analyzer_parameters.dt", "/data dt_source");
	is_str(rd_attr_str(f, "/data", "angle_rule"), "phi_angles",
	    "/data angle_rule");
	is_int(rd_attr_i64(f, "/data", "n_pairs"), 90, "/data n_pairs 2 x 45");
	is_str(rd_attr_str(f, "/data", "scaling_mode"), "individual",
	    "/data scaling_mode");
	v = rd_f64(f, "/data/phi", &n);
	ok(n == 2 && v[0] == 10.0 && v[1] == 80.0, "/data/phi 10, 80");
	free(v);
	l = rd_i64(f, "/data/bin_label", &n);
	ok(n == 2 && l[0] == 1 && l[1] == 2, "/data/bin_label 1, 2");
	free(l);
	v = rd_f64(f, "/data/estimate_contrast", &n);
	ok(n == 2 && v[1] == pb->est_contrast[1], "/data/estimate_contrast");
	free(v);
	v = rd_f64(f, "/data/noise_sigma", &n);
	ok(n == 2 && (v[0] == pb->sigma_angle[0] || (isnan(v[0]) &&
	    isnan(pb->sigma_angle[0]))), "/data/noise_sigma");
	free(v);

	s = rd_strs(f, "/fit/parameters/name", &n);
	is_str(s, "D0_ref|alpha_ref|D_offset_ref|D0_sample|alpha_sample|"
	    "D_offset_sample|v0|beta|v_offset|f0|f1|f2|f3|phi0|contrast[0]|"
	    "contrast[1]|offset[0]|offset[1]", "/fit/parameters/name: 14 "
	    "physics + 4 scaling");
	free(s);
	v = rd_f64(f, "/fit/parameters/value", &n);
	ok(n == 18 && v[0] == fk->x[0] && v[3] == fk->x[3] &&
	    v[6] == pb->theta[HET_P_V0] && v[14] == fk->x[6] &&
	    v[16] == 1.0, "value: free from x, fixed v0 and offset[0] from "
	    "the config");
	free(v);
	v = rd_f64(f, "/fit/parameters/uncertainty", &n);
	ok(n == 18 && v[0] == fk->unc[0] && isnan(v[1]) && isnan(v[6]) &&
	    v[15] == fk->unc[7] && isnan(v[17]), "uncertainty: NaN for "
	    "fixed ones and for the NaN one");
	free(v);
	l = rd_i64(f, "/fit/parameters/vary", &n);
	ok(n == 18 && l[0] == 1 && l[5] == 1 && l[6] == 0 && l[13] == 0 &&
	    l[14] == 1 && l[16] == 0, "vary: static_both frees 6 transport "
	    "parameters and the contrasts");
	free(l);
	v = rd_f64(f, "/fit/parameters/lower", &n);
	ok(n == 18 && v[0] == 100 && v[14] == 0 && v[16] == 0.5,
	    "lower bounds");
	free(v);
	v = rd_f64(f, "/fit/parameters/start", &n);
	ok(n == 18 && v[0] == fk->x0[0], "start values");
	free(v);
	s = rd_strs(f, "/fit/parameters/unit", &n);
	like(s, "Å", "units in UTF-8");
	free(s);
	s = rd_strs(f, "/fit/free_names", &n);
	is_int((long long)n, (long long)pb->p, "/fit/free_names has p = %zu "
	    "entries", pb->p);
	free(s);
	v = rd_f64(f, "/fit/covariance", &n);
	for (k = 0, bad = 0; v != NULL && k < pb->p * pb->p; k++)
		bad += v[k] != fk->cov[k];
	ok(n == pb->p * pb->p && bad == 0, "/fit/covariance p x p, equal");
	free(v);
	v = rd_f64(f, "/fit/correlation", &n);
	ok(n == pb->p * pb->p && v[1] == fk->corr[1], "/fit/correlation");
	free(v);
	ok(rd_attr_f64(f, "/fit", "cost") == 12.75 &&
	    rd_attr_f64(f, "/fit", "chi2_red") == 1.0625 &&
	    rd_attr_i64(f, "/fit", "iterations") == 17 &&
	    rd_attr_i64(f, "/fit", "nfev") == 21 &&
	    rd_attr_i64(f, "/fit", "njev") == 18 &&
	    rd_attr_i64(f, "/fit", "dof") == 300 &&
	    rd_attr_i64(f, "/fit", "converged") == 1 &&
	    rd_attr_i64(f, "/fit", "angle") == -1,
	    "/fit attributes cost, chi2_red, iterations, nfev, njev, dof, "
	    "converged, angle");
	is_str(rd_attr_str(f, "/fit", "reason"), "ftol", "/fit reason");
	v = rd_f64(f, "/fit/contrast", &n);
	ok(n == 2 && v[0] == fk->x[6] && v[1] == fk->x[7],
	    "/fit/contrast per angle");
	free(v);
	v = rd_f64(f, "/fit/starts/x0", &n);
	ok(n == 2 * pb->p && v[pb->p] == fk->sx0[1][0], "/fit/starts/x0 "
	    "2 x p");
	free(v);
	v = rd_f64(f, "/fit/starts/cost", &n);
	ok(n == 2 && v[1] == 19.5, "/fit/starts/cost");
	free(v);
	s = rd_strs(f, "/fit/starts/reason", &n);
	is_str(s, "ftol|max_nfev", "/fit/starts/reason");
	free(s);
	l = rd_i64(f, "/history/iter", &n);
	ok(n == 3 && l[0] == 0 && l[1] == 1 && l[2] == 0, "/history/iter");
	free(l);
	l = rd_i64(f, "/history/start", &n);
	ok(n == 3 && l[2] == 1, "/history/start");
	free(l);
	v = rd_f64(f, "/history/step_norm", &n);
	ok(n == 3 && v[1] == 0.0625, "/history/step_norm");
	free(v);
	v = rd_f64(f, "/history/radius", &n);
	ok(n == 3 && v[2] == 1.25, "/history/radius");
	free(v);
	s = rd_strs(f, "/warnings", &n);
	is_str(s, "wavevector_q is 0.0071 1/A but the nearest ring of the "
	    "file is at 0.0072 1/A; the model uses the file's q|the far-lag "
	    "noise estimate needs at least 50 differences per angle, "
	    "which 10 frames do not give; the reduced chi-square is reported "
	    "without a noise estimate (sum r^2 / dof)|a run-level warning|"
	    "D0_sample is at its lower bound", "/warnings: the problem's, the "
	    "run's, then the fit's");
	free(s);

	/* fitted and residual matrices against an independent evaluation */
	ev = het_resid_eval_alloc(pb->resid, &err);
	het_resid_prepare(ev, fk->x, 0, &err);
	for (k = 0; k < 2; k++) {
		char p1[64];
		double *rm;
		size_t m;

		het_resid_model_matrix(ev, k, c2);
		snprintf(p1, sizeof(p1), "/fit/c2_fitted/angle_%03zu", k);
		v = rd_f64(f, p1, &n);
		bad = 0;
		for (i = 0, m = 0; v != NULL && i < 10; i++)
			for (j = i; j < 10; j++)
				bad += v[m++] != c2[i * 10 + j];
		ok(n == 55 && bad == 0, "%s: the upper triangle with the "
		    "diagonal, row by row, equal to the model (float64 data: "
		    "float64)", p1);
		is_str(rd_attr_str(f, p1, "storage"),
		    "upper_triangle_with_diagonal", "%s storage", p1);
		is_int(rd_attr_i64(f, p1, "n_frames"), 10, "%s n_frames", p1);
		is_double(rd_attr_f64(f, p1, "phi"), k ? 80 : 10, 0,
		    "%s phi", p1);
		free(v);
		v = NULL;
		ok(het_results_load_matrix(path, "fit", "c2_fitted", k, &v, &m,
		    &err) == HET_OK && m == 10 && fx_diff(v, c2, 100) == 0,
		    "het_results_load_matrix: the full N x N model back");
		free(v);
		snprintf(p1, sizeof(p1), "/fit/residuals/angle_%03zu", k);
		v = rd_f64(f, p1, &n);
		is_int(n, 45, "%s: the upper triangle without the diagonal", p1);
		is_str(rd_attr_str(f, p1, "storage"), "upper_triangle",
		    "%s storage", p1);
		rm = NULL;
		het_results_load_matrix(path, "fit", "residuals", k, &rm, &m,
		    &err);
		bad = 0;
		for (i = 0; rm != NULL && i < 10; i++)
			for (j = 0; j < 10; j++) {
				size_t a = i < j ? i : j, b = i < j ? j : i;
				double y = 0, want;

				/* pair (a, b) of angle k in row-major order */
				if (a != b)
					y = pb->y[pb->pair_first[k] + a * 10 -
					    a * (a + 1) / 2 + (b - a - 1)];
				want = a == b ? 0 : c2[a * 10 + b] - y;
				bad += rm[i * 10 + j] != want;
			}
		ok(m == 10 && bad == 0, "%s = model - data, symmetric, "
		    "diagonal 0 (het_results_load_matrix)", p1);
		free(v);
		free(rm);
	}
	het_resid_eval_free(ev);
	free(c2);
	H5Fclose(f);
	free(path);
}

static json_t *
load_json(const char *out, const char *name)
{
	char *path = fx_path(out, name);
	json_error_t je;
	json_t *j = json_load_file(path, JSON_PRESERVE_ORDER, &je);

	if (j == NULL)
		diag("%s: %s", name, je.text);
	free(path);
	return j;
}

/* "a,b,c": the keys of an object in file order. */
static const char *
keys_of(json_t *o)
{
	static char buf[512];
	const char *key;
	json_t *val;

	buf[0] = '\0';
	json_object_foreach(o, key, val) {
		if (buf[0] != '\0')
			strcat(buf, ",");
		strcat(buf, key);
	}
	return buf;
}

static void
check_json(const char *out, const struct het_problem *pb,
    const struct fake *fk)
{
	json_t *j, *a, *m;
	size_t k, bad = 0;

	j = load_json(out, "nlsq_parameters.json");
	ok(j != NULL, "nlsq_parameters.json parses");
	if (j == NULL)
		return;
	is_str(keys_of(j), "parameters,uncertainties,parameter_names,"
	    "timestamp", "the reference's keys, in its order");
	a = json_object_get(j, "parameters");
	for (k = 0; k < pb->p; k++)
		bad += json_real_value(json_array_get(a, k)) != fk->x[k];
	ok(json_array_size(a) == pb->p && bad == 0, "parameters: the %zu "
	    "free values, exact through JSON", pb->p);
	a = json_object_get(j, "uncertainties");
	ok(json_is_null(json_array_get(a, 1)) &&
	    json_real_value(json_array_get(a, 2)) == fk->unc[2],
	    "uncertainties: NaN written as null");
	a = json_object_get(j, "parameter_names");
	is_str(json_string_value(json_array_get(a, 6)), "contrast[0]",
	    "parameter_names[6] contrast[0]");
	is_str(json_string_value(json_object_get(j, "timestamp")), STAMP,
	    "timestamp");
	json_decref(j);

	j = load_json(out, "nlsq_metadata.json");
	ok(j != NULL, "nlsq_metadata.json parses");
	if (j == NULL)
		return;
	is_str(keys_of(j), "success,message,n_iterations,n_function_evals,"
	    "final_cost,reduced_chi_squared,convergence_reason,"
	    "wall_time_seconds,metadata", "the reference's keys, in its order");
	ok(json_is_true(json_object_get(j, "success")) &&
	    json_integer_value(json_object_get(j, "n_iterations")) == 17 &&
	    json_integer_value(json_object_get(j, "n_function_evals")) == 21 &&
	    json_real_value(json_object_get(j, "final_cost")) == 12.75 &&
	    json_real_value(json_object_get(j, "reduced_chi_squared")) ==
	    1.0625 && json_real_value(json_object_get(j,
	    "wall_time_seconds")) == 0.5, "values: success, iterations, "
	    "evaluations, cost, reduced chi2, wall time");
	is_str(json_string_value(json_object_get(j, "convergence_reason")),
	    "ftol", "convergence_reason");
	m = json_object_get(j, "metadata");
	like(keys_of(m), "phi_angle,optimizer,fallback_occurred", "metadata "
	    "starts with the reference's keys");
	ok(json_array_size(json_object_get(m, "phi_angle")) == 2 &&
	    json_real_value(json_array_get(json_object_get(m, "phi_angle"),
	    1)) == 80.0, "metadata.phi_angle lists the fitted angles");
	is_str(json_string_value(json_object_get(m, "fit")), "joint",
	    "metadata.fit joint");
	is_int(json_integer_value(json_object_get(m, "n_data")), 90,
	    "metadata.n_data");
	{
		json_t *st = json_object_get(m, "starts");
		json_t *s1 = json_array_get(st, 1);

		ok(json_array_size(st) == 2 && json_integer_value(
		    json_object_get(m, "best_start")) == 0 &&
		    json_real_value(json_object_get(s1, "cost")) == 19.5 &&
		    json_real_value(json_object_get(s1,
		    "reduced_chi_squared")) == 1.625 &&
		    json_integer_value(json_object_get(s1,
		    "n_iterations")) == 40 && strcmp(json_string_value(
		    json_object_get(s1, "convergence_reason")),
		    "max_nfev") == 0, "metadata.starts: the table of the two "
		    "starts, best_start 0");
	}
	json_decref(j);
}

/* Names in a directory, sorted, joined by " ". */
static char *
listing(const char *d)
{
	struct dirent **ents;
	char *buf = calloc(4096, 1);
	int n, k;

	n = scandir(d, &ents, NULL, alphasort);
	for (k = 0; k < n; k++) {
		if (ents[k]->d_name[0] != '.' || (strcmp(ents[k]->d_name, ".")
		    && strcmp(ents[k]->d_name, ".."))) {
			if (buf[0] != '\0')
				strcat(buf, " ");
			strcat(buf, ents[k]->d_name);
		}
		free(ents[k]);
	}
	free(ents);
	return buf;
}

/*
 * fsync interposed for this program (the core library's calls resolve to
 * it): fails with EIO for a file whose name contains fsync_fail_name, so
 * that a disk refusing one file of a results set can be provoked.
 */
static const char *fsync_fail_name;

int
fsync(int fd)
{
	char link[64], target[4096];
	ssize_t n;

	if (fsync_fail_name != NULL) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		if (strstr(target, fsync_fail_name) != NULL) {
			errno = EIO;
			return -1;
		}
	}
	return (int)syscall(SYS_fsync, fd);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *b;

	*len = 0;
	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	*len = (size_t)ftell(fp);
	rewind(fp);
	b = malloc(*len + 1);
	if (fread(b, 1, *len, fp) != *len)
		*len = 0;
	fclose(fp);
	return b;
}

static void
test_atomic(const char *out, struct fake *fk)
{
	char *h5 = fx_path(out, HET_RESULTS_H5), *pj =
	    fx_path(out, "nlsq_parameters.json"), *mj =
	    fx_path(out, "nlsq_metadata.json"), blocker[4096], *before, *after;
	char *o1, *o2, *n1, *n2;
	size_t l1, l2, m1, m2;
	struct het_error err;
	const char *bad_names[32];
	int rc;

	o1 = slurp(h5, &l1);
	o2 = slurp(pj, &l2);
	before = listing(out);
	snprintf(blocker, sizeof(blocker), "%s/.nlsq_metadata.json.tmp.%ld",
	    out, (long)getpid());
	ok(mkdir(blocker, 0700) == 0, "a directory blocks the temporary name "
	    "of the last file");
	fk->res.status = "not_converged";
	fk->res.timestamp = "2030-01-01T00:00:00.000000";
	het_error_clear(&err);
	rc = het_results_write(out, &fk->res, &err);
	is_int(rc, HET_EIO, "the write fails with HET_EIO");
	like(err.msg, "cannot create", "message: cannot create ...");
	like(err.msg, ".nlsq_metadata.json.tmp.", "... and names the file");
	rmdir(blocker);
	after = listing(out);
	is_str(after, before, "no temporary file is left (directory: %s)",
	    after);
	n1 = slurp(h5, &m1);
	n2 = slurp(pj, &m2);
	ok(l1 > 0 && l1 == m1 && memcmp(o1, n1, l1) == 0, "the old "
	    "hetui_results.h5 is byte-identical");
	ok(l2 > 0 && l2 == m2 && memcmp(o2, n2, l2) == 0, "the old "
	    "nlsq_parameters.json is byte-identical");
	free(n1);
	free(n2);
	free(after);

	/* the disk refuses the last file: none of the set is replaced */
	fsync_fail_name = ".nlsq_metadata.json.tmp.";
	het_error_clear(&err);
	rc = het_results_write(out, &fk->res, &err);
	fsync_fail_name = NULL;
	is_int(rc, HET_EIO, "a failed sync of the last file fails the write");
	like(err.msg, "/nlsq_metadata.json was not replaced", "message: "
	    "names the file, which was not replaced ...");
	like(err.msg, "did not reach the disk", "... and says why");
	after = listing(out);
	is_str(after, before, "no temporary file is left (directory: %s)",
	    after);
	n1 = slurp(h5, &m1);
	n2 = slurp(pj, &m2);
	ok(l1 == m1 && memcmp(o1, n1, l1) == 0, "hetui_results.h5 was not "
	    "replaced (all files are synced before any is renamed)");
	ok(l2 == m2 && memcmp(o2, n2, l2) == 0, "nor nlsq_parameters.json");
	free(n1);
	free(n2);
	free(after);

	/* an inconsistent description fails before anything is written */
	memcpy(bad_names, fk->names, sizeof(bad_names));
	bad_names[0] = "D0";
	fk->fit.names = bad_names;
	het_error_clear(&err);
	rc = het_results_write(out, &fk->res, &err);
	is_int(rc, HET_EINVAL, "a fit naming an unknown parameter: "
	    "HET_EINVAL");
	like(err.msg, "names a parameter 'D0' that the problem does not "
	    "have", "message names it");
	after = listing(out);
	is_str(after, before, "no temporary file is left");
	n1 = slurp(h5, &m1);
	ok(l1 == m1 && memcmp(o1, n1, l1) == 0, "old results intact");
	fk->fit.names = fk->names;
	free(n1);
	free(after);
	free(before);
	free(o1);
	free(o2);
	free(h5);
	free(pj);
	free(mj);
}

static void
test_per_angle_names(const struct het_problem *pb)
{
	struct het_problem fake_pb = *pb;
	struct het_results_fit fits[3];
	struct het_results res;
	double phi[3] = { 45.5, 45.0, -30.7 };
	long labels[3] = { 4, 9, 12 };
	char buf[64];

	memset(fits, 0, sizeof(fits));
	memset(&res, 0, sizeof(res));
	fake_pb.phi = phi;
	fake_pb.labels = labels;
	fake_pb.nangles = 3;
	fits[0].angle = 0;
	fits[1].angle = 1;
	fits[2].angle = 2;
	res.pb = &fake_pb;
	res.fits = fits;
	res.nfits = 3;
	res.per_angle = 1;
	het_results_json_prefix(&res, 0, buf, sizeof(buf));
	is_str(buf, "nlsq_phi45", "per angle: nlsq_phi<int(phi)>");
	het_results_json_prefix(&res, 1, buf, sizeof(buf));
	is_str(buf, "nlsq_phi45_9", "45.0 collides with 45.5: the bin label "
	    "is added");
	het_results_json_prefix(&res, 2, buf, sizeof(buf));
	is_str(buf, "nlsq_phi-30", "int() truncates toward zero: -30.7 -> "
	    "-30");
	res.nfits = 1;
	het_results_json_prefix(&res, 0, buf, sizeof(buf));
	is_str(buf, "nlsq", "one angle: nlsq");
}

static void
test_per_angle_write(const char *base, const struct het_config *cfg,
    const struct het_problem *pb)
{
	struct het_results_fit fits[2];
	struct het_results res;
	const char *names[2][16];
	double x[2][16], unc[2][16];
	char *out = fx_path(base, "per_angle"), *ls, *path;
	struct het_error err;
	size_t a, k, n, p;
	hid_t f;
	double *v;
	char *s;

	memset(fits, 0, sizeof(fits));
	for (a = 0; a < 2; a++) {
		/* the 6 transport parameters and this angle's contrast */
		for (p = 0; p < 6; p++)
			names[a][p] = het_resid_param_name(pb->resid, p);
		names[a][6] = a == 0 ? "contrast[0]" : "contrast[1]";
		for (k = 0; k < 7; k++) {
			x[a][k] = pb->x0[k < 6 ? k : 6 + a] * (1 + 0.01 *
			    (double)a);
			unc[a][k] = 0.01 * (double)(k + 1);
		}
		fits[a] = (struct het_results_fit){ .angle = (long)a, .p = 7,
		    .names = names[a], .x = x[a], .x0 = x[a], .unc = unc[a],
		    .lo = pb->lo, .hi = pb->hi, .cost = 1.5 + (double)a,
		    .reason = "gtol", .converged = 1, .message = "ok",
		    .dof = 38 };
	}
	memset(&res, 0, sizeof(res));
	res.cfg = cfg;
	res.pb = pb;
	res.optimizer = "local";
	res.per_angle = 1;
	res.fits = fits;
	res.nfits = 2;
	res.status = "converged";
	res.timestamp = STAMP;
	het_error_clear(&err);
	ok(het_results_write(out, &res, &err) == HET_OK, "per-angle write "
	    "into a new directory%s%s", err.msg[0] ? ": " : "", err.msg);
	ls = listing(out);
	is_str(ls, "hetui_results.h5 nlsq_phi10_metadata.json "
	    "nlsq_phi10_parameters.json nlsq_phi80_metadata.json "
	    "nlsq_phi80_parameters.json", "files of a per-angle fit");
	free(ls);
	path = fx_path(out, HET_RESULTS_H5);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	s = rd_strs(f, "/fit_angle_001/parameters/name", &n);
	like(s, "phi0|contrast[1]|offset[1]", "/fit_angle_001 lists the "
	    "physics and angle 1's scaling only");
	free(s);
	v = rd_f64(f, "/fit_angle_001/contrast", &n);
	ok(n == 1 && v[0] == x[1][6], "/fit_angle_001/contrast: its angle");
	free(v);
	ok(H5Lexists(f, "/fit_angle_001/c2_fitted/angle_001", H5P_DEFAULT) >
	    0 && H5Lexists(f, "/fit_angle_001/c2_fitted/angle_000",
	    H5P_DEFAULT) == 0, "one fitted matrix per per-angle fit");
	ok(H5Lexists(f, "/fit", H5P_DEFAULT) == 0, "no /fit group");
	H5Fclose(f);
	free(path);
	free(out);
}

static void
test_dir_errors(const char *base, struct fake *fk)
{
	char *file = fx_path(base, "plain"), *sub;
	struct het_error err;
	FILE *fp = fopen(file, "w");

	if (fp != NULL)
		fclose(fp);
	het_error_clear(&err);
	is_int(het_results_write(file, &fk->res, &err), HET_EIO, "a file "
	    "where the directory should be: HET_EIO");
	like(err.msg, "exists but is not a directory", "message");
	sub = fx_path(file, "x");
	het_error_clear(&err);
	is_int(het_results_write(sub, &fk->res, &err), HET_EIO, "a path "
	    "through a file: HET_EIO");
	like(err.msg, "cannot create the output directory", "message");
	fk->res.nfits = 0;
	het_error_clear(&err);
	is_int(het_results_write(base, &fk->res, &err), HET_EINVAL, "no "
	    "fits: HET_EINVAL");
	fk->res.nfits = 1;
	free(sub);
	free(file);
}

/* Set the modification time of path to t seconds since the epoch. */
static void
set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	utimensat(AT_FDCWD, path, ts, 0);
}

/* A pid that no process has: a child's, after it was reaped. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static void
touch_file(const char *path)
{
	FILE *fp = fopen(path, "w");

	if (fp != NULL)
		fclose(fp);
}

/* The temporary files of killed checkpoint writes are swept. */
static void
test_checkpoint_sweep(const char *d)
{
	char dead[700], mine[700], live[700], other[700];
	struct het_error err;

	snprintf(dead, sizeof(dead), "%s/.%s.tmp.%ld", d,
	    HET_RESULTS_CHECKPOINT, (long)dead_pid());
	snprintf(mine, sizeof(mine), "%s/.%s.tmp.%ld", d,
	    HET_RESULTS_CHECKPOINT, (long)getpid());
	snprintf(live, sizeof(live), "%s/.%s.tmp.1", d,
	    HET_RESULTS_CHECKPOINT);
	snprintf(other, sizeof(other), "%s/.%s.tmp.%ld", d, HET_RESULTS_H5,
	    (long)dead_pid());
	touch_file(dead);
	touch_file(mine);
	touch_file(live);
	touch_file(other);
	het_error_clear(&err);
	is_int(het_results_remove_checkpoint(d, &err), HET_OK, "removal with "
	    "temporary files about");
	ok(access(dead, F_OK) != 0, "the temporary file of a process that is "
	    "gone is removed");
	ok(access(mine, F_OK) == 0 && access(live, F_OK) == 0, "those of "
	    "this process and of a live one (pid 1) are kept");
	ok(access(other, F_OK) == 0, "... and so are other files' (%s)",
	    HET_RESULTS_H5);
	unlink(mine);
	unlink(live);
	unlink(other);
}

/* The checkpoint's file choice, its removal and its error paths. */
static void
test_checkpoint(const char *base, struct fake *fk)
{
	char *d = fx_path(base, "ckpt"), *ck = fx_path(d, HET_RESULTS_CHECKPOINT);
	char *rs = fx_path(d, HET_RESULTS_H5), *p, *inner;
	struct het_error err;
	FILE *fp;

	het_error_clear(&err);
	is_int(het_results_write_checkpoint(d, &fk->res, &err), HET_EINVAL,
	    "a checkpoint without a CMC run: HET_EINVAL");
	like(err.msg, "no CMC run", "message says so");
	ok(access(d, F_OK) != 0, "... and nothing is created");
	ok(!het_results_checkpoint_pending(d), "a missing directory: no "
	    "checkpoint pending");
	p = het_results_resume_path(d, &err);
	is_str(p, rs, "... and a resume reads hetui_results.h5");
	free(p);
	het_error_clear(&err);
	ok(het_results_write(d, &fk->res, &err) == HET_OK, "results written");
	if ((fp = fopen(ck, "w")) != NULL)
		fclose(fp);
	set_mtime(rs, 1000000000);
	set_mtime(ck, 1000000001);
	ok(het_results_checkpoint_pending(d), "a checkpoint newer than the "
	    "results is pending");
	p = het_results_resume_path(d, &err);
	is_str(p, ck, "... and a resume reads it");
	free(p);
	set_mtime(ck, 999999999);
	ok(!het_results_checkpoint_pending(d), "one older than the results "
	    "is stale");
	p = het_results_resume_path(d, &err);
	is_str(p, rs, "... and a resume reads the results");
	free(p);
	unlink(rs);
	ok(het_results_checkpoint_pending(d), "a checkpoint alone is "
	    "pending");
	het_error_clear(&err);
	is_int(het_results_remove_checkpoint(d, &err), HET_OK, "removed");
	ok(access(ck, F_OK) != 0, "... it is gone");
	is_int(het_results_remove_checkpoint(d, &err), HET_OK, "removing an "
	    "absent checkpoint is fine");
	inner = fx_path(ck, "x");
	mkdir(ck, 0700);
	if ((fp = fopen(inner, "w")) != NULL)
		fclose(fp);
	het_error_clear(&err);
	is_int(het_results_remove_checkpoint(d, &err), HET_EIO, "a directory "
	    "in its place: HET_EIO");
	like(err.msg, "cannot remove ", "message: cannot remove");
	like(err.msg, "ckpt/hetui_checkpoint.h5", "... and names the file");
	ok(!het_results_checkpoint_pending(d), "... and a directory is no "
	    "checkpoint");
	unlink(inner);
	rmdir(ck);
	test_checkpoint_sweep(d);
	free(inner);
	free(rs);
	free(ck);
	free(d);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int
main(void)
{
	struct het_config *cfg;
	struct het_dataset *ds;
	struct het_problem *pb = NULL;
	struct het_error err;
	struct fake *fk = calloc(1, sizeof(*fk));
	char *path, *out;

	plan_lazy();
	het_h5_library_init(&err);
	dir = fx_tmpdir();
	path = write_fixture();
	cfg = het_config_load_string(yaml, strlen(yaml), "t.yaml", &err);
	ds = het_dataset_open(path, &err);
	if (cfg != NULL && ds != NULL)
		pb = het_problem_build(cfg, ds, NULL, &err);
	ok(pb != NULL, "problem: static_both, 2 angles, frames 2..11");
	if (pb == NULL) {
		diag("%s", err.msg);
		done_testing();
		return exit_status();
	}
	fake_init(fk, cfg, pb);
	out = fx_path(dir, "out/a/b");
	het_error_clear(&err);
	ok(het_results_write(out, &fk->res, &err) == HET_OK, "write into a "
	    "new nested directory%s%s", err.msg[0] ? ": " : "", err.msg);
	check_h5(out, cfg, pb, fk);
	check_json(out, pb, fk);
	test_atomic(out, fk);
	test_per_angle_names(pb);
	test_per_angle_write(dir, cfg, pb);
	test_dir_errors(dir, fk);
	test_checkpoint(dir, fk);
	het_problem_free(pb);
	het_dataset_close(ds);
	het_config_free(cfg);
	free(fk);
	free(out);
	free(path);
	free(mats[0]);
	free(mats[1]);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	done_testing();
	return exit_status();
}
