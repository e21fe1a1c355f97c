/*
 * t_core_posterior.c: the log posterior of one CMC shard.
 *
 * Checks:
 *   - every prior kind's log density and derivative against closed forms
 *     and central differences;
 *   - the gradient of log p in unconstrained coordinates against central
 *     differences for homodyne laminar_flow (all seven prior kinds, with
 *     and without the power-law reparameterisation, K = 1 and K = 4, with
 *     one-sided and infinite bounds) and heterodyne two_component with
 *     reparam (three pairs);
 *   - prior^(1/K): lp(K = 4) - lp(K = 1) = -3/4 sum log prior(x) exactly;
 *   - the change of variables: lp - log|det dx/du| (numerical Jacobian)
 *     is the same with and without reparam at the same physical point;
 *   - round trips x -> u -> x; the NLSQ-informed default prior; priors
 *     from a configuration, with and without NLSQ values;
 *   - every error path with its message.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_bridge.h"
#include "het_posterior.h"
#include "het_transform.h"
#include "tap.h"

#define NF	12
#define NA	2
#define NMAX	(NA * NF * (NF - 1) / 2)
#define PMAX	32

static const double phi2[NA] = { 12.5, 97.0 };
static const double theta_hom[HOM_P_COUNT] = {
	2385.0, -0.613, 37.1, 0.00173, 0.437, 0.00021, 4.17
};
static const double theta_het[HET_P_HET_COUNT] = {
	12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.219, 12.7,
	0.413, 0.0519, 0.317, 0.1093, 3.31
};

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		 pairs[NMAX];
	double			 y[NMAX];
	size_t			 n, p;
	double			 x0[PMAX];
	double			 lo[PMAX], hi[PMAX];
};

static void
prob_fini(struct prob *P)
{
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	memset(P, 0, sizeof *P);
}

/* A problem whose data are the model at theta plus a fixed wiggle. */
static int
prob_init(struct prob *P, enum het_mode mode, const unsigned char *fr)
{
	struct het_model_spec	 ms;
	struct het_scaling_spec	 ss;
	struct het_resid_spec	 rs;
	struct het_resid_eval	*ev;
	struct het_error	 err;
	double			 c2[NMAX];
	size_t			 a, i, j, k;
	int			 het = het_mode_family(mode) ==
				    HET_FAMILY_HETERODYNE;

	memset(P, 0, sizeof *P);
	memset(&ms, 0, sizeof ms);
	ms.mode = mode;
	ms.q = het ? 0.0051 : 0.0087;
	ms.dt = het ? 0.0123 : 0.053;
	ms.start_frame = 3;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi2;
	ms.gap = 2e6;
	het_scaling_default_spec(&ss, het_mode_family(mode),
	    HET_SCALING_INDIVIDUAL, NA, phi2);
	if ((P->m = het_model_alloc(&ms, &err)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, &err)) == NULL)
		return -1;
	for (a = 0; a < NA; a++)
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, P->n++) {
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n].a = (uint32_t)a;
			}
	memset(&rs, 0, sizeof rs);
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = het ? theta_het : theta_hom;
	rs.free = fr;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	if ((P->r = het_resid_alloc(&rs, &err)) == NULL)
		return -1;
	P->p = het_resid_nparams(P->r);
	het_resid_x0(P->r, P->x0);
	het_resid_bounds(P->r, P->lo, P->hi);
	if ((ev = het_resid_eval_alloc(P->r, &err)) == NULL ||
	    het_resid_prepare(ev, P->x0, 0, &err) != HET_OK)
		return -1;
	het_resid_eval_model(ev, 0, P->n, c2);
	het_resid_eval_free(ev);
	for (k = 0; k < P->n; k++)
		P->y[k] = c2[k] + 0.01 * sin(1.7 * (double)k);
	return 0;
}

static struct het_posterior *
post_make(struct prob *P, const struct het_post_prior *pri, long K,
    int reparam, struct het_error *err)
{
	struct het_post_spec ps;

	memset(&ps, 0, sizeof ps);
	ps.resid = P->r;
	ps.model = P->m;
	ps.sigma = 0.01;
	ps.priors = pri;
	ps.nshards = K;
	ps.reparam = reparam;
	ps.chunk = 7;		/* several chunks, one partial */
	/*
	 * The checks here are of priors, transforms and reparam, with
	 * central differences down to steps of 1e-6: they keep the pair
	 * kernel, whose log density is exact to rounding.  The separable
	 * pass (absolute error about 1e-11 on this complete triangle, from
	 * its sums of products) is held against it in t_core_separable and
	 * t_core_posterior_grad.
	 */
	ps.pair_kernel = 1;
	return het_posterior_alloc(&ps, err);
}

/* Central difference of log p along u[m] with step h. */
static int
fd1(struct het_posterior *post, const double *u0, size_t m, double h,
    double *d)
{
	double	u[PMAX], lp1, lp2;
	size_t	p = het_posterior_dim(post);

	memcpy(u, u0, p * sizeof *u);
	u[m] = u0[m] + h;
	if (het_posterior_logp(post, u, &lp1, NULL, NULL) != HET_OK)
		return -1;
	u[m] = u0[m] - h;
	if (het_posterior_logp(post, u, &lp2, NULL, NULL) != HET_OK)
		return -1;
	*d = (lp1 - lp2) / (2 * h);
	return 0;
}

