#!/usr/bin/env bash
# Installs dependencies, builds dlc and runs every test (lit, unit, end to end,
# random-graph differential testing), then the same tests built with ASan and
# UBSan (scripts/test-sanitizers.sh) and a short run of each libFuzzer target
# (scripts/fuzz.sh). docs/reliability.md has the time each part takes.
#   DLC_SANITIZERS=0      skips the sanitizer build and tests
#   DLC_FUZZ_SECONDS=N    seconds per fuzz target (default 30; 0 skips them)
#   DLC_FUZZ_SEED=N       libFuzzer's seed (default 1, so a run is repeatable)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
(cd "${DLC_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j"$(nproc)")
if [ "${DLC_SANITIZERS:-1}" != 0 ]; then
  "$root/scripts/test-sanitizers.sh"
fi
fuzzSeconds="${DLC_FUZZ_SECONDS:-30}"
if [ "$fuzzSeconds" != 0 ]; then
  DLC_FUZZ_SEED="${DLC_FUZZ_SEED:-1}" \
    DLC_FUZZ_SEED_DLC="${DLC_BUILD_DIR:-$root/build}/bin/dlc" \
    "$root/scripts/fuzz.sh" "$fuzzSeconds"
fi
