#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz in ./build-fuzz (or
# $DLC_FUZZ_BUILD_DIR) with clang, ASan and UBSan, and runs each for the given
# number of seconds (default 60).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    targets: parse pipeline package
#                                            reference onnx
#   DLC_FUZZ_SEED=N    libFuzzer's random seed (default: a new one each run);
#                      with a fresh corpus a fixed seed repeats the same run
#   DLC_FUZZ_SEED_DLC=PATH  the dlc that writes the seed packages and lowered
#                      models (default: this build's, instrumented; CI passes
#                      the main build's, which writes the same files in a
#                      fraction of the time: the sanitizer stage has already
#                      compiled every case under ASan)
#
# Seeds are rebuilt on every run from the repository: every .mlir file under
# test/ and examples/, split at `// -----`, and packages that `dlc compile
# --no-cubin` writes for them (some with their reference model as MLIR text),
# their reference models (bytecode) and lowered models (`--emit=dlc`, text)
# for fuzz-reference, and the ONNX models of test/onnx. What the fuzzers find is kept in
# <build>/fuzz/corpus/<target> and grows from run to run; a crashing input is
# written to <build>/fuzz/artifacts/ and fails the script. docs/reliability.md
# has the results and how to reproduce a crash.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${DLC_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(parse pipeline package reference onnx)
python="${PYTHON:-/usr/bin/python3}"
dlcpkg="$root/test/tools/Inputs/dlcpkg.py"

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DDLC_ENABLE_SANITIZERS=ON \
    -DDLC_BUILD_FUZZERS=ON -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-19/lib/cmake/mlir}" \
    -DPython3_EXECUTABLE="${PYTHON:-/usr/bin/python3}"
fi
lock=(); [ -n "${DLC_BUILD_LOCK:-}" ] && lock=(flock "$DLC_BUILD_LOCK")
# The instrumented dlc only when it writes the seeds (CI passes the main
# build's).
built=(dlc-fuzzers)
[ -n "${DLC_FUZZ_SEED_DLC:-}" ] || built+=(dlc)
"${lock[@]}" ninja -C "$build" -j"$(nproc)" "${built[@]}"

work="$build/fuzz"
seeds="$work/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/mlir" "$seeds/package" "$seeds/reference" "$seeds/onnx" \
  "$work/artifacts"

