#include "config.h"

/*
 * fuzz_dataset.c: libFuzzer harness of the HDF5 loader.
 *
 * The input is the bytes of a result file.  They are written to a file
 * of this process in $TMPDIR (else /dev/shm, memory, else /tmp; make
 * fuzz gives each run a directory of its own, removed at its end, which
 * also takes the files of inputs that crashed before their removal),
 * opened with het_dataset_open exactly as a file on disk (its stat,
 * H5Fis_hdf5 and H5Fopen) and removed again.  (An anonymous memfd cannot
 * be used: HDF5 1.10 resolves the real path of the name it opens, and
 * /proc/self/fd/N of a memfd has none.)  A refused file must come with
 * a status and a message; an accepted one must keep the promises of
 * het_dataset.h (at least one bin, each inside the q and phi lists), and
 * then every bin's matrix is read, whole when the file has at most FUZZ_MAX_FRAMES frames,
 * else a small window, and a selection is made.  Seeds:
 * tests/fuzz/dataset/ (the files of tests/mkfixture, both layouts, LZF
 * and gzip).
 */

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "het_dataset.h"

#define FUZZ_MAX_FRAMES	64
#define FUZZ_MAX_BINS	16

static void
check_err(int rc, const struct het_error *err, const char *what)
{
	if (rc != HET_OK)
		FUZZ_CHECK(err->code == rc && err->msg[0] != '\0', what);
}

static void
exercise(struct het_dataset *ds)
{
	const struct het_dataset_info	*info = het_dataset_info(ds);
	const struct het_bin		*b;
	struct het_selection		 sel;
	struct het_pick			 pick;
	struct het_c2_info		 ci;
	struct het_error		 err;
	double				*c2, dt;
	const char			*src;
	size_t				 k, n;
	long				 last;
	int				 rc;

	FUZZ_CHECK(info != NULL && info->nbins >= 1 &&
	    het_dataset_nbins(ds) == info->nbins, "bins");
	FUZZ_CHECK(het_dataset_bin(ds, info->nbins) == NULL, "bin past end");
	last = info->frames > FUZZ_MAX_FRAMES ? 4 : 0;
	n = last ? (size_t)last : info->frames;
	if (info->frames < 2)
		return;
	if ((c2 = malloc(n * n * sizeof *c2)) == NULL)
		return;
	for (k = 0; k < info->nbins && k < FUZZ_MAX_BINS; k++) {
		b = het_dataset_bin(ds, k);
		FUZZ_CHECK(b != NULL && b->index == k && b->dataset != NULL,
		    "bin k");
		FUZZ_CHECK(b->q_idx < info->n_q && b->phi_idx < info->n_phi,
		    "bin indices inside q_list and phi_list");
		het_error_clear(&err);
		rc = het_dataset_read_c2(ds, k, last ? 1 : 0, last, c2, &ci,
		    &err);
		check_err(rc, &err, "read refused without a message");
	}
	free(c2);
	het_error_clear(&err);
	rc = het_dataset_dt(ds, NULL, &dt, &src, &err);
	check_err(rc, &err, "dt refused without a message");
	if (rc == HET_OK)
		FUZZ_CHECK(isfinite(dt) && dt > 0 && src != NULL, "dt");
	het_selection_init(&sel);
	sel.q = info->q_list[0];
	rc = het_dataset_select(ds, &sel, &pick, &err);
	check_err(rc, &err, "selection refused without a message");
	if (rc == HET_OK) {
		FUZZ_CHECK(pick.nbins >= 1 && pick.frames == info->frames,
		    "selection of a whole ring");
		het_pick_fini(&pick);
	}
}

/* The file of this process that holds the input, "" until made. */
static char fuzz_path[4096];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct het_dataset	*ds;
	struct het_error	 err;

	if (fuzz_path[0] == '\0')
		fuzz_input_path(fuzz_path, sizeof fuzz_path, "hdf");
	fuzz_write_input(fuzz_path, data, size);
	het_error_clear(&err);
	ds = het_dataset_open(fuzz_path, &err);
	if (ds == NULL)
		FUZZ_CHECK(err.code != HET_OK && err.msg[0] != '\0',
		    "refused without a status and a message");
	else
		exercise(ds);
	het_dataset_close(ds);
	unlink(fuzz_path);
	return 0;
}
