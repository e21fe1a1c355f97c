#include "config.h"

/*
 * het_results_run.c: a run folder's hetui_results.h5 read back whole for
 * its figures (het_results_run.h).
 *
 * Design: one pass over the file with the loaders' shared helpers
 * (het_rl_strings, het_rl_attr, het_h5_read_vector).  What every figure
 * needs (the /data selection and a parameter table) must be there and
 * well-shaped, else the error names the file and the path; the /cmc
 * group is optional (a fit), but when present its parameter names and
 * shard table must be complete.  A shard's draws are read only when it
 * is done; the summaries are the ones the run wrote.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "het_h5_impl.h"
#include "het_results.h"
#include "het_results_impl.h"
#include "het_results_run.h"
#include "het_util.h"

#define RR_MAX	(1u << 24)	/* values of any vector read */

static void
rr_table_fini(struct het_results_table *t)
{
	het_rl_strings_free(t->name, t->n);
	het_rl_strings_free(t->unit, t->n);
	free(t->value);
	free(t->unc);
	free(t->lo);
	free(t->hi);
	free(t->vary);
	free(t->degen);
}

void
het_results_run_clear(struct het_results_run *r)
{
	size_t k;

	if (r == NULL)
		return;
	for (k = 0; r->tab != NULL && k < r->ntab; k++)
		rr_table_fini(&r->tab[k]);
	for (k = 0; r->shard != NULL && k < r->nshard; k++) {
		free(r->shard[k].rhat);
		free(r->shard[k].ess_bulk);
		free(r->shard[k].draws);
	}
	free(r->shard);
	free(r->tab);
	free(r->file);
	free(r->phi);
	free(r->data_file);
	free(r->bins);
	het_rl_strings_free(r->cmc_names, r->p);
	free(r->nlsq);
	free(r->draws);
	memset(r, 0, sizeof(*r));
}

/* Exactly n numbers at path (n 0: any length, returned in *got). */
static int
rr_vec(hid_t fid, const char *file, const char *path, size_t n,
    double **out, size_t *got, struct het_error *err)
{
	size_t m = 0;
	int rc;

	*out = NULL;
	rc = het_h5_read_vector(fid, path, n > 0 ? n : RR_MAX, out, &m, err);
	if (rc == HET_OK && (n == 0 || m == n)) {
		if (got != NULL)
			*got = m;
		return HET_OK;
	}
	free(*out);
	*out = NULL;
	if (rc == HET_ENOMEM)
		return rc;
	return het_error_set(err, HET_EFORMAT, "%s: %s %s; the file is "
	    "damaged or was not written by hetui fit or hetui sample: run "
	    "the fit again", file, path, rc == HET_ENOTFOUND ? "is missing" :
	    rc != HET_OK ? "is not a vector of numbers" : "has the wrong "
	    "length");
}

/*
 * The rows x cols matrix of numbers at path, in a new array; *rows 0
 * takes any number of rows (at least one) and returns it.
 */
static int
rr_matrix(hid_t fid, const char *file, const char *path, size_t *rows,
    size_t cols, double **out, struct het_error *err)
{
	hid_t ds = -1, sp = -1;
	hsize_t dim[2] = { 0, 0 };
	int rc = HET_OK;

	*out = NULL;
	if (H5Lexists(fid, path, H5P_DEFAULT) <= 0)
		return het_error_set(err, HET_EFORMAT, "%s: %s is missing",
		    file, path);
	if ((ds = H5Dopen2(fid, path, H5P_DEFAULT)) < 0 ||
	    (sp = H5Dget_space(ds)) < 0 ||
	    H5Sget_simple_extent_ndims(sp) != 2 ||
	    H5Sget_simple_extent_dims(sp, dim, NULL) < 0 ||
	    dim[0] == 0 || (*rows != 0 && dim[0] != *rows) ||
	    dim[1] != cols)
		rc = het_error_set(err, HET_EFORMAT, "%s: %s is not a matrix "
		    "of %zu columns%s", file, path, cols, *rows != 0 ?
		    " and the rows its attributes say" : "");
	else if ((*out = het_alloc_array((size_t)dim[0] * cols,
	    sizeof(double), path, err)) == NULL)
		rc = HET_ENOMEM;
	else if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
	    H5P_DEFAULT, *out) < 0)
		rc = het_error_set(err, HET_EFORMAT, "%s: cannot read %s",
		    file, path);
	if (rc != HET_OK) {
		free(*out);
		*out = NULL;
	} else
		*rows = (size_t)dim[0];
	if (sp >= 0)
		H5Sclose(sp);
	if (ds >= 0)
		H5Dclose(ds);
	return rc;
}

