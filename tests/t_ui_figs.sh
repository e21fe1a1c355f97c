#!/bin/sh
# t_ui_figs.sh: the figures of a run from the workstation (issue 20):
# f in the Fit and Results panels runs hetui report as a child, at
# 80x24 and 160x50, on the demo dataset (8 angles, 300 frames: 17
# figures, about a second and a half of drawing).
#   - Fit panel: f before any fit is refused; after r, f writes the
#     fit's figures into its folder's report/ (every PNG of the list
#     there and not empty, heat_000.png 1660 x 560, no temporary file),
#     the status line naming the folder and the count; f again while
#     they are written is refused, and so is r; the tab bar says
#     "figures"; a second f refreshes them byte for byte and keeps a
#     file the user put there; f c cancels: a refresh keeps the
#     earlier figures, a first report leaves no folder; a run whose
#     hetui_results.h5 is damaged gets the child's own error and leaves
#     nothing; c with nothing running says so.
#   - Results panel: the run picked in the history, loaded: f writes
#     its figures; f twice is refused; f while the Fit panel writes the
#     same run's is refused; c cancels.
#   - q while figures are written: confirmed, hetui lets them finish
#     (every figure there, no temporary file), exits 0 and leaves no
#     hetui report process.
#   - After a batch of every ring (e), f draws the batch folder
#     (rings_D0.png); after a sampling run, the Results panel's f draws
#     the posterior: marginals, corner plot, shard table, traces.
#   - Refusals, each with its reason: a fit that wrote no folder (in
#     the Fit panel and from the history), a batch that failed before
#     naming its folder, no temporary folder for the child's log.
#   - The children's temporary folders (their logs) are all removed.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
. "$top_srcdir/tests/batch_data.sh"
plan_lazy

cd "$TAP_TMP" || exit 1
ft="$TAP_TMP/ftmp"	# the figure jobs' temporary folders, checked last
mkdir "$ft" || exit 1
probe="$top_builddir/tests/png_probe"
# short names, so that the status line shows a whole folder at 80 columns
ln -s "$top_srcdir/data/demo_results.hdf" d.hdf || exit 1
sed 's#output_dir: ./hetui_output#output_dir: o#' "$top_srcdir/data/demo.yaml" \
    >demo.yaml

# PNG files in $1 (the figures' folder)
npng() { ls "$1" 2>/dev/null | grep -c '\.png$'; }
# every figure the list names is there and not empty: prints the count
listed_ok() {
	_n=0
	for _f in $(grep -v '^#' "$1/.hetui-report"); do
		[ -s "$1/$_f" ] || { echo "missing $_f"; return; }
		_n=$((_n + 1))
	done
	echo $_n
}
# the newest run folder of the demo
newest() { ls -d o/d/fit-* 2>/dev/null | tail -1; }
# the status line (the last but one line of the pane)
status() { printf '%s\n' "$TUI_SCREEN" | tail -2 | head -1; }

