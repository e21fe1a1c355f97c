#include "config.h"
/*
 * t_core_results_mat.c: het_results_load_matrix on hand-made files: the
 * packed upper triangles of format_version 2 (with and without the
 * diagonal, float32 and float64) mirror to the full symmetric matrix, a
 * version-1 N x N matrix reads as it is, and every error path: a missing
 * file, a file that is not HDF5, a missing group or angle, a packed
 * length that does not match n_frames, an unknown storage, a non-square
 * matrix.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "het_h5.h"
#include "het_results.h"
#include "tap.h"

static void
astr(hid_t ds, const char *name, const char *v)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a;

	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	a = H5Acreate2(ds, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, t, &v);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
}

static void
ai64(hid_t ds, const char *name, long long v)
{
	hid_t sp = H5Screate(H5S_SCALAR), a;

	a = H5Acreate2(ds, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, H5T_NATIVE_LLONG, &v);
	H5Aclose(a);
	H5Sclose(sp);
}

/* A dataset path of rank 1 (d1 == 0) or 2 in file f, from doubles. */
static void
put(hid_t f, const char *path, hid_t ftype, hsize_t d0, hsize_t d1,
    const double *v, const char *storage, long long nf)
{
	hsize_t dims[2] = { d0, d1 };
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), sp, ds;

	H5Pset_create_intermediate_group(lcpl, 1);
	sp = H5Screate_simple(d1 > 0 ? 2 : 1, dims, NULL);
	ds = H5Dcreate2(f, path, ftype, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
	if (storage != NULL)
		astr(ds, "storage", storage);
	if (nf > 0)
		ai64(ds, "n_frames", nf);
	H5Dclose(ds);
	H5Sclose(sp);
	H5Pclose(lcpl);
}

