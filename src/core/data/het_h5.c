/*
 * het_h5.c: HDF5 library set-up and the small helpers every reader and
 * writer of the core shares: path probing that never trips over missing
 * intermediate groups, metadata of a dataset (shape, type, filters), and
 * reads of small numeric arrays and single numbers into doubles.
 *
 * Design: each helper opens what it needs and closes it on every path
 * through one cleanup label, so a failure can never leak an hid_t.  HDF5's
 * own error stack is not printed (het_h5_quiet_thread); the most specific
 * message on it is copied into our error text where it helps (a truncated
 * file says so).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "het_dataset.h"
#include "het_h5.h"
#include "het_h5_impl.h"
#include "het_lzf.h"
#include "het_util.h"

void
het_h5_quiet_thread(void)
{
	/* Error stacks are per thread in the thread-safe build (§6.4). */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int
het_h5_prepare(struct het_error *err)
{
	het_h5_quiet_thread();
	return het_lzf_register(err);
}

int
het_h5_library_init(struct het_error *err)
{
	/*
	 * No clean-up at exit: when H5Fclose fails to flush (ENOSPC on a
	 * full disk), HDF5 1.10 keeps the half-closed file in its ID table
	 * and its atexit handler (H5_term_library -> H5F__close_cb)
	 * dereferences freed memory.  Every file hetui writes is closed
	 * explicitly, so nothing is lost; this must precede H5open.
	 */
	(void)H5dont_atexit();
	if (H5open() < 0)
		return het_error_set(err, HET_EINTERNAL,
		    "cannot initialise the HDF5 library");
	return het_h5_prepare(err);
}

struct het_h5_walk {
	char	*buf;
	size_t	 len;
};

static herr_t
het_h5_walk_cb(unsigned n, const H5E_error2_t *e, void *arg)
{
	struct het_h5_walk *w = arg;

	/* Walking upward, entry 0 is where the error was first detected. */
	if (n == 0 && e->desc != NULL && e->desc[0] != '\0')
		snprintf(w->buf, w->len, "%s", e->desc);
	return 0;
}

