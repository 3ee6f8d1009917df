#!/usr/bin/python3
"""Tiny committed inputs for the CLI error tests (run once; outputs committed)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def unsupported_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok_relu"),
        helper.make_node("FancyActivation", ["a"], ["b"], name="first_bad", domain="com.example"),
        helper.make_node("Relu", ["b"], ["c"], name="ok_relu2"),
        helper.make_node("Unique", ["c"], ["d"], name="second_bad"),
        helper.make_node("Identity", ["d"], ["y"], name="id"),
    ]
    g = helper.make_graph(nodes, "unsupported", [x], [y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])


def new_opset_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "future", [x], [y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 30)])


def main():
    os.makedirs(HERE, exist_ok=True)
    onnx.save(unsupported_model(), os.path.join(HERE, "unsupported.onnx"))
    onnx.save(new_opset_model(), os.path.join(HERE, "opset30.onnx"))
    with open(os.path.join(HERE, "not_onnx.onnx"), "w") as f:
        f.write("this is not an ONNX model\n" * 4)
    np.save(os.path.join(HERE, "x_wrong_shape.npy"), np.zeros((8, 1, 14, 14), np.float32))
    np.save(os.path.join(HERE, "x_wrong_dtype.npy"), np.zeros((8, 1, 28, 28), np.float64))


if __name__ == "__main__":
    main()
