/*
 * het_fit.c: the NLSQ fit driver: starts, the iteration loop with
 * cancellation and progress, multistart on the pool, per-angle fits, and
 * the result (built with its quality report in het_fit_result.c).
 *
 * Design.  One problem (joint, or one angle) is a struct fit_prob
 * (het_fit_acc.c).  Each start runs the core solver (het_nlsq) step by
 * step through run_start: before every iteration the job's cancel flag
 * is read, after it the progress callback gets the iteration record.
 * A single start accumulates on the whole pool; several starts run
 * concurrently, one per pool thread, each accumulating serially with the
 * same chunks, so every start is bit-identical to a lone run of it and
 * the whole result does not depend on the thread count.  Each start has
 * its own slot (solver and evaluation state), so multistart can screen:
 * run every start for a few iterations, then continue only the best
 * (het_fit_ms.c); the choice depends on costs alone.  With variable
 * projection (het_fit_vp.c) the solver works on the physics columns and
 * slot_x appends the best scaling to form the full x.  The chosen
 * point is evaluated once more (normal equations, per-angle sums) to
 * build the report, so the reported cost always belongs to the reported
 * x, also after a cancel.  After a cancel that pass is cost-only and the
 * report brief (no eigen-analysis of the p x p normal matrix, no
 * probes), and no floor restart or basin escape follows: what remains
 * of a SIGTERM's latency is the iteration in flight (a fraction of a
 * second with block elimination, else its eigen-decomposition, which
 * cannot be interrupted), the report of a fit that had converged before
 * the cancel, and writing the result.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_config_bridge.h"
#include "het_fit_impl.h"
#include "het_problem.h"
#include "het_thread.h"
#include "het_util.h"

void
het_fit_default_options(struct het_fit_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->nlsq.method = HET_NLSQ_TRF;
	opt->nlsq.loss = HET_LOSS_SOFT_L1;
	opt->nlsq.f_scale = 1.0;
	opt->nlsq.ftol = 1e-8;
	opt->nlsq.xtol = 1e-8;
	opt->nlsq.gtol = 1e-8;
	opt->nlsq.x_scale_jac = 1;
	opt->nlsq.x_scale = 1.0;
	opt->nlsq.max_nfev = 0;
	opt->nlsq.max_iterations = 1000;
	opt->nlsq.multistart = 0;
	opt->nlsq.multistart_n = 10;
	opt->nlsq.seed = 42;
	opt->noise_sigma = 0.0;
	opt->chunk = 0;
}

static const double *
slot_x(const struct fit_run *run, struct fit_slot *slot)
{
	const struct fit_prob *fp = run->fp;

	if (!fp->vp)
		return het_nlsq_x(slot->w);
	memcpy(slot->xf, het_nlsq_x(slot->w), fp->nfp * sizeof(double));
	memcpy(slot->xf + fp->nfp, het_fit_vp_scaling(&slot->fe),
	    fp->ns * sizeof(double));
	return slot->xf;
}

static void
report(struct fit_run *run, size_t k, struct fit_slot *slot)
{
	const struct het_nlsq *w = slot->w;
	const struct het_fit_options *opt = run->opt;
	struct het_fit_progress pr;
	struct het_nlsq_info info;

	if (opt->progress == NULL)
		return;
	het_nlsq_info(w, &info);
	memset(&pr, 0, sizeof(pr));
	pr.angle = run->fp->angle;
	pr.start = k;
	pr.nstarts = run->nstarts;
	pr.iter = info.iter;
	pr.nfev = info.nfev;
	pr.njev = info.njev;
	pr.cost = info.cost;
	pr.chi2_red = info.rss / (run->sig2 > 0 ? run->sig2 : 1.0) /
	    (double)run->dof;
	pr.radius = info.radius;
	pr.lambda = info.lambda;
	pr.step_norm = info.step_norm;
	pr.g_norm = info.g_norm;
	pr.p = run->fp->p;
	pr.x = slot_x(run, slot);
	pr.stage = run->fp->nseg > 0;
	pthread_mutex_lock(&run->mu);
	opt->progress(opt->progress_ctx, &pr);
	pthread_mutex_unlock(&run->mu);
}

/*
 * Run start k on a slot, accumulating on `pool` (NULL: serially on this
 * thread): initialise it when `begin`, then iterate until a test fires
 * or it has done `limit` iterations (0: no limit).  The slot keeps the
 * solver state, so a start stopped by the limit can go on later.  Fills
 * run->starts[k] (reason HET_NLSQ_RUNNING when the limit stopped it);
 * returns its status.
 */
