/*
 * het_consensus.h: combining the posterior draws of K CMC shards into
 * draws of the full posterior, and the convergence gates of the shards.
 *
 * Input: draws[s] is shard s's array of ndraw[s] x p values, row-major
 * (draw d, parameter m at draws[s][d p + m]), in constrained (physical)
 * coordinates.  Draw d of the combination uses draw d of every shard
 * ("aligned" draws), so the combination has min over used shards of
 * ndraw[s] draws.  A shard with any non-finite draw is dropped by every
 * method (used[s] = 0, reason in the note).
 *
 * Methods (enum het_cons_method):
 *   consensus_mc   Scott et al. (2016): W_s = inverse of shard s's
 *                  sample covariance (full p x p, divisor ndraw - 1);
 *                  theta_d = (sum W_s)^-1 sum W_s theta_{s,d}.  A
 *                  covariance whose Cholesky factorisation fails
 *                  (singular, e.g. a constant parameter) gets a ridge
 *                  eps tr(Sigma)/p on its diagonal, eps = 1e-10, 1e-9,
 *                  ..., 1e-2 until it factorises (tr = 0: ridge 1e-300
 *                  ... ); if none works the call fails with HET_EDATA.
 *                  The regularised shards are counted in nregular.
 *   robust_consensus_mc  the same after dropping outlying shards.  For
 *                  each parameter m, with shard means m_s, median M and
 *                  MAD = median |m_s - M| over the (finite) shards, the
 *                  modified z-score is z = 0.6745 |m_s - M| / MAD
 *                  (Iglewicz and Hoaglin); when MAD is 0 the mean
 *                  absolute deviation is used instead, z = |m_s - M| /
 *                  (1.253314 meanAD), and when that is 0 too the
 *                  parameter flags no shard.  A shard is an outlier when
 *                  for any parameter z >= 3.5 and also |m_s - M| >= z_c
 *                  sd_s sqrt(1 + pi / (2 K)), sd_s the shard's own
 *                  posterior sd (the median's own noise adds pi / (2 K)
 *                  of it) and z_c the normal quantile with upper tail
 *                  HET_CONS_OUTLIER_FWER / (2 K p) (K the usable
 *                  shards): the deviation must be improbable for the
 *                  shard's own uncertainty even among all K p
 *                  comparisons (shards of disjoint data scatter about
 *                  as widely as their posteriors).  The MAD of a few
 *                  shard means is noisy: with the z rule alone, which
 *                  is the references' rule, 8 clean Gaussian shards of
 *                  30 parameters lose 4 shards on average, 35 shards
 *                  lose 3.3.  Outliers are dropped
 *                  (weight 0), not down-weighted: in hetui
 *                  "down-weighted" means exactly that; the heterodyne
 *                  library's precision / K still lets a far shard pull
 *                  the mean.  With fewer than 3 shards no test is made
 *                  (the note says so, except for a single shard given);
 *                  when fewer than 3 inliers would remain, all shards
 *                  are kept and the note says so.
 *   simple_average theta_d = mean over used shards of theta_{s,d}.
 *
 * The result's mean and cov are the sample mean and covariance (divisor
 * ndraw - 1) of the combined draws; gauss_mean and gauss_cov are the
 * Gaussian product (sum W_s)^-1 sum W_s mu_s and (sum W_s)^-1 (for
 * simple_average: the mean of the means and sum Sigma_s / K^2, the
 * covariance of an average of independent shard draws).
 *
 * Skewed shard posteriors: every method is exact only for Gaussian
 * shard posteriors.  For each parameter m, skew[m] is the mean over the
 * used shards of the sample skewness g1 = m3 / m2^(3/2) of the shard's
 * draws (0 for a parameter constant in a shard), and skew_bias[m] =
 * |skew[m]| sqrt(nused) / 2 (0 when nused < 2) a rough size of the bias
 * of the combined mean in units of the full posterior's sd.  The rule
 * holds to first order for gamma shard posteriors: K shards of
 * Gamma(a, b) draws combine to mean a / b, while their product
 * Gamma(K (a - 1) + 1, K b) has mean a / b - (1 - 1/K) / b and sd about
 * sqrt(a / K) / b, a bias of about sqrt(K / a) sds at skewness
 * 2 / sqrt(a).  As a shard posterior's skewness falls like one over the
 * square root of its data, the bias grows about linearly with K: fewer,
 * larger shards cure it.
 *
 * Thread: any; objects belong to the calling thread.
 */
#ifndef HET_CONSENSUS_H
#define HET_CONSENSUS_H

#include <stddef.h>

#include "het_error.h"
#include "het_shard_run.h"

/* How shard posteriors are combined. */
enum het_cons_method {
	HET_COMBINE_CONSENSUS = 0,	/* precision-weighted (consensus_mc) */
	HET_COMBINE_ROBUST,		/* the same after dropping outlying
					   shards (robust_consensus_mc) */
	HET_COMBINE_AVERAGE,		/* plain mean of the shard draws */
	HET_COMBINE_COUNT
};

struct het_consensus {
	int		 method;	/* enum het_cons_method */
	size_t		 p;
	size_t		 ndraw;		/* combined draws */
	size_t		 nshards;	/* K given */
	size_t		 nused;		/* shards that entered */
	size_t		 nregular;	/* covariances that needed a ridge */
	double		*draws;		/* ndraw x p, row-major */
	double		*mean;		/* p */
	double		*sd;		/* p */
	double		*cov;		/* p x p */
	double		*gauss_mean;	/* p */
	double		*gauss_cov;	/* p x p */
	double		*skew;		/* p: mean shard skewness (above) */
	double		*skew_bias;	/* p: rough bias of mean, in sd */
	unsigned char	*used;		/* K: 1 entered, 0 dropped */
	unsigned char	*outlier;	/* K: 1 dropped as an outlier */
	char		*note;		/* sentences on dropped shards, or "" */
};

