/*
 * het_dataset_npy.c: the .npy layout of the dataset model (het_dataset.h,
 * "What a NumPy .npy file does not hold").
 *
 * A .npy file holds one matrix (N, N) or a stack (M, N, N) and nothing
 * else.  Its bins are its matrices, in order (label k + 1), all on one q
 * ring; q, the angles and dt come from the caller's struct
 * het_dataset_meta, field by field, and what it leaves unset from the
 * sidecar NAME.yaml / NAME.yml / NAME.json beside the file (libyaml reads
 * all three: JSON is YAML).  Matrices are read by het_npy_read windows;
 * triangle, finiteness and diagonal are het_dataset_read.c's, as for HDF5.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "het_dataset.h"
#include "het_dataset_impl.h"
#include "het_npy.h"
#include "het_util.h"

/* At most this many angles are read from a sidecar list. */
#define NPY_MAX_PHI	HET_DS_MAX_BINS

int
het_ds_is_npy_file(const char *path)
{
	unsigned char head[6];
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "rb")) == NULL)
		return 0;
	n = fread(head, 1, sizeof head, fp);
	fclose(fp);
	return het_npy_is_npy(head, n);
}

/* What the sidecar holds (NAN / nphi 0 where it is silent). */
struct sidecar {
	double	 q, dt;
	double	*phi;
	size_t	 nphi;
};

/* The sidecar's name beside path, if one of the three exists. */
static char *
sidecar_path(const char *path, struct het_error *err)
{
	static const char *const ext[] = { ".yaml", ".yml", ".json" };
	size_t len = strlen(path), stem, i;
	char *p;
	FILE *fp;

	stem = het_str_has_suffix(path, ".npy") ? len - 4 : len;
	if ((p = het_alloc_array(stem + 6, 1, "sidecar name", err)) == NULL)
		return NULL;
	for (i = 0; i < HET_ARRAY_LEN(ext); i++) {
		memcpy(p, path, stem);
		strcpy(p + stem, ext[i]);
		if ((fp = fopen(p, "r")) != NULL) {
			fclose(fp);
			return p;
		}
	}
	free(p);
	return NULL;
}

static int
sc_fail(const char *name, const yaml_node_t *n, const char *key,
    const char *what, struct het_error *err)
{
	return het_error_set(err, HET_EFORMAT, "sidecar %s, line %lu: %s%s%s",
	    name, n != NULL ? (unsigned long)n->start_mark.line + 1 : 1UL,
	    key != NULL ? key : "", key != NULL ? ": " : "", what);
}

/* A scalar node as a finite number. */
static int
sc_number(const char *name, const yaml_node_t *n, const char *key,
    double *v, struct het_error *err)
{
	struct het_error e;

	if (n->type != YAML_SCALAR_NODE || het_parse_double((const char *)
	    n->data.scalar.value, key, v, &e) != HET_OK)
		return sc_fail(name, n, key, "not a number", err);
	return HET_OK;
}

/* phi: one number, or a flat list of numbers. */
static int
sc_phi(const char *name, yaml_document_t *doc, const yaml_node_t *n,
    struct sidecar *sc, struct het_error *err)
{
	yaml_node_item_t *it;
	size_t k, cnt;
	int rc;

	cnt = n->type != YAML_SEQUENCE_NODE ? 1 :
	    (size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start);
	if (cnt == 0 || cnt > NPY_MAX_PHI)
		return sc_fail(name, n, "phi", "an empty or overlong list",
		    err);
	free(sc->phi);
	if ((sc->phi = het_alloc_array(cnt, sizeof *sc->phi, "sidecar "
	    "angles", err)) == NULL)
		return HET_ENOMEM;
	sc->nphi = cnt;
	if (n->type != YAML_SEQUENCE_NODE)
		return sc_number(name, n, "phi", &sc->phi[0], err);
	for (k = 0, it = n->data.sequence.items.start; k < cnt; k++, it++)
		if ((rc = sc_number(name, yaml_document_get_node(doc, *it),
		    "phi", &sc->phi[k], err)) != HET_OK)
			return rc;
	return HET_OK;
}

/* One key of the sidecar's mapping. */
static int
sc_pair(const char *name, yaml_document_t *doc, const yaml_node_pair_t *pr,
    struct sidecar *sc, struct het_error *err)
{
	yaml_node_t *k = yaml_document_get_node(doc, pr->key);
	yaml_node_t *v = yaml_document_get_node(doc, pr->value);
	const char *key;

