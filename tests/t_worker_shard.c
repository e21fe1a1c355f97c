/*
 * t_worker_shard.c: the real hetui-worker sampling a shard (the shard
 * of tests/shard_fixture.c; its records are t_worker_wire's).
 *
 * Checks:
 *   - the real $HETUI_WORKER, spawned with het_proc, samples a small
 *     homodyne static shard: progress records arrive (throttled: at most
 *     ~10 per second plus the first and last transition of each chain),
 *     heartbeats come once a second, the result parses, draws have the shape chains x params x draws,
 *     the posterior means are within 4 sd of the truth, R-hat < 1.2;
 *   - a shard that cannot be built (sigma < 0) and one that cannot be
 *     decoded are answered with error records carrying the shard id, and
 *     the worker stays ready; bye ends it with status 0;
 *   - closing stdin during a run stops the worker at once with status 0;
 *   - with chain_threads 2 the chains run at once: every progress record
 *     carries a share done that only grows and ends at 1, and the result
 *     is bit for bit the sequential one (also 3 chains on 2 threads);
 *     EOF stops every thread (exit 0), a second shard meanwhile is one
 *     protocol error (exit 2).
 *
 * Margins (issue 19; measured 2026-11-26 with the sampler seed and the
 * data seed read from the environment in a scratch copy, 2 chains x
 * (200 + 200), the shard of make_shard):
 *   - the data are fixed (mt19937 seed 3, the model in closed form), so
 *     on any CPU only the sampler's path differs (rounding sends NUTS
 *     down another trajectory, as another seed would); its scatter is
 *     what the margins are measured against;
 *   - |z| < 4 (posterior mean vs truth, in posterior sd): over sampler
 *     seeds 1-30 the z of D0, alpha, contrast, offset sat at -0.79,
 *     1.05, 0.26, -0.42 (sd 0.10, 0.08, 0.09, 0.10), largest |z| 1.28:
 *     the threshold is 27 sd or more from the largest.  (Redrawing the
 *     data too, data seeds 1-30, z scatters as N(0,1), sd 0.7-1.1,
 *     largest |z| 2.7: the 4 is a 4-sigma statement about the data, and
 *     the data do not change with the CPU.)
 *   - R-hat: over sampler seeds 1-30 the mean was 1.010-1.016 (sd
 *     0.008-0.015), the largest 1.057 (D0); over data seeds 1-30 the
 *     largest 1.064 (offset, sd 0.014).  The former threshold 1.1 sat
 *     2.5-2.9 sd above those largest values (R-hat's right tail is long
 *     with 4 split half-chains of 100 draws), under the 5 sd the tests
 *     keep; 1.2, the project's gate (max_r_hat in
 *     tests/configs/sample_run.yaml), is 9.5 sd above the largest and
 *     12 sd above the mean, and two chains that did not reach the same
 *     region still give R-hat far above it;
 *   - the bit-for-bit comparison of
 *     the chains-at-once run with the sequential one (same machine, same
 *     seeds, chains independent of the thread they run on) and the
 *     record counts are exact: no scatter.  The throttle bounds (at most
 *     ~10 progress records a second) hold by the worker's construction,
 *     whatever the CPU's speed.
 */
#include "config.h"

#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_proc.h"
#include "het_wire_shard.h"
#include "shard_fixture.h"
#include "tap.h"

static char		tmpdir[256];

struct seen {
	int			 nrec[HET_WIRE_NTYPES];
	long			 last_iter, chains_seen;
	double			 t_first, t_last;
	struct het_wire_errinfo	 errinfo;
	json_t			*result;
	int			 done;
	struct het_proc_exit	 ex;
	int			 at_once;	/* records with "done" */
	double			 share, share_drop; /* last, worst drop */
};

/* The first (sequential) run's result, for the chains-at-once run. */
static json_t *seq_result;

