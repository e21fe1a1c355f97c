/*
 * hetui_worker.c: the sampling worker process.  It speaks only over
 * stdin/stdout (so `ssh HOST hetui-worker` and `srun -n1 hetui-worker`
 * work unchanged) and never links ncurses.
 *
 * Design: the wire protocol of docs/wire-protocol.md.  The worker greets
 * first ("hello hetui-wire 1"), then reads records with the incremental
 * het_wire reader: the coordinator's hello, shards, and bye.  Standard
 * input closing means "shut down now" (srun turns SIGTERM into SIGKILL of
 * the task, so EOF is the only graceful signal that reaches us): the
 * worker exits 0.  A protocol violation is answered with an error record
 * and exit status 2.  Every record written ends in a newline and is
 * flushed at once, because srun forwards a partial line only at EOF or a
 * 1 KiB boundary.  While a shard is being worked on, a heartbeat goes out
 * at least every HET_WORKER_HEARTBEAT seconds.
 *
 * A shard (het_wire_shard.h) is decoded, its posterior built and its
 * chains run on this thread (het_shard_run), or, with chain_threads > 1,
 * up to that many at once on threads, each with its own posterior of the
 * shard (het_shard_run_chain; the same draws bit for bit; the callbacks
 * share the worker's state and stdout under a mutex, and progress then
 * shows the chain furthest behind with the share done).  After every transition the
 * progress callback sends a progress record (at most one per
 * HET_WORKER_PROGRESS seconds, plus the first and last transition of
 * each chain), a heartbeat when one is due, and reads its input without
 * blocking (first the records already in the reader, which came in the
 * same read as the shard, then standard input): EOF or a bye stops the
 * run and the worker exits 0; a second shard while one runs, or garbage,
 * is a protocol error.  The shard ends in a
 * result record, or an error record with the shard id (a shard that
 * cannot be decoded or built, or a sampler failure); either way the
 * worker stays ready for the next shard.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_h5.h"
#include "het_loop.h"
#include "het_proc.h"
#include "het_thread.h"
#include "het_wire.h"
#include "het_wire_shard.h"

#define HET_WORKER_HEARTBEAT	1.0	/* seconds between heartbeats */
#define HET_WORKER_PROGRESS	0.1	/* seconds between progress records */

struct worker {
	long	shard;		/* shard being worked on, or -1 */
	double	next_beat;	/* when the next heartbeat is due */
	double	next_prog;	/* when the next progress record is due */
	struct het_wire_reader *rd;
	int	stop;		/* 0, 1: exit 0 (EOF, bye), -1: exit 2 */
};

/* Write one record and flush; a write error means the coordinator left. */
static int
worker_send(enum het_wire_type type, json_t *payload)
{
	char			*line;
	size_t			 len;
	struct het_error	 err;
	int			 rc;

	rc = het_wire_encode(type, payload, &line, &len, &err);
	json_decref(payload);
	if (rc != HET_OK) {
		fprintf(stderr, "hetui-worker: %s\n", err.msg);
		return -1;
	}
	rc = fwrite(line, 1, len, stdout) == len && fflush(stdout) == 0 ?
	    0 : -1;
	free(line);
	return rc;
}

static int
worker_send_error(long shard, int code, const char *msg)
{
	struct het_wire_errinfo ei;

	memset(&ei, 0, sizeof ei);
	ei.shard = shard;
	ei.code = code;
	snprintf(ei.msg, sizeof ei.msg, "%s", msg);
	return worker_send(HET_WIRE_ERROR, het_wire_error_pack(&ei));
}

/* Called from the loop, and later from the sampler between iterations. */
static int
worker_heartbeat(struct worker *w, double now)
{
	if (w->shard < 0 || now < w->next_beat)
		return 0;
	w->next_beat = now + HET_WORKER_HEARTBEAT;
	return worker_send(HET_WIRE_HEARTBEAT,
	    het_wire_heartbeat_pack(w->shard));
}

