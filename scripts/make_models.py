#!/usr/bin/python3
# /usr/bin/python3 on purpose: the torch, torchvision and onnx this needs are Debian's packages
# (python3-torch python3-torchvision python3-onnx), installed for the system interpreter.
"""Make the ONNX models the tests read, and full-size benchmark models, with reference data.

  scripts/make_models.py OUTDIR [--set shared|bench|all] [--only NAME,...]

--set shared (the default) makes the six test models: resnet18_half, mobilenet_v2,
squeezenet1_1, espcn_x2, unet_small and tiny_vit. The tests look for them in ../shared/models
(next to the repository) unless VKINFER_MODELS_DIR says otherwise, at configure time
(cmake -DVKINFER_MODELS_DIR=DIR) or in the environment at run time (tests/CMakeLists.txt,
tests/support/gpu_context.h); so `scripts/make_models.py ../shared/models` puts them where a
default build looks. --set bench makes torchvision's resnet18 and resnet50 at full size, for
benchmarks only: too large to keep in the repository.

Each model lands as OUTDIR/<name>/model.onnx with test_data_set_<k>/input_0.pb and
output_0.pb (the ONNX backend-test layout that `vkinfer check` reads), the reference computed
by PyTorch in float32. Weights are seeded random, so nothing has to be downloaded and runs
with the same PyTorch make the same models. The k-th model of the chosen set, counting from
0, gets seed 1000 + k; --only skips models without renumbering the rest, and --set all
numbers the bench models after the six test models, so they differ from those of --set
bench. Batch-norm layers get random affine parameters, and their running statistics are then
measured on random inputs: with random weights and default statistics the signal collapses,
the output stops depending on the input, and a wrong engine would pass. Each model reports
how much its output moves under input noise and is marked WEAK below 0.1. Models with
dynamic H and W (espcn_x2, unet_small) get their second data set at another resolution and
batch 2.
"""
import os, sys, argparse
import numpy as np
import torch, torch.nn as nn, torchvision
from onnx import numpy_helper

def randomize_bn(m, g):
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
                mod.running_var.copy_(torch.rand(mod.num_features, generator=g) * 0.5 + 0.75)
                mod.weight.copy_(torch.rand(mod.num_features, generator=g) * 0.5 + 0.75)
                mod.bias.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
    for mod in m.modules():  # zero-initialized biases would hide bias bugs; cloned layers would share weights
        if isinstance(mod, (nn.Conv2d, nn.Linear, nn.ConvTranspose2d)) and mod.bias is not None:
            with torch.no_grad():
                mod.bias.copy_(torch.randn(mod.bias.shape, generator=g) * 0.05)
        if isinstance(mod, nn.TransformerEncoderLayer):
            with torch.no_grad():
                for prm in mod.parameters():
                    prm.add_(torch.randn(prm.shape, generator=g) * 0.02)
    return m

class ESPCN(nn.Module):
    """Efficient sub-pixel CNN, x2: the classic real-time upscaler."""
    def __init__(self, scale=2, ch=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(ch, 64, 5, padding=2), nn.Tanh(),
                                  nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(32, ch * scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)
    def forward(self, x):
        return self.shuffle(self.body(x))

def cbr(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

class UNetSmall(nn.Module):
    """Three-level U-Net: skip connections by Concat, nearest Resize on the way up."""
    def __init__(self, ch=3, out=3, w=16):
        super().__init__()
        self.e1, self.e2, self.e3 = cbr(ch, w), cbr(w, 2 * w), cbr(2 * w, 4 * w)
        self.pool = nn.MaxPool2d(2)
        self.d2, self.d1 = cbr(6 * w, 2 * w), cbr(3 * w, w)
        self.head = nn.Conv2d(w, out, 1)
    def forward(self, x):
        a = self.e1(x); b = self.e2(self.pool(a)); c = self.e3(self.pool(b))
        up = lambda t: nn.functional.interpolate(t, scale_factor=2.0, mode="nearest")
        d = self.d2(torch.cat([up(c), b], 1))
        return torch.sigmoid(self.head(self.d1(torch.cat([up(d), a], 1))))

class TinyViT(nn.Module):
    """ViT-style encoder: patch embedding, multi-head attention, LayerNorm, GELU MLP."""
    def __init__(self, img=64, patch=8, dim=128, depth=4, heads=4, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        n = (img // patch) ** 2
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 4, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)
    def forward(self, x):
        t = self.embed(x).flatten(2).transpose(1, 2)
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], 1) + self.pos
        return self.head(self.norm(self.enc(t))[:, 0])

def resnet18_half():
    """ResNet-18 topology at half width (32-64-128-256 channels): same operators, a quarter of the weights."""
    from torchvision.models.resnet import ResNet, BasicBlock
    m = ResNet(BasicBlock, [2, 2, 2, 2])
    w = [32, 64, 128, 256]
    m.conv1 = nn.Conv2d(3, w[0], 7, 2, 3, bias=False); m.bn1 = nn.BatchNorm2d(w[0])
    cin = w[0]
    for li, layer in enumerate([m.layer1, m.layer2, m.layer3, m.layer4]):
        for bi, blk in enumerate(layer):
            stride = 2 if (li > 0 and bi == 0) else 1
            new = BasicBlock(cin, w[li], stride=stride,
                             downsample=nn.Sequential(nn.Conv2d(cin, w[li], 1, stride, bias=False), nn.BatchNorm2d(w[li]))
                             if (stride != 1 or cin != w[li]) else None)
            layer[bi] = new
            cin = w[li]
    m.fc = nn.Linear(w[3], 1000)
    return m

def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)

