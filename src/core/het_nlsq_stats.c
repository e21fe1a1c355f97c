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
 * alpha = 0) that the user must resolve by fixing a parameter.
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

#include "het_nlsq.h"
#include "het_util.h"

#define QUAL_RTOL	1000.0	/* times p eps: degenerate direction */
#define CORR_WARN	0.99	/* |correlation| that earns a warning */
#define BOUND_RTOL	1e-6	/* distance to a bound counted as "at" */
#define DIR_SHOW	0.1	/* |component| shown in a degeneracy */

void
het_nlsq_loss(enum het_config_loss loss, double f_scale, double r,
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
het_nlsq_acc_rows(enum het_config_loss loss, double f_scale, size_t n,
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

/* The warnings of het_nlsq_quality. */
static int
quality_warnings(size_t p, const double *x, const double *lo,
    const double *hi, const char *const *names, const char *const *cause,
    const double *Z, const unsigned char *keepdir,
    struct het_nlsq_quality *q, struct het_error *err)
{
	char nb[32], nb2[32], list[768], combo[768];
	unsigned char *flag = NULL;
	size_t i, j, k, cnt, used;
	double tol, c;
	int rc = HET_OK;

	for (i = 0; i < p && rc == HET_OK; i++) {
		if (q->zero_col[i] && cause != NULL && cause[i] != NULL)
			rc = het_nlsq_warning_add(&q->warnings, &q->nwarnings,
			    err, "Parameter %s has no effect on the residuals "
			    "at the solution (its Jacobian column is zero: %s); "
			    "its uncertainty is undefined: fix it, or change "
			    "its start or bounds.",
			    pname(names, i, nb, sizeof(nb)), cause[i]);
		else if (q->zero_col[i])
			rc = het_nlsq_warning_add(&q->warnings, &q->nwarnings,
			    err, "Parameter %s has no effect on the residuals "
			    "at the solution (its Jacobian column is zero: "
			    "the model does not depend on it there, e.g. "
			    "behind a floor or clip active at every time); "
			    "its uncertainty is undefined: fix it, or change "
			    "its start or bounds.",
			    pname(names, i, nb, sizeof(nb)));
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
	/* Each dropped direction that involves a parameter with a
	   non-zero column is an exact (or numerical) degeneracy. */
	for (k = 0; k < p && rc == HET_OK; k++) {
		if (keepdir[k])
			continue;
		cnt = 0;
		used = 0;
		combo[0] = '\0';
		tol = DIR_SHOW;
		for (i = 0; i < p; i++) {
			c = Z[k * p + i];
			flag[i] = !q->zero_col[i] && fabs(c) > tol;
			if (!flag[i])
				continue;
			cnt++;
			if (used < sizeof(combo))
				used += (size_t)snprintf(combo + used,
				    sizeof(combo) - used, "%s%.3f %s",
				    cnt == 1 ? "" : (c < 0 ? " - " : " + "),
				    cnt == 1 ? c : fabs(c),
				    pname(names, i, nb, sizeof(nb)));
		}
		if (cnt == 0)
			continue;
		name_list(names, flag, p, list, sizeof(list));
		if (cnt == 1)
			rc = het_nlsq_warning_add(&q->warnings,
			    &q->nwarnings, err, "Parameter %s is not "
			    "identifiable from these data (its curvature is "
			    "numerically zero); its uncertainty is not "
			    "meaningful: fix it.", list);
		else
			rc = het_nlsq_warning_add(&q->warnings,
			    &q->nwarnings, err, "Parameters %s are not "
			    "separately identifiable: the combination %s (in "
			    "units of each parameter's Jacobian column norm) "
			    "leaves the residuals unchanged; fix one of them. "
			    "Their uncertainties come from a pseudo-inverse "
			    "that ignores this direction.", list, combo);
	}
	free(flag);
	return rc;
}

int
het_nlsq_quality(size_t p, const double *jtj, double s2, const double *x,
    const double *lo, const double *hi, const char *const *names,
    struct het_nlsq_quality *q, struct het_error *err)
{
	return het_nlsq_quality_cause(p, jtj, s2, x, lo, hi, names, NULL, q,
	    err);
}

int
het_nlsq_quality_cause(size_t p, const double *jtj, double s2,
    const double *x, const double *lo, const double *hi,
    const char *const *names, const char *const *cause,
    struct het_nlsq_quality *q, struct het_error *err)
{
	double *M = NULL, *Z = NULL, *lam = NULL, *cn = NULL, *pinv = NULL;
	double lmax, tol, bt, v, wq;
	unsigned char *keepdir = NULL;
	lapack_int *isuppz = NULL, *iwork = NULL, np = (lapack_int)p, m;
	lapack_int info, iq;
	double *work = NULL;
	size_t i, j, k;
	int rc = HET_ENOMEM;

	memset(q, 0, sizeof(*q));
	q->p = p;
	if (p == 0)
		return HET_OK;
	q->cov = het_alloc_array(p * p, sizeof(double), "fit report", err);
	q->corr = het_alloc_array(p * p, sizeof(double), "fit report", err);
	q->unc = het_alloc_array(p, sizeof(double), "fit report", err);
	q->at_bound = het_alloc_array(p, 1, "fit report", err);
	q->zero_col = het_alloc_array(p, 1, "fit report", err);
	M = het_alloc_array(p * p, sizeof(double), "fit report", err);
	Z = het_alloc_array(p * p, sizeof(double), "fit report", err);
	pinv = het_alloc_array(p * p, sizeof(double), "fit report", err);
	lam = het_alloc_array(p, sizeof(double), "fit report", err);
	cn = het_alloc_array(p, sizeof(double), "fit report", err);
	keepdir = het_alloc_array(p, 1, "fit report", err);
	isuppz = het_alloc_array(2 * p, sizeof(lapack_int), "fit report",
	    err);
	if (q->cov == NULL || q->corr == NULL || q->unc == NULL ||
	    q->at_bound == NULL || q->zero_col == NULL || M == NULL ||
	    Z == NULL || pinv == NULL || lam == NULL || cn == NULL ||
	    keepdir == NULL || isuppz == NULL)
		goto out;
	/* Unit-diagonal scaling; zero (or non-finite) columns stay zero. */
	for (i = 0; i < p; i++) {
		v = jtj[i * p + i];
		q->zero_col[i] = !(v > 0) || !isfinite(v);
		cn[i] = q->zero_col[i] ? 0.0 : sqrt(v);
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			M[i * p + j] = (cn[i] > 0 && cn[j] > 0) ?
			    jtj[i * p + j] / (cn[i] * cn[j]) : 0.0;
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
	if (info != 0 || m != np) {
		rc = het_error_set(err, HET_EINTERNAL, "fit report: the "
		    "eigendecomposition of the normal matrix failed (LAPACK "
		    "dsyevr info %d)", (int)info);
		goto out;
	}
	lmax = fmax(lam[p - 1], 0.0);
	tol = QUAL_RTOL * (double)p * DBL_EPSILON * lmax;
	memset(pinv, 0, p * p * sizeof(double));
	for (k = 0; k < p; k++) {
		keepdir[k] = lmax > 0 && lam[k] > tol;
		if (!keepdir[k])
			continue;
		q->rank++;
		for (i = 0; i < p; i++)
			for (j = 0; j < p; j++)
				pinv[i * p + j] += Z[k * p + i] *
				    Z[k * p + j] / lam[k];
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			q->cov[i * p + j] = (q->zero_col[i] ||
			    q->zero_col[j]) ? NAN : s2 * pinv[i * p + j] /
			    (cn[i] * cn[j]);
	for (i = 0; i < p; i++)
		q->unc[i] = q->zero_col[i] ? NAN :
		    sqrt(fabs(q->cov[i * p + i]));
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++) {
			double di = q->cov[i * p + i], dj = q->cov[j * p + j];

			q->corr[i * p + j] = (di > 0 && dj > 0) ?
			    q->cov[i * p + j] / sqrt(di * dj) : NAN;
		}
	/* At a bound: within BOUND_RTOL of the range (or of max(1,
	   |bound|) for a half-infinite range). */
	for (i = 0; x != NULL && lo != NULL && hi != NULL && i < p; i++) {
		bt = isfinite(hi[i] - lo[i]) ? BOUND_RTOL * (hi[i] - lo[i]) :
		    0.0;
		if (isfinite(lo[i]) && x[i] - lo[i] <= (bt > 0 ? bt :
		    BOUND_RTOL * fmax(1.0, fabs(lo[i]))))
			q->at_bound[i] = 1;
		else if (isfinite(hi[i]) && hi[i] - x[i] <= (bt > 0 ? bt :
		    BOUND_RTOL * fmax(1.0, fabs(hi[i]))))
			q->at_bound[i] = 2;
	}
	rc = quality_warnings(p, x, lo, hi, names, cause, Z, keepdir, q,
	    err);
out:
	free(M);
	free(Z);
	free(pinv);
	free(lam);
	free(cn);
	free(keepdir);
	free(isuppz);
	free(work);
	free(iwork);
	if (rc != HET_OK)
		het_nlsq_quality_fini(q);
	return rc;
}