int
het_fit_run_start(struct fit_run *run, size_t k, struct fit_slot *slot,
    struct het_pool *pool, int begin, long limit)
{
	const struct fit_prob *fp = run->fp;
	const atomic_int *cancel = run->opt->cancel;
	struct het_fit_start *st = &run->starts[k];
	struct het_error *err = &run->serr[k];
	struct het_nlsq_info info;
	int rc = HET_OK, cancelled = 0;

	slot->fe.pool = pool;
	slot->fe.cancel = cancel;
	if (begin) {
		het_error_clear(err);
		slot->fe.pending = 0;
		slot->fe.spec_valid = 0;
		slot->fe.npass = 0;
		slot->fe.nsep = 0;
		slot->nblock = 0;
		/* Variable projection: the solver sees the physics prefix. */
		if (fp->vp)
			het_fit_vp_start(&slot->fe, st->x0 + fp->nfp);
		rc = het_nlsq_init(slot->w, fp->vp ? het_fit_eval_vp_cb :
		    het_fit_eval_cb, &slot->fe, fp->n, st->x0, fp->lo, fp->hi,
		    &run->par, err);
		if (rc != HET_OK) {
			st->status = rc;
			st->reason = rc == HET_ECANCEL ? HET_NLSQ_CANCELLED :
			    HET_NLSQ_FAILED;
			return rc;
		}
		report(run, k, slot);
	}
	while (het_nlsq_test(slot->w) == HET_CONTINUE) {
		het_nlsq_info(slot->w, &info);
		if (limit > 0 && info.iter >= limit)
			break;
		if (cancel != NULL && atomic_load(cancel)) {
			cancelled = 1;
			break;
		}
		rc = het_nlsq_iterate(slot->w, err);
		if (rc == HET_ECANCEL) {
			cancelled = 1;
			break;
		}
		if (rc != HET_OK)
			break;
		slot->nblock += het_nlsq_blocks_used(slot->w);
		report(run, k, slot);
	}
	het_nlsq_info(slot->w, &info);
	memcpy(st->x, slot_x(run, slot), fp->p * sizeof(double));
	st->cost = info.cost;
	st->chi2_red = info.rss / (run->sig2 > 0 ? run->sig2 : 1.0) /
	    (double)run->dof;
	st->iterations = info.iter;
	st->nfev = info.nfev;
	st->njev = info.njev;
	st->npass = slot->fe.npass;
	st->nsep = slot->fe.nsep;
	st->nblock = slot->nblock;
	if (cancelled) {
		st->reason = HET_NLSQ_CANCELLED;
		st->status = HET_ECANCEL;
	} else if (rc != HET_OK) {
		st->reason = HET_NLSQ_FAILED;
		st->status = rc;
	} else {
		st->reason = het_nlsq_reason(slot->w);
		st->status = HET_OK;
	}
	return st->status;
}

/* ------------------------------------------------------------------ */
/* One problem: starts, best, report. */

