/*
 * t_core_posterior_marg.c: contrast and offset integrated out of the
 * shard posterior (het_posterior_marg.c).
 *
 * Problem: heterodyne two_component, 14 frames, 2 angles (angle 0 every
 * pair: the complete-triangle pass; angle 1 two pairs in three: the
 * pair-row pass), individual scaling, data = model + N(0, 0.01^2) noise
 * from a fixed seed, power-law reparameterisation on, NLSQ-style
 * truncated-normal priors on the physics.  Two prior settings for
 * contrast and offset: flat (uniform, K = 1) and Gaussian (truncated
 * normal centred off the truth, K = 3, so the tempering matters).
 *
 * References, all independent of the closed form:
 *   - the marginal log density at a physics point equals the log of the
 *     integral of the full posterior's density (marginalise = 0) over
 *     every angle's (offset, contrast) in physical units, by a 2-D
 *     trapezoid rule per angle (the integrand factorises over angles) on
 *     a +-9 sd box in whitened coordinates, step 0.15 sd: the rule is
 *     exact to ~1e-15 for a Gaussian, the box misses 1e-18 of the mass;
 *     required to 1e-6 absolute in the log (1e-6 relative in the
 *     integral; observed 9e-11);
 *   - its gradient against a 5-point central difference in u (step 1e-5:
 *     f2's coordinate is so curved that 1e-4 leaves 3e-4 relative of
 *     truncation); required to 1e-6 of max(1, |g|_max) (observed 3e-8
 *     flat, 4e-9 Gaussian: rounding of f/h in the small components);
 *   - the conditional mean and covariance against the same quadrature's
 *     moments, to 1e-6 of the conditional sd (variance: 1e-6 relative;
 *     observed 3e-12 and 4e-10);
 *   - 20,000 conditional draws (het_posterior_complete with N(0, 1)
 *     deviates from a fixed-seed rng): sample means within 5 Monte Carlo
 *     sd (sd/sqrt(n)), variances within 5 sd of the sample variance
 *     (sqrt(2/n) var), covariance within 5 sd (sqrt((v_c v_o + c^2)/n)).
 *     With a fixed seed the result is deterministic; a change of seed
 *     fails 1 time in ~1.7 million per check.
 * Error paths: every refusal of the marginal (pair kernel, averaged
 * scaling, a fixed contrast, a beta_scaled prior) with its reason, the
 * conditional while sampling, a singular 2 x 2 precision (flat priors,
 * one pair in an angle), and the bound check.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "het_posterior.h"
#include "het_transform.h"
#include "tap.h"

#define NF	14
#define NA	2
#define NMAX	(NA * NF * (NF - 1) / 2)
#define PMAX	(HET_P_HET_COUNT + 4 * NA)
#define SIGMA	0.01
#define NDRAW	20000

static const double phi2[NA] = { -20.0, 35.0 };
static const double theta[HET_P_HET_COUNT] = {
	1200, 0.3, 40, 2500, -0.3, 60, 40, 0.4, 5, 0.3, 0.2, 0.5, 0.2, 2
};

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		 pairs[NMAX];
	double			 y[NMAX];
	struct het_post_prior	 pri[PMAX];
	double			 x0[PMAX], lo[PMAX], hi[PMAX];
	size_t			 n, p, nfp;
};

static void
prob_fini(struct prob *P)
{
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	memset(P, 0, sizeof *P);
}

/*
 * The problem; mode individual or averaged, fix_contrast fixes the
 * first contrast, one_pair keeps a single pair of angle 1.
 */
