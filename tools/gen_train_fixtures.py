#!/usr/bin/python3
"""Step-parity fixtures for tests/training: small models trained 20 steps in
PyTorch 1.13, with the loss of every step and the final state.

For each model (an MLP; a small CNN with BatchNorm) this writes to
tests/training/fixtures/:
  <model>.onnx             exported in inference form with parameter names
                           (do_constant_folding=False, BatchNorm kept)
  <model>_x.npy, <model>_labels.npy   20 batches, consumed in order
  <model>_<opt>_losses.npy  the loss of each of the 20 steps (f32)
  <model>_<opt>_final.safetensors     parameters (+ running stats) after them
for opt in sgd (momentum 0.9, lr 0.05, weight decay 1e-3) and adamw (lr 1e-2,
weight decay 0.05). Deterministic (seeded). Run with /usr/bin/python3.
"""
import json
import os
import struct

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "training", "fixtures")
STEPS = 20


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 16)
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1, bias=False)  # BatchNorm follows
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 5)
        # Distinct values: PyTorch's exporter merges initializers with equal
        # contents (fresh running_var == bn.weight == 1), which would tie a
        # running statistic to a parameter.
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.2, 0.2)
            self.bn.running_mean.uniform_(-0.1, 0.1)
            self.bn.running_var.uniform_(0.8, 1.2)

    def forward(self, x):
        y = torch.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(torch.flatten(y, 1))


def write_safetensors(path, tensors):
    header, blobs, at = {}, [], 0
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        b = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def state_of(model):
    out = {name: p.detach().numpy() for name, p in model.named_parameters()}
    for name, b in model.named_buffers():
        if "running" in name:
            out[name] = b.detach().numpy()
    return out


def run(name, make, x_shape, batch):
    torch.manual_seed(1234)
    model = make()
    x = torch.randn(STEPS * batch, *x_shape)
    labels = torch.randint(0, 5, (STEPS * batch,))
    model.eval()
    torch.onnx.export(model, x[:batch], os.path.join(OUT, name + ".onnx"), input_names=["x"], output_names=["logits"],
                      opset_version=13, do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
    np.save(os.path.join(OUT, name + "_x.npy"), x.numpy())
    np.save(os.path.join(OUT, name + "_labels.npy"), labels.numpy().astype(np.int64))
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    for opt_name in ("sgd", "adamw"):
        model.load_state_dict(initial)
        model.train()
        if opt_name == "sgd":
            opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
        else:
            opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)
        losses = []
        for s in range(STEPS):
            xb, yb = x[s * batch:(s + 1) * batch], labels[s * batch:(s + 1) * batch]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        np.save(os.path.join(OUT, "%s_%s_losses.npy" % (name, opt_name)), np.array(losses, dtype=np.float32))
        write_safetensors(os.path.join(OUT, "%s_%s_final.safetensors" % (name, opt_name)), state_of(model))
        print(name, opt_name, "loss %.4f -> %.4f" % (losses[0], losses[-1]))


class FashionMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))


class FashionCNN(nn.Module):
    """The example CNN (examples/make_example.py) with its BatchNorms kept."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))
        with torch.no_grad():  # distinct initial values (see SmallCNN)
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.running_var.fill_(1.0 + 1e-3)
                    m.weight.fill_(1.0 - 1e-3)

    def forward(self, x):
        return self.classifier(self.features(x))


def export_fashion(out_dir, batch):
    """Untrained Fashion-MNIST models (batch `batch`) for `mgc compile --train`."""
    os.makedirs(out_dir, exist_ok=True)
    for name, make in (("mlp_fmnist", FashionMLP), ("cnn_fmnist", FashionCNN)):
        torch.manual_seed(0)
        model = make().eval()
        torch.onnx.export(model, torch.zeros(batch, 1, 28, 28), os.path.join(out_dir, name + ".onnx"), input_names=["x"],
                          output_names=["logits"], opset_version=13, do_constant_folding=False,
                          training=torch.onnx.TrainingMode.PRESERVE)
        print("wrote", os.path.join(out_dir, name + ".onnx"))


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--fashion", help="also write untrained Fashion-MNIST models (mlp_fmnist.onnx, cnn_fmnist.onnx) here")
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    if args.fashion:
        export_fashion(args.fashion, args.batch)
        return
    os.makedirs(OUT, exist_ok=True)
    run("mlp", MLP, (20,), 8)
    run("cnn_bn", SmallCNN, (1, 8, 8), 4)


if __name__ == "__main__":
    main()
