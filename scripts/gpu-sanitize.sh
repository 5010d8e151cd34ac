#!/usr/bin/env bash
# compute-sanitizer over the GPU tests: the runtime's CUDA session tests
# (CudaGpu.*, cuBLAS, cuBLASLt epilogues, CUDA Graphs), every example model
# and the attention tests (flash attention, the mma.sync path in f16 and
# bf16) with `dlc run --device=cuda --check`, and 50 random graphs on sim and
# cuda (dlc-fuzz --require-cuda; DLC_GPU_SANITIZE_FUZZ_SEEDS=N for another
# number).
#
#   scripts/gpu-sanitize.sh memcheck|racecheck [BUILD_DIR] [SOURCE_DIR]
#
# Registered as the ctests gpu-memcheck and gpu-racecheck (label gpu). Any
# error the tool reports fails the run (--error-exitcode); memcheck also
# checks device memory leaks. Without a GPU it prints "no CUDA GPU" and
# stops (ctest reports the test as skipped), and without compute-sanitizer
# (the CUDA toolkit's, in PATH or /usr/local/cuda/bin) "compute-sanitizer
# not found". Logs go to BUILD_DIR/gpu-sanitize/.
set -uo pipefail
tool="${1:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${2:-$root/build}"
src="${3:-$root}"
case "$tool" in
  memcheck|racecheck) ;;
  *) echo "usage: gpu-sanitize.sh memcheck|racecheck [BUILD_DIR] [SOURCE_DIR]" >&2; exit 2 ;;
esac

dlc="$build/bin/dlc"
# The first model without the tool: says "no CUDA GPU" without one.
probe="$("$dlc" run "$src/examples/mlp.mlir" --device=cuda --check --seed=3 2>&1)"
if grep -q "no CUDA GPU" <<<"$probe"; then
  echo "$probe"
  exit 0
fi
cs="$(command -v compute-sanitizer || true)"
[ -z "$cs" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] &&
  cs=/usr/local/cuda/bin/compute-sanitizer
if [ -z "$cs" ]; then
  echo "compute-sanitizer not found (PATH, /usr/local/cuda/bin): the $tool check did not run"
  exit 0
fi

logs="$build/gpu-sanitize"
mkdir -p "$logs"
flags=(--tool "$tool" --error-exitcode 97 --print-limit 50 --target-processes all)
[ "$tool" = memcheck ] && flags+=(--leak-check full)
failed=0
n=0
check() {
  local name="$1"
  shift
  n=$((n + 1))
  local log="$logs/$tool-$name.log"
  if "$cs" "${flags[@]}" "$@" >"$log" 2>&1; then
    echo "ok      $name ($(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors*' "$log" || echo 'no summary'))"
  else
    failed=$((failed + 1))
    echo "FAILED  $name (log: $log)"
    grep -E "ERROR SUMMARY|=========" "$log" | head -20
  fi
}

check runtime-gpu "$build/bin/dlc-runtime-tests" --gtest_filter='CudaGpu.*' --gtest_color=no
for m in mlp layernorm_gelu attention encoder_layer reshape_transpose; do
  check "example-$m" "$dlc" run "$src/examples/$m.mlir" --device=cuda --check --seed=3
done
for t in attention_f16 attention_bf16 attention_f32 attention_heads attention_gqa; do
  [ -f "$src/test/e2e/$t.mlir" ] &&
    check "e2e-$t" "$dlc" run "$src/test/e2e/$t.mlir" --device=cuda --check --seed=1
done
check fuzz "$build/bin/dlc-fuzz" --seeds="${DLC_GPU_SANITIZE_FUZZ_SEEDS:-50}" --start=0 \
  --jobs=1 --require-cuda \
  --configs=full

echo "gpu-sanitize $tool: $((n - failed)) of $n runs clean"
[ "$failed" -eq 0 ]
