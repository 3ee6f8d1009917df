#!/usr/bin/python3
"""Training fixtures for the five reference workloads, at small width.

The workloads that define mgc (ResNet-50, the Whisper-tiny encoder, a
Stable-Diffusion-style U-Net, SmolLM2-135M, a SmolVLA-style action expert)
shrunk to a few thousand parameters each, plus one case for each way a
PyTorch export used to fail to train (Resize, ConvTranspose, a loss inside
the model, [N, T] token targets, a TRAINING-mode TransformerEncoderLayer).

For each case this writes to --out (the test build generates them into
build/fixtures/workloads before tests/training/test_workloads runs):
  <case>.onnx                 exported with training=TrainingMode.TRAINING,
                              opset 17 (an EVAL export merges equal
                              initializers, tying parameters)
  <case>_<input>.npy          STEPS batches of every train_step input, in order
  <case>_losses.npy           the loss of each step (f64), computed by the
                              same model in float64 with AdamW
and manifest.json: how to compile each case (loss, class axis) and its inputs.
The references run in float64 because Debian's PyTorch 1.13 CPU build
returns all-zero float32 gradients for Conv1d. Run with /usr/bin/python3.
Seeded and deterministic.
"""
import argparse
import copy
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 20
LR, WEIGHT_DECAY = 1e-3, 0.01  # AdamW, as mgc compile --optimizer adamw --lr 1e-3 --weight-decay 0.01


