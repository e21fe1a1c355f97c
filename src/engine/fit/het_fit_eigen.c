/*
 * het_fit_eigen.c: the eigen-analysis of a large fit's report in a child
 * process, so that a cancel ends it at once.
 *
 * Design.  The report of a converged fit decomposes the p x p normal
 * matrix (LAPACK dsyevr: about 17 s of one core at p = 4003), unless
 * the report by blocks can stand in for it (het_nlsq_quality_blocks).
 * LAPACK has no cancellation point, and a thread cannot be stopped
 * safely, so a fit with a cancel flag and at least eigen_fork_min
 * parameters forks: the child runs het_nlsq_eigen into a shared
 * anonymous mapping and _exits; the fit's thread polls the child and
 * the cancel flag every HET_FIT_EIGEN_POLL seconds and, on a cancel,
 * kills the child (SIGKILL) and reaps it, so nothing is left running.
 * The child dies with its parent (PR_SET_PDEATHSIG).  Only the fit's
 * thread exists in the child; it calls LAPACK and malloc (both safe
 * after fork in glibc and OpenBLAS, whose atfork handlers reset their
 * locks and thread server) and never returns into the engine.  When the
 * fork or the mapping fails, or the child ends abnormally (e.g. killed
 * for memory), the decomposition runs in this thread as before.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "het_fit_impl.h"

#define HET_FIT_EIGEN_POLL	0.01	/* s between polls */

/* The shared mapping: status, then lam (p), then Z (p x p). */
struct eig_shared {
	int	status;		/* HET_OK when the child finished */
	double	data[];
};

static void
eig_child(struct eig_shared *sh, size_t p, double *M)
{
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	sh->status = het_nlsq_eigen(NULL, p, M, sh->data, sh->data + p, NULL);
	_exit(sh->status == HET_OK ? 0 : 1);
}

/* Wait for the child; HET_OK (it finished), HET_ECANCEL (killed on a
   cancel) or HET_EINTERNAL (it ended abnormally). */
static int
eig_wait(pid_t pid, const atomic_int *cancel)
{
	struct timespec ts = { 0, (long)(HET_FIT_EIGEN_POLL * 1e9) };
	int st = 0;
	pid_t r;

	for (;;) {
		/* The cancel first: a cancel is honoured even when the
		   child has just finished. */
		if (atomic_load(cancel)) {
			(void)kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
				;
			return HET_ECANCEL;
		}
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? HET_OK :
			    HET_EINTERNAL;
		if (r == -1 && errno != EINTR)
			return HET_EINTERNAL;
		nanosleep(&ts, NULL);
	}
}

int
het_fit_eigen(void *ctx, size_t p, double *M, double *lam, double *Z,
    struct het_error *err)
{
	const struct het_fit_eigen_ctx *ec = ctx;
	struct eig_shared *sh;
	size_t len;
	pid_t pid;
	int rc;

	if (ec == NULL || ec->cancel == NULL || p < ec->min_p)
		return het_nlsq_eigen(NULL, p, M, lam, Z, err);
	if (atomic_load(ec->cancel))
		return het_error_set(err, HET_ECANCEL, "fit report: cancelled");
	len = sizeof(*sh) + (p + p * p) * sizeof(double);
	sh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return het_nlsq_eigen(NULL, p, M, lam, Z, err);
	sh->status = HET_EINTERNAL;
	if ((pid = fork()) == -1) {
		munmap(sh, len);
		return het_nlsq_eigen(NULL, p, M, lam, Z, err);
	}
	if (pid == 0)
		eig_child(sh, p, M);	/* does not return */
	if (ec->started != NULL)
		ec->started(ec->started_ctx);
	rc = eig_wait(pid, ec->cancel);
	if (rc == HET_OK && sh->status == HET_OK) {
		memcpy(lam, sh->data, p * sizeof(double));
		memcpy(Z, sh->data + p, p * p * sizeof(double));
	}
	munmap(sh, len);
	if (rc == HET_ECANCEL)
		return het_error_set(err, HET_ECANCEL, "fit report: cancelled "
		    "during the eigen-analysis");
	if (rc != HET_OK)	/* the child failed: here, as before */
		return het_nlsq_eigen(NULL, p, M, lam, Z, err);
	return HET_OK;
}
