/*
 * het_resid.c: residuals and Jacobians of a fitting problem (model +
 * per-angle scaling + data pairs), evaluated chunk by chunk.
 *
 * Design: het_resid_alloc validates the pair list once (so the hot path
 * only asserts) and builds the column maps between x and the full physics
 * and scaling vectors.  het_resid_prepare unpacks x, prepares the model
 * tables and maps the scaling vector to per-angle contrast/offset.  The
 * evaluation calls then stream over a chunk of pairs in blocks of the
 * scratch capacity: the model writes g and dg/dtheta_free for a block
 * into the scratch, and each pair's residual and Jacobian row are formed
 * from that alone.  Every output element depends only on its own pair,
 * which is what makes chunked evaluation bit-identical to one pass and
 * lets threads work on disjoint chunks without synchronisation.
 */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_resid.h"
#include "het_util.h"

struct het_resid {
	const struct het_model	 *m;
	const struct het_scaling *sc;
	size_t		 nphys;		/* physics vector length */
	size_t		 nscal;		/* scaling vector length */
	size_t		 nfp;		/* free physics */
	size_t		 nfs;		/* free scaling */
	size_t		 p;		/* nfp + nfs */
	double		 theta[HET_MAX_PHYS];	/* fixed/start physics */
	unsigned char	 free[HET_MAX_PHYS];
	long		 pcol[HET_MAX_PHYS];	/* physics -> x column */
	double		*s;		/* nscal fixed/start scaling */
	long		*scol;		/* nscal: scaling -> x column */
	size_t		*xsrc;		/* p: x column -> source index (a
					   physics index, or nphys + a
					   scaling index) */
	const char	**phys_names;	/* nphys table names */
	size_t		 n;
	const struct het_pair *pairs;
	const double	*y;
	const double	*w;
};

struct het_resid_eval {
	const struct het_resid	*r;
	struct het_model_eval	*mev;
	double		*contrast;	/* n_angles */
	double		*offset;	/* n_angles */
	double		*s;		/* nscal, current scaling vector */
	int		 jac;		/* prepared with derivatives */
};

struct het_resid_scratch {
	size_t	 cap;		/* pairs per block */
	size_t	 nfp;		/* derivative columns per pair */
	double	*g;		/* cap */
	double	*dg;		/* cap * nfp (NULL when nfp == 0) */
	double	*adj;		/* het_model_lsq_scratch doubles, or NULL */
};

static int
resid_check_data(const struct het_resid_spec *s, size_t nframes,
    size_t nangles, struct het_error *err)
{
	const struct het_pair *q;
	size_t k;

	for (k = 0; k < s->n; k++) {
		q = &s->pairs[k];
		if (q->i >= q->j || q->j >= nframes || q->a >= nangles)
			return het_error_set(err, HET_EINVAL,
			    "fit problem: datum %zu is pair (angle %u, frames "
			    "%u, %u); pairs need frame i < j < %zu and angle "
			    "< %zu", k, (unsigned)q->a, (unsigned)q->i,
			    (unsigned)q->j, nframes, nangles);
		if (!isfinite(s->y[k]))
			return het_error_set(err, HET_EDATA,
			    "fit problem: observed c2 of datum %zu (angle %u, "
			    "frames %u, %u) is not finite; mask such points "
			    "before fitting", k, (unsigned)q->a,
			    (unsigned)q->i, (unsigned)q->j);
		if (s->w != NULL && !(isfinite(s->w[k]) && s->w[k] >= 0))
			return het_error_set(err, HET_EDATA,
			    "fit problem: weight %g of datum %zu (angle %u, "
			    "frames %u, %u) must be finite and >= 0",
			    s->w[k], k, (unsigned)q->a, (unsigned)q->i,
			    (unsigned)q->j);
	}
	return HET_OK;
}

