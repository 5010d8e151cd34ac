#!/usr/bin/env bash
# Compile time and peak memory of `dlc compile` on torchvision ResNet-50
# (random weights, batch 1, exported to ONNX by test/models/export_models.py),
# with a cold and a warm kernel cache (DLC_CACHE_DIR). docs/benchmarks.md
# records the figures.
#   bench/compile_time.sh [BUILD_DIR] [WORK_DIR]
# BUILD_DIR defaults to build/, WORK_DIR to a fresh temporary directory.
# Extra `dlc compile` options go in DLC_COMPILE_FLAGS (e.g. --mlir-timing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-$(mktemp -d /tmp/dlc-compile-bench-XXXXXX)}"
dlc="$build/bin/dlc"
mkdir -p "$work"
[ -x "$dlc" ] || { echo "no dlc at $dlc (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 1; }

if [ ! -f "$work/resnet50_b1.onnx" ]; then
  /usr/bin/python3 "$root/test/models/export_models.py" "$work" resnet50_b1 >/dev/null 2>&1 ||
    { echo "exporting resnet50 failed" >&2; exit 1; }
fi
echo "model: $work/resnet50_b1.onnx ($(du -h "$work/resnet50_b1.onnx" | cut -f1))"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

cache="$work/kernel-cache"
rm -rf "$cache"
for run in cold warm; do
  log="$work/time-$run.txt"
  # shellcheck disable=SC2086
  if ! DLC_CACHE_DIR="$cache" /usr/bin/time -v -o "$log" \
      "$dlc" compile "$work/resnet50_b1.onnx" -o "$work/resnet50_b1.dlcpkg" \
      ${DLC_COMPILE_FLAGS:-} >"$work/compile-$run.out" 2>&1; then
    echo "$run: dlc compile failed:" >&2
    tail -20 "$work/compile-$run.out" >&2
    exit 1
  fi
  wall=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
  user=$(grep 'User time' "$log" | awk '{print $NF}')
  sys=$(grep 'System time' "$log" | awk '{print $NF}')
  printf '%s cache: wall %s (m:ss), user %s s, sys %s s, peak RSS %.0f MiB\n' \
    "$run" "$wall" "$user" "$sys" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
done
echo "command: DLC_CACHE_DIR=$cache /usr/bin/time -v $dlc compile $work/resnet50_b1.onnx -o $work/resnet50_b1.dlcpkg"
