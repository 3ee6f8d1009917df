#!/usr/bin/env python3
"""Decode speed (issue 10): a random checkpoint of SmolLM2-135M's shape
(30 layers, hidden 576, 9 / 3 heads, SwiGLU 1536, vocab 49152, tied),
generated here, compiled with `mgc compile FOLDER --max-seq N` and timed with
`mgc bench-decode`, against PyTorch eager decode with a KV cache of the same
weights on the same GPU in the same run (fp32 and fp16), plus the greedy
tokens of both from one prompt (how many agree). Writes OUT/decode.md and
OUT/decode.json. Run on the GPU machine (bench/decode.sh).

Usage: decode.py OUT MGC [--layers N] [--max-seq N] [--tokens N] [--commit SHA]
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "compiler", "hf"))
from make_checkpoints import base_config, inv_freq, make_weights, repeat_kv, rms_norm, rotate_half, safetensors_bytes  # noqa: E402

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def smollm2(layers):
    return base_config("LlamaForCausalLM", "llama", hidden_size=576, intermediate_size=1536, num_hidden_layers=layers,
                       num_attention_heads=9, num_key_value_heads=3, vocab_size=49152, tie_word_embeddings=True,
                       rope_theta=100000.0, max_position_embeddings=8192, rope_scaling=None, attention_bias=False,
                       mlp_bias=False)


class TorchDecoder:
    """transformers' Llama forward with a KV cache (the reference of
    make_checkpoints.py, one chunk at a time)."""

    def __init__(self, cfg, W, dtype):
        self.cfg, self.dtype = cfg, dtype
        self.W = {k: v.to(DEV, dtype) for k, v in W.items()}
        H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
        self.nh, self.kvh, self.D = nh, cfg["num_key_value_heads"], H // nh
        self.inv = inv_freq(cfg, self.D).to(DEV)
        self.cache = [None] * cfg["num_hidden_layers"]

    @torch.no_grad()
    def step(self, ids, pos0):
        W, cfg, D, T = self.W, self.cfg, self.D, ids.shape[1]
        eps = cfg["rms_norm_eps"]
        h = W["model.embed_tokens.weight"][ids]
        pos = torch.arange(pos0, pos0 + T, device=DEV).float()
        freqs = pos[:, None] * self.inv[None, :]
        emb = torch.cat((freqs, freqs), -1)
        cos, sin = emb.cos().to(self.dtype), emb.sin().to(self.dtype)
        S = pos0 + T
        mask = None
        if T > 1:
            mask = torch.full((T, S), torch.finfo(self.dtype).min, device=DEV, dtype=self.dtype).triu(pos0 + 1)
        for l in range(cfg["num_hidden_layers"]):
            p = f"model.layers.{l}."
            a = p + "self_attn."
            x = rms_norm(h, W[p + "input_layernorm.weight"], eps)
            q = (x @ W[a + "q_proj.weight"].t()).view(1, T, self.nh, D).transpose(1, 2)
            k = (x @ W[a + "k_proj.weight"].t()).view(1, T, self.kvh, D).transpose(1, 2)
            v = (x @ W[a + "v_proj.weight"].t()).view(1, T, self.kvh, D).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if self.cache[l] is not None:
                k = torch.cat((self.cache[l][0], k), 2)
                v = torch.cat((self.cache[l][1], v), 2)
            self.cache[l] = (k, v)
            kk, vv = repeat_kv(k, self.nh // self.kvh), repeat_kv(v, self.nh // self.kvh)
            s = q @ kk.transpose(2, 3) * D ** -0.5
            if mask is not None:
                s = s + mask
            o = torch.softmax(s.float(), -1).to(self.dtype) @ vv
            h = h + o.transpose(1, 2).reshape(1, T, -1) @ W[a + "o_proj.weight"].t()
            x = rms_norm(h, W[p + "post_attention_layernorm.weight"], eps)
            m = p + "mlp."
            g = x @ W[m + "gate_proj.weight"].t()
            h = h + (torch.nn.functional.silu(g) * (x @ W[m + "up_proj.weight"].t())) @ W[m + "down_proj.weight"].t()
        h = rms_norm(h, W["model.norm.weight"], eps)
        return h[:, -1] @ W["model.embed_tokens.weight"].t()


def torch_decode(cfg, W, dtype, prompt, tokens):
    """Greedy: prefill the prompt, then `tokens` decode steps, each synced by
    reading the chosen token back (as generate does). Returns (ms/token
    median, generated ids)."""
    dec = TorchDecoder(cfg, W, dtype)
    logits = dec.step(torch.tensor([prompt], device=DEV), 0)
    ids, times = [], []
    for k in range(tokens):
        t0 = time.perf_counter()
        tok = int(logits.argmax())
        ids.append(tok)
        logits = dec.step(torch.tensor([[tok]], device=DEV), len(prompt) + k)
        if DEV == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return times[len(times) // 2], ids


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args[:3]), (p.stderr or p.stdout).strip()[-400:]))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("mgc")
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--max-seq", type=int, default=256)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--commit", default="?")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = "/tmp/decode"
    os.makedirs(work, exist_ok=True)
    cfg = smollm2(a.layers)
    W = make_weights(cfg, torch.Generator().manual_seed(0))
    ck = os.path.join(work, "smollm2")
    os.makedirs(ck, exist_ok=True)
    with open(os.path.join(ck, "config.json"), "w") as f:
        json.dump(cfg, f)
    with open(os.path.join(ck, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes(W, "F32"))
    params = sum(v.numel() for v in W.values())
    r = {"layers": a.layers, "params": params, "max_seq": a.max_seq, "tokens": a.tokens, "commit": a.commit,
         "device": torch.cuda.get_device_name() if DEV == "cuda" else "CPU"}

    bundle = os.path.join(work, "gen.mgb")
    t0 = time.time()
    out = run([a.mgc, "compile", ck, "--max-seq", str(a.max_seq), "-o", bundle])
    r["mgc_compile_s"] = round(time.time() - t0, 2)
    r["mgc_compile_summary"] = out.strip().splitlines()[0]
    out = run([a.mgc, "bench-decode", bundle, "--tokens", str(a.tokens)])
    m = re.search(r"decode: ([0-9.]+) ms/token wall \(median\), ([0-9.-]+) ms GPU", out)
    r["mgc_ms"], r["mgc_gpu_ms"] = float(m.group(1)), float(m.group(2))
    weight_bytes = params * 4  # f32; the tied lm_head is a second, transposed copy
    weight_bytes += cfg["vocab_size"] * cfg["hidden_size"] * 4
    r["weight_bytes"] = weight_bytes
    r["mgc_gbps"] = round(weight_bytes / (r["mgc_ms"] * 1e-3) / 1e9, 1)
    prompt = [1, 42, 7, 300, 1000, 5]
    n = min(16, a.tokens)
    out = run([a.mgc, "generate", bundle, "--prompt-ids", ",".join(map(str, prompt)), "--max-tokens", str(n),
               "--print-ids"])
    mgc_ids = [int(t) for t in out.strip().splitlines()[-1].split(",")]

    r["torch_fp16_ms"] = float("nan")  # PyTorch has no fp16 matmul on the CPU
    for name, dt in (("fp32", torch.float32), ("fp16", torch.float16)):
        if dt == torch.float16 and DEV != "cuda":
            continue
        if DEV == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = False
        torch_decode(cfg, W, dt, prompt, 4)  # warm-up
        ms, ids = torch_decode(cfg, W, dt, prompt, a.tokens)
        r["torch_%s_ms" % name] = round(ms, 3)
        if name == "fp32":
            r["torch_ids"] = ids[:n]
    r["mgc_ids"] = mgc_ids
    agree = 0
    while agree < n and mgc_ids[agree] == r["torch_ids"][agree]:
        agree += 1
    r["greedy_agree"] = agree
    with open(os.path.join(a.out, "decode.json"), "w") as f:
        json.dump(r, f, indent=1)
    md = ("Device: %s; commit %s; %s. Random checkpoint of SmolLM2-135M's shape (%d layers, %.1fM parameters, "
          "f32), --max-seq %d, %d decode steps, medians.\n\n"
          "| | ms/token | tokens/s | vs PyTorch eager fp32 |\n|---|---|---|---|\n"
          "| mgc decode (f32 weights, wall) | %.3f (GPU %.3f) | %.0f | **%.2f×** |\n"
          "| PyTorch eager, KV cache, fp32 | %.3f | %.0f | 1 |\n"
          "| PyTorch eager, KV cache, fp16 | %.3f | %.0f | %.2f× |\n\n"
          "mgc streams %.0f MB of f32 weights per token: %.0f GB/s. Greedy tokens from one prompt: %d of %d agree "
          "with PyTorch fp32. mgc compile: %.1f s (%s).\n") % (
        r["device"], a.commit, time.strftime("%Y-%m-%d"), a.layers, params / 1e6, a.max_seq, a.tokens,
        r["mgc_ms"], r["mgc_gpu_ms"], 1000 / r["mgc_ms"], r["mgc_ms"] / r["torch_fp32_ms"],
        r["torch_fp32_ms"], 1000 / r["torch_fp32_ms"], r["torch_fp16_ms"], 1000 / r["torch_fp16_ms"],
        r["torch_fp16_ms"] / r["torch_fp32_ms"], weight_bytes / 1e6, r["mgc_gbps"], agree, n, r["mgc_compile_s"],
        r["mgc_compile_summary"])
    with open(os.path.join(a.out, "decode.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
