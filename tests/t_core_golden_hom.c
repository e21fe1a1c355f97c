/*
 * t_core_golden_hom.c: the homodyne kernels against reference matrices.
 *
 * tests/golden/homodyne_c2.h5 holds 13 cases (static and laminar_flow,
 * typical, template-scale, floored, perpendicular-flow, strong-shear and
 * random parameters), each with the full N x N matrix c2 = offset +
 * contrast g computed by an independent implementation that agrees with
 * the homodyne package to 1e-15 (homodyne-spec.md §9).  Every case must
 * match to 1e-12 absolute: the upper triangle through
 * het_model_eval_pairs, the diagonal and the lower triangle through
 * het_model_eval_g.  The file is read with the HDF5 C API directly, so
 * this test does not depend on hetui's data layer.
 */
#include "config.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_model.h"
#include "tap.h"

#define GOLDEN_TOL 1e-12

struct golden_case {
	char	 name[128];
	char	 mode[32];
	double	 q, dt, phi, contrast, offset, gap;
	long	 n;
	double	 params[HET_MAX_PHYS];
	size_t	 nparams;
	double	*t;		/* n */
	double	*c2;		/* n * n */
};

static int
read_attr_double(hid_t g, const char *name, double *v)
{
	hid_t a;
	herr_t st;

	if ((a = H5Aopen(g, name, H5P_DEFAULT)) < 0)
		return -1;
	st = H5Aread(a, H5T_NATIVE_DOUBLE, v);
	H5Aclose(a);
	return st < 0 ? -1 : 0;
}

static int
read_attr_long(hid_t g, const char *name, long *v)
{
	hid_t a;
	herr_t st;

	if ((a = H5Aopen(g, name, H5P_DEFAULT)) < 0)
		return -1;
	st = H5Aread(a, H5T_NATIVE_LONG, v);
	H5Aclose(a);
	return st < 0 ? -1 : 0;
}

static int
read_attr_string(hid_t g, const char *name, char *buf, size_t len)
{
	hid_t a, ft, mt;
	char *s = NULL;
	int rc = -1;

	if ((a = H5Aopen(g, name, H5P_DEFAULT)) < 0)
		return -1;
	ft = H5Aget_type(a);
	if (H5Tis_variable_str(ft) > 0) {
		/* Same character set as the file (UTF-8 here), or the read
		 * fails with a conversion error. */
		mt = H5Tcopy(H5T_C_S1);
		H5Tset_size(mt, H5T_VARIABLE);
		H5Tset_cset(mt, H5Tget_cset(ft));
		if (H5Aread(a, mt, &s) >= 0 && s != NULL) {
			snprintf(buf, len, "%s", s);
			H5free_memory(s);
			rc = 0;
		}
		H5Tclose(mt);
	}
	H5Tclose(ft);
	H5Aclose(a);
	return rc;
}

/* Read a 1-D or 2-D float64 dataset of exactly `count` elements. */
static int
read_dataset(hid_t g, const char *name, double *out, size_t count,
    size_t *got)
{
	hid_t d, sp;
	hssize_t npts;
	int rc = -1;

	if ((d = H5Dopen2(g, name, H5P_DEFAULT)) < 0)
		return -1;
	sp = H5Dget_space(d);
	npts = H5Sget_simple_extent_npoints(sp);
	if (got != NULL)
		*got = npts < 0 ? 0 : (size_t)npts;
	if (npts >= 0 && (size_t)npts <= count &&
	    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    out) >= 0)
		rc = 0;
	H5Sclose(sp);
	H5Dclose(d);
	return rc;
}

static int
load_case(hid_t g, struct golden_case *c)
{
	memset(c, 0, sizeof(*c));
	if (read_attr_string(g, "name", c->name, sizeof(c->name)) != 0 ||
	    read_attr_string(g, "mode", c->mode, sizeof(c->mode)) != 0 ||
	    read_attr_double(g, "q", &c->q) != 0 ||
	    read_attr_double(g, "dt", &c->dt) != 0 ||
	    read_attr_double(g, "phi", &c->phi) != 0 ||
	    read_attr_double(g, "contrast", &c->contrast) != 0 ||
	    read_attr_double(g, "offset", &c->offset) != 0 ||
	    read_attr_double(g, "stator_rotor_gap", &c->gap) != 0 ||
	    read_attr_long(g, "n", &c->n) != 0 || c->n < 2 || c->n > 100000)
		return -1;
	c->t = calloc((size_t)c->n, sizeof(double));
	c->c2 = calloc((size_t)c->n * (size_t)c->n, sizeof(double));
	if (c->t == NULL || c->c2 == NULL)
		return -1;
	if (read_dataset(g, "params", c->params, HET_MAX_PHYS,
	    &c->nparams) != 0 ||
	    read_dataset(g, "t", c->t, (size_t)c->n, NULL) != 0 ||
	    read_dataset(g, "c2", c->c2, (size_t)c->n * (size_t)c->n,
	    NULL) != 0)
		return -1;
	return 0;
}

