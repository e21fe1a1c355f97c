/*
 * t_core_dataset_errors.c: every way a result file can be wrong, and the
 * exact message hetui gives: missing, a directory, not HDF5, truncated,
 * corrupt LZF and gzip chunks, neither layout, count mismatches, bad
 * shapes and types, NaN and Inf, ambiguous triangles, bad label maps, and
 * the argument checks of het_dataset_read_c2.  No error leaks a handle:
 * the file can be deleted and rewritten after each.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include <hdf5.h>
#include "tap.h"

#define C2 "/xpcs/twotime/correlation_map/"

static char *dir;
static char *path;

/* The base file: 2 q x 2 phi, 6 frames, float32, optional codec. */
static int
base(enum het_compress codec)
{
	struct het_apsu_spec spec;
	struct het_error err;
	double **mats;
	int rc;

	fx_apsu_basic(&spec, 2, 2, 6, &mats);
	spec.compression = codec;
	het_error_clear(&err);
	rc = het_apsu_write(path, &spec, &err);
	if (rc != HET_OK)
		diag("base: %s", err.msg);
	fx_apsu_free(&spec, mats);
	return rc;
}

/* Open must fail with `code` and a message containing every needle. */
static void
open_fails(int code, const char *what, const char *n1, const char *n2)
{
	struct het_dataset *ds;
	struct het_error err;

	het_error_clear(&err);
	ds = het_dataset_open(path, &err);
	ok(ds == NULL && err.code == code, "%s: open fails with %s", what,
	    het_status_name(code));
	diag("%s: %s", het_status_name(err.code), err.msg);
	het_dataset_close(ds);
	ok(strncmp(err.msg, path, strlen(path)) == 0,
	    "%s: the message starts with the file name", what);
	like(err.msg, n1, "%s: message says '%s'", what, n1);
	if (n2 != NULL)
		like(err.msg, n2, "%s: message says '%s'", what, n2);
}

static void
test_files(void)
{
	struct het_dataset *ds;
	struct het_error err;
	long size;
	FILE *fp;

	free(path);
	path = fx_path(dir, "missing.hdf");
	het_error_clear(&err);
	ds = het_dataset_open(path, &err);
	ok(ds == NULL && err.code == HET_EIO && err.sys_errno == ENOENT,
	    "missing file: HET_EIO with errno ENOENT");
	like(err.msg, "missing.hdf: cannot open the file: ",
	    "missing file: message names it");
	free(path);
	path = strdup(dir);
	open_fails(HET_EIO, "directory", "is a directory", NULL);
	free(path);
	path = fx_path(dir, "text.hdf");
	fx_write_text(path, "q,phi,c2\n0.005,0,1.2\n");
	open_fails(HET_EFORMAT, "text file", "not an HDF5 file", "APS-U");
	fx_write_text(path, "");
	open_fails(HET_EFORMAT, "empty file", "not an HDF5 file", NULL);
	het_error_clear(&err);
	ok(het_dataset_open(NULL, &err) == NULL && err.code == HET_EINVAL,
	    "NULL path: HET_EINVAL");
	ok(het_dataset_open("", &err) == NULL && err.code == HET_EINVAL,
	    "empty path: HET_EINVAL");

	free(path);
	path = fx_path(dir, "trunc.hdf");
	base(HET_COMPRESS_NONE);
	fp = fopen(path, "rb");
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	fx_truncate(path, size / 2);
	open_fails(HET_EFORMAT, "truncated file", "truncated or corrupt",
	    "truncated file");
	fx_truncate(path, 700);
	open_fails(HET_EFORMAT, "file cut after the superblock",
	    "truncated or corrupt", NULL);
}

static void
test_corrupt_chunk(enum het_compress codec, const char *name)
{
	struct het_dataset *ds;
	struct het_error err;
	double out[36];
	char want[128];

	base(codec);
	ok(fx_corrupt_chunk(path, C2 "c2_00002", 4, 24) == 0,
	    "%s: corrupt 24 bytes of c2_00002's chunk", name);
	het_error_clear(&err);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL, "%s: metadata still open", name);
	if (ds == NULL)
		return;
	is_int(het_dataset_read_c2(ds, 1, 0, 0, out, NULL, &err), HET_EFORMAT,
	    "%s: reading the corrupt matrix fails", name);
	snprintf(want, sizeof(want), "cannot read the %s float32 matrix", name);
	like(err.msg, want, "%s: message names the codec and dtype", name);
	like(err.msg, "bin 1 (label 2, q 0.00304306, phi 90, "
	    C2 "c2_00002)", "%s: and the bin", name);
	like(err.msg, "truncated or corrupt", "%s: and the likely cause", name);
	ok(het_dataset_read_c2(ds, 0, 0, 0, out, NULL, &err) == HET_OK,
	    "%s: the other bins still read", name);
	het_dataset_close(ds);
}

