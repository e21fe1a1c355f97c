#include "config.h"

/*
 * replay.c: main for a fuzz harness in a build without libFuzzer: each
 * file named on the command line is read whole and given to
 * LLVMFuzzerTestOneInput once, so a crash reproducer replays through the
 * normal build (tests/t_fuzz_replay.sh).  Exit status 0 when every file
 * was read and replayed; a crash in the harness is the process dying.
 */

#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

static int
replay(const char *path)
{
	FILE *f;
	unsigned char *buf = NULL, *nb;
	size_t len = 0, cap = 0, got;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				fclose(f);
				fprintf(stderr, "%s: out of memory\n", path);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		perror(path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (replay(argv[i]) != 0)
			rc = 1;
	return rc;
}
