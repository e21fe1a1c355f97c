#include "config.h"

/*
 * het_wire_shard_build.c: what is made of a shard payload besides its
 * decoding (het_wire_shard.c): the worker-side objects of a shard (model,
 * scaling, residuals, posterior, start point), built as many times as a
 * worker runs chains at once, and the digest of a payload that
 * `hetui sample --resume` compares (see het_wire_shard.h).
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_util.h"
#include "het_wire.h"
#include "het_wire_shard.h"

void
het_wire_shard_objs_free(struct het_wire_shard_objs *o)
{
	if (o == NULL)
		return;
	het_posterior_free(o->post);
	het_resid_free(o->resid);
	het_scaling_free(o->scaling);
	het_model_free(o->model);
	free(o->x0);
	memset(o, 0, sizeof *o);
}

int
het_wire_shard_build(const struct het_wire_shard *ws,
    struct het_wire_shard_objs *o, struct het_error *err)
{
	struct het_resid_spec	rs;
	struct het_post_spec	ps;
	int			rc = HET_EINVAL;

	memset(o, 0, sizeof *o);
	if ((o->model = het_model_alloc(&ws->model, err)) == NULL ||
	    (o->scaling = het_scaling_alloc(&ws->scaling, err)) == NULL)
		goto fail;
	if (het_scaling_nparams(o->scaling) != ws->nscal) {
		het_error_set(err, HET_EINVAL, "shard %ld: the %s scaling "
		    "has %zu parameters but the shard gives nscal = %zu",
		    ws->shard, het_scaling_mode_name(ws->scaling.mode),
		    het_scaling_nparams(o->scaling), ws->nscal);
		goto fail;
	}
	if (ws->const_contrast != NULL && ws->scaling.mode ==
	    HET_SCALING_CONSTANT && het_scaling_set_constant(o->scaling,
	    ws->const_contrast, ws->const_offset, err) != HET_OK)
		goto fail;
	memset(&rs, 0, sizeof rs);
	rs.model = o->model;
	rs.scaling = o->scaling;
	rs.theta = ws->theta;
	rs.free = ws->free;
	rs.s = ws->s;
	rs.s_free = ws->s_free;
	rs.n = ws->n;
	rs.pairs = ws->pairs;
	rs.y = ws->y;
	if ((o->resid = het_resid_alloc(&rs, err)) == NULL)
		goto fail;
	if (het_resid_nparams(o->resid) != ws->np) {
		het_error_set(err, HET_EINVAL, "shard %ld: the problem has "
		    "%zu free parameters but the shard gives %zu priors",
		    ws->shard, het_resid_nparams(o->resid), ws->np);
		goto fail;
	}
	memset(&ps, 0, sizeof ps);
	ps.marginalise = ws->settings.marginalise;
	ps.resid = o->resid;
	ps.model = o->model;
	ps.sigma = ws->sigma;
	ps.priors = ws->priors;
	ps.nshards = ws->nshards;
	ps.reparam = ws->reparam;
	if ((o->post = het_posterior_alloc(&ps, err)) == NULL ||
	    (o->x0 = het_alloc_array(ws->np, sizeof *o->x0, "start point",
	    err)) == NULL)
		goto fail;
	if (ws->x0 != NULL)
		memcpy(o->x0, ws->x0, ws->np * sizeof *o->x0);
	else
		het_resid_x0(o->resid, o->x0);
	return HET_OK;
fail:
	rc = err != NULL && err->code != HET_OK ? err->code : rc;
	het_wire_shard_objs_free(o);
	return rc;
}

/* ---- digest -------------------------------------------------------------- */

#define WS_FNV_OFFSET	UINT64_C(0xcbf29ce484222325)
#define WS_FNV_PRIME	UINT64_C(0x100000001b3)

static int
ws_digest_chunk(const char *buf, size_t n, void *arg)
{
	uint64_t *h = arg;
	size_t k;

	for (k = 0; k < n; k++) {
		*h ^= (unsigned char)buf[k];
		*h *= WS_FNV_PRIME;
	}
	return 0;
}

int
het_wire_shard_digest(const json_t *payload, char *out,
    struct het_error *err)
{
	uint64_t h = WS_FNV_OFFSET;

	out[0] = '\0';
	if (json_is_object(payload))
		ws_digest_chunk(HET_WIRE_DIGEST_PREFIX,
		    strlen(HET_WIRE_DIGEST_PREFIX), &h);
	if (!json_is_object(payload) || json_dump_callback(payload,
	    ws_digest_chunk, &h, JSON_COMPACT | JSON_SORT_KEYS) != 0)
		return het_error_set(err, HET_EINVAL, "cannot serialise a "
		    "shard payload for its digest");
	snprintf(out, 17, "%016" PRIx64, h);
	return HET_OK;
}
