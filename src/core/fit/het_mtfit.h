/*
 * het_mtfit.h: the quick fits of a multitau g2(tau) (het_multitau.h):
 * one exponential or a stretched one per q bin, then the rates against
 * q^2 for the diffusion coefficient, as pyXpcsViewer's main view does.
 *
 * Model of one bin:
 *
 *   g2(tau) = b + beta exp(-2 (Gamma tau)^kappa)
 *
 * with the baseline b, the contrast beta, the relaxation rate Gamma
 * (1/s: g1 = exp(-(Gamma tau)^kappa)) and the stretching exponent kappa,
 * fixed at 1 for the single exponential and free within bounds for the
 * stretched one.  The fit is weighted least squares with the file's
 * errors (residuals (g2 - model) / err), bounded, on hetui's own
 * trust-region solver (het_nlsq.h) in the coordinates (b, beta,
 * ln Gamma, kappa), from the best point of a grid over Gamma on which
 * b and beta are solved exactly.  A point whose error is 0 (boost_corr's
 * mark of a bin without photons) carries no weight and is left out.
 * Uncertainties are the covariance of the normal equations, scaled up
 * by the reduced chi-square when it exceeds 1 (the Birge ratio, as
 * hetui fit --all-rings does for its trends).
 *
 * Diffusion: a Brownian sample has Gamma = D q^2.  het_mtfit_diffusion
 * fits the rates of the bins against q^2 by weighted least squares (1 /
 * err^2), through the origin (D) and with an intercept (Gamma_0 + D q^2:
 * a rate that does not vanish at q = 0 betrays something besides
 * diffusion), each standard error scaled up by the Birge ratio.  Units:
 * q in 1/Angstrom and Gamma in 1/s give D in Angstrom^2/s.
 *
 * Thread: every function works on the caller's objects only; different
 * threads may fit different bins at once.  Nothing prints.
 */
#ifndef HET_MTFIT_H
#define HET_MTFIT_H

#include <stddef.h>

#include "het_error.h"

enum het_mtfit_model {
	HET_MTFIT_SINGLE = 0,	/* kappa = 1 */
	HET_MTFIT_STRETCHED,	/* kappa free */
	HET_MTFIT_NMODELS
};

/* The parameters, in the order of struct het_mtfit's x and err. */
enum het_mtfit_param {
	HET_MTFIT_B = 0,	/* baseline */
	HET_MTFIT_BETA,		/* contrast */
	HET_MTFIT_GAMMA,	/* rate, 1/s */
	HET_MTFIT_KAPPA,	/* stretching exponent */
	HET_MTFIT_NP
};

enum het_mtfit_status {
	HET_MTFIT_OK = 0,	/* converged */
	HET_MTFIT_NOTCONV,	/* the evaluation limit stopped it: x is
				   the last point, err its covariance */
	HET_MTFIT_FEW		/* too few usable points: nothing fitted */
};

/* Options; het_mtfit_opts_init gives the defaults. */
struct het_mtfit_opts {
	double	tau_lo, tau_hi;		/* fit range in seconds: 0 and
					   INFINITY (every delay) */
	double	kappa_lo, kappa_hi;	/* bounds of the stretched
					   exponent: 0.2 and 2 */
};

/* One fit of one bin. */
struct het_mtfit {
	enum het_mtfit_model model;
	enum het_mtfit_status status;
	double	x[HET_MTFIT_NP];	/* b, beta, Gamma (1/s), kappa (1
					   for the single model) */
	double	err[HET_MTFIT_NP];	/* one sigma; NaN where the data do
					   not determine it, and for the
					   fixed kappa */
	unsigned at_bound;		/* bit 1 << param: on a bound */
	double	lo[HET_MTFIT_NP], hi[HET_MTFIT_NP];	/* the bounds used
					   (Gamma in 1/s) */
	double	chi2;			/* sum of squared weighted residuals */
	double	chi2_red;		/* chi2 / dof */
	size_t	npts, dof;		/* points used, npts - parameters */
	long	nfev;			/* cost evaluations of the solver */
	char	note[224];		/* why FEW or NOTCONV, or which
					   parameter sits on a bound; "" */
};

/* Diffusion from the rates of several bins. */
struct het_mtfit_diff {
	size_t	n;		/* bins used */
	size_t	nskip;		/* bins left out (het_mtfit_diffusion
				   says which count) */
	double	D, D_err;	/* Gamma = D q^2; Angstrom^2/s */
	double	chi2_red;	/* of that fit, n - 1 degrees of freedom */
	double	D1, D1_err;	/* Gamma = Gamma0 + D1 q^2 (NaN with
				   fewer than 3 bins) */
	double	G0, G0_err;	/* Gamma0, 1/s */
	double	chi2_red1;	/* of that fit, n - 2 degrees of freedom */
};

/* het_mtfit_opts_init: the defaults above.  Thread: any. */
void het_mtfit_opts_init(struct het_mtfit_opts *o);

/*
 * het_mtfit_bin: fit one bin.
 *   tau, g2, err  n delays (seconds, > 0), values and errors; points
 *           with err <= 0 or a non-finite value, or outside the fit
 *           range, are left out.
 *   model   single or stretched.
 *   opts    NULL for the defaults.
 *   fit     on output, the result.  Too few points (fewer than one more
 *           than the parameters: 4 single, 5 stretched) is not an error:
 *           fit->status is HET_MTFIT_FEW with the count in fit->note and
 *           NaN values.
 * Returns HET_OK; HET_EINVAL for n = 0, a NULL array, a model out of
 * range or bad options (the message names the option); HET_ENOMEM;
 * HET_EINTERNAL when LAPACK fails.
 * Thread: any.
 */
int het_mtfit_bin(const double *tau, const double *g2, const double *err,
    size_t n, enum het_mtfit_model model, const struct het_mtfit_opts *opts,
    struct het_mtfit *fit, struct het_error *e);

/*
 * het_mtfit_eval: the fitted curve at tau (seconds); NaN for a fit with
 * status FEW.  Thread: any.
 */
double het_mtfit_eval(const struct het_mtfit *fit, double tau);

/*
 * het_mtfit_diffusion: D from the rates of n bins.
 *   q      n wavevectors (1/Angstrom).
 *   fits   n fits of the same model; a bin counts when its fit
 *          converged, its rate is not on a bound (a decay outside the
 *          delays), its contrast exceeds twice its error (a decay is
 *          seen at all) and its rate has a finite positive
 *          uncertainty.
 *   out    on output, the result (NaN where undefined).
 * Returns HET_OK; HET_ERANGE with a sentence (how many bins were usable
 * and why the others were not) when fewer than 2 bins count, out then
 * holding NaN; HET_EINVAL for n = 0 or NULL arrays.
 * Thread: any.
 */
int het_mtfit_diffusion(const double *q, const struct het_mtfit *fits,
    size_t n, struct het_mtfit_diff *out, struct het_error *e);

/*
 * het_mtfit_skip: why het_mtfit_diffusion leaves a fit out ("too few
 * points", "not converged", "rate on a bound", "no contrast above twice
 * its error", "no uncertainty"; static strings), or NULL when it counts.
 * Thread: any.
 */
const char *het_mtfit_skip(const struct het_mtfit *fit);

/*
 * het_mtfit_name: "single" or "stretched".  Thread: any.
 */
const char *het_mtfit_name(enum het_mtfit_model model);

#endif /* HET_MTFIT_H */
