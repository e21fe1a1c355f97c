/*
 * het_h5_impl.h: HDF5 helpers shared by the core's readers and writers
 * (het_dataset*.c).  Core-internal: it includes hdf5.h, so nothing
 * outside src/core may include it.
 *
 * Every helper that can fail fills struct het_error with a sentence that
 * names the HDF5 path; callers add the file name in front.  No helper
 * leaves an HDF5 handle open on any path.
 */
#ifndef HET_H5_IMPL_H
#define HET_H5_IMPL_H

#include <stddef.h>

#include <hdf5.h>

#include "het_error.h"

/* What a path names in a file. */
enum het_h5_kind {
	HET_H5_MISSING = 0,	/* no such link, or a dangling soft or
				   external one */
	HET_H5_GROUP,
	HET_H5_DATASET,
	HET_H5_OTHER,		/* a named datatype */
	HET_H5_BROKEN		/* linked, but it (or the group it is
				   in) cannot be opened: damaged */
};

/* Facts about one dataset, read from its metadata only. */
struct het_h5_dsinfo {
	int		rank;
	hsize_t		dims[H5S_MAX_RANK];
	H5T_class_t	tclass;		/* H5T_FLOAT, H5T_INTEGER, ... */
	size_t		tsize;		/* bytes per element */
	int		compression;	/* enum het_compress */
	int		level;		/* gzip level, or -1 */
	unsigned int	filter_id;	/* the unknown filter for OTHER */
	int		shuffle;	/* the shuffle filter is present */
	int		storage;	/* enum het_h5store */
	hsize_t		chunk[H5S_MAX_RANK];	/* 0 unless chunked */
};

/*
 * het_h5_prepare: what every core entry point that touches HDF5 calls
 * first: quiet this thread's error printing and (idempotently) register
 * the LZF filter.  Returns HET_OK or HET_EINTERNAL.
 */
int het_h5_prepare(struct het_error *err);

/*
 * het_h5_detail: copy the most specific message of this thread's HDF5
 * error stack (for example "truncated file: eof = 4096, ...") into buf,
 * or "" when the stack is empty.  Call right after the failing H5 call.
 */
void het_h5_detail(char *buf, size_t len);

/*
 * het_h5_kind: what `path` (absolute, "/a/b") names under loc.  Only a
 * path that is not linked, or a soft/external link to nothing, is
 * MISSING; a hard-linked object whose header cannot be read is BROKEN,
 * and a caller must report it (het_h5_broken), never take it as absent.
 */
enum het_h5_kind het_h5_kind(hid_t loc, const char *path);

/*
 * het_h5_broken: set err (HET_EFORMAT) to "PATH is in the file but
 * cannot be read: DETAIL: the object is damaged; ..." with this
 * thread's HDF5 error detail.  Returns HET_EFORMAT.
 */
int het_h5_broken(const char *path, struct het_error *err);

/*
 * het_h5_describe: fill *info for an open dataset (shape, type class and
 * size, compression, storage layout, chunk shape).
 * Returns HET_OK, or HET_EFORMAT when HDF5 cannot describe it.
 */
int het_h5_describe(hid_t dset, const char *path, struct het_h5_dsinfo *info,
    struct het_error *err);

/* het_h5_shape_str: "(350, 350)", or "()" for a scalar, into buf. */
void het_h5_shape_str(const struct het_h5_dsinfo *info, char *buf,
    size_t len);

/*
 * het_h5_read_vector: read a small numeric dataset of rank 0, 1 or 2 (at
 * most one dimension larger than 1, so (N,), (1,N) and (N,1) all work)
 * into a new array of doubles.
 *   out  on output, a malloc'd array of *n values (caller frees).
 * Returns HET_OK; HET_ENOTFOUND when the path is missing; HET_EFORMAT for
 * a non-numeric type, a real 2-D table or more than max_n values.
 */
int het_h5_read_vector(hid_t file, const char *path, size_t max_n,
    double **out, size_t *n, struct het_error *err);

/*
 * het_h5_read_array: read a numeric dataset of rank 0, 1 or 2 whole into
 * a new array of doubles in C order (row-major).
 *   info  on output, its shape (info->rank, info->dims), type class
 *         (H5T_INTEGER or H5T_FLOAT, as stored) and storage.
 *   out   on output, a malloc'd array of the product of the dims values
 *         (caller frees).
 * Returns HET_OK; HET_ENOTFOUND when the path is missing; HET_EFORMAT for
 * a non-numeric type, rank above 2, more than max_n values or a read
 * that fails; HET_ENOMEM.
 */
int het_h5_read_array(hid_t file, const char *path, size_t max_n,
    double **out, struct het_h5_dsinfo *info, struct het_error *err);

/*
 * het_h5_read_number: read a dataset that holds exactly one number (a
 * scalar, (1,) or (1,1)).  Returns HET_OK, HET_ENOTFOUND or HET_EFORMAT.
 */
int het_h5_read_number(hid_t file, const char *path, double *out,
    struct het_error *err);

/*
 * het_h5_attr_string: read the string attribute `name` of the object at
 * `path` (fixed or variable length) into buf.  Returns 0 on success, -1
 * when it is absent or not a string (buf is then "").
 */
int het_h5_attr_string(hid_t file, const char *path, const char *name,
    char *buf, size_t len);

#endif /* HET_H5_IMPL_H */
