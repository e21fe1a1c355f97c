/*
 * het_model_hom.c: the homodyne kernels (modes static and laminar_flow)
 * with analytic parameter derivatives.
 *
 * The discretisation is homodyne's, term for term (homodyne-spec.md
 * §2-5), so that hetui reproduces it to rounding:
 *
 *	eps     = max(|t_1 - t_0| / 2, 1e-8);  ts_k = t_k > eps ? t_k : eps
 *	D_k     = D0 ts_k^alpha + D_offset,                 floor 1e-10
 *	G_k     = gamma_dot_t0 ts_k^beta + gamma_dot_t_offset, floor 1e-10
 *	S_f[k]  = sum_{m<k} (f_m + f_{m+1}) / 2     (trapezoid, no dt)
 *	I_f     = sqrt((S_f[j] - S_f[i])^2 + 1e-12)
 *	g1_diff = exp(clip(-A I_D, -700, 0)),       A = q^2 dt / 2
 *	Phi     = B cos((phi0 - phi) pi/180) I_G,   B = q L dt / (2 pi)
 *	g1      = g1_diff sinc(Phi)^2  (laminar_flow; static: g1_diff)
 *	g1      floored at 1e-10;  g = g1^2
 *
 * with sinc(x) = sin(x)/x, replaced by 1 - x^2/6 + x^4/120 for
 * |x| < 1e-4.  The homodyne grid starts at t_0 = 0, so the eps floor is
 * what keeps ts_0^alpha and log(ts_0) finite.
 *
 * Derivatives follow the reference's automatic-differentiation semantics:
 * a floor ("where" value > floor) or clip that is active contributes a
 * zero gradient, otherwise the expression is differentiated exactly.
 *
 * Design: prepare() walks the time grid once and stores, per frame k, one
 * 64-byte row {S_D, dS_D/dD0, dS_D/dalpha, dS_D/dD_offset, S_G,
 * dS_G/dgamma_dot_t0, dS_G/dbeta, dS_G/dgamma_dot_t_offset}, plus, per
 * angle, the shear projection cos((phi0 - phi) pi/180) and its phi0
 * derivative.  A pair (i, j) then reads two rows and costs O(n_free).
 * The static mode reads only the first three parameters and never
 * touches the shear half of the rows.
 */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_model_impl.h"
#include "het_util.h"

#define HOM_T_FLOOR	1e-8	/* minimum eps replacing t = 0 */
#define HOM_RATE_FLOOR	1e-10	/* floor of D and gamma_dot */
#define HOM_SABS_EPS	1e-12	/* smooth |x| = sqrt(x^2 + eps) */
#define HOM_LOG_CLIP	(-700.0) /* lower clip of -A I_D */
#define HOM_SINC_TAYLOR	1e-4	/* |x| below which sinc is a series */
#define HOM_G1_FLOOR	1e-10	/* floor of g1 */
#define HOM_PI		3.14159265358979323846

/* Layout of a per-frame row of the tables. */
enum {
	ROW_SD = 0,	/* S_D */
	ROW_DSD,	/* 3 derivatives of S_D: D0, alpha, D_offset */
	ROW_SG = 4,	/* S_G */
	ROW_DSG,	/* 3 derivatives of S_G: gamma0, beta, gamma offset */
	ROW_LEN = 8
};

struct hom_tables {
	size_t	 n;		/* frames N */
	size_t	 na;		/* angles */
	int	 laminar;	/* 1 for laminar_flow */
	double	 A;		/* q^2 dt / 2 */
	double	 B;		/* q L dt / (2 pi) */
	double	*ts;		/* N floored times, s */
	double	*lnts;		/* N values log(ts) */
	double	*row;		/* N * ROW_LEN cumulative integrals */
	double	*cphi;		/* na: cos((phi0 - phi_a) pi/180) */
	double	*dcphi;		/* na: d cphi / d phi0, per degree */
};

static void
hom_tables_free(void *priv)
{
	struct hom_tables *tb = priv;

	if (tb == NULL)
		return;
	free(tb->ts);
	free(tb->lnts);
	free(tb->row);
	free(tb->cphi);
	free(tb->dcphi);
	free(tb);
}

static void *
hom_tables_alloc(const struct het_model *m, struct het_error *err)
{
	struct hom_tables *tb;
	double eps;
	size_t k, n = m->spec.n_frames;

	tb = calloc(1, sizeof(*tb));
	if (tb == NULL) {
		het_error_set(err, HET_ENOMEM, "homodyne model: out of memory");
		return NULL;
	}
	tb->n = n;
	tb->na = m->spec.n_angles;
	tb->laminar = m->spec.mode == HET_MODE_HOM_LAMINAR;
	tb->A = m->spec.q * m->spec.q * m->spec.dt / 2.0;
	tb->B = m->spec.q * m->spec.gap * m->spec.dt / (2.0 * HOM_PI);
	tb->ts = het_alloc_array(n, sizeof(double), "homodyne time table", err);
	tb->lnts = het_alloc_array(n, sizeof(double), "homodyne time table",
	    err);
	tb->row = het_alloc_array(n, ROW_LEN * sizeof(double),
	    "homodyne integral tables", err);
	tb->cphi = het_alloc_array(tb->na, sizeof(double),
	    "homodyne angle table", err);
	tb->dcphi = het_alloc_array(tb->na, sizeof(double),
	    "homodyne angle table", err);
	if (tb->ts == NULL || tb->lnts == NULL || tb->row == NULL ||
	    tb->cphi == NULL || tb->dcphi == NULL) {
		hom_tables_free(tb);
		return NULL;
	}

	/* het_model_alloc guarantees N >= 2. */
	eps = fmax(fabs(m->t[1] - m->t[0]) / 2.0, HOM_T_FLOOR);
	for (k = 0; k < n; k++) {
		tb->ts[k] = m->t[k] > eps ? m->t[k] : eps;
		tb->lnts[k] = log(tb->ts[k]);
	}
	return tb;
}

