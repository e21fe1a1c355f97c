/*
 * t_core_separable.c: the separable likelihood (het_separable) against
 * the pair kernel.
 *
 * For each problem the data are the model at a truth point plus a fixed
 * uniform noise of amplitude 0.01, and the likelihood is evaluated at
 * the truth and at NDRAW random points around it (physics within +-25 %,
 * contrast 0.2-0.5, offset 0.95-1.05 per angle):
 *   - het_separable_eval against het_resid_eval_lsq (the fused pair pass
 *     for heterodyne, Jacobian rows for homodyne): ss within 1e-9
 *     relative, every entry of gfree within 1e-8 of its largest entry,
 *     and of gcon and goff within 1e-8 of the largest of both (the sums
 *     are formed in another order and, for a complete triangle, from
 *     sums of products, so agreement is to rounding times the
 *     cancellation between sum y^2, sum y g and sum g^2: about 1e-11
 *     observed, 1e-14 for subsets; errors are printed as diagnostics;
 *     homodyne's g1 floor, g = 1e-20 with zero derivative below it, is
 *     not reproduced, which is why gcon is not compared on its own);
 *   - het_separable_loglik's gradient in x against -J^T r / sigma^2 from
 *     het_resid_eval_rows (1e-8 of the largest entry), and against
 *     fourth-order central differences of its own value (step 1e-4
 *     relative; 1e-6 of the largest entry);
 *   - het_separable_normal (every complete problem) against the pair
 *     kernel's per-angle sums of het_resid_eval_compact's rows: cost,
 *     contrast/offset sums, physics gradient, the cross terms and the
 *     physics J^T J (the tangents of het_model_eval_sep_tangent against
 *     the kernel's analytic Jacobian); a view and a one-angle object
 *     give the same numbers bit for bit; refusals of an incomplete
 *     angle, a point without Jacobian tables, an angle out of range.
 * Problems: two_component on a complete triangle and on a random 40 %
 * subset of the pairs in random order; rates that cross zero inside the
 * window (floored at 0: the pairs inside a zero run carry the
 * reference's sabs factor) with fractions saturated at 0 and at 1; a
 * reference rate so large that q^2 Sr reaches ~2800 (about ten shift
 * blocks; unshifted e^{q^2 S} would overflow); static_ref and static_both
 * (their free sets); equal weights; constant scaling; homodyne static
 * complete, subset and with q^2 dt S_D to ~1000; 60 pairs on a
 * 30,000-frame grid.  Error paths: laminar_flow, unequal weights, a
 * repeated pair, a workspace of another problem, a gradient without
 * Jacobian tables, sigma <= 0 and a non-finite x.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_model.h"
#include "het_params.h"
#include "het_resid.h"
#include "het_scaling.h"
#include "het_separable.h"
#include "tap.h"

#define NDRAW	6
#define PMAX	(HET_MAX_PHYS + 2 * 8)
#define SIGMA	0.05
#define TOL_SS	1e-9
#define TOL_G	1e-8
#define TOL_FD	1e-6
#define TOL_GN_RUNS	1e-6

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double
unif(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) *
	    (1.0 / 9007199254740992.0);
}

static const double phi8[8] = { -157.5, -112.5, -67.5, -22.5, 22.5, 67.5,
	112.5, 157.5 };

/* Heterodyne truths: generic; rates crossing 0 and saturated fractions;
 * a huge reference rate. */
static const double th_gen[HET_P_HET_COUNT] = {
	200, 0.5, 100, 300, -0.5, 200, 30, 0.4, 5, 0.05, 0.08, 5, 0.3, 3
};
static const double th_clip[HET_P_HET_COUNT] = {
	200, 0.5, -300, 500, -0.5, -280, 25, 0.6, -3, 0.3, 1.5, 2, -0.1, -4
};
static const double th_big[HET_P_HET_COUNT] = {
	3e5, 0.5, 2e4, 400, -0.3, 150, 20, 0.5, 4, 0.2, 0.3, 2, 0.3, 7
};
static const double th_mid[HET_P_HET_COUNT] = {
	7e4, 0.5, 5e3, 400, -0.3, 150, 20, 0.5, 4, 0.2, 0.3, 2, 0.3, 7
};
/* Homodyne static truths: moderate and a large rate. */
static const double th_hom[3] = { 1000, 0.3, 50 };
static const double th_hbig[3] = { 1.5e5, 0.2, 2e4 };

