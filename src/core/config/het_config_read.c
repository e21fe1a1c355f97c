/*
 * het_config_read.c: the analysis mode and the data selection of a
 * configuration: experimental_data, analyzer_parameters (and heterodyne's
 * legacy top-level temporal: and scattering:) and phi_filtering.
 *
 * Design: the mode is decided first, because it selects the defaults
 * every other section is applied onto.  It comes from the first of
 * analysis_mode, optimization.nlsq.analysis_mode (heterodyne),
 * parameter_space.model and metadata.analysis_mode (homodyne) that is
 * present; the others are checked against it.  Without any of them it is
 * inferred from the parameter groups or names, and the note says how.
 * Data keys are read from their candidate locations with het_cl_pick(); range
 * checks are left to het_cl_validate().
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "het_config_impl.h"
#include "het_util.h"

/*
 * The analysis mode: the first of analysis_mode, optimization.nlsq.
 * analysis_mode, parameter_space.model and metadata.analysis_mode; else
 * inferred from the parameter names.
 */
static const struct {
	const char *sect, *sub, *key;
} mode_keys[] = {
	{ NULL, NULL, "analysis_mode" },
	{ "optimization", "nlsq", "analysis_mode" },
	{ "parameter_space", NULL, "model" },
	{ "metadata", NULL, "analysis_mode" },
};

static struct het_ynode *
mode_node(struct het_ynode *root, size_t k, int consume, char *path)
{
	struct het_ynode *m = root;

	snprintf(path, CL_PATH_MAX, "%s%s%s%s%s",
	    mode_keys[k].sect != NULL ? mode_keys[k].sect : "",
	    mode_keys[k].sect != NULL ? "." : "",
	    mode_keys[k].sub != NULL ? mode_keys[k].sub : "",
	    mode_keys[k].sub != NULL ? "." : "", mode_keys[k].key);
	if (mode_keys[k].sect != NULL)
		m = het_cl_peek(m, mode_keys[k].sect);
	if (mode_keys[k].sub != NULL)
		m = het_cl_peek(m, mode_keys[k].sub);
	return consume ? het_cl_get(m, mode_keys[k].key) :
	    het_cl_peek(m, mode_keys[k].key);
}

static void
mode_classify(const struct het_ynode *s, int *het, int *hom, int *shear)
{
	int ih, im;

	if (s == NULL || s->kind != HET_Y_SCALAR)
		return;
	ih = het_params_find(HET_FAMILY_HETERODYNE, s->text);
	im = het_params_find(HET_FAMILY_HOMODYNE, s->text);
	if (ih >= 0 && im < 0)
		(*het)++;
	if (im >= 0 && ih < 0) {
		(*hom)++;
		if (im >= HOM_P_GAMMA0)
			(*shear)++;
	}
}

/*
 * Count the names only one family has, in initial_parameters.
 * parameter_names and parameter_space.bounds (beta and phi0 belong to
 * both and decide nothing).
 */
static void
mode_names(struct het_ynode *root, int *het, int *hom, int *shear)
{
	struct het_ynode *v, *b;
	size_t i;

	*het = *hom = *shear = 0;
	v = het_cl_peek(het_cl_peek(root, "initial_parameters"),
	    "parameter_names");
	b = het_cl_peek(het_cl_peek(root, "parameter_space"), "bounds");
	for (i = 0; v != NULL && v->kind == HET_Y_SEQ && i < v->n; i++)
		mode_classify(v->vals[i], het, hom, shear);
	for (i = 0; b != NULL && b->kind == HET_Y_SEQ && i < b->n; i++)
		mode_classify(het_cl_peek(b->vals[i], "name"), het, hom, shear);
}

