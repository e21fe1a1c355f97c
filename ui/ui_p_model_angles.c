/*
 * ui_p_model_angles.c: the Model panel's per-angle start values: a asks
 * for the start contrast of every angle, A for the offset
 * (per_angle_scaling in the configuration: scaling.init_contrast and
 * init_offset), prefilled with the current list.  The answer is numbers
 * separated by blanks or commas, or nothing to clear the list; it is
 * installed like every other edit of the panel: on a copy, validated,
 * refused with the reason, undoable.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "het_util.h"
#include "ui.h"
#include "ui_p_model.h"

#define ANGLES_MAX	1024	/* values in one answer */

/* Parse text into a new list (NULL, 0 for an empty answer). */
static int
parse_list(const char *text, double **out, size_t *n, char *why,
    size_t len)
{
	char *copy, *tok, *save = NULL;
	struct het_error err;
	double *v;

	*out = NULL;
	*n = 0;
	if ((copy = ui_xstrdup(text)) == NULL)
		return -1;
	v = ui_xcalloc(ANGLES_MAX, sizeof *v);
	for (tok = strtok_r(copy, " ,\t", &save); tok != NULL;
	    tok = strtok_r(NULL, " ,\t", &save)) {
		if (*n == ANGLES_MAX || het_parse_double(tok, "value",
		    &v[*n], &err) != HET_OK) {
			snprintf(why, len, "'%s' is not a number (give at most "
			    "%d numbers separated by blanks or commas)",
			    tok, ANGLES_MAX);
			free(copy);
			free(v);
			return -1;
		}
		(*n)++;
	}
	free(copy);
	if (*n == 0)
		free(v);
	else
		*out = v;
	return 0;
}

static void
angles_done(struct ui *ui, const char *text)
{
	struct model_state *s = mp_state(ui);
	struct het_config *c;
	double **list, *v;
	size_t *nlist, n, sel;
	char why[256], what[96];

	if (s == NULL)
		return;
	if (parse_list(text, &v, &n, why, sizeof why) != 0) {
		ui_msg(ui, UI_LOG_ERROR, "refused: %s", why);
		return;
	}
	sel = ui->ses.meta != NULL ? ui_model_ring_selected(ui,
	    ui->ses.sel.ring) : 0;
	if (n > 1 && sel > 0 && n != sel) {	/* as het_problem checks */
		free(v);
		ui_msg(ui, UI_LOG_ERROR, "refused: %zu values but %zu angles "
		    "are selected; give one value or one per angle", n, sel);
		return;
	}
	c = mp_copy(ui);
	list = s->angles_offset ? &c->scaling.init_offset :
	    &c->scaling.init_contrast;
	nlist = s->angles_offset ? &c->scaling.ninit_offset :
	    &c->scaling.ninit_contrast;
	free(*list);
	*list = v;
	*nlist = n;
	snprintf(what, sizeof what, "start %s per angle: %zu value%s",
	    s->angles_offset ? "offset" : "contrast", n, n == 1 ? "" : "s");
	if (mp_commit(ui, s, c, mp_nrows(ui->ses.cfg), what) == 0)
		ui_msg(ui, UI_LOG_INFO, "%s", what);
}

void
mp_angles_ask(struct ui *ui, int offset)
{
	const struct het_config_scaling *sc = &ui->ses.cfg->scaling;
	const double *v = offset ? sc->init_offset : sc->init_contrast;
	size_t n = offset ? sc->ninit_offset : sc->ninit_contrast, i;
	struct model_state *s = mp_state(ui);
	char init[4096], num[32], label[64];

	if (s == NULL)
		return;
	init[0] = '\0';
	for (i = 0; i < n; i++) {
		snprintf(num, sizeof num, "%s%.10g", i ? " " : "", v[i]);
		if (strlen(init) + strlen(num) + 1 >= sizeof init)
			break;
		strcat(init, num);
	}
	s->angles_offset = offset;
	snprintf(label, sizeof label, "Start %s per angle:", offset ?
	    "offset" : "contrast");
	ui_prompt_open_sel(ui, label, init, angles_done);
}
