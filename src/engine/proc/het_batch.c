/*
 * het_batch.c: a batch of fits as a child `hetui fit --wire` (see
 * het_batch.h).
 *
 * Design: one het_procset of one process; its record callback turns
 * each record into the view (a record that is not what section 7 of
 * docs/wire-protocol.md says, or refers to a ring or file that did not
 * start, changes nothing: the view never trusts an index), its done
 * callback ends the batch and, when no result came, keeps the reason:
 * the child's own error record first, else het_proc's verdict.  The
 * temporary folder holds the configuration and the child's stderr log;
 * it is kept only for a child that ended without a result or an error
 * record of its own, whose log is then the clue.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_batch.h"
#include "het_proc.h"
#include "het_thread.h"
#include "het_util.h"
#include "het_wire.h"

#define BATCH_GRACE	5.0	/* s between SIGTERM and SIGKILL */
#define BATCH_NOTES_MAX	200	/* notes kept; the oldest go */

struct het_batch {
	struct het_batch_view v;
	char		*tmp;		/* the temporary folder */
	char		*cfg_path;	/* tmp/config.yaml */
	char		*log_path;	/* the child's stderr log, or NULL */
	struct het_procset *set;
	struct het_proc	*p;
	unsigned long	 serial;	/* bumps whenever the view changes */
	int		 told;		/* the child sent an error record */
	int		 nomem;		/* a record was lost to memory */
};

/* ---- the view from the records ------------------------------------------- */

