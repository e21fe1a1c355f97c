/*
 * cmd_fit_series.c: `hetui fit --series FILE_OR_FOLDER...`: the fit of
 * `hetui fit` for each file of a series taken during an experiment, each
 * starting from the previous file's result, and how every parameter
 * drifts across the series.
 *
 * Flow: the inputs are files and folders (a folder's result files as the
 * file browser lists them, het_scan_dir); a path that does not exist, a
 * named file that is not a result file (het_scan_is_candidate), a folder
 * without result files and a file named twice (same device and inode)
 * are refused before anything is made.  The files are sorted by
 * modification time, the measurement order (ties by name).  A batch
 * folder is made (OUTPUT_DIR/series-<UTC time>: a series spans files, so
 * no file's stem; or -o DIR after het_rundir_check), and each file is
 * fitted into BATCH/NN-<stem> (cli_batch_fit) from the last converged
 * result (het_fitjob_spec's warm start, as the workstation's R key), the
 * first from the configuration.  A file that cannot be fitted is a row
 * with status "failed" and the reason; the series goes on from the last
 * converged result.  A cancel stops after the file being fitted (its
 * partial result is written like any cancelled fit's) and the summary of
 * the finished files is still written (het_rings, series layout:
 * series.csv, series.h5) and printed (cmd_fit_rings_out.c's table and
 * plots, with the linear drift per file).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_fit.h"
#include "cmd_fit_rings.h"
#include "het_results.h"
#include "het_rings.h"
#include "het_rundir.h"
#include "het_scan.h"
#include "het_util.h"

struct series_file {
	char		*path;		/* as named, or folder/name */
	struct timespec	 mtime;
	dev_t		 dev;
	ino_t		 ino;
};

struct cli_series {
	const struct cli_cmd *cmd;
	struct series_file *f;
	size_t		 n, cap;
	char		*batch;
	struct het_rings table;
	const char	*mode_name;	/* of the first file fitted */
	int		 cancelled, lost;
	struct cli_batch_start start;	/* the last converged result */
	long		 start_from;	/* its file, 0: none */
};

/* ---- the inputs ---------------------------------------------------------- */

static int
series_push(struct cli_series *s, const char *path, const struct stat *st)
{
	void *p;

	if (s->n == s->cap) {
		s->cap = s->cap == 0 ? 16 : 2 * s->cap;
		if ((p = realloc(s->f, s->cap * sizeof(*s->f))) == NULL)
			return HET_ENOMEM;
		s->f = p;
	}
	if ((s->f[s->n].path = strdup(path)) == NULL)
		return HET_ENOMEM;
	s->f[s->n].mtime = st->st_mtim;
	s->f[s->n].dev = st->st_dev;
	s->f[s->n].ino = st->st_ino;
	s->n++;
	return HET_OK;
}

/* The result files of folder dir, as the file browser lists them. */
/*
 * The files hetui itself writes: a folder that holds a batch summary or
 * a run's results or checkpoint (-o into the data folder) must not feed
 * them back into the next series.
 */
static int
hetui_output(const char *name)
{
	return het_rundir_is_result(name) ||
	    strcmp(name, HET_RESULTS_CHECKPOINT) == 0;
}

static int
series_folder(struct cli_series *s, const char *dir, struct het_error *err)
{
	struct het_scan_list *l = NULL;
	struct stat st;
	size_t k, len;
	char *p;
	int rc;

	if ((rc = het_scan_dir(dir, &l, err)) != HET_OK)
		return rc;
	if (l->nfiles == 0)
		rc = het_error_set(err, HET_EINVAL, "%s; a series needs "
		    "result files: name the folder that holds them, or the "
		    "files", l->note != NULL ? l->note : dir);
	for (k = 0; k < l->nfiles && rc == HET_OK; k++) {
		if (hetui_output(l->files[k].name))
			continue;	/* a summary or result hetui wrote */
		len = strlen(dir) + strlen(l->files[k].name) + 2;
		if ((p = malloc(len)) == NULL)
			rc = het_error_set(err, HET_ENOMEM, "out of memory");
		else {
			snprintf(p, len, "%s%s%s", dir, dir[strlen(dir) - 1] ==
			    '/' ? "" : "/", l->files[k].name);
			if (stat(p, &st) != 0)	/* vanished since */
				rc = het_error_sys(err, errno, "cannot read "
				    "%s", p);
			else if (series_push(s, p, &st) != HET_OK)
				rc = het_error_set(err, HET_ENOMEM, "out of "
				    "memory");
			free(p);
		}
	}
	het_scan_list_free(l);
	return rc;
}

static int
series_cmp(const void *a, const void *b)
{
	const struct series_file *x = a, *y = b;
	const char *nx = strrchr(x->path, '/'), *ny = strrchr(y->path, '/');
	int c;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	c = strcmp(nx != NULL ? nx + 1 : x->path, ny != NULL ? ny + 1 :
	    y->path);
	return c != 0 ? c : strcmp(x->path, y->path);
}

