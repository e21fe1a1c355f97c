/*
 * ui_p_sample_set.c: the settings of the Sampling panel: shards, chains,
 * warmup and samples per chain, strategy and combine method (keys of
 * optimization.cmc) and the number of worker processes (the panel's
 * own).
 *
 * Design: as in the Model panel, a configuration setting is changed on a
 * copy of ui->ses.cfg that must pass het_config_validate before it replaces
 * the configuration (ui_config_replace); a refused edit leaves it
 * untouched and shows the validator's sentence under its row and in the
 * status line.  A row's setting is named by its key in the schema table
 * (het_config_setting_*: formatted, parsed and cycled as the template
 * and the reader do them).  Numbers are edited in the status-line prompt
 * with the current text selected; strategy and combine cycle.  Loop
 * thread only.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_util.h"
#include "ui.h"
#include "ui_p_sample.h"

const struct sample_set_row sample_set_rows[SS_COUNT] = {
	[SS_SHARDS] = { "shards", "optimization.cmc.sharding.num_shards", 0,
	    NULL },
	[SS_CHAINS] = { "chains", "optimization.cmc.per_shard_mcmc."
	    "num_chains", 0, NULL },
	[SS_WARMUP] = { "warmup", "optimization.cmc.per_shard_mcmc."
	    "num_warmup", 0, "adaptation iterations per chain (not kept)" },
	[SS_SAMPLES] = { "samples", "optimization.cmc.per_shard_mcmc."
	    "num_samples", 0, "kept draws per chain" },
	[SS_WORKERS] = { "workers", NULL, 0, "worker processes at once "
	    "(auto: one per core)" },
	[SS_STRATEGY] = { "strategy", "optimization.cmc.sharding."
	    "sharding_strategy", 1, "how pairs are dealt into shards (Enter "
	    "cycles)" },
	[SS_COMBINE] = { "combine", "optimization.cmc.combination."
	    "combination_method", 1, "how shard posteriors are combined "
	    "(Enter cycles)" },
	[SS_RHAT] = { "max R-hat", "optimization.cmc.validation.max_r_hat",
	    0, "gate: split R-hat of every parameter below (> 1)" },
	[SS_ESS] = { "min ESS", "optimization.cmc.validation.min_ess", 0,
	    "gate: bulk ESS of every parameter above (> 0)" },
	[SS_DIV] = { "max div.", "optimization.cmc.validation."
	    "max_divergence_rate", 0, "gate: divergent transitions at most "
	    "this fraction" },
};

#define set_key(row)	(sample_set_rows[row].key)
#define set_name(row)	(sample_set_rows[row].label)

/* Install the edited copy c if it validates; else show why. */
static int
set_commit(struct ui *ui, struct sample_state *s, struct het_config *c,
    const char *what)
{
	struct het_error err;

	het_error_clear(&err);
	if (het_config_validate(c, &err) != HET_OK) {
		het_config_free(c);
		s->err_on = 1;
		s->err_row = s->edit_row;
		snprintf(s->err, sizeof(s->err), "refused: %s", err.msg);
		ui_msg(ui, UI_LOG_ERROR, "refused: %s", err.msg);
		return -1;
	}
	het_config_free(ui_config_replace(ui, c));
	s->err_on = 0;
	ui_msg(ui, UI_LOG_INFO, "%s", what);
	return 0;
}

static void
refuse(struct ui *ui, struct sample_state *s, const char *why)
{
	s->err_on = 1;
	s->err_row = s->edit_row;
	snprintf(s->err, sizeof(s->err), "refused: %s", why);
	ui_msg(ui, UI_LOG_ERROR, "refused: %s", why);
}

static void
edit_done(struct ui *ui, const char *text)
{
	struct sample_state *s = sample_state_of(ui);
	struct het_config *c;
	struct het_error err;
	char what[160];
	long v;

	if (s == NULL)
		return;
	ui_dirty(ui, UI_DIRTY_BODY);
	het_error_clear(&err);
	if (set_key(s->edit_row) == NULL) {	/* workers: the panel's */
		if (strcmp(text, "auto") == 0)
			v = 0;
		else if (het_parse_long(text, "workers", 1,
		    SAMPLE_MAX_WORKERS, &v, &err) != HET_OK) {
			refuse(ui, s, err.msg);
			return;
		}
		s->workers = v;
		s->err_on = 0;
		ui_msg(ui, UI_LOG_INFO, "sampling workers %s", text);
		return;
	}
	if ((c = het_config_dup(ui->ses.cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	if (het_config_setting_parse(c, set_key(s->edit_row), text, &err) !=
	    HET_OK) {
		het_config_free(c);
		refuse(ui, s, err.msg);
		return;
	}
	snprintf(what, sizeof(what), "sampling %s %s", set_name(s->edit_row),
	    text);
	set_commit(ui, s, c, what);
}

void
sample_set_cycle(struct ui *ui, struct sample_state *s, int row)
{
	struct het_config *c;
	struct het_error err;
	char what[160], val[64];

	het_error_clear(&err);
	if ((c = het_config_dup(ui->ses.cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	s->edit_row = row;
	if (het_config_setting_next(c, set_key(row), &err) != HET_OK ||
	    het_config_setting_format(c, set_key(row), val, sizeof(val),
	    &err) != HET_OK) {
		het_config_free(c);
		refuse(ui, s, err.msg);
		return;
	}
	snprintf(what, sizeof(what), "sampling %s %s", set_name(row), val);
	set_commit(ui, s, c, what);
}

void
sample_set_edit(struct ui *ui, struct sample_state *s)
{
	struct het_error err;
	char label[64], init[64];

	if (sample_set_rows[s->srow].cycles) {
		sample_set_cycle(ui, s, s->srow);
		return;
	}
	if (set_key(s->srow) == NULL) {
		if (s->workers == 0)
			snprintf(init, sizeof(init), "auto");
		else
			snprintf(init, sizeof(init), "%ld", s->workers);
	} else if (het_config_setting_format(ui->ses.cfg, set_key(s->srow),
	    init, sizeof(init), &err) != HET_OK)
		ui_fatal("%s", err.msg);
	snprintf(label, sizeof(label), "sampling %s:", set_name(s->srow));
	s->edit_row = s->srow;
	ui_prompt_open_sel(ui, label, init, edit_done);
}
