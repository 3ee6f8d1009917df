#!/usr/bin/env bash
# mgc compile --embed-check + mgc verify, end to end on the default device
# (lavapipe in CI): checks that pass, a tampered weight (checksum recomputed,
# as a deliberate edit would) that fails with exit 5, and the errors, whose
# "exit code + stderr" are compared with tests/compiler/cli/golden/<case>.txt.
# Usage: tests/compiler/cli/cli_verify.sh BUILD_DIR [--update]
# Run from the repository root (messages hold paths relative to it).
set -uo pipefail
BUILD=$1
UPDATE=${2:-}
MGC=$BUILD/mgc
GOLDEN=tests/compiler/cli/golden
TMP=$BUILD/tests/compiler/cli/tmp_verify
TAMPER="/usr/bin/python3 tests/compiler/cli/tamper_bundle.py"
rm -rf "$TMP" && mkdir -p "$TMP"
D=tests/compiler/cli/data
fail=0
source tests/compiler/cli/golden_cases.sh

must() { "$@" || { echo "FAIL setup: $*"; exit 1; }; }
must "$MGC" compile examples/cnn.onnx -o "$TMP/cnn.mgb" --embed-check -q
must "$MGC" compile $D/embed_gather.mgir -o "$TMP/gather.mgb" --embed-check -q
must "$MGC" compile examples/cnn.onnx -o "$TMP/plain.mgb" -q
# The exponent byte of the first weight (conv1's): the output moves far.
must $TAMPER "$TMP/cnn.mgb" "$TMP/tampered.mgb" weights 3 0x40
# The same edit without the checksum: refused at load.
cp "$TMP/cnn.mgb" "$TMP/flipped.mgb"
WEIGHTS=$(od -An -t u8 -j 32 -N 8 "$TMP/cnn.mgb" | tr -d ' ')
printf '\x7f' | dd of="$TMP/flipped.mgb" bs=1 seek=$((WEIGHTS + 3)) conv=notrunc status=none
# A check section whose tolerance is negative.
must $TAMPER "$TMP/cnn.mgb" "$TMP/bad_check.mgb" double 0.001 -1

# Passing checks: exit 0 and a PASS verdict on stdout.
for b in cnn gather; do
  out=$("$MGC" verify "$TMP/$b.mgb" --validation 2>&1)
  rc=$?
  if [[ $rc == 0 && $out == *"PASS: every output within tolerance"* ]]; then echo "ok   verify_pass_$b"
  else echo "FAIL verify_pass_$b (exit $rc)"; echo "$out"; fail=1; fi
done
out=$("$MGC" verify "$TMP/tampered.mgb" 2>/dev/null)
if [[ $out == *"FAIL: 1 of 1 outputs differ"* ]]; then echo "ok   verify_tampered_stdout"
else echo "FAIL verify_tampered_stdout"; echo "$out"; fail=1; fi

cases=(
  "verify_tampered_weight|verify $TMP/tampered.mgb"
  "verify_flipped_weight|verify $TMP/flipped.mgb"
  "verify_no_check|verify $TMP/plain.mgb"
  "verify_bad_check|verify $TMP/bad_check.mgb"
  "verify_missing_bundle|verify no/such/model.mgb"
  "compile_embed_check_train|compile examples/cnn.onnx --train -o $TMP/train.mgb --embed-check -q"
)
golden_cases "${cases[@]}"

# Deterministic: the same model and flags give the same bundle, check included.
must "$MGC" compile examples/cnn.onnx -o "$TMP/again.mgb" --embed-check -q
if cmp -s "$TMP/cnn.mgb" "$TMP/again.mgb"; then echo "ok   deterministic"; else echo "FAIL deterministic"; fail=1; fi
exit $fail
