#!/bin/sh
# t_fit_series.sh: `hetui fit --series` end to end on five files written
# by `hetui simulate` from tests/configs/rings_truth.yaml with D0 drifting
# linearly, 11500 + 1500 (i - 1) for file i (homodyne static, one ring at
# q 0.0075, 2 angles, 50 frames, noise 0.003, seeds 21-25), their
# modification times set in the measurement order (touch -d), named in
# reverse so that the order must come from the times; fitted from
# tests/configs/rings_start.yaml (D0 started at 6000).  Checks: the order
# by modification time; every file converges and recovers D0 within 4 of
# its standard errors; the drift of D0 is 1500 per file within 4 of its
# standard error; files after the first start from the previous result
# (stderr, series.csv start_from, the table); series.csv columns and
# rows, series.h5, one folder per file, no temporary file; --json; the
# refusals (no inputs, --all-rings, --per-angle, an empty folder, a file
# that is not a result file, a missing path, a file named twice); a file
# that fails mid-series (a failed row, the series goes on from the last
# converged result, exit 1); SIGINT (exit 130, the finished file
# summarised, the next not started).
#
# Margins: the data are fixed (the same bytes on every run) and each fit
# deterministic; the bounds are what the statistics guarantee for any
# seed: an estimate within 4 standard errors of the truth, a drift
# within 4 of its standard error of the truth.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/batch_data.sh"
plan_lazy

dir="$TAP_TMP"
cd "$dir" || exit 1
batch_configs && batch_series
is "$(ls data | wc -l | tr -d ' ')" 5 "five simulated files"

# --- the series ------------------------------------------------------------------
run_capture env LC_ALL=C "$HETUI" fit -c rings_start.yaml --series data
is "$RUN_RC" 0 "--series: every file converged, exit 0"
like "$RUN_OUT" "^hetui fit --series: static, 5 of 5 files in the order of their modification times" \
    "header: mode, counts, the order"
like "$RUN_ERR" "^file 1/5: data/m5.h5 into .*, starting from the configuration" \
    "file 1 is the oldest, from the configuration"
for i in 2 3 4 5; do
	like "$RUN_ERR" "^file $i/5: data/m$((6 - i)).h5 into .*, warm start from the result of file $((i - 1))$" \
	    "file $i starts from file $((i - 1))'s result"
done
like "$RUN_OUT" "^ +2 +60 +1 +m4.h5 +converged +[0-9.]+ +[0-9.]+ \\+- " \
    "table row 2: index, t, from, name, status, D0"
drift=$(printf '%s\n' "$RUN_OUT" | sed -n 's/^D0 against file index (5 converged files): drift per file \([-0-9.e+]*\) +- \([0-9.e+-]*\),.*$/\1 \2/p')
like "$drift" "^[-0-9.e+]+ [0-9.e+-]+$" "D0: a drift with its standard error ($drift)"
ok "$(echo "$drift" | awk '{ d = $1 - 1500; d = d < 0 ? -d : d; exit !(d < 4 * $2 && $2 > 0) }'; echo $?)" \
    "the drift of D0 is 1500 per file within 4 standard errors"
like "$RUN_OUT" "file index" "the plot's axis"
fo=$(printf '%s\n' "$RUN_OUT" | sed -n 's#^results written to \(.*\)/ (.*#\1#p')
like "$fo" '^rings_out/series-[0-9]{8}-[0-9]{6}$' "the batch folder: output_dir/series-<UTC time>"

csv="$fo/series.csv"
like "$(head -1 "$csv" | tr -d '\r')" \
    "^index,file,mtime,t,start_from,status,chi2_red,D0,D0_unc,contrast\\[0\\],.*,run_dir,message$" \
    "series.csv: the documented columns"
is "$(wc -l <"$csv" | tr -d ' ')" 6 "series.csv: a header and 5 rows"
is "$(csv_col "$csv" file | tr '\n' ' ')" "data/m5.h5 data/m4.h5 data/m3.h5 data/m2.h5 data/m1.h5 " \
    "series.csv: the files by modification time"
is "$(csv_col "$csv" t | tr '\n' ' ')" "0 60 120 180 240 " "series.csv: seconds since the first"
is "$(csv_col "$csv" mtime | head -1)" "2024-03-05T10:01:00Z" "series.csv: the modification time, UTC"
is "$(csv_col "$csv" start_from | tr '\n' ' ')" "0 1 2 3 4 " "series.csv: each file started from the previous"
csv_col "$csv" D0 >d0
csv_col "$csv" D0_unc >d0u
ok "$(paste -d' ' d0 d0u | awk '{ t = 11500 + 1500 * (NR - 1); d = $1 - t; d = d < 0 ? -d : d;
    if (!(d < 4 * $2 && $2 > 0)) bad = 1; n++ } END { exit !(n == 5 && !bad) }'; echo $?)" \
    "every file's D0 within 4 standard errors of its truth"
ok "$([ -f "$fo/series.h5" ]; echo $?)" "series.h5 in the batch folder"
n=0
for i in 1 2 3 4 5; do
	[ -f "$fo/0$i-m$((6 - i))/hetui_results.h5" ] && n=$((n + 1))
done
is "$n" 5 "one results folder per file, NN-<stem>"
unlike "$(ls -aR "$fo")" "tmp" "no temporary file left"

