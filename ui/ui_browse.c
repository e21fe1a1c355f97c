/*
 * ui_browse.c: the file browser overlay (o) and follow mode (F), for the
 * quick refit between two measurements.
 *
 * Design: the browser is an overlay over the panel body, not a panel: it
 * takes every key while it is open and is drawn after the render pass
 * whenever the body was redrawn under it (ui_browse_draw.c).  It never
 * touches the file system itself: listings and follow checks are requests
 * to the scan server (het_scan), whose answers arrive as events tagged
 * with generations; a listing is shown as soon as its names arrive and
 * is replaced as the metadata of each file comes in, the cursor staying
 * on the same name.  A path typed with / is a listing request too; when
 * it names a file, the answer lists its folder and the file is opened.
 * Follow mode asks the scan server to watch one folder; each file it
 * announces is opened like a file chosen here, and ui_browse_keep.c
 * carries the selection over.  Loop thread only.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "het_scan.h"
#include "het_util.h"
#include "ui.h"
#include "ui_browse.h"

char *
ui_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d;

	if (slash == NULL)
		return ui_xstrdup(".");
	if (slash == path)
		return ui_xstrdup("/");
	d = ui_xstrdup(path);
	d[slash - path] = '\0';
	return d;
}

/* The folder of the current file, or ".". */
static char *
current_dir(struct ui *ui)
{
	const char *p = ui->ses.meta != NULL ? ui->ses.meta->path :
	    ui->ses.data_path;

	return p != NULL ? ui_dir_of(p) : ui_xstrdup(".");
}

char *
ui_browse_join(const char *dir, const char *name)
{
	size_t ld = strlen(dir);
	char *p = ui_xcalloc(ld + strlen(name) + 2, 1);

	snprintf(p, ld + strlen(name) + 2, "%s%s%s", dir,
	    ld > 0 && dir[ld - 1] == '/' ? "" : "/", name);
	return p;
}

/*
 * An absolute spelling of path with "." and ".." folded, without asking
 * the file system (listings are resolved by the scan thread; the loop
 * thread only compares names).  Caller frees.
 */
