/*
 * t_core_multitau.c: the multitau reader (het_multitau_read).
 *
 * Valid files, each read back value for value against what was
 * written: boost_corr's layout (normalized_g2 as (n_tau, n_bins),
 * float32, int64 frame delays turned into seconds by frame_time x
 * stride x avg), the other orientation (n_bins, n_tau) with delays in
 * seconds, a square table decided by storage_mode, a q map with phi
 * sectors and a non-identity dynamic_index_mapping, one without a phi
 * list, delays with a unit attribute, zero errors counted, and a file
 * that holds two-time data too.  Then every refusal with its message:
 * no multitau group, a missing dataset, a missing q list, mismatched
 * shapes (g2 against the lengths, errors against g2), an ambiguous
 * square table, a storage_mode that contradicts the shape or is
 * unknown, an unknown delay unit, frame delays without a frame time,
 * delays not positive, not increasing or not a list, NaN and Inf in g2,
 * negative and non-finite errors, a 3-D table, a file that is not
 * HDF5, no file name.  Last, het_dataset_open on a multitau-only file
 * says where its data are shown.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "fixture_h5.h"
#include "fixture_mt.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_multitau.h"
#include "tap.h"

#define NTAU	21
#define NB	4

static char *dir, *path;
static double delay[NTAU], g2[NB * NTAU], err[NB * NTAU];
static const double qs[NB] = { 0.00213, 0.00397, 0.00561, 0.00738 };

/* A deterministic table: g2 and errors of 4 bins at 21 delays. */
static void
tables(void)
{
	struct fx_mt_sim s = { 4.87e4, 0.213, 1.0037, 1.0, 0.004, 20240611 };
	size_t n = fx_mt_delays(100000, delay, NTAU);
	double tau[NTAU];
	size_t k;

	if (n != NTAU)
		diag("fx_mt_delays gave %zu delays", n);
	for (k = 0; k < NTAU; k++)
		tau[k] = delay[k] * 1.3e-4 * 3 * 2;
	fx_mt_simulate(&s, tau, NTAU, qs, NB, g2, err);
}

/* boost_corr's file: tau first, float32, int64 frames, one sector. */
static void
spec(struct fx_mt *m)
{
	fx_mt_rings(m, NTAU, delay, NB, qs, g2, err);
	m->f32 = 1;
	m->frame_time = 1.3e-4;
	m->stride = 3;
	m->avg = 2;
}

static struct het_multitau *
reads(const struct fx_mt *m, const char *what)
{
	struct het_multitau *mt;
	struct het_error e;

	if (fx_mt_write(path, m) != 0) {
		ok(0, "%s: fixture written", what);
		return NULL;
	}
	het_error_clear(&e);
	mt = het_multitau_read(path, &e);
	ok(mt != NULL, "%s: read", what);
	if (mt == NULL)
		diag("%s", e.msg);
	return mt;
}

/* Every value read equals the one written (rounded to float32 first). */
static void
same_tables(const struct het_multitau *mt, int f32, const char *what)
{
	size_t i, bad = 0;
	double w, we;

	for (i = 0; i < NB * NTAU; i++) {
		w = f32 ? (double)(float)g2[i] : g2[i];
		we = f32 ? (double)(float)err[i] : err[i];
		bad += mt->g2[i] != w || mt->g2_err[i] != we;
	}
	is_int((long long)bad, 0, "%s: every g2 and error as written, "
	    "bin-major", what);
}

