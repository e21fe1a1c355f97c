/*
 * ui_main.h: entry point of the terminal workstation (ncurses).
 * ui/ is the only part of hetui that links ncurses.
 */
#ifndef HET_UI_MAIN_H
#define HET_UI_MAIN_H

struct ui_options {
	const char	*data_path;	/* FILE to open, or NULL */
	const char	*config_path;	/* -c CONFIG, or NULL */
	int		 ascii;		/* --ascii: no Unicode drawing */
	int		 no_color;	/* --no-color (NO_COLOR is read too) */
};

/*
 * ui_main: run the workstation until the user quits.  Owns the terminal
 * for its whole duration and restores it on every exit path.
 * Returns a process exit status.  Thread: the main thread only.
 */
int ui_main(const struct ui_options *opts);

#endif /* HET_UI_MAIN_H */
