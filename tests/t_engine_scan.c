/*
 * t_engine_scan.c: folder listings and follow mode (het_scan).
 *
 * A temporary folder gets APS-U files written through the data layer,
 * with modification times set explicitly, a file with the HDF5 signature
 * but no extension, one with the signature after a 512-byte user block
 * but no valid HDF5 behind it, a text file named .hdf5, other files, a
 * hidden file and sub-folders.  Then: the listing order (newest first,
 * ties by name), the metadata of each file, the reasons of unreadable
 * files, a file path (focus), the messages of an empty folder, a folder
 * of other files, a missing folder, a path through a file and a FIFO;
 * the follow rule step by step (hidden temporaries, a growing file,
 * two files at once, a copy with an old time, a rewrite, stable = 1, a
 * vanished folder); and the server thread (supersession of queued
 * listings, complete listings, the metadata cache, errors, follow
 * events).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "het_dataset_write.h"
#include "het_h5.h"
#include "het_scan.h"
#include "tap.h"

static char dir[PATH_MAX];
static time_t t0;

static int
fill(void *arg, size_t k, double *c2, struct het_error *err)
{
	size_t n = *(size_t *)arg, i, j;

	(void)err;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			c2[i * n + j] = 1.0 + 0.1 * (double)(k + 1) /
			    (1.0 + (double)(i > j ? i - j : j - i));
	return HET_OK;
}

static char *
path_of(const char *name)
{
	static char p[2][PATH_MAX + 64];
	static int w;

	w ^= 1;
	snprintf(p[w], sizeof(p[w]), "%s/%s", dir, name);
	return p[w];
}

/* An APS-U file of nq x nphi bins and n frames. */
static int
write_h5(const char *path, size_t nq, size_t nphi, size_t n)
{
	static const double q[3] = { 0.0021, 0.0043, 0.0065 };
	static const double phi[4] = { -135, -45, 45, 135 };
	static size_t nn;
	struct het_apsu_spec sp;
	struct het_error err;

	nn = n;
	het_apsu_spec_init(&sp);
	sp.n_q = nq;
	sp.n_phi = nphi;
	sp.q = q;
	sp.phi = phi;
	sp.nbins = nq * nphi;
	sp.frames = n;
	sp.fill = fill;
	sp.fill_arg = &nn;
	sp.frame_time = 0.001;
	het_error_clear(&err);
	if (het_apsu_write(path, &sp, &err) != HET_OK) {
		diag("cannot write %s: %s", path, err.msg);
		return -1;
	}
	return 0;
}

static void
set_mtime(const char *path, time_t t)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = t;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (utimensat(AT_FDCWD, path, ts, 0) != 0)
		diag("utimensat %s: %s", path, strerror(errno));
}

static void
write_bytes(const char *path, const void *b, size_t n, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND :
	    O_TRUNC), 0644);

	if (fd < 0 || write(fd, b, n) != (ssize_t)n)
		diag("cannot write %s", path);
	if (fd >= 0)
		close(fd);
}

static void
rmtree(const char *d)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		diag("cannot remove %s", d);
}

static const struct het_scan_entry *
find(const struct het_scan_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nfiles; i++)
		if (strcmp(l->files[i].name, name) == 0)
			return &l->files[i];
	return NULL;
}