struct het_resid *
het_resid_alloc(const struct het_resid_spec *spec, struct het_error *err)
{
	const struct het_model_spec *ms;
	const struct het_param_def *tab;
	struct het_resid *r;
	size_t k, ntab, c;

	if (spec->model == NULL || spec->scaling == NULL ||
	    spec->theta == NULL ||
	    (spec->n > 0 && (spec->pairs == NULL || spec->y == NULL))) {
		het_error_set(err, HET_EINVAL, "fit problem: model, scaling, "
		    "parameter values and data arrays are required");
		return NULL;
	}
	ms = het_model_spec_of(spec->model);
	if (het_scaling_nangles(spec->scaling) != ms->n_angles) {
		het_error_set(err, HET_EINVAL, "fit problem: the scaling has "
		    "%zu angles but the model has %zu",
		    het_scaling_nangles(spec->scaling), ms->n_angles);
		return NULL;
	}
	if (resid_check_data(spec, ms->n_frames, ms->n_angles, err) != HET_OK)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		het_error_set(err, HET_ENOMEM, "fit problem: out of memory");
		return NULL;
	}
	r->m = spec->model;
	r->sc = spec->scaling;
	r->nphys = het_model_nphys(r->m);
	r->nscal = het_scaling_nparams(r->sc);
	r->n = spec->n;
	r->pairs = spec->pairs;
	r->y = spec->y;
	r->w = spec->w;
	tab = het_params_table(het_mode_family(ms->mode), &ntab);
	r->s = het_alloc_array(r->nscal, sizeof(double), "fit problem", err);
	r->scol = het_alloc_array(r->nscal, sizeof(long), "fit problem", err);
	r->xsrc = het_alloc_array(r->nphys + r->nscal, sizeof(size_t),
	    "fit problem", err);
	r->phys_names = het_alloc_array(r->nphys, sizeof(char *),
	    "fit problem", err);
	if (r->s == NULL || r->scol == NULL || r->xsrc == NULL ||
	    r->phys_names == NULL)
		goto fail;

	c = 0;
	for (k = 0; k < r->nphys; k++) {
		r->phys_names[k] = tab[k].name;
		if (!isfinite(spec->theta[k])) {
			het_error_set(err, HET_EINVAL, "fit problem: "
			    "parameter %s = %g is not finite", tab[k].name,
			    spec->theta[k]);
			goto fail;
		}
		r->theta[k] = spec->theta[k];
		r->free[k] = spec->free == NULL || spec->free[k] != 0;
		r->pcol[k] = r->free[k] ? (long)c : -1;
		if (r->free[k])
			r->xsrc[c++] = k;
	}
	r->nfp = c;
	if (spec->s != NULL)
		memcpy(r->s, spec->s, r->nscal * sizeof(double));
	else
		het_scaling_defaults(r->sc, r->s);
	for (k = 0; k < r->nscal; k++) {
		if (!isfinite(r->s[k])) {
			het_error_set(err, HET_EINVAL, "fit problem: scaling "
			    "parameter %s = %g is not finite",
			    het_scaling_param_name(r->sc, k), r->s[k]);
			goto fail;
		}
		if (spec->s_free == NULL || spec->s_free[k] != 0) {
			r->scol[k] = (long)c;
			r->xsrc[c++] = r->nphys + k;
		} else
			r->scol[k] = -1;
	}
	r->p = c;
	r->nfs = c - r->nfp;
	return r;
fail:
	het_resid_free(r);
	return NULL;
}

void
het_resid_free(struct het_resid *r)
{
	if (r == NULL)
		return;
	free(r->s);
	free(r->scol);
	free(r->xsrc);
	free(r->phys_names);
	free(r);
}

size_t
het_resid_ndata(const struct het_resid *r)
{
	return r->n;
}

size_t
het_resid_nparams(const struct het_resid *r)
{
	return r->p;
}

size_t
het_resid_nphys_free(const struct het_resid *r)
{
	return r->nfp;
}

size_t
het_resid_nscal_free(const struct het_resid *r)
{
	return r->nfs;
}

const char *
het_resid_param_name(const struct het_resid *r, size_t k)
{
	if (k >= r->p)
		return "";
	if (r->xsrc[k] < r->nphys)
		return r->phys_names[r->xsrc[k]];
	return het_scaling_param_name(r->sc, r->xsrc[k] - r->nphys);
}

