#!/bin/sh
# t_ui_model.sh: the workstation with a configuration (-c): the data file
# it names is opened and its q ring, angles and frame window preselected;
# the Model panel shows the parameter table, edits a bound (accepted and
# refused with the validator's reason, the old value kept), toggles vary,
# undoes, saves to a new file that `hetui config --check` accepts, loads a
# configuration with warnings (shown in the Log) and a missing one, and
# changes the mode within and across families; a bad -c falls back to the
# defaults; 80x24 and ASCII layouts.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/tui.sh"
plan_lazy

fx="$TAP_TMP/run42_results.hdf"
tui_fixture "$fx" --frames 160 --nq 3 --nphi 6
ok $? "fixture written"

cfg="$TAP_TMP/good.yaml"
cat > "$cfg" <<'EOF'
analysis_mode: two_component
experimental_data:
  file_path: run42_results.hdf
analyzer_parameters:
  dt: 0.01
  start_frame: 10
  end_frame: 120
  scattering:
    wavevector_q: 0.004
    phi_angles: [-90, 30, 90]
initial_parameters:
  per_angle_scaling:
    contrast: [0.31, 0.29, 0.30]
    offset: [1.002, 0.998, 1.001]
parameters:
  reference:
    D0_ref: {value: 9000.0, min: 100.0, max: 1.0e6, vary: true}
EOF

# A configuration with an unused key, an angle between bins, a q that is
# not in the file and a window past its end.
warn="$TAP_TMP/warn.yaml"
cat > "$warn" <<'EOF'
analysis_mode: static_both
beamline_notes: 8-ID-I
analyzer_parameters:
  start_frame: 1
  end_frame: 999
  scattering:
    wavevector_q: 0.5
    phi_angles: [45]
EOF

bad="$TAP_TMP/bad.yaml"
cat > "$bad" <<'EOF'
analysis_mode: two_component
parameters:
  reference:
    D0_ref: {value: 9000.0, min: 1.0e6, max: 100.0}
EOF

saved="$TAP_TMP/out/saved.yaml"
mkdir -p "$TAP_TMP/out"

tui_start 100 30 -- -c "$cfg"
wait_for 'ring 2/3 q=0\.004'; ok $? "the config's data file is opened and its q ring selected"
like "$TUI_SCREEN" 'sel 3/6 φ +frames 10–120' "its angles and frame window are preselected"
wait_for '· +12 +12 +0\.00400 +150\.00'; ok $? "the 150 degree bin is not selected"
like "$TUI_SCREEN" '● +11 +11 +0\.00400 +90\.00' "the 90 degree bin is"
like "$TUI_SCREEN" ' 1 Data +2 Model +3 Fit .* [0-9] Log' "tabs: Data, Model, Fit, ..., Log last"

tui_keys 2
wait_for 'Model +config good\.yaml'; ok $? "2 shows the Model panel with the config's name"
like "$TUI_SCREEN" 'mode two_component +heterodyne, 14 parameters, 14 vary' "mode line"
like "$TUI_SCREEN" 'parameter +value +min +max vary prior +unit' "column heads"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +1000000 +● +TN\(1e4,5e3\) +Å²/s\^\(α\+1\)' "D0_ref row: value, bounds, vary, prior, unit"
like "$TUI_SCREEN" 'phi0 +0 +-10 +10 +● +TN\(0,5\) +deg' "phi0 row"
like "$TUI_SCREEN" 'NLSQ auto \(individual with 3 angles\) +CMC auto' "scaling mode, resolved for the selected angles"
like "$TUI_SCREEN" 'contrast +0\.5 +0 +1 ' "contrast row"
like "$TUI_SCREEN" 'D0_ref: reference transport prefactor' "the cursor row's description"
unlike "$TUI_SCREEN" 'config modified' "nothing is modified yet"

# A valid bound.
tui_keys l l Enter
wait_for 'D0_ref max: 1000000'; ok $? "Enter on max opens the prompt with the current value"
tui_text '2e6'; tui_keys Enter
wait_for 'D0_ref max 1000000 -> 2e6'; ok $? "the edit is reported"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +2000000 ' "and the table shows the new max"
like "$TUI_SCREEN" 'config modified +100x30' "the header says the config is modified"

