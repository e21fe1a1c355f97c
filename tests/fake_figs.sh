#!/bin/sh
# fake_figs.sh report --quiet -o OUT -- RUN: a stand-in for `hetui
# report`, for tests/t_engine_figjob.c: it acts as $FAKE_FIGS says and
# copies its arguments to $FAKE_OUT/args.
#
# Modes:
#   ok       OUT/.hetui-report lists a.png, b.png and c.png; writes a.png
#            and b.png (c.png is listed but never written); exit 0
#   fail     two lines on stderr, the last the error; exit 1
#   oneline  one line on stderr, the error; exit 1
#   silent   exit 3 without a word
#   crash    killed by SIGSEGV without a word
#   slow     OUT/.hetui-report and a.png, then a temporary file
#            .b.png.tmp.PID as hetui's atomic writes leave it, then waits
#            (for a cancel)
#   linger   0.3 s, then as ok
printf '%s\n' "$@" >"$FAKE_OUT/args"
out=$4
figs() {
	mkdir -p "$out" || exit 1
	printf '# figures of hetui report\na.png\nb.png\nc.png\n' \
	    >"$out/.hetui-report"
	echo A >"$out/a.png"
}
case $FAKE_FIGS in
linger)
	sleep 0.3
	figs
	echo B >"$out/b.png"
	exit 0 ;;
ok)
	figs
	echo B >"$out/b.png"
	exit 0 ;;
fail)
	echo "reading $6" >&2
	echo "hetui report: error: $6/hetui_results.h5 is damaged:" \
	    "run the fit again" >&2
	exit 1 ;;
oneline)
	echo "hetui report: error: $6 is not a run folder" >&2
	exit 1 ;;
silent)
	exit 3 ;;
crash)
	ulimit -c 0
	kill -SEGV $$ ;;
slow)
	figs
	echo half >"$out/.b.png.tmp.$$"
	echo started >"$FAKE_OUT/slow"
	sleep 30 ;;
esac
exit 9