struct pcase {
	const char	*name;
	enum het_mode	 mode;
	size_t		 nf, na;
	double		 q;
	const double	*theta;
	double		 keep;		/* fraction of pairs kept; 1: all */
	double		 weight;	/* 0: none, else every weight */
	enum het_scaling_mode smode;
};

static const struct pcase cases[] = {
	{ "two_component complete", HET_MODE_TWO_COMPONENT, 40, 5, 0.03,
	    th_gen, 1, 0, HET_SCALING_INDIVIDUAL },
	{ "two_component 40% subset", HET_MODE_TWO_COMPONENT, 40, 5, 0.03,
	    th_gen, 0.4, 0, HET_SCALING_INDIVIDUAL },
	{ "clipped rates, saturated fractions", HET_MODE_TWO_COMPONENT, 40, 4,
	    0.03, th_clip, 1, 0, HET_SCALING_INDIVIDUAL },
	{ "clipped, saturated, subset", HET_MODE_TWO_COMPONENT, 40, 4, 0.03,
	    th_clip, 0.4, 0, HET_SCALING_INDIVIDUAL },
	{ "q^2 Sr to 2800 (blocks)", HET_MODE_TWO_COMPONENT, 60, 3, 0.03,
	    th_big, 1, 0, HET_SCALING_INDIVIDUAL },
	{ "q^2 Sr to 2800, subset", HET_MODE_TWO_COMPONENT, 60, 3, 0.03,
	    th_big, 0.4, 0, HET_SCALING_INDIVIDUAL },
	{ "q^2 Sr to 700 (a few blocks)", HET_MODE_TWO_COMPONENT, 60, 3, 0.03,
	    th_mid, 1, 0, HET_SCALING_INDIVIDUAL },
	{ "static_ref", HET_MODE_STATIC_REF, 30, 3, 0.03, th_gen, 1, 0,
	    HET_SCALING_INDIVIDUAL },
	{ "static_both, subset", HET_MODE_STATIC_BOTH, 30, 3, 0.03, th_gen,
	    0.5, 0, HET_SCALING_INDIVIDUAL },
	{ "equal weights 1.7", HET_MODE_TWO_COMPONENT, 30, 3, 0.03, th_gen, 1,
	    1.7, HET_SCALING_INDIVIDUAL },
	{ "constant scaling", HET_MODE_TWO_COMPONENT, 30, 3, 0.03, th_gen,
	    0.6, 0, HET_SCALING_CONSTANT },
	{ "homodyne static", HET_MODE_HOM_STATIC, 40, 3, 0.02, th_hom, 1, 0,
	    HET_SCALING_INDIVIDUAL },
	{ "homodyne static, subset", HET_MODE_HOM_STATIC, 40, 3, 0.02, th_hom,
	    0.4, 0, HET_SCALING_INDIVIDUAL },
	{ "homodyne static, L to 1000", HET_MODE_HOM_STATIC, 120, 2, 0.02,
	    th_hbig, 1, 0, HET_SCALING_INDIVIDUAL },
};

struct prob {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_resid_eval	*ev;
	struct het_resid_scratch *scr;
	struct het_separable	*sep;
	struct het_pair		*pairs;
	double			*y, *w, *res, *J;
	size_t			 n, p, nfp, na;
	double			 x0[PMAX];
};

static void
prob_fini(struct prob *P)
{
	het_separable_free(P->sep);
	het_resid_scratch_free(P->scr);
	het_resid_eval_free(P->ev);
	het_resid_free(P->r);
	het_scaling_free(P->sc);
	het_model_free(P->m);
	free(P->pairs);
	free(P->y);
	free(P->w);
	free(P->res);
	free(P->J);
	memset(P, 0, sizeof(*P));
}

/* The pairs of the case: all (angle innermost) or a shuffled subset. */
static void
prob_pairs(struct prob *P, const struct pcase *C)
{
	struct het_pair t;
	size_t i, j, a, k, l;

	for (i = 0; i < C->nf; i++)
		for (j = i + 1; j < C->nf; j++)
			for (a = 0; a < C->na; a++) {
				if (C->keep < 1 && unif() >= C->keep)
					continue;
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n++].a = (uint32_t)a;
			}
	if (C->keep >= 1)
		return;
	for (k = P->n; k > 1; k--) {
		l = (size_t)(unif() * (double)k);
		t = P->pairs[k - 1];
		P->pairs[k - 1] = P->pairs[l];
		P->pairs[l] = t;
	}
}

