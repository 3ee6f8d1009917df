#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) in their own build
# folder and runs each on its committed seed corpus plus fresh mutations.
# Fails on any crash, sanitizer report, leak, timeout or out-of-memory.
#
# Usage: tools/ci_fuzz.sh [SECONDS_PER_TARGET] [BUILD_DIR]
#   defaults: 20 seconds, build-fuzz. JOBS=N limits build parallelism.
# A crash input is left in BUILD_DIR/fuzz-artifacts/<target>/: fix the
# reader, then copy the input to tests/fuzz/regressions/<target>/ (the
# normal build's test_fuzz_regressions replays it forever after).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
build=${2:-build-fuzz}
jobs=${JOBS:-$(nproc)}

cmake -S . -B "$build" -G Ninja -DMGC_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" -j"$jobs" fuzzers test_fuzz_regressions
# The regression replay first (fast, exact), then fresh fuzzing.
(cd "$build" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -R '^test_fuzz_regressions$')
tests/fuzz/run_fuzzers.sh "$build" "$seconds"
