/*
 * cmd_fit.c: `hetui fit`, the headless NLSQ fit: read the selected data
 * of a config, fit jointly (or per angle) on the thread pool, write the
 * results files and print a summary.
 *
 * Flow: config (+ overrides) -> het_fitjob_execute (engine: problem,
 * fit, results files; the code path the workstation's Fit panel runs on
 * its job thread) with hooks that print "reading bin k/n", the problem's
 * warnings and a bar on a terminal or one line per iteration otherwise
 * -> a table (or --json) on stdout.  SIGINT sets the fit's cancel flag:
 * the engine stops at the next iteration with a consistent partial
 * result, which is written and reported like any other, and the command
 * exits 130 (the shell's code for an interrupt); a second SIGINT kills as
 * usual.  SIGTERM and SIGHUP do the same and exit 143 and 129 (repeats
 * and nohup as in cli_cancel.c).
 * Exit statuses: 0 converged, 3 not converged, 130 (143, 129) cancelled,
 * 1 errors, 2 usage errors.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_fit.h"
#include "het_config.h"
#include "het_dataset.h"
#include "het_fit.h"
#include "het_fitjob.h"
#include "het_pool.h"
#include "het_problem.h"
#include "het_results.h"
#include "het_thread.h"
#include "het_util.h"

#define FIT_BAR 24

static atomic_int fit_cancel;

/* A cancelling signal's action (cli_cancel.c). */
static void
fit_sigint(void *arg)
{
	(void)arg;
	atomic_store(&fit_cancel, 1);
}

static int
fit_parse(const struct cli_cmd *cmd, int argc, char **argv,
    struct cli_fit_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "multistart", required_argument, NULL, 'm' },
		{ "per-angle", no_argument, NULL, 'a' },
		{ "all-rings", no_argument, NULL, 'R' },
		{ "series", no_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "dt", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'F' },
		{ "wire", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct het_error err;
	long v;
	int c, rc;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:o:h", longopts, NULL)) != -1) {
		rc = HET_OK;
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'o':
			if (optarg[0] == '\0')
				return cli_usage_error(cmd, "--output is empty; "
				    "name a folder");
			o->out = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 't':
			rc = het_parse_long(optarg, "--threads", 1,
			    HET_POOL_MAX_THREADS, &o->threads, &err);
			break;
		case 'm':
			rc = het_parse_long(optarg, "--multistart", 1, 100000,
			    &o->multistart, &err);
			break;
		case 'a':
			o->per_angle = 1;
			break;
		case 'R':
			o->all_rings = 1;
			break;
		case 'r':
			o->series = 1;
			break;
		case 'F':
			o->force = 1;
			break;
		case 'w':
			o->wire = 1;
			break;
		case 'S':
			rc = het_parse_long(optarg, "--seed", 0, 4294967295L,
			    &v, &err);
			o->seed = (unsigned long)v;
			o->seed_set = 1;
			break;
		case 'd':
			rc = het_parse_double(optarg, "--dt", &o->dt, &err);
			if (rc == HET_OK && o->dt <= 0)
				rc = het_error_set(&err, HET_EINVAL, "--dt: %s "
				    "must be a positive time in seconds",
				    optarg);
			break;
		case 'h':
			cli_print_help(cmd, stdout);
			return -1;
		case ':':
			return cli_usage_error(cmd, "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option '%s'",
			    argv[optind - 1]);
		}
		if (rc != HET_OK)
			return cli_usage_error(cmd, "%s", err.msg);
	}
	if (o->series) {
		o->inputs = argv + optind;
		o->ninputs = (size_t)(argc - optind);
		optind = argc;
	}
	if (optind < argc)
		o->file = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' "
		    "(several files: --series)", argv[optind]);
	if (o->config == NULL)
		return cli_usage_error(cmd, "a config is required (-c CONFIG); "
		    "'hetui config --template MODE' prints one");
	/* Per-angle fits of every ring would be a table of tables; the
	   batch compares one joint fit per ring. */
	if (o->series && o->ninputs == 0)
		return cli_usage_error(cmd, "--series needs the result files "
		    "of the series or their folders");
	/* A series follows one ring's fit through the files. */
	if (o->series && (o->all_rings || o->per_angle))
		return cli_usage_error(cmd, "--series fits the configured ring "
		    "jointly in every file; %s cannot be combined with it",
		    o->all_rings ? "--all-rings" : "--per-angle");
	if (o->wire && (!(o->all_rings || o->series) || o->json))
		return cli_usage_error(cmd, "--wire is the workstation's way "
		    "to run --all-rings or --series%s", o->json ? "; it takes "
		    "the place of --json" : "");
	if (o->all_rings && o->per_angle)
		return cli_usage_error(cmd, "--all-rings fits every ring "
		    "jointly over its angles; --per-angle cannot be combined "
		    "with it (fit one ring per angle without --all-rings)");
	return CLI_EXIT_OK;
}

