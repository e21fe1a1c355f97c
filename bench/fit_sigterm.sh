#!/bin/sh
# fit_sigterm.sh: how long a SIGTERM takes to end `hetui fit` with
# thousands of per-angle parameters (docs/PERFORMANCE.md, "Cancelling a
# fit with thousands of parameters (issue 19)").  Simulates static_ref
# data (30 frames, noise 0.01, NANGLES angles spread over 180 degrees;
# `hetui simulate` takes at most 1024), fits it jointly with individual
# contrast/offset (p = 2 + 2 NANGLES, soft_l1), sends SIGTERM DELAY
# seconds after the first progress line matching TRIGGER, and prints the
# time from the signal to the exit (wall, and CPU of hetui after the
# signal), the exit status (143) and the size of the partial result.
# Usage: fit_sigterm.sh HETUI [NANGLES [TRIGGER [DELAY]]]
# (defaults: 1000 angles, '^iter 1 ', 0.05 s).  Linux only (/proc).
hetui=$1
na=${2:-1000}
trig=${3:-'^iter 1 '}
delay=${4:-0.05}
[ -x "$hetui" ] || { echo "usage: $0 HETUI [NANGLES [TRIGGER [DELAY]]]" >&2; exit 2; }
d=$(mktemp -d /tmp/hetui-sigterm.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
phi=$(awk -v n="$na" 'BEGIN { for (i = 0; i < n; i++)
	printf "%s%g", i ? "," : "", 180 * i / n }')
cat >"$d/sim.yaml" <<EOF
analysis_mode: static_ref
analyzer_parameters:
  dt: 0.1
  start_frame: 1
  end_frame: 30
  scattering: {wavevector_q: 0.01, phi_angles: [30.0]}
parameters:
  reference:
    D0_ref: {value: 5000.0}
    alpha_ref: {value: 0.3}
    D_offset_ref: {value: 0.0, vary: false}
initial_parameters:
  per_angle_scaling: {contrast: [0.3], offset: [1.0]}
EOF
cat >"$d/fit.yaml" <<EOF
analysis_mode: static_ref
experimental_data: {file_path: $d/data.h5}
analyzer_parameters:
  start_frame: 1
  end_frame: 30
  scattering: {wavevector_q: 0.01}
parameters:
  reference:
    D0_ref: {value: 3000.0, min: 100.0, max: 100000.0}
    alpha_ref: {value: 0.1, min: -1.0, max: 1.0}
    D_offset_ref: {value: 0.0, vary: false}
optimization:
  nlsq: {per_angle_mode: individual}
EOF
"$hetui" simulate -q -c "$d/sim.yaml" -o "$d/data.h5" --frames 30 \
    --phi "$phi" --noise 0.01 || exit 1
"$hetui" fit -c "$d/fit.yaml" -o "$d/out" >/dev/null 2>"$d/err" &
pid=$!
until grep -qE "$trig" "$d/err" 2>/dev/null; do
	kill -0 $pid 2>/dev/null || { echo "the fit ended before '$trig'" >&2
		exit 1; }
	sleep 0.02
done
sleep "$delay"
tck=$(getconf CLK_TCK)
c1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
t1=$(date +%s.%N)
kill -TERM $pid
# the CPU of the process just before it is reaped
c2=$c1
while kill -0 $pid 2>/dev/null; do
	c=$(awk '{ print $14 + $15 }' /proc/$pid/stat 2>/dev/null) && c2=$c
	sleep 0.01
done
wait $pid
rc=$?
t2=$(date +%s.%N)
awk -v t1="$t1" -v t2="$t2" -v c1="$c1" -v c2="$c2" -v tck="$tck" \
    -v rc="$rc" -v p=$((2 + 2 * na)) 'BEGIN {
	printf "p = %d: SIGTERM to exit %.2f s wall, %.2f CPU-s after the " \
	    "signal, exit %d\n", p, t2 - t1, (c2 - c1) / tck, rc }'
du -sh "$d/out" | awk '{ print "partial result: " $1 }'
