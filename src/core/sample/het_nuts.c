/*
 * het_nuts.c: Stan's NUTS (base_nuts + diag_e / dense_e metric +
 * windowed adaptation), re-derived from the published algorithm descriptions:
 * Hoffman and Gelman 2014 (NUTS, dual averaging), Betancourt 2017
 * (multinomial sampling, generalised no-U-turn criterion) and the Stan
 * Reference Manual (warmup windows, step-size heuristic).
 *
 * Design.  A transition samples p ~ N(0, M), then doubles the trajectory
 * in a random direction until the no-U-turn criterion fails, a sub-tree
 * diverges, or max_tree_depth is reached.  Sub-trees are built
 * recursively (build_tree); within a sub-tree the proposal is chosen
 * multinomially with weights exp(-H) ("uniform progressive" sampling),
 * and at the top level a new sub-tree's proposal replaces the sample with
 * probability min(1, w_new / w_old) ("biased progressive" sampling),
 * which favours moves away from the start.  The criterion is checked on
 * the whole trajectory with p_sharp = M^-1 p and the summed momentum rho,
 * plus Stan's two extra checks across the junction of merged sub-trees
 * (which catch U-turns straddling the junction).  At the top level the
 * junction momenta are taken by position: extending forward, the old
 * trajectory's forward end (Stan's code copies the backward end of the
 * previous forward sub-tree there, which differs once depth >= 2; the
 * positional choice keeps the check symmetric in which half is "new").
 * The accept statistic is the mean over leapfrog steps of
 * min(1, exp(H0 - H)); the energy reported is H at the selected point.
 *
 * Errors of the target: a callback failure or a non-finite lp or
 * gradient at a leapfrog step sets lp = -inf, so H = inf there: the leaf
 * gets zero weight, counts as divergent and ends the trajectory.
 *
 * Warmup follows Stan: a fast window (init_buffer) adapting only the step
 * size, slow windows (base_window, doubling; the last one stretched to
 * the terminal buffer) that also accumulate Welford variances of q, and a
 * terminal fast window (term_buffer).  At the end of each slow window
 * the metric becomes the regularised (co)variance n/(n+5) S +
 * 1e-3 5/(n+5) I (diagonal, or dense with its Cholesky factor L used to
 * draw p = L^-T u), or n/(n+5) S + 5/(n+5) M0 when the caller gave an
 * initial metric M0 (het_nuts_set_metric: a Laplace covariance, which
 * has the posterior's scales; shrinking towards 1e-3 I would inflate the
 * variance of directions narrower than that 25-220 fold, shrink the step
 * and deepen every tree), the step size is re-initialised by the heuristic
 * (with the new metric) and dual averaging
 * restarts with mu = log(10 eps).  After warmup eps = exp(x_bar).  Short
 * warmups scale the windows to 15 % / 75 % / 10 %; below 20 warmup
 * iterations the metric is not adapted.
 *
 * Memory: all vectors are allocated in het_nuts_alloc; the recursion uses
 * one scratch record per depth, so transitions never allocate.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "het_nuts.h"
#include "het_nuts_impl.h"
#include "het_util.h"

void
het_nuts_config_default(struct het_nuts_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->num_warmup = 1000;
	cfg->num_samples = 1000;
	cfg->max_tree_depth = 10;
	cfg->target_accept = 0.85;
	cfg->max_delta_h = 1000;
	cfg->step_size = 1;
	cfg->gamma = 0.05;
	cfg->t0 = 10;
	cfg->kappa = 0.75;
	cfg->init_buffer = 75;
	cfg->term_buffer = 50;
	cfg->base_window = 25;
	cfg->adapt_metric = 1;
}

static int
check_config(const struct het_nuts_config *c, struct het_error *err)
{
	if (c->num_warmup < 0 || c->num_samples < 0)
		return het_error_set(err, HET_EINVAL, "NUTS num_warmup (%ld) "
		    "and num_samples (%ld) must not be negative",
		    c->num_warmup, c->num_samples);
	if (c->max_tree_depth < 1 || c->max_tree_depth > 30)
		return het_error_set(err, HET_EINVAL, "NUTS max_tree_depth %d "
		    "is outside 1..30; the usual value is 10",
		    c->max_tree_depth);
	if (!(c->target_accept > 0 && c->target_accept < 1))
		return het_error_set(err, HET_EINVAL, "NUTS target_accept_prob "
		    "%g is outside (0, 1); the usual value is 0.8 to 0.95",
		    c->target_accept);
	if (!(c->max_delta_h > 0) || !(c->step_size > 0) ||
	    !isfinite(c->step_size))
		return het_error_set(err, HET_EINVAL, "NUTS max_delta_h (%g) "
		    "and step_size (%g) must be positive and finite",
		    c->max_delta_h, c->step_size);
	if (!(c->gamma > 0) || !(c->t0 > 0) ||
	    !(c->kappa > 0.5 && c->kappa <= 1))
		return het_error_set(err, HET_EINVAL, "NUTS dual averaging "
		    "needs gamma > 0, t0 > 0 and kappa in (0.5, 1] (got %g, "
		    "%g, %g)", c->gamma, c->t0, c->kappa);
	if (c->init_buffer < 0 || c->term_buffer < 0 || c->base_window < 1)
		return het_error_set(err, HET_EINVAL, "NUTS warmup windows "
		    "need init_buffer >= 0, term_buffer >= 0 and base_window "
		    ">= 1 (got %ld, %ld, %ld)", c->init_buffer,
		    c->term_buffer, c->base_window);
	return HET_OK;
}

static void
point_free(struct point *z)
{
	free(z->q);
	free(z->p);
	free(z->g);
}

static int
point_alloc(struct point *z, size_t n, struct het_error *err)
{
	z->q = het_alloc_array(n, sizeof *z->q, "NUTS position", err);
	z->p = het_alloc_array(n, sizeof *z->p, "NUTS momentum", err);
	z->g = het_alloc_array(n, sizeof *z->g, "NUTS gradient", err);
	return z->q == NULL || z->p == NULL || z->g == NULL ? -1 : 0;
}

static void
point_copy(struct point *dst, const struct point *src, size_t n)
{
	memcpy(dst->q, src->q, n * sizeof *dst->q);
	memcpy(dst->p, src->p, n * sizeof *dst->p);
	memcpy(dst->g, src->g, n * sizeof *dst->g);
	dst->lp = src->lp;
}

void
het_nuts_free(struct het_nuts *s)
{
	int	d;

	if (s == NULL)
		return;
	point_free(&s->z);
	point_free(&s->z_fwd);
	point_free(&s->z_bck);
	point_free(&s->z_sample);
	point_free(&s->z_propose);
	point_free(&s->z_init);
	free(s->minv);
	free(s->chol);
	free(s->minv0);
	free(s->chol0);
	free(s->tmp);
	free(s->p_ff);
	free(s->ps_ff);
	free(s->p_fb);
	free(s->ps_fb);
	free(s->p_bf);
	free(s->ps_bf);
	free(s->p_bb);
	free(s->ps_bb);
	free(s->rho);
	free(s->rho_fwd);
	free(s->rho_bck);
	free(s->est_mean);
	free(s->est_m2);
	if (s->lev != NULL) {
		for (d = 0; d <= s->cfg.max_tree_depth; d++) {
			free(s->lev[d].p_init_end);
			free(s->lev[d].ps_init_end);
			free(s->lev[d].rho_init);
			free(s->lev[d].p_final_beg);
			free(s->lev[d].ps_final_beg);
			free(s->lev[d].rho_final);
			free(s->lev[d].rho_sub);
			point_free(&s->lev[d].prop);
		}
		free(s->lev);
	}
	free(s);
}

static double *
vec(size_t n, struct het_error *err, int *bad)
{
	double *v = het_alloc_array(n, sizeof *v, "NUTS work vector", err);

	if (v == NULL)
		*bad = 1;
	return v;
}

struct het_nuts *
het_nuts_alloc(size_t dim, const struct het_nuts_config *cfg,
    het_nuts_logp_fn logp, void *ctx, gsl_rng *rng, struct het_error *err)
{
	struct het_nuts	*s;
	struct level	*l;
	int		 bad = 0, d;

	if (dim < 1 || logp == NULL || rng == NULL) {
		het_error_set(err, HET_EINVAL, "NUTS needs at least one "
		    "parameter, a log-density callback and a random number "
		    "generator (got dim %zu%s%s)", dim,
		    logp == NULL ? ", no callback" : "",
		    rng == NULL ? ", no generator" : "");
		return NULL;
	}
	if (check_config(cfg, err) != HET_OK)
		return NULL;
	if ((s = calloc(1, sizeof *s)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for a NUTS "
		    "sampler");
		return NULL;
	}
	s->n = dim;
	s->cfg = *cfg;
	s->logp = logp;
	s->ctx = ctx;
	s->rng = rng;
	bad |= point_alloc(&s->z, dim, err) | point_alloc(&s->z_fwd, dim, err)
	    | point_alloc(&s->z_bck, dim, err) |
	    point_alloc(&s->z_sample, dim, err) |
	    point_alloc(&s->z_propose, dim, err) |
	    point_alloc(&s->z_init, dim, err);
	s->nm = cfg->dense_metric ? dim * dim : dim;
	if (cfg->dense_metric && dim > 4096) {
		het_error_set(err, HET_EINVAL, "a dense NUTS metric for %zu "
		    "parameters is too large; use the diagonal metric", dim);
		het_nuts_free(s);
		return NULL;
	}
	s->minv = vec(s->nm, err, &bad);
	s->chol = vec(s->nm, err, &bad);
	s->minv0 = vec(s->nm, err, &bad);
	s->chol0 = vec(s->nm, err, &bad);
	s->tmp = vec(dim, err, &bad);
	s->p_ff = vec(dim, err, &bad);
	s->ps_ff = vec(dim, err, &bad);
	s->p_fb = vec(dim, err, &bad);
	s->ps_fb = vec(dim, err, &bad);
	s->p_bf = vec(dim, err, &bad);
	s->ps_bf = vec(dim, err, &bad);
	s->p_bb = vec(dim, err, &bad);
	s->ps_bb = vec(dim, err, &bad);
	s->rho = vec(dim, err, &bad);
	s->rho_fwd = vec(dim, err, &bad);
	s->rho_bck = vec(dim, err, &bad);
	s->est_mean = vec(dim, err, &bad);
	s->est_m2 = vec(s->nm, err, &bad);
	s->lev = het_alloc_array((size_t)cfg->max_tree_depth + 1,
	    sizeof *s->lev, "NUTS tree levels", err);
	if (s->lev == NULL)
		bad = 1;
	for (d = 0; s->lev != NULL && d <= cfg->max_tree_depth; d++) {
		l = &s->lev[d];
		l->p_init_end = vec(dim, err, &bad);
		l->ps_init_end = vec(dim, err, &bad);
		l->rho_init = vec(dim, err, &bad);
		l->p_final_beg = vec(dim, err, &bad);
		l->ps_final_beg = vec(dim, err, &bad);
		l->rho_final = vec(dim, err, &bad);
		l->rho_sub = vec(dim, err, &bad);
		bad |= point_alloc(&l->prop, dim, err);
	}
	if (bad) {
		het_nuts_free(s);
		return NULL;
	}
	return s;
}

/* ---- Hamiltonian pieces ------------------------------------------- */

