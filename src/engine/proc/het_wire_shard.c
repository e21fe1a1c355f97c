#include "config.h"

/*
 * het_wire_shard.c: shard payloads of the wire protocol (see
 * het_wire_shard.h and docs/wire-protocol.md §3.1); result payloads are
 * in het_wire_result.c, the objects a worker builds from a shard and the
 * digest of a shard payload in het_wire_shard_build.c.
 *
 * Design: scalars and short lists (angles, names, priors, per-parameter
 * diagnostics) are plain JSON; bulk data (pairs, y, theta, draws) are the
 * base64 arrays of het_wire.  Non-finite reals, which JSON cannot hold,
 * are null: an infinite prior bound, an undefined R-hat.  Every field a
 * decoder needs is checked and a bad one is named by its path
 * ("shard.model.q") so a coordinator bug is found at once.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_util.h"
#include "het_wire.h"
#include "het_wire_impl.h"
#include "het_wire_shard.h"

static int
ws_put_flags(json_t *obj, const char *key, const unsigned char *f, size_t n,
    struct het_error *err)
{
	uint32_t	*v;
	size_t		 k;
	int		 rc;

	if (f == NULL)
		return HET_OK;
	if ((v = het_alloc_array(n, sizeof *v, key, err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < n; k++)
		v[k] = f[k] != 0;
	rc = het_wire_put_u32(obj, key, v, n, err);
	free(v);
	return rc;
}

json_t *
het_wire_shard_pack(const struct het_wire_shard *ws, struct het_error *err)
{
	const struct het_model_spec	*ms = &ws->model;
	const struct het_scaling_spec	*ss = &ws->scaling;
	json_t		*o, *m, *s, *pr, *e, *nu;
	uint32_t	*u = NULL;
	size_t		 k, nphys;
	int		 rc = HET_OK;

	if (ws->theta == NULL || ws->pairs == NULL || ws->y == NULL ||
	    ws->priors == NULL || ws->np == 0 || ms->phi == NULL) {
		het_error_set(err, HET_EINVAL, "shard %ld: a shard record "
		    "needs theta, pairs, y, the angles and one prior per free "
		    "parameter", ws->shard);
		return NULL;
	}
	nphys = het_mode_nphys(ms->mode);
	if ((o = json_object()) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory for a shard "
		    "record");
		return NULL;
	}
	m = json_pack("{s:s, s:f, s:f, s:I, s:I, s:o, s:f}",
	    "mode", het_mode_name(ms->mode), "q", ms->q, "dt", ms->dt,
	    "start_frame", (json_int_t)ms->start_frame,
	    "n_frames", (json_int_t)ms->n_frames,
	    "phi", het_wire_jreals(ms->phi, ms->n_angles), "gap", ms->gap);
	s = json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
	    "s:f, s:f, s:f, s:f}",
	    "mode", het_scaling_mode_name(ss->mode),
	    "fourier_order", ss->fourier_order,
	    "contrast_value", ss->contrast_value,
	    "offset_value", ss->offset_value,
	    "contrast_lo", ss->contrast_lo, "contrast_hi", ss->contrast_hi,
	    "offset_lo", ss->offset_lo, "offset_hi", ss->offset_hi,
	    "c0_lo", ss->c0_lo, "c0_hi", ss->c0_hi, "ck_max", ss->ck_max,
	    "o0_lo", ss->o0_lo, "o0_hi", ss->o0_hi, "ok_max", ss->ok_max);
	if (s != NULL && ws->const_contrast != NULL &&
	    ws->const_offset != NULL) {
		json_object_set_new(s, "const_contrast",
		    het_wire_jreals(ws->const_contrast, ms->n_angles));
		json_object_set_new(s, "const_offset",
		    het_wire_jreals(ws->const_offset, ms->n_angles));
	}
	nu = json_pack("{s:I, s:I, s:I, s:f, s:i, s:b, s:I, s:f, s:b, s:I, "
	    "s:b}",
	    "num_warmup", (json_int_t)ws->settings.num_warmup,
	    "num_samples", (json_int_t)ws->settings.num_samples,
	    "num_chains", (json_int_t)ws->settings.num_chains,
	    "target_accept", ws->settings.target_accept,
	    "max_tree_depth", ws->settings.max_tree_depth,
	    "dense_mass", ws->settings.dense_mass,
	    "seed", (json_int_t)ws->settings.seed,
	    "init_jitter", ws->settings.init_jitter,
	    "laplace", ws->settings.laplace,
	    "psis_draws", (json_int_t)ws->settings.psis_draws,
	    "marginalise_scaling", ws->settings.marginalise);
	pr = json_array();
	for (k = 0; pr != NULL && k < ws->np; k++) {
		e = json_pack("{s:s, s:o, s:o, s:o, s:o}",
		    "kind", het_prior_name(ws->priors[k].kind),
		    "a", het_wire_jreal(ws->priors[k].a),
		    "b", het_wire_jreal(ws->priors[k].b),
		    "lo", het_wire_jreal(ws->priors[k].lo),
		    "hi", het_wire_jreal(ws->priors[k].hi));
		if (e == NULL || json_array_append_new(pr, e) != 0) {
			json_decref(pr);
			pr = NULL;
		}
	}
	if ((rc = het_wire_jset(o, "shard", json_integer(ws->shard), err)) ||
	    (rc = het_wire_jset(o, "model", m, err)) ||
	    (rc = het_wire_jset(o, "scaling", s, err)) ||
	    (rc = het_wire_jset(o, "nuts", nu, err)) ||
	    (rc = het_wire_jset(o, "priors", pr, err)) ||
	    (rc = het_wire_jset(o, "sigma", json_real(ws->sigma), err)) ||
	    (rc = het_wire_jset(o, "nshards", json_integer(ws->nshards), err)) ||
	    (rc = het_wire_jset(o, "reparam", json_integer(ws->reparam), err)) ||
	    (ws->chain_threads > 1 && (rc = het_wire_jset(o, "chain_threads",
	    json_integer(ws->chain_threads), err))) ||
	    (rc = het_wire_jset(o, "nscal", json_integer((json_int_t)ws->nscal),
	    err)) ||
	    (rc = het_wire_put_f64(o, "theta", ws->theta, nphys, err)) ||
	    (rc = ws_put_flags(o, "free", ws->free, nphys, err)) ||
	    (rc = ws_put_flags(o, "s_free", ws->s_free, ws->nscal, err)) ||
	    (ws->s != NULL && (rc = het_wire_put_f64(o, "s", ws->s,
	    ws->nscal, err))) ||
	    (ws->x0 != NULL && (rc = het_wire_put_f64(o, "x0", ws->x0,
	    ws->np, err))) ||
	    (rc = het_wire_put_f64(o, "y", ws->y, ws->n, err)))
		goto fail;
	if ((u = het_alloc_array(ws->n, sizeof *u, "pair indices",
	    err)) == NULL) {
		rc = HET_ENOMEM;
		goto fail;
	}
	for (k = 0; k < ws->n; k++)
		u[k] = ws->pairs[k].i;
	if ((rc = het_wire_put_u32(o, "pair_i", u, ws->n, err)) != HET_OK)
		goto fail;
	for (k = 0; k < ws->n; k++)
		u[k] = ws->pairs[k].j;
	if ((rc = het_wire_put_u32(o, "pair_j", u, ws->n, err)) != HET_OK)
		goto fail;
	for (k = 0; k < ws->n; k++)
		u[k] = ws->pairs[k].a;
	if ((rc = het_wire_put_u32(o, "pair_a", u, ws->n, err)) != HET_OK)
		goto fail;
	free(u);
	return o;
fail:
	free(u);
	json_decref(o);
	if (rc == HET_EDATA && err != NULL)
		err->code = HET_EINVAL;
	het_error_prefix(err, "shard %ld", ws->shard);
	return NULL;
}

/* Decoding helpers: every failure names "shard.<path>". */
static int
ws_bad(struct het_error *err, const char *path, const char *what)
{
	return het_error_set(err, HET_EPROTO, "shard record: field %s is "
	    "missing or not %s", path, what);
}