/*
 * Fill one half of the rows (off = ROW_SD or ROW_SG) for the rate
 * f_k = p0 ts_k^p1 + p2, floored at HOM_RATE_FLOOR.  With deriv set, the
 * three derivative columns are filled as well (zero where the floor is
 * active, as with the reference's "where" floor).
 */
static void
hom_integrate(struct hom_tables *tb, double p0, double p1, double p2,
    size_t off, int deriv)
{
	double f, fprev = 0, df[3], dfprev[3] = { 0, 0, 0 }, pw, *r, *rp;
	size_t k, c;

	for (k = 0; k < tb->n; k++) {
		pw = pow(tb->ts[k], p1);
		f = p0 * pw + p2;
		if (f > HOM_RATE_FLOOR) {
			df[0] = pw;
			df[1] = p0 * pw * tb->lnts[k];
			df[2] = 1.0;
		} else {
			f = HOM_RATE_FLOOR;
			df[0] = df[1] = df[2] = 0.0;
		}
		r = tb->row + k * ROW_LEN + off;
		if (k == 0) {
			r[0] = 0.0;
			if (deriv)
				r[1] = r[2] = r[3] = 0.0;
		} else {
			rp = r - ROW_LEN;
			r[0] = rp[0] + (fprev + f) / 2.0;
			if (deriv)
				for (c = 0; c < 3; c++)
					r[1 + c] = rp[1 + c] +
					    (dfprev[c] + df[c]) / 2.0;
		}
		fprev = f;
		memcpy(dfprev, df, sizeof(df));
	}
}

static int
hom_prepare(struct het_model_eval *ev, struct het_error *err)
{
	struct hom_tables *tb = ev->priv;
	const double *th = ev->theta;
	double ang;
	size_t a;

	(void)err;
	hom_integrate(tb, th[HOM_P_D0], th[HOM_P_ALPHA], th[HOM_P_DOFF],
	    ROW_SD, ev->nfree > 0);
	if (!tb->laminar)
		return HET_OK;
	hom_integrate(tb, th[HOM_P_GAMMA0], th[HOM_P_BETA],
	    th[HOM_P_GAMMA_OFF], ROW_SG, ev->nfree > 0);
	for (a = 0; a < tb->na; a++) {
		ang = (th[HOM_P_PHI0] - ev->m->phi[a]) * HOM_PI / 180.0;
		tb->cphi[a] = cos(ang);
		tb->dcphi[a] = -sin(ang) * HOM_PI / 180.0;
	}
	return HET_OK;
}

/*
 * sinc(x) = sin(x)/x with homodyne's series switch, and its derivative
 * when ds is not NULL (the value-only path skips the cosine).
 */
static inline double
hom_sinc(double x, double *ds)
{
	double x2, s;

	if (fabs(x) < HOM_SINC_TAYLOR) {
		x2 = x * x;
		if (ds != NULL)
			*ds = -x / 3.0 + x * x2 / 30.0;
		return 1.0 - x2 / 6.0 + x2 * x2 / 120.0;
	}
	s = sin(x) / x;
	if (ds != NULL)
		*ds = (cos(x) - s) / x;
	return s;
}

/*
 * One point (any i, j, including i == j).  Writes g and, when full is not
 * NULL, dg/dtheta for all seven homodyne parameters (the static mode
 * leaves the shear entries untouched; callers only read free columns).
 */
