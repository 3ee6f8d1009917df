#!/usr/bin/env python3
"""Where a profile's time goes, by kernel and shape: reads the Chrome traces
`mgc run --profile` writes and prints one row per (kernel, variant, shape)
with its count, mean GPU µs and TFLOP/s, the most time first. With two
traces of the same model (e.g. strict fp32 and --precision fp16), dispatches
are paired by IR node and each row shows the other trace's kernel and mean
µs for the same nodes.

Usage: trace_shapes.py TRACE.json [OTHER.json] [--top N]
"""
import argparse
import collections
import json


def dispatches(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return [e["args"] for e in events if e.get("ph") == "X"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("other", nargs="?")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    mine = dispatches(args.trace)
    # The other trace's dispatches of each node, in order (a node may lower
    # to several dispatches).
    theirs = collections.defaultdict(list)
    if args.other:
        for d in dispatches(args.other):
            theirs[d["node"]].append(d)
    rows = collections.defaultdict(lambda: {"n": 0, "us": 0.0, "flops": 0, "other_us": 0.0, "other_kernels": set()})
    seen_nodes = set()
    for d in mine:
        r = rows[(d["kernel"], d["variant"], d["shape"])]
        r["n"] += 1
        r["us"] += d["gpu_us"]
        r["flops"] += d["flops"]
        if args.other and d["node"] and d["node"] not in seen_nodes:
            seen_nodes.add(d["node"])
            for o in theirs.get(d["node"], []):
                r["other_us"] += o["gpu_us"]
                r["other_kernels"].add(o["kernel"])
    total = sum(r["us"] for r in rows.values())
    head = "| kernel (variant) | shape | count | mean µs | TFLOP/s | share |"
    if args.other:
        head += " other: kernels | other mean µs |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for (kernel, variant, shape), r in sorted(rows.items(), key=lambda kv: -kv[1]["us"])[: args.top]:
        tf = r["flops"] / (r["us"] * 1e6) if r["us"] > 0 and r["flops"] else 0
        line = "| %s (%s) | %s | %d | %.1f | %s | %.1f%% |" % (
            kernel, variant, shape, r["n"], r["us"] / r["n"], "%.2f" % tf if tf else "-", 100 * r["us"] / total)
        if args.other:
            line += " %s | %.1f |" % (", ".join(sorted(r["other_kernels"])) or "-", r["other_us"] / r["n"])
        print(line)
    print("total %.3f ms over %d dispatches" % (total / 1000, len(mine)))


if __name__ == "__main__":
    main()
