/*
 * t_core_dataset.c: the APS-U reader and writer: metadata (layout, bins,
 * q, phi, labels, dataset paths, storage facts, dt and its source,
 * energy, distance), every matrix value read back for float64, float32,
 * gzip and LZF files, dynamic_index_mapping, partial processed_bins,
 * frame windows, half/full/lower storage, the diagonal correction and
 * the lag-mean projection.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_lzf.h"
#include "tap.h"

static char *dir;

/* Read bin k (window first..last) and compare with fx_expect exactly. */
static void
check_read(struct het_dataset *ds, size_t k, long first, long last,
    const double *full, int f32, enum het_tri tri, const char *what)
{
	const struct het_bin *b = het_dataset_bin(ds, k);
	size_t n = b->frames, m;
	struct het_c2_info ci;
	struct het_error err;
	double *got, *want;
	long f = first, l = last;
	int rc;

	if (f == 0 && l == 0) {
		f = 1;
		l = (long)n;
	}
	m = (size_t)(l - f + 1);
	got = calloc(m * m, sizeof(*got));
	want = calloc(m * m, sizeof(*want));
	het_error_clear(&err);
	rc = het_dataset_read_c2(ds, k, first, last, got, &ci, &err);
	if (!ok(rc == HET_OK, "%s: bin %zu frames %ld..%ld read", what, k, f,
	    l))
		diag("%s", err.msg);
	fx_expect(full, n, f, l, f32, want);
	is_int((long long)fx_diff(got, want, m * m), 0,
	    "%s: bin %zu: all %zu values equal the expected ones exactly",
	    what, k, m * m);
	is_str(het_tri_name(ci.tri), het_tri_name(tri),
	    "%s: bin %zu stored as %s", what, k, het_tri_name(tri));
	free(got);
	free(want);
}

static void
test_f64_plain(void)
{
	struct het_apsu_spec spec;
	const struct het_dataset_info *in;
	const struct het_bin *b;
	struct het_dataset *ds;
	struct het_error err;
	double **mats;
	char *path = fx_path(dir, "f64.hdf"), name[64];
	size_t k;

	fx_apsu_basic(&spec, 2, 3, 7, &mats);
	spec.dtype = HET_DTYPE_F64;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK,
	    "write a 2 q x 3 phi float64 APS-U file%s%s", err.msg[0] ? ": " :
	    "", err.msg);
	ds = het_dataset_open(path, &err);
	if (!ok(ds != NULL, "open it"))
		diag("%s", err.msg);
	if (ds == NULL)
		goto out;
	in = het_dataset_info(ds);
	is_str(het_layout_name(in->layout), "aps-u", "layout is aps-u");
	is_str(in->path, path, "info.path is the name given");
	is_int((long long)in->nbins, 6, "6 bins");
	is_int((long long)het_dataset_nbins(ds), 6, "het_dataset_nbins 6");
	is_int((long long)in->n_q, 2, "n_q 2");
	is_int((long long)in->n_phi, 3, "n_phi 3");
	is_int((long long)in->frames, 7, "7 frames");
	is_str(het_dtype_name(in->dtype), "float64", "dtype float64");
	is_str(het_compress_name(in->compression), "none", "uncompressed");
	is_double(in->q_list[1], 0.00304306 + 0.0027183, 0, "q_list[1]");
	is_double(in->phi_list[2], -180.0 + 120.0 * 2.5, 0, "phi_list[2]");
	is_double(in->dt, 1.3e-4 * 3 * 2, 0,
	    "dt = frame_time * stride_frame * avg_frame");
	is_str(in->dt_source, "file: frame_time * stride_frame * avg_frame",
	    "dt source");
	is_double(in->frame_time, 1.3e-4, 0, "frame_time kept");
	is_int(in->stride, 3, "stride kept");
	is_int(in->avg, 2, "avg kept");
	is_double(in->energy_kev, 12.34, 0, "energy 12.34 keV");
	is_str(in->energy_source, "/xpcs/qmap/energy", "energy from qmap");
	is_double(in->distance_m, 11.6, 0, "distance 11.6 m");
	is_str(in->distance_unit, "m", "distance unit m");
	is_str(in->distance_source, "/xpcs/qmap/detector_distance",
	    "distance from qmap");
	for (k = 0; k < 6; k++) {
		b = het_dataset_bin(ds, k);
		snprintf(name, sizeof(name),
		    "/xpcs/twotime/correlation_map/c2_%05zu", k + 1);
		ok(b->index == k && b->label == (long)k + 1 &&
		    b->q_idx == k / 3 && b->phi_idx == k % 3 &&
		    b->q == in->q_list[k / 3] &&
		    b->phi == in->phi_list[k % 3] &&
		    b->frames == 7 && b->dtype == HET_DTYPE_F64 &&
		    b->compression == HET_COMPRESS_NONE && b->level == -1 &&
		    b->storage == HET_STORE_CONTIGUOUS && b->chunk[0] == 0 &&
		    strcmp(b->dataset, name) == 0,
		    "bin %zu: label, cell, q, phi, frames, storage, %s", k,
		    name);
		check_read(ds, k, 0, 0, mats[k], 0, HET_TRI_UPPER, "f64");
	}
	ok(het_dataset_bin(ds, 6) == NULL, "bin 6 does not exist");
	check_read(ds, 4, 2, 6, mats[4], 0, HET_TRI_UPPER, "f64 window");
	check_read(ds, 5, 6, 7, mats[5], 0, HET_TRI_UPPER, "f64 2 frames");
	het_dataset_close(ds);
