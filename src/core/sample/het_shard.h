/*
 * het_shard.h: dealing the upper-triangle pairs of a CMC fit into K
 * shards.
 *
 * A plan lists, for every shard, the indices (into the caller's pair
 * array) of the pairs it holds, ascending, plus the order in which the
 * coordinator should run the shards (largest first).  Every pair is in
 * exactly one shard.  The plan depends only on the pairs, the options
 * and the seed: the same inputs give the same plan on every machine
 * (GSL's mt19937, no platform RNG).
 *
 * Strategies (enum het_shard_strategy):
 *   random          the pairs grouped by time cell (i, j) (every
 *                   selected angle of a frame pair together), a seeded
 *                   Fisher-Yates permutation of the cells, their pairs
 *                   concatenated and cut into K consecutive runs; shard
 *                   sizes differ by at most 1 (the first n mod K shards
 *                   get one more), so at most K - 1 cells are split.
 *                   Keeping a cell's angles together lets the model
 *                   evaluate the angle-independent part of a pair once
 *                   per cell (with het_shard_sort_cells): 1.4-1.8x
 *                   faster posterior evaluations on eight angles than
 *                   pairs drawn one by one, and still a uniformly random
 *                   split of the time pairs.
 *   angle_balanced  the pairs of each angle are permuted (seeded) and
 *                   the angles' lists, angle by angle, are dealt round
 *                   robin: shard k gets positions k, k + K, ... of the
 *                   concatenation.  Every shard holds floor or ceil of
 *                   n_a / K pairs of each angle a, and sizes differ by
 *                   at most 1.
 *   contiguous      K consecutive runs of the pairs in the caller's
 *                   order, sizes within 1.
 *
 * Automatic shard count (het_shard_auto_count) for n pairs over n_phi
 * angles, by the rule of the reference of the analysis mode.
 * Heterodyne modes (the heterodyne library's CMCConfig.get_num_shards,
 * heterodyne-spec 6.6):
 *   K = min(max(n_phi, 2), k_upper),
 *   k_upper = max(1, min(floor(n / min_points_per_shard),
 *             floor(n / (14 * min_points_per_param))));
 *   one shard per angle, but none smaller than 10 000 pairs or 1 500
 *   pairs per physics parameter (21 000) by default.  On 300 frames x 8
 *   angles (358 800 pairs) that is 8 shards of 44 850: shards large
 *   enough for the weakly identified sample transport, where the
 *   homodyne rule's 35 of 10 251 give skewed shard posteriors and a
 *   consensus several sds off (docs/PERFORMANCE.md).
 * Homodyne modes (homodyne-spec 7.5):
 *   base size  laminar_flow: 8 000 (n < 2M),
 *              5 000 (2M <= n < 100M), 8 000 (100M <= n < 1G),
 *              10 000 (n >= 1G); static: 10 000 (n < 50M),
 *              15 000 (50M <= n < 100M), 20 000 (n >= 100M);
 *   times      0.6 (n_phi <= 3), 0.7 (<= 5), 0.85 (<= 10), 1.0 else;
 *   times      2000 / (warmup + samples per chain), clamped to
 *              [0.25, 2] (2000 = the default 500 + 1500);
 *   rounded, then floored at 3 000 (flow) or 5 000 (static), and for
 *   flow capped at 100 000 pairs;
 *   K = ceil(n / size), capped at 2 000 (n < 10M), 10 000 (n < 100M),
 *   50 000 (n < 1G), 100 000 (n >= 1G).
 *   The homodyne package's CLI (2.23, read 2026-11-25) departs from its
 *   own spec in ways hetui does not follow: it caps K at 1 000
 *   (laminar_flow) or 500 (static), also when num_shards is given; a
 *   numeric max_points_per_shard there is the shard size (so it may
 *   lower K); it truncates base x factor x iteration ratio in two steps
 *   (sizes may differ by 1 pair); it takes the iterations from
 *   optimization.mcmc; and it has no min_points_per_shard floor.
 * One node (one_node set: every worker runs on the calling machine):
 *   the automatic K is 1, one posterior of all the data whose chains run
 *   at once on the cores, raised to ceil(n / max_points_per_shard) when
 *   that cap is set.  On one node sharding buys no CPU (the work per
 *   transition is the same) while the shard posteriors are wider and
 *   more skewed and their Gaussian consensus biased (fast-posterior.md
 *   §6, docs/PERFORMANCE.md); the rules below are for workers spread
 *   over several nodes (a worker_command).
 * Configuration (struct het_shard_opts, from optimization.cmc):
 *   num_shards > 0 is used as given (it must not exceed n);
 *   otherwise the automatic K is raised to ceil(n / max_points_per_shard)
 *   when that is set, and then lowered to max(1, floor(n /
 *   min_points_per_shard)), except that the max cap wins when the two
 *   conflict (a memory and time bound beats a statistical preference;
 *   the heterodyne library lets k_upper win).  K never exceeds n.
 *
 * Thread: any; a plan belongs to the calling thread.
 */
