/*
 * t_engine_sample.c: the sampling pipeline (het_sample.h) driven the way
 * the workstation drives it: het_sample_start, then a poll loop over
 * het_sample_pollfds / het_sample_handle / het_sample_next_deadline.
 *
 * Data: `$HETUI simulate` of tests/configs/sample_truth.yaml (static_ref,
 * one angle, 50 frames); sampled with tests/configs/sample_run.yaml by
 * the real $HETUI_WORKER (2 shards, 2 chains of 300 + 100).
 * Checks:
 *   - the phases arrive in order through on_change: reading, nlsq,
 *     preparing, sampling, combining, writing, done; shard changes are
 *     reported; the loop never blocks: no het_sample_handle call takes
 *     more than 100 ms, although NLSQ, consensus and writing run in it
 *     (on the background thread); at every shard change during SAMPLING
 *     the time-left estimate (het_sample_view_eta) agrees with the work
 *     done and the elapsed time, and there is none afterwards;
 *   - accessors: no problem, NLSQ result, shards or summary before their
 *     phase; afterwards 1225 pairs, 4 NLSQ parameters near the truth, 2
 *     shards done, a summary whose means lie within 4 sd of the truth and
 *     whose NLSQ column equals the NLSQ result, the five files listed,
 *     progress bins 1/1, verdict passed;
 *   - the draws of the check against all the data under a time budget,
 *     and a run whose budget allows none: skipped with a warning, the
 *     run still passes;
 *   - het_sample_cancel right after the start ends CANCELLED with nothing
 *     written; het_sample_cancel_async from another thread during
 *     SAMPLING ends CANCELLED, no worker left running;
 *   - a missing data file ends FAILED with the file in the message; a
 *     worker program that does not exist ends FAILED naming it;
 *   - het_sample_free in the middle of SAMPLING returns and leaves no
 *     worker; het_sample_alloc rejects a missing config and a negative
 *     worker count.
 *
 * Margins (the draws differ between CPUs; measured over 61 seeds of the
 * same run): NLSQ and posterior means at most 2.6 sd from the truth
 * against 5 and 4; the lowest summary ESS 134 (log-sd 0.25) against 10,
 * 10 log-sd; the largest R-hat 1.05 (sd 0.024) against 1.2, 6 sd; the
 * gates as tests/configs/sample_run.yaml notes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "het_proc.h"
#include "het_sample.h"
#include "het_sample_view.h"
#include "sample_drive.h"
#include "tap.h"

static char tmpdir[256];

struct seen {
	enum het_sample_phase	 phases[16];
	int			 nphase;
	int			 nshard_events;
	int			 problem_early;	/* problem visible in READING */
	int			 nlsq_early;	/* NLSQ visible before PREPARING */
	int			 summary_early;
	int			 eta_seen;	/* estimates checked */
	int			 eta_bad;
};

/*
 * het_sample_view_eta at a shard change, asked for two moments 1000 s
 * apart in the future: the share done is het_cmc_work_done's, an
 * estimate exists exactly for 1% to 99.999% of the work, and 1000 s
 * more elapsed add 1000 (1 - w) / w seconds left.
 */
static void
check_eta(struct het_sample *s, struct seen *sn)
{
	const struct het_shard_settings *st = het_sample_view_settings(s);
	double now = het_clock_now(), d1, l1, d2, l2, w;
	int r1, r2;

	if (st == NULL) {
		sn->eta_bad++;
		return;
	}
	w = het_cmc_work_done(het_sample_coordinator(s), st->num_chains,
	    st->num_warmup + st->num_samples);
	r1 = het_sample_view_eta(s, now + 1000, &d1, &l1);
	r2 = het_sample_view_eta(s, now + 2000, &d2, &l2);
	if (d1 != w || d2 != w || r1 != r2 ||
	    r1 != (w >= 0.01 && w <= 0.99999) || (!r1 && !isnan(l1)) ||
	    (r1 && fabs((l2 - l1) - 1000 * (1 - w) / w) > 1e-6 * l2)) {
		diag("eta: w %g, %d %g %g, %d %g %g", w, r1, d1, l1, r2, d2,
		    l2);
		sn->eta_bad++;
	} else if (r1)
		sn->eta_seen++;
}

