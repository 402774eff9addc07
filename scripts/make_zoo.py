#!/usr/bin/env python3
"""Export a zoo of models the shared set does not cover, with reference outputs, for
`vkinfer check` (ONNX backend-test layout: NAME/model.onnx, NAME/test_data_set_<k>/).

  make_zoo.py OUTDIR [--only NAME,...] [--list] [--torchvision NAME[@BATCH],...]

Needs PyTorch, torchvision and onnx (the GPU machine has them; Debian 12: python3-torch
python3-torchvision python3-onnx). Weights are seeded random (nothing can be downloaded);
batch-norm statistics are calibrated on random inputs so that the output depends on the
input; the exporter is the TorchScript one (`dynamo=False` where torch has both), as for
../shared/models. References are PyTorch's float32 outputs on the CPU.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision

from torchvision_spec import torchvision_models, tv
from onnx import numpy_helper


class FSRCNN(nn.Module):
    """FSRCNN x2: PReLU everywhere and a transposed-convolution upsampler."""

    def __init__(self, ch=1, d=32, s=12):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(ch, d, 5, padding=2), nn.PReLU(d), nn.Conv2d(d, s, 1), nn.PReLU(s),
                                  nn.Conv2d(s, s, 3, padding=1), nn.PReLU(s), nn.Conv2d(s, s, 3, padding=1),
                                  nn.PReLU(s), nn.Conv2d(s, d, 1), nn.PReLU(d))
        self.up = nn.ConvTranspose2d(d, ch, 9, stride=2, padding=4, output_padding=1)

    def forward(self, x):
        return self.up(self.body(x))


class TextEncoder(nn.Module):
    """BERT-style text encoder: token and position embeddings (Gather on int64 ids), post-norm
    encoder layers with ReLU MLPs, mean pooling."""

    def __init__(self, vocab=500, dim=96, heads=6, layers=2, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.out = nn.Linear(dim, 8)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        h = self.enc(self.tok(ids) + self.pos(positions))
        return self.out(h.mean(dim=1))


def seg(name, **kw):
    return lambda: getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None, **kw)


def small_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    cfg = [CNBlockConfig(32, 64, 2), CNBlockConfig(64, 128, 2), CNBlockConfig(128, 256, 2), CNBlockConfig(256, None, 2)]
    return ConvNeXt(cfg, stochastic_depth_prob=0.0, num_classes=100)


def small_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=96, patch_size=16, num_layers=3, num_heads=6, hidden_dim=192, mlp_dim=384,
                             num_classes=100)


def small_swin():
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2, 2], num_heads=[2, 4, 8], window_size=[4, 4],
                           stochastic_depth_prob=0.0, num_classes=100)


class SegOut(nn.Module):
    """torchvision's segmentation models return a dict; export its 'out' tensor."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


# name: (constructor, input shape, opset, dynamic spatial dims?, kind)
ZOO = {
    "shufflenet_v2_x0_5": (tv("shufflenet_v2_x0_5"), (1, 3, 224, 224), 13, False, "image"),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), (1, 3, 224, 224), 13, False, "image"),
    "efficientnet_b0": (tv("efficientnet_b0"), (1, 3, 224, 224), 13, False, "image"),
    "regnet_y_400mf": (tv("regnet_y_400mf"), (1, 3, 224, 224), 13, False, "image"),
    "mnasnet0_5": (tv("mnasnet0_5"), (1, 3, 224, 224), 13, False, "image"),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), (1, 3, 224, 224), 13, False, "image"),
    "densenet121": (tv("densenet121"), (1, 3, 224, 224), 13, False, "image"),
    "resnet50": (tv("resnet50"), (1, 3, 224, 224), 13, False, "image"),
    "lraspp_mobilenet_v3": (lambda: SegOut(seg("lraspp_mobilenet_v3_large", num_classes=5)()), (1, 3, 160, 224), 13,
                            True, "image"),
    "deeplabv3_mobilenet_v3": (lambda: SegOut(seg("deeplabv3_mobilenet_v3_large", num_classes=5, aux_loss=False)()),
                               (1, 3, 160, 224), 13, False, "image"),
    "convnext_small_cfg": (small_convnext, (1, 3, 128, 128), 17, False, "image"),
    "vit_small_cfg": (small_vit, (1, 3, 96, 96), 17, False, "image"),
    "swin_small_cfg": (small_swin, (1, 3, 64, 64), 17, False, "image"),
    "fsrcnn_x2": (FSRCNN, (1, 1, 60, 80), 13, True, "image"),
    "text_encoder": (TextEncoder, (2, 20), 17, True, "tokens"),
}


