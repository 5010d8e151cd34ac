#!/usr/bin/env bash
# Everything a GPU session measures, as one device call: a session has 15
# minutes of device time, the machine's start included, and one command may
# run 10, so the phases share a time budget (default 540 s) and each is
# capped by what is left; every phase writes its results under OUT as it
# goes, so a phase cut short keeps what it measured.
#
#   scripts/gpu-session.sh [--bundle DIR] [--out DIR] [--budget SECONDS]
#                          [--phases LIST]
#
# Run on the GPU machine from the repository's root with the bundle of
# scripts/gpu-bundle.sh carried (the device tool: `carry: [".carry/bench"]`,
# OUT defaults to $OUT). Phases, in this order (default: all):
#
#   tests     what `ctest -L gpu` runs, without CMake: the runtime's CUDA
#             session tests (CudaGpu.*), every example model and every
#             test/e2e model with `dlc run --device=cuda --check`, 20
#             random graphs on sim and cuda (dlc-fuzz --require-cuda)
#   bench     bench/run.py, dlc and PyTorch eager, on the models that carry
#             the issues' targets (BERT, GPT-2, the row kernels, flash
#             attention, ResNet-50 in bf16, the ViT layer)
#   sanitize  compute-sanitizer memcheck, then racecheck
#             (scripts/gpu-sanitize.sh over the bundle's binaries)
#   compile   bench/run.py, torch.compile on BERT, GPT-2 and ResNet-50
#   gengemm   bench/run.py without TF32, dlc at its default and with every
#             eligible product generated (--generated-gemm-speed 1): the
#             speed dlc-fuse-gemm's cost model assumes (docs/fusion.md)
#
# OUT receives device.txt (nvidia-smi, driver, CUDA), tests.log,
# sanitize-*.log, bench JSON and markdown per phase (<date>-<device>-<phase>
# .json), and session.log with each phase's outcome and time. Back here:
# docs/gpu-results.md and docs/benchmarks.md say where each goes.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$root/.carry/bench"
out="${OUT:-}"
budget=540
phases="tests,bench,sanitize,compile,gengemm"
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$(cd "$2" && pwd)"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --phases) phases="$2"; shift 2 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "gpu-session.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$out" ]; then
  echo "gpu-session.sh: no OUT directory (--out DIR, or \$OUT)" >&2
  exit 2
fi
for f in bin/dlc bin/dlc-run bin/dlc-runtime-tests bin/dlc-fuzz bundle.json; do
  if [ ! -e "$bundle/$f" ]; then
    echo "gpu-session.sh: $bundle/$f is missing (scripts/gpu-bundle.sh builds the bundle)" >&2
    exit 2
  fi
