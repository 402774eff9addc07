#!/usr/bin/env python3
"""vkinfer against PyTorch on the same GPU, side by side in one run (docs/BENCHMARKS.md).

  peer_compare.py --vkinfer PATH [--out DIR] [--iters N] [--only NAME,...] [--gemm N] [--export-only]
                  [--torchvision NAME[@BATCH],...]
  peer_compare.py --table DIR/peer_compare.json    (the table of an earlier run again)

For each model (torchvision architectures with seeded random weights, and ESPCN x2 at
960x540), exports ONNX with PyTorch, then times
  vkinfer   `vkinfer bench MODEL --json`: GPU time between the first and last dispatch
            (timestamps), median of N; fp32 and --precision fp16;
  PyTorch   CUDA events around eager calls and around CUDA-graph replays, median of N after
            warm-up; fp32 with TF32 off (vkinfer computes in full float32) and fp16 (.half()).
Work per inference from torch.utils.flop_counter (2 FLOP per multiply-add); TFLOP/s and the
fraction of the ceilings: 169 TFLOP/s for fp16 with fp32 accumulation through Vulkan (NVIDIA's
cooperative-matrix sample on this H200) and 67 TFLOP/s plain fp32 (datasheet).
--gemm N also times an N x N x N fp16 product: vkinfer's MatMul dispatch (bench --profile)
against torch.matmul.
Writes DIR/peer_compare.md (the table) and DIR/peer_compare.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import torch
import torchvision

from torchvision_spec import torchvision_models, tv

FP16_CEILING = 169.0  # TFLOP/s, vk_cooperative_matrix_perf fp16 x fp16 -> fp32 on this H200
FP32_CEILING = 67.0   # TFLOP/s, H200 datasheet (plain fp32)


class Espcn(torch.nn.Module):
    """data/espcn_x2's architecture (scripts/make_models.py): 5x5x64, 3x3x32, 3x3x12, pixel shuffle."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 64, 5, padding=2)
        self.c2 = torch.nn.Conv2d(64, 32, 3, padding=1)
        self.c3 = torch.nn.Conv2d(32, 12, 3, padding=1)
        self.ps = torch.nn.PixelShuffle(2)

    def forward(self, x):
        return torch.sigmoid(self.ps(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x)))))))


# name: (constructor, input shape)
MODELS = {
    "resnet18": (tv("resnet18"), (1, 3, 224, 224)),
    "resnet50": (tv("resnet50"), (1, 3, 224, 224)),
    "mobilenet_v2": (tv("mobilenet_v2"), (1, 3, 224, 224)),
    "squeezenet1_1": (tv("squeezenet1_1"), (1, 3, 224, 224)),
    "efficientnet_b0": (tv("efficientnet_b0"), (1, 3, 224, 224)),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), (1, 3, 224, 224)),
    "densenet121": (tv("densenet121"), (1, 3, 224, 224)),
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"), (1, 3, 224, 224)),
    "mnasnet1_0": (tv("mnasnet1_0"), (1, 3, 224, 224)),
    "espcn_x2_960x540": (Espcn, (1, 3, 540, 960)),
    "resnet50_batch8": (tv("resnet50"), (8, 3, 224, 224)),
}


def randomize(m, g):
    """Seeded weights and calibrated batch-norm statistics, so that outputs depend on inputs."""
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * (1.0 / max(1, p[0].numel()) ** 0.5))
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.zero_()
                mod.running_var.fill_(1.0)
    return m


def export(m, x, path):
    kw = dict(input_names=["input"], output_names=["output"], opset_version=17)
    try:
        torch.onnx.export(m, x, path, dynamo=False, **kw)
    except TypeError:  # an exporter without the dynamo flag
        torch.onnx.export(m, x, path, **kw)


def time_cuda(fn, iters, warmup=10):
    for _ in range(warmup):
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


def torch_times(m, x, iters):
    """(eager ms, CUDA-graph ms)."""
    with torch.no_grad():
        eager = time_cuda(lambda: m(x), iters)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                m(x)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            m(x)
        replay = time_cuda(graph.replay, iters)
    return eager, replay


def flops(m, x):
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        m(x)
    return counter.get_total_flops()


