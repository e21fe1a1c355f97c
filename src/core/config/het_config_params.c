/*
 * het_config_params.c: the parameter sections of both schemas: the flat
 * initial_parameters block (both families), heterodyne's grouped
 * parameters.<group>.<name> and homodyne's parameter_space.bounds list,
 * and the priors they carry.
 *
 * Design: the layers are applied in the documented precedence order onto
 * the defaults het_cl_set_defaults() put in place for the mode, each setting
 * recording its provenance ("D0_ref.value" -> key and line) for the final
 * validation.  Unknown parameter names are errors (a misspelt name must
 * not be dropped); unknown fields beside known ones are left unconsumed
 * and become warnings.  Prior hyper-parameters map onto struct het_prior
 * (a, b) as het_params.h documents; omitted ones take the reference rules
 * (normal and truncated normal: centre and quarter width of the bounds;
 * lognormal 0, 1; halfnormal 1; exponential rate 1; beta_scaled 2, 2).
 * hetui truncates every bounded prior to the parameter's [min, max], so a
 * prior low/high that differs from the bounds is an error, never a second
 * silent box.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

static const char *const prior_camel[HET_PRIOR_COUNT] = {
	[HET_PRIOR_UNIFORM] = "Uniform",
	[HET_PRIOR_NORMAL] = "Normal",
	[HET_PRIOR_TRUNCNORMAL] = "TruncatedNormal",
	[HET_PRIOR_LOGNORMAL] = "LogNormal",
	[HET_PRIOR_HALFNORMAL] = "HalfNormal",
	[HET_PRIOR_EXPONENTIAL] = "Exponential",
	[HET_PRIOR_BETA_SCALED] = "BetaScaled",
};

const char *
het_cl_prior_camel(enum het_prior_kind kind)
{
	if ((int)kind < 0 || kind >= HET_PRIOR_COUNT)
		return "Unknown";
	return prior_camel[kind];
}

/* Compare ignoring case and underscores: TruncatedNormal = truncated_normal. */
static int
pr_same(const char *a, const char *b)
{
	for (;;) {
		while (*a == '_')
			a++;
		while (*b == '_')
			b++;
		if (*a == '\0' || *b == '\0')
			return *a == *b;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		a++;
		b++;
	}
}

int
het_cl_prior_parse(const char *name, enum het_prior_kind *kind)
{
	int k;

	if (het_prior_parse(name, kind, NULL) == HET_OK)
		return HET_OK;
	for (k = 0; k < HET_PRIOR_COUNT; k++)
		if (pr_same(name, het_prior_name((enum het_prior_kind)k))) {
			*kind = (enum het_prior_kind)k;
			return HET_OK;
		}
	return HET_EINVAL;
}

void
het_cl_prior_default(enum het_prior_kind kind, double lo, double hi,
    struct het_prior *prior)
{
	prior->kind = kind;
	prior->a = prior->b = 0;
	switch (kind) {
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
		prior->a = 0.5 * (lo + hi);
		prior->b = 0.25 * (hi - lo);
		break;
	case HET_PRIOR_LOGNORMAL:
		prior->b = 1.0;
		break;
	case HET_PRIOR_HALFNORMAL:
		prior->b = 1.0;
		break;
	case HET_PRIOR_EXPONENTIAL:
		prior->a = 1.0;
		break;
	case HET_PRIOR_BETA_SCALED:
		prior->a = prior->b = 2.0;
		break;
	default:
		break;
	}
}

/*
 * Resolve a parameter name of the config's family (physics of the mode, or
 * contrast/offset).  Returns the parameter, or NULL with *beyond set when
 * the family knows the name but the mode does not use it (homodyne static
 * and the shear parameters).
 */
static struct het_config_param *
pa_find(struct het_config *cfg, const char *name, const char **canon,
    int *beyond)
{
	const struct het_param_def *tab;
	size_t n;
	int i;

	*beyond = 0;
	if (strcmp(name, "contrast") == 0 || strcmp(name, "offset") == 0) {
		*canon = name[0] == 'c' ? "contrast" : "offset";
		return &cfg->scaling.p[name[0] == 'c' ? HET_S_CONTRAST :
		    HET_S_OFFSET];
	}
	i = het_params_find(cfg->family, name);
	if (i < 0)
		return NULL;
	tab = het_params_table(cfg->family, &n);
	*canon = tab[i].name;
	if ((size_t)i >= cfg->nphys) {
		*beyond = 1;
		return NULL;
	}
	return &cfg->phys[i];
}

