/*
 * ui_p_sample.c: the Sampling panel: the CMC settings, starting and
 * cancelling a run, and following it shard by shard; and the run's place
 * in the event loop (the panel's pollfds, deadline, handle, busy and
 * wind_down hooks).
 *
 * Design: the panel never computes.  `r` turns the session into a
 * sampling run: the configuration as edited in the Model panel and here,
 * with the Data panel's q ring, angles and frame window, on the open
 * file, handed to het_sample_alloc (which copies it) and started.  The
 * pipeline (src/engine/sample/het_sample.h) runs READING, NLSQ, PREPARING,
 * COMBINING and WRITING on its own thread and SAMPLING on hetui-worker
 * processes; its wake-up pipe and the workers' pipes join the loop's
 * poll set, and het_sample_handle runs after every poll, so keys stay
 * responsive and the loop never blocks.  The pipeline's on_change
 * callback (inside het_sample_handle) logs each phase and each shard
 * transition (started on pid, done with its R-hat, retried with the
 * reason, failed with every attempt's reason) and sets dirty bits.  The
 * finished shards' R-hat and ESS are read from their result records
 * without decoding draws (het_sample_view_shard_diag); the draws of the
 * selected shard are decoded only when its detail is shown.
 * Settings edits change ui->ses.cfg the way the Model panel does: a copy is
 * edited and validated, and only a valid copy replaces the configuration;
 * a refused edit shows the validator's sentence under its row.  The
 * number of workers is the panel's own (it is not a configuration key).
 * Quitting while a run is active is confirmed by the loop; the panel's
 * free hook then frees the pipeline, which cancels it, kills the workers
 * and reaps them.  The SIGCHLD of the loop does not reap: het_proc must
 * see its workers' exit statuses.
 * Drawing is in ui_p_sample_draw.c; the state is in ui_p_sample.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_fitjob.h"
#include "het_pool.h"
#include "het_proc.h"
#include "het_util.h"
#include "het_wire_shard.h"
#include "ui.h"
#include "ui_p_sample.h"

#define SAMPLE_TICK	0.5	/* s between redraws for the clocks */

static const struct ui_hint sample_hints[] = {
	{ "r", "r", "Sample" },
	{ "c", "c", "Cancel" },
	{ "\xe2\x86\x91\xe2\x86\x93", "Up/Dn", "Shard" },
	{ "\xe2\x8f\x8e", "Enter", "Detail" },
	{ "s", "s", "Settings" },
	{ NULL, NULL, NULL }
};

static const char sample_help[] =
    "r\tsample: NLSQ fit of the selection (the Model panel's\n"
    "\tconfiguration on the Data panel's q ring, angles and\n"
    "\tframe window), then Consensus Monte Carlo: the pairs\n"
    "\tsplit into shards, each sampled by NUTS chains on a\n"
    "\thetui-worker process, the shard posteriors combined\n"
    "c\tcancel the run: workers are stopped and reaped;\n"
    "\twhat finished is still combined and written\n"
    "s\tshow the settings (during or after a run)\n"
    "Up Down\tsettings row, or shard (j k, PgUp PgDn, Home End)\n"
    "Enter\tedit the setting (typing replaces it; strategy\n"
    "\tand combine cycle); on a shard: its detail, the\n"
    "\tR-hat and ESS of every parameter and the traces\n"
    "\tof its chains (Enter or Esc goes back)\n"
    "Settings\tshards: a number or auto (heterodyne: one per\n"
    "\tangle, none below min_points_per_shard or 14 x\n"
    "\tmin_points_per_param pairs; homodyne: sized from\n"
    "\tmin_points_per_shard); chains, warmup and samples\n"
    "\tper chain; workers: processes at once (auto: one\n"
    "\tper core; HETUI_WORKER names the program);\n"
    "\tstrategy: random, angle_balanced, contiguous;\n"
    "\tcombine: robust_consensus_mc, consensus_mc,\n"
    "\tsimple_average\n"
    "Columns\tid, state (retried shards say so), pairs,\n"
    "\tprogress over all chains, step size, acceptance,\n"
    "\tdivergences, max R-hat (green below max_r_hat,\n"
    "\tred above), min bulk ESS, elapsed, worker pid;\n"
    "\ta failure reason shows under its shard\n"
    "\tThe results, gates and files: the Results panel.\n";

