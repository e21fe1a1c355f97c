#include "config.h"

/*
 * het_cmc.c: the CMC coordinator (het_cmc.h has the rules).
 *
 * Design: one het_procset holds the workers; each worker carries a
 * struct cworker as its tag (the shard it runs, whether it ever ran
 * one).  Record and done callbacks only change state; finished workers
 * are freed and new ones spawned afterwards in dispatch(), outside the
 * callbacks, as het_proc requires.  Shards are an array in queue order;
 * dispatch scans it for the first QUEUED shard (any worker) or
 * RETRYING shard (a worker that never ran a shard), so retries go to
 * fresh workers and an idle worker with nothing it may take is closed
 * to make room for one.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_cmc.h"
#include "het_config.h"
#include "het_loop.h"
#include "het_pool.h"
#include "het_proc.h"

struct cworker {
	struct het_proc	*p;
	long		 cur;		/* shard index, -1 idle */
	int		 used;		/* ever got a shard */
	int		 closed;	/* stdin closed */
};

struct het_cmc {
	struct het_cmc_opts	 o;
	struct het_procset	*set;
	struct het_cmc_shard	*sh;
	json_t			**payload;
	size_t			 n, cap;
	struct cworker		**w;	/* live workers */
	size_t			 nw, wcap, max_workers;
	size_t			 spawned;
	int			 started, cancelled, aborted;
	size_t			 nreused;	/* het_cmc_add_done */
	size_t			 nfinal, nfinal_failed; /* first min(10,K) */
	char			 abort_msg[HET_ERROR_MSG_MAX];
	int			 spawn_failed;
	struct het_error	 spawn_err;
};

static const char *const state_names[] = {
	"queued", "running", "retrying", "done", "failed", "cancelled"
};

const char *
het_cmc_state_name(enum het_cmc_state st)
{
	if ((int)st < 0 || st > HET_CMC_CANCELLED)
		return "?";
	return state_names[st];
}

static void
changed(struct het_cmc *c, size_t i)
{
	if (c->o.on_change != NULL)
		c->o.on_change(c, i, c->o.arg);
}

static void
cancel_rest(struct het_cmc *c, double now, const char *why);

/*
 * A shard reached DONE or FAILED: early-abort bookkeeping over the
 * first min(10, K) shards to finish (reused results are the first
 * successes, counted at het_cmc_start).
 */
static void
final(struct het_cmc *c, int failed, double now)
{
	size_t	n0 = c->n < 10 ? c->n : 10;

	if (c->nfinal >= n0)
		return;
	c->nfinal++;
	c->nfinal_failed += failed != 0;
	if (!c->aborted && !c->cancelled && 2 * c->nfinal_failed > n0) {
		c->aborted = 1;
		snprintf(c->abort_msg, sizeof c->abort_msg, "early abort: "
		    "%zu of the first %zu shards failed (more than half)",
		    c->nfinal_failed, n0);
		cancel_rest(c, now, c->abort_msg);
	}
}

/* The current attempt of shard i failed with reason msg. */
static void
attempt_failed(struct het_cmc *c, size_t i, const char *msg, double now)
{
	struct het_cmc_shard	*s = &c->sh[i];

	if (s->state != HET_CMC_RUNNING)
		return;
	s->elapsed = now - s->t_start;
	if (s->nreasons < HET_CMC_MAX_ATTEMPTS)
		snprintf(s->reason[s->nreasons++], HET_ERROR_MSG_MAX, "%.1000s",
		    msg);
	s->pid = 0;
	if (c->cancelled || c->aborted)
		s->state = HET_CMC_CANCELLED;
	else if (s->attempts < HET_CMC_MAX_ATTEMPTS)
		s->state = HET_CMC_RETRYING;
	else {
		s->state = HET_CMC_FAILED;
		final(c, 1, now);
	}
	changed(c, i);
}

