#!/usr/bin/env bash
# Long fuzzing: builds the libFuzzer targets (clang-14, ASan + UBSan, the
# same build as tools/ci_fuzz.sh) and runs each target for MINUTES, one at a
# time, on a corpus that persists between runs, then prints one table row
# per target for docs/security.md.
#
# Usage: tools/fuzz_long.sh [MINUTES] [TARGET...]
#   MINUTES  per target, default 10 (fractions allowed: 0.5)
#   TARGET   default: every target in tests/fuzz/CMakeLists.txt
# Environment:
#   BUILD=build-fuzz           the fuzz build folder
#   CORPUS=BUILD/corpus-long   persistent corpus, one folder per target; it
#                              grows run after run, so it is not committed
#                              (the committed seeds stay in tests/fuzz/corpus)
#   NICE=19                    niceness of the fuzzing (shared machines)
#   JOBS=N                     build parallelism
#   SKIP_BUILD=1               run the binaries already in BUILD as they are
#   TIMEOUT=20                 libFuzzer -timeout (seconds per input)
#   RESULTS=BUILD/fuzz-long.md the table rows are appended here too
# A finding (crash, sanitizer report, leak, timeout, out-of-memory) stops
# that target, is counted in its row, and its input is left in
# BUILD/fuzz-artifacts/<target>/: fix the reader (the class, not the
# instance), copy the input to tests/fuzz/regressions/<target>/. The script
# goes on with the next target and exits non-zero at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
shift || true
build=${BUILD:-build-fuzz}
jobs=${JOBS:-$(nproc)}
niceness=${NICE:-19}
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  # The list CMake builds: `foreach(name bundle onnx ...)` in tests/fuzz/CMakeLists.txt.
  read -r -a targets < <(sed -n 's/^ *foreach(name \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
fi
seconds=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60); if (s < 1) s = 1; print s }')

if [[ -z ${SKIP_BUILD:-} ]]; then
  cmake -S . -B "$build" -G Ninja -DMGC_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  nice -n "$niceness" ninja -C "$build" -j"$jobs" fuzzers >/dev/null
fi
build=$(cd "$build" && pwd)
corpus=${CORPUS:-$build/corpus-long}
results=${RESULTS:-$build/fuzz-long.md}
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo "+dirty")
date=$(date -u +%Y-%m-%d)

# The binaries are copied before running, so that rebuilding the tree while
# a long run goes on does not replace a binary under a running fuzzer.
bindir=$build/fuzz-long-bin
mkdir -p "$bindir"
status=0
printf '| target | date | commit | minutes | executions | cov | ft | corpus (files, KiB) | findings | slow units | load timeouts |\n' | tee -a "$results"
printf '|---|---|---|---|---|---|---|---|---|---|---|\n' | tee -a "$results"
for t in "${targets[@]}"; do
  src=$build/tests/fuzz/fuzz_$t
  [[ -x $src ]] || { echo "fuzz_long: $src not built" >&2; exit 2; }
  cp "$src" "$bindir/fuzz_$t"
  work=$corpus/$t
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$work" "$artifacts"
  log=$build/fuzz-long-$t.log
  : >"$log"
  # Findings: crash-, leak-, timeout-, oom- inputs. A slow-unit- input (over
  # 10 s once) is counted apart. On a loaded machine (niced, other jobs) a
  # fuzzer can miss the CPU for longer than -timeout: each timeout input is
  # re-run alone; if it finishes within 10 s it was the load, it is moved
  # to fuzz-artifacts/<target>/load/ and fuzzing resumes for the time left.
  count() { find "$artifacts" -maxdepth 1 -type f -name "$1" | wc -l; }
  findings=0 load_timeouts=0 execs=0
  slow_before=$(count 'slow-unit-*')
  start=$(date +%s)
  while :; do
    left=$(( seconds - ($(date +%s) - start) ))
    (( left > 0 )) || break
    mark=$(mktemp)
    seg=$(mktemp)
    # New inputs go to $work (the first folder); the committed seeds are read only.
    if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       nice -n "$niceness" "$bindir/fuzz_$t" -max_total_time="$left" -timeout="${TIMEOUT:-20}" \
         -rss_limit_mb=2560 -malloc_limit_mb=2048 -print_final_stats=1 \
         -artifact_prefix="$artifacts/" "$work" "tests/fuzz/corpus/$t" >"$seg" 2>&1; then
      ok=1
    else
      ok=0
    fi
    cat "$seg" >>"$log"
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$seg" | tail -1)
    [[ -n $n ]] || n=$(grep -E '^#[0-9]+' "$seg" | tail -1 | sed -E 's/^#([0-9]+).*/\1/')
    execs=$(( execs + ${n:-0} ))
    new=$(find "$artifacts" -maxdepth 1 -type f -newer "$mark" \( -name 'crash-*' -o -name 'leak-*' \
            -o -name 'timeout-*' -o -name 'oom-*' \))
    rm -f "$mark" "$seg"
    (( ok )) && break
    real=0
    for f in $new; do
      if [[ $(basename "$f") == timeout-* ]] && timeout 10 "$bindir/fuzz_$t" "$f" >/dev/null 2>&1; then
        mkdir -p "$artifacts/load"
        mv "$f" "$artifacts/load/"
        load_timeouts=$(( load_timeouts + 1 ))
        echo "-- fuzz_$t: $(basename "$f") re-ran alone within 10 s: the machine's load; resuming" >>"$log"
      else
        real=$(( real + 1 ))
      fi
    done
    if [[ -z $new || $real -gt 0 ]]; then
      # A failure without an input (e.g. the fuzzer itself died) still counts.
      findings=$(( findings + (real > 0 ? real : 1) ))
      status=1
      echo "!! fuzz_$t: finding; see $log and $artifacts/" >&2
      break
    fi
  done
  elapsed=$(( $(date +%s) - start ))
  slow=$(( $(count 'slow-unit-*') - slow_before ))
  # The last status line (#N DONE / #N REDUCE / ...) carries cov: and ft:.
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  files=$(find "$work" -type f | wc -l)
  kib=$(du -sk "$work" | cut -f1)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s, %s | %s | %s | %s |\n' "$t" "$date" "$commit" \
    "$(awk -v s="$elapsed" 'BEGIN { printf "%.1f", s / 60 }')" "$execs" "${cov:-?}" "${ft:-?}" \
    "$files" "$kib" "$findings" "$slow" "$load_timeouts" | tee -a "$results"
done
exit $status
