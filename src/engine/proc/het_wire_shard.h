/*
 * het_wire_shard.h: the payloads of the `shard` and `result` records of
 * the wire protocol (docs/wire-protocol.md §3), and the worker-side
 * construction of a shard's posterior from them.
 *
 * A struct het_wire_shard describes one shard completely: the model and
 * scaling specifications, the full physics and scaling vectors with their
 * free masks (the het_resid_spec of the shard), the pairs and observed
 * values, the noise sigma, one prior per free parameter (het_resid
 * order), the number of shards K, the reparameterisation flag, the NUTS
 * settings and an optional start point.
 *
 * Ownership: het_wire_shard_pack only reads the struct (its pointers are
 * borrowed from the caller).  het_wire_shard_unpack fills a zeroed struct
 * with malloc'd arrays that het_wire_shard_clear releases; never call
 * _clear on a struct whose arrays the caller owns.
 * Thread: any; objects belong to the calling thread.
 */
#ifndef HET_WIRE_SHARD_H
#define HET_WIRE_SHARD_H

#include <stddef.h>

#include <jansson.h>

#include "het_error.h"
#include "het_model.h"
#include "het_posterior.h"
#include "het_resid.h"
#include "het_scaling.h"
#include "het_shard_run.h"
#include "het_wire.h"

/*
 * The most frames a shard's window may span (model.n_frames).  A window
 * of more frames is a c2 matrix of over 40 GB per angle in float32, which
 * no beamline writes; the worker's per-frame model tables for 100,000
 * frames take about 20 MB per chain thread.  A larger n_frames in a shard
 * record is refused (HET_EPROTO) before anything is allocated by it.
 */
#define HET_WIRE_MAX_FRAMES	100000

struct het_wire_shard {
	long			 shard;		/* >= 0 */
	struct het_model_spec	 model;		/* model.phi: n_angles */
	struct het_scaling_spec	 scaling;	/* n_angles and phi are
						   taken from model */
	/* Constant scaling only: per-angle values (n_angles), or NULL. */
	const double		*const_contrast;
	const double		*const_offset;
	/* het_resid_spec: nphys = het_mode_nphys(model.mode) values. */
	const double		*theta;
	const unsigned char	*free;		/* nphys flags, NULL = all */
	size_t			 nscal;		/* scaling parameters */
	const double		*s;		/* nscal values, NULL = default */
	const unsigned char	*s_free;	/* nscal flags, NULL = all */
	size_t			 n;		/* data */
	const struct het_pair	*pairs;
	const double		*y;
	double			 sigma;		/* > 0 */
	size_t			 np;		/* free parameters p */
	const struct het_post_prior *priors;	/* p */
	const double		*x0;		/* p start values, or NULL
						   (the free theta and s) */
	long			 nshards;	/* K >= 1 */
	int			 reparam;
	struct het_shard_settings settings;
	long			 chain_threads;	/* run up to this many chains
						   at once (field
						   "chain_threads", absent =
						   1); how, not what: the
						   coordinator sets it after
						   het_wire_shard_digest */
};

/*
 * het_wire_shard_pack: the payload object of a shard record.
 * Returns a new object (caller: json_decref) or NULL with HET_EINVAL
 * (missing array, p = 0, a non-finite value) or HET_ENOMEM.
 */
json_t *het_wire_shard_pack(const struct het_wire_shard *ws,
    struct het_error *err);

/*
 * het_wire_shard_unpack: decode a shard payload into a zeroed *ws (arrays
 * malloc'd; release with het_wire_shard_clear; after an error *ws is
 * left zeroed, nothing half-decoded kept, and _clear is a no-op).
 * Checks presence and types of all fields, array lengths (nphys of the
 * mode, n_angles, nscal, n, p) and names the bad field.  Returns HET_OK,
 * HET_EPROTO (missing or malformed field), HET_EINVAL (unknown mode,
 * scaling mode or prior kind), HET_ENOMEM.
 */
int het_wire_shard_unpack(const json_t *obj, struct het_wire_shard *ws,
    struct het_error *err);
void het_wire_shard_clear(struct het_wire_shard *ws);

/*
 * The objects a worker builds from an unpacked shard, in dependency
 * order.  het_wire_shard_build allocates them all (HET_OK) or none; the
 * errors of het_model_alloc, het_scaling_alloc, het_resid_alloc and
 * het_posterior_alloc pass through (mostly HET_EINVAL, HET_EDATA), and
 * HET_EINVAL when the resid's p differs from the number of priors.
 * x0 receives p start values (the shard's x0 or the resid's).
 */
struct het_wire_shard_objs {
	struct het_model	*model;
	struct het_scaling	*scaling;
	struct het_resid	*resid;
	struct het_posterior	*post;
	double			*x0;
};
int het_wire_shard_build(const struct het_wire_shard *ws,
    struct het_wire_shard_objs *o, struct het_error *err);
void het_wire_shard_objs_free(struct het_wire_shard_objs *o);

/*
 * het_wire_result_pack: the payload of a result record for shard.
 * Returns a new object or NULL with HET_EINVAL/HET_ENOMEM.
 * het_wire_result_unpack: decode into a zeroed *res (release with
 * het_shard_result_clear); returns HET_OK, HET_EPROTO naming the field,
 * HET_ENOMEM.  *shard receives the shard id.  Everything is checked:
 * at least one parameter, one summary per parameter, chains x params x
 * draws_per_chain finite draws, per-chain arrays of exactly `chains`
 * values, divergences >= 0; on any error nothing is
 * returned.
 * het_wire_result_check: the same decoding as a verdict only (the
 * coordinator's check on receipt): HET_OK when obj is a complete result
 * for shard with p parameters (p 0: any), else HET_EPROTO saying what is
 * wrong (or HET_ENOMEM).  Nothing is kept.
 */
json_t *het_wire_result_pack(long shard, const struct het_shard_result *res,
    struct het_error *err);
int het_wire_result_check(const json_t *obj, long shard, size_t p,
    struct het_error *err);
int het_wire_result_unpack(const json_t *obj, long *shard,
    struct het_shard_result *res, struct het_error *err);

/*
 * het_wire_shard_digest: a 64-bit FNV-1a digest of a shard payload (the
 * object het_wire_shard_pack made, with its "shard" id), as 16 lowercase
 * hex digits into out (HET_RESULTS_DIGEST_LEN = 17 bytes with the NUL):
 * of HET_WIRE_DIGEST_PREFIX (the hetui version and the wire protocol
 * version), then of the payload serialised compactly with sorted keys
 * and jansson's round-trip number format.  So two payloads get the same
 * digest exactly when they hold the same pairs, data, model, priors,
 * noise sigma, settings, seed and start point and were made by the same
 * version of hetui.  `hetui sample --resume` reuses a
 * stored shard only when its digest matches (a change detector, not a
 * cryptographic hash).  Returns HET_OK, or HET_EINVAL when payload
 * cannot be serialised.  Thread: any.
 */
#define HET_WIRE_DIGEST_PREFIX	"hetui " PACKAGE_VERSION " wire " \
	HET_WIRE_STR(HET_WIRE_VERSION) "\n"
#define HET_WIRE_STR(x)		HET_WIRE_STR2(x)
#define HET_WIRE_STR2(x)	#x
int het_wire_shard_digest(const json_t *payload, char *out,
    struct het_error *err);

#endif /* HET_WIRE_SHARD_H */
