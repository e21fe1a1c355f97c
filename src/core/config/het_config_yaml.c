/*
 * het_config_yaml.c: the YAML layer of the configuration reader: libyaml's
 * document loader turned into a small tree that remembers line numbers
 * and which keys were consumed.
 *
 * Design: libyaml's document API resolves anchors and aliases; the tree is
 * a plain copy of it (an alias becomes a copy of its anchor, so
 * consumption marks stay per occurrence), limited in depth and node count
 * so that an alias bomb cannot exhaust memory.  The depth is checked
 * first on the parser's events, so a deeply nested file is refused before
 * the loader composes it, and repeated keys are found by sorting, so no
 * cost grows faster than n log n in the size of the file.  Scalars keep their text;
 * plain "", "~" and "null" become null nodes; typing is left to the
 * getters of het_config_get.c.  Keys must be scalars and unique within a
 * mapping; one document per file.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "het_config_impl.h"
#include "het_util.h"

#define Y_MAX_DEPTH	64
#define Y_MAX_NODES	1000000

struct y_conv {
	yaml_document_t	*doc;
	size_t		 count;
	const char	*name;
	struct het_error *err;
};

static struct het_ynode *y_conv_node(struct y_conv *, yaml_node_t *, int);

void
het_y_free(struct het_ynode *node)
{
	size_t i;

	if (node == NULL)
		return;
	for (i = 0; i < node->n; i++) {
		if (node->keys != NULL)
			het_y_free(node->keys[i]);
		if (node->vals != NULL)
			het_y_free(node->vals[i]);
	}
	free(node->keys);
	free(node->vals);
	free(node->text);
	free(node);
}

static int
y_is_null_text(const char *s)
{
	return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static struct het_ynode *
y_conv_scalar(struct y_conv *cv, yaml_node_t *yn, struct het_ynode *node)
{
	size_t len = yn->data.scalar.length;

	node->text = malloc(len + 1);
	if (node->text == NULL) {
		het_error_set(cv->err, HET_ENOMEM, "out of memory reading %s",
		    cv->name);
		het_y_free(node);
		return NULL;
	}
	memcpy(node->text, yn->data.scalar.value, len);
	node->text[len] = '\0';
	node->kind = HET_Y_SCALAR;
	if (yn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    y_is_null_text(node->text))
		node->kind = HET_Y_NULL;
	return node;
}

static struct het_ynode *
y_conv_seq(struct y_conv *cv, yaml_node_t *yn, struct het_ynode *node,
    int depth)
{
	yaml_node_item_t *it;
	size_t n = (size_t)(yn->data.sequence.items.top -
	    yn->data.sequence.items.start);

	node->kind = HET_Y_SEQ;
	node->vals = het_alloc_array(n, sizeof(*node->vals), "YAML sequence",
	    cv->err);
	if (node->vals == NULL) {
		het_y_free(node);
		return NULL;
	}
	for (it = yn->data.sequence.items.start;
	    it < yn->data.sequence.items.top; it++) {
		node->vals[node->n] = y_conv_node(cv,
		    yaml_document_get_node(cv->doc, *it), depth + 1);
		if (node->vals[node->n] == NULL) {
			het_y_free(node);
			return NULL;
		}
		node->n++;
	}
	return node;
}

/* A key and its position, sorted by text, then by position. */
struct y_key {
	const char	*text;
	size_t		 pos;
};

