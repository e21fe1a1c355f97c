/*
 * t_engine_loop.c: the one poll loop (het_loop.h).
 *
 * Checks:
 *   - het_loop_ms: -1 without a deadline, 0 when due, rounded up (1.2 ms
 *     -> 2, never early); het_loop_earlier with none on either side;
 *   - a turn over three sources (a pipe with a byte in it, a pipe
 *     without, a deadline-only source): every handler runs, in the
 *     order added, each with its own slice of the poll set (1, 1 and 0
 *     entries), POLLIN only where the byte is; the turn does not wait
 *     for the deadline when a descriptor is ready;
 *   - a turn with nothing ready wakes at the earliest deadline and not
 *     before it (the elapsed time is at least the deadline's distance;
 *     no upper bound is asserted: the machine may be loaded);
 *   - a signal during poll (EINTR, 20 ms into it; a 5 s deadline in case
 *     the signal came before poll on a loaded machine): the turn returns
 *     0 and the handlers ran with no revents;
 *   - a source filling more than its max_fds is cut to max_fds;
 *   - het_loop_init refuses more than HET_LOOP_MAX_SOURCES sources;
 *   - het_wake: a fresh pipe is not readable, a signal (errno kept) makes
 *     it readable, one drain empties two signals, close leaves fd -1 and
 *     makes signal, drain and a second close harmless.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "het_loop.h"
#include "het_thread.h"
#include "tap.h"

struct src {
	int	 fd;		/* -1: none */
	size_t	 fill;		/* entries it claims to fill */
	double	 dl;		/* deadline, < 0 none */
	int	 calls, order;
	size_t	 n;		/* entries it got back */
	short	 revents;
};

static int turn_order;

static size_t
s_fds(void *obj, struct pollfd *fds, size_t cap)
{
	struct src *s = obj;
	size_t k;

	for (k = 0; k < s->fill && k < cap; k++) {
		fds[k].fd = s->fd;
		fds[k].events = POLLIN;
	}
	return s->fill;		/* may claim more than cap: cut by the loop */
}

static double
s_deadline(void *obj)
{
	return ((struct src *)obj)->dl;
}

static void
s_handle(void *obj, const struct pollfd *fds, size_t n, double now)
{
	struct src *s = obj;

	(void)now;
	s->calls++;
	s->order = ++turn_order;
	s->n = n;
	s->revents = n > 0 ? fds[0].revents : 0;
}