static void
p_sharp(const struct het_nuts *s, const double *p, double *ps)
{
	const double *row;
	double	 v;
	size_t	 i, j, n = s->n;

	if (!s->cfg.dense_metric) {
		for (i = 0; i < n; i++)
			ps[i] = s->minv[i] * p[i];
		return;
	}
	for (i = 0; i < n; i++) {
		row = s->minv + i * n;
		v = 0;
		for (j = 0; j < n; j++)
			v += row[j] * p[j];
		ps[i] = v;
	}
}

static double
kinetic(const struct het_nuts *s, const double *p)
{
	double	k = 0;
	size_t	i;

	if (!s->cfg.dense_metric) {
		for (i = 0; i < s->n; i++)
			k += s->minv[i] * p[i] * p[i];
		return 0.5 * k;
	}
	p_sharp(s, p, s->tmp);
	for (i = 0; i < s->n; i++)
		k += p[i] * s->tmp[i];
	return 0.5 * k;
}

static double
hamiltonian(const struct het_nuts *s, const struct point *z)
{
	double	h;

	if (!isfinite(z->lp))
		return INFINITY;
	h = -z->lp + kinetic(s, z->p);
	return isnan(h) ? INFINITY : h;
}

static void
sample_p(struct het_nuts *s, struct point *z)
{
	double	v;
	size_t	i, j, n = s->n;

	if (!s->cfg.dense_metric) {
		for (i = 0; i < n; i++)
			z->p[i] = gsl_ran_gaussian_ziggurat(s->rng, 1) /
			    sqrt(s->minv[i]);
		return;
	}
	/* p = L^-T u, so cov(p) = (L L^T)^-1 = M */
	for (i = 0; i < n; i++)
		z->p[i] = gsl_ran_gaussian_ziggurat(s->rng, 1);
	for (i = n; i-- > 0;) {
		v = z->p[i];
		for (j = i + 1; j < n; j++)
			v -= s->chol[j * n + i] * z->p[j];
		z->p[i] = v / s->chol[i * n + i];
	}
}

