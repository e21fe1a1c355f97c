/*
 * cmd_sample.c: `hetui sample`, Consensus Monte Carlo from the command
 * line: NLSQ (or a previous result), then the shards on hetui-worker
 * processes, the consensus posterior, the gates and the results files.
 *
 * Flow: config -> het_sample (src/engine/sample/het_sample.h) driven by
 * het_sample_run, whose callbacks print progress on stderr: a compact
 * table redrawn in place on a terminal (counts, then one line per running
 * shard), otherwise one line per shard event plus, every --progress
 * seconds, the counts and a line per running shard -> a summary table (or
 * --json) on stdout.  SIGINT, SIGTERM (a batch system's time limit, a
 * kill) and SIGHUP (the SSH session dropped) ask the pipeline to cancel:
 * workers are killed and reaped, what finished is combined and written,
 * and the command exits 128 + the signal (130, 143, 129); repeats and
 * nohup as in cli_cancel.c.  Hours of finished shards are not lost to a
 * hang-up.
 * Exit statuses: 0 gates passed, 4 gates failed, 5 shards failed, 130
 * (129, 143) interrupted, 1 error, 2 usage error.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_sample.h"
#include "het_config.h"
#include "het_pool.h"
#include "het_proc.h"
#include "het_results.h"
#include "het_sample.h"
#include "het_sample_view.h"
#include "het_util.h"

#define SAMPLE_EXIT_CANCELLED	130	/* 128 + SIGINT */
#define SAMPLE_TTY_ROWS		8	/* running shards shown */

struct sample_opts {
	const char	*config;
	const char	*file;
	const char	*out;
	const char	*nlsq;
	const char	*resume;	/* --resume DIR */
	const char	*wcmd;
	int		 json;
	int		 force;		/* --force: -o DIR may hold results */
	long		 workers;
	int		 seed_set;
	unsigned long	 seed;
	double		 every;		/* --progress seconds; < 0: unset */
};

#define SAMPLE_LIVE_WARN	8	/* printed at once; the rest at the end */

/* Progress state (loop thread, except the NLSQ callback). */
struct sample_ui {
	const struct cli_cmd	*cmd;
	int			 tty;
	int			 drawn;		/* lines of the last table */
	double			 last_draw;
	unsigned char		*seen;		/* per shard: last state + 1 */
	int			*seen_att;
	size_t			 nseen;
	long			 total;		/* iterations per chain */
	double			 t_sampling;	/* het_clock_now() when the
						   shards started; 0 before */
	long			 workers;	/* at most this many run */
	size_t			 rows;		/* running-shard lines */
	int			 nlsq_line;	/* a \r NLSQ line is open (set
						   on the NLSQ thread, read
						   after it ended) */
	const char		*nlsq_dir;
	size_t			 live[SAMPLE_LIVE_WARN]; /* warnings printed
						   during sampling */
	size_t			 nlive;
	double			 every;		/* status lines off a terminal,
						   seconds apart; 0: none */
	double			 last_status;
};

/* A cancelling signal's action (cli_cancel.c). */
static void
sample_sigint(void *arg)
{
	het_sample_cancel_async(arg);
}

/* What to add to "interrupted": nothing for Ctrl-C, the others named. */
static const char *
sample_signame(int sig)
{
	return sig == SIGTERM ? " (SIGTERM)" : sig == SIGHUP ? " (SIGHUP)" :
	    "";
}