def vkinfer_bench(vk, model, precision, iters, extra=()):
    cmd = [vk, "bench", model, "--json", "--iters", str(iters), "--precision", precision, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
    j = json.loads(r.stdout)
    return j, None


def gemm(vk, n, out, iters):
    """vkinfer's MatMul dispatch on n x n x n fp16 (--precision fp16; the profile separates it from the casts)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np
    rng = np.random.default_rng(0)
    b = numpy_helper.from_array((rng.standard_normal((n, n)) / n ** 0.5).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
    g = helper.make_graph(nodes, "gemm", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])], [b])
    path = os.path.join(out, f"gemm{n}.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    j, err = vkinfer_bench(vk, path, "fp16", iters, ["--profile"])  # fp16 storage: the Casts are separate dispatches
    vk_ms = None
    if j:
        for op in j["profile"]["by_op"]:
            if op["op"].startswith("MatMul"):
                vk_ms = op["ms"]  # the median run's time of the MatMul dispatches
    a16 = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b16 = torch.randn(n, n, device="cuda", dtype=torch.float16)
    torch_ms = time_cuda(lambda: torch.matmul(a16, b16), iters)
    work = 2.0 * n ** 3
    return {"n": n, "vkinfer_matmul_ms": vk_ms, "vkinfer_error": err, "torch_matmul_ms": torch_ms,
            "vkinfer_tflops": work / vk_ms / 1e9 if vk_ms else None, "torch_tflops": work / torch_ms / 1e9}


def fmt(v, digits=3):
    return "n/a" if v is None else f"{v:.{digits}f}"


def render(result):
    """The markdown table (and GEMM line) of a peer_compare.json result."""
    f = fmt
    lines = ["| model | GFLOP | vkinfer fp32 ms | torch graph fp32 ms | fp32 ratio | vkinfer fp32 TFLOP/s (of 67) "
             "| vkinfer fp16 ms | torch graph fp16 ms | fp16 ratio | vkinfer fp16 TFLOP/s (of 169) "
             "| torch eager fp32 / fp16 ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["models"]:
        v32, v16 = r["vkinfer_fp32_ms"], r["vkinfer_fp16_ms"]
        t32, t16 = r["torch_fp32_graph_ms"], r["torch_fp16_graph_ms"]
        tf32 = r["gflop"] / v32 if v32 else None
        tf16 = r["gflop"] / v16 if v16 else None
        lines.append(f"| {r['model']} | {r['gflop']:.2f} | {f(v32)} | {f(t32)} | {f(v32 / t32 if v32 else None, 2)} | "
                     f"{f(tf32, 1)} ({f(tf32 / FP32_CEILING * 100 if tf32 else None, 1)}%) | "
                     f"{f(v16)} | {f(t16)} | {f(v16 / t16 if v16 else None, 2)} | "
                     f"{f(tf16, 1)} ({f(tf16 / FP16_CEILING * 100 if tf16 else None, 1)}%) | "
                     f"{f(r['torch_fp32_eager_ms'])} / {f(r['torch_fp16_eager_ms'])} |")
    gm = result.get("gemm")
    if gm:
        lines.append("")
        lines.append(f"GEMM {gm['n']}^3 fp16 (fp32 accumulation): vkinfer MatMul {f(gm['vkinfer_matmul_ms'])} ms = "
                     f"{f(gm['vkinfer_tflops'], 1)} TFLOP/s ({f(gm['vkinfer_tflops'] / FP16_CEILING * 100 if gm['vkinfer_tflops'] else None, 1)}% "
                     f"of 169); torch.matmul {f(gm['torch_matmul_ms'])} ms = {f(gm['torch_tflops'], 1)} TFLOP/s")
        if gm["vkinfer_error"]:
            lines.append(f"vkinfer error: {gm['vkinfer_error']}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vkinfer", help="the vkinfer CLI (needed unless --table)")
    ap.add_argument("--out", default="peer_compare_out")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--only", default=None, help="comma-separated model names")
    ap.add_argument("--gemm", type=int, default=0, help="also an N x N x N fp16 GEMM")
    ap.add_argument("--extra", default="", help="extra vkinfer bench arguments, comma-separated")
    ap.add_argument("--torchvision", default="", metavar="NAME[@BATCH],...",
                    help="also these torchvision classifiers at 224x224 (299 for inception_v3), e.g. "
                         "resnet101,densenet169@8: other members of the families above")
    ap.add_argument("--export-only", action="store_true", help="write DIR/MODEL.onnx for each model, time nothing")
    ap.add_argument("--table", metavar="JSON", help="print the table of an earlier run's peer_compare.json and exit")
    a = ap.parse_args()
    if a.table:
        try:
            with open(a.table) as fh:
                print("\n".join(render(json.load(fh))))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"peer_compare.py: {a.table} is not a peer_compare.json result "
                     f"({type(e).__name__}: {e})")
        return 0
    if not a.vkinfer:
        ap.error("--vkinfer is required")
    os.makedirs(a.out, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    extra = [e for e in a.extra.split(",") if e]
    try:
        MODELS.update(torchvision_models(a.torchvision))
    except ValueError as e:
        ap.error(str(e))
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}", flush=True)
    rows = []
    for name, (ctor, shape) in MODELS.items():
        if a.only and name not in a.only.split(","):
            continue
        g = torch.Generator().manual_seed(0)
        m = randomize(ctor().eval(), g)
        x = torch.rand(shape, generator=g)
        path = os.path.join(a.out, f"{name}.onnx")
        if not os.path.exists(path):
            export(m, x, path)
        if a.export_only:
            print(path, flush=True)
            continue
        work = flops(m, x)
        row = {"model": name, "shape": list(shape), "gflop": work / 1e9}
        for prec in ("fp32", "fp16"):
            j, err = vkinfer_bench(a.vkinfer, path, prec, a.iters, extra)
            row[f"vkinfer_{prec}_ms"] = j["gpu_ms"]["median"] if j and "gpu_ms" in j else None
            if err:
                row[f"vkinfer_{prec}_error"] = err
        mc, xc = m.cuda(), x.cuda()
        row["torch_fp32_eager_ms"], row["torch_fp32_graph_ms"] = torch_times(mc, xc, a.iters)
        mh, xh = mc.half(), xc.half()
        row["torch_fp16_eager_ms"], row["torch_fp16_graph_ms"] = torch_times(mh, xh, a.iters)
        rows.append(row)
        print(json.dumps(row), flush=True)
        del mc, mh
        torch.cuda.empty_cache()

    result = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "models": rows}
    if a.gemm:
        result["gemm"] = gemm(a.vkinfer, a.gemm, a.out, a.iters)
    lines = render(result)
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(a.out, "peer_compare.md"), "w") as fh:
        fh.write(table + "\n")
    with open(os.path.join(a.out, "peer_compare.json"), "w") as fh:
        json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
