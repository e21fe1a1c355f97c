/*
 * het_nlsq_stats.c: robust losses, dense accumulation of the normal
 * equations, and the quality report of a fit (covariance by
 * pseudo-inverse, correlations, warnings in words).
 *
 * Design.  The losses follow SciPy's least_squares exactly (rho of
 * z = (r / f_scale)^2, rho scaled by f_scale^2, the Jacobian row factor
 * of scale_for_robust_loss_function), so costs agree with SciPy to the
 * last bits that matter.  The covariance is computed on the normal
 * matrix scaled to unit diagonal, which makes the eigenvalue threshold
 * for "exactly degenerate" independent of parameter units; the dropped
 * eigen-directions are reported as named parameter combinations, since
 * the heterodyne model has exact degeneracies (f0/f2, D0/D_offset at
 * alpha = 0) that the user must resolve by fixing a parameter.  The
 * eigen-analysis is kept in the report so that the engine can probe the
 * weak directions with the true cost and drop more of them
 * (het_nlsq_quality_drop); a parameter with a real share of its variance
 * in a dropped direction gets no finite uncertainty at all, since the
 * pseudo-inverse's number would only measure the kept directions.
 */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_nlsq_impl.h"
#include "het_util.h"

#define CORR_WARN	0.99	/* |correlation| that earns a warning */
#define BOUND_RTOL	1e-6	/* distance to a bound counted as "at" */
#define DIR_SHOW	0.1	/* |component| shown in a degeneracy */

void
het_nlsq_loss(enum het_nlsq_loss loss, double f_scale, double r,
    double out[3])
{
	double c2 = f_scale * f_scale, z = r * r / c2, t, rho0, rho1, rho2;
	double js;

	switch (loss) {
	case HET_LOSS_SOFT_L1:
		t = 1 + z;
		rho0 = 2 * (sqrt(t) - 1);
		rho1 = 1 / sqrt(t);
		rho2 = -0.5 / (t * sqrt(t));
		break;
	case HET_LOSS_HUBER:
		if (z <= 1) {
			rho0 = z;
			rho1 = 1;
			rho2 = 0;
		} else {
			rho0 = 2 * sqrt(z) - 1;
			rho1 = 1 / sqrt(z);
			rho2 = -0.5 / (z * sqrt(z));
		}
		break;
	case HET_LOSS_CAUCHY:
		rho0 = log1p(z);
		t = 1 + z;
		rho1 = 1 / t;
		rho2 = -1 / (t * t);
		break;
	case HET_LOSS_ARCTAN:
		rho0 = atan(z);
		t = 1 + z * z;
		rho1 = 1 / t;
		rho2 = -2 * z / (t * t);
		break;
	case HET_LOSS_LINEAR:
	default:
		out[0] = r * r;
		out[1] = 1.0;
		out[2] = r;
		return;
	}
	rho0 *= c2;
	rho2 /= c2;
	js = rho1 + 2 * rho2 * r * r;
	if (js < DBL_EPSILON)
		js = DBL_EPSILON;
	js = sqrt(js);
	out[0] = rho0;
	out[1] = js;
	out[2] = r * rho1 / js;
}

void
het_nlsq_acc_rows(enum het_nlsq_loss loss, double f_scale, size_t n,
    size_t p, double *r, double *J, int want_jac, double *acc)
{
	double o[3], cost = 0.0, rss = 0.0;
	size_t k, c;

	for (k = 0; k < n; k++) {
		het_nlsq_loss(loss, f_scale, r[k], o);
		cost += 0.5 * o[0];
		rss += r[k] * r[k];
		if (!want_jac)
			continue;
		r[k] = o[2];
		if (o[1] != 1.0)
			for (c = 0; c < p; c++)
				J[k * p + c] *= o[1];
	}
	acc[HET_NLSQ_ACC_COST] += cost;
	acc[HET_NLSQ_ACC_RSS] += rss;
	if (!want_jac || n == 0)
		return;
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)p, (int)n,
	    1.0, J, (int)p, 1.0, acc + het_nlsq_acc_jtj(p), (int)p);
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)p, 1.0, J,
	    (int)p, r, 1, 1.0, acc + HET_NLSQ_ACC_G, 1);
}

