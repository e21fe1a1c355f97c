/*
 * het_config.c: configuration objects: defaults, loading (the driver of
 * the section readers), copying, comparison and the small lookups other
 * modules need.
 *
 * Design: a load is parse -> decide the mode -> put the mode's defaults in
 * place -> apply the sections in precedence order -> report unconsumed
 * keys -> validate everything (het_config_valid.c).  Nothing is kept from
 * the YAML tree after a load: the struct is the configuration.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

#define CFG_MAX_FILE	(16 * 1024 * 1024)

/* The canonical names are the schema table's first word of each value. */
const char *
het_config_scaling_name(enum het_scaling_mode mode)
{
	return het_cl_canon_word("scaling.nlsq_mode", (int)mode);
}

const char *
het_config_method_name(enum het_config_nlsq_method method)
{
	return het_cl_canon_word("nlsq.method", (int)method);
}

const char *
het_config_loss_name(enum het_nlsq_loss loss)
{
	return het_cl_canon_word("nlsq.loss", (int)loss);
}

const char *
het_config_sharding_name(enum het_shard_strategy strategy)
{
	return het_cl_canon_word("cmc.strategy", (int)strategy);
}

const char *
het_config_combine_name(enum het_cons_method combine)
{
	return het_cl_canon_word("cmc.combine", (int)combine);
}

const char *
het_config_sigma_name(enum het_config_sigma sigma)
{
	return het_cl_canon_word("cmc.sigma", (int)sigma);
}

const char *
het_config_coords_name(int level)
{
	return het_cl_canon_word("cmc.coordinates", level);
}

int
het_config_coords(const struct het_config_cmc *cmc)
{
	return cmc->use_reparam ? cmc->coordinates : 0;
}

static void
param_from_def(struct het_config_param *p, const struct het_param_def *d)
{
	p->value = d->value;
	p->lo = d->lo;
	p->hi = d->hi;
	p->prior = d->prior;
	p->x_scale = 0;
	p->vary = 1;
}

int
het_cl_set_defaults(struct het_config *cfg, enum het_mode mode,
    struct het_error *err)
{
	const struct het_param_def *tab;
	size_t i, n;
	int hom;

	cfg->mode = mode;
	cfg->family = het_mode_family(mode);
	hom = cfg->family == HET_FAMILY_HOMODYNE;
	cfg->mode_source = HET_MODE_DEFAULT;

	/* The values a null or "jac" default leaves in place. */
	cfg->dt = 0;
	cfg->wavevector_q = 0;
	cfg->stator_rotor_gap = 2.0e6;
	cfg->nlsq.x_scale = 1.0;

	cfg->nphys = het_mode_nphys(mode);
	tab = het_params_table(cfg->family, &n);
	memset(cfg->phys, 0, sizeof(cfg->phys));
	for (i = 0; i < cfg->nphys; i++) {
		param_from_def(&cfg->phys[i], &tab[i]);
		cfg->phys[i].vary = het_mode_default_vary(mode, i);
	}
	for (i = 0; i < HET_S_COUNT; i++)
		param_from_def(&cfg->scaling.p[i], het_params_scaling(
		    cfg->family, (enum het_scaling_param)i));
	/* Every setting of the schema table that has a default. */
	for (i = 0; i < het_cl_nkeys; i++) {
		const struct het_cl_key *k = &het_cl_keys[i];
		const char *d = hom && k->def_hom != NULL ? k->def_hom :
		    k->def;
		int rc;

		if (d != NULL && (rc = het_cl_set_text(cfg, k, k->canon, d,
		    err)) != HET_OK)
			return rc;
	}
	return HET_OK;
}

int
het_cl_warning_push(struct het_config_warning **list, size_t *n,
    const char *key,
    int line, const char *msg, struct het_error *err)
{
	struct het_config_warning *w;

	w = realloc(*list, (*n + 1) * sizeof(*w));
	if (w == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory recording "
		    "a configuration warning");
	*list = w;
	w = &w[*n];
	w->line = line;
	w->key = het_strdup(key, err);
	w->msg = het_strdup(msg, err);
	if (w->key == NULL || w->msg == NULL) {
		free(w->key);
		free(w->msg);
		return HET_ENOMEM;
	}
	(*n)++;
	return HET_OK;
}

int
het_cl_add_warning(struct het_config *cfg, const char *key, int line,
    const char *msg, struct het_error *err)
{
	return het_cl_warning_push(&cfg->warnings, &cfg->nwarnings, key, line,
	    msg, err);
}

static void
warnings_free(struct het_config_warning *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(list[i].key);
		free(list[i].msg);
	}
	free(list);
}