static void
on_change(struct het_sample *s, enum het_sample_what what, size_t index,
    void *arg)
{
	struct seen *sn = arg;
	enum het_sample_phase ph = het_sample_phase(s);

	(void)index;
	if (what == HET_SAMPLE_CHANGED_SHARD) {
		sn->nshard_events++;
		if (ph == HET_SAMPLE_SAMPLING)
			check_eta(s, sn);
		return;
	}
	if (sn->nphase < 16)
		sn->phases[sn->nphase++] = ph;
	if (ph <= HET_SAMPLE_READING && het_sample_problem(s) != NULL)
		sn->problem_early = 1;
	if (ph <= HET_SAMPLE_NLSQ && het_sample_nlsq(s) != NULL)
		sn->nlsq_early = 1;
	if (ph <= HET_SAMPLE_COMBINING && het_sample_summary(s) != NULL)
		sn->summary_early = 1;
}

static struct het_config *
load(const char *name, struct het_error *err)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return het_config_load(path, err);
}

static void
opts_init(struct het_sample_opts *o, struct het_config *cfg, const char *out,
    struct seen *sn)
{
	static char data[512], dir[512];

	snprintf(data, sizeof(data), "%s/sim.h5", tmpdir);
	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, out);
	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
	o->data_path = data;
	o->out_dir = dir;
	o->workers = 2;
	o->threads = 1;
	o->worker_path = getenv("HETUI_WORKER");
	o->on_change = on_change;
	o->arg = sn;
}