static void
test_listing(void)
{
	static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n',
	    0x1a, '\n' };
	unsigned char ub[600];
	struct het_scan_list *l = NULL;
	const struct het_scan_entry *e;
	struct het_error err;
	char real[PATH_MAX];
	int rc;

	/* Files, oldest first. */
	ok(write_h5(path_of("a.hdf"), 2, 3, 12) == 0, "a.hdf written");
	set_mtime(path_of("a.hdf"), t0 - 100);
	ok(write_h5(path_of("noext"), 1, 1, 8) == 0, "noext written");
	set_mtime(path_of("noext"), t0 - 75);
	ok(write_h5(path_of("b.h5"), 1, 2, 10) == 0, "b.h5 written");
	set_mtime(path_of("b.h5"), t0 - 50);
	ok(write_h5(path_of("C.HDF5"), 3, 4, 6) == 0, "C.HDF5 written");
	set_mtime(path_of("C.HDF5"), t0 - 50);	/* tie with b.h5 */
	write_bytes(path_of("bad.hdf5"), "not an hdf5 file\n", 17, 0);
	set_mtime(path_of("bad.hdf5"), t0 - 10);
	memset(ub, 0x5a, sizeof(ub));
	memcpy(ub + 512, sig, 8);
	write_bytes(path_of("userblock.dat"), ub, sizeof(ub), 0);
	set_mtime(path_of("userblock.dat"), t0 - 20);
	write_bytes(path_of("notes.txt"), "beamline notes\n", 15, 0);
	write_bytes(path_of(".hidden.hdf"), "x", 1, 0);
	mkdir(path_of("sub"), 0755);
	mkdir(path_of("Alpha"), 0755);
	mkdir(path_of(".snap"), 0755);

	ok(het_scan_is_candidate(path_of("noext")) == 1,
	    "candidate: HDF5 signature without an extension");
	ok(het_scan_is_candidate(path_of("userblock.dat")) == 1,
	    "candidate: signature after a 512-byte user block");
	ok(het_scan_is_candidate(path_of("notes.txt")) == 0,
	    "not a candidate: a text file");
	ok(het_scan_is_candidate(path_of("C.HDF5")) == 1,
	    "candidate: extension in capitals");
	ok(het_scan_is_candidate(path_of("m.npy")) == 1,
	    "candidate: a NumPy .npy name (it need not exist to be named)");

	het_error_clear(&err);
	rc = het_scan_dir(dir, &l, &err);
	is_int(rc, HET_OK, "het_scan_dir succeeds");
	if (rc != HET_OK || l == NULL) {
		diag("%s", err.msg);
		return;
	}
	if (realpath(dir, real) == NULL)
		real[0] = '\0';
	is_str(l->dir, real, "the folder is reported absolute and resolved");
	ok(l->focus == NULL, "no focus for a folder path");
	ok(l->complete, "complete");
	is_int((long)l->nfiles, 6, "6 candidates (hidden and text excluded)");
	is_int((long)l->nother, 1, "1 other file (notes.txt)");
	is_int((long)l->ndirs, 2, "2 sub-folders (hidden one excluded)");
	if (l->nfiles == 6) {
		is_str(l->files[0].name, "bad.hdf5", "1st: newest (t0-10)");
		is_str(l->files[1].name, "userblock.dat", "2nd: t0-20");
		is_str(l->files[2].name, "C.HDF5",
		    "3rd: t0-50, name tie-break (C < b)");
		is_str(l->files[3].name, "b.h5", "4th: t0-50");
		is_str(l->files[4].name, "noext", "5th: t0-75");
		is_str(l->files[5].name, "a.hdf", "6th: oldest (t0-100)");
		is_int((long)l->files[5].mtime, (long)(t0 - 100),
		    "mtime of a.hdf");
	}
	if (l->ndirs == 2) {
		is_str(l->dirs[0].name, "Alpha", "folders by name: Alpha");
		is_str(l->dirs[1].name, "sub", "then sub");
	}
	ok(l->note == NULL, "no note when files are listed");
	if ((e = find(l, "a.hdf")) != NULL) {
		ok(e->probed && e->ok, "a.hdf readable");
		is_int(e->layout, HET_LAYOUT_APSU, "a.hdf layout aps-u");
		is_int((long)e->nbins, 6, "a.hdf 6 bins");
		is_int((long)e->n_q, 2, "a.hdf 2 q");
		is_int((long)e->n_phi, 3, "a.hdf 3 phi");
		is_int((long)e->frames, 12, "a.hdf 12 frames");
		ok(e->size > 0, "a.hdf size %lld", e->size);
	} else
		ok(0, "a.hdf listed");
	if ((e = find(l, "C.HDF5")) != NULL) {
		is_int((long)e->nbins, 12, "C.HDF5 12 bins");
		is_int((long)e->frames, 6, "C.HDF5 6 frames");
	} else
		ok(0, "C.HDF5 listed");
	if ((e = find(l, "noext")) != NULL)
		ok(e->ok && e->nbins == 1 && e->frames == 8,
		    "noext: 1 bin, 8 frames");
	else
		ok(0, "noext listed");
	if ((e = find(l, "bad.hdf5")) != NULL) {
		ok(e->probed && !e->ok, "bad.hdf5 unreadable");
		is_str(e->error, "not an HDF5 file (no HDF5 signature); "
		    "hetui reads APS-U and legacy APS 8-ID-I two-time result "
		    "files", "bad.hdf5 reason, without the file name");
	} else
		ok(0, "bad.hdf5 listed");
	if ((e = find(l, "userblock.dat")) != NULL) {
		ok(e->probed && !e->ok && e->error != NULL,
		    "userblock.dat unreadable");
		like(e->error, "HDF5", "its reason comes from the data layer");
		ok(e->error != NULL && strchr(e->error, '\n') == NULL &&
		    strstr(e->error, dir) == NULL,
		    "one line, without the path: %s", e->error);
	} else
		ok(0, "userblock.dat listed");
	het_scan_list_free(l);

	/* A file path: its folder with the focus on the file. */
	l = NULL;
	rc = het_scan_dir(path_of("b.h5"), &l, &err);
	is_int(rc, HET_OK, "a file path is accepted");
	if (rc == HET_OK) {
		is_str(l->dir, real, "its folder is listed");
		is_str(l->focus, "b.h5", "focus on the file");
		is_int((long)l->nfiles, 6, "the whole folder");
		het_scan_list_free(l);
	}
	het_scan_list_free(NULL);
	het_scan_found_free(NULL);
}

