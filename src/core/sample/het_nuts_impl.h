/*
 * het_nuts_impl.h: the sampler state shared by het_nuts.c (trajectories)
 * and het_nuts_adapt.c (warmup adaptation).  Private to those two files.
 */
#ifndef HET_NUTS_IMPL_H
#define HET_NUTS_IMPL_H

#include <stddef.h>

#include "het_nuts.h"

struct point {
	double	*q;
	double	*p;
	double	*g;
	double	 lp;	/* -INFINITY when the target could not be evaluated */
};

/* Scratch of one recursion depth of build_tree. */
struct level {
	double		*p_init_end, *ps_init_end, *rho_init;
	double		*p_final_beg, *ps_final_beg, *rho_final;
	double		*rho_sub;
	struct point	 prop;
};

struct het_nuts {
	size_t		 n;
	struct het_nuts_config cfg;
	het_nuts_logp_fn logp;
	void		*ctx;
	gsl_rng		*rng;

	size_t		 nm;		/* n (diagonal) or n * n (dense) */
	double		*minv;		/* inverse metric: diagonal or n x n */
	double		*chol;		/* dense: lower Cholesky factor of minv */
	double		*minv0;		/* the initial metric (het_nuts_set_metric)
					   and the adaptation's shrinkage target */
	double		*chol0;		/* dense: its Cholesky factor */
	int		 have_minv0;	/* 0: identity, shrink to 1e-3 I */
	double		*tmp;		/* n */
	double		 eps;		/* nominal step size */
	struct point	 z, z_fwd, z_bck, z_sample, z_propose, z_init;
	double		*p_ff, *ps_ff, *p_fb, *ps_fb;	/* forward end */
	double		*p_bf, *ps_bf, *p_bb, *ps_bb;	/* backward end */
	double		*rho, *rho_fwd, *rho_bck;
	struct level	*lev;		/* max_tree_depth + 1 */
	int		 divergent;
	long		 n_leapfrog;
	double		 sum_metro;

	/* dual averaging */
	double		 mu, s_bar, x_bar;
	long		 da_count;

	/* windowed metric adaptation */
	int		 adapt_windows;
	long		 init_buffer, term_buffer, base_window;
	long		 win_counter, win_size, win_next;
	long		 est_n;
	double		*est_mean, *est_m2;

	/* progress */
	long		 it;
	int		 started;
	struct het_nuts_stats st;
	double		 accept_sum;
	long		 phase_count;
};

/* Dual averaging of log(step size): restart around mu = log(10 eps). */
void het_nuts_da_restart(struct het_nuts *s);

/* One dual-averaging update with this transition's accept statistic. */
void het_nuts_da_learn(struct het_nuts *s, double accept);

/* Warmup windows from the configuration (scaled for short warmups). */
void het_nuts_windows_setup(struct het_nuts *s);

/*
 * After a warmup transition: accumulate q and, at the end of a slow
 * window, replace the metric.  Returns 0 (no change), 1 (replaced) or -1
 * (not finite or not positive definite).
 */
int het_nuts_learn_metric(struct het_nuts *s);

/* Reset the metric to the initial one (het_nuts_set_metric, else I). */
void het_nuts_metric_reset(struct het_nuts *s);

/* Lower Cholesky factor l of the n x n matrix a; -1 if not PD. */
int het_nuts_cholesky(const double *a, double *l, size_t n);

#endif /* HET_NUTS_IMPL_H */
