/*
 * het_fit_check.c: the statistical checks behind the fit's warnings:
 * is the reduced chi-square improbable for a correct model, given that
 * the noise sigma is itself an estimate (fit_chi2_check)?
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
 */
#include "config.h"

#include <math.h>
#include <stddef.h>

#include <gsl/gsl_cdf.h>

#include "het_fit_impl.h"
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
fit_chi2_check(const struct fit_run *run, double rss, struct fit_chi2 *out)
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
