/*
 * het_scan.c: listing folders of result files and the follow rule (see
 * het_scan.h), synchronously, in the calling thread.
 *
 * Design: a listing is built in two stages so the scan server can show
 * something at once: het_scan_read resolves the path, reads the folder
 * and stats each entry (cheap even for hundreds of files), then
 * het_scan_probe opens each candidate through the data layer, which reads
 * metadata only (never a matrix); a file with multitau g2 only is read by
 * het_multitau_read instead (a few kilobytes) and listed as readable.
 * The follower keeps one record per regular file of its folder, sorted
 * by name, carrying whether the file is a candidate (so the HDF5
 * signature of an unchanged file is read only once) and whether it has
 * been seen; a file whose size or time changes is unseen again.  Everything
 * here is plain POSIX and the data layer;
 * nothing prints.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_multitau.h"
#include "het_scan_impl.h"
#include "het_util.h"

/* HDF5 looks for its signature at 0 and at 512 * 2^k (user blocks). */
#define SIG_MAX_OFFSET	(1L << 20)

static const unsigned char h5_signature[8] = {
	0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'
};

struct fl_ent {
	char		*name;
	time_t		 mtime;
	long		 ns;
	long long	 size;
	int		 cand;
	int		 seen;
};

struct het_follow {
	char		*dir;
	char		*newest;	/* newest candidate at start */
	unsigned	 stable;
	struct fl_ent	*ents;		/* sorted by name */
	size_t		 n;
	/* The pending file: newest unseen candidate and its sightings. */
	char		*pend;
	time_t		 pmtime;
	long		 pns;
	long long	 psize;
	unsigned	 count;
};

static int
has_ext(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL || dot == name)
		return 0;
	dot++;
	return strcasecmp(dot, "hdf") == 0 || strcasecmp(dot, "h5") == 0 ||
	    strcasecmp(dot, "hdf5") == 0 || strcasecmp(dot, "npy") == 0;
}

int
het_scan_is_candidate(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned char buf[8];
	struct stat st;
	long off;
	int fd, found = 0;

	if (has_ext(base != NULL ? base + 1 : path))
		return 1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		for (off = 0; off + 8 <= st.st_size && off <= SIG_MAX_OFFSET;
		    off = off == 0 ? 512 : off * 2) {
			if (pread(fd, buf, 8, off) != 8)
				break;
			if (memcmp(buf, h5_signature, 8) == 0) {
				found = 1;
				break;
			}
		}
	}
	close(fd);
	return found;
}

/* dir + "/" + name (dir "/" gives "/name"); NULL when out of memory. */
static char *
join(const char *dir, const char *name)
{
	size_t ld = strlen(dir), ln = strlen(name);
	int slash = ld > 0 && dir[ld - 1] == '/';
	char *p = malloc(ld + ln + 2);

	if (p == NULL)
		return NULL;
	memcpy(p, dir, ld);
	if (!slash)
		p[ld++] = '/';
	memcpy(p + ld, name, ln + 1);
	return p;
}

/* An absolute spelling of path (not resolved), or NULL. */
static char *
absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return strdup(path);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return strdup(path);
	return join(cwd, path);
}

