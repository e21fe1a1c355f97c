/*
 * het_results.c: writing the results of an NLSQ fit: the two
 * reference-compatible JSON files per fit (jansson, keys in the
 * reference's order) and the orchestration of the atomic commit; the
 * HDF5 file is in het_results_h5.c.
 *
 * Design: every output is first written completely to a temporary name
 * (het_tmp_path); only when all are complete are they renamed, so a
 * failure anywhere leaves the previous results untouched and no
 * temporary file behind.  A fit's free parameters are mapped back to the
 * problem's joint layout by name (het_rs_view_init), so joint and per-angle
 * fits are listed the same way.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "het_results_impl.h"
#include "het_util.h"

/* ---- the view of one fit ------------------------------------------------- */

void
het_rs_view_fini(struct rs_view *v)
{
	free(v->xj);
	free(v->contrast);
	free(v->offset);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

/* Does scaling parameter k touch angle a? */
static int
rs_touches(const struct het_scaling *sc, size_t k, size_t a)
{
	struct het_scaling_row c, o;
	size_t i;

	het_scaling_rows(sc, a, &c, &o);
	for (i = 0; i < c.n; i++)
		if (c.idx[i] == k)
			return 1;
	for (i = 0; i < o.n; i++)
		if (o.idx[i] == k)
			return 1;
	return 0;
}

int
het_rs_view_init(const struct het_results *res, size_t k, struct rs_view *v,
    struct het_error *err)
{
	const struct het_problem *pb = res->pb;
	const struct het_results_fit *f = &res->fits[k];
	const struct het_param_def *tab;
	double theta[HET_MAX_PHYS], theta0[HET_MAX_PHYS], *s = NULL,
	    *s0 = NULL, *x0j = NULL, *uj = NULL;
	unsigned char *dj = NULL;
	unsigned char *fj = NULL;
	size_t i, c, ntab;
	long col;
	int rc = HET_ENOMEM;

	memset(v, 0, sizeof(*v));
	v->fit = f;
	if (res->per_angle && (f->angle < 0 ||
	    (size_t)f->angle >= pb->nangles))
		return het_error_set(err, HET_EINVAL, "per-angle fit %zu has "
		    "angle %ld; the problem has %zu angles", k, f->angle,
		    pb->nangles);
	v->first_angle = res->per_angle ? (size_t)f->angle : 0;
	v->nangles = res->per_angle ? 1 : pb->nangles;
	v->xj = het_alloc_array(pb->p, sizeof(double), "results", err);
	x0j = het_alloc_array(pb->p, sizeof(double), "results", err);
	uj = het_alloc_array(pb->p, sizeof(double), "results", err);
	fj = het_alloc_array(pb->p, 1, "results", err);
	dj = het_alloc_array(pb->p, 1, "results", err);
	s = het_alloc_array(pb->nscal, sizeof(double), "results", err);
	s0 = het_alloc_array(pb->nscal, sizeof(double), "results", err);
	v->contrast = het_alloc_array(pb->nangles, sizeof(double), "results",
	    err);
	v->offset = het_alloc_array(pb->nangles, sizeof(double), "results",
	    err);
	v->rows = het_alloc_array(pb->nphys + pb->nscal, sizeof(*v->rows),
	    "results", err);
	if (v->xj == NULL || x0j == NULL || uj == NULL || fj == NULL ||
	    dj == NULL || s == NULL || s0 == NULL || v->contrast == NULL ||
	    v->offset == NULL || v->rows == NULL)
		goto out;
	memcpy(v->xj, pb->x0, pb->p * sizeof(double));
	memcpy(x0j, pb->x0, pb->p * sizeof(double));
	for (c = 0; c < pb->p; c++)
		uj[c] = NAN;
	for (i = 0; i < f->p; i++) {
		for (c = 0; c < pb->p; c++)
			if (strcmp(f->names[i], het_resid_param_name(pb->resid,
			    c)) == 0)
				break;
		if (c == pb->p) {
			rc = het_error_set(err, HET_EINVAL, "fit %zu names a "
			    "parameter '%s' that the problem does not have", k,
			    f->names[i]);
			goto out;
		}
		v->xj[c] = f->x[i];
		x0j[c] = f->x0[i];
		uj[c] = f->unc != NULL ? f->unc[i] : NAN;
		dj[c] = f->degen != NULL && f->degen[i];
		fj[c] = 1;
	}
	het_resid_unpack(pb->resid, v->xj, theta, s);
	het_resid_unpack(pb->resid, x0j, theta0, s0);
	het_scaling_map(pb->scaling, s, v->contrast, v->offset);
	tab = het_params_table(het_mode_family(pb->spec.mode), &ntab);
	for (i = 0; i < pb->nphys; i++) {
		struct rs_row *r = &v->rows[v->nrows++];

		col = het_resid_phys_col(pb->resid, i);
		r->name = tab[i].name;
		r->unit = tab[i].unit;
		r->value = theta[i];
		r->start = theta0[i];
		r->vary = col >= 0 && fj[col];
		r->unc = r->vary ? uj[col] : NAN;
		r->degen = r->vary && dj[col];
		r->lo = pb->phys_lo[i];
		r->hi = pb->phys_hi[i];
	}
	for (i = 0; i < pb->nscal; i++) {
		struct rs_row *r;

		if (res->per_angle && !rs_touches(pb->scaling, i,
		    v->first_angle))
			continue;
		r = &v->rows[v->nrows++];
		col = het_resid_scal_col(pb->resid, i);
		r->name = het_scaling_param_name(pb->scaling, i);
		r->unit = "";
		r->value = s[i];
		r->start = s0[i];
		r->vary = col >= 0 && fj[col];
		r->unc = r->vary ? uj[col] : NAN;
		r->degen = r->vary && dj[col];
		het_scaling_param_bounds(pb->scaling, i, &r->lo, &r->hi);
	}
	rc = HET_OK;
out:
	free(x0j);
	free(uj);
	free(fj);
	free(dj);
	free(s);
	free(s0);
	if (rc != HET_OK)
		het_rs_view_fini(v);
	return rc;
}

/* ---- JSON ---------------------------------------------------------------- */

void
het_results_json_prefix(const struct het_results *res, size_t k, char *buf,
    size_t len)
{
	const struct het_problem *pb = res->pb;
	long a, b;
	size_t j;

	if (!res->per_angle || res->nfits <= 1) {
		snprintf(buf, len, "nlsq");
		return;
	}
	a = res->fits[k].angle;
	/* the reference's int(phi): truncation toward zero */
	for (j = 0; j < k; j++) {
		b = res->fits[j].angle;
		if ((long)pb->phi[b] == (long)pb->phi[a])
			break;
	}
	if (j < k)
		snprintf(buf, len, "nlsq_phi%ld_%ld", (long)pb->phi[a],
		    pb->labels[a]);
	else
		snprintf(buf, len, "nlsq_phi%ld", (long)pb->phi[a]);
}

/* A number, or null when it is not finite (the reference cannot). */
json_t *
het_rs_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *
het_rs_nums(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; a != NULL && k < n; k++)
		json_array_append_new(a, het_rs_num(v[k]));
	return a;
}

