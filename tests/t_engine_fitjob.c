/*
 * t_engine_fitjob.c: the fit job (het_fitjob.h).
 *
 * A small static_ref problem is simulated in-process (2 angles, 60
 * frames of 0.1 s, q 0.01, D0_ref 5000, alpha_ref 0.3, contrast 0.30 /
 * 0.25, offset 1.00 / 1.02, Gaussian noise 0.002 from a seeded
 * mt19937) and fitted from D0_ref 3000, alpha_ref 0.1:
 *   - het_fitjob_execute: converges, recovers the truth, calls every
 *     hook, keeps every iteration record, writes the three files, makes
 *     display grids whose data cells are the block means of the data and
 *     whose residuals are data - model;
 *   - a warm start from that result takes every parameter by name;
 *   - cancel while iterating: a partial result, status "cancelled",
 *     inside the bounds, written; cancel while reading: nothing written;
 *   - het_fitjob_start: PROGRESS events are coalesced, the polled
 *     history is complete and in order, DONE carries the result; a
 *     missing file and an unmatched q give FAILED events whose messages
 *     name the file and the q; freeing a running job joins it;
 *   - the default output directory rules and the parameter flags.
 */
#include "config.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "engine_fixture.h"
#include "het_dataset_write.h"
#include "het_fitjob.h"
#include "het_h5.h"
#include "het_model.h"
#include "het_params.h"
#include "het_pool.h"
#include "tap.h"

#define NF	60
#define NA	FX_NA

static int
simulate(const char *path)
{
	return fx_simulate(path, HET_DTYPE_F64, NF);
}

static struct het_config *
config(const char *data, const char *extra)
{
	struct het_config *cfg;
	struct het_error err;
	char text[2048];

	snprintf(text, sizeof(text),
	    "analysis_mode: static_ref\n"
	    "experimental_data:\n  file_path: %s\n"
	    "analyzer_parameters:\n  start_frame: 1\n  end_frame: %d\n"
	    "  scattering:\n    wavevector_q: %s\n"
	    "    phi_angles: [10.0, 80.0]\n"
	    "parameters:\n  reference:\n"
	    "    D0_ref: {value: 3000.0, min: 100.0, max: 100000.0}\n"
	    "    alpha_ref: {value: 0.1, min: -1.0, max: 1.0}\n"
	    "    D_offset_ref: {value: 0.0, vary: false}\n"
	    "optimization:\n  nlsq:\n    loss: linear\n"
	    "    per_angle_mode: individual\n%s", data, NF,
	    extra != NULL && strstr(extra, "#q") != NULL ? "0.3" : "0.01",
	    extra != NULL && strstr(extra, "#q") == NULL ? extra : "");
	het_error_clear(&err);
	cfg = het_config_load_string(text, strlen(text), "test.yaml", &err);
	if (cfg == NULL)
		diag("config: %s", err.msg);
	return cfg;
}

/* Hook counters. */
struct seen {
	int		 reads, built, iters, writing;
	size_t		 last_n;
	atomic_int	*cancel;
	int		 cancel_read, cancel_iter;
};

static void
h_read(void *ctx, size_t k, size_t n, const struct het_bin *bin)
{
	struct seen *s = ctx;

	(void)k;
	(void)bin;
	s->reads++;
	s->last_n = n;
	if (s->cancel_read)
		atomic_store(s->cancel, 1);
}

static void
h_built(void *ctx, const struct het_problem *pb)
{
	struct seen *s = ctx;

	(void)pb;
	s->built++;
}

static void
h_iter(void *ctx, const struct het_fit_progress *pr)
{
	struct seen *s = ctx;

	s->iters++;
	if (s->cancel_iter && pr->iter >= 1)
		atomic_store(s->cancel, 1);
}

static void
h_writing(void *ctx, const char *outdir)
{
	struct seen *s = ctx;

	(void)outdir;
	s->writing++;
}

static int
exists(const char *dir, const char *name)
{
	char p[1024];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &sb) == 0;
}

