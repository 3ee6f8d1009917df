#!/usr/bin/env bash
# mgc generate / bench-decode end to end (docs/llm.md): a generation bundle
# from a tiny random checkpoint (make_checkpoints.py) generates exactly the
# reference's greedy tokens; a bundle with a tokenizer (tokenizer.json or a
# SentencePiece tokenizer.model) takes text prompts, streams text and stops
# at end-of-sequence; bad requests are clear errors.
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

# A repetition penalty: the reference's penalized greedy tokens
# (make_checkpoints.py write_penalized), which differ from plain greedy.
want=$(ids "$FX/llama/gen_ids_rep1.5.npy")
got=$("$MGC" generate "$TMP/llama.mgb" --prompt-ids "$(ids "$FX/llama/gen_prompt.npy")" --max-tokens 6 \
      --temperature 0 --repetition-penalty 1.5 --print-ids | tail -1)
if [[ $got == "$want" ]]; then echo "ok   llama --repetition-penalty 1.5 = reference ($got)"; else echo "FAIL repetition penalty: got $got, want $want"; fail=1; fi

# Sampling is reproducible with a seed.
a=$("$MGC" generate "$TMP/llama.mgb" --prompt-ids 5,6,7 --max-tokens 8 --temperature 0.8 --top-p 0.9 --seed 3 --print-ids | tail -1)
b=$("$MGC" generate "$TMP/llama.mgb" --prompt-ids 5,6,7 --max-tokens 8 --temperature 0.8 --top-p 0.9 --seed 3 --print-ids | tail -1)
if [[ -n $a && $a == "$b" ]]; then echo "ok   seeded sampling repeats ($a)"; else echo "FAIL seeded sampling: '$a' vs '$b'"; fail=1; fi

out=$("$MGC" bench-decode "$TMP/llama.mgb" --tokens 8) || { echo "FAIL bench-decode"; fail=1; }
if [[ $out == *"ms/token"* && $out == *"bytes/token"* && $out =~ host:\ set\ inputs\ [0-9.]+\ ms,\ run\ [0-9.]+\ ms.*read\ logits\ [0-9.]+\ ms ]]; then echo "ok   bench-decode (${out##*decode: })"; else echo "FAIL bench-decode: $out"; fail=1; fi

# A bundle with a tokenizer: qwen2's folder has tokenizer.json (a byte-level
# BPE whose template adds <|begin_of_text|> = 254) and generation_config.json
# (eos_token_id [gen_ids[5], 2]).
"$MGC" compile "$FX/qwen2" --max-seq 48 --prefill-chunk 16 -o "$TMP/qwen2.mgb" -q || { echo "FAIL compile qwen2"; exit 1; }
check() {  # NAME GOT WANT
  if [[ -n $2 && $2 == "$3" ]]; then echo "ok   $1 ($2)"; else echo "FAIL $1: got '$2', want '$3'"; fail=1; fi
}
prompt="Hello the world, hello model!"
enc=$("$MGC" tokenize "$TMP/qwen2.mgb" --text "$prompt" --ids-only)
check "tokenize adds BOS" "${enc%%,*}" 254
printf '%s' "$prompt" >"$TMP/prompt.txt"
gen=(--max-tokens 12 --temperature 0 --print-ids --ignore-eos)
by_ids=$("$MGC" generate "$TMP/qwen2.mgb" --prompt-ids "$enc" "${gen[@]}" | tail -1)
check "--prompt = --prompt-ids of its encoding" "$("$MGC" generate "$TMP/qwen2.mgb" --prompt "$prompt" "${gen[@]}" | tail -1)" "$by_ids"
check "--prompt-file = --prompt-ids" "$("$MGC" generate "$TMP/qwen2.mgb" --prompt-file "$TMP/prompt.txt" "${gen[@]}" | tail -1)" "$by_ids"
# The streamed text (the lines before the summary and the ids) is the decode of the ids.
out=$("$MGC" generate "$TMP/qwen2.mgb" --prompt "$prompt" --max-tokens 12 --temperature 5 --seed 5 --print-ids --ignore-eos)
check "streamed text = decode of the ids" "$(head -n -2 <<<"$out")" \
  "$("$MGC" tokenize "$TMP/qwen2.mgb" --decode "$(tail -1 <<<"$out")" --skip-special)"
