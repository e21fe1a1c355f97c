/*
 * t_engine_pool.c: the thread pool, its deterministic parallel-for and
 * its order-preserving reducer.
 *
 * The central claim is bit-identity: sums of high-entropy values (random
 * signs, magnitudes over 2^-30 .. 2^30, so that summation order shows in
 * the last bits) come out memcmp-equal for 1, 2, 3, 4 and 7 threads, for
 * 1, 3 and 64 slots, and for the serial path, and equal to a plain
 * sequential loop over the chunks.  A reversed chunk order is checked to
 * give different bits, so the comparison can see order.  A JtJ-like sum
 * with cblas_dsyrk per block of rows is bit-identical across thread counts
 * and within 1e-12 of a one-pass row-by-row reference.  Also: bounded
 * slots, cancellation with a consistent prefix, lowest-chunk error,
 * blocked signals, pool sizes, misuse, and 1,000 tiny runs.
 */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_pool.h"
#include "tap.h"

/* ------------------------------------------------------------------ */
/* High-entropy data and the chunked sums over them. */

struct sumdata {
	const double	*x;
	size_t		 n;
	size_t		 chunk;		/* values per chunk */
	double		*out;		/* nchunks * SUMLEN, for het_pool_run */
};

#define SUMLEN 4
#define NVAL 200003
#define CHUNK 97

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng_next(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, 1). */
static double
rng_unit(void)
{
	return (double)(rng_next() >> 11) * 0x1.0p-53;
}

/* Random sign, mantissa and binary exponent in [-30, 30]. */
static double
rng_wild(void)
{
	uint64_t u = rng_next();
	double m = 1.0 + (double)(u >> 12) * 0x1.0p-52;
	int e = (int)(u % 61) - 30;

	return ((u >> 6) & 1 ? -m : m) * ldexp(1.0, e);
}

static size_t
nchunks_of(const struct sumdata *d)
{
	return (d->n + d->chunk - 1) / d->chunk;
}

static __attribute__((noinline)) void
sum_partial(const struct sumdata *d, size_t c, double *p)
{
	size_t i, b = c * d->chunk, e = b + d->chunk;

	if (e > d->n)
		e = d->n;
	for (i = b; i < e; i++) {
		double x = d->x[i];

		p[0] += x;
		p[1] += x * x;
		p[2] += x * ((double)(i % 7) + 0.385);
		p[3] += fabs(x) * 2.385;
	}
}

static int
sum_reduce_fn(void *ctx, size_t c, size_t worker, double *p,
    struct het_error *err)
{
	sum_partial(ctx, c, p);
	return HET_OK;
}

/* het_pool_run version: chunk-indexed output, reduced by the caller. */
static int
sum_run_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct sumdata *d = ctx;

	memset(d->out + c * SUMLEN, 0, SUMLEN * sizeof(double));
	sum_partial(d, c, d->out + c * SUMLEN);
	return HET_OK;
}

/* ------------------------------------------------------------------ */
/* JtJ and Jtr over blocks of rows with OpenBLAS. */

#define JP 7
#define JROWS 30011
#define JBLOCK 256

struct jdata {
	const double	*J;		/* JROWS x JP, row-major */
	const double	*r;		/* JROWS */
};

static int
jtj_fn(void *ctx, size_t c, size_t worker, double *p, struct het_error *err)
{
	const struct jdata *d = ctx;
	size_t b = c * JBLOCK, rows = JBLOCK;

	if (b + rows > JROWS)
		rows = JROWS - b;
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, JP, (int)rows,
	    1.0, d->J + b * JP, JP, 0.0, p, JP);
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)rows, JP, 1.0,
	    d->J + b * JP, JP, d->r + b, 1, 0.0, p + JP * JP, 1);
	return HET_OK;
}

/* ------------------------------------------------------------------ */
/* Marks, cancellation, errors, signals, slot addresses. */

#define NMARK 200000

struct markdata {
	unsigned char	*marks;
	atomic_size_t	 count;
	atomic_int	 cancel;
	size_t		 cancel_at;	/* SIZE_MAX: never */
	size_t		 hold_from;	/* chunks from here wait for cancel */
	atomic_int	 first_fail;	/* first chunk to fail in time, -1 */
};

static int
mark_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct markdata *m = ctx;

	m->marks[c] = 1;
	atomic_fetch_add(&m->count, 1);
	if (c == m->cancel_at)
		atomic_store(&m->cancel, 1);
	/* So that a slow canceller thread cannot miss the run. */
	while (c >= m->hold_from && !atomic_load(&m->cancel))
		sched_yield();
	return HET_OK;
}