static void
test_layouts(void)
{
	free(path);
	path = fx_path(dir, "layout.hdf");
	fx_new_file(path, "/entry/data");
	open_fails(HET_EFORMAT, "neither layout", "hetui looked for "
	    "/xpcs/qmap/dynamic_v_list_dim0 and /xpcs/twotime/correlation_map "
	    "(APS-U) and for /xpcs/dqlist, /xpcs/dphilist and "
	    "/exchange/C2T_all (legacy APS 8-ID-I)", "found none of them");
	fx_put(path, "/xpcs/dqlist", 1, (unsigned long long[]){ 2 },
	    (double[]){ 0.1, 0.2 }, FX_F64);
	open_fails(HET_EFORMAT, "half a legacy file", "found only /xpcs/dqlist",
	    NULL);
	base(HET_COMPRESS_NONE);
	fx_delete(path, "/xpcs/twotime/correlation_map");
	open_fails(HET_EFORMAT, "multitau-only", "has the APS-U q map "
	    "/xpcs/qmap/dynamic_v_list_dim0 but no two-time matrices",
	    "multitau-only");
	fx_put(path, "/xpcs/twotime/correlation_map", 2,
	    (unsigned long long[]){ 2, 2 }, (double[]){ 1, 2, 3, 4 }, FX_F64);
	open_fails(HET_EFORMAT, "correlation_map a dataset",
	    "/xpcs/twotime/correlation_map is a single dataset", NULL);
	base(HET_COMPRESS_NONE);
	fx_delete(path, "/xpcs/twotime/correlation_map");
	fx_group(path, "/xpcs/twotime/correlation_map");
	open_fails(HET_EFORMAT, "empty correlation_map",
	    "/xpcs/twotime/correlation_map is empty", NULL);
}

static void
test_apsu_counts(void)
{
	base(HET_COMPRESS_NONE);
	fx_delete(path, C2 "c2_00003");
	open_fails(HET_EFORMAT, "a missing matrix", "count mismatch: "
	    "/xpcs/twotime/correlation_map holds 3 matrices but "
	    "/xpcs/twotime/processed_bins lists 4 bins", NULL);
	fx_put(path, C2 "c2_00007", 2, (unsigned long long[]){ 2, 2 },
	    (double[]){ 1, 1, 0, 1 }, FX_F32);
	open_fails(HET_EFORMAT, "a matrix numbered beyond processed_bins",
	    C2 "c2_00007 is numbered outside 1..4", NULL);
	base(HET_COMPRESS_NONE);
	fx_put(path, C2 "notes", 0, NULL, (double[]){ 1 }, FX_F64);
	open_fails(HET_EFORMAT, "a stray member",
	    "holds 'notes', which is not a matrix name; expected c2_NNNNN",
	    NULL);
	base(HET_COMPRESS_NONE);
	fx_group(path, C2 "c2_00005");
	open_fails(HET_EFORMAT, "a group among the matrices",
	    C2 "c2_00005 is not a dataset", NULL);
	base(HET_COMPRESS_NONE);
	fx_put(path, "/xpcs/qmap/dynamic_num_pts", 1,
	    (unsigned long long[]){ 2 }, (double[]){ 3, 2 }, FX_F64);
	open_fails(HET_EFORMAT, "dynamic_num_pts", "count mismatch: "
	    "/xpcs/qmap/dynamic_num_pts is [3, 2] but "
	    "/xpcs/qmap/dynamic_v_list_dim0 has 2 q values", NULL);
	base(HET_COMPRESS_NONE);
	fx_delete(path, "/xpcs/qmap/dynamic_v_list_dim1");
	open_fails(HET_EFORMAT, "no phi list",
	    "/xpcs/qmap/dynamic_v_list_dim1 is missing", NULL);
	base(HET_COMPRESS_NONE);
	fx_delete(path, "/xpcs/twotime/processed_bins");
	open_fails(HET_EFORMAT, "no processed_bins",
	    "/xpcs/twotime/processed_bins is missing; it pairs", NULL);
	base(HET_COMPRESS_NONE);
	fx_put(path, "/xpcs/qmap/dynamic_v_list_dim0", 1,
	    (unsigned long long[]){ 2 }, (double[]){ 0.003, NAN }, FX_F64);
	open_fails(HET_EFORMAT, "NaN q", "/xpcs/qmap/dynamic_v_list_dim0[1] "
	    "= nan 1/A is not a plausible wavevector", NULL);
	fx_put(path, "/xpcs/qmap/dynamic_v_list_dim0", 2,
	    (unsigned long long[]){ 2, 3 }, (double[]){ 1, 2, 3, 4, 5, 6 },
	    FX_F64);
	open_fails(HET_EFORMAT, "2-D q list", "/xpcs/qmap/dynamic_v_list_dim0 "
	    "has shape (2, 3); expected a list of values", NULL);
}

