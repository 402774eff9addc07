"""Shared fixtures: where the test models are, a validated context, small ONNX models built in memory."""

import os
from pathlib import Path

import numpy as np
import pytest

import vkinfer

REPO = Path(__file__).resolve().parents[2]


def models_dir() -> Path:
    """VKINFER_MODELS_DIR, else ../shared/models beside the repository (README, "Test models")."""
    return Path(os.environ.get("VKINFER_MODELS_DIR") or REPO.parent / "shared" / "models")


def shared_model(name: str) -> Path:
    folder = models_dir() / name
    if not (folder / "model.onnx").is_file():
        pytest.skip(f"test model {folder} not found: make the models with scripts/make_models.py (README, "
                    "\"Test models\") or set VKINFER_MODELS_DIR")
    return folder


def data_sets(folder: Path):
    """[(inputs {name: array}, expected [arrays])] of a model folder's test_data_set_* (by index)."""
    model = vkinfer.Model.load(folder / "model.onnx")
    sets = []
    for ds in sorted(folder.glob("test_data_set_*")):
        inputs = {model.inputs[i].name: vkinfer.load_tensor(ds / f"input_{i}.pb")
                  for i in range(len(list(ds.glob("input_*.pb"))))}
        outputs = [vkinfer.load_tensor(ds / f"output_{i}.pb") for i in range(len(list(ds.glob("output_*.pb"))))]
        sets.append((inputs, outputs))
    return sets


def assert_close(actual, expected, rtol=1e-3, atol_of_max=1e-4, what=""):
    """vkinfer check's default: |a - e| <= atol_of_max * max|e| + rtol * |e|."""
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol_of_max * scale, err_msg=what)


@pytest.fixture(scope="session")
def context():
    """One context for the suite (VKINFER_VALIDATE=1 from ctest turns validation on: any message fails)."""
    return vkinfer.Context()


@pytest.fixture(scope="session")
def espcn():
    """The bundled espcn_x2 (random weights; needs no test models)."""
    return REPO / "data" / "espcn_x2"


def onnx_model(nodes, inputs, outputs, initializers=(), opset=17) -> bytes:
    """ModelProto bytes of a graph built with onnx.helper."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="vkinfer-tests")
    return model.SerializeToString()


def identity_model(elem_type: int, shape=("N", 3), name="x") -> bytes:
    """One Identity node: y = x, of one ONNX element type."""
    from onnx import helper
    return onnx_model([helper.make_node("Identity", [name], ["y"])],
                      [helper.make_tensor_value_info(name, elem_type, list(shape))],
                      [helper.make_tensor_value_info("y", elem_type, list(shape))])


def add_model(shape=(2, 3)) -> bytes:
    """z = x + y (float32)."""
    from onnx import TensorProto, helper
    return onnx_model([helper.make_node("Add", ["x", "y"], ["z"])],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape)),
                       helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
                      [helper.make_tensor_value_info("z", TensorProto.FLOAT, list(shape))])