static void
test_errors(void)
{
	struct het_scan_list *l = NULL;
	struct het_error err;
	char want[PATH_MAX * 2 + 128], real[PATH_MAX];
	int rc;

	if (realpath(dir, real) == NULL)
		real[0] = '\0';
	mkdir(path_of("empty"), 0755);
	rc = het_scan_dir(path_of("empty"), &l, &err);
	is_int(rc, HET_OK, "an empty folder is not an error");
	if (rc == HET_OK) {
		is_int((long)l->nfiles, 0, "no files");
		snprintf(want, sizeof(want), "no result files in %s/empty: "
		    "the folder is empty", real);
		is_str(l->note, want, "empty folder note");
		het_scan_list_free(l);
	}
	mkdir(path_of("other"), 0755);
	write_bytes(path_of("other/a.txt"), "a", 1, 0);
	write_bytes(path_of("other/b.log"), "b", 1, 0);
	mkdir(path_of("other/deeper"), 0755);
	l = NULL;
	rc = het_scan_dir(path_of("other"), &l, &err);
	is_int(rc, HET_OK, "a folder of other files");
	if (rc == HET_OK) {
		snprintf(want, sizeof(want), "no result files in %s/other: "
		    "none of its 2 other files ends in .hdf, .h5, .hdf5 or "
		    ".npy or has an HDF5 signature (1 sub-folder)", real);
		is_str(l->note, want, "other-files note");
		het_scan_list_free(l);
	}

	l = NULL;
	het_error_clear(&err);
	rc = het_scan_dir(path_of("nope/deeper"), &l, &err);
	is_int(rc, HET_ENOTFOUND, "a missing folder: HET_ENOTFOUND");
	snprintf(want, sizeof(want), "folder %s/nope/deeper does not exist "
	    "(the nearest existing folder is %s)", dir, dir);
	is_str(err.msg, want, "missing folder message names the parent");
	ok(l == NULL, "no listing");

	rc = het_scan_dir(path_of("a.hdf/x"), &l, &err);
	is_int(rc, HET_EINVAL, "a path through a file: HET_EINVAL");
	snprintf(want, sizeof(want), "%s/a.hdf/x is not a folder: a part of "
	    "the path is a file", dir);
	is_str(err.msg, want, "and its message");

	if (mkfifo(path_of("fifo"), 0644) == 0) {
		rc = het_scan_dir(path_of("fifo"), &l, &err);
		is_int(rc, HET_EINVAL, "a FIFO: HET_EINVAL");
		snprintf(want, sizeof(want), "%s/fifo is neither a folder nor "
		    "a regular file", dir);
		is_str(err.msg, want, "and its message");
		unlink(path_of("fifo"));
	} else
		skip(2, "mkfifo failed");
}

