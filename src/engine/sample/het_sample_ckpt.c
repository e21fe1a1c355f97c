/*
 * het_sample_ckpt.c: the checkpoint of the sampling pipeline: while the
 * shards run, the finished ones are saved to OUT/hetui_checkpoint.h5
 * (het_results_write_checkpoint), so that a run killed outright
 * (SIGKILL, the OOM killer, a node that goes down, a batch system's
 * hard limit) loses only the shards that were running and those that
 * finished in the last interval (30 s); `hetui sample --resume OUT`
 * continues it.
 *
 * Design: the loop thread decides and snapshots, a short-lived thread
 * writes.  When a shard sampled by this run has finished since the last
 * checkpoint and the interval has passed (het_hs_ckpt_poll), the loop thread
 * takes a reference to every finished result and copies the shard table
 * (the coordinator changes its records only on the loop thread); the
 * writer thread decodes the results and writes the file, reading
 * otherwise only what PREPARING left immutable, then writes a byte to
 * the wake pipe.  The next write may start interval seconds after the
 * previous one ended, and no sooner than twenty times its duration, so
 * the checkpoint costs at most 5 % of a disk's time even when a run has
 * thousands of small shards.  When the last shard is in, one more write
 * saves what finished since, whatever the interval, before SAMPLING ends
 * (het_sample.c waits for a write in flight): COMBINING decodes every
 * draw and is where an out-of-memory kill would strike.  A failed write
 * is reported once as a warning and tried again every interval; the run
 * goes on.  The WRITING phase removes the checkpoint once the results
 * are complete.
 */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "het_proc.h"
#include "het_sample_impl.h"
#include "het_thread.h"
#include "het_util.h"
#include "het_wire_shard.h"

#define HS_CKPT_INTERVAL	30.0	/* s, default */
#define HS_CKPT_DUTY		20.0	/* pause >= 20 x the write's time */

/* One shard as the snapshot saw it. */
struct hs_ckpt_shard {
	struct het_results_cmc_shard desc;
	char		*reason;	/* desc.reason (owned) */
	json_t		*result;	/* a reference, NULL unless done */
	struct het_shard_result res;	/* decoded by the writer */
};

struct hs_ckpt {
	struct het_sample	*s;
	pthread_t		 thr;
	atomic_int		 done;
	size_t			 K, ndone;	/* shards; sampled by this run
						   and done */
	size_t			 nsaved;	/* done, reused ones too */
	struct hs_ckpt_shard	*sh;
	double			 t_start, wall;	/* of the write; SAMPLING's
						   wall time so far */
	int			 rc;
	struct het_error	 err;
};

static void
hs_ckpt_release(struct hs_ckpt *c)
{
	size_t k;

	for (k = 0; c->sh != NULL && k < c->K; k++) {
		free(c->sh[k].reason);
		json_decref(c->sh[k].result);
		het_shard_result_clear(&c->sh[k].res);
	}
	free(c->sh);
	free(c);
}

/* The writer thread: decode, describe, write; then wake the loop. */
static void *
hs_ckpt_thread(void *arg)
{
	struct hs_ckpt *c = arg;
	struct het_results_start *starts = NULL;
	struct het_results_cmc_shard *desc;
	struct het_results_fit fit;
	struct het_results_cmc cm;
	struct het_results res;
	size_t k;
	long id;

	c->rc = HET_ENOMEM;
	desc = het_alloc_array(c->K, sizeof(*desc), "shards", &c->err);
	for (k = 0; desc != NULL && k < c->K; k++) {
		struct hs_ckpt_shard *sh = &c->sh[k];

		desc[k] = sh->desc;
		if (sh->result == NULL)
			continue;
		if ((c->rc = het_wire_result_unpack(sh->result, &id, &sh->res,
		    &c->err)) != HET_OK)
			goto out;
		sh->res.wall_time = sh->desc.wall_time;
		desc[k].res = &sh->res;
	}
	if (desc == NULL || (c->rc = het_hs_describe(c->s, &cm, &res, &fit,
	    &starts, &c->err)) != HET_OK)
		goto out;
	cm.status = "running";
	cm.shards = desc;
	cm.nshards = c->K;
	cm.gates_text = "";
	cm.max_rhat = cm.min_ess = cm.min_bfmi = NAN;
	cm.wall_time = c->wall;
	res.status = "running";
	c->rc = het_results_write_checkpoint(c->s->out_dir, &res, &c->err);
out:
	free(desc);
	free(starts);
	atomic_store(&c->done, 1);
	het_wake_signal(&c->s->wake);
	return NULL;
}

/* Shards this run sampled that are done. */
static size_t
hs_ckpt_count(const struct het_sample *s)
{
	size_t k, n = 0, K = het_cmc_nshards(s->cmc);

	for (k = 0; k < K; k++) {
		const struct het_cmc_shard *sh = het_cmc_shard(s->cmc, k);

		n += sh->state == HET_CMC_DONE && !sh->reused;
	}
	return n;
}

