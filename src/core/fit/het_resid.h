/*
 * het_resid.h: the fitting problem: residuals and Jacobian of
 * observed c2 against model c2, for the NLSQ engine and the NUTS sampler.
 *
 * A problem binds
 *   - a model (het_model.h), which gives the shape g(theta; a, i, j) and
 *     dg/dtheta for the free physics parameters;
 *   - a scaling (het_scaling.h), which maps the scaling vector s to the
 *     per-angle contrast_a and offset_a;
 *   - a mask of free physics parameters and a mask of free scaling
 *     parameters, with the values of the fixed ones;
 *   - n data: upper-triangle pairs (a, i < j), observed values y_k and
 *     optional weights w_k (w = 1 when absent).
 *
 * The parameter vector of the fit is
 *
 *	x = [ theta_free (physics, in table order) , s_free (scaling order) ]
 *
 * of length p = nphys_free + nscal_free, and the residuals are
 *
 *	r_k = w_k (offset_a + contrast_a g_k - y_k),   a = pairs[k].a.
 *
 * (w_k = 1/sigma_k gives the usual chi-square; the diagonal i == j is never
 * a datum.)  The Jacobian row of pair k is
 *
 *	dr_k/dtheta_c = w_k contrast_a dg_k/dtheta_c
 *	dr_k/ds_m     = w_k (g_k dcontrast_a/ds_m + doffset_a/ds_m)
 *
 * where the scaling derivatives are the sparse constant rows of
 * het_scaling_rows (one entry each in individual and averaged modes).
 *
 * Evaluation has the model's two steps:
 *   1. het_resid_prepare(ev, x, want_jac) on one thread: unpack x, build
 *      the model's per-time tables (O(N n_free)) and the per-angle
 *      contrast/offset.
 *   2. het_resid_eval_rows / _compact / _model on any chunk [first,
 *      first + n) of the pairs, from several threads at once on disjoint
 *      chunks, each thread with its own struct het_resid_scratch (made
 *      once by het_resid_scratch_alloc): nothing is allocated, locked or
 *      reduced across pairs, so a chunked evaluation equals a one-pass
 *      evaluation bit for bit, whatever the chunking.
 * Two Jacobian layouts are offered: dense rows of length p (simple; fine
 * when p is small), and the compact form (physics block plus one scalar
 * per pair, dr/dcontrast_a = w g) that an engine combines with the sparse
 * scaling rows itself; with individual scaling that keeps J^T J
 * accumulation at O(nphys_free^2) per pair instead of O(p^2).
 *
 * Ownership: the problem borrows the model, the scaling, the pairs, y and
 * w (they must outlive it and stay unchanged); it copies the masks and
 * fixed values.  The problem is immutable after het_resid_alloc and may
 * be shared by threads; workspaces and scratch are per user.
 */
#ifndef HET_RESID_H
#define HET_RESID_H

#include <stddef.h>

#include "het_error.h"
#include "het_model.h"
#include "het_scaling.h"

struct het_resid_spec {
	/* Borrowed; the scaling's n_angles must equal the model's. */
	const struct het_model	 *model;
	const struct het_scaling *scaling;
	/* nphys values: fixed physics values, start of free ones (copied). */
	const double		*theta;
	/* NULL (all physics free) or nphys flags (copied). */
	const unsigned char	*free;
	/* NULL (the scaling defaults) or nscal values (copied). */
	const double		*s;
	/* NULL (all scaling parameters free) or nscal flags (copied). */
	const unsigned char	*s_free;
	/* The data, borrowed: n pairs, observed c2, NULL or weights >= 0. */
	size_t			 n;
	const struct het_pair	*pairs;
	const double		*y;
	const double		*w;
};

struct het_resid;
struct het_resid_eval;
struct het_resid_scratch;

/*
 * het_resid_alloc: validate and bind a problem.
 * Returns the problem (caller frees with het_resid_free) or NULL with
 *   HET_EINVAL  missing model, scaling, theta or data arrays; angle counts
 *               of model and scaling differ; a non-finite theta or s;
 *               a pair with i >= j, j >= N or a >= n_angles (the message
 *               names the pair);
 *   HET_EDATA   a non-finite y, or a weight that is negative or not
 *               finite (mask such points before building the problem);
 *   HET_ENOMEM.
 * n = 0 is allowed (an empty problem evaluates nothing).
 * Thread: any.
 */
