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
# MEASURE_NCU_BUDGET seconds (default 200) have passed.
set -uo pipefail
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
{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,persistence_mode --format=csv; nvcc --version; } >> "$log" 2>&1

say "building the harness"
make -C "$here" -j2 >> "$log" 2>&1 || { say "build FAILED"; tar czf "$out/measured-$gpu.tar.gz" -C "$work" "$gpu"; exit 1; }

say "timing run"
"$here/wl-harness" --cases "$cases" --out "$res" 2>&1 | tee -a "$log"
say "probe run"
"$here/wl-harness-probe" --cases "$cases" --out "$res" >> "$log" 2>&1 || say "probe run reported failures"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$log" 2>&1

if command -v ncu >/dev/null 2>&1; then
    budget=${MEASURE_NCU_BUDGET:-200}
    metrics="gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
    metrics+=",smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active"
    metrics+=",smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
    metrics+=",dram__bytes.sum,sm__cycles_elapsed.avg.per_second"
    metrics+=",regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio\$"
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
        say "ncu chunk $k: ${chunk[*]}"
        ncu --clock-control none --csv --metrics "$metrics" --log-file "$work/ncu/ncu-$k.csv" \
            "$here/wl-harness" --cases "$cases" --out "$d" --ncu "${chunk[@]}" >> "$log" 2>&1 ||
            say "ncu chunk $k exited with $?"
        cp "$d/ncu-order.txt" "$work/ncu/ncu-$k.order" 2>/dev/null
        k=$((k + 1))
    done
    cp "$work"/ncu/ncu-*.csv "$res/" 2>/dev/null
    python3 "$here/merge.py" "$res" "$work/ncu" 2>&1 | tee -a "$log"
    mkdir -p "$res/ncu-raw" && mv "$res"/ncu-*.csv "$res/ncu-raw/" 2>/dev/null
else
    say "ncu not found: no stall breakdown"
    python3 "$here/merge.py" "$res" 2>&1 | tee -a "$log"
fi

tar czf "$out/measured-$gpu.tar.gz" -C "$work" "$gpu"
say "wrote $out/measured-$gpu.tar.gz ($(du -h "$out/measured-$gpu.tar.gz" | cut -f1)) and $log"
rm -rf "$work"