static int
eval(struct het_nuts *s, struct point *z)
{
	double	lp = 0;
	size_t	i;

	if (s->logp(s->ctx, z->q, &lp, z->g) != 0 || !isfinite(lp)) {
		z->lp = -INFINITY;
		return -1;
	}
	for (i = 0; i < s->n; i++)
		if (!isfinite(z->g[i])) {
			z->lp = -INFINITY;
			return -1;
		}
	z->lp = lp;
	return 0;
}

/* Leapfrog step of size e; on a failed evaluation lp is -inf. */
static void
leapfrog(struct het_nuts *s, struct point *z, double e)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		z->p[i] += 0.5 * e * z->g[i];
	p_sharp(s, z->p, s->tmp);
	for (i = 0; i < s->n; i++)
		z->q[i] += e * s->tmp[i];
	if (eval(s, z) != 0)
		return;
	for (i = 0; i < s->n; i++)
		z->p[i] += 0.5 * e * z->g[i];
}

static double
log_sum_exp(double a, double b)
{
	double	m;

	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	m = fmax(a, b);
	return m + log(exp(a - m) + exp(b - m));
}

/* No-U-turn criterion on r = a + b (b may be NULL). */
static int
criterion(const struct het_nuts *s, const double *ps_minus,
    const double *ps_plus, const double *a, const double *b)
{
	double	dm = 0, dp = 0, r;
	size_t	i;

	for (i = 0; i < s->n; i++) {
		r = a[i] + (b != NULL ? b[i] : 0);
		dm += ps_minus[i] * r;
		dp += ps_plus[i] * r;
	}
	return dp > 0 && dm > 0;
}

