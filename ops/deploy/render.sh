#!/usr/bin/env bash
# Renders an ops/deploy template: every @@NAME@@ replaced by NAME's value from an env file of
# NAME=value lines (comments and blank lines ignored; values taken literally, no quoting).
# Refuses a template naming a variable the file does not set.
#   usage: render.sh VARS_FILE TEMPLATE > OUTPUT
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true # bash 5.2: "&" in a value stays "&"
if [[ $# -ne 2 ]]; then
  echo "usage: $0 VARS_FILE TEMPLATE > OUTPUT" >&2
  exit 2
fi
vars=$1 template=$2
text=$(<"$template")
while IFS= read -r line || [[ -n $line ]]; do
  [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
  if [[ ! $line =~ ^([A-Z][A-Z0-9_]*)=(.*)$ ]]; then
    echo "$vars: not a NAME=value line: $line" >&2
    exit 1
  fi
  text=${text//@@${BASH_REMATCH[1]}@@/${BASH_REMATCH[2]}}
done <"$vars"
if left=$(grep -o '@@[A-Z0-9_]*@@' <<<"$text" | sort -u | tr '\n' ' ') && [[ -n $left ]]; then
  echo "$template: not set in $vars: $left" >&2
  exit 1
fi
printf '%s\n' "$text"
