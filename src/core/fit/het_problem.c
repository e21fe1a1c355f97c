/*
 * het_problem.c: data assembly for a fit: selection of the q ring, the
 * angles and the frame window; one read per selected matrix into a
 * reused buffer, whose upper triangle becomes the pairs and y values;
 * the far-lag noise estimate; the model, the scaling with its quantile
 * start, and the residual problem with the configured bounds.
 *
 * Design: everything is built once, in order, into one struct whose
 * arrays it owns; any failure frees the partly built problem (the
 * constructor pattern of the house rules).  The rules themselves are
 * stated in het_problem.h and the man page; this file only implements
 * them.  The far-lag noise estimate itself is het_problem_noise.c.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_memory.h"
#include "het_problem.h"
#include "het_util.h"

#define PB_LIST_MAX	600	/* longest list quoted in a message */

static const char *const rule_names[] = {
	[HET_ANGLES_LIST] = "phi_angles",
	[HET_ANGLES_FILTER] = "phi_filtering",
	[HET_ANGLES_FALLBACK] = "fallback_to_all_angles",
	[HET_ANGLES_ALL] = "all",
};

const char *
het_problem_angle_rule_name(enum het_problem_angle_rule rule)
{
	if ((unsigned)rule >= HET_ARRAY_LEN(rule_names))
		return "?";
	return rule_names[rule];
}

void
het_problem_free(struct het_problem *pb)
{
	size_t k;

	if (pb == NULL)
		return;
	het_resid_free(pb->resid);
	het_scaling_free(pb->scaling);
	het_model_free(pb->model);
	for (k = 0; k < pb->nwarnings; k++)
		free(pb->warnings[k]);
	free(pb->warnings);
	free(pb->data_path);
	free(pb->bins);
	free(pb->labels);
	free(pb->phi);
	free(pb->dt_source);
	free(pb->pairs);
	free(pb->y);
	free(pb->pair_first);
	free(pb->sigma_angle);
	free(pb->noise_lag);
	free(pb->noise_count);
	free(pb->est_contrast);
	free(pb->est_offset);
	free(pb->s0);
	free(pb->s_free);
	free(pb->x0);
	free(pb->lo);
	free(pb->hi);
	free(pb);
}

