/*
 * ui_main.c: the terminal workstation.
 */
#include "config.h"

#include <stdio.h>

#include "ui_main.h"

int
ui_main(const struct ui_options *opts)
{
	(void)opts;
	fprintf(stderr, "hetui: the terminal workstation is not built yet; "
	    "use 'hetui inspect FILE'\n");
	return 1;
}
