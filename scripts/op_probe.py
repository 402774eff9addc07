#!/usr/bin/env python3
"""Single-op probes for where a transformer's time goes (issue 21): the GEMMs of ViT-B/16 (197
tokens, and 1576 at batch 8) and ConvNeXt-T's later stages at batch 8 as MatMul (B stored [K, N]) and as Gemm with transB (B stored [N, K], nn.Linear's weight
on 2-D input), a large square GEMM, LayerNorms, a chain of 64 LayerNorms on [1, 64] (the
floor of one dispatch and its barrier), and two depthwise convs (ConvNeXt-T's 7x7, a 3x3;
PyTorch timed in the faster of NCHW and channels-last). Each becomes an ONNX model (float32; vkinfer runs it in
the precision asked for, float16 by default); the same op runs in PyTorch in that precision
under a CUDA graph (20 per replay, time per op; float32 with TF32 off).

  op_probe.py OUT_DIR [--vkinfer PATH] [--torch] [--iters N] [--precision fp16|fp32]

--vkinfer runs `PATH bench MODEL --precision P --profile --json` on each model and prints its
dispatches with their GPU times; --torch times PyTorch where CUDA is. Without either it only
writes the models (needs numpy and onnx).
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# name -> (M, N, K)
GEMMS = {"197x3072x768": (197, 3072, 768), "197x768x3072": (197, 768, 3072), "197x2304x768": (197, 2304, 768),
         "197x768x768": (197, 768, 768), "1576x3072x768": (1576, 3072, 768), "1576x768x3072": (1576, 768, 3072),
         "1576x2304x768": (1576, 2304, 768), "1576x768x768": (1576, 768, 768), "3136x384x96": (3136, 384, 96),
         "1568x1536x384": (1568, 1536, 384), "392x3072x768": (392, 3072, 768),
         "4096x4096x4096": (4096, 4096, 4096)}
NORMS = [(197, 768), (3136, 96)]
# name -> (channels, height = width, kernel): depthwise convs with same padding (ConvNeXt-T's
# first stage, MobileNetV2's 56 x 56 blocks)
DEPTHWISE = {"dw7_96x56": (96, 56, 7), "dw3_144x56": (144, 56, 3)}


def save(out, name, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(model, os.path.join(out, name, "model.onnx"))


def write_models(out):
    rng = np.random.default_rng(0)
    vi = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
    w = lambda n, s: numpy_helper.from_array((rng.standard_normal(s) * 0.05).astype(np.float32), n)
    for name, (m, n, k) in GEMMS.items():
        save(out, "matmul_" + name, [helper.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", [m, k])], [vi("y", [m, n])],
             [w("w", [k, n])])
        save(out, "gemm_transb_" + name, [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], [vi("x", [m, k])],
             [vi("y", [m, n])], [w("w", [n, k]), w("b", [n])])
    ln = lambda i, o: helper.make_node("LayerNormalization", [i, "g", "b"], [o], axis=-1)
    for rows, c in NORMS:
        save(out, f"layernorm_{rows}x{c}", [ln("x", "y")], [vi("x", [rows, c])], [vi("y", [rows, c])],
             [w("g", [c]), w("b", [c])])
    for name, (c, hw, k) in DEPTHWISE.items():
        save(out, name, [helper.make_node("Conv", ["x", "w", "b"], ["y"], group=c, kernel_shape=[k, k], pads=[k // 2] * 4)],
             [vi("x", [1, c, hw, hw])], [vi("y", [1, c, hw, hw])], [w("w", [c, 1, k, k]), w("b", [c])])
    nodes, prev = [], "x"
    for i in range(64):
        nodes.append(ln(prev, f"l{i}"))
        prev = f"l{i}"
    save(out, "layernorm_chain64_1x64", nodes, [vi("x", [1, 64])], [vi(prev, [1, 64])], [w("g", [64]), w("b", [64])])


def cuda_graph_ms(fn, iters, reps=20):
    """fn's time in ms: `reps` calls captured in one CUDA graph, the median of `iters` replays
    divided by `reps` (also bench/variants/coopmat2/run_probe.sh's cuBLAS figures)."""
    import torch
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(reps):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / reps)
    return float(np.median(times))


def time_torch(iters, precision):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def per_op_ms(fn):
        return cuda_graph_ms(fn, iters)

    res = {}
    h = dict(device="cuda", dtype=torch.half if precision == "fp16" else torch.float)
    for name, (m, n, k) in GEMMS.items():
        x, wt, wl, bl = torch.randn(m, k, **h), torch.randn(k, n, **h), torch.randn(n, k, **h), torch.randn(n, **h)
        res["matmul_" + name] = per_op_ms(lambda: torch.matmul(x, wt))
        res["gemm_transb_" + name] = per_op_ms(lambda: torch.nn.functional.linear(x, wl, bl))
    for rows, c in NORMS + [(1, 64)]:
        x, norm = torch.randn(rows, c, **h), torch.nn.LayerNorm(c).cuda().to(h["dtype"])
        res[f"layernorm_{rows}x{c}"] = per_op_ms(lambda: norm(x))
    for name, (c, hw, k) in DEPTHWISE.items():
        conv = torch.nn.Conv2d(c, c, k, padding=k // 2, groups=c).cuda().to(h["dtype"])
        for layout in (torch.contiguous_format, torch.channels_last):
            x = torch.randn(1, c, hw, hw, **h).to(memory_format=layout)
            conv = conv.to(memory_format=layout)
            t = per_op_ms(lambda: conv(x))
            res[name] = min(res.get(name, t), t)  # the faster layout, as a user would pick
    return res


def flops(name):
    for key, (m, n, k) in GEMMS.items():
        if name.endswith(key):
            return 2.0 * m * n * k
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--vkinfer")
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--precision", choices=["fp16", "fp32"], default="fp16")
    a = ap.parse_args()
    write_models(a.out)
    torch_ms = time_torch(a.iters, a.precision) if a.torch else {}
    for name in sorted(os.listdir(a.out)):
        model = os.path.join(a.out, name, "model.onnx")
        if not os.path.isfile(model):
            continue
        line = f"{name:30s}"
        if name in torch_ms:
            line += f" torch {torch_ms[name] * 1000:8.2f} us"
            if flops(name):
                line += f" ({flops(name) / torch_ms[name] / 1e9:6.1f} TFLOP/s)"
        if a.vkinfer:
            try:
                r = subprocess.run([a.vkinfer, "bench", model, "--precision", a.precision, "--profile", "--json", "--iters",
                                    str(a.iters)], capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                print(line + " | vkinfer timed out (300 s)", flush=True)
                continue
            if r.returncode != 0:
                line += f" vkinfer failed: {r.stderr.strip()[-200:]}"
            else:
                j = json.loads(r.stdout)
                d = j["profile"]["dispatches"]
                line += f" | vkinfer gpu {j['gpu_ms']['median'] * 1000:8.2f} us, {len(d)} dispatches: "
                line += "; ".join(f"{x['kernel']} {x['ms'] * 1000:.2f}" for x in d[:6]) + ("; ..." if len(d) > 6 else "")
        print(line, flush=True)
    if torch_ms:
        with open(os.path.join(a.out, "torch.json"), "w") as f:
            json.dump(torch_ms, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
