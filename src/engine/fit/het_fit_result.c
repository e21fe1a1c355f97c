/*
 * het_fit_result.c: the result of a fit: the chosen start's values, the
 * reduced chi-square, the quality report (covariance on the identifiable
 * subspace, degenerate flags, identifiable combinations, the model's
 * floors) and the driver's warnings in words; and freeing results.
 *
 * Design.  het_fit_problem (het_fit.c) evaluates the chosen point once more
 * on the pool (normal equations and per-angle sums) and hands that
 * accumulator here, so everything reported belongs to the reported x.
 * A cancelled fit gets a brief report (het_fit_result.brief): its pass
 * is cost-only and nothing of order p^2 or p^3 runs, so that a SIGTERM
 * of a fit with thousands of scaling parameters ends in seconds.
 * Warnings come in a fixed order: how the fit ended, the quality
 * report's, then the driver's other sentences and the calibrated checks.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_problem.h"
#include "het_thread.h"
#include "het_util.h"

void
het_fit_result_free(struct het_fit_result *res)
{
	size_t k;

	if (res == NULL)
		return;
	for (k = 0; res->names != NULL && k < res->p; k++)
		free(res->names[k]);
	free(res->names);
	free(res->x);
	free(res->x0);
	free(res->lo);
	free(res->hi);
	free(res->cov);
	free(res->corr);
	free(res->unc);
	free(res->degen);
	free(res->combos);
	het_nlsq_warnings_free(res->warnings, res->nwarnings);
	for (k = 0; res->starts != NULL && k < res->nstarts; k++) {
		free(res->starts[k].x0);
		free(res->starts[k].x);
	}
	free(res->starts);
	free(res);
}

void
het_fit_results_free(struct het_fit_result **res, size_t n)
{
	size_t k;

	if (res == NULL)
		return;
	for (k = 0; k < n; k++)
		het_fit_result_free(res[k]);
	free(res);
}

/*
 * The driver's own warnings.  status: 1 for the sentences about how the
 * fit ended (listed first), 0 for the rest (listed after the quality
 * warnings).
 */
static int
engine_warnings(const struct fit_run *run, struct het_fit_result *res,
    int status, struct het_error *err)
{
	const struct het_fit_options *opt = run->opt;
	double rms = sqrt(res->rss / (double)res->n);
	size_t k, nfail = 0;
	int rc = HET_OK;

#define ADD(...) do { if (rc == HET_OK) rc = het_nlsq_warning_add( \
	&res->warnings, &res->nwarnings, err, __VA_ARGS__); } while (0)
	if (status) {
		if (res->reason == HET_NLSQ_CANCELLED)
			ADD("The fit was cancelled after %ld iterations; the "
			    "values are those of the last accepted step, not "
			    "an optimum.", res->iterations);
		else if (!res->converged)
			ADD("The fit did not converge: %s Raise max_nfev or "
			    "max_iterations, or start closer to the "
			    "solution.", het_nlsq_reason_text(res->reason));
		return rc;
	}
	if (res->sigma == 0)
		ADD("No noise sigma: the data gave no far-lag noise estimate "
		    "(it needs at least %d differences per angle; a longer "
		    "frame window gives one), so the reduced chi-square is "
		    "the raw residual variance sum r^2 / dof = %.6g, and the "
		    "uncertainties are scaled by it.", HET_PROBLEM_NOISE_MIN,
		    res->chi2_red);
	if (rc == HET_OK && !res->brief)	/* a pass over the data */
		rc = het_fit_check_warnings(run, res, err);
	if (opt->nlsq.method == HET_NLSQ_LM)
		ADD("Method lm runs the same bounded trust-region "
		    "Levenberg-Marquardt iteration as trf in hetui.");
	if (opt->nlsq.loss != HET_LOSS_LINEAR && rms < 0.1 * opt->nlsq.f_scale)
		ADD("The robust loss %s acts like the linear loss here: the "
		    "residuals (RMS %.3g) are far below f_scale = %g; set "
		    "f_scale near the noise level to make it robust.",
		    het_config_loss_name(opt->nlsq.loss), rms,
		    opt->nlsq.f_scale);
	for (k = 0; k < res->nstarts; k++)
		if (res->starts[k].status != HET_OK &&
		    res->starts[k].status != HET_ECANCEL)
			nfail++;
	for (k = 0; k < res->nstarts && nfail > 0; k++)
		if (res->starts[k].status != HET_OK &&
		    res->starts[k].status != HET_ECANCEL)
			ADD("Start %zu of %zu failed: %s", k, run->nstarts,
			    run->serr[k].msg);
#undef ADD
	return rc;
}

