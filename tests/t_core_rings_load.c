#include "config.h"
/*
 * t_core_rings_load.c: a batch summary read back (het_rings_load,
 * het_rings_which): a rings table and a series table written by
 * het_rings_write come back with every value, status, text (quoted
 * commas, quotes and a line break), empty field and slope; the plot
 * flags are rebuilt (a free physics parameter yes, a fixed one, contrast
 * and a name of neither family no); LF line endings and a header without
 * rows are read; and every refusal with its code and the line and
 * column it names: no summary, both kinds, the .h5 without the .csv, an
 * empty file, a folder in its place, a file over 64 MiB, binary data, a
 * wrong, missing, unpaired or repeated header column, a row of another
 * length, a text where a whole number or a number belongs, an empty
 * status, a negative uncertainty, an unclosed quote, text after a
 * closing quote, a quote inside an unquoted field.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_h5.h"
#include "het_rings.h"
#include "tap.h"

static char dir[512];

static const char *const names[] = { "D0", "contrast[0]", "alpha" };

static void
add_ring(struct het_rings *t, long ring, double q, const char *status,
    double d0, double u0, const char *msg)
{
	double v[3] = { d0, 0.2385, 0.0 }, u[3] = { u0, 0.0125, NAN };
	unsigned char plot[3] = { 1, 0, 0 };
	struct het_rings_vals vals = { 3, names, v, u, plot };
	struct het_error err;

	ok(het_rings_add(t, ring, q, status, 1.0123, "b/r", msg,
	    isfinite(d0) ? &vals : NULL, &err) == HET_OK, "add ring %ld",
	    ring);
}

/* A file of text s in dir (a new folder sub) as name; the folder. */
static const char *
put(const char *sub, const char *name, const char *s, size_t n)
{
	static char d[1024];
	char p[1280];
	FILE *f;

	snprintf(d, sizeof(d), "%s/%s", dir, sub);
	mkdir(d, 0755);
	snprintf(p, sizeof(p), "%s/%s", d, name);
	if ((f = fopen(p, "wb")) != NULL) {
		fwrite(s, 1, n, f);
		fclose(f);
	}
	return d;
}

/* put() of rings.csv holding the string s. */
static const char *
puts_(const char *sub, const char *s)
{
	return put(sub, "rings.csv", s, strlen(s));
}

static void
test_rings(void)
{
	struct het_rings t, r;
	struct het_rings_line a, b;
	struct het_error err;
	char d[1024];
	size_t k, c;

	snprintf(d, sizeof(d), "%s/rings", dir);
	mkdir(d, 0755);
	het_rings_init(&t);
	add_ring(&t, 1, 0.005, HET_RINGS_CONVERGED, 11875.5, 310.25, "");
	add_ring(&t, 2, 0.0075, "failed", NAN, NAN,
	    "cannot read \"c2\", bin 3\r\nsee the log");
	add_ring(&t, 3, 0.011, HET_RINGS_CONVERGED, 12431.75, 402.5, "");
	add_ring(&t, 4, 0.0165, HET_RINGS_CONVERGED, 12023.125, 515.0, "");
	ok(het_rings_write(&t, d, &err) == HET_OK, "write rings.csv");
	ok(het_rings_which(d, NULL) == &het_rings_layout_rings,
	    "which: the rings layout");
	ok(het_rings_load(d, &r, &err) == HET_OK, "read it back");
	ok(r.layout == &het_rings_layout_rings, "the rings layout");
	is_int((long long)r.nrows, 4, "4 rows");
	is_int((long long)r.ncols, 3, "3 parameters");
	for (c = 0; c < 3 && c < r.ncols; c++)
		is_str(r.names[c], names[c], "column %zu: %s", c, names[c]);
	for (k = 0; k < 4 && r.nrows == 4; k++) {
		is_str(r.rows[k].status, t.rows[k].status, "row %zu: status",
		    k);
		is_str(r.rows[k].message, t.rows[k].message,
		    "row %zu: message", k);
		is_str(r.rows[k].run_dir, t.rows[k].run_dir,
		    "row %zu: run_dir", k);
		is_int(r.rows[k].cell[0].i, t.rows[k].cell[0].i,
		    "row %zu: ring", k);
		is_double(het_rings_x(&r, k), het_rings_x(&t, k), 0,
		    "row %zu: q", k);
		for (c = 0; c < 3; c++) {
			double x = het_rings_value(&t, k, c),
			    y = het_rings_value(&r, k, c),
			    u = het_rings_unc(&t, k, c),
			    w = het_rings_unc(&r, k, c);

			ok((x == y || (isnan(x) && isnan(y))) &&
			    (u == w || (isnan(u) && isnan(w))),
			    "row %zu, %s: %g +- %g back as %g +- %g", k,
			    names[c], x, u, y, w);
		}
	}
	ok(r.ncols == 3 && r.plot[0] && !r.plot[1] && !r.plot[2],
	    "plot flags: D0 yes; contrast[0] and the fixed alpha no");
	het_rings_slope(&t, 0, &a);
	het_rings_slope(&r, 0, &b);
	is_double(b.slope, a.slope, 1e-12, "the same power-law slope");
	is_double(b.se, a.se, 1e-12, "... and standard error");
	het_rings_fini(&t);
	het_rings_fini(&r);
}

