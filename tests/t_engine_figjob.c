/*
 * t_engine_figjob.c: the figures of a run folder as a child hetui report
 * (het_figjob) against tests/fake_figs.sh, which acts as each mode says.
 * Checks: the child's command line (report --quiet -o RUN/report --
 * RUN, a trailing '/' dropped); a success (WRITTEN, the figures its list
 * names that exist counted, the log's folder removed); a failure (the
 * last line of its output without the "hetui report: error: " prefix,
 * the exit status, the log kept when it holds more than that line and
 * removed when not); a child that ends without a word (its exit status
 * or its signal in words); a cancel (CANCELLED: the folder the job made
 * removed with the child's temporary file; a folder that existed keeps
 * its files, the user's among them, but loses the temporary file);
 * cancelling twice, or after the end, changes nothing; the wind-down
 * (a child that finishes in time is WRITTEN, one that does not is
 * stopped and tidied); freeing a running job; no child is left
 * unreaped; refusals to start (no run folder, a program that does not
 * exist, a temporary folder that cannot be made).  Every wait is a poll
 * loop with a deadline.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "het_figjob.h"
#include "het_thread.h"
#include "tap.h"

static char fake[4096], tmp[512], out[1024], tmpf[1024], run[1024];

static int
exists(const char *dir, const char *name)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Run the job until it ends, or until stop() says so. */
static const struct het_figjob_view *
drive(struct het_figjob *j, int (*stop)(void))
{
	const struct het_figjob_view *v = het_figjob_view(j);
	double end = het_clock_now() + 30, now, d;
	int ms;

	while (v->end == HET_FIGJOB_RUNNING && (now = het_clock_now()) < end &&
	    (stop == NULL || !stop())) {
		d = het_figjob_deadline(j, now);
		ms = d < 0 ? 50 : (int)((d - now) * 1000) + 1;
		(void)poll(NULL, 0, ms > 50 ? 50 : ms);
		het_figjob_reap(j, het_clock_now());
	}
	return v;
}

static struct het_figjob *
start(const char *mode, const char *dir, struct het_error *err)
{
	struct het_figjob_spec sp;

	setenv("FAKE_FIGS", mode, 1);
	memset(&sp, 0, sizeof(sp));
	sp.run_dir = dir;
	sp.program = fake;
	sp.tmpdir = tmpf;
	het_error_clear(err);
	return het_figjob_start(&sp, het_clock_now(), err);
}

/* Entries of a folder, not counting . and .. */
static int
entries(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0;
	if (d != NULL)
		closedir(d);
	return n;
}

static const char *
slurp(const char *path)
{
	static char buf[4096];
	size_t n;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return "";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void
rm_rf(const char *dir)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cannot remove %s", dir);
}

static void
test_written(void)
{
	const struct het_figjob_view *v;
	struct het_error err;
	struct het_figjob *j;
	char dir[1100], want[3000], rep[1200], ap[1100];

	snprintf(dir, sizeof(dir), "%s/", run);
	j = start("ok", dir, &err);
	ok(j != NULL, "a figure job starts (%s)", err.msg);
	if (j == NULL)
		return;
	v = drive(j, NULL);
	is_int(v->end, HET_FIGJOB_WRITTEN, "it ends WRITTEN");
	snprintf(want, sizeof(want), "report\n--quiet\n-o\n%s/report\n--\n"
	    "%s\n", run, run);
	snprintf(ap, sizeof(ap), "%s/args", out);
	is_str(slurp(ap), want, "the child runs report --quiet -o RUN/report "
	    "-- RUN");
	is_str(v->run_dir, run, "the run folder without its trailing '/'");
	snprintf(rep, sizeof(rep), "%s/report", run);
	is_str(v->out_dir, rep, "the output folder: RUN/report");
	is_int((long long)v->nfig, 2, "two figures: the list's that exist");
	ok(v->exited && v->status == 0 && v->signo == 0, "exit status 0");
	ok(v->error == NULL && v->log_path == NULL, "no error, no log");
	ok(v->ended >= v->started && v->ended > 0, "the times");
	ok(!v->cancelling, "not cancelling");
	het_figjob_cancel(j, het_clock_now());
	ok(!v->cancelling && v->end == HET_FIGJOB_WRITTEN, "a cancel after "
	    "the end changes nothing");
	ok(het_figjob_reap(j, het_clock_now()) == 0 &&
	    het_figjob_deadline(j, het_clock_now()) < 0, "an ended job has "
	    "no work");
	het_figjob_free(j);
	is_int(entries(tmpf), 0, "the log's folder is removed");
	ok(exists(rep, "a.png") && exists(rep, "b.png") &&
	    exists(rep, ".hetui-report"), "the figures stay");
	rm_rf(rep);
}

