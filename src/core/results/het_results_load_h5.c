/*
 * het_results_load_h5.c: reading a previous joint NLSQ result back
 * (het_results_load_nlsq), so that `hetui sample --nlsq-result DIR`
 * starts CMC from it without fitting again.
 *
 * Design: the reference-compatible nlsq_parameters.json is the first
 * choice (any tool that writes the heterodyne package's keys can seed
 * hetui), with nlsq_metadata.json for the convergence flag; without it,
 * hetui_results.h5 is read: the free parameter names of /fit and their
 * rows in the /fit/parameters table (names, values, uncertainties).
 * Every error names the file and the key.
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <jansson.h>

#include "het_h5_impl.h"
#include "het_results.h"
#include "het_results_impl.h"
#include "het_util.h"

#define RL_FIT_HINT	"; is this the results file of a joint hetui fit?"

static int rl_json_selection(json_t *meta, struct het_results_nlsq *n,
    struct het_error *err);

void
het_results_nlsq_clear(struct het_results_nlsq *n)
{
	size_t k;

	if (n == NULL)
		return;
	for (k = 0; n->names != NULL && k < n->p; k++)
		free(n->names[k]);
	free(n->names);
	free(n->x);
	free(n->unc);
	free(n->source);
	free(n->phi);
	memset(n, 0, sizeof(*n));
}

static int
rl_alloc(struct het_results_nlsq *n, size_t p, const char *path,
    struct het_error *err)
{
	n->p = p;
	n->names = het_alloc_array(p, sizeof(char *), "parameter names", err);
	n->x = het_alloc_array(p, sizeof(double), "parameters", err);
	n->unc = het_alloc_array(p, sizeof(double), "uncertainties", err);
	n->source = het_strdup(path, err);
	n->converged = -1;
	n->unc_computed = -1;
	n->chi2_red = NAN;
	if (n->names == NULL || n->x == NULL || n->unc == NULL ||
	    n->source == NULL) {
		n->p = n->names == NULL ? 0 : p;
		return HET_ENOMEM;
	}
	return HET_OK;
}

char *
het_rl_join(const char *dir, const char *name, struct het_error *err)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *s;

	if ((s = het_alloc_array(len, 1, "file name", err)) != NULL)
		snprintf(s, len, "%s/%s", dir, name);
	return s;
}

/* ---- JSON ---------------------------------------------------------------- */

static int
rl_json(const char *path, const char *meta, struct het_results_nlsq *n,
    struct het_error *err)
{
	json_error_t je;
	json_t *doc, *names, *vals, *unc, *v, *m;
	size_t p, k;
	int rc;

