/*
 * het_report.h: the figures of a run folder or of a batch folder (hetui
 * report): PNG files, one per figure, or one multi-page PDF, drawn with
 * cairo.
 *
 * Module report (src/report, libhetreport.a, linked by the hetui binary
 * only: neither the core nor hetui-worker links cairo): reads a run
 * folder with the core's loaders (het_results_run_load,
 * het_results_load_matrix) and draws, in this order,
 *   heat_NNN   per fitted angle NNN: data | model | residual heatmaps,
 *              t1 and t2 in seconds, a colour bar each;
 *   g2_NNN     per angle: g2 against lag at four ages, data points and
 *              the model's curve;
 *   params     the parameter table (params_NNN per angle of a
 *              per-angle fit): value, uncertainty, bounds, flags;
 *   posterior  (a sampling run) the histogram of every physics
 *              parameter's consensus draws with the NLSQ value marked;
 *   corner     (a sampling run of two or more physics parameters) the
 *              strongly correlated pairs: 2-D histograms, marginals,
 *              the NLSQ value, r (het_report_corner.c says how the
 *              parameters are chosen);
 *   shards     (a sampling run) per-shard R-hat and bulk ESS table;
 *   traces     (a sampling run) the draws of every physics parameter,
 *              chain by chain, shard by shard;
 * or a batch folder (hetui fit --all-rings, --series) with the core's
 * het_rings_load and draws
 *   rings_NAME  per free physics parameter NAME: its values against q
 *               with error bars, log-log, the power-law slope (and for
 *               D0 that of the rate D0 q^2);
 *   series_NAME per free physics parameter NAME: its values against
 *               the file index (the seconds since the first file on top)
 *               with error bars and the drift per file.
 * Every size is fixed, the font is the toy API's "DejaVu Sans" with
 * hinting off, and cairo's PNG writer adds no time chunk, so the same
 * run (or batch) folder gives byte-identical PNGs.  Every file is written to a
 * temporary name and renamed (het_tmp_path, het_commit_tmp).
 *
 * Thread: any one thread at a time (cairo's toy font cache is shared).
 */
#ifndef HET_REPORT_H
#define HET_REPORT_H

#include <stddef.h>

#include "het_error.h"

/* Geometry of heat_NNN (tests/t_report.sh probes it). */
#define HET_REPORT_HEAT_W	1660
#define HET_REPORT_HEAT_H	560
/* Geometry of a batch folder's figures rings_NAME and series_NAME. */
#define HET_REPORT_BATCH_W	1000
#define HET_REPORT_BATCH_H	640
#define HET_REPORT_MARKER	".hetui-report"

#define HET_REPORT_MAX_FILES	4096

struct het_report_out {
	int		 pdf;		/* 1: one PDF was written */
	char		*path;		/* the PDF, or the folder (owned) */
	size_t		 nfig;		/* figures (PNG files, PDF pages) */
	double		 seconds;	/* wall time of the drawing */
};

/*
 * het_report_write: draw the figures of the run folder rundir.
 *   out    NULL: PNG files into rundir/report/; a name ending in .pdf
 *          (any case): one PDF; else a folder for the PNG files.
 *   force  1: replace an existing PDF, or write into a folder that
 *          holds files hetui report did not write.
 *   res    filled on HET_OK (het_report_out_fini releases it).
 * A folder is created when missing; an existing one must be empty or
 * hold the marker file HET_REPORT_MARKER of an earlier report (its
 * figures are replaced), else it is refused (HET_EINVAL) unless force.
 * rundir is a run folder (hetui_results.h5) or, when it has none, a
 * batch folder (rings.csv or series.csv).
 * Returns HET_OK; HET_ENOTFOUND (neither a run nor a batch folder, or a
 * batch folder's .h5 without its .csv); HET_EFORMAT (a damaged or
 * foreign result file or table); HET_EDATA (a table without a converged
 * value to draw); HET_EINVAL (an output that would overwrite what the
 * user made, a folder with the tables of two batches); HET_EIO (the
 * output cannot be written: nothing is left behind but the figures
 * already renamed into place); HET_ENOMEM.  Every message names the
 * file.
 */
int het_report_write(const char *rundir, const char *out, int force,
    struct het_report_out *res, struct het_error *err);
void het_report_out_fini(struct het_report_out *res);

/*
 * het_report_mode: the analysis mode of the run in rundir into buf (""
 * when unknown), for hetui report -c; *batch is set to 1 when rundir is
 * a batch folder (rings.csv or series.csv): the mode is then that of
 * the first of its fits' run folders found in it.  Returns HET_OK or
 * the loaders' error; HET_ENOTFOUND for a batch folder that holds none
 * of its fits' run folders.
 */
int het_report_mode(const char *rundir, char *buf, size_t len, int *batch,
    struct het_error *err);

#endif /* HET_REPORT_H */