void
het_h5_detail(char *buf, size_t len)
{
	struct het_h5_walk w = { buf, len };

	char *p;

	if (len == 0)
		return;
	buf[0] = '\0';
	(void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, het_h5_walk_cb, &w);
	/* one line: libhdf5 puts ctime()'s newline inside write errors */
	for (p = buf; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

/* What the group containing `prefix` is: GROUP when it opens as one. */
static enum het_h5_kind
het_h5_parent_kind(hid_t loc, const char *prefix)
{
	char parent[1024];
	char *slash;
	H5I_type_t t;
	hid_t obj;

	snprintf(parent, sizeof(parent), "%s", prefix);
	if ((slash = strrchr(parent, '/')) == NULL)
		return HET_H5_BROKEN;
	if (slash == parent)
		slash[1] = '\0';	/* the root group */
	else
		*slash = '\0';
	if ((obj = H5Oopen(loc, parent, H5P_DEFAULT)) < 0)
		return HET_H5_BROKEN;
	t = H5Iget_type(obj);
	H5Oclose(obj);
	return t == H5I_GROUP ? HET_H5_GROUP : HET_H5_OTHER;
}

enum het_h5_kind
het_h5_kind(hid_t loc, const char *path)
{
	char prefix[1024];
	enum het_h5_kind kind;
	const char *p;
	H5I_type_t t;
	H5L_info_t li;
	htri_t ex;
	hid_t obj;
	size_t len;

	len = strlen(path);
	if (len == 0 || len >= sizeof(prefix))
		return HET_H5_MISSING;
	/*
	 * H5Lexists fails, not answers "no", when a parent is missing, so
	 * walk down.  It also fails when the group it looks in cannot be
	 * read; that is damage, unless the parent is simply not a group.
	 */
	for (p = path + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		memcpy(prefix, path, (size_t)(p - path));
		prefix[p - path] = '\0';
		if ((ex = H5Lexists(loc, prefix, H5P_DEFAULT)) == 0)
			return HET_H5_MISSING;
		if (ex < 0)
			return het_h5_parent_kind(loc, prefix) == HET_H5_GROUP ?
			    HET_H5_BROKEN : HET_H5_MISSING;
		if (*p == '\0')
			break;
	}
	obj = H5Oopen(loc, path, H5P_DEFAULT);
	if (obj < 0) {
		/*
		 * A soft or external link that leads nowhere is absent; a
		 * hard link names an object that exists, so failing to open
		 * it means its header is damaged.
		 */
		if (H5Lget_info(loc, path, &li, H5P_DEFAULT) >= 0 &&
		    li.type != H5L_TYPE_HARD)
			return HET_H5_MISSING;
		return HET_H5_BROKEN;
	}
	t = H5Iget_type(obj);
	kind = t == H5I_GROUP ? HET_H5_GROUP :
	    t == H5I_DATASET ? HET_H5_DATASET : HET_H5_OTHER;
	H5Oclose(obj);
	return kind;
}

static void
het_h5_filters(hid_t dcpl, struct het_h5_dsinfo *info)
{
	unsigned int flags, cd[8];
	size_t ncd;
	int i, nf;
	H5Z_filter_t id;

	nf = H5Pget_nfilters(dcpl);
	for (i = 0; i < nf; i++) {
		ncd = HET_ARRAY_LEN(cd);
		id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0,
		    NULL, NULL);
		if (id == H5Z_FILTER_SHUFFLE)
			info->shuffle = 1;
		else if (id == H5Z_FILTER_DEFLATE) {
			info->compression = HET_COMPRESS_GZIP;
			info->level = ncd > 0 ? (int)cd[0] : -1;
		} else if (id == HET_LZF_FILTER_ID)
			info->compression = HET_COMPRESS_LZF;
		else if (id == H5Z_FILTER_FLETCHER32 ||
		    id == H5Z_FILTER_NBIT || id == H5Z_FILTER_SCALEOFFSET)
			continue;	/* checksums and packing, not codecs */
		else if (id >= 0 && info->compression == HET_COMPRESS_NONE) {
			info->compression = HET_COMPRESS_OTHER;
			info->filter_id = (unsigned int)id;
		}
	}
}

/*
 * A chunk far larger than its whole dataset is a damaged header: libhdf5
 * would allocate the chunk's size to read it (a 24 KB file asked for
 * 1.8 GB to read a 3-value vector, found by fuzzing).  Chunks up to
 * HET_H5_CHUNK_SLACK times the dataset, or up to HET_H5_CHUNK_FREE bytes,
 * are accepted (writers may round chunks up).
 */
#define HET_H5_CHUNK_SLACK	4.0
#define HET_H5_CHUNK_FREE	(64.0 * 1024 * 1024)

static int
het_h5_chunk_plausible(const struct het_h5_dsinfo *info, const char *path,
    struct het_error *err)
{
	double chunk = (double)info->tsize, whole = (double)info->tsize;
	int i;

	for (i = 0; i < info->rank; i++) {
		chunk *= (double)info->chunk[i];
		whole *= (double)info->dims[i];
	}
	if (chunk <= HET_H5_CHUNK_FREE || chunk <= HET_H5_CHUNK_SLACK *
	    whole)
		return HET_OK;
	return het_error_set(err, HET_EFORMAT, "%s: its chunks would take "
	    "%.3g bytes each for a dataset of %.3g bytes: the file's header "
	    "is damaged; nothing of it was read (re-export or re-copy the "
	    "file)", path, chunk, whole);
}

int
het_h5_describe(hid_t dset, const char *path, struct het_h5_dsinfo *info,
    struct het_error *err)
{
	hid_t space = -1, type = -1, dcpl = -1;
	H5D_layout_t layout;
	int rc = HET_OK, i;

	memset(info, 0, sizeof(*info));
	info->level = -1;
	info->compression = HET_COMPRESS_NONE;
	if ((space = H5Dget_space(dset)) < 0 ||
	    (type = H5Dget_type(dset)) < 0 ||
	    (dcpl = H5Dget_create_plist(dset)) < 0) {
		rc = het_error_set(err, HET_EFORMAT,
		    "%s: cannot read the dataset's shape, type or creation "
		    "properties", path);
		goto out;
	}
	info->rank = H5Sget_simple_extent_ndims(space);
	if (info->rank < 0 || info->rank > H5S_MAX_RANK ||
	    H5Sget_simple_extent_dims(space, info->dims, NULL) < 0) {
		rc = het_error_set(err, HET_EFORMAT,
		    "%s: cannot read the dataset's shape", path);
		goto out;
	}
	info->tclass = H5Tget_class(type);
	info->tsize = H5Tget_size(type);
	/* A number wider than 16 bytes is a damaged type header: libhdf5
	   would allocate count times it to convert (1.8 GB asked for a
	   3-value vector of a 24 KB file, found by fuzzing). */
	if ((info->tclass == H5T_INTEGER || info->tclass == H5T_FLOAT) &&
	    (info->tsize == 0 || info->tsize > 16)) {
		rc = het_error_set(err, HET_EFORMAT, "%s: its numbers are "
		    "stored %zu bytes wide (at most 16 exist): the file's "
		    "header is damaged; nothing of it was read (re-export or "
		    "re-copy the file)", path, info->tsize);
		goto out;
	}
	layout = H5Pget_layout(dcpl);
	info->storage = layout == H5D_CHUNKED ? HET_STORE_CHUNKED :
	    layout == H5D_COMPACT ? HET_STORE_COMPACT : HET_STORE_CONTIGUOUS;
	if (layout == H5D_CHUNKED) {
		if (H5Pget_chunk(dcpl, H5S_MAX_RANK, info->chunk) < 0)
			for (i = 0; i < H5S_MAX_RANK; i++)
				info->chunk[i] = 0;
		het_h5_filters(dcpl, info);
		rc = het_h5_chunk_plausible(info, path, err);
	}
out:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	return rc;
}

void
het_h5_shape_str(const struct het_h5_dsinfo *info, char *buf, size_t len)
{
	size_t used;
	int i;

	snprintf(buf, len, "(");
	for (i = 0; i < info->rank; i++) {
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%llu", i > 0 ? ", " : "",
		    (unsigned long long)info->dims[i]);
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, ")");
}

