/*
 * het_error.c: filling struct het_error.
 *
 * Messages are formatted into the caller's fixed buffer, never allocated,
 * so reporting an out-of-memory condition cannot itself fail.  Truncated
 * messages end in "..." so a reader knows text was lost.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "het_error.h"

static void
het_error_mark_truncated(struct het_error *err, int n)
{
	if (n >= (int)sizeof(err->msg))
		memcpy(err->msg + sizeof(err->msg) - 4, "...", 4);
}

int
het_error_vset(struct het_error *err, int code, const char *fmt, va_list ap)
{
	int n;

	if (err == NULL)
		return code;
	err->code = code;
	err->sys_errno = 0;
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (n < 0)
		err->msg[0] = '\0';
	het_error_mark_truncated(err, n);
	return code;
}

int
het_error_set(struct het_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	het_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int
het_error_sys(struct het_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (err == NULL)
		return HET_EIO;
	va_start(ap, fmt);
	het_error_vset(err, HET_EIO, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	if (len < sizeof(err->msg) - 1) {
		int n = snprintf(err->msg + len, sizeof(err->msg) - len,
		    ": %s", strerror(errnum));
		het_error_mark_truncated(err, (int)len + n);
	}
	err->sys_errno = errnum;
	return HET_EIO;
}

int
het_error_prefix(struct het_error *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)], pre[sizeof(err->msg)];
	va_list ap;
	int n;

	if (err == NULL)
		return HET_OK;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	if (n < 0)
		return err->code;
	n = snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
	het_error_mark_truncated(err, n);
	return err->code;
}

void
het_error_clear(struct het_error *err)
{
	if (err == NULL)
		return;
	err->code = HET_OK;
	err->sys_errno = 0;
	err->msg[0] = '\0';
}

static const struct {
	const char *name;
	const char *str;
} het_status_table[] = {
	[HET_OK] = { "HET_OK", "success" },
	[HET_EINVAL] = { "HET_EINVAL", "invalid value" },
	[HET_ENOMEM] = { "HET_ENOMEM", "out of memory" },
	[HET_EIO] = { "HET_EIO", "input/output error" },
	[HET_EFORMAT] = { "HET_EFORMAT", "bad file format" },
	[HET_ENOTFOUND] = { "HET_ENOTFOUND", "not found" },
	[HET_ERANGE] = { "HET_ERANGE", "out of range" },
	[HET_EDATA] = { "HET_EDATA", "bad data" },
	[HET_EPROTO] = { "HET_EPROTO", "protocol error" },
	[HET_ECANCEL] = { "HET_ECANCEL", "cancelled" },
	[HET_EMAXITER] = { "HET_EMAXITER", "iteration limit reached" },
	[HET_EINTERNAL] = { "HET_EINTERNAL", "internal error" },
	[HET_CONTINUE] = { "HET_CONTINUE", "continue" },
};

const char *
het_status_name(int code)
{
	if (code < 0 || code > HET_CONTINUE)
		return "HET_UNKNOWN";
	return het_status_table[code].name;
}

const char *
het_status_str(int code)
{
	if (code < 0 || code > HET_CONTINUE)
		return "unknown status";
	return het_status_table[code].str;
}
