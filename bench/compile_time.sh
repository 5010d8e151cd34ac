#!/usr/bin/env bash
# Compile time and peak memory of `dlc compile`: cold (empty caches), warm
# (kernel cache filled, the compiler runs: --no-cache) and cached (the
# compile cache's package of the same model and options; docs/compile-cache.md).
# docs/benchmarks.md records the figures.
#
#   bench/compile_time.sh [--models PATTERN,...] [--weights constants|inputs|both]
#                         [--size bench|smoke] [BUILD_DIR] [WORK_DIR]
#       the benchmark models of bench/models/gen_models.py (default: all,
#       weights both as constants and as inputs), one markdown row per
#       model and weights mode
#   bench/compile_time.sh --resnet50 [BUILD_DIR] [WORK_DIR]
#       torchvision ResNet-50 (random weights, batch 1) exported to ONNX by
#       test/models/export_models.py
#
# BUILD_DIR defaults to build/, WORK_DIR to a fresh temporary directory.
# "cold" compiles with an empty cache directory (NVRTC builds every kernel's
# sm_90 cubin), "warm" again with --no-cache (parse, passes, codegen and
# package; the cubins come from the kernel cache), "cached" once more
# without it (a compile-cache hit; MLIR models only). Extra `dlc compile`
# options go in DLC_COMPILE_FLAGS (e.g. --mlir-timing, which also turns the
# compile cache off).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
models=""
weights=both
size=bench
resnet=0
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --weights) weights="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --resnet50) resnet=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "compile_time.sh: unknown option $1" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
build="${positional[0]:-$root/build}"
work="${positional[1]:-$(mktemp -d /tmp/dlc-compile-bench-XXXXXX)}"
dlc="$build/bin/dlc"
mkdir -p "$work"
[ -x "$dlc" ] || { echo "no dlc at $dlc (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"

# Runs `dlc compile $1 -o $2` with /usr/bin/time -v and the cache $3; sets
# wall (s), cpu (user + sys, s), rss (MiB).
timed_compile() {
  local model="$1" package="$2" cache="$3" log="$work/time.txt"
  shift 3
  # shellcheck disable=SC2086
  if ! DLC_CACHE_DIR="$cache" /usr/bin/time -v -o "$log" \
      "$dlc" compile "$model" -o "$package" ${DLC_COMPILE_FLAGS:-} "$@" \
      >"$work/compile.out" 2>&1; then
    echo "dlc compile $model failed:" >&2
    grep -v '^ *#[0-9]' "$work/compile.out" | tail -5 >&2
    return 1
  fi
  local elapsed user sys kb
  elapsed=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
  user=$(grep 'User time' "$log" | awk '{print $NF}')
  sys=$(grep 'System time' "$log" | awk '{print $NF}')
  kb=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
  # m:ss.ss or h:mm:ss -> seconds
  wall=$(echo "$elapsed" | awk -F: '{s=0; for(i=1;i<=NF;i++) s=s*60+$i; print s}')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
  rss=$(awk -v k="$kb" 'BEGIN{printf "%.0f", k/1024}')
}

if [ "$resnet" = 1 ]; then
  if [ ! -f "$work/resnet50_b1.onnx" ]; then
    /usr/bin/python3 "$root/test/models/export_models.py" "$work" resnet50_b1 >/dev/null 2>&1 ||
      { echo "exporting resnet50 failed" >&2; exit 1; }
  fi
  echo "model: $work/resnet50_b1.onnx ($(du -h "$work/resnet50_b1.onnx" | cut -f1))"
  cache="$work/kernel-cache"
  rm -rf "$cache"
  for run in cold warm cached; do
    flag=""
    [ "$run" = warm ] && flag=--no-cache
    timed_compile "$work/resnet50_b1.onnx" "$work/resnet50_b1.dlcpkg" "$cache" $flag || exit 1
    echo "$run: wall ${wall} s, CPU ${cpu} s, peak RSS ${rss} MiB"
  done
  echo "command: DLC_CACHE_DIR=$cache /usr/bin/time -v $dlc compile $work/resnet50_b1.onnx -o $work/resnet50_b1.dlcpkg"
  exit 0
fi

case "$weights" in
  both) modes="constants inputs" ;;
  constants|inputs) modes="$weights" ;;
  *) echo "compile_time.sh: --weights constants|inputs|both" >&2; exit 2 ;;
esac
only=()
[ -n "$models" ] && only=(--only "$models")
failed=0
echo
echo "| model | weights | MLIR | package | dlc ops -> steps | cold wall | cold CPU | warm wall | warm CPU | cached wall | cached CPU | peak RSS (warm) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for mode in $modes; do
  dir="$work/$mode"
  /usr/bin/python3 "$root/bench/models/gen_models.py" --out "$dir" --size "$size" \
    --weights "$mode" --no-npy "${only[@]}" >/dev/null
  names=$(/usr/bin/python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['models']))" "$dir/models.json")
  for name in $names; do
    model="$dir/$name/model.mlir"
    package="$work/$name-$mode.dlcpkg"
    cache="$work/kernel-cache-$name-$mode"
    rm -rf "$cache"
    if ! timed_compile "$model" "$package" "$cache" ||
        { cold_wall=$wall cold_cpu=$cpu; ! timed_compile "$model" "$package" "$cache" --no-cache; } ||
        { warm_wall=$wall warm_cpu=$cpu warm_rss=$rss;
          summary=$(sed -n 's/^compiled .*: \([0-9]* ops -> [^;]*\);.*/\1/p' "$work/compile.out");
          ! timed_compile "$model" "$package" "$cache"; }; then
      printf '| %s | %s | %s | - | **dlc compile failed** | | | | | | | |\n' \
        "$name" "$mode" "$(du -h "$model" | cut -f1)"
      failed=$((failed + 1))
      rm -rf "$cache" "$package"
      continue
    fi
    # The third compile must have been a compile-cache hit.
    grep -q '^compiled .* (cached): ' "$work/compile.out" || { wall="-"; cpu="-"; }
    printf '| %s | %s | %s | %s | %s | %.2f s | %.2f s | %.2f s | %.2f s | %s s | %s s | %s MiB |\n' \
      "$name" "$mode" "$(du -h "$model" | cut -f1)" "$(du -h "$package" | cut -f1)" \
      "$summary" "$cold_wall" "$cold_cpu" "$warm_wall" "$warm_cpu" "$wall" "$cpu" "$warm_rss"
    rm -rf "$cache" "$package"
  done
done
echo
echo "command (per model): DLC_CACHE_DIR=<empty, then filled> /usr/bin/time -v $dlc compile MODEL.mlir -o MODEL.dlcpkg [--no-cache]"
[ "$failed" = 0 ] || { echo "$failed compilations failed" >&2; exit 1; }
