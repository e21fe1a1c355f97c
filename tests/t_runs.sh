#!/bin/sh
# t_runs.sh: nothing overwritten, nothing lost: every `hetui fit` and
# `hetui sample` run gets its own folder OUTPUT_DIR/<data stem>/
# <fit|sample>-<UTC time>[-N] (issue 19).  On the data of
# tests/configs/sample_truth.yaml with tests/configs/sample_run.yaml at
# its default output settings: two fits and a sampling run in one session
# land in three folders, each with its own files, the first fit's files
# untouched by the later runs; --nlsq-result takes a run folder; two fits
# started together get distinct folders; -o onto a folder holding results
# is refused with a message naming --force (exit 1, files untouched) and
# accepted with --force, for fit and sample; a run that fails writes no
# folder; output.create_subdirs / timestamp_dirs false write into
# output_dir itself, create_subdirs alone into <stem>/<analysis>/, and
# neither key is reported as "not used".
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"
plan_lazy

sample_setup t_runs
# the default output settings: run folders under res/
sed -e '/create_subdirs: false/d' -e '/timestamp_dirs: false/d' \
    -e '/The sampling tests read/d' -e '/(the reference packages. way)/d' \
    sample_run.yaml >runs.yaml
unlike "$(cat runs.yaml)" "create_subdirs|timestamp_dirs" "runs.yaml: default output keys"

run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the test data"

# written_dir: the folder of "results written to DIR/ (...)" in $RUN_OUT
written_dir() {
	printf '%s\n' "$RUN_OUT" | sed -n 's#^results written to \(.*\)/ (.*#\1#p'
}

# --- two fits and a sampling run in one session ---------------------------------
run_capture "$HETUI" fit -c runs.yaml
is "$RUN_RC" 0 "fit 1: exit 0"
f1=$(written_dir)
like "$f1" '^res/sim/fit-[0-9]{8}-[0-9]{6}(-[0-9]+)?$' "fit 1: res/sim/fit-<UTC time>"
now=$(date -u +%Y%m%d-%H%M)
like "$f1" "fit-$now|fit-$(date -u -d '1 minute ago' +%Y%m%d-%H%M)" "the time is UTC"
sum1=$(cksum "$f1/hetui_results.h5" "$f1/nlsq_parameters.json")
run_capture "$HETUI" fit -c runs.yaml
is "$RUN_RC" 0 "fit 2: exit 0"
f2=$(written_dir)
like "$f2" '^res/sim/fit-[0-9]{8}-[0-9]{6}(-[0-9]+)?$' "fit 2: its own folder"
ok "$([ "$f1" != "$f2" ]; echo $?)" "fit 2 is not in fit 1's folder ($f1, $f2)"
run_capture "$HETUI" sample -c runs.yaml --workers 2
is "$RUN_RC" 0 "sampling run: exit 0"
s1=$(written_dir)
like "$s1" '^res/sim/sample-[0-9]{8}-[0-9]{6}(-[0-9]+)?$' "sampling: res/sim/sample-<UTC time>"
for d in "$f1" "$f2"; do
	ok "$([ -s "$d/hetui_results.h5" ] && [ -s "$d/nlsq_parameters.json" ] && \
	    [ -s "$d/nlsq_metadata.json" ]; echo $?)" "$d: the fit's three files"
done
ok "$([ -s "$s1/hetui_results.h5" ] && [ -s "$s1/cmc_summary.json" ] && \
    [ -s "$s1/cmc_diagnostics.json" ] && [ -s "$s1/nlsq_parameters.json" ]; echo $?)" \
    "$s1: the sampling run's files"
is "$(cksum "$f1/hetui_results.h5" "$f1/nlsq_parameters.json")" "$sum1" \
    "fit 1's files are untouched by the later runs"
is "$(ls res/sim | wc -l | tr -d ' ')" 3 "three run folders, nothing else"
ok "$([ ! -e res/hetui_results.h5 ]; echo $?)" "nothing written into output_dir itself"

# --- --nlsq-result and --resume take run folders ------------------------------------
run_capture "$HETUI" sample -c runs.yaml --workers 2 --nlsq-result "$f1"
is "$RUN_RC" 0 "--nlsq-result RUN_FOLDER: exit 0"
s2=$(written_dir)
like "$s2" '^res/sim/sample-' "... into a new run folder"
ok "$([ "$s2" != "$s1" ] && [ "$s2" != "$f1" ]; echo $?)" "... not the fit's or the other run's"
is "$(cksum "$f1/hetui_results.h5" "$f1/nlsq_parameters.json")" "$sum1" \
    "... and the fit it started from is untouched"