/*
 * The report by blocks (het_nlsq_quality_blocks) of a joint fit whose
 * scaling columns have the block structure, under the option that
 * gives the solver its block path (blocks > 0, or 0 and p >=
 * HET_FIT_BLOCK_MIN); q->by_blocks says whether it was made.  A
 * converged fit's probe thresholds are part of the proof, so that the
 * report by blocks is only made when het_fit_ident_probe would find no
 * direction to probe.
 */
static int
result_quality_blocks(struct fit_run *run, const double *jtj, double s2,
    const struct het_fit_result *res, const char *const *cause,
    struct het_nlsq_quality *q, struct het_error *err)
{
	const struct fit_prob *fp = run->fp;
	int used = 0, rc;
	size_t *blk, nb;

	memset(q, 0, sizeof(*q));
	if (fp->nseg > 0 || !het_fit_blocks_wanted(fp, run->opt))
		return HET_OK;
	if ((blk = het_alloc_array(fp->ns, sizeof(size_t), "fit report",
	    err)) == NULL)
		return HET_ENOMEM;
	rc = HET_OK;
	if (het_fit_prob_blocks(fp, blk, &nb))
		rc = het_nlsq_quality_blocks(fp->p, jtj, s2, res->x, res->lo,
		    res->hi, fp->names, cause, fp->nfp, blk, nb,
		    res->converged ? HET_FIT_IDENT_WEAK_RTOL : 0.0,
		    res->converged ? HET_FIT_IDENT_WEAK_STEP : INFINITY,
		    &used, q, err);
	free(blk);
	return rc;
}

/*
 * The quality report of res (x, rss and dof filled) from the full
 * normal matrix in acc: het_nlsq_quality with the model's floor causes,
 * then, in a converged fit, the identifiability probes.  Fills q (the
 * caller finalises it) and moves cov, corr, unc and degen into res.
 */
static int
result_quality(struct fit_run *run, const double *acc,
    struct het_fit_result *res, struct het_nlsq_quality *q,
    struct het_error *err)
{
	const struct fit_prob *fp = run->fp;
	const double *J = acc + het_nlsq_acc_jtj(fp->p);
	const struct het_fit_options *opt = run->opt;
	struct het_fit_eigen_ctx ec = { opt->cancel, opt->eigen_fork_min > 0 ?
	    opt->eigen_fork_min : HET_FIT_EIGEN_FORK_MIN, opt->eigen_started,
	    opt->progress_ctx };
	const char **cause;
	double *jtj, s2;
	size_t p = fp->p, i, j;
	int rc;

	jtj = het_alloc_array(p * p, sizeof(double), "fit", err);
	if ((cause = calloc(p > 0 ? p : 1, sizeof(*cause))) == NULL ||
	    jtj == NULL) {
		free(jtj);
		free(cause);
		return het_error_set(err, HET_ENOMEM, "fit: out of memory");
	}
	for (i = 0; i < p; i++)
		for (j = i; j < p; j++)
			jtj[i * p + j] = jtj[j * p + i] = J[i * p + j];
	s2 = run->sig2 > 0 ? run->sig2 : res->rss / (double)res->dof;
	het_fit_floor_columns(fp, res->x, cause);
	rc = result_quality_blocks(run, jtj, s2, res, cause, q, err);
	if (rc == HET_OK && !q->by_blocks)
		rc = het_nlsq_quality_eig(p, jtj, s2, res->x, res->lo,
		    res->hi, fp->names, cause, het_fit_eigen, &ec, q, err);
	free(cause);
	free(jtj);
	if (rc != HET_OK || (res->converged &&
	    (rc = het_fit_ident_probe(run, res->x, q, err)) != HET_OK))
		return rc;
	res->report_blocks = q->by_blocks;
	res->cov = q->cov;
	res->corr = q->corr;
	res->unc = q->unc;
	res->degen = q->degen;
	res->rank = q->rank;
	q->cov = q->corr = q->unc = NULL;
	q->degen = NULL;
	return HET_OK;
}

/*
 * The brief report of a cancelled fit: no uncertainty computed (NaN,
 * written as null), no covariance, nothing flagged degenerate.
 */
static int
result_brief(struct het_fit_result *res, struct het_error *err)
{
	size_t i, p = res->p;

	res->unc = het_alloc_array(p, sizeof(double), "fit", err);
	res->degen = het_alloc_array(p, 1, "fit", err);
	if (res->unc == NULL || res->degen == NULL)
		return HET_ENOMEM;
	for (i = 0; i < p; i++)
		res->unc[i] = NAN;
	memset(res->degen, 0, p);
	res->rank = 0;
	res->brief = 1;
	return HET_OK;
}

