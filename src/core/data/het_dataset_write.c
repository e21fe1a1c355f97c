/*
 * het_dataset_write.c: the APS-U writer (contract in het_dataset_write.h).
 *
 * Design: the spec is checked completely before the file is created, so a
 * bad spec never leaves a temporary file behind.  The file is written to
 * het_tmp_path(path) and renamed by het_commit_tmp() only after libhdf5
 * has closed it cleanly; any failure closes every handle through one
 * cleanup label and removes the temporary file.  Matrices go one at a
 * time through a single N x N buffer: the caller's full matrix is copied,
 * its strict lower triangle zeroed (the half storage of real files), and
 * libhdf5 converts to float32 on the way out when asked (round to
 * nearest).  Compressed matrices are chunked as boost_corr does (one
 * chunk per matrix) unless a chunk would pass 64 MiB; LZF is added as an
 * optional filter, so an incompressible chunk is stored raw, as h5py does.
 * No object carries a timestamp, so equal specs give byte-identical files.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_dataset_write.h"
#include "het_h5_impl.h"
#include "het_lzf.h"
#include "het_util.h"

#define HET_WR_CHUNK_MAX	(64UL * 1024 * 1024)
#define HET_WR_UNIT_Q		"\xc3\x85\xe2\x81\xbb\xc2\xb9"	/* Å⁻¹ */

/* Everything the write needs besides the spec. */
struct het_wr {
	const struct het_apsu_spec *spec;
	hid_t	 fid;
	hid_t	 lcpl;		/* creates intermediate groups */
	hid_t	 dcpl;		/* small datasets: no timestamps */
	hid_t	 g2;		/* normalized_g2, open while writing */
	double	*m;		/* one matrix */
	double	*lag;		/* its lag means */
	float	*col;		/* one column of normalized_g2 */
	char	*tmp;
};

void
het_apsu_spec_init(struct het_apsu_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->dtype = HET_DTYPE_F32;
	spec->compression = HET_COMPRESS_NONE;
	spec->gzip_level = 4;
	spec->frame_time = NAN;
	spec->stride_frame = 1;
	spec->avg_frame = 1;
	spec->energy_kev = NAN;
	spec->distance_m = NAN;
}

static int
het_wr_check_lists(const struct het_apsu_spec *s, struct het_error *err)
{
	size_t i, cells;

	if (s->n_q < 1 || s->n_phi < 1 || s->q == NULL || s->phi == NULL)
		return het_error_set(err, HET_EINVAL,
		    "the q map needs at least one q and one phi value");
	if (s->n_q > HET_DS_MAX_LIST / s->n_phi)
		return het_error_set(err, HET_EINVAL,
		    "the q map has too many cells (%zu x %zu)", s->n_q,
		    s->n_phi);
	for (i = 0; i < s->n_q; i++)
		if (!isfinite(s->q[i]) || s->q[i] <= 0)
			return het_error_set(err, HET_EINVAL,
			    "q[%zu] = %g is not a positive q in 1/Angstrom", i,
			    s->q[i]);
	for (i = 0; i < s->n_phi; i++)
		if (!isfinite(s->phi[i]))
			return het_error_set(err, HET_EINVAL,
			    "phi[%zu] = %g is not a finite angle", i,
			    s->phi[i]);
	cells = s->n_q * s->n_phi;
	if (s->index_mapping != NULL) {
		if (s->n_mapping < 1)
			return het_error_set(err, HET_EINVAL,
			    "index_mapping is given with no entries");
		for (i = 0; i < s->n_mapping; i++)
			if (s->index_mapping[i] < 0 ||
			    (size_t)s->index_mapping[i] >= cells)
				return het_error_set(err, HET_EINVAL,
				    "index_mapping[%zu] = %ld is not a cell of "
				    "the %zu x %zu q map", i,
				    s->index_mapping[i], s->n_q, s->n_phi);
	}
	return HET_OK;
}

