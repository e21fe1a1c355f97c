#!/bin/sh
# t_layering.sh: the layer rules of docs/design.md, enforced on the built
# objects: the core library references no curses, no printing and no
# process exit; neither the core nor the engine references curses; the
# worker binary does not link ncurses; only the hetui binary does; every
# external symbol the core and the engine define starts with het_ (their
# module-private helpers too: static linking puts them beside a user's
# own); private headers have one suffix, _impl.h.
. "$top_srcdir/tests/tap.sh"
plan 10

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
bad=$(cd "$top_srcdir" && find src ui -name '*.h' | grep -E '_(int|priv|private)\.h$' | tr '\n' ' ')
[ -z "$bad" ]; ok $? "private headers end in _impl.h${bad:+ (not: $bad)}"

if [ -z "$LDD" ]; then
	skip 3 "ldd not found"
else
	out=$($LDD "$top_builddir/hetui-worker")
	unlike "$out" 'ncurses|tinfo' "hetui-worker does not link ncurses"
	like "$out" 'libhdf5' "hetui-worker links the core's HDF5"
	out=$($LDD "$top_builddir/hetui")
	like "$out" 'ncurses' "hetui (the workstation) links ncursesw"
fi
done_testing
