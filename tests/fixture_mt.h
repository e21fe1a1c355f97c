/*
 * fixture_mt.h: multitau g2 files for the tests (t_core_multitau,
 * t_core_mtfit, tests/mkmultitau for the workstation's tmux tests):
 * a simulated g2(q, tau) = b + beta exp(-2 (D q^2 tau)^kappa) with
 * Gaussian noise of a known standard deviation from a seeded generator,
 * and a writer of the APS-U multitau layout in either orientation with
 * the HDF5 C API (through fixture_h5's fx_put), independent of the
 * reader under test.
 *
 * Test code: functions return 0 on success and -1 on failure after
 * printing a TAP "# " diagnostic.
 */
#ifndef HET_FIXTURE_MT_H
#define HET_FIXTURE_MT_H

#include <stddef.h>

/* What a multitau file holds (bin-major g2 and errors, as the reader
   returns them); fx_mt_init gives a tau-first, int64-delay file. */
struct fx_mt {
	size_t		 ntau;
	const double	*delay;		/* ntau values as stored */
	int		 delay_int;	/* store int64 (boost_corr), else
					   float64 */
	const char	*delay_unit;	/* unit attribute, or NULL */
	size_t		 nbins;		/* columns of g2 */
	const double	*g2, *err;	/* nbins * ntau, [b * ntau + k] */
	int		 bin_first;	/* store (nbins, ntau) */
	int		 f32;		/* store g2 and errors as float32 */
	const char	*storage_mode;	/* attribute of g2, or NULL */
	size_t		 n_q, n_phi;
	const double	*q;		/* n_q values; NULL: the file's q map
					   stays (append) */
	const double	*phi;		/* n_phi values, NULL: no dim1 */
	const long	*mapping;	/* nbins cells, or NULL */
	double		 frame_time;	/* seconds, NAN: not written */
	long		 stride, avg;	/* 0: not written */
	int		 append;	/* add to an existing file */
};

void fx_mt_init(struct fx_mt *m);
int fx_mt_write(const char *path, const struct fx_mt *m);

/*
 * fx_mt_rings: fx_mt_init, then ntau delays, one bin per q of a map
 * without sectors (n_phi 1, phi 0) and the tables (borrowed).
 */
void fx_mt_rings(struct fx_mt *m, size_t ntau, const double *delay,
    size_t nq, const double *q, const double *g2, const double *err);

/*
 * fx_mt_delays: boost_corr's multitau delays in frames (1 .. 8, then
 * four per level with a doubling step: 10, 12, 14, 16, 20, ...) up to
 * max_frames; at most cap values.  Returns the count.
 */
size_t fx_mt_delays(long max_frames, double *out, size_t cap);

/* The simulated sample and noise. */
struct fx_mt_sim {
	double		 D;		/* Angstrom^2 / s */
	double		 beta, b, kappa;
	double		 sigma;		/* base standard error of a point */
	unsigned long	 seed;
};

/*
 * fx_mt_simulate: g2 and err (nbins * ntau, bin-major) for bins at
 * q[b], with err[k] = sigma (1 + 0.35 sin(0.7 k + b)) and g2 the model
 * plus a Gaussian deviate of that standard deviation.
 */
void fx_mt_simulate(const struct fx_mt_sim *s, const double *tau,
    size_t ntau, const double *q, size_t nbins, double *g2, double *err);

#endif /* HET_FIXTURE_MT_H */
