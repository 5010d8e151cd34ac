#!/usr/bin/env bash
# Installs dependencies, builds dlc, and compiles and runs the MLP example.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
dlc="$root/build/bin/dlc"
out="$(mktemp -d)"
"$dlc" compile "$root/examples/mlp.mlir" -o "$out/mlp.dlcpkg"
"$dlc" run "$out/mlp.dlcpkg" --output-dir "$out" --check
echo "outputs written to $out"
