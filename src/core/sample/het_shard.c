#include "config.h"

/*
 * het_shard.c: CMC sharding of the upper-triangle pairs.
 *
 * The rules are documented in het_shard.h.  A plan is stored CSR-style
 * (offsets and one index array) so K can be large (up to 100 000) at
 * little cost.  Randomness is a gsl_rng mt19937 seeded with the
 * configured seed, used only through gsl_rng_uniform_int, so the plan is
 * the same on every platform.  Each shard's indices are sorted so a
 * worker reads its data in the original order.
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "het_shard.h"
#include "het_util.h"

static const char *const strategy_names[HET_SHARD_COUNT] = {
	"random", "angle_balanced", "contiguous"
};

const char *
het_shard_strategy_name(enum het_shard_strategy s)
{
	if ((int)s < 0 || s >= HET_SHARD_COUNT)
		return "?";
	return strategy_names[s];
}

long
het_shard_auto_size(size_t n, size_t n_phi, int flow, long iterations)
{
	double	base, mult, scale, size;
	double	floor_size = flow ? 3000.0 : 5000.0;
	double	nd = (double)n;

	if (flow) {
		if (nd < 2e6)
			base = 8000.0;
		else if (nd < 1e8)
			base = 5000.0;
		else if (nd < 1e9)
			base = 8000.0;
		else
			base = 10000.0;
	} else {
		if (nd < 5e7)
			base = 10000.0;
		else if (nd < 1e8)
			base = 15000.0;
		else
			base = 20000.0;
	}
	if (n_phi <= 3)
		mult = 0.6;
	else if (n_phi <= 5)
		mult = 0.7;
	else if (n_phi <= 10)
		mult = 0.85;
	else
		mult = 1.0;
	scale = iterations > 0 ? 2000.0 / (double)iterations : 1.0;
	if (scale < 0.25)
		scale = 0.25;
	if (scale > 2.0)
		scale = 2.0;
	size = floor(base * mult * scale + 0.5);
	if (size < floor_size)
		size = floor_size;
	if (flow && size > 100000.0)
		size = 100000.0;
	return (long)size;
}

static size_t
auto_cap(size_t n)
{
	double	nd = (double)n;

	if (nd < 1e7)
		return 2000;
	if (nd < 1e8)
		return 10000;
	if (nd < 1e9)
		return 50000;
	return (size_t)HET_SHARD_MAX_AUTO;
}

/*
 * The heterodyne rule before the overrides: one shard per angle (at
 * least 2), lowered to the per-shard and per-parameter floors.  The
 * min_points_per_shard floor is applied again by the caller.
 */
static size_t
count_heterodyne(size_t n, size_t n_phi, const struct het_shard_opts *o)
{
	size_t	k = n_phi > 2 ? n_phi : 2;
	/* floor(n / (14 m)), without forming 14 m */
	size_t	kmax = n / HET_SHARD_HET_PARAMS /
		    (size_t)o->min_points_per_param;

	if (k > kmax)
		k = kmax;
	return k > 0 ? k : 1;
}

int
het_shard_auto_count(size_t n, size_t n_phi, const struct het_shard_opts *o,
    size_t *k, struct het_error *err)
{
	size_t	kk, size, kmax, kmin;

	if (n == 0)
		return het_error_set(err, HET_EDATA, "cannot shard an empty "
		    "data set: the selection holds no upper-triangle pairs; "
		    "select at least one angle with two or more frames");
	if (o->num_shards < 0)
		return het_error_set(err, HET_EINVAL, "optimization.cmc."
		    "num_shards is %ld; use a positive count or \"auto\"",
		    o->num_shards);
	if (o->max_points_per_shard < 0)
		return het_error_set(err, HET_EINVAL, "optimization.cmc."
		    "max_points_per_shard is %ld; use a positive count or "
		    "\"auto\"", o->max_points_per_shard);
	if (o->min_points_per_shard < 1)
		return het_error_set(err, HET_EINVAL, "optimization.cmc."
		    "min_points_per_shard is %ld; it must be at least 1",
		    o->min_points_per_shard);
	if (o->num_shards > 0) {
		if ((size_t)o->num_shards > n)
			return het_error_set(err, HET_EINVAL,
			    "optimization.cmc.num_shards is %ld but the data "
			    "hold only %zu pairs; use at most %zu shards or "
			    "\"auto\"", o->num_shards, n, n);
		*k = (size_t)o->num_shards;
		return HET_OK;
	}
	if (o->one_node)
		kk = 1;		/* raised by the cap below */
	else if (o->heterodyne) {
		if (o->min_points_per_param < 1)
			return het_error_set(err, HET_EINVAL, "optimization."
			    "cmc.sharding.min_points_per_param is %ld; it "
			    "must be at least 1", o->min_points_per_param);
		kk = count_heterodyne(n, n_phi, o);
	} else {
		size = (size_t)het_shard_auto_size(n, n_phi, o->flow,
		    o->iterations);
		kk = (n + size - 1) / size;
		if (kk > auto_cap(n))
			kk = auto_cap(n);
	}
	kmin = 0;
	if (o->max_points_per_shard > 0) {
		kmin = (n + (size_t)o->max_points_per_shard - 1) /
		    (size_t)o->max_points_per_shard;
		if (kk < kmin)
			kk = kmin;
	}
	kmax = n / (size_t)o->min_points_per_shard;
	if (kmax < 1)
		kmax = 1;
	if (kk > kmax)
		kk = kmax > kmin ? kmax : kmin;
	if (kk > n)
		kk = n;
	if (kk < 1)
		kk = 1;
	*k = kk;
	return HET_OK;
}