static void
test_boost_corr(void)
{
	struct het_multitau *mt;
	struct fx_mt m;
	size_t k, bad = 0;

	spec(&m);
	if ((mt = reads(&m, "tau first, int64 frames")) == NULL)
		return;
	is_int((long long)mt->ntau, NTAU, "21 delays");
	is_int((long long)mt->nbins, NB, "4 bins");
	is_int(mt->orient, HET_MT_TAU_FIRST, "orientation: delays first");
	like(mt->orient_why, "the 21 delays of delay_list are its first axis",
	    "the orientation is decided by the lengths");
	is_int(mt->delay_unit, HET_MT_FRAMES, "delays in frames");
	is_rel(mt->t0, 1.3e-4 * 3 * 2, 1e-15, "t0 = frame_time x stride x "
	    "avg");
	for (k = 0; k < NTAU; k++)
		bad += mt->tau[k] != delay[k] * mt->t0;
	is_int((long long)bad, 0, "tau = delay x t0 at every delay");
	like(mt->tau_source, "in frames (integers: frame counts) x 0.00078 s",
	    "tau_source says how");
	like(mt->tau_source, "frame_time * stride_frame * avg_frame",
	    "tau_source names the factors");
	is_rel(mt->frame_time, 1.3e-4, 1e-15, "frame_time");
	is_int(mt->stride, 3, "stride");
	is_int(mt->avg, 2, "avg");
	same_tables(mt, 1, "tau first");
	is_double(mt->bins[2].q, qs[2], 0, "bin 3 has the third q");
	is_int(mt->bins[2].label, 3, "bin 3 has label 3");
	is_int((long long)mt->bins[3].nused, NTAU, "every point is usable");
	is_int((long long)mt->nzero_err, 0, "no zero error");
	ok(!mt->has_twotime, "no two-time data");
	is_str(het_mt_orient_name(mt->orient), "tau_first", "orient name");
	is_str(het_mt_unit_name(mt->delay_unit), "frames", "unit name");
	het_multitau_free(mt);
}

static void
test_bin_first_seconds(void)
{
	struct het_multitau *mt;
	double sec[NTAU];
	struct fx_mt m;
	size_t k, bad = 0;

	for (k = 0; k < NTAU; k++)
		sec[k] = delay[k] * 7.7e-4;
	spec(&m);
	m.bin_first = 1;
	m.f32 = 0;
	m.delay = sec;
	m.delay_int = 0;
	m.frame_time = NAN;
	if ((mt = reads(&m, "bin first, float seconds")) == NULL)
		return;
	is_int(mt->orient, HET_MT_BIN_FIRST, "orientation: bins first");
	like(mt->orient_why, "the 4 bins of the q map the first",
	    "said so");
	is_int(mt->delay_unit, HET_MT_SECONDS, "fractional delays: seconds");
	is_double(mt->t0, 1.0, 0, "t0 = 1");
	for (k = 0; k < NTAU; k++)
		bad += mt->tau[k] != sec[k];
	is_int((long long)bad, 0, "tau = delay_list");
	like(mt->tau_source, "in seconds (fractional values: seconds)",
	    "tau_source");
	ok(isnan(mt->frame_time), "no frame time");
	same_tables(mt, 0, "bin first");
	het_multitau_free(mt);
}

static void
test_square(void)
{
	struct het_multitau *mt;
	struct fx_mt m;
	double q21[NTAU];
	static double g[NTAU * NTAU], e[NTAU * NTAU];
	size_t k, bad = 0;

	for (k = 0; k < NTAU; k++)
		q21[k] = 0.002 + 1.1e-4 * (double)k;
	for (k = 0; k < NTAU * NTAU; k++) {
		g[k] = 1.0 + 0.001 * (double)k;
		e[k] = 0.01 + 1e-5 * (double)k;
	}
	spec(&m);
	m.nbins = m.n_q = NTAU;
	m.q = q21;
	m.g2 = g;
	m.err = e;
	m.f32 = 0;
	m.storage_mode = "one_array_q_first";
	m.bin_first = 1;
	if ((mt = reads(&m, "square, storage_mode q first")) == NULL)
		return;
	is_int(mt->orient, HET_MT_BIN_FIRST, "storage_mode decides");
	like(mt->orient_why, "storage_mode 'one_array_q_first'", "said so");
	for (k = 0; k < NTAU * NTAU; k++)
		bad += mt->g2[k] != g[k];
	is_int((long long)bad, 0, "rows are bins: read as written");
	het_multitau_free(mt);
	m.storage_mode = "one_array_q_last";
	m.bin_first = 0;
	if ((mt = reads(&m, "square, storage_mode q last")) == NULL)
		return;
	is_int(mt->orient, HET_MT_TAU_FIRST, "rows are delays");
	for (bad = 0, k = 0; k < NTAU * NTAU; k++)
		bad += mt->g2[k] != g[k];
	is_int((long long)bad, 0, "transposed back to bin-major");
	het_multitau_free(mt);
}

