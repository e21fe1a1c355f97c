/*
 * het_rundir.h: the folder of each fit or sampling run, so that no run
 * replaces another's results.
 *
 * Default (output.create_subdirs and output.timestamp_dirs both true):
 *     OUTPUT_DIR/<data file stem>/<analysis>-<YYYYmmdd-HHMMSS>
 * with the time in UTC, and -2, -3 ... appended when that folder exists.
 * The last component is created with mkdir(2), which fails with EEXIST
 * when another run made it first, so two runs started in the same second
 * (in one process or in two) never share a folder.  The other settings:
 *     create_subdirs only     OUTPUT_DIR/<stem>/<analysis>   (reused)
 *     timestamp_dirs only     OUTPUT_DIR/<analysis>-<time>   (new)
 *     neither                 OUTPUT_DIR                     (reused)
 * A folder the user names (-o DIR) is taken as it is, after
 * het_rundir_check has made sure it holds no other run's results.
 */
#ifndef HET_RUNDIR_H
#define HET_RUNDIR_H

#include <stddef.h>
#include <time.h>

#include "het_config.h"
#include "het_error.h"

/* Largest -N suffix tried before giving up (HET_EIO). */
#define HET_RUNDIR_MAX_TRIES	10000

/*
 * het_rundir_stem: the stem of a data file's name (the last path
 * component without its last extension: "a/b/run_07.hdf" -> "run_07")
 * into buf (len > 0), cut to len - 1 bytes.  data_path NULL or empty
 * gives "data".  Any thread.
 */
void het_rundir_stem(const char *data_path, char *buf, size_t len);

/*
 * het_rundir_make: make the folder of a new run.
 *   cfg       output_dir (NULL or empty: "output"), create_subdirs and
 *             timestamp_dirs; borrowed.
 *   data_path the data file (for the stem); NULL: "data".
 *   analysis  "fit" or "sample" (any short word without '/').
 *   now       the run's start time (time(NULL)); formatted in UTC.
 *   made      out, may be NULL: 1 when this call created the folder
 *             itself (a caller that wrote nothing may rmdir it), else 0.
 * Returns the folder's path (malloc'd, the caller frees it; no trailing
 * '/'), or NULL with err set: HET_EINVAL (bad analysis), HET_ENOMEM,
 * HET_EIO (a parent cannot be created, or HET_RUNDIR_MAX_TRIES folders
 * of that second already exist).  Any thread; blocks on mkdir.
 */
char *het_rundir_make(const struct het_config *cfg, const char *data_path,
    const char *analysis, time_t now, int *made, struct het_error *err);

/*
 * het_rundir_check: may a run write its results into dir, a folder the
 * user named?  Yes when dir does not exist, holds none of hetui's result
 * files (hetui_results.h5, nlsq_*.json, cmc_summary.json,
 * cmc_diagnostics.json, and a batch's rings.csv, rings.h5, series.csv
 * and series.h5), or force
 * is set.  Returns HET_OK, HET_EINVAL
 * with err naming dir and the first few result files found (the caller
 * adds how to override), or HET_EIO when dir exists but cannot be
 * listed.  Any thread.
 */
int het_rundir_check(const char *dir, int force, struct het_error *err);

/*
 * het_rundir_is_result: 1 when name (a file name, no folder) is one of
 * the result files het_rundir_check looks for, else 0.  Any thread.
 */
int het_rundir_is_result(const char *name);

#endif