static void
test_series(void)
{
	struct het_rings_cell lead[HET_SERIES_NLEAD];
	double v[1], u[1];
	struct het_rings_vals vals = { 1, names, v, u, NULL };
	struct het_rings t, r;
	struct het_error err;
	char d[1024], name[32];
	long i;

	snprintf(d, sizeof(d), "%s/series", dir);
	mkdir(d, 0755);
	het_rings_init_layout(&t, &het_rings_layout_series);
	for (i = 1; i <= 3; i++) {
		memset(lead, 0, sizeof(lead));
		snprintf(name, sizeof(name), "data/m,%ld.h5", i);
		lead[HET_SERIES_INDEX].i = i;
		lead[HET_SERIES_FILE].s = name;
		lead[HET_SERIES_MTIME].s = "2024-03-05T10:01:00Z";
		lead[HET_SERIES_T].x = 60.5 * (double)(i - 1);
		lead[HET_SERIES_START].i = i - 1;
		v[0] = 11500.25 + 1500 * (double)i;
		u[0] = 125.5;
		ok(het_rings_add_row(&t, lead, HET_RINGS_CONVERGED, 0.97,
		    "b/s", "", &vals, &err) == HET_OK, "add file %ld", i);
	}
	ok(het_rings_write(&t, d, &err) == HET_OK, "write series.csv");
	ok(het_rings_which(d, NULL) == &het_rings_layout_series,
	    "which: the series layout");
	ok(het_rings_load(d, &r, &err) == HET_OK, "read it back");
	ok(r.layout == &het_rings_layout_series && r.nrows == 3,
	    "the series layout, 3 rows");
	if (r.nrows == 3) {
		is_str(r.rows[1].cell[HET_SERIES_FILE].s, "data/m,2.h5",
		    "a quoted file name");
		is_str(r.rows[2].cell[HET_SERIES_MTIME].s,
		    "2024-03-05T10:01:00Z", "the modification time");
		is_double(r.rows[2].cell[HET_SERIES_T].x, 121.0, 0,
		    "t of file 3");
		is_int(r.rows[2].cell[HET_SERIES_START].i, 2,
		    "file 3 started from file 2");
		is_double(het_rings_value(&r, 2, 0), 16000.25, 0,
		    "D0 of file 3");
		is_double(het_rings_x(&r, 2), 3, 0, "x: the file index");
	}
	ok(r.ncols == 1 && r.plot[0], "D0 is plotted");
	het_rings_fini(&t);
	het_rings_fini(&r);
}

#define HEAD "ring,q,q2,status,chi2_red,D0,D0_unc,run_dir,message"

/* rings.csv of text s in a new folder sub: the code, err filled. */
static int
load(const char *sub, const char *s, struct het_error *err)
{
	struct het_rings t;
	int rc;

	rc = het_rings_load(puts_(sub, s), &t, err);
	het_rings_fini(&t);
	return rc;
}

