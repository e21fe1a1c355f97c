#include "config.h"
#include "cli.h"
static int
inspect_run(const struct cli_cmd *self, int argc, char **argv)
{
	return cli_usage_error(self, "not built yet");
}
const struct cli_cmd cli_cmd_inspect = {
	"inspect", "describe an XPCS result file", "hetui inspect FILE [--json]",
	NULL, inspect_run
};
