"""DLPack producers as NumPy arrays that share their memory (inputs), for the native module."""

from __future__ import annotations

import numpy as np

# DLDeviceType values whose memory the host can read (DLPack's dlpack.h).
_HOST_DEVICES = {1: "CPU", 3: "CUDA host (pinned)", 11: "ROCm host (pinned)"}
_DEVICE_NAMES = {2: "CUDA", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI", 10: "ROCm", 13: "CUDA managed",
                 14: "oneAPI"}


def from_dlpack(obj, what: str = "array") -> np.ndarray:
    """``numpy.from_dlpack(obj)`` (no copy) for memory the host can read; ValueError naming
    the device otherwise (copy it to the host first, e.g. ``tensor.cpu()``)."""
    if hasattr(obj, "__dlpack_device__"):
        device_type, device_id = obj.__dlpack_device__()
        if int(device_type) not in _HOST_DEVICES:
            name = _DEVICE_NAMES.get(int(device_type), f"device type {int(device_type)}")
            raise ValueError(f"{what}: its memory is on {name} device {device_id}, which the host cannot read: "
                             "give a host copy (e.g. tensor.cpu())")
    try:
        return np.from_dlpack(obj)
    except (TypeError, RuntimeError, BufferError) as e:
        raise TypeError(f"{what}: its DLPack export cannot be read as a NumPy array: {e}") from e
