#include "config.h"

/*
 * fuzz_npy.c: libFuzzer harness of the NumPy .npy reader (het_npy.h) and
 * the .npy layout of the dataset model.
 *
 * The input is the bytes of a .npy file.  Its header is parsed from
 * memory (het_npy_parse_header); then the bytes are written to a file of
 * this process (as fuzz_dataset.c does, in $TMPDIR, else /dev/shm, else
 * /tmp), opened with het_npy_open, and every matrix (at most
 * FUZZ_MAX_MATS) is read whole when small, else as a window; and the file
 * is opened as a dataset with q, dt and one angle per matrix given
 * (het_dataset_open_meta), whose matrices are read through
 * het_dataset_read_c2.  A refusal must come with a status and a message;
 * the memory parse and the file open must agree.  Seeds: tests/fuzz/npy/
 * (float32 and float64, both byte orders, C and Fortran order, one
 * matrix and stacks, versions 1.0 to 3.0).
 */

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "het_dataset.h"
#include "het_npy.h"

#define FUZZ_MAX_MATS	16
#define FUZZ_MAX_SIDE	64

static char fuzz_path[4096];

static void
check_err(int rc, const struct het_error *err, const char *what)
{
	if (rc != HET_OK)
		FUZZ_CHECK(err->code == rc && err->msg[0] != '\0', what);
}

/* Every matrix of npy (at most FUZZ_MAX_MATS), whole or a window. */
static void
read_all(struct het_npy *npy, double *buf)
{
	const struct het_npy_hdr *h = het_npy_header(npy);
	struct het_error err;
	size_t k, n = h->n > FUZZ_MAX_SIDE ? 4 : h->n;
	int rc;

	for (k = 0; k < h->nmat && k < FUZZ_MAX_MATS; k++) {
		het_error_clear(&err);
		rc = het_npy_read(npy, k, h->n - n, n, buf, &err);
		check_err(rc, &err, "het_npy_read refused without a message");
	}
	het_error_clear(&err);
	FUZZ_CHECK(het_npy_read(npy, h->nmat, 0, 2, buf, &err) == HET_EINVAL,
	    "a matrix past the end is refused");
}

/* The dataset view: one angle per matrix given. */
static void
as_dataset(size_t nmat, double *buf)
{
	struct het_dataset_meta meta;
	struct het_dataset *ds;
	struct het_c2_info ci;
	struct het_error err;
	double phi[FUZZ_MAX_MATS];
	size_t k, n;
	long last;
	int rc;

	for (k = 0; k < nmat; k++)
		phi[k] = 10.0 * (double)k;
	memset(&meta, 0, sizeof meta);
	meta.q = 0.005;
	meta.dt = 0.1;
	meta.phi = phi;
	meta.nphi = nmat;
	het_error_clear(&err);
	if ((ds = het_dataset_open_meta(fuzz_path, &meta, &err)) == NULL) {
		FUZZ_CHECK(err.code != HET_OK && err.msg[0] != '\0',
		    "dataset refused without a status and a message");
		return;
	}
	n = het_dataset_info(ds)->frames;
	last = n > FUZZ_MAX_SIDE ? 4 : 0;
	for (k = 0; k < het_dataset_nbins(ds); k++) {
		het_error_clear(&err);
		rc = het_dataset_read_c2(ds, k, last ? 1 : 0, last, buf, &ci,
		    &err);
		check_err(rc, &err, "read_c2 refused without a message");
	}
	het_dataset_close(ds);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct het_npy_hdr h;
	struct het_npy *npy;
	struct het_error err, err2;
	double *buf;
	int rc;

	het_error_clear(&err);
	rc = het_npy_parse_header(data, size, size, &h, &err);
	check_err(rc, &err, "header refused without a message");
	if (fuzz_path[0] == '\0')
		fuzz_input_path(fuzz_path, sizeof fuzz_path, "npy");
	fuzz_write_input(fuzz_path, data, size);
	het_error_clear(&err2);
	npy = het_npy_open(fuzz_path, &err2);
	FUZZ_CHECK((npy != NULL) == (rc == HET_OK), "the memory parse and the "
	    "file open agree");
	if (npy == NULL) {
		FUZZ_CHECK(err2.code != HET_OK && err2.msg[0] != '\0',
		    "open refused without a status and a message");
	} else if ((buf = malloc(FUZZ_MAX_SIDE * FUZZ_MAX_SIDE *
	    sizeof *buf)) != NULL) {
		read_all(npy, buf);
		if (h.nmat <= FUZZ_MAX_MATS)
			as_dataset(h.nmat, buf);
		free(buf);
	}
	het_npy_close(npy);
	unlink(fuzz_path);
	return 0;
}