static void
run_fini(struct fit_run *run)
{
	size_t k;

	for (k = 0; run->slots != NULL && k < run->nslots; k++) {
		het_fit_eval_fini(&run->slots[k].fe);
		het_nlsq_free(run->slots[k].w);
		free(run->slots[k].xf);
	}
	free(run->slots);
	for (k = 0; run->starts != NULL && k < run->nstarts; k++) {
		free(run->starts[k].x0);
		free(run->starts[k].x);
	}
	free(run->starts);
	free(run->serr);
	free(run->X0);
	free(run->order);
	free(run->xs);
	free(run->blk);
	pthread_mutex_destroy(&run->mu);
}

/* Validate the start and bounds by name; set sigma^2 and the dof. */
static int
run_check(struct fit_run *run, struct het_error *err)
{
	const struct fit_prob *fp = run->fp;
	const struct het_fit_options *opt = run->opt;
	double s, sum = 0.0;
	size_t c, a;

	for (c = 0; c < fp->p; c++) {
		if (isnan(fp->lo[c]) || isnan(fp->hi[c]) ||
		    !(fp->lo[c] < fp->hi[c]))
			return het_error_set(err, HET_EINVAL, "fit: the bounds "
			    "[%g, %g] of %s are empty; the lower bound must "
			    "be below the upper one", fp->lo[c], fp->hi[c],
			    fp->names[c]);
		if (!(fp->x0[c] >= fp->lo[c] && fp->x0[c] <= fp->hi[c]))
			return het_error_set(err, HET_EINVAL, "fit: the start "
			    "value %g of %s is outside its bounds [%g, %g]; "
			    "move it inside or widen the bounds", fp->x0[c],
			    fp->names[c], fp->lo[c], fp->hi[c]);
	}
	if ((unsigned)opt->nlsq.method >= HET_NLSQ_METHOD_COUNT)
		return het_error_set(err, HET_EINVAL, "fit: unknown NLSQ "
		    "method %d", (int)opt->nlsq.method);
	if (opt->nlsq.multistart && opt->nlsq.multistart_n < 1)
		return het_error_set(err, HET_EINVAL, "fit: multistart_n is "
		    "%ld; it must be at least 1", opt->nlsq.multistart_n);
	run->dof = fp->n > fp->p ? (long)(fp->n - fp->p) : 1;
	run->sig2 = 0.0;
	if (opt->noise_sigma_angle != NULL) {
		for (a = 0; a < fp->na; a++) {
			if (fp->npa[a] == 0)
				continue;
			s = opt->noise_sigma_angle[a];
			if (!(s > 0) || !isfinite(s))
				return het_error_set(err, HET_EINVAL, "fit: the "
				    "noise sigma of angle %zu is %g; it must "
				    "be a finite number > 0", a, s);
			sum += (double)fp->npa[a] * s * s;
		}
		run->sig2 = sum / (double)fp->n;
	} else if (opt->noise_sigma > 0 && isfinite(opt->noise_sigma))
		run->sig2 = opt->noise_sigma * opt->noise_sigma;
	else if (opt->noise_sigma < 0 || isinf(opt->noise_sigma))
		return het_error_set(err, HET_EINVAL, "fit: the noise sigma "
		    "is %g; give a finite number > 0, or 0 when unknown",
		    opt->noise_sigma);
	return HET_OK;
}

