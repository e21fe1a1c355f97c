/*
 * het_sample_work.c: the background phases of the sampling pipeline
 * before the coordinator runs: reading the data, NLSQ (fit or load), and
 * preparing the shards (noise sigma, priors, plan, payloads).  The
 * phases after it are in het_sample_post.c.
 *
 * Design: each phase runs on the pipeline's background thread, writes
 * only its own fields of struct het_sample (het_sample_impl.h) and
 * reports progress under the mutex.  Cancellation is the atomic flag
 * s->cancel, read by the problem's progress callback and by het_fit.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "het_config_bridge.h"
#include "het_dataset.h"
#include "het_memory.h"
#include "het_pool.h"
#include "het_sample_impl.h"
#include "het_util.h"
#include "het_wire_shard.h"

/* ---- READING ------------------------------------------------------------- */

static int
hs_read_progress(void *arg, size_t k, size_t n, const struct het_bin *bin)
{
	struct het_sample *s = arg;

	pthread_mutex_lock(&s->mu);
	s->prog.bins_read = k + 1;
	s->prog.bins_total = n;
	pthread_mutex_unlock(&s->mu);
	if (s->o.read_progress != NULL)
		s->o.read_progress(s->o.progress_arg, k, n, bin);
	return atomic_load(&s->cancel);
}

/* Whether directories a and b are the same (both exist). */
static int
hs_same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * The output directory holds the checkpoint of a run that was stopped
 * before writing its results: hours of shards, replaced as soon as this
 * run's first shard finishes.  Refused (the CLI) unless this run resumes
 * it, or reported (the TUI: replace_checkpoint).
 */
static int
hs_check_checkpoint(struct het_sample *s, struct het_error *err)
{
	const char *d = s->out_dir;

	if (!het_results_checkpoint_pending(d) || (s->resume_dir != NULL &&
	    hs_same_dir(d, s->resume_dir)))
		return HET_OK;
	if (s->o.replace_checkpoint) {
		het_hs_warn(s, "%s/%s holds the finished shards of a run that "
		    "stopped before writing its results; this run replaces "
		    "it when its first shard finishes ('hetui sample --resume "
		    "%s' would continue that run instead)", d,
		    HET_RESULTS_CHECKPOINT, d);
		return HET_OK;
	}
	return het_error_set(err, HET_EINVAL, "%s/%s holds the finished "
	    "shards of a run that stopped before writing its results, and "
	    "this run would replace them: continue that run with --resume "
	    "%s, or write this one elsewhere with -o DIR, or remove the file "
	    "to start afresh", d, HET_RESULTS_CHECKPOINT, d);
}

int
het_hs_read(struct het_sample *s, struct het_error *err)
{
	struct het_problem_opts po;
	struct het_dataset *ds;
	char *path;
	size_t k;
	int rc;

	if ((rc = hs_check_checkpoint(s, err)) != HET_OK)
		return rc;
	if ((path = het_problem_data_path(s->cfg, s->data_path, err)) == NULL)
		return err->code;
	if ((ds = het_problem_dataset_open(s->cfg, path, s->o.dt, err)) ==
	    NULL) {
		free(path);
		return err->code;
	}
	memset(&po, 0, sizeof(po));
	po.dt = s->o.dt;
	po.progress = hs_read_progress;
	po.progress_arg = s;
	po.mem_available = het_memory_available(
	    getenv("HETUI_MEMORY_AVAILABLE"));
	s->pb = het_problem_build(s->cfg, ds, &po, err);
	het_dataset_close(ds);
	free(path);
	if (s->pb == NULL)
		return err->code;
	for (k = 0; k < s->pb->nwarnings; k++)
		het_hs_warn(s, "%s", s->pb->warnings[k]);
	return HET_OK;
}

/* ---- NLSQ ---------------------------------------------------------------- */

