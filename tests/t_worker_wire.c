/*
 * t_worker_wire.c: shard and result records (the worker's wire format).
 *
 * Checks:
 *   - het_wire_shard_pack / _unpack round trip every field (and through
 *     a record line); decoding errors name the field; records of older
 *     versions (booleans for reparam, keys absent) read as before;
 *   - het_wire_result_pack / _unpack round trip, NaN as null; hostile
 *     records (arrays of the wrong length, flags that are not 0/1, counts
 *     that do not match) are refused with the field named.
 * Every check is exact (no sampling): no margins to keep.  The shard is
 * tests/shard_fixture.c's.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_wire_shard.h"
#include "shard_fixture.h"
#include "tap.h"

static void
test_roundtrip(void)
{
	struct het_wire_shard	 ws, back;
	struct het_wire_rec	 rec;
	struct het_error	 err;
	struct het_shard_result	 res, r2;
	json_t			*o, *o2;
	char			*line;
	size_t			 len, k;
	long			 id;
	double			 x0[NP] = { 1900, 0.35, 0.31, 0.99 };
	int			 same, got;

	make_shard(&ws, 4);
	ws.x0 = x0;
	ws.settings.laplace = 0;	/* not the defaults of an absent key */
	ws.settings.psis_draws = 77;
	ws.settings.marginalise = 1;
	ws.reparam = HET_COORDS_RATES;
	o = het_wire_shard_pack(&ws, &err);
	ok(o != NULL, "shard packs");
	len = 0;
	got = het_wire_encode(HET_WIRE_SHARD, o, &line, &len, &err);
	ok(got == HET_OK && len > 8 * npairs, "shard record encodes (%zu "
	    "bytes)", len);
	ok(het_wire_decode_line(line, len - 1, 1, &rec, &err) == HET_OK &&
	    rec.type == HET_WIRE_SHARD, "and decodes");
	free(line);
	got = het_wire_shard_unpack(rec.payload, &back, &err);
	ok(got == HET_OK, "shard unpacks: %s", got == HET_OK ? "ok" :
	    err.msg);
	same = back.shard == 4 && back.model.mode == HET_MODE_HOM_STATIC &&
	    back.model.q == 0.02 && back.model.dt == 0.1 &&
	    back.model.n_frames == NF && back.model.n_angles == NA &&
	    back.model.phi[1] == 90 && back.scaling.mode ==
	    HET_SCALING_AVERAGED && back.scaling.contrast_hi ==
	    ws.scaling.contrast_hi && back.nscal == 2 && back.n == npairs &&
	    back.sigma == 0.01 && back.np == NP && back.nshards == 1 &&
	    back.reparam == HET_COORDS_RATES &&
	    back.settings.num_samples == 200 &&
	    back.settings.seed == 5 && back.settings.dense_mass == 0 &&
	    back.settings.target_accept == ws.settings.target_accept &&
	    back.x0 != NULL &&
	    back.settings.laplace == 0 && back.settings.psis_draws == 77 &&
	    back.settings.marginalise == 1 &&
	    back.x0[0] == 1900 && back.free[2] == 0 && back.s[0] == 0.3;
	ok(same, "every scalar field survives");
	ok(memcmp(back.pairs, pairs, npairs * sizeof *pairs) == 0 &&
	    memcmp(back.y, y, npairs * sizeof *y) == 0, "pairs and y bit "
	    "for bit");
	for (k = 0, same = 1; k < NP; k++)
		same &= back.priors[k].kind == pri[k].kind &&
		    back.priors[k].lo == pri[k].lo &&
		    back.priors[k].hi == pri[k].hi &&
		    (back.priors[k].a == pri[k].a || k == 0);
	ok(same, "priors survive, infinite bounds as null");
	het_wire_shard_clear(&back);
	/* decoding errors name the field */
	json_object_del(rec.payload, "y");
	ok(het_wire_shard_unpack(rec.payload, &back, &err) == HET_EPROTO,
	    "missing y refused");
	like(err.msg, "shard.y", "message names shard.y");
	het_wire_shard_clear(&back);
	json_object_set_new(json_object_get(rec.payload, "model"), "q",
	    json_string("x"));
	ok(het_wire_shard_unpack(rec.payload, &back, &err) == HET_EPROTO,
	    "string q refused");
	like(err.msg, "field shard.model.q is missing or not a number",
	    "message");
	het_wire_shard_clear(&back);
	json_object_set_new(json_object_get(rec.payload, "model"), "mode",
	    json_string("sideways"));
	ok(het_wire_shard_unpack(rec.payload, &back, &err) == HET_EINVAL,
	    "unknown mode refused");
	like(err.msg, "model.mode", "message names model.mode");
	het_wire_shard_clear(&back);
	het_wire_rec_clear(&rec);
	/* wrong array length */
	ws.nscal = 3;
	ws.s = NULL;
	ws.s_free = NULL;
	o2 = het_wire_shard_pack(&ws, &err);
	ok(o2 != NULL && het_wire_shard_unpack(o2, &back, &err) == HET_OK,
	    "nscal 3 decodes");
	ok(het_wire_shard_build(&back, &(struct het_wire_shard_objs){ 0 },
	    &err) == HET_EINVAL, "but does not build");
	like(err.msg, "averaged scaling has 2 parameters but the shard "
	    "gives nscal = 3", "message");
	het_wire_shard_clear(&back);
	json_decref(o2);
	ws.nscal = 2;
	ws.np = 3;
	o2 = het_wire_shard_pack(&ws, &err);
	json_object_del(o2, "x0");
	json_object_del(json_object_get(o2, "nuts"), "laplace");
	json_object_del(json_object_get(o2, "nuts"), "psis_draws");
	json_object_del(json_object_get(o2, "nuts"), "marginalise_scaling");
	json_object_set_new(o2, "reparam", json_true());
	ok(o2 != NULL && het_wire_shard_unpack(o2, &back, &err) == HET_OK,
	    "3 priors decode");
	is_int(back.reparam, HET_COORDS_POWER_LAW, "reparam true (an older "
	    "hetui's): power_law");
	het_wire_shard_clear(&back);
	json_object_set_new(o2, "reparam", json_integer(3));
	ok(het_wire_shard_unpack(o2, &back, &err) == HET_EPROTO, "reparam 3 "
	    "refused");
	like(err.msg, "shard.reparam is missing or not 0 (physical), 1 "
	    "(power_law) or 2 (rates)", "message names it and the levels");
	json_object_set_new(o2, "reparam", json_integer(0));
	ok(het_wire_shard_unpack(o2, &back, &err) == HET_OK, "reparam 0 "
	    "decodes");
	ok(back.settings.laplace == 1 && back.settings.psis_draws == 200 &&
	    back.settings.marginalise == 0,
	    "a record without laplace, psis_draws and marginalise_scaling (an "
	    "older hetui's): the Laplace start with 200 draws, no marginal");
	het_wire_shard_clear(&back);
	json_object_set_new(json_object_get(o2, "nuts"),
	    "marginalise_scaling", json_string("no"));
	ok(het_wire_shard_unpack(o2, &back, &err) == HET_EPROTO, "nuts."
	    "marginalise_scaling \"no\" (not a boolean) refused");
	like(err.msg, "shard.nuts.marginalise_scaling", "message names it");
	json_object_del(json_object_get(o2, "nuts"), "marginalise_scaling");
	json_object_set_new(json_object_get(o2, "nuts"), "laplace",
	    json_integer(1));
	ok(het_wire_shard_unpack(o2, &back, &err) == HET_EPROTO, "nuts.laplace "
	    "1 (not a boolean) refused");
	like(err.msg, "shard.nuts.laplace", "message names it");
	json_object_set_new(json_object_get(o2, "nuts"), "laplace",
	    json_true());
	json_object_set_new(json_object_get(o2, "nuts"), "psis_draws",
	    json_integer(-1));
	ok(het_wire_shard_unpack(o2, &back, &err) == HET_EPROTO, "nuts."
	    "psis_draws -1 refused");
	like(err.msg, "shard.nuts.psis_draws", "message names it");
	json_object_del(json_object_get(o2, "nuts"), "psis_draws");
	ok(het_wire_shard_unpack(o2, &back, &err) == HET_OK, "and decodes "
	    "again");
	ok(het_wire_shard_build(&back, &(struct het_wire_shard_objs){ 0 },
	    &err) == HET_EINVAL, "but 4 free parameters do not build");
	like(err.msg, "4 free parameters but the shard gives 3 priors",
	    "message");
	het_wire_shard_clear(&back);
	json_decref(o2);
	json_decref(o);
	/* results */
	ok(het_shard_result_alloc(&res, 2, 3, 4, &err) == HET_OK, "result");
	for (k = 0; k < 2 * 3 * 4; k++)
		res.draws[k] = 0.5 * (double)k;
	res.names[0] = strdup("D0");
	res.names[1] = strdup("alpha");
	res.summary[1].mean = 0.25;
	res.summary[1].rhat = NAN;
	res.bfmi[2] = NAN;
	res.divergences[1] = 7;
	res.step_size[0] = 0.125;
	res.wall_time = 1.5;
	res.leapfrog[2] = 7.5;
	res.leapfrog_warmup[1] = 31.25;
	res.laplace = 1;
	res.laplace_khat = 0.375;
	res.laplace_ess = NAN;
	res.marginal = HET_MARG_BOUND;
	res.anchors = 5;
	o = het_wire_result_pack(9, &res, &err);
	ok(o != NULL && het_wire_result_unpack(o, &id, &r2, &err) == HET_OK,
	    "result round trip");
	ok(id == 9 && r2.p == 2 && r2.nchain == 3 && r2.ndraw == 4 &&
	    memcmp(r2.draws, res.draws, 24 * sizeof(double)) == 0 &&
	    strcmp(r2.names[1], "alpha") == 0 && r2.summary[1].mean == 0.25 &&
	    isnan(r2.summary[1].rhat) && isnan(r2.bfmi[2]) &&
	    r2.divergences[1] == 7 && r2.step_size[0] == 0.125 &&
	    r2.wall_time == 1.5 && r2.laplace == 1 &&
	    r2.leapfrog[2] == 7.5 && r2.leapfrog_warmup[1] == 31.25 &&
	    r2.laplace_khat == 0.375 && isnan(r2.laplace_ess) &&
	    r2.marginal == HET_MARG_BOUND && r2.anchors == 5,
	    "every result field survives, NaN as null");
	het_shard_result_clear(&r2);
	json_object_set_new(o, "laplace", json_string("yes"));
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_EPROTO,
	    "a laplace that is not an object refused");
	like(err.msg, "laplace must be an object with a boolean used",
	    "message");
	json_object_del(o, "laplace");
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_OK &&
	    r2.laplace == 0 && isnan(r2.laplace_khat), "no laplace (an older "
	    "hetui's result): not used, k-hat NaN");
	het_shard_result_clear(&r2);
	json_object_set_new(o, "marginal", json_string("maybe"));
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_EPROTO,
	    "a marginal that is no status name refused");
	like(err.msg, "marginal must be one of", "message");
	json_object_set_new(o, "marginal", json_integer(1));
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_EPROTO,
	    "a marginal that is no string refused");
	json_object_del(o, "marginal");
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_OK &&
	    r2.marginal == HET_MARG_OFF, "no marginal (an older hetui's "
	    "result): off");
	het_shard_result_clear(&r2);
	json_object_set_new(o, "anchors", json_integer(8));
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_EPROTO,
	    "anchors 8 (no such law) refused");
	like(err.msg, "anchors must be an integer from 0 to 7", "message");
	json_object_del(o, "anchors");
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_OK &&
	    r2.anchors == 0, "no anchors (an older hetui's result): none");
	het_shard_result_clear(&r2);
	json_object_set_new(o, "chains", json_integer(4));
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_EPROTO,
	    "draw count mismatch refused");
	like(err.msg, "draws has 24 values, expected 4 chains x 2 "
	    "parameters x 4 draws", "message");
	json_decref(o);
	het_shard_result_clear(&res);
}

