/*
 * t_core_scaling.c: per-angle contrast/offset modes.
 *
 * Checks, for individual, averaged, constant and fourier: parameter
 * counts, names, defaults and bounds; the map s -> (contrast_a, offset_a)
 * against hand-computed values; the sparse derivative rows against
 * central finite differences of the map; the projection of per-angle
 * values (a Fourier series over 8 angles is recovered exactly, 7 angles
 * with order 3 reproduce arbitrary values); the quantile estimator on a
 * hand-computed example (numpy's percentile semantics) and on synthetic
 * matrices with known contrast and offset; and every error path.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_scaling.h"
#include "tap.h"

#define PI 3.14159265358979323846
#define NA_MAX 16

static const double phi8[8] = {
	-172.4, -131.9, -88.25, -47.7, -3.35, 41.1, 86.8, 133.3
};

static struct het_scaling *
make(enum het_scaling_mode mode, size_t na, const double *phi, int order,
    struct het_error *err)
{
	struct het_scaling_spec sp;

	het_scaling_default_spec(&sp, HET_FAMILY_HETERODYNE, mode, na, phi);
	sp.fourier_order = order;
	return het_scaling_alloc(&sp, err);
}

/*
 * Derivative rows against central differences of the map (exact for a
 * linear map up to rounding): every entry of the dense 2 n_angles x ns
 * Jacobian, including the zeros the sparse rows omit.
 */
static void
check_rows(const struct het_scaling *sc, const double *s0, const char *label)
{
	double s[64], cp[NA_MAX], op[NA_MAX], cm[NA_MAX], om[NA_MAX];
	double dense[2 * NA_MAX][64], fd, worst = 0, h = 1e-3;
	struct het_scaling_row cr, orow;
	size_t ns = het_scaling_nparams(sc), na = het_scaling_nangles(sc);
	size_t a, k, e;

	memset(dense, 0, sizeof(dense));
	for (a = 0; a < na; a++) {
		het_scaling_rows(sc, a, &cr, &orow);
		for (e = 0; e < cr.n; e++)
			dense[a][cr.idx[e]] += cr.w[e];
		for (e = 0; e < orow.n; e++)
			dense[na + a][orow.idx[e]] += orow.w[e];
	}
	for (k = 0; k < ns; k++) {
		memcpy(s, s0, ns * sizeof(double));
		s[k] += h;
		het_scaling_map(sc, s, cp, op);
		s[k] -= 2 * h;
		het_scaling_map(sc, s, cm, om);
		for (a = 0; a < na; a++) {
			fd = (cp[a] - cm[a]) / (2 * h);
			worst = fmax(worst, fabs(fd - dense[a][k]));
			fd = (op[a] - om[a]) / (2 * h);
			worst = fmax(worst, fabs(fd - dense[na + a][k]));
		}
	}
	ok(worst < 1e-10, "%s: derivative rows equal finite differences of "
	    "the map (max |diff| %.2g over %zu x %zu)", label, worst, 2 * na,
	    ns);
}

static void
test_names(void)
{
	struct het_error err;
	enum het_scaling_mode m;

	is_int(het_scaling_mode_parse("fourier", &m, &err), HET_OK,
	    "parse fourier");
	is_int(m, HET_SCALING_FOURIER, "fourier mode");
	het_scaling_mode_parse("independent", &m, &err);
	is_int(m, HET_SCALING_INDIVIDUAL, "independent is individual");
	is_int(het_scaling_mode_parse("auto", &m, &err), HET_EINVAL,
	    "auto is not a scaling mode");
	like(err.msg, "individual (alias independent), constant, averaged or "
	    "fourier", "message lists the modes");
	is_str(het_scaling_mode_name(HET_SCALING_AVERAGED), "averaged",
	    "name of averaged");
}

