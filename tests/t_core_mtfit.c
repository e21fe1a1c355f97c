/*
 * t_core_mtfit.c: the quick fits of a multitau g2 (het_mtfit).
 *
 * Simulated data with known truth and Gaussian noise of known standard
 * deviation (fixture_mt, a fixed seed): 8 q bins of a Brownian sample,
 * Gamma = D q^2, on boost_corr's 52 delays from 1 ms to 16 s.
 *   - single exponentials: every bin's rate, contrast and baseline
 *     within 4 standard errors of the truth, a reduced chi-square near
 *     1, and D (through the origin and with an intercept, whose Gamma_0
 *     is 0 within 4 errors) within 4 standard errors of the truth;
 *   - a stretched sample (kappa 0.63): kappa and the rates recovered
 *     within 4 standard errors, while single exponentials fail its
 *     chi-square;
 *   - the same file through the reader: the fits of what
 *     het_multitau_read returns give D within 4 standard errors;
 *   - points with a zero error and outside the fit range left out;
 *     too few points reported, not fitted;
 *   - a bin without decay: its rate has no uncertainty and D skips it;
 *     D from fewer than two usable bins refused with the reasons;
 *   - every argument error with its message.
 * Never exact digits of a fit: margins are statistical.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "fixture_mt.h"
#include "het_h5.h"
#include "het_mtfit.h"
#include "het_multitau.h"
#include "tap.h"

#define NB	8
#define MAXT	64
#define D_TRUE	4.87e4

static double tau[MAXT];
static size_t ntau;
static double qs[NB];

static void
setup(void)
{
	double d[MAXT];
	size_t k;

	ntau = fx_mt_delays(16384, d, MAXT);
	for (k = 0; k < ntau; k++)
		tau[k] = d[k] * 1e-3;
	for (k = 0; k < NB; k++)
		qs[k] = 0.0021 + 0.00097 * (double)k;
}

/* |got - want| within 4 sigma (sigma finite and positive). */
static void __attribute__((format(printf, 4, 5)))
within4(double got, double want, double sd, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ok(isfinite(sd) && sd > 0 && fabs(got - want) < 4 * sd,
	    "%s: %.6g vs %.6g, %.2f sigma", what, got, want,
	    (got - want) / sd);
}

/* Fit every bin of g2/err with model into f; 0 when all returned OK. */
static int
fit_all(const double *g2, const double *err, enum het_mtfit_model model,
    struct het_mtfit *f)
{
	struct het_error e;
	size_t b;
	int bad = 0;

	for (b = 0; b < NB; b++) {
		het_error_clear(&e);
		if (het_mtfit_bin(tau, g2 + b * ntau, err + b * ntau, ntau,
		    model, NULL, &f[b], &e) != HET_OK) {
			diag("bin %zu: %s", b + 1, e.msg);
			bad++;
		}
	}
	return bad;
}

static void
test_single(void)
{
	struct fx_mt_sim s = { D_TRUE, 0.213, 1.0037, 1.0, 0.004, 77031 };
	static double g2[NB * MAXT], err[NB * MAXT];
	struct het_mtfit f[NB];
	struct het_mtfit_diff d;
	struct het_error e;
	size_t b;
	int conv = 1, chi = 1;

	is_int((long long)ntau, 52, "boost_corr's delays: 52 up to 16384 "
	    "frames");
	fx_mt_simulate(&s, tau, ntau, qs, NB, g2, err);
	is_int(fit_all(g2, err, HET_MTFIT_SINGLE, f), 0, "single: 8 fits "
	    "ran");
	for (b = 0; b < NB; b++) {
		within4(f[b].x[HET_MTFIT_GAMMA], D_TRUE * qs[b] * qs[b],
		    f[b].err[HET_MTFIT_GAMMA], "single: bin %zu rate", b + 1);
		within4(f[b].x[HET_MTFIT_BETA], 0.213,
		    f[b].err[HET_MTFIT_BETA], "single: bin %zu contrast",
		    b + 1);
		within4(f[b].x[HET_MTFIT_B], 1.0037, f[b].err[HET_MTFIT_B],
		    "single: bin %zu baseline", b + 1);
		conv &= f[b].status == HET_MTFIT_OK && f[b].npts == ntau &&
		    f[b].dof == ntau - 3 && f[b].x[HET_MTFIT_KAPPA] == 1.0 &&
		    isnan(f[b].err[HET_MTFIT_KAPPA]) && f[b].at_bound == 0;
		/* 49 degrees of freedom: sd of chi2_red is 0.2 */
		chi &= f[b].chi2_red > 0.4 && f[b].chi2_red < 1.8;
		diag("bin %zu: Gamma %.5g +- %.2g (truth %.5g), chi2_red %.3f, "
		    "%ld evaluations", b + 1, f[b].x[HET_MTFIT_GAMMA],
		    f[b].err[HET_MTFIT_GAMMA], D_TRUE * qs[b] * qs[b],
		    f[b].chi2_red, f[b].nfev);
	}
	ok(conv, "single: every fit converged on all 52 points, kappa fixed "
	    "at 1 without error, nothing on a bound");
	ok(chi, "single: every reduced chi-square within 0.4 .. 1.8");
	het_error_clear(&e);
	is_int(het_mtfit_diffusion(qs, f, NB, &d, &e), HET_OK, "D fitted");
	is_int((long long)d.n, NB, "D: from all 8 bins");
	within4(d.D, D_TRUE, d.D_err, "D through the origin");
	ok(d.D_err < 0.03 * D_TRUE, "D: standard error %.3g, under 3%% (the "
	    "test can tell)", d.D_err);
	within4(d.D1, D_TRUE, d.D1_err, "D with an intercept");
	within4(d.G0, 0.0, d.G0_err, "Gamma_0 is 0");
	ok(d.chi2_red < 4 && d.chi2_red1 < 4, "D: reduced chi-squares %.2f, "
	    "%.2f", d.chi2_red, d.chi2_red1);
	is_double(het_mtfit_eval(&f[3], 0.0371), f[3].x[0] + f[3].x[1] *
	    exp(-2 * f[3].x[2] * 0.0371), 1e-15, "het_mtfit_eval: the model");
}

