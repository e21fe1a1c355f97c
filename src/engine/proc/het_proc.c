/*
 * het_proc.c: hetui-worker processes for the coordinator (see het_proc.h).
 *
 * Design: each worker is a small state machine with independent flags
 * (stdout at EOF, status reaped, failed, kill stage) rather than one
 * state, because the events arrive in any order: a worker may exit before
 * its last record has been read, or its stdout may close long before it
 * exits.  It is finished when both out_eof and reaped are set; only then
 * is the reason decided, with a fixed priority: our own verdict (protocol
 * error, timeout, the worker's error record) first, then a terminating
 * signal, then a record cut off by EOF, then a non-zero or premature
 * exit.  Nothing here sleeps except het_procset_shutdown_all and the
 * forced kills of the _free functions.  Starting a worker is
 * het_proc_spawn.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "het_loop.h"
#include "het_proc.h"

#include "het_proc_impl.h"

static void het_proc_finish(struct het_proc *);

struct het_procset *
het_procset_alloc(const struct het_proc_opts *opts, struct het_error *err)
{
	struct het_procset	*set;
	const char		*def[2];
	char *const		*av;
	size_t			 i;

	if (opts->shard_timeout < 0 || opts->heartbeat_timeout < 0 ||
	    opts->kill_grace < 0) {
		het_error_set(err, HET_EINVAL, "worker timeouts must not be "
		    "negative (shard %g s, heartbeat %g s, kill grace %g s)",
		    opts->shard_timeout, opts->heartbeat_timeout,
		    opts->kill_grace);
		return NULL;
	}
	if (opts->argv != NULL && (opts->argv[0] == NULL ||
	    opts->argv[0][0] == '\0')) {
		het_error_set(err, HET_EINVAL, "the worker command is empty; "
		    "give a program such as hetui-worker or 'ssh HOST "
		    "hetui-worker'");
		return NULL;
	}
	if ((set = calloc(1, sizeof *set)) == NULL)
		goto nomem;
	set->o = *opts;
	def[0] = opts->worker_path != NULL ? opts->worker_path :
	    "hetui-worker";
	def[1] = NULL;
	av = opts->argv != NULL ? opts->argv : (char *const *)def;
	while (av[set->argc] != NULL)
		set->argc++;
	if ((set->argv = calloc(set->argc + 1, sizeof *set->argv)) == NULL)
		goto nomem;
	for (i = 0; i < set->argc; i++)
		if ((set->argv[i] = strdup(av[i])) == NULL)
			goto nomem;
	set->o.argv = set->argv;
	set->o.worker_path = NULL;
	set->o.log_dir = NULL;
	if (opts->log_dir != NULL &&
	    (set->o.log_dir = strdup(opts->log_dir)) == NULL)
		goto nomem;
	return set;
nomem:
	het_error_set(err, HET_ENOMEM, "out of memory for the worker set");
	het_procset_free(set);
	return NULL;
}

/* Forcibly end a worker: SIGKILL its group, reap, close its pipes. */
static void
het_proc_force(struct het_proc *p)
{
	int st = 0;

	if (!p->reaped) {
		killpg(p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, &st, 0) == -1 && errno == EINTR)
			;
		p->reaped = 1;
		if (WIFEXITED(st)) {
			p->exited = 1;
			p->status = WEXITSTATUS(st);
		} else if (WIFSIGNALED(st))
			p->signo = WTERMSIG(st);
	}
	if (p->in_fd != -1)
		close(p->in_fd);
	if (p->out_fd != -1)
		close(p->out_fd);
	p->in_fd = p->out_fd = -1;
	p->out_eof = 1;
}

static void
het_proc_destroy(struct het_proc *p)
{
	het_proc_force(p);
	(void)het_proc_keep_log(p);	/* a worker never finished: no empty log */
	het_wire_reader_free(p->rd);
	free(p->log_path);
	free(p->q);
	free(p);
}

void
het_procset_free(struct het_procset *set)
{
	size_t i;

	if (set == NULL)
		return;
	for (i = 0; i < set->n; i++)
		het_proc_destroy(set->procs[i]);
	free(set->procs);
	if (set->argv != NULL)
		for (i = 0; i < set->argc; i++)
			free(set->argv[i]);
	free(set->argv);
	free((char *)set->o.log_dir);
	free(set);
}

