/*
 * ui_main.c: the workstation's event loop.
 *
 * Design (docs/design.md, aesthetics-anchors §6.6): one loop thread owns
 * the terminal and the UI model and sleeps only in het_loop's poll() on
 * four descriptors: the keyboard, the signal self-pipe, the engine's
 * event queue and the captured stderr pipe, plus those of the panels
 * that run work (their pollfds, deadline and handle hooks: while a
 * sampling run is active, its wake-up pipe and its workers' pipes); the
 * loop names no panel.
 * Each iteration drains every ready source into the model, which only
 * sets dirty bits; the render pass runs at the end, at most every 50 ms
 * (~20 Hz), so a burst of events or keys costs one redraw.  Heavy work
 * never runs here: file reads and grids are requests to the I/O thread
 * (het_io), whose answers come back as events tagged with generations,
 * so answers to superseded requests are ignored.
 * Configuration files are the exception: they are a few kilobytes and are
 * read and written here (ui_config.c).
 * Every exit path, including SIGTERM and SIGHUP, restores the terminal
 * before the process ends, and work still going is wound down by its
 * panel (wind_down: a sampling run is cancelled so that the shards that
 * finished are combined and written): a dropped SSH session loses no
 * finished work.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "het_loop.h"
#include "het_pool.h"
#include "het_thread.h"
#include "ui.h"
#include "ui_main.h"

#define UI_FRAME_SECONDS 0.05	/* redraw at most ~20 times a second */

static const struct ui_panel_ops *const ui_all_panels[] = {
	&ui_panel_data,
	&ui_panel_model,
	&ui_panel_fit,
	&ui_panel_sample,
	&ui_panel_results,
	&ui_panel_log,		/* the Log stays last: key 0 finds it */
};

double
ui_now(void)
{
	return het_clock_now();
}

void
ui_dirty(struct ui *ui, int bits)
{
	ui->view.dirty |= bits;
}

void
ui_open_file(struct ui *ui, const char *path)
{
	struct het_error err;

	free(ui->ses.data_path);
	free(ui->ses.data_error);
	ui->ses.data_error = NULL;
	ui->ses.data_path = ui_xstrdup(path);
	het_error_clear(&err);
	if (het_io_open(ui->ses.io, path, &ui->ses.open_gen, &err) != HET_OK) {
		ui_msg(ui, UI_LOG_ERROR, "%s", err.msg);
		return;
	}
	ui->ses.opening = 1;
	ui_log(ui, UI_LOG_INFO, "opening %s", path);
	ui_dirty(ui, UI_DIRTY_ALL);
}

static void
ui_request_quit(struct ui *ui)
{
	if (ui_work_running(ui) || ui->ses.cfg_dirty) {
		ui->view.confirm_quit = 1;
		ui_dirty(ui, UI_DIRTY_STATUS);
		return;
	}
	ui->quit = 1;
}

static void
ui_switch(struct ui *ui, size_t to)
{
	if (to >= ui->npanels || to == ui->view.cur)
		return;
	ui->view.cur = to;
	ui->view.help = 0;
	ui_dirty(ui, UI_DIRTY_TABS | UI_DIRTY_BODY | UI_DIRTY_FOOT);
}

static void
ui_on_opened(struct ui *ui, struct het_event *ev)
{
	struct het_io_meta *m = ev->data;
	struct ui_keep keep;
	char dt[64];

	if (m->gen != ui->ses.open_gen) {
		ui_log(ui, UI_LOG_DEBUG, "discarded a stale open result");
		return;
	}
	ev->data = NULL;
	ui->ses.opening = 0;
	ui->ses.mt_only = 0;
	ui_keep_take(ui, &keep);	/* a refit keeps the selection */
	ui_model_set_meta(ui, m);
	if (m->dt == m->dt)
		snprintf(dt, sizeof(dt), "dt %.6g s", m->dt);
	else
		snprintf(dt, sizeof(dt), "dt unknown");
	ui_msg(ui, UI_LOG_INFO, "opened %s: %s, %zu bin%s in %zu ring%s, "
	    "%zu frames, %s", m->path, het_layout_name(m->layout), m->nbins,
	    m->nbins == 1 ? "" : "s", ui->ses.nrings,
	    ui->ses.nrings == 1 ? "" : "s",
	    m->frames, dt);
	if (keep.have)
		ui_keep_apply(ui, &keep);
	else
		ui_model_apply_config(ui, ui->ses.cfg);
}

