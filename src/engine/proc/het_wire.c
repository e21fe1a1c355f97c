/*
 * het_wire.c: encoder, incremental reader and payload helpers of the
 * hetui wire protocol (see het_wire.h and docs/wire-protocol.md).
 *
 * Design: the reader keeps one growing buffer.  Bytes are scanned for
 * '\n' once, as they are fed; the end of the last complete line is
 * remembered, so a multi-megabyte line delivered one byte at a time costs
 * linear time, and an unfinished line longer than the limit is refused
 * as soon as it is seen, before more memory is spent on it.  Consumed
 * bytes are moved out lazily (when they are more than half the buffer).
 * After the first error the reader is dead: a byte stream that broke the
 * framing once cannot be trusted to be back in step.  The base64 array
 * codecs of the payloads are het_wire_arrays.c.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_wire.h"

static const char *het_wire_names[HET_WIRE_NTYPES] = {
	"hello", "shard", "heartbeat", "progress", "result", "error", "bye"
};

struct het_wire_reader {
	char	*buf;
	size_t	 len;		/* bytes in buf */
	size_t	 cap;
	size_t	 start;		/* first byte not yet returned */
	size_t	 complete;	/* end of the last complete line (after \n) */
	size_t	 max_line;
	size_t	 lineno;	/* lines returned so far */
	int	 hello_seen;
	int	 dead;		/* status of the first error, or 0 */
	struct het_error dead_err;	/* that error, with the peer name */
	char	 peer[64];
};

