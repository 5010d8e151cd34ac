#!/usr/bin/env bash
# Installs what dlc needs to build and test on Debian 12 (bookworm). The CUDA
# toolkit is expected in /usr/local/cuda (headers, NVRTC, cuBLAS). clang and
# its runtime libraries build the libFuzzer targets (scripts/fuzz.sh).
set -euo pipefail
packages=(llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools libfmt-dev
  ninja-build cmake g++ googletest libgtest-dev zlib1g-dev libzstd-dev python3
  clang libclang-rt-14-dev clang-format
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx python3-numpy
  libzip-dev libglpk-dev
  python3-torch python3-torchvision)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -f /usr/local/cuda/include/cuda.h ]; then
  echo "error: the CUDA toolkit is not in /usr/local/cuda (dlc needs its headers and NVRTC)" >&2
  exit 1
fi
