/*
 * het_separable.h: the Gaussian log-likelihood of a fitting problem and
 * its gradient in O(N^2) multiply-adds per angle, without the pair
 * kernel's exp and cos per pair (fast-posterior.md §2).
 *
 * For the families whose shape factorises over frames (het_model.h,
 * het_model_sep_terms > 0: every heterodyne mode and homodyne static),
 * g(a, i, j) = sum_c A_c(i) B_c(j) for i < j with per-frame vectors A_c,
 * B_c (heterodyne: four, the cross term split by cos(th_i - th_j) =
 * cos th_i cos th_j + sin th_i sin th_j; homodyne static: one).  Per
 * angle, with contrast c, offset o, data y on the problem's pairs,
 *
 *	f_a = 1/2 sum_k (o + c g_k - y_k)^2
 *
 * needs only sums over the pairs; the data, centred by their per-angle
 * mean, are copied once when the object is made.
 *   - Complete triangle (every i < j of the N frames present): sum g and
 *     sum g^2 come from O(N) prefix sums of products of A_c and of B_c,
 *     and sum y g = sum_c A_c^T (U B_c) from one pass over the packed
 *     upper triangle U of the data: 4 multiply-
 *     adds per pair (heterodyne), 8 with the gradient (the column sums
 *     U^T A_c are the adjoints of B_c).
 *   - Any other subset (a frame window of a larger grid, a CMC shard):
 *     the angle's pairs are kept row by row, and one pass over them
 *     forms g and the residual of each from the A_c, B_c (about 17
 *     multiply-adds per pair with the gradient, no transcendental
 *     function).  This is the data pass with U and a 0/1 mask M of
 *     fast-posterior.md §2 with the absent cells skipped: a shard of 1/8
 *     of the cells costs 1/8 of the pass, and forming each residual
 *     avoids the cancellation of the complete form (agreement with the
 *     pair kernel to about 1e-14 instead of 1e-11).
 * The gradient follows by adjoints onto A_c, B_c, then onto the model's
 * per-frame factors and through het_model_eval_sep_adjoint (the model's
 * own per-frame -> parameter map) to the free physics; the per-angle
 * sums d f/d contrast_a and d f/d offset_a are returned as
 * het_resid_eval_lsq returns them, so every scaling mode maps them the
 * same way (het_scaling_rows).
 *
 * Overflow: A_c carries exp(+L(i)), B_c exp(-L(j)), and L (q^2 times a
 * transport integral) may reach thousands.  The frames are cut into
 * blocks over which every L rises by at most 300; rows of a block use
 * factors shifted by the L of the block's first frame, so no factor
 * (nor a product of two in sum g^2) exceeds e^600.  Ordinary problems
 * are one block.
 *
 * Agreement with the pair kernel: the same g up to rounding and the
 * reference's floors below double precision (het_model.h; pairs inside a
 * run of a rate floored at 0 get the model's sabs factor rho by a
 * fix-up pass over those pairs); the sums are formed in another order,
 * and the complete-triangle form cancels (a sum of squares from sums of
 * products, centred per angle), so ss agrees with het_resid_eval_lsq to
 * about 1e-11 relative, gradients likewise (t_core_separable).
 *
 * Eligible problems (else het_separable_alloc fails with HET_EINVAL and
 * a message that starts "not separable:", and the caller keeps the pair
 * kernel): a model with a separable form; no weights, or all weights
 * equal (the plain Gaussian loss; w^2 multiplies everything); no pair
 * listed twice.  Every scaling mode works (only the per-angle contrast
 * and offset enter).
 *
 * Memory: a complete angle's triangle is N (N - 1)/2 doubles (8 bytes a
 * pair: 0.36 MB per angle at N = 300, 92 MB for 1000 frames x 23
 * angles), an incomplete angle's rows 16 bytes a pair plus N + 1 row
 * starts, so never more than the caller's own pairs and data take; plus
 * O(N n_angles) of workspace.  Time per evaluation: the data passes
 * above plus O(N) exp per term per block, O(N) sin and cos per angle,
 * and O(N) per angle and block for the prefix sums and the folds.
 *
 * Ownership: the object borrows the problem (which must outlive it and
 * stay unchanged; its y is copied into U) and owns its workspace, so an
 * evaluation allocates nothing.  One thread at a time per object.
 */
#ifndef HET_SEPARABLE_H
#define HET_SEPARABLE_H

#include <stddef.h>

#include "het_error.h"
#include "het_model.h"
#include "het_resid.h"

struct het_separable;

/*
 * het_separable_alloc: check that the problem r is eligible (above) and
 * build its per-angle data triangles.
 * Returns the object (free with het_separable_free) or NULL with
 *   HET_EINVAL  not separable (message "not separable: ..." says why:
 *               the mode, unequal weights, a repeated pair);
 *   HET_ENOMEM.
 * Thread: any.
 */
struct het_separable *het_separable_alloc(const struct het_resid *r,
    struct het_error *err);
