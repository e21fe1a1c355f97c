/*
 * het_fit_sep.c: the normal equations of a fit from the separable form
 * of its model (core/fit's het_separable_normal) instead of a pooled
 * pass over the pairs.
 *
 * Design.  A problem qualifies when its loss is linear, its model has a
 * separable form, its weights are equal and every angle it fits has
 * every pair i < j (het_separable_alloc_angle refuses the rest, and an
 * incomplete angle is checked here).  The problem then owns the data
 * (one copy of its pairs, centred per angle); each evaluation, one per
 * multistart slot, reads them through its own view, so concurrent
 * starts share the data.  A pass fills the compact accumulator exactly
 * where the chunk function would (het_fit_impl.h's layout, per mode),
 * so variable projection, speculation and het_fit_expand run unchanged
 * on top.  The early-window pre-fit gets the data of its window alone
 * (het_fit_sep_prob_window: the pairs of the first W frames).  The
 * report's final pass is a fresh separable pass unless the point has
 * pairs inside a run of a floored rate, whose matrix entries the
 * separable sums leave approximate (het_separable_exact): that pass and
 * the report's probes then go over the pairs (fe->pairs).  A pass on
 * the pool spreads the angles over its workers, one view each (a
 * multistart slot on a pool thread runs its angles itself).  A point
 * too steep for the separable sums (HET_ERANGE from the core) is taken
 * over the pairs by het_fit_eval_pass.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_util.h"

void
het_fit_sep_prob(struct fit_prob *fp, const struct het_resid *r,
    const struct het_fit_options *opt)
{
	fp->sep = NULL;
	if (opt->pair_kernel || fp->loss != HET_LOSS_LINEAR)
		return;
	fp->sep = het_separable_alloc_angle(r, fp->angle, NULL);
	if (fp->sep != NULL && !het_separable_complete(fp->sep, fp->angle)) {
		het_separable_free(fp->sep);
		fp->sep = NULL;
	}
}

int
het_fit_sep_eval_init(struct fit_eval *fe, struct het_error *err)
{
	const struct fit_prob *fp = fe->fp;
	size_t k;

	if (fp->sep == NULL)
		return HET_OK;
	if ((fe->sepv = calloc(fe->nwk, sizeof(*fe->sepv))) == NULL ||
	    (fe->sepfix = calloc(fe->nwk, 1)) == NULL ||
	    (fe->sepout = het_alloc_array(fp->na *
	    het_separable_normal_len(fp->nfp), sizeof(double), "fit",
	    err)) == NULL)
		return het_error_set(err, HET_ENOMEM, "fit: out of memory for "
		    "the separable sums");
	for (k = 0; k < fe->nwk; k++)
		if ((fe->sepv[k] = het_separable_view(fp->sep, err)) == NULL)
			return HET_ENOMEM;
	return HET_OK;
}

void
het_fit_sep_eval_fini(struct fit_eval *fe)
{
	size_t k;

	for (k = 0; fe->sepv != NULL && k < fe->nwk; k++)
		het_separable_free(fe->sepv[k]);
	free(fe->sepv);
	free(fe->sepfix);
	free(fe->sepout);
	fe->sepv = NULL;
	fe->sepfix = NULL;
	fe->sepout = NULL;
}

void
het_fit_sep_prob_window(struct fit_prob *fp, const struct het_resid *r,
    const struct het_fit_options *opt, size_t w)
{
	het_separable_free(fp->sep);
	fp->sep = NULL;
	if (opt->pair_kernel || fp->loss != HET_LOSS_LINEAR)
		return;
	fp->sep = het_separable_alloc_window(r, fp->angle, w, NULL);
	if (fp->sep != NULL && !het_separable_complete(fp->sep, fp->angle)) {
		het_separable_free(fp->sep);
		fp->sep = NULL;
	}
}

int
het_fit_sep_wanted(const struct fit_eval *fe)
{
	return fe->sepv != NULL && !fe->pairs;
}

int
het_fit_sep_exact(const struct fit_eval *fe)
{
	size_t c;

	for (c = 0; fe->sepv != NULL && c < fe->nsepc; c++)
		if (fe->sepfix[c])
			return 0;
	return 1;
}

/* Chunk c of a pass: its share of the angles on the worker's view. */
static int
sep_chunk(void *ctx, size_t c, size_t worker, struct het_error *err)
{
	struct fit_eval *fe = ctx;
	const struct fit_prob *fp = fe->fp;
	struct het_separable *v = fe->sepv[worker];
	size_t a0, a1;
	int rc;

	if (fp->angle >= 0) {
		a0 = (size_t)fp->angle;
		a1 = a0 + 1;
	} else {
		a0 = c * fp->na / fe->nsepc;
		a1 = (c + 1) * fp->na / fe->nsepc;
	}
	rc = het_separable_normal_range(v, fe->ev, a0, a1, fe->sepfull,
	    fe->sepout, err);
	fe->sepfix[c] = !het_separable_exact(v);
	return rc;
}