/*
 * Max relative error of the gradient against Richardson-extrapolated
 * central differences, (4 D(h/2) - D(h)) / 3, with h chosen per
 * coordinate among 1e-2 .. 1e-6 where |D(h/2) - D(h)| is smallest
 * (logit coordinates of wide bounds are strongly curved).
 */
static double
grad_err(struct het_posterior *post, const double *u0)
{
	double	g[PMAX], gd[PMAX], lp, e = 0, d, sc = 0, h, d1, d2,
		best;
	size_t	m, p = het_posterior_dim(post);

	if (het_posterior_logp(post, u0, &lp, g, NULL) != HET_OK)
		return HUGE_VAL;
	for (m = 0; m < p; m++) {
		best = HUGE_VAL;
		for (h = 1e-2; h > 5e-7; h /= 10) {
			if (fd1(post, u0, m, h, &d1) != 0 ||
			    fd1(post, u0, m, h / 2, &d2) != 0)
				continue;
			if (fabs(d2 - d1) < best) {
				best = fabs(d2 - d1);
				gd[m] = (4 * d2 - d1) / 3;
			}
		}
		if (best == HUGE_VAL)
			return HUGE_VAL;
		if (fabs(g[m]) > sc)
			sc = fabs(g[m]);
	}
	for (m = 0; m < p; m++) {
		d = fabs(gd[m] - g[m]) / (fabs(g[m]) + 1e-3 * sc + 1);
		if (getenv("T_VERBOSE"))
			diag("m=%zu g=%.10g fd=%.10g lp=%g", m, g[m], gd[m], lp);
		if (d > e)
			e = d;
	}
	return e;
}

/* log |det A| of an n x n matrix (Gaussian elimination, partial pivot). */
static double
logdet(double *A, size_t n)
{
	double	ld = 0, t, f;
	size_t	i, j, k, piv;

	for (k = 0; k < n; k++) {
		piv = k;
		for (i = k + 1; i < n; i++)
			if (fabs(A[i * n + k]) > fabs(A[piv * n + k]))
				piv = i;
		for (j = 0; j < n; j++) {
			t = A[k * n + j];
			A[k * n + j] = A[piv * n + j];
			A[piv * n + j] = t;
		}
		ld += log(fabs(A[k * n + k]));
		for (i = k + 1; i < n; i++) {
			f = A[i * n + k] / A[k * n + k];
			for (j = k; j < n; j++)
				A[i * n + j] -= f * A[k * n + j];
		}
	}
	return ld;
}

/*
 * log |det dx/du| at u by central differences, steps of 1e-6 of a
 * coordinate's size (at most 1e-6: rates on anchor times can be 1e-3).
 */
static double
num_logjac(struct het_posterior *post, const double *u0)
{
	double	A[PMAX * PMAX], u[PMAX], x1[PMAX], x2[PMAX], h;
	size_t	i, m, p = het_posterior_dim(post);

	for (m = 0; m < p; m++) {
		h = 1e-6 * fmax(fmin(fabs(u0[m]), 1.0), 1e-6);
		memcpy(u, u0, p * sizeof *u);
		u[m] = u0[m] + h;
		het_posterior_to_x(post, u, x1);
		u[m] = u0[m] - h;
		het_posterior_to_x(post, u, x2);
		for (i = 0; i < p; i++)
			A[i * p + m] = (x1[i] - x2[i]) / (2 * h);
	}
	return logdet(A, p);
}

static void
set_prior(struct het_post_prior *pr, enum het_prior_kind kind, double a,
    double b, double lo, double hi)
{
	pr->kind = kind;
	pr->a = a;
	pr->b = b;
	pr->lo = lo;
	pr->hi = hi;
}

/* Homodyne laminar priors: every kind, bounded on both sides. */
static void
hom_priors(const struct prob *P, struct het_post_prior *pr)
{
	size_t m;

	for (m = 0; m < P->p; m++)
		set_prior(&pr[m], HET_PRIOR_UNIFORM, 0, 0, P->lo[m],
		    P->hi[m]);
	pr[0].kind = HET_PRIOR_LOGNORMAL;		/* D0 */
	pr[0].a = log(2000.0);
	pr[0].b = 1;
	set_prior(&pr[1], HET_PRIOR_NORMAL, 0, 1, P->lo[1], P->hi[1]);
	pr[3].kind = HET_PRIOR_HALFNORMAL;		/* gamma_dot_t0 */
	pr[3].b = 0.01;
	set_prior(&pr[4], HET_PRIOR_BETA_SCALED, 2, 3, P->lo[4], P->hi[4]);
	set_prior(&pr[5], HET_PRIOR_TRUNCNORMAL, 0, 0.02, P->lo[5],
	    P->hi[5]);
	set_prior(&pr[6], HET_PRIOR_TRUNCNORMAL, 0, 5, P->lo[6], P->hi[6]);
	set_prior(&pr[7], HET_PRIOR_EXPONENTIAL, 2, 0, P->lo[7], P->hi[7]);
	set_prior(&pr[8], HET_PRIOR_BETA_SCALED, 2, 2, P->lo[8], P->hi[8]);
	set_prior(&pr[10], HET_PRIOR_NORMAL, 1, 0.1, P->lo[10], P->hi[10]);
}