/* ------------------------------------------------------------------ */
/* Warning lists. */

int
het_nlsq_warning_add(char ***list, size_t *n, struct het_error *err,
    const char *fmt, ...)
{
	va_list ap;
	char buf[1024], **nl;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if ((nl = realloc(*list, (*n + 1) * sizeof(char *))) == NULL)
		return het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
	*list = nl;
	if ((nl[*n] = het_strdup(buf, err)) == NULL)
		return HET_ENOMEM;
	(*n)++;
	return HET_OK;
}

void
het_nlsq_warnings_free(char **list, size_t n)
{
	size_t k;

	if (list == NULL)
		return;
	for (k = 0; k < n; k++)
		free(list[k]);
	free(list);
}

/* ------------------------------------------------------------------ */
/* Quality. */

void
het_nlsq_quality_fini(struct het_nlsq_quality *q)
{
	if (q == NULL)
		return;
	free(q->cov);
	free(q->corr);
	free(q->unc);
	free(q->at_bound);
	free(q->zero_col);
	free(q->degen);
	free(q->lam);
	free(q->Z);
	free(q->cn);
	free(q->dir);
	free(q->flat);
	free(q->cov_pinv);
	het_nlsq_warnings_free(q->cause, q->cause != NULL ? q->p : 0);
	het_nlsq_warnings_free(q->warnings, q->nwarnings);
	memset(q, 0, sizeof(*q));
}

static const char *
pname(const char *const *names, size_t k, char *buf, size_t len)
{
	if (names != NULL && names[k] != NULL)
		return names[k];
	snprintf(buf, len, "x[%zu]", k);
	return buf;
}

/* "a", "a and b", "a, b and c" of the flagged parameters into buf. */
static void
name_list(const char *const *names, const unsigned char *flag, size_t p,
    char *buf, size_t len)
{
	size_t k, cnt = 0, tot = 0, used = 0;
	char nb[32];

	for (k = 0; k < p; k++)
		tot += flag[k] != 0;
	buf[0] = '\0';
	for (k = 0; k < p && used < len; k++) {
		if (!flag[k])
			continue;
		cnt++;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		    cnt == 1 ? "" : (cnt == tot ? " and " : ", "),
		    pname(names, k, nb, sizeof(nb)));
	}
}

/* Effective eigenvalue of a dropped direction for the leak. */
static double
lam_eff(const struct het_nlsq_quality *q, size_t k)
{
	double fl = HET_NLSQ_QUAL_RTOL * (double)q->p * DBL_EPSILON * q->lmax;
	double l = q->dir[k] == HET_NLSQ_DIR_NULL ? 0.0 :
	    q->lam[k] / q->flat[k];

	return l > fl ? l : fl;
}

/* The sentence of one dropped direction k (flag: p scratch bytes): its
   large components, and every degenerate parameter that it makes so
   (its variance along k at least its pseudo-inverse variance). */
static int
dir_warning(size_t k, const char *const *names, unsigned char *flag,
    struct het_nlsq_quality *q, struct het_error *err)
{
	char nb[32], list[768], combo[768];
	size_t i, p = q->p, cnt = 0, used = 0;
	double c;

