#include "config.h"
/*
 * het_rings.c: the summary table of a batch of fits, per q ring or per
 * file of a series (see het_rings.h).
 *
 * Design: the batch's kind is only its layout, a static table of leading
 * columns, so the rows, the files and the trend are one code for both.
 * Rows keep the values of the columns known when they were added
 * (nvals); a later column is NaN for them, so adding a row never touches
 * the others.  The CSV is printed into a memory stream and written with
 * het_write_file_atomic; the HDF5 file is made under a temporary name
 * with the results writer's helpers (het_rs_*) and renamed.  The trend
 * is an ordinary (or weighted) least-squares line through (ln x, ln v)
 * or (x, v).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_results_impl.h"
#include "het_rings.h"
#include "het_util.h"

static const struct het_rings_col rg_lead_rings[] = {
	{ "ring", HET_RINGS_INT }, { "q", HET_RINGS_REAL },
	{ "q2", HET_RINGS_REAL }
};

const struct het_rings_layout het_rings_layout_rings = {
	rg_lead_rings, 3, 1, 1, HET_RINGS_CSV, HET_RINGS_H5
};

static const struct het_rings_col rg_lead_series[HET_SERIES_NLEAD] = {
	{ "index", HET_RINGS_INT }, { "file", HET_RINGS_TEXT },
	{ "mtime", HET_RINGS_TEXT }, { "t", HET_RINGS_REAL },
	{ "start_from", HET_RINGS_INT }
};

const struct het_rings_layout het_rings_layout_series = {
	rg_lead_series, HET_SERIES_NLEAD, HET_SERIES_INDEX, 0, HET_SERIES_CSV,
	HET_SERIES_H5
};

void
het_rings_init_layout(struct het_rings *t,
    const struct het_rings_layout *layout)
{
	memset(t, 0, sizeof(*t));
	t->layout = layout;
}

void
het_rings_init(struct het_rings *t)
{
	het_rings_init_layout(t, &het_rings_layout_rings);
}

static void
rg_row_fini(const struct het_rings *t, struct het_rings_row *r)
{
	size_t k;

	for (k = 0; r->cell != NULL && k < t->layout->nlead; k++)
		free((char *)r->cell[k].s);
	free(r->cell);
	free(r->status);
	free(r->run_dir);
	free(r->message);
	free(r->value);
	free(r->unc);
}

void
het_rings_fini(struct het_rings *t)
{
	size_t k;

	for (k = 0; k < t->nrows; k++)
		rg_row_fini(t, &t->rows[k]);
	for (k = 0; k < t->ncols; k++)
		free(t->names[k]);
	free(t->rows);
	free(t->names);
	free(t->plot);
	memset(t, 0, sizeof(*t));
	t->layout = &het_rings_layout_rings;
}

static int
rg_nomem(struct het_error *err)
{
	return het_error_set(err, HET_ENOMEM, "out of memory for the rings "
	    "summary");
}

/* The column of name, appended when new; -1 when out of memory. */
static long
rg_column(struct het_rings *t, const char *name, struct het_error *err)
{
	size_t k, cap;
	void *p;

	for (k = 0; k < t->ncols; k++)
		if (strcmp(t->names[k], name) == 0)
			return (long)k;
	if (t->ncols == t->colcap) {
		cap = t->colcap == 0 ? 16 : 2 * t->colcap;
		if ((p = realloc(t->names, cap * sizeof(*t->names))) == NULL)
			return rg_nomem(err), -1;
		t->names = p;
		if ((p = realloc(t->plot, cap)) == NULL)
			return rg_nomem(err), -1;
		t->plot = p;
		t->colcap = cap;
	}
	if ((t->names[t->ncols] = strdup(name)) == NULL)
		return rg_nomem(err), -1;
	t->plot[t->ncols] = 0;
	return (long)t->ncols++;
}

/* The values of v in the row's columns (the row has t->ncols slots). */
static int
rg_fill(struct het_rings *t, struct het_rings_row *r,
    const struct het_rings_vals *v, struct het_error *err)
{
	size_t k;
	long c;

	for (k = 0; k < v->n; k++) {
		if ((c = rg_column(t, v->names[k], err)) < 0)
			return HET_ENOMEM;
		if ((size_t)c >= r->nvals) {
			size_t n = t->ncols, i;
			double *a = realloc(r->value, n * sizeof(double));

			if (a != NULL)
				r->value = a;
			a = a == NULL ? NULL : realloc(r->unc,
			    n * sizeof(double));
			if (a == NULL)
				return rg_nomem(err);
			r->unc = a;
			for (i = r->nvals; i < n; i++)
				r->value[i] = r->unc[i] = NAN;
			r->nvals = n;
		}
		r->value[c] = v->value[k];
		r->unc[c] = v->unc[k];
		if (v->plot != NULL && v->plot[k])
			t->plot[c] = 1;
	}
	return HET_OK;
}

