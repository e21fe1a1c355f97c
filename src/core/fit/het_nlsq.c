/*
 * het_nlsq.c: the bounded trust-region reflective solver (TRF) on the
 * normal equations.
 *
 * Design.  The iteration is SciPy's trf_bounds, step for step, so that
 * hetui and least_squares(method='trf', x_scale='jac') agree on problems
 * where both converge; the only change is linear algebra.  SciPy takes
 * the SVD of the augmented scaled Jacobian
 *	J_aug = [ J diag(d) ; diag(diag_h)^(1/2) ]
 * and uses its singular values s, right vectors V and U^T f_aug.  Here
 * the caller supplies J^T J and g = J^T f instead, and
 *	A = J_aug^T J_aug = D J^T J D + diag(diag_h) = V S^2 V^T
 * (LAPACK dsyevr) gives the same s and V, while s * (U^T f_aug) =
 * V^T (d * g) = V^T g_h, which is all solve_lsq_trust_region needs.  The
 * quadratic model values of select_step are 1/2 s^T A s + g_h^T s.
 * Forming J^T J squares the condition number, so eigenvalues below
 * 100 p eps of the largest are set to zero (with their components of
 * V^T g_h): rank-deficient problems then get minimum-norm steps, and
 * when such a step lies inside the trust region it is taken as the
 * Gauss-Newton step (SciPy only tries that for full rank).
 *
 * Workspace: every vector is allocated by het_nlsq_alloc; dsyevr's work
 * arrays are sized there by a workspace query, so init and iterate never
 * allocate.  Comments name SciPy's variables where they correspond.
 */
#include "config.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_nlsq.h"
#include "het_util.h"

#define EPS		DBL_EPSILON
#define RANK_RTOL	100.0		/* times p eps: zero eigenvalue */

#include "het_nlsq_impl.h"

static const char *const reason_names[HET_NLSQ_REASON_COUNT] = {
	"running", "gtol", "ftol", "xtol", "ftol_xtol", "max_nfev",
	"max_iterations", "cancelled", "failed", "screened"
};

static const char *const reason_texts[HET_NLSQ_REASON_COUNT] = {
	"The fit has not stopped yet.",
	"Converged: the scaled gradient fell below gtol.",
	"Converged: the relative cost reduction fell below ftol.",
	"Converged: the relative step size fell below xtol.",
	"Converged: both the cost reduction and the step fell below "
	    "ftol and xtol.",
	"Stopped: the limit on function evaluations (max_nfev) was reached "
	    "before convergence.",
	"Stopped: the iteration limit (max_iterations) was reached before "
	    "convergence.",
	"Stopped: the fit was cancelled; the result is the last accepted "
	    "point.",
	"Stopped: an evaluation of the model failed.",
	"Stopped: this multistart start was dropped after its screening "
	    "iterations because others had reached lower costs."
};

const char *
het_nlsq_reason_name(enum het_nlsq_reason reason)
{
	if ((unsigned)reason >= HET_NLSQ_REASON_COUNT)
		return "unknown";
	return reason_names[reason];
}

const char *
het_nlsq_reason_text(enum het_nlsq_reason reason)
{
	if ((unsigned)reason >= HET_NLSQ_REASON_COUNT)
		return "Unknown stopping reason.";
	return reason_texts[reason];
}

int
het_nlsq_reason_converged(enum het_nlsq_reason reason)
{
	return reason == HET_NLSQ_GTOL || reason == HET_NLSQ_FTOL ||
	    reason == HET_NLSQ_XTOL || reason == HET_NLSQ_FTOL_XTOL;
}

void
het_nlsq_default_params(struct het_nlsq_params *par)
{
	memset(par, 0, sizeof(*par));
	par->loss = HET_LOSS_LINEAR;
	par->f_scale = 1.0;
	par->ftol = 1e-8;
	par->xtol = 1e-8;
	par->gtol = 1e-8;
	par->x_scale_jac = 1;
	par->x_scale = NULL;
	par->max_nfev = 0;
	par->max_iter = 0;
}

