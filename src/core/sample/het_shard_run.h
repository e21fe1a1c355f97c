/*
 * het_shard_run.h: run the NUTS chains of one CMC shard and summarise
 * them.
 *
 * Before the chains (het_shard_begin), unless settings.laplace is 0, the
 * Laplace approximation of the posterior at the caller's start point x0
 * (het_laplace: Newton-refined mode, finite-difference Hessian in the
 * sampler's coordinates) gives every chain its initial metric (the
 * covariance, or its diagonal for a diagonal metric; the adaptation
 * then shrinks towards it) and its start: a draw from the approximation
 * (halved in scale until the posterior can be evaluated there), so the
 * chains start dispersed over the posterior's bulk and warmup need not
 * learn scales that differ by orders of magnitude; psis_draws
 * importance draws from a Student-t_8 on it give the Pareto k-hat that
 * says how Gaussian the posterior is.  Without it (or when the Hessian
 * cannot be taken) a chain starts at x0 moved by init_jitter on a unit
 * metric.  Either way x0 is first moved 1e-3 of its range inside bounds
 * it sits on (het_posterior_interior).
 *
 * het_shard_run runs the chains one after the other on the calling
 * thread; het_shard_begin / het_shard_run_chain / het_shard_finish let a
 * caller run them on several threads instead (hetui-worker with chain
 * threads), with the same results bit for bit: chain c of shard s uses
 * its own gsl_rng seeded with seed + 1000 s + c and starts at the
 * caller's point x0 moved by a small jitter (init_jitter * N(0, 1) per
 * unconstrained coordinate), so it depends on nothing else.  A
 * progress callback runs after every transition; it may cancel the run.
 * Contrast and offset integrated out (a posterior made with marginalise
 * on a problem that allows it; het_posterior.h): the chains and the
 * Laplace approximation work in the physics coordinates only; if the
 * conditional of some contrast or offset is not 6 conditional sd inside
 * its bounds at the Laplace mode (at the start without it), the shard
 * samples them instead (res->marginal HET_MARG_BOUND) and every chain's
 * posterior is switched alike.  Each kept draw gets every angle's
 * contrast and offset drawn from their bivariate normal conditional
 * given the physics, with the chain's own rng (two deviates per angle
 * after each kept transition), so draws stay reproducible from the seed
 * and always hold all p parameters.
 * Coordinates of the power laws (a posterior at level HET_COORDS_RATES):
 * the Laplace approximation is taken in the share coordinates first;
 * every power law whose exponent then sits more than 6 Laplace sd from
 * 0 is switched to the anchor coordinates and the approximation taken
 * again there (back to share when that fails); every chain's posterior
 * is switched alike (res->anchors).
 * Draws are stored in physical (constrained) coordinates; diagnostics per
 * parameter come from het_diag (rank-normalised R-hat, bulk and tail
 * ESS, mean, sd, quantiles, MCSE), per chain the E-BFMI of the energies,
 * the divergences after warmup and the adapted step size.
 */
#ifndef HET_SHARD_RUN_H
#define HET_SHARD_RUN_H

#include <stddef.h>

#include "het_diag.h"
#include "het_error.h"
#include "het_laplace.h"
#include "het_posterior.h"

struct het_shard_settings {
	long		num_warmup;	/* >= 1; 500 */
	long		num_samples;	/* >= 4; 1500 */
	long		num_chains;	/* >= 1; 4 */
	double		target_accept;	/* in (0, 1); 0.95 */
	int		max_tree_depth;	/* 1..15; 10 */
	int		dense_mass;	/* 0: diagonal metric; 0 */
	unsigned long	seed;		/* base seed; 42 */
	double		init_jitter;	/* >= 0, sd in u; 0.01 (no Laplace) */
	int		laplace;	/* 1: Laplace metric and starts; 1 */
	long		psis_draws;	/* >= 0: k-hat draws (0 none); 200 */
	int		marginalise;	/* 1: the shard's posterior is to
					   integrate contrast and offset out;
					   0 (read by whoever builds it:
					   het_wire_shard_build) */
};

/* What a progress callback sees after each transition. */
struct het_shard_progress {
	long		shard;
	const char	*phase;		/* "warmup" or "sampling" */
	long		chain;		/* 0-based */
	long		iteration;	/* transitions done in this chain */
	long		total;		/* warmup + samples per chain */
	double		step_size;
	double		accept;		/* mean accept stat in this phase */
	long		divergences;	/* in this phase of this chain */
	double		rhat;		/* running max R-hat, NaN if unknown */
};

/*
 * Return 0 to go on, non-zero to cancel (het_shard_run then returns
 * HET_ECANCEL).
 */
/*
 * A chain's start x0 is moved this fraction of each prior range inside
 * finite bounds (het_posterior_interior); a power law whose exponent the
 * Laplace approximation puts more than this many sd from 0 is sampled
 * on anchor times (het_posterior_anchor_choice).
 */
#define HET_SHARD_INTERIOR	1e-3
#define HET_SHARD_ANCHOR_Z	6.0

typedef int (*het_shard_progress_fn)(void *ctx,
    const struct het_shard_progress *pr);

