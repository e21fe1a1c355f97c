/*
 * het_scan_srv.c: the scan server, a thread that lists folders and
 * follows one folder for the workstation (see het_scan.h).
 *
 * Design: the same shape as het_io: request slots under one mutex and a
 * condition variable, "latest wins" for listings, generations on every
 * payload.  The thread owns the follower and the last complete listing
 * (a metadata cache: a file whose name, size and time are unchanged is
 * not opened again).  When following, the thread sleeps in a timed wait
 * on the monotonic clock until the next check is due, so a listing
 * request is served at once even between checks, and a check never
 * delays a listing by more than one file's metadata read.  Nothing here
 * draws or prints: results and errors become het_evq events.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_h5.h"
#include "het_scan_impl.h"
#include "het_thread.h"
#include "het_util.h"

#define POST_EVERY	0.25	/* seconds between partial listings */

struct het_scan {
	struct het_evq	*q;		/* borrowed */
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;		/* on CLOCK_MONOTONIC */
	pthread_t	 thread;
	int		 started;
	atomic_int	 stop;
	unsigned long	 next_gen;

	/* Request slots (under lock). */
	int		 list_pending;
	char		*list_path;
	unsigned long	 list_gen;
	int		 listing;	/* a listing is being served */
	int		 follow_pending;
	int		 follow_on;	/* following is wanted */
	char		*follow_dir;
	double		 follow_interval;
	unsigned	 follow_stable;
	unsigned long	 follow_gen;

	/* Owned by the thread. */
	struct het_follow *fl;
	unsigned long	 fl_gen;
	double		 fl_interval;
	char		 fl_error[HET_ERROR_MSG_MAX];
	struct het_scan_list *cache;
};

static void
scan_post(struct het_scan *s, int type, void *data, void (*free_cb)(void *))
{
	struct het_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.data = data;
	ev.free_cb = free_cb;
	if (het_evq_post(s->q, &ev) != HET_OK)
		free_cb(data);	/* out of memory: the result is lost */
}

static void
scan_fail(struct het_scan *s, enum het_scan_req_kind kind, unsigned long gen,
    const char *dir, const struct het_error *err)
{
	struct het_scan_failure *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return;
	f->gen = gen;
	f->kind = kind;
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	f->err = *err;
	scan_post(s, HET_SCAN_EV_ERROR, f, free);
}

/* Post a copy of l (the thread keeps l). */
static void
scan_post_list(struct het_scan *s, const struct het_scan_list *l)
{
	struct het_scan_list *c = het_scan_list_copy(l);

	if (c != NULL)
		scan_post(s, HET_SCAN_EV_LIST, c, het_scan_list_free);
}

static int
scan_superseded(struct het_scan *s)
{
	int dead;

	if (atomic_load(&s->stop))
		return 1;
	pthread_mutex_lock(&s->lock);
	dead = s->list_pending;
	pthread_mutex_unlock(&s->lock);
	return dead;
}

/* Copy what the cache knows about files that have not changed. */
static size_t
scan_reuse(const struct het_scan_list *cache, struct het_scan_list *l)
{
	struct het_scan_entry *e;
	size_t i, k, left = 0;

	for (i = 0; i < l->nfiles; i++) {
		e = &l->files[i];
		for (k = 0; cache != NULL && strcmp(cache->dir, l->dir) == 0 &&
		    k < cache->nfiles; k++) {
			if (!cache->files[k].probed ||
			    !het_scan_same(&cache->files[k], e))
				continue;
			e->probed = 1;
			e->ok = cache->files[k].ok;
			e->multitau = cache->files[k].multitau;
			e->layout = cache->files[k].layout;
			e->nbins = cache->files[k].nbins;
			e->n_q = cache->files[k].n_q;
			e->n_phi = cache->files[k].n_phi;
			e->frames = cache->files[k].frames;
			if (cache->files[k].error != NULL)
				e->error = strdup(cache->files[k].error);
			break;
		}
		left += !e->probed;
	}
	return left;
}

