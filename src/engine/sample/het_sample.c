/*
 * het_sample.c: the CMC sampling pipeline's object, its phase machine on
 * the loop thread and its accessors (het_sample.h has the contract).
 *
 * Design: a phase either runs on one background thread (READING, NLSQ,
 * PREPARING, COMBINING, WRITING: het_sample_work.c) or on the loop
 * thread (SAMPLING: the coordinator's poll integration).  A background
 * phase ends by setting thr_done and writing one byte to the wake pipe;
 * het_sample_handle sees the byte, joins the thread, takes over its
 * results and warnings, and starts the next phase.  Cancellation sets an
 * atomic flag that READING and NLSQ poll (het_problem's progress callback
 * and het_fit's cancel flag); during SAMPLING it cancels the coordinator
 * and the pipeline goes on to combine and write what finished.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_loop.h"
#include "het_pool.h"
#include "het_proc.h"
#include "het_sample_impl.h"
#include "het_thread.h"
#include "het_util.h"
#include "het_wire_shard.h"

static const char *const phase_names[] = { "idle", "reading", "nlsq",
    "preparing", "sampling", "combining", "writing", "done", "failed",
    "cancelled" };
static const char *const verdict_names[] = { "passed", "gates_failed",
    "shards_failed", "cancelled", "error", "running" };

const char *
het_sample_phase_name(enum het_sample_phase ph)
{
	if ((int)ph < 0 || ph > HET_SAMPLE_CANCELLED)
		return "?";
	return phase_names[ph];
}

const char *
het_sample_verdict_name(enum het_sample_verdict v)
{
	if ((int)v < 0 || v > HET_VERDICT_RUNNING)
		return "?";
	return verdict_names[v];
}

void
het_sample_default_worker(char *buf, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n;

	snprintf(buf, len, "%s/hetui-worker", HET_LIBEXECDIR);
	if (access(buf, X_OK) == 0)
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			snprintf(buf, len, "%s/hetui-worker", self);
			if (access(buf, X_OK) == 0)
				return;
		}
	}
	snprintf(buf, len, "hetui-worker");
}

/* ---- allocation ---------------------------------------------------------- */

static int
hs_dup(const char *in, char **out, struct het_error *err)
{
	*out = NULL;
	if (in == NULL)
		return HET_OK;
	return (*out = het_strdup(in, err)) == NULL ? HET_ENOMEM : HET_OK;
}