static void
vadd(size_t n, double *dst, const double *a, const double *b)
{
	size_t	i;

	for (i = 0; i < n; i++)
		dst[i] = a[i] + b[i];
}

/* ---- the recursion ------------------------------------------------ */

static int
build_tree(struct het_nuts *s, int depth, struct point *z_propose,
    double *ps_beg, double *ps_end, double *rho, double *p_beg,
    double *p_end, double h0, double sign, double *lsw)
{
	struct level	*l;
	double		 h, lsw_init, lsw_final, lsw_sub;
	size_t		 i, n = s->n;
	int		 persist;

	if (depth == 0) {
		leapfrog(s, &s->z, sign * s->eps);
		s->n_leapfrog++;
		h = hamiltonian(s, &s->z);
		if (h - h0 > s->cfg.max_delta_h)
			s->divergent = 1;
		*lsw = log_sum_exp(*lsw, h0 - h);
		s->sum_metro += h0 - h > 0 ? 1 : exp(h0 - h);
		point_copy(z_propose, &s->z, n);
		p_sharp(s, s->z.p, ps_beg);
		memcpy(ps_end, ps_beg, n * sizeof *ps_end);
		for (i = 0; i < n; i++)
			rho[i] += s->z.p[i];
		memcpy(p_beg, s->z.p, n * sizeof *p_beg);
		memcpy(p_end, s->z.p, n * sizeof *p_end);
		return !s->divergent;
	}
	l = &s->lev[depth];

	/* initial sub-tree */
	lsw_init = -INFINITY;
	memset(l->rho_init, 0, n * sizeof *l->rho_init);
	if (!build_tree(s, depth - 1, z_propose, ps_beg, l->ps_init_end,
	    l->rho_init, p_beg, l->p_init_end, h0, sign, &lsw_init))
		return 0;

	/* final sub-tree */
	point_copy(&l->prop, &s->z, n);
	lsw_final = -INFINITY;
	memset(l->rho_final, 0, n * sizeof *l->rho_final);
	if (!build_tree(s, depth - 1, &l->prop, l->ps_final_beg, ps_end,
	    l->rho_final, l->p_final_beg, p_end, h0, sign, &lsw_final))
		return 0;

	/* multinomial sample from the merged sub-tree */
	lsw_sub = log_sum_exp(lsw_init, lsw_final);
	*lsw = log_sum_exp(*lsw, lsw_sub);
	if (lsw_final > lsw_sub)
		point_copy(z_propose, &l->prop, n);
	else if (gsl_rng_uniform(s->rng) < exp(lsw_final - lsw_sub))
		point_copy(z_propose, &l->prop, n);

	vadd(n, l->rho_sub, l->rho_init, l->rho_final);
	for (i = 0; i < n; i++)
		rho[i] += l->rho_sub[i];
	persist = criterion(s, ps_beg, ps_end, l->rho_sub, NULL);
	/* Stan's extra checks across the junction of the two halves */
	persist = persist && criterion(s, ps_beg, l->ps_final_beg,
	    l->rho_init, l->p_final_beg);
	persist = persist && criterion(s, l->ps_init_end, ps_end,
	    l->rho_final, l->p_init_end);
	return persist;
}