	if ((doc = json_load_file(path, 0, &je)) == NULL)
		return het_error_set(err, HET_EFORMAT, "%s:%d: not valid JSON: "
		    "%s", path, je.line, je.text);
	names = json_object_get(doc, "parameter_names");
	vals = json_object_get(doc, "parameters");
	unc = json_object_get(doc, "uncertainties");
	if (!json_is_array(names) || !json_is_array(vals)) {
		rc = het_error_set(err, HET_EFORMAT, "%s: the keys "
		    "parameter_names and parameters must be arrays (an NLSQ "
		    "result of hetui fit or heterodyne)", path);
		goto out;
	}
	p = json_array_size(names);
	if (p == 0 || json_array_size(vals) != p || (json_is_array(unc) &&
	    json_array_size(unc) != p)) {
		rc = het_error_set(err, HET_EFORMAT, "%s: parameter_names has "
		    "%zu entries, parameters %zu%s; they must agree and not be "
		    "empty", path, p, json_array_size(vals),
		    json_is_array(unc) ? " and uncertainties differs" : "");
		goto out;
	}
	if ((rc = rl_alloc(n, p, path, err)) != HET_OK)
		goto out;
	for (k = 0; k < p; k++) {
		v = json_array_get(names, k);
		if (!json_is_string(v)) {
			rc = het_error_set(err, HET_EFORMAT, "%s: "
			    "parameter_names[%zu] is not a string", path, k);
			goto out;
		}
		if ((n->names[k] = het_strdup(json_string_value(v), err)) ==
		    NULL) {
			rc = HET_ENOMEM;
			goto out;
		}
		v = json_array_get(vals, k);
		if (!json_is_number(v) || !isfinite(json_number_value(v))) {
			rc = het_error_set(err, HET_EFORMAT, "%s: parameters"
			    "[%zu] (%s) is not a finite number", path, k,
			    n->names[k]);
			goto out;
		}
		n->x[k] = json_number_value(v);
		v = json_is_array(unc) ? json_array_get(unc, k) : NULL;
		n->unc[k] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	json_decref(doc);
	doc = NULL;
	if (meta != NULL && (doc = json_load_file(meta, 0, &je)) != NULL) {
		if (json_is_boolean(m = json_object_get(doc, "success")))
			n->converged = json_is_true(m);
		if (json_is_boolean(m = json_object_get(doc,
		    "uncertainties_computed")))
			n->unc_computed = json_is_true(m);
		if (json_is_number(m = json_object_get(doc,
		    "reduced_chi_squared")))
			n->chi2_red = json_number_value(m);
		if ((rc = rl_json_selection(json_object_get(doc, "metadata"),
		    n, err)) != HET_OK)
			goto out;
	}
	rc = HET_OK;
out:
	json_decref(doc);
	return rc;
}

/* ---- HDF5 ---------------------------------------------------------------- */

void
het_rl_strings_free(char **s, size_t n)
{
	size_t k;

	for (k = 0; s != NULL && k < n; k++)
		free(s[k]);
	free(s);
}

int
het_rl_strings(hid_t fid, const char *file, const char *path, const char *hint,
    char ***out, size_t *n, struct het_error *err)
{
	hid_t ds = -1, sp = -1, t = -1;
	hsize_t dim = 0;
	char **raw = NULL;
	size_t k;
	int rc = HET_OK;

	*out = NULL;
	*n = 0;
	if (H5Lexists(fid, path, H5P_DEFAULT) <= 0)
		return het_error_set(err, HET_EFORMAT, "%s: %s is missing%s",
		    file, path, hint);
	if ((ds = H5Dopen2(fid, path, H5P_DEFAULT)) < 0 ||
	    (sp = H5Dget_space(ds)) < 0 ||
	    H5Sget_simple_extent_ndims(sp) != 1 ||
	    H5Sget_simple_extent_dims(sp, &dim, NULL) < 0 ||
	    H5Tget_class(t = H5Dget_type(ds)) != H5T_STRING ||
	    !H5Tis_variable_str(t)) {
		rc = het_error_set(err, HET_EFORMAT, "%s: %s is not a list of "
		    "strings", file, path);
		goto out;
	}
	if ((raw = het_alloc_array(dim > 0 ? dim : 1, sizeof(char *), path,
	    err)) == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if (dim > 0 && H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) <
	    0) {
		rc = het_error_set(err, HET_EFORMAT, "%s: cannot read %s", file,
		    path);
		goto out;
	}
	*out = het_alloc_array(dim > 0 ? dim : 1, sizeof(char *), path, err);
	for (k = 0; *out != NULL && k < dim; k++)
		if (((*out)[k] = het_strdup(raw[k] != NULL ? raw[k] : "",
		    err)) == NULL)
			break;
	if (*out == NULL || k < dim) {
		while (*out != NULL && k > 0)
			free((*out)[--k]);
		free(*out);
		*out = NULL;
		rc = HET_ENOMEM;
	} else
		*n = dim;
	if (dim > 0)
		H5Dvlen_reclaim(t, sp, H5P_DEFAULT, raw);
out:
	free(raw);
	if (t >= 0)
		H5Tclose(t);
	if (sp >= 0)
		H5Sclose(sp);
	if (ds >= 0)
		H5Dclose(ds);
	return rc;
}

double
het_rl_attr(hid_t fid, const char *path, const char *name)
{
	double v = NAN;
	hid_t a;

	if (H5Aexists_by_name(fid, path, name, H5P_DEFAULT) <= 0 ||
	    (a = H5Aopen_by_name(fid, path, name, H5P_DEFAULT,
	    H5P_DEFAULT)) < 0)
		return NAN;
	if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0)
		v = NAN;
	H5Aclose(a);
	return v;
}

