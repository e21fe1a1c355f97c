/*
 * het_results_ckpt.c: the checkpoint of a running CMC run,
 * DIR/hetui_checkpoint.h5, and the choice of the file `hetui sample
 * --resume DIR` reads.
 *
 * Design: a checkpoint is a results file of the run so far, in the
 * layout of hetui_results.h5 (het_results_cmc.c) so that one loader
 * reads both: the NLSQ result in /fit (without the fitted c2 and
 * residual matrices, which a resume never reads), and /cmc with status
 * "running", the shard table as it stands and a /cmc/shard_NNNN group
 * for every finished shard; nothing is combined yet.  It is written
 * whole to a temporary name and renamed over the previous one, so a
 * process killed at any instant (SIGKILL, the OOM killer, a lost node)
 * leaves either the previous checkpoint or the new one, never a torn
 * file (the temporary file of a write that was killed is removed by the
 * next write or the removal).  The run removes it once its results files
 * are complete; a checkpoint that is older than hetui_results.h5 beside
 * it (its removal failed), or is not a regular file, is ignored.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_results_impl.h"
#include "het_util.h"

/*
 * Remove the temporary files of checkpoint writes whose process is gone
 * (".hetui_checkpoint.h5.tmp.PID", het_tmp_path): a run killed in the
 * middle of a write leaves one, as large as the checkpoint.
 */
static void
ck_sweep(const char *dir)
{
	static const char pre[] = "." HET_RESULTS_CHECKPOINT ".tmp.";
	struct dirent *de;
	char path[4096], *end;
	DIR *d;
	long pid;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, pre, sizeof(pre) - 1) != 0)
			continue;
		pid = strtol(de->d_name + sizeof(pre) - 1, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
}

int
het_results_write_checkpoint(const char *dir, const struct het_results *res,
    struct het_error *err)
{
	char stamp[64], *path = NULL, *tmp = NULL;
	int rc;

	if (res == NULL || res->cmc == NULL)
		return het_error_set(err, HET_EINVAL, "checkpoint: no CMC "
		    "run to write");
	if ((rc = het_rs_prepare(dir, res, stamp, sizeof(stamp),
	    err)) != HET_OK)
		return rc;
	if ((path = het_rl_join(dir, HET_RESULTS_CHECKPOINT, err)) == NULL ||
	    (tmp = het_tmp_path(path, err)) == NULL) {
		free(path);
		return HET_ENOMEM;
	}
	/* Swept before the write, so that once a checkpoint exists no
	   earlier killed write's file is left beside it. */
	ck_sweep(dir);
	if ((rc = het_rs_h5_write(tmp, res, stamp, 1, err)) == HET_OK)
		rc = het_commit_tmp(tmp, path, err);
	if (rc != HET_OK)
		unlink(tmp);
	free(path);
	free(tmp);
	return rc;
}

/* The modification time of path; 0 when it is not a regular file. */
static int
ck_mtime(const char *path, struct timespec *t)
{
	struct stat sb;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	*t = sb.st_mtim;
	return 1;
}

/* 1 when ckpt exists and results does not, or is not newer. */
static int
ck_newer(const char *ckpt, const char *results)
{
	struct timespec tc, tr;

	if (!ck_mtime(ckpt, &tc))
		return 0;
	if (!ck_mtime(results, &tr))
		return 1;
	return tc.tv_sec > tr.tv_sec || (tc.tv_sec == tr.tv_sec &&
	    tc.tv_nsec >= tr.tv_nsec);
}

int
het_results_checkpoint_pending(const char *dir)
{
	struct het_error e;
	char *ck, *rs;
	int r = 0;

	het_error_clear(&e);
	ck = het_rl_join(dir, HET_RESULTS_CHECKPOINT, &e);
	rs = het_rl_join(dir, HET_RESULTS_H5, &e);
	if (ck != NULL && rs != NULL)
		r = ck_newer(ck, rs);
	free(ck);
	free(rs);
	return r;
}

char *
het_results_resume_path(const char *dir, struct het_error *err)
{
	return het_rl_join(dir, het_results_checkpoint_pending(dir) ?
	    HET_RESULTS_CHECKPOINT : HET_RESULTS_H5, err);
}

int
het_results_remove_checkpoint(const char *dir, struct het_error *err)
{
	char *ck;
	int rc = HET_OK;

	if ((ck = het_rl_join(dir, HET_RESULTS_CHECKPOINT, err)) == NULL)
		return HET_ENOMEM;
	if (unlink(ck) != 0 && errno != ENOENT)
		rc = het_error_sys(err, errno, "cannot remove %s (the "
		    "results beside it are complete; remove it by hand)", ck);
	ck_sweep(dir);
	free(ck);
	return rc;
}
