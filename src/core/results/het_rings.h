/*
 * het_rings.h: the summary of a batch of fits, one per q ring of a result
 * file (`hetui fit --all-rings`): a table with one row per ring (q, q^2,
 * status, reduced chi-square, every parameter's value and uncertainty),
 * the power-law slope of each parameter against q, and the two files that
 * hold the table in the batch folder:
 *   rings.csv   one header line, then one line per ring (RFC 4180:
 *               fields holding a comma, quote or line break are quoted);
 *               columns ring, q, q2, status, chi2_red, then NAME and
 *               NAME_unc for every parameter, then run_dir and message;
 *               an empty field where there is no value (a failed ring,
 *               a degenerate or fixed parameter's uncertainty).
 *   rings.h5    the same table as datasets: ring (int64), q, q2,
 *               chi2_red (f8, n), status, run_dir, message (UTF-8
 *               strings, n), parameters (names, p), values and
 *               uncertainties (f8, n x p, NaN where the CSV is empty),
 *               slope and slope_unc (f8, p, NaN where undefined).
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

/* The status of a row whose fit converged (the only rows slopes use). */
#define HET_RINGS_CONVERGED	"converged"

struct het_rings_row {
	long		 ring;		/* 1-based ring of the file */
	double		 q;		/* 1/Angstrom */
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
 * het_rings_init / het_rings_fini: an empty table, and freeing
 * everything it holds.  Thread: any (one table per thread).
 */
void het_rings_init(struct het_rings *t);
void het_rings_fini(struct het_rings *t);

/*
 * het_rings_add: append a row.  status, run_dir and message are copied
 * (NULL: ""); v may be NULL (a ring without values, such as a failed
 * one).  New names become new columns.  chi2_red NaN: none.
 * Returns HET_OK or HET_ENOMEM (the table is unchanged).
 */
int het_rings_add(struct het_rings *t, long ring, double q,
    const char *status, double chi2_red, const char *run_dir,
    const char *message, const struct het_rings_vals *v,
    struct het_error *err);

/* het_rings_value / het_rings_unc: row r, column c; NaN when none. */
double het_rings_value(const struct het_rings *t, size_t r, size_t c);
double het_rings_unc(const struct het_rings *t, size_t r, size_t c);

/* A power law value = exp(ln_a) q^slope through a column. */
struct het_rings_line {
	double		 slope;
	double		 se;		/* standard error of slope, NaN:
					   unknown */
	double		 ln_a;		/* intercept of ln value on ln q */
	size_t		 n;		/* rows used */
};

/*
 * het_rings_slope: the power-law slope of column c against q, by least
 * squares of ln value on ln q over the converged rows with a finite
 * value.  Weighted by the relative uncertainties when every one of those
 * rows has one (the standard error from them, times the Birge ratio
 * sqrt(chi^2 / (n - 2)) when that exceeds 1), else unweighted (the
 * standard error from the scatter; NaN for two rows).
 * Returns HET_OK with *line filled; HET_ERANGE when fewer than two rows
 * qualify, their q are all equal, or a value is not positive (no power
 * law): slope, se and ln_a are then NaN.  Thread: any.
 */
int het_rings_slope(const struct het_rings *t, size_t c,
    struct het_rings_line *line);

/*
 * het_rings_write: rings.csv and rings.h5 into the folder dir (which
 * must exist), each through a temporary file and a rename.  Returns
 * HET_OK, HET_EIO (naming the file; the old file, if any, is kept) or
 * HET_ENOMEM.  Thread: any thread that may call HDF5.
 */
int het_rings_write(const struct het_rings *t, const char *dir,
    struct het_error *err);

#endif /* HET_RINGS_H */