out:
	fx_apsu_free(&spec, mats);
	free(path);
}

/* Float32 and compression: values are the float32 roundings, exactly. */
static void
test_f32_codec(enum het_compress codec, const char *fname)
{
	struct het_apsu_spec spec;
	const struct het_bin *b;
	struct het_dataset *ds;
	struct het_error err;
	double **mats;
	char *path = fx_path(dir, fname);
	unsigned int flags, cd[8];
	size_t ncd = 8, k;
	hid_t fid, dset, dcpl;

	fx_apsu_basic(&spec, 1, 4, 33, &mats);
	spec.compression = codec;
	spec.gzip_level = 6;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK,
	    "%s: write float32%s%s", fname, err.msg[0] ? ": " : "", err.msg);
	ds = het_dataset_open(path, &err);
	if (!ok(ds != NULL, "%s: open", fname))
		diag("%s", err.msg);
	if (ds == NULL)
		goto out;
	b = het_dataset_bin(ds, 0);
	is_str(het_dtype_name(b->dtype), "float32", "%s: dtype float32", fname);
	is_str(het_compress_name(b->compression), het_compress_name(codec),
	    "%s: compression %s", fname, het_compress_name(codec));
	is_int(b->level, codec == HET_COMPRESS_GZIP ? 6 : -1,
	    "%s: gzip level", fname);
	if (codec == HET_COMPRESS_NONE)
		ok(b->storage == HET_STORE_CONTIGUOUS && b->chunk[0] == 0,
		    "%s: contiguous storage", fname);
	else
		ok(b->storage == HET_STORE_CHUNKED && b->chunk[0] == 33 &&
		    b->chunk[1] == 33,
		    "%s: chunked, one chunk per matrix (33 x 33)", fname);
	is_str(het_compress_name(het_dataset_info(ds)->compression),
	    het_compress_name(codec), "%s: file-level compression", fname);
	for (k = 0; k < 4; k++)
		check_read(ds, k, 0, 0, mats[k], 1, HET_TRI_UPPER, fname);
	check_read(ds, 2, 5, 20, mats[2], 1, HET_TRI_UPPER, fname);
	het_dataset_close(ds);
	if (codec == HET_COMPRESS_LZF) {
		/* h5py's client data: revision 4, LZF 0x0105, chunk bytes. */
		fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
		dset = H5Dopen2(fid, "/xpcs/twotime/correlation_map/c2_00001",
		    H5P_DEFAULT);
		dcpl = H5Dget_create_plist(dset);
		ok(H5Pget_filter_by_id2(dcpl, HET_LZF_FILTER_ID, &flags, &ncd,
		    cd, 0, NULL, NULL) >= 0 && ncd == 3 && cd[0] == 4 &&
		    cd[1] == 0x0105 && cd[2] == 33 * 33 * 4 &&
		    (flags & H5Z_FLAG_OPTIONAL),
		    "lzf: cd_values {4, 261, %d} and the optional flag",
		    33 * 33 * 4);
		H5Pclose(dcpl);
		H5Dclose(dset);
		H5Fclose(fid);
	}
