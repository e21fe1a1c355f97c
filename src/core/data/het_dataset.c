/*
 * het_dataset.c: opening an XPCS two-time result file: checks that it is
 * HDF5, detects the layout, lets the layout loader (het_dataset_apsu.c,
 * het_dataset_legacy.c) pair matrices with bins, then checks every matrix
 * dataset from its metadata alone: rank 2, square, at least 2 frames, the
 * same size as the others, float32 or float64.
 *
 * Design: the dataset keeps the HDF5 file open for its whole life, so the
 * reads that follow cost no re-open; everything else it holds is small
 * (one struct het_bin per matrix).  No matrix is touched here, which is
 * why `hetui inspect` on a 27 GB file takes a moment.  Every failure is
 * reported as "FILE: sentence" and leaves nothing open.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_npy.h"
#include "het_h5_impl.h"
#include "het_multitau.h"
#include "het_util.h"

const char *
het_layout_name(enum het_layout layout)
{
	switch (layout) {
	case HET_LAYOUT_APSU:
		return "aps-u";
	case HET_LAYOUT_LEGACY:
		return "aps-legacy";
	case HET_LAYOUT_NPY:
		return "npy";
	}
	return "unknown";
}

const char *
het_dtype_name(enum het_dtype dtype)
{
	switch (dtype) {
	case HET_DTYPE_F32:
		return "float32";
	case HET_DTYPE_F64:
		return "float64";
	case HET_DTYPE_MIXED:
		return "mixed";
	}
	return "unknown";
}

const char *
het_compress_name(enum het_compress c)
{
	switch (c) {
	case HET_COMPRESS_NONE:
		return "none";
	case HET_COMPRESS_GZIP:
		return "gzip";
	case HET_COMPRESS_LZF:
		return "lzf";
	case HET_COMPRESS_OTHER:
		return "other";
	case HET_COMPRESS_MIXED:
		return "mixed";
	}
	return "unknown";
}

const char *
het_h5store_name(enum het_h5store s)
{
	switch (s) {
	case HET_STORE_CONTIGUOUS:
		return "contiguous";
	case HET_STORE_CHUNKED:
		return "chunked";
	case HET_STORE_COMPACT:
		return "compact";
	}
	return "unknown";
}

const char *
het_tri_name(enum het_tri t)
{
	switch (t) {
	case HET_TRI_UPPER:
		return "upper";
	case HET_TRI_LOWER:
		return "lower";
	case HET_TRI_FULL:
		return "full";
	}
	return "unknown";
}

int
het_ds_is_integer(double v, double lo, double hi)
{
	return isfinite(v) && v == floor(v) && v >= lo && v <= hi;
}

int
het_ds_check_q(const char *path, size_t i, double q, struct het_error *err)
{
	if (isfinite(q) && q > HET_Q_MIN && q < HET_Q_MAX)
		return HET_OK;
	return het_error_set(err, HET_EFORMAT, "%s[%zu] = %g 1/A is not a "
	    "plausible wavevector: q must be finite and between %g and %g "
	    "1/A; the q map is damaged or not in 1/A, so this file cannot be "
	    "analysed as it is (rewrite its q map)", path, i, q, HET_Q_MIN,
	    HET_Q_MAX);
}

int
het_ds_check_phi(const char *path, size_t i, double phi,
    struct het_error *err)
{
	if (isfinite(phi) && fabs(phi) <= HET_PHI_MAX)
		return HET_OK;
	return het_error_set(err, HET_EFORMAT, "%s[%zu] = %g degrees is not "
	    "a plausible angle: phi must be finite and within +-%g degrees; "
	    "the q map is damaged or not in degrees, so this file cannot be "
	    "analysed as it is (rewrite its phi list)", path, i, phi,
	    HET_PHI_MAX);
}

/* ------------------------------------------------------------------ */
/* Group members named PREFIX_DIGITS */

struct het_ds_iter {
	struct het_ds_key	*keys;
	size_t			 n, cap;
	int			 nomem;
};

