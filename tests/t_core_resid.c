/*
 * t_core_resid.c: the fitting problem (model + per-angle scaling + data).
 *
 * Checks:
 *   - residuals and dense Jacobian rows of the composed problem against
 *     Richardson central differences, for homodyne laminar_flow and
 *     heterodyne two_component, each with individual and fourier
 *     scaling (and homodyne static with averaged scaling, no weights),
 *     with some physics and scaling parameters held fixed;
 *   - the compact Jacobian reassembled with the sparse scaling rows equals
 *     the dense rows;
 *   - chunked evaluation, with any scratch size and from four threads on
 *     disjoint chunks, equals one-pass evaluation bit for bit;
 *   - residual-only preparation, model values, the full model matrix,
 *     parameter names, bounds, x0/unpack, and every error path.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_resid.h"
#include "tap.h"

#define NF	14	/* frames */
#define NA	8	/* angles */

static const double phi8[NA] = {
	-171.3, -128.85, -86.4, -43.95, -1.5, 40.95, 83.4, 125.85
};

/* High-entropy parameter sets away from every floor and clip. */
static const double theta_hom[HOM_P_COUNT] = {
	2385.0, -0.613, 37.1, 0.00173, 0.437, 0.00021, 4.17
};
static const double theta_het[HET_P_HET_COUNT] = {
	12385.0, 0.313, 151.7, 8713.0, -0.417, 233.9, 1517.0, 0.219, 12.7,
	0.413, 0.0519, 0.317, 0.1093, 3.31
};

#define DB sizeof(double)

static double *
dalloc(size_t n)
{
	return calloc(n == 0 ? 1 : n, DB);
}

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		 pairs[NA * NF * (NF - 1) / 2];
	double			 y[NA * NF * (NF - 1) / 2];
	double			 w[NA * NF * (NF - 1) / 2];
	size_t			 n;
};

static void
prob_fini(struct prob *P)
{
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	memset(P, 0, sizeof(*P));
}

/*
 * Build a problem over all pairs of all angles.  y is an arbitrary
 * smooth surface near 1.1 (the Jacobian does not depend on it).
 */
static int
prob_init(struct prob *P, enum het_mode mode, enum het_scaling_mode smode,
    const unsigned char *fr, const unsigned char *sfr, int weights,
    struct het_error *err)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	size_t a, i, j;
	int het = het_mode_family(mode) == HET_FAMILY_HETERODYNE;

	memset(P, 0, sizeof(*P));
	memset(&ms, 0, sizeof(ms));
	ms.mode = mode;
	ms.q = het ? 0.0051 : 0.0087;
	ms.dt = het ? 0.0123 : 0.053;
	ms.start_frame = 3;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi8;
	ms.gap = 2e6;
	het_scaling_default_spec(&ss, het_mode_family(mode), smode, NA, phi8);
	if ((P->m = het_model_alloc(&ms, err)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, err)) == NULL)
		goto fail;
	for (a = 0; a < NA; a++)
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, P->n++) {
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n].a = (uint32_t)a;
				P->y[P->n] = 1.1 + 0.05 * sin(0.7 * (double)a +
				    0.3 * (double)i) * exp(-0.1 * (double)(j -
				    i));
				P->w[P->n] = 0.5 + (double)(P->n % 7) / 5;
			}
	memset(&rs, 0, sizeof(rs));
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = het ? theta_het : theta_hom;
	rs.free = fr;
	rs.s_free = sfr;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	rs.w = weights ? P->w : NULL;
	if ((P->r = het_resid_alloc(&rs, err)) == NULL)
		goto fail;
	return 0;
fail:
	prob_fini(P);
	return -1;
}

/* Scaling values off their defaults, so contrast/offset differ by angle. */
static void
x_start(const struct prob *P, double *x)
{
	size_t k, p = het_resid_nparams(P->r), nfp = het_resid_nphys_free(P->r);

	het_resid_x0(P->r, x);
	for (k = nfp; k < p; k++)
		x[k] += 0.0137 * sin(2.1 * (double)k + 0.4);
}

