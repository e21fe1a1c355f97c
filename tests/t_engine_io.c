/*
 * t_engine_io.c: the workstation's I/O thread (het_io).
 *
 * A small float64 APS-U file with known matrices is written through the
 * data layer; then: open -> metadata snapshot; view -> grid, projection
 * and baseline against values computed here independently; a frame
 * window; supersession (queued before the thread starts, so the outcome
 * is deterministic); an open dropping a queued view; errors for a
 * missing file, a view with nothing open, a bad bin and a bad window;
 * signals blocked in the thread; and shutdown with work in flight.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_io.h"
#include "tap.h"

#define N	8
#define SIGBIT(s) (1ULL << ((s) - 1))
#define NBIG	300

static double
truth(size_t k, size_t i, size_t j)
{
	double lag = i > j ? (double)(i - j) : (double)(j - i);

	return 1.0 + 0.1375 * (double)(k + 1) * exp(-0.385 * lag) +
	    0.0121 * (double)(i + j) / N;
}

static int
fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	size_t n = *(size_t *)arg, i, j;

	(void)err;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			c2[i * n + j] = truth(k, i, j);
	return HET_OK;
}

static int
write_file(const char *path, size_t n)
{
	static const double q[1] = { 0.0031 }, phi[2] = { -45.5, 60.25 };
	static size_t nn;
	struct het_apsu_spec sp;
	struct het_error err;

	nn = n;
	het_apsu_spec_init(&sp);
	sp.n_q = 1;
	sp.n_phi = 2;
	sp.q = q;
	sp.phi = phi;
	sp.nbins = 2;
	sp.frames = n;
	sp.fill = fill;
	sp.fill_arg = &nn;
	sp.dtype = HET_DTYPE_F64;
	sp.frame_time = 0.0025;
	sp.stride_frame = 4;
	sp.avg_frame = 1;
	het_error_clear(&err);
	if (het_apsu_write(path, &sp, &err) != HET_OK) {
		diag("cannot write the fixture: %s", err.msg);
		return -1;
	}
	return 0;
}

/* Next event within ms milliseconds; returns 0 on timeout. */
static struct het_event pend[16];
static size_t npend, ipend;

static int
next_event(struct het_evq *q, struct het_event *ev, int ms)
{
	struct pollfd p;

	while (ipend >= npend) {
		p.fd = het_evq_fd(q);
		p.events = POLLIN;
		if (poll(&p, 1, ms) <= 0)
			return 0;
		npend = het_evq_drain(q, pend, 16);
		ipend = 0;
	}
	*ev = pend[ipend++];
	return 1;
}

static void
ev_free(struct het_event *ev)
{
	if (ev->data != NULL && ev->free_cb != NULL)
		ev->free_cb(ev->data);
	ev->data = NULL;
}

/* The expected window matrix: truth with the data layer's diagonal rule. */
static void
expected(size_t k, long first, long last, double *m)
{
	size_t n = (size_t)(last - first + 1), i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			m[i * n + j] = truth(k, (size_t)first - 1 + i,
			    (size_t)first - 1 + j);
	m[0] = m[1];
	m[(n - 1) * n + n - 1] = m[(n - 2) * n + n - 1];
	for (i = 1; i + 1 < n; i++)
		m[i * n + i] = 0.5 * (m[(i - 1) * n + i] + m[i * n + i + 1]);
}

/* Threads other than main that block the loop's signals (-1: no /proc). */
static int
threads_block_signals(void)
{
	char path[300], line[256];
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	FILE *fp;
	int blocked = 0;
	unsigned long long mask;
	pid_t me = getpid();

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atol(de->d_name) == me)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
		    de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), fp) != NULL) {
			if (strncmp(line, "SigBlk:", 7) != 0)
				continue;
			mask = strtoull(line + 7, NULL, 16);
			if (mask & SIGBIT(SIGINT) && mask & SIGBIT(SIGTERM) &&
			    mask & SIGBIT(SIGHUP) && mask & SIGBIT(SIGWINCH) &&
			    mask & SIGBIT(SIGCHLD) && mask & SIGBIT(SIGTSTP) &&
			    mask & SIGBIT(SIGCONT) && mask & SIGBIT(SIGPIPE))
				blocked++;
		}
		fclose(fp);
	}
	closedir(d);
	return blocked;
}