static int
fail_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct markdata *m = ctx;
	int none = -1;

	m->marks[c] = 1;
	atomic_fetch_add(&m->count, 1);
	if (c == 3001) {
		/* Slow, so faster threads reach the later failures first. */
		usleep(20000);
		atomic_compare_exchange_strong(&m->first_fail, &none, 3001);
		return het_error_set(err, HET_EDATA, "pair block 3001 holds a "
		    "NaN; mask frame 12");
	}
	if (c == 7777 || c == 90000) {
		atomic_compare_exchange_strong(&m->first_fail, &none, (int)c);
		return het_error_set(err, c == 7777 ? HET_ERANGE : HET_EIO,
		    "pair block %zu failed", c);
	}
	return HET_OK;
}

static int
one_fn(void *ctx, size_t c, size_t worker, double *p, struct het_error *err)
{
	p[0] = 1.0;
	return HET_OK;
}

static int
silent_fail_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	return c >= 12 ? HET_EDATA : HET_OK;
}

static int
fail_reduce_fn(void *ctx, size_t c, size_t worker, double *p,
    struct het_error *err)
{
	p[0] = 1.0;
	if (c == 40 || c == 41 || c == 900)
		return het_error_set(err, HET_EDATA, "block %zu is bad", c);
	return HET_OK;
}

struct sigdata {
	pthread_t	 main_thread;
	atomic_int	 bad_mask;
	atomic_int	 on_main;
	atomic_size_t	 max_worker;
};

static int
sig_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct sigdata *s = ctx;
	const int sigs[] = { SIGINT, SIGTERM, SIGCHLD, SIGWINCH, SIGHUP,
	    SIGPIPE, SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT, SIGALRM };
	sigset_t cur;
	size_t i, w;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigismember(&cur, sigs[i]))
			atomic_store(&s->bad_mask, 1);
	if (pthread_equal(pthread_self(), s->main_thread))
		atomic_store(&s->on_main, 1);
	w = atomic_load(&s->max_worker);
	while (worker > w &&
	    !atomic_compare_exchange_weak(&s->max_worker, &w, worker))
		;
	return HET_OK;
}

#define MAXPTR 256

struct slotdata {
	pthread_mutex_t	 lock;
	double		*seen[MAXPTR];
	size_t		 nseen;
	int		 overflow;
};

static int
slot_fn(void *ctx, size_t c, size_t worker, double *p, struct het_error *err)
{
	struct slotdata *s = ctx;
	size_t i;

	p[0] = (double)c;
	p[1] = 1.0;
	if (s == NULL)
		return HET_OK;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nseen && s->seen[i] != p; i++)
		;
	if (i == s->nseen) {
		if (s->nseen < MAXPTR)
			s->seen[s->nseen++] = p;
		else
			s->overflow = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return HET_OK;
}

/* Nested use of a busy pool or a busy reducer from inside a chunk. */
struct nestdata {
	struct het_pool		*pool;
	struct het_pool_reducer	*r;
	struct het_error	 inner;
	int			 inner_st;
};

static int
noop_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	return HET_OK;
}

static int
nest_run_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct nestdata *n = ctx;

	if (c != 0)
		return HET_OK;
	n->inner_st = het_pool_run(n->pool, 4, noop_fn, NULL, NULL, NULL,
	    &n->inner);
	return HET_OK;
}

static int
nest_reduce_fn(void *ctx, size_t c, size_t worker, double *p,
    struct het_error *err)
{
	struct nestdata *n = ctx;
	double acc[2];

	if (c == 0)
		n->inner_st = het_pool_reduce(NULL, n->r, 3, one_fn,
		    NULL, acc, NULL, NULL, &n->inner);
	return HET_OK;
}

/* Multistart: each chunk is a whole serial reduce, on its own reducer. */
struct multidata {
	struct sumdata		*d;
	double			 acc[6][SUMLEN];
	int			 st[6];
};

static int
multi_fn(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct multidata *m = ctx;
	struct het_pool_reducer *r;

	r = het_pool_reducer_alloc(SUMLEN, 5, err);
	if (r == NULL)
		return err->code;
	m->st[c] = het_pool_reduce(NULL, r, nchunks_of(m->d), sum_reduce_fn,
	    m->d, m->acc[c], NULL, NULL, err);
	het_pool_reducer_free(r);
	return m->st[c];
}

struct cancelsum {
	struct sumdata	*d;
	atomic_int	 cancel;
	size_t		 at;
};

