#include "config.h"

/*
 * het_consensus.c: Consensus Monte Carlo combination of shard draws and
 * the per-shard convergence gates.
 *
 * Design: everything is small dense linear algebra (p is at most a few
 * dozen), so each shard's covariance is formed directly from its draws
 * and inverted through a Cholesky factorisation (LAPACKE dpotrf and
 * dpotri, row-major lower triangle), with a growing ridge when the
 * factorisation fails (het_consensus.h states the rule).  The combined
 * draws are a linear map of the aligned shard draws, so their mean is
 * exactly the Gaussian-product mean; their covariance approaches the
 * product covariance as the shard posteriors approach Gaussians.
 * Sentences (dropped shards, failed gates) are appended to growing
 * strings so no message is ever truncated.
 */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <lapacke.h>

#include "het_consensus.h"
#include "het_util.h"

static const char *const method_names[HET_COMBINE_COUNT] = {
	"consensus_mc", "robust_consensus_mc", "simple_average"
};

const char *
het_consensus_method_name(int method)
{
	if (method < 0 || method >= HET_COMBINE_COUNT)
		return "?";
	return method_names[method];
}

/* Append a formatted sentence to *s (a malloc'd string or NULL). */
static int __attribute__((format(printf, 2, 3)))
sappend(char **s, const char *fmt, ...)
{
	va_list	 ap;
	size_t	 old = *s != NULL ? strlen(*s) : 0;
	int	 n;
	char	*ns;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (ns = realloc(*s, old + (size_t)n + 2)) == NULL)
		return HET_ENOMEM;
	if (old > 0)
		ns[old++] = ' ';
	va_start(ap, fmt);
	vsnprintf(ns + old, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*s = ns;
	return HET_OK;
}

void
het_consensus_clear(struct het_consensus *c)
{
	if (c == NULL)
		return;
	free(c->draws);
	free(c->mean);
	free(c->sd);
	free(c->cov);
	free(c->gauss_mean);
	free(c->gauss_cov);
	free(c->skew);
	free(c->skew_bias);
	free(c->used);
	free(c->outlier);
	free(c->note);
	memset(c, 0, sizeof *c);
}

double *
het_consensus_flatten(const struct het_shard_result *res,
    struct het_error *err)
{
	size_t	 c, m, i, p = res->p, nd = res->ndraw;
	double	*out;

	if (p == 0 || nd == 0 || res->nchain == 0 || res->draws == NULL) {
		het_error_set(err, HET_EINVAL, "a shard result holds no draws "
		    "(p = %zu, %zu chains of %zu draws)", p, res->nchain, nd);
		return NULL;
	}
	out = het_alloc_array(res->nchain * nd, p * sizeof *out,
	    "flattened shard draws", err);
	if (out == NULL)
		return NULL;
	for (c = 0; c < res->nchain; c++)
		for (m = 0; m < p; m++)
			for (i = 0; i < nd; i++)
				out[(c * nd + i) * p + m] =
				    res->draws[(c * p + m) * nd + i];
	return out;
}

void
het_consensus_moments(const double *x, size_t n, size_t p, double *mean,
    double *cov)
{
	size_t	d, a, b;

	memset(mean, 0, p * sizeof *mean);
	memset(cov, 0, p * p * sizeof *cov);
	for (d = 0; d < n; d++)
		for (a = 0; a < p; a++)
			mean[a] += x[d * p + a];
	for (a = 0; a < p; a++)
		mean[a] /= (double)n;
	for (d = 0; d < n; d++)
		for (a = 0; a < p; a++)
			for (b = 0; b <= a; b++)
				cov[a * p + b] += (x[d * p + a] - mean[a]) *
				    (x[d * p + b] - mean[b]);
	for (a = 0; a < p; a++)
		for (b = 0; b <= a; b++) {
			cov[a * p + b] /= n > 1 ? (double)(n - 1) : 1.0;
			cov[b * p + a] = cov[a * p + b];
		}
}

/*
 * inv = A^-1 for symmetric A (p x p), through Cholesky with a growing
 * ridge when needed.  Returns 0 (no ridge), 1 (ridge added) or -1.
 */
