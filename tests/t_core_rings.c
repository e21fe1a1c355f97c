#include "config.h"
/*
 * t_core_rings.c: the summary table of a batch of per-ring fits
 * (het_rings): columns that grow with the rows, the power-law slope
 * (an exact power law gives its exponent to rounding, weighted and
 * unweighted; a known three-point case gives its textbook slope and
 * standard error; too few rows, equal q and a non-positive value are
 * refused), and rings.csv / rings.h5 written into a folder (header,
 * empty fields, RFC 4180 quoting, no temporary file left); the series
 * layout (`hetui fit --series`): the linear drift per file, weighted,
 * with its standard error scaled up by the Birge ratio when the points
 * scatter more than their uncertainties allow, and series.csv with the
 * leading columns index, file, mtime, t and start_from.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_h5.h"
#include "het_rings.h"
#include "het_util.h"
#include "tap.h"

static const char *const names2[] = { "D0", "contrast[0]" };
static const unsigned char plot2[] = { 1, 0 };

static void
add(struct het_rings *t, long ring, double q, const char *status,
    double d0, double u0)
{
	double v[2] = { d0, 0.2385 }, u[2] = { u0, NAN };
	struct het_rings_vals vals = { 2, names2, v, u, plot2 };
	struct het_error err;

	ok(het_rings_add(t, ring, q, status, 1.0123, "out/r", "", &vals,
	    &err) == HET_OK, "add ring %ld", ring);
}

static void
test_slope(void)
{
	struct het_rings_line ln;
	struct het_rings t;
	int k;

	/* v = 3.1 q^2 exactly, relative uncertainty 1 %: slope 2. */
	het_rings_init(&t);
	for (k = 0; k < 4; k++) {
		double q = 0.004 * pow(1.7, k), v = 3.1 * q * q;

		add(&t, k + 1, q, HET_RINGS_CONVERGED, v, 0.01 * v);
	}
	add(&t, 5, 0.05, "failed", NAN, NAN);
	add(&t, 6, 0.06, "not_converged", 123.0, 1.0);
	ok(het_rings_slope(&t, 0, &ln) == HET_OK, "slope computed");
	is_double(ln.slope, 2.0, 1e-12, "exact power law: slope 2");
	is_double(ln.ln_a, log(3.1), 1e-10, "... and prefactor 3.1");
	is_int((long long)ln.n, 4, "only the 4 converged rows count");
	ok(ln.se > 0 && isfinite(ln.se), "weighted: a finite standard error");
	is_int((long long)t.ncols, 2, "two columns");
	ok(t.plot[0] && !t.plot[1], "plot flags follow the rows");
	/* contrast[0] is constant: slope 0, unweighted (no uncertainty). */
	ok(het_rings_slope(&t, 1, &ln) == HET_OK &&
	    fabs(ln.slope) < 1e-12 && ln.se == 0,
	    "constant column: slope 0, se 0");
	het_rings_fini(&t);

	/* Unweighted three points: ln v = 0, 1, 3 at ln q = 0, 1, 2.
	   b = 1.5; residuals -1/6, 1/3, -1/6; s^2 = (1/6)/1; Sxx = 2,
	   se = sqrt(1/12). */
	het_rings_init(&t);
	add(&t, 1, 1.0, HET_RINGS_CONVERGED, 1.0, NAN);
	add(&t, 2, exp(1.0), HET_RINGS_CONVERGED, exp(1.0), NAN);
	add(&t, 3, exp(2.0), HET_RINGS_CONVERGED, exp(3.0), NAN);
	het_rings_slope(&t, 0, &ln);
	is_double(ln.slope, 1.5, 1e-12, "three points: slope 1.5");
	is_double(ln.se, sqrt(1.0 / 12.0), 1e-12,
	    "three points: se sqrt(1/12)");
	add(&t, 4, 2.0, HET_RINGS_CONVERGED, -1.0, 0.1);
	ok(het_rings_slope(&t, 0, &ln) == HET_ERANGE && isnan(ln.slope),
	    "a negative value: no power law (HET_ERANGE, NaN)");
	het_rings_fini(&t);

	het_rings_init(&t);
	add(&t, 1, 0.01, HET_RINGS_CONVERGED, 5.0, 0.1);
	ok(het_rings_slope(&t, 0, &ln) == HET_ERANGE,
	    "one row: HET_ERANGE");
	add(&t, 2, 0.01, HET_RINGS_CONVERGED, 6.0, 0.1);
	ok(het_rings_slope(&t, 0, &ln) == HET_ERANGE,
	    "equal q: HET_ERANGE");
	het_rings_fini(&t);
}

