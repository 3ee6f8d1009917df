#!/usr/bin/python3
"""Trains a training bundle on Fashion-MNIST from Python, through `import mgrt`.

    build/mgc compile examples/cnn.onnx --train --optimizer adamw --lr 1e-3 -o cnn-train.mgb
    PYTHONPATH=build/python /usr/bin/python3 python/examples/train_fashion_mnist.py cnn-train.mgb --steps 200

Each step feeds one batch (the bundle's batch size) to `train_step`, which
runs forward, backward and the optimizer on the GPU and returns the loss;
the weights stay on the device as the model's state. At the end the state
is saved as a safetensors checkpoint and `infer` classifies test images.
"""
import argparse
import gzip
import os

import numpy as np

import mgrt

DATA = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist


def idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * k:8 + 4 * k], "big") for k in range(dims)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--checkpoint", default="")
    ap.add_argument("--device", type=int, default=-1)
    a = ap.parse_args()

    model = mgrt.load(a.bundle, device=a.device)
    train, infer = model.session("train_step"), model.session("infer")
    x_info = next(t for t in train.inputs if t.name != "labels")
    batch = x_info.shape[0]
    images = idx("train-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    labels = idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    losses = []
    for step in range(a.steps):
        at = (step * batch) % (len(images) - batch)
        out = train.run(**{x_info.name: images[at:at + batch].reshape(x_info.shape), "labels": labels[at:at + batch]})
        losses.append(float(out["loss"]))
        if step % 50 == 0 or step == a.steps - 1:
            print("step %4d  loss %.4f" % (step, losses[-1]))
    if a.checkpoint:
        model.save_state(a.checkpoint)
        print("saved", a.checkpoint)
    test_x = idx("t10k-images-idx3-ubyte.gz")[:batch].astype(np.float32) / 255.0
    test_y = idx("t10k-labels-idx1-ubyte.gz")[:batch]
    logits = next(iter(infer.run(**{x_info.name: test_x.reshape(x_info.shape)}).values()))
    print("test batch accuracy %.2f" % float((logits.argmax(1) == test_y).mean()))
    return losses


if __name__ == "__main__":
    main()
