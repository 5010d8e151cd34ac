#!/usr/bin/env bash
# Builds dlc with AddressSanitizer and UndefinedBehaviorSanitizer in
# ./build-asan (or $DLC_ASAN_BUILD_DIR) and runs the whole test suite there
# (lit, unit tests, the JIT example). Fails on any failing test and on any
# sanitizer report, including one from a process whose failure a test
# expects (`not dlc ...`): reports go to files that are checked afterwards.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${DLC_ASAN_BUILD_DIR:-$root/build-asan}"
start=$SECONDS

if [ ! -f "$build/build.ninja" ]; then
  # -O1 -g1: what ASan recommends, and line tables for the reports, at a
  # fraction of the compile time of -O2 -g.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DDLC_ENABLE_SANITIZERS=ON \
    -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-19/lib/cmake/mlir}" \
    -DPython3_EXECUTABLE="${PYTHON:-/usr/bin/python3}"
fi
# $DLC_BUILD_LOCK: a lock file that serializes builds sharing a machine.
lock=(); [ -n "${DLC_BUILD_LOCK:-}" ] && lock=(flock "$DLC_BUILD_LOCK")
"${lock[@]}" ninja -C "$build" -j"$(nproc)"
built=$SECONDS

# The sim device's kernels are compiled by the host compiler, never
# instrumented, and cached by their source, the compiler and its flags
# (runtime/SimCompile.cpp), not by the dlc that asked: the main build's
# cache (scripts/test.sh runs that stage first) seeds this one, so this
# stage compiles only the kernels the main stage did not. Compiled packages
# and cubins are not copied: the instrumented compiler and NVRTC's wrapper
# run here.
mainSim="${DLC_BUILD_DIR:-$root/build}/test/kernel-cache/sim"
cache="$build/test/kernel-cache"
if [ -d "$mainSim" ] && [ ! -e "$cache/sim" ]; then
  mkdir -p "$cache" && chmod 700 "$cache" && cp -a "$mainSim" "$cache/sim"
fi

logs="$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
# The executables also carry built-in options (cmake/SanitizerDefaults.cpp).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}:log_path=$logs/asan"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:log_path=$logs/ubsan"
status=0
# The random-graph test's 500 graphs cost mostly host compiles of the sim's
# kernels, which are not instrumented: under the sanitizers a first slice of
# its seeds ($DLC_ASAN_FUZZ_SEEDS, default 100) checks the compiler itself.
# The models with an explicit --layout run the code the auto ones run, and
# the fuzz slice leaves out the nchw configuration (the pipeline without
# layout selection), to keep CI's time. Of the reduced-precision model
# tests, whose time under the sanitizers is the reference interpreter's
# accuracy measurements on the convolutional networks (minutes each), the
# transformers' fp16 ones stay; the lit tests run every precision's passes.
# Of the architectures added for their ops (test/models/CMakeLists.txt),
# the U-Net stage and the 1-D network (their normalizations, transposed and
# 1-D convolutions, resizing) run here; the classifiers and the
# segmentation model repeat ops the ResNet and MobileNet tests cover.
# The ONNX conformance suite (the importer is fuzzed under the sanitizers
# by fuzz-onnx, and the lit tests import every kind of node) and the
# gradient fuzzing (the reference interpreter's time) run in the main stage
# only.
# The lowering and the reference interpreter on random graphs (the main
# stage's fuzz-reference, 5 000 seeds) take a first slice of its seeds
# ($DLC_ASAN_REFERENCE_SEEDS, default 500): all 5 000 ran past ctest's
# 10 minutes under the sanitizers on a busy CI machine. The source checks
# (format, diagnostics-coverage) read the sources, not the build: the main
# stage's run is the same check.
(cd "$build" && ctest --output-on-failure -j"$(nproc)" \
  -E '^format$|^diagnostics-coverage$|^fuzz-sim$|^fuzz-reference$|^fuzz-gradients$|^onnx-conformance$|^models\..*_(nchw|nhwc|bf16|fp8)$|^models\.(resnet18|mobilenet_v2)_b[0-9]+_fp16$|^models\.(squeezenet|efficientnet_b0|mobilenet_v3_small|convnext_tiny|deeplabv3)_b1$') ||
  status=$?
"$build/bin/dlc-fuzz" --seeds="${DLC_ASAN_REFERENCE_SEEDS:-500}" --start=0 \
  --jobs="$(nproc)" --reference-only || status=$?
DLC_CACHE_DIR="$build/test/kernel-cache" "$build/bin/dlc-fuzz" \
  --seeds="${DLC_ASAN_FUZZ_SEEDS:-100}" --start=0 --jobs="$(nproc)" --no-cuda \
  --configs=full,no-fuse,no-in-place,no-canonicalize,no-rewrites,tf32,bf16,fp16,nhwc ||
  status=$?

# A report has an ERROR/SUMMARY line or a UBSan "runtime error"; other
# files hold warnings (ASan's note that the sim's ucontext fibers use
# swapcontext, which the fiber annotations in runtime/SimExecutor.cpp cover).
reports=()
for f in "$logs"/*; do
  [ -e "$f" ] || continue
  if grep -qE "ERROR: |SUMMARY: |runtime error:" "$f"; then
    reports+=("$f")
  fi
done
if ((${#reports[@]})); then
  echo "error: ${#reports[@]} sanitizer report(s):" >&2
  for r in "${reports[@]}"; do
    echo "==== $r" >&2
    cat "$r" >&2
  done
  status=1
fi
echo "sanitizers: build $((built - start)) s, tests $((SECONDS - built)) s," \
  "$([ $status = 0 ] && echo "no reports" || echo FAILED)"
exit $status
