/*
 * het_posterior.h: the log posterior of one CMC shard and its gradient in
 * the sampler's unconstrained coordinates.
 *
 * Module core/sample (the opening comment of this folder): the posterior
 * and how it is sampled: the log posterior in its coordinates, with
 * contrast and offset integrated out (het_posterior*, het_transform),
 * NUTS with its adaptation (het_nuts*), the Laplace start and PSIS
 * (het_laplace, het_psis), diagnostics (het_diag), sharding, the shard
 * runner and the consensus (het_shard*, het_consensus).
 *
 * The physical parameter vector x is that of a het_resid problem: the
 * free physics parameters then the free scaling parameters (p values,
 * het_resid order).  The target is
 *
 *	log p(x | y) = -1/2 sum_k r_k(x)^2 / sigma^2
 *	             + (1/K) sum_m log prior_m(x_m)          (+ constants)
 *
 * over the shard's upper-triangle pairs (the diagonal is never a datum),
 * with r_k the residuals of het_resid (weights included: a problem built
 * with weights w_k has per-datum noise sigma / w_k).  sigma is given by
 * the caller: the RMS of the NLSQ residuals or the far-lag noise estimate
 * of the whole data set; it is not sampled.  The gradient of the
 * likelihood is -J^T r / sigma^2, accumulated into scratch owned by the
 * posterior (nothing is allocated per evaluation) by one of two passes:
 *   - the separable likelihood (het_separable.h), when the problem is
 *     eligible (every heterodyne mode and homodyne static, no weights or
 *     all equal, no repeated pair, triangles within its memory cap) and
 *     the spec does not set pair_kernel: O(N^2) multiply-adds per angle
 *     without transcendental functions, and N (N - 1)/2 doubles per
 *     angle of data triangles (twice that for a subset of the pairs);
 *   - otherwise the pair kernel (het_resid_eval_lsq, chunk by chunk).
 * Both give the same value and gradient to rounding (about 1e-11
 * relative; t_core_posterior_grad); het_posterior_separable says which
 * one a posterior uses.
 *
 * Priors (struct het_post_prior, one per entry of x) are densities on the
 * physical value restricted to [lo, hi]; the normalisers of truncation
 * to [lo, hi] are constants and are dropped (so are 2 pi terms): the
 * value is a log density up to a constant, exactly what NUTS needs.
 *
 * K shards: every prior log density is multiplied by 1/K (prior^(1/K)),
 * so that the product of the K shard posteriors is the full posterior:
 * prod_k [L_k(x) p(x)^(1/K)] = L(x) p(x), each datum's likelihood once
 * and the prior once.  heterodyne's sharded CMC instead divides sigma by
 * sqrt(K) in every shard, which multiplies each shard's log-likelihood by
 * K: the consensus product then counts the data K times and comes out
 * sqrt(K) too narrow (heterodyne-spec.md §8 lesson 23).  For a Gaussian
 * prior, p^(1/K) is the same Gaussian with its sd times sqrt(K) (what
 * homodyne's tempered z-space prior does); for other kinds it is the
 * power.  K = 1 is the plain posterior.
 *
 * Sampling coordinates u (dim p), three levels (spec->reparam, enum
 * het_coords; het_posterior_coords.c):
 *   HET_COORDS_PHYSICAL  each x_m through het_transform (log for
 *	one-sided bounds, logit for two), with its log-Jacobian.
 *   HET_COORDS_POWER_LAW  as physical, but each power-law pair
 *	(prefactor A, exponent e) whose members both vary and whose
 *	prefactor has lo > 0 is sampled as
 *	    v = ln A(t_ref) = ln A + e ln t_ref,  t_ref = sqrt(dt t_max)
 *	(v unconstrained; the exponent keeps its logit), Jacobian A.
 *   HET_COORDS_RATES  as power_law, but where the law's offset o varies
 *	too (with a finite lower bound), the triple (A, e, o) of the rate
 *	J(t) = A t^e + o is sampled as (ln E, (logit e) (E s + lo_A),
 *	logit s), E the rate at t_ref above its least value lo_o + lo_A
 *	t_ref^e and s the power law's share of it ("share": the ridge A + o
 *	of an exponent near 0 becomes an axis, its ends at the bounds lie at
 *	infinity, and the exponent's coordinate scales with the power law,
 *	as the slope the data fix does), or,
 *	for a triple switched to
 *	anchors (het_posterior_set_anchors), as the rates (J1, J2, J3) at
 *	three geometric times inside the window (1/6, 1/2, 5/6 of it in
 *	ln t), what the data determine; singular at e = 0, so meant for
 *	exponents well away from it (het_posterior_anchor_choice).
 * Every change of variables carries its exact log-Jacobian: the
 * posterior of the physical parameters is the same in all of them.  A
 * point where A, o or e leaves [lo, hi] (or whose anchor rates are not
 * a power law with A > 0) has zero prior density: the log density
 * callback fails there and NUTS treats it like a divergence.  The laws
 * are (D0_ref, alpha_ref, D_offset_ref), (D0_sample, alpha_sample,
 * D_offset_sample), (v0, beta, v_offset) in heterodyne modes and (D0,
 * alpha, D_offset), (gamma_dot_t0, beta, gamma_dot_t_offset) in
 * homodyne ones.
 *
 * Contrast and offset integrated out (marginalise in the spec;
 * het_posterior_marg.c, fast-posterior.md §3): c2 = o + c g is linear in
 * each angle's (o, c), so under Gaussian or flat priors the likelihood
 * integrates over them in closed form from five sums per angle, and the
 * sampled coordinates are the free physics only (dim nfp instead of p).
 * The marginal density is the integral over R^2 of the full density
 * above (tempered priors with their constants), so the posterior of the
 * physics is unchanged, except that the priors' truncation to [lo, hi]
 * is ignored: het_posterior_cond_check tells whether the conditional of
 * (o, c) sits well inside the bounds.  A kept draw is completed with an
 * exact draw of every angle's (contrast, offset) from its bivariate
 * normal conditional given the physics (het_posterior_complete).
 * Possible when the likelihood is separable, the scaling is individual
 * with every contrast and offset free, and their priors are normal,
 * truncated normal or uniform; otherwise the posterior samples them as
 * before and het_posterior_marg_reason says why.
 *
 * A posterior is used by one thread at a time (its scratch is shared).
 */
