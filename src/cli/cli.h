/*
 * cli.h: the hetui command line: a table of subcommands (tmux's cmd_entry)
 * and the helpers they share for usage errors and error printing.
 *
 * Each subcommand lives in src/cli/cmd_NAME.c and exports one
 * `const struct cli_cmd`.  The CLI is a front end: it parses options,
 * calls the core, and is the only place besides the TUI that prints.
 */
#ifndef HET_CLI_H
#define HET_CLI_H

#include <stdatomic.h>
#include <stdio.h>

#include <jansson.h>

#include "het_dataset.h"
#include "het_error.h"

/* Exit statuses of every hetui command (documented in man/hetui.1). */
enum cli_exit {
	CLI_EXIT_OK = 0,		/* success */
	CLI_EXIT_ERROR = 1,		/* bad file, config or data; I/O error */
	CLI_EXIT_USAGE = 2,		/* bad command line */
	CLI_EXIT_NOT_CONVERGED = 3,	/* a fit stopped without converging */
	CLI_EXIT_GATES_FAILED = 4,	/* sampling finished but failed gates */
	CLI_EXIT_SHARDS_FAILED = 5	/* too many sampling shards failed */
};

struct cli_cmd {
	const char *name;	/* "inspect" */
	const char *summary;	/* one line for `hetui --help` */
	const char *usage;	/* "hetui inspect FILE [--json]" */
	const char *help;	/* the text of `hetui help NAME` */
	/* Runs the command; argv[0] is the subcommand name. Returns an exit status. */
	int (*run)(const struct cli_cmd *self, int argc, char **argv);
};

extern const struct cli_cmd cli_cmd_inspect;
extern const struct cli_cmd cli_cmd_simulate;
extern const struct cli_cmd cli_cmd_config;
extern const struct cli_cmd cli_cmd_fit;
extern const struct cli_cmd cli_cmd_sample;
extern const struct cli_cmd cli_cmd_report;

/*
 * cli_usage_error: print "hetui NAME: MESSAGE" and the usage line to
 * stderr; returns CLI_EXIT_USAGE.
 */
int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * cli_report: print "hetui NAME: error: MESSAGE" to stderr for an error
 * record; returns CLI_EXIT_ERROR.
 */
int cli_report(const struct cli_cmd *cmd, const struct het_error *err);

