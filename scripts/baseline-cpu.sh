#!/usr/bin/env bash
# The functional engine picks AVX2 and FMA handlers at decode when the host has them
# (sim/exec/xfast.c, xopf.c), the cache model its AVX2 tag scan (sim/memory/cache.c) and the
# scheduler its AVX2 warp scan (sim/timing/sched.c); a host without them (an older laptop)
# runs the SSE2 baseline handlers, the software FMA and the scalar scans. The build machines
# and CI have AVX2 and FMA, so those paths would never run in the tests. This runs the
# functional tests (every gpu/kernels kernel against its C reference, the per-opcode
# semantics, the PTX-level checks), the memory model's (hits, misses, evictions by
# hand-derived cycles), the timing model's (micro-cases' cycles by hand) and the random kernels
# against their CPU evaluation (1000 seeds, seven ways each: about 40 s) under
# qemu-x86_64 -cpu Nehalem: an x86-64 with SSE4.2 and no AVX, AVX2 or FMA, so
# __builtin_cpu_supports reports neither.
#   scripts/baseline-cpu.sh        (after scripts/setup.sh; CI's "baseline CPU" step)
# Installs qemu-user (Debian) when missing. Writes build/baseline-cpu-results.txt, one PASS/FAIL
# line per check; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
results=build/baseline-cpu-results.txt
mkdir -p build
: > "$results"
if ! command -v qemu-x86_64 >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q --no-install-recommends qemu-user >/dev/null 2>&1 ||
    { $SUDO apt-get update -q >/dev/null && \
      $SUDO apt-get install -y -q --no-install-recommends qemu-user >/dev/null; }
fi
if ! command -v qemu-x86_64 >/dev/null; then
  echo "FAIL baseline CPU: qemu-user could not be installed" | tee -a "$results"
  exit 1
fi
QEMU=(qemu-x86_64 -cpu Nehalem)
fail=0
# The emulated CPU must lack AVX2 and FMA, else this step would check nothing.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stdio.h>\nint main(void) { __builtin_cpu_init(); printf("%%d %%d\\n",
  __builtin_cpu_supports("avx2") != 0, __builtin_cpu_supports("fma") != 0); return 0; }\n' \
  > "$probe/cpu.c"
if gcc -o "$probe/cpu" "$probe/cpu.c" && [ "$("${QEMU[@]}" "$probe/cpu")" = "0 0" ]; then
  echo "PASS baseline CPU: the emulated CPU reports no AVX2 and no FMA" >> "$results"
else
  echo "FAIL baseline CPU: the emulated CPU still reports AVX2 or FMA" >> "$results"
  fail=1
fi
export WARPLAB_ROOT=$PWD
for t in exec_sem exec_ptx exec_kernels memory timing_model random_kernels; do
  exe=build/tests/test_$t
  if [ ! -x "$exe" ]; then
    echo "FAIL baseline CPU: $exe not built" >> "$results"
    fail=1
    continue
  fi
  if "${QEMU[@]}" "$exe" > "build/baseline-cpu-$t.log" 2>&1; then
    echo "PASS baseline CPU (no AVX2/FMA): test_$t" >> "$results"
  else
    echo "FAIL baseline CPU (no AVX2/FMA): test_$t (build/baseline-cpu-$t.log)" >> "$results"
    fail=1
  fi
done
# The tensor cores' adder works four columns at a time with AVX2 (sim/exec/xmma.c, rows_avx2);
# the baseline's scalar loop must give the same bits. Every mma and wmma kernel of the tests
# (whose native results equal the H200's: test_run_cli) on random bit patterns (NaNs,
# infinities, subnormals among them), run natively and emulated, dumps compared byte for byte.
tc=$(mktemp -d)
trap 'rm -rf "$probe" "$tc"' EXIT
tc_run() { # tc_run OUT PTX KERNEL ELEMS-OF-A ELEMS-OF-B ELEMS-OF-C EXTRA...
  local out=$1 ptx=$2 k=$3 na=$4 nb=$5 nc=$6
  shift 6
  "${RUNNER[@]}" build/warplab run "$ptx" --kernel "$k" --grid 16 --block 128 \
    --arg "u16[$na]:random(1)" --arg "u16[$nb]:random(2)" --arg "u32[$nc]:random(3)" \
    --arg "f32[$nc]:zeros" "$@" --dump "$out" > /dev/null 2>&1
}
for spec in mma:mma_f16:16384:8192:8192 mma:mma_bf16:16384:8192:8192 \
            mma:mma_f16_k8:16384:8192:8192 wmma:wmma_rc:16384:16384:16384 \
            wmma:wmma_cr:16384:16384:16384 wmma:wmma_bf16_rc:16384:16384:16384; do
  IFS=: read -r dir k na nb nc <<< "$spec"
  extra=(--arg s32:64)
  [ "$dir" = wmma ] && extra=(--arg f32:1 --arg s32:64)
  ok=1
  RUNNER=()
  tc_run "$tc/native-$k" "tests/data/$dir/${dir}_kernels.ptx" "$k" "$na" "$nb" "$nc" \
    "${extra[@]}" || ok=0
  RUNNER=("${QEMU[@]}")
  tc_run "$tc/emul-$k" "tests/data/$dir/${dir}_kernels.ptx" "$k" "$na" "$nb" "$nc" \
    "${extra[@]}" || ok=0
  if [ $ok = 1 ] && cmp -s "$tc/native-$k/arg3.bin" "$tc/emul-$k/arg3.bin"; then
    echo "PASS baseline CPU (no AVX2/FMA): $k's results equal the AVX2 build's" >> "$results"
  else
    echo "FAIL baseline CPU (no AVX2/FMA): $k's results differ from the AVX2 build's" >> "$results"
    fail=1
  fi
done
cat "$results"
exit $fail
