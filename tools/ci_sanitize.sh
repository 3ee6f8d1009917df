#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (+ LeakSanitizer), in its own build folder.
#
# Usage: tools/ci_sanitize.sh [BUILD_DIR] [-- extra ctest args]
#   BUILD_DIR defaults to build-asan. JOBS=N limits parallelism (default: nproc).
#
# Excluded, and why (the ONLY exclusions):
#   - the "conformance" label (the full ONNX backend test suite, hundreds of
#     compile + run round trips): too slow under ASan for CI. Its compiler and
#     runtime code paths are the same ones the other tests exercise here.
# Shortened (MGC_TEST_SHORT=1), and why: kill_train kills 8 runs instead of
# 30 — a SIGKILLed process reports nothing to a sanitizer, and the later
# kills repeat the same saves and resumes; the plain suite runs all 30.
# test_kernels_gpu runs every op case once, and re-runs a fourth of them
# with the portable variant and the generic kernel (the re-runs repeat the
# same host code with other SPIR-V); the plain suite re-runs them all.
# Leaks reported inside the Vulkan loader, lavapipe/Mesa/LLVM and the Khronos
# validation layer are suppressed by tests/sanitizers/lsan.supp; a leak in
# our code is never suppressed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build-asan}
[[ $# -gt 0 ]] && shift
[[ ${1:-} == "--" ]] && shift
jobs=${JOBS:-$(nproc)}

# -O1 -g1 (line tables): what the sanitizers need for exact stacks, at half
# the compile time of -O2 -g (the sanitized build is the longest part of CI).
cmake -S . -B "$build" -G Ninja -DMGC_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
ninja -C "$build" -j"$jobs"

# Keep the Vulkan driver and layer libraries mapped until exit so their
# leak stacks stay symbolized (see tests/sanitizers/keep_libraries_loaded.c).
keep="$(cd "$build" && pwd)/keep_libraries_loaded.so"   # absolute: ctest runs in $build
cc -shared -fPIC -O2 -o "$keep" tests/sanitizers/keep_libraries_loaded.c
export LD_PRELOAD="$keep${LD_PRELOAD:+:$LD_PRELOAD}"
# verify_asan_link_order=0: the preloaded shim comes before the ASan runtime.
export ASAN_OPTIONS="detect_leaks=1:verify_asan_link_order=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
export MGC_TEST_SHORT=1
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
ctest --output-on-failure -j"$jobs" -LE conformance "$@"
