#!/usr/bin/env python3
"""Regenerates python/tests/onnx_backend_expected_failures.txt: runs ONNX's backend test runner
(onnx.backend.test.BackendTest) on vkinfer.backend with nothing expected to fail, and lists
every case that does not pass with its reason (the exception's last line), sorted by name.
Prints the counts, and the reasons grouped, for docs/PYTHON.md.

  PYTHONPATH=build/python VKINFER_VALIDATE=1 /usr/bin/python3 scripts/python_backend_expected.py
"""

import collections
import re
import sys
import traceback
import unittest
from pathlib import Path

import onnx.backend.test
from onnx.backend.test.loader import load_model_tests

import vkinfer.backend

OUT = Path(__file__).resolve().parents[1] / "python" / "tests" / "onnx_backend_expected_failures.txt"


class Collect(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reasons = {}
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1

    def _reason(self, test, err):
        last = traceback.format_exception_only(err[0], err[1])[-1].strip()
        if err[0] is AssertionError or "Not equal to tolerance" in last:
            text = "".join(traceback.format_exception_only(err[0], err[1]))
            m = re.search(r"Max absolute difference: (\S+)\s+Max relative difference: (\S+)", text)
            last = ("outside ONNX's tolerance (rtol 1e-3, atol 1e-7)"
                    + (f": max abs diff {m.group(1)}, max rel diff {m.group(2)}" if m else f": {last}"))
        last = re.sub(r"\s+", " ", last)
        self.reasons[test._testMethodName] = last[:300]

    def addError(self, test, err):
        super().addError(test, err)
        self._reason(test, err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._reason(test, err)


def category(reason):
    r = re.sub(r"'[^']*'", "'…'", reason)
    r = re.sub(r"\b\d+(\.\d+)?(e-?\d+)?\b", "N", r)
    return r.split(":")[0] if r.startswith(("UnsupportedError", "ParseError")) else r[:120]


def main():
    bt = onnx.backend.test.BackendTest(vkinfer.backend, __name__)
    for real in load_model_tests(kind="real"):
        bt.exclude(f"^{real.name}_")
    runner = unittest.TextTestRunner(resultclass=Collect, verbosity=0, stream=open("/dev/null", "w"))
    result = runner.run(bt.test_suite)
    with OUT.open("w") as f:
        f.write("# ONNX backend test cases (python/tests/test_onnx_backend.py) expected to fail on vkinfer, with why.\n"
                "# Regenerate: scripts/python_backend_expected.py (docs/PYTHON.md). name<TAB>reason\n")
        for name in sorted(result.reasons):
            f.write(f"{name}\t{result.reasons[name]}\n")
    print(f"passed {result.passed}, expected to fail {len(result.reasons)}, skipped {len(result.skipped)}")
    groups = collections.Counter(r.split(":")[0] for r in result.reasons.values())
    for reason, n in groups.most_common():
        print(f"{n:5d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