void
het_shard_plan_free(struct het_shard_plan *plan)
{
	if (plan == NULL)
		return;
	free(plan->off);
	free(plan->idx);
	free(plan->order);
	free(plan);
}

size_t
het_shard_size(const struct het_shard_plan *plan, size_t k)
{
	return plan->off[k + 1] - plan->off[k];
}

static void
shuffle(gsl_rng *r, size_t *v, size_t n)
{
	size_t	i, j, t;

	for (i = n; i > 1; i--) {
		j = (size_t)gsl_rng_uniform_int(r, (unsigned long)i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* Cut seq[0..n) into K consecutive runs, sizes within 1. */
static void
cut_runs(struct het_shard_plan *plan, const size_t *seq)
{
	size_t	k, K = plan->nshards, n = plan->npairs, q = n / K, r = n % K;

	plan->off[0] = 0;
	for (k = 0; k < K; k++)
		plan->off[k + 1] = plan->off[k] + q + (k < r ? 1 : 0);
	memcpy(plan->idx, seq, n * sizeof *seq);
}

/* Deal seq[0..n) round robin: position t goes to shard t mod K. */
static void
deal_round_robin(struct het_shard_plan *plan, const size_t *seq)
{
	size_t	k, t, K = plan->nshards, n = plan->npairs, q = n / K, r = n % K;

	plan->off[0] = 0;
	for (k = 0; k < K; k++)
		plan->off[k + 1] = plan->off[k] + q + (k < r ? 1 : 0);
	for (t = 0; t < n; t++)
		plan->idx[plan->off[t % K] + t / K] = seq[t];
}

/* A pair's cell, for sorting: (i, j) in one key, then the tie-breaker. */
struct cell_key {
	uint64_t	cell;		/* i << 32 | j */
	uint64_t	tie;		/* angle << 32 | position, or position */
	size_t		pos;
};

static int
cmp_cell(const void *a, const void *b)
{
	const struct cell_key *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return x->tie < y->tie ? -1 : x->tie > y->tie;
}

static uint64_t
cell_of(const struct het_pair *p)
{
	return (uint64_t)p->i << 32 | p->j;
}

/*
 * Group pair indices by cell (i, j), shuffle the cells, and write their
 * pairs, cell after cell, into seq.
 */
static int
by_cell(const struct het_pair *pairs, size_t n, gsl_rng *r, size_t *seq,
    struct het_error *err)
{
	struct cell_key	*key;
	size_t		*start, nc = 0, c, t, i;

	key = het_alloc_array(n, sizeof *key, "shard cell table", err);
	start = het_alloc_array(n + 1, sizeof *start, "shard cell table",
	    err);
	if (key == NULL || start == NULL) {
		free(key);
		free(start);
		return err != NULL ? err->code : HET_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		key[i].cell = cell_of(&pairs[i]);
		key[i].tie = i;
		key[i].pos = i;
	}
	qsort(key, n, sizeof *key, cmp_cell);
	for (i = 0; i < n; i++)
		if (i == 0 || key[i].cell != key[i - 1].cell)
			start[nc++] = i;
	start[nc] = n;
	/* shuffle the cell numbers in seq[0..nc), then expand them */
	for (c = 0; c < nc; c++)
		seq[c] = c;
	shuffle(r, seq, nc);
	for (c = nc, t = n; c-- > 0;) {		/* back to front: in place */
		size_t cell = seq[c], k = start[cell + 1];

		while (k > start[cell])
			seq[--t] = key[--k].pos;
	}
	free(key);
	free(start);
	return HET_OK;
}

int
het_shard_sort_cells(struct het_pair *pairs, double *y, size_t n,
    struct het_error *err)
{
	struct cell_key	*key;
	struct het_pair	*pp;
	double		*yy;
	size_t		 i;

	if (n < 2)
		return HET_OK;
	key = het_alloc_array(n, sizeof *key, "shard cell order", err);
	pp = het_alloc_array(n, sizeof *pp, "shard cell order", err);
	yy = het_alloc_array(n, sizeof *yy, "shard cell order", err);
	if (key == NULL || pp == NULL || yy == NULL) {
		free(key);
		free(pp);
		free(yy);
		return err != NULL ? err->code : HET_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		key[i].cell = cell_of(&pairs[i]);
		key[i].tie = (uint64_t)pairs[i].a << 32 | (uint64_t)i;
		key[i].pos = i;
	}
	qsort(key, n, sizeof *key, cmp_cell);
	for (i = 0; i < n; i++) {
		pp[i] = pairs[key[i].pos];
		yy[i] = y[key[i].pos];
	}
	memcpy(pairs, pp, n * sizeof *pp);
	memcpy(y, yy, n * sizeof *yy);
	free(key);
	free(pp);
	free(yy);
	return HET_OK;
}

/* Group pair indices by angle (stable) and shuffle within each angle. */
static int
by_angle(const struct het_pair *pairs, size_t n, size_t n_phi, gsl_rng *r,
    size_t *seq, struct het_error *err)
{
	size_t	*start, a, i;

	start = het_alloc_array(n_phi + 1, sizeof *start, "shard angle table",
	    err);
	if (start == NULL)
		return err != NULL ? err->code : HET_ENOMEM;
	for (i = 0; i < n; i++)
		start[pairs[i].a + 1]++;
	for (a = 0; a < n_phi; a++)
		start[a + 1] += start[a];
	for (i = 0; i < n; i++)
		seq[start[pairs[i].a]++] = i;
	/* start[a] is now the end of angle a; shuffle each run. */
	for (a = 0; a < n_phi; a++) {
		size_t	b = a == 0 ? 0 : start[a - 1];

		shuffle(r, seq + b, start[a] - b);
	}
	free(start);
	return HET_OK;
}

struct het_shard_plan *
het_shard_plan_alloc(const struct het_pair *pairs, size_t n, size_t n_phi,
    const struct het_shard_opts *o, struct het_error *err)
{
	struct het_shard_plan	*plan = NULL;
	size_t			*seq = NULL, i, k, K;
	gsl_rng			*r = NULL;

	if (pairs == NULL && n > 0) {
		het_error_set(err, HET_EINVAL, "het_shard_plan_alloc: no "
		    "pairs given for %zu data points (a bug in the caller)", n);
		return NULL;
	}
	if ((int)o->strategy < 0 || o->strategy >= HET_SHARD_COUNT) {
		het_error_set(err, HET_EINVAL, "unknown sharding strategy %d; "
		    "use random, angle_balanced or contiguous",
		    (int)o->strategy);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (pairs[i].a >= n_phi) {
			het_error_set(err, HET_EINVAL, "pair %zu (i=%u, j=%u) "
			    "has angle index %u but there are only %zu angles"
			    " (a bug in the caller)", i, pairs[i].i,
			    pairs[i].j, pairs[i].a, n_phi);
			return NULL;
		}
	if (het_shard_auto_count(n, n_phi, o, &K, err) != HET_OK)
		return NULL;
	if ((plan = calloc(1, sizeof *plan)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for a shard plan");
		return NULL;
	}
	plan->npairs = n;
	plan->nshards = K;
	plan->off = het_alloc_array(K + 1, sizeof *plan->off, "shard offsets",
	    err);
	plan->idx = het_alloc_array(n, sizeof *plan->idx, "shard indices",
	    err);
	plan->order = het_alloc_array(K, sizeof *plan->order, "shard order",
	    err);
	seq = het_alloc_array(n, sizeof *seq, "shard permutation", err);
	if (plan->off == NULL || plan->idx == NULL || plan->order == NULL ||
	    seq == NULL)
		goto fail;
	if ((r = gsl_rng_alloc(gsl_rng_mt19937)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for the shard "
		    "random number generator");
		goto fail;
	}
	gsl_rng_set(r, o->seed);
	switch (o->strategy) {
	case HET_SHARD_RANDOM:
		if (by_cell(pairs, n, r, seq, err) != HET_OK)
			goto fail;
		cut_runs(plan, seq);
		break;
	case HET_SHARD_ANGLE_BALANCED:
		if (by_angle(pairs, n, n_phi, r, seq, err) != HET_OK)
			goto fail;
		deal_round_robin(plan, seq);
		break;
	default:
		for (i = 0; i < n; i++)
			seq[i] = i;
		cut_runs(plan, seq);
		break;
	}
	for (k = 0; k < K; k++)
		qsort(plan->idx + plan->off[k], het_shard_size(plan, k),
		    sizeof *plan->idx, het_cmp_size);
	/*
	 * Largest first, ties by number (a stable insertion sort; linear
	 * here, as sizes differ by at most 1 and the larger come first).
	 */
	for (k = 0; k < K; k++)
		plan->order[k] = k;
	for (k = 1; k < K; k++) {
		size_t	v = plan->order[k], j = k;

		while (j > 0 && het_shard_size(plan, plan->order[j - 1]) <
		    het_shard_size(plan, v)) {
			plan->order[j] = plan->order[j - 1];
			j--;
		}
		plan->order[j] = v;
	}
	gsl_rng_free(r);
	free(seq);
	return plan;
fail:
	gsl_rng_free(r);
	free(seq);
	het_shard_plan_free(plan);
	return NULL;
}
