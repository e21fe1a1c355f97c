/*
 * het_multitau.c: reading the multitau g2(q, tau) of an APS-U result
 * file (het_multitau.h).
 *
 * Design: the file is opened through a bare struct het_dataset, so the
 * open, the q map (het_ds_apsu_qmap, het_ds_apsu_mapping) and the frame
 * time (het_ds_read_dt, with the multitau config's stride and average)
 * are those of the two-time loader, messages included.  Everything is
 * read whole, checked, turned bin-major and copied into the result; the
 * file is closed before returning.  A refusal names the dataset, the
 * index (delay and bin, with its q) and what would make the file
 * readable.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hdf5.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_h5_impl.h"
#include "het_multitau.h"
#include "het_util.h"

const char *
het_mt_orient_name(enum het_mt_orient o)
{
	return o == HET_MT_BIN_FIRST ? "bin_first" : "tau_first";
}

const char *
het_mt_unit_name(enum het_mt_unit u)
{
	return u == HET_MT_SECONDS ? "seconds" : "frames";
}

void
het_multitau_free(struct het_multitau *mt)
{
	if (mt == NULL)
		return;
	free(mt->path);
	free(mt->delay);
	free(mt->tau);
	free(mt->g2);
	free(mt->g2_err);
	free(mt->q_list);
	free(mt->phi_list);
	free(mt->bins);
	free(mt);
}

/* A dataset the layout requires: present and a dataset. */
static int
mt_require(hid_t fid, const char *path, const char *what,
    struct het_error *err)
{
	switch (het_h5_kind(fid, path)) {
	case HET_H5_DATASET:
		return HET_OK;
	case HET_H5_BROKEN:
		return het_h5_broken(path, err);
	case HET_H5_MISSING:
		return het_error_set(err, HET_EFORMAT, "%s is missing: the "
		    "multitau group needs %s (the file was not written "
		    "whole, or by a writer hetui does not know)", path, what);
	default:
		return het_error_set(err, HET_EFORMAT, "%s is not a dataset; "
		    "it should hold %s", path, what);
	}
}

/* The q map; a missing q list gets the multitau reader's own words. */
static int
mt_qmap(struct het_dataset *ds, double **map, size_t *nmap,
    struct het_error *err)
{
	int rc;

	if (het_h5_kind(ds->fid, HET_APSU_QLIST) == HET_H5_MISSING)
		return het_error_set(err, HET_EFORMAT, "%s is missing: the "
		    "multitau g2 has one column per q bin of the q map, and "
		    "hetui cannot tell their q without it", HET_APSU_QLIST);
	if ((rc = het_ds_apsu_qmap(ds, 1, err)) != HET_OK)
		return rc;
	return het_ds_apsu_mapping(ds, ds->info.n_q * ds->info.n_phi, map,
	    nmap, err);
}

/* Is the delay unit frames or seconds?  (The rule in het_multitau.h.) */
static int
mt_delay_unit(struct het_dataset *ds, struct het_multitau *mt,
    const struct het_h5_dsinfo *di, char *why, size_t len,
    struct het_error *err)
{
	char unit[64];
	size_t k;
	int whole = 1;

	if (het_h5_attr_string(ds->fid, HET_MT_DELAY, "unit", unit,
	    sizeof(unit)) != 0)
		(void)het_h5_attr_string(ds->fid, HET_MT_DELAY, "units", unit,
		    sizeof(unit));
	if (unit[0] != '\0') {
		if (strcasecmp(unit, "s") == 0 ||
		    strcasecmp(unit, "sec") == 0 ||
		    strcasecmp(unit, "second") == 0 ||
		    strcasecmp(unit, "seconds") == 0)
			mt->delay_unit = HET_MT_SECONDS;
		else if (strcasecmp(unit, "frame") == 0 ||
		    strcasecmp(unit, "frames") == 0)
			mt->delay_unit = HET_MT_FRAMES;
		else
			return het_error_set(err, HET_EFORMAT, "%s has the "
			    "unit attribute '%.40s', which hetui does not "
			    "read: store the delays in seconds with unit 's', "
			    "or in frames with unit 'frames'", HET_MT_DELAY,
			    unit);
		snprintf(why, len, "unit attribute '%s'", unit);
		return HET_OK;
	}
	if (di->tclass == H5T_INTEGER) {
		mt->delay_unit = HET_MT_FRAMES;
		snprintf(why, len, "integers: frame counts");
		return HET_OK;
	}
	for (k = 0; k < mt->ntau; k++)
		if (mt->delay[k] != floor(mt->delay[k]))
			whole = 0;
	mt->delay_unit = whole ? HET_MT_FRAMES : HET_MT_SECONDS;
	snprintf(why, len, whole ? "whole numbers: frame counts" :
	    "fractional values: seconds");
	return HET_OK;
}

