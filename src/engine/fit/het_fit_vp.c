/*
 * het_fit_vp.c: variable projection of the scaling columns of a fit.
 *
 * Design.  With the linear loss the residuals
 *	r_k = w_k (offset_a + contrast_a g_k - y_k)
 * are affine in the scaling vector s (contrast_a and offset_a are fixed
 * linear combinations of s in every mode, het_scaling_rows), so
 *	F(theta, s_lin + d) = 1/2 rss + G^T d + 1/2 d^T H d
 * exactly, where rss, G and H follow from six per-angle sums of one data
 * pass at (theta, s_lin): sum r^2, sum u^2, sum u w, sum w^2, sum u r,
 * sum w r with u = w g (the FIT_VP_COST mode of the chunk function).
 * The best scaling inside its bounds is the solution of that small
 * box-constrained quadratic program (a primal active-set method on a
 * Cholesky factor; the dimension is the number of scaling columns).
 * The quadratic is expanded around s_lin, the best scaling of the
 * solver's current point, so the terms stay of the size of the residuals
 * and no precision is lost to cancellation.
 *
 * The trust-region solver (het_nlsq) then minimises the projected cost
 * phi(theta) = min_s F(theta, s) over the physics columns only.  Its
 * gradient is the physics part of J^T r at the best scaling (the
 * scaling part vanishes there, or points into an active bound), and its
 * Gauss-Newton matrix is Kaufman's: the Schur complement
 *	J_tt^T J_tt - J_tt^T J_f (J_f^T J_f)^-1 J_f^T J_tt
 * over the free (not bound-active) scaling columns f.  Both come from a
 * normal-equation pass at (theta, s_best).  A cost evaluation costs one
 * data pass, an accepted step one more (the cost pass of the trial is
 * not repeated), as in the joint fit; but the solver no longer spends
 * iterations on the 2 n_angles scaling columns, whose coupling with the
 * physics made the joint problem crawl along flat valleys.
 *
 * Everything is sequential on the calling thread apart from the pooled
 * data passes, so results stay bit-identical for any thread count.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_util.h"

#define VP_RIDGE	1e-13	/* relative diagonal shift of a factor */
#define VP_INSIDE	1e-10	/* keep scaling this far inside bounds */

/*
 * The box of scaling column m, shrunk by VP_INSIDE max(1, |bound|) as
 * SciPy's make_strictly_feasible does: like the solver's iterates, a
 * projected scaling stays strictly inside its bounds.
 */
static double
in_lo(const struct fit_prob *fp, size_t m)
{
	double l = fp->lo[fp->nfp + m];

	return isfinite(l) ? l + VP_INSIDE * fmax(1.0, fabs(l)) : l;
}

static double
in_hi(const struct fit_prob *fp, size_t m)
{
	double h = fp->hi[fp->nfp + m];

	return isfinite(h) ? h - VP_INSIDE * fmax(1.0, fabs(h)) : h;
}

void
het_fit_vp_fini(struct fit_eval *fe)
{
	struct fit_vp *vp = &fe->vp;

	free(vp->s_lin);
	free(vp->s_opt);
	free(vp->th_opt);
	free(vp->H);
	free(vp->G);
	free(vp->ds);
	free(vp->L);
	free(vp->t);
	free(vp->dlo);
	free(vp->dhi);
	free(vp->act);
	free(vp->accf);
	free(vp->X);
	free(vp->tmp);
	free(vp->idx);
	free(vp->spec);
	memset(vp, 0, sizeof(*vp));
}

