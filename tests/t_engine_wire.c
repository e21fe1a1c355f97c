/*
 * t_engine_wire.c: the wire protocol (het_wire): record round trips, the
 * incremental reader under every kind of split (byte by byte, random,
 * srun's 1 KiB pieces), multi-megabyte lines, base64 arrays, and every
 * protocol error with its message.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_wire.h"
#include "tap.h"

static uint32_t lcg = 12345u;

static uint32_t
rnd(void)
{
	lcg = lcg * 1664525u + 1013904223u;
	return lcg >> 8;
}

static char *
enc(enum het_wire_type t, json_t *payload)
{
	struct het_error	 err;
	char			*line = NULL;
	size_t			 len;

	if (het_wire_encode(t, payload, &line, &len, &err) != HET_OK)
		diag("encode: %s", err.msg);
	json_decref(payload);
	return line;
}

/* A stream of every record type; lines[] keeps each line. */
static char *lines[8];
static size_t nlines;
static const double yv[] = { 2.385, -0.0, 1e-300, 4.9e-324, -7.25e17,
    0.1, 1.0 / 3.0 };
static const uint32_t pv[] = { 0, 1, 2, 0xffffffffu, 65536 };

static char *
make_stream(size_t *len)
{
	struct het_wire_progress	 pr = { 3, "sampling", 2, 150, 0.0625,
	    0.8125, 4, NAN, 0, 0 };
	struct het_wire_errinfo		 ei;
	struct het_error		 err;
	json_t				*o;
	char				*s;
	size_t				 i, n = 0;

	nlines = 0;
	lines[nlines++] = strdup(het_wire_hello_line());
	o = json_pack("{s:i, s:s, s:{s:i, s:i}, s:{s:[f, f]}}", "shard", 3,
	    "model", "heterodyne", "settings", "chains", 4, "seed", 42,
	    "priors", "beta", 0.1, 0.9);
	het_wire_put_f64(o, "y", yv, sizeof yv / sizeof yv[0], &err);
	het_wire_put_u32(o, "pairs", pv, sizeof pv / sizeof pv[0], &err);
	lines[nlines++] = enc(HET_WIRE_SHARD, o);
	lines[nlines++] = enc(HET_WIRE_HEARTBEAT, het_wire_heartbeat_pack(3));
	lines[nlines++] = enc(HET_WIRE_PROGRESS, het_wire_progress_pack(&pr));
	o = json_pack("{s:i, s:[s, s], s:{s:f}}", "shard", 3, "params",
	    "beta", "gamma", "diag", "max_rhat", 1.01);
	het_wire_put_f64(o, "draws", yv, 6, &err);
	lines[nlines++] = enc(HET_WIRE_RESULT, o);
	memset(&ei, 0, sizeof ei);
	ei.shard = 3;
	ei.code = HET_EDATA;
	snprintf(ei.msg, sizeof ei.msg, "line\nbreak \"quoted\" \xc3\xa9");
	lines[nlines++] = enc(HET_WIRE_ERROR, het_wire_error_pack(&ei));
	lines[nlines++] = enc(HET_WIRE_BYE, NULL);
	for (i = 0; i < nlines; i++)
		n += strlen(lines[i]);
	s = malloc(n + 1);
	s[0] = '\0';
	for (i = 0; i < nlines; i++)
		strcat(s, lines[i]);
	*len = n;
	return s;
}

/*
 * Feed the stream in pieces chosen by mode (0 whole, 1 byte by byte,
 * 2 random, 3 1 KiB) and check each record re-encodes to its line.
 */
static void
check_split(const char *s, size_t len, int mode, const char *what)
{
	struct het_wire_reader	*r;
	struct het_wire_rec	 rec;
	struct het_error	 err;
	size_t			 off = 0, k, got = 0, bad = 0, elen;
	char			*re;
	int			 rc;

	r = het_wire_reader_alloc(0, "test", &err);
	while (off < len) {
		k = mode == 0 ? len : mode == 1 ? 1 : mode == 2 ?
		    1 + rnd() % 97 : 1024;
		if (k > len - off)
			k = len - off;
		if (het_wire_reader_feed(r, s + off, k, &err) != HET_OK)
			bad++;
		off += k;
		while ((rc = het_wire_reader_next(r, &rec, &err)) == HET_OK) {
			if (got >= nlines) {
				bad++;
			} else if (rec.type == HET_WIRE_HELLO) {
				if (rec.version != 1 ||
				    strcmp(lines[got], "hello hetui-wire 1\n"))
					bad++;
			} else {
				re = NULL;
				het_wire_encode(rec.type, rec.payload, &re,
				    &elen, &err);
				if (re == NULL || strcmp(re, lines[got]) != 0)
					bad++;
				free(re);
			}
			if (rec.lineno != got + 1)
				bad++;
			got++;
			het_wire_rec_clear(&rec);
		}
		if (rc != HET_CONTINUE)
			bad++;
	}
	is_int((int)got, (int)nlines, "%s: all %zu records come out", what,
	    nlines);
	is_int((int)bad, 0, "%s: each record re-encodes to its line", what);
	is_int(het_wire_reader_eof(r, &err), HET_OK, "%s: clean EOF", what);
	is_int((int)het_wire_reader_pending(r), 0, "%s: nothing pending",
	    what);
	het_wire_reader_free(r);
}

