/*
 * ui_browse.h: what the file browser's two files share (ui_browse.c:
 * state, keys, events, follow mode; ui_browse_draw.c: the overlay and the
 * status-line tag).  Not for other modules: ui.h has the public calls.
 */
#ifndef HET_UI_BROWSE_H
#define HET_UI_BROWSE_H

#include "het_scan.h"

struct ui_browse {
	struct het_scan	*scan;
	double		 interval;	/* follow checks, seconds */

	/* The overlay. */
	int		 on;
	char		*dir;		/* folder shown or asked for */
	unsigned long	 gen;		/* listing awaited or shown */
	int		 loading;
	int		 open_focus;	/* a typed file path: open it */
	struct het_scan_list *list;	/* NULL before the first answer */
	char		*error;		/* last listing failure */
	size_t		 cur, top;	/* cursor row, first row shown */
	char		*want;		/* name to put the cursor on */
	int		 rows;		/* list rows at the last draw */
	int		 nw;		/* width of the name column */
	char		*open_abs;	/* the open file, absolute (marked) */

	/* Follow mode. */
	int		 follow;
	int		 follow_ok;	/* the first listing was taken */
	char		*follow_dir;
	unsigned long	 follow_gen;
	char		**followed;	/* the files it loaded, oldest first */
	size_t		 nfollowed;
};

/* ui_browse_rows: rows of the listing: "..", the sub-folders, the files. */
size_t	ui_browse_rows(const struct ui_browse *b);

/* ui_browse_join: dir + "/" + name (caller frees). */
char	*ui_browse_join(const char *dir, const char *name);

/*
 * ui_browse_abs: an absolute spelling of path with "." and ".." folded,
 * without asking the file system (caller frees).
 */
char	*ui_browse_abs(const char *path);

#endif /* HET_UI_BROWSE_H */
