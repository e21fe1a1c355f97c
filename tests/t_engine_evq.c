/*
 * t_engine_evq.c: the event queue under concurrent producers.  Four
 * threads post 2,000 events each while the consumer polls with a
 * deadline; a lost wake-up shows as a poll timeout with events pending.
 * Also: per-producer ordering, partial drains, and freeing undelivered
 * payloads.
 */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>

#include "het_evq.h"
#include "tap.h"

#define NPROD 4
#define NEACH 2000

struct producer {
	struct het_evq *q;
	int id;
};

static void *
produce(void *arg)
{
	struct producer *p = arg;
	struct het_event ev = { 0 };
	int i;

	for (i = 0; i < NEACH; i++) {
		ev.type = p->id;
		ev.job = i;
		while (het_evq_post(p->q, &ev) != HET_OK)
			;
	}
	return NULL;
}

static int freed;
static void
count_free(void *data)
{
	freed++;
	free(data);
}

int
main(void)
{
	struct producer prod[NPROD];
	pthread_t th[NPROD];
	struct het_event out[97];
	struct het_error err;
	struct het_evq *q;
	int next[NPROD] = { 0 };
	int total = 0, timeouts = 0, order_ok = 1, i;

	plan(8);
	q = het_evq_alloc(&err);
	ok(q != NULL, "allocate a queue");
	if (q == NULL)
		return exit_status();
	for (i = 0; i < NPROD; i++) {
		prod[i].q = q;
		prod[i].id = i;
		pthread_create(&th[i], NULL, produce, &prod[i]);
	}
	while (total < NPROD * NEACH && timeouts < 5) {
		struct pollfd pfd = { het_evq_fd(q), POLLIN, 0 };
		size_t n, k;

		if (poll(&pfd, 1, 2000) == 0) {
			timeouts++;
			continue;
		}
		n = het_evq_drain(q, out, sizeof(out) / sizeof(out[0]));
		for (k = 0; k < n; k++) {
			if (out[k].job != next[out[k].type])
				order_ok = 0;
			next[out[k].type]++;
		}
		total += (int)n;
	}
	for (i = 0; i < NPROD; i++)
		pthread_join(th[i], NULL);
	is_int(total, NPROD * NEACH, "every event delivered");
	is_int(timeouts, 0, "no lost wake-up (poll never timed out)");
	ok(order_ok, "events of one producer arrive in posting order");

	{
		struct pollfd pfd = { het_evq_fd(q), POLLIN, 0 };

		is_int(poll(&pfd, 1, 0), 0, "pipe is quiet after a full drain");
	}
	/* A partial drain leaves the queue armed. */
	for (i = 0; i < 5; i++) {
		struct het_event ev = { 7, i, malloc(8), count_free };

		het_evq_post(q, &ev);
	}
	{
		struct pollfd pfd = { het_evq_fd(q), POLLIN, 0 };
		size_t n = het_evq_drain(q, out, 2);

		is_int((long long)n, 2, "a drain takes at most cap events");
		for (i = 0; i < 2; i++)
			free(out[i].data);
		ok(poll(&pfd, 1, 0) == 1, "leftover events re-arm the pipe");
	}
	het_evq_free(q);
	is_int(freed, 3, "free releases the 3 undelivered payloads");
	return exit_status();
}