/* Feed text to a fresh reader; return the first error (or HET_OK). */
static int
feed_err(const char *text, size_t max_line, struct het_error *err)
{
	struct het_wire_reader	*r = het_wire_reader_alloc(max_line, "worker 5",
	    err);
	struct het_wire_rec	 rec;
	int			 rc;

	rc = het_wire_reader_feed(r, text, strlen(text), err);
	while (rc == HET_OK) {
		rc = het_wire_reader_next(r, &rec, err);
		het_wire_rec_clear(&rec);
	}
	if (rc == HET_CONTINUE)
		rc = het_wire_reader_eof(r, err);
	het_wire_reader_free(r);
	return rc;
}

static void
test_records(void)
{
	struct het_wire_progress pr = { 9, "warmup", 1, 77, 0.3125, 0.96875,
	    0, 1.0078125, 0, 0 }, pq;
	struct het_wire_errinfo	 ei, ej;
	struct het_wire_rec	 rec;
	struct het_error	 err;
	json_t			*o;
	char			*line;
	long			 shard;
	size_t			 elen;

	is_str(het_wire_hello_line(), "hello hetui-wire 1\n", "hello line");
	line = enc(HET_WIRE_PROGRESS, het_wire_progress_pack(&pr));
	is_str(line, "progress {\"shard\":9,\"phase\":\"warmup\",\"chain\":1,"
	    "\"iteration\":77,\"step_size\":0.3125,\"accept\":0.96875,"
	    "\"divergences\":0,\"rhat\":1.0078125}\n", "progress encoding");
	is_int(het_wire_decode_line(line, strlen(line) - 1, 1, &rec, &err),
	    HET_OK, "progress decodes");
	is_int(het_wire_progress_unpack(rec.payload, &pq, &err), HET_OK,
	    "progress unpacks");
	ok(pq.shard == 9 && pq.chain == 1 && pq.iteration == 77 &&
	    pq.divergences == 0 && strcmp(pq.phase, "warmup") == 0,
	    "progress integers and phase round trip");
	ok(pq.step_size == 0.3125 && pq.accept == 0.96875 &&
	    pq.rhat == 1.0078125, "progress reals round trip exactly");
	het_wire_rec_clear(&rec);
	free(line);

	pr.rhat = NAN;
	line = enc(HET_WIRE_PROGRESS, het_wire_progress_pack(&pr));
	like(line, "\"rhat\":null", "an R-hat not yet known is null");
	het_wire_decode_line(line, strlen(line) - 1, 1, &rec, &err);
	het_wire_progress_unpack(rec.payload, &pq, &err);
	ok(isnan(pq.rhat), "null R-hat decodes to NaN");
	ok(!pq.at_once, "no \"done\": the chains one after another");
	ok(strstr(line, "done") == NULL, "... and none is sent");
	het_wire_rec_clear(&rec);
	free(line);

	/* chains at once: the share done */
	pr.at_once = 1;
	pr.done = 0.375;
	line = enc(HET_WIRE_PROGRESS, het_wire_progress_pack(&pr));
	like(line, "\"done\":0.375", "chains at once: the share done is sent");
	het_wire_decode_line(line, strlen(line) - 1, 1, &rec, &err);
	ok(het_wire_progress_unpack(rec.payload, &pq, &err) == HET_OK &&
	    pq.at_once && pq.done == 0.375, "... and decodes");
	json_object_set_new(rec.payload, "done", json_real(1.5));
	is_int(het_wire_progress_unpack(rec.payload, &pq, &err), HET_EPROTO,
	    "a share done of 1.5 is refused");
	like(err.msg, "'done' is 1.5; it must lie in [0, 1]", "... message");
	json_object_set_new(rec.payload, "done", json_string("half"));
	is_int(het_wire_progress_unpack(rec.payload, &pq, &err), HET_EPROTO,
	    "a share done that is not a number is refused");
	het_wire_rec_clear(&rec);
	free(line);
	pr.at_once = 0;

	o = json_pack("{s:i, s:s, s:i}", "shard", 1, "phase", "x", "chain",
	    -1);
	is_int(het_wire_progress_unpack(o, &pq, &err), HET_EPROTO,
	    "progress without iteration or with a negative chain");
	like(err.msg, "'chain' must be an integer >= 0", "names the field");
	json_decref(o);
	o = json_pack("{s:i}", "shard", 1);
	is_int(het_wire_progress_unpack(o, &pq, &err), HET_EPROTO,
	    "progress without phase");
	like(err.msg, "'phase'", "names the phase field");
	json_decref(o);

	memset(&ei, 0, sizeof ei);
	ei.shard = -1;
	ei.code = HET_EPROTO;
	snprintf(ei.msg, sizeof ei.msg, "bad things");
	line = enc(HET_WIRE_ERROR, het_wire_error_pack(&ei));
	is_str(line, "error {\"shard\":-1,\"code\":\"HET_EPROTO\",\"msg\":"
	    "\"bad things\"}\n", "error encoding");
	het_wire_decode_line(line, strlen(line) - 1, 1, &rec, &err);
	is_int(het_wire_error_unpack(rec.payload, &ej, &err), HET_OK,
	    "error unpacks");
	ok(ej.shard == -1 && ej.code == HET_EPROTO &&
	    strcmp(ej.msg, "bad things") == 0, "error fields round trip");
	het_wire_rec_clear(&rec);
	free(line);
	o = json_pack("{s:i, s:s, s:s}", "shard", 1, "code", "HET_NOPE",
	    "msg", "m");
	is_int(het_wire_error_unpack(o, &ej, &err), HET_EPROTO,
	    "error with an unknown code");
	like(err.msg, "status name", "says what a code looks like");
	json_decref(o);

	o = het_wire_heartbeat_pack(12);
	is_int(het_wire_heartbeat_unpack(o, &shard, &err), HET_OK,
	    "heartbeat unpacks");
	is_int((int)shard, 12, "heartbeat shard");
	is_int(het_wire_get_shard_id(o, &shard, &err), HET_OK, "shard id");
	json_decref(o);
	o = json_pack("{s:s}", "shard", "x");
	is_int(het_wire_get_shard_id(o, &shard, &err), HET_EPROTO,
	    "non-integer shard id");
	json_decref(o);

	line = NULL;
	is_int(het_wire_encode(HET_WIRE_HELLO, NULL, &line, &elen, &err),
	    HET_EINVAL,
	    "hello is not encoded by het_wire_encode");
	o = json_array();
	is_int(het_wire_encode(HET_WIRE_BYE, o, &line, &elen, &err),
	    HET_EINVAL, "a non-object payload is refused");
	like(err.msg, "must be a JSON object", "and says so");
	json_decref(o);
	line = enc(HET_WIRE_BYE, NULL);
	is_str(line, "bye {}\n", "bye with an empty payload");
	free(line);
	/* a record longer than a reader takes is refused before it is sent */
	o = json_pack("{s:s}", "y", "0123456789");
	line = NULL;
	is_int(het_wire_encode_max(HET_WIRE_SHARD, o, 20, &line, &elen, &err),
	    HET_ERANGE, "a shard record longer than the line limit refused");
	like(err.msg, "a shard record of 24 bytes is longer than a wire line "
	    "may be (20 bytes): split the data into more shards", "and says "
	    "how to fix it");
	ok(line == NULL, "... nothing to send");
	is_int(het_wire_encode_max(HET_WIRE_SHARD, o, 24, &line, &elen, &err),
	    HET_OK, "the same record at a limit of its length is encoded");
	free(line);
	json_decref(o);
	is_str(het_wire_type_name(HET_WIRE_RESULT), "result", "type name");
	is_str(het_wire_type_name(HET_WIRE_NTYPES), "?", "bad type name");
}

