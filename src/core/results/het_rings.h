/*
 * het_rings.h: the summary of a batch of fits: one per q ring of a result
 * file (`hetui fit --all-rings`) or one per file of a series taken during
 * an experiment (`hetui fit --series`).  A table with one row per fit:
 * the batch's leading columns (its layout: ring, q and q^2 for the rings;
 * index, file, modification time, seconds since the first file and the
 * file the fit started from for a series), status, reduced chi-square,
 * every parameter's value and uncertainty; the trend of each parameter
 * against one leading column (the rings' power law against q, the
 * series' linear drift per file); and the two files that hold the table
 * in the batch folder (rings.csv and rings.h5, or series.csv and
 * series.h5):
 *   NAME.csv    one header line, then one line per row (RFC 4180:
 *               fields holding a comma, quote or line break are quoted);
 *               columns: the leading ones, status, chi2_red, then NAME
 *               and NAME_unc for every parameter, then run_dir and
 *               message; an empty field where there is no value (a
 *               failed fit, a degenerate or fixed parameter's
 *               uncertainty).
 *   NAME.h5     the same table as datasets: one per leading column
 *               (int64, f8 or UTF-8 strings, n), chi2_red (f8, n),
 *               status, run_dir, message (UTF-8 strings, n), parameters
 *               (names, p), values and uncertainties (f8, n x p, NaN
 *               where the CSV is empty), slope and slope_unc (f8, p, the
 *               trend; NaN where undefined).
 * Both are written atomically (temporary file, fsync, rename).
 *
 * Columns follow the order in which rows bring the parameter names, so a
 * ring with other angles (other contrast[k]) widens the table and the
 * rows without that parameter have no value there.
 */
#ifndef HET_RINGS_H
#define HET_RINGS_H

#include <stddef.h>

#include "het_error.h"

#define HET_RINGS_CSV	"rings.csv"
#define HET_RINGS_H5	"rings.h5"
#define HET_SERIES_CSV	"series.csv"
#define HET_SERIES_H5	"series.h5"

/* The status of a row whose fit converged (the only rows slopes use). */
#define HET_RINGS_CONVERGED	"converged"

/* The type of a leading column. */
enum het_rings_type {
	HET_RINGS_INT,			/* int64 */
	HET_RINGS_REAL,			/* f8; NaN: none */
	HET_RINGS_TEXT			/* a UTF-8 string */
};

struct het_rings_col {
	const char	*name;
	enum het_rings_type type;
};

/* One leading value: i, x or s by the column's type. */
struct het_rings_cell {
	long		 i;
	double		 x;
	const char	*s;		/* copied by het_rings_add_row */
};

/*
 * What the rows of a batch are (static storage; the table borrows it).
 *   lead, nlead  the leading columns.
 *   xcol         the leading column (HET_RINGS_INT or _REAL) parameters
 *                are plotted and trended against.
 *   loglog       1: the trend is a power law (ln value on ln x); 0: a
 *                straight line (value on x).
 *   csv, h5      the file names het_rings_write writes.
 */
struct het_rings_layout {
	const struct het_rings_col *lead;
	size_t		 nlead;
	size_t		 xcol;
	int		 loglog;
	const char	*csv, *h5;
};

/* The layouts of `hetui fit --all-rings` and `hetui fit --series`. */
extern const struct het_rings_layout het_rings_layout_rings;
extern const struct het_rings_layout het_rings_layout_series;

/* The leading columns of het_rings_layout_series, by index. */
enum {
	HET_SERIES_INDEX,		/* 1-based position in the series */
	HET_SERIES_FILE,		/* the file as named or listed */
	HET_SERIES_MTIME,		/* its modification time, UTC,
					   ISO 8601 */
	HET_SERIES_T,			/* s since the first file's */
	HET_SERIES_START,		/* index of the file whose result
					   the fit started from, 0: the
					   configuration's start */
	HET_SERIES_NLEAD
};

struct het_rings_row {
	struct het_rings_cell *cell;	/* the layout's nlead values (text
					   owned by the row) */
	char		*status;	/* "converged", "not_converged",
					   "cancelled", "failed" */
	double		 chi2_red;	/* NaN: none */
	char		*run_dir;	/* "" : none */
	char		*message;	/* "" or why the ring failed */
	size_t		 nvals;		/* columns known when it was added */
	double		*value;		/* nvals, NaN: none */
	double		*unc;		/* nvals, NaN: none */
};

struct het_rings {
	const struct het_rings_layout *layout;
	size_t		 nrows, ncols;
	struct het_rings_row *rows;
	char		**names;	/* ncols parameter names */
	unsigned char	*plot;		/* ncols: a free physics parameter
					   in some row */
	size_t		 rowcap, colcap;
};

/* One ring's parameters, as het_rings_add takes them. */
struct het_rings_vals {
	size_t		 n;
	const char *const *names;	/* n names */
	const double	*value;		/* n values */
	const double	*unc;		/* n uncertainties, NaN: none */
	const unsigned char *plot;	/* n flags, NULL: none */
};

