/*
 * t_core_posterior_grad.c: the shard posterior's gradient in every
 * scaling mode, with and without data weights and fixed scaling
 * parameters.
 *
 * het_posterior accumulates the likelihood gradient in the factored form
 * (physics columns per pair, one contrast and one offset sum per angle
 * mapped through the scaling rows once).  This test checks that against
 * two independent references on a heterodyne two_component problem (12
 * frames x 6 angles, 14 physics parameters free, truncated-normal priors,
 * data = model + a fixed wiggle): the dense formula
 * grad_x = -J^T r / sigma^2 + d log prior / dx built from
 * het_resid_eval_rows (reparam off, so u -> x is the logit per
 * coordinate and the chain rule is applied here by finite difference of
 * x(u)), and a central difference of log p in u.  Modes: individual,
 * constant, averaged, Fourier (order 2); for each, no weights and
 * weights in [0.5, 2]; individual also with half its scaling parameters
 * fixed.  The log density must equal -1/2 sum r^2 / sigma^2 + priors +
 * log-Jacobian computed here, to 1e-10 relative.  Without weights the
 * posterior uses the separable likelihood (het_separable), with unequal
 * weights the pair kernel; a second posterior forced onto the pair kernel
 * (pair_kernel = 1) must give the same log density (1e-10 relative) and
 * gradient (1e-9 of max(1, |g|)) at three points.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_posterior.h"
#include "het_transform.h"
#include "tap.h"

#define NF	12
#define NA	6
#define NMAX	(NA * NF * (NF - 1) / 2)
#define PMAX	(HET_P_HET_COUNT + 4 * NA)
#define SIGMA	0.01

static const double phi6[NA] = { -40.0, -10.0, 15.0, 40.0, 70.0, 100.0 };
static const double theta[HET_P_HET_COUNT] = {
	1200, 0.3, 40, 2500, -0.3, 60, 40, 0.4, 5, 0.3, 0.2, 0.5, 0.2, 2
};

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_posterior	*post;
	struct het_posterior	*pair;		/* forced pair kernel */
	struct het_pair		 pairs[NMAX];
	double			 y[NMAX], w[NMAX];
	struct het_post_prior	 pri[PMAX];
	double			 x0[PMAX];
	size_t			 n, p;
};

static void
prob_fini(struct prob *P)
{
	het_posterior_free(P->post);
	het_posterior_free(P->pair);
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	memset(P, 0, sizeof *P);
}

static int
prob_init(struct prob *P, enum het_scaling_mode mode, int weights,
    int fix_half, struct het_error *err)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	struct het_resid_spec	 rs;
	struct het_resid_eval	*ev;
	struct het_post_spec	 ps;
	unsigned char		 sfree[4 * NA];
	double			 c2[NMAX], lo[PMAX], hi[PMAX];
	size_t			 a, i, j, k, ns;

	memset(P, 0, sizeof *P);
	memset(&ms, 0, sizeof ms);
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.2;
	ms.start_frame = 2;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi6;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE, mode, NA, phi6);
	if ((P->m = het_model_alloc(&ms, err)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, err)) == NULL)
		return -1;
	/* angle innermost for half the list, outermost for the rest */
	for (i = 0; i < NF; i++)
		for (j = i + 1; j < NF; j++)
			for (a = 0; a < NA; a++, P->n++) {
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n].a = (uint32_t)((a + i) % NA);
			}
	for (k = 0; k < P->n; k++)
		P->w[k] = 0.5 + 1.5 * (0.5 + 0.5 * sin(0.37 * (double)k));
	ns = het_scaling_nparams(P->sc);
	for (k = 0; k < ns; k++)
		sfree[k] = !(fix_half && k % 2 == 1);
	memset(&rs, 0, sizeof rs);
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = theta;
	rs.s_free = sfree;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	rs.w = weights ? P->w : NULL;
	if ((P->r = het_resid_alloc(&rs, err)) == NULL)
		return -1;
	P->p = het_resid_nparams(P->r);
	het_resid_x0(P->r, P->x0);
	het_resid_bounds(P->r, lo, hi);
	if ((ev = het_resid_eval_alloc(P->r, err)) == NULL)
		return -1;
	if (het_resid_prepare(ev, P->x0, 0, err) != HET_OK) {
		het_resid_eval_free(ev);
		return -1;
	}
	het_resid_eval_model(ev, 0, P->n, c2);
	het_resid_eval_free(ev);
	for (k = 0; k < P->n; k++)
		P->y[k] = c2[k] + 0.02 * sin(1.3 * (double)k);
	for (k = 0; k < P->p; k++)
		het_post_prior_nlsq(P->x0[k], 0.05 * (hi[k] - lo[k]), lo[k],
		    hi[k], 2.0, &P->pri[k]);
	memset(&ps, 0, sizeof ps);
	ps.resid = P->r;
	ps.model = P->m;
	ps.sigma = SIGMA;
	ps.priors = P->pri;
	ps.nshards = 3;
	ps.reparam = 0;
	ps.chunk = 11;		/* several chunks, one partial */
	if ((P->post = het_posterior_alloc(&ps, err)) == NULL)
		return -1;
	ps.pair_kernel = 1;
	return (P->pair = het_posterior_alloc(&ps, err)) == NULL ? -1 : 0;
}

