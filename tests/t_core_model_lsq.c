/*
 * t_core_model_lsq.c: the fused least-squares pass (het_model_eval_lsq,
 * het_resid_eval_lsq) against sums over the model's Jacobian rows.
 *
 * The heterodyne kernel accumulates the adjoints of its per-frame tables
 * instead of forming derivative rows; the sums it returns must equal
 *	ss = sum r^2, gfree = sum r w c_a dg/dtheta, gcon = sum r w g,
 *	goff = sum r w,   r = w (offset_a + c_a g - y)
 * computed from het_model_eval_pairs with derivative rows (whose columns
 * t_core_jac_het checks against finite differences), to rounding: every
 * element within 1e-11 of the largest element of its vector.  Cases: all
 * 14 parameters free and every group alone (transport, velocity,
 * fractions, phi0) or scattered; weights or none; pair lists in random
 * order, angle innermost, and with repeated pairs; parameter sets with a
 * saturated fraction and a transport rate that crosses zero inside the
 * window.  het_resid_eval_lsq is checked on a sub-range (first > 0) for
 * the heterodyne kernel (fused) and for homodyne laminar flow (through
 * the rows: the family has no fused pass).
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
#include "tap.h"

#define NF	40
#define NA	5
#define NPAIR	3000
#define TOL	1e-11

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static double
unif(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) *
	    (1.0 / 9007199254740992.0);
}

static const double phi5[NA] = { -60, -20, 10, 45, 100 };

/* Physics sets: a generic point, a saturated fraction, a rate crossing 0. */
static const double sets[3][HET_P_HET_COUNT] = {
	{ 200, 0.5, 100, 300, -0.5, 200, 30, 0.4, 5, 0.05, 0.08, 5, 0.3, 3 },
	{ 150, 0.7, 20, 400, -0.3, 50, 10, 0.6, -2, 0.4, 0.3, 1, 0.5, -7 },
	{ 300, 0.4, -320, 250, 0.2, -100, 5, 1.1, 1, 0.1, -0.2, 2, 0.2, 20 },
};

/* Maximum |a - b| over n values, relative to the largest |b|. */
static double
vec_err(const double *a, const double *b, size_t n)
{
	double e = 0, s = 0;
	size_t k;

	for (k = 0; k < n; k++) {
		if (fabs(a[k] - b[k]) > e)
			e = fabs(a[k] - b[k]);
		if (fabs(b[k]) > s)
			s = fabs(b[k]);
	}
	return s > 0 ? e / s : e;
}

struct data {
	struct het_pair	 pairs[NPAIR];
	double		 y[NPAIR], w[NPAIR], con[NA], off[NA];
	size_t		 n;
};

/* order 0: random pairs; 1: cells with the angle innermost; 2: repeats */
static void
make_pairs(struct data *D, int order)
{
	size_t k, a;
	uint32_t i, j;

	D->n = 0;
	while (D->n < NPAIR) {
		i = (uint32_t)(unif() * (NF - 1));
		j = i + 1 + (uint32_t)(unif() * (NF - 1 - i));
		for (a = 0; a < NA && D->n < NPAIR; a++) {
			D->pairs[D->n].i = i;
			D->pairs[D->n].j = j;
			D->pairs[D->n].a = order == 1 ? (uint32_t)a :
			    (uint32_t)(unif() * NA);
			D->n++;
			if (order == 0)
				break;
			if (order == 2 && D->n < NPAIR) {
				D->pairs[D->n] = D->pairs[D->n - 1];
				D->n++;
			}
		}
	}
	for (k = 0; k < NPAIR; k++) {
		D->y[k] = 1.0 + 0.3 * unif();
		D->w[k] = 0.5 + 1.5 * unif();
	}
	for (a = 0; a < NA; a++) {
		D->con[a] = 0.1 + 0.2 * unif();
		D->off[a] = 0.95 + 0.1 * unif();
	}
}

/* The reference sums from derivative rows. */
static void
ref_sums(const struct het_model_eval *ev, const struct data *D, int wt,
    size_t nf, struct het_model_lsq_out *o)
{
	static double g[NPAIR], dg[NPAIR * HET_MAX_PHYS];
	size_t k, c, a;
	double w, r;

	het_model_eval_pairs(ev, D->n, D->pairs, g, dg);
	for (k = 0; k < D->n; k++) {
		a = D->pairs[k].a;
		w = wt ? D->w[k] : 1.0;
		r = w * (D->off[a] + D->con[a] * g[k] - D->y[k]);
		o->ss += r * r;
		o->gcon[a] += r * w * g[k];
		o->goff[a] += r * w;
		for (c = 0; c < nf; c++)
			o->gfree[c] += r * w * D->con[a] * dg[k * nf + c];
	}
}

