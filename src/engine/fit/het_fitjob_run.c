/*
 * het_fitjob_run.c: the synchronous part of a fit job, shared by
 * `hetui fit` and the workstation: het_fitjob_execute and its pieces
 * (engine options from the configuration, warm start by parameter name,
 * display grids, the results description and writing, the default output
 * directory, parameter flags).
 *
 * Design: one straight function, data path -> open -> problem (with the
 * reading hook, which also polls the cancel flag) -> options -> pool ->
 * joint or per-angle fit (the iteration records are kept for the
 * results file before the caller's hook sees them) -> grids -> write.
 * Everything it allocates belongs to the result, or is freed before it
 * returns; a failure to write keeps the fit and says why, because a fit
 * that took minutes must not be thrown away for a full disk.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "het_fitjob.h"
#include "het_memory.h"
#include "het_model.h"
#include "het_params.h"
#include "het_pool.h"
#include "het_rundir.h"
#include "het_thread.h"
#include "het_util.h"

/* What the wrapped callbacks see. */
struct fj_run {
	const struct het_fitjob_hooks *hooks;
	const atomic_int *cancel;
	struct het_results_iter *hist;
	size_t		 nhist, cap;
	int		 oom;
};

static int
fj_read(void *arg, size_t k, size_t n, const struct het_bin *bin)
{
	struct fj_run *run = arg;

	if (run->hooks != NULL && run->hooks->read != NULL)
		run->hooks->read(run->hooks->ctx, k, n, bin);
	return run->cancel != NULL && atomic_load(run->cancel);
}

/* Keep every record for the results file, then pass it on. */
static void
fj_iter(void *ctx, const struct het_fit_progress *pr)
{
	struct fj_run *run = ctx;
	struct het_results_iter *h;

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
	if (run->hooks != NULL && run->hooks->iter != NULL)
		run->hooks->iter(run->hooks->ctx, pr);
}

/* Engine options from the configuration and the problem. */
static int
fj_options(const struct het_config *cfg, const struct het_problem *pb,
    struct het_fit_options *opt, double **xs, double **sig,
    struct het_error *err)
{
	size_t k, any = 0;
	long col;

	het_fit_default_options(opt);
	opt->nlsq = cfg->nlsq;
	*xs = calloc(pb->p > 0 ? pb->p : 1, sizeof(double));
	*sig = calloc(pb->nangles > 0 ? pb->nangles : 1, sizeof(double));
	if (*xs == NULL || *sig == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory for the "
		    "fit options (%zu parameters)", pb->p);
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
		opt->noise_count_angle = pb->noise_count;
	}
	return HET_OK;
}

/* The start vector: the problem's, overridden by name from the spec. */
static double *
fj_start(const struct het_fitjob_spec *spec, const struct het_problem *pb,
    size_t *nwarm, struct het_error *err)
{
	double *x0, v;
	const char *name;
	size_t k, i;

	*nwarm = 0;
	x0 = het_alloc_array(pb->p > 0 ? pb->p : 1, sizeof(double),
	    "start vector", err);
	if (x0 == NULL)
		return NULL;
	memcpy(x0, pb->x0, pb->p * sizeof(double));
	for (k = 0; spec->start_names != NULL && k < pb->p; k++) {
		name = het_resid_param_name(pb->resid, k);
		for (i = 0; i < spec->nstart; i++) {
			if (spec->start_names[i] == NULL ||
			    strcmp(spec->start_names[i], name) != 0)
				continue;
			v = spec->start_x[i];
			if (!isfinite(v))
				break;
			x0[k] = v < pb->lo[k] ? pb->lo[k] : v > pb->hi[k] ?
			    pb->hi[k] : v;
			(*nwarm)++;
			break;
		}
	}
	return x0;
}

static void
fj_grids_free(struct het_fitjob_grid *g, size_t n)
{
	size_t a;

	for (a = 0; g != NULL && a < n; a++) {
		free(g[a].data);
		free(g[a].model);
		free(g[a].resid);
	}
	free(g);
}

/*
 * Block means of data, model and data - model per angle, both triangles
 * (the matrices are symmetric); blocks without a pair are NAN.
 */
