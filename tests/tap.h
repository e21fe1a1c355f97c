/*
 * tap.h: a small Test Anything Protocol emitter for hetui's C tests.
 *
 * Header-only on purpose: each test program is one translation unit, so
 * the static state below is private to it.  Output goes to stdout, which
 * automake's tap-driver parses; diagnostics are "# " lines.
 *
 *	plan(5);                 or  plan_lazy(); ... done_testing();
 *	ok(x == 2, "x is two");
 *	is_double(got, want, 1e-12, "value");   absolute tolerance
 *	is_rel(got, want, 1e-9, "value");       relative tolerance
 *	is_int(got, want, "count");
 *	is_str(got, want, "name");
 *	like(got, "substring", "message mentions it");
 *	skip(n, "why");
 *	tap_tmpdir(buf, sizeof(buf), "t_name");  fresh directory under $TMPDIR
 *	return exit_status();
 */
#ifndef HET_TAP_H
#define HET_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

static void
tap_vline(int pass, const char *fmt, va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static void __attribute__((unused))
plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static void __attribute__((unused))
plan_lazy(void)
{
	tap_planned = -2;
}

static void __attribute__((unused, noreturn))
skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static void __attribute__((unused, format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int __attribute__((unused, format(printf, 2, 3)))
ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static int __attribute__((unused, format(printf, 4, 5)))
is_double(double got, double want, double atol, const char *fmt, ...)
{
	va_list ap;
	int pass = (isnan(got) && isnan(want)) || fabs(got - want) <= atol;

	va_start(ap, fmt);
	tap_vline(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got %.17g, want %.17g (|diff| %.3g > %.3g)", got, want,
		    fabs(got - want), atol);
	return pass;
}

static int __attribute__((unused, format(printf, 4, 5)))
is_rel(double got, double want, double rtol, const char *fmt, ...)
{
	va_list ap;
	double scale = fabs(want) > 0 ? fabs(want) : 1.0;
	int pass = fabs(got - want) <= rtol * scale;

	va_start(ap, fmt);
	tap_vline(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got %.17g, want %.17g (rel diff %.3g > %.3g)", got, want,
		    fabs(got - want) / scale, rtol);
	return pass;
}

static int __attribute__((unused, format(printf, 3, 4)))
is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_vline(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got %lld, want %lld", got, want);
	return pass;
}

static int __attribute__((unused, format(printf, 3, 4)))
is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int pass = got != NULL && want != NULL && strcmp(got, want) == 0;

	va_start(ap, fmt);
	tap_vline(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got '%s', want '%s'", got ? got : "(null)",
		    want ? want : "(null)");
	return pass;
}

static int __attribute__((unused, format(printf, 3, 4)))
like(const char *got, const char *needle, const char *fmt, ...)
{
	va_list ap;
	int pass = got != NULL && strstr(got, needle) != NULL;

	va_start(ap, fmt);
	tap_vline(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("'%s' does not contain '%s'", got ? got : "(null)",
		    needle);
	return pass;
}

static void __attribute__((unused))
skip(int n, const char *why)
{
	while (n-- > 0) {
		tap_run++;
		printf("ok %d # SKIP %s\n", tap_run, why);
	}
	fflush(stdout);
}

static void __attribute__((unused))
done_testing(void)
{
	if (tap_planned == -2) {
		printf("1..%d\n", tap_run);
		tap_planned = tap_run;
	}
	fflush(stdout);
}

static int __attribute__((unused))
exit_status(void)
{
	if (tap_planned == -2)
		done_testing();
	if (tap_planned >= 0 && tap_planned != tap_run) {
		diag("planned %d tests but ran %d", tap_planned, tap_run);
		return 1;
	}
	return tap_failed ? 1 : 0;
}

/*
 * A fresh private directory "$TMPDIR/NAME.XXXXXX" (TMPDIR unset or empty:
 * /tmp) written into buf; returns buf, or NULL (with a diagnostic) when
 * it cannot be made or does not fit in n bytes.
 */
static __attribute__((unused)) char *
tap_tmpdir(char *buf, size_t n, const char *name)
{
	const char *base = getenv("TMPDIR");
	int len;

	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	len = snprintf(buf, n, "%s/%s.XXXXXX", base, name);
	if (len < 0 || (size_t)len >= n || mkdtemp(buf) == NULL) {
		diag("cannot make a temporary directory under %s", base);
		return NULL;
	}
	return buf;
}

#endif /* HET_TAP_H */
