/*
 * het_model_het.c: the heterodyne two-component kernel (He et al., PNAS
 * 2025 SI Eq. S-95) and its analytic derivatives.
 *
 * Physics, exactly as the reference discretises it (heterodyne-spec.md
 * §1.1-1.4), on the absolute grid t_k = (start_frame + k) dt:
 *
 *	P(t, a)  = max(t, 1e-10)^a for t > 0, and 0 for t <= 0
 *	J_r      = max(D0_ref P(t, alpha_ref) + D_offset_ref, 0), J_s alike
 *	v        = v0 P(t, beta) + v_offset                 (not floored)
 *	S_k      = dt sum_{m<k} (f_m + f_{m+1}) / 2          (S_0 = 0)
 *	x_s      = clip(f0 exp(clip(f1 (t - f2), -100, 100)) + f3, 0, 1)
 *	x_r      = 1 - x_s,  n_k = x_s^2 + x_r^2
 *	h        = exp(clip(-q^2/2 sabs(S[j] - S[i]), -700, 0)),
 *	           sabs(x) = sqrt(x^2 + 1e-12)
 *	Phi      = q cos(deg2rad(phi + phi0)) (Sv[j] - Sv[i])
 *	g        = (u^2 + w^2 + 2 u w cos Phi) / floor(n_i n_j, 1e-10)
 *	           u = x_r,i x_r,j h_r,  w = x_s,i x_s,j h_s
 *
 * The three heterodyne modes (static_ref, static_both, two_component)
 * all evaluate this 14-parameter kernel; a mode only changes which
 * parameters are free.
 *
 * Design.  prepare() walks the time grid once and stores one row per
 * frame: the cumulative integrals Sr, Ss, Sv, the fractions x_s, x_r,
 * n, and one derivative column per free parameter (dS/dtheta of the
 * integral the parameter enters, or dx_s/dtheta for f0..f3).  Because
 * the trapezoid rule is linear, dS/dtheta is the cumulative trapezoid
 * of dJ/dtheta, so a pair needs only the difference of two table
 * entries per column: d Ir/d theta = (dSr/Ir) (D[j] - D[i]).  A pair
 * then costs two exp, two sqrt, one division, one cos (and sin for the
 * derivatives) and O(n_free) multiply-adds; pairs that share (i, j)
 * with the previous pair (angle innermost) reuse everything but the
 * phase, which halves the cost.  The tables are read-only during
 * het_het_pairs, so any number of threads may evaluate disjoint pair
 * lists at once.
 *
 * Non-smooth points follow JAX's derivative rules, which the reference
 * relies on: d max(x, 0)/dx is 1 above, 0 below and 1/2 at x == 0
 * (lax.max splits ties); jnp.clip(x, lo, hi) = min(max(x, lo), hi) has
 * derivative 1 inside, 0 outside and 1/2 on a bound; the normaliser
 * floor where(n > 1e-10, n, 1e-10) passes the derivative only where
 * n > 1e-10; P has zero derivative where t <= 0.  The 1/2 at ties is
 * what a central difference sees, so the tests can check it.
 */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_model_impl.h"
#include "het_util.h"

#include "het_model_het_impl.h"

/*
 * The quantities of one (i, j) that do not depend on the angle; g of an
 * angle is then (rs + x2 cos Phi) / nn.
 */
struct het_het_ij {
	double	rs;	/* (x_r,i x_r,j)^2 h_r^2 + (x_s,i x_s,j)^2 h_s^2 */
	double	x2;	/* 2 (x_r,i x_s,i)(x_r,j x_s,j) h_r h_s */
	double	nn;	/* floor(n_i n_j, 1e-10) */
	double	v;	/* Sv[j] - Sv[i] */
	/* for the derivatives only */
	double	u, w;	/* x_r,i x_r,j h_r and x_s,i x_s,j h_s */
	double	hr, hs;	/* half-transport factors */
	double	inv;	/* 1 / nn */
	double	kr, ks;	/* d g/d(Sr[j] - Sr[i]) / (u + w cos Phi), alike */
	double	nfac;	/* 2 / nn where the floor passes, else 0 */
};

