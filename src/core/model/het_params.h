/*
 * het_params.h: the one parameter table of hetui.
 *
 * Every front end (config reader, CLI, TUI, NLSQ, CMC, results writers)
 * takes names, units, defaults, bounds and default priors from here, so
 * they can never disagree.  Two model families exist:
 *
 *   heterodyne (14 physics parameters, He et al. PNAS 2025 SI Eq. S-95):
 *     D0_ref alpha_ref D_offset_ref D0_sample alpha_sample D_offset_sample
 *     v0 beta v_offset f0 f1 f2 f3 phi0
 *   homodyne (7 physics parameters; the static mode uses the first 3):
 *     D0 alpha D_offset gamma_dot_t0 beta gamma_dot_t_offset phi0
 *
 * plus the per-angle scaling parameters contrast and offset.  The numbers
 * are those of ../shared/docs/heterodyne-spec.md §2.1 and
 * homodyne-spec.md §8.  The tables are constant data; every function
 * here may be called from any thread.
 */
#ifndef HET_PARAMS_H
#define HET_PARAMS_H

#include <stddef.h>

#include "het_error.h"

#define HET_MAX_PHYS 14		/* longest physics vector (heterodyne) */

enum het_family {
	HET_FAMILY_HETERODYNE = 0,
	HET_FAMILY_HOMODYNE
};

/* Analysis modes: which kernel runs and which parameters vary by default. */
enum het_mode {
	HET_MODE_STATIC_REF = 0,	/* heterodyne, 3 free: reference transport */
	HET_MODE_STATIC_BOTH,		/* heterodyne, 6 free: both transports */
	HET_MODE_TWO_COMPONENT,		/* heterodyne, 14 free */
	HET_MODE_HOM_STATIC,		/* homodyne static (aliases static_isotropic,
					   static_anisotropic), 3 parameters */
	HET_MODE_HOM_LAMINAR,		/* homodyne laminar_flow, 7 parameters */
	HET_MODE_COUNT
};

enum het_prior_kind {
	HET_PRIOR_UNIFORM = 0,		/* on [lo, hi] of the parameter */
	HET_PRIOR_NORMAL,		/* a = mean, b = sd */
	HET_PRIOR_TRUNCNORMAL,		/* a = loc, b = scale, truncated to [lo, hi] */
	HET_PRIOR_LOGNORMAL,		/* a = mu, b = sigma of log(x) */
	HET_PRIOR_HALFNORMAL,		/* b = scale (a unused) */
	HET_PRIOR_EXPONENTIAL,		/* a = rate */
	HET_PRIOR_BETA_SCALED,		/* a, b = concentrations, on [lo, hi] */
	HET_PRIOR_COUNT
};

struct het_prior {
	enum het_prior_kind kind;
	double	a;
	double	b;
};

struct het_param_def {
	const char	*name;		/* canonical name, e.g. "D0_ref" */
	const char	*group;		/* heterodyne YAML group ("reference",
					   "sample", "velocity", "fraction",
					   "angle", "scaling"); NULL for homodyne */
	const char	*unit;		/* e.g. "Å²/s" (UTF-8) */
	const char	*ascii_unit;	/* the same in ASCII: "A^2/s" */
	const char	*description;	/* one line for help texts and the TUI */
	double		 value;		/* default value */
	double		 lo, hi;	/* default bounds, lo < hi */
	int		 log_space;	/* 1 when the natural scale is logarithmic */
	struct het_prior prior;		/* default CMC prior */
	const char	*aliases[3];	/* other accepted names, NULL-terminated */
};

/* Indices into the heterodyne physics vector. */
enum het_het_param {
	HET_P_D0_REF = 0, HET_P_ALPHA_REF, HET_P_DOFF_REF,
	HET_P_D0_SAMPLE, HET_P_ALPHA_SAMPLE, HET_P_DOFF_SAMPLE,
	HET_P_V0, HET_P_BETA, HET_P_V_OFFSET,
	HET_P_F0, HET_P_F1, HET_P_F2, HET_P_F3, HET_P_PHI0,
	HET_P_HET_COUNT
};

/* Indices into the homodyne physics vector. */
enum het_hom_param {
	HOM_P_D0 = 0, HOM_P_ALPHA, HOM_P_DOFF,
	HOM_P_GAMMA0, HOM_P_BETA, HOM_P_GAMMA_OFF, HOM_P_PHI0,
	HOM_P_COUNT
};

/* The per-angle scaling parameters. */
enum het_scaling_param { HET_S_CONTRAST = 0, HET_S_OFFSET, HET_S_COUNT };

/*
 * het_params_table: the physics table of a family and its length in
 * *n.  The returned array is static constant data.
 */
const struct het_param_def *het_params_table(enum het_family family,
    size_t *n);

/*
 * het_params_scaling: the definition of contrast or offset for a family
 * (defaults, bounds and priors are the same in both families today, but
 * callers must not rely on it).  Static constant data.
 */
const struct het_param_def *het_params_scaling(enum het_family family,
    enum het_scaling_param which);

/*
 * het_params_find: index of a physics parameter by canonical name or
 * alias (exact, case-sensitive), or -1 when the family has no such name.
 */
int het_params_find(enum het_family family, const char *name);

/* het_mode_name: canonical mode name ("two_component", "laminar_flow"). */
const char *het_mode_name(enum het_mode mode);

/*
 * het_mode_parse: a mode by canonical name or alias ("static_isotropic"
 * and "static_anisotropic" mean homodyne "static").  Returns HET_OK, or
 * HET_EINVAL with a message listing the valid names.
 */
int het_mode_parse(const char *name, enum het_mode *mode,
    struct het_error *err);

/* het_mode_family: the family a mode belongs to. */
enum het_family het_mode_family(enum het_mode mode);

/*
 * het_mode_nphys: length of the physics vector the mode's kernel reads
 * (14 for heterodyne modes, 3 for homodyne static, 7 for laminar_flow).
 */
size_t het_mode_nphys(enum het_mode mode);

/*
 * het_mode_default_vary: 1 when physics parameter `index` varies by
 * default in `mode` (static_ref: the 3 reference transport parameters;
 * static_both: the 6 transport parameters; two_component: all 14;
 * homodyne modes: all of their parameters), else 0.
 */
int het_mode_default_vary(enum het_mode mode, size_t index);

/* het_prior_name / het_prior_parse: "truncated_normal" and back. */
const char *het_prior_name(enum het_prior_kind kind);
int het_prior_parse(const char *name, enum het_prior_kind *kind,
    struct het_error *err);

#endif /* HET_PARAMS_H */
