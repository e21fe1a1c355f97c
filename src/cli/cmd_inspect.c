/*
 * cmd_inspect.c: `hetui inspect FILE [--json]`: describe an XPCS result
 * file from its metadata alone (het_dataset_open reads no matrix), and
 * its multitau g2 when it has one (cmd_inspect_mt.c).
 *
 * Two outputs of the same facts: a header block and an aligned bin table
 * for people, and with --json one object whose keys and their order are a
 * documented interface (man hetui(1), INSPECT JSON): keys are only ever
 * added at the end of an object.  JSON numbers carry 17 significant
 * digits, so they read back as the very doubles hetui uses.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cmd_inspect.h"
#include "het_dataset.h"
#include "het_multitau.h"

#define INSPECT_JSON_VERSION 1

static const char inspect_help[] =
    "Describe an XPCS two-time result file (APS-U or legacy APS 8-ID-I)\n"
    "or NumPy .npy matrix from its metadata alone: layout, compression and\n"
    "storage type of the matrices, every bin with its index, label, q, phi\n"
    "and frame count, dt and where it came from, energy and detector\n"
    "distance.  No matrix is read, so large files are inspected in a\n"
    "moment.  The multitau g2(q, tau) of an APS-U file (/xpcs/multitau)\n"
    "is listed too: its delays in seconds and how they were made, the\n"
    "orientation of normalized_g2, and per bin q, phi and the points\n"
    "with an error; a file with multitau data only is described by it.\n"
    "\n"
    "Options:\n"
    "  --json      print one JSON object (keys: see INSPECT JSON in\n"
    "              hetui(1)) instead of the table\n"
    "  --q Q, --phi A[,B...], --dt DT\n"
    "              what a .npy file does not hold: its q (1/A), one angle\n"
    "              per matrix (degrees) and the frame time (s); unset ones\n"
    "              come from the sidecar NAME.yaml or NAME.json beside it\n"
    "  -h, --help  show this help\n"
    "\n"
    "Exit status: 0 success, 1 the file cannot be read or is not a result\n"
    "file (the message says why), 2 usage error.\n";

/* The compression of a bin in the JSON vocabulary ("filter-32001"). */
static void
inspect_codec(const struct het_bin *b, char *buf, size_t len)
{
	if (b->compression == HET_COMPRESS_OTHER)
		snprintf(buf, len, "filter-%u", b->filter_id);
	else
		snprintf(buf, len, "%s", het_compress_name(b->compression));
}