/* ---- state --------------------------------------------------------- */

struct sample_state *
sample_state_of(struct ui *ui)
{
	size_t i;

	for (i = 0; i < ui->npanels; i++)
		if (ui->panels[i] == &ui_panel_sample)
			return ui->pstate[i];
	return NULL;
}

static void
dec_clear(struct sample_state *s)
{
	het_shard_result_clear(&s->dec);
	s->dec_index = -1;
	s->dec_failed = 0;
	s->dec_err[0] = '\0';
}

/* Forget the previous run (the pipeline and what the panel kept). */
static void
run_clear(struct ui *ui, struct sample_state *s)
{
	het_sample_free(ui->ses.sample);	/* kills and reaps any worker */
	ui->ses.sample = NULL;
	dec_clear(s);
	free(s->seen);
	s->seen = NULL;
	s->nseen = 0;
	s->nwarn_seen = 0;
	/* A run that wrote nothing leaves no empty folder behind. */
	if (s->outdir_made && s->outdir != NULL)
		rmdir(s->outdir);
	s->outdir_made = 0;
	free(s->file);
	free(s->outdir);
	s->file = s->outdir = NULL;
	s->cur = s->top = s->ptop = 0;
	s->zoom = 0;
	s->cancelling = 0;
	s->ended = 0;
}

static void *
sample_init(struct ui *ui)
{
	struct sample_state *s = ui_xcalloc(1, sizeof(*s));

	s->ui = ui;
	s->dec_index = -1;
	return s;
}

static void
sample_free(void *state)
{
	struct sample_state *s = state;

	if (s == NULL)
		return;
	run_clear(s->ui, s);
	free(s);
}

static void
sample_resize(struct ui *ui, void *state, int lines, int cols)
{
	struct sample_state *s = state;

	(void)ui;
	s->rows = lines;
	s->cols = cols;
}

/* ---- the poll loop --------------------------------------------------- */

int
ui_sample_running(const struct ui *ui)
{
	return ui->ses.sample != NULL && het_sample_phase(ui->ses.sample) !=
	    HET_SAMPLE_IDLE && !het_sample_finished(ui->ses.sample);
}

static size_t
sample_pollfds(struct ui *ui, void *state, struct pollfd *fds, size_t cap)
{
	(void)state;
	if (!ui_sample_running(ui))
		return 0;
	if (het_sample_pollfds_max(ui->ses.sample) > cap) {
		/* Cannot happen: workers are capped (SAMPLE_MAX_WORKERS). */
		ui_log(ui, UI_LOG_ERROR, "sampling: the poll set is too "
		    "small for %zu descriptors",
		    het_sample_pollfds_max(ui->ses.sample));
		return 0;
	}
	return het_sample_loop_fds(ui->ses.sample, fds, cap);
}

static double
sample_deadline(struct ui *ui, void *state)
{
	(void)state;
	return ui_sample_running(ui) ?
	    het_sample_loop_deadline(ui->ses.sample) : -1.0;
}

static int
sample_busy(const struct ui *ui, const void *state)
{
	(void)state;
	return ui_sample_running(ui);
}

/* The written run in the session's history, beside the fits. */
static void
history_add(struct ui *ui, struct sample_state *s,
    const struct het_sample_summary *sm, enum het_sample_verdict v)
{
	const struct het_problem *pb = het_sample_problem(ui->ses.sample);
	struct ui_fit_record *r = ui_history_append(ui);
	size_t k, n = sm != NULL ? sm->p : 0;

	r->analysis = "sample";
	r->file = ui_xstrdup(s->file != NULL ? s->file : pb != NULL ?
	    pb->data_path : "");
	r->outdir = ui_xstrdup(het_sample_out_dir(ui->ses.sample));
	r->status = ui_xstrdup(het_sample_verdict_name(v));
	r->mode = ui_xstrdup(het_mode_name(pb != NULL ? pb->spec.mode :
	    ui->ses.cfg->mode));
	r->chi2_red = NAN;
	r->iterations = 0;
	r->seconds = sm != NULL ? sm->wall_time : s->t_end - s->t0;
	r->names = ui_xcalloc(n + 1, sizeof(char *));
	r->x = ui_xcalloc(n + 1, sizeof(double));
	r->unc = ui_xcalloc(n + 1, sizeof(double));
	for (k = 0; k < n; k++) {
		r->names[k] = ui_xstrdup(sm->param[k].name);
		r->x[k] = sm->param[k].mean;
		r->unc[k] = sm->param[k].sd;
	}
	r->np = n;
}

