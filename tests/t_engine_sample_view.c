/*
 * t_engine_sample_view.c: het_sample_view (the workstation's views of a
 * sampling pipeline).  A result record packed by het_wire_result_pack
 * from a synthetic shard result gives back its diagnostics
 * (het_sample_result_diag: largest R-hat and its parameter, smallest
 * ESS, divergences summed over chains, mean step size and acceptance,
 * chains, draws, wall time); JSON nulls (NaN) propagate; every malformed
 * record is refused with HET_EPROTO naming the field.  A pipeline that
 * has not run has no draws, shard results, gates or settings, its own
 * configuration, the config's gate thresholds, and no shard diagnostics
 * (HET_EINVAL).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "het_config.h"
#include "het_sample_view.h"
#include "het_wire_shard.h"
#include "tap.h"

/* A result of p = 3 parameters, 2 chains of 4 draws, with set values. */
static json_t *
make_result(long shard)
{
	static const char *const names[3] = { "D0_ref", "alpha_ref",
	    "contrast[0]" };
	static const double rhat[3] = { 1.0137, 1.0821, 1.0049 };
	static const double ess[3] = { 412.5, 187.25, 903.0 };
	struct het_shard_result r;
	struct het_error err;
	json_t *o;
	size_t k;

	het_error_clear(&err);
	if (het_shard_result_alloc(&r, 3, 2, 4, &err) != HET_OK)
		return NULL;
	for (k = 0; k < 3; k++) {
		r.names[k] = strdup(names[k]);
		r.summary[k].mean = 2.385 * (double)(k + 1);
		r.summary[k].sd = 0.125;
		r.summary[k].rhat = rhat[k];
		r.summary[k].ess_bulk = ess[k];
		r.summary[k].ess_tail = ess[k] / 2;
	}
	for (k = 0; k < 2 * 3 * 4; k++)
		r.draws[k] = 0.5 + 0.01 * (double)k;
	r.divergences[0] = 3;
	r.divergences[1] = 4;
	r.step_size[0] = 0.0625;
	r.step_size[1] = 0.1875;
	r.accept[0] = 0.82;
	r.accept[1] = 0.9;
	r.bfmi[0] = 0.71;
	r.bfmi[1] = 0.93;
	r.wall_time = 7.25;
	o = het_wire_result_pack(shard, &r, &err);
	het_shard_result_clear(&r);
	return o;
}

static void
refused(json_t *o, const char *field, const char *why)
{
	struct het_sample_shard_diag d;
	struct het_error err;

	het_error_clear(&err);
	is_int(het_sample_result_diag(o, 7, &d, &err), HET_EPROTO,
	    "%s: HET_EPROTO", why);
	like(err.msg, field, "%s: the message names %s", why, field);
	like(err.msg, "shard 7", "%s: and the shard", why);
	json_decref(o);
}

