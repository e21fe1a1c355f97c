#include "config.h"

/*
 * het_posterior_marg.c: the per-angle contrast and offset of a shard
 * posterior integrated out in closed form (fast-posterior.md §3), and
 * their exact conditional draws.
 *
 * Per angle the model c2 = o + c g is linear in beta = (o, c).  With the
 * datum centred by the angle's mean, u = y - ybar, and o' = o - ybar,
 * the likelihood times the tempered Gaussian (or flat) priors is
 *
 *	exp(-1/2 beta'^T A beta' + h^T beta' + c0),
 *	A = s [[n, Sg], [Sg, Sgg]] + P0,   h = s (0, Sug) + P0 m0',
 *
 * with s = w^2 / sigma^2, P0 = diag(precisions of offset, contrast) (0
 * for a flat prior), m0' the prior means (offset's minus ybar) and
 * c0 = -1/2 s Suu - 1/2 m0'^T P0 m0' + the priors' constants.  Its
 * integral over R^2 is exp(c0 + 1/2 h^T mu) 2 pi / sqrt(det A), mu =
 * A^-1 h: the moments n, Sg, Sgg, Sug, Suu of het_separable_moments are
 * all it needs.  The derivative of the log marginal in g_k of the angle
 * is s (mu_c u_k - (mu_o mu_c + S_oc) - (mu_c^2 + S_cc) g_k), S = A^-1:
 * affine in g_k, so het_separable_adjoint maps it onto the physics in
 * one data pass.  A gradient costs a moments pass plus an adjoint pass
 * (the coefficients depend on the moments); a value, one moments pass.
 *
 * The priors keep their exact tempered form inside the integral: a
 * normal or truncated normal prior^(1/K) is a Gaussian of precision
 * 1 / (K b^2) times exp(-(log b + log sqrt(2 pi)) / K), a uniform one
 * the constant (hi - lo)^(-1/K) (flat).  So the marginal density equals
 * the integral of the full density of het_posterior over (o, c), except
 * for the truncation to [lo, hi], which is ignored; het_posterior_cond_
 * check says whether the conditional sits far enough inside the bounds
 * for that to be negligible.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_posterior.h"
#include "het_posterior_impl.h"
#include "het_scaling.h"
#include "het_util.h"

static const double log_2pi = 1.83787706640934548356;

void
het_post_marg_free(struct het_posterior *post)
{
	free(post->mcol);
	free(post->mprec);
	free(post->mmean);
	free(post->mom);
	free(post->mcoef);
	free(post->cmean);
	free(post->ccov);
}

/* Why the marginal is impossible into marg_why; returns 0 then. */
static int
marg_refuse(struct het_posterior *post, const char *why)
{
	snprintf(post->marg_why, sizeof post->marg_why, "%s", why);
	return 0;
}

/*
 * Whether the problem allows the marginal: the separable likelihood,
 * individual scaling with contrast and offset of every angle free and
 * each its own column, Gaussian or flat priors on them, some physics.
 */