/* ---- one transition ----------------------------------------------- */

static void
transition(struct het_nuts *s)
{
	double	h0, lsw, lsw_sub;
	size_t	n = s->n;
	int	depth = 0, valid, persist;

	sample_p(s, &s->z);
	point_copy(&s->z_fwd, &s->z, n);
	point_copy(&s->z_bck, &s->z, n);
	point_copy(&s->z_sample, &s->z, n);
	point_copy(&s->z_propose, &s->z, n);
	p_sharp(s, s->z.p, s->ps_ff);
	memcpy(s->ps_fb, s->ps_ff, n * sizeof *s->ps_fb);
	memcpy(s->ps_bf, s->ps_ff, n * sizeof *s->ps_bf);
	memcpy(s->ps_bb, s->ps_ff, n * sizeof *s->ps_bb);
	memcpy(s->p_ff, s->z.p, n * sizeof *s->p_ff);
	memcpy(s->p_fb, s->z.p, n * sizeof *s->p_fb);
	memcpy(s->p_bf, s->z.p, n * sizeof *s->p_bf);
	memcpy(s->p_bb, s->z.p, n * sizeof *s->p_bb);
	memcpy(s->rho, s->z.p, n * sizeof *s->rho);
	lsw = 0;
	h0 = hamiltonian(s, &s->z);
	s->n_leapfrog = 0;
	s->sum_metro = 0;
	s->divergent = 0;

	while (depth < s->cfg.max_tree_depth) {
		memset(s->rho_fwd, 0, n * sizeof *s->rho_fwd);
		memset(s->rho_bck, 0, n * sizeof *s->rho_bck);
		lsw_sub = -INFINITY;
		if (gsl_rng_uniform(s->rng) > 0.5) {
			/*
			 * Extend forward: the old trajectory becomes the
			 * backward part, so its forward end is the junction.
			 */
			point_copy(&s->z, &s->z_fwd, n);
			memcpy(s->rho_bck, s->rho, n * sizeof *s->rho);
			memcpy(s->p_bf, s->p_ff, n * sizeof *s->p_bf);
			memcpy(s->ps_bf, s->ps_ff, n * sizeof *s->ps_bf);
			valid = build_tree(s, depth, &s->z_propose, s->ps_fb,
			    s->ps_ff, s->rho_fwd, s->p_fb, s->p_ff, h0, 1,
			    &lsw_sub);
			point_copy(&s->z_fwd, &s->z, n);
		} else {
			point_copy(&s->z, &s->z_bck, n);
			memcpy(s->rho_fwd, s->rho, n * sizeof *s->rho);
			memcpy(s->p_fb, s->p_bb, n * sizeof *s->p_fb);
			memcpy(s->ps_fb, s->ps_bb, n * sizeof *s->ps_fb);
			valid = build_tree(s, depth, &s->z_propose, s->ps_bf,
			    s->ps_bb, s->rho_bck, s->p_bf, s->p_bb, h0, -1,
			    &lsw_sub);
			point_copy(&s->z_bck, &s->z, n);
		}
		if (!valid)
			break;
		depth++;
		/* biased progressive sampling */
		if (lsw_sub > lsw)
			point_copy(&s->z_sample, &s->z_propose, n);
		else if (gsl_rng_uniform(s->rng) < exp(lsw_sub - lsw))
			point_copy(&s->z_sample, &s->z_propose, n);
		lsw = log_sum_exp(lsw, lsw_sub);

		vadd(n, s->rho, s->rho_bck, s->rho_fwd);
		persist = criterion(s, s->ps_bb, s->ps_ff, s->rho, NULL);
		persist = persist && criterion(s, s->ps_bb, s->ps_fb,
		    s->rho_bck, s->p_fb);
		persist = persist && criterion(s, s->ps_bf, s->ps_ff,
		    s->rho_fwd, s->p_bf);
		if (!persist)
			break;
	}
	point_copy(&s->z, &s->z_sample, n);
	s->st.tree_depth = depth;
	s->st.n_leapfrog = s->n_leapfrog;
	s->st.divergent = s->divergent;
	s->st.accept_stat = s->n_leapfrog > 0 ?
	    s->sum_metro / (double)s->n_leapfrog : 0;
	s->st.energy = hamiltonian(s, &s->z);
	s->st.lp = s->z.lp;
}

