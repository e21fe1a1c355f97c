/*
 * het_separable_impl.h: what het_separable.c (the object, its data and
 * the evaluation's order) shares with het_separable_pass.c (the passes
 * over frames and pairs).  Not for use outside src/core.
 */
#ifndef HET_SEPARABLE_IMPL_H
#define HET_SEPARABLE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "het_model.h"
#include "het_resid.h"

#define SEP_NC		4	/* components: R, S, X cos, X sin */

/*
 * Two doubles as one SSE2 register (GNU C vector extension; every x86-64
 * CPU has SSE2, and other targets lower it to scalar code).  The pair
 * loops hold the four components of a frame in two of them: gcc at -O2
 * does not vectorise the scalar loops, and the explicit lanes run the
 * data pass of 1000 x 23 about 2.5 times faster.  Each lane still adds
 * its terms in order, so the sums are those of the scalar loop, bit for
 * bit.  may_alias: they read and write the double arrays in place;
 * aligned(8): frames need not sit on 16-byte boundaries.
 */
typedef double sep_v2 __attribute__((vector_size(16), aligned(8),
    may_alias));
#define SEP_SHIFT_MAX	300.0	/* rise of any L within a block */
#define SEP_EXP_MIN	(-746.0) /* exp() below this is 0 in double */
#define SEP_NACC	8	/* sums per angle: pass, rho fix-up, and
				   sum g, sum g^2 of a direct pass */

enum { TRIG_ONE = 0, TRIG_COS, TRIG_SIN };

/* A pair of an incomplete angle: frame j of its row, centred datum. */
struct sep_ent {
	double		 u;
	uint32_t	 j;
};

struct het_separable {
	const struct het_resid	*r;
	size_t		 N, na, npk, nfp;	/* N: the frames held (a
					   window: its first N) */
	size_t		 Nm;		/* the model's frames: the per-frame
					   buffers' stride */
	long		 angle;		/* the one angle held, or -1: all */
	int		 direct;	/* complete angles form each residual
					   (het_sep_pass_direct) */
	int		 view;		/* the data below belong to another
					   object (het_separable_view) */
	double		 w2;		/* the common weight, squared */
	double		**U;		/* na: the packed centred triangle of
					   a complete angle, else NULL */
	size_t		**rp;		/* na: N + 1 row starts into ent of
					   an incomplete angle, else NULL */
	struct sep_ent	**ent;		/* na: its pairs, by row */
	double		*ybar, *yy;	/* na: mean, sum of centred squares */
	size_t		*cnt;		/* na: pairs of the angle */
	/* workspace of one evaluation */
	size_t		 ncomp, cosc;	/* components; the X cos one */
	int		 term[SEP_NC], trig[SEP_NC];
	struct het_model_sep fr, ad;	/* factors and their adjoints */
	double		*frbuf, *adbuf;
	double		*cs, *sn;	/* na * N: cos, sin of the phase */
	double		*EA, *EB;	/* HET_SEP_MAXTERMS * N */
	double		*A, *B, *gA, *gB;	/* N * SEP_NC */
	size_t		*blk;		/* N + 1 block starts */
	size_t		*rend;		/* HET_SEP_MAXTERMS * N: last frame
					   of the run of equal L_k */
	int		 fix;		/* some pair needs a rho factor */
	double		*acc;		/* na * SEP_NACC angle sums */
	double		*gc, *go;	/* na: for het_separable_loglik */
	double		*zero;		/* 3 na zeros: adjoint coefficients
					   of het_separable_moments */
	size_t		 nblk;		/* blocks of the current point */
	size_t		 shift_b0;	/* block whose shifted exponentials
					   EA, EB hold, or SIZE_MAX */
	/* het_separable_normal's workspace (allocated on first use) */
	struct het_model_sep *tan;	/* nfp tangents of the factors */
	double		*tanbuf;	/* their arrays */
	double		*TA, *TB;	/* N * SEP_NC: tangents of A_c, B_c */
	double		*dir, *col;	/* nfp: a direction, a column */
	double		*E, *Eg, *E1;	/* nfp^2, nfp, nfp: one angle */
};