	combo[0] = '\0';
	for (i = 0; i < p; i++) {
		c = q->Z[k * p + i];
		flag[i] = !q->zero_col[i] && (fabs(c) > DIR_SHOW ||
		    (q->degen[i] && !(q->s2 * c * c / (q->cn[i] * q->cn[i] *
		    lam_eff(q, k)) < q->cov_pinv[i * p + i])));
		if (!flag[i])
			continue;
		cnt++;
		if (used < sizeof(combo))
			used += (size_t)snprintf(combo + used, sizeof(combo) -
			    used, "%s%.3g %s", cnt == 1 ? "" : (c < 0 ?
			    " - " : " + "), cnt == 1 ? c : fabs(c),
			    pname(names, i, nb, sizeof(nb)));
	}
	if (cnt == 0)
		return HET_OK;
	name_list(names, flag, p, list, sizeof(list));
	if (cnt == 1)
		return het_nlsq_warning_add(&q->warnings, &q->nwarnings, err,
		    "Parameter %s is not identifiable from these data (%s); "
		    "it has no uncertainty (a dash in the table): fix it.",
		    list, q->dir[k] == HET_NLSQ_DIR_NULL ? "its curvature is "
		    "numerically zero" : q->dir[k] == HET_NLSQ_DIR_RIDGE ?
		    "the cost barely rises when it moves" : "its one-sigma "
		    "range exceeds its bounds");
	return het_nlsq_warning_add(&q->warnings, &q->nwarnings, err,
	    "Parameters %s are not separately identifiable: the combination "
	    "%s (in units of each parameter's Jacobian column norm) %s; "
	    "they are flagged degenerate and have no uncertainty (a dash in "
	    "the table): fix one of them.", list, combo,
	    q->dir[k] == HET_NLSQ_DIR_NULL ? "leaves the residuals "
	    "unchanged" : q->dir[k] ==
	    HET_NLSQ_DIR_RIDGE ? "runs along a ridge where the cost barely "
	    "rises" : "can move across a whole bound range within one "
	    "sigma");
}

/* The warnings of the report: het_nlsq_impl.h. */
int
het_nlsq_quality_warn(const double *x, const double *lo, const double *hi,
    const char *const *names, struct het_nlsq_quality *q,
    struct het_error *err)
{
	char nb[32], nb2[32];
	unsigned char *flag = NULL;
	size_t i, j, k, p = q->p;
	double c;
	int rc = HET_OK;

	for (i = 0; i < p && rc == HET_OK; i++) {
		if (q->zero_col[i])
			rc = het_nlsq_warning_add(&q->warnings, &q->nwarnings,
			    err, "Parameter %s has no effect on the residuals "
			    "at the solution (its Jacobian column is zero: %s); "
			    "its uncertainty is undefined: fix it, or change "
			    "its start or bounds.",
			    pname(names, i, nb, sizeof(nb)),
			    q->cause != NULL && q->cause[i] != NULL ?
			    q->cause[i] : "the model does not depend on it "
			    "there, e.g. behind a floor or clip active at every "
			    "time");
		if (rc != HET_OK || q->at_bound[i] == 0)
			continue;
		rc = het_nlsq_warning_add(&q->warnings, &q->nwarnings, err,
		    "Parameter %s = %.6g is at its %s bound %.6g: the data "
		    "push it further, so its value and uncertainty are not "
		    "meaningful; widen the bound or fix the parameter.",
		    pname(names, i, nb, sizeof(nb)), x[i],
		    q->at_bound[i] == 1 ? "lower" : "upper",
		    q->at_bound[i] == 1 ? lo[i] : hi[i]);
	}
	for (i = 0; i < p && rc == HET_OK; i++)
		for (j = i + 1; j < p && rc == HET_OK; j++) {
			c = q->corr[i * p + j];
			if (!(fabs(c) > CORR_WARN))
				continue;
			rc = het_nlsq_warning_add(&q->warnings,
			    &q->nwarnings, err, "Parameters %s and %s are "
			    "strongly correlated (correlation %.4f): the "
			    "data mainly constrain a combination of them.",
			    pname(names, i, nb, sizeof(nb)),
			    pname(names, j, nb2, sizeof(nb2)), c);
		}
	if (rc != HET_OK)
		return rc;
	if ((flag = calloc(p, 1)) == NULL)
		return het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
	for (k = 0; k < p && rc == HET_OK; k++)
		if (q->dir[k] != HET_NLSQ_DIR_KEPT)
			rc = dir_warning(k, names, flag, q, err);
	free(flag);
	return rc;
}