/* cli_warn: print "hetui NAME: warning: MESSAGE" to stderr. */
void cli_warn(const struct cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * cli_config_warnings: each warning of the configuration reader as
 * "NAME:LINE: message" ("NAME: message" when it has no line).
 */
struct het_config;
void cli_config_warnings(const struct cli_cmd *cmd, const char *name,
    const struct het_config *cfg);

/*
 * cli_check_output: before any work, whether results can be written to
 * the output folder dir (het_dir_check_writable).  Returns CLI_EXIT_OK,
 * or reports the error and returns its exit status.
 */
int cli_check_output(const struct cli_cmd *cmd, const char *dir);

/*
 * cli_utf8: 1 when the locale's character set (LC_CTYPE from the
 * environment, set here) is UTF-8, so human output may use symbols such
 * as Å⁻¹ and block characters; 0 for ASCII.
 */
int cli_utf8(void);

/* cli_print_help: the full help of one subcommand on fp. */
void cli_print_help(const struct cli_cmd *cmd, FILE *fp);

/*
 * Cancelling signals (cli_cancel.c) of the long subcommands: between
 * cli_cancel_begin and cli_cancel_end, SIGINT, SIGTERM and SIGHUP call
 * fn(arg) from a signal handler (fn must be async-signal-safe); repeats
 * of SIGTERM and SIGHUP only cancel again, a SIGINT after any of them
 * kills, a SIGHUP ignored on entry (nohup) stays ignored.
 * cli_cancel_end restores the previous actions (after a cancel SIGTERM and
 * SIGHUP stay ignored, so a late repeat cannot kill the run before it
 * reports what it wrote) and returns the first signal caught (0: none).
 * cli_cancel_status: the exit status of a run
 * cancelled by sig, 128 + sig, or status when sig is 0.
 * Thread: the main thread; one subcommand at a time.
 */
typedef void (*cli_cancel_fn)(void *arg);
void cli_cancel_begin(cli_cancel_fn fn, void *arg);
int cli_cancel_end(void);
int cli_cancel_status(int sig, int status);

/*
 * --wire (cli_wire.c): a batch of `hetui fit` tells the workstation
 * that started it what it does, in wire records on stdout.
 * cli_wire_begin: take stdout for the records (stdout then goes to
 *   stderr), send the hello, and set *cancel when stdin reaches its end.
 *   Returns HET_OK or the error (HET_EIO, HET_EINTERNAL).
 * cli_wire_on: 1 between cli_wire_begin and the exit.
 * cli_wire_send: one record of type (enum het_wire_type), payload
 *   stolen; cli_wire_event: a progress record {"kind": kind, fields...}
 *   (fields stolen); cli_wire_note: a progress record of kind "note"
 *   with a level ("warning", "error") and a sentence; cli_wire_error: an
 *   error record of err (shard -1); cli_wire_summary: the result record:
 *   status, exit status rc, the batch folder (NULL: none), the members
 *   fitted of n, and what print(arg, out) prints as "summary".
 * Each is a no-op outside wire mode.  Thread: any (one mutex).
 * cli_wire_num: v as JSON, null when it is not finite (new reference).
 */
int cli_wire_begin(atomic_int *cancel, struct het_error *err);
int cli_wire_on(void);
json_t *cli_wire_num(double v);
void cli_wire_send(int type, json_t *payload);
void cli_wire_event(const char *kind, json_t *fields);
void cli_wire_note(const char *level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cli_wire_error(const struct het_error *err);
void cli_wire_summary(const char *status, int rc, const char *batch,
    size_t nfit, size_t n, void (*print)(const void *, FILE *),
    const void *arg);

/*
 * cli_run_dir: the results folder of a fit or sampling run.  With out
 * (-o DIR) that folder exactly, refused (message naming --force) when it
 * holds another run's results and force is 0; without, a new run folder
 * made by het_rundir_make for analysis ("fit", "sample") of data_path
 * (NULL: the config's data file).  *made is 1 when the folder was
 * created here (remove it with rmdir if nothing was written).  Returns
 * the path (malloc'd) or NULL after printing the error; *rc is then the
 * exit status.
 */
char *cli_run_dir(const struct cli_cmd *cmd, const struct het_config *cfg,
    const char *out, const char *data_path, const char *analysis, int force,
    int *made, int *rc);

/*
 * The metadata options of a NumPy .npy file (het_dataset_meta): --q Q,
 * --phi A[,B...] (one angle per matrix) and --dt DT.  cli_meta_init
 * empties m; cli_meta_opt parses the value arg of option name ("q",
 * "phi" or "dt") into m.  Returns 0, or prints the error as a usage
 * error of cmd and returns its exit status.
 */
#define CLI_META_MAX_PHI	1024
struct cli_meta {
	struct het_dataset_meta	 meta;
	double			 phi[CLI_META_MAX_PHI];
};
void cli_meta_init(struct cli_meta *m);
/*
 * cli_numbers: the comma-separated numbers of list (option name) into v,
 * at most max, their count in *n.  Returns HET_OK, or HET_EINVAL (an item
 * that is not a number, as het_parse_double words it), HET_ERANGE (more
 * than max) or HET_ENOMEM, with err set; prints nothing.
 */
int cli_numbers(const char *list, const char *name, double *v, size_t max,
    size_t *n, struct het_error *err);
int cli_meta_opt(const struct cli_cmd *cmd, const char *name,
    const char *arg, struct cli_meta *m);

/* cli_library_init: quiet GSL and HDF5, register the LZF filter. */
int cli_library_init(struct het_error *err);

#endif /* HET_CLI_H */
