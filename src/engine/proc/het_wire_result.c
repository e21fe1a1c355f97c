#include "config.h"

/*
 * het_wire_result.c: the result payload of the wire protocol (see
 * het_wire_shard.h and docs/wire-protocol.md §3.2): a shard's draws,
 * summaries and per-chain diagnostics, and the complete check a
 * coordinator runs on a result as it arrives.
 *
 * Design: names, summaries and per-chain numbers are plain JSON (null for
 * a value that is not finite); the draws are one base64 array of het_wire.
 * The decoder checks every count against every other (parameters,
 * summaries, chains x parameters x draws, per-chain arrays) before it
 * returns anything, so a result that decodes can be checkpointed and
 * combined.
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

json_t *
het_wire_result_pack(long shard, const struct het_shard_result *res,
    struct het_error *err)
{
	const struct het_diag_summary *d;
	json_t	*o, *names, *sum, *e, *ch, *div;
	size_t	 k, c;
	int	 rc;

	o = json_object();
	names = json_array();
	sum = json_array();
	div = json_array();
	for (k = 0; k < res->p && names && sum; k++) {
		d = &res->summary[k];
		json_array_append_new(names, json_string(res->names[k]));
		e = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
		    "s:o, s:o}", "mean", het_wire_jreal(d->mean), "sd",
		    het_wire_jreal(d->sd), "q5", het_wire_jreal(d->q5), "q50",
		    het_wire_jreal(d->q50), "q95", het_wire_jreal(d->q95), "mcse_mean",
		    het_wire_jreal(d->mcse_mean), "ess_bulk", het_wire_jreal(d->ess_bulk),
		    "ess_tail", het_wire_jreal(d->ess_tail), "rhat_bulk",
		    het_wire_jreal(d->rhat_bulk), "rhat_tail", het_wire_jreal(d->rhat_tail),
		    "rhat", het_wire_jreal(d->rhat));
		json_array_append_new(sum, e);
	}
	for (c = 0; c < res->nchain && div != NULL; c++)
		json_array_append_new(div, json_integer(res->divergences[c]));
	ch = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "divergences", div,
	    "step_size", het_wire_jreals(res->step_size, res->nchain),
	    "bfmi", het_wire_jreals(res->bfmi, res->nchain),
	    "accept", het_wire_jreals(res->accept, res->nchain),
	    "leapfrog", het_wire_jreals(res->leapfrog, res->nchain),
	    "leapfrog_warmup", het_wire_jreals(res->leapfrog_warmup,
	    res->nchain));
	if (o == NULL || het_wire_jset(o, "shard", json_integer(shard), err) ||
	    het_wire_jset(o, "params", names, err) || het_wire_jset(o, "summary", sum,
	    err) || het_wire_jset(o, "chain", ch, err) || het_wire_jset(o, "chains",
	    json_integer((json_int_t)res->nchain), err) || het_wire_jset(o,
	    "draws_per_chain", json_integer((json_int_t)res->ndraw), err) ||
	    het_wire_jset(o, "wall_time", het_wire_jreal(res->wall_time), err) ||
	    het_wire_jset(o, "laplace", json_pack("{s:b, s:o, s:o}", "used",
	    res->laplace, "khat", het_wire_jreal(res->laplace_khat), "ess",
	    het_wire_jreal(res->laplace_ess)), err) || het_wire_jset(o,
	    "marginal", json_string(het_post_marg_name(res->marginal)),
	    err) || het_wire_jset(o, "anchors", json_integer(res->anchors),
	    err)) {
		json_decref(o);
		return NULL;
	}
	if ((rc = het_wire_put_f64(o, "draws", res->draws,
	    res->nchain * res->p * res->ndraw, err)) != HET_OK) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A per-chain or per-summary real: number, or null = NaN. */
static int
rs_real(const json_t *v, const char *path, double *out,
    struct het_error *err)
{
	if (json_is_null(v)) {
		*out = NAN;
		return HET_OK;
	}
	if (!json_is_number(v))
		return het_error_set(err, HET_EPROTO, "result record: %s is "
		    "not a number or null", path);
	*out = json_number_value(v);
	return HET_OK;
}

/*
 * Entry c of the optional per-chain array key of ch (absent in results
 * of older versions: 0).
 */
static int
rs_opt_real(const json_t *ch, const char *key, size_t c, const char *path,
    double *out, struct het_error *err)
{
	*out = 0;
	if (json_object_get(ch, key) == NULL)
		return HET_OK;
	return rs_real(json_array_get(json_object_get(ch, key), c), path, out,
	    err);
}

/*
 * The optional laplace object of a result (absent in results of hetui
 * before the Laplace start: not used, NaN).
 */
static int
rs_laplace(const json_t *l, struct het_shard_result *res,
    struct het_error *err)
{
	int	rc;