static void	het_het_tables_free(void *);

static int
het_het_group(size_t p)
{
	if (p <= HET_P_DOFF_REF)
		return HG_REF;
	if (p <= HET_P_DOFF_SAMPLE)
		return HG_SMP;
	if (p <= HET_P_V_OFFSET)
		return HG_VEL;
	if (p <= HET_P_F3)
		return HG_FRAC;
	return HG_PHI0;
}

/* d max(x, 0) / dx with JAX's tie rule. */
static double
het_het_dmax0(double x)
{
	if (x > 0)
		return 1.0;
	return x == 0 ? 0.5 : 0.0;
}

/* clip(x, lo, hi) and its derivative (JAX jnp.clip rule) in *d. */
static double
het_het_clip(double x, double lo, double hi, double *d)
{
	if (x > lo && x < hi) {
		*d = 1.0;
		return x;
	}
	if (x == lo || x == hi) {
		*d = 0.5;
		return x;
	}
	*d = 0.0;
	return x < lo ? lo : hi;
}

/* P(t, a) = max(t, 1e-10)^a for t > 0, and 0 for t <= 0 (even a = 0). */
static double
het_het_pow(double t, double a)
{
	if (!(t > 0))
		return 0.0;
	return pow(t > HET_HET_T_FLOOR ? t : HET_HET_T_FLOOR, a);
}

static void *
het_het_tables_alloc(const struct het_model *m, struct het_error *err)
{
	struct het_het_tabs *tb;
	size_t n = m->spec.n_frames, na = m->spec.n_angles;

	tb = calloc(1, sizeof(*tb));
	if (tb == NULL) {
		het_error_set(err, HET_ENOMEM,
		    "heterodyne model tables: out of memory");
		return NULL;
	}
	tb->n = n;
	tb->na = na;
	tb->stride = HT_NBASE;
	if (n > SIZE_MAX / (HT_NBASE + HET_P_HET_COUNT)) {
		het_error_set(err, HET_ENOMEM, "heterodyne model tables: "
		    "%zu frames overflow the address space", n);
		het_het_tables_free(tb);
		return NULL;
	}
	/* room for every column, so prepare never allocates */
	tb->row = het_alloc_array(n * (HT_NBASE + HET_P_HET_COUNT),
	    sizeof(double), "heterodyne model time tables", err);
	if (tb->row == NULL ||
	    (tb->qa = het_alloc_array(na, sizeof(double),
	    "heterodyne model angle tables", err)) == NULL ||
	    (tb->dqa = het_alloc_array(na, sizeof(double),
	    "heterodyne model angle tables", err)) == NULL) {
		het_het_tables_free(tb);
		return NULL;
	}
	return tb;
}

static void
het_het_tables_free(void *priv)
{
	struct het_het_tabs *tb = priv;

	if (tb == NULL)
		return;
	free(tb->row);
	free(tb->qa);
	free(tb->dqa);
	free(tb);
}

/*
 * Integrand values at one time: rate[0..2] = J_r, J_s, v and, for every
 * physics parameter p, dr[p] = d(integrand)/d theta_p for the transport
 * and velocity parameters and d x_s / d theta_p for f0..f3.  *xs gets
 * the sample fraction.
 */
