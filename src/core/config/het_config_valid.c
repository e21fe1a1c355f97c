/*
 * het_config_valid.c: validation of a whole configuration.
 *
 * Design: one function checks every field (bounds, values inside bounds,
 * priors, the frame window, positive dt and q, probabilities, counts,
 * timeouts) and is used twice: by the loader, which passes its provenance
 * table so that messages carry the file, line and key the user wrote, and
 * by het_config_validate() after a caller edited fields, where messages
 * name hetui's canonical key.  The first problem found is reported, in a
 * fixed order, so messages are reproducible.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "het_config_impl.h"

struct vctx {
	const struct het_config	*cfg;
	const struct cl_load	*ld;
	struct het_error	*err;
};

static int __attribute__((format(printf, 4, 5)))
v_err(const struct vctx *v, const char *canon, const char *key,
    const char *fmt, ...)
{
	const struct cl_prov *p = het_cl_prov_find(v->ld, canon);
	char msg[HET_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p != NULL && p->line > 0)
		return het_error_set(v->err, HET_EINVAL, "%s:%d: %s: %s",
		    v->ld->name, p->line, p->path, msg);
	if (v->ld != NULL)
		return het_error_set(v->err, HET_EINVAL, "%s: %s: %s",
		    v->ld->name, key, msg);
	return het_error_set(v->err, HET_EINVAL, "%s: %s", key, msg);
}

/* A number that must lie in a range; lo_open/hi_open pick < or <=. */
static int
v_range(const struct vctx *v, const char *canon, const char *key, double x,
    double lo, int lo_open, double hi, int hi_open)
{
	int bad = !isfinite(x) || (lo_open ? x <= lo : x < lo) ||
	    (hi_open ? x >= hi : x > hi);

	if (!bad)
		return HET_OK;
	if (isinf(hi))
		return v_err(v, canon, key, "%g must be %s %g", x,
		    lo_open ? ">" : ">=", lo);
	return v_err(v, canon, key, "%g is outside the allowed range "
	    "%s%g, %g%s", x, lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
}

static int
v_count(const struct vctx *v, const char *canon, const char *key, long x,
    long lo, long hi)
{
	if (x >= lo && x <= hi)
		return HET_OK;
	if (hi == 0x7fffffffL)
		return v_err(v, canon, key, "%ld must be >= %ld", x, lo);
	return v_err(v, canon, key, "%ld is outside the allowed range "
	    "[%ld, %ld]", x, lo, hi);
}

static int
v_prior(const struct vctx *v, const char *name, const struct het_prior *pr)
{
	char canon[64];
	const char *kn = het_prior_name(pr->kind);

	snprintf(canon, sizeof(canon), "%s.prior", name);
	if ((int)pr->kind < 0 || pr->kind >= HET_PRIOR_COUNT)
		return v_err(v, canon, canon, "unknown prior type %d",
		    (int)pr->kind);
	if (!isfinite(pr->a) || !isfinite(pr->b))
		return v_err(v, canon, canon, "prior parameters must be "
		    "finite");
	switch (pr->kind) {
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
	case HET_PRIOR_LOGNORMAL:
	case HET_PRIOR_HALFNORMAL:
		if (pr->b <= 0)
			return v_err(v, canon, canon, "a %s prior needs scale "
			    "(sigma) > 0, found %g", kn, pr->b);
		break;
	case HET_PRIOR_EXPONENTIAL:
		if (pr->a <= 0)
			return v_err(v, canon, canon, "an exponential prior "
			    "needs rate > 0, found %g", pr->a);
		break;
	case HET_PRIOR_BETA_SCALED:
		if (pr->a <= 0 || pr->b <= 0)
			return v_err(v, canon, canon, "a beta_scaled prior "
			    "needs concentration1 and concentration2 > 0, "
			    "found %g and %g", pr->a, pr->b);
		break;
	default:
		break;
	}
	return HET_OK;
}

static int
v_param(const struct vctx *v, const char *name,
    const struct het_config_param *p)
{
	char cmin[64], cmax[64], cval[64];
	int rc;

	snprintf(cmin, sizeof(cmin), "%s.min", name);
	snprintf(cmax, sizeof(cmax), "%s.max", name);
	snprintf(cval, sizeof(cval), "%s.value", name);
	if (!isfinite(p->lo) || !isfinite(p->hi) || p->lo >= p->hi)
		return v_err(v, het_cl_prov_find(v->ld,
		    cmin) != NULL ? cmin : cmax,
		    cmin, "lower bound %g is not below upper bound %g of %s; "
		    "choose min < max", p->lo, p->hi, name);
	if (!isfinite(p->value) || p->value < p->lo || p->value > p->hi)
		return v_err(v, het_cl_prov_find(v->ld,
		    cval) != NULL ? cval : cmin,
		    cval, "value %g is outside the bounds [%g, %g] of %s; "
		    "choose a value inside them or widen min/max", p->value,
		    p->lo, p->hi, name);
	if ((rc = v_prior(v, name, &p->prior)) != HET_OK)
		return rc;
	if (!isfinite(p->x_scale) || p->x_scale < 0)
		return v_err(v, name, name, "x_scale %g must be > 0 (or 0 for "
		    "the global setting)", p->x_scale);
	return HET_OK;
}

static int
v_data(const struct vctx *v)
{
	const struct het_config *c = v->cfg;
	char canon[64];
	size_t i;
	int rc;

	if (c->dt_set && (rc = v_range(v, "dt", "analyzer_parameters.dt",
	    c->dt, 0, 1, INFINITY, 0)) != HET_OK)
		return rc;
	if (c->start_frame < 1)
		return v_err(v, "start_frame",
		    "analyzer_parameters.start_frame", "%ld must be >= 1 "
		    "(frames are counted from 1)",
		    c->start_frame);
	if (c->end_frame != -1 && c->end_frame <= c->start_frame)
		return v_err(v, "end_frame", "analyzer_parameters.end_frame",
		    "%ld must be -1 (the last frame) or greater than "
		    "start_frame %ld", c->end_frame, c->start_frame);
	if (c->q_set && (rc = v_range(v, "wavevector_q",
	    "analyzer_parameters.scattering.wavevector_q", c->wavevector_q,
	    0, 1, INFINITY, 0)) != HET_OK)
		return rc;
	if (c->gap_set && (rc = v_range(v, "stator_rotor_gap",
	    "analyzer_parameters.geometry.stator_rotor_gap",
	    c->stator_rotor_gap, 0, 1, INFINITY, 0)) != HET_OK)
		return rc;
	for (i = 0; i < c->nphi_angles; i++)
		if ((rc = v_range(v, "phi_angles",
		    "analyzer_parameters.scattering.phi_angles",
		    c->phi_angles[i], -360, 0, 360, 0)) != HET_OK)
			return rc;
	for (i = 0; i < c->nphi_ranges; i++) {
		snprintf(canon, sizeof(canon), "phi_range%zu", i);
		if ((rc = v_range(v, canon, "phi_filtering.target_ranges",
		    c->phi_ranges[i].lo, -360, 0, 360, 0)) != HET_OK ||
		    (rc = v_range(v, canon, "phi_filtering.target_ranges",
		    c->phi_ranges[i].hi, -360, 0, 360, 0)) != HET_OK)
			return rc;
	}
	return v_range(v, "phi_filtering.tolerance", "phi_filtering.tolerance",
	    c->phi_tolerance, 0, 0, 180, 1);
}

static int
v_scaling(const struct vctx *v)
{
	const struct het_config_scaling *s = &v->cfg->scaling;
	const struct het_config_param *pc = &s->p[HET_S_CONTRAST];
	const struct het_config_param *po = &s->p[HET_S_OFFSET];
	size_t i;
	int rc;

	if ((rc = v_param(v, "contrast", pc)) != HET_OK ||
	    (rc = v_param(v, "offset", po)) != HET_OK)
		return rc;
	if ((int)s->nlsq_mode < 0 || s->nlsq_mode >= HET_SCALING_COUNT ||
	    (int)s->cmc_mode < 0 || s->cmc_mode >= HET_SCALING_COUNT)
		return v_err(v, "per_angle_mode", "per_angle_mode", "unknown "
		    "scaling mode");
	for (i = 0; i < s->ninit_contrast; i++)
		if ((rc = v_range(v, "init_contrast",
		    "initial_parameters.per_angle_scaling.contrast",
		    s->init_contrast[i], pc->lo, 0, pc->hi, 0)) != HET_OK)
			return rc;
	for (i = 0; i < s->ninit_offset; i++)
		if ((rc = v_range(v, "init_offset",
		    "initial_parameters.per_angle_scaling.offset",
		    s->init_offset[i], po->lo, 0, po->hi, 0)) != HET_OK)
			return rc;
	return HET_OK;
}

/* One schema-table setting against its check (het_config_table.c). */
static int
v_key(const struct vctx *v, const struct het_cl_key *k)
{
	const char *field = (const char *)v->cfg + k->off;
	const struct het_cl_section *sec = &het_cl_sections[k->tsec];
	char key[CL_PATH_MAX];
	long x;

	if (k->check == HET_CV_NONE || k->tkey == NULL)
		return HET_OK;		/* no check, or one of its own */
	snprintf(key, sizeof(key), "%s.%s", sec->path, k->tkey);
	switch (k->check) {
	case HET_CV_RANGE:
		return v_range(v, k->canon, key, *(const double *)field, k->lo,
		    k->lo_open, k->hi, k->hi_open);
	case HET_CV_COUNT:
		return v_count(v, k->canon, key, *(const long *)field,
		    (long)k->lo, (long)k->hi);
	case HET_CV_AUTO:
		if ((x = *(const long *)field) < 0)
			return v_err(v, k->canon, key, "%ld must be >= 1, or "
			    "\"auto\"", x);
		return HET_OK;
	case HET_CV_ZERO_OR:
		x = *(const long *)field;
		if (x != 0 && (x < (long)k->lo || x > (long)k->hi))
			return v_err(v, k->canon, key, "%ld: use 0 (%s) or "
			    "%ld to %ld importance draws", x, k->zero,
			    (long)k->lo, (long)k->hi);
		return HET_OK;
	case HET_CV_NONE:
		break;
	}
	return HET_OK;
}

/* The optimiser settings: the table's checks, then what crosses
   fields or has a check of its own. */
static int
v_optimizer(const struct vctx *v)
{
	const struct het_config_nlsq *n = &v->cfg->nlsq;
	const struct het_config_cmc *c = &v->cfg->cmc;
	size_t i;
	int rc;

	for (i = 0; i < het_cl_nkeys; i++)
		if ((rc = v_key(v, &het_cl_keys[i])) != HET_OK)
			return rc;
	if ((int)n->method < 0 || n->method >= HET_NLSQ_METHOD_COUNT ||
	    (int)n->loss < 0 || n->loss >= HET_LOSS_COUNT)
		return v_err(v, "nlsq.method", "optimization.nlsq.method",
		    "unknown method or loss");
	if (!n->x_scale_jac && (rc = v_range(v, "nlsq.x_scale",
	    "optimization.nlsq.x_scale", n->x_scale, 0, 1, INFINITY, 0)) !=
	    HET_OK)
		return rc;
	if (c->max_points_per_shard > 0 &&
	    c->max_points_per_shard < c->min_points_per_shard)
		return v_err(v, "cmc.max_points_per_shard",
		    "optimization.cmc.sharding.max_points_per_shard", "%ld is "
		    "below min_points_per_shard %ld; raise it or use \"auto\"",
		    c->max_points_per_shard, c->min_points_per_shard);
	if (c->heartbeat_timeout > c->per_shard_timeout)
		return v_err(v, "cmc.heartbeat_timeout",
		    "optimization.cmc.timeout.heartbeat_timeout",
		    "%g s exceeds per_shard_timeout %g s; a silent worker must "
		    "be noticed before its shard times out", c->heartbeat_timeout,
		    c->per_shard_timeout);
	if ((int)c->strategy < 0 || c->strategy >= HET_SHARD_COUNT ||
	    (int)c->combine < 0 || c->combine >= HET_COMBINE_COUNT ||
	    (int)c->sigma < 0 || c->sigma >= HET_SIGMA_COUNT)
		return v_err(v, "cmc.strategy", "optimization.cmc.sharding",
		    "unknown sharding strategy, combination method or sigma "
		    "method");
	if (c->worker_command != NULL && c->worker_command[0] == '\0')
		return v_err(v, "cmc.worker_command",
		    "optimization.cmc.worker_command", "empty; remove the key "
		    "to use the installed hetui-worker");
	return HET_OK;
}

int
het_cl_validate(const struct het_config *cfg, const struct cl_load *ld,
    struct het_error *err)
{
	const struct het_param_def *tab;
	struct vctx v = { cfg, ld, err };
	size_t i, n;
	int rc;

	if ((int)cfg->mode < 0 || cfg->mode >= HET_MODE_COUNT ||
	    cfg->family != het_mode_family(cfg->mode) ||
	    cfg->nphys != het_mode_nphys(cfg->mode))
		return v_err(&v, "analysis_mode", "analysis_mode", "the mode, "
		    "family and parameter count disagree (mode %d)",
		    (int)cfg->mode);
	if ((rc = v_data(&v)) != HET_OK)
		return rc;
	tab = het_params_table(cfg->family, &n);
	for (i = 0; i < cfg->nphys; i++)
		if ((rc = v_param(&v, tab[i].name, &cfg->phys[i])) != HET_OK)
			return rc;
	if ((rc = v_scaling(&v)) != HET_OK ||
	    (rc = v_optimizer(&v)) != HET_OK)
		return rc;
	if (cfg->output_dir == NULL || cfg->output_dir[0] == '\0')
		return v_err(&v, "output_dir", "output.output_dir", "empty; "
		    "name the directory results are written to");
	return HET_OK;
}

int
het_config_validate(const struct het_config *cfg, struct het_error *err)
{
	return het_cl_validate(cfg, NULL, err);
}
