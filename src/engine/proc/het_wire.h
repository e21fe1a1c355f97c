/*
 * het_wire.h: the hetui wire protocol between the coordinator and its
 * hetui-worker processes (docs/wire-protocol.md is the reference).
 *
 * Design: one record per line, "<verb> <payload>\n".  The first record
 * from each side is the literal line "hello hetui-wire 1", which is
 * checked before anything else is parsed, so a version mismatch is always
 * reported as such.  Every other payload is one compact JSON object
 * (jansson), so values need no ad hoc escaping and the format survives
 * any byte-transparent stdio transport (pipes, ssh, srun: every frame
 * ends with '\n', which srun needs to forward a line at once).  Bulk
 * numeric arrays travel inside the JSON as base64 of little-endian
 * float64 or uint32 ("arrays" below); non-finite floats are refused.
 *
 * The reader is incremental: feed it bytes in any split (one at a time,
 * 1 KiB chunks, whole megabytes) and take complete records out; a partial
 * line is buffered.  Lines longer than the reader's limit, garbage,
 * unknown verbs and a wrong version are HET_EPROTO with a message naming
 * the line number.
 *
 * Payloads are kept generic (a json_t object per record) so the sampler
 * can add shard and result fields without touching this module; typed
 * helpers exist for the records whose fields are fixed now (progress,
 * heartbeat, error).  Thread: every function may be called from any
 * thread on objects that thread owns.
 */
#ifndef HET_WIRE_H
#define HET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "het_error.h"

#define HET_WIRE_VERSION	1
#define HET_WIRE_MAGIC		"hetui-wire"
/*
 * Longest record line a reader accepts by default and het_wire_encode
 * writes, newline excluded: a shard of all the 11.5 M pairs of 1000
 * frames x 23 angles is about 310 MB.
 */
#define HET_WIRE_MAX_LINE	((size_t)1024 << 20)

enum het_wire_type {
	HET_WIRE_HELLO = 0,	/* hello hetui-wire N */
	HET_WIRE_SHARD,		/* coordinator -> worker: one shard of work */
	HET_WIRE_HEARTBEAT,	/* worker -> coordinator: still alive */
	HET_WIRE_PROGRESS,	/* worker -> coordinator: sampler state */
	HET_WIRE_RESULT,	/* worker -> coordinator: draws, diagnostics */
	HET_WIRE_ERROR,		/* either way: code + message */
	HET_WIRE_BYE,		/* either way: orderly end of the session */
	HET_WIRE_NTYPES
};

/* One decoded record.  payload is NULL for hello, an object otherwise. */
struct het_wire_rec {
	enum het_wire_type	 type;
	int			 version;	/* hello only */
	json_t			*payload;	/* owned; het_wire_rec_clear */
	size_t			 lineno;	/* 1-based line in the stream */
};

/* The fields of a progress record (all numbers; phase is a short word). */
struct het_wire_progress {
	long	shard;
	char	phase[32];	/* "warmup", "sampling", ... */
	long	chain;
	long	iteration;
	double	step_size;
	double	accept;		/* mean acceptance statistic */
	long	divergences;
	double	rhat;		/* running max R-hat; NaN means "not yet" */
	int	at_once;	/* 1: the shard's chains run at once; then
				   chain and iteration are those of the
				   chain furthest behind and done is the
				   share of all transitions done, in [0, 1]
				   (record field "done"); 0 (the default):
				   one after another, no "done" */
	double	done;
};

/* The fields of an error record. */
struct het_wire_errinfo {
	long	shard;		/* -1 when the error is not about a shard */
	int	code;		/* enum het_status */
	char	msg[HET_ERROR_MSG_MAX];
};

/* het_wire_type_name: the verb of a type ("progress"), or "?" */
const char *het_wire_type_name(enum het_wire_type type);

/*
 * het_wire_hello_line: the hello record of this build, with its newline
 * ("hello hetui-wire 1\n"), in static storage.
 */
const char *het_wire_hello_line(void);

/*
 * het_wire_encode: one record line.
 *   type     any type except HET_WIRE_HELLO (use het_wire_hello_line).
 *   payload  a JSON object (borrowed; not modified).  NULL means {}.
 *   out      on HET_OK, a NUL-terminated line ending in '\n', malloc'd,
 *            owned by the caller (free()).
 *   len      on HET_OK, strlen(*out).
 * Returns HET_OK, HET_EINVAL (hello, bad type, payload not an object,
 * non-finite real inside), HET_ERANGE (the line, newline excluded, would
 * be longer than HET_WIRE_MAX_LINE, which readers refuse: the message
 * says to use more shards), HET_ENOMEM.
 * het_wire_encode_max: the same with another limit than
 * HET_WIRE_MAX_LINE (tests).  Thread: any.
 */
int het_wire_encode(enum het_wire_type type, const json_t *payload,
    char **out, size_t *len, struct het_error *err);
int het_wire_encode_max(enum het_wire_type type, const json_t *payload,
    size_t max_line, char **out, size_t *len, struct het_error *err);

