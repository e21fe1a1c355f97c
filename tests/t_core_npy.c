/*
 * t_core_npy.c: NumPy .npy matrices (het_npy.h) and the .npy layout of
 * the dataset model (het_dataset.h: het_dataset_open_meta and sidecars).
 *
 * Files are written here byte by byte as np.save writes them (version
 * 1.0, 2.0 and 3.0 headers; float32 and float64, both byte orders, C and
 * Fortran order; one matrix or a stack), with values v(k, i, j) = k +
 * i / 100 + j / 10000 + 1 that say where they came from, so every read
 * window is checked value by value.  Then every refusal of a header and
 * of a sidecar, with its message; the measured CHX matrix of
 * tests/shared (its SOURCES.md: 350 x 350 float64, full, symmetric, lag
 * 10 mean 1.0614) read through a sidecar; and a stack selected by angle.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_dataset.h"
#include "het_npy.h"
#include "tap.h"

static char dir[512];
static int upper_only;	/* write_npy: zero below the diagonal (half storage) */

static double
val(size_t k, size_t i, size_t j)
{
	return 1.0 + (double)k + (double)i / 100.0 + (double)j / 10000.0;
}

/* The stored value: val, or 0 below the diagonal with upper_only. */
static double
stored(size_t k, size_t i, size_t j)
{
	return upper_only && i > j ? 0 : val(k, i, j);
}

static void
rm_file(const char *name)
{
	char path[600];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	unlink(path);
}

/* Write v as item size isz, big-endian when big. */
static void
put_item(FILE *fp, double v, int isz, int big)
{
	unsigned char b[8];
	uint64_t u8;
	uint32_t u4;
	float f = (float)v;
	int t;

	if (isz == 4) {
		memcpy(&u4, &f, 4);
		for (t = 0; t < 4; t++)
			b[big ? 3 - t : t] = (unsigned char)(u4 >> (8 * t));
	} else {
		memcpy(&u8, &v, 8);
		for (t = 0; t < 8; t++)
			b[big ? 7 - t : t] = (unsigned char)(u8 >> (8 * t));
	}
	fwrite(b, 1, (size_t)isz, fp);
}

/*
 * A .npy file: version major, the header dict text as given (padded to
 * a multiple of 64 with blanks and a newline), then m matrices of side
 * n in C or Fortran order (m 0: a 2-D array; -1: no data at all), extra
 * bytes after them.
 */
static char *
write_npy(const char *name, int major, const char *dict, int isz, int big,
    int fortran, long m, size_t n, size_t extra)
{
	static char path[600];
	size_t pre = major == 1 ? 10 : 12, hl, k, i, j, mm;
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fp = fopen(path, "wb")) == NULL)
		return NULL;
	hl = strlen(dict) + 1;
	hl += (64 - (pre + hl) % 64) % 64;
	fwrite("\x93NUMPY", 1, 6, fp);
	fputc(major, fp);
	fputc(0, fp);
	fputc((int)(hl & 0xff), fp);
	fputc((int)(hl >> 8), fp);
	if (major != 1) {
		fputc(0, fp);
		fputc(0, fp);
	}
	fputs(dict, fp);
	for (i = strlen(dict) + 1; i < hl; i++)
		fputc(' ', fp);
	fputc('\n', fp);
	mm = m < 1 ? 1 : (size_t)m;
	if (m >= 0) {
		if (!fortran) {
			for (k = 0; k < mm; k++)
				for (i = 0; i < n; i++)
					for (j = 0; j < n; j++)
						put_item(fp, stored(k, i, j), isz,
						    big);
		} else {	/* first index fastest */
			for (j = 0; j < n; j++)
				for (i = 0; i < n; i++)
					for (k = 0; k < mm; k++)
						put_item(fp, stored(k, i, j), isz,
						    big);
		}
	}
	for (i = 0; i < extra; i++)
		fputc(0, fp);
	fclose(fp);
	return path;
}

