#include "config.h"
/*
 * het_rings_load.c: the summary of a batch folder read back from its CSV
 * file (rings.csv of `hetui fit --all-rings`, series.csv of `hetui fit
 * --series`) into a het_rings table, for hetui report's trend figures.
 *
 * Design: the file is read whole (it has a row per fit) and split into
 * records by an RFC 4180 tokenizer (quoted fields may hold commas, quotes
 * and line breaks; lines end in CRLF as het_rings_write writes them, or
 * LF after an editor).  The header must be exactly what het_rings_write
 * writes for the file's layout: its leading columns, status, chi2_red,
 * NAME and NAME_unc per parameter, run_dir and message; every row must
 * have as many fields, whole numbers where the layout has them, numbers
 * or nothing in the numeric columns, a status, and no negative
 * uncertainty.  Each refusal names the file, the line, the column and
 * the way out.  The rows are added with het_rings_add_row, so the table
 * is the one the batch had; the plot flags, which the files do not
 * keep, are rebuilt: a physics parameter (a name in either family's
 * table) with an uncertainty in some row or two rows of different value
 * (a fixed parameter has the same value everywhere and none).
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_params.h"
#include "het_results_impl.h"
#include "het_rings.h"
#include "het_util.h"

#define RL_MAX_FILE	(64L << 20)	/* bytes of a summary */
#define RL_MAX_LEAD	8		/* leading columns of a layout */
#define RL_FIX		"restore the file hetui wrote, or run the batch " \
			"again"

/* The tokenizer's position in the text. */
struct rl_csv {
	const char	*p, *end;
	const char	*path;
	size_t		 line;		/* of p, 1-based */
};

/* One record: its fields (owned) and the line it starts on. */
struct rl_rec {
	char		**f;
	size_t		 n, cap;
	size_t		 line;
};

static void
rl_rec_clear(struct rl_rec *r)
{
	size_t k;

	for (k = 0; k < r->n; k++)
		free(r->f[k]);
	r->n = 0;
}

static void
rl_rec_fini(struct rl_rec *r)
{
	rl_rec_clear(r);
	free(r->f);
	memset(r, 0, sizeof(*r));
}

static int
rl_nomem(struct het_error *err)
{
	return het_error_set(err, HET_ENOMEM, "out of memory reading a batch "
	    "summary");
}

/* Append the field s (a new string, taken; NULL: out of memory). */
static int
rl_push(struct rl_rec *r, char *s, struct het_error *err)
{
	void *p;

	if (s == NULL)
		return rl_nomem(err);
	if (r->n == r->cap) {
		size_t cap = r->cap == 0 ? 32 : 2 * r->cap;

		if ((p = realloc(r->f, cap * sizeof(*r->f))) == NULL) {
			free(s);
			return rl_nomem(err);
		}
		r->f = p;
		r->cap = cap;
	}
	r->f[r->n++] = s;
	return HET_OK;
}

/* A quoted field from c->p (at the opening quote) into a new string. */
static int
rl_quoted(struct rl_csv *c, char **out, struct het_error *err)
{
	size_t start = c->line, n = 0;
	const char *q;
	char *s = NULL;

	/* The closing quote: a quote not followed by another. */
	for (q = c->p + 1; q < c->end; q++)
		if (*q == '"') {
			if (q + 1 < c->end && q[1] == '"')
				q++;
			else
				break;
		}
	if (q >= c->end)
		return het_error_set(err, HET_EFORMAT, "%s line %zu: a quoted "
		    "field is not closed before the end of the file: %s",
		    c->path, start, RL_FIX);
	if ((s = malloc((size_t)(q - c->p))) == NULL)
		return rl_nomem(err);
	for (c->p++; c->p < q; c->p++) {
		if (*c->p == '\n')
			c->line++;
		s[n++] = *c->p;
		if (*c->p == '"')
			c->p++;		/* the second of a doubled quote */
	}
	s[n] = '\0';
	c->p = q + 1;
	if (c->p < c->end && *c->p != ',' && *c->p != '\r' && *c->p != '\n') {
		free(s);
		return het_error_set(err, HET_EFORMAT, "%s line %zu: text "
		    "after the closing quote of a field (a quote inside a "
		    "field is written twice): %s", c->path, c->line, RL_FIX);
	}
	*out = s;
	return HET_OK;
}

