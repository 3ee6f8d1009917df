#!/usr/bin/python3
"""Generates the tiny ONNX models (and reference inputs/outputs) that
tests/compiler/onnx/test_onnx_import.cpp imports. Run from anywhere with Debian's
python (it has onnx 1.12, numpy and torch):

    /usr/bin/python3 tests/compiler/onnx/make_models.py

Writes tests/compiler/onnx/models/NAME.onnx, plus NAME.input_K.pb / NAME.output_K.pb
(TensorProto) for the models whose numbers the test checks. References
come from numpy or torch, never from mgc. Deterministic: fixed seeds.
"""
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
rng = np.random.default_rng(1234)
INT64_MIN = -(2**63)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(name, nodes, inputs, outputs, inits=(), opset=13, io=None, extra_opsets=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="mgc-tests")
    model.ir_version = 8
    path = os.path.join(OUT, name + ".onnx")
    onnx.save(model, path)
    assert os.path.getsize(path) < 50 * 1024, path
    if io:
        ins, outs = io
        for k, a in enumerate(ins):
            with open(os.path.join(OUT, f"{name}.input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
        for k, a in enumerate(outs):
            with open(os.path.join(OUT, f"{name}.output_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
    return path


def mlp_gemm():
    x, w1, b1, w2, b2 = randn(2, 4), randn(4, 8), randn(8), randn(3, 8), randn(3)
    h = np.maximum(x @ w1 + b1, 0)
    y = 0.5 * (h @ w2.T) + 2.0 * b2
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["hr"], name="relu1"),
        helper.make_node("Gemm", ["hr", "w2", "b2"], ["y"], name="fc2", transB=1, alpha=0.5, beta=2.0),
    ]
    return save("mlp_gemm", nodes, [vi("x", [2, 4])], [vi("y", [2, 3])],
                [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2)], io=([x], [y.astype(np.float32)]))


def conv_bn_relu_pool():
    x, w, b = randn(1, 3, 8, 8), randn(4, 3, 3, 3), randn(4)
    scale, bias, mean = randn(4), randn(4), randn(4)
    var = (np.abs(randn(4)) + 0.5).astype(np.float32)
    with torch.no_grad():
        t = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1)
        t = torch.nn.functional.batch_norm(t, torch.from_numpy(mean), torch.from_numpy(var), torch.from_numpy(scale),
                                           torch.from_numpy(bias), eps=1e-3)
        t = torch.nn.functional.max_pool2d(torch.relu(t), 2, 2)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"], name="bn", epsilon=1e-3),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["y"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    ]
    inits = [init("w", w), init("b", b), init("scale", scale), init("bias", bias), init("mean", mean), init("var", var)]
    return save("conv_bn_relu_pool", nodes, [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 4, 4])], inits,
                io=([x], [t.numpy()]))


def conv1d_same():
    """1-D conv with SAME_UPPER padding and stride 2: pads resolve to [0,1]."""
    x, w = randn(1, 2, 7), randn(3, 2, 3)
    with torch.no_grad():  # out = ceil(7/2) = 4; total pad = 3*2+3-7 = 2 → 1 left, 1 right
        y = torch.nn.functional.conv1d(torch.from_numpy(np.pad(x, ((0, 0), (0, 0), (1, 1)))), torch.from_numpy(w),
                                       stride=2).numpy()
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv1d", auto_pad="SAME_UPPER", strides=[2])]
    return save("conv1d_same", nodes, [vi("x", [1, 2, 7])], [vi("y", [1, 3, 4])], [init("w", w)], io=([x], [y]))


def shape_subgraph():
    """y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): folds to one Reshape."""
    x = randn(2, 3, 4)
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsqueeze"),
        helper.make_node("Concat", ["n1", "minus1"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
    ]
    inits = [init("zero", np.array(0, np.int64)), init("axes0", np.array([0], np.int64)),
             init("minus1", np.array([-1], np.int64))]
    return save("shape_subgraph", nodes, [vi("x", [2, 3, 4])], [vi("y", [2, 12])], inits, io=([x], [x.reshape(2, 12)]))


def split_models():
    x = randn(2, 6)
    nodes = [helper.make_node("Split", ["x", "sizes"], ["a", "b", "c"], name="split", axis=1)]
    save("split_sizes", nodes, [vi("x", [2, 6])], [vi("a", [2, 1]), vi("b", [2, 2]), vi("c", [2, 3])],
         [init("sizes", np.array([1, 2, 3], np.int64))], io=([x], [x[:, :1], x[:, 1:3], x[:, 3:]]))
    nodes = [helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=-1)]
    save("split_equal_opset11", nodes, [vi("x", [2, 6])], [vi("a", [2, 2]), vi("b", [2, 2]), vi("c", [2, 2])],
         opset=11, io=([x], [x[:, :2], x[:, 2:4], x[:, 4:]]))


