/*
 * ui_log.c: the session log and the status line.
 *
 * Design: every message is a timestamped line in a fixed ring of
 * UI_LOG_MAX lines (the oldest is dropped), shown by the Log panel and
 * appended to $HETUI_LOG when that is set.  ui_msg() also puts the line in
 * the status line: information fades after a few seconds, warnings and
 * errors stay until the next key, so they are never missed (information
 * arriving meanwhile goes to the Log only).  Lines
 * captured from fd 2 arrive here as UI_LOG_STDERR.  Loop thread only.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define UI_STATUS_SECONDS 6.0

static void
ui_log_append(struct ui *ui, enum ui_level level, const char *text)
{
	static const char *const lvname[] = { "debug", "info", "warn",
	    "error", "stderr" };
	struct ui_log_line *l;
	struct tm tm;
	char stamp[32];
	size_t slot;

	if (ui->ses.log_len == UI_LOG_MAX) {
		l = &ui->ses.log[ui->ses.log_head];
		free(l->text);
		ui->ses.log_head = (ui->ses.log_head + 1) % UI_LOG_MAX;
		ui->ses.log_len--;
	}
	slot = (ui->ses.log_head + ui->ses.log_len) % UI_LOG_MAX;
	l = &ui->ses.log[slot];
	l->when = time(NULL);
	l->level = level;
	l->text = ui_xstrdup(text);
	ui->ses.log_len++;
	ui->ses.log_serial++;
	if (ui->ses.log_file != NULL) {
		localtime_r(&l->when, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(ui->ses.log_file, "%s %-6s %s\n", stamp, lvname[level],
		    text);
		fflush(ui->ses.log_file);
	}
	if (ui->panels[ui->view.cur] == &ui_panel_log)
		ui_dirty(ui, UI_DIRTY_BODY);
}

void
ui_log(struct ui *ui, enum ui_level level, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ui_log_append(ui, level, buf);
}

void
ui_msg(struct ui *ui, enum ui_level level, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ui_log_append(ui, level, buf);
	/* A warning or error stays until a key: news does not hide it. */
	if (level < UI_LOG_WARN && ui->view.status[0] != '\0' &&
	    ui->view.status_until == 0)
		return;
	/* The status line shows the start; the log keeps the whole line. */
	buf[sizeof(ui->view.status) - 1] = '\0';
	memcpy(ui->view.status, buf, sizeof(ui->view.status));
	ui->view.status_level = level;
	ui->view.status_until = level >= UI_LOG_WARN ? 0 :
	    ui_now() + UI_STATUS_SECONDS;
	ui_dirty(ui, UI_DIRTY_STATUS);
}

const struct ui_log_line *
ui_log_get(const struct ui *ui, size_t i)
{
	if (i >= ui->ses.log_len)
		return NULL;
	return &ui->ses.log[(ui->ses.log_head + i) % UI_LOG_MAX];
}

void
ui_log_free(struct ui *ui)
{
	size_t i;

	for (i = 0; i < ui->ses.log_len; i++)
		free(ui->ses.log[(ui->ses.log_head + i) % UI_LOG_MAX].text);
	ui->ses.log_len = 0;
	ui->ses.log_head = 0;
}