# A refused bound: min >= max.
tui_keys Left Enter
wait_for 'D0_ref min: 100'; ok $? "Enter on min opens its prompt"
tui_text '3e6'; tui_keys Enter
wait_for 'refused: D0_ref\.min: lower bound 3e\+06 is not below upper bound 2e\+06'
ok $? "min >= max is refused"
like "$(printf '%s\n' "$TUI_SCREEN" | sed -n 29p)" '^ refused: D0_ref\.min: lower bound 3e\+06 is not below upper bound 2e\+06' \
    "with the reason in the status line"
like "$TUI_SCREEN" '└ refused: D0_ref\.min: lower bound 3e\+06' "and under the row"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +2000000 ' "the old min is kept (no clamp)"

# A value outside the bounds, and text that is not a number.
tui_keys Left Enter
wait_for 'D0_ref value: 9000'; ok $? "Enter on value opens its prompt"
tui_text '5e6'; tui_keys Enter
wait_for 'value 5e\+06 is outside the bounds \[100, 2e\+06\] of D0_ref'
ok $? "a value outside the bounds is refused"
tui_keys Enter; tui_text 'lots'; tui_keys Enter
wait_for "└ refused: D0_ref value: 'lots' is not a number"
ok $? "text that is not a number is refused"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +2000000 ' "the row is unchanged"
# Issue 19: accepting an unchanged cell records no undo step (the undo
# below counts the steps), blanks around a number are trimmed and
# hexadecimal is refused (strtod read 0x10 as 16).
tui_keys Enter
wait_for 'D0_ref value: 9000'; ok $? "the prompt again"
tui_keys Enter
wait_for 'D0_ref value unchanged \(9000\)'; ok $? "Enter on the unchanged value says so"
tui_keys Enter; tui_text ' 9000 '; tui_keys Enter
wait_for 'D0_ref value unchanged \(9000\)'; ok $? "' 9000 ' is read as 9000 (blanks trimmed)"
tui_keys Enter; tui_text '0x10'; tui_keys Enter
wait_for "refused: D0_ref value: '0x10' is not a decimal number"
ok $? "0x10 is refused, not read as 16"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +2000000 ' "the row is unchanged"

# Vary and undo.
tui_keys Space
wait_for 'D0_ref fixed'; ok $? "Space fixes D0_ref"
like "$TUI_SCREEN" '14 parameters, 13 vary' "the mode line counts 13 varying"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +2000000 +· ' "the vary column shows it fixed"
tui_keys u
wait_for 'undone: D0_ref fixed \(1 more\)'; ok $? "u undoes the toggle"
unlike "$TUI_SCREEN" 'undone: D0_ref value' "no undo step for the unchanged value"
like "$TUI_SCREEN" '14 parameters, 14 vary' "all 14 vary again"
tui_keys u
wait_for 'undone: D0_ref max 1000000 -> 2e6'; ok $? "u again undoes the bound"
like "$TUI_SCREEN" 'D0_ref +9000 +100 +1000000 ' "max is back to 1000000"
unlike "$TUI_SCREEN" 'config modified' "back at the saved state: not modified"
tui_keys u
wait_for 'nothing to undo'; ok $? "the stack is empty"

# Prior edit (refused and accepted).
tui_keys l l l l Enter
wait_for 'D0_ref prior: truncated_normal 10000 5000'; ok $? "the prior cell edits as name and numbers"
tui_keys C-u; tui_text 'normal 1'; tui_keys Enter
wait_for 'a normal prior takes 2 numbers, found 1'; ok $? "a prior with a missing number is refused"
tui_keys Enter C-u; tui_text 'normal 8000 2000'; tui_keys Enter
wait_for 'D0_ref +9000 +100 +1000000 +● +N\(8e3,2e3\)'; ok $? "a normal prior is accepted"

