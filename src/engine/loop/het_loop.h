/*
 * het_loop.h: the one poll loop of hetui: the workstation's, `hetui
 * sample`'s (het_sample_run) and the CMC coordinator's (het_cmc_run).
 *
 * Module engine/loop (the opening comment of this folder): how the
 * engine runs: the one poll loop with its wake pipe (het_loop), the
 * event queue from threads to the loop (het_evq), the clock and the
 * thread start with signals blocked (het_thread), and the deterministic
 * thread pool (het_pool).
 *
 * A loop is a short list of sources.  Each gives its file descriptors,
 * its next deadline and a handler; het_loop_once builds one poll set from
 * all of them, sleeps in poll() until a descriptor is ready or the
 * earliest deadline is due, then calls every source's handler with its
 * own slice of the set, in the order the sources were added (also on a
 * timeout, when no entry has revents: handlers do their timed work
 * there).  A source that must wake periodically (reaping, a progress
 * clock) says so through its deadline.  Wake-ups from other threads and
 * from signal handlers reach the loop through a pipe that is one of the
 * sources' descriptors (het_evq, a self-pipe): the loop itself owns no
 * descriptor and allocates nothing after het_loop_init.
 *
 * Thread: one thread per loop (the thread that owns its sources).
 */
#ifndef HET_LOOP_H
#define HET_LOOP_H

#include <poll.h>
#include <stddef.h>

#include "het_error.h"

/*
 * A source.  obj is passed back to every hook; every hook may be NULL.
 *   pollfds   fill at most cap entries of fds (fd and events; revents is
 *             cleared by the loop) and return how many; cap is at least
 *             the source's max_fds.
 *   deadline  the next time it must run (het_clock_now seconds,
 *             absolute), or < 0 for none.
 *   handle    after every poll: the n entries it filled, with revents,
 *             and the time poll returned.
 */
struct het_loop_source {
	void	*obj;
	size_t	 max_fds;
	size_t	(*pollfds)(void *obj, struct pollfd *fds, size_t cap);
	double	(*deadline)(void *obj);
	void	(*handle)(void *obj, const struct pollfd *fds, size_t n,
		    double now);
};

#define HET_LOOP_MAX_SOURCES	8

struct het_loop {
	struct het_loop_source	 src[HET_LOOP_MAX_SOURCES];
	size_t			 nsrc;
	struct pollfd		*fds;	/* sum of max_fds entries */
	size_t			 cap;
};

/*
 * het_loop_init: a loop over the n sources (copied; n <= 
 * HET_LOOP_MAX_SOURCES) and its poll set.  HET_OK, HET_EINVAL (too many
 * sources) or HET_ENOMEM.  het_loop_fini frees the set.
 */
int het_loop_init(struct het_loop *l, const struct het_loop_source *src,
    size_t n, struct het_error *err);
void het_loop_fini(struct het_loop *l);

/*
 * het_loop_once: one turn: the poll set from the sources, poll() with
 * the earliest deadline as the timeout (none: until a descriptor is
 * ready), then every handler.  Returns 0, or -1 with errno when poll
 * failed for another reason than EINTR (the handlers then still ran,
 * with no revents).
 */
int het_loop_once(struct het_loop *l);

/*
 * het_loop_ms: poll's timeout in ms for a deadline dl (absolute, < 0:
 * none) at time now: -1 without a deadline, 0 when due, else rounded up
 * so that the wake is never early.
 */
int het_loop_ms(double dl, double now);

/* het_loop_earlier: the earlier of two deadlines (< 0: none). */
double het_loop_earlier(double a, double b);

/*
 * A wake-up pipe: the one way other threads and signal handlers wake a
 * loop (het_evq's queue, the sampling pipeline's background phases and
 * cancel requests).  Both ends non-blocking and close-on-exec; a full
 * pipe means a wake-up is already pending, which is all a waker needs.
 *   het_wake_open: HET_OK, or HET_EIO with the system's reason.
 *   het_wake_close: closes what is open (safe twice, and on a struct
 *     that het_wake_init only initialised).
 *   het_wake_fd: the read end for the poll set, -1 when closed.
 *   het_wake_signal: one byte; async-signal-safe, keeps errno.  Any
 *     thread, or a signal handler.
 *   het_wake_drain: empty the pipe; the loop calls it before it looks at
 *     what the wakers changed, so no wake-up is lost.
 */
struct het_wake {
	int	 fd[2];
};

void het_wake_init(struct het_wake *w);
int het_wake_open(struct het_wake *w, struct het_error *err);
void het_wake_close(struct het_wake *w);
int het_wake_fd(const struct het_wake *w);
void het_wake_signal(const struct het_wake *w);
void het_wake_drain(const struct het_wake *w);

#endif /* HET_LOOP_H */
