/*
 * het_nyquist.h: does the frame rate resolve the flow fringes of a model?
 *
 * Flow makes c2 oscillate along the time axes.  Between two neighbouring
 * frames the oscillating phase advances by
 *
 *   heterodyne     dPhi_k = q |cos(phi + phi0)| |v_k + v_k+1| / 2 dt
 *                  (the cos(Phi) cross term: period 2 pi, limit pi)
 *   laminar_flow   dPhi_k = q L |cos(phi0 - phi)| (G_k + G_k+1) / 2 dt / (2 pi)
 *                  (sinc(Phi)^2 has zeros every pi: limit pi / 2)
 *
 * with the trapezoid averages of the velocity v(t) = v0 P(t, beta) +
 * v_offset (heterodyne-spec §1.1, the true max |v(t)| over the window as
 * lesson 32 asks, not |v0| alone) or the floored shear rate G(t)
 * (homodyne-spec §3).  When the largest step exceeds its limit the
 * fringes are aliased: finer than the frames can show, so a fit sees a
 * different, slower pattern.  Homodyne static has no flow and always
 * passes.
 */
#ifndef HET_NYQUIST_H
#define HET_NYQUIST_H

#include <stddef.h>

#include "het_error.h"
#include "het_model.h"

struct het_nyquist {
	int	 applies;	/* 0: the mode has no flow term */
	double	 step;		/* largest phase step between frames, rad */
	double	 limit;		/* pi (heterodyne) or pi/2 (laminar_flow) */
	double	 ratio;		/* step / limit; > 1 means aliased */
	double	 t;		/* s: start of the frame interval of the
				   largest step */
	size_t	 angle;		/* index into spec->phi of that step */
};

/*
 * het_nyquist_check: the largest phase step of the model spec (q, dt,
 * start_frame, n_frames, angles, gap) at physics vector theta
 * (het_mode_nphys(spec->mode) values, canonical order) over the window.
 * Fills *out.  Returns HET_OK, or HET_EINVAL (no angles, fewer than two
 * frames, non-positive q or dt, non-finite theta) with a message.
 * O(n_frames + n_angles); no allocation.  Thread: any.
 */
int het_nyquist_check(const struct het_model_spec *spec,
    const double *theta, struct het_nyquist *out, struct het_error *err);

#endif /* HET_NYQUIST_H */
