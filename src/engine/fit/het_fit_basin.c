/*
 * het_fit_basin.c: the basin strategy of a joint fit (het_fit.h,
 * option `basin`; docs/PERFORMANCE.md section "Basin").
 *
 * After the fit proper (its start plus any multistart starts) the
 * result is judged, and escape starts run when it looks like a wrong
 * basin:
 *   - full escape, when its reduced chi-square is improbable for the
 *     noise sigma (above 1 + max(0.05, 5 sqrt(2 / dof)), the threshold
 *     of the engine's warning): release, swap, HET_FIT_BASIN_NBEST
 *     starts around the best point and HET_FIT_BASIN_NSTART around the
 *     start (below), screened like multistart (every start
 *     HET_FIT_BASIN_SCREEN iterations, then the best HET_FIT_BASIN_KEEP
 *     and the first go on); up to HET_FIT_BASIN_ROUNDS rounds while the
 *     result still looks wrong and the last round improved it;
 *   - light escape, once, when only a physics parameter ended on a
 *     bound that its start was not on (a difference of 1 % in cost that
 *     no chi-square test sees): release and swap, the better after
 *     screening and the first go on.  Many true minima have a parameter
 *     the data do not pin on a bound, hence once and light.
 * The starts:
 *	- release: the best point with every physics parameter stuck on a
 *	  bound moved back inside (to its start value, or a tenth of the
 *	  range in from the bound when the start was there too);
 *	- swap: the best point with the reference and sample transport
 *	  exchanged and f3' = 1 - 2 f0 - f3, so that the sample fraction at
 *	  t = f2 becomes 1 - f (two-component problems, found by parameter
 *	  name);
 *	- around the best point (released) and around the start: the
 *	  physics parameters times 1 +- u, u uniform in [0.1, 0.3], random
 *	  sign (a parameter small against its range moves by u times a
 *	  hundredth of the range), clipped into the bounds; seeded with
 *	  nlsq.seed + 1, so a fit is reproducible.
 * The best escape replaces the result when it ends lower; the starts of
 * both runs form one table (the fit's first, then the escape's) and
 * `best` and the message say which start won.  Levers measured and
 * dropped (docs/PERFORMANCE.md): restarts around the start in the light
 * escape (BASIN_LIGHT), the full escape on every fit (BASIN_ALWAYS).
 *
 * Which levers run is a bit mask (enum below): opt->basin 0 is the
 * default mask, chosen from the bench (bench/bench_basin.c); > 0 an
 * explicit mask (development runs); < 0 off.
 */
#include "config.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_fit_impl.h"
#include "het_util.h"

/* Escape rounds at most, iterations of screening, starts kept. */
#define HET_FIT_BASIN_ROUNDS	2
#define HET_FIT_BASIN_SCREEN	10
#define HET_FIT_BASIN_KEEP	2
/* Restarts around the best point and around the start per round. */
#define HET_FIT_BASIN_NBEST	3
#define HET_FIT_BASIN_NSTART	3
/* Restarts around the start of the light escape. */
#define HET_FIT_BASIN_NLIGHT	2

/* Levers (opt->basin > 0 selects them; 0: BASIN_DEFAULT). */
enum {
	BASIN_CHI2	= 1,	/* trigger: improbable chi2_red */
	BASIN_BOUND	= 2,	/* trigger: a parameter stuck on a bound */
	BASIN_RELEASE	= 4,	/* candidate: stuck parameters released */
	BASIN_SWAP	= 8,	/* candidate: reference <-> sample */
	BASIN_BEST	= 16,	/* candidates around the best point */
	BASIN_START	= 32,	/* candidates around the start */
	BASIN_ALWAYS	= 64,	/* run the escape without a trigger */
	BASIN_LIGHT	= 128	/* bound trigger alone: also restarts
				   around the start */
};
#define BASIN_DEFAULT (BASIN_CHI2 | BASIN_BOUND | BASIN_RELEASE | \
	BASIN_SWAP | BASIN_BEST | BASIN_START)

