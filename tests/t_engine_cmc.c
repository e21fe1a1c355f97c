/*
 * t_engine_cmc.c: the CMC coordinator (het_cmc) against the `script`
 * mode of tests/fake_worker.sh: completion, retries after SIGKILL, a
 * heartbeat timeout, garbage and an error record, a shard failing
 * twice, min_success_rate, early abort, cancellation, the share of the
 * work done (het_cmc_work_done) at every change, and no process left
 * behind.  Every wait is bounded by a deadline.
 * Shards already done (het_cmc_add_done, `hetui sample --resume`):
 * they keep their result, elapsed time and reused flag, are sorted with
 * the others, never reach a worker (none is spawned when all are done,
 * even for a program that does not exist), count as successes and as
 * the first shards to finish in the early-abort rule, but not as work of
 * this run: a resumed run aborts only as the uninterrupted one would (2
 * reused + 1 failing: no abort; 2 reused + 6 of 9 failing: abort); a
 * NULL or non-object result, a duplicate id and adding after the start
 * are refused.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_cmc.h"
#include "het_config.h"
#include "het_proc.h"
#include "tap.h"

static char	 fake[4096];
static char	 tmpdir[256];
static int	 nchanges;
static int	 work_check;	/* on_change checks het_cmc_work_done */
static int	 work_bad, work_mid;
static double	 work_last;
static int	 reuse_probe;	/* on_change records the work done ... */
static double	 reuse_mid = -1; /* ... while a shard runs with progress */

/*
 * het_cmc_work_done at a change, against the states: the fake worker's
 * progress record says chain 1 (0-based), iteration 10, i.e. half the
 * work of 4 chains of 10 iterations and all of 2 chains of 10.
 */
static void
check_work(struct het_cmc *c)
{
	const struct het_cmc_shard	*s;
	double				 done = 0, run = 0, all = 0, w4, w2;
	size_t				 k;

	for (k = 0; k < het_cmc_nshards(c); k++) {
		s = het_cmc_shard(c, k);
		all += (double)s->npairs;
		if (s->state == HET_CMC_DONE)
			done += (double)s->npairs;
		else if (s->state == HET_CMC_RUNNING && s->has_progress)
			run += (double)s->npairs;
	}
	w4 = het_cmc_work_done(c, 4, 10);
	w2 = het_cmc_work_done(c, 2, 10);
	if (fabs(w4 - (done + 0.5 * run) / all) > 1e-12 ||
	    fabs(w2 - (done + run) / all) > 1e-12 || w4 < work_last) {
		diag("work done %.17g / %.17g, expected %.17g / %.17g "
		    "(previous %.17g)", w4, w2, (done + 0.5 * run) / all,
		    (done + run) / all, work_last);
		work_bad++;
	}
	if (run > 0)
		work_mid++;
	work_last = w4;
}

static void
on_change(struct het_cmc *c, size_t i, void *arg)
{
	(void)i;
	(void)arg;
	nchanges++;
	if (work_check)
		check_work(c);
	if (reuse_probe) {
		size_t	k;

		for (k = 0; k < het_cmc_nshards(c); k++)
			if (het_cmc_shard(c, k)->state == HET_CMC_RUNNING &&
			    het_cmc_shard(c, k)->has_progress)
				reuse_mid = het_cmc_work_done(c, 4, 10);
	}
}

static int	 check_on;	/* mk sets check_result */
static int	 nchecked;

/* The coordinator's check of a result: the fake marks bad ones. */
static int
check_note(const json_t *result, long shard, void *arg,
    struct het_error *err)
{
	const char *note = json_string_value(json_object_get(result, "note"));

	(void)arg;
	nchecked++;
	if (note != NULL && strcmp(note, "unusable") == 0)
		return het_error_set(err, HET_EPROTO, "the result of shard %ld "
		    "is marked unusable", shard);
	return HET_OK;
}