static void
test_qmap(void)
{
	static const long mapping[NB] = { 5, 0, 3, 2 };
	static const double q3[3] = { 0.0031, 0.0052, 0.0077 };
	static const double phi2[2] = { -45.5, 44.5 };
	struct het_multitau *mt;
	struct fx_mt m;
	size_t b;
	int good = 1;

	spec(&m);
	m.n_q = 3;
	m.q = q3;
	m.n_phi = 2;
	m.phi = phi2;
	m.mapping = mapping;
	if ((mt = reads(&m, "3 q x 2 phi, mapping")) == NULL)
		return;
	ok(mt->has_phi && mt->n_phi == 2 && mt->n_q == 3, "3 q, 2 phi");
	for (b = 0; b < NB; b++)
		good &= mt->bins[b].q == q3[mapping[b] / 2] &&
		    mt->bins[b].phi == phi2[mapping[b] % 2] &&
		    mt->bins[b].q_idx == (size_t)mapping[b] / 2 &&
		    mt->bins[b].phi_idx == (size_t)mapping[b] % 2;
	ok(good, "each bin in its cell of dynamic_index_mapping");
	is_double(mt->bins[0].phi, 44.5, 0, "bin 1 -> cell 5: phi 44.5");
	het_multitau_free(mt);
	spec(&m);
	m.phi = NULL;
	if ((mt = reads(&m, "no phi list")) == NULL)
		return;
	ok(!mt->has_phi && mt->n_phi == 1 && mt->phi_list[0] == 0.0,
	    "one sector at 0 without a phi list");
	het_multitau_free(mt);
}

static void
test_units(void)
{
	struct het_multitau *mt;
	struct fx_mt m;

	spec(&m);
	m.delay_int = 0;
	m.delay_unit = "s";
	if ((mt = reads(&m, "whole float delays with unit 's'")) != NULL) {
		is_int(mt->delay_unit, HET_MT_SECONDS, "the unit decides");
		like(mt->tau_source, "unit attribute 's'", "said so");
		is_double(mt->tau[NTAU - 1], delay[NTAU - 1], 0, "tau = "
		    "delay");
		het_multitau_free(mt);
	}
	m.delay_unit = NULL;
	if ((mt = reads(&m, "whole float delays")) != NULL) {
		is_int(mt->delay_unit, HET_MT_FRAMES, "whole numbers: frames");
		like(mt->tau_source, "whole numbers: frame counts", "said so");
		het_multitau_free(mt);
	}
	m.delay_unit = "frames";
	if ((mt = reads(&m, "unit 'frames'")) != NULL) {
		is_int(mt->delay_unit, HET_MT_FRAMES, "frames");
		het_multitau_free(mt);
	}
}

static void
test_zero_errors(void)
{
	struct het_multitau *mt;
	double saved[3];
	struct fx_mt m;

	saved[0] = err[5];
	saved[1] = err[NTAU + 2];
	saved[2] = g2[NTAU + 2];
	err[5] = 0.0;
	err[NTAU + 2] = 0.0;
	g2[NTAU + 2] = 0.0;	/* as boost_corr writes a bin without photons */
	spec(&m);
	if ((mt = reads(&m, "two zero errors")) != NULL) {
		is_int((long long)mt->nzero_err, 2, "two zero errors counted");
		is_int((long long)mt->bins[0].nused, NTAU - 1, "bin 1: one "
		    "point less usable");
		is_int((long long)mt->bins[1].nused, NTAU - 1, "bin 2 too");
		is_int((long long)mt->bins[2].nused, NTAU, "bin 3: all");
		het_multitau_free(mt);
	}
	err[5] = saved[0];
	err[NTAU + 2] = saved[1];
	g2[NTAU + 2] = saved[2];
}

/* The same file with both kinds of data, its q map from het_apsu_write. */
static void
test_both(void)
{
	struct het_apsu_spec as;
	struct het_multitau *mt;
	struct het_dataset *ds;
	struct het_error e;
	double **mats;
	struct fx_mt m;

	fx_apsu_basic(&as, NB, 1, 6, &mats);
	het_error_clear(&e);
	ok(het_apsu_write(path, &as, &e) == HET_OK, "two-time file written");
	spec(&m);
	m.append = 1;
	m.q = as.q;
	if ((mt = reads(&m, "two-time file with multitau")) != NULL) {
		ok(mt->has_twotime, "has_twotime");
		is_double(mt->bins[1].q, as.q[1], 0, "q from the shared map");
		het_multitau_free(mt);
	}
	ds = het_dataset_open(path, &e);
	ok(ds != NULL, "the two-time data still open");
	het_dataset_close(ds);
	fx_apsu_free(&as, mats);
}