static int
sample_parse(const struct cli_cmd *cmd, int argc, char **argv,
    struct sample_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "workers", required_argument, NULL, 'w' },
		{ "nlsq-result", required_argument, NULL, 'n' },
		{ "resume", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "worker-command", required_argument, NULL, 'W' },
		{ "progress", required_argument, NULL, 'P' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct het_error err;
	long v;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->every = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:o:h", longopts, NULL)) != -1) {
		rc = HET_OK;
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'o':
			if (optarg[0] == '\0')
				return cli_usage_error(cmd, "--output is empty; "
				    "name a folder");
			o->out = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'F':
			o->force = 1;
			break;
		case 'w':
			rc = het_parse_long(optarg, "--workers", 1, 4096,
			    &o->workers, &err);
			break;
		case 'n':
		case 'R':
			if (optarg[0] == '\0')
				return cli_usage_error(cmd, "%s is empty; name a "
				    "folder", c == 'n' ? "--nlsq-result" :
				    "--resume");
			*(c == 'n' ? &o->nlsq : &o->resume) = optarg;
			break;
		case 'S':
			rc = het_parse_long(optarg, "--seed", 0, 4294967295L,
			    &v, &err);
			o->seed = (unsigned long)v;
			o->seed_set = 1;
			break;
		case 'P':
			rc = het_parse_double(optarg, "--progress", &o->every,
			    &err);
			if (rc == HET_OK && (o->every < 0 || o->every > 86400))
				return cli_usage_error(cmd, "--progress %s: give "
				    "the seconds between status lines, 0 to "
				    "86400 (0: only shard events)", optarg);
			break;
		case 'W':
			if (strspn(optarg, " \t") == strlen(optarg))
				return cli_usage_error(cmd, "--worker-command "
				    "is empty; give a program such as "
				    "'hetui-worker' or 'ssh HOST hetui-worker'");
			o->wcmd = optarg;
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
		o->file = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
		    argv[optind]);
	if (o->config == NULL)
		return cli_usage_error(cmd, "a config is required (-c CONFIG); "
		    "'hetui config --template MODE' prints one");
	return CLI_EXIT_OK;
}

/* ---- progress ------------------------------------------------------------ */

static void
sample_nlsq_progress(void *ctx, const struct het_fit_progress *pr)
{
	struct sample_ui *ui = ctx;

	if (ui->tty) {
		fprintf(stderr, "\rNLSQ iter %ld  cost %.4e  chi2_red %.4g   ",
		    pr->iter, pr->cost, pr->chi2_red);
		ui->nlsq_line = 1;
	}
	else
		fprintf(stderr, "NLSQ iter %ld  cost %.4e  chi2_red %.4g\n",
		    pr->iter, pr->cost, pr->chi2_red);
}

static void
sample_shard_line(const struct het_cmc_shard *sh, long total)
{
	const struct het_wire_progress *p = &sh->progress;

	fprintf(stderr, "shard %-4ld %7zu pairs  %-9s", sh->id, sh->npairs,
	    het_cmc_state_name(sh->state));
	if (sh->state == HET_CMC_RUNNING && sh->has_progress && p->at_once)
		fprintf(stderr, " %-8s chains at once  %.0f%% done  eps %.3g  "
		    "acc %.2f  div %ld", p->phase, 100 * p->done, p->step_size,
		    p->accept, p->divergences);
	else if (sh->state == HET_CMC_RUNNING && sh->has_progress)
		fprintf(stderr, " %-8s chain %ld  it %ld/%ld  eps %.3g  acc "
		    "%.2f  div %ld", p->phase, p->chain + 1, p->iteration,
		    total, p->step_size, p->accept, p->divergences);
	else if (sh->state == HET_CMC_DONE && sh->reused &&
	    isfinite(sh->elapsed))
		fprintf(stderr, " reused (%.1f s in the earlier run)",
		    sh->elapsed);
	else if (sh->state == HET_CMC_DONE && sh->reused)
		fprintf(stderr, " reused");
	else if (sh->state == HET_CMC_DONE)
		fprintf(stderr, " %.1f s", sh->elapsed);
	else if (sh->nreasons > 0)
		fprintf(stderr, " %s", sh->reason[sh->nreasons - 1]);
	fputc('\n', stderr);
}

/* Shards taken from the run being resumed. */
size_t
cli_sample_nreused(struct het_sample *s)
{
	size_t k, n = het_sample_nshards(s), nre = 0;

	for (k = 0; k < n; k++)
		nre += het_sample_shard(s, k)->reused != 0;
	return nre;
}

/* "sampling 8 shards", and how many an earlier run had finished. */
static void
sample_announce(struct het_sample *s)
{
	size_t k, n = het_sample_nshards(s), nre = cli_sample_nreused(s);

	if (het_sample_chain_threads(s) > 1)
		fprintf(stderr, "the chains of a shard run %ld at a time "
		    "(chain_method parallel)\n", het_sample_chain_threads(s));
	if (nre == 0) {
		fprintf(stderr, "sampling %zu shard%s\n", n, n == 1 ? "" : "s");
		return;
	}
	if (nre == n && n == 1)
		fprintf(stderr, "nothing to sample: the one shard is reused "
		    "from the earlier run\n");
	else if (nre == n)
		fprintf(stderr, "nothing to sample: all %zu shards reused from "
		    "the earlier run\n", n);
	else
		fprintf(stderr, "sampling %zu of %zu shards (%zu reused from "
		    "the earlier run)\n", n - nre, n, nre);
	for (k = 0; k < n; k++)
		if (het_sample_shard(s, k)->reused)
			sample_shard_line(het_sample_shard(s, k), 0);
}

