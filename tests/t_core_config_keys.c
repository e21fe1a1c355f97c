/*
 * t_core_config_keys.c: settings by key (het_config_setting_format,
 * _parse, _next: the schema table of het_config_table.c as the
 * workstation's editors use it).
 *
 * Checks, on the two_component defaults:
 *   - format: a count, "auto" (num_shards 0), a word (the canonical one),
 *     a boolean, a number, the seed, "jac";
 *   - parse: a count with blanks around it, "auto", a word and its
 *     synonym (stratified -> angle_balanced), true/false, a number, the
 *     worker command (a string); each read back through format and, for
 *     the counts, the field itself;
 *   - refusals, each naming the key: hex (0x10), a word for a count,
 *     "auto" where the setting has none, an unknown word (listing the
 *     allowed ones), a negative seed, a mapping (x_scale_map) and a list
 *     (target_ranges), an unknown key; the configuration unchanged by a
 *     refusal;
 *   - a setting that may be unset (dt): a number sets it, null unsets it
 *     and is formatted back as null;
 *   - next: the strategy cycles over the canonical words only (random,
 *     angle_balanced, contiguous, random), a boolean flips, a count is
 *     refused;
 *   - a parsed value out of range passes parse and fails
 *     het_config_validate, naming the key (the editors' order);
 *   - the public names (het_config_*_name) are the table's canonical
 *     words; an out-of-range value is "unknown".
 */
#include "config.h"

#include <string.h>

#include "het_config.h"
#include "het_config_impl.h"
#include "het_util.h"
#include "tap.h"

#define K_SHARDS	"optimization.cmc.sharding.num_shards"
#define K_CHAINS	"optimization.cmc.per_shard_mcmc.num_chains"
#define K_STRAT		"optimization.cmc.sharding.sharding_strategy"
#define K_DENSE		"optimization.cmc.per_shard_mcmc.dense_mass"
#define K_TARGET	"optimization.cmc.per_shard_mcmc.target_accept_prob"

static const char *
fmt(const struct het_config *c, const char *key)
{
	static char buf[1200];
	struct het_error err;

	if (het_config_setting_format(c, key, buf, sizeof(buf), &err) !=
	    HET_OK)
		snprintf(buf, sizeof(buf), "ERROR %s", err.msg);
	return buf;
}

static void
refused(struct het_config *c, const char *key, const char *text,
    const char *needle, const char *what)
{
	struct het_error err;
	char before[1200];

	snprintf(before, sizeof(before), "%s", fmt(c, key));
	is_int(het_config_setting_parse(c, key, text, &err), HET_EINVAL,
	    "%s: refused", what);
	like(err.msg, needle, "... the message: %s", err.msg);
	is_str(fmt(c, key), before, "... the setting unchanged");
}

/*
 * The defaults come from the schema table: on a default configuration of
 * each family, every entry with a default and a place in the template
 * formats to that default (numbers compared as numbers: "1e-8" and
 * "1e-08" are one value), the homodyne one where it has its own.  This
 * fails when het_cl_set_defaults skips an entry, when a default does not
 * read back as written, or when an editor's format and the template's
 * words part; what the defaults are is held by the templates
 * (t_config.sh).
 */
static void
table_defaults(void)
{
	static const enum het_mode modes[2] = { HET_MODE_TWO_COMPONENT,
	    HET_MODE_HOM_STATIC };
	struct het_config *c;
	struct het_error err;
	char path[256], *end;
	const char *want, *got;
	size_t i, m, n, bad;
	double a;

	for (m = 0; m < 2; m++) {
		if ((c = het_config_default(modes[m], &err)) == NULL)
			return;
		for (i = n = bad = 0; i < het_cl_nkeys; i++) {
			const struct het_cl_key *k = &het_cl_keys[i];

			if (k->def == NULL || k->tkey == NULL)
				continue;
			want = m == 1 && k->def_hom != NULL ? k->def_hom :
			    k->def;
			snprintf(path, sizeof path, "%s.%s",
			    het_cl_sections[k->tsec].path, k->tkey);
			got = fmt(c, path);
			a = strtod(want, &end);
			n++;
			if (*end == '\0' && end != want ? !(a == strtod(got,
			    NULL)) : strcmp(got, want) != 0) {
				diag("%s: %s, the table says %s", path, got,
				    want);
				bad++;
			}
		}
		ok(n >= 55 && bad == 0, "%s: the %zu table defaults are applied "
		    "and read back as written", m ? "homodyne" : "heterodyne",
		    n);
		het_config_free(c);
	}
}