/* Every input into s->f, refused as a whole when one is not usable. */
static int
series_inputs(struct cli_series *s, char **paths, size_t npaths,
    struct het_error *err)
{
	struct stat st;
	size_t k, j;

	for (k = 0; k < npaths; k++) {
		if (stat(paths[k], &st) != 0)
			return het_error_sys(err, errno, "%s cannot be read; "
			    "name the result files of the series or their "
			    "folders", paths[k]);
		if (S_ISDIR(st.st_mode)) {
			if (series_folder(s, paths[k], err) != HET_OK)
				return err->code;
		} else if (!S_ISREG(st.st_mode))
			return het_error_set(err, HET_EINVAL, "%s is neither "
			    "a file nor a folder", paths[k]);
		else if (!het_scan_is_candidate(paths[k]))
			return het_error_set(err, HET_EINVAL, "%s is not a "
			    "result file (its name does not end in .hdf, .h5, "
			    ".hdf5 or .npy and it has no HDF5 signature); "
			    "name result files or their folders", paths[k]);
		else if (series_push(s, paths[k], &st) != HET_OK)
			return het_error_set(err, HET_ENOMEM, "out of memory");
	}
	for (k = 0; k < s->n; k++)
		for (j = k + 1; j < s->n; j++)
			if (s->f[k].dev == s->f[j].dev &&
			    s->f[k].ino == s->f[j].ino)
				return het_error_set(err, HET_EINVAL, "%s and "
				    "%s are the same file; a series names each "
				    "file once", s->f[k].path, s->f[j].path);
	qsort(s->f, s->n, sizeof(*s->f), series_cmp);
	return HET_OK;
}

/* ---- one file ------------------------------------------------------------ */

/* The folder of file i in the batch: NN-<stem> (malloc'd), or NULL. */
static char *
series_dir(const struct cli_series *s, size_t i)
{
	char stem[200], *p;
	size_t len;

	het_rundir_stem(s->f[i].path, stem, sizeof(stem));
	len = strlen(s->batch) + strlen(stem) + 32;
	if ((p = malloc(len)) != NULL)
		snprintf(p, len, "%s/%0*zu-%s", s->batch, s->n < 100 ? 2 :
		    s->n < 1000 ? 3 : 6, i + 1, stem);
	return p;
}

/* Keep the converged result res of file i as the next file's start. */
static void
series_keep(struct cli_series *s, size_t i,
    const struct het_fitjob_result *res)
{
	const struct het_fit_result *fr = res->fits[0];
	struct cli_batch_start *w = &s->start;
	size_t k;

	for (k = 0; k < w->n; k++)
		free(w->names[k]);
	free(w->names);
	free(w->x);
	memset(w, 0, sizeof(*w));
	s->start_from = 0;
	w->names = calloc(fr->p, sizeof(*w->names));
	w->x = calloc(fr->p, sizeof(double));
	for (k = 0; w->names != NULL && w->x != NULL && k < fr->p; k++) {
		if ((w->names[k] = strdup(fr->names[k])) == NULL)
			break;
		w->x[k] = fr->x[k];
		w->n++;
	}
	/* Out of memory: the next file starts from the configuration. */
	if (w->n == fr->p)
		s->start_from = (long)i + 1;
}

/* Add the row of file i (res NULL: failed, why err). */
static void
series_add(struct cli_series *s, size_t i, long from, const char *dir,
    const struct het_fitjob_result *res, const struct het_error *why)
{
	struct het_rings_cell lead[HET_SERIES_NLEAD];
	struct het_rings_vals v;
	struct het_error err;
	char when[40];
	struct tm tm;
	int rc;

	memset(lead, 0, sizeof(lead));
	memset(&v, 0, sizeof(v));
	het_error_clear(&err);
	when[0] = '\0';
	if (gmtime_r(&s->f[i].mtime.tv_sec, &tm) != NULL)
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	lead[HET_SERIES_INDEX].i = (long)i + 1;
	lead[HET_SERIES_FILE].s = s->f[i].path;
	lead[HET_SERIES_MTIME].s = when;
	lead[HET_SERIES_T].x = (double)(s->f[i].mtime.tv_sec -
	    s->f[0].mtime.tv_sec) + 1e-9 * (double)(s->f[i].mtime.tv_nsec -
	    s->f[0].mtime.tv_nsec);
	lead[HET_SERIES_START].i = from;
	if (res == NULL)
		rc = het_rings_add_row(&s->table, lead, "failed", NAN, "",
		    why->msg[0] != '\0' ? why->msg : het_status_str(why->code),
		    NULL, &err);
	else if ((rc = cli_batch_vals(res, &v, &err)) == HET_OK)
		rc = het_rings_add_row(&s->table, lead, res->status_name,
		    res->fits[0]->chi2_red, dir, "", &v, &err);
	free((void *)v.names);
	free((void *)v.value);
	free((void *)v.plot);
	if (rc != HET_OK) {
		cli_report(s->cmd, &err);
		s->lost = 1;
	}
}

