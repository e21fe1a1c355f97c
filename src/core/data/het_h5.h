/*
 * het_h5.h: the HDF5 boundary of hetui.  All H5* calls of the core live in
 * src/core/data/het_h5*.c, het_lzf.c, het_dataset*.c and the results writers
 * (het_results*_h5.c); nothing outside the core includes hdf5.h.  The
 * core-internal helpers that take hid_t handles are declared in
 * het_h5_impl.h.
 */
#ifndef HET_H5_H
#define HET_H5_H

#include "het_error.h"

/*
 * het_h5_library_init: initialise libhdf5, silence its automatic error
 * printing in the calling thread and register hetui's LZF filter (id
 * 32000).  Call once from main() before any thread starts; calling it
 * again is harmless.  het_h5_quiet_thread() must still be called by every
 * other thread that uses HDF5 (the dataset and writer entry points of the
 * core do it themselves).  It also turns off libhdf5's clean-up at exit
 * (H5dont_atexit): after a write that failed on a full disk that
 * clean-up crashes (HDF5 1.10), and every file hetui writes is closed
 * explicitly anyway, so call it before any other HDF5 function.
 * Returns HET_OK, or HET_EINTERNAL when libhdf5 cannot start or refuses
 * the filter.
 */
int het_h5_library_init(struct het_error *err);

/*
 * het_h5_quiet_thread: switch off HDF5 error printing in this thread (the
 * setting is per thread in the thread-safe libhdf5).  Errors still reach
 * the caller as struct het_error text.  Thread: the calling thread.
 */
void het_h5_quiet_thread(void);

#endif /* HET_H5_H */
