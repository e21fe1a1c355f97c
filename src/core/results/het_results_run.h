/*
 * het_results_run.h: a finished run folder read back whole for its
 * figures (hetui report): the data selection, the parameter table of
 * every fit, and, for a sampling run, the consensus draws and the
 * per-shard convergence diagnostics.  The fitted and residual matrices
 * are read one at a time with het_results_load_matrix (het_results.h),
 * since a report draws one angle at a time.
 *
 * Thread: any (HDF5 calls are serialised by libhdf5).
 */
#ifndef HET_RESULTS_RUN_H
#define HET_RESULTS_RUN_H

#include <stddef.h>

#include "het_error.h"

/* The parameter table of one fit (/fit/parameters, one row each). */
struct het_results_table {
	char		 group[32];	/* "fit" or "fit_angle_NNN" */
	size_t		 angle;		/* first angle of the fit (0 joint) */
	size_t		 n;		/* rows */
	char		**name, **unit;	/* n (owned) */
	double		*value, *unc, *lo, *hi;	/* n; unc NaN: none */
	double		*vary, *degen;	/* n; 1 or 0 */
	double		 chi2_red;	/* NaN when absent */
	int		 converged;	/* 1, 0, -1 unknown */
};

/* One shard of a sampling run (/cmc/shards and /cmc/shard_NNNN). */
struct het_results_run_shard {
	long		 id;
	char		 state[16];	/* "done", "failed", ... */
	double		*rhat, *ess_bulk;	/* p each, NULL unless done */
	size_t		 nchain, ndraw;	/* 0 unless done */
	double		*draws;		/* nchain * p * ndraw, as
					   het_shard_result.draws */
};

struct het_results_run {
	char		*file;		/* dir/hetui_results.h5 (owned) */
	char		 status[32];	/* the root attribute status */
	char		 mode[32];	/* /config analysis_mode */
	int		 per_angle;
	double		 dt, q;		/* s, 1/A */
	long		 first_frame;	/* 1-based */
	size_t		 n_frames;
	size_t		 nangles;
	double		*phi;		/* nangles degrees (owned) */
	char		*data_file;	/* the file fitted (/data file), or
					   NULL when the file does not say */
	size_t		*bins;		/* nangles bin indices of that file
					   (/data/bin_index), or NULL */
	struct het_results_table *tab;	/* ntab: 1 joint, else nangles */
	size_t		 ntab;
	/* A sampling run (has_cmc): */
	int		 has_cmc;
	char		 cmc_status[32];
	size_t		 p;
	char		**cmc_names;	/* p (owned) */
	double		*nlsq;		/* p NLSQ values (NaN unknown) */
	double		*draws;		/* ndraw x p consensus draws, NULL
					   when nothing was combined */
	size_t		 ndraw;
	struct het_results_run_shard *shard;
	size_t		 nshard;
};

/*
 * het_results_run_load: read dir/hetui_results.h5 as hetui fit and
 * hetui sample write it (man hetui, OUTPUT FILES).
 *   out  zeroed on entry; filled on HET_OK (release with
 *        het_results_run_clear, also after an error).
 * Returns HET_OK; HET_ENOTFOUND (no hetui_results.h5 in dir: the message
 * says what a run folder holds); HET_EFORMAT (not HDF5, not a hetui
 * results file, a missing or mis-shaped dataset or attribute; the
 * message names the file and the path); HET_ENOMEM.
 */
int het_results_run_load(const char *dir, struct het_results_run *out,
    struct het_error *err);

/*
 * het_results_run_load_sel: only what the run was fitted on: status,
 * mode, per_angle, dt, q, the frames, phi, data_file and bins (tab and
 * the sampling fields stay empty), for a caller that wants one of its
 * fitted matrices (het_results_load_matrix) and not its figures.  Same
 * contract and errors as het_results_run_load.
 */
int het_results_run_load_sel(const char *dir, struct het_results_run *out,
    struct het_error *err);
void het_results_run_clear(struct het_results_run *r);

#endif /* HET_RESULTS_RUN_H */