static int
run_setup(struct fit_run *run, const struct fit_prob *fp,
    struct het_pool *pool, const struct het_fit_options *opt,
    const double *Xs, size_t nxs, struct het_error *err)
{
	size_t k, nth = het_pool_nthreads(pool), p = fp->p, nb = 0;
	const size_t *blk = NULL;
	int rc;

	memset(run, 0, sizeof(*run));
	pthread_mutex_init(&run->mu, NULL);
	run->fp = fp;
	run->opt = opt;
	if ((rc = run_check(run, err)) != HET_OK)
		return rc;
	het_nlsq_params_from_config(&run->par, &opt->nlsq);
	run->par.radius0 = opt->radius0 > 0 ? opt->radius0 : HET_FIT_RADIUS0;
	if (!opt->nlsq.x_scale_jac) {
		if ((run->xs = het_alloc_array(p, sizeof(double), "fit",
		    err)) == NULL)
			return HET_ENOMEM;
		for (k = 0; k < p; k++)
			run->xs[k] = opt->x_scale != NULL &&
			    opt->x_scale[fp->rcol[k]] > 0 ?
			    opt->x_scale[fp->rcol[k]] : opt->nlsq.x_scale;
		run->par.x_scale = run->xs;
	}
	run->nstarts = Xs != NULL ? nxs : opt->nlsq.multistart ?
	    (size_t)opt->nlsq.multistart_n : 1;
	run->nslots = run->nstarts;
	run->screen = opt->screen_iter == 0 ? HET_FIT_SCREEN_ITER :
	    opt->screen_iter > 0 ? opt->screen_iter : 0;
	run->order = het_alloc_array(run->nstarts, sizeof(size_t), "fit",
	    err);
	run->X0 = het_alloc_array(run->nstarts * p, sizeof(double), "fit",
	    err);
	run->starts = het_alloc_array(run->nstarts, sizeof(*run->starts),
	    "fit", err);
	run->serr = het_alloc_array(run->nstarts, sizeof(*run->serr), "fit",
	    err);
	run->slots = het_alloc_array(run->nslots, sizeof(*run->slots), "fit",
	    err);
	if (run->X0 == NULL || run->starts == NULL || run->serr == NULL ||
	    run->slots == NULL || run->order == NULL)
		return HET_ENOMEM;
	if (Xs != NULL)
		memcpy(run->X0, Xs, nxs * p * sizeof(double));
	else if ((rc = het_fit_lhs_starts(fp, opt->nlsq.seed, run->nstarts,
	    run->X0, err)) != HET_OK)
		return rc;
	for (k = 0; k < run->nstarts; k++) {
		struct het_fit_start *st = &run->starts[k];

		st->x0 = het_alloc_array(p, sizeof(double), "fit", err);
		st->x = het_alloc_array(p, sizeof(double), "fit", err);
		if (st->x0 == NULL || st->x == NULL)
			return HET_ENOMEM;
		memcpy(st->x0, run->X0 + k * p, p * sizeof(double));
		memcpy(st->x, st->x0, p * sizeof(double));
		st->cost = INFINITY;
		st->chi2_red = NAN;
		st->status = HET_ECANCEL;	/* until it runs */
		st->reason = HET_NLSQ_CANCELLED;
	}
	/* The solver's block structure (option blocks), when it has one. */
	if (!fp->vp && het_fit_blocks_wanted(fp, opt)) {
		if ((run->blk = het_alloc_array(fp->ns, sizeof(size_t), "fit",
		    err)) == NULL)
			return HET_ENOMEM;
		if (het_fit_prob_blocks(fp, run->blk, &nb))
			blk = run->blk;
	}
	/* Slot 0 also serves the pooled single start and the final pass,
	   so it has scratch for every pool thread. */
	for (k = 0; k < run->nslots; k++) {
		if ((rc = het_fit_eval_init(&run->slots[k].fe, fp,
		    k == 0 ? nth :
		    1, err)) != HET_OK)
			return rc;
		if ((run->slots[k].w = het_nlsq_alloc(fp->vp ? fp->nfp : p,
		    err)) == NULL)
			return err != NULL ? err->code : HET_ENOMEM;
		if (blk != NULL && (rc = het_nlsq_set_blocks(run->slots[k].w,
		    fp->nfp, blk, nb, err)) != HET_OK)
			return rc;
		if ((run->slots[k].xf = het_alloc_array(p, sizeof(double),
		    "fit", err)) == NULL)
			return HET_ENOMEM;
	}
	return HET_OK;
}

/*
 * The normal equations at the chosen x for the report: the separable
 * sums when they are exact there, else (a floored rate) the pair
 * kernel's, which then also serve the report's probes.
 */