static int
ws_num(const json_t *o, const char *key, const char *path, double *v,
    struct het_error *err)
{
	json_t	*x = json_object_get(o, key);

	if (!json_is_number(x))
		return ws_bad(err, path, "a number");
	*v = json_number_value(x);
	return HET_OK;
}

/* A number, or null meaning dflt (an infinite bound). */
static int
ws_num_null(const json_t *o, const char *key, const char *path, double dflt,
    double *v, struct het_error *err)
{
	if (json_is_null(json_object_get(o, key))) {
		*v = dflt;
		return HET_OK;
	}
	return ws_num(o, key, path, v, err);
}

static int
ws_int(const json_t *o, const char *key, const char *path, long min,
    long *v, struct het_error *err)
{
	json_t	*x = json_object_get(o, key);

	if (!json_is_integer(x) || json_integer_value(x) < min)
		return het_error_set(err, HET_EPROTO, "shard record: field "
		    "%s is missing or not an integer >= %ld", path, min);
	*v = (long)json_integer_value(x);
	return HET_OK;
}

static int
ws_reals(const json_t *o, const char *key, const char *path, size_t n,
    double **out, struct het_error *err)
{
	json_t	*a = json_object_get(o, key);
	size_t	 k;

	if (!json_is_array(a) || json_array_size(a) != n)
		return het_error_set(err, HET_EPROTO, "shard record: field "
		    "%s must be an array of %zu numbers", path, n);
	if ((*out = het_alloc_array(n, sizeof **out, path, err)) == NULL)
		return HET_ENOMEM;
	for (k = 0; k < n; k++) {
		if (!json_is_number(json_array_get(a, k)))
			return het_error_set(err, HET_EPROTO, "shard record: "
			    "%s[%zu] is not a number", path, k);
		(*out)[k] = json_number_value(json_array_get(a, k));
	}
	return HET_OK;
}