for size in "80 24" "160 50"; do
	set -- $size
	sz="$1x$2"
	rm -rf o
	rm -f log
	tui_start "$1" "$2" TMPDIR="$ft" HETUI_LOG="$TAP_TMP/log" -- \
	    -c demo.yaml d.hdf
	wait_for 'c2 = '; ok $? "$sz: the demo opens"
	tui_keys 3 f
	wait_for 'no fit to draw yet: r fits \(e, t: a batch\), then f writes'
	ok $? "$sz: f before any fit: refused, saying what to do"
	tui_keys c
	wait_for 'no fit is running'
	ok $? "$sz: c with nothing running says so"
	tui_keys r
	wait_for 'fit converged: chi2_red' 60; ok $? "$sz: r fits the demo"
	run=$(newest)
	rep="$run/report"

	# --- the figures of the fit -----------------------------------------
	tui_keys f f
	wait_for 'the figures of the fit are being written: wait, or c cancels'
	ok $? "$sz: f again while they are written: refused"
	like "$(printf '%s\n' "$TUI_SCREEN" | sed -n 2p)" 'figures *$' \
	    "$sz: the tab bar says figures"
	tui_keys r
	wait_for 'figures are being written: wait, or c cancels them'
	ok $? "$sz: r while they are written: refused"
	wait_for "17 figures written to $rep/ \\([0-9.]+ s\\)" 60
	ok $? "$sz: the status line names the folder and the count"
	is "$(listed_ok "$rep")" 17 "$sz: the 17 figures of the list, none \
	    empty"
	is "$(npng "$rep")" 17 "$sz: 17 PNG files, nothing else"
	is "$("$probe" "$rep/heat_000.png")" "1660 560" \
	    "$sz: heat_000.png 1660 x 560"
	is "$(ls -A "$rep" | grep -c tmp)" 0 "$sz: no temporary file"
	cp "$rep/heat_000.png" heat_first.png
	echo "my notes" >"$rep/notes.txt"
	tui_keys f
	wait_for 'writing the figures of the fit'
	ok $? "$sz: f again: a refresh"
	wait_for "17 figures written to $rep/" 60; ok $? "$sz: ... written"
	ok "$(cmp -s heat_first.png "$rep/heat_000.png"; echo $?)" \
	    "$sz: the same bytes again"
	is "$(cat "$rep/notes.txt")" "my notes" "$sz: the user's file is kept"

	# --- cancel -----------------------------------------------------------
	tui_keys f c
	wait_for "figures cancelled: $rep/ keeps its earlier figures" 30
	ok $? "$sz: f c: a refresh cancelled keeps the earlier figures"
	is "$(listed_ok "$rep")" 17 "$sz: ... all 17 of them"
	is "$(ls -A "$rep" | grep -c tmp)" 0 "$sz: ... no temporary file"
	tui_keys R
	wait_for 'fit started from the last result'; ok $? "$sz: R refits"
	wait_for 'fit converged: chi2_red' 60; ok $? "$sz: ... converged"
	run2=$(newest)
	ok "$([ "$run2" != "$run" ]; echo $?)" "$sz: into a new folder"
	tui_keys f c
	wait_for "figures cancelled: $run2/report/ removed" 30
	ok $? "$sz: a first report cancelled"
	ok "$([ ! -e "$run2/report" ]; echo $?)" "$sz: ... leaves no folder"

	# --- a damaged run ---------------------------------------------------
	printf 'not an HDF5 file\n' >"$run2/hetui_results.h5"
	tui_keys f
	wait_for "figures not written: $run2/hetui_results\\.h5 is not an" 30
	ok $? "$sz: a damaged run: the child's error in the status line"
	ok "$([ ! -e "$run2/report" ]; echo $?)" "$sz: ... nothing left"
	ok "$(grep -q "figures not written: $run2/hetui_results\.h5 is not an \
HDF5 file that can be opened (damaged or truncated?)" log; echo $?)" \
	    "$sz: the Log has the whole sentence"

	# --- the Results panel ------------------------------------------------
	rm -rf "$rep"
	tui_keys 5
	wait_for 'Run history +2 runs'; ok $? "$sz: the history lists both fits"
	unlike "$(status)" 'figures not written' \
	    "$sz: a key acknowledged the error"
	tui_keys ']'
	wait_for "picked: $run/"; ok $? "$sz: ] picks the first fit"
	tui_keys Enter
	wait_for "run loaded from $run/" 20; ok $? "$sz: Enter loads it"
	tui_keys c
	wait_for 'nothing to cancel: c cancels the figures f writes'
	ok $? "$sz: Results: c with nothing running says so"
	tui_keys f f
	wait_for 'the figures of the fit are being written: wait, or c cancels'
	ok $? "$sz: Results: f twice: refused"
	wait_for "17 figures written to $rep/" 60
	ok $? "$sz: Results: f writes the picked run's figures"
	is "$(listed_ok "$rep")" 17 "$sz: ... every one of them"
	tui_keys f c
	wait_for "figures cancelled: $rep/ keeps its earlier figures" 30
	ok $? "$sz: Results: c cancels"
	tui_keys q
	tui_wait_exit; ok $? "$sz: q quits"
done

# --- two panels, one run ----------------------------------------------------
rm -rf o
tui_start 100 30 TMPDIR="$ft" -- -c demo.yaml d.hdf
wait_for 'c2 = '; ok $? "one run: the demo opens"
tui_keys 3 '?'
wait_for 'Help: Fit'; ok $? "the Fit panel's help"
like "$TUI_SCREEN" ' f +write the figures of the fit shown, or of the batch' \
    "... names f"
tui_keys Escape 5 '?'
wait_for 'Help: Results'; ok $? "the Results panel's help"
like "$TUI_SCREEN" ' f +write the figures of the picked run \(hetui report' \
    "... names f"
tui_keys Escape 3 r
wait_for 'fit converged: chi2_red' 60; ok $? "one run: fitted"
run=$(newest)
tui_keys f 5 f
wait_for 'the Fit panel writes the figures of that run: wait for them'
ok $? "the Results panel's f while the Fit panel writes the same run's: refused"
wait_for "17 figures written to $run/report/" 60
ok $? "... the Fit panel's end"

