#!/usr/bin/python3
"""Generates the gradient-check fixtures of tests/passes/program (PyTorch 1.13).

Each case is a small IR graph (usually one op) on odd shapes. For an op
case, OUT/<case>/ holds:
  graph.mgir     the graph in text IR: inputs %in0.., output %y
  in<k>.npy      input k
  R.npy          a fixed random tensor shaped like y; the test's loss is
                 sum(y * R), so every output element matters
  grad<k>.npy    d loss / d in<k>, for each float input k (PyTorch, float64
                 math, stored as float32)
An ONNX case (a PyTorch module exported at opset 17, for ops that exist only
as importer compositions, e.g. Resize) holds model.onnx instead of
graph.mgir, its input in0 and output y, plus y.npy: the forward result.
For a loss case (passes/program/loss.h), graph.mgir declares %in0 (prediction) and
%in1 (target) and no nodes; loss.txt holds "<kind> <label smoothing>",
loss.npy the loss and grad0.npy d loss / d prediction.

Seeded: running it twice gives byte-identical files. Run with Debian's
interpreter:  /usr/bin/python3 tools/gen_grad_fixtures.py [--out DIR]
"""
import argparse
import math
import os
import shutil

import numpy as np
import torch
import torch.nn.functional as F

SEED = 20240
DTYPES = {np.float32: "f32", np.float64: "f64", np.int64: "i64", np.int32: "i32", np.bool_: "bool"}


def ir_type(a):
    return "%s[%s]" % (DTYPES[a.dtype.type], ",".join(str(d) for d in a.shape))


def ir_attr(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, str):  # a dtype name (cast's `to`)
        return v
    return "[" + ", ".join(ir_attr(x) for x in v) + "]"


class Case:
    def __init__(self, name, inputs, nodes, fn, grads=None):
        self.name, self.inputs, self.nodes, self.fn = name, inputs, nodes, fn
        # which inputs get a gradient: every float input unless told
        self.grads = grads if grads is not None else [
            k for k, a in enumerate(inputs) if a.dtype in (np.float32, np.float64)]


def node(op, args, attrs=None, out="y"):
    return (out, op, args, attrs or {})


def single(name, op, inputs, attrs, fn, grads=None):
    args = ["in%d" % k if a is not None else None for k, a in enumerate(inputs)]
    real = [a for a in inputs if a is not None]
    return Case(name, real, [node(op, args, attrs)], fn, grads)


def write_graph(path, case, out_types):
    lines = ["graph @%s(%s) {" % (case.name, ", ".join(
        "%%in%d: %s" % (k, ir_type(a)) for k, a in enumerate(case.inputs)))]
    for (out, op, args, attrs) in case.nodes:
        operands = ", ".join("%" + a if a else "none" for a in args)
        attr = ""
        if attrs:
            attr = " {" + ", ".join("%s = %s" % (k, ir_attr(attrs[k])) for k in sorted(attrs)) + "}"
        lines.append("  %%%s = %s(%s)%s : %s" % (out, op, operands, attr, out_types[out]))
    lines.append("  return %y" if "y" in out_types else "  return")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_case(out_dir, case, rng):
    d = os.path.join(out_dir, case.name)
    os.makedirs(d, exist_ok=True)
    ts = []
    for k, a in enumerate(case.inputs):
        t = torch.from_numpy(a.astype(np.float64) if a.dtype == np.float32 else a)
        if k in case.grads:
            t.requires_grad_(True)
        ts.append(t)
    outs = case.fn(*ts)  # dict: value name -> tensor (the last nodes' results)
    y = outs["y"]
    R = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    (y * torch.from_numpy(R.astype(np.float64))).sum().backward()
    types = {name: "%s[%s]" % ("f64" if case.fn.__dict__.get("f64") else "f32", ",".join(str(s) for s in v.shape))
             for name, v in outs.items()}
    write_graph(os.path.join(d, "graph.mgir"), case, types)
    for k, a in enumerate(case.inputs):
        np.save(os.path.join(d, "in%d.npy" % k), a)
    np.save(os.path.join(d, "R.npy"), R if not case.fn.__dict__.get("f64") else R.astype(np.float64))
    for k in case.grads:
        g = ts[k].grad
        np.save(os.path.join(d, "grad%d.npy" % k), g.numpy().astype(case.inputs[k].dtype))


