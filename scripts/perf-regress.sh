#!/bin/bash
# perf-regress.sh: speed work must not change any simulated result. Records, or checks against a
# recording, what `warplab run --json` prints (every key but sim_seconds), its exit status and
# messages, the dumped buffers (md5), the trace file (md5, small cases) and the functional run
# (--sanitize --json) for every case of gpu/cases-sim.txt under the three scheduling policies,
# plus a few full-size cases of gpu/cases.txt (gto only, no trace), and the counts of the
# functional benchmark (tests/bench_exec.c, which runs launch_kernel).
# Usage: scripts/perf-regress.sh record|check DIR [BUILD]   (BUILD default build-perf; a build
#        of another checkout, e.g. the branch point, records the reference)
#        PERF_REGRESS_FULL=0 skips the full-size cases.
#        Check the speed build too (`check DIR build-fast`): its results must be the same as
#        every other build's, and once were not (docs/performance.md, forty-eighth session).
set -eu
mode=${1:?record|check}
dir=${2:?DIR}
build=${3:-build-perf}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
case $build in /*) ;; *) build="$root/$build" ;; esac # absolute from here on
wl="$build/warplab"
[ -x "$wl" ] || { echo "no $wl" >&2; exit 1; }
# Full-size cases of gpu/cases.txt (a few seconds each).
full="red_sequential lat_copy_4bpsm ilp_indep4_1warp div_nested its_swap ws_4_12 bk_stride33
      sched_uneven_b128 co_stride8"

# one_case OUT NAME FILE TRACE(0|1) EXTRA...: runs case NAME of FILE into OUT/TAG.res
one_case() {
    local out=$1 name=$2 file=$3 trace=$4
    shift 4
    local line tag d rc
    line=$(awk -v n="$name" '$1 == n' "$file" | sed 's/^[^ ]* *//; s/ --check .*$//')
    [ -n "$line" ] || { echo "no case $name in $file" >&2; return 1; }
    tag=$(echo "$name $file $*" | tr ' /' '__')
    d="$out/$tag.dump"
    mkdir -p "$d"
    local -a args topt=()
    set -f
    # shellcheck disable=SC2206
    args=($line "$@")
    set +f
    [ "$trace" = 1 ] && topt=(--trace "$out/$tag.trace")
    rc=0
    "$wl" run "${args[@]}" --json --dump "$d" "${topt[@]}" >"$out/$tag.json" 2>"$out/$tag.err" ||
        rc=$?
    {
        echo "rc $rc"
        # the trace path is a temporary name
        sed 's/,"sim_seconds":[0-9.e+-]*//; s|"trace":"[^"]*"|"trace":"T"|' "$out/$tag.json"
        sed "s|$out/|OUT/|g" "$out/$tag.err"
        (cd "$d" && md5sum ./* 2>/dev/null | sort -k2) || true
        if [ -f "$out/$tag.trace" ]; then md5sum <"$out/$tag.trace"; fi
        rc=0
        "$wl" run "${args[@]}" --json --sanitize >"$out/$tag.f" 2>&1 || rc=$?
        echo "functional rc $rc"
        sed 's/,"sim_seconds":[0-9.e+-]*//' "$out/$tag.f"
    } >"$out/$tag.res"
    rm -rf "$d" "$out/$tag.trace" "$out/$tag.json" "$out/$tag.err" "$out/$tag.f"
}

if [ "$mode" = one ]; then # internal: one case (xargs runs two at a time)
    shift 3
    one_case "$dir" "$@"
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{
    for name in $(grep -v '^#' gpu/cases-sim.txt | awk 'NF {print $1}'); do
        for pol in gto lrr two-level; do
            echo "$name gpu/cases-sim.txt 1 --policy $pol"
        done
    done
    if [ "${PERF_REGRESS_FULL:-1}" != 0 ]; then
        for name in $full; do echo "$name gpu/cases.txt 0"; done
    fi
} | xargs -P 2 -L 1 "$0" one "$out" "$build" # two at a time (the machine has two cores)
# the functional engine's own launcher (launch_kernel): instruction and lane counts of the
# benchmark kernels (its timing fields dropped)
WARPLAB_ROOT=$root "$build/tests/bench_exec" |
    sed 's/ in  *[0-9.]* s CPU = *[0-9.]* M warp insts\/s//; s/(median of [0-9]* runs, [0-9.-]*; /(/' \
        >"$out/bench_exec.res"
mkdir -p "$dir"
case $mode in
record)
    rm -f "$dir"/*.res
    cp "$out"/*.res "$dir"/
    echo "recorded $(find "$dir" -name '*.res' | wc -l) results in $dir"
    ;;
check)
    bad=0 n=0
    for f in "$out"/*.res; do
        n=$((n + 1))
        b=$(basename "$f")
        if ! cmp -s "$dir/$b" "$f"; then
            echo "DIFFERS: $b"
            diff "$dir/$b" "$f" 2>&1 | head -6 | cut -c1-400 || true
            bad=$((bad + 1))
        fi
    done
    echo "checked $n results against $dir: $bad differ"
    [ "$bad" = 0 ]
    ;;
*) echo "mode: record|check" >&2; exit 1 ;;
esac
