/*
 * het_util.c: overflow-checked allocation, strict number parsing and
 * atomic file replacement.
 *
 * Atomic replacement writes to a hidden temporary file in the target's own
 * directory (rename(2) is atomic only within one file system), fsyncs it,
 * then renames it over the target.  A crash leaves either the old file or
 * the new one, never a half-written result.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_util.h"

int
het_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
het_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

int
het_cmp_rank(const void *a, const void *b)
{
	const struct het_rank_item *x = a, *y = b;

	if (x->v < y->v)
		return -1;
	if (x->v > y->v)
		return 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

void *
het_alloc_array(size_t n, size_t size, const char *what,
    struct het_error *err)
{
	void *p;

	if (size != 0 && n > SIZE_MAX / size) {
		het_error_set(err, HET_ENOMEM,
		    "%s: %zu elements of %zu bytes overflow the address space",
		    what, n, size);
		return NULL;
	}
	p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
	if (p == NULL)
		het_error_set(err, HET_ENOMEM,
		    "%s: cannot allocate %.1f MiB", what,
		    (double)n * (double)size / 1048576.0);
	return p;
}

char *
het_strdup(const char *s, struct het_error *err)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		het_error_set(err, HET_ENOMEM, "cannot copy a string of %zu bytes",
		    strlen(s));
	return d;
}

int
het_str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

void
het_csv_field(FILE *fp, const char *s)
{
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

char *
het_tmp_path(const char *path, struct het_error *err)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	size_t need = strlen(path) + 32;
	char *tmp;

	tmp = het_alloc_array(need, 1, "temporary file name", err);
	if (tmp == NULL)
		return NULL;
	snprintf(tmp, need, "%.*s.%s.tmp.%ld", (int)dirlen, path,
	    path + dirlen, (long)getpid());
	return tmp;
}

/*
 * The rename itself must reach the disk too (a node that goes down
 * right after it would otherwise come back with the old file): fsync the
 * directory that holds path.  Best effort: some file systems refuse.
 */
static void
het_fsync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd;

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/*
 * Data must reach the disk before the name points at it.  A file system
 * that cannot sync at all (EINVAL, EROFS, ENOTSUP, ENOSYS; EBADF where
 * a read-only descriptor cannot be synced) is let through: the write
 * itself succeeded.  Any other failure (EIO, ENOSPC, EDQUOT: on NFS
 * and Lustre a quota or server error often shows up only here) means the
 * data may not be there, so the old file must stay.
 */
int
het_sync_tmp(const char *tmp, const char *path, struct het_error *err)
{
	int fd, rc = 0, e = 0;

	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0)
		return het_error_sys(err, errno, "cannot reopen %s to sync it",
		    tmp);
	while ((rc = fsync(fd)) != 0 && errno == EINTR)
		;
	if (rc != 0)
		e = errno;
	close(fd);
	if (rc == 0 || e == EINVAL || e == EROFS || e == ENOTSUP ||
	    e == ENOSYS || e == EBADF)
		return HET_OK;
	return het_error_sys(err, e, "%s was not replaced: its new content "
	    "did not reach the disk", path);
}

int
het_commit_tmp(const char *tmp, const char *path, struct het_error *err)
{
	int rc;

	if ((rc = het_sync_tmp(tmp, path, err)) != HET_OK) {
		unlink(tmp);
		return rc;
	}
	return het_rename_tmp(tmp, path, err);
}

int
het_rename_tmp(const char *tmp, const char *path, struct het_error *err)
{
	if (rename(tmp, path) != 0) {
		int e = errno;

		unlink(tmp);
		return het_error_sys(err, e, "cannot rename %s to %s", tmp,
		    path);
	}
	het_fsync_dir(path);
	return HET_OK;
}

