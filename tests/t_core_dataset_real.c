/*
 * t_core_dataset_real.c: the measured two-time matrix of
 * shared/data/real (BNL CHX example, 350 x 350 float64, full symmetric,
 * BSD-3; see its SOURCES.md) wrapped into APS-U files the way real files
 * store it (triu(A) as c2_00001) and read back exactly: float64 with LZF,
 * gzip and no compression, float32, a frame window, and the full matrix
 * stored as is (detected, not doubled, identical to the triu read).
 * The lag means are checked against the values SOURCES.md quotes.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "tap.h"

#define N	350
#define HDR	128
#define NAME	"bnl_chx_example_2tcf_350x350_f8.npy"

static char *dir;

/* Load the .npy: check its header, decode little-endian doubles. */
static double *
load_npy(const char *path)
{
	unsigned char *raw;
	double *a;
	uint64_t u;
	size_t i, b;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL)
		return NULL;
	raw = malloc(HDR + (size_t)N * N * 8 + 1);
	a = malloc((size_t)N * N * sizeof(*a));
	i = fread(raw, 1, HDR + (size_t)N * N * 8 + 1, fp);
	fclose(fp);
	ok(i == HDR + (size_t)N * N * 8, "the file is %d bytes",
	    HDR + N * N * 8);
	raw[HDR - 1] = '\0';	/* the header ends in '\n' */
	ok(memcmp(raw, "\x93NUMPY\x01\x00", 8) == 0, "npy v1.0 magic");
	like((char *)raw + 10, "'descr': '<f8', 'fortran_order': False, "
	    "'shape': (350, 350)", "header: little-endian float64, C order, "
	    "350 x 350");
	for (i = 0; i < (size_t)N * N; i++) {
		u = 0;
		for (b = 0; b < 8; b++)
			u |= (uint64_t)raw[HDR + 8 * i + b] << (8 * b);
		memcpy(&a[i], &u, sizeof(u));
	}
	free(raw);
	return a;
}

/* Write A (as triu, or full) and compare a read of first..last exactly. */
static void
round_trip(const double *a, enum het_dtype dtype, enum het_compress codec,
    int full, long first, long last, const char *what)
{
	struct het_apsu_spec spec;
	struct het_dataset *ds;
	struct het_c2_info ci;
	struct het_error err;
	double q = 0.0054, phi = 0, *got, *want;
	const double *one[1] = { a };
	char *path = fx_path(dir, "real.hdf");
	size_t m = (size_t)(last - first + 1);

	het_apsu_spec_init(&spec);
	spec.n_q = spec.n_phi = spec.nbins = 1;
	spec.q = &q;
	spec.phi = &phi;
	spec.frames = N;
	spec.c2 = one;
	spec.dtype = dtype;
	spec.compression = codec;
	spec.store_full = full;
	het_error_clear(&err);
	got = calloc(m * m, sizeof(*got));
	want = calloc(m * m, sizeof(*want));
	if (!ok(het_apsu_write(path, &spec, &err) == HET_OK, "%s: write",
	    what))
		diag("%s", err.msg);
	ds = het_dataset_open(path, &err);
	ok(ds != NULL && het_dataset_read_c2(ds, 0, first, last, got, &ci,
	    &err) == HET_OK, "%s: read frames %ld..%ld", what, first, last);
	/* The upper triangle is the data: mirror it, correct the diagonal. */
	fx_expect(a, N, first, last, dtype == HET_DTYPE_F32, want);
	is_int((long long)fx_diff(got, want, m * m), 0,
	    "%s: all %zu values exact", what, m * m);
	is_str(het_tri_name(ci.tri), full ? "full" : "upper",
	    "%s: storage detected as %s", what, full ? "full" : "upper");
	if (full)
		ok(ci.asymmetry > 0 && ci.asymmetry < 1e-15,
		    "%s: asymmetry %.3g (rounding only)", what, ci.asymmetry);
	het_dataset_close(ds);
	free(got);
	free(want);
	free(path);
}

static void
physics(const double *a)
{
	double *c = malloc((size_t)N * N * sizeof(*c)), g[N];

	fx_expect(a, N, 1, N, 0, c);
	het_c2_lag_means(c, N, g);
	is_double(g[1], 1.0883, 5e-5, "lag 1 mean 1.0883 (SOURCES.md)");
	is_double(g[0], g[1], 2e-3, "corrected diagonal mean ~ lag 1");
	is_double(g[10], 1.0614, 5e-5, "lag 10 mean 1.0614");
	is_double(g[50], 1.0372, 5e-5, "lag 50 mean 1.0372");
	is_double(g[100], 1.0272, 5e-5, "lag 100 mean 1.0272");
	is_double(g[300], 1.0250, 5e-5, "lag 300 mean 1.0250");
	free(c);
}

int
main(void)
{
	const char *shared = getenv("HETUI_SHARED");
	struct het_error err;
	char path[4096];
	double *a, d, maxd = 0;
	size_t i, j;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/data/real/%s",
	    shared != NULL ? shared : "../shared", NAME);
	if ((fp = fopen(path, "rb")) == NULL) {
		printf("1..0 # SKIP the real matrix %s is absent (set "
		    "HETUI_SHARED to the shared/ directory)\n", path);
		return 0;
	}
	fclose(fp);
	plan_lazy();
	het_error_clear(&err);
	het_h5_library_init(&err);
	dir = fx_tmpdir();
	if (dir == NULL)
		skip_all("cannot create a temporary directory");
	a = load_npy(path);
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			if ((d = fabs(a[i * N + j] - a[j * N + i])) > maxd)
				maxd = d;
	ok(maxd > 0 && maxd < 1e-15, "the measured matrix is symmetric up to "
	    "rounding (max |A - A^T| = %.3g)", maxd);
	is_double(a[0], 1.1656674980353943, 0, "A[0][0] as stored");
	is_double(a[1], 1.2085168934807071, 0, "A[0][1] as stored");
	round_trip(a, HET_DTYPE_F64, HET_COMPRESS_LZF, 0, 1, N,
	    "triu(A), float64, LZF");
	round_trip(a, HET_DTYPE_F64, HET_COMPRESS_GZIP, 0, 1, N,
	    "triu(A), float64, gzip");
	round_trip(a, HET_DTYPE_F64, HET_COMPRESS_NONE, 0, 1, N,
	    "triu(A), float64");
	round_trip(a, HET_DTYPE_F32, HET_COMPRESS_LZF, 0, 1, N,
	    "triu(A), float32, LZF");
	round_trip(a, HET_DTYPE_F64, HET_COMPRESS_LZF, 0, 101, 250,
	    "triu(A), window 101..250");
	round_trip(a, HET_DTYPE_F64, HET_COMPRESS_LZF, 1, 1, N,
	    "A stored full");
	physics(a);
	free(a);
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