static void
het_het_point_rates(const double *th, double t, double rate[3], double *xs,
    double dr[HET_P_HET_COUNT])
{
	double lnt = 0, pr, ps, pv, raw, g, arg, ea, eg, e, val, xg;

	/* d P/d a = P ln(t_safe); P and so its derivative vanish at t <= 0 */
	if (t > 0)
		lnt = log(t > HET_HET_T_FLOOR ? t : HET_HET_T_FLOOR);
	pr = het_het_pow(t, th[HET_P_ALPHA_REF]);
	ps = het_het_pow(t, th[HET_P_ALPHA_SAMPLE]);
	pv = het_het_pow(t, th[HET_P_BETA]);

	raw = th[HET_P_D0_REF] * pr + th[HET_P_DOFF_REF];
	rate[0] = raw > 0 ? raw : 0.0;
	g = het_het_dmax0(raw);
	dr[HET_P_D0_REF] = pr * g;
	dr[HET_P_ALPHA_REF] = th[HET_P_D0_REF] * pr * lnt * g;
	dr[HET_P_DOFF_REF] = g;

	raw = th[HET_P_D0_SAMPLE] * ps + th[HET_P_DOFF_SAMPLE];
	rate[1] = raw > 0 ? raw : 0.0;
	g = het_het_dmax0(raw);
	dr[HET_P_D0_SAMPLE] = ps * g;
	dr[HET_P_ALPHA_SAMPLE] = th[HET_P_D0_SAMPLE] * ps * lnt * g;
	dr[HET_P_DOFF_SAMPLE] = g;

	rate[2] = th[HET_P_V0] * pv + th[HET_P_V_OFFSET];
	dr[HET_P_V0] = pv;
	dr[HET_P_BETA] = th[HET_P_V0] * pv * lnt;
	dr[HET_P_V_OFFSET] = 1.0;

	arg = th[HET_P_F1] * (t - th[HET_P_F2]);
	ea = het_het_clip(arg, -HET_HET_FEXP_LIM, HET_HET_FEXP_LIM, &eg);
	e = exp(ea);
	val = th[HET_P_F0] * e + th[HET_P_F3];
	*xs = het_het_clip(val, 0.0, 1.0, &xg);
	dr[HET_P_F0] = e * xg;
	dr[HET_P_F1] = th[HET_P_F0] * e * (t - th[HET_P_F2]) * eg * xg;
	dr[HET_P_F2] = -th[HET_P_F0] * e * th[HET_P_F1] * eg * xg;
	dr[HET_P_F3] = xg;
	dr[HET_P_PHI0] = 0.0;
}

static int
het_het_prepare(struct het_model_eval *ev, struct het_error *err)
{
	struct het_het_tabs *tb = ev->priv;
	const struct het_model *m = ev->m;
	const double *th = ev->theta;
	const double dt = m->spec.dt;
	double rate[3], prev[3] = { 0, 0, 0 }, cum[3] = { 0, 0, 0 };
	double dr[HET_P_HET_COUNT], dprev[HET_P_HET_COUNT];
	double dcum[HET_P_HET_COUNT], xs, ang, *row;
	size_t k, c, a, p, nf = ev->nfree;
	int grp[HET_P_HET_COUNT], g;

	tb->stride = HT_NBASE + nf;
	tb->mhq2 = -0.5 * m->spec.q * m->spec.q;
	for (g = 0; g < HG_COUNT; g++)
		tb->g0[g] = tb->g1[g] = 0;
	for (c = 0; c < nf; c++) {
		grp[c] = het_het_group(ev->free_idx[c]);
		/* free_idx ascends, so each group is one run of columns */
		if (tb->g0[grp[c]] == tb->g1[grp[c]])
			tb->g0[grp[c]] = c;
		tb->g1[grp[c]] = c + 1;
		dcum[c] = 0;
		dprev[c] = 0;
	}

	for (k = 0; k < tb->n; k++) {
		row = tb->row + k * tb->stride;
		het_het_point_rates(th, m->t[k], rate, &xs, dr);
		/* cumsum of the midpoints, then times dt (as the reference) */
		for (c = 0; c < 3; c++) {
			if (k > 0)
				cum[c] += (prev[c] + rate[c]) / 2.0;
			prev[c] = rate[c];
			row[HT_SR + c] = cum[c] * dt;
		}
		row[HT_XS] = xs;
		row[HT_XR] = 1.0 - xs;
		row[HT_NRM] = xs * xs + row[HT_XR] * row[HT_XR];
		for (c = 0; c < nf; c++) {
			p = ev->free_idx[c];
			switch (grp[c]) {
			case HG_FRAC:
				row[HT_NBASE + c] = dr[p];
				break;
			case HG_PHI0:	/* acts per angle, not per time */
				row[HT_NBASE + c] = 0.0;
				break;
			default:
				if (k > 0)
					dcum[c] += (dprev[c] + dr[p]) / 2.0;
				dprev[c] = dr[p];
				row[HT_NBASE + c] = dcum[c] * dt;
				break;
			}
		}
	}
	row = tb->row + (tb->n - 1) * tb->stride;
	if (!isfinite(row[HT_SR]) || !isfinite(row[HT_SS]) ||
	    !isfinite(row[HT_SV]))
		return het_error_set(err, HET_EINVAL,
		    "heterodyne model: the %s integral overflows over the "
		    "%zu-frame window (t up to %g s) with D0_ref %g, "
		    "alpha_ref %g, D0_sample %g, alpha_sample %g, v0 %g, "
		    "beta %g; bring these parameters back inside their "
		    "bounds or check dt", !isfinite(row[HT_SR]) ?
		    "reference transport" : !isfinite(row[HT_SS]) ?
		    "sample transport" : "velocity", tb->n, m->t[tb->n - 1],
		    th[HET_P_D0_REF], th[HET_P_ALPHA_REF], th[HET_P_D0_SAMPLE],
		    th[HET_P_ALPHA_SAMPLE], th[HET_P_V0], th[HET_P_BETA]);

	for (a = 0; a < tb->na; a++) {
		/* numpy/JAX deg2rad(x) = x * (pi / 180) */
		ang = (m->phi[a] + th[HET_P_PHI0]) * (M_PI / 180.0);
		tb->qa[a] = m->spec.q * cos(ang);
		tb->dqa[a] = -m->spec.q * sin(ang) * (M_PI / 180.0);
	}
	return HET_OK;
}