static herr_t
het_ds_iter_cb(hid_t group, const char *name, const H5L_info_t *linfo,
    void *arg)
{
	struct het_ds_iter *it = arg;
	struct het_ds_key *grown;
	size_t cap;

	(void)group;
	(void)linfo;
	if (it->n == HET_DS_MAX_BINS)
		return 1;	/* stop; the caller reports too many */
	if (it->n == it->cap) {
		cap = it->cap == 0 ? 64 : it->cap * 2;
		grown = realloc(it->keys, cap * sizeof(*grown));
		if (grown == NULL) {
			it->nomem = 1;
			return -1;
		}
		it->keys = grown;
		it->cap = cap;
	}
	it->keys[it->n].number = 0;
	it->keys[it->n].name = strdup(name);
	if (it->keys[it->n].name == NULL) {
		it->nomem = 1;
		return -1;
	}
	it->n++;
	return 0;
}

void
het_ds_free_keys(struct het_ds_key *keys, size_t n)
{
	size_t i;

	if (keys == NULL)
		return;
	for (i = 0; i < n; i++)
		free(keys[i].name);
	free(keys);
}

/* Number after one of the prefixes, or -1 when the name does not fit. */
static long
het_ds_key_number(const char *name, const char *const *prefixes)
{
	const char *d;
	size_t len, i;
	long v;

	for (i = 0; prefixes[i] != NULL; i++) {
		len = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], len) != 0)
			continue;
		d = name + len;
		if (*d == '\0' || strlen(d) > 9 ||
		    strspn(d, "0123456789") != strlen(d))
			return -1;
		v = strtol(d, NULL, 10);
		return v;
	}
	return -1;
}

int
het_ds_list_keys(hid_t fid, const char *group, const char *const *prefixes,
    struct het_ds_key **keys, size_t *n, struct het_error *err)
{
	struct het_ds_iter it;
	enum het_h5_kind kind;
	char full[1024];
	hsize_t idx = 0;
	hid_t gid;
	herr_t hr;
	size_t i;
	int rc = HET_OK;