void
het_proc_free(struct het_proc *p)
{
	struct het_procset	*set;
	size_t			 i;

	if (p == NULL)
		return;
	set = p->set;
	for (i = 0; i < set->n; i++) {
		if (set->procs[i] == p) {
			memmove(&set->procs[i], &set->procs[i + 1],
			    (set->n - i - 1) * sizeof *set->procs);
			set->n--;
			break;
		}
	}
	het_proc_destroy(p);
}

int
het_proc_id(const struct het_proc *p)
{
	return p->id;
}

pid_t
het_proc_pid(const struct het_proc *p)
{
	return p->pid;
}

int
het_proc_done(const struct het_proc *p)
{
	return p->finished;
}

int
het_proc_hello_seen(const struct het_proc *p)
{
	return p->hello_seen;
}

int
het_proc_input_open(const struct het_proc *p)
{
	return p->in_fd != -1 && !p->closing;
}

void *
het_proc_tag(const struct het_proc *p)
{
	return p->tag;
}

void
het_proc_set_tag(struct het_proc *p, void *tag)
{
	p->tag = tag;
}

const char *
het_proc_log_path(const struct het_proc *p)
{
	return p->log_path;
}

static void
het_proc_close_in(struct het_proc *p)
{
	if (p->in_fd != -1)
		close(p->in_fd);
	p->in_fd = -1;
	p->qlen = p->qoff = 0;
}

/* Write as much queued input as the pipe takes. */
static void
het_proc_flush(struct het_proc *p)
{
	ssize_t n;

	while (p->in_fd != -1 && p->qoff < p->qlen) {
		n = write(p->in_fd, p->q + p->qoff, p->qlen - p->qoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == -1) {
			/* EPIPE: the worker is gone; reaping says why. */
			het_proc_close_in(p);
			return;
		}
		p->qoff += (size_t)n;
	}
	p->qlen = p->qoff = 0;
	if (p->closing)
		het_proc_close_in(p);
}

int
het_proc_send(struct het_proc *p, const char *buf, size_t len,
    struct het_error *err)
{
	size_t	 cap;
	char	*nq;

	if (p->in_fd == -1 || p->closing)
		return het_error_set(err, HET_EINVAL, "cannot send to worker "
		    "%d: its input is closed", p->id);
	if (p->qoff > 0 && p->qoff == p->qlen)
		p->qlen = p->qoff = 0;
	if (len > SIZE_MAX - p->qlen)
		return het_error_set(err, HET_ENOMEM, "worker %d input queue "
		    "overflow", p->id);
	if (p->qlen + len > p->qcap) {
		cap = p->qcap ? p->qcap : 4096;
		while (cap < p->qlen + len)
			cap = cap > SIZE_MAX / 2 ? p->qlen + len : cap * 2;
		if ((nq = realloc(p->q, cap)) == NULL)
			return het_error_set(err, HET_ENOMEM, "out of memory "
			    "queueing %zu bytes for worker %d", len, p->id);
		p->q = nq;
		p->qcap = cap;
	}
	memcpy(p->q + p->qlen, buf, len);
	p->qlen += len;
	het_proc_flush(p);
	return HET_OK;
}

int
het_proc_send_rec(struct het_proc *p, enum het_wire_type type,
    const json_t *payload, struct het_error *err)
{
	char	*line;
	size_t	 len;
	int	 rc;

	if (type == HET_WIRE_HELLO)
		return het_proc_send(p, het_wire_hello_line(),
		    strlen(het_wire_hello_line()), err);
	if ((rc = het_wire_encode(type, payload, &line, &len, err)) != HET_OK)
		return rc;
	rc = het_proc_send(p, line, len, err);
	free(line);
	return rc;
}

void
het_proc_close_stdin(struct het_proc *p)
{
	p->closing = 1;
	het_proc_flush(p);
}

void
het_proc_arm(struct het_proc *p, double now)
{
	p->armed = 1;
	p->shard_deadline = p->set->o.shard_timeout > 0 ?
	    now + p->set->o.shard_timeout : 0;
	p->hb_deadline = p->set->o.heartbeat_timeout > 0 ?
	    now + p->set->o.heartbeat_timeout : 0;
}

