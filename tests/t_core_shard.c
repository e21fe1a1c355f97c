/*
 * t_core_shard.c: CMC sharding (het_shard): coverage, balance, per-angle
 * shares, determinism, whole cells in random plans, the cell order of a
 * shard's data, the automatic count rules and the error paths.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "het_config_bridge.h"
#include "het_shard.h"
#include "tap.h"

/* n_phi angles of a frames x frames upper triangle each. */
static struct het_pair *
mkpairs(size_t n_phi, uint32_t frames, size_t *n)
{
	struct het_pair	*p;
	size_t		 k = 0, a;
	uint32_t	 i, j;

	*n = n_phi * frames * (frames - 1) / 2;
	p = calloc(*n, sizeof *p);
	for (a = 0; a < n_phi; a++)
		for (i = 0; i < frames; i++)
			for (j = i + 1; j < frames; j++) {
				p[k].i = i;
				p[k].j = j;
				p[k].a = (uint32_t)a;
				k++;
			}
	return p;
}

static void
opts(struct het_shard_opts *o, enum het_shard_strategy st, long k)
{
	memset(o, 0, sizeof *o);
	o->strategy = st;
	o->num_shards = k;
	o->min_points_per_shard = 1;
	o->flow = 1;
	o->seed = 42;
}

/* Every pair exactly once, indices ascending inside a shard. */
static int
covers(const struct het_shard_plan *pl)
{
	unsigned char	*seen = calloc(pl->npairs, 1);
	size_t		 k, t, cnt = 0;
	int		 good = 1;

	for (k = 0; k < pl->nshards; k++)
		for (t = pl->off[k]; t < pl->off[k + 1]; t++) {
			if (pl->idx[t] >= pl->npairs || seen[pl->idx[t]]++)
				good = 0;
			if (t > pl->off[k] && pl->idx[t] <= pl->idx[t - 1])
				good = 0;
			cnt++;
		}
	free(seen);
	return good && cnt == pl->npairs && pl->off[pl->nshards] == pl->npairs;
}

static void
size_range(const struct het_shard_plan *pl, size_t *lo, size_t *hi)
{
	size_t	k;

	*lo = (size_t)-1;
	*hi = 0;
	for (k = 0; k < pl->nshards; k++) {
		size_t	s = het_shard_size(pl, k);

		if (s < *lo)
			*lo = s;
		if (s > *hi)
			*hi = s;
	}
}

static int
largest_first(const struct het_shard_plan *pl)
{
	size_t	k;

	for (k = 1; k < pl->nshards; k++)
		if (het_shard_size(pl, pl->order[k]) >
		    het_shard_size(pl, pl->order[k - 1]))
			return 0;
	return 1;
}

static void
test_strategy(enum het_shard_strategy st, const struct het_pair *pairs,
    size_t n, size_t n_phi)
{
	struct het_shard_opts	 o;
	struct het_shard_plan	*pl, *pl2;
	struct het_error	 err;
	const char		*name = het_shard_strategy_name(st);
	size_t			 lo, hi;

	opts(&o, st, 8);
	pl = het_shard_plan_alloc(pairs, n, n_phi, &o, &err);
	ok(pl != NULL, "%s: plan built", name);
	if (pl == NULL) {
		diag("%s", err.msg);
		skip(5, "no plan");
		return;
	}
	is_int((long long)pl->nshards, 8, "%s: 8 shards as configured", name);
	ok(covers(pl), "%s: every pair in exactly one shard, ascending", name);
	size_range(pl, &lo, &hi);
	ok(hi - lo <= 1, "%s: sizes %zu..%zu differ by at most 1", name, lo,
	    hi);
	ok(largest_first(pl), "%s: order is largest first", name);
	pl2 = het_shard_plan_alloc(pairs, n, n_phi, &o, &err);
	ok(pl2 != NULL && memcmp(pl->idx, pl2->idx, n * sizeof *pl->idx) == 0
	    && memcmp(pl->off, pl2->off, 9 * sizeof *pl->off) == 0,
	    "%s: same seed, same plan", name);
	het_shard_plan_free(pl2);
	het_shard_plan_free(pl);
}

