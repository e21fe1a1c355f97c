/*
 * het_model.h: evaluation of the correlation models over lists of
 * upper-triangle pairs, with analytic derivatives.
 *
 * Module core/model (the opening comment of this folder): the physics:
 * the parameter registry of every analysis mode (het_params), the two-
 * time correlation models with analytic derivatives and separable per-
 * frame factors (het_model, het_model_het, het_model_hom), and the flow-
 * fringe aliasing check (het_nyquist).  It knows nothing of fitting,
 * sampling or configuration.
 *
 * Every model writes c2 for angle a and frames i < j as
 *
 *	c2(a, i, j) = offset_a + contrast_a * g(theta; a, i, j)
 *
 * and this module computes the shape g and its derivatives with respect
 * to the free physics parameters; the per-angle scaling (contrast,
 * offset and their modes) is composed on top by het_scaling / het_resid.
 *
 * Design: evaluation is split in two steps so it parallelises without
 * locks and costs O(1) per pair.
 *   1. het_model_eval_prepare(ev, theta, free) builds, for one parameter
 *      vector, everything that depends on time only (rates, cumulative
 *      trapezoid integrals and their parameter derivatives, fractions):
 *      O(N * n_free) work and memory, on one thread.
 *   2. het_model_eval_pairs(ev, ...) then evaluates any list of pairs,
 *      reading the prepared tables only: it may run on many threads at
 *      once over disjoint chunks.
 * The discretisation reproduces the reference packages exactly
 * (heterodyne-spec.md §1, homodyne-spec.md §2-5): each family keeps its
 * own time grid, floors and angle convention.
 */
#ifndef HET_MODEL_H
#define HET_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "het_error.h"
#include "het_params.h"

/* One datum: angle index a, frames i < j (0-based within the window). */
struct het_pair {
	uint32_t i;
	uint32_t j;
	uint32_t a;
};

struct het_model_spec {
	enum het_mode	 mode;
	double		 q;		/* wavevector, 1/Å */
	double		 dt;		/* frame step, s */
	long		 start_frame;	/* 1-based first frame of the window;
					   heterodyne t_k = (start_frame + k) dt,
					   homodyne t_k = k dt */
	size_t		 n_frames;	/* N, length of the time grid */
	size_t		 n_angles;
	const double	*phi;		/* n_angles detector angles, degrees
					   (copied by het_model_alloc) */
	double		 gap;		/* homodyne stator_rotor_gap, Å
					   (laminar_flow only) */
};

struct het_model;
struct het_model_eval;

/*
 * het_model_alloc: validate a specification and build the model (time
 * grid, angle tables).
 * Returns a model owned by the caller (het_model_free), or NULL with
 * HET_EINVAL (non-positive q, dt or N, N > 2^31, no angles, non-finite
 * values, gap <= 0 in laminar_flow) or HET_ENOMEM in err.
 * Thread: any.  The model is immutable afterwards and may be shared by
 * threads.
 */
struct het_model *het_model_alloc(const struct het_model_spec *spec,
    struct het_error *err);
void het_model_free(struct het_model *m);

/* het_model_spec_of: the model's own copy of its specification (borrowed). */
const struct het_model_spec *het_model_spec_of(const struct het_model *m);

/* het_model_nphys: length of the physics vector (het_mode_nphys). */
size_t het_model_nphys(const struct het_model *m);

/* het_model_time: the model's time grid, N values in s (borrowed). */
const double *het_model_time(const struct het_model *m);

/*
 * het_model_eval_alloc: workspace for one parameter vector at a time.
 * Owned by the caller (het_model_eval_free).  NULL with HET_ENOMEM.
 */
struct het_model_eval *het_model_eval_alloc(const struct het_model *m,
    struct het_error *err);
void het_model_eval_free(struct het_model_eval *ev);

/*
 * het_model_eval_prepare: fix the parameter vector and the set of free
 * parameters for the following het_model_eval_pairs calls.
 *   theta  het_model_nphys(m) values (copied).
 *   free   NULL (no derivatives wanted) or het_model_nphys(m) flags; the
 *          derivative columns of het_model_eval_pairs follow the order
 *          of the parameters whose flag is non-zero.
 * Returns HET_OK, or HET_EINVAL for a non-finite theta.
 * Thread: one at a time per workspace; not concurrently with _pairs.
 */