static void
test_prior_pdfs(void)
{
	struct het_post_prior	pr;
	double			d, d1, d2, l, h = 1e-6, x;
	int			k;
	static const double	xs[HET_PRIOR_COUNT] = {
		0.3, 0.3, 0.3, 0.7, 0.4, 0.6, 0.35
	};
	static const double	want[HET_PRIOR_COUNT] = {
		-0.69314718055994531,	/* uniform on [0, 2] */
		/* normal(0.5, 0.25): -0.5 (0.8)^2 - ln 0.25 - ln sqrt(2pi) */
		-0.5 * 0.64 + 1.3862943611198906 - 0.91893853320467274,
		-0.5 * 0.64 + 1.3862943611198906 - 0.91893853320467274,
		/* lognormal(0, 0.5) at 0.7 */
		0,
		/* halfnormal(0.5) at 0.4: ln 2 - 0.5 0.64 - ln 0.5 - c */
		0.69314718055994531 - 0.32 + 0.69314718055994531 -
		    0.91893853320467274,
		/* exponential(3) at 0.6 */
		1.0986122886681098 - 1.8,
		/* beta(2, 3) on [0, 2] at 0.35: z = 0.175,
		 * ln(12 z (1-z)^2) - ln 2 */
		0
	};
	double	w[HET_PRIOR_COUNT];

	memcpy(w, want, sizeof w);
	w[3] = -0.5 * pow(log(0.7) / 0.5, 2) - log(0.5) -
	    0.91893853320467274 - log(0.7);
	w[6] = log(12 * 0.175 * 0.825 * 0.825) - log(2.0);
	for (k = 0; k < HET_PRIOR_COUNT; k++) {
		set_prior(&pr, k, 0.5, 0.25, 0, 2);
		if (k == HET_PRIOR_LOGNORMAL)
			pr.a = 0, pr.b = 0.5;
		if (k == HET_PRIOR_HALFNORMAL)
			pr.b = 0.5;
		if (k == HET_PRIOR_EXPONENTIAL)
			pr.a = 3;
		if (k == HET_PRIOR_BETA_SCALED)
			pr.a = 2, pr.b = 3;
		x = xs[k];
		l = het_post_prior_logpdf(&pr, x, &d);
		is_double(l, w[k], 1e-12, "%s log density at %g",
		    het_prior_name(k), x);
		het_post_prior_logpdf(&pr, x + h, &d1);
		d1 = het_post_prior_logpdf(&pr, x + h, &d2);
		d2 = het_post_prior_logpdf(&pr, x - h, &d2);
		is_double(d, (d1 - d2) / (2 * h), 1e-6 * (1 + fabs(d)),
		    "%s derivative", het_prior_name(k));
		ok(het_post_prior_logpdf(&pr, 2.5, &d) == -HUGE_VAL,
		    "%s: zero density above the upper bound",
		    het_prior_name(k));
	}
}

