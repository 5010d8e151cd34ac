#!/usr/bin/python3
"""Checks the benchmark models end to end on the sim device (ctest -L
bench-smoke): generates them (gen_models.py, default --size smoke), compiles
each with `dlc compile`, runs it with `dlc run --device=sim --check` on the
generated inputs, and fails unless every output matches dlc's reference
interpreter within dlc's default tolerance for its type. With --precision
(bf16, fp16, fp8), each model is compiled with `dlc compile --precision=P`
and checked at that precision's tolerance (docs/precision.md).

    check_models.py --dlc build/bin/dlc --work DIR [--weights inputs|constants]
                    [--size smoke] [--only PATTERN,...] [--precision P]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import gen_models  # noqa: E402 (needs numpy)
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)


def run(argv):
    """argv's exit code and output (an OSError, e.g. a missing or unreadable
    dlc, counts as a failure with its message)."""
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        return r.returncode, r.stdout
    except OSError as e:
        return 1, "%s: %s" % (argv[0], e)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dlc", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--weights", choices=["inputs", "constants"], default="inputs")
    p.add_argument("--size", choices=sorted(gen_models.SIZES), default="smoke")
    p.add_argument("--only", action="append", default=[])
    p.add_argument("--precision", choices=["f32", "bf16", "fp16", "fp8"], default="f32")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    names = gen_models.select_models(args.size, args.only)
    failures = []
    for name in names:
        start = time.perf_counter()
        m = gen_models.write_model(name, args.work, args.size, gen_models.DEFAULT_SEED,
                                   args.weights)
        d = os.path.join(args.work, name)
        pkg = os.path.join(d, "model.dlcpkg")
        rc, out = run([args.dlc, "compile", os.path.join(d, "model.mlir"), "-o", pkg,
                       "--no-cubin", "--no-cache", "--precision=" + args.precision])
        if rc != 0:
            failures.append(name)
            print("%s: dlc compile failed:\n%s" % (name, out))
            continue
        # The summary line (remarks of products that stay bf16 under fp8 come
        # before it).
        summary = out.strip().splitlines()[-1].split(": ", 1)[-1] if out.strip() else ""
        argv = [args.dlc, "run", pkg, "--device=sim", "--check", "--quiet"]
        for t in m["inputs"]:
            if t["arg"]:
                argv += ["--input", os.path.join(d, t["file"])]
        rc, out = run(argv)
        checks = re.findall(r"check output_\d+: relative error (\S+) \(tolerance (\S+)[^)]*\) (\w+)",
                            out)
        ok = rc == 0 and checks and all(c[2] == "ok" for c in checks)
        if not ok:
            failures.append(name)
        print("%-22s %s  error %s (tolerance %s)  %.1f s  [%s]" % (
            name, "ok    " if ok else "FAILED",
            ", ".join(c[0] for c in checks) or "-", ", ".join(sorted({c[1] for c in checks})) or "-",
            time.perf_counter() - start, summary))
        if not ok:
            print(out)
    print("%d models, %d failed%s" % (len(names), len(failures),
                                      ": " + ", ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
