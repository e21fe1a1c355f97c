/*
 * het_diag.c: R-hat, ESS, BFMI and summaries of MCMC draws.
 *
 * Design: each entry point copies the draws once into a contiguous
 * "split" matrix of m = 2*nchain half-chains of n = ndraw/2 draws (first
 * half, last half; the middle draw of an odd chain is dropped), then
 * transforms it (rank normalisation z = Phi^-1((r - 3/8) / (S + 1/4))
 * with average ranks for ties, folding |x - median|, or quantile
 * indicators) and applies the two kernels below:
 *
 *   rhat_core: sqrt(((n-1)/n W + B/n) / W), W the mean of the half-chain
 *     variances, B/n the variance of the half-chain means.
 *   ess_core: Geyer's initial monotone sequence on the combined
 *     autocorrelation rho_t = 1 - (W - mean_c acov_c(t)) / var_plus, with
 *     var_plus = (n-1)/n W + B/n and acov the biased (1/n) per-chain
 *     autocovariance, paired even/odd sums truncated at the first negative
 *     pair, pairs made monotone, tau = -1 + 2 sum rho + (last even term),
 *     floored at 1/log10(m n); ESS = m n / tau.
 *
 * The autocovariance is computed directly, lag by lag, only up to the
 * truncation point: O(m n T) for T lags used.  This is cheap for
 * well-mixed chains (T small) and stays exact; no FFT.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "het_diag.h"
#include "het_util.h"



static int
check_args(const double *const *draws, size_t nchain, size_t ndraw,
    struct het_error *err)
{
	size_t	c, i;

	if (nchain < 1 || ndraw < 4)
		return het_error_set(err, HET_EINVAL, "MCMC diagnostics need "
		    "at least 1 chain of at least 4 draws (got %zu chains of "
		    "%zu draws); run more sampling iterations", nchain, ndraw);
	for (c = 0; c < nchain; c++)
		for (i = 0; i < ndraw; i++)
			if (!isfinite(draws[c][i]))
				return het_error_set(err, HET_EDATA, "MCMC draw "
				    "%zu of chain %zu is not finite (%g); the "
				    "sampler or the model produced a bad value",
				    i, c, draws[c][i]);
	return HET_OK;
}

/* Copy draws into m = 2 nchain half-chains of n = ndraw / 2. */
static void
split_copy(const double *const *draws, size_t nchain, size_t ndraw,
    double *x)
{
	size_t	c, h = ndraw / 2;

	for (c = 0; c < nchain; c++) {
		memcpy(x + 2 * c * h, draws[c], h * sizeof *x);
		memcpy(x + (2 * c + 1) * h, draws[c] + ndraw - h,
		    h * sizeof *x);
	}
}

/* Type-7 quantile of a sorted array. */
static double
quantile_sorted(const double *a, size_t s, double p)
{
	double	h = (double)(s - 1) * p;
	size_t	lo = (size_t)floor(h);

	if (lo + 1 >= s)
		return a[s - 1];
	return a[lo] + (h - (double)lo) * (a[lo + 1] - a[lo]);
}

/* All draws pooled and sorted, in a new array. */
static double *
pooled_sorted(const double *const *draws, size_t nchain, size_t ndraw,
    struct het_error *err)
{
	double	*a;
	size_t	 c;

	a = het_alloc_array(nchain * ndraw, sizeof *a, "sorted MCMC draws",
	    err);
	if (a == NULL)
		return NULL;
	for (c = 0; c < nchain; c++)
		memcpy(a + c * ndraw, draws[c], ndraw * sizeof *a);
	qsort(a, nchain * ndraw, sizeof *a, het_cmp_double);
	return a;
}

/* Rank-normalise s values in place. */
static int
z_scale(double *x, size_t s, struct het_error *err)
{
	struct het_rank_item *r;
	size_t	 i, j, k;
	double	 avg;

	r = het_alloc_array(s, sizeof *r, "MCMC rank table", err);
	if (r == NULL)
		return err != NULL ? err->code : HET_ENOMEM;
	for (i = 0; i < s; i++) {
		r[i].v = x[i];
		r[i].i = i;
	}
	qsort(r, s, sizeof *r, het_cmp_rank);
	for (i = 0; i < s; i = j) {
		for (j = i + 1; j < s && r[j].v == r[i].v; j++)
			;
		/* ranks i+1 .. j, averaged over the ties */
		avg = 0.5 * ((double)(i + 1) + (double)j);
		for (k = i; k < j; k++)
			x[r[k].i] = gsl_cdf_ugaussian_Pinv((avg - 0.375) /
			    ((double)s + 0.25));
	}
	free(r);
	return HET_OK;
}

