/*
 * t_engine_resume.c: `hetui sample --resume DIR` (het_sample_opts
 * resume_dir): reading the finished shards of a CMC run back
 * (het_results_load_cmc), the shard input digest (het_wire_shard_digest)
 * and the reuse of exactly the shards whose inputs are unchanged.
 *
 * Data: `$HETUI simulate` of tests/configs/sample_truth.yaml (static_ref,
 * one angle, 50 frames); sampled with tests/configs/sample_run.yaml by
 * the real $HETUI_WORKER (2 shards, 2 chains of 300 + 100), as in
 * tests/t_engine_sample.c.
 * Checks:
 *   - het_wire_shard_digest: FNV-1a 64 of the version prefix and the
 *     compact sorted-key dump as 16 hex digits (computed here
 *     independently), independent of key order, sensitive to a value;
 *     a non-object is HET_EINVAL;
 *   - a full run ("full", 2 workers) passes; het_results_load_cmc reads
 *     back both shards: 2 of 2, 16-hex-digit digests, draws, BFMI,
 *     divergences, step sizes and acceptance bit-identical to the
 *     decoded in-memory results, the recomputed summaries (mean, sd, ESS,
 *     R-hat) identical to the worker's, wall_time the coordinator's;
 *     /cmc/shards/reused and cmc_diagnostics.json mark no shard reused;
 *   - a run ("part", 1 worker) cancelled as soon as one shard is done
 *     ends CANCELLED but writes hetui_results.h5 with that shard only
 *     (digest equal to the full run's shard of the same id);
 *   - resuming "part" (out_dir defaults to it, NLSQ loaded from it)
 *     passes, reuses exactly the done shard (attempts 0, elapsed = the
 *     stored wall_time, no worker for it), samples the other on one
 *     worker, gives combined draws bit-identical to the full run's and
 *     marks the reused shard in /cmc/shards/reused and
 *     cmc_diagnostics.json; reading it back gives both shards with the
 *     full run's digests; no worker left;
 *   - resuming the now complete "part" with a worker program that does
 *     not exist passes: both shards reused, no worker spawned, the same
 *     combined draws;
 *   - resuming "full" with another seed (out_dir "reseed") reuses
 *     nothing and warns once, listing the finished shards ("sampled from
 *     other inputs", naming the file); into "full" itself it is refused
 *     (HET_EINVAL, saying how to keep them) and the file is untouched;
 *   - the failure side (damaged files, a missing directory, a file
 *     without digests): t_engine_resume_errors.c.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <jansson.h>

#include "het_cmc.h"
#include "het_proc.h"
#include "het_results.h"
#include "het_sample.h"
#include "het_sample_view.h"
#include "het_wire_shard.h"
#include "sample_drive.h"
#include "resume_lib.h"
#include "tap.h"



/* What the cancelled run left. */
static long	 part_id = -1;		/* its one done shard */
static double	 part_wall;		/* its stored wall_time */
static char	 part_digest[HET_RESULTS_DIGEST_LEN];

static struct het_config *
load(const char *name, struct het_error *err)
{
	char path[600];

	return het_config_load(tpath(path, name), err);
}

/* Two doubles with the same bits (NaN included). */
static int
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* A 16-digit lowercase hex string. */
static int
is_digest(const char *d)
{
	return strlen(d) == 16 && strspn(d, "0123456789abcdef") == 16;
}

/* Index (queue order) of the shard with id, or -1. */
static long
queue_index(const struct het_sample *s, long id)
{
	size_t k;

	for (k = 0; k < het_sample_nshards(s); k++)
		if (het_sample_shard(s, k)->id == id)
			return (long)k;
	return -1;
}

/*
 * The reused flags written into dir: /cmc/shards/reused (by the ids of
 * /cmc/shards/id) and cmc_diagnostics.json shard_diagnostics[].reused,
 * as a bit per id in *h5 and *js.  Returns 0 when something is missing.
 */
