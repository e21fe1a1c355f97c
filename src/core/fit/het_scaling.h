/*
 * het_scaling.h: per-angle contrast and offset.
 *
 * Every model writes c2(a, i, j) = offset_a + contrast_a g(a, i, j).  A
 * scaling maps a vector s of "scaling parameters" to the per-angle pairs
 * (contrast_a, offset_a), a = 0 .. n_angles-1.  Four modes exist:
 *
 *   individual  2 n_angles parameters, s = [contrast[0] .. contrast[n-1],
 *               offset[0] .. offset[n-1]] (the samplers' order of
 *               homodyne-spec.md §8).  Block-sparse: angle a depends on
 *               s[a] and s[n + a] only.
 *   constant    0 parameters; the per-angle values are fixed, either from
 *               the configuration (het_scaling_set_constant) or from the
 *               quantile estimator (het_scaling_estimate).
 *   averaged    2 parameters, s = [contrast, offset], shared by all angles
 *               (homodyne's NLSQ "auto" with n_phi >= 3).
 *   fourier     2 (2K + 1) parameters for order K: per quantity the series
 *               v(phi) = v0 + sum_{k=1..K} [c_k cos(k phi) + s_k sin(k phi)]
 *               with phi in radians, ordered [c0, c1, s1, c2, s2, ...]
 *               for contrast, then the same for offset (names
 *               "contrast_c0", "contrast_c1", "contrast_s1", ...,
 *               "offset_c0", ...), as heterodyne's fourier_reparam.
 *
 * In every mode the map is linear in s, so the derivative
 * d(contrast_a, offset_a)/ds is a constant sparse matrix: het_scaling_rows
 * returns, per angle, the nonzero entries of the two rows.  NLSQ and NUTS
 * combine them with the per-pair derivatives dc2/dcontrast_a = g and
 * dc2/doffset_a = 1 (see het_resid.h).  het_scaling_angle_local tells
 * whether every parameter touches exactly one angle (individual mode), in
 * which case the scaling block of the Jacobian is block diagonal by angle.
 *
 * A struct het_scaling is immutable after het_scaling_alloc except for
 * het_scaling_set_constant; every other function may be called from any
 * number of threads at once.
 */
#ifndef HET_SCALING_H
#define HET_SCALING_H

#include <stddef.h>

#include "het_error.h"
#include "het_model.h"
#include "het_params.h"

enum het_scaling_mode {
	HET_SCALING_INDIVIDUAL = 0,
	HET_SCALING_CONSTANT,
	HET_SCALING_AVERAGED,
	HET_SCALING_FOURIER,
	HET_SCALING_MODE_COUNT,		/* number of concrete modes */
	/*
	 * Configuration only: "choose from the number of angles".  Resolved
	 * by het_config_scaling_resolve() before a scaling is built;
	 * het_scaling_alloc() rejects it.
	 */
	HET_SCALING_AUTO = HET_SCALING_MODE_COUNT,
	HET_SCALING_COUNT		/* concrete modes plus auto */
};

#define HET_SCALING_FOURIER_MAX 16	/* largest accepted Fourier order */

struct het_scaling_spec {
	enum het_scaling_mode mode;
	size_t		 n_angles;
	/* n_angles detector angles, degrees; needed by fourier (copied). */
	const double	*phi;
	int		 fourier_order;	/* K >= 1 (fourier only) */
	/* Default (start) values of a per-angle contrast and offset. */
	double		 contrast_value;
	double		 offset_value;
	/*
	 * Bounds of a per-angle contrast and offset (individual, averaged,
	 * constant values, estimator clipping).
	 */
	double		 contrast_lo, contrast_hi;
	double		 offset_lo, offset_hi;
	/* Fourier coefficient bounds: means and harmonic amplitudes. */
	double		 c0_lo, c0_hi;	/* contrast mean c0 */
	double		 ck_max;	/* |contrast harmonics| */
	double		 o0_lo, o0_hi;	/* offset mean o0 */
	double		 ok_max;	/* |offset harmonics| */
};

/* One sparse row of d(value_a)/ds: n entries (idx[k], w[k]). */
struct het_scaling_row {
	size_t		 n;
	const size_t	*idx;		/* scaling-vector indices, increasing */
	const double	*w;		/* d value / d s[idx[k]] */
};

struct het_scaling;

/*
 * het_scaling_default_spec: fill *spec with the defaults of a family:
 * values and bounds of contrast and offset from het_params_scaling
 * (contrast 0.5 in [0, 1], offset 1.0 in [0.5, 1.5]), Fourier order 2
 * and heterodyne's coefficient bounds c0 in [0.01, 1], harmonics in
 * [-0.2, 0.2], o0 in [0.5, 1.5], offset harmonics in [-0.3, 0.3]
 * (heterodyne-spec.md §2.3; homodyne's c0 range (0.1, 0.8) differs and is
 * not the default).  mode, n_angles and phi are stored as given (phi is
 * not copied here).  Thread: any.
 */
void het_scaling_default_spec(struct het_scaling_spec *spec,
    enum het_family family, enum het_scaling_mode mode, size_t n_angles,
    const double *phi);

/*
 * het_scaling_alloc: build a scaling from a specification.
 * Returns a scaling owned by the caller (het_scaling_free), or NULL with
 *   HET_EINVAL  unknown mode, no angles, non-finite or empty bounds
 *               (lo >= hi, or a default value outside its bounds), a
 *               fourier order < 1 or > HET_SCALING_FOURIER_MAX, fewer
 *               angles than 2K + 1 coefficients per quantity, or angles
 *               that cannot determine the series (e.g. coinciding modulo
 *               360 degrees);
 *   HET_ENOMEM.
 * A constant scaling starts with the default values at every angle.
 * Thread: any.
 */