void
het_nlsq_quality_combo(const struct het_nlsq_quality *q, const double *g,
    double *sd, double *leak)
{
	const double *C = q->cov_pinv != NULL ? q->cov_pinv : q->cov;
	size_t i, j, k, p = q->p;
	double v = 0.0, lk = 0.0, d;

	/* Outer test first: a unit g (a parameter's own variance) costs
	   O(p), not O(p^2), which matters at thousands of parameters. */
	for (i = 0; i < p; i++) {
		if (g[i] == 0 || q->zero_col[i])
			continue;
		for (j = 0; j < p; j++)
			if (g[j] != 0 && !q->zero_col[j])
				v += g[i] * C[i * p + j] * g[j];
	}
	for (k = 0; k < p; k++) {
		if (q->dir[k] == HET_NLSQ_DIR_KEPT)
			continue;
		d = 0.0;
		for (i = 0; i < p; i++)
			if (q->cn[i] > 0)
				d += q->Z[k * p + i] * g[i] / q->cn[i];
		lk += q->s2 * d * d / lam_eff(q, k);
	}
	*sd = sqrt(fmax(v, 0.0));
	*leak = lk;
}

/*
 * q->cov_pinv = sum over kept directions k of Z_k Z_k^T / lam_k (unit-
 * diagonal units), and q->rank.  As W^T W with W the kept rows of Z
 * scaled by 1/sqrt(lam_k): one BLAS rank-r update (dsyrk) instead of a
 * p^3 loop, seconds at thousands of parameters.  HET_ENOMEM for W.
 */
static int
pinv_kept(struct het_nlsq_quality *q)
{
	size_t i, j, k, r = 0, p = q->p;
	double *W, f;

	q->rank = 0;
	if ((W = malloc((p > 0 ? p : 1) * p * sizeof(double))) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < p; k++) {
		if (q->dir[k] != HET_NLSQ_DIR_KEPT)
			continue;
		f = 1.0 / sqrt(q->lam[k]);
		for (i = 0; i < p; i++)
			W[r * p + i] = q->Z[k * p + i] * f;
		r++;
	}
	q->rank = r;
	memset(q->cov_pinv, 0, p * p * sizeof(double));
	if (r > 0)
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)p,
		    (int)r, 1.0, W, (int)p, 0.0, q->cov_pinv, (int)p);
	for (i = 0; i < p; i++)
		for (j = 0; j < i; j++)
			q->cov_pinv[i * p + j] = q->cov_pinv[j * p + i];
	free(W);
	return HET_OK;
}

/* Covariance, correlations, degenerate flags and warnings from the
   eigen-analysis and the direction marks. */
static int
quality_finish(struct het_nlsq_quality *q, const double *x,
    const double *lo, const double *hi, const char *const *names,
    struct het_error *err)
{
	size_t i, j, p = q->p;
	double *g, sd, leak;

	het_nlsq_warnings_free(q->warnings, q->nwarnings);
	q->warnings = NULL;
	q->nwarnings = 0;
	if ((g = calloc(p, sizeof(double))) == NULL)
		return het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
	if (pinv_kept(q) != HET_OK) {
		free(g);
		return het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			q->cov_pinv[i * p + j] = (q->zero_col[i] ||
			    q->zero_col[j]) ? 0.0 : q->s2 *
			    q->cov_pinv[i * p + j] / (q->cn[i] * q->cn[j]);
	/* Degenerate: the dropped directions hold at least as much of
	   the parameter's variance as the kept ones. */
	for (i = 0; i < p; i++) {
		q->degen[i] = 0;
		if (q->zero_col[i])
			continue;
		g[i] = 1.0;
		het_nlsq_quality_combo(q, g, &sd, &leak);
		g[i] = 0.0;
		q->degen[i] = leak > 0 && !(leak < sd * sd);
	}
	free(g);
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			q->cov[i * p + j] = (q->zero_col[i] || q->zero_col[j] ||
			    q->degen[i] || q->degen[j]) ? NAN :
			    q->cov_pinv[i * p + j];
	for (i = 0; i < p; i++)
		q->unc[i] = isnan(q->cov[i * p + i]) ? NAN :
		    sqrt(fabs(q->cov[i * p + i]));
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++) {
			double di = q->cov[i * p + i], dj = q->cov[j * p + j];

			q->corr[i * p + j] = (di > 0 && dj > 0) ?
			    q->cov[i * p + j] / sqrt(di * dj) : NAN;
		}
	return het_nlsq_quality_warn(x, lo, hi, names, q, err);
}