run_capture "$HETUI" fit -c rings_start.yaml --series data --json -o js
is "$RUN_RC" 0 "--json: exit 0"
j=$(printf '%s' "$RUN_OUT" | tr -d ' \n')
like "$j" '^\{"status":"converged","analysis_mode":"static","order":"modificationtime,tiesbyname","batch_dir":"js","n_files":5,"n_fitted":5,"series":\[' \
    "--json: status, mode, order, batch folder, counts"
like "$j" '"drifts":\{"D0":\{"drift_per_file":[0-9.e+]+,"uncertainty":[0-9.e+-]+,"n_files":5\}\}' \
    "--json: the drift of D0"

# A summary and a run's results written into the data folder (-o there)
# are hetui's own files, not new measurements: the next series skips them.
cp js/series.h5 data/series.h5
cp "$(ls -d js/*/ | head -1)hetui_results.h5" data/hetui_results.h5
run_capture "$HETUI" fit -c rings_start.yaml --series data --json -o js2
like "$(printf '%s' "$RUN_OUT" | tr -d ' \n')" '"n_files":5,"n_fitted":5' \
    "series.h5 and hetui_results.h5 in the data folder are not taken as files"
rm -f data/series.h5 data/hetui_results.h5

# --- refusals ----------------------------------------------------------------------
run_capture "$HETUI" fit -c rings_start.yaml --series
is "$RUN_RC" 2 "--series without inputs: usage error"
like "$RUN_ERR" "--series needs the result files" "... says what is missing"
run_capture "$HETUI" fit -c rings_start.yaml --series data --all-rings
is "$RUN_RC" 2 "--series --all-rings: usage error"
like "$RUN_ERR" "--all-rings cannot be combined with it" "... says why"
run_capture "$HETUI" fit -c rings_start.yaml --series data --per-angle
is "$RUN_RC" 2 "--series --per-angle: usage error"
mkdir empty
run_capture "$HETUI" fit -c rings_start.yaml --series empty -o e1
is "$RUN_RC" 1 "an empty folder: refused"
like "$RUN_ERR" "no result files in .*empty: the folder is empty; a series needs result files" \
    "... naming the folder"
echo "notes" >notes.txt
run_capture "$HETUI" fit -c rings_start.yaml --series data/m1.h5 notes.txt -o e2
is "$RUN_RC" 1 "a named file that is not a result file: refused"
like "$RUN_ERR" "notes.txt is not a result file" "... naming it"
run_capture "$HETUI" fit -c rings_start.yaml --series data/m1.h5 nosuch.h5 -o e3
is "$RUN_RC" 1 "a missing file: refused"
like "$RUN_ERR" "nosuch.h5 cannot be read" "... naming it"
run_capture "$HETUI" fit -c rings_start.yaml --series data data/m3.h5 -o e4
is "$RUN_RC" 1 "a file named twice: refused"
like "$RUN_ERR" "are the same file; a series names each file once" "... saying so"
ok "$([ ! -e e1 ] && [ ! -e e2 ] && [ ! -e e3 ] && [ ! -e e4 ]; echo $?)" \
    "a refused series makes nothing"
run_capture "$HETUI" fit -c rings_start.yaml --series data -o js
is "$RUN_RC" 1 "-o into a batch folder with a summary: refused"
like "$RUN_ERR" "js holds the results of another run \\((series.h5, series.csv|series.csv, series.h5)\\)" \
    "naming the summary files"

# --- a file that fails mid-series ----------------------------------------------------
mkdir bad
cp -p data/*.h5 bad/
echo "not a result file" >bad/m3b.h5
touch -d "2024-03-05 10:03:30" bad/m3b.h5
run_capture env LC_ALL=C "$HETUI" fit -c rings_start.yaml --series bad -o failed
is "$RUN_RC" 1 "a failed file: exit 1"
is "$(csv_col failed/series.csv status | tr '\n' ' ')" "converged converged converged failed converged converged " \
    "the series goes on after the failed file"
is "$(csv_col failed/series.csv start_from | tr '\n' ' ')" "0 1 2 3 3 5 " \
    "the file after it starts from the last converged result"
like "$(csv_col failed/series.csv message | sed -n 4p)" "m3b.h5" "the failed row says why"
like "$RUN_ERR" "file 4 \\(bad/m3b.h5\\) failed: .*; the series goes on" "stderr names the failed file"
ok "$([ ! -e failed/04-m3b ]; echo $?)" "the failed file leaves no folder"

# --- cancellation ------------------------------------------------------------------------
cp "$top_srcdir/tests/configs/slow_fit.yaml" big.yaml
mkdir big
"$HETUI" simulate -q -c big.yaml -o big/b1.h5 --noise 0.01
cp big/b1.h5 big/b2.h5
touch -d "2024-01-01 00:00:01" big/b1.h5
touch -d "2024-01-01 00:00:02" big/b2.h5
sed 's/D0_sample: 3000.0/D0_sample: 20000.0/' big.yaml >big_start.yaml
"$HETUI" fit -c big_start.yaml --series big -o bigc --threads 1 \
    >big.out 2>big.err &
interrupt_after $! big.err
rc=$INT_RC
if grep -q 'cancelled; the 1 file fitted so far is summarised' big.err; then
	is "$rc" 130 "SIGINT during file 1: exit 130"
	is "$(csv_col bigc/series.csv status | tr '\n' ' ')" "cancelled " \
	    "the summary holds the cancelled file's partial result"
	ok "$([ -f bigc/01-b1/nlsq_metadata.json ] && [ ! -e bigc/02-b2 ]; echo $?)" \
	    "file 1's partial result is kept; file 2 was not started"
else
	skip 3 "the fit ended (rc $rc) before SIGINT arrived"
fi

done_testing