static void
test_individual(void)
{
	struct het_error err;
	struct het_scaling *sc;
	struct het_scaling_row cr, orow;
	double s[10], lo[10], hi[10], c[5], o[5];
	size_t a;

	sc = make(HET_SCALING_INDIVIDUAL, 5, NULL, 0, &err);
	if (!ok(sc != NULL, "individual scaling builds"))
		return;
	is_int((long long)het_scaling_nparams(sc), 10, "2 n_angles params");
	is_str(het_scaling_param_name(sc, 3), "contrast[3]", "name s[3]");
	is_str(het_scaling_param_name(sc, 8), "offset[3]", "name s[8]");
	het_scaling_defaults(sc, s);
	het_scaling_bounds(sc, lo, hi);
	ok(s[2] == 0.5 && s[7] == 1.0 && lo[2] == 0 && hi[2] == 1 &&
	    lo[7] == 0.5 && hi[7] == 1.5, "defaults 0.5 / 1.0, bounds [0, 1] "
	    "and [0.5, 1.5]");
	ok(het_scaling_angle_local(sc), "individual is angle-local");
	for (a = 0; a < 5; a++) {
		s[a] = 0.2385 + 0.1 * (double)a;
		s[5 + a] = 1.0417 - 0.01 * (double)a;
	}
	het_scaling_map(sc, s, c, o);
	ok(c[3] == s[3] && o[3] == s[8], "angle 3 reads s[3] and s[8]");
	het_scaling_rows(sc, 4, &cr, &orow);
	ok(cr.n == 1 && cr.idx[0] == 4 && cr.w[0] == 1 && orow.n == 1 &&
	    orow.idx[0] == 9 && orow.w[0] == 1, "rows of angle 4: {4}, {9}");
	check_rows(sc, s, "individual");
	het_scaling_free(sc);
}

static void
test_averaged_constant(void)
{
	struct het_error err;
	struct het_scaling *sc;
	struct het_scaling_row cr, orow;
	double s[2] = { 0.3171, 1.0219 }, c[4], o[4];
	double cc[4] = { 0.11, 0.22, 0.33, 0.44 }, oc[4] = { 1.01, 1.02, 1.03,
	    1.04 };

	sc = make(HET_SCALING_AVERAGED, 4, NULL, 0, &err);
	if (!ok(sc != NULL, "averaged scaling builds"))
		return;
	is_int((long long)het_scaling_nparams(sc), 2, "averaged: 2 params");
	is_str(het_scaling_param_name(sc, 1), "offset", "name s[1]");
	het_scaling_map(sc, s, c, o);
	ok(c[0] == s[0] && c[3] == s[0] && o[2] == s[1], "shared by angles");
	ok(!het_scaling_angle_local(sc), "averaged is not angle-local");
	het_scaling_project(sc, cc, oc, s);
	is_double(s[0], 0.275, 1e-15, "project: mean contrast");
	is_double(s[1], 1.025, 1e-15, "project: mean offset");
	check_rows(sc, s, "averaged");
	is_int(het_scaling_set_constant(sc, cc, oc, &err), HET_EINVAL,
	    "fixed values rejected outside the constant mode");
	like(err.msg, "need the constant mode, not averaged", "message");
	het_scaling_free(sc);

	sc = make(HET_SCALING_CONSTANT, 4, NULL, 0, &err);
	if (!ok(sc != NULL, "constant scaling builds"))
		return;
	is_int((long long)het_scaling_nparams(sc), 0, "constant: 0 params");
	het_scaling_map(sc, NULL, c, o);
	ok(c[2] == 0.5 && o[2] == 1.0, "constant starts at the defaults");
	is_int(het_scaling_set_constant(sc, cc, oc, &err), HET_OK,
	    "set fixed values");
	het_scaling_map(sc, NULL, c, o);
	ok(c[1] == 0.22 && o[3] == 1.04, "map returns the fixed values");
	het_scaling_rows(sc, 2, &cr, &orow);
	ok(cr.n == 0 && orow.n == 0, "constant rows are empty");
	oc[2] = 1.7;
	is_int(het_scaling_set_constant(sc, cc, oc, &err), HET_ERANGE,
	    "offset 1.7 out of range");
	like(err.msg, "offset 1.7 of angle 2 lies outside [0.5, 1.5]",
	    "message names angle and bounds");
	oc[2] = NAN;
	is_int(het_scaling_set_constant(sc, cc, oc, &err), HET_EINVAL,
	    "NaN offset rejected");
	het_scaling_map(sc, NULL, c, o);
	ok(o[2] == 1.03, "failed calls leave the values unchanged");
	het_scaling_free(sc);
}