struct het_nlsq *
het_nlsq_alloc(size_t p, struct het_error *err)
{
	struct het_nlsq *w;
	double wq;
	lapack_int iq, m, info, np;
	size_t k;

	if (p == 0 || p > 4096) {
		het_error_set(err, HET_EINVAL, "least squares: the number of "
		    "parameters is %zu; it must be between 1 and 4096", p);
		return NULL;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		het_error_set(err, HET_ENOMEM, "least squares: out of memory");
		return NULL;
	}
	w->p = p;
	{
		double **pv[] = { &w->x, &w->lo, &w->hi, &w->g, &w->scale,
		    &w->scale_inv, &w->v, &w->dv, &w->d, &w->diag_h, &w->g_h,
		    &w->lam, &w->s, &w->suf, &w->p_h, &w->pst, &w->r_h,
		    &w->rst, &w->ag_h, &w->ag, &w->tmp, &w->tmp2, &w->step,
		    &w->step_h, &w->x_new };

		for (k = 0; k < sizeof(pv) / sizeof(pv[0]); k++)
			if ((*pv[k] = het_alloc_array(p, sizeof(double),
			    "least squares", err)) == NULL)
				goto fail;
	}
	w->acc = het_alloc_array(het_nlsq_acc_len(p), sizeof(double),
	    "least squares", err);
	w->jtj = het_alloc_array(p * p, sizeof(double), "least squares", err);
	w->A = het_alloc_array(p * p, sizeof(double), "least squares", err);
	w->Z = het_alloc_array(p * p, sizeof(double), "least squares", err);
	w->M = het_alloc_array(p * p, sizeof(double), "least squares", err);
	w->keep = het_alloc_array(p, 1, "least squares", err);
	w->isuppz = het_alloc_array(2 * p, sizeof(lapack_int),
	    "least squares", err);
	if (w->acc == NULL || w->jtj == NULL || w->A == NULL ||
	    w->Z == NULL || w->M == NULL || w->keep == NULL || w->isuppz == NULL)
		goto fail;
	/* dsyevr workspace query on the (zero) matrix A. */
	np = (lapack_int)p;
	info = LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', np, w->M,
	    np, 0, 0, 0, 0, 0.0, &m, w->lam, w->Z, np, w->isuppz, &wq, -1,
	    &iq, -1);
	if (info != 0) {
		het_error_set(err, HET_EINTERNAL, "least squares: the LAPACK "
		    "workspace query of dsyevr failed (info %d)", (int)info);
		goto fail;
	}
	w->lwork = (lapack_int)wq + 1;
	w->liwork = iq + 1;
	w->work = het_alloc_array((size_t)w->lwork, sizeof(double),
	    "least squares", err);
	w->iwork = het_alloc_array((size_t)w->liwork, sizeof(lapack_int),
	    "least squares", err);
	if (w->work == NULL || w->iwork == NULL)
		goto fail;
	return w;
fail:
	het_nlsq_free(w);
	return NULL;
}

void
het_nlsq_free(struct het_nlsq *w)
{
	if (w == NULL)
		return;
	free(w->x); free(w->lo); free(w->hi); free(w->g); free(w->scale);
	free(w->scale_inv); free(w->v); free(w->dv); free(w->d);
	free(w->diag_h); free(w->g_h); free(w->lam); free(w->s);
	free(w->suf); free(w->p_h); free(w->pst); free(w->r_h);
	free(w->rst); free(w->ag_h); free(w->ag); free(w->tmp);
	free(w->tmp2); free(w->step); free(w->step_h); free(w->x_new);
	free(w->acc); free(w->jtj); free(w->A); free(w->M); free(w->Z); free(w->keep);
	free(w->isuppz); free(w->work); free(w->iwork);
	het_nlsq_set_blocks(w, 0, NULL, 0, NULL);
	free(w);
}

