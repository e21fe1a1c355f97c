/*
 * het_io_mt.c: the multitau part of an open on the I/O thread
 * (het_io.h): read the file's g2(q, tau), fit every bin with the single
 * and the stretched exponential, sample each fit on a log grid of delays
 * and fit D to each model's rates, so that the Data panel's multitau
 * view draws without computing.
 *
 * Design: a payload is built whole and handed over through het_evq; it
 * shares nothing with the thread afterwards.  Reading a multitau group
 * costs a few kilobytes and the fits milliseconds (36 bins x 2 models of
 * a real file), so the work is done at every open, not on request.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "het_io.h"
#include "het_thread.h"
#include "het_util.h"

void
het_io_mt_free(void *p)
{
	struct het_io_mt *m = p;
	int k;

	if (m == NULL)
		return;
	het_multitau_free(m->mt);
	for (k = 0; k < HET_MTFIT_NMODELS; k++) {
		free(m->fit[k]);
		free(m->curve[k]);
	}
	free(m);
}

/* Fit every bin with one model, sample the fits, fit D. */
static int
io_mt_model(struct het_io_mt *m, enum het_mtfit_model model,
    struct het_error *err)
{
	const struct het_multitau *mt = m->mt;
	struct het_mtfit *f;
	double *q;
	size_t b, j;
	int rc;

	m->fit[model] = het_alloc_array(mt->nbins, sizeof(*f), "fits", err);
	m->curve[model] = het_alloc_array(mt->nbins * HET_IO_MT_CURVE,
	    sizeof(double), "fitted curves", err);
	q = het_alloc_array(mt->nbins, sizeof(*q), "bin q", err);
	if (m->fit[model] == NULL || m->curve[model] == NULL || q == NULL) {
		free(q);
		return HET_ENOMEM;
	}
	f = m->fit[model];
	for (b = 0; b < mt->nbins; b++) {
		q[b] = mt->bins[b].q;
		rc = het_mtfit_bin(mt->tau, mt->g2 + b * mt->ntau,
		    mt->g2_err + b * mt->ntau, mt->ntau, model, NULL, &f[b],
		    err);
		if (rc != HET_OK) {
			het_error_prefix(err, "the %s fit of bin %ld",
			    het_mtfit_name(model), mt->bins[b].label);
			free(q);
			return rc;
		}
		for (j = 0; j < HET_IO_MT_CURVE; j++)
			m->curve[model][b * HET_IO_MT_CURVE + j] =
			    het_mtfit_eval(&f[b], m->curve_tau[j]);
	}
	het_error_clear(&m->diff_err[model]);
	rc = het_mtfit_diffusion(q, f, mt->nbins, &m->diff[model],
	    &m->diff_err[model]);
	free(q);
	/* too few usable rates is a result, said in diff_err */
	return rc == HET_ERANGE ? HET_OK : rc;
}

struct het_io_mt *
het_io_mt_load(const char *path, struct het_error *err)
{
	struct het_io_mt *m;
	double t0 = het_clock_now(), lo, hi;
	size_t j;
	int k;

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory reading the "
		    "multitau g2 of %s", path);
		return NULL;
	}
	het_error_clear(&m->err);
	het_error_clear(&m->twotime);
	m->mt = het_multitau_read(path, &m->err);
	if (m->mt == NULL && m->err.code == HET_ENOTFOUND) {
		*err = m->err;
		het_io_mt_free(m);
		return NULL;
	}
	if (m->mt == NULL)
		return m;
	lo = log(m->mt->tau[0]);
	hi = log(m->mt->tau[m->mt->ntau - 1]);
	for (j = 0; j < HET_IO_MT_CURVE; j++)
		m->curve_tau[j] = exp(lo + (hi - lo) * (double)j /
		    (HET_IO_MT_CURVE - 1));
	for (k = 0; k < HET_MTFIT_NMODELS; k++)
		if (io_mt_model(m, (enum het_mtfit_model)k, &m->err) !=
		    HET_OK) {
			/* a fit that cannot run: nothing to show */
			het_error_prefix(&m->err, "%s", path);
			het_multitau_free(m->mt);
			m->mt = NULL;
			break;
		}
	m->seconds = het_clock_now() - t0;
	return m;
}
