/*
 * het_config_get.c: the schema readers' tools: key lookup that marks keys
 * consumed, typed getters with messages naming key, line and offending
 * text, synonym handling, provenance records, and the final report of
 * unconsumed keys.
 *
 * Design: a getter is handed the value node and the dotted path of its
 * key, so every message can say where the user must look.  The typing
 * accepts what PyYAML-written files contain (1e-8 without a dot, yes/no
 * booleans) and rejects everything else.  A setting that the references
 * spell several ways is read with het_cl_pick() from candidate locations in
 * precedence order: the first present wins, the others are consumed and
 * warned about when they disagree.  Null always means "keep the default".
 * Unconsumed keys are reported once per key: a whole ignored section
 * gives one warning, not one per leaf.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

void
het_cl_path(char *buf, const char *prefix, const char *key)
{
	if (prefix == NULL || prefix[0] == '\0')
		snprintf(buf, CL_PATH_MAX, "%s", key);
	else
		snprintf(buf, CL_PATH_MAX, "%s.%s", prefix, key);
}

void
het_cl_path_index(char *buf, const char *prefix, size_t index)
{
	snprintf(buf, CL_PATH_MAX, "%s[%zu]", prefix, index);
}

struct het_ynode *
het_cl_peek(struct het_ynode *map, const char *key)
{
	size_t i;

	if (map == NULL || map->kind != HET_Y_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->text, key) == 0)
			return map->vals[i];
	return NULL;
}

struct het_ynode *
het_cl_get(struct het_ynode *map, const char *key)
{
	size_t i;

	if (map == NULL || map->kind != HET_Y_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->text, key) == 0) {
			map->keys[i]->used = 1;
			return map->vals[i];
		}
	return NULL;
}

static int
y_key_line(struct het_ynode *map, const char *key)
{
	size_t i;

	for (i = 0; map != NULL && map->kind == HET_Y_MAP && i < map->n; i++)
		if (strcmp(map->keys[i]->text, key) == 0)
			return map->keys[i]->line;
	return 0;
}

/*
 * The first of several synonymous keys that is present wins; the others
 * are consumed, with a warning when they say something else.
 */
struct het_ynode *
het_cl_alias(struct cl_load *ld, struct het_ynode *map, const char *prefix,
    const char *const *keys, char *path)
{
	struct het_ynode *v, *win = NULL;
	const char *wkey = NULL;
	char other[CL_PATH_MAX];
	size_t k;

	for (k = 0; keys[k] != NULL; k++) {
		if ((v = het_cl_get(map, keys[k])) == NULL)
			continue;
		if (win == NULL) {
			win = v;
			wkey = keys[k];
			het_cl_path(path, prefix, keys[k]);
			continue;
		}
		if (v->kind == win->kind && (v->text == NULL ||
		    strcmp(v->text, win->text) == 0))
			continue;
		het_cl_path(other, prefix, keys[k]);
		if (het_cl_warn(ld, other, y_key_line(map, keys[k]),
		    "%s: ignored; "
		    "%s.%s (line %d) says the same thing and takes precedence",
		    other, prefix, wkey, y_key_line(map, wkey)) != HET_OK)
			return NULL;
	}
	if (win == NULL)
		het_cl_path(path, prefix, keys[0]);
	return win;
}