void
het_proc_kill(struct het_proc *p, double now, int code, const char *reason)
{
	if (p->finished)
		return;
	if (!p->failed) {
		p->failed = 1;
		het_error_set(&p->fail, code, "%s", reason);
	}
	p->armed = 0;
	p->closing = 1;
	het_proc_close_in(p);
	if (p->kill_stage == 0 && !p->reaped) {
		killpg(p->pid, SIGTERM);
		kill(p->pid, SIGTERM);
		p->kill_stage = 1;
		p->kill_deadline = now + p->set->o.kill_grace;
	}
}

int
het_procset_pollfds(struct het_procset *set, struct pollfd *fds, size_t cap,
    size_t *n)
{
	size_t		 i, k = 0;
	struct het_proc	*p;

	*n = 0;
	for (i = 0; i < set->n; i++) {
		p = set->procs[i];
		if (p->out_fd != -1) {
			if (k == cap)
				return HET_ERANGE;
			fds[k].fd = p->out_fd;
			fds[k].events = POLLIN;
			fds[k++].revents = 0;
		}
		if (p->in_fd != -1 && p->qoff < p->qlen) {
			if (k == cap)
				return HET_ERANGE;
			fds[k].fd = p->in_fd;
			fds[k].events = POLLOUT;
			fds[k++].revents = 0;
		}
	}
	*n = k;
	return HET_OK;
}

/* Apply one record to the worker's state, then pass it on. */
static void
het_proc_record(struct het_proc *p, struct het_wire_rec *rec, double now)
{
	struct het_wire_errinfo	 ei;
	struct het_error	 e;
	char			 msg[HET_ERROR_MSG_MAX + 64];

	if (p->armed && p->set->o.heartbeat_timeout > 0)
		p->hb_deadline = now + p->set->o.heartbeat_timeout;
	switch (rec->type) {
	case HET_WIRE_HELLO:
		p->hello_seen = 1;
		break;
	case HET_WIRE_RESULT:
		p->got_result = 1;
		p->armed = 0;
		break;
	case HET_WIRE_ERROR:
		if (het_wire_error_unpack(rec->payload, &ei, &e) != HET_OK) {
			snprintf(msg, sizeof msg, "line %zu: %s", rec->lineno,
			    e.msg);
			het_proc_kill(p, now, HET_EPROTO, msg);
			return;
		}
		if (!p->failed && (p->armed || ei.shard < 0)) {
			p->failed = 1;
			het_error_set(&p->fail, ei.code, "reported %s: %s",
			    het_status_name(ei.code), ei.msg);
		}
		p->armed = 0;
		break;
	case HET_WIRE_SHARD:
		snprintf(msg, sizeof msg, "line %zu: sent a shard record, "
		    "which only the coordinator sends", rec->lineno);
		het_proc_kill(p, now, HET_EPROTO, msg);
		return;
	default:
		break;
	}
	if (p->set->o.on_record != NULL)
		p->set->o.on_record(p, rec, p->set->o.arg);
}

/* Read what the worker wrote; dispatch records; notice EOF. */
static void
het_proc_read(struct het_proc *p, double now)
{
	struct het_wire_rec	rec;
	struct het_error	e;
	char			buf[65536];
	ssize_t			n;
	int			rounds, rc;

	for (rounds = 0; rounds < 16 && p->out_fd != -1; rounds++) {
		n = read(p->out_fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close(p->out_fd);
			p->out_fd = -1;
			p->out_eof = 1;
			if (!p->kill_stage &&
			    het_wire_reader_eof(p->rd, &p->trunc) != HET_OK)
				p->truncated = 1;
			if (p->reaped)
				het_proc_finish(p);
			return;
		}
		if (p->kill_stage)
			continue;	/* killed: drain and discard */
		rc = het_wire_reader_feed(p->rd, buf, (size_t)n, &e);
		while (rc == HET_OK) {
			rc = het_wire_reader_next(p->rd, &rec, &e);
			if (rc == HET_OK) {
				het_proc_record(p, &rec, now);
				het_wire_rec_clear(&rec);
				if (p->kill_stage)
					break;
			}
		}
		if (rc != HET_OK && rc != HET_CONTINUE && !p->kill_stage)
			het_proc_kill(p, now, rc, e.msg);
	}
}

