/*
 * fixture_h5.c: HDF5 fixtures for the data-layer tests (see the header).
 * Written with the plain HDF5 C API, independently of the reader under
 * test, so a bug in src/core cannot hide itself in its own fixtures.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "fixture_h5.h"

#define FX_FAIL(...) do {						\
	printf("# fixture: ");						\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
} while (0)

void
fx_matrix(size_t n, unsigned seed, double *out)
{
	size_t i, j;
	double tau = 3.71 + seed % 97, v, h;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++) {
			/* A cheap symmetric hash of (i, j, seed) in [-1, 1]. */
			h = sin(12.9898 * (double)i + 78.233 * (double)j +
			    0.5413 * seed) * 43758.5453;
			h = 2 * (h - floor(h)) - 1;
			v = 1.0237 + 0.2913 * exp(-(double)(j - i) / tau) +
			    0.0127 * h;
			out[i * n + j] = v;
			out[j * n + i] = v;
		}
}

void
fx_expect(const double *full, size_t n, long first, long last, int f32,
    double *out)
{
	size_t m = (size_t)(last - first + 1), f0 = (size_t)(first - 1);
	size_t i, j;
	double v;

	for (i = 0; i < m; i++)
		for (j = i; j < m; j++) {
			v = full[(f0 + i) * n + f0 + j];
			if (f32)
				v = (double)(float)v;
			out[i * m + j] = v;
			out[j * m + i] = v;
		}
	out[0] = out[1];
	out[m * m - 1] = out[(m - 2) * m + m - 1];
	for (i = 1; i + 1 < m; i++)
		out[i * m + i] = (out[(i - 1) * m + i] + out[i * m + i + 1]) /
		    2;
}

size_t
fx_diff(const double *a, const double *b, size_t n)
{
	size_t i, bad = 0;

	for (i = 0; i < n; i++)
		if (a[i] != b[i] && !(isnan(a[i]) && isnan(b[i])))
			bad++;
	return bad;
}

char *
fx_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char buf[4096];

	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	if ((size_t)snprintf(buf, sizeof(buf), "%s/hetui-test.XXXXXX", base) >=
	    sizeof(buf) || mkdtemp(buf) == NULL)
		return NULL;
	return strdup(buf);
}

