#!/usr/bin/env bash
# Prints one of the README's two commands (its section "The two commands")
# exactly as a user copies it: `main` (the main job) or `test` (the tests).
# tools/test.sh runs the main command and checks that the test command is
# itself, so an edit of the README cannot drift from what CI runs.
# Usage: tools/readme_commands.sh main|test
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  main) label='**Main job**' ;;
  test) label='**Tests**' ;;
  *) echo "usage: tools/readme_commands.sh main|test" >&2; exit 2 ;;
esac
# The indented code block that follows the bold label, before the next label
# or section; it must be exactly one line.
mapfile -t lines < <(awk -v label="$label" '
  /^## / { section = ($0 == "## The two commands"); found = 0; next }
  !section { next }
  index($0, label) == 1 { found = 1; next }
  found && /^\*\*/ { exit }
  found && /^    / { inblock = 1; sub(/^    /, ""); print; next }
  found && inblock { exit }
' README.md)
if [[ ${#lines[@]} -ne 1 ]]; then
  echo "tools/readme_commands.sh: README.md, section 'The two commands': expected one indented command" \
       "after '$label', found ${#lines[@]} lines" >&2
  exit 1
fi
printf '%s\n' "${lines[0]}"
