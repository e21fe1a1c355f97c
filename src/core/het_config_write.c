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
w_data(struct wbuf *w, const struct het_config *cfg)
{
	char b[40];
	size_t i;

	w_put(w, "experimental_data:\n");
	w_cmt(w, 2, "HDF5 result file (APS-U or legacy 8-ID-I); relative to "
	    "this file's directory; \"\" = give it on the command line.");
	w_ks(w, 2, "file_path", cfg->data_file != NULL ? cfg->data_file : "");
	w_put(w, "\nanalyzer_parameters:\n");
	w_cmt(w, 2, "Frame interval [s], > 0; null = read dt from the data "
	    "file.");
	if (cfg->dt_set)
		w_kn(w, 2, "dt", cfg->dt);
	else
		w_put(w, "  dt: null\n");
	w_cmt(w, 2, "First frame, 1-based inclusive, >= 1.");
	w_kl(w, 2, "start_frame", cfg->start_frame);
	w_cmt(w, 2, "Last frame, 1-based inclusive, > start_frame; -1 = the "
	    "last frame of the data.");
	w_kl(w, 2, "end_frame", cfg->end_frame);
	w_put(w, "  scattering:\n");
	w_cmt(w, 4, "Wavevector q [1/A], > 0; null = any q ring of the "
	    "file may be chosen.");
	if (cfg->q_set)
		w_kn(w, 4, "wavevector_q", cfg->wavevector_q);
	else
		w_put(w, "    wavevector_q: null\n");
	w_cmt(w, 4, "Angles phi [deg] to analyse, in [-360, 360], each "
	    "picking the nearest bin; null = all (or phi_filtering).");
	w_knums(w, 4, "phi_angles", cfg->phi_angles, cfg->nphi_angles);
	w_put(w, "  geometry:\n");
	w_cmt(w, 4, "Stator-rotor gap [A], > 0, enters the homodyne "
	    "laminar_flow model; null = 2000000 (200 um).");
	if (cfg->gap_set)
		w_kn(w, 4, "stator_rotor_gap", cfg->stator_rotor_gap);
	else
		w_put(w, "    stator_rotor_gap: null\n");

	w_put(w, "\nphi_filtering:\n");
	w_cmt(w, 2, "true: keep only the angles inside target_ranges.");
	w_kb(w, 2, "enabled", cfg->phi_filter);
	w_cmt(w, 2, "Ranges [deg] with min_angle, max_angle in [-360, 360] "
	    "(min > max wraps through 180) and an optional description,");
	w_cmt(w, 2, "e.g. - {min_angle: -10, max_angle: 10, description: "
	    "\"parallel to flow\"}");
	if (cfg->nphi_ranges == 0)
		w_put(w, "  target_ranges: []\n");
	else
		w_put(w, "  target_ranges:\n");
	for (i = 0; i < cfg->nphi_ranges; i++) {
		w_num(b, sizeof(b), cfg->phi_ranges[i].lo);
		w_put(w, "    - min_angle: %s\n", b);
		w_kn(w, 6, "max_angle", cfg->phi_ranges[i].hi);
		if (cfg->phi_ranges[i].label != NULL)
			w_ks(w, 6, "description", cfg->phi_ranges[i].label);
	}
	w_cmt(w, 2, "Degrees added on both sides of every range, in [0, "
	    "180).");
	w_kn(w, 2, "tolerance", cfg->phi_tolerance);
	w_cmt(w, 2, "true: use every angle when no angle falls in a range.");
	w_kb(w, 2, "fallback_to_all_angles", cfg->phi_fallback);
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

static void
w_nlsq(struct wbuf *w, const struct het_config *cfg)
{
	const struct het_config_nlsq *n = &cfg->nlsq;
	const struct het_config_scaling *s = &cfg->scaling;
	const struct het_config_param *p;
	const struct het_param_def *tab;
	size_t i, nt;
	int any = 0;

	w_put(w, "optimization:\n  nlsq:\n");
	w_cmt(w, 4, "trf (bounded trust region) or lm (Levenberg-Marquardt).");
	w_kw(w, 4, "method", het_config_method_name(n->method));
	w_cmt(w, 4, "Robust loss: linear, soft_l1, huber, cauchy or arctan.");
	w_kw(w, 4, "loss", het_config_loss_name(n->loss));
	w_cmt(w, 4, "Residual scale of the robust loss, > 0 (units of c2).");
	w_kn(w, 4, "f_scale", n->f_scale);
	w_cmt(w, 4, "Stopping tolerances on cost, step and gradient, in "
	    "(0, 1).");
	w_kn(w, 4, "ftol", n->ftol);
	w_kn(w, 4, "xtol", n->xtol);
	w_kn(w, 4, "gtol", n->gtol);
	w_cmt(w, 4, "Variable scaling: jac (Jacobian column norms) or a "
	    "number > 0.");
	if (n->x_scale_jac)
		w_kw(w, 4, "x_scale", "jac");
	else
		w_kn(w, 4, "x_scale", n->x_scale);
	tab = het_params_table(cfg->family, &nt);
	w_cmt(w, 4, "Per-parameter scales > 0 that replace x_scale, e.g. "
	    "{%s: 1000}; null = none.", tab[0].name);
	for (i = 0; i < cfg->nphys + HET_S_COUNT; i++) {
		p = i < cfg->nphys ? &cfg->phys[i] :
		    &cfg->scaling.p[i - cfg->nphys];
		if (p->x_scale <= 0)
			continue;
		if (!any)
			w_put(w, "    x_scale_map:\n");
		any = 1;
		w_kn(w, 6, i < cfg->nphys ? tab[i].name :
		    het_params_scaling(cfg->family,
		    (enum het_scaling_param)(i - cfg->nphys))->name,
		    p->x_scale);
	}
	if (!any)
		w_put(w, "    x_scale_map: null\n");
	w_cmt(w, 4, "Model evaluations allowed, >= 1; auto = 100 x the "
	    "number of free parameters.");
	if (n->max_nfev > 0)
		w_kl(w, 4, "max_nfev", n->max_nfev);
	else
		w_kw(w, 4, "max_nfev", "auto");
	w_cmt(w, 4, "Iterations allowed, >= 1.");
	w_kl(w, 4, "max_iterations", n->max_iterations);
	w_cmt(w, 4, "true: also start from multistart_n - 1 Latin-hypercube "
	    "points inside the bounds (>= 1 starts).");
	w_kb(w, 4, "multistart", n->multistart);
	w_kl(w, 4, "multistart_n", n->multistart_n);
	w_cmt(w, 4, "Random seed of the multistart points, >= 0.");
	w_kl(w, 4, "seed", (long)n->seed);
	w_cmt(w, 4, "Per-angle contrast/offset: auto, individual, constant, "
	    "averaged or fourier.");
	w_kw(w, 4, "per_angle_mode", het_config_scaling_name(s->nlsq_mode));
	w_cmt(w, 4, "Harmonics of the fourier mode, 1..8.");
	w_kl(w, 4, "fourier_order", s->fourier_order);
	if (cfg->family == HET_FAMILY_HETERODYNE) {
		w_cmt(w, 4, "auto picks fourier when there are more angles "
		    "than this (and >= 1 + 2 x order), >= 1.");
		w_kl(w, 4, "fourier_auto_threshold", s->fourier_auto_threshold);
	} else {
		w_cmt(w, 4, "auto shares one contrast and offset when there "
		    "are at least this many angles, >= 1.");
		w_kl(w, 4, "constant_scaling_threshold", s->constant_threshold);
	}
}

static void
w_cmc(struct wbuf *w, const struct het_config *cfg)
{
	const struct het_config_cmc *c = &cfg->cmc;

	w_put(w, "  cmc:\n");
	w_cmt(w, 4, "Scaling mode of the sampler: CMC always uses the one "
	    "NLSQ used (other values: a warning).");
	w_kw(w, 4, "per_angle_mode", het_config_scaling_name(
	    cfg->scaling.cmc_mode));
	w_cmt(w, 4, "Likelihood noise: diagonal (the far-lag noise "
	    "estimate), residual (RMS of the NLSQ residuals)");
	w_cmt(w, 4, "or mad (sampled by the reference; hetui uses the "
	    "far-lag estimate, with a warning).");
	w_kw(w, 4, "sigma_method", het_config_sigma_name(c->sigma));
	w_cmt(w, 4, "Command that runs one shard; null = the installed "
	    "hetui-worker.");
	if (c->worker_command != NULL)
		w_ks(w, 4, "worker_command", c->worker_command);
	else
		w_put(w, "    worker_command: null\n");
	w_put(w, "    sharding:\n");
	w_cmt(w, 6, "random, angle_balanced or contiguous.");
	w_kw(w, 6, "sharding_strategy", het_config_sharding_name(c->strategy));
	w_cmt(w, 6, "Shards >= 1, or auto.");
	if (c->num_shards > 0)
		w_kl(w, 6, "num_shards", c->num_shards);
	else
		w_kw(w, 6, "num_shards", "auto");
	w_cmt(w, 6, "Pairs per shard: a cap >= min_points_per_shard, or "
	    "auto (no cap); a floor >= 1.");
	if (c->max_points_per_shard > 0)
		w_kl(w, 6, "max_points_per_shard", c->max_points_per_shard);
	else
		w_kw(w, 6, "max_points_per_shard", "auto");
	w_kl(w, 6, "min_points_per_shard", c->min_points_per_shard);
	if (cfg->family == HET_FAMILY_HETERODYNE) {
		w_cmt(w, 6, "Automatic count: one shard per angle (at least "
		    "2), at most one per 14 x min_points_per_param pairs.");
		w_kl(w, 6, "min_points_per_param", c->min_points_per_param);
	}
	w_put(w, "    per_shard_mcmc:\n");
	w_cmt(w, 6, "NUTS per shard: warm-up and kept draws per chain, "
	    "chains, all >= 1.");
	w_kl(w, 6, "num_warmup", c->num_warmup);
	w_kl(w, 6, "num_samples", c->num_samples);
	w_kl(w, 6, "num_chains", c->num_chains);
	w_cmt(w, 6, "Step-size target acceptance, in (0, 1); tree depth "
	    "1..15; dense (true) or diagonal mass matrix.");
	w_kn(w, 6, "target_accept_prob", c->target_accept_prob);
	w_kl(w, 6, "max_tree_depth", c->max_tree_depth);
	w_kb(w, 6, "dense_mass", c->dense_mass);
	w_cmt(w, 6, "Start the chains from the Laplace approximation at the "
	    "NLSQ optimum (metric and start points; false: a unit metric "
	    "and the optimum); importance draws for its PSIS k-hat (0 "
	    "none, or 20..100000).");
	w_kb(w, 6, "laplace_init", c->laplace_init);
	w_kl(w, 6, "psis_draws", c->psis_draws);
	w_cmt(w, 6, "Integrate each angle's contrast and offset out in closed "
	    "form (individual scaling, Gaussian or uniform priors; drawn "
	    "from their conditional afterwards); false: sample them.");
	w_kb(w, 6, "marginalise_scaling", c->marginalise_scaling);
	w_cmt(w, 6, "parallel: a shard's chains at once when cores are free "
	    "(the same draws); sequential: one after another.");
	w_kw(w, 6, "chain_method", c->chain_parallel ? "parallel" :
	    "sequential");
	w_cmt(w, 6, "Base random seed >= 0; chain c of shard k uses "
	    "seed + 1000 k + c.");
	w_kl(w, 6, "seed", (long)c->seed);
	w_put(w, "    timeout:\n");
	w_cmt(w, 6, "Seconds > 0 a shard may run, and may stay silent (<= "
	    "per_shard_timeout), before it is stopped.");
	w_kn(w, 6, "per_shard_timeout", c->per_shard_timeout);
	w_kn(w, 6, "heartbeat_timeout", c->heartbeat_timeout);
	w_put(w, "    combination:\n");
	w_cmt(w, 6, "consensus_mc, robust_consensus_mc or simple_average.");
	w_kw(w, 6, "combination_method", het_config_combine_name(c->combine));
	w_cmt(w, 6, "Importance draws weighing a sharded run's consensus "
	    "against all the data (PSIS k-hat, reweighted means and sds); 0: "
	    "none, or 20..100000.");
	w_kl(w, 6, "reweight_draws", c->reweight_draws);
	w_cmt(w, 6, "Seconds > 0 the check may spend on passes over all the "
	    "data (fewer draws when they are slow).");
	w_kn(w, 6, "reweight_seconds", c->reweight_seconds);
	w_cmt(w, 6, "Fraction of shards that must succeed, in (0, 1].");
	w_kn(w, 6, "min_success_rate", c->min_success_rate);
	w_put(w, "    validation:\n");
	w_cmt(w, 6, "Gates: split R-hat below max_r_hat (> 1), bulk ESS "
	    "above min_ess (> 0), BFMI above min_bfmi (>= 0),");
	w_cmt(w, 6, "divergent transitions at most max_divergence_rate "
	    "(in [0, 1]).");
	w_kn(w, 6, "max_r_hat", c->max_r_hat);
	w_kn(w, 6, "min_ess", c->min_ess);
	w_kn(w, 6, "min_bfmi", c->min_bfmi);
	w_kn(w, 6, "max_divergence_rate", c->max_divergence_rate);
	w_put(w, "    nlsq:\n");
	w_cmt(w, 6, "true: every free parameter's prior is a truncated "
	    "normal centred on the NLSQ value, nlsq_prior_width_factor");
	w_cmt(w, 6, "NLSQ standard errors wide (> 0); false: the priors "
	    "given under parameters.");
	w_kb(w, 6, "use_nlsq_informed_priors", c->nlsq_priors);
	w_kn(w, 6, "nlsq_prior_width_factor", c->nlsq_prior_width_factor);
	w_put(w, "    reparameterization:\n");
	w_cmt(w, 6, "true: sample the power laws in the coordinates "
	    "below; false: every parameter through its log or logit.");
	w_kb(w, 6, "use_reparam", c->use_reparam);
	w_cmt(w, 6, "rates: each power law with a varying offset as its "
	    "rate at t_ref (or at three anchor times when its exponent is "
	    "clear of 0); power_law: (ln A(t_ref), exponent) only.");
	w_kw(w, 6, "coordinates", het_config_coords_name(c->coordinates));
	w_put(w, "\n");
}

char *
het_config_format(const struct het_config *cfg, int flags,
    struct het_error *err)
{
	struct wbuf w;

	memset(&w, 0, sizeof(w));
	w.comments = (flags & HET_CONFIG_COMMENTS) != 0;
	w_header(&w, cfg);
	w_data(&w, cfg);
	if (cfg->family == HET_FAMILY_HETERODYNE) {
		w_het_params(&w, cfg);
		w_put(&w, "initial_parameters:\n");
		w_per_angle(&w, cfg);
		w_put(&w, "\n");
	} else
		w_hom_params(&w, cfg);
	w_nlsq(&w, cfg);
	w_cmc(&w, cfg);
	w_put(&w, "output:\n");
	w_cmt(&w, 2, "Directory results are written to.");
	w_ks(&w, 2, cfg->family == HET_FAMILY_HETERODYNE ? "output_dir" :
	    "directory", cfg->output_dir != NULL ? cfg->output_dir : "");
	w_cmt(&w, 2, "Each run in its own folder OUTPUT_DIR/<data file stem>/"
	    "<fit|sample>-<UTC time>/; both false: straight into OUTPUT_DIR.");
	w_kb(&w, 2, "create_subdirs", cfg->create_subdirs);
	w_kb(&w, 2, "timestamp_dirs", cfg->timestamp_dirs);
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