void
fx_rmtree(const char *dir)
{
	struct dirent *de;
	char path[4096];
	DIR *d;

	if (dir == NULL || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

char *
fx_path(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);

	if (p != NULL)
		snprintf(p, len, "%s/%s", dir, name);
	return p;
}

/* ------------------------------------------------------------------ */

static hid_t
fx_lcpl(void)
{
	hid_t l = H5Pcreate(H5P_LINK_CREATE);

	H5Pset_create_intermediate_group(l, 1);
	return l;
}

static int
fx_write(hid_t fid, const char *path, hid_t ftype, int rank,
    const hsize_t *dims, const double *data, hid_t dcpl)
{
	hid_t sp, ds = -1, l = fx_lcpl();
	int rc = -1;

	sp = rank == 0 ? H5Screate(H5S_SCALAR) :
	    H5Screate_simple(rank, dims, NULL);
	if (sp >= 0 && (ds = H5Dcreate2(fid, path, ftype, sp, l,
	    dcpl >= 0 ? dcpl : H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
	    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    data) >= 0)
		rc = 0;
	if (ds >= 0)
		H5Dclose(ds);
	if (sp >= 0)
		H5Sclose(sp);
	H5Pclose(l);
	if (rc != 0)
		FX_FAIL("cannot write %s", path);
	return rc;
}

void
fx_legacy_init(struct fx_legacy *lg)
{
	memset(lg, 0, sizeof(*lg));
	lg->prefix = "g2_";
	lg->list_2d = 1;
	lg->exposure = NAN;
	lg->energy = NAN;
	lg->distance = NAN;
}

int
fx_write_legacy(const char *path, const struct fx_legacy *lg)
{
	hsize_t dims[2];
	hid_t fid, dcpl = -1;
	size_t k, i, j, n = lg->frames;
	double *half = NULL, v;
	char name[128];
	int rc = -1;

	fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (fid < 0) {
		FX_FAIL("cannot create %s", path);
		return -1;
	}
	dims[0] = 1;
	dims[1] = lg->nlist;
	if (!lg->list_2d)
		dims[0] = lg->nlist;
	if (fx_write(fid, "/xpcs/dqlist", H5T_IEEE_F64LE, lg->list_2d ? 2 : 1,
	    dims, lg->dq, -1) < 0)
		goto out;
	if (lg->nphilist > 0)
		dims[lg->list_2d ? 1 : 0] = lg->nphilist;
	if (lg->dphi != NULL && fx_write(fid, "/xpcs/dphilist",
	    H5T_IEEE_F64LE, lg->list_2d ? 2 : 1, dims, lg->dphi, -1) < 0)
		goto out;
	if ((half = calloc(n * n, sizeof(*half))) == NULL)
		goto out;
	dims[0] = dims[1] = n;
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (lg->gzip > 0) {
		H5Pset_chunk(dcpl, 2, dims);
		H5Pset_deflate(dcpl, (unsigned)lg->gzip);
	}
	for (k = 0; k < lg->nmat; k++) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				v = lg->c2[k][i * n + j];
				half[i * n + j] = j >= i ? v : 0;
			}
		snprintf(name, sizeof(name), "/exchange/C2T_all/%s%05ld",
		    lg->prefix, lg->labels[k]);
		if (fx_write(fid, name, lg->f32 ? H5T_IEEE_F32LE :
		    H5T_IEEE_F64LE, 2, dims, half, dcpl) < 0)
			goto out;
	}
	if (isfinite(lg->exposure) && fx_write(fid,
	    "/measurement/instrument/detector/exposure_period",
	    H5T_IEEE_F64LE, 0, NULL, &lg->exposure, -1) < 0)
		goto out;
	v = (double)lg->stride;
	if (lg->stride > 0 && fx_write(fid, "/xpcs/stride_frames",
	    H5T_STD_I64LE, 0, NULL, &v, -1) < 0)
		goto out;
	v = (double)lg->avg;
	if (lg->avg > 0 && fx_write(fid, "/xpcs/avg_frames", H5T_STD_I64LE,
	    0, NULL, &v, -1) < 0)
		goto out;
	if (isfinite(lg->energy) && fx_write(fid,
	    "/measurement/instrument/source_begin/energy", H5T_IEEE_F64LE, 0,
	    NULL, &lg->energy, -1) < 0)
		goto out;
	if (isfinite(lg->distance) && fx_write(fid,
	    "/measurement/instrument/detector/distance", H5T_IEEE_F64LE, 0,
	    NULL, &lg->distance, -1) < 0)
		goto out;
	rc = 0;
out:
	free(half);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (H5Fclose(fid) < 0)
		rc = -1;
	if (rc == 0 && isfinite(lg->distance) && lg->distance_unit != NULL)
		rc = fx_attr_string(path,
		    "/measurement/instrument/detector/distance", "units",
		    lg->distance_unit);
	return rc;
}

void
fx_apsu_basic(struct het_apsu_spec *spec, size_t n_q, size_t n_phi,
    size_t frames, double ***mats)
{
	double *q = calloc(n_q, sizeof(*q)), *phi = calloc(n_phi, sizeof(*phi));
	size_t k, n = n_q * n_phi;

	het_apsu_spec_init(spec);
	for (k = 0; k < n_q; k++)
		q[k] = 0.00304306 + 0.0027183 * (double)k;
	for (k = 0; k < n_phi; k++)
		phi[k] = -180.0 + (360.0 / (double)n_phi) * ((double)k + 0.5);
	*mats = calloc(n, sizeof(**mats));
	for (k = 0; k < n; k++) {
		(*mats)[k] = calloc(frames * frames, sizeof(double));
		fx_matrix(frames, 100 + (unsigned)k, (*mats)[k]);
	}
	spec->n_q = n_q;
	spec->n_phi = n_phi;
	spec->q = q;
	spec->phi = phi;
	spec->nbins = n;
	spec->frames = frames;
	spec->c2 = (const double *const *)*mats;
	spec->frame_time = 1.3e-4;
	spec->stride_frame = 3;
	spec->avg_frame = 2;
	spec->energy_kev = 12.34;
	spec->distance_m = 11.6;
}