static void
scan_do_list(struct het_scan *s, const char *path, unsigned long gen)
{
	struct het_scan_list *l;
	struct het_error err;
	double last;
	size_t i;

	het_error_clear(&err);
	if (het_scan_read(path, &l, &err) != HET_OK) {
		if (!scan_superseded(s))
			scan_fail(s, HET_SCAN_REQ_LIST, gen, path, &err);
		return;
	}
	l->gen = gen;
	if (scan_reuse(s->cache, l) > 0) {
		scan_post_list(s, l);
		last = het_clock_now();
		for (i = 0; i < l->nfiles; i++) {
			if (l->files[i].probed)
				continue;
			if (scan_superseded(s)) {
				het_scan_list_free(l);
				return;
			}
			if (het_scan_probe(l->dir, &l->files[i]) != HET_OK)
				break;	/* out of memory: left unprobed */
			if (het_clock_now() - last >= POST_EVERY) {
				scan_post_list(s, l);
				last = het_clock_now();
			}
		}
	}
	(void)het_scan_set_note(l);
	l->complete = 1;
	scan_post_list(s, l);
	het_scan_list_free(s->cache);
	s->cache = l;
}

static void
scan_do_follow_start(struct het_scan *s, const char *dir, unsigned stable,
    unsigned long gen)
{
	struct het_scan_found *fd;
	struct het_error err;
	const char *nw;

	het_follow_free(s->fl);
	s->fl = NULL;
	s->fl_error[0] = '\0';
	het_error_clear(&err);
	if ((s->fl = het_follow_alloc(dir, stable, &err)) == NULL) {
		scan_fail(s, HET_SCAN_REQ_FOLLOW, gen, dir, &err);
		return;
	}
	s->fl_gen = gen;
	if ((fd = calloc(1, sizeof(*fd))) == NULL)
		return;
	fd->gen = gen;
	fd->dir = strdup(het_follow_dir(s->fl));
	nw = het_follow_newest(s->fl);
	fd->path = nw != NULL ? strdup(nw) : NULL;
	if (fd->dir == NULL || (nw != NULL && fd->path == NULL)) {
		het_scan_found_free(fd);
		return;
	}
	scan_post(s, HET_SCAN_EV_FOLLOWING, fd, het_scan_found_free);
}

static void
scan_do_follow_check(struct het_scan *s)
{
	struct het_scan_found *fd;
	struct het_error err;
	long long size = 0;
	char *found;

	het_error_clear(&err);
	if (het_follow_check(s->fl, &found, &size, &err) != HET_OK) {
		/* Report a failure once, not at every check. */
		if (strcmp(err.msg, s->fl_error) != 0) {
			snprintf(s->fl_error, sizeof(s->fl_error), "%s",
			    err.msg);
			scan_fail(s, HET_SCAN_REQ_FOLLOW, s->fl_gen,
			    het_follow_dir(s->fl), &err);
		}
		return;
	}
	s->fl_error[0] = '\0';
	if (found == NULL)
		return;
	if ((fd = calloc(1, sizeof(*fd))) == NULL ||
	    (fd->dir = strdup(het_follow_dir(s->fl))) == NULL) {
		free(found);
		het_scan_found_free(fd);
		return;
	}
	fd->gen = s->fl_gen;
	fd->path = found;
	fd->size = size;
	scan_post(s, HET_SCAN_EV_FOUND, fd, het_scan_found_free);
}

