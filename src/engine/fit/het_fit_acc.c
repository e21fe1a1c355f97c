/*
 * het_fit_acc.c: the layout of a fitting problem and the pooled
 * accumulation of its normal equations.
 *
 * Design.  A chunk function evaluates HET_FIT_BLOCK pairs at a time with
 * het_resid_eval_compact, which returns the residual, the physics row
 * dr/dtheta and dcon = dr/dcontrast_a per pair; dr/doffset_a is the
 * weight w.  The robust loss scales each row (het_nlsq_loss).  The
 * physics block of J^T J is one dsyrk per block and its gradient one
 * dgemv; the contrast/offset part is kept per angle as a 2 x 2 block, a
 * physics x 2 cross block and 2 gradient entries (a few multiply-adds
 * per pair).  Every scaling mode maps (contrast_a, offset_a)
 * linearly onto its parameters (het_scaling_rows), so after the ordered
 * reduction the dense p x p matrix follows from those per-angle blocks
 * by the chain rule, once per evaluation (het_fit_expand).  The work per pair
 * is O(nfp^2) whatever the number of angles, and the reduced vector has
 * O(nfp^2 + na nfp) entries instead of p^2.
 */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_util.h"

void
het_fit_prob_fini(struct fit_prob *fp)
{
	if (fp == NULL)
		return;
	free(fp->fcol);
	free(fp->rcol);
	free(fp->xfull0);
	free(fp->x0);
	free(fp->lo);
	free(fp->hi);
	free(fp->npa);
	free(fp->aoff);
	free(fp->acol);
	free(fp->awc);
	free(fp->awo);
	free(fp->names);
	free(fp->seg_first);
	free(fp->seg_v);
	het_separable_free(fp->sep);
	memset(fp, 0, sizeof(*fp));
}

/* Find the contiguous pair range of angle a; HET_EINVAL if scattered. */
static int
angle_range(const struct fit_prob *fp, size_t ndata, size_t a,
    size_t *first, size_t *n, struct het_error *err)
{
	size_t k, f = ndata, cnt = 0, last = 0;

	for (k = 0; k < ndata; k++)
		if (fp->pairs[k].a == a) {
			if (f == ndata)
				f = k;
			last = k;
			cnt++;
		}
	if (cnt == 0)
		return het_error_set(err, HET_EINVAL, "per-angle fit: angle "
		    "%zu has no data pairs; drop it from the selection", a);
	if (last - f + 1 != cnt)
		return het_error_set(err, HET_EINVAL, "per-angle fit: the "
		    "pairs of angle %zu are not contiguous; build the pair "
		    "list angle by angle", a);
	*first = f;
	*n = cnt;
	return HET_OK;
}

/*
 * Add (column m, wc, wo) to the list of the current angle, which starts
 * at entry `start`, merging a column that is already there.
 */
static void
list_add(struct fit_prob *fp, size_t start, size_t *end, size_t m,
    double wc, double wo)
{
	size_t e;

	for (e = start; e < *end; e++)
		if (fp->acol[e] == m) {
			fp->awc[e] += wc;
			fp->awo[e] += wo;
			return;
		}
	fp->acol[*end] = m;
	fp->awc[*end] = wc;
	fp->awo[*end] = wo;
	(*end)++;
}

