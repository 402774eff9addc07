#!/usr/bin/env python3
"""What the Python layer adds to a run: time per call of vkinfer.Session.run and of
InferenceSession.run (ONNX Runtime's interface) against the C++ Session::run, on the same
session and inputs, in one process.

Per call, paired: time.perf_counter() around Session.run(inputs, stats=True) against the
RunStats::wallMs of that same call (the whole C++ Session::run: copies, submit, wait,
readback, as `vkinfer bench` reports it); the difference is what Python adds (inputs
borrowed, GIL released and taken back, outputs wrapped as arrays, the dict), and pairing
keeps the device's own variation out of it. InferenceSession.run against Session.run:
alternating calls, difference of the medians. Also Session.bench()'s median (the CLI's
figure) for reference.

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

    def seconds(call):
        t0 = time.perf_counter()
        result = call()
        return (time.perf_counter() - t0) * 1e3, result

    python_ms, cpp_ms, added_ms, native_ms, ort_ms = [], [], [], [], []
    for _ in range(args.iters):
        ms, (_, stats) = seconds(lambda: session.run(inputs, stats=True))
        python_ms.append(ms)
        cpp_ms.append(stats["wall_ms"])
        added_ms.append(ms - stats["wall_ms"])
        native_ms.append(seconds(lambda: session.run(inputs))[0])
        ort_ms.append(seconds(lambda: ort.run(None, inputs))[0])
    bench = session.bench(inputs, iters=args.iters, warmup=1)["wall_ms"]["median"]
    med = statistics.median
    print(json.dumps({
        "model": args.model, "device": session.context.device.name, "precision": args.precision,
        "inputs": {k: "x".join(map(str, v.shape)) for k, v in inputs.items()}, "iters": args.iters,
        "python": sys.version.split()[0],
        "cpp_session_run_ms": round(med(cpp_ms), 4),
        "python_session_run_ms": round(med(python_ms), 4),
        "python_adds_per_call_ms": round(med(added_ms), 4),
        "python_adds_per_call_p90_ms": round(sorted(added_ms)[int(0.9 * (len(added_ms) - 1))], 4),
        "inference_session_minus_session_ms": round(med(ort_ms) - med(native_ms), 4),
        "bench_wall_median_ms": round(bench, 4),
    }, indent=1))


if __name__ == "__main__":
    main()
