#!/usr/bin/env python3
"""Small members of the network families graphics programmers bring (issue 21), exported by
this PyTorch's default ONNX exporter, as `vkinfer check` folders.

  export_families.py OUT_DIR [--only NAME,...] [--batch N] [--legacy] [--bench VKINFER [--iters N]]

For each family: a small model with seeded random weights, exported with torch.onnx.export's
defaults (PyTorch 2.9 on: the dynamo exporter; --legacy: the TorchScript one, opset 17),
weights embedded in model.onnx, and test_data_set_0/{input,output}_<i>.pb from PyTorch in
float32 on the CPU. Where CUDA is, test_data_set_0/reference_fp16.json records PyTorch's own
float16 error on the same input (max |fp16 on CUDA - the float32 reference| per output), which
`vkinfer --precision fp16 check` holds vkinfer to (at most 2x). Writes OUT_DIR/<name>/ and
OUT_DIR/export_families.json (what exported, with which exporter and opset, the operators the
file uses). Needs torch, torchvision, onnx (and onnxscript for the default exporter); runs where
they are (the GPU machine), not in CI.

--bench VKINFER also checks each case (`vkinfer check`, fp32 at the default tolerance, fp16 at
the one derived from PyTorch's error) and times it side by side on the GPU: `vkinfer bench --json` (GPU time
between the first and last dispatch, median of N) in fp32 and fp16, the plan's dispatch count,
and PyTorch with CUDA graphs (median of N replays after warm-up) in fp32 with TF32 off and in
fp16 as the faster of NCHW and channels-last; OUT_DIR/export_families.md is the table.
"""
import argparse
import copy
import json
import math
import os
import statistics
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

torch.manual_seed(0)