static int
y_key_cmp(const void *a, const void *b)
{
	const struct y_key *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * Keys of one mapping must differ: sort them (O(n log n), so a file of
 * 100,000 keys is checked at once) and report the repeat that comes first
 * in the file, with the line of the key it repeats.
 */
static int
y_check_repeats(struct y_conv *cv, const struct het_ynode *map)
{
	struct y_key *ks;
	size_t i, dup = (size_t)-1, orig = 0, first = 0;

	if (map->n < 2)
		return HET_OK;
	if ((ks = het_alloc_array(map->n, sizeof(*ks), "YAML keys",
	    cv->err)) == NULL)
		return HET_ENOMEM;
	for (i = 0; i < map->n; i++) {
		ks[i].text = map->keys[i]->text;
		ks[i].pos = i;
	}
	qsort(ks, map->n, sizeof(*ks), y_key_cmp);
	for (i = 1; i < map->n; i++) {
		if (strcmp(ks[i].text, ks[i - 1].text) != 0) {
			first = i;
			continue;
		}
		if (ks[i].pos < dup) {
			dup = ks[i].pos;
			orig = ks[first].pos;
		}
	}
	free(ks);
	if (dup == (size_t)-1)
		return HET_OK;
	return het_error_set(cv->err, HET_EFORMAT, "%s:%d: key '%s' appears "
	    "twice in one mapping (first at line %d); keep one", cv->name,
	    map->keys[dup]->line, map->keys[dup]->text,
	    map->keys[orig]->line);
}

static struct het_ynode *
y_conv_map(struct y_conv *cv, yaml_node_t *yn, struct het_ynode *node,
    int depth)
{
	yaml_node_pair_t *pr;
	struct het_ynode *k;
	size_t n = (size_t)(yn->data.mapping.pairs.top -
	    yn->data.mapping.pairs.start), i;

	node->kind = HET_Y_MAP;
	node->keys = het_alloc_array(n, sizeof(*node->keys), "YAML mapping",
	    cv->err);
	node->vals = het_alloc_array(n, sizeof(*node->vals), "YAML mapping",
	    cv->err);
	if (node->keys == NULL || node->vals == NULL) {
		het_y_free(node);
		return NULL;
	}
	/* every key first (all scalars), then one check for repeats */
	for (pr = yn->data.mapping.pairs.start;
	    pr < yn->data.mapping.pairs.top; pr++) {
		k = y_conv_node(cv, yaml_document_get_node(cv->doc, pr->key),
		    depth + 1);
		if (k == NULL) {
			het_y_free(node);
			return NULL;
		}
		node->keys[node->n] = k;
		node->vals[node->n] = NULL;
		node->n++;
		if (k->kind != HET_Y_SCALAR) {
			het_error_set(cv->err, HET_EFORMAT, "%s:%d: a mapping "
			    "key must be a plain word, not a %s; write "
			    "'name: value'", cv->name, k->line,
			    k->kind == HET_Y_NULL ? "null" : "collection");
			het_y_free(node);
			return NULL;
		}
	}
	if (y_check_repeats(cv, node) != HET_OK) {
		het_y_free(node);
		return NULL;
	}
	for (i = 0, pr = yn->data.mapping.pairs.start; i < n; i++, pr++) {
		node->vals[i] = y_conv_node(cv, yaml_document_get_node(cv->doc,
		    pr->value), depth + 1);
		if (node->vals[i] == NULL) {
			het_y_free(node);
			return NULL;
		}
	}
	return node;
}

static struct het_ynode *
y_conv_node(struct y_conv *cv, yaml_node_t *yn, int depth)
{
	struct het_ynode *node;

	if (yn == NULL) {
		het_error_set(cv->err, HET_EINTERNAL, "%s: libyaml returned "
		    "a dangling node", cv->name);
		return NULL;
	}
	if (depth > Y_MAX_DEPTH || ++cv->count > Y_MAX_NODES) {
		het_error_set(cv->err, HET_EFORMAT, "%s:%lu: the YAML nests "
		    "deeper than %d levels or expands (through aliases) to "
		    "more than %d nodes; a configuration is never that large",
		    cv->name, (unsigned long)yn->start_mark.line + 1,
		    Y_MAX_DEPTH, Y_MAX_NODES);
		return NULL;
	}
	node = calloc(1, sizeof(*node));
	if (node == NULL) {
		het_error_set(cv->err, HET_ENOMEM, "out of memory reading %s",
		    cv->name);
		return NULL;
	}
	node->line = (int)yn->start_mark.line + 1;
	switch (yn->type) {
	case YAML_SCALAR_NODE:
		return y_conv_scalar(cv, yn, node);
	case YAML_SEQUENCE_NODE:
		return y_conv_seq(cv, yn, node, depth);
	case YAML_MAPPING_NODE:
		return y_conv_map(cv, yn, node, depth);
	default:
		node->kind = HET_Y_NULL;
		node->text = NULL;
		return node;
	}
}

static int
y_parser_error(yaml_parser_t *p, const char *name, struct het_error *err)
{
	const yaml_mark_t *m = &p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		return het_error_set(err, HET_ENOMEM, "out of memory parsing "
		    "%s", name);
	if (p->context != NULL)
		return het_error_set(err, HET_EFORMAT, "%s:%lu: malformed "
		    "YAML: %s (%s, line %lu); fix the indentation or quoting "
		    "there", name, (unsigned long)m->line + 1,
		    p->problem != NULL ? p->problem : "syntax error",
		    p->context, (unsigned long)p->context_mark.line + 1);
	return het_error_set(err, HET_EFORMAT, "%s:%lu: malformed YAML: %s; "
	    "fix the indentation or quoting there", name,
	    (unsigned long)m->line + 1,
	    p->problem != NULL ? p->problem : "syntax error");
}

/*
 * The nesting depth, checked on libyaml's events before the document is
 * loaded: a file of 100,000 '[' is refused after 65 of them, where the
 * document loader would compose every level first (minutes).  Syntax
 * errors are left to the loader, which reports them the same way.
 */
static int
y_check_depth(const char *text, size_t len, const char *name,
    struct het_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, rc = HET_OK, done = 0;

	if (!yaml_parser_initialize(&parser))
		return het_error_set(err, HET_ENOMEM, "out of memory parsing "
		    "%s", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	    len);
	while (!done && rc == HET_OK) {
		if (!yaml_parser_parse(&parser, &ev))
			break;
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > Y_MAX_DEPTH)
				rc = het_error_set(err, HET_EFORMAT, "%s:%lu: "
				    "the YAML nests deeper than %d levels here; "
				    "a configuration is never that deep",
				    name, (unsigned long)ev.start_mark.line + 1,
				    Y_MAX_DEPTH);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int
het_y_parse(const char *text, size_t len, const char *name,
    struct het_ynode **root, struct het_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *top;
	struct y_conv cv;
	int rc = HET_OK;

	*root = NULL;
	if ((rc = y_check_depth(text, len, name, err)) != HET_OK)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return het_error_set(err, HET_ENOMEM, "out of memory parsing "
		    "%s", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
	    len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = y_parser_error(&parser, name, err);
		yaml_parser_delete(&parser);
		return rc;
	}
	top = yaml_document_get_root_node(&doc);
	if (top == NULL) {
		rc = het_error_set(err, HET_EFORMAT, "%s: the file is empty; "
		    "start from 'hetui config --template MODE'", name);
		goto out;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		rc = y_parser_error(&parser, name, err);
		goto out;
	}
	if (yaml_document_get_root_node(&extra) != NULL) {
		rc = het_error_set(err, HET_EFORMAT, "%s:%lu: a second YAML "
		    "document starts here; a configuration is one document, "
		    "remove the '---' separator", name,
		    (unsigned long)extra.start_mark.line + 1);
		yaml_document_delete(&extra);
		goto out;
	}
	yaml_document_delete(&extra);
	memset(&cv, 0, sizeof(cv));
	cv.doc = &doc;
	cv.name = name;
	cv.err = err;
	*root = y_conv_node(&cv, top, 0);
	if (*root == NULL) {
		rc = err != NULL && err->code != HET_OK ? err->code :
		    HET_ENOMEM;
		goto out;
	}
	if ((*root)->kind != HET_Y_MAP) {
		rc = het_error_set(err, HET_EFORMAT, "%s:%d: the top level "
		    "must be a mapping of sections (analysis_mode:, "
		    "analyzer_parameters:, ...)", name, (*root)->line);
		het_y_free(*root);
		*root = NULL;
	}
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