/* A printable excerpt of a line for error messages. */
static void
het_wire_excerpt(const char *s, size_t len, char *out, size_t outsz)
{
	size_t	i, o = 0;

	for (i = 0; i < len && o + 8 < outsz; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\'')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
	}
	if (i < len && o + 4 < outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

const char *
het_wire_type_name(enum het_wire_type type)
{
	if ((int)type < 0 || type >= HET_WIRE_NTYPES)
		return "?";
	return het_wire_names[type];
}

const char *
het_wire_hello_line(void)
{
	return "hello " HET_WIRE_MAGIC " 1\n";
}

int
het_wire_encode(enum het_wire_type type, const json_t *payload, char **out,
    size_t *len, struct het_error *err)
{
	return het_wire_encode_max(type, payload, HET_WIRE_MAX_LINE, out, len,
	    err);
}

int
het_wire_encode_max(enum het_wire_type type, const json_t *payload,
    size_t max_line, char **out, size_t *len, struct het_error *err)
{
	const char	*verb;
	char		*js, *line;
	size_t		 vlen, jlen;

	*out = NULL;
	*len = 0;
	if ((int)type <= HET_WIRE_HELLO || type >= HET_WIRE_NTYPES)
		return het_error_set(err, HET_EINVAL, "cannot encode a wire "
		    "record of type %d: hello records come from "
		    "het_wire_hello_line, other types are 1 to %d", (int)type,
		    HET_WIRE_NTYPES - 1);
	verb = het_wire_names[type];
	if (payload != NULL && !json_is_object(payload))
		return het_error_set(err, HET_EINVAL, "the payload of a %s "
		    "record must be a JSON object", verb);
	if (payload == NULL)
		js = strdup("{}");
	else
		js = json_dumps(payload, JSON_COMPACT | JSON_ENSURE_ASCII |
		    JSON_REAL_PRECISION(17));
	if (js == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory encoding "
		    "a %s record", verb);
	vlen = strlen(verb);
	jlen = strlen(js);
	if (vlen + 1 + jlen > max_line) {
		free(js);
		return het_error_set(err, HET_ERANGE, "a %s record of %zu "
		    "bytes is longer than a wire line may be (%zu bytes): "
		    "split the data into more shards (optimization.cmc."
		    "sharding.num_shards) or sample a shorter frame window",
		    verb, vlen + 1 + jlen, max_line);
	}
	if ((line = malloc(vlen + jlen + 3)) == NULL) {
		free(js);
		return het_error_set(err, HET_ENOMEM, "out of memory encoding "
		    "a %s record of %zu bytes", verb, jlen);
	}
	memcpy(line, verb, vlen);
	line[vlen] = ' ';
	memcpy(line + vlen + 1, js, jlen);
	line[vlen + 1 + jlen] = '\n';
	line[vlen + 2 + jlen] = '\0';
	free(js);
	*out = line;
	*len = vlen + jlen + 2;
	return HET_OK;
}

static int
het_wire_decode_hello(const char *p, size_t n, size_t lineno,
    struct het_wire_rec *rec, struct het_error *err)
{
	size_t	mlen = strlen(HET_WIRE_MAGIC), i;
	long	v = 0;
	char	ex[96];

	if (n <= mlen + 1 || memcmp(p, HET_WIRE_MAGIC, mlen) != 0 ||
	    p[mlen] != ' ')
		goto bad;
	/* The version is an exact token: "01" or "1 " is not "1". */
	if (p[mlen + 1] == '0' && n > mlen + 2)
		goto bad;
	for (i = mlen + 1; i < n; i++) {
		if (!isdigit((unsigned char)p[i]) || v > 100000)
			goto bad;
		v = v * 10 + (p[i] - '0');
	}
	rec->type = HET_WIRE_HELLO;
	rec->version = (int)v;
	rec->payload = NULL;
	rec->lineno = lineno;
	return HET_OK;
bad:
	het_wire_excerpt(p, n, ex, sizeof ex);
	return het_error_set(err, HET_EPROTO, "line %zu: malformed hello "
	    "record 'hello %s'; expected 'hello %s N' with a version number N",
	    lineno, ex, HET_WIRE_MAGIC);
}

int
het_wire_decode_line(const char *line, size_t len, size_t lineno,
    struct het_wire_rec *rec, struct het_error *err)
{
	const char	*sp;
	json_t		*js;
	json_error_t	 jerr;
	size_t		 vlen;
	int		 t;
	char		 ex[96];

	memset(rec, 0, sizeof *rec);
	if (memchr(line, '\0', len) != NULL) {
		het_wire_excerpt(line, len, ex, sizeof ex);
		return het_error_set(err, HET_EPROTO, "line %zu contains a NUL "
		    "byte, which no wire record does: '%s'", lineno, ex);
	}
	sp = memchr(line, ' ', len);
	vlen = sp != NULL ? (size_t)(sp - line) : len;
	for (t = 0; t < HET_WIRE_NTYPES; t++) {
		if (strlen(het_wire_names[t]) == vlen &&
		    memcmp(het_wire_names[t], line, vlen) == 0)
			break;
	}
	if (t == HET_WIRE_NTYPES) {
		het_wire_excerpt(line, len, ex, sizeof ex);
		return het_error_set(err, HET_EPROTO, "line %zu: unknown record "
		    "type in '%s'; records start with hello, shard, heartbeat, "
		    "progress, result, error or bye", lineno, ex);
	}
	if (sp == NULL) {
		return het_error_set(err, HET_EPROTO, "line %zu: %s record "
		    "without a payload; expected '%s {...}'", lineno,
		    het_wire_names[t], het_wire_names[t]);
	}
	if (t == HET_WIRE_HELLO)
		return het_wire_decode_hello(sp + 1, len - vlen - 1, lineno,
		    rec, err);
	js = json_loadb(sp + 1, len - vlen - 1, JSON_REJECT_DUPLICATES, &jerr);
	if (js == NULL) {
		het_wire_excerpt(line, len, ex, sizeof ex);
		return het_error_set(err, HET_EPROTO, "line %zu: the payload of "
		    "the %s record is not valid JSON (%s at column %d): '%s'",
		    lineno, het_wire_names[t], jerr.text, jerr.column + 1 +
		    (int)vlen + 1, ex);
	}
	if (!json_is_object(js)) {
		json_decref(js);
		return het_error_set(err, HET_EPROTO, "line %zu: the payload of "
		    "the %s record is JSON but not an object {...}", lineno,
		    het_wire_names[t]);
	}
	rec->type = (enum het_wire_type)t;
	rec->payload = js;
	rec->lineno = lineno;
	return HET_OK;
}

void
het_wire_rec_clear(struct het_wire_rec *rec)
{
	if (rec == NULL)
		return;
	json_decref(rec->payload);
	rec->payload = NULL;
}

struct het_wire_reader *
het_wire_reader_alloc(size_t max_line, const char *peer, struct het_error *err)
{
	struct het_wire_reader *r;

	if ((r = calloc(1, sizeof *r)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for a wire "
		    "reader");
		return NULL;
	}
	r->max_line = max_line == 0 ? HET_WIRE_MAX_LINE : max_line;
	snprintf(r->peer, sizeof r->peer, "%s", peer != NULL ? peer : "peer");
	return r;
}

void
het_wire_reader_free(struct het_wire_reader *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r);
}