static void
on_record(struct het_proc *p, const struct het_wire_rec *rec, void *arg)
{
	struct het_cmc		*c = arg;
	struct cworker		*w = het_proc_tag(p);
	struct het_cmc_shard	*s;
	struct het_wire_progress pr;
	struct het_wire_errinfo	 ei;
	struct het_error	 err;
	char			 msg[HET_ERROR_MSG_MAX + 64];
	double			 now = het_clock_now();
	long			 id;

	if (w == NULL || w->cur < 0)
		return;
	s = &c->sh[w->cur];
	switch (rec->type) {
	case HET_WIRE_PROGRESS:
		if (het_wire_progress_unpack(rec->payload, &pr, NULL) ==
		    HET_OK && pr.shard == s->id) {
			s->progress = pr;
			s->has_progress = 1;
			s->elapsed = now - s->t_start;
			changed(c, (size_t)w->cur);
		}
		break;
	case HET_WIRE_RESULT:
		if (het_wire_get_shard_id(rec->payload, &id, NULL) != HET_OK ||
		    id != s->id) {
			snprintf(msg, sizeof msg, "line %zu: sent a result for "
			    "shard %ld while running shard %ld", rec->lineno,
			    id, s->id);
			w->closed = 1;
			het_proc_kill(p, now, HET_EPROTO, msg);
			return;
		}
		if (c->o.check_result != NULL && c->o.check_result(
		    rec->payload, s->id, c->o.arg, &err) != HET_OK) {
			/*
			 * A result that cannot be used is a failed attempt
			 * (retried on a fresh worker), never a done shard
			 * that breaks the checkpoint and the combination.
			 */
			snprintf(msg, sizeof msg, "worker %d (pid %ld) sent "
			    "an unusable result (line %zu): %s", het_proc_id(p),
			    (long)het_proc_pid(p), rec->lineno, err.msg);
			w->cur = -1;
			w->closed = 1;
			attempt_failed(c, (size_t)(s - c->sh), msg, now);
			het_proc_kill(p, now, HET_EPROTO, msg);
			return;
		}
		s->result = json_incref(rec->payload);
		s->state = HET_CMC_DONE;
		s->elapsed = now - s->t_start;
		s->pid = 0;
		w->cur = -1;
		final(c, 0, now);
		changed(c, (size_t)(s - c->sh));
		break;
	case HET_WIRE_ERROR:
		if (het_wire_error_unpack(rec->payload, &ei, NULL) != HET_OK)
			return;		/* het_proc killed it already */
		snprintf(msg, sizeof msg, "worker %d (pid %ld) reported %s: "
		    "%s", het_proc_id(p), (long)het_proc_pid(p),
		    het_status_name(ei.code), ei.msg);
		w->cur = -1;
		w->closed = 1;		/* never reuse a failed worker */
		attempt_failed(c, (size_t)(s - c->sh), msg, now);
		het_proc_kill(p, now, ei.code, msg);
		break;
	default:
		break;
	}
}

static void
on_done(struct het_proc *p, const struct het_proc_exit *ex, void *arg)
{
	struct het_cmc	*c = arg;
	struct cworker	*w = het_proc_tag(p);
	long		 i;

	if (w == NULL || (i = w->cur) < 0)
		return;
	w->cur = -1;
	attempt_failed(c, (size_t)i, ex->ok ? "worker exited without a "
	    "result" : ex->reason.msg, het_clock_now());
}

void
het_cmc_opts_from_cmc(const struct het_config_cmc *cmc,
    struct het_cmc_opts *o)
{
	o->shard_timeout = cmc->per_shard_timeout;
	o->heartbeat_timeout = cmc->heartbeat_timeout;
	o->min_success_rate = cmc->min_success_rate;
}

char **
het_cmc_split_command(const char *cmd, struct het_error *err)
{
	size_t	 n = 0, len, i;
	char	**argv, *buf, *q;
	int	 in = 0;

	len = cmd != NULL ? strlen(cmd) : 0;
	for (i = 0; i < len; i++) {
		if (cmd[i] != ' ' && cmd[i] != '\t' && !in)
			n++;
		in = cmd[i] != ' ' && cmd[i] != '\t';
	}
	if (n == 0) {
		het_error_set(err, HET_EINVAL, "optimization.cmc."
		    "worker_command is empty; give a command such as "
		    "\"srun -n1 hetui-worker\" or leave it unset");
		return NULL;
	}
	if ((argv = malloc((n + 1) * sizeof *argv + len + 1)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for the worker "
		    "command");
		return NULL;
	}
	buf = (char *)(argv + n + 1);
	memcpy(buf, cmd, len + 1);
	for (n = 0, q = buf; *q != '\0'; ) {
		while (*q == ' ' || *q == '\t')
			*q++ = '\0';
		if (*q == '\0')
			break;
		argv[n++] = q;
		while (*q != '\0' && *q != ' ' && *q != '\t')
			q++;
	}
	argv[n] = NULL;
	return argv;
}