# Bound edit again, then save to a new file.
tui_keys h h Enter; tui_text '3e6'; tui_keys Enter
wait_for 'D0_ref +9000 +100 +3000000 '; ok $? "max set to 3e6"
tui_keys S
wait_for 'Save config to: .*good\.yaml'; ok $? "S asks for the file, offering the current one"
tui_text "$saved"; tui_keys Enter
wait_for "config saved to .*out/saved\\.yaml"; ok $? "saved to a new path"
wait_for 'Model +config saved\.yaml'; ok $? "the panel names the new file"
unlike "$TUI_SCREEN" 'config modified' "and the config is no longer modified"
"$HETUI" config --check "$saved" >"$TAP_TMP/check.out" 2>&1
is "$?" 0 "hetui config --check accepts the saved file"
grep -A3 'D0_ref:' "$saved" | grep -Eq 'max: (3000000|3e\+?0?6)$'
ok $? "the saved file has D0_ref max 3e6"
grep -A6 'D0_ref:' "$saved" | grep -q 'prior: normal'
ok $? "and the normal prior"
grep -Eq "file_path: .*run42_results\\.hdf|data_file_name: run42_results\\.hdf" "$saved"
ok $? "and still names the data file"
unlike "$TUI_SCREEN" 'comments were not kept' "a new file: no word about comments"
printf '# my note\n' >>"$saved"
tui_keys S
wait_for 'Save config to: .*saved\.yaml'; ok $? "S offers the saved file"
tui_keys Enter
wait_for "config saved to .*saved\\.yaml .*its comments were not kept"; ok $? "saving over a commented file says its comments are not kept"
tui_keys S C-u; tui_text "$TAP_TMP/nodir/x.yaml"; tui_keys Enter
wait_for 'config not saved: '; ok $? "saving into a missing directory fails with a reason"

# Mode within the family: values kept, vary flags of the mode.
tui_keys m
wait_for 'Analysis mode'; ok $? "m opens the mode list"
like "$TUI_SCREEN" '4 static +homodyne +3 parameters' "the list has the homodyne static mode"
tui_keys 1
wait_for 'mode static_ref +heterodyne, 14 parameters, 3 vary'
ok $? "static_ref: 3 parameters vary"
# the header may be drawn before the list's overlay is cleared: poll
wait_for 'D0_ref +9000 +100 +3000000 +●'; ok $? "values kept within the family"
like "$TUI_SCREEN" 'D0_sample +10000 +100 +1000000 +·' "D0_sample fixed in static_ref"

# Across families: asks first.
tui_keys m Down Down Down Enter
wait_for 'Switch to static \(homodyne\)\? All 14 parameters are reset'
ok $? "a family change asks first"
tui_keys n
wait_for 'mode change cancelled'; ok $? "n keeps the mode"
like "$TUI_SCREEN" 'mode static_ref' "still static_ref"
tui_keys m 4 y
wait_for 'mode static +homodyne, 3 parameters, 3 vary'; ok $? "y switches to homodyne static"
wait_for 'D0 +1000 '; ok $? "the homodyne D0 row with its default"
like "$TUI_SCREEN" 'D_offset ' "D_offset row"
unlike "$TUI_SCREEN" 'D0_ref|gamma_dot_t0' "no heterodyne or laminar rows"
tui_keys u
wait_for 'mode static_ref +heterodyne'; ok $? "u undoes the family change"

# Load a configuration with warnings.
tui_keys O
wait_for 'Open config \(unsaved edits are discarded; Esc keeps them\):'
ok $? "O with unsaved edits asks for a file, saying they would be discarded"
tui_keys Escape O
wait_for 'Open config \(unsaved edits are discarded'
ok $? "Esc kept them: O still warns"
tui_text "$warn"; tui_keys Enter
wait_for 'Model +config warn\.yaml'; ok $? "the new config is shown"
like "$TUI_SCREEN" 'mode static_both' "with its mode"
tui_keys 0
wait_for 'config .*warn\.yaml:2: .*beamline_notes'; ok $? "its unused-key warning is in the Log with its line"
like "$TUI_SCREEN" 'config q 0\.5 matches no ring' "the q mismatch is reported"
like "$TUI_SCREEN" 'config angle 45: no bin of ring 2 at that angle' "the angle mismatch too"
like "$TUI_SCREEN" 'config frame window 1,999 rejected: last must be at most 160' "and the frame window's"
like "$TUI_SCREEN" 'keeping frames 10,120' "which keeps the current window"
like "$TUI_SCREEN" 'unsaved edits of the previous configuration were discarded' "discarded edits are mentioned"
tui_keys 2 O; tui_text "$TAP_TMP/none.yaml"; tui_keys Enter
wait_for 'config not loaded: .*none\.yaml'; ok $? "a missing config is reported"
like "$TUI_SCREEN" 'Model +config warn\.yaml' "and the current one stays"
tui_keys q
tui_wait_exit 10; ok $? "q quits"
is "$TUI_STATUS" 0 "exit status 0"

