/*
 * t_core_lzf.c: hetui's LZF filter (HDF5 filter 32000): the filter
 * function on its own (round trip, the grow path when the chunk size is
 * not recorded, corrupt and truncated input, incompressible data), and
 * through libhdf5 (registration is idempotent, set_local fills h5py's
 * client data, an incompressible chunk is stored raw with its filter-mask
 * bit set, and both kinds of chunk read back exactly).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "het_h5.h"
#include "het_lzf.h"
#include "tap.h"

#define N_BYTES 12000

static uint32_t lcg = 2463534242u;

static uint32_t
rnd(void)
{
	lcg ^= lcg << 13;
	lcg ^= lcg >> 17;
	lcg ^= lcg << 5;
	return lcg;
}

static void *
copy_h5(const void *src, size_t n)
{
	void *p = H5allocate_memory(n, 0);

	memcpy(p, src, n);
	return p;
}

static void
test_filter_function(void)
{
	unsigned char orig[N_BYTES], noise[N_BYTES];
	const unsigned int cd[3] = { 4, 0x0105, N_BYTES };
	const unsigned int cd0[3] = { 4, 0x0105, 0 };
	const unsigned int small[3] = { 4, 0x0105, N_BYTES / 2 };
	unsigned char *packed;
	size_t size, n, i, clen;
	void *buf;

	for (i = 0; i < N_BYTES; i++)
		orig[i] = (unsigned char)("c2(t1,t2) two-time "[i % 19] +
		    i / 800);
	for (i = 0; i < N_BYTES; i++)
		noise[i] = (unsigned char)(rnd() >> 7);

	buf = copy_h5(orig, N_BYTES);
	size = N_BYTES;
	clen = het_lzf_filter(0, 3, cd, N_BYTES, &size, &buf);
	ok(clen > 0 && clen < N_BYTES / 4, "compress a repetitive %d-byte "
	    "buffer to %zu bytes", N_BYTES, clen);
	packed = copy_h5(buf, clen);
	H5free_memory(buf);

	buf = copy_h5(packed, clen);
	size = clen;
	n = het_lzf_filter(H5Z_FLAG_REVERSE, 3, cd, clen, &size, &buf);
	ok(n == N_BYTES && memcmp(buf, orig, N_BYTES) == 0,
	    "decompress with the recorded chunk size: identical bytes");
	H5free_memory(buf);

	buf = copy_h5(packed, clen);
	size = clen;
	n = het_lzf_filter(H5Z_FLAG_REVERSE, 3, cd0, clen, &size, &buf);
	ok(n == N_BYTES && size >= N_BYTES && memcmp(buf, orig, N_BYTES) == 0,
	    "cd_values[2] = 0: the buffer grows until the chunk fits");
	H5free_memory(buf);

	buf = copy_h5(packed, clen);
	size = clen;
	n = het_lzf_filter(H5Z_FLAG_REVERSE, 0, NULL, clen, &size, &buf);
	ok(n == N_BYTES && memcmp(buf, orig, N_BYTES) == 0,
	    "no client data at all: grows as well");
	H5free_memory(buf);

	buf = copy_h5(packed, clen);
	size = clen;
	n = het_lzf_filter(H5Z_FLAG_REVERSE, 3, small, clen, &size, &buf);
	ok(n == 0 && size == clen && memcmp(buf, packed, clen) == 0,
	    "a chunk larger than cd_values[2] fails and leaves the input");
	H5free_memory(buf);

	buf = copy_h5(packed, clen / 2);
	size = clen / 2;
	n = het_lzf_filter(H5Z_FLAG_REVERSE, 3, cd, clen / 2, &size, &buf);
	ok(n == 0, "truncated compressed data fails");
	H5free_memory(buf);

	buf = copy_h5(noise, 64);
	((unsigned char *)buf)[0] = 0xff;	/* a back reference at 0 */
	size = 64;
	n = het_lzf_filter(H5Z_FLAG_REVERSE, 3, cd, 64, &size, &buf);
	ok(n == 0, "garbage fails to decompress");
	H5free_memory(buf);

	buf = copy_h5(noise, N_BYTES);
	size = N_BYTES;
	n = het_lzf_filter(0, 3, cd, N_BYTES, &size, &buf);
	ok(n == 0 && size == N_BYTES && memcmp(buf, noise, N_BYTES) == 0,
	    "incompressible data: the filter fails (so HDF5 stores it raw)");
	H5free_memory(buf);

	buf = copy_h5(orig, 1);
	size = 1;
	ok(het_lzf_filter(0, 3, cd, 1, &size, &buf) == 0,
	    "a 1-byte chunk cannot shrink");
	H5free_memory(buf);
	size = 0;
	ok(het_lzf_filter(0, 3, cd, 0, &size, NULL) == 0, "NULL buffer fails");
	H5free_memory(packed);
}