/* Reading fails with code and a message holding n1 (and n2). */
static void
fails(int code, const char *what, const char *n1, const char *n2)
{
	struct het_multitau *mt;
	struct het_error e;

	het_error_clear(&e);
	mt = het_multitau_read(path, &e);
	ok(mt == NULL && e.code == code, "%s: refused with %s", what,
	    het_status_name(code));
	diag("%s: %s", het_status_name(e.code), e.msg);
	het_multitau_free(mt);
	ok(strncmp(e.msg, path, strlen(path)) == 0, "%s: the message starts "
	    "with the file name", what);
	like(e.msg, n1, "%s: says '%s'", what, n1);
	if (n2 != NULL)
		like(e.msg, n2, "%s: says '%s'", what, n2);
}

/* Write spec m, then refuse. */
static void
write_fails(const struct fx_mt *m, int code, const char *what,
    const char *n1, const char *n2)
{
	if (fx_mt_write(path, m) != 0) {
		ok(0, "%s: fixture written", what);
		return;
	}
	fails(code, what, n1, n2);
}

/* The file of m without obj: refused with HET_EFORMAT saying n1. */
static void
without(const struct fx_mt *m, const char *obj, const char *what,
    const char *n1)
{
	fx_mt_write(path, m);
	fx_delete(path, obj);
	fails(HET_EFORMAT, what, n1, NULL);
}

static void
test_layout_refusals(void)
{
	struct fx_mt m;

	fx_new_file(path, "/xpcs/qmap");
	fails(HET_ENOTFOUND, "no multitau group", "the file has no multitau "
	    "data (/xpcs/multitau is missing)", NULL);
	spec(&m);
	without(&m, "/xpcs/multitau/normalized_g2_err", "no errors",
	    "/xpcs/multitau/normalized_g2_err is missing: the multitau group "
	    "needs the errors of g2");
	without(&m, "/xpcs/multitau/delay_list", "no delays", "delay_list "
	    "is missing");
	without(&m, "/xpcs/qmap/dynamic_v_list_dim0", "no q list",
	    "/xpcs/qmap/dynamic_v_list_dim0 is missing: the multitau g2 has "
	    "one column per q bin");
	fx_mt_write(path, &m);
	fx_delete(path, "/xpcs/multitau/normalized_g2");
	fx_group(path, "/xpcs/multitau/normalized_g2");
	fails(HET_EFORMAT, "g2 a group", "normalized_g2 is not a dataset",
	    NULL);
	fx_mt_write(path, &m);
	fx_put(path, "/xpcs/multitau/normalized_g2", 2,
	    (unsigned long long[]){ 2, 2 }, (double[]){ 1, 2, 3, 4 }, FX_F64);
	fails(HET_EFORMAT, "g2 of the wrong shape", "mismatched shapes: "
	    "/xpcs/multitau/normalized_g2 is (2, 2) but "
	    "/xpcs/multitau/delay_list has 21 delays and the q map 4 bins",
	    "should be (21, 4) or (4, 21)");
	fx_mt_write(path, &m);
	fx_put(path, "/xpcs/multitau/normalized_g2_err", 2,
	    (unsigned long long[]){ NTAU, NB - 1 }, g2, FX_F64);
	fails(HET_EFORMAT, "errors of another shape", "mismatched shapes: "
	    "/xpcs/multitau/normalized_g2_err is (21, 3) but "
	    "/xpcs/multitau/normalized_g2 is (21, 4)", "every g2 point needs "
	    "its error");
	fx_write_text(path, "g2 of run 42\n");
	fails(HET_ENOTFOUND, "a text file", "not an HDF5 file, so no "
	    "multitau data", NULL);
}