/*
 * Dense reference at u: lp and grad (in u) from het_resid_eval_rows, the
 * priors and het_transform; returns 0 on success.
 */
static int
dense_ref(struct prob *P, const double *u, double *lp, double *gu)
{
	struct het_resid_eval	*ev;
	struct het_resid_scratch *scr;
	struct het_bound	 bd[PMAX];
	struct het_error	 err;
	double			 x[PMAX], gx[PMAX], lj, d, *J, res[NMAX];
	size_t			 k, c, p = P->p;

	J = malloc(sizeof(double) * NMAX * PMAX);
	ev = het_resid_eval_alloc(P->r, &err);
	scr = het_resid_scratch_alloc(P->r, 64, &err);
	if (J == NULL || ev == NULL || scr == NULL) {
		free(J);
		het_resid_eval_free(ev);
		het_resid_scratch_free(scr);
		return -1;
	}
	for (k = 0; k < p; k++) {
		bd[k].kind = HET_BOUND_BOTH;
		bd[k].lo = P->pri[k].lo;
		bd[k].hi = P->pri[k].hi;
	}
	het_transform_forward(bd, p, u, x, &lj, NULL, NULL);
	*lp = lj;
	for (k = 0; k < p; k++) {
		*lp += het_post_prior_logpdf(&P->pri[k], x[k], &d) / 3.0;
		gx[k] = d / 3.0;
	}
	het_resid_prepare(ev, x, 1, &err);
	het_resid_eval_rows(ev, scr, 0, P->n, res, J);
	for (k = 0; k < P->n; k++) {
		*lp -= 0.5 * res[k] * res[k] / (SIGMA * SIGMA);
		for (c = 0; c < p; c++)
			gx[c] -= res[k] * J[k * p + c] / (SIGMA * SIGMA);
	}
	het_transform_grad(bd, p, u, gx, gu);
	free(J);
	het_resid_eval_free(ev);
	het_resid_scratch_free(scr);
	return 0;
}

/* The posterior and its forced pair-kernel twin at u and two points
 * nearby: the same log density and gradient. */