/* Fit file i into its folder; its row.  Returns 1 when cancelled. */
static int
series_fit_one(struct cli_series *s, size_t i, const struct cli_fit_opts *o,
    const struct het_config *cfg, const atomic_int *cancel)
{
	struct het_fitjob_result *res = NULL;
	struct het_error err;
	long from = s->start_from;
	const char *name;
	char *dir;
	size_t w;
	int st;

	het_error_clear(&err);
	if ((dir = series_dir(s, i)) == NULL) {
		het_error_set(&err, HET_ENOMEM, "out of memory");
		series_add(s, i, from, NULL, NULL, &err);
		return 0;
	}
	if (from > 0)
		fprintf(stderr, "file %zu/%zu: %s into %s/, warm start from "
		    "the result of file %ld\n", i + 1, s->n, s->f[i].path, dir,
		    from);
	else
		fprintf(stderr, "file %zu/%zu: %s into %s/, starting from "
		    "the configuration\n", i + 1, s->n, s->f[i].path, dir);
	name = strrchr(s->f[i].path, '/');
	cli_wire_event("start", json_pack("{s:I, s:I, s:s, s:s, s:I}", "index",
	    (json_int_t)i + 1, "of", (json_int_t)s->n, "label", name != NULL ?
	    name + 1 : s->f[i].path, "dir", dir, "from", (json_int_t)from));
	st = cli_batch_fit(s->cmd, o, cfg, s->f[i].path, dir,
	    from > 0 ? &s->start : NULL, cancel, &res, &err);
	if (res == NULL && st == HET_ECANCEL) {
		fprintf(stderr, "hetui %s: file %zu cancelled while reading; "
		    "not fitted\n", s->cmd->name, i + 1);
		cli_batch_wire_end(i, NULL, &err);
		free(dir);
		return 1;
	}
	series_add(s, i, from, dir, res, &err);
	cli_batch_wire_end(i, res, &err);
	if (res == NULL)
		fprintf(stderr, "hetui %s: file %zu (%s) failed: %s; the "
		    "series goes on\n", s->cmd->name, i + 1, s->f[i].path,
		    err.msg);
	else {
		for (w = 0; w < res->fits[0]->nwarnings; w++)
			cli_warn(s->cmd, "file %zu: %s", i + 1,
			    res->fits[0]->warnings[w]);
		fprintf(stderr, "file %zu/%zu: %s, chi2_red %.4g\n", i + 1,
		    s->n, res->status_name, res->fits[0]->chi2_red);
		if (res->converged && st == HET_OK)
			series_keep(s, i, res);
		if (s->mode_name == NULL)
			s->mode_name = het_mode_name(res->pb->spec.mode);
	}
	het_fitjob_result_free(res);
	free(dir);
	return st == HET_ECANCEL;
}

/* ---- the summary --------------------------------------------------------- */

/* Index, seconds since the first file, start and file of row r. */
static void
series_lead(const struct het_rings *t, size_t r, FILE *out)
{
	const struct het_rings_cell *c = t->rows[r].cell;
	const char *name = strrchr(c[HET_SERIES_FILE].s, '/');
	char from[24];

	snprintf(from, sizeof(from), "%ld", c[HET_SERIES_START].i);
	fprintf(out, "%4ld  %-9.4g %-4s  %-20.20s ", c[HET_SERIES_INDEX].i,
	    c[HET_SERIES_T].x, c[HET_SERIES_START].i > 0 ? from : "-",
	    name != NULL ? name + 1 : c[HET_SERIES_FILE].s);
}

static void
series_print(const struct cli_series *s, FILE *out)
{
	struct cli_batch_view v;

	memset(&v, 0, sizeof(v));
	v.head = "file  t [s]     from  name                 ";
	v.lead = series_lead;
	v.unit = "file";
	v.x_name = "file index";
	v.x_label = "file index";
	v.trend = "drift per file";
	fprintf(out, "hetui fit --series: %s, %zu of %zu file%s in the order "
	    "of their modification times (ties by name); each starts from "
	    "the last converged result (from)\n\n", s->mode_name != NULL ?
	    s->mode_name : "?", s->table.nrows, s->n, s->n == 1 ? "" : "s");
	cli_batch_print(&s->table, &v, out);
	fprintf(out, "\nresults written to %s/ (%s, %s, one folder per "
	    "file)\n", s->batch, HET_SERIES_CSV, HET_SERIES_H5);
}

