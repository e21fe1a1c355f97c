/*
 * t_core_problem.c: data assembly for a fit (het_problem.h) on APS-U
 * fixtures written with het_apsu_write.
 *
 * Checks:
 *   - selection: the q ring nearest the config's q, phi_angles (nearest
 *     bin, warnings for far and shared bins), phi_filtering ranges with
 *     tolerance and wrap-around, the fallback to all angles, no angle
 *     setting = all angles; the frame window;
 *   - the data: N(N-1)/2 pairs per angle, angle-major and row-major, with
 *     y equal to the file's matrices after the diagonal correction
 *     (computed independently with fx_expect), the offsets per angle;
 *   - the model spec (q from the file, dt and its source with the three
 *     levels of precedence, start frame, N, angles, gap), the scaling
 *     (mode, quantile start, per-angle config values, fixed quantities),
 *     the physics start, bounds from the config and free flags;
 *   - the far-lag noise estimate recovers the sigma of simulated
 *     heterodyne data (two_component with flow, 300 frames) within 5 %,
 *     and the reduced chi-square at the truth is 1 within 8 %;
 *   - progress and cancellation, the data path resolution, and every
 *     error path with its message.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "het_config.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_model.h"
#include "het_problem.h"
#include "tap.h"

#define NF	30		/* frames of the selection fixture */
#define NQ	2
#define NPHI	5

static char *dir;
static const double fq[NQ] = { 0.0052, 0.0104 };
static const double fphi[NPHI] = { -5.0, 0.0, 45.0, 90.0, 178.0 };
static double *fmat[NQ * NPHI];

/* ---- fixtures ------------------------------------------------------------ */

static int
fill_fixed(void *arg, size_t k, double *c2, struct het_error *err)
{
	(void)arg;
	(void)err;
	memcpy(c2, fmat[k], NF * NF * sizeof(double));
	return HET_OK;
}

/* 2 rings x 5 sectors, labels 1..10, frame_time 0.1 s, float64. */
static char *
write_selection_fixture(void)
{
	struct het_apsu_spec spec;
	struct het_error err;
	char *path = fx_path(dir, "sel.h5");
	size_t k;

	for (k = 0; k < NQ * NPHI; k++) {
		fmat[k] = malloc(NF * NF * sizeof(double));
		fx_matrix(NF, (unsigned)(7 + k), fmat[k]);
	}
	het_apsu_spec_init(&spec);
	spec.n_q = NQ;
	spec.q = fq;
	spec.n_phi = NPHI;
	spec.phi = fphi;
	spec.nbins = NQ * NPHI;
	spec.frames = NF;
	spec.fill = fill_fixed;
	spec.dtype = HET_DTYPE_F64;
	spec.frame_time = 0.1;
	spec.stride_frame = 1;
	spec.avg_frame = 1;
	if (het_apsu_write(path, &spec, &err) != HET_OK)
		diag("fixture: %s", err.msg);
	return path;
}

/* xorshift64* and Box-Muller: deterministic Gaussian noise. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double
rng_uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) *
	    (1.0 / 9007199254740992.0);
}

static double
rng_gauss(void)
{
	double u = rng_uniform(), v = rng_uniform();

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

#define SIM_N	300
#define SIM_SIGMA 0.02

static const double sim_theta[HET_P_HET_COUNT] = {
	1000.0, 0.0, 10.0, 3000.0, -0.2, 5.0, 50.0, 0.0, 5.0,
	0.3, 0.05, 15.0, 0.2, 5.0
};
static const double sim_phi[2] = { 10.0, 80.0 };
static const double sim_contrast[2] = { 0.3, 0.25 };
static const double sim_offset[2] = { 1.0, 1.02 };

struct sim {
	struct het_model_eval *ev;
	struct het_pair	*row;
	double		*g;
};

/* The two_component model of sim_theta plus noise, upper triangle. */
static int
fill_sim(void *arg, size_t k, double *c2, struct het_error *err)
{
	struct sim *s = arg;
	size_t i, j, m;

	(void)err;
	for (i = 0; i < SIM_N; i++) {
		m = SIM_N - 1 - i;
		for (j = 0; j < m; j++) {
			s->row[j].i = (uint32_t)i;
			s->row[j].j = (uint32_t)(i + 1 + j);
			s->row[j].a = (uint32_t)k;
		}
		if (m > 0)
			het_model_eval_pairs(s->ev, m, s->row, s->g, NULL);
		c2[i * SIM_N + i] = sim_offset[k] + sim_contrast[k];
		for (j = 0; j < m; j++) {
			double v = sim_offset[k] + sim_contrast[k] * s->g[j] +
			    SIM_SIGMA * rng_gauss();

			c2[i * SIM_N + i + 1 + j] = v;
			c2[(i + 1 + j) * SIM_N + i] = v;
		}
	}
	return HET_OK;
}