/* A numeric attribute that must be there (finite). */
static int
rr_attr(hid_t fid, const char *file, const char *path, const char *name,
    double *v, struct het_error *err)
{
	*v = het_rl_attr(fid, path, name);
	if (isfinite(*v))
		return HET_OK;
	return het_error_set(err, HET_EFORMAT, "%s: %s lacks the numeric "
	    "attribute %s; the file is damaged or too old: run the fit "
	    "again", file, path, name);
}

static int
rr_table(hid_t fid, const char *file, struct het_results_table *t,
    struct het_error *err)
{
	static const char *const col[] = { "value", "uncertainty", "lower",
	    "upper", "vary", "degenerate" };
	double **dst[6];
	char path[96], g[40];
	size_t k, nu = 0;
	int rc;

	dst[0] = &t->value;
	dst[1] = &t->unc;
	dst[2] = &t->lo;
	dst[3] = &t->hi;
	dst[4] = &t->vary;
	dst[5] = &t->degen;
	snprintf(g, sizeof(g), "/%s", t->group);
	snprintf(path, sizeof(path), "%s/parameters/name", g);
	if ((rc = het_rl_strings(fid, file, path, "", &t->name, &t->n,
	    err)) != HET_OK)
		return rc;
	snprintf(path, sizeof(path), "%s/parameters/unit", g);
	if ((rc = het_rl_strings(fid, file, path, "", &t->unit, &nu,
	    err)) != HET_OK)
		return rc;
	if (nu != t->n || t->n == 0)
		return het_error_set(err, HET_EFORMAT, "%s: %s/parameters has "
		    "%zu names and %zu units", file, g, t->n, nu);
	for (k = 0; k < 6; k++) {
		snprintf(path, sizeof(path), "%s/parameters/%s", g, col[k]);
		if ((rc = rr_vec(fid, file, path, t->n, dst[k], NULL,
		    err)) != HET_OK)
			return rc;
	}
	t->chi2_red = het_rl_attr(fid, g, "chi2_red");
	t->converged = isfinite(het_rl_attr(fid, g, "converged")) ?
	    het_rl_attr(fid, g, "converged") != 0 : -1;
	return HET_OK;
}

