/*
 * het_mtfit.c: the per-bin fits of a multitau g2 and the diffusion
 * coefficient from their rates (het_mtfit.h).
 *
 * Design: a fit is small (tens of points, 3 or 4 parameters), so it is
 * done plainly: the usable points are gathered, a grid over ln Gamma
 * (GRID_N values spanning GAMMA_SPAN decades beyond the delays on each
 * side) solves b and beta by 2 x 2 weighted least squares at each rate
 * and keeps the best, and het_nlsq refines every parameter from there
 * with the Jacobian of the residuals (weighted by 1 / err).  ln Gamma
 * instead of Gamma keeps the problem well scaled over the decades a
 * rate can take.  The stretched fit starts from the single one.  The
 * covariance comes from het_nlsq_quality at the solution.  The
 * diffusion fits are GSL's weighted linear regressions.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "het_mtfit.h"
#include "het_nlsq.h"
#include "het_util.h"

#define GRID_N		96	/* rates on the start grid */
#define GAMMA_SPAN	3.0	/* decades of rate allowed (and gridded)
				   beyond 1/tau_max .. 1/tau_min */

static const char *const mtf_names[HET_MTFIT_NP] = {
	"b", "beta", "ln Gamma", "kappa"
};

const char *
het_mtfit_name(enum het_mtfit_model model)
{
	return model == HET_MTFIT_STRETCHED ? "stretched" : "single";
}

void
het_mtfit_opts_init(struct het_mtfit_opts *o)
{
	o->tau_lo = 0.0;
	o->tau_hi = INFINITY;
	o->kappa_lo = 0.2;
	o->kappa_hi = 2.0;
}

double
het_mtfit_eval(const struct het_mtfit *f, double tau)
{
	if (f->status == HET_MTFIT_FEW)
		return NAN;
	return f->x[HET_MTFIT_B] + f->x[HET_MTFIT_BETA] *
	    exp(-2.0 * pow(f->x[HET_MTFIT_GAMMA] * tau, f->x[HET_MTFIT_KAPPA]));
}

/* The points of a fit: ln tau, g2 and 1 / err of the usable ones. */
struct mtf_pts {
	size_t	 n;
	double	*lt, *g, *w;
	double	 gmin, gmax;
};

/* The evaluation function's context: the points and the parameters. */
struct mtf_ctx {
	const struct mtf_pts *pt;
	size_t	 p;		/* 3: kappa fixed at 1; 4: free */
	double	*r, *J;		/* n and n * p scratch */
};

/*
 * Residuals (model - g2) / err and their Jacobian in x = (b, beta,
 * ln Gamma[, kappa]): with s = (Gamma tau)^kappa and E = exp(-2 s),
 * d/db = 1, d/dbeta = E, d/dlnGamma = -2 beta E kappa s, d/dkappa =
 * -2 beta E s ln(Gamma tau).
 */
static int
mtf_eval(void *arg, const double *x, int want_jac, double *acc,
    struct het_error *err)
{
	struct mtf_ctx *c = arg;
	const struct mtf_pts *pt = c->pt;
	double kappa = c->p == 4 ? x[3] : 1.0, lgt, s, e;
	size_t k, p = c->p;

	(void)err;
	memset(acc, 0, het_nlsq_acc_len(p) * sizeof(double));
	for (k = 0; k < pt->n; k++) {
		lgt = x[2] + pt->lt[k];
		s = exp(kappa * lgt);
		e = exp(-2.0 * s);
		c->r[k] = (x[0] + x[1] * e - pt->g[k]) * pt->w[k];
		c->J[k * p] = pt->w[k];
		c->J[k * p + 1] = e * pt->w[k];
		c->J[k * p + 2] = -2.0 * x[1] * e * kappa * s * pt->w[k];
		if (p == 4)
			c->J[k * p + 3] = -2.0 * x[1] * e * s * lgt * pt->w[k];
	}
	het_nlsq_acc_rows(HET_LOSS_LINEAR, 1.0, pt->n, p, c->r, c->J,
	    want_jac, acc);
	return HET_OK;
}