static void
test_random_seed(const struct het_pair *pairs, size_t n)
{
	struct het_shard_opts	 o;
	struct het_shard_plan	*a, *b;

	opts(&o, HET_SHARD_RANDOM, 4);
	a = het_shard_plan_alloc(pairs, n, 3, &o, NULL);
	o.seed = 43;
	b = het_shard_plan_alloc(pairs, n, 3, &o, NULL);
	ok(a != NULL && b != NULL && memcmp(a->idx, b->idx, n *
	    sizeof *a->idx) != 0, "random: another seed, another plan");
	/* Shard 0 of a random plan is not a contiguous run. */
	ok(a != NULL && a->idx[a->off[1] - 1] - a->idx[0] + 1 >
	    het_shard_size(a, 0), "random: shard 0 spans more than a run");
	het_shard_plan_free(a);
	het_shard_plan_free(b);
	opts(&o, HET_SHARD_CONTIGUOUS, 4);
	a = het_shard_plan_alloc(pairs, n, 3, &o, NULL);
	ok(a != NULL && a->idx[0] == 0 && a->idx[a->off[1] - 1] ==
	    het_shard_size(a, 0) - 1 && a->idx[a->off[2] - 1] ==
	    a->off[2] - 1, "contiguous: shards are consecutive runs");
	het_shard_plan_free(a);
}

/* angle_balanced with unequal angles: per-angle counts floor/ceil. */
/*
 * random keeps the angles of a frame pair together: of the 28 cells of
 * mkpairs(3, 8), at most K - 1 (those at the cuts) span two shards, and
 * every shard holds all 3 angles of its whole cells.
 */
static void
test_random_cells(const struct het_pair *pairs, size_t n)
{
	struct het_shard_opts	 o;
	struct het_shard_plan	*pl;
	size_t			 shard_of[8][8][3], k, t, split = 0;
	uint32_t		 i, j;
	const struct het_pair	*q;

	opts(&o, HET_SHARD_RANDOM, 5);
	if ((pl = het_shard_plan_alloc(pairs, n, 3, &o, NULL)) == NULL) {
		ok(0, "random: plan for the cell test");
		return;
	}
	for (k = 0; k < pl->nshards; k++)
		for (t = pl->off[k]; t < pl->off[k + 1]; t++) {
			q = &pairs[pl->idx[t]];
			shard_of[q->i][q->j][q->a] = k;
		}
	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			if (shard_of[i][j][0] != shard_of[i][j][1] ||
			    shard_of[i][j][1] != shard_of[i][j][2])
				split++;
	ok(split <= pl->nshards - 1, "random: %zu of 28 frame pairs span two "
	    "shards (at most K - 1 = %zu: the cuts)", split,
	    pl->nshards - 1);
	het_shard_plan_free(pl);
}

/* het_shard_sort_cells: (i, j, a) order, the data moved along, stable. */
static void
test_sort_cells(void)
{
	struct het_pair	 p[7] = { { 3, 5, 1 }, { 0, 2, 2 }, { 3, 5, 0 },
			    { 0, 2, 0 }, { 1, 4, 1 }, { 0, 2, 2 }, { 0, 1, 0 } };
	static const struct het_pair want[7] = { { 0, 1, 0 }, { 0, 2, 0 },
			    { 0, 2, 2 }, { 0, 2, 2 }, { 1, 4, 1 }, { 3, 5, 0 },
			    { 3, 5, 1 } };
	static const double ywant[7] = { 6, 3, 1, 5, 4, 2, 0 };
	double		 y[7] = { 0, 1, 2, 3, 4, 5, 6 };
	int		 good = 1;
	size_t		 k;

	ok(het_shard_sort_cells(p, y, 7, NULL) == HET_OK,
	    "sort_cells: sorts seven pairs");
	for (k = 0; k < 7; k++)
		if (p[k].i != want[k].i || p[k].j != want[k].j ||
		    p[k].a != want[k].a || y[k] != ywant[k])
			good = 0;
	ok(good, "sort_cells: cell by cell, angle innermost, each datum "
	    "moved with its pair, equal pairs in their former order");
	ok(het_shard_sort_cells(p, y, 0, NULL) == HET_OK,
	    "sort_cells: an empty shard is already sorted");
}

