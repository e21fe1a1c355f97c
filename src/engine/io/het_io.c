/*
 * het_io.c: the I/O thread of the workstation (see het_io.h).
 *
 * Design: two single-entry request slots under one mutex and a condition
 * variable; "latest wins" is the whole scheduling policy, which is what an
 * interactive viewer wants: when the user scrolls through twenty bins
 * only the bin the cursor stops on is read.  The thread owns the open
 * struct het_dataset and a cache of the last matrix read, so a resize
 * (new grid size, same bin and window) recomputes the grid without
 * touching the file.  Computations check between row blocks whether their
 * request was superseded or the server is stopping, and give up early;
 * an HDF5 read in progress cannot be interrupted and finishes first.
 * Nothing here draws or prints: results and errors become het_evq events.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "het_h5.h"
#include "het_io.h"
#include "het_io_impl.h"
#include "het_thread.h"
#include "het_util.h"

struct het_io {
	struct het_evq	*q;		/* borrowed */
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;
	pthread_t	 thread;
	int		 started;
	atomic_int	 stop;
	unsigned long	 next_gen;	/* last generation handed out */

	/* Request slots (under lock). */
	int		 open_pending;
	char		*open_path;
	unsigned long	 open_gen;
	int		 view_pending;
	struct het_io_view_req view_req;
	char		*view_model;	/* view_req.model_dir (owned) */
	unsigned long	 view_gen;
	int		 serving;	/* a request is being served */

	/* Owned by the thread. */
	struct het_dataset *ds;
	double		*cache;		/* last matrix read, or NULL */
	size_t		 cache_bin;
	long		 cache_first, cache_last;
	enum het_tri	 cache_tri;
	struct het_io_mcache mc;	/* the model of the cuts */
};

void
het_io_block(size_t n, size_t p, size_t k, size_t *lo, size_t *hi)
{
	*lo = k * n / p;
	*hi = (k + 1) * n / p;
}

/* Is the view of generation gen no longer wanted? */
static int
io_superseded(struct het_io *io, unsigned long gen)
{
	int dead;

	if (io == NULL)
		return 0;
	if (atomic_load(&io->stop))
		return 1;
	pthread_mutex_lock(&io->lock);
	dead = io->open_pending || (io->view_pending && io->view_gen > gen);
	pthread_mutex_unlock(&io->lock);
	return dead;
}

/* Block means; returns -1 when abandoned (io, gen: supersession check). */
static int
io_grid(struct het_io *io, unsigned long gen, const double *c2, size_t n,
    size_t rows, size_t cols, double *grid, double *gmin, double *gmax)
{
	size_t *colof, r, i, j, lo, hi, c, clo, chi;
	double *acc, v, cnt;

	colof = malloc(n * sizeof(*colof));
	acc = calloc(cols, sizeof(*acc));
	if (colof == NULL || acc == NULL) {
		free(colof);
		free(acc);
		return -2;
	}
	for (c = 0; c < cols; c++) {
		het_io_block(n, cols, c, &clo, &chi);
		for (j = clo; j < chi; j++)
			colof[j] = c;
	}
	*gmin = INFINITY;
	*gmax = -INFINITY;
	for (r = 0; r < rows; r++) {
		if (io_superseded(io, gen)) {
			free(colof);
			free(acc);
			return -1;
		}
		memset(acc, 0, cols * sizeof(*acc));
		het_io_block(n, rows, r, &lo, &hi);
		for (i = lo; i < hi; i++)
			for (j = 0; j < n; j++)
				acc[colof[j]] += c2[i * n + j];
		for (c = 0; c < cols; c++) {
			het_io_block(n, cols, c, &clo, &chi);
			cnt = (double)(hi - lo) * (double)(chi - clo);
			v = acc[c] / cnt;
			grid[r * cols + c] = v;
			if (v < *gmin)
				*gmin = v;
			if (v > *gmax)
				*gmax = v;
		}
	}
	free(colof);
	free(acc);
	return 0;
}

void
het_io_grid(const double *c2, size_t n, size_t rows, size_t cols,
    double *grid, double *gmin, double *gmax)
{
	(void)io_grid(NULL, 0, c2, n, rows, cols, grid, gmin, gmax);
}

