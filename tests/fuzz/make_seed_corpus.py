#!/usr/bin/env python3
"""Regenerates the seed corpora of tests/fuzz/corpus/ (run from the repository root).

fuzz_onnx: the bundled espcn_x2 model and, for each operator the conformance run passes
(tests/conformance/expected_pass.txt), the smallest ONNX node-test model of it
(libonnx-testdata), plus a few small pytorch-converted models.
fuzz_pb: node-test inputs of every element type, and hand-encoded TensorProtos that use the
typed fields (float_data, int64_data, ...) rather than raw_data.
fuzz_npy: hand-written .npy files of every dtype the reader accepts, header versions 1-3,
and the variants it must refuse (big-endian, Fortran order, bad shapes).

Files named crash-* are inputs that once crashed a fuzzer (see tests/fuzz/README.md), and
built-* are written by make_model_seeds.py (onnx.helper models): this script leaves them
alone. Needs only the Python standard library.
"""
import glob
import os
import shutil
import struct

TESTDATA = "/usr/share/libonnx-testdata/data"
OUT = "tests/fuzz/corpus"


def reset(target):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if not f.startswith(("crash-", "built-")):
            os.remove(os.path.join(d, f))
    return d


def onnx_corpus():
    d = reset("fuzz_onnx")
    shutil.copy("data/espcn_x2/model.onnx", os.path.join(d, "espcn_x2.onnx"))
    passing = sorted({line.split("/")[2] for line in open("tests/conformance/expected_pass.txt")
                      if line.startswith("data/node/")})
    smallest = {}
    for test in passing:
        op = test[len("test_"):].split("_")[0]
        path = os.path.join(TESTDATA, "node", test, "model.onnx")
        size = os.path.getsize(path)
        if op not in smallest or size < smallest[op][1]:
            smallest[op] = (path, size)
    # Operators whose node tests bind shapes or values through inputs: a second model each.
    extra = ["test_reshape_reduced_dims", "test_expand_dim_changed", "test_tile", "test_slice_neg_steps",
             "test_resize_downsample_scales_linear", "test_conv_with_autopad_same", "test_maxpool_2d_pads",
             "test_gather_2d_indices", "test_pad", "test_split_variable_parts_1d_opset18", "test_concat_3d_axis_1",
             "test_range_int32_type_negative_delta", "test_constantofshape_float_ones", "test_einsum_batch_matmul",
             "test_matmul_4d", "test_gemm_all_attributes", "test_reduce_sum_keepdims_random",
             "test_softmax_axis_0", "test_batchnorm_epsilon", "test_convtranspose_pads", "test_lrn"]
    for test in extra:
        path = os.path.join(TESTDATA, "node", test, "model.onnx")
        if os.path.exists(path):
            smallest[test] = (path, 0)
    for op, (path, _) in sorted(smallest.items()):
        shutil.copy(path, os.path.join(d, os.path.basename(os.path.dirname(path)) + ".onnx"))
    # Node tests that take a Reshape target, Slice starts, Pad pads, ... as graph inputs plan
    # only with those values: a copy of each with inputs 1.. of its first data set turned into
    # initializers (an initializer that is also listed as an input is not an input).
    for test in ["test_reshape_reduced_dims", "test_reshape_negative_dim", "test_expand_dim_changed",
                 "test_tile", "test_tile_precomputed", "test_slice", "test_slice_neg_steps", "test_slice_default_axes",
                 "test_constant_pad", "test_edge_pad", "test_reflect_pad", "test_range_float_type_positive_delta",
                 "test_range_int32_type_negative_delta", "test_resize_downsample_scales_linear",
                 "test_resize_upsample_sizes_cubic", "test_resize_upsample_scales_nearest", "test_squeeze",
                 "test_unsqueeze_axis_3", "test_split_variable_parts_1d_opset18", "test_constantofshape_int_zeros",
                 "test_constantofshape_float_ones", "test_clip", "test_reduce_sum_keepdims_random",
                 "test_upsample_nearest", "test_dropout_default_old", "test_scatternd", "test_where_example",
                 "test_gather_negative_indices", "test_pow_example", "test_conv_with_strides_padding",
                 "test_convtranspose_1d", "test_gemm_default_no_bias", "test_matmul_2d", "test_prelu_broadcast"]:
        folder = os.path.join(TESTDATA, "node", test)
        if not os.path.exists(folder):
            continue
        model = open(os.path.join(folder, "model.onnx"), "rb").read()
        inputs = sorted(glob.glob(os.path.join(folder, "test_data_set_0", "input_*.pb")))[1:]
        if inputs:
            consts = [open(p, "rb").read() for p in inputs]
            open(os.path.join(d, test + "_consts.onnx"), "wb").write(with_initializers(model, consts))
    hostile_models(d)
    for test in ["test_Conv2d", "test_BatchNorm2d_eval", "test_Linear", "test_PixelShuffle", "test_MaxPool2d",
                 "test_AvgPool2d", "test_ConvTranspose2d", "test_Softmax", "test_PReLU_2d", "test_Embedding"]:
        path = os.path.join(TESTDATA, "pytorch-converted", test, "model.onnx")
        if os.path.exists(path) and os.path.getsize(path) < 64 * 1024:
            shutil.copy(path, os.path.join(d, "pytorch_" + test + ".onnx"))


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def packed(number, values):
    return field(number, 2, varint(len(values)) + values)


