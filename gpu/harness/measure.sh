#!/usr/bin/env bash
# Measures every case of gpu/cases.txt on this machine's NVIDIA GPU, in one command:
#   gpu/harness/measure.sh OUTDIR [GPUNAME] [CASEFILE]
# Builds the harness (make -C gpu/harness), runs the timing build (checks + occupancy API +
# event timing), the probe build (per-warp/per-block timeline) and, where `ncu` exists, Nsight
# Compute with --clock-control none (warp-state stall breakdown, achieved occupancy, issue active,
# gpu time), then merges everything into one JSON per case and packs it as
#   OUTDIR/measured-<gpu>.tar.gz   (unpacks to <gpu>/NAME.json: copy into gpu/measured/)
#   OUTDIR/measure.log
# GPUNAME defaults to the GPU's model in lower case (nvidia-smi "NVIDIA H200" -> h200).
# The whole run is kept under ~7 minutes: ncu runs in chunks and stops starting new chunks once
# MEASURE_NCU_BUDGET seconds (default 180) have passed.
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin # nvcc / ncu where the toolkit's default install put them
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: measure.sh OUTDIR [GPUNAME] [CASEFILE]}
mkdir -p "$out"
out=$(cd "$out" && pwd)
gpu=${2:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 |
           sed 's/^NVIDIA //; s/ .*//' | tr 'A-Z' 'a-z')}
gpu=${gpu:-gpu}
cases=${3:-$root/gpu/cases.txt}
log=$out/measure.log
work=$(mktemp -d)
res=$work/$gpu
mkdir -p "$res" "$work/ncu"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }

: > "$log"
say "measure.sh: gpu=$gpu cases=$cases"
{ nvidia-smi; command -v ncu && ncu --version; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,persistence_mode --format=csv; nvcc --version; } >> "$log" 2>&1

# Build for this GPU's compute capability (the kernels need sm_70 or newer: named barriers,
# *_sync shuffles, %globaltimer); ARCH=sm_XY in the environment overrides.
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=${ARCH:-sm_${cc:-90}}
say "building the harness for $arch"
build() {
    if command -v make >/dev/null 2>&1; then
        make -C "$here" -j2 ARCH="$arch"
        return
    fi
    # No make on this machine: the Makefile's two link lines, spelled out.
    local inc="-I$root/sim -I$here -I$root/gpu/reference -I$root/gpu/kernels" objs=() src
    mkdir -p "$here/build"
    for src in "$root/sim/argspec.c" "$root/sim/diag.c" "$here/cases.c" "$root"/gpu/reference/ref_*.c; do
        ${CC:-cc} -std=c17 -O3 -march=native -ffp-contract=off -D_POSIX_C_SOURCE=200809L $inc \
            -c -o "$here/build/$(basename "$src" .c).o" "$src" || return 1
        objs+=("$here/build/$(basename "$src" .c).o")
    done
    nvcc -O3 -arch="$arch" -lineinfo -std=c++17 $inc -o "$here/wl-harness" "$here/harness.cu" "${objs[@]}" -lm &&
    nvcc -O3 -arch="$arch" -lineinfo -std=c++17 $inc -DWL_PROBE -o "$here/wl-harness-probe" \
        "$here/harness.cu" "${objs[@]}" -lm
}
build >> "$log" 2>&1 || { say "build FAILED (see the log)"; tar czf "$out/measured-$gpu.tar.gz" -C "$work" "$gpu"; exit 1; }

say "timing run"
"$here/wl-harness" --cases "$cases" --out "$res" 2>&1 | tee -a "$log"
say "probe run"
"$here/wl-harness-probe" --cases "$cases" --out "$res" >> "$log" 2>&1 || say "probe run reported failures"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$log" 2>&1

if command -v ncu >/dev/null 2>&1; then
    budget=${MEASURE_NCU_BUDGET:-180}
    metrics="gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
    metrics+=",smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active"
    metrics+=",smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
    metrics+=",dram__bytes.sum,sm__cycles_elapsed.avg.per_second"
    stalls=""
    for r in barrier branch_resolving dispatch_stall drain imc_miss lg_throttle long_scoreboard \
             math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected \
             short_scoreboard sleeping tex_throttle wait; do
        stalls+=",smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
    done
    # Three ways to ask, tried in order until one gives numbers (metric names differ between ncu
    # versions): the named metrics + stall regex; named + explicit stall list; stable sections
    # printed as raw metrics (wide CSV; merge.py reads both layouts).
    modes=("--metrics $metrics,regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio\$"
           "--metrics $metrics$stalls"
           "--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --page raw")
    mode=0
    names=$(grep -v '^[[:space:]]*#' "$cases" | awk 'NF {print $1}')
    set -- $names
    k=0
    ncu_start=$(date +%s)
    while [ $# -gt 0 ]; do
        if [ $(( $(date +%s) - ncu_start )) -ge "$budget" ]; then
            say "ncu budget of ${budget}s spent: skipping the remaining $# cases"
            break
        fi
        chunk=()
        for _ in 1 2 3 4 5 6 7 8; do [ $# -gt 0 ] && { chunk+=("--only" "$1"); shift; }; done
        d=$work/ncu/chunk$k
        mkdir -p "$d"
        while :; do
            say "ncu chunk $k (mode $mode): ${chunk[*]}"
            set -f # the mode's words are split on blanks but never globbed
            # shellcheck disable=SC2086
            ncu --clock-control none --csv ${modes[$mode]} \
                "$here/wl-harness" --cases "$cases" --out "$d" --ncu "${chunk[@]}" \
                > "$work/ncu/ncu-$k.csv" 2>> "$log" || say "ncu chunk $k exited with $?"
            set +f
            if grep -q '^"[0-9]' "$work/ncu/ncu-$k.csv" || [ $mode -ge 2 ]; then
                break
            fi
            head -5 "$work/ncu/ncu-$k.csv" >> "$log"
            mode=$((mode + 1))
        done
        cp "$d/ncu-order.txt" "$work/ncu/ncu-$k.order" 2>/dev/null
        k=$((k + 1))
    done
    python3 "$here/merge.py" "$res" "$work/ncu" 2>&1 | tee -a "$log"
    mkdir -p "$res/ncu-raw" && cp "$work"/ncu/ncu-*.csv "$work"/ncu/ncu-*.order "$res/ncu-raw/" 2>/dev/null
else
    say "ncu not found: no stall breakdown"
    python3 "$here/merge.py" "$res" 2>&1 | tee -a "$log"
fi

tar czf "$out/measured-$gpu.tar.gz" -C "$work" "$gpu"
# The remote runner brings back files of at most 16 MB: split a bigger tarball into 15 MB parts
# (join them again with: cat measured-$gpu.tar.gz.part-* > measured-$gpu.tar.gz).
if [ "$(stat -c %s "$out/measured-$gpu.tar.gz")" -gt $((15 * 1024 * 1024)) ]; then
    split -b 15M "$out/measured-$gpu.tar.gz" "$out/measured-$gpu.tar.gz.part-"
    rm "$out/measured-$gpu.tar.gz"
    say "tarball split into $(ls "$out"/measured-"$gpu".tar.gz.part-* | wc -l) parts"
fi
say "wrote $(cd "$out" && ls -s measured-"$gpu".tar.gz* | tr '\n' ' ') (KB) and $log"
rm -rf "$work"