/*
 * ", 12% of the work, about 2.3 h left" into buf (het_sample_view_eta),
 * or "" while the estimate means nothing.
 */
static void
sample_eta(struct het_sample *s, double now, char *buf, size_t len)
{
	double w, left;
	char t[32];

	buf[0] = '\0';
	if (het_sample_view_eta(s, now, &w, &left))
		snprintf(buf, len, ", %.0f%% of the work, about %s left",
		    100 * w, het_format_duration(left, t, sizeof t));
}

/*
 * Redraw the compact table on a terminal: a line of counts, then one line
 * per running shard (at most rows, which never changes during a run).
 */
static void
sample_draw(struct het_sample *s, struct sample_ui *ui, int force)
{
	const struct het_cmc *c = het_sample_coordinator(s);
	double now = het_clock_now();
	size_t k, n, shown = 0;
	char eta[96];

	if (c == NULL || (!force && now - ui->last_draw < 0.2))
		return;
	ui->last_draw = now;
	n = het_cmc_nshards(c);
	if (ui->rows == 0)
		ui->rows = n < (size_t)ui->workers ? n : (size_t)ui->workers;
	if (ui->rows > SAMPLE_TTY_ROWS)
		ui->rows = SAMPLE_TTY_ROWS;
	if (ui->drawn > 0)
		fprintf(stderr, "\033[%dA", ui->drawn);
	sample_eta(s, now, eta, sizeof eta);
	fprintf(stderr, "\033[Kshards %zu: %zu done, %zu running, %zu queued, "
	    "%zu retrying, %zu failed, %zu cancelled%s\n", n,
	    het_cmc_count(c, HET_CMC_DONE), het_cmc_count(c, HET_CMC_RUNNING),
	    het_cmc_count(c, HET_CMC_QUEUED),
	    het_cmc_count(c, HET_CMC_RETRYING),
	    het_cmc_count(c, HET_CMC_FAILED),
	    het_cmc_count(c, HET_CMC_CANCELLED), eta);
	for (k = 0; k < n && shown < ui->rows; k++) {
		const struct het_cmc_shard *sh = het_cmc_shard(c, k);

		if (sh->state != HET_CMC_RUNNING)
			continue;
		fputs("\033[K  ", stderr);
		sample_shard_line(sh, ui->total);
		shown++;
	}
	for (; shown < ui->rows; shown++)
		fputs("\033[K\n", stderr);
	ui->drawn = 1 + (int)ui->rows;
	fflush(stderr);
}

/*
 * Off a terminal, at the first shard event and then every ui->every
 * seconds at the next event: a line of counts and one line
 * per running shard with its chain, phase and iteration, so that a log
 * file of a long run shows where it stands between shard events.
 */
static void
sample_status(struct het_sample *s, struct sample_ui *ui)
{
	const struct het_cmc *c = het_sample_coordinator(s);
	double now = het_clock_now();
	size_t k, n;
	char eta[96];

	if (c == NULL || ui->every <= 0 ||
	    (ui->last_status > 0 && now - ui->last_status < ui->every))
		return;
	ui->last_status = now;
	n = het_cmc_nshards(c);
	sample_eta(s, now, eta, sizeof eta);
	fprintf(stderr, "status at %.0f s: %zu shards: %zu done, %zu running, "
	    "%zu queued, %zu retrying, %zu failed%s\n", now - ui->t_sampling,
	    n, het_cmc_count(c, HET_CMC_DONE), het_cmc_count(c, HET_CMC_RUNNING),
	    het_cmc_count(c, HET_CMC_QUEUED),
	    het_cmc_count(c, HET_CMC_RETRYING),
	    het_cmc_count(c, HET_CMC_FAILED), eta);
	for (k = 0; k < n; k++) {
		const struct het_cmc_shard *sh = het_cmc_shard(c, k);

		if (sh->state != HET_CMC_RUNNING)
			continue;
		fputs("  ", stderr);
		sample_shard_line(sh, ui->total);
	}
}

