#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages + build) and runs every test:
#   1. the whole suite (unit, golden IR/CLI, GPU differential on lavapipe
#      with validation, PyTorch models, ONNX conformance, training),
#   2. the same suite under ASan + UBSan + LSan (tools/ci_sanitize.sh),
#   3. each libFuzzer target for a bounded time (tools/ci_fuzz.sh).
# Usage: tools/test.sh [--quick]   (--quick: step 1 only)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
step() { echo; echo "=== $1 ($(( $(date +%s) - start )) s elapsed)"; }

step "setup: packages and build"
tools/setup.sh
step "test suite"
(cd build && ctest --output-on-failure -j"$(nproc)")
if [[ ${1:-} != --quick ]]; then
  step "test suite under ASan + UBSan"
  tools/ci_sanitize.sh build-asan
  step "fuzzing (20 s per target)"
  tools/ci_fuzz.sh 20 build-fuzz
fi
step "all tests passed"
