#!/bin/sh
# t_fit_wire.sh: `hetui fit --all-rings --wire` and `--series --wire`,
# the records a batch sends to the workstation that runs it
# (docs/wire-protocol.md, section 7), on the three-ring file of
# t_fit_rings.sh (homodyne static, D0 12000 in every ring).  Checks: the
# hello first, then only records; the batch, start, read, iter and done
# records of each ring; the result record with the exit status, the batch
# folder and the summary the command prints without --wire (the table
# and the power-law slope of D0, 0 within 4 standard errors); nothing
# else on stdout; EOF on stdin cancels (the finished part summarised,
# status cancelled, exit 130); a series whose folder has no result file:
# an error record that says so, exit 1; --wire without a batch or with
# --json: usage errors.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/batch_data.sh"
plan_lazy

dir="$TAP_TMP"
cd "$dir" || exit 1
batch_configs && batch_rings
is "$?" 0 "simulate three rings"

# stdin stays open (a FIFO held by this shell) until the batch ends
mkfifo hold
exec 3<>hold
env LC_ALL=C "$HETUI" fit -c rings_start.yaml --all-rings --wire -o b1 \
    <hold >wire.out 2>wire.err
is "$?" 0 "--all-rings --wire: exit 0"
exec 3>&-
is "$(head -1 wire.out)" "hello hetui-wire 1" "the hello first"
is "$(grep -cvE '^(progress|result) \{' wire.out)" 1 \
    "then nothing but progress and result records"
like "$(sed -n 2p wire.out)" '^progress \{"what":"rings","dir":"b1","file":"rings.h5","of":3,"kind":"batch"\}$' \
    "the batch record: rings of rings.h5 into b1"
for r in 1 2 3; do
	like "$(cat wire.out)" "\"index\":$r,\"of\":3,\"label\":\"ring $r  q 0\\.[0-9]+\",\"dir\":\"b1/ring0$r-q[0-9.]+\",\"kind\":\"start\"" \
	    "ring $r: a start record with its folder"
	like "$(cat wire.out)" "\"index\":$r,\"status\":\"converged\",\"chi2_red\":0\\.[89][0-9]*,\"kind\":\"done\"" \
	    "ring $r: a done record, converged, chi2_red near 1"
done
is "$(grep -c '"kind":"read"' wire.out)" 6 "a read record per bin (2 per ring)"
ok "$([ "$(grep -c '"kind":"iter"' wire.out)" -ge 3 ]; echo $?)" \
    "iteration records"
res=$(grep '^result ' wire.out)
like "$res" '^result \{"status":"converged","exit":0,"batch_dir":"b1","n_fitted":3,"n":3,"summary":"hetui fit --all-rings: static, 3 of 3 rings of rings.h5' \
    "the result record: status, exit, folder, counts, the summary"
slope=$(printf '%s\n' "$res" | sed -n 's/.*D0 against q (3 converged rings): power-law slope \([-0-9.e+]*\) +- \([0-9.e+-]*\)\\n.*/\1 \2/p')
ok "$(echo "$slope" | awk 'NF == 2 { s = $1 < 0 ? -$1 : $1; exit !(s < 4 * $2 && $2 > 0) } NF != 2 { exit 1 }'; echo $?)" \
    "the summary has the slope of D0 against q, 0 within 4 s.e. ($slope)"
rate=$(printf '%s\n' "$res" | sed -n 's/.*rate Gamma = D0 q^2: power-law slope \([-0-9.e+]*\) +- \([0-9.e+-]*\)\\n.*/\1 \2/p')
ok "$(echo "$rate" | awk 'NF == 2 { d = $1 - 2; d = d < 0 ? -d : d; exit !(d < 4 * $2) } NF != 2 { exit 1 }'; echo $?)" \
    "and that of the rate D0 q^2, 2 within 4 s.e. ($rate)"
ok "$([ -f b1/rings.csv ] && [ -f b1/ring03-q0.011/hetui_results.h5 ]; echo $?)" \
    "the batch folder holds what the command writes"
like "$(cat wire.err)" "ring 1/3: q 0.005 1/A into b1/ring01" \
    "the usual progress still goes to stderr (the child's log)"

# --- EOF on stdin cancels ---------------------------------------------------
batch_slow
exec 3<>hold
"$HETUI" fit -c big_start.yaml big.h5 --all-rings --wire -o bc \
    --threads 1 <hold >big.out 2>big.err 3>&- &
pid=$!
n=0
while ! grep -q '"kind":"iter"' big.out 2>/dev/null && [ $n -lt 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
exec 3>&-	# the only writer: the child reads EOF
wait $pid
rc=$?
if grep -q '"index":1,"status":"cancelled"' big.out; then
	is "$rc" 130 "EOF on stdin during ring 1: exit 130"
	like "$(grep '^result ' big.out)" '^result \{"status":"cancelled","exit":130,"batch_dir":"bc","n_fitted":1,"n":2,' \
	    "the result record: cancelled, ring 1 summarised"
	ok "$([ -f bc/rings.csv ] && [ ! -e bc/ring02-q0.012 ]; echo $?)" \
	    "ring 1 kept, ring 2 not started"
else
	skip 3 "the fit ended (rc $rc) before stdin closed"
fi

# --- errors -----------------------------------------------------------------
mkdir empty
exec 3<>hold
"$HETUI" fit -c rings_start.yaml --series empty --wire <hold >e.out 2>e.err
is "$?" 1 "a series of an empty folder: exit 1"
exec 3>&-
like "$(cat e.out)" '^hello hetui-wire 1' "the hello"
like "$(sed -n 2p e.out)" '^error \{"shard":-1,"code":"HET_EINVAL","msg":"no result files in [^"]*empty: the folder is empty; a series needs result files' \
    "an error record that says why"
unlike "$(cat e.out)" '^result ' "and no result"
run_capture "$HETUI" fit -c rings_start.yaml rings.h5 --wire
is "$RUN_RC" 2 "--wire without a batch: usage error"
like "$RUN_ERR" "--wire is the workstation's way to run --all-rings or --series" \
    "and says why"
run_capture "$HETUI" fit -c rings_start.yaml --all-rings --wire --json
is "$RUN_RC" 2 "--wire --json: usage error"
like "$RUN_ERR" "it takes the place of --json" "and says why"
done_testing
