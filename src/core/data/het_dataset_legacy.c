/*
 * het_dataset_legacy.c: the legacy APS 8-ID-I layout (xpcs-eigen and the
 * Matlab GUI), docs: xpcs-data-formats.md §1.2, §2.4 and §5.2.
 *
 * Pairing: each matrix /exchange/C2T_all/g2_NNNNN (c2_NNNNN in some
 * fixtures) is bin label NNNNN, whose q and phi are dqlist[NNNNN-1] and
 * dphilist[NNNNN-1].  Real files hold matrices only for the bins in
 * qphi_bin_to_process, so the number in the name is the only reliable
 * link; the reference loaders pair by listing position and silently
 * misalign such files.
 *
 * Legacy files carry no separate q and phi axes, so q_list and phi_list
 * are the distinct values of dqlist and dphilist (sorted; values closer
 * than 1e-9, relative above 1, are one ring or one sector), and each
 * bin's q_idx and phi_idx point into them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_h5_impl.h"
#include "het_util.h"

#define HET_LEG_SAME_RTOL 1e-9

static int
het_leg_same(double a, double b)
{
	/* Relative above 1, absolute (1e-9 of a degree or 1/A) below. */
	return fabs(a - b) <= HET_LEG_SAME_RTOL *
	    fmax(1.0, fmax(fabs(a), fabs(b)));
}


static int
het_leg_cmp_key(const void *a, const void *b)
{
	long x = ((const struct het_ds_key *)a)->number;
	long y = ((const struct het_ds_key *)b)->number;

	return x < y ? -1 : x > y;
}

/* Sorted distinct values of v into a new array. */
static int
het_leg_distinct(const double *v, size_t n, double **out, size_t *nout,
    struct het_error *err)
{
	double *d;
	size_t i, m = 0;

	d = het_alloc_array(n, sizeof(*d), "distinct bin centres", err);
	if (d == NULL)
		return HET_ENOMEM;
	memcpy(d, v, n * sizeof(*d));
	qsort(d, n, sizeof(*d), het_cmp_double);
	for (i = 0; i < n; i++)
		if (m == 0 || !het_leg_same(d[i], d[m - 1]))
			d[m++] = d[i];
	*out = d;
	*nout = m;
	return HET_OK;
}

/* Index of the distinct value equal to x (it is always there). */
static size_t
het_leg_index(const double *d, size_t n, double x)
{
	size_t i, best = 0;

	for (i = 0; i < n; i++)
		if (fabs(d[i] - x) < fabs(d[best] - x))
			best = i;
	return best;
}

static int
het_leg_read_lists(struct het_dataset *ds, double **dq, double **dphi,
    size_t *n, struct het_error *err)
{
	size_t nphi, i;
	int rc;

	rc = het_h5_read_vector(ds->fid, HET_LEG_QLIST, HET_DS_MAX_LIST, dq, n,
	    err);
	if (rc != HET_OK)
		return rc;
	if (het_h5_kind(ds->fid, HET_LEG_PHILIST) == HET_H5_MISSING)
		return het_error_set(err, HET_EFORMAT,
		    "%s is missing; a legacy APS 8-ID-I file lists the phi of "
		    "every bin there, next to %s", HET_LEG_PHILIST,
		    HET_LEG_QLIST);
	rc = het_h5_read_vector(ds->fid, HET_LEG_PHILIST, HET_DS_MAX_LIST,
	    dphi, &nphi, err);
	if (rc != HET_OK)
		return rc;
	if (nphi != *n)
		return het_error_set(err, HET_EFORMAT,
		    "count mismatch: %s has %zu entries but %s has %zu; both "
		    "list one value per bin", HET_LEG_QLIST, *n,
		    HET_LEG_PHILIST, nphi);
	for (i = 0; i < *n; i++)
		if ((rc = het_ds_check_q(HET_LEG_QLIST, i, (*dq)[i], err)) !=
		    HET_OK || (rc = het_ds_check_phi(HET_LEG_PHILIST, i,
		    (*dphi)[i], err)) != HET_OK)
			return het_error_prefix(err, "bin label %zu", i + 1);
	return HET_OK;
}

