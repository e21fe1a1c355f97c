/*
 * het_figjob.c: the figures of a run folder as a child `hetui report`
 * (see het_figjob.h).
 *
 * Design: one het_procset of one process whose stdout and stderr both
 * go to its log (out_to_log); its done callback decides the end from
 * the exit status and, for a failure, reads the log's last line, the
 * error hetui report prints.  Whether the output folder existed is
 * looked at before the child starts: only a folder the job made is
 * removed after an unsuccessful end, and only with the files its list
 * names (plain names ending in .png), the list and the child's own
 * temporary files, so nothing the user put there goes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "het_figjob.h"
#include "het_proc.h"
#include "het_thread.h"

#define FIGJOB_GRACE	2.0	/* s between SIGTERM and SIGKILL */
#define FIGJOB_TICK	0.5	/* s: reap even if a SIGCHLD is lost */
#define FIGJOB_TAIL	4096	/* bytes of the log read for its last line */
#define FIGJOB_LIST_MAX	65536	/* bytes of the figure list read */

struct het_figjob {
	struct het_figjob_view v;
	char		*tmp;		/* the temporary folder of the log */
	char		*log_path;	/* the child's log, or NULL */
	struct het_procset *set;
	struct het_proc	*p;
	pid_t		 pid;
	int		 made_out;	/* out_dir did not exist at the start */
	int		 stopping;	/* cancel or wind-down: a signal is
					   ours */
	int		 tidied;
	unsigned long	 serial;	/* bumps whenever the view changes */
};

/* ---- the output folder --------------------------------------------------- */

/* dir/name into path (PATH_MAX bytes); 0 when it does not fit, so that
   no shortened name is ever removed. */
static int
join(char *path, const char *dir, const char *name)
{
	int n = snprintf(path, PATH_MAX, "%s/%s", dir, name);

	return n > 0 && n < PATH_MAX;
}

/*
 * Walk the figure list of out_dir: count the figures it names that
 * exist as regular files, removing them first when remove is set.
 */
static size_t
list_walk(const struct het_figjob *j, int remove)
{
	char path[PATH_MAX], *buf, *line, *save = NULL;
	struct stat st;
	size_t n = 0, len;
	FILE *fp;

	if (!join(path, j->v.out_dir, HET_FIGJOB_LIST) ||
	    (fp = fopen(path, "r")) == NULL)
		return 0;
	if ((buf = malloc(FIGJOB_LIST_MAX)) == NULL) {
		fclose(fp);
		return 0;
	}
	buf[fread(buf, 1, FIGJOB_LIST_MAX - 1, fp)] = '\0';
	fclose(fp);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		len = strlen(line);
		if (line[0] == '#' || line[0] == '.' || strchr(line, '/') ||
		    len < 5 || strcmp(line + len - 4, ".png") != 0 ||
		    !join(path, j->v.out_dir, line))
			continue;
		if (remove)
			unlink(path);
		else if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			n++;
	}
	free(buf);
	return n;
}

