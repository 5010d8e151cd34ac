#!/usr/bin/python3
"""ONNX backend node tests through dlc on the sim device.

Generates the ONNX backend test data with the installed onnx package
(`python3 -m onnx.backend.test.cmd_tools generate-data`), then for every node
test imports model.onnx with `dlc import`; a model dlc imports is run with
`dlc run --device=sim` on the test's input_*.pb tensors and its outputs are
compared with output_*.pb. Writes a per-operator table (Markdown) and exits 1
if any test of a supported operator fails.

Each test ends in one of:
  pass         imported, ran, outputs match (rtol 1e-3, atol 1e-5; exact for
               integers and booleans)
  fail         dlc crashed, failed to compile or run an imported model, or
               computed wrong outputs: a bug
  rejected     the op is supported, but dlc rejects this variant with a
               diagnostic (an element type such as double or uint8, an
               attribute value such as Resize mode=cubic, an opset outside
               13-17): a documented limitation
  unsupported  `ONNX node ... is not supported by dlc`

dlc compiles static shapes, so inputs that must be constants (Reshape's
shape, Slice's starts, Clip's bounds, ...) are given as graph inputs in many
node tests: when the import says so, the test is retried with those inputs
frozen into initializers from their input_*.pb data.

usage: onnx-conformance.py --dlc build/bin/dlc [--work DIR] [--report FILE]
                           [--jobs N] [--filter SUBSTRING] [--baseline FILE]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import time


def numpy_compat():
    # Debian's numpy 1.24 removed the aliases onnx 1.12's test generators use.
    import numpy as np
    for name, value in [("float", float), ("int", int), ("bool", bool),
                        ("object", object), ("complex", complex), ("str", str)]:
        if name not in np.__dict__:
            setattr(np, name, value)
    return np


def generate_data(out):
    """Runs onnx's generate-data in a child process with the numpy aliases."""
    code = ("import sys; sys.path.insert(0, %r); import importlib.util as u; "
            "s = u.spec_from_file_location('c', %r); m = u.module_from_spec(s); "
            "s.loader.exec_module(m); m.numpy_compat(); "
            "from onnx.backend.test.cmd_tools import main; "
            "sys.argv = ['generate-data', 'generate-data', '-o', %r]; main()"
            % (os.path.dirname(__file__), os.path.abspath(__file__), out))
    subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True,
                   stdout=subprocess.DEVNULL)