/* Gradient, K scaling, round trips, Jacobian on homodyne laminar. */
static void
test_hom(void)
{
	struct prob		 P;
	struct het_post_prior	 pr[PMAX];
	struct het_posterior	*p1, *p4, *pr1, *pr4;
	struct het_error	 err;
	double			 u[PMAX], ur[PMAX], x[PMAX], lp1, lp4, lr,
				 sum = 0, d, e;
	size_t			 m;
	int			 k;

	if (prob_init(&P, HET_MODE_HOM_LAMINAR, NULL) != 0) {
		ok(0, "homodyne laminar problem");
		return;
	}
	is_int((long long)P.p, 11, "laminar with 2 angles: 7 + 4 free");
	hom_priors(&P, pr);
	p1 = post_make(&P, pr, 1, 0, &err);
	p4 = post_make(&P, pr, 4, 0, &err);
	pr1 = post_make(&P, pr, 1, 1, &err);
	pr4 = post_make(&P, pr, 4, 1, &err);
	ok(p1 && p4 && pr1 && pr4, "posteriors built");
	if (!(p1 && p4 && pr1 && pr4))
		goto out;
	is_int((long long)het_posterior_nreparam(p1), 0, "no pairs without "
	    "reparam");
	is_int((long long)het_posterior_nreparam(pr1), 2, "laminar: (D0, "
	    "alpha) and (gamma_dot_t0, beta)");
	/* homodyne t = k dt, t_max = (N - 1) dt */
	is_double(het_posterior_tref(pr1), sqrt(0.053 * 0.053 * (NF - 1)),
	    1e-15, "t_ref = sqrt(dt t_max)");
	ok(strcmp(het_posterior_name(p1, 0), "D0") == 0 &&
	    strcmp(het_posterior_name(p1, 7), "contrast[0]") == 0,
	    "names follow het_resid");
	for (k = 0; k < 3; k++) {
		/* three points: x0, and two shifted ones */
		for (m = 0; m < P.p; m++) {
			x[m] = P.x0[m];
			if (k > 0)
				x[m] = P.lo[m] + (P.hi[m] - P.lo[m]) *
				    (0.3 + 0.2 * k + 0.01 * (double)m) * 0.6;
		}
		if (k > 0) {
			x[0] = 1500 * k;
			x[3] = 0.002 * k;
		}
		ok(het_posterior_to_u(p1, x, u, &err) == HET_OK &&
		    het_posterior_to_u(pr1, x, ur, &err) == HET_OK,
		    "point %d to u", k);
		e = grad_err(p1, u);
		ok(e < 1e-6, "point %d, K = 1: gradient matches central "
		    "differences (max rel err %.2g)", k, e);
		e = grad_err(p4, u);
		ok(e < 1e-6, "point %d, K = 4: gradient (max rel err %.2g)", k,
		    e);
		e = grad_err(pr1, ur);
		ok(e < 1e-6, "point %d, reparam, K = 1: gradient (max rel "
		    "err %.2g)", k, e);
		e = grad_err(pr4, ur);
		ok(e < 1e-6, "point %d, reparam, K = 4: gradient (max rel "
		    "err %.2g)", k, e);
		/* prior^(1/K) */
		het_posterior_logp(p1, u, &lp1, NULL, NULL);
		het_posterior_logp(p4, u, &lp4, NULL, NULL);
		sum = 0;
		for (m = 0; m < P.p; m++)
			sum += het_post_prior_logpdf(&pr[m], x[m], &d);
		is_double(lp4 - lp1, -0.75 * sum, 1e-9 * (1 + fabs(lp1)),
		    "point %d: lp(K=4) - lp(K=1) = -3/4 sum log prior", k);
		/* Jacobian of the change of variables, numerically */
		het_posterior_logp(pr1, ur, &lr, NULL, NULL);
		d = (lr - num_logjac(pr1, ur)) - (lp1 - num_logjac(p1, u));
		is_double(d, 0, 1e-6 * (1 + fabs(lp1)), "point %d: lp - "
		    "log|dx/du| is the same with and without reparam", k);
	}
	/* round trips */
	het_posterior_to_x(pr1, ur, u);
	e = 0;
	for (m = 0; m < P.p; m++)
		if (fabs(u[m] - x[m]) / fabs(x[m]) > e)
			e = fabs(u[m] - x[m]) / fabs(x[m]);
	ok(e < 1e-12, "reparam x -> u -> x round trip (rel err %.2g)", e);
	het_posterior_to_u(p1, x, u, &err);
	het_posterior_to_x(p1, u, ur);
	e = 0;
	for (m = 0; m < P.p; m++)
		if (fabs(ur[m] - x[m]) / fabs(x[m]) > e)
			e = fabs(ur[m] - x[m]) / fabs(x[m]);
	ok(e < 1e-12, "plain x -> u -> x round trip (rel err %.2g)", e);
	/* the reparam prefactor leaving its bounds */
	het_posterior_to_u(pr1, P.x0, ur, &err);
	ur[0] += 20;
	ok(het_posterior_logp(pr1, ur, &lr, NULL, &err) == HET_ERANGE,
	    "reparam: D0 above its bound is HET_ERANGE");
	like(err.msg, "D0 = ", "message names D0");
	ok(het_posterior_nuts_logp(pr1, ur, &lr, u) != 0, "the NUTS "
	    "adapter reports the failure");
	x[0] = P.hi[0] * 2;
	ok(het_posterior_to_u(pr1, x, u, &err) == HET_ERANGE, "to_u: "
	    "prefactor outside bounds");
	like(err.msg, "D0 = 200000 is not strictly inside", "message");
	ok(het_posterior_to_u(p1, x, u, &err) == HET_ERANGE, "to_u: plain "
	    "parameter outside bounds");
	like(err.msg, "D0", "message names D0");
out:
	het_posterior_free(p1);
	het_posterior_free(p4);
	het_posterior_free(pr1);
	het_posterior_free(pr4);
	prob_fini(&P);
}

/* One-sided and infinite bounds; a pair with one member fixed. */
static void
test_open_bounds(void)
{
	struct prob		 P;
	struct het_post_prior	 pr[PMAX];
	struct het_posterior	*post;
	struct het_error	 err;
	unsigned char		 fr[HOM_P_COUNT] = { 1, 0, 1, 1, 1, 1, 1 };
	double			 u[PMAX], e;
	size_t			 m;

	if (prob_init(&P, HET_MODE_HOM_LAMINAR, fr) != 0) {
		ok(0, "homodyne problem with alpha fixed");
		return;
	}
	/* columns: D0 D_offset gamma0 beta gamma_off phi0 c0 c1 o0 o1 */
	for (m = 0; m < P.p; m++)
		set_prior(&pr[m], HET_PRIOR_UNIFORM, 0, 0, P.lo[m], P.hi[m]);
	set_prior(&pr[2], HET_PRIOR_HALFNORMAL, 0, 0.01, P.lo[2], P.hi[2]);
	set_prior(&pr[3], HET_PRIOR_BETA_SCALED, 3, 2, P.lo[3], P.hi[3]);
	set_prior(&pr[0], HET_PRIOR_LOGNORMAL, log(2000.0), 1, 100,
	    HUGE_VAL);
	set_prior(&pr[1], HET_PRIOR_NORMAL, 0, 100, -HUGE_VAL, HUGE_VAL);
	set_prior(&pr[5], HET_PRIOR_NORMAL, 0, 5, -HUGE_VAL, 10);
	set_prior(&pr[6], HET_PRIOR_HALFNORMAL, 0, 1, 0, HUGE_VAL);
	post = post_make(&P, pr, 2, 1, &err);
	ok(post != NULL, "posterior with open bounds");
	if (post == NULL)
		diag("%s", err.msg);
	if (post == NULL)
		goto out;
	is_int((long long)het_posterior_nreparam(post), 1, "alpha fixed: "
	    "only (gamma_dot_t0, beta) is reparameterised");
	ok(het_posterior_to_u(post, P.x0, u, &err) == HET_OK, "start to u");
	e = grad_err(post, u);
	ok(e < 1e-6, "open bounds, K = 2: gradient (max rel err %.2g)", e);
	u[1] += 0.5;
	u[5] -= 0.3;
	e = grad_err(post, u);
	ok(e < 1e-6, "open bounds, moved: gradient (max rel err %.2g)", e);
out:
	het_posterior_free(post);
	prob_fini(&P);
}