static json_t *
rs_json_parameters(const struct het_results_fit *f, const char *stamp)
{
	json_t *o = json_object(), *names = json_array();
	size_t k;

	for (k = 0; names != NULL && k < f->p; k++)
		json_array_append_new(names, json_string(f->names[k]));
	json_object_set_new(o, "parameters", het_rs_nums(f->x, f->p));
	json_object_set_new(o, "uncertainties", f->unc != NULL ?
	    het_rs_nums(f->unc, f->p) : json_null());
	json_object_set_new(o, "parameter_names", names);
	json_object_set_new(o, "timestamp", json_string(stamp));
	return o;
}

/* The names of the degenerate parameters of a fit. */
static json_t *
rs_json_degen(const struct het_results_fit *f)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; a != NULL && f->degen != NULL && k < f->p; k++)
		if (f->degen[k])
			json_array_append_new(a, json_string(f->names[k]));
	return a;
}

/* Its identifiable combinations: [{expression, value, uncertainty}]. */
static json_t *
rs_json_combos(const struct het_results_fit *f)
{
	json_t *a = json_array(), *o;
	size_t k;

	for (k = 0; a != NULL && k < f->ncombos; k++) {
		o = json_object();
		json_object_set_new(o, "expression",
		    json_string(f->combos[k].expr));
		json_object_set_new(o, "value", het_rs_num(f->combos[k].value));
		json_object_set_new(o, "uncertainty",
		    het_rs_num(f->combos[k].unc));
		json_array_append_new(a, o);
	}
	return a;
}

