/*
 * het_results_impl.h: what het_results.c (orchestration, JSON) and
 * het_results_h5.c (the HDF5 file) share.  Core-internal.
 *
 * A "view" of one fit places its free parameters back into the problem's
 * joint layout (by name), so physics and scaling values, their
 * uncertainties and the per-angle contrast and offset can be listed for
 * every fit the same way, joint or per angle.
 */
#ifndef HET_RESULTS_IMPL_H
#define HET_RESULTS_IMPL_H

#include <stddef.h>

#include "het_results.h"

/* One row of a parameter table. */
struct rs_row {
	const char	*name;
	const char	*unit;
	double		 value, start, unc, lo, hi;
	int		 vary;
};

struct rs_view {
	const struct het_results_fit *fit;
	size_t		 first_angle;	/* angles of this fit: */
	size_t		 nangles;	/* first_angle .. + nangles - 1 */
	double		*xj;		/* pb->p joint values of the fit */
	double		*contrast;	/* pb->nangles per-angle values */
	double		*offset;
	struct rs_row	*rows;		/* the parameter table */
	size_t		 nrows;
};

/*
 * rs_view_init: build the view of fit k.  Returns HET_OK, HET_EINVAL (a
 * name that is not a parameter of the problem) or HET_ENOMEM.
 */
int rs_view_init(const struct het_results *res, size_t k, struct rs_view *v,
    struct het_error *err);
void rs_view_fini(struct rs_view *v);

/*
 * rs_h5_write: write the HDF5 results file to path (a temporary name; the
 * caller renames it).  On failure the file may exist partly written; the
 * caller removes it.  Returns HET_OK, HET_EIO, HET_EINVAL or HET_ENOMEM.
 */
int rs_h5_write(const char *path, const struct het_results *res,
    const char *timestamp, struct het_error *err);

#endif /* HET_RESULTS_IMPL_H */
