#include "config.h"

/*
 * fuzz_config.c: libFuzzer harness of the YAML configuration reader.
 *
 * The input is the text of a configuration file.  It is loaded with
 * het_config_load_string (the path of het_config_load after reading the
 * file); a refused text must come with a status and a message.  An
 * accepted configuration is validated, written back as YAML with and
 * without comments (het_config_format) and loaded again: the promise of
 * het_config.h is that the written text loads back to an equal
 * configuration.  Nothing touches the file system.  Seeds:
 * tests/fuzz/config/ (the configurations of tests/configs and data/).
 */

#include <string.h>

#include "fuzz.h"
#include "het_config.h"

/* The written text loads back, and to the same settings. */
static void
roundtrip(const struct het_config *cfg, int flags)
{
	struct het_config	*back;
	struct het_error	 err;
	char			*text, what[256];

	het_error_clear(&err);
	text = het_config_format(cfg, flags, &err);
	if (text == NULL) {
		FUZZ_CHECK(err.code == HET_ENOMEM, "format failed but not ENOMEM");
		return;
	}
	back = het_config_load_string(text, strlen(text), "fuzz-written.yaml",
	    &err);
	if (back == NULL) {
		fprintf(stderr, "fuzz: written text refused: %s\n--\n%s--\n",
		    err.msg, text);
		FUZZ_CHECK(0, "het_config_format text does not load back");
	}
	what[0] = '\0';
	if (!het_config_equal(cfg, back, what, sizeof what)) {
		fprintf(stderr, "fuzz: reloaded differs at %s\n--\n%s--\n",
		    what, text);
		FUZZ_CHECK(0, "het_config_format text loads back different");
	}
	het_config_free(back);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct het_config	*cfg;
	struct het_error	 err;

	het_error_clear(&err);
	cfg = het_config_load_string((const char *)data, size, "fuzz.yaml",
	    &err);
	if (cfg == NULL) {
		FUZZ_CHECK(err.code != HET_OK && err.msg[0] != '\0',
		    "refused without a status and a message");
		return 0;
	}
	FUZZ_CHECK(het_config_validate(cfg, &err) == HET_OK,
	    "a loaded configuration fails het_config_validate");
	roundtrip(cfg, 0);
	roundtrip(cfg, HET_CONFIG_COMMENTS);
	het_config_free(cfg);
	return 0;
}