static int
cancel_sum_fn(void *ctx, size_t c, size_t worker, double *p,
    struct het_error *err)
{
	struct cancelsum *cs = ctx;

	if (c == cs->at)
		atomic_store(&cs->cancel, 1);
	sum_partial(cs->d, c, p);
	return HET_OK;
}

static void *
canceller(void *arg)
{
	struct markdata *m = arg;

	while (atomic_load(&m->count) < 1000)
		sched_yield();
	atomic_store(&m->cancel, 1);
	return NULL;
}

/* Marks 0 .. nrun-1 set, none after, and count == nrun. */
static int
prefix_ok(const struct markdata *m, size_t nrun, size_t n)
{
	size_t i;

	if (atomic_load(&m->count) != nrun)
		return 0;
	for (i = 0; i < n; i++)
		if (m->marks[i] != (i < nrun))
			return 0;
	return 1;
}

static void
reset_marks(struct markdata *m, size_t cancel_at)
{
	memset(m->marks, 0, NMARK);
	atomic_store(&m->count, 0);
	atomic_store(&m->cancel, 0);
	atomic_store(&m->first_fail, -1);
	m->cancel_at = cancel_at;
	m->hold_from = SIZE_MAX;
}

/* ------------------------------------------------------------------ */

static const size_t thread_counts[] = { 1, 2, 3, 4, 7 };
#define NTC (sizeof(thread_counts) / sizeof(thread_counts[0]))

static void
test_sums(struct het_pool **pools)
{
	struct sumdata d;
	double *x, ref[SUMLEN] = { 0 }, rev[SUMLEN] = { 0 }, acc[SUMLEN];
	double part[SUMLEN], red[SUMLEN];
	const size_t slots[] = { 1, 3, 64 };
	struct het_pool_reducer *r;
	struct het_error err;
	size_t i, k, c, nrun, nc;
	int same_red = 1, same_run = 1, st_ok = 1;

	x = malloc(NVAL * sizeof(*x));
	for (i = 0; i < NVAL; i++)
		x[i] = rng_wild();
	d.x = x;
	d.n = NVAL;
	d.chunk = CHUNK;
	nc = nchunks_of(&d);
	d.out = malloc(nc * SUMLEN * sizeof(double));

	/* The definition: a sequential loop over chunks, and its reverse. */
	for (c = 0; c < nc; c++) {
		memset(part, 0, sizeof(part));
		sum_partial(&d, c, part);
		for (k = 0; k < SUMLEN; k++)
			ref[k] += part[k];
	}
	for (c = nc; c-- > 0;) {
		memset(part, 0, sizeof(part));
		sum_partial(&d, c, part);
		for (k = 0; k < SUMLEN; k++)
			rev[k] += part[k];
	}
	ok(memcmp(ref, rev, sizeof(ref)) != 0, "reversed chunk order gives "
	    "different bits, so the data can reveal a change of order");
	diag("sum %.17g, reversed %.17g", ref[0], rev[0]);

	for (k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
		r = het_pool_reducer_alloc(SUMLEN, slots[k], &err);
		for (i = 0; i < NTC; i++) {
			memset(acc, 0xff, sizeof(acc));
			if (het_pool_reduce(pools[i], r, nc, sum_reduce_fn, &d,
			    acc, NULL, &nrun, &err) != HET_OK || nrun != nc)
				st_ok = 0;
			if (memcmp(acc, ref, sizeof(acc)) != 0) {
				same_red = 0;
				diag("%zu threads, %zu slots: %.17g",
				    thread_counts[i], slots[k], acc[0]);
			}
		}
		memset(acc, 0, sizeof(acc));
		if (het_pool_reduce(NULL, r, nc, sum_reduce_fn, &d, acc, NULL,
		    NULL, &err) != HET_OK)
			st_ok = 0;
		if (memcmp(acc, ref, sizeof(acc)) != 0)
			same_red = 0;
		het_pool_reducer_free(r);
	}
	ok(st_ok, "every reduce of %zu chunks succeeds and runs them all", nc);
	ok(same_red, "het_pool_reduce is bit-identical to the sequential loop "
	    "for 1, 2, 3, 4, 7 threads and serial, with 1, 3, 64 slots");

	for (i = 0; i < NTC; i++) {
		memset(d.out, 0, nc * SUMLEN * sizeof(double));
		if (het_pool_run(pools[i], nc, sum_run_fn, &d, NULL, &nrun,
		    &err) != HET_OK || nrun != nc)
			st_ok = 0;
		memset(red, 0, sizeof(red));
		for (c = 0; c < nc; c++)
			for (k = 0; k < SUMLEN; k++)
				red[k] += d.out[c * SUMLEN + k];
		if (memcmp(red, ref, sizeof(red)) != 0)
			same_run = 0;
	}
	ok(same_run && st_ok, "het_pool_run with chunk-indexed partials, "
	    "reduced in index order, is bit-identical for 1, 2, 3, 4, 7 "
	    "threads");

	/* Multistart: serial reduces inside pool tasks equal pooled ones. */
	{
		struct multidata m;
		int same = 1;

		memset(&m, 0, sizeof(m));
		m.d = &d;
		is_int(het_pool_run(pools[3], 6, multi_fn, &m, NULL, &nrun,
		    &err), HET_OK, "six multistart tasks run on a 4-thread "
		    "pool");
		for (c = 0; c < 6; c++)
			if (m.st[c] != HET_OK ||
			    memcmp(m.acc[c], ref, sizeof(ref)) != 0)
				same = 0;
		ok(same, "a serial reduce inside each task is bit-identical "
		    "to the pooled reduce");
	}
	free(d.out);
	free(x);
}