/* SciPy make_strictly_feasible with rstep = 0 (nextafter) or > 0. */
static void
strictly_feasible(size_t p, double *x, const double *lo, const double *hi,
    double rstep)
{
	double ld, ud, lt, ut;
	size_t i;

	for (i = 0; i < p; i++) {
		if (rstep == 0) {
			if (x[i] <= lo[i])
				x[i] = nextafter(lo[i], hi[i]);
			else if (x[i] >= hi[i])
				x[i] = nextafter(hi[i], lo[i]);
		} else {
			ld = x[i] - lo[i];
			ud = hi[i] - x[i];
			lt = rstep * fmax(1.0, fabs(lo[i]));
			ut = rstep * fmax(1.0, fabs(hi[i]));
			if (isfinite(lo[i]) && ld <= fmin(ud, lt))
				x[i] = lo[i] + lt;
			else if (isfinite(hi[i]) && ud <= fmin(ld, ut))
				x[i] = hi[i] - ut;
		}
		if (x[i] < lo[i] || x[i] > hi[i])
			x[i] = 0.5 * (lo[i] + hi[i]);
	}
}

/* SciPy CL_scaling_vector, and the gtol measure ||v g||_inf. */
static void
cl_scaling(struct het_nlsq *w)
{
	size_t i;
	double gn = 0.0;

	for (i = 0; i < w->p; i++) {
		w->v[i] = 1.0;
		w->dv[i] = 0.0;
		if (w->g[i] < 0 && isfinite(w->hi[i])) {
			w->v[i] = w->hi[i] - w->x[i];
			w->dv[i] = -1.0;
		} else if (w->g[i] > 0 && isfinite(w->lo[i])) {
			w->v[i] = w->x[i] - w->lo[i];
			w->dv[i] = 1.0;
		}
		gn = fmax(gn, fabs(w->g[i] * w->v[i]));
	}
	w->g_norm = gn;
}

/* Take g and J^T J (upper triangle, mirrored) out of an accumulator. */
static void
take_normal(struct het_nlsq *w, const double *acc)
{
	const double *J = acc + het_nlsq_acc_jtj(w->p);
	size_t i, j, p = w->p;

	memcpy(w->g, acc + HET_NLSQ_ACC_G, p * sizeof(double));
	for (i = 0; i < p; i++)
		for (j = i; j < p; j++) {
			w->jtj[i * p + j] = J[i * p + j];
			w->jtj[j * p + i] = J[i * p + j];
		}
	w->cost = acc[HET_NLSQ_ACC_COST];
	w->rss = acc[HET_NLSQ_ACC_RSS];
}

/* SciPy compute_jac_scale: column norms, never decreasing. */
static void
jac_scale(struct het_nlsq *w, int first)
{
	size_t i;
	double c;

	for (i = 0; i < w->p; i++) {
		c = sqrt(fmax(w->jtj[i * w->p + i], 0.0));
		if (first)
			w->scale_inv[i] = c == 0 ? 1.0 : c;
		else
			w->scale_inv[i] = fmax(c, w->scale_inv[i]);
		w->scale[i] = 1.0 / w->scale_inv[i];
	}
}

/* The tests at the top of SciPy's loop: gtol, max_nfev, max_iter. */
static void
top_tests(struct het_nlsq *w)
{
	cl_scaling(w);
	if (w->g_norm < w->par.gtol)
		w->reason = HET_NLSQ_GTOL;
	if (w->reason != HET_NLSQ_RUNNING)
		return;
	if (w->nfev >= w->max_nfev)
		w->reason = HET_NLSQ_MAX_NFEV;
	else if (w->par.max_iter > 0 && w->iter >= w->par.max_iter)
		w->reason = HET_NLSQ_MAX_ITER;
}

