#!/usr/bin/env python3
"""The benchmark of record: the five reference workloads, mgc against PyTorch
on the same GPU in the same run (run it on the GPU machine: bench/workloads.sh).

For each workload (full size, random weights, fixed seeds):
  PyTorch: eager forward, torch.compile forward (and its compile time), the
           eager AdamW train step; strict fp32 (TF32 off); medians.
  mgc:     compile time, forward (GPU and wall medians), the AdamW train step
           (`mgc run --entry train_step`), the forward's error against PyTorch.
Writes OUT/workloads.md (one table, ratios from this run) and
OUT/workloads.json. Model definitions: tools/workload_models.py.

--precision fp16|bf16: the accelerated mode against PyTorch autocast to that
type (GradScaler for fp16 training); mgc compiles with `--precision P`. The
error column is then against PyTorch's strict fp32 output.

Usage: workloads.py OUT MGC [--only a,b] [--no-compile] [--steps N] [--precision fp32|fp16|bf16]
"""
import contextlib
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from workload_models import ActionExpert, SmolLM, UNet, WhisperEncoder  # noqa: E402


def resnet50():
    import torchvision
    return torchvision.models.resnet50(weights=None)


# name -> (model, {input: shape or ("ids", shape, vocab)}, (target shape, classes or None), mgc loss flags, description)
WORKLOADS = {
    "resnet50": (resnet50, {"x": (4, 3, 224, 224)}, ((4,), 1000), ["--loss", "cross_entropy"],
                 "ResNet-50, batch 4, 224²"),
    "whisper_tiny_encoder": (lambda: WhisperEncoder(mels=80, d=384, heads=6, layers=4, frames=3000),
                             {"mel": (1, 80, 3000)}, ((1, 1500, 384), None), ["--loss", "mse"],
                             "Whisper-tiny encoder (4 layers, d 384, 6 heads), 1×80×3000 mel"),
    "sd_unet": (lambda: UNet("nearest", channels=(64, 128, 256), attn_levels=(2,), groups=8, heads=4),
                {"x": (1, 4, 64, 64)}, ((1, 4, 64, 64), None), ["--loss", "mse"],
                "SD-style U-Net (64/128/256, GroupNorm 8, SiLU, attention at 16² and mid, nearest 2×), 1×4×64²"),
    "smollm2_135m": (lambda: SmolLM(False, vocab=49152, d=576, heads=9, kv_heads=3, ff=1536, layers=30),
                     {"input_ids": ("ids", (1, 128), 49152)}, ((1, 128), 49152),
                     ["--loss", "cross_entropy", "--class-axis", "-1"],
                     "SmolLM2-135M (30 layers, d 576, GQA 9/3, SwiGLU, tied), 1×128 tokens"),
    "smolvla_expert": (lambda: ActionExpert(action_dim=32, d=720, heads=12, kv_heads=4, ff=2048, layers=16),
                       {"actions": (1, 50, 32), "context": (1, 64, 720)}, ((1, 50, 32), None), ["--loss", "mse"],
                       "SmolVLA-style action expert (16 layers, d 720, GQA 12/4), 50 actions"),
}


DEV = "cuda" if torch.cuda.is_available() else "cpu"
QUICK = False  # --quick: one untimed-warmup-free run of everything (a smoke test off the GPU machine)


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


# --quick also shrinks the models (the same code paths, seconds on a CPU).
SMALL = {
    "resnet50": (lambda: __import__("workload_models").ResNet(), {"x": (4, 3, 16, 16)}, ((4,), 10)),
    "whisper_tiny_encoder": (lambda: WhisperEncoder(), {"mel": (2, 8, 32)}, ((2, 16, 32), None)),
    "sd_unet": (lambda: UNet("nearest"), {"x": (2, 4, 16, 16)}, ((2, 4, 16, 16), None)),
    "smollm2_135m": (lambda: SmolLM(False), {"input_ids": ("ids", (2, 16), 96)}, ((2, 16), 96)),
    "smolvla_expert": (lambda: ActionExpert(), {"actions": (2, 10, 6), "context": (2, 8, 32)}, ((2, 10, 6), None)),
}


def median_ms(fn, warmup, iters):
    if QUICK:
        warmup, iters = 0, 1
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(iters):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def make_inputs(spec, gen):
    out = {}
    for name, s in spec.items():
        if s[0] == "ids":
            out[name] = torch.randint(0, s[2], s[1], generator=gen)
        else:
            out[name] = torch.randn(*s, generator=gen)
    return out