static int
spd_inverse(const double *a, size_t p, double *inv)
{
	double	tr = 0.0, ridge;
	size_t	i, j;
	int	k, n = (int)p;

	for (i = 0; i < p; i++)
		tr += a[i * p + i];
	ridge = tr > 0.0 && isfinite(tr) ? tr / (double)p : 1e290;
	for (k = -1; k <= 8; k++) {
		memcpy(inv, a, p * p * sizeof *inv);
		if (k >= 0)
			for (i = 0; i < p; i++)
				inv[i * p + i] += ridge * pow(10.0, k - 10);
		if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, inv, n) != 0)
			continue;
		if (LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', n, inv, n) != 0)
			continue;
		for (i = 0; i < p; i++)
			for (j = 0; j < i; j++)
				inv[j * p + i] = inv[i * p + j];
		return k >= 0;
	}
	return -1;
}

static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, het_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * Flag outlying shards among the used ones (means: K x p, covs: K x p x
 * p; the rule is in het_consensus.h).  tmp holds K values.  Returns
 * HET_OK or HET_ENOMEM.
 */
static int
robust_flags(struct het_consensus *c, const double *means, const double *covs,
    double *tmp)
{
	size_t	s, m, k, K = c->nshards, p = c->p, nin;
	double	med, mad, mead, z, zc;

	if (K == 1)
		return HET_OK;		/* nothing to combine, nothing to say */
	if (c->nused < 3)
		return sappend(&c->note, "robust_consensus_mc: only %zu "
		    "usable shard%s, too few for the outlier test (needs 3); "
		    "%s kept.", c->nused, c->nused == 1 ? "" : "s",
		    c->nused == 1 ? "it is" : "both are");
	zc = gsl_cdf_ugaussian_Qinv(HET_CONS_OUTLIER_FWER / 2.0 /
	    ((double)c->nused * (double)p)) *
	    sqrt(1.0 + M_PI / (2.0 * (double)c->nused));
	for (m = 0; m < p; m++) {
		for (k = 0, s = 0; s < K; s++)
			if (c->used[s])
				tmp[k++] = means[s * p + m];
		med = median(tmp, k);
		for (k = 0, mead = 0.0, s = 0; s < K; s++)
			if (c->used[s]) {
				tmp[k++] = fabs(means[s * p + m] - med);
				mead += tmp[k - 1];
			}
		mead /= (double)k;
		mad = median(tmp, k);
		for (s = 0; s < K; s++) {
			if (!c->used[s])
				continue;
			if (mad > 0.0)
				z = 0.6745 * fabs(means[s * p + m] - med) / mad;
			else if (mead > 0.0)
				z = fabs(means[s * p + m] - med) /
				    (1.253314 * mead);
			else
				z = 0.0;
			if (z >= 3.5 && fabs(means[s * p + m] - med) >=
			    zc * sqrt(covs[(s * p + m) * p + m]))
				c->outlier[s] = 1;
		}
	}
	for (nin = 0, s = 0; s < K; s++)
		nin += c->used[s] && !c->outlier[s];
	if (nin < 3) {
		memset(c->outlier, 0, K);
		return sappend(&c->note, "robust_consensus_mc: the outlier "
		    "test would leave %zu of %zu shards (fewer than 3); all "
		    "are kept.", nin, c->nused);
	}
	for (s = 0; s < K; s++)
		if (c->outlier[s]) {
			c->used[s] = 0;
			c->nused--;
			if (sappend(&c->note, "Shard %zu was dropped as an "
			    "outlier (its mean differs from the median of "
			    "the shard means by a modified z-score >= 3.5).",
			    s) != HET_OK)
				return HET_ENOMEM;
		}
	return HET_OK;
}

/*
 * c->skew and c->skew_bias from the draws of the used shards (means:
 * their K x p shard means); see het_consensus.h.
 */
