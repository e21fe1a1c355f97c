/*
 * het_scaling.c: per-angle contrast/offset modes, their linear maps and
 * sparse derivatives, the least-squares projection of per-angle values
 * onto a mode, and the quantile estimator of the reference packages.
 *
 * Design: every mode is a linear map s -> (contrast_a, offset_a), so at
 * allocation each angle gets two sparse rows (indices and weights) and
 * het_scaling_map, het_scaling_rows and het_scaling_project only read
 * precomputed tables; nothing allocates after het_scaling_alloc except
 * the estimator.  For the Fourier mode the basis B (n_angles x m, m =
 * 2K + 1, columns 1, cos phi, sin phi, cos 2phi, ...) is factored once
 * with Householder QR; a tiny pivot means the angles cannot determine
 * the series and is reported at allocation.  The projection uses the
 * pseudo-inverse R^-1 Q^T precomputed from that factorisation, which is
 * numerically stable and allocation-free.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_scaling.h"
#include "het_util.h"

#define SC_NAME_LEN	32	/* room for "contrast[4294967295]" */
#define SC_PI		3.14159265358979323846
#define SC_RANK_TOL	1e-10	/* relative pivot of a singular basis */
#define SC_EST_MIN	100	/* points per angle the estimator needs */
#define SC_EST_REGION	10	/* points a lag region needs */

struct het_scaling {
	struct het_scaling_spec spec;	/* spec.phi points at phi */
	double	*phi;		/* n_angles, degrees (owned), or NULL */
	size_t	 na;		/* angles */
	size_t	 ns;		/* scaling parameters */
	size_t	 len;		/* entries per row: 0, 1 or m */
	char	*names;		/* ns * SC_NAME_LEN */
	double	*def;		/* ns defaults */
	double	*lo, *hi;	/* ns bounds */
	size_t	*ridx;		/* na * 2 * len row indices */
	double	*rw;		/* na * 2 * len row weights */
	double	*fixc, *fixo;	/* constant: na fixed values each */
	double	*pinv;		/* fourier: m * na pseudo-inverse of B */
};

static const char *const mode_names[HET_SCALING_MODE_COUNT] = {
	[HET_SCALING_INDIVIDUAL] = "individual",
	[HET_SCALING_CONSTANT] = "constant",
	[HET_SCALING_AVERAGED] = "averaged",
	[HET_SCALING_FOURIER] = "fourier",
};

void
het_scaling_default_spec(struct het_scaling_spec *spec,
    enum het_family family, enum het_scaling_mode mode, size_t n_angles,
    const double *phi)
{
	const struct het_param_def *c, *o;

	c = het_params_scaling(family, HET_S_CONTRAST);
	o = het_params_scaling(family, HET_S_OFFSET);
	memset(spec, 0, sizeof(*spec));
	spec->mode = mode;
	spec->n_angles = n_angles;
	spec->phi = phi;
	spec->fourier_order = 2;
	spec->contrast_value = c->value;
	spec->offset_value = o->value;
	spec->contrast_lo = c->lo;
	spec->contrast_hi = c->hi;
	spec->offset_lo = o->lo;
	spec->offset_hi = o->hi;
	spec->c0_lo = 0.01;
	spec->c0_hi = 1.0;
	spec->ck_max = 0.2;
	spec->o0_lo = 0.5;
	spec->o0_hi = 1.5;
	spec->ok_max = 0.3;
}

static int
sc_check_range(const char *what, double lo, double hi, double value,
    int has_value, struct het_error *err)
{
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
		return het_error_set(err, HET_EINVAL,
		    "scaling: bounds of %s are [%g, %g]; they must be finite "
		    "with lower < upper", what, lo, hi);
	if (has_value && (!isfinite(value) || value < lo || value > hi))
		return het_error_set(err, HET_EINVAL,
		    "scaling: default %s %g lies outside its bounds [%g, %g]; "
		    "change the value or the bounds", what, value, lo, hi);
	return HET_OK;
}

