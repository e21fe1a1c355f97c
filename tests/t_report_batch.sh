#!/bin/sh
# t_report_batch.sh: `hetui report` on batch folders: the rings of
# t_fit_rings.sh (tests/configs/rings_truth.yaml simulated at three q,
# fitted --all-rings from rings_start.yaml) and a series of three files
# of t_fit_series.sh's drifting D0 (fitted --series), each well under a
# second; then tables written here by hand (rings with a failed and a
# not converged row, a negative value; a series with a failed file).
# Checks: the figures (one per free physics parameter: not the fixed
# ones, not contrast or offset) with their sizes and white backgrounds;
# every converged point is drawn where the table puts it (its pixel
# computed here from the documented axes: log-log for rings, 6 % of a
# decade beyond the q range and 8 % of the values' span with their
# uncertainties; linear for a series and for a ring parameter that is
# not positive everywhere, half a file beyond the indices), rows that
# did not converge are not; the trend line, the dashed D0-constant line
# of the rings' D0 and the series' time axis on top are drawn; a second
# report is byte-identical; -o NAME.pdf has a page per figure (pdfinfo);
# -c against the batch's fits; and every error: a folder with neither a
# run nor a batch, rings.h5 without rings.csv, the tables of two
# batches, a wrong header, a row of another length, a text for a
# number, a table without rows, one without a converged fit, -c of
# another mode, -c on a table without its fits' folders; nothing is
# written on an error, no temporary file is left behind.
#
# Margins: no fit's digits are asserted; the pixels are computed from
# the tables the fits wrote, so they hold for any values.
. "$top_srcdir/tests/tap.sh"
plan_lazy
tap_in_tmp rings_truth.yaml rings_start.yaml
probe="$top_builddir/tests/png_probe"
# Colours as cairo stores them (16-bit d * 65535 + 0.5, its high byte):
# the points' 0.12 0.47 0.71.
point="30 120 181"

# points CSV XCOL NAME: "x y" of the pixel centre of every converged
# value of NAME in the figure of the table CSV (rings: XCOL q, log-log
# when every value is positive; series: XCOL index, linear).  The plot
# area is x 110-930, y 150-570.
points() {
	csv_col "$1" status >pt.s
	csv_col "$1" "$2" >pt.x
	csv_col "$1" "$3" >pt.v
	csv_col "$1" "$3_unc" >pt.u
	paste -d' ' pt.s pt.x pt.v pt.u | awk -v lx=$([ "$2" = q ] &&
	    echo 1 || echo 0) '
	    function l10(v) { return log(v) / log(10) }
	    $1 == "converged" && $3 != "" {
		n++; x[n] = $2; v[n] = $3; u[n] = NF > 3 ? $4 : 0
		if ($3 <= 0) pos = 1 }
	    END {
		ly = lx && !pos
		for (i = 1; i <= n; i++) {
			lo = v[i] - u[i]; hi = v[i] + u[i]
			if (ly && lo <= 0) lo = v[i]
			X[i] = lx ? l10(x[i]) : x[i]
			Y[i] = ly ? l10(v[i]) : v[i]
			lo = ly ? l10(lo) : lo; hi = ly ? l10(hi) : hi
			if (i == 1 || X[i] < x0) x0 = X[i]
			if (i == 1 || X[i] > x1) x1 = X[i]
			if (i == 1 || lo < y0) y0 = lo
			if (i == 1 || hi > y1) y1 = hi
		}
		pad = 0.08 * (y1 - y0); y0 -= pad; y1 += pad
		d = lx ? 0.06 : 0.5; x0 -= d; x1 += d
		for (i = 1; i <= n; i++)
			printf "%d %d\n", 110 + 820 * (X[i] - x0) / (x1 - x0) + 0.5,
			    570 - 420 * (Y[i] - y0) / (y1 - y0) + 0.5
	    }'
}