void
fx_apsu_free(struct het_apsu_spec *spec, double **mats)
{
	fx_free_mats(mats, spec->n_q * spec->n_phi);
	free((void *)spec->q);
	free((void *)spec->phi);
	spec->q = spec->phi = NULL;
}

void
fx_free_mats(double **mats, size_t n)
{
	size_t k;

	if (mats == NULL)
		return;
	for (k = 0; k < n; k++)
		free(mats[k]);
	free(mats);
}

/* ------------------------------------------------------------------ */
/* Surgery */

int
fx_set_element(const char *path, const char *dset, size_t i, size_t j,
    double v)
{
	hsize_t start[2] = { i, j }, count[2] = { 1, 1 };
	hid_t fid, ds = -1, fs = -1, ms = -1;
	int rc = -1;

	if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	if ((ds = H5Dopen2(fid, dset, H5P_DEFAULT)) >= 0 &&
	    (fs = H5Dget_space(ds)) >= 0 &&
	    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count,
	    NULL) >= 0 && (ms = H5Screate_simple(2, count, NULL)) >= 0 &&
	    H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &v) >= 0)
		rc = 0;
	if (ms >= 0)
		H5Sclose(ms);
	if (fs >= 0)
		H5Sclose(fs);
	if (ds >= 0)
		H5Dclose(ds);
	H5Fclose(fid);
	if (rc != 0)
		FX_FAIL("cannot set %s[%zu][%zu]", dset, i, j);
	return rc;
}

int
fx_delete(const char *path, const char *obj)
{
	hid_t fid;
	int rc;

	if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	rc = H5Ldelete(fid, obj, H5P_DEFAULT) < 0 ? -1 : 0;
	H5Fclose(fid);
	if (rc != 0)
		FX_FAIL("cannot delete %s", obj);
	return rc;
}

int
fx_put(const char *path, const char *dset, int rank,
    const unsigned long long *dims, const double *data, long long type)
{
	hsize_t d[2] = { 0, 0 };
	hid_t fid, ftype;
	int rc, i;

	for (i = 0; i < rank; i++)
		d[i] = dims[i];
	ftype = type == FX_F32 ? H5T_IEEE_F32LE : type == FX_I32 ?
	    H5T_STD_I32LE : type == FX_U16 ? H5T_STD_U16LE : type == FX_I64 ?
	    H5T_STD_I64LE : H5T_IEEE_F64LE;
	if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	if (H5Lexists(fid, dset, H5P_DEFAULT) > 0)
		H5Ldelete(fid, dset, H5P_DEFAULT);
	rc = fx_write(fid, dset, ftype, rank, d, data, -1);
	H5Fclose(fid);
	return rc;
}

int
fx_group(const char *path, const char *group)
{
	hid_t fid, g, l = fx_lcpl();
	int rc = -1;

	if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) >= 0 &&
	    (g = H5Gcreate2(fid, group, l, H5P_DEFAULT, H5P_DEFAULT)) >= 0) {
		H5Gclose(g);
		rc = 0;
	}
	if (fid >= 0)
		H5Fclose(fid);
	H5Pclose(l);
	if (rc != 0)
		FX_FAIL("cannot create group %s in %s", group, path);
	return rc;
}