static void
test_jtj(struct het_pool **pools)
{
	const size_t len = JP * JP + JP, nc = (JROWS + JBLOCK - 1) / JBLOCK;
	double *J, *r, ref[JP * JP + JP] = { 0 }, acc[5][JP * JP + JP];
	double maxrel = 0, rel, lower = 0;
	struct het_pool_reducer *red;
	struct het_error err;
	struct jdata d;
	size_t i, a, b, run[5] = { 0, 1, 3, 4, 0 };
	int st_ok = 1;

	J = malloc(JROWS * JP * sizeof(*J));
	r = malloc(JROWS * sizeof(*r));
	for (i = 0; i < JROWS * JP; i++)
		J[i] = rng_unit() * 2.685 - 0.3;
	for (i = 0; i < JROWS; i++)
		r[i] = rng_unit() * 3.1 - 0.7;
	d.J = J;
	d.r = r;

	/* A straightforward single pass over the rows. */
	for (i = 0; i < JROWS; i++) {
		const double *row = J + i * JP;

		for (a = 0; a < JP; a++) {
			for (b = a; b < JP; b++)
				ref[a * JP + b] += row[a] * row[b];
			ref[JP * JP + a] += row[a] * r[i];
		}
	}

	red = het_pool_reducer_alloc(len, 0, &err);
	for (i = 0; i < 5; i++) {
		struct het_pool *pool = i < 4 ? pools[run[i]] : NULL;

		if (het_pool_reduce(pool, red, nc, jtj_fn, &d, acc[i], NULL,
		    NULL, &err) != HET_OK)
			st_ok = 0;
	}
	het_pool_reducer_free(red);
	ok(st_ok, "JtJ reduce over %zu blocks of %d rows succeeds", nc,
	    JBLOCK);
	ok(memcmp(acc[0], acc[1], sizeof(acc[0])) == 0,
	    "dsyrk JtJ and Jtr: 1 and 2 threads are bit-identical");
	ok(memcmp(acc[0], acc[2], sizeof(acc[0])) == 0 &&
	    memcmp(acc[0], acc[3], sizeof(acc[0])) == 0 &&
	    memcmp(acc[0], acc[4], sizeof(acc[0])) == 0,
	    "dsyrk JtJ and Jtr: 4, 7 threads and serial are bit-identical too");
	for (a = 0; a < JP; a++) {
		for (b = 0; b < JP; b++) {
			if (b < a) {
				lower = fmax(lower, fabs(acc[1][a * JP + b]));
				continue;
			}
			rel = fabs(acc[1][a * JP + b] - ref[a * JP + b]) /
			    fabs(ref[a * JP + b]);
			maxrel = fmax(maxrel, rel);
		}
		rel = fabs(acc[1][JP * JP + a] - ref[JP * JP + a]) /
		    fabs(ref[JP * JP + a]);
		maxrel = fmax(maxrel, rel);
	}
	diag("JtJ[0][0] %.17g, reference %.17g, max relative difference %.3g",
	    acc[1][0], ref[0], maxrel);
	ok(maxrel <= 1e-12, "JtJ upper triangle and Jtr agree with the "
	    "one-pass reference to 1e-12 relative (max %.3g)", maxrel);
	is_double(lower, 0.0, 0.0, "the lower triangle stays zero (dsyrk "
	    "writes the upper one only)");
	free(J);
	free(r);
}