/* The table of starts (the full vectors are in the HDF5 file). */
static json_t *
rs_json_starts(const struct het_results_fit *f)
{
	json_t *a = json_array(), *o;
	size_t k;

	for (k = 0; a != NULL && k < f->nstarts; k++) {
		const struct het_results_start *s = &f->starts[k];

		if ((o = json_object()) == NULL)
			break;
		json_object_set_new(o, "cost", het_rs_num(s->cost));
		json_object_set_new(o, "reduced_chi_squared",
		    het_rs_num(s->chi2_red));
		json_object_set_new(o, "n_iterations",
		    json_integer(s->iterations));
		json_object_set_new(o, "convergence_reason",
		    json_string(s->reason != NULL ? s->reason : ""));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
rs_json_metadata(const struct het_results *res, size_t k)
{
	const struct het_problem *pb = res->pb;
	const struct het_results_fit *f = &res->fits[k];
	json_t *o = json_object(), *m = json_object();

	json_object_set_new(o, "success", f->converged < 0 ? json_null() :
	    json_boolean(f->converged));
	json_object_set_new(o, "message", json_string(f->message != NULL ?
	    f->message : ""));
	json_object_set_new(o, "n_iterations", json_integer(f->iterations));
	json_object_set_new(o, "n_function_evals", json_integer(f->nfev));
	json_object_set_new(o, "final_cost", het_rs_num(f->cost));
	json_object_set_new(o, "reduced_chi_squared", het_rs_num(f->chi2_red));
	json_object_set_new(o, "convergence_reason", json_string(f->reason !=
	    NULL ? f->reason : ""));
	json_object_set_new(o, "wall_time_seconds", het_rs_num(f->wall_time));
	json_object_set_new(m, "phi_angle", f->angle >= 0 ?
	    het_rs_num(pb->phi[f->angle]) : het_rs_nums(pb->phi, pb->nangles));
	json_object_set_new(m, "optimizer", json_string(res->optimizer));
	json_object_set_new(m, "fallback_occurred", json_false());
	json_object_set_new(m, "wall_time_total", het_rs_num(res->wall_time));
	json_object_set_new(m, "fit", json_string(res->per_angle ?
	    "per_angle" : "joint"));
	json_object_set_new(m, "analysis_mode",
	    json_string(het_mode_name(pb->spec.mode)));
	json_object_set_new(m, "per_angle_mode",
	    json_string(het_scaling_mode_name(pb->scaling_mode)));
	json_object_set_new(m, "q", het_rs_num(pb->q));
	json_object_set_new(m, "dt", het_rs_num(pb->dt));
	json_object_set_new(m, "start_frame", json_integer(pb->first_frame));
	json_object_set_new(m, "end_frame", json_integer(pb->last_frame));
	json_object_set_new(m, "n_data", json_integer((json_int_t)(
	    f->angle >= 0 ? pb->pair_first[f->angle + 1] -
	    pb->pair_first[f->angle] : pb->npairs)));
	json_object_set_new(m, "dof", json_integer(f->dof));
	json_object_set_new(m, "chi_squared", het_rs_num(f->chi2));
	json_object_set_new(m, "noise_sigma", het_rs_num(f->sigma));
	json_object_set_new(m, "uncertainties_computed",
	    json_boolean(!f->unc_skipped));
	json_object_set_new(m, "degenerate", rs_json_degen(f));
	json_object_set_new(m, "combinations", rs_json_combos(f));
	json_object_set_new(m, "status", json_string(res->status));
	json_object_set_new(m, "starts", rs_json_starts(f));
	json_object_set_new(m, "best_start", json_integer((json_int_t)
	    f->best));
	json_object_set_new(m, "results_file", json_string(HET_RESULTS_H5));
	json_object_set_new(m, "creator", json_string(res->creator != NULL ?
	    res->creator : "hetui"));
	json_object_set_new(o, "metadata", m);
	return o;
}

/* Write a JSON document to path (a temporary name). */
int
het_rs_json_write(const char *path, json_t *doc, struct het_error *err)
{
	char *text;
	FILE *fp;
	size_t len;
	int rc = HET_OK;

	if (doc == NULL || (text = json_dumps(doc, JSON_INDENT(2) |
	    JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory while "
		    "formatting %s", path);
	if ((fp = fopen(path, "w")) == NULL)
		rc = het_error_sys(err, errno, "cannot create %s", path);
	else {
		len = strlen(text);
		if (fwrite(text, 1, len, fp) != len ||
		    fwrite("\n", 1, 1, fp) != 1)
			rc = het_error_sys(err, errno, "cannot write %s",
			    path);
		if (fclose(fp) != 0 && rc == HET_OK)
			rc = het_error_sys(err, errno, "cannot write %s",
			    path);
	}
	free(text);
	return rc;
}

/* ---- orchestration ------------------------------------------------------- */

/* Local time like Python's datetime.now().isoformat(). */
static void
rs_now(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char base[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ld", base, (long)tv.tv_usec);
}

static int
rs_check(const struct het_results *res, struct het_error *err)
{
	size_t k;

	if (res == NULL || res->cfg == NULL || res->pb == NULL ||
	    res->fits == NULL || res->nfits == 0)
		return het_error_set(err, HET_EINVAL, "results: the config, "
		    "the problem and at least one fit are required");
	if (!res->per_angle && res->nfits != 1)
		return het_error_set(err, HET_EINVAL, "results: a joint fit "
		    "has one result, not %zu", res->nfits);
	for (k = 0; k < res->nfits; k++) {
		const struct het_results_fit *f = &res->fits[k];

		if (f->p > 0 && (f->names == NULL || f->x == NULL ||
		    f->x0 == NULL))
			return het_error_set(err, HET_EINVAL, "results: fit "
			    "%zu lacks names, values or start values", k);
		if (f->nstarts > 0 && f->starts == NULL)
			return het_error_set(err, HET_EINVAL, "results: fit "
			    "%zu announces %zu starts but gives none", k,
			    f->nstarts);
	}
	return HET_OK;
}

int
het_rs_prepare(const char *dir, const struct het_results *res, char *stamp,
    size_t len, struct het_error *err)
{
	int rc;

	if ((rc = rs_check(res, err)) != HET_OK ||
	    (rc = het_mkdirs(dir, "output directory", err)) != HET_OK)
		return rc;
	if (res->timestamp != NULL)
		snprintf(stamp, len, "%s", res->timestamp);
	else
		rs_now(stamp, len);
	return HET_OK;
}

/*
 * The files of a write, in order: the HDF5 file, two JSON files per fit
 * (unless no_nlsq_json), the two CMC files (with cmc).  kind: 0 HDF5,
 * 1 parameters of fit, 2 metadata of fit, 3 cmc_summary,
 * 4 cmc_diagnostics.
 */
static size_t
rs_files(const struct het_results *res, size_t i, int *kind, size_t *fit)
{
	size_t nj = res->no_nlsq_json ? 0 : 2 * res->nfits;

	if (kind == NULL)
		return 1 + nj + (res->cmc != NULL ? 2 : 0);
	*fit = 0;
	if (i == 0)
		*kind = 0;
	else if (i <= nj) {
		*kind = 1 + (int)((i - 1) % 2);
		*fit = (i - 1) / 2;
	} else
		*kind = 3 + (int)(i - 1 - nj);
	return 0;
}

int
het_results_write(const char *dir, const struct het_results *res,
    struct het_error *err)
{
	char stamp[64], prefix[64], name[96];
	char **final = NULL, **tmp = NULL;
	unsigned char *made = NULL;
	size_t nfile, k, i, len;
	int rc, kind;

	if ((rc = het_rs_prepare(dir, res, stamp, sizeof(stamp),
	    err)) != HET_OK)
		return rc;
	nfile = rs_files(res, 0, NULL, NULL);
	final = het_alloc_array(nfile, sizeof(char *), "file names", err);
	tmp = het_alloc_array(nfile, sizeof(char *), "file names", err);
	made = het_alloc_array(nfile, 1, "file names", err);
	if (final == NULL || tmp == NULL || made == NULL) {
		rc = HET_ENOMEM;
		goto out;
	}
	for (i = 0; i < nfile; i++) {
		rs_files(res, i, &kind, &k);
		if (kind == 0)
			snprintf(name, sizeof(name), "%s", HET_RESULTS_H5);
		else if (kind <= 2) {
			het_results_json_prefix(res, k, prefix,
			    sizeof(prefix));
			snprintf(name, sizeof(name), "%s_%s.json", prefix,
			    kind == 1 ? "parameters" : "metadata");
		} else
			snprintf(name, sizeof(name), "%s", kind == 3 ?
			    HET_RESULTS_CMC_SUMMARY :
			    HET_RESULTS_CMC_DIAGNOSTICS);
		len = strlen(dir) + strlen(name) + 2;
		if ((final[i] = het_alloc_array(len, 1, "file name", err)) ==
		    NULL || (snprintf(final[i], len, "%s/%s", dir, name),
		    tmp[i] = het_tmp_path(final[i], err)) == NULL) {
			rc = HET_ENOMEM;
			goto out;
		}
	}
	made[0] = 1;
	if ((rc = het_rs_h5_write(tmp[0], res, stamp, 0, err)) != HET_OK)
		goto out;
	for (i = 1; i < nfile; i++) {
		json_t *doc;

		rs_files(res, i, &kind, &k);
		switch (kind) {
		case 1:
			doc = rs_json_parameters(&res->fits[k], stamp);
			break;
		case 2:
			doc = rs_json_metadata(res, k);
			break;
		case 3:
			doc = het_rs_json_cmc_summary(res->cmc, stamp);
			break;
		default:
			doc = het_rs_json_cmc_diagnostics(res->cmc);
			break;
		}
		made[i] = 1;
		rc = het_rs_json_write(tmp[i], doc, err);
		json_decref(doc);
		if (rc != HET_OK)
			goto out;
	}
	/* All on disk before any is renamed: no mixed set after a failure. */
	for (i = 0; i < nfile; i++)
		if ((rc = het_sync_tmp(tmp[i], final[i], err)) != HET_OK)
			goto out;
	for (i = 0; i < nfile; i++) {
		if ((rc = het_rename_tmp(tmp[i], final[i], err)) != HET_OK)
			goto out;
		made[i] = 0;
	}
out:
	for (i = 0; made != NULL && i < nfile; i++)
		if (made[i] && tmp[i] != NULL)
			unlink(tmp[i]);
	for (i = 0; i < nfile && final != NULL; i++) {
		free(final[i]);
		free(tmp[i]);
	}
	free(final);
	free(tmp);
	free(made);
	return rc;
}
