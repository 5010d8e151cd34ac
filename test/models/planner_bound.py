"""The memory planner against its lower bound on every model the tests use.

For each example (examples/*.mlir), each exported test model (the forward
ONNX models of run_model_tests.py) and each training step (the ONNX cases
of train_onnx.py with their optimizers, the dlc-dialect cases of
training_steps.py, and train_onnx.py's cases under its budgets), runs

  dlc compile MODEL [FLAGS] --no-cubin --stats-json S.json

and reads `arena_bytes` and `arena_lower_bound` (docs/fusion.md: the most
intermediate bytes live at one point of the schedule, each buffer at its
aligned size). Prints one row per model and fails when an arena is above
1.02 times its bound (issue: the planner within 2% of its lower bound).
--bench adds the bench figures' exports (ResNet-50, MobileNetV2, ViT-B/16,
a 4-layer GPT; minutes on 2 cores, so not in CI).

usage: planner_bound.py --dlc build/bin/dlc --work-dir DIR [--bench]
Exit code 77 (skipped) without torch and onnx.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIMIT = 1.02

try:
    import run_model_tests
    import train_onnx
    import training_steps
except ImportError as e:  # torch, onnx or numpy missing
    print(f"skipped: {e}")
    sys.exit(77)

FORWARD = ["resnet18_b1", "resnet18_b8", "mobilenet_v2_b1", "mobilenet_v2_b8",
           "encoder_layer", "gpt_block"]
BENCH = ["resnet50_b1", "mobilenet_v2_b1", "vit_b16_b1", "gpt4_b1"]


def figures(dlc, model, flags, work):
    """(arena, lower bound) of `model` compiled with `flags`, or an error."""
    stats = os.path.join(work, "planner.stats.json")
    if os.path.exists(stats):
        os.remove(stats)
    r = subprocess.run([dlc, "compile", model, *flags, "--no-cubin",
                        "--quiet", "-o", os.path.join(work, "planner.dlcpkg"),
                        "--stats-json", stats],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        return None, r.stdout[-2000:]
    with open(stats) as f:
        s = json.load(f)
    return (s["arena_bytes"], s["arena_lower_bound"]), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dlc", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--bench", action="store_true")
    a = parser.parse_args()
    work = a.work_dir
    os.makedirs(work, exist_ok=True)

    cases = []  # (name, model, flags)
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir"))):
        cases.append((os.path.basename(path), path, []))
    # The forward exports are run_model_tests.py's, in the same folder.
    forward = work
    for name in FORWARD:
        error = run_model_tests.ensure_exported(forward, name, False)
        if error:
            print(f"FAIL {name}: {error}")
            return 1
        cases.append((name, os.path.join(forward, name + ".onnx"), []))
    if a.bench:
        bench = os.path.join(work, "planner-bench")
        os.makedirs(bench, exist_ok=True)
        for name in BENCH:
            error = run_model_tests.ensure_exported(bench, name, False)
            if error:
                print(f"FAIL {name}: {error}")
                return 1
            cases.append(("bench " + name, os.path.join(bench, name + ".onnx"),
                          []))

    train = os.path.join(work, "planner-train")
    for name, case in train_onnx.CASES.items():
        loss, flags = case[3], case[4]
        _, _, onnx_path = train_onnx.export_case(name, train)
        cases.append(("train " + name, onnx_path,
                      ["--train", f"--loss={loss}", *flags]))
    # Under train_onnx.py's budgets: plans with recomputation.
    for name, fractions in train_onnx.BUDGETED.items():
        loss, flags = train_onnx.CASES[name][3], train_onnx.CASES[name][4]
        for fraction in fractions:
            if fraction == "1":
                continue
            cases.append((f"train {name} --activation-budget={fraction}",
                          os.path.join(train, name, "model.onnx"),
                          ["--train", f"--loss={loss}", *flags,
                           f"--activation-budget={fraction}"]))
    steps = os.path.join(work, "planner-steps")
    os.makedirs(steps, exist_ok=True)
    for name, case in training_steps.CASES.items():
        make, loss, flags = case[0], case[1], case[2]
        path = os.path.join(steps, name + ".mlir")
        with open(path, "w") as f:
            f.write(make().mlir())
        cases.append(("train " + name, path,
                      ["--train", f"--loss={loss}", *flags]))

    failures = []
    print(f"{'model':58} {'arena':>12} {'lower bound':>12} {'ratio':>7}")
    for name, model, flags in cases:
        result, error = figures(a.dlc, model, flags, work)
        if error:
            failures.append(f"{name}: dlc compile failed:\n{error}")
            continue
        arena, bound = result
        ratio = arena / bound if bound else (1.0 if arena == 0 else
                                             float("inf"))
        mark = "" if ratio <= LIMIT else "  above 1.02"
        print(f"{name:58} {arena:>12} {bound:>12} {ratio:>7.4f}{mark}")
        if ratio > LIMIT:
            failures.append(f"{name}: arena {arena} B is {ratio:.4f} times "
                            f"its lower bound {bound} B (limit {LIMIT})")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
