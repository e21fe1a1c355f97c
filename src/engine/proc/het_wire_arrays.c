/*
 * het_wire_arrays.c: numeric arrays in wire payloads (see het_wire.h):
 * base64 of the little-endian bytes, with the dtype and the count beside
 * them, checked on decoding (length, padding, the decoded byte count
 * against the count; doubles finite both ways).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_wire.h"

static const char het_wire_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
het_wire_b64_encode(const void *buf, size_t len)
{
	const unsigned char	*p = buf;
	char			*out, *o;
	size_t			 i;
	unsigned long		 v;

	if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
		return NULL;
	if ((out = malloc((len + 2) / 3 * 4 + 1)) == NULL)
		return NULL;
	o = out;
	for (i = 0; i + 2 < len; i += 3) {
		v = (unsigned long)p[i] << 16 | (unsigned long)p[i + 1] << 8 |
		    p[i + 2];
		*o++ = het_wire_b64[v >> 18 & 63];
		*o++ = het_wire_b64[v >> 12 & 63];
		*o++ = het_wire_b64[v >> 6 & 63];
		*o++ = het_wire_b64[v & 63];
	}
	if (i < len) {
		v = (unsigned long)p[i] << 16;
		if (i + 1 < len)
			v |= (unsigned long)p[i + 1] << 8;
		*o++ = het_wire_b64[v >> 18 & 63];
		*o++ = het_wire_b64[v >> 12 & 63];
		*o++ = i + 1 < len ? het_wire_b64[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int
het_wire_b64_val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int
het_wire_b64_decode(const char *s, size_t len, void *out, size_t *outlen,
    struct het_error *err)
{
	unsigned char	*o = out;
	size_t		 i, pad = 0, n = 0;
	unsigned long	 v;
	int		 k, d;

	*outlen = 0;
	if (len % 4 != 0)
		return het_error_set(err, HET_EPROTO, "base64 text of %zu "
		    "characters is not a multiple of 4 long", len);
	if (len > 0 && s[len - 1] == '=')
		pad = len > 1 && s[len - 2] == '=' ? 2 : 1;
	for (i = 0; i < len; i += 4) {
		v = 0;
		for (k = 0; k < 4; k++) {
			if (i + (size_t)k >= len - pad) {
				d = 0;
			} else if ((d = het_wire_b64_val(
			    (unsigned char)s[i + k])) < 0) {
				return het_error_set(err, HET_EPROTO, "base64 "
				    "character %zu is not valid (byte 0x%02x)",
				    i + (size_t)k + 1, (unsigned char)s[i + k]);
			}
			v = v << 6 | (unsigned long)d;
		}
		o[n++] = (unsigned char)(v >> 16);
		if (i + 4 < len || pad < 2)
			o[n++] = (unsigned char)(v >> 8);
		if (i + 4 < len || pad < 1)
			o[n++] = (unsigned char)v;
		/* Canonical form only: the padded-away bits must be zero. */
		if (i + 4 >= len && ((pad == 1 && (v & 0xff) != 0) ||
		    (pad == 2 && (v & 0xffff) != 0)))
			return het_error_set(err, HET_EPROTO, "base64 text "
			    "has non-zero bits in its padding");
	}
	*outlen = n;
	return HET_OK;
}

static int
het_wire_put_bytes(json_t *obj, const char *key, const char *dtype,
    const unsigned char *bytes, size_t nbytes, size_t n,
    struct het_error *err)
{
	json_t	*a;
	char	*b64;

	if (!json_is_object(obj))
		return het_error_set(err, HET_EINVAL, "array '%s' must be put "
		    "into a JSON object", key);
	if ((b64 = het_wire_b64_encode(bytes, nbytes)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory encoding "
		    "array '%s' of %zu values", key, n);
	a = json_pack("{s:s, s:I, s:s}", "dtype", dtype, "n", (json_int_t)n,
	    "b64", b64);
	free(b64);
	if (a == NULL || json_object_set_new(obj, key, a) != 0)
		return het_error_set(err, HET_ENOMEM, "out of memory encoding "
		    "array '%s' of %zu values", key, n);
	return HET_OK;
}

int
het_wire_put_f64(json_t *obj, const char *key, const double *v, size_t n,
    struct het_error *err)
{
	unsigned char	*b;
	uint64_t	 u;
	size_t		 i;
	int		 k, rc;

	if (n > SIZE_MAX / 8)
		return het_error_set(err, HET_ENOMEM, "array '%s' is too "
		    "large", key);
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return het_error_set(err, HET_EDATA, "array '%s' value "
			    "%zu is %g; the wire carries finite numbers only",
			    key, i, v[i]);
	if ((b = malloc(n * 8 + 1)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory encoding "
		    "array '%s' of %zu values", key, n);
	for (i = 0; i < n; i++) {
		memcpy(&u, &v[i], 8);
		for (k = 0; k < 8; k++)
			b[i * 8 + (size_t)k] = (unsigned char)(u >> (8 * k));
	}
	rc = het_wire_put_bytes(obj, key, "f64le", b, n * 8, n, err);
	free(b);
	return rc;
}

int
het_wire_put_u32(json_t *obj, const char *key, const uint32_t *v, size_t n,
    struct het_error *err)
{
	unsigned char	*b;
	size_t		 i;
	int		 k, rc;