static int
pa_unknown(struct cl_load *ld, int line, const char *path, const char *name)
{
	const struct het_param_def *tab;
	char list[512];
	size_t n, i, len = 0;

	tab = het_params_table(ld->cfg->family, &n);
	list[0] = '\0';
	for (i = 0; i < ld->cfg->nphys && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s, ",
		    tab[i].name);
	return het_cl_err(ld, HET_EINVAL, line, path,
	    "unknown parameter '%s' for "
	    "analysis mode %s; the names are %scontrast and offset", name,
	    het_mode_name(ld->cfg->mode), list);
}

/* Mark a whole subtree consumed (an entry hetui reports in one warning). */
static void
pa_consume(struct het_ynode *v)
{
	size_t i;

	for (i = 0; v != NULL && i < v->n; i++) {
		if (v->keys != NULL)
			v->keys[i]->used = 1;
		pa_consume(v->vals[i]);
	}
}

static int
pa_beyond(struct cl_load *ld, int line, const char *path, const char *name)
{
	return het_cl_warn(ld, path, line,
	    "%s: %s is not a parameter of analysis "
	    "mode %s; ignored", path, name, het_mode_name(ld->cfg->mode));
}

static int
pa_prov(struct cl_load *ld, const char *canon, const char *field,
    const char *path, int line)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.%s", canon, field);
	return het_cl_prov_set(ld, key, path, line);
}

/* initial_parameters.parameter_names + values. */
static int
pa_initial_values(struct cl_load *ld, struct het_ynode *ip)
{
	const struct het_param_def *tab;
	struct het_ynode *names, *vals;
	struct het_config_param *p;
	const char *canon, *nm;
	char path[CL_PATH_MAX], item[CL_PATH_MAX];
	size_t i, nn, ntab;
	int rc, beyond;

	names = het_cl_get(ip, "parameter_names");
	vals = het_cl_get(ip, "values");
	strcpy(path, "initial_parameters.parameter_names");
	if (!het_cl_is_null(names)) {
		if ((rc = het_cl_want_seq(ld, names, path)) != HET_OK)
			return rc;
		for (i = 0; i < names->n; i++) {
			het_cl_path_index(item, path, i);
			if (names->vals[i]->kind != HET_Y_SCALAR)
				return het_cl_err(ld, HET_EINVAL,
				    names->vals[i]->line, item, "expected a "
				    "parameter name");
			p = pa_find(ld->cfg, names->vals[i]->text, &canon,
			    &beyond);
			if (p == NULL && !beyond)
				return pa_unknown(ld, names->vals[i]->line,
				    item, names->vals[i]->text);
		}
	}
	if (het_cl_is_null(vals))
		return HET_OK;
	strcpy(path, "initial_parameters.values");
	if ((rc = het_cl_want_seq(ld, vals, path)) != HET_OK)
		return rc;
	tab = het_params_table(ld->cfg->family, &ntab);
	nn = !het_cl_is_null(names) ? names->n : ld->cfg->nphys;
	if (vals->n != nn)
		return het_cl_err(ld, HET_EINVAL, vals->line, path,
		    "%zu values "
		    "for %zu parameter%s (%s); give one value per name",
		    vals->n, nn, nn == 1 ? "" : "s", !het_cl_is_null(names) ?
		    "initial_parameters.parameter_names" : "the mode's "
		    "parameters in table order");
	for (i = 0; i < vals->n; i++) {
		het_cl_path_index(item, path, i);
		nm = !het_cl_is_null(
		    names) ? names->vals[i]->text : tab[i].name;
		p = pa_find(ld->cfg, nm, &canon, &beyond);
		if (p == NULL) {
			if ((rc = pa_beyond(ld, vals->vals[i]->line, item,
			    nm)) != HET_OK)
				return rc;
			continue;
		}
		if ((rc = het_cl_num(ld, vals->vals[i], item, &p->value)) !=
		    HET_OK || (rc = pa_prov(ld, canon, "value", item,
		    vals->vals[i]->line)) != HET_OK)
			return rc;
	}
	return HET_OK;
}