static int
sc_check_spec(const struct het_scaling_spec *s, struct het_error *err)
{
	size_t a, m;
	int rc;

	if ((int)s->mode < 0 || s->mode >= HET_SCALING_MODE_COUNT)
		return het_error_set(err, HET_EINVAL,
		    "scaling: unknown per-angle mode %d", (int)s->mode);
	if (s->n_angles == 0 || s->n_angles > UINT32_MAX)
		return het_error_set(err, HET_EINVAL,
		    "scaling: %zu angles; select at least one phi angle",
		    s->n_angles);
	if ((rc = sc_check_range("contrast", s->contrast_lo, s->contrast_hi,
	    s->contrast_value, 1, err)) != HET_OK ||
	    (rc = sc_check_range("offset", s->offset_lo, s->offset_hi,
	    s->offset_value, 1, err)) != HET_OK)
		return rc;
	if (s->mode != HET_SCALING_FOURIER)
		return HET_OK;
	if (s->fourier_order < 1 || s->fourier_order > HET_SCALING_FOURIER_MAX)
		return het_error_set(err, HET_EINVAL,
		    "scaling: fourier_order %d is out of range; use 1 to %d",
		    s->fourier_order, HET_SCALING_FOURIER_MAX);
	m = 2 * (size_t)s->fourier_order + 1;
	if (s->n_angles < m)
		return het_error_set(err, HET_EINVAL,
		    "scaling: a Fourier series of order %d has %zu "
		    "coefficients per quantity but only %zu angles are "
		    "selected; lower fourier_order to at most %zu or use the "
		    "individual mode", s->fourier_order, m, s->n_angles,
		    (s->n_angles - 1) / 2);
	if (s->phi == NULL)
		return het_error_set(err, HET_EINVAL,
		    "scaling: the fourier mode needs the angles phi");
	for (a = 0; a < s->n_angles; a++)
		if (!isfinite(s->phi[a]))
			return het_error_set(err, HET_EINVAL,
			    "scaling: angle %zu is not a finite number", a);
	if ((rc = sc_check_range("contrast_c0", s->c0_lo, s->c0_hi,
	    s->contrast_value, 1, err)) != HET_OK ||
	    (rc = sc_check_range("offset_c0", s->o0_lo, s->o0_hi,
	    s->offset_value, 1, err)) != HET_OK ||
	    (rc = sc_check_range("contrast harmonics", -s->ck_max, s->ck_max,
	    0, 0, err)) != HET_OK ||
	    (rc = sc_check_range("offset harmonics", -s->ok_max, s->ok_max,
	    0, 0, err)) != HET_OK)
		return rc;
	return HET_OK;
}

/*
 * Householder QR of the n x m basis b (row-major, n >= m), then the
 * pseudo-inverse R^-1 Q^T into pinv (m x n).  b is destroyed; v is n
 * scratch values per column (n * m).  Returns HET_OK or HET_EINVAL when
 * a pivot is negligible (the basis is rank deficient).
 */
static int
sc_pinv(double *b, size_t n, size_t m, double *v, double *pinv, int order,
    struct het_error *err)
{
	double rmax = 0, norm, alpha, vv, s, *x, *beta;
	size_t k, r, c, e;

	beta = v + n * m;	/* m values after the n * m reflectors */
	for (k = 0; k < m; k++) {
		norm = 0;
		for (r = k; r < n; r++)
			norm = hypot(norm, b[r * m + k]);
		alpha = b[k * m + k] > 0 ? -norm : norm;
		for (r = 0; r < n; r++)
			v[k * n + r] = r < k ? 0 : b[r * m + k];
		v[k * n + k] -= alpha;
		vv = 0;
		for (r = k; r < n; r++)
			vv += v[k * n + r] * v[k * n + r];
		beta[k] = vv > 0 ? 2.0 / vv : 0;
		for (c = k; c < m; c++) {
			s = 0;
			for (r = k; r < n; r++)
				s += v[k * n + r] * b[r * m + c];
			for (r = k; r < n; r++)
				b[r * m + c] -= beta[k] * s * v[k * n + r];
		}
		rmax = fmax(rmax, fabs(b[k * m + k]));
	}
	for (k = 0; k < m; k++)
		if (!(fabs(b[k * m + k]) > SC_RANK_TOL * rmax))
			return het_error_set(err, HET_EINVAL,
			    "scaling: the %zu selected angles cannot determine "
			    "a Fourier series of order %d (some coincide modulo "
			    "360 degrees); lower fourier_order or use the "
			    "individual mode", n, order);
	/* Column e of pinv = R^-1 (Q^T e_e); x is the last row of v spare. */
	x = beta + m;
	for (e = 0; e < n; e++) {
		for (r = 0; r < n; r++)
			x[r] = r == e ? 1.0 : 0.0;
		for (k = 0; k < m; k++) {
			s = 0;
			for (r = k; r < n; r++)
				s += v[k * n + r] * x[r];
			for (r = k; r < n; r++)
				x[r] -= beta[k] * s * v[k * n + r];
		}
		for (k = m; k-- > 0;) {
			s = x[k];
			for (c = k + 1; c < m; c++)
				s -= b[k * m + c] * x[c];
			x[k] = s / b[k * m + k];
		}
		for (k = 0; k < m; k++)
			pinv[k * n + e] = x[k];
	}
	return HET_OK;
}

