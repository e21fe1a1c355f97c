/*
 * het_thread.c: the engine's monotonic clock and its one way of starting
 * a thread (see het_thread.h).
 */
#include "config.h"

#include <signal.h>
#include <time.h>

#include "het_thread.h"

double
het_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int
het_thread_spawn(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	/* Threads inherit the mask: block everything while creating. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
