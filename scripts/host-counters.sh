#!/bin/bash
# host-counters.sh: how the timing model spends its host work on the speed benchmark's cases
# (docs/performance.md, fourteenth session): per scheduler evaluation, the warps looked at and
# eligible, which exit it took (the same warp next cycle, another eligible warp, the wake-up
# scan), the stall walks; per SM visit (one window of one SM), the host lines prefetched for
# records and arrays, for register files, and for the warps whose memory requests completed.
# The counters are globals, which the project does not allow, so they live in a patch
# (scripts/host-counters.patch) applied to a throw-away worktree of HEAD, never merged; a
# patch that no longer applies fails here, loudly: refresh it from the worktree.
# Usage: scripts/host-counters.sh [CASE...]   (tests/test_timing_bench's case names; default
#        lat_copy_16M bk_transpose33_4k). Builds in $TMPDIR (default /tmp), about a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}
wt=$(mktemp -d "$tmp/wl-hc.XXXXXX")
cleanup() { git -C "$root" worktree remove --force "$wt/src" >/dev/null 2>&1 || true; rm -rf "$wt"; }
trap cleanup EXIT
git -C "$root" worktree add -q --detach "$wt/src" HEAD
git -C "$wt/src" apply "$root/scripts/host-counters.patch"
meson setup "$wt/build" "$wt/src" >/dev/null
ninja -C "$wt/build" tests/test_timing_bench >"$wt/ninja.log" 2>&1 || { cat "$wt/ninja.log" >&2; exit 1; }
[ $# -gt 0 ] || set -- lat_copy_16M bk_transpose33_4k
for c in "$@"; do
    echo "== $c"
    WARPLAB_ROOT="$root" "$wt/build/tests/test_timing_bench" "$c" 2>&1 | grep '^host-counters'
done
