#include "config.h"

/*
 * het_posterior_coords.c: the sampler's coordinates u of a shard
 * posterior and their map to the physical parameters x (see
 * het_posterior.h for the three levels).
 *
 * Design: every column of x has a role.  Plain columns go through
 * het_transform (log or logit).  A reparameterised power-law pair
 * (prefactor A, exponent e) samples v = ln A(t_ref) and the exponent's
 * logit; exponents are mapped first, so a prefactor can use its
 * exponent's value.  A power-law triple (A, e, offset o), the rate
 * J(t) = A t^e + o, is sampled in one of two coordinate sets, chosen per
 * triple (het_posterior_set_anchors):
 *
 *   share   (w, b, z): the rate at t_ref above its least value,
 *	J(t_ref) - lo_o - lo_A t_ref^e = E = exp(w), the power law's
 *	share s = sigma(z) of that excess (sigma the logistic function),
 *	and the exponent's own coordinate u_e (its logit) times the slope
 *	scale g = E s + lo_A, b = u_e g (the data fix the rate's slope in
 *	ln t, about e A t_ref^e, so without the factor e's scale shrinks
 *	as A grows along the ridge: a funnel):
 *	A = lo_A + E s t_ref^-e, o = lo_o + E (1 - s), e = T(b / g);
 *	|d(A, e, o)/d(w, b, z)| = E^2 s (1 - s) t_ref^-e de/du_e / g.
 *	Smooth through e = 0, where the data see A and o only through
 *	their sum: w takes that sum, so the ridge D0 + D_offset is a
 *	coordinate axis instead of a diagonal, and both ends of the ridge
 *	(A at lo_A, o at lo_o) lie at infinity instead of at walls.
 *   anchors (J1, J2, J3), the rate at t_k = t1 r^k (k = 0, 1, 2),
 *	geometric inside the data window (fast-posterior.md section 4): with
 *	d1 = J2 - J1, d2 = J3 - J2 and rho = d2 / d1 = r^e,
 *	e = ln rho / ln r, A = d1 / (t1^e (rho - 1)), o = J1 - A t1^e;
 *	|dJ/d(A, e, o)| = A t1^(2e) ln r rho (rho - 1)^2.
 *	The rate at three times is what the data determine, so the
 *	posterior is closer to Gaussian here; the map is singular at
 *	e = 0 (rho = 1), so a triple uses it only when its exponent is
 *	well away from 0.
 * The log-Jacobians are exact; the posterior of x does not depend on the
 * coordinates.  A point whose x leaves the bounds (or, for anchors,
 * whose rates are not those of a power law with A > 0) has zero density
 * and fails like a divergence.
 */

#include <math.h>
#include <string.h>

#include "het_posterior.h"
#include "het_posterior_impl.h"
#include "het_transform.h"

/* The power laws (prefactor, exponent, offset) of each family. */
static const size_t het_laws[][3] = {
	{ HET_P_D0_REF, HET_P_ALPHA_REF, HET_P_DOFF_REF },
	{ HET_P_D0_SAMPLE, HET_P_ALPHA_SAMPLE, HET_P_DOFF_SAMPLE },
	{ HET_P_V0, HET_P_BETA, HET_P_V_OFFSET }
};
static const size_t hom_laws[][3] = {
	{ HOM_P_D0, HOM_P_ALPHA, HOM_P_DOFF },
	{ HOM_P_GAMMA0, HOM_P_BETA, HOM_P_GAMMA_OFF }
};

/* t_ref and the anchor times from the model's time grid. */
static void
coords_times(struct het_posterior *post, const struct het_model *model)
{
	const struct het_model_spec *ms = het_model_spec_of(model);
	const double	*t = het_model_time(model);
	size_t		 n = ms->n_frames;
	double		 lo, hi;

	post->tref = 1;
	if (n >= 1 && t[n - 1] > 0)
		post->tref = sqrt(ms->dt * t[n - 1]);
	post->ltref = log(post->tref);
	post->lt1 = post->lr = 0;
	if (n < 3)
		return;
	lo = t[0] > 0 ? t[0] : t[1];
	hi = t[n - 1];
	if (!(lo > 0) || !(hi > lo))
		return;
	/* anchors at 1/6, 1/2 and 5/6 of the window in ln t */
	post->lr = (log(hi) - log(lo)) / 3;
	post->lt1 = log(lo) + post->lr / 2;
}

