#!/bin/sh
# t_ui_alias.sh: the Data panel flags flow fringes that the frame rate
# cannot resolve.  The demo dataset with its own configuration (v0 = 900
# A/s^(beta+1): a phase step of about 0.5 rad per frame at t = 0.01 s) is
# not flagged; the same file with v0 = 9000 (about 3.9 rad > pi at the
# angle nearest the flow) is, with the ratio to the limit (1.24).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

demo="$top_srcdir/data/demo_results.hdf"
cfg="$top_srcdir/data/demo.yaml"
fast="$TAP_TMP/fast.yaml"
sed 's/^\(    v0: {value: \)[0-9.e+]*/\19000.0/' "$cfg" > "$fast"
grep -q 'v0: {value: 9000.0' "$fast"
ok $? "a config with ten times the demo's velocity"

tui_start 100 30 -- -c "$cfg" "$demo"
wait_for 'c2 = [0-9.]+ +at t1 '; ok $? "the demo opens with its config"
wait_for 'dt +0\.01 s'; ok $? "dt from the file"
if printf '%s\n' "$TUI_SCREEN" | grep -q 'ALIASED'; then
	ok 1 "the demo's own velocity is resolved: no flag"
else
	ok 0 "the demo's own velocity is resolved: no flag"
fi
tui_keys q
tui_wait_exit 10; ok $? "quit"

tui_start 100 30 -- -c "$fast" "$demo"
wait_for 'ALIASED 1\.[0-9]+x'; ok $? "v0 = 9000 is flagged next to dt"
like "$TUI_SCREEN" 'dt +0\.01 s +ALIASED' "the flag sits on the dt line"
tui_keys q
tui_wait_exit 10; ok $? "quit"
is "$TUI_STATUS" 0 "exit status 0"
done_testing