static void
test_failed(void)
{
	const struct het_figjob_view *v;
	struct het_error err;
	struct het_figjob *j;
	char want[1200], log[1200];

	j = start("fail", run, &err);
	v = j != NULL ? drive(j, NULL) : NULL;
	ok(v != NULL && v->end == HET_FIGJOB_FAILED, "a failure: FAILED");
	snprintf(want, sizeof(want), "%s/hetui_results.h5 is damaged: run "
	    "the fit again", run);
	is_str(v != NULL ? v->error : NULL, want, "its last line, without "
	    "the \"hetui report: error: \" prefix");
	ok(v != NULL && v->exited && v->status == 1, "exit status 1");
	ok(v != NULL && v->log_path != NULL, "the log is kept: it holds more");
	snprintf(log, sizeof(log), "%s", v != NULL && v->log_path != NULL ?
	    v->log_path : "");
	is_int(strncmp(slurp(log), "reading ", 8), 0, "... the whole output");
	ok(!exists(run, "report"), "no folder left");
	het_figjob_free(j);
	ok(access(log, R_OK) == 0, "the log stays after the job");
	rm_rf(tmpf);
	mkdir(tmpf, 0700);

	j = start("oneline", run, &err);
	v = j != NULL ? drive(j, NULL) : NULL;
	snprintf(want, sizeof(want), "%s is not a run folder", run);
	is_str(v != NULL ? v->error : NULL, want, "one line: the error");
	ok(v != NULL && v->log_path == NULL, "no log kept: the line is all");
	het_figjob_free(j);
	is_int(entries(tmpf), 0, "the log's folder is removed");

	j = start("silent", run, &err);
	v = j != NULL ? drive(j, NULL) : NULL;
	is_str(v != NULL ? v->error : NULL, "hetui report exited with status "
	    "3 without saying why", "a child without a word: its status");
	het_figjob_free(j);

	j = start("crash", run, &err);
	v = j != NULL ? drive(j, NULL) : NULL;
	ok(v != NULL && v->end == HET_FIGJOB_FAILED && !v->exited &&
	    v->signo == 11, "a crash: FAILED, signal 11");
	like(v != NULL ? v->error : NULL, "hetui report was killed by "
	    "signal 11 (Segmentation fault)", "... in words");
	het_figjob_free(j);
	is_int(entries(tmpf), 0, "the log's folder is removed");
}

static char slow_flag[1200];

static int
slow_started(void)
{
	return access(slow_flag, F_OK) == 0;
}

static void
test_cancel(void)
{
	const struct het_figjob_view *v;
	struct het_error err;
	struct het_figjob *j;
	char rep[1200], p[1300];

	snprintf(rep, sizeof(rep), "%s/report", run);
	unlink(slow_flag);
	j = start("slow", run, &err);
	ok(j != NULL, "a slow job starts (%s)", err.msg);
	if (j == NULL)
		return;
	v = drive(j, slow_started);
	ok(v->end == HET_FIGJOB_RUNNING && exists(rep, "a.png"), "it runs, "
	    "its first figure written");
	het_figjob_cancel(j, het_clock_now());
	ok(v->cancelling, "cancelling");
	het_figjob_cancel(j, het_clock_now());
	ok(v->cancelling, "a second cancel changes nothing");
	v = drive(j, NULL);
	is_int(v->end, HET_FIGJOB_CANCELLED, "it ends CANCELLED");
	ok(!v->exited && v->signo == 15, "by SIGTERM");
	ok(v->error == NULL, "no error");
	ok(!v->out_kept && !exists(run, "report"), "the folder it made is "
	    "removed, with its figures and the temporary file");
	het_figjob_free(j);
	is_int(entries(tmpf), 0, "the log's folder is removed");

	/* a folder of earlier figures and the user's file */
	snprintf(p, sizeof(p), "%s/notes.txt", rep);
	if (mkdir(rep, 0755) != 0 || fclose(fopen(p, "w")) != 0)
		diag("cannot make %s", p);
	unlink(slow_flag);
	j = start("slow", run, &err);
	v = j != NULL ? drive(j, slow_started) : NULL;
	if (v == NULL)
		return;
	het_figjob_cancel(j, het_clock_now());
	v = drive(j, NULL);
	is_int(v->end, HET_FIGJOB_CANCELLED, "a refresh cancelled");
	ok(v->out_kept && exists(rep, "notes.txt") && exists(rep, "a.png") &&
	    exists(rep, ".hetui-report"), "the folder that existed keeps its "
	    "files, the user's too");
	is_int(entries(rep), 3, "... and nothing else (the temporary file "
	    "is gone)");
	het_figjob_free(j);
	rm_rf(rep);
}