/* A coordinator on the fake worker in script mode, K shards queued. */
static struct het_cmc *
mk(size_t K, size_t W, double hb, double rate, const char *state)
{
	static char		*argv[] = { "/bin/sh", fake, "script", NULL };
	struct het_cmc_opts	 o;
	struct het_cmc		*c;
	struct het_error	 err;
	size_t			 k;

	setenv("FAKE_STATE", state, 1);
	mkdir(state, 0700);
	memset(&o, 0, sizeof o);
	o.argv = argv;
	o.log_dir = tmpdir;
	o.max_workers = W;
	o.shard_timeout = 20;
	o.heartbeat_timeout = hb;
	o.kill_grace = 0.3;
	o.min_success_rate = rate;
	o.on_change = on_change;
	o.check_result = check_on ? check_note : NULL;
	if ((c = het_cmc_alloc(&o, &err)) == NULL) {
		diag("alloc: %s", err.msg);
		return NULL;
	}
	for (k = 0; k < K; k++)
		if (het_cmc_add(c, (long)k, 100 + 10 * k,
		    json_pack("{s:s}", "model", "fake"), &err) != HET_OK)
			diag("add: %s", err.msg);
	return c;
}

/* Drive the poll loop until finished or `limit` seconds passed. */
static int
drive(struct het_cmc *c, double limit, double cancel_at)
{
	struct pollfd		 fds[64];
	size_t			 n;
	double			 t0 = het_clock_now(), now;
	struct het_error	 err;

	if (het_cmc_start(c, t0, &err) != HET_OK) {
		diag("start: %s", err.msg);
		return 0;
	}
	while (!het_cmc_finished(c)) {
		now = het_clock_now();
		if (now - t0 > limit)
			return 0;
		if (cancel_at > 0 && now - t0 > cancel_at)
			het_cmc_cancel(c, now, "test");
		n = 0;
		het_cmc_pollfds(c, fds, 64, &n);
		poll(fds, n, 20);
		het_cmc_handle(c, fds, n, het_clock_now());
	}
	return 1;
}

static void
clearenv_shards(void)
{
	char	name[32];
	int	i;

	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof name, "FAKE_SHARD_%d", i);
		unsetenv(name);
	}
}

static int
children_of_me(void)
{
	DIR		*d = opendir("/proc");
	struct dirent	*e;
	char		 path[300], buf[512], *rp;
	FILE		*f;
	int		 n = 0, ppid;

	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof buf, f) != NULL &&
		    (rp = strrchr(buf, ')')) != NULL &&
		    sscanf(rp + 2, "%*c %d", &ppid) == 1 && ppid == getpid())
			n++;
		fclose(f);
	}
	if (d != NULL)
		closedir(d);
	return n;
}

static void
no_leftovers(const char *what)
{
	int	r = waitpid(-1, NULL, WNOHANG);

	ok(r == -1 && errno == ECHILD, "%s: no child left (waitpid ECHILD)",
	    what);
	is_int(children_of_me(), 0, "%s: no child in /proc", what);
}