static int
written_reused(const char *dir, unsigned *h5, unsigned *js)
{
	char path[700];
	long long id[8], re[8];
	hid_t f, d;
	json_t *doc, *arr, *e;
	json_error_t je;
	size_t k;
	int good = 1;

	*h5 = *js = 0;
	snprintf(path, sizeof(path), "%s/hetui_results.h5", dir);
	if ((f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return 0;
	memset(id, 0, sizeof(id));
	memset(re, 0, sizeof(re));
	if ((d = H5Dopen2(f, "/cmc/shards/id", H5P_DEFAULT)) < 0 ||
	    H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    id) < 0)
		good = 0;
	if (d >= 0)
		H5Dclose(d);
	if ((d = H5Dopen2(f, "/cmc/shards/reused", H5P_DEFAULT)) < 0 ||
	    H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    re) < 0)
		good = 0;
	if (d >= 0)
		H5Dclose(d);
	H5Fclose(f);
	for (k = 0; good && k < K_SHARDS; k++)
		if (re[k])
			*h5 |= 1u << id[k];
	snprintf(path, sizeof(path), "%s/cmc_diagnostics.json", dir);
	if ((doc = json_load_file(path, 0, &je)) == NULL)
		return 0;
	arr = json_object_get(doc, "shard_diagnostics");
	if (!json_is_array(arr) || json_array_size(arr) != K_SHARDS)
		good = 0;
	json_array_foreach(arr, k, e) {
		if (!json_is_boolean(json_object_get(e, "reused")))
			good = 0;
		else if (json_is_true(json_object_get(e, "reused")))
			*js |= 1u << json_integer_value(json_object_get(e,
			    "shard"));
	}
	json_decref(doc);
	return good;
}

/* FNV-1a 64 of a string, as 16 hex digits (the digest's definition). */
static void
fnv1a(const char *s, char *out)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	snprintf(out, HET_RESULTS_DIGEST_LEN, "%016llx",
	    (unsigned long long)h);
}

static void
test_digest(void)
{
	char d1[HET_RESULTS_DIGEST_LEN], d2[HET_RESULTS_DIGEST_LEN];
	char d3[HET_RESULTS_DIGEST_LEN], want[HET_RESULTS_DIGEST_LEN];
	struct het_error err;
	json_t *a, *b, *c, *arr;

	a = json_pack("{s:i,s:s,s:[f,i]}", "z", 1, "a", "x", "m", 0.5, 7);
	b = json_pack("{s:[f,i],s:s,s:i}", "m", 0.5, 7, "a", "x", "z", 1);
	c = json_pack("{s:i,s:s,s:[f,i]}", "z", 2, "a", "x", "m", 0.5, 7);
	fnv1a(HET_WIRE_DIGEST_PREFIX "{\"a\":\"x\",\"m\":[0.5,7],\"z\":1}",
	    want);
	is_int(het_wire_shard_digest(a, d1, &err), HET_OK, "digest: HET_OK");
	is_str(d1, want, "digest: FNV-1a 64 of the version prefix and the "
	    "compact sorted-key dump");
	ok(is_digest(d1), "digest: 16 lowercase hex digits (%s)", d1);
	het_wire_shard_digest(b, d2, &err);
	is_str(d2, d1, "digest: independent of the order of the keys");
	het_wire_shard_digest(c, d3, &err);
	ok(strcmp(d3, d1) != 0, "digest: one value changed, another digest");
	arr = json_array();
	strcpy(d3, "x");
	is_int(het_wire_shard_digest(arr, d3, &err), HET_EINVAL,
	    "digest of an array: HET_EINVAL");
	is_str(d3, "", "... and an empty digest");
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(arr);
}

