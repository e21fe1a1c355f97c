/*
 * t_engine_resume_errors.c: the failure side of `hetui sample --resume`.
 * Data as in t_engine_resume.c (resume_lib.c): the simulated static_ref
 * file, a full run of tests/configs/sample_run.yaml (2 shards) into
 * "full", whose file the cases below copy and damage.
 * Checks: het_results_load_cmc on a missing directory (HET_ENOTFOUND),
 * garbage bytes, an HDF5 file without /cmc, and copies of the full run's
 * file with the shard group, its draws or its n_chains attribute
 * deleted, draws of the wrong shape and a NaN draw (HET_EFORMAT), each
 * with a message naming file and path and nothing left in the result; a
 * copy without input_digest loads (digest "") and a resume from it into
 * the same directory is refused (HET_EINVAL naming the shard), into
 * another one warns that the shard has no digest, reuses only the other
 * shard and still combines the full run's draws; het_sample with resume_dir missing ends
 * FAILED with "--resume" in the message and writes nothing.
 */
#include "config.h"

#include <sys/stat.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "het_results.h"
#include "het_sample.h"
#include "sample_drive.h"
#include "resume_lib.h"
#include "tap.h"

/* Copy a file byte by byte; 0 on success. */
static int
copy_file(const char *from, const char *to)
{
	FILE *in, *out;
	char buf[65536];
	size_t n;
	int rc = 0;

	if ((in = fopen(from, "rb")) == NULL)
		return -1;
	if ((out = fopen(to, "wb")) == NULL) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (ferror(in))
		rc = -1;
	fclose(in);
	if (fclose(out) != 0)
		rc = -1;
	return rc;
}

/*
 * tmpdir/name/ with a copy of full/hetui_results.h5 (and, with json,
 * the NLSQ files), opened read-write for editing; negative on failure.
 */
static hid_t
full_copy(const char *name, int json)
{
	static const char *const files[] = { "hetui_results.h5",
	    "nlsq_parameters.json", "nlsq_metadata.json" };
	char dir[600], from[700], to[700];
	size_t k;

	tpath(dir, name);
	mkdir(dir, 0700);
	for (k = 0; k < (json ? 3u : 1u); k++) {
		snprintf(from, sizeof(from), "%s/full/%s", tmpdir, files[k]);
		snprintf(to, sizeof(to), "%s/%s", dir, files[k]);
		if (copy_file(from, to) != 0) {
			diag("cannot copy %s to %s", from, to);
			return -1;
		}
	}
	snprintf(to, sizeof(to), "%s/hetui_results.h5", dir);
	return H5Fopen(to, H5F_ACC_RDWR, H5P_DEFAULT);
}

/* het_results_load_cmc(tmpdir/name) fails with code and both needles. */
static void
load_fails(const char *name, int code, const char *n1, const char *n2,
    const char *what)
{
	struct het_results_prev_cmc prev;
	struct het_error err;
	char dir[600];

	is_int(het_results_load_cmc(tpath(dir, name), &prev, &err), code,
	    "%s: %s", what, het_status_name(code));
	like(err.msg, n1, "... message: %s", err.msg);
	if (n2 != NULL)
		like(err.msg, n2, "... names %s", n2);
	ok(prev.shard == NULL && prev.source == NULL && prev.n == 0,
	    "... nothing left in the result");
	het_results_prev_cmc_clear(&prev);
}

/* Replace /cmc/shard_0000/draws by a 3 x 2 matrix. */
static int
wrong_shape(hid_t f)
{
	static const double v[6] = { 1, 2, 3, 4, 5, 6 };
	hsize_t dim[2] = { 3, 2 };
	hid_t sp, d;
	int rc = -1;

	if (H5Ldelete(f, "/cmc/shard_0000/draws", H5P_DEFAULT) < 0)
		return -1;
	sp = H5Screate_simple(2, dim, NULL);
	d = H5Dcreate2(f, "/cmc/shard_0000/draws", H5T_IEEE_F64LE, sp,
	    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
	    H5P_DEFAULT, v) >= 0)
		rc = 0;
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(sp);
	return rc;
}

/* Put a NaN at row 1, column 2 of /cmc/shard_0000/draws. */
static int
nan_draw(hid_t f)
{
	hid_t d, sp;
	hsize_t dim[2] = { 0, 0 };
	double *v;
	int rc = -1;

	if ((d = H5Dopen2(f, "/cmc/shard_0000/draws", H5P_DEFAULT)) < 0)
		return -1;
	sp = H5Dget_space(d);
	H5Sget_simple_extent_dims(sp, dim, NULL);
	H5Sclose(sp);
	if (dim[0] >= 2 && dim[1] >= 3 &&
	    (v = malloc(dim[0] * dim[1] * sizeof(*v))) != NULL) {
		if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
		    H5P_DEFAULT, v) >= 0) {
			v[1 * dim[1] + 2] = NAN;
			if (H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
			    H5P_DEFAULT, v) >= 0)
				rc = 0;
		}
		free(v);
	}
	H5Dclose(d);
	return rc;
}