/* A multitau-only file opened: its g2 is the Data panel's. */
static void
ui_on_multitau(struct ui *ui, struct het_event *ev)
{
	const struct het_io_mt *m = ev->data;

	if (!m->only || m->gen != ui->ses.open_gen)
		return;
	ui->ses.opening = 0;
	ui_model_clear(ui);	/* no matrices: nothing to select or fit */
	ui->ses.mt_only = 1;
	ui_msg(ui, UI_LOG_INFO, "opened %s: multitau g2 only, %zu bins at "
	    "%zu delays, shown with their fits in the Data panel",
	    m->mt->path, m->mt->nbins, m->mt->ntau);
	if (m->twotime.code != HET_OK)
		ui_log(ui, UI_LOG_WARN, "its two-time data were not read: %s",
		    m->twotime.msg);
	ui_dirty(ui, UI_DIRTY_ALL);
}

static void
ui_on_error(struct ui *ui, struct het_event *ev)
{
	struct het_io_failure *f = ev->data;

	if (f->kind != HET_IO_REQ_OPEN)
		return;		/* views belong to the Data panel */
	if (f->gen != ui->ses.open_gen)
		return;
	ui->ses.opening = 0;
	free(ui->ses.data_error);
	ui->ses.data_error = ui_xstrdup(f->err.msg);
	ui_msg(ui, UI_LOG_ERROR, "%s", f->err.msg);
	ui_dirty(ui, UI_DIRTY_ALL);
}

static void
ui_drain_events(struct ui *ui)
{
	struct het_event evs[32];
	size_t n, i, p;

	while ((n = het_evq_drain(ui->ses.evq, evs, 32)) > 0) {
		for (i = 0; i < n; i++) {
			if (evs[i].type == HET_IO_EV_OPENED)
				ui_on_opened(ui, &evs[i]);
			else if (evs[i].type == HET_IO_EV_ERROR)
				ui_on_error(ui, &evs[i]);
			else if (evs[i].type == HET_IO_EV_MULTITAU)
				ui_on_multitau(ui, &evs[i]);
			ui_browse_event(ui, &evs[i]);
			for (p = 0; p < ui->npanels; p++)
				if (ui->panels[p]->event != NULL)
					ui->panels[p]->event(ui, ui->pstate[p],
					    &evs[i]);
			if (evs[i].data != NULL && evs[i].free_cb != NULL)
				evs[i].free_cb(evs[i].data);
		}
		if (n < 32)
			break;
	}
	ui_dirty(ui, UI_DIRTY_TABS);
}

static void
ui_stderr_line(void *arg, const char *line)
{
	ui_log(arg, UI_LOG_STDERR, "%s", line);
}

/* Returns the signal that must end the process, or 0. */
static int
ui_drain_signals(struct ui *ui, int fd)
{
	unsigned char buf[64];
	ssize_t n, i;
	int fatal = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			switch (buf[i]) {
			case SIGWINCH:
				ui_term_resize();
				ui_layout(ui);
				break;
			case SIGCHLD:
				/*
				 * No waitpid(-1): het_proc reaps its workers
				 * by pid (the Sampling panel's handle runs
				 * after this poll) and needs their exit
				 * statuses.
				 */
				break;
			case SIGINT:
				ui_request_quit(ui);
				break;
			case SIGTERM:
			case SIGHUP:
				fatal = buf[i];
				break;
			case SIGTSTP:
			case SIGCONT:
				/* Stops here until SIGCONT, then repaints. */
				if (buf[i] == SIGTSTP)
					ui_term_suspend();
				ui_term_resume();
				ui_layout(ui);
				break;
			}
		}
	}
	return fatal;
}