out:
	fx_apsu_free(&spec, mats);
	free(path);
}

/* A float32 file holds exactly the float32 values. */
static void
test_f32_precision(void)
{
	struct het_apsu_spec spec;
	struct het_dataset *ds;
	struct het_error err;
	double **mats, out[9];
	char *path = fx_path(dir, "prec.hdf");
	/* 1/3 and 0.1 are not float32 numbers; 1.5 and 0.75 are. */
	double m[9] = {
		1.0 / 3, 0.1, 1.5,
		0.1, 1.0 / 7, 0.75,
		1.5, 0.75, 2.718281828459045
	};
	const double *one[1] = { m };

	fx_apsu_basic(&spec, 1, 1, 3, &mats);
	spec.c2 = one;
	spec.nbins = 1;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "prec: write");
	ds = het_dataset_open(path, &err);
	ok(ds != NULL && het_dataset_read_c2(ds, 0, 0, 0, out, NULL, &err) ==
	    HET_OK, "prec: read");
	is_double(out[1], (double)(float)0.1, 0,
	    "c2[0][1] is float32(0.1) = %.17g", (double)(float)0.1);
	ok(out[1] != 0.1, "and not the double 0.1");
	is_double(out[2], 1.5, 0, "c2[0][2] = 1.5 exactly");
	is_double(out[7], 0.75, 0, "c2[2][1] = c2[1][2] = 0.75 exactly");
	is_double(out[0], (double)(float)0.1, 0,
	    "diagonal corrected: c2[0][0] = c2[0][1]");
	is_double(out[4], ((double)(float)0.1 + 0.75) / 2, 0,
	    "c2[1][1] = (c2[0][1] + c2[1][2]) / 2");
	is_double(out[8], 0.75, 0, "c2[2][2] = c2[1][2]");
	het_dataset_close(ds);
	spec.c2 = (const double *const *)mats;
	fx_apsu_free(&spec, mats);
	free(path);
}

/* dynamic_index_mapping that is not the identity, and partial labels. */
static void
test_mapping(void)
{
	struct het_apsu_spec spec;
	const struct het_bin *b;
	struct het_dataset *ds;
	struct het_error err;
	double **mats;
	char *path = fx_path(dir, "map.hdf");
	/* 5 of 12 cells have pixels; label b is cell mapping[b-1]. */
	const long mapping[5] = { 11, 0, 5, 7, 2 };
	const long labels[3] = { 1, 3, 5 };
	const size_t cells[3] = { 11, 5, 2 };
	size_t k;

	fx_apsu_basic(&spec, 3, 4, 6, &mats);
	spec.index_mapping = mapping;
	spec.n_mapping = 5;
	spec.labels = labels;
	spec.nbins = 3;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "map: write%s%s",
	    err.msg[0] ? ": " : "", err.msg);
	ds = het_dataset_open(path, &err);
	if (!ok(ds != NULL, "map: open"))
		diag("%s", err.msg);
	if (ds == NULL)
		goto out;
	for (k = 0; k < 3; k++) {
		b = het_dataset_bin(ds, k);
		ok(b->label == labels[k] && b->q_idx == cells[k] / 4 &&
		    b->phi_idx == cells[k] % 4 &&
		    b->q == spec.q[cells[k] / 4] &&
		    b->phi == spec.phi[cells[k] % 4],
		    "map: label %ld is cell %zu (q_idx %zu, phi_idx %zu), not "
		    "cell %ld as the reference loaders assume", labels[k],
		    cells[k], cells[k] / 4, cells[k] % 4, labels[k] - 1);
		check_read(ds, k, 0, 0, mats[k], 1, HET_TRI_UPPER, "map");
	}
	het_dataset_close(ds);