/* ---- progress ------------------------------------------------------------ */

static void
fit_read_progress(void *arg, size_t k, size_t n, const struct het_bin *bin)
{
	struct cli_fit_run *run = arg;

	cli_wire_event("read", json_pack("{s:I, s:I}", "bin", (json_int_t)k +
	    1, "bins", (json_int_t)n));
	if (run->tty)
		fprintf(stderr, "\rreading bin %zu/%zu (phi %g)   ", k + 1, n,
		    bin->phi);
	else
		fprintf(stderr, "reading bin %zu/%zu\n", k + 1, n);
	if (run->tty && k + 1 == n)
		fputc('\n', stderr);
}

/* The problem is built: its warnings, and the bar's scale. */
static void
fit_built(void *arg, const struct het_problem *pb)
{
	struct cli_fit_run *run = arg;
	size_t k;

	for (k = 0; k < pb->nwarnings; k++)
		cli_warn(run->cmd, "%s", pb->warnings[k]);
	run->max_nfev = run->cfg->nlsq.max_nfev > 0 ? run->cfg->nlsq.max_nfev :
	    100 * (long)pb->p;
}

static void
fit_progress(void *ctx, const struct het_fit_progress *pr)
{
	struct cli_fit_run *run = ctx;
	char who[48] = "";
	double frac;
	int fill;

	if (pr->stage == 1)
		snprintf(who, sizeof(who), "window  ");
	if (pr->angle >= 0)
		snprintf(who + strlen(who), sizeof(who) - strlen(who),
		    "angle %ld  ", pr->angle);
	if (pr->nstarts > 1)
		snprintf(who + strlen(who), sizeof(who) - strlen(who),
		    "start %zu/%zu  ", pr->start + 1, pr->nstarts);
	/* --wire: a few a second are enough for the workstation */
	if (cli_wire_on() && (pr->iter == 0 || het_clock_now() >
	    run->wire_last + 0.2)) {
		run->wire_last = het_clock_now();
		cli_wire_event("iter", json_pack("{s:s, s:I, s:f, s:f}", "who",
		    who, "iter", (json_int_t)pr->iter, "cost", pr->cost,
		    "chi2_red", isfinite(pr->chi2_red) ? pr->chi2_red : -1.0));
	}
	if (!run->tty) {
		fprintf(stderr, "%siter %ld  cost %.3e  chi2_red %.3g  radius "
		    "%.1e  step %.1e\n", who, pr->iter, pr->cost, pr->chi2_red,
		    pr->radius, pr->step_norm);
		return;
	}
	frac = run->max_nfev > 0 ? (double)pr->nfev / (double)run->max_nfev :
	    0;
	fill = (int)(fmin(frac, 1.0) * FIT_BAR);
	fprintf(stderr, "\r[%.*s%*s] %siter %ld  cost %.3e  chi2_red %.3g ",
	    fill, "########################", FIT_BAR - fill, "", who,
	    pr->iter, pr->cost, pr->chi2_red);
}

/* The fit ended: end the bar's line before anything else is printed. */
static void
fit_writing(void *arg, const char *outdir)
{
	struct cli_fit_run *run = arg;

	(void)outdir;
	if (run->tty)
		fputc('\n', stderr);
}