/* Copy the leading values into the row (text duplicated). */
static int
rg_lead(const struct het_rings *t, struct het_rings_row *r,
    const struct het_rings_cell *lead)
{
	size_t k, n = t->layout->nlead;

	if ((r->cell = calloc(n, sizeof(*r->cell))) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < n; k++) {
		r->cell[k].i = lead[k].i;
		r->cell[k].x = lead[k].x;
		if (t->layout->lead[k].type == HET_RINGS_TEXT &&
		    (r->cell[k].s = strdup(lead[k].s != NULL ? lead[k].s :
		    "")) == NULL)
			return HET_ENOMEM;
	}
	return HET_OK;
}

int
het_rings_add_row(struct het_rings *t, const struct het_rings_cell *lead,
    const char *status, double chi2_red, const char *run_dir,
    const char *message, const struct het_rings_vals *v,
    struct het_error *err)
{
	struct het_rings_row *r;
	size_t cap;
	void *p;

	if (t->nrows == t->rowcap) {
		cap = t->rowcap == 0 ? 8 : 2 * t->rowcap;
		if ((p = realloc(t->rows, cap * sizeof(*t->rows))) == NULL)
			return rg_nomem(err);
		t->rows = p;
		t->rowcap = cap;
	}
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->chi2_red = chi2_red;
	r->status = strdup(status != NULL ? status : "");
	r->run_dir = strdup(run_dir != NULL ? run_dir : "");
	r->message = strdup(message != NULL ? message : "");
	if (r->status == NULL || r->run_dir == NULL || r->message == NULL ||
	    rg_lead(t, r, lead) != HET_OK) {
		rg_row_fini(t, r);
		return rg_nomem(err);
	}
	if (v != NULL && rg_fill(t, r, v, err) != HET_OK) {
		rg_row_fini(t, r);
		return HET_ENOMEM;
	}
	t->nrows++;
	return HET_OK;
}

int
het_rings_add(struct het_rings *t, long ring, double q, const char *status,
    double chi2_red, const char *run_dir, const char *message,
    const struct het_rings_vals *v, struct het_error *err)
{
	struct het_rings_cell lead[3];

	memset(lead, 0, sizeof(lead));
	lead[0].i = ring;
	lead[1].x = q;
	lead[2].x = q * q;
	return het_rings_add_row(t, lead, status, chi2_red, run_dir, message,
	    v, err);
}

double
het_rings_x(const struct het_rings *t, size_t r)
{
	const struct het_rings_cell *c = &t->rows[r].cell[t->layout->xcol];

	return t->layout->lead[t->layout->xcol].type == HET_RINGS_INT ?
	    (double)c->i : c->x;
}

double
het_rings_value(const struct het_rings *t, size_t r, size_t c)
{
	return c < t->rows[r].nvals ? t->rows[r].value[c] : NAN;
}

double
het_rings_unc(const struct het_rings *t, size_t r, size_t c)
{
	return c < t->rows[r].nvals ? t->rows[r].unc[c] : NAN;
}

/* ------------------------------------------------------------------ */
/* The slope */

/* Sums of a (weighted) line fit of y on x. */
struct rg_line {
	double	sw, sx, sy, sxx, sxy, syy;
	size_t	n;
};

static void
rg_line_add(struct rg_line *l, double x, double y, double w)
{
	l->sw += w;
	l->sx += w * x;
	l->sy += w * y;
	l->sxx += w * x * x;
	l->sxy += w * x * y;
	l->syy += w * y * y;
	l->n++;
}

int
het_rings_slope(const struct het_rings *t, size_t c,
    struct het_rings_line *line)
{
	struct rg_line l;
	double v, u, x, b, dxx, chi2, birge;
	int weighted = 1, pass, lg = t->layout->loglog;
	size_t r;