static char *
check(struct het_follow *f, long long *size)
{
	struct het_error err;
	char *found = NULL;

	het_error_clear(&err);
	if (het_follow_check(f, &found, size, &err) != HET_OK)
		diag("check failed: %s", err.msg);
	return found;
}

static void
test_follow(void)
{
	struct het_follow *f;
	struct het_error err;
	char real[PATH_MAX], want[PATH_MAX * 2], moved[PATH_MAX + 8];
	char *found;
	long long size = -1;
	int rc;

	if (realpath(dir, real) == NULL)
		real[0] = '\0';
	het_error_clear(&err);
	ok(het_follow_alloc(dir, 0, &err) == NULL, "stable 0 is refused");
	is_str(err.msg, "follow: the number of stable checks must be at "
	    "least 1", "stable 0 message");
	ok(het_follow_alloc(path_of("missing"), 2, &err) == NULL &&
	    err.code == HET_ENOTFOUND, "following a missing folder fails");
	ok(het_follow_alloc(path_of("b.h5"), 2, &err) == NULL,
	    "following a file fails");
	snprintf(want, sizeof(want), "cannot follow %s/b.h5: it is a file; "
	    "follow mode watches a folder", dir);
	is_str(err.msg, want, "and says follow watches a folder");

	f = het_follow_alloc(dir, HET_FOLLOW_STABLE, &err);
	ok(f != NULL, "follower made");
	if (f == NULL) {
		diag("%s", err.msg);
		return;
	}
	is_str(het_follow_dir(f), real, "follower folder is absolute");
	snprintf(want, sizeof(want), "%s/bad.hdf5", real);
	is_str(het_follow_newest(f), want, "newest at start: bad.hdf5");
	ok(check(f, NULL) == NULL, "nothing new: nothing announced");

	/* A writer's hidden temporary is never a candidate. */
	write_bytes(path_of(".run7.hdf.tmp.123"), "partial", 7, 0);
	ok(check(f, NULL) == NULL && check(f, NULL) == NULL,
	    "hidden temporary ignored over two checks");

	/* A growing file: announced only after two equal sightings. */
	write_bytes(path_of("grow.h5"), "0123456789", 10, 0);
	set_mtime(path_of("grow.h5"), t0 + 10);
	ok(check(f, NULL) == NULL, "grow.h5 first sighting: pending");
	write_bytes(path_of("grow.h5"), "0123456789", 10, 1);
	set_mtime(path_of("grow.h5"), t0 + 11);
	ok(check(f, NULL) == NULL, "grew to 20 bytes: pending again");
	found = check(f, &size);
	snprintf(want, sizeof(want), "%s/grow.h5", real);
	is_str(found, want, "unchanged at the next check: announced");
	is_int((long)size, 20, "with its size");
	free(found);
	ok(check(f, NULL) == NULL, "announced once only");

	/* Two files at once: the newest wins, the older is not announced
	 * after it. */
	ok(write_h5(path_of("old1.hdf"), 1, 1, 4) == 0, "old1.hdf written");
	set_mtime(path_of("old1.hdf"), t0 + 20);
	ok(write_h5(path_of("new1.hdf"), 1, 1, 4) == 0, "new1.hdf written");
	set_mtime(path_of("new1.hdf"), t0 + 30);
	ok(check(f, NULL) == NULL, "two new files: pending");
	found = check(f, NULL);
	snprintf(want, sizeof(want), "%s/new1.hdf", real);
	is_str(found, want, "the newer one is announced");
	free(found);
	ok(check(f, NULL) == NULL && check(f, NULL) == NULL,
	    "the older one is not announced afterwards");

	/* A copy that kept an old time (rsync -t) is still new. */
	ok(write_h5(path_of("copied.hdf"), 1, 1, 4) == 0, "copied.hdf");
	set_mtime(path_of("copied.hdf"), t0 - 5000);
	ok(check(f, NULL) == NULL, "old-time copy: pending");
	found = check(f, NULL);
	snprintf(want, sizeof(want), "%s/copied.hdf", real);
	is_str(found, want, "old-time copy announced");
	free(found);

	/* Rewritten in place: announced again. */
	write_bytes(path_of("copied.hdf"), "more", 4, 1);
	ok(check(f, NULL) == NULL, "rewritten: pending");
	found = check(f, NULL);
	is_str(found, want, "rewritten file announced again");
	free(found);

	/* A pending file that disappears is forgotten. */
	write_bytes(path_of("gone.h5"), "x", 1, 0);
	set_mtime(path_of("gone.h5"), t0 + 40);
	ok(check(f, NULL) == NULL, "gone.h5 pending");
	unlink(path_of("gone.h5"));
	ok(check(f, NULL) == NULL, "gone.h5 removed: nothing announced");

	/* The folder vanishes and comes back. */
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	if (rename(dir, moved) == 0) {
		found = NULL;
		rc = het_follow_check(f, &found, NULL, &err);
		is_int(rc, HET_ENOTFOUND, "vanished folder: HET_ENOTFOUND");
		like(err.msg, "does not exist (the nearest existing folder "
		    "is", "with the not-found message");
		like(err.msg, real, "naming the folder");
		ok(found == NULL, "nothing announced");
		if (rename(moved, dir) != 0)
			diag("cannot move the folder back");
		ok(check(f, NULL) == NULL, "back again: checks resume");
	} else
		skip(5, "cannot rename the folder");
	het_follow_free(f);
	het_follow_free(NULL);

	/* stable = 1: the first sighting is enough. */
	f = het_follow_alloc(dir, 1, &err);
	ok(f != NULL, "follower with stable = 1");
	if (f != NULL) {
		write_bytes(path_of("quick.h5"), "q", 1, 0);
		set_mtime(path_of("quick.h5"), t0 + 50);
		found = check(f, NULL);
		snprintf(want, sizeof(want), "%s/quick.h5", real);
		is_str(found, want, "announced at the first check");
		free(found);
		het_follow_free(f);
	}
}