/*
 * The sample fraction x_s = f0 exp(f1 (t - f2)) + f3 (clipped) sees f0
 * and f2 only through ln f0 - f1 f2: sample u = ln f0 + f1 (t_c - f2),
 * ln x_s - f3 at mid-window, in place of f0 (f1, f2 keep their own
 * transforms); f0 = exp(u - f1 (t_c - f2)), log-Jacobian ln f0.  Only
 * where f0 varies with lo >= 0 (exp covers (0, hi)) and f1 or f2 varies.
 */
static void
coords_fraction_init(struct het_posterior *post,
    const struct het_model *model)
{
	const struct het_model_spec *ms = het_model_spec_of(model);
	const double	*t = het_model_time(model);
	double		 theta[HET_P_HET_COUNT];
	long		 c0;

	post->fr0 = -1;
	if (het_mode_family(ms->mode) != HET_FAMILY_HETERODYNE ||
	    het_model_nphys(model) <= HET_P_F2 || ms->n_frames < 1 ||
	    (c0 = het_resid_phys_col(post->resid, HET_P_F0)) < 0 ||
	    !(post->pri[c0].lo >= 0))
		return;
	post->fr1 = het_resid_phys_col(post->resid, HET_P_F1);
	post->fr2 = het_resid_phys_col(post->resid, HET_P_F2);
	if (post->fr1 < 0 && post->fr2 < 0)
		return;
	/* the fixed values: any x unpacks them */
	memset(post->x, 0, post->p * sizeof *post->x);
	het_resid_unpack(post->resid, post->x, theta, NULL);
	post->fix1 = theta[HET_P_F1];
	post->fix2 = theta[HET_P_F2];
	post->tc = (t[0] + t[ms->n_frames - 1]) / 2;
	post->fr0 = c0;
	post->role[c0] = ROLE_FRACTION;
}

/* f1 (t_c - f2) at x. */
static double
coords_fraction_shift(const struct het_posterior *post, const double *x)
{
	double	f1 = post->fr1 >= 0 ? x[post->fr1] : post->fix1;
	double	f2 = post->fr2 >= 0 ? x[post->fr2] : post->fix2;

	return f1 * (post->tc - f2);
}

void
het_post_coords_init(struct het_posterior *post, const struct het_model *model,
    int level)
{
	const struct het_model_spec *ms = het_model_spec_of(model);
	const size_t	(*tab)[3];
	size_t		 nl, k, nphys;
	long		 ca, ce, co;

	coords_times(post, model);
	post->fr0 = -1;
	if (level >= HET_COORDS_RATES)
		coords_fraction_init(post, model);
	if (level < HET_COORDS_POWER_LAW) {
		post->tref = 1;
		post->ltref = 0;
		return;
	}
	if (het_mode_family(ms->mode) == HET_FAMILY_HETERODYNE) {
		tab = het_laws;
		nl = sizeof het_laws / sizeof het_laws[0];
	} else {
		tab = hom_laws;
		nl = sizeof hom_laws / sizeof hom_laws[0];
	}
	nphys = het_model_nphys(model);
	for (k = 0; k < nl; k++) {
		if (tab[k][0] >= nphys || tab[k][1] >= nphys)
			continue;
		ca = het_resid_phys_col(post->resid, tab[k][0]);
		ce = het_resid_phys_col(post->resid, tab[k][1]);
		co = tab[k][2] < nphys ?
		    het_resid_phys_col(post->resid, tab[k][2]) : -1;
		if (ca < 0 || ce < 0 || !(post->pri[ca].lo > 0))
			continue;
		if (level >= HET_COORDS_RATES && co >= 0 &&
		    isfinite(post->pri[co].lo)) {
			struct post_triple *tr = &post->tri[post->ntri++];

			tr->law = (unsigned)k;
			tr->a = (size_t)ca;
			tr->e = (size_t)ce;
			tr->o = (size_t)co;
			tr->anchor = 0;
			post->role[ca] = post->role[ce] = post->role[co] =
			    ROLE_TRIPLE;
			continue;
		}
		post->role[ca] = ROLE_PREFACTOR;
		post->role[ce] = ROLE_EXPONENT;
		post->mate[ca] = (size_t)ce;
		post->mate[ce] = (size_t)ca;
		post->nrep++;
	}
}