/*
 * The next record into r (cleared first).  Returns HET_OK, HET_ENOTFOUND
 * at the end of the text, or an error.
 */
static int
rl_record(struct rl_csv *c, struct rl_rec *r, struct het_error *err)
{
	const char *b;
	char *s = NULL;
	int rc;

	rl_rec_clear(r);
	if (c->p >= c->end)
		return HET_ENOTFOUND;
	r->line = c->line;
	for (;;) {
		if (c->p < c->end && *c->p == '"') {
			if ((rc = rl_quoted(c, &s, err)) != HET_OK)
				return rc;
		} else {
			for (b = c->p; c->p < c->end && *c->p != ',' &&
			    *c->p != '\r' && *c->p != '\n'; c->p++)
				if (*c->p == '"')
					return het_error_set(err, HET_EFORMAT,
					    "%s line %zu: a quote inside an "
					    "unquoted field: %s", c->path,
					    c->line, RL_FIX);
			s = strndup(b, (size_t)(c->p - b));
		}
		if ((rc = rl_push(r, s, err)) != HET_OK)
			return rc;
		if (c->p >= c->end)
			return HET_OK;
		if (*c->p++ == ',')
			continue;
		if (c->p[-1] == '\r' && c->p < c->end && *c->p == '\n')
			c->p++;
		c->line++;
		return HET_OK;
	}
}

/* The whole file at path, NUL-terminated, into *text. */
static int
rl_read(const char *path, char **text, size_t *len, struct het_error *err)
{
	struct stat st;
	size_t n = 0;
	FILE *fp;
	int rc = HET_OK;

	*text = NULL;
	if ((fp = fopen(path, "rb")) == NULL)
		return het_error_sys(err, errno, "cannot read %s", path);
	if (fstat(fileno(fp), &st) != 0)
		rc = het_error_sys(err, errno, "cannot read %s", path);
	else if (!S_ISREG(st.st_mode))
		rc = het_error_set(err, HET_EFORMAT, "%s is not a file: %s",
		    path, RL_FIX);
	else if (st.st_size > RL_MAX_FILE)
		rc = het_error_set(err, HET_EFORMAT, "%s is larger than %ld "
		    "MiB: a batch summary has one short line per fit; is it "
		    "the right file?", path, RL_MAX_FILE >> 20);
	else if ((*text = malloc((size_t)st.st_size + 1)) == NULL)
		rc = rl_nomem(err);
	else if ((n = fread(*text, 1, (size_t)st.st_size, fp)) !=
	    (size_t)st.st_size)
		rc = het_error_sys(err, ferror(fp) ? errno : EIO,
		    "cannot read %s", path);
	fclose(fp);
	if (rc == HET_OK && memchr(*text, '\0', n) != NULL)
		rc = het_error_set(err, HET_EFORMAT, "%s holds binary data, "
		    "not the text of a batch summary: %s", path, RL_FIX);
	if (rc != HET_OK) {
		free(*text);
		*text = NULL;
		return rc;
	}
	(*text)[n] = '\0';
	*len = n;
	return HET_OK;
}

/* ---- the header ------------------------------------------------------- */

/* The columns of a header: where the parameters start, how many. */
struct rl_head {
	size_t		 nlead;		/* leading columns */
	size_t		 np;		/* parameters */
	size_t		 nf;		/* fields of every record */
};

static int
rl_expect(const struct rl_csv *c, const struct rl_rec *h, size_t k,
    const char *want, const char *cmd, struct het_error *err)
{
	if (k < h->n && strcmp(h->f[k], want) == 0)
		return HET_OK;
	return het_error_set(err, HET_EFORMAT, "%s line 1: column %zu is "
	    "'%s', expected '%s': this is not the header %s writes (its "
	    "columns, the parameters' NAME and NAME_unc, run_dir and "
	    "message); %s", c->path, k + 1, k < h->n ? h->f[k] : "(none)",
	    want, cmd, RL_FIX);
}

