#!/bin/sh
# Regenerates the PTX of the lessons' own reference kernels (those with a committed .ptx beside
# the .cu), the same way gpu/regen-ptx.sh does for gpu/kernels: nvcc -ptx -arch=sm_90 -lineinfo,
# the repository root stripped from the .file directive.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
NVCC=${NVCC:-nvcc}
cd "$root"
for ptx in lessons/*/*.ptx; do
    cu=${ptx%.ptx}.cu
    [ -f "$cu" ] || continue
    "$NVCC" -ptx -arch=sm_90 -lineinfo -Igpu/kernels -o "$ptx.tmp" "$cu"
    sed "s|\"$root/|\"|" "$ptx.tmp" > "$ptx"
    rm -f "$ptx.tmp"
done