static struct het_fitjob_grid *
fj_grids(const struct het_problem *pb, const double *x, size_t side,
    struct het_error *err)
{
	struct het_fitjob_grid *g;
	struct het_resid_eval *ev;
	double *m = NULL, *cnt = NULL;
	size_t a, k, n, first, cells, bi, bj, s;
	const struct het_pair *pr;

	s = side < pb->n_frames ? side : pb->n_frames;
	if (s == 0 || pb->nangles == 0)
		return NULL;
	cells = s * s;
	if ((ev = het_resid_eval_alloc(pb->resid, err)) == NULL)
		return NULL;
	if (het_resid_prepare(ev, x, 0, err) != HET_OK) {
		het_resid_eval_free(ev);
		return NULL;
	}
	g = calloc(pb->nangles, sizeof(*g));
	cnt = calloc(cells, sizeof(double));
	if (g == NULL || cnt == NULL)
		goto oom;
	for (a = 0; a < pb->nangles; a++) {
		first = pb->pair_first[a];
		n = pb->pair_first[a + 1] - first;
		g[a].side = s;
		g[a].data = calloc(cells, sizeof(double));
		g[a].model = calloc(cells, sizeof(double));
		g[a].resid = calloc(cells, sizeof(double));
		free(m);
		m = malloc((n > 0 ? n : 1) * sizeof(double));
		if (g[a].data == NULL || g[a].model == NULL ||
		    g[a].resid == NULL || m == NULL)
			goto oom;
		het_resid_eval_model(ev, first, n, m);
		memset(cnt, 0, cells * sizeof(double));
		for (k = 0; k < n; k++) {
			pr = &pb->pairs[first + k];
			bi = (size_t)pr->i * s / pb->n_frames;
			bj = (size_t)pr->j * s / pb->n_frames;
			g[a].data[bi * s + bj] += pb->y[first + k];
			g[a].model[bi * s + bj] += m[k];
			cnt[bi * s + bj] += 1;
			if (bi != bj) {
				g[a].data[bj * s + bi] += pb->y[first + k];
				g[a].model[bj * s + bi] += m[k];
				cnt[bj * s + bi] += 1;
			}
		}
		for (k = 0; k < cells; k++) {
			if (cnt[k] == 0) {
				g[a].data[k] = g[a].model[k] = NAN;
				g[a].resid[k] = NAN;
				continue;
			}
			g[a].data[k] /= cnt[k];
			g[a].model[k] /= cnt[k];
			g[a].resid[k] = g[a].data[k] - g[a].model[k];
		}
	}
	free(m);
	free(cnt);
	het_resid_eval_free(ev);
	return g;
oom:
	fj_grids_free(g, pb->nangles);
	free(m);
	free(cnt);
	het_resid_eval_free(ev);
	het_error_set(err, HET_ENOMEM, "out of memory for the display grids "
	    "(%zu angles of %zu x %zu)", pb->nangles, s, s);
	return NULL;
}

/* The results description of one engine result (arrays it points into). */
int
het_fitjob_describe(const struct het_fit_result *fr,
    struct het_results_fit *f, struct het_results_start **starts)
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
		.rank = fr->rank, .degen = fr->degen, .combos = fr->combos,
		.unc_skipped = fr->brief,
		.ncombos = fr->ncombos,
		.warnings = (const char *const *)fr->warnings,
		.nwarnings = fr->nwarnings, .starts = *starts,
		.nstarts = fr->nstarts, .best = fr->best
	};
	return 0;
}

/* Write the results files of res; returns HET_OK or the writer's status. */
static int
fj_write(const struct het_config *cfg, struct het_fitjob_result *res,
    struct het_error *err)
{
	struct het_results_fit *fits;
	struct het_results_start **starts;
	struct het_results w;
	size_t k, n = 0;
	int rc = HET_ENOMEM;

