#!/bin/sh
# t_config.sh: `hetui config`: the template of every analysis mode checks
# clean (exit 0, nothing on stderr), written to a file or piped; the
# configurations in tests/configs are valid; invalid configurations exit 1
# with "hetui config: error: FILE:LINE: key: ..."; unused keys give
# "hetui config: warning: FILE:LINE: ..." and exit 0; usage errors exit 2.
. "$top_srcdir/tests/tap.sh"
plan_lazy

T=$(mktemp -d "${TMPDIR:-/tmp}/t_config.XXXXXX") || exit 1
trap 'rm -rf "$T" "$TAP_TMP"' EXIT

for m in static_ref static_both two_component static laminar_flow; do
	run_capture "$HETUI" config --template "$m"
	is "$RUN_RC" 0 "--template $m exits 0"
	like "$RUN_OUT" "^# hetui configuration, analysis mode $m" \
	    "--template $m starts with its title"
	like "$RUN_OUT" "analysis_mode: $m" "--template $m sets analysis_mode"
	printf '%s\n' "$RUN_OUT" >"$T/$m.yaml"
	run_capture "$HETUI" config --check "$T/$m.yaml"
	is "$RUN_RC" 0 "--check of the $m template exits 0"
	is "$RUN_ERR" "" "--check of the $m template prints no warning"
	like "$RUN_OUT" "^$T/$m.yaml: valid .* configuration; analysis mode $m from analysis_mode \\(line [0-9]+\\); 0 warnings$" \
	    "--check of the $m template says valid"
	"$HETUI" config --template "$m" | "$HETUI" config --check - \
	    >"$T/out" 2>"$T/err"
	is "$?" 0 "--template $m | --check - exits 0"
	is "$(cat "$T/err")" "" "piped $m template: no warning"
done

run_capture "$HETUI" config --template two_component
like "$RUN_OUT" "# Wavevector q \\[1/A\\], > 0" "the template gives q's unit and range"
like "$RUN_OUT" "# D0_ref \\[" "the template explains each parameter"
like "$RUN_OUT" "# Fraction of shards that must succeed, in \\(0, 1\\]" \
    "the template gives probability ranges"
run_capture "$HETUI" config --template laminar_flow
like "$RUN_OUT" "type: TruncatedNormal" "homodyne template in homodyne style"
like "$RUN_OUT" "  directory: \"./results\"" "homodyne output key"

for f in het_full het_legacy hom_static hom_laminar; do
	run_capture "$HETUI" config --check "$top_srcdir/tests/configs/$f.yaml"
	is "$RUN_RC" 0 "tests/configs/$f.yaml is valid"
done
run_capture "$HETUI" config --check "$top_srcdir/tests/configs/het_full.yaml"
like "$RUN_ERR" "^hetui config: warning: $top_srcdir/tests/configs/het_full.yaml:11: experimental_data.cache_compression: not used by hetui" \
    "an unused key is a warning with file, line and key"
is "$(printf '%s\n' "$RUN_ERR" | wc -l | tr -d ' ')" 3 \
    "one line per top-level section (optimization's two keys share one)"

# -v: the detail, every unused key with its line, on standard output.
run_capture "$HETUI" config --check "$top_srcdir/tests/configs/het_full.yaml" -v
is "$RUN_RC" 0 "--check FILE -v: exit 0"
like "$RUN_OUT" "het_full.yaml: 4 keys not used by hetui:" "-v counts the keys"
like "$RUN_OUT" "het_full.yaml:120: optimization.nlsq.enable_cmaes: not used by hetui" \
    "-v names the grouped key with its own line"
run_capture "$HETUI" config -v --template static
is "$RUN_RC" 2 "-v without --check: usage error"
like "$RUN_ERR" "-v goes with --check FILE" "... which says so"

# Many unused keys of one section: one line, the count and their names;
# a key that changes the reference's results gets a line of its own.
cat >"$T/many.yaml" <<'EOF_YAML'
analysis_mode: static
experimental_data:
  file_path: data.h5
optimization:
  nlsq:
    verbose: true
    workflow: auto
    goal: robust
    enable_cmaes: true
  cmc:
    prior_tempering: false
    run_id: 7
logging:
  level: INFO
plotting:
  dpi: 300
EOF_YAML
run_capture "$HETUI" config --check "$T/many.yaml"
is "$RUN_RC" 0 "many unused keys: still valid"
is "$(printf '%s\n' "$RUN_ERR" | wc -l | tr -d ' ')" 4 \
    "grouped: optimization, the top-level sections, and the two that change results"
like "$RUN_ERR" "many.yaml:6: optimization: 4 keys not used by hetui: nlsq.verbose, nlsq.workflow, nlsq.goal, cmc.run_id;" \
    "one line for optimization's plain unused keys"