run_capture "$HETUI" sample -c runs.yaml --workers 2 --resume "$s1"
is "$RUN_RC" 0 "--resume RUN_FOLDER: exit 0"
is "$(written_dir)" "$s1" "--resume writes into the run's own folder, as before"
like "$RUN_ERR" "reus|resum" "... reusing its shards"

# --- two runs at once -------------------------------------------------------------
"$HETUI" fit -c runs.yaml >p1.out 2>p1.err &
p1=$!
"$HETUI" fit -c runs.yaml >p2.out 2>p2.err &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
is "$r1$r2" 00 "two fits started together: both exit 0"
RUN_OUT=$(cat p1.out); c1=$(written_dir)
RUN_OUT=$(cat p2.out); c2=$(written_dir)
ok "$([ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ]; echo $?)" \
    "... in distinct folders ($c1, $c2)"
if [ "${c1%-[0-9]}" = "${c2%-[0-9]}" ] || [ "$c1" = "${c2%-2}" ] || [ "$c2" = "${c1%-2}" ]; then
	ok 0 "... the same second: one of them took -2"
else
	ok 0 "... (started in different seconds; t_core_rundir tests the same second)"
fi
ok "$([ -s "$c1/hetui_results.h5" ] && [ -s "$c2/hetui_results.h5" ]; echo $?)" \
    "... each with its results"

# --- -o DIR is exact, and never replaces another run's results ---------------------
sum2=$(cksum "$f2/hetui_results.h5")
run_capture "$HETUI" fit -c runs.yaml -o "$f2"
is "$RUN_RC" 1 "fit -o onto a run's folder: exit 1"
like "$RUN_ERR" "^hetui fit: error: $f2 holds the results of another run \\(.*hetui_results.h5.*\\); they are not replaced: give --force to replace them, or leave -o out for a new run folder$" \
    "... the message names the folder, its files and --force"
is "$(cksum "$f2/hetui_results.h5")" "$sum2" "... and the files are untouched"
run_capture "$HETUI" fit -c runs.yaml -o "$f2" --force
is "$RUN_RC" 0 "fit -o onto a run's folder --force: exit 0"
is "$(written_dir)" "$f2" "... exactly into -o DIR"
ok "$([ "$(cksum "$f2/hetui_results.h5")" != "$sum2" ]; echo $?)" "... replacing the results"
run_capture "$HETUI" fit -c runs.yaml -o exact/place
is "$RUN_RC" 0 "fit -o a new folder: exit 0"
is "$(written_dir)" "exact/place" "... exactly there, no run folder below"
ok "$([ -s exact/place/hetui_results.h5 ]; echo $?)" "... with the results"
mkdir other && echo notes >other/README
run_capture "$HETUI" fit -c runs.yaml -o other
is "$RUN_RC" 0 "-o onto a folder with other files: accepted"
sums=$(cksum "$s1/cmc_summary.json")
run_capture "$HETUI" sample -c runs.yaml --workers 2 -o "$s1"
is "$RUN_RC" 1 "sample -o onto a sampling run's folder: exit 1"
like "$RUN_ERR" "^hetui sample: error: $s1 holds the results of another run .*give --force" \
    "... naming --force"
is "$(cksum "$s1/cmc_summary.json")" "$sums" "... the posterior is untouched"
run_capture "$HETUI" sample -c runs.yaml --workers 2 -o "$f1"
is "$RUN_RC" 1 "sample -o onto a fit's folder: refused too"
run_capture "$HETUI" sample -c runs.yaml --workers 2 -o "$s1" --force
is "$RUN_RC" 0 "sample -o onto it --force: exit 0"
is "$(written_dir)" "$s1" "... exactly into -o DIR"
run_capture "$HETUI" fit --help
like "$RUN_OUT" "--force +let -o DIR replace the results of another run" "fit --help: --force"
run_capture "$HETUI" sample --help
like "$RUN_OUT" "--force +let -o DIR replace another run's results" "sample --help: --force"

# --- a run that fails leaves no folder ----------------------------------------------
before=$(ls res/sim | wc -l | tr -d ' ')
run_capture "$HETUI" fit -c runs.yaml missing.h5
is "$RUN_RC" 1 "fit of a missing file: exit 1"
ok "$([ ! -e res/missing ] || [ -z "$(ls -A res/missing)" ]; echo $?)" \
    "... no run folder left for it"
run_capture "$HETUI" sample -c runs.yaml --workers 2 missing.h5
is "$RUN_RC" 1 "sample of a missing file: exit 1"
ok "$([ ! -e res/missing ] || [ -z "$(ls -A res/missing)" ]; echo $?)" \
    "... no run folder left for it"