json_t *
cli_inspect_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *
cli_inspect_list(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static json_t *
inspect_json_bin(const struct het_bin *b)
{
	char codec[32];
	json_t *o = json_object();

	inspect_codec(b, codec, sizeof(codec));
	json_object_set_new(o, "index", json_integer((json_int_t)b->index));
	json_object_set_new(o, "label", json_integer(b->label));
	json_object_set_new(o, "q_index", json_integer((json_int_t)b->q_idx));
	json_object_set_new(o, "phi_index",
	    json_integer((json_int_t)b->phi_idx));
	json_object_set_new(o, "q", json_real(b->q));
	json_object_set_new(o, "phi", json_real(b->phi));
	json_object_set_new(o, "frames", json_integer((json_int_t)b->frames));
	json_object_set_new(o, "dtype", json_string(het_dtype_name(b->dtype)));
	json_object_set_new(o, "compression", json_string(codec));
	json_object_set_new(o, "compression_level", b->level >= 0 ?
	    json_integer(b->level) : json_null());
	json_object_set_new(o, "storage",
	    json_string(het_h5store_name(b->storage)));
	json_object_set_new(o, "chunk", b->storage == HET_STORE_CHUNKED ?
	    json_pack("[II]", (json_int_t)b->chunk[0],
	    (json_int_t)b->chunk[1]) : json_null());
	json_object_set_new(o, "dataset", json_string(b->dataset));
	return o;
}

/*
 * The JSON object of a file: its two-time facts (ds), or for a
 * multitau-only file (ds NULL) the same keys with 0, empty or null and
 * its q map, then "multitau" (null without multitau data).
 */
static int
inspect_json(const struct het_dataset *ds, const struct het_multitau *mt)
{
	const struct het_dataset_info *in = ds != NULL ? het_dataset_info(ds) :
	    NULL;
	json_t *root, *bins;
	char codec[32] = "";
	size_t k;
	int rc;

	root = json_object();
	bins = json_array();
	if (root == NULL || bins == NULL) {
		json_decref(root);
		json_decref(bins);
		return -1;
	}
	if (in != NULL)
		inspect_codec(het_dataset_bin(ds, 0), codec, sizeof(codec));
	json_object_set_new(root, "format_version",
	    json_integer(INSPECT_JSON_VERSION));
	json_object_set_new(root, "file", json_string(in != NULL ? in->path :
	    mt->path));
	json_object_set_new(root, "layout", json_string(het_layout_name(
	    in != NULL ? in->layout : HET_LAYOUT_APSU)));
	json_object_set_new(root, "n_bins",
	    json_integer(in != NULL ? (json_int_t)in->nbins : 0));
	json_object_set_new(root, "n_q", json_integer((json_int_t)(in != NULL ?
	    in->n_q : mt->n_q)));
	json_object_set_new(root, "n_phi", json_integer((json_int_t)(
	    in != NULL ? in->n_phi : mt->n_phi)));
	json_object_set_new(root, "frames", in != NULL ?
	    json_integer((json_int_t)in->frames) : json_null());
	json_object_set_new(root, "dtype", in != NULL ?
	    json_string(het_dtype_name(in->dtype)) : json_null());
	json_object_set_new(root, "compression", in == NULL ? json_null() :
	    json_string(in->compression == HET_COMPRESS_MIXED ? "mixed" :
	    codec));
	json_object_set_new(root, "dt", cli_inspect_num(in != NULL ? in->dt :
	    NAN));
	json_object_set_new(root, "dt_source", json_string(in != NULL ?
	    in->dt_source : "none: no two-time matrices"));
	json_object_set_new(root, "energy_kev", cli_inspect_num(in != NULL ?
	    in->energy_kev : NAN));
	json_object_set_new(root, "detector_distance_m",
	    cli_inspect_num(in != NULL ? in->distance_m : NAN));
	json_object_set_new(root, "q_values", in != NULL ?
	    cli_inspect_list(in->q_list, in->n_q) :
	    cli_inspect_list(mt->q_list, mt->n_q));
	json_object_set_new(root, "phi_values", in != NULL ?
	    cli_inspect_list(in->phi_list, in->n_phi) :
	    cli_inspect_list(mt->phi_list, mt->n_phi));
	for (k = 0; in != NULL && k < in->nbins; k++)
		json_array_append_new(bins,
		    inspect_json_bin(het_dataset_bin(ds, k)));
	json_object_set_new(root, "bins", bins);
	json_object_set_new(root, "multitau", mt != NULL ?
	    cli_inspect_mt_json(mt) : json_null());
	rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17));
	json_decref(root);
	if (rc == 0 && fputc('\n', stdout) == EOF)
		rc = -1;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Human output */

static void
inspect_symbols(struct inspect_sym *s)
{
	const char *term, *nocolor;
	int fancy;

	if (cli_utf8()) {
		s->inv_a = "\xc3\x85\xe2\x81\xbb\xc2\xb9";
		s->phi = "\xcf\x86";
		s->times = "\xc3\x97";
	} else {
		s->inv_a = "1/A";
		s->phi = "phi";
		s->times = "x";
	}
	term = getenv("TERM");
	nocolor = getenv("NO_COLOR");	/* no-color.org: set and not empty */
	fancy = isatty(STDOUT_FILENO) && (nocolor == NULL ||
	    nocolor[0] == '\0') && term != NULL && strcmp(term, "dumb") != 0;
	s->bold = fancy ? "\033[1m" : "";
	s->dim = fancy ? "\033[2m" : "";
	s->reset = fancy ? "\033[0m" : "";
}

void
cli_inspect_cell(const char *s, int width, int right)
{
	int cols = 0;
	const char *p;

	for (p = s; *p != '\0'; p++)
		if (((unsigned char)*p & 0xc0) != 0x80)
			cols++;
	if (right)
		printf("%*s%s", width > cols ? width - cols : 0, "", s);
	else
		printf("%s%*s", s, width > cols ? width - cols : 0, "");
}

