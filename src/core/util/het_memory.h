/*
 * het_memory.h: how much memory a fit problem will take, and how much the
 * machine can give, checked before anything large is allocated.
 *
 * A frame window is chosen in frames, but memory grows with its square:
 * 20000 frames of 8 angles are 1.6e9 pairs and about 100 GB, which used
 * to be discovered by the allocator (or the OOM killer) after minutes of
 * reading.  het_problem_build asks here first and refuses, with the
 * numbers and what to change, a window that does not fit; it warns when
 * one takes more than half of what is available.
 *
 * The estimate is per unique upper-triangle pair (the problem's pair list
 * and data, the fit's residual, model and weight vectors, the separable
 * likelihood's per-frame work and the result writer: 64 bytes, about
 * twice the 34 bytes measured for `hetui fit` at 1000-1500 frames), plus
 * two full frame-by-frame float64 matrices (the read buffer and the
 * writer's), plus 64 MiB of fixed cost.  It is meant to be on the safe
 * side by a factor of about 2, not exact.
 */
#ifndef HET_MEMORY_H
#define HET_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "het_error.h"

#define HET_MEMORY_PER_PAIR	64		/* bytes per pair */
#define HET_MEMORY_FIXED	(64ull << 20)	/* bytes */

/* het_memory_check's verdicts. */
enum het_memory_fit {
	HET_MEMORY_OK = 0,	/* fits comfortably (or nothing is known) */
	HET_MEMORY_TIGHT,	/* more than half of what is available */
	HET_MEMORY_TOO_BIG	/* more than what is available */
};

/*
 * het_memory_problem_bytes: the estimate for nangles matrices of
 * n_frames frames (saturates at UINT64_MAX instead of overflowing).
 * Any thread.
 */
uint64_t het_memory_problem_bytes(size_t n_frames, size_t nangles);

/*
 * het_memory_available: the bytes this process can still allocate: the
 * smallest of MemAvailable (/proc/meminfo), the cgroup v2 limit less its
 * usage (/sys/fs/cgroup/memory.max, memory.current) and RLIMIT_AS /
 * RLIMIT_DATA.  override, when not NULL and a valid size (bytes, or with
 * a K, M, G or T suffix, powers of 1024), replaces the probe: the engine
 * passes the environment variable HETUI_MEMORY_AVAILABLE, so tests and
 * users on exotic systems can set it (the core reads no environment).
 * UINT64_MAX when nothing could be read.  Any thread (reads files).
 */
uint64_t het_memory_available(const char *override);

/*
 * het_memory_check: compare the estimate for a window with avail bytes.
 *   what  words naming the window for the message ("frames 1..20000 of
 *         8 angles"), borrowed.
 * Returns HET_MEMORY_OK; HET_MEMORY_TIGHT with a warning sentence in
 * warn (cap bytes); or HET_MEMORY_TOO_BIG with err set (HET_ENOMEM) to a
 * sentence giving the estimate, what is available and what to change.
 * Any thread.
 */
enum het_memory_fit het_memory_check(size_t n_frames, size_t nangles,
    uint64_t avail, const char *what, char *warn, size_t cap,
    struct het_error *err);

/* het_memory_format: bytes in words ("19.3 GB", "512 MB") into buf. */
void het_memory_format(uint64_t bytes, char *buf, size_t len);

#endif /* HET_MEMORY_H */
