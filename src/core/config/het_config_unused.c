/*
 * het_config_unused.c: the keys of a configuration that hetui does not
 * use, in words.
 *
 * Design.  The readers mark every mapping key they consume; what is left
 * after all of them ran is unused.  The reference templates carry 80-90
 * such keys (their own logging, plotting, memory and solver knobs), and a
 * warning per key buried the few that matter.  So each unused key is
 * recorded once in cfg->unused (the detail, `hetui config --check FILE -v`),
 * and the warnings name them grouped: one sentence per top-level section
 * (a section with a single unused key keeps the one-key sentence), plus a
 * sentence of its own for every key whose value changes the reference's
 * results while hetui ignores it (a CMA-ES search switched on, prior
 * tempering switched off), since those are the ones a user must know.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

/* Room for the names in a grouped sentence before "and N more". */
#define GROUP_NAMES_MAX 640

/*
 * Why hetui leaves some well-known reference keys alone; any other unused
 * key gets the plain sentence.
 */
static const char *
y_unused_reason(const char *path)
{
	static const struct {
		const char *path;
		const char *why;
	} reasons[] = {
		{ "metadata", "documentation only" },
		{ "analysis_settings", "the analysis mode decides the model" },
		{ "logging", "hetui keeps its own session log" },
		{ "plotting", "hetui draws its own views" },
		{ "performance", "hetui sizes threads and memory itself" },
		{ "noise_estimation", "see optimization.cmc.sigma_method" },
		{ "quality_control", "hetui checks the data as it loads them" },
		{ "validation", "hetui always validates the whole file" },
		{ "optimization.method", "the subcommand chooses NLSQ or CMC" },
		{ "optimization.mcmc", "CMC settings live in "
		    "optimization.cmc" },
		{ "initial_parameters.units", "hetui's units are fixed, see "
		    "hetui(1)" },
		{ "experimental_data.cache_file_path", "hetui does not cache "
		    "c2" },
		{ "experimental_data.cache_filename_template", "hetui does not "
		    "cache c2" },
		{ "experimental_data.cache_compression", "hetui does not cache "
		    "c2" },
		{ "experimental_data.phi_angles_path", "angles come from the "
		    "data file" },
		{ "experimental_data.phi_angles_file", "angles come from the "
		    "data file" },
		{ "optimization.cmc.enable", "the subcommand decides whether "
		    "CMC runs" },
		{ "optimization.cmc.sharding.min_points_per_param", "the "
		    "homodyne modes size shards by min_points_per_shard "
		    "alone" },
		{ "optimization.cmc.min_points_per_param", "the homodyne "
		    "modes size shards by min_points_per_shard alone" },
		{ "optimization.sharding", "it is outside optimization.cmc; "
		    "indent it under cmc: for hetui to read it" },
	};
	size_t i;

	for (i = 0; i < HET_ARRAY_LEN(reasons); i++)
		if (strcmp(reasons[i].path, path) == 0)
			return reasons[i].why;
	return NULL;
}

/*
 * Keys whose value, as written, makes the reference compute something
 * else while hetui ignores the key: each gets a warning of its own.  The
 * value that does it is returned in *what.
 */
static const char *
y_changes_results(const struct cl_load *ld, const char *path,
    struct het_ynode *v, const char **what)
{
	static const char cmaes[] = "the reference then fits by a CMA-ES "
	    "global search, which can end in another minimum; hetui fits "
	    "with its own multi-start strategy (hetui(1), FIT)";
	int b;

	*what = "";
	if (strcmp(path, "optimization.nlsq.enable_cmaes") == 0 &&
	    het_cl_bool_value(v, &b) && b) {
		*what = v->text;
		return cmaes;
	}
	if (strcmp(path, "optimization.nlsq.cmaes") == 0 &&
	    het_cl_bool_value(het_cl_peek(v, "enable"), &b) && b) {
		*what = "enable: true";
		return cmaes;
	}
	if (ld->cfg->family == HET_FAMILY_HOMODYNE &&
	    het_cl_bool_value(v, &b) && !b &&
	    strcmp(path, "optimization.cmc.prior_tempering") == 0) {
		*what = v->text;
		return "the homodyne reference then gives every shard the "
		    "whole prior, a posterior too narrow by the shard count; "
		    "hetui always tempers the prior (prior^(1/K) per shard)";
	}
	return NULL;
}

/* Record one unused key: its detail entry, or its own warning. */
static int
y_unused(struct cl_load *ld, const char *path, const struct het_ynode *key,
    struct het_ynode *val)
{
	char msg[HET_ERROR_MSG_MAX];
	const char *why = y_unused_reason(path), *changes, *what;
	int rc;

	snprintf(msg, sizeof(msg), "%s: not used by hetui%s%s%s%s", path,
	    val->kind == HET_Y_MAP ? "; the whole section is ignored" : "",
	    why != NULL ? " (" : "", why != NULL ? why : "",
	    why != NULL ? ")" : "");
	if ((rc = het_cl_warning_push(&ld->cfg->unused, &ld->cfg->nunused, path,
	    key->line, msg, ld->err)) != HET_OK)
		return rc;
	if ((changes = y_changes_results(ld, path, val, &what)) == NULL)
		return HET_OK;
	/* Marked (a YAML key's line is >= 1) so the grouping leaves it
	   out: it has its own warning.  het_cl_report_unused restores it. */
	ld->cfg->unused[ld->cfg->nunused - 1].line = -key->line;
	return het_cl_warn(ld, path, key->line, "%s: %s is not used by hetui, "
	    "and it changes results: %s.", path, what, changes);
}

