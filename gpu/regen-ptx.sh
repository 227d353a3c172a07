#!/bin/sh
# Regenerates the PTX of every gpu/kernels/*.cu: nvcc -ptx -arch=sm_90 -lineinfo.
#   gpu/regen-ptx.sh            writes gpu/ptx/<name>.ptx (the committed copies)
#   gpu/regen-ptx.sh OUTDIR     writes OUTDIR/<name>.ptx (the build's fresh copies)
# The output must not depend on where the repository is checked out, but nvcc's output does:
# the `.file` directive holds the absolute source path, and the names nvcc gives file-local
# symbols (`_INTERNAL_<hash>_...`, also spelled out as bytes in the debug strings) hash that path.
# So the sources are copied to one fixed staging folder (under a lock, so parallel builds
# take turns) and compiled there, and the staging root is stripped from `.file`: the committed
# PTX then names `gpu/kernels/NAME.cu` and is byte-identical on every machine with the same nvcc.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu/ptx}
mkdir -p "$out"
out=$(cd "$out" && pwd)
NVCC=${NVCC:-nvcc}
stage=/tmp/warplab-ptx-stage  # fixed on purpose: the path is hashed into the PTX
lock=/tmp/warplab-ptx-stage.lock
(
    flock 9
    rm -rf "$stage"
    mkdir -p "$stage/gpu/kernels"
    cp "$root"/gpu/kernels/*.cu "$root"/gpu/kernels/*.h "$stage/gpu/kernels/"
    cd "$stage"
    for cu in gpu/kernels/*.cu; do
        name=$(basename "$cu" .cu)
        "$NVCC" -ptx -arch=sm_90 -lineinfo -o "$out/$name.ptx.tmp" "$cu"
        sed "s|\"$stage/|\"|" "$out/$name.ptx.tmp" > "$out/$name.ptx"
        rm -f "$out/$name.ptx.tmp"
    done
    rm -rf "$stage"
) 9>"$lock"
# The spill maps beside the committed PTX (docs/model.md, section 9, item 6): X.spills for each
# X.ptx with spill code, from ptxas and cuobjdump (pip install nvidia-cuda-cuobjdump
# nvidia-cuda-nvdisasm), and the SASS they came from under tests/data/spills (the test
# sass_spills checks the map against it); not for an OUTDIR (the build's fresh copies need none).
if [ $# -eq 0 ]; then
    for p in "$out"/*.ptx; do
        python3 "$root/scripts/sass-spills.py" "$p" --save "$root/tests/data/spills" ||
            echo "regen-ptx: $p: spill map not regenerated" >&2
    done
fi