static void
test_all_ok(void)
{
	struct het_cmc			*c;
	const struct het_cmc_shard	*s;
	struct het_error		 err;
	char				 st[300];
	size_t				 k;
	int				 order = 1, prog = 1, res = 1;

	snprintf(st, sizeof st, "%s/ok", tmpdir);
	clearenv_shards();
	setenv("FAKE_SHARD_0", "pause", 1);
	setenv("FAKE_SHARD_3", "pause", 1);
	nchanges = 0;
	c = mk(8, 3, 5, 0.9, st);
	ok(het_cmc_work_done(c, 4, 10) == 0, "work done 0 before the run");
	work_check = 1;
	is_int(het_cmc_run(c, &err), HET_OK, "8 shards on 3 workers: HET_OK");
	work_check = 0;
	is_int(work_bad, 0, "work done at every change: done shards whole, "
	    "running ones by chain and iteration, weighted by pairs, never "
	    "decreasing");
	ok(work_mid > 0, "... checked with a running shard's progress "
	    "counted (%d changes)", work_mid);
	ok(het_cmc_work_done(c, 4, 10) == 1, "work done 1 after the run");
	ok(het_cmc_work_done(c, 0, 10) == 0 && het_cmc_work_done(c, 4, 0) ==
	    0, "work done 0 for no chains or no iterations");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 8, "all 8 done");
	for (k = 0; k < 8; k++) {
		s = het_cmc_shard(c, k);
		if (s->id != 7 - (long)k || s->npairs != 170 - 10 * k)
			order = 0;
		if (!s->has_progress || s->progress.iteration != 10 ||
		    s->progress.accept != 0.875 || s->progress.rhat !=
		    1.015625 || s->progress.divergences != 2)
			prog = 0;
		if (s->result == NULL || !json_is_string(json_object_get(
		    s->result, "note")) || s->attempts != 1 || s->nreasons)
			res = 0;
	}
	ok(order, "queue runs largest first (ids 7..0)");
	ok(prog, "progress kept per shard (iteration 10, accept 0.875, "
	    "R-hat 1.015625, 2 divergences)");
	ok(res, "each result payload kept, one attempt each");
	ok(het_cmc_workers_spawned(c) == 3, "3 workers served 8 shards "
	    "(spawned %zu)", het_cmc_workers_spawned(c));
	ok(nchanges >= 24, "change callback ran %d times", nchanges);
	het_cmc_free(c);
	no_leftovers("all ok");
}

static void
test_retries(void)
{
	struct het_cmc			*c;
	const struct het_cmc_shard	*s;
	struct het_error		 err;
	char				 st[300];
	double				 t0;
	size_t				 k;
	int				 fin;

	snprintf(st, sizeof st, "%s/retry", tmpdir);
	clearenv_shards();
	setenv("FAKE_SHARD_1", "once:sigkill", 1);
	setenv("FAKE_SHARD_2", "once:hang", 1);
	setenv("FAKE_SHARD_3", "once:garbage", 1);
	setenv("FAKE_SHARD_4", "once:error", 1);
	setenv("FAKE_SHARD_5", "exit-early", 1);
	c = mk(7, 3, 0.5, 0.5, st);
	t0 = het_clock_now();
	fin = drive(c, 20, 0);
	ok(fin, "faulty run finished in %.2f s (deadline 20)",
	    het_clock_now() - t0);
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 6, "6 of 7 done");
	is_int((long long)het_cmc_count(c, HET_CMC_FAILED), 1, "1 failed");
	for (k = 0; k < het_cmc_nshards(c); k++) {
		s = het_cmc_shard(c, k);
		diag("shard %ld: %s, %d attempts, %s | %s", s->id,
		    het_cmc_state_name(s->state), s->attempts,
		    s->nreasons > 0 ? s->reason[0] : "",
		    s->nreasons > 1 ? s->reason[1] : "");
		switch (s->id) {
		case 1:
			ok(s->state == HET_CMC_DONE && s->attempts == 2,
			    "SIGKILL mid-shard: retried and done");
			like(s->reason[0], "killed by signal 9", "reason 1");
			break;
		case 2:
			ok(s->state == HET_CMC_DONE && s->attempts == 2,
			    "hang: retried and done");
			like(s->reason[0], "heartbeat timeout", "reason 2");
			break;
		case 3:
			ok(s->state == HET_CMC_DONE && s->attempts == 2,
			    "garbage: retried and done");
			like(s->reason[0], "this is not a wire record",
			    "reason 3 quotes the line");
			break;
		case 4:
			ok(s->state == HET_CMC_DONE && s->attempts == 2,
			    "error record: retried and done");
			like(s->reason[0], "reported HET_EDATA: fake failure "
			    "of shard 4", "reason 4");
			break;
		case 5:
			ok(s->state == HET_CMC_FAILED && s->attempts == 2 &&
			    s->nreasons == 2, "exit-early twice: failed with "
			    "two reasons");
			like(s->reason[0], "exited with status 3 before "
			    "sending a result", "reason 5a");
			like(s->reason[1], "exited with status 3 before "
			    "sending a result", "reason 5b");
			break;
		default:
			break;
		}
	}
	is_int(het_cmc_status(c, &err), HET_OK, "6/7 >= min_success_rate "
	    "0.5: HET_OK");
	ok(het_cmc_workers_spawned(c) >= 8, "retries ran on fresh workers "
	    "(%zu spawned)", het_cmc_workers_spawned(c));
	het_cmc_free(c);
	no_leftovers("retries");

	/* The same failure under min_success_rate 0.9. */
	snprintf(st, sizeof st, "%s/rate", tmpdir);
	clearenv_shards();
	setenv("FAKE_SHARD_2", "exit-early", 1);
	c = mk(4, 2, 5, 0.9, st);
	ok(drive(c, 20, 0), "rate run finished");
	is_int(het_cmc_status(c, &err), HET_EDATA, "3/4 < 0.9: HET_EDATA");
	like(err.msg, "3 of 4 shards succeeded (rate 0.75, min_success_rate "
	    "0.9)", "message: %s", err.msg);
	like(err.msg, "Shard 2 attempt 2: worker", "message lists attempt 2");
	het_cmc_free(c);
	no_leftovers("min_success_rate");
}

