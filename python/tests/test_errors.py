"""Bad input from Python: exceptions with the engine's message, never a crash."""

import numpy as np
import pytest

import vkinfer
from conftest import add_model, identity_model


@pytest.fixture(scope="module")
def add(context):
    return vkinfer.Session(add_model(), context)


def feed(**arrays):
    return {k: np.asarray(v) for k, v in arrays.items()}


def test_error_classes_follow_status_codes():
    assert issubclass(vkinfer.InvalidArgumentError, vkinfer.Error)
    assert issubclass(vkinfer.InvalidArgumentError, ValueError)
    assert issubclass(vkinfer.ShapeError, ValueError)
    assert issubclass(vkinfer.NotFoundError, LookupError)
    assert issubclass(vkinfer.UnsupportedError, NotImplementedError)
    assert issubclass(vkinfer.OutOfMemoryError, MemoryError)
    codes = {c.code for c in vkinfer._errors.BY_CODE.values()}
    assert len(codes) == 10


def test_wrong_dtype_names_the_input(add):
    x = np.ones((2, 3), np.float64)
    with pytest.raises(vkinfer.Error, match="'x'") as e:
        add.run({"x": x, "y": np.ones((2, 3), np.float32)})
    assert isinstance(e.value, ValueError)
    with pytest.raises(TypeError, match="complex"):
        add.run({"x": np.ones((2, 3), np.complex64), "y": np.ones((2, 3), np.float32)})
    with pytest.raises(TypeError, match="not a tensor type"):
        add.run({"x": np.array([["a"]], dtype=object), "y": np.ones((2, 3), np.float32)})
    with pytest.raises(TypeError, match="big-endian"):
        add.run({"x": np.ones((2, 3), ">f4"), "y": np.ones((2, 3), np.float32)})


def test_wrong_shape_name_and_missing_input(add):
    ones = np.ones((2, 3), np.float32)
    with pytest.raises(vkinfer.Error, match="'x'") as e:
        add.run({"x": np.ones((2, 4), np.float32), "y": ones})
    assert isinstance(e.value, ValueError)
    with pytest.raises(vkinfer.Error, match="'w'"):
        add.run({"x": ones, "y": ones, "w": ones})
    with pytest.raises(vkinfer.Error, match="'y'"):
        add.run({"x": ones})
    with pytest.raises(TypeError, match="input name"):
        add.run({1: ones})
    with pytest.raises(TypeError, match="dict"):
        add.run([ones, ones])
    with pytest.raises(TypeError, match="not an array"):
        add.run({"x": object(), "y": ones})


def test_huge_ranks_and_sizes_are_errors(add, context):
    ones = np.ones((2, 3), np.float32)
    with pytest.raises(vkinfer.Error):  # the rank the model declares is 2
        add.run({"x": np.ones((1,) * 32, np.float32), "y": ones})
    model = vkinfer.Model.from_bytes(add_model())
    with pytest.raises(vkinfer.Error):
        vkinfer.plan(model, {"x": [1] * 1_000_000})
    with pytest.raises(vkinfer.Error):
        vkinfer.plan(model, {"x": [2**40, 2**40], "y": [2**40, 2**40]})
    with pytest.raises(ValueError, match="negative"):
        vkinfer.plan(model, {"x": [-1, 3]})
    with pytest.raises(ValueError, match="64 bits"):
        vkinfer.plan(model, {"x": [2**70, 3]})
    with pytest.raises(TypeError, match="integer"):
        vkinfer.plan(model, {"x": [1.5, 3]})
    dyn = vkinfer.Session(identity_model(1, shape=("N", 3)), context)
    with pytest.raises(vkinfer.Error):  # rank 3 for a rank-2 input
        dyn.run({"x": np.ones((1, 1, 3), np.float32)})


def test_non_contiguous_arrays_are_refused_by_the_native_api(add):
    x = np.ones((3, 2), np.float32).T
    with pytest.raises(ValueError, match="C-contiguous"):
        add.run({"x": x, "y": np.ones((2, 3), np.float32)})


def test_closed_sessions_raise(context):
    s = vkinfer.Session(add_model(), context)
    s.close()
    s.close()  # twice is fine
    assert s.closed
    ones = np.ones((2, 3), np.float32)
    with pytest.raises(vkinfer.InvalidArgumentError, match="closed"):
        s.run({"x": ones, "y": ones})
    with pytest.raises(ValueError, match="closed"):
        s.plan()
    with vkinfer.InferenceSession(add_model()) as ort:
        pass
    with pytest.raises(vkinfer.InvalidArgumentError, match="closed"):
        ort.run(None, {"x": ones, "y": ones})


def test_files_and_options():
    with pytest.raises(vkinfer.NotFoundError, match="no-such.onnx"):
        vkinfer.InferenceSession("no-such.onnx")
    with pytest.raises(vkinfer.ParseError):
        vkinfer.InferenceSession(b"not a model")
    with pytest.raises(TypeError):
        vkinfer.InferenceSession(42)
    with pytest.raises(ValueError, match="fp8"):
        vkinfer.Session(add_model(), precision="fp8")
    with pytest.raises(ValueError, match="frames_in_flight"):
        vkinfer.Session(add_model(), frames_in_flight=0)
    with pytest.raises(vkinfer.Error):
        vkinfer.Context(device=1000)
    with pytest.raises(vkinfer.InvalidArgumentError, match="output 'nope'"):
        vkinfer.InferenceSession(add_model()).run(["nope"], {})
    with pytest.raises(vkinfer.NotFoundError):
        vkinfer.load_image("no-such.png")
    with pytest.raises(ValueError, match="channels"):
        vkinfer.image_to_tensor(np.zeros((4, 4, 2), np.uint8))


def test_unsupported_operator_names_the_node():
    from onnx import TensorProto, helper
    from conftest import onnx_model
    data = onnx_model([helper.make_node("Det", ["x"], ["y"], name="the_det")],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    with pytest.raises(vkinfer.UnsupportedError, match="the_det"):
        vkinfer.InferenceSession(data)
