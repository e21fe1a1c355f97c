#include "config.h"

/*
 * het_separable.c: the Gaussian likelihood of a fitting problem from the
 * separable form of its model (see het_separable.h for the mathematics).
 *
 * Design.  het_separable_alloc copies each angle's data, centred by the
 * angle's mean, into a packed upper triangle (row i holds j = i + 1 ..
 * N - 1) when the angle has every pair, else into rows of (j, datum)
 * entries of its pairs alone (a frame window of a larger grid, a CMC
 * shard: the pass then costs what its pairs cost, not N^2).
 * An evaluation then
 *   1. asks the model for its per-frame factors P_t, Q_t, L_t (and the
 *      phase V, qa), computes cos and sin of each angle's phase per
 *      frame, and cuts the frames into blocks over which no L_t rises by
 *      more than SEP_SHIFT_MAX;
 *   2. per block and angle forms the components A_c (rows of the block)
 *      and B_c (frames from the block's start on), shifted by the
 *      block's first L, in a [frame][SEP_NC] layout so that the pair
 *      loops run over four adjacent doubles (the compiler vectorises
 *      across components; homodyne pads three zero components);
 *   3. runs the data pass over the block's rows: complete triangles
 *      accumulate sum y g (and the column adjoints), then O(N) prefix
 *      and suffix sums give sum g, sum g^2 and their adjoints;
 *      incomplete ones form each of their pairs' residual; pairs inside
 *      a run of equal L_k (a rate floored at 0) then get the model's
 *      rho factor by a fix-up over those pairs alone;
 *   4. folds the adjoints of A_c, B_c onto the model's per-frame factors
 *      (and the phase onto V and qa_a);
 * and finally closes each angle's sums and hands the per-frame adjoints
 * to het_model_eval_sep_adjoint.  All buffers are the object's own.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_separable.h"
#include "het_separable_impl.h"
#include "het_scaling.h"
#include "het_util.h"

/* Point the arrays of a het_model_sep into one buffer of N-frame rows. */
void
het_sep_layout(struct het_model_sep *x, double *buf, size_t N)
{
	size_t t;

	for (t = 0; t < HET_SEP_MAXTERMS; t++) {
		x->P[t] = buf + 3 * t * N;
		x->Q[t] = buf + (3 * t + 1) * N;
		x->L[t] = buf + (3 * t + 2) * N;
	}
	x->V = buf + 3 * HET_SEP_MAXTERMS * N;
	x->qa = x->V + N;
}

/* The workspace of one evaluation (every object has its own). */
static void
sep_work_free(struct het_separable *s)
{
	free(s->frbuf);
	free(s->adbuf);
	free(s->cs);
	free(s->sn);
	free(s->EA);
	free(s->EB);
	free(s->A);
	free(s->B);
	free(s->gA);
	free(s->gB);
	free(s->blk);
	free(s->rend);
	free(s->acc);
	free(s->gc);
	free(s->go);
	free(s->zero);
	het_sep_normal_free(s);
}

void
het_separable_free(struct het_separable *s)
{
	size_t a;

	if (s == NULL)
		return;
	sep_work_free(s);
	if (s->view) {
		free(s);
		return;
	}
	for (a = 0; a < s->na; a++) {
		if (s->U != NULL)
			free(s->U[a]);
		if (s->rp != NULL)
			free(s->rp[a]);
		if (s->ent != NULL)
			free(s->ent[a]);
	}
	free(s->U);
	free(s->rp);
	free(s->ent);
	free(s->ybar);
	free(s->yy);
	free(s->cnt);
	free(s);
}

/* The eligibility rules of het_separable.h that need no data pass. */
static int
sep_check(const struct het_resid *r, struct het_error *err)
{
	const struct het_model_spec *ms;
	size_t k, n = het_resid_ndata(r);
	double w0;

	ms = het_model_spec_of(het_resid_model(r));
	if (het_model_sep_terms(het_resid_model(r)) == 0)
		return het_error_set(err, HET_EINVAL, "not separable: mode %s "
		    "has no separable form (its shape is not a sum of "
		    "products of per-frame factors); use the pair kernel",
		    het_mode_name(ms->mode));
	w0 = n > 0 ? het_resid_weight(r, 0) : 1.0;
	for (k = 1; k < n; k++)
		if (het_resid_weight(r, k) != w0)
			return het_error_set(err, HET_EINVAL, "not separable: "
			    "datum %zu has weight %g and datum 0 %g; only the "
			    "plain Gaussian loss (no weights, or all equal) "
			    "is", k, het_resid_weight(r, k), w0);
	return HET_OK;
}