void
cli_fit_setup(const struct cli_fit_opts *o, const struct het_config *cfg,
    const char *outdir, struct cli_fit_run *run, struct het_fitjob_spec *spec,
    struct het_fitjob_hooks *hooks)
{
	memset(spec, 0, sizeof(*spec));
	spec->cfg = cfg;
	spec->data_path = o->file;
	spec->outdir = outdir;
	spec->dt = o->dt;
	spec->per_angle = o->per_angle;
	spec->threads = (size_t)o->threads;
	spec->no_grids = 1;
	memset(hooks, 0, sizeof(*hooks));
	hooks->read = fit_read_progress;
	hooks->built = fit_built;
	hooks->iter = fit_progress;
	hooks->writing = fit_writing;
	hooks->ctx = run;
	het_pool_blas_single_threaded();
}

/* ---- the fit ------------------------------------------------------------- */

static void
fit_print_table(const struct het_problem *pb, const struct het_fit_result *fr)
{
	const struct het_param_def *tab;
	size_t k, n;

	if (fr->angle >= 0)
		printf("\nangle %ld (phi %g):\n", fr->angle,
		    pb->phi[fr->angle]);
	printf("%s (%s): %ld iterations, %ld evaluations, %ld data passes%s, "
	    "%.2f s\n",
	    fr->converged ? "converged" : fr->reason == HET_NLSQ_CANCELLED ?
	    "cancelled" : "not converged", het_nlsq_reason_name(fr->reason),
	    fr->iterations, fr->nfev, fr->npass, fr->nsep > 0 ?
	    " (separable)" : "", fr->wall_time);
	if (fr->window_frames > 0)
		printf("started from a pre-fit of the first %ld frames "
		    "(%ld iterations)\n", fr->window_frames,
		    fr->window_iterations);
	printf("cost %.6e  chi2_red %.4g  (noise sigma %.4g, dof %ld)\n\n",
	    fr->cost, fr->chi2_red, fr->sigma, fr->dof);
	printf("%-18s %14s   %-11s %-16s %-22s %s\n", "parameter", "value",
	    "uncertainty", "unit", "bounds", "flags");
	for (k = 0; k < fr->p; k++) {
		char b[64];

		snprintf(b, sizeof(b), "[%g, %g]", fr->lo[k], fr->hi[k]);
		/* No finite uncertainty (degenerate, no effect): a dash. */
		if (isfinite(fr->unc[k]))
			printf("%-18s %14.6g ± %-11.3g %-16s %-22s %s\n",
			    fr->names[k], fr->x[k], fr->unc[k],
			    het_fitjob_unit(pb, fr->names[k]), b,
			    het_fitjob_flag(fr, k));
		else
			printf("%-18s %14.6g   \u2014%10s %-16s %-22s %s\n",
			    fr->names[k], fr->x[k], "",
			    het_fitjob_unit(pb, fr->names[k]), b,
			    het_fitjob_flag(fr, k));
	}
	for (k = 0; k < fr->ncombos; k++)
		printf("%s%s = %.6g ± %.3g\n", k == 0 ? "\nidentifiable "
		    "combinations of the degenerate parameters:\n" : "",
		    fr->combos[k].expr, fr->combos[k].value,
		    fr->combos[k].unc);
	tab = het_params_table(het_mode_family(pb->spec.mode), &n);
	for (k = 0; k < pb->nphys; k++)
		if (!pb->phys_free[k])
			printf("%-18s %14.6g   %-11s %-16s %-22s %s\n",
			    tab[k].name, pb->theta[k], "", tab[k].ascii_unit,
			    "", "fixed");
}

