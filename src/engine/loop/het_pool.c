/*
 * het_pool.c: the engine's thread pool, a deterministic parallel-for and a
 * bounded-memory, order-preserving reducer (see het_pool.h for the API).
 *
 * DESIGN
 *
 * Threads.  het_pool_alloc starts nthreads threads with every signal
 * blocked (the mask is set around pthread_create and restored), so
 * SIGCHLD, SIGWINCH, SIGINT and friends are delivered to the loop thread
 * and its self-pipe.  Idle threads sleep on work_cv.  A job is posted by
 * bumping `generation` under the lock; each thread joins each job exactly
 * once and the last one out signals done_cv, which the caller waits on.
 * The caller does not compute, so worker indices are 0 .. nthreads-1 and
 * the caller may be any thread that is allowed to block.
 *
 * Chunks.  A job is a count of chunks and a function.  Threads take chunk
 * indices from one atomic counter (dynamic load balance); a thread checks
 * the stop and cancel flags only *before* taking an index, never after,
 * so every index handed out is run to its end.  Indices are handed out in
 * increasing order, hence the chunks that ran always form a prefix
 * 0 .. nrun-1, and nrun = min(counter, nchunks).
 *
 * Errors.  A failing chunk records (status, message) if its index is
 * lower than the one recorded, then raises `stop`.  Every chunk below a
 * failing one was taken before it, so it runs even after `stop`; the
 * lowest failing chunk of the whole range therefore always runs, and the
 * record ends up holding it, for any thread count and any timing.
 *
 * Reduction.  het_pool_reduce runs a wrapper chunk function over the same
 * machinery.  Chunk c owns slot c % nslots, zeroes it, and lets the
 * caller's function fill it.  When it is done it marks the slot and,
 * under the reducer lock, folds every finished slot at the head of the
 * order into the accumulator: acc += slot, element by element, for
 * chunks folded, folded+1, ...  A chunk may start only when chunk
 * c - nslots has been folded (its slot is free), so memory is nslots
 * buffers however many chunks there are.  This cannot deadlock: the
 * lowest unfolded chunk f was taken (taking is in order) and never waits,
 * because f < folded + nslots; when it finishes, folding advances.
 *
 * Determinism.  Each element of acc is ((0 + p_0) + p_1) + ... + p_{n-1}
 * in chunk order: one IEEE addition per chunk, in an order fixed by the
 * chunk indices alone.  Neither the thread count, nor the slot count, nor
 * the scheduling enters, so the sum is bit-identical to the serial loop,
 * provided each partial p_c is itself a function of c alone.  (A fixed
 * wave of slots reduced after a barrier would give the same sums, but
 * makes threads idle at every wave boundary; the sliding window does
 * not.)
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_pool.h"
#include "het_thread.h"

/*
 * OpenBLAS's thread control.  Weak, so that a program linked with another
 * BLAS (configure --with-blas) still links; the address is then NULL.
 */
extern void openblas_set_num_threads(int) __attribute__((weak));

/* Bytes per reducer slot are rounded up to this (one cache line). */
#define HET_POOL_SLOT_ALIGN 64

/* One job: the chunks, the function, and what came out. */
struct het_pool_job {
	size_t			 nchunks;
	het_pool_chunk_fn	 fn;
	void			*ctx;
	const atomic_int	*cancel;
	atomic_size_t		 next;		/* next chunk to take */
	atomic_int		 stop;		/* a chunk failed */
	pthread_mutex_t		*lock;		/* guards err_*, or NULL */
	size_t			 err_chunk;	/* lowest failed, or SIZE_MAX */
	int			 err_code;
	struct het_error	 err;
};

struct het_pool_thread {
	struct het_pool		*pool;
	size_t			 index;
	pthread_t		 id;
	struct het_error	 scratch;	/* the chunk functions' err */
};