def tensor_proto(dims, data_type, name="t", raw=None, typed=None):
    out = b"".join(field(1, 0, varint(d & 0xFFFFFFFFFFFFFFFF)) for d in dims)
    out += field(2, 0, varint(data_type))
    if typed:
        out += typed
    out += field(8, 2, varint(len(name)) + name.encode())
    if raw is not None:
        out += field(9, 2, varint(len(raw)) + raw)
    return out


def proto_fields(b):
    """{field number: [values]} of a protobuf message, or None when it does not parse."""
    fields, i = {}, 0

    def read_varint():
        nonlocal i
        value, shift = 0, 0
        while True:
            c = b[i]
            i += 1
            value |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                return value

    try:
        while i < len(b):
            tag = read_varint()
            number, wire = tag >> 3, tag & 7
            if wire == 0:
                value = read_varint()
            elif wire == 2:
                n = read_varint()
                value, i = b[i:i + n], i + n
            elif wire in (1, 5):
                n = 8 if wire == 1 else 4
                value, i = b[i:i + n], i + n
            else:
                return None
            fields.setdefault(number, []).append(value)
    except IndexError:
        return None
    return fields


def with_initializers(model, tensors):
    """The ModelProto bytes with the TensorProtos appended to its graph's initializers (field 5)."""
    out, i = b"", 0
    while i < len(model):
        start = i
        tag, i = read_varint_at(model, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, i = read_varint_at(model, i)
        elif wire == 2:
            n, i = read_varint_at(model, i)
            if number == 7:  # graph
                graph = model[i:i + n] + b"".join(field(5, 2, varint(len(t)) + t) for t in tensors)
                out += field(7, 2, varint(len(graph)) + graph)
                i += n
                continue
            i += n
        else:
            i += 8 if wire == 1 else 4
        out += model[start:i]
    return out


def read_varint_at(b, i):
    value, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def msg(*fields):
    return b"".join(fields)


def string_field(number, text):
    data = text.encode() if isinstance(text, str) else text
    return field(number, 2, varint(len(data)) + data)


def sub(number, payload):
    return field(number, 2, varint(len(payload)) + payload)


def value_info(name, elem_type, dims):
    shape = b"".join(sub(1, field(1, 0, varint(d)) if isinstance(d, int) else string_field(2, d)) for d in dims)
    return msg(string_field(1, name), sub(2, sub(1, field(1, 0, varint(elem_type)) + sub(2, shape))))


def int_attr(name, value):
    return msg(string_field(1, name), field(3, 0, varint(value & 0xFFFFFFFFFFFFFFFF)), field(20, 0, varint(2)))


def tensor_attr(name, tensor):
    return msg(string_field(1, name), sub(5, tensor), field(20, 0, varint(4)))


def node(op, inputs, outputs, attrs=()):
    return msg(*[string_field(1, i) for i in inputs], *[string_field(2, o) for o in outputs],
               string_field(4, op), *[sub(5, a) for a in attrs])


def model(nodes, inputs, outputs, initializers=(), opset=13):
    graph = msg(*[sub(1, n) for n in nodes], string_field(2, "g"), *[sub(5, t) for t in initializers],
                *[sub(11, v) for v in inputs], *[sub(12, v) for v in outputs])
    return msg(field(1, 0, varint(8)), sub(7, graph), sub(8, field(2, 0, varint(opset))))


def int64s(name, values):
    return tensor_proto([len(values)], 7, name=name, raw=struct.pack("<%dq" % len(values), *values))


def hostile_models(d):
    """Small models that declare or compute enormous tensors: planning must refuse them (or
    plan them for the GPU) without allocating what they declare."""
    f32 = 1
    big = [100000, 100000]  # 4e10 bytes of float32: past the folding budget, below 1 TiB
    samples = {
        "huge_constantofshape.onnx": model([node("ConstantOfShape", ["s"], ["y"])], [], [value_info("y", f32, [])],
                                           [int64s("s", big)]),
        "huge_expand_of_constant.onnx": model([node("Expand", ["c", "s"], ["y"])], [], [value_info("y", f32, [])],
                                              [tensor_proto([1], f32, name="c", raw=struct.pack("<f", 1)),
                                               int64s("s", big)]),
        "huge_tile_repeats.onnx": model([node("Tile", ["x", "r"], ["y"])], [value_info("x", f32, [2, 2])],
                                        [value_info("y", f32, [])], [int64s("r", [1 << 31, 1 << 31])]),
        "huge_range.onnx": model([node("Range", ["a", "b", "c"], ["y"])], [], [value_info("y", 7, [])],
                                 [tensor_proto([], 7, name=n, raw=struct.pack("<q", v))
                                  for n, v in [("a", 0), ("b", 1 << 40), ("c", 1)]]),
        "huge_declared_input.onnx": model([node("Relu", ["x"], ["y"])], [value_info("x", f32, [1 << 20, 1 << 20, 1 << 20])],
                                          [value_info("y", f32, [])]),
        "huge_input_reshape.onnx": model([node("Reshape", ["x", "s"], ["y"])], [value_info("x", f32, ["N", 1 << 30])],
                                         [value_info("y", f32, [])], [int64s("s", [-1, 1 << 10, 1 << 20])]),
    }
    for name, b in samples.items():
        open(os.path.join(d, name), "wb").write(b)


def pb_corpus():
    d = reset("fuzz_pb")
    # The smallest node-test input of each (data type, raw_data or typed field) combination.
    best = {}
    for path in sorted(glob.glob(os.path.join(TESTDATA, "node", "*", "test_data_set_0", "input_*.pb"))):
        b = open(path, "rb").read()
        f = proto_fields(b)
        if f is None or len(b) > 4096:
            continue
        key = (f.get(2, [0])[0], 9 in f)
        if key not in best or len(b) < len(best[key][1]):
            best[key] = (path, b)
    for path, b in best.values():
        test = os.path.basename(os.path.dirname(os.path.dirname(path)))
        open(os.path.join(d, "%s_%s" % (test, os.path.basename(path))), "wb").write(b)
    floats = struct.pack("<6f", 1, 2, 3, 4, 5, 6)
    samples = {
        "float_data.pb": tensor_proto([2, 3], 1, typed=packed(4, floats)),
        "int32_data_int8.pb": tensor_proto([4], 3, typed=packed(5, b"".join(varint(v & 0xFFFFFFFFFFFFFFFF) for v in [1, -2, 3, -4]))),
        "int32_data_float16.pb": tensor_proto([2], 10, typed=packed(5, varint(0x3C00) + varint(0xC000))),
        "int64_data.pb": tensor_proto([3], 7, typed=packed(7, b"".join(varint(v & 0xFFFFFFFFFFFFFFFF) for v in [5, -1, 1 << 40]))),
        "double_data.pb": tensor_proto([2], 11, typed=packed(10, struct.pack("<2d", 0.5, -2.25))),
        "uint64_data.pb": tensor_proto([2], 13, typed=packed(11, varint(7) + varint(1 << 63))),
        "uint32_data.pb": tensor_proto([1], 12, typed=packed(11, varint(0xFFFFFFFF))),
        "bool_raw.pb": tensor_proto([3], 9, raw=b"\x01\x00\x01"),
        "scalar_raw.pb": tensor_proto([], 1, raw=struct.pack("<f", 3.5)),
        "empty_raw.pb": tensor_proto([0, 4], 1, raw=b""),
        "string_unsupported.pb": tensor_proto([1], 8, typed=field(6, 2, varint(2) + b"hi")),
        "external_data.pb": tensor_proto([4], 1) + field(13, 2, varint(10) + field(1, 2, varint(8) + b"location"))
        + field(14, 0, varint(1)),
        "huge_dims.pb": tensor_proto([1 << 40, 1 << 40], 1, raw=b"\0" * 8),
    }
    for name, b in samples.items():
        open(os.path.join(d, name), "wb").write(b)


def npy(descr, shape, data, version=1, fortran=False, extra=""):
    shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, %s}" % (descr, fortran, shape_text, extra)
    size_bytes = 2 if version == 1 else 4
    total = 6 + 2 + size_bytes + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode("latin1") + data


