/*
 * t_core_golden_het.c: the heterodyne kernel against reference matrices.
 *
 * tests/golden/heterodyne_c2.h5 holds 20 cases (typical, each reduced
 * mode, pure reference and pure sample, a saturated fraction, negative
 * exponents, a grid that contains t = 0, a floored rate, phi + phi0 =
 * 90 deg, fast fringes, the -700 log clip, a late window and eight
 * random parameter sets), each with the full N x N matrix c2 = offset +
 * contrast g of the reference discretisation and the time grid it used.
 * For every case this test checks
 *   - that het_model_time() equals the stored grid bit for bit;
 *   - the strict upper triangle through het_model_eval_pairs, without and
 *     with derivatives (the two code paths), to 1e-12 absolute;
 *   - the diagonal and the lower triangle through het_model_eval_g;
 *   - that the three heterodyne modes give the same g for the same
 *     parameter vector (modes only change which parameters are free).
 * Case 006 starts its grid at t = 0 (start_frame 0).  het_model_alloc
 * rejects start_frame 0 (frames are numbered from 1, so a heterodyne grid
 * starts at dt or later); the test checks that refusal, then builds the
 * model at start_frame 1 and replaces its grid by the stored one through
 * the internal header, which is the only way to exercise the kernel's
 * t <= 0 branch of P(t, a) (P = 0 even for a = 0, so J(0) = D_offset).
 * The file is read with the HDF5 C API directly.  The differences left
 * (a few 1e-16, 2.4e-15 at most in case 018) are one-ulp differences
 * between the generator's vectorised pow/exp and glibc's, amplified by
 * transport exponents of order 40.
 */
#include "config.h"

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_model.h"
#include "het_model_impl.h"
#include "tap.h"

#define GOLDEN_TOL 1e-12

struct gcase {
	char	 key[64];
	char	 name[128];
	double	 q, dt, phi, contrast, offset;
	long	 start_frame, n;
	double	 params[HET_P_HET_COUNT];
	double	*t;
	double	*c2;
};

static int
attr_read(hid_t g, const char *name, hid_t type, void *v)
{
	hid_t a;
	herr_t st;

	if ((a = H5Aopen(g, name, H5P_DEFAULT)) < 0)
		return -1;
	st = H5Aread(a, type, v);
	H5Aclose(a);
	return st < 0 ? -1 : 0;
}

static int
attr_string(hid_t g, const char *name, char *buf, size_t len)
{
	hid_t a, mt;
	char *s = NULL;
	int rc = -1;

	if ((a = H5Aopen(g, name, H5P_DEFAULT)) < 0)
		return -1;
	mt = H5Tcopy(H5T_C_S1);
	H5Tset_size(mt, H5T_VARIABLE);
	H5Tset_cset(mt, H5T_CSET_UTF8);
	if (H5Aread(a, mt, &s) >= 0 && s != NULL) {
		snprintf(buf, len, "%s", s);
		H5free_memory(s);
		rc = 0;
	}
	H5Tclose(mt);
	H5Aclose(a);
	return rc;
}

/* Read a whole float64 dataset of `count` elements into a new array. */
static double *
dset_read(hid_t g, const char *name, size_t count)
{
	hid_t d, sp;
	hssize_t np;
	double *v;

	if ((d = H5Dopen2(g, name, H5P_DEFAULT)) < 0)
		return NULL;
	sp = H5Dget_space(d);
	np = H5Sget_simple_extent_npoints(sp);
	H5Sclose(sp);
	if (np < 0 || (size_t)np != count ||
	    (v = calloc(count, sizeof(double))) == NULL) {
		H5Dclose(d);
		return NULL;
	}
	if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	    v) < 0) {
		free(v);
		v = NULL;
	}
	H5Dclose(d);
	return v;
}

