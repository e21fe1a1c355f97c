/*
 * cmd_simulate.c: `hetui simulate`, which writes an APS-U result file of
 * the configured model: what the beamline would have measured if the
 * model were true, with optional Gaussian noise.
 *
 * The file holds frames 1..N, so frame f is at t = f dt for the
 * heterodyne model (its absolute time grid) and the window start for the
 * homodyne one; a fit of the same config to the file therefore sees the
 * parameters it was simulated with.  With several q (--q Q1,Q2,...) the
 * file has one ring per q, each with every angle, in the writer's cell
 * order (ring by ring), so one q writes the single-ring file it always
 * did, byte for byte.  Matrices are produced one bin at a time by the
 * writer's fill callback, with the model of the bin's ring (one alive at
 * a time), so memory stays at one matrix.
 * Noise is drawn for the upper triangle (diagonal included) and mirrored,
 * from a seeded Mersenne Twister: the same command writes the same file.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "cli.h"
#include "het_config.h"
#include "het_dataset_write.h"
#include "het_model.h"
#include "het_util.h"

#define SIM_MAX_ANGLES 1024
#define SIM_MAX_RINGS 256

struct sim_opts {
	const char	*config;
	const char	*out;
	long		 frames;	/* 0: from the config */
	double		 dt;		/* 0: from the config */
	double		 q[SIM_MAX_RINGS];
	size_t		 nq;		/* 0: from the config */
	double		 phi[SIM_MAX_ANGLES];
	size_t		 nphi;		/* 0: from the config */
	double		 noise;
	unsigned long	 seed;
	int		 float32;
	int		 lzf;
	int		 quiet;
};

struct sim_job {
	const struct cli_cmd	*cmd;
	struct het_model_spec	 ms;		/* the model but its q */
	const double		*theta;		/* physics values */
	const double		*q;		/* nq rings */
	size_t			 ring;		/* the ring of m and ev */
	struct het_model	*m;		/* NULL before the first bin */
	struct het_model_eval	*ev;
	size_t			 n;		/* frames */
	size_t			 nphi;
	size_t			 nq;
	const double		*contrast;	/* per angle */
	const double		*offset;
	double			 noise;
	gsl_rng			*rng;
	struct het_pair		*row;		/* n pairs of one row */
	double			*g;		/* n values */
	int			 progress;	/* print progress on stderr */
};

/*
 * A comma-separated list of numbers for option `name` into v (at most
 * max); positive requires every value > 0.  Returns the exit status.
 */
static int
sim_parse_list(const struct cli_cmd *cmd, const char *list, const char *name,
    int positive, double *v, size_t max, size_t *n)
{
	struct het_error err;
	size_t k;
	int rc;

	/* the values before a bad item are checked first, in list order */
	rc = cli_numbers(list, name, v, max, n, &err);
	for (k = 0; positive && k < *n; k++)
		if (v[k] <= 0)
			return cli_usage_error(cmd, "%s: %g must be a positive "
			    "wavevector in 1/Å", name, v[k]);
	if (rc != HET_OK)
		return cli_usage_error(cmd, "%s", err.msg);
	if (*n == 0)
		return cli_usage_error(cmd, "%s: expected a list such as %s",
		    name, positive ? "0.005,0.01" : "0,45,90");
	return CLI_EXIT_OK;
}

static int
sim_parse(const struct cli_cmd *cmd, int argc, char **argv,
    struct sim_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "frames", required_argument, NULL, 'n' },
		{ "dt", required_argument, NULL, 'd' },
		{ "q", required_argument, NULL, 'Q' },
		{ "phi", required_argument, NULL, 'p' },
		{ "noise", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "float32", no_argument, NULL, 'f' },
		{ "lzf", no_argument, NULL, 'z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct het_error err;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->seed = 42;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:o:qh", longopts, NULL)) != -1) {
		int rc = HET_OK;

		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'n':
			rc = het_parse_long(optarg, "--frames", 2, 100000, &v,
			    &err);
			o->frames = v;
			break;
		case 'd':
			rc = het_parse_double(optarg, "--dt", &o->dt, &err);
			if (rc == HET_OK && o->dt <= 0)
				rc = het_error_set(&err, HET_EINVAL,
				    "--dt: %s must be a positive time in "
				    "seconds", optarg);
			break;
		case 'Q':
			if (sim_parse_list(cmd, optarg, "--q", 1, o->q,
			    SIM_MAX_RINGS, &o->nq) != CLI_EXIT_OK)
				return CLI_EXIT_USAGE;
			break;
		case 'p':
			if (sim_parse_list(cmd, optarg, "--phi", 0, o->phi,
			    SIM_MAX_ANGLES, &o->nphi) != CLI_EXIT_OK)
				return CLI_EXIT_USAGE;
			break;
		case 's':
			rc = het_parse_double(optarg, "--noise", &o->noise,
			    &err);
			if (rc == HET_OK && o->noise < 0)
				rc = het_error_set(&err, HET_EINVAL,
				    "--noise: %s must be zero or positive",
				    optarg);
			break;
		case 'S':
			rc = het_parse_long(optarg, "--seed", 0, 4294967295L,
			    &v, &err);
			o->seed = (unsigned long)v;
			break;
		case 'f':
			o->float32 = 1;
			break;
		case 'z':
			o->lzf = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			cli_print_help(cmd, stdout);
			return -1;
		case ':':
			return cli_usage_error(cmd, "option '%s' needs a value",
			    argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option '%s'",
			    argv[optind - 1]);
		}
		if (rc != HET_OK)
			return cli_usage_error(cmd, "%s", err.msg);
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
		    argv[optind]);
	if (o->config == NULL)
		return cli_usage_error(cmd, "a config is required (-c CONFIG); "
		    "'hetui config --template MODE' prints one");
	if (o->out == NULL)
		return cli_usage_error(cmd, "an output file is required "
		    "(-o OUT.h5)");
	return CLI_EXIT_OK;
}