static void
mtf_pts_free(struct mtf_pts *pt)
{
	free(pt->lt);
	free(pt->g);
	free(pt->w);
}

static int
mtf_gather(const double *tau, const double *g2, const double *err,
    size_t n, const struct het_mtfit_opts *o, struct mtf_pts *pt,
    struct het_error *e)
{
	size_t k;

	memset(pt, 0, sizeof(*pt));
	pt->lt = het_alloc_array(n, sizeof(double), "fit points", e);
	pt->g = het_alloc_array(n, sizeof(double), "fit points", e);
	pt->w = het_alloc_array(n, sizeof(double), "fit points", e);
	if (pt->lt == NULL || pt->g == NULL || pt->w == NULL) {
		mtf_pts_free(pt);
		return HET_ENOMEM;
	}
	pt->gmin = INFINITY;
	pt->gmax = -INFINITY;
	for (k = 0; k < n; k++) {
		if (!(tau[k] > 0) || !isfinite(tau[k]) || tau[k] < o->tau_lo ||
		    tau[k] > o->tau_hi || !isfinite(g2[k]) ||
		    !(err[k] > 0) || !isfinite(err[k]))
			continue;
		pt->lt[pt->n] = log(tau[k]);
		pt->g[pt->n] = g2[k];
		pt->w[pt->n] = 1.0 / err[k];
		pt->gmin = fmin(pt->gmin, g2[k]);
		pt->gmax = fmax(pt->gmax, g2[k]);
		pt->n++;
	}
	return HET_OK;
}

/*
 * The start: the rate of the grid whose exact (b, beta) fit has the
 * least chi-square.  x gets b, beta, ln Gamma.
 */
static void
mtf_grid(const struct mtf_pts *pt, const double *lo, const double *hi,
    double *x)
{
	double best = INFINITY, u, sw, sf, sg, sff, sfg, w2, f, det, b, beta;
	double chi, r;
	size_t i, k;

	x[0] = pt->g[pt->n - 1];
	x[1] = pt->g[0] - x[0];
	x[2] = 0.5 * (lo[2] + hi[2]);
	for (i = 0; i < GRID_N; i++) {
		u = lo[2] + (hi[2] - lo[2]) * ((double)i + 0.5) / GRID_N;
		sw = sf = sg = sff = sfg = 0;
		for (k = 0; k < pt->n; k++) {
			w2 = pt->w[k] * pt->w[k];
			f = exp(-2.0 * exp(u + pt->lt[k]));
			sw += w2;
			sf += w2 * f;
			sg += w2 * pt->g[k];
			sff += w2 * f * f;
			sfg += w2 * f * pt->g[k];
		}
		det = sw * sff - sf * sf;
		if (!(det > 1e-12 * sw * sff))
			continue;
		beta = (sw * sfg - sf * sg) / det;
		b = (sg - beta * sf) / sw;
		for (chi = 0, k = 0; k < pt->n; k++) {
			r = (b + beta * exp(-2.0 * exp(u + pt->lt[k])) -
			    pt->g[k]) * pt->w[k];
			chi += r * r;
		}
		if (chi < best) {
			best = chi;
			x[0] = b;
			x[1] = beta;
			x[2] = u;
		}
	}
}

/* Bounds in the solver's coordinates (ln Gamma) from the points. */
static void
mtf_bounds(const struct mtf_pts *pt, const struct het_mtfit_opts *o,
    double *lo, double *hi)
{
	double span = pt->gmax - pt->gmin, ltmin = pt->lt[0], ltmax = ltmin;
	size_t k;

	for (k = 1; k < pt->n; k++) {
		ltmin = fmin(ltmin, pt->lt[k]);
		ltmax = fmax(ltmax, pt->lt[k]);
	}
	lo[0] = pt->gmin - span - 1.0;
	hi[0] = pt->gmax + 1.0;
	lo[1] = 0.0;
	hi[1] = 2.0 * span + 1.0;
	lo[2] = -ltmax - GAMMA_SPAN * M_LN10;
	hi[2] = -ltmin + GAMMA_SPAN * M_LN10;
	lo[3] = o->kappa_lo;
	hi[3] = o->kappa_hi;
}

