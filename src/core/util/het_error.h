/*
 * het_error.h: status codes and the error record every fallible core and
 * engine call fills in.
 *
 * Design: calls return an int status (HET_OK on success, a positive
 * enum het_status otherwise) and, when the caller passes a non-NULL
 * struct het_error, a sentence that says what went wrong, where, and how to
 * fix it.  The core never prints: the layer that owns the user (the CLI or
 * the TUI) decides how to show the sentence.  HET_CONTINUE is not an error;
 * it is the "keep iterating" answer of step-wise algorithms (GSL's
 * GSL_CONTINUE).
 */
#ifndef HET_ERROR_H
#define HET_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum het_status {
	HET_OK = 0,
	HET_EINVAL,	/* invalid argument or value (config, option, parameter) */
	HET_ENOMEM,	/* an allocation that scales with the data failed */
	HET_EIO,	/* operating-system I/O failure; sys_errno is set */
	HET_EFORMAT,	/* a file is not what it should be (layout, shape, type) */
	HET_ENOTFOUND,	/* a requested item (bin, key, file) does not exist */
	HET_ERANGE,	/* a value or selection is outside its allowed range */
	HET_EDATA,	/* the data themselves are bad (NaN, Inf, empty) */
	HET_EPROTO,	/* a wire-protocol violation by a worker */
	HET_ECANCEL,	/* the operation was cancelled on request */
	HET_EMAXITER,	/* an iteration limit was reached without convergence */
	HET_EINTERNAL,	/* an internal invariant failed: a bug in hetui */
	HET_CONTINUE	/* not an error: iterate again */
};

/* Longest message kept; longer ones are truncated with "...". */
#define HET_ERROR_MSG_MAX 1024

struct het_error {
	int	code;			/* enum het_status */
	int	sys_errno;		/* errno for HET_EIO, otherwise 0 */
	char	msg[HET_ERROR_MSG_MAX];	/* one or more complete sentences */
};

/*
 * het_error_set: record an error and return its code.
 *   err   on input, NULL (the message is discarded) or a record to fill;
 *         on output, code and msg set, sys_errno cleared.
 *   code  the status to report (HET_OK clears the record).
 *   fmt   printf-style message.
 * Returns code, so callers can write `return het_error_set(err, ...)`.
 * Thread: any; the record belongs to the caller.
 */
int het_error_set(struct het_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* het_error_vset: het_error_set with a va_list. */
int het_error_vset(struct het_error *err, int code, const char *fmt,
    va_list ap) __attribute__((format(printf, 3, 0)));

/*
 * het_error_sys: like het_error_set with code HET_EIO, appending
 * ": strerror(errnum)" and storing errnum in sys_errno.
 */
int het_error_sys(struct het_error *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * het_error_prefix: put "prefix: " in front of an existing message (used
 * to add context, such as a file name, as an error travels up).  A NULL
 * err is a no-op.  Returns err->code (or HET_OK for NULL).
 */
int het_error_prefix(struct het_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* het_error_clear: reset to HET_OK with an empty message.  NULL is a no-op. */
void het_error_clear(struct het_error *err);

/* het_status_name: a short constant name ("HET_EINVAL") for a code. */
const char *het_status_name(int code);

/* het_status_str: a short lower-case description ("invalid value"). */
const char *het_status_str(int code);

#endif /* HET_ERROR_H */