long
het_resid_phys_col(const struct het_resid *r, size_t index)
{
	return index < r->nphys ? r->pcol[index] : -1;
}

long
het_resid_scal_col(const struct het_resid *r, size_t index)
{
	return index < r->nscal ? r->scol[index] : -1;
}

void
het_resid_x0(const struct het_resid *r, double *x)
{
	size_t k;

	for (k = 0; k < r->p; k++)
		x[k] = r->xsrc[k] < r->nphys ? r->theta[r->xsrc[k]] :
		    r->s[r->xsrc[k] - r->nphys];
}

void
het_resid_bounds(const struct het_resid *r, double *lo, double *hi)
{
	const struct het_param_def *tab;
	size_t k, ntab, src;

	tab = het_params_table(het_mode_family(het_model_spec_of(r->m)->mode),
	    &ntab);
	for (k = 0; k < r->p; k++) {
		src = r->xsrc[k];
		if (src < r->nphys) {
			lo[k] = tab[src].lo;
			hi[k] = tab[src].hi;
		} else
			het_scaling_param_bounds(r->sc, src - r->nphys, &lo[k],
			    &hi[k]);
	}
}

void
het_resid_unpack(const struct het_resid *r, const double *x, double *theta,
    double *s)
{
	size_t k;

	if (theta != NULL)
		for (k = 0; k < r->nphys; k++)
			theta[k] = r->pcol[k] >= 0 ? x[r->pcol[k]] :
			    r->theta[k];
	if (s != NULL)
		for (k = 0; k < r->nscal; k++)
			s[k] = r->scol[k] >= 0 ? x[r->scol[k]] : r->s[k];
}

struct het_resid_eval *
het_resid_eval_alloc(const struct het_resid *r, struct het_error *err)
{
	struct het_resid_eval *ev;
	size_t na = het_model_spec_of(r->m)->n_angles;

	if ((ev = calloc(1, sizeof(*ev))) == NULL) {
		het_error_set(err, HET_ENOMEM, "fit workspace: out of memory");
		return NULL;
	}
	ev->r = r;
	ev->mev = het_model_eval_alloc(r->m, err);
	ev->contrast = het_alloc_array(na, sizeof(double), "fit workspace",
	    err);
	ev->offset = het_alloc_array(na, sizeof(double), "fit workspace",
	    err);
	ev->s = het_alloc_array(r->nscal, sizeof(double), "fit workspace",
	    err);
	if (ev->mev == NULL || ev->contrast == NULL || ev->offset == NULL ||
	    ev->s == NULL) {
		het_resid_eval_free(ev);
		return NULL;
	}
	return ev;
}

void
het_resid_eval_free(struct het_resid_eval *ev)
{
	if (ev == NULL)
		return;
	het_model_eval_free(ev->mev);
	free(ev->contrast);
	free(ev->offset);
	free(ev->s);
	free(ev);
}

int
het_resid_prepare(struct het_resid_eval *ev, const double *x, int want_jac,
    struct het_error *err)
{
	const struct het_resid *r = ev->r;
	double theta[HET_MAX_PHYS];
	size_t k;
	int rc;

	for (k = 0; k < r->p; k++)
		if (!isfinite(x[k]))
			return het_error_set(err, HET_EINVAL, "fit: parameter "
			    "%s = %g is not finite", het_resid_param_name(r, k),
			    x[k]);
	het_resid_unpack(r, x, theta, ev->s);
	ev->jac = want_jac != 0;
	rc = het_model_eval_prepare(ev->mev, theta, ev->jac ? r->free : NULL,
	    err);
	if (rc != HET_OK)
		return rc;
	het_scaling_map(r->sc, ev->s, ev->contrast, ev->offset);
	return HET_OK;
}

void
het_resid_angle_scaling(const struct het_resid_eval *ev,
    const double **contrast, const double **offset)
{
	*contrast = ev->contrast;
	*offset = ev->offset;
}

