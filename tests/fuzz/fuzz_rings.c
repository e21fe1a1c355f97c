#include "config.h"

/*
 * fuzz_rings.c: libFuzzer harness of the batch summary reader
 * (het_rings_load, het_rings.h): the CSV tables hetui report reads from
 * a folder of hetui fit --all-rings or --series.
 *
 * The input is a control byte (bit 0: the file is series.csv, else
 * rings.csv) and the file's bytes, written into a folder of this process
 * (fuzz_input_path, as the other file harnesses).  A refusal must come
 * with a status and a message; an accepted table must keep its promises:
 * its layout is the file's, every row has its leading cells, a status,
 * no more values than columns and no negative uncertainty, and the trend
 * of every column can be asked for.  Seeds: tests/fuzz/rings/ (tables of
 * both kinds as hetui fit writes them, quoted texts, LF line ends, a
 * header alone, and refused ones).
 */

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "het_rings.h"

static char fuzz_dir[4096];

static void
fuzz_rmdir(void)
{
	rmdir(fuzz_dir);
}

static void
check_table(const struct het_rings *t, const struct het_rings_layout *l)
{
	struct het_rings_line ln;
	size_t r, c;

	FUZZ_CHECK(t->layout == l, "the table has the file's layout");
	for (r = 0; r < t->nrows; r++) {
		const struct het_rings_row *row = &t->rows[r];

		FUZZ_CHECK(row->cell != NULL && row->status != NULL &&
		    row->status[0] != '\0' && row->run_dir != NULL &&
		    row->message != NULL, "a row is complete");
		FUZZ_CHECK(row->nvals <= t->ncols, "no more values than "
		    "columns");
		for (c = 0; c < row->nvals; c++)
			FUZZ_CHECK(!(row->unc[c] < 0), "no negative "
			    "uncertainty");
		for (c = 0; c < l->nlead; c++)
			FUZZ_CHECK(l->lead[c].type != HET_RINGS_TEXT ||
			    row->cell[c].s != NULL, "a text cell");
	}
	for (c = 0; c < t->ncols; c++) {
		int rc = het_rings_slope(t, c, &ln);

		FUZZ_CHECK(rc == HET_OK || rc == HET_ERANGE, "a trend or "
		    "HET_ERANGE");
		FUZZ_CHECK(rc != HET_OK || ln.n >= 2, "a trend of two rows");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct het_rings_layout *l;
	struct het_error err;
	struct het_rings t;
	char path[4200];
	int rc;

	if (size < 1)
		return 0;
	if (fuzz_dir[0] == '\0') {
		fuzz_input_path(fuzz_dir, sizeof fuzz_dir, "rings");
		if (mkdir(fuzz_dir, 0700) != 0) {
			perror(fuzz_dir);
			abort();
		}
		atexit(fuzz_rmdir);
	}
	l = data[0] & 1 ? &het_rings_layout_series : &het_rings_layout_rings;
	snprintf(path, sizeof path, "%s/%s", fuzz_dir, l->csv);
	fuzz_write_input(path, data + 1, size - 1);
	het_error_clear(&err);
	rc = het_rings_load(fuzz_dir, &t, &err);
	if (rc != HET_OK)
		FUZZ_CHECK(err.code == rc && err.msg[0] != '\0',
		    "refused without a status and a message");
	else
		check_table(&t, l);
	het_rings_fini(&t);
	unlink(path);
	return 0;
}