/* The run ended: say how, once. */
static void
run_ended(struct ui *ui, struct sample_state *s)
{
	const struct het_sample_summary *sm =
	    het_sample_summary(ui->ses.sample);
	const struct het_error *e = het_sample_error(ui->ses.sample);
	const char *const *files = het_sample_files(ui->ses.sample);
	enum het_sample_verdict v = het_sample_verdict(ui->ses.sample);
	char list[512];
	size_t k, used = 0;

	s->ended = 1;
	s->t_end = ui_now();
	s->cancelling = 0;
	list[0] = '\0';
	for (k = 0; files[k] != NULL && used + 2 < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used,
		    "%s%s", k > 0 ? ", " : "", files[k]);
	if (files[0] != NULL) {
		ui_log(ui, UI_LOG_INFO, "sampling results written to %s/ (%s)",
		    het_sample_out_dir(ui->ses.sample), list);
		history_add(ui, s, sm, v);
	}
	switch (v) {
	case HET_VERDICT_PASSED:
		ui_msg(ui, UI_LOG_INFO, "sampling done: %zu of %zu shards, "
		    "gates passed (max R-hat %.3f); see Results (5)",
		    sm->ndone, sm->nshards, sm->max_rhat);
		break;
	case HET_VERDICT_GATES_FAILED:
		ui_log(ui, UI_LOG_WARN, "sampling gates failed: %s",
		    sm->gates_text);
		ui_msg(ui, UI_LOG_WARN, "sampling done but %zu shard%s failed "
		    "a gate; see Results (5)", sm->gates_nfailed,
		    sm->gates_nfailed == 1 ? "" : "s");
		break;
	case HET_VERDICT_SHARDS_FAILED:
		ui_log(ui, UI_LOG_ERROR, "sampling: %s", e->msg);
		ui_msg(ui, UI_LOG_ERROR, "sampling failed: too few shards "
		    "finished (see the Log)");
		break;
	case HET_VERDICT_CANCELLED:
		ui_msg(ui, UI_LOG_WARN, "sampling cancelled%s",
		    files[0] != NULL ? "; what finished was written" : "");
		break;
	default:
		ui_msg(ui, UI_LOG_ERROR, "sampling failed: %s", e->msg);
		break;
	}
	ui_dirty(ui, UI_DIRTY_ALL);
}

/* The pipeline's warnings not logged yet. */
static void
log_new_warnings(struct ui *ui, struct sample_state *s)
{
	size_t k;

	for (k = s->nwarn_seen; k < het_sample_nwarnings(ui->ses.sample); k++)
		ui_log(ui, UI_LOG_WARN, "sampling: %s",
		    het_sample_warning(ui->ses.sample, k));
	s->nwarn_seen = het_sample_nwarnings(ui->ses.sample);
}

/*
 * At exit (a confirmed quit, SIGHUP, SIGTERM) a run still going is
 * cancelled and driven to its end, so the shards that finished are
 * combined and written (a run already combining or writing just
 * completes).  It blocks: for the workers' kill grace (2 s, then
 * SIGKILL) and the write in SAMPLING, for one bin or one NLSQ iteration
 * in READING and NLSQ.
 */
