"""ONNX's own backend test runner (onnx.backend.test.BackendTest) on vkinfer.backend, with the
node, simple, pytorch-converted and pytorch-operator data of Debian's libonnx-testdata (found by
python3-onnx inside the onnx package: onnx/backend/test/data -> /usr/share/libonnx-testdata/data).

Not run: the "real" models (the runner downloads them; there is no network). Expected to fail,
each with its reason: the cases in onnx_backend_expected_failures.txt (docs/PYTHON.md,
"ONNX backend test runner"): an xfail that starts passing fails the suite, so the list stays true.
"""

from pathlib import Path

import pytest

onnx_backend_test = pytest.importorskip("onnx.backend.test", reason="python3-onnx is not installed")
from onnx.backend.test.loader import load_model_tests  # noqa: E402

import vkinfer.backend  # noqa: E402

HERE = Path(__file__).resolve().parent


def expected_failures():
    """test name -> reason, from onnx_backend_expected_failures.txt ("name<TAB>reason")."""
    cases = {}
    for line in (HERE / "onnx_backend_expected_failures.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, reason = line.split("\t", 1)
            cases[name] = reason
    return cases


backend_test = onnx_backend_test.BackendTest(vkinfer.backend, __name__)
for real in load_model_tests(kind="real"):
    backend_test.exclude(f"^{real.name}_")  # downloaded by the runner: no network

_xfail = expected_failures()
for _case in backend_test.test_cases.values():
    for _name in dir(_case):
        if _name in _xfail:
            setattr(_case, _name, pytest.mark.xfail(reason=_xfail[_name], strict=True)(getattr(_case, _name)))
    globals()[_case.__name__] = _case