/* Remove the child's temporary files (.NAME.tmp.PID) from out_dir. */
static void
tidy_tmp(const struct het_figjob *j)
{
	char tail[32], path[PATH_MAX];
	struct dirent *e;
	size_t n, k;
	DIR *d;

	if ((d = opendir(j->v.out_dir)) == NULL)
		return;
	k = (size_t)snprintf(tail, sizeof(tail), ".tmp.%ld", (long)j->pid);
	while ((e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (e->d_name[0] != '.' || n <= k ||
		    strcmp(e->d_name + n - k, tail) != 0 ||
		    !join(path, j->v.out_dir, e->d_name))
			continue;
		unlink(path);
	}
	closedir(d);
}

/* After an end that is not a success: leave nothing half-written. */
static void
tidy(struct het_figjob *j)
{
	char path[PATH_MAX];
	struct stat st;

	if (j->tidied || j->pid <= 0)
		return;
	j->tidied = 1;
	tidy_tmp(j);
	if (j->made_out) {
		list_walk(j, 1);
		if (join(path, j->v.out_dir, HET_FIGJOB_LIST))
			unlink(path);
		rmdir(j->v.out_dir);	/* fails when the user put a file
					   there meanwhile: it stays */
	}
	j->v.out_kept = stat(j->v.out_dir, &st) == 0;
}

/* ---- the end ------------------------------------------------------------- */

/* A blank that ends a line of the log. */
static int
blank(char c)
{
	return c == '\n' || c == '\r' || c == ' ' || c == '\t';
}

/*
 * The last line of the child's output into *line (malloc'd, control
 * characters made '?'), NULL when it wrote nothing; returns 1 when the
 * log holds more than that line.
 */
static int
log_last_line(const char *log, char **line)
{
	char buf[FIGJOB_TAIL + 1], *s, *c;
	struct stat st;
	size_t n;
	FILE *fp;

	*line = NULL;
	if (log == NULL || (fp = fopen(log, "r")) == NULL)
		return 0;
	if (fstat(fileno(fp), &st) != 0 || (st.st_size > FIGJOB_TAIL &&
	    fseek(fp, (long)(st.st_size - FIGJOB_TAIL), SEEK_SET) != 0)) {
		fclose(fp);
		return 0;
	}
	n = fread(buf, 1, FIGJOB_TAIL, fp);
	fclose(fp);
	while (n > 0 && blank(buf[n - 1]))
		n--;
	buf[n] = '\0';
	if (n == 0)
		return 0;
	for (s = buf + n; s > buf && s[-1] != '\n'; s--)
		;
	if ((*line = strdup(s)) == NULL)
		return 0;
	for (c = *line; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return s > buf || st.st_size > FIGJOB_TAIL;
}

/* The error of a failed child: its own words, else how it ended. */
static void
failed(struct het_figjob *j, const struct het_proc_exit *ex)
{
	static const char *const pre[] = { "hetui report: ", "error: " };
	char *line = NULL, *msg = NULL;
	size_t k, n;
	int more = log_last_line(j->log_path, &line), rc;

	for (k = 0; line != NULL && k < 2; k++) {
		n = strlen(pre[k]);
		if (strncmp(line, pre[k], n) == 0)
			memmove(line, line + n, strlen(line + n) + 1);
	}
	if (line != NULL && line[0] != '\0') {
		msg = line;
		line = NULL;
	} else {
		rc = ex->exited ? asprintf(&msg, "hetui report exited with "
		    "status %d without saying why", ex->status) :
		    asprintf(&msg, "hetui report was killed by signal %d (%s)",
		    ex->signo, strsignal(ex->signo));
		if (rc < 0)
			msg = NULL;
	}
	free(line);
	j->v.error = msg != NULL ? msg : strdup("hetui report failed");
	if (more && j->log_path != NULL)
		j->v.log_path = strdup(j->log_path);
}

static void
on_done(struct het_proc *p, const struct het_proc_exit *ex, void *arg)
{
	struct het_figjob *j = arg;

	(void)p;
	j->serial++;
	j->v.ended = het_clock_now();
	j->v.exited = ex->exited;
	j->v.status = ex->status;
	j->v.signo = ex->signo;
	if (ex->exited && ex->status == 0) {
		j->v.end = HET_FIGJOB_WRITTEN;
		j->v.nfig = list_walk(j, 0);
		return;
	}
	if (!ex->exited && j->stopping)
		j->v.end = HET_FIGJOB_CANCELLED;
	else {
		j->v.end = HET_FIGJOB_FAILED;
		failed(j, ex);
	}
	tidy(j);
}

/* ---- start --------------------------------------------------------------- */

/* run_dir without trailing slashes, and run_dir/report. */
static int
job_dirs(struct het_figjob *j, const char *run_dir, struct het_error *err)
{
	size_t n = strlen(run_dir);

	while (n > 1 && run_dir[n - 1] == '/')
		n--;
	if ((j->v.run_dir = strndup(run_dir, n)) == NULL ||
	    asprintf(&j->v.out_dir, "%s%s" HET_FIGJOB_OUT, j->v.run_dir,
	    strcmp(j->v.run_dir, "/") == 0 ? "" : "/") < 0) {
		j->v.out_dir = NULL;
		return het_error_set(err, HET_ENOMEM, "out of memory");
	}
	return HET_OK;
}

static int
job_spawn(struct het_figjob *j, const struct het_figjob_spec *spec,
    double now, struct het_error *err)
{
	char self[PATH_MAX];
	char *av[] = { self, (char *)"report", (char *)"--quiet",
	    (char *)"-o", j->v.out_dir, (char *)"--", j->v.run_dir, NULL };
	struct het_proc_opts po;
	struct het_error e;

	het_proc_program(self, sizeof(self), spec->program);
	memset(&po, 0, sizeof(po));
	po.argv = av;
	po.log_dir = j->tmp;
	po.kill_grace = FIGJOB_GRACE;
	po.out_to_log = 1;
	po.on_done = on_done;
	po.arg = j;
	if ((j->set = het_procset_alloc(&po, err)) == NULL)
		return err->code;
	het_error_clear(&e);
	if ((j->p = het_proc_spawn(j->set, 1, now, &e)) == NULL) {
		if (e.sys_errno != 0)
			return het_error_sys(err, e.sys_errno, "cannot run %s "
			    "for the figures of %s", self, j->v.run_dir);
		*err = e;
		return het_error_prefix(err, "the figures (hetui report) did "
		    "not start");
	}
	j->pid = het_proc_pid(j->p);
	het_proc_close_stdin(j->p);	/* it reads nothing */
	if (het_proc_log_path(j->p) != NULL &&
	    (j->log_path = strdup(het_proc_log_path(j->p))) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	return HET_OK;
}

struct het_figjob *
het_figjob_start(const struct het_figjob_spec *spec, double now,
    struct het_error *err)
{
	struct het_figjob *j;
	struct stat st;

	if (spec->run_dir == NULL || spec->run_dir[0] == '\0') {
		het_error_set(err, HET_EINVAL, "no run folder to draw the "
		    "figures of");
		return NULL;
	}
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	j->v.started = now;
	if (job_dirs(j, spec->run_dir, err) != HET_OK)
		goto fail;
	j->made_out = stat(j->v.out_dir, &st) != 0 && errno == ENOENT;
	if ((j->tmp = het_proc_mkdtemp(spec->tmpdir, "hetui-figs",
	    "the log of hetui report", err)) == NULL ||
	    job_spawn(j, spec, now, err) != HET_OK)
		goto fail;
	return j;
fail:
	het_figjob_free(j);
	return NULL;
}

/* ---- the loop ------------------------------------------------------------ */

const struct het_figjob_view *
het_figjob_view(const struct het_figjob *j)
{
	return &j->v;
}

double
het_figjob_deadline(const struct het_figjob *j, double now)
{
	return j->v.end == HET_FIGJOB_RUNNING ? het_procset_wake(j->set, now,
	    FIGJOB_TICK) : -1;
}

int
het_figjob_reap(struct het_figjob *j, double now)
{
	unsigned long before = j->serial;

	if (j->v.end == HET_FIGJOB_RUNNING)
		het_procset_step(j->set, NULL, 0, now);
	return j->serial != before;
}

void
het_figjob_cancel(struct het_figjob *j, double now)
{
	if (j->v.end != HET_FIGJOB_RUNNING || j->v.cancelling)
		return;
	j->v.cancelling = 1;
	j->stopping = 1;
	j->serial++;
	het_proc_kill(j->p, now, HET_ECANCEL, "cancelled");
}

void
het_figjob_wind_down(struct het_figjob *j, double wait)
{
	if (j == NULL || j->v.end != HET_FIGJOB_RUNNING)
		return;
	j->stopping = 1;
	het_procset_shutdown_all(j->set, wait);
}

/* ---- the end ------------------------------------------------------------- */

void
het_figjob_free(struct het_figjob *j)
{
	if (j == NULL)
		return;
	het_procset_free(j->set);	/* SIGKILLs and reaps a live child */
	if (j->v.end == HET_FIGJOB_RUNNING)
		tidy(j);
	if (j->log_path != NULL && j->v.log_path == NULL)
		unlink(j->log_path);
	if (j->tmp != NULL)
		rmdir(j->tmp);	/* fails while a kept log is in it */
	free(j->v.run_dir);
	free(j->v.out_dir);
	free(j->v.error);
	free(j->v.log_path);
	free(j->tmp);
	free(j->log_path);
	free(j);
}
