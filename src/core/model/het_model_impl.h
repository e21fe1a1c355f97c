/*
 * het_model_impl.h: what het_model.c shares with the per-family kernels
 * (het_model_het.c, het_model_hom.c).  Not for use outside src/core.
 *
 * A family provides an ops table.  het_model.c owns allocation, argument
 * checks and the public API, and calls the ops for the physics.
 */
#ifndef HET_MODEL_IMPL_H
#define HET_MODEL_IMPL_H

#include "het_model.h"

struct het_model_ops {
	/* Allocate the family's per-time tables for m (returned as priv). */
	void	*(*tables_alloc)(const struct het_model *m,
		    struct het_error *err);
	void	 (*tables_free)(void *priv);
	/*
	 * Fill the tables for ev->theta; derivative tables only when
	 * ev->nfree > 0.  Returns HET_OK or an error.
	 */
	int	 (*prepare)(struct het_model_eval *ev, struct het_error *err);
	/* Evaluate pairs (see het_model_eval_pairs). */
	void	 (*pairs)(const struct het_model_eval *ev, size_t n,
		    const struct het_pair *pairs, double *g, double *dg);
	/*
	 * Optional (NULL: none): the fused least-squares pass of
	 * het_model_eval_lsq, with lsq_scratch(m) doubles of scratch.
	 */
	void	 (*lsq)(const struct het_model_eval *ev, size_t n,
		    const struct het_pair *pairs,
		    const struct het_model_lsq *L, double *scratch,
		    struct het_model_lsq_out *out);
	size_t	 (*lsq_scratch)(const struct het_model *m);
	/*
	 * Optional (sep_terms NULL or returning 0: not separable): the
	 * separable form of het_model_eval_sep and the map of its
	 * adjoints to the free parameters.
	 */
	size_t	 (*sep_terms)(const struct het_model *m);
	void	 (*sep)(const struct het_model_eval *ev,
		    struct het_model_sep *s);
	void	 (*sep_adjoint)(const struct het_model_eval *ev,
		    const struct het_model_sep *adj, double *gfree);
	void	 (*sep_tangent)(const struct het_model_eval *ev,
		    const double *dir, struct het_model_sep *tan);
	/* g at one point, diagonal allowed. */
	double	 (*point)(const struct het_model_eval *ev, size_t a, size_t i,
		    size_t j);
};

struct het_model {
	struct het_model_spec	 spec;		/* spec.phi points at phi below */
	double			*phi;		/* n_angles, degrees (owned) */
	double			*t;		/* N grid times, s (owned) */
	size_t			 nphys;
	const struct het_model_ops *ops;
};

struct het_model_eval {
	const struct het_model	*m;
	double			 theta[HET_MAX_PHYS];
	unsigned char		 is_free[HET_MAX_PHYS];
	size_t			 free_idx[HET_MAX_PHYS];	/* column -> param */
	size_t			 nfree;
	void			*priv;		/* family tables */
};

extern const struct het_model_ops het_model_het_ops;	/* het_model_het.c */
extern const struct het_model_ops het_model_hom_ops;	/* het_model_hom.c */

#endif /* HET_MODEL_IMPL_H */