/* delay_list: a list of finite, positive, increasing delays. */
static int
mt_read_delays(struct het_dataset *ds, struct het_multitau *mt,
    struct het_error *err)
{
	struct het_h5_dsinfo di;
	char why[96], shape[128];
	size_t k, big = 0;
	int rc, i;

	if ((rc = het_h5_read_array(ds->fid, HET_MT_DELAY, HET_DS_MAX_LIST,
	    &mt->delay, &di, err)) != HET_OK)
		return rc;
	mt->ntau = 1;
	for (i = 0; i < di.rank; i++) {
		mt->ntau *= (size_t)di.dims[i];
		big += di.dims[i] > 1;
	}
	if (big > 1) {
		het_h5_shape_str(&di, shape, sizeof(shape));
		return het_error_set(err, HET_EFORMAT, "%s has shape %s; "
		    "expected one list of delays", HET_MT_DELAY, shape);
	}
	for (k = 0; k < mt->ntau; k++) {
		if (!isfinite(mt->delay[k]) || mt->delay[k] <= 0)
			return het_error_set(err, HET_EDATA, "%s[%zu] = %g: "
			    "a delay must be a finite time after 0 (the "
			    "first multitau delay is one frame); the list is "
			    "damaged", HET_MT_DELAY, k, mt->delay[k]);
		if (k > 0 && mt->delay[k] <= mt->delay[k - 1])
			return het_error_set(err, HET_EDATA, "%s is not "
			    "increasing: entry %zu (%g) follows entry %zu "
			    "(%g); the delays of a multitau g2 grow from one "
			    "point to the next, so the list is damaged or "
			    "was sorted apart from g2", HET_MT_DELAY, k,
			    mt->delay[k], k - 1, mt->delay[k - 1]);
	}
	if ((rc = mt_delay_unit(ds, mt, &di, why, sizeof(why), err)) !=
	    HET_OK)
		return rc;
	/* the reason stays in tau_source until mt_make_tau words it */
	snprintf(mt->tau_source, sizeof(mt->tau_source), "%s", why);
	return het_ds_read_dt(ds, HET_APSU_FRAME_TIME, "frame_time",
	    HET_MT_STRIDE, "stride_frame", HET_MT_AVG, "avg_frame", err);
}

/* tau in seconds from the delays and the unit. */
static int
mt_make_tau(struct het_dataset *ds, struct het_multitau *mt,
    struct het_error *err)
{
	const struct het_dataset_info *in = &ds->info;
	char why[96];
	size_t k;

	snprintf(why, sizeof(why), "%.90s", mt->tau_source);
	mt->frame_time = in->frame_time;
	mt->stride = in->stride;
	mt->avg = in->avg;
	if (mt->delay_unit == HET_MT_SECONDS) {
		mt->t0 = 1.0;
		snprintf(mt->tau_source, sizeof(mt->tau_source), "%s in "
		    "seconds (%s)", HET_MT_DELAY, why);
	} else if (!isfinite(in->dt)) {
		return het_error_set(err, HET_EFORMAT, "%s holds frame "
		    "counts (%s) but the frame time is unknown (%s): write "
		    "the frame time in seconds to %s, or store the delays in "
		    "seconds with the attribute unit = 's'", HET_MT_DELAY,
		    why, in->dt_source, HET_APSU_FRAME_TIME);
	} else {
		mt->t0 = in->dt;
		snprintf(mt->tau_source, sizeof(mt->tau_source), "%s in "
		    "frames (%s) x %.6g s (%s)", HET_MT_DELAY, why, in->dt,
		    in->dt_source);
	}
	mt->tau = het_alloc_array(mt->ntau, sizeof(double), "delays", err);
	if (mt->tau == NULL)
		return HET_ENOMEM;
	for (k = 0; k < mt->ntau; k++)
		mt->tau[k] = mt->delay[k] * mt->t0;
	return HET_OK;
}

