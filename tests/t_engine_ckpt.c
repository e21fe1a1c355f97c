/*
 * t_engine_ckpt.c: the checkpoint of a running sampling pipeline
 * (het_sample_opts checkpoint_interval; het_sample_ckpt.c), watched from
 * the loop thread the way the workstation drives the pipeline.
 *
 * Data: `$HETUI simulate` of tests/configs/sample_truth.yaml, sampled
 * with tests/configs/sample_run.yaml at 4 shards by the real
 * $HETUI_WORKER on one worker (shards of about a second each).
 * After every het_sample_handle during SAMPLING and COMBINING the hook
 * reads the checkpoint back (het_results_load_cmc) whenever it changed.
 * Checks:
 *   - the default interval (30 s, longer than the run): the checkpoint
 *     appears with the first finished shard and holds exactly one, with
 *     its digest and all its draws; none follows until the shards are
 *     all in, when one more holds all 4 (before COMBINING); the run
 *     passes and the checkpoint is gone at the end;
 *   - a tiny interval and no duty pause: checkpoints follow the
 *     finished shards (one with 2 or 3 of the 4), the last holds all 4;
 *   - a tiny interval and a huge duty pause (a million writes): the
 *     duty rule alone holds every checkpoint back between the first and
 *     the final one;
 *   - interval < 0: no checkpoint is ever written, the run passes.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_results.h"
#include "het_sample.h"
#include "resume_lib.h"
#include "tap.h"

#define K_ALL	4	/* shards */

struct watch {
	char		 dir[600], ck[640];
	struct timespec	 last;		/* mtime of the last one read */
	int		 nseen;		/* distinct checkpoints seen */
	size_t		 max_done;	/* most finished shards in one */
	size_t		 last_done;	/* finished shards in the last */
	int		 nmid;		/* ones with some but not all of the
					   shards after the first */
	int		 bad;		/* one did not load */
	long		 first_id;	/* the shard of the first one */
	char		 first_digest[HET_RESULTS_DIGEST_LEN];
	size_t		 first_ndraw;
};

static void
hook(struct het_sample *s, void *arg)
{
	struct watch *w = arg;
	struct het_results_prev_cmc prev;
	struct het_error err;
	struct stat sb;

	/* until WRITING, which removes it */
	if ((het_sample_phase(s) != HET_SAMPLE_SAMPLING &&
	    het_sample_phase(s) != HET_SAMPLE_COMBINING) ||
	    stat(w->ck, &sb) != 0 || (sb.st_mtim.tv_sec == w->last.tv_sec &&
	    sb.st_mtim.tv_nsec == w->last.tv_nsec))
		return;
	w->last = sb.st_mtim;
	het_error_clear(&err);
	if (het_results_load_cmc(w->dir, &prev, &err) != HET_OK) {
		diag("checkpoint %d: %s", w->nseen + 1, err.msg);
		w->bad++;
		return;
	}
	if (w->nseen++ == 0 && prev.n > 0) {
		w->first_id = prev.shard[0].id;
		memcpy(w->first_digest, prev.shard[0].digest,
		    sizeof(w->first_digest));
		w->first_ndraw = prev.shard[0].res.ndraw;
	}
	if (prev.n > w->max_done)
		w->max_done = prev.n;
	w->nmid += prev.n > 1 && prev.n < K_ALL;
	w->last_done = prev.n;
	het_results_prev_cmc_clear(&prev);
}

/* Run into tmpdir/name with the interval; the watch is filled. */
static struct het_sample *
run_watched(struct het_config *cfg, const char *name, double interval,
    double duty, struct watch *w)
{
	struct het_sample_opts o;

	memset(w, 0, sizeof(*w));
	w->first_id = -1;
	tpath(w->dir, name);
	snprintf(w->ck, sizeof(w->ck), "%s/%s", w->dir,
	    HET_RESULTS_CHECKPOINT);
	opts_init(&o, cfg, name);
	o.workers = 1;
	o.checkpoint_interval = interval;
	o.checkpoint_duty = duty;
	return run(&o, hook, w);
}