static void
test_slots(struct het_pool *pool4)
{
	const size_t counts[] = { 10, 1000, 200000 };
	struct het_pool_reducer *r, *r8;
	struct slotdata s;
	struct het_error err;
	double acc[2];
	size_t k, n, maxseen = 0;
	int sums_ok = 1, bounded = 1;

	r = het_pool_reducer_alloc(2, 0, &err);
	r8 = het_pool_reducer_alloc(2, 8, &err);
	is_int((long long)het_pool_reducer_nslots(r), HET_POOL_DEFAULT_SLOTS,
	    "a reducer allocated with 0 slots has the default %d",
	    HET_POOL_DEFAULT_SLOTS);
	is_int((long long)het_pool_reducer_nslots(r8), 8,
	    "a reducer allocated with 8 slots has 8");
	pthread_mutex_init(&s.lock, NULL);
	for (k = 0; k < 3; k++) {
		struct het_pool_reducer *which = k == 2 ? r8 : r;

		n = counts[k];
		s.nseen = 0;
		s.overflow = 0;
		if (het_pool_reduce(pool4, which, n, slot_fn, &s, acc, NULL,
		    NULL, &err) != HET_OK || acc[0] != (double)n *
		    (double)(n - 1) / 2 || acc[1] != (double)n)
			sums_ok = 0;
		if (s.overflow ||
		    s.nseen > het_pool_reducer_nslots(which))
			bounded = 0;
		if (s.nseen > maxseen)
			maxseen = s.nseen;
		diag("%zu chunks used %zu distinct slot buffers (of %zu)", n,
		    s.nseen, het_pool_reducer_nslots(which));
	}
	pthread_mutex_destroy(&s.lock);
	ok(sums_ok, "reduces of 10, 1000 and 200000 chunks on 4 threads give "
	    "the exact sums");
	ok(bounded, "chunk functions only ever see the reducer's fixed slot "
	    "buffers, however many chunks there are");
	ok(het_pool_reducer_nslots(r) == HET_POOL_DEFAULT_SLOTS &&
	    het_pool_reducer_nslots(r8) == 8,
	    "the slot counts did not change with the number of chunks");
	het_pool_reducer_free(r);
	het_pool_reducer_free(r8);
}

static void
test_cancel(struct het_pool **pools, struct markdata *m)
{
	struct het_pool_reducer *r;
	struct het_error err;
	struct sumdata d;
	double *x, acc[SUMLEN], acc2[SUMLEN];
	pthread_t th;
	size_t nrun, i, nc;
	int st, all_ok = 1;

	reset_marks(m, 5000);
	st = het_pool_run(pools[3], NMARK, mark_fn, m, &m->cancel, &nrun,
	    &err);
	is_int(st, HET_ECANCEL, "cancelling from chunk 5000 returns "
	    "HET_ECANCEL");
	ok(nrun > 5000 && nrun < NMARK, "the run stopped early (%zu of %d "
	    "chunks ran)", nrun, NMARK);
	ok(prefix_ok(m, nrun, NMARK), "completed chunks are exactly 0 .. "
	    "nrun-1 and their count matches their marks");
	like(err.msg, "cancelled after", "the message says the run was "
	    "cancelled: %s", err.msg);

	/* The same for every thread count, and serial. */
	for (i = 0; i <= NTC; i++) {
		reset_marks(m, 777);
		st = het_pool_run(i < NTC ? pools[i] : NULL, NMARK, mark_fn, m,
		    &m->cancel, &nrun, &err);
		if (st != HET_ECANCEL || !prefix_ok(m, nrun, NMARK) ||
		    nrun <= 777)
			all_ok = 0;
		if (i == NTC && nrun != 778)
			all_ok = 0;
	}
	ok(all_ok, "cancellation leaves a consistent prefix for 1, 2, 3, 4, "
	    "7 threads, and the serial run stops right after chunk 777");

	/* A cancel from another thread, like the loop thread's. */
	reset_marks(m, SIZE_MAX);
	m->hold_from = 2000;
	pthread_create(&th, NULL, canceller, m);
	st = het_pool_run(pools[3], NMARK, mark_fn, m, &m->cancel, &nrun,
	    &err);
	pthread_join(th, NULL);
	ok(st == HET_ECANCEL && prefix_ok(m, nrun, NMARK) && nrun >= 1000,
	    "a cancel from another thread stops the run with a consistent "
	    "prefix (%zu chunks)", nrun);

	reset_marks(m, SIZE_MAX);
	atomic_store(&m->cancel, 1);
	st = het_pool_run(pools[1], NMARK, mark_fn, m, &m->cancel, &nrun,
	    &err);
	ok(st == HET_ECANCEL && nrun == 0 && atomic_load(&m->count) == 0,
	    "a flag raised before the run starts no chunk");

	/* A cancelled reduce holds exactly the sum of the chunks that ran. */
	x = malloc(NVAL * sizeof(*x));
	for (i = 0; i < NVAL; i++)
		x[i] = rng_wild();
	d.x = x;
	d.n = NVAL;
	d.chunk = 13;
	nc = nchunks_of(&d);
	r = het_pool_reducer_alloc(SUMLEN, 16, &err);
	all_ok = 1;
	for (i = 0; i < NTC; i++) {
		struct cancelsum cs = { &d, 0, 4321 };

		st = het_pool_reduce(pools[i], r, nc, cancel_sum_fn, &cs, acc,
		    &cs.cancel, &nrun, &err);
		if (st != HET_ECANCEL || nrun <= 4321 || nrun >= nc)
			all_ok = 0;
		/* The reference: a complete serial reduce over nrun chunks. */
		if (het_pool_reduce(NULL, r, nrun, sum_reduce_fn, &d, acc2,
		    NULL, NULL, &err) != HET_OK ||
		    memcmp(acc, acc2, sizeof(acc)) != 0)
			all_ok = 0;
	}
	ok(all_ok, "a reduce cancelled at chunk 4321 of %zu returns "
	    "HET_ECANCEL, and its sum is bit-equal to a complete reduce over "
	    "the chunks that ran (1, 2, 3, 4, 7 threads)", nc);
	free(x);
	het_pool_reducer_free(r);
}

