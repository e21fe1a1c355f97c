/*
 * cmd_fit.c: `hetui fit`, the headless NLSQ fit: read the selected data
 * of a config, fit jointly (or per angle) on the thread pool, write the
 * results files and print a summary.
 *
 * Flow: config (+ overrides) -> het_problem_build (progress "reading bin
 * k/n") -> het_fit_run / het_fit_run_per_angle with a progress callback
 * that records the iteration history and draws a bar on a terminal or
 * prints one line per iteration otherwise -> het_results_write -> a table
 * (or --json) on stdout.  SIGINT sets the fit's cancel flag: the engine
 * stops at the next iteration with a consistent partial result, which is
 * written and reported like any other, and the command exits 130 (the
 * shell's code for an interrupt); a second SIGINT kills as usual.
 * Exit statuses: 0 converged, 3 not converged, 130 cancelled, 1 errors,
 * 2 usage errors.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "het_config.h"
#include "het_dataset.h"
#include "het_fit.h"
#include "het_pool.h"
#include "het_problem.h"
#include "het_results.h"
#include "het_util.h"

#define FIT_EXIT_CANCELLED 130
#define FIT_BAR 24

struct fit_opts {
	const char	*config;
	const char	*file;
	const char	*out;
	int		 json;
	long		 threads;	/* 0: one per core */
	long		 multistart;	/* 0: the config's */
	int		 per_angle;
	int		 seed_set;
	unsigned long	 seed;
	double		 dt;
};

/* What the progress callback sees (called under het_fit's mutex). */
struct fit_run {
	const struct cli_cmd	*cmd;
	int			 tty;
	long			 max_nfev;
	struct het_results_iter	*hist;
	size_t			 nhist, cap;
	int			 oom;
};

static atomic_int fit_cancel;

static void
fit_sigint(int sig)
{
	(void)sig;
	atomic_store(&fit_cancel, 1);
}

static int
fit_parse(const struct cli_cmd *cmd, int argc, char **argv,
    struct fit_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "multistart", required_argument, NULL, 'm' },
		{ "per-angle", no_argument, NULL, 'a' },
		{ "seed", required_argument, NULL, 'S' },
		{ "dt", required_argument, NULL, 'd' },
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
	if (optind < argc)
		o->file = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
		    argv[optind]);
	if (o->config == NULL)
		return cli_usage_error(cmd, "a config is required (-c CONFIG); "
		    "'hetui config --template MODE' prints one");
	return CLI_EXIT_OK;
}

/* ---- progress ------------------------------------------------------------ */

static int
fit_read_progress(void *arg, size_t k, size_t n, const struct het_bin *bin)
{
	struct fit_run *run = arg;

	if (run->tty)
		fprintf(stderr, "\rreading bin %zu/%zu (phi %g)   ", k + 1, n,
		    bin->phi);
	else
		fprintf(stderr, "reading bin %zu/%zu\n", k + 1, n);
	if (run->tty && k + 1 == n)
		fputc('\n', stderr);
	return atomic_load(&fit_cancel);
}