static void
hs_fit_progress(void *ctx, const struct het_fit_progress *pr)
{
	struct het_sample *s = ctx;

	pthread_mutex_lock(&s->mu);
	s->prog.nlsq_iter = pr->iter;
	s->prog.nlsq_nfev = pr->nfev;
	s->prog.nlsq_cost = pr->cost;
	s->prog.nlsq_chi2_red = pr->chi2_red;
	pthread_mutex_unlock(&s->mu);
	if (s->o.nlsq_progress != NULL)
		s->o.nlsq_progress(s->o.progress_arg, pr);
}

/* Fit the problem as `hetui fit` does (joint, the config's options). */
static int
hs_fit(struct het_sample *s, struct het_error *err)
{
	const struct het_problem *pb = s->pb;
	struct het_fit_options opt;
	struct het_pool *pool;
	double *xs, *sig;
	size_t k, any = 0;
	long col;
	int rc;

	het_fit_default_options(&opt);
	opt.nlsq = s->cfg->nlsq;
	xs = het_alloc_array(pb->p > 0 ? pb->p : 1, sizeof(double), "x_scale",
	    err);
	sig = het_alloc_array(pb->nangles, sizeof(double), "sigma", err);
	if (xs == NULL || sig == NULL) {
		free(xs);
		free(sig);
		return HET_ENOMEM;
	}
	for (k = 0; k < pb->nphys; k++)
		if ((col = het_resid_phys_col(pb->resid, k)) >= 0 &&
		    s->cfg->phys[k].x_scale > 0) {
			xs[col] = s->cfg->phys[k].x_scale;
			any++;
		}
	opt.x_scale = any > 0 ? xs : NULL;
	if (isfinite(pb->sigma) && pb->sigma > 0) {
		opt.noise_sigma = pb->sigma;
		for (k = 0; k < pb->nangles; k++)
			sig[k] = isfinite(pb->sigma_angle[k]) &&
			    pb->sigma_angle[k] > 0 ? pb->sigma_angle[k] :
			    pb->sigma;
		opt.noise_sigma_angle = sig;
		opt.noise_count_angle = pb->noise_count;
	}
	opt.cancel = &s->cancel;
	opt.progress = hs_fit_progress;
	opt.progress_ctx = s;
	rc = HET_OK;
	if ((pool = het_pool_alloc((size_t)s->o.threads, err)) == NULL)
		rc = err->code;
	else
		rc = het_fit_run(pool, pb->resid, pb->x0, pb->lo, pb->hi, &opt,
		    &s->fit, err);
	het_pool_free(pool);
	free(xs);
	free(sig);
	if (rc == HET_ECANCEL)
		return het_error_set(err, HET_ECANCEL, "cancelled during the "
		    "NLSQ fit");
	if (rc != HET_OK)
		return het_error_prefix(err, "NLSQ");
	for (k = 0; k < s->fit->nwarnings; k++)
		het_hs_warn(s, "NLSQ: %s", s->fit->warnings[k]);
	if (!s->fit->converged)
		het_hs_warn(s,
		    "NLSQ did not converge (%s); CMC starts from its "
		    "last point", het_nlsq_reason_name(s->fit->reason));
	return HET_OK;
}

/* "-60, -35, ... (8)" into buf: a list of angles for messages. */
static void
hs_phi_list(const double *phi, size_t n, char *buf, size_t len)
{
	size_t k, o = 0;

	buf[0] = '\0';
	for (k = 0; k < n && o + 16 < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%g", k ? ", " : "",
		    phi[k]);
	if (k < n)
		snprintf(buf + o, len - o, ", ...");
}

/*
 * A result fitted on other angles or frames than this run's.  Per-angle
 * contrast and offset are matched by position (contrast[k] is the k-th
 * selected angle), so with other angles they would start at, and centre
 * their priors on, another angle's values: refused.  Other frames only
 * move the start and the prior centres: a warning.
 */