def load_tensor(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def freeze_inputs(model_path, data_dir, keep_first, out_path):
    """Writes a copy of the model whose graph inputs (all, or all but the
    first) are initializers holding the test's input data."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(model_path)
    inits = {i.name for i in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    keep = inputs[:1] if keep_first else []
    for idx, inp in enumerate(inputs):
        if inp in keep:
            continue
        arr = load_tensor(os.path.join(data_dir, "input_%d.pb" % idx))
        m.graph.initializer.append(numpy_helper.from_array(arr, inp.name))
    del m.graph.input[:]
    m.graph.input.extend(keep)
    onnx.save(m, out_path)
    return [0] if keep_first else []


def shape_args(model_path, data_dir, input_ids):
    """--input-shape options for graph inputs whose declared shape is dynamic
    or differs from the test data's (a few onnx 1.12 tests declare a shape
    their data does not have)."""
    import onnx
    m = onnx.load(model_path)
    inits = {i.name for i in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    args = []
    for inp, i in zip(inputs, input_ids):
        if not inp.type.HasField("tensor_type"):
            continue  # sequences and optionals: the import rejects them
        try:
            data = load_tensor(os.path.join(data_dir, "input_%d.pb" % i))
        except Exception:
            continue
        dims = inp.type.tensor_type.shape.dim
        declared = [d.dim_value if d.HasField("dim_value") else -1 for d in dims]
        if declared != list(data.shape):
            args += ["--input-shape",
                     "%s=%s" % (inp.name, "x".join(str(d) for d in data.shape))]
    return args


def compare(got, want, rtol=1e-3):
    import numpy as np
    if got.dtype.kind == "V" and got.dtype.itemsize == 2:
        # dlc writes bf16 as raw 2-byte values: widen to float32.
        got = (got.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (list(got.shape), list(want.shape))
    if want.dtype.kind in "biu":
        if not np.array_equal(got.astype(np.int64), want.astype(np.int64)):
            return "integer/boolean values differ"
        return None
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    if not np.allclose(g, w, rtol=rtol, atol=1e-5, equal_nan=True):
        err = np.nanmax(np.abs(g - w))
        return "max abs error %.3g" % err
    return None


def run_test(dlc, test_dir, work):
    """Returns (status, detail)."""
    name = os.path.basename(test_dir)
    model = os.path.join(test_dir, "model.onnx")
    data = os.path.join(test_dir, "test_data_set_0")
    out_dir = os.path.join(work, name)
    os.makedirs(out_dir, exist_ok=True)
    n_inputs = len([f for f in os.listdir(data) if f.startswith("input_")])
    input_ids = list(range(n_inputs))

    # A file, not os.devnull: dlc writes outputs atomically (a temporary
    # file renamed over the output) and refuses to replace anything but a
    # regular file.
    imported = os.path.join(out_dir, "imported.mlir")

    def dlc_cmd(args):
        # A dlc binary being relinked by a concurrent build cannot be
        # executed for a moment: retry before giving up.
        for attempt in range(5):
            try:
                return subprocess.run([dlc] + args, capture_output=True,
                                      text=True, timeout=300)
            except subprocess.TimeoutExpired:
                return None
            except OSError:
                if attempt == 4:
                    raise
                time.sleep(2)

    proc = dlc_cmd(["import", model, "-o", imported] +
                   shape_args(model, data, input_ids))
    old_opset = proc is not None and re.search(
        r"uses opset (\d+) of the default domain", proc.stderr)
    if old_opset and int(old_opset.group(1)) < 13:
        # dlc imports opsets 13-17; older models go through onnx's converter,
        # as the diagnostic suggests to users.
        import onnx
        from onnx import version_converter
        converted = os.path.join(out_dir, "opset13.onnx")
        try:
            onnx.save(version_converter.convert_version(onnx.load(model), 13),
                      converted)
        except Exception as e:
            return "rejected", "opset %s; onnx.version_converter failed: %s" % (
                old_opset.group(1), str(e).splitlines()[0][:80])
        model = converted
        proc = dlc_cmd(["import", model, "-o", imported] +
                       shape_args(model, data, input_ids))
    attempts = [True, False]
    while (proc is not None and proc.returncode == 1 and
           re.search(r"must be (a )?constant", proc.stderr) and attempts):
        keep_first = attempts.pop(0)
        frozen = os.path.join(out_dir, "frozen.onnx")
        input_ids = freeze_inputs(model, data, keep_first, frozen)
        model = frozen
        proc = dlc_cmd(["import", model, "-o", imported] +
                       shape_args(model, data, input_ids))
    if proc is None:
        return "fail", "import timed out"
    if proc.returncode != 0:
        msg = proc.stderr.strip().splitlines()
        msg = msg[-1] if msg else "exit %d" % proc.returncode
        if proc.returncode != 1 or "error:" not in proc.stderr:
            return "fail", "import crashed (exit %d): %s" % (proc.returncode, msg)
        msg = re.sub(r"^.*?error: ", "", msg)
        if "is not supported by dlc" in msg:
            return "unsupported", msg
        return "rejected", msg
    # onnx 1.12 stores bfloat16 test tensors as uint16 bits: retype them.
    import onnx
    m = onnx.load(model)
    inits = {i.name for i in m.graph.initializer}
    in_types = [i.type.tensor_type.elem_type for i in m.graph.input
                if i.name not in inits]
    out_types = [o.type.tensor_type.elem_type for o in m.graph.output]
    args = ["run", model, "--device=sim", "--quiet", "--output-dir", out_dir]
    args += shape_args(model, data, input_ids)
    for k, i in enumerate(input_ids):
        path = os.path.join(data, "input_%d.pb" % i)
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        if (t.data_type == onnx.TensorProto.UINT16 and k < len(in_types) and
                in_types[k] == onnx.TensorProto.BFLOAT16):
            t.data_type = onnx.TensorProto.BFLOAT16
            path = os.path.join(out_dir, "input_%d.pb" % i)
            with open(path, "wb") as f:
                f.write(t.SerializeToString())
        args += ["--input", path]
    proc = dlc_cmd(args)
    if proc is None:
        return "fail", "dlc run timed out"
    if proc.returncode != 0:
        msg = proc.stderr.strip().splitlines()
        return "fail", "dlc run failed (exit %d): %s" % (
            proc.returncode, msg[-1] if msg else "")
    n_outputs = len([f for f in os.listdir(data) if f.startswith("output_")])
    import numpy as np
    for i in range(n_outputs):
        want = load_tensor(os.path.join(data, "output_%d.pb" % i))
        bf16 = i < len(out_types) and out_types[i] == onnx.TensorProto.BFLOAT16
        if bf16 and want.dtype == np.uint16:
            want = (want.astype(np.uint32) << 16).view(np.float32)
        path = os.path.join(out_dir, "output_%d.npy" % i)
        if not os.path.exists(path):
            return "fail", "output %d missing" % i
        try:
            problem = compare(np.load(path), want, 1e-2 if bf16 else 1e-3)
        except Exception as e:  # an unreadable or odd output is a failure
            problem = "cannot compare: %s" % e
        if problem:
            return "fail", "output %d: %s" % (i, problem)
    return "pass", ""


def op_of(test_dir):
    import onnx
    m = onnx.load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
    ops = [n.op_type for n in m.graph.node]
    return ops[0] if len(ops) == 1 else None, ops


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dlc", required=True)
    parser.add_argument("--work", default="build/onnx-conformance")
    parser.add_argument("--report", help="write the Markdown table here")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--filter", default="")
    parser.add_argument("--baseline",
                        help="a report of an earlier run (docs/onnx-coverage.md): "
                        "exit 1 if an operator passes fewer of its tests now")
    args = parser.parse_args()
    numpy_compat()
    dlc = os.path.abspath(args.dlc)
    data_root = os.path.join(args.work, "data")
    node_root = os.path.join(data_root, "node")
    if not os.path.isdir(node_root):
        print("generating the ONNX backend test data in %s" % data_root)
        generate_data(data_root)
    tests = sorted(d for d in os.listdir(node_root)
                   if d.startswith("test_") and args.filter in d)

    # The operator a test belongs to: its single node's op; an expanded test
    # (a function body) belongs to the op of the test it expands.
    op = {}
    for t in tests:
        single, ops = op_of(os.path.join(node_root, t))
        op[t] = single or "(graph)"
    for t in tests:
        if t.endswith("_expanded") and t[:-len("_expanded")] in op:
            op[t] = op[t[:-len("_expanded")]]

    results = {}
    run_dir = os.path.join(args.work, "runs")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_test, dlc, os.path.join(node_root, t),
                               run_dir): t for t in tests}
        for n, f in enumerate(concurrent.futures.as_completed(futures)):
            t = futures[f]
            try:
                results[t] = f.result()
            except Exception as e:
                results[t] = ("fail", "could not run the test: %s" % e)
            status, detail = results[t]
            if status == "fail":
                print("FAIL %s: %s" % (t, detail), flush=True)

    counts = collections.Counter(s for s, _ in results.values())
    by_op = collections.defaultdict(collections.Counter)
    for t, (s, _) in results.items():
        by_op[op[t]][s] += 1
    # An operator counts as supported once dlc imports one of its tests.
    supported_ops = sorted(o for o, c in by_op.items() if c["pass"] or c["fail"])
    unsupported_ops = sorted(o for o in by_op if o not in supported_ops)

    lines = ["# ONNX backend node tests on dlc", "",
             "Generated by `scripts/onnx-conformance.py` from the node tests of "
             "the installed onnx package (%s), run with `dlc run --device=sim`."
             % __import__("onnx").__version__,
             "",
             "Totals: **%d tests: %d pass, %d fail, %d rejected, %d unsupported**."
             % (len(results), counts["pass"], counts["fail"], counts["rejected"],
                counts["unsupported"]),
             "",
             "*rejected*: dlc supports the operator but rejects this test's "
             "variant with a diagnostic (an element type such as double or "
             "int8, an attribute value). *unsupported*: the import says `ONNX "
             "node ... is not supported by dlc`. Tests written for opsets "
             "before 13 are converted to opset 13 with onnx.version_converter "
             "first (dlc imports opsets 13-17). Inputs that dlc needs as "
             "constants (shapes, axes, pads, bounds) are frozen into "
             "initializers from the test data.",
             "",
             "## Supported operators", "",
             "| operator | tests | pass | fail | rejected |",
             "|---|---|---|---|---|"]
    for o in supported_ops:
        c = by_op[o]
        lines.append("| %s | %d | %d | %d | %d |" % (
            o, sum(c.values()), c["pass"], c["fail"],
            c["rejected"] + c["unsupported"]))
    lines += ["", "## Failing tests", ""]
    fails = sorted(t for t, (s, _) in results.items() if s == "fail")
    lines += ["- `%s`: %s" % (t, results[t][1]) for t in fails] or ["None."]
    lines += ["", "## Rejected variants of supported operators", ""]
    reasons = collections.defaultdict(list)
    for t, (s, d) in sorted(results.items()):
        if s == "rejected" or (s == "unsupported" and op[t] in supported_ops):
            reasons[re.sub(r"'[^']*'", "'…'", d)].append(t)
    for reason, ts in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        lines.append("- %s (%d): %s" % (reason, len(ts),
                                        ", ".join("`%s`" % t for t in ts)))
    lines += ["", "## Operators without a test dlc imports", "",
              "Unsupported operators, and operators whose every test here "
              "is rejected (training ops, sequences, opsets the converter "
              "cannot lift, unsupported element types): ",
              "",
              ", ".join("%s (%d)" % (o, sum(by_op[o].values()))
                        for o in unsupported_ops), ""]
    report = "\n".join(lines)
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w") as f:
            f.write(report)
    print("%d tests: %d pass, %d fail, %d rejected, %d unsupported" %
          (len(results), counts["pass"], counts["fail"], counts["rejected"],
           counts["unsupported"]))
    status = 1 if counts["fail"] else 0
    if args.baseline and not args.filter:
        # An operator passing fewer tests than before regressed (to a
        # rejection, or a harness problem that rejects everything).
        now = {o: by_op[o]["pass"] for o in by_op}
        for line in open(args.baseline).read().splitlines():
            m = re.match(r"\| (\w+) \| (\d+) \| (\d+) \| \d+ \| \d+ \|$", line)
            if m and now.get(m.group(1), 0) < int(m.group(3)):
                print("regression: %s passes %d of its tests, %s in %s" % (
                    m.group(1), now.get(m.group(1), 0), m.group(3),
                    args.baseline))
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