struct het_cmc *
het_cmc_alloc(const struct het_cmc_opts *opts, struct het_error *err)
{
	struct het_cmc		*c;
	struct het_proc_opts	 po;

	if (opts->min_success_rate < 0 || opts->min_success_rate > 1) {
		het_error_set(err, HET_EINVAL, "optimization.cmc."
		    "min_success_rate is %g; it must be between 0 and 1",
		    opts->min_success_rate);
		return NULL;
	}
	if ((c = calloc(1, sizeof *c)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for the CMC "
		    "coordinator");
		return NULL;
	}
	c->o = *opts;
	c->max_workers = opts->max_workers;
	if (c->max_workers == 0)
		c->max_workers = (size_t)het_pool_ncpu();
	memset(&po, 0, sizeof po);
	po.argv = opts->argv;
	po.worker_path = opts->worker_path;
	po.log_dir = opts->log_dir;
	po.shard_timeout = opts->shard_timeout;
	po.heartbeat_timeout = opts->heartbeat_timeout;
	po.kill_grace = opts->kill_grace;
	po.on_record = on_record;
	po.on_done = on_done;
	po.arg = c;
	if ((c->set = het_procset_alloc(&po, err)) == NULL) {
		free(c);
		return NULL;
	}
	return c;
}

void
het_cmc_free(struct het_cmc *c)
{
	size_t	i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nw; i++)
		het_proc_set_tag(c->w[i]->p, NULL);
	het_procset_free(c->set);
	for (i = 0; i < c->nw; i++)
		free(c->w[i]);
	free(c->w);
	for (i = 0; i < c->n; i++) {
		json_decref(c->payload[i]);
		json_decref(c->sh[i].result);
	}
	free(c->payload);
	free(c->sh);
	free(c);
}

/*
 * A new shard entry for id (queued, zeroed) with payload or result into
 * *out; payload and result are consumed even on error.
 */
static int
add_entry(struct het_cmc *c, long id, size_t npairs, json_t *payload,
    json_t *result, struct het_cmc_shard **out, struct het_error *err)
{
	size_t			 i;
	struct het_cmc_shard	*ns;
	json_t			**np;
	const char		*why = NULL;
	int			 code = HET_EINVAL;

	if (c->started)
		why = "the run has started";
	else if (id < 0)
		why = "negative id";
	else if (payload != NULL ? !json_is_object(payload) :
	    !json_is_object(result))
		why = payload != NULL ? "its payload is not a JSON object" :
		    "its result is not a JSON object";
	for (i = 0; why == NULL && i < c->n; i++)
		if (c->sh[i].id == id)
			why = "it is queued twice";
	if (why == NULL && c->n == c->cap) {
		size_t	cap = c->cap ? 2 * c->cap : 16;

		ns = realloc(c->sh, cap * sizeof *ns);
		if (ns != NULL)
			c->sh = ns;
		np = realloc(c->payload, cap * sizeof *np);
		if (np != NULL)
			c->payload = np;
		if (ns == NULL || np == NULL) {
			why = "out of memory";
			code = HET_ENOMEM;
		} else
			c->cap = cap;
	}
	if (why == NULL && payload != NULL &&
	    json_object_set_new(payload, "shard", json_integer(id)) != 0) {
		why = "out of memory";
		code = HET_ENOMEM;
	}
	if (why != NULL) {
		json_decref(payload);
		json_decref(result);
		return het_error_set(err, code, "cannot queue shard %ld: %s",
		    id, why);
	}
	memset(&c->sh[c->n], 0, sizeof c->sh[c->n]);
	c->sh[c->n].id = id;
	c->sh[c->n].npairs = npairs;
	c->sh[c->n].result = result;
	c->payload[c->n] = payload;
	*out = &c->sh[c->n++];
	return HET_OK;
}

int
het_cmc_add(struct het_cmc *c, long id, size_t npairs, json_t *payload,
    struct het_error *err)
{
	struct het_cmc_shard *s;