static void
test_het(void)
{
	struct prob		 P;
	struct het_post_prior	 pr[PMAX];
	const struct het_param_def *tab;
	struct het_posterior	*post, *plain;
	struct het_error	 err;
	double			 u[PMAX], up[PMAX], lr, lp, d, e;
	size_t			 m, n;

	if (prob_init(&P, HET_MODE_TWO_COMPONENT, NULL) != 0) {
		ok(0, "heterodyne problem");
		return;
	}
	tab = het_params_table(HET_FAMILY_HETERODYNE, &n);
	for (m = 0; m < P.p; m++) {
		if (m < n)
			set_prior(&pr[m], tab[m].prior.kind, tab[m].prior.a,
			    tab[m].prior.b, P.lo[m], P.hi[m]);
		else
			set_prior(&pr[m], HET_PRIOR_UNIFORM, 0, 0, P.lo[m],
			    P.hi[m]);
	}
	set_prior(&pr[HET_P_D0_SAMPLE], HET_PRIOR_LOGNORMAL, 9, 1,
	    P.lo[HET_P_D0_SAMPLE], P.hi[HET_P_D0_SAMPLE]);
	set_prior(&pr[HET_P_V0], HET_PRIOR_EXPONENTIAL, 1e-3, 0,
	    P.lo[HET_P_V0], P.hi[HET_P_V0]);
	post = post_make(&P, pr, 3, 1, &err);
	plain = post_make(&P, pr, 3, 0, &err);
	ok(post != NULL && plain != NULL, "heterodyne posteriors");
	if (post == NULL || plain == NULL)
		goto out;
	is_int((long long)het_posterior_nreparam(post), 3, "heterodyne: "
	    "three power-law pairs");
	/* heterodyne t_k = (start + k) dt: t_max = (3 + NF - 1) dt */
	is_double(het_posterior_tref(post), 0.0123 * sqrt(3.0 + NF - 1),
	    1e-15, "heterodyne t_ref");
	het_posterior_to_u(post, P.x0, u, &err);
	het_posterior_to_u(plain, P.x0, up, &err);
	e = grad_err(post, u);
	ok(e < 1e-6, "two_component, reparam, K = 3: gradient (max rel err "
	    "%.2g)", e);
	e = grad_err(plain, up);
	ok(e < 1e-6, "two_component, plain, K = 3: gradient (max rel err "
	    "%.2g)", e);
	het_posterior_logp(post, u, &lr, NULL, NULL);
	het_posterior_logp(plain, up, &lp, NULL, NULL);
	d = (lr - num_logjac(post, u)) - (lp - num_logjac(plain, up));
	is_double(d, 0, 1e-6 * (1 + fabs(lp)), "heterodyne: same density "
	    "of the physical parameters with and without reparam");
out:
	het_posterior_free(post);
	het_posterior_free(plain);
	prob_fini(&P);
}

/*
 * Level HET_COORDS_RATES in shift (mask 0) and anchor (mask) coordinates
 * on a posterior with free flags fr: the gradient against differences,
 * the log-Jacobian against the numerical determinant of x(u) (the same
 * density of the physical parameters as the plain posterior), and u -> x
 * back to the start.  Returns the posterior (NULL on failure).
 */
