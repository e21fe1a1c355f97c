/*
 * het_fit_check.c: the statistical checks behind the fit's warnings
 * (het_fit_check_warnings): is the reduced chi-square improbable for a
 * correct model, given that the noise sigma is itself an estimate
 * (het_fit_chi2_check)?  Do the residuals have structure a correct model
 * would not leave (het_fit_resid_structure)?
 *
 * The reduced chi-square test.  The far-lag noise estimate of an angle
 * rests on m_a differences (het_problem.h); sigma_a^2 then scatters like
 * sigma^2 chi^2(nu_a) / nu_a with nu_a = HET_PROBLEM_NOISE_EFF m_a (about
 * 17 at 25 frames, so sigma_a scatters by +-17 %).  Dividing each
 * angle's sum of squares by its own estimate makes the reduced
 * chi-square of a correct fit come out near nu / (nu - 2), 1.13 at 25
 * frames, with a long right tail.  The test therefore pools: with n_a the
 * pairs of angle a and N their sum,
 *	T = (sum r^2 / dof) / (sum_a n_a sigma_a^2 / N),
 * the residual variance over the pooled noise variance.  The numerator
 * and denominator are weighted sums of independent chi-squares;
 * Satterthwaite's rule gives each one effective degrees of freedom,
 *	d1 = dof S1^2 / (N S2),  d2 = S1^2 / sum_a n_a^2 sigma_a^4 / nu_a,
 * S1 = sum n_a sigma_a^2, S2 = sum n_a sigma_a^4 (d1 = dof and d2 =
 * sum nu_a when every angle has the same noise: the pooling then is
 * exact), and T ~ F(d1, d2) for a correct model at its optimum.  The
 * warning fires above the 1 - HET_FIT_CHI2_ALPHA point of that F
 * (Paulson's cube-root normal approximation: within 0.1 % of the exact
 * point for d2 >= 100 and above it, i.e. conservative, for smaller d2),
 * and never below 1 + HET_FIT_CHI2_SYS, the systematic uncertainty of
 * the far-lag estimator on real data (non-Gaussian or correlated noise).
 * A sigma without a count (given by the caller) counts as exact.
 *
 * The residual-structure test.  A model can miss how the dynamics change
 * with time and still reach a reduced chi-square of 1 (a constant-D fit
 * of an ageing sample: the misfit at short lags changes sign with age
 * and averages out).  One pass over the residuals at the optimum (on
 * the pool, chunk-ordered so the sums do not depend on the threads)
 * sums r, r^2 and the count per cell: angle x age bin of t1 (RS_AGE
 * bins) x lag band [2^l, 2^(l+1)).  Each (angle, band) is scaled by its
 * own residual variance (robust to noise that grows with c2, and
 * independent of the noise estimate), so a cell's mean is z = sum r /
 * sqrt(n v) ~ N(0, 1) for a correct model.  Two tests, each at
 * probability RS_ALPHA for a correct model:
 *   - age, for the short-lag bands (lag <= N / RS_SHORT, where the
 *     decay is): the between-age-bin chi-square sum_b z_b^2 - z_band^2
 *     (dof: bins - 1 per band), and the common least-squares trend of
 *     the bins' means with age in standard errors (two-sided);
 *   - lag: sum over bands of z_band^2 (dof: the bands).
 * chi-square points by Wilson-Hilferty.  Not run on early-window
 * problems.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "het_fit_impl.h"
#include "het_model.h"
#include "het_problem.h"

/*
 * The upper alpha point of F(d1, d2) by Paulson's approximation (the
 * cube roots of the two chi-squares are nearly normal); INFINITY when
 * d2 is too small for it (below about 2.2 at alpha 1e-3).
 */
static double
f_upper(double alpha, double d1, double d2)
{
	double z = gsl_cdf_ugaussian_Qinv(alpha);
	double a = 1.0 - 2.0 / (9.0 * d2), b = 1.0 - 2.0 / (9.0 * d1);
	double c = 2.0 / (9.0 * d2), e = 2.0 / (9.0 * d1);
	double A = a * a - z * z * c, disc, u;

	if (!(A > 0) || !(a > 0))
		return INFINITY;
	disc = a * a * b * b - A * (b * b - z * z * e);
	if (!(disc >= 0))
		return INFINITY;
	u = (a * b + sqrt(disc)) / A;
	return u * u * u;
}

