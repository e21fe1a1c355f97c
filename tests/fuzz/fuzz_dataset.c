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
 * then every bin's matrix is read, whole when the file has at most
 * FUZZ_MAX_FRAMES frames,
 * else a small window, and a selection is made.  The same file then
 * goes through the multitau reader (het_multitau_read): a refusal needs
 * a status and a message, an accepted file the promises of
 * het_multitau.h (increasing positive delays in seconds, finite g2, no
 * negative error, bins inside the q map), and then its first bins are
 * fitted with both models and D is fitted to their rates.  Seeds:
 * tests/fuzz/dataset/ (the files of tests/mkfixture, both layouts, LZF
 * and gzip, and multitau files of tests/mkmultitau, alone and beside
 * two-time data).
 */

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "het_dataset.h"
#include "het_mtfit.h"
#include "het_multitau.h"

#define FUZZ_MAX_FRAMES	64
#define FUZZ_MAX_BINS	16

static void
check_err(int rc, const struct het_error *err, const char *what)
{
	if (rc != HET_OK)
		FUZZ_CHECK(err->code == rc && err->msg[0] != '\0', what);
}

/* A reader that returned nothing must say why. */
static void
check_refused(int accepted, const struct het_error *err, const char *what)
{
	if (!accepted)
		FUZZ_CHECK(err->code != HET_OK && err->msg[0] != '\0', what);
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

/* The multitau g2 of the file: its promises, then the fits. */
static void
exercise_mt(const struct het_multitau *mt)
{
	struct het_mtfit f[FUZZ_MAX_BINS];
	struct het_mtfit_diff d;
	struct het_error err;
	double q[FUZZ_MAX_BINS];
	size_t k, b, nb = mt->nbins < FUZZ_MAX_BINS ? mt->nbins :
	    FUZZ_MAX_BINS;
	int rc, m;

	FUZZ_CHECK(mt->ntau >= 1 && mt->nbins >= 1, "multitau sizes");
	for (k = 0; k < mt->ntau; k++)
		FUZZ_CHECK(isfinite(mt->tau[k]) && mt->tau[k] > 0 &&
		    (k == 0 || mt->tau[k] > mt->tau[k - 1]), "delays");
	for (k = 0; k < mt->ntau * mt->nbins; k++)
		FUZZ_CHECK(isfinite(mt->g2[k]) && isfinite(mt->g2_err[k]) &&
		    mt->g2_err[k] >= 0, "g2 and errors");
	for (b = 0; b < mt->nbins; b++)
		FUZZ_CHECK(mt->bins[b].q_idx < mt->n_q &&
		    mt->bins[b].phi_idx < mt->n_phi, "multitau bins");
	for (m = 0; m < HET_MTFIT_NMODELS; m++) {
		for (b = 0; b < nb; b++) {
			q[b] = mt->bins[b].q;
			het_error_clear(&err);
			rc = het_mtfit_bin(mt->tau, mt->g2 + b * mt->ntau,
			    mt->g2_err + b * mt->ntau, mt->ntau,
			    (enum het_mtfit_model)m, NULL, &f[b], &err);
			check_err(rc, &err, "fit refused without a message");
			if (rc != HET_OK)
				return;
		}
		het_error_clear(&err);
		rc = het_mtfit_diffusion(q, f, nb, &d, &err);
		check_err(rc, &err, "D refused without a message");
	}
}

/* The file of this process that holds the input, "" until made. */
static char fuzz_path[4096];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct het_multitau	*mt;
	struct het_dataset	*ds;
	struct het_error	 err;

	if (fuzz_path[0] == '\0')
		fuzz_input_path(fuzz_path, sizeof fuzz_path, "hdf");
	fuzz_write_input(fuzz_path, data, size);
	het_error_clear(&err);
	if ((ds = het_dataset_open(fuzz_path, &err)) != NULL)
		exercise(ds);
	check_refused(ds != NULL, &err, "refused without a status and a "
	    "message");
	het_dataset_close(ds);
	het_error_clear(&err);
	if ((mt = het_multitau_read(fuzz_path, &err)) != NULL)
		exercise_mt(mt);
	check_refused(mt != NULL, &err, "multitau refused without a status "
	    "and a message");
	het_multitau_free(mt);
	unlink(fuzz_path);
	return 0;
}
