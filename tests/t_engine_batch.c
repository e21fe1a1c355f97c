/*
 * t_engine_batch.c: a batch of fits run as a child (het_batch) against
 * tests/fake_batch.sh, which speaks section 7 of docs/wire-protocol.md as
 * each mode says.  Checks: the child's command line and the
 * configuration it is given (loads back equal); the view after a batch
 * of two rings (the folder, each ring's status, reduced chi-square or
 * reason, the last iteration, the warning, the result's status, exit
 * status and summary), records that name no started ring changing
 * nothing; a cancel by closing stdin (the series' result "cancelled");
 * a child that refuses (its error record's sentence), one that ends
 * without a result (the exit status, and its log kept), one that sends
 * garbage; refusals to start (no configuration, no file, no inputs, a
 * program that does not exist, a temporary folder that cannot be made);
 * the temporary folder removed after a batch with a result.  Every wait
 * is a poll loop with a deadline.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_batch.h"
#include "het_config.h"
#include "het_thread.h"
#include "tap.h"

static char fake[4096], tmp[512], out[1024], tmpb[1024];

/* Run the batch to its end (cancel once it iterates when asked). */
static const struct het_batch_view *
drive(struct het_batch *b, int cancel)
{
	const struct het_batch_view *v = het_batch_view(b);
	struct pollfd fds[HET_BATCH_FDS];
	double end = het_clock_now() + 30, now, d;
	size_t n;
	int ms;

	while (v->running && (now = het_clock_now()) < end) {
		n = het_batch_pollfds(b, fds, HET_BATCH_FDS);
		d = het_batch_deadline(b, now);
		ms = d < 0 ? 100 : (int)((d - now) * 1000) + 1;
		(void)poll(fds, n, ms > 100 ? 100 : ms);
		het_batch_handle(b, fds, n, het_clock_now());
		if (cancel && v->iterating)
			het_batch_cancel(b);
	}
	return v;
}

static struct het_batch *
start(const char *mode, enum het_batch_kind kind, const char *data,
    const char *const *in, size_t nin, const struct het_config *cfg,
    struct het_error *err)
{
	struct het_batch_spec sp;

	setenv("FAKE_BATCH", mode, 1);
	memset(&sp, 0, sizeof(sp));
	sp.kind = kind;
	sp.cfg = cfg;
	sp.data_path = data;
	sp.inputs = in;
	sp.ninputs = nin;
	sp.program = fake;
	sp.tmpdir = tmpb;
	het_error_clear(err);
	return het_batch_start(&sp, het_clock_now(), err);
}

