/*
 * het_fit_floor.c: fits that stop on a floor of the model (issue 17):
 * which parameters sit behind a floor or clip active at every time of
 * the data (het_fit_floor_causes, het_fit_floor_columns: for the zero-column
 * warning, which then names the model's cause), and the restart off the
 * floor after a fit (het_fit_floor_restart).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_model.h"
#include "het_params.h"
#include "het_thread.h"
#include "het_util.h"

/*
 * Floors.  Both model families floor or clip what they compute from the
 * physics parameters (het_model_hom.c, het_model_het.c): the homodyne
 * rates D(t) = D0 t^alpha + D_offset and gamma_dot(t) = gamma_dot_t0
 * t^beta + gamma_dot_t_offset at 1e-10, the heterodyne rates J_ref and
 * J_sample at 0 and the sample fraction x_s at 0 and 1.  Where the floor
 * is active at every time of the data, the parameters behind it have no
 * effect (their Jacobian columns are zero) and the cost is flat in them:
 * a solver that steps there stops ("converged", xtol) on a plateau.
 * het_fit_floor_causes evaluates those curves on the model's time grid.
 */

#define FLOOR_HOM_RATE	1e-10	/* het_model_hom.c HOM_RATE_FLOOR */

static const char *const cause_hom_d = "the diffusion rate D(t) = D0 "
    "t^alpha + D_offset is at its floor (1e-10) at every time of the data, "
    "so the model has no diffusion decay";
static const char *const cause_hom_g = "the shear rate gamma_dot(t) = "
    "gamma_dot_t0 t^beta + gamma_dot_t_offset is at its floor (1e-10) at "
    "every time of the data, so the model has no shear";
static const char *const cause_het_r = "the reference rate J_ref(t) = "
    "D0_ref t^alpha_ref + D_offset_ref is clipped at 0 at every time of "
    "the data";
static const char *const cause_het_s = "the sample rate J_sample(t) = "
    "D0_sample t^alpha_sample + D_offset_sample is clipped at 0 at every "
    "time of the data";
static const char *const cause_het_f = "the sample fraction x_s(t) = f0 "
    "exp(f1 (t - f2)) + f3 is clipped at 0 or 1 at every time of the data";
static const char *const cause_het_s0 = "the sample fraction x_s(t) is 0 "
    "at every time of the data, so nothing of the sample (its transport, "
    "the flow) enters the model";
static const char *const cause_het_s1 = "the sample fraction x_s(t) is 1 "
    "at every time of the data, so neither the reference nor the flow "
    "enters the model";

/* The rates' parameters (prefactor, exponent, offset, and one more
   that has no effect without the rate). */
static const char *const hom_d[4] = { "D0", "alpha", "D_offset", NULL };
static const char *const hom_g[4] = { "gamma_dot_t0", "beta",
    "gamma_dot_t_offset", "phi0" };
static const char *const het_r[4] = { "D0_ref", "alpha_ref",
    "D_offset_ref", NULL };
static const char *const het_s[4] = { "D0_sample", "alpha_sample",
    "D_offset_sample", NULL };

/* theta[name] of family fam, NAN when the family has no such name. */
static double
th(const double *theta, enum het_family fam, const char *name)
{
	int k = het_params_find(fam, name);

	return k >= 0 ? theta[k] : NAN;
}

/* Set cause[name] (physics index) unless already set. */
static void
set_cause(const char **cause, enum het_family fam, const char *name,
    const char *why)
{
	int k = het_params_find(fam, name);

	if (k >= 0 && cause[k] == NULL)
		cause[k] = why;
}

/* a t^b + c on a grid: 1 when every value is <= floor. */
static int
all_floored(const double *t, size_t n, double tmin, double a, double b,
    double c, double floor)
{
	size_t k;
	double ts;

	for (k = 0; k < n; k++) {
		ts = t[k] > tmin ? t[k] : tmin;
		if (a * pow(ts, b) + c > floor)
			return 0;
	}
	return 1;
}

/*
 * The rate names[0] t^names[1] + names[2] of theta: when it is at or
 * below `floor` at every time, set the cause `why` for those parameters
 * and names[3] (NULL: none).
 */
static void
rate_floor(const char **cause, enum het_family fam, const double *theta,
    const double *t, size_t n, double tmin, const char *const names[4],
    double floor, const char *why)
{
	size_t k;

	if (!all_floored(t, n, tmin, th(theta, fam, names[0]), th(theta, fam,
	    names[1]), th(theta, fam, names[2]), floor))
		return;
	for (k = 0; k < 4 && names[k] != NULL; k++)
		set_cause(cause, fam, names[k], why);
}