/* initial_parameters.active_parameters: only the listed ones vary. */
static int
pa_active(struct cl_load *ld, struct het_ynode *act)
{
	struct het_config *cfg = ld->cfg;
	struct het_config_param *p;
	const char *canon;
	char path[CL_PATH_MAX], item[CL_PATH_MAX];
	size_t i;
	int rc, beyond;

	strcpy(path, "initial_parameters.active_parameters");
	if ((rc = het_cl_want_seq(ld, act, path)) != HET_OK)
		return rc;
	for (i = 0; i < cfg->nphys; i++)
		cfg->phys[i].vary = 0;
	for (i = 0; i < HET_S_COUNT; i++)
		cfg->scaling.p[i].vary = 0;
	for (i = 0; i < act->n; i++) {
		het_cl_path_index(item, path, i);
		if (act->vals[i]->kind != HET_Y_SCALAR)
			return het_cl_err(ld, HET_EINVAL, act->vals[i]->line,
			    item,
			    "expected a parameter name");
		p = pa_find(cfg, act->vals[i]->text, &canon, &beyond);
		if (p == NULL && !beyond)
			return pa_unknown(ld, act->vals[i]->line, item,
			    act->vals[i]->text);
		if (p == NULL) {
			if ((rc = pa_beyond(ld, act->vals[i]->line, item,
			    act->vals[i]->text)) != HET_OK)
				return rc;
			continue;
		}
		p->vary = 1;
		if ((rc = pa_prov(ld, canon, "vary", item,
		    act->vals[i]->line)) != HET_OK)
			return rc;
	}
	return HET_OK;
}

/* initial_parameters.fixed_parameters: {name: value}, held fixed. */
static int
pa_fixed(struct cl_load *ld, struct het_ynode *fx)
{
	struct het_config_param *p;
	const char *canon;
	char path[CL_PATH_MAX], item[CL_PATH_MAX];
	size_t i;
	int rc, beyond;

	strcpy(path, "initial_parameters.fixed_parameters");
	if ((rc = het_cl_want_map(ld, fx, path)) != HET_OK)
		return rc;
	for (i = 0; i < fx->n; i++) {
		fx->keys[i]->used = 1;
		het_cl_path(item, path, fx->keys[i]->text);
		p = pa_find(ld->cfg, fx->keys[i]->text, &canon, &beyond);
		if (p == NULL && !beyond)
			return pa_unknown(ld, fx->keys[i]->line, item,
			    fx->keys[i]->text);
		if (p == NULL) {
			if ((rc = pa_beyond(ld, fx->keys[i]->line, item,
			    fx->keys[i]->text)) != HET_OK)
				return rc;
			continue;
		}
		if ((rc = het_cl_num(ld, fx->vals[i], item,
		    &p->value)) != HET_OK ||
		    (rc = pa_prov(ld, canon, "value", item,
		    fx->vals[i]->line)) != HET_OK)
			return rc;
		p->vary = 0;
	}
	return HET_OK;
}

/*
 * Start values of per-angle contrast or offset: a list (one per angle, or
 * one for every angle) or a single number, which is the one-value list.
 */
static int
pa_scale_values(struct cl_load *ld, struct het_ynode *v, const char *path,
    double **out, size_t *n)
{
	double	*a;
	int	 rc;

	if (v->kind != HET_Y_SCALAR)
		return het_cl_numlist(ld, v, path, out, n);
	if ((a = het_alloc_array(1, sizeof(*a), path, ld->err)) == NULL)
		return HET_ENOMEM;
	if ((rc = het_cl_num(ld, v, path, a)) != HET_OK) {
		free(a);
		return rc;
	}
	free(*out);
	*out = a;
	*n = 1;
	return HET_OK;
}
static int
pa_initial(struct cl_load *ld, struct het_ynode *ip)
{
	struct het_config_scaling *s = &ld->cfg->scaling;
	struct het_ynode *v, *ps;
	char path[CL_PATH_MAX];
	int rc;

	if ((rc = pa_initial_values(ld, ip)) != HET_OK)
		return rc;
	v = het_cl_get(ip, "active_parameters");
	if (!het_cl_is_null(v) && (rc = pa_active(ld, v)) != HET_OK)
		return rc;
	v = het_cl_get(ip, "fixed_parameters");
	if (!het_cl_is_null(v) && (rc = pa_fixed(ld, v)) != HET_OK)
		return rc;
	ps = het_cl_get(ip, "per_angle_scaling");
	strcpy(path, "initial_parameters.per_angle_scaling");
	if (het_cl_is_null(ps))
		return HET_OK;
	if ((rc = het_cl_want_map(ld, ps, path)) != HET_OK)
		return rc;
	v = het_cl_get(ps, "contrast");
	strcpy(path, "initial_parameters.per_angle_scaling.contrast");
	if (!het_cl_is_null(v) && ((rc = pa_scale_values(ld, v, path,
	    &s->init_contrast, &s->ninit_contrast)) != HET_OK ||
	    (rc = het_cl_prov_set(ld, "init_contrast", path,
	    v->line)) != HET_OK))
		return rc;
	v = het_cl_get(ps, "offset");
	strcpy(path, "initial_parameters.per_angle_scaling.offset");
	if (!het_cl_is_null(v) && ((rc = pa_scale_values(ld, v, path,
	    &s->init_offset, &s->ninit_offset)) != HET_OK ||
	    (rc = het_cl_prov_set(ld, "init_offset", path, v->line)) != HET_OK))
		return rc;
	return HET_OK;
}

