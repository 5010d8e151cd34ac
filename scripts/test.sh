#!/usr/bin/env bash
# Installs dependencies, builds dlc and runs every test (lit, unit, end to end,
# random-graph differential testing). Optionally, the same tests built with
# ASan and UBSan (scripts/test-sanitizers.sh) and a short run of each
# libFuzzer target (scripts/fuzz.sh):
#   DLC_SANITIZERS=1      adds the sanitizer build and tests
#   DLC_FUZZ_SECONDS=N    seconds per fuzz target (default 0: none)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
(cd "${DLC_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j"$(nproc)")
if [ "${DLC_SANITIZERS:-0}" != 0 ]; then
  "$root/scripts/test-sanitizers.sh"
fi
fuzzSeconds="${DLC_FUZZ_SECONDS:-0}"
if [ "$fuzzSeconds" != 0 ]; then
  "$root/scripts/fuzz.sh" "$fuzzSeconds"
fi