/* Compare a loaded shard with the in-memory result of queue index k. */
static void
check_loaded_shard(const struct het_sample *s, size_t k,
    const struct het_results_prev_shard *ps)
{
	const struct het_cmc_shard *sh = het_sample_shard(s, k);
	const struct het_shard_result *r = het_sample_view_shard(s, k);
	const struct het_shard_result *l = &ps->res;
	size_t m, c, nd;
	int same = 1, names = 1;

	ok(r != NULL && l->p == r->p && l->nchain == r->nchain &&
	    l->ndraw == r->ndraw && l->p == 4 && l->nchain == 2 &&
	    l->ndraw == 100, "shard %ld: %zu parameters, %zu chains of %zu "
	    "draws, as in memory", ps->id, l->p, l->nchain, l->ndraw);
	if (r == NULL || l->p != r->p || l->nchain != r->nchain ||
	    l->ndraw != r->ndraw)
		return;
	is_int((long long)ps->npairs, (long long)sh->npairs,
	    "shard %ld: n_pairs %zu", ps->id, ps->npairs);
	ok(is_digest(ps->digest), "shard %ld: input digest %s", ps->id,
	    ps->digest);
	for (m = 0; m < l->p; m++)
		if (strcmp(l->names[m], r->names[m]) != 0)
			names = 0;
	ok(names, "shard %ld: parameter names as in memory", ps->id);
	nd = l->nchain * l->p * l->ndraw;
	ok(memcmp(l->draws, r->draws, nd * sizeof(double)) == 0,
	    "shard %ld: %zu draws bit-identical", ps->id, nd);
	ok(memcmp(l->bfmi, r->bfmi, l->nchain * sizeof(double)) == 0 &&
	    memcmp(l->step_size, r->step_size, l->nchain * sizeof(double)) ==
	    0 && memcmp(l->accept, r->accept, l->nchain * sizeof(double)) == 0,
	    "shard %ld: BFMI %g, step size %g, acceptance %g (chain 0) "
	    "bit-identical", ps->id, l->bfmi[0], l->step_size[0],
	    l->accept[0]);
	for (c = 0; c < l->nchain; c++)
		if (l->divergences[c] != r->divergences[c])
			same = 0;
	ok(same, "shard %ld: divergences per chain equal (%ld, %ld)", ps->id,
	    l->divergences[0], l->divergences[1]);
	same = 1;
	for (m = 0; m < l->p; m++) {
		const struct het_diag_summary *a = &l->summary[m];
		const struct het_diag_summary *b = &r->summary[m];

		if (!same_bits(a->mean, b->mean) || !same_bits(a->sd, b->sd) ||
		    !same_bits(a->ess_bulk, b->ess_bulk) ||
		    !same_bits(a->rhat, b->rhat) || !isfinite(a->rhat)) {
			diag("%s: mean %.17g/%.17g sd %.17g/%.17g ess %.17g/"
			    "%.17g rhat %.17g/%.17g", l->names[m], a->mean,
			    b->mean, a->sd, b->sd, a->ess_bulk, b->ess_bulk,
			    a->rhat, b->rhat);
			same = 0;
		}
	}
	ok(same, "shard %ld: recomputed summaries (mean, sd, ESS, R-hat) equal"
	    " the worker's", ps->id);
	ok(same_bits(l->wall_time, sh->elapsed) && sh->elapsed > 0,
	    "shard %ld: wall_time %.3f s is the coordinator's", ps->id,
	    l->wall_time);
}

static void
test_full(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_results_prev_cmc prev;
	struct het_sample *s;
	struct het_error err;
	const struct het_results_prev_shard *ps;
	char dir[600];
	unsigned h5 = 0, js = 0;
	size_t k;
	long q;
	int rc;

	opts_init(&o, cfg, "full");
	s = run(&o, NULL, NULL);
	ok(s != NULL, "full run");
	if (s == NULL)
		return;
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED,
	    "full run: verdict passed");
	is_int((long long)het_sample_nshards(s), K_SHARDS, "... 2 shards");
	resume_keep_full(s);
	ok(full_draws != NULL && full_ndraw == 200 && full_p == 4,
	    "... combined draws %zu x %zu", full_ndraw, full_p);
	ok(written_reused(tpath(dir, "full"), &h5, &js) && h5 == 0 &&
	    js == 0, "... /cmc/shards/reused and cmc_diagnostics.json: no "
	    "shard reused");

	rc = het_results_load_cmc(dir, &prev, &err);
	is_int(rc, HET_OK, "het_results_load_cmc(full): HET_OK");
	if (rc != HET_OK)
		diag("%s", err.msg);
	like(prev.source, "/full/hetui_results.h5", "... source %s",
	    prev.source);
	is_int((long long)prev.nshards, K_SHARDS, "... a plan of 2 shards");
	is_int((long long)prev.n, K_SHARDS, "... both finished");
	for (k = 0; k < prev.n; k++) {
		ps = &prev.shard[k];
		ok(ps->id == het_sample_shard(s, k)->id, "... shard %zu of "
		    "the table is shard %ld, in queue order", k, ps->id);
		if ((q = queue_index(s, ps->id)) < 0 || ps->id >= K_SHARDS)
			continue;
		check_loaded_shard(s, (size_t)q, ps);
		snprintf(full_digest[ps->id], HET_RESULTS_DIGEST_LEN, "%s",
		    ps->digest);
	}
	ok(strcmp(full_digest[0], full_digest[1]) != 0,
	    "the two shards' digests differ");
	het_results_prev_cmc_clear(&prev);
	ok(prev.shard == NULL && prev.source == NULL && prev.n == 0,
	    "het_results_prev_cmc_clear zeroes");
	het_results_prev_cmc_clear(&prev);
	het_results_prev_cmc_clear(NULL);
	is_int(sample_live_children(), 0, "full run: no worker left");
	het_sample_free(s);
}