int
het_fit_vp_init(struct fit_eval *fe, struct het_error *err)
{
	const struct fit_prob *fp = fe->fp;
	struct fit_vp *vp = &fe->vp;
	size_t ns = fp->ns, nfp = fp->nfp, p = fp->p;

	memset(vp, 0, sizeof(*vp));
	vp->s_lin = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->s_opt = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->th_opt = het_alloc_array(nfp, sizeof(double), "fit", err);
	vp->H = het_alloc_array(ns * ns, sizeof(double), "fit", err);
	vp->G = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->ds = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->L = het_alloc_array(ns * ns, sizeof(double), "fit", err);
	vp->t = het_alloc_array(p, sizeof(double), "fit", err);
	vp->tmp = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->idx = het_alloc_array(ns, sizeof(size_t), "fit", err);
	vp->spec = het_alloc_array(het_nlsq_acc_len(nfp), sizeof(double),
	    "fit", err);
	vp->dlo = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->dhi = het_alloc_array(ns, sizeof(double), "fit", err);
	vp->act = het_alloc_array(ns, 1, "fit", err);
	vp->accf = het_alloc_array(het_nlsq_acc_len(p), sizeof(double),
	    "fit", err);
	vp->X = het_alloc_array(ns * nfp, sizeof(double), "fit", err);
	if (vp->s_lin == NULL || vp->s_opt == NULL || vp->th_opt == NULL ||
	    vp->H == NULL || vp->G == NULL || vp->ds == NULL ||
	    vp->L == NULL || vp->t == NULL || vp->dlo == NULL ||
	    vp->dhi == NULL || vp->act == NULL || vp->accf == NULL ||
	    vp->X == NULL || vp->tmp == NULL || vp->idx == NULL ||
	    vp->spec == NULL) {
		het_fit_vp_fini(fe);
		return HET_ENOMEM;
	}
	return HET_OK;
}

void
het_fit_vp_start(struct fit_eval *fe, const double *s0)
{
	const struct fit_prob *fp = fe->fp;
	struct fit_vp *vp = &fe->vp;
	size_t m;

	for (m = 0; m < fp->ns; m++)
		vp->s_lin[m] = fmin(fmax(s0[m], in_lo(fp, m)), in_hi(fp, m));
	vp->opt_valid = 0;
	vp->spec_valid = 0;
	fe->pending = 0;
	fe->spec_valid = 0;
}

const double *
het_fit_vp_scaling(const struct fit_eval *fe)
{
	return fe->vp.s_lin;
}

/* ------------------------------------------------------------------ */
/* Dense helpers (the scaling block is small). */

/*
 * Cholesky factor (lower, row-major, leading dimension ld) of the n x n
 * symmetric matrix A restricted to the index list idx, with a relative
 * diagonal shift; a pivot that vanishes marks an exactly dependent
 * column, whose solution component is then set to 0 (inv pivot 0).
 */
static void
chol(size_t n, const size_t *idx, const double *A, size_t lda, double *L)
{
	size_t i, j, k;
	double s, d;

	for (i = 0; i < n; i++)
		for (j = 0; j <= i; j++) {
			s = A[idx[i] * lda + idx[j]];
			if (i == j)
				s *= 1.0 + VP_RIDGE;
			for (k = 0; k < j; k++)
				s -= L[i * n + k] * L[j * n + k];
			if (i == j) {
				d = A[idx[i] * lda + idx[i]];
				L[i * n + i] = s > 1e3 * VP_RIDGE * d && d > 0 ?
				    sqrt(s) : 0.0;
			} else
				L[i * n + j] = L[j * n + j] > 0 ?
				    s / L[j * n + j] : 0.0;
		}
}

/* Solve L L^T x = b in place (b: n values). */
static void
chol_solve(size_t n, const double *L, double *b)
{
	size_t i, k;
	double s;

	for (i = 0; i < n; i++) {
		s = b[i];
		for (k = 0; k < i; k++)
			s -= L[i * n + k] * b[k];
		b[i] = L[i * n + i] > 0 ? s / L[i * n + i] : 0.0;
	}
	for (i = n; i-- > 0;) {
		s = b[i];
		for (k = i + 1; k < n; k++)
			s -= L[k * n + i] * b[k];
		b[i] = L[i * n + i] > 0 ? s / L[i * n + i] : 0.0;
	}
}

/*
 * H (ns x ns, full), G and the residual sum of squares of the cost pass
 * from the compact sums ca.
 */
static double
vp_assemble(const struct fit_prob *fp, const double *ca, struct fit_vp *vp)
{
	size_t ns = fp->ns, nfp = fp->nfp, a, e, e2, m, m2;
	const double *b;
	double rss = 0.0, wc, wo;

	memset(vp->H, 0, ns * ns * sizeof(double));
	memset(vp->G, 0, ns * sizeof(double));
	for (a = 0; a < fp->na; a++) {
		rss += ca[1 + a];
		b = ca + fp->off_ang + a * fp->astride;
		for (e = fp->aoff[a]; e < fp->aoff[a + 1]; e++) {
			m = fp->acol[e] - nfp;
			wc = fp->awc[e];
			wo = fp->awo[e];
			vp->G[m] += wc * b[3] + wo * b[4];
			for (e2 = fp->aoff[a]; e2 < fp->aoff[a + 1]; e2++) {
				m2 = fp->acol[e2] - nfp;
				vp->H[m * ns + m2] += wc * fp->awc[e2] * b[0] +
				    (wc * fp->awo[e2] + wo * fp->awc[e2]) *
				    b[1] + wo * fp->awo[e2] * b[2];
			}
		}
	}
	return rss;
}

