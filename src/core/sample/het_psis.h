/*
 * het_psis.h: Pareto-smoothed importance sampling (Vehtari, Simpson,
 * Gelman, Yao and Gabry, "Pareto smoothed importance sampling", 2015-
 * 2024): the k-hat diagnostic of a set of importance weights, the
 * smoothing of their tail, and the importance reweighting of a log
 * density from a multivariate Student-t proposal.
 *
 * Why: a consensus of shard posteriors is exact only for Gaussian shard
 * posteriors; weighing draws from a proposal placed on the consensus
 * against the log density of all the data gives the full posterior's
 * moments whatever the shards did, and k-hat says whether those moments
 * can be trusted (< 0.5 good, 0.5-0.7 usable, > 0.7 not: the proposal
 * misses mass the posterior has).
 *
 * The k-hat and the smoothing follow arviz's psislw / _gpdfit: the tail
 * is the min(0.2 n, 3 sqrt n) largest weights above the next one, fitted
 * by a generalised Pareto distribution (Zhang and Stephens 2009, with the
 * weakly informative prior on k of Vehtari et al.); smoothing replaces
 * the tail weights, in their order, by the fitted distribution's
 * quantiles at (i - 1/2) / M, capped at the largest raw weight.
 * Thread: any; no globals.
 */
#ifndef HET_PSIS_H
#define HET_PSIS_H

#include <stdatomic.h>
#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "het_error.h"
#include "het_nuts.h"

/*
 * het_psis_khat: the Pareto k-hat of n log weights (any finite offset;
 * -inf for zero weights): +inf when the tail has <= 4 points or every
 * weight is zero.  Returns HET_OK, HET_EINVAL (n < 5) or HET_ENOMEM.
 */
int het_psis_khat(const double *logw, size_t n, double *khat,
    struct het_error *err);

/*
 * het_psis_smooth: Pareto-smooth n log weights in place (the tail
 * replaced as above; the others unchanged) and give their k-hat (as
 * het_psis_khat; the tail is left raw when k-hat is not finite).
 * Returns HET_OK, HET_EINVAL (n < 5) or HET_ENOMEM.
 */
int het_psis_smooth(double *logw, size_t n, double *khat,
    struct het_error *err);

/*
 * het_psis_t_draw: one draw u[d] = loc + L z from the multivariate
 * Student-t with dof degrees of freedom, L the lower Cholesky factor of
 * its scale (d x d row-major); z[d] is scratch.  Returns the term that
 * makes a log weight of a log density lp: lp + the return value is
 * log(p / q) up to a constant.  Draws one chi-square, then d normals.
 */
double het_psis_t_draw(const double *loc, const double *L, size_t d,
    double dof, gsl_rng *rng, double *z, double *u);

/*
 * What het_psis_reweight found.  mean, sd: p values each (owned; free
 * with het_psis_result_clear).
 */
struct het_psis_result {
	size_t	 p;
	size_t	 ndraw;		/* proposal draws */
	size_t	 nzero;		/* of them where the density failed
				   (outside its support): weight 0 */
	double	 khat;		/* Pareto k-hat of the raw weights */
	double	 ess;		/* effective sample size of the smoothed
				   weights, (sum w)^2 / sum w^2 */
	double	*mean, *sd;	/* reweighted moments of map(u) */
};

/*
 * Where the reweighted moments are taken: out[m] = f(u) for m < p
 * (e.g. the physical point of sampler coordinates u).  NULL: of u.
 */
typedef void (*het_psis_map_fn)(void *ctx, const double *u, double *out);

/*
 * het_psis_reweight: draw ndraw (>= 20) points u from the multivariate
 * Student-t with dof (> 2) degrees of freedom, location loc[d] and scale
 * matrix cov[d * d] (row-major, symmetric positive definite: its
 * Cholesky factor must exist), weigh each by logp(u) minus the
 * proposal's log density, Pareto-smooth the weights and take the
 * weighted mean and sd of map(u) (p values; p = d without a map).
 *   logp, ctx   the target (het_nuts_logp_fn; called with grad NULL,
 *               non-zero return: weight 0).
 *   rng         the draws' source.
 *   cancel      NULL, or a flag checked every draw: when set the call
 *               stops with HET_ECANCEL.
 *   out         filled on HET_OK (het_psis_result_clear), zeroed else.
 * Returns HET_OK, HET_EINVAL (sizes, dof, a scale that is not positive
 * definite), HET_EDATA (every weight zero: the target is nowhere
 * finite around the proposal), HET_ECANCEL, HET_ENOMEM.
 */
int het_psis_reweight(het_nuts_logp_fn logp, void *ctx,
    het_psis_map_fn map, void *map_ctx, size_t d, size_t p,
    const double *loc, const double *cov, double dof, size_t ndraw,
    gsl_rng *rng, const atomic_int *cancel, struct het_psis_result *out,
    struct het_error *err);

void het_psis_result_clear(struct het_psis_result *r);

#endif /* HET_PSIS_H */
