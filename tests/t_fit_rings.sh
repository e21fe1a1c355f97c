#!/bin/sh
# t_fit_rings.sh: `hetui fit --all-rings` end to end on a three-ring file
# written by `hetui simulate --q` from tests/configs/rings_truth.yaml
# (homodyne static, D0 = 12000 constant in q, 2 angles, 50 frames, noise
# 0.003, seed 11) and fitted from tests/configs/rings_start.yaml (D0
# started at half the truth).  Checks: every ring converges and recovers
# D0 within 4 of its standard errors; the power-law slope of D0 against
# q is 0 within 4 of its standard errors and that of the rate D0 q^2 is 2;
# rings.csv has the documented columns and one row per ring; rings.h5 and
# one results folder per ring exist, no temporary file is left; --json;
# ASCII and UTF-8 output by locale; --per-angle is a usage error; a ring
# whose folder holds another run's results fails alone (exit 1), a batch
# stopped by max_nfev exits 3, a batch folder with a summary is never
# replaced, and SIGINT keeps and summarises what finished (exit 130).
#
# Margins: the data are fixed (simulate --seed 11, the same bytes on
# every run) and each fit is deterministic, so another CPU moves the
# numbers by rounding only.  The asserted bounds are what the statistics
# guarantee for any seed: an estimate within 4 standard errors of the
# truth (z = 1.0, 1.4, 1.2 here), a slope within 4 of its standard error
# of 0 (0.0039 +- 0.0099 here).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/batch_data.sh"
plan_lazy

dir="$TAP_TMP"
cd "$dir" || exit 1
batch_configs && batch_rings
is "$?" 0 "simulate three rings"

# --- every ring converges --------------------------------------------------------
run_capture env LC_ALL=C "$HETUI" fit -c rings_start.yaml --all-rings
is "$RUN_RC" 0 "--all-rings: every ring converged, exit 0"
like "$RUN_OUT" "^hetui fit --all-rings: static, 3 of 3 rings of rings.h5" \
    "summary header: mode, rings, file"
for r in 1 2 3; do
	like "$RUN_OUT" "^ +$r +0\\.[0-9]+ +converged +[0-9.]+ +[0-9.]+ \\+- " \
	    "table row of ring $r: q, converged, chi2_red, D0 +- uncertainty"
	like "$RUN_ERR" "^ring $r/3: q 0\\.[0-9]+ 1/A into " "stderr: ring $r starts"
done
like "$RUN_OUT" "q \\[1/A\\], log" "ASCII locale: a plain axis label"
unlike "$RUN_OUT" "±" "ASCII locale: no UTF-8 symbol"
slope=$(printf '%s\n' "$RUN_OUT" | sed -n 's/^D0 against q (3 converged rings): power-law slope \([-0-9.e+]*\) +- \([0-9.e+-]*\)$/\1 \2/p')
like "$slope" "^[-0-9.e+]+ [0-9.e+-]+$" "D0 against q: a slope with its standard error ($slope)"
ok "$(echo "$slope" | awk '{ s = $1 < 0 ? -$1 : $1; exit !(s < 4 * $2 && $2 > 0 && $2 < 0.05) }'; echo $?)" \
    "D0 is constant in q: slope 0 within 4 standard errors"
rate=$(printf '%s\n' "$RUN_OUT" | sed -n 's/^  rate Gamma = D0 q^2: power-law slope \([-0-9.e+]*\) +- \([0-9.e+-]*\)$/\1 \2/p')
ok "$(echo "$rate" | awk '{ d = $1 - 2; d = d < 0 ? -d : d; exit !(d < 4 * $2) }'; echo $?)" \
    "the rate D0 q^2 grows as q^2: slope 2 within 4 standard errors ($rate)"
fo=$(printf '%s\n' "$RUN_OUT" | sed -n 's#^results written to \(.*\)/ (.*#\1#p')
like "$fo" '^rings_out/rings/rings-[0-9]{8}-[0-9]{6}$' "the batch folder: output_dir/<stem>/rings-<UTC time>"

# --- the files --------------------------------------------------------------------
csv="$fo/rings.csv"
is "$(head -1 "$csv" | tr -d '\r')" \
    "ring,q,q2,status,chi2_red,D0,D0_unc,contrast[0],contrast[0]_unc,contrast[1],contrast[1]_unc,offset[0],offset[0]_unc,offset[1],offset[1]_unc,alpha,alpha_unc,D_offset,D_offset_unc,run_dir,message" \
    "rings.csv: the documented columns"
is "$(wc -l <"$csv" | tr -d ' ')" 4 "rings.csv: a header and 3 rows"
is "$(csv_col "$csv" status | tr '\n' ' ')" "converged converged converged " "rings.csv: every status"
is "$(csv_col "$csv" ring | tr '\n' ' ')" "1 2 3 " "rings.csv: the rings"
is "$(csv_col "$csv" q | tr '\n' ' ')" "0.005 0.0075 0.011 " "rings.csv: q as the file stores it"
csv_col "$csv" D0 >d0
csv_col "$csv" D0_unc >d0u
z=$(paste -d' ' d0 d0u)
ok "$(echo "$z" | awk 'NF == 2 { d = $1 - 12000; d = d < 0 ? -d : d; if (!(d < 4 * $2 && $2 > 0)) bad = 1; n++ }
    END { exit !(n == 3 && !bad) }'; echo $?)" "D0 within 4 standard errors of 12000 in every ring"
