#!/usr/bin/env bash
# mgc generate / bench-decode end to end (docs/llm.md): a generation bundle
# from a tiny random checkpoint (make_checkpoints.py) generates exactly the
# reference's greedy tokens; bad requests are clear errors.
# Usage: tests/compiler/hf/hf_generate.sh MGC FIXTURES_DIR TMP_DIR
set -uo pipefail
MGC=$1
FX=$2
TMP=$3
mkdir -p "$TMP"
fail=0
ids() { /usr/bin/python3 -c "import numpy as np, sys; print(','.join(map(str, np.load(sys.argv[1]))))" "$1"; }
expect_error() {  # NAME EXIT_CODE MESSAGE_PART -- ARGS...
  local name=$1 code=$2 part=$3
  shift 4
  err=$("$MGC" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc != "$code" || $err != *"$part"* ]]; then echo "FAIL $name: exit $rc: $err"; fail=1; else echo "ok   $name ($err)"; fi
}

for m in llama qwen3; do
  "$MGC" compile "$FX/$m" --max-seq 48 --prefill-chunk 16 -o "$TMP/$m.mgb" -q || { echo "FAIL compile $m"; exit 1; }
  want=$(ids "$FX/$m/gen_ids.npy")
  got=$(MGRT_VALIDATION=1 "$MGC" generate "$TMP/$m.mgb" --prompt-ids "$(ids "$FX/$m/gen_prompt.npy")" \
        --max-tokens 24 --temperature 0 --print-ids --validation | tail -1)
  if [[ $got == "$want" ]]; then echo "ok   $m greedy tokens = reference ($got)"; else echo "FAIL $m: got $got, want $want"; fail=1; fi
done

# Sampling is reproducible with a seed.
a=$("$MGC" generate "$TMP/llama.mgb" --prompt-ids 5,6,7 --max-tokens 8 --temperature 0.8 --top-p 0.9 --seed 3 --print-ids | tail -1)
b=$("$MGC" generate "$TMP/llama.mgb" --prompt-ids 5,6,7 --max-tokens 8 --temperature 0.8 --top-p 0.9 --seed 3 --print-ids | tail -1)
if [[ -n $a && $a == "$b" ]]; then echo "ok   seeded sampling repeats ($a)"; else echo "FAIL seeded sampling: '$a' vs '$b'"; fail=1; fi

out=$("$MGC" bench-decode "$TMP/llama.mgb" --tokens 8) || { echo "FAIL bench-decode"; fail=1; }
if [[ $out == *"ms/token"* && $out == *"bytes/token"* ]]; then echo "ok   bench-decode (${out##*decode: })"; else echo "FAIL bench-decode: $out"; fail=1; fi

expect_error past_max_seq 2 "this bundle holds 48" -- generate "$TMP/llama.mgb" --prompt-ids 1,2,3 --max-tokens 47
expect_error token_outside_vocab 2 "outside the vocabulary" -- generate "$TMP/llama.mgb" --prompt-ids 1,999 --max-tokens 2
expect_error bad_prompt_ids 2 "not a comma-separated list" -- generate "$TMP/llama.mgb" --prompt-ids 1,x
expect_error text_prompt 2 "give token ids with --prompt-ids" -- generate "$TMP/llama.mgb" --prompt hello
expect_error chunk_not_dividing 1 "must divide --max-seq" -- compile "$FX/llama" --max-seq 48 --prefill-chunk 20 -o "$TMP/x.mgb"
expect_error not_a_checkpoint 1 "checkpoint folder" -- compile examples/cnn.onnx --max-seq 48 -o "$TMP/x.mgb"
"$MGC" compile examples/cnn.onnx -o "$TMP/cnn.mgb" -q
expect_error not_generation_bundle 1 "not a generation bundle" -- generate "$TMP/cnn.mgb" --prompt-ids 1
exit $fail
