#include "config.h"

/*
 * het_report.c: hetui report's writer: read the run folder, list its
 * figures, draw each into a PNG file of its own or a page of one PDF.
 *
 * Design: the output is checked before anything is drawn (a PDF that
 * exists, a folder holding files the user made: refused unless force),
 * then every file is drawn into a temporary name beside its final one
 * and renamed when complete (het_tmp_path, het_commit_tmp), so a failed
 * or interrupted report never leaves a half-written figure under a
 * figure's name.  A folder of PNG files gets a marker file first
 * (HET_REPORT_MARKER, the list of figures), which is how a later report
 * knows that the files there are its own to replace; once its figures
 * are written, a later report removes those the old list named that it
 * did not write (a run with fewer angles leaves no stale figure).
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cairo.h>
#include <cairo-pdf.h>

#include "het_report.h"
#include "het_report_impl.h"
#include "het_results.h"
#include "het_results_run.h"
#include "het_rings.h"
#include "het_util.h"

#define PDF_SCALE	0.6	/* points per pixel of a PDF page */

/* What the figures are drawn from: a run folder or a batch folder. */
struct rep_src {
	int			 batch;		/* 1: table, else run */
	struct het_results_run	 run;
	struct het_rings	 table;
	char			*csv;		/* the table's file */
	struct het_rep_cache	 cache;		/* the run's matrices */
};

static int
rep_draw(cairo_t *cr, struct rep_src *src, const struct het_rep_fig *f,
    struct het_error *err)
{
	if (src->batch)
		return het_rep_draw_batch(cr, &src->table, src->csv, f, err);
	return het_rep_draw(cr, &src->run, f, &src->cache, err);
}

void
het_report_out_fini(struct het_report_out *res)
{
	if (res == NULL)
		return;
	free(res->path);
	memset(res, 0, sizeof(*res));
}

/* dir/name in a new string. */
static char *
rep_join(const char *dir, const char *name, const char *ext,
    struct het_error *err)
{
	size_t n = strlen(dir) + strlen(name) + strlen(ext) + 2;
	char *p = het_alloc_array(n, 1, "path", err);

	if (p != NULL)
		snprintf(p, n, "%s/%s%s", dir, name, ext);
	return p;
}

/* The mode of the first run folder of the batch table t in dir. */
static int
rep_batch_mode(const char *dir, const struct het_rings *t, char *buf,
    size_t len, struct het_error *err)
{
	struct het_results_run run;
	const char *base;
	char *path;
	size_t r;
	int rc;

	for (r = 0; r < t->nrows; r++) {
		if (t->rows[r].run_dir[0] == '\0')
			continue;
		base = strrchr(t->rows[r].run_dir, '/');
		base = base != NULL ? base + 1 : t->rows[r].run_dir;
		if ((path = rep_join(dir, base, "", err)) == NULL)
			return HET_ENOMEM;
		rc = het_results_run_load(path, &run, NULL);
		free(path);
		if (rc == HET_OK)
			snprintf(buf, len, "%s", run.mode);
		het_results_run_clear(&run);
		if (rc == HET_OK)
			return HET_OK;
	}
	return het_error_set(err, HET_ENOTFOUND, "the batch folder %s holds "
	    "no run folder of its fits (the folders its %s names in "
	    "run_dir) to check -c against: leave out -c", dir,
	    t->layout->csv);
}

int
het_report_mode(const char *rundir, char *buf, size_t len, int *batch,
    struct het_error *err)
{
	struct het_results_run run;
	struct het_rings t;
	int rc = het_results_run_load(rundir, &run, err);

	snprintf(buf, len, "%s", rc == HET_OK ? run.mode : "");
	het_results_run_clear(&run);
	*batch = 0;
	if (rc != HET_ENOTFOUND || het_rings_which(rundir, NULL) == NULL)
		return rc;
	*batch = 1;
	if ((rc = het_rings_load(rundir, &t, err)) == HET_OK)
		rc = rep_batch_mode(rundir, &t, buf, len, err);
	het_rings_fini(&t);
	return rc;
}

static int
rep_is_pdf(const char *out)
{
	size_t n = out != NULL ? strlen(out) : 0;

	return n > 4 && strcasecmp(out + n - 4, ".pdf") == 0;
}

/* May figures go into dir?  Missing, empty or an earlier report's. */
static int
rep_dir_ok(const char *dir, int force, struct het_error *err)
{
	struct dirent *de;
	struct stat st;
	char other[256] = "";
	int marker = 0;
	DIR *d;

	if (stat(dir, &st) != 0)
		return errno == ENOENT ? HET_OK : het_error_sys(err, errno,
		    "cannot look at the output folder %s", dir);
	if (!S_ISDIR(st.st_mode))
		return het_error_set(err, HET_EINVAL, "%s exists and is not a "
		    "folder: give -o a folder for the PNG files, or a name "
		    "ending in .pdf", dir);
	if ((d = opendir(dir)) == NULL)
		return het_error_sys(err, errno, "cannot read the output "
		    "folder %s", dir);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, HET_REPORT_MARKER) == 0)
			marker = 1;
		else if (other[0] == '\0')
			snprintf(other, sizeof(other), "%s", de->d_name);
	}
	closedir(d);
	if (marker || other[0] == '\0' || force)
		return HET_OK;
	return het_error_set(err, HET_EINVAL, "the output folder %s holds "
	    "files hetui report did not write (%s, ...): give -o another "
	    "folder, or --force to write the figures beside them", dir,
	    other);
}