/*
 * The box QP min G^T d + 1/2 d^T H d, dlo <= d <= dhi (dlo <= 0 <= dhi),
 * by a primal active-set method from d = 0.  Leaves d in vp->ds and the
 * active bounds in vp->act.  idx and tmp are ns scratch entries.
 */
static void
vp_qp(size_t ns, struct fit_vp *vp, size_t *idx, double *tmp)
{
	double *d = vp->ds, *H = vp->H, alpha, v, worst, gm;
	size_t nf, i, m, k, it, block = 0;
	int side = 0;

	memset(d, 0, ns * sizeof(double));
	memset(vp->act, 0, ns);
	for (it = 0; it < 4 * ns + 20; it++) {
		nf = 0;
		for (m = 0; m < ns; m++)
			if (!vp->act[m])
				idx[nf++] = m;
		if (nf > 0) {
			/* Minimiser over the free set, the rest fixed. */
			for (i = 0; i < nf; i++) {
				m = idx[i];
				v = -vp->G[m];
				for (k = 0; k < ns; k++)
					if (vp->act[k])
						v -= H[m * ns + k] * d[k];
				tmp[i] = v;
			}
			chol(nf, idx, H, ns, vp->L);
			chol_solve(nf, vp->L, tmp);
			alpha = 1.0;
			side = 0;
			for (i = 0; i < nf; i++) {
				m = idx[i];
				if (tmp[i] < vp->dlo[m] && tmp[i] < d[m]) {
					v = (vp->dlo[m] - d[m]) / (tmp[i] - d[m]);
					if (v < alpha) {
						alpha = v;
						block = m;
						side = 1;
					}
				} else if (tmp[i] > vp->dhi[m] && tmp[i] > d[m]) {
					v = (vp->dhi[m] - d[m]) / (tmp[i] - d[m]);
					if (v < alpha) {
						alpha = v;
						block = m;
						side = 2;
					}
				}
			}
			for (i = 0; i < nf; i++)
				d[idx[i]] += alpha * (tmp[i] - d[idx[i]]);
			if (side != 0) {
				vp->act[block] = (unsigned char)side;
				d[block] = side == 1 ? vp->dlo[block] :
				    vp->dhi[block];
				continue;
			}
		}
		/* Optimal on the free set: release the worst bound. */
		worst = 0.0;
		side = 0;
		for (m = 0; m < ns; m++) {
			if (!vp->act[m])
				continue;
			gm = vp->G[m];
			for (k = 0; k < ns; k++)
				gm += H[m * ns + k] * d[k];
			v = vp->act[m] == 1 ? -gm : gm;
			if (v > worst) {
				worst = v;
				block = m;
				side = 1;
			}
		}
		if (side == 0)
			return;
		vp->act[block] = 0;
	}
}

static void vp_schur(const struct fit_prob *fp, struct fit_vp *vp,
    double *acc);
static void vp_spec(struct fit_eval *fe);

/*
 * Cost pass at (theta, s_lin) and the best scaling; mode FIT_VP_COST,
 * or FIT_FULL_PA to build the projected normal equations at the best
 * scaling from the same pass (vp->spec, when possible).
 */
static int
vp_cost(struct fit_eval *fe, const double *theta, enum fit_mode mode,
    struct het_error *err)
{
	const struct fit_prob *fp = fe->fp;
	struct fit_vp *vp = &fe->vp;
	size_t ns = fp->ns, nfp = fp->nfp, m, k;
	double rss, c, q;
	int rc;