	fits = calloc(res->nfits > 0 ? res->nfits : 1, sizeof(*fits));
	starts = calloc(res->nfits > 0 ? res->nfits : 1, sizeof(*starts));
	if (fits == NULL || starts == NULL)
		goto out;
	for (k = 0; k < res->nfits; k++) {
		if (res->fits[k] == NULL)
			continue;
		if (het_fitjob_describe(res->fits[k], &fits[n], &starts[n]) != 0)
			goto out;
		n++;
	}
	memset(&w, 0, sizeof(w));
	w.cfg = cfg;
	w.pb = res->pb;
	w.optimizer = cfg->nlsq.multistart ? "multistart" : "local";
	w.per_angle = res->per_angle;
	w.fits = fits;
	w.nfits = n;
	w.history = res->hist;
	w.nhistory = res->nhist;
	w.status = res->status_name;
	w.wall_time = res->wall_time;
	w.threads = (long)res->threads;
	w.creator = PACKAGE_NAME " " PACKAGE_VERSION;
	rc = het_results_write(res->outdir, &w, err);
out:
	if (rc == HET_ENOMEM && err->code != HET_ENOMEM)
		het_error_set(err, HET_ENOMEM, "out of memory while describing "
		    "the results for %s", res->outdir);
	for (k = 0; starts != NULL && k < res->nfits; k++)
		free(starts[k]);
	free(starts);
	free(fits);
	return rc;
}

void
het_fitjob_result_free(void *arg)
{
	struct het_fitjob_result *res = arg;

	if (res == NULL)
		return;
	if (res->grids != NULL && res->pb != NULL)
		fj_grids_free(res->grids, res->pb->nangles);
	het_fit_results_free(res->fits, res->nfits);
	het_problem_free(res->pb);
	free(res->hist);
	free(res->data_path);
	free(res->outdir);
	free(res);
}

int
het_fitjob_execute(const struct het_fitjob_spec *spec,
    const struct het_fitjob_hooks *hooks, const atomic_int *cancel,
    struct het_fitjob_result **out, struct het_error *err)
{
	struct het_problem_opts po;
	struct het_fit_options opt;
	struct het_fitjob_result *res = NULL;
	struct het_fit_result *one = NULL;
	struct het_dataset *ds = NULL;
	struct het_pool *pool = NULL;
	struct het_error gerr;
	struct fj_run run;
	double *xs = NULL, *sig = NULL, *x0 = NULL, t0 = het_clock_now();
	size_t k, conv = 0;
	int rc, st, made = 0;

