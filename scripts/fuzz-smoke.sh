#!/usr/bin/env bash
# Short libFuzzer runs of every fuzz target (CI's "fuzz smoke" step).
#
#   FUZZ_SECONDS=30 scripts/fuzz-smoke.sh [TARGET...]
#
# Builds build-fuzz with clang (-Dfuzz=enabled), then runs each fuzz_* target
# for ${FUZZ_SECONDS:-30} s. Seeds for target fuzz_NAME come from:
#   - fuzz/corpus/NAME/ if it exists, and
#   - every directory or file listed in fuzz/NAME.seeds (one path per line,
#     relative to the repository root; '#' starts a comment).
# The seeds are copied into a scratch corpus, so the tree is never modified.
# Writes one line per target to build-fuzz/fuzz-results.txt:
#   PASS fuzz_NAME <runs> runs in <s>s, corpus <n>
#   FAIL fuzz_NAME <why> (artifact: <path>)
# and exits non-zero if any target failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${FUZZ_SECONDS:-30}
bdir=build-fuzz

if [ ! -f "$bdir/build.ninja" ]; then
  CC=clang meson setup "$bdir" -Dfuzz=enabled -Dtests=disabled -Dviewer=disabled >/dev/null ||
    { mkdir -p "$bdir"; echo "FAIL fuzz_build meson setup failed" > "$bdir/fuzz-results.txt"; exit 1; }
fi
results="$bdir/fuzz-results.txt"
: > "$results"
if ! ninja -C "$bdir" >"$bdir/fuzz-build.log" 2>&1; then
  echo "FAIL fuzz_build ninja failed (see $bdir/fuzz-build.log)" >> "$results"
  cat "$results"
  exit 1
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$bdir"/fuzz/fuzz_*; do
    [ -x "$exe" ] && [ -f "$exe" ] && targets+=("$(basename "$exe")")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "FAIL fuzz_none no fuzz targets were built" >> "$results"
  cat "$results"
  exit 1
fi

fail=0
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  exe="$bdir/fuzz/$t"
  work="$bdir/corpus-$name"
  arts="$bdir/artifacts-$name"
  log="$bdir/$t.log"
  rm -rf "$work" "$arts"
  mkdir -p "$work" "$arts"
  # collect seeds
  seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  if [ -f "fuzz/$name.seeds" ]; then
    while IFS= read -r line; do
      line=${line%%#*}
      line=$(echo "$line" | xargs)
      [ -n "$line" ] && [ -e "$line" ] && seeds+=("$line")
    done < "fuzz/$name.seeds"
  fi
  n=0
  for s in "${seeds[@]+"${seeds[@]}"}"; do
    if [ -d "$s" ]; then
      while IFS= read -r -d '' f; do
        cp "$f" "$work/seed_$n" && n=$((n + 1))
      done < <(find "$s" -type f -size -1024k -print0 | sort -z)
    else
      cp "$s" "$work/seed_$n" && n=$((n + 1))
    fi
  done
  if [ ! -x "$exe" ]; then
    echo "FAIL $t not built" >> "$results"
    fail=1
    continue
  fi
  start=$(date +%s)
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ASAN_OPTIONS=detect_leaks=1 \
  timeout $((secs + 120)) "$exe" -max_total_time="$secs" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$arts/" "$work" >"$log" 2>&1
  rc=$?
  dur=$(( $(date +%s) - start ))
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  corpus=$(find "$work" -type f | wc -l)
  # libFuzzer also saves an input that merely ran slowly (slow-unit-*, over 10 s) and exits 0:
  # on a shared VM a stalled host does that to any input (a fuzz_trace input that ran 27 s in
  # one CI run reads in 0.04 s), so it is reported, not failed; a hang still trips -timeout
  # (a timeout-* artifact and a non-zero exit)
  art=$(find "$arts" -type f ! -name 'slow-unit-*' | head -1)
  slow=$(find "$arts" -type f -name 'slow-unit-*' | head -1)
  if [ $rc -eq 0 ] && [ -z "$art" ]; then
    note=""
    [ -n "$slow" ] && note=", a slow input noted: $slow ($(grep -o 'Slowest unit: [0-9]* s' "$log" | head -1))"
    echo "PASS $t ${runs:-?} runs in ${dur}s, corpus $corpus (from $n seeds)$note" >> "$results"
  else
    why=$(grep -m1 -o 'ERROR: [^(]*' "$log" || true)
    [ -z "$why" ] && why="exit status $rc"
    echo "FAIL $t $why (artifact: ${art:-none}; log: $log)" >> "$results"
    fail=1
  fi
done
cat "$results"
exit $fail