/* Offset of row i in a packed triangle of N frames. */
static inline size_t
sep_row_off(size_t N, size_t i)
{
	return i * (N - 1) - i * (i - 1) / 2;	/* 0 at i = 0 */
}

/* Point the arrays of a het_model_sep into one buffer of N-frame rows
   (het_sep_buflen doubles, N = the model's frames). */
void	het_sep_layout(struct het_model_sep *x, double *buf, size_t N);
static inline size_t
het_sep_buflen(const struct het_separable *s)
{
	return (3 * HET_SEP_MAXTERMS + 1) * s->Nm + s->na;
}

/*
 * het_separable.c's steps of an evaluation: het_sep_point prepares the
 * point (factors, trigonometric tables, runs, blocks; zeroes the angle
 * sums and, with grad, the per-frame adjoints); het_sep_angle_block runs
 * the passes of angle a over block b (coef as in sep_run); het_sep_close
 * gives angle a's (sum r^2, d f/d contrast, d f/d offset) of the
 * residual form.  het_sep_normal_free frees het_separable_normal's
 * workspace (het_separable_normal.c).
 */
void	het_sep_point(struct het_separable *s,
	    const struct het_model_eval *mev, int grad);
void	het_sep_angle_block(struct het_separable *s, size_t a, size_t b,
	    const double *con, const double *off, const double *coef,
	    int grad);
void	het_sep_close(const struct het_separable *s, size_t a, double con,
	    double dd, double v[3]);
void	het_sep_normal_free(struct het_separable *s);
/* HET_EINVAL when ev belongs to another problem, or grad is wanted of a
   point prepared without the Jacobian tables. */
int	het_sep_check_ev(const struct het_separable *s,
	    const struct het_resid_eval *ev, int grad, struct het_error *err);

/*
 * The passes of one evaluation (het_separable_pass.c), in the order
 * het_separable_eval calls them: the components of the model's terms
 * (returns their count); the runs of equal L_k that need a rho factor;
 * the blocks (returns their count); per block the shifted exponentials;
 * per block and angle the components, the data pass (complete: sum y g,
 * then the moments sum g, sum g^2; incomplete: residuals of its pairs), the rho
 * fix-up, and the fold of the adjoints onto the per-frame factors.
 * dd is the angle's offset minus its data mean, con its contrast; ad
 * the three coefficients of the adjoint d f/d g = ad[0] g + ad[1] -
 * ad[2] u (the residual form: w2 c (c, dd, 1)), which include the common
 * weight squared.
 */
size_t	het_sep_components(struct het_separable *s);
void	het_sep_runs(struct het_separable *s);
size_t	het_sep_blocks(struct het_separable *s);
void	het_sep_shift(struct het_separable *s, size_t b0, size_t b1);
void	het_sep_factors(struct het_separable *s, size_t a, size_t b0, size_t b1,
	    int grad);
void	het_sep_pass_full(struct het_separable *s, const double *U, size_t b0,
	    size_t b1, double gY, int grad, double *acc);
void	het_sep_pass_direct(struct het_separable *s, const double *U,
	    size_t b0, size_t b1, double dd, double con, const double *ad,
	    int grad, double *acc);
void	het_sep_moments(struct het_separable *s, size_t b0, size_t b1,
	    double k1, double k2, int grad, double *acc);
void	het_sep_pass_sparse(struct het_separable *s, size_t a, size_t b0,
	    size_t b1, double dd, double con, const double *ad, int grad,
	    double *acc);
void	het_sep_fixup(struct het_separable *s, size_t a, size_t b0, size_t b1,
	    double dd, double con, const double *ad, int grad, double *acc);
void	het_sep_fold(struct het_separable *s, size_t a, size_t b0, size_t b1);

#endif /* HET_SEPARABLE_IMPL_H */