int
het_fit_prob_init(struct fit_prob *fp, const struct het_resid *r, long angle,
    const double *x0, const double *lo, const double *hi,
    const struct het_fit_options *opt, struct het_error *err)
{
	struct het_scaling_row cr, orow;
	size_t a, c, k, e, ndata, nscal, maxe;
	long col;
	int rc;

	memset(fp, 0, sizeof(*fp));
	fp->r = r;
	fp->sc = het_resid_scaling(r);
	fp->pairs = het_resid_pairs(r);
	fp->P = het_resid_nparams(r);
	fp->nfp = het_resid_nphys_free(r);
	fp->na = het_scaling_nangles(fp->sc);
	fp->angle = angle;
	fp->loss = opt->nlsq.loss;
	fp->f_scale = opt->nlsq.f_scale;
	ndata = het_resid_ndata(r);
	nscal = het_scaling_nparams(fp->sc);
	fp->fcol = het_alloc_array(fp->P, sizeof(long), "fit", err);
	fp->rcol = het_alloc_array(fp->P, sizeof(size_t), "fit", err);
	fp->xfull0 = het_alloc_array(fp->P, sizeof(double), "fit", err);
	fp->npa = het_alloc_array(fp->na, sizeof(size_t), "fit", err);
	fp->aoff = het_alloc_array(fp->na + 1, sizeof(size_t), "fit", err);
	if ((fp->P > 0 && (fp->fcol == NULL || fp->rcol == NULL ||
	    fp->xfull0 == NULL)) || fp->npa == NULL || fp->aoff == NULL)
		goto nomem;
	memcpy(fp->xfull0, x0, fp->P * sizeof(double));
	if (angle < 0) {
		fp->first = 0;
		fp->n = ndata;
		for (c = 0; c < fp->P; c++) {
			fp->fcol[c] = (long)c;
			fp->rcol[c] = c;
		}
		fp->p = fp->P;
	} else {
		if (nscal > 0 && !het_scaling_angle_local(fp->sc)) {
			rc = het_error_set(err, HET_EINVAL, "per-angle fit: "
			    "the %s scaling couples the angles; use "
			    "individual or constant scaling for per-angle "
			    "fits", het_scaling_mode_name(
			    het_scaling_mode_of(fp->sc)));
			goto fail;
		}
		if ((rc = angle_range(fp, ndata, (size_t)angle, &fp->first,
		    &fp->n, err)) != HET_OK)
			goto fail;
		for (c = 0; c < fp->P; c++)
			fp->fcol[c] = -1;
		for (c = 0; c < fp->nfp; c++) {
			fp->fcol[c] = (long)c;
			fp->rcol[fp->p++] = c;
		}
		/* Individual scaling: the angle's contrast and offset. */
		het_scaling_rows(fp->sc, (size_t)angle, &cr, &orow);
		for (e = 0; e < cr.n + orow.n; e++) {
			k = e < cr.n ? cr.idx[e] : orow.idx[e - cr.n];
			col = het_resid_scal_col(r, k);
			if (col < 0 || fp->fcol[col] >= 0)
				continue;
			fp->fcol[col] = (long)fp->p;
			fp->rcol[fp->p++] = (size_t)col;
		}
	}
	if (fp->p == 0 || fp->n < fp->p) {
		rc = het_error_set(err, HET_EINVAL, "fit%s: %zu data pairs "
		    "for %zu free parameters; a fit needs at least as many "
		    "pairs as parameters (and at least one parameter)",
		    angle >= 0 ? " of one angle" : "", fp->n, fp->p);
		goto fail;
	}
	fp->x0 = het_alloc_array(fp->p, sizeof(double), "fit", err);
	fp->lo = het_alloc_array(fp->p, sizeof(double), "fit", err);
	fp->hi = het_alloc_array(fp->p, sizeof(double), "fit", err);
	fp->names = het_alloc_array(fp->p, sizeof(char *), "fit", err);
	maxe = fp->na * (nscal > 0 ? nscal : 1);
	fp->acol = het_alloc_array(maxe, sizeof(size_t), "fit", err);
	fp->awc = het_alloc_array(maxe, sizeof(double), "fit", err);
	fp->awo = het_alloc_array(maxe, sizeof(double), "fit", err);
	if (fp->x0 == NULL || fp->lo == NULL || fp->hi == NULL ||
	    fp->names == NULL || fp->acol == NULL || fp->awc == NULL ||
	    fp->awo == NULL)
		goto nomem;
	for (c = 0; c < fp->p; c++) {
		fp->x0[c] = x0[fp->rcol[c]];
		fp->lo[c] = lo[fp->rcol[c]];
		fp->hi[c] = hi[fp->rcol[c]];
		fp->names[c] = het_resid_param_name(r, fp->rcol[c]);
	}
	/* Per-angle lists of fitted scaling columns and their weights. */
	e = 0;
	for (a = 0; a < fp->na; a++) {
		fp->aoff[a] = e;
		if (angle >= 0 && a != (size_t)angle)
			continue;
		het_scaling_rows(fp->sc, a, &cr, &orow);
		for (k = 0; k < cr.n; k++)
			if ((col = het_resid_scal_col(r, cr.idx[k])) >= 0 &&
			    fp->fcol[col] >= 0)
				list_add(fp, fp->aoff[a], &e,
				    (size_t)fp->fcol[col], cr.w[k], 0.0);
		for (k = 0; k < orow.n; k++)
			if ((col = het_resid_scal_col(r, orow.idx[k])) >= 0 &&
			    fp->fcol[col] >= 0)
				list_add(fp, fp->aoff[a], &e,
				    (size_t)fp->fcol[col], 0.0, orow.w[k]);
	}
	fp->aoff[fp->na] = e;
	for (k = fp->first; k < fp->first + fp->n; k++)
		fp->npa[fp->pairs[k].a]++;
	fp->chunk = opt->chunk > 0 ? opt->chunk : HET_FIT_CHUNK;
	fp->nchunks = (fp->n + fp->chunk - 1) / fp->chunk;
	fp->astride = 5 + 2 * fp->nfp;
	fp->clen_cost = 1 + fp->na;
	fp->off_g = 1 + fp->na;
	fp->off_jtj = fp->off_g + fp->nfp;
	fp->off_ang = fp->off_jtj + fp->nfp * fp->nfp;
	fp->clen = fp->off_ang + fp->na * fp->astride;
	fp->off_pa = fp->clen;
	fp->pastride = fp->nfp * fp->nfp + fp->nfp;
	fp->clen_pa = fp->off_pa + fp->na * fp->pastride;
	fp->ns = fp->p - fp->nfp;
	fp->vp = !opt->scaling_joint && fp->loss == HET_LOSS_LINEAR &&
	    fp->nfp > 0 && fp->ns > 0;
	het_fit_sep_prob(fp, r, opt);
	return HET_OK;
nomem:
	rc = HET_ENOMEM;
fail:
	het_fit_prob_fini(fp);
	return rc;
}

