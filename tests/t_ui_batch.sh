#!/bin/sh
# t_ui_batch.sh: the Fit panel's batches (issue 20) at 80x24 and 160x50:
#   - e on the three-ring file of t_fit_rings.sh (homodyne static, D0
#     12000 in every ring): every ring converges, the table and the plot
#     of D0 against q are shown with the power-law slope, 0 within 4
#     standard errors, and the batch folder holds rings.csv;
#   - t on the five files of t_fit_series.sh (D0 drifting 1500 per file):
#     the open file's folder by modification time, each file after the
#     first from the previous result, the drift of D0 1500 per file within
#     4 standard errors; with follow mode, only the files it loaded;
#   - c during a slow batch (two rings of a two_component fit): the ring
#     being fitted is cancelled, the other not started, the summary says
#     so and is written; q during another: confirmed, hetui waits for the
#     cancelled batch to write its summary and leaves no process;
#   - t when the open file's folder has no result file left: "the batch
#     failed" with the child's sentence;
#   - r while a batch runs is refused, e and t while a fit runs; a batch
#     that cannot make its temporary folder is not started, with the
#     reason; v before a batch says so, after one switches to the fit
#     side and back; the help names e and t.
#
# Margins: the data are fixed (simulate --seed) and the fits deterministic;
# the bounds are what the statistics guarantee for any seed, as in
# t_fit_rings.sh and t_fit_series.sh.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
. "$top_srcdir/tests/batch_data.sh"
plan_lazy

cd "$TAP_TMP" || exit 1
# the batches' temporary folders: here, and checked at the end
bt="$TAP_TMP/btmp"
mkdir "$bt" || exit 1
batch_configs && batch_rings
ok $? "simulate three rings"
batch_series
is "$(ls data | wc -l | tr -d ' ')" 5 "simulate a series of five files"
batch_slow
ok $? "simulate a slow two-ring file"

# "X SE" of the first "$1 X ± SE" on the screen
after() {
	printf '%s\n' "$TUI_SCREEN" |
	    sed -n "s/.*$1 \([-0-9.e+]*\) ± \([0-9.e+-]*\).*/\1 \2/p" | head -1
}
# |x - want| < 4 se for "x se" in $1
within() {
	echo "$1" | awk -v w="$2" 'NF == 2 { d = $1 - w; d = d < 0 ? -d : d
	    exit !(d < 4 * $2 && $2 > 0) } NF != 2 { exit 1 }'
}

