#!/usr/bin/env bash
# Installs mgc's Debian 12 dependencies and builds everything into build/.
# Usage: tools/setup.sh [--no-install] [--build-dir DIR] [-- extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=build
INSTALL=1
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-install) INSTALL=0 ;;
    --build-dir) BUILD="$2"; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "setup.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler
  libshaderc-dev glslc spirv-tools spirv-cross libspirv-cross-c-shared-dev glslang-tools
  libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libflatbuffers-dev flatbuffers-compiler
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev catch2
  llvm-14-tools clang-14 libfuzzer-14-dev
  libonnx-testdata dataset-fashion-mnist
  python3-torch python3-torchvision python3-onnx python3-numpy python3-dev pybind11-dev
)

if [[ $INSTALL == 1 ]]; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    SUDO=""
    [[ $(id -u) != 0 ]] && SUDO=sudo
    echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

cmake -S . -B "$BUILD" -G Ninja "${EXTRA[@]}"
ninja -C "$BUILD" -j"$(nproc)"