static int
eval_res(struct het_resid_eval *ev, struct het_resid_scratch *scr,
    const struct prob *P, const double *x, double *res)
{
	struct het_error err;

	if (het_resid_prepare(ev, x, 0, &err) != HET_OK) {
		diag("prepare: %s", err.msg);
		return -1;
	}
	het_resid_eval_rows(ev, scr, 0, P->n, res, NULL);
	return 0;
}

/*
 * Dense Jacobian against Richardson central differences; entries pass
 * with |an - fd| <= 1e-6 max(|an|, |fd|) + 30 eps w (|offset| + |c2| +
 * |y|) / h + 1e-10 * w / scale (rounding of the residual, and a floor
 * far below the natural scale for entries that cancel).
 */
static void
fd_problem(const char *label, const struct prob *P)
{
	struct het_error err;
	struct het_resid_eval *ev;
	struct het_resid_scratch *scr;
	size_t p = het_resid_nparams(P->r), n = P->n, k, c, s, bad = 0;
	size_t resolved = 0, compared = 0, nonzero = 0;
	double *x, *lo, *hi, *J, *r0, *rp[4], h, scale, d1, d2, fd, an, tol;
	double worst = 0, xs;
	const double mul[4] = { 1, -1, 0.5, -0.5 };

	ev = het_resid_eval_alloc(P->r, &err);
	scr = het_resid_scratch_alloc(P->r, 64, &err);
	x = dalloc(p);
	lo = dalloc(p);
	hi = dalloc(p);
	J = dalloc(n * p);
	r0 = dalloc(n);
	for (s = 0; s < 4; s++)
		rp[s] = dalloc(n);
	if (ev == NULL || scr == NULL) {
		ok(0, "%s: evaluation workspace (%s)", label, err.msg);
		goto out;
	}
	x_start(P, x);
	het_resid_bounds(P->r, lo, hi);
	if (het_resid_prepare(ev, x, 1, &err) != HET_OK) {
		ok(0, "%s: prepare (%s)", label, err.msg);
		goto out;
	}
	het_resid_eval_rows(ev, scr, 0, n, r0, J);
	for (c = 0; c < p; c++) {
		scale = fmax(fabs(x[c]), 1e-3 * (hi[c] - lo[c]));
		h = 5e-5 * scale;
		for (s = 0; s < 4; s++) {
			xs = x[c];
			x[c] += mul[s] * h;
			eval_res(ev, scr, P, x, rp[s]);
			x[c] = xs;
		}
		for (k = 0; k < n; k++) {
			d1 = (rp[0][k] - rp[1][k]) / (2 * h);
			d2 = (rp[2][k] - rp[3][k]) / h;
			fd = (4 * d2 - d1) / 3;
			an = J[k * p + c];
			tol = 30 * DBL_EPSILON * P->w[k] * (2.5 +
			    fabs(P->y[k])) / h + 1e-10 * P->w[k] / scale;
			compared++;
			nonzero += an != 0 || fd != 0;
			if (!isfinite(an) || fabs(an - fd) > 1e-6 *
			    fmax(fabs(an), fabs(fd)) + tol) {
				if (bad++ < 3)
					diag("%s: column %zu (%s) datum %zu: "
					    "analytic %.10g fd %.10g", label, c,
					    het_resid_param_name(P->r, c), k,
					    an, fd);
				continue;
			}
			if (1e-6 * fabs(an) > tol) {
				resolved++;
				worst = fmax(worst, fabs(an - fd) /
				    fmax(fabs(an), fabs(fd)));
			}
		}
	}
	ok(bad == 0 && resolved >= nonzero / 2, "%s: %zu x %zu Jacobian "
	    "agrees with finite differences (%zu nonzero, %zu resolved to "
	    "1e-6, worst rel %.2g)", label, n, p, nonzero, resolved, worst);
out:
	for (s = 0; s < 4; s++)
		free(rp[s]);
	free(x);
	free(lo);
	free(hi);
	free(J);
	free(r0);
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
}

