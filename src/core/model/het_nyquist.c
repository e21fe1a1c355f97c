#include "config.h"

/*
 * het_nyquist.c: the aliasing check of het_nyquist.h.
 *
 * Design: the phase step factors into an angle part and a time part, so
 * the largest |cos| over the angles and the largest trapezoid rate over
 * the frame intervals are found separately (O(n_angles + n_frames)).  The
 * rates follow each family's own time grid and floors exactly as the
 * kernels do (het_model_het.c, het_model_hom.c), so the check speaks of
 * the same model the fit uses.
 */

#include <math.h>

#include "het_nyquist.h"
#include "het_params.h"

/* Heterodyne P(t, a): max(t, 1e-10)^a for t > 0, and 0 for t <= 0. */
static double
nyq_het_power(double t, double a)
{
	if (t <= 0.0)
		return 0.0;
	return pow(t > 1e-10 ? t : 1e-10, a);
}

/* Heterodyne velocity v(t) = v0 P(t, beta) + v_offset (signed). */
static double
nyq_het_velocity(const double *theta, double t)
{
	return theta[HET_P_V0] * nyq_het_power(t, theta[HET_P_BETA]) +
	    theta[HET_P_V_OFFSET];
}

/* Homodyne shear rate at grid point k, floored as the kernel does. */
static double
nyq_hom_shear(const double *theta, double dt, size_t k)
{
	double eps = dt / 2.0 > 1e-8 ? dt / 2.0 : 1e-8;
	double t = (double)k * dt;
	double ts = t > eps ? t : eps;
	double g = theta[HOM_P_GAMMA0] * pow(ts, theta[HOM_P_BETA]) +
	    theta[HOM_P_GAMMA_OFF];

	return g <= 1e-10 ? 1e-10 : g;
}

/* Largest |cos| over the angles; *angle gets its index. */
static double
nyq_max_cos(const struct het_model_spec *spec, double phi0, int het,
    size_t *angle)
{
	double best = -1.0;
	size_t a;

	for (a = 0; a < spec->n_angles; a++) {
		double deg = het ? spec->phi[a] + phi0 : phi0 - spec->phi[a];
		double c = fabs(cos(deg * M_PI / 180.0));

		if (c > best) {
			best = c;
			*angle = a;
		}
	}
	return best;
}

static int
nyq_check_args(const struct het_model_spec *spec, const double *theta,
    struct het_error *err)
{
	const struct het_param_def *tab;
	size_t k, np, ntab;

	if (spec->n_angles == 0 || spec->phi == NULL)
		return het_error_set(err, HET_EINVAL,
		    "aliasing check: no angles are selected");
	if (spec->n_frames < 2)
		return het_error_set(err, HET_EINVAL,
		    "aliasing check: the frame window holds %zu frame(s); "
		    "at least 2 are needed", spec->n_frames);
	if (!(spec->q > 0.0) || !(spec->dt > 0.0) || !isfinite(spec->q) ||
	    !isfinite(spec->dt))
		return het_error_set(err, HET_EINVAL,
		    "aliasing check: q = %g and dt = %g must be positive "
		    "and finite", spec->q, spec->dt);
	np = het_mode_nphys(spec->mode);
	tab = het_params_table(het_mode_family(spec->mode), &ntab);
	for (k = 0; k < np && k < ntab; k++)
		if (!isfinite(theta[k]))
			return het_error_set(err, HET_EINVAL,
			    "aliasing check: parameter %s is %g; every "
			    "parameter must be finite", tab[k].name, theta[k]);
	return HET_OK;
}

int
het_nyquist_check(const struct het_model_spec *spec, const double *theta,
    struct het_nyquist *out, struct het_error *err)
{
	double dt = spec->dt, rate, best = 0.0, cmax;
	size_t k, kbest = 0;
	int het;

	*out = (struct het_nyquist){ 0 };
	if (nyq_check_args(spec, theta, err) != HET_OK)
		return err->code;
	if (spec->mode == HET_MODE_HOM_STATIC)
		return HET_OK;
	het = het_mode_family(spec->mode) == HET_FAMILY_HETERODYNE;
	cmax = nyq_max_cos(spec, theta[het ? HET_P_PHI0 : HOM_P_PHI0], het,
	    &out->angle);
	for (k = 0; k + 1 < spec->n_frames; k++) {
		if (het) {
			double t0 = (double)(spec->start_frame + (long)k) * dt;

			rate = fabs(nyq_het_velocity(theta, t0) +
			    nyq_het_velocity(theta, t0 + dt)) / 2.0;
		} else
			rate = (nyq_hom_shear(theta, dt, k) +
			    nyq_hom_shear(theta, dt, k + 1)) / 2.0;
		if (rate > best) {
			best = rate;
			kbest = k;
		}
	}
	out->applies = 1;
	if (het) {
		out->step = spec->q * cmax * best * dt;
		out->limit = M_PI;
		out->t = (double)(spec->start_frame + (long)kbest) * dt;
	} else {
		out->step = spec->q * spec->gap * dt / (2.0 * M_PI) * cmax *
		    best;
		out->limit = M_PI / 2.0;
		out->t = (double)kbest * dt;
	}
	out->ratio = out->step / out->limit;
	return HET_OK;
}