struct cancel_at {
	int	fired;
	size_t	ndone;		/* shards done when it fired */
};

/* Cancel as soon as one shard is done. */
static void
hook_one_done(struct het_sample *s, void *arg)
{
	struct cancel_at *ca = arg;
	const struct het_cmc *c = het_sample_coordinator(s);

	if (ca->fired || het_sample_phase(s) != HET_SAMPLE_SAMPLING ||
	    c == NULL || het_cmc_count(c, HET_CMC_DONE) < 1)
		return;
	ca->fired = 1;
	ca->ndone = het_cmc_count(c, HET_CMC_DONE);
	het_sample_cancel(s, het_clock_now());
}

static void
test_part(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_results_prev_cmc prev;
	struct het_sample *s;
	struct het_error err;
	struct cancel_at ca = { 0, 0 };
	char dir[600], file[700];
	long q;
	int rc;

	opts_init(&o, cfg, "part");
	o.workers = 1;
	s = run(&o, hook_one_done, &ca);
	ok(s != NULL && ca.fired && ca.ndone == 1, "part run: cancelled when "
	    "one shard was done (%zu)", ca.ndone);
	if (s == NULL)
		return;
	is_int(het_sample_verdict(s), HET_VERDICT_CANCELLED,
	    "... verdict cancelled");
	ok(het_sample_nshards(s) == K_SHARDS &&
	    het_cmc_count(het_sample_coordinator(s), HET_CMC_DONE) == 1 &&
	    het_cmc_count(het_sample_coordinator(s), HET_CMC_CANCELLED) == 1,
	    "... one shard done, one cancelled");
	snprintf(file, sizeof(file), "%s/hetui_results.h5",
	    tpath(dir, "part"));
	ok(access(file, F_OK) == 0, "... hetui_results.h5 written");
	rc = het_results_load_cmc(dir, &prev, &err);
	is_int(rc, HET_OK, "het_results_load_cmc(part): HET_OK");
	if (rc != HET_OK)
		diag("%s", err.msg);
	is_int((long long)prev.nshards, K_SHARDS, "... a plan of 2 shards");
	is_int((long long)prev.n, 1, "... one finished");
	if (prev.n == 1) {
		part_id = prev.shard[0].id;
		part_wall = prev.shard[0].res.wall_time;
		snprintf(part_digest, sizeof(part_digest), "%s",
		    prev.shard[0].digest);
		q = queue_index(s, part_id);
		ok(q >= 0 && het_sample_shard(s, (size_t)q)->state ==
		    HET_CMC_DONE, "... shard %ld, the one that was done",
		    part_id);
		ok(q >= 0 && same_bits(part_wall, het_sample_shard(s,
		    (size_t)q)->elapsed), "... its wall_time %.3f s", part_wall);
		ok(part_id >= 0 && part_id < K_SHARDS &&
		    strcmp(part_digest, full_digest[part_id]) == 0,
		    "... its digest %s equals the full run's", part_digest);
	}
	het_results_prev_cmc_clear(&prev);
	is_int(sample_live_children(), 0, "part run: no worker left");
	het_sample_free(s);
}