static void
sample_wind_down(struct ui *ui, void *state, char *msg, size_t len)
{
	struct sample_state *s = state;
	const char *const *files;
	enum het_sample_verdict v;

	msg[0] = '\0';
	if (!ui_sample_running(ui) || s->ended)
		return;
	ui_log(ui, UI_LOG_WARN, "quitting during sampling: stopping the "
	    "workers; what finished is combined and written");
	/* A no-op in COMBINING and WRITING: the run then completes. */
	het_sample_cancel(ui->ses.sample, het_clock_now());
	(void)het_sample_run(ui->ses.sample);	/* blocks until it ends */
	log_new_warnings(ui, s);
	run_ended(ui, s);
	files = het_sample_files(ui->ses.sample);
	v = het_sample_verdict(ui->ses.sample);
	if (v != HET_VERDICT_CANCELLED)
		snprintf(msg, len, "sampling ended at exit (%s); %s%s%s",
		    het_sample_verdict_name(v), files[0] != NULL ? "the "
		    "results were written to " : "nothing was written",
		    files[0] != NULL ? het_sample_out_dir(ui->ses.sample) : "",
		    files[0] != NULL ? "/" : "");
	else
		snprintf(msg, len, "sampling stopped at exit; %s%s%s",
		    files[0] != NULL ? "the finished shards were combined "
		    "and written to " : "no shard had finished, nothing was "
		    "written", files[0] != NULL ?
		    het_sample_out_dir(ui->ses.sample) : "",
		    files[0] != NULL ? "/" : "");
}

static void
sample_handle(struct ui *ui, void *state, const struct pollfd *fds,
    size_t n)
{
	struct sample_state *s = state;
	double now;

	if (!ui_sample_running(ui))
		return;
	het_sample_loop_handle(ui->ses.sample, fds, n, het_clock_now());
	log_new_warnings(ui, s);
	if (het_sample_finished(ui->ses.sample) && !s->ended) {
		run_ended(ui, s);
		return;
	}
	/* The clocks and the NLSQ progress move without events. */
	now = ui_now();
	if (now - s->last_tick >= SAMPLE_TICK) {
		s->last_tick = now;
		if (ui->panels[ui->view.cur] == &ui_panel_sample)
			ui_dirty(ui, UI_DIRTY_BODY);
		ui_dirty(ui, UI_DIRTY_TABS);
	}
}

/* ---- the pipeline's callback ---------------------------------------- */

static void
on_shard(struct ui *ui, struct sample_state *s, size_t k)
{
	const struct het_cmc_shard *sh = het_sample_shard(ui->ses.sample, k);
	struct sample_seen *sn;
	struct het_error err;
	size_t n = het_sample_nshards(ui->ses.sample);

	if (sh == NULL)
		return;
	if (s->nseen < n) {
		s->seen = realloc(s->seen, n * sizeof(*s->seen));
		if (s->seen == NULL)
			ui_fatal("out of memory for the shard table");
		memset(s->seen + s->nseen, 0, (n - s->nseen) *
		    sizeof(*s->seen));
		s->nseen = n;
	}
	sn = &s->seen[k];
	if (sn->state != (int)sh->state + 1 || sn->attempts != sh->attempts) {
		switch (sh->state) {
		case HET_CMC_RUNNING:
			ui_log(ui, UI_LOG_INFO, "shard %ld (%zu pairs) "
			    "running on pid %ld%s", sh->id, sh->npairs,
			    (long)sh->pid, sh->attempts > 1 ? " (retry)" : "");
			break;
		case HET_CMC_RETRYING:
			ui_log(ui, UI_LOG_WARN, "shard %ld failed, retrying "
			    "on a fresh worker: %s", sh->id, sh->nreasons > 0 ?
			    sh->reason[sh->nreasons - 1] : "no reason given");
			break;
		case HET_CMC_FAILED:
			ui_log(ui, UI_LOG_ERROR, "shard %ld failed after %d "
			    "attempt%s: %s%s%s", sh->id, sh->attempts,
			    sh->attempts == 1 ? "" : "s", sh->nreasons > 0 ?
			    sh->reason[0] : "no reason given",
			    sh->nreasons > 1 ? "; then: " : "",
			    sh->nreasons > 1 ? sh->reason[1] : "");
			break;
		case HET_CMC_DONE:
			het_error_clear(&err);
			if (het_sample_view_shard_diag(ui->ses.sample, k,
			    &sn->diag, &err) == HET_OK) {
				sn->have_diag = 1;
				ui_log(ui, UI_LOG_INFO, "shard %ld done in "
				    "%.1f s: max R-hat %.4g, min ESS %.0f, "
				    "%ld divergences", sh->id, sh->elapsed,
				    sn->diag.max_rhat, sn->diag.min_ess,
				    sn->diag.divergences);
			} else
				ui_log(ui, UI_LOG_WARN, "shard %ld done; %s",
				    sh->id, err.msg);
			break;
		case HET_CMC_CANCELLED:
			ui_log(ui, UI_LOG_INFO, "shard %ld cancelled", sh->id);
			break;
		default:
			break;
		}
		sn->state = (int)sh->state + 1;
		sn->attempts = sh->attempts;
	}
	if (ui->panels[ui->view.cur] == &ui_panel_sample)
		ui_dirty(ui, UI_DIRTY_BODY);
}

