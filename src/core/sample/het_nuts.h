/*
 * het_nuts.h: the No-U-Turn sampler as in Stan (multinomial trajectory
 * sampling, generalised no-U-turn criterion with Stan's extra sub-tree
 * checks, diagonal or dense Euclidean metric, windowed warmup adaptation
 * of the step size and the metric), driven one transition at a time.
 *
 * Usage (one chain; run several objects for several chains):
 *	het_nuts_config_default(&cfg); cfg.num_warmup = 500; ...
 *	s = het_nuts_alloc(dim, &cfg, logp, ctx, rng, &err);
 *	het_nuts_init(s, q0, &err);
 *	while (het_nuts_test(s) == HET_CONTINUE) {
 *		het_nuts_iterate(s, &err);
 *		het_nuts_get_stats(s, &st);	report progress
 *		if (st.phase == HET_NUTS_SAMPLING) keep het_nuts_position(s)
 *	}
 *
 * The target is a callback on the unconstrained space:
 *	int logp(void *ctx, const double *q, double *lp, double *grad)
 * returns 0 and stores log p(q) (up to a constant) and its gradient, or
 * non-zero when it cannot evaluate q.  A non-zero return or a non-finite
 * lp inside a trajectory is treated like a divergence: that leaf gets
 * infinite energy, the trajectory stops growing, the transition is
 * flagged divergent and a previously accepted point is kept.  At the
 * initial point (het_nuts_init) it is an error.
 *
 * Randomness comes only from the caller's gsl_rng, so a chain is
 * reproducible from the rng seed.  The object is single-threaded: one
 * thread at a time may call its functions.
 */
#ifndef HET_NUTS_H
#define HET_NUTS_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "het_error.h"

typedef int (*het_nuts_logp_fn)(void *ctx, const double *q, double *lp,
    double *grad);

enum het_nuts_phase {
	HET_NUTS_INIT = 0,	/* allocated, het_nuts_init not yet called */
	HET_NUTS_WARMUP,
	HET_NUTS_SAMPLING,
	HET_NUTS_DONE
};

struct het_nuts_config {
	long	num_warmup;	/* 1000; adaptation runs during warmup */
	long	num_samples;	/* 1000 */
	int	max_tree_depth;	/* 10: at most 2^10 - 1 leapfrog steps */
	double	target_accept;	/* 0.85: dual-averaging target in (0, 1) */
	double	max_delta_h;	/* 1000: energy error that is divergent */
	double	step_size;	/* 1: initial step size before heuristic */
	double	gamma;		/* 0.05 */
	double	t0;		/* 10 */
	double	kappa;		/* 0.75 */
	long	init_buffer;	/* 75: initial fast window */
	long	term_buffer;	/* 50: terminal fast window */
	long	base_window;	/* 25: first slow window */
	int	adapt_metric;	/* 1: estimate the metric during warmup */
	int	dense_metric;	/* 0: diagonal metric; 1: dense (full
				   covariance, O(dim^2) per leapfrog step;
				   dim <= 4096) */
};

/*
 * Per-transition state for progress reports.  Counters cover the whole
 * run; accept_mean and divergent counts are per phase.
 */
struct het_nuts_stats {
	int	phase;		/* enum het_nuts_phase; DONE after the last */
	long	iteration;	/* transitions done (warmup + sampling) */
	double	step_size;	/* step size used by the last transition */
	double	accept_stat;	/* of the last transition */
	double	accept_mean;	/* mean accept stat in the current phase */
	int	divergent;	/* last transition diverged */
	long	divergences;	/* in the current phase */
	long	divergences_warmup;
	int	tree_depth;	/* of the last transition */
	long	n_leapfrog;	/* of the last transition */
	double	energy;		/* Hamiltonian at the selected point */
	double	lp;		/* log density at the current position */
};

/* het_nuts_config_default: fill cfg with the defaults shown above. */
void het_nuts_config_default(struct het_nuts_config *cfg);

/*
 * het_nuts_alloc: a sampler for dim parameters.  cfg is copied; logp,
 * ctx and rng are borrowed and must outlive the sampler.  Returns the
 * object (free with het_nuts_free) or NULL with HET_EINVAL (bad setting,
 * named in the message) or HET_ENOMEM.  Thread: any.
 */
struct het_nuts *het_nuts_alloc(size_t dim, const struct het_nuts_config *cfg,
    het_nuts_logp_fn logp, void *ctx, gsl_rng *rng, struct het_error *err);

/* het_nuts_free: release s; NULL is a no-op. */
void het_nuts_free(struct het_nuts *s);

/*
 * het_nuts_set_metric: the inverse metric (a covariance of q) that the
 * chain starts from, e.g. the Laplace covariance at the mode: dim values
 * (diagonal metric) or dim * dim row-major (dense; symmetrised, must be
 * positive definite), copied.  The windowed adaptation then shrinks its
 * estimates towards it (weight 5 / (n + 5)) instead of towards 1e-3 I.
 * NULL returns to the identity.  Call before het_nuts_init (which uses
 * it); it lasts across re-inits.  Returns HET_OK or HET_EINVAL (a value
 * not finite, a variance <= 0, or not positive definite; s unchanged).
 */
int het_nuts_set_metric(struct het_nuts *s, const double *minv,
    struct het_error *err);

/*
 * het_nuts_init: start a chain at q0[dim] (unconstrained) with the
 * initial metric (het_nuts_set_metric, else the identity): evaluate the target, find a first step size by Stan's
 * doubling/halving heuristic and set the dual-averaging centre
 * mu = log(10 eps) from it.  Returns HET_OK, HET_EDATA (the target fails
 * or is not finite at q0), or HET_ERANGE (no usable step size: the
 * posterior looks improper, or flat to rounding).  May be called again to
 * restart the chain.
 */
int het_nuts_init(struct het_nuts *s, const double *q0,
    struct het_error *err);

/*
 * het_nuts_iterate: one NUTS transition, then (during warmup) one step of
 * adaptation.  Returns HET_OK, HET_EINVAL when called before init or after
 * the last transition, HET_EDATA when the adapted metric is not finite
 * or not positive definite, or HET_ERANGE when the step-size heuristic
 * fails after a metric update (the chain cannot continue; re-init it).
 */
int het_nuts_iterate(struct het_nuts *s, struct het_error *err);

/*
 * het_nuts_test: HET_CONTINUE while transitions remain, HET_OK when all
 * num_warmup + num_samples have run (or before init: HET_EINVAL).
 */
int het_nuts_test(const struct het_nuts *s);

/* het_nuts_position: current point (dim values), owned by s. */
const double *het_nuts_position(const struct het_nuts *s);

/*
 * het_nuts_inv_metric: the inverse metric (the covariance estimate),
 * owned by s: dim values for the diagonal metric, dim * dim (row-major,
 * symmetric) for the dense one.
 */
const double *het_nuts_inv_metric(const struct het_nuts *s);

/* het_nuts_step_size: the current nominal step size. */
double het_nuts_step_size(const struct het_nuts *s);

/* het_nuts_get_stats: copy the progress record. */
void het_nuts_get_stats(const struct het_nuts *s, struct het_nuts_stats *st);

#endif /* HET_NUTS_H */