#ifndef HET_POSTERIOR_H
#define HET_POSTERIOR_H

#include <stddef.h>

#include "het_error.h"
#include "het_params.h"
#include "het_resid.h"

/*
 * The prior of one entry of x.  kind and a, b as in het_params.h
 * (uniform: none; normal, truncated_normal: loc, scale; lognormal: mu,
 * sigma of ln x; halfnormal: b = scale; exponential: a = rate;
 * beta_scaled: concentrations a, b on [lo, hi]).  lo < hi are the
 * parameter's bounds (-HUGE_VAL / HUGE_VAL for none; uniform and
 * beta_scaled need both finite; lognormal, halfnormal and exponential
 * need lo >= 0).  The sampler never leaves [lo, hi].
 */
struct het_post_prior {
	enum het_prior_kind kind;
	double	a, b;
	double	lo, hi;
};

/* The sampler's coordinate levels (het_post_spec.reparam). */
enum het_coords {
	HET_COORDS_PHYSICAL = 0,
	HET_COORDS_POWER_LAW = 1,
	HET_COORDS_RATES = 2
};

struct het_post_spec {
	const struct het_resid	 *resid;	/* borrowed, outlives the
						   posterior */
	const struct het_model	 *model;	/* the resid's model
						   (borrowed): mode and
						   time grid for reparam */
	double			  sigma;	/* likelihood noise, > 0 */
	const struct het_post_prior *priors;	/* p entries (copied) */
	long			  nshards;	/* K >= 1 */
	int			  reparam;	/* enum het_coords */
	size_t			  chunk;	/* pairs per evaluation
						   block, 0 = 256 */
	int			  pair_kernel;	/* 1: always the pair
						   kernel; 0: the separable
						   likelihood when eligible */
	int			  marginalise;	/* 1: integrate contrast and
						   offset out when possible;
						   0: sample them */
};

/*
 * What happened to contrast and offset in a shard (the shard result and
 * the results files record it): not asked for; integrated out; asked
 * for but the problem does not allow it; asked for but the conditional
 * reached a bound at the start (both: sampled instead).
 */
enum het_post_marg {
	HET_MARG_OFF = 0,
	HET_MARG_ON,
	HET_MARG_INELIGIBLE,
	HET_MARG_BOUND,
	HET_MARG_COUNT
};

/* het_post_marg_name: "off", "on", "ineligible", "bound" ("unknown"). */
const char *het_post_marg_name(int status);

struct het_posterior;