/*
 * Hostile shard payloads: arrays of the wrong length (each refused with
 * the array freed: the ASan build reports a leak otherwise), flags that
 * are not 0/1, and a frame count no window has.
 */
static void
test_unpack_hostile(void)
{
	static const double two[2] = { 1.5, 2.5 }, five[5] = { 1, 2, 3, 4,
	    5 };
	static const uint32_t f7[3] = { 1, 7, 0 }, f2[2] = { 2, 1 };
	struct het_wire_shard	 ws, back;
	struct het_error	 err;
	json_t			*o;

	make_shard(&ws, 5);
	o = het_wire_shard_pack(&ws, &err);
	ok(o != NULL && het_wire_shard_unpack(o, &back, &err) == HET_OK,
	    "the shard to corrupt unpacks");
	het_wire_shard_clear(&back);
	het_wire_put_f64(o, "theta", two, 2, &err);
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "theta of 2 values for a 3-parameter mode refused");
	like(err.msg, "field theta has 2 values, expected 3", "message");
	ok(back.theta == NULL, "... and no theta is kept");
	het_wire_shard_clear(&back);
	het_wire_put_f64(o, "theta", theta, 3, &err);
	het_wire_put_f64(o, "s", five, 5, &err);
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "s of 5 values for 2 scaling parameters refused");
	like(err.msg, "field s has 5 values, expected 2", "message");
	het_wire_shard_clear(&back);
	het_wire_put_f64(o, "s", s0, 2, &err);
	het_wire_put_f64(o, "x0", five, 5, &err);
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "x0 of 5 values for 4 free parameters refused");
	like(err.msg, "field x0 has 5 values, expected 4", "message");
	het_wire_shard_clear(&back);
	json_object_del(o, "x0");
	het_wire_put_u32(o, "pair_j", f7, 3, &err);
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "pair_j of 3 values for %zu pairs refused", npairs);
	like(err.msg, "field pair_j has 3 values", "message");
	het_wire_shard_clear(&back);
	json_decref(o);
	o = het_wire_shard_pack(&ws, &err);
	het_wire_put_u32(o, "free", f7, 3, &err);
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "a free flag of 7 refused");
	like(err.msg, "field free value 1 is 7; a flag is 0 (fixed) or 1 "
	    "(free)", "message names the field, the index and the value");
	het_wire_shard_clear(&back);
	json_object_del(o, "free");
	het_wire_put_u32(o, "s_free", f2, 2, &err);
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "an s_free flag of 2 refused");
	like(err.msg, "field s_free value 0 is 2", "message");
	het_wire_shard_clear(&back);
	json_object_del(o, "s_free");
	ok(het_wire_shard_unpack(o, &back, &err) == HET_OK &&
	    back.free == NULL && back.s_free == NULL, "without the flags: all "
	    "free, decodes");
	het_wire_shard_clear(&back);
	json_object_set_new(json_object_get(o, "model"), "n_frames",
	    json_integer(2147483647));
	ok(het_wire_shard_unpack(o, &back, &err) == HET_EPROTO,
	    "n_frames 2^31-1 refused before anything is sized by it");
	like(err.msg, "shard.model.n_frames is 2147483647, more than the "
	    "100000 frames a shard may span", "message");
	het_wire_shard_clear(&back);
	json_object_set_new(json_object_get(o, "model"), "n_frames",
	    json_integer(HET_WIRE_MAX_FRAMES));
	ok(het_wire_shard_unpack(o, &back, &err) == HET_OK &&
	    back.model.n_frames == HET_WIRE_MAX_FRAMES, "n_frames %d (the "
	    "maximum) decodes", HET_WIRE_MAX_FRAMES);
	het_wire_shard_clear(&back);
	json_decref(o);
}