int
main(void)
{
	/* the 4 x 4 matrix m[i][j] = 1.0137 + 0.0291 (i + 1) (j + 1) */
	double full[16], up[10], strict[6], *m = NULL, worst;
	char tmp[256], file[512], junk[512], cmd[600];
	struct het_error err;
	size_t i, j, k, n;
	hid_t f;
	FILE *fp;
	int bad;

	plan_lazy();
	if (het_h5_library_init(&err) != HET_OK)
		skip_all("HDF5 cannot start");
	if (tap_tmpdir(tmp, sizeof(tmp), "t_core_results_mat") == NULL)
		skip_all("no temporary directory");
	for (i = 0, k = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			full[i * 4 + j] = 1.0137 + 0.0291 * (double)((i + 1) *
			    (j + 1));
	for (i = 0, k = 0; i < 4; i++)
		for (j = i; j < 4; j++)
			up[k++] = full[i * 4 + j];
	for (i = 0, k = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++)
			strict[k++] = full[i * 4 + j];
	snprintf(file, sizeof(file), "%s/r.h5", tmp);
	f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	put(f, "/fit/c2_fitted/angle_000", H5T_IEEE_F64LE, 10, 0, up,
	    HET_RESULTS_UPPER_DIAG, 4);
	put(f, "/fit/c2_fitted/angle_001", H5T_IEEE_F32LE, 10, 0, up,
	    HET_RESULTS_UPPER_DIAG, 4);
	put(f, "/fit/residuals/angle_000", H5T_IEEE_F64LE, 6, 0, strict,
	    HET_RESULTS_UPPER, 4);
	put(f, "/fit_angle_003/c2_fitted/angle_003", H5T_IEEE_F64LE, 4, 4,
	    full, NULL, 0);
	put(f, "/bad/c2_fitted/angle_000", H5T_IEEE_F64LE, 7, 0, up,
	    HET_RESULTS_UPPER_DIAG, 4);
	put(f, "/bad/c2_fitted/angle_001", H5T_IEEE_F64LE, 10, 0, up,
	    "lower_triangle", 4);
	put(f, "/bad/c2_fitted/angle_002", H5T_IEEE_F64LE, 2, 5, up, NULL, 0);
	H5Fclose(f);

	het_error_clear(&err);
	ok(het_results_load_matrix(file, "fit", "c2_fitted", 0, &m, &n,
	    &err) == HET_OK && n == 4 && memcmp(m, full, sizeof(full)) == 0,
	    "packed float64 with the diagonal: the full matrix, bit for bit");
	free(m);
	ok(het_results_load_matrix(file, "fit", "c2_fitted", 1, &m, &n,
	    &err) == HET_OK && n == 4, "packed float32: read");
	for (k = 0, worst = 0, bad = 0; m != NULL && k < 16; k++) {
		double d = m[k] - full[k];

		worst = d < 0 ? (-d > worst ? -d : worst) : (d > worst ? d :
		    worst);
		bad += m[k] != (double)(float)full[k];
	}
	ok(bad == 0 && worst < 1.2e-7 * 1.2, "... every value the float32 "
	    "rounding of the original (largest difference %.2g)", worst);
	free(m);
	ok(het_results_load_matrix(file, "fit", "residuals", 0, &m, &n,
	    &err) == HET_OK && n == 4, "packed without the diagonal: read");
	for (i = 0, bad = 0; m != NULL && i < 4; i++)
		for (j = 0; j < 4; j++)
			bad += m[i * 4 + j] != (i == j ? 0.0 : full[i * 4 + j]);
	is_int(bad, 0, "... symmetric, the diagonal 0");
	free(m);
	ok(het_results_load_matrix(file, "fit_angle_003", "c2_fitted", 3, &m,
	    &n, &err) == HET_OK && n == 4 && memcmp(m, full, sizeof(full)) ==
	    0, "format_version 1: the N x N dataset as it is");
	free(m);

	/* errors */
	m = (double *)1;
	is_int(het_results_load_matrix("/nonexistent/r.h5", "fit", "c2_fitted",
	    0, &m, &n, &err), HET_ENOTFOUND, "a missing file: HET_ENOTFOUND");
	ok(m == NULL && n == 0, "... *out NULL, *n 0");
	like(err.msg, "/nonexistent/r.h5 does not exist", "... names it");
	snprintf(junk, sizeof(junk), "%s/junk.h5", tmp);
	if ((fp = fopen(junk, "w")) != NULL) {
		fputs("not an HDF5 file\n", fp);
		fclose(fp);
	}
	is_int(het_results_load_matrix(junk, "fit", "c2_fitted", 0, &m, &n,
	    &err), HET_EFORMAT, "not HDF5: HET_EFORMAT");
	like(err.msg, "is not an HDF5 file", "... says so");
	is_int(het_results_load_matrix(file, "fit_angle_000", "c2_fitted", 0,
	    &m, &n, &err), HET_ENOTFOUND, "a missing group: HET_ENOTFOUND");
	is_int(het_results_load_matrix(file, "fit", "c2_fitted", 7, &m, &n,
	    &err), HET_ENOTFOUND, "a missing angle: HET_ENOTFOUND");
	like(err.msg, "has no /fit/c2_fitted/angle_007", "... names the path");
	is_int(het_results_load_matrix(file, "bad", "c2_fitted", 0, &m, &n,
	    &err), HET_EFORMAT, "7 values for n_frames 4: HET_EFORMAT");
	like(err.msg, "holds 7 values, not the upper triangle its attributes "
	    "describe (storage 'upper_triangle_with_diagonal', n_frames 4)",
	    "... says what does not match");
	is_int(het_results_load_matrix(file, "bad", "c2_fitted", 1, &m, &n,
	    &err), HET_EFORMAT, "an unknown storage: HET_EFORMAT");
	like(err.msg, "storage 'lower_triangle'", "... names it");
	is_int(het_results_load_matrix(file, "bad", "c2_fitted", 2, &m, &n,
	    &err), HET_EFORMAT, "2 x 5: HET_EFORMAT");
	like(err.msg, "is 2 x 5, not square", "... says so");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("could not remove %s", tmp);
	return exit_status();
}
