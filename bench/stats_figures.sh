#!/usr/bin/env bash
# The figures of docs/fusion.md: `dlc compile --stats-json` of torchvision's
# ResNet-50 and MobileNetV2, torchvision's ViT-B/16 and a 4-layer GPT, at
# batch 1 in f32, exported from PyTorch with torch.onnx.export (opset 13,
# constant folding, eval mode, random weights; test/models/export_models.py),
# each compiled with --layout=nchw and --layout=auto. One markdown row per
# model and layout.
#
#   bench/stats_figures.sh [--models NAME,...] [BUILD_DIR] [WORK_DIR]
#
# BUILD_DIR defaults to build/, WORK_DIR to build/bench/figures (exports are
# kept there and reused). Extra `dlc compile` options go in
# DLC_COMPILE_FLAGS (e.g. --precision=bf16).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
models="resnet50_b1,mobilenet_v2_b1,vit_b16_b1,gpt4_b1"
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "stats_figures.sh: unknown option $1" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
build="${positional[0]:-$root/build}"
work="${positional[1]:-$build/bench/figures}"
dlc="$build/bin/dlc"
[ -x "$dlc" ] || { echo "no dlc at $dlc (build first)" >&2; exit 1; }
mkdir -p "$work"

echo "| model | layout | launches | kernels | GEMMs | conv steps | attention | data-movement kernels | bytes moved (MiB) | min bytes (MiB) | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for model in ${models//,/ }; do
  if [ ! -f "$work/$model.onnx" ]; then
    /usr/bin/python3 "$root/test/models/export_models.py" "$work" "$model" \
      >"$work/$model.export.log" 2>&1 ||
      { echo "exporting $model failed (see $work/$model.export.log)" >&2; exit 1; }
  fi
  for layout in nchw auto; do
    stats="$work/$model.$layout.json"
    # shellcheck disable=SC2086
    if ! "$dlc" compile "$work/$model.onnx" --layout="$layout" \
        ${DLC_COMPILE_FLAGS:-} -o "$work/$model.$layout.dlcpkg" \
        --stats-json "$stats" >"$work/$model.$layout.log" 2>&1; then
      echo "dlc compile $model --layout=$layout failed:" >&2
      tail -5 "$work/$model.$layout.log" >&2
      exit 1
    fi
    /usr/bin/python3 - "$model" "$layout" "$stats" <<'EOF'
import json, sys
model, layout, path = sys.argv[1:]
s = json.load(open(path))
mib = lambda b: b / 1048576
print(f"| {model} | {layout} | {s['launches']} | {s['kernels']} | {s['gemms']} "
      f"| {s['launches'] - s['kernels'] - s['gemms'] - s['attention']} "
      f"| {s['attention']} | {s['data_movement_kernels']} "
      f"| {mib(s['bytes_moved']):.1f} | {mib(s['min_bytes']):.1f} "
      f"| {s['bytes_moved'] / s['min_bytes']:.2f} |")
EOF
  done
done
echo
echo "command: bench/stats_figures.sh --models $models $build $work (DLC_COMPILE_FLAGS='${DLC_COMPILE_FLAGS:-}')"