/* A bound read from min/max, with provenance. */
static int
pa_bound(struct cl_load *ld, struct het_ynode *m, const char *prefix,
    const char *key, const char *canon, double *out)
{
	struct het_ynode *v = het_cl_get(m, key);
	char path[CL_PATH_MAX];
	int rc;

	if (het_cl_is_null(v))
		return HET_OK;
	het_cl_path(path, prefix, key);
	if ((rc = het_cl_num(ld, v, path, out)) != HET_OK)
		return rc;
	return pa_prov(ld, canon, strcmp(key, "max") == 0 ? "max" : "min",
	    path, v->line);
}

/* A prior hyper-parameter under one of two names, or its default. */
static int
pa_hyper(struct cl_load *ld, struct het_ynode *pp, const char *prefix,
    const char *k1, const char *k2, double *out)
{
	const char *keys[3] = { k1, k2, NULL };
	struct het_ynode *v;
	char path[CL_PATH_MAX];

	v = het_cl_alias(ld, pp, prefix, keys, path);
	if (ld->err->code != HET_OK)
		return ld->err->code;
	if (het_cl_is_null(v))
		return HET_OK;
	return het_cl_num(ld, v, path, out);
}

/* prior_params low/high must be the parameter's bounds. */
static int
pa_support(struct cl_load *ld, struct het_ynode *pp, const char *prefix,
    const char *key, double bound, const char *bname)
{
	struct het_ynode *v = het_cl_get(pp, key);
	char path[CL_PATH_MAX];
	double x;
	int rc;

	if (het_cl_is_null(v))
		return HET_OK;
	het_cl_path(path, prefix, key);
	if ((rc = het_cl_num(ld, v, path, &x)) != HET_OK)
		return rc;
	if (x != bound)
		return het_cl_err(ld, HET_EINVAL, v->line, path,
		    "%g differs from "
		    "the parameter's %s %g; hetui truncates every prior to "
		    "[min, max], so set %s: %g instead", x, bname, bound, bname,
		    x);
	return HET_OK;
}