/*
 * The model of ring r, made when its first bin is filled: bins come ring
 * by ring (cell q_idx * n_phi + phi_idx), so one model is alive at a time.
 */
static int
sim_ring(struct sim_job *job, size_t r, struct het_error *err)
{
	if (job->m != NULL && job->ring == r)
		return HET_OK;
	het_model_eval_free(job->ev);
	het_model_free(job->m);
	job->ev = NULL;
	job->ring = r;
	job->ms.q = job->q[r];
	if ((job->m = het_model_alloc(&job->ms, err)) == NULL ||
	    (job->ev = het_model_eval_alloc(job->m, err)) == NULL)
		return err->code;
	return het_model_eval_prepare(job->ev, job->theta, NULL, err);
}

/*
 * Fill the full matrix of bin k (ring k / nphi, angle k % nphi): model,
 * scaling, noise, symmetry.
 */
static int
sim_fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	struct sim_job *job = arg;
	size_t n = job->n, i, j, a = k % job->nphi;
	double ct = job->contrast[a], of = job->offset[a];
	int rc;

	if ((rc = sim_ring(job, k / job->nphi, err)) != HET_OK)
		return rc;
	for (i = 0; i < n; i++) {
		size_t m = n - 1 - i;

		for (j = 0; j < m; j++) {
			job->row[j].i = (uint32_t)i;
			job->row[j].j = (uint32_t)(i + 1 + j);
			job->row[j].a = (uint32_t)a;
		}
		if (m > 0)
			het_model_eval_pairs(job->ev, m, job->row, job->g, NULL);
		c2[i * n + i] = of + ct * het_model_eval_g(job->ev, a, i, i);
		if (job->noise > 0)
			c2[i * n + i] += gsl_ran_gaussian_ziggurat(job->rng,
			    job->noise);
		for (j = 0; j < m; j++) {
			double v = of + ct * job->g[j];

			if (job->noise > 0)
				v += gsl_ran_gaussian_ziggurat(job->rng,
				    job->noise);
			if (!isfinite(v))
				return het_error_set(err, HET_EDATA,
				    "the model is not finite at q %g, angle "
				    "%zu, frames %zu and %zu; check the "
				    "parameter values", job->q[job->ring], a,
				    i + 1, i + 2 + j);
			c2[i * n + (i + 1 + j)] = v;
			c2[(i + 1 + j) * n + i] = v;
		}
	}
	if (job->progress)
		fprintf(stderr, "\rhetui simulate: matrix %zu of %zu written",
		    k + 1, job->nphi * job->nq);
	return HET_OK;
}

/* Per-angle contrast and offset: the config's per-angle list or value. */
static int
sim_scaling(const struct het_config *cfg, size_t nphi, double *contrast,
    double *offset, struct het_error *err)
{
	const struct het_config_scaling *s = &cfg->scaling;
	size_t a;

	if (s->ninit_contrast > 1 && s->ninit_contrast != nphi)
		return het_error_set(err, HET_EINVAL,
		    "initial_parameters.per_angle_scaling.contrast has %zu "
		    "values but %zu angles are simulated; give one value or "
		    "one per angle", s->ninit_contrast, nphi);
	if (s->ninit_offset > 1 && s->ninit_offset != nphi)
		return het_error_set(err, HET_EINVAL,
		    "initial_parameters.per_angle_scaling.offset has %zu "
		    "values but %zu angles are simulated; give one value or "
		    "one per angle", s->ninit_offset, nphi);
	for (a = 0; a < nphi; a++) {
		contrast[a] = s->ninit_contrast == 0 ?
		    s->p[HET_S_CONTRAST].value :
		    s->init_contrast[s->ninit_contrast == 1 ? 0 : a];
		offset[a] = s->ninit_offset == 0 ? s->p[HET_S_OFFSET].value :
		    s->init_offset[s->ninit_offset == 1 ? 0 : a];
	}
	return HET_OK;
}

