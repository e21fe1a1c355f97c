/*
 * t_engine_proc.c: worker processes (het_proc) against tests/fake_worker.sh
 * and the real hetui-worker: a normal run, death by SIGKILL mid-record,
 * hangs (SIGTERM, and SIGKILL when TERM is ignored), shard timeout,
 * garbage, early exit, srun-like slow partial output, a wrong version, a
 * missing command, and shutdown leaving no process behind.  Every wait is
 * a poll loop with a deadline; nothing sleeps a fixed time.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "het_proc.h"
#include "tap.h"

struct seen {
	int			nrec[HET_WIRE_NTYPES];
	struct het_wire_progress prog;
	long			result_shard;
	size_t			result_pad;
	int			done;
	struct het_proc_exit	ex;
};

static char fake[4096];
static char tmpdir[256];

static void
on_record(struct het_proc *p, const struct het_wire_rec *rec, void *arg)
{
	struct seen		*s = het_proc_tag(p);
	struct het_error	 err;
	json_t			*pad;

	(void)arg;
	s->nrec[rec->type]++;
	if (rec->type == HET_WIRE_PROGRESS)
		het_wire_progress_unpack(rec->payload, &s->prog, &err);
	if (rec->type == HET_WIRE_RESULT) {
		het_wire_get_shard_id(rec->payload, &s->result_shard, &err);
		pad = json_object_get(rec->payload, "pad");
		s->result_pad = json_is_string(pad) ?
		    json_string_length(pad) : 0;
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

/*
 * Drive the set until a record of type `what` arrived (what >= 0) or the
 * worker finished (what < 0), or `limit` seconds pass.
 */
static int
run_until(struct het_procset *set, struct seen *s, int what, double limit)
{
	struct pollfd	fds[64];
	size_t		n;
	double		end = het_clock_now() + limit, now, d;
	int		ms;

	for (;;) {
		if ((what < 0 && s->done) ||
		    (what >= 0 && s->nrec[what] > 0))
			return 1;
		now = het_clock_now();
		if (now >= end)
			return 0;
		het_procset_pollfds(set, fds, 64, &n);
		ms = 20;
		d = het_procset_next_deadline(set);
		if (d > 0 && (d - now) * 1000 < ms)
			ms = (int)((d - now) * 1000) + 1;
		if (poll(fds, n, ms) > 0)
			het_procset_handle(set, fds, n, het_clock_now());
		het_procset_reap(set, het_clock_now());
		het_procset_check_timeouts(set, het_clock_now());
	}
}

static struct het_procset *
mkset(const char *mode, double shard_to, double hb_to, double grace)
{
	struct het_proc_opts	 o;
	struct het_error	 err;
	struct het_procset	*set;
	char			*argv[4];

	argv[0] = "/bin/sh";
	argv[1] = fake;
	argv[2] = (char *)mode;
	argv[3] = NULL;
	memset(&o, 0, sizeof o);
	if (mode != NULL && mode[0] == '\0')
		argv[2] = NULL;		/* mode from $FAKE_MODE */
	o.argv = mode != NULL ? argv : NULL;
	o.worker_path = getenv("HETUI_WORKER");
	o.log_dir = tmpdir;
	o.shard_timeout = shard_to;
	o.heartbeat_timeout = hb_to;
	o.kill_grace = grace;
	o.on_record = on_record;
	o.on_done = on_done;
	if ((set = het_procset_alloc(&o, &err)) == NULL)
		diag("alloc: %s", err.msg);
	return set;
}

/* Spawn, say hello, send shard 7 and arm the deadlines. */
static struct het_proc *
start(struct het_procset *set, struct seen *s, int id)
{
	struct het_error	 err;
	struct het_proc		*p;
	json_t			*o;

	memset(s, 0, sizeof *s);
	s->result_shard = -1;
	if ((p = het_proc_spawn(set, id, het_clock_now(), &err)) == NULL) {
		diag("spawn: %s", err.msg);
		return NULL;
	}
	het_proc_set_tag(p, s);
	het_proc_send_rec(p, HET_WIRE_HELLO, NULL, &err);
	o = json_pack("{s:i, s:s}", "shard", 7, "model", "heterodyne");
	het_proc_send_rec(p, HET_WIRE_SHARD, o, &err);
	json_decref(o);
	het_proc_arm(p, het_clock_now());
	return p;
}