static void
test_default(struct het_config *cfg)
{
	struct watch w;
	struct het_sample *s = run_watched(cfg, "dflt", 0, 0, &w);

	ok(s != NULL && het_sample_verdict(s) == HET_VERDICT_PASSED,
	    "default interval: the run passes");
	is_int(w.bad, 0, "every checkpoint seen loads");
	is_int(w.nseen, 2, "two checkpoints (the interval is longer than "
	    "the run)");
	ok(w.first_id >= 0, "the first holds the first finished shard");
	is_int(w.nmid, 0, "none between");
	is_int((long)w.last_done, K_ALL, "the last, once the shards are all "
	    "in, holds every shard");
	ok(w.first_id >= 0 && w.first_digest[0] != '\0' &&
	    strlen(w.first_digest) == 16, "its shard %ld has a digest",
	    w.first_id);
	is_int((long)w.first_ndraw, cfg->cmc.num_samples, "... and its "
	    "draws (%ld per chain)", cfg->cmc.num_samples);
	ok(access(w.ck, F_OK) != 0, "the checkpoint is gone at the end");
	het_sample_free(s);
}

static void
test_tiny(struct het_config *cfg)
{
	struct watch w;
	struct het_sample *s;
	long ns = cfg->cmc.num_samples;

	/*
	 * Forty times the draws and no duty pause (a millionth of the
	 * write's time): the shards take a fraction of a second each, and a
	 * checkpoint between the first and the last shard needs only one
	 * write to take less than the three shards after the first.  With
	 * the duty rule's pause of 20 writes it needed the shards apart by
	 * 20 writes, which a slow disk or a sanitizer build denied.
	 */
	cfg->cmc.num_samples = 40 * ns;
	s = run_watched(cfg, "tiny", 0.001, 1e-6, &w);
	cfg->cmc.num_samples = ns;
	ok(s != NULL && het_sample_verdict(s) == HET_VERDICT_PASSED,
	    "tiny interval: the run passes");
	is_int(w.bad, 0, "every checkpoint seen loads");
	ok(w.nmid >= 1, "checkpoints follow the finished shards (%d seen, %d "
	    "of them with 2 to %d of the %d shards)", w.nseen, w.nmid,
	    K_ALL - 1, K_ALL);
	is_int((long)w.last_done, K_ALL, "the last holds every shard");
	ok(access(w.ck, F_OK) != 0, "the checkpoint is gone at the end");
	het_sample_free(s);
}

static void
test_duty(struct het_config *cfg)
{
	struct watch w;
	struct het_sample *s = run_watched(cfg, "duty", 0.001, 1e6, &w);

	ok(s != NULL && het_sample_verdict(s) == HET_VERDICT_PASSED,
	    "tiny interval, huge duty pause: the run passes");
	is_int(w.bad, 0, "every checkpoint seen loads");
	is_int(w.nseen, 2, "two checkpoints: the duty pause after the first "
	    "holds back all but the final one");
	is_int(w.nmid, 0, "none between");
	is_int((long)w.last_done, K_ALL, "the last holds every shard");
	het_sample_free(s);
}

static void
test_none(struct het_config *cfg)
{
	struct watch w;
	struct het_sample *s = run_watched(cfg, "none", -1, 0, &w);

	ok(s != NULL && het_sample_verdict(s) == HET_VERDICT_PASSED,
	    "interval < 0: the run passes");
	is_int(w.nseen, 0, "... and writes no checkpoint");
	het_sample_free(s);
}

int
main(void)
{
	struct het_config *cfg;
	struct het_error err;
	char path[600];

	if (resume_setup("t_engine_ckpt") != 0)
		skip_all("HETUI, HETUI_WORKER or top_srcdir not set, or the "
		    "test data cannot be simulated");
	signal(SIGPIPE, SIG_IGN);
	plan_lazy();
	cfg = het_config_load(tpath(path, "sample_run.yaml"), &err);
	ok(cfg != NULL, "config loads");
	if (cfg == NULL)
		return exit_status();
	cfg->cmc.num_shards = K_ALL;
	test_default(cfg);
	test_tiny(cfg);
	test_duty(cfg);
	test_none(cfg);
	het_config_free(cfg);
	resume_cleanup();
	done_testing();
	return exit_status();
}
