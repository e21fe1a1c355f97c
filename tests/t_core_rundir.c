#include "config.h"
/*
 * t_core_rundir.c: the folder of each run (het_rundir): the default
 * OUTPUT_DIR/<stem>/<analysis>-<UTC time>, the -2, -3 suffixes when a
 * folder of that second exists (also for concurrent processes), the
 * other create_subdirs/timestamp_dirs settings, the check of a folder
 * the user names, and every error path.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "het_config.h"
#include "het_rundir.h"
#include "tap.h"

/* 2025-03-07 04:05:06 UTC */
#define T0	((time_t)1741320306)

static void
touch(const char *dir, const char *name)
{
	char p[1024];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((fp = fopen(p, "w")) != NULL)
		fclose(fp);
}

static int
isdir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void
test_stem(void)
{
	char b[16];

	het_rundir_stem("/a/b/run_07.hdf", b, sizeof(b));
	is_str(b, "run_07", "stem: last component without extension");
	het_rundir_stem("x.tar.h5", b, sizeof(b));
	is_str(b, "x.tar", "stem: only the last extension goes");
	het_rundir_stem("/a/.hidden", b, sizeof(b));
	is_str(b, ".hidden", "stem: a leading dot is the name");
	het_rundir_stem(NULL, b, sizeof(b));
	is_str(b, "data", "stem: no file is 'data'");
	het_rundir_stem("/a/b/", b, sizeof(b));
	is_str(b, "data", "stem: a folder path is 'data'");
	het_rundir_stem("averyveryverylongname.h5", b, 8);
	is_str(b, "averyve", "stem: cut to the buffer");
}

static void
test_make(const char *tmp, struct het_config *cfg)
{
	struct het_error err;
	char base[512], want[1024], *d1, *d2, *d3, *d4;
	int made = -1;

	het_error_clear(&err);
	snprintf(base, sizeof(base), "%s/out", tmp);
	free(cfg->output_dir);
	cfg->output_dir = strdup(base);
	d1 = het_rundir_make(cfg, "/beam/line/meas_03.hdf", "fit", T0, &made,
	    &err);
	snprintf(want, sizeof(want), "%s/meas_03/fit-20250307-040506", base);
	is_str(d1, want, "default: OUTPUT_DIR/<stem>/fit-<UTC time>");
	ok(made == 1 && d1 != NULL && isdir(d1), "... created, made = 1");
	d2 = het_rundir_make(cfg, "/beam/line/meas_03.hdf", "fit", T0, &made,
	    &err);
	snprintf(want, sizeof(want), "%s/meas_03/fit-20250307-040506-2",
	    base);
	is_str(d2, want, "the same second again: -2");
	d3 = het_rundir_make(cfg, "/beam/line/meas_03.hdf", "fit", T0, NULL,
	    &err);
	snprintf(want, sizeof(want), "%s/meas_03/fit-20250307-040506-3",
	    base);
	is_str(d3, want, "and -3");
	d4 = het_rundir_make(cfg, "/beam/line/meas_03.hdf", "sample", T0 + 61,
	    &made, &err);
	snprintf(want, sizeof(want), "%s/meas_03/sample-20250307-040607",
	    base);
	is_str(d4, want, "a sampling run: sample-<time>");
	free(d1);
	free(d2);
	free(d3);
	free(d4);

	/* A trailing slash on output_dir gives no double slash. */
	free(cfg->output_dir);
	snprintf(want, sizeof(want), "%s/", base);
	cfg->output_dir = strdup(want);
	d1 = het_rundir_make(cfg, "m.h5", "fit", T0, &made, &err);
	snprintf(want, sizeof(want), "%s/m/fit-20250307-040506", base);
	is_str(d1, want, "output_dir with a trailing '/'");
	free(d1);
	free(cfg->output_dir);
	cfg->output_dir = strdup(base);

	/* create_subdirs only: a fixed folder per file and analysis. */
	cfg->timestamp_dirs = 0;
	d1 = het_rundir_make(cfg, "m.h5", "sample", T0, &made, &err);
	snprintf(want, sizeof(want), "%s/m/sample", base);
	is_str(d1, want, "create_subdirs only: OUTPUT_DIR/<stem>/sample");
	is_int(made, 1, "... made the first time");
	free(d1);
	d1 = het_rundir_make(cfg, "m.h5", "sample", T0, &made, &err);
	is_str(d1, want, "... the same folder the next time");
	is_int(made, 0, "... not made then");
	free(d1);

	/* timestamp_dirs only: flat under OUTPUT_DIR. */
	cfg->create_subdirs = 0;
	cfg->timestamp_dirs = 1;
	d1 = het_rundir_make(cfg, "m.h5", "fit", T0, &made, &err);
	snprintf(want, sizeof(want), "%s/fit-20250307-040506", base);
	is_str(d1, want, "timestamp_dirs only: OUTPUT_DIR/fit-<time>");
	free(d1);

	/* Neither: OUTPUT_DIR itself, the reference packages' way. */
	cfg->timestamp_dirs = 0;
	d1 = het_rundir_make(cfg, "m.h5", "fit", T0, &made, &err);
	is_str(d1, base, "neither: OUTPUT_DIR itself");
	is_int(made, 0, "... which existed");
	free(d1);
	free(cfg->output_dir);
	snprintf(want, sizeof(want), "%s/fresh/deeper", tmp);
	cfg->output_dir = strdup(want);
	d1 = het_rundir_make(cfg, "m.h5", "fit", T0, &made, &err);
	ok(d1 != NULL && isdir(want) && made == 1,
	    "neither: a missing OUTPUT_DIR is created with its parents");
	free(d1);
	cfg->create_subdirs = cfg->timestamp_dirs = 1;
	free(cfg->output_dir);
	cfg->output_dir = NULL;
	if (chdir(tmp) == 0) {
		d1 = het_rundir_make(cfg, "m.h5", "fit", T0, &made, &err);
		is_str(d1, "output/m/fit-20250307-040506",
		    "no output_dir: ./output");
		free(d1);
	}
	cfg->output_dir = strdup(base);
}

