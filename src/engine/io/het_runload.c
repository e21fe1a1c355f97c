#include "config.h"
/*
 * het_runload.c: read a finished run's results on a short-lived thread
 * (see het_runload.h).  The work is two small reads; the thread exists
 * only so that a slow disk or network file system cannot freeze the
 * workstation's loop.
 */

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "het_h5.h"
#include "het_runload.h"
#include "het_thread.h"
#include "het_util.h"

struct het_runload {
	struct het_evq	*q;
	int		 job;
	char		*dir;
	pthread_t	 thread;
};

void
het_runload_result_free(void *arg)
{
	struct het_runload_result *r = arg;
	size_t k;

	if (r == NULL)
		return;
	free(r->dir);
	het_results_nlsq_clear(&r->nlsq);
	for (k = 0; r->post_names != NULL && k < r->npost; k++)
		free(r->post_names[k]);
	free(r->post_names);
	free(r->post_mean);
	free(r->post_sd);
	free(r);
}

/* Posterior means and sds of DIR/cmc_summary.json; quiet when absent. */
static void
rl_posterior(struct het_runload_result *r)
{
	json_t *root, *names, *mean, *sd;
	char path[4096];
	size_t n, k;

	snprintf(path, sizeof(path), "%s/%s", r->dir,
	    HET_RESULTS_CMC_SUMMARY);
	if ((root = json_load_file(path, 0, NULL)) == NULL)
		return;
	names = json_object_get(root, "parameter_names");
	mean = json_object_get(root, "posterior_mean");
	sd = json_object_get(root, "posterior_std");
	n = json_array_size(names);
	if (n == 0 || json_array_size(mean) != n || json_array_size(sd) != n)
		goto out;
	r->post_names = calloc(n, sizeof(char *));
	r->post_mean = calloc(n, sizeof(double));
	r->post_sd = calloc(n, sizeof(double));
	if (r->post_names == NULL || r->post_mean == NULL ||
	    r->post_sd == NULL)
		goto out;
	for (k = 0; k < n; k++) {
		if (!json_is_string(json_array_get(names, k)) ||
		    (r->post_names[k] = strdup(json_string_value(
		    json_array_get(names, k)))) == NULL)
			break;
		r->post_mean[k] = json_number_value(json_array_get(mean, k));
		r->post_sd[k] = json_number_value(json_array_get(sd, k));
	}
	r->npost = k;
out:
	json_decref(root);
}

static void *
rl_main(void *arg)
{
	struct het_runload *rl = arg;
	struct het_runload_result *r;
	struct het_event ev;

	het_h5_quiet_thread();
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->dir = strdup(rl->dir)) == NULL) {
		free(r);
		return NULL;	/* the panel keeps saying "loading" */
	}
	het_error_clear(&r->err);
	r->code = het_results_load_nlsq_h5(r->dir, &r->nlsq, &r->err);
	if (r->code == HET_OK)
		rl_posterior(r);
	memset(&ev, 0, sizeof(ev));
	ev.type = HET_RUNLOAD_EV_DONE;
	ev.job = rl->job;
	ev.data = r;
	ev.free_cb = het_runload_result_free;
	if (het_evq_post(rl->q, &ev) != HET_OK)
		het_runload_result_free(r);
	return NULL;
}

struct het_runload *
het_runload_start(struct het_evq *q, int job, const char *dir,
    struct het_error *err)
{
	struct het_runload *rl;
	int rc;

	if ((rl = calloc(1, sizeof(*rl))) == NULL ||
	    (rl->dir = strdup(dir)) == NULL) {
		free(rl);
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	rl->q = q;
	rl->job = job;
	rc = het_thread_spawn(&rl->thread, rl_main, rl);
	if (rc != 0) {
		het_error_set(err, HET_EINTERNAL, "cannot start a thread to "
		    "read %s: %s", dir, strerror(rc));
		free(rl->dir);
		free(rl);
		return NULL;
	}
	return rl;
}

void
het_runload_free(struct het_runload *rl)
{
	if (rl == NULL)
		return;
	pthread_join(rl->thread, NULL);
	free(rl->dir);
	free(rl);
}
