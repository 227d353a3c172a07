#!/bin/sh
# Regenerates the PTX of every gpu/kernels/*.cu: nvcc -ptx -arch=sm_90 -lineinfo.
#   gpu/regen-ptx.sh            writes gpu/ptx/<name>.ptx (the committed copies)
#   gpu/regen-ptx.sh OUTDIR     writes OUTDIR/<name>.ptx (the build's fresh copies)
# nvcc runs from the repository root on the path gpu/kernels/NAME.cu and writes the absolute path
# of the source into the `.file` directive (no timestamp, no size); we strip the repository root
# from it so the committed PTX names `gpu/kernels/NAME.cu` on every machine.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu/ptx}
mkdir -p "$out"
out=$(cd "$out" && pwd)
NVCC=${NVCC:-nvcc}
cd "$root"
for cu in gpu/kernels/*.cu; do
    name=$(basename "$cu" .cu)
    "$NVCC" -ptx -arch=sm_90 -lineinfo -o "$out/$name.ptx.tmp" "$cu"
    sed "s|\"$root/|\"|" "$out/$name.ptx.tmp" > "$out/$name.ptx"
    rm -f "$out/$name.ptx.tmp"
done
