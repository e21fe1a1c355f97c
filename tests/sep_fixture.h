/*
 * sep_fixture.h: the test problems of the separable likelihood
 * (t_core_separable, t_core_sepnormal): each case a model, a pair set
 * (complete or a shuffled subset), weights and a scaling mode; the data
 * are the model at the case's truth plus a fixed uniform noise of
 * amplitude 0.01 from one deterministic generator (sep_unif), so every
 * program draws the same numbers in the same order.
 */
#ifndef SEP_FIXTURE_H
#define SEP_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "het_model.h"
#include "het_params.h"
#include "het_resid.h"
#include "het_scaling.h"
#include "het_separable.h"

#define NDRAW	6
#define PMAX	(HET_MAX_PHYS + 2 * 8)
#define SIGMA	0.05
#define TOL_SS	1e-9
#define TOL_G	1e-8
#define TOL_FD	1e-6
#define TOL_GN_RUNS	1e-6

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

/* The truths and the cases (ncases of them). */
extern const double phi8[8], th_gen[HET_P_HET_COUNT],
    th_clip[HET_P_HET_COUNT], th_big[HET_P_HET_COUNT],
    th_mid[HET_P_HET_COUNT], th_hom[3], th_hbig[3];
extern const struct pcase cases[];
extern const size_t ncases;

/* Uniform on [0, 1), the fixture's one generator. */
double	sep_unif(void);
/* prob_build: everything but the separable object; prob_init: with it
   (-1 and err on failure); prob_fini frees either. */
int	prob_build(struct prob *P, const struct pcase *C,
	    struct het_error *err);
int	prob_init(struct prob *P, const struct pcase *C,
	    struct het_error *err);
void	prob_fini(struct prob *P);
/* draw_x: a random point around the truth (draw 0 is the truth). */
void	draw_x(const struct prob *P, int d, double *x);
/* vec_err: largest |a - b| relative to the largest |b|. */
double	vec_err(const double *a, const double *b, size_t n);

#endif /* SEP_FIXTURE_H */