/* Everything but the separable object. */
static int
prob_build(struct prob *P, const struct pcase *C, struct het_error *err)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	unsigned char fr[HET_MAX_PHYS];
	size_t k, nmax = C->na * C->nf * (C->nf - 1) / 2;

	memset(P, 0, sizeof(*P));
	memset(&ms, 0, sizeof(ms));
	ms.mode = C->mode;
	ms.q = C->q;
	ms.dt = 0.1;
	ms.start_frame = 2;
	ms.n_frames = C->nf;
	ms.n_angles = C->na;
	ms.phi = phi8;
	ms.gap = 2e6;		/* laminar_flow only */
	het_scaling_default_spec(&ss, het_mode_family(C->mode), C->smode,
	    C->na, phi8);
	P->pairs = calloc(nmax, sizeof(*P->pairs));
	P->y = calloc(nmax, sizeof(double));
	P->w = calloc(nmax, sizeof(double));
	if (P->pairs == NULL || P->y == NULL || P->w == NULL ||
	    (P->m = het_model_alloc(&ms, err)) == NULL ||
	    (P->sc = het_scaling_alloc(&ss, err)) == NULL)
		return -1;
	prob_pairs(P, C);
	for (k = 0; k < het_mode_nphys(C->mode); k++)
		fr[k] = (unsigned char)het_mode_default_vary(C->mode, k);
	for (k = 0; k < P->n; k++)
		P->w[k] = C->weight;
	memset(&rs, 0, sizeof(rs));
	rs.model = P->m;
	rs.scaling = P->sc;
	rs.theta = C->theta;
	rs.free = fr;
	rs.n = P->n;
	rs.pairs = P->pairs;
	rs.y = P->y;
	rs.w = C->weight > 0 ? P->w : NULL;
	if ((P->r = het_resid_alloc(&rs, err)) == NULL ||
	    (P->ev = het_resid_eval_alloc(P->r, err)) == NULL ||
	    (P->scr = het_resid_scratch_alloc(P->r, 64, err)) == NULL)
		return -1;
	P->p = het_resid_nparams(P->r);
	P->nfp = het_resid_nphys_free(P->r);
	P->na = C->na;
	P->res = calloc(P->n, sizeof(double));
	P->J = calloc(P->n * P->p, sizeof(double));
	if (P->res == NULL || P->J == NULL)
		return -1;
	het_resid_x0(P->r, P->x0);
	for (k = P->nfp; k < P->p; k++)	/* varied truth scaling */
		P->x0[k] += 0.05 * (2 * unif() - 1);
	if (het_resid_prepare(P->ev, P->x0, 0, err) != HET_OK)
		return -1;
	het_resid_eval_model(P->ev, 0, P->n, P->y);	/* y is borrowed */
	for (k = 0; k < P->n; k++)
		P->y[k] += 0.01 * (2 * unif() - 1);
	return 0;
}

static int
prob_init(struct prob *P, const struct pcase *C, struct het_error *err)
{
	if (prob_build(P, C, err) != 0)
		return -1;
	return (P->sep = het_separable_alloc(P->r, err)) == NULL ? -1 : 0;
}

/* A random point around the truth (draw 0 is the truth). */
static void
draw_x(const struct prob *P, int d, double *x)
{
	const char *nm;
	size_t k;

	memcpy(x, P->x0, P->p * sizeof(*x));
	if (d == 0)
		return;
	for (k = 0; k < P->p; k++) {
		nm = het_resid_param_name(P->r, k);
		if (k < P->nfp)
			x[k] = x[k] * (1 + 0.25 * (2 * unif() - 1)) +
			    0.02 * (2 * unif() - 1);
		else if (strncmp(nm, "contrast", 8) == 0)
			x[k] = 0.2 + 0.3 * unif();
		else if (strncmp(nm, "offset", 6) == 0)
			x[k] = 0.95 + 0.1 * unif();
	}
}

/* Largest |a - b| relative to the largest |b| (absolute when b is 0). */
static double
vec_err(const double *a, const double *b, size_t n)
{
	double e = 0, s = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		e = fmax(e, fabs(a[k] - b[k]));
		s = fmax(s, fabs(b[k]));
	}
	return s > 0 ? e / s : e;
}

struct lsq {
	struct het_model_lsq_out o;
	double gf[HET_MAX_PHYS], gc[8], go[8];
};

/* gcon and goff together, relative to the largest entry of either. */
static double
scal_err(const struct lsq *S, const struct lsq *R, size_t na)
{
	double e = 0, m = 0;
	size_t a;

	for (a = 0; a < na; a++) {
		e = fmax(e, fmax(fabs(S->gc[a] - R->gc[a]),
		    fabs(S->go[a] - R->go[a])));
		m = fmax(m, fmax(fabs(R->gc[a]), fabs(R->go[a])));
	}
	return m > 0 ? e / m : e;
}

