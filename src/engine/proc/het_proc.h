/*
 * het_proc.h: hetui-worker processes of the coordinator, driven from the
 * loop thread's poll() loop without ever blocking (except in
 * het_procset_shutdown_all, which is for quitting).
 *
 * Module engine/proc (the opening comment of this folder): worker
 * processes: spawning and watching hetui-worker (het_proc*) and the wire
 * protocol between coordinator and worker, with the shard and result
 * records (het_wire*); and the children the workstation runs through
 * the same machinery: a batch of fits as `hetui fit --wire` (het_batch)
 * and the figures of a run folder as `hetui report` (het_figjob).
 *
 * Design (aesthetics anchors 1 and 6.6, docs/wire-protocol.md):
 *   - A worker is started from a configurable argv (default: the
 *     installed hetui-worker; "ssh HOST hetui-worker" and "srun -n1
 *     hetui-worker" work unchanged because only stdio is used) with
 *     posix_spawn: stdin and stdout are pipes, stderr goes to a per-worker
 *     log file (never the terminal), every other descriptor is closed or
 *     close-on-exec, signal dispositions and the mask are reset.
 *   - The child is the leader of its own process group, so signals reach
 *     the children of an ssh or srun wrapper too, and the terminal's ^C
 *     does not.  Kill policy: SIGTERM to the group, SIGKILL to the group
 *     after a grace period.  srun turns SIGTERM into SIGKILL of its task
 *     and exits within milliseconds, so the SIGKILL stage is only for
 *     wrappers that hang (note: SIGKILL of srun's whole group before srun
 *     has cancelled its step leaks the Slurm job until InactiveLimit).
 *   - Stdin writes are non-blocking and queued; the queue is flushed when
 *     poll reports POLLOUT.  Stdout is read non-blocking into a het_wire
 *     reader; each complete record is handed to the record callback.
 *   - A worker is finished only after both EOF on its stdout and its
 *     exit status have been seen, in either order (tmux job_check_died).
 *     The status is collected by het_procset_reap (call it when SIGCHLD
 *     arrives and on a timer); before reaping the leader, survivors of
 *     its process group are SIGKILLed, while the unreaped leader still
 *     pins the group id, so no process is left behind.
 *   - Faults become a reason string: "exited with status N before sending
 *     a result", "killed by signal 9", a heartbeat or shard timeout, a
 *     protocol error (which also kills the worker), or the message of the
 *     worker's own error record.  The done callback receives it.
 *   - Writing to a worker that died raises SIGPIPE: the process must
 *     ignore SIGPIPE (hetui's main does); writes then fail with EPIPE,
 *     which is handled.
 *
 * Thread: all functions on one set are called from one thread (the loop
 * thread); callbacks run on it, inside het_procset_handle, _reap,
 * _check_timeouts and _shutdown_all.  Callbacks may send to, close or
 * kill a worker but must not free it or spawn into the same set.
 */
#ifndef HET_PROC_H
#define HET_PROC_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#include "het_error.h"
#include "het_thread.h"
#include "het_wire.h"

struct het_proc;
struct het_procset;

/* How a finished worker ended; passed to the done callback. */
struct het_proc_exit {
	int	ok;		/* 1: clean (exit 0 and nothing failed) */
	int	exited;		/* 1: exited normally, with status */
	int	status;		/* exit status when exited */
	int	signo;		/* terminating signal when not exited */
	int	got_result;	/* a result record arrived */
	struct het_error reason; /* when !ok: code and sentence */
};

typedef void (*het_proc_record_cb)(struct het_proc *p,
    const struct het_wire_rec *rec, void *arg);
typedef void (*het_proc_done_cb)(struct het_proc *p,
    const struct het_proc_exit *ex, void *arg);

struct het_proc_opts {
	/* Command; NULL-terminated, borrowed, copied by _alloc.  NULL
	 * means { worker_path, NULL }. */
	char *const	*argv;
	const char	*worker_path;	/* default command; NULL = PATH lookup
					 * of "hetui-worker" */
	const char	*log_dir;	/* stderr goes to log_dir/worker-ID.log
					 * (appended; removed when empty after
					 * the worker ended);
					 * NULL sends it to /dev/null */
	double		 shard_timeout;	/* s from het_proc_arm; 0 = none */
	double		 heartbeat_timeout; /* s of silence; 0 = none */
	double		 kill_grace;	/* s between SIGTERM and SIGKILL */
	size_t		 max_line;	/* 0 = HET_WIRE_MAX_LINE */
	int		 out_to_log;	/* 1: stdout goes to the log too (a
					 * child that does not speak the
					 * protocol, e.g. hetui report): no
					 * records; done once reaped */
	het_proc_record_cb on_record;	/* may be NULL */
	het_proc_done_cb   on_done;	/* may be NULL */
	void		*arg;
};

/*
 * het_procset_alloc: an empty set; opts is copied (argv too).  Returns
 * NULL with HET_EINVAL (negative times, empty argv) or HET_ENOMEM.
 * het_procset_free: kills (SIGKILL) and reaps, blocking, any worker still
 * running, frees every worker and the set; NULL is a no-op.  Use
 * het_procset_shutdown_all first for a graceful end.
 */
struct het_procset *het_procset_alloc(const struct het_proc_opts *opts,
    struct het_error *err);
void het_procset_free(struct het_procset *set);

/*
 * het_proc_spawn: start a worker.
 *   id   the caller's number for it (log file name, messages).
 *   now  current het_clock_now().
 * Returns the worker (owned by the set; borrowed by the caller until
 * het_proc_free) or NULL with HET_EIO (pipe, log file, spawn failure such
 * as a missing command) or HET_ENOMEM.
 */