struct het_pool {
	size_t			 nthreads;
	struct het_pool_thread	*threads;
	size_t			 nstarted;
	int			 init;		/* lock and conditions exist */
	pthread_mutex_t		 lock;
	pthread_cond_t		 work_cv;	/* a job, or shutdown */
	pthread_cond_t		 done_cv;	/* the last one left */
	unsigned long		 generation;	/* bumped for every job */
	size_t			 nactive;	/* threads still in the job */
	int			 busy;		/* a run is in progress */
	int			 shutdown;
	struct het_pool_job	 job;
};

struct het_pool_reducer {
	size_t			 len;		/* doubles per partial */
	size_t			 stride;	/* doubles from slot to slot */
	size_t			 nslots;
	double			*slots;
	unsigned char		*done;		/* per slot: chunk finished */
	int			*status;	/* per slot: its status */
	int			 init;
	pthread_mutex_t		 lock;
	pthread_cond_t		 cv;		/* `folded` advanced */
	int			 busy;
	/* The reduce in progress. */
	het_pool_reduce_fn	 fn;
	void			*ctx;
	double			*acc;
	size_t			 nchunks;
	size_t			 folded;	/* chunks < folded are in acc */
};

static void	*het_pool_main(void *);
static void	 het_pool_job_init(struct het_pool_job *, size_t,
		     het_pool_chunk_fn, void *, const atomic_int *,
		     pthread_mutex_t *);
static void	 het_pool_work(struct het_pool_job *, size_t,
		     struct het_error *);
static void	 het_pool_fail(struct het_pool_job *, size_t, int,
		     const struct het_error *);
static int	 het_pool_finish(struct het_pool_job *, size_t *,
		     struct het_error *);
static int	 het_pool_reduce_chunk(void *, size_t, size_t,
		     struct het_error *);

long
het_pool_ncpu(void)
{
	cpu_set_t set;
	long n;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    (n = CPU_COUNT(&set)) > 0)
		return n;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

struct het_pool *
het_pool_alloc(size_t nthreads, struct het_error *err)
{
	struct het_pool *pool;
	size_t i;
	int rc = 0;

	if (nthreads == 0) {
		nthreads = (size_t)het_pool_ncpu();
		if (nthreads > HET_POOL_MAX_THREADS)
			nthreads = HET_POOL_MAX_THREADS;
	}
	if (nthreads > HET_POOL_MAX_THREADS) {
		het_error_set(err, HET_EINVAL, "a pool of %zu threads was "
		    "requested but at most %d are allowed; give a smaller "
		    "--threads (0 means one per core)", nthreads,
		    HET_POOL_MAX_THREADS);
		return NULL;
	}
	pool = calloc(1, sizeof(*pool));
	if (pool == NULL) {
		het_error_set(err, HET_ENOMEM, "cannot allocate a thread "
		    "pool of %zu threads", nthreads);
		return NULL;
	}
	pool->nthreads = nthreads;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work_cv, NULL);
	pthread_cond_init(&pool->done_cv, NULL);
	pool->init = 1;
	pool->threads = calloc(nthreads, sizeof(*pool->threads));
	if (pool->threads == NULL) {
		het_error_set(err, HET_ENOMEM, "cannot allocate a thread "
		    "pool of %zu threads", nthreads);
		het_pool_free(pool);
		return NULL;
	}

	for (i = 0; i < nthreads; i++) {
		pool->threads[i].pool = pool;
		pool->threads[i].index = i;
		rc = het_thread_spawn(&pool->threads[i].id, het_pool_main,
		    &pool->threads[i]);
		if (rc != 0)
			break;
		pool->nstarted++;
	}
	if (rc != 0) {
		het_error_sys(err, rc, "cannot start thread %zu of a pool of "
		    "%zu threads (try a smaller --threads)", i + 1, nthreads);
		het_pool_free(pool);
		return NULL;
	}
	return pool;
}