	memset(&it, 0, sizeof(it));
	*keys = NULL;
	*n = 0;
	if ((gid = H5Gopen2(fid, group, H5P_DEFAULT)) < 0)
		return het_error_set(err, HET_EFORMAT,
		    "%s cannot be opened as a group", group);
	hr = H5Literate(gid, H5_INDEX_NAME, H5_ITER_INC, &idx, het_ds_iter_cb,
	    &it);
	H5Gclose(gid);
	if (it.nomem) {
		rc = het_error_set(err, HET_ENOMEM,
		    "out of memory listing %s", group);
		goto fail;
	}
	if (hr < 0) {
		rc = het_error_set(err, HET_EFORMAT,
		    "the members of %s cannot be listed; the file may be "
		    "corrupt", group);
		goto fail;
	}
	if (it.n == HET_DS_MAX_BINS) {
		rc = het_error_set(err, HET_EFORMAT,
		    "%s holds more than %d members", group, HET_DS_MAX_BINS);
		goto fail;
	}
	if (it.n == 0) {
		rc = het_error_set(err, HET_EFORMAT,
		    "%s is empty: the file holds no two-time matrix", group);
		goto fail;
	}
	for (i = 0; i < it.n; i++) {
		it.keys[i].number = het_ds_key_number(it.keys[i].name,
		    prefixes);
		snprintf(full, sizeof(full), "%s/%s", group, it.keys[i].name);
		if (it.keys[i].number < 0) {
			rc = het_error_set(err, HET_EFORMAT,
			    "%s holds '%s', which is not a matrix name; "
			    "expected %sNNNNN", group, it.keys[i].name,
			    prefixes[0]);
			goto fail;
		}
		if ((kind = het_h5_kind(fid, full)) == HET_H5_BROKEN) {
			rc = het_h5_broken(full, err);
			goto fail;
		}
		if (kind != HET_H5_DATASET) {
			rc = het_error_set(err, HET_EFORMAT,
			    "%s is not a dataset; expected one N x N matrix "
			    "per bin", full);
			goto fail;
		}
	}
	*keys = it.keys;
	*n = it.n;
	return HET_OK;
fail:
	het_ds_free_keys(it.keys, it.n);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Bins */

int
het_ds_alloc_bins(struct het_dataset *ds, size_t n, struct het_error *err)
{
	size_t k;

	ds->bins = het_alloc_array(n, sizeof(*ds->bins), "bin table", err);
	ds->names = het_alloc_array(n, sizeof(*ds->names), "bin names", err);
	if (ds->bins == NULL || ds->names == NULL)
		return HET_ENOMEM;
	ds->info.nbins = n;
	for (k = 0; k < n; k++) {
		ds->bins[k].index = k;
		ds->bins[k].level = -1;
	}
	return HET_OK;
}

int
het_ds_set_name(struct het_dataset *ds, size_t k, const char *group,
    const char *member, struct het_error *err)
{
	size_t len = strlen(group) + strlen(member) + 2;

	ds->names[k] = het_alloc_array(len, 1, "dataset name", err);
	if (ds->names[k] == NULL)
		return HET_ENOMEM;
	snprintf(ds->names[k], len, "%s/%s", group, member);
	ds->bins[k].dataset = ds->names[k];
	return HET_OK;
}

/* Fill the storage facts of bin k and check its shape and type. */
static int
het_ds_describe_bin(struct het_dataset *ds, size_t k, struct het_error *err)
{
	struct het_bin *b = &ds->bins[k];
	struct het_h5_dsinfo di;
	char detail[256], shape[128];
	hid_t dset;
	int rc;

	if ((dset = H5Dopen2(ds->fid, b->dataset, H5P_DEFAULT)) < 0) {
		het_h5_detail(detail, sizeof(detail));
		return het_error_set(err, HET_EFORMAT,
		    "%s cannot be opened%s%s", b->dataset,
		    detail[0] ? ": " : "", detail);
	}
	rc = het_h5_describe(dset, b->dataset, &di, err);
	H5Dclose(dset);
	if (rc != HET_OK)
		return rc;
	het_h5_shape_str(&di, shape, sizeof(shape));
	if (di.rank != 2)
		return het_error_set(err, HET_EFORMAT,
		    "%s (bin label %ld) has shape %s; a two-time matrix is "
		    "2-D, N x N", b->dataset, b->label, shape);
	if (di.dims[0] != di.dims[1])
		return het_error_set(err, HET_EFORMAT,
		    "%s (bin label %ld) is not square: shape %s; a two-time "
		    "matrix is N x N", b->dataset, b->label, shape);
	if (di.dims[0] < 2)
		return het_error_set(err, HET_EFORMAT,
		    "%s (bin label %ld) has shape %s; a two-time matrix needs "
		    "at least 2 frames", b->dataset, b->label, shape);
	if (di.tclass != H5T_FLOAT || (di.tsize != 4 && di.tsize != 8))
		return het_error_set(err, HET_EFORMAT,
		    "%s (bin label %ld) stores %s of %zu bytes; hetui reads "
		    "float32 and float64 matrices", b->dataset, b->label,
		    di.tclass == H5T_INTEGER ? "integers" : "values",
		    di.tsize);
	b->frames = (size_t)di.dims[0];
	b->dtype = di.tsize == 4 ? HET_DTYPE_F32 : HET_DTYPE_F64;
	b->compression = (enum het_compress)di.compression;
	b->level = di.level;
	b->filter_id = di.filter_id;
	b->shuffle = di.shuffle;
	b->storage = (enum het_h5store)di.storage;
	b->chunk[0] = (size_t)di.chunk[0];
	b->chunk[1] = (size_t)di.chunk[1];
	if (k > 0 && b->frames != ds->bins[0].frames)
		return het_error_set(err, HET_EFORMAT,
		    "%s (bin label %ld) is %zu x %zu but %s (bin label %ld) "
		    "is %zu x %zu; every matrix of a file must have the same "
		    "size", b->dataset, b->label, b->frames, b->frames,
		    ds->bins[0].dataset, ds->bins[0].label,
		    ds->bins[0].frames, ds->bins[0].frames);
	return HET_OK;
}

static int
het_ds_check_bins(struct het_dataset *ds, struct het_error *err)
{
	struct het_dataset_info *in = &ds->info;
	size_t k;
	int rc;

	for (k = 0; k < in->nbins; k++)
		if ((rc = het_ds_describe_bin(ds, k, err)) != HET_OK)
			return rc;
	in->frames = ds->bins[0].frames;
	in->dtype = ds->bins[0].dtype;
	in->compression = ds->bins[0].compression;
	for (k = 1; k < in->nbins; k++) {
		if (ds->bins[k].dtype != in->dtype)
			in->dtype = HET_DTYPE_MIXED;
		if (ds->bins[k].compression != in->compression)
			in->compression = HET_COMPRESS_MIXED;
	}
	return HET_OK;
}

/* ------------------------------------------------------------------ */
/* Metadata shared by both layouts */

double
het_ds_read_positive(struct het_dataset *ds, const char *path)
{
	double v;

	if (het_h5_kind(ds->fid, path) != HET_H5_DATASET ||
	    het_h5_read_number(ds->fid, path, &v, NULL) != HET_OK ||
	    !isfinite(v) || v <= 0)
		return NAN;
	return v;
}

/*
 * One factor of dt.  Returns 1 when present and good (*v set), 0 when
 * absent, -1 when present but unusable (why written to `why`).
 */
static int
het_ds_dt_factor(struct het_dataset *ds, const char *path, const char *name,
    int integer, double *v, char *why, size_t len)
{
	struct het_error e;

	het_error_clear(&e);
	if (het_h5_kind(ds->fid, path) == HET_H5_MISSING)
		return 0;
	if (het_h5_read_number(ds->fid, path, v, &e) != HET_OK) {
		snprintf(why, len, "none: %.400s", e.msg);
		return -1;
	}
	if (!isfinite(*v) || *v <= 0 ||
	    (integer && !het_ds_is_integer(*v, 1, 1e9))) {
		snprintf(why, len, "none: %s (%s) is %.17g, not a positive "
		    "%s", name, path, *v, integer ? "integer" : "number");
		return -1;
	}
	if (!integer && (*v < HET_DT_MIN || *v > HET_DT_MAX)) {
		snprintf(why, len, "none: %s (%s) is %g s, outside the "
		    "plausible %g to %g s of a frame time (damaged, or not in "
		    "seconds)", name, path, *v, HET_DT_MIN, HET_DT_MAX);
		return -1;
	}
	return 1;
}

int
het_ds_read_dt(struct het_dataset *ds, const char *ft_path,
    const char *ft_name, const char *stride_path, const char *stride_name,
    const char *avg_path, const char *avg_name, struct het_error *err)
{
	struct het_dataset_info *in = &ds->info;
	char src[512], why[512];
	double ft, stride = 1, avg = 1;
	int hs, ha, hf;
	size_t len;

	in->dt = NAN;
	in->frame_time = NAN;
	in->stride = 0;
	in->avg = 0;
	why[0] = '\0';
	hf = het_ds_dt_factor(ds, ft_path, ft_name, 0, &ft, why, sizeof(why));
	hs = het_ds_dt_factor(ds, stride_path, stride_name, 1, &stride, why,
	    sizeof(why));
	ha = het_ds_dt_factor(ds, avg_path, avg_name, 1, &avg, why,
	    sizeof(why));
	if (hf == 1)
		in->frame_time = ft;
	if (hs == 1)
		in->stride = (long)stride;
	if (ha == 1)
		in->avg = (long)avg;
	if (hf < 0 || hs < 0 || ha < 0)
		snprintf(src, sizeof(src), "%s", why);
	else if (hf == 0)
		snprintf(src, sizeof(src), "none");
	else if (ft * stride * avg > HET_DT_MAX) {
		snprintf(src, sizeof(src), "none: %s x %s x %s = %g s is more "
		    "than the plausible %g s", ft_name, stride_name, avg_name,
		    ft * stride * avg, HET_DT_MAX);
	} else {
		in->dt = ft * stride * avg;
		snprintf(src, sizeof(src), "file: %s%s%s%s%s", ft_name,
		    hs ? " * " : "", hs ? stride_name : "",
		    ha ? " * " : "", ha ? avg_name : "");
		len = strlen(src);
		if (!hs && !ha)
			snprintf(src + len, sizeof(src) - len,
			    " (%s and %s absent, taken as 1)", stride_name,
			    avg_name);
		else if (!hs || !ha)
			snprintf(src + len, sizeof(src) - len,
			    " (%s absent, taken as 1)",
			    !hs ? stride_name : avg_name);
	}
	ds->dt_source = het_strdup(src, err);
	if (ds->dt_source == NULL)
		return HET_ENOMEM;
	in->dt_source = ds->dt_source;
	return HET_OK;
}

/* ------------------------------------------------------------------ */
/* Open and close */

static int
het_ds_detect(struct het_dataset *ds, struct het_error *err)
{
	enum het_h5_kind aq, ac, lq, lp, lc;

	aq = het_h5_kind(ds->fid, HET_APSU_QLIST);
	ac = het_h5_kind(ds->fid, HET_APSU_C2);
	lq = het_h5_kind(ds->fid, HET_LEG_QLIST);
	lp = het_h5_kind(ds->fid, HET_LEG_PHILIST);
	lc = het_h5_kind(ds->fid, HET_LEG_C2);
	if (aq == HET_H5_BROKEN || ac == HET_H5_BROKEN || lq == HET_H5_BROKEN ||
	    lp == HET_H5_BROKEN || lc == HET_H5_BROKEN)
		return het_h5_broken(aq == HET_H5_BROKEN ? HET_APSU_QLIST :
		    ac == HET_H5_BROKEN ? HET_APSU_C2 : lq == HET_H5_BROKEN ?
		    HET_LEG_QLIST : lp == HET_H5_BROKEN ? HET_LEG_PHILIST :
		    HET_LEG_C2, err);
	if (aq == HET_H5_DATASET && ac == HET_H5_GROUP) {
		ds->info.layout = HET_LAYOUT_APSU;
		return HET_OK;
	}
	if (lq == HET_H5_DATASET && lc == HET_H5_GROUP) {
		ds->info.layout = HET_LAYOUT_LEGACY;
		return HET_OK;
	}
	if (aq == HET_H5_DATASET && ac == HET_H5_MISSING &&
	    het_h5_kind(ds->fid, HET_MT_GROUP) == HET_H5_GROUP)
		return het_error_set(err, HET_EFORMAT,
		    "the file has the APS-U q map %s but no two-time matrices "
		    "(%s is missing): it is a multitau-only result, with "
		    "g2(tau) in %s but no c2 matrix for a two-time model; "
		    "'hetui FILE' shows its g2 and their fits in the Data "
		    "panel, 'hetui inspect FILE' lists them",
		    HET_APSU_QLIST, HET_APSU_C2, HET_MT_GROUP);
	if (aq == HET_H5_DATASET && ac == HET_H5_MISSING)
		return het_error_set(err, HET_EFORMAT,
		    "the file has the APS-U q map %s but no two-time matrices "
		    "(%s is missing); is it a multitau-only result?",
		    HET_APSU_QLIST, HET_APSU_C2);
	if (ac == HET_H5_DATASET || lc == HET_H5_DATASET)
		return het_error_set(err, HET_EFORMAT,
		    "%s is a single dataset; hetui expects a group with one "
		    "N x N matrix per bin", ac == HET_H5_DATASET ?
		    HET_APSU_C2 : HET_LEG_C2);
	return het_error_set(err, HET_EFORMAT,
	    "not an XPCS two-time result file: hetui looked for %s and %s "
	    "(APS-U) and for %s, %s and %s (legacy APS 8-ID-I); found %s%s%s"
	    "%s%s%s",
	    HET_APSU_QLIST, HET_APSU_C2, HET_LEG_QLIST, HET_LEG_PHILIST,
	    HET_LEG_C2,
	    aq || ac || lq || lp || lc ? "only" : "none of them",
	    aq ? " " HET_APSU_QLIST : "", ac ? " " HET_APSU_C2 : "",
	    lq ? " " HET_LEG_QLIST : "", lp ? " " HET_LEG_PHILIST : "",
	    lc ? " " HET_LEG_C2 : "");
}


/*
 * The file access list of every read: without HDF5's file lock (HDF5 >=
 * 1.10 takes one by default), so a beamline writer that opens the file
 * for writing while hetui lists or reads it never fails because of
 * hetui, and network file systems without locks work.  H5P_DEFAULT when
 * the list cannot be made (then HDF5 locks as usual).
 */
static hid_t
het_dataset_fapl(void)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);

	if (fapl < 0)
		return H5P_DEFAULT;
	if (H5Pset_file_locking(fapl, 0, 1) < 0) {
		H5Pclose(fapl);
		return H5P_DEFAULT;
	}
	return fapl;
}

