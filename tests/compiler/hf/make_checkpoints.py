"""Tiny random Hugging Face checkpoints and their expected logits, for the
checkpoint-folder frontend (compiler/hf, docs/llm.md).

There is no `transformers` package here, so this file holds a small
reference implementation of the Llama / Qwen2 / Qwen3 forward pass written
to follow transformers' modeling_llama.py, modeling_qwen2.py and
modeling_qwen3.py line by line (RMSNorm in f32, rotate_half RoPE with the
default / linear / llama3 inv_freq, repeat_kv for GQA, SwiGLU, tied
embeddings, q/k/v biases, per-head q/k RMSNorm), and a safetensors writer.

Each folder gets config.json, model.safetensors (or shards and
model.safetensors.index.json), input_ids.npy (i64 [1, T]) and logits.npy
(f32 [1, T, vocab]); qwen2 also a small byte-level BPE tokenizer.json and a
generation_config.json. Weights stored as BF16 / F16 give logits of the model
whose weights are those rounded values.

    /usr/bin/python3 tests/compiler/hf/make_checkpoints.py --out DIR

Deterministic (seeded). CTest runs it into the build folder before
test_hf_checkpoint (tests/compiler/hf/CMakeLists.txt).
"""
import argparse
import json
import math
import os
import struct

import numpy as np
import torch

SEED = 1234
SEQ = 7  # odd on purpose
VOCAB = 256
HIDDEN = 64


# ---- reference forward (transformers, f32) --------------------------------

def rms_norm(x, w, eps):
    var = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(var + eps))


def inv_freq(cfg, head_dim):
    # _compute_default_rope_parameters
    base = cfg["rope_theta"]
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    rs = cfg.get("rope_scaling")
    if not rs:
        return inv
    kind = rs.get("rope_type", rs.get("type"))
    if kind == "linear":
        return inv / rs["factor"]
    assert kind == "llama3"
    # _compute_llama3_parameters
    factor, low, high = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
    old = rs["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv
    inv_l = torch.where(wavelen > low_wavelen, inv / factor, inv)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, inv_l)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    b, kvh, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, kvh, n_rep, s, d).reshape(b, kvh * n_rep, s, d)


def linear(x, w, b=None):
    y = x @ w.t()
    return y + b if b is not None else y


