#!/usr/bin/env python3
"""Compile time of the five reference workloads (issue 9, part 4: <= 1 s).

Exports each workload at full size (the models and shapes of
bench/workloads.py: random weights, fixed seeds; EVAL export for the forward,
TRAINING export for the train step) with the local PyTorch, then times
`mgc compile` of both, several runs each, and reads the phase times from
`--report`. Writes OUT/compile_time.md (median total per model and the
phases of that run that take >= 5% of it) and OUT/compile_time.json.
Needs no GPU: compilation is host work.

Usage: compile_time.py OUT MGC [--only a,b] [--runs N] [--commit C] [--work DIR]
"""
import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import WORKLOADS, export, make_inputs  # noqa: E402


def export_once(name, work):
    """The workload's forward and train ONNX files (reused when present)."""
    fwd, trn = os.path.join(work, name + ".onnx"), os.path.join(work, name + "_train.onnx")
    if os.path.exists(fwd) and os.path.exists(trn):
        return fwd, trn
    make, in_spec, _, _, _ = WORKLOADS[name]
    torch.manual_seed(0)
    model = make().float()
    inputs = make_inputs(in_spec, torch.Generator().manual_seed(1))
    export(copy.deepcopy(model).eval(), inputs, fwd, False)
    export(copy.deepcopy(model).train(), inputs, trn, True)
    return fwd, trn


def compile_runs(mgc, args, report, runs):
    """Median-total run's report of `runs` compiles."""
    reports = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([mgc, "compile", *args, "--report", report, "-q"], capture_output=True, text=True)
        wall = (time.perf_counter() - t0) * 1e3
        if p.returncode != 0:
            raise RuntimeError("mgc compile failed: %s" % (p.stderr or p.stdout).strip().splitlines()[-1:])
        reports.append(dict(json.load(open(report)), wall_ms=wall))
    reports.sort(key=lambda r: r["total_ms"])
    return reports[len(reports) // 2], [r["total_ms"] for r in reports]


def phases_text(report):
    """Phases of >= 5% of the total, largest first, same-named phases summed."""
    total = report["total_ms"]
    sums = {}
    for ph in report.get("phases", []):
        sums[ph["name"]] = sums.get(ph["name"], 0.0) + ph["ms"]
    big = sorted(((ms, n) for n, ms in sums.items() if ms >= 0.05 * total), reverse=True)
    return ", ".join("%s %.0f" % (n, ms) for ms, n in big)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("mgc")
    ap.add_argument("--only")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--commit", default="?")
    ap.add_argument("--work", default="/tmp/compile_time")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name in (a.only.split(",") if a.only else WORKLOADS):
        _, _, _, loss_flags, desc = WORKLOADS[name]
        fwd, trn = export_once(name, a.work)
        row = {"workload": name, "desc": desc, "onnx_mb": os.path.getsize(fwd) / 1e6}
        for kind, args in (("forward", [fwd, "-o", os.path.join(a.work, name + ".mgb")]),
                           ("train", [trn, "--train", *loss_flags, "--optimizer", "adamw", "--lr", "1e-3",
                                      "-o", os.path.join(a.work, name + "_train.mgb")])):
            rep, totals = compile_runs(a.mgc, args, os.path.join(a.work, "%s_%s.json" % (name, kind)), a.runs)
            row[kind] = {"median_ms": rep["total_ms"], "wall_ms": rep["wall_ms"], "all_ms": totals,
                         "phases": phases_text(rep)}
        rows.append(row)
        print(name, json.dumps(row), flush=True)
    lines = ["Host: %s, %d cores; commit %s; %s; `bench/compile_time.py` (%d runs each, median)." % (
        platform.processor() or platform.machine(), os.cpu_count(), a.commit, time.strftime("%Y-%m-%d"), a.runs), "",
             "| workload | ONNX | forward compile (process wall) | its phases >= 5% (ms) | train compile (process wall) "
             "| its phases >= 5% (ms) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        f, t = r["forward"], r["train"]
        lines.append("| %s | %.0f MB | %.0f ms (%.0f) | %s | %.0f ms (%.0f) | %s |" % (
            r["desc"], r["onnx_mb"], f["median_ms"], f["wall_ms"], f["phases"], t["median_ms"], t["wall_ms"],
            t["phases"]))
    with open(os.path.join(a.out, "compile_time.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "compile_time.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