void
het_pool_free(struct het_pool *pool)
{
	size_t i;

	if (pool == NULL)
		return;
	if (pool->init) {
		pthread_mutex_lock(&pool->lock);
		pool->shutdown = 1;
		pthread_cond_broadcast(&pool->work_cv);
		pthread_mutex_unlock(&pool->lock);
	}
	for (i = 0; i < pool->nstarted; i++)
		pthread_join(pool->threads[i].id, NULL);
	if (pool->init) {
		pthread_cond_destroy(&pool->done_cv);
		pthread_cond_destroy(&pool->work_cv);
		pthread_mutex_destroy(&pool->lock);
	}
	free(pool->threads);
	free(pool);
}

size_t
het_pool_nthreads(const struct het_pool *pool)
{
	return pool == NULL ? 1 : pool->nthreads;
}

int
het_pool_blas_single_threaded(void)
{
	if (openblas_set_num_threads == NULL)
		return 0;
	openblas_set_num_threads(1);
	return 1;
}

/* A pool thread: wait for a job, work on it, report leaving it. */
static void *
het_pool_main(void *arg)
{
	struct het_pool_thread *t = arg;
	struct het_pool *pool = t->pool;
	unsigned long seen = 0;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->shutdown && pool->generation == seen)
			pthread_cond_wait(&pool->work_cv, &pool->lock);
		if (pool->shutdown)
			break;
		seen = pool->generation;
		pthread_mutex_unlock(&pool->lock);

		het_pool_work(&pool->job, t->index, &t->scratch);

		pthread_mutex_lock(&pool->lock);
		if (--pool->nactive == 0)
			pthread_cond_signal(&pool->done_cv);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

static void
het_pool_job_init(struct het_pool_job *job, size_t nchunks,
    het_pool_chunk_fn fn, void *ctx, const atomic_int *cancel,
    pthread_mutex_t *lock)
{
	job->nchunks = nchunks;
	job->fn = fn;
	job->ctx = ctx;
	job->cancel = cancel;
	atomic_store(&job->next, 0);
	atomic_store(&job->stop, 0);
	job->lock = lock;
	job->err_chunk = SIZE_MAX;
	job->err_code = HET_OK;
	het_error_clear(&job->err);
}

/* Take and run chunks until none are left, one failed, or cancel. */
static void
het_pool_work(struct het_pool_job *job, size_t worker,
    struct het_error *scratch)
{
	size_t c;
	int st;

	for (;;) {
		/* Checked before taking an index: a taken chunk always runs. */
		if (atomic_load(&job->stop))
			return;
		if (job->cancel != NULL && atomic_load(job->cancel))
			return;
		c = atomic_fetch_add(&job->next, 1);
		if (c >= job->nchunks)
			return;
		het_error_clear(scratch);
		st = job->fn(job->ctx, c, worker, scratch);
		if (st != HET_OK)
			het_pool_fail(job, c, st, scratch);
	}
}

static void
het_pool_fail(struct het_pool_job *job, size_t c, int st,
    const struct het_error *msg)
{
	if (job->lock != NULL)
		pthread_mutex_lock(job->lock);
	if (c < job->err_chunk) {
		job->err_chunk = c;
		job->err_code = st;
		if (msg->code != HET_OK && msg->msg[0] != '\0')
			job->err = *msg;
		else
			het_error_set(&job->err, st, "chunk %zu of %zu failed "
			    "with %s but left no message; the chunk function "
			    "must describe its error", c, job->nchunks,
			    het_status_name(st));
		job->err.code = st;
	}
	if (job->lock != NULL)
		pthread_mutex_unlock(job->lock);
	atomic_store(&job->stop, 1);
}

/* Turn a finished job into the return status, nrun and err. */
static int
het_pool_finish(struct het_pool_job *job, size_t *nrun,
    struct het_error *err)
{
	size_t next = atomic_load(&job->next);
	size_t done = next < job->nchunks ? next : job->nchunks;