static int
marg_eligible(struct het_posterior *post)
{
	const struct het_scaling *sc = het_resid_scaling(post->resid);
	const struct het_post_prior *pr;
	size_t	ns, a, k;

	if (post->sep == NULL)
		return marg_refuse(post, "the likelihood is not separable "
		    "(laminar_flow, unequal weights, repeated pairs or the "
		    "pair kernel forced)");
	if (het_scaling_mode_of(sc) != HET_SCALING_INDIVIDUAL)
		return marg_refuse(post, "the scaling mode is not "
		    "individual (averaged and fourier need a joint block "
		    "across angles)");
	if (post->nfp == 0)
		return marg_refuse(post, "no physics parameter is free");
	if (post->na == 0 || post->p != post->nfp + 2 * post->na)
		return marg_refuse(post, "some contrast or offset is fixed");
	ns = het_scaling_nparams(sc);
	if (ns == 0)
		ns = 1;
	for (a = 0; a < post->na; a++) {
		if (post->rc_n[a] != 1 || post->ro_n[a] != 1 ||
		    post->rc_w[a * ns] != 1 || post->ro_w[a * ns] != 1)
			return marg_refuse(post, "some contrast or offset "
			    "is fixed or shared between angles");
		post->mcol[2 * a] = (size_t)post->rc_col[a * ns];
		post->mcol[2 * a + 1] = (size_t)post->ro_col[a * ns];
	}
	for (k = 0; k < 2 * post->na; k++) {
		if (post->mcol[k] < post->nfp || post->mcol[k] >= post->p)
			return marg_refuse(post, "some contrast or offset "
			    "is fixed or shared between angles");
		pr = &post->pri[post->mcol[k]];
		switch (pr->kind) {
		case HET_PRIOR_UNIFORM:
			post->mprec[k] = 0;
			post->mmean[k] = 0;
			post->mconst -= post->invk * log(pr->hi - pr->lo);
			break;
		case HET_PRIOR_NORMAL:
		case HET_PRIOR_TRUNCNORMAL:
			post->mprec[k] = post->invk / (pr->b * pr->b);
			post->mmean[k] = pr->a;
			post->mconst -= post->invk * (log(pr->b) +
			    0.5 * log_2pi);
			break;
		default:
			return marg_refuse(post, "a contrast or offset prior "
			    "is neither Gaussian nor uniform");
		}
	}
	/* each column once: a shared one would be counted twice */
	for (k = 0; k < 2 * post->na; k++)
		for (a = k + 1; a < 2 * post->na; a++)
			if (post->mcol[k] == post->mcol[a])
				return marg_refuse(post, "some contrast or "
				    "offset is shared between angles");
	return 1;
}

int
het_post_marg_init(struct het_posterior *post, int want, struct het_error *err)
{
	size_t na = post->na ? post->na : 1, k, m;
	const struct het_post_prior *pr;

	post->d = post->p;
	if ((post->mcol = het_alloc_array(2 * na, sizeof *post->mcol,
	    "marginal", err)) == NULL ||
	    (post->mprec = het_alloc_array(2 * na, sizeof *post->mprec,
	    "marginal", err)) == NULL ||
	    (post->mmean = het_alloc_array(2 * na, sizeof *post->mmean,
	    "marginal", err)) == NULL ||
	    (post->mom = het_alloc_array(na * HET_SEP_NMOM,
	    sizeof *post->mom, "marginal", err)) == NULL ||
	    (post->mcoef = het_alloc_array(3 * na, sizeof *post->mcoef,
	    "marginal", err)) == NULL ||
	    (post->cmean = het_alloc_array(2 * na, sizeof *post->cmean,
	    "marginal", err)) == NULL ||
	    (post->ccov = het_alloc_array(3 * na, sizeof *post->ccov,
	    "marginal", err)) == NULL)
		return HET_ENOMEM;
	post->marg_want = want != 0;
	post->marg_ok = marg_eligible(post);
	if (!post->marg_ok)
		return HET_OK;
	/*
	 * The scaling entries of the internal point are never sampled
	 * while marginalising; give them finite values inside the bounds
	 * for het_resid_prepare.
	 */
	for (k = 0; k < 2 * post->na; k++) {
		m = post->mcol[k];
		pr = &post->pri[m];
		post->x[m] = pr->kind == HET_PRIOR_UNIFORM ?
		    0.5 * (pr->lo + pr->hi) : pr->a;
	}
	post->marg = want != 0;
	post->d = post->marg ? post->nfp : post->p;
	return HET_OK;
}

/*
 * Angle a's conditional in (o', c): mean mu, covariance S (oo, oc, cc)
 * and, when lm is not NULL, its log marginal.  Returns HET_OK or
 * HET_ERANGE for a singular precision.
 */