def seeded(m, seed=0):
    """Random weights scaled to keep activations O(1), BatchNorm statistics neutral."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in m.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else 1
            p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(max(1, fan_in)))
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.zero_()
                mod.running_var.fill_(1.0)
    return m.eval()


# ---- super-resolution ----

class Fsrcnn(nn.Module):
    """FSRCNN x2: feature 5x5, shrink 1x1, 3 mapping 3x3, expand 1x1 (PReLU each), deconv 9x9 s2."""

    def __init__(self, d=32, s=8, m=3):
        super().__init__()
        layers = [nn.Conv2d(3, d, 5, padding=2), nn.PReLU(d), nn.Conv2d(d, s, 1), nn.PReLU(s)]
        for _ in range(m):
            layers += [nn.Conv2d(s, s, 3, padding=1), nn.PReLU(s)]
        layers += [nn.Conv2d(s, d, 1), nn.PReLU(d)]
        self.body = nn.Sequential(*layers)
        self.up = nn.ConvTranspose2d(d, 3, 9, stride=2, padding=4, output_padding=1)

    def forward(self, x):
        return self.up(self.body(x))


class DenseBlock(nn.Module):
    def __init__(self, nf=16, gc=8):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(nf + i * gc, gc if i < 4 else nf, 3, padding=1) for i in range(5)])

    def forward(self, x):
        feats = [x]
        for i, c in enumerate(self.convs):
            y = c(torch.cat(feats, 1))
            if i < 4:
                feats.append(F.leaky_relu(y, 0.2))
        return x + 0.2 * y


class Rrdb(nn.Module):
    """An RRDB / Real-ESRGAN-style generator: dense blocks, nearest x2 upsampling, LeakyReLU."""

    def __init__(self, nf=16):
        super().__init__()
        self.first = nn.Conv2d(3, nf, 3, padding=1)
        self.blocks = nn.Sequential(DenseBlock(nf), DenseBlock(nf))
        self.trunk = nn.Conv2d(nf, nf, 3, padding=1)
        self.up = nn.Conv2d(nf, nf, 3, padding=1)
        self.last = nn.Conv2d(nf, 3, 3, padding=1)

    def forward(self, x):
        f = self.first(x)
        f = f + self.trunk(self.blocks(f))
        f = F.leaky_relu(self.up(F.interpolate(f, scale_factor=2, mode="nearest")), 0.2)
        return self.last(f)


class WindowAttention(nn.Module):
    """Swin/SwinIR window attention with a relative-position bias table."""

    def __init__(self, dim, ws, heads):
        super().__init__()
        self.ws, self.heads = ws, heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.table = nn.Parameter(torch.randn((2 * ws - 1) ** 2, heads) * 0.02)
        coords = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (ws - 1)
        self.register_buffer("index", rel[..., 0] * (2 * ws - 1) + rel[..., 1], persistent=False)

    def forward(self, x, mask=None):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = attn + self.table[self.index.view(-1)].view(n, n, -1).permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(b // nw, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, n, n)
        attn = attn.softmax(-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


def window_partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(-1, ws * ws, c)


def window_reverse(win, ws, h, w):
    b = win.shape[0] // ((h // ws) * (w // ws))
    x = win.view(b, h // ws, w // ws, ws, ws, -1).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(b, h, w, -1)


class SwinBlock(nn.Module):
    def __init__(self, dim, h, w, ws, heads, shift):
        super().__init__()
        self.h, self.w, self.ws, self.shift = h, w, ws, shift
        self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, ws, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        if shift:
            img = torch.zeros(1, h, w, 1)
            cnt = 0
            for hs in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                for wsl in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                    img[:, hs, wsl, :] = cnt
                    cnt += 1
            mw = window_partition(img, ws).squeeze(-1)
            m = mw.unsqueeze(1) - mw.unsqueeze(2)
            self.register_buffer("mask", m.masked_fill(m != 0, -100.0).masked_fill(m == 0, 0.0), persistent=False)
        else:
            self.mask = None

    def forward(self, x):
        b, n, c = x.shape
        s = self.n1(x).view(b, self.h, self.w, c)
        if self.shift:
            s = torch.roll(s, shifts=(-self.shift, -self.shift), dims=(1, 2))
        s = window_reverse(self.attn(window_partition(s, self.ws), self.mask), self.ws, self.h, self.w)
        if self.shift:
            s = torch.roll(s, shifts=(self.shift, self.shift), dims=(1, 2))
        x = x + s.reshape(b, n, c)
        return x + self.mlp(self.n2(x))


class SwinIr(nn.Module):
    """A SwinIR-style x2 upscaler: conv, two Swin blocks (the second shifted), conv, pixel shuffle."""

    def __init__(self, h=32, w=32, dim=16, ws=8, heads=2):
        super().__init__()
        self.h, self.w = h, w
        self.first = nn.Conv2d(3, dim, 3, padding=1)
        self.blocks = nn.ModuleList([SwinBlock(dim, h, w, ws, heads, 0), SwinBlock(dim, h, w, ws, heads, ws // 2)])
        self.norm = nn.LayerNorm(dim)
        self.after = nn.Conv2d(dim, dim, 3, padding=1)
        self.up = nn.Sequential(nn.Conv2d(dim, 3 * 4, 3, padding=1), nn.PixelShuffle(2))

    def forward(self, x):
        f = self.first(x)
        b, c, h, w = f.shape
        t = f.flatten(2).transpose(1, 2)
        for blk in self.blocks:
            t = blk(t)
        t = self.norm(t).transpose(1, 2).reshape(b, c, h, w)
        return self.up(self.after(t) + f)


# ---- denoising / restoration ----

class DnCnn(nn.Module):
    def __init__(self, depth=6, nf=32):
        super().__init__()
        layers = [nn.Conv2d(3, nf, 3, padding=1), nn.ReLU()]
        for _ in range(depth - 2):
            layers += [nn.Conv2d(nf, nf, 3, padding=1, bias=False), nn.BatchNorm2d(nf), nn.ReLU()]
        layers += [nn.Conv2d(nf, 3, 3, padding=1)]
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return x - self.body(x)


class LayerNorm2d(nn.Module):
    """NAFNet's channel LayerNorm, as its code writes it (mean and variance over C)."""

    def __init__(self, c, eps=1e-6):
        super().__init__()
        self.weight, self.bias, self.eps = nn.Parameter(torch.ones(c)), nn.Parameter(torch.zeros(c)), eps

    def forward(self, x):
        mu = x.mean(1, keepdim=True)
        var = (x - mu).pow(2).mean(1, keepdim=True)
        y = (x - mu) / (var + self.eps).sqrt()
        return self.weight.view(1, -1, 1, 1) * y + self.bias.view(1, -1, 1, 1)


class NafBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm1, self.norm2 = LayerNorm2d(c), LayerNorm2d(c)
        self.conv1 = nn.Conv2d(c, 2 * c, 1)
        self.dw = nn.Conv2d(2 * c, 2 * c, 3, padding=1, groups=2 * c)
        self.sca = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, c, 1))
        self.conv3 = nn.Conv2d(c, c, 1)
        self.conv4 = nn.Conv2d(c, 2 * c, 1)
        self.conv5 = nn.Conv2d(c, c, 1)
        self.beta = nn.Parameter(torch.ones(1, c, 1, 1) * 0.5)
        self.gamma = nn.Parameter(torch.ones(1, c, 1, 1) * 0.5)

    def forward(self, x):
        y = self.dw(self.conv1(self.norm1(x)))
        a, b = y.chunk(2, dim=1)
        y = a * b  # SimpleGate
        y = self.conv3(y * self.sca(y))
        x = x + y * self.beta
        a, b = self.conv4(self.norm2(x)).chunk(2, dim=1)
        return x + self.conv5(a * b) * self.gamma


class NafNet(nn.Module):
    """A NAFNet-style gated encoder-decoder: one level down and up, skip connections."""

    def __init__(self, c=16):
        super().__init__()
        self.intro = nn.Conv2d(3, c, 3, padding=1)
        self.enc = NafBlock(c)
        self.down = nn.Conv2d(c, 2 * c, 2, stride=2)
        self.mid = NafBlock(2 * c)
        self.up = nn.Sequential(nn.Conv2d(2 * c, 4 * c, 1, bias=False), nn.PixelShuffle(2))
        self.dec = NafBlock(c)
        self.ending = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):
        e = self.enc(self.intro(x))
        d = self.dec(self.up(self.mid(self.down(e))) + e)
        return x + self.ending(d)