def forward(cfg, W, ids):
    arch = cfg["architectures"][0]
    H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    kvh = cfg.get("num_key_value_heads", nh)
    D = cfg.get("head_dim", H // nh)
    eps = cfg["rms_norm_eps"]
    qkv_bias = arch == "Qwen2ForCausalLM" or cfg.get("attention_bias", False)
    o_bias = arch != "Qwen2ForCausalLM" and cfg.get("attention_bias", False)
    T = ids.shape[1]
    h = W["model.embed_tokens.weight"][ids]
    # LlamaRotaryEmbedding.forward
    pos = torch.arange(T)[None, :].float()
    freqs = (inv_freq(cfg, D)[None, :, None].float() @ pos[:, None, :]).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]
    mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        x = rms_norm(h, W[p + "input_layernorm.weight"], eps)
        a = p + "self_attn."
        q = linear(x, W[a + "q_proj.weight"], W.get(a + "q_proj.bias") if qkv_bias else None).view(1, T, -1, D)
        k = linear(x, W[a + "k_proj.weight"], W.get(a + "k_proj.bias") if qkv_bias else None).view(1, T, -1, D)
        v = linear(x, W[a + "v_proj.weight"], W.get(a + "v_proj.bias") if qkv_bias else None).view(1, T, -1, D)
        if arch == "Qwen3ForCausalLM":
            q = rms_norm(q, W[a + "q_norm.weight"], eps)
            k = rms_norm(k, W[a + "k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = repeat_kv(k, nh // kvh), repeat_kv(v, nh // kvh)
        s = q @ k.transpose(2, 3) * D ** -0.5 + mask
        o = torch.softmax(s, dim=-1, dtype=torch.float32) @ v
        o = o.transpose(1, 2).reshape(1, T, -1)
        h = h + linear(o, W[a + "o_proj.weight"], W.get(a + "o_proj.bias") if o_bias else None)
        x = rms_norm(h, W[p + "post_attention_layernorm.weight"], eps)
        m = p + "mlp."
        g = linear(x, W[m + "gate_proj.weight"])
        h = h + linear(torch.nn.functional.silu(g) * linear(x, W[m + "up_proj.weight"]), W[m + "down_proj.weight"])
    h = rms_norm(h, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else W["lm_head.weight"]
    return linear(h, head)


# ---- random weights -----------------------------------------------------------

def make_weights(cfg, gen):
    H, I, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    nh = cfg["num_attention_heads"]
    kvh = cfg.get("num_key_value_heads", nh)
    D = cfg.get("head_dim", H // nh)
    arch = cfg["architectures"][0]

    def mat(o, i):
        return torch.randn(o, i, generator=gen) / math.sqrt(i)

    def norm(n):
        return torch.rand(n, generator=gen) + 0.5

    W = {"model.embed_tokens.weight": torch.randn(V, H, generator=gen)}
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        W[p + "input_layernorm.weight"] = norm(H)
        W[p + "post_attention_layernorm.weight"] = norm(H)
        a = p + "self_attn."
        for name, out in (("q_proj", nh * D), ("k_proj", kvh * D), ("v_proj", kvh * D)):
            W[a + name + ".weight"] = mat(out, H)
            if arch == "Qwen2ForCausalLM" or cfg.get("attention_bias"):
                W[a + name + ".bias"] = 0.5 * torch.randn(out, generator=gen)
        W[a + "o_proj.weight"] = mat(H, nh * D)
        if arch == "Qwen3ForCausalLM":
            W[a + "q_norm.weight"] = norm(D)
            W[a + "k_norm.weight"] = norm(D)
        m = p + "mlp."
        W[m + "gate_proj.weight"] = mat(I, H)
        W[m + "up_proj.weight"] = mat(I, H)
        W[m + "down_proj.weight"] = mat(H, I)
    W["model.norm.weight"] = norm(H)
    if not cfg.get("tie_word_embeddings"):
        W["lm_head.weight"] = mat(V, H)
    return W


# ---- files --------------------------------------------------------------------

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def safetensors_bytes(tensors, dtype):
    header, blobs, at = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].to(DTYPES[dtype]).contiguous()
        raw = (t.view(torch.int16) if dtype != "F32" else t).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def rounded(W, dtype):
    return {k: v.to(DTYPES[dtype]).float() for k, v in W.items()}


def write_checkpoint(out, name, cfg, W, dtype="F32", shards=1, extra_config=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(dict(cfg, **(extra_config or {})), f, indent=2)
    if shards == 1:
        with open(os.path.join(d, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(W, dtype))
    else:
        names = sorted(W)
        weight_map = {}
        for s in range(shards):
            part = names[s::shards]
            file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
            with open(os.path.join(d, file), "wb") as f:
                f.write(safetensors_bytes({n: W[n] for n in part}, dtype))
            weight_map.update({n: file for n in part})
        total = sum(v.numel() * 4 for v in W.values())
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    ids = torch.randint(0, cfg["vocab_size"], (1, SEQ), generator=torch.Generator().manual_seed(SEED + 7))
    with torch.no_grad():
        logits = forward(cfg, rounded(W, dtype), ids)
    np.save(os.path.join(d, "input_ids.npy"), ids.numpy().astype(np.int64))
    np.save(os.path.join(d, "logits.npy"), logits.numpy().astype(np.float32))
    return logits


# Generation (mgc compile --max-seq 48 --prefill-chunk 16): a prompt over two
# prefill chunks (the second padded), then decode steps up to position 43.
GEN_PROMPT, GEN_NEW = 20, 24


# ---- packed linear weights (mgc compile --weights, ir/qweights.h) -------------

LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def dequantized(w, fmt, group):
    """The f32 values mgc's packed format stands for (ir/qweights.cpp):
    f16 rounding, or per-group symmetric scales (int8: max|w|/127, int4:
    max|w|/7, ternary: mean|w| summed in f64) and q = round-half-even(w/s)
    clamped to the levels."""
    if fmt == "f16":
        return w.half().float()
    rows = w.reshape(w.shape[0], -1, group)
    if fmt == "ternary":
        s = (rows.abs().double().sum(-1, keepdim=True) / group).float()
        # A group already ternary (0 or ±a) keeps a: it packs without loss.
        a = rows.abs().amax(-1, keepdim=True)
        exact = ((rows.abs() == a) | (rows == 0)).all(-1, keepdim=True) & (a > 0)
        s = torch.where(exact, a, s)
        level = 1
    else:
        level = {"int8": 127, "int4": 7}[fmt]
        s = rows.abs().amax(-1, keepdim=True) / level
    q = torch.where(s > 0, torch.round(rows / torch.where(s > 0, s, torch.ones_like(s))), torch.zeros_like(rows))
    return (q.clamp(-level, level) * s).reshape(w.shape)


def packed_model(cfg, W, fmt, group):
    """The model an mgc bundle compiled with --weights fmt holds: every
    linear layer and lm_head dequantized; embeddings and norms as stored
    (a tied lm_head becomes its own packed copy of the embedding table)."""
    P = dict(W)
    for name, w in W.items():
        if name.endswith(tuple(f"{l}.weight" for l in LINEAR)) or name == "lm_head.weight":
            P[name] = dequantized(w, fmt, group)
    if cfg.get("tie_word_embeddings"):
        P["lm_head.weight"] = dequantized(W["model.embed_tokens.weight"], fmt, group)
    return dict(cfg, tie_word_embeddings=False), P


def ternarized(W, group):
    """BitNet-style weights: every linear layer's (and lm_head's) groups of
    `group` weights replaced by a · q, q in {-1, 0, 1} (q = round(w / a),
    a = mean|w| of the group): a checkpoint that is already ternary."""
    T = dict(W)
    for name, w in W.items():
        if name.endswith(tuple(f"{l}.weight" for l in LINEAR)) or name == "lm_head.weight":
            rows = w.reshape(w.shape[0], -1, group)
            a = rows.abs().mean(-1, keepdim=True)
            T[name] = (torch.round(rows / a).clamp(-1, 1) * a).reshape(w.shape)
    return T


def write_generation(out, name, cfg, W):
    """Greedy generation by the reference, the whole sequence recomputed for
    every token (no cache): gen_prompt.npy i64 [P], gen_ids.npy i64 [N] and
    gen_logits.npy f32 [N, vocab], row k the logits that chose token k.
    Asserts every choice wins by a clear margin, so an fp32 implementation
    that matches the logits to 1e-4 must make the same choices."""
    d = os.path.join(out, name)
    seq = torch.randint(0, cfg["vocab_size"], (1, GEN_PROMPT), generator=torch.Generator().manual_seed(SEED + 11))
    np.save(os.path.join(d, "gen_prompt.npy"), seq[0].numpy().astype(np.int64))
    rows, ids = [], []
    with torch.no_grad():
        for _ in range(GEN_NEW):
            last = forward(cfg, W, seq)[0, -1]
            top = last.topk(2).values
            assert top[0] - top[1] > 1e-3 * top.abs().max(), f"{name}: near tie in greedy generation"
            ids.append(int(last.argmax()))
            rows.append(last)
            seq = torch.cat([seq, torch.tensor([[ids[-1]]])], 1)
    np.save(os.path.join(d, "gen_ids.npy"), np.array(ids, dtype=np.int64))
    np.save(os.path.join(d, "gen_logits.npy"), torch.stack(rows).numpy().astype(np.float32))
    return seq


def write_penalized(out, name, cfg, W, penalty, n):
    """gen_ids_rep{penalty}.npy: n tokens of greedy generation from gen_prompt.npy with
    transformers' repetition penalty (RepetitionPenaltyLogitsProcessor: the
    logit of every token already in the sequence divided by the penalty
    when positive, multiplied when negative), each choice by a clear margin.
    Returns the ids."""
    d = os.path.join(out, name)
    seq = torch.from_numpy(np.load(os.path.join(d, "gen_prompt.npy")))[None]
    ids = []
    with torch.no_grad():
        for _ in range(n):
            last = forward(cfg, W, seq)[0, -1].clone()
            seen = torch.unique(seq[0])
            score = last[seen]
            last[seen] = torch.where(score < 0, score * penalty, score / penalty)
            top = last.topk(2).values
            assert top[0] - top[1] > 1e-3 * top.abs().max(), f"{name}: near tie in penalized generation"
            ids.append(int(last.argmax()))
            seq = torch.cat([seq, torch.tensor([[ids[-1]]])], 1)
    np.save(os.path.join(d, f"gen_ids_rep{penalty}.npy"), np.array(ids, dtype=np.int64))
    return ids


def write_forced(out, name, cfg, W, seq, suffix):
    """gen_logits{suffix}.npy: the logits of a (packed) model along the
    sequence write_generation chose (teacher forcing: the rows
    test_hf_models compares after the prompt and each decode step)."""
    with torch.no_grad():
        logits = forward(cfg, W, seq[:, :-1])[0, GEN_PROMPT - 1:]
    np.save(os.path.join(out, name, f"gen_logits{suffix}.npy"), logits.numpy().astype(np.float32))


# ---- tokenizer ---------------------------------------------------------------

def byte_alphabet():
    """GPT-2's bytes_to_unicode: byte b -> its printable stand-in."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def write_tokenizer(out, name, vocab_size):
    """A Qwen-style byte-level BPE tokenizer.json of exactly `vocab_size`
    ids: newline and the printable ASCII bytes, merges that build a few
    words, most other bytes, then <|begin_of_text|> (added as BOS by the
    template) and <|end|>. The two bytes left out have no token."""
    alpha = byte_alphabet()
    vocab = {alpha[b]: i for i, b in enumerate([10] + list(range(32, 127)))}
    merges = []
    for word in ("\u0120the", "\u0120and", "ing", "er", "\u0120hello", "\u0120world", "\u0120model", "\u0120token", "\u0120\u0120"):
        cur = word[0]
        for ch in word[1:]:
            merges.append([cur, ch])
            cur += ch
            vocab.setdefault(cur, len(vocab))
    # The other bytes fill the ids up to the two added tokens, so that every
    # id the model can generate decodes to something.
    for b in list(range(161, 256)) + list(range(0, 256)):
        if len(vocab) == vocab_size - 2:
            break
        vocab.setdefault(alpha[b], len(vocab))
    bos, end = vocab_size - 2, vocab_size - 1  # after the vocabulary, as tokenizers numbers added tokens
    assert len(vocab) == bos
    special = [{"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                "special": True} for i, c in ((bos, "<|begin_of_text|>"), (end, "<|end|>"))]
    pattern = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
               "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
    tok = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [bos],
                                                                     "tokens": ["<|begin_of_text|>"]}}},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
    }
    with open(os.path.join(out, name, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)


def base_config(arch, model_type, **kw):
    cfg = {
        "architectures": [arch], "model_type": model_type, "hidden_size": HIDDEN, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": VOCAB,
        "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "torch_dtype": "float32", "bos_token_id": 1, "eos_token_id": 2,
        "use_cache": True, "initializer_range": 0.02, "transformers_version": "4.45.0",
    }
    cfg.update(kw)
    return cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = ap.parse_args().out
    torch.manual_seed(SEED)

    # Llama 3 style: separate lm_head, llama3 RoPE scaling over a short
    # original context so that the scaled band covers the test's positions.
    llama = base_config("LlamaForCausalLM", "llama", attention_bias=False, mlp_bias=False, pretraining_tp=1,
                        rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 4.0, "original_max_position_embeddings": 64})
    Wl = make_weights(llama, torch.Generator().manual_seed(SEED))
    got = write_checkpoint(out, "llama", llama, Wl)
    seq = write_generation(out, "llama", llama, Wl)
    # The test must be able to fail: the penalty changes the greedy tokens.
    rep = write_penalized(out, "llama", llama, Wl, 1.5, 6)
    assert rep != [int(t) for t in seq[0, GEN_PROMPT:GEN_PROMPT + 6]], "the repetition penalty changes nothing"
    # Packed weights (--weights F --group-size 32): gen_logits_F.npy.
    for fmt in ("f16", "int8", "int4", "ternary"):
        write_forced(out, "llama", *packed_model(llama, Wl, fmt, 32), seq, "_" + fmt)
    # Already ternary (BitNet-style): --weights ternary packs it without
    # loss, so the reference of gen_logits_ternary.npy is the checkpoint's
    # own f32 model (absmean scales would not reproduce it).
    Wt = ternarized(Wl, 32)
    write_checkpoint(out, "llama_ternary", llama, Wt)
    seq_t = write_generation(out, "llama_ternary", llama, Wt)
    write_forced(out, "llama_ternary", llama, Wt, seq_t, "_ternary")
    for name, w in Wt.items():
        if name.endswith(tuple(f"{l}.weight" for l in LINEAR)) or name == "lm_head.weight":
            assert torch.equal(dequantized(w, "ternary", 32), w), name
            # The test must be able to fail: absmean scales lose the weights.
            rows = w.reshape(w.shape[0], -1, 32)
            s = (rows.abs().double().sum(-1, keepdim=True) / 32).float()
            assert (torch.round(rows / s).clamp(-1, 1) * s - rows).abs().max() > 1e-3, name
    write_checkpoint(out, "llama_sharded", llama, Wl, shards=3)
    write_checkpoint(out, "llama_bf16", llama, Wl, dtype="BF16")
    # The test must be able to fail: without the scaling the logits differ.
    plain = dict(llama, rope_scaling=None)
    with torch.no_grad():
        ids = torch.randint(0, VOCAB, (1, SEQ), generator=torch.Generator().manual_seed(SEED + 7))
        assert (forward(plain, Wl, ids) - got).abs().max() > 1e-2, "llama3 scaling has no effect on the test"

    # An MLP row longer than the 4096 values a decode product stages once
    # (fuse-swiglu-epilogue: SwiGLU in up's epilogue), one layer.
    wide = base_config("LlamaForCausalLM", "llama", intermediate_size=4160, num_hidden_layers=1, attention_bias=False,
                       mlp_bias=False, rope_scaling=None)
    Ww = make_weights(wide, torch.Generator().manual_seed(SEED + 4))
    write_checkpoint(out, "llama_wide", wide, Ww)
    seq = write_generation(out, "llama_wide", wide, Ww)
    write_forced(out, "llama_wide", *packed_model(wide, Ww, "int4", 32), seq, "_int4")

    # Qwen2: tied embeddings, q/k/v biases, no scaling.
    qwen2 = base_config("Qwen2ForCausalLM", "qwen2", tie_word_embeddings=True, rope_theta=1000000.0,
                        use_sliding_window=False, sliding_window=4096, max_window_layers=2, rope_scaling=None)
    Wq2 = make_weights(qwen2, torch.Generator().manual_seed(SEED + 1))
    write_checkpoint(out, "qwen2", qwen2, Wq2)
    seq = write_generation(out, "qwen2", qwen2, Wq2)
    write_forced(out, "qwen2", *packed_model(qwen2, Wq2, "int8", 64), seq, "_int8")
    # With a tokenizer (hf_generate.sh: --prompt text), and an end-of-sequence
    # id that the greedy reference generates (generation_config.json wins
    # over config.json's eos_token_id 2), so that stopping is tested.
    write_tokenizer(out, "qwen2", VOCAB)
    gen_ids = np.load(os.path.join(out, "qwen2", "gen_ids.npy"))
    with open(os.path.join(out, "qwen2", "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 1, "eos_token_id": [int(gen_ids[5]), 2]}, f)
    write_checkpoint(out, "qwen2_f16", qwen2, Wq2, dtype="F16")

    # Qwen3: q/k norms, head_dim != hidden / heads, linear RoPE scaling.
    qwen3 = base_config("Qwen3ForCausalLM", "qwen3", head_dim=32, attention_bias=False, rope_theta=1000000.0,
                        rope_scaling={"rope_type": "linear", "factor": 2.0}, use_sliding_window=False)
    Wq3 = make_weights(qwen3, torch.Generator().manual_seed(SEED + 2))
    write_checkpoint(out, "qwen3", qwen3, Wq3)
    seq = write_generation(out, "qwen3", qwen3, Wq3)
    write_forced(out, "qwen3", *packed_model(qwen3, Wq3, "int4", 32), seq, "_int4")


if __name__ == "__main__":
    main()