static int
het_wire_reader_dead(struct het_wire_reader *r, struct het_error *err)
{
	if (err != NULL)
		*err = r->dead_err;
	return r->dead;
}

/* Kill the reader with the message in err (prefixed by the peer name). */
static int
het_wire_reader_die(struct het_wire_reader *r, struct het_error *err,
    struct het_error *e)
{
	r->dead = e->code;
	r->dead_err = *e;
	het_error_prefix(&r->dead_err, "%s", r->peer);
	return het_wire_reader_dead(r, err);
}


/* The 1-based number of the line that starts at or contains offset pos. */
static size_t
het_wire_reader_lineno_at(const struct het_wire_reader *r, size_t pos)
{
	size_t	 n = r->lineno + 1, i;

	for (i = r->start; i < pos && i < r->len; i++)
		if (r->buf[i] == '\n')
			n++;
	return n;
}

int
het_wire_reader_feed(struct het_wire_reader *r, const void *buf, size_t len,
    struct het_error *err)
{
	struct het_error	 e;
	size_t			 need, cap, pos;
	char			*nb, *nl;

	if (r->dead)
		return het_wire_reader_dead(r, err);
	if (len == 0)
		return HET_OK;
	if (r->start > 0 && r->start >= r->len / 2) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->complete -= r->start;
		r->start = 0;
	}
	if (len > SIZE_MAX - r->len - 1) {
		het_error_set(&e, HET_ENOMEM, "input too large");
		return het_wire_reader_die(r, err, &e);
	}
	need = r->len + len;
	if (need > r->cap) {
		cap = r->cap < 4096 ? 4096 : r->cap;
		while (cap < need)
			cap = cap > SIZE_MAX / 2 ? need : cap * 2;
		if ((nb = realloc(r->buf, cap)) == NULL) {
			het_error_set(&e, HET_ENOMEM, "out of memory buffering "
			    "%zu bytes of wire records", need);
			return het_wire_reader_die(r, err, &e);
		}
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, buf, len);
	pos = r->len;
	r->len += len;
	/* Scan only the new bytes; check every line that ends in them. */
	while ((nl = memchr(r->buf + pos, '\n', r->len - pos)) != NULL) {
		if ((size_t)(nl - r->buf) - r->complete > r->max_line)
			goto toolong;
		pos = (size_t)(nl - r->buf) + 1;
		r->complete = pos;
	}
	if (r->len - r->complete > r->max_line)
		goto toolong;
	return HET_OK;
toolong:
	het_error_set(&e, HET_EPROTO, "line %zu is longer than the limit of "
	    "%zu bytes; the output is not hetui wire records (a shell "
	    "banner or a wrong command?) or the record is too large",
	    het_wire_reader_lineno_at(r, r->complete), r->max_line);
	return het_wire_reader_die(r, err, &e);
}

