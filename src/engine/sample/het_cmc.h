/*
 * het_cmc.h: the Consensus Monte Carlo coordinator: a queue of shards
 * run by up to W hetui-worker processes (het_proc), with retries, early
 * abort, a success-rate rule and cancellation, driven from a poll loop.
 *
 * Design:
 *   - Shards are opaque here: each is a JSON object (the payload of a
 *     `shard` record, built by het_wire_shard_pack or anything else)
 *     whose "shard" member the coordinator sets to the shard id.  The
 *     result payload of a shard is kept as a JSON object for the caller
 *     to decode (het_wire_result_unpack).  So the coordinator does not
 *     depend on the sampler's record layout.
 *   - The queue runs largest shard first (by the npairs given to
 *     het_cmc_add; ties in the order of adding).  A worker is spawned
 *     per free slot (at most max_workers run at once), says hello, then
 *     takes the next shard; after a result it takes the next one, and
 *     when nothing is left for it its stdin is closed (it exits 0).
 *   - Faults: a shard attempt fails when its worker dies, breaks the
 *     protocol, stays silent beyond heartbeat_timeout, exceeds
 *     shard_timeout, or sends an error record (the worker is then
 *     killed).  The reason is het_proc's sentence.  A failed shard is
 *     retried once (max_attempts 2) on a freshly spawned worker (never
 *     on one that already ran a shard); after the last attempt it is
 *     FAILED with every attempt's reason.
 *   - Early abort (heterodyne library rule): among the first min(10, K)
 *     shards to reach a final state, if more than half failed, the
 *     queued shards are cancelled and running workers killed.
 *   - At the end, success rate = done / K; below min_success_rate the
 *     run fails (het_cmc_status) with a message listing the failures.
 *   - Cancellation (het_cmc_cancel) kills running workers (SIGTERM, then
 *     SIGKILL after kill_grace) and marks the unfinished shards
 *     CANCELLED.
 *
 * Thread: all calls on one coordinator from one thread (the loop
 * thread); the change callback runs on it, inside het_cmc_handle.
 * The process must ignore SIGPIPE (see het_proc.h).
 */
#ifndef HET_CMC_H
#define HET_CMC_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "het_error.h"
#include "het_wire.h"

enum het_cmc_state {
	HET_CMC_QUEUED = 0,	/* waiting for a worker */
	HET_CMC_RUNNING,	/* on a worker */
	HET_CMC_RETRYING,	/* failed once, waiting for a fresh worker */
	HET_CMC_DONE,		/* result received */
	HET_CMC_FAILED,		/* every attempt failed */
	HET_CMC_CANCELLED	/* cancelled or aborted before a result */
};

#define HET_CMC_MAX_ATTEMPTS	2

/* The state of one shard, for the UI and the CLI (read only). */
struct het_cmc_shard {
	long			 id;		/* shard id (record "shard") */
	size_t			 npairs;
	enum het_cmc_state	 state;
	int			 attempts;	/* attempts started */
	int			 has_progress;
	struct het_wire_progress progress;	/* latest progress record */
	double			 t_start;	/* het_clock_now() of the
						   current/last attempt */
	double			 elapsed;	/* s of the current/last
						   attempt */
	pid_t			 pid;		/* worker pid, 0 if none */
	int			 nreasons;
	char			 reason[HET_CMC_MAX_ATTEMPTS][HET_ERROR_MSG_MAX];
	json_t			*result;	/* result payload, owned by
						   the coordinator */
	int			 reused;	/* het_cmc_add_done: a result
						   of an earlier run */
};

struct het_cmc;
typedef void (*het_cmc_change_fn)(struct het_cmc *cmc, size_t index,
    void *arg);

struct het_cmc_opts {
	char *const	*argv;		/* worker command (borrowed), NULL =
					   { worker_path, NULL } */
	const char	*worker_path;	/* NULL = PATH lookup of hetui-worker */
	const char	*log_dir;	/* worker logs; NULL = /dev/null */
	size_t		 max_workers;	/* 0 = one per core
					   (het_pool_ncpu) */
	double		 shard_timeout;	/* s; 0 = none (config 3600) */
	double		 heartbeat_timeout; /* s; 0 = none (config 600) */
	double		 kill_grace;	/* s between SIGTERM and SIGKILL */
	double		 min_success_rate; /* in [0, 1] (config 0.90) */
	het_cmc_change_fn on_change;	/* a shard changed; may be NULL */
	/*
	 * check_result: called on the loop thread with each result payload
	 * as it arrives (shard: its id; arg: the arg below).  Not HET_OK
	 * (with err filled) makes the attempt fail: the worker is killed
	 * and the shard retried as after an error record.  NULL: results
	 * are opaque and kept as they come.
	 */
	int		(*check_result)(const json_t *result, long shard,
			    void *arg, struct het_error *err);
	void		*arg;
};

struct het_config_cmc;

/*
 * het_cmc_opts_from_cmc: set shard_timeout, heartbeat_timeout and
 * min_success_rate of *o from optimization.cmc (other fields untouched).
 */
void het_cmc_opts_from_cmc(const struct het_config_cmc *cmc,
    struct het_cmc_opts *o);

/*
 * het_cmc_split_command: split a worker command such as
 * "srun -n1 hetui-worker" (cmc.worker_command) at blanks (no quoting)
 * into a NULL-terminated argv.  Returns a malloc'd vector whose strings
 * live in the same allocation (one free()), or NULL with HET_EINVAL (an
 * empty command) or HET_ENOMEM.
 */