struct het_scaling *het_scaling_alloc(const struct het_scaling_spec *spec,
    struct het_error *err);
void het_scaling_free(struct het_scaling *sc);

/* het_scaling_mode_of, het_scaling_nangles: as given to _alloc. */
enum het_scaling_mode het_scaling_mode_of(const struct het_scaling *sc);
size_t het_scaling_nangles(const struct het_scaling *sc);

/* het_scaling_nparams: length of the scaling vector s (0 for constant). */
size_t het_scaling_nparams(const struct het_scaling *sc);

/*
 * het_scaling_param_name: the name of s[k] ("contrast[3]", "offset[3]",
 * "contrast", "offset", "contrast_c0", "contrast_s2", "offset_c1", ...).
 * Borrowed, valid for the life of sc.  k must be < nparams.
 */
const char *het_scaling_param_name(const struct het_scaling *sc, size_t k);

/*
 * het_scaling_defaults: the default (start) vector, nparams values
 * (individual/averaged: the default contrast and offset; fourier: c0 and
 * o0 at the defaults, harmonics 0).
 * het_scaling_bounds: lower and upper bounds, nparams values each.
 */
void het_scaling_defaults(const struct het_scaling *sc, double *s);
void het_scaling_bounds(const struct het_scaling *sc, double *lo,
    double *hi);

/* het_scaling_param_bounds: the bounds of s[k] alone (k < nparams). */
void het_scaling_param_bounds(const struct het_scaling *sc, size_t k,
    double *lo, double *hi);

/*
 * het_scaling_set_constant: the fixed per-angle values of a constant
 * scaling (n_angles each, copied).
 * Returns HET_OK; HET_EINVAL when sc is not constant or a value is not
 * finite; HET_ERANGE when a value lies outside the contrast or offset
 * bounds (the message names the angle).  On error nothing changes.
 * Thread: not concurrently with any other use of sc.
 */
int het_scaling_set_constant(struct het_scaling *sc, const double *contrast,
    const double *offset, struct het_error *err);

/*
 * het_scaling_map: per-angle values for the vector s (nparams values; may
 * be NULL when nparams is 0).  contrast and offset receive n_angles
 * values each.  No clipping is applied (a Fourier series may leave the
 * per-angle bounds; the coefficient bounds are what the fit enforces).
 */
void het_scaling_map(const struct het_scaling *sc, const double *s,
    double *contrast, double *offset);

/*
 * het_scaling_rows: the nonzero entries of d contrast_a / ds and
 * d offset_a / ds for angle a < n_angles (both rows empty for constant).
 * The returned rows point into sc (borrowed).
 */
void het_scaling_rows(const struct het_scaling *sc, size_t a,
    struct het_scaling_row *contrast, struct het_scaling_row *offset);

/*
 * het_scaling_angle_local: 1 when each scaling parameter touches exactly
 * one angle (individual mode; then s[a] and s[n + a] belong to angle a),
 * else 0.
 */
int het_scaling_angle_local(const struct het_scaling *sc);

/*
 * het_scaling_project: the scaling vector that best reproduces given
 * per-angle values (n_angles each) in the least-squares sense: the values
 * themselves (individual), their means (averaged), the least-squares
 * Fourier coefficients (fourier; exact when the values are a series of
 * order <= K).  s receives nparams values (nothing for constant).  Used
 * to start fits from quantile estimates.  No clipping to the bounds.
 */
void het_scaling_project(const struct het_scaling *sc,
    const double *contrast, const double *offset, double *s);

/*
 * het_scaling_estimate: per-angle quantile estimates of contrast and
 * offset from observed c2 values (homodyne and heterodyne
 * estimate_contrast_offset_from_quantiles, identical in both packages).
 * For each angle a, over the pairs k with pairs[k].a == a and a finite
 * y[k] (non-finite values are dropped, as heterodyne does), with lag
 * tau = j - i in frames (proportional to |t1 - t2|):
 *   fewer than 100 points: contrast and offset are the midpoints of their
 *     bounds;
 *   otherwise, with P(x, p) the percentile with numpy's default linear
 *   interpolation (index p (n - 1)):
 *     offset   = P(y over tau >= P(tau, 0.8), 0.1), or P(y, 0.1) over all
 *                points when fewer than 10 qualify; clipped to bounds;
 *     contrast = P(y over tau <= P(tau, 0.2), 0.9) (all points when
 *                fewer than 10 qualify) minus offset; clipped to bounds.
 * The bounds are spec.contrast_lo/hi and offset_lo/hi of sc.  The
 * reference packages apply this to the full symmetric matrix including
 * the diagonal; hetui passes the upper-triangle pairs it fits, so the
 * results differ from theirs by the weight of the diagonal only.
 *   contrast, offset  out: n_angles values each.
 * Returns HET_OK, HET_EINVAL for a pair whose angle is out of range, or
 * HET_ENOMEM (work arrays of the size of the largest angle).
 * Thread: any (sc is only read).
 */
int het_scaling_estimate(const struct het_scaling *sc, size_t n,
    const struct het_pair *pairs, const double *y, double *contrast,
    double *offset, struct het_error *err);

/*
 * het_scaling_mode_name / het_scaling_mode_parse: "individual",
 * "constant", "averaged", "fourier"; parse also accepts heterodyne's
 * "independent" for individual.  Parse returns HET_OK or HET_EINVAL with
 * a message listing the valid names.
 */
const char *het_scaling_mode_name(enum het_scaling_mode mode);
int het_scaling_mode_parse(const char *name, enum het_scaling_mode *mode,
    struct het_error *err);

#endif /* HET_SCALING_H */
