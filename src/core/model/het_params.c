/*
 * het_params.c: the parameter tables and mode names.
 *
 * Numbers are transcribed from ../shared/docs/heterodyne-spec.md §2.1
 * (heterodyne registry, identical to its physics bounds) and
 * homodyne-spec.md §8 (homodyne registry).  Units are those that follow
 * from J in Å²/s and v in Å/s.  Tables are const and shared by all
 * threads.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "het_params.h"

#define TN(loc, scale) { HET_PRIOR_TRUNCNORMAL, (loc), (scale) }

static const struct het_param_def het_table[HET_P_HET_COUNT] = {
	{ "D0_ref", "reference", "Å²/s^(α+1)", "A^2/s^(alpha+1)",
	    "reference transport prefactor, J_r = D0_ref t^alpha_ref + D_offset_ref",
	    1e4, 100, 1e6, 1, TN(1e4, 5e3), { NULL } },
	{ "alpha_ref", "reference", "", "",
	    "reference transport exponent",
	    0.0, -2, 2, 0, TN(0, 1), { NULL } },
	{ "D_offset_ref", "reference", "Å²/s", "A^2/s",
	    "reference transport offset",
	    0.0, -1e5, 1e5, 0, TN(0, 1e3), { NULL } },
	{ "D0_sample", "sample", "Å²/s^(α+1)", "A^2/s^(alpha+1)",
	    "sample transport prefactor, J_s = D0_sample t^alpha_sample + D_offset_sample",
	    1e4, 100, 1e6, 1, TN(1e4, 5e3), { NULL } },
	{ "alpha_sample", "sample", "", "",
	    "sample transport exponent",
	    0.0, -2, 2, 0, TN(0, 1), { NULL } },
	{ "D_offset_sample", "sample", "Å²/s", "A^2/s",
	    "sample transport offset",
	    0.0, -1e5, 1e5, 0, TN(0, 1e3), { NULL } },
	{ "v0", "velocity", "Å/s^(β+1)", "A/s^(beta+1)",
	    "sample velocity prefactor, v = v0 t^beta + v_offset",
	    1e3, 1e-6, 1e4, 1, TN(1e3, 500), { NULL } },
	{ "beta", "velocity", "", "",
	    "sample velocity exponent",
	    0.0, -2, 2, 0, TN(0, 1), { NULL } },
	{ "v_offset", "velocity", "Å/s", "A/s",
	    "sample velocity offset (the only way to reverse the flow)",
	    0.0, -100, 100, 0, TN(0, 25), { NULL } },
	{ "f0", "fraction", "", "",
	    "sample field fraction amplitude, x_s = f0 exp(f1 (t - f2)) + f3",
	    0.5, 0, 1, 0, TN(0.5, 0.25), { NULL } },
	{ "f1", "fraction", "1/s", "1/s",
	    "sample fraction growth rate",
	    0.0, -10, 10, 0, TN(0, 5), { NULL } },
	{ "f2", "fraction", "s", "s",
	    "sample fraction time shift",
	    0.0, -1e4, 1e4, 0, TN(0, 1e3), { NULL } },
	{ "f3", "fraction", "", "",
	    "sample fraction baseline",
	    0.0, 0, 1, 0, TN(0, 0.5), { NULL } },
	{ "phi0", "angle", "deg", "deg",
	    "flow direction offset, phase uses cos(phi + phi0)",
	    0.0, -10, 10, 0, TN(0, 5), { NULL } },
};

static const struct het_param_def hom_table[HOM_P_COUNT] = {
	{ "D0", NULL, "Å²/s^(α+1)", "A^2/s^(alpha+1)",
	    "diffusion prefactor, D = D0 t^alpha + D_offset",
	    1000.0, 100, 100000, 1, TN(1000, 1000), { NULL } },
	{ "alpha", NULL, "", "",
	    "diffusion exponent",
	    0.5, -2, 2, 0, TN(0.5, 0.5), { NULL } },
	{ "D_offset", NULL, "Å²/s", "A^2/s",
	    "diffusion offset",
	    10.0, -100000, 100000, 0, TN(10, 200), { NULL } },
	{ "gamma_dot_t0", NULL, "s^-(β+1)", "s^-(beta+1)",
	    "shear rate prefactor, gamma_dot = gamma_dot_t0 t^beta + gamma_dot_t_offset",
	    0.01, 1e-6, 0.5, 1, TN(0.01, 0.1), { "gamma_dot_0", NULL } },
	{ "beta", NULL, "", "",
	    "shear rate exponent",
	    0.5, -2, 2, 0, TN(0.0, 0.5), { NULL } },
	{ "gamma_dot_t_offset", NULL, "1/s", "1/s",
	    "shear rate offset",
	    0.0, -0.1, 0.1, 0, TN(0.0, 0.02), { "gamma_dot_offset", NULL } },
	{ "phi0", NULL, "deg", "deg",
	    "flow direction offset, shear phase uses cos(phi0 - phi)",
	    0.0, -10, 10, 0, TN(0.0, 5.0), { "phi_0", NULL } },
};

static const struct het_param_def scaling_table[HET_S_COUNT] = {
	{ "contrast", "scaling", "", "",
	    "per-angle contrast (speckle visibility)",
	    0.5, 0.0, 1.0, 0, TN(0.5, 0.25), { NULL } },
	{ "offset", "scaling", "", "",
	    "per-angle baseline of c2",
	    1.0, 0.5, 1.5, 0, TN(1.0, 0.25), { NULL } },
};

static const struct {
	const char *name;
	enum het_mode mode;
} mode_names[] = {
	{ "static_ref", HET_MODE_STATIC_REF },
	{ "static_both", HET_MODE_STATIC_BOTH },
	{ "two_component", HET_MODE_TWO_COMPONENT },
	{ "static", HET_MODE_HOM_STATIC },
	{ "laminar_flow", HET_MODE_HOM_LAMINAR },
	/* aliases after the canonical names */
	{ "static_isotropic", HET_MODE_HOM_STATIC },
	{ "static_anisotropic", HET_MODE_HOM_STATIC },
};