def npy_corpus():
    d = reset("fuzz_npy")
    samples = {
        "f4_2x3.npy": npy("<f4", [2, 3], struct.pack("<6f", *range(6))),
        "f2_4.npy": npy("<f2", [4], struct.pack("<4H", 0x3C00, 0x4000, 0xC000, 0x7C00)),
        "f8_scalar.npy": npy("<f8", [], struct.pack("<d", 1.5)),
        "i1_3.npy": npy("|i1", [3], b"\x01\xff\x7f"),
        "i2_2x2.npy": npy("<i2", [2, 2], struct.pack("<4h", 1, -1, 300, -300)),
        "i4_1x3x2x2.npy": npy("<i4", [1, 3, 2, 2], struct.pack("<12i", *range(-6, 6))),
        "i8_2.npy": npy("<i8", [2], struct.pack("<2q", 1 << 40, -5)),
        "u1_5.npy": npy("|u1", [5], bytes(range(5))),
        "u2_2.npy": npy("<u2", [2], struct.pack("<2H", 1, 65535)),
        "u4_2.npy": npy("<u4", [2], struct.pack("<2I", 1, 1 << 31)),
        "u8_1.npy": npy("<u8", [1], struct.pack("<Q", 1 << 63)),
        "b1_4.npy": npy("|b1", [4], b"\x01\x00\x01\x01"),
        "f4_v2.npy": npy("<f4", [2], struct.pack("<2f", 1, 2), version=2),
        "f4_v3.npy": npy("<f4", [1], struct.pack("<f", 1), version=3),
        "f4_bigendian.npy": npy(">f4", [1], struct.pack(">f", 1)),
        "u1_bigendian_ok.npy": npy(">u1", [2], b"\x01\x02"),
        "f4_fortran.npy": npy("<f4", [2, 2], struct.pack("<4f", 1, 2, 3, 4), fortran=True),
        "f4_py2_long_dims.npy": npy("<f4", ["2L", "1L"], struct.pack("<2f", 1, 2)),
        "c8_unsupported.npy": npy("<c8", [1], b"\0" * 8),
        "f4_truncated.npy": npy("<f4", [4, 4], struct.pack("<2f", 1, 2)),
        "f4_huge_shape.npy": npy("<f4", [1 << 40, 1 << 30], b""),
        "f4_extra_key.npy": npy("<f4", [1], struct.pack("<f", 1), extra="'x': 1, "),
    }
    for name, b in samples.items():
        open(os.path.join(d, name), "wb").write(b)


if __name__ == "__main__":
    onnx_corpus()
    pb_corpus()
    npy_corpus()