static int
rl_header(const struct rl_csv *c, const struct het_rings_layout *l,
    const struct rl_rec *h, struct rl_head *hd, struct het_error *err)
{
	const char *cmd = l == &het_rings_layout_series ?
	    "hetui fit --series" : "hetui fit --all-rings";
	size_t k, j, m;
	int rc;

	if (l->nlead > RL_MAX_LEAD)
		return het_error_set(err, HET_EINTERNAL, "a batch layout of "
		    "%zu leading columns", l->nlead);
	hd->nlead = l->nlead;
	for (k = 0; k < l->nlead; k++)
		if ((rc = rl_expect(c, h, k, l->lead[k].name, cmd, err)) !=
		    HET_OK)
			return rc;
	if ((rc = rl_expect(c, h, k, "status", cmd, err)) != HET_OK ||
	    (rc = rl_expect(c, h, k + 1, "chi2_red", cmd, err)) != HET_OK)
		return rc;
	if (h->n < l->nlead + 4 || (h->n - l->nlead - 4) % 2 != 0)
		return het_error_set(err, HET_EFORMAT, "%s line 1: %zu "
		    "columns; %s writes %zu leading ones, status, chi2_red, "
		    "two per parameter, run_dir and message: %s", c->path,
		    h->n, cmd, l->nlead, RL_FIX);
	hd->np = (h->n - l->nlead - 4) / 2;
	hd->nf = h->n;
	for (j = 0; j < hd->np; j++) {
		char want[256];

		k = l->nlead + 2 + 2 * j;
		m = strlen(h->f[k]);
		if (m == 0 || m + 5 > sizeof(want))
			return het_error_set(err, HET_EFORMAT, "%s line 1: "
			    "column %zu has %s parameter name: %s", c->path,
			    k + 1, m == 0 ? "no" : "too long a", RL_FIX);
		snprintf(want, sizeof(want), "%s_unc", h->f[k]);
		if ((rc = rl_expect(c, h, k + 1, want, cmd, err)) != HET_OK)
			return rc;
		for (m = 0; m < j; m++)
			if (strcmp(h->f[l->nlead + 2 + 2 * m], h->f[k]) == 0)
				return het_error_set(err, HET_EFORMAT, "%s "
				    "line 1: parameter %s has two columns: %s",
				    c->path, h->f[k], RL_FIX);
	}
	k = h->n - 2;
	if ((rc = rl_expect(c, h, k, "run_dir", cmd, err)) != HET_OK)
		return rc;
	return rl_expect(c, h, k + 1, "message", cmd, err);
}

/* ---- the rows --------------------------------------------------------- */

/* Field k of record r as a number, NaN when empty (empty_ok). */
static int
rl_num(const struct rl_csv *c, const struct rl_rec *h,
    const struct rl_rec *r, size_t k, int empty_ok, double *v,
    struct het_error *err)
{
	struct het_error e;

	*v = NAN;
	if (r->f[k][0] == '\0' && empty_ok)
		return HET_OK;
	if (het_parse_double(r->f[k], h->f[k], v, &e) == HET_OK)
		return HET_OK;
	return het_error_set(err, HET_EFORMAT, "%s line %zu, column %s: '%s' "
	    "is not a number%s: %s", c->path, r->line, h->f[k], r->f[k],
	    empty_ok ? " (an empty field means none)" : "", RL_FIX);
}

/* The leading values of record r into lead (text borrowed from r). */
static int
rl_lead(const struct rl_csv *c, const struct het_rings_layout *l,
    const struct rl_rec *h, const struct rl_rec *r,
    struct het_rings_cell *lead, struct het_error *err)
{
	struct het_error e;
	size_t k;
	int rc;