int
het_h5_broken(const char *path, struct het_error *err)
{
	char detail[256];

	het_h5_detail(detail, sizeof(detail));
	return het_error_set(err, HET_EFORMAT, "%s is in the file but cannot "
	    "be read%s%s: the object is damaged; copy the file again from "
	    "where it was written, or recover it with h5repack or h5clear",
	    path, detail[0] ? ": " : "", detail);
}

/*
 * The numeric dataset at path into doubles: the body of
 * het_h5_read_vector (list: rank <= 2 with at most one dimension above
 * 1) and het_h5_read_array (any rank <= 2).
 */
static int
het_h5_read_numeric(hid_t file, const char *path, size_t max_n, int list,
    double **out, size_t *n, struct het_h5_dsinfo *info,
    struct het_error *err)
{
	char detail[256], shape[128];
	hid_t dset = -1;
	size_t count = 1, big = 0;
	double *v = NULL;
	int rc = HET_OK, i;

	*out = NULL;
	*n = 0;
	switch (het_h5_kind(file, path)) {
	case HET_H5_DATASET:
		break;
	case HET_H5_MISSING:
		return het_error_set(err, HET_ENOTFOUND, "%s is missing",
		    path);
	case HET_H5_BROKEN:
		return het_h5_broken(path, err);
	default:
		return het_error_set(err, HET_EFORMAT,
		    "%s is not a dataset", path);
	}
	if ((dset = H5Dopen2(file, path, H5P_DEFAULT)) < 0) {
		het_h5_detail(detail, sizeof(detail));
		rc = het_error_set(err, HET_EFORMAT, "%s cannot be opened%s%s",
		    path, detail[0] ? ": " : "", detail);
		goto out;
	}
	if ((rc = het_h5_describe(dset, path, info, err)) != HET_OK)
		goto out;
	if (info->tclass != H5T_INTEGER && info->tclass != H5T_FLOAT) {
		rc = het_error_set(err, HET_EFORMAT,
		    "%s does not hold numbers (HDF5 type class %d)", path,
		    (int)info->tclass);
		goto out;
	}
	for (i = 0; i < info->rank; i++) {
		count *= (size_t)info->dims[i];
		if (info->dims[i] > 1)
			big++;
	}
	if (info->rank > 2 || (list && big > 1)) {
		het_h5_shape_str(info, shape, sizeof(shape));
		rc = het_error_set(err, HET_EFORMAT,
		    "%s has shape %s; expected a %s", path, shape, list ?
		    "list of values" : "table of at most two dimensions");
		goto out;
	}
	if (count == 0 || count > max_n) {
		rc = het_error_set(err, HET_EFORMAT,
		    "%s holds %zu values; expected 1 to %zu", path, count,
		    max_n);
		goto out;
	}
	v = het_alloc_array(count, sizeof(*v), path, err);
	if (v == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    v) < 0) {
		het_h5_detail(detail, sizeof(detail));
		rc = het_error_set(err, HET_EFORMAT, "%s cannot be read%s%s",
		    path, detail[0] ? ": " : "", detail);
		goto out;
	}
	*out = v;
	*n = count;
	v = NULL;