/*
 * Results that parse but do not add up: each refused by the decoder the
 * coordinator runs on receipt (het_wire_result_check), naming the field.
 */
static void
test_result_hostile(void)
{
	struct het_shard_result	 res, r2;
	struct het_error	 err;
	json_t			*o, *ch;
	size_t			 k;
	long			 id;

	if (het_shard_result_alloc(&res, 2, 3, 4, &err) != HET_OK) {
		ok(0, "result");
		return;
	}
	for (k = 0; k < 24; k++)
		res.draws[k] = 0.375 * (double)k - 1.25;
	res.names[0] = strdup("D0");
	res.names[1] = strdup("alpha");
	for (k = 0; k < 3; k++)
		res.step_size[k] = 0.125;
	o = het_wire_result_pack(9, &res, &err);
	ok(o != NULL && het_wire_result_check(o, 9, 2, &err) == HET_OK,
	    "a complete result passes the check");
	ok(het_wire_result_check(o, 9, 3, &err) == HET_EPROTO,
	    "2 parameters where the shard samples 3: refused");
	like(err.msg, "the result of shard 9 has 2 parameters, but the shard "
	    "samples 3", "message");
	ok(het_wire_result_check(o, 8, 2, &err) == HET_EPROTO,
	    "a result of shard 9 where shard 8's was due: refused");
	like(err.msg, "a result for shard 9 arrived where shard 8's was due",
	    "message");
	/* 1 x 2 x 12 = 24 values too, but the chain arrays have 3 */
	json_object_set_new(o, "chains", json_integer(1));
	json_object_set_new(o, "draws_per_chain", json_integer(12));
	ok(het_wire_result_check(o, 9, 2, &err) == HET_EPROTO,
	    "chains 1 x draws_per_chain 12 with 3 chains' arrays refused");
	like(err.msg, "chain.divergences must be an array of 1 values, one "
	    "per chain, but has 3", "message");
	json_object_set_new(o, "chains", json_integer(3));
	json_object_set_new(o, "draws_per_chain", json_integer(5));
	ok(het_wire_result_check(o, 9, 2, &err) == HET_EPROTO,
	    "draws_per_chain 5 for 4 draws per chain refused");
	like(err.msg, "draws has 24 values, expected 3 chains x 2 parameters "
	    "x 5 draws", "message");
	json_object_set_new(o, "draws_per_chain", json_integer(
	    (json_int_t)1 << 62));
	ok(het_wire_result_check(o, 9, 2, &err) == HET_EPROTO,
	    "draws_per_chain 2^62 refused (3 x 2 x 2^62 does not wrap)");
	like(err.msg, "draws has 24 values, expected 3 chains x 2 parameters "
	    "x 4611686018427387904 draws", "message");
	json_object_set_new(o, "draws_per_chain", json_integer(4));
	ch = json_object_get(o, "chain");
	json_array_append_new(json_object_get(ch, "accept"), json_real(0.5));
	ok(het_wire_result_check(o, 9, 2, &err) == HET_EPROTO,
	    "a fourth accept value for 3 chains refused");
	like(err.msg, "chain.accept must be an array of 3 values", "message");
	json_array_remove(json_object_get(ch, "accept"), 3);
	json_array_append_new(json_object_get(ch, "leapfrog"), json_real(7));
	ok(het_wire_result_check(o, 9, 2, &err) == HET_EPROTO,
	    "a fourth leapfrog count for 3 chains refused");
	like(err.msg, "chain.leapfrog must be an array of 3 values", "message");
	json_object_del(ch, "leapfrog");
	json_object_del(ch, "leapfrog_warmup");
	ok(het_wire_result_check(o, 9, 2, &err) == HET_OK, "without the "
	    "leapfrog counts (an older worker's result) it passes");
	json_array_set_new(json_object_get(ch, "divergences"), 1,
	    json_integer(-3));
	ok(het_wire_result_check(o, 9, 2, &err) == HET_EPROTO,
	    "negative divergences refused");
	like(err.msg, "chain.divergences[1] is -3, not a count", "message");
	json_array_set_new(json_object_get(ch, "divergences"), 1,
	    json_integer(0));
	json_array_remove(json_object_get(o, "summary"), 1);
	ok(het_wire_result_unpack(o, &id, &r2, &err) == HET_EPROTO &&
	    r2.draws == NULL, "a summary shorter than params refused, nothing "
	    "returned");
	like(err.msg, "params, summary, chain, chains or draws_per_chain",
	    "message");
	json_object_set_new(o, "params", json_array());
	json_object_set_new(o, "summary", json_array());
	ok(het_wire_result_check(o, 9, 0, &err) == HET_EPROTO,
	    "no parameters refused");
	like(err.msg, "params is empty", "message");
	json_decref(o);
	/* a non-finite draw smuggled into the base64 */
	res.draws[5] = 1.0;
	o = het_wire_result_pack(9, &res, &err);
	json_object_set_new(o, "draws", json_pack("{s:s, s:i, s:s}", "dtype",
	    "f64le", "n", 1, "b64", "AAAAAAAA8H8="));
	json_object_set_new(o, "chains", json_integer(1));
	json_object_set_new(o, "draws_per_chain", json_integer(1));
	ok(het_wire_result_check(o, 9, 0, &err) == HET_EPROTO,
	    "an infinite draw refused");
	like(err.msg, "not finite", "message");
	json_decref(o);
	het_shard_result_clear(&res);
}

int
main(void)
{
	plan_lazy();
	test_roundtrip();
	test_unpack_hostile();
	test_result_hostile();
	return exit_status();
}