/* Side of the bound column c of x is stuck on: -1 lower, 1 upper, 0. */
static int
stuck(const struct fit_prob *fp, const double *x, size_t c)
{
	double w = fp->hi[c] - fp->lo[c], tol;

	if (!isfinite(w))
		return 0;
	tol = 1e-6 * w;
	if (x[c] - fp->lo[c] <= tol)
		return -1;
	if (fp->hi[c] - x[c] <= tol)
		return 1;
	return 0;
}

/* Physics columns stuck on a bound at x that were not at x0. */
static size_t
nstuck(const struct fit_prob *fp, const double *x, const double *x0)
{
	size_t c, n = 0;
	int s;

	for (c = 0; c < fp->nfp; c++)
		if ((s = stuck(fp, x, c)) != 0 && stuck(fp, x0, c) != s)
			n++;
	return n;
}

/*
 * Whether the result looks like a wrong basin under the mask: 2 (an
 * improbable chi-square: the full escape), 1 (a parameter newly on a
 * bound: the light escape), 0 (no).
 */
static int
looks_wrong(const struct fit_prob *fp, const struct het_fit_result *res,
    unsigned mask)
{
	const struct het_fit_start *bs = &res->starts[res->best];
	double lim = 1.0 + fmax(0.05, 5.0 * sqrt(2.0 / (double)res->dof));

	if (mask & BASIN_ALWAYS)
		return 2;
	if ((mask & BASIN_CHI2) && res->sigma > 0 && res->chi2_red > lim)
		return 2;
	return (mask & BASIN_BOUND) && nstuck(fp, bs->x, bs->x0) > 0;
}

static void
clip(const struct fit_prob *fp, double *x)
{
	size_t c;

	for (c = 0; c < fp->p; c++)
		x[c] = fmin(fmax(x[c], fp->lo[c]), fp->hi[c]);
}

/* The fitted column named `name`, or -1. */
static long
col_named(const struct fit_prob *fp, const char *name)
{
	size_t c;

	for (c = 0; c < fp->nfp; c++)
		if (strcmp(fp->names[c], name) == 0)
			return (long)c;
	return -1;
}

/* Release: stuck physics parameters of x moved inside. */
static int
release(const struct fit_prob *fp, const double *x0, double *x)
{
	size_t c;
	int s, any = 0;

	for (c = 0; c < fp->nfp; c++) {
		if ((s = stuck(fp, x, c)) == 0)
			continue;
		any = 1;
		if (stuck(fp, x0, c) == 0)
			x[c] = x0[c];
		else
			x[c] = s < 0 ? fp->lo[c] + 0.1 * (fp->hi[c] -
			    fp->lo[c]) : fp->hi[c] - 0.1 * (fp->hi[c] -
			    fp->lo[c]);
	}
	return any;
}

/*
 * Swap: reference and sample transport exchanged, the sample fraction
 * f(t) = f0 exp(f1 (t - f2)) + f3 replaced by one whose value at t = f2
 * is 1 - f(f2): f3' = 1 - 2 f0 - f3 (f0, f1, f2 kept; the caller clips
 * into the bounds).  Returns 0 when the problem has no such columns
 * free.
 */
static int
swap_roles(const struct fit_prob *fp, double *x)
{
	static const char *const ref[] = { "D0_ref", "alpha_ref",
	    "D_offset_ref" };
	static const char *const smp[] = { "D0_sample", "alpha_sample",
	    "D_offset_sample" };
	long a, b, c0, c3;
	double t;
	size_t k;
	int any = 0;

	for (k = 0; k < 3; k++) {
		a = col_named(fp, ref[k]);
		b = col_named(fp, smp[k]);
		if (a < 0 || b < 0)
			continue;
		t = x[a];
		x[a] = x[b];
		x[b] = t;
		any = 1;
	}
	c0 = col_named(fp, "f0");
	c3 = col_named(fp, "f3");
	if (any && c0 >= 0 && c3 >= 0)
		x[c3] = 1.0 - 2.0 * x[c0] - x[c3];
	return any;
}