static int worker_record(struct worker *, const struct het_wire_rec *);

/*
 * Read what the coordinator sent while a shard runs, without blocking.
 * Returns 0 to go on, non-zero when the run must stop (w->stop says how
 * the worker ends).
 */
/*
 * Act on every complete record the reader holds (rc: the status of the
 * feed before, HET_OK when there was none).  Returns 0 to go on, non-zero
 * when the run must stop (w->stop says how the worker ends).
 */
static int
worker_drain(struct worker *w, int rc, struct het_error *err)
{
	struct het_wire_rec	rec;
	int			act;

	while (rc == HET_OK) {
		if ((rc = het_wire_reader_next(w->rd, &rec, err)) != HET_OK)
			break;
		act = worker_record(w, &rec);
		het_wire_rec_clear(&rec);
		if (act != 0) {
			w->stop = act > 0 ? 1 : -1;
			return 1;
		}
	}
	if (rc != HET_CONTINUE) {
		worker_send_error(-1, rc, err->msg);
		w->stop = -1;
		return 1;
	}
	return 0;
}

static int
worker_poll_input(struct worker *w)
{
	struct het_error	err;
	struct pollfd		pfd;
	char			buf[65536];
	ssize_t			n;

	/*
	 * Records that came in the same read as the running shard (a bye,
	 * a second shard, garbage) wait in the reader, where poll() cannot
	 * see them: act on them first.
	 */
	if (het_wire_reader_pending(w->rd) > 0 && worker_drain(w, HET_OK,
	    &err) != 0)
		return 1;
	pfd.fd = STDIN_FILENO;
	pfd.events = POLLIN;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) <= 0 || pfd.revents == 0)
		return 0;
	n = read(STDIN_FILENO, buf, sizeof buf);
	if (n == -1 && errno == EINTR)
		return 0;
	if (n <= 0) {
		w->stop = 1;	/* EOF: shut down now */
		return 1;
	}
	return worker_drain(w, het_wire_reader_feed(w->rd, buf, (size_t)n,
	    &err), &err);
}

/* A progress record from a chain's latest state. */
static void
worker_wp(const struct het_shard_progress *pr, struct het_wire_progress *wp)
{
	memset(wp, 0, sizeof *wp);
	wp->shard = pr->shard;
	snprintf(wp->phase, sizeof wp->phase, "%s", pr->phase);
	wp->chain = pr->chain;
	wp->iteration = pr->iteration;
	wp->step_size = pr->step_size;
	wp->accept = pr->accept;
	wp->divergences = pr->divergences;
	wp->rhat = pr->rhat;
}

/*
 * After a transition: the progress record wp when one is due (or force),
 * a heartbeat when due, and the input.  Returns non-zero to stop.
 */
static int
worker_tick(struct worker *w, const struct het_wire_progress *wp, int force)
{
	double now = het_clock_now();

	if (now >= w->next_prog || force) {
		if (worker_send(HET_WIRE_PROGRESS,
		    het_wire_progress_pack(wp)) != 0) {
			w->stop = 1;	/* the coordinator left */
			return 1;
		}
		w->next_prog = now + HET_WORKER_PROGRESS;
	}
	if (worker_heartbeat(w, now) != 0) {
		w->stop = 1;
		return 1;
	}
	return worker_poll_input(w);
}

/* het_shard_run's callback: progress, heartbeats, input. */
static int
worker_progress(void *ctx, const struct het_shard_progress *pr)
{
	struct het_wire_progress wp;

	worker_wp(pr, &wp);
	return worker_tick(ctx, &wp, pr->iteration == 1 ||
	    pr->iteration == pr->total);
}

/* ---- chains at once -------------------------------------------------- */

