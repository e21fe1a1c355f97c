/*
 * het_util.h: small helpers shared by the core: overflow-checked
 * allocation of arrays that scale with the data, string helpers, and
 * atomic file replacement (write a temporary file, then rename it).
 *
 * Module core/util (the opening comment of this folder): the core's
 * foundations, which every other core folder uses and which use no
 * other: status codes and error messages (het_error), overflow-checked
 * allocation, string helpers and atomic file replacement (het_util), and
 * the memory budget checked before anything large is allocated
 * (het_memory).
 *
 * Everything here returns a status and fills struct het_error; nothing
 * aborts or prints.  All functions may be called from any thread.
 */
#ifndef HET_UTIL_H
#define HET_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "het_error.h"

#define HET_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * het_cmp_double: qsort comparison of two doubles, ascending (NaN compares
 * equal to everything; callers sort finite values).  Thread: any.
 */
int het_cmp_double(const void *a, const void *b);
/* het_cmp_size: the same for two size_t.  Thread: any. */
int het_cmp_size(const void *a, const void *b);

/*
 * A value and where it came from, for sorting with its origin kept
 * (ranks, argsort).  het_cmp_rank: qsort comparison, ascending by v,
 * ties by i, so the order is total and the same on every platform.
 */
struct het_rank_item {
	double	v;
	size_t	i;
};
int het_cmp_rank(const void *a, const void *b);

/*
 * het_alloc_array: calloc(n, size) with an overflow check.
 *   what   names the array in the error message ("c2 matrix of bin 3").
 * Returns the zeroed block (caller frees with free()), or NULL with
 * HET_ENOMEM in err when n*size overflows or memory is exhausted.  A
 * request for zero elements returns a valid one-byte block.
 */
void *het_alloc_array(size_t n, size_t size, const char *what,
    struct het_error *err);

/*
 * het_strdup: strdup that reports HET_ENOMEM.  A NULL s returns NULL with
 * no error.  Caller frees.
 */
char *het_strdup(const char *s, struct het_error *err);

/* het_str_has_suffix: non-zero when s ends with suffix. */
int het_str_has_suffix(const char *s, const char *suffix);

/*
 * het_csv_field: write s to fp as one CSV field (RFC 4180): as it is,
 * or quoted, with its quotes doubled, when it holds a comma, a quote or
 * a line break.  NULL writes nothing.  Errors show in ferror(fp).
 */
void het_csv_field(FILE *fp, const char *s);

/*
 * het_tmp_path: the temporary name used while writing `path` atomically:
 * "DIR/.NAME.tmp.PID" beside the final file, so the rename stays on one
 * file system.  Returns a malloc'd string (caller frees) or NULL with
 * HET_ENOMEM.
 */
char *het_tmp_path(const char *path, struct het_error *err);

/*
 * het_commit_tmp: fsync tmp, rename it over path and fsync the directory
 * (so that the new name survives a crash).  A failed fsync of tmp (other
 * than "this file system cannot sync") fails the commit: path is left as
 * it was.  On failure tmp is removed and HET_EIO is returned with the
 * reason.
 */
int het_commit_tmp(const char *tmp, const char *path, struct het_error *err);

/*
 * het_sync_tmp, het_rename_tmp: the two steps of het_commit_tmp, for a
 * writer that commits several files and wants all of them on disk before
 * it renames any.  het_sync_tmp fsyncs tmp, which will replace path (the
 * name its message uses); HET_OK (also when the file system cannot sync
 * at all) or HET_EIO with the reason, tmp left in place either way.
 * het_rename_tmp renames tmp over path and fsyncs the directory; on
 * failure tmp is removed and HET_EIO returned.
 */
int het_sync_tmp(const char *tmp, const char *path, struct het_error *err);
int het_rename_tmp(const char *tmp, const char *path, struct het_error *err);

/*
 * het_mkdirs: create dir and any missing parents (mkdir -p, mode 0777
 * before the umask).  what names the directory in messages ("output
 * directory").  Returns HET_OK, HET_EINVAL for an empty dir, HET_ENOMEM,
 * or HET_EIO when a component cannot be created or dir exists but is not
 * a directory.  Any thread.
 */
int het_mkdirs(const char *dir, const char *what, struct het_error *err);

/*
 * het_dir_check_writable: whether results can be written into dir before
 * any work is done: a file is created (and removed) in dir, or, when dir
 * does not exist yet, in the nearest existing parent it would be made
 * in.  what names the folder in messages ("output directory").  Returns
 * HET_OK, HET_EINVAL (empty path), HET_ENOMEM, or HET_EIO saying which
 * folder cannot be written and why (read-only file system, permission,
 * a file in the way) and how to choose another.  Any thread.
 */
int het_dir_check_writable(const char *dir, const char *what,
    struct het_error *err);

/*
 * het_write_file_atomic: write len bytes to path through a temporary file
 * and rename, so readers see either the old file or the complete new one.
 * Returns HET_OK or HET_EIO (the old file, if any, is left untouched).
 */
int het_write_file_atomic(const char *path, const void *data, size_t len,
    struct het_error *err);

/*
 * het_parse_double / het_parse_long: strict parsing of a whole string
 * (blanks around it ignored; no other garbage, no hexadecimal; finite
 * value; range check for long).
 *   what  names the value in the error message ("--dt").
 * Returns HET_OK and stores the value, or HET_EINVAL with a message.
 */
int het_parse_double(const char *s, const char *what, double *out,
    struct het_error *err);
int het_parse_long(const char *s, const char *what, long min, long max,
    long *out, struct het_error *err);

/*
 * het_format_duration: seconds as people read a time left: "45 s" below
 * 2 minutes, "17 min" below 2 hours, else "2.3 h"; "?" for a negative or
 * non-finite value.  Writes at most len bytes (NUL included) into buf and
 * returns buf.  Any thread.
 */
char *het_format_duration(double seconds, char *buf, size_t len);

/*
 * het_chol: the lower Cholesky factor L (L L^T = a) of the n x n
 * symmetric row-major matrix a, in place: only the lower triangle is
 * read and it is overwritten by L; the strict upper triangle is left as
 * it was.  Returns 0, or -1 when a pivot is not positive (a is not
 * numerically positive definite; a is then partly overwritten).
 * het_chol_solve: x = (L L^T)^-1 x in place (n values).  Any thread.
 */
int het_chol(size_t n, double *a);
void het_chol_solve(size_t n, const double *L, double *x);

#endif /* HET_UTIL_H */
