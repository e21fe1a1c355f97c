/*
 * cmd_inspect_mt.c: the multitau part of `hetui inspect` (issue 20): what
 * het_multitau_read found in /xpcs/multitau, for people (a header block
 * and a table of the bins, after the two-time ones, or alone for a
 * multitau-only file) and as the "multitau" object of --json.
 *
 * Design: everything printed comes from struct het_multitau, which the
 * reader has already checked, so this file only formats; the words of
 * the orientation and of the delay unit are the reader's own
 * (orient_why, tau_source), so inspect and the workstation say the same.
 */
#include "config.h"

#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_inspect.h"
#include "het_multitau.h"

static void
mt_print_header(const struct het_multitau *mt, int only,
    const struct inspect_sym *s)
{
	size_t n = mt->ntau * mt->nbins;

	if (only) {
		cli_inspect_key(s, "file");
		printf("%s\n", mt->path);
		cli_inspect_key(s, "layout");
		printf("APS-U multitau  %s%s (no two-time matrices)%s\n",
		    s->dim, HET_MT_GROUP, s->reset);
	} else
		printf("\n");
	cli_inspect_key(s, "multitau");
	printf("g2 of %zu bin%s at %zu delays on a %zu q %s %zu %s map%s\n",
	    mt->nbins, mt->nbins == 1 ? "" : "s", mt->ntau, mt->n_q,
	    s->times, mt->n_phi, s->phi, mt->has_phi ? "" :
	    " (no phi list: one sector at 0)");
	cli_inspect_key(s, "stored");
	printf("normalized_g2 (%zu, %zu)  %s%s%s\n",
	    mt->orient == HET_MT_TAU_FIRST ? mt->ntau : mt->nbins,
	    mt->orient == HET_MT_TAU_FIRST ? mt->nbins : mt->ntau, s->dim,
	    mt->orient_why, s->reset);
	cli_inspect_key(s, "tau");
	printf("%.6g s to %.6g s  %s%s%s\n", mt->tau[0], mt->tau[mt->ntau - 1],
	    s->dim, mt->tau_source, s->reset);
	cli_inspect_key(s, "errors");
	printf("%zu of %zu points without an error (0)%s\n", mt->nzero_err, n,
	    mt->nzero_err > 0 ? ": the fits leave them out" : "");
}

static void
mt_print_table(const struct het_multitau *mt, const struct inspect_sym *s)
{
	const struct het_mt_bin *b;
	char cell[64];
	size_t k;

	cli_inspect_bin_head(s);
	cli_inspect_cell("points", 8, 1);
	cli_inspect_cell("g2 first", 10, 1);
	cli_inspect_cell("g2 last", 10, 1);
	printf("%s\n", s->reset);
	for (k = 0; k < mt->nbins; k++) {
		b = &mt->bins[k];
		cli_inspect_bin_cells(k, b->label, b->q, b->phi);
		printf("%8zu", b->nused);
		snprintf(cell, sizeof(cell), "%.5g", mt->g2[k * mt->ntau]);
		cli_inspect_cell(cell, 10, 1);
		snprintf(cell, sizeof(cell), "%.5g",
		    mt->g2[k * mt->ntau + mt->ntau - 1]);
		cli_inspect_cell(cell, 10, 1);
		printf("\n");
	}
}

void
cli_inspect_mt_print(const struct het_multitau *mt, int only,
    const struct het_error *merr, const struct inspect_sym *s)
{
	if (mt == NULL) {
		if (merr->code == HET_ENOTFOUND)
			return;
		printf("\n");
		cli_inspect_key(s, "multitau");
		printf("cannot be read: %s\n", merr->msg);
		return;
	}
	mt_print_header(mt, only, s);
	mt_print_table(mt, s);
}

static json_t *
mt_json_bin(const struct het_multitau *mt, size_t k)
{
	const struct het_mt_bin *b = &mt->bins[k];

	return json_pack("{sIsIsIsIsfsfsI}", "index", (json_int_t)k,
	    "label", (json_int_t)b->label, "q_index", (json_int_t)b->q_idx,
	    "phi_index", (json_int_t)b->phi_idx, "q", b->q, "phi", b->phi,
	    "points", (json_int_t)b->nused);
}

json_t *
cli_inspect_mt_json(const struct het_multitau *mt)
{
	json_t *o = json_object(), *bins = json_array();
	size_t k;

	if (o == NULL || bins == NULL) {
		json_decref(o);
		json_decref(bins);
		return NULL;
	}
	json_object_set_new(o, "n_tau", json_integer((json_int_t)mt->ntau));
	json_object_set_new(o, "n_bins", json_integer((json_int_t)mt->nbins));
	json_object_set_new(o, "n_q", json_integer((json_int_t)mt->n_q));
	json_object_set_new(o, "n_phi", json_integer((json_int_t)mt->n_phi));
	json_object_set_new(o, "orientation",
	    json_string(het_mt_orient_name(mt->orient)));
	json_object_set_new(o, "orientation_source",
	    json_string(mt->orient_why));
	json_object_set_new(o, "delay_unit",
	    json_string(het_mt_unit_name(mt->delay_unit)));
	json_object_set_new(o, "tau_source", json_string(mt->tau_source));
	json_object_set_new(o, "frame_time", cli_inspect_num(mt->frame_time));
	json_object_set_new(o, "tau", cli_inspect_list(mt->tau, mt->ntau));
	json_object_set_new(o, "q_values", cli_inspect_list(mt->q_list,
	    mt->n_q));
	json_object_set_new(o, "phi_values", cli_inspect_list(mt->phi_list,
	    mt->n_phi));
	json_object_set_new(o, "zero_errors",
	    json_integer((json_int_t)mt->nzero_err));
	for (k = 0; k < mt->nbins; k++)
		json_array_append_new(bins, mt_json_bin(mt, k));
	json_object_set_new(o, "bins", bins);
	return o;
}
