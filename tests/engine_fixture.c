/*
 * engine_fixture.c: see engine_fixture.h.
 */
#include "config.h"

#include <poll.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "engine_fixture.h"
#include "het_config.h"
#include "het_dataset_write.h"
#include "het_model.h"
#include "het_params.h"
#include "tap.h"

const double fx_phi[FX_NA] = { 10.0, 80.0 };
const double fx_contrast[FX_NA] = { 0.30, 0.25 };
const double fx_offset[FX_NA] = { 1.00, 1.02 };

struct sim {
	struct het_model_eval *ev;
	gsl_rng		*rng;
	size_t		 nf;
};

static int
sim_fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	struct sim *s = arg;
	size_t i, j, nf = s->nf;
	double v;

	(void)err;
	for (i = 0; i < nf; i++)
		for (j = i; j < nf; j++) {
			v = fx_offset[k] + fx_contrast[k] *
			    het_model_eval_g(s->ev, k, i, j) +
			    gsl_ran_gaussian_ziggurat(s->rng, 0.002);
			c2[i * nf + j] = c2[j * nf + i] = v;
		}
	return HET_OK;
}

int
fx_simulate(const char *path, enum het_dtype dtype, size_t nf)
{
	struct het_model_spec ms;
	struct het_apsu_spec sp;
	struct het_model *m;
	struct het_error err;
	struct sim s;
	struct het_config *cfg;
	double theta[HET_MAX_PHYS], q = 0.01;
	size_t k;
	int rc;

	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_STATIC_REF;
	ms.q = q;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = nf;
	ms.n_angles = FX_NA;
	ms.phi = fx_phi;
	het_error_clear(&err);
	/* The mode's defaults, with the reference transport of the truth. */
	if ((cfg = het_config_default(HET_MODE_STATIC_REF, &err)) == NULL)
		return -1;
	for (k = 0; k < cfg->nphys; k++)
		theta[k] = cfg->phys[k].value;
	theta[het_params_find(cfg->family, "D0_ref")] = 5000.0;
	theta[het_params_find(cfg->family, "alpha_ref")] = 0.3;
	theta[het_params_find(cfg->family, "D_offset_ref")] = 0.0;
	het_config_free(cfg);
	m = het_model_alloc(&ms, &err);
	s.ev = m != NULL ? het_model_eval_alloc(m, &err) : NULL;
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	s.nf = nf;
	gsl_rng_set(s.rng, 7);
	if (s.ev == NULL || het_model_eval_prepare(s.ev, theta, NULL, &err))
		return -1;
	het_apsu_spec_init(&sp);
	sp.n_q = 1;
	sp.q = &q;
	sp.n_phi = FX_NA;
	sp.phi = fx_phi;
	sp.nbins = FX_NA;
	sp.frames = nf;
	sp.fill = sim_fill;
	sp.fill_arg = &s;
	sp.dtype = dtype;
	sp.frame_time = 0.1;
	rc = het_apsu_write(path, &sp, &err);
	if (rc != HET_OK)
		diag("simulate: %s", err.msg);
	gsl_rng_free(s.rng);
	het_model_eval_free(s.ev);
	het_model_free(m);
	return rc;
}

int
fx_next_event(struct het_evq *q, struct het_event *ev, int ms)
{
	struct pollfd p;

	for (;;) {
		if (het_evq_drain(q, ev, 1) == 1)
			return 1;
		p.fd = het_evq_fd(q);
		p.events = POLLIN;
		if (poll(&p, 1, ms) <= 0)
			return 0;
	}
}

struct het_fitjob_result *
fx_fit_text(const char *text, const char *out, int per_angle)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_result *res = NULL;
	struct het_config *cfg;
	struct het_error err;

	het_error_clear(&err);
	cfg = het_config_load_string(text, strlen(text), "test.yaml", &err);
	if (cfg == NULL) {
		diag("config: %s", err.msg);
		return NULL;
	}
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.outdir = out;
	spec.threads = 1;
	spec.no_grids = 1;
	spec.per_angle = per_angle;
	if (het_fitjob_execute(&spec, NULL, NULL, &res, &err) != HET_OK)
		diag("fit: %s", err.msg);
	het_config_free(cfg);
	return res;
}