/* Whether the object holds pair pr: its angle (all, or the one
   chosen), both frames inside the window. */
static int
sep_kept(const struct het_separable *s, const struct het_pair *pr)
{
	return (s->angle < 0 || pr->a == (size_t)s->angle) && pr->j < s->N;
}

/* Storage of each angle: a dense triangle when complete, else rows. */
static int
sep_storage(struct het_separable *s, struct het_error *err)
{
	const struct het_pair *pr = het_resid_pairs(s->r);
	size_t k, a, i, n = het_resid_ndata(s->r);
	const char *what = "separable likelihood data";

	for (a = 0; a < s->na; a++) {
		if (s->cnt[a] == s->npk) {
			if ((s->U[a] = het_alloc_array(s->npk, sizeof(double),
			    what, err)) == NULL)
				return HET_ENOMEM;
		} else if (s->cnt[a] > 0 &&
		    ((s->rp[a] = het_alloc_array(s->N + 1, sizeof(size_t),
		    what, err)) == NULL ||
		    (s->ent[a] = het_alloc_array(s->cnt[a],
		    sizeof(struct sep_ent), what, err)) == NULL))
			return HET_ENOMEM;
	}
	/* row starts: counts at i + 1, then running sums */
	for (k = 0; k < n; k++)
		if (sep_kept(s, &pr[k]) && s->rp[pr[k].a] != NULL)
			s->rp[pr[k].a][pr[k].i + 1]++;
	for (a = 0; a < s->na; a++)
		for (i = 0; s->rp[a] != NULL && i < s->N; i++)
			s->rp[a][i + 1] += s->rp[a][i];
	return HET_OK;
}

/*
 * Copy the data, centred by their angle's mean, into the triangles and
 * rows; seen (na * npk bits, zeroed) finds a pair listed twice.
 */
static int
sep_fill(struct het_separable *s, unsigned char *seen, struct het_error *err)
{
	const struct het_pair *pr = het_resid_pairs(s->r);
	const double *y = het_resid_y(s->r);
	size_t k, a, i, off, idx, n = het_resid_ndata(s->r);
	struct sep_ent *e;
	double d;

	for (k = 0; k < n; k++) {
		if (!sep_kept(s, &pr[k]))
			continue;
		s->cnt[pr[k].a]++;
		s->ybar[pr[k].a] += y[k];
	}
	for (a = 0; a < s->na; a++)
		if (s->cnt[a] > 0)
			s->ybar[a] /= (double)s->cnt[a];
	if (sep_storage(s, err) != HET_OK)
		return HET_ENOMEM;
	for (k = 0; k < n; k++) {
		a = pr[k].a;
		i = pr[k].i;
		if (!sep_kept(s, &pr[k]))
			continue;
		off = sep_row_off(s->N, i) + (pr[k].j - i - 1);
		idx = a * s->npk + off;
		if (seen[idx / 8] & (1u << (idx % 8)))
			return het_error_set(err, HET_EINVAL, "not separable: "
			    "datum %zu repeats the pair (angle %u, frames %u, "
			    "%u); the separable likelihood counts each pair "
			    "once", k, (unsigned)a, (unsigned)i,
			    (unsigned)pr[k].j);
		seen[idx / 8] |= (unsigned char)(1u << (idx % 8));
		d = y[k] - s->ybar[a];
		s->yy[a] += d * d;
		if (s->U[a] != NULL) {
			s->U[a][off] = d;
			continue;
		}
		/* rp[a][i] serves as row i's cursor, shifted back below */
		e = &s->ent[a][s->rp[a][i]++];
		e->u = d;
		e->j = pr[k].j;
	}
	for (a = 0; a < s->na; a++)
		if (s->rp[a] != NULL) {
			memmove(s->rp[a] + 1, s->rp[a], s->N * sizeof(size_t));
			s->rp[a][0] = 0;
		}
	return HET_OK;
}