static void
run_case(const struct golden_case *c, double *worst)
{
	struct het_model_spec spec;
	struct het_model *m = NULL;
	struct het_model_eval *ev = NULL;
	struct het_error err;
	struct het_pair *pairs = NULL;
	double *g = NULL, e, emax_up = 0, emax_diag = 0, emax_low = 0;
	double tmax = 0;
	const double *t;
	size_t n = (size_t)c->n, np = n * (n - 1) / 2, i, j, k;
	enum het_mode mode;

	memset(&spec, 0, sizeof(spec));
	if (!ok(het_mode_parse(c->mode, &mode, &err) == HET_OK,
	    "%s: mode '%s' parses", c->name, c->mode)) {
		diag("%s", err.msg);
		return;
	}
	spec.mode = mode;
	spec.q = c->q;
	spec.dt = c->dt;
	spec.start_frame = 1;
	spec.n_frames = n;
	spec.n_angles = 1;
	spec.phi = &c->phi;
	spec.gap = c->gap;
	m = het_model_alloc(&spec, &err);
	if (m == NULL || (ev = het_model_eval_alloc(m, &err)) == NULL) {
		ok(0, "%s: model builds (%s)", c->name, err.msg);
		goto out;
	}
	is_int((long long)c->nparams, (long long)het_model_nphys(m),
	    "%s: %zu parameters", c->name, c->nparams);
	t = het_model_time(m);
	for (k = 0; k < n; k++)
		tmax = fmax(tmax, fabs(t[k] - c->t[k]));
	ok(tmax <= 1e-12 * (c->dt * (double)n), "%s: grid t_k = k dt "
	    "matches the file (max diff %.2g s)", c->name, tmax);
	if (het_model_eval_prepare(ev, c->params, NULL, &err) != HET_OK) {
		ok(0, "%s: prepare (%s)", c->name, err.msg);
		goto out;
	}
	pairs = calloc(np, sizeof(*pairs));
	g = calloc(np, sizeof(*g));
	if (pairs == NULL || g == NULL) {
		ok(0, "%s: memory", c->name);
		goto out;
	}
	for (k = 0, i = 0; i < n; i++)
		for (j = i + 1; j < n; j++, k++) {
			pairs[k].i = (uint32_t)i;
			pairs[k].j = (uint32_t)j;
			pairs[k].a = 0;
		}
	het_model_eval_pairs(ev, np, pairs, g, NULL);
	for (k = 0; k < np; k++) {
		e = fabs(c->offset + c->contrast * g[k] -
		    c->c2[pairs[k].i * n + pairs[k].j]);
		if (!(e <= emax_up))
			emax_up = e;
	}
	for (i = 0; i < n; i++) {
		e = fabs(c->offset + c->contrast * het_model_eval_g(ev, 0, i,
		    i) - c->c2[i * n + i]);
		if (!(e <= emax_diag))
			emax_diag = e;
		for (j = 0; j < i; j++) {
			e = fabs(c->offset + c->contrast *
			    het_model_eval_g(ev, 0, i, j) - c->c2[i * n + j]);
			if (!(e <= emax_low))
				emax_low = e;
		}
	}
	ok(emax_up <= GOLDEN_TOL, "%s: %zu upper-triangle pairs, max |err| "
	    "%.3g", c->name, np, emax_up);
	ok(emax_diag <= GOLDEN_TOL, "%s: diagonal, max |err| %.3g", c->name,
	    emax_diag);
	ok(emax_low <= GOLDEN_TOL, "%s: lower triangle, max |err| %.3g",
	    c->name, emax_low);
	*worst = fmax(*worst, fmax(emax_up, fmax(emax_diag, emax_low)));
out:
	free(pairs);
	free(g);
	het_model_eval_free(ev);
	het_model_free(m);
}

int
main(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096], gname[32];
	struct golden_case c;
	hid_t f, g;
	double worst = 0;
	int ncase = 0, nstatic = 0, nlam = 0;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(path, sizeof(path), "%s/tests/golden/homodyne_c2.h5",
	    top != NULL ? top : ".");
	plan_lazy();
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (!ok(f >= 0, "open %s", path))
		return exit_status();
	for (;;) {
		snprintf(gname, sizeof(gname), "/cases/%03d", ncase);
		if (H5Lexists(f, "/cases", H5P_DEFAULT) <= 0 ||
		    H5Lexists(f, gname, H5P_DEFAULT) <= 0)
			break;
		g = H5Gopen2(f, gname, H5P_DEFAULT);
		if (!ok(g >= 0 && load_case(g, &c) == 0, "read case %s",
		    gname)) {
			if (g >= 0)
				H5Gclose(g);
			break;
		}
		H5Gclose(g);
		if (strcmp(c.mode, "laminar_flow") == 0)
			nlam++;
		else
			nstatic++;
		run_case(&c, &worst);
		free(c.t);
		free(c.c2);
		ncase++;
	}
	H5Fclose(f);
	is_int(ncase, 13, "all 13 reference cases were compared");
	ok(nstatic >= 5 && nlam >= 5, "both modes covered (%d static, "
	    "%d laminar_flow)", nstatic, nlam);
	diag("largest absolute error over all cases: %.3g", worst);
	return exit_status();
}