int het_model_eval_prepare(struct het_model_eval *ev, const double *theta,
    const unsigned char *free, struct het_error *err);

/* het_model_eval_nfree: number of derivative columns (free flags set). */
size_t het_model_eval_nfree(const struct het_model_eval *ev);

/*
 * het_model_eval_pairs: evaluate n pairs.
 *   g    out: n values of the shape g.
 *   dg   out: NULL, or n * nfree values, row-major (pair k's derivatives
 *        at dg[k * nfree ...]); requires free flags at prepare time.
 * Pairs must satisfy i < j < N and a < n_angles (checked only by
 * assert(); validate pair lists once when they are built).
 * Thread: any number of threads concurrently on one prepared workspace.
 */
void het_model_eval_pairs(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, double *g, double *dg);

/*
 * Least squares through the model in one pass (the gradient of a
 * Normal log likelihood, as the CMC posterior needs it).  The residual
 * of pair k at angle a is
 *
 *	r_k = w_k (offset_a + contrast_a g_k - y_k)
 *
 * and het_model_eval_lsq adds to *out, over the n pairs:
 *	ss        sum r_k^2;
 *	gfree[c]  sum r_k w_k contrast_a dg_k/dtheta_c (nfree values),
 *	          i.e. d(ss / 2)/dtheta_c;
 *	gcon[a]   sum r_k w_k g_k  (d(ss / 2)/dcontrast_a);
 *	goff[a]   sum r_k w_k      (d(ss / 2)/doffset_a).
 * Unlike het_model_eval_pairs with dg, no Jacobian row is formed: the
 * family accumulates the adjoints of its per-time tables (O(1) per pair)
 * and maps them to the parameters once (O(N nfree)), so a gradient
 * costs little more than the values.  Only families that provide it
 * (het_model_lsq_scratch(m) > 0: the heterodyne kernel); het_resid
 * falls back to the Jacobian rows otherwise.
 */
struct het_model_lsq {
	const double	*y;		/* n data */
	const double	*w;		/* n weights, or NULL for all 1 */
	const double	*contrast;	/* n_angles */
	const double	*offset;	/* n_angles */
};

struct het_model_lsq_out {
	double		 ss;
	double		*gfree;		/* nfree */
	double		*gcon;		/* n_angles */
	double		*goff;		/* n_angles */
};

/*
 * het_model_lsq_scratch: doubles of scratch het_model_eval_lsq needs
 * (the per-time adjoints), or 0 when the family has no fused pass.
 */
size_t het_model_lsq_scratch(const struct het_model *m);

/*
 * het_model_eval_lsq: the sums above over n pairs (pair k's datum is
 * L->y[k]), accumulated into out.  Requires a prepare with free flags
 * and het_model_lsq_scratch(m) > 0; scratch holds that many doubles,
 * owned by the caller (one per thread).  Pairs as for _pairs; the
 * summation order differs from a sum over Jacobian rows, so results
 * agree with it to rounding.
 * Thread: any number of threads concurrently on one prepared workspace,
 * each with its own scratch and out.
 */
void het_model_eval_lsq(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, const struct het_model_lsq *L,
    double *scratch, struct het_model_lsq_out *out);