class Mdta(nn.Module):
    """Restormer's multi-Dconv head transposed attention (attention across channels)."""

    def __init__(self, c, heads):
        super().__init__()
        self.heads = heads
        self.temperature = nn.Parameter(torch.ones(heads, 1, 1))
        self.qkv = nn.Conv2d(c, 3 * c, 1)
        self.dw = nn.Conv2d(3 * c, 3 * c, 3, padding=1, groups=3 * c)
        self.proj = nn.Conv2d(c, c, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.dw(self.qkv(x)).chunk(3, dim=1)
        q = F.normalize(q.reshape(b, self.heads, c // self.heads, h * w), dim=-1)
        k = F.normalize(k.reshape(b, self.heads, c // self.heads, h * w), dim=-1)
        v = v.reshape(b, self.heads, c // self.heads, h * w)
        attn = (q @ k.transpose(-2, -1) * self.temperature).softmax(-1)
        return self.proj((attn @ v).reshape(b, c, h, w))


class Gdfn(nn.Module):
    def __init__(self, c, expand=2):
        super().__init__()
        hidden = c * expand
        self.inp = nn.Conv2d(c, 2 * hidden, 1)
        self.dw = nn.Conv2d(2 * hidden, 2 * hidden, 3, padding=1, groups=2 * hidden)
        self.out = nn.Conv2d(hidden, c, 1)

    def forward(self, x):
        a, b = self.dw(self.inp(x)).chunk(2, dim=1)
        return self.out(F.gelu(a) * b)


class ChannelLayerNorm(nn.Module):
    """Restormer's LayerNorm over channels: to (B, HW, C), nn.LayerNorm, back."""

    def __init__(self, c):
        super().__init__()
        self.norm = nn.LayerNorm(c)

    def forward(self, x):
        b, c, h, w = x.shape
        return self.norm(x.flatten(2).transpose(1, 2)).transpose(1, 2).reshape(b, c, h, w)


class Restormer(nn.Module):
    def __init__(self, c=16, heads=2):
        super().__init__()
        self.embed = nn.Conv2d(3, c, 3, padding=1)
        self.n1, self.n2 = ChannelLayerNorm(c), ChannelLayerNorm(c)
        self.attn, self.ffn = Mdta(c, heads), Gdfn(c)
        self.out = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):
        f = self.embed(x)
        f = f + self.attn(self.n1(f))
        f = f + self.ffn(self.n2(f))
        return x + self.out(f)


class GnBlock(nn.Module):
    """A residual block as diffusion and restoration UNets write it: GroupNorm, SiLU, conv, twice."""

    def __init__(self, c, groups=8):
        super().__init__()
        self.n1, self.n2 = nn.GroupNorm(groups, c), nn.GroupNorm(groups, c)
        self.c1, self.c2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        h = self.c1(F.silu(self.n1(x)))
        return x + self.c2(F.silu(self.n2(h)))


class GnUnet(nn.Module):
    """A GroupNorm + SiLU encoder-decoder, one level down and up (today's exporter writes each
    GroupNorm as Reshape, InstanceNormalization, Reshape, Mul, Add)."""

    def __init__(self, c=32):
        super().__init__()
        self.embed = nn.Conv2d(3, c, 3, padding=1)
        self.enc = GnBlock(c)
        self.down = nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)
        self.mid = GnBlock(2 * c)
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.dec = GnBlock(c)
        self.out = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):
        e = self.enc(self.embed(x))
        m = self.mid(self.down(e))
        return x + self.out(self.dec(self.up(m) + e))


# ---- frame interpolation ----

def warp(img, flow):
    """Backward warp by a flow field, as RIFE writes it: a base grid plus the flow, normalized."""
    b, _, h, w = flow.shape
    dev = flow.device
    gy, gx = torch.meshgrid(torch.linspace(-1.0, 1.0, h, device=dev), torch.linspace(-1.0, 1.0, w, device=dev),
                            indexing="ij")
    base = torch.stack((gx, gy), 0).unsqueeze(0).to(flow.dtype)
    # Scaled by Python numbers, not a tensor made here: a CUDA graph cannot capture that copy.
    scaled = torch.cat((flow[:, 0:1] * (2.0 / (w - 1)), flow[:, 1:2] * (2.0 / (h - 1))), 1)
    grid = (base + scaled).permute(0, 2, 3, 1)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=True)


class Rife(nn.Module):
    """A RIFE-style flow estimator: both frames at half resolution, PReLU convs, a transposed
    conv up to two flows and a mask; both frames warped with GridSample and blended."""

    def __init__(self, c=32):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(6, c, 3, 2, 1), nn.PReLU(c), nn.Conv2d(c, c, 3, 2, 1), nn.PReLU(c))
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1), nn.PReLU(c), nn.Conv2d(c, c, 3, 1, 1), nn.PReLU(c))
        self.up = nn.ConvTranspose2d(c, 5, 4, 2, 1)

    def forward(self, img0, img1):
        x = torch.cat((img0, img1), 1)
        f = self.up(self.body(self.down(x)))
        f = F.interpolate(f, scale_factor=2.0, mode="bilinear", align_corners=False)
        flow0, flow1, mask = f[:, 0:2] * 4.0, f[:, 2:4] * 4.0, torch.sigmoid(f[:, 4:5])
        return warp(img0, flow0) * mask + warp(img1, flow1) * (1 - mask)


