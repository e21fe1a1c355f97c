/*
 * sample_drive.c: see sample_drive.h.
 */
#include "config.h"

#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "het_proc.h"
#include "sample_drive.h"

/* Drive s to the end; returns the longest het_sample_handle call (s). */
double
sample_drive(struct het_sample *s, void (*hook)(struct het_sample *, void *),
    void *arg)
{
	struct pollfd fds[64];
	size_t n;
	double now, dl, t0, worst = 0;
	int ms;

	while (!het_sample_finished(s)) {
		het_sample_pollfds(s, fds, 64, &n);
		now = het_clock_now();
		dl = het_sample_next_deadline(s);
		ms = 50;
		if (dl >= 0 && (dl - now) * 1000.0 < ms)
			ms = dl <= now ? 0 : (int)((dl - now) * 1000.0) + 1;
		if (poll(fds, n, ms) < 0)
			n = 0;
		t0 = het_clock_now();
		het_sample_handle(s, fds, n, t0);
		if (het_clock_now() - t0 > worst)
			worst = het_clock_now() - t0;
		if (hook != NULL)
			hook(s, arg);
	}
	return worst;
}

/* Workers still alive: processes whose parent is this process. */
int
sample_live_children(void)
{
	char path[300], buf[512], *p;
	DIR *d;
	struct dirent *e;
	FILE *fp;
	long ppid;
	int n = 0;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), fp) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %ld", &ppid) == 1 &&
		    ppid == (long)getpid())
			n++;
		fclose(fp);
	}
	closedir(d);
	return n;
}
