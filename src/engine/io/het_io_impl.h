/*
 * het_io_impl.h: private to the I/O thread's files (het_io.c, the
 * requests and the data; het_io_model.c, the fitted model of a run
 * folder for the cuts).  Only the I/O thread calls these.
 */
#ifndef HET_IO_IMPL_H
#define HET_IO_IMPL_H

#include <stddef.h>

#include "het_io.h"
#include "het_results_run.h"

/*
 * What the I/O thread keeps of the model it overlays: the selection of
 * the run folder last asked for and the fitted matrix of one angle of
 * it, so that moving through the frames or resizing reads nothing.
 */
struct het_io_mcache {
	char		*dir;		/* the run folder, or NULL */
	int		 code;		/* HET_OK: sel is loaded */
	char		 why[HET_ERROR_MSG_MAX]; /* the load's error */
	struct het_results_run sel;	/* het_results_run_load_sel */
	long		 angle;		/* angle of m, -1: none */
	double		*m;		/* its fitted c2, sel.n_frames^2 */
};

/*
 * het_io_model_fill: the fitted c2 of file bin `bin` of the run folder
 * dir over the frames first .. last of the open file data_path (phi:
 * the bin's angle, degrees) into out ((last - first + 1)^2 values), NAN
 * where a frame lies outside the frames the fit used.  Returns
 * HET_IO_MODEL_SHOWN, or another state with a sentence in note (the
 * run cannot be read, it fitted another file or not this angle, its
 * frames miss the window).  The cache mc is filled as a side effect.
 */
enum het_io_model het_io_model_fill(struct het_io_mcache *mc,
    const char *dir, const char *data_path, size_t bin, double phi,
    long first, long last, double *out, char *note, size_t len);

/* het_io_model_clear: release the cache (a zeroed one is empty). */
void het_io_model_clear(struct het_io_mcache *mc);

#endif /* HET_IO_IMPL_H */
