/*
 * basin_sim.c: simulated two-component problems with perturbed starts
 * (see basin_sim.h).
 */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basin_sim.h"

const double basin_lo[HET_P_HET_COUNT] = {
	1.0, -2.0, -1e3, 1.0, -2.0, -1e3, 1e-3, -2.0, -100.0, 0.0, -1.0,
	-100.0, 0.0, -10.0
};
const double basin_hi[HET_P_HET_COUNT] = {
	1e5, 2.0, 1e3, 1e5, 2.0, 1e3, 1e4, 2.0, 100.0, 1.0, 1.0, 100.0, 1.0,
	10.0
};

void
basin_sim_free(struct basin_sim *S)
{
	if (S == NULL)
		return;
	het_resid_free(S->r);
	het_scaling_free(S->sc);
	het_model_free(S->m);
	free(S->pairs);
	free(S->y);
	free(S->phi);
	free(S->truth);
	free(S->lo);
	free(S->hi);
	free(S->X0);
	free(S);
}

/* Model and problem of S with the truth's data (noise-free). */
static int
build(struct basin_sim *S, const struct basin_set *ts, struct het_error *err)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_resid_eval *ev;
	size_t a, i, j, k = 0;

	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = ts->q;
	ms.dt = ts->dt;
	ms.start_frame = 1;
	ms.n_frames = S->nf;
	ms.n_angles = S->na;
	ms.phi = S->phi;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, S->na, S->phi);
	if ((S->m = het_model_alloc(&ms, err)) == NULL ||
	    (S->sc = het_scaling_alloc(&ss, err)) == NULL)
		return -1;
	for (a = 0; a < S->na; a++)
		for (i = 0; i < S->nf; i++)
			for (j = i + 1; j < S->nf; j++, k++) {
				S->pairs[k].i = (uint32_t)i;
				S->pairs[k].j = (uint32_t)j;
				S->pairs[k].a = (uint32_t)a;
			}
	memset(&rs, 0, sizeof(rs));
	rs.model = S->m;
	rs.scaling = S->sc;
	rs.theta = ts->th;
	rs.s = S->truth + HET_P_HET_COUNT;
	rs.n = S->n;
	rs.pairs = S->pairs;
	rs.y = S->y;
	if ((S->r = het_resid_alloc(&rs, err)) == NULL)
		return -1;
	het_resid_bounds(S->r, S->lo, S->hi);
	memcpy(S->lo, basin_lo, sizeof(basin_lo));
	memcpy(S->hi, basin_hi, sizeof(basin_hi));
	if ((ev = het_resid_eval_alloc(S->r, err)) == NULL)
		return -1;
	if (het_resid_prepare(ev, S->truth, 0, err) != HET_OK) {
		het_resid_eval_free(ev);
		return -1;
	}
	het_resid_eval_model(ev, 0, S->n, S->y);
	het_resid_eval_free(ev);
	return 0;
}

/* Noise, then the starts. */
static int
draw(struct basin_sim *S, const struct basin_set *ts, gsl_rng *rng,
    struct het_error *err)
{
	size_t i, k, nph = HET_P_HET_COUNT;
	double e, u, sum = 0.0, *x;

	gsl_rng_set(rng, 1000 + ts->seed);
	for (k = 0; k < S->n; k++) {
		e = gsl_ran_gaussian(rng, ts->sigma);
		S->y[k] += e;
		sum += e * e;
	}
	S->cost_noise = 0.5 * sum;
	gsl_rng_set(rng, 2000 + ts->seed);
	for (i = 0; i < S->ns; i++) {
		x = S->X0 + i * S->p;
		for (k = 0; k < nph; k++) {
			u = 0.1 + 0.2 * gsl_rng_uniform(rng);
			if (gsl_rng_uniform(rng) < 0.5)
				u = -u;
			x[k] = fmin(fmax(ts->th[k] * (1.0 + u), S->lo[k]),
			    S->hi[k]);
		}
		if (het_scaling_estimate(S->sc, S->n, S->pairs, S->y,
		    x + nph, x + nph + S->na, err) != HET_OK)
			return -1;
		for (k = nph; k < S->p; k++)
			x[k] = fmin(fmax(x[k], S->lo[k]), S->hi[k]);
	}
	return 0;
}

struct basin_sim *
basin_sim_new(const struct basin_set *ts, size_t nstart, size_t nf_override,
    struct het_error *err)
{
	struct basin_sim *S = calloc(1, sizeof(*S));
	size_t a, na = ts->na, nph = HET_P_HET_COUNT;
	double *s;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int bad;

	if (S == NULL || rng == NULL) {
		free(S);
		gsl_rng_free(rng);
		het_error_set(err, HET_ENOMEM, "basin_sim: out of memory");
		return NULL;
	}
	S->na = na;
	S->nf = nf_override > 0 ? nf_override : ts->nf;
	S->ns = nstart;
	S->n = na * S->nf * (S->nf - 1) / 2;
	S->p = nph + 2 * na;
	S->pairs = malloc(S->n * sizeof(*S->pairs));
	S->y = calloc(S->n, sizeof(double));	/* read by het_resid_alloc */
	S->phi = malloc(na * sizeof(double));
	S->truth = malloc(S->p * sizeof(double));
	S->lo = malloc(S->p * sizeof(double));
	S->hi = malloc(S->p * sizeof(double));
	S->X0 = malloc((nstart > 0 ? nstart : 1) * S->p * sizeof(double));
	bad = S->pairs == NULL || S->y == NULL || S->phi == NULL ||
	    S->truth == NULL || S->lo == NULL || S->hi == NULL ||
	    S->X0 == NULL;
	if (bad)
		het_error_set(err, HET_ENOMEM, "basin_sim: out of memory");
	for (a = 0; !bad && a < na; a++) {
		s = S->truth + nph;
		S->phi[a] = -90.0 + 180.0 * ((double)a + 0.5) / (double)na;
		s[a] = 0.22 + 0.03 * sin(1.3 * (double)a + (double)ts->seed);
		s[na + a] = 1.0 + 0.002 * cos(0.7 * (double)a);
	}
	if (!bad)
		memcpy(S->truth, ts->th, sizeof(ts->th));
	if (!bad && (build(S, ts, err) != 0 || draw(S, ts, rng, err) != 0))
		bad = 1;
	gsl_rng_free(rng);
	if (bad) {
		basin_sim_free(S);
		return NULL;
	}
	return S;
}
