#!/usr/bin/python3
"""Runs real PyTorch models on dlc's sim device and compares with PyTorch.

For each model (test/models/export_models.py builds and exports them):
  dlc compile MODEL.onnx -o MODEL.dlcpkg --no-cubin
  dlc run MODEL.dlcpkg --device=sim --input FILE.npy ... --output-dir DIR
or, with --one-step,
  dlc run MODEL.onnx --device=sim --input NAME=FILE.npy ... --output-dir DIR
then every output is compared with PyTorch's CPU output by relative error by
norm, ||dlc - torch|| / ||torch||, which must be <= --rtol (1e-4). Prints one
line per model: error, compile time, run time (wall clock; the run includes
building the sim's kernel library unless the kernel cache has it) and dlc's
CPU time.

usage: run_model_tests.py --dlc build/bin/dlc --work-dir DIR [--export] [MODEL ...]
Exit status: 0 all passed, 1 a model failed, 77 torch/onnx missing (CTest
skips the test).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def relative_error(got, want):
    import numpy as np
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return None, f"shape {list(got.shape)} != PyTorch's {list(want.shape)}"
    if not np.all(np.isfinite(got)):
        return None, f"{int(np.sum(~np.isfinite(got)))} non-finite values"
    den = np.linalg.norm(want)
    num = np.linalg.norm(got - want)
    return (num / den if den > 0 else num), None


def ensure_exported(work_dir, name, force):
    """Exports `name` unless an export newer than the export script exists."""
    index = os.path.join(work_dir, name + ".json")
    script = os.path.join(HERE, "export_models.py")
    if (not force and os.path.exists(index)
            and os.path.getmtime(index) >= os.path.getmtime(script)):
        return None
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, script, work_dir, name],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return f"export failed ({time.monotonic() - t0:.1f} s):\n{r.stdout[-4000:]}"
    return None


def child_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, timeout):
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
        return r.returncode, r.stdout, time.monotonic() - t0
    except OSError as e:  # e.g. dlc missing or being relinked
        return None, f"cannot run {cmd[0]}: {e}", time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return None, out + f"\n(timed out after {timeout} s)", time.monotonic() - t0


def find_output(out_dir, i, name):
    for f in (f"output_{i}.npy", f"{name}.npy"):
        p = os.path.join(out_dir, f)
        if os.path.exists(p):
            return p
    return None


def test_model(args, name):
    """Returns (ok, line, details)."""
    import numpy as np
    err = ensure_exported(args.work_dir, name, args.export_force)
    if err:
        return False, f"{name}: FAILED (export)", err
    cpu0 = child_cpu_seconds()
    with open(os.path.join(args.work_dir, name + ".json")) as f:
        index = json.load(f)
    onnx_path = os.path.join(args.work_dir, index["onnx"])
    pkg = os.path.join(args.work_dir, name + ".dlcpkg")
    out_dir = os.path.join(args.work_dir, name + ".dlc-out")
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    if os.path.exists(pkg):
        os.remove(pkg)

    if args.one_step:
        # `dlc run MODEL.onnx` compiles and runs in one process; inputs bound
        # by their ONNX names.
        t_compile = 0.0
        cmd = [args.dlc, "run", onnx_path, "--device=sim", "--output-dir", out_dir,
               "--quiet"]
        for inp in index["inputs"]:
            cmd += ["--input", f"{inp['name']}={os.path.join(args.work_dir, inp['file'])}"]
    else:
        extra = []
        if args.precision_report:
            extra.append("--precision-report")
        if args.precision_tolerance:
            extra.append(f"--precision-tolerance={args.precision_tolerance}")
        rc, out, t_compile = run([args.dlc, "compile", onnx_path, "-o", pkg,
                                  "--no-cubin", f"--precision={args.precision}",
                                  f"--layout={args.layout}"]
                                 + extra, args.timeout)
        if rc != 0:
            return (False, f"{name}: FAILED (dlc compile, {t_compile:.1f} s)",
                    out[-6000:])
        if extra:
            why = check_precision_report(out, args)
            if why:
                return (False, f"{name}: FAILED (precision report)",
                        why + "\n" + out[-6000:])
        # A package keeps no input names: files go in the ONNX graph's order.
        cmd = [args.dlc, "run", pkg, "--device=sim", "--output-dir", out_dir, "--quiet"]
        for inp in index["inputs"]:
            cmd += ["--input", os.path.join(args.work_dir, inp["file"])]
    rc, out, t_run = run(cmd, args.timeout)
    if rc != 0:
        return (False, f"{name}: FAILED (dlc run, compile {t_compile:.1f} s, "
                f"run {t_run:.1f} s)", " ".join(cmd) + "\n" + out[-6000:])

    worst = 0.0
    problems = []
    for i, o in enumerate(index["outputs"]):
        got_path = find_output(out_dir, i, o["name"])
        if not got_path:
            problems.append(f"output {i} ({o['name']}): no file in {out_dir}")
            continue
        e, why = relative_error(np.load(got_path),
                                np.load(os.path.join(args.work_dir, o["file"])))
        if why:
            problems.append(f"output {i} ({o['name']}): {why}")
            continue
        worst = max(worst, e)
        if e > args.rtol:
            problems.append(f"output {i} ({o['name']}): relative error {e:.3g} "
                            f"> {args.rtol:g}")
    status = "ok" if not problems else "FAILED"
    times = (f"compile+run {t_run:.2f} s" if args.one_step
             else f"compile {t_compile:.2f} s, run {t_run:.2f} s")
    # CPU time of dlc (both threads of the sim count): wall times are only
    # comparable on an otherwise idle machine.
    times += f" (dlc cpu {child_cpu_seconds() - cpu0:.2f} s)"
    line = (f"{name}: {status} relative error {worst:.3g} (tolerance {args.rtol:g}), "
            f"{times}")
    return not problems, line, "\n".join(problems)


def check_precision_report(out, args):
    """What is wrong with `dlc compile --precision-report` or
    `--precision-tolerance`'s output, or None: a table of the stored values
    worst first, each named by its ONNX node; a tolerance's account."""
    lines = out.splitlines()
    if args.precision_report:
        head = [l for l in lines if l.startswith("precision report: ")]
        if not head or not head[0].startswith(f"precision report: {args.precision}, "):
            return "no 'precision report:' line"
        rows = [l.split() for l in lines if l.startswith("  ") and l[2:3].isdigit()]
        if not rows:
            return "the report lists no value"
        errors = [float(r[0]) for r in rows]
        if errors != sorted(errors, reverse=True):
            return "the report is not sorted worst first"
        if not any(r[3] == "gemm" for r in rows):
            return "the report has no GEMM result"
        # ONNX node names: "name (OpType)", never an unknown location.
        if any("unknown location" in " ".join(r) or "(" not in " ".join(r[5:])
               for r in rows):
            return "a value of the report is not named by its ONNX node"
        if any(e > args.rtol for e in errors[:1]) and not args.precision_tolerance:
            return f"a stored value's error {errors[0]:g} is above {args.rtol:g}"
    if args.precision_tolerance and not any(
            l.startswith(f"precision tolerance {args.precision_tolerance:g}: ")
            for l in lines):
        return "no 'precision tolerance' account"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="default: every test model")
    ap.add_argument("--dlc", required=True, help="the dlc driver")
    ap.add_argument("--work-dir", required=True,
                    help="exported models and dlc's outputs go here")
    ap.add_argument("--export", dest="export_force", action="store_true",
                    help="export again even if an up-to-date export exists")
    ap.add_argument("--one-step", action="store_true",
                    help="`dlc run MODEL.onnx --input NAME=FILE` instead of "
                         "`dlc compile` then `dlc run MODEL.dlcpkg`")
    ap.add_argument("--rtol", type=float, default=None,
                    help="default: 1e-4, and with --precision its tolerance "
                         "from docs/precision.md (bf16 2e-2, fp16 1e-2, fp8 0.1)")
    ap.add_argument("--precision-report", action="store_true",
                    help="compile with --precision-report and check the report")
    ap.add_argument("--precision-tolerance", type=float, default=0.0,
                    help="compile with --precision-tolerance=T and check its account")
    ap.add_argument("--precision", default="f32",
                    choices=["f32", "tf32", "bf16", "fp16", "fp8"],
                    help="dlc compile --precision (not with --one-step)")
    ap.add_argument("--layout", default="auto", choices=["auto", "nchw", "nhwc"],
                    help="dlc compile --layout (not with --one-step)")
    ap.add_argument("--timeout", type=float, default=900,
                    help="seconds per dlc command")
    args = ap.parse_args()
    if args.rtol is None:
        args.rtol = {"bf16": 2e-2, "fp16": 1e-2, "fp8": 0.1,
                     "tf32": 5e-3}.get(args.precision, 1e-4)
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (run with /usr/bin/python3; scripts/install-deps.sh "
              "installs torch, torchvision and onnx)")
        return SKIP
    sys.path.insert(0, HERE)
    import export_models
    names = args.models or export_models.TEST_MODELS
    os.makedirs(args.work_dir, exist_ok=True)
    failed = 0
    for name in names:
        ok, line, details = test_model(args, name)
        print(line, flush=True)
        if details:
            print("  " + details.replace("\n", "\n  "), flush=True)
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
