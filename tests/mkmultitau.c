/*
 * mkmultitau.c: write a simulated multitau g2 file for the workstation's
 * tests and docs/screens (fixture_mt: a Brownian sample, Gamma = D q^2,
 * with Gaussian noise of known size from a fixed seed).
 *
 *   mkmultitau OUT.hdf [--nq N] [--nphi N] [--D D] [--kappa K]
 *                      [--sigma S] [--seed N] [--frames N] [--bin-first]
 *   mkmultitau FILE.hdf --append [...]
 *
 * Without --append a multitau-only APS-U file: q_k = 0.0021 + 0.00097 k
 * 1/A, frame_time 1 ms, boost_corr's delays up to --frames (16384)
 * frames as int64, normalized_g2 as (n_tau, n_bins) float32 (--bin-first:
 * (n_bins, n_tau)).  With --append the multitau group is added to an
 * existing APS-U file (tests/mkdemo_fixture's) on its own q map and
 * frame time (the multitau stride and average are 1).  Defaults: D
 * 4.87e4 A^2/s, kappa 1, beta 0.213, b 1.0037, sigma 0.004, seed
 * 20240611.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "fixture_mt.h"
#include "het_h5.h"

#define MAXT 128

static int
usage(void)
{
	fprintf(stderr, "usage: mkmultitau OUT.hdf [--append] [--nq N] "
	    "[--nphi N] [--D D] [--kappa K] [--sigma S] [--seed N] "
	    "[--frames N] [--bin-first]\n");
	return 2;
}

/* A 1-D float64 list of an existing file into *v (malloc'd). */
static int
read_list(hid_t f, const char *path, double **v, size_t *n)
{
	hid_t ds = H5Dopen2(f, path, H5P_DEFAULT), sp;
	hssize_t cnt;
	int rc = -1;

	if (ds < 0)
		return -1;
	sp = H5Dget_space(ds);
	cnt = H5Sget_simple_extent_npoints(sp);
	if (cnt > 0 && (*v = malloc((size_t)cnt * sizeof(**v))) != NULL &&
	    H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    *v) >= 0) {
		*n = (size_t)cnt;
		rc = 0;
	}
	H5Sclose(sp);
	H5Dclose(ds);
	return rc;
}

int
main(int argc, char **argv)
{
	struct fx_mt_sim s = { 4.87e4, 0.213, 1.0037, 1.0, 0.004, 20240611 };
	double d[MAXT], tau[MAXT], *q = NULL, *phi = NULL, *bq, *g2, *err;
	double *ft = NULL, t0 = 1e-3;
	size_t nq = 8, nphi = 1, k, ntau, nb;
	const char *out = NULL;
	long frames = 16384;
	struct het_error e;
	struct fx_mt m;
	int i, append = 0, bin_first = 0, rc;
	hid_t f;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--nq") == 0 && i + 1 < argc)
			nq = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--nphi") == 0 && i + 1 < argc)
			nphi = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--D") == 0 && i + 1 < argc)
			s.D = atof(argv[++i]);
		else if (strcmp(argv[i], "--kappa") == 0 && i + 1 < argc)
			s.kappa = atof(argv[++i]);
		else if (strcmp(argv[i], "--sigma") == 0 && i + 1 < argc)
			s.sigma = atof(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			s.seed = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
			frames = atol(argv[++i]);
		else if (strcmp(argv[i], "--append") == 0)
			append = 1;
		else if (strcmp(argv[i], "--bin-first") == 0)
			bin_first = 1;
		else if (argv[i][0] == '-' || out != NULL)
			return usage();
		else
			out = argv[i];
	}
	if (out == NULL || nq < 1 || nphi < 1 || frames < 8)
		return usage();
	het_error_clear(&e);
	if (het_h5_library_init(&e) != HET_OK)
		return 1;
	fx_mt_init(&m);
	if (append) {
		/* the file's own q map and frame time */
		if ((f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
			return 1;
		rc = read_list(f, "/xpcs/qmap/dynamic_v_list_dim0", &q, &nq) |
		    read_list(f, "/xpcs/qmap/dynamic_v_list_dim1", &phi,
		    &nphi) | read_list(f, "/entry/instrument/detector_1/"
		    "frame_time", &ft, &k);
		H5Fclose(f);
		if (rc != 0)
			return 1;
		t0 = ft[0];
		free(ft);
		m.frame_time = NAN;
		m.append = 1;
	} else {
		q = calloc(nq, sizeof(*q));
		phi = calloc(nphi, sizeof(*phi));
		if (q == NULL || phi == NULL)
			return 1;
		for (k = 0; k < nq; k++)
			q[k] = 0.0021 + 0.00097 * (double)k;
		for (k = 0; nphi > 1 && k < nphi; k++)
			phi[k] = -180.0 + 360.0 / (double)nphi *
			    ((double)k + 0.5);
		m.q = q;
		m.phi = phi;
	}
	nb = nq * nphi;
	ntau = fx_mt_delays(frames, d, MAXT);
	bq = calloc(nb, sizeof(*bq));
	g2 = calloc(nb * ntau, sizeof(*g2));
	err = calloc(nb * ntau, sizeof(*err));
	if (bq == NULL || g2 == NULL || err == NULL)
		return 1;
	for (k = 0; k < nb; k++)
		bq[k] = q[k / nphi];
	for (k = 0; k < ntau; k++)
		tau[k] = d[k] * t0;
	fx_mt_simulate(&s, tau, ntau, bq, nb, g2, err);
	m.ntau = ntau;
	m.delay = d;
	m.nbins = nb;
	m.g2 = g2;
	m.err = err;
	m.f32 = 1;
	m.bin_first = bin_first;
	m.n_q = nq;
	m.n_phi = nphi;
	rc = fx_mt_write(out, &m);
	free(q);
	free(phi);
	free(bq);
	free(g2);
	free(err);
	return rc == 0 ? 0 : 1;
}