/*
 * het_posterior_alloc: validate the spec and build the posterior.
 * Returns the object (free with het_posterior_free) or NULL with
 *   HET_EINVAL  missing resid, model or priors, sigma not finite and > 0, K < 1,
 *               a prior with lo >= hi, a bound that kind needs missing,
 *               a non-positive scale/rate/concentration, or a lognormal,
 *               halfnormal or exponential prior with lo < 0 (the message
 *               names the parameter);
 *   HET_ENOMEM.
 * Thread: any.
 */
struct het_posterior *het_posterior_alloc(const struct het_post_spec *spec,
    struct het_error *err);
void het_posterior_free(struct het_posterior *post);

/*
 * het_posterior_separable: 1 when the likelihood uses the separable
 * pass, 0 when the pair kernel.
 */
int het_posterior_separable(const struct het_posterior *post);

/*
 * het_posterior_dim: d, the number of sampled coordinates (p, or the
 * free physics nfp while contrast and offset are integrated out);
 * het_posterior_nparams: p, the physical parameters of a draw.
 */
size_t het_posterior_dim(const struct het_posterior *post);
size_t het_posterior_nparams(const struct het_posterior *post);

/*
 * het_posterior_marginal: 1 while contrast and offset are integrated
 * out.  het_posterior_marg_reason: why the problem does not allow it
 * (borrowed, "" when it does).
 * het_posterior_set_marginal: switch integrating out on (when the
 * problem allows it) or off; het_posterior_dim changes with it.
 * Returns HET_OK, or HET_EINVAL for on when the problem does not allow
 * it (the message says why).  Thread: the posterior's.
 */
int het_posterior_marginal(const struct het_posterior *post);

/*
 * het_posterior_marg_status: what the spec and the problem decided:
 * HET_MARG_OFF (not asked for), HET_MARG_ON (asked for and allowed) or
 * HET_MARG_INELIGIBLE (asked for, not allowed); het_posterior_set_
 * marginal does not change it.
 */
int het_posterior_marg_status(const struct het_posterior *post);
const char *het_posterior_marg_reason(const struct het_posterior *post);
int het_posterior_set_marginal(struct het_posterior *post, int on,
    struct het_error *err);

/*
 * het_posterior_conditional: while integrating out, the conditional of
 * every angle's (contrast, offset) given the physics point u (d
 * values): mean[2 a] contrast, mean[2 a + 1] offset, cov[3 a] var
 * contrast, cov[3 a + 1] their covariance, cov[3 a + 2] var offset
 * (caller's arrays of 2 and 3 n_angles doubles).
 * het_posterior_complete: the physical draw x (p values) of u: the
 * physics of het_posterior_to_x and, while integrating out, each
 * angle's contrast and offset drawn from that conditional with the
 * standard normal deviates z[2 a], z[2 a + 1] (Cholesky factor of the
 * covariance), or set to the conditional mean when z is NULL; when
 * sampling them, x is het_posterior_to_x(u).
 * het_posterior_cond_check: HET_OK when every conditional mean +- nsd
 * conditional sd lies strictly inside its prior bounds, else
 * HET_ERANGE naming the parameter (the closed form ignores the bounds).
 * Returns HET_OK, HET_EINVAL (conditional, check: not integrating out),
 * HET_ERANGE (a 2 x 2 precision singular: flat priors and too few
 * pairs or a constant g), or the model's error.  Thread: the
 * posterior's (they use its scratch).
 */
int het_posterior_conditional(struct het_posterior *post, const double *u,
    double *mean, double *cov, struct het_error *err);
int het_posterior_complete(struct het_posterior *post, const double *u,
    const double *z, double *x, struct het_error *err);
int het_posterior_cond_check(struct het_posterior *post, const double *u,
    double nsd, struct het_error *err);

/* het_posterior_name: name of x[m] (borrowed from the resid), m < p. */
const char *het_posterior_name(const struct het_posterior *post, size_t m);

/*
 * het_posterior_nreparam: number of power-law pairs sampled as
 * (ln A(t_ref), exponent); het_posterior_tref: the t_ref used (1 when
 * the time grid gives none).
 */
size_t het_posterior_nreparam(const struct het_posterior *post);
double het_posterior_tref(const struct het_posterior *post);

