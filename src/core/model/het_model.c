/*
 * het_model.c: the public model API: specification checks, the time grid
 * of each family, and dispatch to the family kernels.
 *
 * Time grids (heterodyne-spec.md §1.2, homodyne-spec.md §2): the
 * heterodyne model uses absolute experiment time t_k = (start_frame + k)
 * dt; the homodyne model resets the clock at the window start,
 * t_k = k dt.  Both are built here once per model.
 */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "het_model_impl.h"
#include "het_util.h"

static int
het_model_check_spec(const struct het_model_spec *s, struct het_error *err)
{
	size_t a;

	if ((int)s->mode < 0 || (int)s->mode >= HET_MODE_COUNT)
		return het_error_set(err, HET_EINVAL,
		    "model: unknown analysis mode %d", (int)s->mode);
	if (!isfinite(s->q) || s->q <= 0)
		return het_error_set(err, HET_EINVAL,
		    "model: wavevector q = %g 1/Å must be positive; set "
		    "analyzer_parameters.scattering.wavevector_q", s->q);
	if (!isfinite(s->dt) || s->dt <= 0)
		return het_error_set(err, HET_EINVAL,
		    "model: frame step dt = %g s must be positive; set "
		    "analyzer_parameters.dt", s->dt);
	if (s->n_frames < 2 || s->n_frames > INT32_MAX)
		return het_error_set(err, HET_EINVAL,
		    "model: %zu frames; a two-time model needs between 2 and "
		    "%d frames", s->n_frames, INT32_MAX);
	if (s->start_frame < 1)
		return het_error_set(err, HET_EINVAL,
		    "model: start_frame = %ld; frames are numbered from 1",
		    s->start_frame);
	if (s->n_angles == 0 || s->phi == NULL)
		return het_error_set(err, HET_EINVAL,
		    "model: no angles selected; select at least one phi");
	for (a = 0; a < s->n_angles; a++)
		if (!isfinite(s->phi[a]))
			return het_error_set(err, HET_EINVAL,
			    "model: angle %zu is not a finite number", a);
	if (s->mode == HET_MODE_HOM_LAMINAR &&
	    (!isfinite(s->gap) || s->gap <= 0))
		return het_error_set(err, HET_EINVAL,
		    "model: laminar_flow needs a positive stator_rotor_gap "
		    "(got %g Å); set analyzer_parameters.geometry."
		    "stator_rotor_gap", s->gap);
	return HET_OK;
}

struct het_model *
het_model_alloc(const struct het_model_spec *spec, struct het_error *err)
{
	struct het_model *m;
	size_t k;

	if (het_model_check_spec(spec, err) != HET_OK)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		het_error_set(err, HET_ENOMEM, "model: out of memory");
		return NULL;
	}
	m->spec = *spec;
	m->nphys = het_mode_nphys(spec->mode);
	m->ops = het_mode_family(spec->mode) == HET_FAMILY_HETERODYNE ?
	    &het_model_het_ops : &het_model_hom_ops;
	m->phi = het_alloc_array(spec->n_angles, sizeof(double), "model angles",
	    err);
	m->t = het_alloc_array(spec->n_frames, sizeof(double), "model time grid",
	    err);
	if (m->phi == NULL || m->t == NULL) {
		het_model_free(m);
		return NULL;
	}
	memcpy(m->phi, spec->phi, spec->n_angles * sizeof(double));
	m->spec.phi = m->phi;
	for (k = 0; k < spec->n_frames; k++) {
		if (het_mode_family(spec->mode) == HET_FAMILY_HETERODYNE)
			m->t[k] = ((double)spec->start_frame + (double)k) *
			    spec->dt;
		else
			m->t[k] = (double)k * spec->dt;
	}
	return m;
}

void
het_model_free(struct het_model *m)
{
	if (m == NULL)
		return;
	free(m->phi);
	free(m->t);
	free(m);
}

const struct het_model_spec *
het_model_spec_of(const struct het_model *m)
{
	return &m->spec;
}

size_t
het_model_nphys(const struct het_model *m)
{
	return m->nphys;
}

const double *
het_model_time(const struct het_model *m)
{
	return m->t;
}

struct het_model_eval *
het_model_eval_alloc(const struct het_model *m, struct het_error *err)
{
	struct het_model_eval *ev;

	ev = calloc(1, sizeof(*ev));
	if (ev == NULL) {
		het_error_set(err, HET_ENOMEM, "model workspace: out of memory");
		return NULL;
	}
	ev->m = m;
	ev->priv = m->ops->tables_alloc(m, err);
	if (ev->priv == NULL) {
		free(ev);
		return NULL;
	}
	return ev;
}

void
het_model_eval_free(struct het_model_eval *ev)
{
	if (ev == NULL)
		return;
	if (ev->priv != NULL)
		ev->m->ops->tables_free(ev->priv);
	free(ev);
}

int
het_model_eval_prepare(struct het_model_eval *ev, const double *theta,
    const unsigned char *free_flags, struct het_error *err)
{
	const struct het_param_def *tab;
	size_t k, n;

	tab = het_params_table(het_mode_family(ev->m->spec.mode), &n);
	ev->nfree = 0;
	for (k = 0; k < ev->m->nphys; k++) {
		if (!isfinite(theta[k]))
			return het_error_set(err, HET_EINVAL,
			    "model: parameter %s is not finite (%g)",
			    tab[k].name, theta[k]);
		ev->theta[k] = theta[k];
		ev->is_free[k] = free_flags != NULL && free_flags[k] != 0;
		if (ev->is_free[k])
			ev->free_idx[ev->nfree++] = k;
	}
	return ev->m->ops->prepare(ev, err);
}

size_t
het_model_eval_nfree(const struct het_model_eval *ev)
{
	return ev->nfree;
}

void
het_model_eval_pairs(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, double *g, double *dg)
{
	assert(dg == NULL || ev->nfree > 0);
	ev->m->ops->pairs(ev, n, pairs, g, dg);
}

size_t
het_model_lsq_scratch(const struct het_model *m)
{
	return m->ops->lsq != NULL ? m->ops->lsq_scratch(m) : 0;
}

void
het_model_eval_lsq(const struct het_model_eval *ev, size_t n,
    const struct het_pair *pairs, const struct het_model_lsq *L,
    double *scratch, struct het_model_lsq_out *out)
{
	assert(ev->m->ops->lsq != NULL && ev->nfree > 0);
	ev->m->ops->lsq(ev, n, pairs, L, scratch, out);
}

size_t
het_model_sep_terms(const struct het_model *m)
{
	return m->ops->sep_terms != NULL ? m->ops->sep_terms(m) : 0;
}

void
het_model_eval_sep(const struct het_model_eval *ev, struct het_model_sep *s)
{
	assert(het_model_sep_terms(ev->m) > 0);
	ev->m->ops->sep(ev, s);
}

void
het_model_eval_sep_adjoint(const struct het_model_eval *ev,
    const struct het_model_sep *adj, double *gfree)
{
	assert(het_model_sep_terms(ev->m) > 0);
	ev->m->ops->sep_adjoint(ev, adj, gfree);
}

void
het_model_eval_sep_tangent(const struct het_model_eval *ev,
    const double *dir, struct het_model_sep *tan)
{
	assert(het_model_sep_terms(ev->m) > 0);
	ev->m->ops->sep_tangent(ev, dir, tan);
}

double
het_model_eval_g(const struct het_model_eval *ev, size_t a, size_t i,
    size_t j)
{
	return ev->m->ops->point(ev, a, i, j);
}