for size in "80 24" "160 50"; do
	set -- $size
	sz="$1x$2"
	# --- every ring ------------------------------------------------------
	tui_start "$1" "$2" TMPDIR="$bt" -- -c rings_start.yaml rings.h5
	wait_for 'c2 = '; ok $? "$sz: the three-ring file opens"
	tui_keys 3
	wait_for 'e fits every q ring'; ok $? "$sz: the Fit panel names e and t"
	tui_keys e
	wait_for 'Batch +converged in [0-9]+ s +every q ring of rings\.h5' 120
	ok $? "$sz: e: every ring fitted, converged"
	for r in 1 2 3; do
		like "$TUI_SCREEN" "^ +$r +ring $r +q 0\\.[0-9]+ +converged +0\\.[89][0-9]*" \
		    "$sz: ring $r's row: converged, chi2_red"
	done
	wait_for 'D0 against q \(3 converged rings\): power-law slope'
	ok $? "$sz: the plot of D0 against q"
	slope=$(after 'D0 against q (3 converged rings): power-law slope')
	ok "$(within "$slope" 0; echo $?)" \
	    "$sz: D0 constant in q: slope 0 within 4 s.e. ($slope)"
	like "$TUI_SCREEN" ' 1\.21e\+04 ┤' "$sz: the plot's axis"
	like "$TUI_SCREEN" 'ring +q +status +chi2_red +D0' \
	    "$sz: the summary's table"
	fo=$(printf '%s\n' "$TUI_SCREEN" | sed -n 's#^ *folder *\(rings_out/rings/rings-[0-9-]*\) *$#\1#p')
	ok "$([ -n "$fo" ] && [ -f "$fo/rings.csv" ] &&
	    [ -f "$fo/ring03-q0.011/hetui_results.h5" ]; echo $?)" \
	    "$sz: the batch folder $fo holds rings.csv and each ring's run"
	like "$TUI_SCREEN" 'batch converged: 3 of 3 rings fitted; summary in rings_out' \
	    "$sz: the status line says so"
	tui_keys v
	wait_for 'e fits every q ring'; ok $? "$sz: v shows the fit side"
	tui_keys v
	wait_for 'Batch +converged'; ok $? "$sz: v the batch again"
	tui_keys q
	tui_wait_exit; ok $? "$sz: q quits at once"

	# --- a series --------------------------------------------------------
	tui_start "$1" "$2" TMPDIR="$bt" -- -c rings_start.yaml data/m3.h5
	wait_for 'c2 = '; ok $? "$sz: a file of the series opens"
	tui_keys 3 t
	wait_for 'Batch +converged in [0-9]+ s +the series of the result files in data/' 120
	ok $? "$sz: t: the folder's five files fitted"
	like "$TUI_SCREEN" '^ +1 +m5\.h5 +- +converged' \
	    "$sz: the oldest file first, from the configuration"
	for i in 2 3 4 5; do
		like "$TUI_SCREEN" "^ +$i +m$((6 - i))\\.h5 +$((i - 1)) +converged" \
		    "$sz: file $i from file $((i - 1))'s result"
	done
	tui_keys End
	wait_for 'D0 against file index \(5 converged files\): drift per file'
	ok $? "$sz: the plot of D0 against the file index"
	drift=$(after '(5 converged files): drift per file')
	ok "$(within "$drift" 1500; echo $?)" \
	    "$sz: the drift of D0 is 1500 per file within 4 s.e. ($drift)"
	tui_keys q
	tui_wait_exit; ok $? "$sz: q quits"

	# --- cancel ------------------------------------------------------------
	rm -rf output
	tui_start "$1" "$2" TMPDIR="$bt" -- -c big_start.yaml big.h5
	wait_for 'c2 = '; ok $? "$sz: the slow file opens"
	tui_keys 3 e
	wait_for 'ring 1 +q 0\.01 +iter [0-9]+ +chi2_red' 60
	ok $? "$sz: ring 1 iterates, live"
	like "$TUI_SCREEN" '1 more ring to go' "$sz: ring 2 waits"
	like "$TUI_SCREEN" 'Batch +running [0-9]+ s' "$sz: the title says running"
	tui_keys r
	wait_for 'a batch is running: c cancels it'
	ok $? "$sz: r while the batch runs: refused"
	tui_keys c
	wait_for 'Batch +cancelled in [0-9]+ s' 60
	ok $? "$sz: c cancels the batch"
	like "$TUI_SCREEN" 'ring 1 +q 0\.01 +cancelled' "$sz: ring 1 cancelled"
	like "$TUI_SCREEN" '1 more ring not started' "$sz: ring 2 not started"
	like "$TUI_SCREEN" 'batch cancelled: 1 of 2 rings fitted; summary in \./output/big/' \
	    "$sz: the status line says where the summary went"
	csv=$(ls output/big/rings-*/rings.csv 2>/dev/null)
	is "$(csv_col "$csv" status | tr '\n' ' ')" "cancelled " \
	    "$sz: rings.csv holds the cancelled ring"
	tui_keys q
	tui_wait_exit; ok $? "$sz: q quits at once after the batch"

	# --- an error ---------------------------------------------------------
	rm -rf lone away
	mkdir lone away
	cp rings.h5 lone/x.h5
	tui_start "$1" "$2" TMPDIR="$bt" -- -c rings_start.yaml lone/x.h5
	wait_for 'c2 = '; ok $? "$sz: a lone file opens"
	mv lone/x.h5 away/
	tui_keys 3 t
	wait_for 'The batch failed' 60; ok $? "$sz: t with no file left"
	like "$TUI_SCREEN" 'no result files in [^ ]*lone: the folder is empty' \
	    "$sz: the child's sentence"
	like "$TUI_SCREEN" 'batch failed: no result files in' \
	    "$sz: the status line too"
	tui_keys q
	tui_wait_exit; ok $? "$sz: q quits"