int
het_procset_handle(struct het_procset *set, const struct pollfd *fds,
    size_t n, double now)
{
	struct het_proc	*p;
	size_t		 i, k;

	for (k = 0; k < n; k++) {
		if (fds[k].revents == 0)
			continue;
		for (i = 0; i < set->n; i++) {
			p = set->procs[i];
			if (fds[k].fd == p->in_fd && (fds[k].events & POLLOUT))
				het_proc_flush(p);
			else if (fds[k].fd == p->out_fd &&
			    (fds[k].events & POLLIN))
				het_proc_read(p, now);
			else
				continue;
			break;
		}
	}
	return HET_OK;
}

/*
 * A worker that wrote nothing to stderr leaves no empty log behind;
 * returns 1 when it wrote something this time (its log grew since the
 * spawn: logs are appended to across runs), worth pointing the user to.
 */
int
het_proc_keep_log(const struct het_proc *p)
{
	struct stat st;

	if (p->log_path == NULL || stat(p->log_path, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	if (st.st_size > p->log_start)
		return 1;
	if (st.st_size == 0)
		unlink(p->log_path);
	return 0;
}

/* Both EOF and status seen: decide the verdict and report it once. */
static void
het_proc_finish(struct het_proc *p)
{
	struct het_proc_exit	 ex;
	struct het_error	*r = &ex.reason;
	char			 hint[PATH_MAX + 32] = "";

	if (p->finished)
		return;
	p->finished = 1;
	memset(&ex, 0, sizeof ex);
	ex.exited = p->exited;
	ex.status = p->status;
	ex.signo = p->signo;
	ex.got_result = p->got_result;
	if (het_proc_keep_log(p))
		snprintf(hint, sizeof hint, " (its stderr is in %s)",
		    p->log_path);
	if (p->failed) {
		*r = p->fail;
		if (p->signo != 0)
			het_error_set(r, p->fail.code, "%s; it was then killed "
			    "by signal %d%s", p->fail.msg, p->signo, hint);
		else if (hint[0] != '\0')
			het_error_set(r, p->fail.code, "%s%s", p->fail.msg,
			    hint);
	} else if (!p->exited) {
		het_error_set(r, HET_EIO, "was killed by signal %d (%s)%s",
		    p->signo, strsignal(p->signo), hint);
	} else if (p->truncated) {
		*r = p->trunc;
	} else if (p->status != 0 && !p->got_result && !p->set->o.out_to_log) {
		het_error_set(r, HET_EIO, "exited with status %d before "
		    "sending a result%s", p->status, hint);
	} else if (p->status != 0) {
		het_error_set(r, HET_EIO, "exited with status %d%s",
		    p->status, hint);
	} else if (p->armed) {
		het_error_set(r, HET_EIO, "exited with status 0 before "
		    "sending a result%s", hint);
	} else
		ex.ok = 1;
	if (!ex.ok)
		het_error_prefix(r, "worker %d (pid %ld)", p->id, (long)p->pid);
	p->armed = 0;
	if (p->set->o.on_done != NULL)
		p->set->o.on_done(p, &ex, p->set->o.arg);
}

int
het_procset_reap(struct het_procset *set, double now)
{
	struct het_proc	*p;
	siginfo_t	 si;
	size_t		 i;
	int		 st = 0, nfin = 0;

	for (i = 0; i < set->n; i++) {
		p = set->procs[i];
		if (p->reaped)
			continue;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG |
		    WNOWAIT) == -1 || si.si_pid != p->pid)
			continue;
		/*
		 * The dead leader still pins the group id: sweep the rest
		 * of its group (children of a wrapper) before reaping.
		 */
		killpg(p->pid, SIGKILL);
		while (waitpid(p->pid, &st, 0) == -1 && errno == EINTR)
			;
		p->reaped = 1;
		if (WIFEXITED(st)) {
			p->exited = 1;
			p->status = WEXITSTATUS(st);
		} else if (WIFSIGNALED(st))
			p->signo = WTERMSIG(st);
		het_proc_close_in(p);
		if (p->out_fd != -1)
			het_proc_read(p, now);	/* pick up the last records */
		if (p->out_eof) {
			het_proc_finish(p);
			nfin++;
		}
	}
	return nfin;
}