static void
both_paths(struct prob *P, const double *u0, const char *what)
{
	double u[PMAX], g[PMAX], gp[PMAX], lp, lpp, el = 0, eg = 0;
	size_t k, t;
	int rc = 0;

	for (t = 0; t < 3; t++) {
		for (k = 0; k < P->p; k++)
			u[k] = u0[k] + 0.05 * (double)t * sin(1.7 * (double)k +
			    (double)t);
		rc |= het_posterior_logp(P->post, u, &lp, g, NULL);
		rc |= het_posterior_logp(P->pair, u, &lpp, gp, NULL);
		el = fmax(el, fabs(lp - lpp) / fabs(lpp));
		for (k = 0; k < P->p; k++)
			eg = fmax(eg, fabs(g[k] - gp[k]) / fmax(1.0,
			    fabs(gp[k])));
	}
	ok(rc == HET_OK && el < 1e-10 && eg < 1e-9, "%s: log density (%.2g) "
	    "and gradient (%.2g) equal the pair kernel's", what, el, eg);
}

static void
check(const char *what, enum het_scaling_mode mode, int weights,
    int fix_half)
{
	struct prob		 P;
	struct het_error	 err;
	double			 u[PMAX], g[PMAX], gr[PMAX], lp, lpr, lp1, lp2;
	double			 h, fd, worst = 0, worst_fd = 0, e;
	size_t			 k, wk = 0;

	if (prob_init(&P, mode, weights, fix_half, &err) != 0) {
		ok(0, "%s: problem: %s", what, err.msg);
		prob_fini(&P);
		return;
	}
	/* a point away from the optimum, inside the bounds */
	het_posterior_to_u(P.post, P.x0, u, &err);
	for (k = 0; k < P.p; k++)
		u[k] += 0.1 * cos(0.9 * (double)k);
	if (het_posterior_logp(P.post, u, &lp, g, &err) != HET_OK ||
	    dense_ref(&P, u, &lpr, gr) != 0) {
		ok(0, "%s: evaluation: %s", what, err.msg);
		prob_fini(&P);
		return;
	}
	is_rel(lp, lpr, 1e-10, "%s: log density equals the dense sum", what);
	for (k = 0; k < P.p; k++) {
		e = fabs(g[k] - gr[k]) / fmax(1.0, fabs(gr[k]));
		if (e > worst) {
			worst = e;
			wk = k;
		}
		h = 1e-5;
		u[k] += h;
		het_posterior_logp(P.post, u, &lp1, NULL, &err);
		u[k] -= 2 * h;
		het_posterior_logp(P.post, u, &lp2, NULL, &err);
		u[k] += h;
		fd = (lp1 - lp2) / (2 * h);
		e = fabs(g[k] - fd) / fmax(1.0, fabs(fd));
		if (e > worst_fd)
			worst_fd = e;
	}
	diag("%s: p %zu, max rel diff to dense %.3g (%s), to central "
	    "difference %.3g", what, P.p, worst, het_posterior_name(P.post,
	    wk), worst_fd);
	ok(het_posterior_separable(P.post) == !weights &&
	    !het_posterior_separable(P.pair), "%s: %s likelihood; forced "
	    "pair kernel honoured", what, weights ? "pair-kernel" :
	    "separable");
	both_paths(&P, u, what);
	ok(worst < 1e-9, "%s: gradient equals the dense J^T r gradient",
	    what);
	ok(worst_fd < 1e-5, "%s: gradient matches central differences",
	    what);
	prob_fini(&P);
}

int
main(void)
{
	plan_lazy();
	check("individual", HET_SCALING_INDIVIDUAL, 0, 0);
	check("individual, weights", HET_SCALING_INDIVIDUAL, 1, 0);
	check("individual, half fixed, weights", HET_SCALING_INDIVIDUAL, 1,
	    1);
	check("constant", HET_SCALING_CONSTANT, 0, 0);
	check("constant, weights", HET_SCALING_CONSTANT, 1, 0);
	check("averaged", HET_SCALING_AVERAGED, 0, 0);
	check("averaged, weights", HET_SCALING_AVERAGED, 1, 0);
	check("fourier", HET_SCALING_FOURIER, 0, 0);
	check("fourier, weights, half fixed", HET_SCALING_FOURIER, 1, 1);
	return exit_status();
}