static char *
slurp(const char *dir, const char *name)
{
	char p[1024], *buf;
	FILE *fp;
	long n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((fp = fopen(p, "r")) == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc((size_t)n + 1, 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, fp) != (size_t)n)
		buf[0] = '\0';
	fclose(fp);
	return buf;
}

static long
pidx(const struct het_fit_result *fr, const char *name)
{
	size_t k;

	for (k = 0; k < fr->p; k++)
		if (strcmp(fr->names[k], name) == 0)
			return (long)k;
	return -1;
}

static void
test_grids(const struct het_fitjob_result *res)
{
	const struct het_fitjob_grid *g = res->grids;
	const struct het_problem *pb = res->pb;
	double sum = 0, rmax = 0, want;
	size_t k, n = 0, a;

	ok(g != NULL, "display grids are made");
	if (g == NULL)
		return;
	is_int((long long)g[0].side, NF, "grid side = frames (60 < 64)");
	/* With one frame per block, cell (i, j) is datum (i, j). */
	for (k = pb->pair_first[1]; k < pb->pair_first[2]; k++)
		if (pb->pairs[k].i == 3 && pb->pairs[k].j == 17)
			break;
	want = pb->y[k];
	is_double(g[1].data[3 * NF + 17], want, 1e-12,
	    "angle 1: data cell (3, 17) is the datum");
	is_double(g[1].data[17 * NF + 3], want, 1e-12,
	    "and the mirror cell (17, 3) too");
	ok(isnan(g[0].data[5 * NF + 5]), "diagonal cells hold no datum: NAN");
	for (a = 0; a < NA; a++)
		for (k = 0; k < NF * NF; k++)
			if (!isnan(g[a].resid[k])) {
				sum += g[a].resid[k];
				n++;
				if (fabs(g[a].resid[k] -
				    (g[a].data[k] - g[a].model[k])) > rmax)
					rmax = fabs(g[a].resid[k] -
					    (g[a].data[k] - g[a].model[k]));
			}
	is_double(rmax, 0, 1e-15, "residual = data - model in every cell");
	is_double(sum / (double)n, 0, 5e-4,
	    "mean residual near 0 (noise 0.002)");
	ok(isfinite(g[0].model[NF + 2]) && g[0].model[NF + 2] > 1.0,
	    "model cells are finite and above the offset (%g)",
	    g[0].model[NF + 2]);
}