static int
mode_infer(struct cl_load *ld, enum het_mode *mode, char *note, size_t len)
{
	static const char *const groups[] = { "reference", "sample",
	    "velocity", "fraction", "angle" };
	struct het_ynode *p = het_cl_peek(ld->root, "parameters");
	int het, hom, shear;
	size_t i;

	for (i = 0; p != NULL && p->kind == HET_Y_MAP &&
	    i < HET_ARRAY_LEN(groups); i++)
		if (het_cl_peek(p, groups[i]) != NULL) {
			*mode = HET_MODE_TWO_COMPONENT;
			snprintf(note, len, "no analysis_mode given; "
			    "two_component inferred from the heterodyne "
			    "parameter group parameters.%s", groups[i]);
			return HET_MODE_INFERRED;
		}
	mode_names(ld->root, &het, &hom, &shear);
	if (hom > 0 && het == 0) {
		*mode = shear > 0 ? HET_MODE_HOM_LAMINAR : HET_MODE_HOM_STATIC;
		snprintf(note, len, "no analysis_mode given; %s inferred from "
		    "%d homodyne parameter name%s (%d of them shear "
		    "parameters)", shear > 0 ? "laminar_flow" : "static", hom,
		    hom == 1 ? "" : "s", shear);
		return HET_MODE_INFERRED;
	}
	if (het > 0 && hom == 0) {
		*mode = HET_MODE_TWO_COMPONENT;
		snprintf(note, len, "no analysis_mode given; two_component "
		    "inferred from %d heterodyne parameter name%s", het,
		    het == 1 ? "" : "s");
		return HET_MODE_INFERRED;
	}
	*mode = HET_MODE_TWO_COMPONENT;
	snprintf(note, len, "no analysis_mode given and no parameter names "
	    "to infer it from; using two_component");
	return HET_MODE_DEFAULT;
}

int
het_cl_read_mode(struct cl_load *ld)
{
	struct het_config *cfg = ld->cfg;
	struct het_ynode *v, *w;
	struct het_error e;
	char path[CL_PATH_MAX], wpath[CL_PATH_MAX], note[256];
	enum het_mode mode = HET_MODE_TWO_COMPONENT, other;
	size_t k, win = HET_ARRAY_LEN(mode_keys);
	int src, rc, wline = 0;

	for (k = 0; k < HET_ARRAY_LEN(mode_keys); k++) {
		v = mode_node(ld->root, k, 0, path);
		if (het_cl_is_null(v))
			continue;
		if (win == HET_ARRAY_LEN(mode_keys)) {
			win = k;
			w = mode_node(ld->root, k, 1, wpath);
			wline = w->line;
			if (w->kind != HET_Y_SCALAR ||
			    het_mode_parse(w->text, &mode, &e) != HET_OK)
				return het_cl_err(ld, HET_EINVAL, w->line,
				    wpath,
				    "%s", w->kind == HET_Y_SCALAR ? e.msg :
				    "expected a mode name");
			continue;
		}
		/* A lower-precedence location that disagrees is reported. */
		if (v->kind == HET_Y_SCALAR &&
		    het_mode_parse(v->text, &other, NULL) == HET_OK &&
		    other == mode) {
			if (k != 3)
				(void)mode_node(ld->root, k, 1, path);
			continue;
		}
		if (k != 3)
			(void)mode_node(ld->root, k, 1, path);
		rc = het_cl_warn(ld, path, v->line,
		    "%s: '%s' is ignored; %s (line "
		    "%d) sets the analysis mode to %s", path,
		    v->kind == HET_Y_SCALAR ? v->text : "?", wpath, wline,
		    het_mode_name(mode));
		if (rc != HET_OK)
			return rc;
	}
	if (win < HET_ARRAY_LEN(mode_keys)) {
		w = mode_node(ld->root, win, 0, wpath);
		src = HET_MODE_FROM_KEY;
		snprintf(note, sizeof(note), "analysis mode %s from %s (line "
		    "%d)", het_mode_name(mode), wpath, w->line);
		if ((rc = het_cl_set_defaults(cfg, mode, ld->err)) != HET_OK)
			return rc;
		cfg->mode_line = w->line;
		if ((cfg->mode_key = het_strdup(wpath, ld->err)) == NULL)
			return HET_ENOMEM;
	} else {
		src = mode_infer(ld, &mode, note, sizeof(note));
		if ((rc = het_cl_set_defaults(cfg, mode, ld->err)) != HET_OK)
			return rc;
	}
	cfg->mode_source = (enum het_config_mode_source)src;
	if ((cfg->mode_note = het_strdup(note, ld->err)) == NULL)
		return HET_ENOMEM;
	return HET_OK;
}

