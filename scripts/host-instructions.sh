#!/bin/bash
# host-instructions.sh: how many host (x86) instructions the timing model executes per simulated
# warp instruction, inside timing_run only (callgrind --toggle-collect=timing_run: exact and
# repeatable, unlike CPU time on a shared VM; docs/performance.md quotes these figures). Four
# cases smaller than the benchmark's but with several waves of blocks, so block creation does
# not dominate: red_shuffle over 4 M words, lat_copy over 4 M floats, bk_transpose33 on
# 128 x 64 blocks, red_sequential over 540,672 words. Two run at a time (valgrind is slow).
# Usage: scripts/host-instructions.sh [BUILD]   (BUILD default build; needs valgrind)
#        The callgrind profiles stay in $TMPDIR (default /tmp) as wl-hi.CASE.out for
#        callgrind_annotate.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
[ -x "$build/warplab" ] || { echo "no $build/warplab" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
tmp=${TMPDIR:-/tmp}
cd "$root"
export WARPLAB_ROOT="$root"

one() {
    local n=$1
    shift
    valgrind --tool=callgrind --toggle-collect=timing_run --callgrind-out-file="$tmp/wl-hi.$n.out" \
        "$build/warplab" run "$@" --json >"$tmp/wl-hi.$n.json" 2>"$tmp/wl-hi.$n.err"
    local ir wi
    ir=$(grep -o "refs: *[0-9,]*" "$tmp/wl-hi.$n.err" | tr -d ', ' | cut -d: -f2)
    wi=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['warp_instructions'])" \
        "$tmp/wl-hi.$n.json")
    python3 -c "import sys; print('%-15s %8.1f host instructions per warp instruction (%s warp instructions)' % (sys.argv[1], int(sys.argv[2]) / int(sys.argv[3]), sys.argv[3]))" \
        "$n" "$ir" "$wi"
}

one red_shuffle gpu/ptx/reduction.ptx --kernel red_shuffle --grid 16384 --block 256 --smem 1024 \
    --arg 'u32[4194304]:random(0,1000,5)' --arg 'u32[16384]:zeros' &
one lat_copy gpu/ptx/latency.ptx --kernel lat_copy --grid 528 --block 256 \
    --arg 'f32[4194304]:random(0,1,2)' --arg 'f32[4194304]:zeros' --arg s32:4194304
wait
one bk_transpose33 gpu/ptx/bank_conflicts.ptx --kernel bk_transpose33 --grid 128,64 --block 32,8 \
    --arg 'f32[8388608]:random(0,1,12)' --arg 'f32[8388608]:zeros' --arg s32:4096 --arg s32:2048 &
one red_sequential gpu/ptx/reduction.ptx --kernel red_sequential --grid 2112 --block 256 \
    --smem 1024 --arg 'u32[540672]:random(0,1000,5)' --arg 'u32[2112]:zeros'
wait