/*
 * The angle-independent part of pair (i, j), with the products grouped
 * as the reference groups them so that g rounds the same way:
 * ((fr^2 h_r^2 + fs^2 h_s^2) + ((2 fc) h_r) h_s cos Phi) / nn.  With
 * deriv, also the factors of the derivative columns.
 */
static void
het_het_ij(const struct het_het_tabs *tb, const double *ri, const double *rj,
    int deriv, struct het_het_ij *p)
{
	double dr, ds, ir, is, lr, ls, gr, gs, hr, hs, fr, fs, fc, nn;

	dr = rj[HT_SR] - ri[HT_SR];
	ds = rj[HT_SS] - ri[HT_SS];
	ir = sqrt(dr * dr + HET_HET_SABS_EPS);
	is = sqrt(ds * ds + HET_HET_SABS_EPS);
	lr = het_het_clip(tb->mhq2 * ir, HET_HET_LOGH_MIN, 0.0, &gr);
	ls = het_het_clip(tb->mhq2 * is, HET_HET_LOGH_MIN, 0.0, &gs);
	hr = exp(lr);
	hs = exp(ls);
	fr = ri[HT_XR] * rj[HT_XR];
	fs = ri[HT_XS] * rj[HT_XS];
	fc = (ri[HT_XR] * ri[HT_XS]) * (rj[HT_XR] * rj[HT_XS]);
	p->rs = fr * fr * (hr * hr) + fs * fs * (hs * hs);
	p->x2 = 2.0 * fc * hr * hs;
	nn = ri[HT_NRM] * rj[HT_NRM];
	p->nn = nn > HET_HET_NORM_FLOOR ? nn : HET_HET_NORM_FLOOR;
	p->v = rj[HT_SV] - ri[HT_SV];
	if (!deriv)
		return;
	p->hr = hr;
	p->hs = hs;
	p->u = fr * hr;
	p->w = fs * hs;
	p->inv = 1.0 / p->nn;
	/*
	 * d g/d Ir = 2 (d g/d h_r^2-part) ... = 2 mhq2 u (u + w c) / nn,
	 * times clip'(lr) and d Ir/d dr = dr / Ir; (u + w c) is per angle.
	 */
	p->kr = 2.0 * tb->mhq2 * gr * p->u * p->inv * (dr / ir);
	p->ks = 2.0 * tb->mhq2 * gs * p->w * p->inv * (ds / is);
	p->nfac = nn > HET_HET_NORM_FLOOR ? 2.0 * p->inv : 0.0;
}

