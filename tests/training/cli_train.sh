#!/bin/bash
# The training CLI end to end, in separate processes: mgc compile --train,
# mgc train (checkpoint, then --resume in a new process: the losses after
# the checkpoint equal an uninterrupted run's bit for bit), mgc export, mgc
# run of the exported bundle, and the refusal of a truncated checkpoint.
# usage: cli_train.sh BUILD_DIR   (from the repository root)
set -eu
MGC="$1/mgc"
F=tests/training/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DATA="--data x=$F/mlp_x.npy --data labels=$F/mlp_labels.npy --no-shuffle -q"

"$MGC" compile $F/mlp.onnx --train --optimizer adamw --lr 1e-2 --schedule cosine --warmup 3 --total-steps 60 \
  --clip-norm 1 -q -o "$T/t.mgb"
"$MGC" train "$T/t.mgb" $DATA --epochs 3 --log "$T/all.csv" > /dev/null
"$MGC" train "$T/t.mgb" $DATA --epochs 3 --steps 27 --checkpoint "$T/ck.safetensors" > /dev/null
"$MGC" train "$T/t.mgb" $DATA --epochs 3 --checkpoint "$T/ck.safetensors" --resume --log "$T/resumed.csv" > /dev/null
# step,loss of steps 28..60: identical text (9 significant digits = every f32 bit)
if ! diff <(tail -n +29 "$T/all.csv" | cut -d, -f1,3) <(cut -d, -f1,3 "$T/resumed.csv"); then
  echo "FAIL: resumed losses differ from the uninterrupted run" >&2
  exit 1
fi
[ "$(wc -l < "$T/resumed.csv")" -eq 33 ] || { echo "FAIL: expected 33 resumed steps" >&2; exit 1; }

"$MGC" export "$T/t.mgb" --weights "$T/ck.safetensors" -q -o "$T/m.mgb"
/usr/bin/python3 -c "import numpy as np; np.save('$T/x.npy', np.load('$F/mlp_x.npy')[:8])"
"$MGC" run "$T/m.mgb" --input x="$T/x.npy" --output-dir "$T/out" > /dev/null
[ -f "$T/out/logits.npy" ] || { echo "FAIL: exported bundle produced no logits" >&2; exit 1; }

head -c 300 "$T/ck.safetensors" > "$T/cut.safetensors"
if "$MGC" train "$T/t.mgb" $DATA --checkpoint "$T/cut.safetensors" --resume 2> "$T/err.txt"; then
  echo "FAIL: a truncated checkpoint was accepted" >&2
  exit 1
fi
grep -q "truncated\|runs past" "$T/err.txt" || { echo "FAIL: unclear error: $(cat "$T/err.txt")" >&2; exit 1; }
echo "cli_train: ok"