void
het_config_free(struct het_config *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	free(cfg->mode_key);
	free(cfg->mode_note);
	free(cfg->source);
	free(cfg->base_dir);
	free(cfg->data_file);
	free(cfg->phi_angles);
	for (i = 0; i < cfg->nphi_ranges; i++)
		free(cfg->phi_ranges[i].label);
	free(cfg->phi_ranges);
	free(cfg->scaling.init_contrast);
	free(cfg->scaling.init_offset);
	free(cfg->cmc.worker_command);
	free(cfg->output_dir);
	warnings_free(cfg->warnings, cfg->nwarnings);
	warnings_free(cfg->unused, cfg->nunused);
	free(cfg);
}

struct het_config *
het_config_default(enum het_mode mode, struct het_error *err)
{
	struct het_config *cfg;

	if ((int)mode < 0 || mode >= HET_MODE_COUNT) {
		het_error_set(err, HET_EINVAL, "analysis mode %d does not "
		    "exist", (int)mode);
		return NULL;
	}
	if ((cfg = calloc(1, sizeof(*cfg))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory building a "
		    "default configuration");
		return NULL;
	}
	if (het_cl_set_defaults(cfg, mode, err) != HET_OK) {
		het_config_free(cfg);
		return NULL;
	}
	cfg->mode_note = het_strdup("analysis mode given by the caller; "
	    "every setting at its default", err);
	if (cfg->mode_note == NULL) {
		het_config_free(cfg);
		return NULL;
	}
	return cfg;
}

struct het_config_param *
het_config_param(struct het_config *cfg, const char *name)
{
	int i;

	if (name == NULL)
		return NULL;
	if (strcmp(name, "contrast") == 0)
		return &cfg->scaling.p[HET_S_CONTRAST];
	if (strcmp(name, "offset") == 0)
		return &cfg->scaling.p[HET_S_OFFSET];
	i = het_params_find(cfg->family, name);
	if (i < 0 || (size_t)i >= cfg->nphys)
		return NULL;
	return &cfg->phys[i];
}

enum het_scaling_mode
het_config_scaling_resolve(const struct het_config *cfg, size_t n_phi,
    int cmc)
{
	const struct het_config_scaling *s = &cfg->scaling;

	if (cmc && s->cmc_mode != HET_SCALING_AUTO)
		return s->cmc_mode;
	if (s->nlsq_mode != HET_SCALING_AUTO)
		return s->nlsq_mode;
	if (cfg->family == HET_FAMILY_HETERODYNE)
		return n_phi > (size_t)s->fourier_auto_threshold &&
		    n_phi >= (size_t)(1 + 2 * s->fourier_order) ?
		    HET_SCALING_FOURIER : HET_SCALING_INDIVIDUAL;
	return n_phi >= (size_t)s->constant_threshold ? HET_SCALING_AVERAGED :
	    HET_SCALING_INDIVIDUAL;
}

char *
het_config_resolve_path(const struct het_config *cfg, const char *path,
    struct het_error *err)
{
	size_t len;
	char *s;

