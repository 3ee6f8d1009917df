#!/usr/bin/env bash
# Decode benchmark on the GPU machine (shared/GPU.md; bench/decode.py):
# SmolLM2-135M's shape in every --weights format against PyTorch eager
# fp32 / fp16, a per-dispatch profile of one f32 and one int4 decode step,
# and Llama 2 7B's width (LAYERS7B layers) in the packed formats. Expects
# bench/bin/ (mgc + its shared libraries) and the Vulkan loader set up.
# Usage: OUT=dir bench/decode.sh [COMMIT]
set -uo pipefail
OUT=${OUT:-/tmp/out}
LAYERS7B=${LAYERS7B:-8}
HERE=$(cd "$(dirname "$0")" && pwd)
MGC=$HERE/bin/mgc
export LD_LIBRARY_PATH=$HERE/bin:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
PYTHONUNBUFFERED=1 python3 "$HERE/decode.py" "$OUT" "$MGC" --commit "${1:-?}" 2>&1 | grep -v Warning | tee "$OUT/decode_smollm2.log"
# One decode step (position 7) of the f32 and int4 bundles, per dispatch.
python3 -c "import numpy as np; np.save('/tmp/decode/ids.npy', np.array([[42]], np.int64)); np.save('/tmp/decode/pos.npy', np.array([7], np.int64))"
for f in f32 int4; do
  "$MGC" compile /tmp/decode/smollm2 --max-seq 256 --weights $f -o /tmp/decode/p_$f.mgb -q &&
    "$MGC" run /tmp/decode/p_$f.mgb --entry decode -i input_ids=/tmp/decode/ids.npy -i position=/tmp/decode/pos.npy \
      --warmup 20 --iterations 50 --profile "$OUT/decode_$f.trace.json" > "$OUT/decode_profile_$f.txt" 2>&1
  tail -25 "$OUT/decode_profile_$f.txt"
done
PYTHONUNBUFFERED=1 timeout 420 python3 "$HERE/decode.py" "$OUT" "$MGC" --shape llama7b --layers "$LAYERS7B" \
  --tokens 64 --formats f16,int8,int4,ternary --torch fp16 --commit "${1:-?}" 2>&1 | grep -v Warning | tee "$OUT/decode_llama7b.log"
# Everything under $OUT in one archive too (the device tool brings back only a few files).
tar czf /tmp/results.tgz -C "$OUT" . && mv /tmp/results.tgz "$OUT/results.tgz"
