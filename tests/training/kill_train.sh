#!/bin/bash
# Training loses no data (issue 13, part 3), in separate processes:
#  1. `mgc train --checkpoint` is killed with SIGKILL at random moments
#     (seeded), during steps and during checkpoint writes, again and again,
#     each run resuming from what the previous one left. After every kill
#     the checkpoint on disk is the last completed save (the epoch the run
#     had reached, or the one before when the kill fell inside that save),
#     never older than before; each next run resumes from it, and a chain
#     of such runs ends with a checkpoint bit-identical to the uninterrupted
#     run's (so every resume was bit-exact). Stale ck.safetensors.tmp.<pid> files of
#     killed writers are gone after the next save.
#  2. A full disk (RLIMIT_FSIZE below the checkpoint's size): the save fails
#     with a clear error, the previous checkpoint stays byte-identical and
#     no temporary is left.
# usage: kill_train.sh BUILD_DIR [KILLS=30] [SEED=1]   (from the repository root)
# With MGC_TEST_SHORT set (tools/ci_sanitize.sh) at most 8 kills: a killed
# process reports nothing to a sanitizer, the saves and resumes do.
set -eu
MGC="$1/mgc"
KILLS=${2:-30}
[ -n "${MGC_TEST_SHORT:-}" ] && [ "$KILLS" -gt 8 ] && KILLS=8
RANDOM=${3:-1}
F=tests/training/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
EPOCHS=8      # 20 steps per epoch (160 samples, batch 8): a save every ~0.2 s on lavapipe
PER_EPOCH=20
DATA="--data x=$F/mlp_x.npy --data labels=$F/mlp_labels.npy --seed 3 --epochs $EPOCHS"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$MGC" compile $F/mlp.onnx --train --optimizer adamw --lr 1e-2 -q -o "$T/t.mgb"
"$MGC" train "$T/t.mgb" $DATA -q --log "$T/ref.csv" --checkpoint "$T/ref.safetensors" > /dev/null