/*
 * The angles and frames of nlsq_metadata.json's "metadata" (hetui's and
 * the heterodyne package's key names); absent or malformed: unknown.
 */
static int
rl_json_selection(json_t *meta, struct het_results_nlsq *n,
    struct het_error *err)
{
	json_t *phi = json_object_get(meta, "phi_angle"), *v;
	size_t k, np = json_is_array(phi) ? json_array_size(phi) : 0;

	v = json_object_get(meta, "start_frame");
	n->first_frame = json_is_integer(v) ? (long)json_integer_value(v) : 0;
	v = json_object_get(meta, "end_frame");
	n->last_frame = json_is_integer(v) ? (long)json_integer_value(v) : 0;
	for (k = 0; k < np; k++)
		if (!json_is_number(json_array_get(phi, k)))
			return HET_OK;
	if (np == 0)
		return HET_OK;
	if ((n->phi = het_alloc_array(np, sizeof(double), "phi", err)) ==
	    NULL)
		return HET_ENOMEM;
	for (k = 0; k < np; k++)
		n->phi[k] = json_number_value(json_array_get(phi, k));
	n->nphi = np;
	return HET_OK;
}

/* The same from hetui_results.h5: /data/phi and /data's frame window. */
static void
rl_h5_selection(hid_t fid, struct het_results_nlsq *n)
{
	struct het_error ignored;
	double f;

	if (het_h5_read_vector(fid, "/data/phi", 1u << 20, &n->phi, &n->nphi,
	    &ignored) != HET_OK) {
		n->phi = NULL;
		n->nphi = 0;
	}
	f = het_rl_attr(fid, "/data", "first_frame");
	n->first_frame = isfinite(f) ? (long)f : 0;
	f = het_rl_attr(fid, "/data", "last_frame");
	n->last_frame = isfinite(f) ? (long)f : 0;
}

