#!/bin/bash
# A sequence model through the training CLI: mgc compile --train --loss
# cross_entropy --class-axis -1 on [N, T, vocab] logits, mgc train fed
# [S, T] token ids and [S, T] token targets (the log's accuracy column is
# per token), and a clear error for targets without the sample axis.
# usage: cli_train_sequence.sh BUILD_DIR   (from the repository root)
set -eu
MGC="$1/mgc"
W="$1/fixtures/workloads"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
M=smollm_token_targets

"$MGC" compile "$W/$M.onnx" --train --loss cross_entropy --class-axis -1 --optimizer adamw --lr 1e-3 -q -o "$T/lm.mgb"
"$MGC" train "$T/lm.mgb" --data input_ids="$W/${M}_input_ids.npy" --data labels="$W/${M}_labels.npy" \
  --no-shuffle -q --epochs 2 --log "$T/log.csv" > "$T/out.txt"
# 40 sequences of 16 tokens, batch 2: 20 steps an epoch
[ "$(wc -l < "$T/log.csv")" -eq 41 ] || { echo "FAIL: expected 40 logged steps" >&2; cat "$T/log.csv" >&2; exit 1; }
/usr/bin/python3 - "$T/log.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    loss, acc = float(r["loss"]), float(r["accuracy"])  # accuracy present: per-token classes
    assert math.isfinite(loss) and 0 <= acc <= 1, r
first = sum(float(r["loss"]) for r in rows[:20]) / 20
second = sum(float(r["loss"]) for r in rows[20:]) / 20
assert second < first, "the second epoch's mean loss %.4f is not below the first's %.4f" % (second, first)
PY

# Targets flattened to [S * T]: refused, naming the shape it takes.
/usr/bin/python3 -c "import numpy as np; np.save('$T/flat.npy', np.load('$W/${M}_labels.npy').reshape(-1))"
if "$MGC" train "$T/lm.mgb" --data input_ids="$W/${M}_input_ids.npy" --data labels="$T/flat.npy" -q 2> "$T/err.txt"; then
  echo "FAIL: flattened targets were accepted" >&2
  exit 1
fi
grep -q "takes samples shaped \[S, 16\]" "$T/err.txt" || { echo "FAIL: unclear error: $(cat "$T/err.txt")" >&2; exit 1; }
echo "cli_train_sequence: ok"