static void
test_diag(void)
{
	struct het_sample_shard_diag d;
	struct het_error err;
	json_t *o, *e;

	o = make_result(5);
	ok(o != NULL, "a result record is packed");
	het_error_clear(&err);
	is_int(het_sample_result_diag(o, 5, &d, &err), HET_OK, "diag: ok");
	is_int((long)d.p, 3, "3 parameters");
	is_int((long)d.nchain, 2, "2 chains");
	is_int((long)d.ndraw, 4, "4 draws per chain");
	is_double(d.max_rhat, 1.0821, 1e-12, "max R-hat");
	is_int((long)d.worst_rhat, 1, "of alpha_ref");
	is_double(d.min_ess, 187.25, 1e-12, "min bulk ESS");
	is_int(d.divergences, 7, "divergences summed over chains");
	is_double(d.step_size, 0.125, 1e-12, "mean step size");
	is_double(d.accept, 0.86, 1e-12, "mean acceptance");
	is_double(d.wall_time, 7.25, 1e-12, "wall time");

	/* null (NaN) diagnostics make the extremes NaN */
	e = json_array_get(json_object_get(o, "summary"), 2);
	json_object_set_new(e, "rhat", json_null());
	json_object_set_new(e, "ess_bulk", json_null());
	json_object_del(o, "wall_time");
	is_int(het_sample_result_diag(o, 5, &d, &err), HET_OK, "nulls: ok");
	ok(isnan(d.max_rhat), "a null R-hat makes the max NaN");
	ok(isnan(d.min_ess), "a null ESS makes the min NaN");
	ok(isnan(d.wall_time), "no wall_time: NaN");
	json_decref(o);

	refused(json_string("x"), "not an object", "a string");
	o = make_result(7);
	json_object_del(o, "summary");
	refused(o, "summary is missing", "no summary");
	o = make_result(7);
	json_object_set_new(o, "summary", json_array());
	refused(o, "summary is missing or empty", "an empty summary");
	o = make_result(7);
	json_object_del(o, "chain");
	refused(o, "chain is missing", "no chain object");
	o = make_result(7);
	json_array_set_new(json_object_get(o, "summary"), 1,
	    json_integer(3));
	refused(o, "summary[1] is not an object", "a number entry");
	o = make_result(7);
	json_object_set_new(json_array_get(json_object_get(o, "summary"), 0),
	    "rhat", json_string("1.01"));
	refused(o, "summary[0].rhat is missing or not a number",
	    "a string R-hat");
	o = make_result(7);
	json_object_del(json_array_get(json_object_get(o, "summary"), 2),
	    "ess_bulk");
	refused(o, "summary[2].ess_bulk", "no ess_bulk");
}

static void
test_idle(void)
{
	struct het_sample_opts so;
	struct het_sample_shard_diag d;
	struct het_cons_gates g;
	struct het_config *cfg;
	struct het_sample *s;
	struct het_error err;
	size_t nd = 9, p = 9;

	het_error_clear(&err);
	cfg = het_config_default(HET_MODE_STATIC_REF, &err);
	ok(cfg != NULL, "a default configuration");
	if (cfg == NULL)
		return;
	cfg->cmc.max_r_hat = 1.05;
	cfg->cmc.min_ess = 250;
	memset(&so, 0, sizeof(so));
	so.cfg = cfg;
	s = het_sample_alloc(&so, &err);
	ok(s != NULL, "a pipeline");
	if (s == NULL) {
		het_config_free(cfg);
		return;
	}
	ok(het_sample_view_draws(s, &nd, &p) == NULL, "no combined draws");
	ok(nd == 0 && p == 0, "and 0 x 0");
	ok(het_sample_view_draws(s, NULL, NULL) == NULL, "NULL sizes ok");
	ok(het_sample_view_shard(s, 0) == NULL, "no shard result");
	ok(het_sample_view_gate(s, 0) == NULL, "no gate verdict");
	is_int(het_sample_view_used(s, 0), 0, "no shard was used");
	ok(het_sample_view_settings(s) == NULL, "no settings before "
	    "SAMPLING");
	{
		double dn = 1, left = 0;

		ok(het_sample_view_eta(s, 1e9, &dn, &left) == 0 && dn == 0 &&
		    isnan(left), "no time-left estimate before SAMPLING");
	}
	ok(het_sample_view_config(s) != NULL && het_sample_view_config(s) !=
	    cfg, "its own copy of the configuration");
	het_sample_view_gates(s, &g);
	is_double(g.max_r_hat, 1.05, 0, "gate max_r_hat from the config");
	is_double(g.min_ess, 250, 0, "gate min_ess from the config");
	het_error_clear(&err);
	is_int(het_sample_view_shard_diag(s, 0, &d, &err), HET_EINVAL,
	    "no shard diagnostics yet");
	like(err.msg, "shard 0 has no result yet", "said so");
	het_sample_free(s);
	het_config_free(cfg);
}

int
main(void)
{
	plan_lazy();
	test_diag();
	test_idle();
	return exit_status();
}
