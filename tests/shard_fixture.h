/*
 * shard_fixture.h: the shard shared by t_worker_wire.c and
 * t_worker_shard.c (see shard_fixture.c).
 */
#ifndef SHARD_FIXTURE_H
#define SHARD_FIXTURE_H

#include <stddef.h>

#include "het_wire_shard.h"

#define NF	30
#define NA	2
#define NMAX	(NA * NF * (NF - 1) / 2)
#define NP	4

extern const double		phi2[NA];
extern const double		theta[3];
extern const unsigned char	hfree[3];
extern const double		s0[2];
extern const double		xtrue[NP];
extern struct het_pair		pairs[NMAX];
extern double			y[NMAX];
extern size_t			npairs;
extern struct het_post_prior	pri[NP];

/*
 * make_shard: fill ws with the shard (id, 2 chains x (200 + 200), seed
 * 5, power_law coordinates) over the fixture's data, simulated on the
 * first call.  Returns 0, or -1 when the model cannot be built.
 */
int make_shard(struct het_wire_shard *ws, long id);

#endif /* SHARD_FIXTURE_H */
