#include "config.h"

/*
 * mkseeds.c: writes the wire-protocol seeds of tests/fuzz/wire/.
 *
 *	tests/fuzz/mkseeds DIR
 *
 * The records are made by the encoders hetui itself uses (a small
 * homodyne static shard of 6 frames and 2 angles, a result of 2
 * parameters, 2 chains and 3 draws, progress, heartbeat, error, bye), so
 * the seeds stay valid when the protocol grows a field: rerun this and
 * commit the files.  The first byte of each seed is the harness's control
 * byte (tests/fuzz/fuzz_wire.c): 0x0e feeds a reader in 8-byte pieces,
 * 0xfe in 128-byte pieces, 0x01 decodes line by line.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_shard_run.h"
#include "het_wire.h"
#include "het_wire_shard.h"

#define NF	6
#define NA	2
#define NPAIR	(NA * NF * (NF - 1) / 2)
#define NP	4

static const double phi2[NA] = { 0.0, 90.0 };
static const double theta[3] = { 2000.0, 0.4, 20.0 };
static const unsigned char hfree[3] = { 1, 1, 0 };
static const double s0[2] = { 0.3, 1.0 };

static char *
enc(enum het_wire_type t, json_t *payload)
{
	struct het_error	 err;
	char			*line;
	size_t			 len;

	if (payload == NULL || het_wire_encode(t, payload, &line, &len,
	    &err) != HET_OK) {
		fprintf(stderr, "mkseeds: cannot encode a %s record\n",
		    het_wire_type_name(t));
		exit(1);
	}
	json_decref(payload);
	return line;
}

static json_t *
shard_payload(void)
{
	static struct het_pair		pairs[NPAIR];
	static double			y[NPAIR];
	static struct het_post_prior	pri[NP];
	struct het_wire_shard		ws;
	struct het_error		err;
	size_t				a, i, j, k = 0;
	json_t				*o;

	for (a = 0; a < NA; a++)
		for (i = 0; i < NF; i++)
			for (j = i + 1; j < NF; j++, k++) {
				pairs[k].i = (uint32_t)i;
				pairs[k].j = (uint32_t)j;
				pairs[k].a = (uint32_t)a;
				y[k] = 1.0 + 0.3 * exp(-0.37 * (double)(j - i))
				    + 0.001 * (double)(k % 7);
			}
	pri[0] = (struct het_post_prior){ HET_PRIOR_UNIFORM, 0, 0, 100, 1e5 };
	pri[1] = (struct het_post_prior){ HET_PRIOR_NORMAL, 0, 2, -2, 2 };
	pri[2] = (struct het_post_prior){ HET_PRIOR_BETA_SCALED, 2, 2, 0, 1 };
	pri[3] = (struct het_post_prior){ HET_PRIOR_TRUNCNORMAL, 1, 0.5,
	    -HUGE_VAL, HUGE_VAL };
	memset(&ws, 0, sizeof ws);
	ws.shard = 3;
	ws.model.mode = HET_MODE_HOM_STATIC;
	ws.model.q = 0.02;
	ws.model.dt = 0.1;
	ws.model.start_frame = 1;
	ws.model.n_frames = NF;
	ws.model.n_angles = NA;
	ws.model.phi = phi2;
	ws.model.gap = 2e6;
	het_scaling_default_spec(&ws.scaling, HET_FAMILY_HOMODYNE,
	    HET_SCALING_AVERAGED, NA, phi2);
	ws.theta = theta;
	ws.free = hfree;
	ws.nscal = 2;
	ws.s = s0;
	ws.n = NPAIR;
	ws.pairs = pairs;
	ws.y = y;
	ws.sigma = 0.01;
	ws.np = NP;
	ws.priors = pri;
	ws.nshards = 2;
	ws.reparam = 1;
	het_shard_settings_default(&ws.settings);
	ws.settings.num_warmup = 20;
	ws.settings.num_samples = 20;
	ws.settings.num_chains = 2;
	ws.settings.seed = 5;
	if ((o = het_wire_shard_pack(&ws, &err)) == NULL) {
		fprintf(stderr, "mkseeds: shard: %s\n", err.msg);
		exit(1);
	}
	return o;
}

static json_t *
result_payload(void)
{
	struct het_shard_result	 res;
	struct het_error	 err;
	json_t			*o;
	size_t			 k;

	memset(&res, 0, sizeof res);
	if (het_shard_result_alloc(&res, 2, 2, 3, &err) != HET_OK)
		exit(1);
	for (k = 0; k < 2 * 2 * 3; k++)
		res.draws[k] = 1.5 + 0.125 * (double)k;
	res.names[0] = strdup("D0");
	res.names[1] = strdup("alpha");
	for (k = 0; k < 2; k++) {
		res.summary[k].mean = 1.75;
		res.summary[k].rhat = 1.01;
		res.bfmi[k] = 0.9;
		res.step_size[k] = 0.25;
		res.accept[k] = 0.93;
	}
	res.divergences[1] = 1;
	res.laplace = 1;
	res.laplace_khat = 0.375;
	res.laplace_ess = 0.5;
	if ((o = het_wire_result_pack(3, &res, &err)) == NULL) {
		fprintf(stderr, "mkseeds: result: %s\n", err.msg);
		exit(1);
	}
	het_shard_result_clear(&res);
	return o;
}

static void
put(const char *dir, const char *name, int control, char **lines, size_t n)
{
	char	 path[4096];
	FILE	*f;
	size_t	 k;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "wb")) == NULL) {
		perror(path);
		exit(1);
	}
	fputc(control, f);
	for (k = 0; k < n; k++)
		fputs(lines[k], f);
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	struct het_wire_progress	 pg;
	struct het_wire_errinfo		 ei;
	char				*l[8];
	size_t				 k;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	memset(&pg, 0, sizeof pg);
	pg.shard = 3;
	snprintf(pg.phase, sizeof pg.phase, "warmup");
	pg.chain = 1;
	pg.iteration = 17;
	pg.step_size = 0.125;
	pg.accept = 0.875;
	pg.divergences = 2;
	pg.rhat = NAN;
	memset(&ei, 0, sizeof ei);
	ei.shard = 3;
	ei.code = HET_EINVAL;
	snprintf(ei.msg, sizeof ei.msg, "shard 3: sigma must be > 0");

	l[0] = strdup(het_wire_hello_line());
	l[1] = enc(HET_WIRE_SHARD, shard_payload());
	l[2] = enc(HET_WIRE_BYE, json_object());
	put(argv[1], "coordinator.txt", 0x0e, l, 3);
	free(l[1]);
	free(l[2]);
	l[1] = enc(HET_WIRE_HEARTBEAT, het_wire_heartbeat_pack(3));
	l[2] = enc(HET_WIRE_PROGRESS, het_wire_progress_pack(&pg));
	l[3] = enc(HET_WIRE_RESULT, result_payload());
	l[4] = enc(HET_WIRE_ERROR, het_wire_error_pack(&ei));
	l[5] = enc(HET_WIRE_BYE, json_object());
	put(argv[1], "worker.txt", 0xfe, l, 6);
	l[6] = enc(HET_WIRE_SHARD, shard_payload());
	put(argv[1], "lines.txt", 0x01, l + 1, 6);
	for (k = 0; k < 7; k++)
		free(l[k]);
	return 0;
}