static void
test_errors(struct het_pool **pools, struct markdata *m)
{
	struct het_pool_reducer *r;
	struct het_error err;
	double acc[1];
	size_t i, nrun;
	int st, all_ok = 1, later_first = 0;

	for (i = 0; i <= NTC; i++) {
		reset_marks(m, SIZE_MAX);
		het_error_clear(&err);
		st = het_pool_run(i < NTC ? pools[i] : NULL, NMARK, fail_fn, m,
		    NULL, &nrun, &err);
		if (st != HET_EDATA || err.code != HET_EDATA ||
		    strstr(err.msg, "pair block 3001 holds a NaN") == NULL ||
		    nrun < 3002 || !prefix_ok(m, nrun, NMARK)) {
			all_ok = 0;
			diag("%zu threads: %s after %zu chunks: %s",
			    i < NTC ? thread_counts[i] : 0,
			    het_status_name(st), nrun, err.msg);
		}
		if (atomic_load(&m->first_fail) != 3001)
			later_first = 1;
	}
	ok(all_ok, "the lowest failing chunk (3001, not 7777 or 90000) is "
	    "reported with its status and message for 1, 2, 3, 4, 7 threads "
	    "and serial, and the chunks that ran form a prefix");
	diag("a later chunk failed first in time in %s run",
	    later_first ? "at least one" : "no");
	like(err.msg, "mask frame 12", "the chunk's own message is kept: %s",
	    err.msg);

	st = het_pool_run(pools[3], 100, silent_fail_fn, NULL, NULL, NULL,
	    &err);
	is_int(st, HET_EDATA, "a chunk failing without a message still "
	    "reports its status");
	like(err.msg, "chunk 12 of 100 failed with HET_EDATA", "and a message "
	    "naming the chunk: %s", err.msg);

	r = het_pool_reducer_alloc(1, 4, &err);
	all_ok = 1;
	for (i = 0; i < NTC; i++) {
		st = het_pool_reduce(pools[i], r, 5000, fail_reduce_fn, NULL,
		    acc, NULL, &nrun, &err);
		if (st != HET_EDATA || strstr(err.msg, "block 40 is bad") ==
		    NULL || nrun < 41)
			all_ok = 0;
	}
	ok(all_ok, "a reduce reports its lowest failing chunk (40, not 41 "
	    "or 900) for every thread count, without deadlock on 4 slots");
	st = het_pool_reduce(pools[3], r, 5000, one_fn, NULL, acc, NULL,
	    &nrun, &err);
	ok(st == HET_OK && nrun == 5000 && acc[0] == 5000.0,
	    "the reducer works again after a failed reduce");
	het_pool_reducer_free(r);
}