/* The chains of one shard on threads, sharing w (under mu). */
struct chain_run {
	struct worker		 *w;
	struct het_shard_job	  job;
	struct het_shard_result	 *res;
	pthread_mutex_t		  mu;	/* w, stdout, last, first error */
	struct het_shard_progress *last; /* per chain: latest, iteration 0
					    before it starts */
	atomic_long		  next;	/* next chain to start */
	atomic_int		  stop;	/* a chain failed, or w->stop */
	int			  rc;	/* the first failure */
	struct het_error	  err;
};

struct chain_thread {
	struct chain_run	*run;
	struct het_posterior	*post;	/* this thread's own */
	pthread_t		 tid;
};

/*
 * A chain's callback: note its state; the record shows the chain
 * furthest behind and the share of all transitions done.
 */
static int
worker_chain_progress(void *ctx, const struct het_shard_progress *pr)
{
	struct chain_thread	*t = ctx;
	struct chain_run	*r = t->run;
	struct het_wire_progress wp;
	size_t			 c, slow = (size_t)pr->chain;
	double			 sum = 0;
	int			 stop;

	pthread_mutex_lock(&r->mu);
	if (atomic_load(&r->stop) || r->w->stop != 0) {
		/* told to stop (or failed): no more input, no more output */
		pthread_mutex_unlock(&r->mu);
		atomic_store(&r->stop, 1);
		return 1;
	}
	r->last[pr->chain] = *pr;
	for (c = 0; c < r->job.nchain; c++) {
		sum += (double)r->last[c].iteration;
		if (r->last[c].iteration < r->last[slow].iteration &&
		    r->last[c].iteration > 0)
			slow = c;
	}
	worker_wp(&r->last[slow], &wp);
	wp.at_once = 1;
	wp.done = sum / ((double)r->job.nchain * (double)pr->total);
	if (wp.done > 1)
		wp.done = 1;
	stop = worker_tick(r->w, &wp, pr->iteration == pr->total);
	pthread_mutex_unlock(&r->mu);
	if (stop)
		atomic_store(&r->stop, 1);
	return atomic_load(&r->stop);
}

static void *
worker_chain_thread(void *arg)
{
	struct chain_thread	*t = arg;
	struct chain_run	*r = t->run;
	struct het_error	 err;
	long			 c;
	int			 rc;

	while (!atomic_load(&r->stop) && (c = atomic_fetch_add(&r->next, 1)) <
	    (long)r->job.nchain) {
		rc = het_shard_run_chain(&r->job, t->post, (size_t)c, 0,
		    worker_chain_progress, t, r->res, &err);
		if (rc == HET_OK)
			continue;
		pthread_mutex_lock(&r->mu);
		if (r->rc == HET_OK) {
			r->rc = rc;
			r->err = err;
		}
		pthread_mutex_unlock(&r->mu);
		atomic_store(&r->stop, 1);
	}
	return NULL;
}

/*
 * Run the chains of the shard ws on up to ws->chain_threads threads, one
 * posterior each (o is the first), with het_shard_run's result.
 */
static int
worker_chains_at_once(struct worker *w, const struct het_wire_shard *ws,
    struct het_wire_shard_objs *o, long shard, struct het_shard_result *res,
    struct het_error *err)
{
	struct chain_run	 r;
	struct chain_thread	*t;
	struct het_wire_shard_objs *extra;
	size_t			 nt, k, started = 0;
	int			 rc;