char *
ui_browse_abs(const char *path)
{
	char cwd[4096], *full, *out, *tok, *save = NULL;
	size_t n = 0, k;

	if (path[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		full = ui_xstrdup(path);
	else
		full = ui_browse_join(cwd, path);
	out = ui_xcalloc(strlen(full) + 2, 1);
	for (tok = strtok_r(full, "/", &save); tok != NULL;
	    tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			for (k = n; k > 0 && out[k - 1] != '/'; k--)
				;
			n = k > 0 ? k - 1 : 0;
			out[n] = '\0';
			continue;
		}
		out[n++] = '/';
		strcpy(out + n, tok);
		n += strlen(tok);
	}
	if (n == 0)
		strcpy(out, "/");
	free(full);
	return out;
}

int
ui_browse_init(struct ui *ui, struct het_error *err)
{
	struct ui_browse *b = ui_xcalloc(1, sizeof(*b));
	const char *env = getenv("HETUI_FOLLOW_SECONDS");
	struct het_error e;

	ui->ses.browse = b;
	b->interval = HET_FOLLOW_INTERVAL;
	if (env != NULL && *env != '\0') {
		het_error_clear(&e);
		if (het_parse_double(env, "HETUI_FOLLOW_SECONDS", &b->interval,
		    &e) != HET_OK || !(b->interval > 0)) {
			b->interval = HET_FOLLOW_INTERVAL;
			ui_log(ui, UI_LOG_WARN, "HETUI_FOLLOW_SECONDS='%s' is "
			    "not a positive number of seconds; follow mode "
			    "checks every %g s", env, b->interval);
		}
	}
	if ((b->scan = het_scan_alloc(ui->ses.evq, err)) == NULL)
		return -1;
	if (het_scan_start(b->scan, err) != HET_OK)
		return -1;
	return 0;
}

static void
followed_clear(struct ui_browse *b)
{
	size_t k;

	for (k = 0; k < b->nfollowed; k++)
		free(b->followed[k]);
	free(b->followed);
	b->followed = NULL;
	b->nfollowed = 0;
}

void
ui_browse_free(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;

	if (b == NULL)
		return;
	het_scan_free(b->scan);
	het_scan_list_free(b->list);
	free(b->dir);
	free(b->error);
	free(b->want);
	free(b->follow_dir);
	free(b->open_abs);
	followed_clear(b);
	free(b);
	ui->ses.browse = NULL;
}

const char *const *
ui_browse_followed(const struct ui *ui, size_t *n)
{
	const struct ui_browse *b = ui->ses.browse;

	*n = b != NULL ? b->nfollowed : 0;
	return b != NULL ? (const char *const *)b->followed : NULL;
}

size_t
ui_browse_rows(const struct ui_browse *b)
{
	if (b->list == NULL)
		return 0;
	return 1 + b->list->ndirs + b->list->nfiles;
}

static void
request(struct ui *ui, const char *path, const char *want)
{
	struct ui_browse *b = ui->ses.browse;
	struct het_error err;
	char *w;

	het_error_clear(&err);
	if (het_scan_list(b->scan, path, &b->gen, &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
		return;
	}
	/* want may point into b->dir: copy it first. */
	w = want != NULL ? ui_xstrdup(want) : NULL;
	if (path != b->dir) {
		free(b->dir);
		b->dir = ui_xstrdup(path);
	}
	free(b->want);
	b->want = w;
	b->loading = 1;
	b->open_focus = 0;
	ui_dirty(ui, UI_DIRTY_BODY);
}

void
ui_browse_open(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;
	char *dir;

	if (b == NULL)
		return;
	b->on = 1;
	free(b->error);
	b->error = NULL;
	het_scan_list_free(b->list);
	b->list = NULL;
	b->cur = b->top = 0;
	/* The cursor starts on the newest file of the current folder. */
	dir = current_dir(ui);
	request(ui, dir, NULL);
	free(dir);
	ui_dirty(ui, UI_DIRTY_BODY | UI_DIRTY_FOOT);
}

static void
browse_close(struct ui *ui)
{
	ui->ses.browse->on = 0;
	ui_dirty(ui, UI_DIRTY_ALL);
}

static void
place_cursor(struct ui_browse *b, const char *name)
{
	const struct het_scan_list *l = b->list;
	size_t i;

	if (name != NULL) {
		for (i = 0; i < l->ndirs; i++)
			if (strcmp(l->dirs[i].name, name) == 0) {
				b->cur = 1 + i;
				return;
			}
		for (i = 0; i < l->nfiles; i++)
			if (strcmp(l->files[i].name, name) == 0) {
				b->cur = 1 + l->ndirs + i;
				return;
			}
	}
	b->cur = l->nfiles > 0 ? 1 + l->ndirs : 0;
}

/* The name under the cursor (NULL on ".."), borrowed from the listing. */
static const char *
cur_name(const struct ui_browse *b)
{
	if (b->list == NULL || b->cur == 0)
		return NULL;
	if (b->cur <= b->list->ndirs)
		return b->list->dirs[b->cur - 1].name;
	if (b->cur - 1 - b->list->ndirs < b->list->nfiles)
		return b->list->files[b->cur - 1 - b->list->ndirs].name;
	return NULL;
}

static void
open_file(struct ui *ui, const char *dir, const struct het_scan_entry *e)
{
	char *path = ui_browse_join(dir, e->name);

	if (e->probed && !e->ok) {
		ui_msg(ui, UI_LOG_ERROR, "cannot open %s: %s", e->name,
		    e->error != NULL ? e->error : "unreadable");
		free(path);
		return;
	}
	browse_close(ui);
	ui_open_file(ui, path);
	free(path);
}

static void
on_list(struct ui *ui, struct het_event *ev)
{
	struct ui_browse *b = ui->ses.browse;
	struct het_scan_list *l = ev->data;
	char *name = NULL;
	int same, on_parent;
	size_t i;

	if (l->gen != b->gen)
		return;		/* superseded */
	ev->data = NULL;
	same = b->list != NULL && strcmp(b->list->dir, l->dir) == 0;
	if (b->want != NULL)
		name = ui_xstrdup(b->want);
	else if (same && cur_name(b) != NULL)
		name = ui_xstrdup(cur_name(b));
	on_parent = same && b->want == NULL && b->cur == 0;
	het_scan_list_free(b->list);
	b->list = l;
	free(b->dir);
	b->dir = ui_xstrdup(l->dir);
	free(b->error);
	b->error = NULL;
	if (on_parent)
		b->cur = 0;
	else
		place_cursor(b, name != NULL ? name : l->focus);
	free(name);
	/* Used once: later parts of this listing keep the user's row. */
	free(b->want);
	b->want = NULL;
	if (l->complete)
		b->loading = 0;
	ui_dirty(ui, UI_DIRTY_BODY);
	if (!b->open_focus || l->focus == NULL)
		return;
	/* A typed file path: open it once its metadata is known. */
	for (i = 0; i < l->nfiles; i++)
		if (strcmp(l->files[i].name, l->focus) == 0) {
			if (!l->files[i].probed)
				return;
			b->open_focus = 0;
			open_file(ui, l->dir, &l->files[i]);
			return;
		}
	if (l->complete) {
		b->open_focus = 0;
		ui_msg(ui, UI_LOG_ERROR, "%s is not a result file: hetui "
		    "opens *.hdf, *.h5, *.hdf5 and *.npy files and files with "
		    "an HDF5 signature", l->focus);
	}
}

static void
on_error(struct ui *ui, struct het_event *ev)
{
	struct ui_browse *b = ui->ses.browse;
	struct het_scan_failure *f = ev->data;

	if (f->kind == HET_SCAN_REQ_LIST) {
		if (f->gen != b->gen)
			return;
		b->loading = 0;
		b->open_focus = 0;
		free(b->error);
		b->error = ui_xstrdup(f->err.msg);
		if (b->list != NULL) {	/* stay where we were */
			free(b->dir);
			b->dir = ui_xstrdup(b->list->dir);
		}
		ui_log(ui, UI_LOG_WARN, "browser: %s", f->err.msg);
		ui_dirty(ui, UI_DIRTY_BODY);
		return;
	}
	if (!b->follow || f->gen != b->follow_gen)
		return;
	if (!b->follow_ok) {
		b->follow = 0;
		ui_msg(ui, UI_LOG_ERROR, "follow mode not started: %s",
		    f->err.msg);
	} else
		ui_msg(ui, UI_LOG_ERROR, "follow: %s (still checking every "
		    "%g s)", f->err.msg, b->interval);
	ui_dirty(ui, UI_DIRTY_STATUS);
}

static void
on_following(struct ui *ui, struct het_event *ev)
{
	struct ui_browse *b = ui->ses.browse;
	struct het_scan_found *fd = ev->data;
	const char *base;

	if (!b->follow || fd->gen != b->follow_gen)
		return;
	b->follow_ok = 1;
	free(b->follow_dir);
	b->follow_dir = ui_xstrdup(fd->dir);
	base = fd->path != NULL ? strrchr(fd->path, '/') + 1 : NULL;
	if (base != NULL)
		ui_log(ui, UI_LOG_INFO, "follow: checking %s every %g s; the "
		    "files already there (newest: %s) are not loaded",
		    fd->dir, b->interval, base);
	else
		ui_log(ui, UI_LOG_INFO, "follow: checking %s every %g s; it "
		    "holds no result file yet", fd->dir, b->interval);
	ui_msg(ui, UI_LOG_INFO, "following %s: new result files will be "
	    "loaded", fd->dir);
	ui_dirty(ui, UI_DIRTY_STATUS);
}

static void
on_found(struct ui *ui, struct het_event *ev)
{
	struct ui_browse *b = ui->ses.browse;
	struct het_scan_found *fd = ev->data;
	const char *base = strrchr(fd->path, '/') + 1;

	if (!b->follow || fd->gen != b->follow_gen)
		return;
	if (ui_work_running(ui)) {
		ui_msg(ui, UI_LOG_WARN, "follow: new result file %s in %s; "
		    "not loaded while work runs (o opens it)", base, fd->dir);
		return;
	}
	ui_log(ui, UI_LOG_INFO, "follow: new result file %s (%lld bytes) "
	    "appeared in %s; loading it", base, fd->size, fd->dir);
	ui_open_file(ui, fd->path);
	/* the series the Fit panel's t fits */
	b->followed = realloc(b->followed, (b->nfollowed + 1) *
	    sizeof(*b->followed));
	if (b->followed == NULL)
		ui_fatal("out of memory for the followed files");
	b->followed[b->nfollowed++] = ui_xstrdup(fd->path);
	if (b->on && b->list != NULL && strcmp(b->list->dir, fd->dir) == 0)
		request(ui, b->list->dir, NULL);
}

void
ui_browse_event(struct ui *ui, struct het_event *ev)
{
	if (ui->ses.browse == NULL || ev->data == NULL)
		return;
	switch (ev->type) {
	case HET_SCAN_EV_LIST:
		on_list(ui, ev);
		break;
	case HET_SCAN_EV_ERROR:
		on_error(ui, ev);
		break;
	case HET_SCAN_EV_FOLLOWING:
		on_following(ui, ev);
		break;
	case HET_SCAN_EV_FOUND:
		on_found(ui, ev);
		break;
	}
}

static void
follow_start(struct ui *ui, const char *dir)
{
	struct ui_browse *b = ui->ses.browse;
	struct het_error err;

	het_error_clear(&err);
	if (het_scan_follow(b->scan, dir, b->interval, HET_FOLLOW_STABLE,
	    &b->follow_gen, &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
		return;
	}
	b->follow = 1;
	b->follow_ok = 0;
	free(b->follow_dir);
	b->follow_dir = ui_xstrdup(dir);
	followed_clear(b);	/* a series of this folder's files */
	ui_log(ui, UI_LOG_INFO, "follow: starting on %s", dir);
	ui_dirty(ui, UI_DIRTY_STATUS);
}

static void
follow_stop(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;

	het_scan_unfollow(b->scan);
	b->follow = 0;
	b->follow_gen = 0;
	ui_msg(ui, UI_LOG_INFO, "follow mode off (was following %s)",
	    b->follow_dir);
	ui_dirty(ui, UI_DIRTY_STATUS);
}

void
ui_browse_follow_toggle(struct ui *ui)
{
	char *dir;

	if (ui->ses.browse == NULL)
		return;
	if (ui->ses.browse->follow) {
		follow_stop(ui);
		return;
	}
	dir = current_dir(ui);
	follow_start(ui, dir);
	free(dir);
}

static void
path_done(struct ui *ui, const char *text)
{
	struct ui_browse *b = ui->ses.browse;
	const char *home = getenv("HOME");
	char *path;

	while (*text == ' ')
		text++;
	if (*text == '\0')
		return;
	if (text[0] == '~' && (text[1] == '/' || text[1] == '\0') &&
	    home != NULL)
		path = ui_browse_join(home, text[1] == '/' ? text + 2 : "");
	else if (text[0] == '/')
		path = ui_xstrdup(text);
	else
		path = ui_browse_join(b->dir != NULL ? b->dir : ".", text);
	request(ui, path, NULL);
	b->open_focus = 1;
	free(path);
}

static void
go_up(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;
	const char *dir = b->list != NULL ? b->list->dir : b->dir;
	const char *slash;
	char *parent;

	if (dir == NULL || strcmp(dir, "/") == 0)
		return;
	if ((slash = strrchr(dir, '/')) == NULL) {
		/* A relative name asked for before its listing came. */
		parent = ui_browse_join(dir, "..");
		request(ui, parent, NULL);
	} else {
		parent = ui_dir_of(dir);
		request(ui, parent, slash + 1);
	}
	free(parent);
}

static void
activate(struct ui *ui)
{
	struct ui_browse *b = ui->ses.browse;
	const struct het_scan_list *l = b->list;
	char *path;

	if (l == NULL)
		return;
	if (b->cur == 0) {
		go_up(ui);
		return;
	}
	if (b->cur <= l->ndirs) {
		path = ui_browse_join(l->dir, l->dirs[b->cur - 1].name);
		request(ui, path, NULL);
		free(path);
		return;
	}
	open_file(ui, l->dir, &l->files[b->cur - 1 - l->ndirs]);
}

static void
browse_move(struct ui *ui, long delta)
{
	struct ui_browse *b = ui->ses.browse;
	long n = (long)ui_browse_rows(b), c = (long)b->cur + delta;

	if (n == 0)
		return;
	if (c < 0)
		c = 0;
	if (c >= n)
		c = n - 1;
	b->cur = (size_t)c;
	ui_dirty(ui, UI_DIRTY_BODY);
}

int
ui_browse_key(struct ui *ui, int key)
{
	struct ui_browse *b = ui->ses.browse;
	long page;
	char init[1100];

	if (b == NULL || !b->on)
		return 0;
	page = b->rows > 1 ? b->rows - 1 : 1;
	switch (key) {
	case UI_K_UP:
	case 'k':
		browse_move(ui, -1);
		break;
	case UI_K_DOWN:
	case 'j':
		browse_move(ui, 1);
		break;
	case UI_K_PGUP:
		browse_move(ui, -page);
		break;
	case UI_K_PGDN:
		browse_move(ui, page);
		break;
	case UI_K_HOME:
	case 'g':
		browse_move(ui, -(long)ui_browse_rows(b));
		break;
	case UI_K_END:
	case 'G':
		browse_move(ui, (long)ui_browse_rows(b));
		break;
	case '\r':
	case '\n':
	case UI_K_ENTER:
	case UI_K_RIGHT:
		activate(ui);
		break;
	case UI_K_BACKSPACE:
	case 0x7f:
	case 0x08:
	case UI_K_LEFT:
		go_up(ui);
		break;
	case '/':
		snprintf(init, sizeof(init), "%s%s", b->dir != NULL ? b->dir :
		    "", b->dir != NULL && strcmp(b->dir, "/") != 0 ? "/" : "");
		ui_prompt_open_sel(ui, "Go to (folder or file):", init,
		    path_done);
		break;
	case 'r':
		if (b->dir != NULL)
			request(ui, b->dir, cur_name(b));
		break;
	case 'F':
		if (b->follow && b->list != NULL && b->follow_dir != NULL &&
		    strcmp(b->follow_dir, b->list->dir) == 0)
			follow_stop(ui);
		else if (b->list != NULL)
			follow_start(ui, b->list->dir);
		break;
	case UI_K_ESC:
	case 'q':
	case 'o':
		browse_close(ui);
		break;
	}
	return 1;
}