/* ---- step size ---------------------------------------------------- */

/*
 * Stan's heuristic: from eps, double (or halve) until the acceptance of
 * one leapfrog step from the current point crosses 0.8.
 */
static int
init_stepsize(struct het_nuts *s, struct het_error *err)
{
	double	h0, h, dh;
	int	direction;

	point_copy(&s->z_init, &s->z, s->n);
	sample_p(s, &s->z);
	h0 = hamiltonian(s, &s->z);
	leapfrog(s, &s->z, s->eps);
	h = hamiltonian(s, &s->z);
	dh = h0 - h;
	direction = dh > log(0.8) ? 1 : -1;
	for (;;) {
		point_copy(&s->z, &s->z_init, s->n);
		sample_p(s, &s->z);
		h0 = hamiltonian(s, &s->z);
		leapfrog(s, &s->z, s->eps);
		h = hamiltonian(s, &s->z);
		dh = h0 - h;
		if (direction == 1 && !(dh > log(0.8)))
			break;
		if (direction == -1 && !(dh < log(0.8)))
			break;
		s->eps = direction == 1 ? 2 * s->eps : 0.5 * s->eps;
		if (s->eps > 1e7) {
			point_copy(&s->z, &s->z_init, s->n);
			return het_error_set(err, HET_ERANGE, "NUTS step size "
			    "grew beyond 1e7 without the energy changing: the "
			    "posterior looks improper (flat); add priors or "
			    "fix the model");
		}
		if (s->eps == 0) {
			point_copy(&s->z, &s->z_init, s->n);
			return het_error_set(err, HET_ERANGE, "NUTS found no "
			    "acceptably small step size: the log density or "
			    "its gradient is wrong or not finite near the "
			    "current point");
		}
	}
	point_copy(&s->z, &s->z_init, s->n);
	return HET_OK;
}

/* ---- public driver ------------------------------------------------ */

int
het_nuts_set_metric(struct het_nuts *s, const double *minv,
    struct het_error *err)
{
	size_t	i, j, n = s->n;
	double	d;

	if (minv == NULL) {
		s->have_minv0 = 0;
		return HET_OK;
	}
	for (i = 0; i < s->nm; i++)
		if (!isfinite(minv[i]))
			return het_error_set(err, HET_EINVAL, "the initial NUTS "
			    "metric has a value that is not finite (entry "
			    "%zu)", i);
	if (!s->cfg.dense_metric) {
		for (i = 0; i < n; i++)
			if (!(minv[i] > 0))
				return het_error_set(err, HET_EINVAL, "the "
				    "initial diagonal NUTS metric has %g at "
				    "%zu; every variance must be > 0", minv[i],
				    i);
		memcpy(s->minv0, minv, n * sizeof *minv);
	} else {
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++) {
				d = 0.5 * (minv[i * n + j] + minv[j * n + i]);
				s->minv0[i * n + j] = s->minv0[j * n + i] = d;
			}
		for (i = 0; i < n; i++)
			s->minv0[i * n + i] = minv[i * n + i];
		if (het_nuts_cholesky(s->minv0, s->chol0, n) != 0)
			return het_error_set(err, HET_EINVAL, "the initial "
			    "dense NUTS metric is not positive definite");
	}
	s->have_minv0 = 1;
	return HET_OK;
}

