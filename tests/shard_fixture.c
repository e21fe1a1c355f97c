/*
 * shard_fixture.c: the small homodyne static shard of t_worker_wire and
 * t_worker_shard (30 frames x 2 angles, D0 and alpha free, D_offset
 * fixed, averaged scaling; the data the model at theta plus N(0, 0.01)
 * noise from mt19937 seed 3, the same on every CPU).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "shard_fixture.h"


const double phi2[NA] = { 0.0, 90.0 };
const double theta[3] = { 2000.0, 0.4, 20.0 };
const unsigned char hfree[3] = { 1, 1, 0 };
const double s0[2] = { 0.3, 1.0 };
const double xtrue[NP] = { 2000.0, 0.4, 0.3, 1.0 };

struct het_pair	pairs[NMAX];
double		y[NMAX];
size_t		npairs;
struct het_post_prior pri[NP];


/* Fill ws for a homodyne static shard over the simulated data. */
int
make_shard(struct het_wire_shard *ws, long id)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	struct het_model	*m;
	struct het_model_eval	*ev;
	struct het_error	 err;
	double			 g[NMAX];
	gsl_rng			*rng;
	size_t			 a, i, j, k;

	memset(ws, 0, sizeof *ws);
	memset(&ms, 0, sizeof ms);
	ms.mode = HET_MODE_HOM_STATIC;
	ms.q = 0.02;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi2;
	ms.gap = 2e6;
	het_scaling_default_spec(&ss, HET_FAMILY_HOMODYNE,
	    HET_SCALING_AVERAGED, NA, phi2);
	if (npairs == 0) {
		for (a = 0; a < NA; a++)
			for (i = 0; i < NF; i++)
				for (j = i + 1; j < NF; j++, npairs++) {
					pairs[npairs].i = (uint32_t)i;
					pairs[npairs].j = (uint32_t)j;
					pairs[npairs].a = (uint32_t)a;
				}
		/* the data, straight from the model and the scaling */
		if ((m = het_model_alloc(&ms, &err)) == NULL ||
		    (ev = het_model_eval_alloc(m, &err)) == NULL ||
		    het_model_eval_prepare(ev, theta, NULL, &err) != HET_OK)
			return -1;
		het_model_eval_pairs(ev, npairs, pairs, g, NULL);
		het_model_eval_free(ev);
		het_model_free(m);
		rng = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(rng, 3);
		for (k = 0; k < npairs; k++)
			y[k] = s0[1] + s0[0] * g[k] +
			    gsl_ran_gaussian_ziggurat(rng, 0.01);
		gsl_rng_free(rng);
		pri[0] = (struct het_post_prior){ HET_PRIOR_UNIFORM, 0, 0,
		    100, 1e5 };
		pri[1] = (struct het_post_prior){ HET_PRIOR_NORMAL, 0, 2,
		    -2, 2 };
		pri[2] = (struct het_post_prior){ HET_PRIOR_BETA_SCALED, 2, 2,
		    0, 1 };
		pri[3] = (struct het_post_prior){ HET_PRIOR_TRUNCNORMAL, 1,
		    0.5, -HUGE_VAL, HUGE_VAL };
	}
	ws->shard = id;
	ws->model = ms;
	ws->scaling = ss;
	ws->theta = theta;
	ws->free = hfree;
	ws->nscal = 2;
	ws->s = s0;
	ws->n = npairs;
	ws->pairs = pairs;
	ws->y = y;
	ws->sigma = 0.01;
	ws->np = NP;
	ws->priors = pri;
	ws->nshards = 1;
	ws->reparam = 1;
	het_shard_settings_default(&ws->settings);
	ws->settings.num_warmup = 200;
	ws->settings.num_samples = 200;
	ws->settings.num_chains = 2;
	ws->settings.seed = 5;
	return 0;
}