/*
 * het_posterior_ntriples: number of power laws sampled as a triple
 * (level HET_COORDS_RATES), at most 3, in the family's order (reference,
 * sample, velocity; homodyne: diffusion, shear).
 * het_posterior_anchors: bit k set while the family's law k (0
 * reference / diffusion, 1 sample / shear, 2 velocity) is a triple on
 * the anchor coordinates.  het_posterior_set_anchors: switch triples to
 * anchors (bits set) or share coordinates (bits clear);
 * het_posterior_dim is unchanged.  Returns HET_OK, or HET_EINVAL for a
 * bit of a law that is not a triple here, or when the time grid has
 * fewer than three distinct positive times.  Thread: the posterior's.
 * het_posterior_fraction: 1 when f0 is sampled as ln f0 + f1 (t_c - f2)
 * (level HET_COORDS_RATES, f0 varying with lo >= 0, f1 or f2 varying).
 * het_posterior_anchor_choice: the mask of triples whose exponent sits
 * more than zmin sd from 0 under a Gaussian approximation in u (mode[d],
 * cov[d * d] row-major, in the current coordinates; triples already on
 * anchors stay set): those the anchors suit.  0 without anchor times.
 */
size_t	 het_posterior_ntriples(const struct het_posterior *post);
int	 het_posterior_fraction(const struct het_posterior *post);
unsigned het_posterior_anchors(const struct het_posterior *post);
int	 het_posterior_set_anchors(struct het_posterior *post, unsigned mask,
	    struct het_error *err);
unsigned het_posterior_anchor_choice(const struct het_posterior *post,
	    const double *mode, const double *cov, double zmin);

/*
 * het_posterior_to_u: unconstrained coordinates u[d] of the physical
 * point x[p] (while integrating out, its physics only).  Returns HET_OK, or HET_ERANGE when some x is not strictly
 * inside its prior bounds (message names the parameter).  Thread: any.
 */
int het_posterior_to_u(const struct het_posterior *post, const double *x,
    double *u, struct het_error *err);

/*
 * het_posterior_interior: move each x[m] (physical, p values, in place)
 * at least frac of its prior range inside finite bounds (one-sided: frac
 * max(|bound|, 1)), so that chains and the Laplace approximation can
 * start from an NLSQ optimum that sits on a bound (the logit and log
 * transforms send a bound to infinity).  Values outside [lo, hi] and
 * non-finite ones are left for het_posterior_to_u to refuse.  Returns the number of values moved.
 * Thread: any.
 */
size_t het_posterior_interior(const struct het_posterior *post, double *x,
    double frac);

/*
 * het_posterior_to_x: the physical point x of u[d] (no evaluation);
 * while integrating out only x[0..d) (the physics) are written.
 */
void het_posterior_to_x(const struct het_posterior *post, const double *u,
    double *x);

/*
 * het_posterior_logp: log density at u (d values, including
 * log-Jacobians) and, when grad is not NULL, its gradient (d values).  Returns HET_OK, or
 * HET_ERANGE when x(u) lies outside a prior's support (reparameterised
 * prefactor out of bounds, or saturated at a bound), or HET_EINVAL from
 * the model (non-finite values).
 */
int het_posterior_logp(struct het_posterior *post, const double *u,
    double *lp, double *grad, struct het_error *err);

/*
 * het_posterior_nuts_logp: the het_nuts_logp_fn adapter (ctx is the
 * posterior); returns 0 on success.
 */
int het_posterior_nuts_logp(void *ctx, const double *u, double *lp,
    double *grad);

/*
 * het_post_prior_logpdf: the log density of one prior at x, not divided
 * by K, with the truncation normaliser dropped (see above); *dlog
 * receives d/dx.  Returns -HUGE_VAL (and *dlog = 0) outside [lo, hi] or
 * the kind's support.  Thread: any.
 */
double het_post_prior_logpdf(const struct het_post_prior *pr, double x,
    double *dlog);

/*
 * het_post_prior_check: validate one prior (as het_posterior_alloc does)
 * for the parameter called name.  Returns HET_OK or HET_EINVAL.
 */
int het_post_prior_check(const struct het_post_prior *pr, const char *name,
    struct het_error *err);

/*
 * het_post_prior_nlsq: the default NLSQ-informed prior: truncated normal
 * with loc = value (clamped into [lo, hi]), scale = clip(width_factor *
 * sd, 0.01 (hi - lo), 0.5 (hi - lo)), or 0.1 (hi - lo) when sd is not
 * finite and > 0, truncated to [lo, hi] (both finite, lo < hi).
 */
void het_post_prior_nlsq(double value, double sd, double lo, double hi,
    double width_factor, struct het_post_prior *pr);

#endif /* HET_POSTERIOR_H */