static void
test_apsu_labels(void)
{
	base(HET_COMPRESS_NONE);
	fx_put(path, "/xpcs/qmap/dynamic_index_mapping", 1,
	    (unsigned long long[]){ 4 }, (double[]){ 0, 1, 2, 99 }, FX_U16);
	open_fails(HET_EFORMAT, "mapping out of range",
	    "/xpcs/qmap/dynamic_index_mapping[3] = 99 is not a cell of the "
	    "2 x 2 q map (expected 0 to 3)", NULL);
	fx_put(path, "/xpcs/qmap/dynamic_index_mapping", 1,
	    (unsigned long long[]){ 4 }, (double[]){ 0, 0, 1, 2 }, FX_U16);
	open_fails(HET_EFORMAT, "mapping that merges two labels",
	    "two processed bins map to the same (q, phi) cell 0", NULL);
	base(HET_COMPRESS_NONE);
	fx_put(path, "/xpcs/twotime/processed_bins", 1,
	    (unsigned long long[]){ 4 }, (double[]){ 1, 2, 3, 9 }, FX_I32);
	open_fails(HET_EFORMAT, "label beyond the q map",
	    "/xpcs/twotime/processed_bins[3] = 9 is not a bin label of this "
	    "q map (expected 1 to 4", NULL);
	fx_put(path, "/xpcs/twotime/processed_bins", 1,
	    (unsigned long long[]){ 4 }, (double[]){ 1, 2, 2, 4 }, FX_I32);
	open_fails(HET_EFORMAT, "repeated label",
	    "/xpcs/twotime/processed_bins lists bin label 2 twice", NULL);
	fx_put(path, "/xpcs/twotime/processed_bins", 1,
	    (unsigned long long[]){ 4 }, (double[]){ 1, 2, 3.5, 4 }, FX_F64);
	open_fails(HET_EFORMAT, "fractional label",
	    "processed_bins[2] = 3.5 is not a bin label", NULL);
}

/*
 * A damaged object header (the object linked but unreadable) is an error
 * that names the object, never "absent": not stride_frame "taken as 1"
 * (a dt 10 times wrong), not the identity for dynamic_index_mapping
 * (wrong phi per bin).  A soft link to nothing is still absent.
 */
