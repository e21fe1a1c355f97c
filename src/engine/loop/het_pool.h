/*
 * het_pool.h: the engine's pthread pool, a deterministic parallel-for over
 * caller-defined chunks, and a bounded-memory reducer whose sums are
 * bit-identical for every thread count.
 *
 * Design (docs/design.md, aesthetics anchors 6.6):
 *   - A pool owns nthreads threads (0 means one per core), created
 *     with every signal blocked so signals land on the loop thread.  The
 *     calling thread does not compute: it hands a job to the pool and
 *     sleeps until every pool thread has left it.  A pool runs one job at
 *     a time; het_pool_run on a busy pool is HET_EINVAL (so a chunk
 *     function calling back into its own pool fails instead of
 *     deadlocking).  het_pool_run blocks, so the loop thread never calls
 *     it: a fit runs on a job thread, which calls it once per evaluation.
 *   - Chunk boundaries belong to the caller and must not depend on the
 *     thread count (for example, 4,096 upper-triangle pairs per chunk).
 *     Threads take chunk indices from one atomic counter in increasing
 *     order, which balances the load and gives a prefix property: every
 *     chunk that is taken runs to its end, so after a run, cancelled or
 *     not, the chunks that ran are exactly 0 .. nrun-1.
 *   - Cancellation is a caller-owned atomic flag (the job's flag, also
 *     checked between fit iterations), read before each chunk is taken.
 *   - The first error by chunk index is reported, whatever the timing:
 *     after a chunk fails no new chunk is taken, but every lower chunk was
 *     taken earlier and still runs, so the lowest failing chunk always
 *     runs and its status and message win.
 *   - het_pool_reduce folds per-chunk partial sums (e.g. the p*p + p
 *     doubles of JtJ and Jtr) into one accumulator strictly in chunk order
 *     0, 1, 2, ...  Each chunk fills one of nslots fixed buffers (chunk c
 *     uses slot c % nslots; it waits until chunk c - nslots has been
 *     folded), so memory is nslots * len doubles whatever the number of
 *     chunks.  The result equals the sequential loop
 *         acc = 0; for (c = 0; c < nchunks; c++) acc += partial(c);
 *     in IEEE arithmetic, so it is bit-identical for any thread count,
 *     any slot count and the serial path (pool NULL), provided the chunk
 *     function computes partial(c) from c alone (not from the worker index
 *     or the slot address) and BLAS is single-threaded.
 *   - Neither het_pool_run nor het_pool_reduce allocates: the pool and
 *     the reducer are sized once (threads, slots * len), so peak memory
 *     beyond the caller's data does not grow with the number of pairs.
 *   - Multistart maps onto het_pool_run with nchunks = nstarts: each chunk
 *     runs one whole fit, whose own evaluations call het_pool_run or
 *     het_pool_reduce with pool NULL (serial, on that pool thread) and
 *     their own reducer.  Because the fold order is fixed, such a fit is
 *     bit-identical to the same fit run alone on the whole pool.  A long
 *     chunk like that should watch the same cancel flag itself.
 *
 * OpenBLAS must be single-threaded while several pool threads call it:
 * het_pool_blas_single_threaded() from main() before any pool is started.
 */
#ifndef HET_POOL_H
#define HET_POOL_H

#include <stdatomic.h>
#include <stddef.h>

#include "het_error.h"

/* The largest pool; more threads than this is a typo in --threads. */
#define HET_POOL_MAX_THREADS 1024

/* Slots of a reducer when het_pool_reducer_alloc is given 0. */
#define HET_POOL_DEFAULT_SLOTS 64

struct het_pool;
struct het_pool_reducer;

/*
 * A chunk function of het_pool_run.
 *   ctx     the caller's context, shared by all threads (read-only, or
 *           written only at chunk-indexed places).
 *   chunk   the chunk index, in [0, nchunks).
 *   worker  the index of the calling pool thread, in [0, nthreads), for
 *           per-thread scratch; 0 on the serial path.
 *   err     a per-thread record, cleared before the call.
 * Returns HET_OK, or any other status to stop the run (with a message in
 * err; a missing message is replaced by a generic one).
 */
typedef int (*het_pool_chunk_fn)(void *ctx, size_t chunk, size_t worker,
    struct het_error *err);

/*
 * A chunk function of het_pool_reduce: as het_pool_chunk_fn, plus
 *   partial  on input len zeros; on output this chunk's contribution,
 *            which is added to the accumulator in chunk order.  It must
 *            depend on the chunk alone for bit-identical results.
 */
typedef int (*het_pool_reduce_fn)(void *ctx, size_t chunk, size_t worker,
    double *partial, struct het_error *err);