/* The message for a path that does not exist. */
static int
not_found(const char *path, struct het_error *err)
{
	char *p = absolute(path), *slash;
	struct stat st;

	if (p == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	while ((slash = strrchr(p, '/')) != NULL) {
		if (slash == p) {
			p[1] = '\0';
			break;
		}
		*slash = '\0';
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			break;
	}
	het_error_set(err, HET_ENOTFOUND, "folder %s does not exist (the "
	    "nearest existing folder is %s)", path, p);
	free(p);
	return HET_ENOTFOUND;
}

/* Resolve path into an absolute folder and, for a file, its name. */
static int
resolve(const char *path, char **dir, char **focus, struct het_error *err)
{
	struct stat st;
	char *real, *slash;

	*dir = *focus = NULL;
	if (*path == '\0')
		path = ".";
	if ((real = realpath(path, NULL)) == NULL) {
		if (errno == ENOENT)
			return not_found(path, err);
		if (errno == ENOTDIR)
			return het_error_set(err, HET_EINVAL, "%s is not a "
			    "folder: a part of the path is a file", path);
		if (errno == ENOMEM)
			return het_error_set(err, HET_ENOMEM, "out of memory");
		return het_error_sys(err, errno, "cannot read folder %s",
		    path);
	}
	if (stat(real, &st) != 0) {
		het_error_sys(err, errno, "cannot read folder %s", path);
		free(real);
		return HET_EIO;
	}
	if (S_ISDIR(st.st_mode)) {
		*dir = real;
		return HET_OK;
	}
	if (!S_ISREG(st.st_mode)) {
		free(real);
		return het_error_set(err, HET_EINVAL, "%s is neither a folder "
		    "nor a regular file", path);
	}
	slash = strrchr(real, '/');
	*focus = strdup(slash + 1);
	if (slash == real)
		slash[1] = '\0';
	else
		*slash = '\0';
	*dir = real;
	if (*focus == NULL) {
		free(real);
		*dir = NULL;
		return het_error_set(err, HET_ENOMEM, "out of memory");
	}
	return HET_OK;
}

static int
cmp_newest(const void *a, const void *b)
{
	const struct het_scan_entry *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns > y->mtime_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct het_scan_entry *)a)->name,
	    ((const struct het_scan_entry *)b)->name);
}

/* Append a copy of name to a growable entry array. */
static struct het_scan_entry *
push(struct het_scan_entry **v, size_t *n, size_t *cap, const char *name)
{
	struct het_scan_entry *nv;
	size_t nc;

	if (*n == *cap) {
		nc = *cap == 0 ? 16 : *cap * 2;
		if ((nv = realloc(*v, nc * sizeof(**v))) == NULL)
			return NULL;
		*v = nv;
		*cap = nc;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	if (((*v)[*n].name = strdup(name)) == NULL)
		return NULL;
	return &(*v)[(*n)++];
}

static void
entries_free(struct het_scan_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].error);
	}
	free(v);
}

void
het_scan_list_free(void *p)
{
	struct het_scan_list *l = p;

	if (l == NULL)
		return;
	entries_free(l->files, l->nfiles);
	entries_free(l->dirs, l->ndirs);
	free(l->dir);
	free(l->focus);
	free(l->note);
	free(l);
}

void
het_scan_found_free(void *p)
{
	struct het_scan_found *f = p;

	if (f == NULL)
		return;
	free(f->dir);
	free(f->path);
	free(f);
}

int
het_scan_read(const char *path, struct het_scan_list **out,
    struct het_error *err)
{
	struct het_scan_list *l;
	struct het_scan_entry *e;
	struct dirent *de;
	struct stat st;
	size_t fcap = 0, dcap = 0;
	char *full;
	DIR *d;
	int rc;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	if ((rc = resolve(path, &l->dir, &l->focus, err)) != HET_OK) {
		het_scan_list_free(l);
		return rc;
	}
	if ((d = opendir(l->dir)) == NULL) {
		het_error_sys(err, errno, "cannot read folder %s", l->dir);
		het_scan_list_free(l);
		return HET_EIO;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;	/* hidden, ".", "..", writers' temps */
		if ((full = join(l->dir, de->d_name)) == NULL)
			goto nomem;
		if (stat(full, &st) != 0) {
			free(full);	/* vanished, or a dangling link */
			continue;
		}
		e = NULL;
		if (S_ISDIR(st.st_mode)) {
			if ((e = push(&l->dirs, &l->ndirs, &dcap,
			    de->d_name)) == NULL) {
				free(full);
				goto nomem;
			}
		} else if (S_ISREG(st.st_mode)) {
			if (het_scan_is_candidate(full)) {
				if ((e = push(&l->files, &l->nfiles, &fcap,
				    de->d_name)) == NULL) {
					free(full);
					goto nomem;
				}
			} else
				l->nother++;
		}
		free(full);
		if (e != NULL) {
			e->mtime = st.st_mtim.tv_sec;
			e->mtime_ns = st.st_mtim.tv_nsec;
			e->size = (long long)st.st_size;
		}
	}
	closedir(d);
	if (l->nfiles > 1)
		qsort(l->files, l->nfiles, sizeof(*l->files), cmp_newest);
	if (l->ndirs > 1)
		qsort(l->dirs, l->ndirs, sizeof(*l->dirs), cmp_name);
	*out = l;
	return HET_OK;
nomem:
	closedir(d);
	het_scan_list_free(l);
	return het_error_set(err, HET_ENOMEM, "out of memory listing a "
	    "folder");
}

