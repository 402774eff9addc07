"""vkinfer's own API: devices, models, plans, bench (the CLI's figures), images, upscale (the CLI's)."""

import json
import os
import subprocess

import numpy as np
import pytest

import vkinfer
from conftest import REPO, add_model, assert_close, data_sets


def cli():
    path = os.environ.get("VKINFER_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("VKINFER_CLI (the vkinfer command, set by ctest) is not set")
    return path


def test_devices_and_context(context):
    devices = vkinfer.devices()
    assert devices and devices[context.device.index].name == context.device.name
    assert isinstance(context.device.uuid, bytes) and len(context.device.uuid) == 16
    assert context.validation_enabled == vkinfer.validation_requested_by_environment()
    stats = context.memory_stats()
    assert set(stats["current"]) >= {"weights", "arena", "io", "staging", "total"}


def test_model_load_inspect_and_espcn_reference(context, espcn):
    model = vkinfer.Model.load(espcn / "model.onnx")
    assert model.opset > 0 and model.inputs[0].dtype == "float32"
    info = vkinfer.Model.inspect(espcn / "model.onnx")
    assert info.unsupported == [] and sum(info.op_counts.values()) == info.node_count
    inputs, expected = data_sets(espcn)[0]
    sess = vkinfer.Session(model, context)
    out, stats = sess.run(inputs, stats=True)
    assert stats["planned"] and stats["wall_ms"] > 0
    assert_close(next(iter(out.values())), expected[0], what="espcn_x2")
    assert sess.run(inputs, stats=True)[1]["planned"] is False


def test_plan_is_the_plan_json(context, espcn):
    model = vkinfer.Model.load(espcn / "model.onnx")
    shapes = {"input": [1, 3, 16, 20]}
    p = vkinfer.plan(model, shapes)
    summary = vkinfer.plan_summary(model, shapes)
    assert len(p["schedule"]) == summary["dispatches"] and p["arena_bytes"] == summary["arena_bytes"]
    assert "wave" in vkinfer.plan_text(model, shapes)
    sess = vkinfer.Session(model, context, sync="conservative")
    assert len(sess.plan(shapes)["schedule"]) == summary["dispatches"]
    assert vkinfer.plan(model, shapes, precision="fp16") != p


def test_plan_matches_the_cli(espcn):
    model_path = str(espcn / "model.onnx")
    out = subprocess.run([cli(), "plan", model_path, "--shape", "input=1x3x16x20", "--json"], check=True,
                         capture_output=True, text=True).stdout
    assert vkinfer.plan(vkinfer.Model.load(model_path), {"input": [1, 3, 16, 20]}) == json.loads(out)


def test_bench_gives_the_cli_figures(context, espcn):
    model_path = str(espcn / "model.onnx")
    sess = vkinfer.Session(model_path, context)
    ours = sess.bench(iters=3, warmup=1, shapes={"input": [1, 3, 16, 16]})
    theirs = json.loads(subprocess.run([cli(), "bench", model_path, "--iters", "3", "--warmup", "1", "--shape",
                                        "input=1x3x16x16", "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    assert set(ours) == set(theirs)
    for key in ("model", "device", "inputs", "sync", "precision", "iters"):
        assert ours[key] == theirs[key], key
    assert set(ours["wall_ms"]) == {"median", "min", "p90", "mean"}
    assert ours["wall_ms"]["min"] <= ours["wall_ms"]["median"] <= ours["wall_ms"]["p90"]
    x = np.random.default_rng(0).random((1, 3, 8, 8), dtype=np.float32)
    profiled = sess.bench({"input": x}, iters=2, profile=True)
    assert profiled["inputs"] == "input=1x3x8x8" and profiled["profile"]["dispatches"]


def test_images_round_trip(tmp_path):
    image = vkinfer.load_image(REPO / "data" / "images" / "ladybird.png")
    assert image.dtype == np.uint8 and image.shape[2] in (3, 4)
    vkinfer.save_image(tmp_path / "copy.png", image)
    np.testing.assert_array_equal(vkinfer.load_image(tmp_path / "copy.png"), image)
    t = vkinfer.image_to_tensor(image, 3, mean=0.5, scale=[2, 2, 2])
    assert t.shape == (1, 3) + image.shape[:2] and t.dtype == np.float32
    np.testing.assert_array_equal(vkinfer.tensor_to_image(t, mean=0.5, scale=2), image[:, :, :3])
    vkinfer.save_tensor(tmp_path / "t.npy", t)
    vkinfer.save_tensor(tmp_path / "t.pb", t)
    np.testing.assert_array_equal(vkinfer.load_tensor(tmp_path / "t.npy"), t)
    np.testing.assert_array_equal(vkinfer.load_tensor(tmp_path / "t.pb"), t)


def test_upscale_is_the_cli_upscale(tmp_path):
    image = vkinfer.load_image(REPO / "data" / "images" / "ladybird.png")[:40, :56, :3].copy()
    vkinfer.save_image(tmp_path / "small.png", image)
    with pytest.warns(UserWarning, match="tiles of 32x32"):  # the CLI's warning, as a Python warning
        ours = vkinfer.upscale(image, tile=32)  # tiled: the overlap is measured, as the CLI does
    assert ours.shape == (80, 112, 3) and ours.dtype == np.uint8
    subprocess.run([cli(), "upscale", str(tmp_path / "small.png"), str(tmp_path / "big.png"), "--tile", "32"],
                   check=True, capture_output=True)
    np.testing.assert_array_equal(ours, vkinfer.load_image(tmp_path / "big.png"))
    gray = vkinfer.upscale(image[:, :, 0])
    assert gray.shape == (80, 112, 1)


def test_stubs_cover_the_public_api():
    stub = (REPO / "python" / "vkinfer" / "__init__.pyi").read_text()
    for name in vkinfer.__all__:
        assert name in stub, name
    assert vkinfer.InferenceSession.__doc__ and vkinfer.Session.__doc__ and vkinfer.Session.run.__doc__