static void
on_record(struct het_proc *p, const struct het_wire_rec *rec, void *arg)
{
	struct seen		*s = het_proc_tag(p);
	struct het_wire_progress pr;
	struct het_error	 err;
	double			 now = het_clock_now();

	(void)arg;
	s->nrec[rec->type]++;
	if (rec->type == HET_WIRE_PROGRESS &&
	    het_wire_progress_unpack(rec->payload, &pr, &err) == HET_OK) {
		if (s->nrec[rec->type] == 1)
			s->t_first = now;
		s->t_last = now;
		s->last_iter = pr.iteration;
		if (pr.iteration == 1)
			s->chains_seen++;
		if (pr.at_once) {
			if (s->at_once++ > 0 && s->share - pr.done >
			    s->share_drop)
				s->share_drop = s->share - pr.done;
			s->share = pr.done;
		}
	}
	if (rec->type == HET_WIRE_ERROR)
		het_wire_error_unpack(rec->payload, &s->errinfo, &err);
	if (rec->type == HET_WIRE_RESULT) {
		json_decref(s->result);
		s->result = json_incref(rec->payload);
	}
}

static void
on_done(struct het_proc *p, const struct het_proc_exit *ex, void *arg)
{
	struct seen *s = het_proc_tag(p);

	(void)arg;
	s->done++;
	s->ex = *ex;
}

static int
run_until(struct het_procset *set, struct seen *s, int what, double limit)
{
	struct pollfd	fds[8];
	size_t		n;
	double		end = het_clock_now() + limit;

	for (;;) {
		if ((what < 0 && s->done) || (what >= 0 && s->nrec[what] > 0))
			return 1;
		if (het_clock_now() >= end)
			return 0;
		het_procset_pollfds(set, fds, 8, &n);
		if (poll(fds, n, 20) > 0)
			het_procset_handle(set, fds, n, het_clock_now());
		het_procset_reap(set, het_clock_now());
		het_procset_check_timeouts(set, het_clock_now());
	}
}

static struct het_procset *
mkset(void)
{
	struct het_proc_opts	 o;
	struct het_error	 err;

	memset(&o, 0, sizeof o);
	o.worker_path = getenv("HETUI_WORKER");
	o.log_dir = tmpdir;
	o.heartbeat_timeout = 5;
	o.kill_grace = 0.5;
	o.on_record = on_record;
	o.on_done = on_done;
	return het_procset_alloc(&o, &err);
}