static int
prob_init(struct prob *P, enum het_scaling_mode mode, int fix_contrast,
    int one_pair, struct het_error *err)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	struct het_resid_spec	 rs;
	struct het_resid_eval	*ev;
	unsigned char		 sfree[4 * NA];
	double			 c2[NMAX];
	size_t			 a, i, j, k, ns;
	gsl_rng			*rng;

	memset(P, 0, sizeof *P);
	memset(&ms, 0, sizeof ms);
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.2;
	ms.start_frame = 2;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi2;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE, mode, NA, phi2);
	if ((P->m = het_model_alloc(&ms, err)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, err)) == NULL)
		return -1;
	for (i = 0; i < NF; i++)
		for (j = i + 1; j < NF; j++)
			for (a = 0; a < NA; a++) {
				if (a == 1 && (one_pair ? i + j != 1 :
				    (i + j) % 3 == 0))
					continue;
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n].a = (uint32_t)a;
				P->n++;
			}
	ns = het_scaling_nparams(P->sc);
	for (k = 0; k < ns; k++)
		sfree[k] = !(fix_contrast && k == 0);
	memset(&rs, 0, sizeof rs);
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = theta;
	rs.s_free = sfree;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	if ((P->r = het_resid_alloc(&rs, err)) == NULL)
		return -1;
	P->p = het_resid_nparams(P->r);
	P->nfp = het_resid_nphys_free(P->r);
	het_resid_x0(P->r, P->x0);
	het_resid_bounds(P->r, P->lo, P->hi);
	if ((ev = het_resid_eval_alloc(P->r, err)) == NULL)
		return -1;
	if (het_resid_prepare(ev, P->x0, 0, err) != HET_OK) {
		het_resid_eval_free(ev);
		return -1;
	}
	het_resid_eval_model(ev, 0, P->n, c2);
	het_resid_eval_free(ev);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 20240611);
	for (k = 0; k < P->n; k++)
		P->y[k] = c2[k] + gsl_ran_gaussian(rng, SIGMA);
	gsl_rng_free(rng);
	for (k = 0; k < P->p; k++)
		het_post_prior_nlsq(P->x0[k], 0.05 * (P->hi[k] - P->lo[k]),
		    P->lo[k], P->hi[k], 2.0, &P->pri[k]);
	return 0;
}

/* max(a, b), NaN when b is NaN (fmax would drop it) */
static double
maxn(double a, double b)
{
	return isnan(b) || b > a ? b : a;
}

/* The column of x named "what[a]". */
static size_t
col_of(const struct prob *P, const char *what, size_t a)
{
	char	nm[32];
	size_t	k;

	snprintf(nm, sizeof nm, "%s[%zu]", what, a);
	for (k = 0; k < P->p; k++)
		if (strcmp(het_resid_param_name(P->r, k), nm) == 0)
			return k;
	return 0;
}

/* Scaling priors: flat (uniform) or Gaussian, centred off x0. */
static void
prob_scaling_priors(struct prob *P, int gauss)
{
	size_t k;

	for (k = P->nfp; k < P->p; k++) {
		P->pri[k].lo = P->lo[k];
		P->pri[k].hi = P->hi[k];
		if (gauss) {
			P->pri[k].kind = HET_PRIOR_TRUNCNORMAL;
			P->pri[k].a = P->x0[k] * 1.01 + 0.002;
			P->pri[k].b = 0.004;
		} else {
			P->pri[k].kind = HET_PRIOR_UNIFORM;
			P->pri[k].a = P->pri[k].b = 0;
		}
	}
}

static struct het_posterior *
post_new(struct prob *P, long K, int marg, int pair_kernel,
    struct het_error *err)
{
	struct het_post_spec ps;

	memset(&ps, 0, sizeof ps);
	ps.resid = P->r;
	ps.model = P->m;
	ps.sigma = SIGMA;
	ps.priors = P->pri;
	ps.nshards = K;
	ps.reparam = 1;
	ps.marginalise = marg;
	ps.pair_kernel = pair_kernel;
	return het_posterior_alloc(&ps, err);
}

/*
 * G(x): the full posterior's log density at the physical point x with
 * the scaling entries in physical units (the log-Jacobians of their
 * transforms removed).  Returns -HUGE_VAL where it fails.
 */