/* parameters.<group>.<name>.prior + prior_params (heterodyne). */
static int
pa_prior(struct cl_load *ld, struct het_ynode *e, const char *prefix,
    const char *canon, struct het_config_param *p)
{
	struct het_ynode *pr, *pp;
	enum het_prior_kind kind;
	char path[CL_PATH_MAX], pprefix[CL_PATH_MAX];
	int rc;

	pr = het_cl_get(e, "prior");
	pp = het_cl_get(e, "prior_params");
	het_cl_path(path, prefix, "prior");
	het_cl_path(pprefix, prefix, "prior_params");
	if (het_cl_is_null(pr)) {
		if (!het_cl_is_null(pp))
			return het_cl_err(ld, HET_EINVAL, pp->line, pprefix,
			    "prior_params without a prior; add 'prior: "
			    "truncated_normal' (or another type) beside it");
		return HET_OK;
	}
	if (pr->kind != HET_Y_SCALAR || het_cl_prior_parse(pr->text, &kind) !=
	    HET_OK)
		return het_cl_err(ld, HET_EINVAL, pr->line, path,
		    "unknown prior "
		    "type '%s'; allowed: uniform, normal, truncated_normal, "
		    "lognormal, halfnormal, exponential, beta_scaled",
		    pr->kind == HET_Y_SCALAR ? pr->text : "?");
	het_cl_prior_default(kind, p->lo, p->hi, &p->prior);
	if ((rc = pa_prov(ld, canon, "prior", path, pr->line)) != HET_OK)
		return rc;
	if (het_cl_is_null(pp))
		return HET_OK;
	if ((rc = het_cl_want_map(ld, pp, pprefix)) != HET_OK)
		return rc;
	if ((rc = pa_prov(ld, canon, "prior", pprefix, pp->line)) != HET_OK)
		return rc;
	switch (kind) {
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
	case HET_PRIOR_LOGNORMAL:
		if ((rc = pa_hyper(ld, pp, pprefix, "loc", "mu",
		    &p->prior.a)) != HET_OK)
			return rc;
		/* FALLTHROUGH */
	case HET_PRIOR_HALFNORMAL:
		if ((rc = pa_hyper(ld, pp, pprefix, "scale", "sigma",
		    &p->prior.b)) != HET_OK)
			return rc;
		break;
	case HET_PRIOR_EXPONENTIAL:
		if ((rc = pa_hyper(ld, pp, pprefix, "rate", NULL,
		    &p->prior.a)) != HET_OK)
			return rc;
		break;
	case HET_PRIOR_BETA_SCALED:
		if ((rc = pa_hyper(ld, pp, pprefix, "concentration1", NULL,
		    &p->prior.a)) != HET_OK || (rc = pa_hyper(ld, pp, pprefix,
		    "concentration2", NULL, &p->prior.b)) != HET_OK)
			return rc;
		break;
	default:
		break;
	}
	if (kind == HET_PRIOR_UNIFORM || kind == HET_PRIOR_TRUNCNORMAL ||
	    kind == HET_PRIOR_BETA_SCALED) {
		if ((rc = pa_support(ld, pp, pprefix, "low", p->lo, "min")) !=
		    HET_OK || (rc = pa_support(ld, pp, pprefix, "high", p->hi,
		    "max")) != HET_OK)
			return rc;
	}
	return HET_OK;
}

/* One parameters.<group>.<name> entry. */
static int
pa_grouped_one(struct cl_load *ld, const char *group, struct het_ynode *key,
    struct het_ynode *e, const char *prefix)
{
	struct het_config_param *p;
	const struct het_param_def *tab, *def;
	struct het_ynode *v;
	const char *canon;
	char path[CL_PATH_MAX];
	size_t n;
	int rc, beyond, idx;

	p = pa_find(ld->cfg, key->text, &canon, &beyond);
	if (p == NULL)
		return pa_unknown(ld, key->line, prefix, key->text);
	if (strcmp(canon, "contrast") == 0 || strcmp(canon, "offset") == 0)
		def = het_params_scaling(ld->cfg->family,
		    canon[0] == 'c' ? HET_S_CONTRAST : HET_S_OFFSET);
	else {
		tab = het_params_table(ld->cfg->family, &n);
		idx = het_params_find(ld->cfg->family, key->text);
		def = &tab[idx];
	}
	if (def->group != NULL && strcmp(def->group, group) != 0)
		return het_cl_err(ld, HET_EINVAL, key->line, prefix,
		    "%s belongs "
		    "to group '%s', not '%s'; move it to parameters.%s.%s",
		    canon, def->group, group, def->group, canon);
	if (e->kind == HET_Y_SCALAR) {
		/* "D0_ref: 5000" is shorthand for its value */
		if ((rc = het_cl_num(ld, e, prefix, &p->value)) != HET_OK)
			return rc;
		return pa_prov(ld, canon, "value", prefix, e->line);
	}
	if ((rc = het_cl_want_map(ld, e, prefix)) != HET_OK)
		return rc;
	if ((rc = pa_bound(ld, e, prefix, "min", canon, &p->lo)) != HET_OK ||
	    (rc = pa_bound(ld, e, prefix, "max", canon, &p->hi)) != HET_OK)
		return rc;
	v = het_cl_get(e, "value");
	het_cl_path(path, prefix, "value");
	if (!het_cl_is_null(v) && ((rc = het_cl_num(ld, v, path, &p->value)) !=
	    HET_OK || (rc = pa_prov(ld, canon, "value", path, v->line)) !=
	    HET_OK))
		return rc;
	v = het_cl_get(e, "vary");
	het_cl_path(path, prefix, "vary");
	if (!het_cl_is_null(v) && ((rc = het_cl_bool(ld, v, path, &p->vary)) !=
	    HET_OK || (rc = pa_prov(ld, canon, "vary", path, v->line)) !=
	    HET_OK))
		return rc;
	return pa_prior(ld, e, prefix, canon, p);
}

