/*
 * resume_lib.c: what the tests of `hetui sample --resume`
 * (t_engine_resume, t_engine_resume_errors) share: the test directory
 * with the simulated data, what the uninterrupted run left, and helpers
 * that run a pipeline and look at its shards and warnings.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_sample_view.h"
#include "resume_lib.h"
#include "sample_drive.h"
#include "tap.h"

char	 tmpdir[256];
double	*full_draws;
size_t	 full_ndraw, full_p;
char	 full_digest[K_SHARDS][HET_RESULTS_DIGEST_LEN];

int
resume_setup(const char *name)
{
	const char *hetui = getenv("HETUI"), *src = getenv("top_srcdir");
	char cmd[2048];

	if (hetui == NULL || src == NULL || getenv("HETUI_WORKER") == NULL)
		return -1;
	if (tap_tmpdir(tmpdir, sizeof(tmpdir), name) == NULL)
		return -1;
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/configs/sample_truth.yaml' "
	    "'%s/tests/configs/sample_run.yaml' '%s/' && cd '%s' && "
	    "'%s' simulate -q -c sample_truth.yaml -o sim.h5 "
	    "--noise 0.003 --seed 11", src, src, tmpdir, tmpdir, hetui);
	return system(cmd) == 0 ? 0 : -1;
}

void
resume_cleanup(void)
{
	char cmd[300];

	free(full_draws);
	full_draws = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove %s", tmpdir);
}

void
resume_keep_full(const struct het_sample *s)
{
	const double *d = het_sample_view_draws(s, &full_ndraw, &full_p);
	size_t k;

	free(full_draws);
	full_draws = NULL;
	if (d != NULL && (full_draws = malloc(full_ndraw * full_p *
	    sizeof(*d))) != NULL)
		memcpy(full_draws, d, full_ndraw * full_p * sizeof(*d));
	for (k = 0; k < K_SHARDS; k++)
		full_digest[k][0] = '\0';
}

/* tmpdir/rel into buf (600 bytes). */
char *
tpath(char *buf, const char *rel)
{
	snprintf(buf, 600, "%s/%s", tmpdir, rel);
	return buf;
}

/* Options writing into tmpdir/out (NULL: out_dir unset). */
void
opts_init(struct het_sample_opts *o, struct het_config *cfg, const char *out)
{
	static char data[600], dir[600];

	tpath(data, "sim.h5");
	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
	o->data_path = data;
	o->out_dir = out != NULL ? tpath(dir, out) : NULL;
	o->workers = 2;
	o->threads = 1;
	o->worker_path = getenv("HETUI_WORKER");
}

/* Run a pipeline with opts o to its end; NULL when alloc/start failed. */
struct het_sample *
run(const struct het_sample_opts *o,
    void (*hook)(struct het_sample *, void *), void *arg)
{
	struct het_sample *s;
	struct het_error err;

	if ((s = het_sample_alloc(o, &err)) == NULL) {
		diag("alloc: %s", err.msg);
		return NULL;
	}
	if (het_sample_start(s, &err) != HET_OK) {
		diag("start: %s", err.msg);
		het_sample_free(s);
		return NULL;
	}
	sample_drive(s, hook, arg);
	if (het_sample_error(s)->code != HET_OK)
		diag("run ended with: %s", het_sample_error(s)->msg);
	return s;
}

/* The shard of prev with id, or NULL. */
const struct het_results_prev_shard *
prev_shard(const struct het_results_prev_cmc *prev, long id)
{
	size_t k;

	for (k = 0; k < prev->n; k++)
		if (prev->shard[k].id == id)
			return &prev->shard[k];
	return NULL;
}

/* Combined draws of s equal, bit for bit, to the full run's. */
int
same_as_full(const struct het_sample *s)
{
	size_t nd = 0, p = 0;
	const double *d = het_sample_view_draws(s, &nd, &p);

	if (d == NULL || full_draws == NULL || nd != full_ndraw ||
	    p != full_p) {
		diag("combined draws: %zu x %zu, full run %zu x %zu", nd, p,
		    full_ndraw, full_p);
		return 0;
	}
	return memcmp(d, full_draws, nd * p * sizeof(*d)) == 0;
}

/* Shards of s with reused set; *ids gets a bit per reused id. */
int
count_reused(const struct het_sample *s, unsigned *ids)
{
	size_t k;
	int n = 0;

	*ids = 0;
	for (k = 0; k < het_sample_nshards(s); k++)
		if (het_sample_shard(s, k)->reused) {
			n++;
			*ids |= 1u << het_sample_shard(s, k)->id;
		}
	return n;
}

/* Warnings of s containing needle (and then also the file name). */
int
count_warnings(const struct het_sample *s, const char *needle,
    const char *file)
{
	size_t k;
	int n = 0;

	for (k = 0; k < het_sample_nwarnings(s); k++) {
		const char *w = het_sample_warning(s, k);

		if (strstr(w, needle) != NULL) {
			diag("warning: %s", w);
			if (file == NULL || strstr(w, file) != NULL)
				n++;
		}
	}
	return n;
}