/*
 * A warning the run raises while the shards run (a shard on course to
 * pass its timeout) is printed at once, above the table on a terminal.
 */
static void
sample_live_warning(struct het_sample *s, struct sample_ui *ui,
    size_t index)
{
	if (ui->nlive >= SAMPLE_LIVE_WARN)
		return;		/* printed with the others at the end */
	ui->live[ui->nlive++] = index;
	if (ui->tty && ui->drawn > 0)
		fprintf(stderr, "\033[%dA\033[J", ui->drawn);
	cli_warn(ui->cmd, "%s", het_sample_warning(s, index));
	if (ui->tty) {
		ui->drawn = 0;
		sample_draw(s, ui, 1);
	}
}

static int
sample_printed_live(const struct sample_ui *ui, size_t index)
{
	size_t k;

	for (k = 0; k < ui->nlive; k++)
		if (ui->live[k] == index)
			return 1;
	return 0;
}

static void
sample_change(struct het_sample *s, enum het_sample_what what, size_t index,
    void *arg)
{
	struct sample_ui *ui = arg;
	const struct het_cmc_shard *sh;
	const struct het_problem *pb;
	unsigned char *v;
	int *a;

	if (what == HET_SAMPLE_CHANGED_WARNING) {
		sample_live_warning(s, ui, index);
		return;
	}
	if (what == HET_SAMPLE_CHANGED_PHASE) {
		if (ui->nlsq_line && het_sample_phase(s) > HET_SAMPLE_NLSQ) {
			fputc('\n', stderr);
			ui->nlsq_line = 0;
		}
		switch (het_sample_phase(s)) {
		case HET_SAMPLE_NLSQ:
			pb = het_sample_problem(s);
			fprintf(stderr, "%s, %zu angle%s, %zu pairs; %s%s\n",
			    het_mode_name(pb->spec.mode), pb->nangles,
			    pb->nangles == 1 ? "" : "s", pb->npairs,
			    ui->nlsq_dir != NULL ? "NLSQ result from " :
			    "NLSQ fit", ui->nlsq_dir != NULL ? ui->nlsq_dir :
			    "");
			break;
		case HET_SAMPLE_SAMPLING:
			ui->t_sampling = het_clock_now();	/* status time */
			sample_announce(s);
			break;
		case HET_SAMPLE_COMBINING:
			if (ui->tty)
				sample_draw(s, ui, 1);
			ui->drawn = 0;
			fprintf(stderr, "combining\n");
			break;
		default:
			break;
		}
		return;
	}
	if (ui->tty) {
		sample_draw(s, ui, 0);
		return;
	}
	if (index >= ui->nseen) {
		v = realloc(ui->seen, index + 1);
		a = realloc(ui->seen_att, (index + 1) * sizeof(int));
		if (v == NULL || a == NULL) {
			free(v != ui->seen ? v : NULL);
			return;
		}
		memset(v + ui->nseen, 0, index + 1 - ui->nseen);
		memset(a + ui->nseen, 0, (index + 1 - ui->nseen) * sizeof(int));
		ui->seen = v;
		ui->seen_att = a;
		ui->nseen = index + 1;
	}
	sh = het_sample_shard(s, index);
	if (sh != NULL && (ui->seen[index] != (unsigned char)sh->state + 1 ||
	    ui->seen_att[index] != sh->attempts)) {
		ui->seen[index] = (unsigned char)sh->state + 1;
		ui->seen_att[index] = sh->attempts;
		sample_shard_line(sh, ui->total);
	}
	sample_status(s, ui);
}

/* ---- the command --------------------------------------------------------- */

/*
 * After an error: where the run's finished shards are (its checkpoint,
 * or the results file when that much was written) and how to go on.
 */
static void
sample_kept(const struct cli_cmd *cmd, const struct het_sample *s)
{
	size_t n = het_sample_checkpoint_shards(s);
	struct het_error err;
	char *f;

	if (n == 0 || (f = het_results_resume_path(het_sample_out_dir(s),
	    &err)) == NULL)
		return;
	if (access(f, F_OK) == 0)
		fprintf(stderr, "hetui %s: the %zu finished shard%s %s kept "
		    "in %s: once the cause is fixed, 'hetui sample -c CONFIG "
		    "--resume %s' continues from them\n", cmd->name, n,
		    n == 1 ? "" : "s", n == 1 ? "is" : "are", f,
		    het_sample_out_dir(s));
	free(f);
}

