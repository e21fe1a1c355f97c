#!/bin/sh
# posterior.sh: `make bench-posterior` (issue 18; docs/PERFORMANCE.md,
# "Coordinates the data determine"): the old default against the new
# default on one posterior of all the data of bench/cmc_sample.yaml (300
# frames x 8 angles, 30 parameters), in one run on one machine.
#
# Simulates the data (hetui simulate, noise 0.01, seed 7), fits them once
# (hetui fit), then samples them with the same NLSQ result, the same
# priors and the same budget (one shard, 4 chains x (150 + 500), dense,
# target 0.95, seed 42) twice: coordinates rates (the default) and
# power_law (the coordinates of hetui before; skipped with OLD=no, it
# takes about 15 minutes on 2 cores).  With BIG=yes it also samples a
# 1000-frame x 23-angle problem with the default (about half an hour on
# 2 cores).  Prints, per run: CPU seconds of hetui and its workers, wall
# seconds, leapfrog steps per transition, the lowest bulk ESS, that ESS
# per CPU second, the gates, and for the old run the largest difference
# of a physics parameter's mean from the new run's, in the new run's sd.
# Every run is also compared with the reference posterior of its problem
# in bench/reference/ (a long run of the same density: REF=yes makes them
# again, below): the largest |mean - reference mean| / reference sd and
# |sd / reference sd - 1| over all parameters, and whether they are
# within the issue's 0.1 sd and 10 %.
# With REF=yes, the reference of each problem run (300 x 8; 1000 x 23
# with BIG=yes) is sampled first: the default sampler with 8 chains x
# (300 + 4000) at 300 x 8 and 4 chains x (300 + 1500) at 1000 x 23, seed
# 20261127, written to DIR/ref300.json (and ref1000.json) and, with
# h5dump (hdf5-tools), DIR/ref300_draws.csv.gz (about 2000 draws, evenly
# thinned: every 16th at 300 x 8, every 3rd at 1000 x 23); copy
# them into bench/reference/ to make them the reference.
# Usage: posterior.sh HETUI PYTHON3 [DIR]   (DIR keeps the runs)
# Environment: HETUI_WORKER (the worker program), OLD, BIG, REF.
hetui=$1
py=$2
keep=$3
if [ -n "$keep" ]; then
	d=$keep
	mkdir -p "$d" || exit 1
else
	d=`mktemp -d /tmp/hetui-bench-posterior.XXXXXX` || exit 1
	trap 'rm -rf "$d"' EXIT
fi
here=`cd "\`dirname "$0"\`" && pwd`

# config NAME FRAMES ANGLES COORDINATES [CHAINS WARMUP SAMPLES SEED]:
# a variant of cmc_sample.yaml (default budget 4 x (150 + 500), seed 42)
config() {
	"$py" - "$here/cmc_sample.yaml" "$d/$1.yaml" "$2" "$3" "$4" \
	    "${5:-4}" "${6:-150}" "${7:-500}" "${8:-42}" <<'PY'
import re, sys
src, dst, frames, nang, coords, ch, wu, ns, seed = sys.argv[1:10]
s = open(src).read()
s = re.sub(r"end_frame: \d+", "end_frame: %s" % frames, s)
n = int(nang)
if n != 8:
    phis = ", ".join("%.1f" % (-90 + 180.0 * k / n) for k in range(n))
    s = re.sub(r"phi_angles: \[[^\]]*\]", "phi_angles: [%s]" % phis, s)
    c = ", ".join("0.30" for k in range(n))
    o = ", ".join("1.0" for k in range(n))
    s = re.sub(r"contrast: \[[^\]]*\]", "contrast: [%s]" % c, s)
    s = re.sub(r"    offset: \[[^\]]*\]", "    offset: [%s]" % o, s)
s = s.replace("  cmc:\n", "  cmc:\n    coordinates: %s\n"
              "    sharding:\n      num_shards: 1\n" % coords, 1)
s = re.sub(r"num_warmup: \d+", "num_warmup: " + wu, s)
s = re.sub(r"num_samples: \d+", "num_samples: " + ns, s)
s = re.sub(r"num_chains: \d+", "num_chains: " + ch, s)
s = re.sub(r"seed: \d+", "seed: " + seed, s)
open(dst, "w").write(s)
PY
}

# run NAME DATA: sample with NAME.yaml and the fit in DIR/fit_DATA
run() {
	rm -rf "$d/out_$1"
	/usr/bin/time -f '%e %U %S' -o "$d/time_$1" "$hetui" sample \
	    -c "$d/$1.yaml" "$d/$2.h5" --nlsq-result "$d/fit_$2" \
	    -o "$d/out_$1" --json --progress 0 >"$d/$1.json" 2>"$d/$1.err"
	echo "$?" >"$d/rc_$1"
}

