/*
 * bench_util.h: small helpers the C benches share: the process's CPU
 * time (user + system, all threads) and a JSON array line for the peer
 * scripts.  Static functions, so each bench includes it once.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdio.h>
#include <sys/resource.h>

/* CPU seconds of the whole process so far (user + system). */
static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
	    (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* One `"name": [v0, v1, ...],` line, full precision, for the peers. */
static void
print_array(FILE *f, const char *name, const double *v, size_t n)
{
	size_t k;

	fprintf(f, "\"%s\": [", name);
	for (k = 0; k < n; k++)
		fprintf(f, "%s%.17g", k ? ", " : "", v[k]);
	fprintf(f, "],\n");
}

#endif /* BENCH_UTIL_H */