void het_separable_free(struct het_separable *s);

/*
 * het_separable_alloc_angle: as het_separable_alloc with angle >= 0
 * holding that angle's pairs alone (a per-angle fit: the other angles
 * count as having no pairs), angle -1 every angle.
 *
 * het_separable_view: a new object on the data of `data` (which must
 * outlive it and is only read) with its own workspace, so that several
 * threads evaluate one problem at once without copying its data.  Free
 * with het_separable_free.  Errors: HET_ENOMEM.
 * Thread: any; data may be read by any number of views at once.
 */
struct het_separable *het_separable_alloc_angle(const struct het_resid *r,
    long angle, struct het_error *err);

/*
 * het_separable_alloc_window: as het_separable_alloc_angle, holding only
 * the pairs whose frames both lie below w (2 <= w < the model's frames;
 * other w: every frame): the early-window pre-fit of a long series.
 * Every evaluation then sums over those pairs alone (an angle with every
 * pair i < j < w is complete).
 */
struct het_separable *het_separable_alloc_window(const struct het_resid *r,
    long angle, size_t w, struct het_error *err);
struct het_separable *het_separable_view(const struct het_separable *data,
    struct het_error *err);

/*
 * het_separable_eval: the sums of het_resid_eval_lsq over all the
 * problem's pairs at the point ev was prepared on (het_resid_prepare),
 * added to out: ss = sum r_k^2 and, with want_grad, gfree (nphys_free
 * values), gcon and goff (n_angles values each).  want_grad with free
 * physics needs a prepare with want_jac.
 * Returns HET_OK, or HET_EINVAL when ev belongs to another problem or
 * was prepared without want_jac while the gradient is wanted.
 * Thread: one at a time per object.
 */
int het_separable_eval(struct het_separable *s,
    const struct het_resid_eval *ev, int want_grad,
    struct het_model_lsq_out *out, struct het_error *err);

/*
 * Moments of one angle (het_separable_moments), HET_SEP_NMOM doubles:
 * the number of pairs n, sum g, sum g^2, sum u g, sum u^2 and the data
 * mean ybar, over the angle's pairs, where u = y - ybar is the centred
 * datum (so sum u = 0).  The sums carry no weight; the likelihood's
 * common weight squared is het_separable_weight2.
 */
#define HET_SEP_NMOM	6
enum { HET_SEP_N = 0, HET_SEP_G, HET_SEP_GG, HET_SEP_UG, HET_SEP_UU,
	HET_SEP_YBAR };

/*
 * het_separable_moments: the per-angle moments above of g at the point
 * ev was prepared on, into mom (n_angles * HET_SEP_NMOM doubles, angle
 * a at mom[HET_SEP_NMOM a]; an angle without pairs gets n = 0 and zero
 * sums).  They are all a Gaussian likelihood that is linear in the
 * angle's contrast and offset needs (het_posterior's marginal of
 * them).  One data pass without adjoints.
 * Returns HET_OK, or HET_EINVAL when ev belongs to another problem.
 * Thread: one at a time per object.
 *
 * het_separable_adjoint: for an objective f whose derivative in each
 * g_k is affine per angle, d f/d g_k = coef[3 a] g_k + coef[3 a + 1] -
 * coef[3 a + 2] u_k (k a pair of angle a), add d f/d theta over the
 * free physics to gfree (nphys_free values) at the point ev was
 * prepared on (with want_jac).  The residual form of het_separable_eval
 * is coef = w2 c (c, o - ybar, 1).  One data pass with adjoints.
 * Returns HET_OK, or HET_EINVAL (ev of another problem, or prepared
 * without want_jac).  Thread: one at a time per object.
 *
 * het_separable_weight2: the common weight squared w^2 (1 without
 * weights).
 */
int het_separable_moments(struct het_separable *s,
    const struct het_resid_eval *ev, double *mom, struct het_error *err);
int het_separable_adjoint(struct het_separable *s,
    const struct het_resid_eval *ev, const double *coef, double *gfree,
    struct het_error *err);
double het_separable_weight2(const struct het_separable *s);