# problem DATA FRAMES ANGLES: simulate and fit once
problem() {
	config "$1" "$2" "$3" rates || exit 1
	if [ ! -f "$d/$1.h5" ]; then
		"$hetui" simulate -c "$d/$1.yaml" -o "$d/$1.h5" --noise 0.01 \
		    --seed 7 -q || exit 1
	fi
	if [ ! -f "$d/fit_$1/nlsq_parameters.json" ]; then
		rm -rf "$d/fit_$1"
		"$hetui" fit -c "$d/$1.yaml" "$d/$1.h5" -o "$d/fit_$1" \
		    >/dev/null 2>&1 || exit 1
	fi
}

# reference DATA FRAMES ANGLES CHAINS WARMUP SAMPLES: the long run
reference() {
	config "ref$2" "$2" "$3" rates "$4" "$5" "$6" 20261127
	run "ref$2" "$1"
	if command -v h5dump >/dev/null 2>&1; then
		h5dump -d /cmc/consensus/draws -m %.10g -y -w 0 -o "$d/draws.txt" \
		    "$d/out_ref$2/hetui_results.h5" >/dev/null &&
		"$py" - "$d/ref$2.json" "$d/draws.txt" 2000 <<'PY' |
import json, sys
names = json.load(open(sys.argv[1]))["parameters"].keys()
rows = " ".join(open(sys.argv[2]).read().split()).split(",")
vals = [v.strip() for v in rows if v.strip()]
n = len(names)
step = max(1, len(vals) // n // int(sys.argv[3]))
print(",".join(names))
for k in range(0, len(vals) // n, step):
    print(",".join(vals[k * n:(k + 1) * n]))
PY
		gzip -9 >"$d/ref$2_draws.csv.gz"
	fi
}

problem p300 300 8
if [ "$REF" = yes ]; then
	reference p300 300 8 8 300 4000
	[ "$BIG" = yes ] && { problem p1000 1000 23; reference p1000 1000 23 \
	    4 300 1500; }
fi
config new300 300 8 rates
run new300 p300
names="new300"
[ "$REF" = yes ] && names="ref300 $names"
if [ "$OLD" != no ]; then
	config old300 300 8 power_law
	run old300 p300
	names="$names old300"
fi
if [ "$BIG" = yes ]; then
	problem p1000 1000 23
	config new1000 1000 23 rates
	run new1000 p1000
	names="$names new1000"
	[ "$REF" = yes ] && names="$names ref1000"
fi

"$py" - "$d" "$here/reference" $names <<'PY'
import json, os, sys
d, refdir, names = sys.argv[1], sys.argv[2], sys.argv[3:]
phys = ["D0_ref", "alpha_ref", "D_offset_ref", "D0_sample", "alpha_sample",
        "D_offset_sample", "v0", "beta", "v_offset", "f0", "f1", "f2", "f3",
        "phi0"]
runs = {}
refs = {}
for size in ("300", "1000"):
    f = os.path.join(refdir, "p%s.json" % size)
    if os.path.exists(f):
        refs[size] = json.load(open(f))["parameters"]
print("%-8s %8s %7s %8s %8s %9s %-6s %-7s %s" % ("run", "CPU s", "wall s",
      "steps", "min ESS", "ESS/CPU-s", "gates", "vs new",
      "vs reference: max |dmean|/sd, max |sd/sd_ref-1|"))
for n in names:
    wall, user, sys_ = (float(x) for x in
                        open("%s/time_%s" % (d, n)).read().split()[-3:])
    try:
        r = json.load(open("%s/%s.json" % (d, n)))
        r["leapfrog_per_transition"], r["min_ess_bulk"]
    except (ValueError, KeyError):
        print("%-8s failed (exit %s): see %s/%s.err" % (
            n, open("%s/rc_%s" % (d, n)).read().strip(), d, n))
        continue
    runs[n] = r
    cpu = user + sys_
    cmp = ""
    new = runs.get("new" + n[3:])
    if n.startswith("old") and new is not None:
        dz = max(abs(r["parameters"][p]["mean"] -
                     new["parameters"][p]["mean"]) /
                 new["parameters"][p]["sd"] for p in phys)
        cmp = "%.2f" % dz
    ref = refs.get(n[3:])
    vs = "no reference"
    if ref is not None and not n.startswith("ref"):
        dm = max((abs(r["parameters"][p]["mean"] - ref[p]["mean"]) /
                  ref[p]["sd"], p) for p in ref)
        ds = max((abs(r["parameters"][p]["sd"] / ref[p]["sd"] - 1), p)
                 for p in ref)
        vs = "%.3f (%s), %.3f (%s): %s" % (dm[0], dm[1], ds[0], ds[1],
             "within 0.1 sd and 10 %" if dm[0] <= 0.1 and ds[0] <= 0.1
             else "OUTSIDE 0.1 sd or 10 %")
    elif n.startswith("ref"):
        vs = "(the reference run)"
    print("%-8s %8.1f %7.1f %8.1f %8.0f %9.2f %-6s %-7s %s" % (
        n, cpu, wall, r["leapfrog_per_transition"], r["min_ess_bulk"],
        r["min_ess_bulk"] / cpu, "passed" if r["gates_passed"] else
        "FAILED", cmp, vs))
PY
