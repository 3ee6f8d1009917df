#!/usr/bin/env bash
# GEMM benchmark on the GPU machine (shared/GPU.md): one MatMul per IR file,
# compiled and run by each mgc given (an A/B of two builds in one sitting),
# against torch.matmul fp32 (TF32 off) in the same run. Writes
# $OUT/gemm.md: GPU ms (median of the runs) and TFLOP/s = 2 M N K / time,
# and each bundle's kernel. Expects the Vulkan loader set up and each mgc's
# shared libraries on LD_LIBRARY_PATH.
# Usage: OUT=dir bench/gemm.sh MGC [MGC2 ...]
set -uo pipefail
OUT=${OUT:-/tmp/out}
W=/tmp/gemm && mkdir -p "$W" "$OUT"
MGCS=("$@")
# name M N K [batch] [trans_b]
SHAPES=(
  "square4096 4096 4096 4096"
  "square4096_tb 4096 4096 4096 1 1"
  "square2048 2048 2048 2048"
  "square1024 1024 1024 1024"
  "whisper_fc1 1500 1536 384"
  "whisper_fc2 1500 384 1536"
  "whisper_proj 1500 384 384"
  "whisper_scores 1500 1500 64 6 1"
  "whisper_pv 1500 64 1500 6"
  "smollm_train_up 128 1536 576"
  "smollm_q 128 576 576 1 1"
  "smollm_down 128 576 1536 1 1"
  "expert_q 50 720 720 1 1"
  "expert_up 50 2048 720 1 1"
)
python3 - "$W" "$OUT" "${SHAPES[@]}" <<'EOF'
import sys, numpy as np, torch
w, out, shapes = sys.argv[1], sys.argv[2], sys.argv[3:]
torch.backends.cuda.matmul.allow_tf32 = False
rows = []
for line in shapes:
    f = line.split()
    name, M, N, K = f[0], int(f[1]), int(f[2]), int(f[3])
    batch = int(f[4]) if len(f) > 4 else 1
    tb = len(f) > 5 and f[5] == "1"
    rng = np.random.default_rng(0)
    pre = [batch] if batch > 1 else []
    a = rng.standard_normal(pre + [M, K], dtype=np.float32)
    b = rng.standard_normal(pre + ([N, K] if tb else [K, N]), dtype=np.float32)
    np.save(f"{w}/{name}_a.npy", a)
    np.save(f"{w}/{name}_b.npy", b)
    dims = lambda s: ",".join(map(str, s))
    with open(f"{w}/{name}.mgir", "w") as ir:
        ir.write(f"graph @{name}(%a: f32[{dims(a.shape)}], %b: f32[{dims(b.shape)}]) {{\n")
        ir.write(f"  %c = matmul(%a, %b){' {trans_b = 1}' if tb else ''} : f32[{dims(pre + [M, N])}]\n  return %c\n}}\n")
    ta, tb_ = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    op = (lambda: ta @ tb_.transpose(-1, -2)) if tb else (lambda: ta @ tb_)
    for _ in range(5): op()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); op(); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    ms = float(np.median(times))
    rows.append(f"{name} {batch * M * N * K * 2 / ms / 1e9:.1f} {ms:.4f}")
open(f"{w}/torch.txt", "w").write("\n".join(rows) + "\n")
EOF
{
  echo "| shape (M×N×K, batch, trans_b) | torch fp32 TFLOP/s (ms) |$(for m in "${MGCS[@]}"; do printf ' %s TFLOP/s (ms, kernel) |' "$m"; done)"
  echo "|---|---|$(for m in "${MGCS[@]}"; do printf -- '---|'; done)"
  for s in "${SHAPES[@]}"; do
    read -r name M N K batch _ <<< "$s"
    batch=${batch:-1}
    tor=$(grep "^$name " "$W/torch.txt" | awk '{print $2 " (" $3 ")"}')
    row="| $name ${M}×${N}×${K} b$batch | $tor |"
    i=0
    for m in "${MGCS[@]}"; do
      i=$((i + 1))
      if "$m" compile "$W/$name.mgir" -o "$W/${name}_$i.mgb" -q > "$W/${name}_$i.log" 2>&1 &&
         "$m" run "$W/${name}_$i.mgb" -i a="$W/${name}_a.npy" -i b="$W/${name}_b.npy" --warmup 5 --iterations 20 \
           --profile "$W/${name}_$i.json" >> "$W/${name}_$i.log" 2>&1; then
        gpu=$(grep '^run:' "$W/${name}_$i.log" | sed -E 's/.* ([0-9.]+) ms GPU.*/\1/')
        kern=$(grep -A1 'kernel (variant)' "$W/${name}_$i.log" | tail -1 | awk '{print $1}')
        row="$row $(python3 -c "print(f'{$batch*$M*$N*$K*2/$gpu/1e9:.1f} ($gpu, $kern)')") |"
      else
        row="$row failed: $(tail -1 "$W/${name}_$i.log") |"
      fi
    done
    echo "$row"
  done
} | tee "$OUT/gemm.md"