static void
test_execute(const char *tmp, const char *data, struct het_fitjob_result **keep)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_hooks hooks = { h_read, h_built, h_iter, h_writing,
	    NULL };
	struct het_fitjob_result *res = NULL;
	struct het_config *cfg = config(data, NULL);
	struct het_error err;
	struct seen seen;
	char out[512], *meta;
	const struct het_fit_result *fr;
	long k;
	int rc;

	memset(&seen, 0, sizeof(seen));
	hooks.ctx = &seen;
	snprintf(out, sizeof(out), "%s/out1", tmp);
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.outdir = out;
	spec.threads = 2;
	het_error_clear(&err);
	rc = het_fitjob_execute(&spec, &hooks, NULL, &res, &err);
	is_int(rc, HET_OK, "execute: HET_OK (%s)", err.msg);
	ok(res != NULL, "execute: a result");
	if (res == NULL)
		return;
	fr = res->fits[0];
	is_int((long long)res->nfits, 1, "one joint fit");
	ok(res->converged, "converged (%s)", fr->message);
	is_str(res->status_name, "converged", "status name");
	k = pidx(fr, "D0_ref");
	ok(k >= 0 && fabs(fr->x[k] - 5000) < 3 * fr->unc[k] + 1e-9,
	    "D0_ref %.1f +- %.1f recovers 5000", k >= 0 ? fr->x[k] : 0,
	    k >= 0 ? fr->unc[k] : 0);
	is_rel(fr->x[k], 5000, 0.05, "D0_ref within 5 %%");
	k = pidx(fr, "alpha_ref");
	ok(k >= 0 && fabs(fr->x[k] - 0.3) < 3 * fr->unc[k] + 1e-9,
	    "alpha_ref %.4f +- %.4f recovers 0.3", k >= 0 ? fr->x[k] : 0,
	    k >= 0 ? fr->unc[k] : 0);
	k = pidx(fr, "contrast[1]");
	is_double(k >= 0 ? fr->x[k] : 0, 0.25, 0.005, "contrast[1] ~ 0.25");
	k = pidx(fr, "offset[1]");
	is_double(k >= 0 ? fr->x[k] : 0, 1.02, 0.002, "offset[1] ~ 1.02");
	is_double(fr->chi2_red, 1.0, 0.15, "reduced chi2 near 1 (%.3f)",
	    fr->chi2_red);
	is_int(seen.reads, NA, "read hook: once per bin");
	is_int((long long)seen.last_n, NA, "read hook: n = 2 bins");
	is_int(seen.built, 1, "built hook once");
	is_int(seen.writing, 1, "writing hook once");
	is_int(seen.iters, (long long)res->nhist,
	    "every iteration record is kept (%zu)", res->nhist);
	is_int(res->hist[0].iter, 0, "the history starts at iteration 0");
	ok(res->hist[res->nhist - 1].cost <= res->hist[0].cost,
	    "the cost went down");
	ok(res->written, "written (%s)", res->write_err.msg);
	ok(exists(out, HET_RESULTS_H5) && exists(out, "nlsq_parameters.json") &&
	    exists(out, "nlsq_metadata.json"), "the three results files exist");
	meta = slurp(out, "nlsq_metadata.json");
	like(meta != NULL ? meta : "", "\"converged\"",
	    "metadata: status converged");
	free(meta);
	is_str(res->outdir, out, "the given output directory is used");
	is_str(res->outdir_note, "", "no note for a given directory");
	is_int((long long)res->nwarm, 0, "no warm start");
	like(res->data_path, "sim.h5", "the config's data file was fitted");
	test_grids(res);
	*keep = res;
	het_config_free(cfg);
}

static void
test_warm(const char *tmp, const char *data,
    const struct het_fitjob_result *prev)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_result *res = NULL;
	struct het_config *cfg = config(data, NULL);
	struct het_error err;
	const struct het_fit_result *pf = prev->fits[0];
	char out[512];
	int rc;

	snprintf(out, sizeof(out), "%s/out_warm", tmp);
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.outdir = out;
	spec.threads = 1;
	spec.start_names = (const char *const *)pf->names;
	spec.start_x = pf->x;
	spec.nstart = pf->p;
	spec.no_grids = 1;
	het_error_clear(&err);
	rc = het_fitjob_execute(&spec, NULL, NULL, &res, &err);
	is_int(rc, HET_OK, "warm start: HET_OK");
	if (res == NULL)
		goto out;
	is_int((long long)res->nwarm, (long long)pf->p,
	    "every parameter taken by name (%zu)", res->nwarm);
	is_double(res->fits[0]->x0[0], pf->x[0], 1e-12,
	    "the start is the previous result");
	ok(res->fits[0]->iterations <= pf->iterations,
	    "it needs no more iterations (%ld <= %ld)",
	    res->fits[0]->iterations, pf->iterations);
	ok(res->grids == NULL, "no_grids: no grids");
out:
	het_fitjob_result_free(res);
	het_config_free(cfg);
}

