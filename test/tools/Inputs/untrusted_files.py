"""Every file role of dlc and dlc-run given a file that is not a regular one
(untrusted-files.test): a FIFO, which would block an open or a read, links
to /dev/zero (never ends) and /dev/null, a directory, and /dev/null itself.
Each must be refused at once (a 20 s limit per command turns a hang into a
failure) with "cannot read 'PATH': not a regular file (KIND)", exit code 1,
and "error:" said once.

  untrusted_files.py DLC DLC_RUN OUTDIR EXAMPLES
      prints "ok ROLE KIND" per case, "FAIL ..." with the output for a
      wrong one, then a count
"""
import os
import subprocess
import sys

dlc, dlc_run, out, examples = sys.argv[1:5]
out = os.path.abspath(out)
os.makedirs(out, exist_ok=True)
os.chdir(out)
pkg = os.path.join(out, "ok.dlcpkg")
subprocess.run([dlc, "compile", os.path.join(examples, "mlp.mlir"),
                "--no-cubin", "--no-cache", "-o", pkg, "--quiet"], check=True)

# name -> (how to make it, what fstat calls it)
KINDS = {
    "fifo": (lambda p: os.mkfifo(p), "a FIFO"),
    "zero": (lambda p: os.symlink("/dev/zero", p), "a character device"),
    "null": (lambda p: os.symlink("/dev/null", p), "a character device"),
    "dir": (lambda p: os.mkdir(p), "a directory"),
}

# role -> (file name extension, command with {} for the file)
ROLES = {
    "compile-mlir": (".mlir", [dlc, "compile", "{}", "--no-cubin", "-o",
                               "out.dlcpkg"]),
    "compile-onnx": (".onnx", [dlc, "compile", "{}", "--no-cubin", "-o",
                               "out.dlcpkg"]),
    "compile-noext": ("", [dlc, "compile", "{}", "--no-cubin", "-o",
                           "out.dlcpkg"]),
    "import-onnx": (".onnx", [dlc, "import", "{}", "-o", "out.mlir"]),
    "run-mlir": (".mlir", [dlc, "run", "{}", "--device=sim"]),
    "run-onnx": (".onnx", [dlc, "run", "{}", "--device=sim"]),
    "run-package": (".dlcpkg", [dlc, "run", "{}", "--device=sim"]),
    "run-npy": (".npy", [dlc, "run", pkg, "--device=sim", "--input", "{}"]),
    "run-pb": (".pb", [dlc, "run", pkg, "--device=sim", "--input", "{}"]),
    "dlc-run-package": (".dlcpkg", [dlc_run, "{}", "--device=sim"]),
    "dlc-run-noext": ("", [dlc_run, "{}", "--device=sim"]),
    "dlc-run-npy": (".npy", [dlc_run, pkg, "--device=sim", "--input", "{}"]),
    "dlc-run-check": (".npy", [dlc_run, pkg, "--device=sim",
                               "--check-against", "{}"]),
}

cases = 0
failed = 0


def check(role, kind, path, command, expected):
    global cases, failed
    cases += 1
    argv = [a.replace("{}", path) for a in command]
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        text = p.stdout + p.stderr
        good = (p.returncode == 1 and expected in text and
                text.count("error:") == 1)
    except subprocess.TimeoutExpired:
        text, good = "timed out after 20 s", False
    if good:
        print("ok %s %s" % (role, kind))
    else:
        failed += 1
        print("FAIL %s %s: wanted \"%s\", got:\n%s" % (role, kind, expected,
                                                     text))


for role, (ext, command) in ROLES.items():
    for kind, (make, what) in KINDS.items():
        path = "%s-%s%s" % (kind, role, ext)
        make(path)
        check(role, kind, path, command,
              "cannot read '%s': not a regular file (%s)" % (path, what))
    # /dev/null itself, where the role takes any name.
    if ext in ("", ".npy"):
        check(role, "/dev/null", "/dev/null", command,
              "cannot read '/dev/null': not a regular file "
              "(a character device)")
print("%d cases, %d failed" % (cases, failed))
sys.exit(1 if failed else 0)
