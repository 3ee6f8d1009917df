#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages + build) and runs every test.
# Usage: tools/test.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