static void
test_worker(void)
{
	struct het_wire_shard	 ws;
	struct het_shard_result	 res;
	struct het_procset	*set;
	struct het_proc		*p;
	struct het_error	 err;
	struct seen		 s;
	json_t			*o;
	double			 t0, wall, z;
	size_t			 k;
	long			 id;
	int			 got;

	memset(&s, 0, sizeof s);
	set = mkset();
	if (set == NULL || (p = het_proc_spawn(set, 1, het_clock_now(),
	    &err)) == NULL) {
		ok(0, "spawn the worker");
		return;
	}
	het_proc_set_tag(p, &s);
	het_proc_send_rec(p, HET_WIRE_HELLO, NULL, &err);
	make_shard(&ws, 6);
	o = het_wire_shard_pack(&ws, &err);
	t0 = het_clock_now();
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	het_proc_arm(p, het_clock_now());
	got = run_until(set, &s, HET_WIRE_RESULT, 120);
	wall = het_clock_now() - t0;
	ok(got, "the worker answers with a result (%.2f s)", wall);
	if (!got) {
		diag("error record: %s", s.errinfo.msg);
		goto out;
	}
	ok(s.nrec[HET_WIRE_PROGRESS] >= 4, "%d progress records",
	    s.nrec[HET_WIRE_PROGRESS]);
	ok(s.nrec[HET_WIRE_PROGRESS] <= 12 * wall + 6, "throttled: %d "
	    "records in %.2f s", s.nrec[HET_WIRE_PROGRESS], wall);
	is_int(s.chains_seen, 2, "the first transition of both chains");
	is_int(s.last_iter, 400, "the last transition is reported");
	got = het_wire_result_unpack(s.result, &id, &res, &err);
	ok(got == HET_OK, "the result parses: %s", got == HET_OK ? "ok" :
	    err.msg);
	if (res.draws == NULL)
		goto out;
	ok(id == 6 && res.p == NP && res.nchain == 2 && res.ndraw == 200,
	    "shard 6: 2 chains x 4 parameters x 200 draws");
	ok(strcmp(res.names[0], "D0") == 0 && strcmp(res.names[1],
	    "alpha") == 0 && strcmp(res.names[2], "contrast") == 0 &&
	    strcmp(res.names[3], "offset") == 0, "parameter names");
	for (k = 0; k < NP; k++) {
		z = (res.summary[k].mean - xtrue[k]) / res.summary[k].sd;
		ok(fabs(z) < 4 && res.summary[k].rhat < 1.2, "%s: mean %.5g "
		    "(truth %g, z = %.2f), R-hat %.3f", res.names[k],
		    res.summary[k].mean, xtrue[k], z, res.summary[k].rhat);
	}
	ok(res.wall_time > 0 && res.step_size[0] > 0 && res.step_size[1] > 0,
	    "wall time %.2f s, step sizes %.3g %.3g", res.wall_time,
	    res.step_size[0], res.step_size[1]);
	is_int(s.at_once, 0, "chains one after another: no share done sent");
	het_shard_result_clear(&res);
	seq_result = json_incref(s.result);

	/* a shard that cannot be built: an error record, worker ready */
	memset(s.nrec, 0, sizeof s.nrec);
	ws.shard = 8;
	ws.sigma = -1;
	o = het_wire_shard_pack(&ws, &err);
	json_object_set_new(o, "sigma", json_real(-1));
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	ok(run_until(set, &s, HET_WIRE_ERROR, 20), "bad sigma: error "
	    "record");
	ok(s.errinfo.shard == 8 && s.errinfo.code == HET_EINVAL,
	    "for shard 8, HET_EINVAL");
	like(s.errinfo.msg, "noise sigma is -1", "message");
	/* a shard that cannot be decoded */
	memset(s.nrec, 0, sizeof s.nrec);
	o = json_pack("{s:i}", "shard", 9);
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	ok(run_until(set, &s, HET_WIRE_ERROR, 20) && s.errinfo.shard == 9 &&
	    s.errinfo.code == HET_EPROTO, "malformed shard 9: HET_EPROTO");
	like(s.errinfo.msg, "shard.model", "message names the field");
	het_proc_send_rec(p, HET_WIRE_BYE, NULL, &err);
	ok(run_until(set, &s, -1, 20) && s.ex.exited && s.ex.status == 0 &&
	    s.nrec[HET_WIRE_BYE] == 1, "bye: answered, exit 0");
	het_procset_free(set);

	/* EOF while a shard runs: the worker stops at once */
	json_decref(s.result);
	memset(&s, 0, sizeof s);
	set = mkset();
	p = het_proc_spawn(set, 2, het_clock_now(), &err);
	het_proc_set_tag(p, &s);
	het_proc_send_rec(p, HET_WIRE_HELLO, NULL, &err);
	ws.sigma = 0.01;
	ws.shard = 10;
	ws.settings.num_samples = 1000000;
	o = het_wire_shard_pack(&ws, &err);
	t0 = het_clock_now();
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	ok(run_until(set, &s, HET_WIRE_PROGRESS, 20), "long shard runs");
	ok(run_until(set, &s, HET_WIRE_HEARTBEAT, 5), "and sends heartbeats");
	ok(s.nrec[HET_WIRE_PROGRESS] <= 12 * (het_clock_now() - t0) + 4,
	    "throttled: %d progress records in %.2f s",
	    s.nrec[HET_WIRE_PROGRESS], het_clock_now() - t0);
	het_proc_close_stdin(p);
	t0 = het_clock_now();
	ok(run_until(set, &s, -1, 10) && s.ex.exited && s.ex.status == 0,
	    "stdin closed mid-run: exit 0 after %.3f s", het_clock_now() - t0);
	ok(s.nrec[HET_WIRE_RESULT] == 0 && s.nrec[HET_WIRE_ERROR] == 0,
	    "no result and no error record");
out:
	json_decref(s.result);
	het_procset_free(set);
}

/*
 * The same shard with chain_threads 2: the chains at once, the result
 * bit for bit the sequential one's, progress with a share done that only
 * grows and ends at 1; closing stdin stops it at once.
 */