/* The derivative columns of one pair at angle a (see het_het_pairs). */
static void
het_het_dpair(const struct het_het_tabs *tb, const struct het_het_ij *p,
    const double *ri, const double *rj, size_t a, double c, double s,
    double g, double *d)
{
	const double *di = ri + HT_NBASE, *dj = rj + HT_NBASE;
	double kr, ks, dphi, kv, fi, fj;
	size_t q;

	/* transport: d g/d theta = k (u + w c) (D[j] - D[i]) */
	kr = p->kr * (p->u + p->w * c);
	for (q = tb->g0[HG_REF]; q < tb->g1[HG_REF]; q++)
		d[q] = kr * (dj[q] - di[q]);
	ks = p->ks * (p->w + p->u * c);
	for (q = tb->g0[HG_SMP]; q < tb->g1[HG_SMP]; q++)
		d[q] = ks * (dj[q] - di[q]);

	/* phase: d g/d Phi = -2 u w sin(Phi) / nn, d Phi/d Sv = qa */
	dphi = -2.0 * p->u * p->w * s * p->inv;
	kv = dphi * tb->qa[a];
	for (q = tb->g0[HG_VEL]; q < tb->g1[HG_VEL]; q++)
		d[q] = kv * (dj[q] - di[q]);
	if (tb->g0[HG_PHI0] != tb->g1[HG_PHI0])
		d[tb->g0[HG_PHI0]] = dphi * tb->dqa[a] * p->v;

	if (tb->g0[HG_FRAC] == tb->g1[HG_FRAC])
		return;
	/*
	 * fractions: with A_r = x_r,i x_r,j and A_s = x_s,i x_s,j,
	 * d num/d A_r = 2 h_r (u + w c), d num/d A_s = 2 h_s (w + u c),
	 * d A_r/d x_s,i = -x_r,j, d A_s/d x_s,i = x_s,j and
	 * d n_i/d x_s,i = 2 (x_s,i - x_r,i); likewise for j.
	 */
	kr = 2.0 * p->hr * (p->u + p->w * c) * p->inv;
	ks = 2.0 * p->hs * (p->w + p->u * c) * p->inv;
	fi = ks * rj[HT_XS] - kr * rj[HT_XR] -
	    g * p->nfac * rj[HT_NRM] * (ri[HT_XS] - ri[HT_XR]);
	fj = ks * ri[HT_XS] - kr * ri[HT_XR] -
	    g * p->nfac * ri[HT_NRM] * (rj[HT_XS] - rj[HT_XR]);
	for (q = tb->g0[HG_FRAC]; q < tb->g1[HG_FRAC]; q++)
		d[q] = fi * di[q] + fj * dj[q];
}

/*
 * A walk over a pair list that recomputes the angle-independent part
 * only when (i, j) changes (angle innermost: once per cell).
 */
struct het_het_walk {
	uint32_t		 i, j;
	const double		*ri, *rj;	/* the cell's time rows */
	struct het_het_ij	 ij;
};

static void
het_het_walk_init(struct het_het_walk *wk)
{
	memset(wk, 0, sizeof(*wk));
	wk->i = wk->j = UINT32_MAX;
}

static void
het_het_walk_to(const struct het_het_tabs *tb, struct het_het_walk *wk,
    const struct het_pair *pr, int deriv)
{
	assert(pr->i < pr->j && pr->j < tb->n && pr->a < tb->na);
	if (pr->i == wk->i && pr->j == wk->j)
		return;
	wk->i = pr->i;
	wk->j = pr->j;
	wk->ri = tb->row + (size_t)pr->i * tb->stride;
	wk->rj = tb->row + (size_t)pr->j * tb->stride;
	het_het_ij(tb, wk->ri, wk->rj, deriv, &wk->ij);
}

/*
 * sin and cos of one argument in one libm call.  GCC does not fuse
 * separate sin() and cos() calls into sincos() under -std=c11 (sincos is
 * a GNU extension), which cost 11 % of the posterior gradient; the
 * builtin is exact (the same glibc routine).  Clang 14 has no such
 * builtin (its optimiser fuses the two calls itself), so it gets them.
 */
static inline void
het_het_sincos(double x, double *s, double *c)
{
#if defined(__GNUC__) && !defined(__clang__)
	__builtin_sincos(x, s, c);
#else
	*s = sin(x);
	*c = cos(x);
#endif
}

