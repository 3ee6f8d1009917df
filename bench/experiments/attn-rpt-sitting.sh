source bench/device_env.sh; export MGRT_VALIDATION=0
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
echo "relu_input $(MGC_OP_CASES="relu_input" timeout 20 bench/bin/test_kernels_gpu 2>&1 | grep -E "passed|failed" | tail -1)" | tee $OUT/tests.txt
timeout 70 python3 bench/ab.py $OUT/abr base=bench/bin/mgc_base relu=bench/bin/mgc base2=bench/bin/mgc_base relu2=bench/bin/mgc --no-train --only resnet50 --steps 10 2>&1 | grep -A3 "^| workload"
S=MGRT_PIPELINE_STATS=1
V=""; for v in attnx_b24r4n:24 attnx_b32r8n:32 attnx_b24r8n:24 attnx_b24r8p:24 attnx_b16r8n:16 attnx_b64r8n:64 attnx_b48r8n:48; do V="$V ${v%%:*}=bench/bin/mgc:$S,MGC_EXP_ATTN=$v"; done
timeout 150 python3 bench/ab.py $OUT/ab base=bench/bin/mgc nomm8=bench/bin/mgc:MGC_EXP_NO_MM8SPLIT=1 stats=bench/bin/mgc:$S $V --no-train --only whisper_tiny_encoder --steps 10 2>&1 | grep -A3 "^| workload"
grep -h "attention_tiled\|attnx" $OUT/ab/*stats*.txt | cut -c1-300 | sort -u > $OUT/attn_stats.txt; head -c 2500 $OUT/attn_stats.txt
