/*
 * het_npy.c: the .npy reader of het_npy.h: the header's dict literal by
 * a tokenizer of its grammar, the array by windows read with pread.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_npy.h"
#include "het_util.h"

static const unsigned char npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

int
het_npy_is_npy(const unsigned char *buf, size_t len)
{
	return len >= sizeof npy_magic &&
	    memcmp(buf, npy_magic, sizeof npy_magic) == 0;
}

/* The header text being parsed and where we are in it. */
struct hp {
	const char		*s;
	size_t			 len, pos;
	struct het_error	*err;
};

static void
hp_blank(struct hp *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' ||
	    p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
	    p->s[p->pos] == '\r'))
		p->pos++;
}

/* HET_EFORMAT: expected `what` at the current character. */
static int
hp_fail(struct hp *p, const char *what)
{
	char c = p->pos < p->len ? p->s[p->pos] : '\0';

	if (p->pos >= p->len)
		return het_error_set(p->err, HET_EFORMAT, "the .npy header "
		    "ends where %s was expected", what);
	return het_error_set(p->err, HET_EFORMAT, "the .npy header has "
	    "'%c' at character %zu where %s was expected", c >= 32 &&
	    c < 127 ? c : '?', p->pos + 1, what);
}

/* Skip blanks, then take character c if it is next. */
static int
hp_take(struct hp *p, char c)
{
	hp_blank(p);
	if (p->pos < p->len && p->s[p->pos] == c) {
		p->pos++;
		return 1;
	}
	return 0;
}

/* A quoted string (no escapes: none occur in a .npy header). */
static int
hp_string(struct hp *p, char *out, size_t cap)
{
	char q;
	size_t n = 0;

	hp_blank(p);
	if (p->pos >= p->len || (p->s[p->pos] != '\'' &&
	    p->s[p->pos] != '"'))
		return hp_fail(p, "a quoted string");
	q = p->s[p->pos++];
	if (memchr(p->s + p->pos, q, p->len - p->pos) == NULL)
		return hp_fail(p, "a string closed by its quote");
	while (p->s[p->pos] != q) {
		if (n + 1 >= cap || p->s[p->pos] == '\\')
			return hp_fail(p, "a short string without escapes");
		out[n++] = p->s[p->pos++];
	}
	p->pos++;
	out[n] = '\0';
	return HET_OK;
}

/* A non-negative integer (Python 2's long suffix L allowed). */
static int
hp_int(struct hp *p, uint64_t *v)
{
	size_t start;

	hp_blank(p);
	start = p->pos;
	*v = 0;
	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
		if (*v > (UINT64_MAX - 9) / 10)
			return hp_fail(p, "a dimension below 2^63");
		*v = *v * 10 + (uint64_t)(p->s[p->pos++] - '0');
	}
	if (p->pos == start)
		return hp_fail(p, "a dimension (a non-negative integer)");
	if (p->pos < p->len && p->s[p->pos] == 'L')
		p->pos++;
	return HET_OK;
}

/* A shape tuple: (), (a,), (a, b), ... at most 8 dimensions. */
static int
hp_shape(struct hp *p, uint64_t *dim, size_t *nd)
{
	int rc;

	*nd = 0;
	if (!hp_take(p, '('))
		return hp_fail(p, "'(' opening the shape");
	if (hp_take(p, ')'))
		return HET_OK;
	for (;;) {
		if (*nd == 8)
			return hp_fail(p, "at most 8 dimensions");
		if ((rc = hp_int(p, &dim[(*nd)++])) != HET_OK)
			return rc;
		if (hp_take(p, ')'))
			return HET_OK;
		if (!hp_take(p, ','))
			return hp_fail(p, "',' or ')' in the shape");
		if (hp_take(p, ')'))
			return HET_OK;
	}
}