static void
test_resume(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_results_prev_cmc prev;
	struct het_sample *s;
	struct het_error err;
	const struct het_cmc_shard *sh;
	const struct het_sample_nlsq *nl;
	const struct het_results_prev_shard *ps;
	char dir[600];
	unsigned ids = 0, h5 = 0, js = 0;
	size_t k;
	int nre, good;

	if (part_id < 0) {
		skip(1, "the part run left no shard");
		return;
	}
	opts_init(&o, cfg, NULL);
	o.resume_dir = tpath(dir, "part");
	o.workers = 2;
	s = run(&o, NULL, NULL);
	ok(s != NULL, "resume of part");
	if (s == NULL)
		return;
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED,
	    "... verdict passed");
	is_str(het_sample_out_dir(s), dir, "... out dir is the resumed one");
	nl = het_sample_nlsq(s);
	ok(nl != NULL && nl->loaded && strstr(nl->source, "/part/") != NULL,
	    "... NLSQ result loaded from it (%s)", nl != NULL ? nl->source :
	    "none");
	nre = count_reused(s, &ids);
	is_int(nre, 1, "... one shard reused");
	is_int(ids, 1u << part_id, "... shard %ld, the one that was done",
	    part_id);
	for (k = 0; k < het_sample_nshards(s); k++) {
		sh = het_sample_shard(s, k);
		if (sh->id == part_id) {
			ok(sh->state == HET_CMC_DONE && sh->attempts == 0 &&
			    sh->pid == 0 && sh->result != NULL,
			    "... reused shard: done, 0 attempts, a result");
			ok(same_bits(sh->elapsed, part_wall), "... its elapsed "
			    "%.3f s is the stored wall_time", sh->elapsed);
		} else
			ok(sh->state == HET_CMC_DONE && sh->attempts == 1 &&
			    !sh->reused, "... shard %ld sampled in one attempt",
			    sh->id);
	}
	is_int((long long)het_cmc_workers_spawned(het_sample_coordinator(s)),
	    1, "... one worker spawned (one shard to sample)");
	is_int(count_warnings(s, "--resume", NULL), 0, "... no --resume "
	    "warning");
	ok(same_as_full(s), "... combined draws bit-identical to the full "
	    "run's");
	ok(het_sample_summary(s) != NULL && het_sample_summary(s)->ndone ==
	    2, "... summary over 2 shards");
	good = written_reused(dir, &h5, &js);
	ok(good && h5 == 1u << part_id && js == 1u << part_id,
	    "... /cmc/shards/reused and "
	    "cmc_diagnostics.json mark shard %ld only (%u, %u)", part_id, h5,
	    js);
	is_int(sample_live_children(), 0, "... no worker left");
	het_sample_free(s);

	is_int(het_results_load_cmc(dir, &prev, &err), HET_OK,
	    "het_results_load_cmc(part) after the resume: HET_OK");
	is_int((long long)prev.n, K_SHARDS, "... both shards finished");
	good = prev.n == K_SHARDS;
	for (k = 0; k < K_SHARDS; k++)
		if ((ps = prev_shard(&prev, (long)k)) == NULL ||
		    strcmp(ps->digest, full_digest[k]) != 0)
			good = 0;
	ok(good, "... with the full run's digests");
	ps = prev_shard(&prev, part_id);
	ok(ps != NULL && same_bits(ps->res.wall_time, part_wall),
	    "... the reused shard keeps its wall_time");
	het_results_prev_cmc_clear(&prev);
}

static void
test_complete(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	char dir[600];
	unsigned ids = 0, h5 = 0, js = 0;

	opts_init(&o, cfg, NULL);
	o.resume_dir = tpath(dir, "part");
	o.worker_path = "/nonexistent/hetui-worker";
	s = run(&o, NULL, NULL);
	ok(s != NULL, "resume of a complete run, no worker program");
	if (s == NULL)
		return;
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED,
	    "... verdict passed");
	is_int(count_reused(s, &ids), K_SHARDS, "... both shards reused");
	ok(het_sample_shard(s, 0)->attempts == 0 &&
	    het_sample_shard(s, 1)->attempts == 0, "... no attempt");
	is_int((long long)het_cmc_workers_spawned(het_sample_coordinator(s)),
	    0, "... no worker spawned");
	ok(same_as_full(s), "... combined draws bit-identical to the full "
	    "run's");
	ok(written_reused(dir, &h5, &js) && h5 == 3 && js == 3,
	    "... both marked reused in the files");
	is_int(sample_live_children(), 0, "... no worker left");
	het_sample_free(s);
}

