#!/usr/bin/env python3
"""Train vkinfer's x2 super-resolution model (data/upscaler_x2) and export it to ONNX.

Training photos come only from Debian's wallpaper packages (mate-backgrounds' nature/ folder
and the photographs among plasma-workspace-wallpapers), so that every other image collection
stays unseen for evaluation. A few whole photos are held out (HOLDOUT) for the PSNR figures.

Degradation: PIL bicubic x2 downscale with antialiasing (Image.resize((w//2, h//2), BICUBIC))
of the whole photo, exactly what scripts/eval_upscaler.py and a user's test do; training pairs
are crops at matching positions of the photo and its downscale (LR pixel i covers HR pixels
2i, 2i+1, which is how PIL aligns a x2 reduction and how DepthToSpace lays out its output).

Model (UpscalerX2): RGB in [0,1] -> RGB in [0,1] at twice the size.
  body:  Conv3x3(3->C) LeakyReLU, N x [Conv3x3(C->C) LeakyReLU], Conv3x3(C->12)
  skip:  Conv5x5(3->12), linear: a learned bicubic-like upsampler, in LR resolution
  out:   DepthToSpace(2, CRD) of Clip(body + skip, 0, 1)
vkinfer fuses LeakyReLU, the Add and the Clip into the convolutions, so the graph runs as
N+3 convolution dispatches and one DepthToSpace.

Needs Debian 12's python3-torch, python3-pil, python3-numpy (python3-onnx for the test data)
and the photos: apt-get install mate-backgrounds plasma-workspace-wallpapers.
Runs on CUDA when torch has it, else on the CPU (--threads). Resumable: the checkpoint holds
the model, the optimizer, the iteration and the time spent; run the same command again to go on.

  /usr/bin/python3 scripts/train_upscaler.py --minutes 60 --checkpoint /tmp/upscaler.pt \\
      --export data/upscaler_x2/model.onnx
"""
import argparse
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

MATE_NATURE = "/usr/share/backgrounds/mate/nature"
PLASMA = "/usr/share/wallpapers"
# The photographs among plasma-workspace-wallpapers (the others are renders or drawings).
PLASMA_PHOTOS = ["BytheWater", "ColdRipple", "ColorfulCups", "DarkestHour", "EveningGlow", "FallenLeaf",
                 "Grey", "Kite", "OneStandsOut", "Path", "summer_1am"]
# Whole photos never trained on: the held-out split of the PSNR table (3 mate, 2 plasma).
HOLDOUT = ["LadyBird", "Storm", "Dune", "Path", "EveningGlow"]


def photo_name(path):
    """Name of a photo: the file stem (mate) or the wallpaper's folder (plasma)."""
    parts = os.path.normpath(path).split(os.sep)
    if "contents" in parts:
        return parts[parts.index("contents") - 1]
    return os.path.splitext(parts[-1])[0]


def debian_photos(mate_dir=MATE_NATURE, plasma_dir=PLASMA):
    """Paths of the Debian wallpaper photographs: mate nature/*.jpg and each plasma photo's largest image."""
    paths = []
    if os.path.isdir(mate_dir):
        paths += sorted(os.path.join(mate_dir, f) for f in os.listdir(mate_dir) if f.lower().endswith(".jpg"))
    for name in PLASMA_PHOTOS:
        d = os.path.join(plasma_dir, name, "contents", "images")
        if not os.path.isdir(d):
            continue
        sizes = [(int(f.split("x")[0]) * int(f.split("x")[1].split(".")[0]), f) for f in os.listdir(d) if "x" in f]
        if sizes:
            paths.append(os.path.join(d, max(sizes)[1]))
    return paths


def split_photos(paths, holdout=HOLDOUT):
    train = [p for p in paths if photo_name(p) not in holdout]
    held = [p for p in paths if photo_name(p) in holdout]
    return train, held


def load_rgb(path):
    with Image.open(path) as im:
        return im.convert("RGB")


def even_crop(im):
    w, h = im.size
    return im.crop((0, 0, w - w % 2, h - h % 2))