done

# --- a series of the files follow mode loaded -----------------------------
rm -rf watch stage
mkdir watch stage
cp -p data/m5.h5 watch/
tui_start 80 24 TMPDIR="$bt" HETUI_FOLLOW_SECONDS=0.2 -- -c rings_start.yaml watch/m5.h5
wait_for 'c2 = '; ok $? "follow: a file opens"
tui_keys F
wait_for 'following .*watch: new result files will be loaded'
ok $? "F follows its folder"
for f in m4 m3; do
	cp -p data/$f.h5 stage/ && mv stage/$f.h5 watch/
	wait_for " $f\.h5 +aps-u" 30; ok $? "follow mode loads $f.h5"
done
tui_keys 3 t
wait_for 'Batch +converged in [0-9]+ s +the 2 files follow mode loaded' 120
ok $? "t: the two files follow mode loaded, not the folder"
like "$TUI_SCREEN" '^ +1 +m4\.h5 +- +converged' "m4.h5 first (older)"
like "$TUI_SCREEN" '^ +2 +m3\.h5 +1 +converged' "m3.h5 from m4.h5's result"
unlike "$TUI_SCREEN" 'm5\.h5 +[-0-9]+ +converged' "m5.h5, open before, is not in it"
tui_keys q
tui_wait_exit; ok $? "follow: q quits"

# --- refusals ---------------------------------------------------------------
tui_start 80 24 TMPDIR=/nonexistent/tmp -- -c big_start.yaml big.h5
wait_for 'c2 = '; ok $? "refusals: the slow file opens"
tui_keys 3 v
wait_for 'no batch in this session: e fits every q ring, t a series'
ok $? "v before any batch says so"
tui_keys e
wait_for 'batch not started: cannot make a temporary folder for the'
ok $? "no temporary folder: the batch is not started, with the reason"
tui_keys 0
wait_for 'configuration in /nonexistent/tmp'; ok $? "the Log says where"
tui_keys 3 m	# 200 starts: a fit slow enough to press keys during
wait_for 'Multistart starts'; tui_text 200; tui_keys Enter
wait_for 'multistart: 200 starts'; ok $? "multistart 200"
tui_keys r
wait_for 'running +iteration [0-9]+' 60; ok $? "a slow fit runs"
tui_keys e
wait_for 'a fit is running: c cancels it'; ok $? "e while a fit runs: refused"
tui_keys t
wait_for 'a fit is running: c cancels it'; ok $? "t too"
tui_keys c
wait_for 'fit cancelled: chi2_red' 60; ok $? "c cancels the fit, not a batch"
tui_keys q	# the edited multistart is unsaved: q asks
wait_for 'y/n'; tui_keys y
tui_wait_exit; ok $? "refusals: q, y quits"

# --- quit during a batch --------------------------------------------------
rm -rf output
tui_start 100 30 TMPDIR="$bt" -- -c big_start.yaml big.h5
wait_for 'c2 = '; ok $? "quit: the slow file opens"
tui_keys 3 '?'
wait_for 'Help: Fit'; ok $? "the Fit panel's help"
like "$TUI_SCREEN" ' e +fit every q ring' "names e"
like "$TUI_SCREEN" ' t +fit a series' "names t"
tui_keys Escape e
wait_for 'ring 1 +q 0\.01 +iter [0-9]+' 60; ok $? "quit: ring 1 iterates"
tui_keys q
wait_for 'Work is still running'; ok $? "q asks first"
tui_keys y
tui_wait_exit 60; ok $? "y: hetui waits for the batch and exits"
is "$TUI_STATUS" 0 "exit status 0"
csv=$(ls output/big/rings-*/rings.csv 2>/dev/null)
is "$(csv_col "$csv" status | tr '\n' ' ')" "cancelled " \
    "the cancelled batch wrote its summary"
ok "$(! pgrep -f "hetui-batch-.*/config.yaml" >/dev/null; echo $?)" \
    "no batch process is left"
is "$(ls -A "$bt" | tr '\n' ' ')" "" \
    "every batch removed its temporary folder (an error record explains)"
done_testing
