#include "config.h"

/*
 * cmd_report.c: `hetui report [-c CONFIG] RESULT_DIR [-o OUT]`: the
 * figures of a run folder, or of a batch folder of hetui fit
 * --all-rings or --series, as PNG files or one PDF (src/report).
 *
 * The command parses its options, checks an optional configuration
 * against the run (the same analysis mode; for a batch, that of its
 * fits), calls het_report_write and prints where the figures went.
 * Exit 0, 1 (a folder that is neither a run nor a batch folder, a
 * damaged file or table, an output it may not or cannot write) or 2
 * (usage).
 */

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "het_config.h"
#include "het_params.h"
#include "het_report.h"

static int
report_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *config = NULL, *out = NULL, *dir = NULL;
	struct het_report_out res;
	struct het_config *cfg;
	struct het_error err;
	char mode[32], run_mode[32];
	int c, force = 0, quiet = 0, batch = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:o:qh", longopts, NULL)) != -1)
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			cli_print_help(cmd, stdout);
			return CLI_EXIT_OK;
		case ':':
			return cli_usage_error(cmd, "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option '%s'",
			    argv[optind - 1]);
		}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
		    argv[optind]);
	if (dir == NULL)
		return cli_usage_error(cmd, "a run folder is required "
		    "(RESULT_DIR: what hetui fit or hetui sample wrote, or "
		    "the batch folder of hetui fit --all-rings or --series)");
	if (out != NULL && out[0] == '\0')
		return cli_usage_error(cmd, "-o needs a folder or a name "
		    "ending in .pdf");
	if (config != NULL) {
		if ((cfg = het_config_load(config, &err)) == NULL)
			return cli_report(cmd, &err);
		snprintf(mode, sizeof(mode), "%s", het_mode_name(cfg->mode));
		het_config_free(cfg);
		if (het_report_mode(dir, run_mode, sizeof(run_mode), &batch,
		    &err) != HET_OK)
			return cli_report(cmd, &err);
		if (strcmp(run_mode, mode) != 0) {
			het_error_set(&err, HET_EINVAL, "%s is a %s of "
			    "analysis_mode %s but %s says %s: give the "
			    "configuration of that %s, or leave out -c", dir,
			    batch ? "batch" : "run", run_mode, config, mode,
			    batch ? "batch" : "run");
			return cli_report(cmd, &err);
		}
	}
	if (het_report_write(dir, out, force, &res, &err) != HET_OK)
		return cli_report(cmd, &err);
	if (!quiet)
		printf("%zu figures written to %s%s (%.2f s)\n", res.nfig,
		    res.path, res.pdf ? "" : "/", res.seconds);
	het_report_out_fini(&res);
	return CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_report = {
	"report",
	"figures of a run or batch folder (PNG files or one PDF)",
	"hetui report [-c CONFIG] RESULT_DIR [-o DIR|NAME.pdf] [--force] "
	    "[--quiet]",
	"Draws the figures of a run folder that hetui fit or hetui sample\n"
	"wrote: per angle the data | model | residual heatmaps and the g2\n"
	"cuts at four ages, the parameter table, and for a sampling run the\n"
	"posterior marginals, the corner plot of the strongly correlated\n"
	"pairs, the per-shard R-hat and ESS table and the traces.  For the\n"
	"batch folder of hetui fit --all-rings or --series: every free\n"
	"physics parameter against q (log-log, with its power-law slope) or\n"
	"against the file index (with its drift per file), error bars from\n"
	"rings.csv or series.csv.  The same folder gives byte-identical PNG\n"
	"files.\n"
	"  -c, --config FILE   check that the run (or the batch's fits) has\n"
	"                      FILE's analysis_mode\n"
	"  -o, --output OUT    a folder for the PNG files (default:\n"
	"                      RESULT_DIR/report/), or NAME.pdf: one PDF\n"
	"      --force         replace an existing PDF; write into a folder\n"
	"                      that holds files hetui report did not write\n"
	"  -q, --quiet         print nothing but errors\n",
	report_run
};