static json_t *
fit_json_one(const struct het_problem *pb, const struct het_fit_result *fr)
{
	json_t *o = json_object(), *par = json_object(), *unc = json_object(),
	    *fix = json_object(), *w = json_array(), *deg = json_array(),
	    *comb = json_array();
	const struct het_param_def *tab;
	size_t k, n;

	for (k = 0; k < fr->p; k++) {
		json_object_set_new(par, fr->names[k], json_real(fr->x[k]));
		json_object_set_new(unc, fr->names[k], isfinite(fr->unc[k]) ?
		    json_real(fr->unc[k]) : json_null());
	}
	tab = het_params_table(het_mode_family(pb->spec.mode), &n);
	for (k = 0; k < pb->nphys; k++)
		if (!pb->phys_free[k])
			json_object_set_new(fix, tab[k].name,
			    json_real(pb->theta[k]));
	for (k = 0; k < fr->nwarnings; k++)
		json_array_append_new(w, json_string(fr->warnings[k]));
	for (k = 0; k < fr->p; k++)
		if (fr->degen != NULL && fr->degen[k])
			json_array_append_new(deg, json_string(fr->names[k]));
	for (k = 0; k < fr->ncombos; k++)
		json_array_append_new(comb, json_pack("{s:s, s:f, s:f}",
		    "expression", fr->combos[k].expr, "value",
		    fr->combos[k].value, "uncertainty", fr->combos[k].unc));
	if (fr->angle >= 0) {
		json_object_set_new(o, "angle", json_integer(fr->angle));
		json_object_set_new(o, "phi", json_real(pb->phi[fr->angle]));
	}
	json_object_set_new(o, "converged", json_boolean(fr->converged));
	json_object_set_new(o, "parameters", par);
	json_object_set_new(o, "uncertainties", unc);
	json_object_set_new(o, "uncertainties_computed",
	    json_boolean(!fr->brief));
	json_object_set_new(o, "degenerate", deg);
	json_object_set_new(o, "combinations", comb);
	json_object_set_new(o, "fixed", fix);
	json_object_set_new(o, "cost", json_real(fr->cost));
	json_object_set_new(o, "chi2_red", isfinite(fr->chi2_red) ?
	    json_real(fr->chi2_red) : json_null());
	json_object_set_new(o, "noise_sigma", json_real(fr->sigma));
	json_object_set_new(o, "dof", json_integer(fr->dof));
	json_object_set_new(o, "iterations", json_integer(fr->iterations));
	json_object_set_new(o, "evaluations", json_integer(fr->nfev));
	json_object_set_new(o, "jacobian_evaluations",
	    json_integer(fr->njev));
	json_object_set_new(o, "passes", json_integer(fr->npass));
	json_object_set_new(o, "separable_passes", json_integer(fr->nsep));
	json_object_set_new(o, "window_frames",
	    json_integer(fr->window_frames));
	json_object_set_new(o, "window_iterations",
	    json_integer(fr->window_iterations));
	json_object_set_new(o, "wall_time", json_real(fr->wall_time));
	json_object_set_new(o, "convergence_reason",
	    json_string(het_nlsq_reason_name(fr->reason)));
	json_object_set_new(o, "message", json_string(fr->message));
	json_object_set_new(o, "starts", json_integer((json_int_t)
	    fr->nstarts));
	json_object_set_new(o, "best_start", json_integer((json_int_t)
	    fr->best));
	json_object_set_new(o, "warnings", w);
	return o;
}

static void
fit_print_json(const struct het_problem *pb, struct het_fit_result **fr,
    size_t nfr, int per_angle, const char *status, double wall,
    const char *outdir, char **warn, size_t nwarn)
{
	json_t *root = json_object(), *fits, *w = json_array(), *one;
	size_t k;
	char *text;

	json_object_set_new(root, "status", json_string(status));
	json_object_set_new(root, "fit", json_string(per_angle ? "per_angle" :
	    "joint"));
	json_object_set_new(root, "analysis_mode",
	    json_string(het_mode_name(pb->spec.mode)));
	json_object_set_new(root, "per_angle_mode",
	    json_string(het_scaling_mode_name(pb->scaling_mode)));
	json_object_set_new(root, "n_angles", json_integer((json_int_t)
	    pb->nangles));
	json_object_set_new(root, "n_data", json_integer((json_int_t)
	    pb->npairs));
	json_object_set_new(root, "wall_time", json_real(wall));
	json_object_set_new(root, "output_dir", json_string(outdir));
	for (k = 0; k < nwarn; k++)
		json_array_append_new(w, json_string(warn[k]));
	if (!per_angle) {
		one = fit_json_one(pb, fr[0]);
		/* the solver's time beside the command's, not over it */
		json_object_set(one, "fit_wall_time", json_object_get(one,
		    "wall_time"));
		json_object_del(one, "wall_time");
		json_object_update(root, one);
		json_decref(one);
		json_array_extend(w, json_object_get(root, "warnings"));
		json_object_set(root, "warnings", w);
	} else {
		fits = json_array();
		for (k = 0; k < nfr; k++)
			if (fr[k] != NULL)
				json_array_append_new(fits,
				    fit_json_one(pb, fr[k]));
		json_object_set_new(root, "fits", fits);
		json_object_set(root, "warnings", w);
	}
	json_decref(w);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17));
	if (text != NULL)
		printf("%s\n", text);
	free(text);
	json_decref(root);
}