/* The storage_mode attribute: 0 absent, else an enum het_mt_orient. */
static int
mt_storage_mode(hid_t fid, int *mode, char *value, size_t len,
    struct het_error *err)
{
	*mode = 0;
	if (het_h5_attr_string(fid, HET_MT_G2, "storage_mode", value, len) !=
	    0)
		return HET_OK;
	if (strcmp(value, "one_array_q_first") == 0)
		*mode = HET_MT_BIN_FIRST;
	else if (strcmp(value, "one_array_q_last") == 0)
		*mode = HET_MT_TAU_FIRST;
	else
		return het_error_set(err, HET_EFORMAT, "%s has storage_mode "
		    "'%.40s'; hetui reads one array with the q bins first "
		    "('one_array_q_first') or last ('one_array_q_last')",
		    HET_MT_G2, value);
	return HET_OK;
}

/*
 * Which axis of normalized_g2 (shape rows x cols) is the delay axis: by
 * the lengths of delay_list and of the q map's bins, and storage_mode.
 */
static int
mt_orient(hid_t fid, struct het_multitau *mt, size_t rows, size_t cols,
    struct het_error *err)
{
	int tf = rows == mt->ntau && cols == mt->nbins;
	int bf = rows == mt->nbins && cols == mt->ntau;
	char mode_s[64];
	int mode, rc;

	if ((rc = mt_storage_mode(fid, &mode, mode_s, sizeof(mode_s), err)) !=
	    HET_OK)
		return rc;
	if (!tf && !bf)
		return het_error_set(err, HET_EFORMAT, "mismatched shapes: %s "
		    "is (%zu, %zu) but %s has %zu delays and the q map %zu "
		    "bins, so g2 should be (%zu, %zu) or (%zu, %zu); the "
		    "file mixes results of different analyses", HET_MT_G2,
		    rows, cols, HET_MT_DELAY, mt->ntau, mt->nbins, mt->ntau,
		    mt->nbins, mt->nbins, mt->ntau);
	if (mode != 0 && !(mode == HET_MT_TAU_FIRST ? tf : bf))
		return het_error_set(err, HET_EFORMAT, "%s says storage_mode "
		    "'%s' but its shape (%zu, %zu) has the %zu delays %s: "
		    "the attribute contradicts the data; correct or remove "
		    "it", HET_MT_G2, mode_s, rows, cols, mt->ntau,
		    tf ? "first" : "last");
	if (mode != 0) {
		mt->orient = (enum het_mt_orient)mode;
		snprintf(mt->orient_why, sizeof(mt->orient_why),
		    "storage_mode '%s'", mode_s);
		return HET_OK;
	}
	if (tf && bf)
		return het_error_set(err, HET_EFORMAT, "%s is %zu x %zu and "
		    "both %s and the q map have %zu entries, so hetui "
		    "cannot tell the delay axis from the q axis: add the "
		    "attribute storage_mode = 'one_array_q_last' (rows are "
		    "delays, as boost_corr writes) or 'one_array_q_first' "
		    "(rows are q bins) to %s, e.g. with h5py: f['%s']"
		    ".attrs['storage_mode'] = 'one_array_q_last'", HET_MT_G2,
		    rows, cols, HET_MT_DELAY, rows, HET_MT_G2, HET_MT_G2);
	mt->orient = tf ? HET_MT_TAU_FIRST : HET_MT_BIN_FIRST;
	snprintf(mt->orient_why, sizeof(mt->orient_why), "the %zu delays of "
	    "%s are its %s axis, the %zu bins of the q map the %s",
	    mt->ntau, "delay_list", tf ? "first" : "second", mt->nbins,
	    tf ? "second" : "first");
	return HET_OK;
}

/* One of the two tables as (rows, cols), a vector as one column. */
static int
mt_read_table(hid_t fid, const char *path, double **v, size_t *rows,
    size_t *cols, struct het_error *err)
{
	struct het_h5_dsinfo di;
	int rc;

	if ((rc = het_h5_read_array(fid, path, HET_DS_MAX_LIST, v, &di,
	    err)) != HET_OK)
		return rc;
	*rows = di.rank >= 1 ? (size_t)di.dims[0] : 1;
	*cols = di.rank == 2 ? (size_t)di.dims[1] : 1;
	return HET_OK;
}