static void
test_load_errors(void)
{
	char dir[600], file[700];
	FILE *fp;
	hid_t f;
	int i;

	load_fails("nodir", HET_ENOTFOUND, "does not exist",
	    "/nodir/hetui_results.h5", "missing directory");

	tpath(dir, "garbage");
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/hetui_results.h5", dir);
	if ((fp = fopen(file, "wb")) != NULL) {
		for (i = 0; i < 200; i++)
			fputs("this is not HDF5 ", fp);
		fclose(fp);
	}
	load_fails("garbage", HET_EFORMAT, "not an HDF5 file",
	    "/garbage/hetui_results.h5", "garbage bytes");

	tpath(dir, "empty");
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/hetui_results.h5", dir);
	f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	ok(f >= 0, "an empty HDF5 file");
	if (f >= 0)
		H5Fclose(f);
	load_fails("empty", HET_EFORMAT, "no /cmc group",
	    "/empty/hetui_results.h5", "an HDF5 file without /cmc");

	f = full_copy("nogroup", 0);
	ok(f >= 0 && H5Ldelete(f, "/cmc/shard_0000", H5P_DEFAULT) >= 0,
	    "copy with /cmc/shard_0000 deleted");
	if (f >= 0)
		H5Fclose(f);
	load_fails("nogroup", HET_EFORMAT, "says shard 0 is done but "
	    "/cmc/shard_0000 is missing", "/nogroup/hetui_results.h5",
	    "shard group missing");

	f = full_copy("nodraws", 0);
	ok(f >= 0 && H5Ldelete(f, "/cmc/shard_0000/draws", H5P_DEFAULT) >= 0,
	    "copy with /cmc/shard_0000/draws deleted");
	if (f >= 0)
		H5Fclose(f);
	load_fails("nodraws", HET_EFORMAT, "/cmc/shard_0000/draws is missing",
	    "/nodraws/hetui_results.h5", "draws missing");

	f = full_copy("shape", 0);
	ok(f >= 0 && wrong_shape(f) == 0, "copy with 3 x 2 draws");
	if (f >= 0)
		H5Fclose(f);
	load_fails("shape", HET_EFORMAT, "/cmc/shard_0000/draws is not a "
	    "8 x 100 matrix", "/shape/hetui_results.h5", "draws mis-shaped");

	f = full_copy("nan", 0);
	ok(f >= 0 && nan_draw(f) == 0, "copy with a NaN draw");
	if (f >= 0)
		H5Fclose(f);
	load_fails("nan", HET_EFORMAT, "/cmc/shard_0000/draws holds a "
	    "non-finite draw (row 1, column 2)", "/nan/hetui_results.h5",
	    "a NaN draw");

	f = full_copy("nochains", 0);
	ok(f >= 0 && H5Adelete_by_name(f, "/cmc/shard_0000", "n_chains",
	    H5P_DEFAULT) >= 0, "copy without the attribute n_chains");
	if (f >= 0)
		H5Fclose(f);
	load_fails("nochains", HET_EFORMAT, "/cmc/shard_0000 lacks a valid "
	    "attribute n_chains", "/nochains/hetui_results.h5",
	    "n_chains missing");
}