static void
test_orientation_refusals(void)
{
	static double g[NTAU * NTAU], e[NTAU * NTAU];
	struct fx_mt m;
	double q21[NTAU];
	size_t k;

	for (k = 0; k < NTAU; k++)
		q21[k] = 0.002 + 1.1e-4 * (double)k;
	for (k = 0; k < NTAU * NTAU; k++) {
		g[k] = 1.0 + 0.001 * (double)k;
		e[k] = 0.01;
	}
	spec(&m);
	m.nbins = m.n_q = NTAU;
	m.q = q21;
	m.g2 = g;
	m.err = e;
	write_fails(&m, HET_EFORMAT, "square without storage_mode",
	    "cannot tell the delay axis from the q axis: add the attribute "
	    "storage_mode = 'one_array_q_last'", "f['/xpcs/multitau/"
	    "normalized_g2'].attrs['storage_mode'] = 'one_array_q_last'");
	spec(&m);
	m.storage_mode = "one_array_q_first";
	write_fails(&m, HET_EFORMAT, "storage_mode against the shape",
	    "says storage_mode 'one_array_q_first' but its shape (21, 4) has "
	    "the 21 delays first", "contradicts the data");
	m.storage_mode = "data_exchange_keys";
	write_fails(&m, HET_EFORMAT, "unknown storage_mode", "has "
	    "storage_mode 'data_exchange_keys'; hetui reads one array",
	    NULL);
}

static void
test_delay_refusals(void)
{
	double d[NTAU];
	struct fx_mt m;

	spec(&m);
	m.delay_unit = "ms";
	write_fails(&m, HET_EFORMAT, "unit ms", "has the unit attribute 'ms', "
	    "which hetui does not read: store the delays in seconds with "
	    "unit 's'", NULL);
	spec(&m);
	m.frame_time = NAN;
	write_fails(&m, HET_EFORMAT, "frames without a frame time",
	    "delay_list holds frame counts (integers: frame counts) but the "
	    "frame time is unknown (none)", "write the frame time in seconds "
	    "to /entry/instrument/detector_1/frame_time");
	m.frame_time = -2.5e-3;
	write_fails(&m, HET_EFORMAT, "a negative frame time", "frame time is "
	    "unknown (none: frame_time (/entry/instrument/detector_1/"
	    "frame_time) is -0.0025", "not a positive number");
	memcpy(d, delay, sizeof(d));
	d[0] = 0;
	spec(&m);
	m.delay = d;
	write_fails(&m, HET_EDATA, "a zero delay", "/xpcs/multitau/"
	    "delay_list[0] = 0: a delay must be a finite time after 0",
	    NULL);
	memcpy(d, delay, sizeof(d));
	d[4] = d[2];
	write_fails(&m, HET_EDATA, "delays not increasing", "delay_list is "
	    "not increasing: entry 4 (3) follows entry 3 (4)", NULL);
	spec(&m);
	fx_mt_write(path, &m);
	fx_put(path, "/xpcs/multitau/delay_list", 2,
	    (unsigned long long[]){ 3, 7 }, delay, FX_F64);
	fails(HET_EFORMAT, "a 2-D delay list", "has shape (3, 7); expected "
	    "one list of delays", NULL);
}

static void
test_value_refusals(void)
{
	struct fx_mt m;
	double keep, keep2;

	spec(&m);
	m.f32 = 0;
	keep = g2[2 * NTAU + 7];
	keep2 = g2[3 * NTAU + 1];
	g2[2 * NTAU + 7] = NAN;
	g2[3 * NTAU + 1] = INFINITY;
	write_fails(&m, HET_EDATA, "NaN and Inf in g2", "normalized_g2 holds "
	    "a value that is not a number: nan at delay 7", "of bin 3 (q "
	    "0.00561 1/A); 2 such points in all");
	g2[2 * NTAU + 7] = keep;
	g2[3 * NTAU + 1] = keep2;
	keep = err[NTAU + 3];
	err[NTAU + 3] = -0.002;
	write_fails(&m, HET_EDATA, "a negative error", "normalized_g2_err "
	    "holds a negative error (an error is a standard deviation, 0 or "
	    "more): -0.002 at delay 3", "of bin 2 (q 0.00397 1/A); 1 such "
	    "point in all");
	err[NTAU + 3] = NAN;
	write_fails(&m, HET_EDATA, "a NaN error", "holds an error that is "
	    "not a number: nan at delay 3", NULL);
	err[NTAU + 3] = keep;
	spec(&m);
	fx_mt_write(path, &m);
	{
		hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
		hsize_t d3[3] = { 2, 2, 2 };
		hid_t sp = H5Screate_simple(3, d3, NULL);
		hid_t ds;

		H5Ldelete(f, "/xpcs/multitau/normalized_g2", H5P_DEFAULT);
		ds = H5Dcreate2(f, "/xpcs/multitau/normalized_g2",
		    H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT,
		    H5P_DEFAULT);
		H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
		    H5P_DEFAULT, g2);
		H5Dclose(ds);
		H5Sclose(sp);
		H5Fclose(f);
	}
	fails(HET_EFORMAT, "a 3-D g2", "has shape (2, 2, 2); expected a "
	    "table of at most two dimensions", NULL);
}

