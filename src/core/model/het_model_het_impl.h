/*
 * het_model_het_impl.h: what the heterodyne kernel (het_model_het.c)
 * shares with its separable form (het_model_het_sep.c): the constants
 * of the reference's discretisation, the columns of a time row, the
 * parameter groups and the tables prepare() fills.  Not for use outside
 * src/core/model.
 */
#ifndef HET_MODEL_HET_IMPL_H
#define HET_MODEL_HET_IMPL_H

#include <stddef.h>

#include "het_model_impl.h"

/* Constants of the reference discretisation (heterodyne-spec.md §1.4). */
#define HET_HET_T_FLOOR		1e-10	/* base floor in P(t, a) */
#define HET_HET_SABS_EPS	1e-12	/* sabs(x) = sqrt(x^2 + eps) */
#define HET_HET_LOGH_MIN	(-700.0)	/* clip of log half-transport */
#define HET_HET_FEXP_LIM	100.0	/* clip of the fraction exponent */
#define HET_HET_NORM_FLOOR	1e-10	/* floor of n_i n_j */

/* Columns of a time row before the derivative columns. */
enum {
	HT_SR = 0,	/* cumulative reference transport integral */
	HT_SS,		/* cumulative sample transport integral */
	HT_SV,		/* cumulative velocity integral */
	HT_XS,		/* sample fraction x_s */
	HT_XR,		/* reference fraction 1 - x_s */
	HT_NRM,		/* x_s^2 + x_r^2 */
	HT_NBASE
};

/* Parameter groups: which quantity a parameter acts on. */
enum {
	HG_REF = 0,	/* D0_ref, alpha_ref, D_offset_ref: Sr */
	HG_SMP,		/* D0_sample, alpha_sample, D_offset_sample: Ss */
	HG_VEL,		/* v0, beta, v_offset: Sv */
	HG_FRAC,	/* f0..f3: x_s */
	HG_PHI0,	/* phi0: the angle of the phase */
	HG_COUNT
};

struct het_het_tabs {
	size_t	 n;		/* frames */
	size_t	 na;		/* angles */
	size_t	 stride;	/* doubles per time row: HT_NBASE + nfree
				   (the phi0 column, if free, is unused) */
	double	*row;		/* n rows */
	double	*qa;		/* per angle: q cos(deg2rad(phi_a + phi0)) */
	double	*dqa;		/* per angle: d qa / d phi0 */
	double	 mhq2;		/* -q^2 / 2 */
	/* Derivative columns [g0[g], g1[g]) of each group (none: g0 == g1). */
	size_t	 g0[HG_COUNT];
	size_t	 g1[HG_COUNT];
};

/*
 * het_het_adjoint_row: add the per-frame adjoints a[] (by group: Sr, Ss,
 * Sv, x_s) of frame t times its derivative columns to gfree.
 */
void	het_het_adjoint_row(const struct het_het_tabs *tb, size_t t,
	    const double a[4], double *gfree);

/* The separable form (het_model.h) of the heterodyne kernel, for the
   ops table (het_model_het_sep.c). */
size_t	het_het_sep_terms(const struct het_model *m);
void	het_het_sep(const struct het_model_eval *ev, struct het_model_sep *s);
void	het_het_sep_adjoint(const struct het_model_eval *ev,
	    const struct het_model_sep *adj, double *gfree);
void	het_het_sep_tangent(const struct het_model_eval *ev,
	    const double *dir, struct het_model_sep *tan);

#endif /* HET_MODEL_HET_IMPL_H */