# name: (constructor, input shape, opset, dynamic spatial dims?)
SHARED = {
    "resnet18_half": (resnet18_half, (1, 3, 224, 224), 13, False),
    "mobilenet_v2":  (tv("mobilenet_v2"), (1, 3, 224, 224), 13, False),
    "squeezenet1_1": (tv("squeezenet1_1"), (1, 3, 224, 224), 13, False),
    "espcn_x2":      (ESPCN, (1, 3, 135, 240), 13, True),
    "unet_small":    (UNetSmall, (1, 3, 128, 128), 13, True),
    "tiny_vit":      (TinyViT, (1, 3, 64, 64), 17, False),
}
BENCH = {  # full-size models for benchmarks; generated where needed (too large to ship)
    "resnet18":      (tv("resnet18"), (1, 3, 224, 224), 13, False),
    "resnet50":      (tv("resnet50"), (1, 3, 224, 224), 13, False),
}

def calibrate_bn(m, shape, g):
    """Set batch-norm statistics from the model's own activations on random inputs, as training
    would: without this, random weights collapse the signal and the output stops depending on
    the input, which would let a wrong engine pass."""
    bns = [mod for mod in m.modules() if isinstance(mod, nn.BatchNorm2d)]
    if not bns:
        return m
    for mod in bns:
        mod.reset_running_stats(); mod.momentum = None
    m.train()
    with torch.no_grad():
        for _ in range(4):
            m(torch.randn(8, *shape[1:], generator=g))
    return m

def export(name, spec, out, seed):
    ctor, shape, opset, dynamic = spec
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    m = calibrate_bn(randomize_bn(ctor(), g), shape, g).eval()
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    x = torch.randn(*shape, generator=g)
    axes = {"input": {0: "N", 2: "H", 3: "W"}, "output": {0: "N", 2: "OH", 3: "OW"}} if dynamic else None
    torch.onnx.export(m, x, os.path.join(d, "model.onnx"), opset_version=opset, input_names=["input"],
                      output_names=["output"], dynamic_axes=axes, do_constant_folding=True)
    inputs = [x]
    if dynamic:  # a second data set at another resolution and batch
        inputs.append(torch.rand(2, shape[1], shape[2] // 2 + 8, shape[3] // 2 + 16, generator=g))
    else:
        inputs.append(torch.rand(*shape, generator=g) * 2 - 1)
    for k, xi in enumerate(inputs):
        with torch.no_grad():
            y = m(xi)
        ds = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(ds, exist_ok=True)
        for fn, t, nm in (("input_0.pb", xi, "input"), ("output_0.pb", y, "output")):
            tp = numpy_helper.from_array(t.numpy().astype(np.float32), nm)
            open(os.path.join(ds, fn), "wb").write(tp.SerializeToString())
    with torch.no_grad():  # the output must depend on the input, or a wrong engine could pass
        a, b = m(x), m(x + 0.5 * torch.randn(*shape, generator=g))
    sens = float((a - b).abs().max() / a.abs().max())
    print(f"{name}: {os.path.getsize(os.path.join(d, 'model.onnx')) / 1e6:.1f} MB, opset {opset}, "
          f"output change under input noise {sens:.2f}{'  (WEAK)' if sens < 0.1 else ''}")

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--set", default="shared", choices=["shared", "bench", "all"])
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    specs = {"shared": SHARED, "bench": BENCH, "all": {**SHARED, **BENCH}}[a.set]
    for i, (n, s) in enumerate(specs.items()):
        if a.only and n not in a.only.split(","):
            continue
        export(n, s, a.out, seed=1000 + i)