static const char *
jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static double
jnum(const json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

static char *
dup_or_null(struct het_batch *b, const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		b->nomem = 1;
	return d;
}

static void
replace(struct het_batch *b, char **dst, const char *s)
{
	free(*dst);
	*dst = dup_or_null(b, s);
}

static void
add_note(struct het_batch *b, const char *level, const char *text)
{
	struct het_batch_view *v = &b->v;
	char *line;
	void *p;

	if (v->nnotes == BATCH_NOTES_MAX) {
		free(v->notes[0]);
		memmove(v->notes, v->notes + 1, (v->nnotes - 1) *
		    sizeof(*v->notes));
		v->nnotes--;
	}
	if (asprintf(&line, "%s: %s", level, text) < 0 ||
	    (p = realloc(v->notes, (v->nnotes + 1) *
	    sizeof(*v->notes))) == NULL) {
		b->nomem = 1;
		return;
	}
	v->notes = p;
	v->notes[v->nnotes++] = line;
}

/* The member a record names by its 1-based index, or NULL. */
static struct het_batch_member *
member(struct het_batch *b, const json_t *o)
{
	double i = jnum(o, "index", 0);

	return i >= 1 && i <= (double)b->v.nm && i == floor(i) ?
	    &b->v.m[(size_t)i - 1] : NULL;
}

static void
on_start(struct het_batch *b, const json_t *o)
{
	struct het_batch_view *v = &b->v;
	struct het_batch_member *m;
	void *p;

	if (jnum(o, "index", 0) != (double)v->nm + 1 ||
	    (p = realloc(v->m, (v->nm + 1) * sizeof(*v->m))) == NULL)
		return;
	v->m = p;
	m = &v->m[v->nm++];
	memset(m, 0, sizeof(*m));
	m->label = dup_or_null(b, jstr(o, "label"));
	m->dir = dup_or_null(b, jstr(o, "dir"));
	m->chi2_red = NAN;
	m->from = (long)jnum(o, "from", 0);
	v->of = (size_t)jnum(o, "of", (double)v->of);
	v->bin = v->bins = 0;
	v->iterating = 0;
}

static void
on_progress(struct het_batch *b, const json_t *o)
{
	struct het_batch_view *v = &b->v;
	struct het_batch_member *m;
	const char *kind = jstr(o, "kind");

	if (strcmp(kind, "batch") == 0) {
		replace(b, &v->batch_dir, jstr(o, "dir"));
		v->of = (size_t)jnum(o, "of", 0);
	} else if (strcmp(kind, "start") == 0)
		on_start(b, o);
	else if (strcmp(kind, "read") == 0) {
		v->bin = (size_t)jnum(o, "bin", 0);
		v->bins = (size_t)jnum(o, "bins", 0);
	} else if (strcmp(kind, "iter") == 0) {
		v->iterating = 1;
		v->iter = (long)jnum(o, "iter", 0);
		v->cost = jnum(o, "cost", NAN);
		v->chi2_red = jnum(o, "chi2_red", NAN);
		snprintf(v->who, sizeof(v->who), "%s", jstr(o, "who"));
	} else if (strcmp(kind, "done") == 0 && (m = member(b, o)) != NULL) {
		replace(b, &m->status, jstr(o, "status"));
		m->chi2_red = jnum(o, "chi2_red", NAN);
	} else if (strcmp(kind, "failed") == 0 &&
	    (m = member(b, o)) != NULL) {
		replace(b, &m->status, "failed");
		replace(b, &m->msg, jstr(o, "msg"));
	} else if (strcmp(kind, "note") == 0)
		add_note(b, jstr(o, "level"), jstr(o, "text"));
}

static void
on_result(struct het_batch *b, const json_t *o)
{
	struct het_batch_view *v = &b->v;
	const char *dir = json_string_value(json_object_get(o, "batch_dir"));

	v->have_result = 1;
	replace(b, &v->status, jstr(o, "status"));
	replace(b, &v->summary, jstr(o, "summary"));
	v->exit_code = (int)jnum(o, "exit", -1);
	v->n_fitted = (size_t)jnum(o, "n_fitted", 0);
	if (dir != NULL)
		replace(b, &v->batch_dir, dir);
}

static void
on_record(struct het_proc *p, const struct het_wire_rec *rec, void *arg)
{
	struct het_batch *b = arg;
	struct het_wire_errinfo ei;
	struct het_error err;

	(void)p;
	b->serial++;
	switch (rec->type) {
	case HET_WIRE_PROGRESS:
		on_progress(b, rec->payload);
		break;
	case HET_WIRE_RESULT:
		on_result(b, rec->payload);
		break;
	case HET_WIRE_ERROR:
		if (b->v.error == NULL && het_wire_error_unpack(rec->payload,
		    &ei, &err) == HET_OK) {
			b->v.error = dup_or_null(b, ei.msg);
			b->told = 1;
		}
		break;
	default:
		break;
	}
}

static void
on_done(struct het_proc *p, const struct het_proc_exit *ex, void *arg)
{
	struct het_batch *b = arg;

	(void)p;
	b->serial++;
	b->v.running = 0;
	b->v.ended = het_clock_now();
	if (!b->v.have_result && b->v.error == NULL)
		b->v.error = dup_or_null(b, ex->ok ? "the batch ended "
		    "without its summary" : ex->reason.msg);
}

/* ---- start --------------------------------------------------------------- */

/* The temporary folder and the configuration in it. */
static int
batch_files(struct het_batch *b, const struct het_batch_spec *spec,
    struct het_error *err)
{
	if ((b->tmp = het_proc_mkdtemp(spec->tmpdir, "hetui-batch",
	    "the batch's configuration", err)) == NULL)
		return err->code;
	if (asprintf(&b->cfg_path, "%s/config.yaml", b->tmp) < 0) {
		b->cfg_path = NULL;
		return het_error_set(err, HET_ENOMEM, "out of memory");
	}
	return het_config_write_yaml(spec->cfg, b->cfg_path, err);
}

/* The child's argv (malloc'd array of borrowed strings). */
static char **
batch_argv(const struct het_batch_spec *spec, const char *self,
    const char *cfg, struct het_error *err)
{
	size_t n = 9 + spec->ninputs, k = 0, i;	/* 7 words, a file, NULL */
	char **av = calloc(n, sizeof(*av));

	if (av == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	av[k++] = (char *)self;
	av[k++] = (char *)"fit";
	av[k++] = (char *)"-c";
	av[k++] = (char *)cfg;
	av[k++] = (char *)"--wire";
	av[k++] = (char *)(spec->kind == HET_BATCH_RINGS ? "--all-rings" :
	    "--series");
	av[k++] = (char *)"--";	/* a file may begin with '-' */
	if (spec->kind == HET_BATCH_RINGS)
		av[k++] = (char *)spec->data_path;
	for (i = 0; spec->kind == HET_BATCH_SERIES && i < spec->ninputs; i++)
		av[k++] = (char *)spec->inputs[i];
	av[k] = NULL;
	return av;
}

static int
batch_check(const struct het_batch_spec *spec, struct het_error *err)
{
	if (spec->cfg == NULL)
		return het_error_set(err, HET_EINVAL, "a batch needs a "
		    "configuration");
	if (spec->kind == HET_BATCH_RINGS && (spec->data_path == NULL ||
	    spec->data_path[0] == '\0'))
		return het_error_set(err, HET_EINVAL, "a batch of every ring "
		    "needs the data file: open one first");
	if (spec->kind == HET_BATCH_SERIES && spec->ninputs == 0)
		return het_error_set(err, HET_EINVAL, "a series needs its "
		    "files or their folder");
	return HET_OK;
}

struct het_batch *
het_batch_start(const struct het_batch_spec *spec, double now,
    struct het_error *err)
{
	struct het_proc_opts po;
	struct het_batch *b;
	char self[PATH_MAX], **av = NULL;

	if (batch_check(spec, err) != HET_OK)
		return NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	b->v.kind = spec->kind;
	b->v.started = now;
	het_proc_program(self, sizeof(self), spec->program);
	if (batch_files(b, spec, err) != HET_OK ||
	    (av = batch_argv(spec, self, b->cfg_path, err)) == NULL)
		goto fail;
	memset(&po, 0, sizeof(po));
	po.argv = av;
	po.log_dir = b->tmp;
	po.kill_grace = BATCH_GRACE;
	po.on_record = on_record;
	po.on_done = on_done;
	po.arg = b;
	if ((b->set = het_procset_alloc(&po, err)) == NULL)
		goto fail;
	if ((b->p = het_proc_spawn(b->set, 1, now, err)) == NULL) {
		het_error_prefix(err, "the batch (hetui fit --wire) did not "
		    "start");
		goto fail;
	}
	if (het_proc_log_path(b->p) != NULL &&
	    (b->log_path = strdup(het_proc_log_path(b->p))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		goto fail;
	}
	free(av);
	b->v.running = 1;
	return b;
fail:
	free(av);
	het_batch_free(b);
	return NULL;
}

/* ---- the loop ------------------------------------------------------------ */

const struct het_batch_view *
het_batch_view(const struct het_batch *b)
{
	return &b->v;
}

size_t
het_batch_pollfds(struct het_batch *b, struct pollfd *fds, size_t cap)
{
	size_t n = 0;

	if (b->set == NULL || het_procset_pollfds(b->set, fds, cap, &n) !=
	    HET_OK)
		return 0;
	return n;
}

double
het_batch_deadline(const struct het_batch *b, double now)
{
	return b->v.running ? het_procset_wake(b->set, now, 1.0) : -1;
}

int
het_batch_handle(struct het_batch *b, const struct pollfd *fds, size_t n,
    double now)
{
	unsigned long before = b->serial;

	if (b->v.running)
		het_procset_step(b->set, fds, n, now);
	return b->serial != before;
}

void
het_batch_cancel(struct het_batch *b)
{
	if (!b->v.running || b->v.cancelling)
		return;
	b->v.cancelling = 1;
	het_proc_close_stdin(b->p);
}

void
het_batch_wind_down(struct het_batch *b, double wait)
{
	if (b == NULL || !b->v.running)
		return;
	b->v.cancelling = 1;
	het_procset_shutdown_all(b->set, wait);
}

/* ---- the end ------------------------------------------------------------- */

static void
member_free(struct het_batch_member *m)
{
	free(m->label);
	free(m->dir);
	free(m->status);
	free(m->msg);
}

void
het_batch_free(struct het_batch *b)
{
	struct het_batch_view *v;
	struct stat st;
	int keep;
	size_t k;

	if (b == NULL)
		return;
	v = &b->v;
	het_procset_free(b->set);	/* SIGKILLs and reaps a live child */
	/* the log is the only clue to a child that died unexplained */
	keep = !v->have_result && !b->told && b->log_path != NULL &&
	    stat(b->log_path, &st) == 0 && st.st_size > 0;
	if (!keep) {
		if (b->log_path != NULL)
			unlink(b->log_path);
		if (b->cfg_path != NULL)
			unlink(b->cfg_path);
		if (b->tmp != NULL)
			rmdir(b->tmp);
	}
	for (k = 0; k < v->nm; k++)
		member_free(&v->m[k]);
	free(v->m);
	for (k = 0; k < v->nnotes; k++)
		free(v->notes[k]);
	free(v->notes);
	free(v->batch_dir);
	free(v->status);
	free(v->summary);
	free(v->error);
	free(b->tmp);
	free(b->cfg_path);
	free(b->log_path);
	free(b);
}