/* Compact form plus sparse scaling rows reassembles the dense rows. */
static void
compact_vs_dense(const char *label, const struct prob *P)
{
	struct het_error err;
	struct het_resid_eval *ev = het_resid_eval_alloc(P->r, &err);
	struct het_resid_scratch *scr = het_resid_scratch_alloc(P->r, 33, &err);
	struct het_scaling_row cr, orow;
	size_t p = het_resid_nparams(P->r), nfp = het_resid_nphys_free(P->r);
	size_t n = P->n, k, c, e;
	double *x = dalloc(p), *J = dalloc(n * p);
	double *Jp = dalloc(n * (nfp + 1)), *dc = dalloc(n);
	double *r1 = dalloc(n), *r2 = dalloc(n), *row = dalloc(p);
	double worst = 0, w;
	long col;
	int same_phys = 1;

	if (ev == NULL || scr == NULL) {
		ok(0, "%s: workspace (%s)", label, err.msg);
		goto out;
	}
	x_start(P, x);
	het_resid_prepare(ev, x, 1, &err);
	het_resid_eval_rows(ev, scr, 0, n, r1, J);
	het_resid_eval_compact(ev, scr, 0, n, r2, Jp, dc);
	for (k = 0; k < n; k++) {
		w = het_resid_weight(P->r, k);
		memset(row, 0, p * sizeof(double));
		memcpy(row, Jp + k * nfp, nfp * sizeof(double));
		het_scaling_rows(P->sc, P->pairs[k].a, &cr, &orow);
		for (e = 0; e < cr.n; e++)
			if ((col = het_resid_scal_col(P->r, cr.idx[e])) >= 0)
				row[col] += dc[k] * cr.w[e];
		for (e = 0; e < orow.n; e++)
			if ((col = het_resid_scal_col(P->r, orow.idx[e])) >= 0)
				row[col] += w * orow.w[e];
		for (c = 0; c < p; c++) {
			if (c < nfp && row[c] != J[k * p + c])
				same_phys = 0;
			worst = fmax(worst, fabs(row[c] - J[k * p + c]) /
			    fmax(1e-300, fabs(J[k * p + c]) + 1e-300));
		}
	}
	ok(same_phys && worst < 1e-13 && memcmp(r1, r2, n * DB) == 0,
	    "%s: compact Jacobian + scaling rows = dense rows (physics "
	    "identical, scaling rel %.2g), same residuals", label, worst);
out:
	free(x);
	free(J);
	free(Jp);
	free(dc);
	free(r1);
	free(r2);
	free(row);
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
}

struct chunk_job {
	const struct het_resid_eval	*ev;
	const struct het_resid		*r;
	size_t				 first, n, p;
	double				*res, *J;
	int				 ok;
};

static void *
chunk_worker(void *arg)
{
	struct chunk_job *cj = arg;
	struct het_error err;
	struct het_resid_scratch *scr;

	/* Each thread its own scratch; block size 5 forces sub-blocks. */
	if ((scr = het_resid_scratch_alloc(cj->r, 5, &err)) == NULL)
		return NULL;
	het_resid_eval_rows(cj->ev, scr, cj->first, cj->n,
	    cj->res + cj->first, cj->J + cj->first * cj->p);
	het_resid_scratch_free(scr);
	cj->ok = 1;
	return NULL;
}