static int
sample_exit(const struct cli_cmd *cmd, struct het_sample *s,
    enum het_sample_verdict v, int sig)
{
	const struct het_error *e = het_sample_error(s);
	int rc;

	switch (v) {
	case HET_VERDICT_PASSED:
		return CLI_EXIT_OK;
	case HET_VERDICT_GATES_FAILED:
		fprintf(stderr, "hetui %s: the convergence gates failed; "
		    "results were written to %s/\n", cmd->name,
		    het_sample_out_dir(s));
		return CLI_EXIT_GATES_FAILED;
	case HET_VERDICT_SHARDS_FAILED:
		fprintf(stderr, "hetui %s: %s\n", cmd->name, e->msg);
		if (het_sample_summary(s) != NULL)
			fprintf(stderr, "hetui %s: the finished shards were "
			    "combined and written to %s/\n", cmd->name,
			    het_sample_out_dir(s));
		else
			fprintf(stderr, "hetui %s: no shard finished; nothing "
			    "was written\n", cmd->name);
		return CLI_EXIT_SHARDS_FAILED;
	case HET_VERDICT_CANCELLED:
		fprintf(stderr, "hetui %s: interrupted%s; %s\n", cmd->name,
		    sample_signame(sig), het_sample_summary(s) != NULL ?
		    "the finished shards were combined and written" :
		    "nothing was written");
		return cli_cancel_status(sig, SAMPLE_EXIT_CANCELLED);
	default:
		rc = cli_report(cmd, e);
		sample_kept(cmd, s);
		return rc;
	}
}

static int
sample_main(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct sigaction sa, old_pipe;
	struct het_sample_opts so;
	struct het_config *cfg;
	struct het_sample *s;
	struct het_error err;
	struct sample_opts o;
	struct sample_ui ui;
	enum het_sample_verdict v;
	char **wargv = NULL, *out = NULL;
	size_t w;
	int rc, sig, made = 0;

	rc = sample_parse(cmd, argc, argv, &o);
	if (rc != CLI_EXIT_OK)
		return rc < 0 ? CLI_EXIT_OK : rc;
	het_error_clear(&err);
	if (o.wcmd != NULL && (wargv = het_cmc_split_command(o.wcmd, &err)) ==
	    NULL)
		return cli_usage_error(cmd, "--worker-command: %s", err.msg);
	if ((cfg = het_config_load(o.config, &err)) == NULL) {
		free(wargv);
		return cli_report(cmd, &err);
	}
	cli_config_warnings(cmd, o.config, cfg);
	/* --resume alone writes into its folder; else a folder per run. */
	if ((o.resume == NULL || o.out != NULL) && (o.resume == NULL ||
	    strcmp(o.out, o.resume) != 0) && (out = cli_run_dir(cmd, cfg,
	    o.out, o.file, "sample", o.force, &made, &rc)) == NULL) {
		free(wargv);
		het_config_free(cfg);
		return rc;
	}
	memset(&ui, 0, sizeof(ui));
	ui.cmd = cmd;
	ui.tty = isatty(STDERR_FILENO);
	ui.every = ui.tty ? 0 : o.every >= 0 ? o.every : 60;
	ui.total = cfg->cmc.num_warmup + cfg->cmc.num_samples;
	ui.nlsq_dir = o.nlsq != NULL ? o.nlsq : o.resume;
	ui.workers = o.workers > 0 ? o.workers : het_pool_ncpu();
	if (ui.workers < 1)
		ui.workers = 1;
	memset(&so, 0, sizeof(so));
	so.cfg = cfg;
	so.data_path = o.file;
	so.out_dir = out != NULL ? out : o.out;
	so.nlsq_dir = o.nlsq;
	so.resume_dir = o.resume;
	so.workers = o.workers;
	so.seed_set = o.seed_set;
	so.seed = o.seed;
	so.worker_argv = wargv;
	so.worker_logs = 1;	/* stderr of the workers: OUT/worker-logs */
	so.worker_path = getenv("HETUI_WORKER");
	if (so.worker_path != NULL && so.worker_path[0] == '\0')
		so.worker_path = NULL;
	so.on_change = sample_change;
	so.arg = &ui;
	so.nlsq_progress = sample_nlsq_progress;
	so.progress_arg = &ui;
	het_pool_blas_single_threaded();
	s = het_sample_alloc(&so, &err);
	free(wargv);
	het_config_free(cfg);
	if (s == NULL) {
		rc = cli_report(cmd, &err);
		goto done;
	}
	if ((rc = cli_check_output(cmd, het_sample_out_dir(s))) !=
	    CLI_EXIT_OK) {
		het_sample_free(s);
		goto done;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &old_pipe);
	cli_cancel_begin(sample_sigint, s);
	fprintf(stderr, "reading data\n");
	v = het_sample_run(s);
	sig = cli_cancel_end();
	for (w = 0; w < het_sample_nwarnings(s); w++)
		if (!sample_printed_live(&ui, w))
			cli_warn(cmd, "%s", het_sample_warning(s, w));
	if (o.json)
		cli_sample_print_json(s, v);
	else
		cli_sample_print_table(s);
	fflush(stdout);
	rc = sample_exit(cmd, s, v, sig);
	het_sample_free(s);
	sigaction(SIGPIPE, &old_pipe, NULL);
done:
	/* A run that wrote nothing leaves no empty folder behind. */
	if (made)
		rmdir(out);
	free(out);
	free(ui.seen);
	free(ui.seen_att);
	return rc;
}