/* Read window f0..f0+w-1 of matrix k and compare it value by value. */
static void
check_window(const char *what, const char *path, size_t k, size_t f0,
    size_t w, int isz)
{
	struct het_error err;
	struct het_npy *npy;
	double *out = calloc(w * w, sizeof *out), bad = 0, d;
	size_t i, j;

	if ((npy = het_npy_open(path, &err)) == NULL) {
		ok(0, "%s: opens (%s)", what, err.msg);
		free(out);
		return;
	}
	is_int(het_npy_read(npy, k, f0, w, out, &err), HET_OK, "%s: window "
	    "%zu..%zu of matrix %zu read", what, f0, f0 + w - 1, k);
	for (i = 0; i < w; i++)
		for (j = 0; j < w; j++) {
			d = fabs(out[i * w + j] - val(k, f0 + i, f0 + j));
			if (d > bad)
				bad = d;
		}
	ok(bad <= (isz == 4 ? 1e-6 * (double)(k + 2) : 0), "%s: every value "
	    "where it belongs (largest error %g)", what, bad);
	het_npy_close(npy);
	free(out);
}

static void
readers(void)
{
	char *p;

	p = write_npy("c8.npy", 1, "{'descr': '<f8', 'fortran_order': False, "
	    "'shape': (7, 7), }", 8, 0, 0, 0, 7, 0);
	check_window("v1.0 <f8 C 7 x 7, whole", p, 0, 0, 7, 8);
	check_window("v1.0 <f8 C 7 x 7, window 2..5", p, 0, 2, 4, 8);
	p = write_npy("f4big.npy", 2, "{'descr': '>f4', 'fortran_order': "
	    "True, 'shape': (3, 6, 6)}", 4, 1, 1, 3, 6, 0);
	check_window("v2.0 >f4 Fortran stack, matrix 2 window 1..4", p, 2, 1,
	    4, 4);
	check_window("v2.0 >f4 Fortran stack, matrix 0 whole", p, 0, 0, 6, 4);
	p = write_npy("f8stack.npy", 3, "{\"shape\": (2, 5, 5), \"descr\": "
	    "\"<f8\", \"fortran_order\": False}", 8, 0, 0, 2, 5, 0);
	check_window("v3.0 double quotes, keys in another order, stack", p,
	    1, 0, 5, 8);
	p = write_npy("fort2d.npy", 1, "{'descr': '<f8', 'fortran_order': "
	    "True, 'shape': (6L, 6L), }", 8, 0, 1, 0, 6, 0);
	check_window("Fortran 2-D with Python 2 longs, window 3..5", p, 0, 3,
	    3, 8);
}

/* A header refused, with a message that contains needle. */
static void
refused(const char *what, const char *path, const char *needle)
{
	struct het_error err;
	struct het_npy *npy;

	het_error_clear(&err);
	npy = het_npy_open(path, &err);
	ok(npy == NULL && err.code == HET_EFORMAT, "%s: refused", what);
	like(err.msg, needle, "... %s", err.msg);
	het_npy_close(npy);
}