static void
on_change(struct het_sample *hs, enum het_sample_what what, size_t index,
    void *arg)
{
	struct ui *ui = arg;
	struct sample_state *s = sample_state_of(ui);
	const struct het_problem *pb;
	const struct het_sample_nlsq *nl;
	enum het_sample_phase ph = het_sample_phase(hs);

	if (s == NULL || hs != ui->ses.sample)
		return;
	if (what == HET_SAMPLE_CHANGED_SHARD) {
		on_shard(ui, s, index);
		return;
	}
	if (what == HET_SAMPLE_CHANGED_WARNING) {
		/* A shard on course to pass its timeout: say it now (the
		 * status line and the Log; not logged again later). */
		ui_msg(ui, UI_LOG_WARN, "sampling: %s", het_sample_warning(hs,
		    index));
		if (s->nwarn_seen == index)
			s->nwarn_seen = index + 1;
		return;
	}
	switch (ph) {
	case HET_SAMPLE_NLSQ:
		if ((pb = het_sample_problem(hs)) != NULL)
			ui_log(ui, UI_LOG_INFO, "sampling: %s, %zu angle%s, "
			    "%zu pairs; NLSQ fit first",
			    het_mode_name(pb->spec.mode), pb->nangles,
			    pb->nangles == 1 ? "" : "s", pb->npairs);
		break;
	case HET_SAMPLE_PREPARING:
		if ((nl = het_sample_nlsq(hs)) != NULL)
			ui_log(ui, UI_LOG_INFO, "sampling: NLSQ %s, chi2_red "
			    "%.4g; preparing the shards", nl->converged ?
			    "converged" : "did not converge", nl->chi2_red);
		break;
	case HET_SAMPLE_SAMPLING:
		if (s->workers > 0)
			ui_log(ui, UI_LOG_INFO, "sampling %zu shards on up to "
			    "%ld worker%s", het_sample_nshards(hs), s->workers,
			    s->workers == 1 ? "" : "s");
		else
			ui_log(ui, UI_LOG_INFO, "sampling %zu shards, one "
			    "worker per core", het_sample_nshards(hs));
		break;
	case HET_SAMPLE_COMBINING:
		ui_log(ui, UI_LOG_INFO, "sampling: combining the shards");
		break;
	case HET_SAMPLE_WRITING:
		ui_log(ui, UI_LOG_INFO, "sampling: writing the results");
		break;
	default:
		break;
	}
	ui_dirty(ui, UI_DIRTY_ALL);
}

/* ---- starting a run -------------------------------------------------- */