static char *
slurp(const char *name)
{
	static char buf[4096];
	char path[2048];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out, name);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of tmpb (the batches' temporary folders). */
static int
tmp_entries(char *first, size_t len)
{
	struct dirent *e;
	DIR *d = opendir(tmpb);
	int n = 0;

	first[0] = '\0';
	while (d != NULL && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && n++ == 0)
			snprintf(first, len, "%s", e->d_name);
	if (d != NULL)
		closedir(d);
	return n;
}

static void
test_rings(const struct het_config *cfg)
{
	const struct het_batch_view *v;
	struct het_config *back;
	struct het_error err;
	struct het_batch *b;
	char what[128] = "", name[256], path[2048];
	const char *args;

	b = start("ok", HET_BATCH_RINGS, "-data.h5", NULL, 0, cfg, &err);
	ok(b != NULL, "a batch of every ring starts (%s)", err.msg);
	if (b == NULL)
		return;
	v = drive(b, 0);
	ok(!v->running, "and ends");
	args = slurp("args");
	like(args != NULL ? args : "", "fit\n-c\n", "the child runs fit -c");
	like(args != NULL ? args : "", "/config.yaml\n--wire\n--all-rings\n"
	    "--\n-data.h5\n", "... --wire --all-rings -- FILE");
	snprintf(path, sizeof(path), "%s/config.yaml", out);
	back = het_config_load(path, &err);
	ok(back != NULL && het_config_equal(back, cfg, what, sizeof(what)),
	    "the configuration it gets loads back equal (%s)", back == NULL ?
	    err.msg : what);
	het_config_free(back);
	is_str(v->batch_dir, "B", "the batch folder");
	is_int((long long)v->of, 2, "two rings");
	is_int((long long)v->nm, 2, "both started; the out-of-order start "
	    "is ignored");
	if (v->nm == 2) {
		is_str(v->m[0].label, "ring 1  q 0.005", "ring 1's label");
		is_str(v->m[0].dir, "B/ring01", "and folder");
		is_str(v->m[0].status, "converged", "ring 1 converged");
		is_double(v->m[0].chi2_red, 0.97, 1e-12, "with chi2_red");
		is_str(v->m[1].status, "failed", "ring 2 failed");
		like(v->m[1].msg, "holds the results of another run",
		    "and why");
		ok(isnan(v->m[1].chi2_red), "no chi2_red for it");
	}
	ok(!v->iterating && v->bin == 0, "ring 2's start cleared ring 1's "
	    "iteration and reading");
	is_int((long long)v->nnotes, 1, "one note");
	is_str(v->nnotes > 0 ? v->notes[0] : "", "warning: ring 1: a warning",
	    "the warning");
	ok(v->have_result, "the result came");
	is_str(v->status, "failed", "status failed");
	is_int(v->exit_code, 1, "exit status 1");
	is_str(v->summary, "TABLE\nPLOT\n", "the summary text");
	ok(v->error == NULL, "no error (%s)", v->error);
	ok(v->ended >= v->started && v->ended > 0, "the times");
	het_batch_free(b);
	is_int(tmp_entries(name, sizeof(name)), 0, "its temporary folder is "
	    "removed (%s)", name);
}

static void
test_series(const struct het_config *cfg)
{
	static const char *const in[] = { "m1.h5", "data dir" };
	const struct het_batch_view *v;
	struct het_error err;
	struct het_batch *b;
	const char *args;

	b = start("cancel", HET_BATCH_SERIES, NULL, in, 2, cfg, &err);
	ok(b != NULL, "a series starts (%s)", err.msg);
	if (b == NULL)
		return;
	v = drive(b, 1);
	ok(!v->running && v->cancelling, "closing stdin ends it");
	args = slurp("args");
	like(args != NULL ? args : "", "--wire\n--series\n--\nm1.h5\ndata "
	    "dir\n", "... --wire --series -- FILES");
	ok(v->have_result && v->status != NULL && strcmp(v->status,
	    "cancelled") == 0 && v->exit_code == 130, "the result: cancelled, "
	    "130");
	ok(v->iterating && v->iter == 0 && v->cost == 2 && v->chi2_red == 9,
	    "the iteration of file 1");
	ok(v->nm == 1 && v->m[0].status != NULL && strcmp(v->m[0].status,
	    "cancelled") == 0 && isnan(v->m[0].chi2_red), "file 1 cancelled");
	is_str(v->summary, "one\n", "its summary");
	het_batch_free(b);
}

static void
test_failures(const struct het_config *cfg)
{
	const struct het_batch_view *v;
	struct het_error err;
	struct het_batch *b;
	char log[2048], cmd[2100], name[256], *p;

	b = start("error", HET_BATCH_SERIES, NULL, (const char *const[]){
	    "E" }, 1, cfg, &err);
	v = b != NULL ? drive(b, 0) : NULL;
	ok(v != NULL && !v->have_result, "a refused series: no result");
	is_str(v != NULL ? v->error : NULL, "no result files in E: the folder "
	    "is empty", "its error record's sentence");
	het_batch_free(b);
	is_int(tmp_entries(name, sizeof(name)), 0, "its temporary folder is "
	    "removed: the sentence says it all (%s)", name);

	b = start("silent", HET_BATCH_RINGS, "d.h5", NULL, 0, cfg, &err);
	v = b != NULL ? drive(b, 0) : NULL;
	like(v != NULL ? v->error : NULL, "exited with status 7 before "
	    "sending a result", "a child that ends without a result");
	p = v != NULL && v->error != NULL ? strstr(v->error, "stderr is in ") :
	    NULL;
	snprintf(log, sizeof(log), "%s", p != NULL ? p + 13 : "");
	if ((p = strstr(log, ")")) != NULL)
		*p = '\0';
	like(log, "/worker-1.log", "... names its log");
	het_batch_free(b);
	ok(access(log, R_OK) == 0, "which is kept: no result");

	b = start("garbage", HET_BATCH_RINGS, "d.h5", NULL, 0, cfg, &err);
	v = b != NULL ? drive(b, 0) : NULL;
	ok(v != NULL && !v->running && !v->have_result && v->error != NULL,
	    "garbage: the child is stopped");
	like(v != NULL ? v->error : NULL, "line 2", "... naming the line");
	het_batch_free(b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", tmpb);
	if (system(cmd) != 0)
		diag("cannot empty %s", tmpb);
}

static void
test_refusals(const struct het_config *cfg)
{
	const struct het_batch_view *v;
	struct het_batch_spec sp;
	struct het_error err;
	struct het_batch *b;

	ok(start("ok", HET_BATCH_RINGS, "d.h5", NULL, 0, NULL, &err) == NULL &&
	    err.code == HET_EINVAL, "no configuration: refused");
	like(err.msg, "needs a configuration", "... and says so");
	ok(start("ok", HET_BATCH_RINGS, NULL, NULL, 0, cfg, &err) == NULL &&
	    err.code == HET_EINVAL, "every ring without a file: refused");
	like(err.msg, "needs the data file: open one first", "... and says so");
	ok(start("ok", HET_BATCH_SERIES, NULL, NULL, 0, cfg, &err) == NULL &&
	    err.code == HET_EINVAL, "a series without inputs: refused");
	like(err.msg, "a series needs its files", "... and says so");
	memset(&sp, 0, sizeof(sp));
	sp.kind = HET_BATCH_RINGS;
	sp.cfg = cfg;
	sp.data_path = "d.h5";
	sp.program = "/nonexistent/hetui";
	sp.tmpdir = tmpb;
	het_error_clear(&err);
	b = het_batch_start(&sp, het_clock_now(), &err);
	if (b == NULL) {
		ok(err.code == HET_EIO, "a program that does not exist");
		like(err.msg, "the batch (hetui fit --wire) did not start: ",
		    "... says the batch did not start");
		like(err.msg, "/nonexistent/hetui", "... naming the program");
	} else {	/* a spawn that reports exec failures as exit 127
			   (valgrind's, older C libraries) */
		v = drive(b, 0);
		ok(!v->running && !v->have_result, "a program that does not "
		    "exist: no result");
		like(v->error, "exited with status 127", "... the exec failed");
		like(v->error, "before sending a result", "... said so");
		het_batch_free(b);
	}
	sp.program = fake;
	sp.tmpdir = "/nonexistent/tmp";
	het_error_clear(&err);
	b = het_batch_start(&sp, het_clock_now(), &err);
	ok(b == NULL && err.code != HET_OK, "no temporary folder: refused");
	like(err.msg, "cannot make a temporary folder for the batch's "
	    "configuration in /nonexistent/tmp", "... and says where");
	het_batch_free(b);
}

int
main(void)
{
	const char *src = getenv("top_srcdir");
	struct het_config *cfg;
	struct het_error err;
	char cmd[1200];

	plan_lazy();
	snprintf(fake, sizeof(fake), "%s/tests/fake_batch.sh",
	    src != NULL ? src : ".");
	if (access(fake, X_OK) != 0)
		skip_all("tests/fake_batch.sh not found (set top_srcdir)");
	if (tap_tmpdir(tmp, sizeof(tmp), "batch") == NULL)
		skip_all("no temporary directory");
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(tmpb, sizeof(tmpb), "%s/tmp", tmp);
	if (mkdir(out, 0700) != 0 || mkdir(tmpb, 0700) != 0)
		skip_all("cannot make the test's folders");
	setenv("FAKE_OUT", out, 1);
	het_error_clear(&err);
	cfg = het_config_default(HET_MODE_STATIC_REF, &err);
	ok(cfg != NULL, "a configuration (%s)", err.msg);
	if (cfg != NULL) {
		test_rings(cfg);
		test_series(cfg);
		test_failures(cfg);
		test_refusals(cfg);
	}
	het_config_free(cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("cannot remove %s", tmp);
	done_testing();
	return exit_status();
}