struct het_resid *het_resid_alloc(const struct het_resid_spec *spec,
    struct het_error *err);
void het_resid_free(struct het_resid *r);

/* Sizes: data n, parameters p, free physics, free scaling parameters. */
size_t het_resid_ndata(const struct het_resid *r);
size_t het_resid_nparams(const struct het_resid *r);
size_t het_resid_nphys_free(const struct het_resid *r);
size_t het_resid_nscal_free(const struct het_resid *r);

/*
 * het_resid_param_name: the name of x[k] (a physics name from the
 * parameter table, or a scaling name such as "contrast[2]").  Borrowed,
 * valid for the life of r.  "" when k >= p.
 */
const char *het_resid_param_name(const struct het_resid *r, size_t k);

/*
 * het_resid_phys_col / het_resid_scal_col: the column of x holding
 * physics parameter `index` or scaling parameter `index`, or -1 when it
 * is fixed (or out of range).
 */
long het_resid_phys_col(const struct het_resid *r, size_t index);
long het_resid_scal_col(const struct het_resid *r, size_t index);

/*
 * het_resid_x0: the start vector (free entries of theta and s as given to
 * _alloc), p values.  het_resid_bounds: the table bounds of each entry of
 * x (physics: het_params_table; scaling: het_scaling_bounds); callers
 * with configured bounds override them.
 */
void het_resid_x0(const struct het_resid *r, double *x);
void het_resid_bounds(const struct het_resid *r, double *lo, double *hi);

/*
 * het_resid_unpack: the full physics vector (nphys) and full scaling
 * vector (nscal) for x: free entries from x, fixed ones from the problem.
 * Either output may be NULL.
 */
void het_resid_unpack(const struct het_resid *r, const double *x,
    double *theta, double *s);

/*
 * het_resid_eval_alloc: a workspace (model evaluation tables and
 * per-angle scaling) for one x at a time.  Owned by the caller
 * (het_resid_eval_free).  NULL with HET_ENOMEM.
 */
struct het_resid_eval *het_resid_eval_alloc(const struct het_resid *r,
    struct het_error *err);
void het_resid_eval_free(struct het_resid_eval *ev);

/*
 * het_resid_prepare: fix x (p values) for the following evaluations.
 *   want_jac  0: residuals and model values only (the model skips its
 *             derivative tables); 1: Jacobians may be requested.
 * Returns HET_OK, or HET_EINVAL for a non-finite x (the message names
 * the parameter).
 * Thread: one at a time per workspace, never concurrently with the
 * evaluation calls on the same workspace.
 */
int het_resid_prepare(struct het_resid_eval *ev, const double *x,
    int want_jac, struct het_error *err);

/*
 * het_resid_angle_scaling: the per-angle contrast and offset of the
 * prepared x (n_angles values each, borrowed from ev until the next
 * prepare).
 */
void het_resid_angle_scaling(const struct het_resid_eval *ev,
    const double **contrast, const double **offset);

/*
 * het_resid_scratch_alloc: per-thread scratch for evaluations of up to
 * `chunk` pairs per internal block (any chunk >= 1 works; larger chunks
 * amortise call overhead; 256 is a good value).  Owned by the caller
 * (het_resid_scratch_free).  NULL with HET_EINVAL (chunk 0) or
 * HET_ENOMEM.  Thread: any; a scratch is used by one thread at a time.
 */
struct het_resid_scratch *het_resid_scratch_alloc(const struct het_resid *r,
    size_t chunk, struct het_error *err);
void het_resid_scratch_free(struct het_resid_scratch *scr);

/*
 * het_resid_eval_rows: residuals and dense Jacobian rows of the pairs
 * first .. first + n - 1 (first + n <= ndata).
 *   res  out: n residuals (may be NULL when only J is wanted).
 *   J    out: NULL, or n * p values, row-major (row k - first is pair k);
 *        needs a prepare with want_jac.
 * Thread: any number of threads at once on one prepared workspace, each
 * with its own scratch and disjoint output ranges.
 */
