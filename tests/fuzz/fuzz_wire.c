#include "config.h"

/*
 * fuzz_wire.c: libFuzzer harness of the worker wire protocol: the
 * incremental record reader and the decoders of every payload, as the
 * worker (shard records: unpack, build the posterior) and the coordinator
 * (result, progress, heartbeat and error records) run them.
 *
 * Input: one control byte, then the stream.  Bit 0 of the control byte
 * picks the path: 0 feeds the stream to a het_wire_reader in pieces of
 * (control >> 1) + 1 bytes, as a pipe delivers it (so the hello must come
 * first and the first error ends the stream); 1 decodes every line on its
 * own with het_wire_decode_line, so payloads are reached without a hello.
 * Each decoded record's payload goes through its decoder.  A refusal must
 * come with a status and a message.  Seeds: tests/fuzz/wire/ (written by
 * tests/fuzz/mkseeds).
 */

#include <string.h>

#include "fuzz.h"
#include "het_shard_run.h"
#include "het_wire.h"
#include "het_wire_shard.h"

/* The longest line the harness reader takes (the real one: 1 GiB). */
#define FUZZ_MAX_LINE	((size_t)1 << 20)

static void
check_err(int rc, const struct het_error *err, const char *what)
{
	if (rc != HET_OK && rc != HET_CONTINUE)
		FUZZ_CHECK(err->code == rc && err->msg[0] != '\0', what);
}

static void
payload(const struct het_wire_rec *rec)
{
	struct het_wire_shard		 ws;
	struct het_wire_shard_objs	 objs;
	struct het_shard_result		 res;
	struct het_wire_progress	 prog;
	struct het_wire_errinfo		 ei;
	struct het_error		 err;
	char				 digest[17];
	long				 id;
	int				 rc, rc2;

	het_error_clear(&err);
	switch (rec->type) {
	case HET_WIRE_SHARD:
		memset(&ws, 0, sizeof ws);
		rc = het_wire_shard_unpack(rec->payload, &ws, &err);
		check_err(rc, &err, "shard refused without a message");
		if (rc != HET_OK)
			break;
		rc = het_wire_shard_digest(rec->payload, digest, &err);
		check_err(rc, &err, "digest refused without a message");
		memset(&objs, 0, sizeof objs);
		rc = het_wire_shard_build(&ws, &objs, &err);
		check_err(rc, &err, "shard build refused without a message");
		if (rc == HET_OK)
			het_wire_shard_objs_free(&objs);
		het_wire_shard_clear(&ws);
		break;
	case HET_WIRE_RESULT:
		rc = het_wire_get_shard_id(rec->payload, &id, &err);
		check_err(rc, &err, "result id refused without a message");
		if (rc != HET_OK)
			id = 0;
		rc2 = het_wire_result_check(rec->payload, id, 0, &err);
		check_err(rc2, &err, "result check refused without a message");
		memset(&res, 0, sizeof res);
		rc = het_wire_result_unpack(rec->payload, &id, &res, &err);
		check_err(rc, &err, "result refused without a message");
		FUZZ_CHECK((rc == HET_OK) == (rc2 == HET_OK) ||
		    rc == HET_ENOMEM || rc2 == HET_ENOMEM,
		    "het_wire_result_check and _unpack disagree");
		if (rc == HET_OK)
			het_shard_result_clear(&res);
		break;
	case HET_WIRE_PROGRESS:
		rc = het_wire_progress_unpack(rec->payload, &prog, &err);
		check_err(rc, &err, "progress refused without a message");
		break;
	case HET_WIRE_HEARTBEAT:
		rc = het_wire_heartbeat_unpack(rec->payload, &id, &err);
		check_err(rc, &err, "heartbeat refused without a message");
		break;
	case HET_WIRE_ERROR:
		rc = het_wire_error_unpack(rec->payload, &ei, &err);
		check_err(rc, &err, "error record refused without a message");
		break;
	default:
		break;
	}
}

static void
by_reader(const uint8_t *data, size_t size, size_t piece)
{
	struct het_wire_reader	*r;
	struct het_wire_rec	 rec;
	struct het_error	 err;
	size_t			 off, n;
	int			 rc = HET_OK;

	het_error_clear(&err);
	if ((r = het_wire_reader_alloc(FUZZ_MAX_LINE, "fuzz", &err)) == NULL)
		abort();
	for (off = 0; off < size && rc != HET_EPROTO; off += n) {
		n = size - off < piece ? size - off : piece;
		rc = het_wire_reader_feed(r, data + off, n, &err);
		check_err(rc, &err, "feed refused without a message");
		while (rc == HET_OK) {
			memset(&rec, 0, sizeof rec);
			rc = het_wire_reader_next(r, &rec, &err);
			check_err(rc, &err, "next refused without a message");
			if (rc == HET_OK) {
				payload(&rec);
				het_wire_rec_clear(&rec);
			}
		}
		if (rc == HET_CONTINUE)
			rc = HET_OK;
	}
	if (rc == HET_OK) {
		rc = het_wire_reader_eof(r, &err);
		check_err(rc, &err, "eof refused without a message");
	}
	het_wire_reader_free(r);
}

static void
by_line(const uint8_t *data, size_t size)
{
	struct het_wire_rec	 rec;
	struct het_error	 err;
	const uint8_t		*nl;
	size_t			 off, len, lineno = 0;
	int			 rc;

	for (off = 0; off < size; off += len + 1) {
		nl = memchr(data + off, '\n', size - off);
		len = nl != NULL ? (size_t)(nl - (data + off)) : size - off;
		het_error_clear(&err);
		memset(&rec, 0, sizeof rec);
		rc = het_wire_decode_line((const char *)data + off, len,
		    ++lineno, &rec, &err);
		check_err(rc, &err, "line refused without a message");
		if (rc == HET_OK) {
			payload(&rec);
			het_wire_rec_clear(&rec);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		by_line(data + 1, size - 1);
	else
		by_reader(data + 1, size - 1, (size_t)(data[0] >> 1) + 1);
	return 0;
}