static int
hp_bool(struct hp *p, int *v)
{
	hp_blank(p);
	if (p->len - p->pos >= 4 && memcmp(p->s + p->pos, "True", 4) == 0) {
		p->pos += 4;
		*v = 1;
		return HET_OK;
	}
	if (p->len - p->pos >= 5 && memcmp(p->s + p->pos, "False", 5) == 0) {
		p->pos += 5;
		*v = 0;
		return HET_OK;
	}
	return hp_fail(p, "True or False");
}

static int
host_little(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* descr: a float32 or float64 in some byte order. */
static int
set_descr(const char *d, struct het_npy_hdr *h, struct het_error *err)
{
	int little;

	if (strlen(d) != 3 || strchr("<>=|", d[0]) == NULL || d[1] != 'f' ||
	    (d[2] != '4' && d[2] != '8'))
		return het_error_set(err, HET_EFORMAT, "the array's dtype "
		    "'%s' is not float32 or float64; save it with "
		    "np.save(name, a.astype(np.float64))", d);
	h->f32 = d[2] == '4';
	little = d[0] == '<' ? 1 : d[0] == '>' ? 0 : host_little();
	h->swap = little != host_little();
	return HET_OK;
}

/* The dict: 'descr', 'fortran_order' and 'shape', each once. */
static int
parse_dict(struct hp *p, struct het_npy_hdr *h, uint64_t *dim, size_t *nd)
{
	char key[32], descr[32];
	int rc, seen = 0, bit;

	if (!hp_take(p, '{'))
		return hp_fail(p, "'{' opening the header's dict");
	while (!hp_take(p, '}')) {
		if ((rc = hp_string(p, key, sizeof key)) != HET_OK)
			return rc;
		bit = strcmp(key, "descr") == 0 ? 1 :
		    strcmp(key, "fortran_order") == 0 ? 2 :
		    strcmp(key, "shape") == 0 ? 4 : 0;
		if (bit == 0 || (seen & bit))
			return het_error_set(p->err, HET_EFORMAT, "the .npy "
			    "header has %s key '%s' (a .npy header has "
			    "descr, fortran_order and shape once each)",
			    bit ? "a second" : "an unknown", key);
		seen |= bit;
		if (!hp_take(p, ':'))
			return hp_fail(p, "':' after a key");
		rc = bit == 1 ? hp_string(p, descr, sizeof descr) :
		    bit == 2 ? hp_bool(p, &h->fortran) : hp_shape(p, dim, nd);
		if (rc != HET_OK || (bit == 1 &&
		    (rc = set_descr(descr, h, p->err)) != HET_OK))
			return rc;
		if (!hp_take(p, ',') && !(hp_blank(p), p->pos < p->len &&
		    p->s[p->pos] == '}'))
			return hp_fail(p, "',' or '}' after a value");
	}
	if (seen != 7)
		return het_error_set(p->err, HET_EFORMAT, "the .npy header "
		    "lacks %s", !(seen & 1) ? "'descr'" : !(seen & 2) ?
		    "'fortran_order'" : "'shape'");
	hp_blank(p);
	if (p->pos != p->len)
		return hp_fail(p, "nothing but padding after the dict");
	return HET_OK;
}

/* The shape as matrices: (N, N) or (M, N, N), and the array's length. */
static int
set_shape(const uint64_t *dim, size_t nd, struct het_npy_hdr *h,
    struct het_error *err)
{
	uint64_t m, n, cells;

	if (nd != 2 && nd != 3)
		return het_error_set(err, HET_EFORMAT, "the array has %zu "
		    "dimension%s; hetui reads one two-time matrix (N, N) or a "
		    "stack of them (angles, N, N)", nd, nd == 1 ? "" : "s");
	m = nd == 3 ? dim[0] : 1;
	n = dim[nd - 1];
	if (dim[nd - 2] != n)
		return het_error_set(err, HET_EFORMAT, "the matrices are not "
		    "square (%llu x %llu); a two-time matrix is N x N",
		    (unsigned long long)dim[nd - 2], (unsigned long long)n);
	if (m == 0 || n < 2)
		return het_error_set(err, HET_EFORMAT, "the array is empty or "
		    "its matrices are smaller than 2 x 2 (%llu matrices of "
		    "side %llu)", (unsigned long long)m, (unsigned long long)n);
	if (n > UINT32_MAX || m > UINT32_MAX || n * n > UINT64_MAX / 8 / m)
		return het_error_set(err, HET_EFORMAT, "the array's shape is "
		    "too large to be a file (%llu x %llu x %llu)",
		    (unsigned long long)m, (unsigned long long)n,
		    (unsigned long long)n);
	cells = m * n * n;
	h->ndim = nd;
	h->nmat = (size_t)m;
	h->n = (size_t)n;
	h->data_len = cells * (h->f32 ? 4 : 8);
	return HET_OK;
}

int
het_npy_parse_header(const unsigned char *buf, size_t len,
    uint64_t file_size, struct het_npy_hdr *h, struct het_error *err)
{
	struct hp p;
	uint64_t dim[8], hlen, pre;
	size_t nd = 0;
	int rc;

	memset(h, 0, sizeof *h);
	if (!het_npy_is_npy(buf, len))
		return het_error_set(err, HET_EFORMAT, "not a NumPy .npy file "
		    "(it does not start with \\x93NUMPY)");
	if (len < 10)
		return het_error_set(err, HET_EFORMAT, "the .npy file ends "
		    "inside its preamble (%zu bytes)", len);
	h->major = buf[6];
	h->minor = buf[7];
	if (h->major < 1 || h->major > 3)
		return het_error_set(err, HET_EFORMAT, "the .npy format "
		    "version %d.%d is not one hetui reads (1.0, 2.0, 3.0)",
		    h->major, h->minor);
	if (h->major == 1) {
		pre = 10;
		hlen = (uint64_t)buf[8] | (uint64_t)buf[9] << 8;
	} else {
		if (len < 12)
			return het_error_set(err, HET_EFORMAT, "the .npy file "
			    "ends inside its preamble (%zu bytes)", len);
		pre = 12;
		hlen = (uint64_t)buf[8] | (uint64_t)buf[9] << 8 |
		    (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
	}
	if (hlen > HET_NPY_HDR_MAX || pre + hlen > len)
		return het_error_set(err, HET_EFORMAT, "the .npy header of "
		    "%llu bytes is %s", (unsigned long long)hlen,
		    hlen > HET_NPY_HDR_MAX ? "longer than 64 KiB" :
		    "cut short by the end of the file");
	p.s = (const char *)buf + pre;
	p.len = (size_t)hlen;
	p.pos = 0;
	p.err = err;
	if ((rc = parse_dict(&p, h, dim, &nd)) != HET_OK ||
	    (rc = set_shape(dim, nd, h, err)) != HET_OK)
		return rc;
	h->data_off = pre + hlen;
	if (file_size < h->data_off + h->data_len)
		return het_error_set(err, HET_EFORMAT, "the .npy file is "
		    "truncated: its header promises %llu bytes of data, the "
		    "file holds %llu", (unsigned long long)h->data_len,
		    (unsigned long long)(file_size - h->data_off));
	if (file_size > h->data_off + h->data_len)
		return het_error_set(err, HET_EFORMAT, "the .npy file has "
		    "%llu bytes after its array; it is not one array as "
		    "np.save writes it", (unsigned long long)(file_size -
		    h->data_off - h->data_len));
	return HET_OK;
}

struct het_npy {
	int			 fd;
	struct het_npy_hdr	 h;
	unsigned char		*buf;	/* one row or column span */
	size_t			 cap;
};

/* Read exactly len bytes at off; HET_EIO on an error or a short read. */
static int
read_at(int fd, void *buf, size_t len, uint64_t off, struct het_error *err)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			het_error_set(err, HET_EIO, "cannot read the array: %s",
			    strerror(errno));
			err->sys_errno = errno;
			return HET_EIO;
		}
		if (r == 0)
			return het_error_set(err, HET_EIO, "the file ended "
			    "inside its array (it changed since it was "
			    "opened?)");
		got += (size_t)r;
	}
	return HET_OK;
}

