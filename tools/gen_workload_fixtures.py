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
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from workload_models import ActionExpert, ResNet, SmolLM, UNet, WhisperEncoder

STEPS = 20
LR, WEIGHT_DECAY = 1e-3, 0.01  # AdamW, as mgc compile --optimizer adamw --lr 1e-3 --weight-decay 0.01


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
    # Export a copy: tracing in train mode updates BatchNorm running statistics.
    torch.onnx.export(copy.deepcopy(model).train(), tuple(b[0] for b in batches), os.path.join(out_dir, name + ".onnx"), input_names=names,
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