# opt.step of a checkpoint (f32 scalar), or -1 when the file does not parse.
step_of() {
  /usr/bin/python3 - "$1" <<'PY'
import json, struct, sys
try:
    b = open(sys.argv[1], 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    h = json.loads(b[8:8 + n])
    a, e = h['opt.step']['data_offsets']
    print(int(struct.unpack('<f', b[8 + n + a:8 + n + e])[0]))
except Exception:
    print(-1)
PY
}

CK=$T/ck.safetensors
prev=0 in_save=0 stale_seen=0 chains=0 resumes=0
for ((i = 1; i <= KILLS; i++)); do
  resume=""
  [ -f "$CK" ] && resume="--resume"
  # stdout line-buffered: "training ..." appears once the bundle is loaded
  # (and a --resume checkpoint read), and the kill is timed from there.
  # Progress lines go to stderr unbuffered: "epoch k/N step 20/20" is
  # printed just before epoch k's checkpoint is saved.
  rm -f "$T/out.txt"
  stdbuf -oL "$MGC" train "$T/t.mgb" $DATA --checkpoint "$CK" $resume > "$T/out.txt" 2> "$T/progress.txt" &
  pid=$!
  while kill -0 $pid 2> /dev/null && ! grep -q '^training' "$T/out.txt"; do sleep 0.01; done
  sleep "$(printf '0.%03d' $((RANDOM % 500)))"
  kill -9 $pid 2> /dev/null || true
  status=0
  wait $pid 2> /dev/null || status=$?
  # Killed (137), or finished first (0); anything else: it failed on its own,
  # e.g. a checkpoint left by the previous kill that does not load.
  [ $status -eq 137 ] || [ $status -eq 0 ] || fail "kill $i: mgc train exited $status: $(cat "$T/progress.txt")"
  [ -n "$resume" ] && resumes=$((resumes + 1))
  reached=$( (grep -o "epoch [0-9]*/$EPOCHS  step $PER_EPOCH/$PER_EPOCH" "$T/progress.txt" || true) | tail -1 |
    sed 's/epoch \([0-9]*\)\/.*/\1/')
  reached=${reached:-0}
  ls "$CK".tmp.* > /dev/null 2>&1 && stale_seen=$((stale_seen + 1))
  if [ ! -f "$CK" ]; then
    [ "$reached" -le 1 ] || fail "kill $i: no checkpoint although epoch $reached was reached"
    continue
  fi
  s=$(step_of "$CK")
  [ "$s" -ge 0 ] || fail "kill $i: the checkpoint does not parse"
  [ $((s % PER_EPOCH)) -eq 0 ] || fail "kill $i: checkpoint at step $s, not at an epoch end"
  [ "$s" -ge "$prev" ] || fail "kill $i: checkpoint went back from step $prev to $s"
  saved=$((s / PER_EPOCH))
  # The last completed save: the epoch the run reached, or the one before
  # when the kill fell between the progress line and the save's rename.
  if [ "$reached" -gt 0 ]; then
    [ "$saved" -le "$reached" ] || fail "kill $i: saved epoch $saved but the run reached $reached"
    [ "$saved" -ge $((reached - 1)) ] ||
      fail "kill $i: the run reached epoch $reached but the checkpoint holds epoch $saved (a save was lost)"
    [ "$saved" -eq $((reached - 1)) ] && in_save=$((in_save + 1))
  elif [ "$saved" -ne "$((prev / PER_EPOCH))" ]; then
    fail "kill $i: the checkpoint moved to epoch $saved although no epoch ended"
  fi
  prev=$s
  if [ "$s" -ge $((EPOCHS * PER_EPOCH)) ]; then
    # A chain of resumed runs, each from a killed run's checkpoint, ends
    # bit-identical to the uninterrupted run.
    cmp -s "$CK" "$T/ref.safetensors" || fail "kill $i: the finished checkpoint differs from the uninterrupted run's"
    if ls "$CK".tmp.* > /dev/null 2>&1; then fail "stale temporaries remain: $(ls "$CK".tmp.*)"; fi
    rm -f "$CK"  # the next chain starts from scratch
    prev=0 chains=$((chains + 1))
  fi
done

# Finish the last chain: the result equals the uninterrupted run, and the
# saves removed every temporary the killed writers left.
if [ -f "$CK" ]; then
  "$MGC" train "$T/t.mgb" $DATA -q --checkpoint "$CK" --resume > /dev/null
else
  "$MGC" train "$T/t.mgb" $DATA -q --checkpoint "$CK" > /dev/null
fi
cmp -s "$CK" "$T/ref.safetensors" || fail "the final checkpoint differs from the uninterrupted run's"
if ls "$CK".tmp.* > /dev/null 2>&1; then fail "stale temporaries remain: $(ls "$CK".tmp.*)"; fi

# Full disk: a checkpoint of ~6 KB under a 4 KiB file-size limit. SIGXFSZ
# ignored, so write() fails with EFBIG as it would with ENOSPC.
"$MGC" train "$T/t.mgb" $DATA -q --checkpoint "$T/full.safetensors" --steps $PER_EPOCH > /dev/null
cp "$T/full.safetensors" "$T/before.safetensors"
[ "$(stat -c %s "$T/full.safetensors")" -gt 4096 ] || fail "the checkpoint is too small for the size limit"
status=0
(trap '' XFSZ; ulimit -f 4; exec "$MGC" train "$T/t.mgb" $DATA -q --checkpoint "$T/full.safetensors" --resume \
  > /dev/null 2> "$T/full_err.txt") || status=$?
[ $status -eq 4 ] || fail "a save past the file-size limit exited $status, not 4 (I/O error)"
grep -q "checkpoint: saving state: cannot write '.*full.safetensors.tmp.[0-9]*': File too large" "$T/full_err.txt" ||
  fail "unclear error on a full disk: $(cat "$T/full_err.txt")"
cmp -s "$T/full.safetensors" "$T/before.safetensors" || fail "the previous checkpoint changed on a full disk"
if ls "$T"/full.safetensors.tmp.* > /dev/null 2>&1; then fail "a full disk left a temporary"; fi

echo "kill_train: ok: $KILLS kills ($resumes of resumed runs, $in_save inside a save, $stale_seen left a" \
  "temporary), $chains chains + the last ended bit-identical to the uninterrupted run"