static void
test_cancel(const char *tmp, const char *data)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_hooks hooks = { h_read, h_built, h_iter, h_writing,
	    NULL };
	struct het_fitjob_result *res = NULL;
	struct het_config *cfg = config(data, NULL);
	struct het_error err;
	atomic_int cancel;
	struct seen seen;
	const struct het_fit_result *fr;
	char out[512], *meta;
	size_t k;
	int rc, inside = 1;

	atomic_init(&cancel, 0);
	memset(&seen, 0, sizeof(seen));
	seen.cancel = &cancel;
	seen.cancel_iter = 1;
	hooks.ctx = &seen;
	snprintf(out, sizeof(out), "%s/out_cancel", tmp);
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.outdir = out;
	spec.threads = 1;
	het_error_clear(&err);
	rc = het_fitjob_execute(&spec, &hooks, &cancel, &res, &err);
	is_int(rc, HET_ECANCEL, "cancel while iterating: HET_ECANCEL");
	ok(res != NULL, "with a partial result");
	if (res != NULL) {
		fr = res->fits[0];
		is_str(res->status_name, "cancelled", "status cancelled");
		is_int(fr->reason, HET_NLSQ_CANCELLED, "reason cancelled");
		ok(fr->iterations <= 2, "stopped after iteration %ld",
		    fr->iterations);
		for (k = 0; k < fr->p; k++)
			inside &= fr->x[k] >= fr->lo[k] && fr->x[k] <= fr->hi[k];
		ok(inside, "the partial point lies inside the bounds");
		ok(res->written, "the partial result is written");
		meta = slurp(out, "nlsq_metadata.json");
		like(meta != NULL ? meta : "", "\"status\": \"cancelled\"",
		    "metadata says cancelled");
		free(meta);
	}
	het_fitjob_result_free(res);
	res = NULL;

	atomic_store(&cancel, 0);
	memset(&seen, 0, sizeof(seen));
	seen.cancel = &cancel;
	seen.cancel_read = 1;
	snprintf(out, sizeof(out), "%s/out_cancel_read", tmp);
	het_error_clear(&err);
	rc = het_fitjob_execute(&spec, &hooks, &cancel, &res, &err);
	is_int(rc, HET_ECANCEL, "cancel while reading: HET_ECANCEL");
	ok(res == NULL, "no result");
	like(err.msg, "cancelled while reading ", "message: cancelled while "
	    "reading");
	like(err.msg, "nothing was fitted or written", "nothing written");
	is_int(seen.built + seen.iters, 0, "no problem, no iteration");
	ok(!exists(tmp, "out_cancel_read"), "no output directory");
	het_config_free(cfg);
}

/*
 * The phase times of a snapshot: the phases up to its own were entered,
 * in order and within the elapsed time; none after it was.
 */
static int
phases_timed(const struct het_fitjob_snap *sn)
{
	double prev = 0;
	int k;

	for (k = 0; k < HET_FITJOB_NPHASES; k++) {
		if (k > (int)sn->phase) {
			if (sn->phase_at[k] != -1)
				return 0;
			continue;
		}
		if (sn->phase_at[k] < 0) {
			/* reading is skipped by nothing; STARTING is 0 */
			if (k == HET_FITJOB_STARTING || k == (int)sn->phase)
				return 0;
			continue;
		}
		if (sn->phase_at[k] < prev || sn->phase_at[k] > sn->elapsed)
			return 0;
		prev = sn->phase_at[k];
	}
	return 1;
}