	memcpy(vp->t, theta, nfp * sizeof(double));
	memcpy(vp->t + nfp, vp->s_lin, ns * sizeof(double));
	vp->spec_valid = 0;
	if ((rc = het_fit_eval_pass(fe, vp->t, mode, err)) != HET_OK)
		return rc;
	rss = vp_assemble(fp, fe->cacc, vp);
	for (m = 0; m < ns; m++) {
		vp->dlo[m] = fmin(in_lo(fp, m) - vp->s_lin[m], 0.0);
		vp->dhi[m] = fmax(in_hi(fp, m) - vp->s_lin[m], 0.0);
	}
	vp_qp(ns, vp, vp->idx, vp->tmp);
	c = 0.0;
	for (m = 0; m < ns; m++) {
		q = vp->G[m];
		for (k = 0; k < ns; k++)
			q += 0.5 * vp->H[m * ns + k] * vp->ds[k];
		c += q * vp->ds[m];
		vp->s_opt[m] = fmin(fmax(vp->s_lin[m] + vp->ds[m],
		    in_lo(fp, m)), in_hi(fp, m));
	}
	vp->cost_opt = fmax(0.5 * rss + c, 0.0);
	memcpy(vp->th_opt, theta, nfp * sizeof(double));
	vp->opt_valid = 1;
	if (mode == FIT_FULL_PA)
		vp_spec(fe);
	return HET_OK;
}

/*
 * The normal equations at (theta, s_opt) from a FIT_FULL_PA pass at
 * (theta, s_lin), into vp->spec.  Only the contrast enters the physics
 * rows (dr/dtheta = w contrast_a dg/dtheta), so with rho_a = contrast_a
 * at s_opt over contrast_a at s_lin and the shifts dc_a, do_a of
 * contrast and offset, every sum at s_opt is an exact combination of
 * the per-angle sums at s_lin (r at s_opt = r + dc_a u + do_a w).  Not
 * possible when a contrast at s_lin is 0; spec_valid then stays 0.
 */
static void
vp_spec(struct fit_eval *fe)
{
	const struct fit_prob *fp = fe->fp;
	struct fit_vp *vp = &fe->vp;
	const double *ca = fe->cacc, *con, *off, *b, *B;
	size_t p = fp->p, nfp = fp->nfp, na = fp->na, a, e, e2, i, j, m, m2;
	double *acc = vp->accf, *g = acc + HET_NLSQ_ACC_G;
	double *J = acc + het_nlsq_acc_jtj(p), dc, dop, rho, wc, wo, u3, u4;

	het_resid_angle_scaling(fe->ev, &con, &off);
	for (a = 0; a < na; a++)
		if (fp->aoff[a + 1] > fp->aoff[a] && fp->npa[a] > 0 &&
		    con[a] == 0)
			return;
	memset(acc, 0, het_nlsq_acc_len(p) * sizeof(double));
	acc[HET_NLSQ_ACC_COST] = vp->cost_opt;
	acc[HET_NLSQ_ACC_RSS] = 2.0 * vp->cost_opt;
	for (a = 0; a < na; a++) {
		if (fp->npa[a] == 0)
			continue;
		b = ca + fp->off_ang + a * fp->astride;
		B = ca + fp->off_pa + a * fp->pastride;
		dc = dop = 0.0;
		for (e = fp->aoff[a]; e < fp->aoff[a + 1]; e++) {
			m = fp->acol[e] - nfp;
			dc += fp->awc[e] * (vp->s_opt[m] - vp->s_lin[m]);
			dop += fp->awo[e] * (vp->s_opt[m] - vp->s_lin[m]);
		}
		rho = con[a] != 0 ? (con[a] + dc) / con[a] : 1.0;
		for (i = 0; i < nfp; i++) {
			g[i] += rho * (B[nfp * nfp + i] + dc * b[5 + i] +
			    dop * b[5 + nfp + i]);
			for (j = i; j < nfp; j++)
				J[i * p + j] += rho * rho * B[i * nfp + j];
		}
		/* sum u r and sum w r at s_opt. */
		u3 = b[3] + dc * b[0] + dop * b[1];
		u4 = b[4] + dc * b[1] + dop * b[2];
		for (e = fp->aoff[a]; e < fp->aoff[a + 1]; e++) {
			m = fp->acol[e];
			wc = fp->awc[e];
			wo = fp->awo[e];
			g[m] += wc * u3 + wo * u4;
			for (i = 0; i < nfp; i++)
				J[i * p + m] += rho * (wc * b[5 + i] +
				    wo * b[5 + nfp + i]);
			for (e2 = fp->aoff[a]; e2 < fp->aoff[a + 1]; e2++) {
				m2 = fp->acol[e2];
				if (m2 < m)
					continue;
				J[m * p + m2] += wc * fp->awc[e2] * b[0] +
				    (wc * fp->awo[e2] + wo * fp->awc[e2]) *
				    b[1] + wo * fp->awo[e2] * b[2];
			}
		}
	}
	vp_schur(fp, vp, vp->spec);
	vp->spec_valid = 1;
}

