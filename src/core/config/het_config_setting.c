/*
 * het_config_setting.c: settings by key (het_config.h): the optimiser
 * settings of the schema table (het_config_table.c) formatted, parsed and
 * cycled one at a time, as the workstation's editors change them.
 *
 * Design.  A setting is named by the dotted path the template writes it
 * under, so an editor needs no field of its own: the table says where the
 * value lives, its kind and its words.  Text is read strictly (decimal
 * numbers only, as every prompt of the workstation reads them: "0x10" is
 * refused), unlike YAML, which the reader follows.  Nothing here
 * validates: an editor changes a copy and keeps it only when
 * het_config_validate accepts it.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

static const struct het_cl_key *
key_of(const char *path)
{
	const struct het_cl_section *sec;
	size_t i, n;

	for (i = 0; i < het_cl_nkeys; i++) {
		if (het_cl_keys[i].tkey == NULL)
			continue;	/* read only, or the parameters */
		sec = &het_cl_sections[het_cl_keys[i].tsec];
		n = strlen(sec->path);
		if (strncmp(path, sec->path, n) == 0 && path[n] == '.' &&
		    strcmp(path + n + 1, het_cl_keys[i].tkey) == 0)
			return &het_cl_keys[i];
	}
	return NULL;
}

static int
unknown_key(const char *path, struct het_error *err)
{
	return het_error_set(err, HET_EINVAL, "%s: not a setting hetui edits "
	    "(see hetui config --template)", path);
}

/* HET_OK for a setting an editor can change as one value; else why. */
static int
single_value(const struct het_cl_key *k, const char *path,
    struct het_error *err)
{
	switch (k->type) {
	case HET_CK_X_SCALE_MAP:
	case HET_CK_NUMLIST:
	case HET_CK_DATA_FILE:
	case HET_CK_LEGACY_FRAMES:
	case HET_CK_PHI_ALGO:
	case HET_CK_PHI_RANGES:
	case HET_CK_PARAMS:
		return het_error_set(err, HET_EINVAL, "%s: not a single "
		    "value; edit it in the file", path);
	default:
		return HET_OK;
	}
}

int
het_config_setting_format(const struct het_config *cfg, const char *path,
    char *buf, size_t len, struct het_error *err)
{
	const struct het_cl_key *k = key_of(path);
	const char *f;
	int rc;

	if (k == NULL || len == 0)
		return unknown_key(path, err);
	if ((rc = single_value(k, path, err)) != HET_OK)
		return rc;
	f = (const char *)cfg + k->off;
	switch (k->type) {
	case HET_CK_NUM:
		snprintf(buf, len, "%.10g", *(const double *)f);
		break;
	case HET_CK_LONG:
		snprintf(buf, len, "%ld", *(const long *)f);
		break;
	case HET_CK_LONG_AUTO:
		if (*(const long *)f > 0)
			snprintf(buf, len, "%ld", *(const long *)f);
		else
			snprintf(buf, len, "auto");
		break;
	case HET_CK_BOOL:
		snprintf(buf, len, "%s", *(const int *)f ? "true" : "false");
		break;
	case HET_CK_WORD:
		snprintf(buf, len, "%s", het_cl_word_name(k, *(const int *)f));
		break;
	case HET_CK_SEED:
		snprintf(buf, len, "%lu", *(const unsigned long *)f);
		break;
	case HET_CK_STRING:
	case HET_CK_OUTPUT_DIR:
		snprintf(buf, len, "%s", *(char *const *)f != NULL ?
		    *(char *const *)f : "");
		break;
	case HET_CK_X_SCALE:
		if (cfg->nlsq.x_scale_jac)
			snprintf(buf, len, "jac");
		else
			snprintf(buf, len, "%.10g", cfg->nlsq.x_scale);
		break;
	case HET_CK_NUM_SET:
		if (*(const int *)((const char *)cfg + k->set_off))
			snprintf(buf, len, "%.10g", *(const double *)f);
		else
			snprintf(buf, len, "null");
		break;
	default:		/* not single values: refused above */
		break;
	}
	return HET_OK;
}

/* A word of k (or true/false for a boolean) into *v. */
static int
parse_word(const struct het_cl_key *k, const char *path, const char *text,
    int *v, struct het_error *err)
{
	char list[256];
	size_t i, used = 0;

	for (i = 0; i < k->nwords; i++)
		if (strcmp(text, k->words[i].name) == 0) {
			*v = k->words[i].value;
			return HET_OK;
		}
	list[0] = '\0';
	for (i = 0; i < k->nwords && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used,
		    "%s%s", i > 0 ? ", " : "", k->words[i].name);
	return het_error_set(err, HET_EINVAL, "%s: unknown value '%s'; "
	    "allowed: %s", path, text, list);
}

