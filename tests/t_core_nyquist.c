#include "config.h"

/*
 * t_core_nyquist.c: the flow-fringe aliasing check against hand-computed
 * phase steps: constant and ramping velocities (a sign change inside
 * the window included), the angle with the largest |cos|, the homodyne
 * shear phase with its 1/(2 pi) prefactor and pi/2 limit (the template
 * example of homodyne-spec §4: B = 318.30988618379064), the static mode,
 * and every argument error.
 */

#include <math.h>
#include <string.h>

#include "het_nyquist.h"
#include "het_params.h"
#include "tap.h"

static void
het_theta(double *th, double v0, double beta, double voff, double phi0)
{
	size_t i;

	for (i = 0; i < HET_P_HET_COUNT; i++)
		th[i] = 0.0;
	th[HET_P_V0] = v0;
	th[HET_P_BETA] = beta;
	th[HET_P_V_OFFSET] = voff;
	th[HET_P_PHI0] = phi0;
}

static void
test_heterodyne(void)
{
	double phi[2] = { 0.0, 90.0 }, th[HET_P_HET_COUNT];
	struct het_model_spec sp = { HET_MODE_TWO_COMPONENT, 0.0054, 0.01,
	    1, 300, 1, phi, 0.0 };
	struct het_nyquist ny;
	struct het_error err = { 0 };

	het_theta(th, 1000.0, 0.0, 0.0, 0.0);
	ok(het_nyquist_check(&sp, th, &ny, &err) == HET_OK, "constant v");
	ok(ny.applies == 1, "two_component has a flow term");
	is_rel(ny.step, 0.0054 * 1000.0 * 0.01, 1e-14,
	    "step = q v dt = 0.054 rad");
	is_rel(ny.limit, M_PI, 1e-15, "heterodyne limit is pi");
	is_rel(ny.ratio, 0.054 / M_PI, 1e-14, "ratio = step / pi");

	/* v(t) = 100 t - 50 on t = 1, 2, 3 s: 50, 150, 250; phi 60. */
	phi[0] = 60.0;
	sp.q = 0.01;
	sp.dt = 1.0;
	sp.n_frames = 3;
	het_theta(th, 100.0, 1.0, -50.0, 0.0);
	ok(het_nyquist_check(&sp, th, &ny, &err) == HET_OK, "ramp");
	is_rel(ny.step, 0.01 * 0.5 * 200.0, 1e-13,
	    "ramp: largest trapezoid rate 200 at |cos 60| = 0.5");
	is_double(ny.t, 2.0, 1e-15, "ramp: the largest step starts at t = 2");

	/* A sign change: v = 100 t - 250 gives -150, -50, 50: |(-150-50)/2|. */
	het_theta(th, 100.0, 1.0, -250.0, 0.0);
	het_nyquist_check(&sp, th, &ny, &err);
	is_rel(ny.step, 0.01 * 0.5 * 100.0, 1e-13,
	    "negative velocities count by magnitude");
	is_double(ny.t, 1.0, 1e-15, "and the largest is the first interval");

	/* Two angles with phi0 = 10: cos(10) beats cos(100). */
	phi[0] = 0.0;
	sp.n_angles = 2;
	het_theta(th, 1000.0, 0.0, 0.0, 10.0);
	het_nyquist_check(&sp, th, &ny, &err);
	is_int((long long)ny.angle, 0, "the angle of largest |cos(phi+phi0)|");
	is_rel(ny.step, 0.01 * cos(10.0 * M_PI / 180.0) * 1000.0, 1e-13,
	    "step uses cos(phi + phi0)");
	ok(ny.ratio > 1.0, "q v dt = 9.8 rad aliases (ratio %.3f)", ny.ratio);

	/* P(t, a) = 0 at t <= 0: start_frame 0 makes t_0 = 0, v(0) = voff. */
	sp.start_frame = 0;
	sp.n_frames = 2;
	sp.n_angles = 1;
	het_theta(th, 1000.0, 0.0, 10.0, 0.0);
	het_nyquist_check(&sp, th, &ny, &err);
	is_rel(ny.step, 0.01 * (10.0 + 1010.0) / 2.0, 1e-13,
	    "t = 0 uses v_offset alone (P(0, beta) = 0)");
}

static void
test_homodyne(void)
{
	double phi[1] = { 0.0 }, th[HOM_P_COUNT] = { 1e4, 0.0, 0.0, 0.01,
	    0.0, 0.0, 0.0 };
	struct het_model_spec sp = { HET_MODE_HOM_LAMINAR, 0.01, 0.1, 1, 50,
	    1, phi, 2e6 };
	struct het_nyquist ny;
	struct het_error err = { 0 };

	ok(het_nyquist_check(&sp, th, &ny, &err) == HET_OK, "laminar_flow");
	is_rel(ny.step, 318.30988618379064 * 0.01, 1e-13,
	    "step = q L dt / (2 pi) * gamma_dot = B * 0.01");
	is_rel(ny.limit, M_PI / 2.0, 1e-15, "sinc^2 limit is pi/2");
	ok(ny.ratio > 2.0 && ny.ratio < 2.1, "ratio %.4f = 3.183 / 1.571",
	    ny.ratio);

	/* A negative shear rate is floored at 1e-10, as in the kernel. */
	th[HOM_P_GAMMA0] = 0.0;
	th[HOM_P_GAMMA_OFF] = -1.0;
	het_nyquist_check(&sp, th, &ny, &err);
	is_rel(ny.step, 318.30988618379064 * 1e-10, 1e-12,
	    "a negative shear rate is floored at 1e-10");

	sp.mode = HET_MODE_HOM_STATIC;
	ok(het_nyquist_check(&sp, th, &ny, &err) == HET_OK &&
	    ny.applies == 0 && ny.ratio == 0.0, "static: no flow, passes");
}

static void
test_errors(void)
{
	double phi[1] = { 0.0 }, th[HET_P_HET_COUNT];
	struct het_model_spec sp = { HET_MODE_STATIC_REF, 0.01, 0.1, 1, 1, 1,
	    phi, 0.0 };
	struct het_nyquist ny;
	struct het_error err = { 0 };

	het_theta(th, 1000.0, 0.0, 0.0, 0.0);
	is_int(het_nyquist_check(&sp, th, &ny, &err), HET_EINVAL,
	    "one frame is refused");
	like(err.msg, "holds 1 frame(s); at least 2", "message: %s", err.msg);
	sp.n_frames = 10;
	sp.n_angles = 0;
	is_int(het_nyquist_check(&sp, th, &ny, &err), HET_EINVAL,
	    "no angles is refused");
	like(err.msg, "no angles are selected", "message: %s", err.msg);
	sp.n_angles = 1;
	sp.q = 0.0;
	is_int(het_nyquist_check(&sp, th, &ny, &err), HET_EINVAL,
	    "q = 0 is refused");
	like(err.msg, "must be positive and finite", "message: %s", err.msg);
	sp.q = 0.01;
	th[HET_P_BETA] = NAN;
	is_int(het_nyquist_check(&sp, th, &ny, &err), HET_EINVAL,
	    "a NaN parameter is refused");
	like(err.msg, "parameter beta is nan", "message: %s", err.msg);
	th[HET_P_BETA] = 0.0;
	ok(het_nyquist_check(&sp, th, &ny, &err) == HET_OK && ny.applies,
	    "static_ref keeps the canonical flow term (spec §2)");
}

int
main(void)
{
	plan_lazy();
	test_heterodyne();
	test_homodyne();
	test_errors();
	return exit_status();
}