static void
test_full(struct het_config *cfg)
{
	static const char *const want_files[] = { "hetui_results.h5",
	    "nlsq_parameters.json", "nlsq_metadata.json", "cmc_summary.json",
	    "cmc_diagnostics.json" };
	static const double truth[4] = { 5000.0, 0.3, 0.3, 1.0 };
	static const enum het_sample_phase order[] = { HET_SAMPLE_READING,
	    HET_SAMPLE_NLSQ, HET_SAMPLE_PREPARING, HET_SAMPLE_SAMPLING,
	    HET_SAMPLE_COMBINING, HET_SAMPLE_WRITING, HET_SAMPLE_DONE };
	struct het_sample_opts o;
	struct het_sample_progress pr;
	struct het_sample *s;
	struct het_error err;
	struct seen sn;
	const struct het_sample_nlsq *nl;
	const struct het_sample_summary *sm;
	const char *const *files;
	double worst;
	size_t k;
	int i, inorder;

	memset(&sn, 0, sizeof(sn));
	opts_init(&o, cfg, "full", &sn);
	s = het_sample_alloc(&o, &err);
	ok(s != NULL, "het_sample_alloc");
	if (s == NULL)
		return;
	is_int(het_sample_phase(s), HET_SAMPLE_IDLE, "phase idle");
	is_int(het_sample_verdict(s), HET_VERDICT_RUNNING, "verdict running");
	ok(het_sample_problem(s) == NULL && het_sample_nlsq(s) == NULL &&
	    het_sample_nshards(s) == 0 && het_sample_summary(s) == NULL &&
	    het_sample_files(s)[0] == NULL, "nothing visible before start");
	is_int(het_sample_start(s, &err), HET_OK, "het_sample_start");
	is_int(het_sample_start(s, &err), HET_EINVAL, "a second start fails");
	worst = sample_drive(s, NULL, NULL);
	ok(worst < 0.1, "the loop never blocks: longest handle %.4f s", worst);
	inorder = sn.nphase == 7;
	for (i = 0; inorder && i < 7; i++)
		inorder = sn.phases[i] == order[i];
	ok(inorder, "phases in order (%d changes)", sn.nphase);
	ok(sn.nshard_events >= 4, "shard changes reported (%d)",
	    sn.nshard_events);
	ok(!sn.problem_early && !sn.nlsq_early && !sn.summary_early,
	    "no result is visible before its phase ends");
	is_int(sn.eta_bad, 0, "time-left estimates: the work done, when one "
	    "exists, and the rate");
	ok(sn.eta_seen > 0, "... checked at %d shard changes", sn.eta_seen);
	{
		double d = 1, l = 0;

		ok(het_sample_view_eta(s, het_clock_now() + 1000, &d, &l) == 0 &&
		    d == 0 && isnan(l), "no estimate after SAMPLING");
	}
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED, "verdict passed");
	is_str(het_sample_verdict_name(het_sample_verdict(s)), "passed",
	    "verdict name");
	is_int(het_sample_error(s)->code, HET_OK, "no error");
	ok(het_sample_problem(s) != NULL &&
	    het_sample_problem(s)->npairs == 1225, "problem: 1225 pairs");
	het_sample_progress(s, &pr);
	ok(pr.bins_read == 1 && pr.bins_total == 1 && pr.nlsq_iter > 0,
	    "progress: bin 1/1, %ld NLSQ iterations", pr.nlsq_iter);
	nl = het_sample_nlsq(s);
	ok(nl != NULL && nl->p == 4 && !nl->loaded && nl->fit != NULL &&
	    strcmp(nl->names[0], "D0_ref") == 0, "NLSQ: 4 parameters, fitted");
	if (nl != NULL && nl->p == 4)
		for (k = 0; k < 4; k++)
			ok(fabs(nl->x[k] - truth[k]) < 5 * nl->sd[k],
			    "NLSQ %s = %g within 5 sd of %g", nl->names[k],
			    nl->x[k], truth[k]);
	is_int((int)het_sample_nshards(s), 2, "2 shards");
	for (k = 0; k < het_sample_nshards(s); k++)
		ok(het_sample_shard(s, k)->state == HET_CMC_DONE &&
		    het_sample_shard(s, k)->attempts == 1,
		    "shard %zu done in one attempt", k);
	ok(het_sample_shard(s, 2) == NULL, "no shard 2");
	sm = het_sample_summary(s);
	ok(sm != NULL && sm->p == 4 && sm->ndone == 2 && sm->nused == 2 &&
	    sm->ndraws == 200 && sm->gates_pass, "summary: 2 shards, 200 draws,"
	    " gates passed");
	if (sm != NULL && nl != NULL)
		for (k = 0; k < sm->p; k++) {
			const struct het_sample_param *q = &sm->param[k];

			ok(fabs(q->mean - truth[k]) < 4 * q->sd &&
			    q->q5 < q->q50 && q->q50 < q->q95 &&
			    q->q025 < q->q5 && q->q95 < q->q975 &&
			    q->nlsq == nl->x[k] && q->rhat < 1.2 &&
			    q->ess_bulk > 10, "%s: mean %g sd %g, ordered "
			    "quantiles, NLSQ column, R-hat %.3f, ESS %.0f",
			    q->name, q->mean, q->sd, q->rhat, q->ess_bulk);
		}
	ok(sm != NULL && strcmp(sm->sigma_source, "far-lag estimate") == 0 &&
	    sm->sigma > 0.002 && sm->sigma < 0.004, "sigma from the far-lag "
	    "estimate: %g", sm != NULL ? sm->sigma : 0);
	files = het_sample_files(s);
	for (k = 0; k < 5; k++)
		ok(files[k] != NULL && strcmp(files[k], want_files[k]) == 0,
		    "file %zu: %s", k, want_files[k]);
	ok(files[5] == NULL, "five files");
	like(het_sample_out_dir(s), "/full", "out dir");
	is_int(sample_live_children(), 0, "no worker left");
	het_sample_free(s);
}

/*
 * The check of the 2-shard consensus against all the data: its draws
 * under a time budget (pure), and a run whose budget allows none: it is
 * skipped with a warning that says why, and the run still passes.
 */
