#!/usr/bin/env python3
"""Decode speed (issue 10): a random checkpoint of SmolLM2-135M's shape
(30 layers, hidden 576, 9 / 3 heads, SwiGLU 1536, vocab 49152, tied),
generated here, compiled with `mgc compile FOLDER --max-seq N` and timed with
`mgc bench-decode`, against PyTorch eager decode with a KV cache of the same
weights on the same GPU in the same run (fp32 and fp16), plus the greedy
tokens of both from one prompt (how many agree). Writes OUT/decode.md and
OUT/decode.json. Run on the GPU machine (bench/decode.sh).

Each --weights format in --formats is compiled and timed (ms/token, GPU
time, bytes/token, GB/s); --shape llama7b is Llama 2 7B's width for the
bandwidth target. MGC may name several builds, comma-separated (an A/B in
one sitting on one checkpoint): their rows are "NAME FMT". A build may carry
environment settings, PATH:VAR=VALUE[:VAR=VALUE] (e.g.
bench/bin/mgc:MGRT_DISABLE_FEATURES=StreamSync); its NAME then shows them.

Usage: decode.py OUT MGC [--shape smollm2|llama7b] [--layers N] [--max-seq N] [--tokens N]
                 [--formats f32,f16,int8,int4,ternary] [--group G] [--torch fp32,fp16] [--commit SHA] [--profile]
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


ENV = {}  # the environment of the build being timed (MGC's PATH:VAR=VALUE)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, **ENV))
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args[:3]), (p.stderr or p.stdout).strip()[-400:]))
    return p.stdout


SHAPES = {
    "smollm2": smollm2,
    # Llama 2 7B's width (hidden 4096, 32 heads, SwiGLU 11008, vocab 32000,
    # separate lm_head), as many layers as the run affords.
    "llama7b": lambda layers: base_config(
        "LlamaForCausalLM", "llama", hidden_size=4096, intermediate_size=11008, num_hidden_layers=layers,
        num_attention_heads=32, num_key_value_heads=32, vocab_size=32000, tie_word_embeddings=False,
        rope_theta=10000.0, max_position_embeddings=4096, rope_scaling=None, attention_bias=False, mlp_bias=False),
}


def bench_mgc(a, mgc, ck, work, fmt, tag):
    """Compile with mgc --weights fmt and time bench-decode; returns a dict."""
    bundle = os.path.join(work, "gen_%s.mgb" % fmt)
    t0 = time.time()
    out = run([mgc, "compile", ck, "--max-seq", str(a.max_seq), "--weights", fmt, "--group-size",
               str(a.group), "-o", bundle])
    r = {"compile_s": round(time.time() - t0, 2), "bundle_mb": round(os.path.getsize(bundle) / 1e6, 1)}
    out = run([mgc, "bench-decode", bundle, "--tokens", str(a.tokens)])
    m = re.search(r"decode: ([0-9.]+) ms/token wall \(median\), ([0-9.-]+) ms GPU", out)
    r["ms"], r["gpu_ms"] = float(m.group(1)), float(m.group(2))
    m = re.search(r"host: set inputs ([0-9.]+) ms, run ([0-9.]+) ms .*, read logits ([0-9.]+) ms", out)
    if m:  # (builds before the host split print none)
        r["host_set_ms"], r["host_run_ms"], r["host_read_ms"] = map(float, m.groups())
    m = re.search(r"bytes/token: ([0-9.]+) MB \(weights ([0-9.]+) MB \+ KV cache ([0-9.]+) MB\), ([0-9.]+) GB/s", out)
    r["mb_per_token"], r["weight_mb"], r["gbps_gpu"] = float(m.group(1)), float(m.group(2)), float(m.group(4))
    r["gbps_wall"] = round(r["mb_per_token"] * 1e6 / (r["ms"] * 1e-3) / 1e9, 1)
    if a.profile:
        # The same decode step back to back at bench-decode's middle position
        # (`mgc run`, no host work between runs), then profiled: its GPU
        # time next to bench-decode's says whether the gaps between tokens
        # cost GPU time, and the kernel table where the step goes.
        import numpy as np
        ids, pos = os.path.join(work, "ids.npy"), os.path.join(work, "pos.npy")
        np.save(ids, np.array([[7]], dtype=np.int64))
        np.save(pos, np.array([1 + min(a.tokens, a.max_seq - 1) // 2], dtype=np.int64))
        args = [mgc, "run", bundle, "--entry", "decode", "-i", "input_ids=" + ids, "-i", "position=" + pos,
                "--warmup", "20", "--iterations", "100"]
        m = re.search(r"run: ([0-9.]+) ms wall, ([0-9.-]+) ms GPU", run(args))
        r["run_ms"], r["run_gpu_ms"] = float(m.group(1)), float(m.group(2))
        prof = run(args[:-4] + ["--warmup", "20", "--iterations", "20", "--profile", os.path.join(a.out, "decode_%s_trace.json" % tag)])
        with open(os.path.join(a.out, "decode_%s_profile.txt" % tag), "w") as f:
            f.write(prof)
    return r, bundle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("mgc")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="smollm2")
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--max-seq", type=int, default=256)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--formats", default="f32,f16,int8,int4,ternary", help="mgc compile --weights, comma-separated")
    ap.add_argument("--group", type=int, default=64, help="mgc compile --group-size")
    ap.add_argument("--torch", default="fp32,fp16", help="PyTorch eager rows (fp32, fp16)")
    ap.add_argument("--commit", default="?")
    ap.add_argument("--profile", action="store_true",
                    help="also `mgc run` of the decode step back to back (GPU ms) and a profile: OUT/decode_FMT_profile.txt")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = "/tmp/decode"
    os.makedirs(work, exist_ok=True)
    cfg = SHAPES[a.shape](a.layers)
    W = make_weights(cfg, torch.Generator().manual_seed(0))
    ck = os.path.join(work, a.shape)
    os.makedirs(ck, exist_ok=True)
    # The checkpoint is seeded: one written by an earlier run of the same
    # config is the same file (a 7B-width one takes a while to write).
    cfg_path, st_path = os.path.join(ck, "config.json"), os.path.join(ck, "model.safetensors")
    same = os.path.exists(st_path) and os.path.exists(cfg_path) and json.load(open(cfg_path)) == cfg
    if not same:
        with open(st_path, "wb") as f:
            f.write(safetensors_bytes(W, "F32"))
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
    params = sum(v.numel() for v in W.values())
    r = {"shape": a.shape, "layers": a.layers, "params": params, "max_seq": a.max_seq, "tokens": a.tokens,
         "group": a.group, "commit": a.commit, "device": torch.cuda.get_device_name() if DEV == "cuda" else "CPU",
         "mgc": {}}
    prompt = [1, 42, 7, 300, 1000, 5]
    n = min(16, a.tokens)
    # MGC may name several builds, comma-separated (an A/B in one sitting):
    # rows "NAME FMT" for each, NAME the binary's file name.
    builds = a.mgc.split(",")
    for fmt, spec in [(f, b) for f in a.formats.split(",") for b in builds]:
        mgc, *env = spec.split(":")
        ENV.clear()
        ENV.update(e.split("=", 1) for e in env)
        name = os.path.basename(mgc) + "".join("[%s]" % e for e in env)
        key = fmt if len(builds) == 1 else "%s %s" % (name, fmt)
        res, bundle = bench_mgc(a, mgc, ck, work, fmt, re.sub(r"[^A-Za-z0-9_.-]", "_", key))
        if fmt == "f32" and spec == builds[0]:
            out = run([mgc, "generate", bundle, "--prompt-ids", ",".join(map(str, prompt)), "--max-tokens", str(n),
                       "--print-ids"])
            r["mgc_ids"] = [int(t) for t in out.strip().splitlines()[-1].split(",")]
        r["mgc"][key] = res
        print(key, res, flush=True)
        if a.shape == "llama7b":  # gigabytes each: keep the disk free
            os.remove(bundle)

    for name in filter(None, a.torch.split(",")):  # --torch "": no PyTorch rows
        dt = {"fp32": torch.float32, "fp16": torch.float16}[name]
        if dt == torch.float16 and DEV != "cuda":
            continue
        if DEV == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = False
        # Warm-up long enough for the GPU to leave its idle clocks (bench-decode
        # does the same: --warmup 64; without it mgc's 7B-width f16 step read
        # 4.09 instead of 1.05 ms GPU on the H200, docs/performance.md).
        torch_decode(cfg, W, dt, prompt, 64)
        ms, ids = torch_decode(cfg, W, dt, prompt, a.tokens)
        r["torch_%s_ms" % name] = round(ms, 3)
        if name == "fp32":
            r["torch_ids"] = ids[:n]
        if DEV == "cuda":
            torch.cuda.empty_cache()
    if "mgc_ids" in r and "torch_ids" in r:
        agree = 0
        while agree < n and r["mgc_ids"][agree] == r["torch_ids"][agree]:
            agree += 1
        r["greedy_agree"] = agree
    with open(os.path.join(a.out, "decode_%s.json" % a.shape), "w") as f:
        json.dump(r, f, indent=1)
    ref = r.get("torch_fp16_ms") or r.get("torch_fp32_ms")
    md = ("Device: %s; commit %s; %s. Random checkpoint of %s's shape (%d layers, %.1fM parameters), --max-seq %d, "
          "%d decode steps, medians; --group-size %d. GB/s = bytes/token (weights + the KV cache rows attention reads at the middle step) "
          "over the GPU time / the wall time.\n\n"
          "| | ms/token (wall) | GPU ms | tokens/s | MB/token | GB/s GPU / wall | vs PyTorch eager %s |\n"
          "|---|---|---|---|---|---|---|\n") % (
        r["device"], a.commit, time.strftime("%Y-%m-%d"), a.shape, a.layers, params / 1e6, a.max_seq, a.tokens,
        a.group, "fp16" if r.get("torch_fp16_ms") else "fp32")
    for fmt, m in r["mgc"].items():
        md += "| mgc --weights %s | %.3f | %.3f | %.0f | %.1f | %.0f / %.0f | %s |\n" % (
            fmt, m["ms"], m["gpu_ms"], 1000 / m["ms"], m["mb_per_token"], m["gbps_gpu"], m["gbps_wall"],
            "**%.2f×**" % (m["ms"] / ref) if ref else "")
    for name in ("fp32", "fp16"):
        if ("torch_%s_ms" % name) in r:
            ms = r["torch_%s_ms" % name]
            md += "| PyTorch eager, KV cache, %s | %.3f | | %.0f | | | %.2f× |\n" % (name, ms, 1000 / ms, ms / ref)
    if a.profile:
        md += ("\nThe decode step run back to back at the middle position (`mgc run --entry decode`, no host work "
               "between runs; profiles in decode_FMT_profile.txt): " + ", ".join(
                   "%s %.3f ms GPU (bench-decode %.3f)" % (fmt, m["run_gpu_ms"], m["gpu_ms"]) for fmt, m in r["mgc"].items())
               + ".\n")
    if "greedy_agree" in r:
        md += "\nGreedy tokens from one prompt, mgc f32 vs PyTorch fp32: %d of %d agree.\n" % (r["greedy_agree"], n)
    with open(os.path.join(a.out, "decode_%s.md" % a.shape), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
