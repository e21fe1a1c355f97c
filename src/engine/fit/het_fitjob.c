/*
 * het_fitjob.c: a fit job on its own thread, reporting to the loop
 * through a het_evq (het_fitjob.h).
 *
 * Design: het_fitjob_start copies everything the job reads (the
 * configuration, paths, the warm-start vector), so the loop may change
 * its own configuration while the fit runs.  The thread runs
 * het_fitjob_execute with hooks that write the latest state into the job
 * under its mutex: phase, bins read, the last iteration record and
 * parameter vector, and every iteration record (the loop draws the whole
 * cost history).  A hook posts HET_FITJOB_EV_PROGRESS only when none is
 * pending; het_fitjob_poll copies the state and clears the flag, so one
 * event carries any number of iterations and the queue holds at most one
 * progress event per job.  The lock order is job, then queue.  When
 * execute returns, the thread marks the job finished and posts DONE with
 * the result or FAILED with the error; nothing follows them.  Every
 * signal is blocked in the thread (and so in the pool threads it starts),
 * so they reach the loop thread.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_fitjob.h"
#include "het_h5.h"
#include "het_thread.h"
#include "het_util.h"

struct het_fitjob {
	struct het_evq	*q;		/* borrowed */
	int		 id;
	pthread_t	 thread;
	int		 started;
	atomic_int	 cancel;
	atomic_int	 finished;
	double		 t0;

	/* The snapshot of the spec (owned, read by the thread only). */
	struct het_fitjob_spec spec;
	struct het_config *cfg;
	char		*data_path, *outdir;
	char		**start_names;
	double		*start_x;

	/* The latest state (under lock). */
	pthread_mutex_t	 lock;
	enum het_fitjob_phase phase;
	double		 phase_at[HET_FITJOB_NPHASES];	/* s, -1: not yet */
	size_t		 bins_done, bins_total;
	int		 iterating;
	struct het_fit_progress pr;
	size_t		 p;
	char		**names;
	double		*x, *x0, *lo, *hi;
	struct het_results_iter *hist;
	size_t		 nhist, cap;
	int		 pending;	/* a PROGRESS event is queued */
};

static void
fjb_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

/* Under job->lock: wake the loop unless a wake-up is already queued. */
static void
fjb_notify(struct het_fitjob *job)
{
	struct het_event ev;

	if (job->pending)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.type = HET_FITJOB_EV_PROGRESS;
	ev.job = job->id;
	if (het_evq_post(job->q, &ev) == HET_OK)
		job->pending = 1;
}

/* Under job->lock: the job is now in phase ph (timed when first entered). */
static void
fjb_enter(struct het_fitjob *job, enum het_fitjob_phase ph)
{
	job->phase = ph;
	if (job->phase_at[ph] < 0)
		job->phase_at[ph] = het_clock_now() - job->t0;
}

static void
fjb_read(void *ctx, size_t k, size_t n, const struct het_bin *bin)
{
	struct het_fitjob *job = ctx;

	(void)bin;
	pthread_mutex_lock(&job->lock);
	fjb_enter(job, HET_FITJOB_READING);
	job->bins_done = k + 1;
	job->bins_total = n;
	fjb_notify(job);
	pthread_mutex_unlock(&job->lock);
}

static void
fjb_built(void *ctx, const struct het_problem *pb)
{
	struct het_fitjob *job = ctx;
	size_t k, p = pb->p;

	pthread_mutex_lock(&job->lock);
	job->names = calloc(p > 0 ? p : 1, sizeof(char *));
	job->x = calloc(p > 0 ? p : 1, sizeof(double));
	job->x0 = calloc(p > 0 ? p : 1, sizeof(double));
	job->lo = calloc(p > 0 ? p : 1, sizeof(double));
	job->hi = calloc(p > 0 ? p : 1, sizeof(double));
	if (job->names != NULL && job->x != NULL && job->x0 != NULL &&
	    job->lo != NULL && job->hi != NULL) {
		for (k = 0; k < p; k++)
			job->names[k] = strdup(het_resid_param_name(pb->resid,
			    k));
		memcpy(job->x, pb->x0, p * sizeof(double));
		memcpy(job->x0, pb->x0, p * sizeof(double));
		memcpy(job->lo, pb->lo, p * sizeof(double));
		memcpy(job->hi, pb->hi, p * sizeof(double));
		job->p = p;	/* without memory the table stays empty */
	}
	fjb_enter(job, HET_FITJOB_FITTING);
	fjb_notify(job);
	pthread_mutex_unlock(&job->lock);
}

