/*
 * t_core_dataset_select.c: bin and frame selection: nearest q ring,
 * circular nearest phi, merging, tolerances and their messages listing
 * what the file offers, frame-window resolution and range errors, input
 * checks; rings without bins are never chosen.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_h5.h"
#include "het_dataset.h"
#include "het_dataset_write.h"
#include "het_h5.h"
#include "tap.h"

#define NF 10

static char *dir;

/* "1 2 5" from a pick, for messages and comparisons. */
static const char *
bins_str(const struct het_pick *p)
{
	static char buf[256];
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < p->nbins && used < sizeof(buf) - 16; i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
		    "%s%zu", i ? " " : "", p->bins[i]);
	return buf;
}

static void
pick_is(struct het_dataset *ds, const struct het_selection *sel,
    const char *want, const char *what)
{
	struct het_pick pick;
	struct het_error err;
	int rc;

	het_error_clear(&err);
	rc = het_dataset_select(ds, sel, &pick, &err);
	if (rc != HET_OK)
		diag("%s", err.msg);
	is_str(rc == HET_OK ? bins_str(&pick) : err.msg, want, "%s", what);
	het_pick_fini(&pick);
}

static void
select_fails(struct het_dataset *ds, const struct het_selection *sel,
    int code, const char *needle, const char *what)
{
	struct het_pick pick;
	struct het_error err;

	het_error_clear(&err);
	is_int(het_dataset_select(ds, sel, &pick, &err), code, "%s: %s", what,
	    het_status_name(code));
	ok(pick.bins == NULL && pick.nbins == 0, "%s: pick left empty", what);
	like(err.msg, needle, "%s: message says '%s'", what, needle);
	diag("%s", err.msg);
}

static void
test_rings_and_angles(struct het_dataset *ds)
{
	struct het_selection sel;
	struct het_pick pick;
	struct het_error err;
	double a[3];

	/* q: 0.00304306, 0.00576136, 0.00847966; phi: -135, -45, 45, 135 */
	het_selection_init(&sel);
	ok(isnan(sel.q) && isnan(sel.dt) && sel.nphi == 0 &&
	    sel.first_frame == 0 && sel.last_frame == 0,
	    "selection defaults: every bin, every frame, dt from the file");
	ok(het_dataset_select(ds, &sel, &pick, &err) == HET_OK &&
	    pick.nbins == 12 && pick.first_frame == 1 &&
	    pick.last_frame == NF && pick.frames == NF,
	    "default pick: all 12 bins, frames 1..%d", NF);
	het_pick_fini(&pick);
	het_pick_fini(&pick);
	het_pick_fini(NULL);
	ok(pick.bins == NULL && pick.nbins == 0, "fini empties (and repeats)");
	sel.q = 0.0058;
	pick_is(ds, &sel, "4 5 6 7", "q 0.0058: the whole nearest ring");
	sel.q = 0.5;
	pick_is(ds, &sel, "8 9 10 11", "q far above: the highest ring");
	sel.q = 0.0058;
	a[0] = 200;
	sel.phi = a;
	sel.nphi = 1;
	pick_is(ds, &sel, "4", "phi 200 is -160: nearest -135 circularly, "
	    "not 135");
	a[0] = -180;
	pick_is(ds, &sel, "4", "phi -180: -135 and 135 are both 45 away; the "
	    "tie goes to the lower bin");
	a[0] = 179;
	pick_is(ds, &sel, "7", "phi 179: 135 (44 away) beats -135 (46)");
	a[0] = 720 + 44;
	pick_is(ds, &sel, "6", "phi 764 = 44 deg: the 45 sector");
	sel.q = NAN;
	a[0] = -40;
	a[1] = 50;
	a[2] = 44;
	sel.nphi = 3;
	pick_is(ds, &sel, "1 2 5 6 9 10", "no q target: each ring, -40 -> "
	    "-45, 50 and 44 -> 45 (merged)");
	sel.q = 0.003;
	sel.q_rtol = 0.05;
	pick_is(ds, &sel, "1 2", "q 0.003 within 5%: ring 0");
	sel.phi_tol = 5;
	pick_is(ds, &sel, "1 2", "phi within 5 deg: -40 and 50 fit");
	a[0] = -43;
	sel.phi_tol = 4;
	select_fails(ds, &sel, HET_ENOTFOUND, "no bin of the q = 0.00304306 "
	    "ring has phi within 4 deg of 50; available phi (deg): -135, -45, "
	    "45, 135", "phi tolerance");
	sel.q = NAN;
	select_fails(ds, &sel, HET_ENOTFOUND, "no bin has phi within 4 deg of "
	    "50 in any q ring; the rings are 0.00304306 (4 bins), 0.00576136 "
	    "(4 bins), 0.00847966 (4 bins)", "phi tolerance, every ring");
	sel.phi_tol = 0;
	sel.q = 0.02;
	select_fails(ds, &sel, HET_ENOTFOUND, "no q ring within 5% of q = "
	    "0.02 1/A (the nearest is 0.00847966); available q rings: "
	    "0.00304306 (4 bins), 0.00576136 (4 bins), 0.00847966 (4 bins)",
	    "q tolerance");
}

