/*
 * hetui_worker.c: the sampling worker process.  It speaks only over
 * stdin/stdout (so `ssh HOST hetui-worker` and `srun -n1 hetui-worker`
 * work unchanged) and never links ncurses.
 *
 * Design: the wire protocol of docs/wire-protocol.md.  The worker greets
 * first ("hello hetui-wire 1"), then reads records with the incremental
 * het_wire reader: the coordinator's hello, shards, and bye.  Standard
 * input closing means "shut down now" (srun turns SIGTERM into SIGKILL of
 * the task, so EOF is the only graceful signal that reaches us): the
 * worker exits 0.  A protocol violation is answered with an error record
 * and exit status 2.  Every record written ends in a newline and is
 * flushed at once, because srun forwards a partial line only at EOF or a
 * 1 KiB boundary.  While a shard is being worked on, a heartbeat goes out
 * at least every HET_WORKER_HEARTBEAT seconds.
 *
 * This build has no sampler: a shard is refused with an error record
 * ("sampler not available in this build") and the worker stays ready.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_h5.h"
#include "het_proc.h"
#include "het_wire.h"

#define HET_WORKER_HEARTBEAT	1.0	/* seconds between heartbeats */

struct worker {
	long	shard;		/* shard being worked on, or -1 */
	double	next_beat;	/* when the next heartbeat is due */
};

/* Write one record and flush; a write error means the coordinator left. */
static int
worker_send(enum het_wire_type type, json_t *payload)
{
	char			*line;
	size_t			 len;
	struct het_error	 err;
	int			 rc;

	rc = het_wire_encode(type, payload, &line, &len, &err);
	json_decref(payload);
	if (rc != HET_OK) {
		fprintf(stderr, "hetui-worker: %s\n", err.msg);
		return -1;
	}
	rc = fwrite(line, 1, len, stdout) == len && fflush(stdout) == 0 ?
	    0 : -1;
	free(line);
	return rc;
}

static int
worker_send_error(long shard, int code, const char *msg)
{
	struct het_wire_errinfo ei;

	memset(&ei, 0, sizeof ei);
	ei.shard = shard;
	ei.code = code;
	snprintf(ei.msg, sizeof ei.msg, "%s", msg);
	return worker_send(HET_WIRE_ERROR, het_wire_error_pack(&ei));
}

/* Called from the loop, and later from the sampler between iterations. */
static int
worker_heartbeat(struct worker *w, double now)
{
	if (w->shard < 0 || now < w->next_beat)
		return 0;
	w->next_beat = now + HET_WORKER_HEARTBEAT;
	return worker_send(HET_WIRE_HEARTBEAT,
	    het_wire_heartbeat_pack(w->shard));
}

/*
 * Act on one record.  Returns 0 to go on, 1 to exit 0 (bye), -1 to exit
 * with status 2 (protocol error, already reported).
 */
static int
worker_record(struct worker *w, const struct het_wire_rec *rec)
{
	struct het_error	err;
	long			shard;
	char			msg[256];

	switch (rec->type) {
	case HET_WIRE_HELLO:
		return 0;
	case HET_WIRE_BYE:
		worker_send(HET_WIRE_BYE, json_object());
		return 1;
	case HET_WIRE_ERROR:
		fprintf(stderr, "hetui-worker: the coordinator reported an "
		    "error: %s\n", json_string_value(json_object_get(
		    rec->payload, "msg")));
		return 0;
	case HET_WIRE_SHARD:
		if (het_wire_get_shard_id(rec->payload, &shard, &err) !=
		    HET_OK) {
			het_error_prefix(&err, "line %zu", rec->lineno);
			worker_send_error(-1, HET_EPROTO, err.msg);
			return -1;
		}
		w->shard = shard;
		w->next_beat = het_proc_now() + HET_WORKER_HEARTBEAT;
		/* No sampler in this build: refuse, stay ready. */
		if (worker_send_error(shard, HET_ENOTFOUND, "sampler not "
		    "available in this build of hetui-worker") != 0)
			return -1;
		w->shard = -1;
		return 0;
	default:
		snprintf(msg, sizeof msg, "line %zu: a %s record comes only "
		    "from a worker, not from the coordinator", rec->lineno,
		    het_wire_type_name(rec->type));
		worker_send_error(-1, HET_EPROTO, msg);
		return -1;
	}
}

static int
worker_loop(void)
{
	struct worker		 w = { -1, 0 };
	struct het_wire_reader	*rd;
	struct het_wire_rec	 rec;
	struct het_error	 err;
	struct pollfd		 pfd;
	char			 buf[65536];
	ssize_t			 n;
	int			 rc, act, ms;

	if ((rd = het_wire_reader_alloc(0, "coordinator", &err)) == NULL) {
		worker_send_error(-1, err.code, err.msg);
		return 1;
	}
	for (;;) {
		pfd.fd = STDIN_FILENO;
		pfd.events = POLLIN;
		ms = w.shard >= 0 ? (int)(HET_WORKER_HEARTBEAT * 1000) : -1;
		if (poll(&pfd, 1, ms) == -1 && errno != EINTR)
			break;
		if (worker_heartbeat(&w, het_proc_now()) != 0)
			break;
		if (pfd.revents == 0)
			continue;
		n = read(STDIN_FILENO, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n == 0 ? 0 : 1;	/* EOF: shut down now */
			het_wire_reader_free(rd);
			return rc;
		}
		rc = het_wire_reader_feed(rd, buf, (size_t)n, &err);
		while (rc == HET_OK) {
			if ((rc = het_wire_reader_next(rd, &rec, &err)) !=
			    HET_OK)
				break;
			act = worker_record(&w, &rec);
			het_wire_rec_clear(&rec);
			if (act != 0) {
				het_wire_reader_free(rd);
				return act > 0 ? 0 : 2;
			}
		}
		if (rc != HET_CONTINUE) {
			worker_send_error(-1, rc, err.msg);
			het_wire_reader_free(rd);
			return 2;
		}
	}
	het_wire_reader_free(rd);
	return 1;
}

int
main(int argc, char **argv)
{
	struct het_error err;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("hetui-worker %s (wire protocol %d)\n", PACKAGE_VERSION,
		    HET_WIRE_VERSION);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: hetui-worker [--version]\n"
		    "hetui-worker is started by hetui; it reads its work from "
		    "standard input.\n");
		return 2;
	}
	if (het_h5_library_init(&err) != HET_OK) {
		fputs(het_wire_hello_line(), stdout);
		worker_send_error(-1, err.code, err.msg);
		return 1;
	}
	if (fputs(het_wire_hello_line(), stdout) == EOF ||
	    fflush(stdout) != 0)
		return 1;
	return worker_loop();
}