static void
test_stretched(void)
{
	struct fx_mt_sim s = { D_TRUE, 0.187, 0.9981, 0.63, 0.003, 5501 };
	static double g2[NB * MAXT], err[NB * MAXT];
	struct het_mtfit f[NB], f1[NB];
	struct het_mtfit_diff d;
	struct het_error e;
	size_t b;
	int bad1 = 1;

	fx_mt_simulate(&s, tau, ntau, qs, NB, g2, err);
	is_int(fit_all(g2, err, HET_MTFIT_STRETCHED, f), 0, "stretched: 8 "
	    "fits ran");
	for (b = 0; b < NB; b++) {
		within4(f[b].x[HET_MTFIT_KAPPA], 0.63,
		    f[b].err[HET_MTFIT_KAPPA], "stretched: bin %zu kappa",
		    b + 1);
		within4(f[b].x[HET_MTFIT_GAMMA], D_TRUE * qs[b] * qs[b],
		    f[b].err[HET_MTFIT_GAMMA], "stretched: bin %zu rate",
		    b + 1);
		ok(f[b].status == HET_MTFIT_OK && f[b].dof == ntau - 4,
		    "stretched: bin %zu converged, 4 parameters (chi2_red "
		    "%.3f)", b + 1, f[b].chi2_red);
	}
	het_error_clear(&e);
	is_int(het_mtfit_diffusion(qs, f, NB, &d, &e), HET_OK, "D of the "
	    "stretched rates");
	within4(d.D, D_TRUE, d.D_err, "stretched: D");
	fit_all(g2, err, HET_MTFIT_SINGLE, f1);
	/* with 49 degrees of freedom a correct model gives 1 +- 0.2 */
	for (b = 0; b < NB; b++) {
		bad1 &= f1[b].chi2_red > 2.5;
		diag("single on stretched, bin %zu: chi2_red %.2f", b + 1,
		    f1[b].chi2_red);
	}
	ok(bad1, "single exponentials on stretched data: every reduced "
	    "chi-square above 2.5");
	is_str(het_mtfit_name(HET_MTFIT_STRETCHED), "stretched", "name");
	is_str(het_mtfit_name(HET_MTFIT_SINGLE), "single", "name");
}

/* The simulated file through het_multitau_read, then the fits. */
static void
test_file(void)
{
	struct fx_mt_sim s = { D_TRUE, 0.213, 1.0037, 1.0, 0.004, 90210 };
	static double g2[NB * MAXT], err[NB * MAXT];
	double d[MAXT];
	struct het_multitau *mt;
	struct het_mtfit f[NB];
	struct het_mtfit_diff df;
	struct het_error e;
	struct fx_mt m;
	char *dir, *path;
	size_t b;

	fx_mt_simulate(&s, tau, ntau, qs, NB, g2, err);
	fx_mt_delays(16384, d, MAXT);
	fx_mt_rings(&m, ntau, d, NB, qs, g2, err);
	m.f32 = 1;
	m.bin_first = 1;
	m.frame_time = 5e-4;
	m.stride = 2;
	if ((dir = fx_tmpdir()) == NULL) {
		ok(0, "temporary directory");
		return;
	}
	path = fx_path(dir, "sim_results.hdf");
	ok(fx_mt_write(path, &m) == 0, "file written (bins first, float32)");
	het_error_clear(&e);
	mt = het_multitau_read(path, &e);
	ok(mt != NULL, "read back");
	if (mt != NULL) {
		for (b = 0; b < NB; b++)
			het_mtfit_bin(mt->tau, mt->g2 + b * mt->ntau,
			    mt->g2_err + b * mt->ntau, mt->ntau,
			    HET_MTFIT_SINGLE, NULL, &f[b], &e);
		het_mtfit_diffusion(qs, f, NB, &df, &e);
		within4(df.D, D_TRUE, df.D_err, "file: D");
		het_multitau_free(mt);
	}
	fx_rmtree(dir);
	free(path);
	free(dir);
}

