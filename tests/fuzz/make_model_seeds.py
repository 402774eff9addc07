#!/usr/bin/env python3
"""Writes tests/fuzz/corpus/fuzz_onnx/built-*.onnx (run from the repository root): models
built with onnx.helper for the kinds of input the engine has got wrong before (issue 20:
runtime indices, attributes of the wrong type, inputs with defaults, duplicate outputs,
bad dims, wrong input counts, long chains) and for the graph shapes exporters write today
(attention blocks, LayerNormalization, shape arithmetic; Einsum, Resize antialias, 5-D
GridSample, empty reductions), so that the fuzzer starts from them. make_seed_corpus.py keeps these files. Needs python3-onnx (Debian 12).
"""
import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = "tests/fuzz/corpus/fuzz_onnx"


def save(name, nodes, inputs, outputs, inits=(), opset=17, ir=8):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = ir
    onnx.save(m, os.path.join(OUT, "built-" + name + ".onnx"))


def vi(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


def main():
    f = T.FLOAT
    # Runtime indices of every op that takes them.
    save("gather_runtime_indices", [h.make_node("Gather", ["x", "i"], ["y"], axis=0)],
         [vi("x", f, [3, 4]), vi("i", T.INT64, [5])], [vi("y", f, None)])
    save("gather_elements_runtime", [h.make_node("GatherElements", ["x", "i"], ["y"], axis=1)],
         [vi("x", f, [2, 3]), vi("i", T.INT64, [2, 2])], [vi("y", f, None)])
    save("scatter_elements_runtime", [h.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0,
                                                  reduction="add")],
         [vi("x", f, [3, 3]), vi("i", T.INT64, [2, 3]), vi("u", f, [2, 3])], [vi("y", f, None)], opset=18)
    save("scatter_nd_runtime", [h.make_node("ScatterND", ["x", "i", "u"], ["y"])],
         [vi("x", f, [4, 4]), vi("i", T.INT64, [2, 2]), vi("u", f, [2])], [vi("y", f, None)])
    save("gather_nd_runtime", [h.make_node("GatherND", ["x", "i"], ["y"], batch_dims=1)],
         [vi("x", f, [2, 3, 4]), vi("i", T.INT64, [2, 2, 1])], [vi("y", f, None)], opset=13)
    # Attributes of the wrong type.
    w = nh.from_array(np.ones((2, 1, 3, 3), np.float32), "w")
    conv = h.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
    conv.attribute.append(h.make_attribute("strides", [2.0, 2.0]))
    save("conv_float_strides", [conv], [vi("x", f, [1, 1, 8, 8])], [vi("y", f, None)], [w])
    save("conv_string_kernel", [h.make_node("Conv", ["x", "w"], ["y"], kernel_shape="33")],
         [vi("x", f, [1, 1, 8, 8])], [vi("y", f, None)], [w])
    # An input with a default (IR >= 4: also an initializer), and a Clip with typed bounds.
    save("input_with_default", [h.make_node("Mul", ["x", "s"], ["y"])],
         [vi("x", f, [1, 4]), vi("s", f, [4])], [vi("y", f, None)],
         [nh.from_array(np.arange(4, dtype=np.float32), "s")])
    save("clip_int8_bounds", [h.make_node("Clip", ["x", "lo", "hi"], ["y"])],
         [vi("x", T.INT8, [6])], [vi("y", T.INT8, None)],
         [nh.from_array(np.array(-3, np.int8), "lo"), nh.from_array(np.array(4, np.int8), "hi")])
    # Lenient structure: duplicate outputs, a dim of -3, a Relu with three inputs.
    save("duplicate_outputs", [h.make_node("Relu", ["x"], ["y"])], [vi("x", f, [2, 2])],
         [vi("y", f, None), vi("y", f, None)])
    save("negative_dim", [h.make_node("Relu", ["x"], ["y"])], [vi("x", f, [2, -3])], [vi("y", f, None)])
    save("relu_three_inputs", [h.make_node("Relu", ["x", "x", "x"], ["y"])], [vi("x", f, [2])], [vi("y", f, None)])
    save("concat_scalars", [h.make_node("Concat", ["a", "b"], ["y"], axis=0)],
         [vi("a", f, []), vi("b", f, [])], [vi("y", f, None)])
    # A chain long enough to exercise the linear passes, small enough for the corpus.
    chain = [h.make_node("Relu", ["x" if k == 0 else f"r{k - 1}"], [f"r{k}" if k < 199 else "y"]) for k in range(200)]
    save("relu_chain_200", chain, [vi("x", f, [1, 8])], [vi("y", f, None)])
    # An attention block as torch.onnx exports it: MatMul, Reshape/Transpose, Softmax, Where mask,
    # LayerNormalization, Shape/Gather/Concat arithmetic on a dynamic sequence length.
    d = 8
    inits = [nh.from_array(np.random.RandomState(k).randn(d, d).astype(np.float32) * 0.1, n)
             for k, n in enumerate(["wq", "wk", "wv", "wo"])]
    inits += [nh.from_array(np.array([0, 0, 2, 4], np.int64), "heads"),
              nh.from_array(np.ones(d, np.float32), "gamma"), nh.from_array(np.zeros(d, np.float32), "beta"),
              nh.from_array(np.array(float(d) ** -0.5, np.float32), "scale"),
              nh.from_array(np.array(-1e4, np.float32), "neg"), nh.from_array(np.array([1], np.int64), "one")]
    nodes = [
        h.make_node("LayerNormalization", ["x", "gamma", "beta"], ["n"], axis=-1, epsilon=1e-5),
        h.make_node("MatMul", ["n", "wq"], ["q0"]), h.make_node("MatMul", ["n", "wk"], ["k0"]),
        h.make_node("MatMul", ["n", "wv"], ["v0"]),
        h.make_node("Reshape", ["q0", "heads"], ["q1"]), h.make_node("Transpose", ["q1"], ["q"], perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["k0", "heads"], ["k1"]), h.make_node("Transpose", ["k1"], ["k"], perm=[0, 2, 3, 1]),
        h.make_node("Reshape", ["v0", "heads"], ["v1"]), h.make_node("Transpose", ["v1"], ["v"], perm=[0, 2, 1, 3]),
        h.make_node("MatMul", ["q", "k"], ["s0"]), h.make_node("Mul", ["s0", "scale"], ["s1"]),
        h.make_node("Where", ["mask", "s1", "neg"], ["s2"]), h.make_node("Softmax", ["s2"], ["p"], axis=-1),
        h.make_node("MatMul", ["p", "v"], ["o0"]), h.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
        h.make_node("Shape", ["x"], ["xs"]), h.make_node("Reshape", ["o1", "xs"], ["o2"]),
        h.make_node("MatMul", ["o2", "wo"], ["o3"]), h.make_node("Add", ["x", "o3"], ["y"]),
        h.make_node("Shape", ["x"], ["shp"]), h.make_node("Gather", ["shp", "one"], ["len"], axis=0),
    ]
    save("attention_block", nodes,
         [vi("x", f, [1, "seq", d]), vi("mask", T.BOOL, [1, 1, "seq", "seq"])],
         [vi("y", f, None), vi("len", T.INT64, None)], inits, opset=17)
    # Einsum: attention written with it (rewritten as MatMuls), a diagonal, a product of
    # constants (folded), three operands.
    save("einsum_attention", [
        h.make_node("Einsum", ["q", "k"], ["s"], equation="B H I D, B H J D -> B H I J"),
        h.make_node("Softmax", ["s"], ["p"], axis=-1),
        h.make_node("Einsum", ["p", "v"], ["y"], equation="bhij,bhjd->bhid")],
        [vi("q", f, [1, 2, 5, 4]), vi("k", f, [1, 2, 6, 4]), vi("v", f, [1, 2, 6, 4])], [vi("y", f, None)], opset=13)
    save("einsum_mixed", [
        h.make_node("Einsum", ["x"], ["d"], equation="...ii->...i"),
        h.make_node("Einsum", ["a", "b"], ["ab"], equation="ij,jk"),
        h.make_node("Einsum", ["d", "ab", "c"], ["y"], equation="bi,ik,k->b")],
        [vi("x", f, [2, 3, 3])], [vi("y", f, None)],
        [nh.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "a"),
         nh.from_array(np.ones((4, 3), np.float32), "b"), nh.from_array(np.ones(3, np.float32), "c")], opset=13)
    # Opset 18-20 forms: Resize antialias, a volumetric GridSample, a reduction over an empty axis.
    save("resize_antialias", [h.make_node("Resize", ["x", "", "scales"], ["y"], mode="cubic", antialias=1)],
         [vi("x", f, [1, 2, 9, 8])], [vi("y", f, None)],
         [nh.from_array(np.array([1, 1, 0.5, 0.34], np.float32), "scales")], opset=18)
    save("gridsample_volume", [h.make_node("GridSample", ["x", "g"], ["y"], mode="linear", padding_mode="reflection")],
         [vi("x", f, [1, 2, 3, 4, 5]), vi("g", f, [1, 2, 2, 3, 3])], [vi("y", f, None)], opset=20)
    save("reduce_empty_axis", [h.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=1)],
         [vi("x", f, [2, 0, 3])], [vi("y", f, None)], [nh.from_array(np.array([1], np.int64), "axes")], opset=18)


if __name__ == "__main__":
    main()