static int
rr_tables(hid_t fid, struct het_results_run *r, struct het_error *err)
{
	size_t k;
	int rc = HET_OK;

	r->ntab = r->per_angle ? r->nangles : 1;
	if ((r->tab = het_alloc_array(r->ntab, sizeof(*r->tab), "tables",
	    err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < r->ntab && rc == HET_OK; k++) {
		struct het_results_table *t = &r->tab[k];

		t->angle = r->per_angle ? k : 0;
		if (r->per_angle)
			snprintf(t->group, sizeof(t->group), "fit_angle_%03zu",
			    k);
		else
			snprintf(t->group, sizeof(t->group), "fit");
		rc = rr_table(fid, r->file, t, err);
	}
	return rc;
}

/* One shard: its table row (state, id) and, when done, its group. */
static int
rr_shard(hid_t fid, const char *file, size_t p,
    struct het_results_run_shard *s, struct het_error *err)
{
	char g[64], path[96];
	double nc, nd;
	size_t rows;
	int rc;

	if (strcmp(s->state, "done") != 0)
		return HET_OK;
	snprintf(g, sizeof(g), "/cmc/shard_%04ld", s->id);
	snprintf(path, sizeof(path), "%s/r_hat", g);
	if ((rc = rr_vec(fid, file, path, p, &s->rhat, NULL, err)) != HET_OK)
		return rc;
	snprintf(path, sizeof(path), "%s/ess_bulk", g);
	if ((rc = rr_vec(fid, file, path, p, &s->ess_bulk, NULL,
	    err)) != HET_OK)
		return rc;
	nc = het_rl_attr(fid, g, "n_chains");
	nd = het_rl_attr(fid, g, "n_draws");
	if (!(nc >= 1 && nc < 1e4 && nd >= 1 && nd < 1e8))
		return het_error_set(err, HET_EFORMAT, "%s: %s lacks valid "
		    "n_chains and n_draws attributes", file, g);
	s->nchain = (size_t)nc;
	s->ndraw = (size_t)nd;
	snprintf(path, sizeof(path), "%s/draws", g);
	rows = s->nchain * p;
	return rr_matrix(fid, file, path, &rows, s->ndraw, &s->draws, err);
}

static int
rr_cmc(hid_t fid, struct het_results_run *r, struct het_error *err)
{
	const char *file = r->file;
	char **state = NULL;
	double *id = NULL;
	size_t ns = 0, nid = 0, k;
	int rc;

	r->has_cmc = 1;
	het_h5_attr_string(fid, "/cmc", "status", r->cmc_status,
	    sizeof(r->cmc_status));
	if ((rc = het_rl_strings(fid, file, "/cmc/parameter_names", "",
	    &r->cmc_names, &r->p, err)) != HET_OK)
		return rc;
	if (r->p == 0)
		return het_error_set(err, HET_EFORMAT, "%s: "
		    "/cmc/parameter_names is empty", file);
	if ((rc = rr_vec(fid, file, "/cmc/summary/nlsq", r->p, &r->nlsq,
	    NULL, err)) != HET_OK)
		return rc;
	if (H5Lexists(fid, "/cmc/consensus", H5P_DEFAULT) > 0 &&
	    H5Lexists(fid, "/cmc/consensus/draws", H5P_DEFAULT) > 0 &&
	    (rc = rr_matrix(fid, file, "/cmc/consensus/draws", &r->ndraw,
	    r->p, &r->draws, err)) != HET_OK)
		return rc;
	if ((rc = het_rl_strings(fid, file, "/cmc/shards/state", "", &state,
	    &ns, err)) != HET_OK ||
	    (rc = rr_vec(fid, file, "/cmc/shards/id", ns, &id, &nid,
	    err)) != HET_OK)
		goto out;
	if ((r->shard = het_alloc_array(ns > 0 ? ns : 1, sizeof(*r->shard),
	    "shards", err)) == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	r->nshard = ns;
	for (k = 0; k < ns && rc == HET_OK; k++) {
		if (!(id[k] >= 0 && id[k] < 1e6)) {
			rc = het_error_set(err, HET_EFORMAT, "%s: "
			    "/cmc/shards/id[%zu] is not a shard id", file, k);
			break;
		}
		r->shard[k].id = (long)id[k];
		snprintf(r->shard[k].state, sizeof(r->shard[k].state), "%s",
		    state[k]);
		rc = rr_shard(fid, file, r->p, &r->shard[k], err);
	}
out:
	het_rl_strings_free(state, ns);
	free(id);
	return rc;
}

/*
 * The data file and the bins the run was fitted on (optional: a file
 * without them leaves both NULL; bins that are not indices are a damaged
 * file).
 */
static int
rr_data_file(hid_t fid, struct het_results_run *r, struct het_error *err)
{
	char buf[4096];
	double *b = NULL;
	size_t k, m = 0;
	int rc;

	if (het_h5_attr_string(fid, "/data", "file", buf, sizeof(buf)) == 0 &&
	    buf[0] != '\0' && (r->data_file = het_strdup(buf, err)) == NULL)
		return HET_ENOMEM;
	if (H5Lexists(fid, "/data/bin_index", H5P_DEFAULT) <= 0)
		return HET_OK;
	if ((rc = rr_vec(fid, r->file, "/data/bin_index", r->nangles, &b,
	    &m, err)) != HET_OK)
		return rc;
	if ((r->bins = het_alloc_array(r->nangles, sizeof(size_t), "bins",
	    err)) == NULL) {
		free(b);
		return HET_ENOMEM;
	}
	for (k = 0; k < r->nangles; k++) {
		if (!(b[k] >= 0 && b[k] < 1e9 && b[k] == floor(b[k]))) {
			rc = het_error_set(err, HET_EFORMAT, "%s: "
			    "/data/bin_index[%zu] is %g, not a bin index; the "
			    "file is damaged: run the fit again", r->file, k,
			    b[k]);
			free(b);
			return rc;
		}
		r->bins[k] = (size_t)b[k];
	}
	free(b);
	return HET_OK;
}

static int
rr_file(hid_t fid, struct het_results_run *r, int whole,
    struct het_error *err)
{
	const char *file = r->file;
	char fmt[64];
	double v;
	int rc;

	het_h5_attr_string(fid, "/", "format", fmt, sizeof(fmt));
	if (strcmp(fmt, HET_RESULTS_FORMAT) != 0)
		return het_error_set(err, HET_EFORMAT, "%s is an HDF5 file but "
		    "not a hetui results file (its format attribute is "
		    "\"%s\", not \"%s\"): give the folder hetui fit or hetui "
		    "sample wrote", file, fmt, HET_RESULTS_FORMAT);
	het_h5_attr_string(fid, "/", "status", r->status, sizeof(r->status));
	het_h5_attr_string(fid, "/config", "analysis_mode", r->mode,
	    sizeof(r->mode));
	v = het_rl_attr(fid, "/", "per_angle");
	r->per_angle = isfinite(v) && v != 0;
	if ((rc = rr_attr(fid, file, "/data", "dt", &r->dt, err)) ||
	    (rc = rr_attr(fid, file, "/data", "q", &r->q, err)) ||
	    (rc = rr_attr(fid, file, "/data", "first_frame", &v, err)))
		return rc;
	r->first_frame = (long)v;
	if ((rc = rr_attr(fid, file, "/data", "n_frames", &v, err)))
		return rc;
	if (!(r->dt > 0) || !(v >= 2 && v < 1e7))
		return het_error_set(err, HET_EFORMAT, "%s: /data has dt %g "
		    "and n_frames %g; a report needs dt > 0 and at least 2 "
		    "frames", file, r->dt, v);
	r->n_frames = (size_t)v;
	if ((rc = rr_vec(fid, file, "/data/phi", 0, &r->phi, &r->nangles,
	    err)) != HET_OK)
		return rc;
	if (r->nangles == 0)
		return het_error_set(err, HET_EFORMAT, "%s: /data/phi is "
		    "empty", file);
	if ((rc = rr_data_file(fid, r, err)) != HET_OK || !whole)
		return rc;
	if ((rc = rr_tables(fid, r, err)) != HET_OK)
		return rc;
	if (H5Lexists(fid, "/cmc", H5P_DEFAULT) > 0)
		return rr_cmc(fid, r, err);
	return HET_OK;
}

static int
rr_load(const char *dir, struct het_results_run *out, int whole,
    struct het_error *err)
{
	hid_t fid;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = het_h5_prepare(err)) != HET_OK)
		return rc;
	if ((out->file = het_rl_join(dir, HET_RESULTS_H5, err)) == NULL)
		return HET_ENOMEM;
	if (access(out->file, F_OK) != 0) {
		rc = het_error_set(err, HET_ENOTFOUND, "%s is not a run "
		    "folder: it has no %s (a run folder is what hetui fit or "
		    "hetui sample wrote; the command printed its name)", dir,
		    HET_RESULTS_H5);
		het_results_run_clear(out);
		return rc;
	}
	if ((fid = H5Fopen(out->file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
		rc = het_error_set(err, HET_EFORMAT, "%s is not an HDF5 file "
		    "that can be opened (damaged or truncated?): run the fit "
		    "again", out->file);
		het_results_run_clear(out);
		return rc;
	}
	rc = rr_file(fid, out, whole, err);
	H5Fclose(fid);
	if (rc != HET_OK)
		het_results_run_clear(out);
	return rc;
}

int
het_results_run_load(const char *dir, struct het_results_run *out,
    struct het_error *err)
{
	return rr_load(dir, out, 1, err);
}

int
het_results_run_load_sel(const char *dir, struct het_results_run *out,
    struct het_error *err)
{
	return rr_load(dir, out, 0, err);
}