/* Is x strictly inside (lo, hi) of column m?  Else the error. */
static int
coords_inside(const struct het_posterior *post, const double *x, size_t m,
    struct het_error *err)
{
	if (isfinite(x[m]) && x[m] > post->pri[m].lo && x[m] < post->pri[m].hi)
		return HET_OK;
	return het_error_set(err, HET_ERANGE, "%s = %g is not strictly inside "
	    "its bounds (%g, %g); start the chains inside them",
	    het_resid_param_name(post->resid, m), x[m], post->pri[m].lo,
	    post->pri[m].hi);
}

/* u of one triple at x. */
static int
coords_triple_to_u(const struct het_posterior *post,
    const struct post_triple *tr, const double *x, double *u,
    struct het_error *err)
{
	const char	*nm = het_resid_param_name(post->resid, tr->e);
	double		 A = x[tr->a], e = x[tr->e], o = x[tr->o];
	int		 rc;

	if ((rc = coords_inside(post, x, tr->a, err)) != HET_OK ||
	    (rc = coords_inside(post, x, tr->e, err)) != HET_OK ||
	    (rc = coords_inside(post, x, tr->o, err)) != HET_OK)
		return rc;
	if (tr->anchor) {
		if (e == 0)
			return het_error_set(err, HET_ERANGE, "%s = 0: the "
			    "anchor coordinates need a non-zero exponent",
			    nm);
		u[tr->a] = A * exp(e * post->lt1) + o;
		u[tr->e] = A * exp(e * (post->lt1 + post->lr)) + o;
		u[tr->o] = A * exp(e * (post->lt1 + 2 * post->lr)) + o;
		return HET_OK;
	}
	if (het_transform_inverse(&post->bd[tr->e], 1, &e, &u[tr->e], &nm,
	    err) != HET_OK)
		return err != NULL ? err->code : HET_ERANGE;
	/* share: P = (A - lo_A) t_ref^e, R = o - lo_o, E = P + R */
	A = (A - post->pri[tr->a].lo) * exp(e * post->ltref);
	o -= post->pri[tr->o].lo;
	u[tr->a] = log(A + o);
	u[tr->o] = log(A) - log(o);
	/* the exponent's coordinate times the slope scale E s + lo_A */
	u[tr->e] *= A + post->pri[tr->a].lo;
	return HET_OK;
}

int
het_posterior_to_u(const struct het_posterior *post, const double *x,
    double *u, struct het_error *err)
{
	const char	*nm;
	size_t		 m;
	int		 rc;

	for (m = 0; m < post->d; m++) {
		nm = het_resid_param_name(post->resid, m);
		if (post->role[m] == ROLE_TRIPLE)
			continue;
		if (post->role[m] == ROLE_FRACTION) {
			if ((rc = coords_inside(post, x, m, err)) != HET_OK)
				return rc;
			u[m] = log(x[m]) + coords_fraction_shift(post, x);
			continue;
		}
		if (post->role[m] == ROLE_PREFACTOR) {
			if ((rc = coords_inside(post, x, m, err)) != HET_OK)
				return rc;
			u[m] = log(x[m]) + x[post->mate[m]] * post->ltref;
			continue;
		}
		if (het_transform_inverse(&post->bd[m], 1, &x[m], &u[m],
		    &nm, err) != HET_OK)
			return err != NULL ? err->code : HET_ERANGE;
	}
	for (m = 0; m < post->ntri; m++)
		if ((rc = coords_triple_to_u(post, &post->tri[m], x, u, err)) !=
		    HET_OK)
			return rc;
	return HET_OK;
}

/*
 * Anchors: x of one triple from the rates u, and (when m and h are not
 * NULL) M = dJ/d(A, e, o) (3 x 3 row-major) and h = d log J / d(A, e, o)
 * for the gradient.  A point that is not a power law with A > 0 gets
 * x = NaN (zero density).  Returns the log-Jacobian.
 */