/* Age-lag means; -1 when abandoned, -2 out of memory (see het_io.h). */
static int
io_age_lag(struct het_io *io, unsigned long gen, const double *c2,
    size_t n, size_t nage, double *al)
{
	size_t *blk, *cnt, i, k, h, a, lo, hi, nh = 2 * n - 1;

	blk = malloc(nh * sizeof(*blk));
	cnt = calloc(nage * n, sizeof(*cnt));
	if (blk == NULL || cnt == NULL) {
		free(blk);
		free(cnt);
		return -2;
	}
	for (a = 0; a < nage; a++) {
		het_io_block(nh, nage, a, &lo, &hi);
		for (h = lo; h < hi; h++)
			blk[h] = a;
	}
	memset(al, 0, nage * n * sizeof(*al));
	for (i = 0; i < n; i++) {
		if (io_superseded(io, gen)) {
			free(blk);
			free(cnt);
			return -1;
		}
		for (k = 0; i + k < n; k++) {
			a = blk[2 * i + k];
			al[a * n + k] += c2[i * n + i + k];
			cnt[a * n + k]++;
		}
	}
	for (i = 0; i < nage * n; i++)
		al[i] = cnt[i] > 0 ? al[i] / (double)cnt[i] : NAN;
	free(blk);
	free(cnt);
	return 0;
}

int
het_io_age_lag(const double *c2, size_t n, size_t nage, double *al)
{
	return io_age_lag(NULL, 0, c2, n, nage, al);
}

static double
io_baseline(const double *c2, size_t n)
{
	size_t i, j, lag0 = (3 * (n - 1) + 3) / 4, cnt = 0;
	double s = 0;

	if (lag0 < 1)
		lag0 = 1;
	for (i = 0; i + lag0 < n; i++)
		for (j = i + lag0; j < n; j++) {
			s += c2[i * n + j];
			cnt++;
		}
	return cnt > 0 ? s / (double)cnt : NAN;
}

void
het_io_meta_free(void *p)
{
	struct het_io_meta *m = p;

	if (m == NULL)
		return;
	free(m->path);
	free(m->dt_source);
	free(m->q_list);
	free(m->phi_list);
	free(m->bins);
	free(m);
}

void
het_io_view_free(void *p)
{
	struct het_io_view *v = p;

	if (v == NULL)
		return;
	free(v->grid);
	free(v->g2);
	free(v->age_lag);
	free(v->model_al);
	free(v);
}

static void
io_post(struct het_io *io, int type, void *data, void (*free_cb)(void *))
{
	struct het_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.data = data;
	ev.free_cb = free_cb;
	if (het_evq_post(io->q, &ev) != HET_OK)
		free_cb(data);	/* out of memory: the result is lost */
}

static void
io_fail(struct het_io *io, enum het_io_req_kind kind, unsigned long gen,
    size_t bin, const struct het_error *err)
{
	struct het_io_failure *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return;
	f->gen = gen;
	f->kind = kind;
	f->bin = bin;
	f->err = *err;
	io_post(io, HET_IO_EV_ERROR, f, free);
}

static struct het_io_meta *
io_snapshot(struct het_dataset *ds, unsigned long gen, struct het_error *e)
{
	const struct het_dataset_info *in = het_dataset_info(ds);
	struct het_io_meta *m;
	const struct het_bin *b;
	size_t k;

	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		het_error_set(e, HET_ENOMEM, "out of memory copying metadata");
		return NULL;
	}
	m->gen = gen;
	m->layout = in->layout;
	m->dtype = in->dtype;
	m->compression = in->compression;
	m->nbins = in->nbins;
	m->n_q = in->n_q;
	m->n_phi = in->n_phi;
	m->frames = in->frames;
	m->dt = in->dt;
	m->energy_kev = in->energy_kev;
	m->distance_m = in->distance_m;
	m->path = het_strdup(in->path, e);
	m->dt_source = het_strdup(in->dt_source != NULL ? in->dt_source :
	    "none", e);
	m->q_list = het_alloc_array(in->n_q, sizeof(double), "q list", e);
	m->phi_list = het_alloc_array(in->n_phi, sizeof(double), "phi list",
	    e);
	m->bins = het_alloc_array(in->nbins, sizeof(*m->bins), "bin list", e);
	if (m->path == NULL || m->dt_source == NULL || m->q_list == NULL ||
	    m->phi_list == NULL || m->bins == NULL) {
		het_io_meta_free(m);
		return NULL;
	}
	if (in->n_q > 0)
		memcpy(m->q_list, in->q_list, in->n_q * sizeof(double));
	if (in->n_phi > 0)
		memcpy(m->phi_list, in->phi_list, in->n_phi * sizeof(double));
	for (k = 0; k < in->nbins; k++) {
		b = het_dataset_bin(ds, k);
		m->bins[k].label = b->label;
		m->bins[k].q_idx = b->q_idx;
		m->bins[k].phi_idx = b->phi_idx;
		m->bins[k].q = b->q;
		m->bins[k].phi = b->phi;
	}
	return m;
}

