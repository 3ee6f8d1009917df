#!/usr/bin/python3
"""tests/training/fixtures/mlp_dropout.onnx: an MLP 20-32-5 with Dropout(0.5)
after the hidden ReLU, batch 8, exported in training mode (opset 13) so that
the Dropout node survives (an eval-mode export drops it). It trains on the
mlp_x.npy / mlp_labels.npy fixtures of gen_train_fixtures.py.

Run with Debian's python (torch 1.13): /usr/bin/python3 tools/gen_dropout_fixture.py
"""
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "training", "fixtures", "mlp_dropout.onnx")


class DropoutMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


def main():
    torch.manual_seed(99)
    model = DropoutMLP().train()
    torch.onnx.export(model, torch.zeros(8, 20), OUT, input_names=["x"], output_names=["logits"], opset_version=13,
                      do_constant_folding=False, training=torch.onnx.TrainingMode.TRAINING)


if __name__ == "__main__":
    main()
