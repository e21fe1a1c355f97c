/*
 * het_diag.h: MCMC convergence and efficiency diagnostics for one scalar
 * parameter: split R-hat, rank-normalised bulk/tail R-hat, bulk/tail
 * effective sample size (Vehtari, Gelman, Simpson, Carpenter and Buerkner
 * 2021, "Rank-normalization, folding, and localization: an improved R-hat
 * for assessing convergence of MCMC", Bayesian Analysis 16(2)), E-BFMI
 * (Betancourt 2016) and a posterior summary.
 *
 * Draws are passed as draws[c][i], c < nchain, i < ndraw.  Every chain is
 * split into two halves of ndraw/2 draws (the middle draw of an odd chain
 * is dropped), so ndraw >= 4 is required.  Degenerate inputs (a constant
 * parameter, an indicator that never changes) give NaN R-hat or ESS, not
 * an error: callers' gates must treat NaN as failing.
 */
#ifndef HET_DIAG_H
#define HET_DIAG_H

#include <stddef.h>

#include "het_error.h"

struct het_diag_summary {
	double	mean;		/* over all draws */
	double	sd;		/* sample standard deviation (n - 1) */
	double	q5, q50, q95;	/* quantiles (linear interpolation, type 7) */
	double	mcse_mean;	/* sd / sqrt(ess_bulk) */
	double	ess_bulk;	/* ESS of the rank-normalised split chains */
	double	ess_tail;	/* min of the 5 % and 95 % quantile ESS */
	double	rhat_bulk;	/* split R-hat of the rank-normalised draws */
	double	rhat_tail;	/* same of the folded draws |x - median| */
	double	rhat;		/* max(rhat_bulk, rhat_tail): report this */
};

/*
 * het_diag_split_rhat: classic (Gelman-Rubin) split R-hat of the raw
 * draws, sqrt(((n-1)/n W + B/n) / W) over the 2*nchain half-chains of
 * n = ndraw/2 draws.  Returns the value, or NaN when ndraw < 4, nchain
 * < 1 or the within-chain variance is zero.  No allocation.  Thread: any.
 */
double het_diag_split_rhat(const double *const *draws, size_t nchain,
    size_t ndraw);

/*
 * het_diag_rhat: rank-normalised split R-hat.
 *   bulk, tail, rhat  outputs (any may be NULL); rhat = max(bulk, tail).
 * Returns HET_OK, HET_EINVAL (ndraw < 4 or nchain < 1), HET_EDATA (a
 * non-finite draw) or HET_ENOMEM.  Thread: any.
 */
int het_diag_rhat(const double *const *draws, size_t nchain, size_t ndraw,
    double *bulk, double *tail, double *rhat, struct het_error *err);

/*
 * het_diag_ess: bulk ESS (rank-normalised split chains) and tail ESS
 * (the smaller of the ESS of the indicators x <= q05 and x <= q95).
 * Either output may be NULL.  Returns as het_diag_rhat.  Thread: any.
 */
int het_diag_ess(const double *const *draws, size_t nchain, size_t ndraw,
    double *bulk, double *tail, struct het_error *err);

/*
 * het_diag_ess_basic: ESS of the raw split chains (no rank
 * normalisation): the estimator for the mean of the draws themselves.
 * Returns as het_diag_rhat.  Thread: any.
 */
int het_diag_ess_basic(const double *const *draws, size_t nchain,
    size_t ndraw, double *ess, struct het_error *err);

/*
 * het_diag_bfmi: energy Bayesian fraction of missing information of one
 * chain, mean((E[i] - E[i-1])^2) / var(E) with var over n (ArviZ's
 * definition; Stan's sum ratio differs by the factor n / (n - 1)).
 * Values below 0.3 indicate that momentum resampling explores the energy
 * distribution poorly.  Returns HET_OK, HET_EINVAL (n < 3) or HET_EDATA
 * (non-finite or constant energies).  Thread: any.
 */
int het_diag_bfmi(const double *energy, size_t n, double *bfmi,
    struct het_error *err);

/*
 * het_diag_summarise: everything in struct het_diag_summary for one
 * parameter.  Returns as het_diag_rhat.  Thread: any.
 */
int het_diag_summarise(const double *const *draws, size_t nchain,
    size_t ndraw, struct het_diag_summary *s, struct het_error *err);

#endif /* HET_DIAG_H */
