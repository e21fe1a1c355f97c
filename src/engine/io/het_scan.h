/*
 * het_scan.h: folders of result files for the workstation's file browser
 * and its follow mode.
 *
 * Two layers.  The synchronous functions (het_scan_dir, het_follow_*) do
 * the directory work in the calling thread and are what the tests drive.
 * The scan server (het_scan_alloc ...) runs them on its own thread, so the
 * loop thread never waits for a slow or remote file system, and posts the
 * results to a het_evq, like het_io:
 *
 *   - "list a folder" is a single-entry slot (the latest request wins; a
 *     listing in progress gives up between files when it is superseded).
 *     A listing is posted first with names, times and sizes only, then
 *     again (at most four times a second) as each file's metadata is read
 *     through het_dataset_open, newest file first; metadata of files
 *     unchanged since the previous listing of the same folder is reused.
 *   - "follow a folder" polls the folder every interval seconds with
 *     het_follow_check and posts each announced file.  Polling, not
 *     inotify, because beamline data folders are often NFS or GPFS
 *     mounts, where inotify sees nothing written by other hosts.
 *
 * Candidates: regular files whose names do not start with '.' (atomic
 * writers, hetui's own included, write ".NAME.tmp.PID" and rename) and
 * that end in .hdf, .h5 or .hdf5 (any case) or carry the HDF5 signature
 * at offset 0, 512, 1024, 2048, ... (where HDF5 looks for it after a user
 * block).  Sub-folders are listed by name, hidden ones excepted.
 */
#ifndef HET_SCAN_H
#define HET_SCAN_H

#include <stddef.h>
#include <time.h>

#include "het_dataset.h"
#include "het_error.h"
#include "het_evq.h"

/* Poll interval and stability count of follow mode, unless told. */
#define HET_FOLLOW_INTERVAL	2.0	/* seconds */
#define HET_FOLLOW_STABLE	2	/* checks with an unchanged file */

/* het_event.type values posted by the scan server (job = 0). */
enum het_scan_event {
	HET_SCAN_EV_LIST = 0x600,	/* data: struct het_scan_list */
	HET_SCAN_EV_FOLLOWING,		/* data: struct het_scan_found */
	HET_SCAN_EV_FOUND,		/* data: struct het_scan_found */
	HET_SCAN_EV_ERROR		/* data: struct het_scan_failure */
};

/*
 * One file or sub-folder of a listing.
 *   name      its name inside the folder (no '/').
 *   mtime, mtime_ns  modification time (seconds, nanoseconds).
 *   size      bytes.
 *   probed    the metadata was read, or reading it failed.
 *   ok        probed and readable: layout, nbins, n_q, n_phi and frames
 *             are set.
 *   multitau  ok, and the file holds multitau g2 only (het_multitau.h):
 *             nbins are the g2's bins and frames 0.
 *   error     probed and not ok: the reason, one line, without the file
 *             name in front.
 */
struct het_scan_entry {
	char		*name;
	time_t		 mtime;
	long		 mtime_ns;
	long long	 size;
	int		 probed;
	int		 ok;
	int		 multitau;
	enum het_layout	 layout;
	size_t		 nbins, n_q, n_phi, frames;
	char		*error;
};

/*
 * A listing.  Immutable once posted; every pointer is owned by the
 * listing (free with het_scan_list_free).
 *   gen       the request's generation.
 *   dir       the folder, absolute, symbolic links resolved.
 *   focus     the file named by the request (it was a file path), or NULL.
 *   complete  every file has been probed.
 *   files     the result files, newest first (mtime, then name).
 *   dirs      the sub-folders by name (only name and mtime are set).
 *   nother    other regular files (not listed).
 *   note      nfiles == 0: why the listing is empty (one sentence);
 *             otherwise NULL.
 */
struct het_scan_list {
	unsigned long	 gen;
	char		*dir;
	char		*focus;
	int		 complete;
	struct het_scan_entry *files;
	size_t		 nfiles;
	struct het_scan_entry *dirs;
	size_t		 ndirs;
	size_t		 nother;
	char		*note;
};

/*
 * HET_SCAN_EV_FOLLOWING and HET_SCAN_EV_FOUND (free with
 * het_scan_found_free).
 *   gen   the follow request's generation.
 *   dir   the folder followed, absolute.
 *   path  FOUND: the new file, absolute; FOLLOWING: the newest file when
 *         following started, or NULL.
 *   size  FOUND: the new file's size in bytes.
 */
struct het_scan_found {
	unsigned long	 gen;
	char		*dir;
	char		*path;
	long long	 size;
};

enum het_scan_req_kind {
	HET_SCAN_REQ_LIST = 1,
	HET_SCAN_REQ_FOLLOW
};

/* HET_SCAN_EV_ERROR: a failed listing or follow check.  Free with free(). */
struct het_scan_failure {
	unsigned long	 gen;
	enum het_scan_req_kind kind;
	char		 dir[1024];	/* the folder as requested */
	struct het_error err;
};

/*
 * het_scan_dir: list a folder and read the metadata of every candidate.
 *   path  a folder; or a regular file, whose folder is listed with focus
 *         set to the file's name.  "" means ".".
 *   out   on success, a new listing (caller frees with het_scan_list_free;
 *         gen is 0); untouched on failure.
 * Files whose metadata cannot be read are listed with ok = 0 and the
 * data layer's reason in error.  An empty listing is a success, with a
 * note saying what was looked for and what else the folder holds.
 * Returns HET_OK; HET_ENOTFOUND when path does not exist (the message
 * names the nearest existing parent folder); HET_EIO when it cannot be
 * read (permissions; errno in err->sys_errno); HET_EINVAL when it is
 * neither a folder nor a regular file; HET_ENOMEM.
 * Thread: any.
 */