static void
test_b64(void)
{
	static const char *in[] = { "", "f", "fo", "foo", "foob", "fooba",
	    "foobar" };
	static const char *want[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==",
	    "Zm9vYmE=", "Zm9vYmFy" };
	struct het_error	 err;
	char			*s, out[16];
	size_t			 i, n;
	int			 good = 0;

	for (i = 0; i < 7; i++) {
		s = het_wire_b64_encode(in[i], strlen(in[i]));
		if (strcmp(s, want[i]) == 0 &&
		    het_wire_b64_decode(s, strlen(s), out, &n, &err) ==
		    HET_OK && n == strlen(in[i]) &&
		    memcmp(out, in[i], n) == 0)
			good++;
		free(s);
	}
	is_int(good, 7, "RFC 4648 test vectors encode and decode");
	is_int(het_wire_b64_decode("Zm9", 3, out, &n, &err), HET_EPROTO,
	    "base64 of a bad length");
	like(err.msg, "not a multiple of 4", "says why");
	is_int(het_wire_b64_decode("Zm*v", 4, out, &n, &err), HET_EPROTO,
	    "base64 with a bad character");
	like(err.msg, "character 3 is not valid (byte 0x2a)", "names it");
	is_int(het_wire_b64_decode("Zh==", 4, out, &n, &err), HET_EPROTO,
	    "base64 with non-zero padding bits");
}

