/*
 * fixture_mt.c: simulated multitau g2 files (see fixture_mt.h).  The
 * noise comes from splitmix64 and the Box-Muller transform, so a seed
 * gives the same file on every machine and library version.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "fixture_mt.h"

void
fx_mt_init(struct fx_mt *m)
{
	memset(m, 0, sizeof(*m));
	m->delay_int = 1;
	m->frame_time = 1e-3;
	m->stride = 1;
	m->avg = 1;
}

void
fx_mt_rings(struct fx_mt *m, size_t ntau, const double *delay, size_t nq,
    const double *q, const double *g2, const double *err)
{
	static const double phi0[1] = { 0.0 };

	fx_mt_init(m);
	m->ntau = ntau;
	m->delay = delay;
	m->nbins = m->n_q = nq;
	m->q = q;
	m->n_phi = 1;
	m->phi = phi0;
	m->g2 = g2;
	m->err = err;
}

size_t
fx_mt_delays(long max_frames, double *out, size_t cap)
{
	long d = 1, step = 1;
	size_t n = 0;

	while (d <= max_frames && n < cap) {
		out[n++] = (double)d;
		if (d == 8 * step)	/* a level is full: the step doubles */
			step *= 2;
		d += step;
	}
	return n;
}

static uint64_t
fx_mt_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A standard normal deviate (Box-Muller, one of each pair). */
static double
fx_mt_gauss(uint64_t *s)
{
	double u1 = ((double)(fx_mt_next(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(fx_mt_next(s) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void
fx_mt_simulate(const struct fx_mt_sim *s, const double *tau, size_t ntau,
    const double *q, size_t nbins, double *g2, double *err)
{
	uint64_t st = s->seed;
	double gamma, sd;
	size_t b, k;

	for (b = 0; b < nbins; b++) {
		gamma = s->D * q[b] * q[b];
		for (k = 0; k < ntau; k++) {
			sd = s->sigma * (1.0 + 0.35 * sin(0.7 * (double)k +
			    (double)b));
			err[b * ntau + k] = sd;
			g2[b * ntau + k] = s->b + s->beta * exp(-2.0 *
			    pow(gamma * tau[k], s->kappa)) + sd *
			    fx_mt_gauss(&st);
		}
	}
}

/* g2 or its errors in the stored orientation. */
static int
fx_mt_table(const char *path, const char *dset, const struct fx_mt *m,
    const double *v)
{
	unsigned long long dims[2];
	double *t;
	size_t b, k;
	int rc;

	if ((t = malloc(m->nbins * m->ntau * sizeof(*t))) == NULL)
		return -1;
	for (b = 0; b < m->nbins; b++)
		for (k = 0; k < m->ntau; k++)
			t[m->bin_first ? b * m->ntau + k : k * m->nbins + b] =
			    v[b * m->ntau + k];
	dims[0] = m->bin_first ? m->nbins : m->ntau;
	dims[1] = m->bin_first ? m->ntau : m->nbins;
	rc = fx_put(path, dset, 2, dims, t, m->f32 ? FX_F32 : FX_F64);
	free(t);
	return rc;
}

static int
fx_mt_number(const char *path, const char *dset, double v, long long type)
{
	return fx_put(path, dset, 0, NULL, &v, type);
}

int
fx_mt_write(const char *path, const struct fx_mt *m)
{
	unsigned long long n;
	double *map = NULL;
	size_t k;
	int rc = -1;

	if (!m->append && fx_new_file(path, "/xpcs/multitau") != 0)
		return -1;
	if (m->append && fx_group(path, "/xpcs/multitau") != 0)
		return -1;
	n = m->n_q;
	if (m->q != NULL && fx_put(path, "/xpcs/qmap/dynamic_v_list_dim0", 1,
	    &n, m->q, FX_F64) != 0)
		return -1;
	n = m->n_phi;
	if (m->q != NULL && m->phi != NULL && fx_put(path,
	    "/xpcs/qmap/dynamic_v_list_dim1", 1, &n, m->phi, FX_F64) != 0)
		return -1;
	if (m->q != NULL && m->mapping != NULL) {
		if ((map = malloc(m->nbins * sizeof(*map))) == NULL)
			return -1;
		for (k = 0; k < m->nbins; k++)
			map[k] = (double)m->mapping[k];
		n = m->nbins;
		rc = fx_put(path, "/xpcs/qmap/dynamic_index_mapping", 1, &n,
		    map, FX_U16);
		free(map);
		if (rc != 0)
			return -1;
	}
	if (!isnan(m->frame_time) && fx_mt_number(path,
	    "/entry/instrument/detector_1/frame_time", m->frame_time,
	    FX_F64) != 0)
		return -1;
	if (m->stride > 0 && fx_mt_number(path,
	    "/xpcs/multitau/config/stride_frame", (double)m->stride,
	    FX_I64) != 0)
		return -1;
	if (m->avg > 0 && fx_mt_number(path, "/xpcs/multitau/config/avg_frame",
	    (double)m->avg, FX_I64) != 0)
		return -1;
	n = m->ntau;
	if (fx_put(path, "/xpcs/multitau/delay_list", 1, &n, m->delay,
	    m->delay_int ? FX_I64 : FX_F64) != 0)
		return -1;
	if (m->delay_unit != NULL && fx_attr_string(path,
	    "/xpcs/multitau/delay_list", "unit", m->delay_unit) != 0)
		return -1;
	if (fx_mt_table(path, "/xpcs/multitau/normalized_g2", m, m->g2) != 0 ||
	    fx_mt_table(path, "/xpcs/multitau/normalized_g2_err", m,
	    m->err) != 0)
		return -1;
	if (m->storage_mode != NULL && fx_attr_string(path,
	    "/xpcs/multitau/normalized_g2", "storage_mode",
	    m->storage_mode) != 0)
		return -1;
	return 0;
}
