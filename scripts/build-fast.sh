#!/bin/bash
# build-fast.sh: warplab built for speed on this machine (docs/performance.md, thirteenth
# session): -O3, link-time optimisation, -march=native and GCC's profile-guided optimisation,
# trained on the whole-GPU runs of scripts/pgo-train.txt (timing model, default policy), none of
# them a configuration of the speed benchmark. (Trained on gpu/cases-sim.txt's tiny grids, a
# few warps on a few SMs, the profile made the full-grid FP32 case 7 % slower.) The same code
# with the same results (scripts/perf-regress.sh: 163 of 163 identical to the default build)
# and the assertions kept;
# floating-point contraction stays off (-std=c17 implies -ffp-contract=off, said again here), so
# -march=native's FMA cannot change what a simulated kernel computes. The speed figures of
# docs/performance.md from the thirteenth session on come from this build.
# The binary uses this CPU's instructions: build it on the machine that runs it. Set
# WARPLAB_FAST_CFLAGS to replace -march=native (empty: the portable x86-64 baseline).
# Usage: scripts/build-fast.sh [DIR]   (DIR default build-fast; about 3 minutes on 2 cores;
#        installs the packages first, through scripts/setup.sh, when meson is missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=${1:-build-fast}
command -v meson >/dev/null || bash scripts/setup.sh
rm -rf "$dir"
c_args="${WARPLAB_FAST_CFLAGS--march=native} -ffp-contract=off"
# ninja's output goes to a log, shown when a step fails
quiet() {
    "$@" >"$dir/build-fast.log" 2>&1 && return 0
    cat "$dir/build-fast.log" >&2
    echo "build-fast: failed: $*" >&2
    exit 1
}
# 1. instrumented (the profile is written next to each object file)
meson setup "$dir" -Db_pgo=generate -Db_lto=true -Doptimization=3 -Dc_args="$c_args" >/dev/null
quiet ninja -C "$dir"
# 2. training: each run's `warplab run` options (a --check, as gpu/cases.txt has, is cut)
export WARPLAB_ROOT="$root"
n=0
set -f # the options are split on blanks, never globbed (--arg f32[...])
while read -r name rest; do
    case $name in '#'* | '') continue ;; esac
    # shellcheck disable=SC2086
    "$dir/warplab" run ${rest%% --check *} --json >/dev/null 2>&1 ||
        { echo "build-fast: training case $name failed" >&2; exit 1; }
    n=$((n + 1))
done <scripts/pgo-train.txt
set +f
# 3. optimised with the profile; code the training never ran (the viewer, other commands) has
# none, which GCC would say for every such file
meson configure "$dir" -Db_pgo=use -Dc_args="$c_args -Wno-missing-profile" >/dev/null
quiet ninja -C "$dir"
rm -f "$dir/build-fast.log"
echo "build-fast: built $dir/warplab (trained on the $n runs of scripts/pgo-train.txt)" >&2
