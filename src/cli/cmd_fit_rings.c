/*
 * cmd_fit_rings.c: `hetui fit --all-rings`: the fit of `hetui fit` for
 * every q ring of a result file, and the batch summary.
 *
 * Flow: the rings are the q of the file that hold bins (metadata only);
 * a batch folder is made like a run folder (OUTPUT_DIR/<stem>/rings-<UTC
 * time>, or -o DIR after het_rundir_check); for each ring the config's
 * wavevector_q is set to the ring's q (so the problem selects exactly
 * that ring; the angles and frames are chosen as for one fit) and the
 * fit job runs into BATCH/ringNN-qQ with the progress hooks of `hetui
 * fit`.  A ring that cannot be fitted (its folder holds another run's
 * results, its data cannot be read, its results cannot be written) is a
 * row with status "failed" and the reason; the batch goes on.  A cancel
 * (the flag of cmd_fit.c's signal handler) stops after the ring being
 * fitted, whose partial result is written like any cancelled fit's, and
 * the summary of the finished rings is still written (het_rings:
 * rings.csv, rings.h5) and printed (cmd_fit_rings_out.c).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_fit.h"
#include "cmd_fit_rings.h"
#include "het_dataset.h"
#include "het_params.h"
#include "het_problem.h"
#include "het_rings.h"
#include "het_rundir.h"
#include "het_util.h"

/*
 * The q of the rings of the data file that hold at least one bin, in
 * the order of its q list, into *q (malloc'd).  Returns CLI_EXIT_OK or
 * reports the error.
 */
static int
rings_list(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    const struct het_config *cfg, struct cli_rings *b)
{
	const struct het_dataset_info *info;
	struct het_dataset *ds = NULL;
	struct het_error err;
	unsigned char *has = NULL;
	size_t k, n;
	char *path;

	het_error_clear(&err);
	if ((path = het_problem_data_path(cfg, o->file, &err)) == NULL ||
	    (ds = het_problem_dataset_open(cfg, path, o->dt, &err)) == NULL) {
		free(path);
		return cli_report(cmd, &err);
	}
	info = het_dataset_info(ds);
	b->data_path = path;
	has = calloc(info->n_q, 1);
	b->q = calloc(info->n_q, sizeof(double));
	b->qidx = calloc(info->n_q, sizeof(size_t));
	if (has == NULL || b->q == NULL || b->qidx == NULL) {
		het_error_set(&err, HET_ENOMEM, "out of memory");
		free(has);
		het_dataset_close(ds);
		return cli_report(cmd, &err);
	}
	n = het_dataset_nbins(ds);
	for (k = 0; k < n; k++)
		has[het_dataset_bin(ds, k)->q_idx] = 1;
	for (k = 0; k < info->n_q; k++)
		if (has[k]) {
			b->qidx[b->nq] = k;
			b->q[b->nq++] = info->q_list[k];
		}
	free(has);
	het_dataset_close(ds);
	return CLI_EXIT_OK;
}

int
cli_batch_vals(const struct het_fitjob_result *res, struct het_rings_vals *v,
    struct het_error *err)
{
	const struct het_problem *pb = res->pb;
	const struct het_fit_result *fr = res->fits[0];
	const struct het_param_def *tab;
	size_t k, j, n, m;
	const char **names;
	double *val, *unc;
	unsigned char *plot;

	tab = het_params_table(het_mode_family(pb->spec.mode), &m);
	n = fr->p + pb->nphys;
	names = het_alloc_array(n, sizeof(*names), "rings row", err);
	val = het_alloc_array(2 * n, sizeof(double), "rings row", err);
	plot = het_alloc_array(n, 1, "rings row", err);
	if (names == NULL || val == NULL || plot == NULL) {
		free(names);
		free(val);
		free(plot);
		return HET_ENOMEM;
	}
	unc = val + n;
	for (k = 0; k < fr->p; k++) {
		names[k] = fr->names[k];
		val[k] = fr->x[k];
		unc[k] = fr->unc[k];
		for (j = 0, plot[k] = 0; j < pb->nphys && j < m; j++)
			if (strcmp(tab[j].name, fr->names[k]) == 0)
				plot[k] = 1;
	}
	for (j = 0, n = fr->p; j < pb->nphys && j < m; j++)
		if (!pb->phys_free[j]) {
			names[n] = tab[j].name;
			val[n] = pb->theta[j];
			unc[n] = NAN;
			plot[n++] = 0;
		}
	v->n = n;
	v->names = names;
	v->value = val;
	v->unc = unc;
	v->plot = plot;
	return HET_OK;
}