static int
hs_load_check(struct het_sample *s, const char *opt, struct het_error *err)
{
	const struct het_problem *pb = s->pb;
	const struct het_results_nlsq *ld = &s->loaded;
	char was[256], now[256];
	size_t k;
	int same = ld->nphi == pb->nangles, per_angle = 0;

	/* 0.01 degree: the same geometry written by another program */
	for (k = 0; same && k < ld->nphi; k++)
		same = fabs(ld->phi[k] - pb->phi[k]) <= 0.01;
	for (k = 0; k < pb->p; k++)
		per_angle |= strchr(het_resid_param_name(pb->resid, k), '[') !=
		    NULL;
	if (ld->nphi > 0 && !same) {
		hs_phi_list(ld->phi, ld->nphi, was, sizeof(was));
		hs_phi_list(pb->phi, pb->nangles, now, sizeof(now));
		if (per_angle)
			return het_error_set(err, HET_EINVAL, "%s: %s was "
			    "fitted on the angles %s but this run selects %s, "
			    "and per-angle contrast and offset are matched by "
			    "position; %s", opt, ld->source, was, now,
			    s->nlsq_from_resume ? "resume with the "
			    "configuration of the run in that folder, or start "
			    "a new run" : "run 'hetui fit' with this config "
			    "again, or select the same angles");
		het_hs_warn(s, "%s: %s was fitted on the angles %s, this run "
		    "uses %s", opt, ld->source, was, now);
	}
	if (ld->first_frame > 0 && ld->last_frame > 0 &&
	    (ld->first_frame != pb->first_frame ||
	    ld->last_frame != pb->last_frame))
		het_hs_warn(s, "%s: %s was fitted on frames %ld-%ld, this run "
		    "uses %ld-%ld; its values are only the start and the "
		    "prior centres (run 'hetui fit' again for a fit of these "
		    "frames)", opt, ld->source, ld->first_frame,
		    ld->last_frame, pb->first_frame, pb->last_frame);
	return HET_OK;
}

/* Load a previous result and match it to the problem by name. */
static int
hs_load(struct het_sample *s, struct het_error *err)
{
	const struct het_problem *pb = s->pb;
	struct het_results_nlsq *ld = &s->loaded;
	const char *name, *opt = s->nlsq_from_resume ? "--resume" :
	    "--nlsq-result";
	size_t k, j;
	int rc;

	/* resuming: the NLSQ result the run used, from its /fit group */
	rc = s->nlsq_from_resume ? het_results_load_nlsq_h5(s->nlsq_dir, ld,
	    err) : het_results_load_nlsq(s->nlsq_dir, ld, err);
	if (rc != HET_OK)
		return het_error_prefix(err, "%s", opt);
	for (k = 0; k < pb->p; k++) {
		name = het_resid_param_name(pb->resid, k);
		for (j = 0; j < ld->p && strcmp(ld->names[j], name) != 0; j++)
			;
		if (j == ld->p)
			return het_error_set(err, HET_EINVAL, "%s: "
			    "%s has no value for the free parameter %s; it "
			    "was fitted with another mode, vary flags or "
			    "per_angle_mode: run 'hetui fit' with this config "
			    "again", opt, ld->source, name);
		s->nx[k] = ld->x[j];
		s->nsd[k] = ld->unc[j];
	}
	if (ld->p != pb->p)
		het_hs_warn(s, "%s: %s has %zu parameters, the problem "
		    "%zu free ones; the extra ones are ignored", opt,
		    ld->source, ld->p, pb->p);
	if (ld->converged == 0)
		het_hs_warn(s, "%s: the NLSQ fit in %s did not converge", opt,
		    ld->source);
	if (ld->unc_computed == 0)
		het_hs_warn(s,
		    "%s: the NLSQ fit in %s was cancelled before its "
		    "uncertainties were computed, so each NLSQ-informed prior "
		    "is 10 %% of its parameter's range wide; run the fit to "
		    "its end for priors the data set", opt, ld->source);
	return hs_load_check(s, opt, err);
}

