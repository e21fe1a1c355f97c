#!/bin/sh
# fake_batch.sh ARGS...: a stand-in for `hetui fit --wire`, for
# tests/t_engine_batch.c: it speaks section 7 of docs/wire-protocol.md
# as $FAKE_BATCH says, and copies its arguments and the configuration
# it was given to $FAKE_OUT/args and $FAKE_OUT/config.yaml.
#
# Modes:
#   ok        two rings: the first converges, the second fails; a warning;
#             records the view must ignore (an unknown kind, a start out
#             of order, a done of a ring that did not start); the result
#   cancel    one ring starts and iterates; on EOF on stdin: done
#             cancelled and a result "cancelled", exit 130
#   error     an error record (inputs refused), exit 1
#   silent    hello, then exit 7 without a result
#   garbage   hello, then a line that is not a record
# printf, not echo: dash's echo would turn the \n of the JSON into lines
say() { printf '%s\n' "$1"; }
echo "fake_batch: $FAKE_BATCH" >&2
printf '%s\n' "$@" >"$FAKE_OUT/args"
cp "$3" "$FAKE_OUT/config.yaml"
say "hello hetui-wire 1"
case $FAKE_BATCH in
ok)
	say 'progress {"kind":"batch","what":"rings","dir":"B","of":2}'
	say 'progress {"kind":"start","index":1,"of":2,"label":"ring 1  q 0.005","dir":"B/ring01"}'
	say 'progress {"kind":"read","bin":1,"bins":2}'
	say 'progress {"kind":"iter","who":"","iter":3,"cost":0.5,"chi2_red":1.25}'
	say 'progress {"kind":"done","index":1,"status":"converged","chi2_red":0.97}'
	say 'progress {"kind":"start","index":3,"of":2,"label":"bad","dir":"x"}'
	say 'progress {"kind":"done","index":9,"status":"converged"}'
	say 'progress {"kind":"mystery","index":1}'
	say 'progress {"kind":"start","index":2,"of":2,"label":"ring 2  q 0.0075","dir":"B/ring02"}'
	say 'progress {"kind":"failed","index":2,"msg":"B/ring02 holds the results of another run"}'
	say 'progress {"kind":"note","level":"warning","text":"ring 1: a warning"}'
	say 'result {"status":"failed","exit":1,"batch_dir":"B","n_fitted":2,"n":2,"summary":"TABLE\nPLOT\n"}'
	exit 1 ;;
cancel)
	say 'progress {"kind":"batch","what":"series","dir":"S","of":3}'
	say 'progress {"kind":"start","index":1,"of":3,"label":"m1.h5","dir":"S/01-m1","from":0}'
	say 'progress {"kind":"iter","who":"","iter":0,"cost":2,"chi2_red":9}'
	cat >/dev/null
	say 'progress {"kind":"done","index":1,"status":"cancelled","chi2_red":null}'
	say 'result {"status":"cancelled","exit":130,"batch_dir":"S","n_fitted":1,"n":3,"summary":"one\n"}'
	exit 130 ;;
error)
	say 'error {"shard":-1,"code":"HET_EINVAL","msg":"no result files in E: the folder is empty"}'
	exit 1 ;;
silent)
	exit 7 ;;
garbage)
	say 'this is not a record'
	sleep 5 ;;
esac