int
het_wire_reader_next(struct het_wire_reader *r, struct het_wire_rec *rec,
    struct het_error *err)
{
	struct het_error	 e;
	char			*nl;
	size_t			 n;
	int			 rc;

	memset(rec, 0, sizeof *rec);
	if (r->dead)
		return het_wire_reader_dead(r, err);
	if (r->start >= r->complete)
		return HET_CONTINUE;
	nl = memchr(r->buf + r->start, '\n', r->complete - r->start);
	n = (size_t)(nl - (r->buf + r->start));
	r->lineno++;
	rc = het_wire_decode_line(r->buf + r->start, n, r->lineno, rec, &e);
	r->start += n + 1;
	if (rc != HET_OK)
		return het_wire_reader_die(r, err, &e);
	if (!r->hello_seen && rec->type != HET_WIRE_HELLO) {
		het_error_set(&e, HET_EPROTO, "line %zu: the first record is "
		    "'%s', expected 'hello %s %d'", rec->lineno,
		    het_wire_type_name(rec->type), HET_WIRE_MAGIC,
		    HET_WIRE_VERSION);
		het_wire_rec_clear(rec);
		return het_wire_reader_die(r, err, &e);
	}
	if (rec->type == HET_WIRE_HELLO) {
		if (r->hello_seen) {
			het_error_set(&e, HET_EPROTO, "line %zu: a second "
			    "hello record", rec->lineno);
			return het_wire_reader_die(r, err, &e);
		}
		if (rec->version != HET_WIRE_VERSION) {
			het_error_set(&e, HET_EPROTO, "line %zu: speaks wire "
			    "protocol version %d but this side speaks version "
			    "%d; install matching versions of hetui and "
			    "hetui-worker", rec->lineno, rec->version,
			    HET_WIRE_VERSION);
			return het_wire_reader_die(r, err, &e);
		}
		r->hello_seen = 1;
	}
	return HET_OK;
}

int
het_wire_reader_eof(struct het_wire_reader *r, struct het_error *err)
{
	struct het_error e;

	if (r->dead)
		return het_wire_reader_dead(r, err);
	if (r->len > r->complete) {
		het_error_set(&e, HET_EPROTO, "the stream ended inside line "
		    "%zu (%zu bytes without a newline): truncated record",
		    het_wire_reader_lineno_at(r, r->complete),
		    r->len - r->complete);
		return het_wire_reader_die(r, err, &e);
	}
	return HET_OK;
}

size_t
het_wire_reader_pending(const struct het_wire_reader *r)
{
	return r->len - r->start;
}

static json_t *
het_wire_real(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static int
het_wire_get_long(const json_t *obj, const char *rec, const char *key,
    long min, long *out, struct het_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > LONG_MAX)
		return het_error_set(err, HET_EPROTO, "%s record: field '%s' "
		    "must be an integer >= %ld", rec, key, min);
	*out = (long)json_integer_value(v);
	return HET_OK;
}

static int
het_wire_get_real(const json_t *obj, const char *rec, const char *key,
    double *out, struct het_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (json_is_null(v)) {
		*out = NAN;
		return HET_OK;
	}
	if (!json_is_number(v))
		return het_error_set(err, HET_EPROTO, "%s record: field '%s' "
		    "must be a number or null", rec, key);
	*out = json_number_value(v);
	return HET_OK;
}

int
het_wire_get_shard_id(const json_t *obj, long *shard, struct het_error *err)
{
	return het_wire_get_long(obj, "wire", "shard", 0, shard, err);
}

