#!/usr/bin/env bash
# Configures and builds dlc in ./build (or $DLC_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${DLC_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  # Debian's LLVM/MLIR 19 and the python3 that has Debian's numpy, onnx and
  # torch (scripts/install-deps.sh) unless MLIR_DIR or PYTHON say otherwise.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-19/lib/cmake/mlir}" \
    -DPython3_EXECUTABLE="${PYTHON:-/usr/bin/python3}" "$@"
fi
ninja -C "$build" -j"$(nproc)"