def torchvision_models():
    import torchvision.models as tvm
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    from torchvision.models.swin_transformer import SwinTransformer
    from torchvision.models.vision_transformer import VisionTransformer
    return {
        "vit_small": (lambda: VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=2, hidden_dim=64,
                                                mlp_dim=128, num_classes=10), [(1, 3, 64, 64)]),
        "swin_small": (lambda: SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                                               window_size=[4, 4], num_classes=10), [(1, 3, 64, 64)]),
        "convnext_small": (lambda: ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], num_classes=10),
                           [(1, 3, 64, 64)]),
        # The full-size classifiers the issue names (random weights), at 224x224.
        "vit_b_16": (lambda: tvm.vit_b_16(weights=None), [(1, 3, 224, 224)]),
        "swin_t": (lambda: tvm.swin_t(weights=None), [(1, 3, 224, 224)]),
        "convnext_tiny": (lambda: tvm.convnext_tiny(weights=None), [(1, 3, 224, 224)]),
        "lraspp_mobilenet_v3": (lambda: OutTensor(tvm.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4)), [(1, 3, 128, 128)]),
        # Variants of the same families, as a checker might bring them: Swin V2 (cosine attention,
        # a continuous position bias), ViT-B/32, DeepLabV3 on MobileNetV3, MaxViT (block and grid
        # attention around MBConv).
        "swin_v2_t": (lambda: tvm.swin_v2_t(weights=None), [(1, 3, 256, 256)]),
        "vit_b_32": (lambda: tvm.vit_b_32(weights=None), [(1, 3, 224, 224)]),
        "deeplabv3_mobilenet_v3": (lambda: OutTensor(tvm.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4)), [(1, 3, 128, 128)]),
        "maxvit_t": (lambda: tvm.maxvit_t(weights=None), [(1, 3, 224, 224)]),
    }