/* Resolve frames, dt, q and angles: options win over the config. */
static int
sim_resolve(const struct cli_cmd *cmd, const struct het_config *cfg,
    struct sim_opts *o, struct het_error *err)
{
	if (o->frames == 0)
		o->frames = cfg->end_frame > 0 ? cfg->end_frame : 0;
	if (o->frames < 2)
		return het_error_set(err, HET_EINVAL,
		    "the number of frames is unknown: the config has no "
		    "analyzer_parameters.end_frame; pass --frames N");
	if (o->dt == 0)
		o->dt = cfg->dt_set ? cfg->dt : 0;
	if (o->dt <= 0)
		return het_error_set(err, HET_EINVAL,
		    "the frame time is unknown: set analyzer_parameters.dt "
		    "in the config or pass --dt SECONDS");
	if (o->nq == 0 && cfg->q_set && cfg->wavevector_q > 0) {
		o->q[0] = cfg->wavevector_q;
		o->nq = 1;
	}
	if (o->nq == 0)
		return het_error_set(err, HET_EINVAL,
		    "the wavevector is unknown: set analyzer_parameters."
		    "scattering.wavevector_q in the config or pass --q Q");
	if (o->nphi == 0 && cfg->nphi_angles > 0) {
		if (cfg->nphi_angles > SIM_MAX_ANGLES)
			return het_error_set(err, HET_EINVAL,
			    "the config lists %zu angles; at most %d can be "
			    "simulated", cfg->nphi_angles, SIM_MAX_ANGLES);
		memcpy(o->phi, cfg->phi_angles,
		    cfg->nphi_angles * sizeof(double));
		o->nphi = cfg->nphi_angles;
	}
	if (o->nphi == 0) {
		o->phi[0] = 0.0;
		o->nphi = 1;
		if (!o->quiet)
			cli_warn(cmd, "no angles given (--phi or "
			    "analyzer_parameters.scattering.phi_angles); "
			    "simulating phi = 0 only");
	}
	if (o->nq * o->nphi > HET_APSU_MAX_BINS)
		return het_error_set(err, HET_EINVAL,
		    "%zu rings of %zu angles are %zu matrices; an APS-U file "
		    "holds at most %d", o->nq, o->nphi, o->nq * o->nphi,
		    HET_APSU_MAX_BINS);
	return HET_OK;
}

static int
sim_write(const struct sim_opts *o, const struct het_config *cfg,
    struct sim_job *job, struct het_error *err)
{
	struct het_apsu_spec spec;

	het_apsu_spec_init(&spec);
	spec.n_q = o->nq;
	spec.q = o->q;
	spec.n_phi = o->nphi;
	spec.phi = o->phi;
	spec.nbins = o->nq * o->nphi;
	spec.frames = (size_t)o->frames;
	spec.fill = sim_fill;
	spec.fill_arg = job;
	spec.dtype = o->float32 ? HET_DTYPE_F32 : HET_DTYPE_F64;
	spec.compression = o->lzf ? HET_COMPRESS_LZF : HET_COMPRESS_NONE;
	spec.frame_time = o->dt;
	spec.stride_frame = 1;
	spec.avg_frame = 1;
	(void)cfg;
	return het_apsu_write(o->out, &spec, err);
}

/* The line that says what was written. */
static void
sim_summary(const struct sim_opts *o, const struct het_config *cfg)
{
	size_t r;

	printf("wrote %s: %s model, ", o->out, het_mode_name(cfg->mode));
	if (o->nq > 1)
		printf("%zu rings of ", o->nq);
	printf("%zu angle%s, %ld frames, dt %g s, q ", o->nphi,
	    o->nphi == 1 ? "" : "s", o->frames, o->dt);
	for (r = 0; r < o->nq; r++)
		printf("%s%g", r > 0 ? "," : "", o->q[r]);
	printf(" 1/Å, noise %g, seed %lu%s%s\n", o->noise, o->seed,
	    o->float32 ? ", float32" : ", float64", o->lzf ? ", LZF" : "");
}