int
het_hs_nlsq(struct het_sample *s, struct het_error *err)
{
	const struct het_problem *pb = s->pb;
	size_t k;
	int rc;

	s->nx = het_alloc_array(pb->p, sizeof(double), "NLSQ values", err);
	s->nsd = het_alloc_array(pb->p, sizeof(double), "NLSQ errors", err);
	s->nnames = het_alloc_array(pb->p, sizeof(char *), "names", err);
	if (s->nx == NULL || s->nsd == NULL || s->nnames == NULL)
		return HET_ENOMEM;
	for (k = 0; k < pb->p; k++)
		s->nnames[k] = het_resid_param_name(pb->resid, k);
	memset(&s->nlsq, 0, sizeof(s->nlsq));
	/* --resume: the earlier run's shards first, to fail early */
	if (s->resume_dir != NULL && (rc = het_results_load_cmc(s->resume_dir,
	    &s->prev, err)) != HET_OK)
		return het_error_prefix(err, "--resume");
	if (s->nlsq_dir != NULL) {
		if ((rc = hs_load(s, err)) != HET_OK)
			return rc;
		s->nlsq.chi2_red = s->loaded.chi2_red;
		s->nlsq.converged = s->loaded.converged != 0;
		s->nlsq.loaded = 1;
		s->nlsq.source = s->loaded.source;
	} else {
		if ((rc = hs_fit(s, err)) != HET_OK)
			return rc;
		memcpy(s->nx, s->fit->x, pb->p * sizeof(double));
		memcpy(s->nsd, s->fit->unc, pb->p * sizeof(double));
		s->nlsq.chi2_red = s->fit->chi2_red;
		s->nlsq.converged = s->fit->converged;
		s->nlsq.source = "fit";
		s->nlsq.fit = s->fit;
	}
	s->nlsq.p = pb->p;
	s->nlsq.names = s->nnames;
	s->nlsq.x = s->nx;
	s->nlsq.sd = s->nsd;
	return HET_OK;
}

/* ---- PREPARING ----------------------------------------------------------- */

/* RMS of the residuals at the NLSQ point, NAN on failure. */
static double
hs_resid_rms(const struct het_problem *pb, const double *x)
{
	struct het_resid_eval *ev;
	struct het_resid_scratch *scr;
	struct het_error e;
	double r[256], ss = 0;
	size_t k, n;

	ev = het_resid_eval_alloc(pb->resid, &e);
	scr = het_resid_scratch_alloc(pb->resid, 256, &e);
	if (ev == NULL || scr == NULL || het_resid_prepare(ev, x, 0, &e) !=
	    HET_OK) {
		het_resid_scratch_free(scr);
		het_resid_eval_free(ev);
		return NAN;
	}
	for (k = 0; k < pb->npairs; k += n) {
		size_t i;

		n = pb->npairs - k < 256 ? pb->npairs - k : 256;
		het_resid_eval_rows(ev, scr, k, n, r, NULL);
		for (i = 0; i < n; i++)
			ss += r[i] * r[i];
	}
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
	return pb->npairs > 0 ? sqrt(ss / (double)pb->npairs) : NAN;
}

static int
hs_sigma(struct het_sample *s, struct het_error *err)
{
	const struct het_problem *pb = s->pb;
	enum het_config_sigma m = s->cfg->cmc.sigma;
	double rms;

	if (m == HET_SIGMA_MAD)
		het_hs_warn(s,
		    "optimization.cmc.sigma_method mad: hetui does not "
		    "sample the noise; the far-lag noise estimate is used");
	if (m != HET_SIGMA_RESIDUAL && isfinite(pb->sigma) && pb->sigma > 0) {
		s->sigma = pb->sigma;
		s->sigma_source = "far-lag estimate";
		return HET_OK;
	}
	rms = hs_resid_rms(pb, s->nx);
	if (m != HET_SIGMA_RESIDUAL)
		het_hs_warn(s,
		    "the far-lag noise estimate is not available (too "
		    "few frames); sigma is the RMS of the NLSQ residuals");
	if (!isfinite(rms) || rms <= 0)
		return het_error_set(err, HET_EDATA, "no usable noise sigma: "
		    "the RMS of the NLSQ residuals is %g; check the data and "
		    "the fit", rms);
	s->sigma = rms;
	s->sigma_source = "NLSQ residual RMS";
	return HET_OK;
}

