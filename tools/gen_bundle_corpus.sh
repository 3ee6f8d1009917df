#!/usr/bin/env bash
# Regenerates the bundle fuzz seeds (tests/fuzz/corpus/bundle/*.mgb) from
# the small ONNX test models, e.g. after a bundle format change.
# Usage: tools/gen_bundle_corpus.sh [MGC_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
MGC=${1:-build/mgc}
[[ -x $MGC ]] || MGC=build/compiler/cli/mgc
for f in tests/fuzz/corpus/bundle/*.mgb; do
  name=$(basename "$f" .mgb)
  "$MGC" compile "tests/compiler/onnx/models/$name.onnx" -o "$f" >/dev/null
  echo "$f"
done