int
main(void)
{
	struct het_config *c;
	struct het_error err;
	char buf[64];

	plan_lazy();
	if ((c = het_config_default(HET_MODE_TWO_COMPONENT, &err)) == NULL) {
		diag("defaults: %s", err.msg);
		return 1;
	}
	is_str(fmt(c, K_CHAINS), "4", "format: num_chains 4");
	is_str(fmt(c, K_SHARDS), "auto", "format: num_shards auto");
	is_str(fmt(c, K_STRAT), "random", "format: the strategy's word");
	is_str(fmt(c, K_DENSE), "false", "format: dense_mass false");
	is_str(fmt(c, K_TARGET), "0.95", "format: target_accept_prob 0.95");
	is_str(fmt(c, "optimization.cmc.per_shard_mcmc.seed"), "42",
	    "format: the seed");
	is_str(fmt(c, "optimization.nlsq.x_scale"), "jac", "format: x_scale "
	    "jac");
	table_defaults();

	is_int(het_config_setting_parse(c, K_CHAINS, " 8 ", &err), HET_OK,
	    "parse ' 8 ' for num_chains");
	ok(c->cmc.num_chains == 8, "... the field is 8");
	is_int(het_config_setting_parse(c, K_SHARDS, "3", &err), HET_OK,
	    "parse 3 shards");
	ok(c->cmc.num_shards == 3, "... the field is 3");
	is_int(het_config_setting_parse(c, K_SHARDS, "auto", &err), HET_OK,
	    "parse auto shards");
	ok(c->cmc.num_shards == 0, "... the field is 0 (auto)");
	is_int(het_config_setting_parse(c, K_STRAT, "stratified", &err),
	    HET_OK, "parse the synonym stratified");
	is_str(fmt(c, K_STRAT), "angle_balanced", "... read as angle_balanced");
	is_int(het_config_setting_parse(c, K_DENSE, "yes", &err), HET_OK,
	    "parse yes for dense_mass");
	is_str(fmt(c, K_DENSE), "true", "... true");
	is_int(het_config_setting_parse(c, K_TARGET, "0.9", &err), HET_OK,
	    "parse 0.9 for the target");
	is_str(fmt(c, K_TARGET), "0.9", "... 0.9");
	is_int(het_config_setting_parse(c, "optimization.cmc.worker_command",
	    "ssh node7 hetui-worker", &err), HET_OK, "parse a worker command");
	is_str(c->cmc.worker_command, "ssh node7 hetui-worker", "... stored");
	is_int(het_config_validate(c, &err), HET_OK, "the edited "
	    "configuration validates");

	refused(c, K_CHAINS, "0x10", "num_chains: '0x10' is not a decimal",
	    "hex for num_chains");
	refused(c, K_CHAINS, "two", "num_chains: 'two' is not an integer",
	    "a word for num_chains");
	refused(c, K_CHAINS, "auto", "num_chains: 'auto' is not an integer",
	    "auto for num_chains (it has none)");
	refused(c, K_STRAT, "spiral", "allowed: random, angle_balanced, "
	    "contiguous, stratified", "an unknown strategy");
	refused(c, "optimization.cmc.per_shard_mcmc.seed", "-1", "seed: -1 "
	    "is outside", "a negative seed");
	refused(c, K_DENSE, "maybe", "dense_mass: expected true or false",
	    "maybe for dense_mass");
	refused(c, "optimization.nlsq.x_scale_map", "1", "x_scale_map: not a "
	    "single value; edit it in the file", "x_scale_map (a mapping)");
	refused(c, "phi_filtering.target_ranges", "[]", "target_ranges: not a "
	    "single value", "target_ranges (a list)");
	is_int(het_config_setting_parse(c, "analyzer_parameters.dt", "0.2",
	    &err), HET_OK, "parse dt 0.2");
	ok(c->dt_set && c->dt == 0.2, "... dt is set to 0.2");
	is_int(het_config_setting_parse(c, "analyzer_parameters.dt", "null",
	    &err), HET_OK, "parse dt null");
	ok(!c->dt_set, "... dt is not set (read from the data file)");
	is_str(fmt(c, "analyzer_parameters.dt"), "null", "... formatted null");
	refused(c, "optimization.cmc.num_chainz", "4", "num_chainz: not a "
	    "setting hetui edits", "an unknown key");
	is_int(het_config_setting_format(c, "nope", buf, sizeof(buf), &err),
	    HET_EINVAL, "format of an unknown key: HET_EINVAL");
	/* Entries without a place in the template (read only) and the
	   parameter blocks' entry are not settings an editor reaches (a
	   read-only entry used to be compared by a NULL key). */
	refused(c, "phi_filtering.algorithm", "auto", "algorithm: not a "
	    "setting hetui edits", "a read-only entry");
	refused(c, "experimental_data.parameters", "1", "parameters: not a "
	    "setting hetui edits", "the parameter blocks' entry");
	/* The Model panel's scaling key: the canonical words in order. */
	{
		static const char *const cyc[] = { "auto", "individual",
		    "constant", "averaged", "fourier", "auto" };
		const char *k = "optimization.nlsq.per_angle_mode";
		size_t i;

		het_config_setting_parse(c, k, "auto", &err);
		for (i = 1; i < HET_ARRAY_LEN(cyc); i++) {
			het_config_setting_next(c, k, &err);
			is_str(fmt(c, k), cyc[i], "per_angle_mode next: %s -> "
			    "%s", cyc[i - 1], cyc[i]);
		}
	}

	het_config_setting_parse(c, K_STRAT, "random", &err);
	het_config_setting_next(c, K_STRAT, &err);
	is_str(fmt(c, K_STRAT), "angle_balanced", "next: random -> "
	    "angle_balanced");
	het_config_setting_next(c, K_STRAT, &err);
	is_str(fmt(c, K_STRAT), "contiguous", "next: -> contiguous (not the "
	    "synonym stratified)");
	het_config_setting_next(c, K_STRAT, &err);
	is_str(fmt(c, K_STRAT), "random", "next: -> random again");
	het_config_setting_next(c, K_DENSE, &err);
	is_str(fmt(c, K_DENSE), "false", "next: a boolean flips");
	is_int(het_config_setting_next(c, K_CHAINS, &err), HET_EINVAL,
	    "next of a count: HET_EINVAL");
	like(err.msg, "num_chains: not a choice of words", "... says so");

	is_int(het_config_setting_parse(c, K_CHAINS, "0", &err), HET_OK,
	    "0 chains parses");
	is_int(het_config_validate(c, &err), HET_EINVAL, "... and fails "
	    "validation");
	like(err.msg, "per_shard_mcmc.num_chains: 0 must be >= 1", "... "
	    "naming the key: %s", err.msg);
	/* The public names come from the same table. */
	is_str(het_config_scaling_name(HET_SCALING_INDIVIDUAL), "individual",
	    "het_config_scaling_name: individual (not its synonym "
	    "independent)");
	is_str(het_config_sharding_name(HET_SHARD_ANGLE_BALANCED),
	    "angle_balanced", "het_config_sharding_name: angle_balanced");
	is_str(het_config_combine_name(HET_COMBINE_ROBUST),
	    "robust_consensus_mc", "het_config_combine_name");
	is_str(het_config_coords_name(2), "rates", "het_config_coords_name(2)");
	is_str(het_config_loss_name(HET_LOSS_SOFT_L1), "soft_l1",
	    "het_config_loss_name");
	is_str(het_config_sigma_name((enum het_config_sigma)99), "unknown",
	    "an out-of-range value: unknown");
	het_config_free(c);
	done_testing();
	return exit_status();
}
