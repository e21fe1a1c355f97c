/*
 * fuzz.h: the entry point every harness of tests/fuzz defines.
 *
 * A harness is one LLVMFuzzerTestOneInput.  With ./configure
 * --enable-fuzzing it is linked with libFuzzer's main (`make fuzz`); in
 * every build it is also linked with tests/fuzz/replay.c, whose main feeds
 * it the files named on its command line, so the seed corpus and every
 * committed crash reproducer run through the normal build in `make check`
 * (tests/t_fuzz_replay.sh).
 *
 * Contract of a harness: any input is acceptable; it returns 0, and it
 * aborts (a crash libFuzzer reports) only when hetui broke a promise of
 * its headers, for example an error status without a message.
 */
#ifndef HET_FUZZ_H
#define HET_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: say which and abort (libFuzzer saves the input). */
#define FUZZ_CHECK(cond, what) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__,		\
		    __LINE__, (what));					\
		abort();						\
	}								\
} while (0)

#endif /* HET_FUZZ_H */
