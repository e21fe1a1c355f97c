/*
 * cmd_config.c: `hetui config`: print a commented configuration template
 * for an analysis mode, or check a configuration file.
 *
 * The core does the work (het_config_default + het_config_format for the
 * template, het_config_load for the check); this file parses options,
 * prints the template to stdout, the warnings and errors to stderr as
 * "hetui config: warning: FILE:LINE: ..." and a one-line verdict to
 * stdout, and maps the outcome onto the exit statuses of cli.h.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "het_config.h"

#define STDIN_NAME	"<stdin>"

static char *
config_read_stdin(size_t *len, struct het_error *err)
{
	size_t cap = 0, n;
	char *buf = NULL, *nb;

	*len = 0;
	for (;;) {
		if (*len + 4096 >= cap) {
			cap = cap * 2 + 8192;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				het_error_set(err, HET_ENOMEM, "out of memory "
				    "reading standard input");
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + *len, 1, cap - *len - 1, stdin);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(stdin)) {
		free(buf);
		het_error_set(err, HET_EIO, "cannot read standard input");
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

static int
config_template(const struct cli_cmd *self, const char *name)
{
	struct het_config *cfg;
	struct het_error err;
	enum het_mode mode;
	char *text;

	het_error_clear(&err);
	if (het_mode_parse(name, &mode, &err) != HET_OK)
		return cli_usage_error(self, "%s", err.msg);
	if ((cfg = het_config_default(mode, &err)) == NULL)
		return cli_report(self, &err);
	text = het_config_format(cfg, HET_CONFIG_COMMENTS, &err);
	het_config_free(cfg);
	if (text == NULL)
		return cli_report(self, &err);
	fputs(text, stdout);
	free(text);
	if (fflush(stdout) != 0) {
		het_error_set(&err, HET_EIO, "cannot write the template to "
		    "standard output");
		return cli_report(self, &err);
	}
	return CLI_EXIT_OK;
}

/* --check -v: every unused key on its own line, to standard output. */
static void
config_unused(const char *name, const struct het_config *cfg)
{
	size_t i;

	if (cfg->nunused == 0)
		return;
	printf("%s: %zu key%s not used by hetui:\n", name, cfg->nunused,
	    cfg->nunused == 1 ? "" : "s");
	for (i = 0; i < cfg->nunused; i++)
		printf("  %s:%d: %s\n", name, cfg->unused[i].line,
		    cfg->unused[i].msg);
}

static int
config_check(const struct cli_cmd *self, const char *path, int verbose)
{
	struct het_config *cfg;
	struct het_error err;
	const char *name;
	char *text;
	size_t len;

	het_error_clear(&err);
	if (strcmp(path, "-") == 0) {
		name = STDIN_NAME;
		if ((text = config_read_stdin(&len, &err)) == NULL)
			return cli_report(self, &err);
		cfg = het_config_load_string(text, len, name, &err);
		free(text);
	} else {
		name = path;
		cfg = het_config_load(path, &err);
	}
	if (cfg == NULL)
		return cli_report(self, &err);
	cli_config_warnings(self, name, cfg);
	if (verbose)
		config_unused(name, cfg);
	printf("%s: valid %s configuration; %s; %zu warning%s\n", name,
	    cfg->family == HET_FAMILY_HETERODYNE ? "heterodyne" : "homodyne",
	    cfg->mode_note, cfg->nwarnings, cfg->nwarnings == 1 ? "" : "s");
	het_config_free(cfg);
	return CLI_EXIT_OK;
}

static int
config_run(const struct cli_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "template", required_argument, NULL, 't' },
		{ "check", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *tmpl = NULL, *check = NULL;
	int c, verbose = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 't':
			tmpl = optarg;
			break;
		case 'c':
			check = optarg;
			break;
		case 'h':
			cli_print_help(self, stdout);
			return CLI_EXIT_OK;
		case ':':
			return cli_usage_error(self, "option '%s' needs a "
			    "value", argv[optind - 1]);
		default:
			return cli_usage_error(self, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(self, "unexpected argument '%s'",
		    argv[optind]);
	if ((tmpl == NULL) == (check == NULL))
		return cli_usage_error(self, "give exactly one of --template "
		    "MODE and --check FILE");
	if (verbose && check == NULL)
		return cli_usage_error(self, "-v goes with --check FILE");
	if (tmpl != NULL)
		return config_template(self, tmpl);
	return config_check(self, check, verbose);
}

const struct cli_cmd cli_cmd_config = {
	"config",
	"print a configuration template or check a configuration",
	"hetui config --template MODE | --check FILE [-v]",
	"Options:\n"
	"  --template MODE  print a commented configuration with every\n"
	"                   key hetui reads, at its default, for MODE:\n"
	"                   static_ref, static_both, two_component\n"
	"                   (heterodyne) or static, laminar_flow (homodyne)\n"
	"  --check FILE     read and validate FILE ('-' for standard input);\n"
	"                   warnings for keys hetui does not use go to stderr,\n"
	"                   one per top-level section\n"
	"  -v, --verbose    with --check: list every unused key with its\n"
	"                   line on standard output\n"
	"  -h, --help       show this help\n"
	"\n"
	"Exit status: 0 valid (warnings allowed), 1 invalid configuration,\n"
	"2 usage error.\n",
	config_run
};