static void
test_points(void)
{
	struct fx_mt_sim s = { D_TRUE, 0.213, 1.0037, 1.0, 0.004, 4242 };
	static double g2[MAXT], err[MAXT];
	struct het_mtfit_opts o;
	struct het_mtfit f;
	struct het_error e;
	size_t k, in = 0;

	fx_mt_simulate(&s, tau, ntau, qs + 2, 1, g2, err);
	err[0] = err[9] = err[30] = 0.0;
	g2[9] = 0.0;
	het_error_clear(&e);
	het_mtfit_bin(tau, g2, err, ntau, HET_MTFIT_SINGLE, NULL, &f, &e);
	is_int((long long)f.npts, (long long)ntau - 3, "three zero errors "
	    "left out: 49 points");
	within4(f.x[HET_MTFIT_GAMMA], D_TRUE * qs[2] * qs[2],
	    f.err[HET_MTFIT_GAMMA], "the rate without them");
	het_mtfit_opts_init(&o);
	o.tau_lo = 0.0101;
	o.tau_hi = 5.0;
	for (k = 0; k < ntau; k++)
		in += tau[k] >= o.tau_lo && tau[k] <= o.tau_hi && err[k] > 0;
	het_mtfit_bin(tau, g2, err, ntau, HET_MTFIT_SINGLE, &o, &f, &e);
	is_int((long long)f.npts, (long long)in, "the fit range keeps %zu "
	    "points", in);
	ok(f.status == HET_MTFIT_OK, "and fits them");
	/* too few */
	het_mtfit_bin(tau, g2 + 20, err + 20, 3, HET_MTFIT_SINGLE, NULL, &f,
	    &e);
	ok(f.status == HET_MTFIT_FEW && isnan(f.x[HET_MTFIT_GAMMA]) &&
	    isnan(het_mtfit_eval(&f, 0.1)), "3 points: FEW, nothing fitted");
	like(f.note, "3 usable points (error above 0, inside the fit range); "
	    "the single fit needs at least 4", "and says why");
	het_mtfit_bin(tau, g2 + 20, err + 20, 4, HET_MTFIT_STRETCHED, NULL,
	    &f, &e);
	ok(f.status == HET_MTFIT_FEW, "4 points: too few for stretched");
	like(f.note, "the stretched fit needs at least 5", "says 5");
}

static void
test_no_decay(void)
{
	struct fx_mt_sim flat = { D_TRUE, 0.0, 1.0021, 1.0, 0.004, 31337 };
	struct fx_mt_sim s = { D_TRUE, 0.213, 1.0037, 1.0, 0.004, 8080 };
	static double g2[3 * MAXT], err[3 * MAXT];
	struct het_mtfit f[3];
	struct het_mtfit_diff d;
	struct het_error e;

	fx_mt_simulate(&s, tau, ntau, qs, 1, g2, err);
	fx_mt_simulate(&flat, tau, ntau, qs + 1, 1, g2 + ntau, err + ntau);
	het_error_clear(&e);
	het_mtfit_bin(tau, g2, err, ntau, HET_MTFIT_SINGLE, NULL, &f[0], &e);
	het_mtfit_bin(tau, g2 + ntau, err + ntau, ntau, HET_MTFIT_SINGLE,
	    NULL, &f[1], &e);
	het_mtfit_bin(tau, g2, err, 2, HET_MTFIT_SINGLE, NULL, &f[2], &e);
	diag("no decay: beta %.3g +- %.3g, Gamma %.3g +- %.3g, %s",
	    f[1].x[1], f[1].err[1], f[1].x[2], f[1].err[2], f[1].note);
	ok(!(isfinite(f[1].err[HET_MTFIT_GAMMA]) &&
	    fabs(f[1].x[HET_MTFIT_BETA]) > 4 * f[1].err[HET_MTFIT_BETA]),
	    "no decay: no contrast beyond its noise, or no rate error");
	is_int(het_mtfit_diffusion(qs, f, 3, &d, &e), HET_ERANGE,
	    "D from one usable bin: HET_ERANGE");
	like(e.msg, "D needs the rates of at least two bins; 1 of 3 is usable "
	    "(", "says how many");
	like(e.msg, "(no contrast above twice its error, too few points)",
	    "and why the others are not");
	ok(isnan(d.D) && d.n == 1 && d.nskip == 2, "D is NaN, 1 used, 2 "
	    "skipped");
}