/* One comparison; returns the worst relative error. */
static double
compare(struct het_model *m, const double *theta, const unsigned char *fr,
    struct data *D, int wt)
{
	struct het_model_eval *ev;
	struct het_model_lsq L;
	struct het_model_lsq_out o, r;
	double gf[2][HET_MAX_PHYS], gc[2][NA], go[2][NA], e, worst;
	double *scr;
	size_t nf;

	ev = het_model_eval_alloc(m, NULL);
	scr = malloc(het_model_lsq_scratch(m) * sizeof(double));
	if (ev == NULL || scr == NULL ||
	    het_model_eval_prepare(ev, theta, fr, NULL) != HET_OK) {
		het_model_eval_free(ev);
		free(scr);
		return INFINITY;
	}
	nf = het_model_eval_nfree(ev);
	memset(gf, 0, sizeof gf);
	memset(gc, 0, sizeof gc);
	memset(go, 0, sizeof go);
	o = (struct het_model_lsq_out){ 0, gf[0], gc[0], go[0] };
	r = (struct het_model_lsq_out){ 0, gf[1], gc[1], go[1] };
	L.y = D->y;
	L.w = wt ? D->w : NULL;
	L.contrast = D->con;
	L.offset = D->off;
	het_model_eval_lsq(ev, D->n, D->pairs, &L, scr, &o);
	ref_sums(ev, D, wt, nf, &r);
	worst = fabs(o.ss - r.ss) / r.ss;
	if ((e = vec_err(gf[0], gf[1], nf)) > worst)
		worst = e;
	if ((e = vec_err(gc[0], gc[1], NA)) > worst)
		worst = e;
	if ((e = vec_err(go[0], go[1], NA)) > worst)
		worst = e;
	het_model_eval_free(ev);
	free(scr);
	return worst;
}

static struct het_model *
model(enum het_mode mode)
{
	struct het_model_spec ms;

	memset(&ms, 0, sizeof ms);
	ms.mode = mode;
	ms.q = 0.01;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = NF;
	ms.n_angles = NA;
	ms.phi = phi5;
	ms.gap = 2e7;
	return het_model_alloc(&ms, NULL);
}

/* Free masks: all, each group alone, a scattered set. */
static const char *const mask_name[] = {
	"all 14", "reference transport", "sample transport", "velocity",
	"fractions", "phi0", "scattered"
};

static void
mask(int k, unsigned char *fr)
{
	size_t p;

	for (p = 0; p < HET_P_HET_COUNT; p++) {
		switch (k) {
		case 0: fr[p] = 1; break;
		case 1: fr[p] = p <= HET_P_DOFF_REF; break;
		case 2: fr[p] = p >= HET_P_D0_SAMPLE &&
			    p <= HET_P_DOFF_SAMPLE; break;
		case 3: fr[p] = p >= HET_P_V0 && p <= HET_P_V_OFFSET; break;
		case 4: fr[p] = p >= HET_P_F0 && p <= HET_P_F3; break;
		case 5: fr[p] = p == HET_P_PHI0; break;
		default: fr[p] = p == HET_P_ALPHA_REF || p == HET_P_V_OFFSET ||
			    p == HET_P_F2 || p == HET_P_PHI0; break;
		}
	}
}

static void
test_het_kernel(void)
{
	static struct data D;
	static const char *const oname[] = { "random", "angle-inner",
	    "repeated" };
	struct het_model *m = model(HET_MODE_TWO_COMPONENT);
	unsigned char fr[HET_P_HET_COUNT];
	double e, worst;
	int s, k, order, wt;

	ok(m != NULL && het_model_lsq_scratch(m) == 4 * NF,
	    "heterodyne: fused pass with 4 N doubles of scratch");
	if (m == NULL)
		return;
	for (order = 0; order < 3; order++) {
		make_pairs(&D, order);
		for (k = 0; k < 7; k++) {
			mask(k, fr);
			worst = 0;
			for (s = 0; s < 3; s++)
				for (wt = 0; wt < 2; wt++) {
					e = compare(m, sets[s], fr, &D, wt);
					if (!(e <= worst))
						worst = e;
				}
			ok(worst <= TOL, "%s pairs, %s free: sums equal the "
			    "Jacobian rows' (worst %.2g)", oname[order],
			    mask_name[k], worst);
		}
	}
	het_model_free(m);
}

