/*
 * het_results_impl.h: what het_results.c (orchestration, JSON) and
 * het_results_h5.c (the HDF5 file) share.  Core-internal.
 *
 * A "view" of one fit places its free parameters back into the problem's
 * joint layout (by name), so physics and scaling values, their
 * uncertainties and the per-angle contrast and offset can be listed for
 * every fit the same way, joint or per angle.
 */
#ifndef HET_RESULTS_IMPL_H
#define HET_RESULTS_IMPL_H

#include <stddef.h>

#include <hdf5.h>
#include <jansson.h>

#include "het_results.h"

/* One row of a parameter table. */
struct rs_row {
	const char	*name;
	const char	*unit;
	double		 value, start, unc, lo, hi;
	int		 vary;
	int		 degen;		/* flagged degenerate by the fit */
};

struct rs_view {
	const struct het_results_fit *fit;
	size_t		 first_angle;	/* angles of this fit: */
	size_t		 nangles;	/* first_angle .. + nangles - 1 */
	double		*xj;		/* pb->p joint values of the fit */
	double		*contrast;	/* pb->nangles per-angle values */
	double		*offset;
	struct rs_row	*rows;		/* the parameter table */
	size_t		 nrows;
};

/*
 * het_rs_view_init: build the view of fit k.  Returns HET_OK, HET_EINVAL (a
 * name that is not a parameter of the problem) or HET_ENOMEM.
 */
int het_rs_view_init(const struct het_results *res, size_t k, struct rs_view *v,
    struct het_error *err);
void het_rs_view_fini(struct rs_view *v);

/*
 * het_rs_h5_write: write the HDF5 results file to path (a temporary name; the
 * caller renames it); checkpoint 1 leaves out the fitted c2 and residual
 * matrices (het_results_write_checkpoint).  On failure the file may
 * exist partly written; the caller removes it.  Returns HET_OK, HET_EIO,
 * HET_EINVAL or HET_ENOMEM.
 */
int het_rs_h5_write(const char *path, const struct het_results *res,
    const char *timestamp, int checkpoint, struct het_error *err);

/*
 * het_rs_prepare: what every write does first: check res (HET_EINVAL when it
 * lacks what every write needs), create dir (mkdir -p; HET_EIO names
 * what failed) and put the timestamp (res->timestamp, else the local
 * time now, ISO 8601) into stamp.
 */
int het_rs_prepare(const char *dir, const struct het_results *res, char *stamp,
    size_t len, struct het_error *err);

/*
 * The HDF5 writer's state and helpers (het_results_h5.c), shared with the
 * CMC part (het_results_cmc.c).  Every helper names the HDF5 path in its
 * error (HET_EIO) and returns HET_OK or the error.  het_rs_f64 / het_rs_i64 /
 * het_rs_strs write 1-D datasets of n values (het_rs_i64 takes longs, or
 * size_t values when sz is not NULL), het_rs_mat a rows x cols matrix,
 * het_rs_str a scalar string; het_rs_astr / het_rs_af64 / het_rs_ai64 set
 * an attribute on the object at path (a group is created when missing).  Groups along a path
 * are created on demand.
 */
struct rs_w {
	hid_t		 fid;
	hid_t		 lcpl;
	hid_t		 str;		/* variable-length UTF-8 strings */
	const char	*file;
};

#define RS_PATH_MAX 256
#define RS_CHUNK	65536	/* values per chunk of a packed matrix */
#define RS_GZIP		4	/* deflate level of the packed matrices */

/*
 * het_rs_open: create the HDF5 file path (truncating) with the writer's
 * property list and string type; het_rs_close closes whatever was opened
 * (also after a failed open) and returns rc, or HET_EIO when rc was
 * HET_OK and the file does not close cleanly.
 */
int het_rs_open(struct rs_w *w, const char *path, struct het_error *err);
int het_rs_close(struct rs_w *w, int rc, struct het_error *err);
int het_rs_fail(struct rs_w *w, const char *path, struct het_error *err);
int het_rs_data(struct rs_w *w, const char *path, hid_t ftype, hid_t mtype,
    int rank, size_t d0, size_t d1, const void *data, struct het_error *err);
int het_rs_f64(struct rs_w *w, const char *path, size_t n, const double *v,
    struct het_error *err);
int het_rs_mat(struct rs_w *w, const char *path, size_t r, size_t c,
    const double *v, struct het_error *err);
int het_rs_i64(struct rs_w *w, const char *path, size_t n, const long *v,
    const size_t *sz, struct het_error *err);
int het_rs_strs(struct rs_w *w, const char *path, size_t n,
    const char *const *s, struct het_error *err);
int het_rs_str(struct rs_w *w, const char *path, const char *s,
    struct het_error *err);
int het_rs_astr(struct rs_w *w, const char *path, const char *name,
    const char *s, struct het_error *err);
int het_rs_af64(struct rs_w *w, const char *path, const char *name, double v,
    struct het_error *err);
int het_rs_ai64(struct rs_w *w, const char *path, const char *name, long v,
    struct het_error *err);

/* het_rs_h5_cmc: the /cmc group (het_results_cmc.c). */
int het_rs_h5_cmc(struct rs_w *w, const struct het_results_cmc *cmc,
    struct het_error *err);

/*
 * het_rs_json_cmc_summary, het_rs_json_cmc_diagnostics: the two CMC JSON
 * documents (new references, NULL on memory exhaustion).
 */
json_t *het_rs_json_cmc_summary(const struct het_results_cmc *cmc,
    const char *stamp);
json_t *het_rs_json_cmc_diagnostics(const struct het_results_cmc *cmc);

/* A number as JSON, null when not finite; n of them as an array. */
json_t *het_rs_num(double v);
json_t *het_rs_nums(const double *v, size_t n);

/* het_rs_json_write: a JSON document to path (2-space indent, 17 digits). */
int het_rs_json_write(const char *path, json_t *doc, struct het_error *err);

/*
 * Readers shared by het_results_load_h5.c and het_results_load_cmc.c.
 * het_rl_strings: the 1-D string dataset at path as a malloc'd vector of *n
 * malloc'd strings; HET_EFORMAT names file and path (plus hint when it
 * is missing), or HET_ENOMEM.  het_rl_attr: the numeric attribute name of
 * the object at path, NaN when absent or not numeric.  het_rl_join:
 * "dir/name" in a new string (caller frees), or NULL with HET_ENOMEM.
 */
int het_rl_strings(hid_t fid, const char *file, const char *path,
    const char *hint, char ***out, size_t *n, struct het_error *err);
double het_rl_attr(hid_t fid, const char *path, const char *name);
/* het_rl_strings_free: free n strings of het_rl_strings and the array
   (s may be NULL). */
void het_rl_strings_free(char **s, size_t n);
char *het_rl_join(const char *dir, const char *name, struct het_error *err);

#endif /* HET_RESULTS_IMPL_H */