out:
	fx_apsu_free(&spec, mats);
	free(path);
}

/* dt metadata variants: (1,1) frame_time, absent factors, absent dt. */
static void
test_dt(void)
{
	struct het_apsu_spec spec;
	struct het_selection sel;
	const struct het_dataset_info *in;
	struct het_dataset *ds;
	struct het_error err;
	const char *src;
	double **mats, dt;
	char *path = fx_path(dir, "dt.hdf");

	fx_apsu_basic(&spec, 1, 1, 4, &mats);
	spec.frame_time = 2e-5;
	spec.frame_time_2d = 1;
	spec.stride_frame = 0;
	spec.avg_frame = 10;
	spec.energy_kev = NAN;
	spec.distance_m = NAN;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "dt: write");
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && in->dt == 2e-5 * 10,
	    "(1,1) frame_time times avg_frame, no stride: dt 2e-4");
	is_str(in != NULL ? in->dt_source : NULL,
	    "file: frame_time * avg_frame (stride_frame absent, taken as 1)",
	    "dt source says the stride was absent");
	ok(in != NULL && isnan(in->energy_kev) && in->energy_source == NULL &&
	    isnan(in->distance_m) && isnan(in->distance_raw) &&
	    in->distance_unit == NULL, "no energy, no distance");
	het_selection_init(&sel);
	ok(het_dataset_dt(ds, &sel, &dt, &src, &err) == HET_OK &&
	    dt == 2e-4 && strcmp(src, in->dt_source) == 0,
	    "het_dataset_dt gives the file's dt and source");
	sel.dt = 0.001;
	sel.dt_source = "config: analyzer_parameters.dt";
	ok(het_dataset_dt(ds, &sel, &dt, &src, &err) == HET_OK &&
	    dt == 0.001 && strcmp(src, sel.dt_source) == 0,
	    "a dt override wins and keeps its label");
	sel.dt_source = NULL;
	ok(het_dataset_dt(ds, &sel, &dt, &src, &err) == HET_OK &&
	    strcmp(src, "override") == 0, "unlabelled override");
	sel.dt = -1;
	is_int(het_dataset_dt(ds, &sel, &dt, &src, &err), HET_EINVAL,
	    "negative dt override rejected");
	like(err.msg, "dt = -1 is not a positive number of seconds",
	    "and the message says so");
	het_dataset_close(ds);

	spec.frame_time = NAN;
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "dt: write without "
	    "frame_time");
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && isnan(in->dt) && strcmp(in->dt_source, "none") == 0,
	    "no frame_time: dt unknown, source 'none'");
	is_int(het_dataset_dt(ds, NULL, &dt, &src, &err), HET_ENOTFOUND,
	    "het_dataset_dt fails without an override");
	like(err.msg, "dt is unknown: the file has no usable "
	    "/entry/instrument/detector_1/frame_time", "names the path");
	like(err.msg, "analyzer_parameters.dt", "and says how to set it");
	het_dataset_close(ds);

	spec.frame_time = 2e-5;
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "dt: rewrite");
	ok(fx_put(path, "/entry/instrument/detector_1/frame_time", 0, NULL,
	    (double[]){ -3 }, FX_F64) == 0, "set frame_time to -3");
	ds = het_dataset_open(path, &err);
	in = ds != NULL ? het_dataset_info(ds) : NULL;
	ok(in != NULL && isnan(in->dt), "negative frame_time: dt unknown");
	is_str(in != NULL ? in->dt_source : NULL, "none: frame_time "
	    "(/entry/instrument/detector_1/frame_time) is -3, not a "
	    "positive number", "and dt_source says why");
	het_dataset_close(ds);
	fx_apsu_free(&spec, mats);
	free(path);
}