def loss_case(out_dir, name, kind, smoothing, pred, target):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    p = torch.from_numpy(pred.astype(np.float64)).requires_grad_(True)
    t = torch.from_numpy(target.astype(np.float64) if target.dtype == np.float32 else target.astype(np.int64))
    if kind == "cross_entropy":
        loss = F.cross_entropy(p, t, label_smoothing=smoothing)
    elif kind == "mse":
        loss = F.mse_loss(p, t)
    elif kind == "l1":
        loss = F.l1_loss(p, t)
    else:
        loss = F.binary_cross_entropy_with_logits(p, t)
    loss.backward()
    c = Case(name, [pred, target], [], None, [0])
    write_graph(os.path.join(d, "graph.mgir"), c, {})
    np.save(os.path.join(d, "in0.npy"), pred)
    np.save(os.path.join(d, "in1.npy"), target)
    np.save(os.path.join(d, "loss.npy"), np.array(loss.item(), dtype=np.float32))
    np.save(os.path.join(d, "grad0.npy"), p.grad.numpy().astype(np.float32))
    with open(os.path.join(d, "loss.txt"), "w") as f:
        f.write("%s %r\n" % (kind, smoothing))


def onnx_case(out_dir, name, module, x, rng):
    """Exports `module` (float32) to model.onnx; y and the gradient of
    sum(y * R) come from the same module in float64."""
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    torch.onnx.export(module, torch.from_numpy(x), os.path.join(d, "model.onnx"), opset_version=17,
                      input_names=["in0"], output_names=["y"], do_constant_folding=True)
    t = torch.from_numpy(x.astype(np.float64)).requires_grad_(True)
    y = module(t)
    R = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    (y * torch.from_numpy(R.astype(np.float64))).sum().backward()
    np.save(os.path.join(d, "in0.npy"), x)
    np.save(os.path.join(d, "R.npy"), R)
    np.save(os.path.join(d, "y.npy"), y.detach().numpy().astype(np.float32))
    np.save(os.path.join(d, "grad0.npy"), t.grad.numpy().astype(np.float32))


def r(x):
    return {"y": x}