/* Name, default and bounds of parameter k. */
static void
sc_param(struct het_scaling *sc, size_t k, const char *name, double def,
    double lo, double hi)
{
	snprintf(sc->names + k * SC_NAME_LEN, SC_NAME_LEN, "%s", name);
	sc->def[k] = def;
	sc->lo[k] = lo;
	sc->hi[k] = hi;
}

static int
sc_build_fourier(struct het_scaling *sc, struct het_error *err)
{
	const struct het_scaling_spec *s = &sc->spec;
	size_t m = sc->len, na = sc->na, a, k, q;
	double *b, *v, ph;
	char name[SC_NAME_LEN];
	int rc, h;

	b = het_alloc_array(na * m, sizeof(double), "Fourier basis", err);
	v = het_alloc_array(na * m + m + na, sizeof(double),
	    "Fourier basis", err);
	if (b == NULL || v == NULL) {
		free(b);
		free(v);
		return HET_ENOMEM;
	}
	for (a = 0; a < na; a++) {
		ph = sc->phi[a] * SC_PI / 180.0;
		b[a * m] = 1.0;
		for (h = 1; h <= s->fourier_order; h++) {
			b[a * m + 2 * (size_t)h - 1] = cos(h * ph);
			b[a * m + 2 * (size_t)h] = sin(h * ph);
		}
		/* The rows are the basis itself (before QR destroys b). */
		for (q = 0; q < 2; q++)
			for (k = 0; k < m; k++) {
				sc->ridx[(a * 2 + q) * m + k] = q * m + k;
				sc->rw[(a * 2 + q) * m + k] = b[a * m + k];
			}
	}
	rc = sc_pinv(b, na, m, v, sc->pinv, s->fourier_order, err);
	free(b);
	free(v);
	if (rc != HET_OK)
		return rc;
	for (q = 0; q < 2; q++) {
		const char *base = q == 0 ? "contrast" : "offset";
		double amp = q == 0 ? s->ck_max : s->ok_max;

		snprintf(name, sizeof(name), "%s_c0", base);
		if (q == 0)
			sc_param(sc, 0, name, s->contrast_value, s->c0_lo,
			    s->c0_hi);
		else
			sc_param(sc, m, name, s->offset_value, s->o0_lo,
			    s->o0_hi);
		for (h = 1; h <= s->fourier_order; h++) {
			snprintf(name, sizeof(name), "%s_c%d", base, h);
			sc_param(sc, q * m + 2 * (size_t)h - 1, name, 0, -amp,
			    amp);
			snprintf(name, sizeof(name), "%s_s%d", base, h);
			sc_param(sc, q * m + 2 * (size_t)h, name, 0, -amp, amp);
		}
	}
	return HET_OK;
}