/* Union-find root of column c (parent array par, columns nfp ..). */
static size_t
uf_root(size_t *par, size_t c)
{
	while (par[c] != c)
		c = par[c] = par[par[c]];
	return c;
}

int
het_fit_blocks_wanted(const struct fit_prob *fp,
    const struct het_fit_options *opt)
{
	return fp->ns > 0 && (opt->blocks > 0 || (opt->blocks == 0 &&
	    fp->p >= HET_FIT_BLOCK_MIN));
}

int
het_fit_prob_blocks(const struct fit_prob *fp, size_t *blk, size_t *nb)
{
	size_t ns = fp->ns, c, a, e, r, *par, *cnt, *id;
	int ok = 1;

	*nb = 0;
	if (ns == 0)
		return 0;
	par = calloc(ns, sizeof(*par));
	cnt = calloc(ns, sizeof(*cnt));
	id = calloc(ns, sizeof(*id));
	if (par == NULL || cnt == NULL || id == NULL) {
		free(par); free(cnt); free(id);
		return 0;
	}
	for (c = 0; c < ns; c++)
		par[c] = c;
	/* An angle's scaling columns couple with each other. */
	for (a = 0; a < fp->na; a++)
		for (e = fp->aoff[a]; e + 1 < fp->aoff[a + 1]; e++)
			par[uf_root(par, fp->acol[e] - fp->nfp)] = uf_root(par,
			    fp->acol[e + 1] - fp->nfp);
	for (c = 0; c < ns; c++)
		cnt[uf_root(par, c)]++;
	for (c = 0; c < ns; c++) {
		r = uf_root(par, c);
		if (cnt[r] > HET_NLSQ_BLOCK_MAX)
			ok = 0;
		if (r == c)
			id[r] = (*nb)++;
	}
	for (c = 0; c < ns; c++)
		blk[c] = id[uf_root(par, c)];
	free(par);
	free(cnt);
	free(id);
	return ok;
}