class OutTensor(nn.Module):
    """torchvision's segmentation models return {"out": tensor}: the tensor."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]

# ---- attention written with torch.einsum ----

class EinsumAttention(nn.Module):
    """A pre-norm self-attention block written with torch.einsum, as some ViT and diffusion code
    writes it (the exporter writes ONNX Einsum for each)."""

    def __init__(self, dim=32, heads=2):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, n, 3, self.heads, c // self.heads).unbind(2)
        attn = (torch.einsum("bihd,bjhd->bhij", q, k) * (c // self.heads) ** -0.5).softmax(-1)
        return x + self.proj(torch.einsum("bhij,bjhd->bihd", attn, v).reshape(b, n, c))


FAMILIES = {
    "fsrcnn_x2": (Fsrcnn, [(1, 3, 48, 64)]),
    "rrdb_x2": (Rrdb, [(1, 3, 32, 40)]),
    "swinir_x2": (SwinIr, [(1, 3, 32, 32)]),
    "dncnn": (DnCnn, [(1, 3, 48, 48)]),
    "nafnet": (NafNet, [(1, 3, 32, 48)]),
    "restormer": (Restormer, [(1, 3, 32, 32)]),
    "gn_unet": (GnUnet, [(1, 3, 32, 48)]),
    "rife": (Rife, [(1, 3, 32, 48), (1, 3, 32, 48)]),
    "einsum_attn": (EinsumAttention, [(1, 49, 32)]),
    # Frame sizes for the benchmark targets (FSRCNN x2 at 960x540 under 1 ms in fp16).
    "fsrcnn_x2_960x540": (Fsrcnn, [(1, 3, 540, 960)]),
    "dncnn_960x540": (DnCnn, [(1, 3, 540, 960)]),
    "rife_960x544": (Rife, [(1, 3, 544, 960), (1, 3, 544, 960)]),
    # GroupNorm over a whole frame: few long rows (ops::normChunks).
    "gn_unet_960x544": (GnUnet, [(1, 3, 544, 960)]),
}


def export(model, inputs, path, legacy):
    names = [f"input_{i}" if len(inputs) > 1 else "input" for i in range(len(inputs))]
    if legacy:
        torch.onnx.export(model, tuple(inputs), path, dynamo=False, opset_version=17, input_names=names,
                          output_names=["output"])
        return "torchscript"
    torch.onnx.export(model, tuple(inputs), path, input_names=names, output_names=["output"])
    return "default"


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


def torch_graph_ms(model, inputs, iters):
    """Median ms of CUDA-graph replays of model(*inputs)."""
    with torch.no_grad():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(*inputs)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            model(*inputs)
        return time_cuda(graph.replay, iters)


def bench_case(vk, case_dir, model, inputs, iters):
    """vkinfer fp32/fp16 GPU ms and dispatches; PyTorch CUDA graphs fp32 (TF32 off) and fp16 (best layout)."""
    row = {}
    path = os.path.join(case_dir, "model.onnx")
    for prec in ("fp32", "fp16"):
        r = subprocess.run([vk, "bench", path, "--json", "--iters", str(iters), "--precision", prec],
                           capture_output=True, text=True)
        if r.returncode == 0:
            j = json.loads(r.stdout)
            row[f"vk_{prec}_ms"] = j.get("gpu_ms", {}).get("median")
            row[f"vk_{prec}_p90_ms"] = j.get("gpu_ms", {}).get("p90")
        else:
            row[f"vk_{prec}_error"] = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
    r = subprocess.run([vk, "plan", path, "--json"], capture_output=True, text=True)
    if r.returncode == 0:
        row["dispatches"] = json.loads(r.stdout)["dispatches"]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    m = model.cuda()
    x = [t.cuda() for t in inputs]
    row["torch_fp32_ms"] = torch_graph_ms(m, x, iters)
    m16 = m.half()
    best = None
    for layout in (torch.contiguous_format, torch.channels_last):
        try:
            mm = m16.to(memory_format=layout) if layout is torch.channels_last else m16
            xx = [t.half().to(memory_format=layout) if t.dim() == 4 else t.half() for t in x]
            ms = torch_graph_ms(mm, xx, iters)
            best = ms if best is None else min(best, ms)
        except Exception as e:  # a layout a model cannot take
            row.setdefault("torch_fp16_notes", []).append(f"{layout}: {type(e).__name__}")
    row["torch_fp16_ms"] = best
    return row


def write_fp16_error(set_dir, model, inputs, ref, output_name):
    """PyTorch's float16 error on CUDA (NCHW) against the float32 reference: the bound vkinfer's fp16 is held to."""
    if not torch.cuda.is_available():
        return None
    with torch.no_grad():
        m16 = copy.deepcopy(model).cuda().half()
        out = m16(*[t.cuda().half() for t in inputs]).float().cpu()
    err = float((out - ref).abs().max())
    with open(os.path.join(set_dir, "reference_fp16.json"), "w") as f:
        json.dump({"source": f"PyTorch {torch.__version__} CUDA float16 NCHW on {torch.cuda.get_device_name()}",
                   "outputs": {output_name: {"max_abs_error": err, "max_ref": float(ref.abs().max())}}}, f, indent=1)
    return err


def check_case(vk, case_dir):
    """`vkinfer check` in fp32 (default tolerance) and fp16 (PyTorch's error x 2 where recorded)."""
    row = {}
    for prec in ("fp32", "fp16"):
        report = os.path.join(case_dir, f"check_{prec}.json")
        r = subprocess.run([vk, "--precision", prec, "check", case_dir, "--report", report], capture_output=True,
                           text=True)
        try:
            res = json.load(open(report))[0]
            row[f"check_{prec}"] = res["result"]
            row[f"check_{prec}_max_error"] = res.get("max_error")
            if prec == "fp16":
                row["torch_fp16_max_error"] = res.get("peer_max_error")
        except (OSError, ValueError, IndexError, KeyError):
            row[f"check_{prec}"] = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]
    return row


