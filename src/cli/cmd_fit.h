/*
 * cmd_fit.h: the parts of `hetui fit` shared between cmd_fit.c (the
 * command, one fit), cmd_fit_rings.c (--all-rings: the same fit for
 * every q ring of the file, and the batch summary) and cmd_fit_series.c
 * (--series: the same fit for every file of a series).  Main thread
 * only.
 */
#ifndef HET_CMD_FIT_H
#define HET_CMD_FIT_H

#include <stdatomic.h>

#include "cli.h"
#include "het_config.h"
#include "het_fitjob.h"

/* Exit status of a cancelled fit (before cli_cancel_status). */
#define CLI_FIT_EXIT_CANCELLED 130

/* The options of `hetui fit`. */
struct cli_fit_opts {
	const char	*config;
	const char	*file;
	const char	*out;
	int		 json;
	long		 threads;	/* 0: one per core */
	long		 multistart;	/* 0: the config's */
	int		 per_angle;
	int		 all_rings;	/* --all-rings */
	int		 series;	/* --series */
	char		**inputs;	/* --series: the files and folders */
	size_t		 ninputs;
	int		 force;		/* --force: -o DIR may hold results */
	int		 wire;		/* --wire: records for the workstation
					   (cli_wire.c) */
	int		 seed_set;
	unsigned long	 seed;
	double		 dt;
};

/* What the progress hooks see (the iteration hook runs under het_fit's
   mutex). */
struct cli_fit_run {
	const struct cli_cmd	*cmd;
	const struct het_config	*cfg;
	int			 tty;
	long			 max_nfev;
	double			 wire_last;	/* clock of the last --wire
						   iteration record */
};

/*
 * cli_fit_setup: the fit job of the options o with cfg into outdir, with
 * the hooks that print progress on stderr (reading, the problem's
 * warnings, a bar on a terminal or a line per iteration).  run is the
 * hooks' context (cmd and cfg set by the caller); spec and hooks are
 * filled (borrowing o, cfg, outdir and run).
 */
void cli_fit_setup(const struct cli_fit_opts *o, const struct het_config *cfg,
    const char *outdir, struct cli_fit_run *run, struct het_fitjob_spec *spec,
    struct het_fitjob_hooks *hooks);

/*
 * cli_fit_rings: `hetui fit --all-rings`: the fit of cfg for every q ring
 * of the data file, each into its own folder of one batch folder, then
 * rings.csv, rings.h5 and the summary (table and plots, or --json) on
 * stdout.  cancel is the flag the signal handler sets.  Returns the exit
 * status: 0 every ring converged, 3 a ring did not converge, 1 a ring
 * failed (or the summary could not be written), CLI_FIT_EXIT_CANCELLED.
 */
int cli_fit_rings(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    struct het_config *cfg, const atomic_int *cancel);

/*
 * cli_fit_series: `hetui fit --series`: the fit of cfg for every result
 * file of o->inputs (files, and folders' result files) in the order of
 * their modification times, each from the last converged result, into
 * its own folder of one batch folder; then series.csv, series.h5 and the
 * summary (table, plots with the drift per file, or --json) on stdout.
 * Returns the exit status as cli_fit_rings, over the files; 1 too when
 * the inputs are refused (nothing is made then).
 */
int cli_fit_series(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    const struct het_config *cfg, const atomic_int *cancel);

#endif /* HET_CMD_FIT_H */
