/*
 * het_evq.c: mutex-protected FIFO plus a wake-up (het_wake, het_loop.h).
 *
 * The FIFO is a ring buffer that doubles when full, so posting never
 * blocks on the consumer.  The wake-up byte is written only on the
 * empty -> non-empty transition; a full pipe means a wake-up is already
 * pending, which is all we need.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "het_evq.h"
#include "het_loop.h"

struct het_evq {
	pthread_mutex_t	 lock;
	struct het_event *ring;		/* cap slots */
	size_t		 cap;
	size_t		 head;		/* index of the oldest event */
	size_t		 len;		/* events queued */
	struct het_wake	 wake;		/* het_loop.h */
};

struct het_evq *
het_evq_alloc(struct het_error *err)
{
	struct het_evq *q;

	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		het_error_set(err, HET_ENOMEM, "cannot allocate event queue");
		return NULL;
	}
	het_wake_init(&q->wake);
	pthread_mutex_init(&q->lock, NULL);
	q->cap = 64;
	q->ring = calloc(q->cap, sizeof(*q->ring));
	if (q->ring == NULL) {
		het_error_set(err, HET_ENOMEM, "cannot allocate event queue");
		het_evq_free(q);
		return NULL;
	}
	if (het_wake_open(&q->wake, err) != HET_OK) {
		het_evq_free(q);
		return NULL;
	}
	return q;
}

void
het_evq_free(struct het_evq *q)
{
	size_t i;

	if (q == NULL)
		return;
	for (i = 0; q->ring != NULL && i < q->len; i++) {
		struct het_event *ev = &q->ring[(q->head + i) % q->cap];

		if (ev->free_cb != NULL)
			ev->free_cb(ev->data);
	}
	free(q->ring);
	het_wake_close(&q->wake);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

int
het_evq_fd(const struct het_evq *q)
{
	return het_wake_fd(&q->wake);
}

/* Grow the ring to twice its size, unrolling it so head becomes 0. */
static int
het_evq_grow(struct het_evq *q)
{
	struct het_event *ring;
	size_t i;

	ring = calloc(q->cap * 2, sizeof(*ring));
	if (ring == NULL)
		return HET_ENOMEM;
	for (i = 0; i < q->len; i++)
		ring[i] = q->ring[(q->head + i) % q->cap];
	free(q->ring);
	q->ring = ring;
	q->cap *= 2;
	q->head = 0;
	return HET_OK;
}

int
het_evq_post(struct het_evq *q, const struct het_event *ev)
{
	int was_empty;

	pthread_mutex_lock(&q->lock);
	if (q->len == q->cap && het_evq_grow(q) != HET_OK) {
		pthread_mutex_unlock(&q->lock);
		return HET_ENOMEM;
	}
	q->ring[(q->head + q->len) % q->cap] = *ev;
	was_empty = q->len == 0;
	q->len++;
	pthread_mutex_unlock(&q->lock);
	if (was_empty)
		het_wake_signal(&q->wake);
	return HET_OK;
}

size_t
het_evq_drain(struct het_evq *q, struct het_event *out, size_t cap)
{
	size_t n = 0;
	int left;

	/* Empty the pipe first, then take the events: no lost wake-up. */
	het_wake_drain(&q->wake);
	pthread_mutex_lock(&q->lock);
	while (n < cap && q->len > 0) {
		out[n++] = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
	left = q->len > 0;
	pthread_mutex_unlock(&q->lock);
	if (left)
		het_wake_signal(&q->wake);
	return n;
}