static void
test_damaged_headers(void)
{
	static const long map[4] = { 3, 2, 1, 0 };
	struct het_apsu_spec spec;
	struct het_dataset *ds;
	const struct het_dataset_info *in;
	struct het_error err;
	const char *src;
	double **mats, dt;

	fx_apsu_basic(&spec, 2, 2, 6, &mats);
	spec.frame_time = 2.5e-3;
	spec.stride_frame = 10;
	spec.avg_frame = 0;
	spec.index_mapping = map;
	spec.n_mapping = 4;
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "damaged headers: a "
	    "file with stride_frame 10 and a mapping");
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && fabs(in->dt - 0.025) < 1e-15, "intact: dt = "
	    "frame_time x stride_frame = 0.025 s");
	het_dataset_close(ds);
	ok(fx_corrupt_header(path, "/xpcs/twotime/config/stride_frame") == 0,
	    "corrupt the object header of stride_frame");
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && isnan(in->dt), "dt is not taken as frame_time "
	    "alone (0.0025 s, 10 times wrong): unknown");
	like(in != NULL ? in->dt_source : "", "none: "
	    "/xpcs/twotime/config/stride_frame is in the file but cannot be "
	    "read", "dt_source names stride_frame");
	ok(ds != NULL && het_dataset_dt(ds, NULL, &dt, &src, &err) ==
	    HET_ENOTFOUND, "het_dataset_dt fails without an override");
	like(err.msg, "/xpcs/twotime/config/stride_frame is in the file but "
	    "cannot be read", "... naming stride_frame");
	like(err.msg, "the object is damaged; copy the file again", "... and "
	    "saying what to do");
	het_dataset_close(ds);

	ok(het_apsu_write(path, &spec, &err) == HET_OK, "rewrite");
	ok(fx_corrupt_header(path, "/xpcs/qmap/dynamic_index_mapping") == 0,
	    "corrupt the object header of dynamic_index_mapping");
	open_fails(HET_EFORMAT, "damaged mapping",
	    "/xpcs/qmap/dynamic_index_mapping is in the file but cannot be "
	    "read", "the object is damaged");

	ok(het_apsu_write(path, &spec, &err) == HET_OK, "rewrite");
	ok(fx_corrupt_header(path, "/xpcs/qmap/dynamic_v_list_dim1") == 0,
	    "corrupt the object header of dynamic_phi_list");
	open_fails(HET_EFORMAT, "damaged phi list",
	    "/xpcs/qmap/dynamic_v_list_dim1 is in the file but cannot be read",
	    NULL);

	ok(het_apsu_write(path, &spec, &err) == HET_OK, "rewrite");
	ok(fx_corrupt_header(path, C2 "c2_00001") == 0, "corrupt the object "
	    "header of a matrix");
	open_fails(HET_EFORMAT, "damaged matrix", C2 "c2_00001 is in the "
	    "file but cannot be read", NULL);

	ok(het_apsu_write(path, &spec, &err) == HET_OK, "rewrite");
	ok(fx_corrupt_header(path, "/xpcs/qmap/dynamic_v_list_dim0") == 0,
	    "corrupt the object header of dynamic_q_list");
	open_fails(HET_EFORMAT, "damaged q list", "/xpcs/qmap/dynamic_v_list_dim0 "
	    "is in the file but cannot be read", NULL);

	/* a dangling soft link is absent, as before */
	spec.index_mapping = NULL;
	spec.n_mapping = 0;
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "rewrite with the "
	    "identity mapping");
	ok(fx_delete(path, "/xpcs/qmap/dynamic_index_mapping") == 0 &&
	    fx_soft_link(path, "/xpcs/qmap/dynamic_index_mapping",
	    "/nowhere/at/all") == 0, "a soft link to nothing in its place");
	ds = het_dataset_open(path, &err);
	ok(ds != NULL, "opens: the dangling link is an absent mapping "
	    "(identity)");
	het_dataset_close(ds);
	fx_apsu_free(&spec, mats);
}

/*
 * Values that decode but cannot be physics (a flipped bit in an LZF
 * chunk, which has no checksum, or a damaged q map): refused with the
 * value, where it is and what to do; a merely unusual c2 is counted.
 */