static char *
write_sim_fixture(void)
{
	struct het_model_spec ms;
	struct het_model *m;
	struct het_apsu_spec spec;
	struct het_error err;
	struct sim s;
	double q = 0.01;
	char *path = fx_path(dir, "sim.h5");

	memset(&ms, 0, sizeof(ms));
	ms.mode = HET_MODE_TWO_COMPONENT;
	ms.q = q;
	ms.dt = 0.1;
	ms.start_frame = 1;
	ms.n_frames = SIM_N;
	ms.n_angles = 2;
	ms.phi = sim_phi;
	m = het_model_alloc(&ms, &err);
	s.ev = het_model_eval_alloc(m, &err);
	het_model_eval_prepare(s.ev, sim_theta, NULL, &err);
	s.row = calloc(SIM_N, sizeof(*s.row));
	s.g = calloc(SIM_N, sizeof(double));
	het_apsu_spec_init(&spec);
	spec.n_q = 1;
	spec.q = &q;
	spec.n_phi = 2;
	spec.phi = sim_phi;
	spec.nbins = 2;
	spec.frames = SIM_N;
	spec.fill = fill_sim;
	spec.fill_arg = &s;
	spec.dtype = HET_DTYPE_F64;
	spec.frame_time = 0.1;
	if (het_apsu_write(path, &spec, &err) != HET_OK)
		diag("sim fixture: %s", err.msg);
	free(s.row);
	free(s.g);
	het_model_eval_free(s.ev);
	het_model_free(m);
	return path;
}

/* ---- helpers ------------------------------------------------------------- */

static struct het_config *
cfg_from(const char *yaml)
{
	struct het_error err;
	struct het_config *cfg;

	het_error_clear(&err);
	cfg = het_config_load_string(yaml, strlen(yaml), "test.yaml", &err);
	if (cfg == NULL)
		diag("config: %s", err.msg);
	return cfg;
}

static struct het_problem *
build(struct het_dataset *ds, const char *yaml,
    const struct het_problem_opts *opts, struct het_error *err)
{
	struct het_config *cfg = cfg_from(yaml);
	struct het_problem *pb;

	het_error_clear(err);
	if (cfg == NULL)
		return NULL;
	pb = het_problem_build(cfg, ds, opts, err);
	het_config_free(cfg);
	return pb;
}

static void
build_fails(struct het_dataset *ds, const char *yaml, int code,
    const char *needle, const char *what)
{
	struct het_error err;
	struct het_problem *pb = build(ds, yaml, NULL, &err);

	ok(pb == NULL, "%s: fails", what);
	is_int(err.code, code, "%s: %s", what, het_status_name(code));
	like(err.msg, needle, "%s: message says '%s'", what, needle);
	diag("%s", err.msg);
	het_problem_free(pb);
}

/* "-5 0 178": the phi of the selection. */
static const char *
phi_str(const struct het_problem *pb)
{
	static char buf[256];
	size_t a, used = 0;

	buf[0] = '\0';
	for (a = 0; a < pb->nangles; a++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
		    "%s%g", a ? " " : "", pb->phi[a]);
	return buf;
}

static int
has_warning(const struct het_problem *pb, const char *needle)
{
	size_t k;

	for (k = 0; k < pb->nwarnings; k++)
		if (strstr(pb->warnings[k], needle) != NULL)
			return 1;
	return 0;
}

#define HEAD "analysis_mode: two_component\n"
/* q 0.0098 (ring 1), phi 0.5 and 88, frames 5..24, dt 0.5 s */
#define WINDOW HEAD \
	"analyzer_parameters:\n" \
	"  dt: 0.5\n" \
	"  start_frame: 5\n" \
	"  end_frame: 24\n" \
	"  scattering: {wavevector_q: 0.0098, phi_angles: [0.5, 88.0]}\n" \
	"  geometry: {stator_rotor_gap: 1.5e6}\n"

/* ---- tests --------------------------------------------------------------- */