	nt = (size_t)(ws->chain_threads < ws->settings.num_chains ?
	    ws->chain_threads : ws->settings.num_chains);
	memset(&r, 0, sizeof r);
	t = calloc(nt, sizeof *t);
	extra = calloc(nt, sizeof *extra);
	if (t == NULL || extra == NULL) {
		free(t);
		free(extra);
		return het_error_set(err, HET_ENOMEM, "out of memory for %zu "
		    "chain threads", nt);
	}
	if ((rc = het_shard_begin(o->post, &ws->settings, shard, o->x0, &r.job,
	    res, err)) != HET_OK)
		goto out;
	if ((r.last = calloc(r.job.nchain, sizeof *r.last)) == NULL) {
		rc = het_error_set(err, HET_ENOMEM, "out of memory");
		goto out;
	}
	r.w = w;
	r.res = res;
	pthread_mutex_init(&r.mu, NULL);
	atomic_init(&r.next, 0);
	atomic_init(&r.stop, 0);
	for (k = 0; k < nt; k++) {
		t[k].run = &r;
		if (k == 0)
			t[k].post = o->post;
		else if ((rc = het_wire_shard_build(ws, &extra[k], err)) !=
		    HET_OK)
			break;
		else
			t[k].post = extra[k].post;
	}
	/* the started threads take every chain from the queue */
	for (k = 0; rc == HET_OK && k < nt; k++) {
		if (het_thread_spawn(&t[k].tid, worker_chain_thread,
		    &t[k]) != 0)
			break;
		started++;
	}
	if (rc == HET_OK && started == 0)
		rc = het_error_set(err, HET_ENOMEM, "cannot start a thread for "
		    "the chains of shard %ld", shard);
	for (k = 0; k < started; k++)
		pthread_join(t[k].tid, NULL);
	if (rc == HET_OK && r.rc != HET_OK) {
		rc = r.rc;
		*err = r.err;
	}
	if (rc == HET_OK)
		rc = het_shard_finish(&r.job, res, err);
	pthread_mutex_destroy(&r.mu);
out:
	het_shard_job_clear(&r.job);
	if (rc != HET_OK)
		het_shard_result_clear(res);
	for (k = 1; k < nt; k++)
		het_wire_shard_objs_free(&extra[k]);
	free(r.last);
	free(extra);
	free(t);
	return rc;
}

/*
 * Work on one shard: decode, build, run, answer with a result or an
 * error record.  Returns 0 (ready for more) or w->stop's verdict.
 */
static int
worker_shard(struct worker *w, long shard, const json_t *payload)
{
	struct het_wire_shard		ws;
	struct het_wire_shard_objs	o;
	struct het_shard_result		res;
	struct het_error		err;
	double				t0 = het_clock_now();
	json_t				*out;
	int				rc;

	memset(&o, 0, sizeof o);
	memset(&res, 0, sizeof res);
	w->shard = shard;
	w->next_beat = t0 + HET_WORKER_HEARTBEAT;
	w->next_prog = t0;
	if ((rc = het_wire_shard_unpack(payload, &ws, &err)) == HET_OK &&
	    (rc = het_wire_shard_build(&ws, &o, &err)) == HET_OK) {
		if (ws.chain_threads > 1 && ws.settings.num_chains > 1)
			rc = worker_chains_at_once(w, &ws, &o, shard, &res,
			    &err);
		else
			rc = het_shard_run(o.post, &ws.settings, shard, o.x0,
			    worker_progress, w, &res, &err);
	}
	if (rc == HET_OK) {
		res.wall_time = het_clock_now() - t0;
		if ((out = het_wire_result_pack(shard, &res, &err)) != NULL)
			worker_send(HET_WIRE_RESULT, out);
		else
			worker_send_error(shard, err.code, err.msg);
	} else if (w->stop == 0)
		worker_send_error(shard, rc, err.msg);
	het_shard_result_clear(&res);
	het_wire_shard_objs_free(&o);
	het_wire_shard_clear(&ws);
	w->shard = -1;
	return w->stop;
}

/*
 * Act on one record.  Returns 0 to go on, 1 to exit 0 (bye), -1 to exit
 * with status 2 (protocol error, already reported).
 */
