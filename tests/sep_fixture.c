/*
 * sep_fixture.c: the problems t_core_separable and t_core_sepnormal hold
 * the separable likelihood and its normal equations against the pair
 * kernel on (sep_fixture.h).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sep_fixture.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

double
sep_unif(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545f4914f6cdd1dULL) >> 11) *
	    (1.0 / 9007199254740992.0);
}

const double phi8[8] = { -157.5, -112.5, -67.5, -22.5, 22.5, 67.5,
	112.5, 157.5 };

/* Heterodyne truths: generic; rates crossing 0 and saturated fractions;
 * a huge reference rate. */
const double th_gen[HET_P_HET_COUNT] = {
	200, 0.5, 100, 300, -0.5, 200, 30, 0.4, 5, 0.05, 0.08, 5, 0.3, 3
};
const double th_clip[HET_P_HET_COUNT] = {
	200, 0.5, -300, 500, -0.5, -280, 25, 0.6, -3, 0.3, 1.5, 2, -0.1, -4
};
const double th_big[HET_P_HET_COUNT] = {
	3e5, 0.5, 2e4, 400, -0.3, 150, 20, 0.5, 4, 0.2, 0.3, 2, 0.3, 7
};
const double th_mid[HET_P_HET_COUNT] = {
	7e4, 0.5, 5e3, 400, -0.3, 150, 20, 0.5, 4, 0.2, 0.3, 2, 0.3, 7
};
/* Homodyne static truths: moderate and a large rate. */
const double th_hom[3] = { 1000, 0.3, 50 };
const double th_hbig[3] = { 1.5e5, 0.2, 2e4 };

const struct pcase cases[] = {
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

void
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
				if (C->keep < 1 && sep_unif() >= C->keep)
					continue;
				P->pairs[P->n].i = (uint32_t)i;
				P->pairs[P->n].j = (uint32_t)j;
				P->pairs[P->n++].a = (uint32_t)a;
			}
	if (C->keep >= 1)
		return;
	for (k = P->n; k > 1; k--) {
		l = (size_t)(sep_unif() * (double)k);
		t = P->pairs[k - 1];
		P->pairs[k - 1] = P->pairs[l];
		P->pairs[l] = t;
	}
}

/* Everything but the separable object. */
int
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
		P->x0[k] += 0.05 * (2 * sep_unif() - 1);
	if (het_resid_prepare(P->ev, P->x0, 0, err) != HET_OK)
		return -1;
	het_resid_eval_model(P->ev, 0, P->n, P->y);	/* y is borrowed */
	for (k = 0; k < P->n; k++)
		P->y[k] += 0.01 * (2 * sep_unif() - 1);
	return 0;
}

int
prob_init(struct prob *P, const struct pcase *C, struct het_error *err)
{
	if (prob_build(P, C, err) != 0)
		return -1;
	return (P->sep = het_separable_alloc(P->r, err)) == NULL ? -1 : 0;
}

/* A random point around the truth (draw 0 is the truth). */
void
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
			x[k] = x[k] * (1 + 0.25 * (2 * sep_unif() - 1)) +
			    0.02 * (2 * sep_unif() - 1);
		else if (strncmp(nm, "contrast", 8) == 0)
			x[k] = 0.2 + 0.3 * sep_unif();
		else if (strncmp(nm, "offset", 6) == 0)
			x[k] = 0.95 + 0.1 * sep_unif();
	}
}

/* Largest |a - b| relative to the largest |b| (absolute when b is 0). */
double
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

const size_t ncases = sizeof(cases) / sizeof(cases[0]);