static void
test_async(const char *tmp, const char *data)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_result *res = NULL;
	struct het_fitjob_snap *snap;
	struct het_config *cfg = config(data, NULL);
	struct het_evq *q;
	struct het_fitjob *job;
	struct het_error err;
	struct het_event ev;
	char out[512];
	size_t have = 0, nprog = 0, k;
	long last_iter = -1;
	int order = 1, other = 0, done = 0, saw_fit = 0, live_fit = 0;
	int times = 1;

	het_error_clear(&err);
	q = het_evq_alloc(&err);
	snprintf(out, sizeof(out), "%s/out_async", tmp);
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.outdir = out;
	spec.threads = 2;
	job = het_fitjob_start(q, 7, &spec, &err);
	ok(job != NULL, "start: a job (%s)", err.msg);
	/* The spec is a snapshot: the caller may drop its config now. */
	het_config_free(cfg);
	cfg = NULL;
	while (job != NULL && !done && fx_next_event(q, &ev, 20000)) {
		other += ev.job != 7;
		if (ev.type == HET_FITJOB_EV_PROGRESS) {
			nprog++;
			snap = het_fitjob_poll(job, have, &err);
			if (snap == NULL)
				break;
			/* the fit may run between two polls: the phase
			   times say it was entered all the same */
			saw_fit |= snap->phase >= HET_FITJOB_FITTING &&
			    snap->phase_at[HET_FITJOB_FITTING] >= 0 &&
			    snap->p == 6;
			live_fit |= snap->phase == HET_FITJOB_FITTING;
			times &= phases_timed(snap);
			order &= snap->hist_from == have;
			for (k = 0; k < snap->nhist; k++) {
				order &= snap->hist[k].iter == last_iter + 1;
				last_iter = snap->hist[k].iter;
			}
			have = snap->hist_from + snap->nhist;
			het_fitjob_snap_free(snap);
		} else if (ev.type == HET_FITJOB_EV_DONE) {
			res = ev.data;
			done = 1;
		} else if (ev.type == HET_FITJOB_EV_FAILED) {
			diag("failed: %s", ((struct het_fitjob_failure *)
			    ev.data)->err.msg);
			free(ev.data);
			done = 1;
		}
	}
	ok(res != NULL, "DONE carries the result");
	is_int(other, 0, "every event has job id 7");
	ok(saw_fit, "a snapshot showed the fitting phase entered, with 6 "
	    "parameters (%s)", live_fit ? "seen while fitting" : "the fit "
	    "ran between two polls");
	ok(times, "every snapshot times the phases it reached, in order, "
	    "and none beyond its own");
	ok(het_fitjob_finished(job), "finished after DONE");
	if (res != NULL) {
		ok(nprog >= 1 && nprog <= res->nhist + NA + 2,
		    "progress events coalesced: %zu for %zu records", nprog,
		    res->nhist);
		is_int((long long)have, (long long)res->nhist,
		    "the polled history has every record");
		ok(order, "records arrive in order, none twice");
		ok(res->converged && res->written, "converged and written");
		ok(res->grids != NULL, "with grids");
	}
	het_fitjob_result_free(res);
	het_fitjob_free(job);

	/* Failures: a missing file, a q no ring has. */
	cfg = config("/nonexistent/hetui/run9.h5", NULL);
	spec.cfg = cfg;
	job = het_fitjob_start(q, 8, &spec, &err);
	done = 0;
	while (job != NULL && !done && fx_next_event(q, &ev, 20000)) {
		if (ev.type == HET_FITJOB_EV_FAILED) {
			struct het_fitjob_failure *f = ev.data;

			is_int(ev.job, 8, "FAILED: job id");
			like(f->err.msg, "/nonexistent/hetui/run9.h5",
			    "FAILED: the message names the file");
			ok(f->err.code != HET_OK, "FAILED: an error code (%s)",
			    het_status_name(f->err.code));
			free(f);
			done = 1;
		} else if (ev.type == HET_FITJOB_EV_DONE) {
			het_fitjob_result_free(ev.data);
			done = 2;
		}
	}
	is_int(done, 1, "a missing file fails");
	het_fitjob_free(job);
	het_config_free(cfg);

	cfg = config(data, "#q");
	spec.cfg = cfg;
	job = het_fitjob_start(q, 9, &spec, &err);
	done = 0;
	while (job != NULL && !done && fx_next_event(q, &ev, 20000)) {
		if (ev.type == HET_FITJOB_EV_FAILED) {
			struct het_fitjob_failure *f = ev.data;

			is_int(f->err.code, HET_ENOTFOUND,
			    "no ring near q 0.3: HET_ENOTFOUND");
			like(f->err.msg, "0.3", "the message names the q");
			is_int(f->phase, HET_FITJOB_STARTING,
			    "it failed before any bin was read");
			free(f);
			done = 1;
		} else if (ev.type == HET_FITJOB_EV_DONE) {
			het_fitjob_result_free(ev.data);
			done = 2;
		}
	}
	is_int(done, 1, "an unmatched q fails");
	het_fitjob_free(job);
	het_config_free(cfg);

	/* Freeing a running job cancels and joins it. */
	cfg = config(data, NULL);
	spec.cfg = cfg;
	spec.outdir = NULL;
	snprintf(out, sizeof(out), "%s/out_free", tmp);
	spec.outdir = out;
	job = het_fitjob_start(q, 10, &spec, &err);
	het_fitjob_free(job);
	ok(1, "het_fitjob_free of a running job returns");
	het_config_free(cfg);
	het_evq_free(q);

	memset(&spec, 0, sizeof(spec));
	ok(het_fitjob_start(NULL, 1, &spec, &err) == NULL &&
	    err.code == HET_EINVAL, "no queue: HET_EINVAL");
	like(err.msg, "event queue", "... says what is missing");
}