static int
het_wr_check(const struct het_apsu_spec *s, struct het_error *err)
{
	size_t i, nlab;
	int rc;

	if ((rc = het_wr_check_lists(s, err)) != HET_OK)
		return rc;
	nlab = s->index_mapping != NULL ? s->n_mapping : s->n_q * s->n_phi;
	if (s->nbins < 1 || s->nbins > HET_APSU_MAX_BINS)
		return het_error_set(err, HET_EINVAL,
		    "nbins = %zu; an APS-U file holds 1 to %d matrices",
		    s->nbins, HET_APSU_MAX_BINS);
	for (i = 0; s->labels != NULL && i < s->nbins; i++)
		if (s->labels[i] < 1 || (size_t)s->labels[i] > nlab ||
		    (i > 0 && s->labels[i] <= s->labels[i - 1]))
			return het_error_set(err, HET_EINVAL,
			    "labels[%zu] = %ld: labels must increase strictly "
			    "within 1..%zu", i, s->labels[i], nlab);
	if (s->labels == NULL && s->nbins > nlab)
		return het_error_set(err, HET_EINVAL,
		    "%zu matrices but only %zu bin labels", s->nbins, nlab);
	if (s->frames < 2 || s->frames > 1000000)
		return het_error_set(err, HET_EINVAL,
		    "frames = %zu; a two-time matrix has 2 to 1000000 frames",
		    s->frames);
	if (s->c2 == NULL && s->fill == NULL)
		return het_error_set(err, HET_EINVAL,
		    "no matrices: set c2 or fill");
	if (s->dtype != HET_DTYPE_F32 && s->dtype != HET_DTYPE_F64)
		return het_error_set(err, HET_EINVAL,
		    "dtype must be float32 or float64");
	if (s->compression != HET_COMPRESS_NONE &&
	    s->compression != HET_COMPRESS_GZIP &&
	    s->compression != HET_COMPRESS_LZF)
		return het_error_set(err, HET_EINVAL,
		    "compression must be none, gzip or lzf");
	if (s->compression == HET_COMPRESS_GZIP &&
	    (s->gzip_level < 1 || s->gzip_level > 9))
		return het_error_set(err, HET_EINVAL,
		    "gzip_level = %d; expected 1 to 9", s->gzip_level);
	if (s->stride_frame < 0 || s->avg_frame < 0)
		return het_error_set(err, HET_EINVAL,
		    "stride_frame and avg_frame must be >= 1 (0: omit)");
	return HET_OK;
}

/* ------------------------------------------------------------------ */
/* Small writes */

static int
het_wr_fail(struct het_wr *w, const char *what, struct het_error *err)
{
	char detail[256];

	het_h5_detail(detail, sizeof(detail));
	return het_error_set(err, HET_EIO, "cannot write %s to %s%s%s%s", what,
	    w->tmp, detail[0] ? " (HDF5: " : "", detail,
	    detail[0] ? ")" : "");
}

/* Write rank-0..2 data of memtype as filetype at path. */
static int
het_wr_array(struct het_wr *w, const char *path, hid_t memtype,
    hid_t filetype, int rank, const hsize_t *dims, const void *data,
    struct het_error *err)
{
	hid_t space, dset = -1;
	int rc = HET_OK;