/* Add the row of a ring that ran (res) or failed (res NULL, why err). */
static void
rings_add(struct cli_rings *b, size_t r, const char *dir,
    const struct het_fitjob_result *res, const struct het_error *why)
{
	struct het_rings_vals v;
	struct het_error err;
	int rc;

	memset(&v, 0, sizeof(v));
	het_error_clear(&err);
	if (res == NULL || res->nfits < 1 || res->fits[0] == NULL)
		rc = het_rings_add(&b->table, (long)b->qidx[r] + 1, b->q[r],
		    "failed", NAN, "", why->msg[0] != '\0' ? why->msg :
		    het_status_str(why->code), NULL, &err);
	else if ((rc = cli_batch_vals(res, &v, &err)) == HET_OK)
		rc = het_rings_add(&b->table, (long)b->qidx[r] + 1, b->q[r],
		    res->status_name, res->fits[0]->chi2_red, dir, "", &v,
		    &err);
	free((void *)v.names);
	free((void *)v.value);
	free((void *)v.plot);
	if (rc != HET_OK) {
		cli_report(b->cmd, &err);
		b->lost = 1;
	}
}

/* The folder of ring r in the batch (malloc'd), or NULL. */
static char *
rings_dir(const struct cli_rings *b, size_t r)
{
	char name[64], *p;
	size_t len;

	snprintf(name, sizeof(name), "ring%02zu-q%.4g", b->qidx[r] + 1,
	    b->q[r]);
	len = strlen(b->batch) + strlen(name) + 2;
	if ((p = malloc(len)) != NULL)
		snprintf(p, len, "%s/%s", b->batch, name);
	return p;
}

int
cli_batch_fit(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    const struct het_config *cfg, const char *data_path, const char *dir,
    const struct cli_batch_start *start, const atomic_int *cancel,
    struct het_fitjob_result **out, struct het_error *err)
{
	struct het_fitjob_spec spec;
	struct het_fitjob_hooks hooks;
	struct het_fitjob_result *res = NULL;
	struct cli_fit_run run;
	int st;

	memset(&run, 0, sizeof(run));
	run.cmd = cmd;
	run.cfg = cfg;
	run.tty = isatty(STDERR_FILENO);
	cli_fit_setup(o, cfg, dir, &run, &spec, &hooks);
	spec.data_path = data_path;
	if (start != NULL) {
		spec.start_names = (const char *const *)start->names;
		spec.start_x = start->x;
		spec.nstart = start->n;
	}
	/* A folder with another run's results is never replaced. */
	if (het_rundir_check(dir, o->force, err) == HET_OK &&
	    het_mkdirs(dir, "batch folder", err) == HET_OK)
		st = het_fitjob_execute(&spec, &hooks, cancel, &res, err);
	else
		st = err->code;
	if (res != NULL && !res->written) {
		*err = res->write_err;
		het_fitjob_result_free(res);
		res = NULL;
	}
	if (res == NULL) {
		if (run.tty)
			fputc('\n', stderr);
		rmdir(dir);	/* only when empty: nothing of a user's */
	}
	*out = res;
	return st;
}

void
cli_batch_wire_end(size_t i, const struct het_fitjob_result *res,
    const struct het_error *err)
{
	if (res != NULL)
		cli_wire_event("done", json_pack("{s:I, s:s, s:o}", "index",
		    (json_int_t)i + 1, "status", res->status_name, "chi2_red",
		    cli_wire_num(res->fits[0]->chi2_red)));
	else if (err->code == HET_ECANCEL)
		cli_wire_event("done", json_pack("{s:I, s:s}", "index",
		    (json_int_t)i + 1, "status", "cancelled"));
	else
		cli_wire_event("failed", json_pack("{s:I, s:s}", "index",
		    (json_int_t)i + 1, "msg", err->msg[0] != '\0' ? err->msg :
		    het_status_str(err->code)));
}

/* Fit ring r into its folder; its row.  Returns 1 when cancelled. */
static int
rings_fit_one(struct cli_rings *b, size_t r, const struct cli_fit_opts *o,
    struct het_config *cfg, const atomic_int *cancel)
{
	struct het_fitjob_result *res = NULL;
	struct het_error err;
	char *dir, label[64];
	size_t w;
	int st;

	het_error_clear(&err);
	if ((dir = rings_dir(b, r)) == NULL) {
		het_error_set(&err, HET_ENOMEM, "out of memory");
		rings_add(b, r, NULL, NULL, &err);
		return 0;
	}
	fprintf(stderr, "ring %zu/%zu: q %g 1/A into %s/\n", r + 1, b->nq,
	    b->q[r], dir);
	snprintf(label, sizeof(label), "ring %zu  q %.4g", b->qidx[r] + 1,
	    b->q[r]);
	cli_wire_event("start", json_pack("{s:I, s:I, s:s, s:s}", "index",
	    (json_int_t)r + 1, "of", (json_int_t)b->nq, "label", label, "dir",
	    dir));
	cfg->wavevector_q = b->q[r];
	cfg->q_set = 1;
	st = cli_batch_fit(b->cmd, o, cfg, b->data_path, dir, NULL, cancel,
	    &res, &err);
	if (res == NULL && st == HET_ECANCEL) {
		fprintf(stderr, "hetui %s: ring %zu cancelled while reading; "
		    "not fitted\n", b->cmd->name, r + 1);
		cli_batch_wire_end(r, NULL, &err);
		free(dir);
		return 1;
	}
	rings_add(b, r, dir, res, &err);
	cli_batch_wire_end(r, res, &err);
	if (res == NULL)
		fprintf(stderr, "hetui %s: ring %zu (q %g) failed: %s\n",
		    b->cmd->name, r + 1, b->q[r], err.msg);
	else {
		for (w = 0; w < res->fits[0]->nwarnings; w++)
			cli_warn(b->cmd, "ring %zu: %s", r + 1,
			    res->fits[0]->warnings[w]);
		fprintf(stderr, "ring %zu/%zu: %s, chi2_red %.4g\n", r + 1,
		    b->nq, res->status_name, res->fits[0]->chi2_red);
	}
	if (b->mode_name == NULL && res != NULL)
		b->mode_name = het_mode_name(res->pb->spec.mode);
	het_fitjob_result_free(res);
	free(dir);
	return st == HET_ECANCEL;
}