/* The scaling spec of the problem (as het_problem builds it). */
static void
hs_scaling_spec(const struct het_sample *s, struct het_scaling_spec *sp)
{
	const struct het_config_scaling *sc = &s->cfg->scaling;
	const struct het_problem *pb = s->pb;

	het_scaling_default_spec(sp, s->cfg->family, pb->scaling_mode,
	    pb->nangles, pb->phi);
	sp->fourier_order = (int)sc->fourier_order;
	sp->contrast_value = sc->p[HET_S_CONTRAST].value;
	sp->contrast_lo = sc->p[HET_S_CONTRAST].lo;
	sp->contrast_hi = sc->p[HET_S_CONTRAST].hi;
	sp->offset_value = sc->p[HET_S_OFFSET].value;
	sp->offset_lo = sc->p[HET_S_OFFSET].lo;
	sp->offset_hi = sc->p[HET_S_OFFSET].hi;
}

/* x strictly inside [lo, hi]. */
static double
hs_inside(double x, double lo, double hi)
{
	double eps;

	if (isfinite(lo) && isfinite(hi)) {
		eps = 1e-6 * (hi - lo);
		return fmin(fmax(x, lo + eps), hi - eps);
	}
	if (isfinite(lo) && x <= lo)
		return lo + 1e-6 * fmax(fabs(lo), 1.0);
	if (isfinite(hi) && x >= hi)
		return hi - 1e-6 * fmax(fabs(hi), 1.0);
	return x;
}

