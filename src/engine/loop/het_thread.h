/*
 * het_thread.h: the engine's clock and how it starts threads, in one
 * place.
 *
 * Every "now" and every deadline of the engine and the workstation is
 * het_clock_now(): CLOCK_MONOTONIC in seconds, immune to the wall clock
 * being set.  Every thread the engine starts is started by
 * het_thread_spawn with all signals blocked, so that signals are taken
 * by the thread that owns them (the loop thread: a handler or a
 * self-pipe), never by a pool or job thread that happens to run.
 */
#ifndef HET_THREAD_H
#define HET_THREAD_H

#include <pthread.h>

/* het_clock_now: CLOCK_MONOTONIC in seconds.  Any thread. */
double het_clock_now(void);

/*
 * het_thread_spawn: pthread_create(thread, NULL, fn, arg) with every
 * signal blocked in the new thread (the caller's mask is restored before
 * returning).  Returns pthread_create's result: 0, or an errno value
 * (EAGAIN, ...).  Any thread.
 */
int het_thread_spawn(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif /* HET_THREAD_H */