like "$RUN_ERR" "many.yaml:13: 2 top-level sections and keys not used by hetui: logging \\(section: hetui keeps its own session log\\), plotting \\(section: hetui draws its own views\\);" \
    "one line for the unused top-level sections, with why"
like "$RUN_ERR" "many.yaml:9: optimization.nlsq.enable_cmaes: true is not used by hetui, and it changes results: the reference then fits by a CMA-ES global search" \
    "enable_cmaes: true gets its own warning"
like "$RUN_ERR" "many.yaml:11: optimization.cmc.prior_tempering: false is not used by hetui, and it changes results: the homodyne reference" \
    "prior_tempering: false (homodyne) gets its own warning"
sed 's/enable_cmaes: true/enable_cmaes: false/' "$T/many.yaml" >"$T/many2.yaml"
run_capture "$HETUI" config --check "$T/many2.yaml"
unlike "$RUN_ERR" "changes results: the reference then fits by a CMA-ES" \
    "enable_cmaes: false changes nothing: grouped"
like "$RUN_ERR" "optimization: 5 keys not used by hetui: .*nlsq.enable_cmaes" \
    "... with optimization's other keys"

# Invalid configurations: exit 1, one error line naming file, line and key.
check_bad() {
	printf '%s\n' "$2" >"$T/bad.yaml"
	run_capture "$HETUI" config --check "$T/bad.yaml"
	is "$RUN_RC" 1 "$1 exits 1"
	is "$RUN_ERR" "hetui config: error: $T/bad.yaml:$3" "$1: message"
}
check_bad "unknown mode" "analysis_mode: couette" \
    "1: analysis_mode: unknown analysis mode 'couette'; heterodyne modes are static_ref, static_both and two_component, homodyne modes are static (alias static_isotropic, static_anisotropic) and laminar_flow"
check_bad "lower >= upper" "parameters:
  velocity:
    v_offset: {min: 10, max: -10}" \
    "3: parameters.velocity.v_offset.min: lower bound 10 is not below upper bound -10 of v_offset; choose min < max"
check_bad "value outside bounds" "analysis_mode: laminar_flow
initial_parameters:
  parameter_names: [gamma_dot_t0]
  values: [0.9]" \
    "4: initial_parameters.values[0]: value 0.9 is outside the bounds [1e-06, 0.5] of gamma_dot_t0; choose a value inside them or widen min/max"
check_bad "unknown prior type" "parameters:
  angle:
    phi0:
      prior: student_t" \
    "4: parameters.angle.phi0.prior: unknown prior type 'student_t'; allowed: uniform, normal, truncated_normal, lognormal, halfnormal, exponential, beta_scaled"
check_bad "wrong type" "analyzer_parameters:
  end_frame: last" \
    "2: analyzer_parameters.end_frame: expected a number, found 'last'"
check_bad "malformed YAML" "analysis_mode: static
  dt: 0.1" \
    "2: malformed YAML: mapping values are not allowed in this context; fix the indentation or quoting there"
run_capture "$HETUI" config --check "$T/missing.yaml"
is "$RUN_RC" 1 "a missing file exits 1"
is "$RUN_ERR" "hetui config: error: $T/missing.yaml: cannot open the configuration: No such file or directory" \
    "a missing file is named"

# Usage errors: exit 2 with the usage line.
run_capture "$HETUI" config
is "$RUN_RC" 2 "no option exits 2"
like "$RUN_ERR" "^hetui config: give exactly one of --template MODE and --check FILE" \
    "and says what is missing"
like "$RUN_ERR" "usage: hetui config --template MODE \\| --check FILE" "followed by the usage"
run_capture "$HETUI" config --template static --check "$T/static.yaml"
is "$RUN_RC" 2 "both options exit 2"
run_capture "$HETUI" config --template
is "$RUN_RC" 2 "--template without MODE exits 2"
like "$RUN_ERR" "option '--template' needs a value" "and names the option"
run_capture "$HETUI" config --template shear
is "$RUN_RC" 2 "an unknown MODE exits 2"
like "$RUN_ERR" "^hetui config: unknown analysis mode 'shear'" "and names it"
run_capture "$HETUI" config --frobnicate
is "$RUN_RC" 2 "an unknown option exits 2"
like "$RUN_ERR" "unknown option '--frobnicate'" "and names it"
run_capture "$HETUI" config --check "$T/static.yaml" extra
is "$RUN_RC" 2 "an extra argument exits 2"
like "$RUN_ERR" "unexpected argument 'extra'" "and names it"

run_capture "$HETUI" help config
is "$RUN_RC" 0 "help config exits 0"
like "$RUN_OUT" "usage: hetui config --template MODE" "help config shows the usage"
run_capture "$HETUI" config --help
is "$RUN_RC" 0 "config --help exits 0"

done_testing