/* Full symmetric storage, and lower-triangle storage. */
static void
test_storage_kinds(void)
{
	struct het_apsu_spec spec;
	struct het_dataset *ds;
	struct het_error err;
	double **mats;
	char *path = fx_path(dir, "full.hdf");
	size_t i, j, n = 9;

	fx_apsu_basic(&spec, 1, 2, n, &mats);
	spec.store_full = 1;
	spec.dtype = HET_DTYPE_F64;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "full: write");
	ds = het_dataset_open(path, &err);
	if (ds != NULL) {
		check_read(ds, 0, 0, 0, mats[0], 0, HET_TRI_FULL,
		    "full storage, not doubled");
		check_read(ds, 1, 3, 8, mats[1], 0, HET_TRI_FULL,
		    "full storage window");
	}
	het_dataset_close(ds);
	/* Turn bin 1 into lower storage: zero its upper triangle. */
	spec.store_full = 1;
	ok(het_apsu_write(path, &spec, &err) == HET_OK, "lower: write");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			fx_set_element(path,
			    "/xpcs/twotime/correlation_map/c2_00002", i, j, 0);
	ds = het_dataset_open(path, &err);
	if (ds != NULL)
		check_read(ds, 1, 0, 0, mats[1], 0, HET_TRI_LOWER,
		    "lower-triangle storage");
	het_dataset_close(ds);
	fx_apsu_free(&spec, mats);
	free(path);
}

static void
test_helpers(void)
{
	double m[9] = { 9, 2, 4, 2, 9, 6, 4, 6, 9 }, g[4];
	double c[16];
	size_t i;

	het_c2_correct_diagonal(m, 3);
	ok(m[0] == 2 && m[4] == 4 && m[8] == 6,
	    "diagonal correction: d0 = c01, d1 = (c01 + c12) / 2, d2 = c12");
	ok(m[1] == 2 && m[2] == 4 && m[5] == 6 && m[3] == 2,
	    "off-diagonal untouched");
	het_c2_lag_means(m, 3, g);
	ok(g[0] == 4 && g[1] == 4 && g[2] == 4, "lag means of a 3 x 3 matrix");
	for (i = 0; i < 16; i++)
		c[i] = 1.0 + 0.5 * (double)((i / 4) > (i % 4) ?
		    (i / 4) - (i % 4) : (i % 4) - (i / 4));
	het_c2_lag_means(c, 4, g);
	ok(g[0] == 1.0 && g[1] == 1.5 && g[2] == 2.0 && g[3] == 2.5,
	    "lag means: 1, 1.5, 2, 2.5");
	m[0] = 7;
	het_c2_correct_diagonal(m, 1);
	ok(m[0] == 7, "n = 1 is left alone");
	is_str(het_layout_name(HET_LAYOUT_LEGACY), "aps-legacy", "layout name");
	is_str(het_dtype_name(HET_DTYPE_MIXED), "mixed", "dtype name");
	is_str(het_compress_name(HET_COMPRESS_LZF), "lzf", "compress name");
	is_str(het_h5store_name(HET_STORE_COMPACT), "compact", "store name");
	is_str(het_tri_name(HET_TRI_LOWER), "lower", "tri name");
}

int
main(void)
{
	struct het_error err;

	plan_lazy();
	het_error_clear(&err);
	ok(het_h5_library_init(&err) == HET_OK, "HDF5 and LZF set up");
	dir = fx_tmpdir();
	if (dir == NULL)
		skip_all("cannot create a temporary directory");
	test_f64_plain();
	test_f32_codec(HET_COMPRESS_NONE, "f32.hdf");
	test_f32_codec(HET_COMPRESS_GZIP, "gzip.hdf");
	test_f32_codec(HET_COMPRESS_LZF, "lzf.hdf");
	test_f32_precision();
	test_mapping();
	test_dt();
	test_storage_kinds();
	test_helpers();
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