static void
test_worker_at_once(void)
{
	struct het_wire_shard	 ws;
	struct het_shard_result	 a, b;
	struct het_procset	*set;
	struct het_proc		*p;
	struct het_error	 err;
	struct seen		 s;
	json_t			*o;
	long			 id;
	size_t			 n;
	int			 got;

	memset(&s, 0, sizeof s);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	set = mkset();
	if (set == NULL || seq_result == NULL || (p = het_proc_spawn(set, 3,
	    het_clock_now(), &err)) == NULL) {
		ok(0, "spawn the worker (after a sequential run)");
		het_procset_free(set);
		return;
	}
	het_proc_set_tag(p, &s);
	het_proc_send_rec(p, HET_WIRE_HELLO, NULL, &err);
	make_shard(&ws, 6);
	ws.chain_threads = 2;
	o = het_wire_shard_pack(&ws, &err);
	ok(json_integer_value(json_object_get(o, "chain_threads")) == 2,
	    "the payload says chain_threads 2");
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	het_proc_arm(p, het_clock_now());
	got = run_until(set, &s, HET_WIRE_RESULT, 120);
	ok(got, "chains at once: a result");
	ok(s.at_once > 0 && s.at_once == s.nrec[HET_WIRE_PROGRESS],
	    "every progress record carries the share done (%d)", s.at_once);
	ok(s.share_drop == 0 && s.share == 1, "the share only grows and ends "
	    "at 1 (last %.4f, worst drop %.4f)", s.share, s.share_drop);
	if (got && het_wire_result_unpack(s.result, &id, &b, &err) == HET_OK &&
	    het_wire_result_unpack(seq_result, &id, &a, &err) == HET_OK) {
		n = a.nchain * a.p * a.ndraw;
		ok(b.nchain == a.nchain && b.p == a.p && b.ndraw == a.ndraw &&
		    memcmp(a.draws, b.draws, n * sizeof(double)) == 0 &&
		    memcmp(a.step_size, b.step_size, a.nchain *
		    sizeof(double)) == 0 && a.summary[0].mean ==
		    b.summary[0].mean && a.summary[1].rhat ==
		    b.summary[1].rhat, "draws, step sizes and summaries bit "
		    "for bit those of the chains one after another");
	} else
		ok(0, "both results parse");
	het_shard_result_clear(&b);
	/* 3 chains on 2 threads: chains 0 and 1 are the 2-chain run's */
	memset(s.nrec, 0, sizeof s.nrec);
	ws.settings.num_chains = 3;
	o = het_wire_shard_pack(&ws, &err);
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	got = run_until(set, &s, HET_WIRE_RESULT, 120);
	if (got && a.draws != NULL && het_wire_result_unpack(s.result, &id, &b,
	    &err) == HET_OK)
		ok(b.nchain == 3 && memcmp(a.draws, b.draws, 2 * a.p *
		    a.ndraw * sizeof(double)) == 0 && b.step_size[1] ==
		    a.step_size[1], "3 chains on 2 threads: chains 0 and 1 "
		    "bit for bit those of the 2-chain run");
	else
		ok(0, "3 chains on 2 threads: a result");
	het_shard_result_clear(&a);
	het_shard_result_clear(&b);
	ws.settings.num_chains = 2;
	/* EOF while the chains run at once */
	memset(s.nrec, 0, sizeof s.nrec);
	ws.shard = 11;
	ws.settings.num_samples = 1000000;
	o = het_wire_shard_pack(&ws, &err);
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	ok(run_until(set, &s, HET_WIRE_PROGRESS, 20), "a long shard runs at "
	    "once");
	het_proc_close_stdin(p);
	ok(run_until(set, &s, -1, 10) && s.ex.exited && s.ex.status == 0 &&
	    s.nrec[HET_WIRE_RESULT] == 0 && s.nrec[HET_WIRE_ERROR] == 0,
	    "stdin closed mid-run: every thread stops, exit 0, no record");
	json_decref(s.result);
	het_procset_free(set);

	/* a second shard while the chains run at once: exit 2 */
	memset(&s, 0, sizeof s);
	if ((set = mkset()) == NULL || (p = het_proc_spawn(set, 4,
	    het_clock_now(), &err)) == NULL) {
		ok(0, "spawn a worker");
		het_procset_free(set);
		return;
	}
	het_proc_set_tag(p, &s);
	het_proc_send_rec(p, HET_WIRE_HELLO, NULL, &err);
	ws.shard = 12;
	o = het_wire_shard_pack(&ws, &err);
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	ok(run_until(set, &s, HET_WIRE_PROGRESS, 20), "a long shard runs at "
	    "once again");
	ws.shard = 13;
	o = het_wire_shard_pack(&ws, &err);
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	ok(run_until(set, &s, -1, 20) && s.ex.exited && s.ex.status == 2 &&
	    s.nrec[HET_WIRE_ERROR] == 1 && s.errinfo.code == HET_EPROTO,
	    "a second shard meanwhile: one protocol error, exit 2 (status "
	    "%d, %d error records)", s.ex.status, s.nrec[HET_WIRE_ERROR]);
	like(s.errinfo.msg, "shard 13 arrived while shard 12 is still "
	    "running", "... the message");
	json_decref(s.result);
	het_procset_free(set);
}

