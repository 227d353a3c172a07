#!/bin/bash
# bench-pair.sh: compare the simulator's speed of two builds (docs/performance.md, eleventh and
# twelfth sessions), in one of two ways:
# - side by side (default): both builds at the same time, one on each of two cores, swapping
#   cores every round. On a shared VM the machine's speed drifts by more than the effects
#   measured; what changes it during a round hits both builds alike. Each round gives B/A
#   (warp instructions per second of CPU time, tests/test_timing_bench); two consecutive
#   rounds, one on each core, give a core-paired ratio (their geometric mean); the script
#   prints every ratio and the median of the pairs. An unchanged build against itself gives
#   0.97-1.03. But two processes at once share the host's caches and memory: a change to
#   memory behaviour (page sizes, layouts) can then look better or worse than it is for one.
# - --alone: one process at a time, as the target of issue #5 is stated (one core): A, B, A,
#   B, ... each pinned to core 0; the medians of each and their ratio. Use it for changes to
#   memory behaviour (twelfth session: the first huge-page change, device memory included,
#   measured +12-21 % side by side and -4 to -9 % alone); runs vary by 5-10 % on the VM, so
#   take 5 rounds or more.
# Usage: scripts/bench-pair.sh [--alone] BUILD_A BUILD_B ROUNDS CASE...   (needs taskset; side
#        by side needs 2 cores). CASE as tests/test_timing_bench names them (lat_copy_16M,
#        bk_transpose33_4k, ...)
set -eu
alone=0
if [ "${1:-}" = --alone ]; then
    alone=1
    shift
fi
[ $# -ge 4 ] || { sed -n 2,19p "$0" >&2; exit 2; }
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
    ras="" rbs=""
    for i in $(seq "$n"); do
        if [ $alone = 1 ]; then
            taskset -c 0 "$A/tests/test_timing_bench" "$c" >"$tmp/a"
            taskset -c 0 "$B/tests/test_timing_bench" "$c" >"$tmp/b"
        else
            ca=$((i % 2)) cb=$(((i + 1) % 2))
            taskset -c "$ca" "$A/tests/test_timing_bench" "$c" >"$tmp/a" &
            pa=$!
            taskset -c "$cb" "$B/tests/test_timing_bench" "$c" >"$tmp/b" &
            pb=$!
            wait "$pa" "$pb"
        fi
        ra=$(rate "$c" "$tmp/a") rb=$(rate "$c" "$tmp/b")
        [ -n "$ra" ] && [ -n "$rb" ] || { echo "$c: no result" >&2; exit 1; }
        ras="$ras $ra" rbs="$rbs $rb"
    done
    python3 - "$c" "$alone" "$ras" "$rbs" <<'PY'
import math, statistics, sys
c, alone = sys.argv[1], sys.argv[2] == '1'
a, b = [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
fmt = lambda xs: ' '.join('%.3f' % x for x in xs)
if alone:
    ma, mb = statistics.median(a), statistics.median(b)
    print('%s alone: A %.2f (%s) | B %.2f (%s) | B/A %.3f' % (c, ma, fmt(a), mb, fmt(b), mb / ma))
else:
    v = [y / x for x, y in zip(a, b)]
    p = sorted(math.sqrt(v[i] * v[i + 1]) for i in range(0, len(v) - 1, 2))
    med = p[len(p) // 2] if p else float('nan')
    print('%s B/A per round: %s | core-paired: %s | median %.3f' % (c, fmt(v), fmt(p), med))
PY
done