struct het_resid_scratch *
het_resid_scratch_alloc(const struct het_resid *r, size_t chunk,
    struct het_error *err)
{
	struct het_resid_scratch *scr;

	if (chunk == 0) {
		het_error_set(err, HET_EINVAL, "fit scratch: the block size "
		    "must be at least one pair");
		return NULL;
	}
	if ((scr = calloc(1, sizeof(*scr))) == NULL) {
		het_error_set(err, HET_ENOMEM, "fit scratch: out of memory");
		return NULL;
	}
	scr->cap = chunk;
	scr->nfp = r->nfp;
	scr->g = het_alloc_array(chunk, sizeof(double), "fit scratch", err);
	if (r->nfp > 0)
		scr->dg = het_alloc_array(chunk, r->nfp * sizeof(double),
		    "fit scratch", err);
	if (r->nfp > 0 && het_model_lsq_scratch(r->m) > 0)
		scr->adj = het_alloc_array(het_model_lsq_scratch(r->m),
		    sizeof(double), "fit scratch", err);
	if (scr->g == NULL || (r->nfp > 0 && scr->dg == NULL) ||
	    (r->nfp > 0 && het_model_lsq_scratch(r->m) > 0 &&
	    scr->adj == NULL)) {
		het_resid_scratch_free(scr);
		return NULL;
	}
	return scr;
}

void
het_resid_scratch_free(struct het_resid_scratch *scr)
{
	if (scr == NULL)
		return;
	free(scr->g);
	free(scr->dg);
	free(scr->adj);
	free(scr);
}

const struct het_pair *
het_resid_pairs(const struct het_resid *r)
{
	return r->pairs;
}

const struct het_scaling *
het_resid_scaling(const struct het_resid *r)
{
	return r->sc;
}

double
het_resid_weight(const struct het_resid *r, size_t k)
{
	return r->w != NULL ? r->w[k] : 1.0;
}

const double *
het_resid_y(const struct het_resid *r)
{
	return r->y;
}

const struct het_model *
het_resid_model(const struct het_resid *r)
{
	return r->m;
}

const struct het_resid *
het_resid_eval_problem(const struct het_resid_eval *ev)
{
	return ev->r;
}

const struct het_model_eval *
het_resid_eval_mev(const struct het_resid_eval *ev)
{
	return ev->mev;
}

/*
 * The common loop: for each block, the model fills g (and dg when a
 * Jacobian output is wanted), then every pair's outputs are formed.
 * Exactly one of J (dense rows) and Jphys/dcon (compact) is used.
 */
static void
resid_eval(const struct het_resid_eval *ev, struct het_resid_scratch *scr,
    size_t first, size_t n, double *res, double *J, double *Jphys,
    double *dcon)
{
	const struct het_resid *r = ev->r;
	const struct het_pair *q;
	struct het_scaling_row cr, orow;
	size_t b, k, c, nb, kk, nfp = r->nfp, p = r->p;
	double w, ca, g, *row, *dg;
	int deriv = (J != NULL || Jphys != NULL) && nfp > 0;
	long col;

	assert(first + n <= r->n && scr->nfp == nfp);
	assert(ev->jac || (J == NULL && Jphys == NULL));
	for (b = 0; b < n; b += nb) {
		nb = n - b < scr->cap ? n - b : scr->cap;
		het_model_eval_pairs(ev->mev, nb, r->pairs + first + b, scr->g,
		    deriv ? scr->dg : NULL);
		for (kk = 0; kk < nb; kk++) {
			k = first + b + kk;	/* datum index */
			q = &r->pairs[k];
			w = r->w != NULL ? r->w[k] : 1.0;
			ca = ev->contrast[q->a];
			g = scr->g[kk];
			if (res != NULL)
				res[k - first] = w * (ev->offset[q->a] +
				    ca * g - r->y[k]);
			if (dcon != NULL)
				dcon[k - first] = w * g;
			dg = deriv ? scr->dg + kk * nfp : NULL;
			if (Jphys != NULL)
				for (c = 0; c < nfp; c++)
					Jphys[(k - first) * nfp + c] =
					    w * ca * dg[c];
			if (J == NULL)
				continue;
			row = J + (k - first) * p;
			for (c = 0; c < nfp; c++)
				row[c] = w * ca * dg[c];
			for (c = nfp; c < p; c++)
				row[c] = 0.0;
			het_scaling_rows(r->sc, q->a, &cr, &orow);
			for (c = 0; c < cr.n; c++)
				if ((col = r->scol[cr.idx[c]]) >= 0)
					row[col] += w * cr.w[c] * g;
			for (c = 0; c < orow.n; c++)
				if ((col = r->scol[orow.idx[c]]) >= 0)
					row[col] += w * orow.w[c];
		}
	}
}