/*
 * Evaluate pairs.  The angle-independent part is recomputed only when
 * (i, j) changes, so a list with the angle innermost costs one sin/cos
 * per pair plus the (i, j) part once per angle group.
 */
static void
het_het_pairs(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, double *g, double *dg)
{
	const struct het_het_tabs *tb = ev->priv;
	const size_t nf = ev->nfree;
	struct het_het_walk wk;
	double phi, c, s;
	size_t k;
	int deriv = dg != NULL;

	het_het_walk_init(&wk);
	for (k = 0; k < n; k++) {
		het_het_walk_to(tb, &wk, &pairs[k], deriv);
		/* the reference's phase: (q cos(deg2rad(phi + phi0))) V */
		phi = tb->qa[pairs[k].a] * wk.ij.v;
		if (!deriv) {
			g[k] = (wk.ij.rs + wk.ij.x2 * cos(phi)) / wk.ij.nn;
			continue;
		}
		het_het_sincos(phi, &s, &c);
		g[k] = (wk.ij.rs + wk.ij.x2 * c) / wk.ij.nn;
		het_het_dpair(tb, &wk.ij, wk.ri, wk.rj, pairs[k].a, c, s, g[k],
		    dg + k * nf);
	}
}

/* Scratch of het_het_lsq: the adjoints of Sr, Ss, Sv and x_s per frame. */
static size_t
het_het_lsq_scratch(const struct het_model *m)
{
	return 4 * m->spec.n_frames;
}

/*
 * The adjoints e_a = d(ss/2)/dg of one cell's pairs, summed over its
 * angles.  Every per-frame adjoint of a pair is e times (A + B cos Phi),
 * e sin Phi times an angle factor, or e g times a cell factor, so these
 * five sums carry all of them and the cell is flushed once.
 */
struct het_het_cellsum {
	double	e;	/* sum e_a */
	double	ec;	/* sum e_a cos Phi_a */
	double	eg;	/* sum e_a g_a */
	double	esq;	/* sum e_a sin Phi_a qa_a */
	double	esd;	/* sum e_a sin Phi_a dqa_a */
};

/*
 * Add one cell's sums to the per-frame adjoints aR, aS, aV (of the
 * integral differences) and aX (of x_s); return its share of
 * d(ss/2)/dphi0.  The factors are those of het_het_dpair, summed.
 */
static double
het_het_flush(const struct het_het_tabs *tb, const struct het_het_walk *wk,
    const struct het_het_cellsum *cs, double *adj)
{
	const struct het_het_ij *p = &wk->ij;
	const double *ri = wk->ri, *rj = wk->rj;
	const double xsi = ri[HT_XS], xri = ri[HT_XR], ni = ri[HT_NRM];
	const double xsj = rj[HT_XS], xrj = rj[HT_XR], nj = rj[HT_NRM];
	double *aR = adj, *aS = adj + tb->n, *aV = adj + 2 * tb->n;
	double *aX = adj + 3 * tb->n, t, uw2, kr, ks, gn;
	const double ur = p->u * cs->e + p->w * cs->ec;	/* sum e (u + w c) */
	const double ws = p->w * cs->e + p->u * cs->ec;	/* sum e (w + u c) */
	uint32_t i = wk->i, j = wk->j;

	uw2 = -2.0 * p->u * p->w * p->inv;		/* dg/dPhi = uw2 sin Phi */
	/* sum e d num/dA_r / nn and sum e d num/dA_s / nn, then the norm */
	kr = 2.0 * p->hr * ur * p->inv;
	ks = 2.0 * p->hs * ws * p->inv;
	gn = cs->eg * p->nfac;
	t = p->kr * ur;
	aR[j] += t;
	aR[i] -= t;
	t = p->ks * ws;
	aS[j] += t;
	aS[i] -= t;
	t = uw2 * cs->esq;
	aV[j] += t;
	aV[i] -= t;
	aX[i] += ks * xsj - kr * xrj - gn * nj * (xsi - xri);
	aX[j] += ks * xsi - kr * xri - gn * ni * (xsj - xrj);
	return uw2 * p->v * cs->esd;
}