static void
lsq_zero(struct lsq *L)
{
	memset(L, 0, sizeof(*L));
	L->o.gfree = L->gf;
	L->o.gcon = L->gc;
	L->o.goff = L->go;
}

/* -J^T r / sigma^2 from the Jacobian rows at x. */
static void
dense_grad(struct prob *P, const double *x, double *g)
{
	size_t k, c;

	het_resid_prepare(P->ev, x, 1, NULL);
	het_resid_eval_rows(P->ev, P->scr, 0, P->n, P->res, P->J);
	memset(g, 0, P->p * sizeof(*g));
	for (k = 0; k < P->n; k++)
		for (c = 0; c < P->p; c++)
			g[c] -= P->res[k] * P->J[k * P->p + c] /
			    (SIGMA * SIGMA);
}

/* Central differences of the separable log-likelihood at x. */
static double
fd_err(struct prob *P, const double *x, const double *g)
{
	static const double step[4] = { 1, -1, 2, -2 };
	double xp[PMAX], fd[PMAX], l[4], h;
	size_t k, m;

	for (k = 0; k < P->p; k++) {
		memcpy(xp, x, P->p * sizeof(*x));
		h = 1e-4 * fmax(fabs(x[k]), 1e-2);
		for (m = 0; m < 4; m++) {
			xp[k] = x[k] + step[m] * h;
			het_separable_loglik(P->sep, P->ev, xp, SIGMA, &l[m],
			    NULL, NULL);
		}
		/* the fourth-order stencil: truncation O(h^4) */
		fd[k] = (8 * (l[0] - l[1]) - (l[2] - l[3])) / (12 * h);
	}
	return vec_err(g, fd, P->p);
}

static void
run_case(const struct pcase *C)
{
	struct prob P;
	struct het_error err;
	struct lsq R, S;
	double x[PMAX], gs[PMAX], gd[PMAX], ll, e, ess = 0, eg = 0, egx = 0;
	double efd = 0;
	int d, rc = 0;

	if (prob_init(&P, C, &err) != 0) {
		ok(0, "%s: problem built (%s)", C->name, err.msg);
		skip(4, "no problem");
		prob_fini(&P);
		return;
	}
	for (d = 0; d <= NDRAW; d++) {
		draw_x(&P, d, x);
		lsq_zero(&R);
		lsq_zero(&S);
		het_resid_prepare(P.ev, x, 1, NULL);
		het_resid_eval_lsq(P.ev, P.scr, 0, P.n, &R.o);
		rc |= het_separable_eval(P.sep, P.ev, 1, &S.o, &err);
		ess = fmax(ess, fabs(S.o.ss - R.o.ss) / R.o.ss);
		e = fmax(vec_err(S.gf, R.gf, P.nfp), scal_err(&S, &R, P.na));
		eg = fmax(eg, e);
		rc |= het_separable_loglik(P.sep, P.ev, x, SIGMA, &ll, gs,
		    &err);
		ess = fmax(ess, fabs(ll + 0.5 * R.o.ss / (SIGMA * SIGMA)) /
		    (0.5 * R.o.ss / (SIGMA * SIGMA)));
		dense_grad(&P, x, gd);
		egx = fmax(egx, vec_err(gs, gd, P.p));
		if (d < 3)
			efd = fmax(efd, fd_err(&P, x, gs));
	}
	diag("%s: %zu pairs, p %zu: ss %.2g, grad %.2g, grad x %.2g, "
	    "fd %.2g", C->name, P.n, P.p, ess, eg, egx, efd);
	ok(rc == HET_OK, "%s: every evaluation succeeds", C->name);
	ok(ess <= TOL_SS, "%s: ss and log-likelihood agree (%.2g)", C->name,
	    ess);
	ok(eg <= TOL_G, "%s: gfree, gcon, goff agree (%.2g)", C->name, eg);
	ok(egx <= TOL_G, "%s: gradient in x equals -J^T r/sigma^2 (%.2g)",
	    C->name, egx);
	ok(efd <= TOL_FD, "%s: gradient equals central differences (%.2g)",
	    C->name, efd);
	prob_fini(&P);
}

/*
 * The pair kernel's per-angle normal equations at the prepared point
 * over the pairs whose frames lie below fw, in het_separable_normal's
 * layout (het_resid_eval_compact's rows).
 */
