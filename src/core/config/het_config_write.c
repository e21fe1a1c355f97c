/*
 * het_config_write.c: configurations as YAML text: the commented template
 * of `hetui config --template` and the plain files the TUI saves.
 *
 * Design: one writer walks the struct in the order a person reads a
 * configuration (mode, data, parameters, optimisers, output) and emits
 * every key hetui honours, under its canonical name, so that the text
 * reloads to an equal configuration without warnings.  Heterodyne modes
 * use parameters.<group>.<name>; homodyne modes use initial_parameters and
 * parameter_space.bounds with homodyne's prior spellings (TruncatedNormal).
 * Numbers are printed with the fewest digits that read back to the same
 * double.  With HET_CONFIG_COMMENTS each key is preceded by a comment
 * giving its meaning, unit and allowed range.  Text is built in memory
 * (the core never writes to stdio streams) and saved atomically.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_config_impl.h"
#include "het_util.h"

struct wbuf {
	char	*s;
	size_t	 len, cap;
	int	 oom;
	int	 comments;
};

static void __attribute__((format(printf, 2, 3)))
w_put(struct wbuf *w, const char *fmt, ...)
{
	va_list ap;
	size_t need;
	char *ns;
	int n;

	if (w->oom)
		return;
	/* Nothing is allocated before the first line: no offset on NULL. */
	va_start(ap, fmt);
	n = vsnprintf(w->s != NULL ? w->s + w->len : NULL, w->cap - w->len,
	    fmt, ap);
	va_end(ap);
	if (n < 0) {
		w->oom = 1;
		return;
	}
	need = w->len + (size_t)n + 1;
	if (need > w->cap) {
		w->cap = need * 2 + 4096;
		if ((ns = realloc(w->s, w->cap)) == NULL) {
			w->oom = 1;
			return;
		}
		w->s = ns;
		va_start(ap, fmt);
		vsnprintf(w->s + w->len, w->cap - w->len, fmt, ap);
		va_end(ap);
	}
	w->len += (size_t)n;
}

/* A comment line (only in commented output). */
static void __attribute__((format(printf, 3, 4)))
w_cmt(struct wbuf *w, int indent, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!w->comments)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	w_put(w, "%*s# %s\n", indent, "", line);
}