/* The fit itself, its table or JSON, into outdir. */
static int
fit_job(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    struct het_config *cfg, struct cli_fit_run *runp, const char *outdir,
    double t0)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_hooks hooks;
	struct het_fitjob_result *res = NULL;
	struct het_fit_result **fr;
	const struct het_problem *pb;
	struct het_error err;
	size_t nfr, k, w;
	int rc, st;

	het_error_clear(&err);
	cli_fit_setup(o, cfg, outdir, runp, &spec, &hooks);
	st = het_fitjob_execute(&spec, &hooks, &fit_cancel, &res, &err);
	if (res == NULL) {
		if (st == HET_ECANCEL) {
			fprintf(stderr, "hetui %s: cancelled while reading; "
			    "nothing was fitted or written\n", cmd->name);
			return CLI_FIT_EXIT_CANCELLED;
		}
		if (runp->tty)
			fputc('\n', stderr);
		return cli_report(cmd, &err);
	}
	if (!res->written) {
		rc = cli_report(cmd, &res->write_err);
		het_fitjob_result_free(res);
		return rc;
	}
	pb = res->pb;
	fr = res->fits;
	nfr = res->nfits;
	if (o->json)
		fit_print_json(pb, fr, nfr, o->per_angle, res->status_name,
		    het_clock_now() - t0, outdir, pb->warnings, pb->nwarnings);
	else {
		printf("hetui fit: %s, %zu angle%s, q %.6g 1/A, frames "
		    "%ld..%ld, %zu pairs, %s scaling\n",
		    het_mode_name(pb->spec.mode), pb->nangles,
		    pb->nangles == 1 ? "" : "s", pb->q, pb->first_frame,
		    pb->last_frame, pb->npairs,
		    het_scaling_mode_name(pb->scaling_mode));
		for (k = 0; k < nfr; k++)
			if (fr[k] != NULL)
				fit_print_table(pb, fr[k]);
		printf("\nresults written to %s/ (%s, nlsq_*.json)\n", outdir,
		    HET_RESULTS_H5);
	}
	for (k = 0; k < nfr; k++)
		for (w = 0; fr[k] != NULL && !o->json &&
		    w < fr[k]->nwarnings; w++)
			cli_warn(cmd, "%s", fr[k]->warnings[w]);
	if (res->hist_incomplete)
		cli_warn(cmd, "out of memory: the iteration history in %s/%s "
		    "is incomplete", outdir, HET_RESULTS_H5);
	if (st == HET_ECANCEL) {
		fprintf(stderr, "hetui %s: cancelled; the partial result was "
		    "written to %s/\n", cmd->name, outdir);
		rc = CLI_FIT_EXIT_CANCELLED;
	} else
		rc = res->converged ? CLI_EXIT_OK : CLI_EXIT_NOT_CONVERGED;
	het_fitjob_result_free(res);
	return rc;
}

static int
fit_run(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    struct het_config *cfg)
{
	struct cli_fit_run run;
	double t0 = het_clock_now();
	char *outdir;
	int rc, made;

	memset(&run, 0, sizeof(run));
	run.cmd = cmd;
	run.cfg = cfg;
	run.tty = isatty(STDERR_FILENO);
	if ((outdir = cli_run_dir(cmd, cfg, o->out, o->file, "fit", o->force,
	    &made, &rc)) == NULL)
		return rc;
	if ((rc = cli_check_output(cmd, outdir)) != CLI_EXIT_OK) {
		if (made)
			rmdir(outdir);
		free(outdir);
		return rc;
	}
	rc = fit_job(cmd, o, cfg, &run, outdir, t0);
	/* A run that wrote nothing leaves no empty folder behind. */
	if (made)
		rmdir(outdir);
	free(outdir);
	return rc;
}

