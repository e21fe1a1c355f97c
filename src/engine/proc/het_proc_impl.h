/*
 * het_proc_impl.h: the worker process state shared by het_proc.c (pipes,
 * records, reaping, timeouts) and het_proc_spawn.c (starting one).  Not
 * installed; see het_proc.h for the contract.
 */
#ifndef HET_PROC_IMPL_H
#define HET_PROC_IMPL_H

#include <sys/types.h>

#include "het_proc.h"

struct het_proc {
	struct het_procset	*set;
	int			 id;
	pid_t			 pid;		/* also the process group */
	int			 in_fd;		/* -1 once closed */
	int			 out_fd;	/* -1 once closed */
	char			*log_path;
	off_t			 log_start;	/* its size at spawn (appended) */
	void			*tag;

	char			*q;		/* queued stdin bytes */
	size_t			 qlen, qoff, qcap;
	int			 closing;	/* close stdin when flushed */

	struct het_wire_reader	*rd;
	int			 out_eof, reaped, finished;
	int			 hello_seen, got_result, armed;
	int			 exited, status, signo;
	int			 failed;
	struct het_error	 fail;
	int			 truncated;	/* EOF inside a record */
	struct het_error	 trunc;

	double			 shard_deadline, hb_deadline;
	int			 kill_stage;	/* 0, 1 TERM sent, 2 KILL sent */
	double			 kill_deadline;
};

struct het_procset {
	struct het_proc_opts	  o;
	char			**argv;
	size_t			  argc;
	struct het_proc		**procs;
	size_t			  n, cap;
};

/*
 * het_proc_keep_log: whether p's stderr log is worth keeping (it wrote
 * something since it was spawned).  Thread: the coordinator's.
 */
int het_proc_keep_log(const struct het_proc *p);

#endif /* HET_PROC_IMPL_H */