/* The digest of every shard payload, and room for reused results. */
static int
hs_digests(struct het_sample *s, struct het_error *err)
{
	size_t k, K = s->npayload;
	int rc;

	/* reuse first and cleared: het_sample_free releases its entries */
	if ((s->reuse = het_alloc_array(K, sizeof(json_t *), "shards",
	    err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < K; k++)
		s->reuse[k] = NULL;
	s->digest = het_alloc_array(K, sizeof(*s->digest), "digests", err);
	s->reuse_wall = het_alloc_array(K, sizeof(double), "shards", err);
	if (s->digest == NULL || s->reuse_wall == NULL)
		return HET_ENOMEM;
	for (k = 0; k < K; k++) {
		s->reuse_wall[k] = NAN;
		if ((rc = het_wire_shard_digest(s->payload[k], s->digest[k],
		    err)) != HET_OK)
			return het_error_prefix(err, "shard %zu", k);
	}
	return HET_OK;
}

/* Append ", id" (or "id") to the list buf of *n ids, eliding after 12. */
static void
hs_idlist(char *buf, size_t len, size_t *n, long id)
{
	size_t used = strlen(buf);

	if (*n < 12)
		snprintf(buf + used, len - used, "%s%ld", *n > 0 ? ", " : "",
		    id);
	else if (*n == 12)
		snprintf(buf + used, len - used, ", ...");
	(*n)++;
}

/*
 * The finished shards that will not be reused: refused when the results
 * would replace them (same directory), else one warning per kind.
 */
static int
hs_resume_leftovers(struct het_sample *s, const char *bad, size_t nbad,
    const char *old, size_t nold, struct het_error *err)
{
	const char *src = s->prev.source;
	static const char why[] = "sampled from other inputs (the "
	    "configuration, the data, the NLSQ result, the seed or the hetui "
	    "version changed)";
	static const char why_old[] = "written by a hetui that did not "
	    "record input digests, so they cannot be checked";

	size_t n = nbad > 0 ? nbad : nold;
	const char *it = nbad + nold == 1 ? "it" : "them";

	if (nbad + nold > 0 && hs_same_dir(s->out_dir, s->resume_dir))
		return het_error_set(err, HET_EINVAL, "--resume: finished "
		    "shard%s %s in %s %s %s%s%s%s, and this run would sample "
		    "%s again and replace %s; restore what changed, or keep "
		    "%s and write this run elsewhere with -o DIR",
		    n == 1 ? "" : "s", nbad > 0 ? bad : old, src, n == 1 ?
		    "was" : "were", nbad > 0 ? why : why_old,
		    nbad > 0 && nold > 0 ? " (and shards " : "",
		    nbad > 0 && nold > 0 ? old : "",
		    nbad > 0 && nold > 0 ? " carry no input digest)" : "",
		    it, it, it);
	if (nbad > 0)
		het_hs_warn(s, "--resume: finished shard%s %s in %s %s %s; "
		    "sampled again", nbad == 1 ? "" : "s", bad, src,
		    nbad == 1 ? "was" : "were", why);
	if (nold > 0)
		het_hs_warn(s, "--resume: finished shard%s %s in %s %s %s; "
		    "sampled again", nold == 1 ? "" : "s", old, src,
		    nold == 1 ? "was" : "were", why_old);
	return HET_OK;
}

/*
 * --resume: take the finished shards of the previous run whose digests
 * match this run's payloads; the others are refused or reported by
 * hs_resume_leftovers.  The warnings are shown when sampling starts.
 */
static int
hs_resume(struct het_sample *s, struct het_error *err)
{
	struct het_results_prev_cmc *prev = &s->prev;
	char bad[128] = "", old[128] = "";
	size_t k, K = s->npayload, nbad = 0, nold = 0, npend = s->npend;
	int rc = HET_OK;

	for (k = 0; k < prev->n && rc == HET_OK; k++) {
		struct het_results_prev_shard *ps = &prev->shard[k];
		size_t id = (size_t)ps->id;

		if (ps->digest[0] == '\0')
			hs_idlist(old, sizeof(old), &nold, ps->id);
		else if (id >= K || strcmp(ps->digest, s->digest[id]) != 0)
			hs_idlist(bad, sizeof(bad), &nbad, ps->id);
		else if (s->reuse[id] == NULL) {
			if ((s->reuse[id] = het_wire_result_pack(ps->id,
			    &ps->res, err)) == NULL)
				rc = het_error_prefix(err, "--resume: shard "
				    "%ld", ps->id);
			s->reuse_wall[id] = ps->res.wall_time;
		}
	}
	if (rc == HET_OK)
		rc = hs_resume_leftovers(s, bad, nbad, old, nold, err);
	if (rc == HET_OK && prev->n == 0)
		het_hs_warn(s, "--resume: no shard had finished in %s; every "
		    "shard is sampled", prev->source);
	s->nresume_warn = s->npend - npend;
	het_results_prev_cmc_clear(prev);
	return rc;
}

int
het_hs_prepare(struct het_sample *s, struct het_error *err)
{
	const struct het_problem *pb = s->pb;
	const struct het_config_cmc *cmc = &s->cfg->cmc;
	struct het_shard_opts so;
	struct het_wire_shard ws;
	struct het_pair *pairs = NULL;
	double *y = NULL, *x0 = NULL, *cc = NULL, *co = NULL;
	size_t k, i, K;
	int rc;

	if ((rc = hs_sigma(s, err)) != HET_OK)
		return rc;
	if (s->cfg->scaling.cmc_mode != HET_SCALING_AUTO &&
	    s->cfg->scaling.cmc_mode != pb->scaling_mode)
		het_hs_warn(s, "optimization.cmc.per_angle_mode %s is not "
		    "supported; CMC uses the NLSQ problem's %s scaling",
		    het_scaling_mode_name(s->cfg->scaling.cmc_mode),
		    het_scaling_mode_name(pb->scaling_mode));
	s->priors = het_alloc_array(pb->p, sizeof(*s->priors), "priors", err);
	x0 = het_alloc_array(pb->p, sizeof(double), "start", err);
	if (s->priors == NULL || x0 == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if ((rc = het_post_priors_from_config(s->cfg, pb->resid, s->nx,
	    s->nsd, s->priors, err)) != HET_OK)
		goto out;
	for (k = 0; k < pb->p; k++) {
		if ((rc = het_post_prior_check(&s->priors[k], s->nnames[k],
		    err)) != HET_OK)
			goto out;
		x0[k] = hs_inside(s->nx[k], s->priors[k].lo,
		    s->priors[k].hi);
	}
	het_shard_settings_default(&s->settings);
	s->settings.num_warmup = cmc->num_warmup;
	s->settings.num_samples = cmc->num_samples;
	s->settings.num_chains = cmc->num_chains;
	s->settings.target_accept = cmc->target_accept_prob;
	s->settings.max_tree_depth = (int)cmc->max_tree_depth;
	s->settings.dense_mass = cmc->dense_mass;
	s->settings.laplace = cmc->laplace_init;
	s->settings.marginalise = cmc->marginalise_scaling;
	s->settings.psis_draws = cmc->psis_draws;
	s->settings.seed = cmc->seed;
	het_shard_opts_from_cmc(cmc, pb->spec.mode, &so);
	/* no worker command: every worker is a local process */
	so.one_node = s->worker_argv == NULL && cmc->worker_command == NULL;
	if ((s->plan = het_shard_plan_alloc(pb->pairs, pb->npairs,
	    pb->nangles, &so, err)) == NULL) {
		rc = het_error_prefix(err, "optimization.cmc sharding");
		goto out;
	}
	K = s->plan->nshards;
	pairs = het_alloc_array(pb->npairs, sizeof(*pairs), "shard pairs",
	    err);
	y = het_alloc_array(pb->npairs, sizeof(double), "shard data", err);
	cc = het_alloc_array(pb->nangles, sizeof(double), "scaling", err);
	co = het_alloc_array(pb->nangles, sizeof(double), "scaling", err);
	s->payload = het_alloc_array(K, sizeof(json_t *), "payloads", err);
	if (pairs == NULL || y == NULL || cc == NULL || co == NULL ||
	    s->payload == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (i = 0; i < pb->npairs; i++) {
		pairs[i] = pb->pairs[s->plan->idx[i]];
		y[i] = pb->y[s->plan->idx[i]];
	}
	/* each shard cell by cell, angle innermost: cheaper gradients */
	for (k = 0; k < K; k++)
		if ((rc = het_shard_sort_cells(pairs + s->plan->off[k],
		    y + s->plan->off[k], het_shard_size(s->plan, k), err)) !=
		    HET_OK)
			goto out;
	memset(&ws, 0, sizeof(ws));
	ws.model = pb->spec;
	hs_scaling_spec(s, &ws.scaling);
	if (pb->scaling_mode == HET_SCALING_CONSTANT) {
		het_scaling_map(pb->scaling, NULL, cc, co);
		ws.const_contrast = cc;
		ws.const_offset = co;
	}
	ws.theta = pb->theta;
	ws.free = pb->phys_free;
	ws.nscal = pb->nscal;
	ws.s = pb->s0;
	ws.s_free = pb->s_free;
	ws.sigma = s->sigma;
	ws.np = pb->p;
	ws.priors = s->priors;
	ws.x0 = x0;
	ws.nshards = (long)K;
	ws.reparam = het_config_coords(cmc);
	ws.settings = s->settings;
	for (k = 0; k < K; k++) {
		if (atomic_load(&s->cancel)) {
			rc = het_error_set(err, HET_ECANCEL, "cancelled while "
			    "preparing the shards");
			goto out;
		}
		ws.shard = (long)k;
		ws.n = s->plan->off[k + 1] - s->plan->off[k];
		ws.pairs = pairs + s->plan->off[k];
		ws.y = y + s->plan->off[k];
		if ((s->payload[k] = het_wire_shard_pack(&ws, err)) == NULL) {
			rc = het_error_prefix(err, "shard %zu", k);
			goto out;
		}
		s->npayload = k + 1;
	}
	if ((rc = hs_digests(s, err)) == HET_OK && s->resume_dir != NULL)
		rc = hs_resume(s, err);
out:
	free(pairs);
	free(y);
	free(x0);
	free(cc);
	free(co);
	return rc;
}
