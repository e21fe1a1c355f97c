#!/bin/sh
# t_report.sh: `hetui report` on a small fit and a small posterior
# (tests/configs/sample_truth.yaml simulated, fitted and sampled with
# tests/configs/sample_run.yaml: static_ref, one angle, 50 frames, 2
# shards of 2 chains, well under a second each).
# Checks: the PNG files of a fit and of a posterior with their pixel
# sizes (tests/png_probe: cairo's PNG reader); the background is white;
# each colour bar runs from one end of its colour map to the other
# (viridis for data and model, blue-white-red for the residual); a
# second report is byte-identical; no time chunk in the PNG; -o NAME.pdf
# writes one page per figure (pdfinfo, skipped without it), refuses to
# replace it without --force; the corner plot of the two physics
# parameters (size, the NLSQ lines across its panels, the r cell
# tinted, the 2-D histogram and a dot per draw, white beside the grid;
# tests/t_report_corner checks the choice of parameters); a second
# report of the posterior is byte-identical; the error paths: not a run
# folder (nor a batch folder), a
# missing folder, a damaged and a foreign hetui_results.h5, a missing
# dataset, a folder of the user's files (refused, untouched, --force),
# an unwritable output, -c with another analysis mode, usage errors;
# no temporary file left behind; `hetui help report`.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"
plan_lazy

sample_setup t_report
probe="$top_builddir/tests/png_probe"

run_capture "$HETUI" simulate -q -c sample_truth.yaml -o sim.h5 \
    --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate the test data"
run_capture "$HETUI" fit -c sample_run.yaml -o fit1
is "$RUN_RC" 0 "fit it"
run_capture env HETUI_TEST_MARK=$mark "$HETUI" sample -c sample_run.yaml \
    -o post1 --nlsq-result fit1 --workers 2
ok $([ -f post1/hetui_results.h5 ]; echo $?) "sample it (exit $RUN_RC)"

# --- the figures of a fit ---------------------------------------------------
run_capture "$HETUI" report fit1
is "$RUN_RC" 0 "report of a fit: exit 0"
like "$RUN_OUT" '^3 figures written to fit1/report/ \([0-9.]+ s\)$' \
    "it says how many figures went where"
is "$("$probe" fit1/report/heat_000.png)" "1660 560" "heat_000.png: 1660 x 560"
is "$("$probe" fit1/report/g2_000.png)" "900 600" "g2_000.png: 900 x 600"
# 16 rows: the 14 heterodyne parameters (static_ref holds the sample's),
# contrast[0], offset[0]; 110 + 22 per row
is "$("$probe" fit1/report/params.png)" "1000 462" "params.png: 1000 x 462"
for f in heat_000 g2_000 params; do
	is "$("$probe" fit1/report/$f.png 2 2)" "255 255 255" \
	    "$f.png: white background"
done
# heat: data panel at x 80, its bar at x 490-510, the residual's at
# 1590-1610, both over y 80-479 (top row: the map's high end)
h=fit1/report/heat_000.png
is "$("$probe" $h 500 80)" "253 231 37" "data colour bar tops out in viridis yellow"
is "$("$probe" $h 500 479)" "68 1 84" "data colour bar starts at viridis purple"
is "$("$probe" $h 1600 80)" "178 24 43" "residual colour bar tops out in red"
is "$("$probe" $h 1600 479)" "33 102 172" "residual colour bar starts in blue"
is "$("$probe" $h 1600 280)" "247 247 247" "residual colour bar is white at 0"
grep -q tIME $h
ok $((1 - $?)) "no time chunk in the PNG"

