#!/usr/bin/python3
"""Generates PyTorch model fixtures for mgc's end-to-end model tests.

For every model it writes, under OUT/<model>/:
  model.onnx            exported with torch.onnx.export (opset 14, constant
                        folding on, static shapes)
  input_<i>.npy         the inputs (float32), named after the ONNX inputs in
                        manifest.txt
  output_<i>.npy        the outputs PyTorch computes in fp32, eval mode
  manifest.txt          one line per tensor: "input|output <index> <onnx name>"

Everything is seeded, so running the script twice gives the same numbers
(byte-identical .npy files; the .onnx may differ only in producer metadata).

Run with Debian's interpreter, which has torch 1.13 / torchvision 0.14 / onnx:
  /usr/bin/python3 tools/gen_fixtures.py --out DIR [--models mlp,transformer]
"""
import argparse
import math
import io
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn

OPSET = 14
SEED = 1234


def mlp():
    torch.manual_seed(SEED)
    model = nn.Sequential(
        nn.Linear(784, 256), nn.ReLU(),
        nn.Linear(256, 128), nn.ReLU(),
        nn.Linear(128, 10))
    return model, [torch.randn(4, 784)]


def warm_batchnorm_stats(model, shape, steps=4):
    """Runs a few seeded training-mode passes so that every BatchNorm has
    running statistics far from the (0, 1) defaults and a BN-folding bug
    changes the output. momentum=None makes the running stats the plain
    average of the batch stats (not 34% of the way there after 4 steps).
    Also perturbs the affine parameters away from (1, 0)."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    with torch.no_grad():
        for m in bns:
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.2, 0.2)
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(steps):
            model(torch.randn(*shape) * 2.0 + 0.5)
    for m in bns:
        m.momentum = 0.1
    model.eval()


def resnet18():
    import torchvision
    torch.manual_seed(SEED)
    model = torchvision.models.resnet18(weights=None)
    warm_batchnorm_stats(model, (8, 3, 64, 64))
    return model, [torch.randn(1, 3, 64, 64)]


def mobilenet_v2():
    import torchvision
    torch.manual_seed(SEED)
    model = torchvision.models.mobilenet_v2(weights=None)
    warm_batchnorm_stats(model, (8, 3, 64, 64))
    return model, [torch.randn(1, 3, 64, 64)]


class PreNormEncoder(nn.Module):
    """Two pre-norm encoder layers. torch 1.13's nn.TransformerEncoderLayer
    takes a fused fast path in eval mode (torch._transformer_encoder_layer_fwd)
    that the ONNX exporter cannot export; the tracer used by torch.onnx.export
    avoids it when gradients are enabled, which is why export() below runs
    outside no_grad. The model is the stock module, not a rewrite, so the
    exported graph is what users of nn.TransformerEncoder actually get."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
            norm_first=True, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


def transformer():
    torch.manual_seed(SEED)
    model = PreNormEncoder()
    # Non-trivial LayerNorm affine parameters so a dropped gamma/beta shows.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return model, [torch.randn(1, 16, 64)]


