#include "config.h"

/*
 * het_sample_acc.c: the read-only accessors of a sampling pipeline (see
 * het_sample.h for what each returns and when it is valid); the object
 * and its phase machine are in het_sample.c.
 */

#include <pthread.h>

#include "het_sample_impl.h"

enum het_sample_phase
het_sample_phase(const struct het_sample *s)
{
	return s->phase;
}

enum het_sample_verdict
het_sample_verdict(const struct het_sample *s)
{
	return s->verdict;
}

const struct het_error *
het_sample_error(const struct het_sample *s)
{
	return &s->err;
}

size_t
het_sample_checkpoint_shards(const struct het_sample *s)
{
	return s->ckpt_nsaved;
}

void
het_sample_progress(struct het_sample *s, struct het_sample_progress *p)
{
	pthread_mutex_lock(&s->mu);
	*p = s->prog;
	pthread_mutex_unlock(&s->mu);
}

const struct het_problem *
het_sample_problem(const struct het_sample *s)
{
	return s->phase > HET_SAMPLE_READING ? s->pb : NULL;
}

const struct het_sample_nlsq *
het_sample_nlsq(const struct het_sample *s)
{
	return s->phase > HET_SAMPLE_NLSQ && s->nx != NULL ? &s->nlsq : NULL;
}

long
het_sample_chain_threads(const struct het_sample *s)
{
	return s->cmc != NULL ? s->chain_threads : 0;
}

size_t
het_sample_nshards(const struct het_sample *s)
{
	return s->cmc != NULL ? het_cmc_nshards(s->cmc) : 0;
}

const struct het_cmc_shard *
het_sample_shard(const struct het_sample *s, size_t index)
{
	if (s->cmc == NULL || index >= het_cmc_nshards(s->cmc))
		return NULL;
	return het_cmc_shard(s->cmc, index);
}

const struct het_cmc *
het_sample_coordinator(const struct het_sample *s)
{
	return s->cmc;
}

const struct het_sample_summary *
het_sample_summary(const struct het_sample *s)
{
	return s->phase > HET_SAMPLE_COMBINING && s->have_sum ? &s->sum :
	    NULL;
}

const char *
het_sample_out_dir(const struct het_sample *s)
{
	return s->out_dir;
}

const char *const *
het_sample_files(const struct het_sample *s)
{
	static const char *const none[1] = { NULL };

	return s->phase > HET_SAMPLE_WRITING && s->files != NULL ?
	    (const char *const *)s->files : none;
}

size_t
het_sample_nwarnings(const struct het_sample *s)
{
	return s->nwarn;
}

const char *
het_sample_warning(const struct het_sample *s, size_t k)
{
	return k < s->nwarn ? s->warn[k] : NULL;
}
