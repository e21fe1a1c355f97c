/*
 * het_config_opt.c: the typed handlers of the settings' schema table
 * (het_config_table.c: x_scale, x_scale_map, worker_command and
 * output_dir).
 *
 * Design: the table reads every plain setting from its candidate
 * locations with het_cl_pick(), so synonyms map onto one field and a
 * disagreeing synonym is reported; what has a shape of its own is read
 * here.  Range checks are left to het_cl_validate(), which names the key
 * and line through the provenance recorded here.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

/* optimization.nlsq.x_scale_map: {name: scale > 0}. */
static int
rd_xscale_map(struct cl_load *ld, struct het_ynode *m, const char *path)
{
	struct het_config_param *p;
	char key[CL_PATH_MAX];
	size_t i;
	int rc;

	if ((rc = het_cl_want_map(ld, m, path)) != HET_OK)
		return rc;
	for (i = 0; i < m->n; i++) {
		m->keys[i]->used = 1;
		het_cl_path(key, path, m->keys[i]->text);
		p = het_config_param(ld->cfg, m->keys[i]->text);
		if (p == NULL)
			return het_cl_err(ld, HET_EINVAL, m->keys[i]->line, key,
			    "'%s' is not a parameter of mode %s",
			    m->keys[i]->text, het_mode_name(ld->cfg->mode));
		if ((rc = het_cl_num(ld, m->vals[i], key,
		    &p->x_scale)) != HET_OK)
			return rc;
		if (p->x_scale <= 0)
			return het_cl_err(ld, HET_EINVAL, m->vals[i]->line, key,
			    "scale %g must be > 0", p->x_scale);
	}
	return HET_OK;
}

/*
 * The value of a setting whose candidates are spellings in one mapping
 * (the table's, in precedence order), read with het_cl_alias: a
 * disagreeing spelling is reported as "says the same thing".  NULL with
 * *rc set when that report failed; NULL with HET_OK when absent.
 */
static struct het_ynode *
alias_of(struct cl_load *ld, const struct cl_cand *c, size_t n, char *path,
    int *rc)
{
	const char *keys[HET_CK_MAXCAND + 1];
	struct het_ynode *v;
	size_t i;

	for (i = 0; i < n && i < HET_CK_MAXCAND; i++)
		keys[i] = c[i].key;
	keys[i] = NULL;
	v = het_cl_alias(ld, c[0].map, c[0].prefix, keys, path);
	*rc = ld->err != NULL ? ld->err->code : HET_OK;
	return *rc == HET_OK && !het_cl_is_null(v) ? v : NULL;
}

int
het_cl_read_x_scale(struct cl_load *ld, const struct cl_cand *c, size_t n)
{
	struct het_config_nlsq *nq = &ld->cfg->nlsq;
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	if ((v = alias_of(ld, c, n, path, &rc)) == NULL)
		return rc;
	if (v->kind == HET_Y_SCALAR && strcmp(v->text, "jac") == 0) {
		nq->x_scale_jac = 1;
		return HET_OK;
	}
	if (v->kind != HET_Y_SCALAR)
		return het_cl_err(ld, HET_EINVAL, v->line, path, "expected "
		    "\"jac\" or a number > 0 (per-parameter scales go in "
		    "x_scale_map)");
	if (het_cl_num(ld, v, path, &nq->x_scale) != HET_OK)
		return het_cl_err(ld, HET_EINVAL, v->line, path, "expected "
		    "\"jac\" or a number > 0, found '%s'", v->text);
	nq->x_scale_jac = 0;
	return het_cl_prov_set(ld, "nlsq.x_scale", path, v->line);
}

int
het_cl_read_x_scale_map(struct cl_load *ld, const struct cl_cand *c)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;

	v = het_cl_get(c[0].map, c[0].key);
	het_cl_path(path, c[0].prefix, c[0].key);
	if (het_cl_is_null(v))
		return HET_OK;
	return rd_xscale_map(ld, v, path);
}

int
het_cl_read_string(struct cl_load *ld, const struct het_cl_key *k,
    const struct cl_cand *c, size_t n, char **out)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	v = het_cl_pick(ld, c, n, path, &rc);
	if (v == NULL || rc != HET_OK)
		return rc;
	if ((rc = het_cl_str(ld, v, path, out)) != HET_OK)
		return rc;
	return het_cl_prov_set(ld, k->canon, path, v->line);
}

int
het_cl_read_output_dir(struct cl_load *ld, const struct cl_cand *c,
    size_t n)
{
	char path[CL_PATH_MAX];
	struct het_ynode *v;
	int rc;

	if ((v = alias_of(ld, c, n, path, &rc)) == NULL)
		return rc;
	return het_cl_str(ld, v, path, &ld->cfg->output_dir);
}