# ---- building blocks (written out the way the real models are) ----

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(t, head_dim, theta=10000.0):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    freqs = torch.outer(torch.arange(t, dtype=torch.float64), inv)
    emb = torch.cat([freqs, freqs], -1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


class LlamaAttention(nn.Module):
    """GQA attention with RoPE (Hugging Face Llama), optionally causal; with
    `cross`, keys and values come from a context sequence (no RoPE)."""

    def __init__(self, d, heads, kv_heads, causal, cross=False):
        super().__init__()
        self.h, self.kv, self.hd, self.causal, self.cross = heads, kv_heads, d // heads, causal, cross
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)

    def forward(self, x, context=None):
        n, t, _ = x.shape
        src = context if self.cross else x
        s = src.shape[1]
        q = self.q_proj(x).view(n, t, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(src).view(n, s, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(src).view(n, s, self.kv, self.hd).transpose(1, 2)
        if not self.cross:
            cos, sin = rope_tables(t, self.hd)  # constants in the export (not parameters)
            cos, sin = cos.to(x.dtype), sin.to(x.dtype)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
        rep = self.h // self.kv
        k = k[:, :, None].expand(n, self.kv, rep, s, self.hd).reshape(n, self.h, s, self.hd)
        v = v[:, :, None].expand(n, self.kv, rep, s, self.hd).reshape(n, self.h, s, self.hd)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        if self.causal:
            mask = torch.ones(t, s, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        y = torch.softmax(scores, -1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(n, t, self.h * self.hd))


class SwiGLU(nn.Module):
    def __init__(self, d, ff):
        super().__init__()
        self.gate_proj = nn.Linear(d, ff, bias=False)
        self.up_proj = nn.Linear(d, ff, bias=False)
        self.down_proj = nn.Linear(ff, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, ff, causal):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads, causal)
        self.post_attention_layernorm = RMSNorm(d)
        self.mlp = SwiGLU(d, ff)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


# ---- the workloads ----

class Bottleneck(nn.Module):
    def __init__(self, cin, width, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return F.relu(y + (self.downsample(x) if self.downsample is not None else x))


class ResNet(nn.Module):
    """ResNet-50's shape: stem, max-pool, bottleneck stages, global pool, fc."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8)
        self.layer1 = Bottleneck(8, 4, 16, 1)
        self.layer2 = Bottleneck(16, 8, 32, 2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class WhisperEncoder(nn.Module):
    """Whisper's audio encoder: two Conv1d + GELU (the second strided),
    sinusoidal positions, pre-LN transformer blocks, a final LayerNorm."""

    def __init__(self, mels=8, d=32, heads=4, layers=2, frames=32):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        t = frames // 2
        inv = torch.exp(-math.log(10000.0) / (d // 2 - 1) * torch.arange(d // 2, dtype=torch.float64))
        ang = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]
        self.positions = torch.cat([ang.sin(), ang.cos()], 1)  # a constant, as Whisper's buffer
        self.blocks = nn.ModuleList([WhisperBlock(d, heads) for _ in range(layers)])
        self.ln_post = nn.LayerNorm(d)

    def forward(self, mel):
        x = F.gelu(self.conv1(mel))
        x = F.gelu(self.conv2(x)).transpose(1, 2)
        x = x + self.positions.to(x.dtype)
        for b in self.blocks:
            x = b(x)
        return self.ln_post(x)


class WhisperBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.attn_ln = nn.LayerNorm(d)
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d, bias=False), nn.Linear(d, d)
        self.out = nn.Linear(d, d)
        self.mlp_ln = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        n, t, d = x.shape
        y = self.attn_ln(x)
        q, k, v = (p(y).view(n, t, self.h, d // self.h).transpose(1, 2) for p in (self.query, self.key, self.value))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.h), -1) @ v
        x = x + self.out(a.transpose(1, 2).reshape(n, t, d))
        return x + self.mlp(self.mlp_ln(x))


class ResBlock(nn.Module):
    def __init__(self, cin, cout, groups=4):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(groups, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.norm2, self.conv2 = nn.GroupNorm(groups, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return h + (self.skip(x) if self.skip is not None else x)


class AttnBlock(nn.Module):
    def __init__(self, c, heads=2, groups=4):
        super().__init__()
        self.h = heads
        self.norm = nn.GroupNorm(groups, c)
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)

    def forward(self, x):
        n, c, hh, ww = x.shape
        y = self.norm(x).flatten(2).transpose(1, 2)  # [n, hw, c]
        q, k, v = self.qkv(y).chunk(3, -1)
        q, k, v = (z.reshape(n, hh * ww, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(c // self.h), -1) @ v
        a = self.proj(a.transpose(1, 2).reshape(n, hh * ww, c))
        return x + a.transpose(1, 2).reshape(n, c, hh, ww)


class UNet(nn.Module):
    """A Stable-Diffusion-style U-Net: GroupNorm/SiLU residual blocks, a
    strided-conv downsample, attention at the low resolution, 2x upsampling
    (nearest + conv, or ConvTranspose2d), a skip concatenation."""

    def __init__(self, upsample):
        super().__init__()
        self.conv_in = nn.Conv2d(4, 16, 3, padding=1)
        self.down_block = ResBlock(16, 16)
        self.downsample = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.mid_block = ResBlock(16, 32)
        self.mid_attn = AttnBlock(32)
        self.upsample_mode = upsample
        if upsample == "nearest":
            self.up_conv = nn.Conv2d(32, 32, 3, padding=1)
        else:
            self.up_conv = nn.ConvTranspose2d(32, 32, 2, stride=2)
        self.up_block = ResBlock(48, 16)
        self.norm_out = nn.GroupNorm(4, 16)
        self.conv_out = nn.Conv2d(16, 4, 3, padding=1)

    def forward(self, x):
        h0 = self.down_block(self.conv_in(x))
        h = self.mid_attn(self.mid_block(self.downsample(h0)))
        if self.upsample_mode == "nearest":
            h = self.up_conv(F.interpolate(h, scale_factor=2.0, mode="nearest"))
        else:
            h = self.up_conv(h)
        h = self.up_block(torch.cat([h, h0], 1))
        return self.conv_out(F.silu(self.norm_out(h)))


class SmolLM(nn.Module):
    """SmolLM2's architecture (Llama: RMSNorm, RoPE, GQA, SwiGLU, tied
    embeddings). With in_model_loss, forward(ids, labels) returns
    F.cross_entropy over the flattened tokens, the Hugging Face way."""

    def __init__(self, in_model_loss, vocab=96, d=32, heads=4, kv_heads=2, ff=64, layers=2):
        super().__init__()
        self.in_model_loss = in_model_loss
        self.embed_tokens = nn.Embedding(vocab, d)
        nn.init.normal_(self.embed_tokens.weight, std=0.3)  # logits of a realistic scale (tied head)
        self.layers = nn.ModuleList([LlamaLayer(d, heads, kv_heads, ff, True) for _ in range(layers)])
        self.norm = RMSNorm(d)

    def forward(self, input_ids, labels=None):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        logits = self.norm(x) @ self.embed_tokens.weight.t()  # tied lm_head
        if not self.in_model_loss:
            return logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


class ActionExpert(nn.Module):
    """A SmolVLA-style action expert: Llama layers over noisy action tokens,
    interleaved with cross-attention to the vision-language features,
    predicting the flow-matching velocity."""

    def __init__(self, action_dim=6, d=32, heads=4, kv_heads=2, ff=64, layers=2):
        super().__init__()
        self.action_in = nn.Linear(action_dim, d)
        self.layers = nn.ModuleList([LlamaLayer(d, heads, kv_heads, ff, False) for _ in range(layers)])
        self.cross_norms = nn.ModuleList([RMSNorm(d) for _ in range(layers)])
        self.cross = nn.ModuleList([LlamaAttention(d, heads, kv_heads, False, cross=True) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.action_out = nn.Linear(d, action_dim)

    def forward(self, actions, context):
        x = self.action_in(actions)
        for layer, norm, cross in zip(self.layers, self.cross_norms, self.cross):
            x = layer(x)
            x = x + cross(norm(x), context)
        return self.action_out(self.norm(x))


class EncoderLayer(nn.Module):
    """nn.TransformerEncoderLayer as is: a TRAINING-mode export carries its
    Dropout nodes with training_mode = true."""

    def __init__(self, dropout):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=dropout, batch_first=True)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        return self.head(self.layer(x).mean(1))


# ---- cases ----

def rand(*shape):
    return torch.randn(*shape)


def cases():
    """name -> (make model, {input: per-step shape, dtype, generator}, target spec, compile options)."""
    return [
        dict(name="resnet", make=ResNet, inputs={"x": (4, 3, 16, 16)}, target=("labels", (4,), 10),
             loss="cross_entropy"),
        dict(name="whisper_encoder", make=WhisperEncoder, inputs={"mel": (2, 8, 32)}, target=("labels", (2, 16, 32), None),
             loss="mse", conv1d=True),
        dict(name="unet_nearest", make=lambda: UNet("nearest"), inputs={"x": (2, 4, 16, 16)},
             target=("labels", (2, 4, 16, 16), None), loss="mse"),
        dict(name="unet_convtranspose", make=lambda: UNet("convtranspose"), inputs={"x": (2, 4, 16, 16)},
             target=("labels", (2, 4, 16, 16), None), loss="mse"),
        dict(name="smollm_token_targets", make=lambda: SmolLM(False), inputs={"input_ids": ("ids", (2, 16), 96)},
             target=("labels", (2, 16), 96), loss="cross_entropy", class_axis=-1),
        dict(name="smollm_loss_in_model", make=lambda: SmolLM(True),
             inputs={"input_ids": ("ids", (2, 16), 96), "labels": ("ids", (2, 16), 96)}, target=None),
        dict(name="action_expert", make=ActionExpert, inputs={"actions": (2, 10, 6), "context": (2, 8, 32)},
             target=("labels", (2, 10, 6), None), loss="mse"),
        dict(name="encoder_layer_training_export", make=lambda: EncoderLayer(0.0), inputs={"x": (4, 6, 32)},
             target=("labels", (4,), 5), loss="cross_entropy"),
    ]


def make_batch(spec, gen):
    if isinstance(spec, tuple) and spec and spec[0] == "ids":
        return torch.randint(0, spec[2], spec[1], generator=gen)
    return torch.randn(*spec, generator=gen)


def reference_losses(model, batches, targets, case):
    """AdamW in float64 over the given batches; the loss of every step."""
    m = copy.deepcopy(model).double()
    m.train()
    opt = torch.optim.AdamW(m.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    losses = []
    for s in range(STEPS):
        args = [b[s].double() if b[s].is_floating_point() else b[s] for b in batches]
        opt.zero_grad()
        out = m(*args)
        if targets is None:
            loss = out
        elif case["loss"] == "mse":
            loss = F.mse_loss(out, targets[s].double())
        else:
            logits = out if case.get("class_axis", 1) == 1 else out.movedim(-1, 1)
            loss = F.cross_entropy(logits, targets[s])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def run(case, out_dir):
    torch.manual_seed(1234)
    model = case["make"]()
    gen = torch.Generator().manual_seed(99)
    names = list(case["inputs"])
    batches = [[make_batch(case["inputs"][k], gen) for _ in range(STEPS)] for k in names]
    targets = None
    if case["target"] is not None:
        _, shape, classes = case["target"]
        targets = [torch.randint(0, classes, shape, generator=gen) if classes else torch.randn(*shape, generator=gen)
                   for _ in range(STEPS)]
    name = case["name"]
    model.train()
    torch.onnx.export(model, tuple(b[0] for b in batches), os.path.join(out_dir, name + ".onnx"), input_names=names,
                      output_names=["loss" if targets is None else "y"], opset_version=17,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    files = {}
    for k, b in zip(names, batches):
        files[k] = "%s_%s.npy" % (name, k)
        np.save(os.path.join(out_dir, files[k]), torch.cat(b).numpy())
    if targets is not None:
        files["labels"] = "%s_labels.npy" % name
        np.save(os.path.join(out_dir, files["labels"]), torch.cat(targets).numpy())
    losses = reference_losses(model, batches, targets, case)
    np.save(os.path.join(out_dir, name + "_losses.npy"), np.array(losses, dtype=np.float64))
    entry = {"name": name, "onnx": name + ".onnx", "inputs": files, "losses": name + "_losses.npy",
             "loss": case.get("loss", "in_model"), "class_axis": case.get("class_axis", 1)}
    print("%-32s %6d params  loss %.5f -> %.5f" % (name, sum(p.numel() for p in model.parameters()), losses[0],
                                                 losses[-1]))
    return entry


class TiedByEval(nn.Module):
    """A LayerNorm and a Linear whose fresh biases are both zero: an EVAL
    export merges them into one initializer (mgc warns at --train)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.fc = nn.Linear(8, 8)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x):
        return self.fc(self.norm(x))


def extras(out_dir):
    """Models for the import checks (no step parity): an EVAL export that ties
    two parameters, and a TRAINING export with random dropout (p = 0.1)."""
    torch.manual_seed(7)
    m = TiedByEval().eval()
    torch.onnx.export(m, torch.randn(2, 8), os.path.join(out_dir, "tied_eval_export.onnx"), input_names=["x"],
                      output_names=["y"], opset_version=17)
    m = EncoderLayer(0.1).train()
    torch.onnx.export(m, torch.randn(4, 6, 32), os.path.join(out_dir, "encoder_layer_dropout.onnx"), input_names=["x"],
                      output_names=["y"], opset_version=17, training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False)
    return {"tied_eval_export": "tied_eval_export.onnx", "encoder_layer_dropout": "encoder_layer_dropout.onnx"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="folder for the fixtures and manifest.json")
    ap.add_argument("--only", help="one case")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = {"steps": STEPS, "optimizer": "adamw", "lr": LR, "weight_decay": WEIGHT_DECAY, "cases": []}
    for case in cases():
        if args.only and case["name"] != args.only:
            continue
        manifest["cases"].append(run(case, args.out))
    if not args.only:
        manifest["extras"] = extras(args.out)
        with open(os.path.join(args.out, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