static int
marg_angle(const struct het_posterior *post, size_t a, double *mu, double *S,
    double *lm, struct het_error *err)
{
	const double *m = post->mom + HET_SEP_NMOM * a;
	double s = post->inv_s2 * het_separable_weight2(post->sep);
	double po = post->mprec[2 * a + 1], pc = post->mprec[2 * a];
	double mo = post->mmean[2 * a + 1] - m[HET_SEP_YBAR];
	double mc = post->mmean[2 * a];
	double aoo, aoc, acc, det, ho, hc;

	aoo = s * m[HET_SEP_N] + po;
	aoc = s * m[HET_SEP_G];
	acc = s * m[HET_SEP_GG] + pc;
	det = aoo * acc - aoc * aoc;
	if (!(det > 0) || !isfinite(det))
		return het_error_set(err, HET_ERANGE, "angle %zu: contrast "
		    "and offset are not determined by %g pairs and their "
		    "priors (2 x 2 precision determinant %g); give them "
		    "Gaussian priors or sample them (marginalise_scaling: "
		    "false)", a, m[HET_SEP_N], det);
	ho = po * mo;
	hc = s * m[HET_SEP_UG] + pc * mc;
	S[0] = acc / det;
	S[1] = -aoc / det;
	S[2] = aoo / det;
	mu[0] = S[0] * ho + S[1] * hc;
	mu[1] = S[1] * ho + S[2] * hc;
	if (lm != NULL)
		*lm = -0.5 * s * m[HET_SEP_UU] - 0.5 * (po * mo * mo +
		    pc * mc * mc) + 0.5 * (ho * mu[0] + hc * mu[1]) + log_2pi -
		    0.5 * log(det);
	return HET_OK;
}

int
het_post_marg_loglik(struct het_posterior *post, int grad, double *ll,
    struct het_error *err)
{
	double	mu[2], S[3], lm, s, tot = post->mconst;
	size_t	a, c;
	int	rc;

	if ((rc = het_separable_moments(post->sep, post->ev, post->mom,
	    err)) != HET_OK)
		return rc;
	s = post->inv_s2 * het_separable_weight2(post->sep);
	for (a = 0; a < post->na; a++) {
		if ((rc = marg_angle(post, a, mu, S, &lm, err)) != HET_OK)
			return rc;
		tot += lm;
		/* d(-lm)/dg_k = alpha g_k + beta - gamma u_k */
		post->mcoef[3 * a] = s * (mu[1] * mu[1] + S[2]);
		post->mcoef[3 * a + 1] = s * (mu[0] * mu[1] + S[1]);
		post->mcoef[3 * a + 2] = s * mu[1];
	}
	*ll = tot;
	if (!grad)
		return HET_OK;
	memset(post->gphys, 0, post->nfp * sizeof *post->gphys);
	if ((rc = het_separable_adjoint(post->sep, post->ev, post->mcoef,
	    post->gphys, err)) != HET_OK)
		return rc;
	for (c = 0; c < post->nfp; c++)
		post->gx[c] -= post->gphys[c];
	return HET_OK;
}

int
het_posterior_marginal(const struct het_posterior *post)
{
	return post->marg;
}

const char *
het_posterior_marg_reason(const struct het_posterior *post)
{
	return post->marg_ok ? "" : post->marg_why;
}

int
het_posterior_marg_status(const struct het_posterior *post)
{
	if (!post->marg_want)
		return HET_MARG_OFF;
	return post->marg_ok ? HET_MARG_ON : HET_MARG_INELIGIBLE;
}

int
het_posterior_set_marginal(struct het_posterior *post, int on,
    struct het_error *err)
{
	if (on && !post->marg_ok)
		return het_error_set(err, HET_EINVAL, "contrast and offset "
		    "cannot be integrated out: %s", post->marg_why);
	post->marg = on != 0;
	post->d = post->marg ? post->nfp : post->p;
	return HET_OK;
}

size_t
het_posterior_nparams(const struct het_posterior *post)
{
	return post->p;
}