out:
	free(v);
	if (dset >= 0)
		H5Dclose(dset);
	return rc;
}

int
het_h5_read_vector(hid_t file, const char *path, size_t max_n,
    double **out, size_t *n, struct het_error *err)
{
	struct het_h5_dsinfo info;

	return het_h5_read_numeric(file, path, max_n, 1, out, n, &info, err);
}

int
het_h5_read_array(hid_t file, const char *path, size_t max_n,
    double **out, struct het_h5_dsinfo *info, struct het_error *err)
{
	size_t n;

	return het_h5_read_numeric(file, path, max_n, 0, out, &n, info, err);
}

int
het_h5_read_number(hid_t file, const char *path, double *out,
    struct het_error *err)
{
	double *v;
	size_t n;
	int rc;

	rc = het_h5_read_vector(file, path, 1, &v, &n, err);
	if (rc != HET_OK)
		return rc;
	*out = v[0];
	free(v);
	return HET_OK;
}

int
het_h5_attr_string(hid_t file, const char *path, const char *name,
    char *buf, size_t len)
{
	hid_t obj = -1, attr = -1, type = -1, mem = -1;
	char *vs = NULL, *fixed = NULL;
	size_t size;
	int rc = -1;

	if (len == 0)
		return -1;
	buf[0] = '\0';
	if ((obj = H5Oopen(file, path, H5P_DEFAULT)) < 0 ||
	    H5Aexists(obj, name) <= 0 ||
	    (attr = H5Aopen(obj, name, H5P_DEFAULT)) < 0 ||
	    (type = H5Aget_type(attr)) < 0 || H5Tget_class(type) != H5T_STRING)
		goto out;
	if (H5Tis_variable_str(type) > 0) {
		if ((mem = H5Tcopy(H5T_C_S1)) < 0 ||
		    H5Tset_size(mem, H5T_VARIABLE) < 0 ||
		    H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
		    H5Aread(attr, mem, &vs) < 0 || vs == NULL)
			goto out;
		snprintf(buf, len, "%s", vs);
		rc = 0;
	} else {
		size = H5Tget_size(type);
		if (size == 0 || size > 4096 ||
		    (fixed = calloc(1, size + 1)) == NULL ||
		    (mem = H5Tcopy(type)) < 0 || H5Aread(attr, mem, fixed) < 0)
			goto out;
		snprintf(buf, len, "%s", fixed);
		rc = 0;
	}
out:
	if (vs != NULL)
		H5free_memory(vs);
	free(fixed);
	if (mem >= 0)
		H5Tclose(mem);
	if (type >= 0)
		H5Tclose(type);
	if (attr >= 0)
		H5Aclose(attr);
	if (obj >= 0)
		H5Oclose(obj);
	return rc;
}
