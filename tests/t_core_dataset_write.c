/*
 * t_core_dataset_write.c: the APS-U writer beyond what the readers test:
 * the §5.1 recipe as h5py and pyXpcsViewer see it (dtypes, attributes,
 * UTF-8 units, normalized_g2), matrices from a fill callback, every spec
 * check and its message, and atomicity: a failed write leaves neither a
 * temporary file nor a damaged old file.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "tap.h"

static char *dir;

static int
count_files(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d != NULL && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	if (d != NULL)
		closedir(d);
	return n;
}

static int
attr_str(hid_t fid, const char *obj, const char *name, char *buf, size_t len)
{
	hid_t d = H5Oopen(fid, obj, H5P_DEFAULT), a, t;
	char *s = NULL;
	int rc = -1;

	buf[0] = '\0';
	a = H5Aopen(d, name, H5P_DEFAULT);
	t = H5Aget_type(a);
	if (H5Tis_variable_str(t) > 0 && H5Tget_cset(t) == H5T_CSET_UTF8 &&
	    H5Aread(a, t, &s) >= 0 && s != NULL) {
		snprintf(buf, len, "%s", s);
		H5free_memory(s);
		rc = 0;
	}
	H5Tclose(t);
	H5Aclose(a);
	H5Oclose(d);
	return rc;
}

static H5T_class_t
type_of(hid_t fid, const char *path, size_t *size, H5T_sign_t *sign)
{
	hid_t d = H5Dopen2(fid, path, H5P_DEFAULT), t = H5Dget_type(d);
	H5T_class_t c = H5Tget_class(t);

	*size = H5Tget_size(t);
	*sign = c == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_ERROR;
	H5Tclose(t);
	H5Dclose(d);
	return c;
}

static void
test_recipe(void)
{
	struct het_apsu_spec spec;
	double **mats, lag[8], g2[8 * 4];
	char *path = fx_path(dir, "recipe.hdf"), buf[64];
	struct het_error err;
	H5T_sign_t sign;
	size_t size, i, k;
	hid_t fid, d, a;
	int64_t size_attr = 0;

	fx_apsu_basic(&spec, 2, 2, 8, &mats);
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK,
	    "write 2 x 2, 8 frames");
	fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ok(fid >= 0, "libhdf5 opens it");
	ok(attr_str(fid, "/xpcs/qmap/dynamic_v_list_dim0", "unit", buf,
	    sizeof(buf)) == 0 && strcmp(buf, "\xc3\x85\xe2\x81\xbb\xc2\xb9") ==
	    0, "q unit attribute is the UTF-8 string of the real files");
	ok(attr_str(fid, "/xpcs/qmap/dynamic_v_list_dim0", "name", buf,
	    sizeof(buf)) == 0 && strcmp(buf, "q") == 0, "q name attribute");
	ok(attr_str(fid, "/xpcs/qmap/dynamic_v_list_dim1", "unit", buf,
	    sizeof(buf)) == 0 && strcmp(buf, "deg") == 0, "phi unit deg");
	d = H5Dopen2(fid, "/xpcs/qmap/dynamic_v_list_dim1", H5P_DEFAULT);
	a = H5Aopen(d, "size", H5P_DEFAULT);
	ok(H5Aread(a, H5T_NATIVE_INT64, &size_attr) >= 0 && size_attr == 2,
	    "phi size attribute 2");
	H5Aclose(a);
	H5Dclose(d);
	ok(type_of(fid, "/xpcs/twotime/processed_bins", &size, &sign) ==
	    H5T_INTEGER && size == 4 && sign == H5T_SGN_2,
	    "processed_bins is int32");
	ok(type_of(fid, "/xpcs/qmap/dynamic_index_mapping", &size, &sign) ==
	    H5T_INTEGER && size == 2 && sign == H5T_SGN_NONE,
	    "dynamic_index_mapping is uint16");
	ok(type_of(fid, "/xpcs/qmap/dynamic_num_pts", &size, &sign) ==
	    H5T_INTEGER && size == 8, "dynamic_num_pts is int64");
	ok(type_of(fid, "/xpcs/twotime/config/stride_frame", &size, &sign) ==
	    H5T_INTEGER && size == 8, "stride_frame is int64");
	ok(type_of(fid, "/xpcs/twotime/correlation_map/c2_00001", &size,
	    &sign) == H5T_FLOAT && size == 4, "matrices are float32");
	ok(type_of(fid, "/xpcs/qmap/map_units", &size, &sign) == H5T_STRING,
	    "map_units are strings");
	ok(H5Lexists(fid, "/xpcs/twotime/t", H5P_DEFAULT) <= 0 &&
	    H5Lexists(fid, "/exchange", H5P_DEFAULT) <= 0,
	    "no time vector and no /exchange group");
	d = H5Dopen2(fid, "/xpcs/twotime/normalized_g2", H5P_DEFAULT);
	ok(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, g2) >=
	    0, "read normalized_g2 (8 lags x 4 bins)");
	H5Dclose(d);
	het_c2_lag_means(mats[2], 8, lag);
	for (i = 0, k = 0; i < 8; i++)
		if (g2[i * 4 + 2] != (double)(float)lag[i])
			k++;
	is_int((long long)k, 0, "column 2 holds the lag means of matrix 2");
	H5Fclose(fid);
	fx_apsu_free(&spec, mats);
	free(path);
}

static herr_t
stamp_cb(hid_t obj, const char *name, const H5O_info_t *info, void *arg)
{
	int *stamped = arg;

	(void)obj;
	(void)name;
	if (info->atime != 0 || info->mtime != 0 || info->ctime != 0 ||
	    info->btime != 0)
		(*stamped)++;
	return 0;
}

/* Equal specs give equal bytes: no object carries a timestamp. */
static void
test_reproducible(void)
{
	struct het_apsu_spec spec;
	struct het_error err;
	double **mats;
	char *a = fx_path(dir, "a.hdf"), *b = fx_path(dir, "b.hdf");
	int stamped = 0, ca = 0, cb = 0, same = 1;
	FILE *fa, *fb;
	hid_t fid;

	fx_apsu_basic(&spec, 2, 3, 16, &mats);
	spec.compression = HET_COMPRESS_LZF;
	het_error_clear(&err);
	ok(het_apsu_write(a, &spec, &err) == HET_OK &&
	    het_apsu_write(b, &spec, &err) == HET_OK, "write one spec twice");
	fid = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT);
	ok(H5Ovisit2(fid, H5_INDEX_NAME, H5_ITER_INC, stamp_cb, &stamped,
	    H5O_INFO_TIME) >= 0 && stamped == 0,
	    "no object carries a creation or modification time");
	H5Fclose(fid);
	fa = fopen(a, "rb");
	fb = fopen(b, "rb");
	while (fa != NULL && fb != NULL && ca != EOF) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb) {
			same = 0;
			break;
		}
	}
	ok(fa != NULL && fb != NULL && same, "the two files are identical, "
	    "byte for byte");
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	fx_apsu_free(&spec, mats);
	free(a);
	free(b);
}

