/*
 * het_results_h5.c: the HDF5 results file of an NLSQ fit,
 * hetui_results.h5 (layout in het_results.h and man hetui(1), OUTPUT
 * FILES).
 *
 * Design: a small set of write helpers (numbers, strings, attributes)
 * that name the HDF5 path in every error, and one function per part of
 * the file.  Groups are created on demand through a link-creation
 * property list with intermediate groups.  Only one N x N matrix is held
 * at a time: fitted and residual matrices are produced angle by angle
 * from the problem's pairs, and stored as their packed upper triangles,
 * chunked, byte-shuffled and gzip-compressed, in float32 when the data
 * were float32 (a result file is then about the size of the data).  The caller writes to a temporary name and
 * renames it (het_results.c), so this file never worries about partial
 * output.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "het_h5.h"
#include "het_h5_impl.h"
#include "het_params.h"
#include "het_results_impl.h"
#include "het_util.h"

int
het_rs_fail(struct rs_w *w, const char *path, struct het_error *err)
{
	char detail[256];

	het_h5_detail(detail, sizeof(detail));
	return het_error_set(err, HET_EIO, "%s: cannot write %s%s%s", w->file,
	    path, detail[0] != '\0' ? ": " : "", detail);
}

int
het_rs_data(struct rs_w *w, const char *path, hid_t ftype, hid_t mtype,
    int rank,
    size_t d0, size_t d1, const void *data, struct het_error *err)
{
	hsize_t dims[2] = { d0, d1 };
	hid_t sp, ds = -1;
	int rc = HET_OK;

	sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims,
	    NULL);
	if (sp < 0 || (ds = H5Dcreate2(w->fid, path, ftype, sp, w->lcpl,
	    H5P_DEFAULT, H5P_DEFAULT)) < 0 || ((rank == 0 || d0 * (rank == 2 ?
	    d1 : 1) > 0) && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    data) < 0))
		rc = het_rs_fail(w, path, err);
	if (ds >= 0)
		H5Dclose(ds);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

int
het_rs_f64(struct rs_w *w, const char *path, size_t n, const double *v,
    struct het_error *err)
{
	return het_rs_data(w, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, n, 0,
	    v,
	    err);
}

int
het_rs_mat(struct rs_w *w, const char *path, size_t r, size_t c,
    const double *v,
    struct het_error *err)
{
	return het_rs_data(w, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, r, c,
	    v,
	    err);
}

/* n longs (or size_t values when sz is given) as int64. */
int
het_rs_i64(struct rs_w *w, const char *path, size_t n, const long *v,
    const size_t *sz, struct het_error *err)
{
	int64_t *t;
	size_t k;
	int rc;

	if ((t = het_alloc_array(n, sizeof(*t), path, err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < n; k++)
		t[k] = sz != NULL ? (int64_t)sz[k] : (int64_t)v[k];
	rc = het_rs_data(w, path, H5T_STD_I64LE, H5T_NATIVE_INT64, 1, n, 0, t,
	    err);
	free(t);
	return rc;
}

int
het_rs_strs(struct rs_w *w, const char *path, size_t n, const char *const *s,
    struct het_error *err)
{
	return het_rs_data(w, path, w->str, w->str, 1, n, 0, s, err);
}

int
het_rs_str(struct rs_w *w, const char *path, const char *s,
    struct het_error *err)
{
	return het_rs_data(w, path, w->str, w->str, 0, 0, 0, &s, err);
}

/* Attributes on the object at path (a group is created when missing). */
static int
rs_attr(struct rs_w *w, const char *path, const char *name, hid_t ftype,
    hid_t mtype, const void *v, struct het_error *err)
{
	hid_t obj, sp = -1, a = -1;
	int rc = HET_OK;

	if (strcmp(path, "/") != 0 &&
	    H5Lexists(w->fid, path, H5P_DEFAULT) <= 0 &&
	    (obj = H5Gcreate2(w->fid, path, w->lcpl, H5P_DEFAULT,
	    H5P_DEFAULT)) >= 0)
		H5Gclose(obj);
	if ((obj = H5Oopen(w->fid, path, H5P_DEFAULT)) < 0 ||
	    (sp = H5Screate(H5S_SCALAR)) < 0 ||
	    (a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT,
	    H5P_DEFAULT)) < 0 || H5Awrite(a, mtype, v) < 0) {
		char where[RS_PATH_MAX + 64];

		snprintf(where, sizeof(where), "attribute %s of %s", name,
		    path);
		rc = het_rs_fail(w, where, err);
	}
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	if (obj >= 0)
		H5Oclose(obj);
	return rc;
}

int
het_rs_astr(struct rs_w *w, const char *path, const char *name, const char *s,
    struct het_error *err)
{
	if (s == NULL)
		s = "";
	return rs_attr(w, path, name, w->str, w->str, &s, err);
}

int
het_rs_af64(struct rs_w *w, const char *path, const char *name, double v,
    struct het_error *err)
{
	return rs_attr(w, path, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v,
	    err);
}

int
het_rs_ai64(struct rs_w *w, const char *path, const char *name, long v,
    struct het_error *err)
{
	int64_t t = v;

	return rs_attr(w, path, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &t,
	    err);
}

/* "g/name" into buf (RS_PATH_MAX bytes); returns buf. */
static const char *
rs_path(char *buf, const char *g, const char *name)
{
	snprintf(buf, RS_PATH_MAX, "%s/%s", g, name);
	return buf;
}

/* ---- parts of the file --------------------------------------------------- */

static int
rs_root(struct rs_w *w, const struct het_results *res, const char *stamp,
    struct het_error *err)
{
	char *yaml;
	int rc;

	if ((rc = het_rs_astr(w, "/", "format", HET_RESULTS_FORMAT, err)) ||
	    (rc = het_rs_ai64(w, "/", "format_version", HET_RESULTS_VERSION,
	    err)) ||
	    (rc = het_rs_astr(w, "/", "creator", res->creator, err)) ||
	    (rc = het_rs_astr(w, "/", "created", stamp, err)) ||
	    (rc = het_rs_astr(w, "/", "status", res->status, err)) ||
	    (rc = het_rs_astr(w, "/", "optimizer", res->optimizer, err)) ||
	    (rc = het_rs_ai64(w, "/", "per_angle", res->per_angle, err)) ||
	    (rc = het_rs_ai64(w, "/", "threads", res->threads, err)) ||
	    (rc = het_rs_af64(w, "/", "wall_time", res->wall_time, err)))
		return rc;
	if ((yaml = het_config_format(res->cfg, 0, err)) == NULL)
		return HET_ENOMEM;
	rc = het_rs_str(w, "/config/yaml", yaml, err);
	free(yaml);
	if (rc == HET_OK)
		rc = het_rs_astr(w, "/config", "source", res->cfg->source, err);
	if (rc == HET_OK)
		rc = het_rs_astr(w, "/config", "analysis_mode",
		    het_mode_name(res->cfg->mode), err);
	return rc;
}

static int
rs_data_group(struct rs_w *w, const struct het_results *res,
    struct het_error *err)
{
	const struct het_problem *pb = res->pb;
	const char *g = "/data";
	int rc;

	if ((rc = het_rs_astr(w, g, "file", pb->data_path, err)) ||
	    (rc = het_rs_astr(w, g, "layout", het_layout_name(pb->layout),
	    err)) ||
	    (rc = het_rs_af64(w, g, "q", pb->q, err)) ||
	    (rc = het_rs_af64(w, g, "q_target", pb->q_target, err)) ||
	    (rc = het_rs_ai64(w, g, "q_index", (long)pb->q_idx, err)) ||
	    (rc = het_rs_ai64(w, g, "first_frame", pb->first_frame, err)) ||
	    (rc = het_rs_ai64(w, g, "last_frame", pb->last_frame, err)) ||
	    (rc = het_rs_ai64(w, g, "n_frames", (long)pb->n_frames, err)) ||
	    (rc = het_rs_af64(w, g, "dt", pb->dt, err)) ||
	    (rc = het_rs_astr(w, g, "dt_source", pb->dt_source, err)) ||
	    (rc = het_rs_astr(w, g, "angle_rule",
	    het_problem_angle_rule_name(pb->angle_rule), err)) ||
	    (rc = het_rs_ai64(w, g, "n_pairs", (long)pb->npairs, err)) ||
	    (rc = het_rs_af64(w, g, "noise_sigma", pb->sigma, err)) ||
	    (rc = het_rs_astr(w, g, "scaling_mode",
	    het_scaling_mode_name(pb->scaling_mode), err)))
		return rc;
	if ((rc = het_rs_f64(w, "/data/phi", pb->nangles, pb->phi, err)) ||
	    (rc = het_rs_i64(w, "/data/bin_label", pb->nangles, pb->labels,
	    NULL,
	    err)) ||
	    (rc = het_rs_i64(w, "/data/bin_index", pb->nangles, NULL, pb->bins,
	    err)) ||
	    (rc = het_rs_f64(w, "/data/noise_sigma", pb->nangles,
	    pb->sigma_angle,
	    err)) ||
	    (rc = het_rs_i64(w, "/data/noise_lag", pb->nangles, pb->noise_lag,
	    NULL, err)) ||
	    (rc = het_rs_f64(w, "/data/estimate_contrast", pb->nangles,
	    pb->est_contrast, err)) ||
	    (rc = het_rs_f64(w, "/data/estimate_offset", pb->nangles,
	    pb->est_offset, err)))
		return rc;
	return HET_OK;
}

static int
rs_history(struct rs_w *w, const struct het_results *res,
    struct het_error *err)
{
	size_t n = res->nhistory, k;
	long *l[4];
	double *d[4];
	static const char *const ln[4] = { "angle", "start", "iter", "nfev" };
	static const char *const dn[4] = { "cost", "chi2_red", "radius",
	    "step_norm" };
	char path[RS_PATH_MAX];
	int rc = HET_OK, i;

	memset(l, 0, sizeof(l));
	memset(d, 0, sizeof(d));
	for (i = 0; i < 4; i++) {
		l[i] = het_alloc_array(n, sizeof(long), "history", err);
		d[i] = het_alloc_array(n, sizeof(double), "history", err);
		if (l[i] == NULL || d[i] == NULL)
			rc = HET_ENOMEM;
	}
	for (k = 0; rc == HET_OK && k < n; k++) {
		const struct het_results_iter *h = &res->history[k];

		l[0][k] = h->angle;
		l[1][k] = h->start;
		l[2][k] = h->iter;
		l[3][k] = h->nfev;
		d[0][k] = h->cost;
		d[1][k] = h->chi2_red;
		d[2][k] = h->radius;
		d[3][k] = h->step_norm;
	}
	for (i = 0; rc == HET_OK && i < 4; i++) {
		snprintf(path, sizeof(path), "/history/%s", ln[i]);
		rc = het_rs_i64(w, path, n, l[i], NULL, err);
		snprintf(path, sizeof(path), "/history/%s", dn[i]);
		if (rc == HET_OK)
			rc = het_rs_f64(w, path, n, d[i], err);
	}
	for (i = 0; i < 4; i++) {
		free(l[i]);
		free(d[i]);
	}
	return rc;
}

static int
rs_warnings(struct rs_w *w, const struct het_results *res,
    struct het_error *err)
{
	const struct het_problem *pb = res->pb;
	const char **all;
	size_t n = 0, k, f;
	int rc;

	for (f = 0; f < res->nfits; f++)
		n += res->fits[f].nwarnings;
	n += pb->nwarnings + res->nwarnings;
	if ((all = het_alloc_array(n, sizeof(*all), "warnings", err)) == NULL)
		return HET_ENOMEM;
	n = 0;
	for (k = 0; k < pb->nwarnings; k++)
		all[n++] = pb->warnings[k];
	for (k = 0; k < res->nwarnings; k++)
		all[n++] = res->warnings[k];
	for (f = 0; f < res->nfits; f++)
		for (k = 0; k < res->fits[f].nwarnings; k++)
			all[n++] = res->fits[f].warnings[k];
	rc = het_rs_strs(w, "/warnings", n, all, err);
	free(all);
	return rc;
}

/* The parameter table of a fit under g/parameters. */
static int
rs_table(struct rs_w *w, const char *g, const struct rs_view *v,
    struct het_error *err)
{
	size_t n = v->nrows, k;
	const char **names = NULL, **units = NULL;
	double *col[5] = { NULL, NULL, NULL, NULL, NULL };
	static const char *const cn[5] = { "value", "uncertainty", "lower",
	    "upper", "start" };
	long *vary = NULL, *deg = NULL;
	char path[RS_PATH_MAX];
	int rc = HET_OK, i;

	names = het_alloc_array(n, sizeof(*names), "table", err);
	units = het_alloc_array(n, sizeof(*units), "table", err);
	vary = het_alloc_array(n, sizeof(*vary), "table", err);
	deg = het_alloc_array(n, sizeof(*deg), "table", err);
	for (i = 0; i < 5; i++)
		if ((col[i] = het_alloc_array(n, sizeof(double), "table",
		    err)) == NULL)
			rc = HET_ENOMEM;
	if (names == NULL || units == NULL || vary == NULL || deg == NULL)
		rc = HET_ENOMEM;
	for (k = 0; rc == HET_OK && k < n; k++) {
		names[k] = v->rows[k].name;
		units[k] = v->rows[k].unit;
		vary[k] = v->rows[k].vary;
		deg[k] = v->rows[k].degen;
		col[0][k] = v->rows[k].value;
		col[1][k] = v->rows[k].unc;
		col[2][k] = v->rows[k].lo;
		col[3][k] = v->rows[k].hi;
		col[4][k] = v->rows[k].start;
	}
	if (rc == HET_OK) {
		snprintf(path, sizeof(path), "%s/parameters/name", g);
		rc = het_rs_strs(w, path, n, names, err);
	}
	if (rc == HET_OK) {
		snprintf(path, sizeof(path), "%s/parameters/unit", g);
		rc = het_rs_strs(w, path, n, units, err);
	}
	if (rc == HET_OK) {
		snprintf(path, sizeof(path), "%s/parameters/vary", g);
		rc = het_rs_i64(w, path, n, vary, NULL, err);
	}
	if (rc == HET_OK) {
		snprintf(path, sizeof(path), "%s/parameters/degenerate", g);
		rc = het_rs_i64(w, path, n, deg, NULL, err);
	}
	for (i = 0; rc == HET_OK && i < 5; i++) {
		snprintf(path, sizeof(path), "%s/parameters/%s", g, cn[i]);
		rc = het_rs_f64(w, path, n, col[i], err);
	}
	free(names);
	free(units);
	free(vary);
	free(deg);
	for (i = 0; i < 5; i++)
		free(col[i]);
	return rc;
}

static int
rs_starts(struct rs_w *w, const char *g, const struct het_results_fit *f,
    struct het_error *err)
{
	size_t n = f->nstarts, p = f->p, k;
	double *x0, *x, *cost, *chi;
	long *it, *nfev, *st;
	const char **why;
	char path[RS_PATH_MAX];
	int rc = HET_OK;

	x0 = het_alloc_array(n * p, sizeof(double), "starts", err);
	x = het_alloc_array(n * p, sizeof(double), "starts", err);
	cost = het_alloc_array(n, sizeof(double), "starts", err);
	chi = het_alloc_array(n, sizeof(double), "starts", err);
	it = het_alloc_array(n, sizeof(long), "starts", err);
	nfev = het_alloc_array(n, sizeof(long), "starts", err);
	st = het_alloc_array(n, sizeof(long), "starts", err);
	why = het_alloc_array(n, sizeof(*why), "starts", err);
	if (x0 == NULL || x == NULL || cost == NULL || chi == NULL ||
	    it == NULL || nfev == NULL || st == NULL || why == NULL)
		rc = HET_ENOMEM;
	for (k = 0; rc == HET_OK && k < n; k++) {
		memcpy(x0 + k * p, f->starts[k].x0, p * sizeof(double));
		memcpy(x + k * p, f->starts[k].x, p * sizeof(double));
		cost[k] = f->starts[k].cost;
		chi[k] = f->starts[k].chi2_red;
		it[k] = f->starts[k].iterations;
		nfev[k] = f->starts[k].nfev;
		st[k] = f->starts[k].status;
		why[k] = f->starts[k].reason;
	}
	if (rc == HET_OK)
		rc = het_rs_mat(w, rs_path(path, g, "starts/x0"), n, p, x0,
		    err);
	if (rc == HET_OK)
		rc = het_rs_mat(w, rs_path(path, g, "starts/x"), n, p, x, err);
	if (rc == HET_OK)
		rc = het_rs_f64(w, rs_path(path, g, "starts/cost"), n, cost,
		    err);
	if (rc == HET_OK)
		rc = het_rs_f64(w, rs_path(path, g, "starts/chi2_red"), n, chi,
		    err);
	if (rc == HET_OK)
		rc = het_rs_i64(w, rs_path(path, g, "starts/iterations"), n, it,
		    NULL, err);
	if (rc == HET_OK)
		rc = het_rs_i64(w, rs_path(path, g, "starts/nfev"), n, nfev,
		    NULL,
		    err);
	if (rc == HET_OK)
		rc = het_rs_i64(w, rs_path(path, g, "starts/status"), n, st,
		    NULL,
		    err);
	if (rc == HET_OK)
		rc = het_rs_strs(w, rs_path(path, g, "starts/reason"), n, why,
		    err);
	free(x0);
	free(x);
	free(cost);
	free(chi);
	free(it);
	free(nfev);
	free(st);
	free(why);
	return rc;
}

/*
 * The upper triangle of an N x N matrix, row by row (i <= j, or i < j
 * without the diagonal): a 1-D dataset of len values, chunked, shuffled
 * and deflated when HDF5 has zlib, float32 in the file when f32.
 */
static int
rs_packed(struct rs_w *w, const char *path, size_t len, const double *v,
    int f32, struct het_error *err)
{
	hsize_t dims[1] = { len }, chunk[1];
	hid_t sp = -1, dcpl = -1, ds = -1;
	int rc = HET_OK;

	chunk[0] = len < RS_CHUNK ? (len > 0 ? len : 1) : RS_CHUNK;
	if ((sp = H5Screate_simple(1, dims, NULL)) < 0 ||
	    (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
	    (len > 0 && (H5Pset_chunk(dcpl, 1, chunk) < 0 ||
	    (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 &&
	    (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, RS_GZIP) < 0)))) ||
	    (ds = H5Dcreate2(w->fid, path, f32 ? H5T_IEEE_F32LE :
	    H5T_IEEE_F64LE, sp, w->lcpl, dcpl, H5P_DEFAULT)) < 0 ||
	    (len > 0 && H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
	    H5P_DEFAULT, v) < 0))
		rc = het_rs_fail(w, path, err);
	if (ds >= 0)
		H5Dclose(ds);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

/* The attributes that say how to unpack a packed matrix. */
static int
rs_packed_attrs(struct rs_w *w, const char *path, double phi, size_t n,
    int diag, struct het_error *err)
{
	int rc;

	if ((rc = het_rs_af64(w, path, "phi", phi, err)) != HET_OK ||
	    (rc = het_rs_astr(w, path, "storage",
	    diag ? HET_RESULTS_UPPER_DIAG :
	    HET_RESULTS_UPPER, err)) != HET_OK)
		return rc;
	return het_rs_ai64(w, path, "n_frames", (long)n, err);
}

/*
 * Fitted c2 (upper triangle with the diagonal) and residual (model -
 * data, upper triangle without the diagonal; 0 where a pair is not a
 * datum) of each angle.
 */
static int
rs_matrices(struct rs_w *w, const char *g, const struct het_results *res,
    const struct rs_view *v, struct het_error *err)
{
	const struct het_problem *pb = res->pb;
	struct het_resid_eval *ev;
	size_t n = pb->n_frames, a, k, i, j, m, nu = n * (n + 1) / 2;
	double *c2 = NULL, *up = NULL, *rm = NULL;
	int f32 = pb->dtype == HET_DTYPE_F32, rc;
	char path[RS_PATH_MAX];

	if ((ev = het_resid_eval_alloc(pb->resid, err)) == NULL)
		return HET_ENOMEM;
	if ((rc = het_resid_prepare(ev, v->xj, 0, err)) != HET_OK)
		goto out;
	c2 = het_alloc_array(n * n, sizeof(double), "fitted c2", err);
	up = het_alloc_array(nu, sizeof(double), "fitted c2", err);
	rm = het_alloc_array(nu, sizeof(double), "residual matrix", err);
	if (c2 == NULL || up == NULL || rm == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (a = v->first_angle; a < v->first_angle + v->nangles; a++) {
		het_resid_model_matrix(ev, a, c2);
		for (i = 0, m = 0; i < n; i++)
			for (j = i; j < n; j++)
				up[m++] = c2[i * n + j];
		/* Pair (i, j), i < j, sits at i (2n - i - 1) / 2 + j - i - 1
		 * of the packed triangle without the diagonal. */
		memset(rm, 0, nu * sizeof(double));
		for (k = pb->pair_first[a]; k < pb->pair_first[a + 1]; k++) {
			i = pb->pairs[k].i;
			j = pb->pairs[k].j;
			if (i > j) {
				m = i;
				i = j;
				j = m;
			}
			if (i == j)
				continue;
			rm[i * (2 * n - i - 1) / 2 + j - i - 1] =
			    c2[i * n + j] - pb->y[k];
		}
		snprintf(path, sizeof(path), "%s/c2_fitted/angle_%03zu", g, a);
		if ((rc = rs_packed(w, path, nu, up, f32, err)) != HET_OK ||
		    (rc = rs_packed_attrs(w, path, pb->phi[a], n, 1, err)) !=
		    HET_OK)
			goto out;
		snprintf(path, sizeof(path), "%s/residuals/angle_%03zu", g, a);
		if ((rc = rs_packed(w, path, n * (n - 1) / 2, rm, f32, err)) !=
		    HET_OK || (rc = rs_packed_attrs(w, path, pb->phi[a], n, 0,
		    err)) != HET_OK)
			goto out;
	}
out:
	free(c2);
	free(up);
	free(rm);
	het_resid_eval_free(ev);
	return rc;
}

/* g/combinations/{expression, value, uncertainty}. */
static int
rs_combos(struct rs_w *w, const char *g, const struct het_results_fit *f,
    struct het_error *err)
{
	size_t n = f->ncombos, k;
	const char **ex;
	double *val, *unc;
	char path[RS_PATH_MAX];
	int rc = HET_ENOMEM;

	ex = het_alloc_array(n, sizeof(*ex), "combinations", err);
	val = het_alloc_array(n, sizeof(double), "combinations", err);
	unc = het_alloc_array(n, sizeof(double), "combinations", err);
	if (ex != NULL && val != NULL && unc != NULL) {
		for (k = 0; k < n; k++) {
			ex[k] = f->combos[k].expr;
			val[k] = f->combos[k].value;
			unc[k] = f->combos[k].unc;
		}
		if ((rc = het_rs_strs(w, rs_path(path, g,
		    "combinations/expression"), n, ex, err)) == HET_OK &&
		    (rc = het_rs_f64(w, rs_path(path, g, "combinations/value"),
		    n,
		    val, err)) == HET_OK)
			rc = het_rs_f64(w, rs_path(path, g,
			    "combinations/uncertainty"), n, unc, err);
	}
	free(ex);
	free(val);
	free(unc);
	return rc;
}

static int
rs_fit(struct rs_w *w, const struct het_results *res, size_t k,
    int checkpoint, struct het_error *err)
{
	const struct het_results_fit *f = &res->fits[k];
	struct rs_view v;
	char g[64], path[RS_PATH_MAX];
	int rc;

	if (res->per_angle)
		snprintf(g, sizeof(g), "/fit_angle_%03ld", f->angle);
	else
		snprintf(g, sizeof(g), "/fit");
	if ((rc = het_rs_view_init(res, k, &v, err)) != HET_OK)
		return rc;
	if ((rc = het_rs_ai64(w, g, "angle", f->angle, err)) ||
	    (rc = het_rs_af64(w, g, "cost", f->cost, err)) ||
	    (rc = het_rs_af64(w, g, "rss", f->rss, err)) ||
	    (rc = het_rs_af64(w, g, "chi2", f->chi2, err)) ||
	    (rc = het_rs_af64(w, g, "chi2_red", f->chi2_red, err)) ||
	    (rc = het_rs_af64(w, g, "sigma", f->sigma, err)) ||
	    (rc = het_rs_ai64(w, g, "dof", f->dof, err)) ||
	    (rc = het_rs_ai64(w, g, "iterations", f->iterations, err)) ||
	    (rc = het_rs_ai64(w, g, "nfev", f->nfev, err)) ||
	    (rc = het_rs_ai64(w, g, "njev", f->njev, err)) ||
	    (rc = het_rs_af64(w, g, "wall_time", f->wall_time, err)) ||
	    (rc = het_rs_astr(w, g, "reason", f->reason, err)) ||
	    (rc = het_rs_ai64(w, g, "converged", f->converged, err)) ||
	    (rc = het_rs_astr(w, g, "message", f->message, err)) ||
	    (rc = het_rs_ai64(w, g, "rank", (long)f->rank, err)) ||
	    (rc = het_rs_ai64(w, g, "uncertainties_computed", !f->unc_skipped,
	    err)) ||
	    (rc = het_rs_ai64(w, g, "best_start", (long)f->best, err)))
		goto out;
	if ((rc = rs_table(w, g, &v, err)) != HET_OK)
		goto out;
	snprintf(path, sizeof(path), "%s/free_names", g);
	if ((rc = het_rs_strs(w, path, f->p, f->names, err)) != HET_OK)
		goto out;
	if (f->cov != NULL) {
		snprintf(path, sizeof(path), "%s/covariance", g);
		if ((rc = het_rs_mat(w, path, f->p, f->p, f->cov,
		    err)) != HET_OK)
			goto out;
	}
	if (f->corr != NULL) {
		snprintf(path, sizeof(path), "%s/correlation", g);
		if ((rc = het_rs_mat(w, path, f->p, f->p, f->corr,
		    err)) != HET_OK)
			goto out;
	}
	if (f->ncombos > 0 && (rc = rs_combos(w, g, f, err)) != HET_OK)
		goto out;
	snprintf(path, sizeof(path), "%s/contrast", g);
	if ((rc = het_rs_f64(w, path, v.nangles, v.contrast + v.first_angle,
	    err)) != HET_OK)
		goto out;
	snprintf(path, sizeof(path), "%s/offset", g);
	if ((rc = het_rs_f64(w, path, v.nangles, v.offset + v.first_angle,
	    err)) != HET_OK)
		goto out;
	if ((rc = rs_starts(w, g, f, err)) != HET_OK)
		goto out;
	if (!checkpoint)
		rc = rs_matrices(w, g, res, &v, err);
out:
	het_rs_view_fini(&v);
	return rc;
}

int
het_rs_open(struct rs_w *w, const char *path, struct het_error *err)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->fid = w->lcpl = w->str = -1;
	w->file = path;
	if ((rc = het_h5_prepare(err)) != HET_OK)
		return rc;
	w->lcpl = H5Pcreate(H5P_LINK_CREATE);
	w->str = H5Tcopy(H5T_C_S1);
	if (w->lcpl < 0 || H5Pset_create_intermediate_group(w->lcpl, 1) < 0 ||
	    w->str < 0 || H5Tset_size(w->str, H5T_VARIABLE) < 0 ||
	    H5Tset_cset(w->str, H5T_CSET_UTF8) < 0)
		return het_error_set(err, HET_EINTERNAL, "HDF5 refuses a "
		    "property list or string type");
	w->fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (w->fid < 0)
		return het_rs_fail(w, "the file", err);
	return HET_OK;
}

int
het_rs_close(struct rs_w *w, int rc, struct het_error *err)
{
	if (w->fid > 0 && H5Fclose(w->fid) < 0 && rc == HET_OK)
		rc = het_rs_fail(w, "the file (close)", err);
	if (w->str > 0)
		H5Tclose(w->str);
	if (w->lcpl > 0)
		H5Pclose(w->lcpl);
	w->fid = w->str = w->lcpl = -1;
	return rc;
}

int
het_rs_h5_write(const char *path, const struct het_results *res,
    const char *stamp, int checkpoint, struct het_error *err)
{
	struct rs_w w;
	size_t k;
	int rc;

	if ((rc = het_rs_open(&w, path, err)) != HET_OK)
		goto out;
	if ((rc = rs_root(&w, res, stamp, err)) != HET_OK ||
	    (rc = rs_data_group(&w, res, err)) != HET_OK ||
	    (rc = rs_history(&w, res, err)) != HET_OK ||
	    (rc = rs_warnings(&w, res, err)) != HET_OK)
		goto out;
	for (k = 0; k < res->nfits; k++)
		if ((rc = rs_fit(&w, res, k, checkpoint, err)) != HET_OK)
			goto out;
	if (res->cmc != NULL)
		rc = het_rs_h5_cmc(&w, res->cmc, err);
out:
	return het_rs_close(&w, rc, err);
}
