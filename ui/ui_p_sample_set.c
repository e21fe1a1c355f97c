/*
 * ui_p_sample_set.c: the settings of the Sampling panel: shards, chains,
 * warmup and samples per chain, strategy and combine method (keys of
 * optimization.cmc) and the number of worker processes (the panel's
 * own).
 *
 * Design: as in the Model panel, a configuration setting is changed on a
 * copy of ui->cfg that must pass het_config_validate before it replaces
 * the configuration (ui_config_replace); a refused edit leaves it
 * untouched and shows the validator's sentence under its row and in the
 * status line.  Numbers are edited in the status-line prompt with the
 * current text selected; strategy and combine cycle.  Loop thread only.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_util.h"
#include "ui.h"
#include "ui_p_sample.h"

static const char *const set_name[SS_COUNT] = { "shards", "chains",
    "warmup", "samples", "workers", "strategy", "combine" };

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
	long v, *slot;

	if (s == NULL)
		return;
	ui_dirty(ui, UI_DIRTY_BODY);
	het_error_clear(&err);
	if (s->edit_row == SS_WORKERS) {
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
	if ((c = het_config_dup(ui->cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	slot = s->edit_row == SS_SHARDS ? &c->cmc.num_shards : s->edit_row ==
	    SS_CHAINS ? &c->cmc.num_chains : s->edit_row == SS_WARMUP ?
	    &c->cmc.num_warmup : &c->cmc.num_samples;
	snprintf(what, sizeof(what), "optimization.cmc %s",
	    set_name[s->edit_row]);
	if (s->edit_row == SS_SHARDS && strcmp(text, "auto") == 0)
		v = 0;
	else if (het_parse_long(text, what, LONG_MIN, LONG_MAX, &v, &err) !=
	    HET_OK) {
		het_config_free(c);
		refuse(ui, s, err.msg);
		return;
	}
	*slot = v;
	snprintf(what, sizeof(what), "sampling %s %s", set_name[s->edit_row],
	    text);
	set_commit(ui, s, c, what);
}

void
sample_set_cycle(struct ui *ui, struct sample_state *s, int row)
{
	struct het_config *c;
	struct het_error err;
	char what[160];

	het_error_clear(&err);
	if ((c = het_config_dup(ui->cfg, &err)) == NULL)
		ui_fatal("%s", err.msg);
	s->edit_row = row;
	if (row == SS_STRATEGY) {
		c->cmc.strategy = (enum het_shard_strategy)
		    ((c->cmc.strategy + 1) % HET_SHARD_COUNT);
		snprintf(what, sizeof(what), "sampling strategy %s",
		    het_config_sharding_name(c->cmc.strategy));
	} else {
		c->cmc.combine = (enum het_cons_method)
		    ((c->cmc.combine + 1) % HET_COMBINE_COUNT);
		snprintf(what, sizeof(what), "sampling combine %s",
		    het_config_combine_name(c->cmc.combine));
	}
	set_commit(ui, s, c, what);
}

void
sample_set_edit(struct ui *ui, struct sample_state *s)
{
	const struct het_config_cmc *m = &ui->cfg->cmc;
	char label[64], init[64];
	long v;

	if (s->srow == SS_STRATEGY || s->srow == SS_COMBINE) {
		sample_set_cycle(ui, s, s->srow);
		return;
	}
	v = s->srow == SS_SHARDS ? m->num_shards : s->srow == SS_CHAINS ?
	    m->num_chains : s->srow == SS_WARMUP ? m->num_warmup :
	    s->srow == SS_SAMPLES ? m->num_samples : s->workers;
	if (v == 0 && (s->srow == SS_SHARDS || s->srow == SS_WORKERS))
		snprintf(init, sizeof(init), "auto");
	else
		snprintf(init, sizeof(init), "%ld", v);
	snprintf(label, sizeof(label), "sampling %s:", set_name[s->srow]);
	s->edit_row = s->srow;
	ui_prompt_open_sel(ui, label, init, edit_done);
}