static int
report_pass(struct fit_eval *fe, const double *x, double *acc,
    struct het_error *err)
{
	int rc;

	if ((rc = het_fit_eval_cb(fe, x, 1, acc, err)) != HET_OK ||
	    het_fit_sep_exact(fe))
		return rc;
	fe->pairs = 1;
	fe->spec_valid = 0;
	return het_fit_eval_cb(fe, x, 1, acc, err);
}

/* Fit one problem (joint or one angle): het_fit_impl.h. */
int
het_fit_problem(struct het_pool *pool, const struct fit_prob *fp,
    const struct het_fit_options *opt, const double *Xs, size_t nxs,
    double t0, struct het_fit_result **out, struct het_error *err)
{
	struct fit_run run;
	double *acc = NULL, best_cost = INFINITY;
	size_t k, best = 0;
	int rc, any = 0, cancelled = 0;

	*out = NULL;
	if ((rc = run_setup(&run, fp, pool, opt, Xs, nxs, err)) != HET_OK)
		goto out;
	if (run.nstarts > 1) {
		rc = het_fit_run_multistart(&run, pool, err);
		if (rc != HET_OK && rc != HET_ECANCEL)
			goto out;
	} else if (opt->cancel == NULL || !atomic_load(opt->cancel))
		het_fit_run_start(&run, 0, &run.slots[0], pool, 1, 0);
	/* Best by cost among the starts that have a point. */
	for (k = 0; k < run.nstarts; k++) {
		if (run.starts[k].status == HET_ECANCEL)
			cancelled = 1;
		if (run.starts[k].cost < best_cost) {
			best_cost = run.starts[k].cost;
			best = k;
			any = 1;
		}
	}
	if (!any && !cancelled) {
		/* Every start failed: report the first start's error. */
		if (err != NULL)
			*err = run.serr[0];
		rc = run.serr[0].code != HET_OK ? run.serr[0].code :
		    HET_EINTERNAL;
		goto out;
	}
	/* A cancel (also one that came after the last iteration) gets the
	   brief report: no p x p normal matrix, no eigen-analysis. */
	if (run.starts[best].reason == HET_NLSQ_CANCELLED ||
	    (opt->cancel != NULL && atomic_load(opt->cancel)))
		cancelled = 1;
	/* The chosen point once more, on the whole pool, uncancellable
	   (one pass), so that cost, sums and covariance belong to x. */
	if ((acc = het_alloc_array(cancelled ? (size_t)2 :
	    het_nlsq_acc_len(fp->p), sizeof(double), "fit", err)) == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	run.slots[0].fe.pool = pool;
	run.slots[0].fe.cancel = NULL;
	run.slots[0].fe.spec_valid = 0;	/* a fresh pass at x */
	if (cancelled) {
		if ((rc = het_fit_eval_pass(&run.slots[0].fe,
		    run.starts[best].x,
		    FIT_COST, err)) != HET_OK)
			goto out;
		het_fit_expand(fp, run.slots[0].fe.cacc, 0, acc);
	} else if ((rc = report_pass(&run.slots[0].fe, run.starts[best].x,
	    acc, err)) != HET_OK)
		goto out;
	if ((rc = het_fit_make_result(&run, best, acc, &cancelled, t0, out,
	    err)) != HET_OK)
		goto out;
	rc = cancelled ? HET_ECANCEL : HET_OK;
	if (rc == HET_ECANCEL)
		het_error_set(err, HET_ECANCEL, "fit: cancelled; the result "
		    "holds the last accepted point of each start");
out:
	free(acc);
	run_fini(&run);
	return rc;
}

static int
full_vectors(const struct het_resid *r, const double *x0, const double *lo,
    const double *hi, double **X0, double **L, double **H,
    struct het_error *err)
{
	size_t P = het_resid_nparams(r);

	*X0 = het_alloc_array(P, sizeof(double), "fit", err);
	*L = het_alloc_array(P, sizeof(double), "fit", err);
	*H = het_alloc_array(P, sizeof(double), "fit", err);
	if (P > 0 && (*X0 == NULL || *L == NULL || *H == NULL))
		return HET_ENOMEM;
	if (x0 != NULL)
		memcpy(*X0, x0, P * sizeof(double));
	else
		het_resid_x0(r, *X0);
	het_resid_bounds(r, *L, *H);
	if (lo != NULL)
		memcpy(*L, lo, P * sizeof(double));
	if (hi != NULL)
		memcpy(*H, hi, P * sizeof(double));
	return HET_OK;
}

/*
 * The early-window pre-fit (het_fit.h, window_frames): refines the
 * start X0 (full layout) in place; sets *wf and *wi when it ran.
 */
static void
window_stage(struct het_pool *pool, const struct het_resid *r, double *X0,
    const double *L, const double *H, const struct het_fit_options *opt,
    long *wf, long *wi)
{
	const struct het_pair *pr = het_resid_pairs(r);
	struct het_fit_options o = *opt;
	struct het_fit_result *res = NULL;
	struct fit_prob fw;
	struct het_error e;
	size_t k, n = het_resid_ndata(r), nfr = 0, w, c;

	*wf = *wi = 0;
	if (opt->window_frames < 0)
		return;
	for (k = 0; k < n; k++)
		if (pr[k].j + (size_t)1 > nfr)
			nfr = pr[k].j + (size_t)1;
	w = opt->window_frames > 0 ? (size_t)opt->window_frames :
	    nfr >= 2 * (size_t)HET_FIT_WINDOW ? HET_FIT_WINDOW : 0;
	if (w == 0 || w >= nfr)
		return;
	o.pair_kernel = 1;	/* no copy of all the data: the window's */
	if (het_fit_prob_init(&fw, r, -1, X0, L, H, &o, &e) != HET_OK)
		return;
	o.pair_kernel = opt->pair_kernel;
	if (het_fit_prob_window(&fw, w, &e) == HET_OK) {
		het_fit_sep_prob_window(&fw, r, &o, w);
		o.nlsq.multistart = 0;
		if (het_fit_problem(pool, &fw, &o, NULL, 0, het_clock_now(),
		    &res,
		    &e) == HET_OK || res != NULL) {
			for (c = 0; c < fw.p; c++)
				X0[fw.rcol[c]] = res->x[c];
			*wf = (long)w;
			*wi = res->iterations;
		}
		het_fit_result_free(res);
	}
	het_fit_prob_fini(&fw);
}

int
het_fit_run(struct het_pool *pool, const struct het_resid *r,
    const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_fit_result **out,
    struct het_error *err)
{
	struct fit_prob fp;
	double *X0 = NULL, *L = NULL, *H = NULL, *Xs = NULL, t0 = het_clock_now();
	long wf = 0, wi = 0;
	int rc;

	*out = NULL;
	if (r == NULL || opt == NULL)
		return het_error_set(err, HET_EINVAL, "fit: a problem and "
		    "options are required");
	if ((rc = full_vectors(r, x0, lo, hi, &X0, &L, &H, err)) == HET_OK &&
	    (Xs = het_alloc_array(het_resid_nparams(r) + 1, sizeof(double),
	    "fit", err)) == NULL)
		rc = HET_ENOMEM;
	if (rc == HET_OK) {
		memcpy(Xs, X0, het_resid_nparams(r) * sizeof(double));
		/* A pre-fit that fails (bad start, too few pairs) is skipped;
		   the fit proper then reports the problem. */
		window_stage(pool, r, X0, L, H, opt, &wf, &wi);
		if ((rc = het_fit_prob_init(&fp, r, -1, X0, L, H, opt, err)) ==
		    HET_OK) {
			rc = het_fit_problem(pool, &fp, opt, NULL, 0, t0, out,
			    err);
			if (rc == HET_OK)
				rc = het_fit_floor_restart(pool, &fp, Xs, X0, L,
				    H, opt, out, err);
			/* Cancelled during a floor restart: no escape. */
			if (rc == HET_OK && opt->cancel != NULL &&
			    atomic_load(opt->cancel))
				rc = het_error_set(err, HET_ECANCEL, "fit: "
				    "cancelled after the fit, during its "
				    "restart off a floor of the model; the "
				    "result is the fit before it");
			if (rc == HET_OK && opt->basin >= 0)	/* basin */
				rc = het_fit_basin(pool, &fp, opt, out, err);
			het_fit_prob_fini(&fp);
		}
		if (*out != NULL) {
			(*out)->window_frames = wf;
			(*out)->window_iterations = wi;
			(*out)->wall_time = het_clock_now() - t0;
		}
	}
	free(X0);
	free(Xs);
	free(L);
	free(H);
	return rc;
}

int
het_fit_run_per_angle(struct het_pool *pool, const struct het_resid *r,
    const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_fit_result ***out,
    size_t *nout, struct het_error *err)
{
	struct het_fit_options o;
	struct het_fit_result **res = NULL;
	struct fit_prob fp;
	double *X0 = NULL, *L = NULL, *H = NULL, sig;
	size_t a, na;
	int rc, cancelled = 0;

	*out = NULL;
	*nout = 0;
	if (r == NULL || opt == NULL)
		return het_error_set(err, HET_EINVAL, "fit: a problem and "
		    "options are required");
	na = het_scaling_nangles(het_resid_scaling(r));
	if ((rc = full_vectors(r, x0, lo, hi, &X0, &L, &H, err)) != HET_OK)
		goto fail;
	if ((res = het_alloc_array(na, sizeof(*res), "fit", err)) == NULL) {
		rc = HET_ENOMEM;
		goto fail;
	}
	for (a = 0; a < na; a++) {
		if (opt->cancel != NULL && atomic_load(opt->cancel)) {
			cancelled = 1;
			break;
		}
		/* Each angle restarts from x0 and uses its own sigma. */
		o = *opt;
		if (opt->noise_sigma_angle != NULL) {
			sig = opt->noise_sigma_angle[a];
			o.noise_sigma_angle = NULL;
			o.noise_sigma = sig;
			o.noise_count_angle = NULL;
			o.noise_count = opt->noise_count_angle != NULL ?
			    opt->noise_count_angle[a] : 0;
			if (!(sig > 0) || !isfinite(sig)) {
				rc = het_error_set(err, HET_EINVAL, "fit: the "
				    "noise sigma of angle %zu is %g; it must "
				    "be a finite number > 0", a, sig);
				goto fail;
			}
		}
		if ((rc = het_fit_prob_init(&fp, r, (long)a, X0, L, H, &o,
		    err)) != HET_OK)
			goto fail;
		rc = het_fit_problem(pool, &fp, &o, NULL, 0, het_clock_now(),
		    &res[a],
		    err);
		if (rc == HET_OK)
			rc = het_fit_floor_restart(pool, &fp, X0, X0, L, H, &o,
			    &res[a], err);
		het_fit_prob_fini(&fp);
		if (rc == HET_ECANCEL) {
			cancelled = 1;
			break;
		}
		if (rc != HET_OK) {
			het_error_prefix(err, "angle %zu", a);
			goto fail;
		}
	}
	free(X0);
	free(L);
	free(H);
	*out = res;
	*nout = na;
	if (cancelled)
		return het_error_set(err, HET_ECANCEL, "fit: cancelled at "
		    "angle %zu of %zu", a, na);
	return HET_OK;
fail:
	het_fit_results_free(res, na);
	free(X0);
	free(L);
	free(H);
	return rc;
}