static double
full_G(struct het_posterior *full, struct prob *P, const double *x)
{
	struct het_bound bd;
	double	u[PMAX], lp, l, xx;
	size_t	k;

	struct het_error err;

	if (het_posterior_to_u(full, x, u, &err) != HET_OK ||
	    het_posterior_logp(full, u, &lp, NULL, &err) != HET_OK) {
		return -HUGE_VAL;
	}
	for (k = P->nfp; k < P->p; k++) {
		bd.kind = HET_BOUND_BOTH;
		bd.lo = P->pri[k].lo;
		bd.hi = P->pri[k].hi;
		het_transform_forward(&bd, 1, &u[k], &xx, &l, NULL, NULL);
		lp -= l;
	}
	return lp;
}

/* Quadrature of one angle: log integral and moments of (c, o). */
struct quad {
	double	logI;
	double	mc, mo, vc, vo, cv;
	int	bad;
};

static void
quad_angle(struct het_posterior *full, struct prob *P, const double *xc,
    size_t col_c, size_t col_o, const double *mean, const double *cov,
    struct quad *q)
{
	double	x[PMAX], l11, l21, l22, h = 0.15, z1, z2, g, g0, w, c, o;
	double	s = 0, sc = 0, so = 0, scc = 0, soo = 0, sco = 0;
	int	i, j, nz = 60;

	memcpy(x, xc, P->p * sizeof *x);
	l11 = sqrt(cov[0]);
	l21 = cov[1] / l11;
	l22 = sqrt(cov[2] - l21 * l21);
	g0 = full_G(full, P, xc);
	q->bad = 0;
	for (i = -nz; i <= nz; i++)
		for (j = -nz; j <= nz; j++) {
			z1 = h * i;
			z2 = h * j;
			c = mean[0] + l11 * z1;
			o = mean[1] + l21 * z1 + l22 * z2;
			x[col_c] = c;
			x[col_o] = o;
			g = full_G(full, P, x);
			if (!isfinite(g)) {
				q->bad++;
				continue;
			}
			w = exp(g - g0);
			s += w;
			sc += w * c;
			so += w * o;
			scc += w * c * c;
			soo += w * o * o;
			sco += w * c * o;
		}
	q->logI = g0 + log(s * h * h * l11 * l22);
	q->mc = sc / s;
	q->mo = so / s;
	q->vc = scc / s - q->mc * q->mc;
	q->vo = soo / s - q->mo * q->mo;
	q->cv = sco / s - q->mc * q->mo;
}