/*
 * A result the check refuses is a failed attempt: the shard is retried
 * on a fresh worker and done, never DONE with the unusable payload; a
 * shard whose every result is unusable fails with the check's reason.
 */
static void
test_bad_result(void)
{
	struct het_cmc			*c;
	const struct het_cmc_shard	*s;
	char				 st[300];
	size_t				 k;

	snprintf(st, sizeof st, "%s/badresult", tmpdir);
	clearenv_shards();
	setenv("FAKE_SHARD_1", "once:badresult", 1);
	setenv("FAKE_SHARD_2", "badresult", 1);
	check_on = 1;
	nchecked = 0;
	c = mk(4, 2, 5, 0.5, st);
	check_on = 0;
	ok(drive(c, 20, 0), "run with unusable results finished");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 3, "3 of 4 done");
	ok(nchecked == 6, "every result was checked on receipt (%d: shards 0 "
	    "and 3 once, 1 and 2 twice)", nchecked);
	for (k = 0; k < het_cmc_nshards(c); k++) {
		s = het_cmc_shard(c, k);
		if (s->id == 1) {
			ok(s->state == HET_CMC_DONE && s->attempts == 2 &&
			    s->result != NULL && json_object_get(s->result,
			    "note") != NULL && strcmp(json_string_value(
			    json_object_get(s->result, "note")), "fake") == 0,
			    "an unusable result: retried, done with the good "
			    "one");
			like(s->reason[0], "sent an unusable result (line ",
			    "the reason says the result was unusable");
			like(s->reason[0], "): the result of shard 1 is marked "
			    "unusable", "... with the check's verdict");
		}
		if (s->id == 2)
			ok(s->state == HET_CMC_FAILED && s->result == NULL &&
			    s->nreasons == 2, "unusable twice: failed, no "
			    "result kept");
	}
	het_cmc_free(c);
	no_leftovers("bad results");
}

static void
test_abort(void)
{
	struct het_cmc		*c;
	struct het_error	 err;
	char			 st[300], name[32];
	int			 i;

	snprintf(st, sizeof st, "%s/abort", tmpdir);
	clearenv_shards();
	for (i = 0; i < 14; i++) {
		snprintf(name, sizeof name, "FAKE_SHARD_%d", i);
		setenv(name, i % 4 == 0 ? "ok" : "exit-early", 1);
	}
	c = mk(14, 2, 5, 0.1, st);
	ok(drive(c, 20, 0), "abort run finished");
	ok(het_cmc_aborted(c), "early abort triggered");
	is_int((long long)het_cmc_count(c, HET_CMC_FAILED), 6,
	    "6 shards failed before the abort");
	ok(het_cmc_count(c, HET_CMC_CANCELLED) >= 4, "%zu shards cancelled",
	    het_cmc_count(c, HET_CMC_CANCELLED));
	is_int(het_cmc_status(c, &err), HET_EDATA, "aborted run: HET_EDATA");
	like(err.msg, "early abort: 6 of the first 10 shards failed (more "
	    "than half)", "message: %s", err.msg);
	het_cmc_free(c);
	clearenv_shards();
	no_leftovers("early abort");
}