/*
 * Records behind a long shard in the same write: the worker must act on
 * them while the shard runs (they wait in its reader, not on the pipe,
 * so a poll of stdin alone does not see them).  With num_samples 10^6
 * the shard would run for hours; each case must end within 20 s.
 */
static void
behind(long id, const char *tail, const char *what, int status,
    const char *msg)
{
	struct het_wire_shard	 ws;
	struct het_procset	*set;
	struct het_proc		*p;
	struct het_error	 err;
	struct seen		 s;
	json_t			*o;
	char			*line, *buf;
	size_t			 len, hl, tl = strlen(tail);
	int			 done;

	memset(&s, 0, sizeof s);
	make_shard(&ws, id);
	ws.settings.num_samples = 1000000;
	o = het_wire_shard_pack(&ws, &err);
	if ((set = mkset()) == NULL || o == NULL || het_wire_encode(
	    HET_WIRE_SHARD, o, &line, &len, &err) != HET_OK ||
	    (p = het_proc_spawn(set, (int)id, het_clock_now(), &err)) ==
	    NULL) {
		ok(0, "%s: spawn a worker", what);
		json_decref(o);
		het_procset_free(set);
		return;
	}
	json_decref(o);
	het_proc_set_tag(p, &s);
	/* one buffer, so the shard and what follows arrive together */
	hl = strlen(het_wire_hello_line());
	buf = malloc(hl + len + tl);
	memcpy(buf, het_wire_hello_line(), hl);
	memcpy(buf + hl, line, len);
	memcpy(buf + hl + len, tail, tl);
	het_proc_send(p, buf, hl + len + tl, &err);
	free(buf);
	free(line);
	done = run_until(set, &s, -1, 20);
	ok(done && s.ex.exited && s.ex.status == status, "%s behind a long "
	    "shard in the same write: exit %d within 20 s (%s, status %d)",
	    what, status, done ? "ended" : "still running", s.ex.status);
	ok(s.nrec[HET_WIRE_RESULT] == 0, "... no result (the shard was "
	    "stopped, not run to its end)");
	if (status == 0)
		ok(s.nrec[HET_WIRE_BYE] == 1 && s.nrec[HET_WIRE_ERROR] == 0,
		    "... the worker answers bye");
	else {
		ok(s.nrec[HET_WIRE_ERROR] == 1 && s.errinfo.code == HET_EPROTO &&
		    s.errinfo.shard == -1, "... one protocol error record");
		like(s.errinfo.msg, msg, "... naming what arrived");
	}
	json_decref(s.result);
	het_procset_free(set);
}

static void
test_worker_behind(void)
{
	behind(14, "bye {}\n", "bye", 0, NULL);
	behind(15, "shard {\"shard\":16}\n", "a second shard", 2,
	    "shard 16 arrived while shard 15 is still running");
	behind(17, "garbage here\n", "garbage", 2, "unknown record type in "
	    "'garbage here'");
}

int
main(void)
{
	char	cmd[300];

	plan_lazy();
	signal(SIGPIPE, SIG_IGN);
	if (tap_tmpdir(tmpdir, sizeof(tmpdir), "t_worker_shard") == NULL) {
		ok(0, "temporary directory");
		return exit_status();
	}
	if (getenv("HETUI_WORKER") == NULL)
		skip(1, "HETUI_WORKER not set");
	else {
		test_worker();
		test_worker_at_once();
		test_worker_behind();
	}
	json_decref(seq_result);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("could not remove %s", tmpdir);
	return exit_status();
}

