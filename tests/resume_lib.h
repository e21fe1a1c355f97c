/*
 * resume_lib.h: what the tests of `hetui sample --resume` share
 * (t_engine_resume.c: digests, the runs and their reuse;
 * t_engine_resume_errors.c: damaged results files and failing resumes).
 * Each test is its own program; the full run's results live in globals
 * here.
 */
#ifndef RESUME_LIB_H
#define RESUME_LIB_H

#include "het_results.h"
#include "het_sample.h"

#define K_SHARDS	2

/* The test's directory and what the full run left in it. */
extern char	 tmpdir[256];
extern double	*full_draws;		/* combined, ndraw x p */
extern size_t	 full_ndraw, full_p;
extern char	 full_digest[K_SHARDS][HET_RESULTS_DIGEST_LEN];	/* by id */

/*
 * resume_setup: make $TMPDIR/NAME.XXXXXX (tmpdir), copy the sample configs
 * into it and simulate sim.h5 with $HETUI; 0, or -1 (skip the test).
 * resume_cleanup: remove it.  resume_keep_full: keep the combined draws
 * of s as the full run's (full_draws) and clear full_digest.
 */
int resume_setup(const char *name);
void resume_cleanup(void);
void resume_keep_full(const struct het_sample *s);

/* tmpdir/rel into buf (600 bytes); returns buf. */
char *tpath(char *buf, const char *rel);
/* Options writing into tmpdir/out (NULL: out_dir unset). */
void opts_init(struct het_sample_opts *o, struct het_config *cfg,
    const char *out);
/* Run a pipeline to its end; NULL when alloc or start failed. */
struct het_sample *run(const struct het_sample_opts *o,
    void (*hook)(struct het_sample *, void *), void *arg);
/* The shard of prev with id, or NULL. */
const struct het_results_prev_shard *prev_shard(
    const struct het_results_prev_cmc *prev, long id);
/* Combined draws of s equal, bit for bit, to the full run's. */
int same_as_full(const struct het_sample *s);
/* Shards of s with reused set; *ids gets a bit per reused id. */
int count_reused(const struct het_sample *s, unsigned *ids);
/* Warnings of s containing needle (and file, unless NULL). */
int count_warnings(const struct het_sample *s, const char *needle,
    const char *file);

#endif /* RESUME_LIB_H */