/* het_resid_eval_lsq on pairs [first, n) against its rows. */
static void
test_resid(enum het_mode mode, const char *name)
{
	static struct data D;
	struct het_model *m = model(mode);
	struct het_scaling_spec ss;
	struct het_scaling *sc = NULL;
	struct het_resid_spec rs;
	struct het_resid *r = NULL;
	struct het_resid_eval *ev = NULL;
	struct het_resid_scratch *scr = NULL;
	struct het_model_lsq_out o;
	double x[64], res[NPAIR], *J = NULL, gref[64], gf[64], gc[NA], go[NA];
	double sref = 0, theta[HET_MAX_PHYS];
	size_t k, c, p, nfp, first = 7;
	int fam = mode >= HET_MODE_HOM_STATIC;

	make_pairs(&D, 1);
	het_scaling_default_spec(&ss, fam ? HET_FAMILY_HOMODYNE :
	    HET_FAMILY_HETERODYNE, HET_SCALING_INDIVIDUAL, NA, phi5);
	if (fam) {
		static const double hom[] = { 800, -0.4, 5, 0.002, 0.3,
		    1e-4, 10 };
		memcpy(theta, hom, sizeof hom);
	} else {
		memcpy(theta, sets[0], sizeof sets[0]);
	}
	memset(&rs, 0, sizeof rs);
	if (m == NULL || (sc = het_scaling_alloc(&ss, NULL)) == NULL)
		goto out;
	rs.model = m;
	rs.scaling = sc;
	rs.theta = theta;
	rs.n = D.n;
	rs.pairs = D.pairs;
	rs.y = D.y;
	rs.w = D.w;
	if ((r = het_resid_alloc(&rs, NULL)) == NULL ||
	    (ev = het_resid_eval_alloc(r, NULL)) == NULL ||
	    (scr = het_resid_scratch_alloc(r, 64, NULL)) == NULL)
		goto out;
	p = het_resid_nparams(r);
	nfp = het_resid_nphys_free(r);
	het_resid_x0(r, x);
	if ((J = malloc(D.n * p * sizeof *J)) == NULL ||
	    het_resid_prepare(ev, x, 1, NULL) != HET_OK)
		goto out;
	het_resid_eval_rows(ev, scr, first, D.n - first, res, J);
	memset(gref, 0, sizeof gref);
	for (k = 0; k < D.n - first; k++) {
		sref += res[k] * res[k];
		for (c = 0; c < nfp; c++)
			gref[c] += res[k] * J[k * p + c];
	}
	memset(gf, 0, sizeof gf);
	memset(gc, 0, sizeof gc);
	memset(go, 0, sizeof go);
	o = (struct het_model_lsq_out){ 0, gf, gc, go };
	het_resid_eval_lsq(ev, scr, first, D.n - first, &o);
	ok(fabs(o.ss - sref) <= TOL * sref && vec_err(gf, gref, nfp) <= TOL,
	    "%s: het_resid_eval_lsq from pair %zu equals the rows' sums "
	    "(ss %.2g, physics %.2g)", name, first, fabs(o.ss - sref) / sref,
	    vec_err(gf, gref, nfp));
out:
	if (r == NULL || scr == NULL || J == NULL)
		ok(0, "%s: set up the residuals", name);
	free(J);
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);
	het_resid_free(r);
	het_scaling_free(sc);
	het_model_free(m);
}

int
main(void)
{
	struct het_model *m;

	plan_lazy();
	test_het_kernel();
	m = model(HET_MODE_HOM_LAMINAR);
	ok(m != NULL && het_model_lsq_scratch(m) == 0,
	    "homodyne: no fused pass (het_resid uses the rows)");
	het_model_free(m);
	test_resid(HET_MODE_TWO_COMPONENT, "two_component");
	test_resid(HET_MODE_HOM_LAMINAR, "laminar_flow");
	done_testing();
	return exit_status();
}