static struct het_loop_source
mk(struct src *s, size_t max_fds)
{
	struct het_loop_source ls = { s, max_fds, s_fds, s_deadline,
	    s_handle };

	return ls;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

int
main(void)
{
	struct het_loop_source ls[HET_LOOP_MAX_SOURCES + 1];
	struct src a = { -1, 1, -1, 0, 0, 0, 0 }, b = a, c = a;
	struct het_loop loop;
	struct het_error err;
	struct sigaction sa;
	struct itimerval it;
	int pa[2], pb[2];
	double t0, el;
	size_t k;

	plan_lazy();
	is_int(het_loop_ms(-1.0, 5.0), -1, "het_loop_ms: no deadline -1");
	is_int(het_loop_ms(4.0, 5.0), 0, "... a deadline passed: 0");
	is_int(het_loop_ms(5.0012, 5.0), 2, "... 1.2 ms: 2 (never early)");
	ok(het_loop_earlier(-1, 3) == 3 && het_loop_earlier(2, -1) == 2 &&
	    het_loop_earlier(2, 3) == 2 && het_loop_earlier(-1, -1) < 0,
	    "het_loop_earlier");

	if (pipe(pa) != 0 || pipe(pb) != 0)
		{ diag("pipe: %s", strerror(errno)); return 1; }
	a.fd = pa[0];
	b.fd = pb[0];
	c.fill = 0;
	ls[0] = mk(&a, 1);
	ls[1] = mk(&b, 1);
	ls[2] = mk(&c, 0);
	is_int(het_loop_init(&loop, ls, 3, &err), HET_OK, "init, 3 sources");
	c.dl = het_clock_now() + 5.0;
	if (write(pa[1], "x", 1) != 1)
		{ diag("write failed"); return 1; }
	t0 = het_clock_now();
	is_int(het_loop_once(&loop), 0, "a turn with a byte in pipe a");
	el = het_clock_now() - t0;
	ok(a.calls == 1 && b.calls == 1 && c.calls == 1, "every handler ran "
	    "once");
	ok(a.order == 1 && b.order == 2 && c.order == 3, "... in the order "
	    "added");
	ok(a.n == 1 && b.n == 1 && c.n == 0, "... each with its slice "
	    "(%zu, %zu, %zu)", a.n, b.n, c.n);
	ok((a.revents & POLLIN) && b.revents == 0, "... POLLIN on a only");
	ok(el < 4.0, "... without waiting for c's deadline 5 s away");

	/* Nothing ready: the earliest deadline (0.05 s) wakes the turn. */
	{
		char ch;

		if (read(pa[0], &ch, 1) != 1)
			{ diag("read failed"); return 1; }
	}
	t0 = het_clock_now();
	a.dl = t0 + 0.05;
	is_int(het_loop_once(&loop), 0, "a turn with nothing ready");
	el = het_clock_now() - t0;
	ok(el >= 0.05 - 1e-6, "... woke at the deadline, not before (%.4f "
	    "s)", el);
	ok(a.calls == 2 && a.revents == 0 && c.calls == 2, "... the "
	    "handlers ran on the timeout, no revents");

	/* A signal during poll. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 20000;
	a.dl = -1;
	c.dl = het_clock_now() + 5.0;	/* should the signal come early */
	setitimer(ITIMER_REAL, &it, NULL);
	is_int(het_loop_once(&loop), 0, "EINTR: the turn returns 0");
	ok(a.calls == 3 && b.calls == 3 && a.revents == 0, "... the "
	    "handlers ran, no revents");
	het_loop_fini(&loop);

	/* A source that claims more than its max_fds. */
	a.fill = 3;
	a.dl = het_clock_now();
	ls[0] = mk(&a, 1);
	is_int(het_loop_init(&loop, ls, 1, &err), HET_OK, "init, 1 source");
	is_int(het_loop_once(&loop), 0, "a turn");
	ok(a.n == 1, "... a source's slice is cut to its max_fds (%zu)",
	    a.n);
	het_loop_fini(&loop);

	/* The wake-up pipe. */
	{
		struct het_wake w;
		struct pollfd p;

		is_int(het_wake_open(&w, &err), HET_OK, "het_wake_open");
		p.fd = het_wake_fd(&w);
		p.events = POLLIN;
		ok(p.fd >= 0 && poll(&p, 1, 0) == 0, "... a fresh pipe is not "
		    "readable");
		errno = 1234;
		het_wake_signal(&w);
		het_wake_signal(&w);
		ok(errno == 1234, "het_wake_signal keeps errno");
		ok(poll(&p, 1, 0) == 1 && (p.revents & POLLIN), "... and "
		    "makes the pipe readable");
		het_wake_drain(&w);
		ok(poll(&p, 1, 0) == 0, "het_wake_drain empties it (both "
		    "bytes)");
		het_wake_close(&w);
		ok(het_wake_fd(&w) == -1, "het_wake_close: fd -1");
		het_wake_signal(&w);
		het_wake_drain(&w);
		het_wake_close(&w);
		ok(1, "signal, drain and close after a close do nothing");
	}

	for (k = 0; k <= HET_LOOP_MAX_SOURCES; k++)
		ls[k] = mk(&a, 1);
	is_int(het_loop_init(&loop, ls, HET_LOOP_MAX_SOURCES + 1, &err),
	    HET_EINVAL, "%d sources: HET_EINVAL", HET_LOOP_MAX_SOURCES + 1);
	like(err.msg, "9 sources, at most 8", "... the message says so");
	done_testing();
	return exit_status();
}