def slice_negative_steps():
    """x[3::-2, -1:-6:-1] with an INT64_MIN end and an end that clamps to -1."""
    x = randn(4, 5)
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="slice")]
    inits = [init("starts", np.array([3, -1], np.int64)), init("ends", np.array([INT64_MIN, -6], np.int64)),
             init("axes", np.array([0, 1], np.int64)), init("steps", np.array([-2, -1], np.int64))]
    return save("slice_negative_steps", nodes, [vi("x", [4, 5])], [vi("y", [2, 5])], inits,
                io=([x], [x[3::-2, ::-1]]))


def squeeze_unsqueeze():
    """The same computation as opset 11 (axes attributes) and opset 13 (axes inputs)."""
    x = randn(1, 3, 1, 2)
    y = x.reshape(3, 2)[:, None, :]
    nodes = [
        helper.make_node("Squeeze", ["x"], ["s"], name="squeeze", axes=[0, -2]),
        helper.make_node("Unsqueeze", ["s"], ["y"], name="unsqueeze", axes=[1]),
    ]
    save("squeeze_opset11", nodes, [vi("x", [1, 3, 1, 2])], [vi("y", [3, 1, 2])], opset=11, io=([x], [y]))
    nodes = [
        helper.make_node("Squeeze", ["x", "sq_axes"], ["s"], name="squeeze"),
        helper.make_node("Unsqueeze", ["s", "unsq_axes"], ["y"], name="unsqueeze"),
    ]
    inits = [init("sq_axes", np.array([0, -2], np.int64)), init("unsq_axes", np.array([1], np.int64))]
    save("squeeze_opset13", nodes, [vi("x", [1, 3, 1, 2])], [vi("y", [3, 1, 2])], inits, io=([x], [y]))


def softmax_opset11():
    """Opset < 13 Softmax flattens at axis: normalizes over axes 1 and 2 together."""
    x = randn(2, 3, 4)
    f = x.reshape(2, 12)
    e = np.exp(f - f.max(axis=1, keepdims=True))
    y = (e / e.sum(axis=1, keepdims=True)).reshape(2, 3, 4)
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=1)]
    return save("softmax_opset11", nodes, [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], opset=11, io=([x], [y]))


def unsupported():
    """Three nodes mgc cannot import (an unknown op, a custom domain, an
    unsupported Pad mode) and one downstream of a failure."""
    nodes = [
        helper.make_node("NonZero", ["x"], ["nz"], name="nonzero"),
        helper.make_node("Frobnicate", ["x"], ["f"], name="frob", domain="com.example"),
        helper.make_node("Pad", ["x", "pads"], ["p"], name="wrap_pad", mode="wrap"),
        helper.make_node("Cast", ["nz"], ["nzf"], name="after_nonzero", to=TensorProto.FLOAT),
        helper.make_node("Relu", ["x"], ["y"], name="fine"),
    ]
    return save("unsupported", nodes, [vi("x", [1, 4])],
                [vi("y", [1, 4]), vi("nzf", None), vi("f", [1, 4]), vi("p", [1, 6])],
                [init("pads", np.array([0, 1, 0, 1], np.int64))], extra_opsets=[("com.example", 1)])


def symbolic_batch():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return save("symbolic_batch", nodes, [vi("x", ["N", 4])], [vi("y", ["N", 4])])


def new_opset():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return save("opset18", nodes, [vi("x", [1, 4])], [vi("y", [1, 4])], opset=18)


def broken_files(mlp_path):
    with open(os.path.join(OUT, "not_onnx.onnx"), "w") as f:
        f.write("This is a text file, not an ONNX model.\n")
    data = open(mlp_path, "rb").read()
    with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])


def main():
    os.makedirs(OUT, exist_ok=True)
    mlp = mlp_gemm()
    conv_bn_relu_pool()
    conv1d_same()
    shape_subgraph()
    split_models()
    slice_negative_steps()
    squeeze_unsqueeze()
    softmax_opset11()
    unsupported()
    symbolic_batch()
    new_opset()
    broken_files(mlp)


if __name__ == "__main__":
    main()
