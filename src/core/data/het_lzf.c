/*
 * het_lzf.c: HDF5 filter 32000 (LZF) on top of liblzf.
 *
 * Design: the filter is a pure function of its input buffer and client
 * data; it keeps no state, so it is safe in the thread-safe libhdf5 and
 * needs no global variables (the H5Z_class2_t is built on the stack at
 * registration, because libhdf5 copies it into its own table).
 *
 * liblzf works on `unsigned int` lengths.  HDF5 chunks are limited to
 * 4 GiB - 1 bytes, so every chunk fits, but the filter still checks
 * before it narrows a size_t.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include <hdf5.h>
#include <lzf.h>

#include "het_lzf.h"
#include "het_util.h"

/* LZF_VERSION of the liblzf the chunks are written with, for cd_values[1]. */
#ifndef LZF_VERSION
#define LZF_VERSION 0x0105
#endif

/*
 * The set_local callback: put {revision, LZF version, chunk size in bytes}
 * into the dataset's copy of the filter's client data, keeping any extra
 * values a writer passed beyond the first three.
 */
static herr_t
het_lzf_set_local(hid_t dcpl, hid_t type, hid_t space)
{
	unsigned int values[8] = { 0 };
	unsigned int flags = 0;
	size_t nvalues = HET_ARRAY_LEN(values);
	hsize_t dims[H5S_MAX_RANK];
	size_t typesize;
	uint64_t bytes;
	int i, rank;

	(void)space;
	if (H5Pget_filter_by_id2(dcpl, HET_LZF_FILTER_ID, &flags, &nvalues,
	    values, 0, NULL, NULL) < 0)
		return -1;
	if (nvalues < 3)
		nvalues = 3;
	if (nvalues > HET_ARRAY_LEN(values))
		nvalues = HET_ARRAY_LEN(values);
	rank = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
	typesize = H5Tget_size(type);
	if (rank <= 0 || typesize == 0)
		return -1;
	bytes = typesize;
	for (i = 0; i < rank; i++) {
		bytes *= dims[i];
		if (bytes > UINT_MAX)
			return -1;	/* larger than any HDF5 chunk */
	}
	values[0] = HET_LZF_FILTER_REV;
	values[1] = LZF_VERSION;
	values[2] = (unsigned int)bytes;
	return H5Pmodify_filter(dcpl, HET_LZF_FILTER_ID, flags, nvalues,
	    values);
}

static size_t
het_lzf_decode(size_t cd_nelmts, const unsigned int cd_values[],
    size_t nbytes, size_t *buf_size, void **buf)
{
	size_t outsize;
	unsigned int got;
	int can_grow;
	void *out;

	if (nbytes > UINT_MAX)
		return 0;
	/*
	 * cd_values[2] is the uncompressed chunk size.  Files whose writer
	 * left it 0 make us guess: start at twice the input (or the input
	 * buffer's size, if larger) and double while liblzf says E2BIG.
	 */
	can_grow = cd_nelmts < 3 || cd_values[2] == 0;
	if (!can_grow)
		outsize = cd_values[2];
	else {
		outsize = *buf_size > 2 * nbytes ? *buf_size : 2 * nbytes;
		if (outsize < 64)
			outsize = 64;
	}
	for (;;) {
		if (outsize > UINT_MAX)
			outsize = UINT_MAX;
		out = H5allocate_memory(outsize, 0);
		if (out == NULL)
			return 0;
		errno = 0;
		got = lzf_decompress(*buf, (unsigned int)nbytes, out,
		    (unsigned int)outsize);
		/*
		 * LZF has no checksum; a known chunk size is the one check
		 * against a damaged chunk, and it keeps libhdf5 from using
		 * bytes the filter never wrote.
		 */
		if (got != 0 && !can_grow && got != outsize) {
			H5free_memory(out);
			return 0;
		}
		if (got != 0)
			break;
		H5free_memory(out);
		/* EINVAL is corrupt data; E2BIG with a known size is too. */
		if (errno != E2BIG || !can_grow || outsize == UINT_MAX)
			return 0;
		outsize *= 2;
	}
	H5free_memory(*buf);
	*buf = out;
	*buf_size = outsize;
	return got;
}

static size_t
het_lzf_encode(size_t nbytes, size_t *buf_size, void **buf)
{
	unsigned int got;
	void *out;

	/*
	 * Ask for strictly less room than the input: a chunk that does not
	 * shrink fails here, and libhdf5 stores it raw because the filter is
	 * optional (h5py's convention).
	 */
	if (nbytes < 2 || nbytes > UINT_MAX)
		return 0;
	out = H5allocate_memory(nbytes - 1, 0);
	if (out == NULL)
		return 0;
	got = lzf_compress(*buf, (unsigned int)nbytes, out,
	    (unsigned int)(nbytes - 1));
	if (got == 0) {
		H5free_memory(out);
		return 0;
	}
	H5free_memory(*buf);
	*buf = out;
	*buf_size = nbytes - 1;
	return got;
}

size_t
het_lzf_filter(unsigned int flags, size_t cd_nelmts,
    const unsigned int cd_values[], size_t nbytes, size_t *buf_size,
    void **buf)
{
	if (buf == NULL || *buf == NULL || buf_size == NULL)
		return 0;
	if (flags & H5Z_FLAG_REVERSE)
		return het_lzf_decode(cd_nelmts, cd_values, nbytes, buf_size,
		    buf);
	return het_lzf_encode(nbytes, buf_size, buf);
}

int
het_lzf_register(struct het_error *err)
{
	H5Z_class2_t cls;

	cls.version = H5Z_CLASS_T_VERS;
	cls.id = HET_LZF_FILTER_ID;
	cls.encoder_present = 1;
	cls.decoder_present = 1;
	cls.name = "lzf (hetui, liblzf)";
	cls.can_apply = NULL;
	cls.set_local = het_lzf_set_local;
	cls.filter = het_lzf_filter;
	if (H5Zregister(&cls) < 0)
		return het_error_set(err, HET_EINTERNAL,
		    "cannot register the LZF filter (HDF5 filter %d) with "
		    "libhdf5; LZF-compressed files cannot be read",
		    HET_LZF_FILTER_ID);
	return HET_OK;
}