/* Means and within/between statistics of m chains of n. */
static void
moments(const double *x, size_t m, size_t n, double *mean, double *w,
    double *bn)
{
	double	gm = 0, wsum = 0, bsum = 0, d;
	size_t	c, i;

	for (c = 0; c < m; c++) {
		mean[c] = 0;
		for (i = 0; i < n; i++)
			mean[c] += x[c * n + i];
		mean[c] /= (double)n;
		gm += mean[c];
	}
	gm /= (double)m;
	for (c = 0; c < m; c++) {
		for (i = 0; i < n; i++) {
			d = x[c * n + i] - mean[c];
			wsum += d * d;
		}
		d = mean[c] - gm;
		bsum += d * d;
	}
	*w = wsum / ((double)m * (double)(n - 1));
	*bn = m > 1 ? bsum / (double)(m - 1) : 0;	/* B / n */
}

static double
rhat_core(const double *x, size_t m, size_t n, double *mean)
{
	double	w, bn;

	moments(x, m, n, mean, &w, &bn);
	if (!(w > 0))
		return NAN;
	return sqrt(((double)(n - 1) / (double)n * w + bn) / w);
}

/* Mean over chains of the biased autocovariance at lag t. */
static double
acov(const double *x, size_t m, size_t n, const double *mean, size_t t)
{
	double	sum = 0, s;
	size_t	c, i;

	for (c = 0; c < m; c++) {
		s = 0;
		for (i = 0; i + t < n; i++)
			s += (x[c * n + i] - mean[c]) *
			    (x[c * n + i + t] - mean[c]);
		sum += s / (double)n;
	}
	return sum / (double)m;
}

static double
ess_core(const double *x, size_t m, size_t n, double *mean, double *rho)
{
	double	w, bn, vplus, even, odd, tau, total;
	long	t, maxt, nn = (long)n;

	moments(x, m, n, mean, &w, &bn);
	vplus = (double)(n - 1) / (double)n * w + bn;
	if (!(w > 0) || !(vplus > 0))
		return NAN;
	memset(rho, 0, n * sizeof *rho);
	rho[0] = even = 1;
	rho[1] = odd = 1 - (w - acov(x, m, n, mean, 1)) / vplus;
	/* Geyer's initial positive sequence. */
	t = 1;
	while (t < nn - 3 && even + odd > 0) {
		even = 1 - (w - acov(x, m, n, mean, (size_t)t + 1)) / vplus;
		odd = 1 - (w - acov(x, m, n, mean, (size_t)t + 2)) / vplus;
		if (even + odd >= 0) {
			rho[t + 1] = even;
			rho[t + 2] = odd;
		}
		t += 2;
	}
	maxt = t - 2;	/* -1 when no pair was examined */
	if (even > 0)
		rho[maxt + 1] = even;
	/* Geyer's initial monotone sequence. */
	for (t = 1; t <= maxt - 2; t += 2) {
		if (rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]) {
			rho[t + 1] = 0.5 * (rho[t - 1] + rho[t]);
			rho[t + 2] = rho[t + 1];
		}
	}
	tau = -1;
	for (t = 0; t <= maxt; t++)
		tau += 2 * rho[t];
	tau += rho[maxt + 1];
	total = (double)m * (double)n;
	if (tau < 1 / log10(total))
		tau = 1 / log10(total);
	return total / tau;
}

/* Workspace: split matrix x (m n), means (m), rho (n). */
struct work {
	double	*x, *mean, *rho;
	size_t	 m, n;
};

static void
work_free(struct work *w)
{
	free(w->x);
	free(w->mean);
	free(w->rho);
}

static int
work_alloc(struct work *w, size_t nchain, size_t ndraw, struct het_error *err)
{
	memset(w, 0, sizeof *w);
	w->m = 2 * nchain;
	w->n = ndraw / 2;
	w->x = het_alloc_array(w->m * w->n, sizeof *w->x,
	    "split MCMC chains", err);
	w->mean = het_alloc_array(w->m, sizeof *w->mean, "chain means", err);
	w->rho = het_alloc_array(w->n, sizeof *w->rho, "autocorrelations",
	    err);
	if (w->x == NULL || w->mean == NULL || w->rho == NULL) {
		work_free(w);
		return HET_ENOMEM;
	}
	return HET_OK;
}