	if (payload == NULL)
		return het_error_set(err, HET_EINVAL, "cannot queue shard %ld: "
		    "it has no payload", id);
	return add_entry(c, id, npairs, payload, NULL, &s, err);
}

int
het_cmc_add_done(struct het_cmc *c, long id, size_t npairs, json_t *result,
    double elapsed, struct het_error *err)
{
	struct het_cmc_shard *s;
	int rc;

	if (result == NULL)
		return het_error_set(err, HET_EINVAL, "cannot add shard %ld: "
		    "it has no result", id);
	if ((rc = add_entry(c, id, npairs, NULL, result, &s, err)) != HET_OK)
		return rc;
	s->state = HET_CMC_DONE;
	s->reused = 1;
	s->elapsed = elapsed;
	c->nreused++;
	return HET_OK;
}

/* Send shard i to worker w. */
static void
give(struct het_cmc *c, struct cworker *w, size_t i, double now)
{
	struct het_cmc_shard	*s = &c->sh[i];
	struct het_error	 e;

	w->cur = (long)i;
	w->used = 1;
	s->state = HET_CMC_RUNNING;
	s->attempts++;
	s->t_start = now;
	s->elapsed = 0;
	s->has_progress = 0;
	s->pid = het_proc_pid(w->p);
	if (!het_proc_input_open(w->p)) {
		/*
		 * A write found the pipe broken: the worker has exited or is
		 * exiting.  Its reaping fails the attempt with how it ended
		 * (on_done); the timers catch one that lingers.
		 */
		w->closed = 1;
		het_proc_arm(w->p, now);
		changed(c, i);
		return;
	}
	if (het_proc_send_rec(w->p, HET_WIRE_SHARD, c->payload[i], &e) !=
	    HET_OK) {
		w->cur = -1;
		w->closed = 1;
		attempt_failed(c, i, e.msg, now);
		het_proc_kill(w->p, now, e.code, e.msg);
		return;
	}
	het_proc_arm(w->p, now);
	changed(c, i);
}

/* The first shard w may take, or -1. */
static long
eligible(const struct het_cmc *c, const struct cworker *w)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		if (c->sh[i].state == HET_CMC_QUEUED ||
		    (c->sh[i].state == HET_CMC_RETRYING && !w->used))
			return (long)i;
	return -1;
}

static int
pending(const struct het_cmc *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		if (c->sh[i].state == HET_CMC_QUEUED ||
		    c->sh[i].state == HET_CMC_RETRYING)
			return 1;
	return 0;
}

/* Free finished workers, feed idle ones, close useless ones, spawn. */
static void
dispatch(struct het_cmc *c, double now)
{
	struct cworker	*w;
	size_t		 k, npend;
	long		 i;

	for (k = 0; k < c->nw; ) {
		w = c->w[k];
		if (het_proc_done(w->p)) {
			het_proc_free(w->p);
			free(w);
			c->w[k] = c->w[--c->nw];
			continue;
		}
		if (w->cur < 0 && !w->closed) {
			if (!c->cancelled && !c->aborted &&
			    (i = eligible(c, w)) >= 0)
				give(c, w, (size_t)i, now);
			else {
				het_proc_close_stdin(w->p);
				w->closed = 1;
			}
		}
		k++;
	}
	if (c->cancelled || c->aborted || c->spawn_failed)
		return;
	for (npend = 0, k = 0; k < c->n; k++)
		npend += c->sh[k].state == HET_CMC_QUEUED ||
		    c->sh[k].state == HET_CMC_RETRYING;
	while (npend > 0 && c->nw < c->max_workers) {
		if (c->nw == c->wcap) {
			size_t		 cap = c->wcap ? 2 * c->wcap : 8;
			struct cworker	**nw = realloc(c->w, cap * sizeof *nw);

			if (nw == NULL)
				return;
			c->w = nw;
			c->wcap = cap;
		}
		if ((w = calloc(1, sizeof *w)) == NULL)
			return;
		w->cur = -1;
		w->p = het_proc_spawn(c->set, (int)c->spawned, now,
		    &c->spawn_err);
		if (w->p == NULL) {
			free(w);
			c->spawn_failed = 1;
			cancel_rest(c, now, c->spawn_err.msg);
			return;
		}
		c->spawned++;
		het_proc_set_tag(w->p, w);
		het_proc_send(w->p, het_wire_hello_line(),
		    strlen(het_wire_hello_line()), NULL);
		c->w[c->nw++] = w;
		if ((i = eligible(c, w)) >= 0)
			give(c, w, (size_t)i, now);
		npend--;
	}
}

