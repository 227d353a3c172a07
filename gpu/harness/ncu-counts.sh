#!/usr/bin/env bash
# Nsight Compute counts of every case of gpu/cases.txt, one launch each (wl-harness --ncu):
#   bash gpu/harness/ncu-counts.sh OUTDIR [CASEFILE]   (CASEFILE: those cases instead; its
#   output goes into a subfolder of gpu/measured/h200/ncu-counts/, which scripts/ncu-counts.py
#   reads after the folder's own run)
# Builds wl-harness (make -C gpu/harness), then runs ncu --clock-control none over all cases
# with the SASS warp instructions executed (smsp__inst_executed.sum), the SM active cycles, the
# kernel duration, the global load/store warp instructions (SASS) and the DRAM and L2 sector
# traffic. Writes OUTDIR/ncu-counts.csv (ncu's rows), OUTDIR/ncu-order.txt (the harness's launch
# order) and OUTDIR/ncu-counts.log (nvidia-smi before and after, ncu and nvcc versions, messages).
# Compare with the model's PTX counts: scripts/ncu-counts.py (docs/validation.md).
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: ncu-counts.sh OUTDIR [CASEFILE]}
cases=${2:-$root/gpu/cases.txt}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/ncu-counts.log
{ date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv; ncu --version; nvcc --version; } > "$log" 2>&1
make -C "$here" ARCH="${ARCH:-sm_90}" wl-harness >> "$log" 2>&1 || { echo "build failed" | tee -a "$log"; exit 1; }
metrics=smsp__inst_executed.sum,sm__cycles_active.avg,gpu__time_duration.sum
metrics=$metrics,sm__sass_inst_executed_op_global_ld.sum,sm__sass_inst_executed_op_global_st.sum
metrics=$metrics,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum
metrics=$metrics,lts__t_sectors_op_write.sum
d=$(mktemp -d)
ncu --clock-control none --csv --metrics "$metrics" "$here/wl-harness" --cases "$cases" \
    --out "$d" --ncu > "$out/ncu-counts.csv" 2>> "$log"
rc=$?
cp "$d/ncu-order.txt" "$out/ncu-order.txt" 2>/dev/null
{ echo "ncu exit $rc"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> "$log" 2>&1
echo "ncu exit $rc; $(grep -c '^"[0-9]' "$out/ncu-counts.csv") metric rows"
exit $rc