struct het_scaling *
het_scaling_alloc(const struct het_scaling_spec *spec, struct het_error *err)
{
	struct het_scaling *sc;
	char name[SC_NAME_LEN];
	size_t a, na, n2;

	if (sc_check_spec(spec, err) != HET_OK)
		return NULL;
	if ((sc = calloc(1, sizeof(*sc))) == NULL) {
		het_error_set(err, HET_ENOMEM, "scaling: out of memory");
		return NULL;
	}
	sc->spec = *spec;
	sc->na = na = spec->n_angles;
	switch (spec->mode) {
	case HET_SCALING_INDIVIDUAL:
		sc->ns = 2 * na;
		sc->len = 1;
		break;
	case HET_SCALING_CONSTANT:
		sc->ns = 0;
		sc->len = 0;
		break;
	case HET_SCALING_AVERAGED:
		sc->ns = 2;
		sc->len = 1;
		break;
	default:
		sc->len = 2 * (size_t)spec->fourier_order + 1;
		sc->ns = 2 * sc->len;
		break;
	}
	n2 = na * 2 * sc->len;
	sc->names = het_alloc_array(sc->ns, SC_NAME_LEN, "scaling names", err);
	sc->def = het_alloc_array(sc->ns, sizeof(double), "scaling", err);
	sc->lo = het_alloc_array(sc->ns, sizeof(double), "scaling", err);
	sc->hi = het_alloc_array(sc->ns, sizeof(double), "scaling", err);
	sc->ridx = het_alloc_array(n2, sizeof(size_t), "scaling rows", err);
	sc->rw = het_alloc_array(n2, sizeof(double), "scaling rows", err);
	sc->fixc = het_alloc_array(na, sizeof(double), "scaling", err);
	sc->fixo = het_alloc_array(na, sizeof(double), "scaling", err);
	if (spec->phi != NULL)
		sc->phi = het_alloc_array(na, sizeof(double), "scaling angles",
		    err);
	if (spec->mode == HET_SCALING_FOURIER)
		sc->pinv = het_alloc_array(sc->len * na, sizeof(double),
		    "Fourier pseudo-inverse", err);
	if (sc->names == NULL || sc->def == NULL || sc->lo == NULL ||
	    sc->hi == NULL || sc->ridx == NULL || sc->rw == NULL ||
	    sc->fixc == NULL || sc->fixo == NULL ||
	    (spec->phi != NULL && sc->phi == NULL) ||
	    (spec->mode == HET_SCALING_FOURIER && sc->pinv == NULL))
		goto fail;
	if (spec->phi != NULL)
		memcpy(sc->phi, spec->phi, na * sizeof(double));
	sc->spec.phi = sc->phi;
	for (a = 0; a < na; a++) {
		sc->fixc[a] = spec->contrast_value;
		sc->fixo[a] = spec->offset_value;
	}

	switch (spec->mode) {
	case HET_SCALING_INDIVIDUAL:
		for (a = 0; a < na; a++) {
			snprintf(name, sizeof(name), "contrast[%zu]", a);
			sc_param(sc, a, name, spec->contrast_value,
			    spec->contrast_lo, spec->contrast_hi);
			snprintf(name, sizeof(name), "offset[%zu]", a);
			sc_param(sc, na + a, name, spec->offset_value,
			    spec->offset_lo, spec->offset_hi);
			sc->ridx[a * 2] = a;
			sc->ridx[a * 2 + 1] = na + a;
			sc->rw[a * 2] = sc->rw[a * 2 + 1] = 1.0;
		}
		break;
	case HET_SCALING_AVERAGED:
		sc_param(sc, 0, "contrast", spec->contrast_value,
		    spec->contrast_lo, spec->contrast_hi);
		sc_param(sc, 1, "offset", spec->offset_value,
		    spec->offset_lo, spec->offset_hi);
		for (a = 0; a < na; a++) {
			sc->ridx[a * 2] = 0;
			sc->ridx[a * 2 + 1] = 1;
			sc->rw[a * 2] = sc->rw[a * 2 + 1] = 1.0;
		}
		break;
	case HET_SCALING_FOURIER:
		if (sc_build_fourier(sc, err) != HET_OK)
			goto fail;
		break;
	default:
		break;
	}
	return sc;
fail:
	het_scaling_free(sc);
	return NULL;
}

void
het_scaling_free(struct het_scaling *sc)
{
	if (sc == NULL)
		return;
	free(sc->phi);
	free(sc->names);
	free(sc->def);
	free(sc->lo);
	free(sc->hi);
	free(sc->ridx);
	free(sc->rw);
	free(sc->fixc);
	free(sc->fixo);
	free(sc->pinv);
	free(sc);
}

enum het_scaling_mode
het_scaling_mode_of(const struct het_scaling *sc)
{
	return sc->spec.mode;
}

size_t
het_scaling_nangles(const struct het_scaling *sc)
{
	return sc->na;
}

size_t
het_scaling_nparams(const struct het_scaling *sc)
{
	return sc->ns;
}

const char *
het_scaling_param_name(const struct het_scaling *sc, size_t k)
{
	return k < sc->ns ? sc->names + k * SC_NAME_LEN : "";
}

void
het_scaling_defaults(const struct het_scaling *sc, double *s)
{
	if (sc->ns > 0)
		memcpy(s, sc->def, sc->ns * sizeof(double));
}

void
het_scaling_bounds(const struct het_scaling *sc, double *lo, double *hi)
{
	if (sc->ns == 0)
		return;
	memcpy(lo, sc->lo, sc->ns * sizeof(double));
	memcpy(hi, sc->hi, sc->ns * sizeof(double));
}

