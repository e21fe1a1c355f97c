#include "config.h"
/*
 * het_results_load_mat.c: a fitted or residual matrix of a results file
 * read back as a full N x N matrix (het_results_load_matrix).
 *
 * Design: the file stores the upper triangle of each matrix, row by row
 * (format_version 2; the "storage" attribute says whether the diagonal
 * is in it), and the reader mirrors it; a version-1 file's full N x N
 * dataset is read as it is.  HDF5 converts float32 to double on reading.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "het_h5_impl.h"
#include "het_results.h"
#include "het_util.h"

/* The string attribute name of obj into buf, or "" (len > 0). */
static void
lm_astr(hid_t obj, const char *name, char *buf, size_t len)
{
	hid_t a, t;
	char *s = NULL;

	buf[0] = '\0';
	if (H5Aexists(obj, name) <= 0 || (a = H5Aopen(obj, name,
	    H5P_DEFAULT)) < 0)
		return;
	t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	if (H5Aread(a, t, &s) >= 0 && s != NULL) {
		snprintf(buf, len, "%s", s);
		H5free_memory(s);
	}
	H5Tclose(t);
	H5Aclose(a);
}

/* The int64 attribute name of obj, or -1. */
static long long
lm_ai64(hid_t obj, const char *name)
{
	long long v = -1;
	hid_t a;

	if (H5Aexists(obj, name) <= 0 || (a = H5Aopen(obj, name,
	    H5P_DEFAULT)) < 0)
		return -1;
	if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0)
		v = -1;
	H5Aclose(a);
	return v;
}

/* Unpack the upper triangle t of side n into the symmetric full m. */
static void
lm_unpack(const double *t, size_t n, int diag, double *m)
{
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		if (!diag)
			m[i * n + i] = 0.0;
		for (j = diag ? i : i + 1; j < n; j++, k++)
			m[i * n + j] = m[j * n + i] = t[k];
	}
}

int
het_results_load_matrix(const char *file, const char *group,
    const char *what, size_t angle, double **out, size_t *n,
    struct het_error *err)
{
	char path[256], storage[64];
	hsize_t dims[2] = { 0, 0 };
	hid_t fid = -1, ds = -1, sp = -1;
	double *t = NULL, *m = NULL;
	long long nf;
	size_t len, side;
	int rank, diag, rc = HET_OK;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/%s/%s/angle_%03zu", group, what, angle);
	if (access(file, F_OK) != 0)
		return het_error_set(err, HET_ENOTFOUND, "%s does not exist",
		    file);
	if ((fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return het_error_set(err, HET_EFORMAT, "%s is not an HDF5 "
		    "file hetui can read", file);
	if (H5Lexists(fid, group, H5P_DEFAULT) <= 0 ||
	    H5Lexists(fid, path, H5P_DEFAULT) <= 0) {
		rc = het_error_set(err, HET_ENOTFOUND, "%s has no %s",
		    file, path);
		goto out;
	}
	if ((ds = H5Dopen2(fid, path, H5P_DEFAULT)) < 0 ||
	    (sp = H5Dget_space(ds)) < 0 ||
	    (rank = H5Sget_simple_extent_ndims(sp)) < 1 || rank > 2 ||
	    H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
		rc = het_error_set(err, HET_EFORMAT, "%s: %s is not a matrix",
		    file, path);
		goto out;
	}
	lm_astr(ds, "storage", storage, sizeof(storage));
	nf = lm_ai64(ds, "n_frames");
	diag = strcmp(storage, HET_RESULTS_UPPER_DIAG) == 0;
	if (rank == 2) {
		/* format_version 1: the full matrix */
		side = (size_t)dims[0];
		len = side * side;
		if (dims[0] != dims[1]) {
			rc = het_error_set(err, HET_EFORMAT, "%s: %s is %llu x "
			    "%llu, not square", file, path,
			    (unsigned long long)dims[0],
			    (unsigned long long)dims[1]);
			goto out;
		}
	} else {
		side = nf > 0 ? (size_t)nf : 0;
		len = diag ? side * (side + 1) / 2 : side * (side - 1) / 2;
		if ((!diag && strcmp(storage, HET_RESULTS_UPPER) != 0) ||
		    side == 0 || (size_t)dims[0] != len) {
			rc = het_error_set(err, HET_EFORMAT, "%s: %s holds %llu "
			    "values, not the upper triangle its attributes "
			    "describe (storage '%s', n_frames %lld)", file,
			    path, (unsigned long long)dims[0], storage, nf);
			goto out;
		}
	}
	if ((m = het_alloc_array(side * side, sizeof(double), "matrix",
	    err)) == NULL || (rank == 1 && (t = het_alloc_array(len,
	    sizeof(double), "matrix", err)) == NULL)) {
		rc = HET_ENOMEM;
		goto out;
	}
	if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    rank == 2 ? m : t) < 0) {
		rc = het_error_set(err, HET_EIO, "%s: cannot read %s", file,
		    path);
		goto out;
	}
	if (rank == 1)
		lm_unpack(t, side, diag, m);
	*out = m;
	*n = side;
	m = NULL;
out:
	free(t);
	free(m);
	if (sp >= 0)
		H5Sclose(sp);
	if (ds >= 0)
		H5Dclose(ds);
	if (fid >= 0)
		H5Fclose(fid);
	return rc;
}