/* "lzf", "gzip (level 6)", "shuffle + gzip", "mixed (lzf, gzip)". */
static void
inspect_codec_summary(const struct het_dataset *ds, char *buf, size_t len)
{
	const struct het_dataset_info *in = het_dataset_info(ds);
	const struct het_bin *b = het_dataset_bin(ds, 0);
	size_t k, used;
	char one[48];
	int seen[HET_COMPRESS_MIXED + 1] = { 0 };

	if (in->compression != HET_COMPRESS_MIXED) {
		inspect_codec(b, one, sizeof(one));
		snprintf(buf, len, "%s%s", b->shuffle ? "shuffle + " : "",
		    one);
		for (k = 1; k < in->nbins; k++)
			if (het_dataset_bin(ds, k)->level != b->level)
				return;
		if (b->compression == HET_COMPRESS_GZIP && b->level >= 0) {
			used = strlen(buf);
			snprintf(buf + used, len - used, " (level %d)",
			    b->level);
		}
		return;
	}
	snprintf(buf, len, "mixed (");
	for (k = 0; k < in->nbins; k++) {
		b = het_dataset_bin(ds, k);
		if (seen[b->compression]++)
			continue;
		inspect_codec(b, one, sizeof(one));
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s",
		    buf[used - 1] == '(' ? "" : ", ", one);
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, ")");
}

void
cli_inspect_key(const struct inspect_sym *s, const char *key)
{
	printf("  %s", s->bold);
	cli_inspect_cell(key, 10, 0);
	printf("%s ", s->reset);
}

static void
inspect_header(const struct het_dataset *ds, const struct inspect_sym *s)
{
	const struct het_dataset_info *in = het_dataset_info(ds);
	const struct het_bin *b0 = het_dataset_bin(ds, 0);
	char codec[128], group[512];
	const char *slash;

	slash = strrchr(b0->dataset, '/');
	snprintf(group, sizeof(group), "%.*s", (int)(slash - b0->dataset),
	    b0->dataset);
	inspect_codec_summary(ds, codec, sizeof(codec));
	cli_inspect_key(s, "file");
	printf("%s\n", in->path);
	cli_inspect_key(s, "layout");
	printf("%s  %s%s%s\n", in->layout == HET_LAYOUT_APSU ? "APS-U" :
	    in->layout == HET_LAYOUT_NPY ? "NumPy .npy" :
	    "legacy APS 8-ID-I", s->dim, group, s->reset);
	cli_inspect_key(s, "bins");
	printf("%zu matri%s on a %zu q %s %zu %s map", in->nbins,
	    in->nbins == 1 ? "x" : "ces", in->n_q, s->times, in->n_phi,
	    s->phi);
	if (in->nbins < in->n_q * in->n_phi)
		printf("  %s(%zu of %zu cells processed)%s", s->dim, in->nbins,
		    in->n_q * in->n_phi, s->reset);
	printf("\n");
	cli_inspect_key(s, "frames");
	printf("%zu %s %zu\n", in->frames, s->times, in->frames);
	cli_inspect_key(s, "storage");
	printf("%s, %s", het_dtype_name(in->dtype), codec);
	if (b0->storage == HET_STORE_CHUNKED)
		printf(", chunks %zu %s %zu", b0->chunk[0], s->times,
		    b0->chunk[1]);
	printf("\n");
	cli_inspect_key(s, "dt");
	if (isfinite(in->dt)) {
		printf("%.6g s  %s%s = %.6g s", in->dt, s->dim, in->dt_source,
		    in->frame_time);
		if (in->stride > 0)
			printf(" %s %ld", s->times, in->stride);
		if (in->avg > 0)
			printf(" %s %ld", s->times, in->avg);
		printf("%s\n", s->reset);
	} else
		printf("unknown  %s%s; set analyzer_parameters.dt in the "
		    "config or use --dt%s\n", s->dim, in->dt_source, s->reset);
	cli_inspect_key(s, "energy");
	if (isfinite(in->energy_kev))
		printf("%.6g keV  %s%s%s\n", in->energy_kev, s->dim,
		    in->energy_source, s->reset);
	else
		printf("not recorded\n");
	cli_inspect_key(s, "distance");
	if (isfinite(in->distance_m) && in->distance_unit != NULL &&
	    strcmp(in->distance_unit, "m") != 0)
		printf("%.6g m (%.6g %s in the file)  %s%s%s\n",
		    in->distance_m, in->distance_raw, in->distance_unit, s->dim,
		    in->distance_source, s->reset);
	else if (isfinite(in->distance_m))
		printf("%.6g m  %s%s%s\n", in->distance_m, s->dim,
		    in->distance_source, s->reset);
	else if (isfinite(in->distance_raw))
		printf("%.6g (unit not recorded)  %s%s%s\n", in->distance_raw,
		    s->dim, in->distance_source, s->reset);
	else
		printf("not recorded\n");
}