static void
chunked(const char *label, const struct prob *P)
{
	struct het_error err;
	struct het_resid_eval *ev = het_resid_eval_alloc(P->r, &err);
	struct het_resid_scratch *big, *one;
	struct chunk_job cj[4];
	pthread_t th[4];
	size_t p = het_resid_nparams(P->r), n = P->n, first, len, t;
	size_t cuts[5];
	double *x = dalloc(p), *r1 = dalloc(n), *J1 = dalloc(n * p);
	double *r2 = dalloc(n), *J2 = dalloc(n * p);
	double *r3 = dalloc(n), *J3 = dalloc(n * p), *r4 = dalloc(n);
	double *c2 = dalloc(n), *mat = dalloc(NF * NF), worst = 0;
	const double *con, *off;
	int all_ok = 1;
	size_t k, i;

	big = het_resid_scratch_alloc(P->r, n, &err);
	one = het_resid_scratch_alloc(P->r, 1, &err);
	if (ev == NULL || big == NULL || one == NULL) {
		ok(0, "%s: workspace (%s)", label, err.msg);
		goto out;
	}
	x_start(P, x);
	het_resid_prepare(ev, x, 1, &err);
	het_resid_eval_rows(ev, big, 0, n, r1, J1);
	/* Irregular chunks, one pair per internal block. */
	for (first = 0, len = 1; first < n; first += len, len = len * 3 % 17 +
	    1) {
		if (first + len > n)
			len = n - first;
		het_resid_eval_rows(ev, one, first, len, r2 + first,
		    J2 + first * p);
	}
	ok(memcmp(r1, r2, n * DB) == 0 && memcmp(J1, J2, n * p * DB) == 0,
	    "%s: irregular chunks with 1-pair blocks equal one pass bit for "
	    "bit", label);
	cuts[0] = 0;
	cuts[1] = n / 7;
	cuts[2] = n / 2 + 3;
	cuts[3] = n - 11;
	cuts[4] = n;
	for (t = 0; t < 4; t++) {
		cj[t].ev = ev;
		cj[t].r = P->r;
		cj[t].first = cuts[t];
		cj[t].n = cuts[t + 1] - cuts[t];
		cj[t].p = p;
		cj[t].res = r3;
		cj[t].J = J3;
		cj[t].ok = 0;
		pthread_create(&th[t], NULL, chunk_worker, &cj[t]);
	}
	for (t = 0; t < 4; t++) {
		pthread_join(th[t], NULL);
		all_ok = all_ok && cj[t].ok;
	}
	ok(all_ok && memcmp(r1, r3, n * DB) == 0 &&
	    memcmp(J1, J3, n * p * DB) == 0, "%s: four threads on "
	    "disjoint chunks equal one pass bit for bit", label);

	/* Residual-only preparation gives the same residuals. */
	het_resid_prepare(ev, x, 0, &err);
	het_resid_eval_rows(ev, big, 0, n, r4, NULL);
	ok(memcmp(r1, r4, n * DB) == 0, "%s: residual-only prepare gives "
	    "the same residuals", label);
	/* Model values and residuals agree: r = w (c2 - y). */
	het_resid_eval_model(ev, 0, n, c2);
	for (k = 0; k < n; k++)
		worst = fmax(worst, fabs(het_resid_weight(P->r, k) *
		    (c2[k] - P->y[k]) - r1[k]));
	ok(worst < 1e-14, "%s: residual = w (model c2 - y) (max |diff| %.2g)",
	    label, worst);
	/* The full matrix of angle 5: upper triangle = model values. */
	het_resid_model_matrix(ev, 5, mat);
	het_resid_angle_scaling(ev, &con, &off);
	worst = 0;
	for (k = 0; k < n; k++)
		if (P->pairs[k].a == 5) {
			i = P->pairs[k].i;
			worst = fmax(worst, fabs(mat[i * NF + P->pairs[k].j] -
			    c2[k]));
			worst = fmax(worst, fabs(mat[P->pairs[k].j * NF + i] -
			    c2[k]));
		}
	ok(worst < 1e-14 && fabs(mat[3 * NF + 3] - off[5] - con[5]) < 1e-5 *
	    fabs(con[5]), "%s: model matrix of angle 5 matches the pairs "
	    "(%.2g) and has offset + contrast on the diagonal", label, worst);
out:
	free(x);
	free(r1);
	free(J1);
	free(r2);
	free(J2);
	free(r3);
	free(J3);
	free(r4);
	free(c2);
	free(mat);
	het_resid_scratch_free(big);
	het_resid_scratch_free(one);
	het_resid_eval_free(ev);
}