/*
 * het_pool_alloc: start a pool.
 *   nthreads  threads to start, 1 .. HET_POOL_MAX_THREADS, or 0 for
 *             one per core (het_pool_ncpu).
 * The threads start with every signal blocked; the caller's own signal
 * mask is unchanged on return.  Returns the pool (free with
 * het_pool_free), or NULL with HET_EINVAL (too many threads), HET_ENOMEM,
 * or HET_EIO (a thread could not be created) in err.
 * Thread: any, but not a pool thread.
 */
struct het_pool *het_pool_alloc(size_t nthreads, struct het_error *err);

/*
 * het_pool_free: stop and join the threads, then free the pool.  NULL is
 * a no-op.  No run may be in progress.  Thread: the one that allocated it.
 */
void het_pool_free(struct het_pool *pool);

/*
 * het_pool_ncpu: the cores this process may run on: the size of its CPU
 * affinity mask (taskset, a Slurm allocation's binding, a container's
 * cpuset), else the online processors; at least 1.  What "one per core"
 * means everywhere in hetui (pool threads, workers, a shard's chains).
 * Thread: any.
 */
long het_pool_ncpu(void);

/* het_pool_nthreads: the pool's thread count; 1 for NULL (serial). */
size_t het_pool_nthreads(const struct het_pool *pool);

/*
 * het_pool_blas_single_threaded: tell OpenBLAS to use one thread, as it
 * must when several pool threads call it at once.  Returns 1 if OpenBLAS
 * was told, 0 if the program is linked with another BLAS (then rely on
 * OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1, as the manual says; an
 * OpenMP OpenBLAS may also ignore the call).  hetui-worker needs none
 * of this: NUTS does not call BLAS.
 * Thread: main(), before any pool thread calls BLAS.
 */
int het_pool_blas_single_threaded(void);

/*
 * het_pool_run: call fn once for each chunk 0 .. nchunks-1, spread over
 * the pool's threads, and return when all have finished.
 *   pool     the pool, or NULL to run the chunks in order on the calling
 *            thread (worker 0) with the same semantics.
 *   fn, ctx  the chunk function and its context (see het_pool_chunk_fn).
 *   cancel   NULL, or a flag the caller owns; once it is non-zero no
 *            further chunk is started.
 *   nrun     NULL, or on output the number of chunks that ran, failed
 *            ones included; they are always chunks 0 .. *nrun-1.
 * Returns HET_OK when every chunk returned HET_OK; the status and message
 * of the lowest-numbered failing chunk if any failed (deterministic, as
 * long as whether a chunk fails depends on the chunk alone); HET_ECANCEL
 * when the cancel flag stopped chunks from running (a chunk error takes
 * precedence); HET_EINVAL for a NULL fn or a pool already running a job.
 * Thread: any thread but the loop thread (it blocks) and, for a non-NULL
 * pool, not one of that pool's own threads.
 */
int het_pool_run(struct het_pool *pool, size_t nchunks, het_pool_chunk_fn fn,
    void *ctx, const atomic_int *cancel, size_t *nrun, struct het_error *err);

/*
 * het_pool_reducer_alloc: the fixed workspace of het_pool_reduce.
 *   len     doubles per partial sum (p*p + p for JtJ and Jtr), >= 1.
 *   nslots  partial-sum buffers, or 0 for HET_POOL_DEFAULT_SLOTS.  It
 *           bounds memory (nslots * len doubles) and how far threads may
 *           run ahead of the fold; it never changes the result.  Choose
 *           it independent of the number of chunks; more slots than
 *           threads keeps every thread busy.
 * Returns the reducer (free with het_pool_reducer_free), or NULL with
 * HET_EINVAL or HET_ENOMEM.  Thread: any.
 */
struct het_pool_reducer *het_pool_reducer_alloc(size_t len, size_t nslots,
    struct het_error *err);

/* het_pool_reducer_free: NULL is a no-op.  No reduce may be running. */
void het_pool_reducer_free(struct het_pool_reducer *r);

/* het_pool_reducer_nslots: the number of partial-sum buffers. */
size_t het_pool_reducer_nslots(const struct het_pool_reducer *r);

/*
 * het_pool_reduce: acc = sum over chunks c = 0 .. nchunks-1, in that
 * order, of the partial that fn fills for c (see het_pool_reduce_fn).
 *   pool             as for het_pool_run (NULL: serial, same result).
 *   r                a reducer of len doubles, used by one reduce at a
 *                    time.
 *   acc              on output len doubles (any input is overwritten).
 *   cancel, nrun     as for het_pool_run.
 * Returns as het_pool_run.  On HET_OK acc holds the full sum; on
 * HET_ECANCEL it holds exactly the sum of chunks 0 .. *nrun-1, bit-equal
 * to a complete run over that many chunks; after a chunk error acc is
 * unspecified.  Thread: as het_pool_run.
 */
int het_pool_reduce(struct het_pool *pool, struct het_pool_reducer *r,
    size_t nchunks, het_pool_reduce_fn fn, void *ctx, double *acc,
    const atomic_int *cancel, size_t *nrun, struct het_error *err);

#endif /* HET_POOL_H */
