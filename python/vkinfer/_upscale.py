"""vkinfer.upscale: an image through the project's trained x2 model (or any image-to-image model)."""

from __future__ import annotations

import os
from typing import Optional, Sequence, Union

import numpy as np

from ._vkinfer import Context, _upscale

_MODEL = os.path.join("upscaler_x2", "model.onnx")


def default_upscaler() -> str:
    """The shipped x2 model: $VKINFER_DATA_DIR/upscaler_x2/model.onnx when VKINFER_DATA_DIR is
    set (as for the CLI), else the copy inside the package."""
    folder = os.environ.get("VKINFER_DATA_DIR") or os.path.join(os.path.dirname(__file__), "data")
    path = os.path.join(folder, _MODEL)
    if not os.path.isfile(path):
        from ._errors import NotFoundError
        raise NotFoundError(f"the default upscaling model is not at {path}: give one with model=..., or set "
                            f"VKINFER_DATA_DIR to the folder holding {_MODEL}")
    return path


def upscale(image, model: Union[str, "os.PathLike[str]", None] = None, *, tile: Optional[int] = None,
            overlap: Optional[int] = None, mean: Union[float, Sequence[float], None] = None,
            scale: Union[float, Sequence[float], None] = None, precision: str = "fp32", sync: str = "minimal",
            context: Optional[Context] = None, device: Optional[int] = None, validate: bool = False) -> np.ndarray:
    """Upscales an H x W x C (or H x W gray) uint8 image, as ``vkinfer upscale`` does: with the
    project's trained x2 model by default (:func:`default_upscaler`), in tiles that fit the
    device and leave no seams (the overlap is the model's receptive field, measured), gray
    staying gray and alpha resized alongside. Returns the upscaled uint8 image.

    tile: tile edge in input pixels (None: the whole image if it fits the device, else the
    largest square tile that does; 0: the whole image). overlap: context pixels around each
    tile (None: measured). mean, scale: pixel mapping, value = (pixel/255 - mean) * scale, one
    value or one per channel. Without a context one is made on ``device`` (with validation
    when ``validate``).
    """
    if context is not None and (device is not None or validate):
        raise ValueError("device and validate belong to the Context: give them to vkinfer.Context(...), or give no context")
    if context is None:
        context = Context(device=device, validate=validate)
    return _upscale(image, model if model is not None else default_upscaler(), context, precision, sync,
                    -1 if tile is None else int(tile), -1 if overlap is None else int(overlap), mean, scale)
