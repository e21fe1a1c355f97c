/*
 * het_memory.c: the memory estimate of a fit problem and the memory the
 * process can still get (see het_memory.h for the model and its margin).
 *
 * Design.  Everything saturates instead of overflowing: a hostile or
 * mistaken window (2^31 frames) must give "too big", never a wrapped
 * small number.  The probe reads three sources and keeps the smallest,
 * since a container's cgroup limit or a ulimit is often far below the
 * machine's free memory; a source that cannot be read is skipped.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "het_memory.h"

static uint64_t
sat_mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

uint64_t
het_memory_problem_bytes(size_t n_frames, size_t nangles)
{
	uint64_t n = n_frames, pairs, b;

	pairs = n > 1 ? sat_mul(n, n - 1) / 2 : 0;
	b = sat_mul(sat_mul(pairs, nangles), HET_MEMORY_PER_PAIR);
	b = sat_add(b, sat_mul(sat_mul(n, n), 2 * sizeof(double)));
	return sat_add(b, HET_MEMORY_FIXED);
}

/* A size with an optional K/M/G/T suffix (powers of 1024); 0 if bad. */
static uint64_t
parse_size(const char *s)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (s == NULL || !isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end != '\0' || v == 0)
		return 0;
	return sat_mul(v, (uint64_t)1 << shift);
}

/* One unsigned number from the first line of a file; 0 when absent. */
static uint64_t
read_number(const char *path)
{
	char line[64];
	FILE *f = fopen(path, "r");
	uint64_t v = 0;

	if (f == NULL)
		return 0;
	if (fgets(line, sizeof(line), f) != NULL && isdigit((unsigned char)
	    line[0]))
		v = strtoull(line, NULL, 10);
	fclose(f);
	return v;
}

/* MemAvailable of /proc/meminfo in bytes, 0 when absent. */
static uint64_t
meminfo_available(void)
{
	char line[128];
	unsigned long long kb;
	FILE *f = fopen("/proc/meminfo", "r");
	uint64_t v = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			v = sat_mul(kb, 1024);
			break;
		}
	fclose(f);
	return v;
}

static uint64_t
keep_min(uint64_t cur, uint64_t v)
{
	return v != 0 && v < cur ? v : cur;
}

uint64_t
het_memory_available(const char *override)
{
	uint64_t avail = UINT64_MAX, max, used;
	struct rlimit rl;

	if (parse_size(override) != 0)
		return parse_size(override);
	avail = keep_min(avail, meminfo_available());
	max = read_number("/sys/fs/cgroup/memory.max");
	used = read_number("/sys/fs/cgroup/memory.current");
	if (max != 0)
		avail = keep_min(avail, max > used ? max - used : 1);
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		avail = keep_min(avail, (uint64_t)rl.rlim_cur);
	if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		avail = keep_min(avail, (uint64_t)rl.rlim_cur);
	return avail;
}

void
het_memory_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB",
	    "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (bytes == UINT64_MAX)
		snprintf(buf, len, "more than 16 EiB");
	else if (u == 0)
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 1 : 0, v, unit[u]);
}

enum het_memory_fit
het_memory_check(size_t n_frames, size_t nangles, uint64_t avail,
    const char *what, char *warn, size_t cap, struct het_error *err)
{
	uint64_t need = het_memory_problem_bytes(n_frames, nangles);
	char nb[32], ab[32];

	if (cap > 0)
		warn[0] = '\0';
	if (avail == UINT64_MAX || need <= avail / 2)
		return HET_MEMORY_OK;
	het_memory_format(need, nb, sizeof(nb));
	het_memory_format(avail, ab, sizeof(ab));
	if (need > avail) {
		het_error_set(err, HET_ENOMEM, "%s need about %s of memory, "
		    "more than the %s available; nothing was read.  Choose a "
		    "shorter frame window (start_frame/end_frame, or w in the "
		    "Data panel: memory grows with its square) or fewer "
		    "angles; set HETUI_MEMORY_AVAILABLE if the probe is "
		    "wrong", what, nb, ab);
		return HET_MEMORY_TOO_BIG;
	}
	if (cap > 0)
		snprintf(warn, cap, "%s need about %s of memory, more than "
		    "half of the %s available; other programs may be pushed "
		    "to swap.  A shorter frame window needs much less", what,
		    nb, ab);
	return HET_MEMORY_TIGHT;
}