def export(model, inputs, path, training):
    kw = {"dynamo": False} if int(torch.__version__.split(".")[0]) >= 2 else {}
    torch.onnx.export(model, tuple(inputs.values()), path, input_names=list(inputs), output_names=["y"],
                      opset_version=17, do_constant_folding=not training,
                      training=torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL, **kw)


def mgc(args, timeout=900):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args[:3]), (p.stderr or p.stdout).strip().splitlines()[-1:]))
    return p.stdout


def run_ms(out):
    m = re.search(r"run: ([0-9.]+) ms wall, ([0-9.-]+) ms GPU", out)
    return float(m.group(1)), float(m.group(2))


def profile(mgc_bin, bundle, args, trace, table):
    """One profiled run (GPU timestamps): the per-kernel table mgc prints goes to `table`."""
    out = mgc([mgc_bin, "run", bundle, *args, "--warmup", "3", "--iterations", "5", "--profile", trace])
    with open(table, "w") as f:
        f.write(out)


def prepare(name, work, small=False):
    """Workload `name` (SMALL's shapes when `small`), seeded: the model, its
    inputs and target, also saved for mgc (WORK/<name>_<input>.npy,
    <name>_labels.npy), and its ONNX exports (WORK/<name>.onnx for
    inference, <name>_train.onnx for training). Returns (model, inputs,
    target, classes, export seconds)."""
    make, in_spec, (tshape, classes), _, _ = WORKLOADS[name]
    if small:
        make, in_spec, (tshape, classes) = SMALL[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = make().float()
    inputs = make_inputs(in_spec, gen)
    target = torch.randint(0, classes, tshape, generator=gen) if classes else torch.randn(*tshape, generator=gen)
    for k, v in inputs.items():
        np.save(os.path.join(work, "%s_%s.npy" % (name, k)), v.numpy())
    np.save(os.path.join(work, "%s_labels.npy" % name), target.numpy())
    t0 = time.time()
    # Export copies: tracing in train mode updates BatchNorm running statistics.
    export(copy.deepcopy(model).eval(), inputs, os.path.join(work, name + ".onnx"), False)
    export(copy.deepcopy(model).train(), inputs, os.path.join(work, name + "_train.onnx"), True)
    return model, inputs, target, classes, time.time() - t0


def bench_mgc(name, work, mgc_bin, steps, prof=None, precision="fp32"):
    """The workload's mgc half: export, compile, forward and train step.
    Runs before PyTorch touches the GPU (main), so that mgc's wall times are
    taken with no other process holding it. Returns (row, what bench_torch
    needs)."""
    loss_flags, desc = WORKLOADS[name][3], WORKLOADS[name][4]
    model, inputs, target, classes, export_s = prepare(name, work, QUICK)
    r = {"workload": name, "desc": desc, "params": sum(p.numel() for p in model.parameters()),
         "export_s": round(export_s, 1)}

    ins = []
    for k in inputs:
        ins += ["-i", "%s=%s" % (k, os.path.join(work, "%s_%s.npy" % (name, k)))]
    fwd = os.path.join(work, name + ".mgb")
    rep = os.path.join(work, name + ".json")
    prec = ["--precision", precision]
    mgc([mgc_bin, "compile", os.path.join(work, name + ".onnx"), "-o", fwd, "--report", rep, "-q", *prec])
    j = json.load(open(rep))
    r["mgc_compile_ms"] = round(j["total_ms"], 1)
    r["mgc_dispatches"], r["mgc_barriers"] = len(j["dispatches"]), j["barriers"]
    outdir = os.path.join(work, name + ".out")
    # Warm-ups of ~0.3 s and more: the compile leaves the GPU at idle clocks (bench/ab.py).
    out = mgc([mgc_bin, "run", fwd, *ins, "--output-dir", outdir, *(["--iterations", "1"] if QUICK else ["--warmup", "100", "--iterations", "50"])])
    r["mgc_wall_ms"], r["mgc_gpu_ms"] = run_ms(out)
    if prof:
        profile(mgc_bin, fwd, ins, os.path.join(work, name + "_fwd_trace.json"), os.path.join(prof, name + "_fwd_profile.txt"))
    trn = os.path.join(work, name + "_train.mgb")
    trep = os.path.join(work, name + "_train.json")
    mgc([mgc_bin, "compile", os.path.join(work, name + "_train.onnx"), "--train", *loss_flags, "--optimizer", "adamw",
         "--lr", "1e-3", "-o", trn, "--report", trep, "-q", *prec])
    tj = json.load(open(trep))
    r["mgc_train_compile_ms"] = round(tj["total_ms"], 1)
    r["mgc_train_dispatches"] = len(tj["dispatches"])
    out = mgc([mgc_bin, "run", trn, "--entry", "train_step", *ins, "-i",
               "labels=%s" % os.path.join(work, "%s_labels.npy" % name), *(["--iterations", "1"] if QUICK else ["--warmup", "30", "--iterations", str(steps)])])
    r["mgc_train_wall_ms"], r["mgc_train_gpu_ms"] = run_ms(out)
    if prof:
        profile(mgc_bin, trn, ["--entry", "train_step", *ins, "-i", "labels=%s" % os.path.join(work, "%s_labels.npy" % name)],
                os.path.join(work, name + "_train_trace.json"), os.path.join(prof, name + "_train_profile.txt"))
    return r, (model, inputs, target, classes)


def bench_torch(r, prepared, work, do_compile, steps, precision="fp32"):
    """The workload's PyTorch half (eager, torch.compile, the AdamW train
    step) and the error of mgc's forward output against PyTorch strict fp32."""
    name = r["workload"]
    loss_flags = WORKLOADS[name][3]
    model, inputs, target, classes = prepared
    dev = torch.device(DEV)
    gm = model.to(dev)
    gin = {k: v.to(dev) for k, v in inputs.items()}
    gt = target.to(dev)
    gm.eval()
    amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)

    def amp():
        return torch.autocast(DEV, dtype=amp_dtype) if amp_dtype else contextlib.nullcontext()
    with torch.no_grad():
        ref = gm(*gin.values()).float().cpu().numpy()  # strict fp32: the error column's reference
    with torch.no_grad(), amp():
        r["torch_eager_ms"] = median_ms(lambda: gm(*gin.values()), 10, 50)
        if do_compile:
            cm = torch.compile(gm)
            t0 = time.time()
            cm(*gin.values())
            sync()
            r["torch_compile_s"] = round(time.time() - t0, 1)
            r["torch_compiled_ms"] = median_ms(lambda: cm(*gin.values()), 10, 50)
    gm.train()
    opt = torch.optim.AdamW(gm.parameters(), lr=1e-3)
    cls_last = "--class-axis" in loss_flags
    scaler = torch.cuda.amp.GradScaler() if precision == "fp16" and DEV == "cuda" else None

    def step():
        opt.zero_grad(set_to_none=True)
        with amp():
            out = gm(*gin.values())
            if classes:
                loss = F.cross_entropy(out.movedim(-1, 1) if cls_last else out, gt)
            else:
                loss = F.mse_loss(out, gt)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss
    r["torch_train_ms"] = median_ms(step, 3, steps)
    del opt
    gm.cpu()
    if DEV == "cuda":
        torch.cuda.empty_cache()

    y = np.load(os.path.join(work, name + ".out", "y.npy"))
    r["max_err"] = float(np.abs(y - ref).max() / max(1e-12, np.abs(ref).max()))
    return r