void
het_scaling_param_bounds(const struct het_scaling *sc, size_t k, double *lo,
    double *hi)
{
	*lo = sc->lo[k];
	*hi = sc->hi[k];
}

int
het_scaling_set_constant(struct het_scaling *sc, const double *contrast,
    const double *offset, struct het_error *err)
{
	const struct het_scaling_spec *s = &sc->spec;
	size_t a;

	if (s->mode != HET_SCALING_CONSTANT)
		return het_error_set(err, HET_EINVAL,
		    "scaling: fixed per-angle values need the constant mode, "
		    "not %s", mode_names[s->mode]);
	for (a = 0; a < sc->na; a++) {
		if (!isfinite(contrast[a]) || !isfinite(offset[a]))
			return het_error_set(err, HET_EINVAL,
			    "scaling: contrast or offset of angle %zu is not "
			    "a finite number", a);
		if (contrast[a] < s->contrast_lo ||
		    contrast[a] > s->contrast_hi)
			return het_error_set(err, HET_ERANGE,
			    "scaling: contrast %g of angle %zu lies outside "
			    "[%g, %g]", contrast[a], a, s->contrast_lo,
			    s->contrast_hi);
		if (offset[a] < s->offset_lo || offset[a] > s->offset_hi)
			return het_error_set(err, HET_ERANGE,
			    "scaling: offset %g of angle %zu lies outside "
			    "[%g, %g]", offset[a], a, s->offset_lo,
			    s->offset_hi);
	}
	memcpy(sc->fixc, contrast, sc->na * sizeof(double));
	memcpy(sc->fixo, offset, sc->na * sizeof(double));
	return HET_OK;
}

void
het_scaling_map(const struct het_scaling *sc, const double *s,
    double *contrast, double *offset)
{
	const size_t *ix;
	const double *w;
	double c, o;
	size_t a, k, L = sc->len;

	if (sc->spec.mode == HET_SCALING_CONSTANT) {
		memcpy(contrast, sc->fixc, sc->na * sizeof(double));
		memcpy(offset, sc->fixo, sc->na * sizeof(double));
		return;
	}
	for (a = 0; a < sc->na; a++) {
		ix = sc->ridx + a * 2 * L;
		w = sc->rw + a * 2 * L;
		c = o = 0;
		for (k = 0; k < L; k++) {
			c += w[k] * s[ix[k]];
			o += w[L + k] * s[ix[L + k]];
		}
		contrast[a] = c;
		offset[a] = o;
	}
}

void
het_scaling_rows(const struct het_scaling *sc, size_t a,
    struct het_scaling_row *contrast, struct het_scaling_row *offset)
{
	size_t L = sc->len;

	contrast->n = offset->n = L;
	contrast->idx = sc->ridx + a * 2 * L;
	contrast->w = sc->rw + a * 2 * L;
	offset->idx = contrast->idx + L;
	offset->w = contrast->w + L;
}

int
het_scaling_angle_local(const struct het_scaling *sc)
{
	return sc->spec.mode == HET_SCALING_INDIVIDUAL;
}

void
het_scaling_project(const struct het_scaling *sc, const double *contrast,
    const double *offset, double *s)
{
	double c, o;
	size_t a, k, na = sc->na, m = sc->len;

	switch (sc->spec.mode) {
	case HET_SCALING_INDIVIDUAL:
		memcpy(s, contrast, na * sizeof(double));
		memcpy(s + na, offset, na * sizeof(double));
		break;
	case HET_SCALING_AVERAGED:
		c = o = 0;
		for (a = 0; a < na; a++) {
			c += contrast[a];
			o += offset[a];
		}
		s[0] = c / (double)na;
		s[1] = o / (double)na;
		break;
	case HET_SCALING_FOURIER:
		for (k = 0; k < m; k++) {
			c = o = 0;
			for (a = 0; a < na; a++) {
				c += sc->pinv[k * na + a] * contrast[a];
				o += sc->pinv[k * na + a] * offset[a];
			}
			s[k] = c;
			s[m + k] = o;
		}
		break;
	default:
		break;
	}
}


/*
 * numpy.percentile(v, 100 q) with the default "linear" method on n >= 1
 * sorted values: virtual index q (n - 1), and numpy's two-sided lerp
 * (a + (b - a) t below t = 0.5, b - (b - a)(1 - t) from 0.5 on).
 */