void het_resid_eval_rows(const struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t first, size_t n, double *res,
    double *J);

/*
 * het_resid_eval_compact: residuals and the factored Jacobian of the
 * pairs first .. first + n - 1:
 *   res    out: NULL or n residuals;
 *   Jphys  out: NULL or n * nphys_free values, row-major,
 *          dr_k/dtheta_free (needs want_jac);
 *   dcon   out: NULL or n values dr_k/dcontrast_a = w_k g_k.
 * The remaining factor dr_k/doffset_a is w_k (het_resid_weight).  With
 * het_scaling_rows and het_resid_scal_col they give every scaling column:
 * dr_k/dx[scal_col(idx)] += dcon_k * wc + w_k * wo.
 * Thread: as het_resid_eval_rows.
 */
void het_resid_eval_compact(const struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t first, size_t n, double *res,
    double *Jphys, double *dcon);

/*
 * het_resid_eval_lsq: the gradient of half the sum of squares of the
 * pairs first .. first + n - 1 without Jacobian rows.  With r_k the
 * residuals of het_resid_eval_rows, it adds to out (het_model.h):
 *   ss        sum r_k^2;
 *   gfree[c]  sum r_k dr_k/dtheta_c over the free physics (nphys_free);
 *   gcon[a]   sum over angle a of r_k w_k g_k (r_k dcon_k);
 *   goff[a]   sum over angle a of r_k w_k;
 * so every scaling column's derivative follows as in _compact.  One
 * fused pass where the model family has one (het_model_lsq_scratch),
 * else through the model's Jacobian rows in blocks of the scratch.
 * Needs a prepare with want_jac when physics parameters are free.
 * Thread: as het_resid_eval_rows, each thread with its own out.
 */
void het_resid_eval_lsq(const struct het_resid_eval *ev,
    struct het_resid_scratch *scr, size_t first, size_t n,
    struct het_model_lsq_out *out);

/*
 * het_resid_eval_model: model c2 (unweighted, no data) of the pairs
 * first .. first + n - 1 into c2 (n values).  Needs no scratch.
 * Thread: as het_resid_eval_rows.
 */
void het_resid_eval_model(const struct het_resid_eval *ev, size_t first,
    size_t n, double *c2);

/*
 * het_resid_pairs / het_resid_scaling: the pair list (ndata entries) and
 * the scaling the problem was built with (borrowed from the caller of
 * het_resid_alloc; the NLSQ engine groups its sums by angle with them).
 */
const struct het_pair *het_resid_pairs(const struct het_resid *r);
const struct het_scaling *het_resid_scaling(const struct het_resid *r);

/* het_resid_weight: w_k of datum k (1 when the problem has no weights). */
double het_resid_weight(const struct het_resid *r, size_t k);

/* het_resid_y: the observed values (ndata, borrowed from the caller). */
const double *het_resid_y(const struct het_resid *r);

/* het_resid_model: the model the problem was built with (borrowed). */
const struct het_model *het_resid_model(const struct het_resid *r);

/*
 * het_resid_eval_problem / het_resid_eval_mev: the problem a workspace
 * evaluates, and its model workspace as the last het_resid_prepare left
 * it (borrowed; het_model_eval_nfree is 0 after a prepare without
 * want_jac).  For passes that read the model's per-frame tables
 * themselves (het_separable).
 */
const struct het_resid *het_resid_eval_problem(
    const struct het_resid_eval *ev);
const struct het_model_eval *het_resid_eval_mev(
    const struct het_resid_eval *ev);

/*
 * het_resid_model_matrix: the full N x N model matrix of angle a for the
 * prepared x, diagonal included (offset_a + contrast_a g(a, i, j)), into
 * c2 (N * N values, row-major).  For drawing; O(N^2).
 * Thread: as het_resid_eval_rows.
 */
void het_resid_model_matrix(const struct het_resid_eval *ev, size_t a,
    double *c2);

#endif /* HET_RESID_H */