	if (nrun != NULL)
		*nrun = done;
	if (job->err_chunk != SIZE_MAX) {
		if (err != NULL)
			*err = job->err;
		return job->err_code;
	}
	if (done < job->nchunks)
		return het_error_set(err, HET_ECANCEL, "the parallel run was "
		    "cancelled after %zu of %zu chunks; the results of chunks "
		    "0 to %zu are complete and no later chunk ran", done,
		    job->nchunks, done == 0 ? 0 : done - 1);
	return HET_OK;
}

int
het_pool_run(struct het_pool *pool, size_t nchunks, het_pool_chunk_fn fn,
    void *ctx, const atomic_int *cancel, size_t *nrun, struct het_error *err)
{
	struct het_pool_job serial;
	struct het_error scratch;
	int st;

	if (nrun != NULL)
		*nrun = 0;
	if (fn == NULL)
		return het_error_set(err, HET_EINVAL, "het_pool_run was given "
		    "no chunk function; pass the function that computes one "
		    "chunk");
	if (pool == NULL) {
		het_pool_job_init(&serial, nchunks, fn, ctx, cancel, NULL);
		het_pool_work(&serial, 0, &scratch);
		return het_pool_finish(&serial, nrun, err);
	}

	pthread_mutex_lock(&pool->lock);
	if (pool->busy) {
		pthread_mutex_unlock(&pool->lock);
		return het_error_set(err, HET_EINVAL, "the thread pool is "
		    "already running a job; a pool runs one job at a time, "
		    "so a chunk function must use a NULL pool (serial) for "
		    "nested work");
	}
	pool->busy = 1;
	het_pool_job_init(&pool->job, nchunks, fn, ctx, cancel, &pool->lock);
	if (nchunks > 0) {
		pool->nactive = pool->nthreads;
		pool->generation++;
		pthread_cond_broadcast(&pool->work_cv);
		while (pool->nactive > 0)
			pthread_cond_wait(&pool->done_cv, &pool->lock);
	}
	pthread_mutex_unlock(&pool->lock);

	/* Still busy, so nobody can overwrite pool->job yet. */
	st = het_pool_finish(&pool->job, nrun, err);

	pthread_mutex_lock(&pool->lock);
	pool->busy = 0;
	pthread_mutex_unlock(&pool->lock);
	return st;
}

struct het_pool_reducer *
het_pool_reducer_alloc(size_t len, size_t nslots, struct het_error *err)
{
	struct het_pool_reducer *r;
	const size_t per_line = HET_POOL_SLOT_ALIGN / sizeof(double);
	size_t stride;

	if (nslots == 0)
		nslots = HET_POOL_DEFAULT_SLOTS;
	if (len == 0) {
		het_error_set(err, HET_EINVAL, "a reducer needs at least one "
		    "double per partial sum (len was 0)");
		return NULL;
	}
	if (len > SIZE_MAX / sizeof(double) - per_line) {
		het_error_set(err, HET_EINVAL, "a reducer partial of %zu "
		    "doubles is too large", len);
		return NULL;
	}
	stride = (len + per_line - 1) / per_line * per_line;
	if (nslots > SIZE_MAX / sizeof(double) / stride) {
		het_error_set(err, HET_ENOMEM, "a reducer of %zu slots of %zu "
		    "doubles does not fit in memory; use fewer slots", nslots,
		    len);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		het_error_set(err, HET_ENOMEM, "cannot allocate a reducer");
		return NULL;
	}
	r->len = len;
	r->stride = stride;
	r->nslots = nslots;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->init = 1;
	r->slots = aligned_alloc(HET_POOL_SLOT_ALIGN,
	    nslots * stride * sizeof(double));
	r->done = calloc(nslots, sizeof(*r->done));
	r->status = calloc(nslots, sizeof(*r->status));
	if (r->slots == NULL || r->done == NULL || r->status == NULL) {
		het_error_set(err, HET_ENOMEM, "cannot allocate a reducer of "
		    "%zu slots of %zu doubles; use fewer slots", nslots, len);
		het_pool_reducer_free(r);
		return NULL;
	}
	return r;
}