	*out = NULL;
	memset(&run, 0, sizeof(run));
	run.hooks = hooks;
	run.cancel = cancel;
	if (spec == NULL || spec->cfg == NULL)
		return het_error_set(err, HET_EINVAL, "fit job: no "
		    "configuration was given");
	if ((res = calloc(1, sizeof(*res))) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	res->per_angle = spec->per_angle;
	if ((res->data_path = het_problem_data_path(spec->cfg,
	    spec->data_path, err)) == NULL ||
	    (ds = het_problem_dataset_open(spec->cfg, res->data_path,
	    spec->dt, err)) == NULL) {
		rc = err->code;
		goto fail;
	}
	memset(&po, 0, sizeof(po));
	po.dt = spec->dt;
	po.mem_available = het_memory_available(
	    getenv("HETUI_MEMORY_AVAILABLE"));
	po.progress = fj_read;
	po.progress_arg = &run;
	if ((res->pb = het_problem_build(spec->cfg, ds, &po, err)) == NULL) {
		rc = err->code;
		if (rc == HET_ECANCEL)
			het_error_set(err, HET_ECANCEL, "cancelled while "
			    "reading %s; nothing was fitted or written",
			    res->data_path);
		goto fail;
	}
	het_dataset_close(ds);
	ds = NULL;
	if (hooks != NULL && hooks->built != NULL)
		hooks->built(hooks->ctx, res->pb);
	/* The run's own folder is made only when there is a fit to write. */
	if (spec->outdir != NULL &&
	    (res->outdir = het_strdup(spec->outdir, err)) == NULL) {
		rc = err->code;
		goto fail;
	}
	if (fj_options(spec->cfg, res->pb, &opt, &xs, &sig, err) != HET_OK ||
	    (x0 = fj_start(spec, res->pb, &res->nwarm, err)) == NULL) {
		rc = err->code;
		goto fail;
	}
	opt.cancel = cancel;
	opt.progress = fj_iter;
	opt.progress_ctx = &run;
	if ((pool = het_pool_alloc(spec->threads, err)) == NULL) {
		rc = err->code;
		goto fail;
	}
	res->threads = het_pool_nthreads(pool);
	if (spec->per_angle)
		st = het_fit_run_per_angle(pool, res->pb->resid, x0,
		    res->pb->lo, res->pb->hi, &opt, &res->fits, &res->nfits,
		    err);
	else {
		st = het_fit_run(pool, res->pb->resid, x0, res->pb->lo,
		    res->pb->hi, &opt, &one, err);
		if (one != NULL) {
			if ((res->fits = calloc(1, sizeof(*res->fits))) ==
			    NULL) {
				het_fit_result_free(one);
				st = het_error_set(err, HET_ENOMEM, "out of "
				    "memory");
			} else {
				res->fits[0] = one;
				res->nfits = 1;
			}
		}
	}
	het_pool_free(pool);
	pool = NULL;
	if (st != HET_OK && st != HET_ECANCEL) {
		rc = st;
		goto fail;
	}
	for (k = 0; k < res->nfits; k++)
		conv += res->fits[k] != NULL && res->fits[k]->converged;
	res->status = st;
	res->converged = conv == res->nfits;
	res->status_name = st == HET_ECANCEL ? "cancelled" : res->converged ?
	    "converged" : "not_converged";
	res->hist = run.hist;
	res->nhist = run.nhist;
	res->hist_incomplete = run.oom;
	run.hist = NULL;
	het_error_clear(&res->write_err);
	if (res->outdir == NULL)
		res->outdir = het_fitjob_default_outdir(spec->cfg,
		    res->data_path, "fit", &made, res->outdir_note,
		    sizeof(res->outdir_note), &res->write_err);
	if (hooks != NULL && hooks->writing != NULL && res->outdir != NULL)
		hooks->writing(hooks->ctx, res->outdir);
	/* Grids are a convenience: without memory the fit still stands. */
	if (!spec->no_grids && !spec->per_angle && res->nfits == 1) {
		het_error_clear(&gerr);
		res->grids = fj_grids(res->pb, res->fits[0]->x, spec->grid > 0 ?
		    spec->grid : HET_FITJOB_GRID, &gerr);
	}
	res->wall_time = het_clock_now() - t0;
	res->written = res->outdir != NULL &&
	    fj_write(spec->cfg, res, &res->write_err) == HET_OK;
	if (!res->written && made)
		rmdir(res->outdir);
	free(xs);
	free(sig);
	free(x0);
	*out = res;
	return st;
fail:
	het_pool_free(pool);
	het_dataset_close(ds);
	het_fitjob_result_free(res);
	free(run.hist);
	free(xs);
	free(sig);
	free(x0);
	return rc != HET_OK ? rc : HET_EINTERNAL;
}

/* ---- output directory, flags, units ---------------------------------- */

char *
het_fitjob_default_outdir(const struct het_config *cfg,
    const char *data_path, const char *analysis, int *made, char *note,
    size_t notelen, struct het_error *err)
{
	char *dir;

	if (note != NULL && notelen > 0)
		note[0] = '\0';
	dir = het_rundir_make(cfg, data_path, analysis, time(NULL), made, err);
	if (dir != NULL && note != NULL && notelen > 0)
		snprintf(note, notelen, "%s", cfg == NULL ||
		    cfg->timestamp_dirs ? "a new folder for this run" :
		    "the configuration's output.output_dir");
	return dir;
}

const char *
het_fitjob_flag(const struct het_fit_result *fr, size_t k)
{
	double span = fr->hi[k] - fr->lo[k], tol = 1e-6 * span;

	if (!fr->brief && ((fr->degen != NULL && fr->degen[k]) ||
	    !isfinite(fr->unc[k]) || fr->unc[k] < 1e-30))
		return fabs(fr->x[k] - fr->lo[k]) <= tol ||
		    fabs(fr->x[k] - fr->hi[k]) <= tol ? "at bound, degenerate" :
		    "degenerate";
	if (fabs(fr->x[k] - fr->lo[k]) <= tol)
		return "at lower bound";
	if (fabs(fr->x[k] - fr->hi[k]) <= tol)
		return "at upper bound";
	return "";
}

const char *
het_fitjob_unit(const struct het_problem *pb, const char *name)
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