void
het_resid_eval_rows(const struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t first, size_t n, double *res,
    double *J)
{
	resid_eval(ev, scr, first, n, res, J, NULL, NULL);
}

void
het_resid_eval_compact(const struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t first, size_t n, double *res,
    double *Jphys, double *dcon)
{
	resid_eval(ev, scr, first, n, res, NULL, Jphys, dcon);
}

/* het_resid_eval_lsq through the model's values and Jacobian rows. */
static void
resid_lsq_rows(const struct het_resid_eval *ev, struct het_resid_scratch *scr,
    size_t first, size_t n, struct het_model_lsq_out *out)
{
	const struct het_resid *r = ev->r;
	const struct het_pair *q;
	size_t b, k, c, nb, kk, nfp = r->nfp;
	double w, e, res, *dg;

	for (b = 0; b < n; b += nb) {
		nb = n - b < scr->cap ? n - b : scr->cap;
		het_model_eval_pairs(ev->mev, nb, r->pairs + first + b, scr->g,
		    nfp > 0 ? scr->dg : NULL);
		for (kk = 0; kk < nb; kk++) {
			k = first + b + kk;
			q = &r->pairs[k];
			w = r->w != NULL ? r->w[k] : 1.0;
			res = w * (ev->offset[q->a] + ev->contrast[q->a] *
			    scr->g[kk] - r->y[k]);
			out->ss += res * res;
			out->gcon[q->a] += res * w * scr->g[kk];
			out->goff[q->a] += res * w;
			e = res * w * ev->contrast[q->a];
			dg = scr->dg + kk * nfp;
			for (c = 0; c < nfp; c++)
				out->gfree[c] += e * dg[c];
		}
	}
}

void
het_resid_eval_lsq(const struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t first, size_t n,
    struct het_model_lsq_out *out)
{
	const struct het_resid *r = ev->r;
	struct het_model_lsq L;

	assert(first + n <= r->n && scr->nfp == r->nfp);
	assert(ev->jac || r->nfp == 0);
	if (r->nfp == 0 || scr->adj == NULL) {
		resid_lsq_rows(ev, scr, first, n, out);
		return;
	}
	L.y = r->y + first;
	L.w = r->w != NULL ? r->w + first : NULL;
	L.contrast = ev->contrast;
	L.offset = ev->offset;
	het_model_eval_lsq(ev->mev, n, r->pairs + first, &L, scr->adj, out);
}

void
het_resid_eval_model(const struct het_resid_eval *ev, size_t first,
    size_t n, double *c2)
{
	const struct het_resid *r = ev->r;
	const struct het_pair *q;
	size_t k;

	assert(first + n <= r->n);
	het_model_eval_pairs(ev->mev, n, r->pairs + first, c2, NULL);
	for (k = 0; k < n; k++) {
		q = &r->pairs[first + k];
		c2[k] = ev->offset[q->a] + ev->contrast[q->a] * c2[k];
	}
}

void
het_resid_model_matrix(const struct het_resid_eval *ev, size_t a,
    double *c2)
{
	size_t i, j, nf = het_model_spec_of(ev->r->m)->n_frames;

	for (i = 0; i < nf; i++)
		for (j = 0; j < nf; j++)
			c2[i * nf + j] = ev->offset[a] + ev->contrast[a] *
			    het_model_eval_g(ev->mev, a, i, j);
}
