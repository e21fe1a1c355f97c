/*
 * cmd_fit_rings.h: the batch of `hetui fit --all-rings`, shared between
 * cmd_fit_rings.c (running the rings) and cmd_fit_rings_out.c (the
 * summary on stdout).  Main thread only.
 */
#ifndef HET_CMD_FIT_RINGS_H
#define HET_CMD_FIT_RINGS_H

#include <stddef.h>

#include "cli.h"
#include "het_rings.h"

struct cli_rings {
	const struct cli_cmd *cmd;
	char		*data_path;	/* the file fitted */
	char		*batch;		/* the batch folder */
	double		*q;		/* nq rings with bins */
	size_t		*qidx;		/* their index in the file's q list */
	size_t		 nq;
	struct het_rings table;		/* one row per ring that ran */
	const char	*mode_name;	/* of the first ring fitted */
	int		 cancelled;	/* stopped by a signal */
	int		 lost;		/* a row or the summary not written */
};

/*
 * cli_rings_print: the table of the rings (q, status, reduced
 * chi-square, each physics parameter's value and uncertainty), then for
 * each free physics parameter a text plot against q (log-log when every
 * value is positive) with its power-law slope, and the files written.
 */
void cli_rings_print(const struct cli_rings *b);

/* cli_rings_print_json: the same as one JSON object; rc is the exit
   status it reports as "status". */
void cli_rings_print_json(const struct cli_rings *b, int rc);

#endif /* HET_CMD_FIT_RINGS_H */