static void
check_prior_case(int gauss)
{
	struct het_error	 err;
	struct prob		 P;
	struct het_posterior	*mp, *full;
	struct quad		 q[NA];
	const char		*tag = gauss ? "gaussian K=3" : "flat K=1";
	double			 u[PMAX], x[PMAX], g[PMAX], up[PMAX];
	double			 mean[2 * NA], cov[3 * NA], lp, lpf, tot;
	double			 f[4], fd, gmax = 1, dmax = 0, h;
	double			 e_m = 0, e_v = 0, sd, *dr, mu, var, cv;
	double			 dm = 0, dv = 0, dc = 0;
	long			 K = gauss ? 3 : 1;
	size_t			 k, a, i, d;
	int			 s, rc;
	gsl_rng			*rng;

	if (prob_init(&P, HET_SCALING_INDIVIDUAL, 0, 0, &err) != 0) {
		ok(0, "%s: problem: %s", tag, err.msg);
		return;
	}
	prob_scaling_priors(&P, gauss);
	mp = post_new(&P, K, 1, 0, &err);
	full = post_new(&P, K, 0, 0, &err);
	if (!ok(mp != NULL && full != NULL, "%s: both posteriors build",
	    tag)) {
		diag("%s", err.msg);
		goto out;
	}
	d = het_posterior_dim(mp);
	ok(het_posterior_marginal(mp) && d == P.nfp &&
	    het_posterior_nparams(mp) == P.p && het_posterior_dim(full) ==
	    P.p && !het_posterior_marginal(full) &&
	    strcmp(het_posterior_marg_reason(full), "") == 0,
	    "%s: marginal posterior samples %zu of %zu, the full one %zu",
	    tag, d, P.p, het_posterior_dim(full));
	/* a physics point off the truth */
	het_posterior_to_u(mp, P.x0, u, &err);
	for (k = 0; k < d; k++)
		u[k] += 0.004 * sin(1.7 * (double)k + 0.4);
	rc = het_posterior_logp(mp, u, &lp, g, &err);
	if (!ok(rc == HET_OK && het_posterior_conditional(mp, u, mean, cov,
	    &err) == HET_OK && het_posterior_complete(mp, u, NULL, x, &err) ==
	    HET_OK, "%s: marginal log density, conditional, completion",
	    tag)) {
		diag("%s", err.msg);
		goto out;
	}
	/* quadrature per angle at the conditional means */
	tot = 0;
	for (a = 0; a < NA; a++) {
		quad_angle(full, &P, x, col_of(&P, "contrast", a),
		    col_of(&P, "offset", a),
		    mean + 2 * a, cov + 3 * a, &q[a]);
		tot += q[a].logI;
	}
	tot -= (NA - 1) * full_G(full, &P, x);
	ok(q[0].bad == 0 && q[1].bad == 0, "%s: the quadrature box lies "
	    "inside the bounds", tag);
	diag("%s: log marginal %.12g, quadrature %.12g (diff %.2g)", tag, lp,
	    tot, lp - tot);
	is_double(lp, tot, 1e-6, "%s: marginal log density equals the "
	    "integral of the full density over (offset, contrast)", tag);
	for (a = 0; a < NA; a++) {
		e_m = maxn(e_m, fabs(mean[2 * a] - q[a].mc) / sqrt(q[a].vc));
		e_m = maxn(e_m, fabs(mean[2 * a + 1] - q[a].mo) /
		    sqrt(q[a].vo));
		e_v = maxn(e_v, fabs(cov[3 * a] / q[a].vc - 1));
		e_v = maxn(e_v, fabs(cov[3 * a + 2] / q[a].vo - 1));
		e_v = maxn(e_v, fabs(cov[3 * a + 1] - q[a].cv) /
		    sqrt(q[a].vc * q[a].vo));
	}
	diag("%s: conditional vs quadrature: mean %.2g sd, cov %.2g", tag,
	    e_m, e_v);
	ok(e_m < 1e-6 && e_v < 1e-6, "%s: conditional mean and covariance "
	    "equal the quadrature's moments", tag);
	/* gradient: 5-point central differences */
	h = 1e-5;
	for (k = 0; k < d; k++) {
		gmax = fmax(gmax, fabs(g[k]));
		for (s = 0; s < 4; s++) {
			memcpy(up, u, d * sizeof *up);
			up[k] += h * (s < 2 ? (s == 0 ? -2 : -1) :
			    (s == 2 ? 1 : 2));
			het_posterior_logp(mp, up, &f[s], NULL, NULL);
		}
		fd = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h);
		dmax = maxn(dmax, fabs(fd - g[k]));
	}
	diag("%s: gradient max |g| %.3g, max |g - fd| %.3g", tag, gmax,
	    dmax);
	ok(dmax < 1e-6 * gmax, "%s: gradient equals central differences",
	    tag);
	/* with the full posterior at the completed point: the marginal
	 * is larger than the density at any (o, c) */
	het_posterior_to_u(full, x, up, &err);
	het_posterior_logp(full, up, &lpf, NULL, NULL);
	ok(isfinite(lpf), "%s: full density finite at the completion", tag);
	/* conditional draws */
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 77);
	dr = malloc(sizeof(double) * 2 * NA * NDRAW);
	for (i = 0; i < NDRAW; i++) {
		double z[2 * NA];

		for (k = 0; k < 2 * NA; k++)
			z[k] = gsl_ran_gaussian_ziggurat(rng, 1.0);
		if (het_posterior_complete(mp, u, z, x, &err) != HET_OK)
			break;
		for (a = 0; a < NA; a++) {
			dr[(2 * a) * NDRAW + i] = x[col_of(&P, "contrast",
			    a)];
			dr[(2 * a + 1) * NDRAW + i] = x[col_of(&P, "offset",
			    a)];
		}
	}
	ok(i == NDRAW, "%s: %d conditional draws", tag, NDRAW);
	for (a = 0; a < NA && i == NDRAW; a++) {
		double m2[2], vv[2], c12 = 0, qm[2], qv[2];

		qm[0] = q[a].mc;
		qm[1] = q[a].mo;
		qv[0] = q[a].vc;
		qv[1] = q[a].vo;
		for (k = 0; k < 2; k++) {
			mu = 0;
			for (i = 0; i < NDRAW; i++)
				mu += dr[(2 * a + k) * NDRAW + i];
			mu /= NDRAW;
			var = 0;
			for (i = 0; i < NDRAW; i++)
				var += (dr[(2 * a + k) * NDRAW + i] - mu) *
				    (dr[(2 * a + k) * NDRAW + i] - mu);
			var /= NDRAW - 1;
			m2[k] = mu;
			vv[k] = var;
			sd = sqrt(qv[k]);
			dm = maxn(dm, fabs(mu - qm[k]) / (sd / sqrt(NDRAW)));
			dv = maxn(dv, fabs(var - qv[k]) / (qv[k] *
			    sqrt(2.0 / NDRAW)));
		}
		for (i = 0; i < NDRAW; i++)
			c12 += (dr[(2 * a) * NDRAW + i] - m2[0]) *
			    (dr[(2 * a + 1) * NDRAW + i] - m2[1]);
		c12 /= NDRAW - 1;
		cv = q[a].cv;
		dc = maxn(dc, fabs(c12 - cv) / sqrt((qv[0] * qv[1] + cv * cv) /
		    NDRAW));
		(void)vv;
	}
	diag("%s: draws: means %.2f, variances %.2f, covariances %.2f Monte "
	    "Carlo sd from the quadrature", tag, dm, dv, dc);
	ok(dm < 5 && dv < 5 && dc < 5, "%s: conditional draws have the "
	    "conditional's mean and covariance (5 Monte Carlo sd)", tag);
	free(dr);
	gsl_rng_free(rng);
