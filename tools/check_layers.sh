#!/usr/bin/env bash
# Layers point down (docs/architecture.md): fails naming every project
# include that reaches a folder its own folder may not use.
#   formats/ → formats          ir/ → ir, formats
#   passes/  → passes, ir, formats
#   kernels/ → kernels, ir, formats (kernels/src: GLSL, not checked)
#   runtime/ → runtime, formats
# Usage: tools/check_layers.sh [REPO_ROOT]
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
status=0
check() {  # folder, allowed top-level folders...
  local dir=$1; shift
  local allowed=" $* "
  while IFS=: read -r file line text; do
    top=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$text")
    if [[ $allowed != *" $top "* ]]; then
      echo "$file:$line: $dir/ may not include $top/: $text"
      status=1
    fi
  done < <(grep -rnE '^#include "[^"/]+/' "$dir" --include='*.h' --include='*.cpp' --exclude-dir=src)
}
check formats formats
check ir ir formats
check passes passes ir formats
check kernels kernels ir formats
check runtime runtime formats
[[ $status == 0 ]] && echo "layers: every include points down"
exit $status