static void
run_start(struct ui *ui, struct sample_state *s)
{
	struct het_sample_opts o;
	struct het_config *cfg;
	struct het_error err;
	const char *wp;
	char note[512];
	long ncpu;
	int rc;

	if (ui_sample_running(ui)) {
		ui_msg(ui, UI_LOG_WARN, "sampling is running: c cancels it");
		return;
	}
	if ((cfg = ui_config_for_selection(ui, "sampling")) == NULL)
		return;
	run_clear(ui, s);
	het_error_clear(&err);
	note[0] = '\0';
	if ((s->outdir = het_fitjob_default_outdir(cfg, ui->ses.meta->path,
	    "sample", &s->outdir_made, note, sizeof(note), &err)) == NULL) {
		het_config_free(cfg);
		ui_msg(ui, UI_LOG_ERROR, "sampling not started: %s", err.msg);
		return;
	}
	ui_log(ui, UI_LOG_INFO, "sampling: results go to %s/%s%s%s",
	    s->outdir, note[0] != '\0' ? " (" : "", note,
	    note[0] != '\0' ? ")" : "");
	memset(&o, 0, sizeof(o));
	o.cfg = cfg;
	o.data_path = ui->ses.meta->path;
	o.out_dir = s->outdir;
	/* auto: one per core, within the poll set's bound */
	ncpu = het_pool_ncpu();
	o.workers = s->workers > 0 ? s->workers : ncpu < 1 ? 1 :
	    ncpu > SAMPLE_MAX_WORKERS ? SAMPLE_MAX_WORKERS : ncpu;
	wp = getenv("HETUI_WORKER");
	o.worker_path = wp != NULL && *wp != '\0' ? wp : NULL;
	/* worker stderr goes to OUT/worker-logs, never the tty */
	o.worker_logs = 1;
	/* a checkpoint left by a killed run is replaced, with a warning
	   (the CLI refuses: hetui sample --resume continues it) */
	o.replace_checkpoint = 1;
	o.on_change = on_change;
	o.arg = ui;
	s->chains = cfg->cmc.num_chains;
	s->total = cfg->cmc.num_warmup + cfg->cmc.num_samples;
	ui->ses.sample = het_sample_alloc(&o, &err);
	het_config_free(cfg);
	if (ui->ses.sample == NULL) {
		ui_msg(ui, UI_LOG_ERROR, "sampling not started: %s", err.msg);
		return;
	}
	s->file = ui_xstrdup(ui->ses.meta->path);
	s->t0 = ui_now();
	s->last_tick = s->t0;
	s->show_settings = 0;
	if ((rc = het_sample_start(ui->ses.sample, &err)) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "sampling not started: %s", err.msg);
		run_clear(ui, s);
		return;
	}
	ui_msg(ui, UI_LOG_INFO, "sampling started: %s, %s, ring %zu, %zu "
	    "angle%s, frames %ld-%ld; NLSQ first", het_mode_name(
	    ui->ses.cfg->mode), ui->ses.meta->path, ui->ses.sel.ring + 1,
	    ui_model_ring_selected(ui, ui->ses.sel.ring),
	    ui_model_ring_selected(ui, ui->ses.sel.ring) == 1 ? "" : "s",
	    ui->ses.sel.first, ui->ses.sel.last);
	ui_dirty(ui, UI_DIRTY_ALL);
}

static void
run_cancel(struct ui *ui, struct sample_state *s)
{
	if (!ui_sample_running(ui)) {
		ui_msg(ui, UI_LOG_INFO, "no sampling is running");
		return;
	}
	het_sample_cancel(ui->ses.sample, het_clock_now());
	s->cancelling = 1;
	ui_msg(ui, UI_LOG_WARN, "cancelling the sampling: workers are "
	    "stopped; what finished is combined and written");
	ui_dirty(ui, UI_DIRTY_ALL);
}

/* ---- the selected shard's result ------------------------------------- */

const struct het_shard_result *
sample_shard_result(struct ui *ui, struct sample_state *s, size_t k)
{
	const struct het_shard_result *r;
	const struct het_cmc_shard *sh;
	struct het_error err;
	long id;

	if (ui->ses.sample == NULL)
		return NULL;
	if ((r = het_sample_view_shard(ui->ses.sample, k)) != NULL)
		return r;
	if (s->dec_index == (long)k)
		return s->dec_failed ? NULL : &s->dec;
	sh = het_sample_shard(ui->ses.sample, k);
	if (sh == NULL || sh->state != HET_CMC_DONE || sh->result == NULL)
		return NULL;
	dec_clear(s);
	s->dec_index = (long)k;
	het_error_clear(&err);
	if (het_wire_result_unpack(sh->result, &id, &s->dec, &err) !=
	    HET_OK) {
		s->dec_failed = 1;
		snprintf(s->dec_err, sizeof(s->dec_err), "%s", err.msg);
		ui_log(ui, UI_LOG_WARN, "shard %ld: %s", sh->id, err.msg);
		return NULL;
	}
	return &s->dec;
}