# drawn PNG CSV XCOL NAME WHAT: every point of NAME has the points' colour
drawn() {
	_n=0
	_bad=
	for _p in $(points "$2" "$3" "$4" | tr ' ' ,); do
		_n=$((_n + 1))
		_c=$("$probe" "$1" ${_p%,*} ${_p#*,})
		[ "$_c" = "$point" ] || _bad="$_bad (${_p}: $_c)"
	done
	ok "$([ -z "$_bad" ] && [ $_n -gt 0 ]; echo $?)" \
	    "$5: $_n points where the table puts them$_bad"
}

# same A B: the PNG files of folder A are those of folder B, byte for byte
same() {
	_r=0
	for _f in "$1"/*.png; do
		cmp -s "$_f" "$2/${_f#"$1"/}" || _r=1
	done
	echo $_r
}

# --- the rings of a fit --------------------------------------------------
run_capture "$HETUI" simulate -q -c rings_truth.yaml -o rings.h5 \
    --q 0.005,0.0075,0.011 --noise 0.003 --seed 11
is "$RUN_RC" 0 "simulate three rings"
run_capture "$HETUI" fit -c rings_start.yaml rings.h5 --all-rings -o rb
is "$RUN_RC" 0 "fit them (--all-rings)"

run_capture "$HETUI" report rb
is "$RUN_RC" 0 "report of a rings batch: exit 0"
like "$RUN_OUT" '^1 figures written to rb/report/ \([0-9.]+ s\)$' \
    "one figure (alpha and D_offset are fixed, contrast and offset not physics)"
is "$(ls rb/report)" "rings_D0.png" "rings_D0.png"
f=rb/report/rings_D0.png
is "$("$probe" $f)" "1000 640" "rings_D0.png: 1000 x 640"
is "$("$probe" $f 2 2)" "255 255 255" "white background"
drawn $f rb/rings.csv q D0 "D0 against q, log-log"
n=$("$probe" $f 111 151 930 570 128 128 128)
ok "$([ "$n" -ge 100 ]; echo $?)" "the grey dashes of D0 constant in q ($n pixels)"
# the power law in orange (1.0 0.50 0.05: 255 128 12), about 820 px long
n=$("$probe" $f 111 151 930 570 255 128 12)
ok "$([ "$n" -ge 400 ]; echo $?)" "the power law drawn across ($n pixels)"
is "$("$probe" $f 940 150 1000 640)" 0 "white right of the plot"
mkdir first && cp rb/report/*.png first/
run_capture "$HETUI" report rb
is "$RUN_RC" 0 "a second report"
is "$(same first rb/report)" 0 "the second report is byte-identical"

run_capture "$HETUI" report -c rings_start.yaml rb -o rings.pdf
is "$RUN_RC" 0 "-c with the batch's configuration, -o NAME.pdf: exit 0"
like "$RUN_OUT" '^1 figures written to rings.pdf ' "one page"

# --- a series of fits ----------------------------------------------------
mkdir data
for i in 1 2 3; do
	d=$((10000 + 1500 * i))
	sed "s/values: \[12000.0/values: [$d.0/" rings_truth.yaml >truth$i.yaml
	"$HETUI" simulate -q -c truth$i.yaml -o data/m$i.h5 --q 0.0075 \
	    --noise 0.003 --seed $((20 + i))
	touch -d "2024-03-05 10:0$i:00" data/m$i.h5
done
run_capture "$HETUI" fit -c rings_start.yaml --series data -o sb
is "$RUN_RC" 0 "fit a series of three files"
run_capture "$HETUI" report sb -o sb-png
is "$RUN_RC" 0 "report of a series: exit 0"
is "$(ls sb-png)" "series_D0.png" "series_D0.png"
f=sb-png/series_D0.png
is "$("$probe" $f)" "1000 640" "series_D0.png: 1000 x 640"
drawn $f sb/series.csv index D0 "D0 against the file index"
n=$("$probe" $f 111 151 930 570 255 128 12)
ok "$([ "$n" -ge 100 ]; echo $?)" "the drift drawn ($n pixels)"
n=$("$probe" $f 110 100 930 148)
ok "$([ "$n" -ge 100 ]; echo $?)" "the seconds since the first file on top ($n pixels)"
run_capture "$HETUI" report sb -o sb.pdf
is "$RUN_RC" 0 "-o NAME.pdf of a series"

# --- tables written by hand ------------------------------------------------
H="ring,q,q2,status,chi2_red,D0,D0_unc,alpha,alpha_unc,D_offset,D_offset_unc,contrast[0],contrast[0]_unc,run_dir,message"
mkdir hand
printf '%s\r\n' "$H" \
    '1,0.004,1.6e-05,converged,1.02,2500.5,125.25,0.31,0.02,7,,0.25,0.001,a/r1,' \
    '2,0.006,3.6e-05,failed,,,,,,,,,,,"cannot read, bin 2"' \
    '3,0.009,8.1e-05,converged,0.97,1111.25,40.5,-0.12,0.03,7,,0.26,0.001,a/r3,' \
    '4,0.0135,0.00018225,not_converged,3.5,1500,100,0.1,0.01,7,,0.24,0.001,a/r4,' \
    '5,0.02,0.0004,converged,1.1,312.5,20.75,0.05,0.04,7,,0.25,0.001,a/r5,' \
    >hand/rings.csv
run_capture "$HETUI" report hand -o hand-png
is "$RUN_RC" 0 "a table written by hand: exit 0"
is "$(ls hand-png | tr '\n' ' ')" "rings_D0.png rings_alpha.png " \
    "D0 and alpha drawn; D_offset (fixed) and contrast[0] not"
drawn hand-png/rings_D0.png hand/rings.csv q D0 "hand D0 (log-log)"
drawn hand-png/rings_alpha.png hand/rings.csv q alpha \
    "hand alpha (a negative value: linear y)"
# The not-converged ring 4 (q 0.0135, D0 1500 inside the range) would
# stand at x 699 on the D0 figure (log q from log 0.004 - 0.06 to log
# 0.02 + 0.06); nothing of the points' colour is there.
is "$("$probe" hand-png/rings_D0.png 689 151 709 570 $point)" 0 \
    "the not-converged ring is not drawn"
run_capture "$HETUI" report hand -o hand.pdf
if [ -n "$PDFINFO" ]; then
	pages=$("$PDFINFO" hand.pdf 2>/dev/null | sed -n 's/^Pages: *//p')
	is "$pages" 2 "the PDF has a page per parameter"
else
	skip 1 "pdfinfo not found (poppler-utils): page count not checked"
fi
mkdir hands
printf '%s\r\n' \
    "index,file,mtime,t,start_from,status,chi2_red,D0_ref,D0_ref_unc,run_dir,message" \
    '1,d/a1.h5,2024-03-05T10:00:00Z,0,0,converged,1,4000,50,b/1,' \
    '2,d/a2.h5,2024-03-05T10:00:30Z,30,1,failed,,,,,"no, not this"' \
    '3,d/a3.h5,2024-03-05T10:01:00Z,60,1,converged,1,4400,60,b/3,' \
    '4,d/a4.h5,2024-03-05T10:02:00Z,120,3,converged,1,4350.5,80,b/4,' \
    >hands/series.csv
run_capture "$HETUI" report hands
is "$RUN_RC" 0 "a series written by hand, a failed file among them"
drawn hands/report/series_D0_ref.png hands/series.csv index D0_ref \
    "hand series: converged files"

# --- errors ------------------------------------------------------------------
# refused WHAT REGEX [OPTION] FOLDER: hetui report exits 1 with a
# message matching REGEX.
refused() {
	_what=$1
	_re=$2
	shift 2
	run_capture "$HETUI" report "$@"
	is "$RUN_RC" 1 "$_what: exit 1"
	like "$RUN_ERR" "$_re" "$_what: the message"
}

mkdir nothing
refused "neither a run nor a batch folder" \
    "nothing is not a run folder: it has no hetui_results.h5; nor is it a batch folder: it has neither rings.csv nor series.csv" \
    nothing
mkdir h5only && cp rb/rings.h5 h5only/
refused "rings.h5 without rings.csv" \
    "h5only has rings.h5 but no rings.csv: .*restore it, or run the batch again" \
    h5only
mkdir both && cp rb/rings.csv sb/series.csv both/
refused "the tables of two batches" \
    "both holds the summaries of two batches \\(rings.csv and series.csv\\).*move one" \
    both
mkdir badhead && sed '1s/^ring,q,/ring,Q,/' hand/rings.csv >badhead/rings.csv
refused "a wrong header" \
    "badhead/rings.csv line 1: column 2 is 'Q', expected 'q'" badhead
mkdir short && sed '4s/,a\/r3,/,/' hand/rings.csv >short/rings.csv
refused "a malformed row" \
    "short/rings.csv line 4: 14 fields, the header has 15" short
mkdir nan && sed '2s/,2500.5,/,2.5e3x,/' hand/rings.csv >nan/rings.csv
refused "a text for a number" \
    "nan/rings.csv line 2, column D0: '2.5e3x' is not a number" nan
mkdir emptyseries && head -1 sb/series.csv >emptyseries/series.csv
refused "an empty series" \
    "emptyseries/series.csv has no rows: the batch fitted no file, so there is nothing to draw" \
    emptyseries
mkdir noconv && sed 's/,converged,/,not_converged,/' rb/rings.csv \
    >noconv/rings.csv
refused "no converged fit" \
    "none of the 3 rows of noconv/rings.csv is a converged fit .*\\(the first says not_converged\\)" \
    noconv
"$HETUI" config --template two_component >other.yaml 2>/dev/null
refused "-c of another mode" \
    "rb is a batch of analysis_mode static but other.yaml says two_component" \
    -c other.yaml rb
refused "-c on a table without its fits' folders" \
    "the batch folder hand holds no run folder of its fits .*leave out -c" \
    -c rings_start.yaml hand
ok "$(ls -d nothing/report h5only/report both/report badhead/report \
    short/report nan/report emptyseries/report noconv/report 2>/dev/null |
    wc -l | tr -d ' ')" "nothing is written for a bad batch folder"
left=$(find . -name '.*.tmp.*' | wc -l | tr -d ' ')
is "$left" 0 "no temporary file is left behind"
done_testing