def randomize(m, g):
    """Random batch-norm affine parameters and biases (zero biases would hide bias bugs)."""
    for mod in m.modules():
        with torch.no_grad():
            if isinstance(mod, nn.BatchNorm2d) and mod.affine:
                mod.weight.copy_(torch.rand(mod.num_features, generator=g) * 0.5 + 0.75)
                mod.bias.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
            if isinstance(mod, (nn.Conv2d, nn.Linear, nn.ConvTranspose2d)) and mod.bias is not None:
                mod.bias.copy_(torch.randn(mod.bias.shape, generator=g) * 0.05)
            if isinstance(mod, nn.Linear) and not mod.weight.any():  # torchvision's ViT zeroes its head
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=g) / mod.in_features ** 0.5)
    return m


def calibrate(m, shape, g):
    """Batch-norm statistics from the model's own activations, as training would set them:
    random weights otherwise collapse the signal and the output stops depending on the input."""
    bns = [mod for mod in m.modules() if isinstance(mod, nn.BatchNorm2d)]
    if not bns:
        return m
    for mod in bns:
        mod.reset_running_stats()
        mod.momentum = None
    m.train()
    with torch.no_grad():
        for _ in range(3):
            m(torch.randn(4, *shape[1:], generator=g))
    return m


def make_input(kind, shape, g, scale=1.0):
    if kind == "tokens":
        return torch.randint(0, 500, shape, generator=g)
    return torch.randn(*shape, generator=g) * scale


def export_one(name, spec, out, seed):
    ctor, shape, opset, dynamic, kind = spec
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    m = calibrate(randomize(ctor(), g), shape, g).eval()
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    x = make_input(kind, shape, g)
    in_name = "ids" if kind == "tokens" else "input"
    axes = None
    if dynamic:
        axes = ({"ids": {0: "N", 1: "S"}} if kind == "tokens" else
                {"input": {0: "N", 2: "H", 3: "W"}, "output": {0: "N", 2: "OH", 3: "OW"}})
    args = dict(opset_version=opset, input_names=[in_name], output_names=["output"], dynamic_axes=axes,
                do_constant_folding=True)
    path = os.path.join(d, "model.onnx")
    try:
        torch.onnx.export(m, (x,), path, dynamo=False, **args)
    except TypeError:  # torch without the dynamo exporter (Debian 12's 1.13)
        torch.onnx.export(m, (x,), path, **args)
    inputs = [x]
    if dynamic and kind == "tokens":  # another batch; the TorchScript exporter bakes the sequence
        # length into nn.MultiheadAttention's reshapes (onnxruntime fails the same way at another one)
        inputs.append(torch.randint(0, 500, (3, shape[1]), generator=g))
    elif dynamic:  # another resolution and batch
        inputs.append(torch.rand(2, shape[1], shape[2] // 2 + 8, shape[3] // 2 + 16, generator=g))
    else:
        inputs.append(make_input(kind, shape, g) * 0.5 + 0.25)
    for k, xi in enumerate(inputs):
        with torch.no_grad():
            y = m(xi)
        ds = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(ds, exist_ok=True)
        arr = xi.numpy() if kind == "tokens" else xi.numpy().astype(np.float32)
        for fn, t, nm in (("input_0.pb", arr, in_name), ("output_0.pb", y.numpy().astype(np.float32), "output")):
            with open(os.path.join(ds, fn), "wb") as f:
                f.write(numpy_helper.from_array(t, nm).SerializeToString())
    with torch.no_grad():  # the output must depend on the input, or a wrong engine could pass
        a = m(x)
        b = m(make_input(kind, shape, g))
    sens = float((a - b).abs().max() / a.abs().max())
    print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB, opset {opset}, output change under another input "
          f"{sens:.2f}{'  (WEAK)' if sens < 0.1 else ''}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--only", default=None, help="comma-separated model names")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("--torchvision", default="", metavar="NAME[@BATCH],...",
                    help="also these torchvision classifiers at 224x224 (299 for inception_v3), e.g. resnet101,densenet169@8")
    a = ap.parse_args()
    try:
        ZOO.update({n: (ctor, shape, 13, False, "image") for n, (ctor, shape) in torchvision_models(a.torchvision).items()})
    except ValueError as e:
        ap.error(str(e))
    if a.list or not a.out:
        for n, s in ZOO.items():
            print(f"{n:26} input {s[1]}, opset {s[2]}{', dynamic' if s[3] else ''}")
        return 0 if a.list else 2
    failed = []
    for i, (n, s) in enumerate(ZOO.items()):
        if a.only and n not in a.only.split(","):
            continue
        t = time.time()
        try:
            export_one(n, s, a.out, seed=2000 + i)
        except Exception as e:  # one model's export failing must not stop the others
            failed.append(n)
            print(f"{n}: export failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
        print(f"  ({time.time() - t:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