static void
shard_skew(struct het_consensus *c, const double *const *draws,
    const size_t *ndraw, const double *means)
{
	size_t	s, d, m, p = c->p;
	double	m2, m3, x;

	for (s = 0; s < c->nshards; s++) {
		if (!c->used[s])
			continue;
		for (m = 0; m < p; m++) {
			m2 = m3 = 0.0;
			for (d = 0; d < ndraw[s]; d++) {
				x = draws[s][d * p + m] - means[s * p + m];
				m2 += x * x;
				m3 += x * x * x;
			}
			m2 /= (double)ndraw[s];
			m3 /= (double)ndraw[s];
			if (m2 > 0.0)
				c->skew[m] += m3 / (m2 * sqrt(m2)) /
				    (double)c->nused;
		}
	}
	for (m = 0; m < p; m++)
		c->skew_bias[m] = c->nused < 2 ? 0.0 :
		    fabs(c->skew[m]) * sqrt((double)c->nused) / 2.0;
}

static int
check_args(int method, const double *const *draws, const size_t *ndraw,
    size_t K, size_t p, struct het_error *err)
{
	if (method < 0 || method >= HET_COMBINE_COUNT)
		return het_error_set(err, HET_EINVAL, "unknown combination "
		    "method %d; use consensus_mc, robust_consensus_mc or "
		    "simple_average", method);
	if (K == 0 || p == 0)
		return het_error_set(err, HET_EINVAL, "nothing to combine: "
		    "%zu shards of %zu parameters", K, p);
	if (draws == NULL || ndraw == NULL)
		return het_error_set(err, HET_EINVAL, "het_consensus_combine:"
		    " no draws given (a bug in the caller)");
	return HET_OK;
}

int
het_consensus_combine(int method, const double *const *draws,
    const size_t *ndraw, size_t K, size_t p, struct het_consensus *c,
    struct het_error *err)
{
	double	*means = NULL, *covs = NULL, *W = NULL, *lam = NULL;
	double	*b = NULL, *wm = NULL, *tmp = NULL;
	size_t	 s, d, a, j, i, nd = 0;
	int	 rc, r;

