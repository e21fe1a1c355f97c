/*
 * het_proc_spawn.c: starting one hetui-worker (see het_proc.h): its
 * command line through the configured worker command, pipes for stdin
 * and stdout (non-blocking on our side; stdout to the log with
 * out_to_log), stderr appended to its log, its own process group,
 * posix_spawn with every signal unblocked and default in the child.
 * Also where a child's program and temporary folder come from.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "het_proc_impl.h"

extern char **environ;

static int
het_proc_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The command line as one string for messages. */
static void
het_proc_cmdline(const struct het_procset *set, char *buf, size_t sz)
{
	size_t	i, o = 0;
	int	k;

	buf[0] = '\0';
	for (i = 0; i < set->argc && o < sz; i++) {
		k = snprintf(buf + o, sz - o, "%s%s", i ? " " : "",
		    set->argv[i]);
		if (k < 0)
			break;
		o += (size_t)k;
	}
}

struct het_proc *
het_proc_spawn(struct het_procset *set, int id, double now,
    struct het_error *err)
{
	struct het_proc			*p = NULL, **np;
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 at;
	struct stat			 st;
	sigset_t			 none, all;
	int				 in[2] = { -1, -1 }, out[2] = { -1, -1 };
	int				 logfd = -1, rc, fa_ok = 0, at_ok = 0;
	char				 cmd[512], peer[48];

	het_proc_cmdline(set, cmd, sizeof cmd);
	if (set->n == set->cap) {
		np = realloc(set->procs, (set->cap ? set->cap * 2 : 8) *
		    sizeof *np);
		if (np == NULL)
			goto nomem;
		set->procs = np;
		set->cap = set->cap ? set->cap * 2 : 8;
	}
	if ((p = calloc(1, sizeof *p)) == NULL)
		goto nomem;
	p->set = set;
	p->id = id;
	p->in_fd = p->out_fd = -1;
	snprintf(peer, sizeof peer, "its output");
	if ((p->rd = het_wire_reader_alloc(set->o.max_line, peer, err)) ==
	    NULL)
		goto fail;
	if (set->o.log_dir != NULL) {
		if (asprintf(&p->log_path, "%s/worker-%d.log", set->o.log_dir,
		    id) < 0) {
			p->log_path = NULL;
			goto nomem;
		}
		logfd = open(p->log_path, O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC, 0644);
		if (logfd != -1 && fstat(logfd, &st) == 0)
			p->log_start = st.st_size;	/* earlier runs' */
	} else
		logfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (logfd == -1) {
		het_error_sys(err, errno, "cannot open the log of worker %d "
		    "('%s')", id, p->log_path != NULL ? p->log_path :
		    "/dev/null");
		goto fail;
	}
	if (pipe2(in, O_CLOEXEC) == -1 || het_proc_nonblock(in[1]) == -1 ||
	    (!set->o.out_to_log && (pipe2(out, O_CLOEXEC) == -1 ||
	    het_proc_nonblock(out[0]) == -1))) {
		het_error_sys(err, errno, "cannot create the pipes of worker "
		    "%d", id);
		goto fail;
	}
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto nomem;
	fa_ok = 1;
	if (posix_spawnattr_init(&at) != 0)
		goto nomem;
	at_ok = 1;
	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	/* The dup2 actions clear close-on-exec on 0, 1 and 2 only. */
	if (posix_spawn_file_actions_adddup2(&fa, in[0], 0) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, set->o.out_to_log ? logfd :
	    out[1], 1) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, logfd, 2) != 0 ||
#if defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 34)
	    posix_spawn_file_actions_addclosefrom_np(&fa, 3) != 0 ||
#endif
#endif
	    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) != 0 ||
	    posix_spawnattr_setpgroup(&at, 0) != 0 ||
	    posix_spawnattr_setsigmask(&at, &none) != 0 ||
	    posix_spawnattr_setsigdefault(&at, &all) != 0)
		goto nomem;
	rc = posix_spawnp(&p->pid, set->argv[0], &fa, &at, set->argv,
	    environ);
	if (rc != 0) {
		het_error_sys(err, rc, "cannot start worker %d with the "
		    "command '%s'; check the worker command setting", id, cmd);
		goto fail;
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(in[0]);
	if (out[1] != -1)
		close(out[1]);
	close(logfd);
	p->in_fd = in[1];
	p->out_fd = out[0];
	p->out_eof = set->o.out_to_log;	/* nothing to read: reaping ends it */
	set->procs[set->n++] = p;
	(void)now;
	return p;
nomem:
	het_error_set(err, HET_ENOMEM, "out of memory starting worker %d", id);
fail:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (at_ok)
		posix_spawnattr_destroy(&at);
	if (logfd != -1)
		close(logfd);
	if (in[0] != -1) {
		close(in[0]);
		close(in[1]);
	}
	if (out[0] != -1) {
		close(out[0]);
		close(out[1]);
	}
	if (p != NULL) {
		(void)het_proc_keep_log(p);	/* no empty log left */
		het_wire_reader_free(p->rd);
		free(p->log_path);
		free(p);
	}
	return NULL;
}


void
het_proc_program(char *buf, size_t len, const char *program)
{
	ssize_t n;

	if (program != NULL)
		snprintf(buf, len, "%s", program);
	else if (len > 1 && (n = readlink("/proc/self/exe", buf, len - 1)) > 0)
		buf[n] = '\0';
	else
		snprintf(buf, len, "hetui");
}

char *
het_proc_mkdtemp(const char *base, const char *name, const char *what,
    struct het_error *err)
{
	char *dir;

	if ((base == NULL || base[0] == '\0') &&
	    ((base = getenv("TMPDIR")) == NULL || base[0] == '\0'))
		base = "/tmp";
	if (asprintf(&dir, "%s/%s-XXXXXX", base, name) < 0) {
		het_error_set(err, HET_ENOMEM, "out of memory");
		return NULL;
	}
	if (mkdtemp(dir) == NULL) {
		het_error_sys(err, errno, "cannot make a temporary folder "
		    "for %s in %s", what, base);
		free(dir);
		return NULL;
	}
	return dir;
}
