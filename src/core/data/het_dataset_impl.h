/*
 * het_dataset_impl.h: the inside of struct het_dataset, shared by the
 * files that implement het_dataset.h (het_dataset.c: open and checks,
 * het_dataset_apsu.c and het_dataset_legacy.c: the two layouts,
 * het_dataset_select.c: selection and dt, het_dataset_read.c: matrices).
 * Core-internal; includes hdf5.h.
 */
#ifndef HET_DATASET_IMPL_H
#define HET_DATASET_IMPL_H

#include <stddef.h>

#include <hdf5.h>

#include "het_dataset.h"
#include "het_error.h"

/* Upper bounds that keep a hostile file from asking for absurd memory. */
#define HET_DS_MAX_BINS		1000000	/* matrices in one file */
#define HET_DS_MAX_LIST		10000000 /* entries of a q, phi or label list */

/* The dataset paths of the two layouts. */
#define HET_APSU_QLIST		"/xpcs/qmap/dynamic_v_list_dim0"
#define HET_APSU_PHILIST	"/xpcs/qmap/dynamic_v_list_dim1"
#define HET_APSU_NUMPTS		"/xpcs/qmap/dynamic_num_pts"
#define HET_APSU_MAPPING	"/xpcs/qmap/dynamic_index_mapping"
#define HET_APSU_BINS		"/xpcs/twotime/processed_bins"
#define HET_APSU_C2		"/xpcs/twotime/correlation_map"
#define HET_APSU_FRAME_TIME	"/entry/instrument/detector_1/frame_time"
#define HET_APSU_STRIDE		"/xpcs/twotime/config/stride_frame"
#define HET_APSU_AVG		"/xpcs/twotime/config/avg_frame"
#define HET_APSU_ENERGY		"/xpcs/qmap/energy"
#define HET_APSU_ENERGY2 \
	"/entry/instrument/incident_beam/incident_energy"
#define HET_APSU_DISTANCE	"/xpcs/qmap/detector_distance"
#define HET_APSU_DISTANCE2	"/entry/instrument/detector_1/distance"
#define HET_LEG_QLIST		"/xpcs/dqlist"
#define HET_LEG_PHILIST		"/xpcs/dphilist"
#define HET_LEG_C2		"/exchange/C2T_all"
#define HET_LEG_EXPOSURE \
	"/measurement/instrument/detector/exposure_period"
#define HET_LEG_STRIDE		"/xpcs/stride_frames"
#define HET_LEG_AVG		"/xpcs/avg_frames"
#define HET_LEG_ENERGY		"/measurement/instrument/source_begin/energy"
#define HET_LEG_DISTANCE	"/measurement/instrument/detector/distance"

struct het_npy;

struct het_dataset {
	hid_t			 fid;		/* HDF5 layouts, else -1 */
	struct het_npy		*npy;		/* the .npy layout */
	char			*sidecar;	/* .npy: the metadata file read,
						   or NULL */
	char			*path;
	struct het_dataset_info	 info;
	struct het_bin		*bins;		/* info.nbins of them */
	char			**names;	/* bins[k].dataset storage */
	double			*q_list;
	double			*phi_list;
	char			*dt_source;
};

/* A matrix key of a layout group: "c2_00012" -> number 12. */
struct het_ds_key {
	char	*name;		/* member name, malloc'd */
	long	 number;	/* the digits after the prefix */
};

/*
 * het_ds_list_keys: list the members of `group` (name order), each of
 * which must be a dataset named PREFIX_DIGITS with one of the prefixes
 * (a NULL-terminated list).  On success *keys (free with
 * het_ds_free_keys) holds *n entries.  Messages name the group and the
 * offending member.
 */
int het_ds_list_keys(hid_t fid, const char *group,
    const char *const *prefixes, struct het_ds_key **keys, size_t *n,
    struct het_error *err);
void het_ds_free_keys(struct het_ds_key *keys, size_t n);