/* The marker of a figure folder, listing the figures, atomically. */
static int
rep_marker(const char *dir, const struct het_rep_fig *f, size_t n,
    struct het_error *err)
{
	char *path = rep_join(dir, HET_REPORT_MARKER, "", err), *tmp = NULL;
	FILE *fp = NULL;
	size_t k;
	int rc = HET_ENOMEM;

	if (path == NULL || (tmp = het_tmp_path(path, err)) == NULL)
		goto out;
	if ((fp = fopen(tmp, "w")) == NULL) {
		rc = het_error_sys(err, errno, "cannot write in the output "
		    "folder %s (permissions?): give -o a folder you can "
		    "write", dir);
		goto out;
	}
	fprintf(fp, "# figures of hetui report; the files listed here may "
	    "be replaced by the next report\n");
	for (k = 0; k < n; k++)
		fprintf(fp, "%s.png\n", f[k].name);
	if (fclose(fp) != 0) {
		rc = het_error_sys(err, errno, "cannot write %s", tmp);
		unlink(tmp);
		goto out;
	}
	rc = het_commit_tmp(tmp, path, err);
out:
	free(tmp);
	free(path);
	return rc;
}

/*
 * After a report into dir: remove the figures the earlier report's
 * marker (old, its text, or NULL) listed that this one did not write (a
 * run with fewer angles leaves no stale heat_NNN behind).  Only plain
 * names ending in .png are touched; a failure to remove one is not an
 * error (the new marker no longer claims it).
 */
static void
rep_remove_stale(const char *dir, char *old, const struct het_rep_fig *f,
    size_t n)
{
	char *line, *save = NULL, *path;
	struct het_error e;
	size_t k, len;

	for (line = old != NULL ? strtok_r(old, "\n", &save) : NULL;
	    line != NULL; line = strtok_r(NULL, "\n", &save)) {
		len = strlen(line);
		if (line[0] == '#' || line[0] == '.' || strchr(line, '/') ||
		    len < 5 || strcmp(line + len - 4, ".png") != 0)
			continue;
		for (k = 0; k < n; k++)
			if (len - 4 < sizeof f[k].name &&
			    strncmp(line, f[k].name, len - 4) == 0 &&
			    f[k].name[len - 4] == '\0')
				break;
		if (k < n || (path = rep_join(dir, line, "", &e)) == NULL)
			continue;
		unlink(path);
		free(path);
	}
}

/* The text of dir's marker, or NULL (none, or unreadable). */
static char *
rep_old_marker(const char *dir)
{
	struct het_error e;
	char *path = rep_join(dir, HET_REPORT_MARKER, "", &e), *buf = NULL;
	size_t n = 0;
	FILE *fp;

	if (path != NULL && (fp = fopen(path, "r")) != NULL) {
		if ((buf = malloc(65536)) != NULL) {
			n = fread(buf, 1, 65535, fp);
			buf[n] = '\0';
		}
		fclose(fp);
	}
	free(path);
	return buf;
}

static int
rep_png(const char *dir, struct rep_src *src, const struct het_rep_fig *f,
    struct het_error *err)
{
	char *path = rep_join(dir, f->name, ".png", err), *tmp = NULL;
	cairo_surface_t *s = NULL;
	cairo_t *cr = NULL;
	cairo_status_t st;
	int rc = HET_ENOMEM;

	if (path == NULL || (tmp = het_tmp_path(path, err)) == NULL)
		goto out;
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f->w, f->h);
	cr = cairo_create(s);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		het_error_set(err, HET_ENOMEM, "cannot make a %d x %d image "
		    "for %s", f->w, f->h, path);
		goto out;
	}
	if ((rc = rep_draw(cr, src, f, err)) != HET_OK)
		goto out;
	cairo_surface_flush(s);
	if ((st = cairo_surface_write_to_png(s, tmp)) !=
	    CAIRO_STATUS_SUCCESS) {
		unlink(tmp);
		rc = het_error_set(err, HET_EIO, "cannot write %s (%s): is "
		    "the disk full or the folder read-only?", path,
		    cairo_status_to_string(st));
		goto out;
	}
	rc = het_commit_tmp(tmp, path, err);
out:
	if (cr != NULL)
		cairo_destroy(cr);
	if (s != NULL)
		cairo_surface_destroy(s);
	free(tmp);
	free(path);
	return rc;
}