# Generation stops at the first end-of-sequence id, unless --ignore-eos.
stop=$(/usr/bin/python3 -c "import json, sys, numpy as np
g = [int(t) for t in np.load(sys.argv[1])]
e = json.load(open(sys.argv[2]))['eos_token_id']
print(','.join(map(str, g[:next(i for i, t in enumerate(g) if t in e) + 1])))" "$FX/qwen2/gen_ids.npy" "$FX/qwen2/generation_config.json")
q2=(generate "$TMP/qwen2.mgb" --prompt-ids "$(ids "$FX/qwen2/gen_prompt.npy")" --max-tokens 24 --temperature 0 --print-ids)
out=$("$MGC" "${q2[@]}")
check "stops at end-of-sequence" "$(tail -1 <<<"$out")" "$stop"
[[ $out == *"stopped at end-of-sequence"* ]] || { echo "FAIL: the summary does not say it stopped"; fail=1; }
check "--ignore-eos = reference" "$("$MGC" "${q2[@]}" --ignore-eos | tail -1)" "$(ids "$FX/qwen2/gen_ids.npy")"
# A folder whose tokenizer.json mgc cannot load does not compile.
mkdir -p "$TMP/badtok" && cp "$FX/qwen2/config.json" "$FX/qwen2/model.safetensors" "$TMP/badtok/"
echo '{"model": {"type": "WordPiece", "vocab": {}}}' >"$TMP/badtok/tokenizer.json"
expect_error bad_tokenizer 1 "badtok/tokenizer.json: model type 'WordPiece' is not supported" -- compile "$TMP/badtok" --max-seq 16 -o "$TMP/x.mgb"
expect_error tokenize_no_tokenizer 1 "the bundle has no tokenizer" -- tokenize "$TMP/llama.mgb" --text hi

# A folder with a SentencePiece tokenizer.model and no tokenizer.json (Llama 2
# style): the llama checkpoint with a 250-piece BPE model
# (tests/compiler/tokenizer/make_sentencepiece.py). Its ids are
# python3-sentencepiece's (the reference), BOS first; generation stops at
# config.json's eos_token_id 2.
SPM=tests/compiler/tokenizer/sentencepiece
mkdir -p "$TMP/spm" && cp "$FX/llama/config.json" "$FX/llama/model.safetensors" "$TMP/spm/"
cp "$SPM/bpe_small.model" "$TMP/spm/tokenizer.model"
"$MGC" compile "$TMP/spm" --max-seq 32 -o "$TMP/spm.mgb" -q || { echo "FAIL compile spm"; exit 1; }
spm_ref=$(/usr/bin/python3 -c "import sentencepiece as s, sys
p = s.SentencePieceProcessor(model_file=sys.argv[1])
print(','.join(map(str, [p.bos_id()] + p.encode(sys.argv[2]))))" "$SPM/bpe_small.model" "$prompt")
check "tokenizer.model: tokenize = python3-sentencepiece" "$("$MGC" tokenize "$TMP/spm.mgb" --text "$prompt" --ids-only)" "$spm_ref"
spm_gen=(--max-tokens 4 --temperature 0 --print-ids --ignore-eos)
by_ids=$("$MGC" generate "$TMP/spm.mgb" --prompt-ids "$spm_ref" "${spm_gen[@]}" | tail -1)
out=$("$MGC" generate "$TMP/spm.mgb" --prompt "$prompt" "${spm_gen[@]}")
check "tokenizer.model: --prompt = --prompt-ids of its encoding" "$(tail -1 <<<"$out")" "$by_ids"
[[ $(tail -1 <<<"$out" | tr ',' '\n' | wc -l) == 4 ]] || { echo "FAIL tokenizer.model: not 4 new tokens: $out"; fail=1; }
check "tokenizer.model: streamed text = decode of the ids" "$(head -n -2 <<<"$out")" \
  "$("$MGC" tokenize "$TMP/spm.mgb" --decode "$(tail -1 <<<"$out")" --skip-special)"
check "tokenizer.model: inspect" "$("$MGC" inspect "$TMP/spm.mgb" | grep -o 'tokenizer.model .*')" \
  "tokenizer.model $(stat -c %s "$SPM/bpe_small.model") bytes, 250 token ids, stops at 2"
# Both files: tokenizer.json wins (qwen2's adds <|begin_of_text|> = 254).
mkdir -p "$TMP/spm_both" && cp "$TMP/spm/"* "$FX/qwen2/tokenizer.json" "$TMP/spm_both/"
"$MGC" compile "$TMP/spm_both" --max-seq 32 -o "$TMP/spm_both.mgb" -q || { echo "FAIL compile spm_both"; fail=1; }
enc=$("$MGC" tokenize "$TMP/spm_both.mgb" --text "$prompt" --ids-only)
check "tokenizer.json wins over tokenizer.model" "${enc%%,*}" 254
# A tokenizer.model that does not load, or whose ids the model cannot embed.
mkdir -p "$TMP/spm_bad" && cp "$FX/llama/config.json" "$FX/llama/model.safetensors" "$TMP/spm_bad/"
head -c 1000 "$SPM/bpe_small.model" >"$TMP/spm_bad/tokenizer.model"
expect_error spm_truncated 1 "spm_bad/tokenizer.model: not a SentencePiece model (the protobuf does not parse: truncated)" -- compile "$TMP/spm_bad" --max-seq 32 -o "$TMP/x.mgb"
printf 'not a model' >"$TMP/spm_bad/tokenizer.model"
expect_error spm_garbage 1 "spm_bad/tokenizer.model: not a SentencePiece model (the protobuf does not parse" -- compile "$TMP/spm_bad" --max-seq 32 -o "$TMP/x.mgb"
cp "$SPM/bpe_byte_fallback.model" "$TMP/spm_bad/tokenizer.model"
expect_error spm_vocab 1 "spm_bad/tokenizer.model: token ids reach 599, but config.json's vocab_size is 256" -- compile "$TMP/spm_bad" --max-seq 32 -o "$TMP/x.mgb"
expect_error prompt_and_ids 2 "excludes" -- generate "$TMP/qwen2.mgb" --prompt hi --prompt-ids 1

expect_error past_max_seq 2 "this bundle holds 48" -- generate "$TMP/llama.mgb" --prompt-ids 1,2,3 --max-tokens 47
expect_error bad_repetition_penalty 2 "--repetition-penalty: Value 0 not in range" -- generate "$TMP/llama.mgb" --prompt-ids 1 --repetition-penalty 0
expect_error token_outside_vocab 2 "outside the vocabulary" -- generate "$TMP/llama.mgb" --prompt-ids 1,999 --max-tokens 2
expect_error bad_prompt_ids 2 "not a comma-separated list" -- generate "$TMP/llama.mgb" --prompt-ids 1,x
expect_error text_prompt 2 "give token ids with --prompt-ids" -- generate "$TMP/llama.mgb" --prompt hello
expect_error chunk_not_dividing 1 "must divide --max-seq" -- compile "$FX/llama" --max-seq 48 --prefill-chunk 20 -o "$TMP/x.mgb"
expect_error not_a_checkpoint 1 "checkpoint folder" -- compile examples/cnn.onnx --max-seq 48 -o "$TMP/x.mgb"
"$MGC" compile examples/cnn.onnx -o "$TMP/cnn.mgb" -q
expect_error not_generation_bundle 1 "not a generation bundle" -- generate "$TMP/cnn.mgb" --prompt-ids 1
exit $fail
