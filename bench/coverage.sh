#!/bin/sh
# coverage.sh: the coverage study of issue 18 (`make bench-coverage`;
# docs/PERFORMANCE.md, "Coverage of the default posterior").
# For data sets 0 .. N-1 (COVER_N, default 20): draw a truth
# (bench/coverage.py: heterodyne static_ref, D0_ref, alpha_ref and
# D_offset_ref free, 60-100 frames, 2-3 angles, noise 0.003-0.01),
# simulate it with `hetui simulate`, then `hetui sample` (its NLSQ fit,
# then NUTS with every sampler setting at its default), one posterior at
# a time, and count for every parameter whether the central 90 % interval
# of the draws (q5, q95) covers the truth.  Prints a line per data set
# (gates, R-hat, ESS, divergences, Laplace k-hat, leapfrog steps per
# transition, CPU seconds of the fit and the sampling with its workers)
# and the per-parameter and pooled coverage with their binomial ranges,
# then (bench/coverage_flat.py) the coverage of the same draws reweighted
# to flat priors.
# Usage: coverage.sh HETUI PYTHON3 [DIR]
# Environment: COVER_N (20), COVER_FIRST (0: the first data set's
# number), COVER_PRIORS (nlsq, the default priors; flat: the
# NLSQ-informed priors off, uniform priors in the bounds for the physics
# parameters, the study's control).
# With DIR every data set is kept in DIR/dNN and one that has its
# sample.json is not run again (a stopped study continues); without DIR
# a temporary directory is removed at the end.
# Exit status: 0 when every data set ran (whatever the coverage says:
# the verdict is printed), 1 when a simulation or a run failed.
hetui=$1
py=$2
keep=$3
here=`dirname "$0"`
n=${COVER_N:-20}
first=${COVER_FIRST:-0}
priors=${COVER_PRIORS:-nlsq}
if [ -z "$hetui" ] || [ -z "$py" ]; then
	echo "usage: coverage.sh HETUI PYTHON3 [DIR]" >&2
	exit 2
fi
if ! "$hetui" sample --help >/dev/null 2>&1; then
	echo "== hetui sample: not in this build, skipped"
	exit 0
fi
if [ -n "$keep" ]; then
	root=$keep
	mkdir -p "$root" || exit 1
else
	root=`mktemp -d /tmp/hetui-bench-coverage.XXXXXX` || exit 1
	trap 'rm -rf "$root"' EXIT
fi
last=`expr $first + $n`
i=$first
fail=0
while [ $i -lt $last ]; do
	d=$root/`printf 'd%02d' $i`
	i=`expr $i + 1`
	[ -s "$d/sample.json" ] && continue
	mkdir -p "$d" || exit 1
	noise=`"$py" "$here/coverage.py" truth \`expr $i - 1\` "$d" "$priors"` ||
	    exit 1
	(
	cd "$d" || exit 1
	"$hetui" simulate -q -c truth.yaml -o data.h5 --noise "$noise" \
	    --seed "$i" || exit 1
	rm -rf out
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "cpu user %U s system %S s" -o time \
		    "$hetui" sample -c run.yaml -o out --json >sample.out 2>log
	else
		"$hetui" sample -c run.yaml -o out --json >sample.out 2>log
	fi
	rc=$?
	# Exit 0: gates passed; 3 (or other non-zero with a JSON summary):
	# the run finished with failed gates, which the report counts.
	if "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' \
	    sample.out 2>/dev/null; then
		mv sample.out sample.json
	else
		echo "data set $d: hetui sample exit $rc, no summary" >&2
		tail -5 log >&2
		exit 1
	fi
	) || fail=1
	[ -s "$d/sample.json" ] && echo "`basename $d` done"
done
"$py" "$here/coverage.py" report "$root" $last || exit 1
# The priors' share: the same draws reweighted to flat priors (needs
# NumPy and h5py; Debian's python3 has them when $py does not).
if [ "$priors" = nlsq ]; then
	for p in "$py" /usr/bin/python3; do
		if "$p" -c 'import numpy, h5py' 2>/dev/null; then
			echo
			"$p" "$here/coverage_flat.py" "$root" $last
			break
		fi
	done
fi
exit $fail