static int
sim_run(const struct cli_cmd *cmd, struct sim_opts *o, struct het_config *cfg)
{
	struct sim_job job;
	struct het_error err;
	double theta[HET_MAX_PHYS], contrast[SIM_MAX_ANGLES],
	    offset[SIM_MAX_ANGLES];
	size_t k;
	int rc = CLI_EXIT_ERROR;

	memset(&job, 0, sizeof(job));
	het_error_clear(&err);
	if (sim_resolve(cmd, cfg, o, &err) != HET_OK ||
	    sim_scaling(cfg, o->nphi, contrast, offset, &err) != HET_OK)
		return cli_report(cmd, &err);
	job.ms.mode = cfg->mode;
	job.ms.dt = o->dt;
	job.ms.start_frame = 1;
	job.ms.n_frames = (size_t)o->frames;
	job.ms.n_angles = o->nphi;
	job.ms.phi = o->phi;
	job.ms.gap = cfg->stator_rotor_gap;
	for (k = 0; k < cfg->nphys; k++)
		theta[k] = cfg->phys[k].value;
	job.theta = theta;
	job.q = o->q;
	job.nq = o->nq;
	/* The first ring's model now: a bad model fails before the file. */
	if (sim_ring(&job, 0, &err) != HET_OK)
		goto out;
	job.cmd = cmd;
	job.n = (size_t)o->frames;
	job.nphi = o->nphi;
	job.contrast = contrast;
	job.offset = offset;
	job.noise = o->noise;
	job.progress = !o->quiet && isatty(STDERR_FILENO);
	job.row = het_alloc_array(job.n, sizeof(*job.row), "pair row", &err);
	job.g = het_alloc_array(job.n, sizeof(double), "model row", &err);
	job.rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (job.row == NULL || job.g == NULL || job.rng == NULL) {
		if (job.rng == NULL)
			het_error_set(&err, HET_ENOMEM, "out of memory");
		goto out;
	}
	gsl_rng_set(job.rng, o->seed);
	if (sim_write(o, cfg, &job, &err) != HET_OK)
		goto out;
	if (job.progress)
		fputc('\n', stderr);
	if (!o->quiet)
		sim_summary(o, cfg);
	rc = CLI_EXIT_OK;
out:
	if (rc != CLI_EXIT_OK) {
		if (job.progress)
			fputc('\n', stderr);
		rc = cli_report(cmd, &err);
	}
	if (job.rng != NULL)
		gsl_rng_free(job.rng);
	free(job.row);
	free(job.g);
	het_model_eval_free(job.ev);
	het_model_free(job.m);
	return rc;
}

static int
simulate_run(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct het_config *cfg;
	struct het_error err;
	struct sim_opts o;
	int rc;

	rc = sim_parse(cmd, argc, argv, &o);
	if (rc != CLI_EXIT_OK)
		return rc < 0 ? CLI_EXIT_OK : rc;
	het_error_clear(&err);
	cfg = het_config_load(o.config, &err);
	if (cfg == NULL)
		return cli_report(cmd, &err);
	if (!o.quiet)
		cli_config_warnings(cmd, o.config, cfg);
	rc = sim_run(cmd, &o, cfg);
	het_config_free(cfg);
	return rc;
}

const struct cli_cmd cli_cmd_simulate = {
	"simulate",
	"write an APS-U result file of the configured model",
	"hetui simulate -c CONFIG -o OUT.h5 [--frames N] [--dt S] "
	    "[--q Q[,Q2...]] "
	    "[--phi A,B,...] [--noise SIGMA] [--seed N] [--float32] [--lzf] "
	    "[--quiet]",
	"Evaluates the model of CONFIG (its analysis_mode and parameter\n"
	"values; per-angle contrast and offset from initial_parameters.\n"
	"per_angle_scaling or the scaling values) for every angle and writes\n"
	"an APS-U file: upper-triangle matrices, one q ring per q (each with\n"
	"every angle), frame_time = dt.\n"
	"Options override the config:\n"
	"  -c, --config FILE   the model configuration (required)\n"
	"  -o, --output FILE   the file to write, atomically (required)\n"
	"      --frames N      frames per matrix (config: end_frame)\n"
	"      --dt S          frame time in seconds (config: dt)\n"
	"      --q Q[,Q2...]   wavevectors in 1/Å, one ring each (config:\n"
	"                      wavevector_q)\n"
	"      --phi A,B,...   detector angles in degrees (config: phi_angles)\n"
	"      --noise SIGMA   Gaussian noise added to every element (0)\n"
	"      --seed N        noise seed (42); the same seed writes the same file\n"
	"      --float32       store float32 as beamlines do (default float64)\n"
	"      --lzf           compress with LZF as APS-U files are\n"
	"  -q, --quiet         print nothing but errors\n",
	simulate_run
};