struct het_npy *
het_npy_open(const char *path, struct het_error *err)
{
	struct het_npy *npy;
	struct stat st;
	unsigned char *head = NULL;
	size_t want;

	if ((npy = calloc(1, sizeof *npy)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	if ((npy->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    fstat(npy->fd, &st) != 0) {
		het_error_set(err, HET_EIO, "cannot open: %s", strerror(errno));
		err->sys_errno = errno;
		goto fail;
	}
	want = (uint64_t)st.st_size < HET_NPY_HDR_MAX + 12 ?
	    (size_t)st.st_size : HET_NPY_HDR_MAX + 12;
	if ((head = het_alloc_array(want, 1, ".npy header", err)) == NULL ||
	    read_at(npy->fd, head, want, 0, err) != HET_OK ||
	    het_npy_parse_header(head, want, (uint64_t)st.st_size, &npy->h,
	    err) != HET_OK)
		goto fail;
	free(head);
	return npy;
fail:
	free(head);
	het_npy_close(npy);
	return NULL;
}

void
het_npy_close(struct het_npy *npy)
{
	if (npy == NULL)
		return;
	if (npy->fd >= 0)
		close(npy->fd);
	free(npy->buf);
	free(npy);
}

const struct het_npy_hdr *
het_npy_header(const struct het_npy *npy)
{
	return &npy->h;
}

/* Item t of buf (float32 or float64, swapped as the file needs). */
static double
item(const struct het_npy_hdr *h, const unsigned char *buf, size_t t)
{
	uint64_t u8;
	uint32_t u4;
	double d;
	float f;

	if (h->f32) {
		memcpy(&u4, buf + 4 * t, 4);
		if (h->swap)
			u4 = __builtin_bswap32(u4);
		memcpy(&f, &u4, 4);
		return (double)f;
	}
	memcpy(&u8, buf + 8 * t, 8);
	if (h->swap)
		u8 = __builtin_bswap64(u8);
	memcpy(&d, &u8, 8);
	return d;
}

int
het_npy_read(struct het_npy *npy, size_t k, size_t f0, size_t n,
    double *out, struct het_error *err)
{
	const struct het_npy_hdr *h = &npy->h;
	size_t isz = h->f32 ? 4 : 8, step, span, r, c;
	uint64_t off;
	int rc;

	if (k >= h->nmat || n == 0 || f0 >= h->n || n > h->n - f0)
		return het_error_set(err, HET_EINVAL, "window %zu..%zu of "
		    "matrix %zu is outside the array (%zu matrices of %zu x "
		    "%zu)", f0, f0 + n - 1, k, h->nmat, h->n, h->n);
	/* C order: rows are contiguous; Fortran: columns, strided by M. */
	step = h->fortran ? h->nmat : 1;
	span = ((n - 1) * step + 1) * isz;
	if (span > npy->cap) {
		free(npy->buf);
		npy->cap = 0;
		if ((npy->buf = het_alloc_array(span, 1, ".npy read buffer",
		    err)) == NULL)
			return HET_ENOMEM;
		npy->cap = span;
	}
	for (r = 0; r < n; r++) {
		if (h->fortran)
			off = (uint64_t)k + (uint64_t)h->nmat *
			    ((uint64_t)f0 + (uint64_t)h->n * (f0 + r));
		else
			off = ((uint64_t)k * h->n + f0 + r) * h->n + f0;
		if ((rc = read_at(npy->fd, npy->buf, span, h->data_off +
		    off * isz, err)) != HET_OK)
			return rc;
		for (c = 0; c < n; c++) {
			if (h->fortran)	/* column f0 + r, row f0 + c */
				out[c * n + r] = item(h, npy->buf, c * step);
			else
				out[r * n + c] = item(h, npy->buf, c);
		}
	}
	return HET_OK;
}
