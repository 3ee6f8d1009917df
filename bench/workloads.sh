#!/usr/bin/env bash
# The benchmark of record, on the GPU machine (shared/GPU.md): the five
# reference workloads, mgc against PyTorch in the same run
# (bench/workloads.py). Expects bench/bin/ (mgc + its two shared libraries,
# built here) and the Vulkan loader unpacked. Writes $OUT/workloads.md and
# $OUT/workloads.json. Arguments go to workloads.py (--only NAME,...,
# --no-compile, --steps N, --commit SHA, --profile).
set -uo pipefail
OUT=${OUT:-/tmp/out}
BIN=$(cd "$(dirname "$0")/bin" && pwd)
export LD_LIBRARY_PATH=$BIN:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/workloads.py" "$OUT" "$BIN/mgc" "$@" 2>&1 | grep -v "Warning\|warn(" | tee "$OUT/workloads.log"
# Everything under $OUT in one archive too (the device tool brings back only a few files).
tar czf /tmp/results.tgz -C "$OUT" . && mv /tmp/results.tgz "$OUT/results.tgz"