static void
test_wind_down(void)
{
	const struct het_figjob_view *v;
	struct het_error err;
	struct het_figjob *j;
	char rep[1200];

	snprintf(rep, sizeof(rep), "%s/report", run);
	j = start("linger", run, &err);
	het_figjob_wind_down(j, 10);
	v = j != NULL ? het_figjob_view(j) : NULL;
	ok(v != NULL && v->end == HET_FIGJOB_WRITTEN && v->nfig == 2, "a "
	    "wind-down lets a child that finishes in time write its figures");
	het_figjob_free(j);
	rm_rf(rep);

	unlink(slow_flag);
	j = start("slow", run, &err);
	v = j != NULL ? drive(j, slow_started) : NULL;
	het_figjob_wind_down(j, 0.2);
	ok(v != NULL && v->end == HET_FIGJOB_CANCELLED, "one that does not "
	    "is stopped: CANCELLED");
	ok(!exists(run, "report"), "... and tidied");
	het_figjob_free(j);
	het_figjob_wind_down(NULL, 1);
	ok(1, "a wind-down of NULL is a no-op");

	unlink(slow_flag);
	j = start("slow", run, &err);
	v = j != NULL ? drive(j, slow_started) : NULL;
	ok(v != NULL && v->end == HET_FIGJOB_RUNNING, "a job freed while it "
	    "runs");
	het_figjob_free(j);
	ok(!exists(run, "report"), "... is stopped and tidied");
	is_int(entries(tmpf), 0, "... its log's folder removed");
	ok(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD,
	    "no child is left unreaped");
}

static void
test_refusals(void)
{
	const struct het_figjob_view *v;
	struct het_figjob_spec sp;
	struct het_error err;
	struct het_figjob *j;

	ok(start("ok", NULL, &err) == NULL && err.code == HET_EINVAL,
	    "no run folder: refused");
	like(err.msg, "no run folder to draw", "... and says so");
	ok(start("ok", "", &err) == NULL && err.code == HET_EINVAL,
	    "an empty one too");
	memset(&sp, 0, sizeof(sp));
	sp.run_dir = run;
	sp.program = "/nonexistent/hetui";
	sp.tmpdir = tmpf;
	het_error_clear(&err);
	j = het_figjob_start(&sp, het_clock_now(), &err);
	if (j == NULL) {
		ok(err.code == HET_EIO, "a program that does not exist");
		like(err.msg, "cannot run /nonexistent/hetui for the figures "
		    "of ", "... says what could not run");
		like(err.msg, "No such file or directory", "... and why");
	} else {	/* a spawn that reports exec failures as exit 127 */
		v = drive(j, NULL);
		ok(v->end == HET_FIGJOB_FAILED, "a program that does not "
		    "exist: FAILED");
		like(v->error, "exited with status 127", "... the exec failed");
		het_figjob_free(j);
	}
	is_int(entries(tmpf), 0, "no temporary folder left");
	sp.program = fake;
	sp.tmpdir = "/nonexistent/tmp";
	het_error_clear(&err);
	j = het_figjob_start(&sp, het_clock_now(), &err);
	ok(j == NULL && err.code == HET_EIO, "no temporary folder: refused");
	like(err.msg, "cannot make a temporary folder for the log of hetui "
	    "report in /nonexistent/tmp", "... and says where");
	het_figjob_free(j);
}

int
main(void)
{
	const char *src = getenv("top_srcdir");

	plan_lazy();
	snprintf(fake, sizeof(fake), "%s/tests/fake_figs.sh",
	    src != NULL ? src : ".");
	if (access(fake, X_OK) != 0)
		skip_all("tests/fake_figs.sh not found (set top_srcdir)");
	if (tap_tmpdir(tmp, sizeof(tmp), "figjob") == NULL)
		skip_all("no temporary directory");
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(tmpf, sizeof(tmpf), "%s/tmp", tmp);
	snprintf(run, sizeof(run), "%s/run 1", tmp);
	snprintf(slow_flag, sizeof(slow_flag), "%s/slow", out);
	if (mkdir(out, 0700) != 0 || mkdir(tmpf, 0700) != 0 ||
	    mkdir(run, 0700) != 0)
		skip_all("cannot make the test's folders");
	setenv("FAKE_OUT", out, 1);
	test_written();
	test_failed();
	test_cancel();
	test_wind_down();
	test_refusals();
	rm_rf(tmp);
	done_testing();
	return exit_status();
}
