#!/usr/bin/python3
"""Plan time per node for chains of Relu nodes (issue 20: planning must stay linear).

    /usr/bin/python3 scripts/plan_scaling.py [--vkinfer build/vkinfer] [--sizes 1000,10000,100000,1000000]

Writes each chain to a temporary folder, times `vkinfer plan` on it (wall time, best of
--repeat runs: loading, shape inference, fusion, lowering, scheduling, barriers, memory) and
prints a Markdown table: nodes, file size, seconds, microseconds per node. A benchmark, not a
test: the figures go to docs/BENCHMARKS.md with the machine they came from.
"""
import argparse
import os
import subprocess
import tempfile
import time

import onnx
from onnx import TensorProto, helper


def chain(n, path):
    nodes = [helper.make_node("Relu", ["x" if i == 0 else f"t{i}"], ["y" if i == n - 1 else f"t{i + 1}"], name=f"r{i}")
             for i in range(n)]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vkinfer", default="build/vkinfer")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    print("| nodes | file | plan s | us per node |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in a.sizes.split(",")):
            path = os.path.join(tmp, f"chain{n}.onnx")
            chain(n, path)
            best = float("inf")
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                subprocess.run([a.vkinfer, "plan", path], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                best = min(best, time.perf_counter() - t0)
            size = os.path.getsize(path)
            print(f"| {n} | {size / 1e6:.1f} MB | {best:.2f} | {best / n * 1e6:.2f} |", flush=True)
            os.remove(path)


if __name__ == "__main__":
    main()