/* A f64 or u32 array of exactly n values (optional: absent -> NULL). */
static int
ws_f64(const json_t *o, const char *key, size_t n, int optional,
    double **out, struct het_error *err)
{
	size_t	got;
	int	rc;

	*out = NULL;
	if (optional && json_object_get(o, key) == NULL)
		return HET_OK;
	if ((rc = het_wire_get_f64(o, key, out, &got, err)) != HET_OK)
		return het_error_prefix(err, "shard record: field %s", key) ==
		    HET_ENOTFOUND ? (err->code = HET_EPROTO) : rc;
	if (got != n) {
		free(*out);
		*out = NULL;
		return het_error_set(err, HET_EPROTO, "shard record: field "
		    "%s has %zu values, expected %zu", key, got, n);
	}
	return HET_OK;
}

static int
ws_u32(const json_t *o, const char *key, size_t n, int optional,
    uint32_t **out, struct het_error *err)
{
	size_t	got;
	int	rc;

	*out = NULL;
	if (optional && json_object_get(o, key) == NULL)
		return HET_OK;
	if ((rc = het_wire_get_u32(o, key, out, &got, err)) != HET_OK)
		return het_error_prefix(err, "shard record: field %s", key) ==
		    HET_ENOTFOUND ? (err->code = HET_EPROTO) : rc;
	if (got != n) {
		free(*out);
		*out = NULL;
		return het_error_set(err, HET_EPROTO, "shard record: field "
		    "%s has %zu values, expected %zu", key, got, n);
	}
	return HET_OK;
}

/*
 * The 0/1 flags of field key (v: n values, taken and freed) into *out;
 * any other value is refused, so a corrupted flag never reads as "free".
 */
static int
ws_flags(const char *key, uint32_t *v, size_t n, unsigned char **out,
    struct het_error *err)
{
	unsigned char	*f;
	size_t		 k;

	*out = NULL;
	if (v == NULL)
		return HET_OK;
	for (k = 0; k < n; k++)
		if (v[k] > 1) {
			het_error_set(err, HET_EPROTO, "shard record: field %s "
			    "value %zu is %lu; a flag is 0 (fixed) or 1 "
			    "(free)", key, k, (unsigned long)v[k]);
			free(v);
			return HET_EPROTO;
		}
	if ((f = het_alloc_array(n, 1, "flags", err)) != NULL)
		for (k = 0; k < n; k++)
			f[k] = (unsigned char)v[k];
	free(v);
	*out = f;
	return f != NULL ? HET_OK : HET_ENOMEM;
}

static int
ws_unpack_model(const json_t *o, struct het_wire_shard *ws,
    struct het_error *err)
{
	const json_t	*m = json_object_get(o, "model");
	struct het_model_spec *ms = &ws->model;
	json_t		*phi;
	double		*ph = NULL;
	long		 v;
	int		 rc;

