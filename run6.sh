#!/bin/bash
source bench/device_env.sh; export MGRT_VALIDATION=0
nvidia-smi --query-gpu=name --format=csv,noheader
python3 bench/ab.py $OUT/ab base=bench/bin/mgc_base nostream=bench/bin/mgc:MGRT_DISABLE_FEATURES=StreamSync stream=bench/bin/mgc --steps 10 2>&1 | tail -12