double
het_nlsq_quality_step(const struct het_nlsq_quality *q, size_t k,
    const double *lo, const double *hi, double *d)
{
	size_t i, p = q->p;
	double sig, r, worst = 0.0;

	if (q->by_blocks) {		/* no eigen-directions */
		memset(d, 0, p * sizeof(double));
		return 0.0;
	}
	sig = q->lam[k] > 0 ? sqrt(q->s2 / q->lam[k]) : INFINITY;
	for (i = 0; i < p; i++) {
		d[i] = q->cn[i] > 0 && q->Z[k * p + i] != 0 ?
		    q->Z[k * p + i] * sig / q->cn[i] : 0.0;
		if (lo == NULL || hi == NULL || !isfinite(hi[i] - lo[i]))
			continue;
		r = fabs(d[i]) / (hi[i] - lo[i]);
		if (r > worst)
			worst = r;
	}
	return worst;
}

int
het_nlsq_quality_drop(struct het_nlsq_quality *q, size_t k,
    enum het_nlsq_dir why, double flat, const double *x, const double *lo,
    const double *hi, const char *const *names, struct het_error *err)
{
	if (q->by_blocks || k >= q->p || q->dir[k] != HET_NLSQ_DIR_KEPT ||
	    (why != HET_NLSQ_DIR_RIDGE && why != HET_NLSQ_DIR_LOOSE))
		return het_error_set(err, HET_EINVAL, "fit report: direction "
		    "%zu cannot be dropped", k);
	q->dir[k] = (unsigned char)why;
	q->flat[k] = flat >= 1 ? flat : 1.0;
	return quality_finish(q, x, lo, hi, names, err);
}

int
het_nlsq_quality(size_t p, const double *jtj, double s2, const double *x,
    const double *lo, const double *hi, const char *const *names,
    struct het_nlsq_quality *q, struct het_error *err)
{
	return het_nlsq_quality_eig(p, jtj, s2, x, lo, hi, names, NULL, NULL,
	    NULL, q, err);
}

/* q->cause: an owned copy of the caller's fragments (NULL: none). */
static int
quality_causes(struct het_nlsq_quality *q, const char *const *cause,
    struct het_error *err)
{
	size_t i;

	if (cause == NULL)
		return HET_OK;
	if ((q->cause = calloc(q->p, sizeof(char *))) == NULL)
		return het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
	for (i = 0; i < q->p; i++)
		if (cause[i] != NULL &&
		    (q->cause[i] = het_strdup(cause[i], err)) == NULL)
			return HET_ENOMEM;
	return HET_OK;
}

int
het_nlsq_quality_alloc(struct het_nlsq_quality *q, size_t p, double s2,
    const char *const *cause, int eigen, struct het_error *err)
{
	memset(q, 0, sizeof(*q));
	q->p = p;
	q->s2 = s2;
	if (p == 0)
		return HET_OK;
	q->cov = het_alloc_array(p * p, sizeof(double), "fit report", err);
	q->corr = het_alloc_array(p * p, sizeof(double), "fit report", err);
	q->unc = het_alloc_array(p, sizeof(double), "fit report", err);
	q->at_bound = het_alloc_array(p, 1, "fit report", err);
	q->zero_col = het_alloc_array(p, 1, "fit report", err);
	q->degen = het_alloc_array(p, 1, "fit report", err);
	q->dir = het_alloc_array(p, 1, "fit report", err);
	q->flat = het_alloc_array(p, sizeof(double), "fit report", err);
	q->cn = het_alloc_array(p, sizeof(double), "fit report", err);
	if (eigen) {
		q->cov_pinv = het_alloc_array(p * p, sizeof(double),
		    "fit report", err);
		q->Z = het_alloc_array(p * p, sizeof(double), "fit report",
		    err);
		q->lam = het_alloc_array(p, sizeof(double), "fit report", err);
	}
	if (q->cov == NULL || q->corr == NULL || q->unc == NULL ||
	    q->at_bound == NULL || q->zero_col == NULL || q->degen == NULL ||
	    q->dir == NULL || q->flat == NULL || q->cn == NULL || (eigen &&
	    (q->cov_pinv == NULL || q->Z == NULL || q->lam == NULL)) ||
	    quality_causes(q, cause, err) != HET_OK) {
		het_nlsq_quality_fini(q);
		return err != NULL && err->code != HET_OK ? err->code :
		    HET_ENOMEM;
	}
	return HET_OK;
}