static void
test_fourier(void)
{
	struct het_error err;
	struct het_scaling *sc;
	double s[14], lo[14], hi[14], c[8], o[8], want, back[14], ph, worst;
	const double coef[10] = { 0.4123, 0.0517, -0.0839, 0.0211, 0.0093,
	    1.0382, -0.1174, 0.0625, 0.0309, -0.0241 };
	const double vals_c[7] = { 0.31, 0.47, 0.12, 0.66, 0.29, 0.53, 0.38 };
	const double vals_o[7] = { 1.01, 0.97, 1.12, 1.05, 0.93, 1.00, 1.08 };
	size_t a, k;
	int h;

	sc = make(HET_SCALING_FOURIER, 8, phi8, 2, &err);
	if (!ok(sc != NULL, "fourier K = 2 over 8 angles builds")) {
		diag("%s", err.msg);
		return;
	}
	is_int((long long)het_scaling_nparams(sc), 10, "2 (2K + 1) params");
	ok(strcmp(het_scaling_param_name(sc, 0), "contrast_c0") == 0 &&
	    strcmp(het_scaling_param_name(sc, 2), "contrast_s1") == 0 &&
	    strcmp(het_scaling_param_name(sc, 3), "contrast_c2") == 0 &&
	    strcmp(het_scaling_param_name(sc, 5), "offset_c0") == 0 &&
	    strcmp(het_scaling_param_name(sc, 9), "offset_s2") == 0,
	    "names contrast_c0, contrast_s1, contrast_c2, offset_c0, "
	    "offset_s2");
	het_scaling_bounds(sc, lo, hi);
	ok(lo[0] == 0.01 && hi[0] == 1 && lo[1] == -0.2 && hi[4] == 0.2 &&
	    lo[5] == 0.5 && hi[5] == 1.5 && lo[6] == -0.3 && hi[9] == 0.3,
	    "heterodyne coefficient bounds");
	het_scaling_defaults(sc, s);
	ok(s[0] == 0.5 && s[1] == 0 && s[5] == 1.0 && s[9] == 0,
	    "defaults: c0 0.5, o0 1.0, harmonics 0");
	ok(!het_scaling_angle_local(sc), "fourier is not angle-local");

	/* The map against the series written out. */
	het_scaling_map(sc, coef, c, o);
	worst = 0;
	for (a = 0; a < 8; a++) {
		ph = phi8[a] * PI / 180;
		want = coef[0];
		for (h = 1; h <= 2; h++)
			want += coef[2 * h - 1] * cos(h * ph) +
			    coef[2 * h] * sin(h * ph);
		worst = fmax(worst, fabs(c[a] - want));
		want = coef[5];
		for (h = 1; h <= 2; h++)
			want += coef[5 + 2 * h - 1] * cos(h * ph) +
			    coef[5 + 2 * h] * sin(h * ph);
		worst = fmax(worst, fabs(o[a] - want));
	}
	ok(worst < 1e-15, "map equals the written-out series (phi in "
	    "radians), max |diff| %.2g", worst);
	/* Per-angle values of a known series project back onto it. */
	het_scaling_project(sc, c, o, back);
	worst = 0;
	for (k = 0; k < 10; k++)
		worst = fmax(worst, fabs(back[k] - coef[k]));
	ok(worst < 1e-14, "projection recovers the 10 coefficients from 8 "
	    "angles (max |diff| %.2g)", worst);
	check_rows(sc, coef, "fourier K = 2");
	het_scaling_free(sc);

	/* Square case: 7 angles, order 3 reproduces arbitrary values. */
	sc = make(HET_SCALING_FOURIER, 7, phi8, 3, &err);
	if (!ok(sc != NULL, "fourier K = 3 over 7 angles builds"))
		return;
	het_scaling_project(sc, vals_c, vals_o, s);
	het_scaling_map(sc, s, c, o);
	worst = 0;
	for (a = 0; a < 7; a++)
		worst = fmax(worst, fmax(fabs(c[a] - vals_c[a]),
		    fabs(o[a] - vals_o[a])));
	ok(worst < 1e-13, "7 chosen per-angle values reproduced exactly (max "
	    "|diff| %.2g)", worst);
	check_rows(sc, s, "fourier K = 3");
	het_scaling_free(sc);
}

