/*
 * engine_fixture.h: shared by the engine's fit-job, fit-check and I/O
 * tests (t_engine_fitjob.c, t_engine_fit_check.c, t_engine_io_model.c).
 *
 * fx_simulate: a static_ref data file at path: FX_NA angles (fx_phi),
 * nf frames of 0.1 s, q 0.01, D0_ref 5000, alpha_ref 0.3, D_offset_ref
 * 0, contrast fx_contrast and offset fx_offset per angle, Gaussian noise
 * of sd 0.002 from mt19937 seeded with 7.  Returns HET_OK or the
 * writer's error (said by diag).
 *
 * fx_next_event: the next event of q, waiting at most ms milliseconds
 * for it; 1, or 0 on a timeout.
 *
 * fx_fit_text: the fit job of the configuration text (one thread, no
 * display grids, per angle or jointly) into out; its result (the caller
 * frees it), or NULL (said by diag).
 */
#ifndef HET_ENGINE_FIXTURE_H
#define HET_ENGINE_FIXTURE_H

#include <stddef.h>

#include "het_dataset.h"
#include "het_evq.h"
#include "het_fitjob.h"

#define FX_NA	2

extern const double fx_phi[FX_NA], fx_contrast[FX_NA], fx_offset[FX_NA];

int fx_simulate(const char *path, enum het_dtype dtype, size_t nf);
int fx_next_event(struct het_evq *q, struct het_event *ev, int ms);
struct het_fitjob_result *fx_fit_text(const char *text, const char *out,
    int per_angle);

#endif
