/*
 * cmd_sample_out.c: what `hetui sample` prints when a run ends: the
 * summary table (with the gates, the Laplace start's k-hat and the tree
 * size) or, with --json, one JSON object (keys listed in man hetui).
 * Split from cmd_sample.c, which runs the command and its progress.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_sample.h"
#include "het_results.h"
#include "het_sample.h"
#include "het_sample_view.h"

static json_t *
sample_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void
cli_sample_print_json(struct het_sample *s, enum het_sample_verdict v)
{
	const struct het_sample_summary *sm = het_sample_summary(s);
	const struct het_sample_nlsq *nl = het_sample_nlsq(s);
	const char *const *files = het_sample_files(s);
	json_t *root = json_object(), *par = json_object(), *a, *e;
	size_t k;
	char *text;

	json_object_set_new(root, "status", json_string(
	    het_sample_verdict_name(v)));
	if (het_sample_error(s)->code != HET_OK)
		json_object_set_new(root, "error",
		    json_string(het_sample_error(s)->msg));
	json_object_set_new(root, "output_dir",
	    json_string(het_sample_out_dir(s)));
	a = json_array();
	for (k = 0; files[k] != NULL; k++)
		json_array_append_new(a, json_string(files[k]));
	json_object_set_new(root, "files", a);
	if (nl != NULL) {
		json_object_set_new(root, "nlsq_source",
		    json_string(nl->source));
		json_object_set_new(root, "nlsq_converged",
		    json_boolean(nl->converged));
	}
	if (sm != NULL) {
		json_object_set_new(root, "combination_method",
		    json_string(sm->method));
		json_object_set_new(root, "num_shards", json_integer(
		    (json_int_t)sm->nshards));
		json_object_set_new(root, "num_shards_done", json_integer(
		    (json_int_t)sm->ndone));
		json_object_set_new(root, "num_shards_used", json_integer(
		    (json_int_t)sm->nused));
		json_object_set_new(root, "num_shards_reused", json_integer(
		    (json_int_t)cli_sample_nreused(s)));
		json_object_set_new(root, "num_draws", json_integer(
		    (json_int_t)sm->ndraws));
		json_object_set_new(root, "gates_passed",
		    json_boolean(sm->gates_pass));
		json_object_set_new(root, "gates_report",
		    json_string(sm->gates_text));
		json_object_set_new(root, "consensus_note",
		    json_string(sm->note));
		json_object_set_new(root, "max_r_hat", sample_num(
		    sm->max_rhat));
		json_object_set_new(root, "min_ess_bulk", sample_num(
		    sm->min_ess));
		json_object_set_new(root, "min_bfmi", sample_num(sm->min_bfmi));
		json_object_set_new(root, "divergences",
		    json_integer(sm->divergences));
		json_object_set_new(root, "laplace_shards", json_integer(
		    (json_int_t)sm->nlaplace));
		json_object_set_new(root, "laplace_max_khat", sample_num(
		    sm->max_khat));
		json_object_set_new(root, "coordinates", json_string(
		    het_config_coords_name(sm->coords)));
		json_object_set_new(root, "anchors", json_integer(
		    sm->anchors));
		json_object_set_new(root, "leapfrog_per_transition",
		    sample_num(sm->leapfrog));
		json_object_set_new(root, "reweight_draws", json_integer(
		    (json_int_t)sm->rw_ndraw));
		json_object_set_new(root, "reweight_khat", sample_num(
		    sm->rw_khat));
		json_object_set_new(root, "reweight_ess", sample_num(
		    sm->rw_ess));
		json_object_set_new(root, "reweight_max_shift_sd", sample_num(
		    sm->rw_shift));
		json_object_set_new(root, "reweight_max_shift_parameter",
		    sm->rw_param != NULL ? json_string(sm->rw_param) :
		    json_null());
		json_object_set_new(root, "noise_sigma", sample_num(sm->sigma));
		json_object_set_new(root, "noise_sigma_source",
		    json_string(sm->sigma_source));
		json_object_set_new(root, "wall_time", sample_num(
		    sm->wall_time));
		for (k = 0; k < sm->p; k++) {
			const struct het_sample_param *q = &sm->param[k];

			e = json_object();
			json_object_set_new(e, "mean", sample_num(q->mean));
			json_object_set_new(e, "sd", sample_num(q->sd));
			json_object_set_new(e, "q2.5", sample_num(q->q025));
			json_object_set_new(e, "q5", sample_num(q->q5));
			json_object_set_new(e, "q50", sample_num(q->q50));
			json_object_set_new(e, "q95", sample_num(q->q95));
			json_object_set_new(e, "q97.5", sample_num(q->q975));
			json_object_set_new(e, "r_hat", sample_num(q->rhat));
			json_object_set_new(e, "ess_bulk",
			    sample_num(q->ess_bulk));
			json_object_set_new(e, "ess_tail",
			    sample_num(q->ess_tail));
			json_object_set_new(e, "nlsq", sample_num(q->nlsq));
			json_object_set_new(e, "nlsq_sd",
			    sample_num(q->nlsq_sd));
			json_object_set_new(e, "contraction",
			    sample_num(q->contraction));
			json_object_set_new(e, "reweighted_mean",
			    sample_num(q->rw_mean));
			json_object_set_new(e, "reweighted_sd",
			    sample_num(q->rw_sd));
			json_object_set_new(par, q->name, e);
		}
	}
	json_object_set_new(root, "parameters", par);
	a = json_array();
	for (k = 0; k < het_sample_nwarnings(s); k++)
		json_array_append_new(a, json_string(het_sample_warning(s, k)));
	json_object_set_new(root, "warnings", a);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17));
	if (text != NULL)
		printf("%s\n", text);
	free(text);
	json_decref(root);
}

/*
 * The sampler's coordinates: which power laws ran on anchor times (bit
 * per law of the family, het_posterior_anchors).
 */