int het_scan_dir(const char *path, struct het_scan_list **out,
    struct het_error *err);

/* het_scan_list_free: free a listing (NULL is a no-op; usable as a
 * het_event free_cb).  Thread: the owner of the listing. */
void het_scan_list_free(void *list);

/* het_scan_found_free: free a found record (NULL is a no-op).  Thread:
 * its owner. */
void het_scan_found_free(void *found);

/*
 * het_scan_is_candidate: is the regular file path a result-file
 * candidate by name (.hdf, .h5, .hdf5) or by HDF5 signature?  Returns 1
 * or 0 (also when it cannot be read).  Thread: any.
 */
int het_scan_is_candidate(const char *path);

/*
 * Follow mode, synchronously.  A follower remembers every candidate of
 * its folder (name, modification time, size); those present when it is
 * made are already "seen".  Each check lists the folder again; the files
 * not yet seen, or changed since, are new, and the newest of them (by
 * modification time, then name) becomes the pending file.  The pending
 * file is announced at the check where it has shown the same size and
 * modification time for `stable` consecutive checks (the first sighting
 * counts as one), so a file that a beamline writer is still writing is
 * not announced until it stops growing.  When a file is announced, every
 * candidate present at that check becomes seen, so older files that
 * appeared at the same time are not announced after it.
 */
struct het_follow;

/*
 * het_follow_alloc: a follower of folder dir, with its first listing.
 *   stable  checks a file must stay unchanged, >= 1 (HET_FOLLOW_STABLE).
 * Returns the follower (free with het_follow_free) or NULL: HET_ENOTFOUND
 * (no such folder, as het_scan_dir), HET_EIO, HET_EINVAL (not a folder,
 * or stable == 0), HET_ENOMEM.  Thread: any; one thread at a time.
 */
struct het_follow *het_follow_alloc(const char *dir, unsigned stable,
    struct het_error *err);

/*
 * het_follow_check: list the folder once and apply the rule above.
 *   found  on HET_OK, a new malloc'd absolute path (caller frees) when a
 *          file is announced at this check, else NULL.
 *   size   may be NULL; the announced file's size.
 * Returns HET_OK, or the errors of het_follow_alloc when the folder can
 * no longer be read (the follower's state is kept, so checking again
 * after the folder is back continues where it was).
 */
int het_follow_check(struct het_follow *f, char **found, long long *size,
    struct het_error *err);

/* het_follow_dir: the folder, absolute (borrowed; valid until
 * het_follow_free).  Thread: the follower's. */
const char *het_follow_dir(const struct het_follow *f);

/* het_follow_newest: the newest candidate when the follower was made
 * (borrowed absolute path, valid until het_follow_free), or NULL if the
 * folder had none.  Thread: the follower's. */
const char *het_follow_newest(const struct het_follow *f);

/* het_follow_free: NULL is a no-op.  Thread: the follower's. */
void het_follow_free(struct het_follow *f);

/*
 * The scan server.  het_scan_alloc makes it (thread not started, so tests
 * can queue first), het_scan_start starts the thread with every signal
 * blocked.  Requests return a generation (one increasing counter per
 * server) that the posted payloads carry; a consumer drops payloads whose
 * generation is not the one it waits for.
 * het_scan_alloc returns NULL with HET_ENOMEM or HET_EINTERNAL;
 * het_scan_start returns HET_OK or HET_EINTERNAL.  Thread: the owner.
 */
struct het_scan;
struct het_scan *het_scan_alloc(struct het_evq *q, struct het_error *err);
int het_scan_start(struct het_scan *s, struct het_error *err);

/*
 * het_scan_list: queue "list path" (copied), replacing a queued listing.
 * Posts HET_SCAN_EV_LIST one or more times (the last one complete), or
 * one HET_SCAN_EV_ERROR.  Returns HET_OK or HET_ENOMEM.  Thread: owner.
 */
int het_scan_list(struct het_scan *s, const char *path, unsigned long *gen,
    struct het_error *err);

/*
 * het_scan_follow: start following dir (copied), replacing any follow.
 *   interval  seconds between checks, > 0 (HET_FOLLOW_INTERVAL).
 *   stable    as het_follow_alloc (HET_FOLLOW_STABLE).
 * The server posts HET_SCAN_EV_FOLLOWING once the first listing is taken
 * (or HET_SCAN_EV_ERROR, and the follow ends), then one HET_SCAN_EV_FOUND
 * per announced file.  A check that fails posts HET_SCAN_EV_ERROR only
 * when its message differs from the previous check's, and following goes
 * on.  Returns HET_OK, HET_EINVAL (interval <= 0 or not finite, stable 0)
 * or HET_ENOMEM.  Thread: owner.
 */
int het_scan_follow(struct het_scan *s, const char *dir, double interval,
    unsigned stable, unsigned long *gen, struct het_error *err);

/* het_scan_unfollow: stop following (no event).  Thread: owner. */
void het_scan_unfollow(struct het_scan *s);

/* het_scan_busy: non-zero while a listing is queued or running.  Any. */
int het_scan_busy(struct het_scan *s);

/*
 * het_scan_free: stop the thread (a listing in progress stops between
 * files; a metadata read in progress finishes first), join it and free.
 * Events already posted stay in the queue.  NULL is a no-op.  Owner.
 */
void het_scan_free(struct het_scan *s);

#endif /* HET_SCAN_H */