/* The open's answer for a file whose two-time data did not open. */
static void
io_open_failed(struct het_io *io, struct het_error *err,
    struct het_io_mt *mt, const struct het_error *merr, unsigned long gen)
{
	if (mt != NULL && mt->mt != NULL) {
		/* multitau data only: that is the file, the old one goes */
		mt->gen = gen;
		mt->only = 1;
		if (mt->mt->has_twotime)
			mt->twotime = *err;
		het_dataset_close(io->ds);
		io->ds = NULL;
		free(io->cache);
		io->cache = NULL;
		io_post(io, HET_IO_EV_MULTITAU, mt, het_io_mt_free);
		return;
	}
	het_multitau_why_not(err, mt != NULL ? &mt->err : merr, err);
	het_io_mt_free(mt);
	io_fail(io, HET_IO_REQ_OPEN, gen, 0, err);
}

static void
io_do_open(struct het_io *io, char *path, unsigned long gen)
{
	struct het_error err, merr;
	struct het_dataset *ds;
	struct het_io_meta *m;
	struct het_io_mt *mt;

	het_error_clear(&err);
	het_error_clear(&merr);
	ds = het_dataset_open(path, &err);
	mt = het_io_mt_load(path, &merr);	/* NULL: no multitau data */
	if (ds == NULL) {
		io_open_failed(io, &err, mt, &merr, gen);
		return;
	}
	m = io_snapshot(ds, gen, &err);
	if (m == NULL) {
		het_dataset_close(ds);
		het_io_mt_free(mt);
		io_fail(io, HET_IO_REQ_OPEN, gen, 0, &err);
		return;
	}
	het_dataset_close(io->ds);
	io->ds = ds;
	free(io->cache);
	io->cache = NULL;
	io_post(io, HET_IO_EV_OPENED, m, het_io_meta_free);
	if (mt != NULL) {
		mt->gen = gen;
		io_post(io, HET_IO_EV_MULTITAU, mt, het_io_mt_free);
	}
}

/*
 * The age-lag means of the fitted model of rq->model_dir over v's window
 * (het_io_model.c reads it), or why there are none.  Memory for the
 * model's matrix is the model's problem, not the view's: without it the
 * data are shown and the note says so.  0, or -1 (abandoned) as
 * io_age_lag.
 */
static int
io_model(struct het_io *io, unsigned long gen,
    const struct het_io_view_req *rq, struct het_io_view *v)
{
	const struct het_dataset_info *in = het_dataset_info(io->ds);
	struct het_error err;
	double *m;
	int rc = 0;

	het_error_clear(&err);
	if ((m = het_alloc_array(v->n * v->n, sizeof(double), "model",
	    &err)) == NULL) {
		v->model = HET_IO_MODEL_UNREADABLE;
		snprintf(v->model_note, sizeof(v->model_note), "not enough "
		    "memory for the fitted model of %ld frames; zoom in (z) "
		    "to see it", v->last - v->first + 1);
		return 0;
	}
	v->model = het_io_model_fill(&io->mc, rq->model_dir, in->path,
	    rq->bin, het_dataset_bin(io->ds, rq->bin)->phi, v->first, v->last,
	    m, v->model_note, sizeof(v->model_note));
	v->model_first = io->mc.sel.first_frame;
	v->model_last = io->mc.sel.first_frame +
	    (long)io->mc.sel.n_frames - 1;
	if (v->model == HET_IO_MODEL_SHOWN &&
	    (v->model_al = het_alloc_array(v->nage * v->n, sizeof(double),
	    "model age-lag means", &err)) != NULL)
		rc = io_age_lag(io, gen, m, v->n, v->nage, v->model_al);
	if (v->model == HET_IO_MODEL_SHOWN && (v->model_al == NULL ||
	    rc == -2)) {
		free(v->model_al);
		v->model_al = NULL;
		v->model = HET_IO_MODEL_UNREADABLE;
		snprintf(v->model_note, sizeof(v->model_note), "not enough "
		    "memory for the model's cuts");
		rc = 0;
	}
	free(m);
	return rc;
}

