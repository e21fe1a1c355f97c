/*
 * het_loop.c: the one poll loop of hetui (het_loop.h).
 *
 * Design.  tmux's and Redis's event loops are the model, cut to what
 * hetui needs: a fixed list of sources, each contributing descriptors and
 * a deadline, one poll() per turn, and handlers that always run (a
 * timeout is an event too: reaping and progress clocks live there).
 * Timers are deadlines in het_clock_now() seconds, so a changed wall
 * clock never stalls or floods the loop.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "het_loop.h"
#include "het_thread.h"

int
het_loop_init(struct het_loop *l, const struct het_loop_source *src,
    size_t n, struct het_error *err)
{
	size_t k;

	l->nsrc = 0;
	l->fds = NULL;
	l->cap = 0;
	if (n > HET_LOOP_MAX_SOURCES)
		return het_error_set(err, HET_EINVAL, "event loop: %zu "
		    "sources, at most %d", n, HET_LOOP_MAX_SOURCES);
	for (k = 0; k < n; k++) {
		l->src[k] = src[k];
		l->cap += src[k].max_fds;
	}
	l->nsrc = n;
	if ((l->fds = calloc(l->cap + 1, sizeof(*l->fds))) == NULL)
		return het_error_set(err, HET_ENOMEM, "event loop: out of "
		    "memory for the poll set");
	return HET_OK;
}

void
het_loop_fini(struct het_loop *l)
{
	free(l->fds);
	l->fds = NULL;
	l->cap = l->nsrc = 0;
}

double
het_loop_earlier(double a, double b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

int
het_loop_ms(double dl, double now)
{
	double ms;

	if (dl < 0)
		return -1;
	if (dl <= now)
		return 0;
	ms = ceil((dl - now) * 1000.0);
	return ms > 3.6e6 ? 3600000 : (int)ms;
}

int
het_loop_once(struct het_loop *l)
{
	size_t off[HET_LOOP_MAX_SOURCES + 1], k, i, n;
	struct het_loop_source *s;
	double dl = -1.0, now;
	int rc, saved = 0;

	off[0] = 0;
	for (k = 0; k < l->nsrc; k++) {
		s = &l->src[k];
		n = s->pollfds != NULL ? s->pollfds(s->obj, l->fds + off[k],
		    s->max_fds) : 0;
		if (n > s->max_fds)
			n = s->max_fds;
		for (i = off[k]; i < off[k] + n; i++)
			l->fds[i].revents = 0;
		off[k + 1] = off[k] + n;
		if (s->deadline != NULL)
			dl = het_loop_earlier(dl, s->deadline(s->obj));
	}
	rc = poll(l->fds, off[l->nsrc], het_loop_ms(dl, het_clock_now()));
	if (rc < 0) {
		saved = errno;
		for (i = 0; i < off[l->nsrc]; i++)
			l->fds[i].revents = 0;
	}
	now = het_clock_now();
	for (k = 0; k < l->nsrc; k++) {
		s = &l->src[k];
		if (s->handle != NULL)
			s->handle(s->obj, l->fds + off[k], off[k + 1] - off[k],
			    now);
	}
	if (rc < 0 && saved != EINTR) {
		errno = saved;
		return -1;
	}
	return 0;
}

void
het_wake_init(struct het_wake *w)
{
	w->fd[0] = w->fd[1] = -1;
}

int
het_wake_open(struct het_wake *w, struct het_error *err)
{
	int k, fl;

	het_wake_init(w);
	if (pipe(w->fd) != 0) {
		het_wake_init(w);
		return het_error_sys(err, errno, "cannot create a wake-up "
		    "pipe");
	}
	for (k = 0; k < 2; k++)
		if ((fl = fcntl(w->fd[k], F_GETFL)) < 0 ||
		    fcntl(w->fd[k], F_SETFL, fl | O_NONBLOCK) < 0 ||
		    fcntl(w->fd[k], F_SETFD, FD_CLOEXEC) < 0) {
			het_error_sys(err, errno, "cannot configure a "
			    "wake-up pipe");
			het_wake_close(w);
			return err != NULL ? err->code : HET_EIO;
		}
	return HET_OK;
}

void
het_wake_close(struct het_wake *w)
{
	if (w->fd[0] >= 0)
		close(w->fd[0]);
	if (w->fd[1] >= 0)
		close(w->fd[1]);
	het_wake_init(w);
}

int
het_wake_fd(const struct het_wake *w)
{
	return w->fd[0];
}

void
het_wake_signal(const struct het_wake *w)
{
	int saved = errno;
	ssize_t n;

	if (w->fd[1] >= 0)
		do
			n = write(w->fd[1], "w", 1);
		while (n < 0 && errno == EINTR);
	errno = saved;
}

void
het_wake_drain(const struct het_wake *w)
{
	char buf[256];

	if (w->fd[0] >= 0)
		while (read(w->fd[0], buf, sizeof(buf)) > 0)
			;
}
