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

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: say which and abort (libFuzzer saves the input). */
#define FUZZ_CHECK(cond, what) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__,		\
		    __LINE__, (what));					\
		abort();						\
	}								\
} while (0)

/*
 * The file of this process that holds an input, for the harnesses of
 * file parsers: "$TMPDIR/hetui-fuzz-PID.EXT" (TMPDIR unset: /dev/shm when
 * writable, else /tmp).  fuzz_write_input writes data to it, aborting
 * when it cannot (a harness without its input tests nothing).
 */
static inline void
fuzz_input_path(char *buf, size_t len, const char *ext)
{
	const char *dir = getenv("TMPDIR");
	struct stat st;

	if (dir == NULL || *dir == '\0') {
		dir = "/dev/shm";
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    access(dir, W_OK) != 0)
			dir = "/tmp";
	}
	snprintf(buf, len, "%s/hetui-fuzz-%ld.%s", dir, (long)getpid(), ext);
}

static inline void
fuzz_write_input(const char *path, const uint8_t *data, size_t size)
{
	size_t off;
	ssize_t w;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		abort();
	}
	for (off = 0; off < size; off += (size_t)w)
		if ((w = write(fd, data + off, size - off)) <= 0) {
			perror(path);
			abort();
		}
	close(fd);
}

#endif /* HET_FUZZ_H */