static void
test_cancel(void)
{
	struct het_cmc			*c;
	struct het_error		 err;
	char				 st[300], name[32];
	int				 i;
	double				 t0 = het_clock_now();

	snprintf(st, sizeof st, "%s/cancel", tmpdir);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "FAKE_SHARD_%d", i);
		setenv(name, "hang", 1);
	}
	c = mk(5, 3, 0, 0.9, st);
	ok(drive(c, 10, 0.3), "cancelled run finished in %.2f s",
	    het_clock_now() - t0);
	is_int((long long)het_cmc_count(c, HET_CMC_CANCELLED), 5,
	    "all 5 shards cancelled");
	like(het_cmc_shard(c, 0)->reason[0], "cancelled: test",
	    "reason says cancelled");
	is_int(het_cmc_status(c, &err), HET_ECANCEL, "status HET_ECANCEL");
	het_cmc_free(c);
	clearenv_shards();
	no_leftovers("cancel");
}

static void
test_errors(void)
{
	struct het_cmc_opts	 o;
	struct het_cmc		*c;
	struct het_error	 err;

	memset(&o, 0, sizeof o);
	o.min_success_rate = 1.5;
	ok(het_cmc_alloc(&o, &err) == NULL && err.code == HET_EINVAL,
	    "min_success_rate 1.5 refused");
	like(err.msg, "min_success_rate is 1.5", "message");
	o.min_success_rate = 0.9;
	c = het_cmc_alloc(&o, &err);
	is_int(het_cmc_start(c, het_clock_now(), &err), HET_EINVAL,
	    "start with no shards: HET_EINVAL");
	like(err.msg, "no shards to run", "message");
	is_int(het_cmc_add(c, -1, 1, json_object(), &err), HET_EINVAL,
	    "negative id refused");
	is_int(het_cmc_add(c, 1, 1, json_string("x"), &err), HET_EINVAL,
	    "non-object payload refused");
	like(err.msg, "payload is not a JSON object", "message");
	het_cmc_add(c, 1, 1, json_object(), &err);
	is_int(het_cmc_add(c, 1, 1, json_object(), &err), HET_EINVAL,
	    "duplicate id refused");
	like(err.msg, "cannot queue shard 1: it is queued twice", "message");
	is_str(het_cmc_state_name(HET_CMC_RETRYING), "retrying", "name");
	{
		char			**av;
		struct het_config_cmc	  cc;

		av = het_cmc_split_command("  srun\t-n1  hetui-worker ", &err);
		ok(av != NULL && strcmp(av[0], "srun") == 0 &&
		    strcmp(av[1], "-n1") == 0 && strcmp(av[2], "hetui-worker")
		    == 0 && av[3] == NULL, "worker command split into 3 words");
		free(av);
		ok(het_cmc_split_command(" \t", &err) == NULL &&
		    err.code == HET_EINVAL, "empty worker command refused");
		like(err.msg, "worker_command is empty", "message");
		memset(&cc, 0, sizeof cc);
		cc.per_shard_timeout = 3600;
		cc.heartbeat_timeout = 600;
		cc.min_success_rate = 0.9;
		het_cmc_opts_from_cmc(&cc, &o);
		ok(o.shard_timeout == 3600 && o.heartbeat_timeout == 600 &&
		    o.min_success_rate == 0.9, "opts from optimization.cmc");
	}
	het_cmc_free(c);
	het_cmc_free(NULL);
}