int
het_scan_probe(const char *dir, struct het_scan_entry *e)
{
	const struct het_dataset_info *in;
	struct het_multitau *mt;
	struct het_dataset *ds;
	struct het_error er;
	const char *msg;
	char *full, *p;
	size_t lf;

	if ((full = join(dir, e->name)) == NULL)
		return HET_ENOMEM;
	het_error_clear(&er);
	e->probed = 1;
	if ((ds = het_dataset_open(full, &er)) == NULL &&
	    (mt = het_multitau_read(full, NULL)) != NULL) {
		/* multitau data only: the Data panel shows it */
		e->ok = 1;
		e->multitau = 1;
		e->layout = HET_LAYOUT_APSU;
		e->nbins = mt->nbins;
		e->n_q = mt->n_q;
		e->n_phi = mt->n_phi;
		e->frames = 0;
		het_multitau_free(mt);
		free(full);
		return HET_OK;
	}
	if (ds == NULL) {
		e->ok = 0;
		/* The browser shows the name already. */
		msg = er.msg;
		lf = strlen(full);
		if (strncmp(msg, full, lf) == 0 && msg[lf] == ':')
			msg += lf + 1;
		while (*msg == ' ')
			msg++;
		free(e->error);
		e->error = strdup(*msg != '\0' ? msg : "cannot be read");
		free(full);
		if (e->error == NULL)
			return HET_ENOMEM;
		for (p = e->error; *p != '\0'; p++)
			if (*p == '\n' || *p == '\t' || *p == '\r')
				*p = ' ';
		return HET_OK;
	}
	free(full);
	in = het_dataset_info(ds);
	e->ok = 1;
	e->layout = in->layout;
	e->nbins = in->nbins;
	e->n_q = in->n_q;
	e->n_phi = in->n_phi;
	e->frames = in->frames;
	het_dataset_close(ds);
	return HET_OK;
}

int
het_scan_set_note(struct het_scan_list *l)
{
	char buf[1536];

	free(l->note);
	l->note = NULL;
	if (l->nfiles > 0)
		return HET_OK;
	if (l->nother == 0 && l->ndirs == 0)
		snprintf(buf, sizeof(buf), "no result files in %s: the folder "
		    "is empty", l->dir);
	else
		snprintf(buf, sizeof(buf), "no result files in %s: none of "
		    "its %zu other file%s ends in .hdf, .h5, .hdf5 or .npy or "
		    "has an HDF5 signature (%zu sub-folder%s)", l->dir, l->nother,
		    l->nother == 1 ? "" : "s", l->ndirs,
		    l->ndirs == 1 ? "" : "s");
	if ((l->note = strdup(buf)) == NULL)
		return HET_ENOMEM;
	return HET_OK;
}

int
het_scan_same(const struct het_scan_entry *a, const struct het_scan_entry *b)
{
	return a->mtime == b->mtime && a->mtime_ns == b->mtime_ns &&
	    a->size == b->size && strcmp(a->name, b->name) == 0;
}