int
het_fit_prob_window(struct fit_prob *fp, size_t w, struct het_error *err)
{
	size_t k, end = fp->first + fp->n, ns = 0, nv = 0, a, *sf, *sv;
	int in, prev = 0;

	for (k = fp->first; k < end; k++) {
		in = fp->pairs[k].j < w;
		if (in && !prev)
			ns++;
		nv += (size_t)in;
		prev = in;
	}
	if (nv < fp->p || nv == 0)
		return het_error_set(err, HET_EINVAL, "fit: %zu pairs lie in "
		    "the first %zu frames, fewer than the %zu parameters",
		    nv, w, fp->p);
	sf = het_alloc_array(ns, sizeof(size_t), "fit", err);
	sv = het_alloc_array(ns + 1, sizeof(size_t), "fit", err);
	if (sf == NULL || sv == NULL) {
		free(sf);
		free(sv);
		return HET_ENOMEM;
	}
	ns = nv = 0;
	prev = 0;
	for (a = 0; a < fp->na; a++)
		fp->npa[a] = 0;
	for (k = fp->first; k < end; k++) {
		in = fp->pairs[k].j < w;
		if (in && !prev) {
			sf[ns] = k;
			sv[ns++] = nv;
		}
		if (in) {
			nv++;
			fp->npa[fp->pairs[k].a]++;
		}
		prev = in;
	}
	sv[ns] = nv;
	free(fp->seg_first);
	free(fp->seg_v);
	/* the whole problem's data no longer fit it: the window's own are
	   het_fit_sep_prob_window's */
	het_separable_free(fp->sep);
	fp->sep = NULL;
	fp->seg_first = sf;
	fp->seg_v = sv;
	fp->nseg = ns;
	fp->n = nv;
	fp->nchunks = (nv + fp->chunk - 1) / fp->chunk;
	return HET_OK;
}

/*
 * The real pair index of pair v of the problem, and in *left how many
 * pairs follow it contiguously (up to the end of its run).
 */