void
het_pool_reducer_free(struct het_pool_reducer *r)
{
	if (r == NULL)
		return;
	if (r->init) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->lock);
	}
	free(r->slots);
	free(r->done);
	free(r->status);
	free(r);
}

size_t
het_pool_reducer_nslots(const struct het_pool_reducer *r)
{
	return r->nslots;
}

/* The chunk function het_pool_reduce hands to het_pool_run. */
static int
het_pool_reduce_chunk(void *arg, size_t c, size_t worker,
    struct het_error *err)
{
	struct het_pool_reducer *r = arg;
	size_t s = c % r->nslots, k, i;
	double *partial = r->slots + s * r->stride, *slot;
	int st, advanced = 0;

	/* The slot is free once its previous chunk, c - nslots, is folded. */
	pthread_mutex_lock(&r->lock);
	while (c >= r->folded + r->nslots)
		pthread_cond_wait(&r->cv, &r->lock);
	pthread_mutex_unlock(&r->lock);

	memset(partial, 0, r->len * sizeof(*partial));
	st = r->fn(r->ctx, c, worker, partial, err);

	pthread_mutex_lock(&r->lock);
	r->status[s] = st;
	r->done[s] = 1;
	/*
	 * Fold every finished chunk at the head of the order.  Slot
	 * folded % nslots can only hold chunk `folded` here, because later
	 * chunks of that slot wait for it.  Failed chunks are skipped but
	 * still advance the order, so the chunks waiting behind them finish.
	 */
	while (r->folded < r->nchunks && r->done[r->folded % r->nslots]) {
		k = r->folded % r->nslots;
		slot = r->slots + k * r->stride;
		if (r->status[k] == HET_OK)
			for (i = 0; i < r->len; i++)
				r->acc[i] += slot[i];
		r->done[k] = 0;
		r->folded++;
		advanced = 1;
	}
	if (advanced)
		pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->lock);
	return st;
}

int
het_pool_reduce(struct het_pool *pool, struct het_pool_reducer *r,
    size_t nchunks, het_pool_reduce_fn fn, void *ctx, double *acc,
    const atomic_int *cancel, size_t *nrun, struct het_error *err)
{
	size_t ran = 0;
	int st;

	if (nrun != NULL)
		*nrun = 0;
	if (r == NULL || fn == NULL || acc == NULL)
		return het_error_set(err, HET_EINVAL, "het_pool_reduce needs a "
		    "reducer, a chunk function and an accumulator (got %s%s%s)",
		    r == NULL ? "no reducer " : "",
		    fn == NULL ? "no function " : "",
		    acc == NULL ? "no accumulator" : "");
	pthread_mutex_lock(&r->lock);
	if (r->busy) {
		pthread_mutex_unlock(&r->lock);
		return het_error_set(err, HET_EINVAL, "the reducer is already "
		    "in use by another reduce; give each concurrent reduce "
		    "(each multistart fit) its own reducer");
	}
	r->busy = 1;
	r->fn = fn;
	r->ctx = ctx;
	r->acc = acc;
	r->nchunks = nchunks;
	r->folded = 0;
	memset(r->done, 0, r->nslots * sizeof(*r->done));
	pthread_mutex_unlock(&r->lock);
	memset(acc, 0, r->len * sizeof(*acc));

	st = het_pool_run(pool, nchunks, het_pool_reduce_chunk, r, cancel,
	    &ran, err);

	pthread_mutex_lock(&r->lock);
	if ((st == HET_OK || st == HET_ECANCEL) && r->folded != ran)
		st = het_error_set(err, HET_EINTERNAL, "the reducer folded "
		    "%zu chunks but %zu ran; this is a bug in het_pool.c",
		    r->folded, ran);
	r->busy = 0;
	r->fn = NULL;
	r->ctx = NULL;
	r->acc = NULL;
	pthread_mutex_unlock(&r->lock);
	if (nrun != NULL)
		*nrun = ran;
	return st;
}