static void
test_arrays(void)
{
	struct het_error	 err;
	json_t			*o = json_object();
	double			*d, bad[3] = { 1, NAN, 3 }, big[2000];
	uint32_t		*u;
	size_t			 n, i;
	int			 same = 1;

	for (i = 0; i < 2000; i++)
		big[i] = (double)(rnd() % 100000) * 1e-3 - 37.5 + 1.0 / 7.0;
	is_int(het_wire_put_f64(o, "y", big, 2000, &err), HET_OK, "put f64");
	is_int(het_wire_get_f64(o, "y", &d, &n, &err), HET_OK, "get f64");
	is_int((int)n, 2000, "f64 count");
	for (i = 0; i < n; i++)
		same &= memcmp(&d[i], &big[i], 8) == 0;
	ok(same, "2000 float64 values round trip bit for bit");
	free(d);
	is_int(het_wire_put_u32(o, "p", pv, 5, &err), HET_OK, "put u32");
	is_int(het_wire_get_u32(o, "p", &u, &n, &err), HET_OK, "get u32");
	ok(n == 5 && memcmp(u, pv, sizeof pv) == 0, "uint32 round trip, "
	    "including 0xffffffff");
	free(u);
	is_int(het_wire_put_f64(o, "e", big, 0, &err), HET_OK, "empty put");
	is_int(het_wire_get_f64(o, "e", &d, &n, &err), HET_OK, "empty get");
	ok(d == NULL && n == 0, "empty array is NULL, 0");

	is_int(het_wire_put_f64(o, "bad", bad, 3, &err), HET_EDATA,
	    "NaN is refused on the way out");
	like(err.msg, "array 'bad' value 1 is nan", "names key and index");
	/* A NaN smuggled in by hand: 0x7ff8000000000000 little-endian. */
	json_object_set_new(o, "nan", json_pack("{s:s, s:i, s:s}", "dtype",
	    "f64le", "n", 1, "b64", "AAAAAAAA+H8="));
	is_int(het_wire_get_f64(o, "nan", &d, &n, &err), HET_EPROTO,
	    "NaN is refused on the way in");
	like(err.msg, "value 0 is not finite", "and says so");
	is_int(het_wire_get_u32(o, "y", &u, &n, &err), HET_EPROTO,
	    "wrong dtype");
	like(err.msg, "dtype 'f64le', expected 'u32le'", "names both dtypes");
	json_object_set_new(o, "short", json_pack("{s:s, s:i, s:s}", "dtype",
	    "f64le", "n", 2, "b64", "AAAAAAAA+H8="));
	is_int(het_wire_get_f64(o, "short", &d, &n, &err), HET_EPROTO,
	    "count and length disagree");
	like(err.msg, "n = 2 but carries 12 base64 characters", "both sizes");
	json_object_set_new(o, "junk", json_pack("{s:s, s:i, s:s}", "dtype",
	    "u32le", "n", 1, "b64", "AA!AAA=="));
	is_int(het_wire_get_u32(o, "junk", &u, &n, &err), HET_EPROTO,
	    "bad base64 in an array");
	like(err.msg, "array 'junk': base64 character 3", "names the array");
	/*
	 * "==" where "=" belongs: the right length for n = 1 f64 (12
	 * characters) but 7 decoded bytes; the 8th would be left unset.
	 */
	json_object_set_new(o, "pad", json_pack("{s:s, s:i, s:s}", "dtype",
	    "f64le", "n", 1, "b64", "AAAAAAAA8A=="));
	d = NULL;
	is_int(het_wire_get_f64(o, "pad", &d, &n, &err), HET_EPROTO,
	    "'==' where '=' belongs is refused");
	like(err.msg, "array 'pad' says n = 1 (8 bytes) but its base64 text "
	    "decodes to 7 bytes", "names the array and both byte counts");
	ok(d == NULL && n == 0, "and returns no array");
	json_object_set_new(o, "pad", json_pack("{s:s, s:i, s:s}", "dtype",
	    "f64le", "n", 1, "b64", "AAAAAAAA8D8="));
	is_int(het_wire_get_f64(o, "pad", &d, &n, &err), HET_OK,
	    "the same value with '=' decodes");
	ok(n == 1 && d != NULL && d[0] == 1.0, "to 1.0");
	free(d);
	json_object_set_new(o, "upad", json_pack("{s:s, s:i, s:s}", "dtype",
	    "u32le", "n", 2, "b64", "AQAAAAIA===="));
	is_int(het_wire_get_u32(o, "upad", &u, &n, &err), HET_EPROTO,
	    "u32: padding where data belongs is refused");
	json_object_set_new(o, "upad", json_pack("{s:s, s:i, s:s}", "dtype",
	    "u32le", "n", 2, "b64", "AQAAAAIAAA=="));
	is_int(het_wire_get_u32(o, "upad", &u, &n, &err), HET_EPROTO,
	    "u32: '==' where '=' belongs is refused");
	like(err.msg, "says n = 2 (8 bytes) but its base64 text decodes to 7",
	    "with both byte counts");
	json_object_set_new(o, "notobj", json_integer(3));
	is_int(het_wire_get_u32(o, "notobj", &u, &n, &err), HET_EPROTO,
	    "array that is not an object");
	is_int(het_wire_get_f64(o, "missing", &d, &n, &err), HET_ENOTFOUND,
	    "missing array");
	like(err.msg, "no array 'missing'", "names it");
	json_decref(o);
}