static inline double
hom_point(const struct hom_tables *tb, size_t a, size_t i, size_t j,
    double *full)
{
	const double *ri = tb->row + i * ROW_LEN, *rj = tb->row + j * ROW_LEN;
	double dsd, id, x, gd, clip = 1.0, dsg = 0, ig = 0, phi, s, ds = 0;
	double sh = 1.0, dsh = 0.0, g1, kd, kg, kphi;
	size_t c;

	dsd = rj[ROW_SD] - ri[ROW_SD];
	id = sqrt(dsd * dsd + HOM_SABS_EPS);
	x = -tb->A * id;
	if (x < HOM_LOG_CLIP) {
		x = HOM_LOG_CLIP;
		clip = 0.0;
	}
	gd = exp(x);
	if (tb->laminar) {
		dsg = rj[ROW_SG] - ri[ROW_SG];
		ig = sqrt(dsg * dsg + HOM_SABS_EPS);
		phi = tb->B * tb->cphi[a] * ig;
		s = hom_sinc(phi, full != NULL ? &ds : NULL);
		sh = s * s;
		if (full != NULL)
			dsh = 2.0 * s * ds;	/* d sinc^2 / d Phi */
	}
	g1 = gd * sh;
	if (!(g1 > HOM_G1_FLOOR)) {
		if (full != NULL)
			for (c = 0; c < HOM_P_COUNT; c++)
				full[c] = 0.0;
		return HOM_G1_FLOOR * HOM_G1_FLOOR;
	}
	if (full == NULL)
		return g1 * g1;

	/* dg = 2 g1 (sh d gd + gd d sh). */
	kd = clip * 2.0 * g1 * sh * gd * -tb->A * dsd / id;
	for (c = 0; c < 3; c++)
		full[HOM_P_D0 + c] = kd * (rj[ROW_DSD + c] - ri[ROW_DSD + c]);
	if (tb->laminar) {
		kg = 2.0 * g1 * gd * dsh * tb->B * tb->cphi[a] * dsg / ig;
		for (c = 0; c < 3; c++)
			full[HOM_P_GAMMA0 + c] = kg *
			    (rj[ROW_DSG + c] - ri[ROW_DSG + c]);
		kphi = 2.0 * g1 * gd * dsh * tb->B * tb->dcphi[a] * ig;
		full[HOM_P_PHI0] = kphi;
	}
	return g1 * g1;
}

static void
hom_pairs(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, double *g, double *dg)
{
	const struct hom_tables *tb = ev->priv;
	double full[HOM_P_COUNT];
	size_t k, c, nf = ev->nfree;

	for (k = 0; k < n; k++) {
		assert(pairs[k].i < pairs[k].j && pairs[k].j < tb->n &&
		    pairs[k].a < tb->na);
		if (dg == NULL) {
			g[k] = hom_point(tb, pairs[k].a, pairs[k].i,
			    pairs[k].j, NULL);
			continue;
		}
		g[k] = hom_point(tb, pairs[k].a, pairs[k].i, pairs[k].j,
		    full);
		for (c = 0; c < nf; c++)
			dg[k * nf + c] = full[ev->free_idx[c]];
	}
}

static double
hom_g(const struct het_model_eval *ev, size_t a, size_t i, size_t j)
{
	const struct hom_tables *tb = ev->priv;

	assert(i < tb->n && j < tb->n && a < tb->na);
	return hom_point(tb, a, i, j, NULL);
}

/* Static mode is separable (rank 1); laminar_flow is not (sinc). */
static size_t
hom_sep_terms(const struct het_model *m)
{
	return m->spec.mode == HET_MODE_HOM_STATIC ? 1 : 0;
}

/*
 * g = g1^2 = exp(-2 A (S_D[j] - S_D[i])): one term with P = Q = 1 and
 * L = 2 A S_D (the g1 floor and the -700 clip lie below 1e-20).
 */
static void
hom_sep(const struct het_model_eval *ev, struct het_model_sep *s)
{
	const struct hom_tables *tb = ev->priv;
	size_t k;

	s->nterm = 1;
	s->osc = -1;
	s->rho[0][0] = 1.0;	/* S_D rises by >= 1e-10 per frame */
	for (k = 0; k < tb->n; k++) {
		s->P[0][k] = s->Q[0][k] = 1.0;
		s->L[0][k] = 2.0 * tb->A * tb->row[k * ROW_LEN + ROW_SD];
	}
}

static void
hom_sep_adjoint(const struct het_model_eval *ev,
    const struct het_model_sep *adj, double *gfree)
{
	const struct hom_tables *tb = ev->priv;
	size_t k, c, p;

	for (c = 0; c < ev->nfree; c++) {
		p = ev->free_idx[c];
		assert(p < 3);
		for (k = 0; k < tb->n; k++)
			gfree[c] += 2.0 * tb->A * adj->L[0][k] *
			    tb->row[k * ROW_LEN + ROW_DSD + p];
	}
}

static void
hom_sep_tangent(const struct het_model_eval *ev, const double *dir,
    struct het_model_sep *tan)
{
	const struct hom_tables *tb = ev->priv;
	const double *row;
	size_t k, c;
	double v;

	tan->nterm = 1;
	tan->osc = -1;
	for (k = 0; k < tb->n; k++) {
		row = tb->row + k * ROW_LEN + ROW_DSD;
		v = 0.0;
		for (c = 0; c < ev->nfree; c++)
			v += dir[c] * row[ev->free_idx[c]];
		tan->P[0][k] = tan->Q[0][k] = 0.0;
		tan->L[0][k] = 2.0 * tb->A * v;
	}
}

const struct het_model_ops het_model_hom_ops = {
	hom_tables_alloc,
	hom_tables_free,
	hom_prepare,
	hom_pairs,
	NULL,		/* no fused least-squares pass: het_resid uses rows */
	NULL,
	hom_sep_terms,
	hom_sep,
	hom_sep_adjoint,
	hom_sep_tangent,
	hom_g
};