static void
dense_normal(struct prob *P, size_t fw, double *ref)
{
	size_t len = het_separable_normal_len(P->nfp), nf = P->nfp;
	size_t k, kk, nb, l, m, a;
	double jp[64 * HET_MAX_PHYS], res[64], dc[64], *o, w, *J;

	memset(ref, 0, P->na * len * sizeof(double));
	for (k = 0; k < P->n; k += nb) {
		nb = P->n - k < 64 ? P->n - k : 64;
		het_resid_eval_compact(P->ev, P->scr, k, nb, res, jp, dc);
		for (kk = 0; kk < nb; kk++) {
			if (P->pairs[k + kk].j >= fw)
				continue;
			a = P->pairs[k + kk].a;
			o = ref + a * len;
			w = het_resid_weight(P->r, k + kk);
			o[HET_SEPN_SS] += res[kk] * res[kk];
			o[HET_SEPN_CC] += dc[kk] * dc[kk];
			o[HET_SEPN_CO] += dc[kk] * w;
			o[HET_SEPN_OO] += w * w;
			o[HET_SEPN_GC] += res[kk] * dc[kk];
			o[HET_SEPN_GO] += res[kk] * w;
			J = o + HET_SEPN_HEAD + 3 * nf;
			for (l = 0; l < nf; l++) {
				o[HET_SEPN_HEAD + l] += res[kk] *
				    jp[kk * nf + l];
				o[HET_SEPN_HEAD + nf + l] += dc[kk] *
				    jp[kk * nf + l];
				o[HET_SEPN_HEAD + 2 * nf + l] += w *
				    jp[kk * nf + l];
				for (m = 0; m < nf; m++)
					J[l * nf + m] += jp[kk * nf + l] *
					    jp[kk * nf + m];
			}
		}
	}
}

/*
 * Largest error of each part of the normal equations: e[0] the cost and
 * gradient entries of the head (SS, GC, GO) one by one, e[1] .. e[4]
 * each nfp block relative to its largest entry over the angles, e[5]
 * the matrix entries of the head (CC, CO, OO) one by one.
 */
static void
normal_err(const struct prob *P, const double *s, const double *r,
    double e[6])
{
	size_t len = het_separable_normal_len(P->nfp), nf = P->nfp, a, k;
	size_t part, off[4] = { HET_SEPN_HEAD, HET_SEPN_HEAD + nf,
		HET_SEPN_HEAD + 2 * nf, HET_SEPN_HEAD + 3 * nf };
	size_t cnt[4] = { nf, nf, nf, nf * nf };
	double big, d;

	for (a = 0; a < P->na; a++)
		for (k = 0; k < HET_SEPN_HEAD; k++) {
			d = fabs(s[a * len + k] - r[a * len + k]) /
			    fmax(fabs(r[a * len + k]), 1e-300);
			part = k == HET_SEPN_CC || k == HET_SEPN_CO ||
			    k == HET_SEPN_OO ? 5 : 0;
			e[part] = fmax(e[part], d);
		}
	for (part = 0; part < 4; part++) {
		big = 0;
		d = 0;
		for (a = 0; a < P->na; a++)
			for (k = off[part]; k < off[part] + cnt[part]; k++) {
				big = fmax(big, fabs(r[a * len + k]));
				d = fmax(d, fabs(s[a * len + k] -
				    r[a * len + k]));
			}
		e[1 + part] = fmax(e[1 + part], big > 0 ? d / big : d);
	}
}

/*
 * A point whose exponentials need more shift blocks than the normal
 * equations take (th_big: q^2 Sr reaches ~2800): refused with
 * HET_ERANGE, so that a fit takes the pair kernel there.
 */
static void
normal_steep(struct prob *P, const struct pcase *C)
{
	struct het_error err;
	double *out = calloc(P->na * het_separable_normal_len(P->nfp),
	    sizeof(double));
	int rc = -1;

	memset(&err, 0, sizeof(err));
	het_resid_prepare(P->ev, P->x0, 1, NULL);
	if (out != NULL)
		rc = het_separable_normal(P->sep, P->ev, -1, 1, out, &err);
	ok(rc == HET_ERANGE && het_separable_blocks(P->sep) >
	    HET_SEPN_MAXBLK, "%s: %zu blocks refused with HET_ERANGE",
	    C->name, het_separable_blocks(P->sep));
	like(err.msg, "the pair kernel serves this point", "%s: says the "
	    "pair kernel takes it", C->name);
	free(out);
}