struct het_proc *het_proc_spawn(struct het_procset *set, int id, double now,
    struct het_error *err);

/*
 * het_proc_free: remove a finished worker (het_proc_done() true) from its
 * set and free it.  A running worker is killed with SIGKILL and reaped
 * first (this blocks briefly).  NULL is a no-op.  Not from a callback.
 */
void het_proc_free(struct het_proc *p);

/* Accessors.  het_proc_tag/set_tag: a caller pointer, e.g. the shard. */
int	 het_proc_id(const struct het_proc *p);
pid_t	 het_proc_pid(const struct het_proc *p);
int	 het_proc_done(const struct het_proc *p);
int	 het_proc_hello_seen(const struct het_proc *p);
int	 het_proc_input_open(const struct het_proc *p);	/* 0 after a
				   broken pipe or het_proc_close_stdin */
void	*het_proc_tag(const struct het_proc *p);
void	 het_proc_set_tag(struct het_proc *p, void *tag);
/* The log file path (borrowed, valid until het_proc_free) or NULL. */
const char *het_proc_log_path(const struct het_proc *p);

/*
 * het_proc_send: queue bytes (whole records) for the worker's stdin; as
 * much as possible is written at once, the rest when POLLOUT arrives.
 * Returns HET_OK, HET_EINVAL (stdin already closed), HET_ENOMEM.  A broken
 * pipe is not an error here: the worker's death is reported by reaping.
 */
int het_proc_send(struct het_proc *p, const char *buf, size_t len,
    struct het_error *err);

/*
 * het_proc_send_rec: encode and send a record (payload borrowed).
 */
int het_proc_send_rec(struct het_proc *p, enum het_wire_type type,
    const json_t *payload, struct het_error *err);

/*
 * het_proc_close_stdin: the worker sees EOF ("shut down now") once the
 * queue is flushed.  Idempotent.
 */
void het_proc_close_stdin(struct het_proc *p);

/*
 * het_proc_arm: a shard was sent at time now; start the shard and the
 * heartbeat deadlines.  A result or error record disarms them.
 */
void het_proc_arm(struct het_proc *p, double now);

/*
 * het_proc_kill: fail the worker with reason (code, message) unless it
 * already failed, and start the kill policy (SIGTERM to its group, then
 * SIGKILL after kill_grace).  Idempotent.
 */
void het_proc_kill(struct het_proc *p, double now, int code,
    const char *reason);

/*
 * het_procset_pollfds: fill fds[0..*n) with the descriptors to poll
 * (stdout for POLLIN, stdin for POLLOUT when output is queued).
 *   cap  size of fds.  Returns HET_OK or HET_ERANGE if cap is too small
 *   (2 per running worker is always enough).
 */
int het_procset_pollfds(struct het_procset *set, struct pollfd *fds,
    size_t cap, size_t *n);

/*
 * het_procset_handle: act on poll's results (fds and n as filled by
 * het_procset_pollfds, revents set): flush queued input, read output,
 * dispatch records, notice EOF.  Never blocks.  Returns HET_OK.
 */
int het_procset_handle(struct het_procset *set, const struct pollfd *fds,
    size_t n, double now);

/*
 * het_procset_reap: collect the exit status of every worker that died
 * (waitpid WNOHANG on each worker's pid only).  Never blocks.  Returns
 * the number of workers that finished during this call.
 */
int het_procset_reap(struct het_procset *set, double now);

/*
 * het_procset_check_timeouts: fail and kill workers whose shard or
 * heartbeat deadline passed; escalate SIGTERM to SIGKILL after the grace
 * period.  Returns the number of workers acted on.
 */
int het_procset_check_timeouts(struct het_procset *set, double now);

/*
 * het_procset_next_deadline: the earliest pending deadline (to size the
 * poll timeout), or a negative number when there is none.
 */
double het_procset_next_deadline(const struct het_procset *set);

/*
 * For a set driven by the caller's own loop (a child of the
 * workstation): het_procset_step is one turn's work after poll (act on
 * the descriptors, reap, apply the timeouts and the kill policy; never
 * blocks); het_procset_wake the time the next turn is due: the earliest
 * deadline, but at most tick seconds from now, so that a child is
 * reaped even when a SIGCHLD wake-up is lost.
 */
void het_procset_step(struct het_procset *set, const struct pollfd *fds,
    size_t n, double now);
double het_procset_wake(const struct het_procset *set, double now,
    double tick);

/* het_procset_running: workers not yet finished. */
size_t het_procset_running(const struct het_procset *set);

/*
 * het_procset_shutdown_all: close every stdin, keep handling output and
 * reaping until all workers finished or `wait` seconds passed, then
 * SIGTERM, after kill_grace SIGKILL, and reap.  Blocks for at most about
 * wait + kill_grace + 1 s.  Afterwards no worker process exists.  Done
 * callbacks run for every worker that finishes.
 */
void het_procset_shutdown_all(struct het_procset *set, double wait);

/*
 * het_proc_program: the program a child of this process runs, into buf
 * (len bytes): program when given, else this executable
 * (/proc/self/exe), else "hetui" (looked up in PATH).
 */
void het_proc_program(char *buf, size_t len, const char *program);

/*
 * het_proc_mkdtemp: a new private folder base/NAME-XXXXXX for a child's
 * files (base NULL or "": $TMPDIR, else /tmp); `what` names them in the
 * error ("the batch's configuration").  Returns the path (the caller
 * frees it and removes the folder) or NULL with HET_EIO (naming base)
 * or HET_ENOMEM.
 */
char *het_proc_mkdtemp(const char *base, const char *name,
    const char *what, struct het_error *err);

#endif /* HET_PROC_H */