is "$(ls res/sim | wc -l | tr -d ' ')" "$before" "... and none for the data file"

# --- a compact results file ------------------------------------------------------
# 300 frames x 8 angles of float32 data (LZF, as beamline files): the
# fitted and residual matrices as float32 upper triangles, shuffled and
# gzip-compressed (they read back to the model within float32 rounding:
# t_engine_fitjob, t_core_results_mat).
cat >big.yaml <<'YAML'
analysis_mode: static_ref
experimental_data:
  file_path: big.h5
analyzer_parameters:
  dt: 0.1
  end_frame: 300
  scattering: {wavevector_q: 0.01, phi_angles: [0.0, 22.5, 45.0, 67.5, 90.0, 112.5, 135.0, 157.5]}
parameters:
  reference:
    D0_ref: {value: 5000.0}
    alpha_ref: {value: 0.3}
    D_offset_ref: {value: 0.0, vary: false}
output:
  output_dir: big_out
YAML
run_capture "$HETUI" simulate -q -c big.yaml -o big.h5 --noise 0.003 --seed 3 --float32 --lzf
is "$RUN_RC" 0 "simulate 300 frames x 8 angles, float32, LZF"
run_capture "$HETUI" fit -c big.yaml
is "$RUN_RC" 0 "fit it: exit 0"
bd=$(written_dir)
dsz=$(wc -c <big.h5 | tr -d ' ')
rsz=$(wc -c <"$bd/hetui_results.h5" | tr -d ' ')
ok "$([ "$rsz" -lt $((3 * dsz)) ]; echo $?)" \
    "hetui_results.h5 ($rsz bytes) is below 3x the data file ($dsz bytes)"
if command -v h5dump >/dev/null 2>&1; then
	hd=$(h5dump -p -H -d /fit/c2_fitted/angle_007 "$bd/hetui_results.h5")
	like "$hd" "H5T_IEEE_F32LE" "fitted matrix: float32 like the data"
	like "$hd" "SIMPLE \\{ \\( 45150 \\)" "... the upper triangle with the diagonal (300 x 301 / 2)"
	like "$hd" "PREPROCESSING SHUFFLE" "... shuffled"
	like "$hd" "COMPRESSION DEFLATE \\{ LEVEL 4 \\}" "... gzip-compressed"
	like "$(h5dump -a /fit/c2_fitted/angle_007/storage "$bd/hetui_results.h5")" \
	    '"upper_triangle_with_diagonal"' "... its storage attribute says so"
	like "$(h5dump -p -H -d /fit/residuals/angle_000 "$bd/hetui_results.h5")" \
	    "SIMPLE \\{ \\( 44850 \\)" "residual: the upper triangle without the diagonal"
	like "$(h5dump -a /format_version "$bd/hetui_results.h5")" "\\(0\\): 2" "format_version 2"
else
	skip 7 "h5dump not found"
fi

# --- the output keys ------------------------------------------------------------------
printf '  create_subdirs: false\n  timestamp_dirs: false\n' >>runs.yaml
sed -i 's/output_dir: res$/output_dir: flat/' runs.yaml
run_capture "$HETUI" config --check runs.yaml
is "$RUN_RC" 0 "config --check with both keys: exit 0"
unlike "$RUN_OUT$RUN_ERR" "create_subdirs|timestamp_dirs" "... neither reported as not used"
run_capture "$HETUI" fit -c runs.yaml
is "$(written_dir)" "flat" "both false: straight into output_dir (the old behaviour)"
sed -i 's/output_dir: flat$/output_dir: per/; s/create_subdirs: false/create_subdirs: true/' runs.yaml
run_capture "$HETUI" fit -c runs.yaml
is "$(written_dir)" "per/sim/fit" "create_subdirs alone: output_dir/<stem>/fit"
sed -i 's/create_subdirs: true/create_subdirs: false/; s/timestamp_dirs: false/timestamp_dirs: true/' runs.yaml
run_capture "$HETUI" fit -c runs.yaml
like "$(written_dir)" '^per/fit-[0-9]{8}-[0-9]{6}$' "timestamp_dirs alone: output_dir/fit-<time>"
sed -i 's/timestamp_dirs: true/timestamp_dirs: maybe/' runs.yaml
run_capture "$HETUI" fit -c runs.yaml
is "$RUN_RC" 1 "timestamp_dirs: maybe: exit 1"
like "$RUN_ERR" "output.timestamp_dirs" "... naming the key"
run_capture "$HETUI" config --template static_ref
like "$RUN_OUT" "create_subdirs: true" "the template writes create_subdirs"
like "$RUN_OUT" "timestamp_dirs: true" "... and timestamp_dirs"

done_testing