	memset(c, 0, sizeof *c);
	if ((rc = check_args(method, draws, ndraw, K, p, err)) != HET_OK)
		return rc;
	c->method = method;
	c->p = p;
	c->nshards = K;
	c->used = calloc(K, 1);
	c->outlier = calloc(K, 1);
	c->note = calloc(1, 1);
	c->mean = calloc(p, sizeof *c->mean);
	c->sd = calloc(p, sizeof *c->sd);
	c->cov = calloc(p * p, sizeof *c->cov);
	c->gauss_mean = calloc(p, sizeof *c->gauss_mean);
	c->gauss_cov = calloc(p * p, sizeof *c->gauss_cov);
	c->skew = calloc(p, sizeof *c->skew);
	c->skew_bias = calloc(p, sizeof *c->skew_bias);
	means = het_alloc_array(K, p * sizeof *means, "shard means", err);
	covs = het_alloc_array(K, p * p * sizeof *covs, "shard covariances",
	    err);
	W = het_alloc_array(K, p * p * sizeof *W, "shard weights", err);
	lam = calloc(p * p, sizeof *lam);
	b = calloc(p, sizeof *b);
	wm = calloc(p, sizeof *wm);
	tmp = calloc(K + 1, sizeof *tmp);
	rc = HET_ENOMEM;
	if (c->used == NULL || c->outlier == NULL || c->note == NULL ||
	    c->mean == NULL || c->sd == NULL || c->cov == NULL ||
	    c->gauss_mean == NULL || c->gauss_cov == NULL ||
	    c->skew == NULL || c->skew_bias == NULL || means == NULL ||
	    covs == NULL || W == NULL || lam == NULL || b == NULL ||
	    wm == NULL || tmp == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory combining %zu "
		    "shards of %zu parameters", K, p);
		goto out;
	}
	for (s = 0; s < K; s++) {
		size_t	n = ndraw[s] * p;

		if (draws[s] == NULL || ndraw[s] < 2) {
			rc = het_error_set(err, HET_EDATA, "shard %zu has %zu "
			    "draws; combining needs at least 2 per shard", s,
			    draws[s] == NULL ? 0 : ndraw[s]);
			goto out;
		}
		for (i = 0; i < n && isfinite(draws[s][i]); i++)
			;
		if (i < n) {
			if (sappend(&c->note, "Shard %zu was dropped: draw "
			    "%zu of parameter %zu is not finite.", s, i / p,
			    i % p) != HET_OK)
				goto nomem;
			continue;
		}
		c->used[s] = 1;
		c->nused++;
		het_consensus_moments(draws[s], ndraw[s], p, means + s * p,
		    covs + s * p * p);
	}
	if (c->nused == 0) {
		rc = het_error_set(err, HET_EDATA, "no shard can be combined: "
		    "every one of the %zu shards has non-finite draws", K);
		goto out;
	}
	if (method == HET_COMBINE_ROBUST &&
	    robust_flags(c, means, covs, tmp) != HET_OK)
		goto nomem;
	shard_skew(c, draws, ndraw, means);
	for (s = 0; s < K; s++)
		if (c->used[s] && (nd == 0 || ndraw[s] < nd))
			nd = ndraw[s];
	c->ndraw = nd;
	if ((c->draws = het_alloc_array(nd, p * sizeof *c->draws,
	    "combined draws", err)) == NULL)
		goto out;
	if (method == HET_COMBINE_AVERAGE) {
		double	kk = (double)c->nused;

		for (s = 0; s < K; s++) {
			if (!c->used[s])
				continue;
			for (a = 0; a < p; a++)
				c->gauss_mean[a] += means[s * p + a] / kk;
			for (a = 0; a < p * p; a++)
				c->gauss_cov[a] += covs[s * p * p + a] /
				    (kk * kk);
			for (d = 0; d < nd * p; d++)
				c->draws[d] += draws[s][d] / kk;
		}
	} else {
		for (s = 0; s < K; s++) {
			if (!c->used[s])
				continue;
			if ((r = spd_inverse(covs + s * p * p, p,
			    W + s * p * p)) < 0) {
				rc = het_error_set(err, HET_EDATA, "the "
				    "covariance of shard %zu's draws cannot "
				    "be inverted even with a ridge; check "
				    "its draws for a stuck chain", s);
				goto out;
			}
			c->nregular += (size_t)r;
			for (a = 0; a < p * p; a++)
				lam[a] += W[s * p * p + a];
			for (a = 0; a < p; a++)
				for (j = 0; j < p; j++)
					wm[a] += W[s * p * p + a * p + j] *
					    means[s * p + j];
		}
		if (spd_inverse(lam, p, c->gauss_cov) < 0) {
			rc = het_error_set(err, HET_EDATA, "the summed shard "
			    "precisions cannot be inverted; the shard "
			    "posteriors are degenerate");
			goto out;
		}
		for (a = 0; a < p; a++)
			for (j = 0; j < p; j++)
				c->gauss_mean[a] += c->gauss_cov[a * p + j] *
				    wm[j];
		for (d = 0; d < nd; d++) {
			memset(b, 0, p * sizeof *b);
			for (s = 0; s < K; s++) {
				const double	*w = W + s * p * p;
				const double	*x = draws[s] + d * p;

				if (!c->used[s])
					continue;
				for (a = 0; a < p; a++)
					for (j = 0; j < p; j++)
						b[a] += w[a * p + j] * x[j];
			}
			for (a = 0; a < p; a++) {
				double	v = 0.0;

				for (j = 0; j < p; j++)
					v += c->gauss_cov[a * p + j] * b[j];
				c->draws[d * p + a] = v;
			}
		}
	}
	het_consensus_moments(c->draws, nd, p, c->mean, c->cov);
	for (a = 0; a < p; a++)
		c->sd[a] = sqrt(c->cov[a * p + a]);
	rc = HET_OK;
	goto out;
nomem:
	rc = het_error_set(err, HET_ENOMEM, "out of memory combining %zu "
	    "shards", K);
out:
	free(means);
	free(covs);
	free(W);
	free(lam);
	free(b);
	free(wm);
	free(tmp);
	if (rc != HET_OK)
		het_consensus_clear(c);
	return rc;
}