static int
het_leg_pair(struct het_dataset *ds, const double *dq, const double *dphi,
    size_t nlist, struct het_error *err)
{
	const char *const prefixes[] = { "g2_", "c2_", NULL };
	struct het_ds_key *keys = NULL;
	size_t nkeys = 0, i;
	struct het_bin *b;
	int rc;

	rc = het_ds_list_keys(ds->fid, HET_LEG_C2, prefixes, &keys, &nkeys,
	    err);
	if (rc != HET_OK)
		return rc;
	qsort(keys, nkeys, sizeof(*keys), het_leg_cmp_key);
	for (i = 0; i < nkeys; i++) {
		if (keys[i].number < 1 || (size_t)keys[i].number > nlist) {
			rc = het_error_set(err, HET_EFORMAT,
			    "count mismatch: %s/%s names bin label %ld but %s "
			    "lists only %zu bins (labels 1 to %zu)", HET_LEG_C2,
			    keys[i].name, keys[i].number, HET_LEG_QLIST, nlist,
			    nlist);
			goto out;
		}
		if (i > 0 && keys[i].number == keys[i - 1].number) {
			rc = het_error_set(err, HET_EFORMAT,
			    "%s/%s and %s/%s are both bin label %ld",
			    HET_LEG_C2, keys[i - 1].name, HET_LEG_C2,
			    keys[i].name, keys[i].number);
			goto out;
		}
	}
	if ((rc = het_ds_alloc_bins(ds, nkeys, err)) != HET_OK)
		goto out;
	for (i = 0; i < nkeys; i++) {
		if ((rc = het_ds_set_name(ds, i, HET_LEG_C2, keys[i].name,
		    err)) != HET_OK)
			goto out;
		b = &ds->bins[i];
		b->label = keys[i].number;
		b->q = dq[b->label - 1];
		b->phi = dphi[b->label - 1];
		b->q_idx = het_leg_index(ds->q_list, ds->info.n_q, b->q);
		b->phi_idx = het_leg_index(ds->phi_list, ds->info.n_phi,
		    b->phi);
	}
out:
	het_ds_free_keys(keys, nkeys);
	return rc;
}

/* Detector distance, converted to metres when the file states a unit. */
static void
het_leg_distance(struct het_dataset *ds)
{
	struct het_dataset_info *in = &ds->info;
	char unit[64];
	double v;

	v = het_ds_read_positive(ds, HET_LEG_DISTANCE);
	if (isnan(v))
		return;
	in->distance_raw = v;
	in->distance_source = HET_LEG_DISTANCE;
	if (het_h5_attr_string(ds->fid, HET_LEG_DISTANCE, "units", unit,
	    sizeof(unit)) != 0 && het_h5_attr_string(ds->fid,
	    HET_LEG_DISTANCE, "unit", unit, sizeof(unit)) != 0)
		return;		/* unit not recorded: no guess */
	if (strcasecmp(unit, "m") == 0 || strcasecmp(unit, "meter") == 0 ||
	    strcasecmp(unit, "meters") == 0 || strcasecmp(unit, "metre") == 0 ||
	    strcasecmp(unit, "metres") == 0) {
		in->distance_unit = "m";
		in->distance_m = v;
	} else if (strcasecmp(unit, "mm") == 0 ||
	    strcasecmp(unit, "millimeter") == 0 ||
	    strcasecmp(unit, "millimeters") == 0 ||
	    strcasecmp(unit, "millimetre") == 0 ||
	    strcasecmp(unit, "millimetres") == 0) {
		in->distance_unit = "mm";
		in->distance_m = v / 1000;
	}
}

int
het_ds_load_legacy(struct het_dataset *ds, struct het_error *err)
{
	struct het_dataset_info *in = &ds->info;
	double *dq = NULL, *dphi = NULL;
	size_t nlist;
	int rc;

	if ((rc = het_leg_read_lists(ds, &dq, &dphi, &nlist, err)) !=
	    HET_OK ||
	    (rc = het_leg_distinct(dq, nlist, &ds->q_list, &in->n_q, err)) !=
	    HET_OK ||
	    (rc = het_leg_distinct(dphi, nlist, &ds->phi_list, &in->n_phi,
	    err)) != HET_OK ||
	    (rc = het_leg_pair(ds, dq, dphi, nlist, err)) != HET_OK)
		goto out;
	rc = het_ds_read_dt(ds, HET_LEG_EXPOSURE, "exposure_period",
	    HET_LEG_STRIDE, "stride_frames", HET_LEG_AVG, "avg_frames", err);
	if (rc != HET_OK)
		goto out;
	in->energy_kev = het_ds_read_positive(ds, HET_LEG_ENERGY);
	if (!isnan(in->energy_kev))
		in->energy_source = HET_LEG_ENERGY;
	het_leg_distance(ds);
out:
	free(dq);
	free(dphi);
	return rc;
}