static void
ui_key(struct ui *ui, int key)
{
	const struct ui_panel_ops *p = ui->panels[ui->view.cur];

	if (key == UI_KEYFN(KEY_RESIZE))
		return;
	if (ui->scr.too_small) {
		if (key == 'q' || key == UI_K_F(10))
			ui_request_quit(ui);
		return;
	}
	if (key == 0x0c) {	/* Ctrl-L */
		clearok(curscr, TRUE);
		ui_dirty(ui, UI_DIRTY_ALL);
		return;
	}
	if (ui->view.help) {
		if (key == UI_K_DOWN || key == 'j' || key == UI_K_PGDN)
			ui->view.help_scroll += key == UI_K_PGDN ? 10 : 1;
		else if (key == UI_K_UP || key == 'k' || key == UI_K_PGUP) {
			ui->view.help_scroll -= key == UI_K_PGUP ? 10 : 1;
			if (ui->view.help_scroll < 0)
				ui->view.help_scroll = 0;
		} else
			ui->view.help = 0;
		ui_dirty(ui, UI_DIRTY_BODY);
		return;
	}
	if (ui->view.confirm_quit) {
		ui->view.confirm_quit = 0;
		if (key == 'y' || key == 'Y')
			ui->quit = 1;
		else
			ui_msg(ui, UI_LOG_INFO, "quit cancelled");
		ui_dirty(ui, UI_DIRTY_STATUS);
		return;
	}
	if (ui_prompt_key(ui, key))
		return;
	if (ui->view.status[0] != '\0' && ui->view.status_until == 0) {
		/* a key acknowledges an error */
		ui->view.status[0] = '\0';
		ui_dirty(ui, UI_DIRTY_STATUS);
	}
	if (ui_browse_key(ui, key))	/* the browser overlay is open */
		return;
	if (p->key != NULL && p->key(ui, ui->pstate[ui->view.cur], key))
		return;
	switch (key) {
	case '\t':
		ui_switch(ui, (ui->view.cur + 1) % ui->npanels);
		break;
	case UI_K_BTAB:
		ui_switch(ui, (ui->view.cur + ui->npanels - 1) % ui->npanels);
		break;
	case '?':
	case UI_K_F(1):
		ui->view.help = 1;
		ui->view.help_scroll = 0;
		ui_dirty(ui, UI_DIRTY_BODY);
		break;
	case 'q':
	case UI_K_F(10):
		ui_request_quit(ui);
		break;
	case 'o':
		ui_browse_open(ui);
		break;
	case 'F':
		ui_browse_follow_toggle(ui);
		break;
	default:
		if (key >= '1' && key <= '9')
			ui_switch(ui, (size_t)(key - '1'));
		else if (key == '0')	/* the Log, whatever its number */
			ui_switch(ui, ui->npanels - 1);
	}
}

static void
ui_read_keys(struct ui *ui)
{
	wint_t wch;
	int rc;

	while (!ui->quit && (rc = get_wch(&wch)) != ERR) {
		if (rc == KEY_CODE_YES)
			ui_key(ui, UI_KEYFN((int)wch));
		else
			ui_key(ui, (int)wch);
	}
}

/* The loop's own source: keyboard, signals, engine events, stderr. */
struct ui_core {
	struct ui	*ui;
	int		 sigfd, errfd;
	int		 fatal;		/* the signal to end with */
	double		 last;		/* the last render */
};

static size_t
core_fds(void *obj, struct pollfd *fds, size_t cap)
{
	struct ui_core *c = obj;
	const int fd[4] = { STDIN_FILENO, c->sigfd, het_evq_fd(c->ui->ses.evq),
	    c->errfd };
	size_t k;

	for (k = 0; k < 4 && k < cap; k++) {
		fds[k].fd = fd[k];
		fds[k].events = POLLIN;
	}
	return k;
}

/* The next frame when something is dirty, the status line's expiry, and
   a 0.1 s tick while the I/O thread reads (its indicator). */
static double
core_deadline(void *obj)
{
	struct ui_core *c = obj;
	struct ui *ui = c->ui;
	double dl = -1.0;

	if (ui->view.dirty)
		dl = c->last + UI_FRAME_SECONDS;
	if (ui->view.status[0] != '\0' && ui->view.status_until > 0)
		dl = het_loop_earlier(dl, ui->view.status_until);
	if (het_io_busy(ui->ses.io))
		dl = het_loop_earlier(dl, ui_now() + 0.1);
	return dl;
}

static void
core_handle(void *obj, const struct pollfd *fds, size_t n, double now)
{
	struct ui_core *c = obj;
	struct ui *ui = c->ui;

	(void)now;
	if (het_io_busy(ui->ses.io))
		ui_dirty(ui, UI_DIRTY_TABS);
	if (n < 4)
		return;
	if (fds[1].revents & POLLIN)
		c->fatal = ui_drain_signals(ui, c->sigfd);
	if (fds[2].revents & POLLIN)
		ui_drain_events(ui);
	if (fds[3].revents & (POLLIN | POLLHUP))
		ui_term_read_stderr(ui_stderr_line, ui);
	if (fds[0].revents & (POLLHUP | POLLERR)) {
		/* The terminal went away: nobody is left to ask. */
		c->fatal = SIGHUP;
	} else if (fds[0].revents & POLLIN)
		ui_read_keys(ui);
}