struct het_sample *
het_sample_alloc(const struct het_sample_opts *o, struct het_error *err)
{
	struct het_sample *s;
	size_t n, k;

	if (o == NULL || o->cfg == NULL) {
		het_error_set(err, HET_EINVAL, "sample: a configuration is "
		    "required");
		return NULL;
	}
	if (o->workers < 0 || o->threads < 0 || o->dt < 0) {
		het_error_set(err, HET_EINVAL, "sample: workers, threads and "
		    "dt must not be negative");
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	s->o = *o;
	het_wake_init(&s->wake);
	s->verdict = HET_VERDICT_RUNNING;
	s->cmc_status = HET_OK;
	pthread_mutex_init(&s->mu, NULL);
	if ((s->cfg = het_config_dup(o->cfg, err)) == NULL ||
	    hs_dup(o->data_path, &s->data_path, err) ||
	    hs_dup(o->out_dir != NULL ? o->out_dir : o->resume_dir != NULL ?
	    o->resume_dir : o->cfg->output_dir != NULL ?
	    o->cfg->output_dir : "output", &s->out_dir, err) ||
	    hs_dup(o->nlsq_dir != NULL ? o->nlsq_dir : o->resume_dir,
	    &s->nlsq_dir, err) ||
	    hs_dup(o->resume_dir, &s->resume_dir, err) ||
	    hs_dup(o->worker_path, &s->worker_path, err) ||
	    hs_dup(o->log_dir, &s->log_dir, err))
		goto fail;
	if (o->worker_argv != NULL) {
		for (n = 0; o->worker_argv[n] != NULL; n++)
			;
		if ((s->worker_argv = calloc(n + 1, sizeof(char *))) == NULL) {
			het_error_set(err, HET_ENOMEM, "out of memory");
			goto fail;
		}
		for (k = 0; k < n; k++)
			if (hs_dup(o->worker_argv[k], &s->worker_argv[k], err))
				goto fail;
	}
	if (o->seed_set)
		s->cfg->cmc.seed = o->seed;
	if (s->o.workers == 0)
		s->o.workers = het_pool_ncpu();
	if (s->o.kill_grace <= 0)
		s->o.kill_grace = 2.0;
	s->o.cfg = s->cfg;
	s->o.data_path = s->data_path;
	s->o.out_dir = s->out_dir;
	s->o.nlsq_dir = s->nlsq_dir;
	s->o.resume_dir = s->resume_dir;
	s->nlsq_from_resume = o->nlsq_dir == NULL && o->resume_dir != NULL;
	s->o.worker_path = s->worker_path;
	s->o.log_dir = s->log_dir;
	s->o.worker_argv = s->worker_argv;
	if ((s->files = calloc(1, sizeof(char *))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		goto fail;
	}
	return s;
fail:
	het_sample_free(s);
	return NULL;
}

static void
hs_strv_free(char **v, size_t n)
{
	size_t k;

	for (k = 0; v != NULL && k < n; k++)
		free(v[k]);
	free(v);
}

void
het_sample_free(struct het_sample *s)
{
	size_t k, n;

	if (s == NULL)
		return;
	atomic_store(&s->cancel, 1);
	if (s->thr_live)
		pthread_join(s->thr, NULL);
	het_hs_ckpt_free(s);
	het_cmc_free(s->cmc);
	/* rmdir: only what is left empty (a run that wrote nothing) */
	if (s->logs_made && rmdir(s->log_dir) == 0 && s->out_made)
		rmdir(s->out_dir);
	for (k = 0; s->payload != NULL && k < s->npayload; k++)
		json_decref(s->payload[k]);
	for (k = 0; s->reuse != NULL && k < s->npayload; k++)
		json_decref(s->reuse[k]);
	free(s->payload);
	free(s->reuse);
	free(s->reuse_wall);
	free(s->digest);
	if (s->res != NULL) {
		n = s->plan != NULL ? s->plan->nshards : 0;
		for (k = 0; k < n; k++)
			het_shard_result_clear(&s->res[k]);
		free(s->res);
	}
	het_shard_plan_free(s->plan);
	if (s->have_cons)
		het_consensus_clear(&s->cons);
	het_cons_gate_report_clear(&s->gates);
	free(s->gate_of);
	free(s->param);
	free(s->priors);
	het_fit_result_free(s->fit);
	het_results_nlsq_clear(&s->loaded);
	het_results_prev_cmc_clear(&s->prev);
	free(s->nx);
	free(s->nsd);
	free(s->nnames);
	het_problem_free(s->pb);
	for (n = 0; s->files != NULL && s->files[n] != NULL; n++)
		;
	hs_strv_free(s->files, n);
	hs_strv_free(s->warn, s->nwarn);
	hs_strv_free(s->pend_warn, s->npend);
	for (n = 0; s->worker_argv != NULL && s->worker_argv[n] != NULL; n++)
		;
	hs_strv_free(s->worker_argv, n);
	het_wake_close(&s->wake);
	pthread_mutex_destroy(&s->mu);
	het_config_free(s->cfg);
	free(s->data_path);
	free(s->out_dir);
	free(s->nlsq_dir);
	free(s->resume_dir);
	free(s->worker_path);
	free(s->log_dir);
	free(s);
}

/* ---- background phases --------------------------------------------------- */

void
het_hs_warn(struct het_sample *s, const char *fmt, ...)
{
	char buf[HET_ERROR_MSG_MAX], **v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if ((v = realloc(s->pend_warn, (s->npend + 1) * sizeof(*v))) == NULL)
		return;
	s->pend_warn = v;
	if ((v[s->npend] = strdup(buf)) != NULL)
		s->npend++;
}

static void *
hs_thread(void *arg)
{
	struct het_sample *s = arg;

	het_error_clear(&s->thr_err);
	switch (s->phase) {
	case HET_SAMPLE_READING:
		s->thr_rc = het_hs_read(s, &s->thr_err);
		break;
	case HET_SAMPLE_NLSQ:
		s->thr_rc = het_hs_nlsq(s, &s->thr_err);
		break;
	case HET_SAMPLE_PREPARING:
		s->thr_rc = het_hs_prepare(s, &s->thr_err);
		break;
	case HET_SAMPLE_COMBINING:
		s->thr_rc = het_hs_combine(s, &s->thr_err);
		break;
	case HET_SAMPLE_WRITING:
		s->thr_rc = het_hs_write(s, &s->thr_err);
		break;
	default:
		s->thr_rc = het_error_set(&s->thr_err, HET_EINTERNAL,
		    "sample: no background work in phase %s",
		    het_sample_phase_name(s->phase));
		break;
	}
	atomic_store(&s->thr_done, 1);
	het_wake_signal(&s->wake);
	return NULL;
}

static void
hs_set_phase(struct het_sample *s, enum het_sample_phase ph)
{
	s->phase = ph;
	if (s->o.on_change != NULL)
		s->o.on_change(s, HET_SAMPLE_CHANGED_PHASE, 0, s->o.arg);
}

/* End the pipeline. */
static void
hs_end(struct het_sample *s, enum het_sample_phase ph,
    enum het_sample_verdict v)
{
	s->verdict = v;
	hs_set_phase(s, ph);
}

static void
hs_fail(struct het_sample *s, const struct het_error *e)
{
	s->err = *e;
	hs_end(s, HET_SAMPLE_FAILED, HET_VERDICT_ERROR);
}

/* Enter a background phase. */
static void
hs_spawn(struct het_sample *s, enum het_sample_phase ph)
{
	struct het_error e;
	int rc;

	hs_set_phase(s, ph);
	atomic_store(&s->thr_done, 0);
	/* Signals belong to the loop thread (a handler or a self-pipe). */
	rc = het_thread_spawn(&s->thr, hs_thread, s);
	if (rc != 0) {
		het_error_sys(&e, rc, "sample: cannot start a thread");
		hs_fail(s, &e);
		return;
	}
	s->thr_live = 1;
}

int
het_sample_start(struct het_sample *s, struct het_error *err)
{

	if (s->phase != HET_SAMPLE_IDLE)
		return het_error_set(err, HET_EINVAL, "sample: already "
		    "started");
	if (het_wake_open(&s->wake, err) != HET_OK)
		return err != NULL ? err->code : HET_EIO;
	s->t0 = het_clock_now();
	hs_spawn(s, HET_SAMPLE_READING);
	if (s->phase == HET_SAMPLE_FAILED) {
		*err = s->err;
		return HET_EIO;
	}
	return HET_OK;
}

/* Merge the queued warnings into warn (loop thread, no phase thread). */
static void
hs_take_warnings(struct het_sample *s)
{
	char **v;
	size_t k;

	if (s->npend == 0 || (v = realloc(s->warn, (s->nwarn + s->npend) *
	    sizeof(*v))) == NULL)
		return;
	s->warn = v;
	for (k = 0; k < s->npend; k++)
		v[s->nwarn++] = s->pend_warn[k];
	s->npend = 0;
}

void
het_hs_warn_now(struct het_sample *s, const char *fmt, ...)
{
	char buf[HET_ERROR_MSG_MAX];
	size_t n = s->nwarn;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	het_hs_warn(s, "%s", buf);
	hs_take_warnings(s);
	if (s->nwarn > n && s->o.on_change != NULL)
		s->o.on_change(s, HET_SAMPLE_CHANGED_WARNING, s->nwarn - 1,
		    s->o.arg);
}

/*
 * A shard on course to run past per_shard_timeout is killed at the
 * limit, retried and killed again: hours lost.  Say so while there is
 * time to act, once a run, from the pace of a running shard: after 1/20
 * of the limit (at most 60 s) once it is 5 % done, or after a quarter of
 * the limit however far it got.  Shown at once.
 */
static void
hs_check_pace(struct het_sample *s, double now)
{
	const struct het_cmc_shard *sh;
	double limit = s->cfg->cmc.per_shard_timeout, f, t, need;
	long per_chain = s->settings.num_warmup + s->settings.num_samples;
	size_t k, n = het_cmc_nshards(s->cmc);

	if (s->pace_warned || limit <= 0)
		return;
	for (k = 0; k < n; k++) {
		sh = het_cmc_shard(s->cmc, k);
		if (sh->state != HET_CMC_RUNNING)
			continue;
		f = het_cmc_shard_progress(sh, s->settings.num_chains,
		    per_chain);
		t = now - sh->t_start;
		if (f <= 0 || t < (limit / 20 < 60 ? limit / 20 : 60) ||
		    (f < 0.05 && t < limit / 4) ||
		    (need = t / f) <= 1.1 * limit)
			continue;
		s->pace_warned = 1;
		het_hs_warn_now(s,
		    "shard %ld is %.0f %% done after %.0f s, so it "
		    "needs about %.0f s, more than optimization.cmc.timeout."
		    "per_shard_timeout (%.0f s): it will be killed at the "
		    "limit and retried, and the retry too.  Stop the run and "
		    "raise per_shard_timeout (to %.0f s, say), or use more, "
		    "smaller shards (num_shards)", sh->id, 100 * f, t, need,
		    limit, 100 * ceil(2 * need / 100));
		return;
	}
}

/* ---- the coordinator ----------------------------------------------------- */

static void
hs_cmc_change(struct het_cmc *c, size_t index, void *arg)
{
	struct het_sample *s = arg;

	(void)c;
	if (s->o.on_change != NULL)
		s->o.on_change(s, HET_SAMPLE_CHANGED_SHARD, index, s->o.arg);
}

/*
 * chain_method parallel: the cores this machine gives each worker that
 * will run (at most one per shard to sample), as threads for a shard's
 * chains; set in the payloads after their digests (how, not what).
 */
static void
hs_chain_threads(struct het_sample *s)
{
	long ncpu = het_pool_ncpu(), nc = s->settings.num_chains, active, t;
	size_t k, nrun = 0;

	for (k = 0; k < s->npayload; k++)
		nrun += s->reuse[k] == NULL;
	active = s->o.workers < (long)nrun ? s->o.workers : (long)nrun;
	t = active > 0 && ncpu > active ? ncpu / active : 1;
	if (t > nc)
		t = nc;
	/* as few threads as give the same number of rounds: 4 chains on
	   3 threads take as long as on 2 */
	if (t > 1)
		t = (nc + (nc + t - 1) / t - 1) / ((nc + t - 1) / t);
	s->chain_threads = s->cfg->cmc.chain_parallel && t > 1 ? t : 1;
	for (k = 0; s->chain_threads > 1 && k < s->npayload; k++)
		if (s->reuse[k] == NULL)
			json_object_set_new(s->payload[k], "chain_threads",
			    json_integer(s->chain_threads));
}

/*
 * OUT/worker-logs for the workers' stderr (opts.worker_logs).  A folder
 * that cannot be made costs the messages, not the run: warn and go on
 * with /dev/null.
 */
static void
hs_worker_logs(struct het_sample *s)
{
	struct het_error e;
	struct stat st;
	char *dir;

	if (s->log_dir != NULL || !s->o.worker_logs)
		return;
	het_error_clear(&e);
	s->out_made = stat(s->out_dir, &st) != 0;
	if (asprintf(&dir, "%s/worker-logs", s->out_dir) < 0)
		return;
	if (het_mkdirs(dir, "worker log folder", &e) != HET_OK) {
		het_hs_warn_now(s, "%s; the workers' messages are discarded",
		    e.msg);
		free(dir);
		return;
	}
	s->log_dir = dir;
	s->o.log_dir = dir;
	s->logs_made = 1;
}

/* het_cmc's check of each result on receipt: complete, p parameters. */
static int
hs_check_result(const json_t *result, long shard, void *arg,
    struct het_error *err)
{
	const struct het_sample *s = arg;

	return het_wire_result_check(result, shard, s->pb->p, err);
}

static int
hs_start_sampling(struct het_sample *s, double now, struct het_error *err)
{
	struct het_cmc_opts co;
	char **argv = NULL, defw[PATH_MAX];
	size_t k, resume_warn;
	int rc;

	memset(&co, 0, sizeof(co));
	het_cmc_opts_from_cmc(&s->cfg->cmc, &co);
	if (s->worker_argv != NULL)
		co.argv = s->worker_argv;
	else if (s->cfg->cmc.worker_command != NULL) {
		if ((argv = het_cmc_split_command(s->cfg->cmc.worker_command,
		    err)) == NULL)
			return het_error_prefix(err, "optimization.cmc."
			    "worker_command");
		co.argv = argv;
	} else if (s->worker_path != NULL)
		co.worker_path = s->worker_path;
	else {
		het_sample_default_worker(defw, sizeof(defw));
		co.worker_path = defw;
	}
	resume_warn = s->nwarn - s->nresume_warn;	/* before any new one */
	hs_worker_logs(s);
	co.log_dir = s->log_dir;
	co.max_workers = (size_t)s->o.workers;
	co.kill_grace = s->o.kill_grace;
	co.on_change = hs_cmc_change;
	co.check_result = hs_check_result;
	co.arg = s;
	/* het_cmc copies argv and worker_path into its procset */
	if ((s->cmc = het_cmc_alloc(&co, err)) == NULL) {
		free(argv);
		return err->code;
	}
	free(argv);
	hs_chain_threads(s);
	for (k = 0; k < s->npayload; k++) {
		if (s->reuse[k] != NULL) {
			json_decref(s->payload[k]);
			rc = het_cmc_add_done(s->cmc, (long)k,
			    het_shard_size(s->plan, k), s->reuse[k],
			    s->reuse_wall[k], err);
		} else
			rc = het_cmc_add(s->cmc, (long)k,
			    het_shard_size(s->plan, k), s->payload[k], err);
		s->payload[k] = s->reuse[k] = NULL;
		if (rc != HET_OK)
			return rc;
	}
	s->t_sampling = now;
	hs_set_phase(s, HET_SAMPLE_SAMPLING);
	/* --resume's warnings now, before hours of sampling */
	for (k = resume_warn; s->o.on_change != NULL &&
	    k < resume_warn + s->nresume_warn; k++)
		s->o.on_change(s, HET_SAMPLE_CHANGED_WARNING, k, s->o.arg);
	return het_cmc_start(s->cmc, now, err);
}

/* The background phase that just ended. */
static void
hs_phase_done(struct het_sample *s, double now)
{
	struct het_error e;
	int rc = s->thr_rc;

	pthread_join(s->thr, NULL);
	s->thr_live = 0;
	hs_take_warnings(s);
	if (rc == HET_ECANCEL || (rc == HET_OK && s->cancelled &&
	    s->phase < HET_SAMPLE_SAMPLING)) {
		hs_end(s, HET_SAMPLE_CANCELLED, HET_VERDICT_CANCELLED);
		return;
	}
	if (rc != HET_OK) {
		hs_fail(s, &s->thr_err);
		return;
	}
	switch (s->phase) {
	case HET_SAMPLE_READING:
		hs_spawn(s, HET_SAMPLE_NLSQ);
		break;
	case HET_SAMPLE_NLSQ:
		hs_spawn(s, HET_SAMPLE_PREPARING);
		break;
	case HET_SAMPLE_PREPARING:
		het_error_clear(&e);
		if (hs_start_sampling(s, now, &e) != HET_OK)
			hs_fail(s, &e);
		break;
	case HET_SAMPLE_COMBINING:
		if (s->have_sum)
			hs_spawn(s, HET_SAMPLE_WRITING);
		else if (s->cancelled)
			hs_end(s, HET_SAMPLE_CANCELLED, HET_VERDICT_CANCELLED);
		else
			hs_end(s, HET_SAMPLE_DONE, HET_VERDICT_SHARDS_FAILED);
		break;
	case HET_SAMPLE_WRITING:
		s->sum.wall_time = het_clock_now() - s->t0;
		if (s->cancelled)
			hs_end(s, HET_SAMPLE_CANCELLED, HET_VERDICT_CANCELLED);
		else if (s->cmc_status != HET_OK)
			hs_end(s, HET_SAMPLE_DONE, HET_VERDICT_SHARDS_FAILED);
		else
			hs_end(s, HET_SAMPLE_DONE, s->sum.gates_pass ?
			    HET_VERDICT_PASSED : HET_VERDICT_GATES_FAILED);
		break;
	default:
		break;
	}
}

/* ---- poll-loop integration ----------------------------------------------- */

size_t
het_sample_pollfds_max(const struct het_sample *s)
{
	return 1 + 2 * (size_t)s->o.workers + 2;
}

int
het_sample_pollfds(struct het_sample *s, struct pollfd *fds, size_t cap,
    size_t *n)
{
	size_t m = 0;

	*n = 0;
	if (cap < 1 || het_wake_fd(&s->wake) < 0)
		return HET_OK;
	fds[0].fd = het_wake_fd(&s->wake);
	fds[0].events = POLLIN;
	fds[0].revents = 0;
	*n = 1;
	if (s->phase == HET_SAMPLE_SAMPLING && s->cmc != NULL) {
		het_cmc_pollfds(s->cmc, fds + 1, cap - 1, &m);
		*n += m;
	}
	return HET_OK;
}

void
het_sample_handle(struct het_sample *s, const struct pollfd *fds, size_t n,
    double now)
{
	struct het_error e;

	het_wake_drain(&s->wake);
	if (atomic_exchange(&s->cancel_req, 0))
		het_sample_cancel(s, now);
	if (s->phase == HET_SAMPLE_SAMPLING) {
		het_cmc_handle(s->cmc, n > 1 ? fds + 1 : NULL, n > 1 ? n - 1 :
		    0, now);
		hs_check_pace(s, now);
		het_hs_ckpt_poll(s, now);
		/* a checkpoint in flight ends first: one writer at a time */
		if (het_cmc_finished(s->cmc) && !het_hs_ckpt_busy(s)) {
			het_error_clear(&e);
			s->cmc_status = het_cmc_status(s->cmc, &e);
			s->sampling_wall = now - s->t_sampling;
			if (s->cmc_status != HET_OK && !s->cancelled)
				s->err = e;
			hs_spawn(s, HET_SAMPLE_COMBINING);
		}
		return;
	}
	if (s->thr_live && atomic_load(&s->thr_done))
		hs_phase_done(s, now);
}

double
het_sample_next_deadline(const struct het_sample *s)
{
	double a, b;

	if (s->phase != HET_SAMPLE_SAMPLING || s->cmc == NULL)
		return -1;
	a = het_cmc_next_deadline(s->cmc);
	b = het_hs_ckpt_deadline(s);
	return a < 0 ? b : b < 0 || a < b ? a : b;
}

int
het_sample_finished(const struct het_sample *s)
{
	return s->phase >= HET_SAMPLE_DONE;
}

void
het_sample_cancel(struct het_sample *s, double now)
{
	/* Combining and writing are short and keep every shard: the run is
	 * complete, and a cancel then changes nothing. */
	if (het_sample_finished(s) || s->phase >= HET_SAMPLE_COMBINING)
		return;
	s->cancelled = 1;
	atomic_store(&s->cancel, 1);
	if (s->phase == HET_SAMPLE_IDLE) {
		hs_end(s, HET_SAMPLE_CANCELLED, HET_VERDICT_CANCELLED);
		return;
	}
	if (s->phase == HET_SAMPLE_SAMPLING && s->cmc != NULL)
		het_cmc_cancel(s->cmc, now, "interrupted");
}

void
het_sample_cancel_async(struct het_sample *s)
{

	atomic_store(&s->cancel, 1);	/* background phases stop at once */
	atomic_store(&s->cancel_req, 1);
	het_wake_signal(&s->wake);	/* async-signal-safe, keeps errno */
}

/* The pipeline as a het_loop source (het_sample_run, the workstation). */
size_t
het_sample_loop_fds(void *obj, struct pollfd *fds, size_t cap)
{
	size_t n = 0;

	if (het_sample_finished(obj) || het_sample_pollfds(obj, fds, cap,
	    &n) != HET_OK)
		return 0;
	return n;
}

double
het_sample_loop_deadline(void *obj)
{
	struct het_sample *s = obj;

	if (het_sample_finished(s))
		return -1.0;
	/* SAMPLING reaps on a 0.1 s tick; earlier phases show progress. */
	return het_loop_earlier(het_sample_next_deadline(s), het_clock_now() +
	    (s->phase == HET_SAMPLE_SAMPLING ? 0.1 : 0.25));
}

void
het_sample_loop_handle(void *obj, const struct pollfd *fds, size_t n,
    double now)
{
	if (!het_sample_finished(obj))
		het_sample_handle(obj, fds, n, now);
}

enum het_sample_verdict
het_sample_run(struct het_sample *s)
{
	struct het_loop_source src = { s, het_sample_pollfds_max(s),
	    het_sample_loop_fds, het_sample_loop_deadline,
	    het_sample_loop_handle };
	struct het_loop loop;
	struct het_error e;

	if (het_loop_init(&loop, &src, 1, &e) != HET_OK) {
		hs_fail(s, &e);
		return s->verdict;
	}
	het_error_clear(&e);
	if (s->phase == HET_SAMPLE_IDLE && het_sample_start(s, &e) != HET_OK &&
	    !het_sample_finished(s))
		hs_fail(s, &e);
	while (!het_sample_finished(s))
		(void)het_loop_once(&loop);
	het_loop_fini(&loop);
	return s->verdict;
}
