#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build occ_sweep for sm_90 and write the sweep into DIR.
#   bash gpu/occupancy/measure.sh DIR
set -euo pipefail
out=${1:?usage: measure.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
nvcc -O2 -arch=sm_90 -Xptxas -v -o "$out/occ_sweep" "$here/occ_sweep.cu" 2> "$out/occ_sweep.ptxas.txt"
"$out/occ_sweep" "$out"
rm -f "$out/occ_sweep"