/* The object's own workspace (het_separable_impl.h). */
static int
sep_work_alloc(struct het_separable *s, struct het_error *err)
{
	size_t N = s->N, na = s->na, nb = het_sep_buflen(s);
	const char *what = "separable likelihood";

	if ((s->frbuf = het_alloc_array(nb, sizeof(double), what, err)) ==
	    NULL ||
	    (s->adbuf = het_alloc_array(nb, sizeof(double), what, err)) ==
	    NULL ||
	    (s->cs = het_alloc_array(na * N, sizeof(double), what, err)) ==
	    NULL ||
	    (s->sn = het_alloc_array(na * N, sizeof(double), what, err)) ==
	    NULL ||
	    (s->EA = het_alloc_array(HET_SEP_MAXTERMS * N, sizeof(double),
	    what, err)) == NULL ||
	    (s->EB = het_alloc_array(HET_SEP_MAXTERMS * N, sizeof(double),
	    what, err)) == NULL ||
	    (s->A = het_alloc_array(N * SEP_NC, sizeof(double), what, err)) ==
	    NULL ||
	    (s->B = het_alloc_array(N * SEP_NC, sizeof(double), what, err)) ==
	    NULL ||
	    (s->gA = het_alloc_array(N * SEP_NC, sizeof(double), what, err)) ==
	    NULL ||
	    (s->gB = het_alloc_array(N * SEP_NC, sizeof(double), what, err)) ==
	    NULL ||
	    (s->blk = het_alloc_array(N + 1, sizeof(size_t), what, err)) ==
	    NULL ||
	    (s->rend = het_alloc_array(HET_SEP_MAXTERMS * N, sizeof(size_t),
	    what, err)) == NULL ||
	    (s->acc = het_alloc_array(SEP_NACC * na, sizeof(double), what,
	    err)) == NULL ||
	    (s->gc = het_alloc_array(na, sizeof(double), what, err)) == NULL ||
	    (s->go = het_alloc_array(na, sizeof(double), what, err)) == NULL ||
	    (s->zero = het_alloc_array(3 * na, sizeof(double), what, err)) ==
	    NULL)
		return HET_ENOMEM;
	memset(s->zero, 0, 3 * na * sizeof(double));
	het_sep_layout(&s->fr, s->frbuf, s->Nm);
	het_sep_layout(&s->ad, s->adbuf, s->Nm);
	return HET_OK;
}

/* A new object of problem r with its sizes set and nothing allocated. */
static struct het_separable *
sep_new(const struct het_resid *r, struct het_error *err)
{
	const struct het_model_spec *ms;
	struct het_separable *s;

	ms = het_model_spec_of(het_resid_model(r));
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		het_error_set(err, HET_ENOMEM, "separable likelihood: out of "
		    "memory");
		return NULL;
	}
	s->r = r;
	s->N = s->Nm = ms->n_frames;
	s->na = ms->n_angles;
	s->npk = s->N * (s->N - 1) / 2;
	s->nfp = het_resid_nphys_free(r);
	s->w2 = het_resid_ndata(r) > 0 ? het_resid_weight(r, 0) *
	    het_resid_weight(r, 0) : 1.0;
	return s;
}