/* ---- keys and the panel table ---------------------------------------- */

/* The settings are shown (no run, or s during one). */
static int
settings_shown(const struct ui *ui, const struct sample_state *s)
{
	return ui->ses.sample == NULL || s->show_settings;
}

static int
settings_key(struct ui *ui, struct sample_state *s, int key)
{
	switch (key) {
	case UI_K_UP:
	case 'k':
		s->srow = s->srow > 0 ? s->srow - 1 : 0;
		break;
	case UI_K_DOWN:
	case 'j':
		s->srow = s->srow + 1 < SS_COUNT ? s->srow + 1 : s->srow;
		break;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		sample_set_edit(ui, s);
		break;
	case ' ':
		if (s->srow == SS_STRATEGY || s->srow == SS_COMBINE)
			sample_set_cycle(ui, s, s->srow);
		else
			return 0;
		break;
	default:
		return 0;
	}
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

static void
shard_move(struct sample_state *s, long delta, size_t n)
{
	long c = (long)s->cur + delta;

	if (c >= (long)n)
		c = (long)n - 1;
	if (c < 0)
		c = 0;
	if ((size_t)c != s->cur)
		s->ptop = 0;
	s->cur = (size_t)c;
}

static int
run_key(struct ui *ui, struct sample_state *s, int key)
{
	size_t n = het_sample_nshards(ui->ses.sample);

	switch (key) {
	case UI_K_UP:
	case 'k':
		if (s->zoom)
			s->ptop = s->ptop > 0 ? s->ptop - 1 : 0;
		else
			shard_move(s, -1, n);
		break;
	case UI_K_DOWN:
	case 'j':
		if (s->zoom)
			s->ptop++;	/* clamped when drawn */
		else
			shard_move(s, 1, n);
		break;
	case UI_K_PGUP:
		shard_move(s, -sp_table_rows(s), n);
		break;
	case UI_K_PGDN:
		shard_move(s, sp_table_rows(s), n);
		break;
	case UI_K_HOME:
		shard_move(s, -(long)n, n);
		break;
	case UI_K_END:
		shard_move(s, (long)n, n);
		break;
	case '\r':
	case '\n':
	case UI_K_ENTER:
		if (n == 0) {
			ui_msg(ui, UI_LOG_INFO, "no shards yet: they are made "
			    "after the NLSQ fit");
			return 1;
		}
		s->zoom = !s->zoom;
		s->ptop = 0;
		break;
	case UI_K_ESC:
		if (!s->zoom)
			return 0;
		s->zoom = 0;
		break;
	default:
		return 0;
	}
	ui_dirty(ui, UI_DIRTY_BODY);
	return 1;
}

static int
sample_key(struct ui *ui, void *state, int key)
{
	struct sample_state *s = state;

	switch (key) {
	case 'r':
		run_start(ui, s);
		return 1;
	case 'c':
		run_cancel(ui, s);
		return 1;
	case 's':
		if (ui->ses.sample == NULL) {
			ui_msg(ui, UI_LOG_INFO, "the settings are shown: no "
			    "run yet");
			return 1;
		}
		s->show_settings = !s->show_settings;
		ui_dirty(ui, UI_DIRTY_BODY);
		return 1;
	}
	if (settings_shown(ui, s))
		return settings_key(ui, s, key);
	return run_key(ui, s, key);
}

const struct ui_panel_ops ui_panel_sample = {
	.name = "Sampling",
	.hints = sample_hints,
	.help = sample_help,
	.init = sample_init,
	.free = sample_free,
	.draw = sp_draw,
	.key = sample_key,
	.resize = sample_resize,
	.max_fds = UI_SAMPLE_MAX_FDS,
	.pollfds = sample_pollfds,
	.deadline = sample_deadline,
	.handle = sample_handle,
	.busy = sample_busy,
	.wind_down = sample_wind_down,
};
