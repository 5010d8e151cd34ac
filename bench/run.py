#!/usr/bin/env python3
"""The dlc benchmark: dlc against PyTorch eager and torch.compile.

For each model of bench/models/gen_models.py, in one process on one GPU:

  dlc           the compiled package, run by dlc-run --benchmark (CUDA events
                around each CUDA Graph replay) and --profile (each step)
  eager         the same PyTorch module (bench/torch_models.py)
  compile       torch.compile(module), default mode
  max-autotune  torch.compile(module, mode="max-autotune")

each timed as the median of --iterations runs after --warmup runs, every run
between two CUDA events recorded back to back on the stream (as dlc-run
does), and every output compared in the same run with an f32 reference
computed by PyTorch without TF32 (for bf16 models from the same bf16
values): relative error by norm, tolerances in TOLERANCES. The ceilings of
the GPU are measured in the same process: a large device-to-device copy
(GB/s, bytes read plus written) and large matrix products through
torch.matmul (bf16, and f32 without TF32); each dlc step's achieved
bandwidth or FLOP rate is reported as a fraction of them.

Writes <results>/<date>-<device>[-<tag>].json and .md (docs/benchmarks.md
describes the fields), updated after every model, so that a run stopped by
a time limit keeps what it measured.

GPU machine (after scripts/gpu-bundle.sh here, the bundle carried there):
    python3 bench/run.py --bundle .carry/bench --results $OUT
Smoke test (CPU PyTorch, the sim device, tiny models; what ctest runs):
    /usr/bin/python3 bench/run.py --smoke --dlc build/bin/dlc --dlc-run build/bin/dlc-run
Merging the results of several runs (several device calls):
    python3 bench/run.py --merge a.json b.json --results bench/results
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "models"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_models  # noqa: E402

# Relative error by norm allowed against the f32 reference (PyTorch without
# TF32): f32 outputs (full f32 GEMMs, other summation orders), f32 outputs
# of TF32 matrix products (10-bit mantissas; PyTorch's, and dlc's with
# --tf32), and bf16 outputs (8-bit mantissas, rounded between kernels).
TOLERANCES = {"f32": 1e-4, "tf32": 1e-2, "bf16": 3e-2}
# --precision runs of f32 models (dlc's documented tolerances, docs/precision.md;
# PyTorch's autocast runs are held to the bf16 one).
PRECISION_TOLERANCES = {"bf16": 2e-2, "fp16": 1e-2, "fp8": 0.1}

MODES = ("dlc", "eager", "compile", "max-autotune")


def log(msg):
    print(msg, flush=True)


def relative_error(a, ref):
    a = np.asarray(a, dtype=np.float64).ravel()
    ref = np.asarray(ref, dtype=np.float64).ravel()
    if a.shape != ref.shape:
        return float("inf")
    if not np.all(np.isfinite(a)):
        return float("inf")
    diff = np.linalg.norm(a - ref)
    return float(diff / max(np.linalg.norm(ref), 1e-30))


def median(xs):
    return float(np.median(np.asarray(xs, dtype=np.float64)))


def stats(times):
    t = np.asarray(times, dtype=np.float64)
    return dict(median_ms=float(np.median(t)), min_ms=float(t.min()),
                p10_ms=float(np.percentile(t, 10)), p90_ms=float(np.percentile(t, 90)),
                mean_ms=float(t.mean()), iterations=int(t.size))


#===----------------------------------------------------------------------===#
# Timing PyTorch
#===----------------------------------------------------------------------===#


class Timer:
    """Times a callable like dlc-run does: on a GPU every run between two
    CUDA events, all runs enqueued back to back, one synchronization at the
    end; on the CPU with perf_counter."""

    def __init__(self, torch, cuda):
        self.torch = torch
        self.cuda = cuda

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def __call__(self, fn, warmup, iterations):
        torch = self.torch
        for _ in range(warmup):
            fn()
        self.sync()
        if not self.cuda:
            times = []
            for _ in range(iterations):
                start = time.perf_counter()
                fn()
                times.append((time.perf_counter() - start) * 1e3)
            return times
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iterations)]
        for i in range(iterations):
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def measure_ceilings(torch, timer, smoke):
    """Device-to-device copy bandwidth and matrix-product FLOP rates."""
    dev = "cuda" if timer.cuda else "cpu"
    out = {}
    n_bytes = (64 << 20) if smoke else (2 << 30)
    src = torch.empty(n_bytes // 4, dtype=torch.float32, device=dev).uniform_()
    dst = torch.empty_like(src)
    t = median(timer(lambda: dst.copy_(src), 3, 10 if smoke else 50))
    out["copy_GBps"] = 2 * n_bytes / (t * 1e6)
    out["copy_bytes"] = n_bytes
    del src, dst
    n = 256 if smoke else 8192
    allow = torch.backends.cuda.matmul.allow_tf32 if timer.cuda else None
    for name, dtype in (("gemm_bf16_TFLOPs", torch.bfloat16), ("gemm_f32_TFLOPs", torch.float32)):
        if smoke and dtype == torch.bfloat16:
            continue  # CPU bf16 products are emulated: not a ceiling
        a = torch.randn(n, n, device=dev).to(dtype)
        b = torch.randn(n, n, device=dev).to(dtype)
        if timer.cuda:
            torch.backends.cuda.matmul.allow_tf32 = False
        t = median(timer(lambda: torch.matmul(a, b), 3, 10 if smoke else 30))
        out[name] = 2 * n ** 3 / (t * 1e9)
        del a, b
    if timer.cuda:
        torch.backends.cuda.matmul.allow_tf32 = allow
        a = torch.randn(n, n, device=dev)
        b = torch.randn(n, n, device=dev)
        torch.backends.cuda.matmul.allow_tf32 = True
        t = median(timer(lambda: torch.matmul(a, b), 3, 30))
        out["gemm_tf32_TFLOPs"] = 2 * n ** 3 / (t * 1e9)
        torch.backends.cuda.matmul.allow_tf32 = allow
        del a, b
        torch.cuda.empty_cache()
    out["gemm_size"] = n
    return out


#===----------------------------------------------------------------------===#
# dlc
#===----------------------------------------------------------------------===#


class Dlc:
    """The dlc tools: dlc-run, and dlc when packages are compiled here."""

    def __init__(self, dlc_run, dlc, env, device):
        self.dlc_run = dlc_run
        self.dlc = dlc
        self.env = env
        self.device = device

    def run(self, argv, timeout=1800):
        return subprocess.run(argv, env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True,
                              timeout=timeout)

    def compile(self, mlir, package, arch, tf32=False, precision=None, calibration=(),
                generated_gemm_speed=None):
        argv = [self.dlc, "compile", mlir, "-o", package, "--quiet"]
        argv += ["--arch=" + arch] if arch else ["--no-cubin"]
        if tf32:
            argv.append("--tf32")
        if generated_gemm_speed is not None:
            argv.append("--generated-gemm-speed=%g" % generated_gemm_speed)
        if precision:
            argv.append("--precision=" + precision)
        # fp16's ranges and fp8's scales from the benchmark's own inputs, as
        # a user calibrates on representative data.
        for f in calibration:
            argv += ["--calibration-input", f]
        start = time.perf_counter()
        r = self.run(argv)
        seconds = time.perf_counter() - start
        if r.returncode != 0:
            raise RuntimeError("dlc compile failed:\n" + r.stdout[-4000:])
        return seconds

    def benchmark(self, package, inputs, out_dir, iterations, warmup, profile_runs):
        os.makedirs(out_dir, exist_ok=True)
        report = os.path.join(out_dir, "dlc.json")
        argv = [self.dlc_run, package, "--device=" + self.device, "--quiet",
                "--output-dir", out_dir, "--benchmark", str(iterations),
                "--warmup", str(warmup), "--benchmark-json", report]
        if profile_runs:
            argv += ["--profile", str(profile_runs)]
        for path in inputs:
            argv += ["--input", path]
        r = self.run(argv)
        if r.returncode != 0:
            raise RuntimeError("dlc-run failed:\n" + r.stdout[-4000:])
        with open(report) as f:
            return json.load(f), os.path.join(out_dir, "output_0.npy"), r.stdout


def find_library(names, roots):
    """The first file matching one of `names` (globs) under `roots`."""
    for root in roots:
        for name in names:
            hits = sorted(glob.glob(os.path.join(root, "**", name), recursive=True))
            if hits:
                return hits[0]
    return None


def python_lib_roots():
    roots = []
    for p in sys.path:
        if p.endswith("site-packages") and os.path.isdir(os.path.join(p, "nvidia")):
            roots.append(os.path.join(p, "nvidia"))
    return roots


def setup_runtime_env(env, info_text):
    """Points the runtime at NVRTC and cuBLAS from PyTorch's wheels when the
    system has none (dlc opens them with dlopen)."""
    notes = []
    def prepend(d):
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [d] + [x for x in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if x])

    if "NVRTC: not available" in info_text:
        lib = find_library(["libnvrtc.so.13*"], python_lib_roots())
        if lib:
            prepend(os.path.dirname(lib))
            notes.append("NVRTC from " + os.path.dirname(lib))
    if not env.get("DLC_CUBLAS_LIB") and not os.path.exists("/usr/local/cuda/lib64/libcublas.so.13"):
        lib = find_library(["libcublas.so.13*"], python_lib_roots())
        if lib:
            # Its libcublasLt beside it, found through the loader path.
            prepend(os.path.dirname(lib))
            notes.append("cuBLAS from " + os.path.dirname(lib))
    # Convolution steps run on cuDNN 9: PyTorch's wheel ships it.
    if not env.get("DLC_CUDNN_LIB") and not glob.glob("/usr/local/cuda/lib64/libcudnn.so.9*"):
        lib = find_library(["libcudnn.so.9*"], python_lib_roots())
        if lib:
            env["DLC_CUDNN_LIB"] = lib
            prepend(os.path.dirname(lib))
            notes.append("cuDNN from " + os.path.dirname(lib))
    return notes


def build_runner_from_source(work):
    """dlc-run from this checkout with the runtime alone (no MLIR needed),
    for a machine where the carried binary does not start."""
    build = os.path.join(work, "build-runtime")
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(["cmake", "-S", REPO, "-B", build, "-DDLC_BUILD_COMPILER=OFF",
                    "-DCMAKE_BUILD_TYPE=Release"] + gen, check=True)
    subprocess.run(["cmake", "--build", build, "--target", "dlc-run", "-j",
                    str(os.cpu_count() or 4)], check=True)
    return os.path.join(build, "bin", "dlc-run")


def works(argv, env):
    # A carried file may arrive without its executable bit.
    if os.path.isfile(argv[0]) and not os.access(argv[0], os.X_OK):
        try:
            os.chmod(argv[0], 0o755)
        except OSError:
            pass
    try:
        return subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=60).returncode == 0
    except OSError:
        return False


#===----------------------------------------------------------------------===#
# Results
#===----------------------------------------------------------------------===#


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "unknown"


def fmt_ms(x):
    if x is None:
        return "-"
    return "%.3f" % x if x < 10 else "%.2f" % x


def best_torch(entry):
    best = None
    for mode in ("eager", "compile", "max-autotune"):
        r = entry.get(mode)
        if r and r.get("median_ms") is not None and (best is None or r["median_ms"] < best[1]):
            best = (mode, r["median_ms"])
    return best


def markdown(results):
    lines = ["# dlc benchmark: %s" % results.get("device", "?"), ""]
    env = results.get("environment", {})
    lines.append("Date %s; %s; PyTorch %s (CUDA %s, Triton %s); dlc %s." % (
        results.get("date"), results.get("device"), env.get("torch"), env.get("cuda"),
        env.get("triton"), env.get("dlc_commit")))
    s = results.get("settings", {})
    lines.append("PyTorch attention: %s." % s.get("torch_attention", "explicit"))
    if s.get("generated_gemm_speed") is not None:
        lines.append("dlc compiled with --generated-gemm-speed=%g (f32 models)."
                     % s["generated_gemm_speed"])
    lines.append("Median of %s runs after %s warm-up runs (%s); "
                 "PyTorch TF32 %s for f32 models; dlc weights as %s (by default); tolerances "
                 "(relative error by norm against PyTorch f32 without TF32): %s." % (
                     s.get("iterations"), s.get("warmup"), s.get("timing"),
                     "on" if s.get("tf32") else "off",
                     s.get("weights"), ", ".join("%s %g" % kv for kv in sorted(TOLERANCES.items()))))
    c = results.get("ceilings", {})
    if c:
        lines.append("")
        lines.append("Ceilings: copy %.0f GB/s (read + write), bf16 GEMM %.0f TFLOP/s, "
                     "f32 GEMM %.1f TFLOP/s%s." % (
                         c.get("copy_GBps", 0), c.get("gemm_bf16_TFLOPs", 0) or 0,
                         c.get("gemm_f32_TFLOPs", 0) or 0,
                         ", TF32 GEMM %.0f TFLOP/s" % c["gemm_tf32_TFLOPs"]
                         if c.get("gemm_tf32_TFLOPs") else ""))
    lines += ["", "| model | dtype | dlc ms | eager ms | compile ms | max-autotune ms "
              "| dlc speedup vs best PyTorch | dlc error | dlc weights | all outputs ok |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for e in results.get("models", []):
        best = best_torch(e)
        d = e.get("dlc") or {}
        speed = "-"
        if best and d.get("median_ms"):
            speed = "%.2fx (%s)" % (best[1] / d["median_ms"], best[0])
        ok = all((e.get(m) or {}).get("ok", True) for m in MODES)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            e["base"], e["dtype"], fmt_ms(d.get("median_ms")),
            fmt_ms((e.get("eager") or {}).get("median_ms")),
            fmt_ms((e.get("compile") or {}).get("median_ms")),
            fmt_ms((e.get("max-autotune") or {}).get("median_ms")),
            speed, "%.2g" % d["error"] if d.get("error") is not None else "-",
            e.get("dlc_weights", "-"), "yes" if ok else "**no**"))
    notes = [e for e in results.get("models", []) if e.get("notes")]
    if notes or results.get("notes"):
        lines += ["", "Notes:"]
        for n in results.get("notes", []):
            lines.append("- " + n)
        for e in notes:
            for n in e["notes"]:
                lines.append("- %s: %s" % (e["name"], n))
    lines += precision_markdown(results)
    lines += ["", "## dlc's steps against the ceilings", "",
              "Each step's median time (dlc-run --profile, direct launches), its bytes "
              "(each buffer it reads or writes once) and FLOPs, as a fraction of the "
              "copy bandwidth (kernels, copies) or of the GEMM ceiling of the model's "
              "dtype (GEMMs, and kernels with matrix products: flash attention). "
              "The five slowest steps of each model:", ""]
    for e in results.get("models", []):
        steps = ((e.get("dlc") or {}).get("profile") or [])
        if not steps:
            continue
        lines.append("**%s** (%d steps; their medians add up to %.3f ms, %.0f%% of "
                     "the whole run's median):" % (
            e["name"], len(steps), sum(x["ms"] for x in steps),
            100 * sum(x["ms"] for x in steps) / e["dlc"]["median_ms"]))
        lines.append("")
        lines.append("| step | kind | ms | share | GB/s | TFLOP/s | of ceiling | label |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for x in sorted(steps, key=lambda x: -x["ms"])[:5]:
            lines.append("| %d | %s | %.4f | %.1f%% | %.1f | %s | %s | %s |" % (
                x["step"], x["kind"], x["ms"], 100 * x["share"], x["GBps"],
                "%.1f" % x["TFLOPs"] if x.get("TFLOPs") else "-",
                "%.0f%%" % (100 * x["fraction"]) if x.get("fraction") is not None else "-",
                x["label"].replace("|", "/")))
        lines.append("")
    return "\n".join(lines) + "\n"


def write_results(results, path_json):
    tmp = path_json + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    os.replace(tmp, path_json)
    md = os.path.splitext(path_json)[0] + ".md"
    with open(md + ".tmp", "w") as f:
        f.write(markdown(results))
    os.replace(md + ".tmp", md)


def merge(paths, results_dir, tag):
    merged = None
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        if merged is None:
            merged = r
            continue
        by_name = {e["name"]: e for e in merged["models"]}
        for e in r["models"]:
            old = by_name.get(e["name"])
            if old is None:
                merged["models"].append(e)
                by_name[e["name"]] = e
            else:
                # A measurement replaces a missing or failed one, never the
                # other way round.
                for mode in MODES:
                    new, prev = e.get(mode), old.get(mode)
                    if new and (not prev or new.get("ok") or not prev.get("ok")):
                        old[mode] = new
                        if mode == "dlc" and "dlc_weights" in e:
                            old["dlc_weights"] = e["dlc_weights"]
                old["notes"] = sorted(set(old.get("notes", []) + e.get("notes", [])))
        for k, v in r.get("ceilings", {}).items():
            merged.setdefault("ceilings", {}).setdefault(k, v)
        merged["notes"] = sorted(set(merged.get("notes", []) + r.get("notes", [])))
    name = "%s-%s%s.json" % (merged["date"], slug(merged["device"]), "-" + tag if tag else "")
    os.makedirs(results_dir, exist_ok=True)
    out = os.path.join(results_dir, name)
    write_results(merged, out)
    log("wrote %s and %s" % (out, os.path.splitext(out)[0] + ".md"))


#===----------------------------------------------------------------------===#
# One model
#===----------------------------------------------------------------------===#


def profile_fractions(report, ceilings, dtype, tf32=False):
    prof = report.get("profile") or {}
    out = []
    gemm_ceiling = ceilings.get("gemm_bf16_TFLOPs" if dtype == "bf16" else
                                "gemm_tf32_TFLOPs" if tf32 else "gemm_f32_TFLOPs")
    for s in prof.get("steps", []):
        ms = s["ms"] or 0.0
        gbps = s["bytes"] / (ms * 1e6) if ms > 0 else 0.0
        tflops = s["flops"] / (ms * 1e9) if ms > 0 and s["flops"] else None
        # Matrix work (a GEMM, or a kernel with products of its own such
        # as flash attention, whose FLOPs the package records) against the
        # GEMM rate; everything else against the copy bandwidth.
        if tflops and gemm_ceiling:
            fraction = tflops / gemm_ceiling
        elif not s["flops"] and ceilings.get("copy_GBps"):
            fraction = gbps / ceilings["copy_GBps"]
        else:
            fraction = None
        out.append(dict(step=s["step"], kind=s["kind"], label=s["label"], ms=ms,
                        share=s["share"], bytes=s["bytes"], flops=s["flops"],
                        GBps=gbps, TFLOPs=tflops, fraction=fraction))
    return out


def run_model(name, args, ctx):
    torch = ctx["torch"]
    timer = ctx["timer"]
    device = "cuda" if timer.cuda else "cpu"
    entry = dict(name=name, notes=[])
    models_dir = os.path.join(args.work, "models")
    t0 = time.perf_counter()
    manifest = gen_models.write_model(name, models_dir, ctx["size"], ctx["seed"],
                                      ctx["weights"], mlir=ctx["compile_here"],
                                      npy=True, log=log)
    entry.update(base=manifest["base"], family=manifest["family"], dtype=manifest["dtype"],
                 config=manifest["config"], flops=manifest["flops"],
                 min_bytes=manifest["min_bytes"],
                 generate_s=time.perf_counter() - t0)
    mdir = os.path.join(models_dir, name)
    mpath = os.path.join(mdir, "manifest.json")
    dtype = manifest["dtype"]

    # The f32 reference, without TF32.
    if timer.cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    with torch.no_grad():
        ref_model, ref_inputs = ctx["torch_models"].build(mpath, device, torch.float32)
        ref = ref_model(*ref_inputs).float().cpu().numpy()
    del ref_model, ref_inputs
    tf32 = bool(args.tf32 == "on" and timer.cuda)
    if timer.cuda:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        torch.cuda.empty_cache()
    torch_tol = TOLERANCES["bf16"] if dtype == "bf16" else (
        TOLERANCES["tf32"] if tf32 else TOLERANCES["f32"])

    if "dlc" in args.modes:
        try:
            # Arguments in order: with weights as inputs, every tensor of the
            # manifest (activations and weights are listed in argument order).
            inputs = [os.path.join(mdir, t["file"]) for t in manifest["inputs"] if t["arg"]]
            # f32 models use TF32 GEMMs whenever PyTorch does (--tf32 on).
            dlc_tf32 = tf32 and dtype == "f32"
            # --generated-gemm-speed 1: the bundle's NAME.gengemm.dlcpkg.
            variant = ".tf32" if dlc_tf32 else (
                ".gengemm" if args.generated_gemm_speed == 1 and dtype == "f32" else "")
            bundled = os.path.join(args.bundle, "packages", name + variant + ".dlcpkg") \
                if args.bundle else None
            if ctx["compile_here"]:
                package = os.path.join(args.work, "packages", name + ".dlcpkg")
                os.makedirs(os.path.dirname(package), exist_ok=True)
                try:
                    entry["dlc_compile_s"] = ctx["dlc"].compile(
                        os.path.join(mdir, "model.mlir"), package, ctx["arch"],
                        tf32=dlc_tf32, generated_gemm_speed=args.generated_gemm_speed)
                    entry["dlc_weights"] = ctx["weights"]
                except RuntimeError as e:
                    if not bundled or not os.path.exists(bundled):
                        raise
                    # The bundle's package takes the weights as inputs.
                    package = bundled
                    inputs = [os.path.join(mdir, t["file"]) for t in manifest["inputs"]]
                    entry["dlc_weights"] = "inputs"
                    entry["notes"].append("weights as inputs (the bundle's package): "
                                          + str(e).replace("\n", " ")[:300])
                    log("  dlc compile failed here; running the bundle's package")
            else:
                package = bundled
                entry["dlc_weights"] = "inputs"
            if package == bundled and args.generated_gemm_speed not in (None, 1):
                entry["notes"].append("the bundle's packages are compiled at dlc's default "
                                      "and at --generated-gemm-speed=1 only: ran the default")
            report, out_path, _ = ctx["dlc"].benchmark(
                package, inputs, os.path.join(args.work, "out", name),
                args.iterations, args.warmup, args.profile_runs)
            out = gen_models.load_npy_f32(out_path)
            err = relative_error(out, ref)
            tol = TOLERANCES["tf32"] if dlc_tf32 else TOLERANCES[dtype]
            entry["dlc_tf32"] = dlc_tf32
            entry["dlc_generated_gemm_speed"] = args.generated_gemm_speed
            entry["dlc"] = dict(
                median_ms=report["median_ms"], min_ms=report["min_ms"],
                p10_ms=report["p10_ms"], p90_ms=report["p90_ms"], mean_ms=report["mean_ms"],
                iterations=report["iterations"], cuda_graph=report["cuda_graph"],
                timing=report["timing"], device=report["device"],
                steps=report["steps"], arena_bytes=report["arena_bytes"],
                input_bytes=report["input_bytes"], output_bytes=report["output_bytes"],
                error=err, tolerance=tol, ok=err <= tol,
                profile=profile_fractions(report, ctx["ceilings"], dtype, dlc_tf32))
            ctx["dlc_device"] = report["device"]
            log("  dlc           %s ms (p10 %s, p90 %s), error %.2g%s" % (
                fmt_ms(report["median_ms"]), fmt_ms(report["p10_ms"]),
                fmt_ms(report["p90_ms"]), err, "" if err <= tol else "  ** ABOVE %g **" % tol))
        except Exception as e:  # one model's failure must not end the run
            entry["dlc"] = dict(ok=False, failure=str(e)[-2000:])
            entry["notes"].append("dlc failed: " + str(e).splitlines()[0])
            log("  dlc failed: %s" % e)

    if args.precision and dtype == "f32":
        entry["precisions"] = run_precisions(name, args, ctx, mdir, manifest, ref)

    torch_modes = [m for m in ("eager", "compile", "max-autotune") if m in args.modes]
    if torch_modes:
        model, inputs = ctx["torch_models"].build(mpath, device)
        for mode in torch_modes:
            if mode != "eager" and not hasattr(torch, "compile"):
                entry[mode] = None
                note = "%s skipped: PyTorch %s has no torch.compile" % (mode, torch.__version__)
                if note not in ctx["notes"]:
                    ctx["notes"].append(note)
                continue
            try:
                with torch.no_grad():
                    fn = model
                    compile_s = None
                    if mode != "eager":
                        torch._dynamo.reset()
                        fn = torch.compile(model, mode=None if mode == "compile" else mode,
                                           dynamic=False)
                        start = time.perf_counter()
                        fn(*inputs)
                        timer.sync()
                        compile_s = time.perf_counter() - start
                    out = fn(*inputs).float().cpu().numpy()
                    err = relative_error(out, ref)
                    times = timer(lambda: fn(*inputs), args.warmup, args.iterations)
                r = stats(times)
                r.update(error=err, tolerance=torch_tol, ok=err <= torch_tol)
                if compile_s is not None:
                    r["compile_s"] = compile_s
                entry[mode] = r
                log("  %-13s %s ms (p10 %s, p90 %s), error %.2g%s%s" % (
                    mode, fmt_ms(r["median_ms"]), fmt_ms(r["p10_ms"]), fmt_ms(r["p90_ms"]),
                    err, ", compiled in %.1f s" % compile_s if compile_s is not None else "",
                    "" if err <= torch_tol else "  ** ABOVE %g **" % torch_tol))
            except Exception as e:
                entry[mode] = dict(ok=False, failure=str(e)[-2000:])
                entry["notes"].append("%s failed: %s" % (mode, str(e).splitlines()[0][:300]))
                log("  %s failed: %s" % (mode, str(e).splitlines()[0][:300]))
        del model, inputs
        if timer.cuda:
            torch.cuda.empty_cache()
    return entry


def run_precisions(name, args, ctx, mdir, manifest, ref):
    """--precision: the f32 model compiled by dlc with --precision=P, and
    PyTorch under torch.autocast(dtype=torch.bfloat16) eager and under
    torch.compile, on the same inputs, each against the f32 reference."""
    torch = ctx["torch"]
    timer = ctx["timer"]
    device = "cuda" if timer.cuda else "cpu"
    results = {}
    for precision in args.precision:
        r = {}
        tol = PRECISION_TOLERANCES[precision]
        if "dlc" in args.modes:
            try:
                if not ctx["compile_here"]:
                    raise RuntimeError("needs a dlc that compiles here (the bundle's "
                                       "packages are f32)")
                package = os.path.join(args.work, "packages",
                                       "%s.%s.dlcpkg" % (name, precision))
                os.makedirs(os.path.dirname(package), exist_ok=True)
                inputs = [os.path.join(mdir, t["file"]) for t in manifest["inputs"]
                          if t["arg"]]
                compile_s = ctx["dlc"].compile(os.path.join(mdir, "model.mlir"), package,
                                               ctx["arch"], precision=precision,
                                               calibration=inputs)
                report, out_path, _ = ctx["dlc"].benchmark(
                    package, inputs, os.path.join(args.work, "out", name + "." + precision),
                    args.iterations, args.warmup, 0)
                err = relative_error(gen_models.load_npy_f32(out_path), ref)
                r["dlc"] = dict(median_ms=report["median_ms"], p10_ms=report["p10_ms"],
                                p90_ms=report["p90_ms"], compile_s=compile_s,
                                error=err, tolerance=tol, ok=err <= tol)
                log("  dlc %-9s %s ms, error %.2g%s" % (
                    precision, fmt_ms(report["median_ms"]), err,
                    "" if err <= tol else "  ** ABOVE %g **" % tol))
            except Exception as e:
                r["dlc"] = dict(ok=False, failure=str(e)[-2000:])
                log("  dlc %s failed: %s" % (precision, str(e).splitlines()[0][:300]))
        results[precision] = r
    # PyTorch's autocast to bf16 (the baseline of every precision: autocast
    # has no fp8), eager and compiled, once.
    torch_modes = [m for m in ("eager", "compile") if m in args.modes
                   and (m == "eager" or hasattr(torch, "compile"))]
    if torch_modes:
        autocast = {}
        model, inputs = ctx["torch_models"].build(os.path.join(mdir, "manifest.json"),
                                                  device)
        tol = PRECISION_TOLERANCES["bf16"]
        for mode in torch_modes:
            try:
                with torch.no_grad(), torch.autocast(device_type=device,
                                                     dtype=torch.bfloat16):
                    fn = model
                    if mode == "compile":
                        torch._dynamo.reset()
                        fn = torch.compile(model, dynamic=False)
                        fn(*inputs)
                        timer.sync()
                    out = fn(*inputs).float().cpu().numpy()
                    err = relative_error(out, ref)
                    times = timer(lambda: fn(*inputs), args.warmup, args.iterations)
                st = stats(times)
                st.update(error=err, tolerance=tol, ok=err <= tol)
                autocast[mode] = st
                log("  autocast bf16 %-7s %s ms, error %.2g" % (
                    mode, fmt_ms(st["median_ms"]), err))
            except Exception as e:
                autocast[mode] = dict(ok=False, failure=str(e)[-2000:])
                log("  autocast %s failed: %s" % (mode, str(e).splitlines()[0][:300]))
        del model, inputs
        results["autocast_bf16"] = autocast
    return results


def precision_markdown(results):
    """The --precision table: dlc per precision against PyTorch's autocast."""
    rows = [e for e in results.get("models", []) if e.get("precisions")]
    if not rows:
        return []
    lines = ["", "## Mixed precision (`--precision`)", "",
             "f32 models compiled with `dlc compile --precision=P` against PyTorch "
             "under `torch.autocast(dtype=torch.bfloat16)`, eager and torch.compile; "
             "errors against PyTorch f32 without TF32.", "",
             "| model | dlc | ms | error | autocast eager ms | autocast compile ms "
             "| dlc speedup vs best autocast |", "|---|---|---|---|---|---|---|"]
    for e in rows:
        p = e["precisions"]
        ac = p.get("autocast_bf16", {})
        eager = (ac.get("eager") or {}).get("median_ms")
        comp = (ac.get("compile") or {}).get("median_ms")
        best = min([x for x in (eager, comp) if x] or [None]) if (eager or comp) else None
        for precision, r in sorted(p.items()):
            if precision == "autocast_bf16":
                continue
            d = r.get("dlc") or {}
            speed = "%.2fx" % (best / d["median_ms"]) if best and d.get("median_ms") else "-"
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                e["base"], precision, fmt_ms(d.get("median_ms")),
                "%.2g" % d["error"] if d.get("error") is not None else "failed",
                fmt_ms(eager), fmt_ms(comp), speed))
    return lines


