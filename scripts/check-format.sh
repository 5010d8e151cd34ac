#!/usr/bin/env bash
# Checks that every C++ source of the repository is formatted as
# clang-format (Debian 12's, version 14, with the repository's .clang-format)
# formats it. Exits 1 listing the files that differ; `--fix` formats them.
#   scripts/check-format.sh [--fix]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
format="${CLANG_FORMAT:-clang-format}"
if ! command -v "$format" >/dev/null; then
  echo "error: $format not found (Debian: apt-get install clang-format)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.cuh')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$format" --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if ((${#bad[@]})); then
  echo "not clang-formatted (scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format: ${#files[@]} files clang-formatted"