void
cli_inspect_bin_head(const struct inspect_sym *s)
{
	char qh[32], ph[32];

	snprintf(qh, sizeof(qh), "q [%s]", s->inv_a);
	snprintf(ph, sizeof(ph), "%s [deg]", s->phi);
	printf("\n  %s", s->bold);
	cli_inspect_cell("index", 5, 1);
	cli_inspect_cell("label", 7, 1);
	cli_inspect_cell(qh, 12, 1);
	cli_inspect_cell(ph, 11, 1);
}

void
cli_inspect_bin_cells(size_t index, long label, double q, double phi)
{
	char cell[64];

	printf("  %5zu%7ld", index, label);
	snprintf(cell, sizeof(cell), fabs(q) < 1 ? "%.8f" : "%.6g", q);
	cli_inspect_cell(cell, 12, 1);
	snprintf(cell, sizeof(cell), "%.2f", phi);
	cli_inspect_cell(cell, 11, 1);
}

static void
inspect_table(const struct het_dataset *ds, const struct inspect_sym *s)
{
	const struct het_dataset_info *in = het_dataset_info(ds);
	const struct het_bin *b;
	char codec[32];
	const char *name;
	size_t k;

	cli_inspect_bin_head(s);
	cli_inspect_cell("frames", 8, 1);
	printf("  ");
	cli_inspect_cell("dtype", 9, 0);
	cli_inspect_cell("compression", 13, 0);
	printf("dataset%s\n", s->reset);
	for (k = 0; k < in->nbins; k++) {
		b = het_dataset_bin(ds, k);
		name = strrchr(b->dataset, '/');
		name = name != NULL ? name + 1 : b->dataset;
		inspect_codec(b, codec, sizeof(codec));
		cli_inspect_bin_cells(b->index, b->label, b->q, b->phi);
		printf("%8zu  ", b->frames);
		cli_inspect_cell(het_dtype_name(b->dtype), 9, 0);
		cli_inspect_cell(codec, 13, 0);
		printf("%s\n", name);
	}
}

static int
inspect_run(const struct cli_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "q", required_argument, NULL, 'q' },
		{ "phi", required_argument, NULL, 'p' },
		{ "dt", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_meta meta;
	struct inspect_sym sym;
	struct het_multitau *mt;
	struct het_dataset *ds;
	struct het_error err, merr;
	int c, json = 0, rc;

	opterr = 0;
	cli_meta_init(&meta);
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'q':
		case 'p':
		case 'd':
			if ((rc = cli_meta_opt(self, c == 'q' ? "q" : c == 'p' ?
			    "phi" : "dt", optarg, &meta)) != 0)
				return rc;
			break;
		case ':':
			return cli_usage_error(self, "%s needs a value",
			    argv[optind - 1]);
		case 'h':
			cli_print_help(self, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_usage_error(self, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error(self, "missing FILE");
	if (argc - optind > 1)
		return cli_usage_error(self, "one FILE at a time ('%s' is "
		    "extra)", argv[optind + 1]);
	het_error_clear(&err);
	het_error_clear(&merr);
	ds = het_dataset_open_meta(argv[optind], &meta.meta, &err);
	mt = het_multitau_read(argv[optind], &merr);
	if (ds == NULL && mt == NULL) {
		het_multitau_why_not(&err, &merr, &err);
		return cli_report(self, &err);
	}
	if (json)
		rc = inspect_json(ds, mt);
	else {
		inspect_symbols(&sym);
		if (ds != NULL) {
			inspect_header(ds, &sym);
			inspect_table(ds, &sym);
		}
		cli_inspect_mt_print(mt, ds == NULL, &merr, &sym);
		rc = 0;
	}
	het_dataset_close(ds);
	het_multitau_free(mt);
	if (rc != 0 || fflush(stdout) == EOF || ferror(stdout)) {
		het_error_set(&err, HET_EIO, "cannot write to standard output");
		return cli_report(self, &err);
	}
	return CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_inspect = {
	"inspect", "describe an XPCS result file",
	"hetui inspect FILE [--json] [--q Q --phi A[,B...] --dt DT]",
	inspect_help, inspect_run
};
