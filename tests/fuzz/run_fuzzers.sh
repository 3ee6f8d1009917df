#!/bin/bash
# run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]
# Runs each libFuzzer target (default: all) for SECONDS on its committed seed
# corpus plus fresh mutations. New inputs go to a scratch copy of the corpus
# (BUILD_DIR/fuzz-work/<target>), so the committed corpus never changes; a
# crash input lands in BUILD_DIR/fuzz-artifacts/<target>/. Exits non-zero on
# the first target that crashes, leaks, times out or runs out of memory.
# Prints libFuzzer's final stats (executions, cov, ft) per target.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
shift 2
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(bundle onnx ir npy safetensors pipeline_cache hf_json tokenizer sentencepiece idx cli)
src=$(cd "$(dirname "$0")" && pwd)

status=0
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/fuzz_$t
  if [[ ! -x $bin ]]; then
    echo "run_fuzzers: $bin not built (configure with -DMGC_FUZZ=ON and clang++-14)" >&2
    exit 2
  fi
  work=$build/fuzz-work/$t
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$work" "$artifacts"
  log=$build/fuzz-$t.log
  echo "== fuzz_$t: ${seconds}s on tests/fuzz/corpus/$t"
  # -rss_limit_mb / -malloc_limit_mb: an input that makes a reader allocate
  # gigabytes is a finding (unbounded allocation), not a machine problem.
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -malloc_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$artifacts/" \
       "$work" "$src/corpus/$t" >"$log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+[[:space:]]+DONE' "$log" | sed 's/^/   /'
  else
    echo "!! fuzz_$t FAILED; last lines of $log:"
    tail -40 "$log"
    ls "$artifacts"
    status=1
  fi
done
exit $status
