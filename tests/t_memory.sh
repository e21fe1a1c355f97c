#!/bin/sh
# t_memory.sh: a frame window that cannot fit in memory is refused before
# anything is read (issue 19: a 20000-frame window used to try ~19 GB
# with no estimate).  HETUI_MEMORY_AVAILABLE stands in for the machine's
# memory, so the test is the same on any machine: `hetui fit` and
# `hetui sample` exit 1 with the estimate, what is available and what to
# change, and write no run folder; a window taking more than half gets a
# warning and runs; the window the user shortens then fits.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/sample_lib.sh"
plan_lazy

sample_setup t_memory
sed 's/end_frame: 50/end_frame: 400/' sample_truth.yaml >big.yaml
run_capture "$HETUI" simulate -q -c big.yaml -o sim.h5 --noise 0.003 --seed 3
is "$RUN_RC" 0 "simulate 400 frames"

# 400 frames, 1 angle: 79800 pairs x 64 B + 2 x 400^2 x 8 B + 64 MiB
# = 71.3 MiB.
HETUI_MEMORY_AVAILABLE=50M run_capture "$HETUI" fit -c big.yaml sim.h5 -o fit1
is "$RUN_RC" 1 "fit, 50 MiB available: exit 1"
like "$RUN_ERR" "hetui fit: error: frames 1..400 of 1 angle \\(400 frames\\) need about 71 MiB of memory, more than the 50 MiB available; nothing was read" \
    "... the estimate and what is available"
like "$RUN_ERR" "shorter frame window" "... and what to change"
ok "$([ ! -e fit1 ]; echo $?)" "... no run folder"

HETUI_MEMORY_AVAILABLE=50M run_capture "$HETUI" sample -c big.yaml sim.h5 -o smp1
is "$RUN_RC" 1 "sample, 50 MiB available: exit 1"
like "$RUN_ERR" "need about 71 MiB of memory, more than the 50 MiB available" \
    "... the same message"
ok "$([ ! -e smp1 ]; echo $?)" "... no run folder"

HETUI_MEMORY_AVAILABLE=100M run_capture "$HETUI" fit -c big.yaml sim.h5 -o fit2
is "$RUN_RC" 0 "fit, 100 MiB available: runs"
like "$RUN_ERR" "warning: frames 1..400 of 1 angle \\(400 frames\\) need about 71 MiB of memory, more than half of the 100 MiB available" \
    "... with a warning"

# The user shortens the window: 200 frames need 66 MiB.
sed 's/end_frame: 400/end_frame: 200/' big.yaml >short.yaml
HETUI_MEMORY_AVAILABLE=200M run_capture "$HETUI" fit -c short.yaml sim.h5 -o fit3
is "$RUN_RC" 0 "a shorter window with 200 MiB: runs"
unlike "$RUN_ERR" "of memory" "... without a memory warning"
done_testing