/* A refusal: code want and a message holding each of two needles. */
static void
refused(const char *sub, const char *s, int want, const char *n1,
    const char *n2)
{
	struct het_error err;
	int rc = load(sub, s, &err);

	ok(rc == want && strstr(err.msg, n1) != NULL &&
	    (n2 == NULL || strstr(err.msg, n2) != NULL), "%s: %s (%s)", sub,
	    n1, err.msg);
}

static void
test_accept(void)
{
	struct het_error err;
	struct het_rings t;

	memset(&err, 0, sizeof(err));
	ok(het_rings_load(puts_("lf", HEAD "\n1,0.01,0.0001,"
	    "converged,1.1,12000,300,x,\n2,0.02,0.0004,converged,1.2,12100,"
	    "310,y,\n"), &t, &err) == HET_OK && t.nrows == 2 &&
	    het_rings_value(&t, 1, 0) == 12100, "LF line endings: %s",
	    err.msg);
	het_rings_fini(&t);
	ok(het_rings_load(puts_("head", HEAD "\r\n"), &t,
	    &err) == HET_OK && t.nrows == 0, "a header without rows: none");
	het_rings_fini(&t);
	ok(het_rings_load(puts_("names", "ring,q,q2,status,"
	    "chi2_red,D0,D0_unc,gain,gain_unc,run_dir,message\r\n1,0.01,,"
	    "converged,,5,,2,,,\r\n2,0.02,,converged,,6,,3,,,\r\n"),
	    &t, &err) == HET_OK && t.ncols == 2 && t.plot[0] && !t.plot[1],
	    "a varying physics parameter without uncertainties is "
	    "plotted, a name of neither family is not");
	het_rings_fini(&t);
}

