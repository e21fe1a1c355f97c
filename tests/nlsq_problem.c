/*
 * nlsq_problem.c: a small simulated fitting problem, fitted by hetui's
 * NLSQ engine, printed as JSON for tests/nlsq_scipy.py (which fits the
 * same data with scipy.optimize.least_squares and compares).
 *
 *	nlsq_problem MODE LOSS F_SCALE
 *
 * MODE is static_ref (heterodyne, 3 free physics parameters) or static
 * (homodyne), over 40 frames x 3 angles with individual contrast/offset
 * per angle and seeded Gaussian noise of sd 0.002; LOSS one of linear,
 * soft_l1, huber, cauchy, arctan.  The JSON holds the model setup, all
 * fixed and free parameters, the pairs and data, the start, the bounds,
 * and hetui's result (x, cost, reason).
 */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit.h"

#define NF	40
#define NA	3
#define NPAIR	(NA * NF * (NF - 1) / 2)

static const double phi3[NA] = { -37.2, 11.9, 68.35 };
static const double th_het[HET_P_HET_COUNT] = {
	12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.219, 12.7,
	0.413, 0.0519, 0.317, 0.1093, 3.31
};
static const double th_hom[HOM_P_COUNT] = {
	2385.0, -0.613, 37.1, 0.00173, 0.437, 0.00021, 4.17
};

static void
print_array(const char *name, const double *v, size_t n, int last)
{
	size_t k;

	printf("\"%s\": [", name);
	for (k = 0; k < n; k++)
		printf("%s%.17g", k ? ", " : "", v[k]);
	printf("]%s\n", last ? "" : ",");
}

int
main(int argc, char **argv)
{
	static struct het_pair pairs[NPAIR];
	static double y[NPAIR], tmp[NPAIR];
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct het_fit_options o;
	struct het_fit_result *res = NULL;
	struct het_resid_eval *ev;
	struct het_error err;
	struct het_model *m;
	struct het_scaling *sc;
	struct het_resid *r;
	enum het_mode mode;
	unsigned char fr[HET_MAX_PHYS];
	double s[2 * NA], truth[32], x0[32], lo[32], hi[32];
	size_t n = 0, a, i, j, k, p, nphys;
	int het, rc;
	gsl_rng *rng;

	if (argc != 4 || het_mode_parse(argv[1], &mode, &err) != HET_OK ||
	    (mode != HET_MODE_STATIC_REF && mode != HET_MODE_HOM_STATIC)) {
		fprintf(stderr, "usage: nlsq_problem static_ref|static LOSS "
		    "F_SCALE\n");
		return 2;
	}
	het_fit_default_options(&o);
	for (k = 0; k < HET_LOSS_COUNT; k++)
		if (strcmp(argv[2], het_config_loss_name(k)) == 0)
			o.nlsq.loss = (enum het_nlsq_loss)k;
	if (strcmp(argv[2], het_config_loss_name(o.nlsq.loss)) != 0) {
		fprintf(stderr, "nlsq_problem: unknown loss %s\n", argv[2]);
		return 2;
	}
	o.nlsq.f_scale = atof(argv[3]);
	o.nlsq.ftol = 1e-12;
	o.nlsq.xtol = 1e-12;
	o.nlsq.gtol = 1e-12;
	o.nlsq.max_nfev = 2000;
	o.noise_sigma = 0.002;
	het = mode == HET_MODE_STATIC_REF;
	nphys = het_mode_nphys(mode);

	memset(&ms, 0, sizeof(ms));
	ms.mode = mode;
	ms.q = het ? 0.0102 : 0.0087;
	ms.dt = het ? 0.0123 : 0.053;
	ms.start_frame = 3;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi3;
	het_scaling_default_spec(&ss, het_mode_family(mode),
	    HET_SCALING_INDIVIDUAL, NA, phi3);
	if ((m = het_model_alloc(&ms, &err)) == NULL ||
	    (sc = het_scaling_alloc(&ss, &err)) == NULL)
		goto fail;
	for (a = 0; a < NA; a++) {
		s[a] = 0.29 + 0.031 * (double)a;
		s[NA + a] = 1.0 + 0.0093 * ((double)a - 1);
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, n++) {
				pairs[n].i = (uint32_t)i;
				pairs[n].j = (uint32_t)j;
				pairs[n].a = (uint32_t)a;
			}
	}
	for (k = 0; k < nphys; k++)
		fr[k] = (unsigned char)het_mode_default_vary(mode, k);
	memset(&rs, 0, sizeof(rs));
	rs.model = m;
	rs.scaling = sc;
	rs.theta = het ? th_het : th_hom;
	rs.free = fr;
	rs.s = s;
	rs.n = n;
	rs.pairs = pairs;
	rs.y = y;
	if ((r = het_resid_alloc(&rs, &err)) == NULL)
		goto fail;
	p = het_resid_nparams(r);
	het_resid_x0(r, truth);
	het_resid_bounds(r, lo, hi);
	if ((ev = het_resid_eval_alloc(r, &err)) == NULL ||
	    het_resid_prepare(ev, truth, 0, &err) != HET_OK)
		goto fail;
	het_resid_eval_model(ev, 0, n, y);
	het_resid_eval_free(ev);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 2385);
	for (k = 0; k < n; k++)
		y[k] += gsl_ran_gaussian(rng, 0.002);
	gsl_rng_free(rng);
	for (k = 0; k < p; k++)
		x0[k] = truth[k] * (k % 2 ? 0.93 : 1.08);

	rc = het_fit_run(NULL, r, x0, NULL, NULL, &o, &res, &err);
	if (rc != HET_OK)
		goto fail;
	printf("{\n\"mode\": \"%s\", \"loss\": \"%s\", \"f_scale\": %.17g,\n",
	    het_mode_name(mode), het_config_loss_name(o.nlsq.loss),
	    o.nlsq.f_scale);
	printf("\"q\": %.17g, \"dt\": %.17g, \"start_frame\": %ld, "
	    "\"n_frames\": %d,\n", ms.q, ms.dt, ms.start_frame, NF);
	print_array("phi", phi3, NA, 0);
	print_array("theta", het ? th_het : th_hom, nphys, 0);
	for (k = 0; k < nphys; k++)
		tmp[k] = fr[k];
	print_array("free", tmp, nphys, 0);
	for (k = 0; k < n; k++)
		tmp[k] = pairs[k].i;
	print_array("pi", tmp, n, 0);
	for (k = 0; k < n; k++)
		tmp[k] = pairs[k].j;
	print_array("pj", tmp, n, 0);
	for (k = 0; k < n; k++)
		tmp[k] = pairs[k].a;
	print_array("pa", tmp, n, 0);
	print_array("y", y, n, 0);
	print_array("x0", x0, p, 0);
	print_array("lo", lo, p, 0);
	print_array("hi", hi, p, 0);
	print_array("x", res->x, p, 0);
	printf("\"nfev\": %ld, \"reason\": \"%s\", \"cost\": %.17g\n}\n",
	    res->nfev, het_nlsq_reason_name(res->reason), res->cost);
	het_fit_result_free(res);
	het_resid_free(r);
	het_scaling_free(sc);
	het_model_free(m);
	return 0;
fail:
	fprintf(stderr, "nlsq_problem: %s\n", err.msg);
	return 1;
}
