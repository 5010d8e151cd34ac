#!/usr/bin/python3
"""Compiles torchvision models as a new user would and checks them on sim.

Each model is built with random weights (BatchNorm statistics randomized,
so eval-mode BatchNorm is not an identity), exported with
torch.onnx.export (opset 13, eval mode, constant folding) at a small input
(batch 1, square images of --size pixels; Inception v3 at least 96), then
for each --layouts value:

  dlc compile MODEL.onnx -o PKG --no-cubin --layout=L --stats-json STATS
  dlc run PKG --device=sim --input x.npy --output-dir OUT

and the output is compared with PyTorch's by relative error by norm (must
be <= --rtol). One line per model and layout: the error, compile time,
launches, data-movement kernels, attention kernels and bytes moved over
min bytes (docs/fusion.md defines the figures).

usage: bench/torchvision_sweep.py [--dlc build/bin/dlc] [--work DIR]
                                  [--layouts auto,nchw] [--size 64] [MODEL ...]
Exit status: 0 all matched, 1 a model failed, 77 torch/torchvision missing.
Not a CI test (about 5 minutes for every model on 2 cores).
"""
import argparse
import json
import os
import subprocess
import sys
import time

try:
    import numpy as np
    import torch
    import torchvision.models as tvm
    import torchvision.models.segmentation as tvs
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

MODELS = {
    "shufflenet_v2_x0_5": lambda: tvm.shufflenet_v2_x0_5(),
    "squeezenet1_1": lambda: tvm.squeezenet1_1(),
    "mobilenet_v3_small": lambda: tvm.mobilenet_v3_small(),
    "efficientnet_b0": lambda: tvm.efficientnet_b0(),
    "regnet_y_400mf": lambda: tvm.regnet_y_400mf(),
    "convnext_tiny": lambda: tvm.convnext_tiny(),
    "densenet121": lambda: tvm.densenet121(),
    "googlenet": lambda: tvm.googlenet(aux_logits=False, init_weights=True),
    "mnasnet0_5": lambda: tvm.mnasnet0_5(),
    "resnext50_32x4d": lambda: tvm.resnext50_32x4d(),
    "inception_v3": lambda: tvm.inception_v3(aux_logits=False, init_weights=True),
    "swin_t": lambda: tvm.swin_t(),
    "lraspp_mobilenet_v3_large": lambda: tvs.lraspp_mobilenet_v3_large(weights_backbone=None),
    "fcn_resnet50": lambda: tvs.fcn_resnet50(weights_backbone=None, aux_loss=False),
}
MIN_SIZE = {"inception_v3": 96}


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return r.returncode, r.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dlc", default="build/bin/dlc")
    p.add_argument("--work", default="/tmp/dlc-torchvision-sweep")
    p.add_argument("--layouts", default="auto,nchw")
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("models", nargs="*")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    names = a.models or list(MODELS)
    failed = []
    for name in names:
        if name not in MODELS:
            p.error("unknown model %s (known: %s)" % (name, ", ".join(MODELS)))
        torch.manual_seed(0)
        model = MODELS[name]().eval()
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                with torch.no_grad():
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
        size = max(a.size, MIN_SIZE.get(name, 0))
        x = torch.randn(1, 3, size, size)
        with torch.no_grad():
            want = model(x)
        if isinstance(want, dict):
            want = want["out"]
        want = want.numpy()
        onnx_path = os.path.join(a.work, name + ".onnx")
        torch.onnx.export(model, (x,), onnx_path, opset_version=13,
                          input_names=["x"], output_names=["y"],
                          do_constant_folding=True)
        x_path = os.path.join(a.work, name + ".x.npy")
        np.save(x_path, x.numpy())
        for layout in a.layouts.split(","):
            base = os.path.join(a.work, "%s.%s" % (name, layout))
            out_dir = base + ".out"
            os.makedirs(out_dir, exist_ok=True)
            for f in os.listdir(out_dir):
                os.remove(os.path.join(out_dir, f))
            t0 = time.monotonic()
            rc, out = run([a.dlc, "compile", onnx_path, "-o", base + ".dlcpkg",
                           "--no-cubin", "--layout=" + layout,
                           "--stats-json", base + ".stats.json"])
            seconds = time.monotonic() - t0
            if rc == 0:
                rc, out = run([a.dlc, "run", base + ".dlcpkg", "--device=sim",
                               "--input", x_path, "--output-dir", out_dir, "--quiet"])
            if rc != 0:
                print("%s %s: FAILED\n%s" % (name, layout, out[-2000:]))
                failed.append(name)
                continue
            got = np.load(os.path.join(out_dir, sorted(os.listdir(out_dir))[0]))
            if got.shape != want.shape:
                print("%s %s: FAILED shape %s, PyTorch's %s"
                      % (name, layout, got.shape, want.shape))
                failed.append(name)
                continue
            err = float(np.linalg.norm(got.astype(np.float64) - want) /
                        np.linalg.norm(want))
            st = json.load(open(base + ".stats.json"))
            ok = err <= a.rtol
            if not ok:
                failed.append(name)
            print("%s %s: %s error %.2g, compile %.1f s, %d launches, %d "
                  "data-movement, %d attention, %.2fx min bytes"
                  % (name, layout, "ok" if ok else "FAILED", err, seconds,
                     st["launches"], st["data_movement_kernels"], st["attention"],
                     st["bytes_moved"] / st["min_bytes"]), flush=True)
    print("%d models, %d failed" % (len(names), len(set(failed))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