int
fx_attr_string(const char *path, const char *obj, const char *name,
    const char *value)
{
	hid_t fid, o = -1, t = -1, sp = -1, a = -1;
	int rc = -1;

	if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	if ((o = H5Oopen(fid, obj, H5P_DEFAULT)) >= 0 &&
	    (t = H5Tcopy(H5T_C_S1)) >= 0 &&
	    H5Tset_size(t, strlen(value)) >= 0 &&
	    (sp = H5Screate(H5S_SCALAR)) >= 0 &&
	    (a = H5Acreate2(o, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
	    H5Awrite(a, t, value) >= 0)
		rc = 0;
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (o >= 0)
		H5Oclose(o);
	H5Fclose(fid);
	if (rc != 0)
		FX_FAIL("cannot set attribute %s of %s", name, obj);
	return rc;
}

int
fx_truncate(const char *path, long size)
{
	if (truncate(path, size) != 0) {
		FX_FAIL("cannot truncate %s", path);
		return -1;
	}
	return 0;
}

int
fx_write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL) {
		FX_FAIL("cannot create %s", path);
		return -1;
	}
	fputs(text, fp);
	return fclose(fp) == 0 ? 0 : -1;
}

int
fx_corrupt_chunk(const char *path, const char *dset, size_t offset,
    size_t len)
{
	hsize_t off[2];
	haddr_t addr = HADDR_UNDEF;
	hsize_t size = 0;
	unsigned mask;
	hid_t fid, ds = -1, sp = -1;
	FILE *fp;
	size_t i;

	if ((fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	if ((ds = H5Dopen2(fid, dset, H5P_DEFAULT)) >= 0 &&
	    (sp = H5Dget_space(ds)) >= 0)
		(void)H5Dget_chunk_info(ds, sp, 0, off, &mask, &addr, &size);
	if (sp >= 0)
		H5Sclose(sp);
	if (ds >= 0)
		H5Dclose(ds);
	H5Fclose(fid);
	if (addr == HADDR_UNDEF || offset + len > size) {
		FX_FAIL("no chunk of %zu bytes at %zu in %s", len, offset,
		    dset);
		return -1;
	}
	if ((fp = fopen(path, "r+b")) == NULL ||
	    fseek(fp, (long)(addr + offset), SEEK_SET) != 0) {
		if (fp != NULL)
			fclose(fp);
		FX_FAIL("cannot seek in %s", path);
		return -1;
	}
	for (i = 0; i < len; i++)
		fputc(0xA5 ^ (int)(i * 37), fp);
	return fclose(fp) == 0 ? 0 : -1;
}

int
fx_corrupt_header(const char *path, const char *obj)
{
	H5O_info_t info;
	hid_t fid;
	FILE *fp;
	herr_t hr;
	int i;

	if ((fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	hr = H5Oget_info_by_name2(fid, obj, &info, H5O_INFO_BASIC,
	    H5P_DEFAULT);
	H5Fclose(fid);
	if (hr < 0 || info.addr == HADDR_UNDEF) {
		FX_FAIL("no object header for %s", obj);
		return -1;
	}
	/* the version byte (v1) or the "OHDR" signature (v2) and more */
	if ((fp = fopen(path, "r+b")) == NULL ||
	    fseek(fp, (long)info.addr, SEEK_SET) != 0) {
		if (fp != NULL)
			fclose(fp);
		FX_FAIL("cannot seek in %s", path);
		return -1;
	}
	for (i = 0; i < 8; i++)
		fputc(0xA5 ^ (i * 37), fp);
	return fclose(fp) == 0 ? 0 : -1;
}

int
fx_soft_link(const char *path, const char *link, const char *target)
{
	hid_t fid;
	int rc;

	if ((fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
		FX_FAIL("cannot open %s", path);
		return -1;
	}
	rc = H5Lcreate_soft(target, fid, link, H5P_DEFAULT, H5P_DEFAULT) < 0 ?
	    -1 : 0;
	H5Fclose(fid);
	if (rc != 0)
		FX_FAIL("cannot link %s to %s", link, target);
	return rc;
}

int
fx_new_file(const char *path, const char *group)
{
	hid_t fid, g, l = fx_lcpl();
	int rc = -1;

	fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (fid >= 0 && (group == NULL || (g = H5Gcreate2(fid, group, l,
	    H5P_DEFAULT, H5P_DEFAULT)) >= 0)) {
		if (group != NULL)
			H5Gclose(g);
		rc = 0;
	}
	if (fid >= 0)
		H5Fclose(fid);
	H5Pclose(l);
	if (rc != 0)
		FX_FAIL("cannot create %s", path);
	return rc;
}