char **het_cmc_split_command(const char *cmd, struct het_error *err);

/*
 * het_cmc_alloc: a coordinator with no shards.  Returns NULL with
 * HET_EINVAL (negative times, min_success_rate outside [0, 1]) or
 * HET_ENOMEM.  het_cmc_free: kills and reaps any worker (blocking
 * briefly), frees everything; NULL is a no-op.
 */
struct het_cmc *het_cmc_alloc(const struct het_cmc_opts *opts,
    struct het_error *err);
void het_cmc_free(struct het_cmc *cmc);

/*
 * het_cmc_add: queue a shard before het_cmc_start.
 *   id       shard id, >= 0 and unique.
 *   npairs   its size (for the largest-first order and the display).
 *   payload  a JSON object; the reference is stolen (even on error);
 *            "shard" is set to id.
 * Returns HET_OK, HET_EINVAL (started already, negative or duplicate
 * id, payload not an object), HET_ENOMEM.
 */
int het_cmc_add(struct het_cmc *cmc, long id, size_t npairs,
    json_t *payload, struct het_error *err);

/*
 * het_cmc_add_done: add, before het_cmc_start, a shard that is already
 * DONE with a result of an earlier run (`hetui sample --resume`): it is
 * never sent to a worker, counts as a success in het_cmc_status and as
 * one of the first shards to finish in the early-abort rule (as it was
 * in the run it comes from), is not work of this run for
 * het_cmc_work_done, and has reused = 1, attempts = 0 and elapsed = the
 * stored wall time.
 *   result   a result payload (het_wire_result_pack); stolen, even on
 *            error.
 * Returns HET_OK or het_cmc_add's errors.
 */
int het_cmc_add_done(struct het_cmc *cmc, long id, size_t npairs,
    json_t *result, double elapsed, struct het_error *err);

/*
 * het_cmc_start: sort the queue (largest first) and spawn the first
 * workers (none when every shard is done already).  Returns HET_OK,
 * HET_EINVAL (no shards, started twice),
 * HET_EIO (the first spawn failed: missing command), HET_ENOMEM.
 */
int het_cmc_start(struct het_cmc *cmc, double now, struct het_error *err);

/*
 * Poll-loop integration.  het_cmc_pollfds fills fds (cap must be at
 * least 2 * max_workers); het_cmc_handle acts on poll's results, reaps,
 * checks timeouts and dispatches (never blocks); call it also when poll
 * times out.  het_cmc_next_deadline: seconds (absolute, het_clock_now
 * base) of the next timer, negative when none; the caller should also
 * wake at least every 0.1 s to reap (or on SIGCHLD).
 */
int het_cmc_pollfds(struct het_cmc *cmc, struct pollfd *fds, size_t cap,
    size_t *n);
void het_cmc_handle(struct het_cmc *cmc, const struct pollfd *fds,
    size_t n, double now);
double het_cmc_next_deadline(const struct het_cmc *cmc);

/* het_cmc_finished: 1 when no shard is pending and no worker runs. */
int het_cmc_finished(const struct het_cmc *cmc);

/*
 * het_cmc_cancel: stop the run (idempotent); queued and running shards
 * become CANCELLED with reason "cancelled: <why>".
 */
void het_cmc_cancel(struct het_cmc *cmc, double now, const char *why);

/*
 * het_cmc_run: run to completion (the CLI helper): poll, handle, reap
 * until het_cmc_finished.  Blocks.  Returns het_cmc_status.
 */
int het_cmc_run(struct het_cmc *cmc, struct het_error *err);

/*
 * het_cmc_status: the verdict once finished.  HET_OK when done / K >=
 * min_success_rate (failures are then only in the shard records);
 * HET_ECANCEL after het_cmc_cancel; HET_EDATA after an early abort or
 * with too few successes; the message counts the shards and lists each
 * failed shard with its reasons.
 */
int het_cmc_status(const struct het_cmc *cmc, struct het_error *err);

/* Accessors: shards in queue order (largest first after start). */
size_t het_cmc_nshards(const struct het_cmc *cmc);
const struct het_cmc_shard *het_cmc_shard(const struct het_cmc *cmc,
    size_t index);
size_t het_cmc_count(const struct het_cmc *cmc, enum het_cmc_state st);

/*
 * het_cmc_shard_progress: how far a shard's latest progress record says
 * its current attempt got, in [0, 1]: the record's share done when it
 * has one (chains run at once), else from its chain and iteration (the
 * chains run one after the other, nchains of per_chain iterations
 * each).  0 without a record or
 * with nchains or per_chain not positive.  Any state; loop thread.
 */
double het_cmc_shard_progress(const struct het_cmc_shard *sh, long nchains,
    long per_chain);

/*
 * het_cmc_work_done: the fraction of the sampling work done, in [0, 1],
 * for progress and time-left estimates.  Shards weigh by their pairs; a
 * done, failed or cancelled shard counts whole, a running one by its
 * latest progress record (reused shards are not work of this run and
 * count in neither part) (its chains run one after the other, nchains
 * of per_chain iterations each), a queued or retrying one not at all.
 * Returns 0 when nchains or per_chain is not positive.  Loop thread.
 */
double het_cmc_work_done(const struct het_cmc *cmc, long nchains,
    long per_chain);
int het_cmc_aborted(const struct het_cmc *cmc);
size_t het_cmc_workers_spawned(const struct het_cmc *cmc);

/* het_cmc_state_name: "queued", "running", ... */
const char *het_cmc_state_name(enum het_cmc_state st);

#endif /* HET_CMC_H */