def launch_probe(n=20000):
    """Microseconds per tiny eager op (an in-place add on a 64x64 tensor),
    the best of 3 rounds: PyTorch's eager times follow the host CPU's
    launch speed, which varies between GPU machines (2026-12-06: ~10 µs on
    a host where eager ResNet-50 ran 1.5x slower than in earlier sittings)."""
    x = torch.zeros(64, 64, device=DEV)
    best = 1e30
    for _ in range(3):
        sync()
        t0 = time.perf_counter()
        for _ in range(n):
            x.add_(1)
        sync()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def table(rows, device, commit, precision="fp32", launch_us=None):
    mode = ("strict fp32 (TF32 off)" if precision == "fp32" else
            "accelerated mode: mgc --precision %s vs PyTorch autocast %s; error vs PyTorch fp32" % (precision, precision))
    lines = ["Device: %s; commit %s; %s; PyTorch %s, %s; medians; "
             "ratios are mgc wall / PyTorch from this run (< 1: mgc faster)." % (
                 device, commit, time.strftime("%Y-%m-%d"), torch.__version__, mode)]
    if launch_us is not None:
        lines.append("PyTorch eager launch: %.1f µs per tiny op (bench/workloads.py launch_probe: the host's "
                     "speed, which PyTorch's eager times follow; compare it between sittings)." % launch_us)
    lines += ["",
              "| workload | params | fwd: PyTorch eager | torch.compile | mgc GPU / wall | **mgc / best PyTorch** | "
              "train step: PyTorch eager | mgc GPU / wall | **mgc / PyTorch** | mgc compile (fwd / train) | "
              "dispatches (fwd / train) | max rel err |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append("| %s | | %s |" % (r["desc"], r["error"]))
            continue
        best = min(r["torch_eager_ms"], r.get("torch_compiled_ms", 1e30))
        comp = "%.3f ms (%.0f s)" % (r["torch_compiled_ms"], r["torch_compile_s"]) if "torch_compiled_ms" in r else "—"
        if "mgc_train_gpu_ms" not in r:  # fp16: no mgc train step
            lines.append("| %s | %.1fM | %.3f ms | %s | %.3f / %.3f ms | **%.2f×** | %.2f ms | — | — | %.0f / — ms | "
                         "%d / — | %.1e |" % (
                             r["desc"], r["params"] / 1e6, r["torch_eager_ms"], comp, r["mgc_gpu_ms"], r["mgc_wall_ms"],
                             r["mgc_wall_ms"] / best, r["torch_train_ms"], r["mgc_compile_ms"], r["mgc_dispatches"],
                             r["max_err"]))
            continue
        lines.append("| %s | %.1fM | %.3f ms | %s | %.3f / %.3f ms | **%.2f×** | %.2f ms | %.2f / %.2f ms | **%.2f×** | "
                     "%.0f / %.0f ms | %d / %d | %.1e |" % (
                         r["desc"], r["params"] / 1e6, r["torch_eager_ms"], comp, r["mgc_gpu_ms"], r["mgc_wall_ms"],
                         r["mgc_wall_ms"] / best, r["torch_train_ms"], r["mgc_train_gpu_ms"], r["mgc_train_wall_ms"],
                         r["mgc_train_wall_ms"] / r["torch_train_ms"], r["mgc_compile_ms"], r["mgc_train_compile_ms"],
                         r["mgc_dispatches"], r["mgc_train_dispatches"], r["max_err"]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("mgc")
    ap.add_argument("--only")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--commit", default="?")
    ap.add_argument("--profile", action="store_true",
                    help="also one profiled run of each bundle: OUT/<name>_{fwd,train}_profile.txt (top kernels)")
    ap.add_argument("--quick", action="store_true", help="one run of each measurement (smoke test)")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16"],
                    help="fp16 / bf16: mgc's accelerated mode against PyTorch autocast")
    args = ap.parse_args()
    global QUICK
    QUICK = args.quick
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    work = "/tmp/workloads"
    os.makedirs(work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    suffix = "" if args.precision == "fp32" else "_" + args.precision
    rows, prepared = [], {}
    names = args.only.split(",") if args.only else list(WORKLOADS)
    # Two phases: every mgc measurement first, then PyTorch's (its CUDA
    # context lives until the process ends).
    for name in names:
        t0 = time.time()
        try:
            row, prepared[name] = bench_mgc(name, work, args.mgc, args.steps, args.out if args.profile else None,
                                            args.precision)
            rows.append(row)
        except Exception as e:  # one failure must not hide the other workloads
            rows.append({"workload": name, "desc": WORKLOADS[name][4], "error": str(e)[:300]})
        print(name, "mgc %.0f s" % (time.time() - t0), json.dumps(rows[-1]), flush=True)
    launch_us = launch_probe(200 if QUICK else 20000)
    print("PyTorch eager launch: %.1f us per tiny op" % launch_us, flush=True)
    for i, name in enumerate(names):
        if name not in prepared:
            continue
        t0 = time.time()
        try:
            bench_torch(rows[i], prepared.pop(name), work, not args.no_compile, args.steps, args.precision)
        except Exception as e:
            rows[i]["error"] = "PyTorch: " + str(e)[:300]
        print(name, "PyTorch %.0f s" % (time.time() - t0), json.dumps(rows[i]), flush=True)
        with open(os.path.join(args.out, "workloads%s.json" % suffix), "w") as f:
            json.dump(rows, f, indent=1)
    with open(os.path.join(args.out, "workloads%s.md" % suffix), "w") as f:
        f.write(table(rows, torch.cuda.get_device_name() if DEV == "cuda" else "CPU (PyTorch) + default Vulkan device",
                      args.commit, args.precision, launch_us))
    print(open(os.path.join(args.out, "workloads%s.md" % suffix)).read())


if __name__ == "__main__":
    main()