	if (path[0] == '/' || cfg->base_dir == NULL)
		return het_strdup(path, err);
	len = strlen(cfg->base_dir) + strlen(path) + 2;
	if ((s = malloc(len)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(s, len, "%s/%s", cfg->base_dir, path);
	return s;
}

/* ---- loading ----------------------------------------------------------- */

/* Warnings in line order; a stable insertion sort (lists are short). */
static void
warn_sort(struct het_config_warning *w, size_t n)
{
	struct het_config_warning t;
	size_t i, j;
	unsigned li, lj;

	for (i = 1; i < n; i++) {
		t = w[i];
		li = t.line > 0 ? (unsigned)t.line : ~0u;
		for (j = i; j > 0; j--) {
			lj = w[j - 1].line > 0 ? (unsigned)w[j - 1].line : ~0u;
			if (lj <= li)
				break;
			w[j] = w[j - 1];
		}
		w[j] = t;
	}
}

static struct het_config *
cfg_load_text(const char *text, size_t len, const char *name,
    const char *base_dir, struct het_error *err)
{
	struct het_error e;
	struct cl_load ld;
	struct het_config *cfg;
	int rc;

	het_error_clear(&e);
	memset(&ld, 0, sizeof(ld));
	ld.name = name;
	ld.err = &e;
	if ((cfg = calloc(1, sizeof(*cfg))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory reading %s",
		    name);
		return NULL;
	}
	ld.cfg = cfg;
	if ((rc = het_y_parse(text, len, name, &ld.root, &e)) != HET_OK)
		goto fail;
	if ((rc = het_cl_read_mode(&ld)) ||
	    (rc = het_cl_read_table(&ld)) ||
	    (rc = het_cl_report_unused(&ld)) ||
	    (rc = het_cl_validate(cfg, &ld, &e)))
		goto fail;
	cfg->source = het_strdup(name, &e);
	if (cfg->source == NULL || (base_dir != NULL &&
	    (cfg->base_dir = het_strdup(base_dir, &e)) == NULL)) {
		rc = HET_ENOMEM;
		goto fail;
	}
	warn_sort(cfg->warnings, cfg->nwarnings);
	het_y_free(ld.root);
	free(ld.prov);
	return cfg;
fail:
	if (err != NULL)
		*err = e;
	if (err != NULL && err->code == HET_OK)
		het_error_set(err, rc != HET_OK ? rc : HET_EINTERNAL,
		    "%s: the configuration could not be read", name);
	het_y_free(ld.root);
	free(ld.prov);
	het_config_free(cfg);
	return NULL;
}

struct het_config *
het_config_load_string(const char *text, size_t len, const char *name,
    struct het_error *err)
{
	return cfg_load_text(text, len, name != NULL ? name : "(string)",
	    NULL, err);
}

struct het_config *
het_config_load(const char *path, struct het_error *err)
{
	struct het_config *cfg;
	const char *slash;
	char *text = NULL, *dir = NULL;
	size_t len = 0, cap = 0, n;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL) {
		het_error_sys(err, errno, "%s: cannot open the configuration",
		    path);
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nt;

			cap = cap * 2 + 8192;
			if (cap > CFG_MAX_FILE + 8192 ||
			    (nt = realloc(text, cap)) == NULL) {
				het_error_set(err, cap > CFG_MAX_FILE + 8192 ?
				    HET_EFORMAT : HET_ENOMEM, "%s: larger than "
				    "%d MiB or out of memory; a configuration "
				    "is a small text file", path,
				    CFG_MAX_FILE >> 20);
				free(text);
				fclose(fp);
				return NULL;
			}
			text = nt;
		}
		n = fread(text + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		het_error_sys(err, errno, "%s: cannot read the configuration",
		    path);
		free(text);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	text[len] = '\0';
	if ((slash = strrchr(path, '/')) != NULL) {
		n = slash == path ? 1 : (size_t)(slash - path);
		if ((dir = malloc(n + 1)) == NULL) {
			het_error_set(err, HET_ENOMEM, "out of memory");
			free(text);
			return NULL;
		}
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	cfg = cfg_load_text(text, len, path, dir, err);
	free(text);
	free(dir);
	return cfg;
}

/* ---- copy and compare -------------------------------------------------- */

static int
dup_str(char **s, struct het_error *err)
{
	if (*s == NULL)
		return HET_OK;
	*s = het_strdup(*s, err);
	return *s != NULL ? HET_OK : HET_ENOMEM;
}

static int
dup_nums(double **a, size_t n, struct het_error *err)
{
	double *c;

	if (*a == NULL)
		return HET_OK;
	c = het_alloc_array(n, sizeof(*c), "configuration copy", err);
	if (c != NULL)
		memcpy(c, *a, n * sizeof(*c));
	*a = c;
	return c != NULL ? HET_OK : HET_ENOMEM;
}

struct het_config *
het_config_dup(const struct het_config *src, struct het_error *err)
{
	struct het_config *c;
	size_t i;
	int bad = 0;

	if ((c = malloc(sizeof(*c))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory copying a "
		    "configuration");
		return NULL;
	}
	*c = *src;
	/* Detach every pointer first so a partial failure frees cleanly. */
	c->mode_key = c->mode_note = c->source = c->base_dir = NULL;
	c->data_file = c->output_dir = c->cmc.worker_command = NULL;
	c->phi_angles = NULL;
	c->phi_ranges = NULL;
	c->nphi_ranges = 0;
	c->scaling.init_contrast = c->scaling.init_offset = NULL;
	c->warnings = c->unused = NULL;
	c->nwarnings = c->nunused = 0;
#define DS(f) do { c->f = src->f; bad |= dup_str(&c->f, err); } while (0)
	DS(mode_key);
	DS(mode_note);
	DS(source);
	DS(base_dir);
	DS(data_file);
	DS(output_dir);
	DS(cmc.worker_command);
#undef DS
	c->phi_angles = src->phi_angles;
	bad |= dup_nums(&c->phi_angles, src->nphi_angles, err);
	c->scaling.init_contrast = src->scaling.init_contrast;
	bad |= dup_nums(&c->scaling.init_contrast, src->scaling.ninit_contrast,
	    err);
	c->scaling.init_offset = src->scaling.init_offset;
	bad |= dup_nums(&c->scaling.init_offset, src->scaling.ninit_offset,
	    err);
	if (!bad && src->nphi_ranges > 0) {
		c->phi_ranges = het_alloc_array(src->nphi_ranges,
		    sizeof(*c->phi_ranges), "configuration copy", err);
		if (c->phi_ranges == NULL)
			bad = 1;
		for (i = 0; !bad && i < src->nphi_ranges; i++) {
			c->phi_ranges[i] = src->phi_ranges[i];
			c->phi_ranges[i].label = NULL;
			c->nphi_ranges = i + 1;
			c->phi_ranges[i].label = src->phi_ranges[i].label;
			bad |= dup_str(&c->phi_ranges[i].label, err);
		}
	}
	for (i = 0; !bad && i < src->nwarnings; i++)
		bad |= het_cl_add_warning(c, src->warnings[i].key,
		    src->warnings[i].line, src->warnings[i].msg, err) != HET_OK;
	for (i = 0; !bad && i < src->nunused; i++)
		bad |= het_cl_warning_push(&c->unused, &c->nunused,
		    src->unused[i].key, src->unused[i].line,
		    src->unused[i].msg, err) != HET_OK;
	if (bad) {
		het_config_free(c);
		return NULL;
	}
	return c;
}

static int
eq_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* The same data file: equal after resolving against each base_dir. */
static int
eq_data(const struct het_config *a, const struct het_config *b)
{
	char pa[4096], pb[4096];

	if (a->data_file == NULL || b->data_file == NULL)
		return a->data_file == b->data_file;
	snprintf(pa, sizeof(pa), "%s%s%s", a->data_file[0] != '/' &&
	    a->base_dir != NULL ? a->base_dir : "", a->data_file[0] != '/' &&
	    a->base_dir != NULL ? "/" : "", a->data_file);
	snprintf(pb, sizeof(pb), "%s%s%s", b->data_file[0] != '/' &&
	    b->base_dir != NULL ? b->base_dir : "", b->data_file[0] != '/' &&
	    b->base_dir != NULL ? "/" : "", b->data_file);
	return strcmp(pa, pb) == 0;
}

static int
eq_nums(const double *a, size_t na, const double *b, size_t nb)
{
	size_t i;

	if (na != nb || (a == NULL) != (b == NULL))
		return 0;
	for (i = 0; i < na; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static int
eq_param(const struct het_config_param *a, const struct het_config_param *b)
{
	return a->value == b->value && a->lo == b->lo && a->hi == b->hi &&
	    a->vary == b->vary && a->prior.kind == b->prior.kind &&
	    a->prior.a == b->prior.a && a->prior.b == b->prior.b &&
	    a->x_scale == b->x_scale;
}

int
het_config_equal(const struct het_config *a, const struct het_config *b,
    char *what, size_t whatlen)
{
	const struct het_config_scaling *sa = &a->scaling, *sb = &b->scaling;
	const char *diff = NULL;
	size_t i;

#define CHK(cond, name) do { if (diff == NULL && !(cond)) diff = (name); } \
	while (0)
	CHK(a->mode == b->mode, "analysis_mode");
	CHK(eq_data(a, b), "data_file");
	CHK(a->dt_set == b->dt_set && (!a->dt_set || a->dt == b->dt), "dt");
	CHK(a->start_frame == b->start_frame, "start_frame");
	CHK(a->end_frame == b->end_frame, "end_frame");
	CHK(a->q_set == b->q_set && (!a->q_set ||
	    a->wavevector_q == b->wavevector_q), "wavevector_q");
	CHK(eq_nums(a->phi_angles, a->nphi_angles, b->phi_angles,
	    b->nphi_angles), "phi_angles");
	CHK(a->phi_filter == b->phi_filter, "phi_filtering.enabled");
	CHK(a->nphi_ranges == b->nphi_ranges, "phi_filtering.target_ranges");
	for (i = 0; diff == NULL && i < a->nphi_ranges; i++)
		CHK(a->phi_ranges[i].lo == b->phi_ranges[i].lo &&
		    a->phi_ranges[i].hi == b->phi_ranges[i].hi &&
		    eq_str(a->phi_ranges[i].label, b->phi_ranges[i].label),
		    "phi_filtering.target_ranges");
	CHK(a->phi_tolerance == b->phi_tolerance, "phi_filtering.tolerance");
	CHK(a->phi_fallback == b->phi_fallback,
	    "phi_filtering.fallback_to_all_angles");
	CHK(a->gap_set == b->gap_set &&
	    a->stator_rotor_gap == b->stator_rotor_gap, "stator_rotor_gap");
	CHK(a->nphys == b->nphys, "parameters");
	for (i = 0; diff == NULL && i < a->nphys; i++)
		CHK(eq_param(&a->phys[i], &b->phys[i]),
		    het_params_table(a->family, &(size_t){0})[i].name);
	CHK(eq_param(&sa->p[0], &sb->p[0]), "contrast");
	CHK(eq_param(&sa->p[1], &sb->p[1]), "offset");
	CHK(sa->nlsq_mode == sb->nlsq_mode && sa->cmc_mode == sb->cmc_mode &&
	    sa->fourier_order == sb->fourier_order &&
	    sa->fourier_auto_threshold == sb->fourier_auto_threshold &&
	    sa->constant_threshold == sb->constant_threshold,
	    "per_angle_mode");
	CHK(eq_nums(sa->init_contrast, sa->ninit_contrast, sb->init_contrast,
	    sb->ninit_contrast) && eq_nums(sa->init_offset, sa->ninit_offset,
	    sb->init_offset, sb->ninit_offset), "per_angle_scaling");
	CHK((a->nlsq.method == b->nlsq.method && a->nlsq.loss == b->nlsq.loss &&
	    a->nlsq.f_scale == b->nlsq.f_scale &&
	    a->nlsq.ftol == b->nlsq.ftol &&
	    a->nlsq.xtol == b->nlsq.xtol && a->nlsq.gtol == b->nlsq.gtol &&
	    a->nlsq.x_scale_jac == b->nlsq.x_scale_jac &&
	    a->nlsq.x_scale == b->nlsq.x_scale &&
	    a->nlsq.max_nfev == b->nlsq.max_nfev &&
	    a->nlsq.max_iterations == b->nlsq.max_iterations &&
	    a->nlsq.multistart == b->nlsq.multistart &&
	    a->nlsq.multistart_n == b->nlsq.multistart_n &&
	    a->nlsq.seed == b->nlsq.seed), "optimization.nlsq");
	{
		const struct het_config_cmc *x = &a->cmc, *y = &b->cmc;

		CHK(x->num_shards == y->num_shards &&
		    x->max_points_per_shard == y->max_points_per_shard &&
		    x->min_points_per_shard == y->min_points_per_shard &&
		    x->min_points_per_param == y->min_points_per_param &&
		    x->strategy == y->strategy, "optimization.cmc.sharding");
		CHK(x->num_warmup == y->num_warmup &&
		    x->num_samples == y->num_samples &&
		    x->num_chains == y->num_chains &&
		    x->target_accept_prob == y->target_accept_prob &&
		    x->max_tree_depth == y->max_tree_depth &&
		    x->dense_mass == y->dense_mass && x->seed == y->seed &&
		    x->laplace_init == y->laplace_init &&
		    x->marginalise_scaling == y->marginalise_scaling &&
		    x->psis_draws == y->psis_draws &&
		    x->reweight_draws == y->reweight_draws &&
		    x->reweight_seconds == y->reweight_seconds &&
		    x->chain_parallel == y->chain_parallel,
		    "optimization.cmc.per_shard_mcmc");
		CHK(x->sigma == y->sigma, "optimization.cmc.sigma_method");
		CHK(x->per_shard_timeout == y->per_shard_timeout &&
		    x->heartbeat_timeout == y->heartbeat_timeout,
		    "optimization.cmc.timeout");
		CHK(x->min_success_rate == y->min_success_rate &&
		    x->combine == y->combine, "optimization.cmc.combination");
		CHK(x->max_r_hat == y->max_r_hat && x->min_ess == y->min_ess &&
		    x->min_bfmi == y->min_bfmi &&
		    x->max_divergence_rate == y->max_divergence_rate,
		    "optimization.cmc.validation");
		CHK(x->use_reparam == y->use_reparam &&
		    x->coordinates == y->coordinates,
		    "optimization.cmc.reparameterization");
		CHK(x->nlsq_priors == y->nlsq_priors &&
		    x->nlsq_prior_width_factor == y->nlsq_prior_width_factor,
		    "optimization.cmc.nlsq");
		CHK(eq_str(x->worker_command, y->worker_command),
		    "optimization.cmc.worker_command");
	}
	CHK(eq_str(a->output_dir, b->output_dir), "output.output_dir");
	CHK(a->create_subdirs == b->create_subdirs, "output.create_subdirs");
	CHK(a->timestamp_dirs == b->timestamp_dirs, "output.timestamp_dirs");
#undef CHK
	if (diff != NULL && what != NULL && whatlen > 0)
		snprintf(what, whatlen, "%s", diff);
	return diff == NULL;
}