/*
 * A fit of float32 data: hetui_results.h5 stores its matrices as float32
 * upper triangles, and they read back (het_results_load_matrix) to the
 * model and to model - data within float32 rounding.
 */
static void
test_matrices(const char *tmp)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_result *res = NULL;
	struct het_resid_eval *ev;
	struct het_config *cfg;
	struct het_error err;
	const struct het_problem *pb;
	char data[512], out[512], file[600];
	double *c2 = NULL, *m = NULL, worst = 0, rworst = 0, d;
	size_t a, i, j, k, n, bad = 0;

	snprintf(data, sizeof(data), "%s/sim32.h5", tmp);
	is_int(fx_simulate(data, HET_DTYPE_F32, NF), HET_OK, "a float32 file");
	cfg = config(data, NULL);
	snprintf(out, sizeof(out), "%s/out32", tmp);
	memset(&spec, 0, sizeof(spec));
	spec.cfg = cfg;
	spec.outdir = out;
	het_error_clear(&err);
	het_fitjob_execute(&spec, NULL, NULL, &res, &err);
	ok(res != NULL && res->written, "its fit is written");
	if (res == NULL || !res->written) {
		het_fitjob_result_free(res);
		het_config_free(cfg);
		return;
	}
	pb = res->pb;
	is_int(pb->dtype, HET_DTYPE_F32, "the problem knows the data are "
	    "float32");
	snprintf(file, sizeof(file), "%s/hetui_results.h5", out);
	ev = het_resid_eval_alloc(pb->resid, &err);
	het_resid_prepare(ev, res->fits[0]->x, 0, &err);
	c2 = malloc(NF * NF * sizeof(double));
	for (a = 0; a < pb->nangles; a++) {
		het_resid_model_matrix(ev, a, c2);
		if (het_results_load_matrix(file, "fit", "c2_fitted", a, &m, &n,
		    &err) != HET_OK || n != NF) {
			bad++;
			continue;
		}
		for (k = 0; k < NF * NF; k++) {
			d = fabs(m[k] - c2[k]) / fabs(c2[k]);
			worst = d > worst ? d : worst;
		}
		free(m);
		if (het_results_load_matrix(file, "fit", "residuals", a, &m, &n,
		    &err) != HET_OK || n != NF) {
			bad++;
			continue;
		}
		for (k = pb->pair_first[a]; k < pb->pair_first[a + 1]; k++) {
			i = pb->pairs[k].i;
			j = pb->pairs[k].j;
			d = c2[i * NF + j] - pb->y[k];
			d = fabs(m[i * NF + j] - d) / (fabs(d) + 1e-300);
			rworst = d > rworst ? d : rworst;
			bad += m[i * NF + j] != m[j * NF + i];
		}
		free(m);
	}
	is_int(bad, 0, "every angle's matrices read back, symmetric");
	ok(worst > 0 && worst <= 6e-8, "fitted c2 = the model within float32 "
	    "rounding (largest relative difference %.2g)", worst);
	ok(rworst <= 6e-8, "residual = model - data within float32 rounding "
	    "(%.2g)", rworst);
	free(c2);
	het_resid_eval_free(ev);
	het_fitjob_result_free(res);
	het_config_free(cfg);
}