static int
y_report(struct cl_load *ld, struct het_ynode *node, const char *prefix)
{
	char path[CL_PATH_MAX];
	size_t i;
	int rc;

	if (node->kind == HET_Y_SEQ) {
		for (i = 0; i < node->n; i++) {
			het_cl_path_index(path, prefix, i);
			if ((rc = y_report(ld, node->vals[i], path)) != HET_OK)
				return rc;
		}
		return HET_OK;
	}
	if (node->kind != HET_Y_MAP)
		return HET_OK;
	for (i = 0; i < node->n; i++) {
		het_cl_path(path, prefix, node->keys[i]->text);
		rc = node->keys[i]->used ?
		    y_report(ld, node->vals[i], path) :
		    y_unused(ld, path, node->keys[i], node->vals[i]);
		if (rc != HET_OK)
			return rc;
	}
	return HET_OK;
}

/* The length of a path's top-level section name (0: a top-level key). */
static size_t
top_len(const char *path)
{
	size_t n = strcspn(path, ".[");

	return path[n] == '\0' ? 0 : n;
}

/* One entry in a grouped sentence: the key below its section, and why. */
static size_t
group_item(char *buf, size_t cap, size_t used, const struct het_config_warning
    *u, size_t skip, int first)
{
	const char *why = strstr(u->msg, " (");
	const char *sec = strstr(u->msg, "; the whole section");
	int n;

	if (used >= cap)
		return used;
	if (sec != NULL && why != NULL)
		n = snprintf(buf + used, cap - used, "%s%s (section: %s",
		    first ? "" : ", ", u->key + skip, why + 2);
	else
		n = snprintf(buf + used, cap - used, "%s%s%s%s",
		    first ? "" : ", ", u->key + skip,
		    sec != NULL ? " (section)" : "", why != NULL ? why : "");
	return n < 0 ? used : used + (size_t)n;
}

/* Whether entry i belongs to the group of top-level section name (len
   skip; 0: the top-level keys) and has no warning of its own. */
static int
in_group(const struct het_config *cfg, size_t i, const char *name,
    size_t skip)
{
	const char *key = cfg->unused[i].key;

	return cfg->unused[i].line >= 0 && top_len(key) == skip &&
	    strncmp(key, name, skip) == 0;
}

/*
 * The warning for the unused keys of one group among entries [k, end):
 * those of top-level section name (its first skip characters), or the
 * top-level keys when skip is 0.  Linear in end - k.
 */
static int
group_warning(struct cl_load *ld, size_t k, size_t end, size_t skip)
{
	const struct het_config *cfg = ld->cfg;
	char names[GROUP_NAMES_MAX + 256], more[32];
	const char *name = NULL;
	size_t i, first = 0, cnt = 0, shown = 0, used = 0;

	names[0] = '\0';
	for (i = k; i < end; i++) {
		if (name == NULL && cfg->unused[i].line >= 0 &&
		    top_len(cfg->unused[i].key) == skip) {
			name = cfg->unused[i].key;
			first = i;
		}
		if (name == NULL || !in_group(cfg, i, name, skip))
			continue;
		cnt++;
		if (used >= GROUP_NAMES_MAX)
			continue;
		used = group_item(names, sizeof(names), used, &cfg->unused[i],
		    skip > 0 ? skip + (cfg->unused[i].key[skip] == '.') : 0,
		    shown == 0);
		shown++;
	}
	if (cnt == 0)
		return HET_OK;
	if (cnt == 1)
		return het_cl_add_warning(ld->cfg, name,
		    cfg->unused[first].line,
		    cfg->unused[first].msg, ld->err);
	more[0] = '\0';
	if (shown < cnt)
		snprintf(more, sizeof(more), ", and %zu more", cnt - shown);
	if (skip == 0)
		return het_cl_warn(ld, name, cfg->unused[first].line,
		    "%zu top-level sections and keys not used by hetui: %s%s; "
		    "`hetui config --check FILE -v` lists each with its line",
		    cnt, names, more);
	return het_cl_warn(ld, name, cfg->unused[first].line, "%.*s: %zu keys "
	    "not used by hetui: %s%s; `hetui config --check FILE -v` lists "
	    "each with its line", (int)skip, name, cnt, names, more);
}

/*
 * The traversal records a top-level section's keys contiguously (its
 * mapping is walked in one go, and YAML keys are unique), so each named
 * group is one run of entries; the top-level keys are one more group.
 * Linear in the number of unused keys, whatever the file.
 */
int
het_cl_report_unused(struct cl_load *ld)
{
	struct het_config *cfg = ld->cfg;
	size_t k, end, skip;
	int rc;

	if ((rc = y_report(ld, ld->root, "")) != HET_OK)
		return rc;
	if ((rc = group_warning(ld, 0, cfg->nunused, 0)) != HET_OK)
		return rc;
	for (k = 0; k < cfg->nunused; k = end) {
		skip = top_len(cfg->unused[k].key);
		for (end = k + 1; skip > 0 && end < cfg->nunused &&
		    top_len(cfg->unused[end].key) == skip &&
		    strncmp(cfg->unused[end].key, cfg->unused[k].key,
		    skip) == 0; end++)
			;
		if (skip > 0 && (rc = group_warning(ld, k, end, skip)) !=
		    HET_OK)
			return rc;
	}
	for (k = 0; k < cfg->nunused; k++)
		if (cfg->unused[k].line < 0)
			cfg->unused[k].line = -cfg->unused[k].line;
	return HET_OK;
}
