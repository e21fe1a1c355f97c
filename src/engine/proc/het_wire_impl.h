/*
 * het_wire_impl.h: small JSON helpers shared by the payload codecs of
 * the wire protocol (het_wire_shard.c, het_wire_result.c); not part of
 * the engine's interface.
 *
 * het_wire_jreal: a real, or null when not finite (JSON holds no NaN).
 * het_wire_jset: obj[key] = v (stolen); HET_ENOMEM when v is NULL or the
 *   set fails, naming key.
 * het_wire_jreals: an array of n het_wire_jreal values, NULL on ENOMEM.
 * Thread: any; the objects belong to the caller.
 */
#ifndef HET_WIRE_IMPL_H
#define HET_WIRE_IMPL_H

#include <math.h>
#include <stddef.h>

#include <jansson.h>

#include "het_error.h"

static inline json_t *
het_wire_jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static inline int
het_wire_jset(json_t *obj, const char *key, json_t *v, struct het_error *err)
{
	if (v == NULL || json_object_set_new(obj, key, v) != 0)
		return het_error_set(err, HET_ENOMEM, "out of memory while "
		    "encoding field %s of a wire record", key);
	return HET_OK;
}

static inline json_t *
het_wire_jreals(const double *v, size_t n)
{
	json_t	*a = json_array();
	size_t	 k;

	for (k = 0; a != NULL && k < n; k++)
		if (json_array_append_new(a, het_wire_jreal(v[k])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

#endif /* HET_WIRE_IMPL_H */
