/*
 * het_h5.c: HDF5 library set-up shared by every reader and writer.
 */
#include "config.h"

#include <hdf5.h>

#include "het_h5.h"

void
het_h5_quiet_thread(void)
{
	/* Error stacks are per thread in the thread-safe build (§6.4). */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int
het_h5_library_init(struct het_error *err)
{
	if (H5open() < 0)
		return het_error_set(err, HET_EINTERNAL,
		    "cannot initialise the HDF5 library");
	het_h5_quiet_thread();
	return HET_OK;
}
