/*
 * het_laplace.h: the Laplace approximation of a log density at its mode,
 * in the sampler's unconstrained coordinates, and its Pareto-smoothed
 * importance-sampling check.
 *
 * Why: NUTS started on a unit metric spends most of its warmup learning
 * scales that differ by six orders of magnitude between parameters
 * (offsets and contrasts have posterior variances near 1e-7 in the
 * sampler's coordinates, transport parameters near 1), and the
 * adaptation's shrinkage towards 1e-3 I keeps the narrow directions too
 * wide, so trees stay hundreds of leapfrog steps deep.  The covariance
 * (-H)^-1 at the mode gives the metric at once (fast-posterior.md §1).
 *
 * het_laplace_fit refines a start point (typically the NLSQ optimum,
 * mapped to u) to the mode of the log density by damped Newton steps on
 * a finite-difference Hessian of the analytic gradient, then takes the
 * Hessian again at the mode.  het_laplace_draw draws from the
 * approximation; het_laplace_psis importance-samples the density from a
 * multivariate Student-t with the Laplace location and scale and reports
 * the Pareto k-hat of the weights (Vehtari et al., "Pareto smoothed
 * importance sampling", 2015-2024): k-hat < 0.5 says the posterior is
 * close to Gaussian in these coordinates, 0.5-0.7 moderately far, > 0.7
 * far (the approximation's moments are not to be trusted, and NUTS needs
 * its full warmup).
 *
 * The log density callback is that of het_nuts (het_nuts_logp_fn): it
 * returns 0 with lp and the gradient, non-zero where it cannot evaluate.
 * het_laplace_psis calls it with grad = NULL, which the callback must
 * accept (het_posterior_nuts_logp does).  Thread: any; the callback's
 * context belongs to the calling thread for the duration of a call.
 */
#ifndef HET_LAPLACE_H
#define HET_LAPLACE_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "het_error.h"
#include "het_nuts.h"
#include "het_psis.h"

struct het_laplace {
	size_t	 p;
	double	*mode;		/* p: the refined mode (u) */
	double	 lp;		/* log density at the mode */
	double	*cov;		/* p * p row-major: (-H)^-1 */
	double	*chol;		/* p * p: its lower Cholesky factor */
	int	 newton_iter;	/* Newton steps taken */
	double	 decrement;	/* g^T (-H)^-1 g at the mode: twice the
				   log-density gain a further step would
				   bring, the squared distance to the
				   mode in sd; converged when < 1e-10 */
	int	 converged;
	long	 n_eval;	/* log-density evaluations used */
	size_t	 n_floor;	/* eigenvalues of -H that were not
				   positive, raised to the floor (0 at a
				   proper mode) */
};

/*
 * het_laplace_fit: the Laplace approximation of logp near u0[p].
 * Newton refinement: at most max_newton steps (0 = 50) of
 * u += t (-H)^-1 g with t halved until lp increases; the Hessian is
 * taken by central differences of the gradient (2p evaluations, steps of
 * 0.02 of each coordinate's Laplace sd, shortened where a side cannot be
 * evaluated), once at the start and again at
 * the final point.  Eigenvalues of -H that are not positive (a saddle,
 * or a direction the density does not bend in) are raised to 1e-12 of
 * the largest, counted in n_floor.  lap is filled on HET_OK (release
 * with het_laplace_clear).  Returns HET_OK (also when the refinement
 * did not converge: see converged), HET_EINVAL (p = 0, NULL arguments),
 * HET_EDATA (logp fails or is not finite at u0, or the Hessian is not
 * finite), HET_ENOMEM.  On error lap holds nothing.
 */
int het_laplace_fit(het_nuts_logp_fn logp, void *ctx, size_t p,
    const double *u0, int max_newton, struct het_laplace *lap,
    struct het_error *err);

/* het_laplace_clear: free lap's arrays and zero it; NULL is a no-op. */
void het_laplace_clear(struct het_laplace *lap);

/*
 * het_laplace_draw: u[p] = mode + scale L z, z ~ N(0, I) from rng.
 */
void het_laplace_draw(const struct het_laplace *lap, gsl_rng *rng,
    double scale, double *u);

/*
 * het_laplace_psis: importance sampling of logp from the multivariate
 * Student-t with dof degrees of freedom (> 0; 8 is a good choice),
 * location lap->mode and scale lap->chol, ndraw (>= 20) draws from rng.
 * Out: *khat the Pareto k-hat of the weights (as arviz's psislw: tail of
 * min(0.2 n, 3 sqrt n) largest weights, Zhang-Stephens fit with its weak
 * prior; +inf when the tail has <= 4 points or every weight is zero),
 * *ess_frac (may be NULL) the effective sample size of the raw weights
 * over ndraw.  Points where logp fails get weight 0.  Returns HET_OK,
 * HET_EINVAL or HET_ENOMEM.
 */
int het_laplace_psis(het_nuts_logp_fn logp, void *ctx,
    const struct het_laplace *lap, gsl_rng *rng, size_t ndraw, double dof,
    double *khat, double *ess_frac, struct het_error *err);

#endif /* HET_LAPLACE_H */