static void
test_errors(void)
{
	struct het_error err;
	struct het_scaling_spec sp;
	double dup[5] = { 10, 50, 370, 90, 130 }, bad[3] = { 1, NAN, 2 };

	ok(make(HET_SCALING_FOURIER, 8, phi8, 4, &err) == NULL &&
	    err.code == HET_EINVAL, "order 4 needs 9 angles, 8 given");
	like(err.msg, "order 4 has 9 coefficients per quantity but only 8 "
	    "angles are selected; lower fourier_order to at most 3",
	    "message says how to fix it");
	ok(make(HET_SCALING_FOURIER, 8, phi8, 0, &err) == NULL,
	    "order 0 rejected");
	like(err.msg, "fourier_order 0 is out of range", "message");
	ok(make(HET_SCALING_FOURIER, 5, dup, 2, &err) == NULL &&
	    err.code == HET_EINVAL, "10 and 370 degrees coincide");
	like(err.msg, "cannot determine a Fourier series of order 2",
	    "rank-deficient message");
	ok(make(HET_SCALING_FOURIER, 3, bad, 1, &err) == NULL,
	    "NaN angle rejected");
	like(err.msg, "angle 1 is not a finite number", "message");
	ok(make(HET_SCALING_FOURIER, 5, NULL, 2, &err) == NULL,
	    "fourier without angles rejected");
	ok(make(HET_SCALING_INDIVIDUAL, 0, NULL, 0, &err) == NULL,
	    "no angles rejected");
	like(err.msg, "select at least one phi", "message");

	het_scaling_default_spec(&sp, HET_FAMILY_HOMODYNE,
	    HET_SCALING_INDIVIDUAL, 3, NULL);
	sp.contrast_lo = 0.8;
	sp.contrast_hi = 0.2;
	ok(het_scaling_alloc(&sp, &err) == NULL && err.code == HET_EINVAL,
	    "contrast bounds [0.8, 0.2] rejected");
	like(err.msg, "bounds of contrast are [0.8, 0.2]; they must be "
	    "finite with lower < upper", "message");
	het_scaling_default_spec(&sp, HET_FAMILY_HOMODYNE,
	    HET_SCALING_INDIVIDUAL, 3, NULL);
	sp.offset_value = 1.9;
	ok(het_scaling_alloc(&sp, &err) == NULL, "default offset 1.9 outside "
	    "[0.5, 1.5] rejected");
	like(err.msg, "default offset 1.9 lies outside its bounds", "message");
	het_scaling_default_spec(&sp, HET_FAMILY_HOMODYNE,
	    HET_SCALING_FOURIER, 8, phi8);
	sp.ck_max = NAN;
	ok(het_scaling_alloc(&sp, &err) == NULL, "NaN harmonic bound "
	    "rejected");
	like(err.msg, "contrast harmonics", "message names the bound");
	het_scaling_default_spec(&sp, HET_FAMILY_HOMODYNE,
	    HET_SCALING_FOURIER, 8, phi8);
	sp.c0_lo = 0.6;
	ok(het_scaling_alloc(&sp, &err) == NULL, "default contrast 0.5 "
	    "below c0 bound 0.6 rejected");
	like(err.msg, "default contrast_c0 0.5", "message");
}

/* Deterministic noise in [-amp, amp]. */
static double
noise(uint32_t k, double amp)
{
	uint32_t z = k * 2654435761u + 0x2385u;

	z ^= z >> 15;
	z *= 0x2c1b3c6du;
	z ^= z >> 12;
	return amp * (2.0 * (double)(z % 100001u) / 100000.0 - 1.0);
}