static char *
slurp(const char *path)
{
	static char buf[8192];
	size_t n;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void
test_write(void)
{
	static const char *const n3[] = { "D0", "contrast[1]" };
	double v[2] = { 7.5, 0.3 }, u[2] = { NAN, 0.01 };
	struct het_rings_vals vals = { 2, n3, v, u, NULL };
	char dir[512], p[1024], *s;
	struct het_rings t;
	struct het_error err;
	struct stat st;

	if (tap_tmpdir(dir, sizeof(dir), "t_core_rings") == NULL) {
		skip(9, "no temporary directory");
		return;
	}
	het_rings_init(&t);
	add(&t, 1, 0.005, HET_RINGS_CONVERGED, 1000.0, 12.5);
	ok(het_rings_add(&t, 2, 0.01, "failed", NAN, "", "cannot read \"c2\", "
	    "bin 3", NULL, &err) == HET_OK, "add a failed ring");
	ok(het_rings_add(&t, 3, 0.02, "not_converged", 2.5, "out/3", NULL,
	    &vals, &err) == HET_OK, "a ring with a new column");
	is_int((long long)t.ncols, 3, "the new name is a third column");
	ok(het_rings_write(&t, dir, &err) == HET_OK, "write rings.csv, "
	    "rings.h5");
	snprintf(p, sizeof(p), "%s/%s", dir, HET_RINGS_CSV);
	s = slurp(p);
	like(s, "ring,q,q2,status,chi2_red,D0,D0_unc,contrast[0],"
	    "contrast[0]_unc,contrast[1],contrast[1]_unc,run_dir,message\r\n",
	    "CSV header");
	like(s, "\r\n1,0.005,2.5e-05,converged,1.0123,1000,12.5,0.2385,,,,"
	    "out/r,\r\n", "CSV row 1: empty where no value");
	like(s, "\r\n2,0.01,0.0001,failed,,,,,,,,,\"cannot read \"\"c2\"\", "
	    "bin 3\"\r\n", "CSV row 2: a failed ring, its message quoted");
	like(s, "\r\n3,0.02,0.0004,not_converged,2.5,7.5,,,,0.3,0.01,out/3,"
	    "\r\n", "CSV row 3: the new column");
	snprintf(p, sizeof(p), "%s/%s", dir, HET_RINGS_H5);
	ok(stat(p, &st) == 0 && st.st_size > 0, "rings.h5 written");
	het_rings_fini(&t);
	snprintf(p, sizeof(p), "ls -A '%s' | grep -c tmp >/dev/null", dir);
	ok(system(p) != 0, "no temporary file left");
	snprintf(p, sizeof(p), "%s/nodir", dir);
	het_rings_init(&t);
	ok(het_rings_write(&t, p, &err) == HET_EIO && strstr(err.msg,
	    "nodir") != NULL, "a missing folder: HET_EIO naming it");
	het_rings_fini(&t);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p) != 0)
		diag("cannot remove %s", dir);
}

/* Row i of a series: value v +- u, the file "dir/f,i.h5". */
static void
add_file(struct het_rings *t, long i, double v, double u)
{
	struct het_rings_cell lead[HET_SERIES_NLEAD];
	double val[1] = { v }, unc[1] = { u };
	struct het_rings_vals vals = { 1, names2, val, unc, plot2 };
	struct het_error err;
	char name[32];

	memset(lead, 0, sizeof(lead));
	snprintf(name, sizeof(name), "dir/f,%ld.h5", i);
	lead[HET_SERIES_INDEX].i = i;
	lead[HET_SERIES_FILE].s = name;
	lead[HET_SERIES_MTIME].s = "2024-03-05T10:00:00Z";
	lead[HET_SERIES_T].x = 12.5 * (double)(i - 1);
	lead[HET_SERIES_START].i = i - 1;
	ok(het_rings_add_row(t, lead, HET_RINGS_CONVERGED, 0.98, "b/x", "",
	    &vals, &err) == HET_OK, "add file %ld", i);
}