int
het_cl_err(struct cl_load *ld, int code, int line, const char *path,
    const char *fmt, ...)
{
	char msg[HET_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		return het_error_set(ld->err, code, "%s:%d: %s: %s", ld->name,
		    line, path, msg);
	return het_error_set(ld->err, code, "%s: %s: %s", ld->name, path,
	    msg);
}

int
het_cl_warn(struct cl_load *ld, const char *path, int line, const char *fmt,
    ...)
{
	char msg[HET_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return het_cl_add_warning(ld->cfg, path, line, msg, ld->err);
}

int
het_cl_prov_set(struct cl_load *ld, const char *canon, const char *path,
    int line)
{
	struct cl_prov *p = NULL, *np;
	size_t i;

	if (ld == NULL)
		return HET_OK;
	for (i = 0; i < ld->nprov; i++)
		if (strcmp(ld->prov[i].canon, canon) == 0)
			p = &ld->prov[i];
	if (p == NULL) {
		if (ld->nprov == ld->cprov) {
			np = realloc(ld->prov, (ld->cprov * 2 + 32) *
			    sizeof(*np));
			if (np == NULL)
				return het_error_set(ld->err, HET_ENOMEM,
				    "out of memory reading %s", ld->name);
			ld->prov = np;
			ld->cprov = ld->cprov * 2 + 32;
		}
		p = &ld->prov[ld->nprov++];
		snprintf(p->canon, sizeof(p->canon), "%s", canon);
	}
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->line = line;
	return HET_OK;
}

const struct cl_prov *
het_cl_prov_find(const struct cl_load *ld, const char *canon)
{
	size_t i;

	for (i = 0; ld != NULL && i < ld->nprov; i++)
		if (strcmp(ld->prov[i].canon, canon) == 0)
			return &ld->prov[i];
	return NULL;
}

int
het_cl_is_null(const struct het_ynode *v)
{
	return v == NULL || v->kind == HET_Y_NULL;
}

static const char *
y_kind_name(const struct het_ynode *v)
{
	switch (v->kind) {
	case HET_Y_NULL:
		return "null";
	case HET_Y_SEQ:
		return "a list";
	case HET_Y_MAP:
		return "a mapping";
	default:
		return "a scalar";
	}
}

static const char *
y_shown(const struct het_ynode *v)
{
	return v->kind == HET_Y_SCALAR ? v->text : y_kind_name(v);
}

int
het_cl_want_map(struct cl_load *ld, struct het_ynode *v, const char *path)
{
	if (v->kind == HET_Y_MAP)
		return HET_OK;
	return het_cl_err(ld, HET_EINVAL, v->line, path,
	    "expected a mapping of "
	    "keys, found %s%s%s", v->kind == HET_Y_SCALAR ? "'" : "",
	    y_shown(v), v->kind == HET_Y_SCALAR ? "'" : "");
}

int
het_cl_want_seq(struct cl_load *ld, struct het_ynode *v, const char *path)
{
	if (v->kind == HET_Y_SEQ)
		return HET_OK;
	return het_cl_err(ld, HET_EINVAL, v->line, path, "expected a list "
	    "([a, b] or '- item' lines), found %s%s%s",
	    v->kind == HET_Y_SCALAR ? "'" : "", y_shown(v),
	    v->kind == HET_Y_SCALAR ? "'" : "");
}

int
het_cl_num(struct cl_load *ld, struct het_ynode *v, const char *path,
    double *out)
{
	char *end;
	double x;

	if (v->kind != HET_Y_SCALAR)
		return het_cl_err(ld, HET_EINVAL, v->line, path, "expected a "
		    "number, found %s", y_kind_name(v));
	errno = 0;
	x = strtod(v->text, &end);
	if (end == v->text || *end != '\0' || isspace((unsigned char)
	    v->text[0]))
		return het_cl_err(ld, HET_EINVAL, v->line, path, "expected a "
		    "number, found '%s'", v->text);
	if (!isfinite(x) || (errno == ERANGE && fabs(x) > 1.0))
		return het_cl_err(ld, HET_EINVAL, v->line, path,
		    "'%s' is not a "
		    "finite number", v->text);
	*out = x;
	return HET_OK;
}

int
het_cl_long(struct cl_load *ld, struct het_ynode *v, const char *path,
    long *out)
{
	double x;
	int rc;

	if ((rc = het_cl_num(ld, v, path, &x)) != HET_OK)
		return rc;
	if (x != floor(x) || fabs(x) > 9.0e15)
		return het_cl_err(ld, HET_EINVAL, v->line, path, "expected a "
		    "whole number, found '%s'", v->text);
	*out = (long)x;
	return HET_OK;
}

int
het_cl_long_auto(struct cl_load *ld, struct het_ynode *v, const char *path,
    long *out)
{
	int rc;

	if (v->kind == HET_Y_SCALAR && strcmp(v->text, "auto") == 0) {
		*out = 0;
		return HET_OK;
	}
	if (v->kind == HET_Y_SCALAR) {
		char *end;

		(void)strtod(v->text, &end);
		if (end == v->text || *end != '\0')
			return het_cl_err(ld, HET_EINVAL, v->line, path,
			    "expected "
			    "a whole number or \"auto\", found '%s'", v->text);
	}
	if ((rc = het_cl_long(ld, v, path, out)) != HET_OK)
		return rc;
	/* 0 stands for "auto" inside hetui; a written 0 is a mistake. */
	if (*out < 1)
		return het_cl_err(ld, HET_EINVAL, v->line, path, "%ld must be "
		    ">= 1, or \"auto\"", *out);
	return HET_OK;
}

int
het_cl_bool_value(const struct het_ynode *v, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes",
	    "Yes", "YES", "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no",
	    "No", "NO", "off", "Off", "OFF", NULL };
	size_t i;

	if (v == NULL || v->kind != HET_Y_SCALAR)
		return 0;
	for (i = 0; yes[i] != NULL; i++)
		if (strcmp(v->text, yes[i]) == 0) {
			*out = 1;
			return 1;
		}
	for (i = 0; no[i] != NULL; i++)
		if (strcmp(v->text, no[i]) == 0) {
			*out = 0;
			return 1;
		}
	return 0;
}

int
het_cl_bool(struct cl_load *ld, struct het_ynode *v, const char *path, int *out)
{
	if (het_cl_bool_value(v, out))
		return HET_OK;
	return het_cl_err(ld, HET_EINVAL, v->line, path,
	    "expected true or false, "
	    "found %s%s%s", v->kind == HET_Y_SCALAR ? "'" : "", y_shown(v),
	    v->kind == HET_Y_SCALAR ? "'" : "");
}

int
het_cl_str(struct cl_load *ld, struct het_ynode *v, const char *path,
    char **out)
{
	char *s;

	if (v->kind != HET_Y_SCALAR)
		return het_cl_err(ld, HET_EINVAL, v->line, path, "expected a "
		    "string, found %s", y_kind_name(v));
	if ((s = het_strdup(v->text, ld->err)) == NULL)
		return HET_ENOMEM;
	free(*out);
	*out = s;
	return HET_OK;
}

int
het_cl_word(struct cl_load *ld, struct het_ynode *v, const char *path,
    const struct het_cl_word *words, size_t nwords, int *out)
{
	char list[512];
	size_t i, len = 0;

	if (v->kind == HET_Y_SCALAR)
		for (i = 0; i < nwords; i++)
			if (strcmp(v->text, words[i].name) == 0) {
				*out = words[i].value;
				return HET_OK;
			}
	list[0] = '\0';
	for (i = 0; i < nwords && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
		    i == 0 ? "" : ", ", words[i].name);
	return het_cl_err(ld, HET_EINVAL, v->line, path,
	    "unknown value %s%s%s; "
	    "allowed: %s", v->kind == HET_Y_SCALAR ? "'" : "", y_shown(v),
	    v->kind == HET_Y_SCALAR ? "'" : "", list);
}

int
het_cl_numlist(struct cl_load *ld, struct het_ynode *v, const char *path,
    double **out, size_t *n)
{
	char item[CL_PATH_MAX];
	double *a;
	size_t i;
	int rc;

	if ((rc = het_cl_want_seq(ld, v, path)) != HET_OK)
		return rc;
	a = het_alloc_array(v->n, sizeof(*a), path, ld->err);
	if (a == NULL)
		return HET_ENOMEM;
	for (i = 0; i < v->n; i++) {
		het_cl_path_index(item, path, i);
		if ((rc = het_cl_num(ld, v->vals[i], item, &a[i])) != HET_OK) {
			free(a);
			return rc;
		}
	}
	free(*out);
	*out = a;
	*n = v->n;
	return HET_OK;
}

/* Look up a sub-mapping, consuming its key; NULL when absent or null. */
int
het_cl_section(struct cl_load *ld, struct het_ynode *map, const char *prefix,
    const char *key, struct het_ynode **out, char *path)
{
	struct het_ynode *v;
	int rc;

	het_cl_path(path, prefix, key);
	*out = NULL;
	v = het_cl_get(map, key);
	if (het_cl_is_null(v))
		return HET_OK;
	if ((rc = het_cl_want_map(ld, v, path)) != HET_OK)
		return rc;
	*out = v;
	return HET_OK;
}

struct het_ynode *
het_cl_pick(struct cl_load *ld, const struct cl_cand *c, size_t n, char *path,
    int *rc)
{
	struct het_ynode *v, *win = NULL;
	char other[CL_PATH_MAX];
	size_t i;

	*rc = HET_OK;
	for (i = 0; i < n; i++) {
		v = het_cl_get(c[i].map, c[i].key);
		if (het_cl_is_null(v))
			continue;
		if (win == NULL) {
			win = v;
			het_cl_path(path, c[i].prefix, c[i].key);
			continue;
		}
		if (v->kind == win->kind && v->kind == HET_Y_SCALAR &&
		    strcmp(v->text, win->text) == 0)
			continue;
		het_cl_path(other, c[i].prefix, c[i].key);
		*rc = het_cl_warn(ld, other, v->line, "%s: ignored; %s (line "
		    "%d) sets the same thing and takes precedence", other,
		    path, win->line);
		if (*rc != HET_OK)
			return NULL;
	}
	if (win == NULL)
		het_cl_path(path, c[0].prefix, c[0].key);
	return win;
}

/* Read a number from the first present candidate into *out. */
int
het_cl_pick_num(struct cl_load *ld, const struct cl_cand *c, size_t n,
    const char *canon, double *out)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	v = het_cl_pick(ld, c, n, path, &rc);
	if (v == NULL || rc != HET_OK)
		return rc;
	if ((rc = het_cl_num(ld, v, path, out)) != HET_OK)
		return rc;
	return het_cl_prov_set(ld, canon, path, v->line);
}

int
het_cl_pick_long(struct cl_load *ld, const struct cl_cand *c, size_t n,
    const char *canon, int allow_auto, long *out)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	v = het_cl_pick(ld, c, n, path, &rc);
	if (v == NULL || rc != HET_OK)
		return rc;
	rc = allow_auto ? het_cl_long_auto(ld, v, path, out) :
	    het_cl_long(ld, v, path, out);
	if (rc != HET_OK)
		return rc;
	return het_cl_prov_set(ld, canon, path, v->line);
}

int
het_cl_pick_bool(struct cl_load *ld, const struct cl_cand *c, size_t n,
    int *out)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	v = het_cl_pick(ld, c, n, path, &rc);
	if (v == NULL || rc != HET_OK)
		return rc;
	return het_cl_bool(ld, v, path, out);
}

int
het_cl_pick_word(struct cl_load *ld, const struct cl_cand *c, size_t n,
    const struct het_cl_word *words, size_t nwords, int *out)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	v = het_cl_pick(ld, c, n, path, &rc);
	if (v == NULL || rc != HET_OK)
		return rc;
	return het_cl_word(ld, v, path, words, nwords, out);
}