mkdir first && cp fit1/report/*.png first/
run_capture "$HETUI" report fit1
is "$RUN_RC" 0 "a second report replaces the first"
same=0
for f in first/*.png; do
	cmp -s "$f" "fit1/report/${f#first/}" || same=1
done
ok $same "the second report is byte-identical"
# A figure an earlier report listed but this one does not write (a run
# with more angles before) is removed; files the marker does not list
# stay.
printf 'heat_099.png\n' >> fit1/report/.hetui-report
echo stale > fit1/report/heat_099.png
echo mine > fit1/report/notes.png
run_capture "$HETUI" report fit1
is "$RUN_RC" 0 "a third report"
ok "$([ ! -e fit1/report/heat_099.png ]; echo $?)" "the stale figure the old marker listed is gone"
is "$(cat fit1/report/notes.png)" mine "a file the marker did not list is kept"
unlike "$(cat fit1/report/.hetui-report)" "heat_099" "the new marker lists only this report's figures"
rm -f fit1/report/notes.png

# --- the figures of a posterior ---------------------------------------------
run_capture "$HETUI" report -c sample_run.yaml post1 -o post-png
is "$RUN_RC" 0 "report of a posterior with -c: exit 0"
like "$RUN_OUT" '^7 figures written to post-png/' "seven figures"
is "$("$probe" post-png/posterior.png)" "1200 370" \
    "posterior.png: two physics histograms in one row"
is "$("$probe" post-png/traces.png)" "1200 410" "traces.png: two rows"
# 2 shards, 4 parameters (D0_ref, alpha_ref, contrast[0], offset[0])
is "$("$probe" post-png/shards.png)" "680 218" "shards.png: 2 shards x 4"
# The corner plot of D0_ref and alpha_ref (two physics parameters: the
# pair is shown whatever its r): panels of 210 px at x 110 and 334, y
# 140 and 364; the NLSQ red (0.84 0.10 0.11 as cairo stores it: 215 25
# 28) runs 2 px wide across the whole panel, once in the marginal,
# twice (across and up) in the pair's panel.
c=post-png/corner.png
is "$("$probe" $c)" "1100 648" "corner.png: a 2 x 2 grid"
n=$("$probe" $c 110 140 320 350 215 25 28)
ok "$([ "$n" -ge 200 ] && [ "$n" -le 420 ]; echo $?)" \
    "the NLSQ line spans D0_ref's marginal ($n red pixels)"
n=$("$probe" $c 110 364 320 574 215 25 28)
ok "$([ "$n" -ge 400 ] && [ "$n" -le 840 ]; echo $?)" \
    "two NLSQ lines cross the pair's panel ($n red pixels)"
n=$("$probe" $c 110 364 320 574)
ok "$([ "$n" -ge 2000 ]; echo $?)" \
    "the 2-D histogram shades the pair's panel ($n pixels)"
n=$("$probe" $c 110 364 320 574 25 25 76)
ok "$([ "$n" -ge 20 ]; echo $?)" "200 draws: a dot each ($n dot pixels)"
rgb=$("$probe" $c 338 144)
ok "$(echo "$rgb" | awk '{ exit !($1 >= 128 && $3 >= 128 && $1 != $3 &&
    !($1 == 255 && $2 == 255 && $3 == 255)) }'; echo $?)" \
    "the r cell is tinted by r's sign ($rgb)"
is "$("$probe" $c 560 130 1100 648)" 0 "white beside the grid"
mkdir post-first && cp post-png/*.png post-first/
run_capture "$HETUI" report post1 -o post-png
same=0
for f in post-first/*.png; do
	cmp -s "$f" "post-png/${f#post-first/}" || same=1
done
ok $same "a second report of the posterior is byte-identical"

run_capture "$HETUI" report post1 -o post.pdf
is "$RUN_RC" 0 "-o NAME.pdf: exit 0"
if [ -n "$PDFINFO" ]; then
	pages=$("$PDFINFO" post.pdf 2>/dev/null | sed -n 's/^Pages: *//p')
	is "$pages" 7 "the PDF has one page per figure"
else
	skip 1 "pdfinfo not found (poppler-utils): page count not checked"
fi
cp post.pdf post.keep
run_capture "$HETUI" report post1 -o post.pdf
is "$RUN_RC" 1 "an existing PDF is not replaced: exit 1"
like "$RUN_ERR" "post.pdf exists: .*--force" "the message says why and how"
cmp -s post.pdf post.keep
ok $? "the PDF is untouched"
run_capture "$HETUI" report post1 -o post.pdf --force
is "$RUN_RC" 0 "--force replaces it"