/*
 * The per-frame adjoints times the derivative columns of the tables:
 * d(ss/2)/dtheta = sum_t a_group(t) D_theta(t), one pass over the rows.
 */
void
het_het_adjoint_row(const struct het_het_tabs *tb, size_t t,
    const double a[4], double *gfree)
{
	const double *d = tb->row + t * tb->stride + HT_NBASE;
	size_t q;
	int grp;

	/* a[] is indexed by group: Sr, Ss, Sv, x_s */
	for (grp = HG_REF; grp <= HG_FRAC; grp++)
		for (q = tb->g0[grp]; q < tb->g1[grp]; q++)
			gfree[q] += a[grp] * d[q];
}

static void
het_het_adjoint_map(const struct het_het_tabs *tb, const double *adj,
    double aphi, double *gfree)
{
	double a[4];
	size_t t;

	for (t = 0; t < tb->n; t++) {
		a[0] = adj[t];
		a[1] = adj[tb->n + t];
		a[2] = adj[2 * tb->n + t];
		a[3] = adj[3 * tb->n + t];
		het_het_adjoint_row(tb, t, a, gfree);
	}
	if (tb->g0[HG_PHI0] != tb->g1[HG_PHI0])
		gfree[tb->g0[HG_PHI0]] += aphi;
}

/*
 * The fused least-squares pass (het_model_eval_lsq): per pair the value
 * as het_het_pairs computes it, the residual, and the adjoints of the
 * per-frame tables; the Jacobian row is never formed.
 */
static void
het_het_lsq(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, const struct het_model_lsq *L,
    double *adj, struct het_model_lsq_out *out)
{
	const struct het_het_tabs *tb = ev->priv;
	struct het_het_walk wk;
	struct het_het_cellsum cs;
	double phi, c, s, g, w, r, ca, e, aphi = 0, ss = 0;
	size_t k = 0, a;

	het_het_walk_init(&wk);
	memset(adj, 0, 4 * tb->n * sizeof(*adj));
	while (k < n) {
		/* one cell: its pairs follow each other (angle innermost) */
		het_het_walk_to(tb, &wk, &pairs[k], 1);
		cs.e = cs.ec = cs.eg = cs.esq = cs.esd = 0;
		do {
			a = pairs[k].a;
			assert(a < tb->na);
			phi = tb->qa[a] * wk.ij.v;
			het_het_sincos(phi, &s, &c);
			g = (wk.ij.rs + wk.ij.x2 * c) / wk.ij.nn;
			w = L->w != NULL ? L->w[k] : 1.0;
			ca = L->contrast[a];
			r = w * (L->offset[a] + ca * g - L->y[k]);
			ss += r * r;
			out->gcon[a] += r * w * g;
			out->goff[a] += r * w;
			e = r * w * ca;
			cs.e += e;
			cs.ec += e * c;
			cs.eg += e * g;
			cs.esq += e * s * tb->qa[a];
			cs.esd += e * s * tb->dqa[a];
			k++;
		} while (k < n && pairs[k].i == wk.i && pairs[k].j == wk.j);
		aphi += het_het_flush(tb, &wk, &cs, adj);
	}
	out->ss += ss;
	het_het_adjoint_map(tb, adj, aphi, out->gfree);
}

static double
het_het_point(const struct het_model_eval *ev, size_t a, size_t i, size_t j)
{
	const struct het_het_tabs *tb = ev->priv;
	struct het_het_ij ij;

	assert(i < tb->n && j < tb->n && a < tb->na);
	het_het_ij(tb, tb->row + i * tb->stride, tb->row + j * tb->stride, 0,
	    &ij);
	return (ij.rs + ij.x2 * cos(tb->qa[a] * ij.v)) / ij.nn;
}

const struct het_model_ops het_model_het_ops = {
	het_het_tables_alloc,
	het_het_tables_free,
	het_het_prepare,
	het_het_pairs,
	het_het_lsq,
	het_het_lsq_scratch,
	het_het_sep_terms,
	het_het_sep,
	het_het_sep_adjoint,
	het_het_sep_tangent,
	het_het_point
};