static struct het_scan_entry *
entries_copy(const struct het_scan_entry *v, size_t n, int *fail)
{
	struct het_scan_entry *c;
	size_t i;

	if ((c = calloc(n + 1, sizeof(*c))) == NULL) {
		*fail = 1;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		c[i] = v[i];
		c[i].name = strdup(v[i].name);
		c[i].error = v[i].error != NULL ? strdup(v[i].error) : NULL;
		if (c[i].name == NULL || (v[i].error != NULL &&
		    c[i].error == NULL))
			*fail = 1;
	}
	return c;
}

struct het_scan_list *
het_scan_list_copy(const struct het_scan_list *l)
{
	struct het_scan_list *c;
	int fail = 0;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	*c = *l;
	c->dir = c->focus = c->note = NULL;
	c->files = c->dirs = NULL;
	c->nfiles = c->ndirs = 0;
	c->files = entries_copy(l->files, l->nfiles, &fail);
	c->nfiles = c->files != NULL ? l->nfiles : 0;
	c->dirs = entries_copy(l->dirs, l->ndirs, &fail);
	c->ndirs = c->dirs != NULL ? l->ndirs : 0;
	c->dir = strdup(l->dir);
	if (l->focus != NULL && (c->focus = strdup(l->focus)) == NULL)
		fail = 1;
	if (l->note != NULL && (c->note = strdup(l->note)) == NULL)
		fail = 1;
	if (fail || c->dir == NULL) {
		het_scan_list_free(c);
		return NULL;
	}
	return c;
}

int
het_scan_dir(const char *path, struct het_scan_list **out,
    struct het_error *err)
{
	struct het_scan_list *l;
	size_t i;
	int rc;

	if ((rc = het_scan_read(path, &l, err)) != HET_OK)
		return rc;
	for (i = 0; i < l->nfiles; i++)
		if (het_scan_probe(l->dir, &l->files[i]) != HET_OK)
			goto nomem;
	if (het_scan_set_note(l) != HET_OK)
		goto nomem;
	l->complete = 1;
	*out = l;
	return HET_OK;
nomem:
	het_scan_list_free(l);
	return het_error_set(err, HET_ENOMEM, "out of memory reading file "
	    "metadata");
}

/* ------------------------------------------------------------------ */
/* Follow mode. */

static int
cmp_fl(const void *a, const void *b)
{
	return strcmp(((const struct fl_ent *)a)->name,
	    ((const struct fl_ent *)b)->name);
}

static void
fl_free(struct fl_ent *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i].name);
	free(v);
}

/*
 * Read the folder into a new name-sorted record array, carrying the
 * candidate and seen flags over from the old records of unchanged files.
 */
static int
fl_scan(struct het_follow *f, struct fl_ent **out, size_t *nout,
    struct het_error *err)
{
	struct fl_ent *v = NULL, *nv, key, *old;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	char *full;
	DIR *d;

	if ((d = opendir(f->dir)) == NULL) {
		if (errno == ENOENT)
			return not_found(f->dir, err);
		return het_error_sys(err, errno, "cannot read folder %s",
		    f->dir);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((full = join(f->dir, de->d_name)) == NULL)
			goto nomem;
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(full);
			continue;
		}
		if (n == cap) {
			cap = cap == 0 ? 32 : cap * 2;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL) {
				free(full);
				goto nomem;
			}
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		if ((v[n].name = strdup(de->d_name)) == NULL) {
			free(full);
			goto nomem;
		}
		v[n].mtime = st.st_mtim.tv_sec;
		v[n].ns = st.st_mtim.tv_nsec;
		v[n].size = (long long)st.st_size;
		key.name = v[n].name;
		old = f->n > 0 ? bsearch(&key, f->ents, f->n, sizeof(*f->ents),
		    cmp_fl) : NULL;
		if (old != NULL && old->mtime == v[n].mtime && old->ns ==
		    v[n].ns && old->size == v[n].size) {
			v[n].cand = old->cand;
			v[n].seen = old->seen;
		} else
			v[n].cand = het_scan_is_candidate(full);
		free(full);
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_fl);
	*out = v;
	*nout = n;
	return HET_OK;
