#!/bin/sh
# t_npy.sh: NumPy .npy input from the command line, on the measured CHX
# matrix of tests/shared (350 x 350 float64, full, no metadata; its
# SOURCES.md: baseline about 1.025, contrast 0.06-0.07): hetui inspect
# refuses it without q and angles and says where to give them, reads it
# with --q/--phi/--dt or with a sidecar NAME.yaml, and hetui fit fits it
# from a configuration that gives q, the angle and dt (homodyne static),
# landing on the baseline and contrast the file's lag means show.
. "$top_srcdir/tests/tap.sh"
plan_lazy

src="$HETUI_SHARED/data/real/bnl_chx_example_2tcf_350x350_f8.npy"
[ -r "$src" ] || skip_all "the CHX matrix is absent ($src)"
dir="$TAP_TMP"
cp "$src" "$dir/chx.npy"
cd "$dir" || exit 1

run_capture "$HETUI" inspect chx.npy
is "$RUN_RC" 1 "inspect without q or angles: exit 1"
like "$RUN_ERR" "^hetui inspect: error: chx.npy: a .npy file holds no q: give it with --q, in the configuration \\(analyzer_parameters.scattering.wavevector_q\\), or as q: in a sidecar chx.yaml beside the file" \
    "... says where to give q"
run_capture env LC_ALL=C "$HETUI" inspect chx.npy --q 0.005 --phi 0 --dt 0.5
is "$RUN_RC" 0 "inspect --q --phi --dt: exit 0"
like "$RUN_OUT" "  layout     NumPy .npy" "... layout NumPy .npy"
like "$RUN_OUT" "  frames     350 x 350" "... 350 frames"
like "$RUN_OUT" "  dt         0.5 s  --q/--phi/--dt: dt" "... dt from --dt"
run_capture "$HETUI" inspect chx.npy --q 0.005 --phi 0,10
is "$RUN_RC" 1 "two angles for one matrix: exit 1"
like "$RUN_ERR" "gives 2 angles for the file's 1 matrix" "... says so"
run_capture "$HETUI" inspect chx.npy --phi zero
is "$RUN_RC" 2 "--phi zero: usage error"
like "$RUN_ERR" "--phi takes angles in degrees separated by commas" \
    "... says what --phi takes"

printf 'q: 0.005\nphi: 0\ncomment: BNL CHX example, frame units\n' > chx.yaml
run_capture "$HETUI" inspect --json chx.npy
is "$RUN_RC" 0 "inspect with a sidecar chx.yaml: exit 0"
like "$RUN_OUT" '"layout": "npy"' "... JSON layout npy"
like "$RUN_OUT" '"dt_source": "none"' "... no dt: none"
rm chx.yaml

"$HETUI" config --template static > chx_static.yaml
sed -i 's|  file_path: ""|  file_path: "chx.npy"|; s|  dt: null|  dt: 1.0|;
    s|    wavevector_q: null|    wavevector_q: 0.005|;
    s|    phi_angles: null|    phi_angles: [0]|' chx_static.yaml
run_capture "$HETUI" fit -c chx_static.yaml -o fit
is "$RUN_RC" 0 "fit the .npy from a configuration with q, phi and dt: exit 0"
like "$RUN_OUT" "^hetui fit: static, 1 angle, q 0.005 1/A, frames 1..350, 61075 pairs" \
    "... all 350 frames, one angle"
c=$(printf '%s\n' "$RUN_OUT" | awk '$1 == "contrast[0]" {print $2}')
o=$(printf '%s\n' "$RUN_OUT" | awk '$1 == "offset[0]" {print $2}')
ok "$(awk -v c="$c" 'BEGIN {exit !(c > 0.05 && c < 0.07)}'; echo $?)" \
    "contrast $c between 0.05 and 0.07"
ok "$(awk -v o="$o" 'BEGIN {exit !(o > 1.02 && o < 1.035)}'; echo $?)" \
    "baseline $o between 1.02 and 1.035"
ok "$([ -f fit/hetui_results.h5 ]; echo $?)" "results written"
done_testing