static int
case_read(hid_t cases, const char *key, struct gcase *c)
{
	hid_t g;
	double *p;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	if ((g = H5Gopen2(cases, key, H5P_DEFAULT)) < 0)
		return -1;
	if (attr_read(g, "q", H5T_NATIVE_DOUBLE, &c->q) < 0 ||
	    attr_read(g, "dt", H5T_NATIVE_DOUBLE, &c->dt) < 0 ||
	    attr_read(g, "phi", H5T_NATIVE_DOUBLE, &c->phi) < 0 ||
	    attr_read(g, "contrast", H5T_NATIVE_DOUBLE, &c->contrast) < 0 ||
	    attr_read(g, "offset", H5T_NATIVE_DOUBLE, &c->offset) < 0 ||
	    attr_read(g, "start_frame", H5T_NATIVE_LONG,
	    &c->start_frame) < 0 ||
	    attr_read(g, "n", H5T_NATIVE_LONG, &c->n) < 0 ||
	    attr_string(g, "name", c->name, sizeof(c->name)) < 0 ||
	    c->n < 2 || c->n > 4096)
		goto out;
	if ((p = dset_read(g, "params", HET_P_HET_COUNT)) == NULL)
		goto out;
	memcpy(c->params, p, sizeof(c->params));
	free(p);
	c->t = dset_read(g, "t", (size_t)c->n);
	c->c2 = dset_read(g, "c2", (size_t)c->n * (size_t)c->n);
	if (c->t != NULL && c->c2 != NULL)
		rc = 0;
out:
	H5Gclose(g);
	return rc;
}

/* Build the model of a case; see the file comment for start_frame 0. */
static struct het_model *
case_model(const struct gcase *c, enum het_mode mode)
{
	struct het_model_spec spec;
	struct het_model *m;
	struct het_error err;
	long k;

	memset(&spec, 0, sizeof(spec));
	spec.mode = mode;
	spec.q = c->q;
	spec.dt = c->dt;
	spec.start_frame = c->start_frame;
	spec.n_frames = (size_t)c->n;
	spec.n_angles = 1;
	spec.phi = &c->phi;
	if (c->start_frame >= 1)
		return het_model_alloc(&spec, &err);

	m = het_model_alloc(&spec, &err);
	if (mode == HET_MODE_TWO_COMPONENT) {
		ok(m == NULL && err.code == HET_EINVAL, "case %s: start_frame "
		    "%ld is refused by het_model_alloc", c->key,
		    c->start_frame);
		like(err.msg, "frames are numbered from 1", "refusal says why");
	}
	het_model_free(m);
	spec.start_frame = 1;
	if ((m = het_model_alloc(&spec, &err)) == NULL)
		return NULL;
	for (k = 0; k < c->n; k++)
		m->t[k] = ((double)c->start_frame + (double)k) * c->dt;
	return m;
}