static void
test_data(struct het_dataset *ds)
{
	static const char yaml[] = WINDOW
	    "parameters:\n"
	    "  reference:\n"
	    "    D0_ref: {value: 2500, min: 200, max: 5.0e5}\n"
	    "  velocity:\n"
	    "    v0: {value: 40, vary: false}\n";
	struct het_error err;
	struct het_problem *pb;
	size_t n = 20, per = n * (n - 1) / 2, a, i, j, k, bad = 0, badp = 0;
	double *want = malloc(n * n * sizeof(double));
	long col;

	pb = build(ds, yaml, NULL, &err);
	ok(pb != NULL, "build: q 0.0098, phi 0.5 and 88, frames 5..24");
	if (pb == NULL) {
		diag("%s", err.msg);
		free(want);
		return;
	}
	is_double(pb->q, 0.0104, 0, "q is the file's ring 0.0104, not the "
	    "config's 0.0098");
	is_int((long long)pb->q_idx, 1, "ring index 1");
	is_int(pb->angle_rule, HET_ANGLES_LIST, "angles from phi_angles");
	is_str(phi_str(pb), "0 90", "nearest bins: phi 0 and 90");
	ok(pb->nangles == 2 && pb->labels[0] == 7 && pb->labels[1] == 9,
	    "labels 7 and 9 (ring 1 = labels 6..10)");
	is_int(pb->nwarnings, 1, "one warning (config q differs from "
	    "the file's)");
	ok(has_warning(pb, "uses the file's q"), "... it says so");
	is_int(pb->first_frame, 5, "window starts at frame 5");
	is_int(pb->last_frame, 24, "window ends at frame 24");
	is_int((long long)pb->n_frames, 20, "N = 20");
	is_int((long long)pb->npairs, 2 * 190, "2 x N(N-1)/2 = 380 pairs");
	ok(pb->pair_first[0] == 0 && pb->pair_first[1] == per &&
	    pb->pair_first[2] == 2 * per, "offsets per angle 0, 190, 380");
	for (a = 0; a < 2; a++) {
		fx_expect(fmat[pb->bins[a]], NF, 5, 24, 0, want);
		k = pb->pair_first[a];
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++, k++) {
				if (pb->pairs[k].i != i ||
				    pb->pairs[k].j != j || pb->pairs[k].a != a)
					badp++;
				if (pb->y[k] != want[i * n + j])
					bad++;
			}
	}
	is_int((long long)badp, 0, "pairs are (a, i < j), angle-major, "
	    "row-major");
	is_int((long long)bad, 0, "y equals the file's matrices (window, "
	    "symmetrised, diagonal corrected) bit for bit");
	is_double(pb->dt, 0.5, 0, "dt 0.5 from the config, not the file's "
	    "0.1");
	is_str(pb->dt_source, "config: analyzer_parameters.dt", "dt source");
	ok(pb->spec.mode == HET_MODE_TWO_COMPONENT && pb->spec.q == 0.0104 &&
	    pb->spec.dt == 0.5 && pb->spec.start_frame == 5 &&
	    pb->spec.n_frames == 20 && pb->spec.n_angles == 2 &&
	    pb->spec.phi[1] == 90.0 && pb->spec.gap == 1.5e6,
	    "model spec: mode, q, dt, start_frame 5, N, angles, gap");
	is_int(pb->scaling_mode, HET_SCALING_INDIVIDUAL, "2 angles: "
	    "heterodyne auto resolves to individual");
	is_int((long long)pb->nscal, 4, "4 scaling parameters");
	ok(pb->s0[0] == pb->est_contrast[0] && pb->s0[1] ==
	    pb->est_contrast[1] && pb->s0[2] == pb->est_offset[0] &&
	    pb->s0[3] == pb->est_offset[1], "scaling starts at the quantile "
	    "estimates");
	ok(pb->est_offset[0] > 1.02 && pb->est_offset[0] < 1.32 &&
	    pb->est_contrast[0] > 0.05 && pb->est_contrast[0] < 0.3,
	    "estimates are plausible (offset %.4f, contrast %.4f)",
	    pb->est_offset[0], pb->est_contrast[0]);
	is_int(pb->scaling_from_config, 0, "no per-angle config values");
	is_int((long long)pb->p, 13 + 4, "13 free physics (v0 fixed) + 4 "
	    "scaling = 17");
	ok(!pb->phys_free[HET_P_V0] && pb->theta[HET_P_V0] == 40,
	    "v0 fixed at 40");
	col = het_resid_phys_col(pb->resid, HET_P_D0_REF);
	ok(col == 0 && pb->x0[col] == 2500 && pb->lo[col] == 200 &&
	    pb->hi[col] == 5e5, "D0_ref: start 2500, config bounds [200, "
	    "5e5] override the table's [100, 1e6]");
	col = het_resid_phys_col(pb->resid, HET_P_F0);
	ok(col >= 0 && pb->lo[col] == 0 && pb->hi[col] == 1,
	    "f0: default bounds [0, 1]");
	ok(pb->lo[13] == 0 && pb->hi[13] == 1 && pb->lo[15] == 0.5 &&
	    pb->hi[15] == 1.5, "scaling bounds [0, 1] and [0.5, 1.5]");
	is_int((long long)het_resid_ndata(pb->resid), 380, "the residual "
	    "problem holds the 380 pairs");
	free(want);
	het_problem_free(pb);
}

