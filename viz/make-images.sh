#!/bin/sh
# viz/make-images.sh BUILD_DIR [TRACE]
#
# Regenerates the viewer pictures in docs/images/ (README and docs/viewer.md show them) from a
# real kernel: lat_copy (gpu/kernels/latency.cu) at 2 blocks of 256 threads per SM on the H200 --
# the "latency hiding" lesson's starting point, where nearly every warp-cycle is long_scoreboard --
# beside its H200 measurement (gpu/measured/h200/lat_copy_2bpsm.json) when that file exists.
# TRACE: an existing trace of that launch to render instead of simulating it again.
# Everything is headless (--png): no display needed.
set -eu
build=${1:?usage: viz/make-images.sh BUILD_DIR [TRACE]}
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
warplab=$build/warplab
cd "$root"
out=docs/images
mkdir -p "$out"
trace=${2:-}
if [ -z "$trace" ]; then
    trace=$(mktemp "${TMPDIR:-/tmp}/warplab-images-XXXXXX")
    trap 'rm -f "$trace"' EXIT
    "$warplab" run gpu/ptx/latency.ptx --kernel lat_copy --arch h200 --grid 264 --block 256 \
        --arg 'f32[16777216]:random(0,1,2)' --arg 'f32[16777216]:zeros' --arg s32:16777216 \
        --trace "$trace" >/dev/null
fi
measured=gpu/measured/h200/lat_copy_2bpsm.json
set -- --size 1366x768
[ -f "$measured" ] && set -- "$@" --measured "$measured"
"$warplab" view "$trace" "$@" --png "$out/viewer-gpu.png" --view gpu
"$warplab" view "$trace" "$@" --png "$out/viewer-sm.png" --view sm --sm 3
"$warplab" view "$trace" "$@" --png "$out/viewer-sm-zoom.png" --view sm --sm 3 --range 20000:26000
"$warplab" view "$trace" "$@" --png "$out/viewer-breakdown.png" --view breakdown
"$warplab" view "$trace" "$@" --png "$out/viewer-measured.png" --view measured
"$warplab" view "$trace" "$@" --png "$out/viewer-measured-warps.png" --view measured --per-warp --sm 3
"$warplab" view "$trace" "$@" --png "$out/viewer-occupancy.png" --view occupancy
"$warplab" view "$trace" "$@" --png "$out/viewer-source.png" --view source --sm 3 --cursor 22000
"$warplab" view "$trace" "$@" --png "$out/viewer-sm-zh.png" --view sm --sm 3 --range 20000:26000 \
    --reason long_scoreboard --lang zh
"$warplab" view "$trace" "$@" --png "$out/viewer-help.png" --view sm --sm 3 --range 20000:26000 \
    --show-help
echo "wrote $out/viewer-*.png"