static void
test_reseed(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	char dir[600], file[700];
	unsigned ids = 0;

	opts_init(&o, cfg, "reseed");
	o.resume_dir = tpath(dir, "full");
	o.seed_set = 1;
	o.seed = 7;
	snprintf(file, sizeof(file), "%s/hetui_results.h5", dir);
	s = run(&o, NULL, NULL);
	ok(s != NULL, "resume of full with seed 7");
	if (s == NULL)
		return;
	ok(het_sample_verdict(s) == HET_VERDICT_PASSED ||
	    het_sample_verdict(s) == HET_VERDICT_GATES_FAILED,
	    "... ends with results (%s)",
	    het_sample_verdict_name(het_sample_verdict(s)));
	like(het_sample_out_dir(s), "/reseed", "... into the given out dir");
	is_int(count_reused(s, &ids), 0, "... no shard reused");
	ok(het_sample_shard(s, 0)->attempts == 1 &&
	    het_sample_shard(s, 1)->attempts == 1, "... both sampled");
	is_int(count_warnings(s, "sampled from other inputs", file), 1,
	    "... one warning for the finished shards, naming %s", file);
	is_int(count_warnings(s, "--resume: finished shards 0, 1 in", NULL) +
	    count_warnings(s, "--resume: finished shards 1, 0 in", NULL), 1,
	    "... listing shards 0 and 1");
	is_int(sample_live_children(), 0, "... no worker left");
	het_sample_free(s);
}

/* The same into "full" itself: refused, nothing written. */
static void
test_reseed_refused(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	struct stat st0, st1;
	char dir[600], file[700];
	int have;

	opts_init(&o, cfg, NULL);
	o.resume_dir = tpath(dir, "full");
	o.seed_set = 1;
	o.seed = 7;
	snprintf(file, sizeof(file), "%s/hetui_results.h5", dir);
	have = stat(file, &st0) == 0;
	s = run(&o, NULL, NULL);
	ok(s != NULL, "resume of full with seed 7 into full");
	if (s == NULL)
		return;
	is_int(het_sample_phase(s), HET_SAMPLE_FAILED, "... refused (failed)");
	is_int(het_sample_error(s)->code, HET_EINVAL, "... HET_EINVAL");
	like(het_sample_error(s)->msg, "would sample them again and replace "
	    "them; restore what changed, or keep them and write this run "
	    "elsewhere with -o DIR", "... says how to keep them: %s",
	    het_sample_error(s)->msg);
	ok(have && stat(file, &st1) == 0 && st0.st_ino == st1.st_ino &&
	    st0.st_mtime == st1.st_mtime && st0.st_size == st1.st_size,
	    "... %s left as it was", file);
	is_int((long long)het_sample_nshards(s), 0, "... no shard sampled");
	het_sample_free(s);
}

int
main(void)
{
	struct het_config *cfg;
	struct het_error err;

	if (resume_setup("t_engine_resume") != 0)
		skip_all("HETUI, HETUI_WORKER or top_srcdir not set, or the "
		    "test data cannot be simulated");
	signal(SIGPIPE, SIG_IGN);
	plan_lazy();
	cfg = load("sample_run.yaml", &err);
	ok(cfg != NULL, "config loads");
	if (cfg == NULL)
		return exit_status();
	test_digest();
	test_full(cfg);
	if (full_draws == NULL) {
		diag("the full run failed; the rest compares with it");
		het_config_free(cfg);
		return exit_status();
	}
	test_part(cfg);
	test_resume(cfg);
	test_complete(cfg);
	test_reseed(cfg);
	test_reseed_refused(cfg);
	het_config_free(cfg);
	resume_cleanup();
	done_testing();
	return exit_status();
}
