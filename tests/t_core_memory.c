#include "config.h"
/*
 * t_core_memory.c: the memory estimate of a frame window (het_memory):
 * its value against the model's formula, saturation instead of overflow
 * for absurd windows, the three verdicts of het_memory_check with their
 * messages, the override the engine takes from HETUI_MEMORY_AVAILABLE
 * (suffixes, bad values ignored) and the probe's plausibility on this machine.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_memory.h"
#include "tap.h"

static void
test_estimate(void)
{
	uint64_t b = het_memory_problem_bytes(1000, 8);
	uint64_t want = 499500ull * 8 * HET_MEMORY_PER_PAIR +
	    1000ull * 1000 * 16 + HET_MEMORY_FIXED;

	ok(b == want, "1000 frames x 8 angles: %llu bytes (pairs x 64 + "
	    "2 matrices + 64 MiB)", (unsigned long long)b);
	ok(het_memory_problem_bytes(2000, 8) > 3.9 * (double)(b -
	    HET_MEMORY_FIXED), "doubling the frames quadruples it");
	ok(het_memory_problem_bytes(1, 1) == HET_MEMORY_FIXED + 16,
	    "one frame: no pair");
	ok(het_memory_problem_bytes((size_t)1 << 40, 64) == UINT64_MAX,
	    "2^40 frames x 64 angles saturates at UINT64_MAX, not a wrapped "
	    "small number");
	ok(het_memory_problem_bytes(20000, 8) > 100e9, "20000 x 8 (the "
	    "issue's window): more than 100 GB");
}

static void
test_check(void)
{
	struct het_error err;
	char warn[512];
	uint64_t need = het_memory_problem_bytes(1000, 8);

	het_error_clear(&err);
	is_int(het_memory_check(1000, 8, need * 3, "w", warn, sizeof(warn),
	    &err), HET_MEMORY_OK, "three times the need available: ok");
	is_str(warn, "", "... and no warning");
	is_int(het_memory_check(1000, 8, UINT64_MAX, "w", warn, sizeof(warn),
	    &err), HET_MEMORY_OK, "nothing known: ok");
	is_int(het_memory_check(1000, 8, need + need / 2, "frames 1..1000 of "
	    "8 angles", warn, sizeof(warn), &err), HET_MEMORY_TIGHT,
	    "1.5 times the need: tight");
	like(warn, "frames 1..1000 of 8 angles need about 323 MiB of memory, "
	    "more than half of the 485 MiB available",
	    "the warning gives both amounts");
	is_int(het_memory_check(1000, 8, need - 1, "frames 1..1000 of 8 "
	    "angles", warn, sizeof(warn), &err), HET_MEMORY_TOO_BIG,
	    "one byte short: too big");
	is_int(err.code, HET_ENOMEM, "... HET_ENOMEM");
	like(err.msg, "need about 323 MiB of memory, more than the 323 MiB "
	    "available; nothing was read", "... with both amounts");
	like(err.msg, "shorter frame window", "... and what to change");
}

static void
test_available(void)
{
	uint64_t a;
	char buf[32];

	ok(het_memory_available("3G") == 3ull << 30, "override 3G");
	ok(het_memory_available("512k") == 512ull << 10, "... 512k");
	ok(het_memory_available("12345") == 12345, "... 12345 (bytes)");
	a = het_memory_available(NULL);
	ok(het_memory_available("lots") == a, "a bad override is ignored: "
	    "the probe");
	ok(het_memory_available("0x10") == a, "... so is hex");
	ok(het_memory_available("5Q") == a, "... and an unknown suffix");
	ok(het_memory_available("") == a, "... and an empty one");
	/* The probe: some MiB at least on any machine that runs the suite,
	   and not more than 64 TiB. */
	ok(a > (16ull << 20) && (a == UINT64_MAX || a < (64ull << 40)),
	    "the probe gives a plausible amount");
	het_memory_format(a, buf, sizeof(buf));
	diag("available here: %s", buf);
	het_memory_format(1536, buf, sizeof(buf));
	is_str(buf, "1.5 KiB", "1536 bytes in words");
	het_memory_format(UINT64_MAX, buf, sizeof(buf));
	is_str(buf, "more than 16 EiB", "saturated in words");
}

int
main(void)
{
	plan_lazy();
	test_estimate();
	test_check();
	test_available();
	return exit_status();
}