struct het_separable *
het_separable_alloc_window(const struct het_resid *r, long angle,
    size_t w, struct het_error *err)
{
	struct het_separable *s;
	unsigned char *seen = NULL;
	size_t na;
	const char *what = "separable likelihood";

	if (sep_check(r, err) != HET_OK || (s = sep_new(r, err)) == NULL)
		return NULL;
	na = s->na;
	s->angle = angle;
	if (w > 1 && w < s->Nm) {
		s->N = w;
		s->npk = w * (w - 1) / 2;
	}
	if ((s->U = het_alloc_array(na, sizeof(*s->U), what, err)) == NULL ||
	    (s->rp = het_alloc_array(na, sizeof(*s->rp), what, err)) ==
	    NULL ||
	    (s->ent = het_alloc_array(na, sizeof(*s->ent), what, err)) ==
	    NULL ||
	    (seen = het_alloc_array(na * s->npk / 8 + 1, 1, what, err)) ==
	    NULL ||
	    (s->ybar = het_alloc_array(na, sizeof(double), what, err)) ==
	    NULL ||
	    (s->yy = het_alloc_array(na, sizeof(double), what, err)) == NULL ||
	    (s->cnt = het_alloc_array(na, sizeof(size_t), what, err)) ==
	    NULL ||
	    sep_work_alloc(s, err) != HET_OK ||
	    sep_fill(s, seen, err) != HET_OK) {
		free(seen);
		het_separable_free(s);
		return NULL;
	}
	free(seen);
	return s;
}

struct het_separable *
het_separable_alloc_angle(const struct het_resid *r, long angle,
    struct het_error *err)
{
	return het_separable_alloc_window(r, angle, 0, err);
}

struct het_separable *
het_separable_alloc(const struct het_resid *r, struct het_error *err)
{
	return het_separable_alloc_window(r, -1, 0, err);
}

struct het_separable *
het_separable_view(const struct het_separable *data, struct het_error *err)
{
	struct het_separable *s;

	if ((s = sep_new(data->r, err)) == NULL)
		return NULL;
	s->view = 1;
	s->angle = data->angle;
	s->N = data->N;
	s->npk = data->npk;
	s->U = data->U;
	s->rp = data->rp;
	s->ent = data->ent;
	s->ybar = data->ybar;
	s->yy = data->yy;
	s->cnt = data->cnt;
	if (sep_work_alloc(s, err) != HET_OK) {
		het_separable_free(s);
		return NULL;
	}
	return s;
}

/*
 * Close angle a: v = (sum r^2, d f/d contrast, d f/d offset) of f =
 * 1/2 sum r^2 from its sums (complete: y g, g, g^2 in acc; incomplete:
 * r^2, r g, r) and the rho fix-up's differences (acc[3..5]), times the
 * common weight squared.
 */
void
het_sep_close(const struct het_separable *s, size_t a, double con,
    double dd, double v[3])
{
	const double *acc = s->acc + SEP_NACC * a;
	double n = (double)s->cnt[a], gb, ss, gc, go;

	if (s->U[a] == NULL || s->direct) {
		ss = acc[0];
		gc = acc[1];
		go = acc[2];
	} else {
		/* centred: sum (dd + con g - u)^2 with sum u = 0 */
		gb = acc[1] / n;
		ss = n * (dd + con * gb) * (dd + con * gb) +
		    con * con * (acc[2] - acc[1] * gb) + s->yy[a] -
		    2.0 * con * acc[0];
		gc = (dd + con * gb) * acc[1] + con * (acc[2] - acc[1] * gb) -
		    acc[0];
		go = n * (dd + con * gb);
	}
	v[0] = s->w2 * (ss + acc[3]);
	v[1] = s->w2 * (gc + acc[4]);
	v[2] = s->w2 * (go + acc[5]);
}

void
het_sep_point(struct het_separable *s, const struct het_model_eval *mev,
    int grad)
{
	double th;
	size_t a, k;

	het_model_eval_sep(mev, &s->fr);
	s->ncomp = het_sep_components(s);
	if (s->fr.osc >= 0)
		for (a = 0; a < s->na; a++)
			for (k = 0; k < s->N; k++) {
				th = s->fr.qa[a] * s->fr.V[k];
				s->cs[a * s->N + k] = cos(th);
				s->sn[a * s->N + k] = sin(th);
			}
	if (grad)
		memset(s->adbuf, 0, het_sep_buflen(s) * sizeof(double));
	memset(s->acc, 0, SEP_NACC * s->na * sizeof(double));
	het_sep_runs(s);
	s->shift_b0 = SIZE_MAX;
	s->nblk = het_sep_blocks(s);
}

