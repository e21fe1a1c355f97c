#!/bin/sh
# t_layering.sh: the layer rules of docs/design.md, enforced on the built
# objects: the core library references no curses, no printing and no
# process exit; neither the core nor the engine references curses; the
# worker binary does not link ncurses; only the hetui binary does; every
# external symbol the core and the engine define starts with het_ (their
# module-private helpers too: static linking puts them beside a user's
# own); private headers have one suffix, _impl.h; the core references no
# symbol the engine defines (the build gives each library only its own
# layers' include paths, so a core file cannot even include an engine
# header); the numerics' headers (solver, sampler, posterior, sharding,
# consensus) do not include the configuration's, directly or through
# another header: het_config_bridge.h is where the two meet.
. "$top_srcdir/tests/tap.sh"
plan 18

core="$top_builddir/src/core/libhetcore.a"
engine="$top_builddir/src/engine/libhetengine.a"
undef_core=$($NM -u "$core" 2>/dev/null | awk '{print $NF}' | sort -u)
undef_engine=$($NM -u "$engine" 2>/dev/null | awk '{print $NF}' | sort -u)

[ -n "$undef_core" ]; ok $? "nm lists the core's undefined symbols"
curses='^(initscr|endwin|newwin|wmove|waddch|wadd_wch|mvwprintw|wrefresh|doupdate|wgetch|getch|printw|setupterm|tigetstr|resizeterm|start_color)$'
bad=$(printf '%s\n' "$undef_core" | grep -E "$curses")
[ -z "$bad" ]; ok $? "core references no curses symbol${bad:+: $bad}"
bad=$(printf '%s\n' "$undef_engine" | grep -E "$curses")
[ -z "$bad" ]; ok $? "engine references no curses symbol${bad:+: $bad}"
# Writing a results file with stdio is fine; reaching the terminal is not:
# no stdout/stderr, no functions that print to them, no exit, no getenv.
printing='^(printf|vprintf|puts|putchar|perror|stdout|stderr|exit|_exit|abort|H5Eprint2|getenv|secure_getenv)$'
bad=$(printf '%s\n' "$undef_core" | grep -E "$printing" | tr '\n' ' ')
[ -z "$bad" ]; ok $? "core never prints, exits or reads the environment${bad:+ (uses: $bad)}"

# defined external symbols: lines "ADDRESS TYPE NAME" with an upper-case
# type (T text, D/B/R/C data); archive member headers have no type
defined() {
	$NM -g --defined-only "$1" 2>/dev/null |
	    awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' | sort -u
}
def_core=$(defined "$core")
def_engine=$(defined "$engine")
[ -n "$def_core" ] && [ -n "$def_engine" ]
ok $? "nm lists the symbols the core and the engine define"
bad=$(printf '%s\n%s\n' "$def_core" "$def_engine" | grep -v '^het_' |
    head -5 | tr '\n' ' ')
[ -z "$bad" ]; ok $? "every external symbol of the core and the engine starts with het_${bad:+ (not: $bad)}"
bad=$(printf '%s\n' "$undef_core" | grep -Fx "$def_engine" | head -5 |
    tr '\n' ' ')
[ -z "$bad" ]; ok $? "the core references no engine symbol${bad:+ (uses: $bad)}"
# the het_*.h a core header includes, directly or not
closure() {
	todo=$1
	seen=
	while [ -n "$todo" ]; do
		set -- $todo
		h=$1
		shift
		todo=$*
		case " $seen " in *" $h "*) continue ;; esac
		seen="$seen $h"
		f=$(ls "$top_srcdir"/src/core/*/"$h" 2>/dev/null | head -1)
		[ -n "$f" ] || continue
		todo="$todo $(sed -n 's/^#include "\(het_[a-z0-9_]*\.h\)".*/\1/p' \
		    "$f" | tr '\n' ' ')"
	done
	printf '%s\n' $seen
}
bad=
for h in het_nlsq.h het_nuts.h het_laplace.h het_psis.h het_posterior.h \
    het_shard.h het_shard_run.h het_consensus.h het_separable.h het_resid.h; do
	closure "$h" | grep -qx 'het_config.h' && bad="$bad $h"
done
[ -z "$bad" ]; ok $? "the numerics' headers do not include het_config.h${bad:+ (these do:$bad)}"
# Module folders (issue 21): no source lies loose in src/core or
# src/engine; each sits in the folder of its module.
bad=$(cd "$top_srcdir" && ls src/core/*.[ch] src/engine/*.[ch] 2>/dev/null |
    tr '\n' ' ')
[ -z "$bad" ]; ok $? "every core and engine source is in a module folder${bad:+ (loose: $bad)}"
bad=$(cd "$top_srcdir" && find src ui -name '*.h' | grep -E '_(int|priv|private)\.h$' | tr '\n' ' ')
[ -z "$bad" ]; ok $? "private headers end in _impl.h${bad:+ (not: $bad)}"

# One poll loop (issue 21): poll() is called by het_loop alone (and by a
# zero-timeout readiness check in the worker and the allocation-failure
# sleep of het_procset's wait), and the workstation's loop names no
# panel's functions: panels bring their work in through the hooks of
# their ops table (the registry of panels is the only mention).
bad=$(cd "$top_srcdir" && grep -n '\<poll(' src/*/*.c src/*/*/*.c ui/*.c | \
    grep -v '^src/engine/loop/het_loop.c:' | grep -v 'poll(NULL, 0, ms)' | \
    grep -v 'poll(&pfd, 1, 0)' | grep -v '^[^:]*:[0-9]*:\s*\*' | \
    tr '\n' ' ')
[ -z "$bad" ]; ok $? "poll() only in het_loop${bad:+ (also: $bad)}"
bad=$(grep -n 'ui_sample_\|ui_fit_\|fit_running\|ui_results_\|ui_data_' \
    "$top_srcdir/ui/ui_main.c" | grep -v 'ui_fit_history_free' | \
    tr '\n' ' ')
[ -z "$bad" ]; ok $? "ui_main names no panel's functions${bad:+ ($bad)}"

if [ -z "$LDD" ]; then
	skip 3 "ldd not found"
else
	out=$($LDD "$top_builddir/hetui-worker")
	unlike "$out" 'ncurses|tinfo' "hetui-worker does not link ncurses"
	like "$out" 'libhdf5' "hetui-worker links the core's HDF5"
	out=$($LDD "$top_builddir/hetui")
	like "$out" 'ncurses' "hetui (the workstation) links ncursesw"
fi
# cairo (hetui report, src/report) only in the hetui binary
report="$top_builddir/src/report/libhetreport.a"
bad=$(defined "$report" | grep -v '^het_' | head -5 | tr '\n' ' ')
[ -n "$(defined "$report")" ] && [ -z "$bad" ]
ok $? "every external symbol of the report library starts with het_${bad:+ (not: $bad)}"
bad=$(printf '%s\n%s\n' "$undef_core" "$undef_engine" | grep '^cairo_' |
    head -3 | tr '\n' ' ')
[ -z "$bad" ]; ok $? "neither the core nor the engine references cairo${bad:+ ($bad)}"
if [ -z "$LDD" ]; then
	skip 1 "ldd not found"
else
	unlike "$($LDD "$top_builddir/hetui-worker")" 'libcairo' \
	    "hetui-worker does not link cairo"
fi
done_testing