	if (!json_is_object(m))
		return ws_bad(err, "shard.model", "an object");
	if (!json_is_string(json_object_get(m, "mode")))
		return ws_bad(err, "shard.model.mode", "a string");
	if ((rc = het_mode_parse(json_string_value(json_object_get(m,
	    "mode")), &ms->mode, err)) != HET_OK)
		return het_error_prefix(err, "shard record: model.mode");
	if ((rc = ws_num(m, "q", "shard.model.q", &ms->q, err)) ||
	    (rc = ws_num(m, "dt", "shard.model.dt", &ms->dt, err)) ||
	    (rc = ws_num(m, "gap", "shard.model.gap", &ms->gap, err)) ||
	    (rc = ws_int(m, "start_frame", "shard.model.start_frame", 0,
	    &ms->start_frame, err)) ||
	    (rc = ws_int(m, "n_frames", "shard.model.n_frames", 1, &v, err)))
		return rc;
	/* Refused before the worker sizes its per-frame tables by it. */
	if (v > HET_WIRE_MAX_FRAMES)
		return het_error_set(err, HET_EPROTO, "shard record: field "
		    "shard.model.n_frames is %ld, more than the %d frames a "
		    "shard may span; choose a shorter frame window",
		    v, HET_WIRE_MAX_FRAMES);
	ms->n_frames = (size_t)v;
	phi = json_object_get(m, "phi");
	if (!json_is_array(phi) || json_array_size(phi) == 0)
		return ws_bad(err, "shard.model.phi", "a non-empty array");
	ms->n_angles = json_array_size(phi);
	if ((rc = ws_reals(m, "phi", "shard.model.phi", ms->n_angles, &ph,
	    err)) != HET_OK) {
		free(ph);
		return rc;
	}
	ms->phi = ph;
	return HET_OK;
}

static int
ws_unpack_scaling(const json_t *o, struct het_wire_shard *ws,
    struct het_error *err)
{
	const json_t	*s = json_object_get(o, "scaling");
	struct het_scaling_spec *ss = &ws->scaling;
	static const char *const keys[] = { "contrast_value", "offset_value",
	    "contrast_lo", "contrast_hi", "offset_lo", "offset_hi", "c0_lo",
	    "c0_hi", "ck_max", "o0_lo", "o0_hi", "ok_max" };
	double		*dst[12], *cc = NULL, *co = NULL;
	char		 path[64];
	size_t		 k;
	long		 v;
	int		 rc;

	if (!json_is_object(s))
		return ws_bad(err, "shard.scaling", "an object");
	if (!json_is_string(json_object_get(s, "mode")))
		return ws_bad(err, "shard.scaling.mode", "a string");
	if ((rc = het_scaling_mode_parse(json_string_value(
	    json_object_get(s, "mode")), &ss->mode, err)) != HET_OK)
		return het_error_prefix(err, "shard record: scaling.mode");
	if ((rc = ws_int(s, "fourier_order", "shard.scaling.fourier_order",
	    0, &v, err)) != HET_OK)
		return rc;
	ss->fourier_order = (int)v;
	dst[0] = &ss->contrast_value; dst[1] = &ss->offset_value;
	dst[2] = &ss->contrast_lo; dst[3] = &ss->contrast_hi;
	dst[4] = &ss->offset_lo; dst[5] = &ss->offset_hi;
	dst[6] = &ss->c0_lo; dst[7] = &ss->c0_hi; dst[8] = &ss->ck_max;
	dst[9] = &ss->o0_lo; dst[10] = &ss->o0_hi; dst[11] = &ss->ok_max;
	for (k = 0; k < 12; k++) {
		snprintf(path, sizeof path, "shard.scaling.%s", keys[k]);
		if ((rc = ws_num(s, keys[k], path, dst[k], err)) != HET_OK)
			return rc;
	}
	ss->n_angles = ws->model.n_angles;
	ss->phi = ws->model.phi;
	if (json_object_get(s, "const_contrast") == NULL)
		return HET_OK;
	rc = ws_reals(s, "const_contrast", "shard.scaling.const_contrast",
	    ss->n_angles, &cc, err);
	ws->const_contrast = cc;
	if (rc == HET_OK)
		rc = ws_reals(s, "const_offset", "shard.scaling.const_offset",
		    ss->n_angles, &co, err);
	ws->const_offset = co;
	return rc;
}

static int
ws_unpack_rest(const json_t *o, struct het_wire_shard *ws,
    struct het_error *err)
{
	const json_t		*nu, *pr, *e;
	struct het_post_prior	*pri;
	struct het_pair		*pairs;
	uint32_t		*pi = NULL, *pj = NULL, *pa = NULL, *fl;
	unsigned char		*f;
	double			*d;
	char			 path[64];
	size_t			 k, nphys = het_mode_nphys(ws->model.mode);
	long			 v;
	int			 rc;

