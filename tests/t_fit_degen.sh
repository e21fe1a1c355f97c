#!/bin/sh
# t_fit_degen.sh: identifiability in the numbers (issue 17), end to end
# on the demo dataset (data/demo_results.hdf, two_component, 8 angles x
# 300 frames; alpha_ref = 0 in the truth, so D0_ref and D_offset_ref
# trade off along a ridge, and f0 and f2 are exactly degenerate).
# Two fits from different starts (the configured one, and D0_ref
# 18000 / D_offset_ref -8800) reach the same cost with D0_ref 9071 and
# 18001: both flag D0_ref, alpha_ref, D_offset_ref, f0 and f2 as
# degenerate, print a dash instead of an uncertainty, report the
# identifiable combinations D0_ref + D_offset_ref (the two fits agree on
# it within a tenth of its sigma: measured 9233.6 and 9233.4, sigma 72)
# and f0*exp(-f1*f2); --json gives null uncertainties and the
# combinations; nlsq_parameters.json null, nlsq_metadata.json the list
# of degenerate parameters; the HDF5 table NaN (when h5dump is there).
# A well-determined parameter (v0) keeps its number.
. "$top_srcdir/tests/tap.sh"
plan_lazy

dir="$TAP_TMP"
cd "$dir" || exit 1
sed "s#file_path: demo_results.hdf#file_path: $top_srcdir/data/demo_results.hdf#" \
    "$top_srcdir/data/demo.yaml" >a.yaml
sed -e 's/D0_ref: {value: 9000.0/D0_ref: {value: 18000.0/' \
    -e 's/D_offset_ref: {value: 150.0/D_offset_ref: {value: -8800.0/' \
    a.yaml >b.yaml

for s in a b; do
	run_capture "$HETUI" fit -c $s.yaml -o out_$s --threads 1
	is "$RUN_RC" 0 "start $s: the demo fit converges"
	for p in D0_ref alpha_ref D_offset_ref f0 f2; do
		like "$RUN_OUT" "^$p +[-0-9.e+]+   — .* degenerate\$" \
		    "start $s: $p has a dash and the flag degenerate"
	done
	like "$RUN_OUT" "^v0 +[0-9.e+]+ ± [0-9.]+ " \
	    "start $s: v0 keeps its uncertainty"
	unlike "$RUN_OUT" "^v0 .*degenerate" "start $s: v0 is not degenerate"
	unlike "$RUN_OUT" "nan" "start $s: no 'nan' in the table"
	like "$RUN_OUT" "^f0\\*exp\\(-f1\\*f2\\) = 0\\.742[0-9]* ± " \
	    "start $s: the combination f0*exp(-f1*f2) with its sigma"
	like "$RUN_OUT" "^D0_ref \\+ D_offset_ref .* = 92[0-9.]+ ± [0-9.]+\$" \
	    "start $s: the combination D0_ref + D_offset_ref with its sigma"
	like "$RUN_ERR" "D0_ref, alpha_ref and D_offset_ref are not separately identifiable|D0_ref and D_offset_ref are not separately identifiable" \
	    "start $s: a warning names the degenerate reference rate"
	eval "out_$s=\"\$RUN_OUT\""
done
va=$(printf '%s\n' "$out_a" | sed -n 's/^D0_ref + D_offset_ref .* = \([0-9.]*\) ± \([0-9.]*\)$/\1 \2/p')
vb=$(printf '%s\n' "$out_b" | sed -n 's/^D0_ref + D_offset_ref .* = \([0-9.]*\) ± \([0-9.]*\)$/\1 \2/p')
diag "D0_ref + D_offset_ref: start a $va, start b $vb"
d0a=$(printf '%s\n' "$out_a" | sed -n 's/^D0_ref  *\([0-9.]*\) .*/\1/p')
d0b=$(printf '%s\n' "$out_b" | sed -n 's/^D0_ref  *\([0-9.]*\) .*/\1/p')
ok "$(awk -v a="$d0a" -v b="$d0b" 'BEGIN { print (b - a > 5000) ? 0 : 1 }')" \
    "the two starts end far apart in D0_ref ($d0a, $d0b)"
ok "$(awk -v a="$va" -v b="$vb" 'BEGIN { split(a, x, " "); split(b, y, " ");
    d = x[1] - y[1]; if (d < 0) d = -d; print (d < 0.1 * x[2]) ? 0 : 1 }')" \
    "the two starts agree on D0_ref + D_offset_ref within 0.1 sigma"

# --- JSON ------------------------------------------------------------------
run_capture "$HETUI" fit -c a.yaml -o out_j --force --json --threads 1
is "$RUN_RC" 0 "--json: exit 0"
j=$(printf '%s' "$RUN_OUT" | tr -d ' \n')
like "$j" '"uncertainties":\{"D0_ref":null,"alpha_ref":null,"D_offset_ref":null,"D0_sample":[0-9]' \
    "--json: null uncertainties for the degenerate ones, a number for D0_sample"
like "$j" '"degenerate":\["D0_ref","alpha_ref","D_offset_ref","f0","f2"\]' \
    "--json: the degenerate list"
like "$j" '"combinations":\[\{"expression":"f0\*exp\(-f1\*f2\)","value":0\.742[0-9]*,"uncertainty":0\.000[0-9]' \
    "--json: the combination f0*exp(-f1*f2) with value and uncertainty"
p=$(tr -d ' \n' <out_a/nlsq_parameters.json)
like "$p" '"uncertainties":\[null,null,null,[0-9]' \
    "nlsq_parameters.json: null uncertainties"
m=$(tr -d ' \n' <out_a/nlsq_metadata.json)
like "$m" '"degenerate":\["D0_ref","alpha_ref","D_offset_ref","f0","f2"\],"combinations":\[\{"expression"' \
    "nlsq_metadata.json: degenerate list and combinations"
if command -v h5dump >/dev/null 2>&1; then
	h=$(h5dump -d /fit/parameters/uncertainty out_a/hetui_results.h5 | tr -d ' \n')
	like "$h" 'DATA\{\(0\):nan,nan,nan,[0-9]' \
	    "HDF5 /fit/parameters/uncertainty: NaN for the degenerate ones"
	h=$(h5dump -d /fit/parameters/degenerate out_a/hetui_results.h5 | tr -d ' \n')
	like "$h" 'DATA\{\(0\):1,1,1,0,0,0,0,0,0,1,0,1,0' \
	    "HDF5 /fit/parameters/degenerate flags"
	h=$(h5dump -d /fit/combinations/expression out_a/hetui_results.h5)
	like "$h" 'f0\*exp\(-f1\*f2\)' "HDF5 /fit/combinations/expression"
else
	skip 3 "no h5dump"
fi
done_testing