int
het_nlsq_init(struct het_nlsq *w, het_nlsq_eval_fn fn, void *ctx, size_t n,
    const double *x0, const double *lo, const double *hi,
    const struct het_nlsq_params *par, struct het_error *err)
{
	size_t i, p = w->p;
	double s;
	int rc;

	w->ready = 0;
	if (fn == NULL || x0 == NULL || lo == NULL || hi == NULL ||
	    par == NULL)
		return het_error_set(err, HET_EINVAL, "least squares: the "
		    "evaluation function, start and bounds are required");
	if (n == 0)
		return het_error_set(err, HET_EINVAL, "least squares: there "
		    "are no residuals to fit");
	if (!(par->f_scale > 0) || !isfinite(par->f_scale))
		return het_error_set(err, HET_EINVAL, "least squares: f_scale "
		    "= %g; it must be a finite number > 0", par->f_scale);
	if (!(par->ftol >= 0) || !(par->xtol >= 0) || !(par->gtol >= 0))
		return het_error_set(err, HET_EINVAL, "least squares: ftol, "
		    "xtol and gtol must be >= 0 (got %g, %g, %g)", par->ftol,
		    par->xtol, par->gtol);
	if ((unsigned)par->loss >= HET_LOSS_COUNT)
		return het_error_set(err, HET_EINVAL, "least squares: unknown "
		    "loss function %d", (int)par->loss);
	if (!(par->radius0 >= 0) || !isfinite(par->radius0))
		return het_error_set(err, HET_EINVAL, "least squares: the "
		    "initial radius factor is %g; it must be >= 0 (0 = "
		    "SciPy's default)", par->radius0);
	if (par->max_nfev < 0 || par->max_iter < 0)
		return het_error_set(err, HET_EINVAL, "least squares: "
		    "max_nfev and max_iterations must be >= 0 (0 = default)");
	for (i = 0; i < p; i++) {
		if (isnan(lo[i]) || isnan(hi[i]) || !(lo[i] < hi[i]))
			return het_error_set(err, HET_EINVAL, "least squares: "
			    "the bounds of parameter %zu are [%g, %g]; the "
			    "lower bound must be below the upper one", i,
			    lo[i], hi[i]);
		if (!isfinite(x0[i]) || x0[i] < lo[i] || x0[i] > hi[i])
			return het_error_set(err, HET_EINVAL, "least squares: "
			    "the start %g of parameter %zu is outside its "
			    "bounds [%g, %g]", x0[i], i, lo[i], hi[i]);
		if (!par->x_scale_jac && par->x_scale != NULL &&
		    !(par->x_scale[i] > 0 && isfinite(par->x_scale[i])))
			return het_error_set(err, HET_EINVAL, "least squares: "
			    "x_scale of parameter %zu is %g; it must be > 0",
			    i, par->x_scale[i]);
	}
	w->fn = fn;
	w->ctx = ctx;
	w->n = n;
	w->par = *par;
	w->par.x_scale = NULL;
	w->max_nfev = par->max_nfev > 0 ? par->max_nfev : 100 * (long)p;
	memcpy(w->lo, lo, p * sizeof(double));
	memcpy(w->hi, hi, p * sizeof(double));
	memcpy(w->x, x0, p * sizeof(double));
	strictly_feasible(p, w->x, w->lo, w->hi, 1e-10);
	w->iter = 0;
	w->nfev = 1;
	w->njev = 1;
	w->alpha = 0.0;
	w->step_norm = 0.0;
	w->reduction = 0.0;
	w->reason = HET_NLSQ_RUNNING;
	if ((rc = fn(ctx, w->x, 1, w->acc, err)) != HET_OK)
		return rc;
	if (!isfinite(w->acc[HET_NLSQ_ACC_COST]))
		return het_error_set(err, HET_EDATA, "least squares: the cost "
		    "at the start is not finite; check the start values and "
		    "the data");
	take_normal(w, w->acc);
	if (par->x_scale_jac)
		jac_scale(w, 1);
	else
		for (i = 0; i < p; i++) {
			w->scale[i] = par->x_scale != NULL ? par->x_scale[i] :
			    1.0;
			w->scale_inv[i] = 1.0 / w->scale[i];
		}
	/* Delta = ||x0 scale_inv / v^(1/2)|| with v in scaled variables. */
	cl_scaling(w);
	s = 0.0;
	for (i = 0; i < p; i++) {
		double vi = w->v[i] * (w->dv[i] != 0 ? w->scale_inv[i] : 1.0);
		double t = w->x[i] * w->scale_inv[i] / sqrt(vi);

		s += t * t;
	}
	w->Delta = sqrt(s);
	if (w->Delta == 0 || !isfinite(w->Delta))
		w->Delta = 1.0;
	if (par->radius0 > 0)
		w->Delta *= par->radius0;
	w->ready = 1;
	top_tests(w);
	return HET_OK;
}