#ifndef HET_SHARD_H
#define HET_SHARD_H

#include <stddef.h>

#include "het_error.h"
#include "het_model.h"

/* How the upper-triangle pairs are dealt into CMC shards. */
enum het_shard_strategy {
	HET_SHARD_RANDOM = 0,		/* a seeded random permutation */
	HET_SHARD_ANGLE_BALANCED,	/* every shard holds each angle's share
					   (reference "stratified") */
	HET_SHARD_CONTIGUOUS,		/* consecutive runs of pairs */
	HET_SHARD_COUNT
};

/* Largest K the automatic rule ever gives. */
#define HET_SHARD_MAX_AUTO	100000L

struct het_shard_opts {
	enum het_shard_strategy strategy;
	long		num_shards;	/* >= 1, or 0 = automatic */
	long		max_points_per_shard; /* >= 1, or 0 = no cap */
	long		min_points_per_shard; /* >= 1 */
	long		min_points_per_param; /* >= 1, heterodyne rule */
	int		heterodyne;	/* 1: the heterodyne rule, 0: the
					   homodyne one */
	int		flow;		/* homodyne rule: 1 laminar-flow base
					   sizes, 0 static ones */
	long		iterations;	/* warmup + samples per chain, or 0
					   for the default 2000 */
	int		one_node;	/* 1: the workers run on this machine:
					   automatic K = 1 (see above) */
	unsigned long	seed;
};

struct het_shard_plan {
	size_t		 npairs;	/* n */
	size_t		 nshards;	/* K */
	size_t		*off;		/* K + 1 offsets into idx */
	size_t		*idx;		/* n pair indices: shard k holds
					   idx[off[k] .. off[k+1]), ascending */
	size_t		*order;		/* K shard numbers, largest first
					   (ties: lower number first) */
};

/* Physics parameters the heterodyne rule counts (the reference's). */
#define HET_SHARD_HET_PARAMS	14

/*
 * het_shard_auto_size: the homodyne rule's automatic shard size in pairs
 * (before the count cap) for n pairs over n_phi angles.
 */
long het_shard_auto_size(size_t n, size_t n_phi, int flow, long iterations);

/*
 * het_shard_auto_count: the number of shards K for n pairs over n_phi
 * angles under the options (automatic rule and overrides as above).
 * Returns HET_OK with *k set, HET_EDATA (n = 0), or HET_EINVAL
 * (num_shards > n, negative options, min_points_per_shard < 1,
 * min_points_per_param < 1 under the heterodyne rule); the message
 * names the option and how to fix it.
 */
int het_shard_auto_count(size_t n, size_t n_phi,
    const struct het_shard_opts *o, size_t *k, struct het_error *err);

/*
 * het_shard_sort_cells: order one shard's data cell by cell, the angle
 * innermost: pairs[0..n) and y[0..n) (moved together) sorted by
 * (i, j, a), ties by their current order.  The model reuses everything
 * but the phase for consecutive pairs of the same (i, j).
 * Returns HET_OK, or HET_ENOMEM (nothing changed).
 * Thread: any.
 */
int het_shard_sort_cells(struct het_pair *pairs, double *y, size_t n,
    struct het_error *err);

/*
 * het_shard_plan_alloc: deal pairs[0..n) into shards.
 *   pairs  borrowed; .a (the angle) is read by angle_balanced, .i and
 *          .j (the cell) by random.
 *   n_phi  number of angles (every pairs[i].a must be below it).
 * Returns a plan (free with het_shard_plan_free) or NULL with the errors
 * of het_shard_auto_count, HET_EINVAL (unknown strategy, NULL pairs,
 * an angle index >= n_phi), or HET_ENOMEM.
 */
struct het_shard_plan *het_shard_plan_alloc(const struct het_pair *pairs,
    size_t n, size_t n_phi, const struct het_shard_opts *o,
    struct het_error *err);
void het_shard_plan_free(struct het_shard_plan *plan);

/* het_shard_size: the number of pairs in shard k (k < nshards). */
size_t het_shard_size(const struct het_shard_plan *plan, size_t k);

/* het_shard_strategy_name: "random", "angle_balanced", "contiguous". */
const char *het_shard_strategy_name(enum het_shard_strategy s);

#endif /* HET_SHARD_H */
