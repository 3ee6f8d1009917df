#!/usr/bin/env python3
"""A/B of mgc builds on the reference workloads, in one run on the GPU
machine: each workload is exported once (bench/workloads.py's models and
seeds), then every variant compiles it and times the forward and the AdamW
train step (`mgc run`, GPU and wall medians). A variant is LABEL=MGC_BINARY, or
LABEL=MGC_BINARY:VAR=VALUE,... to run that binary with environment
variables set (MGRT_PIPELINE_STATS=1: the forward's pipeline statistics,
registers per kernel among them, go to OUT/WORKLOAD_LABEL_pipeline_stats.txt).
With --profile, one profiled forward and train step per
variant and workload, summarized by kernel and shape (bench/trace_shapes.py).

Writes OUT/ab.md (GPU / wall ms, one column per variant) and OUT/ab.json.

With --precision fp16|bf16 every variant compiles in that accelerated mode.

Usage: ab.py OUT LABEL=BIN[:ENV] ... [--only a,b] [--steps N] [--profile] [--no-train] [--quick] [--precision P]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402


def parse_variant(spec):
    label, rest = spec.split("=", 1)
    binary, _, env = rest.partition(":")
    extra = dict(kv.split("=", 1) for kv in env.split(",") if kv)
    return label, os.path.abspath(binary), extra


def run(args, env, timeout=900, stderr_to=None):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env})
    if stderr_to:
        with open(stderr_to, "w") as f:
            f.write(p.stderr)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args[:3]), (p.stderr or p.stdout).strip().splitlines()[-1:]))
    return p.stdout


def export(name, work, quick):
    """The workload's files for mgc (workloads.prepare): its -i arguments,
    labels file and loss flags."""
    _, inputs, _, _, _ = W.prepare(name, work, quick)
    ins = []
    for k in inputs:
        ins += ["-i", "%s=%s" % (k, os.path.join(work, "%s_%s.npy" % (name, k)))]
    return ins, os.path.join(work, "%s_labels.npy" % name), W.WORKLOADS[name][3]


def profile(binary, args, env, trace, out):
    """One profiled run of `mgc run ARGS` (after a warm-up), summarized by
    kernel and shape (trace_shapes.py) into OUT."""
    prof = run([binary, "run", *args, "--warmup", "30", "--iterations", "5", "--profile", trace], env)
    shapes = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "trace_shapes.py"), trace, "--top",
                             "30"], capture_output=True, text=True).stdout
    with open(out, "w") as f:
        f.write(prof + "\n" + shapes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--only", default="resnet50,whisper_tiny_encoder,sd_unet,smollm2_135m,smolvla_expert")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--no-train", action="store_true", help="forwards only")
    ap.add_argument("--quick", action="store_true", help="the small models of workloads.py --quick (a smoke test)")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16"], help="mgc compile --precision")
    args = ap.parse_args()
    prec = ["--precision", args.precision]
    work = "/tmp/ab"
    os.makedirs(work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    variants = [parse_variant(v) for v in args.variants]
    rows = []
    for name in args.only.split(","):
        t0 = time.time()
        ins, labels, loss_flags = export(name, work, args.quick)
        row = {"workload": name}
        for label, binary, env in variants:
            fwd, trn = os.path.join(work, "%s_%s.mgb" % (name, label)), os.path.join(work, "%s_%s_train.mgb" % (name, label))
            try:
                run([binary, "compile", os.path.join(work, name + ".onnx"), *prec, "-o", fwd, "-q"], env)
                # Warm-ups long enough (~0.3 s and more) for the GPU to leave
                # the idle clocks the compile left it in: with 10 / 3, the
                # first variant's forward or train step read up to 3.4x slow.
                stats = os.path.join(args.out, "%s_%s_pipeline_stats.txt" % (name, label))
                out = run([binary, "run", fwd, *ins, "--warmup", "100", "--iterations", "30"], env,
                          stderr_to=stats if env.get("MGRT_PIPELINE_STATS") == "1" else None)
                row[label + " fwd wall"], row[label + " fwd"] = W.run_ms(out)
                m = re.search(r"submit call ([0-9.]+) ms", out)
                if m:
                    row[label + " fwd submit"] = float(m.group(1))
                if args.profile:
                    profile(binary, [fwd, *ins], env, os.path.join(work, "%s_%s_fwd_trace.json" % (name, label)),
                            os.path.join(args.out, "%s_%s_fwd_profile.txt" % (name, label)))
                if not args.no_train:
                    rep = os.path.join(work, "%s_%s_train.json" % (name, label))
                    run([binary, "compile", os.path.join(work, name + "_train.onnx"), "--train", *loss_flags, "--optimizer",
                         "adamw", "--lr", "1e-3", *prec, "-o", trn, "--report", rep, "-q"], env)
                    tj = json.load(open(rep))
                    row[label + " dispatches"] = len(tj["dispatches"])
                    targs = [trn, "--entry", "train_step", *ins, "-i", "labels=" + labels]
                    out = run([binary, "run", *targs, "--warmup", "30", "--iterations", str(args.steps)], env)
                    row[label + " train wall"], row[label + " train"] = W.run_ms(out)
                    if args.profile:
                        profile(binary, targs, env, os.path.join(work, "%s_%s_train_trace.json" % (name, label)),
                                os.path.join(args.out, "%s_%s_train_profile.txt" % (name, label)))
            except Exception as e:  # one failure must not hide the other variants
                row[label + " error"] = str(e)[:300]
            for f in (fwd, trn):
                if os.path.exists(f):
                    os.remove(f)
        rows.append(row)
        print(name, "%.0f s" % (time.time() - t0), json.dumps(row), flush=True)
        with open(os.path.join(args.out, "ab.json"), "w") as f:
            json.dump(rows, f, indent=1)
    labels = [v[0] for v in variants]
    lines = ["GPU / wall ms, medians (`mgc run`; train: the AdamW train_step; --precision %s). Device: %s; %s." % (
                 args.precision, torch.cuda.get_device_name() if torch.cuda.is_available() else "?", time.strftime("%Y-%m-%d")), "",
             "| workload | " + " | ".join("%s fwd | %s train (dispatches)" % (l, l) for l in labels) + " |",
             "|---|" + "---|---|" * len(labels)]
    for r in rows:
        cells = []
        for l in labels:
            if l + " error" in r:
                cells += ["error", r[l + " error"][:80]]
            else:
                cells.append("%.3f / %.3f" % (r[l + " fwd"], r[l + " fwd wall"]))
                cells.append("%.2f / %.2f (%d)" % (r[l + " train"], r[l + " train wall"], r[l + " dispatches"])
                             if l + " train" in r else "—")
        lines.append("| %s | %s |" % (r["workload"], " | ".join(cells)))
    with open(os.path.join(args.out, "ab.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