double
het_diag_split_rhat(const double *const *draws, size_t nchain, size_t ndraw)
{
	double	wsum = 0, bsum = 0, gm = 0, mean, d, w;
	size_t	c, i, h, k, off, m;

	if (nchain < 1 || ndraw < 4)
		return NAN;
	h = ndraw / 2;
	m = 2 * nchain;
	/* two passes over the half-chains without a copy */
	for (k = 0; k < m; k++) {
		c = k / 2;
		off = k % 2 ? ndraw - h : 0;
		mean = 0;
		for (i = 0; i < h; i++)
			mean += draws[c][off + i];
		gm += mean / (double)h;
	}
	gm /= (double)m;
	for (k = 0; k < m; k++) {
		c = k / 2;
		off = k % 2 ? ndraw - h : 0;
		mean = 0;
		for (i = 0; i < h; i++)
			mean += draws[c][off + i];
		mean /= (double)h;
		for (i = 0; i < h; i++) {
			d = draws[c][off + i] - mean;
			wsum += d * d;
		}
		bsum += (mean - gm) * (mean - gm);
	}
	w = wsum / ((double)m * (double)(h - 1));
	if (!(w > 0))
		return NAN;
	return sqrt(((double)(h - 1) / (double)h * w + bsum /
	    (double)(m - 1)) / w);
}

static int
rhat_with(const double *const *draws, size_t nchain, size_t ndraw,
    const double *sorted, struct work *w, double *bulk, double *tail,
    struct het_error *err)
{
	double	med;
	size_t	i, s = w->m * w->n;
	int	rc;

	split_copy(draws, nchain, ndraw, w->x);
	if ((rc = z_scale(w->x, s, err)) != HET_OK)
		return rc;
	*bulk = rhat_core(w->x, w->m, w->n, w->mean);
	med = quantile_sorted(sorted, nchain * ndraw, 0.5);
	split_copy(draws, nchain, ndraw, w->x);
	for (i = 0; i < s; i++)
		w->x[i] = fabs(w->x[i] - med);
	if ((rc = z_scale(w->x, s, err)) != HET_OK)
		return rc;
	*tail = rhat_core(w->x, w->m, w->n, w->mean);
	return HET_OK;
}

static double
ess_quantile(const double *const *draws, size_t nchain, size_t ndraw,
    double q, struct work *w)
{
	size_t	i, s = w->m * w->n;

	split_copy(draws, nchain, ndraw, w->x);
	for (i = 0; i < s; i++)
		w->x[i] = w->x[i] <= q ? 1 : 0;
	return ess_core(w->x, w->m, w->n, w->mean, w->rho);
}

static int
ess_with(const double *const *draws, size_t nchain, size_t ndraw,
    const double *sorted, struct work *w, double *bulk, double *tail,
    struct het_error *err)
{
	double	e5, e95;
	size_t	s = nchain * ndraw;
	int	rc;

	split_copy(draws, nchain, ndraw, w->x);
	if ((rc = z_scale(w->x, w->m * w->n, err)) != HET_OK)
		return rc;
	*bulk = ess_core(w->x, w->m, w->n, w->mean, w->rho);
	e5 = ess_quantile(draws, nchain, ndraw,
	    quantile_sorted(sorted, s, 0.05), w);
	e95 = ess_quantile(draws, nchain, ndraw,
	    quantile_sorted(sorted, s, 0.95), w);
	*tail = isnan(e5) || isnan(e95) ? NAN : fmin(e5, e95);
	return HET_OK;
}

