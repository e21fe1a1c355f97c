/*
 * het_dataset_read.c: reading one c2 matrix: the frame-window hyperslab
 * straight into the caller's buffer (libhdf5 converts float32 to double
 * exactly and runs the LZF or gzip filter), then the checks and repairs
 * every consumer needs: non-finite values, half or full storage, and the
 * side-band diagonal correction.
 *
 * Design: memory is the caller's n*n doubles and nothing else (libhdf5
 * holds one chunk while it decompresses), so reading bin after bin of a
 * 27 GB file never holds more than one matrix.  The triangle rule is
 * stated in het_dataset.h; it is what lets hetui read files that store
 * full symmetric matrices without doubling them, which the reference
 * loaders do not.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_h5.h"
#include "het_h5_impl.h"

/* "bin 3 (label 4, q 0.0054, phi 90, /xpcs/.../c2_00004)" */
static void
het_rd_name(const struct het_bin *b, char *buf, size_t len)
{
	snprintf(buf, len, "bin %zu (label %ld, q %.6g, phi %.6g, %s)",
	    b->index, b->label, b->q, b->phi, b->dataset);
}

static int
het_rd_hyperslab(struct het_dataset *ds, const struct het_bin *b, size_t f0,
    size_t n, double *out, struct het_error *err)
{
	hid_t dset = -1, fspace = -1, mspace = -1;
	hsize_t start[2], count[2];
	char name[512], detail[256], codec[64];
	int rc = HET_OK;

	if (ds->npy != NULL) {
		if ((rc = het_ds_read_npy(ds, b, f0, n, out, err)) != HET_OK) {
			het_rd_name(b, name, sizeof(name));
			het_error_prefix(err, "%s: %s", ds->path, name);
		}
		return rc;
	}
	start[0] = start[1] = f0;
	count[0] = count[1] = n;
	if ((dset = H5Dopen2(ds->fid, b->dataset, H5P_DEFAULT)) < 0 ||
	    (fspace = H5Dget_space(dset)) < 0 ||
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count,
	    NULL) < 0 || (mspace = H5Screate_simple(2, count, NULL)) < 0 ||
	    H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT,
	    out) < 0) {
		het_h5_detail(detail, sizeof(detail));
		het_rd_name(b, name, sizeof(name));
		if (b->compression == HET_COMPRESS_OTHER)
			snprintf(codec, sizeof(codec), "HDF5-filter-%u",
			    b->filter_id);
		else
			snprintf(codec, sizeof(codec), "%s",
			    b->compression == HET_COMPRESS_NONE ?
			    "uncompressed" : het_compress_name(b->compression));
		rc = het_error_set(err, HET_EFORMAT,
		    "%s: %s: cannot read the %s %s matrix%s%s%s; the file is "
		    "truncated or corrupt, or its compression is not "
		    "available", ds->path, name, codec,
		    het_dtype_name(b->dtype),
		    detail[0] ? " (HDF5: " : "", detail, detail[0] ? ")" : "");
	}
	if (mspace >= 0)
		H5Sclose(mspace);
	if (fspace >= 0)
		H5Sclose(fspace);
	if (dset >= 0)
		H5Dclose(dset);
	return rc;
}

/*
 * Non-finite values, then implausible ones (|c2| >= HET_C2_MAX_ABS), are
 * refused; values above HET_C2_UNUSUAL are counted into info.  The
 * zero triangle of half storage is 0, so the range is that of the data.
 */
static int
het_rd_finite(const struct het_dataset *ds, const struct het_bin *b,
    const double *m, size_t n, size_t f0, struct het_c2_info *info,
    struct het_error *err)
{
	size_t i, bad = 0, big = 0, first = 0, fbig = 0, imax = 0;
	char name[512];

	info->nunusual = 0;
	for (i = 0; i < n * n; i++) {
		if (!isfinite(m[i])) {
			if (bad++ == 0)
				first = i;
			continue;
		}
		if (fabs(m[i]) >= HET_C2_MAX_ABS && big++ == 0)
			fbig = i;
		if (m[i] > HET_C2_UNUSUAL)
			info->nunusual++;
		if (m[i] > m[imax] || !isfinite(m[imax]))
			imax = i;
	}
	info->maxval = m[imax];
	info->max_i = f0 + imax / n + 1;
	info->max_j = f0 + imax % n + 1;
	if (bad == 0 && big == 0)
		return HET_OK;
	het_rd_name(b, name, sizeof(name));
	if (bad == 0)
		return het_error_set(err, HET_EDATA,
		    "%s: %s: %zu of the %zu values in frames %zu..%zu are "
		    "outside the plausible range |c2| < %g (the first, %g, at "
		    "frames (%zu, %zu)); a normalised correlation is near 1, "
		    "so the data are damaged or not c2: exclude the bin or "
		    "check how the file was written", ds->path, name, big,
		    n * n, f0 + 1, f0 + n, HET_C2_MAX_ABS, m[fbig],
		    f0 + fbig / n + 1, f0 + fbig % n + 1);
	return het_error_set(err, HET_EDATA,
	    "%s: %s: %zu of the %zu values in frames %zu..%zu are NaN or Inf "
	    "(the first at frames (%zu, %zu)); exclude the bin or choose a "
	    "frame window without them", ds->path, name, bad, n * n, f0 + 1,
	    f0 + n, f0 + first / n + 1, f0 + first % n + 1);
}