is "$(csv_col "$csv" alpha_unc | tr '\n' ' ')" "   " "a fixed parameter: its value, an empty uncertainty"
ok "$([ -f "$fo/rings.h5" ]; echo $?)" "rings.h5 in the batch folder"
n=0
for d in "$fo"/ring0[1-3]-q*; do
	[ -f "$d/hetui_results.h5" ] && [ -f "$d/nlsq_parameters.json" ] &&
	    n=$((n + 1))
done
is "$n" 3 "one results folder per ring, with its results"
is "$(csv_col "$csv" run_dir | head -1)" "$fo/ring01-q0.005" "rings.csv: run_dir of ring 1"
unlike "$(ls -aR "$fo")" "tmp" "no temporary file left"
if command -v h5dump >/dev/null 2>&1; then
	like "$(h5dump -d /status "$fo/rings.h5")" '"converged", "converged", "converged"' \
	    "rings.h5: the status dataset"
	like "$(h5dump -H -d /values "$fo/rings.h5")" \
	    "DATASPACE +SIMPLE \\{ \\( 3, 7 \\)" \
	    "rings.h5: values, 3 rings x 7 parameters (as the CSV)"
else
	skip 2 "h5dump not found"
fi

# --- UTF-8 and JSON -----------------------------------------------------------------
run_capture env LC_ALL=C.UTF-8 "$HETUI" fit -c rings_start.yaml --all-rings -o utf
if printf '%s' "$RUN_OUT" | grep -q 'Å⁻¹'; then
	like "$RUN_OUT" "converged +[0-9.]+ +[0-9.]+ ± " "UTF-8 locale: ± in the table"
else
	skip 1 "no C.UTF-8 locale"
fi
run_capture "$HETUI" fit -c rings_start.yaml --all-rings --json -o js
is "$RUN_RC" 0 "--json: exit 0"
j=$(printf '%s' "$RUN_OUT" | tr -d ' \n')
like "$j" '^\{"status":"converged","analysis_mode":"static","file":"rings.h5","batch_dir":"js","n_rings":3,"n_fitted":3,"rings":\[' \
    "--json: status, mode, file, batch folder, counts"
like "$j" '"slopes":\{"D0":\{"slope":[-0-9.e]+,"uncertainty":[0-9.e-]+,"n_rings":3,"rate_slope":[0-9.e-]+\}\}' \
    "--json: the slope of D0 and of its rate"
like "$j" '"uncertainties":\{"D0":[0-9.]+,.*"alpha":null' "--json: null where no uncertainty"

# --- usage and failures ---------------------------------------------------------------
run_capture "$HETUI" fit -c rings_start.yaml --all-rings --per-angle
is "$RUN_RC" 2 "--all-rings --per-angle: usage error"
like "$RUN_ERR" "--per-angle cannot be combined with it" "and says why"
run_capture "$HETUI" fit -c rings_start.yaml --all-rings -o js
is "$RUN_RC" 1 "-o into a batch folder with a summary: refused"
like "$RUN_ERR" "js holds the results of another run \\((rings.h5, rings.csv|rings.csv, rings.h5)\\)" \
    "naming the summary files"

# A ring whose folder holds another run's results fails alone.
mkdir -p fail/ring02-q0.0075
echo "a user's file" >fail/ring02-q0.0075/hetui_results.h5
run_capture "$HETUI" fit -c rings_start.yaml --all-rings -o fail
is "$RUN_RC" 1 "a failed ring: exit 1"
is "$(csv_col fail/rings.csv status | tr '\n' ' ')" "converged failed converged " \
    "the batch goes on: rings 1 and 3 converged, ring 2 failed"
like "$(csv_col fail/rings.csv message | sed -n 2p)" "holds the results of another run" \
    "the failed ring's row says why"
is "$(cat fail/ring02-q0.0075/hetui_results.h5)" "a user's file" "the user's file is untouched"
like "$RUN_ERR" "ring 2 \\(q 0.0075\\) failed: " "stderr names the failed ring"
like "$RUN_OUT" "^ +2 +0\\.0075 +failed +- +-" "the table shows the failed ring"

# max_nfev 2: no ring converges, exit 3, no slope.
sed 's/    loss: linear/    loss: linear\n    max_nfev: 2/' rings_start.yaml >rings_nfev.yaml
run_capture "$HETUI" fit -c rings_nfev.yaml --all-rings -o nfev
is "$RUN_RC" 3 "max_nfev 2: exit 3 (not converged)"
is "$(csv_col nfev/rings.csv status | tr '\n' ' ')" "not_converged not_converged not_converged " \
    "every ring's row says not_converged"
like "$RUN_OUT" "D0 against q \\(0 converged rings\\): no power-law slope" \
    "no slope from rings that did not converge"

# --- cancellation -----------------------------------------------------------------------
batch_slow
"$HETUI" fit -c big_start.yaml big.h5 --all-rings -o bigc --threads 1 \
    >big.out 2>big.err &
interrupt_after $! big.err
rc=$INT_RC
if grep -q 'cancelled; the 1 finished ring is summarised' big.err; then
	is "$rc" 130 "SIGINT during ring 1: exit 130"
	is "$(csv_col bigc/rings.csv status | tr '\n' ' ')" "cancelled " \
	    "the summary holds the cancelled ring's partial result"
	ok "$([ -f bigc/ring01-q0.01/nlsq_metadata.json ] && [ ! -e bigc/ring02-q0.012 ]; echo $?)" \
	    "ring 1's partial result is kept; ring 2 was not started"
else
	skip 3 "the fit ended (rc $rc) before SIGINT arrived"
fi

done_testing
