#!/usr/bin/env bash
# Regenerates the validation table of docs/validation.md and docs/images/validation-scatter.png
# from the committed measurements (gpu/measured/h200/) and the current model:
#   scripts/validation-doc.sh [BUILD_DIR] [JOBS]          (defaults: build, nproc)
# 1. `warplab validate --arch h200 --json -j JOBS` simulates every measured case once (full
#    size: minutes per case on a laptop; JOBS processes in parallel) and keeps the result in
#    BUILD_DIR/validation-h200.json;
# 2. `--predictions` that file with `--markdown` gives the table, spliced between the markers
#    <!-- validation-table:begin --> and <!-- validation-table:end --> of docs/validation.md;
# 3. `--predictions` with `--png` draws the log-log scatter (needs the viewer build: SDL2).
# Set VALIDATION_JSON=FILE to skip step 1 and reuse an earlier result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=${2:-$(nproc 2>/dev/null || echo 1)}
wl=$build/warplab
[ -x "$wl" ] || { echo "validation-doc.sh: $wl not built (meson setup $build && ninja -C $build)" >&2; exit 1; }
json=${VALIDATION_JSON:-$build/validation-h200.json}
export WARPLAB_ROOT=$root
if [ -z "${VALIDATION_JSON:-}" ]; then
    # a case that fails to run still leaves its line in the JSON; the exit status says so
    "$wl" validate --arch h200 --json -j "$jobs" > "$json" || echo "validation-doc.sh: some cases failed (see the table)" >&2
fi
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$wl" validate --arch h200 --predictions "$json" --markdown > "$table" || true
doc=$root/docs/validation.md
grep -q '<!-- validation-table:begin -->' "$doc" || { echo "validation-doc.sh: no table markers in $doc" >&2; exit 1; }
# splice NAME: replaces what lies between <!-- NAME:begin --> and <!-- NAME:end --> by $table
splice() {
    awk -v tf="$table" -v b="<!-- $1:begin -->" -v e="<!-- $1:end -->" '
        index($0, b) { print; while ((getline l < tf) > 0) print l; skip = 1; next }
        index($0, e) { skip = 0 }
        !skip { print }' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
}
splice validation-table
# the instruction counts against Nsight Compute's (gpu/measured/h200/ncu-counts/)
if grep -q '<!-- instruction-counts:begin -->' "$doc"; then
    python3 "$root/scripts/ncu-counts.py" "$json" --markdown > "$table"
    splice instruction-counts
fi
mkdir -p "$root/docs/images"
"$wl" validate --arch h200 --predictions "$json" --png "$root/docs/images/validation-scatter.png" > /dev/null
echo "validation-doc.sh: updated docs/validation.md and docs/images/validation-scatter.png from $json"
