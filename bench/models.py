#!/usr/bin/env python3
"""Benchmark models: exports each to ONNX and times PyTorch on the same GPU.

Usage: models.py OUT_DIR [--device cuda|cpu] [--models mlp,resnet18,...]
Writes OUT_DIR/<model>.onnx, <model>_x.npy, <model>_ref.npy (fp32 PyTorch
output) and OUT_DIR/torch.csv with eager forward medians (TF32 off).
Works with torch 1.13 (Debian) and 2.x (the GPU machine).
"""
import argparse
import csv
import os
import time

import numpy as np
import torch
import torch.nn as nn


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)), (64, 1, 28, 28)


def resnet(name, batch):
    import torchvision
    m = getattr(torchvision.models, name)(weights=None)
    return m, (batch, 3, 224, 224)


def mobilenet():
    import torchvision
    return torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224)


class Block(nn.Module):
    """A pre-norm transformer encoder block written out (no fused fast path)."""

    def __init__(self, d=256, heads=4, ff=1024):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.norm1(x)
        q, k, v = self.qkv(h).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.ff2(torch.nn.functional.gelu(self.ff1(self.norm2(x))))


def transformer():
    return nn.Sequential(*[Block() for _ in range(4)]), (1, 128, 256)


MODELS = {
    "mlp": mlp,
    "resnet18": lambda: resnet("resnet18", 1),
    "resnet50": lambda: resnet("resnet50", 4),
    "mobilenet_v2": mobilenet,
    "transformer": transformer,
}


def median_ms(fn, device, warmup=10, iters=50):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        if device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for name in args.models.split(","):
      try:
        torch.manual_seed(0)
        model, shape = MODELS[name]()
        model.eval()
        x = torch.randn(*shape)
        export_kwargs = {}
        if int(torch.__version__.split(".")[0]) >= 2:
            export_kwargs["dynamo"] = False
        with torch.no_grad():
            torch.onnx.export(model, x, os.path.join(args.out, name + ".onnx"), input_names=["x"],
                              output_names=["y"], opset_version=14, do_constant_folding=True, **export_kwargs)
            ref = model(x)
            np.save(os.path.join(args.out, name + "_x.npy"), x.numpy())
            np.save(os.path.join(args.out, name + "_ref.npy"), ref.numpy())
            dm, dx = model.to(args.device), x.to(args.device)
            eager = median_ms(lambda: dm(dx), args.device)
        rows.append({"model": name, "shape": "x".join(map(str, shape)), "torch_eager_ms": f"{eager:.4f}"})
        print(name, shape, f"eager {eager:.3f} ms", flush=True)
      except Exception as e:  # keep going: one broken export must not hide the others
        print(name, "failed:", e, flush=True)
    with open(os.path.join(args.out, "torch.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