static void
test_angle_balanced(void)
{
	struct het_pair		*pairs;
	struct het_shard_opts	 o;
	struct het_shard_plan	*pl;
	size_t			 n = 0, na[3] = { 100, 37, 9 }, a, k, t, i;
	int			 good = 1, rgood = 1;

	pairs = calloc(146, sizeof *pairs);
	for (a = 0; a < 3; a++)
		for (i = 0; i < na[a]; i++)
			pairs[n++].a = (uint32_t)a;
	opts(&o, HET_SHARD_ANGLE_BALANCED, 5);
	pl = het_shard_plan_alloc(pairs, n, 3, &o, NULL);
	ok(pl != NULL && covers(pl), "angle_balanced: 146 pairs covered");
	for (k = 0; pl != NULL && k < pl->nshards; k++) {
		size_t	cnt[3] = { 0, 0, 0 };

		for (t = pl->off[k]; t < pl->off[k + 1]; t++)
			cnt[pairs[pl->idx[t]].a]++;
		for (a = 0; a < 3; a++)
			if (cnt[a] != na[a] / 5 && cnt[a] != na[a] / 5 + 1)
				good = 0;
	}
	ok(good, "angle_balanced: each shard holds 20, 7..8 and 1..2 pairs "
	    "of the three angles (100, 37, 9 over 5 shards)");
	/* The random strategy does not do that on this input. */
	het_shard_plan_free(pl);
	opts(&o, HET_SHARD_RANDOM, 5);
	pl = het_shard_plan_alloc(pairs, n, 3, &o, NULL);
	for (k = 0; pl != NULL && k < pl->nshards; k++) {
		size_t	cnt[3] = { 0, 0, 0 };

		for (t = pl->off[k]; t < pl->off[k + 1]; t++)
			cnt[pairs[pl->idx[t]].a]++;
		for (a = 0; a < 3; a++)
			if (cnt[a] != na[a] / 5 && cnt[a] != na[a] / 5 + 1)
				rgood = 0;
	}
	ok(!rgood, "random: per-angle shares are not balanced (control)");
	het_shard_plan_free(pl);
	free(pairs);
}

