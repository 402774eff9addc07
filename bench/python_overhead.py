#!/usr/bin/env python3
"""What the Python layer adds to a run: time per call of vkinfer.Session.run and of
InferenceSession.run (ONNX Runtime's interface), against the C++ Session::run on the same
session and inputs, measured side by side in one process.

The C++ figure is Session.bench()'s wall time per run, i.e. what `vkinfer bench --json`
reports (RunStats::wallMs: the whole C++ call, copies, submit, wait, readback). The Python
figures are time.perf_counter() around each call (dict in, arrays wrapped, dict or list out).
Medians of --iters runs after --warmup, alternating rounds so that drifts hit both alike.

  PYTHONPATH=build/python python3 bench/python_overhead.py MODEL.onnx [--shape name=1x3x224x224] [--iters 200]
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import vkinfer


def parse_shapes(specs):
    shapes = {}
    for spec in specs:
        name, dims = spec.split("=", 1)
        shapes[name] = [int(d) for d in dims.split("x")]
    return shapes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("--shape", action="append", default=[], help="NAME=1x3x224x224 for a dynamic input")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds of C++ and Python timing")
    p.add_argument("--device", type=int, default=None)
    p.add_argument("--precision", default="fp32")
    args = p.parse_args()

    model = vkinfer.Model.load(args.model)
    shapes = parse_shapes(args.shape)
    rng = np.random.default_rng(0)
    inputs = {}
    for d in model.inputs:
        if d.has_default:
            continue
        shape = shapes.get(d.name) or d.shape
        if shape is None or any(s is None for s in shape):
            sys.exit(f"input '{d.name}' has dynamic dimensions: give --shape {d.name}=...")
        inputs[d.name] = rng.random(shape).astype(d.dtype)

    session = vkinfer.Session(model, device=args.device, precision=args.precision)
    ort = vkinfer.InferenceSession(args.model, providers=["CUDAExecutionProvider"],
                                   provider_options=[{"device_id": args.device}] if args.device is not None else None)
    for _ in range(args.warmup):
        session.run(inputs)
        ort.run(None, inputs)

    def timed(call):
        samples = []
        for _ in range(args.iters):
            t0 = time.perf_counter()
            call()
            samples.append((time.perf_counter() - t0) * 1e3)
        return samples

    cpp, native, ort_style = [], [], []
    for _ in range(args.rounds):
        cpp.append(session.bench(inputs, iters=args.iters, warmup=1)["wall_ms"]["median"])
        native += timed(lambda: session.run(inputs))
        ort_style += timed(lambda: ort.run(None, inputs))
    cpp_ms = statistics.median(cpp)
    native_ms = statistics.median(native)
    ort_ms = statistics.median(ort_style)
    print(json.dumps({
        "model": args.model, "device": session.context.device.name, "precision": args.precision,
        "inputs": {k: list(v.shape) for k, v in inputs.items()}, "iters": args.iters, "rounds": args.rounds,
        "python": sys.version.split()[0],
        "cpp_session_run_ms": round(cpp_ms, 4),
        "python_session_run_ms": round(native_ms, 4),
        "python_inference_session_run_ms": round(ort_ms, 4),
        "overhead_session_run_ms": round(native_ms - cpp_ms, 4),
        "overhead_inference_session_run_ms": round(ort_ms - cpp_ms, 4),
    }, indent=1))


if __name__ == "__main__":
    main()