static void
test_plausible(void)
{
	struct het_selection sel;
	struct het_c2_info ci;
	struct het_dataset *ds;
	const struct het_dataset_info *in;
	struct het_error err;
	const char *src;
	double out[36], dt;

	base(HET_COMPRESS_NONE);
	fx_put(path, "/xpcs/qmap/dynamic_v_list_dim0", 1,
	    (unsigned long long[]){ 2 }, (double[]){ 0.003, 3.8e-211 },
	    FX_F64);
	open_fails(HET_EFORMAT, "q = 3.8e-211", "/xpcs/qmap/dynamic_v_list_"
	    "dim0[1] = 3.8e-211 1/A is not a plausible wavevector: q must be "
	    "finite and between 1e-06 and 10 1/A", "rewrite its q map");
	fx_put(path, "/xpcs/qmap/dynamic_v_list_dim0", 1,
	    (unsigned long long[]){ 2 }, (double[]){ 12.5, 0.003 }, FX_F64);
	open_fails(HET_EFORMAT, "q = 12.5", "dynamic_v_list_dim0[0] = 12.5 "
	    "1/A is not a plausible wavevector", NULL);
	base(HET_COMPRESS_NONE);
	fx_put(path, "/xpcs/qmap/dynamic_v_list_dim1", 1,
	    (unsigned long long[]){ 2 }, (double[]){ 0, 1e300 }, FX_F64);
	open_fails(HET_EFORMAT, "phi = 1e300", "/xpcs/qmap/dynamic_v_list_"
	    "dim1[1] = 1e+300 degrees is not a plausible angle: phi must be "
	    "finite and within +-720 degrees", "rewrite its phi list");
	fx_put(path, "/xpcs/qmap/dynamic_v_list_dim1", 1,
	    (unsigned long long[]){ 2 }, (double[]){ -720, 719.5 }, FX_F64);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL, "phi of -720 and 719.5 degrees (two turns) open");
	het_dataset_close(ds);

	/* frame time: 1e-300 s, 5e6 s; the product over 1e6 s */
	base(HET_COMPRESS_NONE);
	fx_put(path, "/entry/instrument/detector_1/frame_time", 0, NULL,
	    (double[]){ 1e-300 }, FX_F64);
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && isnan(in->dt), "frame_time 1e-300 s: dt unknown");
	like(in != NULL ? in->dt_source : "", "none: frame_time "
	    "(/entry/instrument/detector_1/frame_time) is 1e-300 s, outside "
	    "the plausible 1e-09 to 1e+06 s of a frame time", "dt_source says "
	    "why");
	ok(ds != NULL && het_dataset_dt(ds, NULL, &dt, &src, &err) ==
	    HET_ENOTFOUND, "het_dataset_dt refuses it");
	like(err.msg, "is 1e-300 s, outside the plausible", "... naming the "
	    "value");
	like(err.msg, "analyzer_parameters.dt", "... and how to set dt");
	memset(&sel, 0, sizeof sel);
	sel.dt = 1e-300;
	sel.dt_source = "analyzer_parameters.dt";
	ok(ds != NULL && het_dataset_dt(ds, &sel, &dt, &src, &err) ==
	    HET_EINVAL, "a dt override of 1e-300 s is refused");
	like(err.msg, "analyzer_parameters.dt = 1e-300 s is outside the "
	    "plausible 1e-09 to 1e+06 s of a frame time", "message");
	sel.dt = 2e6;
	ok(ds != NULL && het_dataset_dt(ds, &sel, &dt, &src, &err) ==
	    HET_EINVAL, "a dt override of 2e6 s is refused");
	sel.dt = 1e-9;
	ok(ds != NULL && het_dataset_dt(ds, &sel, &dt, &src, &err) == HET_OK &&
	    dt == 1e-9, "a dt override of 1e-9 s (the lower end) is used");
	het_dataset_close(ds);
	fx_put(path, "/entry/instrument/detector_1/frame_time", 0, NULL,
	    (double[]){ 4e5 }, FX_F64);
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && isnan(in->dt), "frame_time 4e5 s x stride 3 x avg "
	    "2: dt unknown");
	like(in != NULL ? in->dt_source : "", "none: frame_time x "
	    "stride_frame x avg_frame = 2.4e+06 s is more than the plausible "
	    "1e+06 s", "dt_source says why");
	het_dataset_close(ds);

	/* c2: 5.4e9 refused with the bin and frames; 12.5 read, counted */
	base(HET_COMPRESS_LZF);
	fx_set_element(path, C2 "c2_00002", 1, 4, 5.4e9);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL && het_dataset_read_c2(ds, 1, 0, 0, out, NULL, &err) ==
	    HET_EDATA, "c2 of 5.4e9 is HET_EDATA");
	like(err.msg, "bin 1 (label 2, q 0.00304306, phi 90, " C2 "c2_00002): "
	    "1 of the 36 values in frames 1..6 are outside the plausible "
	    "range |c2| < 1000 (the first, 5.4e+09, at frames (2, 5))",
	    "the message names the bin, the value and the frames");
	ok(ds != NULL && het_dataset_read_c2(ds, 1, 3, 6, out, &ci, &err) ==
	    HET_OK && ci.nunusual == 0 && ci.maxval < 2, "a window without it "
	    "reads, nothing unusual (largest %g)", ci.maxval);
	het_dataset_close(ds);
	fx_set_element(path, C2 "c2_00002", 1, 4, -2000);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL && het_dataset_read_c2(ds, 1, 0, 0, out, NULL, &err) ==
	    HET_EDATA, "c2 of -2000 is HET_EDATA");
	like(err.msg, "(the first, -2000, at frames (2, 5))", "message");
	het_dataset_close(ds);
	fx_set_element(path, C2 "c2_00002", 1, 4, 12.5);
	fx_set_element(path, C2 "c2_00002", 0, 3, 11.25);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL && het_dataset_read_c2(ds, 1, 0, 0, out, &ci, &err) ==
	    HET_OK, "c2 of 12.5 and 11.25 read");
	ok(ci.nunusual == 2 && ci.maxval == 12.5 && ci.max_i == 2 &&
	    ci.max_j == 5, "... counted as unusual: %zu, largest %g at "
	    "(%zu, %zu)", ci.nunusual, ci.maxval, ci.max_i, ci.max_j);
	het_dataset_close(ds);
}