static const char *
pname(const char *const *names, size_t m, char *buf, size_t len)
{
	if (names != NULL && names[m] != NULL)
		return names[m];
	snprintf(buf, len, "parameter %zu", m);
	return buf;
}

int
het_consensus_skew_note(struct het_consensus *c, const char *const *names,
    struct het_error *err)
{
	char	*s = NULL, buf[32];
	size_t	 m, i = 0, n = 0, kmax;
	double	 worst = 0.0;

	for (m = 0; m < c->p; m++)
		if (c->skew_bias[m] > HET_CONS_SKEW_BIAS_MAX) {
			n++;
			if (c->skew_bias[m] > worst)
				worst = c->skew_bias[m];
		}
	if (n == 0)
		return HET_OK;
	for (m = 0; m < c->p; m++) {
		if (!(c->skew_bias[m] > HET_CONS_SKEW_BIAS_MAX))
			continue;
		if (sappend(&s, "%s%s (mean skewness %.2f: about %.1f sd off "
		    "if all shards are skewed alike)%s",
		    i == 0 ? "The shard posteriors of " : "",
		    pname(names, m, buf, sizeof buf), c->skew[m],
		    c->skew_bias[m], i + 1 < n ? "," : "") != HET_OK)
			goto nomem;
		i++;
	}
	kmax = (size_t)floor((double)c->nused * HET_CONS_SKEW_BIAS_MAX /
	    worst);
	if (kmax < 1)
		kmax = 1;
	if (sappend(&s, "are skewed, and the consensus assumes Gaussian "
	    "shard posteriors: %s may be off. Use at most %zu "
	    "shard%s (optimization.cmc.num_shards: %zu)%s, or fix %s.",
	    n > 1 ? "their combined means and sds" :
	    "its combined mean and sd", kmax,
	    kmax > 1 ? "s" : "", kmax, kmax == 1 ? ", one NUTS run on all "
	    "the data" : "", n > 1 ? "those parameters" : "that parameter")
	    != HET_OK || sappend(&c->note, "%s", s) != HET_OK)
		goto nomem;
	free(s);
	return HET_OK;
nomem:
	free(s);
	return het_error_set(err, HET_ENOMEM, "out of memory writing the "
	    "consensus note");
}

void
het_cons_diag_from_result(const struct het_shard_result *res,
    double *rhat_buf, double *ess_buf, struct het_cons_diag *d)
{
	size_t	m, c;

	memset(d, 0, sizeof *d);
	for (m = 0; m < res->p; m++) {
		rhat_buf[m] = res->summary != NULL ? res->summary[m].rhat : NAN;
		ess_buf[m] = res->summary != NULL ?
		    res->summary[m].ess_bulk : NAN;
	}
	d->p = res->p;
	d->rhat = rhat_buf;
	d->ess = ess_buf;
	d->nchain = res->nchain;
	d->bfmi = res->bfmi;
	for (c = 0; c < res->nchain && res->divergences != NULL; c++)
		d->divergences += res->divergences[c];
	d->ndraws = (long)(res->nchain * res->ndraw);
}

void
het_cons_gate_report_clear(struct het_cons_gate_report *rep)
{
	if (rep == NULL)
		return;
	free(rep->shard);
	free(rep->msg);
	memset(rep, 0, sizeof *rep);
}

/* Fill one shard's gate record; NaN anywhere makes the extreme NaN. */
static void
gate_shard(const struct het_cons_gates *g, const struct het_cons_diag *d,
    struct het_cons_shard_gate *sg)
{
	size_t	m;