static double
coords_anchor_forward(const struct het_posterior *post,
    const struct post_triple *tr, const double *u, double *x, double *m,
    double *h)
{
	double	J1 = u[tr->a], d1 = u[tr->e] - J1, d2 = u[tr->o] - u[tr->e];
	double	rho = d2 / d1, e, s, A, t, lr = post->lr;
	int	k;

	if (!(rho > 0) || rho == 1 || !isfinite(rho) ||
	    !((A = d1 / (rho - 1)) > 0)) {
		x[tr->a] = x[tr->e] = x[tr->o] = NAN;
		return 0;
	}
	e = log(rho) / lr;
	s = exp(e * post->lt1);
	A /= s;
	x[tr->a] = A;
	x[tr->e] = e;
	x[tr->o] = J1 - A * s;
	if (m != NULL) {
		for (k = 0, t = s; k < 3; k++, t *= rho) {
			m[3 * k] = t;
			m[3 * k + 1] = A * t * (post->lt1 + k * lr);
			m[3 * k + 2] = 1;
		}
		h[0] = -1 / A;
		h[1] = -(2 * post->lt1 + lr + 2 * lr * rho / (rho - 1));
		h[2] = 0;
	}
	return -(log(A) + 2 * e * post->lt1 + log(lr) + e * lr +
	    2 * log(fabs(rho - 1)));
}

/*
 * Share coordinates: the exponent is sampled as u_e (E s + lo_A), u_e
 * its own transform's coordinate: the data fix the rate's slope in ln t,
 * about e A t_ref^e, so e's scale shrinks as A grows along the ridge of
 * an exponent near 0 (a funnel); times the power law's size the funnel
 * opens into a band.  Returns E s + lo_A at u.
 */
static double
coords_slope_scale(const struct het_posterior *post,
    const struct post_triple *tr, const double *u)
{
	return exp(u[tr->a]) / (1 + exp(-u[tr->o])) + post->pri[tr->a].lo;
}

/*
 * Share coordinates: x of one triple (its exponent already mapped);
 * returns the log-Jacobian but that of the exponent's transform.
 */
static double
coords_share_forward(const struct het_posterior *post,
    const struct post_triple *tr, const double *u, double *x)
{
	double	E = exp(u[tr->a]), z = u[tr->o], s, ls, l1s;

	/* s = 1 / (1 + e^-z) and ln s, ln (1 - s) without cancellation */
	if (z >= 0) {
		s = 1 / (1 + exp(-z));
		ls = -log1p(exp(-z));
		l1s = -z + ls;
	} else {
		s = exp(z) / (1 + exp(z));
		l1s = -log1p(exp(z));
		ls = z + l1s;
	}
	x[tr->a] = post->pri[tr->a].lo + E * s * exp(-x[tr->e] *
	    post->ltref);
	x[tr->o] = post->pri[tr->o].lo + E * (1 - s);
	return 2 * u[tr->a] + ls + l1s - x[tr->e] * post->ltref;
}

double
het_post_forward(const struct het_posterior *post, const double *u, double *x,
    double *dxdu, double *dlj, struct post_tri_grad *tg)
{
	const struct post_triple *tr;
	double	lj = 0, l, g, ue;
	size_t	m, e;

	for (m = 0; m < post->d; m++) {
		if (post->role[m] == ROLE_PREFACTOR ||
		    post->role[m] == ROLE_TRIPLE ||
		    post->role[m] == ROLE_FRACTION)
			continue;
		het_transform_forward(&post->bd[m], 1, &u[m], &x[m], &l,
		    dxdu != NULL ? &dxdu[m] : NULL,
		    dlj != NULL ? &dlj[m] : NULL);
		lj += l;
	}
	if (post->fr0 >= 0 && (size_t)post->fr0 < post->d) {
		l = u[post->fr0] - coords_fraction_shift(post, x);
		x[post->fr0] = exp(l);
		lj += l;
	}
	for (m = 0; m < post->d; m++) {
		if (post->role[m] != ROLE_PREFACTOR)
			continue;
		e = post->mate[m];
		/* ln A = v - e ln t_ref; |d(A, e)/d(v, u_e)| = A de/du_e. */
		l = u[m] - x[e] * post->ltref;
		x[m] = exp(l);
		lj += l;
	}
	for (m = 0; m < post->ntri; m++) {
		tr = &post->tri[m];
		if (tr->anchor) {
			lj += coords_anchor_forward(post, tr, u, x,
			    tg != NULL ? tg[m].m : NULL,
			    tg != NULL ? tg[m].h : NULL);
			continue;
		}
		g = coords_slope_scale(post, tr, u);
		ue = u[tr->e] / g;
		het_transform_forward(&post->bd[tr->e], 1, &ue, &x[tr->e], &l,
		    dxdu != NULL ? &dxdu[tr->e] : NULL,
		    dlj != NULL ? &dlj[tr->e] : NULL);
		lj += l - log(g) + coords_share_forward(post, tr, u, x);
	}
	return lj;
}