static void
fit_progress(void *ctx, const struct het_fit_progress *pr)
{
	struct fit_run *run = ctx;
	struct het_results_iter *h;
	char who[48] = "";
	double frac;
	int fill;

	if (run->nhist == run->cap && !run->oom) {
		size_t cap = run->cap ? 2 * run->cap : 64;

		h = realloc(run->hist, cap * sizeof(*h));
		if (h == NULL)
			run->oom = 1;
		else {
			run->hist = h;
			run->cap = cap;
		}
	}
	if (run->nhist < run->cap) {
		h = &run->hist[run->nhist++];
		h->angle = pr->angle;
		h->start = (long)pr->start;
		h->iter = pr->iter;
		h->nfev = pr->nfev;
		h->cost = pr->cost;
		h->chi2_red = pr->chi2_red;
		h->radius = pr->radius;
		h->step_norm = pr->step_norm;
	}
	if (pr->angle >= 0)
		snprintf(who, sizeof(who), "angle %ld  ", pr->angle);
	if (pr->nstarts > 1)
		snprintf(who + strlen(who), sizeof(who) - strlen(who),
		    "start %zu/%zu  ", pr->start + 1, pr->nstarts);
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

/* ---- the fit ------------------------------------------------------------- */

/* The results description of one engine result (arrays it points into). */
static int
fit_describe(const struct het_fit_result *fr, struct het_results_fit *f,
    struct het_results_start **starts)
{
	size_t k;

	*starts = calloc(fr->nstarts > 0 ? fr->nstarts : 1, sizeof(**starts));
	if (*starts == NULL)
		return -1;
	for (k = 0; k < fr->nstarts; k++) {
		const struct het_fit_start *s = &fr->starts[k];

		(*starts)[k] = (struct het_results_start){ s->x0, s->x,
		    s->cost, s->chi2_red, s->iterations, s->nfev,
		    het_nlsq_reason_name(s->reason), s->status };
	}
	*f = (struct het_results_fit){
		.angle = fr->angle, .p = fr->p,
		.names = (const char *const *)fr->names, .x = fr->x,
		.x0 = fr->x0, .unc = fr->unc, .lo = fr->lo, .hi = fr->hi,
		.cov = fr->cov, .corr = fr->corr, .cost = fr->cost,
		.rss = fr->rss, .chi2 = fr->chi2, .chi2_red = fr->chi2_red,
		.sigma = fr->sigma, .dof = fr->dof,
		.iterations = fr->iterations, .nfev = fr->nfev,
		.njev = fr->njev, .wall_time = fr->wall_time,
		.reason = het_nlsq_reason_name(fr->reason),
		.converged = fr->converged, .message = fr->message,
		.rank = fr->rank,
		.warnings = (const char *const *)fr->warnings,
		.nwarnings = fr->nwarnings, .starts = *starts,
		.nstarts = fr->nstarts, .best = fr->best
	};
	return 0;
}

static const char *
fit_flags(const struct het_fit_result *fr, size_t k)
{
	double span = fr->hi[k] - fr->lo[k], tol = 1e-6 * span;

	if (!isfinite(fr->unc[k]) || fr->unc[k] < 1e-30)
		return fabs(fr->x[k] - fr->lo[k]) <= tol ||
		    fabs(fr->x[k] - fr->hi[k]) <= tol ? "at bound, degenerate" :
		    "degenerate";
	if (fabs(fr->x[k] - fr->lo[k]) <= tol)
		return "at lower bound";
	if (fabs(fr->x[k] - fr->hi[k]) <= tol)
		return "at upper bound";
	return "";
}

static const char *
fit_unit(const struct het_problem *pb, const char *name)
{
	const struct het_param_def *tab;
	size_t n;
	int k;

	k = het_params_find(het_mode_family(pb->spec.mode), name);
	if (k < 0)
		return "";
	tab = het_params_table(het_mode_family(pb->spec.mode), &n);
	return tab[k].ascii_unit;
}

static void
fit_print_table(const struct het_problem *pb, const struct het_fit_result *fr)
{
	const struct het_param_def *tab;
	size_t k, n;

	if (fr->angle >= 0)
		printf("\nangle %ld (phi %g):\n", fr->angle,
		    pb->phi[fr->angle]);
	printf("%s (%s): %ld iterations, %ld evaluations, %.2f s\n",
	    fr->converged ? "converged" : fr->reason == HET_NLSQ_CANCELLED ?
	    "cancelled" : "not converged", het_nlsq_reason_name(fr->reason),
	    fr->iterations, fr->nfev, fr->wall_time);
	printf("cost %.6e  chi2_red %.4g  (noise sigma %.4g, dof %ld)\n\n",
	    fr->cost, fr->chi2_red, fr->sigma, fr->dof);
	printf("%-18s %14s   %-11s %-16s %-22s %s\n", "parameter", "value",
	    "uncertainty", "unit", "bounds", "flags");
	for (k = 0; k < fr->p; k++) {
		char b[64];

		snprintf(b, sizeof(b), "[%g, %g]", fr->lo[k], fr->hi[k]);
		printf("%-18s %14.6g ± %-11.3g %-16s %-22s %s\n", fr->names[k],
		    fr->x[k], fr->unc[k], fit_unit(pb, fr->names[k]), b,
		    fit_flags(fr, k));
	}
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
	    *fix = json_object(), *w = json_array();
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
	if (fr->angle >= 0) {
		json_object_set_new(o, "angle", json_integer(fr->angle));
		json_object_set_new(o, "phi", json_real(pb->phi[fr->angle]));
	}
	json_object_set_new(o, "converged", json_boolean(fr->converged));
	json_object_set_new(o, "parameters", par);
	json_object_set_new(o, "uncertainties", unc);
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
	json_object_set_new(o, "wall_time", json_real(fr->wall_time));
	json_object_set_new(o, "convergence_reason",
	    json_string(het_nlsq_reason_name(fr->reason)));
	json_object_set_new(o, "message", json_string(fr->message));
	json_object_set_new(o, "starts", json_integer((json_int_t)
	    fr->nstarts));
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

static double
fit_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* Options of the engine from the config and the problem. */
static int
fit_options(const struct het_config *cfg, const struct het_problem *pb,
    struct fit_run *run, struct het_fit_options *opt, double **xs,
    double **sig)
{
	size_t k, any = 0;
	long col;

	het_fit_default_options(opt);
	opt->nlsq = cfg->nlsq;
	*xs = calloc(pb->p > 0 ? pb->p : 1, sizeof(double));
	*sig = calloc(pb->nangles, sizeof(double));
	if (*xs == NULL || *sig == NULL)
		return -1;
	for (k = 0; k < pb->nphys; k++)
		if ((col = het_resid_phys_col(pb->resid, k)) >= 0 &&
		    cfg->phys[k].x_scale > 0) {
			(*xs)[col] = cfg->phys[k].x_scale;
			any++;
		}
	opt->x_scale = any > 0 ? *xs : NULL;
	if (isfinite(pb->sigma) && pb->sigma > 0) {
		opt->noise_sigma = pb->sigma;
		for (k = 0; k < pb->nangles; k++)
			(*sig)[k] = isfinite(pb->sigma_angle[k]) &&
			    pb->sigma_angle[k] > 0 ? pb->sigma_angle[k] :
			    pb->sigma;
		opt->noise_sigma_angle = *sig;
	}
	opt->cancel = &fit_cancel;
	opt->progress = fit_progress;
	opt->progress_ctx = run;
	run->max_nfev = cfg->nlsq.max_nfev > 0 ? cfg->nlsq.max_nfev :
	    100 * (long)pb->p;
	return 0;
}

/* Write the results files; returns HET_OK or the writer's status. */
static int
fit_write(const struct fit_opts *o, const char *outdir,
    const struct het_config *cfg, const struct het_problem *pb,
    struct het_fit_result **fr, size_t nfr, struct fit_run *run,
    const char *status, double wall, size_t threads, struct het_error *err)
{
	struct het_results_fit *fits;
	struct het_results_start **starts;
	struct het_results res;
	size_t k, n = 0;
	int rc = HET_ENOMEM;

	fits = calloc(nfr, sizeof(*fits));
	starts = calloc(nfr, sizeof(*starts));
	if (fits == NULL || starts == NULL)
		goto out;
	for (k = 0; k < nfr; k++) {
		if (fr[k] == NULL)
			continue;
		if (fit_describe(fr[k], &fits[n], &starts[n]) != 0)
			goto out;
		n++;
	}
	memset(&res, 0, sizeof(res));
	res.cfg = cfg;
	res.pb = pb;
	res.optimizer = cfg->nlsq.multistart ? "multistart" : "local";
	res.per_angle = o->per_angle;
	res.fits = fits;
	res.nfits = n;
	res.history = run->hist;
	res.nhistory = run->nhist;
	res.status = status;
	res.wall_time = wall;
	res.threads = (long)threads;
	res.creator = PACKAGE_NAME " " PACKAGE_VERSION;
	rc = het_results_write(outdir, &res, err);
out:
	if (rc == HET_ENOMEM && err->code != HET_ENOMEM)
		het_error_set(err, HET_ENOMEM, "out of memory");
	for (k = 0; starts != NULL && k < nfr; k++)
		free(starts[k]);
	free(starts);
	free(fits);
	return rc;
}

static int
fit_run(const struct cli_cmd *cmd, const struct fit_opts *o,
    struct het_config *cfg)
{
	struct het_problem_opts po;
	struct het_fit_options opt;
	struct het_fit_result **fr = NULL, *one = NULL;
	struct het_problem *pb = NULL;
	struct het_dataset *ds = NULL;
	struct het_pool *pool = NULL;
	struct het_error err;
	struct fit_run run;
	double *xs = NULL, *sig = NULL, t0 = fit_now();
	char *path = NULL;
	const char *outdir, *status;
	size_t nfr = 0, k, w, conv = 0;
	int rc = CLI_EXIT_ERROR, st;

	memset(&run, 0, sizeof(run));
	run.cmd = cmd;
	run.tty = isatty(STDERR_FILENO);
	het_error_clear(&err);
	outdir = o->out != NULL ? o->out : cfg->output_dir != NULL ?
	    cfg->output_dir : "output";
	if ((path = het_problem_data_path(cfg, o->file, &err)) == NULL ||
	    (ds = het_dataset_open(path, &err)) == NULL)
		goto fail;
	memset(&po, 0, sizeof(po));
	po.dt = o->dt;
	po.progress = fit_read_progress;
	po.progress_arg = &run;
	if ((pb = het_problem_build(cfg, ds, &po, &err)) == NULL) {
		if (err.code == HET_ECANCEL) {
			fprintf(stderr, "hetui %s: cancelled while reading; "
			    "nothing was fitted or written\n", cmd->name);
			rc = FIT_EXIT_CANCELLED;
			goto out;
		}
		goto fail;
	}
	het_dataset_close(ds);
	ds = NULL;
	for (k = 0; k < pb->nwarnings; k++)
		cli_warn(cmd, "%s", pb->warnings[k]);
	if (fit_options(cfg, pb, &run, &opt, &xs, &sig) != 0) {
		het_error_set(&err, HET_ENOMEM, "out of memory");
		goto fail;
	}
	het_pool_blas_single_threaded();
	if ((pool = het_pool_alloc((size_t)o->threads, &err)) == NULL)
		goto fail;
	if (o->per_angle)
		st = het_fit_run_per_angle(pool, pb->resid, pb->x0, pb->lo,
		    pb->hi, &opt, &fr, &nfr, &err);
	else {
		st = het_fit_run(pool, pb->resid, pb->x0, pb->lo, pb->hi, &opt,
		    &one, &err);
		fr = &one;
		nfr = one != NULL ? 1 : 0;
	}
	if (run.tty)
		fputc('\n', stderr);
	if (st != HET_OK && st != HET_ECANCEL)
		goto fail;
	for (k = 0; k < nfr; k++)
		conv += fr[k] != NULL && fr[k]->converged;
	status = st == HET_ECANCEL ? "cancelled" : conv == nfr ?
	    "converged" : "not_converged";
	if (fit_write(o, outdir, cfg, pb, fr, nfr, &run, status,
	    fit_now() - t0, het_pool_nthreads(pool), &err) != HET_OK)
		goto fail;
	if (o->json)
		fit_print_json(pb, fr, nfr, o->per_angle, status,
		    fit_now() - t0, outdir, pb->warnings, pb->nwarnings);
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
	if (run.oom)
		cli_warn(cmd, "out of memory: the iteration history in %s/%s "
		    "is incomplete", outdir, HET_RESULTS_H5);
	if (st == HET_ECANCEL) {
		fprintf(stderr, "hetui %s: cancelled; the partial result was "
		    "written to %s/\n", cmd->name, outdir);
		rc = FIT_EXIT_CANCELLED;
	} else
		rc = conv == nfr ? CLI_EXIT_OK : CLI_EXIT_NOT_CONVERGED;
	goto out;
fail:
	if (run.tty)
		fputc('\n', stderr);
	rc = cli_report(cmd, &err);
out:
	if (o->per_angle)
		het_fit_results_free(fr, nfr);
	else
		het_fit_result_free(one);
	het_pool_free(pool);
	het_problem_free(pb);
	het_dataset_close(ds);
	free(run.hist);
	free(path);
	free(xs);
	free(sig);
	return rc;
}

static int
fit_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct sigaction sa;
	struct het_config *cfg;
	struct het_error err;
	struct fit_opts o;
	size_t w;
	int rc;

	rc = fit_parse(cmd, argc, argv, &o);
	if (rc != CLI_EXIT_OK)
		return rc < 0 ? CLI_EXIT_OK : rc;
	het_error_clear(&err);
	if ((cfg = het_config_load(o.config, &err)) == NULL)
		return cli_report(cmd, &err);
	for (w = 0; w < cfg->nwarnings; w++)
		cli_warn(cmd, "%s:%d: %s", o.config, cfg->warnings[w].line,
		    cfg->warnings[w].msg);
	if (o.multistart > 0) {
		cfg->nlsq.multistart = o.multistart > 1;
		cfg->nlsq.multistart_n = o.multistart;
	}
	if (o.seed_set)
		cfg->nlsq.seed = o.seed;
	atomic_store(&fit_cancel, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fit_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	rc = fit_run(cmd, &o, cfg);
	signal(SIGINT, SIG_DFL);
	het_config_free(cfg);
	return rc;
}

const struct cli_cmd cli_cmd_fit = {
	"fit",
	"fit the configured model to a result file (NLSQ)",
	"hetui fit -c CONFIG [FILE] [-o DIR] [--json] [--threads N] "
	    "[--multistart N] [--per-angle] [--seed N] [--dt S]",
	"Reads the q ring, angles and frame window that CONFIG selects from\n"
	"FILE (default: experimental_data.file_path), fits the model to the\n"
	"upper-triangle pairs of every selected angle jointly with a bounded\n"
	"trust-region solver, and writes hetui_results.h5,\n"
	"nlsq_parameters.json and nlsq_metadata.json into the output\n"
	"directory.  Progress goes to stderr, a summary table to stdout.\n"
	"  -c, --config FILE   the analysis configuration (required)\n"
	"  -o, --output DIR    output directory (config: output.output_dir)\n"
	"      --json          print a machine-readable summary instead\n"
	"      --threads N     threads of the pool (default: one per core);\n"
	"                      results are identical for every N\n"
	"      --multistart N  N starts: the configured one and N-1 from a\n"
	"                      Latin hypercube in the bounds\n"
	"      --per-angle     fit every angle on its own (as the reference\n"
	"                      packages do) instead of jointly\n"
	"      --seed N        multistart seed (config: nlsq.seed, 42)\n"
	"      --dt S          frame time in seconds (overrides config, file)\n"
	"Exit status: 0 converged, 3 not converged (max_nfev or\n"
	"max_iterations reached), 130 cancelled by SIGINT (the partial result\n"
	"is written), 1 error, 2 usage error.\n",
	fit_main
};