static void
test_outdir(const char *tmp)
{
	struct het_config *cfg;
	struct het_error err;
	char note[512], path[1024], want[1024], *d, *d2;
	int made = -1;

	het_error_clear(&err);
	cfg = het_config_default(HET_MODE_STATIC_REF, &err);
	free(cfg->output_dir);
	snprintf(path, sizeof(path), "%s/runs", tmp);
	cfg->output_dir = strdup(path);
	d = het_fitjob_default_outdir(cfg, "/nonexistent/dir/run7.h5", "fit",
	    &made, note, sizeof(note), &err);
	snprintf(want, sizeof(want), "%s/runs/run7/fit-", tmp);
	ok(d != NULL && strncmp(d, want, strlen(want)) == 0 &&
	    strlen(d) == strlen(want) + 15, "a new folder OUTPUT_DIR/<stem>/"
	    "fit-YYYYmmdd-HHMMSS (%s)", d != NULL ? d : err.msg);
	is_int(made, 1, "made by the call");
	is_str(note, "a new folder for this run", "the note says so");
	d2 = het_fitjob_default_outdir(cfg, "/nonexistent/dir/run7.h5", "fit",
	    NULL, NULL, 0, &err);
	ok(d2 != NULL && d != NULL && strcmp(d, d2) != 0, "the next run gets "
	    "another folder");
	free(d);
	free(d2);
	cfg->create_subdirs = cfg->timestamp_dirs = 0;
	d = het_fitjob_default_outdir(cfg, "run9.h5", "fit", &made, note,
	    sizeof(note), &err);
	is_str(d, path, "create_subdirs and timestamp_dirs false: output_dir");
	like(note, "output.output_dir", "note names the key");
	free(d);
	free(cfg->output_dir);
	snprintf(path, sizeof(path), "%s/sim.h5/sub", tmp);
	cfg->output_dir = strdup(path);
	het_error_clear(&err);
	d = het_fitjob_default_outdir(cfg, "run9.h5", "fit", &made, note,
	    sizeof(note), &err);
	ok(d == NULL && err.code == HET_EIO, "output_dir under a file: "
	    "HET_EIO");
	het_config_free(cfg);
}

static void
test_flags(void)
{
	struct het_fit_result fr;
	double x[4] = { 0, 5, 10, 5 }, lo[4] = { 0, 0, 0, 0 },
	    hi[4] = { 10, 10, 10, 10 }, unc[4] = { 1, 1, 1, NAN };

	memset(&fr, 0, sizeof(fr));
	fr.p = 4;
	fr.x = x;
	fr.lo = lo;
	fr.hi = hi;
	fr.unc = unc;
	is_str(het_fitjob_flag(&fr, 0), "at lower bound", "flag: lower");
	is_str(het_fitjob_flag(&fr, 1), "", "flag: none");
	is_str(het_fitjob_flag(&fr, 2), "at upper bound", "flag: upper");
	is_str(het_fitjob_flag(&fr, 3), "degenerate", "flag: degenerate");
	unc[0] = 0;
	is_str(het_fitjob_flag(&fr, 0), "at bound, degenerate",
	    "flag: at bound and degenerate");
}

int
main(void)
{
	struct het_fitjob_result *first = NULL;
	struct het_error err;
	char tmp[256], data[512], cmd[600];

	plan_lazy();
	gsl_set_error_handler_off();
	het_error_clear(&err);
	if (het_h5_library_init(&err) != HET_OK)
		skip_all("HDF5 cannot start");
	het_pool_blas_single_threaded();
	if (tap_tmpdir(tmp, sizeof(tmp), "t_engine_fitjob") == NULL)
		skip_all("no temporary directory");
	snprintf(data, sizeof(data), "%s/sim.h5", tmp);
	is_int(simulate(data), HET_OK, "simulated the test file");
	test_execute(tmp, data, &first);
	if (first != NULL)
		test_warm(tmp, data, first);
	het_fitjob_result_free(first);
	test_cancel(tmp, data);
	test_async(tmp, data);
	test_outdir(tmp);
	test_matrices(tmp);
	test_flags();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("could not remove %s", tmp);
	return exit_status();
}
