/*
 * sample_drive.h: helpers of the tests that drive a sampling pipeline
 * (het_sample.h) the way the workstation does.
 */
#ifndef SAMPLE_DRIVE_H
#define SAMPLE_DRIVE_H

#include "het_sample.h"

/*
 * sample_drive: poll, handle and repeat until s has finished, calling
 * hook(s, arg) (may be NULL) after every het_sample_handle.  Returns the
 * longest het_sample_handle call in seconds.
 */
double sample_drive(struct het_sample *s,
    void (*hook)(struct het_sample *, void *), void *arg);

/* sample_live_children: processes whose parent is this process. */
int sample_live_children(void);

#endif /* SAMPLE_DRIVE_H */