static void
test_refuse(void)
{
	struct het_error err;
	struct het_rings t;
	char p[1280];
	FILE *f;
	const char *d;

	ok(het_rings_load(put("none", "notes.txt", "x", 1), &t, &err) ==
	    HET_ENOTFOUND && strstr(err.msg, "none is not a batch folder: "
	    "it has neither rings.csv nor series.csv") != NULL,
	    "no summary: HET_ENOTFOUND (%s)", err.msg);
	het_rings_fini(&t);
	ok(het_rings_which(put("none", "x", "", 0), NULL) == NULL,
	    "which: none");
	puts_("both", HEAD "\r\n");
	d = put("both", "series.h5", "", 0);
	ok(het_rings_load(d, &t, &err) == HET_EINVAL &&
	    strstr(err.msg, "two batches (rings.csv and series.csv)") !=
	    NULL, "both kinds: HET_EINVAL (%s)", err.msg);
	het_rings_fini(&t);
	d = put("h5only", "rings.h5", "", 0);
	ok(het_rings_load(d, &t, &err) == HET_ENOTFOUND &&
	    strstr(err.msg, "has rings.h5 but no rings.csv") != NULL,
	    "the .h5 alone: HET_ENOTFOUND (%s)", err.msg);
	het_rings_fini(&t);
	refused("empty", "", HET_EFORMAT, "rings.csv is empty", NULL);
	snprintf(p, sizeof(p), "%s/isdir/rings.csv", dir);
	put("isdir", "x", "", 0);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/isdir", dir);
	ok(het_rings_load(p, &t, &err) == HET_EFORMAT &&
	    strstr(err.msg, "rings.csv is not a file") != NULL,
	    "a folder named rings.csv: HET_EFORMAT (%s)", err.msg);
	het_rings_fini(&t);
	snprintf(p, sizeof(p), "%s/huge/rings.csv", dir);
	put("huge", "x", "", 0);
	if ((f = fopen(p, "w")) != NULL) {
		ok(ftruncate(fileno(f), (65L << 20)) == 0, "a sparse 65 MiB "
		    "file");
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/huge", dir);
	ok(het_rings_load(p, &t, &err) == HET_EFORMAT &&
	    strstr(err.msg, "larger than 64 MiB") != NULL,
	    "over 64 MiB: HET_EFORMAT (%s)", err.msg);
	het_rings_fini(&t);
	ok(het_rings_load(put("binary", "rings.csv", HEAD "\r\n1\0x",
	    strlen(HEAD) + 5), &t, &err) == HET_EFORMAT &&
	    strstr(err.msg, "binary data") != NULL,
	    "a NUL byte: HET_EFORMAT (%s)", err.msg);
	het_rings_fini(&t);

	refused("col", "ring,Q,q2,status,chi2_red,D0,D0_unc,run_dir,message"
	    "\r\n", HET_EFORMAT, "line 1: column 2 is 'Q', expected 'q'",
	    "hetui fit --all-rings");
	d = put("series-head", "series.csv", "index,file,mtime,t,start,"
	    "status\r\n", 33);
	ok(het_rings_load(d, &t, &err) == HET_EFORMAT && strstr(err.msg,
	    "series.csv line 1: column 5 is 'start', expected 'start_from'")
	    != NULL && strstr(err.msg, "hetui fit --series") != NULL,
	    "a series header: its own columns (%s)", err.msg);
	het_rings_fini(&t);
	refused("count", "ring,q,q2,status,chi2_red,D0,run_dir,message\r\n",
	    HET_EFORMAT, "line 1: 8 columns", "two per parameter");
	refused("pair", "ring,q,q2,status,chi2_red,D0,D1_unc,run_dir,"
	    "message\r\n", HET_EFORMAT, "column 7 is 'D1_unc', expected "
	    "'D0_unc'", NULL);
	refused("twice", "ring,q,q2,status,chi2_red,D0,D0_unc,D0,D0_unc,"
	    "run_dir,message\r\n", HET_EFORMAT, "parameter D0 has two "
	    "columns", NULL);
	refused("tail", "ring,q,q2,status,chi2_red,D0,D0_unc,dir,message"
	    "\r\n", HET_EFORMAT, "column 8 is 'dir', expected 'run_dir'",
	    NULL);
	refused("fields", HEAD "\r\n1,0.01,0.0001,converged,1,2,3,x,\r\n"
	    "2,0.02,0.0004,converged,1,2,x,\r\n", HET_EFORMAT,
	    "rings.csv line 3: 8 fields, the header has 9", NULL);
	refused("int", HEAD "\r\n1.5,0.01,0.0001,converged,1,2,3,x,\r\n",
	    HET_EFORMAT, "line 2, column ring: '1.5' is not a whole number",
	    NULL);
	refused("num", HEAD "\r\n1,0.01,0.0001,converged,1,abc,3,x,\r\n",
	    HET_EFORMAT, "line 2, column D0: 'abc' is not a number", NULL);
	refused("status", HEAD "\r\n1,0.01,0.0001,,1,2,3,x,\r\n",
	    HET_EFORMAT, "line 2: the status is empty", NULL);
	refused("neg", HEAD "\r\n1,0.01,0.0001,converged,1,2,-3,x,\r\n",
	    HET_EFORMAT, "line 2, column D0_unc: the uncertainty -3 is "
	    "negative", NULL);
	refused("open", HEAD "\r\n1,0.01,0.0001,converged,1,2,3,x,\"why\r\n"
	    "and\r\n", HET_EFORMAT, "line 2: a quoted field is not closed",
	    NULL);
	refused("after", HEAD "\r\n1,0.01,0.0001,converged,1,2,3,\"x\"y,"
	    "\r\n", HET_EFORMAT, "line 2: text after the closing quote",
	    NULL);
	refused("inner", HEAD "\r\n1,0.01,0.0001,converged,1,2,3,x\"y,"
	    "\r\n", HET_EFORMAT, "line 2: a quote inside an unquoted field",
	    NULL);
	/* A quoted line break moves the line numbers on. */
	refused("lines", HEAD "\r\n1,0.01,0.0001,converged,1,2,3,x,\"a\r\n"
	    "b\"\r\n2,0.02,0.0004,converged,1,2,3\r\n", HET_EFORMAT,
	    "line 4: 7 fields", NULL);
}

int
main(void)
{
	struct het_error err;
	char cmd[600];

	plan_lazy();
	if (het_h5_library_init(&err) != HET_OK)
		skip_all("HDF5 cannot start");
	if (tap_tmpdir(dir, sizeof(dir), "t_core_rings_load") == NULL)
		skip_all("no temporary directory");
	test_rings();
	test_series();
	test_accept();
	test_refuse();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
	return exit_status();
}
