#include "config.h"
/*
 * het_rundir.c: the folder of each run (see het_rundir.h).
 *
 * Design: the folder name is decided by trying mkdir(2) on candidates in
 * order (<analysis>-<time>, then -2, -3 ...); mkdir is atomic, so the
 * first call that succeeds owns the folder and a concurrent run gets
 * EEXIST and moves on.  Nothing is ever reused by the timestamped
 * settings; the settings without a timestamp reuse a fixed folder, as
 * the reference packages do with output_dir.
 */

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "het_results.h"
#include "het_rings.h"
#include "het_rundir.h"
#include "het_util.h"

void
het_rundir_stem(const char *data_path, char *buf, size_t len)
{
	const char *base, *dot;
	size_t n;

	if (len == 0)
		return;
	if (data_path == NULL || data_path[0] == '\0')
		data_path = "data";
	base = strrchr(data_path, '/');
	base = base != NULL ? base + 1 : data_path;
	if (base[0] == '\0')
		base = "data";
	dot = strrchr(base, '.');
	n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n >= len)
		n = len - 1;
	memcpy(buf, base, n);
	buf[n] = '\0';
}

/* base/sub, or base when sub is NULL; NULL when out of memory. */
static char *
rd_join(const char *base, const char *sub, struct het_error *err)
{
	size_t lb = strlen(base);
	char *p;

	while (lb > 1 && base[lb - 1] == '/')
		lb--;
	if (sub == NULL)
		sub = "";
	if ((p = malloc(lb + strlen(sub) + 2)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for a folder "
		    "name");
		return NULL;
	}
	if (sub[0] == '\0')
		snprintf(p, lb + 1, "%s", base);
	else
		sprintf(p, "%.*s/%s", (int)lb, base, sub);
	return p;
}

/* 1 when dir exists (any file type). */
static int
rd_exists(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0;
}

/* Create parent (mkdir -p) and then a fresh parent/stamp[-N]. */
static char *
rd_fresh(const char *parent, const char *stamp, struct het_error *err)
{
	char name[128], *p;
	int n;

	if (het_mkdirs(parent, "output directory", err) != HET_OK)
		return NULL;
	for (n = 1; n <= HET_RUNDIR_MAX_TRIES; n++) {
		if (n == 1)
			snprintf(name, sizeof(name), "%s", stamp);
		else
			snprintf(name, sizeof(name), "%s-%d", stamp, n);
		if ((p = rd_join(parent, name, err)) == NULL)
			return NULL;
		if (mkdir(p, 0777) == 0)
			return p;
		if (errno != EEXIST) {
			het_error_sys(err, errno, "cannot create the run "
			    "folder %s", p);
			free(p);
			return NULL;
		}
		free(p);
	}
	het_error_set(err, HET_EIO, "%s: %d run folders named %s-N exist "
	    "already; remove some or choose another output_dir", parent,
	    HET_RUNDIR_MAX_TRIES, stamp);
	return NULL;
}

char *
het_rundir_make(const struct het_config *cfg, const char *data_path,
    const char *analysis, time_t now, int *made, struct het_error *err)
{
	char stem[256], stamp[96], *parent, *dir;
	const char *base;
	struct tm tm;

	if (made != NULL)
		*made = 0;
	if (analysis == NULL || analysis[0] == '\0' ||
	    strchr(analysis, '/') != NULL || strlen(analysis) > 32) {
		het_error_set(err, HET_EINVAL, "run folder: the analysis name "
		    "must be a short word without '/'");
		return NULL;
	}
	base = cfg != NULL && cfg->output_dir != NULL &&
	    cfg->output_dir[0] != '\0' ? cfg->output_dir : "output";
	het_rundir_stem(data_path, stem, sizeof(stem));
	if ((parent = rd_join(base, cfg == NULL || cfg->create_subdirs ?
	    stem : NULL, err)) == NULL)
		return NULL;
	if (cfg == NULL || cfg->timestamp_dirs) {
		if (gmtime_r(&now, &tm) == NULL) {
			het_error_set(err, HET_EINVAL, "run folder: the time "
			    "%lld cannot be written as a date",
			    (long long)now);
			free(parent);
			return NULL;
		}
		snprintf(stamp, sizeof(stamp), "%s-%04d%02d%02d-%02d%02d%02d",
		    analysis, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		    tm.tm_hour, tm.tm_min, tm.tm_sec);
		dir = rd_fresh(parent, stamp, err);
		free(parent);
		if (dir != NULL && made != NULL)
			*made = 1;
		return dir;
	}
	/* No timestamp: a fixed folder, reused by the next such run. */
	dir = cfg->create_subdirs ? rd_join(parent, analysis, err) : parent;
	if (dir != parent)
		free(parent);
	if (dir == NULL)
		return NULL;
	if (made != NULL)
		*made = !rd_exists(dir);
	if (het_mkdirs(dir, "output directory", err) != HET_OK) {
		free(dir);
		return NULL;
	}
	return dir;
}

int
het_rundir_is_result(const char *name)
{
	return strcmp(name, HET_RESULTS_H5) == 0 ||
	    strcmp(name, HET_RESULTS_CMC_SUMMARY) == 0 ||
	    strcmp(name, HET_RESULTS_CMC_DIAGNOSTICS) == 0 ||
	    strcmp(name, HET_RINGS_CSV) == 0 ||
	    strcmp(name, HET_RINGS_H5) == 0 ||
	    strcmp(name, HET_SERIES_CSV) == 0 ||
	    strcmp(name, HET_SERIES_H5) == 0 ||
	    fnmatch("nlsq_*.json", name, FNM_PERIOD) == 0;
}

int
het_rundir_check(const char *dir, int force, struct het_error *err)
{
	char found[256];
	struct dirent *de;
	struct stat st;
	size_t used = 0;
	int n = 0;
	DIR *d;

	if (force || dir == NULL)
		return HET_OK;
	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT)
			return HET_OK;
		if (errno == ENOTDIR)
			return het_error_set(err, HET_EINVAL, "%s is a file, "
			    "not a folder for results", dir);
		return het_error_sys(err, errno, "cannot list the output "
		    "folder %s", dir);
	}
	found[0] = '\0';
	while ((de = readdir(d)) != NULL) {
		/* A folder under a result's name holds no result. */
		if (!het_rundir_is_result(de->d_name) || (de->d_type == DT_UNKNOWN ?
		    fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
		    S_ISDIR(st.st_mode) : de->d_type == DT_DIR))
			continue;
		if (n++ < 3)
			used += (size_t)snprintf(found + used,
			    used < sizeof(found) ? sizeof(found) - used : 0,
			    "%s%s", n > 1 ? ", " : "", de->d_name);
	}
	closedir(d);
	if (used >= sizeof(found))
		found[sizeof(found) - 1] = '\0';
	if (n == 0)
		return HET_OK;
	return het_error_set(err, HET_EINVAL, "%s holds the results of "
	    "another run (%s%s); they are not replaced", dir, found,
	    n > 3 ? ", ..." : "");
}