static void
fjb_iter(void *ctx, const struct het_fit_progress *pr)
{
	struct het_fitjob *job = ctx;
	struct het_results_iter *h;
	size_t cap;

	pthread_mutex_lock(&job->lock);
	job->iterating = 1;
	job->pr = *pr;
	job->pr.x = NULL;
	/* A per-angle fit iterates over a shorter vector: keep the table. */
	if (pr->p == job->p && pr->x != NULL)
		memcpy(job->x, pr->x, pr->p * sizeof(double));
	if (job->nhist == job->cap) {
		cap = job->cap ? 2 * job->cap : 64;
		h = realloc(job->hist, cap * sizeof(*h));
		if (h != NULL) {
			job->hist = h;
			job->cap = cap;
		}
	}
	if (job->nhist < job->cap) {
		h = &job->hist[job->nhist++];
		h->angle = pr->angle;
		h->start = (long)pr->start;
		h->iter = pr->iter;
		h->nfev = pr->nfev;
		h->cost = pr->cost;
		h->chi2_red = pr->chi2_red;
		h->radius = pr->radius;
		h->step_norm = pr->step_norm;
	}
	fjb_notify(job);
	pthread_mutex_unlock(&job->lock);
}

static void
fjb_writing(void *ctx, const char *outdir)
{
	struct het_fitjob *job = ctx;

	(void)outdir;
	pthread_mutex_lock(&job->lock);
	fjb_enter(job, HET_FITJOB_WRITING);
	fjb_notify(job);
	pthread_mutex_unlock(&job->lock);
}

static void *
fjb_main(void *arg)
{
	struct het_fitjob *job = arg;
	struct het_fitjob_hooks hooks = { fjb_read, fjb_built, fjb_iter,
	    fjb_writing, job };
	struct het_fitjob_result *res = NULL;
	struct het_fitjob_failure *f;
	struct het_event ev;
	struct het_error err;
	enum het_fitjob_phase phase;
	int rc;

	het_h5_quiet_thread();
	het_error_clear(&err);
	rc = het_fitjob_execute(&job->spec, &hooks, &job->cancel, &res, &err);
	pthread_mutex_lock(&job->lock);
	phase = job->phase;
	fjb_enter(job, HET_FITJOB_FINISHED);
	pthread_mutex_unlock(&job->lock);
	memset(&ev, 0, sizeof(ev));
	ev.job = job->id;
	if (res != NULL) {
		ev.type = HET_FITJOB_EV_DONE;
		ev.data = res;
		ev.free_cb = het_fitjob_result_free;
	} else {
		if ((f = calloc(1, sizeof(*f))) != NULL) {
			f->phase = phase;
			f->err = err;
			if (rc == HET_OK)	/* cannot happen; be explicit */
				het_error_set(&f->err, HET_EINTERNAL, "the fit "
				    "job ended without a result");
		}
		ev.type = HET_FITJOB_EV_FAILED;
		ev.data = f;
		ev.free_cb = free;
	}
	atomic_store(&job->finished, 1);
	if (het_evq_post(job->q, &ev) != HET_OK && ev.data != NULL)
		ev.free_cb(ev.data);
	return NULL;
}

static int
fjb_snapshot(struct het_fitjob *job, const struct het_fitjob_spec *spec,
    struct het_error *err)
{
	size_t i;

