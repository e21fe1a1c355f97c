/*
 * het_results_load_cmc.c: reading the finished shards of a previous CMC
 * run back from hetui_results.h5 (het_results_load_cmc), so that `hetui
 * sample --resume DIR` samples only the shards that did not finish.
 *
 * Design: the file is the one het_results_cmc.c writes (its layout is
 * described there).  The shard table /cmc/shards says which shards were
 * done; each such shard's group gives back exactly what a worker
 * returned (draws, per-chain BFMI, divergences, step size, acceptance)
 * plus the wall time and the digest of its inputs.  The summaries are
 * not read but recomputed from the draws with the worker's own code
 * (het_shard_result_summarise): float64 draws survive HDF5 exactly, so
 * a resumed run combines exactly what an uninterrupted one would.  The
 * caller decides whether a shard may be reused by comparing digests;
 * this file only reads and checks shapes, naming file and path in every
 * error.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "het_h5_impl.h"
#include "het_results.h"
#include "het_results_impl.h"
#include "het_util.h"

void
het_results_prev_cmc_clear(struct het_results_prev_cmc *c)
{
	size_t k;

	if (c == NULL)
		return;
	for (k = 0; c->shard != NULL && k < c->n; k++)
		het_shard_result_clear(&c->shard[k].res);
	free(c->shard);
	free(c->source);
	memset(c, 0, sizeof(*c));
}

/* A vector of exactly n numbers at path. */
static int
lc_vector(hid_t fid, const char *file, const char *path, size_t n,
    double **out, struct het_error *err)
{
	size_t got = 0;
	int rc;

	*out = NULL;
	rc = het_h5_read_vector(fid, path, n, out, &got, err);
	if (rc == HET_OK && got == n)
		return HET_OK;
	free(*out);
	*out = NULL;
	if (rc == HET_ENOMEM)
		return rc;
	return het_error_set(err, HET_EFORMAT, "%s: %s %s", file, path,
	    rc == HET_ENOTFOUND ? "is missing" : rc != HET_OK ? "is not a "
	    "vector of numbers of the expected length" : "has the wrong "
	    "length");
}

/* A numeric attribute that must be a positive integer. */
static int
lc_count(hid_t fid, const char *file, const char *g, const char *name,
    size_t *out, struct het_error *err)
{
	double v = het_rl_attr(fid, g, name);

	if (!isfinite(v) || v < 1 || v > 1e9 || v != floor(v))
		return het_error_set(err, HET_EFORMAT, "%s: %s lacks a valid "
		    "attribute %s (a positive integer)", file, g, name);
	*out = (size_t)v;
	return HET_OK;
}

/* Read the (rows x cols) matrix at path into v (rows * cols doubles). */
static int
lc_matrix(hid_t fid, const char *file, const char *path, size_t rows,
    size_t cols, double *v, struct het_error *err)
{
	hid_t ds = -1, sp = -1;
	hsize_t dim[2] = { 0, 0 };
	size_t k;
	int rc = HET_OK;

	if (H5Lexists(fid, path, H5P_DEFAULT) <= 0)
		return het_error_set(err, HET_EFORMAT, "%s: %s is missing",
		    file, path);
	if ((ds = H5Dopen2(fid, path, H5P_DEFAULT)) < 0 ||
	    (sp = H5Dget_space(ds)) < 0 ||
	    H5Sget_simple_extent_ndims(sp) != 2 ||
	    H5Sget_simple_extent_dims(sp, dim, NULL) < 0 ||
	    dim[0] != rows || dim[1] != cols)
		rc = het_error_set(err, HET_EFORMAT, "%s: %s is not a %zu x "
		    "%zu matrix (n_chains x p rows of n_draws)", file, path,
		    rows, cols);
	else if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
	    H5P_DEFAULT, v) < 0)
		rc = het_error_set(err, HET_EFORMAT, "%s: cannot read %s",
		    file, path);
	for (k = 0; rc == HET_OK && k < rows * cols; k++)
		if (!isfinite(v[k]))
			rc = het_error_set(err, HET_EFORMAT, "%s: %s holds a "
			    "non-finite draw (row %zu, column %zu)", file,
			    path, k / cols, k % cols);
	if (sp >= 0)
		H5Sclose(sp);
	if (ds >= 0)
		H5Dclose(ds);
	return rc;
}

