#!/usr/bin/env python3
"""Per-level cost of decode's matrix-vector products, shape by shape.

A decode step is a chain of barrier levels, most of them one `qmatvec`.
This bench builds chains of dependent products in mgc's text IR (mgir),
compiles and runs each with `mgc run` and reports the GPU time per level:

  floor        L tiny products (64 x 64 f16): what a level costs when its
               kernel does almost nothing (the barrier, the launch, one
               round trip to memory); "3 dispatches a level": two more
               products of the same input at each level
  N x K fmt    L products of that shape and format, alternating N x K and
               K x N when N != K so each level feeds the next; every level
               has its own weights (more bytes than the L2 holds), so each
               streams from memory: µs per level and GB/s of its weights

Usage: levels.py OUT MGC [--shapes 4096x4096,11008x4096] [--formats f16,int4,ternary]
         [--levels 16] [--group 64] [--profile]
Writes OUT/levels.md (and with --profile each chain's top kernels).
"""
import argparse
import os
import re
import struct
import subprocess
import sys

FORMATS = {"f16": (1, 16), "int8": (2, 8), "int4": (3, 4), "ternary": (4, 2)}  # (format id, bits)


def product(i, x, n, k, fmt, group):
    """mgir lines of level i: y_i = qmatmul(x, W_i) with W_i [n, k]."""
    fid, bits = FORMATS[fmt]
    words = k * bits // 32
    # Distinct weights per level (no constant merging, no L2 reuse); the
    # word's bytes are all 0x11 * (i % 7 + 1): small fields in every format.
    v = struct.unpack("<i", bytes([0x11 * (i % 7 + 1)] * 4))[0]
    lines = ["  %%w%d = const i32[%d,%d] dense<%d>" % (i, n, words, v)]
    args = "%s, %%w%d" % (x, i)
    if fmt != "f16":
        lines.append("  %%s%d = const f32[%d,%d] dense<%g>" % (i, n, k // group, 0.001 * (1 + i % 5)))
        args += ", %%s%d" % i
    lines.append("  %%y%d = qmatmul(%s) {format = %d, group = %d} : f32[1,1,%d]" % (i, args, fid, group, n))
    return lines, bits * n * k // 8 + (4 * n * k // group if fmt != "f16" else 0)


def chain(name, n, k, fmt, levels, group, side=0):
    """An mgir graph of `levels` dependent products; returns (text, weight bytes).
    side > 0: each level also computes `side` more products of the same
    input (n x k, graph outputs), dispatches that share its level."""
    lines, total, outs = [], 0, []
    for i in range(levels):
        rows, cols = (n, k) if i % 2 == 0 or n == k else (k, n)
        x = "%x" if i == 0 else "%%y%d" % (i - 1)
        l, b = product(i, x, rows, cols, fmt, group)
        lines += l
        total += b
        for j in range(side):
            l, b = product(1000 * (j + 1) + i, x, rows, cols, fmt, group)
            lines += l
            total += b
            outs.append("%%y%d" % (1000 * (j + 1) + i))
    text = "graph @%s(%%x: f32[1,1,%d]) {\n%s\n  return %s\n}\n" % (
        name, k, "\n".join(lines), ", ".join(["%%y%d" % (levels - 1)] + outs))
    return text, total


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args[:3]), (p.stderr or p.stdout).strip()[-600:]))
    return p.stdout


def measure(a, name, text, k):
    import numpy as np
    work = "/tmp/levels"
    os.makedirs(work, exist_ok=True)
    src, bundle, x = (os.path.join(work, name + e) for e in (".mgir", ".mgb", "_x.npy"))
    with open(src, "w") as f:
        f.write(text)
    np.save(x, (np.arange(k, dtype=np.float32).reshape(1, 1, k) % 7 - 3) * 0.01)
    run([a.mgc, "compile", src, "-o", bundle])
    args = [a.mgc, "run", bundle, "-i", "x=" + x, "--warmup", "50", "--iterations", "200"]
    m = re.search(r"run: ([0-9.]+) ms wall, ([0-9.-]+) ms GPU", run(args))
    prof = None
    if a.profile:
        prof = run(args[:-4] + ["--warmup", "20", "--iterations", "20", "--profile", os.path.join(work, name + ".json")])
    os.remove(bundle)
    return float(m.group(2)), prof


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("mgc")
    ap.add_argument("--shapes", default="4096x4096,11008x4096,32000x4096,576x576,1536x576")
    ap.add_argument("--formats", default="f16,int4,ternary")
    ap.add_argument("--levels", type=int, default=16)
    ap.add_argument("--group", type=int, default=64)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    text, _ = chain("floor", 64, 64, "f16", a.levels, a.group)
    gpu, prof = measure(a, "floor", text, 64)
    rows.append("| floor: 64 x 64 f16 | %d | %.3f | %.2f | | |" % (a.levels, gpu, gpu * 1e3 / a.levels))
    print(rows[-1], flush=True)
    text, _ = chain("floor3", 64, 64, "f16", a.levels, a.group, side=2)
    gpu, _ = measure(a, "floor3", text, 64)
    rows.append("| floor, 3 dispatches a level | %d | %.3f | %.2f | | |" % (a.levels, gpu, gpu * 1e3 / a.levels))
    print(rows[-1], flush=True)
    profiles = []
    for shape in a.shapes.split(","):
        n, k = map(int, shape.split("x"))
        for fmt in a.formats.split(","):
            name = "%s_%s" % (shape, fmt)
            text, nbytes = chain("c" + name.replace("x", "_"), n, k, fmt, a.levels, a.group)
            gpu, prof = measure(a, name, text, k)
            per = gpu * 1e3 / a.levels
            rows.append("| %s %s | %d | %.3f | %.2f | %.2f | %.0f |" %
                        (shape, fmt, a.levels, gpu, per, nbytes / a.levels / 1e6, nbytes / (gpu * 1e-3) / 1e9))
            print(rows[-1], flush=True)
            if prof:
                profiles.append("### %s\n```\n%s```\n" % (name, prof))
    md = ("Chains of dependent decode products (`bench/levels.py`), GPU time of the whole chain (median of 200 "
          "`mgc run`s), group %d.\n\n| chain | levels | GPU ms | µs / level | MB / level | GB/s |\n|---|---|---|---|---|---|\n"
          % a.group) + "\n".join(rows) + "\n\n" + "\n".join(profiles)
    with open(os.path.join(a.out, "levels.md"), "w") as f:
        f.write(md)


if __name__ == "__main__":
    sys.exit(main())