/*
 * het_wire_decode_line: parse one line (without its '\n').
 *   line, len  the bytes; NUL bytes are a protocol error.
 *   lineno     for messages.
 *   rec        on HET_OK, filled; release with het_wire_rec_clear.
 * Hello lines are parsed but the version is not checked here (the reader
 * does that).  Returns HET_OK or HET_EPROTO.
 */
int het_wire_decode_line(const char *line, size_t len, size_t lineno,
    struct het_wire_rec *rec, struct het_error *err);

/* het_wire_rec_clear: release a record's payload; NULL is a no-op. */
void het_wire_rec_clear(struct het_wire_rec *rec);

/*
 * The incremental reader.
 * het_wire_reader_alloc: max_line is the longest accepted line without
 *   its newline (0 means HET_WIRE_MAX_LINE); peer names the other side in
 *   messages ("worker 3").  Returns NULL with HET_ENOMEM in err.
 * het_wire_reader_free: NULL is a no-op.
 */
struct het_wire_reader;
struct het_wire_reader *het_wire_reader_alloc(size_t max_line,
    const char *peer, struct het_error *err);
void het_wire_reader_free(struct het_wire_reader *r);

/*
 * het_wire_reader_feed: append bytes.  Returns HET_OK, HET_EPROTO when the
 * unfinished line already exceeds the limit, HET_ENOMEM.  After any error
 * the reader is dead and every later call returns the same error.
 */
int het_wire_reader_feed(struct het_wire_reader *r, const void *buf,
    size_t len, struct het_error *err);

/*
 * het_wire_reader_next: take the next complete record.
 *   rec  on HET_OK, filled (caller clears it).
 * Returns HET_OK, HET_CONTINUE when no complete line is buffered,
 * HET_EPROTO (garbage, unknown verb, over-long line, first record not a
 * hello, wrong version, second hello), HET_ENOMEM.
 */
int het_wire_reader_next(struct het_wire_reader *r, struct het_wire_rec *rec,
    struct het_error *err);

/*
 * het_wire_reader_eof: the stream ended.  Returns HET_OK when nothing is
 * buffered, HET_EPROTO ("truncated record") when a partial line is.
 */
int het_wire_reader_eof(struct het_wire_reader *r, struct het_error *err);

/* het_wire_reader_pending: bytes buffered but not yet returned. */
size_t het_wire_reader_pending(const struct het_wire_reader *r);

/*
 * Arrays inside payloads: obj[key] = {"dtype":"f64le"|"u32le","n":N,
 * "b64":"..."}.
 * het_wire_put_f64 / het_wire_put_u32: store n values (copied).  f64
 *   values must be finite (HET_EDATA otherwise, naming key and index).
 * het_wire_get_f64 / het_wire_get_u32: decode obj[key].
 *   out  on HET_OK, a malloc'd array of *n values (NULL when n is 0),
 *        owned by the caller.
 *   Returns HET_OK, HET_ENOTFOUND (no such key), HET_EPROTO (wrong
 *   dtype, bad base64, length not n values, non-finite f64), HET_ENOMEM.
 */
int het_wire_put_f64(json_t *obj, const char *key, const double *v,
    size_t n, struct het_error *err);
int het_wire_put_u32(json_t *obj, const char *key, const uint32_t *v,
    size_t n, struct het_error *err);
int het_wire_get_f64(const json_t *obj, const char *key, double **out,
    size_t *n, struct het_error *err);
int het_wire_get_u32(const json_t *obj, const char *key, uint32_t **out,
    size_t *n, struct het_error *err);

/*
 * Base64 (RFC 4648, with padding).
 * het_wire_b64_encode: returns a malloc'd NUL-terminated string or NULL.
 * het_wire_b64_decode: out must hold 3 * (len / 4) bytes; *outlen is set.
 *   Returns HET_OK or HET_EPROTO (bad length, character or padding).
 */
char *het_wire_b64_encode(const void *buf, size_t len);
int het_wire_b64_decode(const char *s, size_t len, void *out,
    size_t *outlen, struct het_error *err);

/*
 * Typed payloads.  _pack returns a new JSON object (owned by the caller,
 * json_decref) or NULL on allocation failure; _unpack checks every field
 * and returns HET_OK or HET_EPROTO naming the missing or bad field.
 */
json_t *het_wire_progress_pack(const struct het_wire_progress *p);
int het_wire_progress_unpack(const json_t *obj, struct het_wire_progress *p,
    struct het_error *err);
json_t *het_wire_heartbeat_pack(long shard);
int het_wire_heartbeat_unpack(const json_t *obj, long *shard,
    struct het_error *err);
json_t *het_wire_error_pack(const struct het_wire_errinfo *e);
int het_wire_error_unpack(const json_t *obj, struct het_wire_errinfo *e,
    struct het_error *err);

/*
 * het_wire_get_shard_id: obj["shard"] as a non-negative integer (shard,
 * result and, when about a shard, progress/heartbeat/error records carry
 * it).  Returns HET_OK or HET_EPROTO.
 */
int het_wire_get_shard_id(const json_t *obj, long *shard,
    struct het_error *err);

#endif /* HET_WIRE_H */
