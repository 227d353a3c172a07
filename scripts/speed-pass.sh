#!/bin/bash
# speed-pass.sh: the speed target's pass over every full-size case of gpu/cases.txt (issue #5,
# item 8; docs/performance.md): each case run through `warplab run --json` on one core (core 0
# when taskset exists), its warp instructions divided by its sim_seconds (the time of the
# timing model alone). Prints one line per case, then how many reach 5 million warp
# instructions per second, the median and the cases below. With --rounds N each case runs N
# times in a row and its median time counts (the first run after a pause can pay the VM's
# fresh pages: docs/performance.md, forty-fifth session).
# Usage: scripts/speed-pass.sh [--rounds N] [BIN] [CASE...]
#        BIN default build-fast/warplab (scripts/build-fast.sh); CASE: names of gpu/cases.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=1
if [ "${1:-}" = --rounds ]; then
    rounds=${2:-}
    [[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "speed-pass: --rounds needs a positive number" >&2; exit 1; }
    shift 2
fi
bin=$root/build-fast/warplab
if [ $# -gt 0 ] && [ -x "$1" ] && [ -f "$1" ]; then
    bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # (the cases' paths are the root's)
    shift
fi
[ -x "$bin" ] || { echo "speed-pass: no $bin (scripts/build-fast.sh builds it)" >&2; exit 1; }
cd "$root"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
export WARPLAB_ROOT="$root"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
set -f # the options are split on blanks, never globbed (--arg f32[...])
while read -r name rest; do
    case $name in '#'* | '') continue ;; esac
    if [ $# -gt 0 ]; then
        want=0
        for c in "$@"; do [ "$c" = "$name" ] && want=1; done
        [ $want = 1 ] || continue
    fi
    for ((r = 0; r < rounds; r++)); do
        # shellcheck disable=SC2086
        json=$("${pin[@]}" "$bin" run ${rest%% --check *} --json 2>"$err") ||
            { echo "speed-pass: case $name failed:" >&2; cat "$err" >&2; exit 1; }
        printf '%s %s\n' "$name" "$json" >>"$out"
    done
done <gpu/cases.txt
set +f
[ -s "$out" ] || { echo "speed-pass: no case of gpu/cases.txt is named ${*:-}" >&2; exit 1; }
python3 - "$out" <<'EOF'
import json, math, statistics, sys


def r2(v):  # rates rounded down: 4.996 prints as 4.99, below 5 as it is counted
    return math.floor(v * 100) / 100


runs = {}
for line in open(sys.argv[1]):
    name, js = line.split(" ", 1)
    d = json.loads(js)
    runs.setdefault(name, []).append((d["warp_instructions"], d["sim_seconds"]))
rate = {}
print("| case | warp instructions | sim seconds | M warp instr/s |")
print("|---|---:|---:|---:|")
for name, rs in runs.items():
    w = rs[0][0]
    s = statistics.median(r[1] for r in rs)
    rate[name] = w / s / 1e6
    print("| %s | %d | %.3f | %.2f |" % (name, w, s, r2(rate[name])))
if rate:
    low = sorted((v, k) for k, v in rate.items() if v < 5.0)
    print("\n%d of %d cases at 5 M warp instructions/s or more; median %.2f, min %.2f (%s), max %.2f"
          % (len(rate) - len(low), len(rate), r2(statistics.median(rate.values())),
             r2(min(rate.values())), min(rate, key=rate.get), r2(max(rate.values()))))
    if low:
        print("below 5: " + ", ".join("%s %.2f" % (k, r2(v)) for v, k in low))
EOF