void
het_posterior_to_x(const struct het_posterior *post, const double *u,
    double *x)
{
	het_post_forward(post, u, x, NULL, NULL, NULL);
}

/*
 * Solve M^T g = h for a 3 x 3 row-major M by Gaussian elimination with
 * partial pivoting (M is regular wherever the anchors map is defined).
 */
static void
coords_solve3t(const double *m, const double *h, double *g)
{
	double	a[3][4], f, t;
	int	i, j, k, piv;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++)
			a[i][j] = m[3 * j + i];
		a[i][3] = h[i];
	}
	for (k = 0; k < 3; k++) {
		piv = k;
		for (i = k + 1; i < 3; i++)
			if (fabs(a[i][k]) > fabs(a[piv][k]))
				piv = i;
		for (j = 0; j < 4 && piv != k; j++) {
			t = a[k][j];
			a[k][j] = a[piv][j];
			a[piv][j] = t;
		}
		for (i = k + 1; i < 3; i++) {
			f = a[i][k] / a[k][k];
			for (j = k; j < 4; j++)
				a[i][j] -= f * a[k][j];
		}
	}
	for (i = 2; i >= 0; i--) {
		t = a[i][3];
		for (j = i + 1; j < 3; j++)
			t -= a[i][j] * g[j];
		g[i] = t / a[i][i];
	}
}

void
het_post_chain_grad(const struct het_posterior *post, const double *u,
    double *gx, double *grad)
{
	const struct post_triple *tr;
	double	h[3], g3[3], f, q, r, s, ge, g, es;
	size_t	m, e;

	if (post->fr0 >= 0 && (size_t)post->fr0 < post->d) {
		/* f0 = exp(u - f1 (t_c - f2)): d/du [F + ln f0] = F' f0 + 1,
		 * and f1, f2 move f0 (and ln f0) too */
		f = gx[post->fr0] * post->x[post->fr0] + 1;
		grad[post->fr0] = f;
		if (post->fr1 >= 0)
			gx[post->fr1] -= f * (post->tc - (post->fr2 >= 0 ?
			    post->x[post->fr2] : post->fix2));
		if (post->fr2 >= 0)
			gx[post->fr2] += f * (post->fr1 >= 0 ?
			    post->x[post->fr1] : post->fix1);
	}

	for (m = 0; m < post->d; m++) {
		switch (post->role[m]) {
		case ROLE_TRIPLE:
		case ROLE_FRACTION:
			break;
		case ROLE_PREFACTOR:
			/* d/dv [f(A) + ln A] = f'(A) A + 1 */
			grad[m] = gx[m] * post->x[m] + 1;
			break;
		case ROLE_EXPONENT:
			/* e also moves A: dA/de = -A ln t_ref, and the
			 * Jacobian term ln A has d/de = -ln t_ref. */
			e = post->mate[m];
			grad[m] = (gx[m] - (gx[e] * post->x[e] + 1) *
			    post->ltref) * post->dxdu[m] + post->dlj[m];
			break;
		default:
			grad[m] = gx[m] * post->dxdu[m] + post->dlj[m];
			break;
		}
	}
	for (m = 0; m < post->ntri; m++) {
		tr = &post->tri[m];
		if (tr->anchor) {
			/* g_u = (dx/du)^T h = M^-T h, M = dJ/dx */
			h[0] = gx[tr->a] + post->tg[m].h[0];
			h[1] = gx[tr->e] + post->tg[m].h[1];
			h[2] = gx[tr->o] + post->tg[m].h[2];
			coords_solve3t(post->tg[m].m, h, g3);
			grad[tr->a] = g3[0];
			grad[tr->e] = g3[1];
			grad[tr->o] = g3[2];
			continue;
		}
		/* share: q = A - lo_A = E s / t_ref^e, r = o - lo_o = E (1 -
		 * s); log J = 2 w + ln s + ln (1 - s) - e ln t_ref */
		q = post->x[tr->a] - post->pri[tr->a].lo;
		r = post->x[tr->o] - post->pri[tr->o].lo;
		s = 1 / (1 + exp(-u[tr->o]));
		grad[tr->a] = gx[tr->a] * q + gx[tr->o] * r + 2;
		grad[tr->o] = gx[tr->a] * q * (1 - s) - gx[tr->o] * r * s +
		    1 - 2 * s;
		ge = (gx[tr->e] - (gx[tr->a] * q + 1) * post->ltref) *
		    post->dxdu[tr->e] + post->dlj[tr->e];
		/* u_e = b / g, g = E s + lo_A, log J also - ln g:
		 * dg/dw = E s, dg/dz = E s (1 - s) */
		g = coords_slope_scale(post, tr, u);
		es = g - post->pri[tr->a].lo;
		f = -(ge * u[tr->e] / g + 1) / g;
		grad[tr->e] = ge / g;
		grad[tr->a] += f * es;
		grad[tr->o] += f * es * (1 - s);
	}
}