json_t *
het_wire_progress_pack(const struct het_wire_progress *p)
{
	json_t *o = json_pack("{s:I, s:s, s:I, s:I, s:o, s:o, s:I, s:o}",
	    "shard", (json_int_t)p->shard, "phase", p->phase,
	    "chain", (json_int_t)p->chain,
	    "iteration", (json_int_t)p->iteration,
	    "step_size", het_wire_real(p->step_size),
	    "accept", het_wire_real(p->accept),
	    "divergences", (json_int_t)p->divergences,
	    "rhat", het_wire_real(p->rhat));

	if (o != NULL && p->at_once && json_object_set_new(o, "done",
	    het_wire_real(p->done)) != 0) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

int
het_wire_progress_unpack(const json_t *obj, struct het_wire_progress *p,
    struct het_error *err)
{
	json_t	*ph = json_object_get(obj, "phase");
	int	 rc;

	memset(p, 0, sizeof *p);
	if (!json_is_string(ph) ||
	    json_string_length(ph) >= sizeof p->phase ||
	    json_string_length(ph) == 0)
		return het_error_set(err, HET_EPROTO, "progress record: field "
		    "'phase' must be a word of 1 to %zu characters",
		    sizeof p->phase - 1);
	snprintf(p->phase, sizeof p->phase, "%s", json_string_value(ph));
	if ((rc = het_wire_get_long(obj, "progress", "shard", 0, &p->shard,
	    err)) != HET_OK ||
	    (rc = het_wire_get_long(obj, "progress", "chain", 0, &p->chain,
	    err)) != HET_OK ||
	    (rc = het_wire_get_long(obj, "progress", "iteration", 0,
	    &p->iteration, err)) != HET_OK ||
	    (rc = het_wire_get_long(obj, "progress", "divergences", 0,
	    &p->divergences, err)) != HET_OK ||
	    (rc = het_wire_get_real(obj, "progress", "step_size",
	    &p->step_size, err)) != HET_OK ||
	    (rc = het_wire_get_real(obj, "progress", "accept", &p->accept,
	    err)) != HET_OK ||
	    (rc = het_wire_get_real(obj, "progress", "rhat", &p->rhat,
	    err)) != HET_OK)
		return rc;
	if (json_object_get(obj, "done") == NULL)
		return HET_OK;
	p->at_once = 1;
	if ((rc = het_wire_get_real(obj, "progress", "done", &p->done,
	    err)) != HET_OK)
		return rc;
	if (!(p->done >= 0 && p->done <= 1))
		return het_error_set(err, HET_EPROTO, "progress record: field "
		    "'done' is %g; it must lie in [0, 1]", p->done);
	return HET_OK;
}

json_t *
het_wire_heartbeat_pack(long shard)
{
	return json_pack("{s:I}", "shard", (json_int_t)shard);
}

int
het_wire_heartbeat_unpack(const json_t *obj, long *shard,
    struct het_error *err)
{
	return het_wire_get_long(obj, "heartbeat", "shard", -1, shard, err);
}

json_t *
het_wire_error_pack(const struct het_wire_errinfo *e)
{
	return json_pack("{s:I, s:s, s:s}", "shard", (json_int_t)e->shard,
	    "code", het_status_name(e->code), "msg", e->msg);
}

int
het_wire_error_unpack(const json_t *obj, struct het_wire_errinfo *e,
    struct het_error *err)
{
	json_t	*c = json_object_get(obj, "code");
	json_t	*m = json_object_get(obj, "msg");
	int	 k, rc;

	memset(e, 0, sizeof *e);
	if ((rc = het_wire_get_long(obj, "error", "shard", -1, &e->shard,
	    err)) != HET_OK)
		return rc;
	if (!json_is_string(m))
		return het_error_set(err, HET_EPROTO, "error record: field "
		    "'msg' must be a string");
	if (json_is_string(c)) {
		for (k = HET_EINVAL; k < HET_CONTINUE; k++)
			if (strcmp(het_status_name(k), json_string_value(c))
			    == 0)
				break;
		if (k < HET_CONTINUE) {
			e->code = k;
			snprintf(e->msg, sizeof e->msg, "%s",
			    json_string_value(m));
			return HET_OK;
		}
	}
	return het_error_set(err, HET_EPROTO, "error record: field 'code' "
	    "must be a status name such as \"HET_EINVAL\"");
}