int
cli_batch_status(const struct het_rings *t, int cancelled, int lost)
{
	size_t k;
	int failed = lost, notconv = 0;

	if (cancelled)
		return CLI_FIT_EXIT_CANCELLED;
	for (k = 0; k < t->nrows; k++) {
		if (strcmp(t->rows[k].status, "failed") == 0)
			failed = 1;
		else if (strcmp(t->rows[k].status, HET_RINGS_CONVERGED) != 0)
			notconv = 1;
	}
	return failed ? CLI_EXIT_ERROR : notconv ? CLI_EXIT_NOT_CONVERGED :
	    CLI_EXIT_OK;
}

/* The exit status of the rings: the worst over them. */
static int
rings_status(const struct cli_rings *b)
{
	return cli_batch_status(&b->table, b->cancelled, b->lost);
}

static void
rings_print(const void *b, FILE *out)
{
	cli_rings_print(b, out);
}

/* Run every ring, then write and print the summary. */
static int
rings_run(struct cli_rings *b, const struct cli_fit_opts *o,
    struct het_config *cfg, const atomic_int *cancel)
{
	struct het_error err;
	double q0 = cfg->wavevector_q;
	int q0_set = cfg->q_set;
	size_t r;

	cli_wire_event("batch", json_pack("{s:s, s:s, s:s, s:I}", "what",
	    "rings", "dir", b->batch, "file", b->data_path, "of",
	    (json_int_t)b->nq));
	for (r = 0; r < b->nq && !b->cancelled; r++)
		b->cancelled = rings_fit_one(b, r, o, cfg, cancel) ||
		    atomic_load(cancel) != 0;
	cfg->wavevector_q = q0;
	cfg->q_set = q0_set;
	if (b->table.nrows == 0) {
		fprintf(stderr, "hetui %s: no ring was fitted; nothing was "
		    "written\n", b->cmd->name);
		cli_wire_note("error", "no ring was fitted; nothing was "
		    "written");
		cli_wire_summary(cli_batch_status_name(b->cancelled,
		    rings_status(b)), rings_status(b), NULL, 0, b->nq, NULL,
		    NULL);
		return rings_status(b);
	}
	het_error_clear(&err);
	if (het_rings_write(&b->table, b->batch, &err) != HET_OK) {
		cli_report(b->cmd, &err);
		b->lost = 1;
	}
	if (o->json)
		cli_rings_print_json(b, rings_status(b));
	else if (o->wire)
		cli_wire_summary(cli_batch_status_name(b->cancelled,
		    rings_status(b)), rings_status(b), b->batch,
		    b->table.nrows, b->nq, rings_print, b);
	else
		cli_rings_print(b, stdout);
	if (b->cancelled)
		fprintf(stderr, "hetui %s: cancelled; the %zu finished "
		    "ring%s %s summarised in %s/\n", b->cmd->name,
		    b->table.nrows, b->table.nrows == 1 ? "" : "s",
		    b->table.nrows == 1 ? "is" : "are", b->batch);
	return rings_status(b);
}

int
cli_fit_rings(const struct cli_cmd *cmd, const struct cli_fit_opts *o,
    struct het_config *cfg, const atomic_int *cancel)
{
	struct cli_rings b;
	int rc, made;

	memset(&b, 0, sizeof(b));
	b.cmd = cmd;
	het_rings_init(&b.table);
	if ((rc = rings_list(cmd, o, cfg, &b)) == CLI_EXIT_OK &&
	    (b.batch = cli_run_dir(cmd, cfg, o->out, b.data_path, "rings",
	    o->force, &made, &rc)) != NULL) {
		if ((rc = cli_check_output(cmd, b.batch)) == CLI_EXIT_OK)
			rc = rings_run(&b, o, cfg, cancel);
		/* A batch that wrote nothing leaves no empty folder. */
		if (made)
			rmdir(b.batch);
	}
	het_rings_fini(&b.table);
	free(b.batch);
	free(b.data_path);
	free(b.q);
	free(b.qidx);
	return rc;
}