static void
test_shapes(void)
{
	double m[64];
	size_t i;

	for (i = 0; i < 64; i++)
		m[i] = 1.0 + (double)i / 128.0;
	base(HET_COMPRESS_NONE);
	fx_put(path, C2 "c2_00002", 2, (unsigned long long[]){ 7, 6 }, m,
	    FX_F32);
	open_fails(HET_EFORMAT, "non-square", C2 "c2_00002 (bin label 2) is "
	    "not square: shape (7, 6)", NULL);
	fx_put(path, C2 "c2_00002", 2, (unsigned long long[]){ 8, 8 }, m,
	    FX_F32);
	open_fails(HET_EFORMAT, "mismatched sizes", C2 "c2_00002 (bin label "
	    "2) is 8 x 8 but " C2 "c2_00001 (bin label 1) is 6 x 6", NULL);
	fx_put(path, C2 "c2_00002", 1, (unsigned long long[]){ 36 }, m,
	    FX_F32);
	open_fails(HET_EFORMAT, "1-D matrix", C2 "c2_00002 (bin label 2) has "
	    "shape (36); a two-time matrix is 2-D", NULL);
	fx_put(path, C2 "c2_00002", 2, (unsigned long long[]){ 1, 1 }, m,
	    FX_F32);
	open_fails(HET_EFORMAT, "1 x 1 matrix", "needs at least 2 frames",
	    NULL);
	fx_put(path, C2 "c2_00002", 2, (unsigned long long[]){ 6, 6 }, m,
	    FX_I32);
	open_fails(HET_EFORMAT, "integer matrix", C2 "c2_00002 (bin label 2) "
	    "stores integers of 4 bytes; hetui reads float32 and float64",
	    NULL);
}

static void
test_values(void)
{
	struct het_dataset *ds;
	struct het_error err;
	double out[36];

	base(HET_COMPRESS_LZF);
	fx_set_element(path, C2 "c2_00002", 1, 4, NAN);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL, "NaN file opens (metadata only)");
	if (ds == NULL)
		return;
	is_int(het_dataset_read_c2(ds, 1, 0, 0, out, NULL, &err), HET_EDATA,
	    "a NaN is HET_EDATA");
	like(err.msg, "bin 1 (label 2, q 0.00304306, phi 90, " C2 "c2_00002): "
	    "1 of the 36 values in frames 1..6 are NaN or Inf (the first at "
	    "frames (2, 5))", "the message names the bin, count and place");
	ok(het_dataset_read_c2(ds, 1, 3, 6, out, NULL, &err) == HET_OK,
	    "a window without the NaN reads");
	het_dataset_close(ds);
	fx_set_element(path, C2 "c2_00002", 2, 3, -INFINITY);
	fx_set_element(path, C2 "c2_00002", 5, 5, INFINITY);
	ds = het_dataset_open(path, &err);
	is_int(het_dataset_read_c2(ds, 1, 3, 6, out, NULL, &err), HET_EDATA,
	    "Inf in the window is HET_EDATA");
	like(err.msg, "2 of the 16 values in frames 3..6 are NaN or Inf (the "
	    "first at frames (3, 4))", "counts both, frames are absolute");
	het_dataset_close(ds);

	base(HET_COMPRESS_NONE);
	fx_set_element(path, C2 "c2_00001", 4, 1, 5.0);
	ds = het_dataset_open(path, &err);
	is_int(het_dataset_read_c2(ds, 0, 0, 0, out, NULL, &err), HET_EFORMAT,
	    "values in both triangles that disagree: HET_EFORMAT");
	like(err.msg, "both triangles of the matrix hold data but they differ",
	    "the message explains the ambiguity");
	like(err.msg, "at frames (2, 5)", "and where");
	ok(het_dataset_read_c2(ds, 0, 1, 4, out, NULL, &err) == HET_OK,
	    "a window that avoids the stray value reads");

	is_int(het_dataset_read_c2(ds, 9, 0, 0, out, NULL, &err), HET_EINVAL,
	    "bin 9: HET_EINVAL");
	like(err.msg, "bin 9 does not exist; the file has bins 0 to 3",
	    "and the message lists the range");
	is_int(het_dataset_read_c2(ds, 0, 0, 4, out, NULL, &err), HET_ERANGE,
	    "window 0..4: HET_ERANGE");
	like(err.msg, "frame window 0..4 is not valid for " C2 "c2_00001: "
	    "frames are numbered 1 to 6", "names the window and the range");
	is_int(het_dataset_read_c2(ds, 0, 3, 3, out, NULL, &err), HET_ERANGE,
	    "a one-frame window: HET_ERANGE");
	is_int(het_dataset_read_c2(ds, 0, 2, 7, out, NULL, &err), HET_ERANGE,
	    "past the last frame: HET_ERANGE");
	is_int(het_dataset_read_c2(ds, 0, 5, 2, out, NULL, &err), HET_ERANGE,
	    "reversed window: HET_ERANGE");
	is_int(het_dataset_read_c2(ds, 0, 0, 0, NULL, NULL, &err), HET_EINVAL,
	    "no output buffer: HET_EINVAL");
	het_dataset_close(ds);
	ok(unlink(path) == 0, "the file can be removed: nothing holds it");
}