static void
refusals(void)
{
	static const char *const hdr = "{'descr': '<f8', 'fortran_order': "
	    "False, 'shape': (4, 4), }";
	struct het_npy_hdr h;
	struct het_error err;
	unsigned char junk[16] = "\x93NUMPX\x01\x00";

	is_int(het_npy_parse_header(junk, sizeof junk, 16, &h, &err),
	    HET_EFORMAT, "wrong magic: refused");
	like(err.msg, "not a NumPy .npy file", "... %s", err.msg);
	memcpy(junk, "\x93NUMPY\x04\x00", 8);
	is_int(het_npy_parse_header(junk, sizeof junk, 16, &h, &err),
	    HET_EFORMAT, "version 4.0: refused");
	like(err.msg, "version 4.0 is not one hetui reads", "... %s",
	    err.msg);
	is_int(het_npy_parse_header(junk, 7, 7, &h, &err), HET_EFORMAT,
	    "a file of 7 bytes: refused");
	refused("int64", write_npy("i8.npy", 1, "{'descr': '<i8', "
	    "'fortran_order': False, 'shape': (4, 4), }", 8, 0, 0, 0, 4, 0),
	    "dtype '<i8' is not float32 or float64");
	refused("complex", write_npy("c16.npy", 1, "{'descr': '<c16', "
	    "'fortran_order': False, 'shape': (4, 4), }", 8, 0, 0, 0, 4, 0),
	    "dtype '<c16'");
	refused("1-D", write_npy("v.npy", 1, "{'descr': '<f8', "
	    "'fortran_order': False, 'shape': (16,), }", 8, 0, 0, 0, 4, 0),
	    "1 dimension; hetui reads one two-time matrix");
	refused("not square", write_npy("ns.npy", 1, "{'descr': '<f8', "
	    "'fortran_order': False, 'shape': (4, 2, 8), }", 8, 0, 0, 0, 4,
	    0), "not square (2 x 8)");
	refused("empty stack", write_npy("e.npy", 1, "{'descr': '<f8', "
	    "'fortran_order': False, 'shape': (0, 4, 4), }", 8, 0, 0, -1, 4,
	    0), "empty or its matrices are smaller than 2 x 2");
	refused("truncated", write_npy("t.npy", 1, hdr, 8, 0, 0, -1, 4, 100),
	    "truncated: its header promises 128 bytes of data, the file "
	    "holds 100");
	refused("trailing bytes", write_npy("x.npy", 1, hdr, 8, 0, 0, 0, 4, 3),
	    "3 bytes after its array");
	refused("unknown key", write_npy("u.npy", 1, "{'descr': '<f8', "
	    "'fortran_order': False, 'shape': (4, 4), 'x': 1}", 8, 0, 0, 0, 4,
	    0), "unknown key 'x'");
	refused("duplicate key", write_npy("d.npy", 1, "{'descr': '<f8', "
	    "'descr': '<f8', 'fortran_order': False, 'shape': (4, 4)}", 8, 0,
	    0, 0, 4, 0), "a second key 'descr'");
	refused("missing key", write_npy("m.npy", 1, "{'descr': '<f8', "
	    "'shape': (4, 4)}", 8, 0, 0, 0, 4, 0), "lacks 'fortran_order'");
	refused("not a bool", write_npy("b.npy", 1, "{'descr': '<f8', "
	    "'fortran_order': 0, 'shape': (4, 4)}", 8, 0, 0, 0, 4, 0),
	    "'0' at character 35 where True or False was expected");
	refused("junk after the dict", write_npy("j.npy", 1, "{'descr': "
	    "'<f8', 'fortran_order': False, 'shape': (4, 4)} x", 8, 0, 0, 0,
	    4, 0), "where nothing but padding after the dict was expected");
	refused("unterminated string", write_npy("s.npy", 1, "{'descr: ",
	    8, 0, 0, -1, 4, 0), "where a string closed by its quote was "
	    "expected");
	refused("an overlong key", write_npy("l.npy", 1, "{'descr_and_a_"
	    "key_longer_than_any_npy_key': 1}", 8, 0, 0, -1, 4, 0),
	    "where a short string without escapes was expected");
}

/* A dataset refused by het_dataset_open_meta, message containing needle. */
static void
ds_refused(const char *what, const char *path,
    const struct het_dataset_meta *meta, const char *needle)
{
	struct het_dataset *ds;
	struct het_error err;

	het_error_clear(&err);
	ds = het_dataset_open_meta(path, meta, &err);
	ok(ds == NULL && err.code != HET_OK, "%s: refused", what);
	like(err.msg, needle, "... %s", err.msg);
	het_dataset_close(ds);
}

static void
write_text(const char *name, const char *text)
{
	char path[600];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fp = fopen(path, "w")) != NULL) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void
