/*
 * t_core_error.c: struct het_error formatting, truncation, prefixes,
 * strict number parsing, overflow-checked allocation and atomic writes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "het_error.h"
#include "het_util.h"
#include "tap.h"

/*
 * fsync interposed for this program (the core library's calls resolve to
 * it): fails with fsync_errno while that is set, so that the commit's
 * handling of a disk that refuses the data can be provoked.
 */
static int fsync_errno;

int
fsync(int fd)
{
	if (fsync_errno != 0) {
		errno = fsync_errno;
		return -1;
	}
	return (int)syscall(SYS_fsync, fd);
}

static int
file_is(const char *path, const char *want)
{
	char buf[64] = { 0 };
	FILE *fp = fopen(path, "r");

	if (fp == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), fp) == NULL)
		buf[0] = '\0';
	fclose(fp);
	return strcmp(buf, want) == 0;
}

static int
dir_entries(const char *dir)
{
	char cmd[512];
	FILE *fp;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	if ((fp = popen(cmd, "r")) != NULL) {
		if (fscanf(fp, "%d", &n) != 1)
			n = -1;
		pclose(fp);
	}
	return n;
}

/* Entries of a folder other than . and .. */
static int
count_entries(const char *path)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

int
main(void)
{
	struct het_error err;
	char big[3000], dir[256], path[512];
	double d = 0;
	long l = 0;

	plan(62);
	is_int(het_error_set(&err, HET_EINVAL, "bad %s %d", "x", 2.385 > 2),
	    HET_EINVAL, "set returns its code");
	is_str(err.msg, "bad x 1", "message formatted");
	het_error_prefix(&err, "config %s line %d", "a.yaml", 7);
	is_str(err.msg, "config a.yaml line 7: bad x 1", "prefix added");
	is_int(het_error_set(NULL, HET_EIO, "ignored"), HET_EIO,
	    "NULL record still returns the code");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	het_error_set(&err, HET_EDATA, "%s", big);
	is_int((long long)strlen(err.msg), HET_ERROR_MSG_MAX - 1,
	    "long message truncated to the buffer");
	is_str(err.msg + strlen(err.msg) - 3, "...", "truncation is marked");
	het_error_sys(&err, ENOENT, "cannot open %s", "/nope");
	is_str(err.msg, "cannot open /nope: No such file or directory",
	    "sys error appends strerror");
	is_int(err.sys_errno, ENOENT, "errno kept");
	is_str(het_status_name(HET_EFORMAT), "HET_EFORMAT", "status name");
	is_str(het_status_name(999), "HET_UNKNOWN", "unknown status name");

	is_int(het_parse_double("2.385", "--dt", &d, &err), HET_OK, "parse 2.385");
	is_double(d, 2.385, 0, "parsed value");
	is_int(het_parse_double("2.3x", "--dt", &d, &err), HET_EINVAL,
	    "trailing garbage rejected");
	is_str(err.msg, "--dt: '2.3x' is not a number", "garbage message");
	is_int(het_parse_double("inf", "--dt", &d, &err), HET_EINVAL,
	    "infinity rejected");
	is_int(het_parse_long("12", "--seed", 0, 10, &l, &err), HET_EINVAL,
	    "range checked");
	is_str(err.msg, "--seed: 12 is outside the allowed range [0, 10]",
	    "range message");
	is_int(het_parse_long("-7", "--n", -10, 10, &l, &err), HET_OK,
	    "parse -7");
	is_int(l, -7, "parsed long");
	/* Issue 19: numbers typed in the workstation come with blanks
	 * around them, and hexadecimal is never what a user means. */
	is_int(het_parse_long(" 2000 ", "workers", 1, 5000, &l, &err), HET_OK,
	    "blanks around an integer are trimmed");
	is_int(l, 2000, "trimmed integer value");
	is_int(het_parse_double("\t2.385e-05 ", "D0", &d, &err), HET_OK,
	    "blanks around a real number are trimmed");
	is_double(d, 2.385e-05, 0, "trimmed real value");
	is_int(het_parse_double("0x10", "D0", &d, &err), HET_EINVAL,
	    "hexadecimal real refused (strtod would give 16)");
	is_str(err.msg, "D0: '0x10' is not a decimal number", "hex message");
	is_int(het_parse_double("-0X1p3", "D0", &d, &err), HET_EINVAL,
	    "signed hexadecimal float refused");
	is_int(het_parse_long("0x10", "workers", 1, 5000, &l, &err), HET_EINVAL,
	    "hexadecimal integer refused");
	is_str(err.msg, "workers: '0x10' is not a decimal number",
	    "hex message for an integer");
	is_int(het_parse_double("   ", "D0", &d, &err), HET_EINVAL,
	    "only blanks: empty");
	is_str(err.msg, "D0: expected a number, got an empty value",
	    "blank value message");
	is_int(het_parse_double("2. 5", "D0", &d, &err), HET_EINVAL,
	    "a blank inside a number is refused");

	{
		static const struct {
			double		 t;
			const char	*want;
		} dur[] = {
			{ 45.2, "45 s" }, { 119.4, "119 s" },
			{ 119.5, "2 min" }, { 1030, "17 min" },
			{ 7169, "119 min" }, { 8280, "2.3 h" },
			{ -1, "?" }, { NAN, "?" }
		};
		char db[16];
		size_t k;

		for (k = 0; k < sizeof dur / sizeof dur[0]; k++)
			is_str(het_format_duration(dur[k].t, db, sizeof db),
			    dur[k].want, "duration %g s", dur[k].t);
		is_str(het_format_duration(1e6, db, 4), "277",
		    "truncated to the buffer");
	}

	ok(het_alloc_array((size_t)-1 / 4, 8, "huge", &err) == NULL &&
	    err.code == HET_ENOMEM, "overflowing allocation refused");
	like(err.msg, "huge: ", "allocation message names the array");

	if (tap_tmpdir(dir, sizeof(dir), "hetui-t-error") == NULL)
		return exit_status();
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	is_int(het_write_file_atomic(path, "hello\n", 6, &err), HET_OK,
	    "atomic write");
	ok(file_is(path, "hello\n"), "content written");

	fsync_errno = EIO;
	ok(het_write_file_atomic(path, "new\n", 4, &err) == HET_EIO &&
	    strstr(err.msg, "did not reach the disk") != NULL &&
	    strstr(err.msg, "Input/output error") != NULL,
	    "a disk that refuses the data fails the write, with the reason");
	like(err.msg, "/out.txt was not replaced",
	    "the message names the file and says the old one stays");
	ok(file_is(path, "hello\n"), "the old file is left as it was");
	is_int(dir_entries(dir), 1, "no temporary file is left behind");
	fsync_errno = EDQUOT;
	ok(het_write_file_atomic(path, "new\n", 4, &err) == HET_EIO &&
	    strstr(err.msg, "quota") != NULL,
	    "a quota error at sync time is reported");
	fsync_errno = EINVAL;
	ok(het_write_file_atomic(path, "new\n", 4, &err) == HET_OK &&
	    file_is(path, "new\n"),
	    "a file system that cannot sync at all still gets the file");
	fsync_errno = 0;
	snprintf(path, sizeof(path), "%s/missing/out.txt", dir);
	ok(het_write_file_atomic(path, "x", 1, &err) == HET_EIO &&
	    strstr(err.msg, "No such file") != NULL,
	    "atomic write into a missing folder fails with a reason");
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	is_int(het_mkdirs(path, "output directory", &err), HET_OK,
	    "mkdirs makes the missing parents");
	is_int(het_mkdirs(path, "output directory", &err), HET_OK,
	    "mkdirs of an existing directory is fine");
	snprintf(path, sizeof(path), "%s/out.txt/sub", dir);
	ok(het_mkdirs(path, "worker log folder", &err) == HET_EIO &&
	    strstr(err.msg, "cannot create the worker log folder ") != NULL &&
	    strstr(err.msg, "out.txt/sub") != NULL,
	    "mkdirs under a file names the folder and what it is for (%s)",
	    err.msg);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	ok(het_mkdirs(path, "output directory", &err) == HET_EIO &&
	    strstr(err.msg, "exists but is not a directory") != NULL,
	    "mkdirs of a file: not a directory");
	is_int(het_mkdirs("", "output directory", &err), HET_EINVAL,
	    "mkdirs of an empty path is refused");
	/* the output folder check, before any work */
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	is_int(het_dir_check_writable(path, "output directory", &err), HET_OK,
	    "an existing folder is writable");
	snprintf(path, sizeof(path), "%s/a/new/deeper", dir);
	is_int(het_dir_check_writable(path, "output directory", &err), HET_OK,
	    "a folder still to be made: its existing parent is writable");
	snprintf(path, sizeof(path), "%s/a", dir);
	is_int(count_entries(path), 1, "and the test file is gone (only b "
	    "in %s/a), nothing made", dir);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	ok(het_dir_check_writable(path, "output directory", &err) == HET_EIO &&
	    strstr(err.msg, "cannot be made: ") != NULL &&
	    strstr(err.msg, "out.txt is not a directory; choose another "
	    "folder (-o DIR or output_dir)") != NULL, "a file as the folder: "
	    "refused (%s)", err.msg);
	snprintf(path, sizeof(path), "%s/out.txt/sub", dir);
	ok(het_dir_check_writable(path, "output directory", &err) == HET_EIO &&
	    strstr(err.msg, "out.txt/sub cannot be used: ") != NULL &&
	    strstr(err.msg, "Not a directory") != NULL, "a folder under a "
	    "file: refused with the reason (%s)", err.msg);
	is_int(het_dir_check_writable("", "output directory", &err),
	    HET_EINVAL, "an empty folder name is refused");
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		diag("could not remove %s", dir);
	return exit_status();
}