	res->laplace = 0;
	res->laplace_khat = res->laplace_ess = NAN;
	if (l == NULL)
		return HET_OK;
	if (!json_is_object(l) || !json_is_boolean(json_object_get(l, "used")))
		return het_error_set(err, HET_EPROTO, "result record: laplace "
		    "must be an object with a boolean used");
	res->laplace = json_is_true(json_object_get(l, "used"));
	if ((rc = rs_real(json_object_get(l, "khat"), "laplace.khat",
	    &res->laplace_khat, err)) != HET_OK)
		return rc;
	return rs_real(json_object_get(l, "ess"), "laplace.ess",
	    &res->laplace_ess, err);
}

/*
 * The optional anchors of a result: the power laws sampled on anchor
 * coordinates, bits 0-2 (absent in results of hetui before them: 0).
 */
static int
rs_anchors(const json_t *a, struct het_shard_result *res,
    struct het_error *err)
{
	res->anchors = 0;
	if (a == NULL)
		return HET_OK;
	if (!json_is_integer(a) || json_integer_value(a) < 0 ||
	    json_integer_value(a) > 7)
		return het_error_set(err, HET_EPROTO, "result record: anchors "
		    "must be an integer from 0 to 7 (one bit per power law)");
	res->anchors = (unsigned)json_integer_value(a);
	return HET_OK;
}

/*
 * The optional marginal of a result: what happened to contrast and
 * offset (absent in results of hetui before it: off).
 */
static int
rs_marginal(const json_t *m, struct het_shard_result *res,
    struct het_error *err)
{
	int	k;

	res->marginal = HET_MARG_OFF;
	if (m == NULL)
		return HET_OK;
	for (k = 0; json_is_string(m) && k < HET_MARG_COUNT; k++)
		if (strcmp(json_string_value(m), het_post_marg_name(k)) == 0) {
			res->marginal = k;
			return HET_OK;
		}
	return het_error_set(err, HET_EPROTO, "result record: marginal must "
	    "be one of \"off\", \"on\", \"ineligible\", \"bound\"");
}

/*
 * The per-chain arrays of a result: each exactly nc long (the leapfrog
 * counts may be absent).
 */
static int
rs_chain_arrays(const json_t *ch, long shard, size_t nc,
    struct het_error *err)
{
	static const char *const keys[] = { "divergences", "step_size",
	    "bfmi", "accept", "leapfrog", "leapfrog_warmup" };
	const json_t	*a;
	size_t		 k;

	for (k = 0; k < 6; k++) {
		a = json_object_get(ch, keys[k]);
		if (k >= 4 && a == NULL)
			continue;	/* optional: older results */
		if (!json_is_array(a) || json_array_size(a) != nc)
			return het_error_set(err, HET_EPROTO, "result record of "
			    "shard %ld: chain.%s must be an array of %zu values, "
			    "one per chain, but has %zu", shard, keys[k], nc,
			    json_is_array(a) ? json_array_size(a) : 0);
	}
	return HET_OK;
}

int
het_wire_result_check(const json_t *obj, long shard, size_t p,
    struct het_error *err)
{
	struct het_shard_result	res;
	long			id;
	int			rc;

	if ((rc = het_wire_result_unpack(obj, &id, &res, err)) != HET_OK)
		return rc;
	if (id != shard)
		rc = het_error_set(err, HET_EPROTO, "a result for shard %ld "
		    "arrived where shard %ld's was due", id, shard);
	else if (p > 0 && res.p != p)
		rc = het_error_set(err, HET_EPROTO, "the result of shard %ld "
		    "has %zu parameters, but the shard samples %zu", shard,
		    res.p, p);
	het_shard_result_clear(&res);
	return rc;
}

int
het_wire_result_unpack(const json_t *obj, long *shard,
    struct het_shard_result *res, struct het_error *err)
{
	static const char *const keys[] = { "mean", "sd", "q5", "q50", "q95",
	    "mcse_mean", "ess_bulk", "ess_tail", "rhat_bulk", "rhat_tail",
	    "rhat" };
	const json_t	*names, *sum, *ch, *e;
	double		*draws, *dst[11];
	char		 path[64];
	size_t		 p, nc, nd, k, c, nv;
	int		 rc;