int
het_mkdirs(const char *dir, const char *what, struct het_error *err)
{
	char *p, *s, c;
	struct stat st;
	int rc = HET_OK;

	if (dir[0] == '\0')
		return het_error_set(err, HET_EINVAL, "the %s is an empty "
		    "path; name a folder", what);
	if ((p = het_strdup(dir, err)) == NULL)
		return HET_ENOMEM;
	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			rc = het_error_sys(err, errno, "cannot create the %s %s",
			    what, p);
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (rc == HET_OK && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		rc = het_error_set(err, HET_EIO, "the %s %s exists but is not "
		    "a directory", what, dir);
	free(p);
	return rc;
}

int
het_dir_check_writable(const char *dir, const char *what,
    struct het_error *err)
{
	char *p, *probe = NULL, *slash;
	struct stat st;
	size_t len = strlen(dir);
	int fd, e, rc = HET_OK;

	if (len == 0)
		return het_error_set(err, HET_EINVAL, "the %s is an empty "
		    "path; name a folder", what);
	if ((p = malloc(len + 2)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	memcpy(p, dir, len + 1);
	/* the folder, else the nearest existing parent it would be made in */
	while (stat(p, &st) != 0) {
		if (errno != ENOENT) {
			e = errno;
			rc = het_error_set(err, HET_EIO, "the %s %s cannot be "
			    "used: %s: %s; choose another folder (-o DIR or "
			    "output_dir)", what, dir, p, strerror(e));
			goto out;
		}
		if ((slash = strrchr(p, '/')) == NULL)
			memcpy(p, ".", 2);
		else if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = het_error_set(err, HET_EIO, "the %s %s cannot be made: %s "
		    "is not a directory; choose another folder (-o DIR or "
		    "output_dir)", what, dir, p);
		goto out;
	}
	/* a real file, so read-only mounts and ACLs count, even for root */
	if ((probe = malloc(strlen(p) + 64)) == NULL) {
		rc = het_error_set(err, HET_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(probe, strlen(p) + 64, "%s/.hetui-write-test.%ld", p,
	    (long)getpid());
	if ((fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0) {
		e = errno;
		rc = het_error_set(err, HET_EIO, "the %s %s is not writable: "
		    "a file cannot be created in %s: %s; choose a writable "
		    "folder (-o DIR or output_dir) or fix its permissions",
		    what, dir, p, strerror(e));
		goto out;
	}
	close(fd);
	(void)unlink(probe);
out:
	free(probe);
	free(p);
	return rc;
}

int
het_write_file_atomic(const char *path, const void *data, size_t len,
    struct het_error *err)
{
	const char *p = data;
	char *tmp;
	int fd, rc;

	tmp = het_tmp_path(path, err);
	if (tmp == NULL)
		return HET_ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = het_error_sys(err, errno, "cannot create %s", tmp);
		free(tmp);
		return rc;
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = het_error_sys(err, n < 0 ? errno : EIO,
			    "cannot write %s", tmp);
			close(fd);
			unlink(tmp);
			free(tmp);
			return rc;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0) {
		rc = het_error_sys(err, errno, "cannot close %s", tmp);
		unlink(tmp);
		free(tmp);
		return rc;
	}
	rc = het_commit_tmp(tmp, path, err);
	free(tmp);
	return rc;
}

/*
 * number_span: the text of s without the blanks around it, as [*b, *e).
 * Returns 1 when it holds something, 0 when it is empty or blank.
 */
static int
number_span(const char *s, const char **b, const char **e)
{
	const char *p = s, *q = s + strlen(s);

	while (isspace((unsigned char)*p))
		p++;
	while (q > p && isspace((unsigned char)q[-1]))
		q--;
	*b = p;
	*e = q;
	return q > p;
}

/* is_hex_number: "0x..." after an optional sign, which strtod reads. */
static int
is_hex_number(const char *p)
{
	if (*p == '+' || *p == '-')
		p++;
	return p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

int
het_parse_double(const char *s, const char *what, double *out,
    struct het_error *err)
{
	const char *b, *e;
	char *end;
	double v;

	if (s == NULL || !number_span(s, &b, &e))
		return het_error_set(err, HET_EINVAL,
		    "%s: expected a number, got an empty value", what);
	if (is_hex_number(b))
		return het_error_set(err, HET_EINVAL,
		    "%s: '%s' is not a decimal number", what, s);
	errno = 0;
	v = strtod(b, &end);
	if (end != e || end == b)
		return het_error_set(err, HET_EINVAL,
		    "%s: '%s' is not a number", what, s);
	if (errno == ERANGE || !isfinite(v))
		return het_error_set(err, HET_EINVAL,
		    "%s: '%s' is not a finite number", what, s);
	*out = v;
	return HET_OK;
}

int
het_parse_long(const char *s, const char *what, long min, long max,
    long *out, struct het_error *err)
{
	const char *b, *e;
	char *end;
	long v;

	if (s == NULL || !number_span(s, &b, &e))
		return het_error_set(err, HET_EINVAL,
		    "%s: expected an integer, got an empty value", what);
	if (is_hex_number(b))
		return het_error_set(err, HET_EINVAL,
		    "%s: '%s' is not a decimal number", what, s);
	errno = 0;
	v = strtol(b, &end, 10);
	if (end != e || end == b)
		return het_error_set(err, HET_EINVAL,
		    "%s: '%s' is not an integer", what, s);
	if (errno == ERANGE || v < min || v > max)
		return het_error_set(err, HET_EINVAL,
		    "%s: %s is outside the allowed range [%ld, %ld]", what, s,
		    min, max);
	*out = v;
	return HET_OK;
}

char *
het_format_duration(double t, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (!isfinite(t) || t < 0)
		snprintf(buf, len, "?");
	else if (t < 119.5)
		snprintf(buf, len, "%.0f s", t);
	else if (t < 7170)
		snprintf(buf, len, "%.0f min", t / 60);
	else
		snprintf(buf, len, "%.1f h", t / 3600);
	return buf;
}

int
het_chol(size_t n, double *a)
{
	size_t i, j, k;
	double s;

	for (j = 0; j < n; j++) {
		s = a[j * n + j];
		for (k = 0; k < j; k++)
			s -= a[j * n + k] * a[j * n + k];
		if (!(s > 0) || !isfinite(s))
			return -1;
		a[j * n + j] = sqrt(s);
		for (i = j + 1; i < n; i++) {
			s = a[i * n + j];
			for (k = 0; k < j; k++)
				s -= a[i * n + k] * a[j * n + k];
			a[i * n + j] = s / a[j * n + j];
		}
	}
	return 0;
}

void
het_chol_solve(size_t n, const double *L, double *x)
{
	size_t i, k;
	double s;

	for (i = 0; i < n; i++) {
		s = x[i];
		for (k = 0; k < i; k++)
			s -= L[i * n + k] * x[k];
		x[i] = s / L[i * n + i];
	}
	for (i = n; i-- > 0;) {
		s = x[i];
		for (k = i + 1; k < n; k++)
			s -= L[k * n + i] * x[k];
		x[i] = s / L[i * n + i];
	}
}