static void
test_auto(void)
{
	struct het_shard_opts	o;
	struct het_error	err;
	size_t			k = 0;

	is_int(het_shard_auto_size(100000, 3, 1, 0), 4800,
	    "auto size: flow, 1e5 pairs, 3 angles: 8000 x 0.6 = 4800");
	is_int(het_shard_auto_size(100000, 1, 0, 0), 6000,
	    "auto size: static, 1 angle: 10000 x 0.6 = 6000");
	is_int(het_shard_auto_size(100000, 1, 0, 8000), 5000,
	    "auto size: static, 8000 iterations: 6000 x 0.25 floored at 5000");
	is_int(het_shard_auto_size(3000000, 23, 1, 0), 5000,
	    "auto size: flow, 3M pairs, 23 angles: 5000");
	is_int(het_shard_auto_size(3000000, 8, 1, 1000), 8500,
	    "auto size: flow, 3M, 8 angles, 1000 iterations: 5000 x 0.85 x 2");
	is_int(het_shard_auto_size(60000000, 5, 0, 0), 10500,
	    "auto size: static, 60M pairs, 5 angles: 15000 x 0.7");
	is_int(het_shard_auto_size(200000000, 12, 0, 0), 20000,
	    "auto size: static, 200M pairs: 20000");
	is_int(het_shard_auto_size((size_t)2000000000, 12, 1, 500), 20000,
	    "auto size: flow, 2G pairs, 500 iterations: 10000 x 2");

	opts(&o, HET_SHARD_RANDOM, 0);
	o.one_node = 1;
	ok(het_shard_auto_count(30000000, 23, &o, &k, &err) == HET_OK &&
	    k == 1, "one node: auto count 1 for 30M pairs (got %zu)", k);
	o.max_points_per_shard = 7000000;
	ok(het_shard_auto_count(30000000, 23, &o, &k, &err) == HET_OK &&
	    k == 5, "one node, max_points_per_shard 7M: ceil(30M / 7M) = 5 "
	    "(got %zu)", k);
	o.max_points_per_shard = 1;
	ok(het_shard_auto_count(3, 1, &o, &k, &err) == HET_OK && k == 3,
	    "one node, cap 1 on 3 pairs: 3 shards, never more than pairs");
	o.num_shards = 2;
	ok(het_shard_auto_count(3000, 1, &o, &k, &err) == HET_OK && k == 2,
	    "one node: num_shards 2 is used as given");
	opts(&o, HET_SHARD_RANDOM, 0);
	ok(het_shard_auto_count(100000, 3, &o, &k, &err) == HET_OK && k == 21,
	    "auto count: 1e5 pairs, size 4800 -> 21 shards (got %zu)", k);
	ok(het_shard_auto_count(30000000, 23, &o, &k, &err) == HET_OK &&
	    k == 6000, "auto count: 30M pairs, size 5000 -> 6000 (got %zu)",
	    k);
	ok(het_shard_auto_count(9000000, 23, &o, &k, &err) == HET_OK &&
	    k == 1800, "auto count: 9M / 5000 = 1800, under the 2000 cap "
	    "(got %zu)", k);
	o.flow = 0;
	ok(het_shard_auto_count(9990000, 23, &o, &k, &err) == HET_OK &&
	    k == 999, "auto count: static 9.99M / 10000 = 999 (got %zu)", k);
	o.flow = 1;
	ok(het_shard_auto_count(11000000, 23, &o, &k, &err) == HET_OK &&
	    k == 2200, "auto count: 11M / 5000 = 2200 (cap 10000 above 10M; "
	    "got %zu)", k);
	o.iterations = 8000;	/* size 5000 * 0.25 -> floor 3000 */
	ok(het_shard_auto_count(9000000, 23, &o, &k, &err) == HET_OK &&
	    k == 2000, "auto count: 9M / 3000 = 3000 capped at 2000 (got %zu)",
	    k);
	o.iterations = 0;
	o.min_points_per_shard = 10000;
	ok(het_shard_auto_count(100000, 3, &o, &k, &err) == HET_OK && k == 10,
	    "min_points_per_shard 10000 lowers 21 to 10 (got %zu)", k);
	ok(het_shard_auto_count(5000, 3, &o, &k, &err) == HET_OK && k == 1,
	    "fewer pairs than min_points_per_shard: 1 shard (got %zu)", k);
	o.max_points_per_shard = 2000;
	ok(het_shard_auto_count(100000, 3, &o, &k, &err) == HET_OK && k == 50,
	    "max_points_per_shard 2000 raises to 50, beating the min "
	    "(got %zu)", k);
	o.max_points_per_shard = 0;
	o.num_shards = 16;
	ok(het_shard_auto_count(100000, 3, &o, &k, &err) == HET_OK && k == 16,
	    "num_shards 16 is used as given (got %zu)", k);
	o.num_shards = 0;
	o.min_points_per_shard = 1;
	ok(het_shard_auto_count(5, 3, &o, &k, &err) == HET_OK && k == 1,
	    "5 pairs: 1 shard (got %zu)", k);
}