/* All i < j pairs of an n-frame window (angle 0). */
static struct het_pair *
upper_pairs(size_t n, size_t *np)
{
	struct het_pair *pr;
	size_t i, j, k = 0;

	*np = n * (n - 1) / 2;
	if ((pr = calloc(*np, sizeof(*pr))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			pr[k].i = (uint32_t)i;
			pr[k].j = (uint32_t)j;
			pr[k].a = 0;
			k++;
		}
	return pr;
}

static void
check_case(const struct gcase *c, double *worst)
{
	static const unsigned char all_free[HET_P_HET_COUNT] = {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
	};
	static const enum het_mode modes[] = {
		HET_MODE_STATIC_REF, HET_MODE_STATIC_BOTH
	};
	struct het_model *m, *mm;
	struct het_model_eval *ev = NULL, *evm;
	struct het_error err;
	struct het_pair *pr = NULL;
	size_t n = (size_t)c->n, np = 0, k, i, j, mi;
	double *g = NULL, *g2 = NULL, *dg = NULL, e_up = 0, e_der = 0,
	    e_diag = 0, e_low = 0, e_t = 0, e_mode = 0, want;
	const double *t;

	diag("case %s: %s (n %zu, start_frame %ld, phi %g)", c->key, c->name,
	    n, c->start_frame, c->phi);
	m = case_model(c, HET_MODE_TWO_COMPONENT);
	if (m == NULL || (ev = het_model_eval_alloc(m, &err)) == NULL ||
	    (pr = upper_pairs(n, &np)) == NULL ||
	    (g = calloc(np, sizeof(*g))) == NULL ||
	    (g2 = calloc(np, sizeof(*g2))) == NULL ||
	    (dg = calloc(np * HET_P_HET_COUNT, sizeof(*dg))) == NULL) {
		ok(0, "case %s: set up", c->key);
		goto out;
	}
	t = het_model_time(m);
	for (k = 0; k < n; k++)
		if (fabs(t[k] - c->t[k]) > e_t)
			e_t = fabs(t[k] - c->t[k]);
	ok(e_t == 0, "case %s: model grid equals the stored t (max |diff| "
	    "%.3g)", c->key, e_t);

	is_int(het_model_eval_prepare(ev, c->params, NULL, &err), HET_OK,
	    "case %s: prepare without derivatives", c->key);
	het_model_eval_pairs(ev, np, pr, g, NULL);
	for (k = 0; k < np; k++) {
		want = c->c2[pr[k].i * n + pr[k].j];
		e_up = fmax(e_up, fabs(c->offset + c->contrast * g[k] - want));
	}
	for (i = 0; i < n; i++)
		for (j = 0; j <= i; j++) {
			want = c->c2[i * n + j];
			if (i == j)
				e_diag = fmax(e_diag, fabs(c->offset +
				    c->contrast * het_model_eval_g(ev, 0, i,
				    i) - want));
			else
				e_low = fmax(e_low, fabs(c->offset +
				    c->contrast * het_model_eval_g(ev, 0, i,
				    j) - want));
		}
	is_int(het_model_eval_prepare(ev, c->params, all_free, &err), HET_OK,
	    "case %s: prepare with 14 derivative columns", c->key);
	het_model_eval_pairs(ev, np, pr, g2, dg);
	for (k = 0; k < np; k++) {
		want = c->c2[pr[k].i * n + pr[k].j];
		e_der = fmax(e_der, fabs(c->offset + c->contrast * g2[k] -
		    want));
	}
	diag("case %s: max |c2 - golden|: pairs %.3g, pairs with "
	    "derivatives %.3g, diagonal %.3g, lower %.3g", c->key, e_up,
	    e_der, e_diag, e_low);
	ok(e_up <= GOLDEN_TOL, "case %s: upper triangle within %g (%.3g)",
	    c->key, GOLDEN_TOL, e_up);
	ok(e_der <= GOLDEN_TOL, "case %s: upper triangle on the derivative "
	    "path within %g (%.3g)", c->key, GOLDEN_TOL, e_der);
	ok(e_diag <= GOLDEN_TOL, "case %s: diagonal within %g (%.3g)",
	    c->key, GOLDEN_TOL, e_diag);
	ok(e_low <= GOLDEN_TOL, "case %s: lower triangle within %g (%.3g)",
	    c->key, GOLDEN_TOL, e_low);
	*worst = fmax(*worst, fmax(fmax(e_up, e_der), fmax(e_diag, e_low)));

	/* The reduced modes evaluate the same kernel. */
	for (mi = 0; mi < sizeof(modes) / sizeof(modes[0]); mi++) {
		mm = case_model(c, modes[mi]);
		evm = mm != NULL ? het_model_eval_alloc(mm, &err) : NULL;
		if (evm == NULL ||
		    het_model_eval_prepare(evm, c->params, NULL, &err) !=
		    HET_OK) {
			e_mode = INFINITY;
		} else {
			het_model_eval_pairs(evm, np, pr, g2, NULL);
			for (k = 0; k < np; k++)
				e_mode = fmax(e_mode, fabs(g2[k] - g[k]));
		}
		het_model_eval_free(evm);
		het_model_free(mm);
	}
	ok(e_mode == 0, "case %s: static_ref and static_both give the same g "
	    "as two_component", c->key);
out:
	free(pr);
	free(g);
	free(g2);
	free(dg);
	het_model_eval_free(ev);
	het_model_free(m);
}

int
main(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096], key[64];
	hid_t f, cases;
	H5G_info_t info;
	struct gcase c;
	hsize_t k;
	double worst = 0;
	int nread = 0;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	plan_lazy();
	snprintf(path, sizeof(path), "%s/tests/golden/heterodyne_c2.h5",
	    top != NULL ? top : ".");
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) {
		ok(0, "open %s", path);
		return exit_status();
	}
	cases = H5Gopen2(f, "/cases", H5P_DEFAULT);
	if (cases < 0 || H5Gget_info(cases, &info) < 0) {
		ok(0, "%s has a /cases group", path);
		return exit_status();
	}
	for (k = 0; k < info.nlinks; k++) {
		if (H5Lget_name_by_idx(cases, ".", H5_INDEX_NAME, H5_ITER_INC,
		    k, key, sizeof(key), H5P_DEFAULT) < 0 ||
		    case_read(cases, key, &c) < 0) {
			ok(0, "read case %llu", (unsigned long long)k);
			continue;
		}
		nread++;
		check_case(&c, &worst);
		free(c.t);
		free(c.c2);
	}
	is_int(nread, 20, "all 20 golden cases read");
	diag("worst |c2 - golden| over all cases: %.3g", worst);
	H5Gclose(cases);
	H5Fclose(f);
	return exit_status();
}
