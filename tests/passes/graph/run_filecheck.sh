#!/bin/bash
# run_filecheck.sh MGC FILECHECK_DIR TEST.mgir
# Runs every `// RUN:` line of TEST.mgir through bash (with pipefail), after
# substituting %mgc (the mgc binary), %s (the test file) and FileCheck /
# not (from FILECHECK_DIR, llvm-14's tools). Fails if any RUN line fails or
# the file has none.
set -u
mgc="$1" tools="$2" test="$3"
mapfile -t runs < <(sed -n 's|^// RUN: *||p' "$test")
if [ "${#runs[@]}" -eq 0 ]; then
  echo "$test: no RUN lines" >&2
  exit 1
fi
for cmd in "${runs[@]}"; do
  cmd="${cmd//\%mgc/$mgc}"
  cmd="${cmd//\%s/$test}"
  cmd="$(echo "$cmd" | sed -E "s#(^|[|;&] *)FileCheck #\1$tools/FileCheck #g; s#(^|[|;&] *)not #\1$tools/not #g")"
  echo "RUN: $cmd"
  if ! bash -o pipefail -c "$cmd"; then
    echo "$test: FAILED: $cmd" >&2
    exit 1
  fi
done