const struct cli_cmd cli_cmd_sample = {
	"sample",
	"sample the posterior with Consensus Monte Carlo (NUTS in workers)",
	"hetui sample -c CONFIG [FILE] [-o DIR [--force]] [--json] "
	    "[--workers N] "
	    "[--nlsq-result DIR] [--resume DIR] [--seed N] "
	    "[--worker-command CMD] [--progress SEC]",
	"Builds the fit problem as 'hetui fit' does, fits it with NLSQ (or\n"
	"reads a previous fit with --nlsq-result), deals the upper-triangle\n"
	"pairs into shards (optimization.cmc), samples every shard with NUTS\n"
	"in hetui-worker processes, combines the shard posteriors and checks\n"
	"the convergence gates.  Writes hetui_results.h5 (with a /cmc group),\n"
	"cmc_summary.json, cmc_diagnostics.json and, after a fit,\n"
	"nlsq_parameters.json and nlsq_metadata.json into a new run folder,\n"
	"OUTPUT_DIR/<file stem>/sample-<UTC time>/ (config: output_dir,\n"
	"create_subdirs, timestamp_dirs).  Progress per shard goes to\n"
	"stderr, a summary to stdout;\n"
	"each worker's stderr to DIR/worker-logs/worker-N.log (kept only\n"
	"when not empty).\n"
	"  -c, --config FILE      the analysis configuration (required)\n"
	"  -o, --output DIR       write into DIR itself instead of a run folder\n"
	"      --force            let -o DIR replace another run's results\n"
	"      --json             print a machine-readable summary instead\n"
	"      --workers N        worker processes at once (default: one per\n"
	"                         core)\n"
	"      --nlsq-result DIR  start from the NLSQ result in DIR\n"
	"                         (nlsq_parameters.json or hetui_results.h5)\n"
	"      --resume DIR       continue the run in DIR (one that was\n"
	"                         interrupted, killed or lost shards): reuse\n"
	"                         its finished shards whose inputs are\n"
	"                         unchanged (a killed run left them in\n"
	"                         DIR/hetui_checkpoint.h5), its NLSQ result,\n"
	"                         and write into DIR\n"
	"                         (unless -o or --nlsq-result say otherwise)\n"
	"      --seed N           base seed of sharding and chains\n"
	"                         (config: optimization.cmc seed, 42)\n"
	"      --worker-command CMD  run workers with CMD, split at blanks\n"
	"                         (e.g. 'ssh HOST hetui-worker'); default:\n"
	"                         cmc worker_command, $HETUI_WORKER, the\n"
	"                         installed hetui-worker (libexec, beside\n"
	"                         hetui, then PATH)\n"
	"      --progress SEC     when stderr is not a terminal, a status\n"
	"                         line per running shard every SEC seconds\n"
	"                         (default 60; 0: only shard events)\n"
	"Exit status: 0 gates passed, 4 gates failed (results written),\n"
	"5 shards failed (early abort or fewer than min_success_rate;\n"
	"finished shards are written), 130 interrupted by SIGINT (143\n"
	"SIGTERM, 129 SIGHUP; finished shards are written), 1 error,\n"
	"2 usage error.\n",
	sample_main
};