/* Eight processes ask for a folder of the same second at once. */
static void
test_concurrent(const char *tmp, struct het_config *cfg)
{
	char base[512], got[8][600], *seen;
	int fd[2], k, n = 8, distinct = 1, j, status, allok = 1;
	pid_t pid[8];
	ssize_t r;

	snprintf(base, sizeof(base), "%s/conc", tmp);
	free(cfg->output_dir);
	cfg->output_dir = strdup(base);
	if (pipe(fd) != 0) {
		skip(2, "no pipe");
		return;
	}
	for (k = 0; k < n; k++) {
		if ((pid[k] = fork()) == 0) {
			struct het_error e;
			char line[600], *d;

			close(fd[0]);
			d = het_rundir_make(cfg, "c.h5", "fit", T0, NULL, &e);
			snprintf(line, sizeof(line), "%-599s",
			    d != NULL ? d : "FAILED");
			if (write(fd[1], line, sizeof(line)) !=
			    (ssize_t)sizeof(line))
				_exit(2);
			_exit(d != NULL ? 0 : 1);
		}
	}
	close(fd[1]);
	for (k = 0; k < n; k++) {
		r = read(fd[0], got[k], sizeof(got[k]));
		if (r != (ssize_t)sizeof(got[k]))
			allok = 0;
		got[k][sizeof(got[k]) - 1] = '\0';
		if ((seen = strchr(got[k], ' ')) != NULL)
			*seen = '\0';
	}
	close(fd[0]);
	for (k = 0; k < n; k++)
		if (waitpid(pid[k], &status, 0) != pid[k] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			allok = 0;
	for (k = 0; k < n; k++)
		for (j = k + 1; j < n; j++)
			if (strcmp(got[k], got[j]) == 0)
				distinct = 0;
	ok(allok, "8 processes in the same second each got a folder");
	ok(distinct, "... and no two share one");
}

static void
test_errors(const char *tmp, struct het_config *cfg)
{
	struct het_error err;
	char p[512], *d;

	het_error_clear(&err);
	d = het_rundir_make(cfg, "m.h5", "a/b", T0, NULL, &err);
	ok(d == NULL && err.code == HET_EINVAL, "analysis with '/': "
	    "HET_EINVAL");
	like(err.msg, "short word without '/'", "... says what is allowed");
	snprintf(p, sizeof(p), "%s/plainfile", tmp);
	touch(tmp, "plainfile");
	free(cfg->output_dir);
	cfg->output_dir = strdup(p);
	het_error_clear(&err);
	d = het_rundir_make(cfg, "m.h5", "fit", T0, NULL, &err);
	ok(d == NULL && err.code == HET_EIO, "output_dir is a file: HET_EIO");
	like(err.msg, "plainfile", "... names it");
	if (geteuid() != 0) {
		snprintf(p, sizeof(p), "%s/ro", tmp);
		mkdir(p, 0555);
		free(cfg->output_dir);
		cfg->output_dir = strdup(p);
		het_error_clear(&err);
		d = het_rundir_make(cfg, "m.h5", "fit", T0, NULL, &err);
		ok(d == NULL && err.code == HET_EIO, "a read-only output_dir: "
		    "HET_EIO");
		like(err.msg, "/ro", "... names the folder");
	} else
		skip(2, "root writes into read-only folders");
}

static void
test_check(const char *tmp)
{
	struct het_error err;
	char d[512], f[600];

	het_error_clear(&err);
	snprintf(d, sizeof(d), "%s/named", tmp);
	is_int(het_rundir_check(d, 0, &err), HET_OK, "check: a folder that "
	    "does not exist is fine");
	mkdir(d, 0777);
	touch(d, "notes.txt");
	touch(d, "worker-7.log");
	is_int(het_rundir_check(d, 0, &err), HET_OK, "check: other files "
	    "do not count");
	snprintf(f, sizeof(f), "%s/hetui_results.h5", d);
	mkdir(f, 0777);
	is_int(het_rundir_check(d, 0, &err), HET_OK, "check: a folder "
	    "named hetui_results.h5 is no result");
	rmdir(f);
	touch(d, "nlsq_phi10_parameters.json");
	is_int(het_rundir_check(d, 0, &err), HET_EINVAL, "check: an nlsq_*"
	    ".json refuses");
	like(err.msg, "holds the results of another run "
	    "(nlsq_phi10_parameters.json)", "... naming the file");
	touch(d, "hetui_results.h5");
	touch(d, "cmc_summary.json");
	touch(d, "cmc_diagnostics.json");
	het_error_clear(&err);
	het_rundir_check(d, 0, &err);
	like(err.msg, ", ...)", "more than three files: the list ends "
	    "with ...");
	like(err.msg, d, "... and names the folder");
	is_int(het_rundir_check(d, 1, &err), HET_OK, "force: accepted");
	snprintf(f, sizeof(f), "%s/notes.txt", d);
	het_error_clear(&err);
	is_int(het_rundir_check(f, 0, &err), HET_EINVAL, "check: a file is "
	    "not a folder");
	like(err.msg, "is a file, not a folder", "... says so");
	snprintf(d, sizeof(d), "%s/batch", tmp);
	mkdir(d, 0777);
	touch(d, "rings.csv");
	het_error_clear(&err);
	is_int(het_rundir_check(d, 0, &err), HET_EINVAL, "check: a batch's "
	    "rings.csv refuses");
	unlink(strcat(d, "/rings.csv"));
	d[strlen(d) - strlen("/rings.csv")] = '\0';
	touch(d, "rings.h5");
	is_int(het_rundir_check(d, 0, &err), HET_EINVAL, "check: so does "
	    "rings.h5");
	if (geteuid() != 0) {
		snprintf(d, sizeof(d), "%s/unlistable", tmp);
		mkdir(d, 0300);
		het_error_clear(&err);
		is_int(het_rundir_check(d, 0, &err), HET_EIO, "check: a "
		    "folder that cannot be listed: HET_EIO");
		like(err.msg, "cannot list the output folder", "... says so");
		chmod(d, 0700);
	} else
		skip(2, "root lists every folder");
}

int
main(void)
{
	struct het_config *cfg;
	struct het_error err;
	char tmp[256], cmd[600];

	plan_lazy();
	if (tap_tmpdir(tmp, sizeof(tmp), "t_core_rundir") == NULL)
		skip_all("no temporary directory");
	het_error_clear(&err);
	if ((cfg = het_config_default(HET_MODE_STATIC_REF, &err)) == NULL)
		skip_all("no default configuration");
	ok(cfg->create_subdirs == 1 && cfg->timestamp_dirs == 1,
	    "defaults: create_subdirs and timestamp_dirs true");
	test_stem();
	test_make(tmp, cfg);
	test_concurrent(tmp, cfg);
	test_errors(tmp, cfg);
	test_check(tmp);
	het_config_free(cfg);
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", tmp,
	    tmp);
	if (system(cmd) != 0)
		diag("could not remove %s", tmp);
	return exit_status();
}