/* Move a start strictly inside its bounds. */
static void
mtf_inside(double *x, const double *lo, const double *hi, size_t p)
{
	double m;
	size_t i;

	for (i = 0; i < p; i++) {
		m = 1e-6 * (hi[i] - lo[i]);
		x[i] = fmin(fmax(x[i], lo[i] + m), hi[i] - m);
	}
}

/* Run the solver from x (p parameters) and fill the fit. */
static int
mtf_solve(struct mtf_ctx *c, double *x, const double *lo, const double *hi,
    struct het_mtfit *f, struct het_error *e)
{
	struct het_nlsq_params par;
	struct het_nlsq_quality q;
	struct het_nlsq_info info;
	struct het_nlsq *w;
	size_t i, p = c->p;
	double s2;
	int rc;

	if ((w = het_nlsq_alloc(p, e)) == NULL)
		return HET_ENOMEM;
	het_nlsq_default_params(&par);
	mtf_inside(x, lo, hi, p);
	rc = het_nlsq_init(w, mtf_eval, c, c->pt->n, x, lo, hi, &par, e);
	while (rc == HET_OK && (rc = het_nlsq_test(w)) == HET_CONTINUE)
		rc = het_nlsq_iterate(w, e);
	if (rc != HET_OK && rc != HET_EMAXITER)
		goto out;
	het_nlsq_info(w, &info);
	memcpy(x, het_nlsq_x(w), p * sizeof(double));
	f->status = rc == HET_OK ? HET_MTFIT_OK : HET_MTFIT_NOTCONV;
	f->nfev = info.nfev;
	f->chi2 = info.rss;
	f->dof = f->npts - p;
	f->chi2_red = f->chi2 / (double)f->dof;
	s2 = fmax(1.0, f->chi2_red);
	rc = het_nlsq_quality(p, het_nlsq_jtj(w), s2, x, lo, hi, mtf_names,
	    &q, e);
	if (rc != HET_OK)
		goto out;
	for (i = 0; i < p; i++) {
		f->err[i] = q.unc[i];
		if (q.at_bound[i])
			f->at_bound |= 1u << i;
	}
	het_nlsq_quality_fini(&q);
out:
	het_nlsq_free(w);
	return rc == HET_EMAXITER ? HET_OK : rc;
}

/* Solver coordinates to the fit's: Gamma and its error from ln Gamma. */
static void
mtf_finish(struct het_mtfit *f, const double *x, const double *lo,
    const double *hi, size_t p)
{
	static const char *const what[HET_MTFIT_NP] = { "baseline b",
	    "contrast beta", "rate Gamma", "exponent kappa" };
	size_t i, used = 0;

	for (i = 0; i < p; i++) {
		f->x[i] = x[i];
		f->lo[i] = lo[i];
		f->hi[i] = hi[i];
	}
	f->x[HET_MTFIT_GAMMA] = exp(x[2]);
	f->err[HET_MTFIT_GAMMA] = f->x[HET_MTFIT_GAMMA] * f->err[2];
	f->lo[HET_MTFIT_GAMMA] = exp(lo[2]);
	f->hi[HET_MTFIT_GAMMA] = exp(hi[2]);
	if (f->status == HET_MTFIT_NOTCONV)
		used = (size_t)snprintf(f->note, sizeof(f->note), "the fit "
		    "did not converge in %ld evaluations", f->nfev);
	for (i = 0; i < p && used < sizeof(f->note); i++)
		if (f->at_bound & (1u << i))
			used += (size_t)snprintf(f->note + used,
			    sizeof(f->note) - used, "%sthe %s is on its %s "
			    "bound%s", used > 0 ? "; " : "", what[i],
			    x[i] - lo[i] < hi[i] - x[i] ? "lower" : "upper",
			    i == 2 ? " (the decay lies outside the delays)" :
			    "");
}

