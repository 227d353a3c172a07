#!/usr/bin/env bash
# Runs the H200 microbenchmarks of gpu/microbench/ in one batch (well under 3 minutes):
#   bash gpu/microbench/measure.sh OUTDIR
# Builds latency.cu and throughput.cu with nvcc -arch=sm_90 (ARCH=sm_XY overrides), runs each
# once and writes, into OUTDIR only:
#   latency.json     dependent-chain instruction latencies, shared-memory bank conflicts,
#                    L1/L2/DRAM pointer chase, returning atomics (clock64 cycles)
#   throughput.json  DRAM and L2 bandwidth, barrier cost vs warps, block launch rate, atomics
#   dram.json        DRAM bandwidth by pattern: reads with 1/4/8 loads in flight, writes, copy,
#                    one word per 128-byte line
#   warpsync.json    __syncwarp in a converged warp, in a diverged one (each half its own branch),
#                    a divergent branch alone: one warp's cycles per iteration and a full GPU's
#   smem.json        shared-memory loads and stores under load: SM cycles per warp-level access
#                    and load-to-use latency of a dependent chain, 1 to 32 warps per SM
#   blocklife.json   a streaming copy of 65536 short blocks timed from inside: load-to-use under
#                    load, block life, the gap from a block's end to the next start on its slot,
#                    how alike the loads of a block's warps wait (correlation per pair);
#                    blocklife-v2.json, blocklife-v4.json: the same with 2 and 4 floats per
#                    thread (more bytes in flight: the load-to-use as the DRAM nears saturation)
#   sreg.json        dependent latency of S2R (%tid, %ctaid) and of an indexed constant load
#                    (LDC, cold and warm) against an integer op, one warp alone and a full GPU
#   ldc.json         dependent latency of a load from the parameter constant bank (LDC
#                    c[0x0][R+...]) and the user constant bank, warm, at a block's start, and in
#                    the second wave of blocks, against an integer op
#   l2dirty.json     write, copy and read of 8-128 MB, one element per thread, and local memory
#                    (512 B per thread) written and read, timed after a
#                    memset of twice the L2; l2dirty-ncu.csv: the same launches under Nsight
#                    Compute (--cache-control all: caches flushed before each): DRAM bytes read
#                    and written per launch, i.e. how much written data the L2 still holds dirty
#                    at a kernel's end; l2dirty.json "l2_bw": the L2's store and load bandwidth
#   placement.json   lesson 10's uneven blocks (sched_uneven, 264 x 1024 and 2112 x 128), 400
#                    launches each: event time and, with the timeline probe, which SM each
#                    block ran on, the heaviest SM's work and the probe's span, per launch;
#                    (after_k_blocks, after_memset: the same after other launches, after the
#                    harness's L2-clearing memset);
#                    placement-ncu-b1024.csv, -b128.csv: Nsight Compute's duration of 40 launches
#   sass.txt         cuobjdump -sass of the programs (checks one SASS op per chain step)
#   measure.log      nvidia-smi before/after, nvcc version, build and run messages, timings
# PROGRAMS="blocklife sreg" (say) runs only those.
# Each JSON holds the GPU name, driver, clocks (max and measured with clock64/%globaltimer)
# and the UTC date. The lead commits OUTDIR's JSON under gpu/measured/h200/microbench/.
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: measure.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/measure.log
arch=${ARCH:-sm_90}
work=$(mktemp -d)
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }
: > "$log"
say "microbench measure.sh: arch=$arch out=$out"
{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv; nvcc --version; } >> "$log" 2>&1

rc=0
programs=${PROGRAMS:-latency throughput dram warpsync smem blocklife sreg ldc l2dirty placement}
for p in $programs; do
    say "build $p"
    if ! nvcc -arch="$arch" -O3 -std=c++17 -o "$work/$p" "$here/$p.cu" >> "$log" 2>&1; then
        say "build $p FAILED"; rc=1; continue
    fi
    say "run $p"
    if timeout 120 "$work/$p" > "$out/$p.json" 2>> "$log"; then
        say "$p done"
    else
        say "$p FAILED (exit $?); partial output kept in $p.json"; rc=1
    fi
    if [ "$p" = l2dirty ] && command -v ncu > /dev/null 2>&1; then
        m=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,gpu__time_duration.sum
        if timeout 300 ncu --clock-control none --cache-control all --metrics "$m" --csv \
            "$work/$p" ncu > "$out/$p-ncu.csv" 2>> "$log"; then
            say "$p ncu done"
        else
            say "$p ncu FAILED (exit $?)"; rc=1
        fi
    fi
    if [ "$p" = placement ] && command -v ncu > /dev/null 2>&1; then
        # Nsight Compute's duration of the first 40 plain launches of each configuration (the
        # kernel filter counts only pl_plain: b1024's are launches 0-402, b128's from 403, i.e.
        # 3 warm-ups + RUNS = 400 of placement.cu; change both together)
        for v in "b1024 0" "b128 403"; do
            set -- $v
            if timeout 300 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
                -k pl_plain --launch-skip "$2" --launch-count 40 --log-file "$out/$p-ncu-$1.csv" \
                "$work/$p" > /dev/null 2>> "$log"; then
                say "$p ncu $1 done"
            else
                say "$p ncu $1 FAILED (exit $?)"; rc=1
            fi
        done
    fi
    if [ "$p" = blocklife ]; then # the same copy with 2 and 4 floats per thread
        for v in 2 4; do
            if timeout 120 "$work/$p" "$v" > "$out/$p-v$v.json" 2>> "$log"; then
                say "$p $v done"
            else
                say "$p $v FAILED (exit $?); partial output kept in $p-v$v.json"; rc=1
            fi
        done
    fi
done
if command -v cuobjdump > /dev/null 2>&1; then
    for p in $programs; do
        [ "$p" = dram ] && continue
        [ -x "$work/$p" ] && { echo "==== $p"; cuobjdump -sass "$work/$p"; }
    done > "$out/sass.txt" 2>&1
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$log" 2>&1
say "finished (rc=$rc)"
rm -rf "$work"
exit $rc