int
het_posterior_conditional(struct het_posterior *post, const double *u,
    double *mean, double *cov, struct het_error *err)
{
	double	mu[2], S[3];
	size_t	a;
	int	rc;

	if (!post->marg)
		return het_error_set(err, HET_EINVAL, "contrast and offset "
		    "are sampled, not integrated out: they have no "
		    "conditional here");
	het_posterior_to_x(post, u, post->x);
	if ((rc = het_resid_prepare(post->ev, post->x, 0, err)) != HET_OK ||
	    (rc = het_separable_moments(post->sep, post->ev, post->mom,
	    err)) != HET_OK)
		return rc;
	for (a = 0; a < post->na; a++) {
		if ((rc = marg_angle(post, a, mu, S, NULL, err)) != HET_OK)
			return rc;
		mean[2 * a] = mu[1];
		mean[2 * a + 1] = mu[0] + post->mom[HET_SEP_NMOM * a +
		    HET_SEP_YBAR];
		cov[3 * a] = S[2];
		cov[3 * a + 1] = S[1];
		cov[3 * a + 2] = S[0];
	}
	return HET_OK;
}

int
het_posterior_complete(struct het_posterior *post, const double *u,
    const double *z, double *x, struct het_error *err)
{
	double	l11, l21, l22, c, o;
	size_t	a;
	int	rc;

	if (!post->marg) {
		het_posterior_to_x(post, u, x);
		return HET_OK;
	}
	if ((rc = het_posterior_conditional(post, u, post->cmean, post->ccov,
	    err)) != HET_OK)
		return rc;
	het_posterior_to_x(post, u, x);
	for (a = 0; a < post->na; a++) {
		c = post->cmean[2 * a];
		o = post->cmean[2 * a + 1];
		if (z != NULL) {
			/* Cholesky factor of [[cc, co], [co, oo]] */
			l11 = sqrt(post->ccov[3 * a]);
			l21 = post->ccov[3 * a + 1] / l11;
			l22 = post->ccov[3 * a + 2] - l21 * l21;
			l22 = l22 > 0 ? sqrt(l22) : 0;
			c += l11 * z[2 * a];
			o += l21 * z[2 * a] + l22 * z[2 * a + 1];
		}
		x[post->mcol[2 * a]] = c;
		x[post->mcol[2 * a + 1]] = o;
	}
	return HET_OK;
}

int
het_posterior_cond_check(struct het_posterior *post, const double *u,
    double nsd, struct het_error *err)
{
	const struct het_post_prior *pr;
	double	m, sd;
	size_t	a, k;
	int	rc;

	if ((rc = het_posterior_conditional(post, u, post->cmean, post->ccov,
	    err)) != HET_OK)
		return rc;
	for (a = 0; a < post->na; a++)
		for (k = 0; k < 2; k++) {
			pr = &post->pri[post->mcol[2 * a + k]];
			m = post->cmean[2 * a + k];
			sd = sqrt(post->ccov[3 * a + 2 * k]);
			if (!(m - nsd * sd > pr->lo && m + nsd * sd < pr->hi))
				return het_error_set(err, HET_ERANGE, "%s: its "
				    "conditional %g +- %g sd = [%g, %g] reaches "
				    "its bounds [%g, %g]; contrast and offset "
				    "are sampled instead of integrated out",
				    het_resid_param_name(post->resid,
				    post->mcol[2 * a + k]), m, nsd, m - nsd *
				    sd, m + nsd * sd, pr->lo, pr->hi);
		}
	return HET_OK;
}

const char *
het_post_marg_name(int status)
{
	switch (status) {
	case HET_MARG_OFF:
		return "off";
	case HET_MARG_ON:
		return "on";
	case HET_MARG_INELIGIBLE:
		return "ineligible";
	case HET_MARG_BOUND:
		return "bound";
	default:
		return "unknown";
	}
}
