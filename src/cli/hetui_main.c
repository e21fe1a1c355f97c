/*
 * hetui_main.c: the hetui command: `hetui [FILE]` opens the workstation,
 * `hetui SUBCOMMAND ...` runs one step headless.
 *
 * The subcommand table below is the single list of what hetui can do;
 * `hetui --help` and `hetui help NAME` are generated from it, so they can
 * never disagree with what is actually dispatched.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ui_main.h"

static const struct cli_cmd *const cli_commands[] = {
	&cli_cmd_inspect,
	&cli_cmd_simulate,
	&cli_cmd_config,
	&cli_cmd_fit,
	&cli_cmd_sample,
	&cli_cmd_report,
};
#define CLI_NCOMMANDS (sizeof(cli_commands) / sizeof(cli_commands[0]))

static const char main_usage[] =
    "hetui [-c CONFIG] [--ascii] [--no-color] [FILE]\n"
    "       hetui SUBCOMMAND [OPTIONS] [ARGS]\n"
    "       hetui help SUBCOMMAND | --help | --version";

static const struct cli_cmd *
cli_find(const char *name)
{
	size_t i;

	for (i = 0; i < CLI_NCOMMANDS; i++)
		if (strcmp(cli_commands[i]->name, name) == 0)
			return cli_commands[i];
	return NULL;
}

static void
main_help(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: %s\n\n", main_usage);
	fprintf(fp,
	    "hetui is a workstation for X-ray photon correlation spectroscopy:\n"
	    "two-time correlation c2(t1,t2) viewing, heterodyne and homodyne\n"
	    "model fits, and Consensus Monte Carlo sampling.\n\n"
	    "Without a subcommand, hetui opens the terminal workstation on FILE.\n\n"
	    "Subcommands:\n");
	for (i = 0; i < CLI_NCOMMANDS; i++)
		fprintf(fp, "  %-10s %s\n", cli_commands[i]->name,
		    cli_commands[i]->summary);
	fprintf(fp, "  %-10s %s\n", "help", "show the help of a subcommand");
	fprintf(fp,
	    "\nOptions of the workstation:\n"
	    "  -c, --config FILE  load a heterodyne or homodyne YAML config\n"
	    "      --ascii        draw with ASCII only\n"
	    "      --no-color     monochrome (also when NO_COLOR is set, not empty)\n"
	    "  -h, --help         show this help\n"
	    "  -V, --version      show the version\n"
	    "\nSee hetui(1) for a guided first analysis: man hetui\n");
}

static int
main_help_cmd(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	if (argc < 2) {
		main_help(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2) {
		fprintf(stderr, "hetui help: too many arguments\n"
		    "usage: hetui help SUBCOMMAND\n");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0) {
		printf("usage: hetui help SUBCOMMAND\n\n"
		    "Show the help of SUBCOMMAND.\n");
		return CLI_EXIT_OK;
	}
	cmd = cli_find(argv[1]);
	if (cmd == NULL) {
		fprintf(stderr, "hetui help: unknown subcommand '%s'\n"
		    "Run 'hetui --help' for the list of subcommands.\n",
		    argv[1]);
		return CLI_EXIT_USAGE;
	}
	cli_print_help(cmd, stdout);
	return CLI_EXIT_OK;
}

static int
main_workstation(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "ascii", no_argument, NULL, 'A' },
		{ "no-color", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct ui_options opts;
	int c;

	memset(&opts, 0, sizeof(opts));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			opts.config_path = optarg;
			break;
		case 'A':
			opts.ascii = 1;
			break;
		case 'M':
			opts.no_color = 1;
			break;
		case 'h':
			main_help(stdout);
			return CLI_EXIT_OK;
		case 'V':
			printf("hetui %s\n", PACKAGE_VERSION);
			return CLI_EXIT_OK;
		case ':':
			fprintf(stderr, "hetui: option '%s' needs a value\n"
			    "usage: %s\n", argv[optind - 1], main_usage);
			return CLI_EXIT_USAGE;
		default:
			fprintf(stderr, "hetui: unknown option '%s'\n"
			    "usage: %s\n", argv[optind - 1], main_usage);
			return CLI_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "hetui: '%s' is not a subcommand, and the "
		    "workstation opens one FILE\nusage: %s\n", argv[optind],
		    main_usage);
		return CLI_EXIT_USAGE;
	}
	opts.data_path = optind < argc ? argv[optind] : NULL;
	return ui_main(&opts);
}

int
main(int argc, char **argv)
{
	const struct cli_cmd *cmd;
	struct het_error err;

	het_error_clear(&err);
	if (cli_library_init(&err) != HET_OK) {
		fprintf(stderr, "hetui: error: %s\n", err.msg);
		return CLI_EXIT_ERROR;
	}
	if (argc >= 2 && argv[1][0] != '-') {
		if (strcmp(argv[1], "help") == 0)
			return main_help_cmd(argc - 1, argv + 1);
		cmd = cli_find(argv[1]);
		if (cmd != NULL) {
			optind = 0;	/* GNU getopt: restart for the subcommand */
			return cmd->run(cmd, argc - 1, argv + 1);
		}
		/* A bare word that is no file is a mistyped subcommand. */
		if (strpbrk(argv[1], "./") == NULL &&
		    access(argv[1], F_OK) != 0) {
			fprintf(stderr, "hetui: unknown subcommand '%s'\n"
			    "usage: %s\n", argv[1], main_usage);
			return CLI_EXIT_USAGE;
		}
	}
	return main_workstation(argc, argv);
}