static int
count_progress(void *arg, size_t k, size_t n, const struct het_bin *bin)
{
	int *calls = arg;

	(void)bin;
	calls[0]++;
	calls[1] = (int)(k + 1);
	calls[2] = (int)n;
	return calls[3] != 0 && (int)k + 1 >= calls[3];
}

static void
test_dt_and_progress(struct het_dataset *ds)
{
	static const char yaml[] = HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052}\n";
	struct het_problem_opts o;
	struct het_error err;
	struct het_problem *pb;
	int calls[4] = { 0, 0, 0, 0 };

	memset(&o, 0, sizeof(o));
	o.progress = count_progress;
	o.progress_arg = calls;
	pb = build(ds, yaml, &o, &err);
	ok(pb != NULL, "build: all angles of ring 0, every frame");
	if (pb == NULL) {
		diag("%s", err.msg);
		return;
	}
	is_int(pb->angle_rule, HET_ANGLES_ALL, "no angle setting: all");
	is_str(phi_str(pb), "-5 0 45 90 178", "five angles");
	is_int((long long)pb->n_frames, NF, "every frame");
	is_double(pb->dt, 0.1, 1e-15, "dt from the file (frame_time)");
	like(pb->dt_source, "file: frame_time", "dt source names the file");
	is_int(pb->nwarnings, 0, "no warnings");
	ok(calls[0] == 5 && calls[1] == 5 && calls[2] == 5,
	    "progress called once per bin read (5 of 5)");
	is_int(pb->scaling_mode, HET_SCALING_INDIVIDUAL, "5 angles: "
	    "individual (Fourier needs more than 6)");
	het_problem_free(pb);

	o.dt = 0.25;
	pb = build(ds, yaml, &o, &err);
	ok(pb != NULL && pb->dt == 0.25, "--dt overrides file and config");
	if (pb != NULL)
		is_str(pb->dt_source, "--dt", "dt source --dt");
	else
		ok(0, "dt source --dt");
	het_problem_free(pb);

	o.dt = 0;
	calls[0] = 0;
	calls[3] = 2;
	pb = build(ds, yaml, &o, &err);
	ok(pb == NULL && err.code == HET_ECANCEL, "progress returning "
	    "non-zero cancels with HET_ECANCEL");
	like(err.msg, "cancelled after 2 of 5 bins", "cancel message");
	is_int(calls[0], 2, "no bin read after the cancel");
}