/* Which fits D takes: hand-made fits, one per reason to leave out. */
static void
test_selection(void)
{
	struct het_mtfit f[6];
	struct het_mtfit_diff d;
	struct het_error e;
	double q[6] = { 0.0031, 0.0047, 0.0052, 0.0066, 0.0071, 0.0089 };
	size_t k;

	for (k = 0; k < 6; k++) {
		memset(&f[k], 0, sizeof(f[k]));
		f[k].status = HET_MTFIT_OK;
		f[k].x[HET_MTFIT_BETA] = 0.2;
		f[k].err[HET_MTFIT_BETA] = 0.01;
		f[k].x[HET_MTFIT_GAMMA] = 1234.5 * q[k] * q[k];
		f[k].err[HET_MTFIT_GAMMA] = 0.02 * f[k].x[HET_MTFIT_GAMMA];
	}
	f[1].status = HET_MTFIT_NOTCONV;
	f[2].at_bound = 1u << HET_MTFIT_GAMMA;
	f[3].err[HET_MTFIT_GAMMA] = NAN;
	f[4].status = HET_MTFIT_FEW;
	het_error_clear(&e);
	is_int(het_mtfit_diffusion(q, f, 6, &d, &e), HET_OK, "D from bins 1 "
	    "and 6");
	ok(d.n == 2 && d.nskip == 4, "2 used, 4 left out");
	is_rel(d.D, 1234.5, 1e-12, "exact rates give D exactly");
	ok(isnan(d.D1), "no intercept fit from 2 bins");
	f[5].status = HET_MTFIT_NOTCONV;
	is_int(het_mtfit_diffusion(q, f, 6, &d, &e), HET_ERANGE, "1 usable");
	like(e.msg, "1 of 6 is usable (not converged, rate on a bound, no "
	    "uncertainty, too few points)", "every reason, once");
}

static void
test_args(void)
{
	struct het_mtfit_opts o;
	struct het_mtfit_diff d;
	struct het_mtfit f;
	struct het_error e;
	double g = 1.1, u = 0.01;

	het_error_clear(&e);
	is_int(het_mtfit_bin(tau, &g, &u, 0, HET_MTFIT_SINGLE, NULL, &f, &e),
	    HET_EINVAL, "no points: HET_EINVAL");
	like(e.msg, "needs at least one delay", "message");
	is_int(het_mtfit_bin(tau, NULL, &u, 1, HET_MTFIT_SINGLE, NULL, &f,
	    &e), HET_EINVAL, "NULL g2: HET_EINVAL");
	is_int(het_mtfit_bin(tau, &g, &u, 1, (enum het_mtfit_model)7, NULL,
	    &f, &e), HET_EINVAL, "model 7: HET_EINVAL");
	like(e.msg, "unknown multitau fit model 7", "message");
	het_mtfit_opts_init(&o);
	o.kappa_lo = 1.2;
	o.kappa_hi = 3.0;
	is_int(het_mtfit_bin(tau, &g, &u, 1, HET_MTFIT_STRETCHED, &o, &f,
	    &e), HET_EINVAL, "kappa bounds above 1: HET_EINVAL");
	like(e.msg, "the bounds of the stretching exponent, 1.2 to 3, must "
	    "bracket 1", "message");
	het_mtfit_opts_init(&o);
	o.tau_lo = 2.0;
	o.tau_hi = 1.0;
	is_int(het_mtfit_bin(tau, &g, &u, 1, HET_MTFIT_SINGLE, &o, &f, &e),
	    HET_EINVAL, "reversed range: HET_EINVAL");
	like(e.msg, "the fit range 2 to 1 s is empty or negative", "message");
	is_int(het_mtfit_diffusion(qs, NULL, 3, &d, &e), HET_EINVAL,
	    "diffusion without fits: HET_EINVAL");
	like(e.msg, "needs the rates of at least two bins", "message");
}

int
main(void)
{
	struct het_error e;

	plan_lazy();
	het_error_clear(&e);
	het_h5_library_init(&e);
	setup();
	test_single();
	test_stretched();
	test_file();
	test_points();
	test_no_decay();
	test_selection();
	test_args();
	return exit_status();
}