/* A result payload as an earlier run would give it. */
static json_t *
old_result(const char *note)
{
	return json_pack("{s:s}", "note", note);
}

static void
test_done_some(void)
{
	struct het_cmc			*c;
	const struct het_cmc_shard	*s;
	struct het_error		 err;
	json_t				*r0, *r1;
	char				 st[300];
	double				 w0;
	size_t				 k;
	int				 rc0, rc1;

	snprintf(st, sizeof st, "%s/done_some", tmpdir);
	clearenv_shards();
	c = mk(0, 2, 5, 0.9, st);
	r0 = old_result("earlier 0");
	r1 = old_result("earlier 1");
	rc0 = het_cmc_add_done(c, 0, 300, r0, 12.5, &err);
	rc1 = het_cmc_add_done(c, 1, 200, r1, 7.25, &err);
	ok(rc0 == HET_OK && rc1 == HET_OK, "add_done: shards 0 and 1 "
	    "(300 and 200 pairs)");
	is_int(het_cmc_add(c, 2, 400, json_pack("{s:s}", "model", "fake"),
	    &err), HET_OK, "add: shard 2 (400 pairs) queued");
	is_int((long long)het_cmc_nshards(c), 3, "3 shards");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 2,
	    "2 done before the start");
	w0 = het_cmc_work_done(c, 4, 10);
	ok(w0 == 0, "work done %g before the start: the reused shards are "
	    "not work of this run", w0);
	reuse_probe = 1;
	reuse_mid = -1;
	ok(drive(c, 20, 0), "run finished");
	reuse_probe = 0;
	ok(reuse_mid == 0.5, "work done %g while shard 2 runs half way: only "
	    "its pairs count", reuse_mid);
	is_int(het_cmc_status(c, &err), HET_OK, "status HET_OK");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 3, "3 done");
	ok(het_cmc_work_done(c, 4, 10) == 1, "work done 1 at the end");
	is_int((long long)het_cmc_workers_spawned(c), 1,
	    "one worker spawned for the one queued shard (max_workers 2)");
	for (k = 0; k < 3; k++) {
		s = het_cmc_shard(c, k);
		if (s->id == 2) {
			ok(k == 0 && !s->reused && s->attempts == 1 &&
			    s->result != NULL && strcmp(json_string_value(
			    json_object_get(s->result, "note")), "fake") == 0,
			    "shard 2 first (largest), sampled: one attempt, "
			    "the worker's result");
			continue;
		}
		ok(k == (size_t)s->id + 1 && s->state == HET_CMC_DONE &&
		    s->reused == 1 && s->attempts == 0 && s->nreasons == 0 &&
		    s->pid == 0 && !s->has_progress && s->npairs == (s->id ==
		    0 ? 300u : 200u), "shard %ld at %zu: done, reused, no "
		    "attempt, %zu pairs", s->id, k, s->npairs);
		ok(s->elapsed == (s->id == 0 ? 12.5 : 7.25), "shard %ld: "
		    "elapsed %g as given", s->id, s->elapsed);
		ok(s->result == (s->id == 0 ? r0 : r1) &&
		    strcmp(json_string_value(json_object_get(s->result,
		    "note")), s->id == 0 ? "earlier 0" : "earlier 1") == 0,
		    "shard %ld: the result given is kept", s->id);
	}
	het_cmc_free(c);
	no_leftovers("some done");
}

