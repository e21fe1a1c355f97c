/*
 * het_dataset_apsu.c: the APS-U layout (boost_corr results with a
 * pySimpleMask q map), docs: xpcs-data-formats.md §2 and §5.1.
 *
 * Pairing: the k-th matrix c2_k of /xpcs/twotime/correlation_map belongs
 * to processed_bins[k-1], a 1-based label b.  The label is a compressed
 * index: dynamic_index_mapping[b-1] is the natural cell q_idx * n_phi +
 * phi_idx.  The reference loaders skip the mapping (they use b-1), which
 * is right only when every (q, phi) cell has pixels; hetui applies it
 * whenever the file has it.  The key number k is parsed from the name,
 * not taken from the listing position, and every k in 1..n_bins must be
 * present exactly once.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_h5_impl.h"
#include "het_util.h"

static int
het_apsu_check_lists(const struct het_dataset *ds, struct het_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < ds->info.n_q; i++)
		if ((rc = het_ds_check_q(HET_APSU_QLIST, i, ds->q_list[i],
		    err)) != HET_OK)
			return rc;
	for (i = 0; i < ds->info.n_phi; i++)
		if ((rc = het_ds_check_phi(HET_APSU_PHILIST, i,
		    ds->phi_list[i], err)) != HET_OK)
			return rc;
	return HET_OK;
}

int
het_ds_apsu_qmap(struct het_dataset *ds, int phi_optional,
    struct het_error *err)
{
	struct het_dataset_info *in = &ds->info;
	enum het_h5_kind phi;
	double *pts = NULL;
	size_t npts;
	int rc;

	rc = het_h5_read_vector(ds->fid, HET_APSU_QLIST, HET_DS_MAX_LIST,
	    &ds->q_list, &in->n_q, err);
	if (rc != HET_OK)
		return rc;
	phi = het_h5_kind(ds->fid, HET_APSU_PHILIST);
	if (phi == HET_H5_MISSING && !phi_optional)
		return het_error_set(err, HET_EFORMAT,
		    "%s is missing; an APS-U q map lists the phi bin centres "
		    "there (one 0.0 for a file without phi sectors)",
		    HET_APSU_PHILIST);
	if (phi == HET_H5_MISSING) {
		/* one sector at phi 0, as pySimpleMask writes for none */
		ds->phi_list = het_alloc_array(1, sizeof(double), "phi list",
		    err);
		if (ds->phi_list == NULL)
			return HET_ENOMEM;
		ds->phi_list[0] = 0.0;
		in->n_phi = 1;
	} else if ((rc = het_h5_read_vector(ds->fid, HET_APSU_PHILIST,
	    HET_DS_MAX_LIST, &ds->phi_list, &in->n_phi, err)) != HET_OK)
		return rc;
	if ((rc = het_apsu_check_lists(ds, err)) != HET_OK)
		return rc;
	if (het_h5_kind(ds->fid, HET_APSU_NUMPTS) == HET_H5_MISSING)
		return HET_OK;
	rc = het_h5_read_vector(ds->fid, HET_APSU_NUMPTS, 16, &pts, &npts,
	    err);
	if (rc != HET_OK)
		return rc;
	if (npts != 2 || pts[0] != (double)in->n_q ||
	    pts[1] != (double)in->n_phi)
		rc = het_error_set(err, HET_EFORMAT,
		    "count mismatch: %s is [%g%s%g] but %s has %zu q values "
		    "and %s has %zu phi values", HET_APSU_NUMPTS, pts[0],
		    npts > 1 ? ", " : "", npts > 1 ? pts[1] : 0.0,
		    HET_APSU_QLIST, in->n_q, HET_APSU_PHILIST, in->n_phi);
	free(pts);
	return rc;
}