/*
 * het_separable_normal against the pair kernel's sums on a complete
 * case, at the truth and random points; per-angle objects and views
 * give the same numbers bit for bit.  The cost and gradient entries
 * agree as het_separable_eval's do; the matrix entries leave out the
 * rho factor of pairs inside a run of a rate floored at 0 (th_clip: a
 * relative 1e-9 on those pairs, documented in het_separable.h), so
 * there they agree to TOL_GN_RUNS of the largest entry, elsewhere to
 * rounding (TOL_G).
 */
static void
normal_case(const struct pcase *C)
{
	struct prob P;
	struct het_error err;
	struct het_separable *one = NULL, *view = NULL, *win = NULL;
	double x[PMAX], *sn, *rn, *s1, *sv, e[6] = { 0 }, ew[6] = { 0 }, tm;
	size_t len, a1, w;
	int d, rc = 0, same = 1;

	if (prob_init(&P, C, &err) != 0) {
		ok(0, "%s: problem built (%s)", C->name, err.msg);
		prob_fini(&P);
		return;
	}
	if (C->theta == th_big) {
		normal_steep(&P, C);
		prob_fini(&P);
		return;
	}
	len = het_separable_normal_len(P.nfp);
	a1 = P.na - 1;
	sn = calloc(P.na * len, sizeof(double));
	rn = calloc(P.na * len, sizeof(double));
	s1 = calloc(P.na * len, sizeof(double));
	sv = calloc(P.na * len, sizeof(double));
	one = het_separable_alloc_angle(P.r, (long)a1, &err);
	view = het_separable_view(P.sep, &err);
	w = 2 * C->nf / 3;
	win = het_separable_alloc_window(P.r, -1, w, &err);
	for (d = 0; d <= NDRAW && sn != NULL && rn != NULL && s1 != NULL &&
	    sv != NULL && one != NULL && view != NULL && win != NULL; d++) {
		draw_x(&P, d, x);
		het_resid_prepare(P.ev, x, 1, NULL);
		dense_normal(&P, w, rn);
		rc |= het_separable_normal(win, P.ev, -1, 1, sn, &err);
		normal_err(&P, sn, rn, ew);
		dense_normal(&P, C->nf, rn);
		rc |= het_separable_normal(P.sep, P.ev, -1, 1, sn, &err);
		rc |= het_separable_normal(one, P.ev, (long)a1, 1, s1, &err);
		rc |= het_separable_normal(view, P.ev, -1, 1, sv, &err);
		normal_err(&P, sn, rn, e);
		same &= memcmp(sn, sv, P.na * len * sizeof(double)) == 0 &&
		    memcmp(sn + a1 * len, s1 + a1 * len, len *
		    sizeof(double)) == 0;
	}
	ok(d > NDRAW, "%s: normal equations' objects made", C->name);
	diag("%s normal equations: cost %.2g, gradient %.2g, cross %.2g "
	    "%.2g, J^T J %.2g, scaling block %.2g", C->name, e[0], e[1],
	    e[2], e[3], e[4], e[5]);
	tm = C->theta == th_clip ? TOL_GN_RUNS : TOL_G;
	ok(rc == HET_OK, "%s: normal equations evaluate", C->name);
	ok(e[0] <= TOL_SS && e[1] <= TOL_G, "%s: cost and gradient entries "
	    "agree (%.2g %.2g)", C->name, e[0], e[1]);
	ok(e[2] <= tm && e[3] <= tm && e[5] <= tm, "%s: cross terms and "
	    "scaling block agree (%.2g %.2g %.2g)", C->name, e[2], e[3],
	    e[5]);
	ok(e[4] <= tm, "%s: J^T J of the physics agrees (%.2g)", C->name,
	    e[4]);
	ok(same, "%s: a view and a one-angle object give the same sums",
	    C->name);
	if (C->theta == th_mid)
		ok(het_separable_blocks(P.sep) > 1 && het_separable_blocks(
		    P.sep) <= HET_SEPN_MAXBLK, "%s: %zu shift blocks, within "
		    "what the normal equations take", C->name,
		    het_separable_blocks(P.sep));
	ok(ew[0] <= TOL_SS && ew[1] <= TOL_G && ew[2] <= tm && ew[3] <= tm &&
	    ew[4] <= tm && ew[5] <= tm, "%s: the first %zu frames alone "
	    "(window): every part agrees (%.2g %.2g %.2g %.2g %.2g %.2g)",
	    C->name, w, ew[0], ew[1], ew[2], ew[3], ew[4], ew[5]);
	het_separable_free(win);
	het_separable_free(one);
	het_separable_free(view);
	free(sn);
	free(rn);
	free(s1);
	free(sv);
	prob_fini(&P);
}