int
het_ds_open_file(struct het_dataset *ds, struct het_error *err)
{
	char detail[256];
	struct stat st;
	htri_t is;
	hid_t fapl;

	if (stat(ds->path, &st) != 0)
		return het_error_sys(err, errno, "cannot open the file");
	if (S_ISDIR(st.st_mode))
		return het_error_set(err, HET_EIO,
		    "is a directory, not a result file");
	is = H5Fis_hdf5(ds->path);
	if (is == 0)
		return het_error_set(err, HET_EFORMAT,
		    "not an HDF5 file (no HDF5 signature); hetui reads APS-U "
		    "and legacy APS 8-ID-I two-time result files");
	if (is < 0) {
		het_h5_detail(detail, sizeof(detail));
		return het_error_set(err, HET_EIO,
		    "cannot read the file%s%s", detail[0] ? ": " : "",
		    detail);
	}
	fapl = het_dataset_fapl();
	ds->fid = H5Fopen(ds->path, H5F_ACC_RDONLY, fapl);
	if (ds->fid < 0)
		het_h5_detail(detail, sizeof(detail));
	if (fapl != H5P_DEFAULT)
		H5Pclose(fapl);
	if (ds->fid < 0 && strstr(detail, "unable to lock") != NULL)
		return het_error_set(err, HET_EIO,
		    "HDF5 cannot open the file: another program holds a lock "
		    "on it (HDF5: %s); hetui reads without locking unless "
		    "HDF5_USE_FILE_LOCKING=TRUE is set in the environment",
		    detail);
	if (ds->fid < 0) {
		return het_error_set(err, HET_EFORMAT,
		    "HDF5 cannot open the file%s%s%s; it is truncated or "
		    "corrupt (an interrupted copy?)",
		    detail[0] ? " (HDF5: " : "", detail, detail[0] ? ")" : "");
	}
	return HET_OK;
}