	space = rank == 0 ? H5Screate(H5S_SCALAR) :
	    H5Screate_simple(rank, dims, NULL);
	if (space < 0 || (dset = H5Dcreate2(w->fid, path, filetype, space,
	    w->lcpl, w->dcpl, H5P_DEFAULT)) < 0 ||
	    H5Dwrite(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
		rc = het_wr_fail(w, path, err);
	if (dset >= 0)
		H5Dclose(dset);
	if (space >= 0)
		H5Sclose(space);
	return rc;
}

static hid_t
het_wr_utf8_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 ||
	    H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* A list of variable-length UTF-8 strings (n 0 means a scalar). */
static int
het_wr_strings(struct het_wr *w, const char *path, const char **s, size_t n,
    struct het_error *err)
{
	hsize_t dims[1] = { n };
	hid_t t;
	int rc;

	if ((t = het_wr_utf8_type()) < 0)
		return het_wr_fail(w, path, err);
	rc = het_wr_array(w, path, t, t, n == 0 ? 0 : 1, dims, s, err);
	H5Tclose(t);
	return rc;
}

/* One scalar attribute on an open object. */
static int
het_wr_attr(hid_t obj, const char *name, hid_t filetype, hid_t memtype,
    const void *data)
{
	hid_t sp, a = -1;
	int rc = -1;

	if ((sp = H5Screate(H5S_SCALAR)) >= 0 &&
	    (a = H5Acreate2(obj, name, filetype, sp, H5P_DEFAULT,
	    H5P_DEFAULT)) >= 0 && H5Awrite(a, memtype, data) >= 0)
		rc = 0;
	if (a >= 0)
		H5Aclose(a);
	if (sp >= 0)
		H5Sclose(sp);
	return rc;
}

/* Attributes name, unit (UTF-8) and size (int64) of a v_list dataset. */
static int
het_wr_vlist_attrs(struct het_wr *w, const char *path, const char *name,
    const char *unit, int64_t size, struct het_error *err)
{
	hid_t dset, t = -1;
	int rc = HET_OK;

	if ((dset = H5Dopen2(w->fid, path, H5P_DEFAULT)) < 0 ||
	    (t = het_wr_utf8_type()) < 0 ||
	    het_wr_attr(dset, "name", t, t, &name) < 0 ||
	    het_wr_attr(dset, "unit", t, t, &unit) < 0 ||
	    het_wr_attr(dset, "size", H5T_STD_I64LE, H5T_NATIVE_INT64,
	    &size) < 0)
		rc = het_wr_fail(w, path, err);
	if (t >= 0)
		H5Tclose(t);
	if (dset >= 0)
		H5Dclose(dset);
	return rc;
}

/*
 * Every group, created up front without timestamps: libhdf5 stamps
 * objects with their creation time by default, and the same spec must
 * give the same bytes (`hetui simulate --seed` relies on it).
 */
static int
het_wr_groups(struct het_wr *w, struct het_error *err)
{
	const char *const groups[] = { "/xpcs", "/xpcs/qmap", "/xpcs/twotime",
	    HET_APSU_C2, "/xpcs/twotime/config", "/entry",
	    "/entry/instrument", "/entry/instrument/detector_1",
	    "/entry/instrument/incident_beam" };
	hid_t gcpl, gid;
	size_t i;
	int rc = HET_OK;

	if ((gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 ||
	    H5Pset_obj_track_times(gcpl, 0) < 0) {
		if (gcpl >= 0)
			H5Pclose(gcpl);
		return het_wr_fail(w, "the groups", err);
	}
	for (i = 0; i < HET_ARRAY_LEN(groups) && rc == HET_OK; i++) {
		if ((gid = H5Gcreate2(w->fid, groups[i], H5P_DEFAULT, gcpl,
		    H5P_DEFAULT)) < 0)
			rc = het_wr_fail(w, groups[i], err);
		else
			H5Gclose(gid);
	}
	H5Pclose(gcpl);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The q map */

static int
het_wr_qmap(struct het_wr *w, struct het_error *err)
{
	const struct het_apsu_spec *s = w->spec;
	const char *names[2] = { "q", "phi" };
	const char *units[2] = { HET_WR_UNIT_Q, "deg" };
	size_t cells = s->n_q * s->n_phi, n, i;
	int64_t pts[2], *map;
	hsize_t dims[1];
	hid_t ftype;
	int rc;

	dims[0] = s->n_q;
	if ((rc = het_wr_array(w, HET_APSU_QLIST, H5T_NATIVE_DOUBLE,
	    H5T_IEEE_F64LE, 1, dims, s->q, err)) != HET_OK ||
	    (rc = het_wr_vlist_attrs(w, HET_APSU_QLIST, "q", HET_WR_UNIT_Q,
	    (int64_t)s->n_q, err)) != HET_OK)
		return rc;
	dims[0] = s->n_phi;
	if ((rc = het_wr_array(w, HET_APSU_PHILIST, H5T_NATIVE_DOUBLE,
	    H5T_IEEE_F64LE, 1, dims, s->phi, err)) != HET_OK ||
	    (rc = het_wr_vlist_attrs(w, HET_APSU_PHILIST, "phi", "deg",
	    (int64_t)s->n_phi, err)) != HET_OK)
		return rc;
	pts[0] = (int64_t)s->n_q;
	pts[1] = (int64_t)s->n_phi;
	dims[0] = 2;
	if ((rc = het_wr_array(w, HET_APSU_NUMPTS, H5T_NATIVE_INT64,
	    H5T_STD_I64LE, 1, dims, pts, err)) != HET_OK)
		return rc;
	n = s->index_mapping != NULL ? s->n_mapping : cells;
	map = het_alloc_array(n, sizeof(*map), "index mapping", err);
	if (map == NULL)
		return HET_ENOMEM;
	for (i = 0; i < n; i++)
		map[i] = s->index_mapping != NULL ? s->index_mapping[i] :
		    (int64_t)i;
	/* pySimpleMask stores the smallest unsigned type that fits. */
	ftype = cells <= 65536 ? H5T_STD_U16LE : H5T_STD_I64LE;
	dims[0] = n;
	rc = het_wr_array(w, HET_APSU_MAPPING, H5T_NATIVE_INT64, ftype, 1, dims,
	    map, err);
	free(map);
	if (rc != HET_OK ||
	    (rc = het_wr_strings(w, "/xpcs/qmap/map_names", names, 2, err)) !=
	    HET_OK)
		return rc;
	return het_wr_strings(w, "/xpcs/qmap/map_units", units, 2, err);
}

/* ------------------------------------------------------------------ */
/* Matrices */

/* Fetch matrix k into w->m and check that it is finite and symmetric. */
static int
het_wr_fetch(struct het_wr *w, size_t k, struct het_error *err)
{
	const struct het_apsu_spec *s = w->spec;
	size_t n = s->frames, i, j;
	double maxabs = 0, maxdiff = 0, a, b;
	long label = s->labels != NULL ? s->labels[k] : (long)k + 1;
	int rc;

	if (s->c2 != NULL) {
		if (s->c2[k] == NULL)
			return het_error_set(err, HET_EINVAL,
			    "matrix %zu (label %ld) is missing", k, label);
		memcpy(w->m, s->c2[k], n * n * sizeof(*w->m));
	} else if ((rc = s->fill(s->fill_arg, k, w->m, err)) != HET_OK)
		return rc;
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++) {
			a = w->m[i * n + j];
			b = w->m[j * n + i];
			if (!isfinite(a) || !isfinite(b))
				return het_error_set(err, HET_EINVAL,
				    "matrix %zu (label %ld) holds a non-finite "
				    "value at frames (%zu, %zu)", k, label,
				    i + 1, j + 1);
			maxabs = fmax(maxabs, fmax(fabs(a), fabs(b)));
			maxdiff = fmax(maxdiff, fabs(a - b));
		}
	if (maxdiff > HET_C2_SYM_RTOL * maxabs)
		return het_error_set(err, HET_EINVAL,
		    "matrix %zu (label %ld) is not symmetric (max |c2[i][j] - "
		    "c2[j][i]| = %.3g); c2(t1, t2) must equal c2(t2, t1)", k,
		    label, maxdiff);
	return HET_OK;
}

static int
het_wr_matrix(struct het_wr *w, size_t k, hid_t dcpl, hid_t space,
    hid_t ftype, struct het_error *err)
{
	const struct het_apsu_spec *s = w->spec;
	size_t n = s->frames, i, j;
	hsize_t start[2], count[2];
	hid_t dset = -1, gspace = -1, mspace = -1;
	char path[96];
	int rc;

	if ((rc = het_wr_fetch(w, k, err)) != HET_OK)
		return rc;
	het_c2_lag_means(w->m, n, w->lag);
	for (i = 0; i < n; i++)
		w->col[i] = (float)w->lag[i];
	if (!s->store_full)
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				w->m[i * n + j] = 0;
	snprintf(path, sizeof(path), "%s/c2_%05zu", HET_APSU_C2, k + 1);
	start[0] = 0;
	start[1] = k;
	count[0] = n;
	count[1] = 1;
	if ((dset = H5Dcreate2(w->fid, path, ftype, space, w->lcpl, dcpl,
	    H5P_DEFAULT)) < 0 || H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL,
	    H5S_ALL, H5P_DEFAULT, w->m) < 0 ||
	    (gspace = H5Dget_space(w->g2)) < 0 ||
	    H5Sselect_hyperslab(gspace, H5S_SELECT_SET, start, NULL, count,
	    NULL) < 0 || (mspace = H5Screate_simple(2, count, NULL)) < 0 ||
	    H5Dwrite(w->g2, H5T_NATIVE_FLOAT, mspace, gspace, H5P_DEFAULT,
	    w->col) < 0)
		rc = het_wr_fail(w, path, err);
	if (mspace >= 0)
		H5Sclose(mspace);
	if (gspace >= 0)
		H5Sclose(gspace);
	if (dset >= 0)
		H5Dclose(dset);
	return rc;
}

/* The creation properties of every matrix dataset. */
static hid_t
het_wr_matrix_dcpl(const struct het_apsu_spec *s)
{
	size_t tsize = s->dtype == HET_DTYPE_F32 ? 4 : 8;
	hsize_t chunk[2];
	hid_t dcpl;

	if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0)
		return -1;
	if (H5Pset_obj_track_times(dcpl, 0) < 0) {
		H5Pclose(dcpl);
		return -1;
	}
	if (s->compression == HET_COMPRESS_NONE)
		return dcpl;
	chunk[1] = s->frames;
	chunk[0] = s->frames;
	if (s->frames * s->frames * tsize > HET_WR_CHUNK_MAX)
		chunk[0] = HET_WR_CHUNK_MAX / (s->frames * tsize);
	if (chunk[0] < 1)
		chunk[0] = 1;
	if (H5Pset_chunk(dcpl, 2, chunk) < 0 ||
	    (s->compression == HET_COMPRESS_GZIP &&
	    H5Pset_deflate(dcpl, (unsigned)s->gzip_level) < 0) ||
	    (s->compression == HET_COMPRESS_LZF &&
	    H5Pset_filter(dcpl, HET_LZF_FILTER_ID, H5Z_FLAG_OPTIONAL, 0,
	    NULL) < 0)) {
		H5Pclose(dcpl);
		return -1;
	}
	return dcpl;
}

static int
het_wr_twotime(struct het_wr *w, struct het_error *err)
{
	const struct het_apsu_spec *s = w->spec;
	hid_t dcpl = -1, space = -1, gspace = -1;
	hid_t ftype = s->dtype == HET_DTYPE_F32 ? H5T_IEEE_F32LE :
	    H5T_IEEE_F64LE;
	hsize_t dims[2];
	int32_t *labels;
	size_t k;
	int rc;

	labels = het_alloc_array(s->nbins, sizeof(*labels), "labels", err);
	if (labels == NULL)
		return HET_ENOMEM;
	for (k = 0; k < s->nbins; k++)
		labels[k] = s->labels != NULL ? (int32_t)s->labels[k] :
		    (int32_t)(k + 1);
	dims[0] = s->nbins;
	rc = het_wr_array(w, HET_APSU_BINS, H5T_NATIVE_INT32, H5T_STD_I32LE, 1,
	    dims, labels, err);
	free(labels);
	if (rc != HET_OK)
		return rc;
	dims[0] = s->frames;
	dims[1] = s->nbins;
	if ((gspace = H5Screate_simple(2, dims, NULL)) < 0 ||
	    (w->g2 = H5Dcreate2(w->fid, "/xpcs/twotime/normalized_g2",
	    H5T_IEEE_F32LE, gspace, w->lcpl, w->dcpl, H5P_DEFAULT)) < 0) {
		rc = het_wr_fail(w, "/xpcs/twotime/normalized_g2", err);
		goto out;
	}
	dims[1] = s->frames;
	if ((space = H5Screate_simple(2, dims, NULL)) < 0 ||
	    (dcpl = het_wr_matrix_dcpl(s)) < 0) {
		rc = het_wr_fail(w, "the matrix properties", err);
		goto out;
	}
	for (k = 0; k < s->nbins && rc == HET_OK; k++)
		rc = het_wr_matrix(w, k, dcpl, space, ftype, err);
out:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (space >= 0)
		H5Sclose(space);
	if (gspace >= 0)
		H5Sclose(gspace);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Instrument metadata */

static int
het_wr_number(struct het_wr *w, const char *path, double v,
    struct het_error *err)
{
	return het_wr_array(w, path, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, 0,
	    NULL, &v, err);
}

static int
het_wr_meta(struct het_wr *w, struct het_error *err)
{
	const struct het_apsu_spec *s = w->spec;
	hsize_t one[2] = { 1, 1 };
	int64_t v;
	int rc = HET_OK;

	if (isfinite(s->frame_time) && s->frame_time > 0)
		rc = het_wr_array(w, HET_APSU_FRAME_TIME, H5T_NATIVE_DOUBLE,
		    H5T_IEEE_F64LE, s->frame_time_2d ? 2 : 0, one,
		    &s->frame_time, err);
	if (rc == HET_OK && s->stride_frame > 0) {
		v = s->stride_frame;
		rc = het_wr_array(w, HET_APSU_STRIDE, H5T_NATIVE_INT64,
		    H5T_STD_I64LE, 0, NULL, &v, err);
	}
	if (rc == HET_OK && s->avg_frame > 0) {
		v = s->avg_frame;
		rc = het_wr_array(w, HET_APSU_AVG, H5T_NATIVE_INT64,
		    H5T_STD_I64LE, 0, NULL, &v, err);
	}
	if (rc == HET_OK && isfinite(s->energy_kev) && s->energy_kev > 0 &&
	    (rc = het_wr_number(w, HET_APSU_ENERGY, s->energy_kev, err)) ==
	    HET_OK)
		rc = het_wr_number(w, HET_APSU_ENERGY2, s->energy_kev, err);
	if (rc == HET_OK && isfinite(s->distance_m) && s->distance_m > 0 &&
	    (rc = het_wr_number(w, HET_APSU_DISTANCE, s->distance_m, err)) ==
	    HET_OK)
		rc = het_wr_number(w, HET_APSU_DISTANCE2, s->distance_m, err);
	return rc;
}

int
het_apsu_write(const char *path, const struct het_apsu_spec *spec,
    struct het_error *err)
{
	struct het_wr w;
	size_t n;
	int rc;

	memset(&w, 0, sizeof(w));
	w.fid = w.lcpl = w.dcpl = w.g2 = -1;
	w.spec = spec;
	if (path == NULL || path[0] == '\0' || spec == NULL)
		return het_error_set(err, HET_EINVAL,
		    "het_apsu_write: no file name or no spec");
	if ((rc = het_wr_check(spec, err)) != HET_OK) {
		het_error_prefix(err, "%s: cannot write", path);
		return rc;
	}
	if ((rc = het_h5_prepare(err)) != HET_OK)
		return rc;
	n = spec->frames;
	w.m = het_alloc_array(n * n, sizeof(*w.m), "c2 matrix", err);
	w.lag = het_alloc_array(n, sizeof(*w.lag), "lag means", err);
	w.col = het_alloc_array(n, sizeof(*w.col), "lag means", err);
	w.tmp = het_tmp_path(path, err);
	if (w.m == NULL || w.lag == NULL || w.col == NULL || w.tmp == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	w.fid = H5Fcreate(w.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (w.fid < 0) {
		rc = het_wr_fail(&w, "the file", err);
		goto out;
	}
	if ((w.lcpl = H5Pcreate(H5P_LINK_CREATE)) < 0 ||
	    H5Pset_create_intermediate_group(w.lcpl, 1) < 0 ||
	    (w.dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
	    H5Pset_obj_track_times(w.dcpl, 0) < 0) {
		rc = het_wr_fail(&w, "the file", err);
		goto out;
	}
	if ((rc = het_wr_groups(&w, err)) != HET_OK ||
	    (rc = het_wr_qmap(&w, err)) != HET_OK ||
	    (rc = het_wr_twotime(&w, err)) != HET_OK ||
	    (rc = het_wr_meta(&w, err)) != HET_OK)
		goto out;
out:
	if (w.g2 >= 0)
		H5Dclose(w.g2);
	if (w.lcpl >= 0)
		H5Pclose(w.lcpl);
	if (w.dcpl >= 0)
		H5Pclose(w.dcpl);
	if (w.fid >= 0 && H5Fclose(w.fid) < 0 && rc == HET_OK)
		rc = het_wr_fail(&w, "the end of the file", err);
	if (w.tmp != NULL) {
		if (rc == HET_OK)
			rc = het_commit_tmp(w.tmp, path, err);
		else if (w.fid >= 0)
			unlink(w.tmp);
	}
	if (rc != HET_OK && rc != HET_ENOMEM)
		het_error_prefix(err, "%s", path);
	free(w.m);
	free(w.lag);
	free(w.col);
	free(w.tmp);
	return rc;
}