static size_t
real_pair(const struct fit_prob *fp, size_t v, size_t *left)
{
	size_t lo = 0, hi, mid;

	if (fp->nseg == 0) {
		*left = fp->n - v;
		return fp->first + v;
	}
	hi = fp->nseg;		/* seg_v[lo] <= v < seg_v[hi] */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (fp->seg_v[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	*left = fp->seg_v[lo + 1] - v;
	return fp->seg_first[lo] + (v - fp->seg_v[lo]);
}

/* ------------------------------------------------------------------ */
/* Evaluation resources. */

static void
worker_fini(struct fit_worker *wk)
{
	het_resid_scratch_free(wk->scr);
	free(wk->res);
	free(wk->Jp);
	free(wk->dcon);
	free(wk->jc);
	free(wk->jo);
	free(wk->f);
	memset(wk, 0, sizeof(*wk));
}

void
het_fit_eval_fini(struct fit_eval *fe)
{
	size_t k;

	if (fe == NULL)
		return;
	for (k = 0; fe->wk != NULL && k < fe->nwk; k++)
		worker_fini(&fe->wk[k]);
	free(fe->wk);
	het_resid_eval_free(fe->ev);
	het_pool_reducer_free(fe->red_full);
	het_pool_reducer_free(fe->red_cost);
	het_pool_reducer_free(fe->red_pa);
	free(fe->spec_x);
	free(fe->spec_acc);
	free(fe->cacc);
	free(fe->xfull);
	het_fit_vp_fini(fe);
	het_fit_sep_eval_fini(fe);
	memset(fe, 0, sizeof(*fe));
}

int
het_fit_eval_init(struct fit_eval *fe, const struct fit_prob *fp, size_t nwk,
    struct het_error *err)
{
	struct fit_worker *wk;
	size_t k, B = HET_FIT_BLOCK, nf = fp->nfp > 0 ? fp->nfp : 1;

	memset(fe, 0, sizeof(*fe));
	fe->fp = fp;
	fe->nwk = nwk;
	/* Two slots per worker keep every thread busy; serial needs one. */
	if ((fe->wk = calloc(nwk, sizeof(*fe->wk))) == NULL ||
	    (fe->ev = het_resid_eval_alloc(fp->r, err)) == NULL ||
	    (fe->red_full = het_pool_reducer_alloc(fp->clen, nwk > 1 ?
	    4 * nwk : 1, err)) == NULL ||
	    (fe->red_cost = het_pool_reducer_alloc(fp->clen_cost, nwk > 1 ?
	    4 * nwk : 1, err)) == NULL ||
	    (fp->vp && (fe->red_pa = het_pool_reducer_alloc(fp->clen_pa,
	    nwk > 1 ? 4 * nwk : 1, err)) == NULL) ||
	    (fe->cacc = het_alloc_array(fp->vp ? fp->clen_pa : fp->clen,
	    sizeof(double), "fit", err)) == NULL ||
	    (fe->spec_x = het_alloc_array(fp->p, sizeof(double), "fit",
	    err)) == NULL ||
	    (fe->spec_acc = het_alloc_array(het_nlsq_acc_len(fp->p),
	    sizeof(double), "fit", err)) == NULL ||
	    (fe->xfull = het_alloc_array(fp->P, sizeof(double), "fit",
	    err)) == NULL)
		goto fail;
	for (k = 0; k < nwk; k++) {
		wk = &fe->wk[k];
		wk->scr = het_resid_scratch_alloc(fp->r, B, err);
		wk->res = het_alloc_array(B, sizeof(double), "fit", err);
		wk->Jp = het_alloc_array(B * nf, sizeof(double), "fit", err);
		wk->dcon = het_alloc_array(B, sizeof(double), "fit", err);
		wk->jc = het_alloc_array(B, sizeof(double), "fit", err);
		wk->jo = het_alloc_array(B, sizeof(double), "fit", err);
		wk->f = het_alloc_array(B, sizeof(double), "fit", err);
		if (wk->scr == NULL || wk->res == NULL || wk->Jp == NULL ||
		    wk->dcon == NULL || wk->jc == NULL || wk->jo == NULL ||
		    wk->f == NULL)
			goto fail;
	}
	if ((fp->vp && het_fit_vp_init(fe, err) != HET_OK) ||
	    het_fit_sep_eval_init(fe, err) != HET_OK)
		goto fail;
	return HET_OK;
fail:
	het_fit_eval_fini(fe);
	return het_error_set(err, HET_ENOMEM, "fit: out of memory for the "
	    "evaluation workspace");
}

/* ------------------------------------------------------------------ */
/* The chunk function: one chunk's contribution to the compact sums. */

/*
 * The per-angle sums of pair kk of the block (angle a): 2 x 2 block,
 * gradient and the physics cross terms (2 nfp multiply-adds; explicit
 * loops, since pairs may come with the angle innermost).
 */
static void
add_angle_pair(const struct fit_prob *fp, const struct fit_worker *wk,
    size_t kk, size_t a, double *partial)
{
	double *b = partial + fp->off_ang + a * fp->astride;
	double jc = wk->jc[kk], jo = wk->jo[kk], f = wk->f[kk];
	const double *row = wk->Jp + kk * fp->nfp;
	size_t i, nfp = fp->nfp;

	b[0] += jc * jc;
	b[1] += jc * jo;
	b[2] += jo * jo;
	b[3] += jc * f;
	b[4] += jo * f;
	for (i = 0; i < nfp; i++) {
		b[5 + i] += row[i] * jc;
		b[5 + nfp + i] += row[i] * jo;
	}
}

static int
chunk_fn(void *ctx, size_t chunk, size_t worker, double *partial,
    struct het_error *err)
{
	struct fit_eval *fe = ctx;
	const struct fit_prob *fp = fe->fp;
	struct fit_worker *wk = &fe->wk[worker];
	size_t v, vend, left, b, nb, kk, c, nfp = fp->nfp;
	double o[3], cost = 0.0, rr, *bb;
	int pa = fe->want_jac == FIT_FULL_PA;
	int want = fe->want_jac == FIT_FULL || pa;
	int vpc = fe->want_jac == FIT_VP_COST;
	size_t r0, r1;

	(void)err;
	v = chunk * fp->chunk;
	vend = v + fp->chunk < fp->n ? v + fp->chunk : fp->n;
	for (; v < vend; v += nb) {
		b = real_pair(fp, v, &left);
		nb = vend - v < HET_FIT_BLOCK ? vend - v : HET_FIT_BLOCK;
		if (nb > left)
			nb = left;
		het_resid_eval_compact(fe->ev, wk->scr, b, nb, wk->res,
		    want && nfp > 0 ? wk->Jp : NULL, want || vpc ? wk->dcon :
		    NULL);
		if (vpc) {
			/* Linear loss: r is affine in contrast/offset. */
			for (kk = 0; kk < nb; kk++) {
				double u = wk->dcon[kk];
				double w = het_resid_weight(fp->r, b + kk);

				rr = wk->res[kk];
				cost += 0.5 * rr * rr;
				partial[1 + fp->pairs[b + kk].a] += rr * rr;
				bb = partial + fp->off_ang +
				    fp->pairs[b + kk].a * fp->astride;
				bb[0] += u * u;
				bb[1] += u * w;
				bb[2] += w * w;
				bb[3] += u * rr;
				bb[4] += w * rr;
			}
			continue;
		}
		for (kk = 0; kk < nb; kk++) {
			rr = wk->res[kk];
			het_nlsq_loss(fp->loss, fp->f_scale, rr, o);
			cost += 0.5 * o[0];
			partial[1 + fp->pairs[b + kk].a] += rr * rr;
			if (!want)
				continue;
			wk->f[kk] = o[2];
			wk->jc[kk] = wk->dcon[kk] * o[1];
			wk->jo[kk] = het_resid_weight(fp->r, b + kk) * o[1];
			if (o[1] != 1.0)
				for (c = 0; c < nfp; c++)
					wk->Jp[kk * nfp + c] *= o[1];
		}
		if (!want)
			continue;
		/* Per angle: one BLAS call per run of one angle's pairs. */
		for (r0 = 0; pa && nfp > 0 && r0 < nb; r0 = r1) {
			size_t a = fp->pairs[b + r0].a;
			double *blk = partial + fp->off_pa + a * fp->pastride;

			for (r1 = r0 + 1; r1 < nb && fp->pairs[b + r1].a == a;
			    r1++)
				;
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans,
			    (int)nfp, (int)(r1 - r0), 1.0, wk->Jp + r0 * nfp,
			    (int)nfp, 1.0, blk, (int)nfp);
			cblas_dgemv(CblasRowMajor, CblasTrans, (int)(r1 - r0),
			    (int)nfp, 1.0, wk->Jp + r0 * nfp, (int)nfp,
			    wk->f + r0, 1, 1.0, blk + nfp * nfp, 1);
		}
		if (nfp > 0 && !pa) {
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans,
			    (int)nfp, (int)nb, 1.0, wk->Jp, (int)nfp, 1.0,
			    partial + fp->off_jtj, (int)nfp);
			cblas_dgemv(CblasRowMajor, CblasTrans, (int)nb,
			    (int)nfp, 1.0, wk->Jp, (int)nfp, wk->f, 1, 1.0,
			    partial + fp->off_g, 1);
		}
		for (kk = 0; kk < nb; kk++)
			add_angle_pair(fp, wk, kk, fp->pairs[b + kk].a,
			    partial);
	}
	partial[0] += cost;
	return HET_OK;
}