static void
test_legacy(void)
{
	struct fx_legacy lg;
	double m[16], dq[3] = { 0.005, 0.005, 0.01 }, dphi[3] = { 0, 90, 0 };
	const double *mats[2] = { m, m };
	long labels[2] = { 1, 4 };

	free(path);
	path = fx_path(dir, "legacy.hdf");
	fx_matrix(4, 7, m);
	fx_legacy_init(&lg);
	lg.nlist = 3;
	lg.dq = dq;
	lg.dphi = dphi;
	lg.nmat = 2;
	lg.labels = labels;
	lg.frames = 4;
	lg.c2 = mats;
	fx_write_legacy(path, &lg);
	open_fails(HET_EFORMAT, "legacy label beyond dqlist", "count "
	    "mismatch: /exchange/C2T_all/g2_00004 names bin label 4 but "
	    "/xpcs/dqlist lists only 3 bins (labels 1 to 3)", NULL);
	labels[1] = 3;
	lg.nphilist = 2;
	fx_write_legacy(path, &lg);
	open_fails(HET_EFORMAT, "dqlist and dphilist lengths",
	    "count mismatch: /xpcs/dqlist has 3 entries but /xpcs/dphilist "
	    "has 2", NULL);
	lg.nphilist = 0;
	lg.dphi = NULL;
	fx_write_legacy(path, &lg);
	open_fails(HET_EFORMAT, "no dphilist", "/xpcs/dphilist is missing",
	    NULL);
	lg.dphi = dphi;
	dq[1] = -0.005;
	fx_write_legacy(path, &lg);
	open_fails(HET_EFORMAT, "legacy q of -0.005", "bin label 2: "
	    "/xpcs/dqlist[1] = -0.005 1/A is not a plausible wavevector",
	    NULL);
	dq[1] = 0.005;
	dphi[2] = 900;
	fx_write_legacy(path, &lg);
	open_fails(HET_EFORMAT, "legacy phi of 900", "bin label 3: "
	    "/xpcs/dphilist[2] = 900 degrees is not a plausible angle", NULL);
	dphi[2] = 0;
	fx_write_legacy(path, &lg);
	fx_put(path, "/exchange/C2T_all/c2_00003", 2,
	    (unsigned long long[]){ 4, 4 }, m, FX_F32);
	open_fails(HET_EFORMAT, "g2 and c2 of one label",
	    "/exchange/C2T_all/c2_00003 and /exchange/C2T_all/g2_00003 are "
	    "both bin label 3", NULL);
	fx_delete(path, "/exchange/C2T_all/c2_00003");
	fx_put(path, "/exchange/C2T_all/g2_x1", 2,
	    (unsigned long long[]){ 4, 4 }, m, FX_F32);
	open_fails(HET_EFORMAT, "a badly named legacy matrix",
	    "holds 'g2_x1', which is not a matrix name; expected g2_NNNNN",
	    NULL);
}