static struct het_posterior *
rates_case(struct prob *P, enum het_mode mode, const unsigned char *fr,
    unsigned mask, const char *what)
{
	int			 het = het_mode_family(mode) ==
				    HET_FAMILY_HETERODYNE;
	struct het_post_prior	 pr[PMAX];
	struct het_posterior	*post, *plain;
	struct het_error	 err;
	double			 u[PMAX], up[PMAX], x[PMAX], lr, lp, d, e;
	size_t			 m, p;
	unsigned		 k;
	long			 ca;

	if (prob_init(P, mode, fr) != 0) {
		ok(0, "%s: problem", what);
		return NULL;
	}
	for (m = 0; m < P->p; m++)
		set_prior(&pr[m], HET_PRIOR_UNIFORM, 0, 0, P->lo[m], P->hi[m]);
	ca = het_resid_phys_col(P->r, het ? HET_P_ALPHA_REF : HOM_P_ALPHA);
	set_prior(&pr[ca], HET_PRIOR_NORMAL, 0.2, 0.3, P->lo[ca], P->hi[ca]);
	post = post_make(P, pr, 2, HET_COORDS_RATES, &err);
	plain = post_make(P, pr, 2, HET_COORDS_PHYSICAL, &err);
	ok(post != NULL && plain != NULL, "%s: posteriors", what);
	if (post == NULL || plain == NULL) {
		het_posterior_free(plain);
		het_posterior_free(post);
		return NULL;
	}
	p = het_posterior_dim(post);
	ok(het_posterior_fraction(post) == het && !het_posterior_fraction(
	    plain), "%s: f0 sampled as ln f0 + f1 (t_c - f2) %s", what,
	    het ? "(heterodyne)" : "not at all (homodyne)");
	het_posterior_to_u(plain, P->x0, up, &err);
	het_posterior_logp(plain, up, &lp, NULL, NULL);
	lp -= num_logjac(plain, up);
	for (k = 0; k <= mask; k += mask) {
		ok(het_posterior_set_anchors(post, k, &err) == HET_OK &&
		    het_posterior_anchors(post) == k, "%s: anchors %#x set",
		    what, k);
		ok(het_posterior_to_u(post, P->x0, u, &err) == HET_OK,
		    "%s %#x: to u", what, k);
		het_posterior_to_x(post, u, x);
		for (e = 0, m = 0; m < p; m++)
			if (fabs(x[m] - P->x0[m]) > e * (1 + fabs(P->x0[m])))
				e = fabs(x[m] - P->x0[m]) / (1 + fabs(P->x0[m]));
		ok(e < 1e-12, "%s %#x: x(u(x0)) = x0 (max rel err %.2g)",
		    what, k, e);
		e = grad_err(post, u);
		ok(e < 1e-6, "%s %#x: gradient (max rel err %.2g)", what, k,
		    e);
		het_posterior_logp(post, u, &lr, NULL, NULL);
		d = lr - num_logjac(post, u) - lp;
		is_double(d, 0, 1e-6 * (1 + fabs(lp)), "%s %#x: the same "
		    "density of the physical parameters as without", what, k);
		if (mask == 0)
			break;
	}
	het_posterior_free(plain);
	return post;
}

/*
 * The heterodyne power laws as triples, every parameter free; then f2
 * and D_offset_sample fixed (the sample law stays a pair, f0's
 * coordinate takes the fixed f2).  Then the anchors' errors and choice.
 */
static void
test_rates(void)
{
	unsigned char		 fr[HET_P_HET_COUNT];
	struct prob		 P;
	struct het_posterior	*post;
	struct het_error	 err;
	double			 u[PMAX], lr, sd, cov[PMAX * PMAX];
	size_t			 m, p;
	unsigned		 mask;

	memset(fr, 1, sizeof fr);
	fr[HET_P_F2] = fr[HET_P_DOFF_SAMPLE] = 0;
	if ((post = rates_case(&P, HET_MODE_HOM_LAMINAR, NULL, 3,
	    "rates, laminar_flow")) != NULL)
		is_int((long long)het_posterior_ntriples(post), 2, "laminar: "
		    "diffusion and shear laws as triples");
	het_posterior_free(post);
	prob_fini(&P);
	if ((post = rates_case(&P, HET_MODE_TWO_COMPONENT, fr, 5,
	    "rates, f2 fixed")) != NULL) {
		is_int((long long)het_posterior_ntriples(post), 2, "f2 fixed: "
		    "two triples");
		is_int((long long)het_posterior_nreparam(post), 1, "f2 fixed: "
		    "the sample law a pair");
		ok(het_posterior_set_anchors(post, 2, &err) == HET_EINVAL,
		    "anchors on a pair refused (%s)", err.msg);
	}
	het_posterior_free(post);
	prob_fini(&P);
	if ((post = rates_case(&P, HET_MODE_TWO_COMPONENT, NULL, 7,
	    "rates")) == NULL)
		goto out;
	p = het_posterior_dim(post);
	is_int((long long)het_posterior_ntriples(post), 3, "rates: three "
	    "power-law triples");
	is_int((long long)het_posterior_nreparam(post), 0, "rates: no pairs "
	    "left");
	/* an anchor point that is no power law with A > 0: zero density */
	het_posterior_to_u(post, P.x0, u, &err);
	u[HET_P_DOFF_REF] = u[HET_P_ALPHA_REF];
	ok(het_posterior_logp(post, u, &lr, NULL, &err) == HET_ERANGE,
	    "anchors: flat rates refused (%s)", err.msg);
	/* the choice: exponents 0.313, -0.417, 0.219 at sd 0.03 */
	het_posterior_set_anchors(post, 0, NULL);
	het_posterior_to_u(post, P.x0, u, &err);
	memset(cov, 0, sizeof cov);
	for (m = 0; m < p; m++)
		cov[m * p + m] = 1e-4;
	/* an exponent sd of 0.03: the logit's sd, times the slope scale
	 * that multiplies the logit in the share coordinates */
	for (m = 0; m < 3; m++) {
		size_t	c = HET_P_ALPHA_REF + 3 * m;
		double	s = (P.x0[c] - P.lo[c]) / (P.hi[c] - P.lo[c]);

		sd = 0.03 / ((P.hi[c] - P.lo[c]) * s * (1 - s)) *
		    (u[c] / log(s / (1 - s)));
		cov[c * p + c] = sd * sd;
	}
	mask = het_posterior_anchor_choice(post, u, cov, 8.0);
	is_int((long long)mask, 3, "anchor choice at 8 sd: reference and "
	    "sample (beta 0.219 is 7.3 sd from 0)");
	mask = het_posterior_anchor_choice(post, u, cov, 7.0);
	is_int((long long)mask, 7, "anchor choice at 7 sd: all three");
	ok(het_posterior_set_anchors(post, 8, &err) == HET_EINVAL,
	    "anchors beyond the laws refused (%s)", err.msg);
	het_posterior_set_anchors(post, 1, NULL);
	P.x0[HET_P_ALPHA_REF] = 0;
	ok(het_posterior_to_u(post, P.x0, u, &err) == HET_ERANGE,
	    "anchors at a zero exponent refused (%s)", err.msg);
out:
	het_posterior_free(post);
	prob_fini(&P);
}