/*
 * The normal equations' refusals: an incomplete angle (a subset), a
 * point without Jacobian tables, an angle out of range; a one-angle
 * object of a subset problem is complete when that angle is.
 */
static void
normal_errors(void)
{
	struct prob P;
	struct het_error err;
	double *out;
	int rc;

	if (prob_init(&P, &cases[1], &err) != 0) {
		ok(0, "normal refusals: problem built (%s)", err.msg);
		prob_fini(&P);
		return;
	}
	out = calloc(P.na * het_separable_normal_len(P.nfp), sizeof(double));
	het_resid_prepare(P.ev, P.x0, 1, NULL);
	memset(&err, 0, sizeof(err));
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, -1, 1, out,
	    &err);
	ok(rc == HET_EINVAL && !het_separable_complete(P.sep, -1),
	    "normal: an incomplete angle is refused");
	like(err.msg, "not complete: angle 0 has ", "normal: says which "
	    "angle is incomplete");
	like(err.msg, " of the 780 pairs i < j of its 40 frames", "normal: "
	    "and how many pairs it would need");
	prob_fini(&P);
	if (prob_init(&P, &cases[0], &err) != 0) {
		free(out);
		prob_fini(&P);
		return;
	}
	het_resid_prepare(P.ev, P.x0, 0, NULL);
	memset(&err, 0, sizeof(err));
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, -1, 1, out,
	    &err);
	ok(rc == HET_EINVAL, "normal: a point without Jacobian tables is "
	    "refused for the full equations");
	like(err.msg, "want_jac", "normal: says a Jacobian prepare is "
	    "needed");
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, -1, 0, out,
	    &err);
	ok(rc == HET_OK && out[HET_SEPN_OO] == 780.0, "normal: the head "
	    "alone needs no Jacobian (n = %g)", out == NULL ? 0 :
	    out[HET_SEPN_OO]);
	rc = out == NULL ? -1 : het_separable_normal(P.sep, P.ev, 9, 0, out,
	    &err);
	ok(rc == HET_EINVAL && het_separable_complete(P.sep, 0),
	    "normal: angle 9 of 5 is refused");
	free(out);
	prob_fini(&P);
}

/* het_separable_alloc on a built problem must refuse with "not
 * separable" and the reason. */
static void
refused(struct prob *P, const char *why, const char *needle)
{
	struct het_error err;
	struct het_separable *s;

	memset(&err, 0, sizeof(err));
	s = het_separable_alloc(P->r, &err);
	ok(s == NULL && err.code == HET_EINVAL, "%s: refused with HET_EINVAL",
	    why);
	like(err.msg, "not separable: ", "%s: says not separable", why);
	like(err.msg, needle, "%s: says why", why);
	het_separable_free(s);
}

/*
 * A 30,000-frame grid with 60 pairs (a small window of a long series):
 * the incomplete rows take memory and time per pair, not per cell, and
 * the value and gradient equal the pair kernel's.
 */
static void
test_long_grid(void)
{
	struct het_model_spec ms;
	struct het_scaling_spec ss;
	struct het_resid_spec rs;
	struct prob P;
	struct het_pair pr[60];
	struct lsq R, S;
	double y[60], x[PMAX];
	size_t k;
	int rc = -1;

	memset(&P, 0, sizeof(P));
	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = 0.01;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = 30000;
	ms.n_angles = 2;
	ms.phi = phi8;
	het_scaling_default_spec(&ss, HET_FAMILY_HETERODYNE,
	    HET_SCALING_INDIVIDUAL, 2, phi8);
	for (k = 0; k < 60; k++) {
		pr[k].i = (uint32_t)(unif() * 29000);
		pr[k].j = pr[k].i + 1 + (uint32_t)(unif() * 900);
		pr[k].a = (uint32_t)(k % 2);
		y[k] = 1.1 + 0.2 * unif();
	}
	memset(&rs, 0, sizeof(rs));
	rs.theta = th_gen;
	rs.n = 60;
	rs.pairs = pr;
	rs.y = y;
	if ((P.m = het_model_alloc(&ms, NULL)) != NULL &&
	    (P.sc = het_scaling_alloc(&ss, NULL)) != NULL) {
		rs.model = P.m;
		rs.scaling = P.sc;
		if ((P.r = het_resid_alloc(&rs, NULL)) != NULL &&
		    (P.ev = het_resid_eval_alloc(P.r, NULL)) != NULL &&
		    (P.scr = het_resid_scratch_alloc(P.r, 16, NULL)) != NULL &&
		    (P.sep = het_separable_alloc(P.r, NULL)) != NULL) {
			het_resid_x0(P.r, x);
			lsq_zero(&R);
			lsq_zero(&S);
			het_resid_prepare(P.ev, x, 1, NULL);
			het_resid_eval_lsq(P.ev, P.scr, 0, 60, &R.o);
			rc = het_separable_eval(P.sep, P.ev, 1, &S.o, NULL);
		}
	}
	ok(rc == HET_OK && fabs(S.o.ss - R.o.ss) <= TOL_SS * R.o.ss &&
	    vec_err(S.gf, R.gf, HET_P_HET_COUNT) <= TOL_G &&
	    scal_err(&S, &R, 2) <= TOL_G, "30000 frames, 60 pairs: the "
	    "pair kernel's value (%.2g) and gradient", rc == HET_OK ?
	    fabs(S.o.ss - R.o.ss) / R.o.ss : -1.0);
	prob_fini(&P);
}

