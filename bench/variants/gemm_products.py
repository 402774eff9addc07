# MatMul models (x [M, K] fp32 input, w [K, N] initializer), one folder per product, for the GEMM
# probes: python3 gemm_products.py OUT [--torch] (--torch: cuBLAS on the same products, CUDA graphs).
import os, sys
import numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
shapes = {"vit8_fc1": (1576, 3072, 768), "vit8_fc2": (1576, 768, 3072), "vit8_qkv": (1576, 2304, 768),
          "vit8_proj": (1576, 768, 768), "cnx8_s1_fc1": (25088, 384, 96), "cnx8_s2_fc1": (6272, 768, 192),
          "cnx8_s3_fc1": (1568, 1536, 384), "cnx8_s3_fc2": (1568, 384, 1536), "cnx8_s4_fc1": (392, 3072, 768),
          "vit1_fc1": (197, 3072, 768), "sq4096": (4096, 4096, 4096)}
rng = np.random.default_rng(0)
for name, (m, n, k) in shapes.items():
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
                          [numpy_helper.from_array((rng.standard_normal((k, n)) * 0.05).astype(np.float32), "w")])
    os.makedirs(f"{out}/{name}", exist_ok=True)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), f"{out}/{name}/model.onnx")
    print(name, m, n, k, 2.0 * m * n * k)
if len(sys.argv) > 2 and sys.argv[2] == "--torch":  # cuBLAS on the same products, CUDA graphs of 20
    import torch
    for name, (m, n, k) in shapes.items():
        x = torch.randn(m, k, device="cuda", dtype=torch.half)
        w = torch.randn(k, n, device="cuda", dtype=torch.half)
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3): torch.matmul(x, w)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(20): torch.matmul(x, w)
        g.replay(); torch.cuda.synchronize()
        ts = []
        for _ in range(20):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); g.replay(); b.record(); torch.cuda.synchronize()
            ts.append(a.elapsed_time(b) / 20)
        ms = float(np.median(ts))
        print(f"torch {name:12s} {ms * 1000:8.2f} us {2.0 * m * n * k / ms / 1e9:6.1f} TFLOP/s", flush=True)