	line->slope = line->se = line->ln_a = NAN;
	line->n = 0;
	/* Pass 0 checks the rows (and whether all have weights); pass 1
	   sums. */
	for (pass = 0; pass < 2; pass++) {
		memset(&l, 0, sizeof(l));
		for (r = 0; r < t->nrows; r++) {
			v = het_rings_value(t, r, c);
			u = het_rings_unc(t, r, c);
			if (strcmp(t->rows[r].status, HET_RINGS_CONVERGED) !=
			    0 || !isfinite(v))
				continue;
			x = het_rings_x(t, r);
			if (lg && (v <= 0 || !(x > 0)))
				return HET_ERANGE;
			if (!(isfinite(u) && u > 0))
				weighted = 0;
			if (pass == 1 && lg)
				rg_line_add(&l, log(x), log(v), weighted ?
				    (v * v) / (u * u) : 1.0);
			else if (pass == 1)
				rg_line_add(&l, x, v, weighted ?
				    1.0 / (u * u) : 1.0);
		}
	}
	dxx = l.sxx - l.sx * l.sx / l.sw;
	if (l.n < 2 || !(dxx > 1e-12 * (l.sxx + l.sx * l.sx / l.sw)))
		return HET_ERANGE;
	b = (l.sxy - l.sx * l.sy / l.sw) / dxx;
	line->slope = b;
	line->ln_a = (l.sy - b * l.sx) / l.sw;
	line->n = l.n;
	/* chi^2 (or the residual sum of squares) of the line. */
	chi2 = fmax(l.syy - l.sy * l.sy / l.sw - b * b * dxx, 0);
	if (weighted) {
		birge = l.n > 2 ? chi2 / (double)(l.n - 2) : 0;
		line->se = sqrt(fmax(birge, 1) / dxx);
	} else if (l.n > 2)
		line->se = sqrt(chi2 / (double)(l.n - 2) / dxx);
	return HET_OK;
}

/* ------------------------------------------------------------------ */
/* The CSV file */

/* A number, or nothing when there is none. */
static void
rg_csv_real(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.15g", v);
}

static void
rg_csv_num(FILE *f, double v)
{
	fputc(',', f);
	rg_csv_real(f, v);
}

/* The leading values of row r. */
static void
rg_csv_lead(FILE *f, const struct het_rings *t, const struct het_rings_row *r)
{
	size_t k;

	for (k = 0; k < t->layout->nlead; k++) {
		if (k > 0)
			fputc(',', f);
		switch (t->layout->lead[k].type) {
		case HET_RINGS_INT:
			fprintf(f, "%ld", r->cell[k].i);
			break;
		case HET_RINGS_REAL:
			rg_csv_real(f, r->cell[k].x);
			break;
		case HET_RINGS_TEXT:
			het_csv_field(f, r->cell[k].s);
			break;
		}
	}
}

static void
rg_csv_table(FILE *f, const struct het_rings *t)
{
	const struct het_rings_row *r;
	size_t k, c;

	for (k = 0; k < t->layout->nlead; k++) {
		if (k > 0)
			fputc(',', f);
		het_csv_field(f, t->layout->lead[k].name);
	}
	fputs(",status,chi2_red", f);
	for (c = 0; c < t->ncols; c++) {
		fputc(',', f);
		het_csv_field(f, t->names[c]);
		fputc(',', f);
		het_csv_field(f, t->names[c]);
		fputs("_unc", f);
	}
	fputs(",run_dir,message\r\n", f);
	for (k = 0; k < t->nrows; k++) {
		r = &t->rows[k];
		rg_csv_lead(f, t, r);
		fputc(',', f);
		het_csv_field(f, r->status);
		rg_csv_num(f, r->chi2_red);
		for (c = 0; c < t->ncols; c++) {
			rg_csv_num(f, het_rings_value(t, k, c));
			rg_csv_num(f, het_rings_unc(t, k, c));
		}
		fputc(',', f);
		het_csv_field(f, r->run_dir);
		fputc(',', f);
		het_csv_field(f, r->message);
		fputs("\r\n", f);
	}
}

