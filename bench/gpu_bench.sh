#!/usr/bin/env bash
# Runs on the GPU machine (see shared/GPU.md): exports the benchmark models
# with the PyTorch there, times PyTorch eager, compiles each with mgc, runs it
# with libmgrt on Vulkan, checks the output, and writes $OUT/results.md.
# Expects bench/bin/ (mgc + its two shared libraries) carried from the build
# machine and the Vulkan loader unpacked.
set -uo pipefail
OUT=${OUT:-/tmp/out}
MODELS=${MODELS:-mlp,resnet18,resnet50,mobilenet_v2,transformer}
BIN=$(cd "$(dirname "$0")/bin" && pwd)
export LD_LIBRARY_PATH=$BIN:${LD_LIBRARY_PATH:-}
W=/tmp/bench && mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/models.py" $W --models $MODELS 2>&1 | grep -v Warning | tee $OUT/torch.log
{
  echo "| model | input | PyTorch eager (ms) | mgc GPU (ms) | mgc wall (ms) | mgc/PyTorch (wall) | compile (ms) | dispatches | barriers | max err |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > $OUT/results.md
tail -n +2 $W/torch.csv | tr -d "\r" | while IFS=, read -r name shape eager; do
  "$BIN/mgc" compile $W/$name.onnx -o $W/$name.mgb --report $W/$name.json > $W/$name.compile.txt 2>&1 || { echo "| $name | $shape | $eager | compile failed: $(tail -1 $W/$name.compile.txt) |" >> $OUT/results.md; continue; }
  cp $W/$name.json $OUT/ 2>/dev/null
  "$BIN/mgc" run $W/$name.mgb --input x=$W/${name}_x.npy --output-dir $W/$name.out --warmup 10 --iterations 50 > $W/$name.run.txt 2>&1 || { echo "| $name | $shape | $eager | run failed: $(tail -1 $W/$name.run.txt) |" >> $OUT/results.md; continue; }
  cat $W/$name.run.txt
  wall=$(grep '^run:' $W/$name.run.txt | sed -E 's/run: ([0-9.]+) ms wall, ([0-9.-]+) ms GPU.*/\1/')
  gpu=$(grep '^run:' $W/$name.run.txt | sed -E 's/run: ([0-9.]+) ms wall, ([0-9.-]+) ms GPU.*/\2/')
  err=$(python3 "$(dirname "$0")/compare.py" $W/$name.out/y.npy $W/${name}_ref.npy)
  ms=$(python3 -c "import json;print(round(json.load(open('$W/$name.json'))['total_ms'],1))")
  nd=$(python3 -c "import json;j=json.load(open('$W/$name.json'));print(len(j['dispatches']), j['barriers'])")
  ratio=$(python3 -c "print(f'{$wall/$eager:.2f}')")
  echo "| $name | $shape | $eager | $gpu | $wall | $ratio | $ms | ${nd% *} | ${nd#* } | $err |" >> $OUT/results.md
done
cat $OUT/results.md