/*
 * het_ds_alloc_bins: allocate ds->bins and ds->names for n bins.
 * het_ds_set_name: give bin k its dataset path "group/member".
 */
int het_ds_alloc_bins(struct het_dataset *ds, size_t n,
    struct het_error *err);
int het_ds_set_name(struct het_dataset *ds, size_t k, const char *group,
    const char *member, struct het_error *err);

/*
 * het_ds_read_dt: dt = frame time * stride * average from three paths
 * (names are the short labels used in dt_source).  A missing frame time
 * leaves dt unknown; a missing stride or average counts as 1 and is said
 * in dt_source; a present but unusable value leaves dt unknown and
 * dt_source says why.  Fails only for HET_ENOMEM.
 */
int het_ds_read_dt(struct het_dataset *ds, const char *ft_path,
    const char *ft_name, const char *stride_path, const char *stride_name,
    const char *avg_path, const char *avg_name, struct het_error *err);

/*
 * het_ds_read_positive: read an optional positive finite number; NAN
 * when it is absent or unusable.
 */
double het_ds_read_positive(struct het_dataset *ds, const char *path);

/* het_ds_is_integer: non-zero when v is an integer in [lo, hi]. */
int het_ds_is_integer(double v, double lo, double hi);

/*
 * het_ds_check_q, het_ds_check_phi: HET_OK when entry i of the list at
 * path is a plausible q (1/Å) or phi (degrees) (ranges: het_dataset.h),
 * else HET_EFORMAT naming the path, the index, the value and the range.
 */
int het_ds_check_q(const char *path, size_t i, double q,
    struct het_error *err);
int het_ds_check_phi(const char *path, size_t i, double phi,
    struct het_error *err);

/*
 * The APS-U q map, shared by the two-time loader and the multitau reader
 * (het_multitau.c).  het_ds_apsu_qmap: ds->q_list and ds->phi_list
 * (info.n_q, info.n_phi) from dynamic_v_list_dim0 and _dim1, each value
 * checked, and dynamic_num_pts against them when present; a missing phi
 * list is refused, or with phi_optional taken as one sector at 0.
 * het_ds_apsu_mapping: the label -> cell map dynamic_index_mapping into
 * *map (caller frees; NULL for the identity when the file has none),
 * *nmap the number of labels it covers (cells without a map), every
 * entry a cell 0 .. cells-1.  Both need ds->fid open.
 */
int het_ds_apsu_qmap(struct het_dataset *ds, int phi_optional,
    struct het_error *err);
int het_ds_apsu_mapping(struct het_dataset *ds, size_t cells, double **map,
    size_t *nmap, struct het_error *err);

/*
 * het_ds_open_file: open ds->path read-only (no file lock) into ds->fid,
 * with the messages of het_dataset_open for a missing file, a directory,
 * a file that is not HDF5 and a damaged one.
 */
int het_ds_open_file(struct het_dataset *ds, struct het_error *err);

/* The layout loaders: fill bins (label, q, phi, indices, dataset paths),
 * q_list, phi_list and the dt, energy and distance fields of info. */
int het_ds_load_apsu(struct het_dataset *ds, struct het_error *err);
int het_ds_load_legacy(struct het_dataset *ds, struct het_error *err);
/* het_dataset_npy.c: the .npy layout (the file, its sidecar, meta);
   het_ds_is_npy_file: 1 when path starts with the .npy magic. */
int het_ds_load_npy(struct het_dataset *ds,
    const struct het_dataset_meta *meta, struct het_error *err);
int het_ds_is_npy_file(const char *path);
/* het_ds_read_npy: the window f0..f0+n-1 of bin b of a .npy dataset. */
int het_ds_read_npy(struct het_dataset *ds, const struct het_bin *b,
    size_t f0, size_t n, double *out, struct het_error *err);

#endif /* HET_DATASET_IMPL_H */