static void
test_signals(void)
{
	struct het_pool *pool;
	struct het_error err;
	struct sigdata s;
	sigset_t usr2, cur;

	/* The caller's mask must come back exactly as it was. */
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL);
	pool = het_pool_alloc(4, &err);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	ok(sigismember(&cur, SIGUSR2) && !sigismember(&cur, SIGINT) &&
	    !sigismember(&cur, SIGCHLD) && !sigismember(&cur, SIGWINCH),
	    "het_pool_alloc restores the caller's signal mask");
	pthread_sigmask(SIG_UNBLOCK, &usr2, NULL);

	s.main_thread = pthread_self();
	atomic_init(&s.bad_mask, 0);
	atomic_init(&s.on_main, 0);
	atomic_init(&s.max_worker, 0);
	is_int(het_pool_run(pool, 512, sig_fn, &s, NULL, NULL, &err), HET_OK,
	    "a run of 512 chunks on 4 threads succeeds");
	ok(!atomic_load(&s.bad_mask), "every chunk ran with SIGINT, SIGTERM, "
	    "SIGCHLD, SIGWINCH, SIGHUP, SIGPIPE, SIGUSR1/2, SIGTSTP, SIGCONT "
	    "and SIGALRM blocked");
	ok(!atomic_load(&s.on_main), "no chunk ran on the calling thread");
	ok(atomic_load(&s.max_worker) < 4, "worker indices are below the "
	    "thread count");
	het_pool_free(pool);
}

static void
test_sizes(void)
{
	struct het_pool *pool;
	struct het_error err;
	struct sigdata s;
	long ncpu = het_pool_ncpu();
	cpu_set_t all, one;

	CPU_ZERO(&all);
	ok(sched_getaffinity(0, sizeof(all), &all) == 0 &&
	    ncpu == CPU_COUNT(&all) && ncpu <= sysconf(_SC_NPROCESSORS_ONLN),
	    "het_pool_ncpu: the %ld cores of the affinity mask", ncpu);
	pool = het_pool_alloc(0, &err);
	ok(pool != NULL, "a pool of 0 threads means one per core");
	is_int((long long)het_pool_nthreads(pool), ncpu, "it has %ld threads "
	    "(the cores it may run on)", ncpu);
	s.main_thread = pthread_self();
	atomic_init(&s.bad_mask, 0);
	atomic_init(&s.on_main, 0);
	atomic_init(&s.max_worker, 0);
	ok(het_pool_run(pool, 1000, sig_fn, &s, NULL, NULL, &err) == HET_OK &&
	    atomic_load(&s.max_worker) < (size_t)ncpu,
	    "and runs chunks on workers 0 .. %ld", ncpu - 1);
	het_pool_free(pool);

	/* as under taskset -c N or a one-core Slurm allocation */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0) {
		is_int(het_pool_ncpu(), 1, "bound to one core: het_pool_ncpu "
		    "is 1");
		pool = het_pool_alloc(0, &err);
		is_int(pool != NULL ? (long long)het_pool_nthreads(pool) : -1,
		    1, "... and a pool of 0 threads has 1");
		het_pool_free(pool);
		sched_setaffinity(0, sizeof(all), &all);
	} else
		skip(2, "sched_setaffinity refused");
	is_int(het_pool_ncpu(), ncpu, "unbound again: %ld", ncpu);

	het_error_clear(&err);
	pool = het_pool_alloc(HET_POOL_MAX_THREADS + 1, &err);
	ok(pool == NULL && err.code == HET_EINVAL, "a pool of %d threads is "
	    "HET_EINVAL", HET_POOL_MAX_THREADS + 1);
	like(err.msg, "at most 1024", "the message gives the limit: %s",
	    err.msg);
	is_int((long long)het_pool_nthreads(NULL), 1, "a NULL pool counts as "
	    "one thread");
	het_pool_free(NULL);
	het_pool_reducer_free(NULL);
	ok(1, "het_pool_free(NULL) and het_pool_reducer_free(NULL) are no-ops");
}