/* Classify the stored window (rule: het_dataset.h) and mirror it full. */
static int
het_rd_rebuild(const struct het_dataset *ds, const struct het_bin *b,
    double *m, size_t n, size_t f0, struct het_c2_info *info,
    struct het_error *err)
{
	size_t i, j, wi = 0, wj = 0;
	int lower = 0, upper = 0;
	double maxabs = 0, maxdiff = 0, d;
	char name[512];

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (fabs(m[i * n + j]) > maxabs)
				maxabs = fabs(m[i * n + j]);
			if (j < i && m[i * n + j] != 0)
				lower = 1;
			else if (j > i && m[i * n + j] != 0)
				upper = 1;
		}
	info->asymmetry = 0;
	if (!lower)
		info->tri = HET_TRI_UPPER;
	else if (!upper)
		info->tri = HET_TRI_LOWER;
	else {
		info->tri = HET_TRI_FULL;
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				d = fabs(m[i * n + j] - m[j * n + i]);
				if (d > maxdiff) {
					maxdiff = d;
					wi = i;
					wj = j;
				}
			}
		info->asymmetry = maxdiff / maxabs;
		if (info->asymmetry > HET_C2_SYM_RTOL) {
			het_rd_name(b, name, sizeof(name));
			return het_error_set(err, HET_EFORMAT,
			    "%s: %s: both triangles of the matrix hold data "
			    "but they differ by up to %.3g (%.3g%% of the "
			    "largest value, at frames (%zu, %zu)); hetui reads "
			    "half matrices (one triangle, the other zero) or "
			    "full symmetric ones", ds->path, name, maxdiff,
			    100 * info->asymmetry, f0 + wi + 1, f0 + wj + 1);
		}
	}
	/*
	 * M + M^T - diag(M) is a plain mirror when one triangle is zero; for
	 * full storage the upper triangle is kept, so a full file and its
	 * triu() give the same matrix.
	 */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (info->tri == HET_TRI_LOWER)
				m[i * n + j] = m[j * n + i];
			else
				m[j * n + i] = m[i * n + j];
		}
	return HET_OK;
}

void
het_c2_correct_diagonal(double *c2, size_t n)
{
	size_t i;

	if (n < 2)
		return;
	c2[0] = c2[1];
	c2[(n - 1) * n + n - 1] = c2[(n - 2) * n + n - 1];
	for (i = 1; i + 1 < n; i++)
		c2[i * n + i] = (c2[(i - 1) * n + i] + c2[i * n + i + 1]) / 2;
}

void
het_c2_lag_means(const double *c2, size_t n, double *g)
{
	size_t i, k;
	double s;

	for (k = 0; k < n; k++) {
		s = 0;
		for (i = 0; i + k < n; i++)
			s += c2[i * n + i + k];
		g[k] = s / (double)(n - k);
	}
}

int
het_dataset_read_c2(struct het_dataset *ds, size_t bin, long first,
    long last, double *out, struct het_c2_info *info, struct het_error *err)
{
	struct het_c2_info local;
	const struct het_bin *b;
	long frames;
	size_t n, f0;
	int rc;

	het_h5_quiet_thread();
	if (ds == NULL || out == NULL)
		return het_error_set(err, HET_EINVAL,
		    "het_dataset_read_c2: no dataset or no output buffer");
	if (bin >= ds->info.nbins)
		return het_error_set(err, HET_EINVAL,
		    "%s: bin %zu does not exist; the file has bins 0 to %zu",
		    ds->path, bin, ds->info.nbins - 1);
	b = &ds->bins[bin];
	frames = (long)b->frames;
	if (first == 0 && last == 0) {
		first = 1;
		last = frames;
	}
	if (first < 1 || last > frames || first > last || last - first < 1)
		return het_error_set(err, HET_ERANGE,
		    "%s: frame window %ld..%ld is not valid for %s: frames are "
		    "numbered 1 to %ld and a window needs at least 2",
		    ds->path, first, last, b->dataset, frames);
	n = (size_t)(last - first + 1);
	f0 = (size_t)(first - 1);
	if (info == NULL)
		info = &local;
	if ((rc = het_rd_hyperslab(ds, b, f0, n, out, err)) != HET_OK ||
	    (rc = het_rd_finite(ds, b, out, n, f0, info, err)) != HET_OK ||
	    (rc = het_rd_rebuild(ds, b, out, n, f0, info, err)) != HET_OK)
		return rc;
	het_c2_correct_diagonal(out, n);
	return HET_OK;
}