static void
test_angle_rules(struct het_dataset *ds)
{
	struct het_error err;
	struct het_problem *pb;

	/* ranges [-10, 10] and [172, -172] (wraps), tolerance 0 */
	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052}\n"
	    "phi_filtering:\n"
	    "  enabled: true\n"
	    "  tolerance: 0\n"
	    "  target_ranges:\n"
	    "    - {min_angle: -10, max_angle: 10}\n"
	    "    - {min_angle: 172, max_angle: -172}\n", NULL, &err);
	ok(pb != NULL && pb->angle_rule == HET_ANGLES_FILTER,
	    "phi_filtering selects");
	if (pb != NULL)
		is_str(phi_str(pb), "-5 0 178", "[-10, 10] and the wrapping "
		    "[172, -172] give -5, 0, 178");
	else
		ok(0, "%s", err.msg);
	het_problem_free(pb);

	/* tolerance widens: [50, 85] + 5 reaches 45 and 90 */
	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052}\n"
	    "phi_filtering:\n"
	    "  enabled: true\n"
	    "  tolerance: 5\n"
	    "  target_ranges: [{min_angle: 50, max_angle: 85}]\n", NULL, &err);
	if (pb != NULL)
		is_str(phi_str(pb), "45 90", "tolerance 5 widens [50, 85] to "
		    "take 45 and 90");
	else
		ok(0, "%s", err.msg);
	het_problem_free(pb);

	/* disabled filtering is ignored */
	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052}\n"
	    "phi_filtering:\n"
	    "  enabled: false\n"
	    "  target_ranges: [{min_angle: 50, max_angle: 85}]\n", NULL, &err);
	ok(pb != NULL && pb->nangles == 5 && pb->angle_rule == HET_ANGLES_ALL,
	    "phi_filtering.enabled false: all angles");
	het_problem_free(pb);

	/* no match, fallback (default true) */
	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052}\n"
	    "phi_filtering:\n"
	    "  enabled: true\n"
	    "  target_ranges: [{min_angle: 120, max_angle: 130}]\n", NULL,
	    &err);
	ok(pb != NULL && pb->nangles == 5 &&
	    pb->angle_rule == HET_ANGLES_FALLBACK, "no angle in range: "
	    "fallback to all five");
	ok(pb != NULL && has_warning(pb, "fallback_to_all_angles"),
	    "... with a warning");
	het_problem_free(pb);

	build_fails(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052}\n"
	    "phi_filtering:\n"
	    "  enabled: true\n"
	    "  fallback_to_all_angles: false\n"
	    "  target_ranges: [{min_angle: 120, max_angle: 130}]\n",
	    HET_ENOTFOUND, "available phi (deg): -5, 0, 45, 90, 178",
	    "no angle in range, no fallback");

	/* a far phi_angles entry and two entries sharing a bin */
	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052, phi_angles: [-1, 1, 130]}\n",
	    NULL, &err);
	ok(pb != NULL, "phi_angles -1, 1, 130");
	if (pb != NULL) {
		is_str(phi_str(pb), "0 90", "-1 and 1 share phi 0; 130 takes "
		    "90 (40 deg away; 178 is 48)");
		ok(has_warning(pb, "130 deg is"), "far angle warned");
		ok(has_warning(pb, "3 angles select only 2 distinct bins"),
		    "shared bin warned");
	} else
		skip(3, "no problem");
	het_problem_free(pb);
}

static void
test_errors(struct het_dataset *ds)
{
	build_fails(ds, HEAD "analyzer_parameters: {dt: 0.1}\n",
	    HET_ENOTFOUND, "several q rings (0.0052, 0.0104 1/A)",
	    "two rings, no q");
	build_fails(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.05}\n", HET_ENOTFOUND,
	    "no q ring within 20% of q = 0.05 1/A (the nearest is 0.0104); "
	    "available q rings: 0.0052 (5 bins), 0.0104 (5 bins)",
	    "q far from rings");
	build_fails(ds, HEAD
	    "analyzer_parameters:\n"
	    "  start_frame: 3\n"
	    "  end_frame: 40\n"
	    "  scattering: {wavevector_q: 0.0052}\n", HET_ERANGE,
	    "frame window 3..40 is out of range: the matrices have 30 frames",
	    "window beyond the file");
	build_fails(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052, phi_angles: [0, 90]}\n"
	    "initial_parameters:\n"
	    "  per_angle_scaling: {contrast: [0.2, 0.3, 0.4]}\n", HET_EINVAL,
	    "per_angle_scaling.contrast has 3 values but 2 angles are "
	    "selected", "per-angle list of the wrong length");
	build_fails(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052, phi_angles: [0, 90]}\n"
	    "optimization:\n"
	    "  nlsq: {per_angle_mode: fourier}\n", HET_EINVAL,
	    "per_angle_mode fourier: scaling: a Fourier series of order 2 "
	    "has 5 coefficients per quantity but only 2 angles",
	    "Fourier with 2 angles");
}