static void
test_misuse(struct het_pool *pool4)
{
	struct het_pool_reducer *r;
	struct nestdata n;
	struct het_error err;
	double acc[2] = { 9.5, 9.5 };
	size_t nrun = 99;
	int st;

	st = het_pool_run(pool4, 10, NULL, NULL, NULL, &nrun, &err);
	ok(st == HET_EINVAL && nrun == 0, "a NULL chunk function is "
	    "HET_EINVAL");
	like(err.msg, "no chunk function", "the message says so: %s",
	    err.msg);

	r = het_pool_reducer_alloc(0, 4, &err);
	ok(r == NULL && err.code == HET_EINVAL, "a reducer of 0 doubles is "
	    "HET_EINVAL");
	like(err.msg, "len was 0", "the message names len: %s", err.msg);

	r = het_pool_reducer_alloc(2, 4, &err);
	st = het_pool_reduce(pool4, r, 10, one_fn, NULL, NULL, NULL,
	    NULL, &err);
	ok(st == HET_EINVAL, "a reduce without an accumulator is HET_EINVAL");
	like(err.msg, "no accumulator", "the message says so: %s", err.msg);

	st = het_pool_reduce(pool4, r, 0, one_fn, NULL, acc, NULL,
	    &nrun, &err);
	ok(st == HET_OK && nrun == 0 && acc[0] == 0.0 && acc[1] == 0.0,
	    "a reduce of no chunks succeeds with a zero accumulator");
	st = het_pool_run(pool4, 0, noop_fn, NULL, NULL, &nrun, &err);
	ok(st == HET_OK && nrun == 0, "a run of no chunks succeeds");

	n.pool = pool4;
	n.r = r;
	n.inner_st = HET_OK;
	st = het_pool_run(pool4, 8, nest_run_fn, &n, NULL, NULL, &err);
	ok(st == HET_OK && n.inner_st == HET_EINVAL, "het_pool_run on the "
	    "pool's own busy pool from a chunk is HET_EINVAL, not a deadlock");
	like(n.inner.msg, "already running a job", "the message says the "
	    "pool is busy: %s", n.inner.msg);

	n.inner_st = HET_OK;
	st = het_pool_reduce(pool4, r, 8, nest_reduce_fn, &n, acc, NULL, NULL,
	    &err);
	ok(st == HET_OK && n.inner_st == HET_EINVAL, "a reducer used by two "
	    "reduces at once is HET_EINVAL");
	like(n.inner.msg, "already in use", "the message says the reducer is "
	    "busy: %s", n.inner.msg);
	het_pool_reducer_free(r);
}

static void
test_repeat(struct het_pool *pool4, struct markdata *m)
{
	struct het_pool_reducer *r;
	struct het_pool *p;
	struct het_error err;
	double acc[2];
	size_t i, nrun, n;
	int all_ok = 1;

	r = het_pool_reducer_alloc(2, 2, &err);
	for (i = 0; i < 1000; i++) {
		n = 1 + i % 5;
		reset_marks(m, SIZE_MAX);
		if (het_pool_run(pool4, n, mark_fn, m, NULL, &nrun, &err) !=
		    HET_OK || !prefix_ok(m, n, n + 1))
			all_ok = 0;
		if (het_pool_reduce(pool4, r, n, slot_fn, NULL, acc, NULL,
		    NULL, &err) != HET_OK || acc[1] != (double)n)
			all_ok = 0;
	}
	ok(all_ok, "1000 tiny runs and 1000 tiny reduces on one pool all "
	    "complete correctly");
	het_pool_reducer_free(r);

	for (i = 0; i < 50; i++) {
		p = het_pool_alloc(3, &err);
		if (p == NULL || het_pool_run(p, 7, noop_fn, NULL, NULL, &nrun,
		    &err) != HET_OK || nrun != 7)
			all_ok = 0;
		het_pool_free(p);
	}
	ok(all_ok, "50 pools of 3 threads start, run and join");
}

int
main(void)
{
	struct het_pool *pools[NTC];
	struct het_error err;
	struct markdata m;
	size_t i;
	int made = 1;

	plan_lazy();
	ok(het_pool_blas_single_threaded() == 1, "OpenBLAS is told to use "
	    "one thread");
	ok(openblas_get_num_threads() == 1, "and reports one thread");
	for (i = 0; i < NTC; i++) {
		pools[i] = het_pool_alloc(thread_counts[i], &err);
		if (pools[i] == NULL || het_pool_nthreads(pools[i]) !=
		    thread_counts[i])
			made = 0;
	}
	ok(made, "pools of 1, 2, 3, 4 and 7 threads start");
	if (!made)
		return exit_status();
	m.marks = calloc(NMARK, 1);

	test_sums(pools);
	test_jtj(pools);
	test_slots(pools[3]);
	test_cancel(pools, &m);
	test_errors(pools, &m);
	test_signals();
	test_sizes();
	test_misuse(pools[3]);
	test_repeat(pools[3], &m);

	for (i = 0; i < NTC; i++)
		het_pool_free(pools[i]);
	free(m.marks);
	return exit_status();
}