	memset(sg, 0, sizeof *sg);
	sg->max_rhat = -HUGE_VAL;
	sg->min_ess = HUGE_VAL;
	sg->min_bfmi = d->nchain > 0 ? HUGE_VAL : NAN;
	for (m = 0; m < d->p; m++) {
		if (isnan(sg->max_rhat) || isnan(d->rhat[m])) {
			if (!isnan(sg->max_rhat))
				sg->worst_rhat = m;
			sg->max_rhat = NAN;
		} else if (d->rhat[m] > sg->max_rhat) {
			sg->max_rhat = d->rhat[m];
			sg->worst_rhat = m;
		}
		if (isnan(sg->min_ess) || isnan(d->ess[m])) {
			if (!isnan(sg->min_ess))
				sg->worst_ess = m;
			sg->min_ess = NAN;
		} else if (d->ess[m] < sg->min_ess) {
			sg->min_ess = d->ess[m];
			sg->worst_ess = m;
		}
	}
	for (m = 0; m < d->nchain; m++)
		if (isnan(d->bfmi[m]) || d->bfmi[m] < sg->min_bfmi)
			sg->min_bfmi = isnan(sg->min_bfmi) ? NAN : d->bfmi[m];
	sg->div_rate = d->ndraws > 0 ?
	    (double)d->divergences / (double)d->ndraws : NAN;
	sg->rhat_ok = sg->max_rhat < g->max_r_hat;
	sg->ess_ok = sg->min_ess > g->min_ess;
	sg->bfmi_ok = sg->min_bfmi > g->min_bfmi;
	sg->div_ok = sg->div_rate <= g->max_divergence_rate;
	sg->pass = sg->rhat_ok && sg->ess_ok && sg->bfmi_ok && sg->div_ok;
}

int
het_consensus_gates(const struct het_cons_gates *g,
    const struct het_cons_diag *d, size_t K, const char *const *names,
    struct het_cons_gate_report *rep, struct het_error *err)
{
	struct het_cons_shard_gate	*sg;
	char				 nb[64];
	size_t				 s;
	int				 e = HET_OK;

	memset(rep, 0, sizeof *rep);
	if (K == 0 || d == NULL)
		return het_error_set(err, HET_EINVAL, "no shard diagnostics "
		    "to check");
	for (s = 0; s < K; s++)
		if (d[s].p == 0 || d[s].rhat == NULL || d[s].ess == NULL ||
		    (d[s].nchain > 0 && d[s].bfmi == NULL))
			return het_error_set(err, HET_EINVAL, "shard %zu has "
			    "no diagnostics (a bug in the caller)", s);
	if ((rep->shard = calloc(K, sizeof *rep->shard)) == NULL ||
	    (rep->msg = calloc(1, 1)) == NULL) {
		het_cons_gate_report_clear(rep);
		return het_error_set(err, HET_ENOMEM, "out of memory for the "
		    "gate report of %zu shards", K);
	}
	rep->nshards = K;
	for (s = 0; s < K && e == HET_OK; s++) {
		sg = &rep->shard[s];
		gate_shard(g, &d[s], sg);
		if (!sg->pass)
			rep->nfailed++;
		if (!sg->rhat_ok)
			e |= sappend(&rep->msg, "Shard %zu: R-hat of %s is %.4g,"
			    " not below max_r_hat %g; the chains disagree, so "
			    "run more warmup and samples.", s,
			    pname(names, sg->worst_rhat, nb, sizeof nb),
			    sg->max_rhat, g->max_r_hat);
		if (!sg->ess_ok)
			e |= sappend(&rep->msg, "Shard %zu: bulk ESS of %s is "
			    "%.4g, not above min_ess %g; run more samples.", s,
			    pname(names, sg->worst_ess, nb, sizeof nb),
			    sg->min_ess, g->min_ess);
		if (!sg->bfmi_ok)
			e |= sappend(&rep->msg, "Shard %zu: the lowest E-BFMI "
			    "is %.4g, not above min_bfmi %g; the sampler "
			    "explores the energy poorly (check the priors and "
			    "the reparameterisation).", s, sg->min_bfmi,
			    g->min_bfmi);
		if (!sg->div_ok)
			e |= sappend(&rep->msg, "Shard %zu: %ld of %ld draws "
			    "diverged (rate %.4g), above max_divergence_rate "
			    "%g; raise target_accept_prob.", s,
			    d[s].divergences, d[s].ndraws, sg->div_rate,
			    g->max_divergence_rate);
	}
	if (e != HET_OK) {
		het_cons_gate_report_clear(rep);
		return het_error_set(err, HET_ENOMEM, "out of memory for the "
		    "gate messages");
	}
	rep->pass = rep->nfailed == 0;
	return HET_OK;
}
