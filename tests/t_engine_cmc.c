/*
 * t_engine_cmc.c: the CMC coordinator (het_cmc) against the `script`
 * mode of tests/fake_worker.sh: completion, retries after SIGKILL, a
 * heartbeat timeout, garbage and an error record, a shard failing
 * twice, min_success_rate, early abort, cancellation, the share of the
 * work done (het_cmc_work_done) at every change, and no process left
 * behind.  Every wait is bounded by a deadline.
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
static char	 tmpdir[] = "/tmp/t_engine_cmc.XXXXXX";
static int	 nchanges;
static int	 work_check;	/* on_change checks het_cmc_work_done */
static int	 work_bad, work_mid;
static double	 work_last;

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
	double			 t0 = het_proc_now(), now;
	struct het_error	 err;

	if (het_cmc_start(c, t0, &err) != HET_OK) {
		diag("start: %s", err.msg);
		return 0;
	}
	while (!het_cmc_finished(c)) {
		now = het_proc_now();
		if (now - t0 > limit)
			return 0;
		if (cancel_at > 0 && now - t0 > cancel_at)
			het_cmc_cancel(c, now, "test");
		n = 0;
		het_cmc_pollfds(c, fds, 64, &n);
		poll(fds, n, 20);
		het_cmc_handle(c, fds, n, het_proc_now());
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
	t0 = het_proc_now();
	fin = drive(c, 20, 0);
	ok(fin, "faulty run finished in %.2f s (deadline 20)",
	    het_proc_now() - t0);
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
	double				 t0 = het_proc_now();

	snprintf(st, sizeof st, "%s/cancel", tmpdir);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "FAKE_SHARD_%d", i);
		setenv(name, "hang", 1);
	}
	c = mk(5, 3, 0, 0.9, st);
	ok(drive(c, 10, 0.3), "cancelled run finished in %.2f s",
	    het_proc_now() - t0);
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
	is_int(het_cmc_start(c, het_proc_now(), &err), HET_EINVAL,
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
	like(err.msg, "shard 1 is queued twice", "message");
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
	if (mkdtemp(tmpdir) == NULL)
		skip_all("mkdtemp failed");
	plan_lazy();
	test_errors();
	test_all_ok();
	test_retries();
	test_abort();
	test_cancel();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("could not remove %s", tmpdir);
	done_testing();
	return exit_status();
}
