#include "config.h"

/*
 * het_model_het_sep.c: the separable form of the heterodyne kernel
 * (het_model.h): the per-frame factors of its three terms R, S and the
 * oscillating cross term X from the time rows prepare() made, the map
 * of their adjoints to the free parameters, and their tangents along a
 * direction.  Both go through the rows' derivative columns, so they are
 * exact transposes of each other (t_core_separable holds the normal
 * equations built from them against the pair kernel's Jacobian).
 */
#include <math.h>
#include <string.h>

#include "het_model_het_impl.h"

size_t
het_het_sep_terms(const struct het_model *m)
{
	(void)m;
	return 3;
}

/*
 * The separable form (het_model.h) from the time rows: terms R, S and
 * the oscillating cross term X; h_r^2 = exp(-q^2 (Sr[j] - Sr[i])) etc.
 */
void
het_het_sep(const struct het_model_eval *ev, struct het_model_sep *s)
{
	const struct het_het_tabs *tb = ev->priv;
	const double q2 = -2.0 * tb->mhq2;
	const double *row;
	double xs, xr, inv, h0;
	size_t k;

	s->nterm = 3;
	s->osc = 2;
	/* h at a zero integral difference, as het_het_ij computes it */
	h0 = exp(tb->mhq2 * sqrt(0.0 * 0.0 + HET_HET_SABS_EPS));
	for (k = 0; k < 3; k++)
		s->rho[k][0] = s->rho[k][1] = s->rho[k][2] = 1.0;
	s->rho[0][0] = s->rho[1][1] = h0 * h0;
	s->rho[2][0] = s->rho[2][1] = h0;
	for (k = 0; k < tb->n; k++) {
		row = tb->row + k * tb->stride;
		xs = row[HT_XS];
		xr = row[HT_XR];
		inv = 1.0 / row[HT_NRM];
		s->P[0][k] = s->Q[0][k] = xr * xr * inv;
		s->P[1][k] = s->Q[1][k] = xs * xs * inv;
		s->Q[2][k] = xr * xs * inv;
		s->P[2][k] = 2.0 * s->Q[2][k];
		s->L[0][k] = q2 * row[HT_SR];
		s->L[1][k] = q2 * row[HT_SS];
		s->L[2][k] = 0.5 * (s->L[0][k] + s->L[1][k]);
		s->V[k] = row[HT_SV];
	}
	memcpy(s->qa, tb->qa, tb->na * sizeof(*s->qa));
}

/*
 * Adjoints of the separable factors to the per-frame tables (Sr, Ss, Sv,
 * x_s), then through the derivative columns to the parameters.  With
 * x_r = 1 - x_s and n = x_s^2 + x_r^2 (dn/dx_s = 2 (x_s - x_r)):
 * d(x_r^2/n) = -x_r (2 n + x_r dn)/n^2, d(x_s^2/n) = x_s (2 n - x_s dn)/n^2,
 * d(x_r x_s/n) = ((x_r - x_s) n - x_r x_s dn)/n^2.
 */
void
het_het_sep_adjoint(const struct het_model_eval *ev,
    const struct het_model_sep *adj, double *gfree)
{
	const struct het_het_tabs *tb = ev->priv;
	const double q2 = -2.0 * tb->mhq2;
	const double *row;
	double a[4], xs, xr, n, dn, in2, aphi = 0;
	size_t k;

	for (k = 0; k < tb->n; k++) {
		row = tb->row + k * tb->stride;
		xs = row[HT_XS];
		xr = row[HT_XR];
		n = row[HT_NRM];
		dn = 2.0 * (xs - xr);
		in2 = 1.0 / (n * n);
		a[0] = q2 * (adj->L[0][k] + 0.5 * adj->L[2][k]);
		a[1] = q2 * (adj->L[1][k] + 0.5 * adj->L[2][k]);
		a[2] = adj->V[k];
		a[3] = ((adj->P[0][k] + adj->Q[0][k]) * -xr *
		    (2.0 * n + xr * dn) +
		    (adj->P[1][k] + adj->Q[1][k]) * xs * (2.0 * n - xs * dn) +
		    (2.0 * adj->P[2][k] + adj->Q[2][k]) *
		    ((xr - xs) * n - xr * xs * dn)) * in2;
		het_het_adjoint_row(tb, k, a, gfree);
	}
	for (k = 0; k < tb->na; k++)
		aphi += adj->qa[k] * tb->dqa[k];
	if (tb->g0[HG_PHI0] != tb->g1[HG_PHI0])
		gfree[tb->g0[HG_PHI0]] += aphi;
}

/*
 * Tangents of the separable factors along dir: the per-frame tables
 * move by their derivative columns (Sr, Ss, Sv, x_s by group), the
 * factors by the derivatives of het_het_sep_adjoint's comment.
 */
void
het_het_sep_tangent(const struct het_model_eval *ev, const double *dir,
    struct het_model_sep *tan)
{
	const struct het_het_tabs *tb = ev->priv;
	const double q2 = -2.0 * tb->mhq2;
	const double *d;
	double v[4], xs, xr, n, dn, in2, dphi;
	size_t k, q;
	int grp;

	tan->nterm = 3;
	tan->osc = 2;
	for (k = 0; k < tb->n; k++) {
		d = tb->row + k * tb->stride;
		xs = d[HT_XS];
		xr = d[HT_XR];
		n = d[HT_NRM];
		d += HT_NBASE;
		for (grp = HG_REF; grp <= HG_FRAC; grp++) {
			v[grp] = 0.0;
			for (q = tb->g0[grp]; q < tb->g1[grp]; q++)
				v[grp] += d[q] * dir[q];
		}
		dn = 2.0 * (xs - xr);
		in2 = v[3] / (n * n);
		tan->P[0][k] = tan->Q[0][k] = -xr * (2.0 * n + xr * dn) * in2;
		tan->P[1][k] = tan->Q[1][k] = xs * (2.0 * n - xs * dn) * in2;
		tan->Q[2][k] = ((xr - xs) * n - xr * xs * dn) * in2;
		tan->P[2][k] = 2.0 * tan->Q[2][k];
		tan->L[0][k] = q2 * v[0];
		tan->L[1][k] = q2 * v[1];
		tan->L[2][k] = 0.5 * (tan->L[0][k] + tan->L[1][k]);
		tan->V[k] = v[2];
	}
	dphi = tb->g0[HG_PHI0] != tb->g1[HG_PHI0] ? dir[tb->g0[HG_PHI0]] :
	    0.0;
	for (k = 0; k < tb->na; k++)
		tan->qa[k] = tb->dqa[k] * dphi;
}
