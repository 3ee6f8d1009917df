#!/usr/bin/env bash
# pipeline_cache.sh MGC NAME=BUNDLE.mgb[@ENTRY]:INPUTS ... [RUNS=5]
# INPUTS: X.npy (the input named x) or NAME=X.npy[,NAME=Y.npy...]; ENTRY:
# the entry point to run (mgc run --entry), for bundles without 'infer'.
# Cold vs warm session creation: the `load:` line of `mgc run` (model load +
# session creation, docs/cli.md), median of RUNS launches each: cold with
# --no-pipeline-cache, warm with a cache folder that one earlier launch
# filled. Each launch is a fresh process, as an app start is. Prints a
# markdown table row per bundle (and the cache file size).
# Drivers keep on-disk shader caches of their own (Mesa:
# ~/.cache/mesa_shader_cache, NVIDIA: ~/.cache/nvidia/GLCache), which would
# make "cold" launches warm: both are turned off here unless DRIVER_CACHE=1.
set -euo pipefail
if [[ ${DRIVER_CACHE:-0} != 1 ]]; then
  export MESA_SHADER_CACHE_DISABLE=true __GL_SHADER_DISK_CACHE=0
fi
mgc=$1
shift
runs=${RUNS:-5}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
inputs() {  # inputs INPUTS: the --input flags of one spec
  local i
  if [[ $1 != *=* ]]; then echo "--input x=$1"; return; fi
  for i in ${1//,/ }; do echo "--input $i"; done
}
load_ms() {  # load_ms BUNDLE INPUTS [mgc run flags...]: the load time of one launch
  local bundle=$1 input=$2
  shift 2
  # shellcheck disable=SC2046
  "$mgc" run "$bundle" $(inputs "$input") "$@" | sed -n 's/^load: \([0-9.]*\) ms.*/\1/p'
}
echo "| bundle | cold (ms) | warm (ms) | cold/warm | cache file (bytes) | state when warm |"
echo "|---|---|---|---|---|---|"
for spec in "$@"; do
  name=${spec%%=*}
  rest=${spec#*=}
  bundle=${rest%%:*}
  input=${rest#*:}
  entry=()
  if [[ $bundle == *@* ]]; then entry=(--entry "${bundle#*@}"); bundle=${bundle%@*}; fi
  rm -rf "${cache:?}"/*
  cold=$(for i in $(seq "$runs"); do load_ms "$bundle" "$input" "${entry[@]}" --no-pipeline-cache; done | median)
  load_ms "$bundle" "$input" "${entry[@]}" --pipeline-cache "$cache" >/dev/null  # fills the cache
  warm=$(for i in $(seq "$runs"); do load_ms "$bundle" "$input" "${entry[@]}" --pipeline-cache "$cache"; done | median)
  # shellcheck disable=SC2046
  state=$("$mgc" run "$bundle" $(inputs "$input") "${entry[@]}" --pipeline-cache "$cache" | sed -n 's/^load: .*pipeline cache: \([a-z]*\).*/\1/p')
  bytes=$(stat -c %s "$cache"/*.mgpc)
  ratio=$(awk -v c="$cold" -v w="$warm" 'BEGIN {printf "%.2f", c / w}')
  echo "| $name | $cold | $warm | $ratio | $bytes | $state |"
done