int
het_cl_read_data_file(struct cl_load *ld, const struct cl_cand *c)
{
	struct het_config *cfg = ld->cfg;
	struct het_ynode *ed = c[0].map, *fp, *dir, *name, *fmt;
	char *f = NULL, *d = NULL, *n = NULL, *joined = NULL;
	size_t len;
	int rc = HET_OK;

	if (ed == NULL)
		return HET_OK;
	fp = het_cl_get(ed, "file_path");
	dir = het_cl_get(ed, "data_folder_path");
	name = het_cl_get(ed, "data_file_name");
	if (!het_cl_is_null(fp) && (rc = het_cl_str(ld, fp,
	    "experimental_data.file_path", &f)) != HET_OK)
		goto out;
	if (!het_cl_is_null(dir) && (rc = het_cl_str(ld, dir,
	    "experimental_data.data_folder_path", &d)) != HET_OK)
		goto out;
	if (!het_cl_is_null(name) && (rc = het_cl_str(ld, name,
	    "experimental_data.data_file_name", &n)) != HET_OK)
		goto out;
	if (n != NULL && n[0] != '\0') {
		len = (d != NULL ? strlen(d) : 0) + strlen(n) + 2;
		if ((joined = malloc(len)) == NULL) {
			rc = het_error_set(ld->err, HET_ENOMEM, "out of "
			    "memory");
			goto out;
		}
		snprintf(joined, len, "%s%s%s", d != NULL ? d : "",
		    d != NULL && d[0] != '\0' && d[strlen(d) - 1] != '/' ?
		    "/" : "", n);
	}
	if (f != NULL && f[0] != '\0') {
		if (joined != NULL && strcmp(joined, f) != 0)
			rc = het_cl_warn(ld, "experimental_data.data_file_name",
			    name->line, "experimental_data.data_file_name: "
			    "'%s' is ignored; file_path '%s' (line %d) names "
			    "the data file", joined, f, fp->line);
		cfg->data_file = f;
		f = NULL;
	} else if (joined != NULL) {
		cfg->data_file = joined;
		joined = NULL;
	}
	fmt = het_cl_get(ed, "file_format");
	if (rc == HET_OK && !het_cl_is_null(fmt) && (
	    fmt->kind != HET_Y_SCALAR ||
	    (strcasecmp(fmt->text, "hdf5") != 0 &&
	    strcasecmp(fmt->text, "hdf") != 0 &&
	    strcasecmp(fmt->text, "h5") != 0)))
		rc = het_cl_err(ld, HET_EINVAL, fmt->line,
		    "experimental_data.file_format", "'%s' is not supported; "
		    "hetui reads HDF5 result files only (hdf5)",
		    fmt->kind == HET_Y_SCALAR ? fmt->text : "?");
out:
	free(f);
	free(d);
	free(n);
	free(joined);
	return rc;
}

int
het_cl_read_phi_algo(struct cl_load *ld, const struct cl_cand *c)
{
	struct het_ynode *v = het_cl_get(c[0].map, "algorithm");

	if (!het_cl_is_null(v) && (v->kind != HET_Y_SCALAR ||
	    strcmp(v->text, "range_based") != 0))
		return het_cl_err(ld, HET_EINVAL, v->line,
		    "phi_filtering.algorithm", "unknown value '%s'; allowed: "
		    "range_based",
		    v->kind == HET_Y_SCALAR ? v->text : "?");
	return HET_OK;
}