static void
test_estimator(void)
{
	struct het_error err;
	struct het_scaling *sc;
	struct het_pair *pr;
	double *y, c[3], o[3], g, lag;
	const double tc[2] = { 0.2385, 0.0617 }, to[2] = { 1.0132, 0.9871 };
	size_t n = 0, N = 80, i, j, a, k;

	sc = make(HET_SCALING_CONSTANT, 3, NULL, 0, &err);
	pr = calloc(3 * N * N, sizeof(*pr));
	y = calloc(3 * N * N, sizeof(*y));
	if (sc == NULL || pr == NULL || y == NULL) {
		ok(0, "estimator setup");
		return;
	}
	/* Angle 0: pairs (0, j), lag j = 1..100, y = 1.5 - 0.004 lag. */
	for (j = 1; j <= 100; j++, n++) {
		pr[n].i = 0;
		pr[n].j = (uint32_t)j;
		pr[n].a = 0;
		y[n] = 1.5 - 0.004 * (double)j;
	}
	/* Angle 1: 99 points only, plus one NaN that must be dropped. */
	for (j = 1; j <= 100; j++, n++) {
		pr[n].i = 0;
		pr[n].j = (uint32_t)j;
		pr[n].a = 1;
		y[n] = j == 50 ? NAN : 1.2;
	}
	het_scaling_estimate(sc, n, pr, y, c, o, &err);
	/*
	 * By hand (numpy linear percentiles): lag P80 = 80.2, so lags 81..100
	 * and offset = P10 of their y = 1.104 + 0.9 * 0.004 = 1.1076; lag
	 * P20 = 20.8, lags 1..20, P90 of their y = 1.488 + 0.1 * 0.004 =
	 * 1.4884, contrast = 1.4884 - 1.1076 = 0.3808.
	 */
	is_double(o[0], 1.1076, 1e-12, "hand example: offset");
	is_double(c[0], 0.3808, 1e-12, "hand example: contrast");
	ok(c[1] == 0.5 && o[1] == 1.0, "99 finite points: bound midpoints");
	ok(c[2] == 0.5 && o[2] == 1.0, "no points: bound midpoints");

	/*
	 * Synthetic matrices, N = 80 (3160 pairs per angle), g = 1 up to lag
	 * 12, a linear ramp to 0 at lag 40, 0 beyond, noise +-0.001: the
	 * small-lag region (lag <= P20 ~ 8.5) sees offset + contrast, the
	 * large-lag region (lag >= P80 ~ 44) sees offset, so both values are
	 * recovered within the noise: tolerance 2e-3.
	 */
	n = 0;
	for (a = 0; a < 2; a++)
		for (i = 0; i < N; i++)
			for (j = i + 1; j < N; j++, n++) {
				lag = (double)(j - i);
				g = lag <= 12 ? 1 : lag >= 40 ? 0 :
				    (40 - lag) / 28;
				pr[n].i = (uint32_t)i;
				pr[n].j = (uint32_t)j;
				pr[n].a = (uint32_t)a;
				y[n] = to[a] + tc[a] * g + noise((uint32_t)n,
				    1e-3);
			}
	het_scaling_estimate(sc, n, pr, y, c, o, &err);
	for (a = 0; a < 2; a++) {
		is_double(c[a], tc[a], 2e-3, "synthetic angle %zu: contrast "
		    "%.4f", a, c[a]);
		is_double(o[a], to[a], 2e-3, "synthetic angle %zu: offset "
		    "%.4f", a, o[a]);
	}
	/* Clipping: offset 0.2 < 0.5, contrast 1.8 - 0.5 = 1.3 > 1. */
	for (k = 0; k < n; k++)
		y[k] = 0.2 + 1.6 * (y[k] - to[pr[k].a]) / tc[pr[k].a];
	het_scaling_estimate(sc, n, pr, y, c, o, &err);
	ok(c[0] == 1.0 && o[0] == 0.5, "estimates clipped to the bounds");
	is_int(het_scaling_set_constant(sc, c, o, &err), HET_OK,
	    "estimates are valid constant values");
	pr[5].a = 7;
	is_int(het_scaling_estimate(sc, n, pr, y, c, o, &err), HET_EINVAL,
	    "pair with angle 7 of 3 rejected");
	like(err.msg, "pair 5 refers to angle 7 but only 3 angles exist",
	    "message");
	free(pr);
	free(y);
	het_scaling_free(sc);
}

int
main(void)
{
	plan_lazy();
	test_names();
	test_individual();
	test_averaged_constant();
	test_fourier();
	test_errors();
	test_estimator();
	return exit_status();
}