struct fill_ctx {
	size_t	calls;
	size_t	fail_at;
};

static int
fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	struct fill_ctx *c = arg;

	c->calls++;
	if (k == c->fail_at)
		return het_error_set(err, HET_ECANCEL, "simulation of bin %zu "
		    "cancelled", k);
	fx_matrix(5, 300 + (unsigned)k, c2);
	return HET_OK;
}

static void
test_fill_and_atomic(void)
{
	struct het_apsu_spec spec;
	struct fill_ctx ctx = { 0, 99 };
	struct het_dataset *ds;
	struct het_error err;
	double **mats, want[25], got[25], full[25];
	char *path = fx_path(dir, "fill.hdf");
	size_t k, bad = 0;
	int before;

	fx_apsu_basic(&spec, 1, 3, 5, &mats);
	spec.c2 = NULL;
	spec.fill = fill;
	spec.fill_arg = &ctx;
	spec.dtype = HET_DTYPE_F64;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK && ctx.calls == 3,
	    "matrices from a fill callback, one call per bin");
	ds = het_dataset_open(path, &err);
	for (k = 0; ds != NULL && k < 3; k++) {
		fx_matrix(5, 300 + (unsigned)k, full);
		fx_expect(full, 5, 1, 5, 0, want);
		if (het_dataset_read_c2(ds, k, 0, 0, got, NULL, &err) != HET_OK)
			bad += 25;
		else
			bad += fx_diff(got, want, 25);
	}
	ok(ds != NULL && bad == 0, "and they read back exactly");
	het_dataset_close(ds);

	before = count_files();
	ctx.calls = 0;
	ctx.fail_at = 1;
	spec.frame_time = 0.5;
	is_int(het_apsu_write(path, &spec, &err), HET_ECANCEL,
	    "a failing fill callback stops the write with its code");
	like(err.msg, "simulation of bin 1 cancelled", "and its message");
	is_int(count_files(), before, "no temporary file is left behind");
	ds = het_dataset_open(path, &err);
	ok(ds != NULL && het_dataset_info(ds)->dt == 1.3e-4 * 3 * 2,
	    "the old file is intact (old dt, not 0.5 s)");
	het_dataset_close(ds);
	free(path);
	path = strdup("/nonexistent-hetui-dir/x.hdf");
	ctx.fail_at = 99;
	is_int(het_apsu_write(path, &spec, &err), HET_EIO,
	    "an unwritable directory: HET_EIO");
	like(err.msg, "/nonexistent-hetui-dir/x.hdf: cannot write the file to "
	    "/nonexistent-hetui-dir/.x.hdf.tmp.", "names the file");
	fx_apsu_free(&spec, mats);
	free(path);
}

