#!/bin/sh
# check_exports.sh LIBMGRT_SO HEADER...: every mgrt_* function the public
# headers name is exported by the shared library (the library is built with
# -fvisibility=hidden: a header left out of the visibility push compiles,
# links statically, and is missing from libmgrt.so).
set -eu
lib=$1
shift
exported=$(nm -D --defined-only "$lib" | awk '{print $3}')
missing=""
for f in $(grep -ohE '\bmgrt_[a-z0-9_]+\(' "$@" | tr -d '(' | sort -u); do
  echo "$exported" | grep -qx "$f" || missing="$missing $f"
done
if [ -n "$missing" ]; then
  echo "not exported by $lib:$missing" >&2
  exit 1
fi