int
het_fit_chi2_check(const struct fit_run *run, double rss, struct fit_chi2 *out)
{
	const struct fit_prob *fp = run->fp;
	const struct het_fit_options *opt = run->opt;
	double s2, S1 = 0, S2 = 0, V = 0, nu, N = 0, dof = (double)run->dof;
	size_t a, cnt, maxcnt = 0;
	int exact = 0;

	out->t = out->lim = out->d1 = out->d2 = NAN;
	if (!(run->sig2 > 0))
		return 0;
	if (opt->noise_sigma_angle != NULL) {
		for (a = 0; a < fp->na && opt->noise_count_angle != NULL; a++)
			if (opt->noise_count_angle[a] > maxcnt)
				maxcnt = opt->noise_count_angle[a];
		for (a = 0; a < fp->na; a++) {
			if (fp->npa[a] == 0)
				continue;
			s2 = opt->noise_sigma_angle[a] *
			    opt->noise_sigma_angle[a];
			/* An angle without its own estimate uses the
			   pooled one: count it like the best angle. */
			cnt = opt->noise_count_angle != NULL &&
			    opt->noise_count_angle[a] > 0 ?
			    opt->noise_count_angle[a] : maxcnt;
			S1 += (double)fp->npa[a] * s2;
			S2 += (double)fp->npa[a] * s2 * s2;
			N += (double)fp->npa[a];
			if (cnt == 0)
				exact = 1;
			else {
				nu = HET_PROBLEM_NOISE_EFF * (double)cnt;
				V += (double)fp->npa[a] * (double)fp->npa[a] *
				    s2 * s2 / nu;
			}
		}
	} else {
		s2 = run->sig2;
		N = (double)fp->n;
		S1 = N * s2;
		S2 = N * s2 * s2;
		if (opt->noise_count == 0)
			exact = 1;
		else
			V = N * N * s2 * s2 / (HET_PROBLEM_NOISE_EFF *
			    (double)opt->noise_count);
	}
	if (!(S1 > 0) || !(N > 0))
		return 0;
	out->t = rss / dof / (S1 / N);
	out->d1 = dof * S1 * S1 / (N * S2);
	out->d2 = exact || !(V > 0) ? INFINITY : S1 * S1 / V;
	out->lim = f_upper(HET_FIT_CHI2_ALPHA, out->d1,
	    isfinite(out->d2) ? out->d2 : 1e300);
	if (out->lim < 1.0 + HET_FIT_CHI2_SYS)
		out->lim = 1.0 + HET_FIT_CHI2_SYS;
	return 1;
}

/* ---- residual structure ------------------------------------------------- */

/* Pairs per chunk of the residual pass. */
#define RS_CHUNK	16384
/* Age bins (of t1), short lags (lag <= N / RS_SHORT), test level. */
#define RS_AGE		8
#define RS_SHORT	16
#define RS_ALPHA	1e-6

/* The upper alpha point of chi^2(d) (Wilson-Hilferty); 0 for d <= 0. */
static double
chi2_upper(double alpha, double d)
{
	double z = gsl_cdf_ugaussian_Qinv(alpha), v = 2.0 / (9.0 * d), u;

	if (!(d > 0))
		return 0;
	u = 1.0 - v + z * sqrt(v);
	return d * u * u * u;
}

struct rs_ctx {
	const struct fit_prob	*fp;
	struct het_resid_eval	*ev;
	struct het_resid_scratch **scr;	/* per worker */
	double			**res;	/* per worker, HET_FIT_BLOCK */
	size_t			 nf, nage, nlag, len;
};

/* The cell of a pair: angle, age bin of t1 = i, lag band log2(j - i). */
static size_t
rs_cell(const struct rs_ctx *c, const struct het_pair *pr)
{
	size_t b = (size_t)pr->i * c->nage / c->nf, l = 0, lag = pr->j - pr->i;

	while (lag > 1) {
		lag >>= 1;
		l++;
	}
	if (l >= c->nlag)
		l = c->nlag - 1;
	return ((size_t)pr->a * c->nage + b) * c->nlag + l;
}

/* One chunk: per cell sum r, count and sum r^2 into partial. */
static int
rs_chunk(void *ctx, size_t chunk, size_t worker, double *partial,
    struct het_error *err)
{
	struct rs_ctx *c = ctx;
	const struct het_pair *pr = het_resid_pairs(c->fp->r);
	size_t v = c->fp->first + chunk * RS_CHUNK, end, nb, k, cell;
	size_t ncell = c->len / 3;