static void
sample_print_coords(const struct het_sample_summary *sm)
{
	static const char *const het_laws[] = { "reference", "sample",
	    "velocity" };
	static const char *const hom_laws[] = { "diffusion", "shear" };
	const char *const *laws = sm->heterodyne ? het_laws : hom_laws;
	size_t	k, n = sm->heterodyne ? 3 : 2, shown = 0;

	printf("coordinates: %s", het_config_coords_name(sm->coords));
	for (k = 0; k < n; k++)
		if (sm->anchors >> k & 1u)
			printf("%s%s", shown++ ? ", " : "; anchor times for ",
			    laws[k]);
	printf("\n");
}

/*
 * The Laplace start's verdict: how Gaussian the posterior looked to the
 * importance draws (PSIS k-hat; Vehtari et al.'s thresholds 0.5, 0.7).
 */
static void
sample_print_laplace(const struct het_sample_summary *sm)
{
	if (!isnan(sm->leapfrog))
		printf("NUTS: %.1f leapfrog steps per transition after warmup "
		    "(mean over the chains)\n", sm->leapfrog);
	if (sm->nlaplace == 0) {
		printf("laplace start: not used (optimization.cmc."
		    "per_shard_mcmc.laplace_init false, or its Hessian could "
		    "not be taken)\n");
		return;
	}
	if (isnan(sm->max_khat)) {
		printf("laplace start: %zu of %zu shards (no k-hat: psis_draws "
		    "0)\n", sm->nlaplace, sm->ndone);
		return;
	}
	printf("laplace start: %zu of %zu shards, PSIS k-hat %.2f (%s)\n",
	    sm->nlaplace, sm->ndone, sm->max_khat, sm->max_khat < 0.5 ?
	    "close to Gaussian" : sm->max_khat < 0.7 ? "moderately "
	    "non-Gaussian" : "far from Gaussian: the Laplace approximation "
	    "alone is not to be trusted; the NUTS draws are");
}
/* A sharded run's consensus against all the data (het_sample_rw.c). */
static void
sample_print_reweight(const struct het_sample_summary *sm)
{
	char buf[512];

	if (het_sample_view_reweight(sm, buf, sizeof(buf)) >= 0)
		printf("%s\n", buf);
}

void
cli_sample_print_table(struct het_sample *s)
{
	const struct het_sample_summary *sm = het_sample_summary(s);
	const char *const *files = het_sample_files(s);
	size_t k;

	if (sm == NULL)
		return;
	printf("hetui sample: %zu of %zu shards done, %zu combined (%s), "
	    "%zu draws, %.1f s\n", sm->ndone, sm->nshards, sm->nused,
	    sm->method, sm->ndraws, sm->wall_time);
	printf("noise sigma %.4g (%s)\n\n", sm->sigma, sm->sigma_source);
	printf("%-18s %12s %10s %12s %12s %12s %7s %8s %12s %7s\n",
	    "parameter", "mean", "sd", "5%", "50%", "95%", "R-hat", "ESS",
	    "NLSQ", "contr.");
	for (k = 0; k < sm->p; k++) {
		const struct het_sample_param *q = &sm->param[k];

		printf("%-18s %12.6g %10.3g %12.6g %12.6g %12.6g %7.3f %8.0f "
		    "%12.6g %7.2f\n", q->name, q->mean, q->sd, q->q5, q->q50,
		    q->q95, q->rhat, q->ess_bulk, q->nlsq, q->contraction);
	}
	printf("\ngates (max R-hat %.3g, min ESS %.0f, min BFMI %.3g, %ld "
	    "divergences): %s\n", sm->max_rhat, sm->min_ess, sm->min_bfmi,
	    sm->divergences, sm->gates_pass ? "passed" : "FAILED");
	if (!sm->gates_pass && sm->gates_text[0] != '\0')
		printf("%s\n", sm->gates_text);
	sample_print_laplace(sm);
	sample_print_coords(sm);
	sample_print_reweight(sm);
	if (sm->note != NULL && sm->note[0] != '\0')
		printf("consensus: %s\n", sm->note);
	if (files[0] == NULL)
		return;		/* nothing was written: the error says why */
	printf("\nresults written to %s/ (", het_sample_out_dir(s));
	for (k = 0; files[k] != NULL; k++)
		printf("%s%s", k > 0 ? ", " : "", files[k]);
	printf(")\n");
}

