#!/usr/bin/env bash
# `mgc run`'s pipeline cache (docs/cli.md): the default folder under
# $XDG_CACHE_HOME, --pipeline-cache DIR, --no-pipeline-cache, and a damaged
# cache file (a warning, the run still succeeds, the file is rewritten).
# Usage: tests/compiler/cli/run_pipeline_cache.sh BUILD_DIR (from the repository root).
set -euo pipefail
MGC=$1/mgc
TMP=$1/tests/compiler/cli/pipeline-cache
rm -rf "$TMP" && mkdir -p "$TMP"
fail() { echo "run_pipeline_cache: FAILED: $*" >&2; exit 1; }
"$MGC" compile examples/c_app/model.mgir -o "$TMP/model.mgb" -q
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/x.npy', np.zeros((2, 4), np.float32))"

# state RUN_ARGS...: what the load line says the cache did.
state() { "$MGC" run "$TMP/model.mgb" --input "x=$TMP/x.npy" "$@" 2>"$TMP/stderr" |
  sed -n 's/^load: [0-9.]* ms (model + session; pipeline cache: \([a-z]*\))$/\1/p'; }

# The default folder: $XDG_CACHE_HOME/mgc, one file per device.
export XDG_CACHE_HOME=$TMP/xdg
[[ $(state) == empty ]] || fail "first run: $(state)"
files=("$TMP"/xdg/mgc/*.mgpc)
[[ ${#files[@]} == 1 && -s ${files[0]} ]] || fail "no cache file in \$XDG_CACHE_HOME/mgc"
[[ $(state) == loaded ]] || fail "second run did not load the cache"
[[ ! -s $TMP/stderr ]] || fail "warning on a good cache: $(cat "$TMP/stderr")"

# A damaged file: a warning naming it, the run succeeds, the next one loads.
printf 'garbage' >"${files[0]}"
[[ $(state) == ignored ]] || fail "damaged cache not ignored"
grep -q "mgc run: warning: pipeline cache '.*\.mgpc' ignored: 7 bytes" "$TMP/stderr" || fail "warning: $(cat "$TMP/stderr")"
[[ $(state) == loaded ]] || fail "damaged cache not rewritten"

# --no-pipeline-cache reads and writes nothing; --pipeline-cache DIR moves it.
[[ $(state --no-pipeline-cache) == off ]] || fail "--no-pipeline-cache"
[[ $(state --pipeline-cache "$TMP/mine") == empty && -n $(ls "$TMP/mine") ]] || fail "--pipeline-cache DIR"
# A folder that cannot be made: a warning when asked for, silence for the default.
echo x >"$TMP/file"
[[ $(state --pipeline-cache "$TMP/file/sub") == off ]] || fail "uncreatable --pipeline-cache"
grep -q "cannot be created" "$TMP/stderr" || fail "no warning for an uncreatable --pipeline-cache"
XDG_CACHE_HOME=$TMP/file/sub
[[ $(state) == off ]] || fail "uncreatable default folder"
! grep -q "mgc run: warning" "$TMP/stderr" || fail "warning for the default folder: $(cat "$TMP/stderr")"
echo "run_pipeline_cache: ok"