static void
test_done_all(void)
{
	struct het_cmc_opts	 o;
	struct het_cmc		*c;
	struct het_error	 err;
	size_t			 k;
	int			 fin, nchg, rc;

	memset(&o, 0, sizeof o);
	o.worker_path = "/nonexistent/hetui-worker";
	o.max_workers = 2;
	o.kill_grace = 0.3;
	o.min_success_rate = 0.9;
	o.on_change = on_change;

	/* the control: a queued shard needs the missing program */
	c = het_cmc_alloc(&o, &err);
	het_cmc_add_done(c, 0, 10, old_result("a"), 1, &err);
	het_cmc_add(c, 1, 10, json_object(), &err);
	rc = het_cmc_start(c, het_clock_now(), &err);
	is_int(rc, HET_EIO, "a queued shard and a missing worker program: "
	    "start fails");
	like(err.msg, "/nonexistent/hetui-worker", "message: %s", err.msg);
	het_cmc_free(c);
	no_leftovers("missing program");

	c = het_cmc_alloc(&o, &err);
	for (k = 0; k < 3; k++)
		het_cmc_add_done(c, (long)k, 10 * (k + 1), old_result("a"),
		    (double)k, &err);
	nchg = nchanges;
	is_int(het_cmc_start(c, het_clock_now(), &err), HET_OK, "every shard "
	    "done: start HET_OK with a missing worker program");
	fin = het_cmc_finished(c);
	ok(fin, "... finished right after the start");
	is_int((long long)het_cmc_workers_spawned(c), 0,
	    "... no worker spawned");
	is_int(het_cmc_status(c, &err), HET_OK, "... status HET_OK");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 3, "... 3 done");
	ok(het_cmc_shard(c, 0)->id == 2 && het_cmc_shard(c, 2)->id == 0 &&
	    het_cmc_shard(c, 0)->elapsed == 2, "... sorted largest first, "
	    "elapsed with them");
	ok(het_cmc_work_done(c, 4, 10) == 0, "... no work of this run");
	is_int(nchanges - nchg, 0, "... no change reported");
	het_cmc_handle(c, NULL, 0, het_clock_now());
	ok(het_cmc_finished(c) && het_cmc_count(c, HET_CMC_DONE) == 3,
	    "... handle changes nothing");

	/* errors; the results are stolen even then (ASan checks leaks) */
	is_int(het_cmc_add_done(c, 7, 1, old_result("x"), 1, &err),
	    HET_EINVAL, "add_done after the start: HET_EINVAL");
	like(err.msg, "cannot queue shard 7: the run has started", "message");
	is_int(het_cmc_add(c, 8, 1, json_object(), &err), HET_EINVAL,
	    "add after the start: HET_EINVAL");
	is_int((long long)het_cmc_nshards(c), 3, "... still 3 shards");
	het_cmc_free(c);
	no_leftovers("all done");

	c = het_cmc_alloc(&o, &err);
	is_int(het_cmc_add_done(c, 0, 1, NULL, 1, &err), HET_EINVAL,
	    "add_done with a NULL result: HET_EINVAL");
	like(err.msg, "cannot add shard 0: it has no result", "message");
	is_int(het_cmc_add_done(c, 0, 1, json_pack("[i,i]", 1, 2), 1, &err),
	    HET_EINVAL, "add_done with an array result: HET_EINVAL");
	like(err.msg, "cannot queue shard 0: its result is not a JSON object",
	    "message");
	is_int(het_cmc_add_done(c, -2, 1, old_result("x"), 1, &err),
	    HET_EINVAL, "add_done with a negative id: HET_EINVAL");
	is_int(het_cmc_add(c, 5, 1, json_object(), &err), HET_OK,
	    "shard 5 queued");
	is_int(het_cmc_add_done(c, 5, 1, old_result("x"), 1, &err),
	    HET_EINVAL, "add_done of queued shard 5: HET_EINVAL");
	like(err.msg, "cannot queue shard 5: it is queued twice", "message");
	is_int(het_cmc_add_done(c, 6, 1, old_result("x"), 1, &err), HET_OK,
	    "shard 6 done");
	is_int(het_cmc_add_done(c, 6, 1, old_result("y"), 1, &err),
	    HET_EINVAL, "add_done of done shard 6 again: HET_EINVAL");
	is_int(het_cmc_add(c, 6, 1, json_object(), &err), HET_EINVAL,
	    "add of done shard 6: HET_EINVAL");
	is_int((long long)het_cmc_nshards(c), 2, "... 2 shards (5 and 6)");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 1, "... one done");
	ok(strcmp(json_string_value(json_object_get(het_cmc_shard(c,
	    1)->result, "note")), "x") == 0, "... shard 6 keeps its first "
	    "result");
	het_cmc_free(c);
}