int
het_procset_check_timeouts(struct het_procset *set, double now)
{
	struct het_proc	*p;
	size_t		 i;
	int		 acted = 0;
	char		 msg[160];

	for (i = 0; i < set->n; i++) {
		p = set->procs[i];
		if (p->finished)
			continue;
		if (p->kill_stage == 1 && now >= p->kill_deadline &&
		    !p->reaped) {
			killpg(p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			p->kill_stage = 2;
			acted++;
			continue;
		}
		if (!p->armed || p->kill_stage)
			continue;
		if (p->shard_deadline > 0 && now >= p->shard_deadline) {
			snprintf(msg, sizeof msg, "shard timeout: no result "
			    "within %g s", p->set->o.shard_timeout);
			het_proc_kill(p, now, HET_EIO, msg);
			acted++;
		} else if (p->hb_deadline > 0 && now >= p->hb_deadline) {
			snprintf(msg, sizeof msg, "heartbeat timeout: silent "
			    "for %g s", p->set->o.heartbeat_timeout);
			het_proc_kill(p, now, HET_EIO, msg);
			acted++;
		}
	}
	return acted;
}

double
het_procset_next_deadline(const struct het_procset *set)
{
	const struct het_proc	*p;
	double			 d = -1, t;
	size_t			 i;
	int			 k;

	for (i = 0; i < set->n; i++) {
		p = set->procs[i];
		if (p->finished)
			continue;
		for (k = 0; k < 3; k++) {
			t = k == 0 ? (p->kill_stage == 1 ? p->kill_deadline : 0) :
			    !p->armed || p->kill_stage ? 0 :
			    k == 1 ? p->shard_deadline : p->hb_deadline;
			if (t > 0 && (d < 0 || t < d))
				d = t;
		}
	}
	return d;
}

void
het_procset_step(struct het_procset *set, const struct pollfd *fds,
    size_t n, double now)
{
	het_procset_handle(set, fds, n, now);
	het_procset_reap(set, now);
	het_procset_check_timeouts(set, now);
}

double
het_procset_wake(const struct het_procset *set, double now, double tick)
{
	double d = het_procset_next_deadline(set);

	return d > 0 && d < now + tick ? d : now + tick;
}

size_t
het_procset_running(const struct het_procset *set)
{
	size_t i, n = 0;

	for (i = 0; i < set->n; i++)
		if (!set->procs[i]->finished)
			n++;
	return n;
}

/* The set as a het_loop source for the waits below. */
struct procset_wait {
	struct het_procset	*set;
	double			 until;
};

static size_t
procset_wait_fds(void *obj, struct pollfd *fds, size_t cap)
{
	struct procset_wait *pw = obj;
	size_t n = 0;

	return het_procset_pollfds(pw->set, fds, cap, &n) == HET_OK ? n : 0;
}

static double
procset_wait_deadline(void *obj)
{
	return ((struct procset_wait *)obj)->until;
}

static void
procset_wait_handle(void *obj, const struct pollfd *fds, size_t n,
    double now)
{
	struct procset_wait *pw = obj;

	het_procset_handle(pw->set, fds, n, now);
	het_procset_reap(pw->set, now);
}

/* One turn of a private loop, sleeping at most ms. */
static void
het_procset_turn(struct het_procset *set, int ms)
{
	struct procset_wait pw = { set, het_clock_now() + ms / 1000.0 };
	struct het_loop_source src = { &pw, set->n * 2 + 1, procset_wait_fds,
	    procset_wait_deadline, procset_wait_handle };
	struct het_loop loop;

	if (het_loop_init(&loop, &src, 1, NULL) != HET_OK) {
		poll(NULL, 0, ms);
		het_procset_reap(set, het_clock_now());
		return;
	}
	(void)het_loop_once(&loop);
	het_loop_fini(&loop);
}

void
het_procset_shutdown_all(struct het_procset *set, double wait)
{
	struct het_proc	*p;
	double		 now = het_clock_now(), end = now + wait;
	size_t		 i;

	for (i = 0; i < set->n; i++)
		het_proc_close_stdin(set->procs[i]);
	while (het_procset_running(set) > 0 && (now = het_clock_now()) < end)
		het_procset_turn(set, 20);
	for (i = 0; i < set->n; i++) {
		p = set->procs[i];
		if (!p->finished)
			het_proc_kill(p, now, HET_ECANCEL, "did not exit when "
			    "its input closed at shutdown");
	}
	end = now + set->o.kill_grace;
	while (het_procset_running(set) > 0 && (now = het_clock_now()) < end)
		het_procset_turn(set, 20);
	for (i = 0; i < set->n; i++) {
		p = set->procs[i];
		if (p->finished)
			continue;
		het_proc_force(p);
		het_proc_finish(p);
	}
}