#===----------------------------------------------------------------------===#
# Main
#===----------------------------------------------------------------------===#


def git_commit():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True).stdout.strip() or None
    except OSError:
        return None


def main(argv=None):
    doc = __doc__.splitlines()
    p = argparse.ArgumentParser(description=doc[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(doc[2:]))
    p.add_argument("--bundle", help="directory written by scripts/gpu-bundle.sh")
    p.add_argument("--smoke", action="store_true",
                   help="tiny models, the sim device and CPU PyTorch (a test of this script)")
    p.add_argument("--dlc", help="dlc (compiler); default: the bundle's, else build/bin/dlc")
    p.add_argument("--dlc-run", help="dlc-run; default: the bundle's, else build/bin/dlc-run")
    p.add_argument("--work", help="working directory (inputs, packages, outputs); "
                   "default /tmp/dlc-bench, or a fresh one with --smoke")
    p.add_argument("--models", action="append", default=[],
                   help="models by name or shell pattern, comma-separated (default: all; "
                   "gen_models.py --list names them)")
    p.add_argument("--modes", default="dlc,eager,compile,max-autotune",
                   help="comma-separated subset of " + ",".join(MODES))
    p.add_argument("--iterations", type=int, help="timed runs (default 100; smoke 3)")
    p.add_argument("--warmup", type=int, help="warm-up runs (default 20; smoke 1)")
    p.add_argument("--profile-runs", type=int, help="runs of dlc's step profile "
                   "(default 20; smoke 2; 0: none)")
    p.add_argument("--precision", default="",
                   help="also run the f32 models with dlc --precision=P for each P of "
                        "this comma-separated list (bf16, fp16, fp8), against PyTorch "
                        "under torch.autocast(dtype=torch.bfloat16) eager and compiled")
    p.add_argument("--tf32", choices=["on", "off"], default="on",
                   help="TF32 matrix products for f32 models, in PyTorch and in dlc "
                        "(dlc compile --tf32; the bundle's NAME.tf32.dlcpkg)")
    p.add_argument("--generated-gemm-speed", type=float, metavar="S",
                   help="compile dlc's f32 models with --generated-gemm-speed=S (1: every "
                   "product read only by an elementwise kernel becomes a generated GEMM; "
                   "the bundle's NAME.gengemm.dlcpkg); needs --tf32 off, since TF32 "
                   "products stay on the library's tensor cores. With a run at dlc's "
                   "default, it measures the speed dlc-fuse-gemm's cost model assumes")
    p.add_argument("--weights", choices=["auto", "inputs", "constants"], default="auto",
                   help="dlc's weights: compiled in as constants (needs dlc where this "
                   "runs), or passed as inputs to the bundle's packages; auto: constants "
                   "when dlc works here")
    p.add_argument("--results", help="directory for the results (default bench/results; "
                   "smoke: the work directory)")
    p.add_argument("--tag", default="", help="suffix of the result file names")
    p.add_argument("--time-budget", type=float, default=0,
                   help="seconds after which no further model is started (0: none)")
    p.add_argument("--no-ceilings", action="store_true", help="skip the ceiling measurements")
    p.add_argument("--sdpa", action="store_true",
                   help="PyTorch attention through F.scaled_dot_product_attention (flash "
                   "attention) instead of the explicit products and softmax of the MLIR")
    p.add_argument("--merge", nargs="+", metavar="JSON", help="merge result files and exit")
    args = p.parse_args(argv)

    if args.merge:
        merge(args.merge, args.results or os.path.join(HERE, "results"), args.tag)
        return 0
    started = time.perf_counter()
    args.modes = [m for m in args.modes.split(",") if m]
    for m in args.modes:
        if m not in MODES:
            p.error("unknown mode '%s' (expected %s)" % (m, ", ".join(MODES)))
    args.precision = [x for x in args.precision.split(",") if x]
    for x in args.precision:
        if x not in PRECISION_TOLERANCES:
            p.error("unknown precision '%s' (expected %s)" % (
                x, ", ".join(sorted(PRECISION_TOLERANCES))))
    smoke = args.smoke
    if args.generated_gemm_speed is not None:
        if not 0 < args.generated_gemm_speed <= 1:
            p.error("--generated-gemm-speed takes a fraction in (0, 1]")
        if args.tf32 == "on" and not smoke:
            p.error("--generated-gemm-speed needs --tf32 off (dlc keeps TF32 products "
                    "on the library's tensor cores)")
    if not smoke and not args.bundle:
        p.error("--bundle DIR (from scripts/gpu-bundle.sh) or --smoke is needed")
    if args.iterations is None:
        args.iterations = 3 if smoke else 100
    if args.warmup is None:
        args.warmup = 1 if smoke else 20
    if args.profile_runs is None:
        args.profile_runs = 2 if smoke else 20
    if not args.work:
        args.work = (os.path.join("/tmp", "dlc-bench-smoke-%d" % os.getpid()) if smoke
                     else "/tmp/dlc-bench")
    os.makedirs(args.work, exist_ok=True)

    bundle = {}
    if args.bundle:
        with open(os.path.join(args.bundle, "bundle.json")) as f:
            bundle = json.load(f)
    size = "smoke" if smoke else bundle.get("size", "bench")
    seed = bundle.get("seed", gen_models.DEFAULT_SEED)

    def tool(explicit, name):
        if explicit:
            return os.path.abspath(explicit)
        if args.bundle and os.path.exists(os.path.join(args.bundle, "bin", name)):
            return os.path.abspath(os.path.join(args.bundle, "bin", name))
        return os.path.join(REPO, "build", "bin", name)

    env = dict(os.environ)
    env.setdefault("DLC_CACHE_DIR", os.path.join(args.work, "kernel-cache"))
    notes = []
    dlc_run = tool(args.dlc_run, "dlc-run")
    if not works([dlc_run, "--version"], env):
        if smoke:
            p.error("%s does not run (build it first)" % dlc_run)
        log("%s does not start here; building dlc-run from %s (runtime only)" % (dlc_run, REPO))
        dlc_run = build_runner_from_source(args.work)
        notes.append("dlc-run built on this machine (the carried binary did not start)")
    info = subprocess.run([dlc_run, "--info"], env=env, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout
    if not smoke:
        notes += setup_runtime_env(env, info)
        info = subprocess.run([dlc_run, "--info"], env=env, stdout=subprocess.PIPE,
                              universal_newlines=True).stdout
        log(info.strip())
        if "CUDA: available" not in info:
            raise SystemExit("run.py: dlc-run finds no GPU:\n" + info)

    dlc = tool(args.dlc, "dlc")
    if args.bundle and os.path.isdir(os.path.join(args.bundle, "lib")):
        # What the carried dlc links besides glibc (dlc-run needs none of it).
        lib = os.path.abspath(os.path.join(args.bundle, "lib"))
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [lib] + [d for d in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d])
    dlc_works = os.path.exists(dlc) and works([dlc, "--version"], env)
    weights = args.weights
    if weights == "auto":
        weights = "constants" if dlc_works else "inputs"
        if not dlc_works and not smoke:
            notes.append("dlc does not run here: weights passed as inputs to the bundle's "
                         "packages (no compile-time weight optimizations)")
    compile_here = smoke or weights == "constants"
    if compile_here and not dlc_works:
        p.error("%s does not run here; use --weights inputs" % dlc)
    if not smoke and weights == "inputs" and bundle.get("weights") != "inputs":
        p.error("the bundle's packages take weights as constants; use --weights constants")

    try:
        import torch  # noqa: E402
        import torch_models  # noqa: E402
    except ImportError as e:
        if smoke:
            log("skipped: %s" % e)
            return 77  # ctest's skip code
        raise
    if args.sdpa:
        if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
            p.error("--sdpa needs PyTorch 2.0 or newer")
        torch_models.USE_SDPA = True
    cuda = not smoke
    if cuda and not torch.cuda.is_available():
        raise SystemExit("run.py: PyTorch sees no GPU")
    timer = Timer(torch, cuda)
    arch = None
    if cuda:
        major, minor = torch.cuda.get_device_capability()
        arch = "sm_%d%d" % (major, minor)
    device_name = torch.cuda.get_device_name() if cuda else "CPU (%s)" % (
        platform.processor() or platform.machine())

    names = gen_models.select_models(size, args.models)
    results_dir = args.results or (args.work if smoke else os.path.join(HERE, "results"))
    os.makedirs(results_dir, exist_ok=True)
    date = datetime.date.today().isoformat()
    out_json = os.path.join(results_dir, "%s-%s%s.json" % (
        date, slug(device_name), "-" + args.tag if args.tag else ""))
    results = dict(
        date=date, device=device_name, dlc_device=None,
        environment=dict(torch=torch.__version__, cuda=getattr(torch.version, "cuda", None),
                         triton=_version("triton"), python=platform.python_version(),
                         numpy=np.__version__, dlc_commit=bundle.get("commit") or git_commit(),
                         host=platform.node(), cpus=os.cpu_count()),
        settings=dict(size=size, seed=seed, iterations=args.iterations, warmup=args.warmup,
                      profile_runs=args.profile_runs, tf32=args.tf32 == "on" and cuda,
                      generated_gemm_speed=args.generated_gemm_speed,
                      torch_attention="F.scaled_dot_product_attention" if args.sdpa
                      else "explicit (matmul, f32 softmax, matmul)",
                      weights=weights, modes=args.modes, tolerances=TOLERANCES,
                      timing="CUDA events around each run, runs back to back, median"
                      if cuda else "host clocks: perf_counter (PyTorch), steady clock (sim)",
                      dlc_device="cuda" if cuda else "sim", dlc_arch=arch),
        ceilings={}, models=[], notes=notes)
    log("dlc benchmark on %s, %d models, modes %s, weights as %s, results in %s" % (
        device_name, len(names), ",".join(args.modes), weights, out_json))
    if not args.no_ceilings:
        results["ceilings"] = measure_ceilings(torch, timer, smoke)
        log("ceilings: " + ", ".join("%s %.4g" % kv for kv in results["ceilings"].items()))
    ctx = dict(torch=torch, torch_models=torch_models, timer=timer, size=size, seed=seed,
               weights=weights, compile_here=compile_here, arch=arch,
               dlc=Dlc(dlc_run, dlc, env, "cuda" if cuda else "sim"),
               ceilings=results["ceilings"], notes=results["notes"])
    for name in names:
        if args.time_budget and time.perf_counter() - started > args.time_budget:
            results["notes"].append("time budget of %.0f s reached: not run: %s" % (
                args.time_budget, ", ".join(names[names.index(name):])))
            log(results["notes"][-1])
            break
        log("%s:" % name)
        entry = run_model(name, args, ctx)
        results["models"].append(entry)
        results["dlc_device"] = ctx.get("dlc_device")
        write_results(results, out_json)
    write_results(results, out_json)
    failed = [e["name"] for e in results["models"]
              if not all((e.get(m) or {}).get("ok", True) for m in MODES)]
    log("wrote %s and %s" % (out_json, os.path.splitext(out_json)[0] + ".md"))
    if failed:
        log("FAILED (error above tolerance, or a failure): " + ", ".join(failed))
        return 1
    return 0


def _version(module):
    try:
        return __import__(module).__version__
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main())