/* The heterodyne rule (heterodyne-spec 6.6) at its defaults. */
static void
test_auto_heterodyne(void)
{
	struct het_shard_opts	o;
	struct het_error	err;
	size_t			k = 0;

	opts(&o, HET_SHARD_RANDOM, 0);
	o.heterodyne = 1;
	o.min_points_per_shard = 10000;
	o.min_points_per_param = 1500;
	o.iterations = 1500;	/* not used by this rule */
	ok(het_shard_auto_count(358800, 8, &o, &k, &err) == HET_OK && k == 8,
	    "heterodyne: 300 frames x 8 angles (358800 pairs): one shard "
	    "per angle, 8 (got %zu; the homodyne rule gives 35)", k);
	ok(het_shard_auto_count(11500000, 23, &o, &k, &err) == HET_OK &&
	    k == 23, "heterodyne: 11.5M pairs over 23 angles: 23 (got %zu)",
	    k);
	ok(het_shard_auto_count(100000, 8, &o, &k, &err) == HET_OK && k == 4,
	    "heterodyne: 1e5 pairs: 8 angles capped at 100000 / 21000 = 4 "
	    "(got %zu)", k);
	ok(het_shard_auto_count(100000, 1, &o, &k, &err) == HET_OK && k == 2,
	    "heterodyne: one angle still gives 2 shards (got %zu)", k);
	ok(het_shard_auto_count(41999, 1, &o, &k, &err) == HET_OK && k == 1,
	    "heterodyne: 41999 pairs < 2 x 21000: 1 shard (got %zu)", k);
	ok(het_shard_auto_count(42000, 1, &o, &k, &err) == HET_OK && k == 2,
	    "heterodyne: 42000 pairs = 2 x 21000: 2 shards (got %zu)", k);
	ok(het_shard_auto_count(20999, 8, &o, &k, &err) == HET_OK && k == 1,
	    "heterodyne: 20999 pairs: 1 shard (got %zu)", k);
	o.min_points_per_param = 0x7fffffffL;	/* 14 m exceeds 2^32 */
	ok(het_shard_auto_count(358800, 8, &o, &k, &err) == HET_OK && k == 1,
	    "heterodyne: the largest min_points_per_param: 1 shard, no "
	    "overflow (got %zu)", k);
	o.min_points_per_param = 500;	/* 7000 per shard */
	ok(het_shard_auto_count(100000, 12, &o, &k, &err) == HET_OK &&
	    k == 10, "heterodyne: min_points_per_param 500: 12 angles capped "
	    "by min_points_per_shard at 10 (got %zu)", k);
	o.min_points_per_shard = 1000;
	ok(het_shard_auto_count(100000, 20, &o, &k, &err) == HET_OK &&
	    k == 14, "heterodyne: 20 angles capped at 100000 / 7000 = 14 "
	    "(got %zu)", k);
	o.max_points_per_shard = 5000;
	ok(het_shard_auto_count(100000, 8, &o, &k, &err) == HET_OK && k == 20,
	    "heterodyne: max_points_per_shard 5000 raises 8 to 20, beating "
	    "the per-parameter floor (got %zu)", k);
	o.max_points_per_shard = 0;
	o.num_shards = 3;
	ok(het_shard_auto_count(100000, 8, &o, &k, &err) == HET_OK && k == 3,
	    "heterodyne: num_shards 3 is used as given (got %zu)", k);
	o.num_shards = 0;
	o.min_points_per_param = 0;
	is_int(het_shard_auto_count(100000, 8, &o, &k, &err), HET_EINVAL,
	    "heterodyne: min_points_per_param 0: HET_EINVAL");
	like(err.msg, "min_points_per_param is 0; it must be at least 1",
	    "message: %s", err.msg);
}

