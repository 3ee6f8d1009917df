# Sourced by the CLI golden tests (cli_errors.sh, cli_verify.sh).
# golden_cases CASE...: each CASE is "NAME|MGC ARGS"; runs $MGC ARGS and
# compares "exit: CODE" + its stderr with $GOLDEN/NAME.txt (with --update in
# $UPDATE, rewrites it). $TMP in messages reads TMP; a sed expression in
# $GOLDEN_SED (optional) rewrites more. Prints ok/FAIL per case and sets
# fail=1 on a difference.
golden_cases() {
  local c name args err rc got
  for c in "$@"; do
    name=${c%%|*}
    args=${c#*|}
    # shellcheck disable=SC2086
    err=$("$MGC" $args 2>&1 >/dev/null)
    rc=$?
    got=$(printf 'exit: %s\n%s\n' "$rc" "$err" | sed -e "s#$TMP#TMP#g" -e "${GOLDEN_SED:-}")
    if [[ $UPDATE == --update ]]; then
      printf '%s\n' "$got" > "$GOLDEN/$name.txt"
      continue
    fi
    if ! diff -u "$GOLDEN/$name.txt" <(printf '%s\n' "$got") > "$TMP/$name.diff"; then
      echo "FAIL $name"; cat "$TMP/$name.diff"; fail=1
    else
      echo "ok   $name"
    fi
  done
}
