"""Shared by the training tests (training_steps.py, train_onnx.py): the
relative error of two arrays and the command line that runs cases."""
import argparse

import numpy as np


def rel(a, b):
    """The relative error by norm of `a` against `b`, in double precision."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30)


def main(cases, run_case):
    """`--dlc DLC --work-dir DIR [CASE ...]`: runs each named case (all by
    default), `run_case(name, dlc, work_dir)` returning its failures; prints
    them and returns the exit code."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--dlc", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("cases", nargs="*")
    a = parser.parse_args()
    failures = []
    for name in a.cases or list(cases):
        failures += [f"{name}: {f}" for f in run_case(name, a.dlc, a.work_dir)]
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0