/* The first bad point of a table, for the message; 0 when none. */
static size_t
mt_count_bad(const struct het_multitau *mt, const double *v, int neg,
    size_t *first)
{
	size_t i, n = 0;

	for (i = 0; i < mt->nbins * mt->ntau; i++)
		if (!isfinite(v[i]) || (neg && v[i] < 0)) {
			if (n++ == 0)
				*first = i;
		}
	return n;
}

static int
mt_bad_point(const struct het_multitau *mt, const char *path,
    const double *v, size_t i, size_t n, const char *what,
    struct het_error *err)
{
	size_t b = i / mt->ntau, k = i % mt->ntau;
	char phi[48] = "";

	if (mt->n_phi > 1)
		snprintf(phi, sizeof(phi), ", phi %.4g deg", mt->bins[b].phi);
	return het_error_set(err, HET_EDATA, "%s holds %s: %g at delay %zu "
	    "(tau %.4g s) of bin %ld (q %.5g 1/A%s); %zu such point%s in "
	    "all.  The file is damaged or the analysis did not finish: "
	    "analyse the measurement again", path, what, v[i], k,
	    mt->tau[k], mt->bins[b].label, mt->bins[b].q, phi, n,
	    n == 1 ? "" : "s");
}

/* g2 and its errors, bin-major, checked. */
static int
mt_read_g2(hid_t fid, struct het_multitau *mt, struct het_error *err)
{
	double *g = NULL, *e = NULL;
	size_t r, c, re, ce, b, k, src, first = 0, n;
	int rc;

	if ((rc = mt_read_table(fid, HET_MT_G2, &g, &r, &c, err)) != HET_OK ||
	    (rc = mt_orient(fid, mt, r, c, err)) != HET_OK ||
	    (rc = mt_read_table(fid, HET_MT_G2_ERR, &e, &re, &ce, err)) !=
	    HET_OK)
		goto out;
	if (re != r || ce != c) {
		rc = het_error_set(err, HET_EFORMAT, "mismatched shapes: %s "
		    "is (%zu, %zu) but %s is (%zu, %zu); every g2 point needs "
		    "its error", HET_MT_G2_ERR, re, ce, HET_MT_G2, r, c);
		goto out;
	}
	mt->g2 = het_alloc_array(r * c, sizeof(double), "g2", err);
	mt->g2_err = het_alloc_array(r * c, sizeof(double), "g2 errors",
	    err);
	if (mt->g2 == NULL || mt->g2_err == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (b = 0; b < mt->nbins; b++)
		for (k = 0; k < mt->ntau; k++) {
			src = mt->orient == HET_MT_TAU_FIRST ?
			    k * mt->nbins + b : b * mt->ntau + k;
			mt->g2[b * mt->ntau + k] = g[src];
			mt->g2_err[b * mt->ntau + k] = e[src];
		}
	if ((n = mt_count_bad(mt, mt->g2, 0, &first)) > 0) {
		rc = mt_bad_point(mt, HET_MT_G2, mt->g2, first, n,
		    "a value that is not a number", err);
		goto out;
	}
	if ((n = mt_count_bad(mt, mt->g2_err, 1, &first)) > 0)
		rc = mt_bad_point(mt, HET_MT_G2_ERR, mt->g2_err, first, n,
		    isfinite(mt->g2_err[first]) ? "a negative error (an "
		    "error is a standard deviation, 0 or more)" :
		    "an error that is not a number", err);
out:
	free(g);
	free(e);
	return rc;
}

/* The bins: label b + 1 in its (q, phi) cell; usable points. */
static int
mt_bins(struct het_multitau *mt, const double *map, struct het_error *err)
{
	size_t b, cell;

	mt->bins = het_alloc_array(mt->nbins, sizeof(*mt->bins), "bins",
	    err);
	if (mt->bins == NULL)
		return HET_ENOMEM;
	for (b = 0; b < mt->nbins; b++) {
		cell = map != NULL ? (size_t)map[b] : b;
		mt->bins[b].label = (long)b + 1;
		mt->bins[b].q_idx = cell / mt->n_phi;
		mt->bins[b].phi_idx = cell % mt->n_phi;
		mt->bins[b].q = mt->q_list[mt->bins[b].q_idx];
		mt->bins[b].phi = mt->phi_list[mt->bins[b].phi_idx];
	}
	return HET_OK;
}

static void
mt_count_used(struct het_multitau *mt)
{
	size_t b, k;

	for (b = 0; b < mt->nbins; b++)
		for (k = 0; k < mt->ntau; k++) {
			if (mt->g2_err[b * mt->ntau + k] > 0)
				mt->bins[b].nused++;
			else
				mt->nzero_err++;
		}
}

static int
mt_load(struct het_dataset *ds, struct het_multitau *mt,
    struct het_error *err)
{
	double *map = NULL;
	int rc;

	switch (het_h5_kind(ds->fid, HET_MT_GROUP)) {
	case HET_H5_GROUP:
		break;
	case HET_H5_MISSING:
		return het_error_set(err, HET_ENOTFOUND, "the file has no "
		    "multitau data (%s is missing)", HET_MT_GROUP);
	case HET_H5_BROKEN:
		return het_h5_broken(HET_MT_GROUP, err);
	default:
		return het_error_set(err, HET_EFORMAT, "%s is not a group",
		    HET_MT_GROUP);
	}
	mt->has_twotime = het_h5_kind(ds->fid, HET_APSU_C2) != HET_H5_MISSING;
	if ((rc = mt_require(ds->fid, HET_MT_DELAY, "the delays", err)) !=
	    HET_OK ||
	    (rc = mt_require(ds->fid, HET_MT_G2, "g2, one column per q bin",
	    err)) != HET_OK ||
	    (rc = mt_require(ds->fid, HET_MT_G2_ERR, "the errors of g2",
	    err)) != HET_OK ||
	    (rc = mt_qmap(ds, &map, &mt->nbins, err)) != HET_OK)
		goto out;
	mt->n_q = ds->info.n_q;
	mt->n_phi = ds->info.n_phi;
	mt->has_phi = het_h5_kind(ds->fid, HET_APSU_PHILIST) ==
	    HET_H5_DATASET;
	mt->q_list = ds->q_list;
	mt->phi_list = ds->phi_list;
	ds->q_list = ds->phi_list = NULL;
	if ((rc = mt_bins(mt, map, err)) != HET_OK ||
	    (rc = mt_read_delays(ds, mt, err)) != HET_OK ||
	    (rc = mt_make_tau(ds, mt, err)) != HET_OK ||
	    (rc = mt_read_g2(ds->fid, mt, err)) != HET_OK)
		goto out;
	mt_count_used(mt);
out:
	free(map);
	return rc;
}

struct het_multitau *
het_multitau_read(const char *path, struct het_error *err)
{
	struct het_multitau *mt = NULL;
	struct het_dataset *ds = NULL;
	int rc;

	if (path == NULL || path[0] == '\0') {
		het_error_set(err, HET_EINVAL, "no file name given");
		return NULL;
	}
	ds = calloc(1, sizeof(*ds));
	mt = calloc(1, sizeof(*mt));
	if (ds == NULL || mt == NULL) {
		free(ds);
		free(mt);
		het_error_set(err, HET_ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	ds->fid = -1;
	ds->info.dt = NAN;
	ds->info.frame_time = NAN;
	mt->frame_time = NAN;
	if ((ds->path = het_strdup(path, err)) == NULL ||
	    (mt->path = het_strdup(path, err)) == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	ds->info.path = ds->path;
	if ((rc = het_h5_prepare(err)) != HET_OK)
		goto out;
	if (H5Fis_hdf5(path) == 0)	/* a .npy matrix, a text file */
		rc = het_error_set(err, HET_ENOTFOUND, "not an HDF5 file, so "
		    "no multitau data (hetui reads them from APS-U result "
		    "files)");
	else if ((rc = het_ds_open_file(ds, err)) == HET_OK)
		rc = mt_load(ds, mt, err);
out:
	het_dataset_close(ds);
	if (rc != HET_OK) {
		het_error_prefix(err, "%s", path);
		het_multitau_free(mt);
		return NULL;
	}
	return mt;
}

void
het_multitau_why_not(const struct het_error *dserr,
    const struct het_error *mterr, struct het_error *out)
{
	const char *m = mterr->msg, *sep = strstr(m, ": ");
	struct het_error both;

	if (mterr->code == HET_ENOTFOUND || strcmp(dserr->msg, m) == 0) {
		*out = *dserr;
		return;
	}
	/* both start with the file name: say it once */
	if (sep != NULL && strncmp(dserr->msg, m, (size_t)(sep - m) + 2) == 0)
		m = sep + 2;
	het_error_set(&both, mterr->code, "%s; its multitau data cannot be "
	    "shown either: %s", dserr->msg, m);
	*out = both;	/* out may be dserr or mterr */
}