void
het_sep_angle_block(struct het_separable *s, size_t a, size_t b,
    const double *con, const double *off, const double *coef, int grad)
{
	const double *ad;
	double dd, c, *acc, rf[3];
	size_t b0 = s->blk[b], b1 = s->blk[b + 1];

	if (s->shift_b0 != b0) {
		het_sep_shift(s, b0, b1);
		s->shift_b0 = b0;
	}
	if (coef == NULL) {
		c = con[a];
		dd = off[a] - s->ybar[a];
		rf[0] = s->w2 * c * c;
		rf[1] = s->w2 * c * dd;
		rf[2] = s->w2 * c;
		ad = rf;
	} else {
		c = 1;
		dd = 0;
		ad = coef + 3 * a;
	}
	acc = s->acc + SEP_NACC * a;
	het_sep_factors(s, a, b0, b1, grad);
	if (s->U[a] == NULL)
		het_sep_pass_sparse(s, a, b0, b1, dd, c, ad, grad, acc);
	else if (s->direct) {
		het_sep_pass_direct(s, s->U[a], b0, b1, dd, c, ad, grad, acc);
		/* sum g, sum g^2 into acc[6], acc[7] (no adjoints) */
		het_sep_moments(s, b0, b1, 0, 0, 0, acc + 5);
	} else {
		het_sep_pass_full(s, s->U[a], b0, b1, -ad[2], grad, acc);
		het_sep_moments(s, b0, b1, ad[1], 0.5 * ad[0], grad, acc);
	}
	if (s->fix)
		het_sep_fixup(s, a, b0, b1, dd, c, ad, grad, acc + 3);
	if (grad)
		het_sep_fold(s, a, b0, b1);
}

/*
 * The passes of one evaluation over every block and angle, sums into
 * s->acc.  coef NULL: the residual form of each angle's contrast con[a]
 * and offset off[a]; else the sums are those of r = g - u (dd = 0,
 * con = 1) and coef[3 a], coef[3 a + 1], coef[3 a + 2] give angle a's
 * adjoint d f/d g = coef0 g + coef1 - coef2 u.
 */
static void
sep_run(struct het_separable *s, const struct het_model_eval *mev,
    const double *con, const double *off, const double *coef, int grad)
{
	size_t b, a;

	het_sep_point(s, mev, grad);
	for (b = 0; b < s->nblk; b++)
		for (a = 0; a < s->na; a++)
			if (s->cnt[a] > 0)
				het_sep_angle_block(s, a, b, con, off, coef,
				    grad);
}

int
het_sep_check_ev(const struct het_separable *s, const struct het_resid_eval *ev,
    int grad, struct het_error *err)
{
	if (het_resid_eval_problem(ev) != s->r)
		return het_error_set(err, HET_EINVAL, "separable likelihood: "
		    "the workspace belongs to another fitting problem");
	if (grad && het_model_eval_nfree(het_resid_eval_mev(ev)) != s->nfp)
		return het_error_set(err, HET_EINVAL, "separable likelihood: "
		    "the gradient needs a point prepared with its Jacobian "
		    "tables (het_resid_prepare with want_jac)");
	return HET_OK;
}

int
het_separable_eval(struct het_separable *s, const struct het_resid_eval *ev,
    int want_grad, struct het_model_lsq_out *out, struct het_error *err)
{
	const struct het_model_eval *mev = het_resid_eval_mev(ev);
	const double *con, *off;
	double v[3];
	size_t a;
	int grad = want_grad != 0, rc;

	if ((rc = het_sep_check_ev(s, ev, grad, err)) != HET_OK)
		return rc;
	het_resid_angle_scaling(ev, &con, &off);
	sep_run(s, mev, con, off, NULL, grad);
	for (a = 0; a < s->na; a++) {
		if (s->cnt[a] == 0)
			continue;
		het_sep_close(s, a, con[a], off[a] - s->ybar[a], v);
		out->ss += v[0];
		if (grad) {
			out->gcon[a] += v[1];
			out->goff[a] += v[2];
		}
	}
	if (grad && s->nfp > 0)
		het_model_eval_sep_adjoint(mev, &s->ad, out->gfree);
	return HET_OK;
}

