#!/bin/bash
# `--profile` end to end: mgc run and mgc train write a trace that parses as
# Chrome trace-event JSON with one slice per dispatch (end >= start, in
# order), each naming a kernel the bundle holds, with the compile-time
# estimates; the top-kernels table is printed. Validation layer on.
# usage: cli_profile.sh BUILD_DIR   (from the repository root)
set -eu
MGC="$1/mgc"
F=tests/training/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MGRT_VALIDATION=1

# check TRACE BUNDLE STDOUT ENTRY: the trace against `mgc inspect BUNDLE`
# (entry point ENTRY) and the printed table.
check() {
  "$MGC" inspect "$2" > "$T/inspect.txt"
  /usr/bin/python3 - "$1" "$T/inspect.txt" "$3" "$4" <<'PY'
import json, re, sys
trace = json.load(open(sys.argv[1]))
inspect = open(sys.argv[2]).read()
out = open(sys.argv[3]).read()
kernels = set(re.findall(r"^  (\w+) +\d+ bindings", inspect, re.M))
dispatches = int(re.search(r"entry point '%s': (\d+) dispatches" % sys.argv[4], inspect).group(1))
slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
assert len(slices) == dispatches, f"{len(slices)} slices, bundle has {dispatches} dispatches"
end = 0.0
for i, e in enumerate(slices):
    a = e["args"]
    assert a["index"] == i and a["kernel"] in kernels, (a, kernels)
    assert e["name"] == a["node"] and e["cat"] == a["kernel"] and a["variant"]
    assert e["dur"] >= 0 and e["ts"] >= end - 1e-3, ("slices out of order", e)
    assert re.fullmatch(r"\w+\[[\d,]*\]", a["shape"]), a["shape"]
    assert a["bytes"] > 0, a
    if a["kernel"] in ("matmul", "matmul_sliced", "conv2d", "conv2d_sliced"):
        assert a["flops"] > 0, a
    end = e["ts"] + e["dur"]
assert f"{dispatches} dispatches" in out and "kernel (variant)" in out, out
PY
}

"$MGC" compile examples/cnn.onnx -o "$T/cnn.mgb" -q
"$MGC" run "$T/cnn.mgb" --input x=examples/cnn_input.npy --profile "$T/run.json" --validation > "$T/run.txt"
check "$T/run.json" "$T/cnn.mgb" "$T/run.txt" infer
# cnn.onnx's two convs: one on the plain core (K 9), one on the sliced core (K 72, its 512-thread variant).
grep -q "^conv2d (portable) *1 " "$T/run.txt" && grep -q "^conv2d_sliced (x2) *1 " "$T/run.txt" ||
  { echo "FAIL: no conv2d / conv2d_sliced rows: $(cat "$T/run.txt")" >&2; exit 1; }

"$MGC" compile $F/mlp.onnx --train -q -o "$T/t.mgb"
"$MGC" train "$T/t.mgb" --data x=$F/mlp_x.npy --data labels=$F/mlp_labels.npy --no-shuffle -q --steps 2 \
  --profile "$T/train.json" > "$T/train.txt"
check "$T/train.json" "$T/t.mgb" "$T/train.txt" train_step

# A trace that cannot be written: an error naming the file, exit 4.
rc=0
"$MGC" run "$T/cnn.mgb" --input x=examples/cnn_input.npy --profile "$T/no/such/dir/t.json" 2> "$T/err.txt" > /dev/null || rc=$?
[ $rc -eq 4 ] || { echo "FAIL: an unwritable trace path gave exit $rc, not 4" >&2; exit 1; }
grep -q "no/such/dir/t.json: cannot write the trace" "$T/err.txt" || { echo "FAIL: unclear error: $(cat "$T/err.txt")" >&2; exit 1; }
echo "cli_profile: ok"