static double
sc_percentile_sorted(const double *v, size_t n, double q)
{
	double h = q * (double)(n - 1), t, d;
	size_t lo;

	if (h >= (double)(n - 1))
		return v[n - 1];
	if (h <= 0)
		return v[0];
	lo = (size_t)floor(h);
	t = h - (double)lo;
	d = v[lo + 1] - v[lo];
	return t >= 0.5 ? v[lo + 1] - d * (1.0 - t) : v[lo] + d * t;
}

/* Percentile of the values v[k] with lag[k] on the wanted side of thr. */
static double
sc_region_percentile(const double *y, const double *lag, size_t n,
    double thr, int above, double q, double *work)
{
	size_t k, m = 0;

	for (k = 0; k < n; k++)
		if (above ? lag[k] >= thr : lag[k] <= thr)
			work[m++] = y[k];
	if (m < SC_EST_REGION) {
		memcpy(work, y, n * sizeof(double));
		m = n;
	}
	qsort(work, m, sizeof(double), het_cmp_double);
	return sc_percentile_sorted(work, m, q);
}

static double
sc_clip(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

int
het_scaling_estimate(const struct het_scaling *sc, size_t n,
    const struct het_pair *pairs, const double *y, double *contrast,
    double *offset, struct het_error *err)
{
	const struct het_scaling_spec *s = &sc->spec;
	double *ya = NULL, *lag = NULL, *work = NULL, thr_hi, thr_lo, o, c;
	size_t *count = NULL, k, a, m, most = 0;
	int rc = HET_OK;

	if ((count = het_alloc_array(sc->na, sizeof(size_t),
	    "estimator counts", err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < n; k++) {
		if (pairs[k].a >= sc->na) {
			rc = het_error_set(err, HET_EINVAL,
			    "scaling estimate: pair %zu refers to angle %u but "
			    "only %zu angles exist", k, (unsigned)pairs[k].a,
			    sc->na);
			goto out;
		}
		if (isfinite(y[k]))
			count[pairs[k].a]++;
	}
	for (a = 0; a < sc->na; a++)
		most = count[a] > most ? count[a] : most;
	ya = het_alloc_array(most, sizeof(double), "estimator values", err);
	lag = het_alloc_array(most, sizeof(double), "estimator lags", err);
	work = het_alloc_array(most, sizeof(double), "estimator work", err);
	if (ya == NULL || lag == NULL || work == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (a = 0; a < sc->na; a++) {
		contrast[a] = (s->contrast_lo + s->contrast_hi) / 2.0;
		offset[a] = (s->offset_lo + s->offset_hi) / 2.0;
		if (count[a] < SC_EST_MIN)
			continue;
		for (k = 0, m = 0; k < n; k++)
			if (pairs[k].a == a && isfinite(y[k])) {
				ya[m] = y[k];
				lag[m++] = (double)pairs[k].j -
				    (double)pairs[k].i;
			}
		memcpy(work, lag, m * sizeof(double));
		qsort(work, m, sizeof(double), het_cmp_double);
		thr_hi = sc_percentile_sorted(work, m, 0.8);
		thr_lo = sc_percentile_sorted(work, m, 0.2);
		o = sc_region_percentile(ya, lag, m, thr_hi, 1, 0.1, work);
		o = sc_clip(o, s->offset_lo, s->offset_hi);
		c = sc_region_percentile(ya, lag, m, thr_lo, 0, 0.9, work) - o;
		contrast[a] = sc_clip(c, s->contrast_lo, s->contrast_hi);
		offset[a] = o;
	}
out:
	free(count);
	free(ya);
	free(lag);
	free(work);
	return rc;
}

const char *
het_scaling_mode_name(enum het_scaling_mode mode)
{
	if ((int)mode < 0 || mode >= HET_SCALING_MODE_COUNT)
		return "unknown";
	return mode_names[mode];
}

int
het_scaling_mode_parse(const char *name, enum het_scaling_mode *mode,
    struct het_error *err)
{
	size_t k;

	for (k = 0; name != NULL && k < HET_SCALING_MODE_COUNT; k++)
		if (strcmp(mode_names[k], name) == 0) {
			*mode = (enum het_scaling_mode)k;
			return HET_OK;
		}
	if (name != NULL && strcmp(name, "independent") == 0) {
		*mode = HET_SCALING_INDIVIDUAL;
		return HET_OK;
	}
	return het_error_set(err, HET_EINVAL,
	    "unknown per-angle scaling mode '%s'; use individual (alias "
	    "independent), constant, averaged or fourier",
	    name != NULL ? name : "(none)");
}