size_t
het_posterior_ntriples(const struct het_posterior *post)
{
	return post->ntri;
}

int
het_posterior_fraction(const struct het_posterior *post)
{
	return post->fr0 >= 0;
}

unsigned
het_posterior_anchors(const struct het_posterior *post)
{
	unsigned	mask = 0;
	size_t		k;

	for (k = 0; k < post->ntri; k++)
		if (post->tri[k].anchor)
			mask |= 1u << post->tri[k].law;
	return mask;
}

int
het_posterior_set_anchors(struct het_posterior *post, unsigned mask,
    struct het_error *err)
{
	unsigned	have = 0;
	size_t		k;

	for (k = 0; k < post->ntri; k++)
		have |= 1u << post->tri[k].law;
	if ((mask & ~have) != 0 || (mask != 0 && !(post->lr > 0)))
		return het_error_set(err, HET_EINVAL, "anchor coordinates "
		    "for power laws %#x: the posterior samples laws %#x as "
		    "triples%s", mask, have, post->lr > 0 ? "" : ", and its "
		    "time grid is too short for three anchor times");
	for (k = 0; k < post->ntri; k++)
		post->tri[k].anchor = (mask >> post->tri[k].law) & 1u;
	return HET_OK;
}

unsigned
het_posterior_anchor_choice(const struct het_posterior *post,
    const double *mode, const double *cov, double zmin)
{
	const struct post_triple *tr;
	unsigned	mask = 0;
	double		e, dedu, l, sd, g, ue, es, s, v, grad[3];
	size_t		col[3];
	int		i, j;
	size_t		k;

	if (!(post->lr > 0))
		return 0;
	for (k = 0; k < post->ntri; k++) {
		tr = &post->tri[k];
		if (tr->anchor) {
			mask |= 1u << tr->law;
			continue;
		}
		/* the exponent's own coordinate is u_e = b / g(w, z): its
		 * variance by the delta method over (w, b, z) */
		g = coords_slope_scale(post, tr, mode);
		ue = mode[tr->e] / g;
		es = g - post->pri[tr->a].lo;
		s = 1 / (1 + exp(-mode[tr->o]));
		col[0] = tr->a;
		col[1] = tr->e;
		col[2] = tr->o;
		grad[0] = -ue * es / g;
		grad[1] = 1 / g;
		grad[2] = -ue * es * (1 - s) / g;
		for (v = 0, i = 0; i < 3; i++)
			for (j = 0; j < 3; j++)
				v += grad[i] * grad[j] *
				    cov[col[i] * post->d + col[j]];
		het_transform_forward(&post->bd[tr->e], 1, &ue, &e, &l, &dedu,
		    NULL);
		sd = sqrt(v) * fabs(dedu);
		if (isfinite(sd) && fabs(e) > zmin * sd)
			mask |= 1u << tr->law;
	}
	return mask;
}
