/*
 * cmd_fit_rings.h: the batches of `hetui fit --all-rings` and `hetui fit
 * --series`, shared between cmd_fit_rings.c and cmd_fit_series.c
 * (running them) and cmd_fit_rings_out.c (the summaries on stdout).
 * Main thread only.
 */
#ifndef HET_CMD_FIT_RINGS_H
#define HET_CMD_FIT_RINGS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_fit.h"
#include "het_fitjob.h"
#include "het_rings.h"

/*
 * How a batch's table and plots are printed, beside its het_rings
 * layout.
 *   head      the header of the leading columns (printf text).
 *   lead      prints row r's leading columns, as wide as head, on out.
 *   unit      the unit of a row ("ring", "file"), for counts.
 *   x_name    what parameters are plotted against ("q", "file index").
 *   x_label   the plot's axis label.
 *   trend     the name of the trend ("power-law slope", "drift per
 *             file").
 */
struct cli_batch_view {
	const char	*head;
	void		(*lead)(const struct het_rings *t, size_t r, FILE *out);
	const char	*unit;
	const char	*x_name;
	const char	*x_label;
	const char	*trend;
};

/*
 * cli_batch_print: the table of the batch t (its leading columns,
 * status, reduced chi-square, each physics parameter's value and
 * uncertainty), then for each free physics parameter a text plot
 * against the layout's x with its trend, on out (stdout, or the
 * summary that --wire sends).
 */
void cli_batch_print(const struct het_rings *t,
    const struct cli_batch_view *v, FILE *out);

/* cli_batch_json_rows / _trends: the rows, and the trend of each
   plotted parameter (its slope under key, the rows used under nkey), as
   JSON (new references). */
json_t *cli_batch_json_rows(const struct het_rings *t);
json_t *cli_batch_json_trends(const struct het_rings *t, const char *key,
    const char *nkey);

/* cli_batch_json_print: print root (stolen) as indented JSON. */
void cli_batch_json_print(json_t *root);

/* cli_batch_status_name: the JSON word of a batch's exit status rc. */
const char *cli_batch_status_name(int cancelled, int rc);

/*
 * cli_batch_vals: the parameters of a fit as a row of a batch: the
 * fitted ones, then the fixed physics ones; the names are borrowed from
 * res, the arrays malloc'd (free v->names, v->value, v->plot).
 * Returns HET_OK or HET_ENOMEM.
 */
int cli_batch_vals(const struct het_fitjob_result *res,
    struct het_rings_vals *v, struct het_error *err);

/* A warm start: values by parameter name (het_fitjob_spec). */
struct cli_batch_start {
	char		**names;
	double		*x;
	size_t		 n;
};

/*
 * cli_batch_fit: the fit of `hetui fit` (options o, cfg) of data_path
 * into dir, a folder of a batch: refused when dir holds another run's
 * results (unless --force), made, fitted from start (NULL: the
 * configuration's values) with the progress of `hetui fit` on stderr.
 * *out is the result whose files were written, or NULL (then err says
 * why and an empty dir is removed).  Returns the fit's status
 * (HET_ECANCEL with *out NULL: cancelled while reading).
 */
int cli_batch_fit(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    const struct het_config *cfg, const char *data_path, const char *dir,
    const struct cli_batch_start *start, const atomic_int *cancel,
    struct het_fitjob_result **out, struct het_error *err);

/*
 * cli_batch_wire_end: the --wire record of member i (0-based) that
 * ended: "done" with its status and reduced chi-square (res), "done"
 * cancelled (err HET_ECANCEL: while reading), or "failed" with err's
 * sentence.
 */
void cli_batch_wire_end(size_t i, const struct het_fitjob_result *res,
    const struct het_error *err);

/*
 * cli_batch_status: the exit status of a batch: CLI_FIT_EXIT_CANCELLED
 * when cancelled, else 1 when a row failed or lost is set, else 3 when
 * a row did not converge, else 0.
 */
int cli_batch_status(const struct het_rings *t, int cancelled, int lost);

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
 * cli_rings_print: the rings' header, cli_batch_print (plots log-log
 * when every value is positive, with the power-law slope, and the slope
 * of the rate D0 q^2), and the files written.
 */
void cli_rings_print(const struct cli_rings *b, FILE *out);

/* cli_rings_print_json: the same as one JSON object; rc is the exit
   status it reports as "status". */
void cli_rings_print_json(const struct cli_rings *b, int rc);

#endif /* HET_CMD_FIT_RINGS_H */
