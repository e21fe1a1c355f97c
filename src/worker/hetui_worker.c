/*
 * hetui_worker.c: the sampling worker process.  It speaks only over
 * stdin/stdout (so `ssh HOST hetui-worker` and `srun -n1 hetui-worker`
 * work unchanged) and never links ncurses.
 *
 * This first version implements the start of the wire protocol only: it
 * announces itself with a versioned hello line and exits cleanly with
 * status 0 when its standard input closes.  Shards are refused with an
 * error record until the sampler lands.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "het_h5.h"

#define HET_WIRE_VERSION 1

int
main(int argc, char **argv)
{
	char line[4096];
	struct het_error err;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("hetui-worker %s (wire protocol %d)\n", PACKAGE_VERSION,
		    HET_WIRE_VERSION);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: hetui-worker [--version]\n"
		    "hetui-worker is started by hetui; it reads its work from "
		    "standard input.\n");
		return 2;
	}
	if (het_h5_library_init(&err) != HET_OK) {
		printf("error internal %s\n", err.msg);
		return 1;
	}
	printf("hello hetui-wire %d\n", HET_WIRE_VERSION);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		printf("error unsupported this hetui-worker cannot run shards "
		    "yet\n");
		fflush(stdout);
	}
	return 0;
}
