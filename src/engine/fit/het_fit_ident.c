/*
 * het_fit_ident.c: identifiability of a fit at its optimum, in the
 * numbers: the nonlinear check of the weak eigen-directions with the
 * true cost, and the identifiable combinations of degenerate parameters
 * with their uncertainties.
 *
 * Design.  het_nlsq_quality (core) gives the eigen-analysis of the
 * unit-diagonal normal matrix and drops the numerically null directions.
 * Here the kept directions that are weak - relative eigenvalue below
 * HET_FIT_IDENT_WEAK_RTOL, or a one-sigma step of at least HET_FIT_IDENT_WEAK_STEP of
 * some parameter's bound range - are probed with the cost itself: at
 * x +- K d (d the one-sigma step of the direction, scaled down so that
 * the point stays inside the bounds) the rise of the cost is compared
 * with its quadratic prediction K^2 s2 / 2.  A direction along which the
 * cost rises less than IDENT_RIDGE of the prediction on either side is a
 * ridge: the quadratic uncertainty means nothing there, so it is
 * dropped; so is a direction whose one-sigma step spans a whole bound
 * range.  Every parameter with a real share of its variance in a dropped
 * direction is then flagged degenerate by the core, with no finite
 * uncertainty.  The thresholds come from measurement (docs/PERFORMANCE.md,
 * "Identifiability at the optimum"): over the demo, 10 simulated
 * variants of it and bench_fit's S, M and L, the numerically null
 * directions (f0/f2; D0/D_offset at alpha = 0) sat at lam / lam_max
 * 4.4e-13 and below (the null threshold 1000 p eps is 4e-12 to 1.3e-11),
 * the weakest real ones at 8.5e-10 and above; every probed real
 * direction rose 0.999 to 1.5e6 times its prediction (the quadratic
 * model is conservative along curved valleys), against IDENT_RIDGE
 * 0.1.  At most IDENT_MAX_PROBE directions are probed (2 cost passes
 * each, plus one at x): on the demo fit 0.05 of 0.40 CPU-s, on L none.
 *
 * The combinations: the model's exact degeneracies have names - f0 and
 * f2 enter only as f0 exp(-f1 f2), and the prefactor and offset of a
 * power law (the transport rates J(t) = D0 t^alpha + D_offset, the
 * velocity v0 t^beta + v_offset, the shear rate) only through the law
 * (their sum when the exponent is 0) - and are reported with value and
 * uncertainty when the dropped directions leave them determined; other
 * degenerate sets get the linear combination that is constant along
 * their dropped direction.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_model.h"
#include "het_params.h"
#include "het_util.h"

#define IDENT_LOOSE	1.0	/* one-sigma step >= the whole range */
#define IDENT_K		2.0	/* probe at +- K sigma */
#define IDENT_RIDGE	0.1	/* observed / predicted rise of a ridge */
#define IDENT_MAX_PROBE	3	/* probed directions at most */
#define IDENT_LEAK	0.25	/* a combination's variance share that
				   the dropped directions may hold */

/* Largest t in (0, tmax] with x + s t d inside [lo, hi]. */
static double
inside_t(const struct fit_prob *fp, const double *x, const double *d,
    double s, double tmax)
{
	double t = tmax, v;
	size_t i;

	for (i = 0; i < fp->p; i++) {
		v = s * d[i];
		if (v > 0 && isfinite(fp->hi[i]))
			t = fmin(t, (fp->hi[i] - x[i]) / v);
		else if (v < 0 && isfinite(fp->lo[i]))
			t = fmin(t, (fp->lo[i] - x[i]) / v);
	}
	return t > 0 ? t : 0.0;
}

int
het_fit_ident_probe(struct fit_run *run, const double *x,
    struct het_nlsq_quality *q, struct het_error *err)
{
	const struct fit_prob *fp = run->fp;
	struct fit_eval *fe = &run->slots[0].fe;
	double *d = NULL, *xt = NULL, f0 = NAN, t, r, rmin, step;
	size_t k, i, p = fp->p, nprobe = 0;
	int rc = HET_OK, s, sides;