static void
series_print_cb(const void *s, FILE *out)
{
	series_print(s, out);
}

static void
series_print_json(const struct cli_series *s, int rc)
{
	cli_batch_json_print(json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:o, "
	    "s:o, s:[s, s]}", "status", cli_batch_status_name(s->cancelled,
	    rc), "analysis_mode", s->mode_name != NULL ? s->mode_name : "",
	    "order", "modification time, ties by name", "batch_dir", s->batch,
	    "n_files", (json_int_t)s->n, "n_fitted",
	    (json_int_t)s->table.nrows, "series", cli_batch_json_rows(
	    &s->table), "drifts", cli_batch_json_trends(&s->table,
	    "drift_per_file", "n_files"), "files", HET_SERIES_CSV,
	    HET_SERIES_H5));
}

/* Fit every file, then write and print the summary. */
static int
series_run(struct cli_series *s, const struct cli_fit_opts *o,
    const struct het_config *cfg, const atomic_int *cancel)
{
	struct het_error err;
	size_t i;
	int rc;

	cli_wire_event("batch", json_pack("{s:s, s:s, s:I}", "what", "series",
	    "dir", s->batch, "of", (json_int_t)s->n));
	for (i = 0; i < s->n && !s->cancelled; i++)
		s->cancelled = series_fit_one(s, i, o, cfg, cancel) ||
		    atomic_load(cancel) != 0;
	rc = cli_batch_status(&s->table, s->cancelled, s->lost);
	if (s->table.nrows == 0) {
		fprintf(stderr, "hetui %s: no file was fitted; nothing was "
		    "written\n", s->cmd->name);
		cli_wire_note("error", "no file was fitted; nothing was "
		    "written");
		cli_wire_summary(cli_batch_status_name(s->cancelled, rc), rc,
		    NULL, 0, s->n, NULL, NULL);
		return rc;
	}
	het_error_clear(&err);
	if (het_rings_write(&s->table, s->batch, &err) != HET_OK) {
		cli_report(s->cmd, &err);
		s->lost = 1;
	}
	rc = cli_batch_status(&s->table, s->cancelled, s->lost);
	if (o->json)
		series_print_json(s, rc);
	else if (o->wire)
		cli_wire_summary(cli_batch_status_name(s->cancelled, rc), rc,
		    s->batch, s->table.nrows, s->n, series_print_cb, s);
	else
		series_print(s, stdout);
	if (s->cancelled)
		fprintf(stderr, "hetui %s: cancelled; the %zu file%s fitted "
		    "so far %s summarised in %s/\n", s->cmd->name,
		    s->table.nrows, s->table.nrows == 1 ? "" : "s",
		    s->table.nrows == 1 ? "is" : "are", s->batch);
	return rc;
}

/* The batch folder: -o DIR, or OUTPUT_DIR/series-<UTC time>. */
static char *
series_batch(struct cli_series *s, const struct cli_fit_opts *o,
    const struct het_config *cfg, int *made, int *rc)
{
	struct het_config c = *cfg;	/* the output settings only */
	struct het_error err;
	char *dir;

	/* A series spans files: no file's stem in the folder's path. */
	c.create_subdirs = 0;
	if ((dir = cli_run_dir(s->cmd, &c, o->out, NULL, "series", o->force,
	    made, rc)) == NULL)
		return NULL;
	/* Without timestamp_dirs OUTPUT_DIR itself: never replaced. */
	het_error_clear(&err);
	if (o->out == NULL && !*made &&
	    het_rundir_check(dir, o->force, &err) != HET_OK) {
		*rc = cli_report(s->cmd, &err);
		free(dir);
		return NULL;
	}
	return dir;
}

int
cli_fit_series(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    const struct het_config *cfg, const atomic_int *cancel)
{
	struct cli_series s;
	struct het_error err;
	size_t k;
	int rc, made = 0;

	memset(&s, 0, sizeof(s));
	s.cmd = cmd;
	het_rings_init_layout(&s.table, &het_rings_layout_series);
	het_error_clear(&err);
	if (series_inputs(&s, o->inputs, o->ninputs, &err) != HET_OK)
		rc = cli_report(cmd, &err);
	else if ((s.batch = series_batch(&s, o, cfg, &made, &rc)) != NULL) {
		if ((rc = cli_check_output(cmd, s.batch)) == CLI_EXIT_OK)
			rc = series_run(&s, o, cfg, cancel);
		/* A batch that wrote nothing leaves no empty folder. */
		if (made)
			rmdir(s.batch);
	}
	het_rings_fini(&s.table);
	for (k = 0; k < s.n; k++)
		free(s.f[k].path);
	for (k = 0; k < s.start.n; k++)
		free(s.start.names[k]);
	free(s.start.names);
	free(s.start.x);
	free(s.f);
	free(s.batch);
	return rc;
}