# An invalid -c: defaults of two_component, the reason in the Log.
tui_start 100 30 -- -c "$bad" "$fx"
wait_for 'config not loaded: .*bad\.yaml:4: '; ok $? "an invalid config is reported in the status line"
wait_for 'ring 1/3'; ok $? "the file given on the command line opens"
like "$(printf '%s\n' "$TUI_SCREEN" | sed -n 29p)" 'config not loaded: ' "the error stays in the status line"
tui_keys 2
wait_for 'Model +config \(defaults, not saved\)'; ok $? "the Model panel has the defaults"
like "$TUI_SCREEN" 'mode two_component' "of two_component"
like "$TUI_SCREEN" 'D0_ref +10000 +100 +1000000' "with the table's values"
tui_keys 0
wait_for 'using the defaults of two_component instead of .*bad\.yaml'; ok $? "the Log says the defaults are used"
tui_keys q
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# 80x24.
tui_start 80 24 -- -c "$cfg"
wait_for 'ring 2/3'; ok $? "80x24: starts"
tui_keys 2
wait_for 'D0_ref +9000 +100 +1000000 +● +TN\(1e4,5e3\)'; ok $? "80x24: the D0_ref row fits"
wait_for 'phi0 +0 +-10 +10'; ok $? "80x24: all 14 parameters are shown"
wait_for 'Help +Tab Panel .*Edit .* q Quit'; ok $? "80x24: footer hints"
tui_keys End
wait_for 'offset +1 +0\.5 +1\.5'; ok $? "80x24: End scrolls to the offset row"
like "$TUI_SCREEN" 'offset per angle \(3\) +1\.002 0\.998 1\.001' "80x24: per-angle offsets listed"
# Issue 20: the per-angle start values are editable (a: contrast, A: offset).
tui_keys A
wait_for 'Start offset per angle: 1\.002 0\.998 1\.001'; ok $? "A asks for the offsets, prefilled"
tui_keys C-u; tui_text '1 x'; tui_keys Enter
wait_for "refused: 'x' is not a number"; ok $? "a word is refused"
tui_keys A C-u; tui_text '1 1'; tui_keys Enter
wait_for 'refused: 2 values but 3 angles are selected'; ok $? "two values for three angles are refused"
tui_keys A C-u; tui_text '0.99, 1 1.01'; tui_keys Enter
wait_for 'offset per angle \(3\) +0\.99 1 1\.01'; ok $? "three values, blanks or commas, accepted"
tui_keys A C-u Enter
wait_for 'start offset per angle: 0 values'; ok $? "an empty answer clears the offsets"
wait_gone 'offset per angle \(3\)'; ok $? "... and the list is gone"
tui_keys q
wait_for 'Quit anyway\? \(y/n\)'; ok $? "the edits are unsaved edits"
tui_keys y
tui_wait_exit 10; is "$TUI_STATUS" 0 "exit status 0"

# ASCII.
tui_start 100 30 -- --ascii -c "$cfg"
wait_for 'ring 2/3'; ok $? "--ascii: starts"
tui_keys 2
wait_for 'D0_ref +9000 +100 +1000000 +\* +TN\(1e4,5e3\) +A\^2/s'; ok $? "--ascii: ASCII marks and units"
tui_keys Enter; tui_text '1e9'; tui_keys Enter
wait_for '`- refused: D0_ref\.value'; ok $? "--ascii: the refusal line is ASCII"
if printf '%s\n' "$TUI_SCREEN" | LC_ALL=C grep -q '[^ -~]'; then
	ok 1 "--ascii: only ASCII on screen"
else
	ok 0 "--ascii: only ASCII on screen"
fi
tui_keys Space
wait_for 'D0_ref fixed'; ok $? "an unsaved edit"
tui_keys q
wait_for 'The configuration has unsaved edits \(S saves them\)\. Quit anyway\? \(y/n\)'
ok $? "q asks before dropping unsaved edits"
tui_keys n
wait_for 'quit cancelled'; ok $? "n keeps the workstation running"
tui_keys q y
tui_wait_exit 10; is "$TUI_STATUS" 0 "q y quits with 0"
done_testing
