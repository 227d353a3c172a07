#!/bin/bash
# bench-alone.sh: compare the simulator's speed of two builds one process at a time, as the
# target of issue #5 is stated (one core): A, B, A, B, ... each pinned to core 0, and the
# medians of each (docs/performance.md, twelfth session). Side-by-side runs
# (scripts/bench-pair.sh) cancel the VM's drift better but put two processes on the host's
# shared caches and memory at once: the first huge-page change (device memory included)
# measured +12-21 % side by side and -4 to -9 % alone. Use this one for changes to memory
# behaviour (page sizes, layouts). Runs vary by 5-10 % on the VM: take 5 rounds or more.
# Usage: scripts/bench-alone.sh BUILD_A BUILD_B ROUNDS CASE...
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
rate() { awk -F'|' -v c="$1" '$2 ~ c {gsub(/ /, "", $6); print $6}'; }
for c in "$@"; do
    ra="" rb=""
    for _ in $(seq "$n"); do
        ra="$ra $(taskset -c 0 "$A/tests/test_timing_bench" "$c" | rate "$c")"
        rb="$rb $(taskset -c 0 "$B/tests/test_timing_bench" "$c" | rate "$c")"
    done
    python3 - "$c" "$ra" "$rb" <<'PY'
import statistics, sys
c = sys.argv[1]
a, b = [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
if not a or not b or len(a) != len(b):
    sys.exit('%s: no result' % c)
ma, mb = statistics.median(a), statistics.median(b)
print('%s A %.2f (%s) | B %.2f (%s) | B/A %.3f' % (c, ma, ' '.join('%.2f' % x for x in a), mb,
      ' '.join('%.2f' % x for x in b), mb / ma))
PY
done