int
het_cl_read_phi_ranges(struct cl_load *ld, const struct cl_cand *c)
{
	struct het_config *cfg = ld->cfg;
	struct het_ynode *v, *r, *lo, *hi, *lab;
	struct het_config_phi_range *ranges;
	char path[CL_PATH_MAX], item[CL_PATH_MAX], key[CL_PATH_MAX];
	size_t i;
	int rc;

	strcpy(path, "phi_filtering.target_ranges");
	v = het_cl_get(c[0].map, "target_ranges");
	if (het_cl_is_null(v))
		return HET_OK;
	if ((rc = het_cl_want_seq(ld, v, path)) != HET_OK)
		return rc;
	ranges = het_alloc_array(v->n, sizeof(*ranges), path, ld->err);
	if (ranges == NULL)
		return HET_ENOMEM;
	cfg->phi_ranges = ranges;
	for (i = 0; i < v->n; i++) {
		r = v->vals[i];
		het_cl_path_index(item, path, i);
		if ((rc = het_cl_want_map(ld, r, item)) != HET_OK)
			return rc;
		lo = het_cl_get(r, "min_angle");
		hi = het_cl_get(r, "max_angle");
		if (lo == NULL || hi == NULL)
			return het_cl_err(ld, HET_EINVAL, r->line, item,
			    "a target "
			    "range needs both min_angle and max_angle "
			    "(degrees)");
		het_cl_path(key, item, "min_angle");
		if ((rc = het_cl_num(ld, lo, key, &ranges[i].lo)) != HET_OK)
			return rc;
		het_cl_path(key, item, "max_angle");
		if ((rc = het_cl_num(ld, hi, key, &ranges[i].hi)) != HET_OK)
			return rc;
		cfg->nphi_ranges = i + 1;
		snprintf(key, sizeof(key), "phi_range%zu", i);
		if ((rc = het_cl_prov_set(ld, key, item, r->line)) != HET_OK)
			return rc;
		lab = het_cl_get(r, "description");
		het_cl_path(key, item, "description");
		if (!het_cl_is_null(lab) && (rc = het_cl_str(ld, lab, key,
		    &ranges[i].label)) != HET_OK)
			return rc;
	}
	return HET_OK;
}

/*
 * heterodyne's legacy temporal.t_start (0-based: frames t_start + 1 ..
 * t_start + time_length) and time_length, when no start_frame or
 * end_frame is written anywhere (c: those four places, then the legacy
 * temporal section's t_start).
 */
int
het_cl_read_legacy_frames(struct cl_load *ld, const struct cl_cand *c)
{
	struct het_config *cfg = ld->cfg;
	struct het_ynode *lt = c[4].map, *ts, *tl;
	long t0 = 0, tn;
	size_t k;
	int rc;

	for (k = 0; k < 4; k++)
		if (het_cl_peek(c[k].map, c[k].key) != NULL)
			return HET_OK;
	if (lt == NULL)
		return HET_OK;
	ts = het_cl_get(lt, "t_start");
	tl = het_cl_get(lt, "time_length");
	if (!het_cl_is_null(ts)) {
		if ((rc = het_cl_long(ld, ts, "temporal.t_start", &t0)) !=
		    HET_OK)
			return rc;
		cfg->start_frame = t0 + 1;
		if ((rc = het_cl_prov_set(ld, "start_frame",
		    "temporal.t_start", ts->line)) != HET_OK)
			return rc;
	}
	if (!het_cl_is_null(tl)) {
		if ((rc = het_cl_long(ld, tl, "temporal.time_length", &tn)) !=
		    HET_OK)
			return rc;
		cfg->end_frame = t0 + tn;
		if ((rc = het_cl_prov_set(ld, "end_frame",
		    "temporal.time_length", tl->line)) != HET_OK)
			return rc;
	}
	return HET_OK;
}