static int __attribute__((format(printf, 3, 4)))
pb_warn(struct het_problem *pb, struct het_error *err, const char *fmt, ...)
{
	char buf[HET_ERROR_MSG_MAX], **w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	w = realloc(pb->warnings, (pb->nwarnings + 1) * sizeof(*w));
	if (w == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	pb->warnings = w;
	if ((w[pb->nwarnings] = het_strdup(buf, err)) == NULL)
		return HET_ENOMEM;
	pb->nwarnings++;
	return HET_OK;
}

char *
het_problem_data_path(const struct het_config *cfg, const char *override,
    struct het_error *err)
{
	if (override != NULL)
		return het_strdup(override, err);
	if (cfg->data_file == NULL || cfg->data_file[0] == '\0') {
		het_error_set(err, HET_EINVAL,
		    "%s names no data file; give FILE on the command line or "
		    "set experimental_data.file_path",
		    cfg->source != NULL ? cfg->source : "the config");
		return NULL;
	}
	return het_config_resolve_path(cfg, cfg->data_file, err);
}

/* ---- selection ----------------------------------------------------------- */

/* Circular distance of two angles in degrees, in [0, 180]. */
static double
pb_phi_dist(double a, double b)
{
	double d = fmod(fabs(a - b), 360.0);

	return d > 180.0 ? 360.0 - d : d;
}

/*
 * phi in the range lo..hi widened by tol on both sides: the arc that runs
 * counter-clockwise from lo - tol to hi + tol (through 180 when lo > hi).
 */
static int
pb_in_range(double phi, double lo, double hi, double tol)
{
	double len, from;

	len = (lo <= hi ? hi - lo : hi + 360.0 - lo) + 2 * tol;
	if (len >= 360.0)
		return 1;
	from = fmod(phi - (lo - tol), 360.0);
	if (from < 0)
		from += 360.0;
	return from <= len;
}

/* "0, 45, 90": the phi of the bins in list. */
static void
pb_list_phi(struct het_dataset *ds, const size_t *bins, size_t n, char *buf,
    size_t len)
{
	size_t k, used;

	buf[0] = '\0';
	for (k = 0; k < n; k++) {
		used = strlen(buf);
		if (used >= PB_LIST_MAX) {
			snprintf(buf + used, len - used, ", ...");
			return;
		}
		snprintf(buf + used, len - used, "%s%.6g", k ? ", " : "",
		    het_dataset_bin(ds, bins[k])->phi);
	}
}

/* The ring: select every bin of the ring nearest to the config's q. */
static int
pb_select_ring(struct het_problem *pb, const struct het_config *cfg,
    struct het_dataset *ds, struct het_pick *ring, struct het_error *err)
{
	const struct het_dataset_info *in = het_dataset_info(ds);
	struct het_selection sel;
	char list[PB_LIST_MAX + 64];
	size_t k, used;
	int rc;

	het_selection_init(&sel);
	sel.q = cfg->q_set ? cfg->wavevector_q : NAN;
	sel.q_rtol = HET_PROBLEM_Q_RTOL;
	sel.first_frame = cfg->start_frame;
	sel.last_frame = cfg->end_frame;
	if ((rc = het_dataset_select(ds, &sel, ring, err)) != HET_OK)
		return het_error_prefix(err, "%s", in->path);
	pb->q_idx = het_dataset_bin(ds, ring->bins[0])->q_idx;
	for (k = 1; k < ring->nbins; k++)
		if (het_dataset_bin(ds, ring->bins[k])->q_idx != pb->q_idx)
			break;
	if (k < ring->nbins) {
		list[0] = '\0';
		for (k = 0; k < in->n_q; k++) {
			used = strlen(list);
			if (used >= PB_LIST_MAX)
				break;
			snprintf(list + used, sizeof(list) - used, "%s%.6g",
			    k ? ", " : "", in->q_list[k]);
		}
		het_pick_fini(ring);
		return het_error_set(err, HET_ENOTFOUND,
		    "%s holds several q rings (%s 1/A) and the config names "
		    "none; set analyzer_parameters.scattering.wavevector_q",
		    in->path, list);
	}
	pb->q = in->q_list[pb->q_idx];
	pb->q_set = cfg->q_set;
	pb->q_target = cfg->q_set ? cfg->wavevector_q : NAN;
	pb->first_frame = ring->first_frame;
	pb->last_frame = ring->last_frame;
	pb->n_frames = ring->frames;
	return HET_OK;
}

/* Angles from phi_angles: the nearest bin of the ring for each. */
static int
pb_angles_list(struct het_problem *pb, const struct het_config *cfg,
    struct het_dataset *ds, struct het_pick *pick, struct het_error *err)
{
	struct het_selection sel;
	size_t t, k;
	double d, best;
	int rc;

	het_selection_init(&sel);
	sel.q = pb->q;
	sel.phi = cfg->phi_angles;
	sel.nphi = cfg->nphi_angles;
	sel.first_frame = pb->first_frame;
	sel.last_frame = pb->last_frame;
	if ((rc = het_dataset_select(ds, &sel, pick, err)) != HET_OK)
		return het_error_prefix(err, "%s",
		    het_dataset_info(ds)->path);
	for (t = 0; t < cfg->nphi_angles; t++) {
		best = INFINITY;
		for (k = 0; k < pick->nbins; k++) {
			d = pb_phi_dist(het_dataset_bin(ds, pick->bins[k])->phi,
			    cfg->phi_angles[t]);
			best = fmin(best, d);
		}
		if (best > cfg->phi_tolerance && (rc = pb_warn(pb, err,
		    "phi_angles: %g deg is %.3g deg from the nearest bin of "
		    "the q = %.6g ring, more than phi_filtering.tolerance "
		    "(%g deg); that bin is used", cfg->phi_angles[t], best,
		    pb->q, cfg->phi_tolerance)) != HET_OK)
			return rc;
	}
	if (pick->nbins < cfg->nphi_angles && (rc = pb_warn(pb, err,
	    "phi_angles: %zu angles select only %zu distinct bins; angles "
	    "that share a nearest bin are fitted once", cfg->nphi_angles,
	    pick->nbins)) != HET_OK)
		return rc;
	pb->angle_rule = HET_ANGLES_LIST;
	return HET_OK;
}

/* Angles from phi_filtering: the ring's bins inside any widened range. */
static int
pb_angles_filter(struct het_problem *pb, const struct het_config *cfg,
    struct het_dataset *ds, struct het_pick *ring, struct het_error *err)
{
	char list[PB_LIST_MAX + 64];
	size_t k, r, n = 0;
	double phi;
	int rc;

	for (k = 0; k < ring->nbins; k++) {
		phi = het_dataset_bin(ds, ring->bins[k])->phi;
		for (r = 0; r < cfg->nphi_ranges; r++)
			if (pb_in_range(phi, cfg->phi_ranges[r].lo,
			    cfg->phi_ranges[r].hi, cfg->phi_tolerance))
				break;
		if (r < cfg->nphi_ranges)
			ring->bins[n++] = ring->bins[k];
	}
	if (n > 0) {
		ring->nbins = n;
		pb->angle_rule = HET_ANGLES_FILTER;
		return HET_OK;
	}
	pb_list_phi(ds, ring->bins, ring->nbins, list, sizeof(list));
	if (!cfg->phi_fallback)
		return het_error_set(err, HET_ENOTFOUND,
		    "%s: no angle of the q = %.6g ring lies in a "
		    "phi_filtering.target_ranges range (widened by tolerance "
		    "%g deg), and fallback_to_all_angles is false; available "
		    "phi (deg): %s", het_dataset_info(ds)->path, pb->q,
		    cfg->phi_tolerance, list);
	pb->angle_rule = HET_ANGLES_FALLBACK;
	if ((rc = pb_warn(pb, err, "phi_filtering: no angle of the q = %.6g "
	    "ring lies in a target range; fitting all of them (%s) as "
	    "fallback_to_all_angles says", pb->q, list)) != HET_OK)
		return rc;
	return HET_OK;
}

static int
pb_select(struct het_problem *pb, const struct het_config *cfg,
    struct het_dataset *ds, struct het_error *err)
{
	struct het_pick ring, pick;
	const struct het_bin *b;
	size_t a;
	int rc;

	memset(&pick, 0, sizeof(pick));
	if ((rc = pb_select_ring(pb, cfg, ds, &ring, err)) != HET_OK)
		return rc;
	if (cfg->nphi_angles > 0) {
		rc = pb_angles_list(pb, cfg, ds, &pick, err);
		het_pick_fini(&ring);
	} else {
		if (cfg->phi_filter && cfg->nphi_ranges > 0)
			rc = pb_angles_filter(pb, cfg, ds, &ring, err);
		else
			pb->angle_rule = HET_ANGLES_ALL;
		pick = ring;
	}
	if (rc != HET_OK)
		goto out;
	pb->nangles = pick.nbins;
	pb->bins = het_alloc_array(pb->nangles, sizeof(size_t), "bins", err);
	pb->labels = het_alloc_array(pb->nangles, sizeof(long), "bins", err);
	pb->phi = het_alloc_array(pb->nangles, sizeof(double), "angles", err);
	if (pb->bins == NULL || pb->labels == NULL || pb->phi == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	pb->dtype = HET_DTYPE_F32;
	for (a = 0; a < pb->nangles; a++) {
		b = het_dataset_bin(ds, pick.bins[a]);
		if (b->dtype != HET_DTYPE_F32)
			pb->dtype = HET_DTYPE_F64;
		pb->bins[a] = b->index;
		pb->labels[a] = b->label;
		pb->phi[a] = b->phi;
	}
out:
	het_pick_fini(&pick);
	return rc;
}

/* ---- data and noise ------------------------------------------------------ */

/* Refuse a window that cannot fit in memory, before allocating it. */
static int
pb_memory(struct het_problem *pb, const struct het_problem_opts *opts,
    struct het_error *err)
{
	char what[96], warn[HET_ERROR_MSG_MAX];
	uint64_t avail = opts != NULL && opts->mem_available > 0 ?
	    opts->mem_available : het_memory_available(NULL);

	snprintf(what, sizeof(what), "frames %ld..%ld of %zu angle%s "
	    "(%zu frames)", pb->first_frame, pb->last_frame, pb->nangles,
	    pb->nangles == 1 ? "" : "s", pb->n_frames);
	switch (het_memory_check(pb->n_frames, pb->nangles, avail, what,
	    warn, sizeof(warn), err)) {
	case HET_MEMORY_TOO_BIG:
		return HET_ENOMEM;
	case HET_MEMORY_TIGHT:
		return pb_warn(pb, err, "%s", warn);
	default:
		return HET_OK;
	}
}

static int
pb_read(struct het_problem *pb, struct het_dataset *ds,
    const struct het_problem_opts *opts, struct het_error *err)
{
	struct het_c2_info ci;
	size_t n = pb->n_frames, per, a, i, j, k = 0;
	double *buf, pooled = 0;
	size_t npooled = 0;
	int rc = HET_OK;

	if ((rc = pb_memory(pb, opts, err)) != HET_OK)
		return rc;
	per = n * (n - 1) / 2;
	if (pb->nangles > 0 && per > ((size_t)-1) / pb->nangles)
		return het_error_set(err, HET_ENOMEM, "%zu angles of %zu "
		    "frames are too many pairs to address", pb->nangles, n);
	pb->npairs = per * pb->nangles;
	pb->pairs = het_alloc_array(pb->npairs, sizeof(*pb->pairs),
	    "pair list", err);
	pb->y = het_alloc_array(pb->npairs, sizeof(double), "c2 data", err);
	pb->pair_first = het_alloc_array(pb->nangles + 1, sizeof(size_t),
	    "pair offsets", err);
	pb->sigma_angle = het_alloc_array(pb->nangles, sizeof(double),
	    "noise", err);
	pb->noise_lag = het_alloc_array(pb->nangles, sizeof(long), "noise",
	    err);
	pb->noise_count = het_alloc_array(pb->nangles, sizeof(size_t),
	    "noise", err);
	if (pb->pairs == NULL || pb->y == NULL || pb->pair_first == NULL ||
	    pb->sigma_angle == NULL || pb->noise_lag == NULL ||
	    pb->noise_count == NULL)
		return HET_ENOMEM;
	if ((buf = het_alloc_array(n * n, sizeof(double), "c2 matrix",
	    err)) == NULL)
		return HET_ENOMEM;
	for (a = 0; a < pb->nangles; a++) {
		const struct het_bin *b = het_dataset_bin(ds, pb->bins[a]);

		rc = het_dataset_read_c2(ds, pb->bins[a], pb->first_frame,
		    pb->last_frame, buf, &ci, err);
		if (rc != HET_OK) {
			het_error_prefix(err, "bin %ld (phi %g)", b->label,
			    b->phi);
			break;
		}
		if (ci.nunusual > 0 && (rc = pb_warn(pb, err, "bin %ld (phi "
		    "%g): %zu c2 values above %g, the largest %g at frames "
		    "(%zu, %zu); a normalised correlation is near 1, so check "
		    "the data before trusting the fit", b->label, b->phi,
		    ci.nunusual, HET_C2_UNUSUAL, ci.maxval, ci.max_i,
		    ci.max_j)) != HET_OK)
			break;
		pb->pair_first[a] = k;
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++, k++) {
				pb->pairs[k].i = (uint32_t)i;
				pb->pairs[k].j = (uint32_t)j;
				pb->pairs[k].a = (uint32_t)a;
				pb->y[k] = buf[i * n + j];
			}
		pb->sigma_angle[a] = het_problem_noise(buf, n,
		    &pb->noise_lag[a], &pb->noise_count[a]);
		if (isfinite(pb->sigma_angle[a])) {
			pooled += pb->sigma_angle[a] * pb->sigma_angle[a];
			npooled++;
		}
		if (opts != NULL && opts->progress != NULL &&
		    opts->progress(opts->progress_arg, a, pb->nangles, b)) {
			rc = het_error_set(err, HET_ECANCEL,
			    "reading cancelled after %zu of %zu bins", a + 1,
			    pb->nangles);
			break;
		}
	}
	free(buf);
	if (rc != HET_OK)
		return rc;
	pb->pair_first[pb->nangles] = k;
	pb->sigma = npooled > 0 ? sqrt(pooled / (double)npooled) : NAN;
	if (npooled == 0)
		return pb_warn(pb, err, "the far-lag noise estimate needs at "
		    "least %d differences per angle, which %zu frames "
		    "do not give; the reduced chi-square is reported without "
		    "a noise estimate (sum r^2 / dof)", HET_PROBLEM_NOISE_MIN,
		    n);
	if (npooled < pb->nangles)
		return pb_warn(pb, err, "the far-lag noise estimate needs at "
		    "least %d differences per angle; %zu of %zu angles "
		    "have too few and use the pooled value",
		    HET_PROBLEM_NOISE_MIN, pb->nangles - npooled, pb->nangles);
	return HET_OK;
}

double
het_problem_chi2_red(const struct het_problem *pb, const double *r, size_t p)
{
	double sum = 0, s, dof;
	size_t a, k;

	if (!isfinite(pb->sigma))
		return NAN;
	for (a = 0; a < pb->nangles; a++) {
		s = isfinite(pb->sigma_angle[a]) && pb->sigma_angle[a] > 0 ?
		    pb->sigma_angle[a] : pb->sigma;
		for (k = pb->pair_first[a]; k < pb->pair_first[a + 1]; k++)
			sum += (r[k] / s) * (r[k] / s);
	}
	dof = pb->npairs > p ? (double)(pb->npairs - p) : 1.0;
	return sum / dof;
}

/* ---- model, scaling, parameters ------------------------------------------ */

static int
pb_model(struct het_problem *pb, const struct het_config *cfg,
    struct het_dataset *ds, const struct het_problem_opts *opts,
    struct het_error *err)
{
	struct het_selection sel;
	const char *src;
	int rc;

	het_selection_init(&sel);
	if (opts != NULL && opts->dt > 0) {
		sel.dt = opts->dt;
		sel.dt_source = opts->dt_source != NULL ? opts->dt_source :
		    "--dt";
	} else if (cfg->dt_set) {
		sel.dt = cfg->dt;
		sel.dt_source = "config: analyzer_parameters.dt";
	}
	if ((rc = het_dataset_dt(ds, &sel, &pb->dt, &src, err)) != HET_OK)
		return rc;
	if ((pb->dt_source = het_strdup(src, err)) == NULL)
		return HET_ENOMEM;
	memset(&pb->spec, 0, sizeof(pb->spec));
	pb->spec.mode = cfg->mode;
	pb->spec.q = pb->q;
	pb->spec.dt = pb->dt;
	pb->spec.start_frame = pb->first_frame;
	pb->spec.n_frames = pb->n_frames;
	pb->spec.n_angles = pb->nangles;
	pb->spec.phi = pb->phi;
	pb->spec.gap = cfg->stator_rotor_gap;
	if ((pb->model = het_model_alloc(&pb->spec, err)) == NULL)
		return het_error_prefix(err, "model");
	if (pb->q_set && fabs(pb->q - pb->q_target) > 1e-3 * pb->q_target)
		return pb_warn(pb, err, "wavevector_q is %g 1/A but the "
		    "nearest ring of the file is at %.6g 1/A; the model uses "
		    "the file's q", pb->q_target, pb->q);
	return HET_OK;
}

/* Per-angle values of one scaling quantity from the config, if given. */
static int
pb_config_values(const struct het_problem *pb, const double *init,
    size_t ninit, const char *key, double *out, struct het_error *err)
{
	size_t a;

	if (ninit != 1 && ninit != pb->nangles)
		return het_error_set(err, HET_EINVAL,
		    "initial_parameters.per_angle_scaling.%s has %zu values "
		    "but %zu angles are selected; give one value or one per "
		    "angle", key, ninit, pb->nangles);
	for (a = 0; a < pb->nangles; a++)
		out[a] = init[ninit == 1 ? 0 : a];
	return HET_OK;
}

/* Start (or fixed) per-angle values of one quantity: config or estimate. */
static int
pb_start_values(struct het_problem *pb, const struct het_config *cfg,
    int which, double *out, struct het_error *err)
{
	const struct het_config_scaling *s = &cfg->scaling;
	const double *init = which == HET_S_CONTRAST ? s->init_contrast :
	    s->init_offset;
	size_t a, ninit = which == HET_S_CONTRAST ? s->ninit_contrast :
	    s->ninit_offset;
	const double *est = which == HET_S_CONTRAST ? pb->est_contrast :
	    pb->est_offset;

	if (ninit > 0) {
		pb->scaling_from_config = 1;
		return pb_config_values(pb, init, ninit,
		    which == HET_S_CONTRAST ? "contrast" : "offset", out, err);
	}
	for (a = 0; a < pb->nangles; a++)
		out[a] = s->p[which].vary ? est[a] : s->p[which].value;
	return HET_OK;
}

static int
pb_scaling(struct het_problem *pb, const struct het_config *cfg,
    struct het_error *err)
{
	const struct het_config_scaling *s = &cfg->scaling;
	struct het_scaling_spec spec;
	double *vc = NULL, *vo = NULL;
	size_t k;
	int rc;

	pb->scaling_mode = het_config_scaling_resolve(cfg, pb->nangles, 0);
	het_scaling_default_spec(&spec, cfg->family, pb->scaling_mode,
	    pb->nangles, pb->phi);
	spec.fourier_order = (int)s->fourier_order;
	spec.contrast_value = s->p[HET_S_CONTRAST].value;
	spec.contrast_lo = s->p[HET_S_CONTRAST].lo;
	spec.contrast_hi = s->p[HET_S_CONTRAST].hi;
	spec.offset_value = s->p[HET_S_OFFSET].value;
	spec.offset_lo = s->p[HET_S_OFFSET].lo;
	spec.offset_hi = s->p[HET_S_OFFSET].hi;
	if ((pb->scaling = het_scaling_alloc(&spec, err)) == NULL)
		return het_error_prefix(err, "optimization.nlsq.per_angle_mode "
		    "%s", het_scaling_mode_name(pb->scaling_mode));
	pb->est_contrast = het_alloc_array(pb->nangles, sizeof(double),
	    "scaling estimate", err);
	pb->est_offset = het_alloc_array(pb->nangles, sizeof(double),
	    "scaling estimate", err);
	vc = het_alloc_array(pb->nangles, sizeof(double), "scaling", err);
	vo = het_alloc_array(pb->nangles, sizeof(double), "scaling", err);
	if (pb->est_contrast == NULL || pb->est_offset == NULL || vc == NULL ||
	    vo == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	if ((rc = het_scaling_estimate(pb->scaling, pb->npairs, pb->pairs,
	    pb->y, pb->est_contrast, pb->est_offset, err)) != HET_OK ||
	    (rc = pb_start_values(pb, cfg, HET_S_CONTRAST, vc, err)) !=
	    HET_OK ||
	    (rc = pb_start_values(pb, cfg, HET_S_OFFSET, vo, err)) != HET_OK)
		goto out;
	pb->nscal = het_scaling_nparams(pb->scaling);
	if (pb->scaling_mode == HET_SCALING_CONSTANT) {
		rc = het_scaling_set_constant(pb->scaling, vc, vo, err);
		if (rc != HET_OK)
			het_error_prefix(err, "per_angle_mode constant");
		goto out;
	}
	pb->s0 = het_alloc_array(pb->nscal, sizeof(double), "scaling", err);
	pb->s_free = het_alloc_array(pb->nscal, 1, "scaling", err);
	if (pb->s0 == NULL || pb->s_free == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	het_scaling_project(pb->scaling, vc, vo, pb->s0);
	for (k = 0; k < pb->nscal; k++)
		pb->s_free[k] = strncmp(het_scaling_param_name(pb->scaling, k),
		    "contrast", 8) == 0 ? s->p[HET_S_CONTRAST].vary != 0 :
		    s->p[HET_S_OFFSET].vary != 0;
	rc = HET_OK;
out:
	free(vc);
	free(vo);
	return rc;
}

static int
pb_resid(struct het_problem *pb, const struct het_config *cfg,
    struct het_error *err)
{
	struct het_resid_spec rs;
	size_t k;
	long col;
	double v;
	int rc;

	pb->nphys = cfg->nphys;
	for (k = 0; k < pb->nphys; k++) {
		pb->theta[k] = cfg->phys[k].value;
		pb->phys_free[k] = cfg->phys[k].vary != 0;
		pb->phys_lo[k] = cfg->phys[k].lo;
		pb->phys_hi[k] = cfg->phys[k].hi;
	}
	memset(&rs, 0, sizeof(rs));
	rs.model = pb->model;
	rs.scaling = pb->scaling;
	rs.theta = pb->theta;
	rs.free = pb->phys_free;
	rs.s = pb->s0;
	rs.s_free = pb->s_free;
	rs.n = pb->npairs;
	rs.pairs = pb->pairs;
	rs.y = pb->y;
	if ((pb->resid = het_resid_alloc(&rs, err)) == NULL)
		return het_error_prefix(err, "fit problem");
	pb->p = het_resid_nparams(pb->resid);
	pb->x0 = het_alloc_array(pb->p, sizeof(double), "start vector", err);
	pb->lo = het_alloc_array(pb->p, sizeof(double), "bounds", err);
	pb->hi = het_alloc_array(pb->p, sizeof(double), "bounds", err);
	if (pb->x0 == NULL || pb->lo == NULL || pb->hi == NULL)
		return HET_ENOMEM;
	het_resid_x0(pb->resid, pb->x0);
	het_resid_bounds(pb->resid, pb->lo, pb->hi);
	for (k = 0; k < pb->nphys; k++) {
		if ((col = het_resid_phys_col(pb->resid, k)) < 0)
			continue;
		pb->lo[col] = pb->phys_lo[k];
		pb->hi[col] = pb->phys_hi[k];
	}
	for (k = 0; k < pb->p; k++) {
		v = fmin(fmax(pb->x0[k], pb->lo[k]), pb->hi[k]);
		if (v == pb->x0[k])
			continue;
		if ((rc = pb_warn(pb, err, "the start value %g of %s lies "
		    "outside its bounds [%g, %g]; the fit starts at %g",
		    pb->x0[k], het_resid_param_name(pb->resid, k), pb->lo[k],
		    pb->hi[k], v)) != HET_OK)
			return rc;
		pb->x0[k] = v;
	}
	return HET_OK;
}

struct het_problem *
het_problem_build(const struct het_config *cfg, struct het_dataset *ds,
    const struct het_problem_opts *opts, struct het_error *err)
{
	struct het_problem *pb;
	const struct het_dataset_info *in = het_dataset_info(ds);

	if ((pb = calloc(1, sizeof(*pb))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	pb->sigma = NAN;
	pb->q_target = NAN;
	pb->layout = in->layout;
	if ((pb->data_path = het_strdup(in->path, err)) == NULL ||
	    pb_select(pb, cfg, ds, err) != HET_OK ||
	    pb_model(pb, cfg, ds, opts, err) != HET_OK ||
	    pb_read(pb, ds, opts, err) != HET_OK ||
	    pb_scaling(pb, cfg, err) != HET_OK ||
	    pb_resid(pb, cfg, err) != HET_OK) {
		het_problem_free(pb);
		return NULL;
	}
	return pb;
}

struct het_dataset *
het_problem_dataset_open(const struct het_config *cfg, const char *path,
    double dt, struct het_error *err)
{
	struct het_dataset_meta meta;

	memset(&meta, 0, sizeof meta);
	if (cfg->q_set)
		meta.q = cfg->wavevector_q;
	meta.phi = cfg->phi_angles;
	meta.nphi = cfg->phi_angles != NULL ? cfg->nphi_angles : 0;
	meta.dt = dt > 0 ? dt : cfg->dt_set ? cfg->dt : 0;
	meta.source = dt > 0 ? "the configuration and --dt" :
	    "the configuration";
	return het_dataset_open_meta(path, &meta, err);
}