static void
test_reweight(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	struct het_error err;
	struct seen sn;
	const struct het_sample_summary *sm;
	double keep = cfg->cmc.reweight_seconds;
	size_t k;
	int warned = 0;

	is_int((long)het_sample_reweight_draws(4000, 1e-3, 120), 4000,
	    "reweight draws: 4000 passes of 1 ms fit in 120 s");
	is_int((long)het_sample_reweight_draws(4000, 0.1, 120), 1200,
	    "... of 0.1 s: 1200 fit");
	is_int((long)het_sample_reweight_draws(4000, 0.7, 120), 0,
	    "... of 0.7 s: 171, under %d: none", HET_SAMPLE_REWEIGHT_MIN);
	is_int((long)het_sample_reweight_draws(4000, 0, 120), 4000,
	    "... a pass timed at 0 s counts as free");
	cfg->cmc.reweight_seconds = 1e-12;
	memset(&sn, 0, sizeof(sn));
	opts_init(&o, cfg, "rwbudget", &sn);
	s = het_sample_alloc(&o, &err);
	cfg->cmc.reweight_seconds = keep;
	ok(s != NULL && het_sample_start(s, &err) == HET_OK, "a run with a "
	    "budget of 1e-12 s for the check starts");
	if (s == NULL)
		return;
	sample_drive(s, NULL, NULL);
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED, "... and passes");
	sm = het_sample_summary(s);
	ok(sm != NULL && sm->rw_ndraw == 0 && isnan(sm->rw_khat) &&
	    sm->param != NULL && isnan(sm->param[0].rw_mean), "... without "
	    "the check (no draws, k-hat and reweighted moments NaN)");
	for (k = 0; k < het_sample_nwarnings(s); k++)
		warned |= strstr(het_sample_warning(s, k), "was not checked "
		    "against all the data: one pass over them takes") != NULL &&
		    strstr(het_sample_warning(s, k), "reweight_seconds") !=
		    NULL;
	ok(warned, "... and a warning says why and names the setting");
	het_sample_free(s);
}

static void
test_cancel_early(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	struct het_error err;
	struct seen sn;
	char path[600];

	memset(&sn, 0, sizeof(sn));
	opts_init(&o, cfg, "early", &sn);
	s = het_sample_alloc(&o, &err);
	het_sample_start(s, &err);
	het_sample_cancel(s, het_clock_now());
	sample_drive(s, NULL, NULL);
	is_int(het_sample_phase(s), HET_SAMPLE_CANCELLED,
	    "cancel right after start: phase cancelled");
	is_int(het_sample_verdict(s), HET_VERDICT_CANCELLED, "... verdict "
	    "cancelled");
	snprintf(path, sizeof(path), "%s/early", tmpdir);
	ok(access(path, F_OK) != 0, "... nothing written");
	het_sample_free(s);
}

static void *
cancel_thread(void *arg)
{
	struct het_sample *s = arg;

	het_sample_cancel_async(s);
	return NULL;
}

static void
hook_cancel(struct het_sample *s, void *arg)
{
	int *done = arg;
	pthread_t t;

	if (*done || het_sample_phase(s) != HET_SAMPLE_SAMPLING ||
	    het_sample_nshards(s) == 0 ||
	    het_sample_shard(s, 0)->state != HET_CMC_RUNNING)
		return;
	*done = 1;
	pthread_create(&t, NULL, cancel_thread, s);
	pthread_join(t, NULL);
}

static void
test_cancel_sampling(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	struct het_error err;
	struct seen sn;
	int done = 0;

	memset(&sn, 0, sizeof(sn));
	opts_init(&o, cfg, "cancel", &sn);
	s = het_sample_alloc(&o, &err);
	het_sample_start(s, &err);
	sample_drive(s, hook_cancel, &done);
	ok(done, "cancel_async from another thread while sampling");
	is_int(het_sample_phase(s), HET_SAMPLE_CANCELLED, "... phase cancelled");
	is_int(het_sample_verdict(s), HET_VERDICT_CANCELLED,
	    "... verdict cancelled");
	ok(het_sample_nshards(s) == 2 &&
	    het_sample_shard(s, 0)->state == HET_CMC_CANCELLED,
	    "... the running shard is cancelled");
	ok(het_sample_summary(s) == NULL, "... no shard finished, no summary");
	is_int(sample_live_children(), 0, "... no worker left");
	het_sample_free(s);
}

