#!/bin/sh
# t_inspect.sh: `hetui inspect` on fixture files written by tests/mkfixture:
# the human table (values, alignment, ASCII and UTF-8 symbols), the --json
# object (valid JSON, values, and keys in exactly the order that the
# INSPECT JSON section of man/hetui.1.in documents), and the exit statuses:
# 0 success, 1 a bad file with "hetui inspect: error: ...", 2 usage.
. "$top_srcdir/tests/tap.sh"
plan_lazy

fx="$TAP_TMP/fixtures"
mkdir -p "$fx"
"$top_builddir/tests/mkfixture" "$fx"
ok $? "mkfixture writes the fixture files"

# ---- human output -------------------------------------------------------
run_capture env LC_ALL=C "$HETUI" inspect "$fx/apsu_lzf.hdf"
is "$RUN_RC" 0 "inspect an APS-U LZF file exits 0"
is "$RUN_ERR" "" "and prints nothing on stderr"
like "$RUN_OUT" "^  file       $fx/apsu_lzf.hdf" "header: file"
like "$RUN_OUT" "  layout     APS-U  /xpcs/twotime/correlation_map" \
    "header: layout and matrix group"
like "$RUN_OUT" "  bins       6 matrices on a 2 q x 3 phi map$" \
    "header: bins and q map (every cell processed)"
like "$RUN_OUT" "  frames     12 x 12" "header: frames"
like "$RUN_OUT" "  storage    float32, lzf, chunks 12 x 12" "header: storage"
like "$RUN_OUT" "  dt         0.00078 s  file: frame_time \\* stride_frame \\* avg_frame = 0.00013 s x 3 x 2" \
    "header: dt, its source and its factors"
like "$RUN_OUT" "  energy     12.34 keV  /xpcs/qmap/energy" "header: energy"
like "$RUN_OUT" "  distance   11.6 m  /xpcs/qmap/detector_distance" \
    "header: distance"
line=$(printf '%s\n' "$RUN_OUT" | grep -n 'index  label' | cut -d: -f1)
hdr=$(printf '%s\n' "$RUN_OUT" | sed -n "${line}p")
is "$hdr" "  index  label     q [1/A]  phi [deg]  frames  dtype    compression  dataset" \
    "table header (ASCII symbols in the C locale)"
row=$(printf '%s\n' "$RUN_OUT" | sed -n "$((line + 4))p")
is "$row" "      3      4  0.00576136    -120.00      12  float32  lzf          c2_00004" \
    "table row of bin 3: aligned under the header"
n=$(printf '%s\n' "$RUN_OUT" | sed -n "$((line + 1)),\$p" | grep -c 'c2_0000')
is "$n" 6 "one row per bin"

if locale -a 2>/dev/null | grep -qi '^c\.utf-\{0,1\}8$'; then
	utf=$(locale -a | grep -i '^c\.utf-\{0,1\}8$' | head -n 1)
	run_capture env LC_ALL="$utf" "$HETUI" inspect "$fx/apsu_lzf.hdf"
	like "$RUN_OUT" 'q \[Å⁻¹\]' "UTF-8 locale: q in Å⁻¹"
	like "$RUN_OUT" 'φ \[deg\]' "UTF-8 locale: φ"
	like "$RUN_OUT" '2 q × 3 φ map' "UTF-8 locale: ×"
	w1=$(printf '%s\n' "$RUN_OUT" | grep 'index  label' | tr -d '\n' |
	    LC_ALL="$utf" wc -m)
	is "$w1" "$(printf '%s' "$hdr" | wc -m)" \
	    "UTF-8 header has the display width of the ASCII one"
else
	skip 4 "no C.UTF-8 locale"
fi

run_capture env LC_ALL=C "$HETUI" inspect "$fx/apsu_nodt.hdf"
is "$RUN_RC" 0 "inspect a file without dt exits 0"
like "$RUN_OUT" "  storage    float64, gzip \\(level 4\\), chunks 12 x 12" \
    "gzip level shown"