static void
test_no_digest(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_results_prev_cmc prev;
	struct het_sample *s;
	struct het_error err;
	const struct het_results_prev_shard *p0, *p1;
	char dir[600], file[700];
	unsigned ids = 0;
	hid_t f;

	f = full_copy("nodigest", 1);
	ok(f >= 0 && H5Adelete_by_name(f, "/cmc/shard_0000", "input_digest",
	    H5P_DEFAULT) >= 0, "copy without shard 0's input_digest");
	if (f >= 0)
		H5Fclose(f);
	is_int(het_results_load_cmc(tpath(dir, "nodigest"), &prev, &err),
	    HET_OK, "... loads: HET_OK");
	p0 = prev_shard(&prev, 0);
	p1 = prev_shard(&prev, 1);
	ok(prev.n == 2 && p0 != NULL && p1 != NULL, "... both shards");
	ok(p0 != NULL && p0->digest[0] == '\0', "... shard 0: digest \"\"");
	ok(p1 != NULL && strcmp(p1->digest, full_digest[1]) == 0,
	    "... shard 1: its digest");
	het_results_prev_cmc_clear(&prev);

	/* into the same directory: refused, shard 0 would be replaced */
	opts_init(&o, cfg, NULL);
	o.resume_dir = dir;
	snprintf(file, sizeof(file), "%s/hetui_results.h5", dir);
	s = run(&o, NULL, NULL);
	ok(s != NULL && het_sample_phase(s) == HET_SAMPLE_FAILED &&
	    het_sample_error(s)->code == HET_EINVAL, "resume from it into "
	    "it: refused");
	if (s != NULL) {
		like(het_sample_error(s)->msg, "finished shard 0 in ",
		    "... names shard 0: %s", het_sample_error(s)->msg);
		like(het_sample_error(s)->msg, "did not record input digests",
		    "... and why");
		het_sample_free(s);
	}

	opts_init(&o, cfg, "nodigest_out");
	o.resume_dir = dir;
	s = run(&o, NULL, NULL);
	ok(s != NULL, "resume from it into another directory");
	if (s == NULL)
		return;
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED,
	    "... verdict passed");
	is_int(count_reused(s, &ids), 1, "... one shard reused");
	is_int(ids, 2, "... shard 1, the one with a digest");
	is_int(count_warnings(s, "did not record input digests", file), 1,
	    "... a warning that shard 0 has no input digest, naming %s",
	    file);
	is_int(count_warnings(s, "sampled from other inputs", NULL), 0,
	    "... and no other --resume warning");
	ok(same_as_full(s), "... combined draws bit-identical to the full "
	    "run's");
	is_int(sample_live_children(), 0, "... no worker left");
	het_sample_free(s);
}

static void
test_resume_missing(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_sample *s;
	char dir[600];

	opts_init(&o, cfg, NULL);
	o.resume_dir = tpath(dir, "nodir2");
	s = run(&o, NULL, NULL);
	ok(s != NULL, "resume of a missing directory");
	if (s == NULL)
		return;
	is_int(het_sample_phase(s), HET_SAMPLE_FAILED, "... failed");
	is_int(het_sample_verdict(s), HET_VERDICT_ERROR, "... verdict error");
	is_int(het_sample_error(s)->code, HET_ENOTFOUND, "... HET_ENOTFOUND");
	like(het_sample_error(s)->msg, "--resume: ", "... the message: %s",
	    het_sample_error(s)->msg);
	like(het_sample_error(s)->msg, "/nodir2/hetui_results.h5 does not "
	    "exist", "... names the file");
	ok(access(dir, F_OK) != 0, "... nothing written");
	het_sample_free(s);
}

/* The full run whose file the cases copy; its digests and draws. */
static int
full_run(struct het_config *cfg)
{
	struct het_sample_opts o;
	struct het_results_prev_cmc prev;
	struct het_error err;
	struct het_sample *s;
	char dir[600];
	size_t k;

	opts_init(&o, cfg, "full");
	if ((s = run(&o, NULL, NULL)) == NULL)
		return -1;
	is_int(het_sample_verdict(s), HET_VERDICT_PASSED,
	    "the full run passes");
	resume_keep_full(s);
	het_sample_free(s);
	if (het_results_load_cmc(tpath(dir, "full"), &prev, &err) != HET_OK)
		return -1;
	for (k = 0; k < prev.n; k++)
		if (prev.shard[k].id >= 0 && prev.shard[k].id < K_SHARDS)
			snprintf(full_digest[prev.shard[k].id],
			    HET_RESULTS_DIGEST_LEN, "%s", prev.shard[k].digest);
	is_int((long long)prev.n, K_SHARDS, "... both shards are read back");
	het_results_prev_cmc_clear(&prev);
	return full_draws != NULL ? 0 : -1;
}

int
main(void)
{
	struct het_config *cfg;
	struct het_error err;
	char path[600];

	if (resume_setup("t_engine_resume_errors") != 0)
		skip_all("HETUI, HETUI_WORKER or top_srcdir not set, or the "
		    "test data cannot be simulated");
	signal(SIGPIPE, SIG_IGN);
	plan_lazy();
	cfg = het_config_load(tpath(path, "sample_run.yaml"), &err);
	ok(cfg != NULL, "config loads");
	if (cfg == NULL)
		return exit_status();
	if (full_run(cfg) != 0) {
		diag("the full run failed; the cases copy its file");
		het_config_free(cfg);
		return exit_status();
	}
	test_load_errors();
	test_no_digest(cfg);
	test_resume_missing(cfg);
	het_config_free(cfg);
	resume_cleanup();
	done_testing();
	return exit_status();
}