static void
test_stream(void)
{
	struct het_wire_reader	*r;
	struct het_wire_rec	 rec;
	struct het_error	 err;
	json_t			*o;
	double			*y, *back;
	size_t			 len, n, i, off, k;
	char			*s, *line;
	int			 same = 1, rc;

	s = make_stream(&len);
	check_split(s, len, 0, "whole");
	check_split(s, len, 1, "byte by byte");
	check_split(s, len, 2, "random splits");
	check_split(s, len, 3, "1 KiB pieces");
	free(s);
	for (i = 0; i < nlines; i++)
		free(lines[i]);

	/* A 3.2 MB shard line in srun's 1 KiB pieces. */
	n = 400000;
	y = malloc(n * sizeof *y);
	for (i = 0; i < n; i++)
		y[i] = 1.0 + (double)i * 2.385e-3;
	o = json_pack("{s:i}", "shard", 0);
	het_wire_put_f64(o, "y", y, n, &err);
	line = enc(HET_WIRE_SHARD, o);
	len = strlen(line);
	ok(len > 3000000, "shard line is %zu bytes", len);
	r = het_wire_reader_alloc(0, "coordinator", &err);
	het_wire_reader_feed(r, "hello hetui-wire 1\n", 19, &err);
	het_wire_reader_next(r, &rec, &err);
	rc = HET_CONTINUE;
	for (off = 0; off < len && rc == HET_CONTINUE; off += k) {
		k = len - off < 1024 ? len - off : 1024;
		het_wire_reader_feed(r, line + off, k, &err);
		rc = het_wire_reader_next(r, &rec, &err);
		if (rc == HET_OK && off + k != len)
			rc = HET_EINTERNAL;	/* came out too early */
	}
	is_int(rc, HET_OK, "the big record comes out with its last piece");
	is_int(het_wire_get_f64(rec.payload, "y", &back, &n, &err), HET_OK,
	    "its array decodes");
	for (i = 0; i < 400000 && n == 400000; i++)
		same &= back[i] == y[i];
	ok(n == 400000 && same, "400000 values exact after the trip");
	free(back);
	het_wire_rec_clear(&rec);
	het_wire_reader_free(r);
	free(line);
	free(y);
}

