/*
 * t_engine_io_mt.c: opening files with multitau g2 on the workstation's
 * I/O thread (het_io, het_io_mt.c).
 *
 *   - a multitau-only file: its open answers HET_IO_EV_MULTITAU (only
 *     set, the open's generation), not an error; every bin fitted with
 *     both models, the curves equal to the fits, D near the truth; the
 *     old dataset is closed (a view then fails);
 *   - a file with both: HET_IO_EV_OPENED, then HET_IO_EV_MULTITAU;
 *   - a two-time file whose multitau data are unreadable: OPENED, then
 *     the payload with its reason and no data;
 *   - unreadable two-time data beside good multitau data: the multitau
 *     view, with the two-time reason kept;
 *   - a multitau-only file that cannot be read: HET_IO_EV_ERROR with
 *     both reasons;
 *   - a two-time file without multitau data: OPENED alone;
 *   - the file browser's listing (het_scan_dir) takes a multitau-only
 *     file as readable, with its bins.
 */
#include "config.h"

#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "fixture_mt.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_io.h"
#include "het_scan.h"
#include "tap.h"

#define NB	5
#define MAXT	64

static struct het_evq *q;
static struct het_io *io;

/* The next event within ms milliseconds (type 0 on timeout). */
static struct het_event
next_event_ms(int ms)
{
	static struct het_event pend[8];
	static size_t np, ip;
	struct het_event none;
	struct pollfd p;

	while (ip >= np) {
		p.fd = het_evq_fd(q);
		p.events = POLLIN;
		if (poll(&p, 1, ms) <= 0) {
			memset(&none, 0, sizeof(none));
			return none;
		}
		np = het_evq_drain(q, pend, 8);
		ip = 0;
	}
	return pend[ip++];
}

static struct het_event
next_event(void)
{
	return next_event_ms(10000);
}

static void
ev_free(struct het_event *ev)
{
	if (ev->data != NULL && ev->free_cb != NULL)
		ev->free_cb(ev->data);
}

static unsigned long
open_file(const char *path)
{
	struct het_error e;
	unsigned long gen = 0;

	het_error_clear(&e);
	het_io_open(io, path, &gen, &e);
	return gen;
}

/* A multitau-only file of NB bins, D = 3.31e4. */
static int
write_mt(const char *path, int append, int square)
{
	static double g2[64 * MAXT], err[64 * MAXT];
	struct fx_mt_sim s = { 3.31e4, 0.19, 1.002, 1.0, 0.003, 1234 };
	double d[MAXT], tau[MAXT], qs[64];
	struct fx_mt m;
	size_t k, n = fx_mt_delays(16384, d, MAXT), nb = square ? n : NB;

	for (k = 0; k < nb; k++)
		qs[k] = 0.0023 + 0.0011 * (double)k;
	for (k = 0; k < n; k++)
		tau[k] = d[k] * 1e-3;
	fx_mt_simulate(&s, tau, n, qs, nb, g2, err);
	fx_mt_rings(&m, n, d, nb, qs, g2, err);
	m.append = append;
	return fx_mt_write(path, &m);
}

/* A two-time file of NB rings, one sector each. */
static int
write_twotime(const char *path)
{
	struct het_apsu_spec sp;
	struct het_error e;
	double **mats;
	int rc;

	/* write_mt(..., 1, ...) then puts its own q values in the map */
	fx_apsu_basic(&sp, NB, 1, 6, &mats);
	het_error_clear(&e);
	rc = het_apsu_write(path, &sp, &e);
	fx_apsu_free(&sp, mats);
	return rc;
}

static void
test_only(const char *path, const char *two)
{
	struct het_io_view_req rq = { 0, 0, 0, 2, 2, NULL };
	struct het_io_failure *f;
	struct het_event ev;
	struct het_io_mt *m;
	struct het_error e;
	unsigned long gen;
	size_t b, j, bad = 0;
	int k;

	/* a two-time file first, so that the multitau one replaces it */
	open_file(two);
	ev = next_event();
	ok(ev.type == HET_IO_EV_OPENED, "a two-time file opens");
	ev_free(&ev);
	gen = open_file(path);
	ev = next_event();
	is_int(ev.type, HET_IO_EV_MULTITAU, "multitau-only: the open answers "
	    "with the multitau g2, not an error");
	m = ev.data;
	if (m == NULL || ev.type != HET_IO_EV_MULTITAU || m->mt == NULL) {
		ev_free(&ev);
		return;
	}
	ok(m->only && m->gen == gen, "only set, the open's generation");
	is_int(m->twotime.code, HET_OK, "no two-time data to explain");
	is_int((long long)m->mt->nbins, NB, "5 bins");
	for (k = 0; k < HET_MTFIT_NMODELS; k++)
		for (b = 0; b < NB; b++) {
			bad += m->fit[k][b].status != HET_MTFIT_OK;
			for (j = 0; j < HET_IO_MT_CURVE; j += 37)
				bad += m->curve[k][b * HET_IO_MT_CURVE + j] !=
				    het_mtfit_eval(&m->fit[k][b],
				    m->curve_tau[j]);
		}
	is_int((long long)bad, 0, "both models fitted every bin; the curves "
	    "are the fits");
	ok(fabs(m->curve_tau[0] / m->mt->tau[0] - 1) < 1e-12 &&
	    fabs(m->curve_tau[HET_IO_MT_CURVE - 1] /
	    m->mt->tau[m->mt->ntau - 1] - 1) < 1e-12,
	    "the curves span the delays");
	ok(fabs(m->diff[HET_MTFIT_SINGLE].D - 3.31e4) <
	    4 * m->diff[HET_MTFIT_SINGLE].D_err, "D %.4g +- %.2g, within 4 "
	    "sigma of 3.31e4", m->diff[0].D, m->diff[0].D_err);
	is_int(m->diff_err[HET_MTFIT_SINGLE].code, HET_OK, "no D error");
	ev_free(&ev);
	het_error_clear(&e);
	het_io_view(io, &rq, NULL, &e);
	ev = next_event();
	f = ev.data;
	ok(ev.type == HET_IO_EV_ERROR && f != NULL &&
	    strstr(f->err.msg, "no data file is open") != NULL,
	    "the old dataset was closed: a view fails");
	ev_free(&ev);
}