static const char *const prior_names[HET_PRIOR_COUNT] = {
	[HET_PRIOR_UNIFORM] = "uniform",
	[HET_PRIOR_NORMAL] = "normal",
	[HET_PRIOR_TRUNCNORMAL] = "truncated_normal",
	[HET_PRIOR_LOGNORMAL] = "lognormal",
	[HET_PRIOR_HALFNORMAL] = "halfnormal",
	[HET_PRIOR_EXPONENTIAL] = "exponential",
	[HET_PRIOR_BETA_SCALED] = "beta_scaled",
};

const struct het_param_def *
het_params_table(enum het_family family, size_t *n)
{
	if (family == HET_FAMILY_HETERODYNE) {
		*n = HET_P_HET_COUNT;
		return het_table;
	}
	*n = HOM_P_COUNT;
	return hom_table;
}

const struct het_param_def *
het_params_scaling(enum het_family family, enum het_scaling_param which)
{
	(void)family;
	return &scaling_table[which == HET_S_OFFSET ? HET_S_OFFSET :
	    HET_S_CONTRAST];
}

int
het_params_find(enum het_family family, const char *name)
{
	const struct het_param_def *tab;
	size_t n, k, a;

	if (name == NULL)
		return -1;
	tab = het_params_table(family, &n);
	for (k = 0; k < n; k++) {
		if (strcmp(tab[k].name, name) == 0)
			return (int)k;
		for (a = 0; a < 3 && tab[k].aliases[a] != NULL; a++)
			if (strcmp(tab[k].aliases[a], name) == 0)
				return (int)k;
	}
	return -1;
}

const char *
het_mode_name(enum het_mode mode)
{
	size_t k;

	for (k = 0; k < sizeof(mode_names) / sizeof(mode_names[0]); k++)
		if (mode_names[k].mode == mode)
			return mode_names[k].name;
	return "unknown";
}

int
het_mode_parse(const char *name, enum het_mode *mode, struct het_error *err)
{
	size_t k;

	for (k = 0; name != NULL &&
	    k < sizeof(mode_names) / sizeof(mode_names[0]); k++)
		if (strcmp(mode_names[k].name, name) == 0) {
			*mode = mode_names[k].mode;
			return HET_OK;
		}
	return het_error_set(err, HET_EINVAL,
	    "unknown analysis mode '%s'; heterodyne modes are static_ref, "
	    "static_both and two_component, homodyne modes are static "
	    "(alias static_isotropic, static_anisotropic) and laminar_flow",
	    name != NULL ? name : "(none)");
}

enum het_family
het_mode_family(enum het_mode mode)
{
	return mode <= HET_MODE_TWO_COMPONENT ? HET_FAMILY_HETERODYNE :
	    HET_FAMILY_HOMODYNE;
}

size_t
het_mode_nphys(enum het_mode mode)
{
	switch (mode) {
	case HET_MODE_HOM_STATIC:
		return 3;
	case HET_MODE_HOM_LAMINAR:
		return HOM_P_COUNT;
	default:
		return HET_P_HET_COUNT;
	}
}

int
het_mode_default_vary(enum het_mode mode, size_t index)
{
	switch (mode) {
	case HET_MODE_STATIC_REF:
		return index <= HET_P_DOFF_REF;
	case HET_MODE_STATIC_BOTH:
		return index <= HET_P_DOFF_SAMPLE;
	default:
		return index < het_mode_nphys(mode);
	}
}

const char *
het_prior_name(enum het_prior_kind kind)
{
	if ((int)kind < 0 || kind >= HET_PRIOR_COUNT)
		return "unknown";
	return prior_names[kind];
}

int
het_prior_parse(const char *name, enum het_prior_kind *kind,
    struct het_error *err)
{
	size_t k;

	for (k = 0; name != NULL && k < HET_PRIOR_COUNT; k++)
		if (strcmp(prior_names[k], name) == 0) {
			*kind = (enum het_prior_kind)k;
			return HET_OK;
		}
	return het_error_set(err, HET_EINVAL,
	    "unknown prior type '%s'; use one of uniform, normal, "
	    "truncated_normal, lognormal, halfnormal, exponential, "
	    "beta_scaled", name != NULL ? name : "(none)");
}
