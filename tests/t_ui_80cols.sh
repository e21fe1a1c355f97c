#!/bin/sh
# t_ui_80cols.sh: the workstation at 80x24 (issue 19, defects found in
# the tour): the header keeps the frame window, q and the selection, also
# when "modified" shows (the layout, the ring number and the long form of
# the mark go first); no number is cut to another number (a cut moves to
# before the number: "2100…" was shown for a larger count); a scroll range
# takes the first column head instead of overwriting the last ones
# ("1-3/4 contr"); a small value fits the Fit table's column, a tiny step
# size the shard row (it pushed R-hat over the divergence count).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

dir=$TAP_TMP
cp "$top_srcdir/tests/configs/sample_truth.yaml" "$dir/" || exit 1
cd "$dir" || exit 1
"$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 --noise 0.003 --seed 11
ok $? "simulate the test data"
sed -e '/create_subdirs: false/d' -e '/timestamp_dirs: false/d' \
    -e "s#output_dir: res\$#output_dir: $dir/out#" \
    "$top_srcdir/tests/configs/sample_run.yaml" >runs.yaml

# A digit right before the ellipsis is a number that may have been cut.
no_cut_number() {
	unlike "$TUI_SCREEN" '[0-9]\.?…' "$1: no number ends in an ellipsis"
}

tui_start 80 24 HETUI_WORKER="$HETUI_WORKER" -- -c runs.yaml sim.h5
wait_for 'c2 = '; ok $? "the data open at 80x24"
like "$(printf '%s\n' "$TUI_SCREEN" | sed -n 1p)" \
    '^ hetui [0-9.]+ +sim\.h5 .*q=0\.01 +sel 1/1 φ +frames 1–50 +80x24' \
    "header: q, selection and frame window"

tui_keys 2 Enter
wait_for 'D0_ref value: 3000'; ok $? "edit D0_ref's value"
tui_text '4000'; tui_keys Enter
wait_for 'D0_ref value 3000 -> 4000'; ok $? "the edit is taken"
head=$(printf '%s\n' "$TUI_SCREEN" | sed -n 1p)
like "$head" 'modified +80x24$' "the header marks the config modified"
like "$head" 'q=0\.01 +sel 1/1 φ +frames 1–50 ' \
    "and still shows q, the selection and the frame window"

tui_keys 4 s
wait_for 'Settings +\(Enter edits'; ok $? "the sampling settings"
like "$TUI_SCREEN" 'auto: one per angle, >= [0-9]+ pairs each' "the shards row explains auto, its number whole"
no_cut_number "settings"
tui_keys s

tui_keys 3 r
wait_for 'fit converged' 60; ok $? "a fit (the history gets two rows)"
like "$TUI_SCREEN" 'Fit +sim\.h5 +frames 1–50 +1 φ ' "the Fit title names the frames and angles whole"
tui_keys 4 r
wait_for 'Sampling +sim\.h5 +passed' 120; ok $? "a sampling run passes"
unlike "$TUI_SCREEN" 'DONE +[0-9]+ +█+ +100% +[0-9.e-]+ +[0-9.]+ +(R-hat|[0-9.]+ +[0-9]+ )' "no shard row lacks its divergences"
like "$TUI_SCREEN" 'DONE +[0-9]+ .* 100% +[0-9.e-]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+ ' \
    "a done shard shows step, acceptance, divergences, R-hat and ESS"
no_cut_number "Sampling panel"

tui_keys 5
wait_for 'Run history +2 runs'; ok $? "the Results panel with two runs"
like "$TUI_SCREEN" '^ 1-[0-9]+/4 +mean +sd +5% +50% +95% +R-hat +ESS +NLSQ +contr *$' \
    "the scroll range takes the first head; every other head is whole"
unlike "$TUI_SCREEN" '/4 ?contr' "it overwrites no head"
like "$TUI_SCREEN" 'noise sigma 0\.00[0-9]+' "the noise level is shown (the line wraps)"
no_cut_number "Results panel"

tui_keys q
wait_for 'unsaved edits \(S saves them\)\. Quit anyway\? \(y/n\)'
ok $? "q asks about the unsaved edit"
tui_keys y
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# The Fit panel's table: a value below 1e-3 in its 10 columns (it took
# 11 and cut the uncertainty after it: 2.70e-0 for 2.70e-06).
sed -e 's/contrast: \[0.3\]/contrast: [0.0005]/' sample_truth.yaml >tiny.yaml
"$HETUI" simulate -q -c tiny.yaml -o tiny.h5 --noise 0.00002 --seed 5
ok $? "simulate data of contrast 0.0005"
sed -e 's/D0_ref: {value: 5000.0}/D0_ref: {value: 4000.0}/' tiny.yaml >tinyfit.yaml
printf 'output:\n  output_dir: %s/out\n' "$dir" >>tinyfit.yaml
tui_start 80 24 -- -c tinyfit.yaml tiny.h5
wait_for 'c2 = '; ok $? "the data open"
tui_keys 3 r
wait_for 'fit converged' 60; ok $? "the fit converges"
like "$TUI_SCREEN" 'contrast\[0\] +5\.00[0-9]*e-04 +[0-9.]+e-06 ' "contrast and its uncertainty, each whole"
like "$TUI_SCREEN" 'offset\[0\] +(0\.99|1\.00)[0-9]* +[0-9.]+e-0[67] ' "offset and its uncertainty, each whole"
no_cut_number "Fit panel"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# A step size of 5.88e-05 is 7 characters in the 6 of its column: it
# pushed the row so that R-hat covered the divergence count (blank).
printf '#!/bin/sh\nFAKE_QUIET=1 exec sh "%s/tests/fake_worker.sh" tinystep\n' \
    "$top_srcdir" >tinystep.sh
chmod +x tinystep.sh
tui_start 80 24 HETUI_WORKER="$dir/tinystep.sh" -- -c runs.yaml sim.h5
wait_for 'c2 = '; ok $? "the data again, with workers that report a tiny step"
tui_keys 4 r
wait_for 'RUNNING .* 5\.9e-5 ' 60; ok $? "the step size fits its column: 5.9e-5"
like "$TUI_SCREEN" 'RUNNING +61[23] .* 5\.9e-5 +0\.96 +0 +1\.002 ' \
    "then acceptance, divergences (0) and R-hat, each whole"
no_cut_number "running shards"
tui_keys q
wait_for '\(y/n\)'; ok $? "q asks while sampling"
tui_keys y
tui_wait_exit 20; is "$TUI_STATUS" 0 "exit status 0"
done_testing