/*
 * het_rings_init / het_rings_init_layout / het_rings_fini: an empty
 * table of the rings layout or of layout (borrowed), and freeing
 * everything it holds.  Thread: any (one table per thread).
 */
void het_rings_init(struct het_rings *t);
void het_rings_init_layout(struct het_rings *t,
    const struct het_rings_layout *layout);
void het_rings_fini(struct het_rings *t);

/*
 * het_rings_add_row: append a row.  lead holds the layout's nlead
 * leading values (text copied; NULL text: ""); status, run_dir and
 * message are copied (NULL: ""); v may be NULL (a fit without values,
 * such as a failed one).  New names become new columns.  chi2_red NaN:
 * none.  Returns HET_OK or HET_ENOMEM (the table is unchanged).
 */
int het_rings_add_row(struct het_rings *t, const struct het_rings_cell *lead,
    const char *status, double chi2_red, const char *run_dir,
    const char *message, const struct het_rings_vals *v,
    struct het_error *err);

/* het_rings_add: het_rings_add_row for the rings layout (ring, q, q^2). */
int het_rings_add(struct het_rings *t, long ring, double q,
    const char *status, double chi2_red, const char *run_dir,
    const char *message, const struct het_rings_vals *v,
    struct het_error *err);

/* het_rings_x: row r's value of the layout's xcol.  Thread: any. */
double het_rings_x(const struct het_rings *t, size_t r);

/* het_rings_value / het_rings_unc: row r, column c; NaN when none. */
double het_rings_value(const struct het_rings *t, size_t r, size_t c);
double het_rings_unc(const struct het_rings *t, size_t r, size_t c);

/*
 * The trend of a column: with loglog a power law value = exp(ln_a)
 * x^slope, else a straight line value = ln_a + slope x.
 */
struct het_rings_line {
	double		 slope;
	double		 se;		/* standard error of slope, NaN:
					   unknown */
	double		 ln_a;		/* intercept (of ln value on ln x
					   with loglog) */
	size_t		 n;		/* rows used */
};

/*
 * het_rings_slope: the trend of column c against the layout's xcol, by
 * least squares over the converged rows with a finite value: ln value on
 * ln x with loglog (the rings' power law against q), value on x without
 * (a series' drift per file).  Weighted by the uncertainties (relative
 * ones with loglog) when every one of those rows has one: the standard
 * error from them, times the Birge ratio sqrt(chi^2 / (n - 2)) when that
 * exceeds 1 (the points scatter more than their uncertainties allow);
 * else unweighted (the standard error from the scatter; NaN for two
 * rows).
 * Returns HET_OK with *line filled; HET_ERANGE when fewer than two rows
 * qualify, their x are all equal, or (loglog) a value or x is not
 * positive: slope, se and ln_a are then NaN.  Thread: any.
 */
int het_rings_slope(const struct het_rings *t, size_t c,
    struct het_rings_line *line);

/*
 * het_rings_write: the layout's CSV and HDF5 files (rings.csv and
 * rings.h5, or series.csv and series.h5) into the folder dir (which
 * must exist), each through a temporary file and a rename.  Returns
 * HET_OK, HET_EIO (naming the file; the old file, if any, is kept) or
 * HET_ENOMEM.  Thread: any thread that may call HDF5.
 */
int het_rings_write(const struct het_rings *t, const char *dir,
    struct het_error *err);

/*
 * het_rings_which: the layout of the batch summary in the folder dir
 * (rings.csv or rings.h5: the rings'; series.csv or series.h5: the
 * series'), NULL when it holds none; *both (when not NULL) is set to 1
 * when it holds the summaries of both kinds.  Thread: any.
 */
const struct het_rings_layout *het_rings_which(const char *dir, int *both);

/*
 * het_rings_load: the table of the batch folder dir read back from its
 * CSV file (rings.csv or series.csv, het_rings_write's format), for the
 * figures of hetui report.  t is initialised here (release it with
 * het_rings_fini, also after an error; it is then empty, of the layout
 * found).  The files keep no plot flags: they are set for every physics
 * parameter (a name of either family's table) with an uncertainty in
 * some row, or whose value differs between rows.
 * Returns HET_OK (a header and no rows is a table of no rows);
 * HET_ENOTFOUND (no summary in dir, or its .h5 without the .csv);
 * HET_EINVAL (the summaries of both kinds); HET_EFORMAT (a header or a
 * row that is not what het_rings_write writes: wrong or missing
 * columns, a field count other than the header's, a text where a number
 * belongs, an empty status, a negative uncertainty, an unclosed quote,
 * binary data, more than 64 MiB; the message names the file, the line
 * and the column); HET_EIO; HET_ENOMEM.  Thread: any.
 */
int het_rings_load(const char *dir, struct het_rings *t,
    struct het_error *err);

#endif /* HET_RINGS_H */
