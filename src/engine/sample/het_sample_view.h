/*
 * het_sample_view.h: read-only views into a sampling pipeline
 * (het_sample.h) that the workstation's Sampling and Results panels need
 * beyond the pipeline's own accessors: the combined draws, each shard's
 * decoded result and gate verdict, the shard settings, the gate
 * thresholds, and a light summary of a shard's result record that does
 * not decode its draws.
 *
 * Validity: like the accessors of het_sample.h, every pointer returned
 * is owned by the pipeline and stays valid until het_sample_free; what
 * COMBINING produced is immutable once that phase has ended.
 * Thread: the loop thread (the one that drives the pipeline).
 */
#ifndef HET_SAMPLE_VIEW_H
#define HET_SAMPLE_VIEW_H

#include <stddef.h>

#include <jansson.h>

#include "het_consensus.h"
#include "het_sample.h"
#include "het_shard_run.h"

/*
 * het_sample_view_draws: the combined (consensus) draws, ndraw rows of p
 * values each, row-major, parameters in the order of the summary.
 * Returns NULL (and 0 in *ndraw and *p) before COMBINING has ended or
 * when nothing was combined.  ndraw and p may be NULL.
 */
const double *het_sample_view_draws(const struct het_sample *s,
    size_t *ndraw, size_t *p);

/*
 * het_sample_view_shard: the decoded result of shard `index` (queue
 * order, as het_sample_shard), once COMBINING has ended; NULL before,
 * and for a shard without a result.
 */
const struct het_shard_result *het_sample_view_shard(
    const struct het_sample *s, size_t index);

/*
 * het_sample_view_gate: what the gates found for shard `index`, once
 * COMBINING has ended; NULL before, and for a shard without a result.
 * het_sample_view_used: 1 when the shard entered the combination
 * (robust consensus drops outliers), else 0.
 */
const struct het_cons_shard_gate *het_sample_view_gate(
    const struct het_sample *s, size_t index);
int het_sample_view_used(const struct het_sample *s, size_t index);

/* het_sample_view_gates: the four gate thresholds of the run's config. */
void het_sample_view_gates(const struct het_sample *s,
    struct het_cons_gates *g);

/*
 * het_sample_view_settings: the NUTS settings sent with every shard
 * (chains, warmup, samples per chain), valid from SAMPLING on; NULL
 * before.
 */
const struct het_shard_settings *het_sample_view_settings(
    const struct het_sample *s);

/*
 * het_sample_view_eta: during SAMPLING, the share of the sampling work
 * done in *done (het_cmc_work_done with the run's chains and iterations
 * per chain) and in *left the seconds still needed at the rate since the
 * shards started (now: het_clock_now()).  Returns 1 when the estimate
 * means something (10 s after the shards started, 1% to 99.999% of the
 * work done); else 0 with *left NaN (and *done 0 outside SAMPLING).
 * Early warmup is slower than sampling, so early estimates run high.
 */
int het_sample_view_eta(const struct het_sample *s, double now,
    double *done, double *left);

/*
 * het_sample_view_config: the run's own copy of the configuration (as
 * het_sample_alloc copied it).  Never NULL.
 */
const struct het_config *het_sample_view_config(const struct het_sample *s);

/* The diagnostics of one shard result, read without its draws. */
struct het_sample_shard_diag {
	size_t	p, nchain, ndraw;	/* parameters, chains, draws */
	double	max_rhat;		/* max over parameters, NaN */
	size_t	worst_rhat;		/* its parameter index */
	double	min_ess;		/* min bulk ESS, NaN */
	long	divergences;		/* total after warmup */
	double	step_size;		/* mean over chains */
	double	accept;			/* mean over chains */
	double	wall_time;		/* s, the worker's clock */
};

/*
 * het_sample_result_diag: fill *d from a result record's payload (the
 * JSON object of docs/wire-protocol.md §3; id names the shard in
 * messages).  JSON null diagnostics are NaN, and a NaN R-hat or ESS makes
 * the maximum or minimum NaN; wall_time is NaN when absent.  Returns
 * HET_OK, or HET_EPROTO naming the field (not an object, summary missing
 * or empty, chain missing, a summary entry not an object, rhat or
 * ess_bulk missing or not a number).  Thread: any.
 */
int het_sample_result_diag(const json_t *res, long id,
    struct het_sample_shard_diag *d, struct het_error *err);

/*
 * het_sample_view_shard_diag: fill *d from the result record of shard
 * `index` (any phase from SAMPLING on: it reads the coordinator's JSON,
 * not the decoded draws, so it is cheap) with het_sample_result_diag.
 * Returns HET_OK; HET_EINVAL when the shard has no result yet; the
 * HET_EPROTO of het_sample_result_diag when the record is malformed.
 */
int het_sample_view_shard_diag(const struct het_sample *s, size_t index,
    struct het_sample_shard_diag *d, struct het_error *err);

/*
 * het_sample_view_reweight: the sentence on a sharded run's check
 * against all the data (het_sample_rw.c), as the CLI's summary and the
 * Results panel show it, into buf (len bytes).  Returns -1 when no check
 * was made (buf empty), 1 when it cannot be trusted (k-hat > 0.7) or
 * finds a consensus mean more than 0.5 sd off (the warning's cases),
 * else 0.  Thread: any.
 */
int het_sample_view_reweight(const struct het_sample_summary *sm,
    char *buf, size_t len);

#endif /* HET_SAMPLE_VIEW_H */