like "$RUN_OUT" "  dt         unknown  none; set analyzer_parameters.dt in the config or use --dt" \
    "unknown dt says how to set it"
like "$RUN_OUT" "  energy     not recorded" "no energy"
like "$RUN_OUT" "  distance   not recorded" "no distance"

run_capture env LC_ALL=C "$HETUI" inspect "$fx/legacy_partial.hdf"
is "$RUN_RC" 0 "inspect a partial legacy file exits 0"
like "$RUN_OUT" "  layout     legacy APS 8-ID-I  /exchange/C2T_all" \
    "legacy layout"
like "$RUN_OUT" "3 matrices on a 2 q x 3 phi map  \\(3 of 6 cells processed\\)" \
    "partial processing is visible"
like "$RUN_OUT" "  dt         0.02556 s  file: exposure_period \\* stride_frames \\* avg_frames = 0.00213 s x 4 x 3" \
    "legacy dt"
like "$RUN_OUT" "  distance   4.9532 m \\(4953.2 mm in the file\\)" \
    "distance converted from mm"
like "$RUN_OUT" "      1      5  0.01080000      60.00       9  float32  gzip         g2_00005" \
    "bin 1 is label 5 with its own q and phi"

# ---- JSON -----------------------------------------------------------------
run_capture "$HETUI" inspect --json "$fx/apsu_lzf.hdf"
is "$RUN_RC" 0 "--json exits 0"
json=$RUN_OUT
run_capture "$HETUI" inspect "$fx/apsu_lzf.hdf" --json
is "$RUN_OUT" "$json" "--json after FILE gives the same object"

