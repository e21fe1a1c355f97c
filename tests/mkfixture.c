/*
 * mkfixture.c: the fixture files of tests/t_inspect.sh.
 *
 *	mkfixture DIR	write them into DIR (silent; exit 1 on failure)
 *	mkfixture	TAP self-test: write them into a temporary directory,
 *			check that the good ones open and the bad ones do
 *			not, and clean up
 *
 * Files: apsu_lzf.hdf (2 q x 3 phi, 12 frames, float32, LZF, dt 7.8e-4 s,
 * 12.34 keV, 11.6 m), apsu_nodt.hdf (1 q x 2 phi, float64, gzip 4, no dt,
 * energy or distance), legacy_partial.hdf (bins 2, 5, 6 of 6, g2_NNNNN,
 * float32, gzip 6, dt 0.00213 * 4 * 3 s, 7.35 keV, 4953.2 mm),
 * not_hdf5.txt, truncated.hdf (apsu_lzf.hdf cut in half) and neither.hdf
 * (HDF5 with neither layout).  Everything is deterministic.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "tap.h"

static const char *const good[] = { "apsu_lzf.hdf", "apsu_nodt.hdf",
    "legacy_partial.hdf" };
static const char *const bad[] = { "not_hdf5.txt", "truncated.hdf",
    "neither.hdf" };

static int
write_apsu(const char *dir)
{
	struct het_apsu_spec spec;
	struct het_error err;
	struct stat st;
	double **mats;
	char *p1 = fx_path(dir, "apsu_lzf.hdf");
	char *p2 = fx_path(dir, "apsu_nodt.hdf");
	char *p3 = fx_path(dir, "truncated.hdf");
	int rc = -1;
	FILE *in, *out;
	int c;
	long n = 0;

	het_error_clear(&err);
	fx_apsu_basic(&spec, 2, 3, 12, &mats);
	spec.compression = HET_COMPRESS_LZF;
	if (het_apsu_write(p1, &spec, &err) != HET_OK)
		goto out;
	fx_apsu_free(&spec, mats);
	fx_apsu_basic(&spec, 1, 2, 12, &mats);
	spec.dtype = HET_DTYPE_F64;
	spec.compression = HET_COMPRESS_GZIP;
	spec.frame_time = NAN;
	spec.energy_kev = NAN;
	spec.distance_m = NAN;
	if (het_apsu_write(p2, &spec, &err) != HET_OK)
		goto out;
	/* truncated.hdf: the first half of apsu_lzf.hdf. */
	if (stat(p1, &st) != 0 || (in = fopen(p1, "rb")) == NULL)
		goto out;
	if ((out = fopen(p3, "wb")) == NULL) {
		fclose(in);
		goto out;
	}
	while (n < st.st_size / 2 && (c = getc(in)) != EOF) {
		putc(c, out);
		n++;
	}
	fclose(in);
	rc = fclose(out) == 0 ? 0 : -1;
out:
	if (err.msg[0] != '\0')
		printf("# %s\n", err.msg);
	fx_apsu_free(&spec, mats);
	free(p1);
	free(p2);
	free(p3);
	return rc;
}

static int
write_legacy(const char *dir)
{
	static const double dq[6] = { 0.0054, 0.0054, 0.0054, 0.0108, 0.0108,
	    0.0108 };
	static const double dphi[6] = { 0, 60, 120, 0, 60, 120 };
	struct fx_legacy lg;
	double *mats[3];
	long labels[3] = { 2, 5, 6 };
	char *p = fx_path(dir, "legacy_partial.hdf");
	size_t k;
	int rc;

	for (k = 0; k < 3; k++) {
		mats[k] = calloc(9 * 9, sizeof(double));
		fx_matrix(9, 11 * (unsigned)labels[k], mats[k]);
	}
	fx_legacy_init(&lg);
	lg.nlist = 6;
	lg.dq = dq;
	lg.dphi = dphi;
	lg.nmat = 3;
	lg.labels = labels;
	lg.frames = 9;
	lg.c2 = (const double *const *)mats;
	lg.f32 = 1;
	lg.gzip = 6;
	lg.exposure = 0.00213;
	lg.stride = 4;
	lg.avg = 3;
	lg.energy = 7.35;
	lg.distance = 4953.2;
	lg.distance_unit = "mm";
	rc = fx_write_legacy(p, &lg);
	for (k = 0; k < 3; k++)
		free(mats[k]);
	free(p);
	return rc;
}

static int
write_all(const char *dir)
{
	char *p;
	int rc;

	if (write_apsu(dir) != 0 || write_legacy(dir) != 0)
		return -1;
	p = fx_path(dir, "not_hdf5.txt");
	rc = fx_write_text(p, "index,q,phi\n0,0.0054,0\n");
	free(p);
	p = fx_path(dir, "neither.hdf");
	if (rc == 0)
		rc = fx_new_file(p, "/entry/instrument");
	free(p);
	return rc;
}

int
main(int argc, char **argv)
{
	struct het_dataset *ds;
	struct het_error err;
	char *dir, *p;
	size_t i;

	het_error_clear(&err);
	if (het_h5_library_init(&err) != HET_OK) {
		fprintf(stderr, "mkfixture: %s\n", err.msg);
		return 1;
	}
	if (argc == 2)
		return write_all(argv[1]) == 0 ? 0 : 1;
	if (argc > 2) {
		fprintf(stderr, "usage: mkfixture [DIR]\n");
		return 2;
	}
	plan_lazy();
	dir = fx_tmpdir();
	if (dir == NULL)
		skip_all("cannot create a temporary directory");
	ok(write_all(dir) == 0, "write the inspect fixtures");
	for (i = 0; i < (sizeof(good) / sizeof(good[0])); i++) {
		p = fx_path(dir, good[i]);
		ds = het_dataset_open(p, &err);
		ok(ds != NULL, "%s opens", good[i]);
		het_dataset_close(ds);
		free(p);
	}
	for (i = 0; i < (sizeof(bad) / sizeof(bad[0])); i++) {
		p = fx_path(dir, bad[i]);
		ds = het_dataset_open(p, &err);
		ok(ds == NULL && err.code == HET_EFORMAT,
		    "%s is rejected: %s", bad[i], err.msg);
		het_dataset_close(ds);
		free(p);
	}
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