/*
 * The Gauss-Newton normal equations of the plain least squares, per
 * angle (het_separable_normal): with r_k = w (o + c g_k - y_k) over the
 * angle's pairs, the sums a pair-by-pair accumulation of J^T J and J^T r
 * gives, het_separable_normal_len(nfp) doubles per angle:
 *   [HET_SEPN_SS]  sum r^2
 *   [HET_SEPN_CC]  sum (dr/dc)^2 = w^2 sum g^2
 *   [HET_SEPN_CO]  sum dr/dc dr/do = w^2 sum g
 *   [HET_SEPN_OO]  sum (dr/do)^2 = w^2 n
 *   [HET_SEPN_GC], [HET_SEPN_GO]  sum r dr/dc, sum r dr/do
 *   + HET_SEPN_HEAD           nfp: sum r dr/dtheta (physics gradient)
 *   + HET_SEPN_HEAD + nfp     nfp: sum dr/dtheta dr/dc
 *   + HET_SEPN_HEAD + 2 nfp   nfp: sum dr/dtheta dr/do
 *   + HET_SEPN_HEAD + 3 nfp   nfp x nfp row-major, symmetric:
 *                             sum dr/dtheta dr/dtheta^T
 * The cost and gradient entries (SS, GC, GO, the physics gradient) are
 * those of het_separable_eval, per angle, with each residual formed (as
 * the pair kernel does: about 1e-14 relative, also at a noise-free
 * optimum; twice the data pass of the sums of products).  The matrix
 * entries come from O(N) prefix and suffix sums per direction: the
 * tangent of g along
 * each free parameter (het_model_eval_sep_tangent) is separable too, so
 * sum_k dg_k/dtheta dg_k/dtheta_m is the adjoint (het_model_eval_sep_
 * adjoint) of sum_k g_k times that tangent held fixed; without the data
 * and in O(nfp N (SEP_NC^2 + nfp)) per angle instead of O(N^2 nfp^2).
 * They leave out the reference's floor factor rho of pairs inside a run
 * of a rate floored at 0 (a relative 1e-9 on those pairs, het_model.h):
 * a Gauss-Newton matrix only guides the steps, and the cost and gradient
 * keep it.
 */
enum { HET_SEPN_SS = 0, HET_SEPN_CC, HET_SEPN_CO, HET_SEPN_OO, HET_SEPN_GC,
	HET_SEPN_GO, HET_SEPN_HEAD };
#define HET_SEPN_MAXBLK	8	/* shift blocks het_separable_normal takes */
#define het_separable_normal_len(nfp) \
	((size_t)HET_SEPN_HEAD + 3 * (size_t)(nfp) + (size_t)(nfp) * (nfp))

/*
 * het_separable_normal: the normal equations above at the point ev was
 * prepared on, for angle `angle` (>= 0) or every angle (-1), into out
 * (n_angles * het_separable_normal_len(nfp) doubles, angle a at out + a
 * len; angles not evaluated or without pairs are zeroed).  full = 0:
 * the head alone (cost and the contrast/offset block: one data pass
 * without adjoints); full = 1: everything (needs a prepare with
 * want_jac).
 * Returns HET_OK, or HET_EINVAL: an evaluated angle lacks some pair i <
 * j (the prefix sums need complete triangles; message "not complete:
 * ..."), ev of another problem, full without the Jacobian tables;
 * HET_ERANGE: at this point the per-frame exponentials need more than
 * HET_SEPN_MAXBLK shift blocks (a rate so large that q^2 times its
 * integral rises by more than 300 HET_SEPN_MAXBLK over the frames: far
 * from any fit of such data, e.g. a multistart corner); the sums then
 * cost O(N) per block and direction, so the caller should use the pair
 * kernel for it; HET_ENOMEM (the workspace is allocated on the first
 * full call).
 * Thread: one at a time per object.
 *
 * het_separable_complete: 1 when angle a (>= 0) or every angle that has
 * pairs (-1) holds every pair i < j of the N frames.
 */
int het_separable_normal(struct het_separable *s,
    const struct het_resid_eval *ev, long angle, int full, double *out,
    struct het_error *err);
int het_separable_complete(const struct het_separable *s, long angle);

/*
 * het_separable_normal_range: the same for the angles a0 <= a < a1,
 * writing only their slots of out (so that views of one problem may
 * fill disjoint ranges of one out at once, one per thread).  Errors as
 * het_separable_normal, and HET_EINVAL for a range outside the angles.
 */
int het_separable_normal_range(struct het_separable *s,
    const struct het_resid_eval *ev, size_t a0, size_t a1, int full,
    double *out, struct het_error *err);

/*
 * het_separable_exact: 1 when the last point evaluated had no pair inside
 * a run of a rate floored at 0, so that het_separable_normal's matrix
 * entries there equal the pair kernel's to rounding; 0 when they leave
 * out the rho factor of such pairs (a caller that classifies directions
 * by eigenvalues near rounding, as a fit report does, then takes the
 * pair kernel's).
 */
int het_separable_exact(const struct het_separable *s);

/* het_separable_blocks: the shift blocks of the last point evaluated. */
size_t het_separable_blocks(const struct het_separable *s);

/*
 * het_separable_loglik: prepare ev at x (p values, het_resid order) and
 * give the Gaussian log-likelihood ll = -1/2 sum_k r_k^2 / sigma^2 and,
 * when grad is not NULL, its gradient d ll/dx (p values: free physics,
 * then free scaling parameters through het_scaling_rows).
 * Returns HET_OK, or HET_EINVAL (sigma not positive and finite, a
 * non-finite x, ev of another problem), or the model's error.
 * Thread: one at a time per object and per ev.
 */
int het_separable_loglik(struct het_separable *s, struct het_resid_eval *ev,
    const double *x, double sigma, double *ll, double *grad,
    struct het_error *err);

#endif /* HET_SEPARABLE_H */
