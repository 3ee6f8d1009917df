#!/usr/bin/python3
"""Builds the shipped example: a small Fashion-MNIST CNN exported from PyTorch.

Writes examples/cnn.onnx (random seeded weights), examples/cnn_input.npy (the
first 8 images of the Fashion-MNIST test set, scaled to [0, 1]) and
examples/cnn_expected.npy (PyTorch's logits for them). Run with Debian's
/usr/bin/python3 (torch 1.13).
"""
import gzip
import os

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_images(n):
    with gzip.open(FASHION, "rb") as f:
        data = f.read()
    images = np.frombuffer(data, dtype=np.uint8, offset=16).reshape(-1, 1, 28, 28)
    return (images[:n].astype(np.float32) / 255.0)


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    # Give BatchNorm real running statistics.
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(32, 1, 28, 28))
    model.eval()
    x = torch.from_numpy(load_images(8))
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, os.path.join(HERE, "cnn.onnx"), input_names=["x"], output_names=["logits"],
                      opset_version=13, do_constant_folding=True)
    np.save(os.path.join(HERE, "cnn_input.npy"), x.numpy())
    np.save(os.path.join(HERE, "cnn_expected.npy"), y.numpy())
    print("wrote cnn.onnx, cnn_input.npy, cnn_expected.npy")


if __name__ == "__main__":
    main()