	for (k = 0; k < l->nlead; k++) {
		memset(&lead[k], 0, sizeof(lead[k]));
		switch (l->lead[k].type) {
		case HET_RINGS_INT:
			if (het_parse_long(r->f[k], h->f[k], -1000000000L,
			    1000000000L, &lead[k].i, &e) != HET_OK)
				return het_error_set(err, HET_EFORMAT,
				    "%s line %zu, column %s: '%s' is not a "
				    "whole number: %s", c->path, r->line,
				    h->f[k], r->f[k], RL_FIX);
			break;
		case HET_RINGS_REAL:
			if ((rc = rl_num(c, h, r, k, 1, &lead[k].x, err)) !=
			    HET_OK)
				return rc;
			break;
		case HET_RINGS_TEXT:
			lead[k].s = r->f[k];
			break;
		}
	}
	return HET_OK;
}

/* Add record r as a row of t (names: the header's parameter names). */
static int
rl_row(const struct rl_csv *c, struct het_rings *t, const struct rl_rec *h,
    const struct rl_head *hd, const struct rl_rec *r, const char **names,
    double *val, struct het_error *err)
{
	struct het_rings_cell lead[RL_MAX_LEAD];
	struct het_rings_vals v;
	double chi2, *unc = val + hd->np;
	size_t j, k;
	int rc;

	if (r->n != hd->nf)
		return het_error_set(err, HET_EFORMAT, "%s line %zu: %zu "
		    "fields, the header has %zu (a comma inside a text must "
		    "be quoted): %s", c->path, r->line, r->n, hd->nf, RL_FIX);
	if ((rc = rl_lead(c, t->layout, h, r, lead, err)) != HET_OK)
		return rc;
	k = hd->nlead;
	if (r->f[k][0] == '\0')
		return het_error_set(err, HET_EFORMAT, "%s line %zu: the "
		    "status is empty (converged, not_converged, cancelled or "
		    "failed): %s", c->path, r->line, RL_FIX);
	if ((rc = rl_num(c, h, r, k + 1, 1, &chi2, err)) != HET_OK)
		return rc;
	for (j = 0; j < hd->np; j++) {
		k = hd->nlead + 2 + 2 * j;
		if ((rc = rl_num(c, h, r, k, 1, &val[j], err)) != HET_OK ||
		    (rc = rl_num(c, h, r, k + 1, 1, &unc[j], err)) != HET_OK)
			return rc;
		if (unc[j] < 0)
			return het_error_set(err, HET_EFORMAT, "%s line %zu, "
			    "column %s: the uncertainty %s is negative: %s",
			    c->path, r->line, h->f[k + 1], r->f[k + 1],
			    RL_FIX);
	}
	memset(&v, 0, sizeof(v));
	v.n = hd->np;
	v.names = names;
	v.value = val;
	v.unc = unc;
	return het_rings_add_row(t, lead, r->f[hd->nlead], chi2,
	    r->f[hd->nf - 2], r->f[hd->nf - 1], &v, err);
}

/* 1 when name is a physics parameter of either family. */
static int
rl_physics(const char *name)
{
	return het_params_find(HET_FAMILY_HETERODYNE, name) >= 0 ||
	    het_params_find(HET_FAMILY_HOMODYNE, name) >= 0;
}

/* The plot flags the files do not keep (see the opening comment). */
static void
rl_plot(struct het_rings *t)
{
	size_t c, r;
	double v, first;

	for (c = 0; c < t->ncols; c++) {
		t->plot[c] = 0;
		if (!rl_physics(t->names[c]))
			continue;
		first = NAN;
		for (r = 0; r < t->nrows && !t->plot[c]; r++) {
			v = het_rings_value(t, r, c);
			if (isfinite(het_rings_unc(t, r, c)))
				t->plot[c] = 1;
			else if (isfinite(v) && isfinite(first) && v != first)
				t->plot[c] = 1;
			else if (isfinite(v))
				first = v;
		}
	}
}

static int
rl_parse(const char *text, size_t len, const char *path,
    struct het_rings *t, struct het_error *err)
{
	struct rl_csv c;
	struct rl_rec h, r;
	struct rl_head hd;
	const char **names = NULL;
	double *val = NULL;
	size_t j;
	int rc;