static void
test_errors(struct het_config *cfg, struct het_config *slow)
{
	static char *const bad_argv[] = { "/nonexistent/hetui-worker", NULL };
	struct het_sample_opts o;
	struct het_sample *s;
	struct het_error err;
	struct seen sn;
	double t0;

	memset(&sn, 0, sizeof(sn));
	opts_init(&o, cfg, "e1", &sn);
	o.data_path = "/nonexistent/data.h5";
	s = het_sample_alloc(&o, &err);
	het_sample_start(s, &err);
	sample_drive(s, NULL, NULL);
	is_int(het_sample_phase(s), HET_SAMPLE_FAILED, "missing data: failed");
	is_int(het_sample_verdict(s), HET_VERDICT_ERROR, "... verdict error");
	like(het_sample_error(s)->msg, "/nonexistent/data.h5",
	    "... the message names the file");
	het_sample_free(s);

	opts_init(&o, cfg, "e2", &sn);
	o.worker_argv = bad_argv;
	s = het_sample_alloc(&o, &err);
	het_sample_start(s, &err);
	sample_drive(s, NULL, NULL);
	is_int(het_sample_phase(s), HET_SAMPLE_FAILED,
	    "missing worker program: failed");
	like(het_sample_error(s)->msg, "'/nonexistent/hetui-worker'",
	    "... the message names the command");
	het_sample_free(s);

	/* free in the middle of SAMPLING */
	opts_init(&o, slow, "e3", &sn);
	s = het_sample_alloc(&o, &err);
	het_sample_start(s, &err);
	t0 = het_clock_now();
	while (het_sample_phase(s) != HET_SAMPLE_SAMPLING &&
	    !het_sample_finished(s) && het_clock_now() - t0 < 60) {
		struct pollfd fds[64];
		size_t n;

		het_sample_pollfds(s, fds, 64, &n);
		poll(fds, n, 50);
		het_sample_handle(s, fds, n, het_clock_now());
	}
	ok(het_sample_phase(s) == HET_SAMPLE_SAMPLING, "a long run samples");
	het_sample_free(s);
	is_int(sample_live_children(), 0, "het_sample_free while sampling: no worker "
	    "left");

	memset(&o, 0, sizeof(o));
	ok(het_sample_alloc(&o, &err) == NULL && err.code == HET_EINVAL,
	    "alloc without a config: EINVAL");
	o.cfg = cfg;
	o.workers = -1;
	ok(het_sample_alloc(&o, &err) == NULL && err.code == HET_EINVAL,
	    "alloc with negative workers: EINVAL");
}

int
main(void)
{
	const char *hetui = getenv("HETUI"), *src = getenv("top_srcdir");
	struct het_config *cfg, *slow;
	struct het_error err;
	char cmd[2048];

	if (hetui == NULL || src == NULL || getenv("HETUI_WORKER") == NULL)
		skip_all("HETUI, HETUI_WORKER or top_srcdir not set");
	signal(SIGPIPE, SIG_IGN);
	if (tap_tmpdir(tmpdir, sizeof(tmpdir), "t_engine_sample") == NULL)
		skip_all("no temporary directory");
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/configs/sample_truth.yaml' "
	    "'%s/tests/configs/sample_run.yaml' '%s/' && cd '%s' && "
	    "sed 's/num_warmup: 300$/num_warmup: 100000/' sample_run.yaml "
	    ">slow.yaml && '%s' simulate -q -c sample_truth.yaml -o sim.h5 "
	    "--noise 0.003 --seed 11", src, src, tmpdir, tmpdir, hetui);
	if (system(cmd) != 0)
		skip_all("cannot simulate the test data");
	plan_lazy();
	cfg = load("sample_run.yaml", &err);
	slow = load("slow.yaml", &err);
	ok(cfg != NULL && slow != NULL, "configs load");
	if (cfg == NULL || slow == NULL)
		return exit_status();
	test_full(cfg);
	test_reweight(cfg);
	test_cancel_early(cfg);
	test_cancel_sampling(slow);
	test_errors(cfg, slow);
	het_config_free(cfg);
	het_config_free(slow);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove %s", tmpdir);
	done_testing();
	return exit_status();
}