size_t
het_fit_floor_causes(const struct het_resid *r, const double *xfull,
    const char **cause)
{
	const struct het_model *m = het_resid_model(r);
	const struct het_model_spec *sp = het_model_spec_of(m);
	const double *t = het_model_time(m);
	enum het_family fam = het_mode_family(sp->mode);
	size_t np = het_model_nphys(m), n = sp->n_frames, k, cnt = 0;
	double theta[HET_MAX_PHYS], eps, xs, lo = 1, hi = 0, arg;
	int clipped = 1;

	for (k = 0; k < np; k++)
		cause[k] = NULL;
	if (n == 0 || np > HET_MAX_PHYS)
		return 0;
	het_resid_unpack(r, xfull, theta, NULL);
	if (fam == HET_FAMILY_HOMODYNE) {
		eps = n > 1 ? fmax(fabs(t[1] - t[0]) / 2.0, 1e-8) : 1e-8;
		rate_floor(cause, fam, theta, t, n, eps, hom_d, FLOOR_HOM_RATE,
		    cause_hom_d);
		if (sp->mode == HET_MODE_HOM_LAMINAR)
			rate_floor(cause, fam, theta, t, n, eps, hom_g,
			    FLOOR_HOM_RATE, cause_hom_g);
	} else {
		/* P(t, a) = 0 for t <= 0: a t^b + c there is c alone. */
		for (k = 0; k < n; k++) {
			arg = th(theta, fam, "f1") * (t[k] - th(theta, fam,
			    "f2"));
			arg = arg < -100 ? -100 : arg > 100 ? 100 : arg;
			xs = th(theta, fam, "f0") * exp(arg) + th(theta, fam,
			    "f3");
			if (xs > 0 && xs < 1)
				clipped = 0;
			xs = xs < 0 ? 0 : xs > 1 ? 1 : xs;
			lo = fmin(lo, xs);
			hi = fmax(hi, xs);
		}
		if (clipped) {
			set_cause(cause, fam, "f0", cause_het_f);
			set_cause(cause, fam, "f1", cause_het_f);
			set_cause(cause, fam, "f2", cause_het_f);
			set_cause(cause, fam, "f3", cause_het_f);
		}
		if (hi == 0 || lo == 1) {
			const char *why = hi == 0 ? cause_het_s0 :
			    cause_het_s1;
			static const char *const flow[] = { "v0", "beta",
			    "v_offset", "phi0" };

			for (k = 0; k < 3; k++)
				set_cause(cause, fam, hi == 0 ? het_s[k] :
				    het_r[k], why);
			for (k = 0; k < 4; k++)
				set_cause(cause, fam, flow[k], why);
		}
		rate_floor(cause, fam, theta, t, n, 1e-10, het_r, 0.0,
		    cause_het_r);
		rate_floor(cause, fam, theta, t, n, 1e-10, het_s, 0.0,
		    cause_het_s);
	}
	for (k = 0; k < np; k++)
		cnt += cause[k] != NULL;
	return cnt;
}

size_t
het_fit_floor_columns(const struct fit_prob *fp, const double *x,
    const char **cause)
{
	const char *pc[HET_MAX_PHYS];
	double *xf;
	size_t c, k, cnt = 0, np = het_model_nphys(het_resid_model(fp->r));
	long col, fc;

	for (c = 0; c < fp->p; c++)
		cause[c] = NULL;
	if (np > HET_MAX_PHYS || (xf = malloc((fp->P > 0 ? fp->P : 1) *
	    sizeof(*xf))) == NULL)
		return 0;
	memcpy(xf, fp->xfull0, fp->P * sizeof(*xf));
	for (c = 0; c < fp->p; c++)
		xf[fp->rcol[c]] = x[c];
	het_fit_floor_causes(fp->r, xf, pc);
	free(xf);
	for (k = 0; k < np; k++) {
		if (pc[k] == NULL || (col = het_resid_phys_col(fp->r, k)) < 0 ||
		    (fc = fp->fcol[col]) < 0)
			continue;
		cause[fc] = pc[k];
		cnt++;
	}
	return cnt;
}

/* The first non-NULL cause. */
static const char *
firstcause(const struct fit_prob *fp, const char **cause)
{
	size_t c;

	for (c = 0; c < fp->p; c++)
		if (cause[c] != NULL)
			return cause[c];
	return "";
}

/* The names of the fitted columns c with cause[c] set, comma-joined. */
static void
floor_names(const struct fit_prob *fp, const char **cause, char *buf,
    size_t len)
{
	size_t c, used = 0;

	buf[0] = '\0';
	for (c = 0; c < fp->p && used < len; c++)
		if (cause[c] != NULL)
			used += (size_t)snprintf(buf + used, len - used,
			    "%s%s", used > 0 ? ", " : "", fp->names[c]);
}

/*
 * Floor restart (issue 17).  A fit whose physics parameters end behind
 * a floor of the model active at every time (het_fit_floor_columns: a rate
 * floored, a fraction clipped) sits on a plateau: those parameters have
 * no effect, so the solver stops there ("converged") although a better
 * point may exist off the floor.  Up to HET_FIT_FLOOR_RESTARTS times,
 * the fit restarts from its best point with those parameters and the
 * scaling (contrast and offset, which absorbed what the floored
 * parameters no longer describe) reset to their start values (the
 * floored ones to the middle of their bounds where the start is behind
 * the same floor) and keeps the lower cost; either way a warning
 * says what happened.  fp is the problem of *out (joint or one angle),
 * Xs the caller's start and X0 the start the fit used (full layout).
 */