/* FAKE_SHARD_<id> = error for ids in [lo, hi). */
static void
fail_shards(long lo, long hi)
{
	char name[32];
	long id;

	for (id = lo; id < hi; id++) {
		snprintf(name, sizeof name, "FAKE_SHARD_%ld", id);
		setenv(name, "error", 1);
	}
}

static void
test_done_abort(void)
{
	struct het_cmc		*c;
	struct het_error	 err;
	char			 st[300];
	long			 id;

	/* 2 reused + 1 failing: 1 of the first 3 failed, no abort */
	snprintf(st, sizeof st, "%s/done_noabort", tmpdir);
	clearenv_shards();
	fail_shards(2, 3);
	c = mk(0, 1, 5, 0.5, st);
	for (id = 0; id < 2; id++)
		het_cmc_add_done(c, id, 50, old_result("old"), 1, &err);
	het_cmc_add(c, 2, 300, json_pack("{s:s}", "model", "fake"), &err);
	ok(drive(c, 20, 0), "2 reused + 1 failing: finished");
	ok(!het_cmc_aborted(c), "no early abort: 1 of the first 3 shards "
	    "failed, as in the uninterrupted run");
	is_int((long long)het_cmc_count(c, HET_CMC_FAILED), 1, "1 failed");
	is_int(het_cmc_status(c, &err), HET_OK, "2/3 >= min_success_rate "
	    "0.5: HET_OK");
	het_cmc_free(c);
	clearenv_shards();
	no_leftovers("no abort with reused shards");

	/* 2 reused + 9 queued whose 6 largest fail: 6 of 10, abort */
	snprintf(st, sizeof st, "%s/done_abort", tmpdir);
	fail_shards(2, 8);
	c = mk(0, 1, 5, 0.1, st);
	for (id = 0; id < 2; id++)
		het_cmc_add_done(c, id, 50, old_result("old"), 1, &err);
	for (id = 2; id < 11; id++)
		het_cmc_add(c, id, (size_t)(1000 - 10 * id),
		    json_pack("{s:s}", "model", "fake"), &err);
	ok(drive(c, 30, 0), "2 reused + 9 queued, the 6 largest failing: "
	    "finished");
	ok(het_cmc_aborted(c), "early abort: 6 of the first 10 failed");
	is_int((long long)het_cmc_count(c, HET_CMC_FAILED), 6, "6 failed");
	is_int((long long)het_cmc_count(c, HET_CMC_CANCELLED), 3,
	    "3 cancelled");
	is_int((long long)het_cmc_count(c, HET_CMC_DONE), 2,
	    "the 2 reused still done");
	is_int(het_cmc_status(c, &err), HET_EDATA, "status HET_EDATA");
	like(err.msg, "early abort: 6 of the first 10 shards failed (more "
	    "than half)", "message: %s", err.msg);
	het_cmc_free(c);
	clearenv_shards();
	no_leftovers("abort with reused shards");
}

int
main(void)
{
	const char	*src = getenv("top_srcdir");
	char		 cmd[4200];

	signal(SIGPIPE, SIG_IGN);
	snprintf(fake, sizeof fake, "%s/tests/fake_worker.sh",
	    src != NULL ? src : ".");
	if (access(fake, R_OK) != 0)
		skip_all("tests/fake_worker.sh not found (set top_srcdir)");
	if (tap_tmpdir(tmpdir, sizeof(tmpdir), "t_engine_cmc") == NULL)
		skip_all("no temporary directory");
	plan_lazy();
	test_errors();
	test_all_ok();
	test_retries();
	test_bad_result();
	test_abort();
	test_cancel();
	test_done_some();
	test_done_all();
	test_done_abort();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("could not remove %s", tmpdir);
	done_testing();
	return exit_status();
}