static void
test_errors(const struct het_pair *pairs, size_t n)
{
	struct het_shard_opts	 o;
	struct het_error	 err;
	struct het_shard_plan	*pl;
	struct het_pair		 bad[2] = { { 0, 1, 0 }, { 0, 2, 3 } };
	size_t			 k;

	opts(&o, HET_SHARD_RANDOM, 0);
	is_int(het_shard_auto_count(0, 1, &o, &k, &err), HET_EDATA,
	    "0 pairs: HET_EDATA");
	like(err.msg, "cannot shard an empty data set", "message: %s",
	    err.msg);
	o.num_shards = (long)n + 1;
	pl = het_shard_plan_alloc(pairs, n, 3, &o, &err);
	ok(pl == NULL && err.code == HET_EINVAL, "num_shards > pairs: "
	    "HET_EINVAL");
	like(err.msg, "num_shards is 85 but the data hold only 84 pairs",
	    "message: %s", err.msg);
	o.num_shards = -2;
	is_int(het_shard_auto_count(n, 3, &o, &k, &err), HET_EINVAL,
	    "negative num_shards: HET_EINVAL");
	like(err.msg, "num_shards is -2; use a positive count", "message");
	o.num_shards = 0;
	o.max_points_per_shard = -1;
	is_int(het_shard_auto_count(n, 3, &o, &k, &err), HET_EINVAL,
	    "negative max_points_per_shard: HET_EINVAL");
	like(err.msg, "max_points_per_shard is -1", "message");
	o.max_points_per_shard = 0;
	o.min_points_per_shard = 0;
	is_int(het_shard_auto_count(n, 3, &o, &k, &err), HET_EINVAL,
	    "min_points_per_shard 0: HET_EINVAL");
	like(err.msg, "min_points_per_shard is 0; it must be at least 1",
	    "message");
	o.min_points_per_shard = 1;
	pl = het_shard_plan_alloc(bad, 2, 2, &o, &err);
	ok(pl == NULL && err.code == HET_EINVAL, "angle index out of range: "
	    "HET_EINVAL");
	like(err.msg, "pair 1 (i=0, j=2) has angle index 3 but there are "
	    "only 2 angles", "message: %s", err.msg);
	o.strategy = HET_SHARD_COUNT;
	pl = het_shard_plan_alloc(pairs, n, 3, &o, &err);
	ok(pl == NULL, "unknown strategy refused");
	like(err.msg, "unknown sharding strategy 3", "message: %s", err.msg);
	o.strategy = HET_SHARD_RANDOM;
	pl = het_shard_plan_alloc(NULL, 3, 3, &o, &err);
	ok(pl == NULL && err.code == HET_EINVAL, "NULL pairs refused");
	is_str(het_shard_strategy_name(HET_SHARD_ANGLE_BALANCED),
	    "angle_balanced", "strategy name");
	is_str(het_shard_strategy_name(HET_SHARD_COUNT), "?", "bad name");
	het_shard_plan_free(NULL);
}

static void
test_from_cmc(void)
{
	struct het_config_cmc	c;
	struct het_shard_opts	o;

	memset(&c, 0, sizeof c);
	c.num_shards = 3;
	c.max_points_per_shard = 500;
	c.min_points_per_shard = 100;
	c.strategy = HET_SHARD_CONTIGUOUS;
	c.num_warmup = 200;
	c.num_samples = 300;
	c.seed = 7;
	c.min_points_per_param = 900;
	het_shard_opts_from_cmc(&c, HET_MODE_HOM_LAMINAR, &o);
	ok(o.num_shards == 3 && o.max_points_per_shard == 500 &&
	    o.min_points_per_shard == 100 && o.strategy ==
	    HET_SHARD_CONTIGUOUS && o.iterations == 500 && o.seed == 7 &&
	    o.min_points_per_param == 900 && o.flow == 1 &&
	    o.heterodyne == 0, "opts from optimization.cmc, laminar_flow");
	het_shard_opts_from_cmc(&c, HET_MODE_HOM_STATIC, &o);
	ok(o.flow == 0 && o.heterodyne == 0, "static: the homodyne static "
	    "rule");
	het_shard_opts_from_cmc(&c, HET_MODE_TWO_COMPONENT, &o);
	ok(o.heterodyne == 1, "two_component: the heterodyne rule");
	het_shard_opts_from_cmc(&c, HET_MODE_STATIC_REF, &o);
	ok(o.heterodyne == 1, "static_ref: the heterodyne rule");
}

int
main(void)
{
	struct het_pair	*pairs;
	size_t		 n;

	plan_lazy();
	pairs = mkpairs(3, 8, &n);	/* 3 x 28 = 84 pairs */
	test_strategy(HET_SHARD_RANDOM, pairs, n, 3);
	test_strategy(HET_SHARD_ANGLE_BALANCED, pairs, n, 3);
	test_strategy(HET_SHARD_CONTIGUOUS, pairs, n, 3);
	test_random_seed(pairs, n);
	test_random_cells(pairs, n);
	test_sort_cells();
	test_angle_balanced();
	test_auto();
	test_auto_heterodyne();
	test_errors(pairs, n);
	test_from_cmc();
	free(pairs);
	done_testing();
	return exit_status();
}
