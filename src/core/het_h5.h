/*
 * het_h5.h: the HDF5 boundary of hetui.  All H5* calls of the core live in
 * src/core/het_h5*.c and het_dataset*.c; nothing else includes hdf5.h.
 */
#ifndef HET_H5_H
#define HET_H5_H

#include "het_error.h"

/*
 * het_h5_library_init: silence HDF5's automatic error printing in the
 * calling thread and register hetui's LZF filter (id 32000).  Call once
 * from main() before any thread starts; het_h5_quiet_thread() must still
 * be called by every other thread that uses HDF5.
 * Returns HET_OK or HET_EINTERNAL when the filter cannot be registered.
 */
int het_h5_library_init(struct het_error *err);

/* het_h5_quiet_thread: switch off HDF5 error printing in this thread. */
void het_h5_quiet_thread(void);

#endif /* HET_H5_H */