static void
test_nlsq_prior(void)
{
	struct het_post_prior pr;

	het_post_prior_nlsq(5, 0.1, 0, 10, 2, &pr);
	ok(pr.kind == HET_PRIOR_TRUNCNORMAL && pr.a == 5 && pr.lo == 0 &&
	    pr.hi == 10, "NLSQ prior: truncated normal at the value");
	is_double(pr.b, 0.2, 1e-15, "scale = 2 sd");
	het_post_prior_nlsq(5, 1e-6, 0, 10, 2, &pr);
	is_double(pr.b, 0.1, 1e-15, "scale floored at 1 %% of the width");
	het_post_prior_nlsq(5, 100, 0, 10, 2, &pr);
	is_double(pr.b, 5, 1e-15, "scale capped at 50 %% of the width");
	het_post_prior_nlsq(12, 0, 0, 10, 2, &pr);
	ok(pr.a == 10 && fabs(pr.b - 1) < 1e-15, "no sd: 10 %% of the "
	    "width; loc clamped into the bounds");
	het_post_prior_nlsq(5, NAN, 0, 10, 2, &pr);
	is_double(pr.b, 1, 1e-15, "NaN sd: 10 %% of the width");
}

/* Priors from a configuration, plain and NLSQ-informed. */
static void
test_config_priors(void)
{
	struct prob		 P, L;
	struct het_config	*cfg;
	struct het_post_prior	 pr[PMAX];
	struct het_posterior	*post;
	struct het_error	 err;
	double			 sd[PMAX];
	size_t			 m;
	int			 same;

	cfg = het_config_default(HET_MODE_HOM_STATIC, &err);
	if (cfg == NULL || prob_init(&P, HET_MODE_HOM_STATIC, NULL) != 0) {
		ok(0, "config and problem");
		return;
	}
	cfg->phys[1].prior.kind = HET_PRIOR_NORMAL;
	cfg->phys[1].prior.a = 0.25;
	cfg->phys[1].lo = -1.5;
	ok(het_post_priors_from_config(cfg, P.r, NULL, NULL, pr, &err) ==
	    HET_OK, "priors from the default static config");
	ok(pr[0].kind == cfg->phys[0].prior.kind && pr[0].a ==
	    cfg->phys[0].prior.a && pr[0].b == cfg->phys[0].prior.b &&
	    pr[0].lo == cfg->phys[0].lo && pr[0].hi == cfg->phys[0].hi,
	    "D0: the configured prior and bounds");
	ok(pr[1].kind == HET_PRIOR_NORMAL && pr[1].a == 0.25 &&
	    pr[1].lo == -1.5, "alpha: an edited prior is used");
	same = 1;
	for (m = 3; m < 7; m++) {
		const struct het_config_param *cp =
		    &cfg->scaling.p[m < 5 ? HET_S_CONTRAST : HET_S_OFFSET];
		same &= pr[m].kind == cp->prior.kind && pr[m].a ==
		    cp->prior.a && pr[m].lo == cp->lo && pr[m].hi == cp->hi;
	}
	ok(same, "contrast[0..1], offset[0..1]: the scaling priors");
	post = post_make(&P, pr, 1, 1, &err);
	ok(post != NULL, "the default priors are valid");
	het_posterior_free(post);
	for (m = 0; m < P.p; m++)
		sd[m] = 0.01 * fabs(P.x0[m]) + 1e-3;
	ok(het_post_priors_from_config(cfg, P.r, P.x0, sd, pr, &err) ==
	    HET_OK, "NLSQ-informed priors");
	is_double(pr[0].a, P.x0[0], 0, "D0: loc at the NLSQ value");
	is_double(pr[0].b, 0.01 * (cfg->phys[0].hi - cfg->phys[0].lo), 1e-9,
	    "D0: scale 2 sd floored at 1 %% of the width");
	ok(pr[4].kind == HET_PRIOR_TRUNCNORMAL && fabs(pr[4].b -
	    cfg->cmc.nlsq_prior_width_factor * sd[4]) < 1e-15,
	    "contrast[1]: truncated normal, scale = width factor x sd");
	cfg->cmc.nlsq_priors = 0;	/* use_nlsq_informed_priors: false */
	ok(het_post_priors_from_config(cfg, P.r, P.x0, sd, pr, &err) ==
	    HET_OK && pr[1].kind == HET_PRIOR_NORMAL && pr[1].a == 0.25 &&
	    pr[0].kind == cfg->phys[0].prior.kind && pr[0].a ==
	    cfg->phys[0].prior.a, "use_nlsq_informed_priors false: the "
	    "configured priors, although an NLSQ result is given");
	cfg->cmc.nlsq_priors = 1;
	if (prob_init(&L, HET_MODE_HOM_LAMINAR, NULL) == 0) {
		ok(het_post_priors_from_config(cfg, L.r, NULL, NULL, pr,
		    &err) == HET_EINVAL, "static config, laminar problem");
		like(err.msg, "mode static has 3 physics parameters",
		    "message");
		prob_fini(&L);
	}
	prob_fini(&P);
	het_config_free(cfg);
}

