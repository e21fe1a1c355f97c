/*
 * basin_sim.h: simulated two-component problems with perturbed starts,
 * shared by bench/bench_basin.c and tests/t_engine_fit_basin.c (the
 * test replays starts the bench found hard).  Not part of the library.
 *
 * A truth set: nf frames (start_frame 1) x na angles spread over
 * (-90, 90) degrees, q, dt, all 14 physics parameters free, individual
 * contrast (0.22 + 0.03 sin(1.3 a + seed)) and offset (1 + 0.002
 * cos(0.7 a)) per angle, Gaussian noise of sd sigma (gsl mt19937 seeded
 * 1000 + seed), the moderate bounds basin_lo / basin_hi for the
 * physics and the table bounds for the scaling.  Starts (seeded 2000 +
 * seed, drawn in order): every physics parameter of the truth times
 * 1 +- u, u uniform in [0.1, 0.3], random sign, clipped into the
 * bounds; contrast and offset from the quantile estimate.
 */
#ifndef BASIN_SIM_H
#define BASIN_SIM_H

#include <stddef.h>

#include "het_fit.h"

struct basin_set {
	size_t		 nf, na;
	double		 q, dt, sigma;
	unsigned long	 seed;
	double		 th[HET_P_HET_COUNT];	/* D0_ref .. phi0 */
};

struct basin_sim {
	struct het_model	*m;
	struct het_scaling	*sc;
	struct het_resid	*r;
	struct het_pair		*pairs;
	double			*y, *phi;
	size_t			 n, p, na, nf, ns;
	double			*truth, *lo, *hi;	/* p each */
	double			*X0;		/* ns starts x p */
	double			 cost_noise;	/* 1/2 sum noise^2 */
};

extern const double basin_lo[HET_P_HET_COUNT], basin_hi[HET_P_HET_COUNT];

/*
 * basin_sim_new: the problem of ts with its first nstart starts
 * (nf frames unless nf_override > 0).  NULL with err set on failure.
 * basin_sim_free frees (NULL is fine).
 */
struct basin_sim *basin_sim_new(const struct basin_set *ts, size_t nstart,
    size_t nf_override, struct het_error *err);
void basin_sim_free(struct basin_sim *S);

#endif /* BASIN_SIM_H */
