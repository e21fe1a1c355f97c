/*
 * cli_wire.c: `hetui fit --all-rings --wire` and `hetui fit --series
 * --wire`: the batch tells the workstation that started it (het_batch,
 * over its pipes) what it does, in the records of the wire protocol
 * (docs/wire-protocol.md, section 7) on standard output.
 *
 * Design: the wire is a copy of the original stdout; stdout itself is
 * pointed at stderr (the child's log) so that nothing printed by
 * accident can break a record.  The batch sends its hello, then one
 * progress record per event ({"kind": "batch" | "start" | "read" |
 * "iter" | "done" | "failed" | "note", ...}), an error record for what
 * stops it before its summary, and at the end one result record with
 * the summary that it prints without --wire (table and plots) as text.
 * Records come from the main thread and from the fit's progress hook
 * (a pool thread, serialised by het_fit): one mutex orders them.  EOF
 * on stdin, the protocol's "shut down now" (the workstation's cancel,
 * its quit, or its death), sets the batch's cancel flag from a thread
 * that only reads stdin, so the rings or files that finished are still
 * summarised, as SIGTERM would.  The state is the process's own, like
 * cli_cancel.c's: one subcommand runs at a time.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "het_thread.h"
#include "het_wire.h"

static FILE		*wire;		/* NULL: not in wire mode */
static pthread_mutex_t	 wire_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int	*wire_cancel;

/* Read stdin to its end, then cancel. */
static void *
wire_stdin(void *arg)
{
	char buf[256];
	ssize_t n;

	(void)arg;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 ||
	    (n < 0 && errno == EINTR))
		;
	atomic_store(wire_cancel, 1);
	return NULL;
}

int
cli_wire_begin(atomic_int *cancel, struct het_error *err)
{
	pthread_t t;
	int fd, rc;

	fflush(stdout);
	if ((fd = dup(STDOUT_FILENO)) < 0 || (wire = fdopen(fd, "w")) ==
	    NULL) {
		if (fd >= 0)
			close(fd);
		return het_error_sys(err, errno, "--wire: cannot take "
		    "standard output");
	}
	(void)dup2(STDERR_FILENO, STDOUT_FILENO);
	wire_cancel = cancel;
	fputs(het_wire_hello_line(), wire);
	fflush(wire);
	if ((rc = het_thread_spawn(&t, wire_stdin, NULL)) != 0)
		return het_error_set(err, HET_EINTERNAL, "--wire: cannot "
		    "start the thread that watches standard input: %s",
		    strerror(rc));
	pthread_detach(t);
	return HET_OK;
}

int
cli_wire_on(void)
{
	return wire != NULL;
}

void
cli_wire_send(int type, json_t *payload)
{
	struct het_error err;
	size_t len;
	char *line;

	if (wire == NULL || payload == NULL) {
		json_decref(payload);
		return;
	}
	het_error_clear(&err);
	if (het_wire_encode((enum het_wire_type)type, payload, &line, &len,
	    &err) == HET_OK) {
		pthread_mutex_lock(&wire_lock);
		fwrite(line, 1, len, wire);
		fflush(wire);
		pthread_mutex_unlock(&wire_lock);
		free(line);
	} else
		fprintf(stderr, "hetui: --wire: record not sent: %s\n",
		    err.msg);
	json_decref(payload);
}

json_t *
cli_wire_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void
cli_wire_event(const char *kind, json_t *fields)
{
	if (wire == NULL || fields == NULL) {
		json_decref(fields);
		return;
	}
	json_object_set_new(fields, "kind", json_string(kind));
	cli_wire_send(HET_WIRE_PROGRESS, fields);
}

void
cli_wire_note(const char *level, const char *fmt, ...)
{
	char text[HET_ERROR_MSG_MAX];
	va_list ap;

	if (wire == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cli_wire_event("note", json_pack("{s:s, s:s}", "level", level,
	    "text", text));
}

void
cli_wire_error(const struct het_error *err)
{
	struct het_wire_errinfo e;

	if (wire == NULL)
		return;
	memset(&e, 0, sizeof(e));
	e.shard = -1;
	e.code = err->code;
	snprintf(e.msg, sizeof(e.msg), "%s", err->msg[0] != '\0' ? err->msg :
	    het_status_str(err->code));
	cli_wire_send(HET_WIRE_ERROR, het_wire_error_pack(&e));
}

void
cli_wire_summary(const char *status, int rc, const char *batch,
    size_t nfit, size_t n, void (*print)(const void *, FILE *),
    const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (wire == NULL)
		return;
	if (print != NULL && (m = open_memstream(&text, &len)) != NULL) {
		print(arg, m);
		fclose(m);
	}
	cli_wire_send(HET_WIRE_RESULT, json_pack("{s:s, s:i, s:s?, s:I, s:I, "
	    "s:s}", "status", status, "exit", rc, "batch_dir", batch,
	    "n_fitted", (json_int_t)nfit, "n", (json_int_t)n, "summary",
	    text != NULL ? text : ""));
	free(text);
}