static void
test_errors(void)
{
	struct prob		 P;
	struct het_post_prior	 pr[PMAX], bad;
	struct het_post_spec	 ps;
	struct het_posterior	*post;
	struct het_error	 err;
	size_t			 m;
	static const struct {
		enum het_prior_kind kind;
		double	a, b, lo, hi;
		const char *msg;
	} cases[] = {
		{ HET_PRIOR_NORMAL, 0, 0, -1, 1, "scale must be positive" },
		{ HET_PRIOR_TRUNCNORMAL, NAN, 1, -1, 1, "scale must be "
		    "positive and both finite" },
		{ HET_PRIOR_LOGNORMAL, 0, 1, -1, 1, "lives on x >= 0 but the "
		    "lower bound is -1" },
		{ HET_PRIOR_HALFNORMAL, 0, -2, 0, 1, "scale -2" },
		{ HET_PRIOR_EXPONENTIAL, 0, 0, 0, 1, "has rate 0" },
		{ HET_PRIOR_BETA_SCALED, 0.5, 0, 0, 1, "concentrations a = "
		    "0.5, b = 0" },
		{ HET_PRIOR_UNIFORM, 0, 0, 0, HUGE_VAL, "needs finite "
		    "bounds" },
		{ HET_PRIOR_UNIFORM, 0, 0, 1, 1, "lower bound must be below" },
		{ HET_PRIOR_COUNT, 0, 0, 0, 1, "unknown kind" },
	};

	for (m = 0; m < sizeof cases / sizeof cases[0]; m++) {
		set_prior(&bad, cases[m].kind, cases[m].a, cases[m].b,
		    cases[m].lo, cases[m].hi);
		ok(het_post_prior_check(&bad, "D0", &err) == HET_EINVAL,
		    "bad prior %zu refused", m);
		like(err.msg, cases[m].msg, "bad prior %zu: message", m);
		like(err.msg, "D0", "bad prior %zu: names the parameter", m);
	}
	if (prob_init(&P, HET_MODE_HOM_STATIC, NULL) != 0) {
		ok(0, "homodyne static problem");
		return;
	}
	for (m = 0; m < P.p; m++)
		set_prior(&pr[m], HET_PRIOR_UNIFORM, 0, 0, P.lo[m], P.hi[m]);
	pr[1].b = -1;
	pr[1].kind = HET_PRIOR_NORMAL;
	ok(post_make(&P, pr, 1, 0, &err) == NULL && err.code == HET_EINVAL,
	    "alloc refuses a bad prior");
	like(err.msg, "prior of alpha", "message names alpha");
	pr[1].kind = HET_PRIOR_UNIFORM;
	ok(post_make(&P, pr, 0, 0, &err) == NULL, "K = 0 refused");
	like(err.msg, "number of shards K is 0", "message");
	memset(&ps, 0, sizeof ps);
	ps.resid = P.r;
	ps.model = P.m;
	ps.priors = pr;
	ps.nshards = 1;
	ps.sigma = -1;
	ok(het_posterior_alloc(&ps, &err) == NULL, "sigma < 0 refused");
	like(err.msg, "noise sigma is -1", "message");
	ps.sigma = 0.01;
	ps.model = NULL;
	ok(het_posterior_alloc(&ps, &err) == NULL && err.code == HET_EINVAL,
	    "missing model refused");
	like(err.msg, "one of them is missing", "message");
	ps.model = P.m;
	ps.reparam = 1;
	post = het_posterior_alloc(&ps, &err);
	ok(post != NULL && het_posterior_nreparam(post) == 1, "static: "
	    "(D0, alpha) reparameterised");
	het_posterior_free(post);
	het_posterior_free(NULL);
	prob_fini(&P);
}

int
main(void)
{
	plan_lazy();
	test_prior_pdfs();
	test_hom();
	test_open_bounds();
	test_het();
	test_rates();
	test_nlsq_prior();
	test_config_priors();
	test_errors();
	return exit_status();
}