static void
test_errors(void)
{
	struct het_error	 err;
	struct het_wire_reader	*r;
	struct het_wire_rec	 rec;
	char			 longl[300];

	is_int(feed_err("hello hetui-wire 1\nthis is not a wire record\n", 0,
	    &err), HET_EPROTO, "garbage line");
	like(err.msg, "worker 5: line 2: unknown record type in 'this is not "
	    "a wire record'", "names peer, line and shows it");
	is_int(feed_err("hello hetui-wire 1\nfrobnicate {}\n", 0, &err),
	    HET_EPROTO, "unknown record type");
	like(err.msg, "records start with hello, shard", "lists the types");
	is_int(feed_err("progress {}\n", 0, &err), HET_EPROTO,
	    "no hello first");
	like(err.msg, "line 1: the first record is 'progress', expected "
	    "'hello hetui-wire 1'", "says what was expected");
	is_int(feed_err("hello hetui-wire 2\n", 0, &err), HET_EPROTO,
	    "version mismatch");
	like(err.msg, "speaks wire protocol version 2 but this side speaks "
	    "version 1", "names both versions");
	is_int(feed_err("hello hetui-wire x\n", 0, &err), HET_EPROTO,
	    "malformed hello");
	like(err.msg, "malformed hello record 'hello hetui-wire x'",
	    "quotes it");
	is_int(feed_err("hello hetui-wire 01\n", 0, &err), HET_EPROTO,
	    "a version with a leading zero is not version 1");
	like(err.msg, "malformed hello record 'hello hetui-wire 01'",
	    "quotes it");
	is_int(feed_err("hello hetui-wire 10\n", 0, &err), HET_EPROTO,
	    "version 10 is a version mismatch");
	like(err.msg, "speaks wire protocol version 10", "names it");
	is_int(feed_err("hello hetui-wire 1\nhello hetui-wire 1\n", 0, &err),
	    HET_EPROTO, "second hello");
	like(err.msg, "line 2: a second hello", "says so");
	is_int(feed_err("hello hetui-wire 1\nprogress {\"a\":\n", 0, &err),
	    HET_EPROTO, "invalid JSON");
	like(err.msg, "line 2: the payload of the progress record is not "
	    "valid JSON", "says which record");
	is_int(feed_err("hello hetui-wire 1\nresult [1,2]\n", 0, &err),
	    HET_EPROTO, "payload not an object");
	like(err.msg, "not an object", "says so");
	is_int(feed_err("hello hetui-wire 1\nbye\n", 0, &err), HET_EPROTO,
	    "record without a payload");
	like(err.msg, "bye record without a payload; expected 'bye {...}'",
	    "shows the expected form");
	is_int(feed_err("hello hetui-wire 1\nresult {\"shard\":1", 0, &err),
	    HET_EPROTO, "record cut off by EOF");
	like(err.msg, "ended inside line 2 (17 bytes without a newline): "
	    "truncated record", "says truncated, with the size");

	memset(longl, 'x', sizeof longl);
	longl[299] = '\0';
	is_int(feed_err(longl, 100, &err), HET_EPROTO,
	    "unfinished over-long line");
	like(err.msg, "line 1 is longer than the limit of 100 bytes",
	    "names the limit");
	longl[150] = '\n';
	longl[151] = '\0';
	is_int(feed_err(longl, 100, &err), HET_EPROTO,
	    "complete over-long line");
	longl[0] = '\0';
	is_int(feed_err("hello hetui-wire 1\nbye {}\n", 18, &err), HET_OK,
	    "lines at the limit are fine");

	r = het_wire_reader_alloc(0, "w", &err);
	is_int(het_wire_reader_feed(r, "hello hetui-wire 1\nbye {\0}\n", 27,
	    &err), HET_OK, "NUL byte fed");
	het_wire_reader_next(r, &rec, &err);
	is_int(het_wire_reader_next(r, &rec, &err), HET_EPROTO,
	    "NUL byte in a line");
	like(err.msg, "contains a NUL byte", "says so");
	is_int(het_wire_reader_feed(r, "bye {}\n", 7, &err), HET_EPROTO,
	    "a dead reader stays dead");
	like(err.msg, "w: line 2 contains a NUL", "with the first message");
	is_int(het_wire_reader_next(r, &rec, &err), HET_EPROTO,
	    "next on a dead reader");
	het_wire_reader_free(r);
	het_wire_reader_free(NULL);
	het_wire_rec_clear(NULL);
}

int
main(void)
{
	plan_lazy();
	test_records();
	test_b64();
	test_arrays();
	test_stream();
	test_errors();
	done_testing();
	return exit_status();
}