static void
scan_deadline(double t, struct timespec *ts)
{
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *
scan_main(void *arg)
{
	struct het_scan *s = arg;
	struct timespec ts;
	double next = 0;
	unsigned long gen;
	unsigned stable;
	char *path;

	het_h5_quiet_thread();
	pthread_mutex_lock(&s->lock);
	while (!atomic_load(&s->stop)) {
		if (s->list_pending) {
			path = s->list_path;
			gen = s->list_gen;
			s->list_path = NULL;
			s->list_pending = 0;
			s->listing = 1;
			pthread_mutex_unlock(&s->lock);
			scan_do_list(s, path, gen);
			free(path);
			pthread_mutex_lock(&s->lock);
			s->listing = 0;
			continue;
		}
		if (s->follow_pending) {
			path = s->follow_dir;
			gen = s->follow_gen;
			stable = s->follow_stable;
			s->fl_interval = s->follow_interval;
			s->follow_dir = NULL;
			s->follow_pending = 0;
			pthread_mutex_unlock(&s->lock);
			scan_do_follow_start(s, path, stable, gen);
			free(path);
			next = het_clock_now() + s->fl_interval;
			pthread_mutex_lock(&s->lock);
			continue;
		}
		if (!s->follow_on && s->fl != NULL) {
			het_follow_free(s->fl);
			s->fl = NULL;
			continue;
		}
		if (s->fl != NULL && het_clock_now() >= next) {
			pthread_mutex_unlock(&s->lock);
			scan_do_follow_check(s);
			next = het_clock_now() + s->fl_interval;
			pthread_mutex_lock(&s->lock);
			continue;
		}
		if (s->fl != NULL) {
			scan_deadline(next, &ts);
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
		} else
			pthread_cond_wait(&s->cond, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct het_scan *
het_scan_alloc(struct het_evq *q, struct het_error *err)
{
	pthread_condattr_t ca;
	struct het_scan *s;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory starting the "
		    "folder scanner");
		return NULL;
	}
	s->q = q;
	atomic_init(&s->stop, 0);
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		het_error_set(err, HET_EINTERNAL, "cannot create the folder "
		    "scanner's mutex");
		return NULL;
	}
	if (pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&s->cond, &ca) != 0) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		het_error_set(err, HET_EINTERNAL, "cannot create the folder "
		    "scanner's condition variable");
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	return s;
}

int
het_scan_start(struct het_scan *s, struct het_error *err)
{
	int rc;

	if (s->started)
		return het_error_set(err, HET_EINTERNAL,
		    "the folder scanner is already running");
	rc = het_thread_spawn(&s->thread, scan_main, s);
	if (rc != 0)
		return het_error_set(err, HET_EINTERNAL,
		    "cannot start the folder scanner thread: %s",
		    strerror(rc));
	s->started = 1;
	return HET_OK;
}

int
het_scan_list(struct het_scan *s, const char *path, unsigned long *gen,
    struct het_error *err)
{
	char *copy = het_strdup(path, err);

	if (copy == NULL)
		return HET_ENOMEM;
	pthread_mutex_lock(&s->lock);
	free(s->list_path);
	s->list_path = copy;
	s->list_gen = ++s->next_gen;
	s->list_pending = 1;
	if (gen != NULL)
		*gen = s->list_gen;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return HET_OK;
}

int
het_scan_follow(struct het_scan *s, const char *dir, double interval,
    unsigned stable, unsigned long *gen, struct het_error *err)
{
	char *copy;

	if (!isfinite(interval) || interval <= 0)
		return het_error_set(err, HET_EINVAL, "follow: the check "
		    "interval must be a positive number of seconds (got %g)",
		    interval);
	if (stable == 0)
		return het_error_set(err, HET_EINVAL, "follow: the number of "
		    "stable checks must be at least 1");
	if ((copy = het_strdup(dir, err)) == NULL)
		return HET_ENOMEM;
	pthread_mutex_lock(&s->lock);
	free(s->follow_dir);
	s->follow_dir = copy;
	s->follow_interval = interval;
	s->follow_stable = stable;
	s->follow_gen = ++s->next_gen;
	s->follow_pending = 1;
	s->follow_on = 1;
	if (gen != NULL)
		*gen = s->follow_gen;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return HET_OK;
}

void
het_scan_unfollow(struct het_scan *s)
{
	pthread_mutex_lock(&s->lock);
	s->follow_on = 0;
	s->follow_pending = 0;
	free(s->follow_dir);
	s->follow_dir = NULL;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

int
het_scan_busy(struct het_scan *s)
{
	int busy;

	pthread_mutex_lock(&s->lock);
	busy = s->listing || s->list_pending;
	pthread_mutex_unlock(&s->lock);
	return busy;
}

void
het_scan_free(struct het_scan *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	atomic_store(&s->stop, 1);
	s->list_pending = 0;
	s->follow_pending = 0;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->started)
		pthread_join(s->thread, NULL);
	free(s->list_path);
	free(s->follow_dir);
	het_follow_free(s->fl);
	het_scan_list_free(s->cache);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
