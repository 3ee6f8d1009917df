#!/bin/bash
source bench/device_env.sh; export MGRT_VALIDATION=0
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
python3 bench/decode.py $OUT/d1 'bench/bin/mgc:MGC_DISABLE_PASSES=fold-causal-mask,bench/bin/mgc' --torch "" --tokens 128 --formats f16,int4,ternary --commit 39a5dfa 2>&1 | grep -v "^  " | tail -30
[[ $SECONDS -gt 400 ]] && exit 0
python3 bench/decode.py $OUT/d2 'bench/bin/mgc,bench/bin/mgc:MGC_DISABLE_PASSES=fold-causal-mask' --torch "" --tokens 128 --formats f16 --commit 39a5dfa 2>&1 | grep -v "^  " | tail -12
