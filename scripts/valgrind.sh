#!/usr/bin/env bash
# valgrind memcheck over warplab (CI's "valgrind" step).
#
#   scripts/valgrind.sh            # unit tests (in-process ones) + the warplab binary on a sample
#   VG_TESTS="arch diag" scripts/valgrind.sh   # choose the unit tests
#
# Builds build-valgrind (no sanitizers: valgrind and ASan do not mix), then
# 1. runs the in-process unit tests under memcheck (`meson test --wrap`); tests that mostly
#    spawn the warplab binary are left out there, because --wrap checks only the test process;
# 2. runs the warplab binary itself under memcheck on a sample of commands: good runs, usage
#    errors, broken files, faults and deadlocks (the error paths are where leaks hide).
# Any memcheck error (invalid read/write, uninitialised value used, definite or indirect leak)
# fails the step. Writes build-valgrind/valgrind-results.txt: one PASS/FAIL line per check.
set -uo pipefail
cd "$(dirname "$0")/.."
bdir=build-valgrind
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
if [ ! -f "$bdir/build.ninja" ]; then
  meson setup "$bdir" -Dviewer=disabled -Dbuildtype=debugoptimized >/dev/null || exit 1
fi
ninja -C "$bdir" >"$bdir/valgrind-build.log" 2>&1 || { tail -20 "$bdir/valgrind-build.log"; exit 1; }
results="$bdir/valgrind-results.txt"
: > "$results"
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --track-fds=no --num-callers=30)
fail=0

# 1. unit tests: the ones that run the library in-process and finish in seconds natively
# (ptx_parse is left out: its speed test has a CPU-time limit that valgrind cannot meet)
tests=${VG_TESTS:-"ptx_cfg arch occupancy argspec devmem diag timing_trace exec_sem exec_ptx memory timing_model"}
known=$(meson test -C "$bdir" --list 2>/dev/null)
sel=()
for t in $tests; do grep -qx "$t" <<<"$known" && sel+=("$t"); done
if [ ${#sel[@]} -gt 0 ]; then
  if meson test -C "$bdir" --timeout-multiplier=20 --print-errorlogs \
       --wrap="${VG[*]}" "${sel[@]}" > "$bdir/valgrind-tests.log" 2>&1; then
    echo "PASS valgrind unit tests: ${sel[*]}" >> "$results"
  else
    echo "FAIL valgrind unit tests (see $bdir/valgrind-tests.log)" >> "$results"
    grep -E '^ *[0-9]+/[0-9]+ ' "$bdir/valgrind-tests.log" | grep -v ' OK ' | sort -u >> "$results"
    fail=1
  fi
fi

# 2. the binary: each command must exit with a DESIGN.md status (0-4) and memcheck stays quiet
W=$bdir/warplab
R=tests/data/run/run_kernels.ptx
F=tests/data/hostile/faults.ptx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SAXPY=(--arg s32:64 --arg f32:2 --arg 'f32[64]:iota' --arg 'f32[64]:random(0,1,3)')
checks=(
  "run $R --kernel saxpy --grid 2 --block 32 ${SAXPY[*]} --json"
  "run $R --kernel saxpy --grid 2 --block 32 ${SAXPY[*]} --trace $tmp/t.wlt --dump $tmp/d"
  "run $R --kernel reverse_smem --grid 2 --block 64 --smem 256 --arg u32[128]:iota --arg u32[128]:zeros"
  "run gpu/ptx/reduction.ptx --kernel red_interleaved --grid 4 --block 256 --smem 1024 --arg u32[1024]:random(0,1000,5) --arg u32[4]:zeros"
  "run $R --kernel saxpy --grid 1 --block 1024 --regs 255 ${SAXPY[*]}"
  "run $R --kernel saxpy --grid 1 --block 32 --arg s32:1 --arg f32:1 --arg u8[99999999999]:zeros --arg f32[1]:zeros"
  "run $F --kernel global_oob_read --grid 1 --block 128 --arg u32[64]:iota --arg u32[1]:zeros --arg s32:128"
  "run $F --kernel local_oob --grid 1 --block 32 --arg u32[32]:zeros --arg s32:100000"
  "run $F --kernel divergent_syncthreads --grid 1 --block 64 --arg u32[64]:zeros"
  "run $F --kernel named_barrier_mismatch --grid 1 --block 64 --arg u32[64]:zeros"
  "run $F --kernel spin_forever --grid 1 --block 32 --arg u32[1]:zeros --max-cycles 20000"
  "run $F --kernel shared_race --grid 2 --block 64 --arg u32[64]:zeros --sanitize"
  "run $F --kernel shared_uninit --grid 1 --block 64 --arg u32[64]:zeros --sanitize"
  "run tests/data/hostile/binary.ptx --kernel k --grid 1 --block 32"
  "run tests/data/hostile/truncated.ptx --kernel saxpy --grid 1 --block 32"
  "run tests/data/hostile --kernel k --grid 1 --block 32"
  "export tests/data/hostile/trace/truncated.wlt --chrome $tmp/c.json"
  "export fuzz/corpus/trace/four_warps.wlt --chrome $tmp/c.json"
  "arch h200"
  "arch list"
  "occupancy --arch h200 --block 256 --regs 64 --smem 16384 --json"
  "occupancy --arch h200 --batch tests/data/occupancy-bad-row.csv"
  "lesson list"
  "nosuchcommand"
)
# vg_run ARGS...: warplab under memcheck; PASS when it exits 0-4 and memcheck logged nothing.
vg_run() {
  "${VG[@]}" --log-file="$tmp/vg.log" "$W" "$@" >/dev/null 2>&1
  local rc=$?
  if [ $rc -le 4 ] && ! [ -s "$tmp/vg.log" ]; then
    echo "PASS valgrind (exit $rc) warplab $*" >> "$results"
  else
    echo "FAIL valgrind (exit $rc) warplab $*" >> "$results"
    head -30 "$tmp/vg.log" | sed 's/^/    /' >> "$results"
    fail=1
  fi
}
for c in "${checks[@]}"; do
  # shellcheck disable=SC2086  # word splitting of the command line is intended
  vg_run $c
done
export WARPLAB_ARCH_DIR=tests/data/hostile/arch
for bad in tests/data/hostile/arch/*.ini; do
  vg_run arch "$(basename "$bad" .ini)"
done
unset WARPLAB_ARCH_DIR
cat "$results"
exit $fail