static void
test_homodyne(void)
{
	struct het_error err;
	struct prob P;
	unsigned char fr[HOM_P_COUNT] = { 1, 1, 1, 1, 0, 1, 1 };
	unsigned char sfr[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
	double x[32], th[HOM_P_COUNT], s[10], lo[32], hi[32];
	size_t k;

	if (prob_init(&P, HET_MODE_HOM_LAMINAR, HET_SCALING_INDIVIDUAL, NULL,
	    NULL, 1, &err) != 0) {
		ok(0, "homodyne individual problem (%s)", err.msg);
		return;
	}
	is_int((long long)het_resid_nparams(P.r), 7 + 16, "laminar + "
	    "individual: 23 parameters");
	is_str(het_resid_param_name(P.r, 3), "gamma_dot_t0", "x[3] name");
	is_str(het_resid_param_name(P.r, 7 + 9), "offset[1]", "x[16] name");
	het_resid_bounds(P.r, lo, hi);
	ok(lo[0] == 100 && hi[0] == 100000 && lo[16] == 0.5 && hi[16] == 1.5,
	    "bounds from the tables");
	fd_problem("homodyne laminar_flow + individual", &P);
	compact_vs_dense("homodyne laminar_flow + individual", &P);
	chunked("homodyne laminar_flow + individual", &P);
	prob_fini(&P);

	if (prob_init(&P, HET_MODE_HOM_LAMINAR, HET_SCALING_FOURIER, fr, sfr,
	    1, &err) != 0) {
		ok(0, "homodyne fourier problem (%s)", err.msg);
		return;
	}
	ok(het_resid_nparams(P.r) == 6 + 9 && het_resid_nphys_free(P.r) == 6 &&
	    het_resid_nscal_free(P.r) == 9, "beta and offset_s2 fixed: 15 "
	    "parameters");
	ok(het_resid_phys_col(P.r, HOM_P_BETA) == -1 &&
	    het_resid_phys_col(P.r, HOM_P_GAMMA_OFF) == 4 &&
	    het_resid_scal_col(P.r, 9) == -1 && het_resid_scal_col(P.r, 5) ==
	    11, "column maps skip the fixed parameters");
	is_str(het_resid_param_name(P.r, 8), "contrast_s1", "x[8] name");
	x_start(&P, x);
	het_resid_unpack(P.r, x, th, s);
	ok(th[HOM_P_BETA] == theta_hom[HOM_P_BETA] && th[HOM_P_PHI0] == x[5] &&
	    s[9] == 0 && s[5] == x[11], "unpack fills fixed values from the "
	    "problem");
	fd_problem("homodyne laminar_flow + fourier", &P);
	compact_vs_dense("homodyne laminar_flow + fourier", &P);
	chunked("homodyne laminar_flow + fourier", &P);
	prob_fini(&P);

	if (prob_init(&P, HET_MODE_HOM_STATIC, HET_SCALING_AVERAGED, NULL,
	    NULL, 0, &err) != 0) {
		ok(0, "homodyne static problem (%s)", err.msg);
		return;
	}
	/* Without weights every w is 1. */
	for (k = 0; k < P.n; k++)
		P.w[k] = 1.0;
	fd_problem("homodyne static + averaged, no weights", &P);
	chunked("homodyne static + averaged, no weights", &P);
	prob_fini(&P);
}

static void
test_heterodyne(void)
{
	struct het_error err;
	struct prob P;
	unsigned char fr[HET_P_HET_COUNT];

	if (prob_init(&P, HET_MODE_TWO_COMPONENT, HET_SCALING_INDIVIDUAL,
	    NULL, NULL, 1, &err) != 0) {
		ok(0, "heterodyne individual problem (%s)", err.msg);
		return;
	}
	is_int((long long)het_resid_nparams(P.r), 14 + 16, "two_component + "
	    "individual: 30 parameters");
	fd_problem("heterodyne two_component + individual", &P);
	compact_vs_dense("heterodyne two_component + individual", &P);
	chunked("heterodyne two_component + individual", &P);
	prob_fini(&P);

	memset(fr, 1, sizeof(fr));
	fr[HET_P_F3] = 0;
	if (prob_init(&P, HET_MODE_TWO_COMPONENT, HET_SCALING_FOURIER, fr,
	    NULL, 1, &err) != 0) {
		ok(0, "heterodyne fourier problem (%s)", err.msg);
		return;
	}
	fd_problem("heterodyne two_component + fourier", &P);
	compact_vs_dense("heterodyne two_component + fourier", &P);
	chunked("heterodyne two_component + fourier", &P);
	prob_fini(&P);
}

static void
test_errors(void)
{
	struct het_error err;
	struct prob P;
	struct het_resid_spec rs;
	struct het_resid_eval *ev;
	struct het_resid *empty;
	struct het_scaling_spec ss;
	struct het_scaling *sc3;
	double x[32], th[HOM_P_COUNT];

	if (prob_init(&P, HET_MODE_HOM_LAMINAR, HET_SCALING_INDIVIDUAL, NULL,
	    NULL, 1, &err) != 0) {
		ok(0, "problem for the error tests (%s)", err.msg);
		return;
	}
	memset(&rs, 0, sizeof(rs));
	rs.model = P.m;
	rs.scaling = P.sc;
	rs.theta = theta_hom;
	rs.n = P.n;
	rs.pairs = P.pairs;
	rs.y = P.y;
	rs.w = P.w;

	P.pairs[17].i = P.pairs[17].j;
	ok(het_resid_alloc(&rs, &err) == NULL && err.code == HET_EINVAL,
	    "pair with i == j rejected");
	like(err.msg, "datum 17 is pair (angle 0, frames", "names the datum");
	P.pairs[17].i = 0;
	P.pairs[17].j = NF;
	ok(het_resid_alloc(&rs, &err) == NULL, "frame j = N rejected");
	P.pairs[17].j = 5;
	P.pairs[17].a = NA;
	ok(het_resid_alloc(&rs, &err) == NULL, "angle = n_angles rejected");
	like(err.msg, "pairs need frame i < j < 14 and angle < 8", "message");
	P.pairs[17].a = 0;
	P.y[40] = NAN;
	ok(het_resid_alloc(&rs, &err) == NULL && err.code == HET_EDATA,
	    "non-finite y rejected");
	like(err.msg, "observed c2 of datum 40", "message names the datum");
	P.y[40] = 1.1;
	P.w[41] = -0.5;
	ok(het_resid_alloc(&rs, &err) == NULL && err.code == HET_EDATA,
	    "negative weight rejected");
	like(err.msg, "weight -0.5 of datum 41", "message");
	P.w[41] = 1;
	memcpy(th, theta_hom, sizeof(th));
	th[2] = INFINITY;
	rs.theta = th;
	ok(het_resid_alloc(&rs, &err) == NULL, "infinite D_offset rejected");
	like(err.msg, "parameter D_offset = inf is not finite", "message");
	rs.theta = theta_hom;
	het_scaling_default_spec(&ss, HET_FAMILY_HOMODYNE,
	    HET_SCALING_INDIVIDUAL, 3, NULL);
	sc3 = het_scaling_alloc(&ss, &err);
	rs.scaling = sc3;
	ok(het_resid_alloc(&rs, &err) == NULL, "3-angle scaling on an "
	    "8-angle model rejected");
	like(err.msg, "the scaling has 3 angles but the model has 8",
	    "message");
	het_scaling_free(sc3);
	rs.scaling = P.sc;
	rs.model = NULL;
	ok(het_resid_alloc(&rs, &err) == NULL && err.code == HET_EINVAL,
	    "missing model rejected");
	ok(het_resid_scratch_alloc(P.r, 0, &err) == NULL, "scratch of 0 "
	    "pairs rejected");
	like(err.msg, "at least one pair", "message");
	ev = het_resid_eval_alloc(P.r, &err);
	x_start(&P, x);
	x[9] = NAN;
	is_int(het_resid_prepare(ev, x, 1, &err), HET_EINVAL, "NaN in x "
	    "rejected");
	like(err.msg, "parameter contrast[2] = nan is not finite",
	    "message names the parameter");
	het_resid_eval_free(ev);
	rs.model = P.m;
	rs.n = 0;
	ok((empty = het_resid_alloc(&rs, &err)) != NULL &&
	    het_resid_ndata(empty) == 0, "an empty problem is valid");
	het_resid_free(empty);
	prob_fini(&P);
}

int
main(void)
{
	plan_lazy();
	test_homodyne();
	test_errors();
	test_heterodyne();
	return exit_status();
}
