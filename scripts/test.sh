#!/usr/bin/env bash
# Installs dependencies, builds dlc and runs every test (lit, unit, end to end).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${DLC_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j"$(nproc)"