	if (n > SIZE_MAX / 4)
		return het_error_set(err, HET_ENOMEM, "array '%s' is too "
		    "large", key);
	if ((b = malloc(n * 4 + 1)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory encoding "
		    "array '%s' of %zu values", key, n);
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			b[i * 4 + (size_t)k] = (unsigned char)(v[i] >> (8 * k));
	rc = het_wire_put_bytes(obj, key, "u32le", b, n * 4, n, err);
	free(b);
	return rc;
}

/* Decode obj[key] of dtype into a malloc'd byte array of n * width. */
static int
het_wire_get_bytes(const json_t *obj, const char *key, const char *dtype,
    size_t width, unsigned char **out, size_t *n, struct het_error *err)
{
	json_t		*a, *jn, *jd, *jb;
	const char	*b64;
	size_t		 blen, got;
	json_int_t	 cnt;
	unsigned char	*buf;
	struct het_error e;

	*out = NULL;
	*n = 0;
	if ((a = json_object_get(obj, key)) == NULL)
		return het_error_set(err, HET_ENOTFOUND, "the record has no "
		    "array '%s'", key);
	jd = json_object_get(a, "dtype");
	jn = json_object_get(a, "n");
	jb = json_object_get(a, "b64");
	if (!json_is_object(a) || !json_is_string(jd) ||
	    !json_is_integer(jn) || !json_is_string(jb))
		return het_error_set(err, HET_EPROTO, "array '%s' is not an "
		    "object {\"dtype\", \"n\", \"b64\"}", key);
	if (strcmp(json_string_value(jd), dtype) != 0)
		return het_error_set(err, HET_EPROTO, "array '%s' has dtype "
		    "'%s', expected '%s'", key, json_string_value(jd), dtype);
	cnt = json_integer_value(jn);
	b64 = json_string_value(jb);
	blen = json_string_length(jb);
	if (cnt < 0 || (uint64_t)cnt > SIZE_MAX / width / 2 ||
	    ((size_t)cnt * width + 2) / 3 * 4 != blen)
		return het_error_set(err, HET_EPROTO, "array '%s' says n = %lld "
		    "but carries %zu base64 characters", key, (long long)cnt,
		    blen);
	if (cnt == 0)
		return HET_OK;
	if ((buf = malloc(blen / 4 * 3 + 1)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory decoding "
		    "array '%s' of %lld values", key, (long long)cnt);
	if (het_wire_b64_decode(b64, blen, buf, &got, &e) != HET_OK) {
		free(buf);
		return het_error_set(err, HET_EPROTO, "array '%s': %s", key,
		    e.msg);
	}
	/*
	 * The length check above admits one or two '=' either way: "=="
	 * where "=" belongs decodes one byte short, which would leave the
	 * last value partly uninitialised.
	 */
	if (got != (size_t)cnt * width) {
		free(buf);
		return het_error_set(err, HET_EPROTO, "array '%s' says n = %lld "
		    "(%zu bytes) but its base64 text decodes to %zu bytes; the "
		    "padding at its end is wrong (use '=' for 2 bytes left "
		    "over, '==' for 1)", key, (long long)cnt,
		    (size_t)cnt * width, got);
	}
	*out = buf;
	*n = (size_t)cnt;
	return HET_OK;
}

int
het_wire_get_f64(const json_t *obj, const char *key, double **out,
    size_t *n, struct het_error *err)
{
	unsigned char	*b;
	double		*v;
	uint64_t	 u;
	size_t		 i, cnt;
	int		 k, rc;

	*out = NULL;
	*n = 0;
	if ((rc = het_wire_get_bytes(obj, key, "f64le", 8, &b, &cnt, err))
	    != HET_OK || cnt == 0)
		return rc;
	if ((v = malloc(cnt * sizeof *v)) == NULL) {
		free(b);
		return het_error_set(err, HET_ENOMEM, "out of memory decoding "
		    "array '%s' of %zu values", key, cnt);
	}
	for (i = 0; i < cnt; i++) {
		u = 0;
		for (k = 7; k >= 0; k--)
			u = u << 8 | b[i * 8 + (size_t)k];
		memcpy(&v[i], &u, 8);
		if (!isfinite(v[i])) {
			free(b);
			free(v);
			return het_error_set(err, HET_EPROTO, "array '%s' value "
			    "%zu is not finite; the wire carries finite "
			    "numbers only", key, i);
		}
	}
	free(b);
	*out = v;
	*n = cnt;
	return HET_OK;
}

int
het_wire_get_u32(const json_t *obj, const char *key, uint32_t **out,
    size_t *n, struct het_error *err)
{
	unsigned char	*b;
	uint32_t	*v;
	size_t		 i, cnt;
	int		 rc;

	*out = NULL;
	*n = 0;
	if ((rc = het_wire_get_bytes(obj, key, "u32le", 4, &b, &cnt, err))
	    != HET_OK || cnt == 0)
		return rc;
	if ((v = malloc(cnt * sizeof *v)) == NULL) {
		free(b);
		return het_error_set(err, HET_ENOMEM, "out of memory decoding "
		    "array '%s' of %zu values", key, cnt);
	}
	for (i = 0; i < cnt; i++)
		v[i] = (uint32_t)b[i * 4] | (uint32_t)b[i * 4 + 1] << 8 |
		    (uint32_t)b[i * 4 + 2] << 16 | (uint32_t)b[i * 4 + 3] << 24;
	free(b);
	*out = v;
	*n = cnt;
	return HET_OK;
}

/* A real or null (non-finite) JSON value. */