# Keys in output order, the first element of each array of objects only
# (the others repeat its keys): the top level, the first bin, the
# multitau object and its first bin.  The file has both kinds of data.
cp "$fx/apsu_lzf.hdf" "$TAP_TMP/both.hdf"
"$top_builddir/tests/mkmultitau" "$TAP_TMP/both.hdf" --append
ok $? "mkmultitau adds multitau g2 to a copy of apsu_lzf.hdf"
keys_json=$("$HETUI" inspect --json "$TAP_TMP/both.hdf" | awk '
	function ind(l) { match(l, /^ */); return RLENGTH }
	BEGIN { skip = -1 }
	/^ *"[a-z_]*":/ && skip < 0 { k = $0; sub(/^ *"/, "", k);
	    sub(/".*/, "", k); keys = keys " " k }
	/^ *},$/ && skip < 0 { skip = ind($0) - 2 }
	/^ *\],?$/ && ind($0) == skip { skip = -1 }
	END { print substr(keys, 2) }')
keys_man=$(sed -n '/^\.Sh INSPECT JSON/,/^\.Sh /p' "$top_srcdir/man/hetui.1.in" |
    sed -n 's/^\.It Li //p' | tr -d ',' | tr -s ' ' | tr '\n' ' ' | sed 's/ $//')
is "$keys_json" "$keys_man" "JSON keys and their order match man/hetui.1.in INSPECT JSON"

if [ -n "$PYTHON3" ] && "$PYTHON3" -c 'import json' 2>/dev/null; then
	check() {	# check FILE PYTHON-EXPRESSION MESSAGE
		"$HETUI" inspect --json "$1" | "$PYTHON3" -c '
import json, sys
d = json.load(sys.stdin)
b = d["bins"]
sys.exit(0 if ('"$2"') else 1)'
		ok $? "$3"
	}
	check "$fx/apsu_lzf.hdf" 'd["format_version"] == 1 and d["layout"] == "aps-u" and d["n_bins"] == 6 and d["n_q"] == 2 and d["n_phi"] == 3 and d["frames"] == 12' \
	    "JSON: valid, header values"
	check "$fx/apsu_lzf.hdf" 'abs(d["dt"] - 1.3e-4 * 3 * 2) == 0 and d["dt_source"] == "file: frame_time * stride_frame * avg_frame" and d["energy_kev"] == 12.34 and d["detector_distance_m"] == 11.6' \
	    "JSON: dt exact to the last bit, energy, distance"
	check "$fx/apsu_lzf.hdf" '[x["label"] for x in b] == [1, 2, 3, 4, 5, 6] and b[3]["q_index"] == 1 and b[3]["phi_index"] == 0 and b[3]["q"] == d["q_values"][1] and b[3]["phi"] == -120.0' \
	    "JSON: bins, labels and cells"
	check "$fx/apsu_lzf.hdf" 'b[0]["dtype"] == "float32" and b[0]["compression"] == "lzf" and b[0]["compression_level"] is None and b[0]["storage"] == "chunked" and b[0]["chunk"] == [12, 12] and b[0]["dataset"] == "/xpcs/twotime/correlation_map/c2_00001"' \
	    "JSON: storage facts of a bin"
	check "$fx/apsu_nodt.hdf" 'd["dt"] is None and d["dt_source"] == "none" and d["energy_kev"] is None and d["detector_distance_m"] is None and d["compression"] == "gzip" and b[1]["compression_level"] == 4 and d["dtype"] == "float64"' \
	    "JSON: nulls for what the file lacks"
	check "$fx/legacy_partial.hdf" 'd["layout"] == "aps-legacy" and [x["label"] for x in b] == [2, 5, 6] and d["q_values"] == [0.0054, 0.0108] and d["phi_values"] == [0.0, 60.0, 120.0] and abs(d["detector_distance_m"] - 4.9532) < 1e-15 and b[2]["dataset"] == "/exchange/C2T_all/g2_00006"' \
	    "JSON: partial legacy file"
else
	skip 6 "python3 with json is not available"
fi

# ---- multitau g2 (issue 20) ---------------------------------------------------
mk="$top_builddir/tests/mkmultitau"
"$mk" "$TAP_TMP/mt.hdf" && "$mk" "$TAP_TMP/mt_bf.hdf" --bin-first &&
    "$mk" "$TAP_TMP/square.hdf" --nq 52
ok $? "mkmultitau writes multitau-only files"
run_capture env LC_ALL=C "$HETUI" inspect "$TAP_TMP/mt.hdf"
is "$RUN_RC" 0 "a multitau-only file is inspected (exit 0)"
is "$RUN_ERR" "" "and nothing on stderr"
like "$RUN_OUT" "  layout     APS-U multitau  /xpcs/multitau \\(no two-time matrices\\)" \
    "multitau-only: the layout says so"
like "$RUN_OUT" "  multitau   g2 of 8 bins at 52 delays on a 8 q x 1 phi map" \
    "bins and delays"
like "$RUN_OUT" "  stored     normalized_g2 \\(52, 8\\)  the 52 delays of delay_list are its first axis" \
    "the orientation and why"
like "$RUN_OUT" "  tau        0.001 s to 16.384 s  /xpcs/multitau/delay_list in frames \\(integers: frame counts\\) x 0.001 s" \
    "the delays in seconds and how"
like "$RUN_OUT" "  errors     0 of 416 points without an error" "zero errors counted"
like "$RUN_OUT" "  index  label     q \\[1/A\\]  phi \\[deg\\]  points  g2 first   g2 last" \
    "bins table header"
like "$RUN_OUT" "      7      8  0.00889000       0.00      52 " "bin 8: q and points"
run_capture env LC_ALL=C "$HETUI" inspect "$TAP_TMP/both.hdf"
like "$RUN_OUT" "c2_00006" "both: the two-time table ..."
like "$RUN_OUT" "  multitau   g2 of 6 bins at 52 delays on a 2 q x 3 phi map" \
    "... then the multitau block on the same q map"
like "$RUN_OUT" "x 0.00013 s \\(file: frame_time" "with the file's frame time"
run_capture "$HETUI" inspect "$TAP_TMP/square.hdf"
is "$RUN_RC" 1 "an ambiguous multitau-only file exits 1"
like "$RUN_ERR" "it is a multitau-only result.*; its multitau data cannot be shown either: /xpcs/multitau/normalized_g2 is 52 x 52" \
    "and says why both readers refuse it"
like "$RUN_ERR" "storage_mode = 'one_array_q_last'" "and how to fix it"
"$top_builddir/tests/mkdemo_fixture" "$TAP_TMP/sq2.hdf" --frames 8 --nq 52 \
    --nphi 1 && "$mk" "$TAP_TMP/sq2.hdf" --append
run_capture env LC_ALL=C "$HETUI" inspect "$TAP_TMP/sq2.hdf"
is "$RUN_RC" 0 "a two-time file with unreadable multitau data exits 0"
like "$RUN_OUT" "  multitau   cannot be read: .*cannot tell the delay axis" \
    "and the multitau line says why"
if [ -n "$PYTHON3" ] && "$PYTHON3" -c 'import json' 2>/dev/null; then
	check "$TAP_TMP/mt.hdf" 'd["n_bins"] == 0 and d["bins"] == [] and d["frames"] is None and d["dt"] is None and d["n_q"] == 8 and d["q_values"] == d["multitau"]["q_values"]' \
	    "JSON, multitau only: the two-time keys empty, the q map"
	check "$TAP_TMP/mt.hdf" 'd["multitau"]["n_tau"] == 52 and d["multitau"]["n_bins"] == 8 and d["multitau"]["orientation"] == "tau_first" and d["multitau"]["delay_unit"] == "frames" and d["multitau"]["tau"][0] == 0.001 and d["multitau"]["tau"][-1] == 16.384 and d["multitau"]["frame_time"] == 0.001 and d["multitau"]["bins"][7]["points"] == 52 and d["multitau"]["bins"][7]["label"] == 8' \
	    "JSON: the multitau object"
	check "$TAP_TMP/mt_bf.hdf" 'd["multitau"]["orientation"] == "bin_first"' \
	    "JSON: the other orientation"
	check "$fx/apsu_lzf.hdf" 'd["multitau"] is None' \
	    "JSON: multitau null without multitau data"
else
	skip 4 "python3 with json is not available"
fi

# ---- errors and usage -------------------------------------------------------
run_capture "$HETUI" inspect "$fx/not_hdf5.txt"
is "$RUN_RC" 1 "a text file exits 1"
like "$RUN_ERR" "^hetui inspect: error: $fx/not_hdf5.txt: not an HDF5 file" \
    "and says it is not HDF5"
is "$RUN_OUT" "" "nothing on stdout"
run_capture "$HETUI" inspect "$fx/truncated.hdf"
is "$RUN_RC" 1 "a truncated file exits 1"
like "$RUN_ERR" "^hetui inspect: error: .*truncated or corrupt" "and says so"
unlike "$RUN_ERR" "HDF5-DIAG" "without HDF5's own error stack"
is "$(printf '%s\n' "$RUN_ERR" | wc -l | tr -d ' ')" 1 "in one line"
run_capture "$HETUI" inspect "$fx/neither.hdf"
is "$RUN_RC" 1 "an HDF5 file of neither layout exits 1"
like "$RUN_ERR" "hetui looked for /xpcs/qmap/dynamic_v_list_dim0 and /xpcs/twotime/correlation_map" \
    "and lists the paths looked for"
run_capture "$HETUI" inspect --json "$fx/no-such-file.hdf"
is "$RUN_RC" 1 "a missing file exits 1, with --json too"
like "$RUN_ERR" "^hetui inspect: error: .*no-such-file.hdf: cannot open the file: No such file or directory" \
    "and names the file and the reason"
is "$RUN_OUT" "" "no partial JSON on stdout"
"$HETUI" inspect "$fx/apsu_lzf.hdf" >/dev/full 2>"$TAP_TMP/full.err"
is "$?" 1 "a full disk on stdout exits 1"
like "$(cat "$TAP_TMP/full.err")" "cannot write to standard output" "and says so"

run_capture "$HETUI" inspect
is "$RUN_RC" 2 "no FILE exits 2"
like "$RUN_ERR" "^hetui inspect: missing FILE" "and says what is missing"
like "$RUN_ERR" "usage: hetui inspect FILE \\[--json\\]" "with the usage"
run_capture "$HETUI" inspect "$fx/apsu_lzf.hdf" "$fx/apsu_nodt.hdf"
is "$RUN_RC" 2 "two files exit 2"
like "$RUN_ERR" "one FILE at a time" "and the message says why"
run_capture "$HETUI" inspect --frobnicate "$fx/apsu_lzf.hdf"
is "$RUN_RC" 2 "an unknown option exits 2"
like "$RUN_ERR" "^hetui inspect: unknown option '--frobnicate'" "and names it"
run_capture "$HETUI" inspect --json=yes "$fx/apsu_lzf.hdf"
is "$RUN_RC" 2 "--json takes no value"
run_capture "$HETUI" inspect --help
is "$RUN_RC" 0 "--help exits 0"
like "$RUN_OUT" "usage: hetui inspect FILE \\[--json\\]" "--help shows the usage"
like "$RUN_OUT" "INSPECT JSON" "and points at the JSON documentation"
run_capture "$HETUI" help inspect
like "$RUN_OUT" "--json " "help inspect lists --json"

# A writer holding an exclusive lock on the file (as HDF5 >= 1.10 does
# while it writes) does not stop hetui from reading it, and hetui's read
# takes no lock that would stop the writer.
if command -v flock >/dev/null 2>&1; then
	cp "$fx/apsu_lzf.hdf" "$TAP_TMP/locked.hdf"
	flock -x "$TAP_TMP/locked.hdf" sleep 30 &
	lockpid=$!
	n=0
	until ! flock -n -x "$TAP_TMP/locked.hdf" true 2>/dev/null || [ $n -ge 100 ]; do
		n=$((n + 1)); sleep 0.05
	done
	run_capture env LC_ALL=C "$HETUI" inspect "$TAP_TMP/locked.hdf"
	is "$RUN_RC" 0 "a file locked by a writer is still inspected"
	run_capture env LC_ALL=C HDF5_USE_FILE_LOCKING=TRUE "$HETUI" inspect \
	    "$TAP_TMP/locked.hdf"
	is "$RUN_RC" 1 "with HDF5_USE_FILE_LOCKING=TRUE the lock stops the read"
	like "$RUN_ERR" "another program holds a lock on it .*HDF5_USE_FILE_LOCKING" \
	    "and the message says so, not 'corrupt'"
	kill $lockpid 2>/dev/null; wait $lockpid 2>/dev/null
else
	skip 3 "flock not installed"
fi

# Bold and dim only on a terminal, and not with NO_COLOR set and not
# empty (no-color.org); script(1) gives inspect a terminal.
if script -qec true /dev/null >/dev/null 2>&1; then
	esc=$(printf '\033')
	tty_run() {
		env TERM=xterm LC_ALL=C "$@" script -qec \
		    "'$HETUI' inspect '$fx/apsu_lzf.hdf'" /dev/null
	}
	out=$(tty_run env -u NO_COLOR)
	like "$out" "$esc\\[1m" "on a terminal: bold headings"
	out=$(tty_run env NO_COLOR=)
	like "$out" "$esc\\[1m" "NO_COLOR empty: still bold (no-color.org)"
	out=$(tty_run env NO_COLOR=1)
	like "$out" "layout" "NO_COLOR=1: the table is printed ..."
	unlike "$out" "$esc\\[" "... without escape sequences"
else
	skip 4 "no util-linux script(1)"
fi

# A damaged type header (a number 1.8 GB wide, found by fuzzing): refused
# before libhdf5 is asked to convert it, not 1.8 GB allocated.
run_capture "$HETUI" inspect "$top_srcdir/tests/fuzz/crashes/dataset/number-1.8GB-wide.hdf"
is "$RUN_RC" 1 "a number 1.8 GB wide: exit 1"
like "$RUN_ERR" "dynamic_index_mapping: its numbers are stored 1835101817 bytes wide \\(at most 16 exist\\): the file's header is damaged" \
    "... the message names the object and the damage"

done_testing
