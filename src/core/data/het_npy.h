/*
 * het_npy.h: NumPy .npy files of two-time matrices, read without NumPy.
 *
 * Format (numpy.lib.format, versions 1.0, 2.0 and 3.0): the magic
 * "\x93NUMPY", a major and a minor version byte, the header length (two
 * bytes little-endian in version 1, four in 2 and 3), then the header, a
 * Python dict literal such as
 *	{'descr': '<f8', 'fortran_order': False, 'shape': (350, 350), }
 * padded with blanks and ended by a newline, then the array's bytes.
 * The header is parsed by a small tokenizer of exactly that grammar
 * (strings in single or double quotes, True/False, integers, tuples); a
 * header it cannot read is refused with what it found and where, never
 * guessed at.
 *
 * Accepted arrays: float32 or float64 ('<f4', '<f8', '>f4', '>f8'; '='
 * or '|' with a byte width as the host order), C or Fortran order, shape
 * (N, N) (one matrix) or (M, N, N) (a stack of M matrices, one per angle),
 * N >= 2; the file must hold exactly the header and M N^2 values (a
 * truncated file or one with trailing bytes is refused).  Values are
 * converted to double on reading; which triangle holds the data (full,
 * upper or lower) is the dataset reader's business (het_dataset_read.c),
 * as for HDF5 files.
 *
 * Reads are windows: rows and columns f0..f0+n-1 of matrix k, read from
 * the file with pread (C order: one read per row; Fortran order: one per
 * column), so a large stack costs one window of memory.
 *
 * Thread: a struct het_npy may be used by one thread at a time.
 */
#ifndef HET_NPY_H
#define HET_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "het_error.h"

/* What the header says (het_npy_parse_header). */
struct het_npy_hdr {
	int		major, minor;	/* format version */
	int		f32;		/* 1: float32, 0: float64 */
	int		swap;		/* bytes in the other order than the
					   host's */
	int		fortran;	/* fortran_order: True */
	size_t		ndim;		/* 2 or 3 */
	size_t		nmat;		/* M: matrices (1 for 2-D) */
	size_t		n;		/* N: side of each matrix */
	uint64_t	data_off;	/* bytes before the array */
	uint64_t	data_len;	/* M N^2 x item size */
};

/* The largest header read (numpy's own limit for a trusted file). */
#define HET_NPY_HDR_MAX		65536

/*
 * het_npy_parse_header: the header of a .npy file from its first bytes.
 *   buf, len   the file's first len bytes (all of them when shorter than
 *              HET_NPY_HDR_MAX + 12);
 *   file_size  the size of the whole file, to check the array's length.
 * Returns HET_OK with *h filled, or HET_EFORMAT with a message that says
 * what is wrong (not a .npy file, an unknown version, a header that
 * cannot be read and at which character, a dtype or shape that is not a
 * matrix or stack of matrices of floats, a truncated file or trailing
 * bytes).  Pure: no I/O, any thread; the fuzzing harness drives it.
 */
int het_npy_parse_header(const unsigned char *buf, size_t len,
    uint64_t file_size, struct het_npy_hdr *h, struct het_error *err);

/*
 * het_npy_is_npy: 1 when the first len bytes of a file start with the
 * .npy magic (len >= 6), else 0.
 */
int het_npy_is_npy(const unsigned char *buf, size_t len);

struct het_npy;

/*
 * het_npy_open: open path and read its header (het_npy_parse_header).
 * Returns the object (free with het_npy_close) or NULL with HET_EIO (the
 * file cannot be opened or read; sys_errno set), HET_EFORMAT or
 * HET_ENOMEM.  Messages do not start with the path (the caller prefixes
 * it).
 */
struct het_npy *het_npy_open(const char *path, struct het_error *err);
void het_npy_close(struct het_npy *npy);

/* het_npy_header: the header of an open file (borrowed). */
const struct het_npy_hdr *het_npy_header(const struct het_npy *npy);

/*
 * het_npy_read: rows and columns f0..f0+n-1 (0-based) of matrix k into
 * out (n * n doubles, row-major: out[i * n + j] is element (f0 + i,
 * f0 + j)), converted to double.  Returns HET_OK, HET_EINVAL (k, f0 or n
 * outside the array), HET_EIO (a read failed or came up short: the file
 * changed since it was opened) or HET_ENOMEM.
 */
int het_npy_read(struct het_npy *npy, size_t k, size_t f0, size_t n,
    double *out, struct het_error *err);

#endif /* HET_NPY_H */
