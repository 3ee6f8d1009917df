#!/usr/bin/env bash
# Golden tests for the CLI's errors: each case runs mgc on bad input and
# compares "exit code + stderr" with tests/compiler/cli/golden/<case>.txt.
# Usage: tests/compiler/cli/cli_errors.sh BUILD_DIR [--update]
# Run from the repository root (messages hold paths relative to it).
set -uo pipefail
BUILD=$1
UPDATE=${2:-}
MGC=$BUILD/mgc
GOLDEN=tests/compiler/cli/golden
TMP=$BUILD/tests/compiler/cli/tmp
rm -rf "$TMP" && mkdir -p "$TMP" "$GOLDEN"
D=tests/compiler/cli/data

# Fixtures made from the shipped example: a good bundle, a truncated one,
# one with a flipped byte.
"$MGC" compile examples/cnn.onnx -o "$TMP/cnn.mgb" -q || { echo "cannot compile the example"; exit 1; }
head -c 1000 "$TMP/cnn.mgb" > "$TMP/truncated.mgb"
cp "$TMP/cnn.mgb" "$TMP/flipped.mgb"
printf '\xff' | dd of="$TMP/flipped.mgb" bs=1 seek=200 conv=notrunc status=none
echo "hello" > "$TMP/not_a_dir"
mkdir -p "$TMP/folder"
# The good bundle's size changes with every kernel edit: goldens say SIZE
# where a message names it (and so check the message names the real size).
SIZE=$(stat -c %s "$TMP/cnn.mgb")

cases=(
  "compile_missing_file|compile no/such/model.onnx -o $TMP/x.mgb"
  "compile_not_onnx|compile $D/not_onnx.onnx -o $TMP/x.mgb"
  "compile_unsupported_ops|compile $D/unsupported.onnx -o $TMP/x.mgb"
  "compile_opset_out_of_range|compile $D/opset30.onnx -o $TMP/x.mgb"
  "compile_output_not_writable|compile examples/cnn.onnx -o $TMP/not_a_dir/x.mgb -q"
  "run_missing_bundle|run no/such/model.mgb"
  "run_truncated_bundle|run $TMP/truncated.mgb --input x=examples/cnn_input.npy"
  "run_flipped_byte|run $TMP/flipped.mgb --input x=examples/cnn_input.npy"
  "run_wrong_input_name|run $TMP/cnn.mgb --input y=examples/cnn_input.npy"
  "run_missing_input|run $TMP/cnn.mgb"
  "run_wrong_shape|run $TMP/cnn.mgb --input x=$D/x_wrong_shape.npy"
  "run_wrong_dtype|run $TMP/cnn.mgb --input x=$D/x_wrong_dtype.npy"
  "run_bad_npy|run $TMP/cnn.mgb --input x=$D/not_onnx.onnx"
  "run_output_dir_not_writable|run $TMP/cnn.mgb --input x=examples/cnn_input.npy --output-dir $TMP/not_a_dir/out"
  "inspect_not_a_bundle|inspect $D/not_onnx.onnx"
  "compile_folder_without_config|compile $TMP/folder -o $TMP/x.mgb"
  "compile_char_device|compile /dev/null -o $TMP/x.mgb"
  "compile_unknown_precision|compile examples/cnn.onnx -o $TMP/x.mgb --precision fp8"
  "opt_folder|opt $TMP/folder"
  "run_folder|run $TMP/folder"
  "run_input_char_device|run $TMP/cnn.mgb --input x=/dev/null"
  "run_input_folder|run $TMP/cnn.mgb --input x=$TMP/folder"
  "inspect_folder|inspect $TMP/folder"
  "verify_folder|verify $TMP/folder"
  "train_folder|train $TMP/folder --dataset fashion-mnist"
  "generate_folder|generate $TMP/folder --prompt-ids 1"
  "bench_decode_folder|bench-decode $TMP/folder"
  "tokenize_char_device|tokenize /dev/null --text hi"
  "unknown_command|frobnicate"
)

fail=0
source tests/compiler/cli/golden_cases.sh
GOLDEN_SED="s#\b$SIZE bytes#SIZE bytes#g" golden_cases "${cases[@]}"

# No Vulkan device at all: the loader finds no driver.
err=$(VK_ICD_FILENAMES=/nonexistent.json VK_DRIVER_FILES=/nonexistent.json "$MGC" run "$TMP/cnn.mgb" --input x=examples/cnn_input.npy 2>&1 >/dev/null)
rc=$?
if [[ $rc != 3 ]]; then echo "FAIL no_device: exit $rc: $err"; fail=1; else echo "ok   no_device ($err)"; fi

# Determinism: the same model and flags give a byte-identical bundle.
"$MGC" compile examples/cnn.onnx -o "$TMP/again.mgb" -q
if cmp -s "$TMP/cnn.mgb" "$TMP/again.mgb"; then echo "ok   deterministic"; else echo "FAIL deterministic"; fail=1; fi
exit $fail