	(void)err;
	end = c->fp->first + c->fp->n;
	if (v + RS_CHUNK < end)
		end = v + RS_CHUNK;
	for (; v < end; v += nb) {
		nb = end - v < HET_FIT_BLOCK ? end - v : HET_FIT_BLOCK;
		het_resid_eval_rows(c->ev, c->scr[worker], v, nb,
		    c->res[worker], NULL);
		for (k = 0; k < nb; k++) {
			cell = rs_cell(c, &pr[v + k]);
			partial[cell] += c->res[worker][k];
			partial[ncell + cell] += 1.0;
			partial[2 * ncell + cell] += c->res[worker][k] *
			    c->res[worker][k];
		}
	}
	return HET_OK;
}

int
het_fit_resid_structure(const struct fit_run *run, struct het_pool *pool,
    const double *x, struct fit_struct *out, struct het_error *err)
{
	const struct fit_prob *fp = run->fp;
	struct rs_ctx c;
	struct het_pool_reducer *red = NULL;
	double *xf = NULL, *acc = NULL, s, n, zl, zb, tb, tm, vb, ss;
	double num = 0, var = 0;
	size_t nw = het_pool_nthreads(pool), k, a, b, l, ncell, cell;
	int rc = HET_ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.nf = het_model_spec_of(het_resid_model(fp->r))->n_frames;
	if (fp->nseg > 0 || c.nf < 8 || fp->n == 0)
		return HET_OK;
	c.fp = fp;
	c.nage = c.nf >= 4 * RS_AGE ? RS_AGE : c.nf / 4;
	for (c.nlag = 1; ((size_t)1 << c.nlag) < c.nf; c.nlag++)
		;
	ncell = fp->na * c.nage * c.nlag;
	c.len = 3 * ncell;
	xf = malloc(fp->P * sizeof(*xf) + 1);
	acc = malloc(c.len * sizeof(*acc));
	c.scr = calloc(nw, sizeof(*c.scr));
	c.res = calloc(nw, sizeof(*c.res));
	if (xf == NULL || acc == NULL || c.scr == NULL || c.res == NULL) {
		het_error_set(err, HET_ENOMEM, "fit: out of memory");
		goto out;
	}
	memcpy(xf, fp->xfull0, fp->P * sizeof(*xf));
	for (k = 0; k < fp->p; k++)
		xf[fp->rcol[k]] = x[k];
	if ((c.ev = het_resid_eval_alloc(fp->r, err)) == NULL)
		goto out;
	if ((rc = het_resid_prepare(c.ev, xf, 0, err)) != HET_OK)
		goto out;
	rc = HET_ENOMEM;
	for (k = 0; k < nw; k++)
		if ((c.scr[k] = het_resid_scratch_alloc(fp->r, HET_FIT_BLOCK,
		    err)) == NULL || (c.res[k] = malloc(HET_FIT_BLOCK *
		    sizeof(double))) == NULL)
			goto out;
	if ((red = het_pool_reducer_alloc(c.len, 0, err)) == NULL)
		goto out;
	if ((rc = het_pool_reduce(pool, red, (fp->n + RS_CHUNK - 1) /
	    RS_CHUNK, rs_chunk, &c, acc, NULL, NULL, err)) != HET_OK)
		goto out;
	/*
	 * Per angle and lag band: the band's z (all ages) enters the lag
	 * test; the spread of the age bins' z around it (sum z_b^2 - z^2,
	 * exactly the between-bin chi-square of the band's mean residual)
	 * enters the age test, for the short-lag bands only.
	 */
	out->zmin = INFINITY;
	out->zmax = -INFINITY;
	for (a = 0; a < fp->na; a++)
		for (l = 0; l < c.nlag; l++) {
			s = n = zb = ss = 0;
			for (b = 0; b < c.nage; b++) {
				cell = (a * c.nage + b) * c.nlag + l;
				if (acc[ncell + cell] > 0)
					zb += acc[cell] * acc[cell] /
					    acc[ncell + cell];
				s += acc[cell];
				n += acc[ncell + cell];
				ss += acc[2 * ncell + cell];
			}
			if (n < 2 || !(ss > 0))
				continue;
			/* the band's own residual variance: robust to noise
			   that changes with lag, and to the noise estimate */
			vb = ss / n;
			zb /= vb;
			zl = s / sqrt(n * vb);
			out->chi2_lag += zl * zl;
			out->zlag = fmax(out->zlag, fabs(zl));
			out->dof_lag += 1;
			if (((size_t)1 << l) > (c.nf / RS_SHORT > 0 ?
			    c.nf / RS_SHORT : 1))
				continue;
			out->short_lag = ((size_t)2 << l) - 1;
			out->chi2_age += zb - zl * zl;
			/* the least-squares slope of the band's mean
			   residual against the age bin, in units of its
			   standard error: num / sqrt(var) */
			tm = 0;
			for (b = 0; b < c.nage; b++)
				tm += (double)b * acc[ncell + (a * c.nage + b) *
				    c.nlag + l];
			tm /= n;
			for (b = 0; b < c.nage; b++) {
				cell = (a * c.nage + b) * c.nlag + l;
				tb = (double)b - tm;
				num += tb * acc[cell] / sqrt(vb);
				var += tb * tb * acc[ncell + cell];
			}
			for (b = 0; b < c.nage; b++) {
				cell = (a * c.nage + b) * c.nlag + l;
				if (acc[ncell + cell] > 0) {
					out->dof_age += 1;
					zb = acc[cell] / sqrt(vb *
					    acc[ncell + cell]);
					out->zmin = fmin(out->zmin, zb);
					out->zmax = fmax(out->zmax, zb);
				}
			}
			out->dof_age -= 1;
		}
	out->trend = var > 0 ? num / sqrt(var) : 0;
	out->lim_trend = gsl_cdf_ugaussian_Qinv(RS_ALPHA / 2);
	out->lim_age = chi2_upper(RS_ALPHA, out->dof_age);
	out->lim_lag = chi2_upper(RS_ALPHA, out->dof_lag);
	out->nage = c.nage;
	out->ran = 1;
	rc = HET_OK;
out:
	for (k = 0; k < nw; k++) {
		if (c.scr != NULL)
			het_resid_scratch_free(c.scr[k]);
		if (c.res != NULL)
			free(c.res[k]);
	}
	free(c.scr);
	free(c.res);
	het_resid_eval_free(c.ev);
	het_pool_reducer_free(red);
	free(xf);
	free(acc);
	return rc;
}