static void
io_do_view(struct het_io *io, const struct het_io_view_req *rq,
    unsigned long gen)
{
	const struct het_dataset_info *in;
	struct het_c2_info ci;
	struct het_error err;
	struct het_io_view *v = NULL;
	double t0 = het_clock_now();
	long first, last;
	size_t n;
	int rc;

	het_error_clear(&err);
	if (io->ds == NULL) {
		het_error_set(&err, HET_EINVAL, "no data file is open; "
		    "open one with 'hetui FILE'");
		goto fail;
	}
	in = het_dataset_info(io->ds);
	first = rq->first > 0 ? rq->first : 1;
	last = rq->last > 0 ? rq->last : (long)in->frames;
	if (io->cache == NULL || io->cache_bin != rq->bin ||
	    io->cache_first != first || io->cache_last != last) {
		free(io->cache);
		io->cache = NULL;
		if (first < 1 || last < first || last > (long)in->frames ||
		    rq->bin >= in->nbins) {
			/* Let the data layer word the error. */
			n = 2;
		} else
			n = (size_t)(last - first + 1);
		io->cache = het_alloc_array(n * n, sizeof(double),
		    "c2 matrix", &err);
		if (io->cache == NULL)
			goto fail;
		rc = het_dataset_read_c2(io->ds, rq->bin, first, last,
		    io->cache, &ci, &err);
		if (rc != HET_OK) {
			free(io->cache);
			io->cache = NULL;
			goto fail;
		}
		io->cache_bin = rq->bin;
		io->cache_first = first;
		io->cache_last = last;
		io->cache_tri = ci.tri;
	}
	n = (size_t)(last - first + 1);
	if (io_superseded(io, gen))
		return;
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		goto nomem;
	v->gen = gen;
	v->bin = rq->bin;
	v->first = first;
	v->last = last;
	v->n = n;
	v->rows = rq->rows < n ? rq->rows : n;
	v->cols = rq->cols < n ? rq->cols : n;
	v->tri = io->cache_tri;
	v->grid = het_alloc_array(v->rows * v->cols, sizeof(double), "grid",
	    &err);
	v->g2 = het_alloc_array(n, sizeof(double), "projection", &err);
	v->nage = v->cols < 2 * n - 1 ? v->cols : 2 * n - 1;
	v->age_lag = het_alloc_array(v->nage * n, sizeof(double), "age-lag "
	    "means", &err);
	if (v->grid == NULL || v->g2 == NULL || v->age_lag == NULL)
		goto nomem;
	rc = io_grid(io, gen, io->cache, n, v->rows, v->cols, v->grid,
	    &v->gmin, &v->gmax);
	if (rc == 0)
		rc = io_age_lag(io, gen, io->cache, n, v->nage, v->age_lag);
	if (rc == 0 && rq->model_dir != NULL)
		rc = io_model(io, gen, rq, v);
	if (rc == -2)
		goto nomem;
	if (rc != 0 || io_superseded(io, gen)) {
		het_io_view_free(v);
		return;
	}
	het_c2_lag_means(io->cache, n, v->g2);
	v->baseline = io_baseline(io->cache, n);
	v->seconds = het_clock_now() - t0;
	io_post(io, HET_IO_EV_VIEW, v, het_io_view_free);
	return;
nomem:
	het_io_view_free(v);
	het_error_set(&err, HET_ENOMEM, "out of memory computing the view "
	    "of bin %zu", rq->bin);
fail:
	if (!io_superseded(io, gen))
		io_fail(io, HET_IO_REQ_VIEW, gen, rq->bin, &err);
}

static void *
io_main(void *arg)
{
	struct het_io *io = arg;
	struct het_io_view_req rq;
	unsigned long gen;
	char *path;

	het_h5_quiet_thread();
	pthread_mutex_lock(&io->lock);
	for (;;) {
		io->serving = 0;
		while (!atomic_load(&io->stop) && !io->open_pending &&
		    !io->view_pending)
			pthread_cond_wait(&io->cond, &io->lock);
		if (atomic_load(&io->stop))
			break;
		io->serving = 1;
		if (io->open_pending) {
			path = io->open_path;
			gen = io->open_gen;
			io->open_path = NULL;
			io->open_pending = 0;
			pthread_mutex_unlock(&io->lock);
			io_do_open(io, path, gen);
			free(path);
		} else {
			rq = io->view_req;
			path = io->view_model;	/* now ours */
			rq.model_dir = path;
			io->view_model = NULL;
			gen = io->view_gen;
			io->view_pending = 0;
			pthread_mutex_unlock(&io->lock);
			io_do_view(io, &rq, gen);
			free(path);
		}
		pthread_mutex_lock(&io->lock);
	}
	io->serving = 0;
	pthread_mutex_unlock(&io->lock);
	return NULL;
}