int
het_cmc_start(struct het_cmc *c, double now, struct het_error *err)
{
	size_t	i, j;

	if (c->started || c->n == 0)
		return het_error_set(err, HET_EINVAL, c->started ? "the CMC "
		    "run was started twice" : "no shards to run");
	/* Stable insertion sort, largest first. */
	for (i = 1; i < c->n; i++) {
		struct het_cmc_shard	 s = c->sh[i];
		json_t			*p = c->payload[i];

		for (j = i; j > 0 && c->sh[j - 1].npairs < s.npairs; j--) {
			c->sh[j] = c->sh[j - 1];
			c->payload[j] = c->payload[j - 1];
		}
		c->sh[j] = s;
		c->payload[j] = p;
	}
	c->started = 1;
	/* reused shards finished first, successfully */
	c->nfinal = c->nreused < 10 ? c->nreused : 10;
	dispatch(c, now);
	if (c->spawn_failed) {
		if (err != NULL)
			*err = c->spawn_err;
		return c->spawn_err.code;
	}
	return HET_OK;
}

int
het_cmc_pollfds(struct het_cmc *c, struct pollfd *fds, size_t cap,
    size_t *n)
{
	return het_procset_pollfds(c->set, fds, cap, n);
}

void
het_cmc_handle(struct het_cmc *c, const struct pollfd *fds, size_t n,
    double now)
{
	if (n > 0)
		het_procset_handle(c->set, fds, n, now);
	het_procset_reap(c->set, now);
	het_procset_check_timeouts(c->set, now);
	if (c->started)
		dispatch(c, now);
}

double
het_cmc_next_deadline(const struct het_cmc *c)
{
	return het_procset_next_deadline(c->set);
}

int
het_cmc_finished(const struct het_cmc *c)
{
	return c->started && !pending(c) && het_cmc_count(c,
	    HET_CMC_RUNNING) == 0 && het_procset_running(c->set) == 0;
}

static void
cancel_rest(struct het_cmc *c, double now, const char *why)
{
	size_t	i, k;
	char	msg[HET_ERROR_MSG_MAX];

	snprintf(msg, sizeof msg, "cancelled: %.1000s", why);
	for (i = 0; i < c->n; i++) {
		struct het_cmc_shard	*s = &c->sh[i];

		if (s->state == HET_CMC_QUEUED || s->state ==
		    HET_CMC_RETRYING || s->state == HET_CMC_RUNNING) {
			if (s->state == HET_CMC_RUNNING)
				s->elapsed = now - s->t_start;
			s->state = HET_CMC_CANCELLED;
			s->pid = 0;
			if (s->nreasons < HET_CMC_MAX_ATTEMPTS)
				snprintf(s->reason[s->nreasons++],
				    HET_ERROR_MSG_MAX, "%s", msg);
			changed(c, i);
		}
	}
	for (k = 0; k < c->nw; k++) {
		c->w[k]->cur = -1;
		c->w[k]->closed = 1;
		het_proc_kill(c->w[k]->p, now, HET_ECANCEL, msg);
	}
}

void
het_cmc_cancel(struct het_cmc *c, double now, const char *why)
{
	if (c->cancelled)
		return;
	c->cancelled = 1;
	cancel_rest(c, now, why != NULL ? why : "on request");
}

/* The coordinator as a het_loop source (het_cmc_run). */
static size_t
cmc_loop_fds(void *obj, struct pollfd *fds, size_t cap)
{
	size_t n = 0;

	if (het_cmc_pollfds(obj, fds, cap, &n) != HET_OK)
		return 0;
	return n;
}

static double
cmc_loop_deadline(void *obj)
{
	/* Reap at least every 0.1 s. */
	return het_loop_earlier(het_cmc_next_deadline(obj), het_clock_now() +
	    0.1);
}

static void
cmc_loop_handle(void *obj, const struct pollfd *fds, size_t n, double now)
{
	het_cmc_handle(obj, fds, n, now);
}

