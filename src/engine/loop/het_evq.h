/*
 * het_evq.h: the event queue that carries results from pool threads to the
 * loop thread without ever blocking the loop.
 *
 * Design (Redis bio.c, docs/design.md): producers append an event under a
 * mutex into a growable FIFO and write one byte to a non-blocking pipe
 * only when the queue goes from empty to non-empty.  The loop thread
 * polls het_evq_fd(); when it is readable it calls het_evq_drain(), which
 * first empties the pipe and then takes every queued event under the lock,
 * so a wake-up can never be lost.  Events are never dropped: completion
 * and failure events must arrive.  Latest-value progress is the
 * producer's business (it may coalesce before posting).
 */
#ifndef HET_EVQ_H
#define HET_EVQ_H

#include <stddef.h>

#include "het_error.h"

struct het_evq;

struct het_event {
	int	 type;		/* meaning chosen by the engine */
	int	 job;		/* job or shard id */
	void	*data;		/* payload; ownership passes to the consumer */
	void	(*free_cb)(void *data);	/* frees data, or NULL */
};

/*
 * het_evq_alloc: a new empty queue with its wake-up pipe.
 * Returns NULL with HET_EIO or HET_ENOMEM in err.  Thread: any.
 */
struct het_evq *het_evq_alloc(struct het_error *err);

/*
 * het_evq_free: free the queue, calling free_cb on undelivered payloads.
 * NULL is a no-op.  No producer may still be running.
 */
void het_evq_free(struct het_evq *q);

/* het_evq_fd: the descriptor to poll for POLLIN on the loop thread. */
int het_evq_fd(const struct het_evq *q);

/*
 * het_evq_post: append a copy of *ev.  Returns HET_OK, or HET_ENOMEM
 * (then the caller still owns ev->data).  Thread: any (producers).
 */
int het_evq_post(struct het_evq *q, const struct het_event *ev);

/*
 * het_evq_drain: move every queued event, in posting order, into out
 * (at most cap of them; the rest stay queued and the pipe is re-armed so
 * the loop wakes again).  Returns the number of events stored.
 * Thread: the consumer (loop) thread only.
 */
size_t het_evq_drain(struct het_evq *q, struct het_event *out, size_t cap);

#endif /* HET_EVQ_H */