static int
fit_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct het_config *cfg;
	struct het_error err;
	struct cli_fit_opts o;
	int rc, sig;

	rc = fit_parse(cmd, argc, argv, &o);
	if (rc != CLI_EXIT_OK)
		return rc < 0 ? CLI_EXIT_OK : rc;
	het_error_clear(&err);
	atomic_store(&fit_cancel, 0);
	/* --wire: from here on every error reaches the workstation */
	if (o.wire && cli_wire_begin(&fit_cancel, &err) != HET_OK)
		return cli_report(cmd, &err);
	if ((cfg = het_config_load(o.config, &err)) == NULL)
		return cli_report(cmd, &err);
	cli_config_warnings(cmd, o.config, cfg);
	if (o.multistart > 0) {
		cfg->nlsq.multistart = o.multistart > 1;
		cfg->nlsq.multistart_n = o.multistart;
	}
	if (o.seed_set)
		cfg->nlsq.seed = o.seed;
	cli_cancel_begin(fit_sigint, NULL);
	rc = o.series ? cli_fit_series(cmd, &o, cfg, &fit_cancel) :
	    o.all_rings ? cli_fit_rings(cmd, &o, cfg, &fit_cancel) :
	    fit_run(cmd, &o, cfg);
	sig = cli_cancel_end();
	het_config_free(cfg);
	return rc == CLI_FIT_EXIT_CANCELLED ? cli_cancel_status(sig, rc) : rc;
}

const struct cli_cmd cli_cmd_fit = {
	"fit",
	"fit the configured model to a result file (NLSQ)",
	"hetui fit -c CONFIG [FILE | --series FILE_OR_FOLDER...] [-o DIR "
	    "[--force]] [--json] [--threads N] [--multistart N] [--per-angle | "
	    "--all-rings] [--seed N] [--dt S]",
	"Reads the q ring, angles and frame window that CONFIG selects from\n"
	"FILE (default: experimental_data.file_path), fits the model to the\n"
	"upper-triangle pairs of every selected angle jointly with a bounded\n"
	"trust-region solver, and writes hetui_results.h5,\n"
	"nlsq_parameters.json and nlsq_metadata.json into a new\n"
	"run folder: OUTPUT_DIR/<file stem>/fit-<UTC time>/ (config:\n"
	"output.output_dir, create_subdirs, timestamp_dirs).  Progress goes\n"
	"to stderr, a summary table to stdout.\n"
	"  -c, --config FILE   the analysis configuration (required)\n"
	"  -o, --output DIR    write into DIR itself instead of a run folder\n"
	"      --force         let -o DIR replace the results of another run\n"
	"      --json          print a machine-readable summary instead\n"
	"      --threads N     threads of the pool (default: one per core);\n"
	"                      results are identical for every N\n"
	"      --multistart N  N starts: the configured one and N-1 from a\n"
	"                      Latin hypercube in the bounds\n"
	"      --per-angle     fit every angle on its own (as the reference\n"
	"                      packages do) instead of jointly\n"
	"      --all-rings     fit every q ring of FILE the same way, each\n"
	"                      into its own folder of one batch folder\n"
	"                      (OUTPUT_DIR/<file stem>/rings-<UTC time>/, or\n"
	"                      DIR), and summarise: rings.csv, rings.h5, a\n"
	"                      table and each parameter against q with its\n"
	"                      power-law slope\n"
	"      --series        fit every result file named (folders: their\n"
	"                      result files) in the order of their\n"
	"                      modification times, each from the last\n"
	"                      converged result, into one batch folder\n"
	"                      (OUTPUT_DIR/series-<UTC time>/, or DIR), and\n"
	"                      summarise: series.csv, series.h5, a table and\n"
	"                      each parameter against the file index with\n"
	"                      its drift per file\n"
	"      --wire          with --all-rings or --series: report to the\n"
	"                      workstation that runs the batch, in wire\n"
	"                      records on stdout; EOF on stdin cancels\n"
	"      --seed N        multistart seed (config: nlsq.seed, 42)\n"
	"      --dt S          frame time in seconds (overrides config, file)\n"
	"Exit status: 0 converged, 3 not converged (max_nfev or\n"
	"max_iterations reached), 130 cancelled by SIGINT (143 SIGTERM, 129\n"
	"SIGHUP; the partial result is written), 1 error, 2 usage error.\n"
	"With --all-rings (--series) the worst over the rings (files): 130\n"
	"(143, 129) cancelled (the finished ones are kept and summarised),\n"
	"else 1 when one failed, else 3 when one did not converge, else 0.\n",
	fit_main
};