#define BAD(what, needle) do {						\
	het_error_clear(&err);						\
	is_int(het_apsu_write(path, &s, &err), HET_EINVAL,		\
	    "spec: %s is rejected", what);				\
	like(err.msg, needle, "spec: %s: message says '%s'", what, needle); \
	s = spec;							\
} while (0)

static void
test_spec_checks(void)
{
	struct het_apsu_spec spec, s;
	struct het_error err;
	double **mats, *asym, q[2] = { 0.003, -0.1 }, phi[1] = { NAN };
	char *path = fx_path(dir, "never.hdf");
	const double *bad[4];
	long labels[4] = { 1, 3, 2, 4 }, big[1] = { 7 }, map[2] = { 0, 9 };
	size_t k;

	fx_apsu_basic(&spec, 2, 2, 4, &mats);
	for (k = 0; k < 4; k++)
		bad[k] = mats[k];
	s = spec;
	s.n_q = 0;
	BAD("no q", "needs at least one q and one phi");
	s.q = q;
	BAD("negative q", "q[1] = -0.1 is not a positive q");
	s.phi = phi;
	BAD("NaN phi", "phi[0] = nan is not a finite angle");
	s.index_mapping = map;
	s.n_mapping = 2;
	BAD("mapping out of the map", "index_mapping[1] = 9 is not a cell of "
	    "the 2 x 2 q map");
	s.labels = labels;
	BAD("labels out of order", "labels[2] = 2: labels must increase "
	    "strictly within 1..4");
	s.labels = big;
	s.nbins = 1;
	BAD("label beyond the map", "labels[0] = 7");
	s.nbins = 0;
	BAD("no bins", "nbins = 0; an APS-U file holds 1 to 99999 matrices");
	s.nbins = 5;
	BAD("more bins than labels", "5 matrices but only 4 bin labels");
	s.frames = 1;
	BAD("one frame", "frames = 1; a two-time matrix has 2 to 1000000 "
	    "frames");
	s.c2 = NULL;
	BAD("no matrices", "no matrices: set c2 or fill");
	s.dtype = HET_DTYPE_MIXED;
	BAD("mixed dtype", "dtype must be float32 or float64");
	s.compression = HET_COMPRESS_OTHER;
	BAD("other codec", "compression must be none, gzip or lzf");
	s.compression = HET_COMPRESS_GZIP;
	s.gzip_level = 10;
	BAD("gzip 10", "gzip_level = 10; expected 1 to 9");
	s.stride_frame = -1;
	BAD("negative stride", "stride_frame and avg_frame must be >= 1");
	asym = malloc(16 * sizeof(*asym));
	memcpy(asym, mats[1], 16 * sizeof(*asym));
	asym[6] = NAN;
	bad[1] = asym;
	s.c2 = bad;
	BAD("a NaN in a matrix", "matrix 1 (label 2) holds a non-finite value "
	    "at frames (2, 3)");
	asym[6] = asym[9] + 0.01;
	s.c2 = bad;
	BAD("an asymmetric matrix", "matrix 1 (label 2) is not symmetric");
	bad[1] = NULL;
	s.c2 = bad;
	BAD("a missing matrix", "matrix 1 (label 2) is missing");
	ok(het_apsu_write(path, NULL, &err) == HET_EINVAL, "NULL spec");
	ok(het_apsu_write(NULL, &spec, &err) == HET_EINVAL, "NULL path");
	is_int(count_files(), 0, "no spec error created a file");
	free(asym);
	fx_apsu_free(&spec, mats);
	free(path);
}

int
main(void)
{
	struct het_error err;

	plan_lazy();
	het_error_clear(&err);
	het_h5_library_init(&err);
	dir = fx_tmpdir();
	if (dir == NULL)
		skip_all("cannot create a temporary directory");
	test_spec_checks();
	test_recipe();
	test_reproducible();
	test_fill_and_atomic();
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