def degrade(hr):
    """The x2 degradation: PIL bicubic (antialiased) reduction of an even-sized image."""
    w, h = hr.size
    assert w % 2 == 0 and h % 2 == 0
    return hr.resize((w // 2, h // 2), Image.BICUBIC)


class UpscalerX2(nn.Module):
    """pad=True (inference, export): the input is edge-padded inside the model (one Pad per path;
    zero padding would darken the borders); pad=False (training): the input crop carries
    `margin` real LR pixels on each side, and the output covers only its interior."""

    def __init__(self, channels=32, mid_layers=4, skip_kernel=5, slope=0.1, clamp=False, pad=True):
        super().__init__()
        self.config = dict(channels=channels, mid_layers=mid_layers, skip_kernel=skip_kernel, slope=slope)
        self.clamp = clamp
        self.pad = pad
        self.margin = mid_layers + 2  # receptive-field radius of the body (3x3 convs)
        self.skip_margin = skip_kernel // 2
        layers = [nn.Conv2d(3, channels, 3), nn.LeakyReLU(slope)]
        for _ in range(mid_layers):
            layers += [nn.Conv2d(channels, channels, 3), nn.LeakyReLU(slope)]
        layers.append(nn.Conv2d(channels, 12, 3))
        self.body = nn.Sequential(*layers)
        self.skip = nn.Conv2d(3, 12, skip_kernel)
        with torch.no_grad():
            # Start from nearest-neighbour upsampling (skip) plus a near-zero residual (body).
            self.skip.weight.zero_()
            self.skip.bias.zero_()
            c = skip_kernel // 2
            for ch in range(3):
                self.skip.weight[ch * 4:(ch + 1) * 4, ch, c, c] = 1.0  # CRD: channel ch -> outputs 4ch..4ch+3
            self.body[-1].weight.mul_(0.1)
            self.body[-1].bias.zero_()

    def forward(self, x):
        m, k = self.margin, self.skip_margin
        if self.pad:
            xb = F.pad(x, (m, m, m, m), mode="replicate")
            xs = F.pad(x, (k, k, k, k), mode="replicate")
        else:
            xb = x
            xs = x[..., m - k:x.shape[-2] - (m - k), m - k:x.shape[-1] - (m - k)]
        y = self.body(xb) + self.skip(xs)
        if self.clamp:
            y = torch.clamp(y, 0.0, 1.0)
        return F.pixel_shuffle(y, 2)

    def macs_per_lr_pixel(self):
        return sum(m.weight.numel() for m in self.modules() if isinstance(m, nn.Conv2d))


class PatchSampler:
    """Random aligned (LR, HR) crops with the 8 flips/rotations, from photos at a few scales."""

    def __init__(self, paths, scales, lr_patch, seed, margin=0):
        self.lr_patch = lr_patch
        self.margin = margin
        self.rng = np.random.default_rng(seed)
        self.pairs = []
        for p in paths:
            photo = load_rgb(p)
            for s in scales:
                im = photo if s == 1.0 else photo.resize((round(photo.width * s), round(photo.height * s)),
                                                         Image.BICUBIC)
                hr = even_crop(im)
                self.pairs.append((np.asarray(degrade(hr)), np.asarray(hr)))
        areas = np.array([lr.shape[0] * lr.shape[1] for lr, _ in self.pairs], dtype=np.float64)
        self.weights = areas / areas.sum()

    def crop(self, k):
        """LR crop of lr_patch + 2 margin pixels, and the HR crop of its interior."""
        lr, hr = self.pairs[k]
        p, m = self.lr_patch, self.margin
        y = self.rng.integers(m, lr.shape[0] - p - m + 1)
        x = self.rng.integers(m, lr.shape[1] - p - m + 1)
        return lr[y - m:y + p + m, x - m:x + p + m], hr[2 * y:2 * (y + p), 2 * x:2 * (x + p)]

    @staticmethod
    def detail(hr):
        """How much the HR crop has that bicubic cannot restore: mean absolute 2x2-block deviation."""
        g = hr[..., 1].astype(np.float32)
        blocks = g.reshape(g.shape[0] // 2, 2, g.shape[1] // 2, 2)
        return float(np.abs(blocks - blocks.mean(axis=(1, 3), keepdims=True)).mean())

    def batch(self, n):
        lrs, hrs = [], []
        for i, k in enumerate(self.rng.choice(len(self.pairs), size=n, p=self.weights)):
            # Wallpaper photos are mostly smooth bokeh, which teaches little: half of each
            # batch is the most detailed of 4 random crops, the other half plain random crops.
            if i % 2:
                a, b = max((self.crop(k) for _ in range(4)), key=lambda ab: self.detail(ab[1]))
            else:
                a, b = self.crop(k)
            t = self.rng.integers(0, 8)
            if t & 1:
                a, b = a[:, ::-1], b[:, ::-1]
            if t & 2:
                a, b = a[::-1], b[::-1]
            if t & 4:
                a, b = a.transpose(1, 0, 2), b.transpose(1, 0, 2)
            lrs.append(a)
            hrs.append(b)
        to_t = lambda arrs: torch.from_numpy(np.ascontiguousarray(np.stack(arrs))).permute(0, 3, 1, 2).float() / 255
        return to_t(lrs), to_t(hrs)


@torch.no_grad()
def fit_linear_skip(model, sampler, batches=40):
    """Least-squares fit of the skip convolution: the best linear x2 upsampler of that support
    on the training crops, so that training spends its iterations on the nonlinear residual."""
    k = model.skip.kernel_size[0]
    xs, ys = [], []
    for _ in range(batches):
        lr, hr = sampler.batch(16)
        m = model.margin - k // 2
        cols = F.unfold(lr[..., m:lr.shape[-2] - m, m:lr.shape[-1] - m], k)  # N x (3*k*k) x L
        target = F.pixel_unshuffle(hr, 2).flatten(2)  # N x 12 x L, CRD order like pixel_shuffle
        xs.append(cols.permute(0, 2, 1).reshape(-1, cols.shape[1]))
        ys.append(target.permute(0, 2, 1).reshape(-1, 12))
    x = torch.cat(xs).double()
    x = torch.cat([x, torch.ones(x.shape[0], 1, dtype=x.dtype)], 1)
    y = torch.cat(ys).double()
    a = x.T @ x + 1e-6 * x.shape[0] * torch.eye(x.shape[1], dtype=x.dtype)
    w = torch.linalg.solve(a, x.T @ y)  # (3*k*k + 1) x 12
    dev = model.skip.weight.device
    model.skip.weight.copy_(w[:-1].T.reshape(12, 3, k, k).float().to(dev))
    model.skip.bias.copy_(w[-1].float().to(dev))
    # The body starts as an almost-zero residual on top of that.
    model.body[-1].weight.mul_(0.1)


def luma(rgb255):
    """BT.601 Y (studio range 16-235) of an HxWx3 array of 0-255 RGB values."""
    rgb = rgb255.astype(np.float64)
    return 16.0 + (65.481 * rgb[..., 0] + 128.553 * rgb[..., 1] + 24.966 * rgb[..., 2]) / 255.0


def luma_psnr(a, b, shave=2):
    ya, yb = luma(a), luma(b)
    if shave:
        ya, yb = ya[shave:-shave, shave:-shave], yb[shave:-shave, shave:-shave]
    mse = np.mean((ya - yb) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def to_uint8(t):
    """NCHW float tensor in [0,1] (first image) -> HxWx3 uint8, rounded as an image writer would."""
    return (t[0].clamp(0, 1).permute(1, 2, 0).cpu().numpy() * 255 + 0.5).astype(np.uint8)


def validation_set(paths, side):
    """Centre crops (side x side HR) of the held-out photos, downsized to 1/2 first (sharper, faster)."""
    out = []
    for p in paths:
        photo = load_rgb(p)
        photo = photo.resize((photo.width // 2, photo.height // 2), Image.BICUBIC)
        l, t = (photo.width - side) // 2, (photo.height - side) // 2
        hr = photo.crop((l, t, l + side, t + side))
        lr = degrade(hr)
        out.append((photo_name(p), np.asarray(lr), np.asarray(hr), np.asarray(lr.resize(hr.size, Image.BICUBIC))))
    return out


@torch.no_grad()
def validate(model, vset, device):
    model.eval()
    pad = model.pad
    model.pad = True
    gains = []
    for _, lr, hr, bic in vset:
        x = torch.from_numpy(lr.copy()).permute(2, 0, 1)[None].float().div(255).to(device)
        sr = to_uint8(model(x))
        gains.append((luma_psnr(sr, hr), luma_psnr(bic, hr)))
    model.pad = pad
    model.train()
    return np.mean([g[0] for g in gains]), np.mean([g[1] for g in gains])


def export_onnx(model, path, opset=13):
    """Write the model as a plain ONNX graph (built with onnx.helper rather than traced, so that
    the pads are constants and nothing but the layers appears): input [N,3,H,W] -> Pad(edge) ->
    convolutions, + skip, Clip(0,1), DepthToSpace(2, CRD) -> output [N,3,2H,2W]; weights embedded.
    Returns the equivalent torch module (clamp and padding on) for the reference outputs."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    m = UpscalerX2(**model.config, clamp=True, pad=True)
    m.load_state_dict(model.state_dict())
    m.eval().cpu()
    inits, nodes = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def conv(name, src, layer):
        w = const(name + ".weight", layer.weight.detach().numpy().astype(np.float32))
        b = const(name + ".bias", layer.bias.detach().numpy().astype(np.float32))
        nodes.append(helper.make_node("Conv", [src, w, b], [name], name=name, kernel_shape=list(layer.kernel_size)))
        return name

    mb, ms = m.margin, m.skip_margin
    nodes.append(helper.make_node("Pad", ["input", const("pads_body", np.array([0, 0, mb, mb, 0, 0, mb, mb], np.int64))],
                                  ["input_padded_body"], name="pad_body", mode="edge"))
    nodes.append(helper.make_node("Pad", ["input", const("pads_skip", np.array([0, 0, ms, ms, 0, 0, ms, ms], np.int64))],
                                  ["input_padded_skip"], name="pad_skip", mode="edge"))
    x = "input_padded_body"
    convs = [layer for layer in m.body if isinstance(layer, nn.Conv2d)]
    for i, layer in enumerate(convs):
        x = conv(f"body{i}", x, layer)
        if i + 1 < len(convs):
            nodes.append(helper.make_node("LeakyRelu", [x], [x + "_act"], name=x + "_act", alpha=m.config["slope"]))
            x = x + "_act"
    skip = conv("skip", "input_padded_skip", m.skip)
    nodes.append(helper.make_node("Add", [x, skip], ["residual_plus_skip"], name="add_skip"))
    nodes.append(helper.make_node("Clip", ["residual_plus_skip", const("zero", np.array(0, np.float32)),
                                           const("one", np.array(1, np.float32))], ["clipped"], name="clip"))
    nodes.append(helper.make_node("DepthToSpace", ["clipped"], ["output"], name="pixel_shuffle", blocksize=2,
                                  mode="CRD"))
    graph = helper.make_graph(nodes, "upscaler_x2",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, "H", "W"])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", 3, "H2", "W2"])],
                              initializer=inits)
    cfg = m.config
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="train_upscaler.py",
                              doc_string=f"vkinfer x2 upscaler {cfg}: RGB [0,1] in, RGB [0,1] out at twice the size")
    onnx.checker.check_model(proto)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    onnx.save(proto, path)
    return m


def write_test_data(model, folder, shape=(1, 3, 24, 32), seed=1):
    """ONNX backend-test layout: test_data_set_0/{input_0,output_0}.pb, the torch output as reference."""
    import onnx.numpy_helper as nh
    torch.manual_seed(seed)
    x = torch.rand(*shape)
    with torch.no_grad():
        y = model(x)
    d = os.path.join(folder, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    for name, arr, fn in (("input", x, "input_0.pb"), ("output", y, "output_0.pb")):
        with open(os.path.join(d, fn), "wb") as f:
            f.write(nh.from_array(arr.numpy().astype(np.float32), name).SerializeToString())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--mid-layers", type=int, default=4)
    ap.add_argument("--skip-kernel", type=int, default=5)
    ap.add_argument("--minutes", type=float, default=None, help="training time budget (total, across resumes)")
    ap.add_argument("--iterations", type=int, default=None, help="iteration budget (total, across resumes)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr-patch", type=int, default=48, help="LR crop side (HR crop is twice that)")
    ap.add_argument("--learning-rate", type=float, default=1e-3)
    ap.add_argument("--min-learning-rate", type=float, default=2e-5)
    ap.add_argument("--scales", default="1.0,0.7,0.5", help="photo scales sampled from (downsized by PIL bicubic)")
    ap.add_argument("--holdout", default=",".join(HOLDOUT), help="photo names held out of training")
    ap.add_argument("--photos", nargs="*", help="training photo paths (default: the Debian wallpaper photos)")
    ap.add_argument("--checkpoint", default="upscaler_x2.pt")
    ap.add_argument("--export", default=None, help="write the ONNX model here (and test_data_set_0 beside it)")
    ap.add_argument("--export-only", action="store_true", help="export the checkpoint, no training")
    ap.add_argument("--linear-only", action="store_true",
                    help="baseline: fit the linear skip path, zero the body, save, no training")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (ignored on CUDA)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--val-every", type=float, default=5.0, help="minutes between validations")
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)

    model = UpscalerX2(args.channels, args.mid_layers, args.skip_kernel, pad=False)
    model.to(device)
    # The skip path starts at its least-squares optimum: Adam's first, sign-like steps at the
    # body's rate would throw that away, so it moves at a tenth of the rate.
    opt = torch.optim.Adam([dict(params=model.body.parameters(), scale=1.0),
                            dict(params=model.skip.parameters(), scale=0.1)], lr=args.learning_rate)
    state = dict(iteration=0, seconds=0.0, log=[])
    resumed = os.path.exists(args.checkpoint)
    if resumed:
        ck = torch.load(args.checkpoint, map_location=device)
        if ck["config"] != model.config:
            sys.exit(f"train_upscaler: checkpoint {args.checkpoint} has config {ck['config']}, not {model.config}")
        model.load_state_dict(ck["model"])
        model.to(device)
        opt.load_state_dict(ck["optimizer"])
        state = ck["state"]
        print(f"resumed {args.checkpoint}: iteration {state['iteration']}, {state['seconds'] / 60:.1f} min")

    print(f"model {model.config}: {sum(p.numel() for p in model.parameters())} parameters, "
          f"{model.macs_per_lr_pixel()} MACs per LR pixel, "
          f"{2 * model.macs_per_lr_pixel() * 960 * 540 / 1e9:.1f} GFLOP for 960x540 -> 1920x1080; device {device}")

    def save():
        tmp = args.checkpoint + ".tmp"
        torch.save(dict(model=model.state_dict(), optimizer=opt.state_dict(), state=state, config=model.config), tmp)
        os.replace(tmp, args.checkpoint)

    if not args.export_only:
        if args.minutes is None and args.iterations is None and not args.linear_only:
            sys.exit("train_upscaler: give --minutes or --iterations (or --export-only)")
        holdout = [h for h in args.holdout.split(",") if h]
        paths = args.photos or debian_photos()
        train_paths, held_paths = split_photos(paths, holdout)
        if not train_paths:
            sys.exit("train_upscaler: no training photos (apt-get install mate-backgrounds plasma-workspace-wallpapers)")
        print(f"{len(train_paths)} training photos: {', '.join(photo_name(p) for p in train_paths)}")
        print(f"held out: {', '.join(photo_name(p) for p in held_paths)}")
        scales = [float(s) for s in args.scales.split(",")]
        sampler = PatchSampler(train_paths, scales, args.lr_patch, args.seed + state["iteration"], model.margin)
        vset = validation_set(held_paths, 256) if held_paths else []
        if not resumed:
            fit_linear_skip(model, sampler)
            if args.linear_only:
                # The baseline of the PSNR table: the fitted linear upsampler alone, no residual.
                with torch.no_grad():
                    model.body[-1].weight.zero_()
                    model.body[-1].bias.zero_()
                args.iterations, args.minutes = 0, None
            if vset:
                sr, bic = validate(model, vset, device)
                print(f"  linear start (skip path alone): SR {sr:.3f} dB, bicubic {bic:.3f} dB, gain {sr - bic:+.3f} dB")

        def progress():
            f = 0.0
            if args.minutes is not None:
                f = max(f, state["seconds"] / (60 * args.minutes) if args.minutes > 0 else 1.0)
            if args.iterations is not None:
                f = max(f, state["iteration"] / args.iterations if args.iterations > 0 else 1.0)
            return f

        model.train()
        last_val = last_save = time.time()
        t_prev = time.time()
        running = None
        while progress() < 1.0:
            f = progress()
            lr_now = args.min_learning_rate + 0.5 * (args.learning_rate - args.min_learning_rate) * (1 + math.cos(math.pi * f))
            for g in opt.param_groups:
                g["lr"] = lr_now * g["scale"]
            lr_img, hr_img = sampler.batch(args.batch)
            lr_img, hr_img = lr_img.to(device), hr_img.to(device)
            loss = torch.sqrt((model(lr_img) - hr_img) ** 2 + 1e-6).mean()  # Charbonnier
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            now = time.time()
            state["seconds"] += now - t_prev
            t_prev = now
            state["iteration"] += 1
            running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
            if state["iteration"] % 50 == 0:
                print(f"it {state['iteration']} {state['seconds'] / 60:.1f} min lr {lr_now:.2e} loss {running:.5f}",
                      flush=True)
            if vset and (now - last_val > 60 * args.val_every or progress() >= 1.0):
                sr, bic = validate(model, vset, device)
                state["log"].append((state["iteration"], state["seconds"], sr, bic))
                print(f"  validation (held-out crops): SR {sr:.3f} dB, bicubic {bic:.3f} dB, gain {sr - bic:+.3f} dB",
                      flush=True)
                last_val = time.time()
                t_prev = last_val  # validation time is not training time
            if time.time() - last_save > 120:
                save()
                last_save = time.time()
        save()
        print(f"trained {state['iteration']} iterations in {state['seconds'] / 60:.1f} min on {device}")

    if args.export:
        m = export_onnx(model.cpu(), args.export)
        write_test_data(m, os.path.dirname(os.path.abspath(args.export)))
        print(f"exported {args.export} ({os.path.getsize(args.export)} bytes) and its test_data_set_0")


if __name__ == "__main__":
    main()
