#!/usr/bin/env bash
# Stages mgc for the GPU machine (shared/GPU.md): each named binary of the
# build, stripped and xz-compressed (the device tool carries at most 64 MiB),
# and the shared libraries it needs that the GPU machine's Ubuntu lacks,
# into bench/bin/ (ignored by git). On the GPU machine, `source
# bench/device_env.sh` unpacks them. Binaries under other names (an A/B
# build) go in as NAME=PATH.
# Usage: bench/pack.sh [BUILD_DIR] [NAME | NAME=PATH ...]   (default: build mgc)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../build}
shift || true
[[ $# -eq 0 ]] && set -- mgc
mkdir -p "$HERE/bin"
for spec in "$@"; do
  name=${spec%%=*}
  src=$BUILD/$name
  [[ $spec == *=* ]] && src=${spec#*=}
  strip -o "$HERE/bin/$name" "$src"
  for lib in $(ldd "$src" | awk '/libonnx_proto|libprotobuf\.|libutf8proc|libpcre2-8/ {print $3}'); do
    cp -L "$lib" "$HERE/bin/"
  done
  xz -T2 -6 -f "$HERE/bin/$name"
done
du -sh "$HERE/bin"