/*
 * Copy n doubles into a per-chain array, or as counts into li (which
 * must then be whole numbers in [0, 1e15]: -1 otherwise).
 */
static int
lc_copy(const double *v, size_t n, double *d, long *li)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (d != NULL)
			d[k] = v[k];
		else if (v[k] >= 0 && v[k] <= 1e15 && v[k] == floor(v[k]))
			li[k] = (long)v[k];
		else
			return -1;
	}
	return 0;
}

/* The per-chain vectors of shard group g into res. */
static int
lc_chains(hid_t fid, const char *file, const char *g,
    struct het_shard_result *res, struct het_error *err)
{
	static const char *const nm[4] = { "bfmi", "divergences",
	    "step_size", "accept" };
	char path[RS_PATH_MAX];
	double *v;
	int rc = HET_OK, i;

	for (i = 0; rc == HET_OK && i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", g, nm[i]);
		if ((rc = lc_vector(fid, file, path, res->nchain, &v, err)) !=
		    HET_OK)
			break;
		if (lc_copy(v, res->nchain, i == 0 ? res->bfmi : i == 2 ?
		    res->step_size : i == 3 ? res->accept : NULL,
		    i == 1 ? res->divergences : NULL) != 0)
			rc = het_error_set(err, HET_EFORMAT, "%s: %s holds a "
			    "value that is not a count", file, path);
		free(v);
	}
	return rc;
}

/* One finished shard: group /cmc/shard_NNNN of shard id. */
static int
lc_shard(hid_t fid, const char *file, char *const *names, size_t p,
    struct het_results_prev_shard *ps, struct het_error *err)
{
	struct het_shard_result *res = &ps->res;
	char g[64], path[RS_PATH_MAX], mname[16];
	size_t nchain, ndraw, m;
	double anc;
	int rc;

	snprintf(g, sizeof(g), "/cmc/shard_%04ld", ps->id);
	if (H5Lexists(fid, g, H5P_DEFAULT) <= 0)
		return het_error_set(err, HET_EFORMAT, "%s: /cmc/shards says "
		    "shard %ld is done but %s is missing", file, ps->id, g);
	if ((rc = lc_count(fid, file, g, "n_chains", &nchain, err)) ||
	    (rc = lc_count(fid, file, g, "n_draws", &ndraw, err)))
		return rc;
	if (nchain > 100000 || (double)nchain * (double)p * (double)ndraw >
	    1e10)
		return het_error_set(err, HET_EFORMAT, "%s: %s claims %zu "
		    "chains of %zu draws of %zu parameters, more than a "
		    "shard can hold", file, g, nchain, ndraw, p);
	if ((rc = het_shard_result_alloc(res, p, nchain, ndraw, err)))
		return rc;
	for (m = 0; m < p; m++)
		if ((res->names[m] = het_strdup(names[m], err)) == NULL)
			return HET_ENOMEM;
	snprintf(path, sizeof(path), "%s/draws", g);
	if ((rc = lc_matrix(fid, file, path, nchain * p, ndraw, res->draws,
	    err)) || (rc = lc_chains(fid, file, g, res, err)))
		return rc;
	res->wall_time = het_rl_attr(fid, g, "wall_time");
	/* absent in files of hetui before the Laplace start */
	res->laplace = het_rl_attr(fid, g, "laplace_used") == 1;
	res->laplace_khat = het_rl_attr(fid, g, "laplace_khat");
	res->laplace_ess = het_rl_attr(fid, g, "laplace_ess");
	/* absent in files of hetui before the anchors: none */
	anc = het_rl_attr(fid, g, "anchors");
	res->anchors = anc >= 1 && anc <= 7 ? (unsigned)anc : 0;
	/* absent in files of hetui before the marginal: off */
	res->marginal = HET_MARG_OFF;
	if (het_h5_attr_string(fid, g, "marginal_scaling", mname,
	    sizeof(mname)) == 0)
		for (m = 0; m < HET_MARG_COUNT; m++)
			if (strcmp(mname, het_post_marg_name((int)m)) == 0)
				res->marginal = (int)m;
	het_h5_attr_string(fid, g, "input_digest", ps->digest,
	    sizeof(ps->digest));
	if ((rc = het_shard_result_summarise(res, err)) != HET_OK)
		return het_error_prefix(err, "%s: %s", file, g);
	return HET_OK;
}

