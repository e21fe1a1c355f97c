/*
 * cli_common.c: what every subcommand shares: usage errors, error and
 * warning lines, and library start-up.
 *
 * Messages go to stderr as "hetui SUBCOMMAND: ..." so a script's log says
 * which step failed.  Library start-up runs once, from main(), before any
 * thread exists: GSL's abort-by-default handler is switched off and HDF5's
 * automatic error printing is silenced (the core turns it off in every
 * thread it uses as well).
 */
#include "config.h"

#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "cli.h"
#include "het_config.h"
#include "het_h5.h"
#include "het_rundir.h"
#include "het_util.h"

int
cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hetui %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n", cmd->usage);
	fprintf(stderr, "Try 'hetui help %s' for more information.\n",
	    cmd->name);
	return CLI_EXIT_USAGE;
}

char *
cli_run_dir(const struct cli_cmd *cmd, const struct het_config *cfg,
    const char *out, const char *data_path, const char *analysis, int force,
    int *made, int *rc)
{
	struct het_error err;
	char *dir;

	het_error_clear(&err);
	*made = 0;
	if (out != NULL) {
		if (het_rundir_check(out, force, &err) != HET_OK) {
			if (err.code == HET_EINVAL)
				fprintf(stderr, "hetui %s: error: %s: give "
				    "--force to replace them, or leave -o out "
				    "for a new run folder\n", cmd->name,
				    err.msg);
			else
				cli_report(cmd, &err);
			*rc = CLI_EXIT_ERROR;
			return NULL;
		}
		if ((dir = het_strdup(out, &err)) == NULL)
			*rc = cli_report(cmd, &err);
		return dir;
	}
	if ((dir = het_rundir_make(cfg, data_path != NULL ? data_path :
	    cfg->data_file, analysis, time(NULL), made, &err)) == NULL)
		*rc = cli_report(cmd, &err);
	return dir;
}

int
cli_report(const struct cli_cmd *cmd, const struct het_error *err)
{
	fprintf(stderr, "hetui %s: error: %s\n", cmd->name,
	    err->msg[0] != '\0' ? err->msg : het_status_str(err->code));
	cli_wire_error(err);	/* --wire: the workstation's message */
	return CLI_EXIT_ERROR;
}

void
cli_warn(const struct cli_cmd *cmd, const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hetui %s: warning: %s\n", cmd->name, text);
	cli_wire_note("warning", "%s", text);
}

void
cli_config_warnings(const struct cli_cmd *cmd, const char *name,
    const struct het_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nwarnings; i++) {
		if (cfg->warnings[i].line > 0)
			cli_warn(cmd, "%s:%d: %s", name, cfg->warnings[i].line,
			    cfg->warnings[i].msg);
		else
			cli_warn(cmd, "%s: %s", name, cfg->warnings[i].msg);
	}
}

int
cli_utf8(void)
{
	const char *cs;

	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	return cs != NULL && strcmp(cs, "UTF-8") == 0;
}

void
cli_print_help(const struct cli_cmd *cmd, FILE *fp)
{
	fprintf(fp, "usage: %s\n\n%s\n", cmd->usage, cmd->summary);
	if (cmd->help != NULL)
		fprintf(fp, "\n%s", cmd->help);
}

int
cli_library_init(struct het_error *err)
{
	gsl_set_error_handler_off();
	return het_h5_library_init(err);
}

int
cli_check_output(const struct cli_cmd *cmd, const char *dir)
{
	struct het_error err;

	het_error_clear(&err);
	if (het_dir_check_writable(dir, "output directory", &err) != HET_OK)
		return cli_report(cmd, &err);
	return CLI_EXIT_OK;
}

void
cli_meta_init(struct cli_meta *m)
{
	memset(m, 0, sizeof *m);
	m->meta.source = "--q/--phi/--dt";
}

int
cli_numbers(const char *list, const char *name, double *v, size_t max,
    size_t *n, struct het_error *err)
{
	char *copy, *tok, *save = NULL;
	int rc = HET_OK;

	*n = 0;
	if ((copy = strdup(list)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok != NULL && rc == HET_OK;
	    tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			rc = het_error_set(err, HET_ERANGE, "%s: more than %zu "
			    "values", name, max);
		else if ((rc = het_parse_double(tok, name, &v[*n], err)) ==
		    HET_OK)
			(*n)++;
	}
	free(copy);
	return rc;
}

int
cli_meta_opt(const struct cli_cmd *cmd, const char *name, const char *arg,
    struct cli_meta *m)
{
	struct het_error err;
	char buf[64];
	size_t n = 0;
	double v;
	int rc;

	snprintf(buf, sizeof buf, "--%s", name);
	if (strcmp(name, "phi") != 0) {
		if (het_parse_double(arg, buf, &v, &err) != HET_OK || !(v > 0))
			return cli_usage_error(cmd, "%s takes a positive "
			    "number, not '%s'", buf, arg);
		*(strcmp(name, "q") == 0 ? &m->meta.q : &m->meta.dt) = v;
		return 0;
	}
	rc = cli_numbers(arg, buf, m->phi, CLI_META_MAX_PHI, &n, &err);
	if (rc == HET_ENOMEM)
		return cli_usage_error(cmd, "out of memory");
	if (rc != HET_OK)
		return cli_usage_error(cmd, "--phi takes angles in degrees "
		    "separated by commas (at most %d), not '%s'",
		    CLI_META_MAX_PHI, arg);
	if (n == 0)
		return cli_usage_error(cmd, "--phi takes at least one angle");
	m->meta.phi = m->phi;
	m->meta.nphi = n;
	return 0;
}