struct het_dataset *
het_dataset_open(const char *path, struct het_error *err)
{
	return het_dataset_open_meta(path, NULL, err);
}

/* The HDF5 layouts: open, detect, load, describe the bins. */
static int
het_ds_load_h5(struct het_dataset *ds, struct het_error *err)
{
	int rc;

	if ((rc = het_h5_prepare(err)) != HET_OK ||
	    (rc = het_ds_open_file(ds, err)) != HET_OK ||
	    (rc = het_ds_detect(ds, err)) != HET_OK)
		return rc;
	if (ds->info.layout == HET_LAYOUT_APSU)
		rc = het_ds_load_apsu(ds, err);
	else
		rc = het_ds_load_legacy(ds, err);
	if (rc != HET_OK)
		return rc;
	return het_ds_check_bins(ds, err);
}

struct het_dataset *
het_dataset_open_meta(const char *path, const struct het_dataset_meta *meta,
    struct het_error *err)
{
	struct het_dataset *ds;
	int rc;

	if (path == NULL || path[0] == '\0') {
		het_error_set(err, HET_EINVAL, "no file name given");
		return NULL;
	}
	ds = calloc(1, sizeof(*ds));
	if (ds == NULL) {
		het_error_set(err, HET_ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	ds->fid = -1;
	ds->info.dt = NAN;
	ds->info.energy_kev = NAN;
	ds->info.distance_m = NAN;
	ds->info.distance_raw = NAN;
	ds->info.frame_time = NAN;
	if ((ds->path = het_strdup(path, err)) == NULL)
		goto fail;
	ds->info.path = ds->path;
	rc = het_ds_is_npy_file(path) ? het_ds_load_npy(ds, meta, err) :
	    het_ds_load_h5(ds, err);
	if (rc != HET_OK)
		goto fail;
	ds->info.q_list = ds->q_list;
	ds->info.phi_list = ds->phi_list;
	return ds;
fail:
	het_error_prefix(err, "%s", path);
	het_dataset_close(ds);
	return NULL;
}

void
het_dataset_close(struct het_dataset *ds)
{
	size_t k;

	if (ds == NULL)
		return;
	if (ds->fid >= 0)
		H5Fclose(ds->fid);
	het_npy_close(ds->npy);
	free(ds->sidecar);
	if (ds->names != NULL)
		for (k = 0; k < ds->info.nbins; k++)
			free(ds->names[k]);
	free(ds->names);
	free(ds->bins);
	free(ds->q_list);
	free(ds->phi_list);
	free(ds->dt_source);
	free(ds->path);
	free(ds);
}

const struct het_dataset_info *
het_dataset_info(const struct het_dataset *ds)
{
	return &ds->info;
}

size_t
het_dataset_nbins(const struct het_dataset *ds)
{
	return ds->info.nbins;
}

const struct het_bin *
het_dataset_bin(const struct het_dataset *ds, size_t k)
{
	if (k >= ds->info.nbins)
		return NULL;
	return &ds->bins[k];
}