	job->spec = *spec;
	if ((job->cfg = het_config_dup(spec->cfg, err)) == NULL)
		return err->code;
	job->spec.cfg = job->cfg;
	if (spec->data_path != NULL &&
	    (job->data_path = het_strdup(spec->data_path, err)) == NULL)
		return err->code;
	job->spec.data_path = job->data_path;
	if (spec->outdir != NULL &&
	    (job->outdir = het_strdup(spec->outdir, err)) == NULL)
		return err->code;
	job->spec.outdir = job->outdir;
	job->spec.start_names = NULL;
	job->spec.start_x = NULL;
	job->spec.nstart = 0;
	if (spec->start_names == NULL || spec->start_x == NULL ||
	    spec->nstart == 0)
		return HET_OK;
	job->start_names = calloc(spec->nstart, sizeof(char *));
	job->start_x = calloc(spec->nstart, sizeof(double));
	if (job->start_names == NULL || job->start_x == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	job->spec.nstart = spec->nstart;
	for (i = 0; i < spec->nstart; i++)
		if (spec->start_names[i] != NULL &&
		    (job->start_names[i] = het_strdup(spec->start_names[i],
		    err)) == NULL)
			return err->code;
	memcpy(job->start_x, spec->start_x, spec->nstart * sizeof(double));
	job->spec.start_names = (const char *const *)job->start_names;
	job->spec.start_x = job->start_x;
	return HET_OK;
}

static void
fjb_release(struct het_fitjob *job)
{
	het_config_free(job->cfg);
	free(job->data_path);
	free(job->outdir);
	fjb_strv_free(job->start_names, job->spec.nstart);
	free(job->start_x);
	fjb_strv_free(job->names, job->p);
	free(job->x);
	free(job->x0);
	free(job->lo);
	free(job->hi);
	free(job->hist);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

struct het_fitjob *
het_fitjob_start(struct het_evq *q, int id, const struct het_fitjob_spec *spec,
    struct het_error *err)
{
	struct het_fitjob *job;
	int rc, k;

	if (q == NULL || spec == NULL || spec->cfg == NULL) {
		het_error_set(err, HET_EINVAL, "fit job: %s was not given",
		    q == NULL ? "an event queue" : "a configuration");
		return NULL;
	}
	if ((job = calloc(1, sizeof(*job))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&job->lock, NULL);
	job->q = q;
	job->id = id;
	job->t0 = het_clock_now();
	for (k = 0; k < HET_FITJOB_NPHASES; k++)
		job->phase_at[k] = k == HET_FITJOB_STARTING ? 0 : -1;
	atomic_init(&job->cancel, 0);
	atomic_init(&job->finished, 0);
	if (fjb_snapshot(job, spec, err) != HET_OK) {
		fjb_release(job);
		return NULL;
	}
	rc = het_thread_spawn(&job->thread, fjb_main, job);
	if (rc != 0) {
		het_error_set(err, HET_EINTERNAL, "cannot start the fit "
		    "thread: %s", strerror(rc));
		fjb_release(job);
		return NULL;
	}
	job->started = 1;
	return job;
}

void
het_fitjob_cancel(struct het_fitjob *job)
{
	if (job != NULL)
		atomic_store(&job->cancel, 1);
}

int
het_fitjob_finished(struct het_fitjob *job)
{
	return job != NULL && atomic_load(&job->finished);
}

void
het_fitjob_snap_free(struct het_fitjob_snap *s)
{
	if (s == NULL)
		return;
	fjb_strv_free(s->names, s->p);
	free(s->x);
	free(s->x0);
	free(s->lo);
	free(s->hi);
	free(s->hist);
	free(s);
}

static double *
fjb_dup(const double *v, size_t n)
{
	double *d = malloc((n > 0 ? n : 1) * sizeof(double));

	if (d != NULL && n > 0)
		memcpy(d, v, n * sizeof(double));
	return d;
}

struct het_fitjob_snap *
het_fitjob_poll(struct het_fitjob *job, size_t hist_from,
    struct het_error *err)
{
	struct het_fitjob_snap *s;
	size_t k, n;
	int bad = 0;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		goto oom;
	pthread_mutex_lock(&job->lock);
	job->pending = 0;
	s->phase = job->phase;
	memcpy(s->phase_at, job->phase_at, sizeof(s->phase_at));
	s->bins_done = job->bins_done;
	s->bins_total = job->bins_total;
	s->elapsed = het_clock_now() - job->t0;
	s->iterating = job->iterating;
	s->pr = job->pr;
	s->hist_total = job->nhist;
	s->hist_from = hist_from < job->nhist ? hist_from : job->nhist;
	n = job->nhist - s->hist_from;
	if (job->p > 0) {
		s->names = calloc(job->p, sizeof(char *));
		s->x = fjb_dup(job->x, job->p);
		s->x0 = fjb_dup(job->x0, job->p);
		s->lo = fjb_dup(job->lo, job->p);
		s->hi = fjb_dup(job->hi, job->p);
		bad = s->names == NULL || s->x == NULL || s->x0 == NULL ||
		    s->lo == NULL || s->hi == NULL;
		for (k = 0; !bad && k < job->p; k++)
			if (job->names[k] != NULL &&
			    (s->names[k] = strdup(job->names[k])) == NULL)
				bad = 1;
		s->p = job->p;
	}
	if (!bad && n > 0) {
		if ((s->hist = malloc(n * sizeof(*s->hist))) == NULL)
			bad = 1;
		else {
			memcpy(s->hist, job->hist + s->hist_from,
			    n * sizeof(*s->hist));
			s->nhist = n;
		}
	}
	pthread_mutex_unlock(&job->lock);
	if (bad)
		goto oom;
	s->pr.x = s->x;
	return s;
oom:
	het_fitjob_snap_free(s);
	het_error_set(err, HET_ENOMEM, "out of memory while reading the fit's "
	    "progress");
	return NULL;
}

void
het_fitjob_free(struct het_fitjob *job)
{
	if (job == NULL)
		return;
	atomic_store(&job->cancel, 1);
	if (job->started)
		pthread_join(job->thread, NULL);
	fjb_release(job);
}