static void
test_misc(void)
{
	struct het_dataset *ds;
	struct het_error e;
	struct fx_mt m;

	het_error_clear(&e);
	ok(het_multitau_read("", &e) == NULL && e.code == HET_EINVAL,
	    "no file name: HET_EINVAL");
	spec(&m);
	fx_mt_write(path, &m);
	het_error_clear(&e);
	ds = het_dataset_open(path, &e);
	ok(ds == NULL, "het_dataset_open refuses a multitau-only file");
	like(e.msg, "it is a multitau-only result, with g2(tau) in "
	    "/xpcs/multitau", "and says what it holds");
	like(e.msg, "'hetui FILE' shows its g2 and their fits in the Data "
	    "panel", "and where it is shown");
	het_dataset_close(ds);
	het_multitau_free(NULL);
	ok(1, "het_multitau_free(NULL) is a no-op");
}

/* The sentence of a file that neither reader opens. */
static void
test_why_not(void)
{
	struct het_error de, me, out;
	struct het_multitau *mt;
	struct het_dataset *ds;
	struct fx_mt m;
	double keep = g2[7];

	g2[7] = NAN;
	spec(&m);
	m.f32 = 0;
	fx_mt_write(path, &m);
	g2[7] = keep;
	het_error_clear(&de);
	het_error_clear(&me);
	ds = het_dataset_open(path, &de);
	mt = het_multitau_read(path, &me);
	ok(ds == NULL && mt == NULL, "bad multitau-only file: neither opens");
	het_multitau_why_not(&de, &me, &out);
	is_int(out.code, HET_EDATA, "the multitau code");
	like(out.msg, "it is a multitau-only result", "the two-time reason");
	like(out.msg, "; its multitau data cannot be shown either: "
	    "/xpcs/multitau/normalized_g2 holds a value that is not a number",
	    "then the multitau one, without the file name again");
	ok(strncmp(out.msg, path, strlen(path)) == 0 &&
	    strstr(out.msg + 1, path) == NULL, "the file name once, first");
	het_multitau_why_not(&de, &me, &de);
	is_str(de.msg, out.msg, "out may be dserr");
	fx_write_text(path, "not a result\n");
	ds = het_dataset_open(path, &de);
	mt = het_multitau_read(path, &me);
	het_multitau_why_not(&de, &me, &out);
	ok(out.code == HET_EFORMAT && strcmp(out.msg, de.msg) == 0, "a text "
	    "file: the dataset's sentence alone (%s)", out.msg);
	het_error_set(&de, HET_EFORMAT, "%s: damaged", path);
	me = de;
	het_multitau_why_not(&de, &me, &out);
	is_str(out.msg, de.msg, "the same sentence twice: once");
}

int
main(void)
{
	struct het_error e;

	plan_lazy();
	het_error_clear(&e);
	het_h5_library_init(&e);
	if ((dir = fx_tmpdir()) == NULL)
		skip_all("cannot create a temporary directory");
	path = fx_path(dir, "mt_results.hdf");
	tables();
	test_boost_corr();
	test_bin_first_seconds();
	test_square();
	test_qmap();
	test_units();
	test_zero_errors();
	test_both();
	test_layout_refusals();
	test_orientation_refusals();
	test_delay_refusals();
	test_value_refusals();
	test_misc();
	test_why_not();
	free(path);
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