/* Copy the shard table and reference the results (loop thread). */
static struct hs_ckpt *
hs_ckpt_snapshot(struct het_sample *s, double now)
{
	struct hs_ckpt *c;
	size_t k;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->s = s;
	c->K = het_cmc_nshards(s->cmc);
	c->t_start = now;
	c->wall = now - s->t_sampling;
	c->ndone = hs_ckpt_count(s);
	het_error_clear(&c->err);
	if ((c->sh = calloc(c->K > 0 ? c->K : 1, sizeof(*c->sh))) == NULL) {
		free(c);
		return NULL;
	}
	for (k = 0; k < c->K; k++) {
		const struct het_cmc_shard *h = het_cmc_shard(s->cmc, k);
		struct hs_ckpt_shard *sh = &c->sh[k];
		int done = h->state == HET_CMC_DONE && h->result != NULL;

		if ((sh->reason = het_hs_reasons(h)) == NULL) {
			hs_ckpt_release(c);
			return NULL;
		}
		sh->result = done ? json_incref(h->result) : NULL;
		c->nsaved += done;
		sh->desc = (struct het_results_cmc_shard){ h->id, h->npairs,
		    het_cmc_state_name(h->state), h->attempts, sh->reason,
		    h->elapsed, NULL, NULL, 0, 0,
		    (size_t)h->id < s->npayload ? s->digest[h->id] : NULL,
		    h->reused };
	}
	return c;
}

static double
hs_ckpt_every(const struct het_sample *s)
{
	return s->o.checkpoint_interval > 0 ? s->o.checkpoint_interval :
	    HS_CKPT_INTERVAL;
}

/* A write failed (why): say so once; the next try is in due course. */
static void
hs_ckpt_failed(struct het_sample *s, const char *why)
{
	if (s->ckpt_warned)
		return;
	s->ckpt_warned = 1;
	het_hs_warn_now(s,
	    "cannot write the checkpoint of the finished shards: "
	    "%s; the run goes on and tries again every %.0f s, but if it is "
	    "killed outright before a checkpoint succeeds, the shards it "
	    "sampled are lost", why, hs_ckpt_every(s));
}

static void
hs_ckpt_start(struct het_sample *s, double now)
{
	int rc;

	if ((s->ckpt = hs_ckpt_snapshot(s, now)) == NULL) {
		s->ckpt_next = now + hs_ckpt_every(s);
		hs_ckpt_failed(s, "out of memory");
		return;
	}
	rc = het_thread_spawn(&s->ckpt->thr, hs_ckpt_thread, s->ckpt);
	if (rc != 0) {
		hs_ckpt_release(s->ckpt);
		s->ckpt = NULL;
		s->ckpt_next = now + hs_ckpt_every(s);
		hs_ckpt_failed(s, strerror(rc));
	}
}

/* Join the finished write and take its outcome (loop thread). */
static void
hs_ckpt_join(struct het_sample *s, double now)
{
	struct hs_ckpt *c = s->ckpt;
	double took = now - c->t_start;

	pthread_join(c->thr, NULL);
	s->ckpt = NULL;
	s->ckpt_next = now + fmax(hs_ckpt_every(s), (s->o.checkpoint_duty > 0 ?
	    s->o.checkpoint_duty : HS_CKPT_DUTY) * took);
	if (c->rc == HET_OK) {
		s->ckpt_ndone = c->ndone;
		s->ckpt_nsaved = c->nsaved;
	} else
		hs_ckpt_failed(s, c->err.msg);
	hs_ckpt_release(c);
}

void
het_hs_ckpt_poll(struct het_sample *s, double now)
{
	if (s->ckpt != NULL && atomic_load(&s->ckpt->done))
		hs_ckpt_join(s, now);
	if (s->ckpt != NULL || s->o.checkpoint_interval < 0 ||
	    hs_ckpt_count(s) <= s->ckpt_ndone)
		return;
	/* the shards are all in: one last write whatever the interval,
	   so that nothing is lost if COMBINING or WRITING is killed */
	if (het_cmc_finished(s->cmc)) {
		if (!s->ckpt_final) {
			s->ckpt_final = 1;
			hs_ckpt_start(s, now);
		}
	} else if (now >= s->ckpt_next)
		hs_ckpt_start(s, now);
}

int
het_hs_ckpt_busy(const struct het_sample *s)
{
	return s->ckpt != NULL;
}

double
het_hs_ckpt_deadline(const struct het_sample *s)
{
	if (s->ckpt != NULL || s->cmc == NULL ||
	    s->o.checkpoint_interval < 0 || hs_ckpt_count(s) <= s->ckpt_ndone)
		return -1;
	return s->ckpt_next;
}

void
het_hs_ckpt_free(struct het_sample *s)
{
	if (s->ckpt == NULL)
		return;
	pthread_join(s->ckpt->thr, NULL);
	hs_ckpt_release(s->ckpt);
	s->ckpt = NULL;
}