void
het_nlsq_quality_bounds(struct het_nlsq_quality *q, const double *x,
    const double *lo, const double *hi)
{
	size_t i;
	double bt;

	/* At a bound: within BOUND_RTOL of the range (or of max(1,
	   |bound|) for a half-infinite range). */
	for (i = 0; x != NULL && lo != NULL && hi != NULL && i < q->p; i++) {
		bt = isfinite(hi[i] - lo[i]) ? BOUND_RTOL * (hi[i] - lo[i]) :
		    0.0;
		if (isfinite(lo[i]) && x[i] - lo[i] <= (bt > 0 ? bt :
		    BOUND_RTOL * fmax(1.0, fabs(lo[i]))))
			q->at_bound[i] = 1;
		else if (isfinite(hi[i]) && hi[i] - x[i] <= (bt > 0 ? bt :
		    BOUND_RTOL * fmax(1.0, fabs(hi[i]))))
			q->at_bound[i] = 2;
	}
}

int
het_nlsq_eigen(void *ctx, size_t p, double *M, double *lam, double *Z,
    struct het_error *err)
{
	lapack_int *isuppz, *iwork = NULL, np = (lapack_int)p, m = 0;
	lapack_int info, iq;
	double *work = NULL, wq;
	int rc = HET_ENOMEM;

	(void)ctx;
	if ((isuppz = het_alloc_array(2 * p + 1, sizeof(lapack_int),
	    "fit report", err)) == NULL)
		return HET_ENOMEM;
	info = LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', np, M,
	    np, 0, 0, 0, 0, 0.0, &m, lam, Z, np, isuppz, &wq, -1, &iq, -1);
	if (info == 0) {
		work = het_alloc_array((size_t)wq + 1, sizeof(double),
		    "fit report", err);
		iwork = het_alloc_array((size_t)iq + 1, sizeof(lapack_int),
		    "fit report", err);
		if (work == NULL || iwork == NULL)
			goto out;
		info = LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', np,
		    M, np, 0, 0, 0, 0, 0.0, &m, lam, Z, np, isuppz, work,
		    (lapack_int)wq + 1, iwork, iq + 1);
	}
	rc = info == 0 && m == np ? HET_OK : het_error_set(err,
	    HET_EINTERNAL, "fit report: the eigendecomposition of the normal "
	    "matrix failed (LAPACK dsyevr info %d)", (int)info);
out:
	free(isuppz);
	free(work);
	free(iwork);
	return rc;
}

/* Row a of Z minus f times row b. */
static void
row_axpy(double *Z, size_t p, size_t a, size_t b, double f)
{
	size_t i;

	for (i = 0; i < p; i++)
		Z[a * p + i] -= f * Z[b * p + i];
}

/*
 * The null directions as sparse as the null space allows.  An
 * eigensolver returns any orthonormal basis of a degenerate eigenspace,
 * so two independent degeneracies (D0_ref against D_offset_ref, f0
 * against f2) come back mixed by whatever rotation rounding picked, and
 * each direction then names the parameters of both.  Gauss-Jordan
 * elimination with complete pivoting over the null rows of Z, then
 * Gram-Schmidt in pivot order, gives a basis of the same space in which
 * independent groups separate (to rounding); the leak and every other
 * sum over the null directions are unchanged by an orthonormal change
 * of basis.  Without memory for the row list the basis stays as it is.
 */