/*
 * Build A = D J^T J D + diag(diag_h) (unless dense_again: A is built and
 * a block solve failed), then either take the block path (declared
 * blocks and het_nlsq_blk_gate: full rank) or decompose A and set s, suf and
 * keep; *full_rank = 1 when every direction is kept and n >= p.
 * Returns HET_OK or HET_EINTERNAL (LAPACK failure).
 */
static int
decompose(struct het_nlsq *w, int dense_again, int *full_rank,
    struct het_error *err)
{
	size_t i, j, p = w->p;
	lapack_int m, info, np = (lapack_int)p;
	double lmax, tol;
	int full = 1;

	w->blk_on = 0;
	w->bfail = 0;
	if (!dense_again) {
		for (i = 0; i < p; i++)
			for (j = 0; j < p; j++)
				w->A[i * p + j] = w->d[i] * w->jtj[i * p + j] *
				    w->d[j] + (i == j ? w->diag_h[i] : 0.0);
		if (w->nb > 0 && het_nlsq_blk_gate(w)) {
			w->blk_on = 1;
			*full_rank = 1;
			return HET_OK;
		}
	}
	/* dsyevr destroys its input; A stays for the model values. */
	memcpy(w->M, w->A, p * p * sizeof(double));
	info = LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', np, w->M,
	    np, 0, 0, 0, 0, 0.0, &m, w->lam, w->Z, np, w->isuppz, w->work,
	    w->lwork, w->iwork, w->liwork);
	if (info != 0 || m != np)
		return het_error_set(err, HET_EINTERNAL, "least squares: the "
		    "eigendecomposition of the %zu x %zu normal matrix failed "
		    "(LAPACK dsyevr info %d)", p, p, (int)info);
	lmax = fmax(w->lam[p - 1], 0.0);
	tol = RANK_RTOL * (double)p * EPS * lmax;
	for (i = 0; i < p; i++) {
		/* suf_i = (column i of Z) . g_h */
		double sv = 0.0;

		for (j = 0; j < p; j++)
			sv += w->Z[i * p + j] * w->g_h[j];
		w->keep[i] = w->lam[i] > tol && lmax > 0;
		w->s[i] = w->keep[i] ? sqrt(w->lam[i]) : 0.0;
		w->suf[i] = w->keep[i] ? sv : 0.0;
		if (!w->keep[i])
			full = 0;
	}
	if (w->n < p)
		full = 0;
	*full_rank = full;
	return HET_OK;
}