/* The shortest decimal text that reads back as exactly x. */
static void
w_num(char *buf, size_t len, double x)
{
	char m[40], *e;
	int prec;

	/* Whole numbers of moderate size read best without an exponent. */
	if (x > -1e15 && x < 1e15 && x == (double)(long long)x) {
		snprintf(buf, len, "%lld", (long long)x);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	/*
	 * PyYAML (the references' reader) takes 1e-06 for a string; a
	 * mantissa with a dot, 1.0e-06, is a float to every YAML reader.
	 */
	if ((e = strchr(buf, 'e')) != NULL && memchr(buf, '.',
	    (size_t)(e - buf)) == NULL) {
		snprintf(m, sizeof(m), "%.*s.0%s", (int)(e - buf), buf, e);
		snprintf(buf, len, "%s", m);
	}
}

static void
w_kn(struct wbuf *w, int indent, const char *key, double x)
{
	char b[40];

	w_num(b, sizeof(b), x);
	w_put(w, "%*s%s: %s\n", indent, "", key, b);
}

static void
w_kl(struct wbuf *w, int indent, const char *key, long x)
{
	w_put(w, "%*s%s: %ld\n", indent, "", key, x);
}

static void
w_kb(struct wbuf *w, int indent, const char *key, int x)
{
	w_put(w, "%*s%s: %s\n", indent, "", key, x ? "true" : "false");
}

static void
w_kw(struct wbuf *w, int indent, const char *key, const char *word)
{
	w_put(w, "%*s%s: %s\n", indent, "", key, word);
}

/* A double-quoted YAML string with escapes. */
static void
w_ks(struct wbuf *w, int indent, const char *key, const char *s)
{
	const unsigned char *p;

	w_put(w, "%*s%s: \"", indent, "", key);
	for (p = (const unsigned char *)s; p != NULL && *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			w_put(w, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			w_put(w, "\\x%02x", *p);
		else
			w_put(w, "%c", *p);
	}
	w_put(w, "\"\n");
}

static void
w_knums(struct wbuf *w, int indent, const char *key, const double *a,
    size_t n)
{
	char b[40];
	size_t i;

	if (a == NULL) {
		w_put(w, "%*s%s: null\n", indent, "", key);
		return;
	}
	w_put(w, "%*s%s: [", indent, "", key);
	for (i = 0; i < n; i++) {
		w_num(b, sizeof(b), a[i]);
		w_put(w, "%s%s", i == 0 ? "" : ", ", b);
	}
	w_put(w, "]\n");
}

static const char *
w_unit(const struct het_param_def *d)
{
	return d->unit[0] != '\0' ? d->unit : "dimensionless";
}

static void
w_header(struct wbuf *w, const struct het_config *cfg)
{
	w_cmt(w, 0, "hetui configuration, analysis mode %s (%s family).",
	    het_mode_name(cfg->mode), cfg->family == HET_FAMILY_HETERODYNE ?
	    "heterodyne" : "homodyne");
	w_cmt(w, 0, "Check it with 'hetui config --check FILE'; every key is "
	    "described in hetui(1), CONFIGURATION.");
	w_cmt(w, 0, "null means \"not set\": the default or the data file "
	    "decides.");
	if (w->comments)
		w_put(w, "\n");
	w_cmt(w, 0, "static_ref, static_both, two_component (heterodyne); "
	    "static, laminar_flow (homodyne).");
	w_kw(w, 0, "analysis_mode", het_mode_name(cfg->mode));
	w_put(w, "\n");
}

static void
w_prior_params(struct wbuf *w, int indent, const struct het_prior *pr)
{
	char a[40], b[40];

	w_num(a, sizeof(a), pr->a);
	w_num(b, sizeof(b), pr->b);
	switch (pr->kind) {
	case HET_PRIOR_NORMAL:
	case HET_PRIOR_TRUNCNORMAL:
	case HET_PRIOR_LOGNORMAL:
		w_put(w, "%*sprior_params: {loc: %s, scale: %s}\n", indent, "",
		    a, b);
		break;
	case HET_PRIOR_HALFNORMAL:
		w_put(w, "%*sprior_params: {scale: %s}\n", indent, "", b);
		break;
	case HET_PRIOR_EXPONENTIAL:
		w_put(w, "%*sprior_params: {rate: %s}\n", indent, "", a);
		break;
	case HET_PRIOR_BETA_SCALED:
		w_put(w, "%*sprior_params: {concentration1: %s, "
		    "concentration2: %s}\n", indent, "", a, b);
		break;
	default:
		break;
	}
}

static void
w_param_cmt(struct wbuf *w, int indent, const struct het_param_def *d,
    const struct het_config *cfg, size_t index, int scaling)
{
	char v[40], lo[40], hi[40];

	if (!w->comments)
		return;
	w_num(v, sizeof(v), d->value);
	w_num(lo, sizeof(lo), d->lo);
	w_num(hi, sizeof(hi), d->hi);
	w_cmt(w, indent, "%s [%s]: %s.", d->name, w_unit(d), d->description);
	w_cmt(w, indent, "  default %s in [%s, %s]%s%s", v, lo, hi,
	    !scaling && !het_mode_default_vary(cfg->mode, index) ?
	    "; held fixed by analysis mode " : "",
	    !scaling && !het_mode_default_vary(cfg->mode, index) ?
	    het_mode_name(cfg->mode) : "");
}

static void
w_het_params(struct wbuf *w, const struct het_config *cfg)
{
	static const char *const groups[] = { "reference", "sample",
	    "velocity", "fraction", "angle", "scaling" };
	const struct het_param_def *tab, *d;
	const struct het_config_param *p;
	size_t g, i, n;

	tab = het_params_table(cfg->family, &n);
	w_cmt(w, 0, "Every parameter: value (start, or the fixed value; "
	    "min <= value <= max), min < max (bounds),");
	w_cmt(w, 0, "vary (true: fitted and sampled), prior (uniform, "
	    "normal, truncated_normal, lognormal, halfnormal,");
	w_cmt(w, 0, "exponential, beta_scaled; bounded priors live on [min, "
	    "max]) and prior_params: loc and scale > 0");
	w_cmt(w, 0, "(normal, truncated_normal, lognormal of log x), scale "
	    "(halfnormal), rate > 0 (exponential),");
	w_cmt(w, 0, "concentration1, concentration2 > 0 (beta_scaled).");
	w_put(w, "parameters:\n");
	for (g = 0; g < HET_ARRAY_LEN(groups); g++) {
		w_put(w, "  %s:\n", groups[g]);
		for (i = 0; i < n + HET_S_COUNT; i++) {
			if (i < n) {
				d = &tab[i];
				p = &cfg->phys[i];
			} else {
				d = het_params_scaling(cfg->family,
				    (enum het_scaling_param)(i - n));
				p = &cfg->scaling.p[i - n];
			}
			if (strcmp(d->group, groups[g]) != 0)
				continue;
			w_param_cmt(w, 4, d, cfg, i, i >= n);
			w_put(w, "    %s:\n", d->name);
			w_kn(w, 6, "value", p->value);
			w_kn(w, 6, "min", p->lo);
			w_kn(w, 6, "max", p->hi);
			w_kb(w, 6, "vary", p->vary);
			w_kw(w, 6, "prior", het_prior_name(p->prior.kind));
			w_prior_params(w, 6, &p->prior);
		}
	}
	w_put(w, "\n");
}

static void
w_per_angle(struct wbuf *w, const struct het_config *cfg)
{
	w_put(w, "  per_angle_scaling:\n");
	w_cmt(w, 4, "Start values per selected angle, inside the contrast "
	    "and offset bounds; null = estimated from the data.");
	w_knums(w, 4, "contrast", cfg->scaling.init_contrast,
	    cfg->scaling.ninit_contrast);
	w_knums(w, 4, "offset", cfg->scaling.init_offset,
	    cfg->scaling.ninit_offset);
}

static void
w_hom_params(struct wbuf *w, const struct het_config *cfg)
{
	const struct het_param_def *tab, *d;
	const struct het_config_param *p;
	char a[40], b[40];
	size_t i, n, k;
	int first;

	tab = het_params_table(cfg->family, &n);
	w_put(w, "initial_parameters:\n");
	w_cmt(w, 2, "The mode's parameters in order, and their start "
	    "values (each inside its bounds below).");
	w_put(w, "  parameter_names: [");
	for (i = 0; i < cfg->nphys; i++)
		w_put(w, "%s%s", i == 0 ? "" : ", ", tab[i].name);
	w_put(w, "]\n  values: [");
	for (i = 0; i < cfg->nphys; i++) {
		w_num(a, sizeof(a), cfg->phys[i].value);
		w_put(w, "%s%s", i == 0 ? "" : ", ", a);
	}
	w_put(w, "]\n");
	w_cmt(w, 2, "Parameters that are fitted and sampled (contrast and "
	    "offset included); the others stay at their values.");
	w_put(w, "  active_parameters: [");
	first = 1;
	for (i = 0; i < cfg->nphys + HET_S_COUNT; i++) {
		p = i < cfg->nphys ? &cfg->phys[i] : &cfg->scaling.p[i -
		    cfg->nphys];
		if (!p->vary)
			continue;
		w_put(w, "%s%s", first ? "" : ", ", i < cfg->nphys ?
		    tab[i].name : het_params_scaling(cfg->family,
		    (enum het_scaling_param)(i - cfg->nphys))->name);
		first = 0;
	}
	w_put(w, "]\n");
	w_per_angle(w, cfg);
	w_put(w, "\nparameter_space:\n");
	w_cmt(w, 2, "Bounds min < max and CMC priors: type Uniform, Normal, "
	    "TruncatedNormal, LogNormal, HalfNormal,");
	w_cmt(w, 2, "Exponential or BetaScaled; prior_mu, prior_sigma are "
	    "loc, scale > 0 (rate > 0 for Exponential,");
	w_cmt(w, 2, "concentrations > 0 for BetaScaled); bounded priors live "
	    "on [min, max].");
	w_put(w, "  bounds:\n");
	for (k = 0; k < HET_S_COUNT + cfg->nphys; k++) {
		if (k < HET_S_COUNT) {
			d = het_params_scaling(cfg->family,
			    (enum het_scaling_param)k);
			p = &cfg->scaling.p[k];
		} else {
			d = &tab[k - HET_S_COUNT];
			p = &cfg->phys[k - HET_S_COUNT];
		}
		w_param_cmt(w, 4, d, cfg, k - HET_S_COUNT, k < HET_S_COUNT);
		w_put(w, "    - name: %s\n", d->name);
		w_kn(w, 6, "min", p->lo);
		w_kn(w, 6, "max", p->hi);
		w_kw(w, 6, "type", het_cl_prior_camel(p->prior.kind));
		w_num(a, sizeof(a), p->prior.a);
		w_num(b, sizeof(b), p->prior.b);
		switch (p->prior.kind) {
		case HET_PRIOR_UNIFORM:
			break;
		case HET_PRIOR_HALFNORMAL:
			w_kw(w, 6, "prior_sigma", b);
			break;
		case HET_PRIOR_EXPONENTIAL:
			w_kw(w, 6, "prior_mu", a);
			break;
		default:
			w_kw(w, 6, "prior_mu", a);
			w_kw(w, 6, "prior_sigma", b);
			break;
		}
	}
	w_put(w, "\n");
}

/* x_scale_map: the per-parameter scales set (a mapping), or null. */
static void
w_xscale_map(struct wbuf *w, int indent, const struct het_config *cfg)
{
	const struct het_config_param *p;
	const struct het_param_def *tab;
	size_t i, nt;
	int any = 0;

	tab = het_params_table(cfg->family, &nt);
	w_cmt(w, indent, "Per-parameter scales > 0 that replace x_scale, "
	    "e.g. {%s: 1000}; null = none.", tab[0].name);
	for (i = 0; i < cfg->nphys + HET_S_COUNT; i++) {
		p = i < cfg->nphys ? &cfg->phys[i] :
		    &cfg->scaling.p[i - cfg->nphys];
		if (p->x_scale <= 0)
			continue;
		if (!any)
			w_put(w, "%*sx_scale_map:\n", indent, "");
		any = 1;
		w_kn(w, indent + 2, i < cfg->nphys ? tab[i].name :
		    het_params_scaling(cfg->family,
		    (enum het_scaling_param)(i - cfg->nphys))->name,
		    p->x_scale);
	}
	if (!any)
		w_put(w, "%*sx_scale_map: null\n", indent, "");
}

/* phi_filtering.target_ranges: [] or one item per range. */
static void
w_phi_ranges(struct wbuf *w, int ind, const struct het_config *cfg)
{
	char b[40];
	size_t i;

	if (cfg->nphi_ranges == 0)
		w_put(w, "%*starget_ranges: []\n", ind, "");
	else
		w_put(w, "%*starget_ranges:\n", ind, "");
	for (i = 0; i < cfg->nphi_ranges; i++) {
		w_num(b, sizeof(b), cfg->phi_ranges[i].lo);
		w_put(w, "%*s- min_angle: %s\n", ind + 2, "", b);
		w_kn(w, ind + 4, "max_angle", cfg->phi_ranges[i].hi);
		if (cfg->phi_ranges[i].label != NULL)
			w_ks(w, ind + 4, "description",
			    cfg->phi_ranges[i].label);
	}
}

/* The header lines of section s and of its parents not yet written. */
static void
w_section(struct wbuf *w, int s, unsigned char *open)
{
	const struct het_cl_section *sec = &het_cl_sections[s];

	if (open[s])
		return;
	if (sec->parent < HET_CK_NSEC)
		w_section(w, sec->parent, open);
	w_put(w, "%*s%s:\n", 2 * sec->depth, "", sec->key);
	open[s] = 1;
}

/* One setting of the schema table with its comment. */
static void
w_key(struct wbuf *w, const struct het_cl_key *k, const struct het_config *cfg)
{
	const char *field = (const char *)cfg + k->off;
	int ind = 2 * (het_cl_sections[k->tsec].depth + 1);
	size_t i;

	for (i = 0; i < HET_CK_MAXDOC && k->doc[i] != NULL; i++)
		w_cmt(w, ind, "%s", k->doc[i]);
	switch (k->type) {
	case HET_CK_NUM:
		w_kn(w, ind, k->tkey, *(const double *)field);
		break;
	case HET_CK_LONG:
		w_kl(w, ind, k->tkey, *(const long *)field);
		break;
	case HET_CK_LONG_AUTO:
		if (*(const long *)field > 0)
			w_kl(w, ind, k->tkey, *(const long *)field);
		else
			w_kw(w, ind, k->tkey, "auto");
		break;
	case HET_CK_BOOL:
		w_kb(w, ind, k->tkey, *(const int *)field);
		break;
	case HET_CK_WORD:
		w_kw(w, ind, k->tkey, het_cl_word_name(k,
		    *(const int *)field));
		break;
	case HET_CK_SEED:
		w_kl(w, ind, k->tkey, (long)*(const unsigned long *)field);
		break;
	case HET_CK_STRING:
		if (*(char *const *)field != NULL)
			w_ks(w, ind, k->tkey, *(char *const *)field);
		else
			w_put(w, "%*s%s: null\n", ind, "", k->tkey);
		break;
	case HET_CK_X_SCALE:
		if (cfg->nlsq.x_scale_jac)
			w_kw(w, ind, k->tkey, "jac");
		else
			w_kn(w, ind, k->tkey, cfg->nlsq.x_scale);
		break;
	case HET_CK_X_SCALE_MAP:
		w_xscale_map(w, ind, cfg);
		break;
	case HET_CK_NUM_SET:
		if (*(const int *)((const char *)cfg + k->set_off))
			w_kn(w, ind, k->tkey, *(const double *)field);
		else
			w_put(w, "%*s%s: null\n", ind, "", k->tkey);
		break;
	case HET_CK_NUMLIST:
		w_knums(w, ind, k->tkey, *(double *const *)field,
		    *(const size_t *)((const char *)cfg + k->set_off));
		break;
	case HET_CK_DATA_FILE:
		w_ks(w, ind, k->tkey, cfg->data_file != NULL ?
		    cfg->data_file : "");
		break;
	case HET_CK_PHI_RANGES:
		w_phi_ranges(w, ind, cfg);
		break;
	case HET_CK_LEGACY_FRAMES:
	case HET_CK_PHI_ALGO:
		break;			/* read only */
	case HET_CK_PARAMS:
		break;			/* w_params, from w_table */
	case HET_CK_OUTPUT_DIR:		/* each family's own spelling */
		w_ks(w, ind, cfg->family == HET_FAMILY_HETERODYNE ?
		    "output_dir" : "directory", cfg->output_dir != NULL ?
		    cfg->output_dir : "");
		break;
	}
}


/* The parameter blocks of the family, at the table's HET_CK_PARAMS. */
static void
w_params(struct wbuf *w, const struct het_config *cfg)
{
	w_put(w, "\n");
	if (cfg->family == HET_FAMILY_HETERODYNE) {
		w_het_params(w, cfg);
		w_put(w, "initial_parameters:\n");
		w_per_angle(w, cfg);
		w_put(w, "\n");
	} else
		w_hom_params(w, cfg);
}

/* Every entry of the schema table in its order; a blank line between
   top-level sections. */
static void
w_table(struct wbuf *w, const struct het_config *cfg)
{
	unsigned char open[HET_CK_NSEC] = { 0 };
	int root = -1, top;
	size_t i;

	for (i = 0; i < het_cl_nkeys; i++) {
		if (!het_cl_key_for(&het_cl_keys[i], cfg->family))
			continue;
		if (het_cl_keys[i].type == HET_CK_PARAMS) {
			w_params(w, cfg);
			root = -1;
			continue;
		}
		if (het_cl_keys[i].tkey == NULL)
			continue;
		top = het_cl_section_root(het_cl_keys[i].tsec);
		if (root >= 0 && top != root)
			w_put(w, "\n");
		root = top;
		w_section(w, het_cl_keys[i].tsec, open);
		w_key(w, &het_cl_keys[i], cfg);
	}
}

char *
het_config_format(const struct het_config *cfg, int flags,
    struct het_error *err)
{
	struct wbuf w;

	memset(&w, 0, sizeof(w));
	w.comments = (flags & HET_CONFIG_COMMENTS) != 0;
	w_header(&w, cfg);
	w_table(&w, cfg);
	if (w.oom || w.s == NULL) {
		free(w.s);
		het_error_set(err, HET_ENOMEM, "out of memory formatting a "
		    "configuration");
		return NULL;
	}
	return w.s;
}

/* 1 when path's directory is dir ("a/b.yaml" is in "a", "b.yaml" in NULL). */
static int
w_same_dir(const char *path, const char *dir)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (slash == NULL)
		return dir == NULL;
	if (dir == NULL)
		return 0;
	n = slash == path ? 1 : (size_t)(slash - path);
	return strlen(dir) == n && strncmp(path, dir, n) == 0;
}

int
het_config_write_yaml(const struct het_config *cfg, const char *path,
    struct het_error *err)
{
	struct het_config moved;
	char *text, *data = NULL;
	int rc;

	/*
	 * A relative data path is relative to the file that holds it; when
	 * the configuration moves to another directory, write the path it
	 * stood for.
	 */
	moved = *cfg;
	if (cfg->data_file != NULL && cfg->data_file[0] != '/' &&
	    cfg->data_file[0] != '\0' && !w_same_dir(path, cfg->base_dir)) {
		if ((data = het_config_resolve_path(cfg, cfg->data_file,
		    err)) == NULL)
			return HET_ENOMEM;
		moved.data_file = data;
	}
	text = het_config_format(&moved, 0, err);
	free(data);
	if (text == NULL)
		return HET_ENOMEM;
	rc = het_write_file_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}