struct quiet_job {
	int	open_code;
	int	read_code;
	char	msg[HET_ERROR_MSG_MAX];
};

static void *
quiet_thread(void *arg)
{
	struct quiet_job *job = arg;
	struct het_dataset *ds;
	struct het_error err;
	double out[36];

	het_error_clear(&err);
	ds = het_dataset_open(path, &err);
	job->open_code = err.code;
	if (ds != NULL) {
		job->read_code = het_dataset_read_c2(ds, 1, 0, 0, out, NULL,
		    &err);
		snprintf(job->msg, sizeof(job->msg), "%s", err.msg);
	}
	het_dataset_close(ds);
	return NULL;
}

/* HDF5 errors in a second thread reach the caller, never stderr. */
static void
test_thread_quiet(void)
{
	struct quiet_job job;
	pthread_t t;
	char *log = fx_path(dir, "stderr.log");
	int saved, fd;
	FILE *fp;
	long size = -1;

	base(HET_COMPRESS_LZF);
	fx_corrupt_chunk(path, C2 "c2_00002", 4, 24);
	memset(&job, 0, sizeof(job));
	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	if (pthread_create(&t, NULL, quiet_thread, &job) == 0)
		pthread_join(t, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if ((fp = fopen(log, "rb")) != NULL) {
		fseek(fp, 0, SEEK_END);
		size = ftell(fp);
		fclose(fp);
	}
	ok(job.open_code == HET_OK && job.read_code == HET_EFORMAT,
	    "a new thread opens the file and fails to read the bad chunk");
	like(job.msg, "cannot read the lzf float32 matrix",
	    "the error comes back as text");
	is_int(size, 0, "and HDF5 printed nothing on stderr in that thread");
	free(log);
}

/*
 * Damaged headers that would make libhdf5 allocate gigabytes (found by
 * fuzzing: a 24 KB file asked for 1.8 GB): the mapping rewritten as an
 * extendible dataset of 4 values in chunks of 9e6 (72 MB each, 18e6
 * times the data: a header no writer makes for 4 values) is refused
 * before reading.  The number wider than 16 bytes is
 * tests/fuzz/crashes/dataset/number-1.8GB-wide.hdf (t_inspect.sh).
 */
static void
test_damaged_chunks(void)
{
	hsize_t dims[1] = { 4 }, maxd[1] = { H5S_UNLIMITED },
	    chunk[1] = { 9000000 };
	const double v[4] = { 0, 1, 2, 3 };
	hid_t f, sp, pl, d;
	int good = 0;

	base(HET_COMPRESS_NONE);
	if ((f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) >= 0) {
		H5Ldelete(f, "/xpcs/qmap/dynamic_index_mapping", H5P_DEFAULT);
		sp = H5Screate_simple(1, dims, maxd);
		pl = H5Pcreate(H5P_DATASET_CREATE);
		H5Pset_chunk(pl, 1, chunk);
		H5Pset_deflate(pl, 1);
		d = H5Dcreate2(f, "/xpcs/qmap/dynamic_index_mapping",
		    H5T_IEEE_F64LE, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
		good = d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL,
		    H5S_ALL, H5P_DEFAULT, v) >= 0;
		if (d >= 0)
			H5Dclose(d);
		H5Pclose(pl);
		H5Sclose(sp);
		H5Fclose(f);
	}
	ok(good, "a 4-value mapping in 72 MB chunks written");
	open_fails(HET_EFORMAT, "chunks far larger than their dataset",
	    "/xpcs/qmap/dynamic_index_mapping: its chunks would take "
	    "7.2e+07 bytes each for a dataset of 32 bytes",
	    "the file's header is damaged");
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
	test_files();
	free(path);
	path = fx_path(dir, "bad.hdf");
	test_corrupt_chunk(HET_COMPRESS_LZF, "lzf");
	test_corrupt_chunk(HET_COMPRESS_GZIP, "gzip");
	test_layouts();
	test_apsu_counts();
	test_apsu_labels();
	test_damaged_chunks();
	test_damaged_headers();
	test_plausible();
	test_shapes();
	test_values();
	test_thread_quiet();
	test_legacy();
	free(path);
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