/* A panel as a loop source (its pollfds, deadline and handle hooks). */
struct ui_src {
	struct ui	*ui;
	size_t		 k;
};

static size_t
panel_fds(void *obj, struct pollfd *fds, size_t cap)
{
	struct ui_src *p = obj;
	const struct ui_panel_ops *o = p->ui->panels[p->k];

	return o->pollfds != NULL ? o->pollfds(p->ui, p->ui->pstate[p->k],
	    fds, cap) : 0;
}

static double
panel_deadline(void *obj)
{
	struct ui_src *p = obj;
	const struct ui_panel_ops *o = p->ui->panels[p->k];

	return o->deadline != NULL ? o->deadline(p->ui,
	    p->ui->pstate[p->k]) : -1.0;
}

static void
panel_handle(void *obj, const struct pollfd *fds, size_t n, double now)
{
	struct ui_src *p = obj;
	const struct ui_panel_ops *o = p->ui->panels[p->k];

	(void)now;
	if (o->handle != NULL)
		o->handle(p->ui, p->ui->pstate[p->k], fds, n);
}

/*
 * The loop: the panels that run work come first (as the sampling run's
 * reaping did before the keys), then the loop's own descriptors; one
 * render pass per turn at most every UI_FRAME_SECONDS.
 */
static int
ui_loop(struct ui *ui, int sigfd, int errfd)
{
	struct het_loop_source src[HET_LOOP_MAX_SOURCES];
	struct ui_src psrc[UI_MAX_PANELS];
	struct ui_core core = { ui, sigfd, errfd, 0, 0.0 };
	struct het_loop loop;
	struct het_error err;
	size_t k, n = 0;
	double now;
	int drawn;

	for (k = 0; k < ui->npanels && n + 1 < HET_LOOP_MAX_SOURCES; k++) {
		const struct ui_panel_ops *o = ui->panels[k];

		if (o->pollfds == NULL && o->deadline == NULL &&
		    o->handle == NULL)
			continue;
		psrc[k] = (struct ui_src){ ui, k };
		src[n++] = (struct het_loop_source){ &psrc[k], o->max_fds,
		    panel_fds, panel_deadline, panel_handle };
	}
	src[n++] = (struct het_loop_source){ &core, 4, core_fds,
	    core_deadline, core_handle };
	if (het_loop_init(&loop, src, n, &err) != HET_OK)
		ui_fatal("%s", err.msg);
	while (!ui->quit && !core.fatal) {
		now = ui_now();
		if (ui->view.status[0] != '\0' && ui->view.status_until > 0 &&
		    now >= ui->view.status_until) {
			ui->view.status[0] = '\0';
			ui_dirty(ui, UI_DIRTY_STATUS);
		}
		if (ui->view.dirty && now - core.last >= UI_FRAME_SECONDS) {
			drawn = ui->view.dirty;
			ui_render(ui);
			ui_browse_render(ui, drawn);
			core.last = now;
		}
		if (het_loop_once(&loop) != 0)
			ui_fatal("poll failed: %s", strerror(errno));
	}
	het_loop_fini(&loop);
	return core.fatal;
}

/* Work that quitting would stop: any panel's (a fit, a sampling run). */
int
ui_work_running(const struct ui *ui)
{
	size_t k;

	for (k = 0; k < ui->npanels; k++)
		if (ui->panels[k]->busy != NULL &&
		    ui->panels[k]->busy(ui, ui->pstate[k]))
			return 1;
	return 0;
}

/* At exit: every panel drives its work to an end that keeps what
   finished; their sentences for stderr joined in msg. */
static void
ui_wind_down(struct ui *ui, char *msg, size_t len)
{
	char one[512];
	size_t k, used = 0;

	msg[0] = '\0';
	for (k = 0; k < ui->npanels; k++) {
		if (ui->panels[k]->wind_down == NULL)
			continue;
		one[0] = '\0';
		ui->panels[k]->wind_down(ui, ui->pstate[k], one, sizeof(one));
		if (one[0] != '\0' && used + 1 < len)
			used += (size_t)snprintf(msg + used, len - used,
			    "%s%s", used > 0 ? "; " : "", one);
	}
}