static void
test_windows(struct het_dataset *ds)
{
	struct het_selection sel;
	struct het_pick pick;
	struct het_error err;
	double t = NAN;

	het_selection_init(&sel);
	sel.first_frame = 3;
	ok(het_dataset_select(ds, &sel, &pick, &err) == HET_OK &&
	    pick.first_frame == 3 && pick.last_frame == NF &&
	    pick.frames == NF - 2, "first 3, last 0: frames 3..%d", NF);
	het_pick_fini(&pick);
	sel.last_frame = -1;
	ok(het_dataset_select(ds, &sel, &pick, &err) == HET_OK &&
	    pick.last_frame == NF, "last -1 means the last frame");
	het_pick_fini(&pick);
	sel.last_frame = 4;
	ok(het_dataset_select(ds, &sel, &pick, &err) == HET_OK &&
	    pick.first_frame == 3 && pick.last_frame == 4 && pick.frames == 2,
	    "frames 3..4: 2 frames");
	het_pick_fini(&pick);
	sel.last_frame = 99;
	select_fails(ds, &sel, HET_ERANGE, "frame window 3..99 is out of "
	    "range: the matrices have 10 frames, numbered 1 to 10 "
	    "(start_frame and end_frame are 1-based and inclusive)",
	    "window past the end");
	sel.first_frame = -2;
	sel.last_frame = 5;
	select_fails(ds, &sel, HET_ERANGE, "frame window -2..5 is out of range",
	    "negative first frame");
	sel.first_frame = 6;
	sel.last_frame = 2;
	select_fails(ds, &sel, HET_ERANGE, "frame window 6..2 is reversed",
	    "reversed window");
	sel.first_frame = 4;
	sel.last_frame = 4;
	select_fails(ds, &sel, HET_ERANGE, "frame window 4..4 holds one frame; "
	    "a two-time matrix needs at least 2", "one frame");
	het_selection_init(&sel);
	sel.q = -1;
	select_fails(ds, &sel, HET_EINVAL, "the q target -1 is not a positive",
	    "negative q");
	sel.q = INFINITY;
	select_fails(ds, &sel, HET_EINVAL, "the q target inf", "infinite q");
	sel.q = NAN;
	sel.q_rtol = -0.1;
	select_fails(ds, &sel, HET_EINVAL, "tolerances must be finite and >= 0",
	    "negative tolerance");
	sel.q_rtol = 0;
	sel.nphi = 2;
	select_fails(ds, &sel, HET_EINVAL, "2 phi targets announced but none "
	    "given", "phi count without angles");
	sel.phi = &t;
	sel.nphi = 1;
	select_fails(ds, &sel, HET_EINVAL, "phi target 1 is nan", "NaN phi");
}

/* Rings that hold no bin are never picked. */
static void
test_sparse(void)
{
	struct het_apsu_spec spec;
	struct het_selection sel;
	struct het_dataset *ds;
	struct het_error err;
	double **mats;
	char *path = fx_path(dir, "sparse.hdf");
	const long mapping[3] = { 0, 1, 4 };

	fx_apsu_basic(&spec, 3, 4, NF, &mats);
	spec.index_mapping = mapping;
	spec.n_mapping = 3;
	spec.nbins = 3;
	het_error_clear(&err);
	ok(het_apsu_write(path, &spec, &err) == HET_OK,
	    "write 3 bins in cells 0, 1, 4 of a 3 x 4 map");
	ds = het_dataset_open(path, &err);
	if (ds == NULL) {
		diag("%s", err.msg);
		goto out;
	}
	het_selection_init(&sel);
	sel.q = spec.q[2];
	pick_is(ds, &sel, "2", "q of the empty ring 2: ring 1 is the nearest "
	    "that has bins");
	sel.q = spec.q[0];
	sel.q_rtol = 0.01;
	pick_is(ds, &sel, "0 1", "ring 0 holds bins 0 and 1");
	sel.q = spec.q[2];
	select_fails(ds, &sel, HET_ENOTFOUND, "(the nearest is 0.00576136); "
	    "available q rings: 0.00304306 (2 bins), 0.00576136 (1 bin)",
	    "q of an empty ring with a tolerance");
	het_dataset_close(ds);
out:
	fx_apsu_free(&spec, mats);
	free(path);
}

int
main(void)
{
	struct het_apsu_spec spec;
	struct het_dataset *ds;
	struct het_error err;
	double **mats;
	char *path;

	plan_lazy();
	het_error_clear(&err);
	het_h5_library_init(&err);
	dir = fx_tmpdir();
	if (dir == NULL)
		skip_all("cannot create a temporary directory");
	path = fx_path(dir, "sel.hdf");
	fx_apsu_basic(&spec, 3, 4, NF, &mats);
	ok(het_apsu_write(path, &spec, &err) == HET_OK,
	    "write 3 q x 4 phi, %d frames", NF);
	ds = het_dataset_open(path, &err);
	if (!ok(ds != NULL, "open it"))
		diag("%s", err.msg);
	if (ds != NULL) {
		test_rings_and_angles(ds);
		test_windows(ds);
	}
	het_dataset_close(ds);
	fx_apsu_free(&spec, mats);
	test_sparse();
	free(path);
	fx_rmtree(dir);
	free(dir);
	return exit_status();
}
