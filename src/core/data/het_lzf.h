/*
 * het_lzf.h: hetui's own HDF5 filter 32000 (LZF), the compression that
 * h5py and the APS-U analysis pipeline (boost_corr, pySimpleMask) use.
 *
 * Stock libhdf5 cannot read LZF, and the Debian plugin package is broken
 * on its own (docs: xpcs-data-formats.md §0), so hetui registers a filter
 * built on liblzf.  It reads and writes files that h5py reads and writes:
 *
 *   cd_values  {4, 0x0105, chunk_bytes}: h5py's filter revision, the LZF
 *              version and the uncompressed chunk size in bytes.  The
 *              set_local callback fills them in when a writer passes none.
 *   decoding   lzf_decompress into a buffer of cd_values[2] bytes, and
 *              the chunk must fill it exactly (LZF has no checksum; this
 *              catches most damage); when that value is 0 or absent the
 *              buffer grows until the chunk fits.
 *   encoding   a chunk that LZF cannot shrink makes the filter fail; a
 *              writer that adds the filter with H5Z_FLAG_OPTIONAL (as h5py
 *              does) then gets the chunk stored raw with its filter-mask
 *              bit set, and readers skip the filter for that chunk.
 *
 * Writers enable it with
 *	H5Pset_filter(dcpl, HET_LZF_FILTER_ID, H5Z_FLAG_OPTIONAL, 0, NULL);
 * after het_lzf_register() (het_h5_library_init() calls it).
 */
#ifndef HET_LZF_H
#define HET_LZF_H

#include <stddef.h>

#include "het_error.h"

#define HET_LZF_FILTER_ID	32000	/* registered with The HDF Group */
#define HET_LZF_FILTER_REV	4	/* cd_values[0], as h5py writes it */

/*
 * het_lzf_register: register filter 32000 with libhdf5 for this process.
 * Idempotent: registering again replaces the class with an identical one,
 * and hetui's class also takes precedence over a dynamically loaded
 * plugin with the same id.
 * Returns HET_OK, or HET_EINTERNAL with a message when libhdf5 refuses.
 * Thread: any thread that may use HDF5 (libhdf5 serialises the call).
 */
int het_lzf_register(struct het_error *err);

/*
 * het_lzf_filter: the H5Z_func_t of the filter, exported so that tests can
 * drive it without a file.
 *   flags      H5Z_FLAG_REVERSE to decompress, otherwise compress.
 *   cd_nelmts, cd_values  the filter's client data (see above).
 *   nbytes     number of valid bytes in *buf.
 *   buf_size   on input the allocated size of *buf, on output the size of
 *              the new buffer.
 *   buf        on input a buffer from H5allocate_memory(); on success it
 *              is freed and replaced by a new H5allocate_memory() buffer.
 * Returns the number of valid bytes in the new *buf, or 0 on failure (the
 * input buffer is then untouched): corrupt input, a chunk larger than
 * cd_values[2], a chunk LZF cannot shrink, or out of memory.
 * Thread: any.
 */
size_t het_lzf_filter(unsigned int flags, size_t cd_nelmts,
    const unsigned int cd_values[], size_t nbytes, size_t *buf_size,
    void **buf);

#endif /* HET_LZF_H */