/* Run one misbehaving mode to its end; return the reason text. */
static const char *
fault(const char *mode, double shard_to, double hb_to, struct seen *s)
{
	struct het_procset	*set = mkset(mode, shard_to, hb_to, 0.3);
	static char		 msg[HET_ERROR_MSG_MAX];
	double			 t0 = het_clock_now(), dt;
	struct het_proc		*p = start(set, s, 1);
	int			 fin;

	fin = p != NULL && run_until(set, s, -1, 10);
	dt = het_clock_now() - t0;
	ok(fin, "%s: worker finished within 10 s (%.2f s)", mode, dt);
	ok(s->done == 1 && !s->ex.ok, "%s: reported once, as a failure",
	    mode);
	snprintf(msg, sizeof msg, "%s", s->ex.reason.msg);
	diag("%s: %s", mode, msg);
	het_procset_free(set);
	return msg;
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

/* 1 if pid is gone (or a zombie of someone else). */
static int
gone(pid_t pid)
{
	char	path[64], buf[512], *rp;
	FILE	*f;
	int	dead = 1;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 1;
	if (fgets(buf, sizeof buf, f) != NULL &&
	    (rp = strrchr(buf, ')')) != NULL && rp[2] != 'Z')
		dead = 0;
	fclose(f);
	return dead;
}

static void
test_ok(void)
{
	struct het_procset	*set = mkset("ok", 10, 5, 0.5);
	struct seen		 s;
	struct het_proc		*p = start(set, &s, 1);
	char			 log[512];
	FILE			*f;

	ok(run_until(set, &s, HET_WIRE_RESULT, 10), "ok: result arrives");
	ok(het_proc_hello_seen(p), "ok: hello seen");
	is_int(s.nrec[HET_WIRE_HEARTBEAT], 1, "ok: one heartbeat");
	is_int(s.nrec[HET_WIRE_PROGRESS], 1, "ok: one progress record");
	ok(strcmp(s.prog.phase, "sampling") == 0 && s.prog.iteration == 10 &&
	    s.prog.divergences == 2 && s.prog.step_size == 0.25 &&
	    s.prog.accept == 0.875 && s.prog.rhat == 1.015625,
	    "ok: progress fields arrive intact");
	is_int(s.result_shard, 7, "ok: result for shard 7");
	is_int(s.done, 0, "ok: not finished while its stdin is open");
	het_proc_close_stdin(p);
	ok(run_until(set, &s, -1, 10), "ok: finishes after stdin closes");
	ok(s.ex.ok && s.ex.exited && s.ex.status == 0 && s.ex.got_result,
	    "ok: clean exit 0 with a result");
	snprintf(log, sizeof log, "%s", het_proc_log_path(p));
	f = fopen(log, "r");
	ok(f != NULL && fgets(log, sizeof log, f) != NULL &&
	    strstr(log, "fake_worker: mode ok") != NULL,
	    "ok: stderr went to the worker log");
	if (f != NULL)
		fclose(f);
	het_proc_free(p);
	is_int((int)het_procset_running(set), 0, "ok: nothing running");
	het_procset_free(set);
}

/* A worker that says nothing on stderr leaves no empty log behind. */
static void
test_quiet_log(void)
{
	struct het_procset	*set;
	struct seen		 s;
	struct het_proc		*p;
	char			 log[512];
	const char		*m;
	FILE			*f;

	setenv("FAKE_QUIET", "1", 1);
	snprintf(log, sizeof log, "%s/worker-1.log", tmpdir);
	unlink(log);		/* earlier tests' worker 1 wrote to it */
	set = mkset("ok", 10, 5, 0.5);
	p = start(set, &s, 1);
	ok(run_until(set, &s, HET_WIRE_RESULT, 10), "quiet: result arrives");
	snprintf(log, sizeof log, "%s", het_proc_log_path(p));
	ok(access(log, F_OK) == 0, "quiet: its log exists while it runs");
	het_proc_close_stdin(p);
	ok(run_until(set, &s, -1, 10) && s.ex.ok, "quiet: clean exit");
	ok(access(log, F_OK) != 0, "quiet: the empty log was removed");
	het_proc_free(p);
	het_procset_free(set);

	m = fault("exit-early", 0, 0, &s);
	like(m, "exited with status 3 before sending a result",
	    "quiet exit-early: reason");
	ok(strstr(m, "stderr is in") == NULL, "quiet exit-early: no pointer "
	    "to an empty log (%s)", m);
	ok(access(log, F_OK) != 0, "quiet exit-early: no empty log left");

	/* an earlier run's lines in the (appended) log are not this run's */
	f = fopen(log, "w");
	if (f != NULL) {
		fputs("an earlier run's message\n", f);
		fclose(f);
	}
	m = fault("exit-early", 0, 0, &s);
	ok(strstr(m, "stderr is in") == NULL, "quiet, old log: no pointer "
	    "to another run's messages (%s)", m);
	ok(access(log, F_OK) == 0, "quiet, old log: the old log is kept");
	unsetenv("FAKE_QUIET");
}

static void
test_faults(void)
{
	struct seen	 s;
	const char	*m;

	m = fault("sigkill", 0, 0, &s);
	like(m, "was killed by signal 9 (Killed)", "sigkill: reason");
	like(m, "worker 1 (pid ", "sigkill: names the worker");
	ok(!s.ex.exited && s.ex.signo == 9, "sigkill: signal 9 recorded");

	m = fault("hang", 0, 0.3, &s);
	like(m, "heartbeat timeout: silent for 0.3 s; it was then killed by "
	    "signal 15", "hang: heartbeat timeout, then SIGTERM");
	like(m, "signal 15 (its stderr is in ", "hang: points to its log");
	is_int(s.ex.reason.code, HET_EIO, "hang: code");

	m = fault("hang-noterm", 0, 0.3, &s);
	like(m, "heartbeat timeout", "hang-noterm: heartbeat timeout");
	like(m, "killed by signal 9", "hang-noterm: SIGKILL after the grace");

	m = fault("beat", 0.6, 0.3, &s);
	like(m, "shard timeout: no result within 0.6 s", "beat: heartbeats "
	    "keep it alive until the shard timeout");
	ok(s.nrec[HET_WIRE_HEARTBEAT] >= 3, "beat: %d heartbeats seen",
	    s.nrec[HET_WIRE_HEARTBEAT]);

	m = fault("garbage", 0, 0, &s);
	like(m, "line 2: unknown record type in 'this is not a wire record'",
	    "garbage: protocol error quoting the line");
	is_int(s.ex.reason.code, HET_EPROTO, "garbage: HET_EPROTO");
	like(m, "killed by signal 15", "garbage: the worker was killed");

	m = fault("exit-early", 0, 0, &s);
	like(m, "exited with status 3 before sending a result",
	    "exit-early: reason");
	like(m, "(its stderr is in ", "exit-early: points to the log");

	m = fault("partial", 0, 0, &s);
	like(m, "ended inside line 2", "partial: truncated record at EOF");
	like(m, "truncated record", "partial: says truncated");

	m = fault("badversion", 0, 0, &s);
	like(m, "version 2 but this side speaks version 1",
	    "badversion: names both versions");
}

static void
test_slow(void)
{
	/*
	 * The byte-by-byte record costs two process spawns per byte in the
	 * fake worker: on a loaded machine (two CPU-bound processes per
	 * core) the record took longer than the 20 s this test used to
	 * wait.  Timeouts are tested elsewhere; here only the reassembly
	 * is, so the limits are generous.
	 */
	struct het_procset	*set = mkset("slow", 60, 30, 0.5);
	struct seen		 s;
	struct het_proc		*p = start(set, &s, 2);

	ok(run_until(set, &s, HET_WIRE_PROGRESS, 60),
	    "slow: records arrive in 1 KiB pieces and byte by byte");
	is_int((int)s.result_pad, 3000, "slow: 3000-byte field intact");
	ok(strcmp(s.prog.phase, "warmup") == 0 && isnan(s.prog.rhat),
	    "slow: byte-by-byte progress intact");
	het_proc_close_stdin(p);
	ok(run_until(set, &s, -1, 10) && s.ex.ok, "slow: clean end");
	het_procset_free(set);
}

static void
test_real_worker(void)
{
	struct het_procset	*set;
	struct het_proc		*p;
	struct het_error	 err;
	struct seen		 s;

	if (getenv("HETUI_WORKER") == NULL) {
		skip(6, "HETUI_WORKER not set");
		return;
	}
	set = mkset(NULL, 10, 5, 0.5);
	p = start(set, &s, 3);
	ok(run_until(set, &s, HET_WIRE_ERROR, 10), "real worker: answers "
	    "the shard with an error record");
	ok(het_proc_hello_seen(p), "real worker: said hello");
	het_proc_send_rec(p, HET_WIRE_BYE, NULL, &err);
	ok(run_until(set, &s, -1, 10), "real worker: exits after bye");
	is_int(s.nrec[HET_WIRE_BYE], 1, "real worker: answers bye");
	like(s.ex.reason.msg, "reported HET_EPROTO: shard record: field "
	    "shard.model is missing or not an object", "real worker: the "
	    "refusal of the malformed shard is the reason");
	ok(s.ex.exited && s.ex.status == 0, "real worker: exit status 0");
	het_procset_free(set);

	set = mkset(NULL, 10, 5, 0.5);
	p = start(set, &s, 4);
	run_until(set, &s, HET_WIRE_ERROR, 10);
	het_proc_close_stdin(p);
	ok(run_until(set, &s, -1, 10) && s.ex.exited && s.ex.status == 0,
	    "real worker: exits 0 when its stdin closes");
	het_procset_free(set);
}

static void
test_spawn_fail(void)
{
	struct het_proc_opts	 o;
	struct het_error	 err;
	struct het_procset	*set;
	char			*argv[] = { "/nonexistent/hetui-worker", NULL };
	char			 log[512];

	memset(&o, 0, sizeof o);
	o.argv = argv;
	o.log_dir = tmpdir;
	snprintf(log, sizeof log, "%s/worker-9.log", tmpdir);
	set = het_procset_alloc(&o, &err);
	ok(het_proc_spawn(set, 9, het_clock_now(), &err) == NULL,
	    "missing command: no worker");
	is_int(err.code, HET_EIO, "missing command: HET_EIO");
	like(err.msg, "cannot start worker 9 with the command "
	    "'/nonexistent/hetui-worker'", "missing command: names it");
	like(err.msg, "No such file or directory", "missing command: errno");
	ok(access(log, F_OK) != 0, "missing command: no empty log left");
	het_procset_free(set);
	o.kill_grace = -1;
	ok(het_procset_alloc(&o, &err) == NULL && err.code == HET_EINVAL,
	    "negative grace is refused");
	like(err.msg, "must not be negative", "and says so");
}

static void
test_shutdown(void)
{
	struct het_procset	*set = mkset("ok", 0, 0, 0.3);
	struct seen		 s[3];
	char			 pidfile[600];
	FILE			*f;
	long			 gpid = -1;
	static const char	*modes[3] = { "ok", "hang-noterm", "hang" };
	double			 t0, dt;
	int			 i;

	snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", tmpdir);
	setenv("FAKE_PIDFILE", pidfile, 1);
	/* het_procset_free on a running worker kills and reaps it. */
	start(set, &s[0], 10);
	het_procset_free(set);

	set = mkset("grandchild", 0, 0, 0.3);
	start(set, &s[0], 12);
	run_until(set, &s[0], HET_WIRE_RESULT, 10);
	f = fopen(pidfile, "r");
	if (f == NULL || fscanf(f, "%ld", &gpid) != 1)
		gpid = -1;
	ok(gpid > 0, "shutdown: grandchild pid %ld", gpid);
	if (f != NULL)
		fclose(f);
	t0 = het_clock_now();
	het_procset_shutdown_all(set, 1.0);
	ok(het_clock_now() - t0 < 3.0, "shutdown: took %.2f s",
	    het_clock_now() - t0);
	is_int(s[0].done, 1, "shutdown: done reported");
	/* SIGKILL is delivered asynchronously: allow it 2 s to land. */
	t0 = het_clock_now();
	while (gpid > 0 && !gone((pid_t)gpid) && het_clock_now() < t0 + 2)
		poll(NULL, 0, 10);
	ok(gpid > 0 && gone((pid_t)gpid), "shutdown: the grandchild in the "
	    "worker's group is gone");
	het_procset_free(set);

	/* One set, three workers: idle, ignoring SIGTERM, hung. */
	set = mkset("", 0, 0, 0.3);
	for (i = 0; i < 3; i++) {
		setenv("FAKE_MODE", modes[i], 1);
		start(set, &s[i], 20 + i);
	}
	unsetenv("FAKE_MODE");
	for (i = 0; i < 3; i++)
		run_until(set, &s[i], HET_WIRE_HELLO, 10);
	t0 = het_clock_now();
	het_procset_shutdown_all(set, 0.3);
	dt = het_clock_now() - t0;
	ok(dt < 2.5, "shutdown of 3: took %.2f s (wait 0.3 + grace 0.3)", dt);
	is_int((int)het_procset_running(set), 0, "shutdown of 3: none running");
	ok(s[0].done && s[0].ex.exited && s[0].ex.status == 0,
	    "shutdown of 3: the idle worker exited by itself");
	ok(s[1].done && s[1].ex.signo == SIGKILL, "shutdown of 3: the one "
	    "ignoring SIGTERM got SIGKILL");
	ok(s[2].done && s[2].ex.signo == SIGTERM, "shutdown of 3: the hung "
	    "one got SIGTERM");
	like(s[2].ex.reason.msg, "did not exit when its input closed at "
	    "shutdown; it was then killed by signal 15", "shutdown: reason");
	het_procset_free(set);
	errno = 0;
	ok(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD,
	    "shutdown: no child left to reap (ECHILD)");
	is_int(children_of_me(), 0, "shutdown: /proc shows no child");
	unsetenv("FAKE_PIDFILE");
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
	if (tap_tmpdir(tmpdir, sizeof(tmpdir), "t_engine_proc") == NULL)
		skip_all("no temporary directory");
	plan_lazy();
	test_ok();
	test_quiet_log();
	test_faults();
	test_slow();
	test_real_worker();
	test_spawn_fail();
	test_shutdown();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("could not remove %s", tmpdir);
	done_testing();
	return exit_status();
}