/* Wait for an event of type want with generation gen (0: any). */
static int
wait_ev(struct het_evq *q, int want, unsigned long gen, int complete,
    struct het_event *out)
{
	struct het_event ev[16];
	struct pollfd p;
	size_t n, i;
	int ms, got = 0;
	unsigned long g;

	for (ms = 0; ms < 10000 && !got; ) {
		p.fd = het_evq_fd(q);
		p.events = POLLIN;
		if (poll(&p, 1, 100) <= 0) {
			ms += 100;
			continue;
		}
		n = het_evq_drain(q, ev, 16);
		for (i = 0; i < n; i++) {
			g = 0;
			if (ev[i].type == HET_SCAN_EV_LIST)
				g = ((struct het_scan_list *)ev[i].data)->gen;
			else if (ev[i].type == HET_SCAN_EV_ERROR)
				g = ((struct het_scan_failure *)
				    ev[i].data)->gen;
			else
				g = ((struct het_scan_found *)ev[i].data)->gen;
			if (!got && ev[i].type == want && (gen == 0 ||
			    g == gen) && (!complete || ((struct
			    het_scan_list *)ev[i].data)->complete)) {
				*out = ev[i];
				got = 1;
				continue;
			}
			if (ev[i].type == HET_SCAN_EV_LIST && g != gen &&
			    want == HET_SCAN_EV_LIST)
				diag("event of generation %lu (waiting for "
				    "%lu)", g, gen);
			ev[i].free_cb(ev[i].data);
		}
	}
	return got;
}