struct het_shard_result {
	size_t		 p;		/* parameters */
	size_t		 nchain;
	size_t		 ndraw;		/* kept draws per chain */
	char		**names;	/* p names (owned) */
	double		*draws;		/* nchain * p * ndraw: draw i of
					   parameter m in chain c at
					   [(c p + m) ndraw + i] */
	struct het_diag_summary *summary; /* p entries; NaN fields when a
					   diagnostic is undefined */
	double		*bfmi;		/* nchain, NaN when undefined */
	long		*divergences;	/* nchain, sampling phase */
	double		*step_size;	/* nchain, adapted */
	double		*accept;	/* nchain, mean accept (sampling) */
	double		*leapfrog;	/* nchain: mean leapfrog steps per
					   transition after warmup (0 when
					   decoded from a record or file) */
	double		*leapfrog_warmup; /* nchain: the same in warmup */
	double		 wall_time;	/* s, filled by the caller if wanted */
	int		 laplace;	/* 1: the chains started from the
					   Laplace approximation */
	double		 laplace_khat;	/* its PSIS k-hat, NaN if not taken */
	double		 laplace_ess;	/* effective fraction of its
					   importance draws, NaN if none */
	int		 marginal;	/* enum het_post_marg: contrast and
					   offset integrated out (on), or
					   why they were sampled */
	unsigned	 anchors;	/* bit k: power law k sampled as
					   its rates at three anchor times */
};

/* het_shard_settings_default: the defaults listed above. */
void het_shard_settings_default(struct het_shard_settings *st);

/*
 * het_shard_run: run the chains of one shard.
 *   post     the shard's posterior (used by this thread only).
 *   st       settings (validated: HET_EINVAL names the bad one).
 *   shard    shard index (seed offset and progress records).
 *   x0       p physical start values, strictly inside the bounds.
 *   cb, ctx  progress callback (may be NULL).
 *   res      out: filled on HET_OK; release with het_shard_result_clear.
 * Returns HET_OK, HET_EINVAL, HET_ERANGE (x0 outside bounds, or no usable
 * step size), HET_EDATA (posterior not finite at the start),
 * HET_ECANCEL, HET_ENOMEM.  Thread: any, one run per posterior.
 */
int het_shard_run(struct het_posterior *post,
    const struct het_shard_settings *st, long shard, const double *x0,
    het_shard_progress_fn cb, void *ctx, struct het_shard_result *res,
    struct het_error *err);

/* A shard run in pieces (see het_shard_begin). */
struct het_shard_job {
	struct het_shard_settings st;
	long		 shard;
	size_t		 p, nchain, ndraw;	/* p: physical parameters */
	size_t		 d;		/* sampled coordinates */
	int		 marg;		/* 1: contrast and offset
					   integrated out */
	unsigned	 anchors;	/* power-law triples on anchor
					   coordinates (het_posterior_set_
					   anchors) */
	int		 coords_tries;	/* coordinate switches made */
	double		*energy;	/* nchain * ndraw, for E-BFMI */
	double		*x0;		/* p: the start, moved inside bounds */
	int		 have_lap;
	struct het_laplace lap;		/* when have_lap */
	double		*metric;	/* the chains' initial metric */
};

/*
 * het_shard_begin: validate st and prepare job and res (names from post,
 * room for every chain's draws) for het_shard_run_chain, and take the
 * Laplace approximation at x0 (p physical values) with post on the
 * calling thread (see above; res->laplace says whether it was used).
 * Returns HET_OK, HET_EINVAL (a bad setting, named), HET_ERANGE (x0 not
 * finite) or HET_ENOMEM; on error job and res hold nothing.
 *
 * het_shard_run_chain: run chain c (< nchain) into its slice of res and
 * job (draws, energies, divergences, acceptance, step size).  post must
 * be a posterior of the same shard used by this call only; chains may
 * run in any order, on any threads, each c once.  sequential = 1 adds the
 * running R-hat over chains 0..c to the progress records (it reads the
 * earlier chains' draws, so only when they are complete); 0 gives NaN.
 * Same errors as het_shard_run; on error res and job are left for the
 * caller to clear.
 *
 * het_shard_finish: summaries and E-BFMI once every chain ran; releases
 * job.  Returns HET_OK or het_diag's error (res is then cleared).
 * het_shard_job_clear: release job without finishing (after an error).
 */
int het_shard_begin(struct het_posterior *post,
    const struct het_shard_settings *st, long shard, const double *x0,
    struct het_shard_job *job, struct het_shard_result *res,
    struct het_error *err);
int het_shard_run_chain(struct het_shard_job *job, struct het_posterior *post,
    size_t c, int sequential, het_shard_progress_fn cb, void *ctx,
    struct het_shard_result *res, struct het_error *err);
int het_shard_finish(struct het_shard_job *job, struct het_shard_result *res,
    struct het_error *err);
void het_shard_job_clear(struct het_shard_job *job);

/*
 * het_shard_result_alloc: allocate the arrays of res for p, nchain,
 * ndraw (zeroed, names NULL).  Used by het_shard_run and by decoders.
 * Returns HET_OK or HET_ENOMEM (res is then cleared).
 */
int het_shard_result_alloc(struct het_shard_result *res, size_t p,
    size_t nchain, size_t ndraw, struct het_error *err);

/*
 * het_shard_result_summarise: fill res->summary (p entries) from
 * res->draws with het_diag_summarise, exactly as het_shard_run does, so
 * that draws read back from a results file give the worker's summaries
 * bit for bit.  BFMI needs the energies and is left alone.  Returns
 * HET_OK, HET_ENOMEM or het_diag_summarise's error prefixed with the
 * parameter.  Thread: any.
 */
int het_shard_result_summarise(struct het_shard_result *res,
    struct het_error *err);

/* het_shard_result_clear: free everything in res and zero it. */
void het_shard_result_clear(struct het_shard_result *res);

#endif /* HET_SHARD_RUN_H */