static int
rg_write_csv(const struct het_rings *t, const char *path,
    struct het_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return rg_nomem(err);
	rg_csv_table(f, t);
	if (fclose(f) != 0 || buf == NULL) {
		free(buf);
		return rg_nomem(err);
	}
	rc = het_write_file_atomic(path, buf, len, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The HDF5 file */

/* The per-row columns of the table. */
static int
rg_h5_rows(struct rs_w *w, const struct het_rings *t, double *a,
    const char **s, long *iv, struct het_error *err)
{
	size_t n = t->nrows, k, c;
	char path[80];
	int rc = HET_OK;

	for (c = 0; c < t->layout->nlead && rc == HET_OK; c++) {
		snprintf(path, sizeof(path), "/%s", t->layout->lead[c].name);
		for (k = 0; k < n; k++) {
			iv[k] = t->rows[k].cell[c].i;
			a[k] = t->rows[k].cell[c].x;
			s[k] = t->rows[k].cell[c].s;
		}
		switch (t->layout->lead[c].type) {
		case HET_RINGS_INT:
			rc = het_rs_i64(w, path, n, iv, NULL, err);
			break;
		case HET_RINGS_REAL:
			rc = het_rs_f64(w, path, n, a, err);
			break;
		case HET_RINGS_TEXT:
			rc = het_rs_strs(w, path, n, s, err);
			break;
		}
	}
	if (rc != HET_OK)
		return rc;
	for (k = 0; k < n; k++)
		a[k] = t->rows[k].chi2_red;
	if ((rc = het_rs_f64(w, "/chi2_red", n, a, err)) != HET_OK)
		return rc;
	for (k = 0; k < n; k++)
		s[k] = t->rows[k].status;
	if ((rc = het_rs_strs(w, "/status", n, s, err)) != HET_OK)
		return rc;
	for (k = 0; k < n; k++)
		s[k] = t->rows[k].run_dir;
	if ((rc = het_rs_strs(w, "/run_dir", n, s, err)) != HET_OK)
		return rc;
	for (k = 0; k < n; k++)
		s[k] = t->rows[k].message;
	return het_rs_strs(w, "/message", n, s, err);
}

/* The parameter columns, their values and uncertainties, the slopes. */
static int
rg_h5_params(struct rs_w *w, const struct het_rings *t, double *m,
    struct het_error *err)
{
	size_t n = t->nrows, p = t->ncols, k, c;
	int rc;

	if ((rc = het_rs_strs(w, "/parameters", p,
	    (const char *const *)t->names, err)) != HET_OK)
		return rc;
	for (k = 0; k < n; k++)
		for (c = 0; c < p; c++)
			m[k * p + c] = het_rings_value(t, k, c);
	if ((rc = het_rs_mat(w, "/values", n, p, m, err)) != HET_OK)
		return rc;
	for (k = 0; k < n; k++)
		for (c = 0; c < p; c++)
			m[k * p + c] = het_rings_unc(t, k, c);
	if ((rc = het_rs_mat(w, "/uncertainties", n, p, m, err)) != HET_OK)
		return rc;
	for (c = 0; c < p; c++) {
		struct het_rings_line line;

		het_rings_slope(t, c, &line);
		m[c] = line.slope;
		m[p + c] = line.se;
	}
	if ((rc = het_rs_f64(w, "/slope", p, m, err)) != HET_OK)
		return rc;
	return het_rs_f64(w, "/slope_unc", p, m + p, err);
}

static int
rg_write_h5(const struct het_rings *t, const char *path,
    struct het_error *err)
{
	size_t n = t->nrows + 1, p = t->ncols + 1;
	struct rs_w w;
	const char **s;
	double *m;
	long *ring;
	char *tmp;
	int rc;

	/* m holds a column (n), the n x p table or the 2 p slopes. */
	m = het_alloc_array(n * p + 2 * p, sizeof(double), "rings table", err);
	s = het_alloc_array(n, sizeof(*s), "rings table", err);
	ring = het_alloc_array(n, sizeof(*ring), "rings table", err);
	tmp = het_tmp_path(path, err);
	if (m == NULL || s == NULL || ring == NULL || tmp == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if ((rc = het_rs_open(&w, tmp, err)) == HET_OK &&
	    (rc = rg_h5_rows(&w, t, m, s, ring, err)) == HET_OK)
		rc = rg_h5_params(&w, t, m, err);
	rc = het_rs_close(&w, rc, err);
	if (rc == HET_OK)
		rc = het_commit_tmp(tmp, path, err);
	else
		unlink(tmp);
out:
	free(m);
	free(s);
	free(ring);
	free(tmp);
	return rc;
}

int
het_rings_write(const struct het_rings *t, const char *dir,
    struct het_error *err)
{
	char *csv, *h5;
	int rc;

	csv = het_rl_join(dir, t->layout->csv, err);
	h5 = het_rl_join(dir, t->layout->h5, err);
	if (csv == NULL || h5 == NULL)
		rc = HET_ENOMEM;
	else if ((rc = rg_write_csv(t, csv, err)) == HET_OK)
		rc = rg_write_h5(t, h5, err);
	free(csv);
	free(h5);
	return rc;
}