struct het_io *
het_io_alloc(struct het_evq *q, struct het_error *err)
{
	struct het_io *io;

	io = calloc(1, sizeof(*io));
	if (io == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory starting the "
		    "I/O thread");
		return NULL;
	}
	io->q = q;
	io->mc.angle = -1;
	atomic_init(&io->stop, 0);
	if (pthread_mutex_init(&io->lock, NULL) != 0) {
		free(io);
		het_error_set(err, HET_EINTERNAL, "cannot create the I/O "
		    "thread's mutex");
		return NULL;
	}
	if (pthread_cond_init(&io->cond, NULL) != 0) {
		pthread_mutex_destroy(&io->lock);
		free(io);
		het_error_set(err, HET_EINTERNAL, "cannot create the I/O "
		    "thread's condition variable");
		return NULL;
	}
	return io;
}

int
het_io_start(struct het_io *io, struct het_error *err)
{
	int rc;

	if (io->started)
		return het_error_set(err, HET_EINTERNAL,
		    "the I/O thread is already running");
	rc = het_thread_spawn(&io->thread, io_main, io);
	if (rc != 0)
		return het_error_set(err, HET_EINTERNAL,
		    "cannot start the I/O thread: %s", strerror(rc));
	io->started = 1;
	return HET_OK;
}

int
het_io_open(struct het_io *io, const char *path, unsigned long *gen,
    struct het_error *err)
{
	char *copy = het_strdup(path, err);

	if (copy == NULL)
		return HET_ENOMEM;
	pthread_mutex_lock(&io->lock);
	free(io->open_path);
	io->open_path = copy;
	io->open_gen = ++io->next_gen;
	io->open_pending = 1;
	io->view_pending = 0;	/* a view of the old file is meaningless */
	if (gen != NULL)
		*gen = io->open_gen;
	pthread_cond_signal(&io->cond);
	pthread_mutex_unlock(&io->lock);
	return HET_OK;
}

int
het_io_view(struct het_io *io, const struct het_io_view_req *req,
    unsigned long *gen, struct het_error *err)
{
	char *model = NULL;

	if (req->rows == 0 || req->cols == 0)
		return het_error_set(err, HET_EINVAL, "a view needs a grid "
		    "of at least 1 x 1 (got %zu x %zu)", req->rows, req->cols);
	if (req->model_dir != NULL && (model = het_strdup(req->model_dir,
	    err)) == NULL)
		return HET_ENOMEM;
	pthread_mutex_lock(&io->lock);
	free(io->view_model);
	io->view_model = model;
	io->view_req = *req;
	io->view_req.model_dir = NULL;
	io->view_gen = ++io->next_gen;
	io->view_pending = 1;
	if (gen != NULL)
		*gen = io->view_gen;
	pthread_cond_signal(&io->cond);
	pthread_mutex_unlock(&io->lock);
	return HET_OK;
}

int
het_io_busy(struct het_io *io)
{
	int busy;

	pthread_mutex_lock(&io->lock);
	busy = io->serving || io->open_pending || io->view_pending;
	pthread_mutex_unlock(&io->lock);
	return busy;
}

void
het_io_free(struct het_io *io)
{
	if (io == NULL)
		return;
	pthread_mutex_lock(&io->lock);
	atomic_store(&io->stop, 1);
	io->open_pending = 0;
	io->view_pending = 0;
	pthread_cond_signal(&io->cond);
	pthread_mutex_unlock(&io->lock);
	if (io->started)
		pthread_join(io->thread, NULL);
	free(io->open_path);
	free(io->view_model);
	free(io->cache);
	het_io_model_clear(&io->mc);
	het_dataset_close(io->ds);
	pthread_cond_destroy(&io->cond);
	pthread_mutex_destroy(&io->lock);
	free(io);
}
