/*
 * het_scan_impl.h: what het_scan.c shares with the scan server
 * (het_scan_srv.c).  Not for other modules.
 */
#ifndef HET_SCAN_IMPL_H
#define HET_SCAN_IMPL_H

#include "het_scan.h"

/*
 * het_scan_read: the first stage of het_scan_dir: resolve path, list the
 * folder and stat every entry (names, times, sizes; nothing probed, note
 * not set).  Same returns as het_scan_dir.
 */
int het_scan_read(const char *path, struct het_scan_list **out,
    struct het_error *err);

/* het_scan_probe: read the metadata of file e of folder dir (sets probed,
 * ok and the facts, or error).  Returns HET_OK or HET_ENOMEM. */
int het_scan_probe(const char *dir, struct het_scan_entry *e);

/* het_scan_set_note: the note of an empty listing (HET_ENOMEM or OK). */
int het_scan_set_note(struct het_scan_list *l);

/* het_scan_list_copy: a deep copy, or NULL when out of memory. */
struct het_scan_list *het_scan_list_copy(const struct het_scan_list *l);

/* het_scan_same: do two entries describe the same file state (name,
 * mtime, size)? */
int het_scan_same(const struct het_scan_entry *a,
    const struct het_scan_entry *b);

#endif /* HET_SCAN_IMPL_H */