int
het_cmc_run(struct het_cmc *c, struct het_error *err)
{
	struct het_loop_source src = { c, 2 * c->max_workers + 2,
	    cmc_loop_fds, cmc_loop_deadline, cmc_loop_handle };
	struct het_loop loop;
	int rc;

	if ((rc = het_loop_init(&loop, &src, 1, err)) != HET_OK)
		return rc;
	if (!c->started && het_cmc_start(c, het_clock_now(), err) != HET_OK) {
		het_loop_fini(&loop);
		het_procset_shutdown_all(c->set, 1.0);
		return err != NULL ? err->code : HET_EIO;
	}
	while (!het_cmc_finished(c))
		(void)het_loop_once(&loop);
	het_loop_fini(&loop);
	return het_cmc_status(c, err);
}

int
het_cmc_status(const struct het_cmc *c, struct het_error *err)
{
	size_t	ndone = het_cmc_count(c, HET_CMC_DONE), i;
	double	rate = c->n > 0 ? (double)ndone / (double)c->n : 0.0;
	char	buf[HET_ERROR_MSG_MAX];
	size_t	len;
	int	code, r;

	if (c->cancelled)
		code = HET_ECANCEL;
	else if (c->aborted || c->spawn_failed ||
	    rate < c->o.min_success_rate || ndone == 0)
		code = c->spawn_failed ? c->spawn_err.code : HET_EDATA;
	else
		return het_error_set(err, HET_OK, "%s", "");
	len = (size_t)snprintf(buf, sizeof buf, "%zu of %zu shards "
	    "succeeded (rate %.3g, min_success_rate %.3g)%s%s.", ndone, c->n,
	    rate, c->o.min_success_rate, c->aborted ? "; " : "",
	    c->aborted ? c->abort_msg : "");
	for (i = 0; i < c->n && len < sizeof buf; i++) {
		const struct het_cmc_shard	*s = &c->sh[i];

		if (s->state != HET_CMC_FAILED)
			continue;
		for (r = 0; r < s->nreasons && len < sizeof buf; r++)
			len += (size_t)snprintf(buf + len, sizeof buf - len,
			    " Shard %ld attempt %d: %s.", s->id, r + 1,
			    s->reason[r]);
	}
	return het_error_set(err, code, "%s", buf);
}

size_t
het_cmc_nshards(const struct het_cmc *c)
{
	return c->n;
}

const struct het_cmc_shard *
het_cmc_shard(const struct het_cmc *c, size_t index)
{
	return index < c->n ? &c->sh[index] : NULL;
}

size_t
het_cmc_count(const struct het_cmc *c, enum het_cmc_state st)
{
	size_t	i, k = 0;

	for (i = 0; i < c->n; i++)
		k += c->sh[i].state == st;
	return k;
}

double
het_cmc_shard_progress(const struct het_cmc_shard *sh, long nchains,
    long per_chain)
{
	double	f;

	if (!sh->has_progress || nchains < 1 || per_chain < 1)
		return 0;
	if (sh->progress.at_once)
		return sh->progress.done;
	f = ((double)sh->progress.chain * (double)per_chain +
	    (double)sh->progress.iteration) / ((double)nchains *
	    (double)per_chain);
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

double
het_cmc_work_done(const struct het_cmc *c, long nchains, long per_chain)
{
	const struct het_cmc_shard	*sh;
	double				 w = 0, all = 0;
	size_t				 i;

	if (nchains < 1 || per_chain < 1)
		return 0;
	for (i = 0; i < c->n; i++) {
		sh = &c->sh[i];
		if (sh->reused)
			continue;	/* not work of this run */
		all += (double)sh->npairs;
		if (sh->state == HET_CMC_DONE || sh->state == HET_CMC_FAILED ||
		    sh->state == HET_CMC_CANCELLED)
			w += (double)sh->npairs;
		else if (sh->state == HET_CMC_RUNNING)
			w += (double)sh->npairs *
			    het_cmc_shard_progress(sh, nchains, per_chain);
	}
	return all > 0 ? w / all : 0;
}

int
het_cmc_aborted(const struct het_cmc *c)
{
	return c->aborted;
}

size_t
het_cmc_workers_spawned(const struct het_cmc *c)
{
	return c->spawned;
}