static void
test_scaling_config(struct het_dataset *ds)
{
	struct het_error err;
	struct het_problem *pb;
	const double *c, *o;

	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052, phi_angles: [0, 45, 90]}\n"
	    "initial_parameters:\n"
	    "  per_angle_scaling: {contrast: [0.2]}\n"
	    "parameters:\n"
	    "  scaling:\n"
	    "    offset: {value: 1.05, vary: false}\n", NULL, &err);
	ok(pb != NULL, "per-angle contrast [0.2], offset fixed at 1.05");
	if (pb == NULL) {
		diag("%s", err.msg);
		return;
	}
	ok(pb->s0[0] == 0.2 && pb->s0[1] == 0.2 && pb->s0[2] == 0.2,
	    "one contrast value is broadcast to the 3 angles");
	ok(pb->s0[3] == 1.05 && pb->s0[5] == 1.05 && !pb->s_free[3] &&
	    pb->s_free[0], "fixed offset: config value, not free; contrast "
	    "free");
	is_int((long long)pb->p, 14 + 3, "14 physics + 3 contrasts free");
	is_int(pb->scaling_from_config, 1, "scaling_from_config set");
	het_problem_free(pb);

	pb = build(ds, HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.0052, phi_angles: [0, 45, 90]}\n"
	    "optimization:\n"
	    "  nlsq: {per_angle_mode: constant}\n", NULL, &err);
	ok(pb != NULL && pb->scaling_mode == HET_SCALING_CONSTANT &&
	    pb->nscal == 0 && pb->p == 14, "constant mode: no scaling "
	    "parameters");
	if (pb != NULL) {
		struct het_resid_eval *ev = het_resid_eval_alloc(pb->resid,
		    &err);

		het_resid_prepare(ev, pb->x0, 0, &err);
		het_resid_angle_scaling(ev, &c, &o);
		ok(c[1] == pb->est_contrast[1] && o[2] == pb->est_offset[2],
		    "constant values are the quantile estimates");
		het_resid_eval_free(ev);
	} else
		ok(0, "%s", err.msg);
	het_problem_free(pb);
}

static void
test_noise(void)
{
	static const char yaml[] = HEAD
	    "analyzer_parameters:\n"
	    "  scattering: {wavevector_q: 0.01}\n"
	    "parameters:\n"
	    "  reference:\n"
	    "    D0_ref: 1000.0\n"
	    "    alpha_ref: 0.0\n"
	    "    D_offset_ref: 10.0\n"
	    "  sample:\n"
	    "    D0_sample: 3000.0\n"
	    "    alpha_sample: -0.2\n"
	    "    D_offset_sample: 5.0\n"
	    "  velocity:\n"
	    "    v0: 50.0\n"
	    "    beta: 0.0\n"
	    "    v_offset: 5.0\n"
	    "  fraction:\n"
	    "    f0: 0.3\n"
	    "    f1: 0.05\n"
	    "    f2: 15.0\n"
	    "    f3: 0.2\n"
	    "  angle:\n"
	    "    phi0: 5.0\n"
	    "initial_parameters:\n"
	    "  per_angle_scaling:\n"
	    "    contrast: [0.3, 0.25]\n"
	    "    offset: [1.0, 1.02]\n";
	char *path = write_sim_fixture();
	struct het_dataset *ds;
	struct het_error err;
	struct het_problem *pb;
	struct het_resid_eval *ev;
	struct het_resid_scratch *scr;
	double *r, chi2, flat[16 * 16];
	size_t k;
	long lag;

	ds = het_dataset_open(path, &err);
	pb = ds != NULL ? build(ds, yaml, NULL, &err) : NULL;
	ok(pb != NULL, "build on simulated two_component data, sigma %g",
	    SIM_SIGMA);
	if (pb == NULL) {
		diag("%s", err.msg);
		skip(7, "no problem");
		goto out;
	}
	is_rel(pb->sigma_angle[0], SIM_SIGMA, 0.05, "angle 0: far-lag "
	    "sigma %.5f within 5%% of %g", pb->sigma_angle[0], SIM_SIGMA);
	is_rel(pb->sigma_angle[1], SIM_SIGMA, 0.05, "angle 1: far-lag "
	    "sigma %.5f within 5%% of %g", pb->sigma_angle[1], SIM_SIGMA);
	is_rel(pb->sigma, SIM_SIGMA, 0.05, "pooled sigma %.5f",
	    pb->sigma);
	/* L: (300 - L)(301 - L) / 2 <= 0.2 * 44850 first at L = 167 */
	ok(pb->noise_lag[0] == 167 && pb->noise_count[0] == 133 * 132 / 2,
	    "region lag >= 167 (20%% of pairs), 8778 differences "
	    "(got %ld, %zu)", pb->noise_lag[0], pb->noise_count[0]);
	/* the reduced chi-square at the truth */
	ev = het_resid_eval_alloc(pb->resid, &err);
	scr = het_resid_scratch_alloc(pb->resid, 256, &err);
	r = malloc(pb->npairs * sizeof(double));
	het_resid_prepare(ev, pb->x0, 0, &err);
	het_resid_eval_rows(ev, scr, 0, pb->npairs, r, NULL);
	chi2 = het_problem_chi2_red(pb, r, pb->p);
	/*
	 * The estimate's standard error is 1.3 % here (MAD of 8778 pairwise
	 * differences, checked over 200 seeds of pure noise), so chi2_red,
	 * its inverse square, scatters by 2.6 %: 8 % is 3 standard errors.
	 */
	is_rel(chi2, 1.0, 0.08, "reduced chi-square at the truth %.4f is "
	    "1 within 8%%", chi2);
	free(r);
	het_resid_scratch_free(scr);
	het_resid_eval_free(ev);

	/* tiny matrices: too few differences */
	for (k = 0; k < 16 * 16; k++)
		flat[k] = 1.0 + 0.001 * (double)(k % 7);
	ok(isnan(het_problem_noise(flat, 8, &lag, NULL)), "N = 8: too few "
	    "differences, NAN");
	chi2 = het_problem_noise(flat, 16, &lag, &k);
	ok(!isnan(chi2) && lag == 5 && k == 55, "N = 16: the region grows "
	    "from L = 10 to L = 5 for >= 50 differences (L = %ld, %zu)", lag,
	    k);
out:
	het_problem_free(pb);
	het_dataset_close(ds);
	free(path);
}