int
het_fit_check_warnings(const struct fit_run *run, struct het_fit_result *res,
    struct het_error *err)
{
	struct fit_chi2 c2;
	struct fit_struct st;
	char nb[96];
	int rc = HET_OK;

	if (!res->converged)
		return HET_OK;
#define ADD(...) do { if (rc == HET_OK) rc = het_nlsq_warning_add( \
	&res->warnings, &res->nwarnings, err, __VA_ARGS__); } while (0)
	if (het_fit_chi2_check(run, res->rss, &c2) && c2.t > c2.lim) {
		if (isfinite(c2.d2))
			snprintf(nb, sizeof(nb), "a noise estimate with about "
			    "%.0f degrees of freedom", c2.d2);
		else
			snprintf(nb, sizeof(nb), "the given noise sigma");
		ADD("The reduced chi-square is %.4f (%.4f against the noise "
		    "pooled over the angles), above %.4f, which a correct "
		    "model at its optimum exceeds with probability %g given "
		    "%s: the fit may sit in a local minimum (the "
		    "two-component model has several), the model may miss a "
		    "feature of the data, or the noise sigma is too small; "
		    "try multistart, or another model.", res->chi2_red,
		    c2.t, c2.lim, HET_FIT_CHI2_ALPHA, nb);
	}
	if (rc != HET_OK || (rc = het_fit_resid_structure(run,
	    run->slots[0].fe.pool, res->x, &st, err)) != HET_OK || !st.ran)
		return rc;
	if (st.chi2_age > st.lim_age || fabs(st.trend) > st.lim_trend)
		ADD("The residuals at short lags (up to %zu frames) drift with "
		    "the age t1: their mean over %zu age bins ranges from "
		    "%.1f to %+.1f standard errors, with a common trend of "
		    "%+.1f (chi-square %.1f for %.0f degrees of freedom; a "
		    "correct model exceeds %.1f, or a trend of %.1f, with "
		    "probability %g), although the reduced chi-square is "
		    "%.4f.  The dynamics change with time in a way the model "
		    "does not follow: free the exponent (alpha, or the "
		    "model's other time exponents) or choose another model.",
		    st.short_lag, st.nage, st.zmin, st.zmax, st.trend,
		    st.chi2_age, st.dof_age, st.lim_age, st.lim_trend,
		    RS_ALPHA, res->chi2_red);
	if (st.chi2_lag > st.lim_lag)
		ADD("The residuals have structure across lag: the mean "
		    "residual of a lag band reaches %.1f standard errors "
		    "(chi-square %.1f for %.0f bands; a correct model exceeds "
		    "%.1f with probability %g).  The model's decay shape "
		    "does not match the data: free more parameters or choose "
		    "another model.", st.zlag, st.chi2_lag, st.dof_lag,
		    st.lim_lag, RS_ALPHA);
#undef ADD
	return rc;
}
