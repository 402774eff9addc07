"""Arrays in and out: every tensor type, DLPack both ways, the array interface, no copies."""

import numpy as np
import pytest

import vkinfer
from conftest import identity_model

# ONNX element type -> NumPy dtype, for every type vkinfer has.
TYPES = {1: np.float32, 10: np.float16, 11: np.float64, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
         6: np.int32, 7: np.int64, 12: np.uint32, 13: np.uint64, 9: np.bool_}


@pytest.mark.parametrize("elem_type,dtype", TYPES.items(), ids=[np.dtype(d).name for d in TYPES.values()])
def test_every_tensor_type_round_trips(context, elem_type, dtype):
    sess = vkinfer.Session(identity_model(elem_type), context)
    rng = np.random.default_rng(elem_type)
    x = (rng.random((5, 3)) * 100).astype(dtype)
    out = sess.run({"x": x})["y"]
    assert out.dtype == dtype and out.shape == (5, 3)
    np.testing.assert_array_equal(out, x)


class DLPackOnly:
    """An object that offers its memory through DLPack alone (as a torch tensor would)."""

    def __init__(self, array, device=(1, 0)):
        self._array, self._device = array, device

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._device


class ArrayInterfaceOnly:
    def __init__(self, array):
        self.__array_interface__ = array.__array_interface__
        self._keep = array


def test_dlpack_and_array_interface_inputs(context):
    sess = vkinfer.Session(identity_model(1), context)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(sess.run({"x": DLPackOnly(x)})["y"], x)
    np.testing.assert_array_equal(sess.run({"x": ArrayInterfaceOnly(x)})["y"], x)
    with pytest.raises(ValueError, match="CUDA device 0"):
        sess.run({"x": DLPackOnly(x, device=(2, 0))})
    ort = vkinfer.InferenceSession(identity_model(1))
    np.testing.assert_array_equal(ort.run(None, {"x": DLPackOnly(x)})[0], x)


def test_outputs_own_their_memory_and_export_it_through_dlpack(context):
    sess = vkinfer.Session(identity_model(1), context)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = sess.run({"x": x})["y"]
    assert y.flags.owndata is False and y.base is not None  # the tensor's own bytes, not a copy into NumPy
    assert y.flags.writeable and y.flags.c_contiguous
    shared = np.from_dlpack(y)
    assert np.shares_memory(shared, y)
    y[0, 0] = 42  # (numpy.from_dlpack gives read-only views; torch.from_dlpack writable ones)
    assert shared[0, 0] == 42
    assert y.__dlpack_device__() == (1, 0)
    del sess, y  # the array outlives nothing it needs
    np.testing.assert_array_equal(shared[1], [3, 4, 5])


def test_torch_round_trip_when_installed(context):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed here: DLPack is tested with NumPy")
    sess = vkinfer.Session(identity_model(1), context)
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = sess.run({"x": t})["y"]
    back = torch.from_dlpack(y)
    assert back.data_ptr() == y.ctypes.data
    assert torch.equal(back, t)


def test_inputs_are_not_copied_by_python(context):
    import sys
    sess = vkinfer.Session(identity_model(1), context)
    x = np.ones((2, 3), np.float32)
    before = sys.getrefcount(x)
    sess.run({"x": x})
    assert sys.getrefcount(x) == before  # the borrowed reference is dropped after the run