	memset(res, 0, sizeof *res);
	if ((rc = het_wire_get_shard_id(obj, shard, err)) != HET_OK)
		return rc;
	names = json_object_get(obj, "params");
	sum = json_object_get(obj, "summary");
	ch = json_object_get(obj, "chain");
	if (!json_is_array(names) || !json_is_array(sum) ||
	    json_array_size(sum) != json_array_size(names) ||
	    !json_is_object(ch) ||
	    !json_is_integer(json_object_get(obj, "chains")) ||
	    !json_is_integer(json_object_get(obj, "draws_per_chain")) ||
	    json_integer_value(json_object_get(obj, "chains")) < 1 ||
	    json_integer_value(json_object_get(obj, "draws_per_chain")) < 1)
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: params, summary, chain, chains or draws_per_chain "
		    "is missing or malformed", *shard);
	p = json_array_size(names);
	if (p == 0)
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: params is empty; a result has at least one "
		    "parameter", *shard);
	nc = (size_t)json_integer_value(json_object_get(obj, "chains"));
	nd = (size_t)json_integer_value(json_object_get(obj,
	    "draws_per_chain"));
	if ((rc = het_wire_get_f64(obj, "draws", &draws, &nv, err)) != HET_OK)
		return het_error_prefix(err, "result record of shard %ld",
		    *shard) == HET_ENOTFOUND ? (err->code = HET_EPROTO) : rc;
	/* in this order, the product C x p x S cannot wrap to nv */
	if (nc > SIZE_MAX / p || nc * p > SIZE_MAX / nd ||
	    nv != nc * p * nd) {
		free(draws);
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: draws has %zu values, expected %zu chains x %zu "
		    "parameters x %zu draws", *shard, nv, nc, p, nd);
	}
	if ((rc = rs_chain_arrays(ch, *shard, nc, err)) != HET_OK) {
		free(draws);
		return rc;
	}
	if ((rc = het_shard_result_alloc(res, p, nc, nd, err)) != HET_OK) {
		free(draws);
		return rc;
	}
	free(res->draws);
	res->draws = draws;
	for (k = 0; k < p; k++) {
		e = json_array_get(sum, k);
		if (!json_is_string(json_array_get(names, k)) ||
		    !json_is_object(e)) {
			rc = het_error_set(err, HET_EPROTO, "result record: "
			    "params[%zu] or summary[%zu] is malformed", k, k);
			goto fail;
		}
		if ((res->names[k] = het_strdup(json_string_value(
		    json_array_get(names, k)), err)) == NULL) {
			rc = HET_ENOMEM;
			goto fail;
		}
		dst[0] = &res->summary[k].mean; dst[1] = &res->summary[k].sd;
		dst[2] = &res->summary[k].q5; dst[3] = &res->summary[k].q50;
		dst[4] = &res->summary[k].q95;
		dst[5] = &res->summary[k].mcse_mean;
		dst[6] = &res->summary[k].ess_bulk;
		dst[7] = &res->summary[k].ess_tail;
		dst[8] = &res->summary[k].rhat_bulk;
		dst[9] = &res->summary[k].rhat_tail;
		dst[10] = &res->summary[k].rhat;
		for (c = 0; c < 11; c++) {
			snprintf(path, sizeof path, "summary[%zu].%s", k,
			    keys[c]);
			if ((rc = rs_real(json_object_get(e, keys[c]), path,
			    dst[c], err)) != HET_OK)
				goto fail;
		}
	}
	for (c = 0; c < nc; c++) {
		e = json_array_get(json_object_get(ch, "divergences"), c);
		if (!json_is_integer(e)) {
			rc = het_error_set(err, HET_EPROTO, "result record: "
			    "chain.divergences[%zu] is not an integer", c);
			goto fail;
		}
		res->divergences[c] = (long)json_integer_value(e);
		if (res->divergences[c] < 0) {
			rc = het_error_set(err, HET_EPROTO, "result record of "
			    "shard %ld: chain.divergences[%zu] is %ld, not a "
			    "count", *shard, c, res->divergences[c]);
			goto fail;
		}
		snprintf(path, sizeof path, "chain[%zu]", c);
		if ((rc = rs_real(json_array_get(json_object_get(ch,
		    "step_size"), c), path, &res->step_size[c], err)) ||
		    (rc = rs_real(json_array_get(json_object_get(ch, "bfmi"),
		    c), path, &res->bfmi[c], err)) ||
		    (rc = rs_real(json_array_get(json_object_get(ch,
		    "accept"), c), path, &res->accept[c], err)) ||
		    (rc = rs_opt_real(ch, "leapfrog", c, path,
		    &res->leapfrog[c], err)) ||
		    (rc = rs_opt_real(ch, "leapfrog_warmup", c, path,
		    &res->leapfrog_warmup[c], err)))
			goto fail;
	}
	if ((rc = rs_real(json_object_get(obj, "wall_time"), "wall_time",
	    &res->wall_time, err)) != HET_OK ||
	    (rc = rs_marginal(json_object_get(obj, "marginal"), res, err)) !=
	    HET_OK ||
	    (rc = rs_anchors(json_object_get(obj, "anchors"), res, err)) !=
	    HET_OK ||
	    (rc = rs_laplace(json_object_get(obj, "laplace"), res, err)) !=
	    HET_OK)
		goto fail;
	return HET_OK;
fail:
	het_shard_result_clear(res);
	return rc;
}
