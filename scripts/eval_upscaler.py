#!/usr/bin/env python3
"""Luma PSNR of an x2 upscaler against PIL bicubic, on photographs downscaled x2 by PIL bicubic.

For each image: HR = the photo (downsized first with PIL bicubic so that its long side is at most
--max-side, 0 keeps it whole), cropped to even width and height; LR = PIL bicubic reduction by 2
(Image.resize((w//2, h//2), BICUBIC), antialiased); bicubic = LR.resize(HR size, BICUBIC);
SR = the model on LR, rounded to 8 bits as an image file would hold it. PSNR is of BT.601 luma
(Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255, 0-255 scale), a --shave pixel border left out.
The SR output must be exactly twice the LR size (checked, an error otherwise).

SR through vkinfer (the exported ONNX model on the Vulkan device; lavapipe is fine):
  --backend run      `vkinfer run MODEL -i input=lr.npy -o DIR` (float output)
  --backend upscale  `vkinfer upscale lr.png sr.png --model MODEL` (PNG in, PNG out)
or through PyTorch from a training checkpoint (--backend torch --checkpoint FILE) for a quick loop.

With no IMAGES: the held-out Debian wallpaper photos (see train_upscaler.HOLDOUT) and, as a
cross-check from another collection that was never a training source, scikit-image's photos
(python3-skimage). --min-gain G exits 1 when the mean gain over all images is below G dB.

  /usr/bin/python3 scripts/eval_upscaler.py --model data/upscaler_x2/model.onnx --vkinfer build/vkinfer
  /usr/bin/python3 scripts/eval_upscaler.py --model data/upscaler_x2/model.onnx --vkinfer build/vkinfer photo1.jpg ...
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_upscaler as tu  # noqa: E402  (photo lists, degradation, luma PSNR: one definition)

SKIMAGE_DATA = "/usr/lib/python3/dist-packages/skimage/data"
SKIMAGE_PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png"]


def default_images():
    """(group, path) pairs: held-out Debian photos, then scikit-image photos where installed."""
    _, held = tu.split_photos(tu.debian_photos())
    images = [("held-out", p) for p in held]
    images += [("cross", os.path.join(SKIMAGE_DATA, f)) for f in SKIMAGE_PHOTOS
               if os.path.exists(os.path.join(SKIMAGE_DATA, f))]
    return images


def prepare(path, max_side):
    photo = tu.load_rgb(path)
    if max_side and max(photo.size) > max_side:
        s = max_side / max(photo.size)
        photo = photo.resize((max(2, round(photo.width * s)), max(2, round(photo.height * s))), Image.BICUBIC)
    hr = tu.even_crop(photo)
    lr = tu.degrade(hr)
    return hr, lr, lr.resize(hr.size, Image.BICUBIC)


def sr_vkinfer_run(vkinfer, model, lr, work, extra):
    x = np.asarray(lr, dtype=np.float32).transpose(2, 0, 1)[None] / 255.0
    np.save(os.path.join(work, "lr.npy"), np.ascontiguousarray(x))
    out = os.path.join(work, "out")
    subprocess.run([vkinfer, *extra, "run", model, "-i", f"input={os.path.join(work, 'lr.npy')}", "-o", out],
                   check=True, stdout=subprocess.DEVNULL)
    y = np.load(os.path.join(out, "output.npy"))
    if y.shape != (1, 3, 2 * lr.height, 2 * lr.width):
        raise SystemExit(f"eval_upscaler: output shape {y.shape} is not twice the input {x.shape}")
    return (np.clip(y[0].transpose(1, 2, 0), 0, 1) * 255 + 0.5).astype(np.uint8)


def sr_vkinfer_upscale(vkinfer, model, lr, work, extra):
    src, dst = os.path.join(work, "lr.png"), os.path.join(work, "sr.png")
    lr.save(src)
    subprocess.run([vkinfer, *extra, "upscale", src, dst, "--model", model], check=True, stdout=subprocess.DEVNULL)
    with Image.open(dst) as im:
        sr = im.convert("RGB")
    if sr.size != (2 * lr.width, 2 * lr.height):
        raise SystemExit(f"eval_upscaler: upscale wrote {sr.size[0]}x{sr.size[1]}, not twice {lr.width}x{lr.height}")
    return np.asarray(sr)


def torch_model(checkpoint):
    import torch
    ck = torch.load(checkpoint, map_location="cpu")
    m = tu.UpscalerX2(**ck["config"], clamp=True)
    m.load_state_dict(ck["model"])
    m.eval()

    def run(lr):
        with torch.no_grad():
            x = torch.from_numpy(np.asarray(lr).copy()).permute(2, 0, 1)[None].float() / 255
            return tu.to_uint8(m(x))
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("images", nargs="*", help="photos (default: held-out Debian photos + scikit-image photos)")
    ap.add_argument("--model", default="data/upscaler_x2/model.onnx")
    ap.add_argument("--vkinfer", default="build/vkinfer")
    ap.add_argument("--backend", choices=["run", "upscale", "torch"], default="run")
    ap.add_argument("--checkpoint", help="training checkpoint for --backend torch")
    ap.add_argument("--vkinfer-args", default="", help="global vkinfer options, e.g. '--precision fp16'")
    ap.add_argument("--max-side", type=int, default=1024, help="downsize HR photos to this long side first (0: whole)")
    ap.add_argument("--shave", type=int, default=2, help="border pixels left out of the PSNR")
    ap.add_argument("--min-gain", type=float, default=None, help="exit 1 if the mean gain is below this (dB)")
    ap.add_argument("--json", help="write the per-image results here")
    args = ap.parse_args()

    images = [("given", p) for p in args.images] if args.images else default_images()
    if not images:
        sys.exit("eval_upscaler: no images (apt-get install mate-backgrounds plasma-workspace-wallpapers python3-skimage)")
    if args.backend == "torch":
        if not args.checkpoint:
            sys.exit("eval_upscaler: --backend torch needs --checkpoint")
        run_torch = torch_model(args.checkpoint)
    extra = args.vkinfer_args.split()

    rows = []
    print(f"{'group':9} {'image':22} {'HR size':>11} {'bicubic':>8} {'model':>8} {'gain':>7} {'s':>6}")
    with tempfile.TemporaryDirectory() as work:
        for group, path in images:
            hr, lr, bic = prepare(path, args.max_side)
            t = time.time()
            if args.backend == "torch":
                sr = run_torch(lr)
            elif args.backend == "run":
                sr = sr_vkinfer_run(args.vkinfer, args.model, lr, work, extra)
            else:
                sr = sr_vkinfer_upscale(args.vkinfer, args.model, lr, work, extra)
            dt = time.time() - t
            hr_a = np.asarray(hr)
            if sr.shape != hr_a.shape:
                sys.exit(f"eval_upscaler: {path}: SR is {sr.shape}, HR is {hr_a.shape}")
            p_bic, p_sr = tu.luma_psnr(np.asarray(bic), hr_a, args.shave), tu.luma_psnr(sr, hr_a, args.shave)
            name = tu.photo_name(path)
            rows.append(dict(group=group, image=name, path=path, width=hr.width, height=hr.height,
                             bicubic=p_bic, model=p_sr, gain=p_sr - p_bic, seconds=dt))
            print(f"{group:9} {name[:22]:22} {hr.width:>5}x{hr.height:<5} {p_bic:8.2f} {p_sr:8.2f} {p_sr - p_bic:+7.2f} "
                  f"{dt:6.1f}", flush=True)

    for group in dict.fromkeys(r["group"] for r in rows):
        g = [r for r in rows if r["group"] == group]
        print(f"mean {group:14} ({len(g)} images)        {np.mean([r['bicubic'] for r in g]):8.2f} "
              f"{np.mean([r['model'] for r in g]):8.2f} {np.mean([r['gain'] for r in g]):+7.2f}")
    mean_gain = float(np.mean([r["gain"] for r in rows]))
    print(f"mean gain over all {len(rows)} images: {mean_gain:+.2f} dB (luma, shave {args.shave}, "
          f"max side {args.max_side or 'whole'})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, mean_gain=mean_gain, max_side=args.max_side, shave=args.shave), f, indent=1)
    if args.min_gain is not None and not (mean_gain >= args.min_gain):
        print(f"eval_upscaler: mean gain {mean_gain:+.2f} dB is below --min-gain {args.min_gain}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