	if ((rc = ws_num(o, "sigma", "shard.sigma", &ws->sigma, err)) ||
	    (rc = ws_int(o, "nshards", "shard.nshards", 1, &ws->nshards,
	    err)) || (rc = ws_int(o, "nscal", "shard.nscal", 0, &v, err)))
		return rc;
	ws->nscal = (size_t)v;
	if (json_is_boolean(json_object_get(o, "reparam")))
		ws->reparam = json_is_true(json_object_get(o, "reparam"));
	else if ((rc = ws_int(o, "reparam", "shard.reparam", 0, &v, err)) !=
	    HET_OK || v > HET_COORDS_RATES)
		return rc != HET_OK ? rc : ws_bad(err, "shard.reparam",
		    "0 (physical), 1 (power_law) or 2 (rates)");
	else
		ws->reparam = (int)v;
	ws->chain_threads = 1;
	if (json_object_get(o, "chain_threads") != NULL && ((rc = ws_int(o,
	    "chain_threads", "shard.chain_threads", 1, &ws->chain_threads,
	    err)) != HET_OK || ws->chain_threads > 1024))
		return rc != HET_OK ? rc : ws_bad(err, "shard.chain_threads",
		    "an integer from 1 to 1024");
	nu = json_object_get(o, "nuts");
	if (!json_is_object(nu))
		return ws_bad(err, "shard.nuts", "an object");
	if ((rc = ws_int(nu, "num_warmup", "shard.nuts.num_warmup", 0,
	    &ws->settings.num_warmup, err)) ||
	    (rc = ws_int(nu, "num_samples", "shard.nuts.num_samples", 0,
	    &ws->settings.num_samples, err)) ||
	    (rc = ws_int(nu, "num_chains", "shard.nuts.num_chains", 0,
	    &ws->settings.num_chains, err)) ||
	    (rc = ws_num(nu, "target_accept", "shard.nuts.target_accept",
	    &ws->settings.target_accept, err)) ||
	    (rc = ws_num(nu, "init_jitter", "shard.nuts.init_jitter",
	    &ws->settings.init_jitter, err)) ||
	    (rc = ws_int(nu, "max_tree_depth", "shard.nuts.max_tree_depth",
	    0, &v, err)))
		return rc;
	ws->settings.max_tree_depth = (int)v;
	if ((rc = ws_int(nu, "seed", "shard.nuts.seed", 0, &v, err)))
		return rc;
	ws->settings.seed = (unsigned long)v;
	if (!json_is_boolean(json_object_get(nu, "dense_mass")))
		return ws_bad(err, "shard.nuts.dense_mass", "true or false");
	ws->settings.dense_mass = json_is_true(json_object_get(nu,
	    "dense_mass"));
	/* optional: absent in records of hetui before the Laplace start */
	ws->settings.laplace = 1;
	ws->settings.psis_draws = 200;
	if (json_object_get(nu, "laplace") != NULL) {
		if (!json_is_boolean(json_object_get(nu, "laplace")))
			return ws_bad(err, "shard.nuts.laplace",
			    "true or false");
		ws->settings.laplace = json_is_true(json_object_get(nu,
		    "laplace"));
	}
	/* optional: absent in records of hetui before the marginal, which
	 * sampled contrast and offset */
	ws->settings.marginalise = 0;
	if (json_object_get(nu, "marginalise_scaling") != NULL) {
		if (!json_is_boolean(json_object_get(nu,
		    "marginalise_scaling")))
			return ws_bad(err, "shard.nuts.marginalise_scaling",
			    "true or false");
		ws->settings.marginalise = json_is_true(json_object_get(nu,
		    "marginalise_scaling"));
	}
	if (json_object_get(nu, "psis_draws") != NULL && (rc = ws_int(nu,
	    "psis_draws", "shard.nuts.psis_draws", 0,
	    &ws->settings.psis_draws, err)))
		return rc;
	pr = json_object_get(o, "priors");
	if (!json_is_array(pr) || json_array_size(pr) == 0)
		return ws_bad(err, "shard.priors", "a non-empty array");
	ws->np = json_array_size(pr);
	if ((pri = het_alloc_array(ws->np, sizeof *pri, "priors", err)) ==
	    NULL)
		return HET_ENOMEM;
	ws->priors = pri;
	for (k = 0; k < ws->np; k++) {
		e = json_array_get(pr, k);
		snprintf(path, sizeof path, "shard.priors[%zu]", k);
		if (!json_is_object(e) ||
		    !json_is_string(json_object_get(e, "kind")))
			return ws_bad(err, path, "an object with a kind");
		if ((rc = het_prior_parse(json_string_value(
		    json_object_get(e, "kind")), &pri[k].kind, err)) != HET_OK)
			return het_error_prefix(err, "shard record: %s", path);
		if ((rc = ws_num_null(e, "a", path, NAN, &pri[k].a, err)) ||
		    (rc = ws_num_null(e, "b", path, NAN, &pri[k].b, err)) ||
		    (rc = ws_num_null(e, "lo", path, -HUGE_VAL, &pri[k].lo,
		    err)) || (rc = ws_num_null(e, "hi", path, HUGE_VAL,
		    &pri[k].hi, err)))
			return rc;
	}
	if ((rc = ws_f64(o, "theta", nphys, 0, &d, err)) != HET_OK)
		return rc;
	ws->theta = d;
	if ((rc = ws_u32(o, "free", nphys, 1, &fl, err)) != HET_OK ||
	    (rc = ws_flags("free", fl, nphys, &f, err)) != HET_OK)
		return rc;
	ws->free = f;
	if ((rc = ws_f64(o, "s", ws->nscal, 1, &d, err)) != HET_OK)
		return rc;
	ws->s = d;
	if ((rc = ws_u32(o, "s_free", ws->nscal, 1, &fl, err)) != HET_OK ||
	    (rc = ws_flags("s_free", fl, ws->nscal, &f, err)) != HET_OK)
		return rc;
	ws->s_free = f;
	if ((rc = ws_f64(o, "x0", ws->np, 1, &d, err)) != HET_OK)
		return rc;
	ws->x0 = d;
	if (!json_is_object(json_object_get(o, "y")) ||
	    !json_is_integer(json_object_get(json_object_get(o, "y"), "n")))
		return ws_bad(err, "shard.y", "an f64 array");
	ws->n = (size_t)json_integer_value(json_object_get(
	    json_object_get(o, "y"), "n"));
	if ((rc = ws_f64(o, "y", ws->n, 0, &d, err)) != HET_OK)
		return rc;
	ws->y = d;
	if ((rc = ws_u32(o, "pair_i", ws->n, 0, &pi, err)) ||
	    (rc = ws_u32(o, "pair_j", ws->n, 0, &pj, err)) ||
	    (rc = ws_u32(o, "pair_a", ws->n, 0, &pa, err)) ||
	    (pairs = het_alloc_array(ws->n, sizeof *pairs, "pairs", err)) ==
	    NULL) {
		free(pi);
		free(pj);
		free(pa);
		return rc != HET_OK ? rc : HET_ENOMEM;
	}
	for (k = 0; k < ws->n; k++) {
		pairs[k].i = pi[k];
		pairs[k].j = pj[k];
		pairs[k].a = pa[k];
	}
	ws->pairs = pairs;
	free(pi);
	free(pj);
	free(pa);
	return HET_OK;
}

int
het_wire_shard_unpack(const json_t *obj, struct het_wire_shard *ws,
    struct het_error *err)
{
	int	rc;

	memset(ws, 0, sizeof *ws);
	if ((rc = het_wire_get_shard_id(obj, &ws->shard, err)) != HET_OK ||
	    (rc = ws_unpack_model(obj, ws, err)) != HET_OK ||
	    (rc = ws_unpack_scaling(obj, ws, err)) != HET_OK ||
	    (rc = ws_unpack_rest(obj, ws, err)) != HET_OK) {
		het_wire_shard_clear(ws);	/* nothing half-decoded is kept */
		return rc;
	}
	return HET_OK;
}

void
het_wire_shard_clear(struct het_wire_shard *ws)
{
	if (ws == NULL)
		return;
	free((void *)ws->model.phi);
	free((void *)ws->const_contrast);
	free((void *)ws->const_offset);
	free((void *)ws->theta);
	free((void *)ws->free);
	free((void *)ws->s);
	free((void *)ws->s_free);
	free((void *)ws->pairs);
	free((void *)ws->y);
	free((void *)ws->priors);
	free((void *)ws->x0);
	memset(ws, 0, sizeof *ws);
}
