#!/bin/bash
# bench-pair.sh: compare the simulator's speed of two builds by running them at the same time,
# one on each of two cores, swapping cores every round (docs/performance.md, eleventh session).
# On a shared VM the machine's speed drifts by more than the effects measured; what changes
# it during a round hits both builds alike. Each round gives B/A (warp instructions per second
# of CPU time, tests/test_timing_bench); two consecutive rounds, one on each core, give a
# core-paired ratio (their geometric mean); the script prints every ratio and the median of
# the pairs. An unchanged build against itself gives 0.97-1.03. Two processes at once share the
# host's caches and memory: for changes to memory behaviour (page sizes, layouts) the result can
# differ from one process alone, which is what the target is about; use
# scripts/bench-alone.sh for those (twelfth session: the first huge-page change, device memory
# included, measured +12-21 % here and -4 to -9 % alone).
# Usage: scripts/bench-pair.sh BUILD_A BUILD_B ROUNDS CASE...   (needs taskset and 2 cores)
#        CASE as tests/test_timing_bench names them (lat_copy_16M, bk_transpose33_4k, ...)
set -eu
[ $# -ge 4 ] || { sed -n 2,10p "$0" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
A=$1 B=$2 n=$3
shift 3
for b in "$A" "$B"; do
    [ -x "$b/tests/test_timing_bench" ] || { echo "no $b/tests/test_timing_bench" >&2; exit 1; }
done
command -v taskset >/dev/null || { echo "taskset is not installed" >&2; exit 1; }
export WARPLAB_ROOT="$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rate() { awk -F'|' -v c="$1" '$2 ~ c {gsub(/ /, "", $6); print $6}' "$2"; }
for c in "$@"; do
    ratios=""
    for i in $(seq "$n"); do
        ca=$((i % 2)) cb=$(((i + 1) % 2))
        taskset -c "$ca" "$A/tests/test_timing_bench" "$c" >"$tmp/a" &
        pa=$!
        taskset -c "$cb" "$B/tests/test_timing_bench" "$c" >"$tmp/b" &
        pb=$!
        wait "$pa" "$pb"
        ra=$(rate "$c" "$tmp/a") rb=$(rate "$c" "$tmp/b")
        [ -n "$ra" ] && [ -n "$rb" ] || { echo "$c: no result" >&2; exit 1; }
        ratios="$ratios $(python3 -c "import sys; print(float(sys.argv[2]) / float(sys.argv[1]))" \
            "$ra" "$rb")"
    done
    python3 - "$c" $ratios <<'EOF'
import math, sys
c, v = sys.argv[1], [float(x) for x in sys.argv[2:]]
p = sorted(math.sqrt(v[i] * v[i + 1]) for i in range(0, len(v) - 1, 2))
med = p[len(p) // 2] if p else float('nan')
print('%s B/A per round: %s | core-paired: %s | median %.3f' %
      (c, ' '.join('%.3f' % x for x in v), ' '.join('%.3f' % x for x in p), med))
EOF
done