/*
 * The projected normal equations into acc (nfp layout) from the full
 * accumulator vp->accf at (theta, s_opt): physics gradient and the
 * Schur complement of the free scaling block.
 */
static void
vp_schur(const struct fit_prob *fp, struct fit_vp *vp, double *acc)
{
	size_t p = fp->p, nfp = fp->nfp, ns = fp->ns, nf = 0, i, j, k;
	size_t *idx = vp->idx;
	const double *Jf = vp->accf + het_nlsq_acc_jtj(p);
	double *Jr = acc + het_nlsq_acc_jtj(nfp), *X = vp->X, s;

	acc[HET_NLSQ_ACC_COST] = vp->accf[HET_NLSQ_ACC_COST];
	acc[HET_NLSQ_ACC_RSS] = vp->accf[HET_NLSQ_ACC_RSS];
	memcpy(acc + HET_NLSQ_ACC_G, vp->accf + HET_NLSQ_ACC_G,
	    nfp * sizeof(double));
	/* Full symmetric scaling block into H (upper triangle stored). */
	for (i = 0; i < ns; i++)
		for (j = i; j < ns; j++)
			vp->H[i * ns + j] = vp->H[j * ns + i] =
			    Jf[(nfp + i) * p + nfp + j];
	for (k = 0; k < ns; k++)
		if (!vp->act[k])
			idx[nf++] = k;
	chol(nf, idx, vp->H, ns, vp->L);
	/* X[:, c] = C_ff^-1 B_f[c] for every physics column c. */
	for (j = 0; j < nfp; j++) {
		for (i = 0; i < nf; i++)
			X[j * ns + i] = Jf[j * p + nfp + idx[i]];
		chol_solve(nf, vp->L, X + j * ns);
	}
	for (i = 0; i < nfp; i++)
		for (j = i; j < nfp; j++) {
			s = Jf[i * p + j];
			for (k = 0; k < nf; k++)
				s -= Jf[i * p + nfp + idx[k]] * X[j * ns + k];
			Jr[i * nfp + j] = s;
		}
}

int
het_fit_eval_vp_cb(void *ctx, const double *x, int want_jac, double *acc,
    struct het_error *err)
{
	struct fit_eval *fe = ctx;
	const struct fit_prob *fp = fe->fp;
	struct fit_vp *vp = &fe->vp;
	size_t nfp = fp->nfp, ns = fp->ns;
	int rc, spec;

	spec = het_fit_eval_spec(fe, want_jac);
	if (!vp->opt_valid || memcmp(vp->th_opt, x, nfp * sizeof(double)) !=
	    0) {
		vp->opt_valid = 0;
		if ((rc = vp_cost(fe, x, !want_jac && spec ? FIT_FULL_PA :
		    FIT_VP_COST, err)) != HET_OK)
			return rc;
	}
	if (!want_jac) {
		acc[HET_NLSQ_ACC_COST] = vp->cost_opt;
		acc[HET_NLSQ_ACC_RSS] = 2.0 * vp->cost_opt;
		return HET_OK;
	}
	if (vp->spec_valid) {
		/* The accepted trial: its normal equations are in. */
		memcpy(acc, vp->spec, het_nlsq_acc_len(nfp) * sizeof(double));
		memcpy(vp->s_lin, vp->s_opt, ns * sizeof(double));
		vp->spec_valid = 0;
		return HET_OK;
	}
	memcpy(vp->t, x, nfp * sizeof(double));
	memcpy(vp->t + nfp, vp->s_opt, ns * sizeof(double));
	if ((rc = het_fit_eval_pass(fe, vp->t, FIT_FULL, err)) != HET_OK)
		return rc;
	het_fit_expand(fp, fe->cacc, 1, vp->accf);
	vp_schur(fp, vp, acc);
	memcpy(vp->s_lin, vp->s_opt, ns * sizeof(double));
	return HET_OK;
}