nomem:
	closedir(d);
	fl_free(v, n);
	return het_error_set(err, HET_ENOMEM, "out of memory following %s",
	    f->dir);
}

/* The newest candidate (unseen only, if unseen), or NULL. */
static const struct fl_ent *
fl_newest(const struct fl_ent *v, size_t n, int unseen)
{
	const struct fl_ent *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!v[i].cand || (unseen && v[i].seen))
			continue;
		/* Name order breaks ties, as in listings (v is by name). */
		if (best == NULL || v[i].mtime > best->mtime ||
		    (v[i].mtime == best->mtime && v[i].ns > best->ns))
			best = &v[i];
	}
	return best;
}

struct het_follow *
het_follow_alloc(const char *dir, unsigned stable, struct het_error *err)
{
	struct het_follow *f;
	const struct fl_ent *nw;
	char *focus;
	size_t i;

	if (stable == 0) {
		het_error_set(err, HET_EINVAL, "follow: the number of stable "
		    "checks must be at least 1");
		return NULL;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	f->stable = stable;
	if (resolve(dir, &f->dir, &focus, err) != HET_OK)
		goto fail;
	if (focus != NULL) {
		free(focus);
		het_error_set(err, HET_EINVAL, "cannot follow %s: it is a "
		    "file; follow mode watches a folder", dir);
		goto fail;
	}
	if (fl_scan(f, &f->ents, &f->n, err) != HET_OK)
		goto fail;
	for (i = 0; i < f->n; i++)
		f->ents[i].seen = 1;
	if ((nw = fl_newest(f->ents, f->n, 0)) != NULL &&
	    (f->newest = join(f->dir, nw->name)) == NULL) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		goto fail;
	}
	return f;
fail:
	het_follow_free(f);
	return NULL;
}

int
het_follow_check(struct het_follow *f, char **found, long long *size,
    struct het_error *err)
{
	const struct fl_ent *nw;
	struct fl_ent *v;
	size_t n, i;
	int rc;

	*found = NULL;
	if ((rc = fl_scan(f, &v, &n, err)) != HET_OK)
		return rc;
	fl_free(f->ents, f->n);
	f->ents = v;
	f->n = n;
	if ((nw = fl_newest(v, n, 1)) == NULL) {
		free(f->pend);
		f->pend = NULL;
		f->count = 0;
		return HET_OK;
	}
	if (f->pend != NULL && strcmp(f->pend, nw->name) == 0 &&
	    f->pmtime == nw->mtime && f->pns == nw->ns &&
	    f->psize == nw->size)
		f->count++;
	else {
		free(f->pend);
		if ((f->pend = strdup(nw->name)) == NULL) {
			f->count = 0;
			return het_error_set(err, HET_ENOMEM, "out of memory");
		}
		f->pmtime = nw->mtime;
		f->pns = nw->ns;
		f->psize = nw->size;
		f->count = 1;
	}
	if (f->count < f->stable)
		return HET_OK;
	if ((*found = join(f->dir, f->pend)) == NULL)
		return het_error_set(err, HET_ENOMEM, "out of memory");
	if (size != NULL)
		*size = f->psize;
	for (i = 0; i < n; i++)
		v[i].seen = 1;
	free(f->pend);
	f->pend = NULL;
	f->count = 0;
	return HET_OK;
}

const char *
het_follow_dir(const struct het_follow *f)
{
	return f->dir;
}

const char *
het_follow_newest(const struct het_follow *f)
{
	return f->newest;
}

void
het_follow_free(struct het_follow *f)
{
	if (f == NULL)
		return;
	fl_free(f->ents, f->n);
	free(f->dir);
	free(f->newest);
	free(f->pend);
	free(f);
}