static void
mtf_clear(struct het_mtfit *f, enum het_mtfit_model model)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->model = model;
	for (i = 0; i < HET_MTFIT_NP; i++)
		f->x[i] = f->err[i] = f->lo[i] = f->hi[i] = NAN;
	f->chi2 = f->chi2_red = NAN;
}

int
het_mtfit_bin(const double *tau, const double *g2, const double *err,
    size_t n, enum het_mtfit_model model, const struct het_mtfit_opts *opts,
    struct het_mtfit *f, struct het_error *e)
{
	struct het_mtfit_opts o;
	struct het_mtfit single;
	struct mtf_pts pt;
	struct mtf_ctx c;
	double x[HET_MTFIT_NP], lo[HET_MTFIT_NP], hi[HET_MTFIT_NP];
	size_t p = model == HET_MTFIT_STRETCHED ? 4 : 3;
	int rc;

	if (opts == NULL)
		het_mtfit_opts_init(&o);
	else
		o = *opts;
	if (tau == NULL || g2 == NULL || err == NULL || f == NULL || n == 0)
		return het_error_set(e, HET_EINVAL, "a multitau fit needs at "
		    "least one delay with its g2 and error");
	if ((int)model < 0 || model >= HET_MTFIT_NMODELS)
		return het_error_set(e, HET_EINVAL, "unknown multitau fit "
		    "model %d", (int)model);
	if (!(o.tau_lo < o.tau_hi) || !(o.tau_lo >= 0))
		return het_error_set(e, HET_EINVAL, "the fit range %g to %g s "
		    "is empty or negative; give 0 <= tau_lo < tau_hi",
		    o.tau_lo, o.tau_hi);
	if (!(o.kappa_lo > 0 && o.kappa_lo < 1 && o.kappa_hi > 1 &&
	    isfinite(o.kappa_hi)))
		return het_error_set(e, HET_EINVAL, "the bounds of the "
		    "stretching exponent, %g to %g, must bracket 1 (the "
		    "single exponential) with 0 < kappa_lo < 1 < kappa_hi",
		    o.kappa_lo, o.kappa_hi);
	mtf_clear(f, model);
	if ((rc = mtf_gather(tau, g2, err, n, &o, &pt, e)) != HET_OK)
		return rc;
	f->npts = pt.n;
	if (pt.n < p + 1) {
		f->status = HET_MTFIT_FEW;
		snprintf(f->note, sizeof(f->note), "%zu usable point%s (error "
		    "above 0, inside the fit range); the %s fit needs at "
		    "least %zu", pt.n, pt.n == 1 ? "" : "s",
		    het_mtfit_name(model), p + 1);
		mtf_pts_free(&pt);
		return HET_OK;
	}
	c.pt = &pt;
	c.r = het_alloc_array(pt.n, sizeof(double), "residuals", e);
	c.J = het_alloc_array(pt.n * 4, sizeof(double), "Jacobian", e);
	if (c.r == NULL || c.J == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	mtf_bounds(&pt, &o, lo, hi);
	mtf_clear(&single, HET_MTFIT_SINGLE);
	single.npts = pt.n;
	c.p = 3;
	mtf_grid(&pt, lo, hi, x);
	rc = mtf_solve(&c, x, lo, hi, model == HET_MTFIT_SINGLE ? f : &single,
	    e);
	if (rc == HET_OK && model == HET_MTFIT_STRETCHED) {
		/* from the single exponential, kappa = 1 */
		c.p = 4;
		x[3] = 1.0;
		rc = mtf_solve(&c, x, lo, hi, f, e);
	}
	if (rc == HET_OK)
		mtf_finish(f, x, lo, hi, p);
	if (rc == HET_OK && model == HET_MTFIT_SINGLE) {
		f->x[HET_MTFIT_KAPPA] = 1.0;
		f->lo[HET_MTFIT_KAPPA] = f->hi[HET_MTFIT_KAPPA] = 1.0;
	}
out:
	free(c.r);
	free(c.J);
	mtf_pts_free(&pt);
	return rc;
}

const char *
het_mtfit_skip(const struct het_mtfit *f)
{
	double g = f->x[HET_MTFIT_GAMMA], u = f->err[HET_MTFIT_GAMMA];

	if (f->status != HET_MTFIT_OK)
		return f->status == HET_MTFIT_FEW ? "too few points" :
		    "not converged";
	if (f->at_bound & (1u << HET_MTFIT_GAMMA))
		return "rate on a bound";
	/* without a decay above the noise the rate means nothing */
	if (!(f->x[HET_MTFIT_BETA] > 2.0 * f->err[HET_MTFIT_BETA]))
		return "no contrast above twice its error";
	if (!(isfinite(g) && g > 0 && isfinite(u) && u > 0))
		return "no uncertainty";
	return NULL;
}

int
het_mtfit_diffusion(const double *q, const struct het_mtfit *fits,
    size_t n, struct het_mtfit_diff *out, struct het_error *e)
{
	double *x, *w, *y, c0, c1, c00, c01, c11, chi;
	char why[160];
	const char *r;
	size_t k, m = 0, used = 0;
	int rc = HET_OK;

	memset(out, 0, sizeof(*out));
	out->D = out->D_err = out->chi2_red = NAN;
	out->D1 = out->D1_err = out->G0 = out->G0_err = NAN;
	out->chi2_red1 = NAN;
	if (q == NULL || fits == NULL || n == 0)
		return het_error_set(e, HET_EINVAL, "the diffusion fit needs "
		    "the rates of at least two bins");
	x = het_alloc_array(n, sizeof(double), "q^2", e);
	w = het_alloc_array(n, sizeof(double), "weights", e);
	y = het_alloc_array(n, sizeof(double), "rates", e);
	if (x == NULL || w == NULL || y == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	why[0] = '\0';
	for (k = 0; k < n; k++) {
		if ((r = het_mtfit_skip(&fits[k])) != NULL) {
			if (used < sizeof(why) && strstr(why, r) == NULL)
				used += (size_t)snprintf(why + used,
				    sizeof(why) - used, "%s%s",
				    used > 0 ? ", " : "", r);
			out->nskip++;
			continue;
		}
		x[m] = q[k] * q[k];
		w[m] = 1.0 / (fits[k].err[HET_MTFIT_GAMMA] *
		    fits[k].err[HET_MTFIT_GAMMA]);
		y[m] = fits[k].x[HET_MTFIT_GAMMA];
		m++;
	}
	out->n = m;
	if (m < 2) {
		rc = het_error_set(e, HET_ERANGE, "D needs the rates of at "
		    "least two bins; %zu of %zu %s usable (%s)", m, n,
		    m == 1 ? "is" : "are", why[0] != '\0' ? why : "none");
		goto out;
	}
	gsl_fit_wmul(x, 1, w, 1, y, 1, m, &c1, &c11, &chi);
	out->chi2_red = chi / (double)(m - 1);
	out->D = c1;
	out->D_err = sqrt(c11 * fmax(1.0, out->chi2_red));
	if (m >= 3) {
		gsl_fit_wlinear(x, 1, w, 1, y, 1, m, &c0, &c1, &c00, &c01,
		    &c11, &chi);
		out->chi2_red1 = chi / (double)(m - 2);
		out->G0 = c0;
		out->D1 = c1;
		out->G0_err = sqrt(c00 * fmax(1.0, out->chi2_red1));
		out->D1_err = sqrt(c11 * fmax(1.0, out->chi2_red1));
	}
out:
	free(x);
	free(w);
	free(y);
	return rc;
}