int
het_diag_rhat(const double *const *draws, size_t nchain, size_t ndraw,
    double *bulk, double *tail, double *rhat, struct het_error *err)
{
	struct work w;
	double	*sorted, b = NAN, t = NAN;
	int	 rc;

	if ((rc = check_args(draws, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((rc = work_alloc(&w, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((sorted = pooled_sorted(draws, nchain, ndraw, err)) == NULL) {
		work_free(&w);
		return HET_ENOMEM;
	}
	rc = rhat_with(draws, nchain, ndraw, sorted, &w, &b, &t, err);
	free(sorted);
	work_free(&w);
	if (bulk != NULL)
		*bulk = b;
	if (tail != NULL)
		*tail = t;
	if (rhat != NULL)
		*rhat = isnan(b) || isnan(t) ? NAN : fmax(b, t);
	return rc;
}

int
het_diag_ess(const double *const *draws, size_t nchain, size_t ndraw,
    double *bulk, double *tail, struct het_error *err)
{
	struct work w;
	double	*sorted, b = NAN, t = NAN;
	int	 rc;

	if ((rc = check_args(draws, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((rc = work_alloc(&w, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((sorted = pooled_sorted(draws, nchain, ndraw, err)) == NULL) {
		work_free(&w);
		return HET_ENOMEM;
	}
	rc = ess_with(draws, nchain, ndraw, sorted, &w, &b, &t, err);
	free(sorted);
	work_free(&w);
	if (bulk != NULL)
		*bulk = b;
	if (tail != NULL)
		*tail = t;
	return rc;
}

int
het_diag_ess_basic(const double *const *draws, size_t nchain, size_t ndraw,
    double *ess, struct het_error *err)
{
	struct work w;
	int	 rc;

	if ((rc = check_args(draws, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((rc = work_alloc(&w, nchain, ndraw, err)) != HET_OK)
		return rc;
	split_copy(draws, nchain, ndraw, w.x);
	*ess = ess_core(w.x, w.m, w.n, w.mean, w.rho);
	work_free(&w);
	return HET_OK;
}

int
het_diag_bfmi(const double *energy, size_t n, double *bfmi,
    struct het_error *err)
{
	double	mean = 0, var = 0, num = 0, d;
	size_t	i;

	if (n < 3)
		return het_error_set(err, HET_EINVAL, "E-BFMI needs at least "
		    "3 energies of one chain (got %zu); run more sampling "
		    "iterations", n);
	for (i = 0; i < n; i++) {
		if (!isfinite(energy[i]))
			return het_error_set(err, HET_EDATA, "energy %zu of "
			    "the chain is not finite (%g); E-BFMI is "
			    "undefined", i, energy[i]);
		mean += energy[i];
	}
	mean /= (double)n;
	for (i = 0; i < n; i++) {
		d = energy[i] - mean;
		var += d * d;
		if (i > 0) {
			d = energy[i] - energy[i - 1];
			num += d * d;
		}
	}
	if (!(var > 0))
		return het_error_set(err, HET_EDATA, "the %zu energies of "
		    "the chain are all equal; E-BFMI is undefined (did the "
		    "sampler move?)", n);
	*bfmi = (num / (double)(n - 1)) / (var / (double)n);
	return HET_OK;
}

int
het_diag_summarise(const double *const *draws, size_t nchain, size_t ndraw,
    struct het_diag_summary *s, struct het_error *err)
{
	struct work w;
	double	*sorted, sum = 0, ss = 0, d;
	size_t	 c, i, tot = nchain * ndraw;
	int	 rc;

	if ((rc = check_args(draws, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((rc = work_alloc(&w, nchain, ndraw, err)) != HET_OK)
		return rc;
	if ((sorted = pooled_sorted(draws, nchain, ndraw, err)) == NULL) {
		work_free(&w);
		return HET_ENOMEM;
	}
	for (c = 0; c < nchain; c++)
		for (i = 0; i < ndraw; i++)
			sum += draws[c][i];
	s->mean = sum / (double)tot;
	for (c = 0; c < nchain; c++)
		for (i = 0; i < ndraw; i++) {
			d = draws[c][i] - s->mean;
			ss += d * d;
		}
	s->sd = sqrt(ss / (double)(tot - 1));
	s->q5 = quantile_sorted(sorted, tot, 0.05);
	s->q50 = quantile_sorted(sorted, tot, 0.5);
	s->q95 = quantile_sorted(sorted, tot, 0.95);
	rc = rhat_with(draws, nchain, ndraw, sorted, &w, &s->rhat_bulk,
	    &s->rhat_tail, err);
	if (rc == HET_OK)
		rc = ess_with(draws, nchain, ndraw, sorted, &w, &s->ess_bulk,
		    &s->ess_tail, err);
	free(sorted);
	work_free(&w);
	if (rc != HET_OK)
		return rc;
	s->rhat = isnan(s->rhat_bulk) || isnan(s->rhat_tail) ? NAN :
	    fmax(s->rhat_bulk, s->rhat_tail);
	s->mcse_mean = s->sd / sqrt(s->ess_bulk);
	return HET_OK;
}