/* Build the result of a finished run around start `best`. */
int
het_fit_make_result(struct fit_run *run, size_t best, const double *acc,
    int *brief, double t0, struct het_fit_result **out,
    struct het_error *err)
{
	const struct fit_prob *fp = run->fp;
	const struct het_fit_options *opt = run->opt;
	const struct het_fit_start *bs = &run->starts[best];
	struct het_fit_result *res;
	struct het_nlsq_quality q;
	const double *ca = run->slots[0].fe.cacc;
	size_t p = fp->p, i, a;
	int rc = HET_ENOMEM;

	memset(&q, 0, sizeof(q));
	if ((res = calloc(1, sizeof(*res))) == NULL)
		return het_error_set(err, HET_ENOMEM, "fit: out of memory");
	res->angle = fp->angle;
	res->p = p;
	res->n = fp->n;
	res->names = het_alloc_array(p, sizeof(char *), "fit", err);
	res->x = het_alloc_array(p, sizeof(double), "fit", err);
	res->x0 = het_alloc_array(p, sizeof(double), "fit", err);
	res->lo = het_alloc_array(p, sizeof(double), "fit", err);
	res->hi = het_alloc_array(p, sizeof(double), "fit", err);
	if (res->names == NULL || res->x == NULL || res->x0 == NULL ||
	    res->lo == NULL || res->hi == NULL)
		goto fail;
	for (i = 0; i < p; i++)
		if ((res->names[i] = het_strdup(fp->names[i], err)) == NULL)
			goto fail;
	memcpy(res->x, bs->x, p * sizeof(double));
	memcpy(res->x0, bs->x0, p * sizeof(double));
	memcpy(res->lo, fp->lo, p * sizeof(double));
	memcpy(res->hi, fp->hi, p * sizeof(double));
	res->cost = acc[HET_NLSQ_ACC_COST];
	res->rss = acc[HET_NLSQ_ACC_RSS];
	res->dof = run->dof;
	res->sigma = sqrt(run->sig2);
	if (opt->noise_sigma_angle != NULL) {
		res->chi2 = 0.0;
		for (a = 0; a < fp->na; a++)
			if (fp->npa[a] > 0)
				res->chi2 += ca[1 + a] /
				    (opt->noise_sigma_angle[a] *
				    opt->noise_sigma_angle[a]);
	} else
		res->chi2 = run->sig2 > 0 ? res->rss / run->sig2 : res->rss;
	res->chi2_red = res->chi2 / (double)res->dof;
	res->iterations = bs->iterations;
	res->nfev = bs->nfev;
	res->njev = bs->njev;
	res->npass = bs->npass;
	res->nsep = bs->nsep;
	res->reason = bs->reason;
	res->converged = het_nlsq_reason_converged(bs->reason);
	if (run->nstarts > 1)
		snprintf(res->message, sizeof(res->message), "%s (best of %zu "
		    "starts: start %zu)", het_nlsq_reason_text(bs->reason),
		    run->nstarts, best);
	else
		snprintf(res->message, sizeof(res->message), "%s",
		    het_nlsq_reason_text(bs->reason));
	if (!*brief && (rc = result_quality(run, acc, res, &q, err)) ==
	    HET_ECANCEL) {
		het_nlsq_quality_fini(&q);	/* cancelled in the report */
		*brief = 1;
	}
	if (*brief && (rc = result_brief(res, err)) != HET_OK)
		goto fail;
	if (rc != HET_OK)
		goto fail;
	res->starts = run->starts;	/* ownership moves to the result */
	res->nstarts = run->nstarts;
	res->best = best;
	run->starts = NULL;
	/* Warnings: how it ended, then quality, then the rest. */
	if ((rc = engine_warnings(run, res, 1, err)) != HET_OK)
		goto fail;
	if (*brief && (rc = het_nlsq_warning_add(&res->warnings,
	    &res->nwarnings, err, "The fit was cancelled, so its report was "
	    "cut short: the uncertainties, the covariance and the "
	    "identifiability analysis were not computed (null in "
	    "nlsq_parameters.json, a dash in the table); refit to get "
	    "them.")) != HET_OK)
		goto fail;
	for (i = 0; i < q.nwarnings; i++)
		if ((rc = het_nlsq_warning_add(&res->warnings,
		    &res->nwarnings, err, "%s", q.warnings[i])) != HET_OK)
			goto fail;
	if (!*brief) {
		q.degen = res->degen;
		rc = het_fit_ident_combos(fp, &q, res, err);
		q.degen = NULL;
	}
	het_nlsq_quality_fini(&q);
	if (rc != HET_OK || (rc = engine_warnings(run, res, 0, err)) !=
	    HET_OK)
		goto fail;
	res->wall_time = het_clock_now() - t0;
	*out = res;
	return HET_OK;
fail:
	het_nlsq_quality_fini(&q);
	het_fit_result_free(res);
	return rc;
}