/* Angle a's physics entries into the compact sums (FIT_FULL(_PA)). */
static void
put_physics(const struct fit_prob *fp, const double *o, int pa, double *ca,
    size_t a)
{
	const double *gp = o + HET_SEPN_HEAD, *J = gp + 3 * fp->nfp;
	double *b = ca + fp->off_ang + a * fp->astride, *g, *M;
	size_t i, nf = fp->nfp;

	for (i = 0; i < nf; i++) {
		b[5 + i] = gp[nf + i];
		b[5 + nf + i] = gp[2 * nf + i];
	}
	if (pa) {
		M = ca + fp->off_pa + a * fp->pastride;
		g = M + nf * nf;
	} else {
		M = ca + fp->off_jtj;
		g = ca + fp->off_g;
	}
	for (i = 0; i < nf; i++)
		g[i] += gp[i];
	for (i = 0; i < nf * nf; i++)
		M[i] += J[i];
}

int
het_fit_sep_pass(struct fit_eval *fe, enum fit_mode mode,
    struct het_error *err)
{
	const struct fit_prob *fp = fe->fp;
	size_t len = het_separable_normal_len(fp->nfp), a, clen;
	int full = mode == FIT_FULL || mode == FIT_FULL_PA, rc;
	double *ca = fe->cacc, *b;
	const double *o;

	/* Angles spread over the pool's workers, each angle's sums made by
	   one view alone: the same numbers with any thread count. */
	fe->nsepc = fp->angle >= 0 || fe->pool == NULL ? 1 :
	    fe->nwk < fp->na ? fe->nwk : fp->na;
	fe->sepfull = full;
	memset(fe->sepout, 0, fp->na * len * sizeof(double));
	if ((rc = het_pool_run(fe->nsepc > 1 ? fe->pool : NULL, fe->nsepc,
	    sep_chunk, fe, NULL, NULL, err)) != HET_OK) {
		fe->nsepc = 0;	/* no separable pass: nothing inexact */
		return rc;
	}
	clen = mode == FIT_COST ? fp->clen_cost : mode == FIT_FULL_PA ?
	    fp->clen_pa : fp->clen;
	memset(ca, 0, clen * sizeof(double));
	for (a = 0; a < fp->na; a++) {
		o = fe->sepout + a * len;
		ca[0] += 0.5 * o[HET_SEPN_SS];
		ca[1 + a] = o[HET_SEPN_SS];
		if (mode == FIT_COST)
			continue;
		b = ca + fp->off_ang + a * fp->astride;
		b[0] = o[HET_SEPN_CC];
		b[1] = o[HET_SEPN_CO];
		b[2] = o[HET_SEPN_OO];
		b[3] = o[HET_SEPN_GC];
		b[4] = o[HET_SEPN_GO];
		if (full && fp->nfp > 0)
			put_physics(fp, o, mode == FIT_FULL_PA, ca, a);
	}
	return HET_OK;
}
