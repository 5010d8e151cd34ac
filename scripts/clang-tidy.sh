#!/usr/bin/env bash
# Runs clang-tidy (the checks in .clang-tidy) over dlc's C++ sources, with
# the compile database of a GCC build (build/compile_commands.json) rid of
# the GCC-only flags clang does not know.
#   scripts/clang-tidy.sh [build dir] [file...]   (default: every source)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
tidy="${CLANG_TIDY:-clang-tidy-19}"
command -v "$tidy" >/dev/null || { echo "error: $tidy not found" >&2; exit 1; }
db="$(mktemp -d)"
trap 'rm -rf "$db"' EXIT
sed -e 's/ -fno-lifetime-dse//g' -e 's/ -Wno-class-memaccess//g' \
    -e 's/ -Wno-redundant-move//g' -e 's/ -Wno-pessimizing-move//g' \
    -e 's/ -Wno-noexcept-type//g' -e 's/ -Wno-misleading-indentation//g' \
    "$build/compile_commands.json" >"$db/compile_commands.json"
cd "$root"
if (($#)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.cpp' | grep -E '^(ir|analysis|passes|codegen|runtime|frontend|api|tools)/' |
    grep -v -e '^frontend/onnx/OnnxDisabled.cpp$')
fi
"$tidy" -p "$db" --quiet "${files[@]}"
