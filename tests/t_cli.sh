#!/bin/sh
# t_cli.sh: the command-line contract: --version, --help, help SUBCOMMAND,
# unknown options and subcommands (exit 2 with a one-line error and the
# usage), and the worker's start-up handshake.
. "$top_srcdir/tests/tap.sh"
plan_lazy

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$top_builddir/config.h")

run_capture "$HETUI" --version
is "$RUN_RC" 0 "--version exits 0"
is "$RUN_OUT" "hetui $version" "--version prints the configured version"

run_capture "$HETUI" --help
is "$RUN_RC" 0 "--help exits 0"
like "$RUN_OUT" '^usage: hetui' "--help starts with usage"
for sub in inspect config simulate help; do
	like "$RUN_OUT" "  $sub " "--help lists '$sub'"
done

run_capture "$HETUI" help inspect
is "$RUN_RC" 0 "help inspect exits 0"
like "$RUN_OUT" 'usage: hetui inspect FILE' "help inspect shows its usage"

run_capture "$HETUI" help frobnicate
is "$RUN_RC" 2 "help of an unknown subcommand exits 2"
like "$RUN_ERR" "unknown subcommand 'frobnicate'" "and names it"

run_capture "$HETUI" --frobnicate
is "$RUN_RC" 2 "unknown option exits 2"
like "$RUN_ERR" "^hetui: unknown option '--frobnicate'" "one-line error names the option"
like "$RUN_ERR" 'usage: hetui' "followed by the usage"

run_capture "$HETUI" frobnicate
is "$RUN_RC" 2 "unknown subcommand exits 2"
like "$RUN_ERR" "unknown subcommand 'frobnicate'" "and is named"

run_capture "$HETUI" inspect --frobnicate
is "$RUN_RC" 2 "unknown subcommand option exits 2"
like "$RUN_ERR" "^hetui inspect: " "error names the subcommand"

run_capture "$HETUI" -c
is "$RUN_RC" 2 "missing option value exits 2"
like "$RUN_ERR" "option '-c' needs a value" "and says which option"

run_capture "$HETUI_WORKER" --version
is "$RUN_RC" 0 "worker --version exits 0"
like "$RUN_OUT" "hetui-worker $version \\(wire protocol [0-9]+\\)" "worker names its protocol version"
out=$(printf '' | "$HETUI_WORKER")
is "$?" 0 "worker exits 0 when its stdin closes"
like "$out" '^hello hetui-wire [0-9]+$' "worker's first line is the versioned hello"

done_testing
