/*
 * cmd_sample.h: the parts of `hetui sample` shared between cmd_sample.c
 * (the command and its progress) and cmd_sample_out.c (the final
 * summary).  Loop thread only.
 */
#ifndef HET_CMD_SAMPLE_H
#define HET_CMD_SAMPLE_H

#include <stddef.h>

#include "het_sample.h"

/* The shards of s taken from the run being resumed. */
size_t cli_sample_nreused(struct het_sample *s);

/* The JSON summary (verdict v) on stdout. */
void cli_sample_print_json(struct het_sample *s, enum het_sample_verdict v);

/* The summary table, gates and files on stdout. */
void cli_sample_print_table(struct het_sample *s);

#endif /* HET_CMD_SAMPLE_H */
