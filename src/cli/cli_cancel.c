/*
 * cli_cancel.c: the signals that cancel a long subcommand (fit, sample)
 * rather than kill it, so that what it finished is still written.
 *
 * SIGINT (Ctrl-C), SIGTERM (a batch system's time limit, kill) and SIGHUP
 * (the SSH session dropped) call the subcommand's cancel function from
 * the handler.  Repeats of SIGTERM and SIGHUP only cancel again (a hang-up
 * often comes twice), and after the cancel they are ignored until the
 * process exits; a SIGINT after any of the three kills, as the user
 * who presses Ctrl-C twice means; a SIGHUP ignored on entry (nohup) stays
 * ignored.  The state is the process's own: one subcommand runs at a time.
 */
#include "config.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "cli.h"

static const int cancel_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define CANCEL_NSIGS	(sizeof(cancel_sigs) / sizeof(cancel_sigs[0]))

static cli_cancel_fn		 cancel_fn;
static void			*cancel_arg;
static volatile sig_atomic_t	 cancel_first;	/* first signal, 0 none */
static struct sigaction		 cancel_old[CANCEL_NSIGS];

static void
cancel_handler(int sig)
{
	if (sig == SIGINT && cancel_first != 0) {
		signal(SIGINT, SIG_DFL);	/* async-signal-safe */
		raise(SIGINT);
		return;
	}
	if (cancel_first == 0)
		cancel_first = sig;
	if (cancel_fn != NULL)
		cancel_fn(cancel_arg);
}

void
cli_cancel_begin(cli_cancel_fn fn, void *arg)
{
	struct sigaction sa;
	size_t k;

	cancel_fn = fn;
	cancel_arg = arg;
	cancel_first = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cancel_handler;
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < CANCEL_NSIGS; k++) {
		sigaction(cancel_sigs[k], NULL, &cancel_old[k]);
		if (cancel_sigs[k] != SIGHUP ||
		    cancel_old[k].sa_handler != SIG_IGN)
			sigaction(cancel_sigs[k], &sa, NULL);
	}
}

int
cli_cancel_end(void)
{
	struct sigaction ign;
	size_t k;

	/* After a cancel the subcommand is on its way out with 128 + the
	   signal: a repeat of SIGTERM or SIGHUP (a hang-up comes twice,
	   sometimes after the run has already finished cancelling) must not
	   kill it before it says what it wrote, so those stay ignored. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	for (k = 0; k < CANCEL_NSIGS; k++)
		sigaction(cancel_sigs[k], cancel_first != 0 &&
		    cancel_sigs[k] != SIGINT ? &ign : &cancel_old[k], NULL);
	cancel_fn = NULL;
	cancel_arg = NULL;
	return cancel_first;
}

int
cli_cancel_status(int sig, int status)
{
	return sig > 0 ? 128 + sig : status;
}