done
mkdir -p "$out"
chmod +x "$bundle"/bin/* 2>/dev/null || true
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/cuda/lib64"
export DLC_CACHE_DIR="${DLC_CACHE_DIR:-/tmp/dlc-gpu-session/kernel-cache}"
export PYTHONUNBUFFERED=1
PATH="$PATH:/usr/local/cuda/bin"
python="${PYTHON:-python3}"
dlc="$bundle/bin/dlc"
start=$(date +%s)
log="$out/session.log"

say() { echo "$*" | tee -a "$log"; }
left() { echo $((budget - ($(date +%s) - start))); }
# Runs a phase under `timeout` with at most $2 seconds (and what is left).
phase() {
  local name="$1" cap="$2"
  shift 2
  case ",$phases," in *",$name,"*) ;; *) return 0 ;; esac
  local t0 remaining rc
  remaining=$(left)
  [ "$cap" -gt "$remaining" ] && cap=$remaining
  if [ "$cap" -lt 20 ]; then
    say "phase $name: not run ($remaining s of the budget left)"
    return 0
  fi
  t0=$(date +%s)
  say "phase $name: up to $cap s"
  timeout --kill-after=10 "$cap" "$@"
  rc=$?
  case $rc in
    0) say "phase $name: passed in $(($(date +%s) - t0)) s" ;;
    124|137) say "phase $name: stopped at its $cap s (what it wrote is kept)" ;;
    *) say "phase $name: FAILED (exit $rc) in $(($(date +%s) - t0)) s" ;;
  esac
}

{
  date -u
  nvidia-smi || echo "nvidia-smi failed"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit \
    --format=csv || true
  nvcc --version 2>/dev/null | tail -2
  "$bundle/bin/dlc-run" --info
  cat "$bundle/bundle.json"
} >"$out/device.txt" 2>&1
say "gpu-session: $(head -1 "$out/device.txt"), budget $budget s, phases $phases"

run_tests() {
  local failed=0
  # A test that finds no GPU passes under ctest (skipped); here, on the
  # machine lent for the GPU, it is a failure.
  check() {
    local name="$1" text rc
    shift
    text="$("$@" 2>&1)"
    rc=$?
    echo "$text" >>"$out/tests.log"
    if [ $rc -eq 0 ] && ! grep -q "no CUDA GPU" <<<"$text"; then
      echo "ok      $name" | tee -a "$out/tests.log"
    else
      failed=$((failed + 1))
      echo "FAILED  $name$(grep -q "no CUDA GPU" <<<"$text" && echo " (no CUDA GPU)")" |
        tee -a "$out/tests.log"
    fi
  }
  check runtime-gpu "$bundle/bin/dlc-runtime-tests" --gtest_filter='CudaGpu.*' --gtest_color=no
  for m in mlp layernorm_gelu attention encoder_layer reshape_transpose; do
    check "example-$m" "$dlc" run "$root/examples/$m.mlir" --device=cuda --check --seed=3
  done
  # Flash attention (the mma.sync path in f16 and bf16), cuDNN and library
  # convolutions, GEMM epilogues, generated GEMMs, fp8, layouts.
  local t
  for t in "$root"/test/e2e/*.mlir; do
    check "e2e-$(basename "$t" .mlir)" "$dlc" run "$t" --device=cuda --check --seed=1
  done
  check fuzz "$bundle/bin/dlc-fuzz" --seeds=20 --start=0 --jobs=4 --require-cuda --configs=full
  echo "tests: $failed failed" | tee -a "$out/tests.log"
  [ "$failed" -eq 0 ]
}
export -f run_tests
export root bundle dlc out python

bench() {
  local tag="$1" budget_s="$2"
  shift 2
  "$python" "$root/bench/run.py" --bundle "$bundle" --results "$out" --tag "$tag" \
    --time-budget "$budget_s" --work /tmp/dlc-gpu-session/bench "$@" 2>&1 |
    tee "$out/bench-$tag.log"
  return "${PIPESTATUS[0]}"
}

phase tests 180 bash -c run_tests
phase bench 210 bash -c "$(declare -f bench); bench dlc-eager 170 --modes dlc,eager \
  --models 'bert_b8_s128_*,gpt2_b8_s1024_bf16,layernorm_f32,softmax_f32,bias_gelu_f32,add_layernorm_f32,attention_s2048_d64_bf16,attention_s2048_d128_bf16,resnet50_b32_bf16,vit_b1_s197_f32'"
phase sanitize 150 bash -c "
  DLC_GPU_SANITIZE_FUZZ_SEEDS=5 bash '$root/scripts/gpu-sanitize.sh' memcheck '$bundle' '$root' \
    2>&1 | tee '$out/sanitize-memcheck.log'; rc1=\${PIPESTATUS[0]}
  DLC_GPU_SANITIZE_FUZZ_SEEDS=5 bash '$root/scripts/gpu-sanitize.sh' racecheck '$bundle' '$root' \
    2>&1 | tee '$out/sanitize-racecheck.log'; rc2=\${PIPESTATUS[0]}
  cp -r '$bundle/gpu-sanitize' '$out/' 2>/dev/null
  ! grep -l 'no CUDA GPU\|compute-sanitizer not found' '$out'/sanitize-*.log &&
    [ \$rc1 -eq 0 ] && [ \$rc2 -eq 0 ]"
phase compile 120 bash -c "$(declare -f bench); bench compile 90 --modes compile \
  --no-ceilings --models 'bert_b8_s128_bf16,gpt2_b8_s1024_bf16,resnet50_b32_bf16'"
phase gengemm 90 bash -c "$(declare -f bench); bench f32 35 --modes dlc --tf32 off \
  --no-ceilings --models vit_b1_s197_f32 &&
  bench gengemm 35 --modes dlc --tf32 off --no-ceilings --generated-gemm-speed 1 \
  --models vit_b1_s197_f32"
say "gpu-session: done in $(($(date +%s) - start)) s"
grep -q "FAILED" "$log" && exit 1
exit 0