int
het_separable_moments(struct het_separable *s,
    const struct het_resid_eval *ev, double *mom, struct het_error *err)
{
	const double *acc;
	double *m, r2, rg, yy;
	size_t a;
	int rc;

	if ((rc = het_sep_check_ev(s, ev, 0, err)) != HET_OK)
		return rc;
	sep_run(s, het_resid_eval_mev(ev), NULL, NULL, s->zero, 0);
	for (a = 0; a < s->na; a++) {
		acc = s->acc + SEP_NACC * a;
		m = mom + HET_SEP_NMOM * a;
		yy = s->yy[a];
		m[0] = (double)s->cnt[a];
		m[4] = yy;
		m[5] = s->ybar[a];
		/*
		 * The passes summed r = g - u (sum u = 0: u is centred);
		 * complete angles give sum u g, sum g, sum g^2 directly, the
		 * rho fix-up and incomplete angles sums of r^2, r g, r, and
		 * r^2 = g^2 - 2 g u + u^2, r g = g^2 - g u.
		 */
		if (s->U[a] != NULL) {
			m[1] = acc[1] + acc[5];
			m[3] = acc[0] + acc[4] - acc[3];
			m[2] = acc[2] + acc[4] + (acc[4] - acc[3]);
		} else {
			r2 = acc[0] + acc[3];
			rg = acc[1] + acc[4];
			m[1] = acc[2] + acc[5];
			m[3] = rg - (r2 - yy);
			m[2] = rg + m[3];
		}
	}
	return HET_OK;
}

int
het_separable_adjoint(struct het_separable *s,
    const struct het_resid_eval *ev, const double *coef, double *gfree,
    struct het_error *err)
{
	const struct het_model_eval *mev = het_resid_eval_mev(ev);
	int rc;

	if ((rc = het_sep_check_ev(s, ev, 1, err)) != HET_OK)
		return rc;
	sep_run(s, mev, NULL, NULL, coef, 1);
	if (s->nfp > 0)
		het_model_eval_sep_adjoint(mev, &s->ad, gfree);
	return HET_OK;
}

double
het_separable_weight2(const struct het_separable *s)
{
	return s->w2;
}

int
het_separable_loglik(struct het_separable *s, struct het_resid_eval *ev,
    const double *x, double sigma, double *ll, double *grad,
    struct het_error *err)
{
	const struct het_scaling *sc = het_resid_scaling(s->r);
	struct het_scaling_row cr, orow;
	struct het_model_lsq_out o;
	size_t a, c, p = het_resid_nparams(s->r);
	double is2;
	long col;
	int rc;

	if (!isfinite(sigma) || sigma <= 0)
		return het_error_set(err, HET_EINVAL, "separable likelihood: "
		    "the noise sigma is %g; it must be positive and finite",
		    sigma);
	if (het_resid_eval_problem(ev) != s->r)
		return het_error_set(err, HET_EINVAL, "separable likelihood: "
		    "the workspace belongs to another fitting problem");
	if ((rc = het_resid_prepare(ev, x, grad != NULL, err)) != HET_OK)
		return rc;
	is2 = 1.0 / (sigma * sigma);
	memset(&o, 0, sizeof(o));
	if (grad != NULL) {
		memset(grad, 0, p * sizeof(*grad));
		memset(s->gc, 0, s->na * sizeof(double));
		memset(s->go, 0, s->na * sizeof(double));
		o.gfree = grad;
		o.gcon = s->gc;
		o.goff = s->go;
	}
	if ((rc = het_separable_eval(s, ev, grad != NULL, &o, err)) != HET_OK)
		return rc;
	*ll = -0.5 * o.ss * is2;
	if (grad == NULL)
		return HET_OK;
	for (c = 0; c < s->nfp; c++)
		grad[c] *= -is2;
	for (a = 0; a < s->na; a++) {
		het_scaling_rows(sc, a, &cr, &orow);
		for (c = 0; c < cr.n; c++)
			if ((col = het_resid_scal_col(s->r, cr.idx[c])) >= 0)
				grad[col] -= is2 * cr.w[c] * s->gc[a];
		for (c = 0; c < orow.n; c++)
			if ((col = het_resid_scal_col(s->r, orow.idx[c])) >= 0)
				grad[col] -= is2 * orow.w[c] * s->go[a];
	}
	return HET_OK;
}