int
het_nuts_init(struct het_nuts *s, const double *q0, struct het_error *err)
{
	int	rc;

	s->started = 0;
	memcpy(s->z.q, q0, s->n * sizeof *s->z.q);
	if (eval(s, &s->z) != 0)
		return het_error_set(err, HET_EDATA, "the log density or its "
		    "gradient cannot be evaluated (or is not finite) at the "
		    "initial point; start the chain inside the support");
	het_nuts_metric_reset(s);
	s->eps = s->cfg.step_size;
	if ((rc = init_stepsize(s, err)) != HET_OK)
		return rc;
	het_nuts_da_restart(s);
	het_nuts_windows_setup(s);
	memset(&s->st, 0, sizeof s->st);
	s->st.phase = s->cfg.num_warmup > 0 ? HET_NUTS_WARMUP :
	    HET_NUTS_SAMPLING;
	s->st.step_size = s->eps;
	s->st.lp = s->z.lp;
	s->it = 0;
	s->accept_sum = 0;
	s->phase_count = 0;
	s->started = 1;
	return HET_OK;
}

int
het_nuts_test(const struct het_nuts *s)
{
	if (!s->started)
		return HET_EINVAL;
	return s->it < s->cfg.num_warmup + s->cfg.num_samples ?
	    HET_CONTINUE : HET_OK;
}

int
het_nuts_iterate(struct het_nuts *s, struct het_error *err)
{
	int	warm, rc, upd;

	if (het_nuts_test(s) != HET_CONTINUE)
		return het_error_set(err, HET_EINVAL, "NUTS iterate called %s; "
		    "call het_nuts_init first and stop when het_nuts_test "
		    "returns HET_OK", s->started ? "after the last transition"
		    : "before het_nuts_init");
	warm = s->it < s->cfg.num_warmup;
	s->st.step_size = s->eps;
	transition(s);
	s->it++;
	s->st.iteration = s->it;
	s->st.phase = warm ? HET_NUTS_WARMUP : HET_NUTS_SAMPLING;
	s->accept_sum += s->st.accept_stat;
	s->phase_count++;
	s->st.accept_mean = s->accept_sum / (double)s->phase_count;
	if (s->st.divergent)
		s->st.divergences++;
	if (!warm) {
		if (s->it == s->cfg.num_warmup + s->cfg.num_samples)
			s->st.phase = HET_NUTS_DONE;
		return HET_OK;
	}

	het_nuts_da_learn(s, s->st.accept_stat);
	upd = s->adapt_windows ? het_nuts_learn_metric(s) : 0;
	if (upd < 0)
		return het_error_set(err, HET_EDATA, "the NUTS metric adapted "
		    "at warmup iteration %ld is not finite or not positive "
		    "definite (the chain has degenerated or a parameter is "
		    "constant); restart the chain or fix the model", s->it);
	if (upd > 0) {
		if ((rc = init_stepsize(s, err)) != HET_OK)
			return rc;
		het_nuts_da_restart(s);
	}
	if (s->it == s->cfg.num_warmup) {
		/* end of warmup: final step size, sampling counters */
		if (s->da_count > 0)
			s->eps = exp(s->x_bar);
		s->st.divergences_warmup = s->st.divergences;
		s->st.divergences = 0;
		s->accept_sum = 0;
		s->phase_count = 0;
		if (s->cfg.num_samples == 0)
			s->st.phase = HET_NUTS_DONE;
	}
	return HET_OK;
}

const double *
het_nuts_position(const struct het_nuts *s)
{
	return s->z.q;
}

const double *
het_nuts_inv_metric(const struct het_nuts *s)
{
	return s->minv;
}

double
het_nuts_step_size(const struct het_nuts *s)
{
	return s->eps;
}

void
het_nuts_get_stats(const struct het_nuts *s, struct het_nuts_stats *st)
{
	*st = s->st;
}