/* The shard table: ids, sizes and states of the K shards. */
static int
lc_table(hid_t fid, const char *file, double **id, double **np,
    char ***state, size_t *K, struct het_error *err)
{
	size_t ns = 0;
	int rc;

	*id = *np = NULL;
	*state = NULL;
	if ((rc = het_rl_strings(fid, file, "/cmc/shards/state", "", state, &ns,
	    err)) != HET_OK)
		return rc;
	*K = ns;
	if (ns == 0)
		return het_error_set(err, HET_EFORMAT, "%s: /cmc/shards is "
		    "empty", file);
	if ((rc = lc_vector(fid, file, "/cmc/shards/id", ns, id, err)) ||
	    (rc = lc_vector(fid, file, "/cmc/shards/n_pairs", ns, np, err)))
		return rc;
	return HET_OK;
}

/* Everything of the file: the table, then every done shard. */
static int
lc_file(hid_t fid, struct het_results_prev_cmc *out, struct het_error *err)
{
	const char *file = out->source;
	char **names = NULL, **state = NULL;
	double *id = NULL, *np = NULL;
	size_t p = 0, K = 0, k;
	int rc;

	if (H5Lexists(fid, "/cmc", H5P_DEFAULT) <= 0)
		return het_error_set(err, HET_EFORMAT, "%s has no /cmc group: "
		    "it holds no CMC run (an NLSQ result of 'hetui fit'?); "
		    "leave out --resume, or use --nlsq-result to start CMC "
		    "from it", file);
	if ((rc = het_rl_strings(fid, file, "/cmc/parameter_names", "", &names,
	    &p, err)) || (rc = lc_table(fid, file, &id, &np, &state, &K,
	    err)))
		goto out;
	out->nshards = K;
	if ((out->shard = het_alloc_array(K, sizeof(*out->shard), "shards",
	    err)) == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	memset(out->shard, 0, K * sizeof(*out->shard));
	for (k = 0; k < K && rc == HET_OK; k++) {
		struct het_results_prev_shard *ps = &out->shard[out->n];

		if (strcmp(state[k], "done") != 0)
			continue;
		if (!(id[k] >= 0 && id[k] < 1e9 && np[k] >= 0)) {
			rc = het_error_set(err, HET_EFORMAT, "%s: "
			    "/cmc/shards/id[%zu] is not a shard id", file, k);
			break;
		}
		ps->id = (long)id[k];
		ps->npairs = (size_t)np[k];
		out->n++;
		rc = lc_shard(fid, file, names, p, ps, err);
	}
out:
	het_rl_strings_free(names, p);
	het_rl_strings_free(state, K);
	free(id);
	free(np);
	return rc;
}

int
het_results_load_cmc(const char *dir, struct het_results_prev_cmc *out,
    struct het_error *err)
{
	hid_t fid;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = het_h5_prepare(err)) != HET_OK)
		return rc;
	if ((out->source = het_results_resume_path(dir, err)) == NULL)
		return HET_ENOMEM;
	if (access(out->source, F_OK) != 0) {
		rc = het_error_set(err, HET_ENOTFOUND, "%s does not exist, "
		    "nor %s beside it: a run writes its checkpoint once a "
		    "shard has finished, and its results when it ends; leave "
		    "out --resume to start afresh", out->source,
		    HET_RESULTS_CHECKPOINT);
		het_results_prev_cmc_clear(out);
		return rc;
	}
	if ((fid = H5Fopen(out->source, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
		rc = het_error_set(err, HET_EFORMAT, "%s is not an HDF5 file "
		    "that can be opened", out->source);
		het_results_prev_cmc_clear(out);
		return rc;
	}
	rc = lc_file(fid, out, err);
	H5Fclose(fid);
	if (rc != HET_OK)
		het_results_prev_cmc_clear(out);
	return rc;
}