def write_case(out_dir, name, ctor, shapes, batch, legacy):
    d = os.path.join(out_dir, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    model = seeded(ctor())
    g = torch.Generator().manual_seed(1)
    inputs = [torch.rand((batch,) + tuple(s[1:]), generator=g) for s in shapes]
    with torch.no_grad():
        ref = model(*inputs)
    path = os.path.join(d, "model.onnx")
    exporter = export(model, inputs, path, legacy)
    m = onnx.load(path)  # external data (model.onnx.data) loads with it; saved embedded
    onnx.save(m, path)
    if os.path.exists(path + ".data"):
        os.remove(path + ".data")
    for i, (t, vi) in enumerate(zip(inputs, m.graph.input)):
        with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(t.numpy(), vi.name).SerializeToString())
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ref.numpy(), m.graph.output[0].name).SerializeToString())
    fp16_error = write_fp16_error(os.path.join(d, "test_data_set_0"), model, inputs, ref, m.graph.output[0].name)
    opset = next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), None)
    return {"exporter": exporter, "opset": opset, "ops": sorted({n.op_type for n in m.graph.node}),
            "nodes": len(m.graph.node), "bytes": os.path.getsize(path), "torch_fp16_max_error": fp16_error,
            "max_ref": float(ref.abs().max())}, model, inputs


def fmt(v, digits=3):
    return "n/a" if v is None else f"{v:.{digits}f}"


def sci(v):
    return "n/a" if v is None else f"{v:.2e}"


def table(summary):
    lines = ["| model | dispatches | vkinfer fp32 ms | torch graph fp32 ms | fp32 ratio | vkinfer fp16 ms (p90) "
             "| torch graph fp16 ms | fp16 ratio | check fp32 | check fp16: vkinfer / PyTorch max error |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in summary.items():
        if "vk_fp32_ms" not in r and "vk_fp32_error" not in r:
            continue
        v32, v16, t32, t16 = r.get("vk_fp32_ms"), r.get("vk_fp16_ms"), r.get("torch_fp32_ms"), r.get("torch_fp16_ms")
        lines.append(f"| {name} | {r.get('dispatches', 'n/a')} | {fmt(v32)} | {fmt(t32)} | "
                     f"{fmt(v32 / t32 if v32 and t32 else None, 2)} | {fmt(v16)} ({fmt(r.get('vk_fp16_p90_ms'))}) | "
                     f"{fmt(t16)} | {fmt(v16 / t16 if v16 and t16 else None, 2)} | {r.get('check_fp32', 'n/a')} | "
                     f"{r.get('check_fp16', 'n/a')}: {sci(r.get('check_fp16_max_error'))} / "
                     f"{sci(r.get('torch_fp16_max_error'))} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--only", default="")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--bench", metavar="VKINFER", help="also time each case against PyTorch CUDA graphs")
    ap.add_argument("--iters", type=int, default=50)
    a = ap.parse_args()
    models = dict(FAMILIES)
    try:
        models.update(torchvision_models())
    except ImportError as e:
        print(f"export_families: torchvision models left out: {e}", file=sys.stderr)
    only = set(filter(None, a.only.split(",")))
    unknown = only - set(models)
    if unknown:
        sys.exit(f"export_families: unknown model(s) {sorted(unknown)}; known: {sorted(models)}")
    summary = {}
    for name, (ctor, shapes) in models.items():
        if only and name not in only:
            continue
        key = name if a.batch == 1 else f"{name}_batch{a.batch}"
        try:
            summary[key], model, inputs = write_case(a.out, key, ctor, shapes, a.batch, a.legacy)
            print(f"exported {key}: {summary[key]['nodes']} nodes, opset {summary[key]['opset']}", flush=True)
            if a.bench:
                summary[key].update(check_case(a.bench, os.path.join(a.out, key)))
                summary[key].update(bench_case(a.bench, os.path.join(a.out, key), model, inputs, a.iters))
                print(f"timed   {key}: {json.dumps({k: v for k, v in summary[key].items() if k not in ('ops',)})}",
                      flush=True)
        except Exception as e:  # one family failing to export must not lose the others
            summary[key] = {"error": f"{type(e).__name__}: {e}"[:2000]}
            print(f"FAILED  {key}: {summary[key]['error'][:300]}", flush=True)
        with open(os.path.join(a.out, "export_families.json"), "w") as f:  # after each: a run cut short keeps them
            json.dump(summary, f, indent=1)
    if a.bench:
        with open(os.path.join(a.out, "export_families.md"), "w") as f:
            f.write(table(summary))
        print(table(summary))


if __name__ == "__main__":
    main()