# --- quit while figures are written -----------------------------------------
rm -rf "$run/report"
tui_keys 3 f q
wait_for 'Work is still running'; ok $? "q while figures are written asks first"
tui_keys y
tui_wait_exit 60; ok $? "y: hetui lets them finish and exits"
is "$TUI_STATUS" 0 "exit status 0"
is "$(listed_ok "$run/report")" 17 "every figure is there"
is "$(ls -A "$run/report" | grep -c tmp)" 0 "no temporary file"
ok "$(! pgrep -f "report --quiet -o $run/report" >/dev/null; echo $?)" \
    "no hetui report process is left"

# --- the figures of a batch -------------------------------------------------
batch_configs && batch_rings
ok $? "simulate three rings"
tui_start 80 24 TMPDIR="$ft" -- -c rings_start.yaml rings.h5
wait_for 'c2 = '; ok $? "batch: the three-ring file opens"
tui_keys 3 e
wait_for 'Batch +converged in [0-9]+ s' 120; ok $? "e: every ring fitted"
tui_keys f
wait_for 'figures? written to rings_out/rings/rings-[0-9-]+/report/' 60
ok $? "f: the figures of the batch folder"
b=$(ls -d rings_out/rings/rings-* | tail -1)
ok "$([ -s "$b/report/rings_D0.png" ]; echo $?)" "rings_D0.png: D0 against q"
is "$(listed_ok "$b/report")" "$(npng "$b/report")" "every figure of the list"
tui_keys q
tui_wait_exit; ok $? "batch: q quits"

# --- refusals ----------------------------------------------------------------
# a fit that wrote no folder (its output_dir lies under a file), a batch
# that failed before naming its folder (no result file left in the open
# file's folder), and no temporary folder for the child's log
rm -rf lone away
mkdir lone away
cp rings.h5 lone/x.h5
: >afile
sed 's#output_dir: rings_out#output_dir: afile/out#' rings_start.yaml \
    >noout.yaml
tui_start 80 24 TMPDIR="$ft" -- -c noout.yaml lone/x.h5
wait_for 'c2 = '; ok $? "refusals: a file opens"
tui_keys 3 r
wait_for 'the results were not written' 60; ok $? "a fit that writes nothing"
tui_keys f
wait_for 'the fit shown wrote no run folder: no figures to draw'
ok $? "f: the fit wrote no folder: refused"
tui_keys 5 f
wait_for 'that run wrote no results: no figures to draw'
ok $? "Results: f on a run that wrote nothing: refused"
mv lone/x.h5 away/
tui_keys 3 t
wait_for 'The batch failed' 60; ok $? "a batch that fails at once"
tui_keys f
wait_for 'the batch shown wrote no folder: no figures to draw'
ok $? "f: the batch wrote no folder: refused"
tui_keys q
tui_wait_exit; ok $? "refusals: q quits"
rm -rf o
tui_start 80 24 TMPDIR=/nonexistent/tmp -- -c demo.yaml d.hdf
wait_for 'c2 = '; ok $? "no temporary folder: the demo opens"
tui_keys 3 r
wait_for 'fit converged: chi2_red' 60; ok $? "... fitted"
tui_keys f
wait_for 'figures not started: cannot make a temporary folder for the log'
ok $? "f without a temporary folder: not started, with the reason"
ok "$(! ls -d o/d/fit-*/report >/dev/null 2>&1; echo $?)" \
    "... and no figure written"
tui_keys q
tui_wait_exit; ok $? "no temporary folder: q quits"

# --- the figures of a posterior -----------------------------------------------
cp "$top_srcdir/tests/configs/sample_truth.yaml" . || exit 1
"$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 --noise 0.003 --seed 11
ok $? "simulate the sampling test data"
sed -e '/create_subdirs: false/d' -e '/timestamp_dirs: false/d' \
    -e "s#output_dir: res\$#output_dir: so#" \
    "$top_srcdir/tests/configs/sample_run.yaml" >runs.yaml
tui_start 160 50 TMPDIR="$ft" HETUI_WORKER="$HETUI_WORKER" -- \
    -c runs.yaml sim.h5
wait_for 'c2 = '; ok $? "posterior: the data open"
tui_keys 4 r 5
wait_for 'Run history +1 run +picked: so/sim/sample-' 180
ok $? "the sampling run ends, picked in the history"
tui_keys f
wait_for 'figures written to so/sim/sample-[0-9-]+/report/' 60
ok $? "f: the figures of the sampling run"
p=$(ls -d so/sim/sample-* | tail -1)/report
for f in heat_000 g2_000 params posterior corner shards traces; do
	ok "$([ -s "$p/$f.png" ]; echo $?)" "the posterior's $f.png"
done
tui_keys q
tui_wait_exit; ok $? "posterior: q quits"

is "$(ls -A "$ft" | tr '\n' ' ')" "" \
    "every figure job removed its temporary folder"
done_testing
