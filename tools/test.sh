#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages + build) and runs every test:
#   0. the README's main command, verbatim (tools/readme_commands.sh reads it
#      from README.md): setup + build, then `build/mgc demo`,
#   1. the whole suite (unit, golden IR/CLI, GPU differential on lavapipe
#      with validation, PyTorch models, ONNX conformance, training),
#   2. the same suite under ASan + UBSan + LSan (tools/ci_sanitize.sh),
#   3. each libFuzzer target for a bounded time (tools/ci_fuzz.sh: 12 s each;
#      the committed regressions replay first).
# Usage: tools/test.sh [--quick]   (--quick: steps 0 and 1 only)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
step() { echo; echo "=== $1 ($(( $(date +%s) - start )) s elapsed)"; }

# This script is the README's test command (.ci/run runs it): say so if the
# README names another.
readme_test=$(tools/readme_commands.sh test)
if [[ $readme_test != tools/test.sh ]]; then
  echo "tools/test.sh: README.md's test command is '$readme_test', but CI runs tools/test.sh" >&2
  exit 1
fi
readme_main=$(tools/readme_commands.sh main)
step "README main command: $readme_main"
bash -c "$readme_main"
step "test suite"
(cd build && ctest --output-on-failure -j"$(nproc)")
if [[ ${1:-} != --quick ]]; then
  step "test suite under ASan + UBSan"
  tools/ci_sanitize.sh build-asan
  step "fuzzing (12 s per target)"
  tools/ci_fuzz.sh 12 build-fuzz
fi
step "all tests passed"
