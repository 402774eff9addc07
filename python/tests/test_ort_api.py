"""ONNX Runtime's interface (InferenceSession) on the shared models against their reference outputs."""

import numpy as np
import pytest

import vkinfer
from conftest import add_model, assert_close, data_sets, shared_model

MODELS = ["squeezenet1_1", "mobilenet_v2", "resnet18_half", "espcn_x2", "unet_small", "tiny_vit"]


@pytest.mark.parametrize("name", MODELS)
def test_shared_model_matches_references(name):
    folder = shared_model(name)
    sess = vkinfer.InferenceSession(str(folder / "model.onnx"), providers=["CUDAExecutionProvider",
                                                                           "CPUExecutionProvider"])
    for k, (inputs, expected) in enumerate(data_sets(folder)):
        outputs = sess.run(None, inputs)
        assert len(outputs) == len(expected)
        for i, (a, e) in enumerate(zip(outputs, expected)):
            assert_close(a, e, what=f"{name} data set {k} output {i}")


# fp16: the tolerances measured for each model (tests/models/precision_test.cpp).
@pytest.mark.parametrize("name,atol", [("squeezenet1_1", 1.5 * 1.3e-4), ("espcn_x2", 1.5 * 4.7e-4)])
def test_fp16_matches_references_within_measured_tolerance(name, atol):
    folder = shared_model(name)
    options = vkinfer.SessionOptions()
    options.precision = "fp16"
    sess = vkinfer.InferenceSession(str(folder / "model.onnx"), options)
    assert sess.native.precision == "fp16"
    inputs, expected = data_sets(folder)[0]
    (out,) = sess.run(None, inputs)
    assert out.dtype == np.float32  # graph outputs stay as declared
    assert_close(out, expected[0], rtol=1e-2, atol_of_max=atol, what=f"{name} fp16")


def test_inputs_outputs_and_metadata_as_ort_describes_them(espcn):
    sess = vkinfer.InferenceSession(espcn / "model.onnx")
    (x,) = sess.get_inputs()
    (y,) = sess.get_outputs()
    assert x.name == "input" and x.type == "tensor(float)"
    assert x.shape == ["N", 3, "H", "W"]  # symbolic dimensions by name, as ONNX Runtime gives them
    assert y.type == "tensor(float)"
    meta = sess.get_modelmeta()
    info = vkinfer.Model.inspect(espcn / "model.onnx")
    assert meta.producer_name == info.producer_name and meta.graph_name == info.graph_name
    assert isinstance(meta.custom_metadata_map, dict)
    assert sess.get_providers() == ["VkinferExecutionProvider"]


def test_output_order_and_subset_follow_output_names():
    from onnx import TensorProto, helper
    from conftest import onnx_model
    data = onnx_model([helper.make_node("Add", ["x", "x"], ["double"]), helper.make_node("Neg", ["x"], ["neg"])],
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                      [helper.make_tensor_value_info("double", TensorProto.FLOAT, [4]),
                       helper.make_tensor_value_info("neg", TensorProto.FLOAT, [4])])
    sess = vkinfer.InferenceSession(data)
    x = np.arange(4, dtype=np.float32)
    neg, double = sess.run(["neg", "double"], {"x": x})
    np.testing.assert_array_equal(neg, -x)
    np.testing.assert_array_equal(double, 2 * x)
    (only,) = sess.run(["double"], {"x": x})
    np.testing.assert_array_equal(only, 2 * x)
    assert [a.name for a in sess.get_outputs()] == ["double", "neg"]


def test_model_proto_and_bytes_and_non_contiguous_inputs_like_ort():
    onnx = pytest.importorskip("onnx")
    data = add_model((3, 2))
    sess = vkinfer.InferenceSession(onnx.load_from_string(data))
    x = np.arange(6, dtype=np.float32).reshape(2, 3).T  # strided: ONNX Runtime copies it, so does this layer
    y = np.ones((3, 2), np.float32)
    (z,) = sess.run(None, {"x": x, "y": y})
    np.testing.assert_array_equal(z, x + 1)
    with pytest.raises(vkinfer.InvalidArgumentError, match="'y'"):  # lists become float64: not cast, as in ORT
        sess.run(None, {"x": x, "y": y.tolist()})


def test_session_options_map_and_refuse_what_does_not():
    o = vkinfer.SessionOptions()
    o.graph_optimization_level = vkinfer.GraphOptimizationLevel.ORT_ENABLE_ALL  # accepted, no effect
    o.intra_op_num_threads = 4
    o.add_session_config_entry("session.disable_prepacking", "1")
    o.add_session_config_entry("vkinfer.sync", "conservative")
    assert o.sync == "conservative"
    with pytest.raises(AttributeError, match="precison"):
        o.precison = "fp16"
    with pytest.raises(ValueError, match="enable_profiling"):
        o.enable_profiling = True
    with pytest.raises(ValueError, match="my.key"):
        o.add_session_config_entry("my.key", "1")
    with pytest.raises(ValueError, match="NotAProvider"):
        vkinfer.InferenceSession(add_model(), providers=["NotAProvider"])
    with pytest.raises(TypeError, match="bogus"):
        vkinfer.InferenceSession(add_model(), bogus=1)
    o.precision = "fp64"
    with pytest.raises(ValueError, match="fp64"):
        vkinfer.InferenceSession(add_model(), o)


def test_help_describes_inference_session():
    import pydoc
    text = pydoc.plain(pydoc.render_doc(vkinfer.InferenceSession))
    for word in ("ONNX Runtime", "run", "get_inputs", "providers", "output_names"):
        assert word in text