static void
ui_teardown(struct ui *ui)
{
	size_t i;

	het_io_free(ui->ses.io);
	ui->ses.io = NULL;
	ui_browse_free(ui);
	for (i = 0; i < ui->npanels; i++)
		if (ui->panels[i]->free != NULL)
			ui->panels[i]->free(ui->pstate[i]);
	ui_term_fini();
	het_evq_free(ui->ses.evq);
	ui_model_clear(ui);
	ui_config_free(ui);
	ui_log_free(ui);
	ui_fit_history_free(ui);
	if (ui->ses.log_file != NULL)
		fclose(ui->ses.log_file);
	free(ui->ses.data_path);
	free(ui->ses.data_error);
	free(ui->ses.model_dir);
	free(ui);
}

int
ui_main(const struct ui_options *opts)
{
	struct het_error err;
	struct ui *ui;
	const char *nc, *logp;
	char msg[512];
	int sigfd, errfd, fatal, status;
	size_t i;

	setlocale(LC_ALL, "");
	ui = ui_xcalloc(1, sizeof(*ui));
	ui->opts = *opts;
	nc = getenv("NO_COLOR");
	logp = getenv("HETUI_LOG");
	if (logp != NULL && *logp != '\0' &&
	    (ui->ses.log_file = fopen(logp, "a")) == NULL) {
		fprintf(stderr, "hetui: cannot append to HETUI_LOG file "
		    "'%s': %s\n", logp, strerror(errno));
		free(ui);
		return 1;
	}
	/* Before newterm(): curses must not install its own handlers. */
	sigfd = ui_term_signals();
	if (sigfd < 0) {
		fprintf(stderr, "hetui: cannot set up signal handling: %s\n",
		    strerror(errno));
		ui_teardown(ui);
		return 1;
	}
	/* Fits run BLAS on several pool threads at once. */
	het_pool_blas_single_threaded();
	het_error_clear(&err);
	if ((ui->ses.evq = het_evq_alloc(&err)) == NULL ||
	    (ui->ses.io = het_io_alloc(ui->ses.evq, &err)) == NULL ||
	    het_io_start(ui->ses.io, &err) != HET_OK ||
	    ui_browse_init(ui, &err) != 0) {
		fprintf(stderr, "hetui: %s\n", err.msg);
		ui_teardown(ui);
		return 1;
	}
	if (ui_term_init(&ui->scr.term, !opts->ascii, !opts->no_color &&
	    (nc == NULL || *nc == '\0'), &errfd, msg, sizeof(msg)) != 0) {
		ui_teardown(ui);
		fprintf(stderr, "hetui: %s\n", msg);
		return 1;
	}
	for (i = 0; i < sizeof(ui_all_panels) / sizeof(ui_all_panels[0]);
	    i++) {
		ui->panels[i] = ui_all_panels[i];
		ui->pstate[i] = ui->panels[i]->init != NULL ?
		    ui->panels[i]->init(ui) : NULL;
	}
	ui->npanels = i;
	ui_layout(ui);
	ui_log(ui, UI_LOG_INFO, "%s %s started on a %dx%d terminal (%s, %s)",
	    PACKAGE_NAME, PACKAGE_VERSION, COLS, LINES,
	    ui->scr.term.utf8 ? "UTF-8" : "ASCII", ui->scr.term.colors256 ?
	    "256 colours" : ui->scr.term.color ? "8 colours" : "monochrome");
	ui_config_start(ui);
	if (opts->data_path != NULL)
		ui_open_file(ui, opts->data_path);
	fatal = ui_loop(ui, sigfd, errfd);
	if (fatal == 0 && ui_work_running(ui)) {
		/* A confirmed quit: say why the screen waits. */
		ui_msg(ui, UI_LOG_WARN, "stopping the running work and "
		    "writing what finished...");
		ui_render(ui);
	}
	/* Finished work is written on a quit and a hang-up alike. */
	ui_wind_down(ui, msg, sizeof(msg));
	status = ui->exit_status;
	ui_teardown(ui);
	if (msg[0] != '\0')
		fprintf(stderr, "hetui: %s\n", msg);
	if (fatal != 0) {
		/* Die of the same signal, so the parent sees why. */
		signal(fatal, SIG_DFL);
		raise(fatal);
		return 128 + fatal;
	}
	return status;
}