static void
null_sparse(struct het_nlsq_quality *q)
{
	size_t p = q->p, n = 0, s, t, c, ts = 0, cs = 0, *R;
	unsigned char *used;
	double *Z = q->Z, big, v;

	R = malloc((p > 0 ? p : 1) * sizeof(*R));
	used = calloc(p > 0 ? p : 1, 1);
	for (t = 0; R != NULL && used != NULL && t < p; t++)
		if (q->dir[t] == HET_NLSQ_DIR_NULL)
			R[n++] = t;
	for (s = 0; n > 1 && s < n; s++) {
		big = 0.0;
		for (t = s; t < n; t++)
			for (c = 0; c < p; c++)
				if (!used[c] && fabs(Z[R[t] * p + c]) > big) {
					big = fabs(Z[R[t] * p + c]);
					ts = t;
					cs = c;
				}
		if (!(big > 0))
			break;
		t = R[s];
		R[s] = R[ts];
		R[ts] = t;
		used[cs] = 1;
		v = Z[R[s] * p + cs];
		for (c = 0; c < p; c++)
			Z[R[s] * p + c] /= v;
		for (t = 0; t < n; t++)
			if (t != s)
				row_axpy(Z, p, R[t], R[s], Z[R[t] * p + cs]);
	}
	for (s = 0; n > 1 && s < n; s++) {
		for (t = 0; t < s; t++) {
			for (v = 0.0, c = 0; c < p; c++)
				v += Z[R[s] * p + c] * Z[R[t] * p + c];
			row_axpy(Z, p, R[s], R[t], v);
		}
		for (v = 0.0, c = 0; c < p; c++)
			v += Z[R[s] * p + c] * Z[R[s] * p + c];
		for (v = sqrt(v), c = 0; v > 0 && c < p; c++)
			Z[R[s] * p + c] /= v;
	}
	free(R);
	free(used);
}

int
het_nlsq_quality_eig(size_t p, const double *jtj, double s2,
    const double *x, const double *lo, const double *hi,
    const char *const *names, const char *const *cause,
    het_nlsq_eigen_fn eigen, void *ctx, struct het_nlsq_quality *q,
    struct het_error *err)
{
	double *M = NULL, tol, v;
	size_t i, j, k;
	int rc;

	if ((rc = het_nlsq_quality_alloc(q, p, s2, cause, 1, err)) != HET_OK ||
	    p == 0)
		return rc;
	rc = HET_ENOMEM;
	if ((M = het_alloc_array(p * p, sizeof(double), "fit report", err)) ==
	    NULL)
		goto out;
	/* Unit-diagonal scaling; zero (or non-finite) columns stay zero. */
	for (i = 0; i < p; i++) {
		v = jtj[i * p + i];
		q->zero_col[i] = !(v > 0) || !isfinite(v);
		q->cn[i] = q->zero_col[i] ? 0.0 : sqrt(v);
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			M[i * p + j] = (q->cn[i] > 0 && q->cn[j] > 0) ?
			    jtj[i * p + j] / (q->cn[i] * q->cn[j]) : 0.0;
	if ((rc = (eigen != NULL ? eigen : het_nlsq_eigen)(ctx, p, M, q->lam,
	    q->Z, err)) != HET_OK)
		goto out;
	q->lmax = fmax(q->lam[p - 1], 0.0);
	tol = HET_NLSQ_QUAL_RTOL * (double)p * DBL_EPSILON * q->lmax;
	for (k = 0; k < p; k++) {
		q->flat[k] = 1.0;
		q->dir[k] = q->lmax > 0 && q->lam[k] > tol ? HET_NLSQ_DIR_KEPT :
		    HET_NLSQ_DIR_NULL;
	}
	null_sparse(q);
	het_nlsq_quality_bounds(q, x, lo, hi);
	rc = quality_finish(q, x, lo, hi, names, err);
out:
	free(M);
	if (rc != HET_OK)
		het_nlsq_quality_fini(q);
	return rc;
}