# MLIR seeds: one file per `// -----` case.
while IFS= read -r file; do
  name="$(echo "${file#"$root"/}" | tr '/' '_')"
  awk -v out="$seeds/mlir/$name" '
    BEGIN { n = 0; f = out "." n }
    /^\/\/ -----/ { close(f); n++; f = out "." n; next }
    { print > f }' "$file"
done < <(find "$root/test" "$root/examples" -name '*.mlir' | sort)

# Package seeds: every case that compiles, up to 256 KiB each.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export DLC_CACHE_DIR="$work/kernel-cache"
dlc="${DLC_FUZZ_SEED_DLC:-$build/bin/dlc}"
for case in "$seeds/mlir"/*; do
  out="$seeds/package/$(basename "$case").dlcpkg"
  if "$dlc" compile "$case" --no-cubin -o "$out" >/dev/null 2>&1 &&
     [ "$(stat -c %s "$out")" -le 262144 ]; then
    :
  else
    rm -f "$out"
  fi
done
# A few with an sm_90 cubin, so the seeds hold the CUBN images and ptxas's
# per-kernel report (the optional KRES section) too.
n=0
for case in "$seeds/mlir"/test_codegen_*; do
  out="$seeds/package/$(basename "$case").cubin.dlcpkg"
  if "$dlc" compile "$case" --arch=sm_90 --no-cache -o "$out" >/dev/null 2>&1 &&
     [ "$(stat -c %s "$out")" -le 262144 ]; then
    n=$((n + 1))
  else
    rm -f "$out"
  fi
  [ "$n" -ge 6 ] && break
done
# Reference seeds: the packages' reference models (bytecode), and the
# lowered models as text (a reference model may be either), up to 64 KiB
# each; some text ones also as the reference model of their package.
n=0
for pkg in "$seeds/package"/*.dlcpkg; do
  [ -e "$pkg" ] || continue
  base="$(basename "$pkg" .dlcpkg)"
  "$python" "$dlcpkg" get-reference "$pkg" "$seeds/reference/$base.mlirbc" 2>/dev/null ||
    rm -f "$seeds/reference/$base.mlirbc"
  case "$base" in *.cubin) continue ;; esac
  text="$seeds/reference/$base.mlir"
  if "$dlc" compile "$seeds/mlir/$base" --emit=dlc >"$text" 2>/dev/null &&
     [ "$(stat -c %s "$text")" -le 65536 ]; then
    if [ "$n" -lt 64 ] &&
       "$python" "$dlcpkg" set-reference "$pkg" "$text" "$seeds/package/$base.text.dlcpkg"; then
      n=$((n + 1))
    fi
  else
    rm -f "$text"
  fi
done
find "$seeds/reference" -type f -size +64k -delete
# ONNX seeds: the models of the ONNX lit tests (test/onnx/onnx_cases.py,
# which needs Debian's python3-onnx), up to 256 KiB each.
if "${PYTHON:-/usr/bin/python3}" -c "import onnx" 2>/dev/null; then
  cases=$("${PYTHON:-/usr/bin/python3}" "$root/test/onnx/onnx_cases.py" list | awk '{print $2}')
  # shellcheck disable=SC2086
  "${PYTHON:-/usr/bin/python3}" "$root/test/onnx/onnx_cases.py" gen "$seeds/onnx" $cases \
    >/dev/null 2>&1 || echo "warning: some ONNX seeds were not generated" >&2
  find "$seeds/onnx" -type f -size +256k -delete
fi
echo "seeds: $(ls "$seeds/mlir" | wc -l) MLIR cases," \
  "$(ls "$seeds/package" | wc -l) packages, $(ls "$seeds/reference" | wc -l)" \
  "reference models, $(ls "$seeds/onnx" | wc -l) ONNX models"

status=0
for t in "${targets[@]}"; do
  case "$t" in
    parse|pipeline) seed="$seeds/mlir"
      flags=(-dict="$root/test/fuzz/mlir.dict" -max_len=16384) ;;
    package) seed="$seeds/package"
      flags=(-dict="$root/test/fuzz/package.dict" -max_len=262144) ;;
    reference) seed="$seeds/reference"
      # MLIR's tokens (text reference models) and bytecode's.
      cat "$root/test/fuzz/mlir.dict" "$root/test/fuzz/bytecode.dict" > "$work/reference.dict"
      flags=(-dict="$work/reference.dict" -max_len=65536) ;;
    onnx) seed="$seeds/onnx"; flags=(-max_len=262144) ;;
    *) echo "error: unknown target '$t' (parse, pipeline, package, reference, onnx)" >&2; exit 2 ;;
  esac
  corpus="$work/corpus/$t"
  mkdir -p "$corpus"
  log="$work/fuzz-$t.log"
  echo "fuzz-$t: ${seconds} s (log: $log)"
  [ -n "${DLC_FUZZ_SEED:-}" ] && flags+=(-seed="$DLC_FUZZ_SEED")
  # package and reference read reference models in child processes
  # (runtime/Sandbox.h), where MLIR's reader may allocate without bound: an
  # allocation over 4 GiB is an ASan error rather than libFuzzer's malloc
  # limit, which would also fire in a child (and write an "oom" artifact
  # for what is an expected, contained failure).
  run=(env)
  case "$t" in
    package|reference)
      run=(env "ASAN_OPTIONS=$ASAN_OPTIONS:max_allocation_size_mb=4096")
      flags+=(-malloc_limit_mb=1048576) ;;
  esac
  rc=0
  "${run[@]}" "$build/bin/fuzz-$t" "${flags[@]}" -max_total_time="$seconds" -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$t-" "$corpus" "$seed" >"$log" 2>&1 || rc=$?
  grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|cov: .*corp" \
    "$log" | tail -4 | sed 's/^/  /'
  if [ $rc != 0 ]; then
    echo "error: fuzz-$t failed (exit code $rc); the end of its log:" >&2
    tail -60 "$log" >&2
    status=1
  fi
done
exit $status