def cases(rng):
    def n(*s, scale=1.0):
        return (rng.standard_normal(s) * scale).astype(np.float32)

    def pos(*s):
        return rng.uniform(0.5, 2.0, s).astype(np.float32)

    s = (3, 5, 7)
    out = []
    unary = [
        ("identity", {}, lambda x: x * 1),
        ("neg", {}, torch.neg), ("abs", {}, torch.abs), ("exp", {}, torch.exp),
        ("relu", {}, torch.relu), ("sigmoid", {}, torch.sigmoid), ("tanh", {}, torch.tanh),
        ("erf", {}, torch.erf), ("sin", {}, torch.sin), ("cos", {}, torch.cos),
        ("softplus", {}, F.softplus), ("hard_swish", {}, F.hardswish),
        ("leaky_relu", {"alpha": 0.1}, lambda x: F.leaky_relu(x, 0.1)),
        ("elu", {"alpha": 0.7}, lambda x: F.elu(x, 0.7)),
        ("hard_sigmoid", {"alpha": 1.0 / 6, "beta": 0.5}, F.hardsigmoid),
        ("clip", {"min": -0.5, "max": 0.8}, lambda x: torch.clamp(x, -0.5, 0.8)),
        ("gelu", {"approximate": 0}, F.gelu),
    ]
    for op, attrs, fn in unary:
        out.append(single(op, op, [n(*s, scale=2.5)], attrs, lambda x, fn=fn: r(fn(x))))
    out.append(single("gelu_tanh", "gelu", [n(*s, scale=2.5)], {"approximate": 1},
                      lambda x: r(F.gelu(x, approximate="tanh"))))
    for op, fn in [("log", torch.log), ("sqrt", torch.sqrt), ("reciprocal", torch.reciprocal)]:
        out.append(single(op, op, [pos(*s)], {}, lambda x, fn=fn: r(fn(x))))
    cast64 = lambda x: r(x.double() * 1)
    cast64.f64 = True
    out.append(single("cast_f32_f64", "cast", [n(*s)], {"to": "f64"}, cast64))

    # binary, with broadcasting on both sides
    out.append(single("add_bcast", "add", [n(*s), n(5, 1)], {}, lambda a, b: r(a + b)))
    out.append(single("sub_bcast", "sub", [n(5, 1), n(*s)], {}, lambda a, b: r(a - b)))
    out.append(single("mul_bcast", "mul", [n(*s), n(1, 7)], {}, lambda a, b: r(a * b)))
    out.append(single("div_bcast", "div", [n(*s), pos(5, 7)], {}, lambda a, b: r(a / b)))
    out.append(single("pow_bcast", "pow", [pos(*s), n(1, 5, 1)], {}, lambda a, b: r(torch.pow(a, b))))
    out.append(single("max_bcast", "max", [n(*s), n(5, 7)], {}, lambda a, b: r(torch.maximum(a, b))))
    out.append(single("min_bcast", "min", [n(5, 1), n(*s)], {}, lambda a, b: r(torch.minimum(a, b))))
    ties = np.round(n(*s) * 2) / 2
    out.append(single("max_ties", "max", [ties, np.round(n(*s) * 2) / 2], {}, lambda a, b: r(torch.maximum(a, b))))
    cond = rng.standard_normal((3, 1, 7)) > 0
    out.append(single("where_bcast", "where", [cond, n(*s), n(5, 7)], {},
                      lambda c, a, b: r(torch.where(c, a, b))))

    # matmul: batched with broadcasting, and every 1-D case
    for name, a, b in [("matmul_batch_bcast", n(2, 3, 4, 5), n(3, 5, 6)), ("matmul_2d", n(4, 5), n(5, 6)),
                       ("matmul_vec_mat", n(5), n(5, 6)), ("matmul_mat_vec", n(4, 5), n(5)),
                       ("matmul_vec_batch", n(5), n(2, 5, 3)), ("matmul_batch_vec", n(2, 4, 5), n(5)),
                       ("matmul_vec_vec", n(5), n(5))]:
        out.append(single(name, "matmul", [a, b], {}, lambda a, b: r(torch.matmul(a, b))))

    # conv: pads are [top, left, bottom, right]; torch pads x explicitly
    def conv(strides, pads, dilations, group):
        def fn(x, w, b=None):
            xp = F.pad(x, (pads[1], pads[3], pads[0], pads[2]))
            return r(F.conv2d(xp, w, b, stride=strides, dilation=dilations, groups=group))
        return fn
    for name, x, w, b, st, pd, dl, grp in [
        ("conv_bias_stride_dil_asym_pad", n(2, 3, 7, 9), n(4, 3, 3, 2), n(4), [2, 1], [1, 0, 2, 1], [1, 2], 1),
        ("conv_groups_stride2", n(2, 6, 7, 9), n(4, 3, 3, 3), None, [2, 2], [1, 1, 1, 1], [1, 1], 2),
        ("conv_depthwise_dil2_bias", n(2, 3, 7, 9), n(6, 1, 3, 3), n(6), [1, 1], [2, 2, 2, 2], [2, 2], 3),
        ("conv_1x1_gemm", n(2, 5, 4, 3), n(17, 5, 1, 1), n(17), [1, 1], [0, 0, 0, 0], [1, 1], 1),
    ]:
        attrs = {"strides": st, "pads": pd, "dilations": dl, "group": grp}
        out.append(single(name, "conv", [x, w, b], attrs, conv(st, pd, dl, grp)))

    def maxpool(k, st, pd, dl, ceil):
        return lambda x: r(F.max_pool2d(x, k, st, pd[:2], dl, ceil_mode=bool(ceil)))
    for name, x, k, st, pd, dl, ceil in [
        ("max_pool_ceil_pad", n(2, 3, 7, 9), [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 1),
        ("max_pool_dilation", n(2, 3, 7, 9), [2, 3], [1, 2], [0, 0, 0, 0], [2, 1], 0),
        ("max_pool_ties_overlap", np.round(n(2, 3, 7, 9)), [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 0),
    ]:
        attrs = {"kernel": k, "strides": st, "pads": pd, "dilations": dl, "ceil_mode": ceil}
        out.append(single(name, "max_pool", [x], attrs, maxpool(k, st, pd, dl, ceil)))
    for name, k, st, pd, ceil, incl in [
        ("avg_pool_ceil_exclude_pad", [3, 3], [2, 2], [1, 1, 1, 1], 1, 0),
        ("avg_pool_include_pad", [3, 2], [2, 1], [1, 0, 1, 0], 0, 1),
        ("avg_pool_ceil_include_pad", [2, 3], [2, 2], [1, 1, 1, 1], 1, 1),
    ]:
        attrs = {"kernel": k, "strides": st, "pads": pd, "ceil_mode": ceil, "count_include_pad": incl}
        out.append(single(name, "avg_pool", [n(2, 3, 7, 9)], attrs,
                          lambda x, k=k, st=st, pd=pd, ceil=ceil, incl=incl: r(F.avg_pool2d(
                              x, k, st, pd[:2], ceil_mode=bool(ceil), count_include_pad=bool(incl)))))

    out.append(single("softmax_axis1", "softmax", [n(*s)], {"axis": 1}, lambda x: r(torch.softmax(x, 1))))
    out.append(single("log_softmax_axis2", "log_softmax", [n(*s)], {"axis": 2},
                      lambda x: r(torch.log_softmax(x, 2))))
    out.append(single("layer_norm_axis1_bias", "layer_norm", [n(*s), n(5, 7), n(5, 7)],
                      {"axis": 1, "epsilon": 1e-5}, lambda x, w, b: r(F.layer_norm(x, (5, 7), w, b, 1e-5))))
    out.append(single("layer_norm_last_nobias", "layer_norm", [n(*s), n(7), None],
                      {"axis": 2, "epsilon": 1e-3}, lambda x, w: r(F.layer_norm(x, (7,), w, None, 1e-3))))

    def bn(x, sc, b, m, v):
        c = lambda t: t.reshape(1, -1, 1, 1)
        return r((x - c(m)) / torch.sqrt(c(v) + 1e-3) * c(sc) + c(b))
    out.append(single("batch_norm_inference", "batch_norm", [n(2, 3, 5, 7), n(3), n(3), n(3), pos(3)],
                      {"epsilon": 1e-3}, bn))

    out.append(single("reduce_sum_axis1", "reduce_sum", [n(*s)], {"axes": [1], "keepdims": 0},
                      lambda x: r(x.sum(1))))
    out.append(single("reduce_sum_all", "reduce_sum", [n(*s)], {"axes": [], "keepdims": 0},
                      lambda x: r(x.sum())))
    out.append(single("reduce_mean_keep", "reduce_mean", [n(*s)], {"axes": [0, 2], "keepdims": 1},
                      lambda x: r(x.mean((0, 2), keepdim=True))))
    out.append(single("reduce_max_axis2", "reduce_max", [n(*s)], {"axes": [2], "keepdims": 0},
                      lambda x: r(torch.amax(x, 2))))
    out.append(single("reduce_max_ties", "reduce_max", [np.round(n(*s))], {"axes": [1, 2], "keepdims": 1},
                      lambda x: r(torch.amax(x, (1, 2), keepdim=True))))
    out.append(single("reduce_min_axis0", "reduce_min", [n(*s)], {"axes": [0], "keepdims": 0},
                      lambda x: r(torch.amin(x, 0))))

    out.append(single("reshape", "reshape", [n(*s)], {"shape": [15, 7]}, lambda x: r(x.reshape(15, 7))))
    out.append(single("transpose_201", "transpose", [n(*s)], {"perm": [2, 0, 1]}, lambda x: r(x.permute(2, 0, 1))))
    out.append(single("concat_axis1", "concat", [n(3, 2, 7), n(3, 5, 7), n(3, 1, 7)], {"axis": 1},
                      lambda a, b, c: r(torch.cat([a, b, c], 1))))

    def sliced(starts, ends, steps):
        def fn(x):
            for d in range(x.dim()):
                idx = list(range(starts[d], ends[d], steps[d]))
                x = x.index_select(d, torch.tensor(idx, dtype=torch.long))
            return r(x)
        return fn
    for name, st, en, sp in [("slice_contiguous", [1, 1, 0], [3, 4, 7], [1, 1, 1]),
                             ("slice_steps", [1, 0, 6], [3, 5, -1], [1, 2, -2]),
                             ("slice_reverse_step3", [2, 4, 1], [-1, 0, 7], [-1, -3, 3])]:
        out.append(single(name, "slice", [n(*s)], {"starts": st, "ends": en, "steps": sp}, sliced(st, en, sp)))

    def gathered(axis):
        def fn(x, i):
            flat = torch.remainder(i.reshape(-1).long(), x.shape[axis])
            g = x.index_select(axis, flat)
            return r(g.reshape(x.shape[:axis] + i.shape + x.shape[axis + 1:]))
        return fn
    out.append(single("gather_axis0_dupes", "gather", [n(5, 7), np.array([4, 1, 4, 0, 4], dtype=np.int64)],
                      {"axis": 0}, gathered(0)))
    out.append(single("gather_axis1_i32_neg", "gather", [n(*s), np.array([[1, -1, 0], [4, 1, -4]], dtype=np.int32)],
                      {"axis": 1}, gathered(1)))
    out.append(single("expand", "expand", [n(5, 1)], {"shape": [3, 5, 7]}, lambda x: r(x.expand(3, 5, 7) * 1)))
    pads = [1, 0, 2, 0, -1, 1]
    out.append(single("pad_crop", "pad", [n(*s)], {"pads": pads, "value": 0.5},
                      lambda x: r(F.pad(x, (pads[2], pads[5], pads[1], pads[4], pads[0], pads[3]), value=0.5))))

    # fan-out: %h feeds three uses, %x two
    x, w, b = n(4, 5), n(5, 6), n(6)
    out.append(Case("fanout_mlp", [x, w, b], [
        node("matmul", ["in0", "in1"], out="m"), node("add", ["m", "in2"], out="a"),
        node("tanh", ["a"], out="h"), node("mul", ["h", "h"], out="hh"),
        node("add", ["hh", "h"], out="y")], None))

    def fanout(x, w, b):
        m = x @ w
        a = m + b
        h = torch.tanh(a)
        hh = h * h
        return {"m": m, "a": a, "h": h, "hh": hh, "y": hh + h}
    out[-1].fn = fanout

    # Cases added later draw from their own generator, so that the cases
    # above (and their R tensors) keep their bytes.
    rng2 = np.random.default_rng(SEED + 1)

    def n2(*shape):
        return rng2.standard_normal(shape).astype(np.float32)

    # conv_grad_input (how ConvTranspose imports): the transposed convolution
    # of dy by w, differentiated in both.
    out.append(single("conv_grad_input_groups_stride2", "conv_grad_input", [n2(2, 4, 4, 5), n2(4, 3, 3, 3)],
                      {"strides": [2, 2], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 2, "shape": [2, 6, 7, 9]},
                      lambda dy, w: r(F.conv_transpose2d(dy, w, stride=2, padding=1, groups=2))))
    idx = rng2.integers(-4, 4, size=(3, 5)).astype(np.int64)  # duplicates and negatives on axis 1 (size 4)
    out.append(single("gather_elements_axis1_dupes", "gather_elements", [n2(3, 4), idx], {"axis": 1},
                      lambda x, i: r(torch.gather(x, 1, torch.where(i < 0, i + 4, i)))))
    sidx = np.array([[1, 0, 3], [2, 2, 0]], dtype=np.int64)  # a duplicate in row 1
    for name, code, reduce in [("scatter_elements_add", 1, "add"), ("scatter_elements_none", 0, None)]:
        def scattered(d, i, u, reduce=reduce):
            return r(d.scatter_add(1, i, u) if reduce else d.scatter(1, i, u))
        out.append(Case(name, [n2(2, 4), sidx, n2(2, 3)],
                        [node("scatter_elements", ["in0", "in1", "in2"], {"axis": 1, "reduction": code})], scattered))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "grad"))
    args = ap.parse_args()
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    # start from empty case folders (a removed case must not linger); other
    # files (README.md) stay
    os.makedirs(args.out, exist_ok=True)
    for entry in os.listdir(args.out):
        if os.path.isdir(os.path.join(args.out, entry)):
            shutil.rmtree(os.path.join(args.out, entry))
    for c in cases(rng):
        run_case(args.out, c, rng)
    ce = rng.standard_normal((6, 5)).astype(np.float32)
    labels = rng.integers(0, 5, 6).astype(np.int64)
    loss_case(args.out, "loss_cross_entropy", "cross_entropy", 0.0, ce, labels)
    loss_case(args.out, "loss_cross_entropy_smooth", "cross_entropy", 0.1, ce, labels)
    loss_case(args.out, "loss_cross_entropy_spatial_i32", "cross_entropy", 0.2,
              rng.standard_normal((4, 5, 3)).astype(np.float32), rng.integers(0, 5, (4, 3)).astype(np.int32))
    pred = rng.standard_normal((6, 5)).astype(np.float32)
    loss_case(args.out, "loss_mse", "mse", 0.0, pred, rng.standard_normal((6, 5)).astype(np.float32))
    loss_case(args.out, "loss_l1", "l1", 0.0, pred, rng.standard_normal((6, 5)).astype(np.float32))
    loss_case(args.out, "loss_bce_with_logits", "bce_with_logits", 0.0, pred * 3,
              rng.uniform(0, 1, (6, 5)).astype(np.float32))
    # Resize (ONNX importer composition: MatMul per axis, or Expand for an
    # integer nearest upscale), as torch.nn.Upsample exports it.
    img = lambda *s: rng.standard_normal(s).astype(np.float32)
    onnx_case(args.out, "resize_nearest2x", torch.nn.Upsample(scale_factor=2, mode="nearest"), img(2, 3, 5, 7), rng)
    onnx_case(args.out, "resize_bilinear", torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
              img(2, 3, 5, 7), rng)
    onnx_case(args.out, "resize_bilinear_align_corners",
              torch.nn.Upsample(size=(9, 4), mode="bilinear", align_corners=True), img(1, 2, 5, 7), rng)
    # MatMul with operands stored transposed (trans_a / trans_b, what
    # canonicalize folds Transpose nodes into); its own generator so the
    # cases above keep their data.
    trng = np.random.default_rng(SEED + 1)
    tn = lambda *s: trng.standard_normal(s).astype(np.float32)
    for name, a, b, attrs, fn in [
            ("matmul_trans_a", tn(5, 4), tn(5, 6), {"trans_a": 1}, lambda a, b: a.transpose(-1, -2) @ b),
            ("matmul_trans_b_batch", tn(2, 3, 4, 5), tn(3, 6, 5), {"trans_b": 1}, lambda a, b: a @ b.transpose(-1, -2)),
            ("matmul_trans_ab", tn(3, 5, 4), tn(6, 5), {"trans_a": 1, "trans_b": 1},
             lambda a, b: a.transpose(-1, -2) @ b.transpose(-1, -2))]:
        run_case(args.out, single(name, "matmul", [a, b], attrs, lambda a, b, fn=fn: r(fn(a, b))), trng)
    # RMSNorm (what canonicalize-patterns folds the exported spellings into),
    # both epsilon placements; its own generator too.
    qrng = np.random.default_rng(SEED + 2)
    qn = lambda *s: qrng.standard_normal(s).astype(np.float32)
    rms_in = lambda x, axes, eps: x / torch.sqrt(x.pow(2).mean(axes, keepdim=True) + eps)
    rms_out = lambda x, axes, eps: x / (x.pow(2).mean(axes, keepdim=True).sqrt() + eps)
    for name, x, w, attrs, fn in [
            ("rms_norm_last", qn(3, 5, 7), qn(7), {"axis": 2, "epsilon": 1e-3},
             lambda x, w: rms_in(x, (2,), 1e-3) * w),
            ("rms_norm_axis1_eps_outside", qn(3, 5, 7), qn(5, 7), {"axis": 1, "epsilon": 1e-2, "epsilon_outside": 1},
             lambda x, w: rms_out(x, (1, 2), 1e-2) * w)]:
        run_case(args.out, single(name, "rms_norm", [x, w], attrs, lambda x, w, fn=fn: r(fn(x, w))), qrng)
    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(args.out) for f in fs)
    print("wrote %s (%d bytes)" % (args.out, total))


if __name__ == "__main__":
    main()
