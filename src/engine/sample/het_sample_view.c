/*
 * het_sample_view.c: read-only views into a sampling pipeline for the
 * workstation (het_sample_view.h has the contract).
 *
 * Design: the pipeline's fields are private to het_sample*.c; this file
 * reads them through het_sample_impl.h, under the same rule the public
 * accessors follow: what a background phase produced is read only after
 * the loop thread has joined that phase (the phase number says so), so
 * no lock is needed.  The combined draws, decoded shard results and gate
 * verdicts come from COMBINING; "entered the combination" is the
 * consensus's flag of the shard's slot (gate_of maps queue order to it).
 * het_sample_view_shard_diag reads the summary and per-chain members of
 * a result record directly (docs/wire-protocol.md §3), so the Sampling
 * panel can show every finished shard's R-hat and ESS during SAMPLING
 * without decoding any draws.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "het_config_bridge.h"
#include "het_sample_impl.h"
#include "het_sample_view.h"

/* COMBINING ended with a summary: res, cons, gates are complete. */
static int
hv_combined(const struct het_sample *s)
{
	return s->phase > HET_SAMPLE_COMBINING && s->have_sum &&
	    s->have_cons && s->res != NULL;
}

const double *
het_sample_view_draws(const struct het_sample *s, size_t *ndraw, size_t *p)
{
	int ok = hv_combined(s);

	if (ndraw != NULL)
		*ndraw = ok ? s->cons.ndraw : 0;
	if (p != NULL)
		*p = ok ? s->cons.p : 0;
	return ok ? s->cons.draws : NULL;
}

const struct het_shard_result *
het_sample_view_shard(const struct het_sample *s, size_t index)
{
	if (!hv_combined(s) || index >= het_sample_nshards(s) ||
	    s->res[index].p == 0)
		return NULL;
	return &s->res[index];
}

const struct het_cons_shard_gate *
het_sample_view_gate(const struct het_sample *s, size_t index)
{
	size_t j;

	if (!hv_combined(s) || index >= het_sample_nshards(s) ||
	    s->gate_of == NULL)
		return NULL;
	j = s->gate_of[index];
	if (j == (size_t)-1 || j >= s->gates.nshards)
		return NULL;
	return &s->gates.shard[j];
}

int
het_sample_view_used(const struct het_sample *s, size_t index)
{
	size_t j;

	if (!hv_combined(s) || index >= het_sample_nshards(s) ||
	    s->gate_of == NULL)
		return 0;
	j = s->gate_of[index];
	if (j == (size_t)-1 || j >= s->cons.nshards || s->cons.used == NULL)
		return 0;
	return s->cons.used[j] != 0;
}

void
het_sample_view_gates(const struct het_sample *s, struct het_cons_gates *g)
{
	het_cons_gates_from_cmc(&s->cfg->cmc, g);
}

const struct het_shard_settings *
het_sample_view_settings(const struct het_sample *s)
{
	if (s->phase < HET_SAMPLE_SAMPLING || s->cmc == NULL ||
	    s->settings.num_chains < 1)
		return NULL;
	return &s->settings;
}

int
het_sample_view_eta(const struct het_sample *s, double now, double *done,
    double *left)
{
	const struct het_shard_settings *st = het_sample_view_settings(s);
	double el = now - s->t_sampling, w;

	*done = 0;
	*left = NAN;
	if (s->phase != HET_SAMPLE_SAMPLING || st == NULL)
		return 0;
	*done = w = het_cmc_work_done(s->cmc, st->num_chains,
	    st->num_warmup + st->num_samples);
	if (el < 10 || w < 0.01 || w > 0.99999)
		return 0;
	*left = el * (1 - w) / w;
	return 1;
}

const struct het_config *
het_sample_view_config(const struct het_sample *s)
{
	return s->cfg;
}

/* summary[k].key as a real; JSON null is NaN (the wire's spelling). */
static int
hv_real(const json_t *obj, const char *key, long id, size_t k, double *out,
    struct het_error *err)
{
	const json_t *v = json_object_get(obj, key);

	if (json_is_null(v)) {
		*out = NAN;
		return HET_OK;
	}
	if (!json_is_number(v))
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: summary[%zu].%s is missing or not a number", id, k,
		    key);
	*out = json_number_value(v);
	return HET_OK;
}