sidecars(void)
{
	struct het_dataset_meta meta = { 0 };
	const struct het_dataset_info *in;
	struct het_selection sel;
	struct het_dataset *ds;
	struct het_pick pick;
	struct het_c2_info ci;
	struct het_error err;
	double phi[3] = { -30, 0, 60 }, c2[16], dt;
	const char *src;
	char *p;

	upper_only = 1;
	p = write_npy("st.npy", 1, "{'descr': '<f8', 'fortran_order': "
	    "False, 'shape': (3, 4, 4), }", 8, 0, 0, 3, 4, 0);
	upper_only = 0;
	ds_refused("no sidecar, no q", p, NULL, "holds no q: give it with "
	    "--q, in the configuration (analyzer_parameters.scattering."
	    "wavevector_q), or as q: in a sidecar st.yaml");
	meta.q = 0.005;
	ds_refused("q but no angles", p, &meta, "holds no angle: give it "
	    "with --phi");
	meta.phi = phi;
	meta.nphi = 2;
	meta.source = "--q/--phi/--dt";
	ds_refused("two angles for three matrices", p, &meta, "--q/--phi/--dt "
	    "gives 2 angles for the file's 3 matrices");
	write_text("st.yaml", "q: 0.005\nphi: [-30, 0, 0]\n");
	ds_refused("a repeated angle", p, NULL, "angle 2 (0 degrees) repeats "
	    "angle 1");
	write_text("st.yaml", "q: 0.005\nphi: [-30, 0, 60]\ndT: 1\n");
	ds_refused("a misspelt key", p, NULL, "st.yaml, line 3: dT: not a "
	    "sidecar key");
	write_text("st.yaml", "q: 0.005\nphi: [-30, zero, 60]\n");
	ds_refused("a word for an angle", p, NULL, "line 2: phi: not a "
	    "number");
	write_text("st.yaml", "q: [0.005\n");
	ds_refused("broken YAML", p, NULL, "st.yaml, line 2");
	write_text("st.yaml", "q: 50\nphi: [-30, 0, 60]\n");
	ds_refused("an implausible q", p, NULL, "st.yaml: q 50 1/A is not a "
	    "plausible wavevector (between 1e-06 and 10 1/A)");
	write_text("st.yaml", "q: 0.005\nphi: [-30, 0, 1000]\n");
	ds_refused("an implausible angle", p, NULL, "angle 2 (1000) is not a "
	    "plausible angle in degrees");
	write_text("st.yaml", "q: 0.005\nphi: [-30, 0, 60]\ndt: -1\n");
	ds_refused("a negative dt", p, NULL, "dt -1 s is not a plausible frame "
	    "time");
	rm_file("st.yaml");

	write_text("st.json", "{\"wavevector_q\": 0.005, \"phi_angles\": "
	    "[-30, 0, 60], \"comment\": \"JSON sidecar\"}\n");
	het_error_clear(&err);
	ds = het_dataset_open_meta(p, NULL, &err);
	ok(ds != NULL, "a JSON sidecar with the configuration's key names: "
	    "opens%s%s", ds == NULL ? ": " : "", ds == NULL ? err.msg : "");
	if (ds == NULL)
		return;
	in = het_dataset_info(ds);
	is_str(het_layout_name(in->layout), "npy", "layout npy");
	ok(in->nbins == 3 && in->n_q == 1 && in->n_phi == 3 &&
	    in->frames == 4, "3 bins on one ring, 4 frames");
	is_double(het_dataset_bin(ds, 2)->phi, 60, 0, "bin 2 at 60 degrees");
	is_int(het_dataset_dt(ds, NULL, &dt, &src, &err), HET_ENOTFOUND,
	    "no dt anywhere: HET_ENOTFOUND");
	like(err.msg, "a .npy file has none and its sidecar gives none",
	    "... %s", err.msg);
	het_selection_init(&sel);
	sel.phi = phi + 2;
	sel.nphi = 1;
	is_int(het_dataset_select(ds, &sel, &pick, &err), HET_OK,
	    "select phi 60");
	ok(pick.nbins == 1 && pick.bins[0] == 2, "... picks matrix 2");
	het_pick_fini(&pick);
	is_int(het_dataset_read_c2(ds, 2, 1, 4, c2, &ci, &err), HET_OK,
	    "read matrix 2 (upper triangle stored)");
	is_int(ci.tri, HET_TRI_UPPER, "... half storage detected");
	ok(c2[1 * 4 + 3] == val(2, 1, 3) && c2[3 * 4 + 1] == val(2, 1, 3),
	    "... frames (2, 4) read and mirrored: %g %g", c2[1 * 4 + 3],
	    c2[3 * 4 + 1]);
	het_dataset_close(ds);

	/* two angles next to the sidecar's three: the sidecar's name the
	   matrices (a configuration's phi_angles then only select) */
	meta.q = 0.005;
	meta.nphi = 2;
	ds = het_dataset_open_meta(p, &meta, &err);
	ok(ds != NULL && het_dataset_bin(ds, 2)->phi == 60, "two angles "
	    "beside a sidecar's three: the sidecar's kept%s%s", ds ? "" : ": ",
	    ds ? "" : err.msg);
	het_dataset_close(ds);
	/* meta wins over the sidecar, field by field; dt from meta */
	meta.nphi = 3;
	meta.dt = 0.25;
	meta.q = 0.007;
	ds = het_dataset_open_meta(p, &meta, &err);
	ok(ds != NULL && het_dataset_bin(ds, 0)->q == 0.007 &&
	    het_dataset_info(ds)->dt == 0.25, "meta's q and dt replace the "
	    "sidecar's");
	if (ds != NULL)
		like(het_dataset_info(ds)->dt_source, "--q/--phi/--dt: dt",
		    "... dt_source %s", het_dataset_info(ds)->dt_source);
	het_dataset_close(ds);
}