	/* Not for the early-window pre-fit, whose report nobody reads;
	   nor for a report by blocks, made only when no direction is weak
	   (het_nlsq_quality_blocks proves it with these thresholds). */
	if (p == 0 || fp->nseg > 0 || q->lmax <= 0 || !(q->s2 > 0) ||
	    q->by_blocks)
		return HET_OK;
	d = het_alloc_array(p, sizeof(double), "fit report", err);
	xt = het_alloc_array(p, sizeof(double), "fit report", err);
	if (d == NULL || xt == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (k = 0; k < p && rc == HET_OK && nprobe < IDENT_MAX_PROBE; k++) {
		if (q->dir[k] != HET_NLSQ_DIR_KEPT)
			continue;
		step = het_nlsq_quality_step(q, k, fp->lo, fp->hi, d);
		if (!(q->lam[k] < HET_FIT_IDENT_WEAK_RTOL * q->lmax) &&
		    step < HET_FIT_IDENT_WEAK_STEP)
			continue;
		if (step >= IDENT_LOOSE) {
			rc = het_nlsq_quality_drop(q, k, HET_NLSQ_DIR_LOOSE,
			    1.0, x, fp->lo, fp->hi, fp->names, err);
			continue;
		}
		nprobe++;
		if (isnan(f0)) {
			if ((rc = het_fit_eval_pass(fe, x, FIT_COST, err)) !=
			    HET_OK)
				break;
			f0 = fe->cacc[0];
		}
		rmin = INFINITY;
		sides = 0;
		for (s = -1; s <= 1 && rc == HET_OK; s += 2) {
			t = inside_t(fp, x, d, s, IDENT_K);
			if (t < 0.1 * IDENT_K)
				continue;
			for (i = 0; i < p; i++)
				xt[i] = x[i] + s * t * d[i];
			if ((rc = het_fit_eval_pass(fe, xt, FIT_COST, err)) !=
			    HET_OK)
				break;
			r = (fe->cacc[0] - f0) / (0.5 * t * t * q->s2);
			rmin = fmin(rmin, r);
			sides++;
			if (rmin < IDENT_RIDGE)
				break;	/* a ridge already */
		}
		if (rc == HET_OK && sides > 0 && rmin < IDENT_RIDGE)
			rc = het_nlsq_quality_drop(q, k, HET_NLSQ_DIR_RIDGE,
			    1.0 / fmax(rmin, 1e-300), x, fp->lo, fp->hi,
			    fp->names, err);
	}
out:
	free(d);
	free(xt);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Combinations. */

/* The fitted column of physics parameter `name`, or -1. */
static long
fcol_of(const struct fit_prob *fp, enum het_family fam, const char *name)
{
	long col;
	int i = het_params_find(fam, name);

	if (i < 0 || (col = het_resid_phys_col(fp->r, (size_t)i)) < 0)
		return -1;
	return fp->fcol[col];
}

/* Append a combination when the dropped directions leave it
   determined; *added says whether it was. */
static int
combo_add(struct het_fit_result *res, const struct het_nlsq_quality *q,
    const double *g, double value, const char *expr, int *added,
    struct het_error *err)
{
	struct het_nlsq_combo *nc;
	double sd, leak;
	size_t k;

	*added = 0;
	for (k = 0; k < res->ncombos; k++)
		if (strcmp(res->combos[k].expr, expr) == 0)
			return HET_OK;	/* found along another direction */
	het_nlsq_quality_combo(q, g, &sd, &leak);
	if (!(sd > 0) || !isfinite(value) || !(leak <= IDENT_LEAK * sd * sd))
		return HET_OK;
	nc = realloc(res->combos, (res->ncombos + 1) * sizeof(*nc));
	if (nc == NULL)
		return het_error_set(err, HET_ENOMEM, "fit report: out of "
		    "memory");
	res->combos = nc;
	nc += res->ncombos++;
	snprintf(nc->expr, sizeof(nc->expr), "%s", expr);
	nc->value = value;
	nc->unc = sd;
	*added = 1;
	return het_nlsq_warning_add(&res->warnings, &res->nwarnings, err,
	    "The data determine the combination %s = %.6g +- %.3g of the "
	    "degenerate parameters; quote it rather than its parts.", expr,
	    value, sd);
}

/* f0 exp(-f1 f2): the fraction law's identifiable amplitude. */
static int
combo_fraction(const struct fit_prob *fp, enum het_family fam,
    const double *th, const double *x, const struct het_nlsq_quality *q,
    double *g, unsigned char *done, struct het_fit_result *res,
    struct het_error *err)
{
	long c0 = fcol_of(fp, fam, "f0"), c1 = fcol_of(fp, fam, "f1"),
	    c2 = fcol_of(fp, fam, "f2");
	int i1 = het_params_find(fam, "f1"), added, rc;
	double f0, f1, f2, e;

	if (c0 < 0 || c2 < 0 || i1 < 0 || !(q->degen[c0] || q->degen[c2]))
		return HET_OK;
	f0 = x[c0];
	f1 = c1 >= 0 ? x[c1] : th[i1];
	f2 = x[c2];
	e = exp(-f1 * f2);
	memset(g, 0, fp->p * sizeof(double));
	g[c0] = e;
	g[c2] = -f1 * f0 * e;
	if (c1 >= 0)
		g[c1] = -f2 * f0 * e;
	rc = combo_add(res, q, g, f0 * e, "f0*exp(-f1*f2)", &added, err);
	if (added)
		done[c0] = done[c2] = 1;
	return rc;
}

/* A power law a(t) = pre * t^exp + off of the models (P(t) = 0 at
   t <= 0): the transport rates, the velocity and the shear rate. */
struct law {
	const char	*pre, *exp, *off, *fn;
};

static const struct law laws[] = {
	{ "D0_ref", "alpha_ref", "D_offset_ref", "J_ref" },
	{ "D0_sample", "alpha_sample", "D_offset_sample", "J_sample" },
	{ "D0", "alpha", "D_offset", "J" },
	{ "v0", "beta", "v_offset", "v" },
	{ "gamma_dot_t0", "beta", "gamma_dot_t_offset", "gamma_dot" }
};

/*
 * One power law with pre and off degenerate: pre + off (the law at
 * t = 1 s, where t^exp = 1 for every exponent: the sum the data fix
 * when the exponent is near 0), else the law at the first and last
 * times of the data.
 */
static int
combo_law(const struct fit_prob *fp, enum het_family fam,
    const struct law *lw, const double *th, const double *x,
    const struct het_nlsq_quality *q, double *g, unsigned char *done,
    struct het_fit_result *res, struct het_error *err)
{
	const struct het_model *m = het_resid_model(fp->r);
	const double *tg = het_model_time(m);
	size_t nt = het_model_spec_of(m)->n_frames, w, tk[2];
	char expr[160];
	long cd, ca, co;
	int ia, added, rc;
	double D0, al, P, t;

	cd = fcol_of(fp, fam, lw->pre);
	ca = fcol_of(fp, fam, lw->exp);
	co = fcol_of(fp, fam, lw->off);
	ia = het_params_find(fam, lw->exp);
	if (ia < 0 || cd < 0 || co < 0 || !(q->degen[cd] || q->degen[co]) ||
	    nt == 0)
		return HET_OK;
	D0 = x[cd];
	al = ca >= 0 ? x[ca] : th[ia];
	memset(g, 0, fp->p * sizeof(double));
	g[cd] = g[co] = 1.0;
	snprintf(expr, sizeof(expr), "%s + %s%s%s%s", lw->pre, lw->off,
	    ca >= 0 ? " (" : "", ca >= 0 ? lw->fn : "", ca >= 0 ?
	    " at t = 1 s)" : "");
	if ((rc = combo_add(res, q, g, D0 + x[co], expr, &added, err)) !=
	    HET_OK || added) {
		done[cd] = done[co] = (unsigned char)added;
		if (ca >= 0)
			done[ca] = (unsigned char)added;
		return rc;
	}
	/* The first and last frames of the data. */
	tk[0] = 0;
	tk[1] = nt - 1;
	for (w = 0; w < 2 && rc == HET_OK; w++) {
		t = tg[tk[w]];
		P = t > 0 ? pow(fmax(t, 1e-10), al) : 0.0;
		memset(g, 0, fp->p * sizeof(double));
		g[cd] = P;
		g[co] = 1.0;
		if (ca >= 0)
			g[ca] = t > 0 ? D0 * P * log(fmax(t, 1e-10)) : 0.0;
		snprintf(expr, sizeof(expr), "%s(t) = %s*t^%s + %s at t = "
		    "%.4g s", lw->fn, lw->pre, lw->exp, lw->off, t);
		rc = combo_add(res, q, g, D0 * P + x[co], expr, &added, err);
		if (added)
			done[cd] = done[co] = 1;
	}
	return rc;
}

/* Generic: per dropped direction, x_j - (d_j / d_piv) x_piv for each
   degenerate j not named above. */
static int
combo_generic(const struct fit_prob *fp, const double *x,
    const struct het_nlsq_quality *q, double *g, double *d,
    const unsigned char *done, struct het_fit_result *res,
    struct het_error *err)
{
	size_t k, i, piv, p = fp->p;
	double best, c;
	char expr[160];
	int added, rc = HET_OK;

	for (k = 0; k < p && rc == HET_OK; k++) {
		if (q->dir[k] == HET_NLSQ_DIR_KEPT)
			continue;
		for (i = 0; i < p; i++)
			d[i] = q->cn[i] > 0 ? q->Z[k * p + i] / q->cn[i] : 0.0;
		piv = p;
		best = 0.0;
		for (i = 0; i < p; i++)
			if (q->degen[i] && !done[i] &&
			    fabs(q->Z[k * p + i]) > best) {
				best = fabs(q->Z[k * p + i]);
				piv = i;
			}
		if (piv == p || best < 0.1)
			continue;
		for (i = 0; i < p && rc == HET_OK; i++) {
			if (i == piv || !q->degen[i] || done[i] ||
			    fabs(q->Z[k * p + i]) < 0.1)
				continue;
			c = d[i] / d[piv];
			memset(g, 0, p * sizeof(double));
			g[i] = 1.0;
			g[piv] = -c;
			snprintf(expr, sizeof(expr), "%s %s %.6g*%s",
			    fp->names[i], c < 0 ? "+" : "-", fabs(c),
			    fp->names[piv]);
			rc = combo_add(res, q, g, x[i] - c * x[piv], expr,
			    &added, err);
		}
	}
	return rc;
}

int
het_fit_ident_combos(const struct fit_prob *fp,
    const struct het_nlsq_quality *q,
    struct het_fit_result *res, struct het_error *err)
{
	enum het_family fam = het_mode_family(het_model_spec_of(
	    het_resid_model(fp->r))->mode);
	double th[HET_MAX_PHYS], *xf = NULL, *g = NULL, *d = NULL;
	unsigned char *done = NULL;
	size_t c, k, ndeg = 0;
	int rc = HET_ENOMEM;

	for (c = 0; c < fp->p; c++)
		ndeg += q->degen[c] != 0;
	if (ndeg == 0)
		return HET_OK;
	xf = het_alloc_array(fp->P, sizeof(double), "fit report", err);
	g = het_alloc_array(fp->p, sizeof(double), "fit report", err);
	d = het_alloc_array(fp->p, sizeof(double), "fit report", err);
	done = het_alloc_array(fp->p, 1, "fit report", err);
	if (xf == NULL || g == NULL || d == NULL || done == NULL)
		goto out;
	memcpy(xf, fp->xfull0, fp->P * sizeof(double));
	for (c = 0; c < fp->p; c++)
		xf[fp->rcol[c]] = res->x[c];
	het_resid_unpack(fp->r, xf, th, NULL);
	rc = combo_fraction(fp, fam, th, res->x, q, g, done, res, err);
	for (k = 0; k < sizeof(laws) / sizeof(laws[0]) && rc == HET_OK; k++)
		rc = combo_law(fp, fam, &laws[k], th, res->x, q, g, done, res,
		    err);
	if (rc == HET_OK)
		rc = combo_generic(fp, res->x, q, g, d, done, res, err);
out:
	free(xf);
	free(g);
	free(d);
	free(done);
	return rc;
}