/* parameters.<group>.<name> (heterodyne). */
static int
pa_grouped(struct cl_load *ld, struct het_ynode *params)
{
	static const char *const groups[] = { "reference", "sample",
	    "velocity", "fraction", "angle", "scaling" };
	struct het_ynode *g;
	char gpath[CL_PATH_MAX], path[CL_PATH_MAX];
	size_t k, i;
	int rc;

	if ((rc = het_cl_want_map(ld, params, "parameters")) != HET_OK)
		return rc;
	for (k = 0; k < HET_ARRAY_LEN(groups); k++) {
		g = het_cl_get(params, groups[k]);
		het_cl_path(gpath, "parameters", groups[k]);
		if (het_cl_is_null(g))
			continue;
		if ((rc = het_cl_want_map(ld, g, gpath)) != HET_OK)
			return rc;
		for (i = 0; i < g->n; i++) {
			g->keys[i]->used = 1;
			het_cl_path(path, gpath, g->keys[i]->text);
			if (het_cl_is_null(g->vals[i]))
				continue;
			if ((rc = pa_grouped_one(ld, groups[k], g->keys[i],
			    g->vals[i], path)) != HET_OK)
				return rc;
		}
	}
	return HET_OK;
}

/* One parameter_space.bounds entry (homodyne). */
static int
pa_bounds_one(struct cl_load *ld, struct het_ynode *e, const char *prefix)
{
	struct het_config_param *p;
	struct het_ynode *nm, *ty, *mu, *sg;
	enum het_prior_kind kind = HET_PRIOR_TRUNCNORMAL;
	const char *canon;
	char path[CL_PATH_MAX];
	int rc, beyond;

	if ((rc = het_cl_want_map(ld, e, prefix)) != HET_OK)
		return rc;
	nm = het_cl_get(e, "name");
	het_cl_path(path, prefix, "name");
	if (het_cl_is_null(nm) || nm->kind != HET_Y_SCALAR)
		return het_cl_err(ld, HET_EINVAL, e->line, prefix,
		    "a bounds entry "
		    "needs 'name: PARAMETER'");
	p = pa_find(ld->cfg, nm->text, &canon, &beyond);
	if (p == NULL && !beyond)
		return pa_unknown(ld, nm->line, path, nm->text);
	if (p == NULL) {
		pa_consume(e);
		return pa_beyond(ld, e->line, prefix, nm->text);
	}
	if ((rc = pa_bound(ld, e, prefix, "min", canon, &p->lo)) != HET_OK ||
	    (rc = pa_bound(ld, e, prefix, "max", canon, &p->hi)) != HET_OK)
		return rc;
	ty = het_cl_get(e, "type");
	het_cl_path(path, prefix, "type");
	if (!het_cl_is_null(ty) && (ty->kind != HET_Y_SCALAR ||
	    het_cl_prior_parse(ty->text, &kind) != HET_OK))
		return het_cl_err(ld, HET_EINVAL, ty->line, path,
		    "unknown prior "
		    "type '%s'; allowed: Uniform, Normal, TruncatedNormal, "
		    "LogNormal, HalfNormal, Exponential, BetaScaled (or the "
		    "snake_case names)", ty->kind == HET_Y_SCALAR ? ty->text :
		    "?");
	/* Every bounds entry defines the prior; omitted numbers default. */
	het_cl_prior_default(kind, p->lo, p->hi, &p->prior);
	if ((rc = pa_prov(ld, canon, "prior", !het_cl_is_null(
	    ty) ? path : prefix,
	    !het_cl_is_null(ty) ? ty->line : e->line)) != HET_OK)
		return rc;
	mu = het_cl_get(e, "prior_mu");
	sg = het_cl_get(e, "prior_sigma");
	if (!het_cl_is_null(mu)) {
		het_cl_path(path, prefix, "prior_mu");
		if ((rc = het_cl_num(ld, mu, path, &p->prior.a)) != HET_OK ||
		    (rc = pa_prov(ld, canon, "prior", path, mu->line)) !=
		    HET_OK)
			return rc;
	}
	if (!het_cl_is_null(sg)) {
		het_cl_path(path, prefix, "prior_sigma");
		if ((rc = het_cl_num(ld, sg, path, &p->prior.b)) != HET_OK ||
		    (rc = pa_prov(ld, canon, "prior", path, sg->line)) !=
		    HET_OK)
			return rc;
	}
	return HET_OK;
}