# --- errors -----------------------------------------------------------------
mkdir empty
run_capture "$HETUI" report empty
is "$RUN_RC" 1 "not a run folder: exit 1"
like "$RUN_ERR" "empty is not a run folder: it has no hetui_results.h5" \
    "the message names the folder and the missing file"
like "$RUN_ERR" "nor is it a batch folder: it has neither rings.csv nor series.csv" \
    "... and the files of a batch folder"
run_capture "$HETUI" report nosuch
is "$RUN_RC" 1 "a missing folder: exit 1"
mkdir broken foreign
head -c 3000 fit1/hetui_results.h5 >broken/hetui_results.h5
run_capture "$HETUI" report broken
is "$RUN_RC" 1 "a truncated results file: exit 1"
like "$RUN_ERR" "broken/hetui_results.h5 is not an HDF5 file" \
    "the message names the damaged file"
cp sim.h5 foreign/hetui_results.h5
run_capture "$HETUI" report foreign
is "$RUN_RC" 1 "another HDF5 file: exit 1"
like "$RUN_ERR" "not a hetui results file" "the message says so"
ok $([ ! -e broken/report ] && [ ! -e foreign/report ]; echo $?) \
    "nothing is written for a bad run folder"
if [ -n "$PYTHON3" ] && "$PYTHON3" -c 'import h5py' 2>/dev/null; then
	mkdir holed && cp fit1/hetui_results.h5 holed/
	"$PYTHON3" -c 'import h5py, sys
with h5py.File(sys.argv[1], "r+") as f:
    del f["fit/residuals/angle_000"]' holed/hetui_results.h5
	run_capture "$HETUI" report holed -o holed.pdf
	is "$RUN_RC" 1 "a missing residual matrix: exit 1"
	like "$RUN_ERR" "has no /fit/residuals/angle_000" "the path is named"
	ok $([ ! -e holed.pdf ]; echo $?) "no PDF is left behind"
else
	skip 3 "python3 with h5py not found"
fi

mkdir mine && echo notes >mine/notes.txt
run_capture "$HETUI" report fit1 -o mine
is "$RUN_RC" 1 "a folder of the user's files: exit 1"
like "$RUN_ERR" "mine holds files hetui report did not write \\(notes.txt" \
    "the message names a file and the way out"
is "$(ls -A mine)" notes.txt "the folder is untouched"
run_capture "$HETUI" report fit1 -o mine --force
is "$RUN_RC" 0 "--force writes beside them"
is "$(cat mine/notes.txt)" notes "the user's file is kept"

run_capture "$HETUI" report fit1 -o fit1/hetui_results.h5/figs
is "$RUN_RC" 1 "an output folder that cannot be made: exit 1"
like "$RUN_ERR" "fit1/hetui_results.h5" "the message names it"
run_capture "$HETUI" report fit1 -o nodir/x.pdf
is "$RUN_RC" 1 "a PDF in a missing folder: exit 1"
like "$RUN_ERR" "cannot write nodir/x.pdf" "the message names the PDF"

"$HETUI" config --template two_component >other.yaml 2>/dev/null
run_capture "$HETUI" report -c other.yaml fit1
is "$RUN_RC" 1 "-c of another analysis mode: exit 1"
like "$RUN_ERR" "fit1 is a run of analysis_mode static_ref but other.yaml says two_component" \
    "the message names both modes"

run_capture "$HETUI" report
is "$RUN_RC" 2 "no run folder: usage error"
run_capture "$HETUI" report fit1 --bogus
is "$RUN_RC" 2 "an unknown option: usage error"
run_capture "$HETUI" report fit1 post1
is "$RUN_RC" 2 "two folders: usage error"
run_capture "$HETUI" help report
like "$RUN_OUT" "hetui report \\[-c CONFIG\\] RESULT_DIR" "hetui help report"

left=$(find . -name '.*.tmp.*' | wc -l | tr -d ' ')
is "$left" 0 "no temporary file is left behind"
done_testing
