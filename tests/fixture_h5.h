/*
 * fixture_h5.h: HDF5 fixture files for the data-layer tests, written with
 * the HDF5 C API: deterministic c2 matrices, legacy 8-ID-I files (the
 * core only writes APS-U), and surgery on existing files (replace one
 * element, delete or replace a dataset, truncate, corrupt a chunk) to
 * provoke every error path of the reader.
 *
 * Test code: functions return 0 on success and -1 on failure after
 * printing a TAP "# " diagnostic; callers turn that into a failed test.
 */
#ifndef HET_FIXTURE_H5_H
#define HET_FIXTURE_H5_H

#include <stddef.h>

#include "het_dataset.h"
#include "het_dataset_write.h"

/*
 * fx_matrix: a deterministic, symmetric, c2-like N x N matrix:
 * 1.0237 + 0.2913 exp(-|i-j| / (3.71 + seed)) + a small symmetric
 * pseudo-random term; different seeds give different matrices.
 */
void fx_matrix(size_t n, unsigned seed, double *out);

/*
 * fx_expect: what a reader must return for a full matrix `full` stored as
 * half (or full) storage: the window first..last (1-based) of full, with
 * the side-band diagonal correction, computed independently of the core.
 * If f32, every value is first rounded to float32.
 */
void fx_expect(const double *full, size_t n, long first, long last, int f32,
    double *out);

/* Count of entries where a and b differ (bitwise for finite values). */
size_t fx_diff(const double *a, const double *b, size_t n);

/* A temporary directory under $TMPDIR, else /tmp (caller frees), and
 * its removal. */
char *fx_tmpdir(void);
void fx_rmtree(const char *dir);

/* dir + "/" + name in a malloc'd string. */
char *fx_path(const char *dir, const char *name);

/* A legacy APS 8-ID-I file. */
struct fx_legacy {
	size_t		 nlist;		/* entries of dqlist and dphilist */
	const double	*dq, *dphi;	/* nlist values each */
	size_t		 nphilist;	/* 0: nlist (set to provoke mismatch) */
	int		 list_2d;	/* dqlist as (1, N), as real files */
	size_t		 nmat;		/* matrices */
	const long	*labels;	/* their labels */
	const char	*prefix;	/* "g2_" (real) or "c2_" */
	size_t		 frames;
	const double *const *c2;	/* nmat full matrices */
	int		 f32;		/* store float32 (real files) */
	int		 gzip;		/* deflate level, 0: none */
	double		 exposure;	/* exposure_period, NAN: absent */
	long		 stride, avg;	/* 0: absent */
	double		 energy;	/* NAN: absent */
	double		 distance;	/* NAN: absent */
	const char	*distance_unit;	/* "units" attribute, or NULL */
};
void fx_legacy_init(struct fx_legacy *lg);
int fx_write_legacy(const char *path, const struct fx_legacy *lg);

/*
 * fx_apsu_basic: an APS-U spec with n_q rings x n_phi sectors, every
 * cell processed (labels 1..n), matrices fx_matrix(frames, 100 + k)
 * allocated into *mats (free with fx_free_mats), frame_time 1.3e-4 s,
 * stride 3, avg 2, energy 12.34 keV, distance 11.6 m.  q[k] =
 * 0.00304306 + 0.0027183 k; phi[k] = -180 + (360 / n_phi)(k + 0.5).
 * fx_apsu_free releases the q and phi lists and the n_q * n_phi matrices.
 */
void fx_apsu_basic(struct het_apsu_spec *spec, size_t n_q, size_t n_phi,
    size_t frames, double ***mats);
void fx_apsu_free(struct het_apsu_spec *spec, double **mats);
void fx_free_mats(double **mats, size_t n);

/* Surgery on an existing file. */
int fx_set_element(const char *path, const char *dset, size_t i, size_t j,
    double v);
int fx_delete(const char *path, const char *obj);
/* Replace (or create) dset with rank 0..2 doubles stored as `type`. */
int fx_put(const char *path, const char *dset, int rank,
    const unsigned long long *dims, const double *data, long long type);
/* Create an empty group or a string attribute. */
int fx_group(const char *path, const char *group);
int fx_attr_string(const char *path, const char *obj, const char *name,
    const char *value);
int fx_truncate(const char *path, long size);
int fx_write_text(const char *path, const char *text);
/* Overwrite `len` bytes of the first chunk of a chunked dataset. */
int fx_corrupt_chunk(const char *path, const char *dset, size_t offset,
    size_t len);
/*
 * Overwrite the first 8 bytes of obj's object header (found with
 * H5Oget_info): the link stays, the object can no longer be opened.
 */
int fx_corrupt_header(const char *path, const char *obj);
/* Create a soft link (target need not exist). */
int fx_soft_link(const char *path, const char *link, const char *target);
/* Create a new HDF5 file holding only the given group. */
int fx_new_file(const char *path, const char *group);

/* Type codes for fx_put (an hid_t is not visible here). */
#define FX_F64	0LL
#define FX_F32	1LL
#define FX_I32	2LL
#define FX_U16	3LL
#define FX_I64	4LL

#endif /* HET_FIXTURE_H5_H */