/* The mean of an array of reals (NaN entries skipped; NaN if none). */
static double
hv_mean(const json_t *a)
{
	double sum = 0;
	size_t k, n = 0;

	for (k = 0; k < json_array_size(a); k++)
		if (json_is_number(json_array_get(a, k))) {
			sum += json_number_value(json_array_get(a, k));
			n++;
		}
	return n > 0 ? sum / (double)n : NAN;
}

int
het_sample_result_diag(const json_t *res, long id,
    struct het_sample_shard_diag *d, struct het_error *err)
{
	const json_t *sum, *e, *ch, *div, *v;
	double rh, ess;
	size_t k;

	memset(d, 0, sizeof(*d));
	if (!json_is_object(res))
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: not an object", id);
	sum = json_object_get(res, "summary");
	ch = json_object_get(res, "chain");
	if (!json_is_array(sum) || json_array_size(sum) == 0)
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: summary is missing or empty", id);
	if (!json_is_object(ch))
		return het_error_set(err, HET_EPROTO, "result record of shard "
		    "%ld: chain is missing or not an object", id);
	d->p = json_array_size(sum);
	v = json_object_get(res, "chains");
	d->nchain = json_is_integer(v) && json_integer_value(v) > 0 ?
	    (size_t)json_integer_value(v) : 0;
	v = json_object_get(res, "draws_per_chain");
	d->ndraw = json_is_integer(v) && json_integer_value(v) > 0 ?
	    (size_t)json_integer_value(v) : 0;
	d->max_rhat = -HUGE_VAL;
	d->min_ess = HUGE_VAL;
	for (k = 0; k < d->p; k++) {
		e = json_array_get(sum, k);
		if (!json_is_object(e))
			return het_error_set(err, HET_EPROTO, "result record "
			    "of shard %ld: summary[%zu] is not an object", id,
			    k);
		if (hv_real(e, "rhat", id, k, &rh, err) != HET_OK ||
		    hv_real(e, "ess_bulk", id, k, &ess, err) != HET_OK)
			return err->code;
		if (isnan(rh) || isnan(d->max_rhat))
			d->max_rhat = NAN;
		else if (rh > d->max_rhat) {
			d->max_rhat = rh;
			d->worst_rhat = k;
		}
		d->min_ess = isnan(ess) || isnan(d->min_ess) ? NAN :
		    fmin(d->min_ess, ess);
	}
	div = json_object_get(ch, "divergences");
	for (k = 0; k < json_array_size(div); k++)
		if (json_is_integer(json_array_get(div, k)))
			d->divergences += (long)json_integer_value(
			    json_array_get(div, k));
	d->step_size = hv_mean(json_object_get(ch, "step_size"));
	d->accept = hv_mean(json_object_get(ch, "accept"));
	/* Optional: NaN when absent. */
	v = json_object_get(res, "wall_time");
	d->wall_time = json_is_number(v) ? json_number_value(v) : NAN;
	return HET_OK;
}

int
het_sample_view_shard_diag(const struct het_sample *s, size_t index,
    struct het_sample_shard_diag *d, struct het_error *err)
{
	const struct het_cmc_shard *sh = het_sample_shard(s, index);

	if (sh == NULL || sh->result == NULL) {
		memset(d, 0, sizeof(*d));
		return het_error_set(err, HET_EINVAL, "shard %zu has no "
		    "result yet", index);
	}
	return het_sample_result_diag(sh->result, sh->id, d, err);
}

int
het_sample_view_reweight(const struct het_sample_summary *sm, char *buf,
    size_t len)
{
	if (len > 0)
		buf[0] = '\0';
	if (sm->rw_ndraw == 0 || isnan(sm->rw_khat))
		return -1;
	if (!(sm->rw_khat <= 0.7)) {
		snprintf(buf, len, "consensus against all the data: %zu "
		    "importance draws, PSIS k-hat %.2f: not reliable (k-hat > "
		    "0.7; see the warning)", sm->rw_ndraw, sm->rw_khat);
		return 1;
	}
	snprintf(buf, len, "consensus against all the data: %zu importance "
	    "draws, PSIS k-hat %.2f, ESS %.0f; the consensus means lie within "
	    "%.2f sd of the reweighted ones (largest: %s)", sm->rw_ndraw,
	    sm->rw_khat, sm->rw_ess, sm->rw_shift, sm->rw_param != NULL ?
	    sm->rw_param : "-");
	return sm->rw_shift > 0.5;
}