static void
test_through_hdf5(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];
	double smooth[64 * 64], noisy[64 * 64], back[64 * 64];
	hsize_t dims[2] = { 64, 64 }, off[2];
	unsigned int flags, cd[8], mask;
	haddr_t addr;
	hsize_t csize;
	size_t ncd = 8, i;
	hid_t fid, sp, dcpl, d1, d2;
	int fd;

	for (i = 0; i < 64 * 64; i++) {
		smooth[i] = 1.0 + (double)(i / 64) * 0.001;
		noisy[i] = (double)rnd() / 4294967296.0 + (double)rnd();
	}
	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	snprintf(tmpl, sizeof(tmpl), "%s/hetui-lzf-XXXXXX", base);
	fd = mkstemp(tmpl);
	if (fd < 0) {
		skip(9, "no temporary file");
		return;
	}
	close(fd);
	fid = H5Fcreate(tmpl, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	sp = H5Screate_simple(2, dims, NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 2, dims);
	ok(H5Pset_filter(dcpl, HET_LZF_FILTER_ID, H5Z_FLAG_OPTIONAL, 0,
	    NULL) >= 0, "H5Pset_filter(32000) with no client data");
	d1 = H5Dcreate2(fid, "smooth", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl,
	    H5P_DEFAULT);
	d2 = H5Dcreate2(fid, "noisy", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl,
	    H5P_DEFAULT);
	ok(H5Dwrite(d1, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    smooth) >= 0 && H5Dwrite(d2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
	    H5P_DEFAULT, noisy) >= 0, "write a compressible and an "
	    "incompressible chunk");
	H5Dclose(d1);
	H5Dclose(d2);
	H5Pclose(dcpl);
	H5Sclose(sp);
	H5Fclose(fid);

	fid = H5Fopen(tmpl, H5F_ACC_RDONLY, H5P_DEFAULT);
	d1 = H5Dopen2(fid, "smooth", H5P_DEFAULT);
	d2 = H5Dopen2(fid, "noisy", H5P_DEFAULT);
	dcpl = H5Dget_create_plist(d1);
	ok(H5Pget_filter_by_id2(dcpl, HET_LZF_FILTER_ID, &flags, &ncd, cd, 0,
	    NULL, NULL) >= 0 && ncd == 3 && cd[0] == 4 && cd[1] == 0x0105 &&
	    cd[2] == 64 * 64 * 8, "set_local wrote {4, 261, 32768}");
	H5Pclose(dcpl);
	sp = H5Dget_space(d1);
	ok(H5Dget_chunk_info(d1, sp, 0, off, &mask, &addr, &csize) >= 0 &&
	    mask == 0 && csize < 64 * 64 * 8 / 4,
	    "compressible chunk stored compressed (%llu bytes, mask 0)",
	    (unsigned long long)csize);
	ok(H5Dget_chunk_info(d2, sp, 0, off, &mask, &addr, &csize) >= 0 &&
	    (mask & 1) && csize == 64 * 64 * 8,
	    "incompressible chunk stored raw with the filter-mask bit set");
	H5Sclose(sp);
	memset(back, 0, sizeof(back));
	ok(H5Dread(d1, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    back) >= 0 && memcmp(back, smooth, sizeof(back)) == 0,
	    "compressed chunk reads back exactly");
	memset(back, 0, sizeof(back));
	ok(H5Dread(d2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    back) >= 0 && memcmp(back, noisy, sizeof(back)) == 0,
	    "raw chunk reads back exactly");
	H5Dclose(d1);
	H5Dclose(d2);
	H5Fclose(fid);
	unlink(tmpl);
}

int
main(void)
{
	struct het_error err;
	unsigned int info = 0;

	plan_lazy();
	het_error_clear(&err);
	ok(het_h5_library_init(&err) == HET_OK, "library init registers LZF");
	ok(het_h5_library_init(&err) == HET_OK, "and again (idempotent)");
	ok(het_lzf_register(&err) == HET_OK, "direct re-registration");
	ok(H5Zfilter_avail(HET_LZF_FILTER_ID) > 0, "filter 32000 available");
	ok(H5Zget_filter_info(HET_LZF_FILTER_ID, &info) >= 0 &&
	    (info & H5Z_FILTER_CONFIG_ENCODE_ENABLED) &&
	    (info & H5Z_FILTER_CONFIG_DECODE_ENABLED),
	    "it encodes and decodes");
	test_filter_function();
	test_through_hdf5();
	return exit_status();
}