static void
test_errors(void)
{
	struct pcase C = cases[0];
	struct prob P, Q;
	struct het_error err;
	struct lsq S;
	double x[PMAX], ll;
	int rc;

	C.nf = 12;
	C.mode = HET_MODE_HOM_LAMINAR;
	C.theta = th_gen;	/* 7 homodyne values */
	if (prob_build(&P, &C, &err) == 0)
		refused(&P, "laminar_flow", "laminar_flow has no separable");
	else
		ok(0, "laminar_flow problem built (%s)", err.msg);
	prob_fini(&P);

	C = cases[0];
	C.nf = 12;
	C.weight = 1.0;
	if (prob_build(&P, &C, &err) == 0) {
		P.w[5] = 1.25;	/* borrowed by the problem */
		refused(&P, "unequal weights", "datum 5 has weight 1.25");
		P.w[5] = 1.0;
		P.pairs[9] = P.pairs[2];	/* still a valid pair */
		refused(&P, "repeated pair", "datum 9 repeats the pair");
	} else
		ok(0, "weighted problem built (%s)", err.msg);
	prob_fini(&P);
	test_long_grid();

	C = cases[0];
	C.nf = 12;
	if (prob_init(&P, &C, &err) != 0 || prob_init(&Q, &C, &err) != 0) {
		ok(0, "two problems built (%s)", err.msg);
		return;
	}
	lsq_zero(&S);
	memcpy(x, P.x0, sizeof(x));
	rc = het_separable_eval(P.sep, Q.ev, 0, &S.o, &err);
	ok(rc == HET_EINVAL, "eval: a workspace of another problem is "
	    "refused");
	like(err.msg, "another fitting problem", "eval: says so");
	rc = het_separable_loglik(P.sep, Q.ev, x, SIGMA, &ll, NULL, &err);
	ok(rc == HET_EINVAL, "loglik: a workspace of another problem is "
	    "refused");
	het_resid_prepare(P.ev, x, 0, NULL);
	rc = het_separable_eval(P.sep, P.ev, 1, &S.o, &err);
	ok(rc == HET_EINVAL, "eval: a gradient without Jacobian tables is "
	    "refused");
	like(err.msg, "want_jac", "eval: says how to prepare");
	rc = het_separable_eval(P.sep, P.ev, 0, &S.o, &err);
	ok(rc == HET_OK && S.o.ss > 0, "eval: the value alone needs no "
	    "Jacobian tables");
	rc = het_separable_loglik(P.sep, P.ev, x, 0.0, &ll, NULL, &err);
	ok(rc == HET_EINVAL, "loglik: sigma 0 is refused");
	like(err.msg, "sigma is 0", "loglik: names sigma");
	x[1] = NAN;
	rc = het_separable_loglik(P.sep, P.ev, x, SIGMA, &ll, NULL, &err);
	ok(rc == HET_EINVAL, "loglik: a non-finite x is refused");
	like(err.msg, "alpha_ref", "loglik: names the parameter");
	prob_fini(&P);
	prob_fini(&Q);
}

int
main(void)
{
	size_t k;

	plan_lazy();
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		run_case(&cases[k]);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		if (cases[k].keep >= 1)
			normal_case(&cases[k]);
	normal_errors();
	test_errors();
	done_testing();
	return exit_status();
}