class RMSNorms(nn.Module):
    """RMSNorm in the three spellings found in the wild, one per input, each
    with its own scale: Llama's x * rsqrt(mean(x²) + eps) * w, the
    divide-by-root x / sqrt(mean(x²) + eps) * w, and T5-era code's
    w * x / (x.norm() * d^-0.5 + eps). mgc folds each into one rms_norm."""

    def __init__(self, d=64):
        super().__init__()
        self.w = nn.ParameterList([nn.Parameter(torch.rand(d) + 0.5) for _ in range(3)])
        self.d = d

    def forward(self, x1, x2, x3):
        y1 = x1 * torch.rsqrt(x1.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w[0]
        y2 = x2 / torch.sqrt((x2 * x2).mean(-1, keepdim=True) + 1e-5) * self.w[1]
        y3 = self.w[2] * x3 / (x3.norm(2, dim=-1, keepdim=True) * self.d ** -0.5 + 1e-8)
        return y1, y2, y3


def rms_norms():
    torch.manual_seed(SEED)
    return RMSNorms(), [torch.randn(2, 8, 64) * 3 for _ in range(3)]


class Attentions(nn.Module):
    """Attention in the spellings exports produce, each fused into one
    attention node by mgc (passes/graph/fuse_attention.cpp): the stock
    nn.MultiheadAttention over 70 positions, batch 8 (q scaled before q kᵀ,
    k transposed by the export; 4 heads x 8 x 2 blocks of 64 rows: the
    grid from which `--precision fp16` runs attention_f16); Llama-style causal self-attention with GQA
    (repeat_kv's expand) and masked_fill of a constant causal mask (a
    Where), 40 positions; cross-attention of 20 queries over 33 keys with
    an additive float mask given as an input. The first two take the tiled
    kernel, the short one the per-row kernel."""

    def __init__(self, d=64):
        super().__init__()
        self.mha = nn.MultiheadAttention(d, 4, batch_first=True)
        self.q, self.k, self.v = nn.Linear(d, 128, bias=False), nn.Linear(d, 64, bias=False), nn.Linear(d, 64, bias=False)
        self.register_buffer("causal", torch.ones(40, 40, dtype=torch.bool).triu(1))
        self.cq, self.ckv = nn.Linear(d, d), nn.Linear(d, 2 * d)

    def forward(self, x1, x2, x3, ctx, mask):
        y1, _ = self.mha(x1, x1, x1, need_weights=False)
        B, T, _ = x2.shape
        q = self.q(x2).view(B, T, 4, 32).transpose(1, 2)
        k = self.k(x2).view(B, T, 2, 32).transpose(1, 2)
        v = self.v(x2).view(B, T, 2, 32).transpose(1, 2)
        k = k[:, :, None].expand(B, 2, 2, T, 32).reshape(B, 4, T, 32)
        v = v[:, :, None].expand(B, 2, 2, T, 32).reshape(B, 4, T, 32)
        s = (q @ k.transpose(2, 3)) / math.sqrt(32)
        s = s.masked_fill(self.causal, float("-inf"))
        y2 = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, 128)
        cq = self.cq(x3).view(1, 20, 2, 32).transpose(1, 2)
        ck, cv = self.ckv(ctx).view(1, 33, 2, 2, 32).permute(2, 0, 3, 1, 4)
        s3 = cq @ ck.transpose(-1, -2) * 32 ** -0.5 + mask
        y3 = (torch.softmax(s3, dim=-1) @ cv).transpose(1, 2).reshape(1, 20, 64)
        return y1, y2, y3


def attentions():
    torch.manual_seed(SEED)
    mask = torch.zeros(20, 33)
    mask[:, 25:] = float("-inf")  # the last keys hidden
    mask[3, :5] = -1e9
    return Attentions(), [torch.randn(8, 70, 64), torch.randn(1, 40, 64), torch.randn(1, 20, 64),
                          torch.randn(1, 33, 64), mask]


MODELS = {
    "mlp": mlp,
    "resnet18": resnet18,
    "mobilenet_v2": mobilenet_v2,
    "transformer": transformer,
    "rms_norms": rms_norms,
    "attentions": attentions,
}


def export(name, out_dir):
    model, inputs = MODELS[name]()
    model.eval()
    with torch.no_grad():
        expected = model(*inputs)
    if isinstance(expected, torch.Tensor):
        expected = [expected]

    input_names = ["input"] if len(inputs) == 1 else [f"input_{i}" for i in range(len(inputs))]
    output_names = ["output"] if len(expected) == 1 else [f"output_{i}" for i in range(len(expected))]
    buf = io.BytesIO()
    torch.onnx.export(model, tuple(inputs), buf, opset_version=OPSET,
                      do_constant_folding=True, input_names=input_names,
                      output_names=output_names, dynamic_axes=None)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto)
    # Drop fields that change between runs so regenerated files diff cleanly.
    proto.producer_version = ""
    ops = sorted({n.op_type for n in proto.graph.node})

    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(proto, os.path.join(d, "model.onnx"))
    lines = []
    for i, (n, t) in enumerate(zip(input_names, inputs)):
        np.save(os.path.join(d, f"input_{i}.npy"), t.numpy().astype(np.float32))
        lines.append(f"input {i} {n}")
    for i, (n, t) in enumerate(zip(output_names, expected)):
        np.save(os.path.join(d, f"output_{i}.npy"), t.numpy().astype(np.float32))
        lines.append(f"output {i} {n}")
    with open(os.path.join(d, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{name}: {len(proto.graph.node)} nodes, ops {','.join(ops)} -> {d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder (one subfolder per model)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    args = ap.parse_args()
    torch.set_num_threads(1)  # deterministic reductions, and polite on a shared machine
    names = [m for m in args.models.split(",") if m]
    for n in names:
        if n not in MODELS:
            sys.exit(f"gen_fixtures: unknown model '{n}' (known: {', '.join(MODELS)})")
    for n in names:
        export(n, args.out)


if __name__ == "__main__":
    main()