int
het_nlsq_iterate(struct het_nlsq *w, struct het_error *err)
{
	size_t i, p = w->p;
	double theta, pred, ared, cost_new = 0, shn, ratio, Dn, xn, alpha0;
	enum het_nlsq_reason term = HET_NLSQ_RUNNING;
	int full_rank = 0, rc, ftol_ok, xtol_ok;

	if (!w->ready)
		return het_error_set(err, HET_EINVAL, "least squares: iterate "
		    "called before a successful init");
	if (w->reason != HET_NLSQ_RUNNING)
		return het_error_set(err, HET_EINVAL, "least squares: iterate "
		    "called after the fit stopped (%s)",
		    het_nlsq_reason_name(w->reason));
	/* Variables in "hat" space: x_scale first, then Coleman-Li. */
	cl_scaling(w);
	for (i = 0; i < p; i++) {
		if (w->dv[i] != 0)
			w->v[i] *= w->scale_inv[i];
		w->d[i] = sqrt(w->v[i]) * w->scale[i];
		w->diag_h[i] = w->g[i] * w->dv[i] * w->scale[i];
		w->g_h[i] = w->d[i] * w->g[i];
	}
	if ((rc = decompose(w, 0, &full_rank, err)) != HET_OK)
		return rc;
	theta = fmax(0.995, 1 - w->g_norm);
	ared = -1;
	while (ared <= 0 && w->nfev < w->max_nfev) {
		alpha0 = w->alpha;
		het_nlsq_solve_tr(w, full_rank);
		if (w->bfail) {
			/* A block factorisation failed (rounding at the
			   gate's edge): this iteration goes dense. */
			w->alpha = alpha0;
			if ((rc = decompose(w, 1, &full_rank, err)) != HET_OK)
				return rc;
			het_nlsq_solve_tr(w, full_rank);
		}
		pred = het_nlsq_select_step(w, theta);
		for (i = 0; i < p; i++)
			w->x_new[i] = w->x[i] + w->step[i];
		strictly_feasible(p, w->x_new, w->lo, w->hi, 0);
		if ((rc = w->fn(w->ctx, w->x_new, 0, w->acc, err)) != HET_OK)
			return rc;
		w->nfev++;
		shn = het_nlsq_norm2(p, w->step_h);
		cost_new = w->acc[HET_NLSQ_ACC_COST];
		if (!isfinite(cost_new)) {
			w->Delta = 0.25 * shn;
			continue;
		}
		ared = w->cost - cost_new;
		/* update_tr_radius */
		if (pred > 0)
			ratio = ared / pred;
		else if (pred == 0 && ared == 0)
			ratio = 1;
		else
			ratio = 0;
		Dn = w->Delta;
		if (ratio < 0.25)
			Dn = 0.25 * shn;
		else if (ratio > 0.75 && shn > 0.95 * w->Delta)
			Dn = 2.0 * w->Delta;
		w->step_norm = het_nlsq_norm2(p, w->step);
		/* check_termination */
		xn = het_nlsq_norm2(p, w->x);
		ftol_ok = ared < w->par.ftol * w->cost && ratio > 0.25;
		xtol_ok = w->step_norm < w->par.xtol * (w->par.xtol + xn);
		if (ftol_ok && xtol_ok)
			term = HET_NLSQ_FTOL_XTOL;
		else if (ftol_ok)
			term = HET_NLSQ_FTOL;
		else if (xtol_ok)
			term = HET_NLSQ_XTOL;
		if (term != HET_NLSQ_RUNNING)
			break;
		if (Dn > 0)
			w->alpha *= w->Delta / Dn;
		w->Delta = Dn;
	}
	if (ared > 0) {
		/* Accept: the normal equations at x_new (x is kept until
		   they are in, so an error leaves a consistent state). */
		if ((rc = w->fn(w->ctx, w->x_new, 1, w->acc, err)) != HET_OK)
			return rc;
		w->njev++;
		memcpy(w->x, w->x_new, p * sizeof(double));
		take_normal(w, w->acc);
		if (w->par.x_scale_jac)
			jac_scale(w, 0);
		w->reduction = ared;
	} else {
		w->step_norm = 0;
		w->reduction = 0;
	}
	w->iter++;
	w->reason = term;
	top_tests(w);
	return HET_OK;
}

int
het_nlsq_test(const struct het_nlsq *w)
{
	if (w->reason == HET_NLSQ_RUNNING)
		return HET_CONTINUE;
	if (het_nlsq_reason_converged(w->reason))
		return HET_OK;
	return HET_EMAXITER;
}

enum het_nlsq_reason
het_nlsq_reason(const struct het_nlsq *w)
{
	return w->reason;
}

const double *
het_nlsq_x(const struct het_nlsq *w)
{
	return w->x;
}

const double *
het_nlsq_jtj(const struct het_nlsq *w)
{
	return w->jtj;
}

const double *
het_nlsq_grad(const struct het_nlsq *w)
{
	return w->g;
}

size_t
het_nlsq_nparams(const struct het_nlsq *w)
{
	return w->p;
}

void
het_nlsq_info(const struct het_nlsq *w, struct het_nlsq_info *info)
{
	info->iter = w->iter;
	info->nfev = w->nfev;
	info->njev = w->njev;
	info->cost = w->cost;
	info->rss = w->rss;
	info->radius = w->Delta;
	info->lambda = w->alpha;
	info->step_norm = w->step_norm;
	info->reduction = w->reduction;
	info->g_norm = w->g_norm;
	info->reason = w->reason;
}