	if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE)
		return sc_fail(name, k, NULL, "a key that is not a name", err);
	key = (const char *)k->data.scalar.value;
	if (strcmp(key, "q") == 0 || strcmp(key, "wavevector_q") == 0)
		return sc_number(name, v, key, &sc->q, err);
	if (strcmp(key, "dt") == 0)
		return sc_number(name, v, key, &sc->dt, err);
	if (strcmp(key, "phi") == 0 || strcmp(key, "phi_angles") == 0)
		return sc_phi(name, doc, v, sc, err);
	if (strcmp(key, "comment") == 0 || strcmp(key, "note") == 0)
		return HET_OK;
	return sc_fail(name, k, key, "not a sidecar key; a sidecar has q, "
	    "phi, dt and, ignored, comment or note", err);
}

/* Read the sidecar file name into sc. */
static int
sc_read(const char *name, struct sidecar *sc, struct het_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *pr;
	FILE *fp;
	int rc = HET_OK;

	if ((fp = fopen(name, "rb")) == NULL)
		return het_error_sys(err, errno, "cannot read sidecar %s",
		    name);
	if (!yaml_parser_initialize(&parser)) {
		fclose(fp);
		return het_error_set(err, HET_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_file(&parser, fp);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = het_error_set(err, HET_EFORMAT, "sidecar %s, line %lu: "
		    "%s", name, (unsigned long)parser.problem_mark.line + 1,
		    parser.problem != NULL ? parser.problem : "cannot parse");
		yaml_parser_delete(&parser);
		fclose(fp);
		return rc;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || root->type != YAML_MAPPING_NODE)
		rc = sc_fail(name, root, NULL, "not a mapping of q, phi and dt",
		    err);
	else
		for (pr = root->data.mapping.pairs.start;
		    rc == HET_OK && pr < root->data.mapping.pairs.top; pr++)
			rc = sc_pair(name, &doc, pr, sc, err);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(fp);
	return rc;
}

/* "sidecar NAME" or the caller's label, for messages and info. */
static const char *
src_name(const struct het_dataset *ds, const struct het_dataset_meta *meta,
    int from_meta, char *buf, size_t len)
{
	if (from_meta)
		snprintf(buf, len, "%s", meta->source != NULL ? meta->source :
		    "the caller");
	else
		snprintf(buf, len, "sidecar %s", ds->sidecar);
	return buf;
}

/* Where q, phi and dt may be given, for the messages of what is missing. */
static int
missing(const struct het_dataset *ds, const char *what, const char *opt,
    const char *key, struct het_error *err)
{
	const char *name = strrchr(ds->path, '/');
	int stem;

	name = name != NULL ? name + 1 : ds->path;
	stem = het_str_has_suffix(name, ".npy") ? (int)strlen(name) - 4 :
	    (int)strlen(name);
	return het_error_set(err, HET_EFORMAT, "a .npy file holds no %s: give "
	    "it with %s, in the configuration (%s), or as %s in a sidecar "
	    "%.*s.yaml beside the file%s", what, opt, key,
	    strcmp(opt, "--q") == 0 ? "q:" : "phi: (a list, one per matrix)",
	    stem, name, ds->sidecar != NULL ? " (the sidecar read has none)" :
	    "");
}

/* q, the angles and dt from meta, else the sidecar; checked. */
static int
resolve(struct het_dataset *ds, const struct het_dataset_meta *meta,
    const struct sidecar *sc, size_t nmat, double *q, const double **phi,
    struct het_error *err)
{
	char src[512];
	int mq = meta != NULL && meta->q > 0, mp = meta != NULL &&
	    meta->nphi > 0, md = meta != NULL && meta->dt > 0;
	size_t nphi, k, j;
	double dt = md ? meta->dt : sc->dt;

	/* The caller's angles name the matrices when they count them;
	   otherwise, next to a sidecar's list, they only select (as a
	   configuration's phi_angles do in an HDF5 file). */
	if (mp && sc->nphi == nmat && meta->nphi != nmat)
		mp = 0;
	nphi = mp ? meta->nphi : sc->nphi;

	*q = mq ? meta->q : sc->q;
	*phi = mp ? meta->phi : sc->phi;
	if (isnan(*q))
		return missing(ds, "q", "--q",
		    "analyzer_parameters.scattering.wavevector_q", err);
	if (!(*q > HET_Q_MIN && *q < HET_Q_MAX))
		return het_error_set(err, HET_EFORMAT, "%s: q %g 1/A is not a "
		    "plausible wavevector (between %g and %g 1/A); give q in "
		    "1/A", src_name(ds, meta, mq, src, sizeof src), *q,
		    HET_Q_MIN, HET_Q_MAX);
	if (nphi == 0)
		return missing(ds, "angle", "--phi", "phi_angles", err);
	if (nphi != nmat)
		return het_error_set(err, HET_EFORMAT, "%s gives %zu angle%s "
		    "for the file's %zu matri%s; give one angle per matrix",
		    src_name(ds, meta, mp, src, sizeof src), nphi,
		    nphi == 1 ? "" : "s", nmat, nmat == 1 ? "x" : "ces");
	for (k = 0; k < nphi; k++) {
		if (!(fabs((*phi)[k]) <= HET_PHI_MAX))
			return het_error_set(err, HET_EFORMAT, "%s: angle %zu "
			    "(%g) is not a plausible angle in degrees (within "
			    "+-%g)", src_name(ds, meta, mp, src, sizeof src), k,
			    (*phi)[k], HET_PHI_MAX);
		src_name(ds, meta, mp, src, sizeof src);
		for (j = 0; j < k; j++)
			if ((*phi)[j] == (*phi)[k])
				return het_error_set(err, HET_EFORMAT, "%s: "
				    "angle %zu (%g degrees) repeats angle %zu; "
				    "each matrix is one angle", src, k,
				    (*phi)[k], j);
	}
	if (isnan(dt))
		return (ds->dt_source = het_strdup("none", err)) == NULL ?
		    HET_ENOMEM : HET_OK;
	if (!(dt >= HET_DT_MIN && dt <= HET_DT_MAX))
		return het_error_set(err, HET_EFORMAT, "%s: dt %g s is not a "
		    "plausible frame time (%g to %g s)", src_name(ds, meta,
		    md, src, sizeof src), dt, HET_DT_MIN, HET_DT_MAX);
	ds->info.dt = dt;
	ds->info.frame_time = dt;
	src_name(ds, meta, md, src, sizeof src);
	k = strlen(src);
	snprintf(src + k, sizeof src - k, ": dt");
	return (ds->dt_source = het_strdup(src, err)) == NULL ? HET_ENOMEM :
	    HET_OK;
}

/* The bins and lists of M matrices of side N on one q ring. */
static int
make_bins(struct het_dataset *ds, const struct het_npy_hdr *h, double q,
    const double *phi, struct het_error *err)
{
	char name[32];
	size_t k;
	int rc;

	if ((rc = het_ds_alloc_bins(ds, h->nmat, err)) != HET_OK ||
	    (ds->q_list = het_alloc_array(1, sizeof *ds->q_list, "q list",
	    err)) == NULL || (ds->phi_list = het_alloc_array(h->nmat,
	    sizeof *ds->phi_list, "phi list", err)) == NULL)
		return HET_ENOMEM;
	ds->q_list[0] = q;
	for (k = 0; k < h->nmat; k++) {
		struct het_bin *b = &ds->bins[k];

		snprintf(name, sizeof name, "[%zu]", k);
		if ((rc = het_ds_set_name(ds, k, "npy", name, err)) != HET_OK)
			return rc;
		ds->phi_list[k] = phi[k];
		b->label = (long)k + 1;
		b->q_idx = 0;
		b->phi_idx = k;
		b->q = q;
		b->phi = phi[k];
		b->frames = h->n;
		b->dtype = h->f32 ? HET_DTYPE_F32 : HET_DTYPE_F64;
		b->compression = HET_COMPRESS_NONE;
		b->storage = HET_STORE_CONTIGUOUS;
	}
	ds->info.layout = HET_LAYOUT_NPY;
	ds->info.dt_source = ds->dt_source;
	ds->info.n_q = 1;
	ds->info.n_phi = h->nmat;
	ds->info.frames = h->n;
	ds->info.dtype = ds->bins[0].dtype;
	ds->info.compression = HET_COMPRESS_NONE;
	return HET_OK;
}

int
het_ds_load_npy(struct het_dataset *ds, const struct het_dataset_meta *meta,
    struct het_error *err)
{
	struct sidecar sc = { NAN, NAN, NULL, 0 };
	const struct het_npy_hdr *h;
	const double *phi;
	double q;
	int rc;

	if ((ds->npy = het_npy_open(ds->path, err)) == NULL)
		return err->code;
	h = het_npy_header(ds->npy);
	if (meta == NULL || meta->q <= 0 || meta->nphi == 0 || meta->dt <= 0) {
		het_error_clear(err);
		ds->sidecar = sidecar_path(ds->path, err);
		if (ds->sidecar == NULL && err->code != HET_OK)
			return err->code;
		if (ds->sidecar != NULL &&
		    (rc = sc_read(ds->sidecar, &sc, err)) != HET_OK)
			goto out;
	}
	if ((rc = resolve(ds, meta, &sc, h->nmat, &q, &phi, err)) == HET_OK)
		rc = make_bins(ds, h, q, phi, err);
out:
	free(sc.phi);
	return rc;
}

int
het_ds_read_npy(struct het_dataset *ds, const struct het_bin *b, size_t f0,
    size_t n, double *out, struct het_error *err)
{
	return het_npy_read(ds->npy, b->index, f0, n, out, err);
}
