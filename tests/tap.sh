# tap.sh: Test Anything Protocol helpers for hetui's shell tests.
# Source it: . "$top_srcdir/tests/tap.sh"
#
#   plan N | plan_lazy ... done_testing
#   ok STATUS "message"        (STATUS 0 passes)
#   is GOT WANT "message"
#   like GOT REGEX "message"   (extended regex)
#   skip_all "reason"
#   diag "text"
#   run_capture CMD...         sets RUN_OUT, RUN_ERR and RUN_RC

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=-1
TAP_TMP=${TMPDIR:-/tmp}/hetui-tap-$$
mkdir -p "$TAP_TMP"
trap 'rm -rf "$TAP_TMP"' EXIT

plan() { TAP_PLANNED=$1; echo "1..$1"; }
plan_lazy() { TAP_PLANNED=-2; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

ok() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'" "want: '$2'"; fi
}

like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"; diag "output does not match /$2/:" "$1"; fi
}

unlike() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		ok 1 "$3"; diag "output matches /$2/ but must not:" "$1"
	else ok 0 "$3"; fi
}

skip() {
	i=0
	while [ "$i" -lt "$1" ]; do
		TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $2"; i=$((i + 1))
	done
}

run_capture() {
	"$@" >"$TAP_TMP/out" 2>"$TAP_TMP/err"
	RUN_RC=$?
	RUN_OUT=$(cat "$TAP_TMP/out")
	RUN_ERR=$(cat "$TAP_TMP/err")
}

# tap_in_tmp CONFIG...: work in $TAP_TMP (also $dir) with copies of the
# named files of tests/configs.
tap_in_tmp() {
	dir="$TAP_TMP"
	for _c in "$@"; do
		cp "$top_srcdir/tests/configs/$_c" "$dir/" || exit 1
	done
	cd "$dir" || exit 1
}

# csv_col FILE NAME: the values of the CSV column NAME (CRLF or LF line
# ends, no quoted commas), one per line.
csv_col() {
	awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++)
	    { sub(/\r$/, "", $i); if ($i == n) c = i } next }
	    { sub(/\r$/, ""); print $c }' "$1"
}

# interrupt_after PID FILE: SIGINT to PID once FILE (its stderr) shows a
# fit's first iteration ("iter 1 "), or after 30 s, or not at all when
# PID has ended; then wait for it.  $INT_RC is its exit status.
interrupt_after() {
	_i=0
	while [ $_i -lt 600 ] && ! grep -q '^iter 1 ' "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
		_i=$((_i + 1))
	done
	kill -INT "$1" 2>/dev/null
	wait "$1"
	INT_RC=$?
}

done_testing() {
	if [ "$TAP_PLANNED" -eq -2 ]; then echo "1..$TAP_N"; TAP_PLANNED=$TAP_N; fi
	if [ "$TAP_PLANNED" -ne "$TAP_N" ]; then
		diag "planned $TAP_PLANNED tests but ran $TAP_N"; exit 1; fi
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}