/*
 * The separable form of g (fast-posterior.md §2), for the families whose
 * shape factorises over frames: the heterodyne kernel (every heterodyne
 * mode) and homodyne static (the rank-1 case).  For i < j and angle a
 *
 *	g(a, i, j) = sum_t P_t(i) Q_t(j) exp(L_t(i) - L_t(j)) C_t(a, i, j)
 *
 * over nterm terms, with C_t = 1 except for the oscillating term t = osc,
 * where C = cos(qa_a (V(j) - V(i))).  Each L_t is nondecreasing in the
 * frame (the rates are floored), so the exponential is at most 1 for
 * i < j; the factors e^{+L(i)} and e^{-L(j)} alone may overflow, and
 * het_separable shifts them by block.  Heterodyne: terms R, S, X with
 * P = x_r^2/n, x_s^2/n, 2 x_r x_s/n, Q = x_r^2/n, x_s^2/n, x_r x_s/n,
 * L = q^2 Sr, q^2 Ss, q^2 (Sr + Ss)/2, V = Sv, qa_a = q cos(phi_a +
 * phi0).  Homodyne static: one term, P = Q = 1, L = q^2 dt S_D.
 * One floor of the reference is not negligible: the smooth |x| =
 * sqrt(x^2 + 1e-12) of an integral difference that is exactly 0 (a rate
 * floored at 0 over frames i..j) gives the factor exp(-q^2/2 1e-6), a
 * relative 4.5e-10 at q = 0.03, instead of 1.  So term t of a pair whose
 * L_k is equal at both frames is multiplied by rho[t][k] (1 when no such
 * factor applies; heterodyne: h0^2 for R on equal Sr and S on equal Ss,
 * h0 for X on either, h0 = exp(-q^2/2 1e-6)).  With that, this equals
 * het_model_eval_pairs up to rounding and floors that lie below double
 * precision: sabs of a non-zero difference d (a relative q^2 1e-12/(4 d)),
 * the -700 clip of the log half-transport, the homodyne g1 floor of
 * 1e-10 (g below 1e-20) and the heterodyne normaliser floor (never
 * active: n >= 1/2).  The same struct carries the adjoints d f/d P_t
 * etc. of a scalar f for het_model_eval_sep_adjoint (rho unused).
 */
#define HET_SEP_MAXTERMS	3

struct het_model_sep {
	size_t	 nterm;		/* terms in use */
	long	 osc;		/* the oscillating term, or -1 */
	double	*P[HET_SEP_MAXTERMS];	/* N values each */
	double	*Q[HET_SEP_MAXTERMS];
	double	*L[HET_SEP_MAXTERMS];
	double	*V;		/* N values, when osc >= 0 */
	double	*qa;		/* n_angles values, when osc >= 0 */
	double	 rho[HET_SEP_MAXTERMS][HET_SEP_MAXTERMS];
};

/*
 * het_model_sep_terms: the number of terms of m's separable form, or 0
 * when its shape is not separable (homodyne laminar_flow: the sinc of
 * an integral difference).
 */
size_t het_model_sep_terms(const struct het_model *m);

/*
 * het_model_eval_sep: the per-frame factors of the prepared parameter
 * vector into the caller's arrays s->P[t], Q[t], L[t] (t < nterm), V
 * and qa (when the form has an oscillating term); the function sets
 * s->nterm, s->osc and s->rho.  Requires het_model_sep_terms(m) > 0.  O(N).
 * Thread: any number of threads on one prepared workspace, each with
 * its own arrays.
 */
void het_model_eval_sep(const struct het_model_eval *ev,
    struct het_model_sep *s);

/*
 * het_model_eval_sep_adjoint: add to gfree (het_model_eval_nfree values,
 * the free parameters in order) the gradient of a scalar f given its
 * adjoints adj->P[t][k] = df/dP_t(k), and likewise Q, L, V and qa
 * (same layout as het_model_eval_sep; adj->nterm and osc are ignored).
 * Needs a prepare with free flags.  O(N n_free).
 * Thread: as het_model_eval_sep.
 */
void het_model_eval_sep_adjoint(const struct het_model_eval *ev,
    const struct het_model_sep *adj, double *gfree);

/*
 * het_model_eval_sep_tangent: the directional derivatives of the
 * per-frame factors along dir (het_model_eval_nfree values, a direction
 * in the free parameters) into the caller's arrays tan->P[t], Q[t],
 * L[t] (t < nterm), V and qa (when the form oscillates), same layout as
 * het_model_eval_sep; every array of the form is written (zeros where a
 * factor does not move).  The forward counterpart of
 * het_model_eval_sep_adjoint (the same derivative columns), used for
 * Gauss-Newton matrices (het_separable_normal).  Needs a prepare with
 * free flags.  O(N n_free).
 * Thread: as het_model_eval_sep.
 */
void het_model_eval_sep_tangent(const struct het_model_eval *ev,
    const double *dir, struct het_model_sep *tan);

/*
 * het_model_eval_g: g at a single point, including the diagonal i == j
 * (used to draw full model matrices; the fits never use the diagonal).
 */
double het_model_eval_g(const struct het_model_eval *ev, size_t a, size_t i,
    size_t j);

#endif /* HET_MODEL_H */