static int
pa_bounds(struct cl_load *ld, struct het_ynode *ps)
{
	struct het_ynode *b;
	char path[CL_PATH_MAX];
	size_t i;
	int rc;

	if ((rc = het_cl_want_map(ld, ps, "parameter_space")) != HET_OK)
		return rc;
	b = het_cl_get(ps, "bounds");
	if (het_cl_is_null(b))
		return HET_OK;
	if ((rc = het_cl_want_seq(ld, b, "parameter_space.bounds")) != HET_OK)
		return rc;
	for (i = 0; i < b->n; i++) {
		het_cl_path_index(path, "parameter_space.bounds", i);
		if ((rc = pa_bounds_one(ld, b->vals[i], path)) != HET_OK)
			return rc;
	}
	return HET_OK;
}

/*
 * After all layers: an untouched default value that no longer fits the
 * configured bounds starts from their middle (with a warning), and the
 * analysis mode fixes the parameters it does not fit.
 */
static int
pa_finish_one(struct cl_load *ld, struct het_config_param *p,
    const char *name, int log_space, int mode_fixed)
{
	const struct cl_prov *pv;
	char key[64];
	double old = p->value;
	int rc;

	snprintf(key, sizeof(key), "%s.value", name);
	if (het_cl_prov_find(ld, key) == NULL && p->lo < p->hi &&
	    (p->value < p->lo || p->value > p->hi)) {
		p->value = log_space && p->lo > 0 ? sqrt(p->lo * p->hi) :
		    0.5 * (p->lo + p->hi);
		snprintf(key, sizeof(key), "%s.min", name);
		pv = het_cl_prov_find(ld, key);
		if (pv == NULL) {
			snprintf(key, sizeof(key), "%s.max", name);
			pv = het_cl_prov_find(ld, key);
		}
		rc = het_cl_warn(ld, pv != NULL ? pv->path : name,
		    pv != NULL ? pv->line : 0, "%s: no value is given for %s "
		    "and its default %g lies outside [%g, %g]; it starts from "
		    "%g", pv != NULL ? pv->path : name, name, old, p->lo,
		    p->hi, p->value);
		if (rc != HET_OK)
			return rc;
	}
	if (mode_fixed && p->vary) {
		snprintf(key, sizeof(key), "%s.vary", name);
		pv = het_cl_prov_find(ld, key);
		p->vary = 0;
		rc = het_cl_warn(ld, pv != NULL ? pv->path : name,
		    pv != NULL ? pv->line : 0, "%s: vary is overridden; "
		    "analysis mode %s holds %s fixed at %g",
		    pv != NULL ? pv->path : name, het_mode_name(ld->cfg->mode),
		    name, p->value);
		if (rc != HET_OK)
			return rc;
	}
	return HET_OK;
}

int
het_cl_read_params(struct cl_load *ld)
{
	struct het_config *cfg = ld->cfg;
	const struct het_param_def *tab;
	struct het_ynode *v;
	size_t i, n;
	int rc;

	v = het_cl_get(ld->root, "initial_parameters");
	if (!het_cl_is_null(v) && ((rc = het_cl_want_map(ld, v,
	    "initial_parameters")) != HET_OK || (rc = pa_initial(ld, v)) !=
	    HET_OK))
		return rc;
	if (cfg->family == HET_FAMILY_HETERODYNE) {
		v = het_cl_get(ld->root, "parameters");
		if (!het_cl_is_null(v) && (rc = pa_grouped(ld, v)) != HET_OK)
			return rc;
	} else {
		v = het_cl_get(ld->root, "parameter_space");
		if (!het_cl_is_null(v) && (rc = pa_bounds(ld, v)) != HET_OK)
			return rc;
	}
	tab = het_params_table(cfg->family, &n);
	for (i = 0; i < cfg->nphys; i++)
		if ((rc = pa_finish_one(ld, &cfg->phys[i], tab[i].name,
		    tab[i].log_space, !het_mode_default_vary(cfg->mode, i))) !=
		    HET_OK)
			return rc;
	for (i = 0; i < HET_S_COUNT; i++)
		if ((rc = pa_finish_one(ld, &cfg->scaling.p[i],
		    het_params_scaling(cfg->family,
		    (enum het_scaling_param)i)->name, 0, 0)) != HET_OK)
			return rc;
	return HET_OK;
}