/*
 * The dense accumulator of the fitted columns from the reduced compact
 * sums (upper triangle; physics columns precede scaling columns).
 */
void
het_fit_expand(const struct fit_prob *fp, const double *ca, int want,
    double *acc)
{
	size_t p = fp->p, nfp = fp->nfp, a, i, j, e, e2, m, m2;
	double *g = acc + HET_NLSQ_ACC_G, *J = acc + het_nlsq_acc_jtj(p);
	const double *b;
	double rss = 0.0, wc, wo, v;

	for (a = 0; a < fp->na; a++)
		rss += ca[1 + a];
	acc[HET_NLSQ_ACC_COST] = ca[0];
	acc[HET_NLSQ_ACC_RSS] = rss;
	if (!want)
		return;
	memset(g, 0, p * sizeof(double));
	memset(J, 0, p * p * sizeof(double));
	for (i = 0; i < nfp; i++) {
		g[i] = ca[fp->off_g + i];
		for (j = i; j < nfp; j++)
			J[i * p + j] = ca[fp->off_jtj + i * nfp + j];
	}
	for (a = 0; a < fp->na; a++) {
		b = ca + fp->off_ang + a * fp->astride;
		for (e = fp->aoff[a]; e < fp->aoff[a + 1]; e++) {
			m = fp->acol[e];
			wc = fp->awc[e];
			wo = fp->awo[e];
			g[m] += wc * b[3] + wo * b[4];
			for (i = 0; i < nfp; i++)
				J[i * p + m] += wc * b[5 + i] +
				    wo * b[5 + nfp + i];
			for (e2 = fp->aoff[a]; e2 < fp->aoff[a + 1]; e2++) {
				m2 = fp->acol[e2];
				if (m2 < m)
					continue;
				v = wc * fp->awc[e2] * b[0] + (wc *
				    fp->awo[e2] + wo * fp->awc[e2]) * b[1] +
				    wo * fp->awo[e2] * b[2];
				J[m * p + m2] += v;
			}
		}
	}
}