static void
test_server(void)
{
	struct het_evq *q;
	struct het_scan *s;
	struct het_error err;
	struct het_event ev;
	struct het_scan_list *l;
	struct het_scan_found *fd;
	struct het_scan_failure *fl;
	unsigned long g1, g2, g3, gf;
	char real[PATH_MAX], want[PATH_MAX * 2];

	if (realpath(dir, real) == NULL)
		real[0] = '\0';
	het_error_clear(&err);
	q = het_evq_alloc(&err);
	s = q != NULL ? het_scan_alloc(q, &err) : NULL;
	ok(s != NULL, "scan server allocated");
	if (s == NULL)
		return;
	/* Queued before the thread starts: only the latest is served. */
	het_scan_list(s, path_of("empty"), &g1, &err);
	het_scan_list(s, dir, &g2, &err);
	ok(g2 > g1, "generations increase");
	ok(het_scan_busy(s), "busy with a queued listing");
	is_int(het_scan_start(s, &err), HET_OK, "thread started");
	ok(wait_ev(q, HET_SCAN_EV_LIST, g2, 1, &ev), "complete listing of "
	    "the latest request arrives");
	l = ev.data;
	if (l != NULL) {
		is_str(l->dir, real, "of the folder");
		ok(l->nfiles >= 6, "with its files (%zu)", l->nfiles);
		ok(find(l, "a.hdf") != NULL && find(l, "a.hdf")->ok &&
		    find(l, "a.hdf")->frames == 12, "and metadata");
		het_scan_list_free(l);
	}
	/* Again: the metadata comes from the cache, complete at once. */
	het_scan_list(s, dir, &g3, &err);
	ok(wait_ev(q, HET_SCAN_EV_LIST, g3, 0, &ev), "second listing");
	l = ev.data;
	if (l != NULL) {
		ok(l->complete, "unchanged folder: complete in one post");
		het_scan_list_free(l);
	}
	het_scan_list(s, path_of("nope"), &g3, &err);
	ok(wait_ev(q, HET_SCAN_EV_ERROR, g3, 0, &ev), "missing folder: "
	    "error event");
	fl = ev.data;
	if (fl != NULL) {
		is_int(fl->kind, HET_SCAN_REQ_LIST, "kind list");
		is_int(fl->err.code, HET_ENOTFOUND, "HET_ENOTFOUND");
		free(fl);
	}

	is_int(het_scan_follow(s, dir, 0, 2, &gf, &err), HET_EINVAL,
	    "interval 0 refused");
	is_str(err.msg, "follow: the check interval must be a positive "
	    "number of seconds (got 0)", "with a message");
	is_int(het_scan_follow(s, dir, 0.05, 0, &gf, &err), HET_EINVAL,
	    "stable 0 refused");
	is_int(het_scan_follow(s, dir, 0.05, 2, &gf, &err), HET_OK,
	    "follow started");
	ok(wait_ev(q, HET_SCAN_EV_FOLLOWING, gf, 0, &ev), "FOLLOWING event");
	fd = ev.data;
	if (fd != NULL) {
		is_str(fd->dir, real, "following the folder");
		ok(fd->path != NULL, "with the newest file (%s)", fd->path);
		het_scan_found_free(fd);
	}
	ok(write_h5(path_of("server.h5"), 1, 2, 5) == 0, "server.h5 written");
	set_mtime(path_of("server.h5"), t0 + 100);
	ok(wait_ev(q, HET_SCAN_EV_FOUND, gf, 0, &ev), "FOUND event");
	fd = ev.data;
	if (fd != NULL) {
		snprintf(want, sizeof(want), "%s/server.h5", real);
		is_str(fd->path, want, "for the new file");
		ok(fd->size > 0, "with its size");
		het_scan_found_free(fd);
	}
	het_scan_unfollow(s);
	het_scan_follow(s, path_of("nope"), 0.05, 2, &gf, &err);
	ok(wait_ev(q, HET_SCAN_EV_ERROR, gf, 0, &ev), "following a missing "
	    "folder: error event");
	fl = ev.data;
	if (fl != NULL) {
		is_int(fl->kind, HET_SCAN_REQ_FOLLOW, "kind follow");
		like(fl->err.msg, "does not exist", "not-found message");
		free(fl);
	}
	het_scan_follow(s, dir, 0.05, 2, &gf, &err);
	het_scan_free(s);
	ok(1, "freed while following");
	het_evq_free(q);
}

int
main(void)
{
	struct het_error err;

	plan_lazy();
	het_error_clear(&err);
	if (het_h5_library_init(&err) != HET_OK)
		skip_all("HDF5 does not start");
	if (tap_tmpdir(dir, sizeof(dir), "hetui-scan") == NULL)
		skip_all("no temporary directory");
	t0 = time(NULL);
	test_listing();
	test_errors();
	test_follow();
	test_server();
	rmtree(dir);
	return exit_status();
}