	memset(&h, 0, sizeof(h));
	memset(&r, 0, sizeof(r));
	c.p = text;
	c.end = text + len;
	c.path = path;
	c.line = 1;
	if ((rc = rl_record(&c, &h, err)) == HET_ENOTFOUND)
		rc = het_error_set(err, HET_EFORMAT, "%s is empty: a batch "
		    "summary starts with a header line: %s", path, RL_FIX);
	if (rc != HET_OK ||
	    (rc = rl_header(&c, t->layout, &h, &hd, err)) != HET_OK)
		goto out;
	names = het_alloc_array(hd.np + 1, sizeof(*names), "names", err);
	val = het_alloc_array(2 * hd.np + 2, sizeof(double), "row", err);
	if (names == NULL || val == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (j = 0; j < hd.np; j++)
		names[j] = h.f[hd.nlead + 2 + 2 * j];
	while ((rc = rl_record(&c, &r, err)) == HET_OK) {
		/* A blank last line is the end of the file, not a row. */
		if (r.n == 1 && r.f[0][0] == '\0' && c.p >= c.end)
			break;
		if ((rc = rl_row(&c, t, &h, &hd, &r, names, val, err)) !=
		    HET_OK)
			goto out;
	}
	if (rc == HET_ENOTFOUND || rc == HET_OK)
		rc = HET_OK;
	if (rc == HET_OK)
		rl_plot(t);
out:
	free(names);
	free(val);
	rl_rec_fini(&h);
	rl_rec_fini(&r);
	return rc;
}

const struct het_rings_layout *
het_rings_which(const char *dir, int *both)
{
	static const struct het_rings_layout *const l[2] = {
		&het_rings_layout_rings, &het_rings_layout_series
	};
	const struct het_rings_layout *found = NULL;
	char *p;
	size_t k;
	int n = 0;

	for (k = 0; k < 2; k++) {
		int here = 0;

		if ((p = het_rl_join(dir, l[k]->csv, NULL)) != NULL)
			here |= access(p, F_OK) == 0;
		free(p);
		if ((p = het_rl_join(dir, l[k]->h5, NULL)) != NULL)
			here |= access(p, F_OK) == 0;
		free(p);
		if (here && found == NULL)
			found = l[k];
		n += here;
	}
	if (both != NULL)
		*both = n > 1;
	return found;
}

int
het_rings_load(const char *dir, struct het_rings *t, struct het_error *err)
{
	const struct het_rings_layout *l;
	char *path = NULL, *text = NULL;
	size_t len = 0;
	int both, rc;

	het_rings_init(t);
	if ((l = het_rings_which(dir, &both)) == NULL)
		return het_error_set(err, HET_ENOTFOUND, "%s is not a batch "
		    "folder: it has neither %s nor %s (what hetui fit "
		    "--all-rings and hetui fit --series write)", dir,
		    HET_RINGS_CSV, HET_SERIES_CSV);
	if (both)
		return het_error_set(err, HET_EINVAL, "%s holds the summaries "
		    "of two batches (%s and %s): a batch folder holds one; "
		    "move one of them into a folder of its own", dir,
		    HET_RINGS_CSV, HET_SERIES_CSV);
	het_rings_init_layout(t, l);
	if ((path = het_rl_join(dir, l->csv, err)) == NULL)
		return HET_ENOMEM;
	if (access(path, F_OK) != 0)
		rc = het_error_set(err, HET_ENOTFOUND, "%s has %s but no %s: "
		    "the table is read from the CSV file that %s writes "
		    "beside it; restore it, or run the batch again", dir,
		    l->h5, l->csv, l == &het_rings_layout_series ?
		    "hetui fit --series" : "hetui fit --all-rings");
	else if ((rc = rl_read(path, &text, &len, err)) == HET_OK)
		rc = rl_parse(text, len, path, t, err);
	if (rc != HET_OK) {
		het_rings_fini(t);
		het_rings_init_layout(t, l);
	}
	free(text);
	free(path);
	return rc;
}