/* A c2 above 10 in the window: read, and the problem warns naming it. */
static void
test_unusual_c2(const char *path)
{
	static const char yaml[] = WINDOW;
	struct het_dataset *ds;
	struct het_problem *pb;
	struct het_error err;

	ok(fx_set_element(path, "/xpcs/twotime/correlation_map/c2_00007", 9,
	    14, 12.5) == 0, "set c2(10, 15) of label 7 to 12.5");
	ds = het_dataset_open(path, &err);
	pb = ds != NULL ? build(ds, yaml, NULL, &err) : NULL;
	ok(pb != NULL, "the problem builds with it");
	ok(pb != NULL && has_warning(pb, "bin 7 (phi 0): 1 c2 values above "
	    "10, the largest 12.5 at frames (10, 15); a normalised "
	    "correlation is near 1"), "and warns, naming the bin, the value "
	    "and the frames");
	het_problem_free(pb);
	het_dataset_close(ds);
}

static void
test_data_path(void)
{
	struct het_config *cfg;
	struct het_error err;
	char *p;

	cfg = cfg_from(HEAD "experimental_data: {file_path: run.h5}\n");
	p = het_problem_data_path(cfg, "other.h5", &err);
	is_str(p, "other.h5", "FILE on the command line wins");
	free(p);
	p = het_problem_data_path(cfg, NULL, &err);
	is_str(p, "run.h5", "the config's file (no base dir: as written)");
	free(p);
	het_config_free(cfg);
	cfg = cfg_from(HEAD);
	het_error_clear(&err);
	p = het_problem_data_path(cfg, NULL, &err);
	ok(p == NULL && err.code == HET_EINVAL, "no file anywhere: "
	    "HET_EINVAL");
	like(err.msg, "give FILE on the command line or set "
	    "experimental_data.file_path", "message says how to fix it");
	het_config_free(cfg);
}

int
main(void)
{
	struct het_dataset *ds;
	struct het_error err;
	char *path;
	size_t k;

	plan_lazy();
	het_h5_library_init(&err);
	dir = fx_tmpdir();
	path = write_selection_fixture();
	ds = het_dataset_open(path, &err);
	ok(ds != NULL, "open the selection fixture");
	if (ds == NULL)
		diag("%s", err.msg);
	else {
		test_data(ds);
		test_dt_and_progress(ds);
		test_angle_rules(ds);
		test_errors(ds);
		test_scaling_config(ds);
	}
	het_dataset_close(ds);
	test_unusual_c2(path);
	test_noise();
	test_data_path();
	for (k = 0; k < NQ * NPHI; k++)
		free(fmat[k]);
	free(path);
	fx_rmtree(dir);
	free(dir);
	done_testing();
	return exit_status();
}