static void
test_series(void)
{
	/* Residuals +-0.5 about v = 10 + 2 i; u = 0.1 is far too small. */
	static const double off[5] = { 0.5, -0.5, 0.5, -0.5, 0.5 };
	struct het_rings_line ln;
	struct het_error err;
	struct het_rings t;
	char dir[512], p[1024], *s;
	double sxx;
	long i;

	het_rings_init_layout(&t, &het_rings_layout_series);
	for (i = 1; i <= 5; i++)
		add_file(&t, i, 10.0 + 2.0 * (double)i, 0.25);
	ok(het_rings_slope(&t, 0, &ln) == HET_OK, "series: a drift");
	is_double(ln.slope, 2.0, 1e-12, "an exact line: drift 2 per file");
	is_double(ln.ln_a, 10.0, 1e-11, "... and intercept 10");
	/* Weighted, no scatter: se = u / sqrt(Sxx), Sxx = 10. */
	is_double(ln.se, 0.25 / sqrt(10.0), 1e-12,
	    "no scatter: se from the uncertainties");
	het_rings_fini(&t);

	het_rings_init_layout(&t, &het_rings_layout_series);
	for (i = 1; i <= 5; i++)
		add_file(&t, i, 10.0 + 2.0 * (double)i + off[i - 1], 0.1);
	het_rings_slope(&t, 0, &ln);
	/* Residuals about the fitted line of (i, off): slope 0 (the
	   offsets are symmetric about i = 3), mean 0.1; chi^2 =
	   sum (off - 0.1)^2 / u^2 = 1.2 / 0.01; Birge^2 = 120 / 3 = 40. */
	sxx = 10.0;
	is_double(ln.slope, 2.0, 1e-12, "scattered: the drift");
	is_double(ln.se, sqrt(40.0) * 0.1 / sqrt(sxx), 1e-10,
	    "scattered: se scaled by the Birge ratio");
	if (tap_tmpdir(dir, sizeof(dir), "t_core_rings_series") == NULL) {
		skip(2, "no temporary directory");
		het_rings_fini(&t);
		return;
	}
	ok(het_rings_write(&t, dir, &err) == HET_OK, "write series.csv, "
	    "series.h5");
	snprintf(p, sizeof(p), "%s/%s", dir, HET_SERIES_CSV);
	s = slurp(p);
	like(s, "index,file,mtime,t,start_from,status,chi2_red,D0,D0_unc,"
	    "run_dir,message\r\n", "series.csv: header");
	like(s, "\r\n2,\"dir/f,2.h5\",2024-03-05T10:00:00Z,12.5,1,converged,"
	    "0.98,13.5,0.1,b/x,\r\n", "series.csv: row 2, its file quoted");
	snprintf(p, sizeof(p), "%s/%s", dir, HET_SERIES_H5);
	ok(access(p, R_OK) == 0, "series.h5 written");
	het_rings_fini(&t);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p) != 0)
		diag("cannot remove %s", dir);
}

/* het_csv_field, which the rings table and the Results panel share. */
static void
test_csv_field(void)
{
	static const char *const in[] = { "plain 2.385", "a,b", "say \"hi\"",
	    "two\nlines", "", NULL };
	static const char *const want[] = { "plain 2.385", "\"a,b\"",
	    "\"say \"\"hi\"\"\"", "\"two\nlines\"", "", "" };
	char *buf = NULL;
	size_t len = 0, k;
	FILE *fp;

	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		if ((fp = open_memstream(&buf, &len)) == NULL)
			break;
		het_csv_field(fp, in[k]);
		fclose(fp);
		is_str(buf, want[k], "het_csv_field of field %zu", k);
		free(buf);
		buf = NULL;
	}
}

int
main(void)
{
	struct het_error err;

	plan_lazy();
	if (het_h5_library_init(&err) != HET_OK)
		skip_all("HDF5 cannot start");
	test_slope();
	test_write();
	test_series();
	test_csv_field();
	return exit_status();
}