/* The measured CHX matrix: full and symmetric, its lag means. */
static void
real_matrix(void)
{
	const char *shared = getenv("HETUI_SHARED");
	struct het_dataset_meta meta = { 0 };
	struct het_c2_info ci;
	struct het_dataset *ds;
	struct het_error err;
	double phi = 0, *c2, s = 0;
	char path[600];
	size_t i;

	snprintf(path, sizeof path, "%s/data/real/"
	    "bnl_chx_example_2tcf_350x350_f8.npy", shared ? shared : ".");
	if (access(path, R_OK) != 0) {
		skip(5, "the CHX matrix is absent");
		return;
	}
	meta.q = 0.005;
	meta.phi = &phi;
	meta.nphi = 1;
	ds = het_dataset_open_meta(path, &meta, &err);
	ok(ds != NULL, "the CHX .npy opens with --q and --phi%s%s",
	    ds ? "" : ": ", ds ? "" : err.msg);
	if (ds == NULL)
		return;
	c2 = malloc(350 * 350 * sizeof *c2);
	is_int(het_dataset_read_c2(ds, 0, 0, 0, c2, &ci, &err), HET_OK,
	    "read whole");
	is_int(ci.tri, HET_TRI_FULL, "full storage detected");
	ok(ci.asymmetry < 1e-12, "symmetric (asymmetry %g)", ci.asymmetry);
	for (i = 0; i + 10 < 350; i++)
		s += c2[i * 350 + i + 10];
	is_double(s / 340, 1.0614, 5e-5, "lag-10 mean as SOURCES.md says");
	free(c2);
	het_dataset_close(ds);
}

int
main(void)
{
	plan_lazy();
	if (tap_tmpdir(dir, sizeof dir, "t_core_npy") == NULL)
		return 1;
	readers();
	refusals();
	sidecars();
	real_matrix();
	done_testing();
	return exit_status();
}