static int
worker_record(struct worker *w, const struct het_wire_rec *rec)
{
	struct het_error	err;
	long			shard;
	char			msg[256];

	switch (rec->type) {
	case HET_WIRE_HELLO:
		return 0;
	case HET_WIRE_BYE:
		worker_send(HET_WIRE_BYE, json_object());
		return 1;
	case HET_WIRE_ERROR:
		fprintf(stderr, "hetui-worker: the coordinator reported an "
		    "error: %s\n", json_string_value(json_object_get(
		    rec->payload, "msg")));
		return 0;
	case HET_WIRE_SHARD:
		if (het_wire_get_shard_id(rec->payload, &shard, &err) !=
		    HET_OK) {
			het_error_prefix(&err, "line %zu", rec->lineno);
			worker_send_error(-1, HET_EPROTO, err.msg);
			return -1;
		}
		if (w->shard >= 0) {
			snprintf(msg, sizeof msg, "line %zu: shard %ld "
			    "arrived while shard %ld is still running; send "
			    "one shard at a time", rec->lineno, shard,
			    w->shard);
			worker_send_error(-1, HET_EPROTO, msg);
			return -1;
		}
		return worker_shard(w, shard, rec->payload);
	default:
		snprintf(msg, sizeof msg, "line %zu: a %s record comes only "
		    "from a worker, not from the coordinator", rec->lineno,
		    het_wire_type_name(rec->type));
		worker_send_error(-1, HET_EPROTO, msg);
		return -1;
	}
}

/* The coordinator's stdin as the worker's het_loop source. */
struct worker_in {
	struct worker	*w;
	int		 done;		/* 1: end with rc */
	int		 rc;
};

static size_t
worker_in_fds(void *obj, struct pollfd *fds, size_t cap)
{
	(void)obj;
	(void)cap;
	fds[0].fd = STDIN_FILENO;
	fds[0].events = POLLIN;
	return 1;
}

static void
worker_in_handle(void *obj, const struct pollfd *fds, size_t n, double now)
{
	struct worker_in *in = obj;
	struct het_error err;
	char buf[65536];
	ssize_t r;

	(void)now;
	if (n == 0 || fds[0].revents == 0)
		return;
	r = read(STDIN_FILENO, buf, sizeof buf);
	if (r == -1 && errno == EINTR)
		return;
	if (r <= 0) {			/* EOF: shut down now */
		in->done = 1;
		in->rc = r == 0 ? 0 : 1;
		return;
	}
	if (worker_drain(in->w, het_wire_reader_feed(in->w->rd, buf,
	    (size_t)r, &err), &err) != 0) {
		in->done = 1;
		in->rc = in->w->stop > 0 ? 0 : 2;
	}
}

static int
worker_loop(void)
{
	struct worker		 w;
	struct worker_in	 in = { &w, 0, 1 };
	struct het_loop_source	 src = { &in, 1, worker_in_fds, NULL,
	    worker_in_handle };
	struct het_loop		 loop;
	struct het_error	 err;

	memset(&w, 0, sizeof w);
	w.shard = -1;
	if ((w.rd = het_wire_reader_alloc(0, "coordinator", &err)) == NULL ||
	    het_loop_init(&loop, &src, 1, &err) != HET_OK) {
		worker_send_error(-1, err.code, err.msg);
		het_wire_reader_free(w.rd);
		return 1;
	}
	while (!in.done)
		if (het_loop_once(&loop) != 0) {
			in.rc = 1;
			break;
		}
	het_loop_fini(&loop);
	het_wire_reader_free(w.rd);
	return in.rc;
}

int
main(int argc, char **argv)
{
	struct het_error err;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("hetui-worker %s (wire protocol %d)\n", PACKAGE_VERSION,
		    HET_WIRE_VERSION);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: hetui-worker [--version]\n"
		    "hetui-worker is started by hetui; it reads its work from "
		    "standard input.\n");
		return 2;
	}
	if (het_h5_library_init(&err) != HET_OK) {
		fputs(het_wire_hello_line(), stdout);
		worker_send_error(-1, err.code, err.msg);
		return 1;
	}
	if (fputs(het_wire_hello_line(), stdout) == EOF ||
	    fflush(stdout) != 0)
		return 1;
	return worker_loop();
}
