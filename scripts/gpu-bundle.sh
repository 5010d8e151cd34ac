#!/usr/bin/env bash
# Builds the bundle that bench/run.py needs on a GPU machine without MLIR:
#
#   OUT/bin/dlc-run        the runner (runtime only; libstdc++ linked in)
#   OUT/bin/dlc            the compiler (MLIR and LLVM linked in), stripped
#   OUT/bin/dlc-runtime-tests, OUT/bin/dlc-fuzz
#                          the GPU tests' binaries (scripts/gpu-session.sh,
#                          scripts/gpu-sanitize.sh OUT)
#   OUT/lib/               the shared libraries dlc needs besides glibc
#                          (ONNX's protobuf code, protobuf, zlib, libstdc++)
#   OUT/packages/*.dlcpkg  every benchmark model compiled here with its
#                          weights as inputs, cubins for --arch (sm_90 covers
#                          H100 and H200): the fallback when dlc does not run
#                          there; f32 models also as NAME.tf32.dlcpkg
#                          (compiled with --tf32) and NAME.gengemm.dlcpkg
#                          (--generated-gemm-speed=1: run.py's measurement
#                          of generated GEMMs against the library)
#   OUT/bundle.json        size, seed, weights mode, arch, commit, models
#
# No weights travel: bench/run.py generates them there from the seed
# (bench/models/gen_models.py), compiles the models with their weights as
# constants when the carried dlc runs there, and otherwise runs the packages
# above on the generated inputs. The bundle stays well under the 64 MiB a
# device call carries.
#
#   scripts/gpu-bundle.sh [OUT] [--size bench|smoke] [--arch sm_90]
#                         [--build BUILD_DIR] [--models PATTERN,...]
#
# OUT defaults to .carry/bench (ignored by git: name it in the device
# tool's `carry`). docs/benchmarks.md has the commands for the GPU side.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.carry/bench"
size=bench
arch=sm_90
build="$root/build"
models=""
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "gpu-bundle.sh: unknown option $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
limit_mib=60

tools=(dlc dlc-run dlc-runtime-tests dlc-fuzz)
echo "building ${tools[*]} in $build"
flock /tmp/dlc-build.lock ninja -C "$build" -j2 "${tools[@]}" >/dev/null

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/packages"
for t in "${tools[@]}"; do
  cp "$build/bin/$t" "$out/bin/"
  strip --strip-unneeded "$out/bin/$t"
done

# Everything dlc loads except glibc itself (libc, libm, the loader), which
# cannot be swapped under a program; run.py puts lib/ on LD_LIBRARY_PATH for
# dlc only, scripts/gpu-session.sh for all of them.
ldd "$build/bin/dlc" "$build/bin/dlc-fuzz" "$build/bin/dlc-runtime-tests" |
  awk '/=> \// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|ld-linux*|libdl.so.*|libpthread.so.*|librt.so.*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done

# The packages: MLIR without weights (they are inputs), compiled here.
tmp="$(mktemp -d /tmp/dlc-bundle-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
only=()
[ -n "$models" ] && only=(--only "$models")
"${PYTHON:-/usr/bin/python3}" "$root/bench/models/gen_models.py" --out "$tmp" --size "$size" \
  --weights inputs --no-npy "${only[@]}" >/dev/null
names=$("${PYTHON:-/usr/bin/python3}" -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['models']))" "$tmp/models.json")
export DLC_CACHE_DIR="${DLC_CACHE_DIR:-$build/test/kernel-cache}"
for name in $names; do
  # f32 models three times: full f32 GEMMs, TF32 ones (NAME.tf32.dlcpkg, what
  # bench/run.py runs while PyTorch's TF32 is on, its default), and every
  # eligible product generated (NAME.gengemm.dlcpkg, run.py
  # --generated-gemm-speed 1 --tf32 off).
  variants=("$name|")
  case "$name" in
    *_f32) variants+=("$name.tf32|--tf32" "$name.gengemm|--generated-gemm-speed=1") ;;
  esac
  for v in "${variants[@]}"; do
    file="${v%%|*}" flag="${v#*|}"
    start=$(date +%s.%N)
    "$build/bin/dlc" compile "$tmp/$name/model.mlir" -o "$out/packages/$file.dlcpkg" \
      --arch="$arch" --quiet $flag
    printf '  %-27s %6.1f s  %s\n' "$file" "$(echo "$(date +%s.%N) - $start" | bc)" \
      "$(du -h "$out/packages/$file.dlcpkg" | cut -f1)"
  done
done

glibc=$(objdump -T "$out"/bin/* | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo "+changes" || true)
"${PYTHON:-/usr/bin/python3}" - "$root/bench/models" "$out/bundle.json" "$size" "$arch" "$commit$dirty" "$glibc" $names <<'EOF'
import datetime, json, sys
models_dir, path, size, arch, commit, glibc, *models = sys.argv[1:]
sys.path.insert(0, models_dir)
import gen_models
with open(path, "w") as f:
    json.dump(dict(size=size, seed=gen_models.DEFAULT_SEED, weights="inputs", arch=arch,
                   commit=commit, built=datetime.datetime.now().isoformat(timespec="seconds"),
                   needs_glibc=glibc, models=models), f, indent=1)
EOF
total=$(du -sm "$out" | cut -f1)
echo "bundle: $out, ${total} MiB (needs $glibc or newer there)"
du -sh "$out"/bin/* "$out"/lib "$out"/packages | sed 's/^/  /'
if [ "$total" -gt "$limit_mib" ]; then
  echo "gpu-bundle.sh: the bundle is over $limit_mib MiB; carry less (--models)" >&2
  exit 1
fi