int
het_ds_apsu_mapping(struct het_dataset *ds, size_t cells, double **map,
    size_t *nmap, struct het_error *err)
{
	size_t i;
	int rc;

	*map = NULL;
	*nmap = cells;
	if (het_h5_kind(ds->fid, HET_APSU_MAPPING) == HET_H5_MISSING)
		return HET_OK;
	rc = het_h5_read_vector(ds->fid, HET_APSU_MAPPING, HET_DS_MAX_LIST,
	    map, nmap, err);
	if (rc != HET_OK)
		return rc;
	for (i = 0; i < *nmap; i++)
		if (!het_ds_is_integer((*map)[i], 0, (double)cells - 1))
			return het_error_set(err, HET_EFORMAT,
			    "%s[%zu] = %g is not a cell of the %zu x %zu q map "
			    "(expected 0 to %zu)", HET_APSU_MAPPING, i,
			    (*map)[i], ds->info.n_q, ds->info.n_phi,
			    cells - 1);
	return HET_OK;
}

/* processed_bins: labels in 1..nmap, no repeats. */
static int
het_apsu_read_labels(struct het_dataset *ds, size_t nmap, double **labels,
    size_t *n, struct het_error *err)
{
	size_t *sorted, i;
	int rc;

	if (het_h5_kind(ds->fid, HET_APSU_BINS) == HET_H5_MISSING)
		return het_error_set(err, HET_EFORMAT,
		    "%s is missing; it pairs each matrix c2_NNNNN with its "
		    "(q, phi) bin", HET_APSU_BINS);
	rc = het_h5_read_vector(ds->fid, HET_APSU_BINS, HET_DS_MAX_BINS,
	    labels, n, err);
	if (rc != HET_OK)
		return rc;
	for (i = 0; i < *n; i++)
		if (!het_ds_is_integer((*labels)[i], 1, (double)nmap))
			return het_error_set(err, HET_EFORMAT,
			    "%s[%zu] = %g is not a bin label of this q map "
			    "(expected 1 to %zu%s)", HET_APSU_BINS, i,
			    (*labels)[i], nmap,
			    nmap == ds->info.n_q * ds->info.n_phi ?
			    ", n_q x n_phi" : ", the length of "
			    HET_APSU_MAPPING);
	sorted = het_alloc_array(*n, sizeof(*sorted), "bin labels", err);
	if (sorted == NULL)
		return HET_ENOMEM;
	for (i = 0; i < *n; i++)
		sorted[i] = (size_t)(*labels)[i];
	qsort(sorted, *n, sizeof(*sorted), het_cmp_size);
	rc = HET_OK;
	for (i = 1; i < *n; i++)
		if (sorted[i] == sorted[i - 1]) {
			rc = het_error_set(err, HET_EFORMAT,
			    "%s lists bin label %zu twice", HET_APSU_BINS,
			    sorted[i]);
			break;
		}
	free(sorted);
	return rc;
}

/* Two labels mapped to one (q, phi) cell would make selection ambiguous. */
static int
het_apsu_check_cells(struct het_dataset *ds, struct het_error *err)
{
	size_t n = ds->info.nbins, np = ds->info.n_phi, *cell, i;
	int rc = HET_OK;

	cell = het_alloc_array(n, sizeof(*cell), "bin cells", err);
	if (cell == NULL)
		return HET_ENOMEM;
	for (i = 0; i < n; i++)
		cell[i] = ds->bins[i].q_idx * np + ds->bins[i].phi_idx;
	qsort(cell, n, sizeof(*cell), het_cmp_size);
	for (i = 1; i < n; i++)
		if (cell[i] == cell[i - 1]) {
			rc = het_error_set(err, HET_EFORMAT,
			    "two processed bins map to the same (q, phi) cell "
			    "%zu (q %g, phi %g) through %s", cell[i],
			    ds->q_list[cell[i] / np],
			    ds->phi_list[cell[i] % np],
			    HET_APSU_MAPPING);
			break;
		}
	free(cell);
	return rc;
}