static int
rep_pdf(const char *out, struct rep_src *src, const struct het_rep_fig *f,
    size_t n, struct het_error *err)
{
	cairo_surface_t *s;
	cairo_status_t st;
	cairo_t *cr;
	char *tmp;
	size_t k;
	int rc = HET_OK;

	if ((tmp = het_tmp_path(out, err)) == NULL)
		return HET_ENOMEM;
	s = cairo_pdf_surface_create(tmp, f[0].w * PDF_SCALE,
	    f[0].h * PDF_SCALE);
	if ((st = cairo_surface_status(s)) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		unlink(tmp);
		free(tmp);
		return het_error_set(err, HET_EIO, "cannot write %s (%s): "
		    "does its folder exist, and may you write there?", out,
		    cairo_status_to_string(st));
	}
	cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR,
	    "hetui report");
	for (k = 0; k < n && rc == HET_OK; k++) {
		cairo_pdf_surface_set_size(s, f[k].w * PDF_SCALE,
		    f[k].h * PDF_SCALE);
		cr = cairo_create(s);
		cairo_scale(cr, PDF_SCALE, PDF_SCALE);
		rc = rep_draw(cr, src, &f[k], err);
		cairo_show_page(cr);
		cairo_destroy(cr);
	}
	cairo_surface_finish(s);
	st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (rc == HET_OK && st != CAIRO_STATUS_SUCCESS)
		rc = het_error_set(err, HET_EIO, "cannot write %s (%s): is "
		    "the disk full?", out, cairo_status_to_string(st));
	if (rc != HET_OK)
		unlink(tmp);
	else
		rc = het_commit_tmp(tmp, out, err);
	free(tmp);
	return rc;
}

static double
rep_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * Read what rundir holds into src: a run folder (hetui_results.h5), else
 * a batch folder (rings.csv, series.csv); its figures into *f.
 */
static int
rep_source(const char *rundir, struct rep_src *src, struct het_rep_fig **f,
    size_t *n, struct het_error *err)
{
	const struct het_rings_layout *l;
	int rc;

	rc = het_results_run_load(rundir, &src->run, err);
	if (rc == HET_OK)
		return het_rep_figs(&src->run, f, n, err);
	if (rc != HET_ENOTFOUND)
		return rc;
	if ((l = het_rings_which(rundir, NULL)) == NULL)
		return het_error_set(err, HET_ENOTFOUND, "%s is not a run "
		    "folder: it has no %s; nor is it a batch folder: it has "
		    "neither %s nor %s (hetui fit and hetui sample write a "
		    "run folder, hetui fit --all-rings and --series a batch "
		    "folder; the command printed its name)", rundir,
		    HET_RESULTS_H5, HET_RINGS_CSV, HET_SERIES_CSV);
	src->batch = 1;
	if ((rc = het_rings_load(rundir, &src->table, err)) != HET_OK)
		return rc;
	if ((src->csv = rep_join(rundir, src->table.layout->csv, "",
	    err)) == NULL)
		return HET_ENOMEM;
	return het_rep_batch_figs(&src->table, src->csv, f, n, err);
}

int
het_report_write(const char *rundir, const char *out, int force,
    struct het_report_out *res, struct het_error *err)
{
	struct het_rep_fig *f = NULL;
	struct rep_src src;
	struct stat st;
	size_t n = 0, k;
	double t0 = rep_now();
	char *old = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&src, 0, sizeof(src));
	het_rings_init(&src.table);
	if ((rc = rep_source(rundir, &src, &f, &n, err)) != HET_OK)
		goto out;
	res->pdf = rep_is_pdf(out);
	res->path = res->pdf ? het_strdup(out, err) : out != NULL ?
	    het_strdup(out, err) : rep_join(rundir, "report", "", err);
	if (res->path == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if (res->pdf && !force && stat(out, &st) == 0) {
		rc = het_error_set(err, HET_EINVAL, "%s exists: hetui report "
		    "does not replace a file; name another, or give --force "
		    "to replace it", out);
		goto out;
	}
	if (res->pdf) {
		rc = rep_pdf(out, &src, f, n, err);
		goto out;
	}
	if ((rc = rep_dir_ok(res->path, force, err)) != HET_OK ||
	    (rc = het_mkdirs(res->path, "output folder", err)) != HET_OK)
		goto out;
	old = rep_old_marker(res->path);
	if ((rc = rep_marker(res->path, f, n, err)) != HET_OK)
		goto out;
	for (k = 0; k < n && rc == HET_OK; k++)
		rc = rep_png(res->path, &src, &f[k], err);
	if (rc == HET_OK)
		rep_remove_stale(res->path, old, f, n);
out:
	free(old);
	res->nfig = n;
	res->seconds = rep_now() - t0;
	free(f);
	het_rep_cache_fini(&src.cache);
	het_results_run_clear(&src.run);
	het_rings_fini(&src.table);
	free(src.csv);
	if (rc != HET_OK)
		het_report_out_fini(res);
	return rc;
}
