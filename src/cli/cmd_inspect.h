/*
 * cmd_inspect.h: `hetui inspect`, shared between cmd_inspect.c (the
 * file, its two-time matrices, the command) and cmd_inspect_mt.c (its
 * multitau g2).  Main thread only.
 */
#ifndef HET_CMD_INSPECT_H
#define HET_CMD_INSPECT_H

#include <stddef.h>

#include <jansson.h>

#include "het_error.h"
#include "het_multitau.h"

/* Symbols of the human output: UTF-8 when the locale allows it. */
struct inspect_sym {
	const char *inv_a;	/* "Å⁻¹" */
	const char *phi;	/* "φ" */
	const char *times;	/* "×" */
	const char *bold, *dim, *reset;
};

/* A JSON number, null when not finite; an array of n numbers. */
json_t *cli_inspect_num(double v);
json_t *cli_inspect_list(const double *v, size_t n);

/* Print s padded to `width` columns (UTF-8 aware; right or left). */
void cli_inspect_cell(const char *s, int width, int right);

/*
 * The leading columns of a bin table, shared by the two-time and the
 * multitau tables: cli_inspect_bin_head prints a blank line, bold on and
 * "index  label  q  phi"; cli_inspect_bin_cells a row's first four cells.
 */
void cli_inspect_bin_head(const struct inspect_sym *s);
void cli_inspect_bin_cells(size_t index, long label, double q, double phi);

/* The key column of the header block ("  layout     "). */
void cli_inspect_key(const struct inspect_sym *s, const char *key);

/*
 * cli_inspect_mt_print: the multitau block of the human output: with
 * `only` (the file has no two-time matrices) the file and layout lines
 * first; then what normalized_g2 holds, how it is stored, the delays and
 * their source, the points without an error, and a table of the bins.
 * mt NULL: nothing when merr says the file has no multitau data, else
 * the line "multitau  cannot be read: ..." with merr's reason.
 */
void cli_inspect_mt_print(const struct het_multitau *mt, int only,
    const struct het_error *merr, const struct inspect_sym *s);

/* cli_inspect_mt_json: the "multitau" object (man hetui(1), INSPECT
   JSON), or NULL when out of memory. */
json_t *cli_inspect_mt_json(const struct het_multitau *mt);

#endif /* HET_CMD_INSPECT_H */