/*
 * het_consensus_moments: the sample mean[p] and covariance cov[p * p]
 * (divisor n - 1; 1 when n = 1) of n draws x (n x p, row-major).
 * Thread: any.
 */
void het_consensus_moments(const double *x, size_t n, size_t p,
    double *mean, double *cov);

/*
 * het_consensus_combine: combine shard draws.
 *   method  HET_COMBINE_CONSENSUS, _ROBUST or _AVERAGE.
 *   draws   K arrays (borrowed), ndraw[s] rows of p values each.
 *   out     on HET_OK filled (release with het_consensus_clear); zeroed
 *           on failure.
 * Returns HET_OK, HET_EINVAL (K = 0, p = 0, unknown method, NULL
 * arrays), HET_EDATA (no usable shard, a shard with fewer than p + 1
 * draws for a covariance, a covariance that cannot be regularised; the
 * message names the shard), HET_ENOMEM.
 */
int het_consensus_combine(int method, const double *const *draws,
    const size_t *ndraw, size_t nshards, size_t p,
    struct het_consensus *out, struct het_error *err);
void het_consensus_clear(struct het_consensus *c);

/* Family-wise rate of clean shards dropped by the robust rule's guard. */
#define HET_CONS_OUTLIER_FWER	0.01

/* A combined mean whose skew_bias exceeds this is worth a warning. */
#define HET_CONS_SKEW_BIAS_MAX	0.5

/*
 * het_consensus_skew_note: when any parameter's skew_bias exceeds
 * HET_CONS_SKEW_BIAS_MAX, append to c->note one sentence naming those
 * parameters (names: p names, or NULL for "parameter m") with their
 * mean skewness and bias, and the remedy: at most nused *
 * HET_CONS_SKEW_BIAS_MAX / (largest skew_bias) shards
 * (optimization.cmc.num_shards), or fixing those parameters.  Nothing
 * is appended otherwise.  Returns HET_OK or HET_ENOMEM (the note is then
 * unchanged).  Thread: the owner of c.
 */
int het_consensus_skew_note(struct het_consensus *c,
    const char *const *names, struct het_error *err);

/*
 * het_consensus_flatten: the draws of a shard result as ndraw x p rows
 * (chain after chain), the layout above.  Returns a malloc'd array of
 * res->nchain * res->ndraw * res->p values (caller frees) or NULL with
 * HET_ENOMEM or HET_EINVAL (empty result).
 */
double *het_consensus_flatten(const struct het_shard_result *res,
    struct het_error *err);

/* het_consensus_method_name: "consensus_mc", ... or "?". */
const char *het_consensus_method_name(int method);

/* Per-shard diagnostics, as the worker returns them (borrowed arrays). */
struct het_cons_diag {
	size_t		 p;
	const double	*rhat;		/* p; NaN = unknown (fails) */
	const double	*ess;		/* p bulk ESS; NaN fails */
	size_t		 nchain;
	const double	*bfmi;		/* nchain; NaN fails */
	long		 divergences;	/* total after warmup */
	long		 ndraws;	/* total kept draws (all chains) */
};

/* het_cons_diag_from_result: view a result's diagnostics (no copies
 * except the two arrays, which go to rhat_buf and ess_buf, p each). */
void het_cons_diag_from_result(const struct het_shard_result *res,
    double *rhat_buf, double *ess_buf, struct het_cons_diag *d);

struct het_cons_gates {
	double	max_r_hat;		/* 1.1 */
	double	min_ess;		/* 400 */
	double	min_bfmi;		/* 0.3 */
	double	max_divergence_rate;	/* 0.10 */
};

/* What the gates found for one shard. */
struct het_cons_shard_gate {
	int	pass;		/* all four passed */
	int	rhat_ok, ess_ok, bfmi_ok, div_ok;
	double	max_rhat;	/* NaN when any is NaN */
	double	min_ess;	/* NaN when any is NaN */
	double	min_bfmi;	/* NaN when any is NaN */
	double	div_rate;	/* divergences / ndraws, NaN if ndraws 0 */
	size_t	worst_rhat;	/* parameter index of max_rhat */
	size_t	worst_ess;	/* parameter index of min_ess */
};

struct het_cons_gate_report {
	int			 pass;		/* every shard passed */
	size_t			 nshards;
	size_t			 nfailed;	/* shards failing any gate */
	struct het_cons_shard_gate *shard;	/* nshards */
	char			*msg;		/* one sentence per failed gate
						   of each shard, "" if none */
};

/*
 * het_consensus_gates: apply the gates to every shard.  A shard passes
 * when max R-hat < max_r_hat, min bulk ESS > min_ess, min BFMI >
 * min_bfmi (the reference's strict comparisons) and its divergence rate
 * <= max_divergence_rate; a NaN diagnostic fails its gate.
 *   names  p parameter names for the sentences (NULL: "parameter m").
 *   rep    filled on HET_OK; release with het_cons_gate_report_clear.
 * Returns HET_OK, HET_EINVAL (no shards, NULL arrays), HET_ENOMEM.
 */
int het_consensus_gates(const struct het_cons_gates *g,
    const struct het_cons_diag *d, size_t nshards, const char *const *names,
    struct het_cons_gate_report *rep, struct het_error *err);
void het_cons_gate_report_clear(struct het_cons_gate_report *rep);

#endif /* HET_CONSENSUS_H */
