/*
 * t_core_dataset_legacy.c: the legacy APS 8-ID-I reader: a complete
 * xpcs-eigen style file (g2_NNNNN, float32, gzip 6, (1, N) lists,
 * exposure_period * stride_frames * avg_frames, energy, distance in mm),
 * and a file that processed only some bins (c2_ prefix, float64, 1-D
 * lists, no dt, distance without a unit), where each matrix must be
 * paired with its bin by the number in its name, not by position.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_h5.h"
#include "tap.h"

#define NF 9

static char *dir;
static const double dq[6] = { 0.0054, 0.0054, 0.0054, 0.0108, 0.0108,
    0.0108 };
static const double dphi[6] = { 0.0, 60.0, 120.0, 0.0, 60.0, 120.0 };

static void
check_bin(struct het_dataset *ds, size_t k, long label, const double *full,
    int f32, const char *what)
{
	const struct het_bin *b = het_dataset_bin(ds, k);
	double got[NF * NF], want[NF * NF];
	struct het_error err;
	size_t qi = label <= 3 ? 0 : 1, pi = (size_t)(label - 1) % 3;

	ok(b != NULL && b->label == label && b->q == dq[label - 1] &&
	    b->phi == dphi[label - 1] && b->q_idx == qi && b->phi_idx == pi &&
	    b->frames == NF, "%s: bin %zu is label %ld: q %g, phi %g, cell "
	    "(%zu, %zu)", what, k, label, dq[label - 1], dphi[label - 1], qi,
	    pi);
	het_error_clear(&err);
	if (!ok(het_dataset_read_c2(ds, k, 0, 0, got, NULL, &err) == HET_OK,
	    "%s: read bin %zu", what, k))
		diag("%s", err.msg);
	fx_expect(full, NF, 1, NF, f32, want);
	is_int((long long)fx_diff(got, want, NF * NF), 0,
	    "%s: bin %zu holds the matrix of label %ld, exactly", what, k,
	    label);
}

static void
test_complete(void)
{
	struct fx_legacy lg;
	const struct het_dataset_info *in;
	struct het_dataset *ds;
	struct het_error err;
	double *mats[6];
	long labels[6] = { 1, 2, 3, 4, 5, 6 };
	char *path = fx_path(dir, "legacy_full.hdf"), name[64];
	size_t k;

	for (k = 0; k < 6; k++) {
		mats[k] = calloc(NF * NF, sizeof(double));
		fx_matrix(NF, 11 * (unsigned)labels[k], mats[k]);
	}
	fx_legacy_init(&lg);
	lg.nlist = 6;
	lg.dq = dq;
	lg.dphi = dphi;
	lg.nmat = 6;
	lg.labels = labels;
	lg.frames = NF;
	lg.c2 = (const double *const *)mats;
	lg.f32 = 1;
	lg.gzip = 6;
	lg.exposure = 0.00213;
	lg.stride = 4;
	lg.avg = 3;
	lg.energy = 7.35;
	lg.distance = 4953.2;
	lg.distance_unit = "mm";
	ok(fx_write_legacy(path, &lg) == 0, "write a complete legacy file");
	het_error_clear(&err);
	ds = het_dataset_open(path, &err);
	if (!ok(ds != NULL, "open it"))
		diag("%s", err.msg);
	if (ds == NULL)
		goto out;
	in = het_dataset_info(ds);
	is_str(het_layout_name(in->layout), "aps-legacy", "layout aps-legacy");
	is_int((long long)in->nbins, 6, "6 bins");
	ok(in->n_q == 2 && in->q_list[0] == 0.0054 && in->q_list[1] == 0.0108,
	    "q_list: the 2 distinct dqlist values, sorted");
	ok(in->n_phi == 3 && in->phi_list[0] == 0 && in->phi_list[1] == 60 &&
	    in->phi_list[2] == 120, "phi_list: 0, 60, 120");
	is_str(het_dtype_name(in->dtype), "float32", "float32");
	is_str(het_compress_name(in->compression), "gzip", "gzip");
	is_int(het_dataset_bin(ds, 0)->level, 6, "deflate level 6");
	is_double(in->dt, 0.00213 * 4.0 * 3.0, 0,
	    "dt = exposure_period * stride_frames * avg_frames");
	is_str(in->dt_source, "file: exposure_period * stride_frames * "
	    "avg_frames", "dt source");
	is_double(in->energy_kev, 7.35, 0, "energy 7.35 keV");
	is_str(in->energy_source, "/measurement/instrument/source_begin/energy",
	    "energy source");
	is_double(in->distance_raw, 4953.2, 0, "distance as stored");
	is_str(in->distance_unit, "mm", "its unit attribute");
	is_double(in->distance_m, 4.9532, 1e-15, "distance 4.9532 m");
	for (k = 0; k < 6; k++) {
		snprintf(name, sizeof(name), "/exchange/C2T_all/g2_%05ld",
		    labels[k]);
		is_str(het_dataset_bin(ds, k)->dataset, name, "bin %zu is %s",
		    k, name);
		check_bin(ds, k, labels[k], mats[k], 1, "complete");
	}
	het_dataset_close(ds);
out:
	for (k = 0; k < 6; k++)
		free(mats[k]);
	free(path);
}

static void
test_partial(void)
{
	struct fx_legacy lg;
	struct het_selection sel;
	struct het_pick pick;
	const struct het_dataset_info *in;
	struct het_dataset *ds;
	struct het_error err;
	double *mats[3], t60 = 60.0;
	long labels[3] = { 2, 5, 6 };
	char *path = fx_path(dir, "legacy_partial.hdf");
	size_t k;

	for (k = 0; k < 3; k++) {
		mats[k] = calloc(NF * NF, sizeof(double));
		fx_matrix(NF, 11 * (unsigned)labels[k], mats[k]);
	}
	fx_legacy_init(&lg);
	lg.nlist = 6;
	lg.dq = dq;
	lg.dphi = dphi;
	lg.list_2d = 0;
	lg.nmat = 3;
	lg.labels = labels;
	lg.prefix = "c2_";
	lg.frames = NF;
	lg.c2 = (const double *const *)mats;
	lg.distance = 5.5;
	ok(fx_write_legacy(path, &lg) == 0,
	    "write a legacy file with bins 2, 5, 6 of 6 only");
	het_error_clear(&err);
	ds = het_dataset_open(path, &err);
	if (!ok(ds != NULL, "open it"))
		diag("%s", err.msg);
	if (ds == NULL)
		goto out;
	in = het_dataset_info(ds);
	is_int((long long)in->nbins, 3, "3 bins");
	ok(in->n_q == 2 && in->n_phi == 3,
	    "the q and phi lists still cover the whole dqlist");
	is_str(het_dtype_name(in->dtype), "float64", "float64");
	is_str(het_compress_name(in->compression), "none", "uncompressed");
	ok(isnan(in->dt) && strcmp(in->dt_source, "none") == 0,
	    "no exposure_period: dt unknown");
	ok(isnan(in->energy_kev) && in->energy_source == NULL, "no energy");
	ok(in->distance_raw == 5.5 && isnan(in->distance_m) &&
	    in->distance_unit == NULL && in->distance_source != NULL,
	    "distance without a unit: kept raw, not converted");
	for (k = 0; k < 3; k++)
		check_bin(ds, k, labels[k], mats[k], 0, "partial");
	het_selection_init(&sel);
	sel.q = 0.011;
	sel.phi = &t60;
	sel.nphi = 1;
	ok(het_dataset_select(ds, &sel, &pick, &err) == HET_OK &&
	    pick.nbins == 1 && pick.bins[0] == 1 &&
	    het_dataset_bin(ds, 1)->label == 5,
	    "q 0.011, phi 60 selects label 5 (bin 1)");
	het_pick_fini(&pick);
	sel.q = 0.005;
	ok(het_dataset_select(ds, &sel, &pick, &err) == HET_OK &&
	    pick.nbins == 1 && pick.bins[0] == 0,
	    "q 0.005, phi 60 selects label 2 (bin 0)");
	het_pick_fini(&pick);
	het_dataset_close(ds);
out:
	for (k = 0; k < 3; k++)
		free(mats[k]);
	free(path);
}

int
main(void)
{
	struct het_error err;

	plan_lazy();
	het_error_clear(&err);
	het_h5_library_init(&err);
	dir = fx_tmpdir();
	if (dir == NULL)
		skip_all("cannot create a temporary directory");
	test_complete();
	test_partial();
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
