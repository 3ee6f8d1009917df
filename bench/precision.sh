#!/usr/bin/env bash
# The accelerated mode on the GPU machine (docs/precision.md): GEMM shapes
# in strict fp32 and with --precision fp16 / bf16 (bench/gemm.sh, one table,
# kernel and variant per bundle), then the transformer workloads against
# PyTorch autocast (bench/workloads.py --precision fp16) with their
# profiles, and mgc's strict fp32 forward of the same exports for the
# fp32 → fp16 ratio. Writes $OUT/gemm.md, $OUT/workloads_fp16.md,
# $OUT/*_fwd_profile.txt, $OUT/*_fp16_shapes.md, $OUT/fp32_forward.txt and
# $OUT/results.tgz (all of them).
# Usage: OUT=dir [STEPS=N] [COMMIT=sha] bench/precision.sh MGC
set -uo pipefail
OUT=${OUT:-/tmp/out}
MGC=$(readlink -f "$1")
STEPS=${STEPS:-5}
mkdir -p "$OUT" /tmp/precision
for p in fp16 bf16; do
  printf '#!/bin/sh\nif [ "$1" = compile ]; then exec %s "$@" --precision %s; fi\nexec %s "$@"\n' "$MGC" "$p" "$MGC" \
    > /tmp/precision/mgc_$p
  chmod +x /tmp/precision/mgc_$p
done
OUT=$OUT bash "$(dirname "$0")/gemm.sh" "$MGC" /tmp/precision/mgc_fp16 /tmp/precision/mgc_bf16
grep -h -A1 'kernel (variant)' /tmp/gemm/*_2.log | grep -v -- '--' | sort | uniq -c > "$OUT/gemm_fp16_variants.txt"
W=whisper_tiny_encoder,smollm2_135m,smolvla_expert
python3 "$(dirname "$0")/workloads.py" "$OUT" "$MGC" --only $W --no-compile --steps "$STEPS" --precision fp16 --profile --commit "${COMMIT:-?}"
: > "$OUT/fp32_forward.txt"
for spec in "whisper_tiny_encoder mel" "smollm2_135m input_ids" "smolvla_expert actions context"; do
  set -- $spec
  name=$1; shift
  ins=()
  for i in "$@"; do ins+=(-i "$i=/tmp/workloads/${name}_$i.npy"); done
  "$MGC" compile "/tmp/workloads/$name.onnx" -o "/tmp/precision/$name.f32.mgb" -q &&
    echo "$name fp32 $("$MGC" run "/tmp/precision/$name.f32.mgb" "${ins[@]}" --warmup 10 --iterations 50 | grep '^run:')" \
      >> "$OUT/fp32_forward.txt"
done
cat "$OUT/gemm_fp16_variants.txt" "$OUT/fp32_forward.txt"
# Each transformer's fp16 forward by kernel and shape (bench/trace_shapes.py).
for name in whisper_tiny_encoder smollm2_135m smolvla_expert; do
  t=/tmp/workloads/${name}_fwd_trace.json
  [ -f "$t" ] && python3 "$(dirname "$0")/trace_shapes.py" "$t" --top 15 > "$OUT/${name}_fp16_shapes.md"
done
# Everything under $OUT in one archive too (the device tool brings back only a few files).
tar czf /tmp/results.tgz -C "$OUT" . && mv /tmp/results.tgz "$OUT/results.tgz"