/* Physics of x perturbed by 10-30 %, random sign. */
static void
perturb(const struct fit_prob *fp, gsl_rng *rng, double *x)
{
	size_t c;
	double u, w;

	for (c = 0; c < fp->nfp; c++) {
		u = 0.1 + 0.2 * gsl_rng_uniform(rng);
		if (gsl_rng_uniform(rng) < 0.5)
			u = -u;
		w = fp->hi[c] - fp->lo[c];
		if (isfinite(w) && fabs(x[c]) < 0.01 * w)
			x[c] += u * 0.01 * w;
		else
			x[c] *= 1.0 + u;
	}
}

/* out: x with its physics perturbed, inside the bounds. */
static void
around(const struct fit_prob *fp, gsl_rng *rng, const double *x,
    double *out)
{
	memcpy(out, x, fp->p * sizeof(double));
	perturb(fp, rng, out);
	clip(fp, out);
}

/*
 * The escape starts of one round into X (rows of p); returns their
 * number (0: none).
 */
static size_t
escape_starts(const struct fit_prob *fp, const struct het_fit_result *res,
    unsigned mask, int full, gsl_rng *rng, double *X)
{
	const struct het_fit_start *bs = &res->starts[res->best];
	const double *xs = res->starts[0].x0;
	size_t p = fp->p, n = 0, k;

	if (mask & BASIN_RELEASE) {
		memcpy(X + n * p, bs->x, p * sizeof(double));
		if (release(fp, bs->x0, X + n * p))
			n++;
	}
	if (mask & BASIN_SWAP) {
		memcpy(X + n * p, bs->x, p * sizeof(double));
		if (swap_roles(fp, X + n * p)) {
			clip(fp, X + n * p);
			n++;
		}
	}
	if (!full) {
		for (k = 0; (mask & BASIN_LIGHT) && k < HET_FIT_BASIN_NLIGHT;
		    k++)
			around(fp, rng, xs, X + n++ * p);
		return n;
	}
	for (k = 0; (mask & BASIN_BEST) && k < HET_FIT_BASIN_NBEST; k++) {
		memcpy(X + n * p, bs->x, p * sizeof(double));
		release(fp, bs->x0, X + n * p);
		perturb(fp, rng, X + n * p);
		clip(fp, X + n * p);
		n++;
	}
	for (k = 0; (mask & BASIN_START) && k < HET_FIT_BASIN_NSTART; k++)
		around(fp, rng, xs, X + n++ * p);
	return n;
}

/*
 * Merge: the result `to` gets the starts of `from` appended after its
 * own (ownership of the vectors moves; `from` keeps none).  When
 * from_wins, `to` is the escape's result: its own starts go after
 * those of `from` instead, so the table stays in the order of the runs.
 */
static int
merge_starts(struct het_fit_result *to, struct het_fit_result *from,
    int from_wins, struct het_error *err)
{
	size_t n = to->nstarts + from->nstarts;
	struct het_fit_start *s;

	if ((s = het_alloc_array(n, sizeof(*s), "fit", err)) == NULL)
		return HET_ENOMEM;
	if (from_wins) {
		memcpy(s, from->starts, from->nstarts * sizeof(*s));
		memcpy(s + from->nstarts, to->starts, to->nstarts *
		    sizeof(*s));
		to->best += from->nstarts;
	} else {
		memcpy(s, to->starts, to->nstarts * sizeof(*s));
		memcpy(s + to->nstarts, from->starts, from->nstarts *
		    sizeof(*s));
	}
	free(to->starts);
	free(from->starts);
	from->starts = NULL;
	from->nstarts = 0;
	to->starts = s;
	to->nstarts = n;
	return HET_OK;
}

/* The floor restarts' sentences of from (the fit's history) onto to. */
static int
carry_notes(struct het_fit_result *to, const struct het_fit_result *from,
    struct het_error *err)
{
	size_t k, n = strlen(HET_FIT_FLOOR_NOTE);
	int rc = HET_OK;