/* rl_h5_selection from the file at path; nothing when it cannot open. */
static void
rl_h5_selection_file(const char *path, struct het_results_nlsq *n)
{
	struct het_error ignored;
	hid_t fid;

	if (het_h5_prepare(&ignored) != HET_OK ||
	    (fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return;
	rl_h5_selection(fid, n);
	H5Fclose(fid);
}

static int
rl_h5(const char *path, struct het_results_nlsq *n, struct het_error *err)
{
	char **free_names = NULL, **rows = NULL;
	double *val = NULL, *unc = NULL, c;
	size_t nf = 0, nr = 0, nv = 0, nu = 0, k, r;
	hid_t fid;
	int rc;

	if ((rc = het_h5_prepare(err)) != HET_OK)
		return rc;
	if ((fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return het_error_set(err, HET_EFORMAT, "%s is not an HDF5 file "
		    "that can be opened", path);
	if (H5Lexists(fid, "/fit", H5P_DEFAULT) <= 0) {
		rc = het_error_set(err, HET_EFORMAT, "%s has no /fit group "
		    "(a per-angle fit?); CMC needs a joint NLSQ result: run "
		    "'hetui fit' without --per-angle", path);
		goto out;
	}
	if ((rc = het_rl_strings(fid, path, "/fit/free_names", RL_FIT_HINT,
	    &free_names, &nf,
	    err)) != HET_OK ||
	    (rc = het_rl_strings(fid, path, "/fit/parameters/name", RL_FIT_HINT,
	    &rows, &nr,
	    err)) != HET_OK ||
	    (rc = het_h5_read_vector(fid, "/fit/parameters/value", nr, &val,
	    &nv, err)) != HET_OK ||
	    (rc = het_h5_read_vector(fid, "/fit/parameters/uncertainty", nr,
	    &unc, &nu, err)) != HET_OK) {
		if (rc == HET_ENOTFOUND)
			rc = HET_EFORMAT;
		if (rc != HET_ENOMEM && strstr(err->msg, path) == NULL)
			het_error_prefix(err, "%s", path);
		err->code = rc;
		goto out;
	}
	if (nv != nr || nu != nr || nf == 0) {
		rc = het_error_set(err, HET_EFORMAT, "%s: the /fit/parameters "
		    "table is inconsistent (%zu names, %zu values, %zu "
		    "uncertainties, %zu free parameters)", path, nr, nv, nu,
		    nf);
		goto out;
	}
	if ((rc = rl_alloc(n, nf, path, err)) != HET_OK)
		goto out;
	for (k = 0; k < nf; k++) {
		for (r = 0; r < nr && strcmp(rows[r], free_names[k]) != 0; r++)
			;
		if (r == nr) {
			rc = het_error_set(err, HET_EFORMAT, "%s: the free "
			    "parameter %s has no row in /fit/parameters", path,
			    free_names[k]);
			goto out;
		}
		n->names[k] = free_names[k];
		free_names[k] = NULL;
		n->x[k] = val[r];
		n->unc[k] = unc[r];
	}
	c = het_rl_attr(fid, "/fit", "converged");
	n->converged = isnan(c) || c < 0 ? -1 : c != 0;
	n->chi2_red = het_rl_attr(fid, "/fit", "chi2_red");
	c = het_rl_attr(fid, "/fit", "uncertainties_computed");
	n->unc_computed = isnan(c) || c < 0 ? -1 : c != 0;
	rl_h5_selection(fid, n);
	rc = HET_OK;
out:
	for (k = 0; free_names != NULL && k < nf; k++)
		free(free_names[k]);
	for (k = 0; rows != NULL && k < nr; k++)
		free(rows[k]);
	free(free_names);
	free(rows);
	free(val);
	free(unc);
	H5Fclose(fid);
	return rc;
}

int
het_results_load_nlsq(const char *dir, struct het_results_nlsq *out,
    struct het_error *err)
{
	char *pj = NULL, *pm = NULL, *ph = NULL, *pat = NULL;
	glob_t g;
	int rc = HET_ENOMEM;

	memset(out, 0, sizeof(*out));
	if ((pj = het_rl_join(dir, "nlsq_parameters.json", err)) == NULL ||
	    (pm = het_rl_join(dir, "nlsq_metadata.json", err)) == NULL ||
	    (ph = het_rl_join(dir, HET_RESULTS_H5, err)) == NULL ||
	    (pat = het_rl_join(dir, "nlsq_phi*_parameters.json", err)) == NULL)
		goto out;
	if (access(pj, R_OK) == 0) {
		rc = rl_json(pj, access(pm, R_OK) == 0 ? pm : NULL, out, err);
		/* no metadata: the angles and frames of the HDF5 file */
		if (rc == HET_OK && out->nphi == 0 && out->first_frame == 0 &&
		    access(ph, R_OK) == 0)
			rl_h5_selection_file(ph, out);
	} else if (access(ph, R_OK) == 0)
		rc = rl_h5(ph, out, err);
	else if (glob(pat, 0, NULL, &g) == 0) {
		globfree(&g);
		rc = het_error_set(err, HET_ENOTFOUND, "%s holds a per-angle "
		    "NLSQ result (nlsq_phi*_parameters.json); CMC needs a "
		    "joint one: run 'hetui fit' without --per-angle", dir);
	} else
		rc = het_error_set(err, HET_ENOTFOUND, "no NLSQ result in %s: "
		    "neither nlsq_parameters.json nor %s exists; run 'hetui "
		    "fit -o %s' first or leave out --nlsq-result", dir,
		    HET_RESULTS_H5, dir);
out:
	if (rc != HET_OK)
		het_results_nlsq_clear(out);
	free(pj);
	free(pm);
	free(ph);
	free(pat);
	return rc;
}

int
het_results_load_nlsq_h5(const char *dir, struct het_results_nlsq *out,
    struct het_error *err)
{
	char *ph;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((ph = het_results_resume_path(dir, err)) == NULL)
		return HET_ENOMEM;
	if (access(ph, R_OK) != 0)
		rc = het_error_set(err, HET_ENOTFOUND, "%s does not exist or "
		    "cannot be read", ph);
	else
		rc = rl_h5(ph, out, err);
	if (rc != HET_OK)
		het_results_nlsq_clear(out);
	free(ph);
	return rc;
}