int
het_fit_eval_pass(struct fit_eval *fe, const double *x, enum fit_mode mode,
    struct het_error *err)
{
	const struct fit_prob *fp = fe->fp;
	size_t c;
	int rc;

	memcpy(fe->xfull, fp->xfull0, fp->P * sizeof(double));
	for (c = 0; c < fp->p; c++)
		fe->xfull[fp->rcol[c]] = x[c];
	if ((rc = het_resid_prepare(fe->ev, fe->xfull, mode == FIT_FULL ||
	    mode == FIT_FULL_PA, err)) != HET_OK)
		return rc;
	fe->want_jac = (int)mode;
	fe->npass++;
	if (het_fit_sep_wanted(fe)) {
		/* HET_ERANGE: too steep a point for the separable sums */
		if ((rc = het_fit_sep_pass(fe, mode, err)) != HET_ERANGE) {
			fe->nsep += rc == HET_OK;
			return rc;
		}
		if (err != NULL)
			memset(err, 0, sizeof(*err));
	}
	return het_pool_reduce(fe->pool, mode == FIT_COST ? fe->red_cost :
	    mode == FIT_FULL_PA ? fe->red_pa : fe->red_full, fp->nchunks,
	    chunk_fn, fe, fe->cacc, fe->cancel, NULL, err);
}

int
het_fit_eval_spec(struct fit_eval *fe, int want_jac)
{
	int spec = !fe->pending;

	fe->pending = !want_jac;
	return spec;
}

int
het_fit_eval_cb(void *ctx, const double *x, int want_jac, double *acc,
    struct het_error *err)
{
	struct fit_eval *fe = ctx;
	const struct fit_prob *fp = fe->fp;
	size_t p = fp->p;
	int rc, spec;

	spec = het_fit_eval_spec(fe, want_jac);
	if (want_jac && fe->spec_valid &&
	    memcmp(fe->spec_x, x, p * sizeof(double)) == 0) {
		/* The accepted trial: its normal equations are in. */
		memcpy(acc, fe->spec_acc, het_nlsq_acc_len(p) *
		    sizeof(double));
		fe->spec_valid = 0;
		return HET_OK;
	}
	fe->spec_valid = 0;
	if (!want_jac && spec) {
		if ((rc = het_fit_eval_pass(fe, x, FIT_FULL, err)) != HET_OK)
			return rc;
		het_fit_expand(fp, fe->cacc, 1, fe->spec_acc);
		memcpy(fe->spec_x, x, p * sizeof(double));
		fe->spec_valid = 1;
		acc[HET_NLSQ_ACC_COST] = fe->spec_acc[HET_NLSQ_ACC_COST];
		acc[HET_NLSQ_ACC_RSS] = fe->spec_acc[HET_NLSQ_ACC_RSS];
		return HET_OK;
	}
	if ((rc = het_fit_eval_pass(fe, x, want_jac ? FIT_FULL : FIT_COST,
	    err)) != HET_OK)
		return rc;
	het_fit_expand(fp, fe->cacc, want_jac, acc);
	return HET_OK;
}