	for (k = 0; rc == HET_OK && k < from->nwarnings; k++)
		if (strncmp(from->warnings[k], HET_FIT_FLOOR_NOTE, n) == 0)
			rc = het_nlsq_warning_add(&to->warnings,
			    &to->nwarnings, err, "%s", from->warnings[k]);
	return rc;
}

int
het_fit_basin(struct het_pool *pool, const struct fit_prob *fp,
    const struct het_fit_options *opt, struct het_fit_result **res,
    struct het_error *err)
{
	struct het_fit_options o = *opt;
	struct het_fit_result *r = *res, *e = NULL;
	struct het_error ee;
	unsigned mask = opt->basin > 0 ? (unsigned)opt->basin : BASIN_DEFAULT;
	size_t n, round;
	int how;
	double *X, cost;
	gsl_rng *rng;
	int rc = HET_OK, won = 0;

	if (opt->basin < 0 || fp->angle >= 0 || fp->nfp == 0 || r == NULL ||
	    r->nstarts == 0)
		return HET_OK;
	X = het_alloc_array((2 + HET_FIT_BASIN_NBEST + HET_FIT_BASIN_NSTART) *
	    fp->p, sizeof(double), "fit", err);
	if (X == NULL || (rng = gsl_rng_alloc(gsl_rng_mt19937)) == NULL) {
		free(X);
		het_fit_result_free(r);
		*res = NULL;
		return het_error_set(err, HET_ENOMEM, "fit: out of memory "
		    "for the basin strategy");
	}
	gsl_rng_set(rng, opt->nlsq.seed + 1);
	o.screen_iter = HET_FIT_BASIN_SCREEN;
	for (round = 0; round < HET_FIT_BASIN_ROUNDS; round++) {
		/* A parameter stays on a bound at many true minima (the
		   data do not pin it): the light escape runs once. */
		if ((how = looks_wrong(fp, r, mask)) == 0 ||
		    (how == 1 && round > 0))
			break;
		o.screen_keep = how == 2 ? HET_FIT_BASIN_KEEP : 1;
		if ((n = escape_starts(fp, r, mask, how == 2, rng, X)) == 0)
			break;
		cost = r->cost;
		/* t0 0: het_fit_run sets the wall time of the whole call. */
		het_error_clear(&ee);
		rc = het_fit_problem(pool, fp, &o, X, n, 0.0, &e, &ee);
		if (rc != HET_OK) {
			het_fit_result_free(e);
			e = NULL;
			/* The first fit stands: a cancel is passed on, any
			   other failure of the escape becomes a warning. */
			if (rc == HET_ECANCEL) {
				if (err != NULL)
					*err = ee;
			} else
				rc = het_nlsq_warning_add(&r->warnings,
				    &r->nwarnings, err, "The fit looks like a "
				    "wrong basin, but the escape starts could "
				    "not run: %s", ee.msg);
			break;
		}
		if (e->cost < cost) {
			if ((rc = merge_starts(e, r, 1, err)) != HET_OK ||
			    (rc = carry_notes(e, r, err)) != HET_OK)
				break;
			het_fit_result_free(r);
			r = e;
			won = 1;
		} else {
			rc = merge_starts(r, e, 0, err);
			het_fit_result_free(e);
			e = NULL;
			break;
		}
		e = NULL;
	}
	het_fit_result_free(e);
	if (rc != HET_OK && rc != HET_ECANCEL) {
		/* het_fit_run promises no result with an error. */
		het_fit_result_free(r);
		r = NULL;
	} else if (won)
		snprintf(r->message, sizeof(r->message), "%s (best of %zu "
		    "starts: start %zu, a basin escape from a first fit "
		    "that ended in a wrong basin)",
		    het_nlsq_reason_text(r->reason), r->nstarts, r->best);
	*res = r;
	gsl_rng_free(rng);
	free(X);
	return rc;
}