int
main(void)
{
	char dir[256], small[300], big[300];
	struct het_io_view_req rq;
	struct het_io_meta *m;
	struct het_io_view *v;
	struct het_io_failure *f;
	struct het_event ev;
	struct het_error err;
	struct het_evq *q;
	struct het_io *io;
	unsigned long g_open, g_a, g_b;
	double want[N * N], grid[4], gmin, gmax, s, worst;
	size_t i, j, r, c, lo, hi, clo, chi, cnt, events;
	int blk, blk0;
	double t0;

	plan(58);
	memset(&rq, 0, sizeof(rq));	/* no model_dir: a view of data */
	het_error_clear(&err);
	if (tap_tmpdir(dir, sizeof(dir), "t_engine_io") == NULL ||
	    het_h5_library_init(&err) != HET_OK)
		skip_all("no temporary directory or HDF5");
	snprintf(small, sizeof(small), "%s/small.hdf", dir);
	snprintf(big, sizeof(big), "%s/big.hdf", dir);
	ok(write_file(small, N) == 0, "fixture written (2 bins, %d frames)",
	    N);
	q = het_evq_alloc(&err);

	/* het_io_grid on a 3x3 matrix into 2x2: blocks [0,1) and [1,3). */
	{
		const double a[9] = { 1, 2, 3, 2, 5, 6, 3, 6, 9.5 };

		het_io_grid(a, 3, 2, 2, grid, &gmin, &gmax);
		is_double(grid[0], 1.0, 1e-15, "grid[0,0] = a00");
		is_double(grid[1], 2.5, 1e-15, "grid[0,1] = mean(a01, a02)");
		is_double(grid[3], (5 + 6 + 6 + 9.5) / 4, 1e-15,
		    "grid[1,1] = mean of the 2x2 block");
		ok(gmin == 1.0 && gmax == grid[3], "grid range");
	}

	/*
	 * het_io_age_lag on a 4x4 matrix c2[i][j] = 10 (i + j) + |j - i|
	 * (age in half frames h = i + j, lag k): into 7 age blocks (one per
	 * h) every cell is exact, NAN where no pair has that lag at that
	 * age; into 2 blocks, h in [0, 3) and [3, 7), cell (1, lag 1) is
	 * the mean of pairs (1,2) and (2,3): (31 + 51) / 2.
	 */
	{
		double a4[16], al[7 * 4];
		size_t ii, jj, bad = 0;

		for (ii = 0; ii < 4; ii++)
			for (jj = 0; jj < 4; jj++)
				a4[ii * 4 + jj] = 10.0 * (double)(ii + jj) +
				    (double)(jj > ii ? jj - ii : ii - jj);
		is_int(het_io_age_lag(a4, 4, 7, al), 0, "age-lag: 7 blocks");
		for (ii = 0; ii < 7; ii++)
			for (jj = 0; jj < 4; jj++) {
				int has = jj <= ii && (ii - jj) % 2 == 0 &&
				    ii + jj <= 6;
				double want4 = 10.0 * (double)ii + (double)jj;

				if (has ? al[ii * 4 + jj] != want4 :
				    !isnan(al[ii * 4 + jj]))
					bad++;
			}
		is_int((long long)bad, 0, "... every (age, lag) cell exact, "
		    "NAN where no pair");
		het_io_age_lag(a4, 4, 2, al);
		is_double(al[1 * 4 + 1], (31.0 + 51.0) / 2, 1e-12, "... 2 "
		    "blocks: the old block's lag 1 is the mean of (1,2) and "
		    "(2,3)");
		is_double(al[0 * 4 + 2], 22.0, 1e-12, "... young block, lag "
		    "2: pair (0,2) only");
	}

	/* Open and view. */
	io = het_io_alloc(q, &err);
	blk0 = threads_block_signals();
	ok(io != NULL && het_io_start(io, &err) == HET_OK, "thread starts");
	blk = threads_block_signals();
	if (blk < 0 || blk0 < 0)
		skip(1, "no /proc/self/task");
	else
		ok(blk == blk0 + 1, "the I/O thread blocks every signal");
	ok(het_io_open(io, small, &g_open, &err) == HET_OK, "open queued");
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_OPENED,
	    "OPENED arrives");
	m = ev.data;
	is_int((long long)m->gen, (long long)g_open, "with the open's gen");
	is_int((long long)m->nbins, 2, "2 bins");
	is_int((long long)m->frames, N, "%d frames", N);
	is_rel(m->dt, 0.01, 1e-12, "dt = frame_time * stride = 0.01 s");
	is_double(m->phi_list[1], 60.25, 1e-12, "phi list copied");
	is_double(m->bins[1].phi, 60.25, 1e-12, "bin 1 phi");
	is_int(m->bins[1].label, 2, "bin 1 label");
	like(m->path, "small.hdf", "path copied");
	ev_free(&ev);

	rq.bin = 1;
	rq.first = 0;
	rq.last = 0;
	rq.rows = 3;
	rq.cols = 3;
	ok(het_io_view(io, &rq, &g_a, &err) == HET_OK && g_a > g_open,
	    "view queued with a later gen");
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_VIEW,
	    "VIEW arrives");
	v = ev.data;
	is_int((long long)v->gen, (long long)g_a, "with the view's gen");
	ok(v->n == N && v->first == 1 && v->last == N,
	    "window 0,0 resolved to 1..%d", N);
	ok(v->rows == 3 && v->cols == 3, "3x3 grid");
	expected(1, 1, N, want);
	worst = 0;
	for (r = 0; r < 3; r++)
		for (c = 0; c < 3; c++) {
			het_io_block(N, 3, r, &lo, &hi);
			het_io_block(N, 3, c, &clo, &chi);
			s = 0;
			for (i = lo; i < hi; i++)
				for (j = clo; j < chi; j++)
					s += want[i * N + j];
			s /= (double)((hi - lo) * (chi - clo));
			if (fabs(s - v->grid[r * 3 + c]) > worst)
				worst = fabs(s - v->grid[r * 3 + c]);
		}
	ok(worst < 1e-12, "grid = block means of the corrected matrix "
	    "(worst %.2g)", worst);
	{
		double al[3 * N];
		size_t t, nbad = 0;

		het_io_age_lag(want, N, 3, al);
		for (t = 0; v->nage == 3 && t < 3 * (size_t)N; t++)
			if (!(fabs(al[t] - v->age_lag[t]) < 1e-12) &&
			    !(isnan(al[t]) && isnan(v->age_lag[t])))
				nbad++;
		ok(v->nage == 3 && nbad == 0, "the view's age-lag means (3 "
		    "age blocks) are those of the corrected matrix");
	}
	s = 0;
	for (i = 0; i + 3 < N; i++)
		s += want[i * N + i + 3];
	is_double(v->g2[3], s / (N - 3), 1e-12, "g2[3] = mean along lag 3");
	is_double(v->g2[0], (want[0] + want[N + 1] + want[2 * N + 2] +
	    want[3 * N + 3] + want[4 * N + 4] + want[5 * N + 5] +
	    want[6 * N + 6] + want[7 * N + 7]) / N, 1e-12,
	    "g2[0] = mean of the corrected diagonal");
	/* Far lags: lag >= ceil(3 * 7 / 4) = 6: pairs (0,6) (0,7) (1,7). */
	is_double(v->baseline, (want[6] + want[7] + want[N + 7]) / 3, 1e-12,
	    "baseline = mean over lags >= 3(n-1)/4");
	ok(v->gmin <= v->gmax && v->gmin > 1.0, "grid range filled");
	ok(v->tri == HET_TRI_UPPER, "file stored the upper triangle");
	ev_free(&ev);

	/* A frame window and a grid larger than the window. */
	rq.bin = 0;
	rq.first = 3;
	rq.last = 6;
	rq.rows = 10;
	rq.cols = 10;
	het_io_view(io, &rq, &g_a, &err);
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_VIEW,
	    "windowed VIEW arrives");
	v = ev.data;
	ok(v->n == 4 && v->rows == 4 && v->cols == 4,
	    "grid clamped to the 4-frame window");
	expected(0, 3, 6, want);
	worst = 0;
	for (i = 0; i < 16; i++)
		if (fabs(want[i] - v->grid[i]) > worst)
			worst = fabs(want[i] - v->grid[i]);
	ok(worst < 1e-12, "1x1 blocks are the window's matrix (worst %.2g)",
	    worst);
	ev_free(&ev);

	/* Errors. */
	rq.bin = 7;
	rq.first = rq.last = 0;
	het_io_view(io, &rq, &g_a, &err);
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_ERROR,
	    "bad bin: ERROR");
	f = ev.data;
	ok(f->kind == HET_IO_REQ_VIEW && f->gen == g_a && f->bin == 7,
	    "names the request");
	is_int(f->err.code, HET_EINVAL, "HET_EINVAL");
	ev_free(&ev);
	rq.bin = 0;
	rq.first = 2;
	rq.last = N + 5;
	het_io_view(io, &rq, &g_a, &err);
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_ERROR,
	    "window past the end: ERROR");
	f = ev.data;
	is_int(f->err.code, HET_ERANGE, "HET_ERANGE");
	ev_free(&ev);
	rq.rows = 0;
	is_int(het_io_view(io, &rq, NULL, &err), HET_EINVAL,
	    "zero grid refused at once");
	like(err.msg, "1 x 1", "and says the minimum");
	rq.rows = 4;
	het_io_open(io, "/nonexistent/run42.hdf", &g_b, &err);
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_ERROR,
	    "missing file: ERROR");
	f = ev.data;
	ok(f->kind == HET_IO_REQ_OPEN && f->gen == g_b, "open failure, gen");
	is_int(f->err.code, HET_EIO, "HET_EIO");
	like(f->err.msg, "/nonexistent/run42.hdf", "message names the file");
	ev_free(&ev);
	/* The old dataset stays usable after a failed open. */
	rq.first = rq.last = 0;
	het_io_view(io, &rq, &g_a, &err);
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_VIEW,
	    "the previous file still serves views");
	ev_free(&ev);
	for (t0 = 0; het_io_busy(io) && t0 < 200; t0++)
		usleep(10000);
	ok(!het_io_busy(io), "idle when done");
	het_io_free(io);

	/* View before any open. */
	io = het_io_alloc(q, &err);
	het_io_start(io, &err);
	het_io_view(io, &rq, &g_a, &err);
	ok(next_event(q, &ev, 10000) && ev.type == HET_IO_EV_ERROR,
	    "view with no file: ERROR");
	f = ev.data;
	like(f->err.msg, "no data file is open", "says so");
	ev_free(&ev);
	het_io_free(io);

	/* Supersession, made deterministic by queueing before the start. */
	io = het_io_alloc(q, &err);
	het_io_open(io, small, &g_open, &err);
	rq.bin = 0;
	het_io_view(io, &rq, &g_a, &err);
	rq.bin = 1;
	het_io_view(io, &rq, &g_b, &err);
	ok(g_open < g_a && g_a < g_b, "generations increase");
	het_io_start(io, &err);
	events = 0;
	cnt = 0;
	while (next_event(q, &ev, 500)) {
		events++;
		if (ev.type == HET_IO_EV_VIEW) {
			v = ev.data;
			cnt += v->gen == g_b && v->bin == 1;
		}
		ev_free(&ev);
	}
	is_int((long long)events, 2, "OPENED plus one VIEW");
	is_int((long long)cnt, 1, "only the latest view (bin 1) is served");
	het_io_free(io);

	/* An open drops a queued view of the old file. */
	io = het_io_alloc(q, &err);
	het_io_view(io, &rq, &g_a, &err);
	het_io_open(io, small, &g_open, &err);
	het_io_start(io, &err);
	events = 0;
	while (next_event(q, &ev, 500)) {
		events += ev.type == HET_IO_EV_OPENED ? 1 : 100;
		ev_free(&ev);
	}
	is_int((long long)events, 1, "only OPENED: the queued view was "
	    "dropped");
	het_io_free(io);

	/* Shutdown with work in flight, and without a start. */
	ok(write_file(big, NBIG) == 0, "big fixture (%d frames)", NBIG);
	io = het_io_alloc(q, &err);
	het_io_start(io, &err);
	het_io_open(io, big, NULL, &err);
	rq.bin = 0;
	rq.first = rq.last = 0;
	rq.rows = rq.cols = 50;
	for (i = 0; i < 20; i++) {
		rq.bin = i % 2;
		het_io_view(io, &rq, NULL, &err);
	}
	t0 = (double)clock();
	het_io_free(io);
	ok(1, "het_io_free joins with work in flight");
	while (next_event(q, &ev, 100))
		ev_free(&ev);
	io = het_io_alloc(q, &err);
	het_io_view(io, &rq, NULL, &err);
	het_io_free(io);
	ok(1, "free without start drops the queue");
	het_io_free(NULL);

	het_evq_free(q);
	unlink(small);
	unlink(big);
	rmdir(dir);
	return exit_status();
}
