/*
 * mkdemo_fixture.c: write a synthetic APS-U two-time file for the UI
 * tests and `make demo`, through the data layer's het_apsu_write().
 *
 *   mkdemo_fixture OUT.hdf [--frames N] [--nq N] [--nphi N]
 *                          [--compress none|gzip|lzf] [--f64]
 *
 * Each bin holds a heterodyne-like two-time correlation with ageing:
 *   c2(i,j) = 1 + beta [xs^2 g1^2 + xr^2 + 2 xs xr g1 cos(w cos(phi) lag)]
 *   g1 = exp(-r(tm) lag),  r(tm) = r0 (1 + q_idx) (1 + 0.8 tm / N),
 * with lag = |i - j| frames and tm = (i + j) / 2, plus a small symmetric
 * deterministic ripple, so every bin and ring looks different and the
 * far-lag baseline is 1 + beta xr^2 = 1.048.  Frame time 5 ms, stride 2
 * (dt = 0.01 s), 8 keV, 5.5 m.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_dataset_write.h"
#include "het_h5.h"

struct fx {
	size_t	n, n_q, n_phi;
	double	*phi;
};

static double
ripple(size_t a, size_t b, size_t k)
{
	unsigned long h = (unsigned long)(a * 2654435761u) ^
	    (unsigned long)(b * 40503u) ^ (unsigned long)(k * 97u);

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return ((double)(h % 10007) / 10006.0 - 0.5) * 0.004;
}

static int
fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	const struct fx *f = arg;
	const double beta = 0.3, xs = 0.6, xr = 0.4, r0 = 0.015, w = 0.35;
	size_t qi = k / f->n_phi, pi = k % f->n_phi, i, j, lag;
	double cphi = cos(f->phi[pi] * M_PI / 180.0), tm, r, g1, v;

	(void)err;
	for (i = 0; i < f->n; i++)
		for (j = i; j < f->n; j++) {
			lag = j - i;
			tm = 0.5 * (double)(i + j);
			r = r0 * (1.0 + (double)qi) *
			    (1.0 + 0.8 * tm / (double)f->n);
			g1 = exp(-r * (double)lag);
			v = 1.0 + beta * (xs * xs * g1 * g1 + xr * xr +
			    2.0 * xs * xr * g1 * cos(w * cphi * (double)lag)) +
			    ripple(i, j, k);
			c2[i * f->n + j] = v;
			c2[j * f->n + i] = v;
		}
	return HET_OK;
}

static int
usage(void)
{
	fprintf(stderr, "usage: mkdemo_fixture OUT.hdf [--frames N] "
	    "[--nq N] [--nphi N] [--compress none|gzip|lzf] [--f64]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct het_apsu_spec sp;
	struct het_error err;
	struct fx f;
	double *q, *phi;
	const char *out = NULL;
	int i;
	size_t k;

	het_apsu_spec_init(&sp);
	f.n = 160;
	f.n_q = 3;
	f.n_phi = 6;
	sp.compression = HET_COMPRESS_GZIP;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
			f.n = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--nq") == 0 && i + 1 < argc)
			f.n_q = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--nphi") == 0 && i + 1 < argc)
			f.n_phi = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--compress") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "none") == 0)
				sp.compression = HET_COMPRESS_NONE;
			else if (strcmp(argv[i], "lzf") == 0)
				sp.compression = HET_COMPRESS_LZF;
			else if (strcmp(argv[i], "gzip") == 0)
				sp.compression = HET_COMPRESS_GZIP;
			else
				return usage();
		} else if (strcmp(argv[i], "--f64") == 0)
			sp.dtype = HET_DTYPE_F64;
		else if (argv[i][0] == '-' || out != NULL)
			return usage();
		else
			out = argv[i];
	}
	if (out == NULL || f.n < 2 || f.n_q < 1 || f.n_phi < 1)
		return usage();
	q = calloc(f.n_q, sizeof(*q));
	phi = calloc(f.n_phi, sizeof(*phi));
	if (q == NULL || phi == NULL)
		return 1;
	for (k = 0; k < f.n_q; k++)
		q[k] = 0.0025 + 0.0015 * (double)k;
	for (k = 0; k < f.n_phi; k++)
		phi[k] = -180.0 + (360.0 / (double)f.n_phi) * ((double)k + 0.5);
	f.phi = phi;
	sp.n_q = f.n_q;
	sp.n_phi = f.n_phi;
	sp.q = q;
	sp.phi = phi;
	sp.nbins = f.n_q * f.n_phi;
	sp.frames = f.n;
	sp.fill = fill;
	sp.fill_arg = &f;
	sp.frame_time = 0.005;
	sp.stride_frame = 2;
	sp.avg_frame = 1;
	sp.energy_kev = 8.0;
	sp.distance_m = 5.5;
	het_error_clear(&err);
	if (het_h5_library_init(&err) != HET_OK ||
	    het_apsu_write(out, &sp, &err) != HET_OK) {
		fprintf(stderr, "mkdemo_fixture: %s\n", err.msg);
		return 1;
	}
	free(q);
	free(phi);
	return 0;
}