static int
parse_bool(const char *path, const char *text, int *v, struct het_error *err)
{
	static const char *const yes[] = { "true", "yes", "on", "True" };
	static const char *const no[] = { "false", "no", "off", "False" };
	size_t i;

	for (i = 0; i < HET_ARRAY_LEN(yes); i++)
		if (strcmp(text, yes[i]) == 0 || strcmp(text, no[i]) == 0) {
			*v = strcmp(text, yes[i]) == 0;
			return HET_OK;
		}
	return het_error_set(err, HET_EINVAL, "%s: expected true or false, "
	    "found '%s'", path, text);
}

int
het_config_setting_parse(struct het_config *cfg, const char *path,
    const char *text, struct het_error *err)
{
	const struct het_cl_key *k = key_of(path);

	if (k == NULL)
		return unknown_key(path, err);
	return het_cl_set_text(cfg, k, path, text, err);
}

int
het_cl_set_text(struct het_config *cfg, const struct het_cl_key *k,
    const char *path, const char *text, struct het_error *err)
{
	char *f, *dup;
	double d = 0.0;
	long l = 0;
	int w = 0, rc;

	if ((rc = single_value(k, path, err)) != HET_OK)
		return rc;
	f = (char *)cfg + k->off;
	switch (k->type) {
	case HET_CK_NUM:
		if ((rc = het_parse_double(text, path, &d, err)) == HET_OK)
			*(double *)f = d;
		return rc;
	case HET_CK_LONG_AUTO:
		if (strcmp(text, "auto") == 0) {
			*(long *)f = 0;
			return HET_OK;
		}
		/* FALLTHROUGH */
	case HET_CK_LONG:
		if ((rc = het_parse_long(text, path, LONG_MIN, LONG_MAX, &l,
		    err)) == HET_OK)
			*(long *)f = l;
		return rc;
	case HET_CK_SEED:
		if ((rc = het_parse_long(text, path, 0, LONG_MAX, &l, err)) ==
		    HET_OK)
			*(unsigned long *)f = (unsigned long)l;
		return rc;
	case HET_CK_BOOL:
		if ((rc = parse_bool(path, text, &w, err)) == HET_OK)
			*(int *)f = w;
		return rc;
	case HET_CK_WORD:
		if ((rc = parse_word(k, path, text, &w, err)) == HET_OK)
			*(int *)f = w;
		return rc;
	case HET_CK_STRING:
	case HET_CK_OUTPUT_DIR:
		if ((dup = het_strdup(text, err)) == NULL)
			return HET_ENOMEM;
		free(*(char **)f);
		*(char **)f = dup;
		return HET_OK;
	case HET_CK_X_SCALE:
		if (strcmp(text, "jac") == 0) {
			cfg->nlsq.x_scale_jac = 1;
			return HET_OK;
		}
		if ((rc = het_parse_double(text, path, &d, err)) == HET_OK) {
			cfg->nlsq.x_scale_jac = 0;
			cfg->nlsq.x_scale = d;
		}
		return rc;
	case HET_CK_NUM_SET:
		if (strcmp(text, "null") == 0) {
			*(int *)((char *)cfg + k->set_off) = 0;
			return HET_OK;
		}
		if ((rc = het_parse_double(text, path, &d, err)) == HET_OK) {
			*(double *)f = d;
			*(int *)((char *)cfg + k->set_off) = 1;
		}
		return rc;
	default:		/* not single values: refused above */
		break;
	}
	return HET_OK;
}

int
het_config_setting_next(struct het_config *cfg, const char *path,
    struct het_error *err)
{
	const struct het_cl_key *k = key_of(path);
	size_t i, j;
	int *f;

	if (k == NULL)
		return unknown_key(path, err);
	f = (int *)((char *)cfg + k->off);
	if (k->type == HET_CK_BOOL) {
		*f = !*f;
		return HET_OK;
	}
	if (k->type != HET_CK_WORD)
		return het_error_set(err, HET_EINVAL, "%s: not a choice of "
		    "words", path);
	/* The next canonical word (the first word of each value). */
	for (i = 0; i < k->nwords && k->words[i].value != *f; i++)
		;
	for (j = 1; j <= k->nwords; j++) {
		const struct het_cl_word *w = &k->words[(i + j) % k->nwords];

		if (w->value != *f && strcmp(het_cl_word_name(k, w->value),
		    w->name) == 0) {
			*f = w->value;
			return HET_OK;
		}
	}
	return HET_OK;
}