static int
het_apsu_pair(struct het_dataset *ds, const double *labels, size_t nlabels,
    const double *map, struct het_error *err)
{
	const char *const prefixes[] = { "c2_", NULL };
	struct het_ds_key *keys = NULL;
	size_t nkeys = 0, i, k, natural;
	struct het_bin *b;
	int rc;

	rc = het_ds_list_keys(ds->fid, HET_APSU_C2, prefixes, &keys, &nkeys,
	    err);
	if (rc != HET_OK)
		return rc;
	if (nkeys != nlabels) {
		rc = het_error_set(err, HET_EFORMAT,
		    "count mismatch: %s holds %zu matrices but %s lists %zu "
		    "bins; each listed bin needs its c2_NNNNN", HET_APSU_C2,
		    nkeys, HET_APSU_BINS, nlabels);
		goto out;
	}
	if ((rc = het_ds_alloc_bins(ds, nkeys, err)) != HET_OK)
		goto out;
	for (i = 0; i < nkeys; i++) {
		if (keys[i].number < 1 || (size_t)keys[i].number > nkeys) {
			rc = het_error_set(err, HET_EFORMAT,
			    "%s/%s is numbered outside 1..%zu, the entries of "
			    "%s", HET_APSU_C2, keys[i].name, nkeys,
			    HET_APSU_BINS);
			goto out;
		}
		k = (size_t)keys[i].number - 1;
		if (ds->names[k] != NULL) {
			rc = het_error_set(err, HET_EFORMAT,
			    "%s/%s and %s both claim entry %zu of %s",
			    HET_APSU_C2, keys[i].name, ds->names[k], k + 1,
			    HET_APSU_BINS);
			goto out;
		}
		if ((rc = het_ds_set_name(ds, k, HET_APSU_C2, keys[i].name,
		    err)) != HET_OK)
			goto out;
		b = &ds->bins[k];
		b->label = (long)labels[k];
		natural = map != NULL ? (size_t)map[b->label - 1] :
		    (size_t)b->label - 1;
		b->q_idx = natural / ds->info.n_phi;
		b->phi_idx = natural % ds->info.n_phi;
		b->q = ds->q_list[b->q_idx];
		b->phi = ds->phi_list[b->phi_idx];
	}
	rc = het_apsu_check_cells(ds, err);
out:
	het_ds_free_keys(keys, nkeys);
	return rc;
}

int
het_ds_load_apsu(struct het_dataset *ds, struct het_error *err)
{
	struct het_dataset_info *in = &ds->info;
	double *map = NULL, *labels = NULL, v;
	size_t nmap, nlabels, cells;
	int rc;

	if ((rc = het_ds_apsu_qmap(ds, 0, err)) != HET_OK)
		goto out;
	cells = in->n_q * in->n_phi;
	if ((rc = het_ds_apsu_mapping(ds, cells, &map, &nmap, err)) !=
	    HET_OK ||
	    (rc = het_apsu_read_labels(ds, nmap, &labels, &nlabels, err)) !=
	    HET_OK ||
	    (rc = het_apsu_pair(ds, labels, nlabels, map, err)) != HET_OK)
		goto out;
	rc = het_ds_read_dt(ds, HET_APSU_FRAME_TIME, "frame_time",
	    HET_APSU_STRIDE, "stride_frame", HET_APSU_AVG, "avg_frame", err);
	if (rc != HET_OK)
		goto out;
	/* The q map's own energy and distance are the ones q came from. */
	if (!isnan(v = het_ds_read_positive(ds, HET_APSU_ENERGY)))
		in->energy_source = HET_APSU_ENERGY;
	else if (!isnan(v = het_ds_read_positive(ds, HET_APSU_ENERGY2)))
		in->energy_source = HET_APSU_ENERGY2;
	in->energy_kev = v;
	if (!isnan(v = het_ds_read_positive(ds, HET_APSU_DISTANCE)))
		in->distance_source = HET_APSU_DISTANCE;
	else if (!isnan(v = het_ds_read_positive(ds, HET_APSU_DISTANCE2)))
		in->distance_source = HET_APSU_DISTANCE2;
	in->distance_raw = v;
	in->distance_m = v;
	in->distance_unit = isnan(v) ? NULL : "m";
out:
	free(map);
	free(labels);
	return rc;
}