int
het_fit_floor_restart(struct het_pool *pool, const struct fit_prob *fp,
    const double *Xs, const double *X0, const double *L, const double *H,
    const struct het_fit_options *opt, struct het_fit_result **out,
    struct het_error *err)
{
	struct het_fit_options o = *opt;
	struct het_fit_result *res = *out, *nres;
	struct fit_prob fq;
	struct het_error e;
	const char **cause = NULL, **c2 = NULL;
	double *Xr = NULL, *xr = NULL, cost0;
	char names[512], note[HET_FIT_FLOOR_RESTARTS][1024];
	size_t c, att, n, changed, nnote = 0;
	int rc = HET_OK;

	cause = calloc(fp->p > 0 ? fp->p : 1, sizeof(*cause));
	c2 = calloc(fp->p > 0 ? fp->p : 1, sizeof(*c2));
	Xr = het_alloc_array(fp->P > 0 ? fp->P : 1, sizeof(double), "fit",
	    err);
	xr = het_alloc_array(fp->p > 0 ? fp->p : 1, sizeof(double), "fit",
	    err);
	if (cause == NULL || c2 == NULL || Xr == NULL || xr == NULL) {
		rc = het_error_set(err, HET_ENOMEM, "fit: out of memory");
		goto out;
	}
	o.nlsq.multistart = 0;
	for (att = 0; att < HET_FIT_FLOOR_RESTARTS; att++) {
		res = *out;
		if (res->reason == HET_NLSQ_CANCELLED || (opt->cancel != NULL &&
		    atomic_load(opt->cancel)))
			break;
		if ((n = het_fit_floor_columns(fp, res->x, cause)) == 0)
			break;
		floor_names(fp, cause, names, sizeof(names));
		memcpy(Xr, X0, fp->P * sizeof(double));
		for (c = 0; c < fp->p; c++)
			xr[c] = cause[c] != NULL || c >= fp->nfp ?
			    Xs[fp->rcol[c]] : res->x[c];
		het_fit_floor_columns(fp, xr, c2);
		changed = 0;
		for (c = 0; c < fp->p; c++) {
			if (cause[c] != NULL && c2[c] != NULL &&
			    isfinite(fp->lo[c]) && isfinite(fp->hi[c]))
				xr[c] = 0.5 * (fp->lo[c] + fp->hi[c]);
			changed += xr[c] != res->x[c];
			Xr[fp->rcol[c]] = xr[c];
		}
		if (changed == 0)
			break;
		cost0 = res->cost;
		nres = NULL;
		het_error_clear(&e);
		if (het_fit_prob_init(&fq, fp->r, fp->angle, Xr, L, H, &o,
		    &e) ==
		    HET_OK) {
			if (het_fit_problem(pool, &fq, &o, NULL, 0,
			    het_clock_now(),
			    &nres, &e) != HET_OK && nres != NULL &&
			    nres->reason ==
			    HET_NLSQ_CANCELLED) {
				het_fit_result_free(nres);
				nres = NULL;
			}
			het_fit_prob_fini(&fq);
		}
		if (opt->cancel != NULL && atomic_load(opt->cancel)) {
			het_fit_result_free(nres);
			break;
		}
		if (nres != NULL && nres->cost < cost0) {
			/* Earlier restarts' sentences move to the new result. */
			for (c = 0; rc == HET_OK && c < nnote; c++)
				rc = het_nlsq_warning_add(&nres->warnings,
				    &nres->nwarnings, err, "%s", note[c]);
			snprintf(note[nnote++], sizeof(note[0]),
			    HET_FIT_FLOOR_NOTE " %.6g with %s behind a floor of "
			    "the model (%s); restarted with %s off it, it "
			    "reached cost %.6g.", cost0, names,
			    firstcause(fp, cause), n > 1 ? "them" : "it",
			    nres->cost);
			if (rc == HET_OK)
				rc = het_nlsq_warning_add(&nres->warnings,
				    &nres->nwarnings, err, "%s",
				    note[nnote - 1]);
			het_fit_result_free(*out);
			*out = nres;
			if (rc != HET_OK)
				break;
			continue;
		}
		het_fit_result_free(nres);
		if (nres == NULL)
			rc = het_nlsq_warning_add(&res->warnings,
			    &res->nwarnings, err, "The fit ends with %s behind "
			    "a floor of the model (%s); a restart off the "
			    "floor could not run (%s).", names,
			    firstcause(fp, cause), e.msg);
		else
			rc = het_nlsq_warning_add(&res->warnings,
			    &res->nwarnings, err, "The fit ends with %s behind "
			    "a floor of the model (%s); a restart with %s off "
			    "the floor did not lower the cost (%.6g), so the "
			    "data do not call for %s: fix %s, or fit a model "
			    "without %s.", names, firstcause(fp, cause),
			    n > 1 ? "them" : "it", cost0, n > 1 ? "them" :
			    "it", n > 1 ? "them" : "it", n > 1 ? "them" :
			    "it");
		break;
	}
out:
	free(cause);
	free(c2);
	free(Xr);
	free(xr);
	return rc;
}