out:
	het_posterior_free(mp);
	het_posterior_free(full);
	prob_fini(&P);
}

static void
check_refusals(void)
{
	struct het_error	 err;
	struct prob		 P;
	struct het_posterior	*post;
	double			 u[PMAX], mean[2 * NA], cov[3 * NA], lp;
	size_t			 k;

	/* pair kernel */
	prob_init(&P, HET_SCALING_INDIVIDUAL, 0, 0, &err);
	prob_scaling_priors(&P, 0);
	post = post_new(&P, 1, 1, 1, &err);
	ok(post != NULL && !het_posterior_marginal(post) &&
	    het_posterior_dim(post) == P.p, "pair kernel: contrast and "
	    "offset are sampled");
	like(het_posterior_marg_reason(post), "not separable", "pair "
	    "kernel: the reason says the likelihood is not separable");
	is_int(het_posterior_set_marginal(post, 1, &err), HET_EINVAL,
	    "pair kernel: switching the marginal on is refused");
	like(err.msg, "cannot be integrated out: the likelihood is not "
	    "separable", "pair kernel: message");
	het_posterior_to_u(post, P.x0, u, &err);
	is_int(het_posterior_conditional(post, u, mean, cov, &err),
	    HET_EINVAL, "conditional while sampling is refused");
	like(err.msg, "are sampled, not integrated out", "conditional "
	    "while sampling: message");
	is_int(het_posterior_cond_check(post, u, 6, &err), HET_EINVAL,
	    "bound check while sampling is refused");
	het_posterior_free(post);
	/* beta_scaled prior on one offset */
	k = col_of(&P, "offset", 1);
	P.pri[k].kind = HET_PRIOR_BETA_SCALED;
	P.pri[k].a = P.pri[k].b = 2;
	post = post_new(&P, 1, 1, 0, &err);
	ok(post != NULL && !het_posterior_marginal(post), "beta_scaled "
	    "prior: sampled");
	like(post ? het_posterior_marg_reason(post) : NULL, "neither "
	    "Gaussian nor uniform", "beta_scaled prior: reason");
	het_posterior_free(post);
	/* the bound check: an upper contrast bound just above the mean */
	prob_scaling_priors(&P, 0);
	post = post_new(&P, 1, 1, 0, &err);
	het_posterior_to_u(post, P.x0, u, &err);
	is_int(het_posterior_cond_check(post, u, 6, &err), HET_OK,
	    "bound check passes inside wide bounds");
	het_posterior_conditional(post, u, mean, cov, &err);
	het_posterior_free(post);
	P.pri[col_of(&P, "contrast", 0)].hi = mean[0] + 3 * sqrt(cov[0]);
	post = post_new(&P, 1, 1, 0, &err);
	is_int(het_posterior_cond_check(post, u, 6, &err), HET_ERANGE,
	    "bound check fails 3 sd from the upper contrast bound");
	like(err.msg, "reaches its bounds", "bound check: message");
	diag("%s", err.msg);
	is_int(het_posterior_set_marginal(post, 0, &err), HET_OK,
	    "switching the marginal off");
	ok(het_posterior_dim(post) == P.p && !het_posterior_marginal(post),
	    "off: every parameter sampled");
	is_int(het_posterior_set_marginal(post, 1, &err), HET_OK,
	    "switching it on again");
	ok(het_posterior_dim(post) == P.nfp, "on: the physics sampled");
	het_posterior_free(post);
	prob_fini(&P);
	/* averaged scaling */
	prob_init(&P, HET_SCALING_AVERAGED, 0, 0, &err);
	prob_scaling_priors(&P, 0);
	post = post_new(&P, 1, 1, 0, &err);
	ok(post != NULL && !het_posterior_marginal(post), "averaged: "
	    "sampled");
	like(post ? het_posterior_marg_reason(post) : NULL, "not "
	    "individual", "averaged: reason");
	het_posterior_free(post);
	prob_fini(&P);
	/* a fixed contrast */
	prob_init(&P, HET_SCALING_INDIVIDUAL, 1, 0, &err);
	prob_scaling_priors(&P, 0);
	post = post_new(&P, 1, 1, 0, &err);
	ok(post != NULL && !het_posterior_marginal(post), "fixed contrast: "
	    "sampled");
	like(post ? het_posterior_marg_reason(post) : NULL, "is fixed",
	    "fixed contrast: reason");
	het_posterior_free(post);
	prob_fini(&P);
	/* flat priors and one pair in angle 1: singular */
	prob_init(&P, HET_SCALING_INDIVIDUAL, 0, 1, &err);
	prob_scaling_priors(&P, 0);
	post = post_new(&P, 1, 1, 0, &err);
	ok(post != NULL && het_posterior_marginal(post), "one pair: the "
	    "marginal is built");
	het_posterior_to_u(post, P.x0, u, &err);
	is_int(het_posterior_logp(post, u, &lp, NULL, &err), HET_ERANGE,
	    "one pair, flat priors: the log density fails");
	like(err.msg, "not determined by 1 pairs", "singular: message");
	is_int(het_posterior_complete(post, u, NULL, mean, &err), HET_ERANGE,
	    "one pair, flat priors: completion fails");
	het_posterior_free(post);
	/* Gaussian priors make it proper */
	prob_scaling_priors(&P, 1);
	post = post_new(&P, 1, 1, 0, &err);
	is_int(het_posterior_logp(post, u, &lp, NULL, &err), HET_OK,
	    "one pair, Gaussian priors: finite");
	het_posterior_free(post);
	for (k = 0; k < 1; k++)
		prob_fini(&P);
	ok(strcmp(het_post_marg_name(HET_MARG_ON), "on") == 0 &&
	    strcmp(het_post_marg_name(HET_MARG_OFF), "off") == 0 &&
	    strcmp(het_post_marg_name(HET_MARG_INELIGIBLE), "ineligible") ==
	    0 && strcmp(het_post_marg_name(HET_MARG_BOUND), "bound") == 0 &&
	    strcmp(het_post_marg_name(99), "unknown") == 0,
	    "status names");
}

int
main(void)
{
	plan_lazy();
	check_prior_case(0);
	check_prior_case(1);
	check_refusals();
	return exit_status();
}
