#!/usr/bin/env python3
"""Peer latency for docs/BENCHMARKS.md: PyTorch eager (cuDNN) and, where onnxruntime has the
CUDA provider, onnxruntime, on the models `vkinfer bench` times, same input shapes, float32.

  torch_peer_bench.py ZOO_DIR [--iters N] [--only NAME,...]

Times the models of scripts/make_zoo.py (rebuilt from the same constructors) and, for
onnxruntime, ZOO_DIR/NAME/model.onnx. Each figure is the median of N runs timed with CUDA
events after 10 warm-up runs; cuDNN autotuning (benchmark mode) on, TF32 off (vkinfer
computes in full float32).
"""
import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_zoo import ZOO, make_input  # noqa: E402


def time_cuda(fn, iters):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("zoo")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        import onnxruntime as ort
        cuda_ep = "CUDAExecutionProvider" in ort.get_available_providers()
    except ImportError:
        ort, cuda_ep = None, False
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}; onnxruntime CUDA provider: "
          f"{'yes' if cuda_ep else 'no'}")
    for name, (ctor, shape, _, _, kind) in ZOO.items():
        if a.only and name not in a.only.split(","):
            continue
        g = torch.Generator().manual_seed(0)
        m = ctor().eval().cuda()
        x = make_input(kind, shape, g).cuda()
        with torch.no_grad():
            eager = time_cuda(lambda: m(x), a.iters)
        line = f"{name:26} torch eager {eager:8.3f} ms"
        path = os.path.join(a.zoo, name, "model.onnx")
        if cuda_ep and os.path.exists(path):
            s = ort.InferenceSession(path, providers=["CUDAExecutionProvider"])
            feed = {s.get_inputs()[0].name: x.cpu().numpy()}
            line += f"   onnxruntime-cuda {time_cuda(lambda: s.run(None, feed), a.iters):8.3f} ms (incl. copies)"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