static void
test_both(const char *path)
{
	struct het_event ev;
	struct het_io_mt *m;
	unsigned long gen = open_file(path);

	ev = next_event();
	ok(ev.type == HET_IO_EV_OPENED, "both: OPENED first");
	ev_free(&ev);
	ev = next_event();
	m = ev.data;
	ok(ev.type == HET_IO_EV_MULTITAU && m != NULL && !m->only &&
	    m->gen == gen && m->mt != NULL && m->mt->has_twotime,
	    "then the multitau g2, only 0");
	ev_free(&ev);
}

static void
test_bad(const char *dir)
{
	char *p = fx_path(dir, "sq.hdf"), *p2 = fx_path(dir, "tt_sq.hdf");
	char *p3 = fx_path(dir, "broken_tt.hdf");
	struct het_io_failure *f;
	struct het_event ev;
	struct het_io_mt *m;

	write_mt(p, 0, 1);
	open_file(p);
	ev = next_event();
	f = ev.data;
	ok(ev.type == HET_IO_EV_ERROR && f != NULL &&
	    f->kind == HET_IO_REQ_OPEN, "an unreadable multitau-only file: "
	    "the open fails");
	if (f != NULL) {
		like(f->err.msg, "it is a multitau-only result", "with the "
		    "two-time reason");
		like(f->err.msg, "its multitau data cannot be shown either: "
		    "/xpcs/multitau/normalized_g2 is 52 x 52", "and the "
		    "multitau one");
	}
	ev_free(&ev);
	/* two-time data, unreadable multitau data */
	{
		struct het_apsu_spec sp;
		struct het_error e;
		double **mats;

		fx_apsu_basic(&sp, 52, 1, 4, &mats);
		het_error_clear(&e);
		het_apsu_write(p2, &sp, &e);
		fx_apsu_free(&sp, mats);
	}
	write_mt(p2, 1, 1);
	open_file(p2);
	ev = next_event();
	ok(ev.type == HET_IO_EV_OPENED, "two-time data with bad multitau "
	    "data: OPENED");
	ev_free(&ev);
	ev = next_event();
	m = ev.data;
	ok(ev.type == HET_IO_EV_MULTITAU && m != NULL && m->mt == NULL &&
	    strstr(m->err.msg, "cannot tell the delay axis") != NULL,
	    "then the payload with the reason and no data");
	ev_free(&ev);
	/* unreadable two-time data beside good multitau data */
	write_twotime(p3);
	write_mt(p3, 1, 0);
	fx_delete(p3, "/xpcs/twotime/correlation_map/c2_00002");
	open_file(p3);
	ev = next_event();
	m = ev.data;
	ok(ev.type == HET_IO_EV_MULTITAU && m != NULL && m->only &&
	    m->mt != NULL, "broken two-time data, good multitau data: the "
	    "multitau view");
	if (m != NULL)
		like(m->twotime.msg, "count mismatch", "with the two-time "
		    "reason kept");
	ev_free(&ev);
	free(p);
	free(p2);
	free(p3);
}

static void
test_scan(const char *mt)
{
	struct het_scan_list *l = NULL;
	const struct het_scan_entry *e = NULL;
	struct het_error err;
	size_t i;

	het_error_clear(&err);
	if (het_scan_dir(mt, &l, &err) != HET_OK) {
		ok(0, "het_scan_dir: %s", err.msg);
		return;
	}
	for (i = 0; i < l->nfiles; i++)
		if (strcmp(l->files[i].name, "mt.hdf") == 0)
			e = &l->files[i];
	ok(e != NULL && e->probed && e->ok && e->multitau && e->nbins == NB &&
	    e->frames == 0 && e->error == NULL, "the browser's listing: "
	    "mt.hdf readable, multitau, 5 bins, no frames");
	het_scan_list_free(l);
}

int
main(void)
{
	char *dir, *mt, *two, *both;
	struct het_event ev;
	struct het_error e;

	plan_lazy();
	het_error_clear(&e);
	het_h5_library_init(&e);
	if ((dir = fx_tmpdir()) == NULL)
		skip_all("cannot create a temporary directory");
	mt = fx_path(dir, "mt.hdf");
	two = fx_path(dir, "two.hdf");
	both = fx_path(dir, "both.hdf");
	ok(write_mt(mt, 0, 0) == 0 && write_twotime(two) == 0 &&
	    write_twotime(both) == 0 && write_mt(both, 1, 0) == 0,
	    "fixtures written");
	q = het_evq_alloc(&e);
	io = het_io_alloc(q, &e);
	ok(io != NULL && het_io_start(io, &e) == HET_OK, "I/O thread");
	test_only(mt, two);
	test_both(both);
	open_file(two);
	ev = next_event();
	ok(ev.type == HET_IO_EV_OPENED, "a two-time file without multitau "
	    "data: OPENED ...");
	ev_free(&ev);
	ev = next_event_ms(300);
	ok(ev.type == 0, "... alone");
	test_bad(dir);
	test_scan(mt);
	het_io_free(io);
	het_evq_free(q);
	fx_rmtree(dir);
	free(dir);
	free(mt);
	free(two);
	free(both);
	return exit_status();
}
